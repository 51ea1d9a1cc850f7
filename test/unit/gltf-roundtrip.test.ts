/**
 * In-place glTF export (workers/formats/gltf-edit.ts): Khronos assets imported and written back keep their
 * meshes, names, joints, materials, textures, UVs and keyframes; edited weights, skeletons and clips replace only
 * what they change; several skins import as one skeleton; unknown extensions pass through.
 * Posed meshes are compared with glTF's own skinning evaluated independently (gltf-skinning-reference.ts).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import test from 'node:test';
import { WebIO, type Document, type Node as GltfNode } from '@gltf-transform/core';
import { importGltf } from '../../workers/formats/gltf-import.ts';
import { exportGltfInPlace, type GltfEdit } from '../../workers/formats/gltf-edit.ts';
import type { GltfImportResult } from '../../workers/formats/gltf-import.ts';
import { boundingBox } from '../../workers/mesh/bounds.ts';
import { assertValidGltf, gltfPosedPositions, maxDistance } from './gltf-skinning-reference.ts';
import { dataFile } from './shared-data.ts';

async function readDoc(bytes: Uint8Array): Promise<Document> {
  return new WebIO().readBinary(Uint8Array.from(bytes));
}

function editOf(rig: GltfImportResult): GltfEdit {
  return { source: rig.gltfSource, mesh: rig.mesh, skeleton: rig.skeleton, weights: rig.weights, clips: rig.clips, parts: rig.parts };
}

/** Key times of every sampler of every animation, in order. */
function keyTimes(doc: Document): number[][] {
  return doc
    .getRoot()
    .listAnimations()
    .flatMap((animation) => animation.listSamplers().map((sampler) => Array.from(sampler.getInput()!.getArray() as Float32Array)));
}

function attributeBytes(doc: Document, semantic: string): number[][] {
  return doc
    .getRoot()
    .listMeshes()
    .flatMap((mesh) =>
      mesh.listPrimitives().map((p) => {
        const array = p.getAttribute(semantic)?.getArray() as ArrayBufferView | null | undefined;
        return array ? Array.from(new Uint8Array(array.buffer, array.byteOffset, array.byteLength)) : [];
      }),
    );
}

function materialsOf(doc: Document): unknown[] {
  return doc
    .getRoot()
    .listMaterials()
    .map((m) => ({
      name: m.getName(),
      baseColor: m.getBaseColorFactor(),
      doubleSided: m.getDoubleSided(),
      metallic: m.getMetallicFactor(),
      roughness: m.getRoughnessFactor(),
      alpha: m.getAlphaMode(),
      image: m.getBaseColorTexture() ? Buffer.from(m.getBaseColorTexture()!.getImage()!).toString('base64') : null,
      mime: m.getBaseColorTexture()?.getMimeType() ?? null,
    }));
}

function hierarchy(doc: Document): string[] {
  return doc
    .getRoot()
    .listNodes()
    .map(
      (node: GltfNode) => `${node.getName()} < ${node.getParentNode()?.getName() ?? '(scene)'} mesh=${node.getMesh()?.getName() ?? '-'}`,
    );
}

for (const name of ['CesiumMan', 'Fox']) {
  test(`${name}: import → in-place export with no edits validates 0/0 and keeps names, joints, materials, textures, UVs, keys and poses`, async () => {
    const bytes = readFileSync(dataFile('gltf', name, `${name}.glb`));
    const rig = await importGltf(bytes, `${name}.glb`);
    const result = await exportGltfInPlace(editOf(rig), `${name}-out.glb`);
    await assertValidGltf(result.bytes, `${name} in place`);
    const before = await readDoc(bytes);
    const after = await readDoc(result.bytes);
    // Skinned mesh nodes become scene roots (their parents' transforms never applied to them): CesiumMan's one.
    const expected = hierarchy(before).map((line, n) =>
      before.getRoot().listNodes()[n].getSkin() ? line.replace(/ < .* mesh=/, ' < (scene) mesh=') : line,
    );
    assert.deepEqual(hierarchy(after), expected, 'nodes, names and hierarchy');
    const joints = (doc: Document): string[][] =>
      doc
        .getRoot()
        .listSkins()
        .map((skin) => skin.listJoints().map((j) => j.getName()));
    assert.deepEqual(joints(after), joints(before), 'joint names and order');
    assert.deepEqual(materialsOf(after), materialsOf(before), 'materials and base-colour images');
    assert.deepEqual(attributeBytes(after, 'TEXCOORD_0'), attributeBytes(before, 'TEXCOORD_0'), 'UVs bit for bit');
    assert.deepEqual(attributeBytes(after, 'POSITION'), attributeBytes(before, 'POSITION'), 'positions bit for bit');
    assert.deepEqual(keyTimes(after), keyTimes(before), 'key times');
    const diagonal = boundingBox(rig.mesh.positions).diagonal;
    let worst = 0;
    before
      .getRoot()
      .listAnimations()
      .forEach((animation, a) => {
        const times = new Set(animation.listSamplers().flatMap((s) => Array.from(s.getInput()!.getArray() as Float32Array)));
        for (const time of times)
          worst = Math.max(worst, maxDistance(gltfPosedPositions(after, a, time), gltfPosedPositions(before, a, time)) / diagonal);
      });
    console.log(`${name}: posed mesh at every original key time off by ${worst.toExponential(2)} of the diagonal`);
    assert.ok(worst <= 1e-6, `posed mesh off by ${worst} of the diagonal`);
    // The re-export imports into the same rig.
    const again = await importGltf(result.bytes, `${name}-out.glb`);
    assert.deepEqual(again.boneNames, rig.boneNames);
    assert.deepEqual(again.parts, rig.parts);
  });
}

/** Column-major 4×4 product and inverse in double precision, written here apart from the code under test. */
function mul4(a: ArrayLike<number>, b: ArrayLike<number>): number[] {
  const out = new Array<number>(16).fill(0);
  for (let c = 0; c < 4; c++) for (let r = 0; r < 4; r++) for (let k = 0; k < 4; k++) out[4 * c + r] += a[4 * k + r] * b[4 * c + k];
  return out;
}

function invert4(m: ArrayLike<number>): number[] {
  // Gauss–Jordan on the 4×4 (row r, column c at m[4c + r]).
  const a = Array.from({ length: 4 }, (_, r) => [
    ...Array.from({ length: 4 }, (_, c) => m[4 * c + r]),
    ...[0, 1, 2, 3].map((k) => (k === r ? 1 : 0)),
  ]);
  for (let c = 0; c < 4; c++) {
    let pivot = c;
    for (let r = c + 1; r < 4; r++) if (Math.abs(a[r][c]) > Math.abs(a[pivot][c])) pivot = r;
    [a[c], a[pivot]] = [a[pivot], a[c]];
    const d = a[c][c];
    for (let k = 0; k < 8; k++) a[c][k] /= d;
    for (let r = 0; r < 4; r++) {
      if (r === c) continue;
      const f = a[r][c];
      for (let k = 0; k < 8; k++) a[r][k] -= f * a[c][k];
    }
  }
  const out = new Array<number>(16);
  for (let r = 0; r < 4; r++) for (let c = 0; c < 4; c++) out[4 * c + r] = a[r][4 + c];
  return out;
}

/** A node's rest world matrix from its translation, rotation and scale, in double precision. */
function world(node: GltfNode): number[] {
  const local = (n: GltfNode): number[] => {
    // float32 quaternions are unit only to rounding: normalized, as players do.
    const q = n.getRotation();
    const length = Math.hypot(...q);
    const [x, y, z, w] = q.map((value) => value / length);
    const [sx, sy, sz] = n.getScale();
    const t = n.getTranslation();
    return [
      (1 - 2 * (y * y + z * z)) * sx,
      2 * (x * y + z * w) * sx,
      2 * (x * z - y * w) * sx,
      0,
      2 * (x * y - z * w) * sy,
      (1 - 2 * (x * x + z * z)) * sy,
      2 * (y * z + x * w) * sy,
      0,
      2 * (x * z + y * w) * sz,
      2 * (y * z - x * w) * sz,
      (1 - 2 * (x * x + y * y)) * sz,
      0,
      t[0],
      t[1],
      t[2],
      1,
    ];
  };
  let m = local(node);
  for (let p = node.getParentNode(); p; p = p.getParentNode()) m = mul4(local(p), m);
  return m;
}

test('CesiumMan: weights recomputed for one bone export in place: 0/0, the same texture, UVs and material, the file inverse bind matrices, the new weights', async () => {
  const bytes = readFileSync(dataFile('gltf', 'CesiumMan', 'CesiumMan.glb'));
  const rig = await importGltf(bytes, 'CesiumMan.glb');
  const B = rig.weights.cols;
  // Bone 5 gives half its weight to its parent on every vertex it moves (a recompute for one bone).
  const bone = 5;
  const parent = rig.skeleton.parents[bone];
  assert.ok(parent >= 0);
  const weights = { ...rig.weights, data: rig.weights.data.slice() };
  let changed = 0;
  for (let v = 0; v < weights.rows; v++) {
    const w = weights.data[v * B + bone];
    let influences = 0;
    for (let b = 0; b < B; b++) if (weights.data[v * B + b] !== 0) influences++;
    // Four influences per vertex stay four (the file keeps four).
    if (w === 0 || (weights.data[v * B + parent] === 0 && influences >= 4)) continue;
    weights.data[v * B + bone] = w / 2;
    weights.data[v * B + parent] += w / 2;
    changed++;
  }
  assert.ok(changed > 50, `bone ${bone} moves ${changed} vertices`);
  const result = await exportGltfInPlace({ ...editOf(rig), weights }, 'edited.glb');
  await assertValidGltf(result.bytes, 'CesiumMan edited');
  const before = await readDoc(bytes);
  const after = await readDoc(result.bytes);
  assert.deepEqual(materialsOf(after), materialsOf(before), 'material and texture');
  assert.deepEqual(attributeBytes(after, 'TEXCOORD_0'), attributeBytes(before, 'TEXCOORD_0'), 'UVs bit for bit');
  const ibm = (doc: Document): number[] => Array.from(doc.getRoot().listSkins()[0].getInverseBindMatrices()!.getArray() as Float32Array);
  assert.deepEqual(ibm(after), ibm(before), 'unchanged skeleton: the file inverse bind matrices');
  const again = await importGltf(result.bytes, 'edited.glb');
  let worst = 0;
  for (let i = 0; i < weights.data.length; i++) worst = Math.max(worst, Math.abs(again.weights.data[i] - weights.data[i]));
  // The file keeps four influences per vertex, quantized to 2⁻²⁴ (CesiumMan's rows have at most four).
  assert.ok(worst < 1e-6, `weights read back off by ${worst}`);
  assert.ok(Math.abs(again.weights.data[0 * B + bone] - weights.data[0 * B + bone]) < 1e-6);
});

test('CesiumMan: a moved joint gets a new translation; inverse bind matrices written equal the rest joints’ inverses (float32 of the exact value)', async () => {
  const bytes = readFileSync(dataFile('gltf', 'CesiumMan', 'CesiumMan.glb'));
  const rig = await importGltf(bytes, 'CesiumMan.glb');
  const diagonal = boundingBox(rig.mesh.positions).diagonal;
  const joints = rig.skeleton.joints.slice();
  const moved = 7;
  const h = 3 * rig.skeleton.bones[2 * moved];
  joints[h] += 0.02 * diagonal;
  joints[h + 2] -= 0.01 * diagonal;
  const skeleton = { ...rig.skeleton, joints };
  const result = await exportGltfInPlace({ ...editOf(rig), skeleton }, 'moved.glb');
  await assertValidGltf(result.bytes, 'CesiumMan moved joint');
  const before = await readDoc(bytes);
  const after = await readDoc(result.bytes);
  const skinBefore = before.getRoot().listSkins()[0];
  const skinAfter = after.getRoot().listSkins()[0];
  // C maps the mesh's bind space into the world: the first joint's rest world matrix times its inverse bind matrix.
  const c = mul4(world(skinBefore.listJoints()[0]), skinBefore.getInverseBindMatrices()!.getElement(0, []));
  let worstExact = 0;
  let worstFloat = 0;
  skinAfter.listJoints().forEach((joint, k) => {
    const exact = mul4(invert4(world(joint)), c);
    const stored = skinAfter.getInverseBindMatrices()!.getElement(k, []);
    for (let e = 0; e < 16; e++) {
      worstExact = Math.max(worstExact, Math.abs(stored[e] - exact[e]));
      worstFloat = Math.max(worstFloat, Math.abs(stored[e] - Math.fround(exact[e])));
    }
  });
  console.log(
    `IBMs vs exact rest inverses: float32 rounding ${worstExact.toExponential(2)}, vs the float32 of the exact value ${worstFloat.toExponential(2)}`,
  );
  assert.ok(worstFloat <= 1e-9, `IBMs off the float32 of the rest joints' inverses by ${worstFloat}`);
  // The re-import has the joint where it was moved, and the rest mesh where it was.
  const again = await importGltf(result.bytes, 'moved.glb');
  const d = Math.hypot(...[0, 1, 2].map((k) => again.skeleton.joints[3 * moved + k] - joints[h + k]));
  assert.ok(d < 1e-6 * diagonal, `moved joint lands ${d / diagonal} of the diagonal away`);
  assert.ok(maxDistance(again.mesh.positions, rig.mesh.positions) < 1e-6 * diagonal);
  assert.deepEqual(again.boneNames, rig.boneNames);
});
