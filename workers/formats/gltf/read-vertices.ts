/**
 * A primitive's vertex data as glTF import keeps it: positions and normals placed in the world, texture coordinates,
 * and skin weights as rows of the dense #V × #B matrix, written straight into arrays sized for the whole mesh (no
 * per-vertex arrays, no second copy of the weights). Each accessor is read whole: its own array when its values are
 * stored as they are meant (not normalized), else a copy denormalized as glTF-Transform's `Accessor.getElement` does;
 * a value that is NaN or infinite is refused naming the accessor and the element, in the order a vertex-by-vertex
 * reading meets it. Positions and normals are placed with transformPoint's and transformNormal's arithmetic
 * (gltf-numbers.ts), written out here so that no vertex makes an array.
 */
import type { Accessor, Primitive } from '@gltf-transform/core';

type Fail = (where: string, reason: string) => never;

/** The mesh's vertex arrays being filled: #V × 3 positions and normals, #V × 2 texture coordinates. */
export interface VertexArrays {
  positions: Float64Array;
  normals: Float64Array;
  uvs: Float32Array;
}

/** An accessor read for checking: its values (denormalized), its element size and its name in messages. */
interface Read {
  values: ArrayLike<number>;
  size: number;
  what: string;
}

/**
 * An accessor's values, count × element size, denormalized as glTF-Transform's getElement does (glTF 2.0 §3.11:
 * unsigned c / (2ⁿ − 1), signed max(c / (2ⁿ⁻¹ − 1), −1)); not checked.
 * @param accessor  any accessor
 */
export function denormalizedValues(accessor: Accessor): Float64Array {
  // Typed as glTF-Transform's TypedArray, whose union names Float16Array, which this library target lacks.
  const array = accessor.getArray() as unknown as ArrayLike<number> | null;
  const out = new Float64Array(accessor.getCount() * accessor.getElementSize());
  if (!array) return out;
  const n = Math.min(out.length, array.length);
  if (!accessor.getNormalized()) {
    for (let i = 0; i < n; i++) out[i] = array[i];
    return out;
  }
  const type = accessor.getComponentType();
  for (let i = 0; i < n; i++) {
    const c = array[i];
    out[i] =
      type === 5121
        ? c / 255
        : type === 5123
          ? c / 65535
          : type === 5120
            ? Math.max(c / 127, -1)
            : type === 5122
              ? Math.max(c / 32767, -1)
              : c;
  }
  return out;
}

/**
 * An accessor's values, count × element size, as getElement gives them: the accessor's own array (not copied) when
 * it is not normalized and holds every element, else denormalizedValues.
 * @param accessor  any accessor
 */
export function accessorValues(accessor: Accessor): ArrayLike<number> {
  const array = accessor.getArray() as unknown as ArrayLike<number> | null;
  if (array && !accessor.getNormalized() && array.length >= accessor.getCount() * accessor.getElementSize()) return array;
  return denormalizedValues(accessor);
}

/** Refuses element i of `read` when one of its values is not finite (as readElement in gltf-numbers.ts words it). */
function checkElement(read: Read, i: number, fail: Fail): void {
  for (let k = i * read.size; k < (i + 1) * read.size; k++) {
    const value = read.values[k];
    if (!Number.isFinite(value)) fail(`${read.what} element ${i}`, `value ${value} is not a finite number`);
  }
}

/**
 * Writes a primitive's `count` vertices into `out` from vertex `base` on: positions mapped by `placement`, normals by
 * `normalMatrix` (left zero without NORMAL), texture coordinates (left zero without the set).
 * @param position      POSITION (VEC3)
 * @param normal        NORMAL (VEC3) or null
 * @param texcoord      the texture coordinate set (VEC2) or null
 * @param placement     4×4 column-major matrix into the world
 * @param normalMatrix  row-major 3×3 inverse transpose of placement's linear part (normalMatrixOf)
 * @param names         each accessor's name in messages (`/accessors/3 (POSITION)`)
 * @param out           the mesh's arrays, long enough for vertex base + count − 1
 * @param base          index of the primitive's first vertex in the mesh
 * @throws FormatError (through `fail`) naming the first element with a value that is not finite
 */
export function readPrimitiveVertices(
  position: Accessor,
  normal: Accessor | null,
  texcoord: Accessor | null,
  placement: Float64Array,
  normalMatrix: Float64Array,
  names: { position: string; normal: string; texcoord: string },
  out: VertexArrays,
  base: number,
  fail: Fail,
): void {
  const count = position.getCount();
  const p: Read = { values: accessorValues(position), size: position.getElementSize(), what: names.position };
  const n: Read | null = normal ? { values: accessorValues(normal), size: normal.getElementSize(), what: names.normal } : null;
  const t: Read | null = texcoord ? { values: accessorValues(texcoord), size: texcoord.getElementSize(), what: names.texcoord } : null;
  const m = placement;
  const q = normalMatrix;
  const { positions, normals, uvs } = out;
  for (let i = 0; i < count; i++) {
    const v = base + i;
    checkElement(p, i, fail);
    const px = p.values[3 * i];
    const py = p.values[3 * i + 1];
    const pz = p.values[3 * i + 2];
    positions[3 * v] = m[0] * px + m[4] * py + m[8] * pz + m[12];
    positions[3 * v + 1] = m[1] * px + m[5] * py + m[9] * pz + m[13];
    positions[3 * v + 2] = m[2] * px + m[6] * py + m[10] * pz + m[14];
    if (n) {
      checkElement(n, i, fail);
      const nx = n.values[3 * i];
      const ny = n.values[3 * i + 1];
      const nz = n.values[3 * i + 2];
      const x = q[0] * nx + q[1] * ny + q[2] * nz;
      const y = q[3] * nx + q[4] * ny + q[5] * nz;
      const z = q[6] * nx + q[7] * ny + q[8] * nz;
      const length = Math.hypot(x, y, z);
      normals[3 * v] = length > 0 ? x / length : 0;
      normals[3 * v + 1] = length > 0 ? y / length : 0;
      normals[3 * v + 2] = length > 0 ? z / length : 1;
    }
    if (t) {
      checkElement(t, i, fail);
      uvs[2 * v] = t.values[2 * i];
      uvs[2 * v + 1] = t.values[2 * i + 1];
    }
  }
}

/**
 * Adds a primitive's skin weights from all its JOINTS_n/WEIGHTS_n sets into rows base … base + count − 1 of the dense
 * #V × #B weight matrix (skin joint k is bone skinBones[k]).
 * @param primitive  the skinned primitive
 * @param count      its vertex count
 * @param skinBones  bone of each of its skin's joints
 * @param boneCount  #B, the matrix's columns
 * @param pointer    an accessor's JSON pointer for messages
 * @param weights    the matrix, row-major, rows of this primitive zero
 * @param base       index of the primitive's first vertex in the mesh
 * @returns false when the primitive has no JOINTS_0/WEIGHTS_0 (its rows stay zero)
 * @throws FormatError (through `fail`) for joint sets of the wrong type, weights that are not finite, or a joint index
 *   past the skin
 */
export function readPrimitiveWeights(
  primitive: Primitive,
  count: number,
  skinBones: readonly number[],
  boneCount: number,
  pointer: (accessor: Accessor) => string,
  weights: Float64Array,
  base: number,
  fail: Fail,
): boolean {
  if (!primitive.getAttribute('JOINTS_0') || !primitive.getAttribute('WEIGHTS_0')) return false;
  for (let set = 0; ; set++) {
    const joints = primitive.getAttribute(`JOINTS_${set}`);
    const values = primitive.getAttribute(`WEIGHTS_${set}`);
    if (!joints || !values) break;
    // Joint indices are whole numbers: a normalized or float JOINTS_n would turn them into fractions that name no
    // joint, and the weights would vanish.
    if (joints.getType() !== 'VEC4' || ![5121, 5123].includes(joints.getComponentType()))
      fail(pointer(joints), `JOINTS_${set} must be VEC4 of unsigned bytes or shorts (glTF 2.0 §3.7.3.3)`);
    if (joints.getNormalized()) fail(pointer(joints), `JOINTS_${set} is marked normalized; joint indices must be whole numbers`);
    if (values.getType() !== 'VEC4') fail(pointer(values), `WEIGHTS_${set} must be VEC4, not ${values.getType()}`);
    if (values.getComponentType() !== 5126 && !(values.getNormalized() && [5121, 5123].includes(values.getComponentType())))
      fail(pointer(values), `WEIGHTS_${set} must be floats or normalized unsigned bytes or shorts`);
    const jointWhat = `${pointer(joints)} (JOINTS_${set})`;
    const jointValues = accessorValues(joints);
    const w: Read = { values: accessorValues(values), size: 4, what: `${pointer(values)} (WEIGHTS_${set})` };
    for (let i = 0; i < count; i++) {
      checkElement(w, i, fail);
      const row = (base + i) * boneCount;
      for (let k = 0; k < 4; k++) {
        const weight = w.values[4 * i + k];
        if (weight === 0) continue;
        const joint = jointValues[4 * i + k];
        if (!(joint >= 0 && joint < skinBones.length))
          fail(`${jointWhat} element ${i}`, `joint ${joint} is past the skin's ${skinBones.length} joints`);
        weights[row + skinBones[joint]] += weight;
      }
    }
  }
  return true;
}
