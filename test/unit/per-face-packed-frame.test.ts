/**
 * Per-face skinning's frame on the packed factor against the frame as it ran before (per-face-frame-reference.ts),
 * which differs in two places only: the blended faces' exp (series here, Math.sin and Math.cos there) and the solve
 * (streaming through choleskyPanels here, the factor's column-major blocks there). On the body subdivided once
 * (73,806 vertices) and twice (295,218 vertices, the production size the packing is for), posed by the frames of
 * all_frames.dmat. The two must agree to 1e-12 of the bounding-box diagonal. Also the face loop in WebAssembly
 * (face-kernel.ts) against the JavaScript loop, which must add the same right-hand sides bit for bit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readTgf } from '../../workers/formats/tgf.ts';
import { readDmat } from '../../workers/formats/dmat.ts';
import { poseSequenceFromDmat } from '../../workers/formats/pose-file.ts';
import { boundingBox } from '../../workers/mesh/bounds.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { forwardKinematics } from '../../workers/rig/forward-kinematics.ts';
import { poseDuration, samplePose } from '../../workers/rig/pose-sequence.ts';
import { boneDistanceWeights } from '../../workers/weights/bone-distance-weights.ts';
import { influencesFromWeights } from '../../workers/skinning/influences.ts';
import {
  accumulateFaceGradients,
  boneLogarithms,
  perFaceFixedVertices,
  perFaceGradientProducts,
  perFaceSkinning,
  perFaceSkinningSetupAndFactor,
  perFaceSkinningWorkspace,
} from '../../workers/skinning/per-face-skinning.ts';
import { faceKernel, type FaceKernel } from '../../workers/skinning/face-kernel.ts';
import { perFaceContextProductRange } from '../../workers/skinning/per-face-example-blend.ts';
import { panelMemory } from '../../workers/sparse/panel-kernels.ts';
import { MemoryCarver } from '../../workers/sparse/wasm-module.ts';
import { seededRandom } from './seeded-random.ts';
import { referencePerFaceSkinning } from './per-face-frame-reference.ts';
import { subdividedCourseBody } from './midpoint-subdivision.ts';
import { dataFile } from './shared-data.ts';

const skeleton = buildSkeleton(readTgf(readFileSync(dataFile('context-aware/skeleton.tgf'), 'utf8'), 'skeleton.tgf'), 'skeleton.tgf');
const boneCount = skeleton.parents.length;
const frames = poseSequenceFromDmat(
  readDmat(new Uint8Array(readFileSync(dataFile('context-aware/all_frames.dmat'))), 'all_frames.dmat'),
  boneCount,
  'all_frames.dmat',
);

/**
 * Poses the body subdivided `levels` times by `poseCount` frames spread over the animation, both ways.
 * @returns the largest vertex distance between the two frames over the diagonal, and how far the poses moved the
 *          mesh (so a frame that returned the rest shape would show)
 */
function compareFrames(levels: number, poseCount: number): { worst: number; moved: number; vertices: number } {
  const body = subdividedCourseBody(levels);
  const influences = influencesFromWeights(boneDistanceWeights(body.positions, skeleton), 4);
  const { setup, factor } = perFaceSkinningSetupAndFactor(
    body.positions,
    body.triangles,
    influences,
    boneCount,
    perFaceFixedVertices(skeleton.parents, influences, body.handles),
  );
  assert.ok(!('factor' in setup), 'the setup keeps only the packed factor, not the factor itself');
  const diagonal = boundingBox(body.positions).diagonal;
  const workspace = perFaceSkinningWorkspace(setup);
  const rotations = new Float64Array(9 * boneCount);
  const transforms = new Float64Array(12 * boneCount);
  const packed = new Float64Array(body.positions.length);
  const reference = new Float64Array(body.positions.length);
  let worst = 0;
  let moved = Infinity;
  for (let k = 0; k < poseCount; k++) {
    samplePose(frames, Math.floor((k * poseDuration(frames)) / Math.max(1, poseCount - 1)), rotations);
    forwardKinematics(skeleton, rotations, transforms);
    perFaceSkinning(setup, transforms, packed, workspace);
    referencePerFaceSkinning(setup, factor, transforms, reference);
    let distance = 0;
    let motion = 0;
    for (let i = 0; i < packed.length; i += 3) {
      distance = Math.max(
        distance,
        Math.hypot(packed[i] - reference[i], packed[i + 1] - reference[i + 1], packed[i + 2] - reference[i + 2]),
      );
      motion = Math.max(
        motion,
        Math.hypot(packed[i] - body.positions[i], packed[i + 1] - body.positions[i + 1], packed[i + 2] - body.positions[i + 2]),
      );
    }
    worst = Math.max(worst, distance / diagonal);
    moved = Math.min(moved, motion / diagonal);
  }
  return { worst, moved, vertices: setup.vertexCount };
}

test('per-face skinning on the packed factor equals the earlier frame on 30 poses of the body subdivided once (73,806 vertices) to 1e-12 of the diagonal', () => {
  const { worst, moved, vertices } = compareFrames(1, 30);
  assert.equal(vertices, 73_806);
  assert.ok(moved > 0.01, `every pose moves some vertex by over 1% of the diagonal (least: ${moved})`);
  assert.ok(worst <= 1e-12, `largest difference ${worst} of the diagonal`);
});

test('per-face skinning on the packed factor equals the earlier frame on 30 poses of the body subdivided twice (295,218 vertices; about 20 s) to 1e-12 of the diagonal', () => {
  const { worst, moved, vertices } = compareFrames(2, 30);
  assert.equal(vertices, 295_218);
  assert.ok(moved > 0.01, `every pose moves some vertex by over 1% of the diagonal (least: ${moved})`);
  assert.ok(worst <= 1e-12, `largest difference ${worst} of the diagonal`);
});

test("the setup's faces are the mesh's in the order of their lowest pivot row (mesh order within a row), each corner's solution row beside them, and every pivot row's vertex known", () => {
  const body = subdividedCourseBody(0);
  const influences = influencesFromWeights(boneDistanceWeights(body.positions, skeleton), 4);
  const fixed = perFaceFixedVertices(skeleton.parents, influences, body.handles);
  const { setup } = perFaceSkinningSetupAndFactor(body.positions, body.triangles, influences, boneCount, fixed);
  const { faceCount, triangles, cornerRows, solutionRow, faceSlotStart, faceProducts, pivotVertex } = setup;
  assert.equal(faceCount, body.triangles.length / 3);
  // Which mesh face each setup face is: by its corners, all distinct per face here.
  const meshFace = new Map<string, number>();
  for (let f = 0; f < faceCount; f++) meshFace.set(String([...body.triangles.subarray(3 * f, 3 * f + 3)]), f);
  const seen = new Uint8Array(faceCount);
  let previous: [number, number] = [-1, -1];
  for (let i = 0; i < faceCount; i++) {
    const corners = [...triangles.subarray(3 * i, 3 * i + 3)];
    const f = meshFace.get(String(corners));
    assert.ok(f !== undefined && seen[f] === 0, `setup face ${i} is a mesh face, once`);
    seen[f] = 1;
    const rows = corners.map((v) => solutionRow[v]);
    assert.deepEqual([...cornerRows.subarray(3 * i, 3 * i + 3)], rows, `face ${i}: its corners' rows`);
    const lowest = Math.min(...rows);
    assert.ok(lowest > previous[0] || (lowest === previous[0] && f > previous[1]), `face ${i}: after the face before it`);
    previous = [lowest, f];
    assert.ok(faceSlotStart[i + 1] > faceSlotStart[i], `face ${i} has its weights`);
  }
  // The products went with their faces: recomputed from the setup's triangles, they are the stored ones.
  const products = new Float64Array(faceProducts.length);
  perFaceGradientProducts(setup, setup.restPositions, products);
  assert.deepEqual(products, faceProducts, "each face's products from its own corners");
  assert.equal(pivotVertex.length, setup.freeCount);
  for (let v = 0; v < body.positions.length / 3; v++) {
    if (setup.freeIndex[v] >= 0) assert.equal(pivotVertex[solutionRow[v] / 3], 3 * v, `vertex ${v}'s pivot row`);
  }
});

test('the face loop in WebAssembly adds what the JavaScript loop adds, bit for bit: 30 poses of the body, with bone scales, and faces whose weights sum to three (logs past the series, which the loop takes)', () => {
  const body = subdividedCourseBody(0);
  const influences = influencesFromWeights(boneDistanceWeights(body.positions, skeleton), 4);
  const fixed = perFaceFixedVertices(skeleton.parents, influences, body.handles);
  // Every vertex's weights tripled from the arm's first vertex on: faces there blend logs up to three times as long.
  const tripled = {
    ...influences,
    weights: Float32Array.from(influences.weights, (w, i) => (i >= influences.weights.length / 2 ? 3 * w : w)),
  };
  for (const [name, weights] of [
    ['weights summing to one', influences],
    ['weights summing to three on half the mesh', tripled],
  ] as const) {
    const { setup } = perFaceSkinningSetupAndFactor(body.positions, body.triangles, weights, boneCount, fixed);
    const kernelArrays = setup.faceKernel;
    const rows = setup.panels.solution;
    assert.ok(kernelArrays !== null && rows !== null, 'Node has WebAssembly SIMD: the setup has its face kernel');
    let calls = 0;
    const counted: FaceKernel = {
      ...kernelArrays.kernel,
      faceGradients: (...args) => {
        calls++;
        return kernelArrays.kernel.faceGradients(...args);
      },
    };
    const workspace = perFaceSkinningWorkspace(setup);
    assert.equal(workspace.quaternions, kernelArrays.quaternions, "the workspace's bone logs are the kernel's");
    const rotations = new Float64Array(9 * boneCount);
    const transforms = new Float64Array(12 * boneCount);
    const scales = Float64Array.from({ length: 3 * boneCount }, (_, i) => 1 + 0.25 * Math.sin(i));
    const rhs = rows.subarray(0, 3 * (setup.freeCount + 1));
    const loop = new Float64Array(rhs.length);
    let differing = 0;
    for (let k = 0; k < 30; k++) {
      samplePose(frames, Math.floor((k * poseDuration(frames)) / 29), rotations);
      forwardKinematics(skeleton, rotations, transforms);
      const scaled = k % 3 === 2;
      boneLogarithms(setup, transforms, scaled ? scales : null, workspace);
      const pairScales = scaled ? workspace.pairScales : null;
      const { quaternions, pairLogs } = workspace;
      rhs.fill(0);
      loop.fill(0);
      accumulateFaceGradients(setup, 0, setup.faceCount, quaternions, pairLogs, pairScales, setup.faceProducts, rhs, counted);
      accumulateFaceGradients(setup, 0, setup.faceCount, quaternions, pairLogs, pairScales, setup.faceProducts, loop, null);
      for (let i = 0; i < rhs.length; i++) if (!Object.is(rhs[i], loop[i])) differing++;
      assert.ok(
        loop.some((v) => v !== 0),
        `${name}, pose ${k}: the faces added something`,
      );
    }
    assert.equal(differing, 0, `${name}: right-hand side values that differ from the loop's`);
    if (weights === influences) assert.equal(calls, 30, `${name}: one kernel call per pose, no face left to the loop`);
    else assert.ok(calls > 30, `${name}: the kernel left faces to the loop (${calls} calls in 30 poses)`);
  }
});

test('the examples’ blend in WebAssembly writes what the JavaScript loop writes, bit for bit: Eq. 9 and Eq. 10 on the body’s faces, three of four examples active, faces whose blended log is past the series left to the loop', () => {
  const body = subdividedCourseBody(0);
  const influences = influencesFromWeights(boneDistanceWeights(body.positions, skeleton), 4);
  const fixed = perFaceFixedVertices(skeleton.parents, influences, body.handles);
  const { setup } = perFaceSkinningSetupAndFactor(body.positions, body.triangles, influences, boneCount, fixed);
  const F = setup.faceCount;
  const J = 4;
  const memory = panelMemory(MemoryCarver.bytes([9 * F, 9 * F, 9 * F, J, 0], [J, 9 * F * J, 6 * F * J]), false);
  assert.ok(memory !== null, 'Node has WebAssembly SIMD');
  const kernel = faceKernel(memory);
  assert.ok(kernel !== null, 'the face kernel compiles');
  const carver = new MemoryCarver(memory.buffer);
  const faceProducts = carver.copyOf(setup.faceProducts);
  const rand = seededRandom(77);
  const long = new Set(Array.from({ length: 40 }, () => Math.floor(rand() * F)));
  const polarOffsets = carver.float32(9 * F * J);
  const productOffsets = carver.float32(6 * F * J);
  for (let f = 0; f < F; f++) {
    for (let j = 0; j < J; j++) {
      const e = 9 * (f * J + j);
      // Logs past the series where the blend (weights summing to 1.2) passes |l| = π: the loop's Math.sin and Math.cos.
      for (let c = 0; c < 3; c++) polarOffsets[e + c] = long.has(f) ? 4 : rand() - 0.5;
      for (let c = 3; c < 9; c++) polarOffsets[e + c] = 0.4 * rand() - 0.2;
      for (let c = 0; c < 6; c++) productOffsets[6 * (f * J + j) + c] = (rand() - 0.5) * Math.abs(faceProducts[9 * f + (c % 3)] + 1e-3);
    }
  }
  const active = carver.copyOf(Int32Array.from([2, 0, 3, 1]));
  const activeWeights = carver.copyOf(Float64Array.from([0.6, -0.3, 0.9, 0]));
  const examples = { exampleCount: J, productOffsets, polarOffsets };
  const lists = { active, activeWeights };
  const out = carver.float64(9 * F);
  let calls = 0;
  const counted: FaceKernel = {
    ...kernel,
    contextProducts: (...args) => {
      calls++;
      return kernel.contextProducts(...args);
    },
  };
  for (const blend of ['eq9', 'eq10'] as const) {
    calls = 0;
    out.fill(NaN);
    perFaceContextProductRange(faceProducts, examples, 3, lists, blend, out, 0, F, counted);
    const expected = new Float64Array(9 * F).fill(NaN);
    perFaceContextProductRange(faceProducts, examples, 3, lists, blend, expected, 0, F, null);
    let differing = 0;
    for (let i = 0; i < 9 * F; i++) if (!Object.is(out[i], expected[i])) differing++;
    assert.equal(differing, 0, `${blend}: blended products that differ from the loop's`);
    assert.ok(
      expected.every((v) => Number.isFinite(v)),
      `${blend}: every face written`,
    );
    if (blend === 'eq9') assert.equal(calls, 1, 'Eq. 9 is linear: one call blends every face');
    else assert.equal(calls, long.size + 1, `Eq. 10: the kernel left the ${long.size} faces with long logs to the loop`);
  }
  // Arrays outside the kernel's memory take the loop.
  calls = 0;
  const elsewhere = new Float64Array(9 * F);
  perFaceContextProductRange(faceProducts, examples, 3, lists, 'eq10', elsewhere, 0, F, counted);
  assert.equal(calls, 0, 'no kernel call for an output outside its memory');
  assert.deepEqual(elsewhere, out, 'the same products from the loop');
});
