import { matrixToQuat, quatSlerp, quatToMatrix } from '../math/quaternion.ts';

/**
 * A pose sequence for a skeleton of B bones. Rotations are relative to the parent bone (libigl convention),
 * indexed by bone in file order.
 * - `matrices`: L frames of 3×3 rotation matrices; `rotations` holds 9·B·L numbers, frame-major then bone,
 *   each matrix row-major (rotations[(f·B + b)·9 + r·3 + c] = R_fb[r][c]).
 * - `quaternions`: only the final pose, one unit quaternion per bone, x y z w; in-between poses are SLERP from identity.
 */
export type PoseSequence =
  | { kind: 'matrices'; boneCount: number; frameCount: number; rotations: Float64Array }
  | { kind: 'quaternions'; boneCount: number; final: Float64Array };

const IDENTITY_QUAT = new Float64Array([0, 0, 0, 1]);
const scratchA = new Float64Array(4);
const scratchB = new Float64Array(4);

/**
 * Length of a pose sequence in its own time unit: frames for `matrices` (L − 1, so time runs 0 … L − 1), and the
 * SLERP parameter for `quaternions` (1).
 */
export function poseDuration(seq: PoseSequence): number {
  return seq.kind === 'matrices' ? Math.max(0, seq.frameCount - 1) : 1;
}

/**
 * Relative rotations of every bone at a given time.
 * - `matrices`: `time` is a frame number, clamped to [0, L − 1]; whole frames are copied as stored, fractional
 *   times SLERP (course handout Eq. 1) per bone between the two neighbouring frames.
 * - `quaternions`: `time` is the SLERP parameter t, clamped to [0, 1], from the identity to the final pose.
 * A NaN time counts as 0.
 * @param seq   pose sequence for B bones
 * @param time  see above
 * @param out   #B × 9 row-major 3×3 relative rotations
 */
export function samplePose(seq: PoseSequence, time: number, out: Float64Array): void {
  const B = seq.boneCount;
  const t = Number.isNaN(time) ? 0 : Math.min(Math.max(time, 0), poseDuration(seq));
  if (seq.kind === 'quaternions') {
    for (let b = 0; b < B; b++) {
      quatSlerp(IDENTITY_QUAT, 0, seq.final, 4 * b, t, scratchA, 0);
      quatToMatrix(scratchA, 0, out, 9 * b);
    }
    return;
  }
  const frame = Math.floor(t);
  const fraction = t - frame;
  const base = frame * B * 9;
  if (fraction === 0) {
    out.set(seq.rotations.subarray(base, base + B * 9));
    return;
  }
  const next = base + B * 9;
  for (let b = 0; b < B; b++) {
    matrixToQuat(seq.rotations, base + 9 * b, scratchA, 0);
    matrixToQuat(seq.rotations, next + 9 * b, scratchB, 0);
    quatSlerp(scratchA, 0, scratchB, 0, fraction, scratchA, 0);
    quatToMatrix(scratchA, 0, out, 9 * b);
  }
}

/** #B × 9 row-major identity rotations: the rest pose. */
export function identityPose(boneCount: number): Float64Array {
  const out = new Float64Array(boneCount * 9);
  for (let b = 0; b < boneCount; b++) {
    out[9 * b] = 1;
    out[9 * b + 4] = 1;
    out[9 * b + 8] = 1;
  }
  return out;
}
