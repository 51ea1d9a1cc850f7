/**
 * Pose files (libigl / ETH skinning assignment conventions) as DMAT matrices:
 * - `3·B·L × 3`: L frames of B relative rotation matrices, frame-major then bone; rows of each 3×3 block are
 *   the rows of R.
 * - `4B × 1`: one final-pose quaternion per bone, x y z w (`igl::column_to_quats`), SLERPed from identity.
 */
import { FormatError } from './format-error.ts';
import type { DenseMatrix } from './types.ts';
import type { PoseSequence } from '../rig/pose-sequence.ts';
import { polarDecomposition } from '../math/polar-decomposition.ts';

/** Largest entrywise deviation of R·Rᵀ from I that still counts as a rotation. */
const ROTATION_TOLERANCE = 1e-3;
/** det² = det(R·Rᵀ), so orthonormality within 1e-3 per entry allows |det| to stray by about 1.5e-3 from 1. */
const DETERMINANT_TOLERANCE = 3e-3;
/** Quaternions shorter than this cannot be normalized meaningfully. */
export const MIN_QUATERNION_LENGTH = 1e-8;
/** Largest |‖q‖ − 1| of a quaternion stored as a unit one (a project file's final poses) that still counts as a rotation. */
const QUATERNION_TOLERANCE = 1e-3;
/**
 * Largest deviation a stored rotation keeps as it is — of R·Rᵀ from I per entry, of a unit quaternion's length
 * from 1 — beyond which, within the tolerances above, a reader renormalises it: what rounding leaves, in float64
 * products (about 1e-15) and in decimals written with six or more digits (the context-aware data's poses are off
 * by up to 5.5e-7).
 */
export const ROTATION_ROUNDING = 1e-5;

/**
 * Interprets a DMAT matrix as the pose sequence of a skeleton with `boneCount` bones.
 * @param m         the matrix as read (row-major): 3·B·L × 3 rotation matrices or 4B × 1 quaternions
 * @param boneCount B, bones of the skeleton the poses are for (≥ 1)
 * @param file      file name for error messages
 * @returns kind 'matrices' (rotations 9·B·L, frame-major, row-major 3×3, as stored) or kind 'quaternions'
 *          (final: 4B, x y z w, each normalized)
 * @throws FormatError when the shape fits no pose file for B bones (naming the matrix size, B, the bone count it
 *         would fit and the shapes expected), when a block is not a rotation (names frame and bone, 0-based: det far from 1
 *         or R·Rᵀ off I by more than 1e-3 per entry), or when a quaternion is zero (names the 0-based bone)
 */
export function poseSequenceFromDmat(m: DenseMatrix, boneCount: number, file: string): PoseSequence {
  if (!(boneCount >= 1)) throw new FormatError(file, '', `cannot read poses for a skeleton with ${boneCount} bones`);
  const { rows, cols, data } = m;
  if (cols === 3 && rows > 0 && rows % (3 * boneCount) === 0) {
    const frameCount = rows / (3 * boneCount);
    for (let block = 0; block < boneCount * frameCount; block++) {
      const problem = rotationProblem(data, block * 9);
      if (problem) {
        const frame = Math.floor(block / boneCount);
        throw new FormatError(
          file,
          `frame ${frame} bone ${block - frame * boneCount}`,
          `not a rotation matrix: ${problem} (rows ${3 * block + 1}–${3 * block + 3})`,
        );
      }
    }
    return { kind: 'matrices', boneCount, frameCount, rotations: data.slice(0, rows * 3) };
  }
  if (cols === 1 && rows === 4 * boneCount) {
    const final = new Float64Array(rows);
    for (let b = 0; b < boneCount; b++) {
      const x = data[4 * b];
      const y = data[4 * b + 1];
      const z = data[4 * b + 2];
      const w = data[4 * b + 3];
      const length = Math.hypot(x, y, z, w);
      if (!(length >= MIN_QUATERNION_LENGTH)) {
        throw new FormatError(
          file,
          `bone ${b}`,
          `the quaternion (${x}, ${y}, ${z}, ${w}) has length ${length} and is not a rotation (rows ${4 * b + 1}–${4 * b + 4})`,
        );
      }
      final[4 * b] = x / length;
      final[4 * b + 1] = y / length;
      final[4 * b + 2] = z / length;
      final[4 * b + 3] = w / length;
    }
    return { kind: 'quaternions', boneCount, final };
  }
  throw new FormatError(
    file,
    '',
    `this is a pose file for another skeleton: it is ${rows} × ${cols}, ${fitsWhat(rows, cols, boneCount)}; this skeleton has ${boneCount} bones, which needs ${3 * boneCount}·L × 3 rotation matrices for L frames (e.g. ${3 * boneCount} × 3 for one frame) or ${4 * boneCount} × 1 quaternions`,
  );
}

/** Which skeletons a matrix of this shape could pose, and why it does not fit B bones, in words. */
function fitsWhat(rows: number, cols: number, boneCount: number): string {
  if (cols === 1 && rows > 0 && rows % 4 === 0) return `which holds quaternions for ${rows / 4} bones`;
  if (cols === 3 && rows > 0 && rows % 3 === 0) {
    const matrices = rows / 3;
    return `which holds ${matrices} rotation matrices (bones × frames), and ${matrices} is not a multiple of ${boneCount}`;
  }
  return 'which fits no skeleton (pose files are 3·B·L × 3 or 4B × 1)';
}

/** Largest entry of |R·Rᵀ − I| for the 3×3 row-major block at data[o..o+9); NaN when an entry is not finite. */
export function rotationDeviation(data: Float64Array, o: number): number {
  let worst = 0;
  for (let i = 0; i < 3; i++) {
    for (let j = i; j < 3; j++) {
      const dot = data[o + 3 * i] * data[o + 3 * j] + data[o + 3 * i + 1] * data[o + 3 * j + 1] + data[o + 3 * i + 2] * data[o + 3 * j + 2];
      const deviation = Math.abs(dot - (i === j ? 1 : 0));
      if (!(deviation <= worst)) worst = deviation;
    }
  }
  return worst;
}

/**
 * Why the 3×3 row-major block at data[o..o+9) is not a rotation, or '' when it is one: R·Rᵀ off I by more than
 * ROTATION_TOLERANCE per entry, or det not +1 (a reflection) within DETERMINANT_TOLERANCE.
 */
export function rotationProblem(data: Float64Array, o: number): string {
  const worst = rotationDeviation(data, o);
  const det =
    data[o] * (data[o + 4] * data[o + 8] - data[o + 5] * data[o + 7]) -
    data[o + 1] * (data[o + 3] * data[o + 8] - data[o + 5] * data[o + 6]) +
    data[o + 2] * (data[o + 3] * data[o + 7] - data[o + 4] * data[o + 6]);
  if (!(worst <= ROTATION_TOLERANCE)) return `R·Rᵀ differs from the identity by ${worst.toPrecision(3)} (det ${det.toPrecision(4)})`;
  if (!(Math.abs(det - 1) <= DETERMINANT_TOLERANCE)) return `det ${det.toPrecision(4)}, should be 1${det < 0 ? ' (a reflection)' : ''}`;
  return '';
}

const nearest = new Float64Array(9);
const stretch = new Float64Array(9);

/**
 * Replaces the 3×3 row-major block at data[o..o+9), a rotation by rotationProblem, with the nearest rotation: R of
 * its polar decomposition (orthonormal to rounding, det +1).
 */
export function renormalizeRotation(data: Float64Array, o: number): void {
  polarDecomposition(data, o, nearest, 0, stretch, 0);
  data.set(nearest, o);
}

/**
 * Why the quaternion at data[o..o+4) (x y z w), stored as a unit one, is not a rotation, or '' when it is one: its
 * length off 1 by more than QUATERNION_TOLERANCE.
 */
export function quaternionProblem(data: Float64Array, o: number): string {
  const length = Math.hypot(data[o], data[o + 1], data[o + 2], data[o + 3]);
  if (Math.abs(length - 1) <= QUATERNION_TOLERANCE) return '';
  return `the quaternion (${data[o]}, ${data[o + 1]}, ${data[o + 2]}, ${data[o + 3]}) has length ${length.toPrecision(4)}, not 1`;
}

/**
 * Inverse of poseSequenceFromDmat.
 * @param seq a pose sequence
 * @returns 3·B·L × 3 (matrices) or 4B × 1 (quaternions), row-major, ready for writeDmatAscii/writeDmatBinary
 */
export function poseSequenceToDmat(seq: PoseSequence): DenseMatrix {
  if (seq.kind === 'matrices') {
    return { rows: 3 * seq.boneCount * seq.frameCount, cols: 3, data: seq.rotations.slice() };
  }
  return { rows: 4 * seq.boneCount, cols: 1, data: seq.final.slice() };
}

/**
 * Start-joint translations for a rotation-matrix pose sequence (PoseSequence.translations) from a `B·L × 3` DMAT:
 * row f·B + b holds bone b's translation in frame f, in its parent's rest axes (a root's in world axes).
 * @param m    the matrix as read (row-major)
 * @param seq  the rotation-matrix sequence they belong to (B bones, L frames)
 * @param file file name for error messages
 * @returns the sequence with its translations
 * @throws FormatError when the sequence holds quaternions, the shape is not B·L × 3, or a value is not finite
 */
export function withTranslationsFromDmat(m: DenseMatrix, seq: PoseSequence, file: string): PoseSequence {
  if (seq.kind !== 'matrices')
    throw new FormatError(file, '', 'translations need rotation-matrix poses (3·B·L × 3), not final-pose quaternions');
  const { boneCount, frameCount } = seq;
  if (m.cols !== 3 || m.rows !== boneCount * frameCount) {
    throw new FormatError(
      file,
      '',
      `translations for ${boneCount} bones × ${frameCount} frames are ${boneCount * frameCount} × 3, not ${m.rows} × ${m.cols}`,
    );
  }
  for (let i = 0; i < m.data.length; i++) {
    if (!Number.isFinite(m.data[i])) {
      const row = Math.floor(i / 3);
      const frame = Math.floor(row / boneCount);
      throw new FormatError(
        file,
        `frame ${frame} bone ${row - frame * boneCount}`,
        `translation ${m.data[i]} is not a finite number (row ${row + 1})`,
      );
    }
  }
  return { ...seq, translations: m.data.slice(0, 3 * boneCount * frameCount) };
}

/** The start-joint translations of a sequence as a `B·L × 3` DMAT matrix, or null when it has none. */
export function translationsToDmat(seq: PoseSequence): DenseMatrix | null {
  if (seq.kind !== 'matrices' || !seq.translations) return null;
  return { rows: seq.boneCount * seq.frameCount, cols: 3, data: seq.translations.slice() };
}
