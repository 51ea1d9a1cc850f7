import { FormatError } from './format-error.ts';

const GLB_MAGIC = 0x46546c67;
const JSON_CHUNK = 0x4e4f534a;

/** True when the bytes start with the GLB header magic `glTF`. */
export function isGlb(bytes: Uint8Array): boolean {
  return bytes.length >= 12 && new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, true) === GLB_MAGIC;
}

/**
 * The external files a glTF asset names (buffer and image URIs that are not `data:` URIs), decoded, in file order
 * and without repeats, so that a caller with file access can load them before importGltf.
 * @param bytes  a .gltf (JSON) or .glb file
 * @param file   file name for error messages
 * @returns relative URIs as written in the file, percent-decoded
 * @throws FormatError when the bytes are neither GLB nor glTF JSON
 */
export function gltfResourceUris(bytes: Uint8Array, file: string): string[] {
  const json = gltfJson(bytes, file) as { buffers?: { uri?: unknown }[]; images?: { uri?: unknown }[] };
  const uris: string[] = [];
  for (const entry of [...(json.buffers ?? []), ...(json.images ?? [])]) {
    const uri = entry?.uri;
    if (typeof uri !== 'string' || uri.startsWith('data:')) continue;
    let decoded = uri;
    try {
      decoded = decodeURIComponent(uri);
    } catch {
      // A malformed escape is kept as written; the loader reports the file as missing if it is.
    }
    if (!uris.includes(decoded)) uris.push(decoded);
  }
  return uris;
}

/**
 * The JSON part of a glTF asset, parsed.
 * @throws FormatError for a truncated GLB, a GLB without a JSON chunk, or text that is not JSON
 */
export function gltfJson(bytes: Uint8Array, file: string): unknown {
  let text: string;
  if (isGlb(bytes)) {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (bytes.length < 20) throw new FormatError(file, 'GLB header', 'the file ends before the first chunk');
    const length = view.getUint32(12, true);
    if (view.getUint32(16, true) !== JSON_CHUNK) throw new FormatError(file, 'GLB chunk 0', 'the first chunk is not JSON');
    if (20 + length > bytes.length)
      throw new FormatError(file, 'GLB chunk 0', `the JSON chunk claims ${length} bytes, the file is shorter`);
    text = new TextDecoder().decode(bytes.subarray(20, 20 + length));
  } else {
    text = new TextDecoder().decode(bytes);
  }
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new FormatError(file, '', `neither GLB nor glTF JSON (${error instanceof Error ? error.message : String(error)})`);
  }
}
