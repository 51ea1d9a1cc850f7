/**
 * glTF import's vertex reading (gltf/read-vertices.ts), which reads each accessor whole into the mesh's arrays,
 * against the element-by-element reading it replaced, kept here as the reference: Accessor.getElement through
 * readElement, transformPoint and transformNormal per vertex, a fresh row per vertex for the weights. Both must give
 * the same bits, on every primitive of the shared glTF samples and on generated ones with every normalized component
 * type, two joint sets and values that are not finite (where both must refuse the same element first).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Accessor, Document, type GLTF, type Primitive } from '@gltf-transform/core';
import { readCheckedGltf } from '../../workers/formats/gltf-import.ts';
import { normalMatrixOf, readElement, transformNormal, transformPoint } from '../../workers/formats/gltf-numbers.ts';
import {
  denormalizedValues,
  readPrimitiveVertices,
  readPrimitiveWeights,
  type VertexArrays,
} from '../../workers/formats/gltf/read-vertices.ts';
import { dataFile } from './shared-data.ts';

const fail = (where: string, reason: string): never => {
  throw new Error(`${where}: ${reason}`);
};
const pointer = (accessor: Accessor): string => `accessor ${accessor.getName()}`;

/** A placement with rotation, non-uniform scale and translation (column-major), so that normals need the inverse transpose. */
const PLACEMENT = Float64Array.from([0.8, 0.6, 0, 0, -1.2, 1.6, 0, 0, 0, 0, 0.5, 0, 3, -2, 1, 1]);

/** The reference: vertex by vertex, element by element, as glTF import read them before. */
function referenceVertices(
  primitive: Primitive,
  uvSet: string,
  placement: Float64Array,
): { arrays: VertexArrays; weights: Float64Array | null } {
  const position = primitive.getAttribute('POSITION')!;
  const normal = primitive.getAttribute('NORMAL');
  const texcoord = primitive.getAttribute(uvSet);
  const count = position.getCount();
  const normalMatrix = normalMatrixOf(Float64Array.from(placement));
  const positions: number[] = [];
  const normals: number[] = [];
  const uvs: number[] = [];
  const element = new Float64Array(16);
  for (let i = 0; i < count; i++) {
    readElement(position, i, element, 0, fail, `${pointer(position)} (POSITION)`);
    positions.push(...transformPoint(placement, element));
    if (normal) {
      readElement(normal, i, element, 0, fail, `${pointer(normal)} (NORMAL)`);
      normals.push(...transformNormal(normalMatrix, element));
    } else normals.push(0, 0, 0);
    if (texcoord) {
      readElement(texcoord, i, element, 0, fail, `${pointer(texcoord)} (${uvSet})`);
      uvs.push(element[0], element[1]);
    } else uvs.push(0, 0);
  }
  let weights: Float64Array | null = null;
  if (primitive.getAttribute('JOINTS_0') && primitive.getAttribute('WEIGHTS_0')) {
    const bones =
      Math.max(
        ...primitive
          .listSemantics()
          .filter((s) => s.startsWith('JOINTS_'))
          .map((s) => maxOf(primitive.getAttribute(s)!)),
      ) + 1;
    weights = new Float64Array(count * bones);
    const joint = new Float64Array(4);
    const weight = new Float64Array(4);
    for (let set = 0; primitive.getAttribute(`JOINTS_${set}`) && primitive.getAttribute(`WEIGHTS_${set}`); set++) {
      const joints = primitive.getAttribute(`JOINTS_${set}`)!;
      const values = primitive.getAttribute(`WEIGHTS_${set}`)!;
      for (let i = 0; i < count; i++) {
        readElement(joints, i, joint, 0, fail, `${pointer(joints)} (JOINTS_${set})`);
        readElement(values, i, weight, 0, fail, `${pointer(values)} (WEIGHTS_${set})`);
        for (let k = 0; k < 4; k++) if (weight[k] !== 0) weights[i * bones + joint[k]] += weight[k];
      }
    }
  }
  return { arrays: { positions: Float64Array.from(positions), normals: Float64Array.from(normals), uvs: Float32Array.from(uvs) }, weights };
}

function maxOf(accessor: Accessor): number {
  let max = 0;
  for (let i = 0; i < accessor.getCount(); i++) max = Math.max(max, ...accessor.getElement(i, []));
  return max;
}

/** What the reading under test finds in the vertices before `base`: none of it may change. */
const BEFORE_BASE = 7;

/** True when values 0 … end − 1 are all still BEFORE_BASE. */
function untouched(values: ArrayLike<number>, end: number): boolean {
  for (let i = 0; i < end; i++) if (values[i] !== BEFORE_BASE) return false;
  return true;
}

/** The reading under test, into arrays with room for `base` vertices (all BEFORE_BASE) before the primitive's. */
function readVertices(primitive: Primitive, uvSet: string, placement: Float64Array, base: number, bones: number) {
  const position = primitive.getAttribute('POSITION')!;
  const normal = primitive.getAttribute('NORMAL');
  const texcoord = primitive.getAttribute(uvSet);
  const total = base + position.getCount();
  const arrays: VertexArrays = {
    positions: new Float64Array(3 * total),
    normals: new Float64Array(3 * total),
    uvs: new Float32Array(2 * total),
  };
  arrays.positions.fill(BEFORE_BASE, 0, 3 * base);
  arrays.normals.fill(BEFORE_BASE, 0, 3 * base);
  arrays.uvs.fill(BEFORE_BASE, 0, 2 * base);
  const names = {
    position: `${pointer(position)} (POSITION)`,
    normal: normal ? `${pointer(normal)} (NORMAL)` : '',
    texcoord: texcoord ? `${pointer(texcoord)} (${uvSet})` : '',
  };
  readPrimitiveVertices(position, normal, texcoord, placement, normalMatrixOf(Float64Array.from(placement)), names, arrays, base, fail);
  const weights = new Float64Array(total * bones).fill(BEFORE_BASE, 0, base * bones);
  const identityBones = Array.from({ length: bones }, (_, j) => j);
  const weighted = readPrimitiveWeights(primitive, position.getCount(), identityBones, bones, pointer, weights, base, fail);
  return { arrays, weights: weighted ? weights : null };
}

/** Asserts the reading under test at vertex offset 5 equals the reference, bit for bit. */
function assertSameAsReference(primitive: Primitive, label: string, uvSet = 'TEXCOORD_0'): void {
  const reference = referenceVertices(primitive, uvSet, PLACEMENT);
  const count = primitive.getAttribute('POSITION')!.getCount();
  const bones = reference.weights ? reference.weights.length / count : 1;
  const ours = readVertices(primitive, uvSet, PLACEMENT, 5, bones);
  assert.ok(untouched(ours.arrays.positions, 15), `${label}: no position written before the base vertex`);
  assert.ok(untouched(ours.arrays.normals, 15), `${label}: no normal written before the base vertex`);
  assert.ok(untouched(ours.arrays.uvs, 10), `${label}: no texture coordinate written before the base vertex`);
  if (ours.weights) assert.ok(untouched(ours.weights, 5 * bones), `${label}: no weight row written before the base vertex`);
  assert.deepEqual(ours.arrays.positions.subarray(15), reference.arrays.positions, `${label}: positions`);
  assert.deepEqual(ours.arrays.normals.subarray(15), reference.arrays.normals, `${label}: normals`);
  assert.deepEqual(ours.arrays.uvs.subarray(10), reference.arrays.uvs, `${label}: texture coordinates`);
  assert.deepEqual(ours.weights?.subarray(5 * bones) ?? null, reference.weights, `${label}: weight rows`);
}

/** A primitive of `count` vertices with the given attributes (accessor names are their semantics). */
function primitiveOf(
  doc: Document,
  attributes: Record<
    string,
    { type: GLTF.AccessorType; array: Float32Array | Int8Array | Uint8Array | Int16Array | Uint16Array; normalized?: boolean }
  >,
): Primitive {
  const primitive = doc.createPrimitive();
  for (const [semantic, { type, array, normalized }] of Object.entries(attributes)) {
    primitive.setAttribute(
      semantic,
      doc
        .createAccessor(semantic)
        .setType(type)
        .setArray(array)
        .setNormalized(normalized ?? false),
    );
  }
  return primitive;
}

test('vertex reading: every primitive of the shared glTF samples gives the bits the element-by-element reading gives', async () => {
  for (const name of ['RiggedSimple', 'RiggedFigure', 'CesiumMan', 'Fox']) {
    const file = `${name}.glb`;
    const doc = await readCheckedGltf(new Uint8Array(readFileSync(dataFile('gltf', name, file))), file, {}, []);
    const primitives = doc
      .getRoot()
      .listMeshes()
      .flatMap((mesh) => mesh.listPrimitives());
    assert.ok(primitives.length > 0, `${name} has primitives`);
    primitives.forEach((primitive, p) => assertSameAsReference(primitive, `${name} primitive ${p}`));
  }
});

test('vertex reading: normalized bytes and shorts, signed and unsigned, and two joint sets read as getElement reads them', () => {
  const doc = new Document();
  const n = 6;
  const primitive = primitiveOf(doc, {
    POSITION: {
      type: Accessor.Type.VEC3,
      array: Int16Array.from({ length: 3 * n }, (_, i) => [-32768, -32767, 0, 1, 16000, 32767][i % 6]),
      normalized: true,
    },
    NORMAL: {
      type: Accessor.Type.VEC3,
      array: Int8Array.from({ length: 3 * n }, (_, i) => [-128, -127, 0, 64, 127, 5][i % 6]),
      normalized: true,
    },
    TEXCOORD_1: {
      type: Accessor.Type.VEC2,
      array: Uint16Array.from({ length: 2 * n }, (_, i) => [0, 1, 65535, 30000][i % 4]),
      normalized: true,
    },
    JOINTS_0: { type: Accessor.Type.VEC4, array: Uint8Array.from({ length: 4 * n }, (_, i) => i % 7) },
    WEIGHTS_0: { type: Accessor.Type.VEC4, array: Uint8Array.from({ length: 4 * n }, (_, i) => [255, 128, 0, 3][i % 4]), normalized: true },
    JOINTS_1: { type: Accessor.Type.VEC4, array: Uint16Array.from({ length: 4 * n }, (_, i) => (i * 3) % 9) },
    WEIGHTS_1: {
      type: Accessor.Type.VEC4,
      array: Uint16Array.from({ length: 4 * n }, (_, i) => [1, 65535, 0, 700][i % 4]),
      normalized: true,
    },
  });
  assertSameAsReference(primitive, 'quantized', 'TEXCOORD_1');
  // Denormalization itself, against getElement, for the four integer types.
  for (const array of [
    Int8Array.of(-128, -127, 0, 127),
    Uint8Array.of(0, 1, 254, 255),
    Int16Array.of(-32768, -1, 0, 32767),
    Uint16Array.of(0, 7, 65535, 1),
  ]) {
    const accessor = doc.createAccessor().setType(Accessor.Type.VEC4).setArray(array).setNormalized(true);
    assert.deepEqual([...denormalizedValues(accessor)], accessor.getElement(0, []), `${array.constructor.name} denormalized`);
  }
  // A primitive without normals or texture coordinates leaves them zero, as before.
  assertSameAsReference(
    primitiveOf(doc, { POSITION: { type: Accessor.Type.VEC3, array: Float32Array.of(1, 2, 3, 4, 5, 6) } }),
    'positions only',
  );
});

test('vertex reading: the first value that is not finite, in vertex order, is refused as the element-by-element reading refuses it', () => {
  const doc = new Document();
  const cases: [string, (attributes: Record<string, Float32Array>) => void][] = [
    ['a normal before a later position', (a) => ((a.NORMAL[3 * 2 + 1] = NaN), (a.POSITION[3 * 5] = Infinity))],
    ['a position and a normal of the same vertex', (a) => ((a.NORMAL[3 * 1] = NaN), (a.POSITION[3 * 1 + 2] = -Infinity))],
    ['a texture coordinate', (a) => (a.TEXCOORD_0[2 * 3 + 1] = NaN)],
    ['a weight', (a) => (a.WEIGHTS_0[4 * 4 + 2] = NaN)],
  ];
  for (const [label, damage] of cases) {
    const n = 7;
    const attributes: Record<string, Float32Array> = {
      POSITION: Float32Array.from({ length: 3 * n }, (_, i) => i / 3),
      NORMAL: Float32Array.from({ length: 3 * n }, (_, i) => (i % 3 === 2 ? 1 : 0)),
      TEXCOORD_0: Float32Array.from({ length: 2 * n }, (_, i) => i / 10),
      WEIGHTS_0: Float32Array.from({ length: 4 * n }, (_, i) => (i % 4 === 0 ? 1 : 0)),
    };
    damage(attributes);
    const primitive = primitiveOf(doc, {
      POSITION: { type: Accessor.Type.VEC3, array: attributes.POSITION },
      NORMAL: { type: Accessor.Type.VEC3, array: attributes.NORMAL },
      TEXCOORD_0: { type: Accessor.Type.VEC2, array: attributes.TEXCOORD_0 },
      JOINTS_0: { type: Accessor.Type.VEC4, array: new Uint8Array(4 * n) },
      WEIGHTS_0: { type: Accessor.Type.VEC4, array: attributes.WEIGHTS_0 },
    });
    const message = (run: () => unknown): string => {
      try {
        run();
      } catch (error) {
        return (error as Error).message;
      }
      return 'no error';
    };
    const expected = message(() => referenceVertices(primitive, 'TEXCOORD_0', PLACEMENT));
    assert.match(expected, /element \d+: value (NaN|-?Infinity) is not a finite number$/, `${label}: the reference refuses it`);
    assert.equal(
      message(() => readVertices(primitive, 'TEXCOORD_0', PLACEMENT, 0, 1)),
      expected,
      `${label}: the same element is refused`,
    );
  }
});
