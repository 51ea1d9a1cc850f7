/**
 * Baked skinning written into the file an in-place export edits (workers/formats/gltf-edit-bake.ts). CesiumMan's
 * joint nodes at rest are not its bind pose, so the targets must be taken back through the rest-node skin. The
 * check is glTF's own evaluation of the written file: the morph weights the bake keys at a frame's time, the
 * targets added to POSITION, then the skin at the rest nodes (gltf-skinning-reference.ts) gives the baked
 * positions back.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import test from 'node:test';
import { WebIO, type Document } from '@gltf-transform/core';
import { importGltf, type GltfImportResult } from '../../workers/formats/gltf-import.ts';
import { exportGltfInPlace, type GltfEdit } from '../../workers/formats/gltf-edit.ts';
import { examplePoseSpace } from '../../workers/formats/gltf-export.ts';
import { skinningVertexAnimation } from '../../workers/formats/gltf-skinning-bake.ts';
import { boundingBox } from '../../workers/mesh/bounds.ts';
import { assertValidGltf, gltfPosedPositions, maxDistance } from './gltf-skinning-reference.ts';
import { dataFile } from './shared-data.ts';

function editOf(rig: GltfImportResult): GltfEdit {
  return { source: rig.gltfSource, mesh: rig.mesh, skeleton: rig.skeleton, weights: rig.weights, clips: rig.clips, parts: rig.parts };
}

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
  await assertValidGltf(result.bytes, 'CesiumMan with a baked clip, in place');
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
  await assertValidGltf(result.bytes, 'CesiumMan with examples and a bake, in place');
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
