/**
 * Per-vertex pose space (course handout Sec. 8.1): unposing through LBS and DQS, RBF pose-space weights (Eq. 8)
 * and context LBS / DQS (Eq. 7 with the displacement in rest space) — against hand-derived cases, the identities
 * of Sec. 8.1.3 and the context-aware body with its four sculpted examples.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FormatError } from '../../workers/formats/format-error.ts';
import { dualQuatsFromRigidMatrices } from '../../workers/math/dual-quaternion.ts';
import { quatToMatrix } from '../../workers/math/quaternion.ts';
import { boundingBox } from '../../workers/mesh/bounds.ts';
import { forwardKinematics } from '../../workers/rig/forward-kinematics.ts';
import { scaledForwardKinematics } from '../../workers/rig/scaled-forward-kinematics.ts';
import { splitNonRigidTransforms } from '../../workers/skinning/split-non-rigid-transform.ts';
import { identityPose } from '../../workers/rig/pose-sequence.ts';
import { dualQuaternionSkinning } from '../../workers/skinning/dual-quaternion-skinning.ts';
import { influencesFromWeights, type Influences } from '../../workers/skinning/influences.ts';
import { linearBlendSkinning } from '../../workers/skinning/linear-blend-skinning.ts';
import {
  contextDualQuaternionSkinning,
  contextLinearBlendSkinning,
  contextRestPositions,
} from '../../workers/posespace/context-skinning.ts';
import {
  POSE_SPACE_DEFAULTS,
  PoseSpaceError,
  poseDistance,
  poseSpaceInterpolator,
  poseSpaceWeights,
  poseSpaceWeightsOfSequence,
  rbfKernel,
} from '../../workers/posespace/pose-space-weights.ts';
import { checkExampleMesh, unposeExample, UNPOSE_PROGRESS_STEP } from '../../workers/posespace/unpose.ts';
import { contextAwareBody } from './context-aware-data.ts';

/** #B × 12 transforms of pure rotations about the origin (one 3×3 per bone, translation 0). */
function rotationTransforms(...rotations: Float64Array[]): Float64Array {
  const T = new Float64Array(12 * rotations.length);
  rotations.forEach((R, b) => {
    for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) T[12 * b + 4 * r + c] = R[3 * r + c];
  });
  return T;
}

/** Rotation matrix by `angle` about a unit axis. */
function axisAngle(axis: [number, number, number], angle: number): Float64Array {
  const s = Math.sin(angle / 2);
  const R = new Float64Array(9);
  quatToMatrix([axis[0] * s, axis[1] * s, axis[2] * s, Math.cos(angle / 2)], 0, R, 0);
  return R;
}

function influences(rows: number[][]): Influences {
  const boneCount = rows[0].length;
  return influencesFromWeights({ rows: rows.length, cols: boneCount, data: Float64Array.from(rows.flat()) }, 0);
}

function maxDistance(a: Float64Array, b: Float64Array): number {
  let worst = 0;
  for (let i = 0; i < a.length; i += 3) worst = Math.max(worst, Math.hypot(a[i] - b[i], a[i + 1] - b[i + 1], a[i + 2] - b[i + 2]));
  return worst;
}

function bodySetup() {
  const body = contextAwareBody();
  const influence = influencesFromWeights(body.weights, 4);
  const B = body.boneCount;
  const transforms = body.examples.map((e) => {
    const T = new Float64Array(12 * B);
    forwardKinematics(body.skeleton, e.pose, T);
    return T;
  });
  const diagonal = boundingBox(body.mesh.positions).diagonal;
  const poses = new Float64Array(body.examples.length * 9 * B);
  body.examples.forEach((e, j) => poses.set(e.pose, 9 * B * j));
  const names = body.examples.map((e) => e.name);
  return { body, influence, transforms, diagonal, poses, names, B };
}

test('unposing one fully weighted vertex is the inverse rigid motion (hand-derived), for LBS and DQS', () => {
  // Bone 0 turns 90° about z and moves by (1, 2, 3): x ↦ R x + t. Rest (1, 0, 0); the example was sculpted at
  // (1, 2, 3) + R (1, 0.5, 0) = (0.5, 3, 3), so the unposed vertex is (1, 0.5, 0) and δ = (0, 0.5, 0).
  const T = rotationTransforms(axisAngle([0, 0, 1], Math.PI / 2));
  T[3] = 1;
  T[7] = 2;
  T[11] = 3;
  const rest = new Float64Array([1, 0, 0]);
  const example = new Float64Array([0.5, 3, 3]);
  for (const method of ['lbs', 'dqs'] as const) {
    const { unposed, displacements, singularVertices } = unposeExample(rest, example, influences([[1]]), T, { method });
    assert.equal(singularVertices.length, 0);
    [1, 0.5, 0].forEach((x, c) => assert.ok(Math.abs(unposed[c] - x) < 1e-14, `${method} unposed[${c}] = ${unposed[c]}`));
    [0, 0.5, 0].forEach((x, c) => assert.ok(Math.abs(displacements[c] - x) < 1e-14, `${method} δ[${c}] = ${displacements[c]}`));
  }
});

test('unposing a vertex blended 30/70 between two bones inverts the blended LBS matrix (hand-derived)', () => {
  // Bone 0 identity, bone 1 turns 90° about z. M = 0.3 I + 0.7 R = [[0.3, −0.7, 0], [0.7, 0.3, 0], [0, 0, 1]],
  // det = 0.09 + 0.49 = 0.58; M (1, 1, 2) = (−0.4, 1, 2).
  const T = rotationTransforms(identityPose(1), axisAngle([0, 0, 1], Math.PI / 2));
  const weights = influences([[0.3, 0.7]]);
  const { unposed } = unposeExample(new Float64Array(3), new Float64Array([-0.4, 1, 2]), weights, T, { method: 'lbs' });
  [1, 1, 2].forEach((x, c) => assert.ok(Math.abs(unposed[c] - x) < 2e-7, `unposed[${c}] = ${unposed[c]}`));
});

test('near-singular LBS blends (two opposed rotations 50/50) are reported and get no displacement', () => {
  // Bones turned +90° and −90° about x: the 50/50 blend is diag(1, 0, 0), which flattens the vertex onto the x axis.
  const T = rotationTransforms(axisAngle([1, 0, 0], Math.PI / 2), axisAngle([1, 0, 0], -Math.PI / 2));
  const rest = new Float64Array([0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0]);
  const w = influences([
    [0.5, 0.5], // singular
    [1, 0], // rigid
    [0.5005, 0.4995], // det ≈ 1e-6, κ_F ≈ 1e3·… > 1e3
    [0.75, 0.25], // M = diag(1, cos, cos)-like, well conditioned
  ]);
  const example = new Float64Array([0.1, 0.2, 0.3, 0, 0, 1.5, 0.1, 0.2, 0.3, 0.2, 0.3, 0.4]);
  const { unposed, displacements, singularVertices } = unposeExample(rest, example, w, T, { method: 'lbs' });
  assert.deepEqual([...singularVertices], [0, 2]);
  for (const v of [0, 2]) {
    for (let c = 0; c < 3; c++) {
      assert.equal(displacements[3 * v + c], 0);
      assert.equal(unposed[3 * v + c], rest[3 * v + c]);
    }
  }
  // The rigid vertex: R_x(90°)ᵀ (0, 0, 1.5) = (0, 1.5, 0).
  assert.ok(
    Math.abs(unposed[3] - 0) < 1e-15 && Math.abs(unposed[4] - 1.5) < 1e-15 && Math.abs(unposed[5]) < 1e-15,
    'the rigid vertex unposes to (0, 1.5, 0) (within 1e-15)',
  );
  assert.ok(
    Number.isFinite(displacements[9]) && Math.abs(displacements[10]) < 10,
    'the well-conditioned vertex 3 gets a finite, bounded displacement',
  );

  // DQS with per-bone signs taken as given: q and −q of the same 180° turn cancel to a zero real part.
  const dq = new Float64Array([1, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, 0, 0, 0]);
  const dqsResult = unposeExample(rest.subarray(0, 3), example.subarray(0, 3), influences([[0.5, 0.5]]), T, {
    method: 'dqs',
    antipodality: 'per-bone',
    boneDualQuaternions: dq,
  });
  assert.deepEqual([...dqsResult.singularVertices], [0]);
  assert.deepEqual([...dqsResult.displacements], [0, 0, 0]);
  // Per-vertex signs (Kavan Alg. 2) flip one of them: the same blend is a clean 180° turn, nothing singular.
  assert.equal(
    unposeExample(rest.subarray(0, 3), example.subarray(0, 3), influences([[0.5, 0.5]]), T, { method: 'dqs', boneDualQuaternions: dq })
      .singularVertices.length,
    0,
  );
});

test('body: unposing eg0…eg3 then posing them again returns each example (1e-9 relative), for LBS and DQS', () => {
  const { body, influence, transforms, diagonal } = bodySetup();
  const rest = body.mesh.positions;
  const n = rest.length / 3;
  for (const [j, example] of body.examples.entries()) {
    for (const method of ['lbs', 'dqs'] as const) {
      const progress: number[] = [];
      const { unposed, displacements, singularVertices } = unposeExample(rest, example.mesh.positions, influence, transforms[j], {
        method,
        onProgress: (done, total) => {
          assert.equal(total, n);
          progress.push(done);
        },
      });
      assert.equal(singularVertices.length, 0, `${example.name} ${method}: no near-singular vertex on the body`);
      assert.equal(progress.length, Math.ceil(n / UNPOSE_PROGRESS_STEP));
      assert.equal(progress.at(-1), n);
      assert.ok(
        progress.every((d, i) => i === 0 || d > progress[i - 1]),
        'progress increases at every report',
      );
      const reposed = new Float64Array(rest.length);
      if (method === 'lbs') {
        linearBlendSkinning(unposed, influence, transforms[j], reposed);
      } else {
        const dq = new Float64Array(8 * body.boneCount);
        dualQuatsFromRigidMatrices(transforms[j], dq);
        dualQuaternionSkinning(unposed, influence, dq, reposed);
      }
      const roundTrip = maxDistance(reposed, example.mesh.positions) / diagonal;
      // Unposing takes the pose out: the unposed example lies far closer to the rest shape than the example does.
      const posedOffset = maxDistance(example.mesh.positions, rest) / diagonal;
      const unposedOffset = maxDistance(unposed, rest) / diagonal;
      let maxDisplacement = 0;
      for (let i = 0; i < displacements.length; i++) maxDisplacement = Math.max(maxDisplacement, Math.abs(displacements[i]));
      assert.ok(roundTrip <= 1e-9, `${example.name} ${method}: round trip ${roundTrip.toExponential(2)} of the diagonal`);
      assert.ok(unposedOffset < 0.2 * posedOffset, `${example.name} ${method}: unposed ${unposedOffset} vs posed ${posedOffset}`);
      assert.ok(maxDisplacement > 1e-3 * diagonal, `${example.name} ${method}: the example carries sculpted displacements`);
    }
  }
});

test('body with scaled bones: DQS unposing inverts the first phase too (Kavan Sec. 4.2), so DQS with scales returns the example', () => {
  const { body, influence, diagonal, B } = bodySetup();
  const rest = body.mesh.positions;
  // eg1's pose with three bones scaled non-uniformly (a bulging upper arm, a longer forearm, a flattened leg).
  const scales = new Float64Array(3 * B).fill(1);
  scales.set([1.3, 0.8, 1.1], 3 * 6);
  scales.set([1, 1.25, 1], 3 * 9);
  scales.set([0.7, 1, 1.2], 3 * 15);
  const affine = new Float64Array(12 * B);
  scaledForwardKinematics(body.skeleton, body.examples[1].pose, scales, affine);
  const dq = new Float64Array(8 * B);
  const K = new Float64Array(12 * B);
  splitNonRigidTransforms(body.skeleton, affine, dq, K);
  const example = body.examples[1].mesh.positions;
  const rigidOnly = unposeExample(rest, example, influence, affine, { method: 'dqs', boneDualQuaternions: dq });
  const { unposed, singularVertices } = unposeExample(rest, example, influence, affine, {
    method: 'dqs',
    boneDualQuaternions: dq,
    scaleTransforms: K,
  });
  assert.equal(singularVertices.length, 0);
  const reposed = new Float64Array(rest.length);
  dualQuaternionSkinning(unposed, influence, dq, reposed, { scaleTransforms: K });
  const error = maxDistance(reposed, example) / diagonal;
  dualQuaternionSkinning(rigidOnly.unposed, influence, dq, reposed, { scaleTransforms: K });
  const rigidError = maxDistance(reposed, example) / diagonal;
  assert.ok(error <= 1e-9, `round trip ${error}`);
  assert.ok(rigidError > 1e-3, `ignoring the scales misses by ${rigidError}`);
  // LBS unposing takes the scaled affine transforms as they are.
  const lbs = unposeExample(rest, example, influence, affine, { method: 'lbs' });
  linearBlendSkinning(lbs.unposed, influence, affine, reposed);
  assert.ok(
    maxDistance(reposed, example) / diagonal <= 1e-9,
    'LBS of the unposed example gives back the example (within 1e-9 of the diagonal)',
  );
});

test('pose distance is the chordal distance 2√2 sin(θ/2) per bone; kernels are the documented functions', () => {
  const a = identityPose(2);
  const b = new Float64Array(18);
  b.set(axisAngle([0, 0, 1], 1.2), 0);
  b.set(axisAngle([0.6, 0.8, 0], 2.5), 9);
  const expected = Math.hypot(2 * Math.SQRT2 * Math.sin(0.6), 2 * Math.SQRT2 * Math.sin(1.25));
  assert.ok(Math.abs(poseDistance(a, 0, b, 0, 2) - expected) < 1e-14, 'the pose distance is the hand-derived one (within 1e-14)');
  assert.equal(poseDistance(b, 0, b, 0, 2), 0);
  assert.equal(rbfKernel('gaussian', 2, 4), Math.exp(-0.25));
  assert.equal(rbfKernel('linear', 2.5, 0), 2.5);
  assert.equal(POSE_SPACE_DEFAULTS.kernel, 'gaussian');
});

test('two examples on one bone: linear RBF weights are hand-derived (a_1 = d(P, P_2)/d_12 before Eq. 8)', () => {
  // Examples at 0° and 80° about z; Φ = [[0, d], [d, 0]] so C = Φ⁻¹ = [[0, 1/d], [1/d, 0]].
  const poses = new Float64Array(18);
  poses.set(identityPose(1), 0);
  poses.set(axisAngle([0, 0, 1], (80 * Math.PI) / 180), 9);
  const ip = poseSpaceInterpolator(poses, 1, ['rest', 'bent'], { kernel: 'linear' });
  const d12 = 2 * Math.SQRT2 * Math.sin((40 * Math.PI) / 180);
  const out = new Float64Array(2);
  const raw = new Float64Array(2);
  for (const degrees of [0, 20, 40, 80, 120]) {
    const pose = axisAngle([0, 0, 1], (degrees * Math.PI) / 180);
    poseSpaceWeights(ip, pose, out, raw);
    const to1 = 2 * Math.SQRT2 * Math.sin((degrees * Math.PI) / 360);
    const to2 = 2 * Math.SQRT2 * Math.sin((Math.abs(degrees - 80) * Math.PI) / 360);
    const a1 = to2 / d12;
    const a2 = to1 / d12;
    assert.ok(Math.abs(raw[0] - a1) < 1e-12 && Math.abs(raw[1] - a2) < 1e-12, `${degrees}°: raw ${raw.join()}`);
    assert.ok(Math.abs(out[0] - a1 / (a1 + a2)) < 1e-12 && Math.abs(out[1] - a2 / (a1 + a2)) < 1e-12, `${degrees}°: ${out.join()}`);
  }
  poseSpaceWeights(ip, axisAngle([0, 0, 1], (40 * Math.PI) / 180), out);
  assert.ok(Math.abs(out[0] - 0.5) < 1e-12 && Math.abs(out[1] - 0.5) < 1e-12, 'halfway: half each');
});

test('body: a_j(P_i) = δ_ij at the examples and Σ_j a_j = 1 on all 394 frames, for each kernel', () => {
  const { body, poses, names, B } = bodySetup();
  const frames = body.frames;
  // The examples' pose files are frames 34, 56, 87, 80 of the sequence (PROVENANCE.md).
  body.exampleFrames.forEach((f, j) => assert.deepEqual(body.examples[j].pose, frames.rotations.subarray(9 * B * f, 9 * B * (f + 1))));
  for (const kernel of ['gaussian', 'linear'] as const) {
    const ip = poseSpaceInterpolator(poses, B, names, { kernel });
    if (kernel === 'gaussian') assert.ok(ip.width > 0, 'the Gaussian kernel has a positive width');
    const times = Array.from({ length: frames.frameCount }, (_, f) => f);
    const a = poseSpaceWeightsOfSequence(ip, frames, times);
    for (let f = 0; f < frames.frameCount; f++) {
      let sum = 0;
      for (let j = 0; j < 4; j++) {
        assert.ok(Number.isFinite(a[4 * f + j]), `frame ${f}: example ${j}'s weight is finite`);
        sum += a[4 * f + j];
      }
      assert.ok(Math.abs(sum - 1) < 1e-12, `${kernel} frame ${f}: Σ a = ${sum}`);
    }
    body.exampleFrames.forEach((f, i) => {
      for (let j = 0; j < 4; j++) {
        const expected = i === j ? 1 : 0;
        assert.ok(Math.abs(a[4 * f + j] - expected) < 1e-12, `${kernel}: a_${j}(P_${i}) = ${a[4 * f + j]}`);
      }
    });
    // Continuity: between neighbouring frames the weights move by a fraction of their range.
    let largestStep = 0;
    for (let f = 1; f < frames.frameCount; f++)
      for (let j = 0; j < 4; j++) largestStep = Math.max(largestStep, Math.abs(a[4 * f + j] - a[4 * (f - 1) + j]));
    assert.ok(largestStep < 0.5, `${kernel}: largest step between frames ${largestStep}`);
  }
});

test('two examples with the same pose are refused, naming both; one example weighs 1 everywhere', () => {
  const { body, B } = bodySetup();
  const poses = new Float64Array(3 * 9 * B);
  poses.set(body.examples[0].pose, 0);
  poses.set(body.examples[1].pose, 9 * B);
  poses.set(body.examples[0].pose, 18 * B);
  for (const kernel of ['gaussian', 'linear'] as const) {
    assert.throws(
      () => poseSpaceInterpolator(poses, B, ['eg0', 'eg1', 'eg0 copy'], { kernel }),
      (error: unknown) =>
        error instanceof PoseSpaceError &&
        error.examples.join() === 'eg0,eg0 copy' &&
        /"eg0" and "eg0 copy" have the same pose/.test(error.message),
    );
  }
  // Nearly the same pose: not caught as a duplicate, but the Gaussian system is too ill-conditioned.
  const nearly = Float64Array.from(poses);
  nearly[18 * B + 9 * 5] += 1e-7;
  assert.throws(
    () => poseSpaceInterpolator(nearly, B, ['eg0', 'eg1', 'eg0 moved'], { kernel: 'gaussian' }),
    (error: unknown) =>
      error instanceof PoseSpaceError && error.examples.join() === 'eg0,eg0 moved' && /ill-conditioned/.test(error.message),
  );
  const one = poseSpaceInterpolator(body.examples[2].pose, B, ['eg2'], { kernel: 'linear' });
  const out = new Float64Array(1);
  poseSpaceWeights(one, body.frames.rotations.subarray(0, 9 * B), out);
  assert.equal(out[0], 1);
});

test('body: at each example pose, context LBS and DQS equal the example (1e-6 of the diagonal); plain skinning does not', () => {
  const { body, influence, transforms, diagonal, poses, names, B } = bodySetup();
  const rest = body.mesh.positions;
  const n = rest.length;
  const unposed = { lbs: new Float64Array(4 * n), dqs: new Float64Array(4 * n) };
  for (const method of ['lbs', 'dqs'] as const) {
    body.examples.forEach((e, j) =>
      unposed[method].set(unposeExample(rest, e.mesh.positions, influence, transforms[j], { method }).displacements, j * n),
    );
  }
  const ip = poseSpaceInterpolator(poses, B, names);
  const a = new Float64Array(4);
  const out = new Float64Array(n);
  const plain = new Float64Array(n);
  const dq = new Float64Array(8 * B);
  for (const [j, example] of body.examples.entries()) {
    poseSpaceWeights(ip, example.pose, a);
    dualQuatsFromRigidMatrices(transforms[j], dq);

    contextLinearBlendSkinning(rest, unposed.lbs, a, influence, transforms[j], out);
    linearBlendSkinning(rest, influence, transforms[j], plain);
    const lbsError = maxDistance(out, example.mesh.positions) / diagonal;
    const plainLbsError = maxDistance(plain, example.mesh.positions) / diagonal;

    contextDualQuaternionSkinning(rest, unposed.dqs, a, influence, dq, out);
    dualQuaternionSkinning(rest, influence, dq, plain);
    const dqsError = maxDistance(out, example.mesh.positions) / diagonal;
    const plainDqsError = maxDistance(plain, example.mesh.positions) / diagonal;

    // The handout's literal order T v0 + Σ a δ (displacement after the transform) misses the example.
    linearBlendSkinning(rest, influence, transforms[j], plain);
    for (let i = 0; i < n; i++) plain[i] += unposed.lbs[j * n + i];
    const afterError = maxDistance(plain, example.mesh.positions) / diagonal;

    console.log(
      `${example.name}: max error / diagonal — context LBS ${lbsError.toExponential(2)}, LBS ${plainLbsError.toExponential(2)}, ` +
        `context DQS ${dqsError.toExponential(2)}, DQS ${plainDqsError.toExponential(2)}, displacement after the transform ${afterError.toExponential(2)}`,
    );
    assert.ok(lbsError <= 1e-6 && dqsError <= 1e-6, 'context LBS and DQS reproduce the example (within 1e-6 of the diagonal)');
    assert.ok(
      plainLbsError > 1e-3 && plainDqsError > 1e-3 && afterError > 1e-3,
      'plain LBS, plain DQS and the displacement after the transform miss the example by more than 1e-3',
    );
  }
});

test('with no examples context LBS and DQS are plain LBS and DQS bit for bit; zero weights leave the rest shape', () => {
  const { body, influence, B } = bodySetup();
  const rest = body.mesh.positions;
  const T = new Float64Array(12 * B);
  forwardKinematics(body.skeleton, body.frames.rotations.subarray(9 * B * 200, 9 * B * 201), T);
  const dq = new Float64Array(8 * B);
  dualQuatsFromRigidMatrices(T, dq);
  const expected = new Float64Array(rest.length);
  const got = new Float64Array(rest.length);
  linearBlendSkinning(rest, influence, T, expected);
  contextLinearBlendSkinning(rest, new Float64Array(0), [], influence, T, got);
  assert.deepEqual(got, expected);
  dualQuaternionSkinning(rest, influence, dq, expected, { antipodality: 'per-bone' });
  contextDualQuaternionSkinning(rest, new Float64Array(0), [], influence, dq, got, { antipodality: 'per-bone' });
  assert.deepEqual(got, expected);

  const displacements = new Float64Array(2 * rest.length).fill(0.25);
  const corrected = new Float64Array(rest.length);
  contextRestPositions(rest, displacements, [0, 0], corrected);
  assert.deepEqual(corrected, rest);
  contextRestPositions(rest, displacements, [0.5, 1], corrected);
  for (let i = 0; i < rest.length; i += 997) assert.equal(corrected[i], rest[i] + 0.5 * 0.25 + 0.25);
});

test('an example mesh with other triangles or vertex count is refused, naming the file and the first differing face', () => {
  const rest = { positions: new Float64Array(12), triangles: Uint32Array.from([0, 1, 2, 0, 2, 3]) };
  checkExampleMesh(rest, { positions: new Float64Array(12).fill(1), triangles: Uint32Array.from(rest.triangles) }, 'ok.obj');
  assert.throws(
    () => checkExampleMesh(rest, { positions: new Float64Array(12), triangles: Uint32Array.from([0, 1, 2, 0, 3, 2]) }, 'eg.obj'),
    (error: unknown) =>
      error instanceof FormatError &&
      error.message ===
        "eg.obj: face 1: an example must have the rest mesh's triangles; this face is 1 4 3, the rest mesh's is 1 3 4 (1-based vertices)",
  );
  assert.throws(
    () => checkExampleMesh(rest, { positions: new Float64Array(9), triangles: Uint32Array.from([0, 1, 2]) }, 'small.obj'),
    /small\.obj: an example must have the rest mesh's 4 vertices; it has 3/,
  );
});
