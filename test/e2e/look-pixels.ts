/**
 * Helpers the Look view's specs share: sRGB transfer functions, the app's default albedo, projecting posed vertices
 * into the page with the view's camera, and a PNG writer for generated textures.
 */
import { deflateSync } from 'node:zlib';

/** the app's default material, sRGB 0xb9c2cf (surface-look.ts defaultMaterial) */
export const DEFAULT_ALBEDO = [0xb9, 0xc2, 0xcf];

export const srgbToLinear = (c: number) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
export const linearToSrgb = (c: number) => (c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055);

/** Every posed vertex in the page: x, y (CSS pixels), NDC depth, 1/w. */
export function projectAll(
  camera: { viewProjection: number[]; left: number; top: number; width: number; height: number },
  positions: number[],
) {
  const m = camera.viewProjection;
  const out = new Float64Array((positions.length / 3) * 4);
  for (let v = 0; v < positions.length / 3; v++) {
    const [x, y, z] = [positions[3 * v], positions[3 * v + 1], positions[3 * v + 2]];
    const cx = m[0] * x + m[4] * y + m[8] * z + m[12];
    const cy = m[1] * x + m[5] * y + m[9] * z + m[13];
    const cz = m[2] * x + m[6] * y + m[10] * z + m[14];
    const cw = m[3] * x + m[7] * y + m[11] * z + m[15];
    out[4 * v] = camera.left + ((cx / cw + 1) / 2) * camera.width;
    out[4 * v + 1] = camera.top + ((1 - cy / cw) / 2) * camera.height;
    out[4 * v + 2] = cz / cw;
    out[4 * v + 3] = 1 / cw;
  }
  return out;
}

/** A PNG file of RGBA pixels (row-major, top row first): signature, IHDR, one stored-deflate IDAT, IEND. */
export function png(width: number, height: number, rgba: Uint8Array): Uint8Array {
  const table = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes: Uint8Array) => {
    let c = 0xffffffff;
    for (const b of bytes) c = table[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Uint8Array) => {
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    out.write(type, 4, 'latin1');
    out.set(data, 8);
    out.writeUInt32BE(crc(out.subarray(4, 8 + data.length)), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 6, 0, 0, 0], 8);
  const rows = Buffer.alloc(height * (1 + 4 * width));
  for (let y = 0; y < height; y++) rows.set(rgba.subarray(4 * width * y, 4 * width * (y + 1)), y * (1 + 4 * width) + 1);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', new Uint8Array(0)),
  ]);
}
