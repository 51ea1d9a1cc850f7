/**
 * Dual quaternions and dual quaternion skinning against the identities of Kavan et al. 2008 (Geometric skinning
 * with approximate dual quaternion blending): conversions, Algorithm 1, bi-invariance (Lemma 2), rigidity, the
 * DLB–ScLERP error bounds (Sec. 3.4, Appendix B), antipodality (Algorithm 2, Sec. 4.1), the 180° flip (Fig. 20),
 * non-rigid joints (Sec. 4.2) and DIB (Appendix B.1). Random inputs come from a fixed seed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  dualQuatConjugate,
  dualQuatDualConjugate,
  dualQuatExp,
  dualQuatFromRigidMatrix,
  dualQuatFromRotationTranslation,
  dualQuatIdentity,
  dualQuatLog,
  dualQuatMultiply,
  dualQuatNormalize,
  dualQuatRotateVector,
  dualQuatScLerp,
  dualQuatsFromRigidMatrices,
  dualQuatToMatrix,
  dualQuatTransformPoint,
} from '../../workers/math/dual-quaternion.ts';
import { polarDecomposition } from '../../workers/math/polar-decomposition.ts';
import { quatSlerp, quatToMatrix } from '../../workers/math/quaternion.ts';
import { forwardKinematics } from '../../workers/rig/forward-kinematics.ts';
import type { Skeleton } from '../../workers/rig/skeleton.ts';
import { alignDualQuaternionSigns } from '../../workers/skinning/align-dual-quaternion-signs.ts';
import { dualQuaternionIterativeBlending } from '../../workers/skinning/dual-quaternion-iterative-blending.ts';
import { dualQuaternionSkinning } from '../../workers/skinning/dual-quaternion-skinning.ts';
import type { Influences } from '../../workers/skinning/influences.ts';
import { linearBlendSkinning } from '../../workers/skinning/linear-blend-skinning.ts';
import { splitNonRigidTransform, splitNonRigidTransforms } from '../../workers/skinning/split-non-rigid-transform.ts';
import { seededRandom } from './seeded-random.ts';

function randomUnitQuat(random: () => number): Float64Array {
  for (;;) {
    const q = Float64Array.from({ length: 4 }, () => 2 * random() - 1);
    const n = Math.hypot(q[0], q[1], q[2], q[3]);
    if (n > 0.1 && n <= 1) return q.map((c) => c / n);
  }
}

/** A random rigid transform as a row-major 3×4 matrix [R | t], R from a uniform random quaternion. */
function randomRigidMatrix(random: () => number, translationScale = 3): Float64Array {
  const r = new Float64Array(9);
  quatToMatrix(randomUnitQuat(random), 0, r, 0);
  const m = new Float64Array(12);
  for (let row = 0; row < 3; row++) {
    m.set(r.subarray(3 * row, 3 * row + 3), 4 * row);
    m[4 * row + 3] = translationScale * (2 * random() - 1);
  }
  return m;
}

function randomDualQuat(random: () => number, translationScale = 3): Float64Array {
  const dq = new Float64Array(8);
  dualQuatFromRigidMatrix(randomRigidMatrix(random, translationScale), 0, dq, 0);
  return dq;
}

/** x ↦ M x + t for a row-major 3×4 affine matrix, written independently of the code under test. */
function applyAffine(m: ArrayLike<number>, p: ArrayLike<number>): number[] {
  return [0, 1, 2].map((r) => m[4 * r] * p[0] + m[4 * r + 1] * p[1] + m[4 * r + 2] * p[2] + m[4 * r + 3]);
}

/** Composition a ∘ b of row-major 3×4 affine matrices. */
function composeAffine(a: ArrayLike<number>, b: ArrayLike<number>): Float64Array {
  const out = new Float64Array(12);
  for (let r = 0; r < 3; r++) {
    for (let c = 0; c < 4; c++) {
      let s = c === 3 ? a[4 * r + 3] : 0;
      for (let k = 0; k < 3; k++) s += a[4 * r + k] * b[4 * k + c];
      out[4 * r + c] = s;
    }
  }
  return out;
}

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  assert.equal(a.length, b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

function assertClose(actual: ArrayLike<number>, expected: ArrayLike<number>, tolerance: number, what: string): void {
  const d = maxAbsDiff(actual, expected);
  assert.ok(
    d <= tolerance,
    `${what}: differs by ${d} (tolerance ${tolerance})\n actual   ${Array.from(actual).join(',')}\n expected ${Array.from(expected).join(',')}`,
  );
}

/** Equal as rigid transforms: q̂ or −q̂. */
function assertSameTransform(actual: Float64Array, expected: Float64Array, tolerance: number, what: string): void {
  const d = Math.min(
    maxAbsDiff(actual, expected),
    maxAbsDiff(
      actual,
      expected.map((c) => -c),
    ),
  );
  assert.ok(
    d <= tolerance,
    `${what}: ±q̂ differ by ${d}\n actual   ${Array.from(actual).join(',')}\n expected ${Array.from(expected).join(',')}`,
  );
}

/** Influences of `vertexCount` vertices that all share the same bones and weights (weights rounded to float32). */
function sharedInfluences(vertexCount: number, bones: number[], weights: number[]): Influences {
  const stride = bones.length;
  const out: Influences = {
    vertexCount,
    stride,
    bones: new Uint32Array(vertexCount * stride),
    weights: new Float32Array(vertexCount * stride),
  };
  for (let v = 0; v < vertexCount; v++) {
    out.bones.set(bones, v * stride);
    out.weights.set(weights, v * stride);
  }
  return out;
}

/**
 * The rigid-or-not affine map a skinning method applies to vertices with one shared set of influences, recovered
 * from where it sends p, p + e₁, p + e₂, p + e₃ (so the test does not rely on how the method forms it).
 */
function blendedAffine(
  skin: (rest: Float64Array, influences: Influences, out: Float64Array) => void,
  bones: number[],
  weights: number[],
  p: number[] = [0.3, -0.2, 0.5],
): Float64Array {
  const rest = new Float64Array([...p, p[0] + 1, p[1], p[2], p[0], p[1] + 1, p[2], p[0], p[1], p[2] + 1]);
  const out = new Float64Array(12);
  skin(rest, sharedInfluences(4, bones, weights), out);
  const m = new Float64Array(12);
  for (let r = 0; r < 3; r++) {
    for (let c = 0; c < 3; c++) m[4 * r + c] = out[3 * (c + 1) + r] - out[r];
    m[4 * r + 3] = out[r] - (m[4 * r] * p[0] + m[4 * r + 1] * p[1] + m[4 * r + 2] * p[2]);
  }
  return m;
}

function determinant3(m: ArrayLike<number>, stride = 4): number {
  const e = (r: number, c: number) => m[stride * r + c];
  return (
    e(0, 0) * (e(1, 1) * e(2, 2) - e(1, 2) * e(2, 1)) -
    e(0, 1) * (e(1, 0) * e(2, 2) - e(1, 2) * e(2, 0)) +
    e(0, 2) * (e(1, 0) * e(2, 1) - e(1, 1) * e(2, 0))
  );
}

/** max |MᵀM − I| of the 3×3 block of a matrix with the given row stride. */
function orthonormalityError(m: ArrayLike<number>, stride = 4): number {
  let err = 0;
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      let s = 0;
      for (let k = 0; k < 3; k++) s += m[stride * k + i] * m[stride * k + j];
      err = Math.max(err, Math.abs(s - (i === j ? 1 : 0)));
    }
  }
  return err;
}

const dlb =
  (dq: Float64Array, options?: Parameters<typeof dualQuaternionSkinning>[4]) =>
  (rest: Float64Array, influences: Influences, out: Float64Array) =>
    dualQuaternionSkinning(rest, influences, dq, out, options);
const dib =
  (dq: Float64Array, options?: Parameters<typeof dualQuaternionIterativeBlending>[4]) =>
  (rest: Float64Array, influences: Influences, out: Float64Array) =>
    dualQuaternionIterativeBlending(rest, influences, dq, out, options);

/**
 * Screw parameters of a unit dual quaternion, read from its logarithm ŝ θ̂/2 (Appendix A.3/A.4): rotation angle
 * θ₀ = 2‖p₀‖ (radians) and translation along the screw axis θ_ε = 2⟨p₀, p_ε⟩/‖p₀‖ (model units); for a pure
 * translation (p₀ = 0) the translation is 2‖p_ε‖.
 */
function screw(dq: Float64Array): { angle: number; translation: number } {
  const log = new Float64Array(8);
  dualQuatLog(dq, 0, log, 0);
  const h = Math.hypot(log[0], log[1], log[2]);
  if (h < 1e-12) return { angle: 0, translation: 2 * Math.hypot(log[4], log[5], log[6]) };
  return { angle: 2 * h, translation: (2 * (log[0] * log[4] + log[1] * log[5] + log[2] * log[6])) / h };
}

function product(a: Float64Array, b: Float64Array): Float64Array {
  const out = new Float64Array(8);
  dualQuatMultiply(a, 0, b, 0, out, 0);
  return out;
}

function conjugate(a: Float64Array): Float64Array {
  const out = new Float64Array(8);
  dualQuatConjugate(a, 0, out, 0);
  return out;
}

test('a hand-derived dual quaternion: 90° about z, then translation (1, 2, 3)', () => {
  const s = Math.SQRT1_2;
  const dq = new Float64Array(8);
  dualQuatFromRotationTranslation([0, 0, s, s], 0, [1, 2, 3], 0, dq, 0);
  // q_ε = ½ (0, t) q₀ = ½ (w t + t × r, −t·r) with r = (0, 0, s), w = s
  assertClose(dq, [0, 0, s, s, 1.5 * s, 0.5 * s, 1.5 * s, -1.5 * s], 1e-15, 'dual quaternion');
  const m = new Float64Array(12);
  dualQuatToMatrix(dq, 0, m, 0);
  assertClose(m, [0, -1, 0, 1, 1, 0, 0, 2, 0, 0, 1, 3], 1e-15, 'matrix');
  const p = new Float64Array(3);
  dualQuatTransformPoint(dq, 0, [1, 0, 0], 0, p, 0);
  assertClose(p, [1, 3, 3], 1e-15, 'R (1,0,0) + t');
});

test('matrix → dual quaternion → matrix, and dual quaternion → matrix → dual quaternion, on random rigid transforms', () => {
  const random = seededRandom(1);
  for (let i = 0; i < 200; i++) {
    const m = randomRigidMatrix(random, 10);
    const dq = new Float64Array(8);
    dualQuatFromRigidMatrix(m, 0, dq, 0);
    assert.ok(Math.abs(Math.hypot(dq[0], dq[1], dq[2], dq[3]) - 1) < 1e-14, 'real part is unit');
    assert.ok(Math.abs(dq[0] * dq[4] + dq[1] * dq[5] + dq[2] * dq[6] + dq[3] * dq[7]) < 1e-14, '⟨q₀, q_ε⟩ = 0');
    const back = new Float64Array(12);
    dualQuatToMatrix(dq, 0, back, 0);
    assertClose(back, m, 1e-13, 'matrix round trip');
    const again = new Float64Array(8);
    dualQuatFromRigidMatrix(back, 0, again, 0);
    assertSameTransform(again, dq, 1e-13, 'dual quaternion round trip');
    const point = [random() * 4 - 2, random() * 4 - 2, random() * 4 - 2];
    const moved = new Float64Array(3);
    dualQuatTransformPoint(dq, 0, point, 0, moved, 0);
    assertClose(moved, applyAffine(m, point), 1e-13, 'Algorithm 1 point transform = matrix');
  }
  const batch = new Float64Array(24);
  const a = randomRigidMatrix(random),
    b = randomRigidMatrix(random);
  dualQuatsFromRigidMatrices(Float64Array.from([...a, ...b]), batch);
  const single = new Float64Array(8);
  dualQuatFromRigidMatrix(b, 0, single, 0);
  assert.deepEqual(batch.subarray(8, 16), single);
});

test('the point transform of Algorithm 1 equals the sandwich q̂ (1 + ε v) (q̂‾)* built from products and both conjugates', () => {
  const random = seededRandom(2);
  for (let i = 0; i < 50; i++) {
    const q = randomDualQuat(random);
    const v = [random() - 0.5, random() - 0.5, random() - 0.5];
    const vHat = new Float64Array([0, 0, 0, 1, v[0], v[1], v[2], 0]);
    const bar = new Float64Array(8);
    dualQuatDualConjugate(q, 0, bar, 0);
    const sandwich = product(product(q, vHat), conjugate(bar));
    assertClose(sandwich.subarray(0, 4), [0, 0, 0, 1], 1e-14, 'real part of the sandwich');
    assert.ok(Math.abs(sandwich[7]) < 1e-14, "the dual part's w of the sandwich is 0 (within 1e-14)");
    const moved = new Float64Array(3);
    dualQuatTransformPoint(q, 0, v, 0, moved, 0);
    assertClose(moved, sandwich.subarray(4, 7), 1e-14, 'Algorithm 1 vs sandwich');
  }
});

test('products compose transforms, the conjugate inverts, normalization projects onto unit dual quaternions', () => {
  const random = seededRandom(3);
  for (let i = 0; i < 50; i++) {
    const ma = randomRigidMatrix(random),
      mb = randomRigidMatrix(random);
    const a = new Float64Array(8),
      b = new Float64Array(8);
    dualQuatFromRigidMatrix(ma, 0, a, 0);
    dualQuatFromRigidMatrix(mb, 0, b, 0);
    const ab = new Float64Array(12);
    dualQuatToMatrix(product(a, b), 0, ab, 0);
    assertClose(ab, composeAffine(ma, mb), 1e-13, 'matrix of a·b = A ∘ B');
    const aliased = Float64Array.from(a);
    dualQuatMultiply(aliased, 0, b, 0, aliased, 0);
    assertClose(aliased, product(a, b), 0, 'output may alias an input');
    const identity = new Float64Array(8);
    dualQuatIdentity(identity, 0);
    assertClose(product(a, conjugate(a)), identity, 1e-15, 'a·a* = 1');

    // λ q̂ + a violation of ⟨q₀, q_ε⟩ = 0 along q₀: normalization must return q̂.
    const lambda = 0.2 + 3 * random();
    const skewed = a.map((c, k) => lambda * c + (k >= 4 ? 0.7 * lambda * a[k - 4] : 0));
    const n = new Float64Array(8);
    dualQuatNormalize(skewed, 0, n, 0);
    assertClose(n, a, 1e-14, 'normalize(λ q̂ + ε c q₀) = q̂');
    const arbitrary = Float64Array.from({ length: 8 }, () => random() - 0.5);
    dualQuatNormalize(arbitrary, 0, n, 0);
    assert.ok(Math.abs(Math.hypot(n[0], n[1], n[2], n[3]) - 1) < 1e-15, 'the normalized real part has unit length (within 1e-15)');
    assert.ok(
      Math.abs(n[0] * n[4] + n[1] * n[5] + n[2] * n[6] + n[3] * n[7]) < 1e-15,
      'the normalized real and dual parts are orthogonal (within 1e-15)',
    );
  }
});

test('exp(log q̂) = q̂, including pure translations and half-angles on both sides of the series switch', () => {
  const random = seededRandom(4);
  const cases: Float64Array[] = [];
  for (let i = 0; i < 100; i++) cases.push(randomDualQuat(random));
  for (const half of [0, 1e-9, 0.9e-3, 1.1e-3, 0.5, Math.PI / 2 - 1e-9]) {
    const axis = randomUnitQuat(random).subarray(0, 3);
    const n = Math.hypot(axis[0], axis[1], axis[2]);
    const q = [(axis[0] / n) * Math.sin(half), (axis[1] / n) * Math.sin(half), (axis[2] / n) * Math.sin(half), Math.cos(half)];
    const dq = new Float64Array(8);
    dualQuatFromRotationTranslation(q, 0, [1.5, -2, 0.25], 0, dq, 0);
    cases.push(dq);
  }
  for (const q of cases) {
    const shortest = q[3] < 0 ? q.map((c) => -c) : q;
    const log = new Float64Array(8);
    dualQuatLog(q, 0, log, 0);
    assert.equal(log[3], 0);
    assert.equal(log[7], 0);
    const back = new Float64Array(8);
    dualQuatExp(log, 0, back, 0);
    assertClose(back, shortest, 1e-14, 'exp(log q̂)');
  }
  // A pure translation t is exp(ε t/2): rotation 0, translation |t| along t.
  const translation = new Float64Array(8);
  dualQuatFromRotationTranslation([0, 0, 0, 1], 0, [3, 4, 0], 0, translation, 0);
  const log = new Float64Array(8);
  dualQuatLog(translation, 0, log, 0);
  assertClose(log, [0, 0, 0, 0, 1.5, 2, 0, 0], 1e-15, 'log of a translation');
  const s = screw(translation);
  assert.equal(s.angle, 0);
  assert.ok(Math.abs(s.translation - 5) < 1e-14, 'the screw of a translation by (3, 4, 0) moves 5 along its axis');
});

test('ScLERP: end points, constant speed along one screw, and SLERP for rotations about the origin', () => {
  const random = seededRandom(5);
  for (let i = 0; i < 50; i++) {
    const a = randomDualQuat(random),
      b = randomDualQuat(random);
    const out = new Float64Array(8);
    dualQuatScLerp(a, 0, b, 0, 0, out, 0);
    assertClose(out, a, 1e-14, 't = 0');
    dualQuatScLerp(a, 0, b, 0, 1, out, 0);
    assertSameTransform(out, b, 1e-13, 't = 1');
    // Constant speed: the relative motion from t = 0.25 to 0.5 equals the one from 0.5 to 0.75.
    const q25 = new Float64Array(8),
      q50 = new Float64Array(8),
      q75 = new Float64Array(8);
    dualQuatScLerp(a, 0, b, 0, 0.25, q25, 0);
    dualQuatScLerp(a, 0, b, 0, 0.5, q50, 0);
    dualQuatScLerp(a, 0, b, 0, 0.75, q75, 0);
    assertSameTransform(product(q50, conjugate(q25)), product(q75, conjugate(q50)), 1e-13, 'equal steps');
    // Pure rotations: ScLERP's real part is SLERP and the dual part stays 0.
    const ra = a.slice(0, 4),
      rb = b.slice(0, 4);
    const pa = new Float64Array([...ra, 0, 0, 0, 0]),
      pb = new Float64Array([...rb, 0, 0, 0, 0]);
    const t = random();
    dualQuatScLerp(pa, 0, pb, 0, t, out, 0);
    const slerp = new Float64Array(4);
    quatSlerp(ra, 0, rb, 0, t, slerp, 0);
    assertClose(out, [...slerp, 0, 0, 0, 0], 1e-13, 'ScLERP of rotations = SLERP');
  }
});

test('DLB of a single transform is that transform: one influence, or several influences on the same transform (any signs)', () => {
  const random = seededRandom(6);
  for (let i = 0; i < 30; i++) {
    const m = randomRigidMatrix(random, 5);
    const dq = new Float64Array(8 * 3);
    dualQuatFromRigidMatrix(m, 0, dq, 0);
    dq.set(
      dq.subarray(0, 8).map((c) => -c),
      8,
    );
    dq.set(dq.subarray(0, 8), 16);
    assertClose(blendedAffine(dlb(dq), [0], [1]), m, 1e-13, 'one influence');
    const weights = [0.1, 0.2, 0.3, 0.4];
    assertClose(blendedAffine(dlb(dq), [0, 1, 2, 0], weights), m, 1e-13, 'same transform (with q̂ and −q̂), per vertex');
    assertClose(blendedAffine(dlb(dq, { antipodality: 'per-bone' }), [0, 2, 0, 2], weights), m, 1e-13, 'same transform, per bone');
    assertClose(blendedAffine(dib(dq), [0, 1, 2, 0], weights), m, 1e-13, 'DIB, same transform');
  }
});

test('DLB is coordinate invariant: blending r q̂ᵢ r* gives r DLB(q̂) r*, and q̂ᵢ p̂ gives DLB(q̂) p̂ (Lemma 2)', () => {
  const random = seededRandom(7);
  for (let i = 0; i < 30; i++) {
    const q = new Float64Array(8 * 3);
    for (let b = 0; b < 3; b++) q.set(randomDualQuat(random), 8 * b);
    const r = randomDualQuat(random, 10);
    const conjugated = new Float64Array(24),
      right = new Float64Array(24);
    for (let b = 0; b < 3; b++) {
      const qb = q.slice(8 * b, 8 * b + 8);
      conjugated.set(product(product(r, qb), conjugate(r)), 8 * b);
      right.set(product(qb, r), 8 * b);
    }
    const bones = [0, 1, 2];
    const weights = [0.5, 0.3, 0.2];
    const blended = blendedAffine(dlb(q), bones, weights);
    const rm = new Float64Array(12),
      rInverse = new Float64Array(12);
    dualQuatToMatrix(r, 0, rm, 0);
    dualQuatToMatrix(conjugate(r), 0, rInverse, 0);
    assertClose(
      blendedAffine(dlb(conjugated), bones, weights),
      composeAffine(composeAffine(rm, blended), rInverse),
      1e-12,
      'bi-invariance',
    );
    assertClose(blendedAffine(dlb(right), bones, weights), composeAffine(blended, rm), 1e-12, 'right invariance');
    assertClose(
      blendedAffine(dib(conjugated), bones, weights),
      composeAffine(composeAffine(rm, blendedAffine(dib(q), bones, weights)), rInverse),
      1e-11,
      'DIB bi-invariance',
    );
  }
});

test('DLB yields a rigid transform: orthonormal blended 3×3 with det 1, distances kept; LBS of the same input shrinks', () => {
  const random = seededRandom(8);
  const transforms = new Float64Array(12 * 4);
  let lbsWorst = 1;
  for (let i = 0; i < 50; i++) {
    for (let b = 0; b < 4; b++) transforms.set(randomRigidMatrix(random), 12 * b);
    const dq = new Float64Array(32);
    dualQuatsFromRigidMatrices(transforms, dq);
    const raw = [random(), random(), random(), random()];
    const sum = raw[0] + raw[1] + raw[2] + raw[3];
    const weights = raw.map((w) => w / sum);
    const m = blendedAffine(dlb(dq), [0, 1, 2, 3], weights);
    assert.ok(orthonormalityError(m) < 1e-13, `orthonormal: ${orthonormalityError(m)}`);
    assert.ok(Math.abs(determinant3(m) - 1) < 1e-13, 'the blended rotation has determinant 1 (within 1e-13)');
    const lbs = blendedAffine((rest, inf, out) => linearBlendSkinning(rest, inf, transforms, out), [0, 1, 2, 3], weights);
    lbsWorst = Math.min(lbsWorst, determinant3(lbs));

    const rest = new Float64Array(6).map(() => 4 * random() - 2);
    const out = new Float64Array(6);
    dualQuaternionSkinning(rest, sharedInfluences(2, [0, 1, 2, 3], weights), dq, out);
    const d0 = Math.hypot(rest[0] - rest[3], rest[1] - rest[4], rest[2] - rest[5]);
    const d1 = Math.hypot(out[0] - out[3], out[1] - out[4], out[2] - out[5]);
    assert.ok(Math.abs(d0 - d1) < 1e-13, `distance ${d0} became ${d1}`);
  }
  assert.ok(lbsWorst < 0.5, `LBS of random rotations should lose volume (smallest det ${lbsWorst})`);
});

test('every method returns the rest mesh bit for bit at rest (identity transforms from identity matrices), and missing weight stays at rest', () => {
  const random = seededRandom(9);
  const vertexCount = 200,
    stride = 4,
    boneCount = 6;
  const rest = new Float64Array(3 * vertexCount).map(() => 10 * random() - 5);
  const restNormals = new Float64Array(3 * vertexCount);
  for (let v = 0; v < vertexCount; v++) {
    const n = randomUnitQuat(random);
    const l = Math.hypot(n[0], n[1], n[2]);
    restNormals.set([n[0] / l, n[1] / l, n[2] / l], 3 * v);
  }
  const influences: Influences = {
    vertexCount,
    stride,
    bones: new Uint32Array(vertexCount * stride),
    weights: new Float32Array(vertexCount * stride),
  };
  for (let v = 0; v < vertexCount; v++) {
    const raw = [random(), random(), random(), random()];
    if (v % 10 === 0) raw[3] = 0;
    const sum = raw[0] + raw[1] + raw[2] + raw[3];
    for (let k = 0; k < stride; k++) {
      influences.bones[v * stride + k] = Math.floor(random() * boneCount);
      influences.weights[v * stride + k] = raw[k] / sum;
    }
  }
  const identities = new Float64Array(12 * boneCount);
  for (let b = 0; b < boneCount; b++) identities.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0], 12 * b);
  const dq = new Float64Array(8 * boneCount);
  dualQuatsFromRigidMatrices(identities, dq);
  const out = new Float64Array(rest.length),
    outNormals = new Float64Array(rest.length);
  for (const options of [undefined, { antipodality: 'per-bone' as const }, { scaleTransforms: identities }]) {
    out.fill(NaN);
    outNormals.fill(NaN);
    dualQuaternionSkinning(rest, influences, dq, out, options, restNormals, outNormals);
    assert.deepStrictEqual(out, rest, `DLB ${JSON.stringify(options)}`);
    assert.deepStrictEqual(outNormals, restNormals, `DLB normals ${JSON.stringify(options)}`);
    out.fill(NaN);
    dualQuaternionSkinning(rest, influences, dq, out, options);
    assert.deepStrictEqual(out, rest, `DLB positions only ${JSON.stringify(options)}`);
  }
  out.fill(NaN);
  outNormals.fill(NaN);
  dualQuaternionIterativeBlending(rest, influences, dq, out, undefined, restNormals, outNormals);
  assert.deepStrictEqual(out, rest, 'DIB');
  assert.deepStrictEqual(outNormals, restNormals, 'DIB normals');

  // A vertex without weights stays where it is under any pose.
  const posed = new Float64Array(8 * boneCount);
  for (let b = 0; b < boneCount; b++) posed.set(randomDualQuat(random), 8 * b);
  const lone = sharedInfluences(1, [2, 3], [0, 0]);
  const p = new Float64Array([1.25, -3.5, 2]);
  const q = new Float64Array(3);
  dualQuaternionSkinning(p, lone, posed, q);
  assert.deepStrictEqual(q, p, 'DLB, no weight');
  dualQuaternionIterativeBlending(p, lone, posed, q);
  assert.deepStrictEqual(q, p, 'DIB, no weight');
});

test('DLB and DIB (= ScLERP for two transforms) differ by less than 8.15° of rotation and 15.1% of translation (Sec. 3.4)', () => {
  // Measures, following the paper: both blends share the screw axis of the relative motion q̂₂ q̂₁* (dual angle
  // α̂ = α₀ + ε α_ε), DLB = cos(β̂/2) + n̂ sin(β̂/2) times q̂₁ and ScLERP = cos(t α̂/2) + n̂ sin(t α̂/2) times q̂₁, so
  // Δ = DLB · ScLERP* is a screw about n̂ with dual angle β̂ − t α̂. Its rotation angle |β₀ − t α₀| must stay
  // below 0.1423 rad (8.15°) and its translation along the axis |β_ε − t α_ε| below 0.151 |α_ε|, the translation
  // along the axis present in the relative motion.
  const random = seededRandom(10);
  const ANGLE_BOUND = (8.15 * Math.PI) / 180;
  let worstAngle = 0,
    worstTranslation = 0;
  // t = k/64 so that both weights, t and 1 − t, are exact in the float32 influence weights.
  const check = (q1: Float64Array, q2: Float64Array, k: number) => {
    const tw = k / 64;
    const both = new Float64Array([...q1, ...q2]);
    const blend = both
      .slice(0, 8)
      .map((c, k) => (1 - tw) * c + tw * (q1[0] * q2[0] + q1[1] * q2[1] + q1[2] * q2[2] + q1[3] * q2[3] < 0 ? -1 : 1) * q2[k]);
    const dlbDq = new Float64Array(8);
    dualQuatNormalize(blend, 0, dlbDq, 0);
    const sclerp = new Float64Array(8);
    dualQuatScLerp(q1, 0, q2, 0, tw, sclerp, 0);

    // The skinning code computes the same two blends.
    const fromSkinning = new Float64Array(8),
      fromDib = new Float64Array(8);
    dualQuatFromRigidMatrix(blendedAffine(dlb(both), [0, 1], [1 - tw, tw]), 0, fromSkinning, 0);
    dualQuatFromRigidMatrix(blendedAffine(dib(both), [0, 1], [1 - tw, tw]), 0, fromDib, 0);
    assertSameTransform(fromSkinning, dlbDq, 1e-12, 'dualQuaternionSkinning = normalized linear blend');
    assertSameTransform(fromDib, sclerp, 1e-12, 'DIB of two = ScLERP');
    const oneStep = new Float64Array(8);
    dualQuatFromRigidMatrix(blendedAffine(dib(both, { maxIterations: 1 }), [0, 1], [1 - tw, tw]), 0, oneStep, 0);
    assertSameTransform(oneStep, sclerp, 1e-12, 'DIB of two needs one iteration');

    const relative = screw(product(q2, conjugate(q1)));
    const delta = screw(product(dlbDq, conjugate(sclerp)));
    worstAngle = Math.max(worstAngle, delta.angle);
    assert.ok(delta.angle < ANGLE_BOUND, `rotation differs by ${delta.angle} rad`);
    const translationBound = 0.151 * Math.abs(relative.translation);
    assert.ok(
      Math.abs(delta.translation) <= translationBound + 1e-12,
      `translation differs by ${delta.translation}, bound ${translationBound}`,
    );
    if (Math.abs(relative.translation) > 1e-6)
      worstTranslation = Math.max(worstTranslation, Math.abs(delta.translation) / Math.abs(relative.translation));
  };
  for (let i = 0; i < 100; i++) check(randomDualQuat(random), randomDualQuat(random), 1 + Math.floor(63 * random()));
  // The extreme case of Appendix B: a half turn (α₀ → π) with translation along its axis, swept over t.
  const q1 = randomDualQuat(random);
  const halfTurn = new Float64Array(8);
  const almostPi = Math.PI * (1 - 1e-9);
  dualQuatFromRotationTranslation([0, Math.sin(almostPi / 2), 0, Math.cos(almostPi / 2)], 0, [0.4, 1, 0.3], 0, halfTurn, 0);
  for (let k = 1; k < 64; k++) check(q1, product(halfTurn, q1), k);
  // The bounds are nearly attained (Maple: 0.1422 rad and 0.1501 α_ε), so the measure is the paper's.
  assert.ok(worstAngle > 0.14, `largest rotation difference ${worstAngle}`);
  assert.ok(worstTranslation > 0.145, `largest relative translation difference ${worstTranslation}`);
});

test('DIB of several transforms is the stationary mean: Σ wₖ log(b̂* q̂ₖ) = 0, and close to DLB for moderate poses', () => {
  const random = seededRandom(11);
  for (let i = 0; i < 20; i++) {
    const dq = new Float64Array(8 * 4);
    const base = randomDualQuat(random);
    for (let b = 0; b < 4; b++) {
      const small = new Float64Array(8);
      const p = new Float64Array([
        0.4 * (random() - 0.5),
        0.4 * (random() - 0.5),
        0.4 * (random() - 0.5),
        0,
        random() - 0.5,
        random() - 0.5,
        random() - 0.5,
        0,
      ]);
      dualQuatExp(p, 0, small, 0);
      dq.set(product(small, base), 8 * b);
    }
    const weights = [0.4, 0.3, 0.2, 0.1].map(Math.fround);
    const b = new Float64Array(8);
    dualQuatFromRigidMatrix(blendedAffine(dib(dq), [0, 1, 2, 3], weights), 0, b, 0);
    const mean = new Float64Array(8),
      log = new Float64Array(8);
    for (let k = 0; k < 4; k++) {
      dualQuatLog(product(conjugate(b), dq.slice(8 * k, 8 * k + 8)), 0, log, 0);
      for (let j = 0; j < 8; j++) mean[j] += weights[k] * log[j];
    }
    assertClose(mean, new Float64Array(8), 1e-12, 'DIB mean of logs');
    const d = maxAbsDiff(blendedAffine(dib(dq), [0, 1, 2, 3], weights), blendedAffine(dlb(dq), [0, 1, 2, 3], weights));
    assert.ok(d < 0.05, `DLB and DIB differ by ${d} for rotations within ±23°`);
  }
});

test('antipodality: per-vertex signs make −q̂ blend like q̂; per-bone alignment gives neighbours non-negative dots', () => {
  const random = seededRandom(12);
  const dq = new Float64Array(8 * 3);
  const small = new Float64Array(8);
  for (let b = 0; b < 3; b++) {
    dualQuatExp([0.3 * random(), 0.3 * random(), 0.3 * random(), 0, random(), random(), random(), 0], 0, small, 0);
    dq.set(small, 8 * b);
  }
  const flipped = Float64Array.from(dq);
  for (let k = 8; k < 16; k++) flipped[k] = -flipped[k];
  const vertexCount = 50;
  const rest = new Float64Array(3 * vertexCount).map(() => random() * 2 - 1);
  const influences = sharedInfluences(vertexCount, [0, 1, 2], [0.5, 0.3, 0.2]);
  for (let v = 0; v < vertexCount; v++) influences.bones.set(v % 2 ? [1, 0, 2] : [0, 1, 2], 3 * v);
  const a = new Float64Array(rest.length),
    b = new Float64Array(rest.length);
  dualQuaternionSkinning(rest, influences, dq, a);
  dualQuaternionSkinning(rest, influences, flipped, b);
  assertClose(b, a, 1e-15, 'q̂ vs −q̂, per vertex');
  dualQuaternionSkinning(rest, influences, flipped, b, { antipodality: 'per-bone' });
  assert.ok(maxAbsDiff(a, b) > 0.1, 'per-bone mode trusts the given signs, so unaligned input blends differently');

  // A skeleton in scrambled order with two roots: 4 → 1 → 0 → 3, 1 → 2; root 5.
  const parents = new Int32Array([1, 4, 1, 0, -1, -1]);
  const order = new Uint32Array([5, 4, 1, 2, 0, 3]);
  for (let trial = 0; trial < 20; trial++) {
    const q = new Float64Array(8 * 6);
    for (let k = 0; k < 6; k++) q.set(randomDualQuat(random), 8 * k);
    const aligned = Float64Array.from(q);
    alignDualQuaternionSigns(parents, order, aligned);
    for (let k = 0; k < 6; k++) {
      const o = 8 * k;
      assertSameTransform(aligned.subarray(o, o + 8), q.subarray(o, o + 8), 0, `bone ${k} keeps its transform`);
      const p = parents[k];
      const dot = p < 0 ? aligned[o + 3] : [0, 1, 2, 3].reduce((s, j) => s + aligned[o + j] * aligned[8 * p + j], 0);
      assert.ok(dot >= 0, `bone ${k}: dot with its parent ${dot}`);
    }
  }
});

/** A tube of radius 1 along x from 0 to 2: `rings` rings of `segments` vertices; bone 0 spans x ∈ [0, 1], bone 1 x ∈ [1, 2]. */
function twistTube(rings: number, segments: number): { rest: Float64Array; influences: Influences; middle: number[] } {
  const vertexCount = rings * segments;
  const rest = new Float64Array(3 * vertexCount);
  const influences: Influences = {
    vertexCount,
    stride: 2,
    bones: new Uint32Array(2 * vertexCount),
    weights: new Float32Array(2 * vertexCount),
  };
  const middle: number[] = [];
  for (let r = 0; r < rings; r++) {
    const x = (2 * r) / (rings - 1);
    const w1 = Math.min(1, Math.max(0, x - 0.5));
    for (let s = 0; s < segments; s++) {
      const v = r * segments + s;
      const phi = (2 * Math.PI * s) / segments;
      rest.set([x, Math.cos(phi), Math.sin(phi)], 3 * v);
      influences.bones.set([0, 1], 2 * v);
      influences.weights.set([1 - w1, w1], 2 * v);
      if (x === 1) middle.push(v);
    }
  }
  return { rest, influences, middle };
}

test('a 0°→180° twist about the bone axis: LBS collapses the middle ring toward 0, DLB keeps its radius', () => {
  const { rest, influences, middle } = twistTube(21, 16);
  assert.equal(middle.length, 16);
  assert.equal(influences.weights[2 * middle[0] + 1], 0.5);
  const lbsOut = new Float64Array(rest.length),
    dlbOut = new Float64Array(rest.length);
  const radius = (out: Float64Array, v: number) => Math.hypot(out[3 * v + 1], out[3 * v + 2]);
  for (let degrees = 0; degrees <= 180; degrees += 5) {
    for (const angle of degrees === 180 ? [179, 180] : [degrees]) {
      const theta = (angle * Math.PI) / 180;
      const c = Math.cos(theta),
        s = Math.sin(theta);
      // Bone 1 twists about the x axis through its joint (1, 0, 0), which the axis contains: t = 0.
      const transforms = new Float64Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, c, -s, 0, 0, s, c, 0]);
      const dq = new Float64Array(16);
      dualQuatsFromRigidMatrices(transforms, dq);
      linearBlendSkinning(rest, influences, transforms, lbsOut);
      dualQuaternionSkinning(rest, influences, dq, dlbOut);
      for (const v of middle) {
        // LBS averages p and R p: the radius is |cos(θ/2)|.
        assert.ok(Math.abs(radius(lbsOut, v) - Math.abs(Math.cos(theta / 2))) < 1e-12, `LBS radius at ${angle}°`);
        assert.ok(Math.abs(radius(dlbOut, v) - 1) < 1e-9, `DLB radius at ${angle}°: ${radius(dlbOut, v)}`);
        assert.ok(Math.abs(dlbOut[3 * v] - 1) < 1e-12, 'no slide along the axis');
      }
      if (angle === 179) assert.ok(radius(lbsOut, middle[0]) < 0.01, 'LBS candy wrapper near 180°');
    }
  }
  for (let v = 0; v < rest.length / 3; v++)
    assert.ok(Math.abs(radius(dlbOut, v) - 1) < 1e-9, `DLB keeps every ring's radius (vertex ${v})`);
});

test('179° vs 181° with per-bone signs: the middle of a 2-bone chain turns the short way on either side (Fig. 20 flip)', () => {
  const { rest, influences, middle } = twistTube(21, 16);
  const skeleton: Skeleton = {
    joints: new Float64Array([0, 0, 0, 1, 0, 0, 2, 0, 0]),
    bones: new Uint32Array([0, 1, 1, 2]),
    parents: new Int32Array([-1, 0]),
    order: new Uint32Array([0, 1]),
  };
  const turnOfMiddle = (degrees: number, mode: 'per-bone' | 'per-vertex') => {
    const theta = (degrees * Math.PI) / 180;
    const c = Math.cos(theta),
      s = Math.sin(theta);
    const relative = new Float64Array([1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, c, -s, 0, s, c]);
    const transforms = new Float64Array(24);
    forwardKinematics(skeleton, relative, transforms);
    const dq = new Float64Array(16);
    dualQuatsFromRigidMatrices(transforms, dq);
    alignDualQuaternionSigns(skeleton.parents, skeleton.order, dq);
    const out = new Float64Array(rest.length);
    dualQuaternionSkinning(rest, influences, dq, out, { antipodality: mode });
    // Angle turned by the middle-ring vertex that starts at (1, 1, 0), in degrees about +x.
    const v = middle[0];
    return (Math.atan2(out[3 * v + 2], out[3 * v + 1]) * 180) / Math.PI;
  };
  for (const mode of ['per-bone', 'per-vertex'] as const) {
    assert.ok(Math.abs(turnOfMiddle(179, mode) - 89.5) < 1e-9, `179°, ${mode}: ${turnOfMiddle(179, mode)}`);
    assert.ok(Math.abs(turnOfMiddle(181, mode) + 89.5) < 1e-9, `181°, ${mode}: ${turnOfMiddle(181, mode)}`);
    assert.ok(Math.abs(turnOfMiddle(90, mode) - 45) < 1e-9, `a 90° twist turns the middle by 45° in ${mode} mode`);
  }
});

test('a bone scaled by 2 along its axis, all weight on it, scales the vertices about the joint exactly', () => {
  const random = seededRandom(13);
  const joint = [0.5, 1, -1];
  const axis = [1 / 3, 2 / 3, 2 / 3];
  // S = I + a aᵀ doubles lengths along a; C(x) = c + S (x − c).
  const S = (r: number, c: number) => (r === c ? 1 : 0) + axis[r] * axis[c];
  const affine = new Float64Array(12);
  for (let r = 0; r < 3; r++) {
    for (let c = 0; c < 3; c++) affine[4 * r + c] = S(r, c);
    affine[4 * r + 3] = joint[r] - (S(r, 0) * joint[0] + S(r, 1) * joint[1] + S(r, 2) * joint[2]);
  }
  const skeleton: Skeleton = {
    joints: new Float64Array([...joint, joint[0] + axis[0], joint[1] + axis[1], joint[2] + axis[2]]),
    bones: new Uint32Array([0, 1]),
    parents: new Int32Array([-1]),
    order: new Uint32Array([0]),
  };
  const dq = new Float64Array(8),
    scale = new Float64Array(12);
  splitNonRigidTransforms(skeleton, affine, dq, scale);
  assertSameTransform(dq, new Float64Array([0, 0, 0, 1, 0, 0, 0, 0]), 1e-15, 'no rigid part');

  const vertexCount = 100;
  const rest = new Float64Array(3 * vertexCount).map(() => 4 * random() - 2);
  const normals = new Float64Array(3 * vertexCount);
  for (let v = 0; v < vertexCount; v++) {
    const n = randomUnitQuat(random);
    const l = Math.hypot(n[0], n[1], n[2]);
    normals.set([n[0] / l, n[1] / l, n[2] / l], 3 * v);
  }
  const out = new Float64Array(rest.length),
    outNormals = new Float64Array(rest.length);
  dualQuaternionSkinning(rest, sharedInfluences(vertexCount, [0], [1]), dq, out, { scaleTransforms: scale }, normals, outNormals);
  for (let v = 0; v < vertexCount; v++) {
    const d = [0, 1, 2].map((k) => rest[3 * v + k] - joint[k]);
    const along = d[0] * axis[0] + d[1] * axis[1] + d[2] * axis[2];
    assertClose(
      out.subarray(3 * v, 3 * v + 3),
      [0, 1, 2].map((k) => joint[k] + d[k] + along * axis[k]),
      1e-14,
      `vertex ${v}`,
    );
    // Normals: S⁻ᵀ n = n − ½ a (a·n), renormalized.
    const n = normals.subarray(3 * v, 3 * v + 3);
    const an = n[0] * axis[0] + n[1] * axis[1] + n[2] * axis[2];
    const m = [0, 1, 2].map((k) => n[k] - 0.5 * axis[k] * an);
    const l = Math.hypot(m[0], m[1], m[2]);
    assertClose(
      outNormals.subarray(3 * v, 3 * v + 3),
      m.map((c) => c / l),
      1e-14,
      `normal ${v}`,
    );
  }
});

test('non-rigid joints: skinning a split transform with all weight on one bone applies the original affine transform', () => {
  const random = seededRandom(14);
  for (let i = 0; i < 20; i++) {
    // C = rigid ∘ (symmetric positive stretch): any invertible affine with det > 0 has this form.
    const stretch = new Float64Array(12);
    const L = [1 + random(), random() - 0.5, random() - 0.5, 1 + random(), random() - 0.5, 1 + random()];
    const sym = [
      [L[0], L[1], L[2]],
      [L[1], L[3], L[4]],
      [L[2], L[4], L[5]],
    ];
    for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) stretch[4 * r + c] = sym[r].reduce((s, _, k) => s + sym[r][k] * sym[c][k], 0);
    const affine = composeAffine(randomRigidMatrix(random), stretch);
    const center = [random(), random(), random()];
    const dq = new Float64Array(8),
      scale = new Float64Array(12);
    splitNonRigidTransform(affine, 0, center, 0, dq, 0, scale, 0);
    const rest = new Float64Array(30).map(() => 2 * random() - 1);
    const out = new Float64Array(30);
    dualQuaternionSkinning(rest, sharedInfluences(10, [0], [1]), dq, out, { scaleTransforms: scale });
    for (let v = 0; v < 10; v++)
      assertClose(out.subarray(3 * v, 3 * v + 3), applyAffine(affine, rest.subarray(3 * v, 3 * v + 3)), 1e-12, 'C(x)');
    // The scale part fixes the centre.
    assertClose(applyAffine(scale, center), center, 1e-14, 'K(c) = c');
  }
});

test('split of an affine transform into scale and rigid parts recomposes to the original (also mirrored and singular ones)', () => {
  const random = seededRandom(15);
  const cases: Float64Array[] = [];
  for (let i = 0; i < 50; i++) {
    const m = new Float64Array(12).map(() => 4 * random() - 2);
    cases.push(m);
  }
  cases.push(new Float64Array([-1, 0, 0, 1, 0, 1, 0, 2, 0, 0, 1, 3])); // mirror
  cases.push(new Float64Array([0, 0, 0, 1, 0, 1, 0, 2, 0, 0, 2, 3])); // flattened to a plane
  cases.push(new Float64Array([0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3])); // everything to a point
  cases.push(new Float64Array([2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0])); // uniform
  for (const affine of cases) {
    const center = [random(), random(), random()];
    const dq = new Float64Array(8),
      scale = new Float64Array(12),
      rigid = new Float64Array(12);
    splitNonRigidTransform(affine, 0, center, 0, dq, 0, scale, 0);
    dualQuatToMatrix(dq, 0, rigid, 0);
    assert.ok(orthonormalityError(rigid) < 1e-14 && Math.abs(determinant3(rigid) - 1) < 1e-14, 'rigid part is a rotation');
    for (let r = 0; r < 3; r++)
      for (let c = 0; c < r; c++) assert.ok(Math.abs(scale[4 * r + c] - scale[4 * c + r]) < 1e-15, 'symmetric scale');
    assertClose(composeAffine(rigid, scale), affine, 1e-13, 'P ∘ K = C');
    // A rotation has det 1, so det S = det M, and S is positive semi-definite when det M > 0 (√(MᵀM)).
    assert.ok(Math.abs(determinant3(scale) - determinant3(affine)) < 1e-12, 'det S = det M (within 1e-12)');
  }

  // Known factors: A = R₀ S₀ with S₀ symmetric positive definite comes back as R₀, S₀.
  for (let i = 0; i < 20; i++) {
    const r0 = new Float64Array(9);
    quatToMatrix(randomUnitQuat(random), 0, r0, 0);
    const s0 = new Float64Array([2, 0.3, -0.1, 0.3, 1, 0.2, -0.1, 0.2, 0.5]);
    const a = new Float64Array(9);
    for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) for (let k = 0; k < 3; k++) a[3 * r + c] += r0[3 * r + k] * s0[3 * k + c];
    const R = new Float64Array(9),
      S = new Float64Array(9);
    polarDecomposition(a, 0, R, 0, S, 0);
    assertClose(R, r0, 1e-14, 'R');
    assertClose(S, s0, 1e-14, 'S');
  }
});

test('DLB normals are rotated by the blended rotation', () => {
  const random = seededRandom(16);
  const transforms = new Float64Array(24);
  transforms.set(randomRigidMatrix(random), 0);
  transforms.set(randomRigidMatrix(random), 12);
  const dq = new Float64Array(16);
  dualQuatsFromRigidMatrices(transforms, dq);
  const weights = [Math.fround(0.7), Math.fround(0.3)];
  const m = blendedAffine(dlb(dq), [0, 1], weights);
  const n = [0.48, 0.6, 0.64];
  const out = new Float64Array(3),
    outNormal = new Float64Array(3);
  dualQuaternionSkinning(new Float64Array(3), sharedInfluences(1, [0, 1], weights), dq, out, undefined, new Float64Array(n), outNormal);
  assertClose(outNormal, applyAffine([m[0], m[1], m[2], 0, m[4], m[5], m[6], 0, m[8], m[9], m[10], 0], n), 1e-13, 'R n');
  const single = new Float64Array(3);
  dualQuatRotateVector(dq, 0, n, 0, single, 0);
  assertClose(
    single,
    applyAffine([...transforms.subarray(0, 3), 0, ...transforms.subarray(4, 7), 0, ...transforms.subarray(8, 11), 0], n),
    1e-14,
    'dualQuatRotateVector',
  );
});
