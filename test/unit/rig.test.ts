/**
 * Quaternions, skeleton building, forward kinematics and pose sampling, checked against independent
 * formulas (Rodrigues, 4×4 homogeneous composition) and the ETH hand / body data in ../shared/data.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { matrixToQuat, quatMultiply, quatNormalize, quatRotateVector, quatSlerp, quatToMatrix } from '../../workers/math/quaternion.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import type { Skeleton } from '../../workers/rig/skeleton.ts';
import { forwardKinematics, posedJointPositions } from '../../workers/rig/forward-kinematics.ts';
import { identityPose, poseDuration, samplePose, samplePoseTranslations } from '../../workers/rig/pose-sequence.ts';
import type { PoseSequence } from '../../workers/rig/pose-sequence.ts';
import { FormatError } from '../../workers/formats/format-error.ts';
import { readTgf } from '../../workers/formats/tgf.ts';
import { readDmat } from '../../workers/formats/dmat.ts';
import { poseSequenceFromDmat } from '../../workers/formats/pose-file.ts';
import { seededRandom } from './seeded-random.ts';
import { dataFile } from './shared-data.ts';

const readText = (relative: string) => readFileSync(dataFile(relative), 'utf8');
const readBytes = (relative: string) => new Uint8Array(readFileSync(dataFile(relative)));

function loadSkeleton(relative: string): Skeleton {
  const name = path.basename(relative);
  return buildSkeleton(readTgf(readText(relative), name), name);
}

function loadPoses(relative: string, boneCount: number): PoseSequence {
  const name = path.basename(relative);
  return poseSequenceFromDmat(readDmat(readBytes(relative), name), boneCount, name);
}

/** Rodrigues: R = I + sin θ K + (1 − cos θ) K², K the cross-product matrix of the unit axis. Row-major. */
function rodrigues(axis: [number, number, number], angle: number): number[] {
  const n = Math.hypot(...axis);
  const [x, y, z] = axis.map((a) => a / n);
  const K = [0, -z, y, z, 0, -x, -y, x, 0];
  const R: number[] = [];
  for (let r = 0; r < 3; r++) {
    for (let c = 0; c < 3; c++) {
      let k2 = 0;
      for (let m = 0; m < 3; m++) k2 += K[3 * r + m] * K[3 * m + c];
      R.push((r === c ? 1 : 0) + Math.sin(angle) * K[3 * r + c] + (1 - Math.cos(angle)) * k2);
    }
  }
  return R;
}

function axisAngleQuat(axis: [number, number, number], angle: number): number[] {
  const n = Math.hypot(...axis);
  const s = Math.sin(angle / 2) / n;
  return [axis[0] * s, axis[1] * s, axis[2] * s, Math.cos(angle / 2)];
}

function matMul3(a: ArrayLike<number>, b: ArrayLike<number>): number[] {
  const out: number[] = [];
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) out.push(a[3 * r] * b[c] + a[3 * r + 1] * b[3 + c] + a[3 * r + 2] * b[6 + c]);
  return out;
}

function assertClose(actual: ArrayLike<number>, expected: ArrayLike<number>, tolerance: number, what: string): void {
  assert.equal(actual.length, expected.length, `${what}: length`);
  for (let i = 0; i < expected.length; i++) {
    assert.ok(Math.abs(actual[i] - expected[i]) <= tolerance, `${what}[${i}]: ${actual[i]} vs ${expected[i]} (tolerance ${tolerance})`);
  }
}

/** Rotation angle between two unit quaternions, in [0, π]. */
function angleBetween(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const dot = Math.abs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]);
  return 2 * Math.acos(Math.min(1, dot));
}

const AXES: [number, number, number][] = [
  [1, 0, 0],
  [0, 1, 0],
  [0, 0, 1],
  [1, 2, 3],
  [-0.3, 0.1, 0.9],
  [1, -1, 0.0001],
];
const ANGLES = [0, 1e-9, 0.3, 1.2, Math.PI / 2, 2.5, Math.PI - 1e-7, Math.PI, -0.8];

test('quatToMatrix agrees with the Rodrigues formula', () => {
  const m = new Float64Array(9);
  for (const axis of AXES) {
    for (const angle of ANGLES) {
      quatToMatrix(axisAngleQuat(axis, angle), 0, m, 0);
      assertClose(m, rodrigues(axis, angle), 1e-12, `axis ${axis.join(',')} angle ${angle}`);
    }
  }
});

test('matrixToQuat inverts quatToMatrix up to sign, and matrices round-trip, including 180° turns', () => {
  const m = new Float64Array(9);
  const q = new Float64Array(4);
  const back = new Float64Array(9);
  for (const axis of AXES) {
    for (const angle of ANGLES) {
      const R = rodrigues(axis, angle);
      matrixToQuat(R, 0, q, 0);
      assert.ok(Math.abs(Math.hypot(...q) - 1) < 1e-14, 'unit length');
      quatToMatrix(q, 0, back, 0);
      assertClose(back, R, 1e-12, `matrix round trip axis ${axis.join(',')} angle ${angle}`);
      const expected = axisAngleQuat(axis, angle);
      const sign = Math.sign(q[0] * expected[0] + q[1] * expected[1] + q[2] * expected[2] + q[3] * expected[3]) || 1;
      assertClose(
        q.map((v) => v * sign),
        expected,
        1e-8,
        `quaternion axis ${axis.join(',')} angle ${angle}`,
      );
    }
  }
  const next = seededRandom(7);
  for (let i = 0; i < 200; i++) {
    const raw = [next() - 0.5, next() - 0.5, next() - 0.5, next() - 0.5];
    quatNormalize(raw, 0, raw, 0);
    quatToMatrix(raw, 0, m, 0);
    matrixToQuat(m, 0, q, 0);
    assert.ok(angleBetween(q, raw) < 1e-7, `random quaternion ${i}`);
  }
});

test('quatMultiply composes like matrix products and quatRotateVector rotates like the matrix', () => {
  const next = seededRandom(11);
  const ma = new Float64Array(9),
    mb = new Float64Array(9),
    mab = new Float64Array(9);
  const ab = new Float64Array(4);
  const rotated = new Float64Array(3);
  for (let i = 0; i < 50; i++) {
    const a = axisAngleQuat([next() - 0.5, next() - 0.5, next() - 0.5], 6 * next());
    const b = axisAngleQuat([next() - 0.5, next() - 0.5, next() - 0.5], 6 * next());
    quatToMatrix(a, 0, ma, 0);
    quatToMatrix(b, 0, mb, 0);
    quatMultiply(a, 0, b, 0, ab, 0);
    quatToMatrix(ab, 0, mab, 0);
    assertClose(mab, matMul3(ma, mb), 1e-12, 'R(a·b) = R(a) R(b)');
    const v = [next() - 0.5, next() - 0.5, next() - 0.5];
    quatRotateVector(a, 0, v, 0, rotated, 0);
    const expected = [0, 1, 2].map((r) => ma[3 * r] * v[0] + ma[3 * r + 1] * v[1] + ma[3 * r + 2] * v[2]);
    assertClose(rotated, expected, 1e-12, 'q v q*');
  }
  // Output may alias an input.
  const a = axisAngleQuat([0, 0, 1], 0.4);
  const b = axisAngleQuat([0, 0, 1], 0.5);
  quatMultiply(a, 0, b, 0, a, 0);
  assertClose(a, axisAngleQuat([0, 0, 1], 0.9), 1e-15, 'aliased product');
});

test('SLERP: endpoints, constant angular speed along the great arc, shortest arc', () => {
  const a = axisAngleQuat([1, 2, 0.5], 0.4);
  const b = axisAngleQuat([-0.2, 1, 1], 2.1);
  const out = new Float64Array(4);
  quatSlerp(a, 0, b, 0, 0, out, 0);
  assert.deepEqual([...out], a);
  quatSlerp(a, 0, b, 0, 1, out, 0);
  assert.deepEqual([...out], b);
  const total = angleBetween(a, b);
  for (const t of [0.1, 0.25, 0.5, 0.77, 0.9]) {
    quatSlerp(a, 0, b, 0, t, out, 0);
    assert.ok(Math.abs(Math.hypot(...out) - 1) < 1e-14, `slerp at t = ${t} gives a unit quaternion (within 1e-14)`);
    assert.ok(Math.abs(angleBetween(a, out) - t * total) < 1e-12, `angle from a at t=${t}`);
    assert.ok(Math.abs(angleBetween(out, b) - (1 - t) * total) < 1e-12, `angle to b at t=${t}`);
  }
  // Handout Eq. 1 (q_a (q_a⁻¹ q_b)^t) for a = identity is a rotation by t·θ about b's axis.
  const identity = [0, 0, 0, 1];
  quatSlerp(identity, 0, axisAngleQuat([0, 1, 0], 1.5), 0, 0.4, out, 0);
  assertClose(out, axisAngleQuat([0, 1, 0], 0.6), 1e-15, 'identity to 1.5 rad about y at t = 0.4');
  // 300° about z is −60°: half-way is −30°, not +150°.
  const far = axisAngleQuat([0, 0, 1], (300 * Math.PI) / 180);
  assert.ok(far[3] < 0, 'the stored quaternion is on the long arc');
  quatSlerp(identity, 0, far, 0, 0.5, out, 0);
  const m = new Float64Array(9);
  quatToMatrix(out, 0, m, 0);
  assertClose(m, rodrigues([0, 0, 1], -Math.PI / 6), 1e-12, 'shortest arc half-way');
  // Nearly equal inputs fall back to NLERP and still give a unit quaternion between them.
  const c = axisAngleQuat([0, 0, 1], 1);
  const d = axisAngleQuat([0, 0, 1], 1 + 1e-9);
  quatSlerp(c, 0, d, 0, 0.5, out, 0);
  assertClose(out, axisAngleQuat([0, 0, 1], 1 + 0.5e-9), 1e-15, 'nearly parallel');
});

test('buildSkeleton: parents of the hand and of the three-root body equal libigl directed_edge_parents', () => {
  const hand = loadSkeleton('hand/hand.tgf');
  assert.deepEqual([...hand.parents], [1, 10, 10, 10, 10, 10, 2, 3, 17, 15, -1, 19, 4, 14, 6, 12, 7, 5, 16, 0]);
  const body = loadSkeleton('context-aware/skeleton.tgf');
  assert.deepEqual([...body.parents], [-1, -1, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 8, 8, 11, 12, 13, 15, 16, 17, 18, 19, 20, 9, 10, 14, 21, 22]);
  for (const s of [hand, body]) {
    const position = new Map([...s.order].map((b, i) => [b, i]));
    assert.equal(position.size, s.parents.length, 'order is a permutation');
    for (let b = 0; b < s.parents.length; b++) {
      if (s.parents[b] >= 0) assert.ok(position.get(s.parents[b])! < position.get(b)!, `parent of bone ${b} comes first`);
    }
  }
});

test('buildSkeleton rejects a joint that ends two bones and a cycle, naming the bone', () => {
  const joints = new Float64Array(15);
  assert.throws(
    () => buildSkeleton({ joints, bones: new Uint32Array([0, 2, 1, 2]) }, 'two.tgf'),
    (e: unknown) => e instanceof FormatError && e.file === 'two.tgf' && e.where === 'bone 1' && /joint 3/.test(e.reason),
  );
  // Bone 0 is a healthy root chain 0→1; bones 1..3 form the cycle 2→3→4→2.
  assert.throws(
    () => buildSkeleton({ joints, bones: new Uint32Array([0, 1, 2, 3, 3, 4, 4, 2]) }, 'cycle.tgf'),
    (e: unknown) => e instanceof FormatError && /^bone [123]$/.test(e.where) && /cycle/.test(e.reason),
  );
  // A branch hanging below a cycle reports a bone on the cycle, not the branch.
  assert.throws(
    () => buildSkeleton({ joints, bones: new Uint32Array([1, 2, 2, 1, 2, 3]) }, 'below.tgf'),
    (e: unknown) => e instanceof FormatError && /^bone [01]$/.test(e.where),
  );
  assert.throws(() => buildSkeleton({ joints, bones: new Uint32Array([0, 5]) }, 'range.tgf'), FormatError);
});

/** Global 4×4 transforms by composing G_b = G_parent · Tr(r_b) · R_b · Tr(−r_b), recursing up the parents. */
function homogeneousFk(skeleton: Skeleton, rotations: Float64Array): number[][] {
  const cache = new Map<number, number[]>();
  const mul4 = (a: number[], b: number[]) => {
    const out = new Array<number>(16).fill(0);
    for (let r = 0; r < 4; r++) for (let c = 0; c < 4; c++) for (let k = 0; k < 4; k++) out[4 * r + c] += a[4 * r + k] * b[4 * k + c];
    return out;
  };
  const global = (b: number): number[] => {
    const known = cache.get(b);
    if (known) return known;
    const s = skeleton.bones[2 * b];
    const [x, y, z] = skeleton.joints.subarray(3 * s, 3 * s + 3);
    const R = rotations.subarray(9 * b, 9 * b + 9);
    const local = mul4(
      mul4([1, 0, 0, x, 0, 1, 0, y, 0, 0, 1, z, 0, 0, 0, 1], [R[0], R[1], R[2], 0, R[3], R[4], R[5], 0, R[6], R[7], R[8], 0, 0, 0, 0, 1]),
      [1, 0, 0, -x, 0, 1, 0, -y, 0, 0, 1, -z, 0, 0, 0, 1],
    );
    const p = skeleton.parents[b];
    const g = p < 0 ? local : mul4(global(p), local);
    cache.set(b, g);
    return g;
  };
  return Array.from({ length: skeleton.parents.length }, (_, b) => global(b));
}

test('forwardKinematics equals homogeneous 4×4 composition on the hand’s quaternion pose', () => {
  const hand = loadSkeleton('hand/hand.tgf');
  const B = hand.parents.length;
  const poses = loadPoses('hand/hand-pose_quat.dmat', B);
  const rotations = new Float64Array(9 * B);
  samplePose(poses, 1, rotations);
  const transforms = new Float64Array(12 * B);
  forwardKinematics(hand, rotations, transforms);
  const expected = homogeneousFk(hand, rotations);
  for (let b = 0; b < B; b++) assertClose(transforms.subarray(12 * b, 12 * b + 12), expected[b].slice(0, 12), 1e-12, `bone ${b}`);
});

/** Every joint position p rotated by R about the center c: c + R (p − c). */
function rotateAbout(R: ArrayLike<number>, c: ArrayLike<number>, p: ArrayLike<number>): number[] {
  const d = [p[0] - c[0], p[1] - c[1], p[2] - c[2]];
  return [0, 1, 2].map((r) => c[r] + R[3 * r] * d[0] + R[3 * r + 1] * d[1] + R[3 * r + 2] * d[2]);
}

test('rotating the hand’s root bone (edge 10) by R rotates every joint by R about the root joint', () => {
  const hand = loadSkeleton('hand/hand.tgf');
  const B = hand.parents.length;
  const R = rodrigues([0.3, -1, 0.4], 0.9);
  const rotations = identityPose(B);
  rotations.set(R, 9 * 10);
  const transforms = new Float64Array(12 * B);
  forwardKinematics(hand, rotations, transforms);
  const posed = new Float64Array(hand.joints.length);
  posedJointPositions(hand, transforms, posed);
  const center = hand.joints.subarray(3 * hand.bones[20], 3 * hand.bones[20] + 3);
  for (let j = 0; j < hand.joints.length / 3; j++) {
    assertClose(posed.subarray(3 * j, 3 * j + 3), rotateAbout(R, center, hand.joints.subarray(3 * j, 3 * j + 3)), 1e-12, `joint ${j}`);
  }
});

test('rotating root bone 0 of the three-root body moves only its subtree', () => {
  const body = loadSkeleton('context-aware/skeleton.tgf');
  const B = body.parents.length;
  const R = rodrigues([1, 0.2, -0.5], -0.7);
  const rotations = identityPose(B);
  rotations.set(R, 0);
  const transforms = new Float64Array(12 * B);
  forwardKinematics(body, rotations, transforms);
  const posed = new Float64Array(body.joints.length);
  posedJointPositions(body, transforms, posed);
  const inSubtree = (b: number): boolean => b === 0 || (body.parents[b] >= 0 && inSubtree(body.parents[b]));
  const moving = new Set<number>();
  for (let b = 0; b < B; b++) if (inSubtree(b)) moving.add(body.bones[2 * b + 1]);
  assert.ok(moving.size >= 5, 'bone 0 has a real subtree');
  const center = body.joints.subarray(3 * body.bones[0], 3 * body.bones[0] + 3);
  let moved = 0;
  for (let j = 0; j < body.joints.length / 3; j++) {
    const rest = body.joints.subarray(3 * j, 3 * j + 3);
    const expected = moving.has(j) ? rotateAbout(R, center, rest) : [...rest];
    assertClose(posed.subarray(3 * j, 3 * j + 3), expected, 1e-12, `joint ${j}`);
    if (Math.hypot(expected[0] - rest[0], expected[1] - rest[1], expected[2] - rest[2]) > 1e-3) moved++;
  }
  assert.ok(moved >= 5, 'the subtree actually moved');
});

test('hand animation: frame 0 is the rest pose; the last matrix frame agrees with the quaternion pose', () => {
  const hand = loadSkeleton('hand/hand.tgf');
  const B = hand.parents.length;
  const matrices = loadPoses('hand/hand-pose_matrot.dmat', B);
  const quaternions = loadPoses('hand/hand-pose_quat.dmat', B);
  assert.equal(matrices.kind, 'matrices');
  assert.equal(poseDuration(matrices), 33);
  assert.equal(poseDuration(quaternions), 1);

  const rotations = new Float64Array(9 * B);
  const transforms = new Float64Array(12 * B);
  const joints = new Float64Array(hand.joints.length);
  samplePose(matrices, 0, rotations);
  forwardKinematics(hand, rotations, transforms);
  posedJointPositions(hand, transforms, joints);
  assertClose(joints, hand.joints, 1e-12, 'frame 0 joints');

  samplePose(matrices, 33, rotations);
  const fromQuaternions = new Float64Array(9 * B);
  samplePose(quaternions, 1, fromQuaternions);
  assertClose(rotations, fromQuaternions, 0.02, 'last frame vs final quaternion pose');

  forwardKinematics(hand, rotations, transforms);
  posedJointPositions(hand, transforms, joints);
  const quaternionJoints = new Float64Array(hand.joints.length);
  forwardKinematics(hand, fromQuaternions, transforms);
  posedJointPositions(hand, transforms, quaternionJoints);
  assertClose(joints, quaternionJoints, 0.015, 'posed joints');
  // The pose is not trivial: joints moved far more than the two representations disagree.
  let largest = 0;
  for (let i = 0; i < joints.length; i++) largest = Math.max(largest, Math.abs(joints[i] - hand.joints[i]));
  assert.ok(largest > 0.5, `the final pose moves joints (by ${largest})`);
});

test('samplePose: whole frames as stored, SLERP between frames, clamping; quaternions from identity', () => {
  const B = 2;
  const frames = [
    [rodrigues([0, 0, 1], 0), rodrigues([1, 0, 0], 0.2)],
    [rodrigues([0, 0, 1], 1), rodrigues([1, 0, 0], -0.4)],
  ];
  const rotations = new Float64Array(frames.flat(2));
  const seq: PoseSequence = { kind: 'matrices', boneCount: B, frameCount: 2, rotations };
  const out = new Float64Array(9 * B);
  samplePose(seq, 1, out);
  assert.deepEqual([...out], [...rotations.subarray(18)]);
  samplePose(seq, 0.25, out);
  assertClose(out.subarray(0, 9), rodrigues([0, 0, 1], 0.25), 1e-12, 'bone 0 at 0.25');
  assertClose(out.subarray(9), rodrigues([1, 0, 0], 0.2 - 0.25 * 0.6), 1e-12, 'bone 1 at 0.25');
  samplePose(seq, -3, out);
  assert.deepEqual([...out], [...rotations.subarray(0, 18)]);
  samplePose(seq, 7.5, out);
  assert.deepEqual([...out], [...rotations.subarray(18)]);
  samplePose(seq, Number.NaN, out);
  assert.deepEqual([...out], [...rotations.subarray(0, 18)]);

  const final = new Float64Array([...axisAngleQuat([0, 1, 0], 2), ...axisAngleQuat([1, 1, 0], -1)]);
  const quats: PoseSequence = { kind: 'quaternions', boneCount: B, final };
  samplePose(quats, 0, out);
  assert.deepEqual([...out], [...identityPose(B)]);
  samplePose(quats, 0.5, out);
  assertClose(out.subarray(0, 9), rodrigues([0, 1, 0], 1), 1e-12, 'half-way bone 0');
  assertClose(out.subarray(9), rodrigues([1, 1, 0], -0.5), 1e-12, 'half-way bone 1');
  samplePose(quats, 2, out);
  assertClose(out.subarray(0, 9), rodrigues([0, 1, 0], 2), 1e-12, 'clamped to the final pose');
});

test('start-joint translations: a root slides by t; a child moves by its parent’s rotation of t; samples interpolate', () => {
  // Chain along x: bone 0 joints 0→1 (root), bone 1 joints 1→2 (child).
  const chain = buildSkeleton({ joints: Float64Array.from([0, 0, 0, 1, 0, 0, 2, 0, 0]), bones: Uint32Array.from([0, 1, 1, 2]) }, 'chain');
  const quarter = [0, -1, 0, 1, 0, 0, 0, 0, 1]; // 90° about z: x → y
  const identity = [1, 0, 0, 0, 1, 0, 0, 0, 1];
  const rotations = Float64Array.from([...quarter, ...identity]);
  const translations = Float64Array.from([0, 0, 5, 0.5, 0, 0]);
  const transforms = new Float64Array(24);
  forwardKinematics(chain, rotations, transforms, translations);
  const joints = new Float64Array(9);
  posedJointPositions(chain, transforms, joints);
  // Root start joint (0,0,0) slides to (0,0,5); the root turns x → y about it, so its end (1,0,0) lands at
  // (0,1,5). The child's start is carried there plus Q_root·(0.5,0,0) = (0,0.5,0), and its end one further along y.
  assert.deepEqual(
    Array.from(joints, (x) => Math.round(x * 1e12) / 1e12),
    [0, 0, 5, 0, 1.5, 5, 0, 2.5, 5],
  );
  // No translations: exactly the rotation-only transforms.
  const plain = new Float64Array(24);
  const zero = new Float64Array(24);
  forwardKinematics(chain, rotations, plain);
  forwardKinematics(chain, rotations, zero, new Float64Array(6));
  assert.deepEqual(zero, plain);

  const seq: PoseSequence = {
    kind: 'matrices',
    boneCount: 2,
    frameCount: 2,
    rotations: Float64Array.from([...identity, ...identity, ...identity, ...identity]),
    translations: Float64Array.from([0, 0, 0, 0, 0, 0, 2, 4, 6, 0, 0, 1]),
  };
  const out = new Float64Array(6);
  assert.equal(samplePoseTranslations(seq, 0.25, out), true);
  assert.deepEqual(Array.from(out), [0.5, 1, 1.5, 0, 0, 0.25]);
  samplePoseTranslations(seq, 7, out);
  assert.deepEqual(Array.from(out), [2, 4, 6, 0, 0, 1]);
  assert.equal(samplePoseTranslations({ kind: 'matrices', boneCount: 2, frameCount: 1, rotations: new Float64Array(18) }, 0, out), false);
  assert.deepEqual(Array.from(out), [0, 0, 0, 0, 0, 0]);
});
