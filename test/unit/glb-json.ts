/**
 * A GLB's JSON chunk, read and replaced, for tests that inspect what was written or damage it on purpose; and a float
 * accessor's values read from the file's buffers.
 */
import assert from 'node:assert/strict';

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

/** The parts of a glTF's JSON that accessorFloats reads. */
export interface AccessorJson {
  accessors: { bufferView?: number; byteOffset?: number; count: number; componentType: number; type: string }[];
  bufferViews: { buffer: number; byteOffset?: number; byteStride?: number }[];
}

const WIDTH: Record<string, number> = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT4: 16 };

/** A float accessor's values, element after element, from the file's buffers (a GLB's: its binary chunk). */
export function accessorFloats(json: AccessorJson, buffers: readonly Uint8Array[], accessor: number): number[] {
  const a = json.accessors[accessor];
  assert.equal(a.componentType, 5126, `accessor ${accessor} holds floats`);
  const view = json.bufferViews[a.bufferView ?? -1];
  const width = WIDTH[a.type];
  const stride = view.byteStride ?? 4 * width;
  const bytes = buffers[view.buffer];
  const data = new DataView(bytes.buffer, bytes.byteOffset + (view.byteOffset ?? 0) + (a.byteOffset ?? 0));
  const out: number[] = [];
  for (let i = 0; i < a.count; i++) for (let k = 0; k < width; k++) out.push(data.getFloat32(i * stride + 4 * k, true));
  return out;
}
