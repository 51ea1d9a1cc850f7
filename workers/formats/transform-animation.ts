/**
 * libigl's absolute-transform animation, as its tutorial 408 (direct delta mush) plays `elephant-anim.dmat`: a
 * 12·B × L DMAT, one column per frame. Each column, reshaped column-major to 4B × 3, is the LBS transform matrix
 * T of `U = M · T` (M = igl::lbs_matrix(V, W)): rows 4b..4b+2 of T hold R_bᵀ and row 4b+3 holds t_bᵀ, so that
 * bone b moves a rest point x to R_b x + t_b. The transforms are absolute (rest → posed), not relative to the parent.
 * In the column itself, entry c·4B + 4b + k is row c, column k of the 3×4 matrix [R_b | t_b].
 *
 * Rigwright's poses are relative rotations about each bone's start joint with start-joint translations
 * (workers/rig/pose-sequence.ts, forward-kinematics.ts); a rigid absolute transform converts to them exactly:
 *   R_rel = Q_pᵀ Q_b,   t_b = Q_pᵀ (T_b + Q_b r_b − T_p) − r_b   (a root: Q_p = I, T_p = 0)
 * where [Q | T] are the absolute transforms and r_b is bone b's rest start joint, so that forward kinematics gives
 * back [Q_b | T_b].
 */
import { polarDecomposition } from '../math/polar-decomposition.ts';
import type { PoseSequence } from '../rig/pose-sequence.ts';
import type { Skeleton } from '../rig/skeleton.ts';
import { FormatError } from './format-error.ts';
import { rotationDeviation, ROTATION_ROUNDING } from './pose-file.ts';
import type { DenseMatrix } from './types.ts';

/** Numbers per bone per frame: the 3×4 matrix [R | t]. */
export const TRANSFORM_ENTRIES = 12;
/** Largest entrywise deviation of R·Rᵀ from I for a transform animation to be read as one with no skeleton to check. */
const RIGID_TOLERANCE = 1e-3;
/**
 * A non-root start-joint translation shorter than this fraction of the skeleton's extent is rounding (libigl's FK
 * leaves about 5e-14 on the elephant, whose joints span 158 units) and is stored as 0, so that a clip whose bones
 * stay joined has no translations but its roots'.
 */
export const TRANSLATION_ROUNDING = 1e-9;

/**
 * Whether a matrix has the shape of a transform animation for B bones: 12·B rows and at least one column (frame).
 * @param m          the matrix as read
 * @param boneCount  B, bones of the skeleton
 */
export function fitsTransformAnimation(m: DenseMatrix, boneCount: number): boolean {
  return boneCount >= 1 && m.rows === TRANSFORM_ENTRIES * boneCount && m.cols >= 1;
}

/**
 * Whether a matrix reads as a transform animation on its own: a multiple of 12 rows, finite values, and every
 * bone's R in every frame a rotation (R·Rᵀ within 1e-3 of I per entry, det > 0) — the check that tells it apart
 * from weights or handles whose row count happens to be a multiple of 12.
 * @param m  the matrix as read
 */
export function readsAsTransformAnimation(m: DenseMatrix): boolean {
  if (m.rows === 0 || m.rows % TRANSFORM_ENTRIES !== 0 || !m.data.every(Number.isFinite)) return false;
  const boneCount = m.rows / TRANSFORM_ENTRIES;
  const r = new Float64Array(9);
  for (let f = 0; f < m.cols; f++) {
    for (let b = 0; b < boneCount; b++) {
      readTransform(m, boneCount, f, b, r, null);
      if (!(rotationDeviation(r, 0) <= RIGID_TOLERANCE && determinant(r) > 0)) return false;
    }
  }
  return true;
}

/** A transform animation read as a clip, with what could not be kept exactly. */
export interface TransformAnimationClip {
  /** relative rotations and start-joint translations of B bones over L frames (untimed: 30 frames a second) */
  poses: PoseSequence;
  /** one sentence each: frames whose transforms are not rigid, and how far playing them as rotations moves a joint */
  warnings: string[];
}

/**
 * Converts libigl's absolute-transform animation into Rigwright's clip (relative rotations about each bone's start
 * joint, start-joint translations), so that forward kinematics gives back every bone's transform and linear blend
 * skinning with the clip equals libigl's LBS with the file's transforms. A transform that is not rigid (stretch,
 * shear) cannot be a pose: it is played as the nearest rotation (polar decomposition) that keeps the bone's start
 * joint where the file puts it, and a warning says in how many frames and how far that moves the bone's end joint.
 * @param m         the matrix as read (row-major): 12·B × L, one column per frame
 * @param skeleton  the rest skeleton the animation is for (B bones, its joints and parents)
 * @param file      file name for messages
 * @returns the clip (kind 'matrices', translations only when a bone's start joint leaves its place) and warnings
 * @throws FormatError when the shape is not 12·B × L (naming the sizes and the bone count it would fit), a value is
 *   not finite, or a transform is singular or a reflection (naming frame and bone, 0-based)
 */
export function poseSequenceFromTransforms(m: DenseMatrix, skeleton: Skeleton, file: string): TransformAnimationClip {
  const { joints, bones, parents, order } = skeleton;
  const B = parents.length;
  if (!fitsTransformAnimation(m, B)) {
    const fits = m.rows > 0 && m.rows % TRANSFORM_ENTRIES === 0 ? `, which holds transforms of ${m.rows / TRANSFORM_ENTRIES} bones` : '';
    throw new FormatError(
      file,
      '',
      `this is an animation for another skeleton: it is ${m.rows} × ${m.cols}${fits}; this skeleton has ${B} bones, which needs ${TRANSFORM_ENTRIES * B} × L absolute bone transforms (12 numbers per bone, one column per frame)`,
    );
  }
  const L = m.cols;
  for (let i = 0; i < m.data.length; i++) {
    if (!Number.isFinite(m.data[i])) {
      throw new FormatError(file, `row ${Math.floor(i / L) + 1} column ${(i % L) + 1}`, `${m.data[i]} is not a finite number`);
    }
  }
  const extent = jointExtent(joints);
  const rotations = new Float64Array(9 * B * L);
  const translations = new Float64Array(3 * B * L);
  // Absolute rigid transforms of the frame being converted, #B × 12 row-major [Q | T], and one bone's as read.
  const absolute = new Float64Array(12 * B);
  const read = new Float64Array(9);
  const shift = new Float64Array(3);
  const nearest = new Float64Array(9);
  const stretch = new Float64Array(9);
  let nonRigidFrames = 0;
  let worstDeviation = 0;
  let worstMove = 0;
  let worstAt = '';
  let moved = false;
  for (let f = 0; f < L; f++) {
    let rigid = true;
    for (let b = 0; b < B; b++) {
      readTransform(m, B, f, b, read, shift);
      const det = determinant(read);
      if (!(det > 1e-12)) {
        throw new FormatError(
          file,
          `frame ${f} bone ${b}`,
          `the transform's 3×3 part has determinant ${det.toPrecision(4)}: ${det < 0 ? 'a reflection' : 'it flattens the bone'}, which no pose can play (rows ${TRANSFORM_ENTRIES * b + 1}–${TRANSFORM_ENTRIES * (b + 1)}, column ${f + 1})`,
        );
      }
      const o = 12 * b;
      const s = 3 * bones[2 * b];
      const deviation = rotationDeviation(read, 0);
      let Q = read;
      if (deviation > ROTATION_ROUNDING) {
        // Not rigid: the nearest rotation, about the start joint r (Q r + T = R r + t), so the bone stays attached.
        polarDecomposition(read, 0, nearest, 0, stretch, 0);
        Q = nearest;
        rigid = false;
        const e = 3 * bones[2 * b + 1];
        let move = 0;
        for (let row = 0; row < 3; row++) {
          let d = 0;
          for (let k = 0; k < 3; k++) d += (read[3 * row + k] - nearest[3 * row + k]) * (joints[e + k] - joints[s + k]);
          move += d * d;
        }
        if (deviation > worstDeviation) worstDeviation = deviation;
        if (Math.sqrt(move) >= worstMove) {
          worstMove = Math.sqrt(move);
          worstAt = `frame ${f} bone ${b}`;
        }
      }
      for (let row = 0; row < 3; row++) {
        let t = shift[row];
        for (let k = 0; k < 3; k++) {
          absolute[o + 4 * row + k] = Q[3 * row + k];
          t += (read[3 * row + k] - Q[3 * row + k]) * joints[s + k];
        }
        absolute[o + 4 * row + 3] = t;
      }
    }
    if (!rigid) nonRigidFrames++;
    // Relative rotations and start-joint translations, parents first (forwardKinematics inverted).
    for (let i = 0; i < B; i++) {
      const b = order[i];
      const p = parents[b];
      const o = 12 * b;
      const s = 3 * bones[2 * b];
      const ro = 9 * (f * B + b);
      const to = 3 * (f * B + b);
      for (let row = 0; row < 3; row++) {
        // w = T_b + Q_b r_b − T_p: where the start joint goes, less the parent's translation.
        shift[row] =
          absolute[o + 4 * row + 3] +
          absolute[o + 4 * row] * joints[s] +
          absolute[o + 4 * row + 1] * joints[s + 1] +
          absolute[o + 4 * row + 2] * joints[s + 2] -
          (p < 0 ? 0 : absolute[12 * p + 4 * row + 3]);
      }
      for (let row = 0; row < 3; row++) {
        for (let col = 0; col < 3; col++) {
          // (Q_pᵀ Q_b)[row][col] = Σ_k Q_p[k][row] Q_b[k][col]
          let sum = 0;
          for (let k = 0; k < 3; k++) sum += (p < 0 ? (k === row ? 1 : 0) : absolute[12 * p + 4 * k + row]) * absolute[o + 4 * k + col];
          rotations[ro + 3 * row + col] = sum;
        }
        let t = 0;
        for (let k = 0; k < 3; k++) t += (p < 0 ? (k === row ? 1 : 0) : absolute[12 * p + 4 * k + row]) * shift[k];
        t -= joints[s + row];
        // A non-root whose start joint stays at its parent's end is off by rounding only.
        const stored = p >= 0 && Math.abs(t) < TRANSLATION_ROUNDING * extent ? 0 : t;
        translations[to + row] = stored;
        if (stored !== 0) moved = true;
      }
    }
  }
  const warnings: string[] = [];
  if (nonRigidFrames > 0) {
    warnings.push(
      `${file}: ${nonRigidFrames} of ${L} frame${L === 1 ? '' : 's'} hold bone transforms that are not rotations (stretch or shear: R·Rᵀ is off the identity by up to ${worstDeviation.toPrecision(3)} per entry); they play as the nearest rotations about each bone's start joint, which moves a bone's end joint by up to ${worstMove.toPrecision(3)} (${worstAt}) from where the file puts it`,
    );
  }
  const poses: PoseSequence = moved
    ? { kind: 'matrices', boneCount: B, frameCount: L, rotations, translations }
    : { kind: 'matrices', boneCount: B, frameCount: L, rotations };
  return { poses, warnings };
}

/**
 * Bone b's transform in frame f: the 3×3 part into `r` (row-major) and the translation into `t` (when given).
 * Column f of the matrix holds row c, column k of [R_b | t_b] at entry c·4B + 4b + k.
 */
function readTransform(m: DenseMatrix, boneCount: number, f: number, b: number, r: Float64Array, t: Float64Array | null): void {
  const { data, cols } = m;
  for (let c = 0; c < 3; c++) {
    const base = c * 4 * boneCount + 4 * b;
    for (let k = 0; k < 3; k++) r[3 * c + k] = data[(base + k) * cols + f];
    if (t) t[c] = data[(base + 3) * cols + f];
  }
}

function determinant(a: Float64Array): number {
  return a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) + a[2] * (a[3] * a[7] - a[4] * a[6]);
}

/** The largest side of the joints' bounding box (1 for a skeleton without extent), the length scale of rounding. */
function jointExtent(joints: Float64Array): number {
  let extent = 0;
  for (let axis = 0; axis < 3; axis++) {
    let lo = Infinity;
    let hi = -Infinity;
    for (let j = axis; j < joints.length; j += 3) {
      lo = Math.min(lo, joints[j]);
      hi = Math.max(hi, joints[j]);
    }
    if (hi > lo) extent = Math.max(extent, hi - lo);
  }
  return extent > 0 ? extent : 1;
}
