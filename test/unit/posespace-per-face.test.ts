/**
 * Per-face context-aware deformation (handout Sec. 8.2, Weber et al. 2007 Eq. 9–10): per-face unposing, the
 * per-face example transformations T_{j,f}, and the two blends. Expectations are identities and hand-derived
 * matrices (T of a rotated, scaled or stretched face), a second route to the same shape (per-face skinning of a
 * known unposed shape), and the body data's sculpted examples.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readObj } from '../../workers/formats/obj.ts';
import { boundingBox } from '../../workers/mesh/bounds.ts';
import { readTgf } from '../../workers/formats/tgf.ts';
import { readDmat, writeDmatAscii } from '../../workers/formats/dmat.ts';
import { handlesFromDmat } from '../../workers/formats/weights-file.ts';
import { poseSequenceFromDmat } from '../../workers/formats/pose-file.ts';
import { buildSkeleton, type Skeleton } from '../../workers/rig/skeleton.ts';
import { forwardKinematics } from '../../workers/rig/forward-kinematics.ts';
import { boneDistanceWeights } from '../../workers/weights/bone-distance-weights.ts';
import { influencesFromWeights, type Influences } from '../../workers/skinning/influences.ts';
import {
  perFaceFixedVertices,
  perFaceGradientProducts,
  perFaceSkinning,
  perFaceSkinningSetup,
  perFaceStitch,
  type PerFaceSkinningSetup,
} from '../../workers/skinning/per-face-skinning.ts';
import {
  faceDeformationGradients,
  perFaceContextSkinning,
  perFaceExamples,
  perFaceUnpose,
  perFaceUnposeExamples,
} from '../../workers/posespace/per-face-context.ts';
import { poseSpaceInterpolator, poseSpaceWeights } from '../../workers/posespace/pose-space-weights.ts';
import { samplePose } from '../../workers/rig/pose-sequence.ts';
import { dataFile, repoRoot } from './shared-data.ts';
import { axisAngleMatrix } from './rotation-matrix.ts';

function diagonalOf(positions: Float64Array): number {
  return boundingBox(positions).diagonal;
}

/** Largest vertex distance between two #V × 3 arrays. */
function maxDistance(a: Float64Array, b: Float64Array): number {
  assert.equal(a.length, b.length);
  let worst = 0;
  for (let v = 0; v < a.length / 3; v++)
    worst = Math.max(worst, Math.hypot(a[3 * v] - b[3 * v], a[3 * v + 1] - b[3 * v + 1], a[3 * v + 2] - b[3 * v + 2]));
  return worst;
}

function maxAbs(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  return worst;
}

function rotation(axis: [number, number, number], degrees: number): number[] {
  const n = Math.hypot(...axis);
  return axisAngleMatrix(
    axis.map((c) => c / n),
    (degrees * Math.PI) / 180,
  );
}

function transformAll(positions: Float64Array, m: number[]): Float64Array {
  const out = new Float64Array(positions.length);
  for (let v = 0; v < positions.length / 3; v++) {
    const x = positions[3 * v],
      y = positions[3 * v + 1],
      z = positions[3 * v + 2];
    for (let r = 0; r < 3; r++) out[3 * v + r] = m[3 * r] * x + m[3 * r + 1] * y + m[3 * r + 2] * z;
  }
  return out;
}

function poseTransforms(skeleton: Skeleton, rotations: ArrayLike<number>): Float64Array {
  const transforms = new Float64Array(12 * skeleton.parents.length);
  forwardKinematics(skeleton, Float64Array.from(rotations), transforms);
  return transforms;
}

/** Per-face skinning of any shape on the rest mesh's setup: what per-face context gives at an example's pose. */
function perFacePoseOf(setup: PerFaceSkinningSetup, shape: Float64Array, transforms: Float64Array): Float64Array {
  const products = new Float64Array(9 * setup.faceCount);
  perFaceGradientProducts(setup, shape, products);
  const out = new Float64Array(shape.length);
  perFaceStitch(setup, transforms, shape, products, out);
  return out;
}

// --- a flat strip in the xy plane on two bones: x ∈ [0, 2], bone 0 (root) 0 → 1, bone 1 1 → 2 ---

const STRIP_SKELETON = buildSkeleton(
  { joints: Float64Array.from([0, 0, 0, 1, 0, 0, 2, 0, 0]), bones: Uint32Array.from([0, 1, 1, 2]) },
  'strip',
);

function strip(
  columns: number,
  rows: number,
): { positions: Float64Array; triangles: Uint32Array; influences: Influences; fixed: Int32Array } {
  const positions: number[] = [];
  for (let j = 0; j <= rows; j++) for (let i = 0; i <= columns; i++) positions.push((2 * i) / columns, j / rows - 0.5, 0);
  const triangles: number[] = [];
  for (let j = 0; j < rows; j++) {
    for (let i = 0; i < columns; i++) {
      const a = j * (columns + 1) + i;
      triangles.push(a, a + 1, a + columns + 2, a, a + columns + 2, a + columns + 1);
    }
  }
  const n = positions.length / 3;
  const weights = new Float64Array(2 * n);
  for (let v = 0; v < n; v++) {
    // A smooth ramp from bone 0 to bone 1 around the middle joint, so faces blend both rotations.
    const w1 = Math.min(1, Math.max(0, (positions[3 * v] - 0.6) / 0.8));
    weights[2 * v] = 1 - w1;
    weights[2 * v + 1] = w1;
  }
  const influences = influencesFromWeights({ rows: n, cols: 2, data: weights }, 2);
  const fixed = Int32Array.from({ length: n }, (_, v) => (positions[3 * v] < 0.2 ? 0 : -1));
  return { positions: Float64Array.from(positions), triangles: Uint32Array.from(triangles), influences, fixed };
}

test('T of a face: the identity for the rest mesh, R for a rotated one, s·I for a scaled one, diag(sx, sy, √(sx·sy)) for a flat stretch', () => {
  const { positions, triangles } = strip(6, 3);
  const faces = triangles.length / 3;
  const T = new Float64Array(9 * faces);
  const expectEvery = (expected: number[], tolerance: number, message: string): void => {
    for (let f = 0; f < faces; f++)
      assert.ok(
        maxAbs(T.subarray(9 * f, 9 * f + 9), expected) <= tolerance,
        `${message}, face ${f}: ${Array.from(T.subarray(9 * f, 9 * f + 9)).join(' ')}`,
      );
  };
  // A bent copy so the faces are not all in one plane.
  const bent = transformAll(positions, rotation([1, 2, 3], 40));
  for (let v = 0; v < bent.length / 3; v++) bent[3 * v + 2] += 0.3 * Math.sin(3 * positions[3 * v]) * positions[3 * v + 1];
  assert.equal(faceDeformationGradients(bent, triangles, bent, T), 0);
  expectEvery([1, 0, 0, 0, 1, 0, 0, 0, 1], 1e-12, 'rest');
  const R = rotation([-2, 1, 0.5], 75);
  faceDeformationGradients(bent, triangles, transformAll(bent, R), T);
  expectEvery(R, 1e-12, 'rotated');
  faceDeformationGradients(
    bent,
    triangles,
    bent.map((x) => 1.7 * x),
    T,
  );
  expectEvery([1.7, 0, 0, 0, 1.7, 0, 0, 0, 1.7], 1e-12, 'scaled');
  faceDeformationGradients(positions, triangles, transformAll(positions, [1.5, 0, 0, 0, 0.6, 0, 0, 0, 1]), T);
  expectEvery([1.5, 0, 0, 0, 0.6, 0, 0, 0, Math.sqrt(0.9)], 1e-12, 'stretched');
  // A collapsed face is counted and keeps a finite T.
  const collapsed = positions.slice();
  const [a, b] = [triangles[0], triangles[1]];
  collapsed.set(positions.subarray(3 * a, 3 * a + 3), 3 * b);
  assert.ok(
    faceDeformationGradients(positions, triangles, collapsed, T) >= 1,
    'collapsing a triangle reports at least one degenerate face',
  );
  assert.ok(T.every(Number.isFinite), 'every deformation gradient stays finite');
});

test('per-face unposing on the strip: a rigid motion returns the rest mesh in one shot; a bend returns it after refinement', () => {
  const { positions, triangles, influences, fixed } = strip(24, 6);
  const setup = perFaceSkinningSetup(positions, triangles, influences, 2, fixed);
  const diagonal = diagonalOf(positions);
  const rigid = poseTransforms(STRIP_SKELETON, [...rotation([0, 0, 1], 30), 1, 0, 0, 0, 1, 0, 0, 0, 1]);
  const posedRigid = new Float64Array(positions.length);
  perFaceSkinning(setup, rigid, posedRigid);
  const oneShot = perFaceUnpose(setup, posedRigid, rigid, { maxRefinements: 0 });
  assert.ok(maxDistance(oneShot.unposed, positions) <= 1e-10 * diagonal, `rigid: ${maxDistance(oneShot.unposed, positions)}`);

  const bend = poseTransforms(STRIP_SKELETON, [...rotation([0, 1, 1], 20), ...rotation([0, 1, 0], 70)]);
  const posed = new Float64Array(positions.length);
  perFaceSkinning(setup, bend, posed);
  const handout = perFaceUnpose(setup, posed, bend, { maxRefinements: 0 });
  const refined = perFaceUnpose(setup, posed, bend);
  const handoutError = maxDistance(handout.unposed, positions) / diagonal;
  const refinedError = maxDistance(refined.unposed, positions) / diagonal;
  console.log(
    `strip bend, unposed vs rest / diagonal: one-shot ${handoutError.toExponential(2)}, refined ${refinedError.toExponential(2)} (${refined.refinements} steps)`,
  );
  assert.ok(handoutError < 0.05 * (maxDistance(posed, positions) / diagonal), 'the one-shot unposing undoes most of the pose');
  assert.ok(refinedError <= 1e-7, `refined: ${refinedError}`);
  assert.ok(
    refined.residual <= 1e-8 && refined.residual < handout.residual,
    'the refined residual is at most 1e-8 and below the one-shot residual',
  );
});

test('Eq. 10 equals Eq. 9 when the examples carry no rotation (symmetric stretches), and differs when they do', () => {
  const { positions, triangles, influences, fixed } = strip(24, 6);
  const setup = perFaceSkinningSetup(positions, triangles, influences, 2, fixed);
  const diagonal = diagonalOf(positions);
  // Each example: the strip stretched by a symmetric positive definite in-plane map (T = diag(A, √det A), no
  // rotation), posed by per-face skinning in its own pose, then unposed again.
  const stretches = [
    [1.3, 0.2, 0, 0.2, 0.9, 0, 0, 0, 1],
    [0.8, -0.1, 0, -0.1, 1.2, 0, 0, 0, 1],
    [1.1, 0, 0, 0, 1.4, 0, 0, 0, 1],
  ];
  const poses = [
    [...rotation([0, 0, 1], 10), ...rotation([0, 1, 0], 60)],
    [...rotation([1, 0, 0], 25), ...rotation([0, 0, 1], -45)],
    [...rotation([0, 1, 1], -15), ...rotation([1, 1, 0], 35)],
  ];
  const unposeAll = (shapes: Float64Array[]): Float64Array[] =>
    perFaceUnposeExamples(
      setup,
      shapes.map((shape, j) => {
        const transforms = poseTransforms(STRIP_SKELETON, poses[j]);
        return { positions: perFacePoseOf(setup, shape, transforms), transforms };
      }),
    ).map((r) => r.unposed);
  const unposed = unposeAll(stretches.map((A) => transformAll(positions, A)));
  const examples = perFaceExamples(setup, unposed);
  // No rotation left in T: the polar logs vanish and S = T.
  let largestLog = 0;
  for (let k = 0; k < examples.polarOffsets.length; k += 9)
    largestLog = Math.max(largestLog, Math.hypot(...examples.polarOffsets.subarray(k, k + 3)));
  assert.ok(largestLog <= 1e-7, `no rotation: ${largestLog}`);

  const weights = [0.3, 0.5, 0.2];
  const transforms = poseTransforms(STRIP_SKELETON, [...rotation([1, 1, 1], 12), ...rotation([0, 1, 0], 40)]);
  const eq9 = new Float64Array(positions.length);
  const eq10 = new Float64Array(positions.length);
  const plain = new Float64Array(positions.length);
  perFaceContextSkinning(setup, examples, weights, 'eq9', transforms, eq9);
  perFaceContextSkinning(setup, examples, weights, 'eq10', transforms, eq10);
  perFaceSkinning(setup, transforms, plain);
  assert.ok(maxDistance(eq9, plain) > 0.01 * diagonal, `the examples change the result: ${maxDistance(eq9, plain) / diagonal}`);
  const stretchOnly = maxDistance(eq9, eq10) / diagonal;
  // Equal up to the float32 storage of the examples (their offsets from rest round at ~6e-8 relative).
  assert.ok(stretchOnly <= 1e-7, `eq9 vs eq10: ${stretchOnly}`);

  // The same stretches turned in the plane by ±25°: T now carries rotations and the blends part ways.
  const turned = stretches.map((A, j) => {
    const R = rotation([0, 0, 1], j === 1 ? -25 : 25);
    const RA: number[] = [];
    for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) RA.push(R[3 * r] * A[c] + R[3 * r + 1] * A[3 + c] + R[3 * r + 2] * A[6 + c]);
    return transformAll(positions, RA);
  });
  const rotating = perFaceExamples(setup, unposeAll(turned));
  perFaceContextSkinning(setup, rotating, weights, 'eq9', transforms, eq9);
  perFaceContextSkinning(setup, rotating, weights, 'eq10', transforms, eq10);
  const withRotation = maxDistance(eq9, eq10) / diagonal;
  console.log(
    `strip, Eq. 9 vs Eq. 10 / diagonal: stretch-only examples ${stretchOnly.toExponential(2)}, rotating ${withRotation.toExponential(2)}`,
  );
  assert.ok(withRotation > 1e-3, `rotating examples: eq9 vs eq10 ${withRotation}`);
});

/** The context-aware body, its 4 bone-distance influences, the per-face setup and the four sculpted examples. */
function loadBody() {
  const dir = 'context-aware';
  const { mesh } = readObj(readFileSync(dataFile(dir, 'reference.obj'), 'utf8'), 'reference.obj');
  const skeleton = buildSkeleton(readTgf(readFileSync(dataFile(dir, 'skeleton.tgf'), 'utf8'), 'skeleton.tgf'), 'skeleton.tgf');
  const boneCount = skeleton.parents.length;
  const n = mesh.positions.length / 3;
  const handles = handlesFromDmat(
    readDmat(new Uint8Array(readFileSync(dataFile(dir, 'handles.dmat'))), 'handles.dmat'),
    n,
    boneCount,
    'handles.dmat',
  );
  const weights = boneDistanceWeights(mesh.positions, skeleton);
  const influences = influencesFromWeights(weights, 4);
  const setup = perFaceSkinningSetup(
    mesh.positions,
    mesh.triangles,
    influences,
    boneCount,
    perFaceFixedVertices(skeleton.parents, influences, handles),
  );
  const examples = [0, 1, 2, 3].map((j) => {
    const positions = readObj(readFileSync(dataFile(dir, `eg${j}.obj`), 'utf8'), `eg${j}.obj`).mesh.positions;
    const rotations = new Float64Array(9 * boneCount);
    samplePose(
      poseSequenceFromDmat(readDmat(new Uint8Array(readFileSync(dataFile(dir, `eg${j}.dmat`))), `eg${j}.dmat`), boneCount, `eg${j}.dmat`),
      0,
      rotations,
    );
    return { name: `eg${j}`, positions, rotations, transforms: poseTransforms(skeleton, rotations) };
  });
  const frames = poseSequenceFromDmat(
    readDmat(new Uint8Array(readFileSync(dataFile(dir, 'all_frames.dmat'))), 'all_frames.dmat'),
    boneCount,
    'all_frames.dmat',
  );
  return { mesh, skeleton, boneCount, weights, setup, examples, frames, diagonal: diagonalOf(mesh.positions) };
}

const body = loadBody();

test('per-face unposing on the body: an example made by per-face skinning of the rest mesh unposes to the rest mesh', () => {
  const { mesh, setup, examples, diagonal } = body;
  for (const example of examples) {
    const posed = new Float64Array(mesh.positions.length);
    perFaceSkinning(setup, example.transforms, posed);
    const oneShot = perFaceUnpose(setup, posed, example.transforms, { maxRefinements: 0 });
    const refined = perFaceUnpose(setup, posed, example.transforms);
    const oneShotError = maxDistance(oneShot.unposed, mesh.positions) / diagonal;
    const refinedError = maxDistance(refined.unposed, mesh.positions) / diagonal;
    console.log(
      `${example.name}'s pose: posed vs rest ${(maxDistance(posed, mesh.positions) / diagonal).toExponential(2)}, unposed vs rest: ` +
        `one-shot ${oneShotError.toExponential(2)}, refined ${refinedError.toExponential(2)} (${refined.refinements} steps) of the diagonal`,
    );
    // The one-shot stitch leaves what the rotated triangles cannot integrate (about a percent here);
    // refinement takes it to the solver's tolerance.
    assert.ok(oneShotError < 0.05, `one-shot: ${oneShotError}`);
    assert.ok(refinedError <= 1e-7, `refined: ${refinedError}`);
  }
});

test('per-face context on the body: T of the rest mesh is I; no example or a rest example gives plain per-face skinning', () => {
  const { mesh, setup, frames, boneCount, skeleton, diagonal } = body;
  const T = new Float64Array(3 * mesh.triangles.length);
  assert.equal(faceDeformationGradients(mesh.positions, mesh.triangles, mesh.positions, T), 0);
  const identity = [1, 0, 0, 0, 1, 0, 0, 0, 1];
  let worst = 0;
  for (let f = 0; f < T.length / 9; f++) worst = Math.max(worst, maxAbs(T.subarray(9 * f, 9 * f + 9), identity));
  assert.ok(worst <= 1e-12, `T of the rest mesh: ${worst}`);
  // Stored as differences from the rest face, the rest mesh as an example is (almost) all zeros.
  const rest = perFaceExamples(setup, [mesh.positions, mesh.positions]);
  for (const [name, offsets] of Object.entries({
    productOffsets: rest.productOffsets,
    polarOffsets: rest.polarOffsets,
  })) {
    assert.ok(maxAbs(offsets, new Float32Array(offsets.length)) <= 1e-12, name);
  }

  const rotations = new Float64Array(9 * boneCount);
  samplePose(frames, 123, rotations);
  const transforms = poseTransforms(skeleton, rotations);
  const plain = new Float64Array(mesh.positions.length);
  perFaceSkinning(setup, transforms, plain);
  const out = new Float64Array(mesh.positions.length);
  perFaceContextSkinning(setup, perFaceExamples(setup, []), [], 'eq10', transforms, out);
  assert.deepEqual(out, plain, 'no examples: bit for bit');
  for (const blend of ['eq9', 'eq10'] as const) {
    perFaceContextSkinning(setup, rest, [0.25, 0.75], blend, transforms, out);
    assert.ok(maxDistance(out, plain) <= 1e-10 * diagonal, `${blend} with rest examples: ${maxDistance(out, plain) / diagonal}`);
  }
  assert.throws(() => perFaceContextSkinning(setup, rest, [1], 'eq9', transforms, out), /1 example weights for 2 examples/);
});

test('per-face context on the body: at each example pose Eq. 9 and Eq. 10 reproduce the example; plain per-face does not', () => {
  const { mesh, setup, examples, boneCount, diagonal } = body;
  const results = perFaceUnposeExamples(setup, examples);
  const perFace = perFaceExamples(
    setup,
    results.map((r) => r.unposed),
  );
  assert.deepEqual(Array.from(perFace.degenerateFaces), [0, 0, 0, 0]);
  const poses = new Float64Array(examples.length * 9 * boneCount);
  examples.forEach((e, j) => poses.set(e.rotations, 9 * boneCount * j));
  const interpolator = poseSpaceInterpolator(
    poses,
    boneCount,
    examples.map((e) => e.name),
  );
  const a = new Float64Array(examples.length);
  const plain = new Float64Array(mesh.positions.length);
  const context = new Float64Array(mesh.positions.length);
  for (const example of examples) {
    poseSpaceWeights(interpolator, example.rotations, a);
    perFaceSkinning(setup, example.transforms, plain);
    const plainError = maxDistance(plain, example.positions) / diagonal;
    const errors: Record<string, number> = {};
    for (const blend of ['eq9', 'eq10'] as const) {
      perFaceContextSkinning(setup, perFace, a, blend, example.transforms, context);
      errors[blend] = maxDistance(context, example.positions) / diagonal;
    }
    console.log(
      `${example.name} at its pose, max error / diagonal: plain per-face ${plainError.toExponential(2)}, ` +
        `context Eq. 9 ${errors.eq9.toExponential(2)}, Eq. 10 ${errors.eq10.toExponential(2)}`,
    );
    assert.ok(errors.eq10 < plainError / 100, 'Eq. 10 is far closer to the example than plain per-face');
    assert.ok(errors.eq10 <= 1e-6 && errors.eq9 <= 1e-6, 'the example is reproduced (constraint (2))');
  }
});

test('rigwright unpose --method perface and skin --method perface --examples --per-face-blend, run as users run them', () => {
  const { setup, examples, weights, diagonal } = body;
  const work = mkdtempSync(path.join(tmpdir(), 'rigwright-per-face-'));
  const weightsFile = path.join(work, 'weights.dmat');
  writeFileSync(weightsFile, writeDmatAscii(weights));
  const file = (name: string): string => dataFile('context-aware', name);
  const rig = [
    '--mesh',
    file('reference.obj'),
    '--skeleton',
    file('skeleton.tgf'),
    '--weights',
    weightsFile,
    '--handles',
    file('handles.dmat'),
  ];
  const rigwright = (...args: string[]) => {
    const run = spawnSync(process.execPath, ['app/cli/rigwright.mjs', ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 120_000 });
    if (run.error) throw run.error;
    return run;
  };
  const succeeds = (run: ReturnType<typeof rigwright>): void => assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  const positionsOf = (objFile: string): Float64Array => readObj(readFileSync(objFile, 'utf8'), objFile).mesh.positions;

  // unpose: per-face skinning of the written shape at eg2's pose (in this process, same weights) is eg2.
  const unposedFile = path.join(work, 'eg2-unposed.obj');
  succeeds(
    rigwright(
      'unpose',
      ...rig,
      '--example',
      file('eg2.obj'),
      '--example-pose',
      file('eg2.dmat'),
      '--method',
      'perface',
      '--out',
      unposedFile,
    ),
  );
  const reposed = perFacePoseOf(setup, positionsOf(unposedFile), examples[2].transforms);
  assert.ok(
    maxDistance(reposed, examples[2].positions) <= 1e-6 * diagonal,
    `unpose: ${maxDistance(reposed, examples[2].positions) / diagonal}`,
  );

  // skin at frame 87 of all_frames.dmat, eg2's pose: context per-face with eg1 and eg2 returns eg2, with either blend.
  const twoExamples = [1, 2].map((j) => `${file(`eg${j}.obj`)}:${file(`eg${j}.dmat`)}`).join(',');
  const skin = (name: string, ...extra: string[]): Float64Array => {
    const out = path.join(work, `${name}.obj`);
    succeeds(rigwright('skin', ...rig, '--poses', file('all_frames.dmat'), '--frame', '87', '--method', 'perface', ...extra, '--out', out));
    return positionsOf(out);
  };
  const plainError = maxDistance(skin('plain'), examples[2].positions) / diagonal;
  for (const blend of ['eq9', 'eq10']) {
    const error = maxDistance(skin(blend, '--examples', twoExamples, '--per-face-blend', blend), examples[2].positions) / diagonal;
    console.log(
      `rigwright skin --method perface at frame 87 vs eg2 / diagonal: plain ${plainError.toExponential(2)}, ${blend} ${error.toExponential(2)}`,
    );
    assert.ok(error <= 1e-6, `${blend}: ${error}`);
  }
  assert.ok(plainError > 1e-3, 'without per-face unposing the error is above 1e-3');

  const bad = rigwright(
    'skin',
    ...rig,
    '--poses',
    file('all_frames.dmat'),
    '--method',
    'perface',
    '--examples',
    twoExamples,
    '--per-face-blend',
    'eq11',
    '--out',
    path.join(work, 'x.obj'),
  );
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--per-face-blend must be eq9 or eq10, not "eq11"/);
  const lbs = rigwright(
    'skin',
    ...rig.slice(0, 6),
    '--poses',
    file('all_frames.dmat'),
    '--examples',
    twoExamples,
    '--per-face-blend',
    'eq9',
    '--out',
    path.join(work, 'x.obj'),
  );
  assert.equal(lbs.status, 2);
  assert.match(lbs.stderr, /--per-face-blend applies with --method perface and --examples only/);
});
