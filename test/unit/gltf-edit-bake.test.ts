/**
 * Baked skinning written into the file an in-place export edits (workers/formats/gltf/baked-morphs.ts). CesiumMan's
 * joint nodes at rest are not its bind pose, so the targets must be taken back through the rest-node skin. The
 * check is glTF's own evaluation of the written file: the morph weights the bake keys at a frame's time, the
 * targets added to POSITION, then the skin at the rest nodes (gltf-skinning-reference.ts) gives the baked
 * positions back.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import test from 'node:test';
import { WebIO, type Document } from '@gltf-transform/core';
import { importGltf } from '../../workers/formats/gltf-import.ts';
import { exportGltfInPlace } from '../../workers/formats/gltf-edit.ts';
import { examplePoseSpace } from '../../workers/formats/gltf-export.ts';
import { skinningVertexAnimation } from '../../workers/formats/gltf-skinning-bake.ts';
import { boundingBox } from '../../workers/mesh/bounds.ts';
import { assertValidGltf, gltfPosedPositions, maxDistance } from './gltf-skinning-reference.ts';
import { dataFile } from './shared-data.ts';
import { editOf } from './gltf-edit-input.ts';

/** glTF's pose of the file at the rest nodes, morphed by animation `a`'s weights at key `k` (keys are one-hot here). */
function morphedAtRest(doc: Document, a: number, k: number): Float64Array {
  const animation = doc.getRoot().listAnimations()[a];
  const mesh = doc.getRoot().listMeshes()[0];
  const primitive = mesh.listPrimitives()[0];
  const channel = animation.listChannels().find((c) => c.getTargetPath() === 'weights')!;
  const weights = channel.getSampler()!.getOutput()!.getArray() as Float32Array;
  const targets = primitive.listTargets();
  const position = primitive.getAttribute('POSITION')!;
  const base = position.getArray() as Float32Array;
  const morphed = Float64Array.from(base);
  targets.forEach((target, t) => {
    const w = weights[k * targets.length + t];
    if (w === 0) return;
    const delta = target.getAttribute('POSITION')!.getArray() as Float32Array;
    for (let i = 0; i < morphed.length; i++) morphed[i] += w * delta[i];
  });
  position.setArray(Float32Array.from(morphed));
  const posed = gltfPosedPositions(doc, null, 0);
  position.setArray(base);
  return posed;
}

test('CesiumMan: a dual quaternion bake exported in place plays back as baked under glTF skinning at the rest nodes (0/0)', async () => {
  const bytes = readFileSync(dataFile('gltf', 'CesiumMan', 'CesiumMan.glb'));
  const rig = await importGltf(bytes, 'CesiumMan.glb');
  const diagonal = boundingBox(rig.mesh.positions).diagonal;
  const bake = skinningVertexAnimation(
    rig.mesh.positions,
    rig.skeleton,
    rig.weights,
    { name: 'walk (dqs baked)', method: 'dqs', poses: rig.clips[0].poses, influences: 4 },
    30,
  );
  const result = await exportGltfInPlace({ ...editOf(rig), vertexAnimations: [bake] }, 'baked.glb');
  await assertValidGltf(result.bytes, 'CesiumMan with a baked clip, in place', {}, bytes);
  const after = await new WebIO().readBinary(result.bytes);
  const animations = after.getRoot().listAnimations();
  assert.deepEqual(
    animations.map((a) => a.getName()),
    ['', 'walk (dqs baked)'],
    'the file’s clip is kept, the bake comes after it',
  );
  const primitive = after.getRoot().listMeshes()[0].listPrimitives()[0];
  assert.equal(primitive.listTargets().length, bake.frameCount);
  const input = animations[1].listSamplers()[0].getInput()!;
  assert.deepEqual(Array.from(input.getArray() as Float32Array), Array.from(Float32Array.from(bake.times!)), 'at the clip’s key times');

  const baked = new Float64Array(rig.mesh.positions.length);
  let worst = 0;
  let atRest = 0;
  for (const f of [0, 7, 20, bake.frameCount - 1]) {
    bake.positionsAt(f, baked);
    worst = Math.max(worst, maxDistance(morphedAtRest(after, 1, f), baked) / diagonal);
    atRest = Math.max(atRest, maxDistance(gltfPosedPositions(after, null, 0), baked) / diagonal);
  }
  console.log(
    `in-place bake: glTF playback vs the bake ${worst.toExponential(2)} of the diagonal; the rest nodes alone ${atRest.toExponential(2)}`,
  );
  assert.ok(worst < 1e-6, `${worst} of the diagonal`);
  assert.ok(atRest > 1e-2, 'the targets carry the motion');
});

test('with example targets as well, the bake’s targets come after them and every weights key holds all of them (0/0)', async () => {
  const bytes = readFileSync(dataFile('gltf', 'CesiumMan', 'CesiumMan.glb'));
  const rig = await importGltf(bytes, 'CesiumMan.glb');
  const poses = rig.clips[0].poses;
  if (poses.kind !== 'matrices') throw new Error('matrices expected');
  const B = poses.boneCount;
  const diagonal = boundingBox(rig.mesh.positions).diagonal;
  const clip = { name: 'walk again', poses: { ...poses, translations: undefined, curves: undefined } };
  const example = rig.mesh.positions.map((x, i) => (i % 3 === 0 && rig.mesh.positions[i + 1] > 1 ? x + 0.01 * diagonal : x));
  const { poseSpace } = examplePoseSpace(
    { mesh: rig.mesh, skeleton: rig.skeleton, weights: rig.weights },
    { names: ['bulge'], positions: [example], poses: [poses.rotations.slice(9 * B * 20, 9 * B * 21)], kernel: 'gaussian' },
    4,
  );
  const bake = skinningVertexAnimation(
    rig.mesh.positions,
    rig.skeleton,
    rig.weights,
    { name: 'walk (lbs baked)', method: 'lbs', poses, influences: 4 },
    30,
  );
  const result = await exportGltfInPlace({ ...editOf(rig), clips: [clip], poseSpace, vertexAnimations: [bake] }, 'both.glb');
  await assertValidGltf(result.bytes, 'CesiumMan with examples and a bake, in place', {}, bytes);
  const after = await new WebIO().readBinary(result.bytes);
  const mesh = after.getRoot().listMeshes()[0];
  const targets = mesh.listPrimitives()[0].listTargets().length;
  const examples = targets - bake.frameCount;
  assert.ok(examples >= 1, `${targets} targets, ${bake.frameCount} of them baked`);
  assert.equal(mesh.getWeights().length, targets);
  const names = (mesh.getExtras() as { targetNames: string[] }).targetNames;
  assert.equal(names.length, targets);
  assert.equal(names[examples], 'walk (lbs baked) 0');
  for (const animation of after.getRoot().listAnimations()) {
    const channel = animation.listChannels().find((c) => c.getTargetPath() === 'weights')!;
    const sampler = channel.getSampler()!;
    assert.equal(
      sampler.getOutput()!.getCount(),
      sampler.getInput()!.getCount() * targets,
      `${animation.getName()}: every key holds every target`,
    );
  }
  // The bake's frames still play back exactly with the example targets beside them (weight 0 there).
  const baked = new Float64Array(rig.mesh.positions.length);
  bake.positionsAt(20, baked);
  const error = maxDistance(morphedAtRest(after, 1, 20), baked) / diagonal;
  assert.ok(error < 1e-6, `${error} of the diagonal`);
});

/** glTF's skin of `vectors` (#V × 3, added to POSITION) minus that of POSITION: the skin's linear part per vertex. */
function skinnedVectors(doc: Document, animation: number | null, time: number, vectors: ArrayLike<number>): Float64Array {
  const position = doc.getRoot().listMeshes()[0].listPrimitives()[0].getAttribute('POSITION')!;
  const base = position.getArray() as Float32Array;
  const at = gltfPosedPositions(doc, animation, time);
  position.setArray(Float32Array.from(base, (x, i) => x + vectors[i]));
  const moved = gltfPosedPositions(doc, animation, time);
  position.setArray(base);
  return moved.map((x, i) => x - at[i]);
}

/** The angle between corresponding vectors, per vertex. */
function angles(a: Float64Array, b: Float64Array): number[] {
  const out: number[] = [];
  for (let i = 0; i < a.length; i += 3) {
    const dot = a[i] * b[i] + a[i + 1] * b[i + 1] + a[i + 2] * b[i + 2];
    out.push(Math.acos(Math.max(-1, Math.min(1, dot / (Math.hypot(a[i], a[i + 1], a[i + 2]) * Math.hypot(b[i], b[i + 1], b[i + 2]))))));
  }
  return out;
}

test('CesiumMan: the baked clip shades as the file: its normal targets turn the file’s own normals as the clip turns them', async () => {
  const bytes = readFileSync(dataFile('gltf', 'CesiumMan', 'CesiumMan.glb'));
  const rig = await importGltf(bytes, 'CesiumMan.glb');
  const bake = skinningVertexAnimation(
    rig.mesh.positions,
    rig.skeleton,
    rig.weights,
    { name: 'walk (lbs baked)', method: 'lbs', poses: rig.clips[0].poses, influences: 4 },
    30,
  );
  const result = await exportGltfInPlace({ ...editOf(rig), vertexAnimations: [bake] }, 'baked.glb');
  const after = await new WebIO().readBinary(result.bytes);
  const primitive = after.getRoot().listMeshes()[0].listPrimitives()[0];
  const fileNormals = primitive.getAttribute('NORMAL')!.getArray() as Float32Array;
  const targets = primitive.listTargets();
  // Vertices whose whole surround hangs on one joint: there the clip turns the surface rigidly, so the baked
  // normal must be the clip's skinned normal itself.
  const B = rig.weights.cols;
  const single = (v: number) => Array.from(rig.weights.data.subarray(v * B, (v + 1) * B)).findIndex((w) => w === 1);
  const rigid = new Set<number>();
  const T = rig.mesh.triangles;
  for (let v = 0; v < rig.weights.rows; v++) if (single(v) >= 0) rigid.add(v);
  for (let t = 0; t < T.length; t += 3)
    if (!(single(T[t]) >= 0 && single(T[t]) === single(T[t + 1]) && single(T[t]) === single(T[t + 2])))
      for (let k = 0; k < 3; k++) rigid.delete(T[t + k]);
  assert.ok(rigid.size > 300, `${rigid.size} vertices in rigid surrounds`);
  let worstRigid = 0;
  let worstMedian = 0;
  let withoutTargets = 0;
  for (const f of [7, 20, 40]) {
    // What a player shows for the file's own clip at that key: its normals through the clip's skin.
    const expected = skinnedVectors(after, 0, bake.times![f], fileNormals);
    const delta = targets[f].getAttribute('NORMAL')!.getArray() as Float32Array;
    const rendered = skinnedVectors(
      after,
      null,
      0,
      Float32Array.from(fileNormals, (n, i) => n + delta[i]),
    );
    const each = angles(rendered, expected);
    for (const v of rigid) worstRigid = Math.max(worstRigid, each[v]);
    const sorted = [...each].sort((a, b) => a - b);
    worstMedian = Math.max(worstMedian, sorted[Math.floor(sorted.length / 2)]);
    const bare = angles(skinnedVectors(after, null, 0, fileNormals), expected).sort((a, b) => a - b);
    withoutTargets = Math.max(withoutTargets, bare[Math.floor(bare.length / 2)]);
  }
  console.log(
    `baked normals vs the clip's: rigid surrounds worst ${worstRigid.toExponential(2)} rad, all vertices median ${worstMedian.toExponential(2)} rad; without normal targets median ${withoutTargets.toFixed(2)} rad`,
  );
  assert.ok(worstRigid < 1e-3, `rigid surrounds off by ${worstRigid} rad`);
  assert.ok(worstMedian < 0.02, `median ${worstMedian} rad`);
  assert.ok(withoutTargets > 0.2, 'the targets carry the turn');
});
