/**
 * Keyframes as they are: glTF clips keep their key times and interpolation on import, in the app's evaluation and
 * on export; sampling at a fixed rate happens only when baking. The expected poses come from the tests' own
 * evaluation of the glTF node graph in float64, with the samplers of glTF 2.0 Appendix C written out in
 * gltf-appendix-c.ts (STEP, LINEAR with SLERP for rotations, CUBICSPLINE Hermite), on the Khronos samples (CesiumMan, Fox) and on generated
 * files with STEP, LINEAR and CUBICSPLINE channels at 37.5 fps and at uneven key times.
 *
 * What is compared: a bone's posed start joint is where its joint node's origin goes (h_j = C · IBM_j⁻¹ · 0, so
 * A_j h_j = G_j · 0), and a bone's rotation from key 0 to time t is its joint node's world rotation change
 * W_j(t) · W_j(t0)ᵀ (the joint matrix's fixed part, IBM_j C⁻¹, cancels). Both hold to round-off whatever the
 * float32 inverse bind matrices do; the posed mesh by glTF skinning is compared too, within float32 bounds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Document, WebIO } from '@gltf-transform/core';
import { exportGltf } from '../../workers/formats/gltf-export.ts';
import { importGltf, type GltfImportResult } from '../../workers/formats/gltf-import.ts';
import { poseForwardKinematics, posedJointPositions } from '../../workers/rig/forward-kinematics.ts';
import {
  bakePoseSequence,
  frameAtSeconds,
  frameSeconds,
  samplePose,
  UNTIMED_FRAMES_PER_SECOND,
  type PoseSequence,
} from '../../workers/rig/pose-sequence.ts';
import { influencesFromWeights } from '../../workers/skinning/influences.ts';
import { linearBlendSkinning } from '../../workers/skinning/linear-blend-skinning.ts';
import { boundingBox } from '../../workers/mesh/bounds.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';
import { bakeClipEdit, bakeableClip } from '../../renderer/document/clip-bake.ts';
import { gltfIntoDocument } from '../../renderer/document/gltf-document.ts';
import { inProcessIo } from './in-process-io.ts';
import type { SceneDocument } from '../../workers/scene/scene-document.ts';
import { defaultProjectSettings, PROJECT_FORMAT_VERSION, readProjectFile, writeProjectFile } from '../../workers/formats/project-file.ts';
import { FormatError } from '../../workers/formats/format-error.ts';
import { assertValidGltf, maxDistance } from './gltf-skinning-reference.ts';
import { elements, fileKeyTimes, fileSkinned, invertRigid, worldMatrices } from './gltf-appendix-c.ts';
import { dataFile } from './shared-data.ts';
import { axisAngle, gltfBuilder } from './gltf-build.ts';

// ---- our side ----------------------------------------------------------------------------------------------------

/** Our posed bone heads (#B × 3) and absolute bone rotations (#B × 9 row-major) at frame number `frame`. */
function ourPose(rig: GltfImportResult, poses: PoseSequence, frame: number): { heads: Float64Array; rotations: Float64Array } {
  const B = rig.skeleton.parents.length;
  const transforms = new Float64Array(12 * B);
  poseForwardKinematics(rig.skeleton, poses, frame, new Float64Array(9 * B), new Float64Array(3 * B), transforms);
  const joints = new Float64Array(rig.skeleton.joints.length);
  posedJointPositions(rig.skeleton, transforms, joints);
  const rotations = new Float64Array(9 * B);
  for (let b = 0; b < B; b++)
    for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) rotations[9 * b + 3 * r + c] = transforms[12 * b + 4 * r + c];
  return { heads: joints.subarray(0, 3 * B), rotations };
}

/** Where the file puts the joints at time t: origins (#B × 3) and world rotations (#B × 9 row-major, scale divided out). */
function filePose(doc: Document, a: number | null, t: number): { heads: Float64Array; rotations: Float64Array } {
  const joints = doc.getRoot().listSkins()[0].listJoints();
  const world = worldMatrices(doc, a, t);
  const heads = new Float64Array(3 * joints.length);
  const rotations = new Float64Array(9 * joints.length);
  joints.forEach((joint, j) => {
    const m = world.get(joint)!;
    heads.set([m[12], m[13], m[14]], 3 * j);
    for (let c = 0; c < 3; c++) {
      const n = Math.hypot(m[4 * c], m[4 * c + 1], m[4 * c + 2]);
      for (let r = 0; r < 3; r++) rotations[9 * j + 3 * r + c] = m[4 * c + r] / n;
    }
  });
  return { heads, rotations };
}

/** Largest entry of R_a(t) · R_a(t0)ᵀ − R_b(t) · R_b(t0)ᵀ over the bones: rotation changes since key 0. */
function rotationChangeError(a: Float64Array, a0: Float64Array, b: Float64Array, b0: Float64Array): number {
  let worst = 0;
  for (let j = 0; j < a.length / 9; j++) {
    for (let r = 0; r < 3; r++) {
      for (let c = 0; c < 3; c++) {
        let x = 0;
        let y = 0;
        for (let k = 0; k < 3; k++) {
          x += a[9 * j + 3 * r + k] * a0[9 * j + 3 * c + k];
          y += b[9 * j + 3 * r + k] * b0[9 * j + 3 * c + k];
        }
        worst = Math.max(worst, Math.abs(x - y));
      }
    }
  }
  return worst;
}

/** Our posed mesh (forward kinematics, LBS with all influences) at frame number `frame`. */
function ourSkinned(rig: GltfImportResult, poses: PoseSequence, frame: number): Float64Array {
  const B = rig.skeleton.parents.length;
  const transforms = new Float64Array(12 * B);
  poseForwardKinematics(rig.skeleton, poses, frame, new Float64Array(9 * B), new Float64Array(3 * B), transforms);
  const out = new Float64Array(rig.mesh.positions.length);
  linearBlendSkinning(rig.mesh.positions, influencesFromWeights(rig.weights, 0), transforms, out);
  return out;
}

const timesOf = (poses: PoseSequence): Float64Array => {
  assert.ok(poses.kind === 'matrices' && poses.times, 'the clip has key times');
  return poses.times;
};

/**
 * Compares our clip with the file's evaluation at `seconds` (our frame number: frameAtSeconds): the heads' distance as
 * a fraction of the diagonal, and the rotation changes since key 0.
 */
function poseErrors(
  doc: Document,
  a: number,
  rig: GltfImportResult,
  poses: PoseSequence,
  seconds: number,
): { heads: number; rotations: number } {
  const diagonal = boundingBox(rig.mesh.positions).diagonal;
  const t0 = timesOf(poses)[0];
  const ours = ourPose(rig, poses, frameAtSeconds(poses, seconds));
  const ours0 = ourPose(rig, poses, 0);
  const file = filePose(doc, a, seconds);
  const file0 = filePose(doc, a, t0);
  return {
    heads: maxDistance(ours.heads, file.heads) / diagonal,
    rotations: rotationChangeError(ours.rotations, ours0.rotations, file.rotations, file0.rotations),
  };
}

/** The larger of the two errors (a file whose joints do not scale). */
function poseError(doc: Document, a: number, rig: GltfImportResult, poses: PoseSequence, seconds: number): number {
  const e = poseErrors(doc, a, rig, poses, seconds);
  return Math.max(e.heads, e.rotations);
}

/** Largest |s − 1| of any node's rest scale or scale key: what rigid poses leave out. */
function scaleDeviation(doc: Document): number {
  let worst = 0;
  for (const node of doc.getRoot().listNodes()) for (const x of node.getScale()) worst = Math.max(worst, Math.abs(x - 1));
  for (const animation of doc.getRoot().listAnimations())
    for (const channel of animation.listChannels())
      if (channel.getTargetPath() === 'scale')
        for (const x of elements(channel.getSampler()!.getOutput()!).flat()) worst = Math.max(worst, Math.abs(x - 1));
  return worst;
}

// ---- generated files ---------------------------------------------------------------------------------------------

/**
 * A four-joint chain (hip → spine → neck → head, the spine turned half a turn at rest) skinning a strip of quads, with
 * three clips: "mixed" (CUBICSPLINE hip translation and rotation at uneven keys, LINEAR spine at 37.5 fps, STEP neck
 * at irregular keys), "stepped" (STEP only) and "linear 37.5" (one LINEAR rotation at 37.5 fps).
 */
async function chainAsset(): Promise<Uint8Array> {
  const doc = new Document();
  const { acc, channel } = gltfBuilder(doc);
  const hip = doc.createNode('hip').setTranslation([0.25, 1, 0]);
  const spine = doc.createNode('spine').setTranslation([0, 1, 0]).setRotation([0, 1, 0, 0]);
  const neck = doc.createNode('neck').setTranslation([0, 1, 0]);
  const head = doc.createNode('head').setTranslation([0, 0.5, 0]);
  hip.addChild(spine);
  spine.addChild(neck);
  neck.addChild(head);
  const joints = [hip, spine, neck, head];
  // Strip from y = 1 to y = 4.2 (world), two columns, weights by height. Rest transforms are exact in float32 (so are
  // the inverse bind matrices): the rest pose is the bind pose exactly.
  const rows = 9;
  const positions: number[] = [];
  const jointIds: number[] = [];
  const weights: number[] = [];
  const heights = [1, 2, 3, 3.5];
  for (let i = 0; i < rows; i++) {
    const y = 1 + (3.2 * i) / (rows - 1);
    for (const x of [-0.3, 0.5]) {
      positions.push(x, y, 0.1 * i);
      let j = 0;
      while (j < 3 && y >= heights[j + 1]) j++;
      const next = Math.min(j + 1, 3);
      const s = next === j ? 0 : Math.min(1, Math.max(0, (y - heights[j]) / (heights[next] - heights[j])));
      jointIds.push(j, s > 0 ? next : 0, 0, 0);
      weights.push(1 - s * 0.6, s * 0.6, 0, 0);
    }
  }
  const indices: number[] = [];
  for (let i = 0; i + 1 < rows; i++) indices.push(2 * i, 2 * i + 1, 2 * i + 3, 2 * i, 2 * i + 3, 2 * i + 2);
  const prim = doc
    .createPrimitive()
    .setAttribute('POSITION', acc('VEC3', Float32Array.from(positions)))
    .setAttribute('JOINTS_0', acc('VEC4', Uint16Array.from(jointIds)))
    .setAttribute('WEIGHTS_0', acc('VEC4', Float32Array.from(weights)))
    .setIndices(acc('SCALAR', Uint16Array.from(indices)));
  doc.getRoot().setDefaultScene(doc.createScene('chain').addChild(hip));
  const world = worldMatrices(doc, null, 0);
  const ibm: number[] = [];
  for (const joint of joints) ibm.push(...invertRigid(world.get(joint)!));
  const skin = doc.createSkin('chain').setInverseBindMatrices(acc('MAT4', Float32Array.from(ibm)));
  for (const joint of joints) skin.addJoint(joint);
  doc
    .getRoot()
    .getDefaultScene()!
    .addChild(doc.createNode('strip').setMesh(doc.createMesh('strip').addPrimitive(prim)).setSkin(skin));

  const times375 = Array.from({ length: 46 }, (_, k) => k / 37.5);
  const mixed = doc.createAnimation('mixed');
  const hipKeys = [0, 0.13, 0.5, 0.77, 1.2];
  channel(
    mixed,
    hip,
    'translation',
    'CUBICSPLINE',
    hipKeys,
    hipKeys.flatMap((t, k) => [
      [0.3 * Math.cos(k), 0.2, -0.4 * k],
      [0.2 + 0.3 * t, 1 + 0.2 * Math.sin(3 * t), 0.1 * k],
      [-0.2 * k, 0.5, 0.3],
    ]),
  );
  const hipRotKeys = [0, 0.4, 1.2];
  channel(
    mixed,
    hip,
    'rotation',
    'CUBICSPLINE',
    hipRotKeys,
    hipRotKeys.flatMap((t, k) => [[0.1, -0.2, 0.05 * k, 0.1], axisAngle([0.2, 1, 0.1 * k], 0.9 * t + 0.1 * k), [0.05, 0.3, -0.1, 0]]),
  );
  channel(
    mixed,
    spine,
    'rotation',
    'LINEAR',
    times375,
    times375.map((t) => axisAngle([1, 0.2, 0.3], 1.6 * Math.sin(4 * t))),
  );
  channel(
    mixed,
    neck,
    'rotation',
    'STEP',
    [0.05, 0.3, 0.31, 0.9],
    [0.5, -0.7, 0.9, 0.2].map((angle) => axisAngle([0.3, 0.1, 1], angle)),
  );
  const stepped = doc.createAnimation('stepped');
  channel(
    stepped,
    spine,
    'rotation',
    'STEP',
    [0, 0.21, 0.5, 1.03],
    [0.3, 1.1, -0.6, 0.8].map((angle) => axisAngle([0, 0, 1], angle)),
  );
  channel(
    stepped,
    neck,
    'rotation',
    'STEP',
    [0.1, 0.5, 0.77],
    [-0.4, 0.7, 0.1].map((angle) => axisAngle([1, 0, 0], angle)),
  );
  const linear = doc.createAnimation('linear 37.5');
  channel(
    linear,
    spine,
    'rotation',
    'LINEAR',
    times375,
    times375.map((t) => axisAngle([0.2, 0.1, 1], 2.4 * Math.sin(9 * t))),
  );
  return new WebIO().writeBinary(doc);
}

// ---- tests -------------------------------------------------------------------------------------------------------

for (const [folder, file] of [
  ['CesiumMan', 'CesiumMan.glb'],
  ['Fox', 'Fox.glb'],
] as const) {
  test(`${folder}: imported key times are the file's; the pose at every key equals glTF's (Appendix C) to 1e-9 of the diagonal`, async () => {
    const bytes = readFileSync(dataFile('gltf', folder, file));
    const rig = await importGltf(bytes, file);
    const doc = await new WebIO().readBinary(bytes);
    const diagonal = boundingBox(rig.mesh.positions).diagonal;
    let worst = 0;
    let worstRotation = 0;
    let worstMesh = 0;
    for (const [a, clip] of rig.clips.entries()) {
      const times = timesOf(clip.poses);
      assert.deepEqual(Array.from(times), fileKeyTimes(doc, a), `${clip.name}: key times`);
      for (let k = 0; k < times.length; k++) {
        const e = poseErrors(doc, a, rig, clip.poses, times[k]);
        worst = Math.max(worst, e.heads);
        worstRotation = Math.max(worstRotation, e.rotations);
        // glTF skinning with float32 inverse bind matrices and weights: within float32 round-off of the rig.
        if (k % 5 === 0)
          worstMesh = Math.max(worstMesh, maxDistance(ourSkinned(rig, clip.poses, k), fileSkinned(doc, a, times[k])) / diagonal);
      }
    }
    // CesiumMan's joints scale by float32 round-off of 1 (up to 1.3e-6), which rigid poses leave out: its rotations
    // agree within that; the heads (where the scaled joints go) agree to round-off.
    const scaled = scaleDeviation(doc);
    console.log(
      `${folder}: at the keys, heads off by ${worst.toExponential(2)} of the diagonal, rotations by ${worstRotation.toExponential(2)} (joint scale ${scaled.toExponential(2)}); posed mesh ${worstMesh.toExponential(2)}`,
    );
    assert.ok(worst <= 1e-9, `${folder}: a head at a key is off by ${worst}`);
    assert.ok(worstRotation <= 1e-9 + 2 * scaled, `${folder}: a rotation at a key is off by ${worstRotation}`);
    assert.ok(worstMesh <= 1e-6, `${folder}: the posed mesh at a key is off by ${worstMesh}`);
  });

  test(`${folder}: export writes every clip at its key times; the file poses as the original at every key to 1e-6 of the diagonal`, async () => {
    const bytes = readFileSync(dataFile('gltf', folder, file));
    const rig = await importGltf(bytes, file);
    const doc = await new WebIO().readBinary(bytes);
    const out = await exportGltf({ ...rig }, `${folder}-again.glb`);
    await assertValidGltf(out.bytes, `${folder} re-exported`);
    const again = await new WebIO().readBinary(out.bytes);
    const reimported = await importGltf(out.bytes, `${folder}-again.glb`);
    const diagonal = boundingBox(rig.mesh.positions).diagonal;
    let worst = 0;
    for (const [a, clip] of rig.clips.entries()) {
      const times = timesOf(clip.poses);
      assert.deepEqual(fileKeyTimes(again, a), Array.from(times), `${clip.name}: exported key times`);
      assert.deepEqual(Array.from(timesOf(reimported.clips[a].poses)), Array.from(times), `${clip.name}: re-imported key times`);
      for (let k = 0; k < times.length; k += 3) {
        worst = Math.max(worst, maxDistance(fileSkinned(again, a, times[k]), fileSkinned(doc, a, times[k])) / diagonal);
        worst = Math.max(
          worst,
          maxDistance(ourSkinned(reimported, reimported.clips[a].poses, k), fileSkinned(doc, a, times[k])) / diagonal,
        );
      }
    }
    console.log(`${folder}: exported and re-imported posed mesh at the keys off by ${worst.toExponential(2)} of the diagonal`);
    assert.ok(worst <= 1e-6, `${folder}: off by ${worst}`);
  });
}

test('generated STEP, LINEAR (37.5 fps) and CUBICSPLINE clips: key times are the file’s, every key and every time between keys poses as glTF does', async () => {
  const bytes = await chainAsset();
  await assertValidGltf(bytes, 'chain.glb');
  const rig = await importGltf(bytes, 'chain.glb');
  const doc = await new WebIO().readBinary(bytes);
  assert.deepEqual(
    rig.clips.map((c) => c.name),
    ['mixed', 'stepped', 'linear 37.5'],
  );
  for (const [a, clip] of rig.clips.entries()) {
    const times = timesOf(clip.poses);
    assert.deepEqual(Array.from(times), fileKeyTimes(doc, a), `${clip.name}: key times`);
    let atKeys = 0;
    let between = 0;
    for (let k = 0; k < times.length; k++) {
      atKeys = Math.max(atKeys, poseError(doc, a, rig, clip.poses, times[k]));
      if (k + 1 < times.length)
        for (const s of [0.25, 0.5, 0.9])
          between = Math.max(between, poseError(doc, a, rig, clip.poses, times[k] + s * (times[k + 1] - times[k])));
    }
    console.log(
      `${clip.name}: ${times.length} keys; pose error at keys ${atKeys.toExponential(2)}, between keys ${between.toExponential(2)}`,
    );
    assert.ok(atKeys <= 1e-9, `${clip.name}: off by ${atKeys} at a key`);
    assert.ok(between <= 1e-9, `${clip.name}: off by ${between} between keys`);
  }
});

test('between keys STEP holds the previous key, LINEAR is SLERP of the keys, CUBICSPLINE is not SLERP', async () => {
  const rig = await importGltf(await chainAsset(), 'chain.glb');
  const B = rig.skeleton.parents.length;
  const at = (poses: PoseSequence, frame: number): Float64Array => {
    const out = new Float64Array(9 * B);
    samplePose(poses, frame, out);
    return out;
  };
  const stepped = rig.clips[1].poses;
  for (let k = 0; k + 1 < timesOf(stepped).length; k++) {
    for (const s of [0.01, 0.5, 0.99])
      assert.deepEqual(Array.from(at(stepped, k + s)), Array.from(at(stepped, k)), `stepped, key ${k} + ${s}`);
  }
  // One LINEAR rotation channel: the spine's relative rotation is a fixed rotation times the node's, so its angle
  // from key k grows linearly in time between keys (SLERP).
  const linear = rig.clips[2].poses;
  const spine = 1;
  const angle = (p: Float64Array, q: Float64Array): number => {
    let trace = 0;
    for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) trace += p[9 * spine + 3 * r + c] * q[9 * spine + 3 * r + c];
    return Math.acos(Math.min(1, Math.max(-1, (trace - 1) / 2)));
  };
  for (let k = 0; k + 1 < timesOf(linear).length; k += 7) {
    const whole = angle(at(linear, k), at(linear, k + 1));
    for (const s of [0.3, 0.7]) {
      assert.ok(Math.abs(angle(at(linear, k), at(linear, k + s)) - s * whole) <= 1e-9, `linear key ${k} + ${s}`);
    }
  }
  // The hip's cubic curve between its keys 0 and 0.4 s is not the SLERP of the two key poses.
  const mixed = rig.clips[0].poses;
  const hipFrame = frameAtSeconds(mixed, 0.2);
  const lo = Math.floor(hipFrame);
  const slerped = new Float64Array(9 * B);
  samplePose(
    { kind: 'matrices', boneCount: B, frameCount: 2, rotations: Float64Array.from([...at(mixed, lo), ...at(mixed, lo + 1)]) },
    hipFrame - lo,
    slerped,
  );
  let apart = 0;
  const cubic = at(mixed, hipFrame);
  for (let i = 0; i < 9; i++) apart = Math.max(apart, Math.abs(cubic[i] - slerped[i]));
  assert.ok(apart > 1e-4, `the hip's CUBICSPLINE rotation differs from SLERP between keys (${apart})`);
});

test('37.5 fps: a 30 fps grid (the old import) misses keys; the clip as imported has every key and bakes back at the rate chosen', async () => {
  const bytes = await chainAsset();
  const rig = await importGltf(bytes, 'chain.glb');
  const doc = await new WebIO().readBinary(bytes);
  const poses = rig.clips[2].poses;
  const times = timesOf(poses);
  const diagonal = boundingBox(rig.mesh.positions).diagonal;
  const grid = bakePoseSequence(poses, 30);
  let gridError = 0;
  let keyError = 0;
  times.forEach((t, k) => {
    gridError = Math.max(gridError, maxDistance(ourSkinned(rig, grid, frameAtSeconds(grid, t)), fileSkinned(doc, 2, t)) / diagonal);
    keyError = Math.max(keyError, maxDistance(ourSkinned(rig, poses, k), fileSkinned(doc, 2, t)) / diagonal);
  });
  console.log(
    `37.5 fps clip: a 30 fps grid is off by ${(100 * gridError).toFixed(2)}% of the diagonal at the keys; the keys as kept by ${keyError.toExponential(2)}`,
  );
  assert.ok(gridError > 1e-3, `the 30 fps grid misses the keys (${gridError})`);
  assert.ok(keyError <= 1e-6, `the keys as kept: ${keyError}`);

  for (const [a, rate] of [
    [0, 24],
    [1, 60],
    [2, 12.5],
  ] as const) {
    const clip = rig.clips[a].poses;
    const start = frameSeconds(clip, 0);
    const end = timesOf(clip)[timesOf(clip).length - 1];
    const baked = bakePoseSequence(clip, rate);
    const bakedTimes = timesOf(baked);
    assert.equal(baked.kind === 'matrices' && baked.curves, undefined, 'a baked clip has no curves');
    assert.equal(bakedTimes.length, Math.ceil((end - start) * rate - 1e-6) + 1);
    assert.equal(bakedTimes[0], start);
    assert.equal(bakedTimes[bakedTimes.length - 1], end);
    for (let k = 1; k < bakedTimes.length - 1; k++)
      assert.ok(Math.abs(bakedTimes[k] - bakedTimes[k - 1] - 1 / rate) < 1e-12, `baked at ${rate} fps: step ${k}`);
    let worst = 0;
    for (let k = 0; k < bakedTimes.length; k++) worst = Math.max(worst, poseError(doc, a, rig, baked, bakedTimes[k]));
    assert.ok(worst <= 1e-9, `clip ${a} baked at ${rate} fps: its frames are the clip's poses (${worst})`);
  }
});

test('generated clips export at their key times and interpolation: every key exact to 1e-6 of the diagonal, and between keys too', async () => {
  const bytes = await chainAsset();
  const rig = await importGltf(bytes, 'chain.glb');
  const doc = await new WebIO().readBinary(bytes);
  const out = await exportGltf({ ...rig }, 'chain-again.glb');
  await assertValidGltf(out.bytes, 'chain re-exported');
  const again = await new WebIO().readBinary(out.bytes);
  const diagonal = boundingBox(rig.mesh.positions).diagonal;
  for (const [a, clip] of rig.clips.entries()) {
    const times = timesOf(clip.poses);
    assert.deepEqual(fileKeyTimes(again, a), Array.from(times), `${clip.name}: key times written`);
    let worst = 0;
    for (const t of times) worst = Math.max(worst, maxDistance(fileSkinned(again, a, t), fileSkinned(doc, a, t)) / diagonal);
    assert.ok(worst <= 1e-6, `${clip.name}: exported pose off by ${worst} at a key`);
  }
  const interpolations = (a: number): string[] =>
    again
      .getRoot()
      .listAnimations()
      [a].listChannels()
      .filter((c) => c.getTargetPath() === 'rotation')
      .map((c) => `${c.getTargetNode()!.getName()} ${c.getSampler()!.getInterpolation()}`);
  // Joints moved by their own node's curves keep them; the head, which nothing moves, is one LINEAR constant.
  assert.deepEqual(interpolations(0), ['hip CUBICSPLINE', 'spine LINEAR', 'neck STEP', 'head LINEAR']);
  assert.deepEqual(interpolations(1), ['hip LINEAR', 'spine STEP', 'neck STEP', 'head LINEAR']);
  assert.deepEqual(interpolations(2), ['hip LINEAR', 'spine LINEAR', 'neck LINEAR', 'head LINEAR']);
  // Every clip plays between keys exactly as the original.
  for (const a of [0, 1, 2]) {
    const times = timesOf(rig.clips[a].poses);
    let worst = 0;
    for (let k = 0; k + 1 < times.length; k++) {
      const t = times[k] + 0.37 * (times[k + 1] - times[k]);
      worst = Math.max(worst, maxDistance(fileSkinned(again, a, t), fileSkinned(doc, a, t)) / diagonal);
    }
    assert.ok(worst <= 1e-6, `${rig.clips[a].name}: between keys off by ${worst}`);
  }
  assert.ok(!out.warnings.some((w) => w.startsWith('clip ')), out.warnings.join('\n'));
});

test('a pose file without key times plays at 30 fps as before', () => {
  const rotations = new Float64Array(9 * 3);
  for (let f = 0; f < 3; f++) rotations.set([1, 0, 0, 0, 1, 0, 0, 0, 1], 9 * f);
  const poses: PoseSequence = { kind: 'matrices', boneCount: 1, frameCount: 3, rotations };
  assert.equal(UNTIMED_FRAMES_PER_SECOND, 30);
  assert.equal(frameSeconds(poses, 2), 2 / 30);
  assert.equal(frameAtSeconds(poses, 1.5 / 30), 1.5);
  const baked = bakePoseSequence(poses, 60);
  assert.deepEqual(Array.from(timesOf(baked)), [0, 1 / 60, 2 / 60, 3 / 60, 4 / 60]);
});

test('Bake clip is one undoable edit: the baked clip replaces the clip, without source, and undo brings the keys back', async () => {
  // The Fox as the app opens it (a whole document: every edit is checked against it), showing its Walk clip.
  const opened = await gltfIntoDocument(
    [{ name: 'Fox.glb', bytes: new Uint8Array(readFileSync(dataFile('gltf', 'Fox', 'Fox.glb'))) }],
    inProcessIo,
  );
  const clips = opened.clips!;
  const walk = clips[1];
  assert.equal(walk.source, 1, 'the clip is animation 1 of the file');
  const doc: SceneDocument = { ...opened, poses: walk.poses, posesFile: walk.name };
  const history = new UndoHistory();
  const store = new SceneStore(doc, history);
  const clip = bakeableClip(store.doc);
  assert.ok(clip, 'the scene has a bakeable clip');
  assert.equal(clip.keyCount, 18);
  assert.equal(clip.framesAt(60), Math.ceil((clip.end - clip.start) * 60 - 1e-6) + 1);
  const { label, fields } = bakeClipEdit(store.doc, 60);
  store.edit(label, fields);
  assert.deepEqual(history.undoLabels(), ['Bake Walk at 60 fps']);
  const baked = store.doc.clips![1];
  assert.equal(baked.name, 'Walk');
  assert.equal('source' in baked, false);
  assert.equal(baked.from, 1, 'the bake remembers the animation it was made from');
  assert.equal(store.doc.poses, baked.poses);
  assert.equal(timesOf(baked.poses).length, clip.framesAt(60));
  assert.equal(store.doc.clips?.[0], clips[0], 'the other clips are untouched');
  assert.equal(history.undo(), true);
  assert.equal(store.doc.poses, walk.poses);
  assert.equal(store.doc.clips, clips);
  assert.equal(store.doc.clips?.[1].source, 1);
  assert.equal(history.redo(), true);
  assert.equal(store.doc.poses, baked.poses);
  assert.throws(() => bakeClipEdit({ ...doc, poses: null }, 30), /no clip to bake/);
  assert.throws(() => bakeClipEdit(doc, 0), /rate must be a positive number/);
});

test('a project keeps its clips’ key times (bit for bit) and refuses key times that do not increase', async () => {
  const rig = await importGltf(readFileSync(dataFile('gltf', 'Fox', 'Fox.glb')), 'Fox.glb');
  const V = rig.mesh.positions.length / 3;
  const B = rig.skeleton.parents.length;
  const baked = { name: 'Run', poses: bakePoseSequence(rig.clips[2].poses, 24) };
  const clips = [rig.clips[0], rig.clips[1], baked];
  const contents = {
    formatVersion: PROJECT_FORMAT_VERSION,
    scene: {
      name: 'Fox.glb',
      meshFiles: ['Fox.glb'],
      mesh: rig.mesh,
      skeletonFile: 'Fox.glb',
      skeleton: rig.skeleton,
      boneNames: rig.boneNames,
      weights: rig.weights,
      weightsSource: 'Fox.glb',
      poses: clips[1].poses,
      posesFile: 'Walk',
      clips,
      handles: null,
      handlesFile: null,
      boneScales: null,
      warnings: [],
      examples: [],
    },
    settings: defaultProjectSettings(V, B),
  };
  const bytes = await writeProjectFile(contents, 'fox.rig.glb');
  const read = readProjectFile(bytes, 'fox.rig.glb');
  read.scene.clips.forEach((clip, c) => {
    const expected = timesOf(clips[c].poses);
    assert.deepEqual(
      Buffer.from(timesOf(clip.poses).buffer),
      Buffer.from(expected.buffer, expected.byteOffset, expected.byteLength),
      clip.name,
    );
  });
  assert.equal(read.scene.poses, read.scene.clips[1].poses);

  const walk = timesOf(clips[1].poses);
  const swapped = walk.slice();
  [swapped[3], swapped[4]] = [swapped[4], swapped[3]];
  const bad = await writeProjectFile(
    {
      ...contents,
      scene: { ...contents.scene, clips: [{ name: 'Walk', poses: { ...clips[1].poses, times: swapped } as PoseSequence }], poses: null },
    },
    'bad.rig.glb',
  );
  assert.throws(
    () => readProjectFile(bad, 'bad.rig.glb'),
    (error: unknown) => {
      assert.ok(error instanceof FormatError, 'the refusal is a FormatError');
      assert.match(error.message, /bad\.rig\.glb.*clips\[0\]\.poses\.times.*time 4 \(.*\) does not come after time 3/);
      return true;
    },
  );
});

test('a project keeps a clip’s keyframe curves and its animation index: reopened, poses between keys still follow the file; damaged curves are refused', async () => {
  const bytes = await chainAsset();
  const rig = await importGltf(bytes, 'chain.glb');
  const doc = await new WebIO().readBinary(bytes);
  const V = rig.mesh.positions.length / 3;
  const B = rig.skeleton.parents.length;
  const scene = {
    name: 'chain.glb',
    meshFiles: ['chain.glb'],
    mesh: rig.mesh,
    skeletonFile: 'chain.glb',
    skeleton: rig.skeleton,
    boneNames: rig.boneNames,
    weights: rig.weights,
    weightsSource: 'chain.glb',
    poses: null,
    posesFile: null,
    clips: rig.clips,
    handles: null,
    handlesFile: null,
    boneScales: null,
    warnings: [],
    examples: [],
  };
  const contents = { formatVersion: PROJECT_FORMAT_VERSION, scene, settings: defaultProjectSettings(V, B) };
  const read = readProjectFile(await writeProjectFile(contents, 'chain.rig.glb'), 'chain.rig.glb');
  for (const [a, clip] of read.scene.clips.entries()) {
    assert.equal(clip.source, a, `${clip.name}: the animation it came from`);
    assert.ok(clip.poses.kind === 'matrices' && clip.poses.curves, `${clip.name}: curves kept`);
    const times = timesOf(clip.poses);
    let worst = 0;
    for (let k = 0; k + 1 < times.length; k++)
      for (const s of [0.25, 0.5, 0.9])
        worst = Math.max(worst, poseError(doc, a, rig, clip.poses, times[k] + s * (times[k + 1] - times[k])));
    assert.ok(worst <= 1e-9, `${clip.name}: reopened, off by ${worst} between keys`);
  }
  // A channel pointing past the curves' nodes is refused, naming the place.
  const curves = rig.clips[0].poses.kind === 'matrices' ? rig.clips[0].poses.curves! : null;
  assert.ok(curves, 'the imported clip keeps its curves');
  const broken = { ...curves, channels: [{ ...curves.channels[0], node: curves.parents.length }] };
  const badScene = { ...scene, clips: [{ ...rig.clips[0], poses: { ...rig.clips[0].poses, curves: broken } as PoseSequence }] };
  const bad = await writeProjectFile({ ...contents, scene: badScene }, 'bad.rig.glb');
  assert.throws(
    () => readProjectFile(bad, 'bad.rig.glb'),
    (error: unknown) => {
      assert.ok(error instanceof FormatError, 'the refusal is a FormatError');
      assert.match(error.message, /bad\.rig\.glb.*clips\[0\]\.poses\.curves\.channels\[0\]\.node/);
      return true;
    },
  );
  // A rotation key or rest rotation of length 0 has no direction: refused, naming the key or node. The file's own
  // quaternions are kept as they are (playback normalises them), so a long one reads back with its bits.
  const rotationChannel = curves.channels.findIndex((c) => c.path === 'rotation');
  assert.ok(rotationChannel >= 0, 'the chain clip keys rotations');
  const withCurves = async (changed: typeof curves, name: string) =>
    readProjectFile(
      await writeProjectFile(
        {
          ...contents,
          scene: { ...scene, clips: [{ ...rig.clips[0], poses: { ...rig.clips[0].poses, curves: changed } as PoseSequence }] },
        },
        name,
      ),
      name,
    );
  const channel = curves.channels[rotationChannel];
  const stride = channel.interpolation === 'CUBICSPLINE' ? 12 : 4;
  const first = channel.interpolation === 'CUBICSPLINE' ? 4 : 0;
  const zeroKey = channel.values.slice();
  zeroKey.fill(0, stride + first, stride + first + 4);
  const zeroChannels = curves.channels.map((c, k) => (k === rotationChannel ? { ...c, values: zeroKey } : c));
  await assert.rejects(
    withCurves({ ...curves, channels: zeroChannels }, 'zero.rig.glb'),
    new RegExp(
      `zero\\.rig\\.glb: RIGWRIGHT_project\\.scene\\.clips\\[0\\]\\.poses\\.curves\\.channels\\[${rotationChannel}\\]\\.values: key 1: a quaternion of length 0\\.00 is not a rotation$`,
    ),
  );
  const zeroRest = curves.restRotation.slice();
  zeroRest.fill(0, 4, 8);
  await assert.rejects(
    withCurves({ ...curves, restRotation: zeroRest }, 'rest.rig.glb'),
    /rest\.rig\.glb: RIGWRIGHT_project\.scene\.clips\[0\]\.poses\.curves\.restRotation: node 1: a quaternion of length 0\.00 is not a rotation$/,
  );
  const longKey = channel.values.slice();
  for (let c = 0; c < 4; c++) longKey[first + c] *= 2;
  const long = await withCurves(
    { ...curves, channels: curves.channels.map((c, k) => (k === rotationChannel ? { ...c, values: longKey } : c)) },
    'long.rig.glb',
  );
  const kept = long.scene.clips[0].poses.kind === 'matrices' ? long.scene.clips[0].poses.curves!.channels[rotationChannel].values : null;
  assert.deepEqual(kept && Array.from(kept), Array.from(longKey), 'a key of length 2 is kept as the file has it');
});
