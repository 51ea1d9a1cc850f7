import { matrixToQuat, quatSlerp, quatToMatrix } from '../math/quaternion.ts';
import { evaluateKeyframeCurves, type KeyframeCurves } from './keyframe-curves.ts';

/**
 * A pose sequence for a skeleton of B bones. Rotations are relative to the parent bone (libigl convention),
 * indexed by bone in file order.
 * - `matrices`: L frames of 3×3 rotation matrices; `rotations` holds 9·B·L numbers, frame-major then bone,
 *   each matrix row-major (rotations[(f·B + b)·9 + r·3 + c] = R_fb[r][c]).
 *   Optionally `translations`, 3·B·L numbers (translations[(f·B + b)·3 + c]): how far bone b's start joint moves
 *   beyond where its parent carries it, in the parent's rest axes (a root's in world axes) — root motion, or
 *   joints that slide, as glTF translation channels say. Forward kinematics adds Q_parent · t_b.
 *   Optionally `times`, L strictly increasing seconds: frame f is the pose at times[f] (a clip at its file's key
 *   times, or a baked clip at its rate); without them frame f plays at f / UNTIMED_FRAMES_PER_SECOND (pose files).
 *   Optionally `curves` (with `times`): the clip as its file keys it, so that poses between frames follow the file's
 *   interpolation (keyframe-curves.ts) instead of SLERP between neighbouring frames. Frame f is always the stored
 *   frame, which is the curves' pose at times[f].
 *   Optionally `keys`, L·B flags (keys[f·B + b] = 1): frame f of bone b is a key the user set (a keyed clip,
 *   workers/rig/keyed-clip.ts); the frames between a bone's keys are SLERP between them. Absent: every frame is as
 *   its file stored it.
 * - `quaternions`: only the final pose, one unit quaternion per bone, x y z w; in-between poses are SLERP from identity.
 */
export type PoseSequence =
  | {
      kind: 'matrices';
      boneCount: number;
      frameCount: number;
      rotations: Float64Array;
      translations?: Float64Array;
      times?: Float64Array;
      curves?: KeyframeCurves;
      keys?: Uint8Array;
    }
  | { kind: 'quaternions'; boneCount: number; final: Float64Array };

/** The playing rate of a sequence without key times (DMAT pose files): one frame per 1/30 s. */
export const UNTIMED_FRAMES_PER_SECOND = 30;
/** Most frames a bake makes (bounds time and memory). */
export const MAX_BAKED_FRAMES = 1e6;

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
 *   times SLERP (course handout Eq. 1) per bone between the two neighbouring frames, or, for a sequence with
 *   curves, evaluate the curves at the seconds between the two frames' times (frameSeconds).
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
  if (seq.curves && seq.times) {
    out.set(curvesAt(seq.curves, frameSeconds(seq, t)).rotations);
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
 * frames (or the curves' translations, for a sequence with curves), clamped like samplePose; zero for a sequence
 * without translations.
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
  if (seq.curves && seq.times) {
    out.set(curvesAt(seq.curves, frameSeconds(seq, t)).translations);
    return true;
  }
  for (let i = 0; i < B3; i++) out[i] = T[base + i] + fraction * (T[base + B3 + i] - T[base + i]);
  return true;
}

/**
 * The sequence for a skeleton with `extra` more bones appended, which stay at rest relative to their parents
 * (identity rotation, no translation) in every frame. Key times are kept; curves (which name the bones they move)
 * are not, so between frames the result SLERPs.
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
  const times = seq.times ? { times: seq.times } : {};
  return translations
    ? { kind: 'matrices', boneCount, frameCount, rotations, translations, ...times }
    : { kind: 'matrices', boneCount, frameCount, rotations, ...times };
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

/**
 * Seconds at a frame number of a rotation-matrix sequence: times[f] at whole frames, linear between neighbouring
 * frames' times, clamped to the first and last; f / UNTIMED_FRAMES_PER_SECOND without key times.
 * @param seq    a `matrices` sequence (a `quaternions` one: the SLERP parameter itself)
 * @param frame  frame number, fractional between frames
 */
export function frameSeconds(seq: PoseSequence, frame: number): number {
  if (seq.kind !== 'matrices') return frame;
  const f = Number.isNaN(frame) ? 0 : Math.min(Math.max(frame, 0), poseDuration(seq));
  if (!seq.times) return f / UNTIMED_FRAMES_PER_SECOND;
  const k = Math.floor(f);
  const fraction = f - k;
  return fraction === 0 ? seq.times[k] : seq.times[k] + fraction * (seq.times[k + 1] - seq.times[k]);
}

/** The frame number at a time in seconds: the inverse of frameSeconds, clamped to the sequence. */
export function frameAtSeconds(seq: PoseSequence, seconds: number): number {
  if (seq.kind !== 'matrices') return Math.min(Math.max(seconds, 0), 1);
  const last = poseDuration(seq);
  if (!seq.times) return Math.min(Math.max(seconds * UNTIMED_FRAMES_PER_SECOND, 0), last);
  const { times } = seq;
  if (!(seconds > times[0])) return 0;
  if (seconds >= times[last]) return last;
  let lo = 0;
  let hi = last;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (times[mid] <= seconds) lo = mid;
    else hi = mid;
  }
  return lo + (seconds - times[lo]) / (times[hi] - times[lo]);
}

/**
 * The sequence sampled at a fixed rate: frames at start + k / framesPerSecond from its first frame's time to its
 * last (the last frame at the last time exactly, so the clip keeps its length), each the sequence's pose there
 * (samplePose: the curves, when it has them). The result has key times and no curves: between its frames it SLERPs.
 * A quaternion pose is returned as it is (it has no frames to sample).
 * @param seq              pose sequence
 * @param framesPerSecond  rate, > 0
 * @throws Error when the rate is not positive or the bake would exceed MAX_BAKED_FRAMES frames
 */
export function bakePoseSequence(seq: PoseSequence, framesPerSecond: number): PoseSequence {
  if (!(framesPerSecond > 0 && Number.isFinite(framesPerSecond)))
    throw new Error(`the rate must be a positive number of frames per second, not ${framesPerSecond}`);
  if (seq.kind !== 'matrices') return seq;
  const start = frameSeconds(seq, 0);
  const end = frameSeconds(seq, poseDuration(seq));
  const frames = bakedFrameCount(end - start, framesPerSecond);
  if (!(frames <= MAX_BAKED_FRAMES))
    throw new Error(`${end - start} s at ${framesPerSecond} frames per second is ${frames} frames, more than ${MAX_BAKED_FRAMES}`);
  const B = seq.boneCount;
  const times = new Float64Array(frames);
  const rotations = new Float64Array(9 * B * frames);
  const translations = seq.translations ? new Float64Array(3 * B * frames) : undefined;
  for (let k = 0; k < frames; k++) {
    times[k] = k === frames - 1 ? end : Math.min(start + k / framesPerSecond, end);
    const frame = frameAtSeconds(seq, times[k]);
    samplePose(seq, frame, rotations.subarray(9 * B * k, 9 * B * (k + 1)));
    if (translations) samplePoseTranslations(seq, frame, translations.subarray(3 * B * k, 3 * B * (k + 1)));
  }
  return translations
    ? { kind: 'matrices', boneCount: B, frameCount: frames, rotations, translations, times }
    : { kind: 'matrices', boneCount: B, frameCount: frames, rotations, times };
}

/** Frames bakePoseSequence makes of a clip `seconds` long at `framesPerSecond`: ⌈seconds · rate⌉ + 1. */
export function bakedFrameCount(seconds: number, framesPerSecond: number): number {
  return Math.max(1, Math.ceil(seconds * framesPerSecond - 1e-6) + 1);
}

/** The curves' last evaluation: samplePose and samplePoseTranslations at one time evaluate once. */
let lastCurves: { curves: KeyframeCurves; seconds: number; rotations: Float64Array; translations: Float64Array } | null = null;

function curvesAt(curves: KeyframeCurves, seconds: number): { rotations: Float64Array; translations: Float64Array } {
  if (lastCurves?.curves !== curves) {
    const B = curves.jointNode.length;
    lastCurves = { curves, seconds: Number.NaN, rotations: new Float64Array(9 * B), translations: new Float64Array(3 * B) };
  }
  if (lastCurves.seconds !== seconds) {
    evaluateKeyframeCurves(curves, seconds, lastCurves.rotations, lastCurves.translations);
    lastCurves.seconds = seconds;
  }
  return lastCurves;
}
