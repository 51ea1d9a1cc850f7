/**
 * Deformation references beyond plain LBS/DQS: forward kinematics with bone scales, the dual quaternion texture
 * layout, per-face skinning with Poisson stitching, weight-blended skinning, the one-ring area change behind the
 * heat map, and the twist test scene. Expectations are hand-derived or identities (rest pose, one rigid motion).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { forwardKinematics, posedJointPositions } from '../../workers/rig/forward-kinematics.ts';
import { scaledForwardKinematics } from '../../workers/rig/scaled-forward-kinematics.ts';
import { splitNonRigidTransforms } from '../../workers/skinning/split-non-rigid-transform.ts';
import {
  DUAL_QUATERNION_TEXELS_PER_BONE,
  dualQuaternionTextureSize,
  packDualQuaternions,
} from '../../workers/skinning/joint-texture-layout.ts';
import { influencesFromWeights } from '../../workers/skinning/influences.ts';
import { linearBlendSkinning } from '../../workers/skinning/linear-blend-skinning.ts';
import { dualQuaternionSkinning } from '../../workers/skinning/dual-quaternion-skinning.ts';
import { weightBlendedSkinning } from '../../workers/skinning/weight-blended-skinning.ts';
import { perFaceFixedVertices, perFaceSkinning, perFaceSkinningSetup } from '../../workers/skinning/per-face-skinning.ts';
import { dualQuatsFromRigidMatrices } from '../../workers/math/dual-quaternion.ts';
import { oneRingAreaChange, oneRingAreas } from '../../workers/mesh/one-ring-area-change.ts';
import { buildTwistDemo, TWIST_LENGTH, TWIST_RADIUS, twistDegreesAt } from '../../workers/demo/twist-demo.ts';
import { samplePose } from '../../workers/rig/pose-sequence.ts';
import { readObj } from '../../workers/formats/obj.ts';
import { readTgf } from '../../workers/formats/tgf.ts';
import { readDmat } from '../../workers/formats/dmat.ts';
import { handlesFromDmat } from '../../workers/formats/weights-file.ts';
import { boneDistanceWeights } from '../../workers/weights/bone-distance-weights.ts';
import { dataFile } from './shared-data.ts';

function close(actual: ArrayLike<number>, expected: ArrayLike<number>, tolerance: number, message?: string): void {
  assert.equal(actual.length, expected.length, message);
  let worst = 0;
  for (let i = 0; i < actual.length; i++) worst = Math.max(worst, Math.abs(actual[i] - expected[i]));
  assert.ok(worst <= tolerance, `${message ?? ''} off by ${worst}`);
}

/** A chain along x: joints at x = 0, 1, 2, 3; bone b from joint b to b + 1, listed out of order. */
const chain = buildSkeleton(
  { joints: Float64Array.from([0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0]), bones: Uint32Array.from([1, 2, 0, 1, 2, 3]) },
  'chain',
);
// Bones in file order: 0 = joints 1→2, 1 = joints 0→1 (root), 2 = joints 2→3.

function rotationZ(degrees: number): number[] {
  const a = (degrees * Math.PI) / 180;
  return [Math.cos(a), -Math.sin(a), 0, Math.sin(a), Math.cos(a), 0, 0, 0, 1];
}

test('scaled forward kinematics: all ones is forward kinematics; a scale moves the children without scaling them', () => {
  const rotations = Float64Array.from([...rotationZ(30), ...rotationZ(90), ...rotationZ(-45)]);
  const rigid = new Float64Array(36);
  forwardKinematics(chain, rotations, rigid);
  const ones = new Float64Array(36);
  scaledForwardKinematics(
    chain,
    rotations,
    Float64Array.from({ length: 9 }, () => 1),
    ones,
  );
  assert.deepEqual(ones, rigid);

  // The root (bone 1, joints 0→1) doubles along x: its end joint moves from 1 to 2 before rotating.
  const scales = Float64Array.from([1, 1, 1, 2, 1, 1, 1, 1, 1]);
  const scaled = new Float64Array(36);
  scaledForwardKinematics(chain, rotations, scales, scaled);
  const joints = new Float64Array(12);
  posedJointPositions(chain, scaled, joints);
  // Root turned 90° about z at the origin: joint 1 at (0, 2, 0). Bone 0 turns a further 30° (120° in all) and
  // keeps length 1; bone 2 a further −45° (75° in all).
  close(joints.subarray(3, 6), [0, 2, 0], 1e-12, 'joint 1');
  const j2 = [Math.cos((120 * Math.PI) / 180), 2 + Math.sin((120 * Math.PI) / 180), 0];
  close(joints.subarray(6, 9), j2, 1e-12, 'joint 2');
  close(joints.subarray(9, 12), [j2[0] + Math.cos((75 * Math.PI) / 180), j2[1] + Math.sin((75 * Math.PI) / 180), 0], 1e-12, 'joint 3');
  // Children keep rigid linear parts: the same rotation as without scales.
  for (const b of [0, 2])
    close(
      Array.from({ length: 3 }, (_, r) => [0, 1, 2].map((c) => scaled[12 * b + 4 * r + c])).flat(),
      Array.from({ length: 3 }, (_, r) => [0, 1, 2].map((c) => rigid[12 * b + 4 * r + c])).flat(),
      1e-15,
      `bone ${b}`,
    );

  // The two-phase split of Kavan 2008 Sec. 4.2 recovers exactly the root's own scale about its start joint.
  const dq = new Float64Array(24);
  const phase = new Float64Array(36);
  splitNonRigidTransforms(chain, scaled, dq, phase);
  close(phase.subarray(12, 24), [2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0], 1e-12, 'root scale');
  close(phase.subarray(0, 12), [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0], 1e-12, 'child unscaled');

  // Start-joint translations with a scaled root: bone 0 (child of the root) slides by t = (0.5, 0, 0) in the
  // root's rest axes, turned by the root's 90° but not stretched by its scale: joint 1 stays, bone 0 starts at
  // (0, 2.5, 0). All ones with translations is forwardKinematics with translations.
  const translations = Float64Array.from([0.5, 0, 0, 0, 0, 0, 0, 0, 0]);
  const slid = new Float64Array(36);
  scaledForwardKinematics(chain, rotations, scales, slid, translations);
  close(
    [0, 1, 2].map((r) => slid[4 * r] * 1 + slid[4 * r + 3]),
    [0, 2.5, 0],
    1e-12,
    'bone 0 start',
  );
  const rigidSlid = new Float64Array(36);
  forwardKinematics(chain, rotations, rigidSlid, translations);
  scaledForwardKinematics(
    chain,
    rotations,
    Float64Array.from({ length: 9 }, () => 1),
    ones,
    translations,
  );
  assert.deepEqual(ones, rigidSlid);
});

test('the dual quaternion texture holds real, dual and three scale rows per bone', () => {
  assert.equal(DUAL_QUATERNION_TEXELS_PER_BONE, 5);
  assert.deepEqual(dualQuaternionTextureSize(1024), { width: 1024, height: 5 });
  const dq = Float64Array.from({ length: 16 }, (_, i) => i + 1);
  const scales = Float64Array.from({ length: 24 }, (_, i) => 100 + i);
  const { width, height } = dualQuaternionTextureSize(2);
  const out = new Float32Array(width * height * 4);
  packDualQuaternions(dq, scales, 2, out);
  assert.deepEqual(Array.from(out.subarray(20, 40)), [9, 10, 11, 12, 13, 14, 15, 16, ...Array.from({ length: 12 }, (_, i) => 112 + i)]);
  packDualQuaternions(dq, null, 2, out);
  assert.deepEqual(Array.from(out.subarray(8, 20)), [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0]);
});

/** The twist tube with its weights, influences and transforms at a frame. */
function twistAt(frame: number) {
  const demo = buildTwistDemo();
  const skeleton = buildSkeleton(demo.skeleton, 'twist');
  const influences = influencesFromWeights(demo.weights, 4);
  const rotations = new Float64Array(18);
  samplePose(demo.poses, frame, rotations);
  const transforms = new Float64Array(24);
  forwardKinematics(skeleton, rotations, transforms);
  const dq = new Float64Array(16);
  dualQuatsFromRigidMatrices(transforms, dq);
  return { demo, skeleton, influences, transforms, dq };
}

function middleRadius(positions: Float64Array): number {
  let sum = 0,
    count = 0;
  for (let i = 0; i < positions.length; i += 3) {
    if (Math.abs(positions[i] - TWIST_LENGTH / 2) > 1e-9) continue;
    if (positions[i + 1] === 0 && positions[i + 2] === 0) continue;
    sum += Math.hypot(positions[i + 1], positions[i + 2]);
    count++;
  }
  return sum / count;
}

test('twist test: LBS collapses the middle towards 180°, DQS keeps its radius', () => {
  assert.equal(twistDegreesAt(60), 180);
  assert.equal(twistDegreesAt(69), 181);
  const { demo, influences, transforms, dq } = twistAt(59);
  const rest = middleRadius(demo.mesh.positions);
  assert.ok(rest > TWIST_RADIUS && rest < 1.1 * TWIST_RADIUS, 'the middle radius at rest is between TWIST_RADIUS and 1.1 × TWIST_RADIUS');
  const lbs = new Float64Array(demo.mesh.positions.length);
  const dqs = new Float64Array(demo.mesh.positions.length);
  linearBlendSkinning(demo.mesh.positions, influences, transforms, lbs);
  dualQuaternionSkinning(demo.mesh.positions, influences, dq, dqs);
  // Half-way weights blend identity and a 177° turn: LBS scales every radius by |cos 88.5°|, DQS keeps it.
  assert.ok(
    Math.abs(middleRadius(lbs) - Math.abs(Math.cos((88.5 * Math.PI) / 180)) * rest) < 1e-9,
    'LBS scales the middle radius by |cos 88.5°| (within 1e-9)',
  );
  assert.ok(Math.abs(middleRadius(dqs) - rest) < 1e-9, 'DQS keeps the middle radius (within 1e-9)');
});

test('weight-blended skinning: β = 0 is LBS, β = 1 is DQS, β = ½ the midpoint', () => {
  const { demo, influences, transforms, dq } = twistAt(40);
  const n = demo.mesh.positions.length;
  const lbs = new Float64Array(n),
    dqs = new Float64Array(n),
    out = new Float64Array(n);
  linearBlendSkinning(demo.mesh.positions, influences, transforms, lbs);
  dualQuaternionSkinning(demo.mesh.positions, influences, dq, dqs);
  weightBlendedSkinning(demo.mesh.positions, influences, transforms, dq, new Float32Array(n / 3), out);
  assert.deepEqual(out, lbs);
  weightBlendedSkinning(demo.mesh.positions, influences, transforms, dq, new Float32Array(n / 3).fill(1), out);
  close(out, dqs, 1e-15);
  weightBlendedSkinning(demo.mesh.positions, influences, transforms, dq, new Float32Array(n / 3).fill(0.5), out);
  close(
    out,
    lbs.map((x, i) => (x + dqs[i]) / 2),
    1e-15,
  );
});

test('one-ring area change: log2 of the area ratio per vertex', () => {
  const { demo } = twistAt(0);
  const rest = oneRingAreas(demo.mesh.positions, demo.mesh.triangles, new Float64Array(demo.mesh.positions.length / 3));
  const doubled = demo.mesh.positions.map((x) => 2 * x);
  const out = new Float32Array(rest.length);
  oneRingAreaChange(rest, doubled, demo.mesh.triangles, out, new Float64Array(rest.length));
  close(out, new Float32Array(rest.length).fill(2), 1e-6);
});

/** The context-aware body with its handles and 4 bone-distance influences, as the per-face tests use it. */
function loadBody() {
  const dir = ['context-aware'];
  const { mesh } = readObj(readFileSync(dataFile(...dir, 'reference.obj'), 'utf8'), 'reference.obj');
  const skeleton = buildSkeleton(readTgf(readFileSync(dataFile(...dir, 'skeleton.tgf'), 'utf8'), 'skeleton.tgf'), 'skeleton.tgf');
  const boneCount = skeleton.parents.length;
  const n = mesh.positions.length / 3;
  const handles = handlesFromDmat(
    readDmat(new Uint8Array(readFileSync(dataFile(...dir, 'handles.dmat'))), 'handles.dmat'),
    n,
    boneCount,
    'handles.dmat',
  );
  const influences = influencesFromWeights(boneDistanceWeights(mesh.positions, skeleton), 4);
  return { mesh, skeleton, boneCount, n, handles, influences };
}

test('per-face skinning on the body: the rest pose returns the rest mesh, one rigid motion is reproduced', () => {
  const { mesh, skeleton, boneCount, n, handles, influences } = loadBody();
  const fixed = perFaceFixedVertices(skeleton.parents, influences, handles);
  // The body's three roots all start at the pelvis joint; their handles hold the mesh.
  assert.ok(
    fixed.some((b) => b >= 0),
    'some bone has fixed vertices',
  );
  for (let v = 0; v < n; v++) if (fixed[v] >= 0) assert.equal(skeleton.parents[fixed[v]], -1);
  const setup = perFaceSkinningSetup(mesh.positions, mesh.triangles, influences, boneCount, fixed);
  const out = new Float64Array(mesh.positions.length);
  const transforms = new Float64Array(12 * boneCount);
  const rotations = new Float64Array(9 * boneCount);
  for (let b = 0; b < boneCount; b++) rotations.set([1, 0, 0, 0, 1, 0, 0, 0, 1], 9 * b);
  forwardKinematics(skeleton, rotations, transforms);
  perFaceSkinning(setup, transforms, out);
  close(out, mesh.positions, 1e-10, 'rest');

  // Every root turned by the same rotation about the shared root joint, children unchanged: one rigid motion.
  const turn = [0.36, -0.48, 0.8, 0.8, 0.6, 0, -0.48, 0.64, 0.6];
  for (let b = 0; b < boneCount; b++) if (skeleton.parents[b] < 0) rotations.set(turn, 9 * b);
  forwardKinematics(skeleton, rotations, transforms);
  perFaceSkinning(setup, transforms, out);
  const root = skeleton.order[0];
  const expected = new Float64Array(mesh.positions.length);
  for (let v = 0; v < n; v++) {
    for (let r = 0; r < 3; r++) {
      const o = 12 * root + 4 * r;
      expected[3 * v + r] =
        transforms[o] * mesh.positions[3 * v] +
        transforms[o + 1] * mesh.positions[3 * v + 1] +
        transforms[o + 2] * mesh.positions[3 * v + 2] +
        transforms[o + 3];
    }
  }
  close(out, expected, 1e-8, 'rigid motion');
});

test('per-face skinning with bone scales: the same scaled motion everywhere is reproduced; each part follows its own bone', () => {
  // The body with every bone scaled by one S about its start joint and the roots turned by one rotation Q: scaled
  // forward kinematics then gives every bone the same affine map x ↦ Q S (x − r) + r about the shared root joint r,
  // so every face's target gradient is Q S and the stitched mesh must be exactly that map.
  const { mesh, skeleton, boneCount, n, handles, influences } = loadBody();
  const setup = perFaceSkinningSetup(
    mesh.positions,
    mesh.triangles,
    influences,
    boneCount,
    perFaceFixedVertices(skeleton.parents, influences, handles),
  );
  const rotations = new Float64Array(9 * boneCount);
  const turn = [0.36, -0.48, 0.8, 0.8, 0.6, 0, -0.48, 0.64, 0.6];
  for (let b = 0; b < boneCount; b++) rotations.set(skeleton.parents[b] < 0 ? turn : [1, 0, 0, 0, 1, 0, 0, 0, 1], 9 * b);
  const scale = [1.3, 0.7, 1.1];
  const scales = new Float64Array(3 * boneCount);
  for (let b = 0; b < boneCount; b++) scales.set(scale, 3 * b);
  const transforms = new Float64Array(12 * boneCount);
  scaledForwardKinematics(skeleton, rotations, scales, transforms);
  const out = new Float64Array(mesh.positions.length);
  perFaceSkinning(setup, transforms, out, undefined, scales);
  const r = 3 * skeleton.bones[2 * skeleton.order[0]];
  const [rx, ry, rz] = [skeleton.joints[r], skeleton.joints[r + 1], skeleton.joints[r + 2]];
  const expected = new Float64Array(mesh.positions.length);
  for (let v = 0; v < n; v++) {
    const d = [
      scale[0] * (mesh.positions[3 * v] - rx),
      scale[1] * (mesh.positions[3 * v + 1] - ry),
      scale[2] * (mesh.positions[3 * v + 2] - rz),
    ];
    for (let row = 0; row < 3; row++)
      expected[3 * v + row] = turn[3 * row] * d[0] + turn[3 * row + 1] * d[1] + turn[3 * row + 2] * d[2] + [rx, ry, rz][row];
  }
  close(out, expected, 1e-8, 'one scaled motion');
  // Without scales the same call is the rigid result.
  const rigid = new Float64Array(mesh.positions.length);
  const rigidTransforms = new Float64Array(12 * boneCount);
  forwardKinematics(skeleton, rotations, rigidTransforms);
  perFaceSkinning(setup, rigidTransforms, rigid);
  const ones = new Float64Array(3 * boneCount).fill(1);
  perFaceSkinning(setup, rigidTransforms, out, undefined, ones);
  close(out, rigid, 0, 'all scales 1');

  // Two separate cubes, each its own root bone with every weight on it: each cube takes its own bone's scaled
  // motion, so a bone's scale reaches exactly the faces it weights.
  const cube = [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1];
  const cubeFaces = [0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4, 1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7];
  const positions = Float64Array.from([...cube, ...cube.map((x, i) => (i % 3 === 0 ? x + 3 : x))]);
  const triangles = Uint32Array.from([...cubeFaces, ...cubeFaces.map((v) => v + 8)]);
  const two = {
    vertexCount: 16,
    stride: 1,
    bones: Uint32Array.from({ length: 16 }, (_, v) => (v < 8 ? 0 : 1)),
    weights: new Float32Array(16).fill(1),
  };
  const twoFixed = Int32Array.from({ length: 16 }, (_, v) => (v === 0 || v === 6 ? 0 : v === 8 || v === 14 ? 1 : -1));
  const twoSetup = perFaceSkinningSetup(positions, triangles, two, 2, twoFixed);
  const a = 0.6;
  const q = [Math.cos(a), -Math.sin(a), 0, Math.sin(a), Math.cos(a), 0, 0, 0, 1];
  const boneScales = Float64Array.from([2, 1, 0.5, 0.8, 1.5, 1]);
  const offsets = [
    [0.5, -1, 2],
    [-2, 0.25, 1],
  ];
  const twoTransforms = new Float64Array(24);
  for (let b = 0; b < 2; b++) {
    const rot = b === 0 ? q : [1, 0, 0, 0, 1, 0, 0, 0, 1];
    for (let row = 0; row < 3; row++) {
      for (let c = 0; c < 3; c++) twoTransforms[12 * b + 4 * row + c] = rot[3 * row + c] * boneScales[3 * b + c];
      twoTransforms[12 * b + 4 * row + 3] = offsets[b][row];
    }
  }
  const twoOut = new Float64Array(48);
  perFaceSkinning(twoSetup, twoTransforms, twoOut, undefined, boneScales);
  const twoExpected = new Float64Array(48);
  for (let v = 0; v < 16; v++) {
    const o = 12 * (v < 8 ? 0 : 1);
    for (let row = 0; row < 3; row++) {
      twoExpected[3 * v + row] =
        twoTransforms[o + 4 * row] * positions[3 * v] +
        twoTransforms[o + 4 * row + 1] * positions[3 * v + 1] +
        twoTransforms[o + 4 * row + 2] * positions[3 * v + 2] +
        twoTransforms[o + 4 * row + 3];
    }
  }
  close(twoOut, twoExpected, 1e-10, 'two cubes');
});
