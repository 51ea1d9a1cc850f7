/**
 * In-place glTF export (workers/formats/gltf-edit.ts): Khronos assets imported and written back keep their
 * meshes, names, joints, materials, textures, UVs and keyframes; edited weights, skeletons and clips replace only
 * what they change; several skins import as one skeleton; unknown extensions pass through.
 * Posed meshes are compared with glTF's own skinning evaluated independently (gltf-skinning-reference.ts).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import test from 'node:test';
import { WebIO, type Animation, type Document, type Node as GltfNode } from '@gltf-transform/core';
import { importGltf } from '../../workers/formats/gltf-import.ts';
import { exportGltfInPlace, type GltfEdit } from '../../workers/formats/gltf-edit.ts';
import { boundingBox } from '../../workers/mesh/bounds.ts';
import { assertValidGltf, gltfPosedPositions, maxDistance } from './gltf-skinning-reference.ts';
import { glbJson, withGlbJson } from './glb-json.ts';
import { dataFile } from './shared-data.ts';
import { editOf } from './gltf-edit-input.ts';
import { blenderMissing } from './blender.ts';

async function readDoc(bytes: Uint8Array): Promise<Document> {
  return new WebIO().readBinary(Uint8Array.from(bytes));
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
    await assertValidGltf(result.bytes, `${name} in place`, {}, bytes);
    const before = await readDoc(bytes);
    const after = await readDoc(result.bytes);
    // The source's hierarchy as it is, CesiumMan's skinned mesh node below another node included.
    assert.deepEqual(hierarchy(after), hierarchy(before), 'nodes, names and hierarchy');
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
  assert.ok(parent >= 0, 'bone 5 has a parent');
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
  await assertValidGltf(result.bytes, 'CesiumMan edited', {}, bytes);
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
  assert.ok(
    Math.abs(again.weights.data[0 * B + bone] - weights.data[0 * B + bone]) < 1e-6,
    'vertex 0 keeps its weight on the edited bone (within 1e-6)',
  );
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
  await assertValidGltf(result.bytes, 'CesiumMan moved joint', {}, bytes);
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
  assert.ok(
    maxDistance(again.mesh.positions, rig.mesh.positions) < 1e-6 * diagonal,
    'the mesh does not move with the joint (within 1e-6 of the diagonal)',
  );
  assert.deepEqual(again.boneNames, rig.boneNames);
});

test('CesiumMan: a removed bone leaves the skin, its node stays as a plain node, and the file poses as the original with its weight on the parent', async () => {
  // CesiumMan with a second primitive drawing its vertices as points on the same skin: the scene does not hold it
  // (it reads triangles), so its JOINTS must be renumbered for it.
  const withPoints = await readDoc(readFileSync(dataFile('gltf', 'CesiumMan', 'CesiumMan.glb')));
  const triangles = withPoints.getRoot().listMeshes()[0].listPrimitives()[0];
  const points = withPoints.createPrimitive().setMode(0);
  for (const semantic of ['POSITION', 'JOINTS_0', 'WEIGHTS_0']) points.setAttribute(semantic, triangles.getAttribute(semantic));
  withPoints.getRoot().listMeshes()[0].addPrimitive(points);
  const bytes = await new WebIO().writeBinary(withPoints);
  const rig = await importGltf(bytes, 'CesiumMan.glb');
  const diagonal = boundingBox(rig.mesh.positions).diagonal;
  const B = rig.skeleton.parents.length;
  // A bone in the middle of the left arm: its child bone hangs under its parent afterwards.
  const gone = 7;
  const parent = rig.skeleton.parents[gone];
  const child = Array.from(rig.skeleton.parents).indexOf(gone);
  assert.ok(parent >= 0 && child >= 0, 'bone 7 has a parent and a child');
  const keep = Array.from({ length: B }, (_, b) => b).filter((b) => b !== gone);
  const newIndex = new Int32Array(B).fill(-1);
  keep.forEach((b, k) => (newIndex[b] = k));
  const parentOf = (b: number): number => (rig.skeleton.parents[b] === gone ? parent : rig.skeleton.parents[b]);
  const skeleton = {
    joints: rig.skeleton.joints,
    bones: Uint32Array.from(keep.flatMap((b) => [rig.skeleton.bones[2 * b], rig.skeleton.bones[2 * b + 1]])),
    parents: Int32Array.from(keep, (b) => (parentOf(b) >= 0 ? newIndex[parentOf(b)] : -1)),
    order: Uint32Array.from(
      Array.from(rig.skeleton.order).filter((b) => b !== gone),
      (b) => newIndex[b],
    ),
  };
  const weights = { rows: rig.weights.rows, cols: B - 1, data: new Float64Array(rig.weights.rows * (B - 1)) };
  for (let v = 0; v < rig.weights.rows; v++)
    for (let b = 0; b < B; b++) weights.data[v * (B - 1) + newIndex[b === gone ? parent : b]] += rig.weights.data[v * B + b];
  const dropBone = (values: Float64Array | undefined, width: number): Float64Array | undefined =>
    values &&
    Float64Array.from({ length: (values.length / B) * (B - 1) }, (_, i) => {
      const element = Math.floor(i / width);
      const frame = Math.floor(element / (B - 1));
      return values[(frame * B + keep[element % (B - 1)]) * width + (i % width)];
    });
  const clips = rig.clips.map((clip) => {
    assert.equal(clip.poses.kind, 'matrices');
    if (clip.poses.kind !== 'matrices') throw new Error('matrices');
    const { curves: _curves, ...poses } = clip.poses;
    return {
      ...clip,
      poses: { ...poses, boneCount: B - 1, rotations: dropBone(poses.rotations, 9)!, translations: dropBone(poses.translations, 3) },
    };
  });
  const source = { ...rig.gltfSource, jointNodes: Int32Array.from(keep, (b) => rig.gltfSource.jointNodes[b]) };
  const result = await exportGltfInPlace(
    { source, mesh: rig.mesh, skeleton, weights, boneNames: keep.map((b) => rig.boneNames[b]), clips, parts: rig.parts },
    'removed.glb',
  );
  await assertValidGltf(result.bytes, 'CesiumMan with a bone removed', {}, bytes);
  assert.ok(
    result.warnings.some((w) => w.startsWith('1 joint is no longer a bone (Skeleton_arm_joint_L__3_)')),
    result.warnings.join(' | '),
  );

  const before = await readDoc(bytes);
  const after = await readDoc(result.bytes);
  const goneNode = before.getRoot().listNodes()[rig.gltfSource.jointNodes[gone]];
  const skinBefore = before.getRoot().listSkins()[0];
  const skinAfter = after.getRoot().listSkins()[0];
  const goneAfter = after.getRoot().listNodes()[rig.gltfSource.jointNodes[gone]];
  assert.equal(goneAfter.getName(), goneNode.getName(), 'the node stays, with its name');
  assert.equal(goneAfter.getParentNode()?.getName(), goneNode.getParentNode()?.getName());
  assert.deepEqual(
    goneAfter.listChildren().map((n) => n.getName()),
    goneNode.listChildren().map((n) => n.getName()),
    'the child joint still hangs under it',
  );
  assert.deepEqual(
    skinAfter.listJoints().map((n) => n.getName()),
    skinBefore
      .listJoints()
      .filter((n) => n !== goneNode)
      .map((n) => n.getName()),
  );
  // Nothing moved: every other joint keeps its inverse bind matrix, bit for bit.
  skinAfter.listJoints().forEach((joint, k) => {
    const j = skinBefore.listJoints().findIndex((n) => n.getName() === joint.getName());
    assert.deepEqual(skinAfter.getInverseBindMatrices()!.getElement(k, []), skinBefore.getInverseBindMatrices()!.getElement(j, []));
  });

  // The expectation, from the original file alone: its JOINTS with the removed joint's index replaced by its parent's.
  const goneSlot = skinBefore.listJoints().indexOf(goneNode);
  const parentSlot = skinBefore.listJoints().findIndex((n) => n.getName() === rig.boneNames[parent]);
  for (const mesh of before.getRoot().listMeshes())
    for (const primitive of mesh.listPrimitives()) {
      const jointsAttribute = primitive.getAttribute('JOINTS_0')!;
      for (let v = 0; v < jointsAttribute.getCount(); v++)
        jointsAttribute.setElement(
          v,
          jointsAttribute.getElement(v, []).map((j) => (j === goneSlot ? parentSlot : j)),
        );
    }
  let worst = 0;
  for (const time of keyTimes(before)[0]) {
    worst = Math.max(worst, maxDistance(gltfPosedPositions(after, 0, time), gltfPosedPositions(before, 0, time)));
  }
  console.log(
    `removed bone: posed mesh vs the original with the weight on the parent, every key: ${(worst / diagonal).toExponential(2)} of the diagonal`,
  );
  assert.ok(worst <= 1e-6 * diagonal, `${worst / diagonal} of the diagonal`);

  // Read back: the bones are the kept ones, in order, with their names.
  const again = await importGltf(result.bytes, 'removed.glb');
  assert.deepEqual(
    again.boneNames,
    keep.map((b) => rig.boneNames[b]),
  );
  assert.deepEqual(Array.from(again.skeleton.parents), Array.from(skeleton.parents));
});

test('CesiumMan: an edited clip (no source) is written as a new animation that poses like the original; a removed clip is gone (Fox)', async () => {
  const bytes = readFileSync(dataFile('gltf', 'CesiumMan', 'CesiumMan.glb'));
  const rig = await importGltf(bytes, 'CesiumMan.glb');
  const edited = rig.clips.map((clip) => ({ name: `${clip.name} edited`, poses: clip.poses }));
  const result = await exportGltfInPlace({ ...editOf(rig), clips: edited }, 'clip.glb');
  await assertValidGltf(result.bytes, 'CesiumMan with a rewritten clip', {}, bytes);
  const before = await readDoc(bytes);
  const after = await readDoc(result.bytes);
  assert.deepEqual(
    after
      .getRoot()
      .listAnimations()
      .map((a) => a.getName()),
    ['animation 0 edited'],
  );
  const poses = rig.clips[0].poses;
  assert.equal(poses.kind, 'matrices');
  const frames = poses.kind === 'matrices' ? poses.frameCount : 0;
  const diagonal = boundingBox(rig.mesh.positions).diagonal;
  let worst = 0;
  // The clip was sampled at 30 fps on import and is keyed at those times: glTF's skinning agrees at every key.
  for (let f = 0; f < frames; f++)
    worst = Math.max(
      worst,
      maxDistance(gltfPosedPositions(after, 0, f / 30), gltfPosedPositions(before, 0, Math.min(f / 30, 2))) / diagonal,
    );
  console.log(`CesiumMan rewritten clip: posed mesh off the original by ${worst.toExponential(2)} of the diagonal over ${frames} keys`);
  assert.ok(worst < 1e-5, `rewritten clip off by ${worst} of the diagonal`);

  const foxBytes = readFileSync(dataFile('gltf', 'Fox', 'Fox.glb'));
  const fox = await importGltf(foxBytes, 'Fox.glb');
  const fewer = await exportGltfInPlace({ ...editOf(fox), clips: [fox.clips[0], fox.clips[2]] }, 'fox.glb');
  await assertValidGltf(fewer.bytes, 'Fox without Walk');
  const foxAfter = await readDoc(fewer.bytes);
  const foxBefore = await readDoc(foxBytes);
  assert.deepEqual(
    foxAfter
      .getRoot()
      .listAnimations()
      .map((a) => a.getName()),
    ['Survey', 'Run'],
  );
  const timesOf = (doc: Document, a: number): number[] =>
    Array.from(doc.getRoot().listAnimations()[a].listSamplers()[0].getInput()!.getArray() as Float32Array);
  assert.deepEqual(timesOf(foxAfter, 1), timesOf(foxBefore, 2), 'Run keeps its keys');
});

type Extensions = Record<string, unknown>;
/** The parts of a glTF JSON these tests read and write. */
interface GltfJsonShape {
  extensionsUsed?: string[];
  extensions?: Extensions;
  nodes: { name?: string; extensions?: Extensions }[];
  materials: { extensions?: Extensions }[];
  meshes: { primitives: { extensions?: Extensions }[] }[];
}

/**
 * A generated asset: an armature node above joints hips → spine → head; a body mesh on skin A (hips, spine), an eye
 * on skin B (head, spine: shared joint, listed second), and an unskinned hat under the head joint. One clip turns
 * the spine. Bind pose = rest pose; inverse bind matrices are the joints' inverse world matrices.
 */
async function twoSkinAsset(extension?: string): Promise<Uint8Array> {
  const { Document: GltfDocument } = await import('@gltf-transform/core');
  const doc = new GltfDocument();
  const buffer = doc.createBuffer();
  const accessor = (type: 'SCALAR' | 'VEC3' | 'VEC4' | 'MAT4' | 'VEC2', array: Float32Array | Uint16Array | Uint8Array) =>
    doc.createAccessor().setType(type).setArray(array).setBuffer(buffer);
  const armature = doc.createNode('Armature').setTranslation([0.5, 0, 0]);
  const hips = doc.createNode('hips').setTranslation([0, 1, 0]);
  const spine = doc.createNode('spine').setTranslation([0, 0.5, 0]);
  const head = doc.createNode('head').setTranslation([0, 0.5, 0]).setRotation([0, 0, Math.SQRT1_2, Math.SQRT1_2]);
  armature.addChild(hips);
  hips.addChild(spine);
  spine.addChild(head);
  const inverseOf = (nodes: GltfNode[]): Float32Array => Float32Array.from(nodes.flatMap((node) => invert4(world(node))));
  const skinA = doc
    .createSkin('body skin')
    .addJoint(hips)
    .addJoint(spine)
    .setInverseBindMatrices(accessor('MAT4', inverseOf([hips, spine])));
  const skinB = doc
    .createSkin('eye skin')
    .addJoint(head)
    .addJoint(spine)
    .setInverseBindMatrices(accessor('MAT4', inverseOf([head, spine])));
  const red = doc.createMaterial('red').setBaseColorFactor([1, 0, 0, 1]);
  const white = doc.createMaterial('white').setBaseColorFactor([1, 1, 1, 1]).setDoubleSided(true);
  const primitive = (positions: number[], joints: number[] | null, weights: number[] | null, material: typeof red) => {
    const n = positions.length / 3;
    const p = doc
      .createPrimitive()
      .setAttribute('POSITION', accessor('VEC3', Float32Array.from(positions)))
      .setAttribute(
        'TEXCOORD_0',
        accessor(
          'VEC2',
          Float32Array.from({ length: 2 * n }, (_, i) => (i * 0.37) % 1),
        ),
      )
      .setIndices(
        accessor(
          'SCALAR',
          Uint16Array.from({ length: n }, (_, i) => i),
        ),
      )
      .setMaterial(material);
    if (joints && weights)
      p.setAttribute('JOINTS_0', accessor('VEC4', Uint8Array.from(joints))).setAttribute(
        'WEIGHTS_0',
        accessor('VEC4', Float32Array.from(weights)),
      );
    return p;
  };
  // Body: two triangles from hips (y = 1) to above the spine (y = 2), world x offset 0.5 by the armature.
  const body = primitive(
    [0.3, 1, 0, 0.7, 1, 0, 0.7, 2, 0, 0.3, 1, 0, 0.7, 2, 0, 0.3, 2, 0],
    [0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0],
    [1, 0, 0, 0, 0.5, 0.5, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0],
    red,
  );
  const eye = primitive(
    [0.55, 2.05, 0.1, 0.6, 2.05, 0.1, 0.575, 2.1, 0.1],
    [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0],
    [1, 0, 0, 0, 0.25, 0.75, 0, 0, 1, 0, 0, 0],
    white,
  );
  const hat = primitive([-0.1, 0.2, 0, 0.1, 0.2, 0, 0, 0.3, 0], null, null, white);
  const bodyNode = doc.createNode('body').setMesh(doc.createMesh('body').addPrimitive(body)).setSkin(skinA);
  const eyeNode = doc.createNode('eye').setMesh(doc.createMesh('eye').addPrimitive(eye)).setSkin(skinB);
  head.addChild(doc.createNode('hat').setMesh(doc.createMesh('hat').addPrimitive(hat)).setTranslation([0, 0.1, 0]));
  doc.createScene('scene').addChild(armature).addChild(bodyNode).addChild(eyeNode);
  const times = accessor('SCALAR', Float32Array.of(0, 1));
  const sampler = doc
    .createAnimationSampler()
    .setInput(times)
    .setOutput(accessor('VEC4', Float32Array.of(0, 0, 0, 1, 0, 0, Math.sin(0.4), Math.cos(0.4))))
    .setInterpolation('LINEAR');
  doc
    .createAnimation('bend')
    .addSampler(sampler)
    .addChannel(doc.createAnimationChannel().setTargetNode(spine).setTargetPath('rotation').setSampler(sampler));
  const glb = await new WebIO().writeBinary(doc);
  if (!extension) return glb;
  // An extension no reader knows, on the root, a node, a material and a primitive (used, not required).
  const json = glbJson<GltfJsonShape>(glb);
  json.extensionsUsed = [extension];
  json.extensions = { [extension]: { version: 3 } };
  json.nodes[0].extensions = { [extension]: { tag: 'armature', list: [1, 2] } };
  json.materials[1].extensions = { [extension]: { glow: 0.5 } };
  json.meshes[0].primitives[0].extensions = { [extension]: { lod: 2 } };
  return withGlbJson(glb, json);
}

/** glTF's skinning of every mesh node (each with its own skin; unskinned ones by their world matrix), spine rotation set. */
function gltfWorldPositions(doc: Document, spineAngle: number): number[] {
  const spine = doc
    .getRoot()
    .listNodes()
    .find((node) => node.getName() === 'spine')!;
  const saved = spine.getRotation();
  spine.setRotation([0, 0, Math.sin(spineAngle / 2), Math.cos(spineAngle / 2)]);
  const out: number[] = [];
  for (const node of doc.getRoot().listNodes()) {
    const mesh = node.getMesh();
    if (!mesh) continue;
    for (const primitive of mesh.listPrimitives()) {
      const position = primitive.getAttribute('POSITION')!;
      for (let v = 0; v < position.getCount(); v++) {
        const p = position.getElement(v, []);
        let m: number[];
        const skin = node.getSkin();
        if (skin) {
          m = new Array<number>(16).fill(0);
          const js = primitive.getAttribute('JOINTS_0')!.getElement(v, []);
          const ws = primitive.getAttribute('WEIGHTS_0')!.getElement(v, []);
          for (let k = 0; k < 4; k++) {
            const joint = mul4(world(skin.listJoints()[js[k]]), skin.getInverseBindMatrices()!.getElement(js[k], []));
            for (let e = 0; e < 16; e++) m[e] += ws[k] * joint[e];
          }
        } else {
          m = world(node);
        }
        out.push(
          m[0] * p[0] + m[4] * p[1] + m[8] * p[2] + m[12],
          m[1] * p[0] + m[5] * p[1] + m[9] * p[2] + m[13],
          m[2] * p[0] + m[6] * p[1] + m[10] * p[2] + m[14],
        );
      }
    }
  }
  spine.setRotation(saved);
  return out;
}

test('two skins and an unskinned mesh import as one skeleton with every mesh; they pose as glTF does and export in place 0/0', async () => {
  const bytes = await twoSkinAsset();
  await assertValidGltf(bytes, 'generated two-skin asset');
  const rig = await importGltf(bytes, 'two-skins.glb');
  assert.deepEqual(rig.boneNames, ['hips', 'spine', 'head'], "the union of the skins' joints, the first skin's first");
  assert.deepEqual(
    rig.parts.map((p) => [p.name, p.vertexStart, p.vertexCount, p.skinned, p.material]),
    [
      ['body', 0, 6, true, 0],
      ['eye', 6, 3, true, 1],
      ['hat', 9, 3, false, 1],
    ],
  );
  assert.equal(rig.look.uvs?.length, 24);
  // The hat is bound rigidly to the head, its nearest ancestor joint.
  for (let v = 9; v < 12; v++) assert.deepEqual(Array.from(rig.weights.data.subarray(3 * v, 3 * v + 3)), [0, 0, 1]);
  // The eye's weights land on the union's bones: skin B joint 0 = head (bone 2), joint 1 = spine (bone 1).
  assert.deepEqual(Array.from(rig.weights.data.subarray(3 * 7, 3 * 7 + 3)), [0, 0.75, 0.25]);
  const doc = await readDoc(bytes);
  const diagonal = boundingBox(rig.mesh.positions).diagonal;
  assert.ok(maxDistance(rig.mesh.positions, gltfWorldPositions(doc, 0)) < 1e-6 * diagonal, 'rest positions are glTF’s');
  // The clip's last frame (spine turned 0.8 rad) posed by our forward kinematics and LBS, against glTF's skinning.
  const { forwardKinematics } = await import('../../workers/rig/forward-kinematics.ts');
  const poses = rig.clips[0].poses;
  assert.equal(poses.kind, 'matrices');
  if (poses.kind !== 'matrices') return;
  const B = 3;
  const f = poses.frameCount - 1;
  const transforms = new Float64Array(12 * B);
  forwardKinematics(
    rig.skeleton,
    poses.rotations.subarray(9 * B * f, 9 * B * (f + 1)),
    transforms,
    poses.translations?.subarray(3 * B * f, 3 * B * (f + 1)) ?? null,
  );
  const posed: number[] = [];
  for (let v = 0; v < rig.weights.rows; v++) {
    const x = rig.mesh.positions.subarray(3 * v, 3 * v + 3);
    const p = [0, 0, 0];
    for (let b = 0; b < B; b++) {
      const w = rig.weights.data[v * B + b];
      for (let r = 0; r < 3; r++)
        p[r] +=
          w *
          (transforms[12 * b + 4 * r] * x[0] +
            transforms[12 * b + 4 * r + 1] * x[1] +
            transforms[12 * b + 4 * r + 2] * x[2] +
            transforms[12 * b + 4 * r + 3]);
    }
    posed.push(...p);
  }
  const error = maxDistance(posed, gltfWorldPositions(doc, 0.8)) / diagonal;
  assert.ok(error < 1e-6, `posed off glTF's skinning by ${error} of the diagonal`);

  const result = await exportGltfInPlace(editOf(rig), 'two-skins-out.glb');
  await assertValidGltf(result.bytes, 'two skins in place');
  const after = await readDoc(result.bytes);
  assert.equal(after.getRoot().listSkins().length, 2, 'the file keeps its two skins');
  const again = await importGltf(result.bytes, 'again.glb');
  assert.deepEqual(again.boneNames, rig.boneNames);
  assert.deepEqual(again.parts, rig.parts);
  assert.ok(
    maxDistance(gltfWorldPositions(after, 0.8), gltfWorldPositions(doc, 0.8)) < 1e-6 * diagonal,
    'the world positions at 0.8 s are those of the original (within 1e-6 of the diagonal)',
  );
});

test('painting the body onto the head joint adds it to the body skin; binding the hat makes it skinned where it was', async () => {
  const rig = await importGltf(await twoSkinAsset(), 'two-skins.glb');
  const weights = { ...rig.weights, data: rig.weights.data.slice() };
  // Body vertex 2 (top) fully on the head; the hat becomes skinned with its rigid weights.
  weights.data.set([0, 0, 1], 3 * 2);
  const parts = rig.parts.map((part) => (part.name === 'hat' ? { ...part, skinned: true } : part));
  const result = await exportGltfInPlace({ ...editOf(rig), weights, parts }, 'painted.glb');
  await assertValidGltf(result.bytes, 'painted across');
  const after = await readDoc(result.bytes);
  const bodySkin = after
    .getRoot()
    .listNodes()
    .find((n) => n.getName() === 'body')!
    .getSkin()!;
  assert.deepEqual(
    bodySkin.listJoints().map((j) => j.getName()),
    ['hips', 'spine', 'head'],
  );
  const hat = after
    .getRoot()
    .listNodes()
    .find((n) => n.getName() === 'hat')!;
  assert.ok(hat.getSkin(), 'the hat is skinned');
  const again = await importGltf(result.bytes, 'again.glb');
  const diagonal = boundingBox(rig.mesh.positions).diagonal;
  assert.ok(maxDistance(again.mesh.positions, rig.mesh.positions) < 1e-6 * diagonal, 'the hat stays where it was');
  assert.ok(Math.abs(again.weights.data[3 * 2 + 2] - 1) < 1e-7, 'vertex 2 keeps weight 1 on bone 2 (within 1e-7)');
  assert.ok(
    again.parts.every((p) => p.skinned),
    'every part is skinned',
  );
});

test('an unknown extension on the root, a node, a material and a primitive passes through in-place export', async () => {
  const name = 'EXT_rigwright_probe';
  const bytes = await twoSkinAsset(name);
  const rig = await importGltf(bytes, 'probe.glb');
  const result = await exportGltfInPlace(editOf(rig), 'probe-out.glb');
  const json = glbJson<GltfJsonShape>(result.bytes);
  assert.ok(json.extensionsUsed?.includes(name), `the export lists ${name} in extensionsUsed`);
  assert.deepEqual(json.extensions?.[name], { version: 3 });
  assert.deepEqual(json.nodes[0].extensions?.[name], { tag: 'armature', list: [1, 2] });
  assert.deepEqual(json.materials[1].extensions?.[name], { glow: 0.5 });
  assert.deepEqual(json.meshes[0].primitives[0].extensions?.[name], { lod: 2 });
  assert.equal(json.nodes[0].name, 'Armature');
});

test('an unknown extension on a texture and a sampler (CesiumMan) passes through in-place export, found again by image and settings', async () => {
  const name = 'EXT_rigwright_probe';
  type Item = { extensions?: Record<string, unknown>; source?: number; sampler?: number; magFilter?: number };
  const original = new Uint8Array(readFileSync(dataFile('gltf', 'CesiumMan', 'CesiumMan.glb')));
  const json = glbJson<GltfJsonShape>(original) as GltfJsonShape & { textures: Item[]; samplers: Item[] };
  json.extensionsUsed = [...(json.extensionsUsed ?? []), name];
  json.textures[0].extensions = { [name]: { channel: 'albedo' } };
  json.samplers[0].extensions = { [name]: { anisotropy: 4 } };
  const bytes = withGlbJson(original, json);
  const rig = await importGltf(bytes, 'probe.glb');
  const result = await exportGltfInPlace(editOf(rig), 'probe-out.glb');
  assert.ok(!result.warnings.some((w) => w.includes('left out')), result.warnings.join('; '));
  const out = glbJson<GltfJsonShape>(result.bytes) as GltfJsonShape & { textures: Item[]; samplers: Item[] };
  assert.ok(out.extensionsUsed?.includes(name), `the export lists ${name} in extensionsUsed`);
  const texture = out.textures.find((t) => t.source === json.textures[0].source)!;
  assert.deepEqual(texture.extensions?.[name], { channel: 'albedo' });
  assert.deepEqual(out.samplers[texture.sampler!].extensions?.[name], { anisotropy: 4 });
  assert.equal(out.samplers[texture.sampler!].magFilter, json.samplers[json.textures[0].sampler!].magFilter);
  await assertValidGltf(result.bytes, 'CesiumMan with a probe extension', {}, bytes);
});

test('CLI: import CesiumMan, change one bone’s weights in the DMAT, export --base: 0/0, the original material, texture and UVs, the new weights; info names the joints', async () => {
  const { mkdtempSync, writeFileSync, readdirSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const path = await import('node:path');
  const { readDmat, writeDmatAscii } = await import('../../workers/formats/dmat.ts');
  const { repoRoot } = await import('./shared-data.ts');
  const rigwright = (...args: string[]) =>
    spawnSync(process.execPath, ['app/cli/rigwright.mjs', ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 120_000 });
  const work = mkdtempSync(path.join(tmpdir(), 'rigwright-inplace-'));
  const base = dataFile('gltf', 'CesiumMan', 'CesiumMan.glb');
  const imported = rigwright('import', base, '--out-dir', work);
  assert.equal(imported.status, 0, imported.stderr);
  assert.match(imported.stdout, /mesh Cesium_Man: vertices 0–3272/);
  const files = readdirSync(work);
  const weightsFile = path.join(
    work,
    files.find((f) => f.endsWith('-weights.dmat'))!,
  );
  const tgfFile = path.join(
    work,
    files.find((f) => f.endsWith('.tgf'))!,
  );
  const poseFile = path.join(
    work,
    files.find((f) => f.includes('-pose-'))!,
  );
  const weights = readDmat(readFileSync(weightsFile), weightsFile);
  const rig = await importGltf(readFileSync(base), 'CesiumMan.glb');
  const B = rig.weights.cols;
  const bone = 5;
  const parent = rig.skeleton.parents[bone];
  // The DMAT may carry zero connector columns past the file's joints; bone 5 gives half its weight to its parent.
  const cols = weights.cols;
  const data = weights.data.slice();
  for (let v = 0; v < weights.rows; v++) {
    const w = data[v * cols + bone];
    let count = 0;
    for (let b = 0; b < B; b++) if (data[v * cols + b] !== 0) count++;
    if (w === 0 || (data[v * cols + parent] === 0 && count >= 4)) continue;
    data[v * cols + bone] = w / 2;
    data[v * cols + parent] += w / 2;
  }
  const editedFile = path.join(work, 'edited-weights.dmat');
  writeFileSync(editedFile, writeDmatAscii({ ...weights, data }));
  const out = path.join(work, 'CesiumMan-edited.glb');
  const timesFile = path.join(
    work,
    files.find((f) => f.includes('-times-'))!,
  );
  const exported = rigwright(
    'export',
    '--base',
    base,
    '--weights',
    editedFile,
    '--skeleton',
    tgfFile,
    '--poses',
    poseFile,
    '--times',
    timesFile,
    '--out',
    out,
  );
  assert.equal(exported.status, 0, exported.stderr);
  const bytes = readFileSync(out);
  await assertValidGltf(bytes, 'CesiumMan export --base', {}, readFileSync(base));
  const before = await readDoc(readFileSync(base));
  const after = await readDoc(bytes);
  assert.deepEqual(materialsOf(after), materialsOf(before), 'material and texture');
  assert.deepEqual(attributeBytes(after, 'TEXCOORD_0'), attributeBytes(before, 'TEXCOORD_0'), 'UVs bit for bit');
  assert.equal(after.getRoot().listAnimations().length, 2, 'the file clip and the pose file as a new clip');
  // The new clip is keyed at the key times import wrote: the file's own.
  const keyTimes = (animation: Animation): number[] =>
    Array.from(
      animation
        .listChannels()
        .find((c) => c.getTargetPath() === 'rotation')!
        .getSampler()!
        .getInput()!
        .getArray() as Float32Array,
    );
  assert.deepEqual(keyTimes(after.getRoot().listAnimations()[1]), keyTimes(before.getRoot().listAnimations()[0]));
  const again = await importGltf(bytes, 'edited.glb');
  assert.deepEqual(again.boneNames, rig.boneNames);
  let worst = 0;
  for (let v = 0; v < weights.rows; v++)
    for (let b = 0; b < B; b++) worst = Math.max(worst, Math.abs(again.weights.data[v * B + b] - data[v * cols + b]));
  assert.ok(worst < 1e-6, `weights read back off by ${worst}`);

  const info = rigwright('info', base);
  assert.equal(info.status, 0, info.stderr);
  assert.ok(info.stdout.includes(`bones (joint order): ${rig.boneNames.join(', ')}`), info.stdout);
});

test('app: a dropped Fox becomes a document with parts, look and its source; the export action writes it back in place', async () => {
  const { gltfIntoDocument } = await import('../../renderer/document/gltf-document.ts');
  const { exportSceneAsGltf } = await import('../../renderer/io/gltf-export-action.ts');
  type Io = Parameters<typeof gltfIntoDocument>[1];
  type Bridge = Parameters<typeof exportSceneAsGltf>[4];
  const bytes = readFileSync(dataFile('gltf', 'Fox', 'Fox.glb'));
  const io = {
    importGltf: (name: string, data: Uint8Array, resources: Record<string, Uint8Array>) => importGltf(data, name, resources),
    exportGltfInPlace: (edit: GltfEdit, file: string, options: Parameters<typeof exportGltfInPlace>[2]) =>
      exportGltfInPlace(edit, file, options),
  } as unknown as Io;
  const doc = await gltfIntoDocument([{ name: 'Fox.glb', bytes }], io);
  assert.equal(doc.parts?.length, 1);
  assert.equal(doc.look?.materials[0].baseColorTexture?.mimeType, 'image/png');
  assert.equal(doc.look?.uvs?.length, (2 * doc.mesh.positions.length) / 3);
  assert.equal(doc.gltfSource?.file, 'Fox.glb');
  assert.deepEqual(
    doc.clips?.map((clip) => clip.source),
    [0, 1, 2],
  );
  const saved: { suggestedName: string; bytes: Uint8Array }[] = [];
  const bridge = {
    saveFile: (request: { suggestedName: string; bytes: Uint8Array }) => (saved.push(request), Promise.resolve(true)),
  } as unknown as Bridge;
  const warnings = await exportSceneAsGltf(
    doc,
    {
      fileName: 'fox-out.glb',
      format: 'glb',
      influences: 4,
      weightComponent: 'float',
      compression: 'none',
      includeClip: true,
      bake: false,
    },
    { method: 'lbs', influences: 4, antipodality: 'per-vertex', kernel: 'gaussian' },
    io,
    bridge,
  );
  assert.deepEqual(warnings, []);
  assert.equal(saved.length, 1);
  await assertValidGltf(saved[0].bytes, 'Fox through the export action');
  const after = await readDoc(saved[0].bytes);
  const before = await readDoc(bytes);
  assert.deepEqual(keyTimes(after), keyTimes(before), 'the three clips as they were');
  assert.deepEqual(materialsOf(after), materialsOf(before));
});

const noBlender = blenderMissing('the textured-import check');

/** Blender's view of a GLB: armatures with their bones, meshes with UV layers, materials with their base-colour image. */
async function blenderReport(
  bytes: Uint8Array,
): Promise<{ armatures: string[][]; meshes: [string, number][]; images: [string, number, number][] }> {
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const path = await import('node:path');
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'rigwright-blender-inplace-')), 'asset.glb');
  writeFileSync(file, bytes);
  const python = [
    'import bpy, json, numpy',
    // Blender 3.4's glTF importer uses numpy.bool, which numpy 1.24 removed (as in test/blender/inspect-gltf.py).
    'if "bool" not in numpy.__dict__: numpy.bool = bool',
    'bpy.ops.wm.read_factory_settings(use_empty=True)',
    `bpy.ops.import_scene.gltf(filepath=${JSON.stringify(file)})`,
    'armatures = [[b.name for b in o.data.bones] for o in bpy.data.objects if o.type == "ARMATURE"]',
    'meshes = [[o.name, len(o.data.uv_layers)] for o in bpy.data.objects if o.type == "MESH"]',
    'images = []',
    'for m in bpy.data.materials:',
    '    for n in (m.node_tree.nodes if m.node_tree else []):',
    '        if n.type == "TEX_IMAGE" and n.image: images.append([m.name, n.image.size[0], n.image.size[1]])',
    'print("REPORT" + json.dumps({"armatures": armatures, "meshes": meshes, "images": images}))',
  ].join('\n');
  const run = spawnSync('blender', ['-b', '--factory-startup', '--python-expr', python], { encoding: 'utf8', timeout: 180_000 });
  const line = run.stdout.split('\n').find((l) => l.startsWith('REPORT'));
  assert.ok(line, `Blender gave no report:\n${run.stdout.slice(-2000)}\n${run.stderr.slice(-2000)}`);
  return JSON.parse(line.slice('REPORT'.length)) as {
    armatures: string[][];
    meshes: [string, number][];
    images: [string, number, number][];
  };
}

test(
  'Blender imports the CesiumMan export (weights edited in place) textured, and the two-skin asset as one armature',
  { skip: noBlender ? 'blender is not installed' : false },
  async () => {
    const bytes = readFileSync(dataFile('gltf', 'CesiumMan', 'CesiumMan.glb'));
    const rig = await importGltf(bytes, 'CesiumMan.glb');
    const weights = { ...rig.weights, data: rig.weights.data.slice() };
    weights.data.fill(0, 0, rig.weights.cols);
    weights.data[0] = 1;
    const result = await exportGltfInPlace({ ...editOf(rig), weights }, 'CesiumMan-edited.glb');
    const report = await blenderReport(result.bytes);
    console.log(`Blender: ${JSON.stringify(report)}`);
    assert.equal(report.armatures.length, 1);
    assert.deepEqual([...report.armatures[0]].sort(), [...rig.boneNames].sort());
    assert.ok(report.meshes.length === 1 && report.meshes[0][1] === 1, 'one mesh with its UV layer');
    assert.ok(report.images.length >= 1 && report.images[0][1] > 0 && report.images[0][2] > 0, 'the base-colour image is loaded');

    const two = await importGltf(await twoSkinAsset(), 'two-skins.glb');
    const twoOut = await exportGltfInPlace(editOf(two), 'two-skins-out.glb');
    const twoReport = await blenderReport(twoOut.bytes);
    console.log(`Blender two skins: ${JSON.stringify(twoReport)}`);
    assert.equal(twoReport.armatures.length, 1, 'one armature');
    assert.deepEqual([...twoReport.armatures[0]].sort(), ['head', 'hips', 'spine']);
    assert.equal(twoReport.meshes.length, 3);
  },
);

test('CesiumMan: an example sculpted at a pose becomes new morph targets; at that key glTF skinning of the morphed mesh gives the example back', async () => {
  const { examplePoseSpace } = await import('../../workers/formats/gltf-export.ts');
  const bytes = readFileSync(dataFile('gltf', 'CesiumMan', 'CesiumMan.glb'));
  const rig = await importGltf(bytes, 'CesiumMan.glb');
  const poses = rig.clips[0].poses;
  assert.equal(poses.kind, 'matrices');
  if (poses.kind !== 'matrices') return;
  const B = poses.boneCount;
  const key = 20;
  const diagonal = boundingBox(rig.mesh.positions).diagonal;
  // A clip of the file's rotations only (examples are sculpted at rotation poses), written as a new clip.
  const clip = { name: 'walk with bulge', poses: { ...poses, translations: undefined, curves: undefined } };
  // The clip's frames are the file's keys, at their own times.
  const seconds = poses.times ? poses.times[key] : key / 30;
  const plainResult = await exportGltfInPlace({ ...editOf(rig), clips: [clip] }, 'plain.glb');
  // The example: glTF's skinning of that clip at the key, with a bulge on the upper body.
  const posed = gltfPosedPositions(await readDoc(plainResult.bytes), 0, seconds);
  const example = posed.slice();
  let bulged = 0;
  for (let v = 0; v < example.length / 3; v++) {
    if (rig.mesh.positions[3 * v + 1] < 1.0) continue;
    example[3 * v] += 0.01 * diagonal;
    bulged++;
  }
  assert.ok(bulged > 100, 'more than 100 vertices are bulged');
  const pose = poses.rotations.slice(9 * B * key, 9 * B * (key + 1));
  const { poseSpace } = examplePoseSpace(
    { mesh: rig.mesh, skeleton: rig.skeleton, weights: rig.weights },
    { names: ['bulge'], positions: [example], poses: [pose], kernel: 'gaussian' },
    4,
  );
  const result = await exportGltfInPlace({ ...editOf(rig), clips: [clip], poseSpace }, 'bulge.glb');
  await assertValidGltf(result.bytes, 'CesiumMan with an example', {}, bytes);
  const after = await readDoc(result.bytes);
  const mesh = after.getRoot().listMeshes()[0];
  const primitive = mesh.listPrimitives()[0];
  const targets = primitive.listTargets();
  assert.ok(targets.length >= 1, 'the exported mesh has at least one morph target');
  const channel = after
    .getRoot()
    .listAnimations()[0]
    .listChannels()
    .find((c) => c.getTargetPath() === 'weights')!;
  assert.ok(channel, 'the new clip keys the target weights');
  const weightsAt = channel.getSampler()!.getOutput()!.getArray() as Float32Array;
  // Morph the base mesh by the key's weights, then let glTF's skinning pose it at the key's time.
  const position = primitive.getAttribute('POSITION')!;
  const base = position.getArray() as Float32Array;
  const morphed = Float32Array.from(base);
  targets.forEach((target, t) => {
    const delta = target.getAttribute('POSITION')!.getArray() as Float32Array;
    const a = weightsAt[key * targets.length + t];
    for (let i = 0; i < morphed.length; i++) morphed[i] += a * delta[i];
  });
  position.setArray(morphed);
  const error = maxDistance(gltfPosedPositions(after, 0, seconds), example) / diagonal;
  position.setArray(base);
  const plain = maxDistance(gltfPosedPositions(after, 0, seconds), example) / diagonal;
  console.log(`example at its key: off by ${error.toExponential(2)} of the diagonal with the targets, ${plain.toExponential(2)} without`);
  assert.ok(error < 1e-5, `example off by ${error} of the diagonal`);
  assert.ok(plain > 5e-3, 'without the targets the bulge is missing');
});

test('CLI: export --times refuses key times that do not fit the pose file, naming the file and the row', async () => {
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const path = await import('node:path');
  const { repoRoot } = await import('./shared-data.ts');
  const work = mkdtempSync(path.join(tmpdir(), 'rigwright-times-'));
  const base = dataFile('gltf', 'CesiumMan', 'CesiumMan.glb');
  const rig = await importGltf(readFileSync(base), 'CesiumMan.glb');
  const B = rig.skeleton.parents.length;
  // Two rest frames of B rotations: 3·B·2 × 3, column-major ASCII DMAT.
  const rows = 3 * B * 2;
  const pose = new Float64Array(rows * 3);
  for (let r = 0; r < rows; r++) pose[r * 3 + (r % 3)] = 1;
  const { writeDmatAscii } = await import('../../workers/formats/dmat.ts');
  const poseFile = path.join(work, 'pose.dmat');
  writeFileSync(poseFile, writeDmatAscii({ rows, cols: 3, data: pose }));
  const run = (times: number[]) => {
    const timesFile = path.join(work, 'times.dmat');
    writeFileSync(timesFile, writeDmatAscii({ rows: times.length, cols: 1, data: Float64Array.from(times) }));
    return spawnSync(
      process.execPath,
      ['app/cli/rigwright.mjs', 'export', '--base', base, '--poses', poseFile, '--times', timesFile, '--out', path.join(work, 'out.glb')],
      { cwd: repoRoot, encoding: 'utf8', timeout: 120_000 },
    );
  };
  const short = run([0]);
  assert.equal(short.status, 1);
  assert.match(short.stderr, /times\.dmat.*2 frames, so it needs 2 × 1 key times/);
  const backwards = run([0.5, 0.25]);
  assert.equal(backwards.status, 1);
  assert.match(backwards.stderr, /times\.dmat.*row 2.*does not come after 0\.5 s/);
  const good = run([0.5, 0.75]);
  assert.equal(good.status, 0, good.stderr);
  const written = await importGltf(readFileSync(path.join(work, 'out.glb')), 'out.glb');
  const added = written.clips.find((clip) => clip.name === 'pose')!;
  assert.ok(added.poses.kind === 'matrices' && added.poses.times, "the added clip 'pose' holds matrices with key times");
  assert.deepEqual(Array.from(added.poses.times), [0.5, 0.75]);
});
