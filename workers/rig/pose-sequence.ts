import { matrixToQuat, quatSlerp, quatToMatrix } from '../math/quaternion.ts';

/**
 * A pose sequence for a skeleton of B bones. Rotations are relative to the parent bone (libigl convention),
 * indexed by bone in file order.
 * - `matrices`: L frames of 3×3 rotation matrices; `rotations` holds 9·B·L numbers, frame-major then bone,
 *   each matrix row-major (rotations[(f·B + b)·9 + r·3 + c] = R_fb[r][c]).
 *   Optionally `translations`, 3·B·L numbers (translations[(f·B + b)·3 + c]): how far bone b's start joint moves
 *   beyond where its parent carries it, in the parent's rest axes (a root's in world axes) — root motion, or
 *   joints that slide, as glTF translation channels say. Forward kinematics adds Q_parent · t_b.
 * - `quaternions`: only the final pose, one unit quaternion per bone, x y z w; in-between poses are SLERP from identity.
 */
export type PoseSequence =
  | { kind: 'matrices'; boneCount: number; frameCount: number; rotations: Float64Array; translations?: Float64Array }
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

/**
 * Start-joint translations of every bone at a given time (see PoseSequence): linear between the two neighbouring
 * frames, clamped like samplePose; zero for a sequence without translations.
 * @param seq   pose sequence for B bones
 * @param time  frame number (matrices); ignored for quaternions
 * @param out   #B × 3
 * @returns whether the sequence has translations (false: out is all zero)
 */
export function samplePoseTranslations(seq: PoseSequence, time: number, out: Float64Array): boolean {
  if (seq.kind !== 'matrices' || !seq.translations) {
    out.fill(0);
    return false;
  }
  const B3 = 3 * seq.boneCount;
  const t = Number.isNaN(time) ? 0 : Math.min(Math.max(time, 0), poseDuration(seq));
  const frame = Math.floor(t);
  const fraction = t - frame;
  const base = frame * B3;
  const T = seq.translations;
  if (fraction === 0) {
    out.set(T.subarray(base, base + B3));
    return true;
  }
  for (let i = 0; i < B3; i++) out[i] = T[base + i] + fraction * (T[base + B3 + i] - T[base + i]);
  return true;
}

/**
 * The sequence for a skeleton with `extra` more bones appended, which stay at rest relative to their parents
 * (identity rotation, no translation) in every frame.
 */
export function withRestBones(seq: PoseSequence, extra: number): PoseSequence {
  if (extra === 0) return seq;
  const B = seq.boneCount;
  const boneCount = B + extra;
  if (seq.kind === 'quaternions') {
    const final = new Float64Array(4 * boneCount);
    final.set(seq.final);
    for (let b = B; b < boneCount; b++) final[4 * b + 3] = 1;
    return { kind: 'quaternions', boneCount, final };
  }
  const { frameCount } = seq;
  const rotations = new Float64Array(9 * boneCount * frameCount);
  const translations = seq.translations ? new Float64Array(3 * boneCount * frameCount) : undefined;
  const rest = identityPose(extra);
  for (let f = 0; f < frameCount; f++) {
    rotations.set(seq.rotations.subarray(9 * B * f, 9 * B * (f + 1)), 9 * boneCount * f);
    rotations.set(rest, 9 * (boneCount * f + B));
    translations?.set(seq.translations!.subarray(3 * B * f, 3 * B * (f + 1)), 3 * boneCount * f);
  }
  return translations
    ? { kind: 'matrices', boneCount, frameCount, rotations, translations }
    : { kind: 'matrices', boneCount, frameCount, rotations };
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
