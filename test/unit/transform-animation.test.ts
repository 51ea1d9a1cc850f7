/**
 * libigl's absolute-transform animation (workers/formats/transform-animation.ts) on the elephant of libigl's tutorial
 * 408 and on small hand-made rigs. The layout is checked against the data itself: frame 0 is the rest pose and libigl's
 * LBS U = M·T, evaluated here straight from the file's columns, keeps the elephant's volume and edge lengths
 * plausible in every frame (reading each column transposed does not). The clip made from it is then skinned the way
 * the app skins (forward kinematics, linearBlendSkinning) and compared with that evaluation.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readDmat } from '../../workers/formats/dmat.ts';
import { dmatReadings, dmatRole } from '../../workers/formats/dmat-role.ts';
import { FormatError } from '../../workers/formats/format-error.ts';
import { readObj } from '../../workers/formats/obj.ts';
import { readTgf } from '../../workers/formats/tgf.ts';
import { poseSequenceFromTransforms, readsAsTransformAnimation, TRANSLATION_ROUNDING } from '../../workers/formats/transform-animation.ts';
import type { DenseMatrix } from '../../workers/formats/types.ts';
import { poseForwardKinematics } from '../../workers/rig/forward-kinematics.ts';
import { buildSkeleton, type Skeleton } from '../../workers/rig/skeleton.ts';
import { influencesFromWeights, type Influences } from '../../workers/skinning/influences.ts';
import { linearBlendSkinning } from '../../workers/skinning/linear-blend-skinning.ts';
import { dataFile } from './shared-data.ts';

const animation = readDmat(new Uint8Array(readFileSync(dataFile('libigl', 'elephant-anim.dmat'))), 'elephant-anim.dmat');
const weights = readDmat(new Uint8Array(readFileSync(dataFile('libigl', 'elephant-weights.dmat'))), 'elephant-weights.dmat');
const { mesh } = readObj(readFileSync(dataFile('libigl', 'elephant.obj'), 'utf8'), 'elephant.obj');
const skeleton = buildSkeleton(readTgf(readFileSync(dataFile('libigl', 'elephant.tgf'), 'utf8'), 'elephant.tgf'), 'elephant.tgf');
const B = skeleton.parents.length;
const V = mesh.positions.length / 3;

/**
 * libigl's U = M·T for frame f, straight from the file: T is column f reshaped column-major to 4B × 3, so T[r][c] is
 * entry r + 4B·c of the column, and U[v][c] = Σ_e W[v][e] · ([v 1] · T[4e..4e+3][c]). `transposed` reads each bone's
 * 4 × 3 block the other way round (T[r][c] at 3r + c), the layout the data must rule out.
 */
function libiglLbs(m: DenseMatrix, f: number, transposed = false): Float64Array {
  const out = new Float64Array(3 * V);
  const P = mesh.positions;
  for (let v = 0; v < V; v++) {
    for (let e = 0; e < B; e++) {
      const w = weights.data[v * B + e];
      if (w === 0) continue;
      for (let c = 0; c < 3; c++) {
        let s = 0;
        for (let r = 0; r < 4; r++) {
          const entry = transposed ? 12 * e + 3 * r + c : 4 * e + r + 4 * B * c;
          s += m.data[entry * m.cols + f] * (r < 3 ? P[3 * v + r] : 1);
        }
        out[3 * v + c] += w * s;
      }
    }
  }
  return out;
}

/** Signed volume of the closed mesh with these positions (divergence theorem over its triangles). */
function volume(P: Float64Array): number {
  const T = mesh.triangles;
  let sum = 0;
  for (let t = 0; t < T.length; t += 3) {
    const a = 3 * T[t];
    const b = 3 * T[t + 1];
    const c = 3 * T[t + 2];
    sum +=
      P[a] * (P[b + 1] * P[c + 2] - P[b + 2] * P[c + 1]) -
      P[a + 1] * (P[b] * P[c + 2] - P[b + 2] * P[c]) +
      P[a + 2] * (P[b] * P[c + 1] - P[b + 1] * P[c]);
  }
  return sum / 6;
}

/** Sum of the triangles' edge lengths (each inner edge twice). */
function edgeLength(P: Float64Array): number {
  const T = mesh.triangles;
  let sum = 0;
  for (let t = 0; t < T.length; t += 3) {
    for (let k = 0; k < 3; k++) {
      const a = 3 * T[t + k];
      const b = 3 * T[t + ((k + 1) % 3)];
      sum += Math.hypot(P[a] - P[b], P[a + 1] - P[b + 1], P[a + 2] - P[b + 2]);
    }
  }
  return sum;
}

/**
 * libigl's U = M·T as libiglLbs, with the weights the viewport skins with (influencesFromWeights: float32, each row
 * renormalised), so that the comparison with the app's skinning is about the transforms alone.
 */
function libiglLbsWithInfluences(m: DenseMatrix, f: number, influences: Influences): Float64Array {
  const out = new Float64Array(3 * V);
  const P = mesh.positions;
  const { stride } = influences;
  for (let v = 0; v < V; v++) {
    for (let k = 0; k < stride; k++) {
      const e = influences.bones[v * stride + k];
      const w = influences.weights[v * stride + k];
      for (let c = 0; c < 3; c++) {
        let s = 0;
        for (let r = 0; r < 4; r++) s += m.data[(4 * e + r + 4 * B * c) * m.cols + f] * (r < 3 ? P[3 * v + r] : 1);
        out[3 * v + c] += w * s;
      }
    }
  }
  return out;
}

function maxDistance(a: Float64Array, b: Float64Array): number {
  let worst = 0;
  for (let i = 0; i < a.length; i += 3) worst = Math.max(worst, Math.hypot(a[i] - b[i], a[i + 1] - b[i + 1], a[i + 2] - b[i + 2]));
  return worst;
}

/** Bones on the longest chain from a root down (a root alone: 1). */
function chainDepth(s: Skeleton): number {
  const depth = new Int32Array(s.parents.length);
  let deepest = 0;
  for (const b of s.order) {
    depth[b] = s.parents[b] < 0 ? 1 : depth[s.parents[b]] + 1;
    deepest = Math.max(deepest, depth[b]);
  }
  return deepest;
}

test('elephant-anim.dmat is 12·B × L absolute transforms: frame 0 is the rest pose, and LBS with it keeps the elephant whole', () => {
  assert.equal(animation.rows, 12 * B, '288 rows = 12 numbers × 24 bones');
  assert.equal(animation.cols, 457, 'one column per frame');
  assert.ok(maxDistance(libiglLbs(animation, 0), mesh.positions) < 1e-9, 'frame 0 leaves the rest mesh where it is');
  const restVolume = volume(mesh.positions);
  const restEdges = edgeLength(mesh.positions);
  let volumeRange = [Infinity, -Infinity];
  let edgeRange = [Infinity, -Infinity];
  for (let f = 0; f < animation.cols; f += 8) {
    const posed = libiglLbs(animation, f);
    const v = volume(posed) / restVolume;
    const e = edgeLength(posed) / restEdges;
    volumeRange = [Math.min(volumeRange[0], v), Math.max(volumeRange[1], v)];
    edgeRange = [Math.min(edgeRange[0], e), Math.max(edgeRange[1], e)];
  }
  // LBS loses some volume where bones bend (the candy-wrapper effect); a wrong layout scrambles the mesh.
  assert.ok(volumeRange[0] > 0.9 && volumeRange[1] < 1.05, `volume stays within 10 % of the rest volume: ${volumeRange.join(' … ')}`);
  assert.ok(edgeRange[0] > 0.98 && edgeRange[1] < 1.03, `edge lengths stay within 3 %: ${edgeRange.join(' … ')}`);
  const scrambled = libiglLbs(animation, 200, true);
  assert.ok(
    Math.abs(volume(scrambled) / restVolume - 1) > 0.5 || Math.abs(edgeLength(scrambled) / restEdges - 1) > 0.5,
    'each 4 × 3 block read transposed gives no plausible elephant',
  );
});

test('the role detection tells the animation apart by its shape: 12·B rows, one column per frame', () => {
  assert.deepEqual(dmatRole(animation, V, B), { role: 'animation', fits: true });
  assert.deepEqual(
    dmatRole(animation, V, 20),
    { role: 'animation', fits: false },
    'for another skeleton it is still an animation, not weights',
  );
  assert.deepEqual(dmatReadings(animation), [{ role: 'animation', boneCount: 24, frameCount: 457 }]);
  assert.equal(dmatRole(weights, V, B).role, 'weights', 'the weights stay weights');
  assert.equal(readsAsTransformAnimation(weights), false, 'a weight matrix is no animation, however many rows it has');
});

test("the clip's LBS on the elephant equals libigl's LBS with the file's absolute transforms", () => {
  const { poses, warnings } = poseSequenceFromTransforms(animation, skeleton, 'elephant-anim.dmat');
  assert.deepEqual(warnings, [], 'every transform in the file is rigid');
  assert.equal(poses.kind, 'matrices');
  if (poses.kind !== 'matrices') return;
  assert.equal(poses.frameCount, 457);
  assert.ok(poses.translations, 'the three roots move, so the clip has start-joint translations');
  // Bones other than the roots stay joined to their parents: their translations are exactly 0.
  for (let f = 0; f < poses.frameCount; f++)
    for (let b = 0; b < B; b++)
      if (skeleton.parents[b] >= 0)
        for (let c = 0; c < 3; c++)
          assert.equal(poses.translations[3 * (f * B + b) + c], 0, `frame ${f} bone ${b} stays at its parent's end`);

  // Tolerance: a non-root translation under TRANSLATION_ROUNDING · extent is dropped (moving the bone and the bones
  // below it by at most √3 times that), once per bone along a chain; and each of the chain's compositions rounds the
  // transform's translation, of size at most the joints' extent plus the largest translation, by a few ε.
  let extent = 0;
  for (let axis = 0; axis < 3; axis++) {
    const values = skeleton.joints.filter((_, i) => i % 3 === axis);
    extent = Math.max(extent, Math.max(...values) - Math.min(...values));
  }
  let largestShift = 0;
  for (let f = 0; f < animation.cols; f++)
    for (let e = 0; e < B; e++)
      for (let c = 0; c < 3; c++)
        largestShift = Math.max(largestShift, Math.abs(animation.data[(4 * e + 3 + 4 * B * c) * animation.cols + f]));
  const depth = chainDepth(skeleton);
  const tolerance = depth * (Math.sqrt(3) * TRANSLATION_ROUNDING * extent + 64 * Number.EPSILON * (extent + largestShift));
  // linearBlendSkinning evaluates v + Σ w ((A − I) v + t), which is Σ w (A v + t) plus (1 − Σ w) v: the float32
  // weights' sums are off 1 by a few 1e-8, which moves a vertex by that times its distance from the origin.
  const influences = influencesFromWeights(weights, B);
  let sumTerm = 0;
  for (let v = 0; v < V; v++) {
    let sum = 0;
    for (let k = 0; k < influences.stride; k++) sum += influences.weights[v * influences.stride + k];
    const P = mesh.positions;
    sumTerm = Math.max(sumTerm, Math.abs(1 - sum) * Math.hypot(P[3 * v], P[3 * v + 1], P[3 * v + 2]));
  }

  const rotations = new Float64Array(9 * B);
  const translations = new Float64Array(3 * B);
  const transforms = new Float64Array(12 * B);
  const raw = new Float64Array(12 * B);
  const skinned = new Float64Array(3 * V);
  const skinnedRaw = new Float64Array(3 * V);
  let worst = 0;
  let worstLibigl = 0;
  for (let f = 0; f < poses.frameCount; f += 4) {
    poseForwardKinematics(skeleton, poses, f, rotations, translations, transforms);
    linearBlendSkinning(mesh.positions, influences, transforms, skinned);
    // The file's transforms as the app's #B × 12 row-major [A | t]: entry c·4B + 4b + k of the column.
    for (let b = 0; b < B; b++)
      for (let c = 0; c < 3; c++)
        for (let k = 0; k < 4; k++) raw[12 * b + 4 * c + k] = animation.data[(c * 4 * B + 4 * b + k) * animation.cols + f];
    linearBlendSkinning(mesh.positions, influences, raw, skinnedRaw);
    worst = Math.max(worst, maxDistance(skinned, skinnedRaw));
    worstLibigl = Math.max(worstLibigl, maxDistance(skinned, libiglLbsWithInfluences(animation, f, influences)));
  }
  assert.ok(
    worst <= tolerance,
    `LBS with the clip and with the raw transforms differ by ${worst}, within ${tolerance} (depth ${depth}, extent ${extent})`,
  );
  assert.ok(
    worstLibigl <= tolerance + sumTerm,
    `LBS with the clip and libigl's U = M·T differ by ${worstLibigl}, within ${tolerance} + ${sumTerm} (the weight sums' rounding)`,
  );
});

/** A two-bone chain along x: joints (0,0,0) → (1,0,0) → (3,0,0), bone 1 the child of bone 0. */
const chain = buildSkeleton({ joints: Float64Array.from([0, 0, 0, 1, 0, 0, 3, 0, 0]), bones: Uint32Array.from([0, 1, 1, 2]) }, 'chain.tgf');

/** A 24 × L animation of the chain from its frames, each two bones' 3×4 row-major [R | t]. */
function chainAnimation(frames: number[][][]): DenseMatrix {
  const L = frames.length;
  const data = new Float64Array(24 * L);
  frames.forEach((bones, f) =>
    bones.forEach((a, b) => {
      for (let c = 0; c < 3; c++) for (let k = 0; k < 4; k++) data[(c * 8 + 4 * b + k) * L + f] = a[4 * c + k];
    }),
  );
  return { rows: 24, cols: L, data };
}

const IDENTITY = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0];

test('a hand-made animation: a quarter turn of the child about z is a relative rotation about its start joint', () => {
  // Bone 1 turns by 90° about z about its start joint (1,0,0): x ↦ Rz (x − (1,0,0)) + (1,0,0), so t = (1, −1, 0).
  const turned = [0, -1, 0, 1, 1, 0, 0, -1, 0, 0, 1, 0];
  const { poses, warnings } = poseSequenceFromTransforms(
    chainAnimation([
      [IDENTITY, IDENTITY],
      [IDENTITY, turned],
    ]),
    chain,
    'turn.dmat',
  );
  assert.deepEqual(warnings, []);
  assert.ok(poses.kind === 'matrices', 'a clip of frames');
  assert.deepEqual(Array.from(poses.rotations.subarray(27, 36)), [0, -1, 0, 1, 0, 0, 0, 0, 1], 'frame 1, bone 1: Rz(90°)');
  assert.equal(poses.translations, undefined, 'no bone leaves its place');
});

test('a stretched bone plays as its nearest rotation, with a warning saying how far its end joint is off', () => {
  // Bone 1 scaled by 1.1 about its start joint: the nearest rotation is I, which leaves its end joint (3,0,0)
  // 0.1 · 2 = 0.2 short of where the file puts it; R·Rᵀ − I = 0.21 on the diagonal.
  const stretched = [1.1, 0, 0, -0.1, 0, 1.1, 0, 0, 0, 0, 1.1, 0];
  const { poses, warnings } = poseSequenceFromTransforms(
    chainAnimation([
      [IDENTITY, IDENTITY],
      [IDENTITY, stretched],
    ]),
    chain,
    'stretch.dmat',
  );
  assert.equal(warnings.length, 1, 'one warning');
  assert.match(warnings[0], /^stretch\.dmat: 1 of 2 frames hold bone transforms that are not rotations/);
  assert.match(warnings[0], /by up to 0\.210 per entry/);
  assert.match(warnings[0], /end joint by up to 0\.200 \(frame 1 bone 1\)/);
  assert.ok(poses.kind === 'matrices', 'a clip of frames');
  assert.deepEqual(Array.from(poses.rotations.subarray(27, 36)), [1, 0, 0, 0, 1, 0, 0, 0, 1], 'the nearest rotation of 1.1 I is I');
});

test('a reflection, a shape for another skeleton and a value that is not a number are refused, naming the place', () => {
  const mirrored = [-1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0];
  assert.throws(
    () => poseSequenceFromTransforms(chainAnimation([[IDENTITY, mirrored]]), chain, 'mirror.dmat'),
    (error: unknown) =>
      error instanceof FormatError && /^mirror\.dmat: frame 0 bone 1: .*determinant -1\.000: a reflection/.test(error.message),
  );
  assert.throws(
    () => poseSequenceFromTransforms(animation, chain, 'elephant-anim.dmat'),
    (error: unknown) =>
      error instanceof FormatError &&
      /^elephant-anim\.dmat: this is an animation for another skeleton: it is 288 × 457, which holds transforms of 24 bones; this skeleton has 2 bones, which needs 24 × L/.test(
        error.message,
      ),
  );
  const broken = chainAnimation([[IDENTITY, IDENTITY]]);
  broken.data[5] = Number.NaN;
  assert.throws(
    () => poseSequenceFromTransforms(broken, chain, 'nan.dmat'),
    (error: unknown) => error instanceof FormatError && /^nan\.dmat: row 6 column 1: NaN is not a finite number/.test(error.message),
  );
});
