/**
 * The fresh glTF export of a whole asset: OBJ objects as mesh nodes on one skin, every `vt`/`vn` as TEXCOORD_0 and
 * NORMAL (vertices split per distinct corner), weights per `v`, materials from the look, unskinned meshes left
 * unskinned, joints as given with inverse bind matrices that invert the rest pose exactly. Expectations come from a
 * plain reading of the OBJ text in this file (not workers/formats/obj.ts) and from glTF-Transform reading the export.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WebIO, type Document, type Node as GltfNode, type Primitive } from '@gltf-transform/core';
import { readObj } from '../../workers/formats/obj.ts';
import { exportGltf, type GltfRig } from '../../workers/formats/gltf-export.ts';
import { buildSkeleton, type Skeleton } from '../../workers/rig/skeleton.ts';
import type { DenseMatrix, MaterialLook, MeshPart } from '../../workers/formats/types.ts';
import { assertValidGltf } from './gltf-skinning-reference.ts';
import { exportSceneAsGltf } from '../../renderer/io/gltf-export-action.ts';
import { withDerived } from '../../workers/scene/scene-document.ts';
import type { IoClient } from '../../renderer/io/io-client.ts';
import type { RigwrightBridge } from '../../app/ipc-contract.ts';
import { dataFile, repoRoot } from './shared-data.ts';
import { blenderMissing, blenderReport } from './blender.ts';

/**
 * Three objects. Body: a 4 × 2 strip of three quads with a texture seam and a hard edge at x = 2 (the right quad
 * uses other vt and vn there), and a corner reusing its neighbour's (v, vt, vn). Eye: one quad, relative indices,
 * non-unit vn. Hat: one triangle with normals and no texture coordinates.
 */
const OBJ = [
  'o Body',
  'v 0 0 0',
  'v 1 0 0',
  'v 2 0 0',
  'v 3 0 0',
  'v 0 1 0',
  'v 1 1 0',
  'v 2 1 0',
  'v 3 1 0',
  'vt 0 0',
  'vt 0.25 0',
  'vt 0.5 0',
  'vt 0 0.5',
  'vt 0.25 0.5',
  'vt 0.5 0.5',
  'vt 0.6 0.1',
  'vt 0.9 0.1',
  'vt 0.6 0.7',
  'vt 0.9 0.7',
  'vn 0 0 1',
  'vn 0.6 0 0.8',
  'f 1/1/1 2/2/1 6/5/1 5/4/1',
  'f 2/2/1 3/3/1 7/6/1 6/5/1',
  'f 3/7/2 4/8/2 8/10/2 7/9/2',
  'o Eye',
  'v 4 0 0.5',
  'v 5 0 0.5',
  'v 5 1 0.5',
  'v 4 1 0.5',
  'vt 0.1 0.9',
  'vt 0.2 0.9',
  'vt 0.2 0.99',
  'vt 0.1 0.99',
  'vn 0 0 2',
  'f -4/-4/-1 -3/-3/-1 -2/-2/-1 -1/-1/-1',
  'o Hat',
  'v 0 2 0',
  'v 1 2 0',
  'v 0 3 0',
  'vn 0 0 1',
  'f 13//4 14//4 15//4',
  '',
].join('\n');

interface PlainCorner {
  v: number;
  vt: [number, number] | null;
  vn: [number, number, number] | null;
}

/** The OBJ read by splitting lines: per object, its triangles' corners (fan from the first), 0-based v. */
function plainObj(text: string): { positions: number[][]; objects: Map<string, PlainCorner[][]> } {
  const positions: number[][] = [];
  const texcoords: number[][] = [];
  const normals: number[][] = [];
  const objects = new Map<string, PlainCorner[][]>();
  let current: PlainCorner[][] = [];
  const resolve = (token: string, count: number): number => (Number(token) < 0 ? count + Number(token) : Number(token) - 1);
  for (const line of text.split('\n')) {
    const [kind, ...rest] = line.trim().split(/\s+/);
    if (kind === 'o') objects.set(rest.join(' '), (current = []));
    else if (kind === 'v') positions.push(rest.map(Number));
    else if (kind === 'vt') texcoords.push(rest.map(Number));
    else if (kind === 'vn') normals.push(rest.map(Number));
    else if (kind === 'f') {
      const corners = rest.map((token): PlainCorner => {
        const [v, vt, vn] = token.split('/');
        return {
          v: resolve(v, positions.length),
          vt: vt ? (texcoords[resolve(vt, texcoords.length)] as [number, number]) : null,
          vn: vn ? (normals[resolve(vn, normals.length)] as [number, number, number]) : null,
        };
      });
      for (let k = 1; k + 1 < corners.length; k++) current.push([corners[0], corners[k], corners[k + 1]]);
    }
  }
  return { positions, objects };
}

/** Two bones along x: root (0 → 1.5), tip (1.5 → 3). */
function twoBones(): Skeleton {
  return buildSkeleton({ joints: Float64Array.from([0, 0, 0, 1.5, 0, 0, 3, 0, 0]), bones: Uint32Array.from([0, 1, 1, 2]) }, 'two.tgf');
}

/** Every vertex on both bones, weight of the root falling with x (values with no short float32 form). */
function sharedWeights(positions: Float64Array): DenseMatrix {
  const rows = positions.length / 3;
  const data = new Float64Array(2 * rows);
  for (let v = 0; v < rows; v++) {
    const w = 0.9 - 0.13 * positions[3 * v] - 0.01 * Math.sqrt(v + 2);
    data[2 * v] = w;
    data[2 * v + 1] = 1 - w;
  }
  return { rows, cols: 2, data };
}

const nodeNamed = (doc: Document, name: string): GltfNode => {
  const node = doc
    .getRoot()
    .listNodes()
    .find((n) => n.getName() === name);
  assert.ok(node, `no node "${name}"`);
  return node;
};

const element = (primitive: Primitive, attribute: string, i: number): number[] => {
  const accessor = primitive.getAttribute(attribute);
  assert.ok(accessor, `no ${attribute}`);
  return accessor.getElement(i, []);
};

/** Weight of each bone at glTF vertex i of a primitive (JOINTS_0/WEIGHTS_0). */
function boneWeights(primitive: Primitive, i: number, boneCount: number): number[] {
  const out = new Array<number>(boneCount).fill(0);
  const joints = element(primitive, 'JOINTS_0', i);
  const weights = element(primitive, 'WEIGHTS_0', i);
  for (let k = 0; k < 4; k++) out[joints[k]] += weights[k];
  return out;
}

test('every OBJ vt/vn survives load → export: each corner of every object has its uv (v flipped) and unit normal to float32, weights of its v', async () => {
  const read = readObj(OBJ, 'seams.obj');
  assert.ok(read.parts && read.corners, 'the OBJ reads with parts and corners');
  const skeleton = twoBones();
  const weights = sharedWeights(read.mesh.positions);
  const rig: GltfRig = {
    mesh: read.mesh,
    skeleton,
    weights,
    boneNames: ['root', 'tip'],
    parts: read.parts,
    objCorners: read.corners,
    name: 'seams',
  };
  const { bytes } = await exportGltf(rig, 'seams.glb');
  await assertValidGltf(bytes, 'seams.glb');
  const doc = await new WebIO().readBinary(bytes);

  const plain = plainObj(OBJ);
  let corners = 0;
  const weightsOfV = new Map<number, number[]>();
  for (const [name, triangles] of plain.objects) {
    const node = nodeNamed(doc, name);
    const primitive = node.getMesh()!.listPrimitives()[0];
    const indices = primitive.getIndices()!.getArray() as ArrayLike<number>;
    assert.equal(indices.length, 3 * triangles.length, `${name}: triangle count`);
    const textured = triangles.some((t) => t.some((c) => c.vt));
    assert.equal(primitive.getAttribute('TEXCOORD_0') !== null, textured, `${name}: TEXCOORD_0 present exactly when the OBJ gives vt`);
    // One glTF vertex per distinct (v, vt, vn) corner.
    const distinct = new Set(triangles.flatMap((t) => t.map((c) => JSON.stringify(c))));
    assert.equal(primitive.getAttribute('POSITION')!.getCount(), distinct.size, `${name}: vertices split per distinct corner`);
    const seen = new Map<number, number>();
    triangles.forEach((triangle, t) =>
      triangle.forEach((corner, k) => {
        const i = indices[3 * t + k];
        const where = `${name} triangle ${t} corner ${k}`;
        assert.deepEqual(element(primitive, 'POSITION', i), plain.positions[corner.v].map(Math.fround), `${where}: position`);
        if (corner.vt) {
          assert.deepEqual(element(primitive, 'TEXCOORD_0', i), [Math.fround(corner.vt[0]), Math.fround(1 - corner.vt[1])], `${where}: uv`);
        }
        assert.ok(corner.vn, 'every corner of this file has a normal');
        const length = Math.hypot(...corner.vn);
        const normal = element(primitive, 'NORMAL', i);
        normal.forEach((x, c) =>
          assert.ok(Math.abs(x - corner.vn![c] / length) <= 2 ** -23, `${where}: normal ${normal.join(' ')} vs ${corner.vn!.join(' ')}`),
        );
        // Weights are stored as float32 and renormalized there: within float32 rounding of v's, the same for every copy of v.
        const stored = boneWeights(primitive, i, 2);
        stored.forEach((w, b) =>
          assert.ok(Math.abs(w - weights.data[2 * corner.v + b]) <= 2 ** -23, `${where}: weight ${b} of v ${corner.v}`),
        );
        const first = weightsOfV.get(corner.v) ?? stored;
        assert.deepEqual(stored, first, `${where}: every copy of v ${corner.v} has its weights`);
        weightsOfV.set(corner.v, stored);
        if (seen.has(i)) assert.equal(seen.get(i), corner.v, `${where}: one glTF vertex serves one v`);
        seen.set(i, corner.v);
        corners++;
      }),
    );
  }
  assert.equal(corners, 3 * (read.mesh.triangles.length / 3));
  // The seam: Body's 8 v records become 10 glTF vertices (v 3 and 7 twice), Eye 4, Hat 3.
  assert.deepEqual(
    ['Body', 'Eye', 'Hat'].map((n) => nodeNamed(doc, n).getMesh()!.listPrimitives()[0].getAttribute('POSITION')!.getCount()),
    [10, 4, 3],
  );
});

/** CesiumMan's base colour image: a real JPEG. */
async function cesiumImage(): Promise<{ bytes: Uint8Array; mimeType: string }> {
  const doc = await new WebIO().readBinary(new Uint8Array(readFileSync(dataFile('gltf', 'CesiumMan', 'CesiumMan.glb'))));
  const texture = doc.getRoot().listTextures()[0];
  return { bytes: texture.getImage()!, mimeType: texture.getMimeType() };
}

const noBlender = blenderMissing('the two-mesh Blender check');

test(
  'two OBJ objects export as two skinned meshes on one skin, with materials; the validator gives 0/0 and Blender imports one armature deforming both',
  { skip: noBlender ? 'blender is not installed' : false },
  async () => {
    const text = OBJ.slice(0, OBJ.indexOf('o Hat'));
    const read = readObj(text, 'two.obj');
    assert.equal(read.parts?.length, 2);
    const image = await cesiumImage();
    const materials: MaterialLook[] = [
      { name: 'skin', baseColor: [1, 0.8, 0.7, 1], baseColorTexture: image, doubleSided: false },
      { name: 'eye', baseColor: [0.1, 0.2, 0.9, 1], baseColorTexture: null, doubleSided: true },
    ];
    const parts = read.parts.map((part, m): MeshPart => ({ ...part, material: m }));
    const skeleton = twoBones();
    const rig: GltfRig = {
      mesh: read.mesh,
      skeleton,
      weights: sharedWeights(read.mesh.positions),
      boneNames: ['root', 'tip'],
      parts,
      look: { uvs: null, materials },
      objCorners: read.corners!,
      name: 'two',
    };
    const { bytes, warnings } = await exportGltf(rig, 'two.glb');
    assert.deepEqual(warnings, []);
    await assertValidGltf(bytes, 'two.glb');
    const doc = await new WebIO().readBinary(bytes);
    const root = doc.getRoot();
    assert.equal(root.listSkins().length, 1);
    const skin = root.listSkins()[0];
    for (const name of ['Body', 'Eye']) assert.equal(nodeNamed(doc, name).getSkin(), skin, `${name} uses the one skin`);
    const body = nodeNamed(doc, 'Body').getMesh()!.listPrimitives()[0].getMaterial()!;
    assert.equal(body.getName(), 'skin');
    assert.deepEqual(body.getBaseColorFactor(), [1, 0.8, 0.7, 1]);
    assert.deepEqual(body.getBaseColorTexture()!.getImage(), image.bytes);
    assert.equal(body.getBaseColorTexture()!.getMimeType(), 'image/jpeg');
    const eye = nodeNamed(doc, 'Eye').getMesh()!.listPrimitives()[0].getMaterial()!;
    assert.deepEqual([eye.getName(), eye.getDoubleSided(), eye.getBaseColorTexture()], ['eye', true, null]);

    const file = path.join(mkdtempSync(path.join(tmpdir(), 'rigwright-blender-')), 'two.glb');
    writeFileSync(file, bytes);
    const started = performance.now();
    const report = blenderReport<{
      armatures: { name: string; bones: string[] }[];
      meshes: {
        name: string;
        armature: string | null;
        vertexGroups: string[];
        vertices: number;
        uvLayers: string[];
        materials: { name: string | null; image: boolean }[];
        moved: number;
      }[];
    }>(path.join(repoRoot, 'test/blender/inspect-meshes.py'), [file]);
    console.log(`blender: import of two meshes took ${((performance.now() - started) / 1000).toFixed(1)} s`);
    console.log(`blender: ${JSON.stringify(report)}`);
    assert.equal(report.armatures.length, 1, 'one armature');
    assert.deepEqual(report.armatures[0].bones.slice().sort(), ['root', 'tip']);
    assert.deepEqual(report.meshes.map((m) => m.name).sort(), ['Body', 'Eye']);
    for (const mesh of report.meshes) {
      assert.equal(mesh.armature, report.armatures[0].name, `${mesh.name} is deformed by the armature`);
      assert.deepEqual(mesh.vertexGroups.slice().sort(), ['root', 'tip']);
      assert.ok(mesh.moved > 0.1, `${mesh.name} moves when the root bone turns (${mesh.moved})`);
      assert.equal(mesh.uvLayers.length, 1, `${mesh.name} has its UVs`);
    }
    const bodyReport = report.meshes.find((m) => m.name === 'Body')!;
    assert.deepEqual(bodyReport.materials, [{ name: 'skin', image: true }]);
  },
);

test('inverse bind matrices invert the rest joints to 1e-9; no connector joint for a bone that starts away from its parent; an unskinned mesh stays unskinned', async () => {
  // Bone 2 starts at joint 3, away from its parent bone 1's end (joint 2), as imported glTF skeletons do; bone 3 is
  // a second root. Coordinates with no short float32 form.
  const joints = Float64Array.from([
    0.1,
    1.7,
    -0.3,
    Math.PI / 3,
    2.9,
    0.2,
    1.3,
    4.1,
    0.05,
    1.1 + 1e-7,
    4.35,
    0.3,
    0.9,
    5.2,
    0.31,
    -1.7,
    0.2,
    1 / 3,
  ]);
  joints[15] = -Math.E / 1.6;
  const skeleton: Skeleton = {
    joints,
    bones: Uint32Array.from([0, 1, 1, 2, 3, 4, 5, 0]),
    parents: Int32Array.from([-1, 0, 1, -1]),
    order: Uint32Array.from([0, 3, 1, 2]),
  };
  const names = ['hips', 'spine', 'head (offset)', 'prop root'];
  const positions = Float64Array.from([0, 0, 0, 1, 2, 0, 0, 4, 0.5, 1, 5, 0.2, -2, 0, 1, -1.5, 0.5, 1, -2, 1, 1.2]);
  const triangles = Uint32Array.from([0, 1, 2, 1, 3, 2, 4, 5, 6]);
  const data = new Float64Array(7 * 4);
  [0.7, 0.3, 0, 0, 0.2, 0.5, 0.3, 0, 0, 0.1, 0.4, 0.5, 0, 0, 0.2, 0.8].forEach((w, i) => (data[i] = w));
  for (let v = 4; v < 7; v++) data[4 * v + 3] = 1;
  const parts: MeshPart[] = [
    { name: 'figure', vertexStart: 0, vertexCount: 4, triangleStart: 0, triangleCount: 2, material: -1, source: null, skinned: true },
    { name: 'crate', vertexStart: 4, vertexCount: 3, triangleStart: 2, triangleCount: 1, material: -1, source: null, skinned: false },
  ];
  const { bytes } = await exportGltf(
    { mesh: { positions, triangles }, skeleton, weights: { rows: 7, cols: 4, data }, boneNames: names, parts, name: 'ibm' },
    'ibm.glb',
  );
  await assertValidGltf(bytes, 'ibm.glb');
  const doc = await new WebIO().readBinary(bytes);
  const skin = doc.getRoot().listSkins()[0];
  const jointNodes = skin.listJoints();
  assert.deepEqual(
    jointNodes.map((n) => n.getName()),
    names,
    'the joints are the bones, in order, with their names: nothing added',
  );
  assert.deepEqual(
    doc
      .getRoot()
      .listNodes()
      .filter((n) => !jointNodes.includes(n))
      .map((n) => n.getName())
      .sort(),
    ['crate', 'figure', 'ibm skeleton'],
    'besides the joints: the two mesh nodes and one node above the two root joints (a skin needs a common root)',
  );
  jointNodes.forEach((node, b) => {
    const parent = node.getParentNode();
    assert.equal(jointNodes.indexOf(parent!), skeleton.parents[b], `${names[b]}: parent`);
    if (skeleton.parents[b] < 0) assert.equal(parent!.getName(), 'ibm skeleton');
  });
  let largest = 0;
  for (const c of joints) largest = Math.max(largest, Math.abs(c));
  const ibm = skin.getInverseBindMatrices()!;
  let worst = 0;
  jointNodes.forEach((node, b) => {
    // Rest world matrix: the chain of node translations (no rotation or scale at rest), summed here in double.
    const world = [0, 0, 0];
    for (let n: GltfNode | null = node; n; n = n.getParentNode()) {
      assert.deepEqual(
        [n.getRotation(), n.getScale()],
        [
          [0, 0, 0, 1],
          [1, 1, 1],
        ],
      );
      n.getTranslation().forEach((t, c) => (world[c] += t));
    }
    const start = skeleton.bones[2 * b];
    world.forEach((w, c) =>
      assert.ok(
        Math.abs(w - joints[3 * start + c]) <= 2.4e-7 * largest,
        `${names[b]}: joint at its bone's start (${w} vs ${joints[3 * start + c]})`,
      ),
    );
    // IBM × world = identity: the linear part is the identity and the translation cancels.
    const m = ibm.getElement(b, new Array<number>(16));
    const product = [...m];
    for (let c = 0; c < 3; c++) product[12 + c] = m[12 + c] + m[c] * world[0] + m[4 + c] * world[1] + m[8 + c] * world[2];
    const identity = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
    product.forEach((x, i) => (worst = Math.max(worst, Math.abs(x - identity[i]))));
    // The same through glTF-Transform's own world matrix.
    const gltfWorld = node.getWorldMatrix();
    for (let c = 0; c < 3; c++) worst = Math.max(worst, Math.abs(m[12 + c] + gltfWorld[12 + c]));
  });
  console.log(`inverse bind × rest world: largest deviation from the identity ${worst}`);
  assert.ok(worst <= 1e-9, `inverse bind matrices are off by ${worst}`);

  const figure = nodeNamed(doc, 'figure');
  const crate = nodeNamed(doc, 'crate');
  assert.equal(figure.getSkin(), skin);
  assert.equal(crate.getSkin(), null, 'the unskinned mesh has no skin');
  const cratePrimitive = crate.getMesh()!.listPrimitives()[0];
  assert.deepEqual(cratePrimitive.listSemantics().sort(), ['NORMAL', 'POSITION'], 'no JOINTS/WEIGHTS on the unskinned mesh');
  assert.deepEqual(
    Array.from(cratePrimitive.getAttribute('POSITION')!.getArray() as ArrayLike<number>),
    Array.from(positions.subarray(12)).map(Math.fround),
  );
});

test('texture coordinates and a material from the look: TEXCOORD_0 bit for bit, base colour, image bytes, double-sided', async () => {
  const positions = Float64Array.from([0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0]);
  const triangles = Uint32Array.from([0, 1, 2, 0, 2, 3]);
  const uvs = Float32Array.from([0.125, 0.875, 0.9, 0.8, 0.7, 0.1, 1 / 3, 0.2]);
  const image = await cesiumImage();
  const look = {
    uvs,
    materials: [
      { name: 'paint', baseColor: [0.5, 0.25, 1, 1] as [number, number, number, number], baseColorTexture: image, doubleSided: true },
    ],
  };
  const { bytes } = await exportGltf(
    { mesh: { positions, triangles }, skeleton: twoBones(), weights: sharedWeights(positions), look, name: 'quad' },
    'quad.glb',
  );
  await assertValidGltf(bytes, 'quad.glb');
  const doc = await new WebIO().readBinary(bytes);
  const primitive = nodeNamed(doc, 'quad').getMesh()!.listPrimitives()[0];
  assert.deepEqual(primitive.getAttribute('TEXCOORD_0')!.getArray(), uvs);
  const material = primitive.getMaterial()!;
  assert.deepEqual([material.getName(), material.getBaseColorFactor(), material.getDoubleSided()], ['paint', [0.5, 0.25, 1, 1], true]);
  assert.deepEqual(material.getBaseColorTexture()!.getImage(), image.bytes);
  assert.equal(doc.getRoot().listTextures()[0].getMimeType(), 'image/jpeg');
});

test('export refuses parts and corners that do not fit the mesh, naming the export and the reason', async () => {
  const read = readObj(OBJ, 'seams.obj');
  const base: GltfRig = { mesh: read.mesh, skeleton: twoBones(), weights: sharedWeights(read.mesh.positions), parts: read.parts! };
  const refused = async (rig: GltfRig, reason: RegExp): Promise<void> => {
    await assert.rejects(
      exportGltf(rig, 'bad.glb'),
      (error: Error) => error.message.startsWith('bad.glb') && error.message.includes('glTF export') && reason.test(error.message),
    );
  };
  const [body, eye, hat] = read.parts!;
  await refused({ ...base, parts: [body, hat] }, /mesh "Hat".*do not follow the previous mesh's/);
  await refused({ ...base, parts: [body, eye] }, /meshes: glTF export: they cover 12 of 15 vertices and 8 of 9 triangles/);
  await refused(
    { ...base, parts: [{ ...body, vertexCount: 7 }, { ...eye, vertexStart: 7, vertexCount: 5 }, hat] },
    /mesh "Body" triangle 4: glTF export: names vertex 7, outside the mesh.s vertices 0 … 6/,
  );
  await refused({ ...base, parts: [{ ...body, material: 0 }, eye, hat] }, /material 0 is not one of the 0 materials/);
  const corners = read.corners!;
  await refused({ ...base, objCorners: { ...corners, cornerTexcoords: corners.cornerTexcoords.subarray(3) } }, /OBJ corners/);
  const wrong = corners.cornerNormals.slice();
  wrong[4] = 9;
  await refused({ ...base, objCorners: { ...corners, cornerNormals: wrong } }, /triangle 1.*names normal 9, there are 4/);
});

test("the app's fresh export passes the scene's parts, look and OBJ corners to the export", async () => {
  const read = readObj(OBJ, 'seams.obj');
  const image = await cesiumImage();
  const doc = withDerived({
    name: 'seams.obj',
    meshFiles: ['seams.obj'],
    mesh: read.mesh,
    skeletonFile: null,
    skeleton: twoBones(),
    weights: sharedWeights(read.mesh.positions),
    weightsSource: 'test',
    poses: null,
    posesFile: null,
    handles: null,
    handlesFile: null,
    warnings: [],
    parts: read.parts!.map((part, i) => ({ ...part, material: i === 0 ? 0 : -1 })),
    look: { uvs: null, materials: [{ name: 'skin', baseColor: [1, 1, 1, 1], baseColorTexture: image, doubleSided: false }] },
    objCorners: read.corners!,
  });
  let passed: GltfRig | null = null;
  const io = {
    exportGltf: async (rig: GltfRig, file: string) => {
      passed = rig;
      return exportGltf(rig, file);
    },
  } as unknown as IoClient;
  const saved: Uint8Array[] = [];
  const bridge = { saveFile: async ({ bytes }: { bytes: Uint8Array }) => (saved.push(bytes), true) } as unknown as RigwrightBridge;
  const choice = {
    fileName: 'seams.glb',
    format: 'glb',
    influences: 4,
    weightComponent: 'float',
    compression: 'none',
    includeClip: false,
    bake: false,
  } as const;
  await exportSceneAsGltf(doc, choice, { method: 'lbs', influences: 4, antipodality: 'per-vertex', kernel: 'gaussian' }, io, bridge);
  assert.ok(passed, 'the export passed a rig to the io worker');
  assert.equal((passed as GltfRig).parts, doc.parts);
  assert.equal((passed as GltfRig).look, doc.look);
  assert.equal((passed as GltfRig).objCorners, doc.objCorners);
  const written = await new WebIO().readBinary(saved[0]);
  assert.deepEqual(
    written
      .getRoot()
      .listMeshes()
      .map((m) => [m.getName(), m.listPrimitives()[0].getMaterial()?.getName() ?? null]),
    [
      ['Body', 'skin'],
      ['Eye', null],
      ['Hat', null],
    ],
  );
});

test('a baked vertex animation moves every skinned mesh: each gets the targets of its own vertices (split copies too) and a weights channel', async () => {
  const read = readObj(OBJ, 'seams.obj');
  const V = read.mesh.positions.length / 3;
  const parts = read.parts!.map((part) => ({ ...part, skinned: part.name !== 'Hat' }));
  // The hat is static: held unskinned, without weight.
  const weights = sharedWeights(read.mesh.positions);
  const hatPart = parts.find((part) => part.name === 'Hat')!;
  weights.data.fill(0, 2 * hatPart.vertexStart, 2 * (hatPart.vertexStart + hatPart.vertexCount));
  // Frame f moves vertex v by (f + 1) · (v + 1) / 100 along z.
  const bake = {
    name: 'wobble',
    frameCount: 2,
    positionsAt: (f: number, out: Float64Array) => {
      out.set(read.mesh.positions);
      for (let v = 0; v < V; v++) out[3 * v + 2] += ((f + 1) * (v + 1)) / 100;
    },
  };
  const { bytes } = await exportGltf(
    {
      mesh: read.mesh,
      skeleton: twoBones(),
      weights,
      parts,
      objCorners: read.corners!,
      vertexAnimations: [bake],
    },
    'wobble.glb',
  );
  await assertValidGltf(bytes, 'wobble.glb');
  const doc = await new WebIO().readBinary(bytes);
  const plain = plainObj(OBJ);
  for (const name of ['Body', 'Eye']) {
    const node = nodeNamed(doc, name);
    const primitive = node.getMesh()!.listPrimitives()[0];
    const targets = primitive.listTargets();
    assert.deepEqual(
      targets.map((t) => t.getName()),
      ['wobble 0', 'wobble 1'],
    );
    const indices = primitive.getIndices()!.getArray() as ArrayLike<number>;
    plain.objects.get(name)!.forEach((triangle, t) =>
      triangle.forEach((corner, k) => {
        targets.forEach((target, f) => {
          const delta = target.getAttribute('POSITION')!.getElement(indices[3 * t + k], []);
          assert.deepEqual(delta, [0, 0, Math.fround(((f + 1) * (corner.v + 1)) / 100)], `${name} corner of v ${corner.v}, frame ${f}`);
        });
      }),
    );
    const channels = doc
      .getRoot()
      .listAnimations()
      .find((a) => a.getName() === 'wobble')!
      .listChannels()
      .filter((c) => c.getTargetNode() === node);
    assert.deepEqual(
      channels.map((c) => c.getTargetPath()),
      ['weights'],
    );
  }
  const hat = nodeNamed(doc, 'Hat').getMesh()!.listPrimitives()[0];
  assert.equal(hat.listTargets().length, 0, 'the unskinned mesh has no targets');
});

test('OBJ corners without a vt in a textured object are warned about; vertices no face uses are not', async () => {
  const text = [
    'o A',
    'v 0 0 0',
    'v 1 0 0',
    'v 0 1 0',
    'v 5 5 5',
    'vt 0.5 0.5',
    'f 1/1 2/1 3',
    'o B',
    'v 2 0 0',
    'v 3 0 0',
    'v 2 1 0',
    'f 5 6 7',
  ].join('\n');
  const read = readObj(text, 'loose.obj');
  const { warnings } = await exportGltf(
    { mesh: read.mesh, skeleton: twoBones(), weights: sharedWeights(read.mesh.positions), parts: read.parts!, objCorners: read.corners! },
    'loose.glb',
  );
  assert.deepEqual(warnings, ['mesh "A": 1 vertices have no texture coordinate in the OBJ file; they get (0, 0)']);
});

test('a mesh without triangles is left out with a warning (glTF has no empty meshes); the others are written and valid', async () => {
  const read = readObj(OBJ, 'seams.obj');
  const [body, eye, hat] = read.parts!;
  // Eye's vertices join Body, which has no triangles of Eye's: Eye is an empty mesh.
  const parts = [
    { ...body, vertexCount: body.vertexCount + eye.vertexCount, triangleCount: body.triangleCount + eye.triangleCount },
    { ...eye, vertexStart: 12, vertexCount: 0, triangleStart: 8, triangleCount: 0 },
    hat,
  ];
  const { bytes, warnings } = await exportGltf(
    { mesh: read.mesh, skeleton: twoBones(), weights: sharedWeights(read.mesh.positions), parts, objCorners: read.corners! },
    'empty.glb',
  );
  assert.deepEqual(warnings, ['mesh "Eye" has no triangles, so it is left out (glTF has no empty meshes)']);
  await assertValidGltf(bytes, 'empty.glb');
  const doc = await new WebIO().readBinary(bytes);
  assert.deepEqual(
    doc
      .getRoot()
      .listMeshes()
      .map((m) => m.getName()),
    ['Body', 'Hat'],
  );
});
