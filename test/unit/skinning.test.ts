/**
 * Linear blend skinning, influences, the joint/influence texture layout, bone-distance weights, vertex normals,
 * bounds and the procedural demo scene — against hand-derived values, rigid-motion identities and the ETH hand.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DenseMatrix } from '../../workers/formats/types.ts';
import { readOff } from '../../workers/formats/off.ts';
import { readTgf } from '../../workers/formats/tgf.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import type { Skeleton } from '../../workers/rig/skeleton.ts';
import { forwardKinematics } from '../../workers/rig/forward-kinematics.ts';
import { identityPose, poseDuration, samplePose } from '../../workers/rig/pose-sequence.ts';
import { influencesFromWeights } from '../../workers/skinning/influences.ts';
import type { Influences } from '../../workers/skinning/influences.ts';
import { linearBlendSkinning } from '../../workers/skinning/linear-blend-skinning.ts';
import {
  JOINT_TEXTURE_WIDTH,
  JOINT_TEXTURE_WIDTH_LOG2,
  influenceTextureSize,
  jointTextureSize,
  packInfluences,
  packJointTransforms,
} from '../../workers/skinning/joint-texture-layout.ts';
import { boneDistanceWeights } from '../../workers/weights/bone-distance-weights.ts';
import { vertexNormals } from '../../workers/mesh/vertex-normals.ts';
import { boundingBox } from '../../workers/mesh/bounds.ts';
import { buildDemoScene } from '../../workers/demo/demo-scene.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dataDir = process.env.RIGWRIGHT_DATA ?? path.resolve(repoRoot, '../shared/data');

function readText(relative: string): string {
  const file = path.join(dataDir, relative);
  if (!existsSync(file)) throw new Error(`test data missing: ${file} — set RIGWRIGHT_DATA to the shared data folder`);
  return readFileSync(file, 'utf8');
}

function loadHand(): { positions: Float64Array; triangles: Uint32Array; skeleton: Skeleton } {
  const { mesh } = readOff(readText('hand/hand.off'), 'hand.off');
  const skeleton = buildSkeleton(readTgf(readText('hand/hand.tgf'), 'hand.tgf'), 'hand.tgf');
  return { ...mesh, skeleton };
}

function rodrigues(axis: [number, number, number], angle: number): number[] {
  const n = Math.hypot(...axis);
  const [x, y, z] = axis.map((a) => a / n);
  const c = Math.cos(angle),
    s = Math.sin(angle),
    k = 1 - c;
  return [
    c + k * x * x,
    k * x * y - s * z,
    k * x * z + s * y,
    k * x * y + s * z,
    c + k * y * y,
    k * y * z - s * x,
    k * x * z - s * y,
    k * y * z + s * x,
    c + k * z * z,
  ];
}

/** 3×4 row-major [R | t]. */
const affine = (R: number[], t: number[]) => [R[0], R[1], R[2], t[0], R[3], R[4], R[5], t[1], R[6], R[7], R[8], t[2]];

function assertClose(actual: ArrayLike<number>, expected: ArrayLike<number>, tolerance: number, what: string): void {
  assert.equal(actual.length, expected.length, `${what}: length`);
  for (let i = 0; i < expected.length; i++) {
    assert.ok(Math.abs(actual[i] - expected[i]) <= tolerance, `${what}[${i}]: ${actual[i]} vs ${expected[i]}`);
  }
}

test('at rest, LBS returns the rest mesh bit-exactly, even with top-K weights that miss 1 in float32', () => {
  const { positions, triangles, skeleton } = loadHand();
  const B = skeleton.parents.length;
  const influences = influencesFromWeights(boneDistanceWeights(positions, skeleton), 3);
  let inexact = 0;
  for (let v = 0; v < influences.vertexCount; v++) {
    let sum = 0;
    for (let k = 0; k < influences.stride; k++) sum = Math.fround(sum + influences.weights[v * influences.stride + k]);
    if (sum !== 1) inexact++;
  }
  assert.ok(inexact > 100, `the case under test occurs (${inexact} rows do not sum to 1 in float32)`);
  const transforms = new Float64Array(12 * B);
  forwardKinematics(skeleton, identityPose(B), transforms);
  const posed = new Float64Array(positions.length);
  linearBlendSkinning(positions, influences, transforms, posed);
  assert.deepEqual(posed, positions);
  const normals = vertexNormals(positions, triangles);
  const posedNormals = new Float64Array(normals.length);
  linearBlendSkinning(positions, influences, transforms, posed, normals, posedNormals);
  assert.deepEqual(posed, positions);
  assertClose(posedNormals, normals, 1e-15, 'rest normals');
});

test('two bones at 0.5/0.5 give the hand-derived midpoint', () => {
  // Bone 0 shifts by (0, 0, 2); bone 1 turns 90° about z and shifts by (1, 0, 0).
  // (1, 0, 0) → (1, 0, 2) and (0, 1, 0) + (1, 0, 0) = (1, 1, 0); the midpoint is (1, 0.5, 1).
  // (0, 2, 3) → (0, 2, 5) and (−2, 0, 3) + (1, 0, 0) = (−1, 0, 3); the midpoint is (−0.5, 1, 4).
  const transforms = new Float64Array([
    ...affine([1, 0, 0, 0, 1, 0, 0, 0, 1], [0, 0, 2]),
    ...affine([0, -1, 0, 1, 0, 0, 0, 0, 1], [1, 0, 0]),
  ]);
  const influences: Influences = {
    vertexCount: 2,
    stride: 2,
    bones: new Uint32Array([0, 1, 1, 0]),
    weights: new Float32Array([0.5, 0.5, 0.5, 0.5]),
  };
  const posed = new Float64Array(6);
  linearBlendSkinning(new Float64Array([1, 0, 0, 0, 2, 3]), influences, transforms, posed);
  assert.deepEqual([...posed], [1, 0.5, 1, -0.5, 1, 4]);
  // The blended linear part is [[.5, −.5, 0], [.5, .5, 0], [0, 0, 1]]; its cofactor maps the normal
  // (1, 0, 0) to (0.5, 0.5, 0), i.e. (1, 1, 0)/√2 after renormalizing.
  const normals = new Float64Array(6);
  linearBlendSkinning(new Float64Array([1, 0, 0, 0, 2, 3]), influences, transforms, posed, new Float64Array([1, 0, 0, 0, 0, 1]), normals);
  assertClose(normals, [Math.SQRT1_2, Math.SQRT1_2, 0, 0, 0, 1], 1e-15, 'blended normals');
});

test('a rigid motion applied to every bone moves the mesh rigidly and rotates its normals', () => {
  const { positions, triangles, skeleton } = loadHand();
  const B = skeleton.parents.length;
  const influences = influencesFromWeights(boneDistanceWeights(positions, skeleton), 4);
  const R = rodrigues([0.2, 1, -0.4], 1.3);
  const t = [0.3, -2, 0.7];
  const transforms = new Float64Array(12 * B);
  for (let b = 0; b < B; b++) transforms.set(affine(R, t), 12 * b);
  const normals = vertexNormals(positions, triangles);
  const posed = new Float64Array(positions.length);
  const posedNormals = new Float64Array(positions.length);
  linearBlendSkinning(positions, influences, transforms, posed, normals, posedNormals);
  const expected = new Float64Array(positions.length);
  const expectedNormals = new Float64Array(positions.length);
  for (let v = 0; v < positions.length; v += 3) {
    for (let r = 0; r < 3; r++) {
      expected[v + r] = R[3 * r] * positions[v] + R[3 * r + 1] * positions[v + 1] + R[3 * r + 2] * positions[v + 2] + t[r];
      expectedNormals[v + r] = R[3 * r] * normals[v] + R[3 * r + 1] * normals[v + 1] + R[3 * r + 2] * normals[v + 2];
    }
  }
  // Weights are float32, so Σw differs from 1 by ~1e-7: the result is rigid up to that times the displacement.
  assertClose(posed, expected, 1e-6, 'positions');
  assertClose(posedNormals, expectedNormals, 1e-6, 'normals');
  // Positions-only and with-normals paths agree, and normals of the moved mesh equal the rotated normals.
  const positionsOnly = new Float64Array(positions.length);
  linearBlendSkinning(positions, influences, transforms, positionsOnly);
  assertClose(positionsOnly, posed, 1e-12, 'both paths');
  // Recomputing normals on the moved mesh is a second route to the same answer; tiny triangles amplify the 1e-7 noise.
  assertClose(vertexNormals(posed, triangles), expectedNormals, 1e-4, 'normals recomputed on the moved mesh');
});

test('a vertex without weight stays in place; float32 weights are what LBS uses', () => {
  const transforms = new Float64Array(affine(rodrigues([0, 0, 1], 1), [5, 5, 5]));
  const influences: Influences = { vertexCount: 1, stride: 1, bones: new Uint32Array([0]), weights: new Float32Array([0]) };
  const posed = new Float64Array(3);
  linearBlendSkinning(new Float64Array([1, 2, 3]), influences, transforms, posed);
  assert.deepEqual([...posed], [1, 2, 3]);
});

test('influencesFromWeights keeps the K largest non-zero weights, sorted, renormalized', () => {
  const weights: DenseMatrix = {
    rows: 5,
    cols: 5,
    data: new Float64Array([
      0.1,
      0.4,
      0.0,
      0.3,
      0.2, // keeps bones 1, 3, 4: 0.4, 0.3, 0.2 over 0.9
      0.0,
      0.0,
      1.0,
      0.0,
      0.0, // one influence, padded with bone 0 weight 0
      0.0,
      0.0,
      0.0,
      0.0,
      0.0, // all zero stays zero
      0.5,
      -0.5,
      0.0,
      0.0,
      0.0, // sums to 0: stays zero
      0.25,
      0.25,
      0.25,
      0.25,
      Number.NaN, // ties: lower bone first; NaN ignored
    ]),
  };
  const top3 = influencesFromWeights(weights, 3);
  assert.equal(top3.vertexCount, 5);
  assert.equal(top3.stride, 3);
  assert.deepEqual([...top3.bones], [1, 3, 4, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2]);
  assert.deepEqual([...top3.weights], [0.4 / 0.9, 0.3 / 0.9, 0.2 / 0.9, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1 / 3, 1 / 3, 1 / 3].map(Math.fround));

  const all = influencesFromWeights(weights, 0);
  assert.equal(all.stride, 4, 'the widest rows have 4 non-zero weights');
  assert.deepEqual([...all.bones.subarray(0, 4)], [1, 3, 4, 0]);
  const sum = 0.4 + 0.3 + 0.2 + 0.1;
  assert.deepEqual([...all.weights.subarray(0, 4)], [0.4 / sum, 0.3 / sum, 0.2 / sum, 0.1 / sum].map(Math.fround));
  assert.deepEqual([...all.weights.subarray(16, 20)], [0.25, 0.25, 0.25, 0.25]);

  const sparse = influencesFromWeights({ rows: 2, cols: 3, data: new Float64Array([0, 0, 0, 0, 2, 0]) }, 4);
  assert.equal(sparse.stride, 1);
  assert.deepEqual([...sparse.bones], [0, 1]);
  assert.deepEqual([...sparse.weights], [0, 1]);
});

test('joint texture: bone b row r sits at texel 3b + r, (x, y) = (i mod 1024, ⌊i / 1024⌋); 1500 bones fit', () => {
  const B = 1501;
  const { width, height } = jointTextureSize(B);
  assert.equal(width, JOINT_TEXTURE_WIDTH);
  assert.equal(1 << JOINT_TEXTURE_WIDTH_LOG2, JOINT_TEXTURE_WIDTH, 'the shaders split texel indices with a mask and a shift');
  assert.equal(width, 1024);
  assert.equal(height, Math.ceil((3 * B) / 1024));
  assert.equal(jointTextureSize(1).height, 1);
  const transforms = new Float64Array(12 * B);
  for (let i = 0; i < transforms.length; i++) transforms[i] = i + 0.5;
  const pixels = new Float32Array(width * height * 4).fill(-1);
  packJointTransforms(transforms, B, pixels);
  for (const b of [0, 1, 341, 342, 1000, 1500]) {
    for (let r = 0; r < 3; r++) {
      const i = 3 * b + r;
      const x = i % 1024,
        y = Math.floor(i / 1024);
      const texel: number[] = Array.from(pixels.subarray(4 * (y * width + x), 4 * (y * width + x) + 4));
      assert.deepEqual(
        texel,
        [0, 1, 2, 3].map((c) => Math.fround(12 * b + 4 * r + c + 0.5)),
        `bone ${b} row ${r} at (${x}, ${y})`,
      );
    }
  }
  assert.equal(Math.floor((3 * 1500 + 2) / 1024), 4, 'bone 1500 is on the fifth row');
  assert.equal(pixels[4 * 3 * B], -1, 'texels past the last bone are untouched');
});

test('influence texture: vertex v owns ceil(stride/2) texels of (bone, weight, bone, weight)', () => {
  const V = 700;
  const stride = 3;
  const bones = new Uint32Array(V * stride);
  const weights = new Float32Array(V * stride);
  for (let i = 0; i < bones.length; i++) {
    bones[i] = (i * 7) % 1500;
    weights[i] = (i % 5) / 8;
  }
  const size = influenceTextureSize(V, stride);
  assert.equal(size.texelsPerVertex, 2);
  assert.equal(size.width, 1024);
  assert.equal(size.height, Math.ceil((V * 2) / 1024));
  const pixels = new Float32Array(size.width * size.height * 4).fill(-1);
  packInfluences({ vertexCount: V, stride, bones, weights }, pixels);
  for (const v of [0, 1, 511, 512, 699]) {
    for (let k = 0; k < 2; k++) {
      const i = v * 2 + k;
      const x = i % 1024,
        y = Math.floor(i / 1024);
      const texel = [...pixels.subarray(4 * (y * 1024 + x), 4 * (y * 1024 + x) + 4)];
      const slot = (s: number) => (s < stride ? [bones[v * stride + s], weights[v * stride + s]] : [0, 0]);
      assert.deepEqual(texel, [...slot(2 * k), ...slot(2 * k + 1)], `vertex ${v} texel ${k}`);
    }
  }
  assert.equal(influenceTextureSize(10, 4).texelsPerVertex, 2);
  assert.equal(influenceTextureSize(10, 1).texelsPerVertex, 1);
});

test('bone-distance weights are a partition of unity and a point on bone b is weighted most by b', () => {
  const { positions, skeleton } = loadHand();
  const B = skeleton.parents.length;
  const weights = boneDistanceWeights(positions, skeleton);
  assert.equal(weights.rows, positions.length / 3);
  assert.equal(weights.cols, B);
  for (let v = 0; v < weights.rows; v++) {
    let sum = 0;
    for (let b = 0; b < B; b++) {
      const w = weights.data[v * B + b];
      assert.ok(w >= 0 && w <= 1, `weight (${v}, ${b}) = ${w}`);
      sum += w;
    }
    assert.ok(Math.abs(sum - 1) < 1e-12, `row ${v} sums to ${sum}`);
  }
  // Points at 30%, 50% and 70% along every bone.
  const points = new Float64Array(B * 9);
  for (let b = 0; b < B; b++) {
    const s = 3 * skeleton.bones[2 * b],
      e = 3 * skeleton.bones[2 * b + 1];
    [0.3, 0.5, 0.7].forEach((f, k) => {
      for (let c = 0; c < 3; c++) points[9 * b + 3 * k + c] = (1 - f) * skeleton.joints[s + c] + f * skeleton.joints[e + c];
    });
  }
  const onBones = boneDistanceWeights(points, skeleton);
  for (let p = 0; p < 3 * B; p++) {
    const row = onBones.data.subarray(p * B, p * B + B);
    const b = Math.floor(p / 3);
    assert.equal(row.indexOf(Math.max(...row)), b, `point ${p % 3} on bone ${b}`);
  }
  // Scale-free: scaling mesh and skeleton together leaves the weights unchanged.
  const scaled = buildSkeleton({ joints: skeleton.joints.map((x) => 1000 * x), bones: skeleton.bones }, 'scaled');
  const scaledWeights = boneDistanceWeights(
    points.map((x) => 1000 * x),
    scaled,
  );
  assertClose(scaledWeights.data, onBones.data, 1e-9, 'scaled weights');
});

test('vertex normals: outward unit normals of an octahedron, zero-area safe; bounding box', () => {
  const positions = new Float64Array([1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 5, 5, 5]);
  // Eight faces, CCW seen from outside; vertex 6 is isolated.
  const triangles = new Uint32Array([0, 2, 4, 2, 1, 4, 1, 3, 4, 3, 0, 4, 2, 0, 5, 1, 2, 5, 3, 1, 5, 0, 3, 5]);
  const normals = vertexNormals(positions, triangles);
  assertClose(normals, [1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 1], 1e-15, 'octahedron');
  const degenerate = vertexNormals(new Float64Array([0, 0, 0, 1, 1, 1, 2, 2, 2]), new Uint32Array([0, 1, 2]));
  assert.deepEqual([...degenerate], [0, 0, 1, 0, 0, 1, 0, 0, 1]);
  const box = boundingBox(positions);
  assert.deepEqual(box.min, [-1, -1, -1]);
  assert.deepEqual(box.max, [5, 5, 5]);
  assert.equal(box.diagonal, Math.hypot(6, 6, 6));
  assert.deepEqual(boundingBox(new Float64Array(0)), { min: [0, 0, 0], max: [0, 0, 0], diagonal: 0 });
});

test('demo scene: closed outward mesh, a bone chain, partition-of-unity weights, a looping wave', () => {
  const scene = buildDemoScene();
  const { positions, triangles } = scene.mesh;
  const V = positions.length / 3;
  assert.ok(V >= 4000 && V <= 8000, `${V} vertices`);
  // Closed and consistently oriented: every directed edge once, and its reverse once.
  const directed = new Map<string, number>();
  for (let f = 0; f < triangles.length; f += 3) {
    const [a, b, c] = triangles.subarray(f, f + 3);
    assert.ok(a !== b && b !== c && c !== a && Math.max(a, b, c) < V, `triangle ${f / 3}`);
    for (const [p, q] of [
      [a, b],
      [b, c],
      [c, a],
    ])
      directed.set(`${p},${q}`, (directed.get(`${p},${q}`) ?? 0) + 1);
  }
  for (const [edge, count] of directed) {
    const [p, q] = edge.split(',');
    assert.equal(count, 1, `edge ${edge} used once in this direction`);
    assert.equal(directed.get(`${q},${p}`), 1, `edge ${edge} shared by exactly two triangles`);
  }
  assert.equal(V - directed.size / 2 + triangles.length / 3, 2, 'Euler characteristic of a sphere');
  // Outward: positive signed volume, and every face normal points away from the body axis (x).
  let volume = 0;
  for (let f = 0; f < triangles.length; f += 3) {
    const [a, b, c] = [...triangles.subarray(f, f + 3)].map((i) => positions.subarray(3 * i, 3 * i + 3));
    volume += (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0])) / 6;
  }
  assert.ok(volume > 0, `signed volume ${volume}`);
  const normals = vertexNormals(positions, triangles);
  for (let v = 0; v < V; v++) {
    const radial = Math.hypot(positions[3 * v + 1], positions[3 * v + 2]);
    if (radial > 1e-9)
      assert.ok(
        normals[3 * v + 1] * positions[3 * v + 1] + normals[3 * v + 2] * positions[3 * v + 2] > 0,
        `normal of vertex ${v} faces outward`,
      );
  }

  const skeleton = buildSkeleton(scene.skeleton, 'demo');
  const B = skeleton.parents.length;
  assert.ok(B >= 5 && B <= 8, `${B} bones`);
  assert.equal(skeleton.parents.filter((p) => p < 0).length, 1, 'one root');
  assert.deepEqual(
    [...skeleton.parents],
    Array.from({ length: B }, (_, b) => b - 1),
    'a chain',
  );
  assert.equal(scene.weights.rows, V);
  assert.equal(scene.weights.cols, B);
  for (let v = 0; v < V; v++) {
    let sum = 0;
    for (let b = 0; b < B; b++) sum += scene.weights.data[v * B + b];
    assert.ok(Math.abs(sum - 1) < 1e-12, `weights of vertex ${v} sum to ${sum}`);
  }

  const poses = scene.poses;
  assert.equal(poses.kind, 'matrices');
  if (poses.kind !== 'matrices') return;
  assert.equal(poses.boneCount, B);
  assert.ok(poses.frameCount >= 60, `${poses.frameCount} frames`);
  const L = poses.frameCount;
  assert.deepEqual(poses.rotations.subarray(0, 9 * B), poses.rotations.subarray((L - 1) * 9 * B), 'last frame equals first');
  // Every block is a rotation, and the animation is smooth: neighbouring frames differ little, the wave is visible.
  let largestStep = 0,
    largestAngle = 0;
  for (let f = 0; f < L; f++) {
    for (let b = 0; b < B; b++) {
      const R = poses.rotations.subarray((f * B + b) * 9, (f * B + b) * 9 + 9);
      const det = R[0] * (R[4] * R[8] - R[5] * R[7]) - R[1] * (R[3] * R[8] - R[5] * R[6]) + R[2] * (R[3] * R[7] - R[4] * R[6]);
      assert.ok(Math.abs(det - 1) < 1e-12, `frame ${f} bone ${b} det ${det}`);
      largestAngle = Math.max(largestAngle, Math.acos(Math.min(1, (R[0] + R[4] + R[8] - 1) / 2)));
      if (f > 0) {
        const P = poses.rotations.subarray(((f - 1) * B + b) * 9, ((f - 1) * B + b) * 9 + 9);
        for (let i = 0; i < 9; i++) largestStep = Math.max(largestStep, Math.abs(R[i] - P[i]));
      }
    }
  }
  assert.ok(largestStep < 0.05, `frame-to-frame change ${largestStep}`);
  assert.ok(largestAngle > 0.2, `bones bend by up to ${largestAngle} rad`);

  // Skinning a mid-animation frame keeps the worm in one piece: finite positions, bounded stretch of every edge.
  const rotations = new Float64Array(9 * B);
  samplePose(poses, poseDuration(poses) / 3, rotations);
  const transforms = new Float64Array(12 * B);
  forwardKinematics(skeleton, rotations, transforms);
  const posed = new Float64Array(positions.length);
  linearBlendSkinning(positions, influencesFromWeights(scene.weights, 4), transforms, posed);
  for (const [edge] of directed) {
    const [p, q] = edge.split(',').map(Number);
    const rest = Math.hypot(
      positions[3 * p] - positions[3 * q],
      positions[3 * p + 1] - positions[3 * q + 1],
      positions[3 * p + 2] - positions[3 * q + 2],
    );
    const moved = Math.hypot(posed[3 * p] - posed[3 * q], posed[3 * p + 1] - posed[3 * q + 1], posed[3 * p + 2] - posed[3 * q + 2]);
    assert.ok(moved < 2 * rest && moved > 0.5 * rest, `edge ${edge} stretches from ${rest} to ${moved}`);
  }
});
