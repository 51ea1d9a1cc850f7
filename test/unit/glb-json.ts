/** A GLB's JSON chunk, read and replaced, for tests that inspect what was written or damage it on purpose. */

/** The JSON chunk of a GLB, parsed (the caller names the shape it reads). */
export function glbJson<T>(glb: Uint8Array): T {
  const jsonLength = new DataView(glb.buffer, glb.byteOffset, glb.byteLength).getUint32(12, true);
  return JSON.parse(new TextDecoder().decode(glb.subarray(20, 20 + jsonLength))) as T;
}

/** The binary chunk of a GLB (empty when it has none). */
export function glbBin(glb: Uint8Array): Uint8Array {
  const view = new DataView(glb.buffer, glb.byteOffset, glb.byteLength);
  const binAt = 20 + view.getUint32(12, true);
  if (binAt + 8 > glb.length) return new Uint8Array(0);
  return glb.subarray(binAt + 8, binAt + 8 + view.getUint32(binAt, true));
}

/** The GLB with its JSON chunk replaced by `json` (space-padded to 4 bytes; the binary chunk as it was). */
export function withGlbJson(glb: Uint8Array, json: unknown): Uint8Array {
  const jsonLength = new DataView(glb.buffer, glb.byteOffset, glb.byteLength).getUint32(12, true);
  const text = new TextEncoder().encode(JSON.stringify(json));
  const padded = (text.length + 3) & ~3;
  const rest = glb.subarray(20 + jsonLength);
  const out = new Uint8Array(20 + padded + rest.length);
  out.set(glb.subarray(0, 12));
  out.set(text, 20);
  out.fill(0x20, 20 + text.length, 20 + padded);
  out.set(rest, 20 + padded);
  const view = new DataView(out.buffer);
  view.setUint32(8, out.length, true);
  view.setUint32(12, padded, true);
  view.setUint32(16, 0x4e4f534a, true);
  return out;
}
