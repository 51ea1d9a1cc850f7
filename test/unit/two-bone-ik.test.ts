/**
 * Two-bone IK (workers/rig/two-bone-ik.ts) on an arm chain under a rotated parent, checked with forward kinematics:
 * random reachable targets are reached within 1e-9 with the middle joint in the plane of the upper start, the target
 * and the pole (on the pole's side); each bone turns by a rotation about an axis across it (its twist is kept); other
 * bones keep their rotations; out-of-reach targets leave the chain straight toward the target, too-near ones folded
 * on the line to it; scaled bones and start-joint translations are reached too; a wrong chain is refused. Degenerate
 * chains: a target at the upper start (unequal bones fold along the present end's direction, equal bones reach it), a
 * pole on the line to the target (the present bend plane is kept), a zero-length lower bone (finite rotations, the
 * upper bone pointing at the target).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildSkeleton, type Skeleton } from '../../workers/rig/skeleton.ts';
import { posedJointPositions } from '../../workers/rig/forward-kinematics.ts';
import { scaledForwardKinematics } from '../../workers/rig/scaled-forward-kinematics.ts';
import { identityPose } from '../../workers/rig/pose-sequence.ts';
import { defaultPole, solveTwoBoneIk } from '../../workers/rig/two-bone-ik.ts';
import { seededRandom } from './seeded-random.ts';

type V = [number, number, number];

/** A spine bone (0), an upper arm (1) and a forearm (2) of different lengths, bent at the elbow. */
function arm(): Skeleton {
  const joints = Float64Array.of(0, 0, 0, 0, 1, 0, 1, 1.1, 0.2, 1.3, 0.5, 0.5);
  return buildSkeleton({ joints, bones: Uint32Array.of(0, 1, 1, 2, 2, 3) }, 'arm');
}

/** Rodrigues: R = I + sin θ K + (1 − cos θ) K², row-major. */
function rodrigues(axis: number[], angle: number): number[] {
  const n = Math.hypot(axis[0], axis[1], axis[2]);
  const [x, y, z] = axis.map((a) => a / n);
  const K = [0, -z, y, z, 0, -x, -y, x, 0];
  const K2 = [0, 1, 2].flatMap((r) => [0, 1, 2].map((c) => K[3 * r] * K[c] + K[3 * r + 1] * K[3 + c] + K[3 * r + 2] * K[6 + c]));
  return [1, 0, 0, 0, 1, 0, 0, 0, 1].map((e, i) => e + Math.sin(angle) * K[i] + (1 - Math.cos(angle)) * K2[i]);
}

function posedJoints(
  skeleton: Skeleton,
  rotations: Float64Array,
  scales: Float64Array | null = null,
  translations: Float64Array | null = null,
): V[] {
  const B = skeleton.parents.length;
  const transforms = new Float64Array(12 * B);
  scaledForwardKinematics(skeleton, rotations, scales, transforms, translations);
  const out = new Float64Array(skeleton.joints.length);
  posedJointPositions(skeleton, transforms, out);
  return Array.from({ length: out.length / 3 }, (_, j): V => [out[3 * j], out[3 * j + 1], out[3 * j + 2]]);
}

const sub = (p: number[], q: number[]): V => [p[0] - q[0], p[1] - q[1], p[2] - q[2]];
const dot = (p: number[], q: number[]): number => p[0] * q[0] + p[1] * q[1] + p[2] * q[2];
const cross = (p: number[], q: number[]): V => [p[1] * q[2] - p[2] * q[1], p[2] * q[0] - p[0] * q[2], p[0] * q[1] - p[1] * q[0]];
const norm = (p: number[]): number => Math.hypot(p[0], p[1], p[2]);
const unit = (p: number[]): V => {
  const n = norm(p);
  return [p[0] / n, p[1] / n, p[2] / n];
};

function randomUnit(random: () => number): V {
  for (;;) {
    const p: V = [2 * random() - 1, 2 * random() - 1, 2 * random() - 1];
    const n = norm(p);
    if (n > 0.1 && n <= 1) return unit(p);
  }
}

/** Random pose of the root and a random bend of the arm. */
function randomPose(random: () => number): Float64Array {
  const rotations = identityPose(3);
  for (let b = 0; b < 3; b++) rotations.set(rodrigues(randomUnit(random), Math.PI * random()), 9 * b);
  return rotations;
}

/** The absolute rotation Q_b = Q_parent · R_b of bone b (row-major). */
function absolute(skeleton: Skeleton, rotations: Float64Array, bone: number): number[] {
  let q = [1, 0, 0, 0, 1, 0, 0, 0, 1];
  const path: number[] = [];
  for (let x = bone; x >= 0; x = skeleton.parents[x]) path.unshift(x);
  for (const x of path) {
    const r = rotations.subarray(9 * x, 9 * x + 9);
    q = [0, 1, 2].flatMap((i) => [0, 1, 2].map((j) => q[3 * i] * r[j] + q[3 * i + 1] * r[3 + j] + q[3 * i + 2] * r[6 + j]));
  }
  return q;
}

/** The axis of the rotation Δ = Q_after · Q_beforeᵀ (from its antisymmetric part), or null for a tiny turn. */
function turnAxis(before: number[], after: number[]): V | null {
  const d = [0, 1, 2].flatMap((i) =>
    [0, 1, 2].map((j) => after[3 * i] * before[3 * j] + after[3 * i + 1] * before[3 * j + 1] + after[3 * i + 2] * before[3 * j + 2]),
  );
  const axis: V = [d[7] - d[5], d[2] - d[6], d[3] - d[1]];
  return norm(axis) > 1e-6 ? unit(axis) : null;
}

test('IK reaches random reachable targets within 1e-9 with the middle joint in the pole plane and each bone keeping its twist', () => {
  const skeleton = arm();
  const random = seededRandom(23);
  for (let trial = 0; trial < 200; trial++) {
    const rotations = randomPose(random);
    const before = posedJoints(skeleton, rotations);
    const [a, middle0, end0] = [before[1], before[2], before[3]];
    const l1 = norm(sub(middle0, a));
    const l2 = norm(sub(end0, middle0));
    // A distance strictly between |l1 − l2| and l1 + l2, in a random direction.
    const d = Math.abs(l1 - l2) + (0.02 + 0.96 * random()) * (l1 + l2 - Math.abs(l1 - l2));
    const direction = randomUnit(random);
    const target: V = [a[0] + d * direction[0], a[1] + d * direction[1], a[2] + d * direction[2]];
    const poleOffset = randomUnit(random);
    const pole: V = [a[0] + 2 * poleOffset[0], a[1] + 2 * poleOffset[1], a[2] + 2 * poleOffset[2]];
    const input = Float64Array.from(rotations);
    const { rotations: solved, reached } = solveTwoBoneIk({ skeleton, rotations: input, upper: 1, lower: 2, target, pole });
    assert.deepStrictEqual(input, rotations, `trial ${trial}: the input rotations are not changed`);
    assert.equal(reached, true, `trial ${trial}: a target at ${d} between ${Math.abs(l1 - l2)} and ${l1 + l2} is reachable`);
    assert.deepStrictEqual(solved.subarray(0, 9), rotations.subarray(0, 9), `trial ${trial}: the root keeps its rotation`);
    const after = posedJoints(skeleton, solved);
    assert.ok(norm(sub(after[3], target)) < 1e-9, `trial ${trial}: the end joint is ${norm(sub(after[3], target))} from the target`);
    assert.ok(norm(sub(after[1], a)) < 1e-12, `trial ${trial}: the upper start stays`);
    const normal = unit(cross(sub(target, a), sub(pole, a)));
    const m = sub(after[2], a);
    assert.ok(Math.abs(dot(m, normal)) < 1e-9, `trial ${trial}: the middle joint is ${dot(m, normal)} off the pole plane`);
    // On the pole's side of the line to the target.
    const u = unit(sub(target, a));
    const poleSide = sub(
      sub(pole, a),
      u.map((x) => x * dot(sub(pole, a), u)),
    );
    assert.ok(dot(m, poleSide) >= -1e-9, `trial ${trial}: the middle joint bends toward the pole`);
    assert.ok(Math.abs(norm(sub(after[2], after[1])) - l1) < 1e-12, `trial ${trial}: the upper bone keeps its length`);
    // Minimal turns: the axis of each bone's world turn is perpendicular to its direction before the turn.
    const upperAxis = turnAxis(absolute(skeleton, rotations, 1), absolute(skeleton, solved, 1));
    if (upperAxis)
      assert.ok(Math.abs(dot(upperAxis, unit(sub(middle0, a)))) < 1e-6, `trial ${trial}: the upper bone turns without twisting`);
    const lowerBefore = absolute(skeleton, rotations, 2);
    // The lower bone's direction after the upper's turn, against which its own turn is minimal.
    const upperTurn = absolute(skeleton, solved, 1);
    const upperOld = absolute(skeleton, rotations, 1);
    const carried = [0, 1, 2].flatMap((i) =>
      [0, 1, 2].map((j) => {
        let s = 0;
        for (let k = 0; k < 3; k++) for (let l = 0; l < 3; l++) s += upperTurn[3 * i + k] * upperOld[3 * l + k] * lowerBefore[3 * l + j];
        return s;
      }),
    );
    const lowerAxis = turnAxis(carried, absolute(skeleton, solved, 2));
    const lowerDir = sub(after[3], after[2]);
    if (lowerAxis) assert.ok(Math.abs(dot(lowerAxis, unit(lowerDir))) < 1e-6, `trial ${trial}: the lower bone turns without twisting`);
  }
});

test('IK with an out-of-reach target leaves the chain straight toward it, a too-near one folded on the line to it', () => {
  const skeleton = arm();
  const random = seededRandom(5);
  for (let trial = 0; trial < 50; trial++) {
    const rotations = randomPose(random);
    const before = posedJoints(skeleton, rotations);
    const a = before[1];
    const l1 = norm(sub(before[2], a));
    const l2 = norm(sub(before[3], before[2]));
    const direction = randomUnit(random);
    const far = (l1 + l2) * (1.01 + random());
    const target: V = [a[0] + far * direction[0], a[1] + far * direction[1], a[2] + far * direction[2]];
    const pole: V = [a[0] + 1, a[1] - 1, a[2] + 0.5];
    const { rotations: solved, reached } = solveTwoBoneIk({ skeleton, rotations, upper: 1, lower: 2, target, pole });
    assert.equal(reached, false, `trial ${trial}: a target ${far} away is out of reach of ${l1 + l2}`);
    const after = posedJoints(skeleton, solved);
    for (const [joint, along] of [
      [2, l1],
      [3, l1 + l2],
    ] as const) {
      const expected = a.map((x, k) => x + along * direction[k]);
      assert.ok(norm(sub(after[joint], expected)) < 1e-9, `trial ${trial}: joint ${joint} lies ${along} along the line to the target`);
    }
    // Too near: the longer (upper, l1 > l2 here) bone points at it, the end folds back to l1 − l2 along the line.
    assert.ok(l1 > l2, 'the arm chain has a longer upper bone');
    const near = (l1 - l2) * 0.5 * random();
    const nearTarget: V = [a[0] + near * direction[0], a[1] + near * direction[1], a[2] + near * direction[2]];
    const folded = solveTwoBoneIk({ skeleton, rotations, upper: 1, lower: 2, target: nearTarget, pole });
    assert.equal(folded.reached, false, `trial ${trial}: a target ${near} away is nearer than ${l1 - l2}`);
    const foldedJoints = posedJoints(skeleton, folded.rotations);
    const foldedEnd = a.map((x, k) => x + (l1 - l2) * direction[k]);
    assert.ok(norm(sub(foldedJoints[3], foldedEnd)) < 1e-9, `trial ${trial}: the folded end lies ${l1 - l2} toward the target`);
  }
});

test('IK reaches targets with scaled bones and start-joint translations, and the default pole keeps the bend plane', () => {
  const skeleton = arm();
  const random = seededRandom(77);
  const scales = Float64Array.of(1, 1, 1, 1.5, 0.8, 1.2, 0.7, 1.3, 1);
  const translations = Float64Array.of(0.1, 0, 0, 0, 0.05, 0.02, 0.03, -0.04, 0.01);
  for (let trial = 0; trial < 50; trial++) {
    const rotations = randomPose(random);
    const before = posedJoints(skeleton, rotations, scales, translations);
    // Joints 2 and 3 belong to bone 2 (start) and bone 2 (end) in posedJointPositions; the chain's own middle is
    // the lower bone's start.
    const a = before[1];
    const l1 = norm(sub(before[2], a));
    const l2 = norm(sub(before[3], before[2]));
    const d = Math.abs(l1 - l2) + (0.05 + 0.9 * random()) * (l1 + l2 - Math.abs(l1 - l2));
    const direction = randomUnit(random);
    const target: V = [a[0] + d * direction[0], a[1] + d * direction[1], a[2] + d * direction[2]];
    const chain = { skeleton, rotations, upper: 1, lower: 2, boneScales: scales, translations };
    const pole = defaultPole(chain);
    const { rotations: solved, reached } = solveTwoBoneIk({ ...chain, target, pole });
    assert.equal(reached, true, `trial ${trial}: reachable`);
    const after = posedJoints(skeleton, solved, scales, translations);
    assert.ok(
      norm(sub(after[3], target)) < 1e-9,
      `trial ${trial}: the scaled chain's end is ${norm(sub(after[3], target))} from the target`,
    );
    // Solving toward the present end with the default pole gives the present pose back.
    const again = solveTwoBoneIk({ ...chain, target: before[3], pole });
    const same = posedJoints(skeleton, again.rotations, scales, translations);
    assert.ok(norm(sub(same[2], before[2])) < 1e-9, `trial ${trial}: the default pole keeps the middle joint where it is`);
  }
});

test('IK refuses a lower bone that is not the child of the upper one, and bones out of range', () => {
  const skeleton = arm();
  const rotations = identityPose(3);
  const chain = { skeleton, rotations, target: [1, 1, 1] as V, pole: [0, 0, 1] as V };
  assert.throws(() => solveTwoBoneIk({ ...chain, upper: 0, lower: 2 }), /bone 2 is not a child of bone 0 \(its parent is bone 1\)/);
  assert.throws(() => solveTwoBoneIk({ ...chain, upper: 1, lower: 3 }), /lower bone 3 is out of range: the skeleton has 3 bones/);
  assert.throws(() => solveTwoBoneIk({ ...chain, upper: 1, lower: 2, target: [Number.NaN, 0, 0] }), /target must be three finite numbers/);
});

/** A spine (0), an upper (1) and a lower bone (2), the lower's joints given. */
function chain(lowerStart: V, lowerEnd: V): Skeleton {
  const joints = Float64Array.of(0, 0, 0, 0, 1, 0, ...lowerStart, ...lowerEnd);
  return buildSkeleton({ joints, bones: Uint32Array.of(0, 1, 1, 2, 2, 3) }, 'chain');
}

const finite = (rotations: Float64Array): boolean => rotations.every((x) => Number.isFinite(x));

test('IK with the target at the upper start: folded along the present end’s direction, or reached by equal bones', () => {
  const random = seededRandom(31);
  for (let trial = 0; trial < 20; trial++) {
    // Unequal bones (l1 > l2): the target is nearer than l1 − l2, so the chain folds along the line to the present end.
    const skeleton = arm();
    const rotations = randomPose(random);
    const before = posedJoints(skeleton, rotations);
    const a = before[1];
    const l1 = norm(sub(before[2], a));
    const l2 = norm(sub(before[3], before[2]));
    const pole: V = [a[0] + 1, a[1], a[2] + 1];
    const folded = solveTwoBoneIk({ skeleton, rotations, upper: 1, lower: 2, target: a, pole });
    assert.equal(folded.reached, false, `trial ${trial}: the upper start is nearer than l1 − l2`);
    assert.ok(finite(folded.rotations), `trial ${trial}: finite rotations`);
    const toEnd = unit(sub(before[3], a));
    const after = posedJoints(skeleton, folded.rotations);
    const expected = a.map((x, k) => x + (l1 - l2) * toEnd[k]);
    assert.ok(norm(sub(after[3], expected)) < 1e-9, `trial ${trial}: the end folds back to l1 − l2 toward the present end`);

    // Equal bones: the target at the start is reached, the middle joint off the line toward the pole.
    const equal = chain([1, 1, 0], [1, 1, 1]);
    const eq = randomPose(random);
    const start = posedJoints(equal, eq)[1];
    const equalPole: V = [start[0] + 2 * random() - 1, start[1] + 2 * random() - 1, start[2] + 2 * random() - 1];
    const reached = solveTwoBoneIk({ skeleton: equal, rotations: eq, upper: 1, lower: 2, target: start, pole: equalPole });
    assert.equal(reached.reached, true, `trial ${trial}: equal bones reach their own start`);
    const joints = posedJoints(equal, reached.rotations);
    assert.ok(norm(sub(joints[3], start)) < 1e-9, `trial ${trial}: the end is back at the start (${norm(sub(joints[3], start))})`);
    assert.ok(Math.abs(norm(sub(joints[2], start)) - 1) < 1e-12, `trial ${trial}: the upper bone keeps its length`);
  }
});

test('IK with the pole on the line to the target keeps the present bend plane', () => {
  const skeleton = arm();
  const random = seededRandom(47);
  for (let trial = 0; trial < 50; trial++) {
    const rotations = randomPose(random);
    const before = posedJoints(skeleton, rotations);
    const [a, middle0] = [before[1], before[2]];
    const l1 = norm(sub(middle0, a));
    const l2 = norm(sub(before[3], middle0));
    const d = l1 - l2 + (0.05 + 0.9 * random()) * 2 * l2;
    const direction = randomUnit(random);
    const target: V = [a[0] + d * direction[0], a[1] + d * direction[1], a[2] + d * direction[2]];
    const pole: V = [a[0] + 3 * d * direction[0], a[1] + 3 * d * direction[1], a[2] + 3 * d * direction[2]];
    const { rotations: solved, reached } = solveTwoBoneIk({ skeleton, rotations, upper: 1, lower: 2, target, pole });
    assert.equal(reached, true, `trial ${trial}: reachable`);
    const after = posedJoints(skeleton, solved);
    assert.ok(norm(sub(after[3], target)) < 1e-9, `trial ${trial}: the target is reached`);
    // The middle joint lies in the plane of the start, the target and the present middle joint, on its side.
    const normal = cross(sub(target, a), sub(middle0, a));
    if (norm(normal) < 1e-6) continue;
    const m = sub(after[2], a);
    assert.ok(
      Math.abs(dot(m, unit(normal))) < 1e-9,
      `trial ${trial}: the middle joint is ${dot(m, unit(normal))} off the present bend plane`,
    );
    const side = cross(unit(normal), direction); // in the plane, across the line
    assert.ok(dot(m, side) * dot(sub(middle0, a), side) >= 0, `trial ${trial}: the elbow bends the way it did`);
  }
});

test('IK with a zero-length lower bone points the upper bone at the target, with finite rotations', () => {
  const skeleton = chain([1, 1, 0], [1, 1, 0]);
  const random = seededRandom(59);
  for (let trial = 0; trial < 20; trial++) {
    const rotations = randomPose(random);
    const a = posedJoints(skeleton, rotations)[1];
    const direction = randomUnit(random);
    // Only a target exactly 1 away is reachable; nearer or farther, the upper bone points at it.
    for (const d of [2 + random(), 0.9 * random()]) {
      const target: V = [a[0] + d * direction[0], a[1] + d * direction[1], a[2] + d * direction[2]];
      const { rotations: solved, reached } = solveTwoBoneIk({ skeleton, rotations, upper: 1, lower: 2, target, pole: [5, 5, 5] });
      assert.equal(reached, false, `trial ${trial}: a target ${d} away is out of reach of a bone of length 1`);
      assert.ok(finite(solved), `trial ${trial}: finite rotations`);
      const after = posedJoints(skeleton, solved);
      const expected = a.map((x, k) => x + direction[k]);
      assert.ok(norm(sub(after[2], expected)) < 1e-9, `trial ${trial}: the upper bone points at the target (distance ${d})`);
      assert.ok(norm(sub(after[3], after[2])) < 1e-12, `trial ${trial}: the lower bone stays of length 0`);
    }
  }
});
