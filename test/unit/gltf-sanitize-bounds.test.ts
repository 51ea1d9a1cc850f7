/**
 * The glTF input checks at their boundaries: each case is the last input a check accepts and the first it refuses,
 * with the sizes worked out by hand from glTF 2.0 §3.6.2 (accessor data, strides, sparse accessors), so that a check
 * that is off by one, ignores the stride or leaves out the alignment lets the refused input through.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sanitizeGltfInput } from '../../workers/formats/gltf/sanitize-input.ts';
import { FormatError } from '../../workers/formats/format-error.ts';

const FLOAT = 5126;
const UNSIGNED_BYTE = 5121;
const UNSIGNED_SHORT = 5123;
const UNSIGNED_INT = 5125;

type Json = Record<string, unknown>;

/** A glTF of one 64-byte external buffer (`data.bin`), the given buffer views on it and the given accessors. */
function asset(bufferViews: Json[], accessors: Json[], data = new Uint8Array(64)): { json: Json; resources: Record<string, Uint8Array> } {
  return {
    json: { asset: { version: '2.0' }, buffers: [{ uri: 'data.bin', byteLength: data.length }], bufferViews, accessors },
    resources: { 'data.bin': data },
  };
}

/** sanitizeGltfInput on the asset, failing as the importer does (a FormatError naming the file, the place and the reason). */
function check({ json, resources }: { json: Json; resources: Record<string, Uint8Array> }): Json {
  const fail = (where: string, reason: string): never => {
    throw new FormatError('bounds.gltf', where, reason);
  };
  return sanitizeGltfInput(json, null, resources, '@glb.bin', fail).json;
}

/** Asserts that sanitizeGltfInput refuses the asset with exactly `message`. */
function assertRefused(input: { json: Json; resources: Record<string, Uint8Array> }, message: string): void {
  assert.throws(
    () => check(input),
    (error: unknown) => {
      assert.ok(error instanceof FormatError, `expected a FormatError, got ${String(error)}`);
      assert.equal(error.message, message, 'the refusal names the file, the JSON pointer and the reason');
      return true;
    },
    `refused: ${message}`,
  );
}

test('accessor bounds step by the buffer view byteStride when it is larger than the element', () => {
  // 3 VEC3 floats (12 bytes each) 16 bytes apart: the last starts at 2 × 16 = 32 and ends at 32 + 12 = 44.
  const strided = (byteLength: number, byteOffset = 0) =>
    asset([{ buffer: 0, byteLength, byteStride: 16 }], [{ bufferView: 0, byteOffset, componentType: FLOAT, type: 'VEC3', count: 3 }]);
  const accessors = check(strided(44)).accessors as Json[];
  assert.equal(accessors[0].count, 3, 'a view of exactly 44 bytes holds the three strided elements');
  // Tightly packed the same elements would need only 36 bytes: a view of 43 is too short only because of the stride.
  assertRefused(strided(43), 'bounds.gltf: /accessors/0: 3 elements need 44 bytes, past the end of buffer view 0 (43 bytes)');
  assertRefused(strided(37), 'bounds.gltf: /accessors/0: 3 elements need 44 bytes, past the end of buffer view 0 (37 bytes)');
  // From byte 4 of the view they end at 4 + 44 = 48.
  assert.equal((check(strided(48, 4)).accessors as Json[])[0].byteOffset, 4, 'from byte 4, a view of 48 bytes is enough');
  assertRefused(strided(47, 4), 'bounds.gltf: /accessors/0: 3 elements need 48 bytes, past the end of buffer view 0 (47 bytes)');
  // Without a stride the elements are packed: 3 × 12 = 36 bytes fit a view of 36.
  const packed = asset([{ buffer: 0, byteLength: 36 }], [{ bufferView: 0, componentType: FLOAT, type: 'VEC3', count: 3 }]);
  assert.equal((check(packed).accessors as Json[]).length, 1, 'three packed VEC3 floats fit 36 bytes');
});

/**
 * A SCALAR float accessor of 4 elements (bytes 0–15) with 2 sparse entries: indices at byte 16 in the given
 * component type, values (2 floats) at byte 32.
 */
function sparseAsset(componentType: number, indices: [number, number]): { json: Json; resources: Record<string, Uint8Array> } {
  const data = new Uint8Array(64);
  const view = new DataView(data.buffer);
  const size = componentType === UNSIGNED_BYTE ? 1 : componentType === UNSIGNED_SHORT ? 2 : 4;
  indices.forEach((target, i) => {
    if (size === 1) view.setUint8(16 + i, target);
    else if (size === 2) view.setUint16(16 + 2 * i, target, true);
    else view.setUint32(16 + 4 * i, target, true);
  });
  return asset(
    [
      { buffer: 0, byteLength: 16 },
      { buffer: 0, byteOffset: 16, byteLength: 8 },
      { buffer: 0, byteOffset: 32, byteLength: 8 },
    ],
    [
      {
        bufferView: 0,
        componentType: FLOAT,
        type: 'SCALAR',
        count: 4,
        sparse: { count: 2, indices: { bufferView: 1, componentType }, values: { bufferView: 2 } },
      },
    ],
    data,
  );
}

test('a sparse index equal to the accessor count is refused; the last element (count − 1) is accepted', () => {
  for (const [componentType, name] of [
    [UNSIGNED_BYTE, 'unsigned byte'],
    [UNSIGNED_SHORT, 'unsigned short'],
    [UNSIGNED_INT, 'unsigned int'],
  ] as const) {
    const accessors = check(sparseAsset(componentType, [1, 3])).accessors as Json[];
    assert.equal(accessors[0].count, 4, `${name} indices: entry 3 names the accessor's last element`);
    assertRefused(
      sparseAsset(componentType, [1, 4]),
      "bounds.gltf: /accessors/0/sparse/indices: entry 1 names element 4, past the accessor's 4 elements",
    );
    assertRefused(
      sparseAsset(componentType, [4, 0]),
      "bounds.gltf: /accessors/0/sparse/indices: entry 0 names element 4, past the accessor's 4 elements",
    );
  }
});

test('an accessor byteOffset that is not a multiple of its component size is refused, even with room in the view', () => {
  // One VEC3 float (12 bytes) in a view of 16: from byte 2 or byte 4 it ends inside the view; only 4 is aligned.
  const floatAt = (byteOffset: number) =>
    asset([{ buffer: 0, byteLength: 16 }], [{ bufferView: 0, byteOffset, componentType: FLOAT, type: 'VEC3', count: 1 }]);
  assert.equal((check(floatAt(4)).accessors as Json[])[0].byteOffset, 4, 'a float accessor from byte 4 is aligned');
  assertRefused(floatAt(2), 'bounds.gltf: /accessors/0/byteOffset: 2 is not a multiple of the component size 4');
  assertRefused(floatAt(1), 'bounds.gltf: /accessors/0/byteOffset: 1 is not a multiple of the component size 4');
  // Unsigned shorts align to 2 bytes: byte 2 is fine, byte 3 is not.
  const shortAt = (byteOffset: number) =>
    asset([{ buffer: 0, byteLength: 16 }], [{ bufferView: 0, byteOffset, componentType: UNSIGNED_SHORT, type: 'SCALAR', count: 4 }]);
  assert.equal((check(shortAt(2)).accessors as Json[])[0].byteOffset, 2, 'an unsigned short accessor from byte 2 is aligned');
  assertRefused(shortAt(3), 'bounds.gltf: /accessors/0/byteOffset: 3 is not a multiple of the component size 2');
});

test('sparse indices and values whose byteOffset is not aligned to their component size are refused', () => {
  // The index view widened to 12 bytes and the value view to 16, so that 2 unsigned shorts from byte 1 or 2 and
  // 2 floats from byte 2 or 4 all end inside their views: only the alignment tells them apart.
  const shifted = (indexOffset: number, valueOffset: number) => {
    const input = sparseAsset(UNSIGNED_SHORT, [0, 0]);
    const views = input.json.bufferViews as Json[];
    views[1].byteLength = 12;
    views[2].byteLength = 16;
    const sparse = (input.json.accessors as Json[])[0].sparse as { indices: Json; values: Json };
    sparse.indices.byteOffset = indexOffset;
    sparse.values.byteOffset = valueOffset;
    return input;
  };
  assert.equal((check(shifted(2, 4)).accessors as Json[]).length, 1, 'indices from byte 2 and values from byte 4 are aligned');
  assertRefused(shifted(1, 4), 'bounds.gltf: /accessors/0/sparse/indices/byteOffset: 1 is not aligned to its component size');
  assertRefused(shifted(2, 2), 'bounds.gltf: /accessors/0/sparse/values/byteOffset: 2 is not aligned to its component size');
});

test("an accessor or sparse part whose buffer view starts off alignment is refused: the view's and the accessor's offsets together must align", () => {
  // A VEC3 float from byte 0 of a view that starts at byte 2 of the buffer: the accessor's own offset is
  // aligned, the 2 + 0 = 2 bytes into the buffer are not (glTF 2.0 §3.6.2.4); at 4 they are.
  const viewAt = (viewOffset: number, accessorOffset = 0) =>
    asset(
      [{ buffer: 0, byteOffset: viewOffset, byteLength: 16 }],
      [{ bufferView: 0, byteOffset: accessorOffset, componentType: FLOAT, type: 'VEC3', count: 1 }],
    );
  assert.equal((check(viewAt(4)).accessors as Json[]).length, 1, 'a float view at byte 4 of the buffer is aligned');
  assert.equal(
    (check(viewAt(8, 4)).accessors as Json[]).length,
    1,
    'a view at byte 8 with an accessor at 4 of it starts at byte 12: aligned',
  );
  assertRefused(
    viewAt(2),
    'bounds.gltf: /accessors/0: starts at byte 2 of its buffer (buffer view 0 at 2, plus 0), not a multiple of the component size 4',
  );
  assertRefused(
    viewAt(6, 4),
    'bounds.gltf: /accessors/0: starts at byte 10 of its buffer (buffer view 0 at 6, plus 4), not a multiple of the component size 4',
  );
  // Sparse values on a view moved from byte 32 to byte 34: 2 floats from byte 0 of it start at byte 34 of the buffer.
  const input = sparseAsset(UNSIGNED_SHORT, [0, 1]);
  (input.json.bufferViews as Json[])[2].byteOffset = 34;
  assertRefused(input, 'bounds.gltf: /accessors/0/sparse/values: starts at byte 34 of its buffer, not a multiple of its component size 4');
  // Sparse indices (unsigned shorts) on a view moved from byte 16 to byte 17.
  const indices = sparseAsset(UNSIGNED_SHORT, [0, 1]);
  (indices.json.bufferViews as Json[])[1].byteOffset = 17;
  assertRefused(
    indices,
    'bounds.gltf: /accessors/0/sparse/indices: starts at byte 17 of its buffer, not a multiple of its component size 2',
  );
});
