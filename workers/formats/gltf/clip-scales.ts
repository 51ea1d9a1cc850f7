/**
 * A clip's joint scales: what the relative rotations of a pose file cannot say. A glTF clip whose joints scale (some
 * exporters key a scale of 1 as 0.9999986 … 1.0000011 on every joint) has joint matrices A_j = Q_j · S_j with a
 * stretch S_j near λ_j I; the pose file keeps Q_j (as R_j relative to the parent) and where each joint goes, and the
 * scales file keeps λ_j, the mean of S_j's diagonal (trace / 3), one per bone per key. A fresh export writes them
 * back as scale channels (clip-curves.ts), so the joints' matrices at every key are the source's up to float32.
 * File form (`rigwright import` writes it as NAME-scales-CLIP.dmat, `export --scales` reads it): B·L × 1, frame-major
 * then bone, as the translations file.
 */
import { FormatError } from '../format-error.ts';
import type { DenseMatrix } from '../types.ts';
import type { PoseSequence } from '../../rig/pose-sequence.ts';
import { evaluateKeyframeCurves } from '../../rig/keyframe-curves.ts';

/** A scale this near 1 is float64 round-off of a joint that only rotates (polar decomposition of a rotation). */
export const SCALE_ROUNDING = 1e-12;

/**
 * The joints' uniform scales at every frame of a clip read from a glTF (one with `curves`).
 * @param poses  the clip's poses, B bones and L frames
 * @param parents  the parent of every bone of the rig the pose file is written for (B + extra bones, −1 for a root);
 *                 a bone past the clip's (a connector, at rest) takes its parent's scale, as it follows it rigidly
 * @returns L × parents.length scales, frame-major; null when the clip has no curves or no joint scales by more than
 *          SCALE_ROUNDING at any key
 */
export function clipScales(poses: PoseSequence, parents: ArrayLike<number>): Float64Array | null {
  if (poses.kind !== 'matrices' || !poses.curves || !poses.times) return null;
  const B = poses.curves.jointNode.length;
  const all = parents.length;
  const L = poses.frameCount;
  const rotations = new Float64Array(9 * B);
  const translations = new Float64Array(3 * B);
  const frame = new Float64Array(B);
  const out = new Float64Array(L * all);
  let scaled = false;
  for (let f = 0; f < L; f++) {
    evaluateKeyframeCurves(poses.curves, poses.times[f], rotations, translations, undefined, frame);
    const row = out.subarray(f * all, (f + 1) * all);
    row.set(frame);
    // Extra bones come after the file's bones, so their parents are set first.
    for (let b = B; b < all; b++) row[b] = parents[b] >= 0 ? row[parents[b]] : 1;
    for (let b = 0; b < B; b++) if (Math.abs(frame[b] - 1) > SCALE_ROUNDING) scaled = true;
  }
  return scaled ? out : null;
}

/** The scales file's matrix (B·L × 1) of clipScales' result. */
export function scalesToDmat(scales: Float64Array): DenseMatrix {
  return { rows: scales.length, cols: 1, data: scales.slice() };
}

/**
 * Reads a scales file for a pose sequence of `boneCount` bones and `frameCount` frames.
 * @param m     the matrix as read: B·L × 1
 * @param file  the file name, for messages
 * @returns L·B scales, frame-major
 * @throws FormatError naming the file and the shape expected, or the row of a scale that is not finite and > 0
 */
export function scalesFromDmat(m: DenseMatrix, boneCount: number, frameCount: number, file: string): Float64Array {
  if (m.cols !== 1 || m.rows !== boneCount * frameCount)
    throw new FormatError(
      file,
      '',
      `holds ${m.rows} × ${m.cols} values; the poses have ${frameCount} frames of ${boneCount} bones, so joint scales are ${boneCount * frameCount} × 1`,
    );
  m.data.forEach((s, i) => {
    if (!(Number.isFinite(s) && s > 0))
      throw new FormatError(
        file,
        `row ${i + 1}`,
        `the scale ${s} of frame ${Math.floor(i / boneCount)} bone ${i % boneCount} is not a finite number > 0`,
      );
  });
  return m.data.slice();
}

/** Whether a matrix can be a scales file in shape: one column of finite numbers > 0 (B·L × 1). */
export function canBeJointScales(m: DenseMatrix): boolean {
  return m.cols === 1 && m.rows > 0 && m.data.every((s) => Number.isFinite(s) && s > 0);
}
