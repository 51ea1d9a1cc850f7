/**
 * Keys on a rotation-matrix pose sequence (PoseSequence kind 'matrices' with `keys`): the poses a user set at some
 * frames, per bone, with every other frame of a bone made from its keys — SLERP (course handout Eq. 1) between its
 * two neighbouring keys, the first key held before it and the last after it. The SLERP parameter of a frame is how far
 * it is from one key to the next in time: in seconds for a sequence with key times, in frames without. Start-joint
 * translations, where the sequence has them, go linearly between the same keys and are held the same way. A bone
 * without keys is at rest (identity rotation, no translation) in every frame.
 *
 * A sequence without `keys` (a pose file's, a glTF clip's) keyed for the first time: every frame it has becomes a
 * key of every bone, so nothing it had changes and a new key only changes its own frame. An edited sequence drops
 * the file's keyframe curves (its frames are no longer what they evaluate to), so it plays its frames with SLERP;
 * key times and translations stay.
 *
 * Every function returns a new sequence and never changes its input.
 */
import { matrixToQuat, quatSlerp, quatToMatrix } from '../math/quaternion.ts';
import { UNTIMED_FRAMES_PER_SECOND, identityPose, type PoseSequence } from './pose-sequence.ts';

type MatrixSequence = Extract<PoseSequence, { kind: 'matrices' }>;

/**
 * A clip of `frameCount` frames at rest (identity rotations) with no keys (keys all 0), played at
 * UNTIMED_FRAMES_PER_SECOND.
 * @throws Error when a count is not a positive integer
 */
export function newKeyedClip(boneCount: number, frameCount: number): PoseSequence {
  for (const [count, what] of [
    [boneCount, 'bone count'],
    [frameCount, 'frame count'],
  ] as const)
    if (!Number.isInteger(count) || count < 1) throw new Error(`newKeyedClip: the ${what} must be a positive integer, not ${count}`);
  const rotations = new Float64Array(9 * boneCount * frameCount);
  const rest = identityPose(boneCount);
  for (let f = 0; f < frameCount; f++) rotations.set(rest, 9 * boneCount * f);
  return { kind: 'matrices', boneCount, frameCount, rotations, keys: new Uint8Array(boneCount * frameCount) };
}

/**
 * Keys `bones` at `frame` to the given rotations; each of those bones' other frames is made again from its keys.
 * A key already there is replaced. Translations (where the sequence has them) of the keyed frame stay as they are.
 * @param seq        a 'matrices' sequence of B bones, L frames
 * @param frame      integer frame, 0 … L − 1
 * @param bones      the bones to key (each once)
 * @param rotations  #B × 9 row-major relative rotations, read only for `bones`
 * @throws Error for a final-pose sequence, a frame or bone out of range, a bone listed twice, or a rotation array
 *         of the wrong length
 */
export function setKeys(seq: PoseSequence, frame: number, bones: readonly number[], rotations: Float64Array): PoseSequence {
  const m = matricesOf(seq, 'setKeys');
  checkFrame(m, frame, 'setKeys');
  checkBones(m, bones, 'setKeys');
  if (rotations.length !== 9 * m.boneCount)
    throw new Error(`setKeys: ${rotations.length / 9} rotations given for a clip of ${m.boneCount} bones`);
  return withKeys(
    m,
    bones.map((bone) => ({ frame, bone, rotation: rotations.subarray(9 * bone, 9 * bone + 9) })),
  );
}

/** One key: bone `bone` at frame `frame` turned by `rotation`. */
export interface KeyEntry {
  /** integer frame, 0 … L − 1 */
  readonly frame: number;
  /** bone index, 0 … B − 1 */
  readonly bone: number;
  /** the bone's relative rotation, 3 × 3 row-major (9 numbers) */
  readonly rotation: ArrayLike<number>;
}

/**
 * Sets keys at any frames in one go (what setKeys does for one frame): the sequence is copied once, every key set,
 * then each bone that got a key has its other frames made again from its keys, once. A key already there is replaced.
 * @param seq      a 'matrices' sequence of B bones, L frames
 * @param entries  the keys, each (frame, bone) at most once
 * @throws Error for a final-pose sequence, a frame or bone out of range, a (frame, bone) given twice, or a rotation
 *         that is not 9 numbers; the message names the entry
 */
export function setKeysAt(seq: PoseSequence, entries: readonly KeyEntry[]): PoseSequence {
  const m = matricesOf(seq, 'setKeysAt');
  const B = m.boneCount;
  const seen = new Map<number, number>();
  for (let i = 0; i < entries.length; i++) {
    const { frame, bone, rotation } = entries[i];
    checkFrame(m, frame, `setKeysAt: entry ${i}`);
    if (!Number.isInteger(bone) || bone < 0 || bone >= B)
      throw new Error(`setKeysAt: entry ${i}: bone ${bone} is out of range: the clip has ${B} bones`);
    if (rotation.length !== 9) throw new Error(`setKeysAt: entry ${i} has ${rotation.length} numbers, not a 3×3 rotation (9)`);
    const earlier = seen.get(B * frame + bone);
    if (earlier !== undefined) throw new Error(`setKeysAt: entry ${i} keys bone ${bone} at frame ${frame} again (entry ${earlier} too)`);
    seen.set(B * frame + bone, i);
  }
  return withKeys(m, entries);
}

/** A copy of `seq` with the (checked) keys set and each keyed bone's other frames made again once. */
function withKeys(seq: MatrixSequence, entries: readonly KeyEntry[]): PoseSequence {
  const out = editable(seq);
  const B = seq.boneCount;
  const touched = new Uint8Array(B);
  for (const { frame, bone, rotation } of entries) {
    out.rotations.set(rotation, 9 * (B * frame + bone));
    out.keys[B * frame + bone] = 1;
    touched[bone] = 1;
  }
  for (let b = 0; b < B; b++) if (touched[b]) rebuildBone(out, b);
  return out;
}

/**
 * Removes the keys at `frame` of `bones` (default: every bone); those bones' frames are made again from the keys
 * left (a bone left without keys goes to rest).
 * @throws Error when the frame is out of range or none of the bones has a key there
 */
export function deleteKeys(seq: PoseSequence, frame: number, bones?: readonly number[]): PoseSequence {
  const m = matricesOf(seq, 'deleteKeys');
  checkFrame(m, frame, 'deleteKeys');
  if (bones) checkBones(m, bones, 'deleteKeys');
  const out = editable(m);
  const B = m.boneCount;
  const keyed = keyedBonesAt(out, frame, bones, 'deleteKeys');
  for (const b of keyed) {
    out.keys[B * frame + b] = 0;
    rebuildBone(out, b);
  }
  return out;
}

/**
 * Moves the keys at `from` of `bones` (default: every bone keyed there) to `to`, with their poses; a key of the same
 * bone at `to` is replaced. The moved bones' frames are made again from their keys.
 * @throws Error when a frame is out of range or none of the bones has a key at `from`
 */
export function moveKeys(seq: PoseSequence, from: number, to: number, bones?: readonly number[]): PoseSequence {
  const m = matricesOf(seq, 'moveKeys');
  checkFrame(m, from, 'moveKeys');
  checkFrame(m, to, 'moveKeys');
  if (bones) checkBones(m, bones, 'moveKeys');
  const out = editable(m);
  const B = m.boneCount;
  const keyed = keyedBonesAt(out, from, bones, 'moveKeys');
  if (from === to) return out;
  for (const b of keyed) {
    out.rotations.copyWithin(9 * (B * to + b), 9 * (B * from + b), 9 * (B * from + b) + 9);
    out.translations?.copyWithin(3 * (B * to + b), 3 * (B * from + b), 3 * (B * from + b) + 3);
    out.keys[B * from + b] = 0;
    out.keys[B * to + b] = 1;
    rebuildBone(out, b);
  }
  return out;
}

/**
 * The frames `first` … `last` only. Keys outside are dropped; a bone that had a key before `first` (after `last`)
 * gets its pose at `first` (`last`) as a key, so the kept frames play as before. Key times, where the sequence has
 * them, are kept shifted so that the first kept frame is at 0 s. A sequence without keys is cut and stays without.
 * @throws Error when the frames are out of range or `first` > `last`
 */
export function trimClip(seq: PoseSequence, first: number, last: number): PoseSequence {
  const m = matricesOf(seq, 'trimClip');
  checkFrame(m, first, 'trimClip');
  checkFrame(m, last, 'trimClip');
  if (first > last) throw new Error(`trimClip: the first frame ${first} is after the last ${last}`);
  const B = m.boneCount;
  const L = last - first + 1;
  const rotations = m.rotations.slice(9 * B * first, 9 * B * (last + 1));
  const translations = m.translations?.slice(3 * B * first, 3 * B * (last + 1));
  const times = m.times?.slice(first, last + 1).map((t, _, all) => t - all[0]);
  let keys: Uint8Array | undefined;
  if (m.keys) {
    keys = m.keys.slice(B * first, B * (last + 1));
    for (let b = 0; b < B; b++) {
      const frames = keyedFrames(m, b);
      if (frames.some((f) => f < first)) keys[b] = 1;
      if (frames.some((f) => f > last)) keys[B * (L - 1) + b] = 1;
    }
  }
  return {
    kind: 'matrices',
    boneCount: B,
    frameCount: L,
    rotations,
    ...(translations ? { translations } : {}),
    ...(times ? { times } : {}),
    ...(keys ? { keys } : {}),
  };
}

/**
 * The clip made `frameCount` frames long (trimClip shortens one): its new frames hold its last frame, which is each
 * bone's pose after its last key (or at rest, for a bone without keys), and are not keys. Key times, where the
 * sequence has them, go on at UNTIMED_FRAMES_PER_SECOND after the last; the file's curves are dropped (the sequence
 * plays its frames with SLERP). A sequence without keys stays without.
 * @param frameCount  whole number ≥ the clip's frame count
 * @throws Error for a final-pose sequence or a frame count that is not a whole number at least the clip's
 */
export function lengthenClip(seq: PoseSequence, frameCount: number): PoseSequence {
  const m = matricesOf(seq, 'lengthenClip');
  if (!Number.isInteger(frameCount)) throw new Error(`lengthenClip: ${frameCount} is not a whole number of frames`);
  const { boneCount: B, frameCount: L } = m;
  if (frameCount < L) throw new Error(`lengthenClip: ${frameCount} frames is shorter than the clip's ${L} (trimClip shortens)`);
  const rotations = new Float64Array(9 * B * frameCount);
  rotations.set(m.rotations);
  const translations = m.translations && new Float64Array(3 * B * frameCount);
  translations?.set(m.translations!);
  for (let f = L; f < frameCount; f++) {
    rotations.copyWithin(9 * B * f, 9 * B * (L - 1), 9 * B * L);
    translations?.copyWithin(3 * B * f, 3 * B * (L - 1), 3 * B * L);
  }
  let times: Float64Array | undefined;
  if (m.times) {
    times = new Float64Array(frameCount);
    times.set(m.times);
    for (let f = L; f < frameCount; f++) times[f] = m.times[L - 1] + (f - L + 1) / UNTIMED_FRAMES_PER_SECOND;
  }
  let keys: Uint8Array | undefined;
  if (m.keys) {
    keys = new Uint8Array(B * frameCount);
    keys.set(m.keys);
  }
  return {
    kind: 'matrices',
    boneCount: B,
    frameCount,
    rotations,
    ...(translations ? { translations } : {}),
    ...(times ? { times } : {}),
    ...(keys ? { keys } : {}),
  };
}

/**
 * The frames holding a key, in increasing order: of `bone`, or of any bone. A sequence without keys has none.
 */
export function keyedFrames(seq: PoseSequence, bone?: number): number[] {
  if (seq.kind !== 'matrices' || !seq.keys) return [];
  const B = seq.boneCount;
  const frames: number[] = [];
  for (let f = 0; f < seq.frameCount; f++) {
    if (bone !== undefined) {
      if (seq.keys[B * f + bone]) frames.push(f);
    } else if (seq.keys.subarray(B * f, B * (f + 1)).includes(1)) frames.push(f);
  }
  return frames;
}

/** The sequence as rotation matrices, or an error naming the operation. */
function matricesOf(seq: PoseSequence, what: string): MatrixSequence {
  if (seq.kind !== 'matrices') throw new Error(`${what}: a final pose (one quaternion per bone) has no frames to key`);
  return seq;
}

/** A copy to edit: arrays copied, keys made (every frame a key of every bone, when it had none), curves dropped. */
function editable(seq: MatrixSequence): MatrixSequence & { keys: Uint8Array } {
  const { boneCount, frameCount } = seq;
  return {
    kind: 'matrices',
    boneCount,
    frameCount,
    rotations: Float64Array.from(seq.rotations),
    ...(seq.translations ? { translations: Float64Array.from(seq.translations) } : {}),
    ...(seq.times ? { times: seq.times } : {}),
    keys: seq.keys ? Uint8Array.from(seq.keys) : new Uint8Array(boneCount * frameCount).fill(1),
  };
}

const scratchA = new Float64Array(4);
const scratchB = new Float64Array(4);
const scratchC = new Float64Array(4);

/**
 * Bone b's frames that are not keys, made from its keys: SLERP between neighbours, held outside, rest without. The
 * SLERP parameter is the fraction of the way from one key to the next in seconds (key times), or in frames (without).
 */
function rebuildBone(seq: MatrixSequence & { keys: Uint8Array }, b: number): void {
  const { boneCount: B, frameCount: L, rotations: R, translations: T, times, keys } = seq;
  const frames = keyedFrames(seq, b);
  const setRest = (f: number): void => {
    R.set(IDENTITY, 9 * (B * f + b));
    T?.fill(0, 3 * (B * f + b), 3 * (B * f + b) + 3);
  };
  const copy = (from: number, f: number): void => {
    R.copyWithin(9 * (B * f + b), 9 * (B * from + b), 9 * (B * from + b) + 9);
    T?.copyWithin(3 * (B * f + b), 3 * (B * from + b), 3 * (B * from + b) + 3);
  };
  if (frames.length === 0) {
    for (let f = 0; f < L; f++) setRest(f);
    return;
  }
  for (let f = 0; f < frames[0]; f++) copy(frames[0], f);
  for (let f = frames[frames.length - 1] + 1; f < L; f++) copy(frames[frames.length - 1], f);
  for (let k = 0; k + 1 < frames.length; k++) {
    const k0 = frames[k],
      k1 = frames[k + 1];
    if (k1 === k0 + 1) continue;
    matrixToQuat(R, 9 * (B * k0 + b), scratchA, 0);
    matrixToQuat(R, 9 * (B * k1 + b), scratchB, 0);
    for (let f = k0 + 1; f < k1; f++) {
      if (keys[B * f + b]) continue;
      const t = times ? (times[f] - times[k0]) / (times[k1] - times[k0]) : (f - k0) / (k1 - k0);
      quatSlerp(scratchA, 0, scratchB, 0, t, scratchC, 0);
      quatToMatrix(scratchC, 0, R, 9 * (B * f + b));
      if (T) for (let c = 0; c < 3; c++) T[3 * (B * f + b) + c] = (1 - t) * T[3 * (B * k0 + b) + c] + t * T[3 * (B * k1 + b) + c];
    }
  }
}

const IDENTITY = Float64Array.of(1, 0, 0, 0, 1, 0, 0, 0, 1);

const allBones = (B: number): number[] => Array.from({ length: B }, (_, b) => b);

/**
 * The bones of `bones` (default: every bone) with a key at `frame`.
 * @param what - The operation, for the error's message.
 * @throws Error, naming `what`, the frame and the bones asked for, when none of them has a key there
 */
function keyedBonesAt(
  seq: MatrixSequence & { keys: Uint8Array },
  frame: number,
  bones: readonly number[] | undefined,
  what: string,
): number[] {
  const B = seq.boneCount;
  const keyed = (bones ?? allBones(B)).filter((b) => seq.keys[B * frame + b]);
  if (keyed.length === 0)
    throw new Error(`${what}: no key at frame ${frame}${bones ? ` of bone${bones.length === 1 ? '' : 's'} ${bones.join(', ')}` : ''}`);
  return keyed;
}

function checkFrame(seq: MatrixSequence, frame: number, what: string): void {
  if (!Number.isInteger(frame) || frame < 0 || frame >= seq.frameCount)
    throw new Error(`${what}: frame ${frame} is out of range: the clip has ${seq.frameCount} frames (0–${seq.frameCount - 1})`);
}

function checkBones(seq: MatrixSequence, bones: readonly number[], what: string): void {
  const seen = new Set<number>();
  // An index loop, so that a sparse array's holes are checked too.
  for (let i = 0; i < bones.length; i++) {
    const b = bones[i];
    if (!Number.isInteger(b) || b < 0 || b >= seq.boneCount)
      throw new Error(`${what}: bone ${b} is out of range: the clip has ${seq.boneCount} bones`);
    if (seen.has(b)) throw new Error(`${what}: bone ${b} is listed twice`);
    seen.add(b);
  }
}
