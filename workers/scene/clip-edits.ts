/**
 * Keying poses into clips, as edits of a scene document: each function returns the fields to replace for one
 * `SceneStore.edit` (one undo step), made with the pure key operations of workers/rig/keyed-clip.ts. The app's key
 * and clip commands (renderer/skeleton/key-commands.ts) and the command-line tool make the same edits.
 *
 * The shown clip is `doc.poses`, named `doc.posesFile`; when it is one of `doc.clips` it is the very same sequence,
 * and an edit replaces both (the clip list's entry and the shown poses) so they stay one object. A clip can be keyed
 * when it is frames played at UNTIMED_FRAMES_PER_SECOND (isKeyedClip): a keyed clip, or a pose file's frames (which
 * become keys of every bone the first time, keyed-clip.ts). Keying while the scene shows the rest pose, a final pose
 * or a glTF clip (with its own key times and curves) makes a new keyed clip (NEW_CLIP_DEFAULTS, or longer, to reach
 * the frame keyed) and keys the pose on screen into it.
 */
import type { GltfClip } from '../formats/gltf-export.ts';
import { deleteKeys, keyedFrames, lengthenClip, moveKeys, newKeyedClip, setKeys, trimClip } from '../rig/keyed-clip.ts';
import { UNTIMED_FRAMES_PER_SECOND, frameSeconds, identityPose, samplePose, type PoseSequence } from '../rig/pose-sequence.ts';
import { boneNamesOf } from './bone-fields.ts';
import { boneCountOf, type PosedBones, type SceneDocument } from './scene-document.ts';
import type { SceneEdit } from './scene-edits.ts';
import { uniqueName } from './unique-name.ts';

/** A new clip: its name (made unique with `.001`, `.002`, … as needed) and length in frames, at 30 frames per second. */
export const NEW_CLIP_DEFAULTS = { name: 'Action', frames: 60 } as const;
/** Most frames a keyed clip may have (an hour at 30 frames per second). */
export const MAX_CLIP_FRAMES = 108_000;

/** A clip keys can be set in: rotation matrices at UNTIMED_FRAMES_PER_SECOND (no key times, no file curves). */
export type KeyedClip = Extract<PoseSequence, { kind: 'matrices' }>;

/** Thrown for a key or clip edit that cannot apply to this document; the message names the operation and the reason. */
export class ClipEditError extends Error {
  override readonly name = 'ClipEditError';
}

/** Whether keys can be set in a sequence (see KeyedClip). */
export function isKeyedClip(seq: PoseSequence | null | undefined): seq is KeyedClip {
  return seq?.kind === 'matrices' && !seq.curves && !seq.times;
}

/** The index in `doc.clips` of the shown clip (the same sequence as `doc.poses`), or -1. */
export function shownClipIndex(doc: SceneDocument): number {
  return doc.poses ? (doc.clips ?? []).findIndex((clip) => clip.poses === doc.poses) : -1;
}

/**
 * The pose on screen at `time`: the shown sequence's relative rotations there (samplePose; the rest pose without
 * one), with the hand-posed bones' rotations over it, as the pose evaluator shows it.
 * @param time  the timeline's time (frames; the SLERP parameter of a final pose)
 * @returns #B × 9 row-major relative rotations
 */
export function shownPose(doc: SceneDocument, time: number): Float64Array {
  const B = boneCountOf(doc);
  const out = identityPose(B);
  if (doc.poses) samplePose(doc.poses, time, out);
  const posed = doc.posedBones;
  if (posed) for (let b = 0; b < B; b++) if (posed.bones[b]) out.set(posed.rotations.subarray(9 * b, 9 * b + 9), 9 * b);
  return out;
}

/**
 * The frame of the keyed clip a key set at `time` lands on: the nearest frame of a shown keyed clip; for another
 * clip, the frame at its seconds since its start at 30 frames per second (the new clip's frame; insertKeysEdit makes
 * the new clip long enough to hold it, and refuses one past MAX_CLIP_FRAMES); 0 at rest.
 */
export function keyFrameAt(doc: SceneDocument, time: number): number {
  const seq = doc.poses;
  const t = Number.isFinite(time) ? Math.max(0, time) : 0;
  if (seq?.kind !== 'matrices') return 0;
  if (isKeyedClip(seq)) return Math.min(Math.round(t), seq.frameCount - 1);
  const seconds = frameSeconds(seq, t) - frameSeconds(seq, 0);
  return Math.round(seconds * UNTIMED_FRAMES_PER_SECOND);
}

/**
 * Keys bones at the pose on screen (shownPose at `time`) into the shown clip, or into a new clip when the shown one
 * cannot be keyed; the keyed bones stop being posed by hand (their pose is the clip's now).
 * @param bones  the bones to key, each once
 * @returns the edit, the frame keyed and the clip's index in the new clip list
 * @throws ClipEditError for no bones, a bone outside the skeleton, or a new clip's frame past MAX_CLIP_FRAMES
 */
export function insertKeysEdit(doc: SceneDocument, time: number, bones: readonly number[]): SceneEdit & { frame: number; clip: number } {
  const B = boneCountOf(doc);
  checkBones('Key', doc, bones);
  if (bones.length === 0) throw new ClipEditError('Key: no bones to key');
  const pose = shownPose(doc, time);
  const frame = keyFrameAt(doc, time);
  const clips = [...(doc.clips ?? [])];
  let index = shownClipIndex(doc);
  let seq: KeyedClip;
  let name: string;
  if (isKeyedClip(doc.poses)) {
    seq = doc.poses;
    name = doc.posesFile ?? uniqueClipName(clips, NEW_CLIP_DEFAULTS.name);
  } else {
    if (frame >= MAX_CLIP_FRAMES)
      throw new ClipEditError(
        `Key: ${(frame / UNTIMED_FRAMES_PER_SECOND).toFixed(3)} s into ${doc.posesFile ?? 'poses'} is frame ${frame} of a new clip, ` +
          `past the longest clip (${MAX_CLIP_FRAMES} frames, an hour at ${UNTIMED_FRAMES_PER_SECOND} frames per second)`,
      );
    seq = newKeyedClip(B, Math.max(NEW_CLIP_DEFAULTS.frames, frame + 1)) as KeyedClip;
    name = uniqueClipName(clips, NEW_CLIP_DEFAULTS.name);
    index = -1;
  }
  const poses = setKeys(seq, frame, bones, pose);
  const clip: GltfClip = { name, poses };
  if (index >= 0) clips[index] = clip;
  else index = clips.push(clip) - 1;
  const names = boneNamesOf(doc);
  const what = bones.length === B ? 'all bones' : bones.length === 1 ? names[bones[0]] : `${bones.length} bones`;
  return {
    label: `Key ${what} at frame ${frame} of ${name}`,
    fields: { poses, posesFile: name, clips, posedBones: withoutPosed(doc.posedBones, bones) },
    frame,
    clip: index,
  };
}

/**
 * Deletes the keys of `bones` (all bones when absent) at `frame` of the shown keyed clip.
 * @throws ClipEditError when the shown clip is not a keyed clip or has no such key at that frame
 */
export function deleteKeysEdit(doc: SceneDocument, frame: number, bones?: readonly number[]): SceneEdit {
  const { seq, name } = shownKeyedClip('Delete keys', doc);
  if (bones) checkBones('Delete keys', doc, bones);
  checkFrame('Delete keys', seq, name, frame);
  if (!hasKeyAt(seq, frame, bones))
    throw new ClipEditError(`Delete keys: ${name} has no key${bones ? ' of those bones' : ''} at frame ${frame}`);
  return replaceShown(doc, `Delete keys at frame ${frame} of ${name}`, deleteKeys(seq, frame, bones));
}

/**
 * Moves the keys of `bones` (all bones when absent) at frame `from` to frame `to` of the shown keyed clip.
 * @throws ClipEditError when the shown clip is not keyed, a frame is outside it, or there is no key at `from`
 */
export function moveKeysEdit(doc: SceneDocument, from: number, to: number, bones?: readonly number[]): SceneEdit {
  const { seq, name } = shownKeyedClip('Move keys', doc);
  if (bones) checkBones('Move keys', doc, bones);
  checkFrame('Move keys', seq, name, from);
  checkFrame('Move keys', seq, name, to);
  if (!hasKeyAt(seq, from, bones))
    throw new ClipEditError(`Move keys: ${name} has no key${bones ? ' of those bones' : ''} at frame ${from}`);
  if (from === to) throw new ClipEditError(`Move keys: the keys are at frame ${from} already`);
  return replaceShown(doc, `Move keys from frame ${from} to ${to} of ${name}`, moveKeys(seq, from, to, bones));
}

/**
 * A new keyed clip at rest, without keys, added to the clips and shown.
 * @param name    unique among the clips; absent: NEW_CLIP_DEFAULTS.name made unique
 * @param frames  1 … MAX_CLIP_FRAMES; absent: NEW_CLIP_DEFAULTS.frames
 * @returns the edit and the new clip's index
 */
export function newClipEdit(doc: SceneDocument, name?: string, frames: number = NEW_CLIP_DEFAULTS.frames): SceneEdit & { clip: number } {
  const clips = [...(doc.clips ?? [])];
  if (boneCountOf(doc) === 0) throw new ClipEditError('New clip: the scene has no bones to animate');
  checkFrameCount('New clip', frames);
  const clipName = name === undefined ? uniqueClipName(clips, NEW_CLIP_DEFAULTS.name) : checkedName('New clip', clips, name, -1);
  const poses = newKeyedClip(boneCountOf(doc), frames);
  const clip = clips.push({ name: clipName, poses }) - 1;
  return { label: `New clip ${clipName}`, fields: { clips, poses, posesFile: clipName }, clip };
}

/**
 * Renames clip `index` (the shown one's name changes with it).
 * @throws ClipEditError for a clip that is not there, an empty name or one another clip has
 */
export function renameClipEdit(doc: SceneDocument, index: number, name: string): SceneEdit {
  const clips = [...(doc.clips ?? [])];
  if (!(Number.isInteger(index) && index >= 0 && index < clips.length))
    throw new ClipEditError(`Rename clip: there is no clip ${index} (the scene has ${clips.length})`);
  const old = clips[index];
  const clipName = checkedName('Rename clip', clips, name, index);
  // A clip renamed is not the file's animation of that name any more: export writes it (keeping what it came from).
  const from = old.source ?? old.from;
  clips[index] = { name: clipName, poses: old.poses, ...(from !== undefined ? { from } : {}) };
  const shown = index === shownClipIndex(doc);
  return {
    label: `Rename clip ${old.name} to ${clipName}`,
    fields: shown ? { clips, posesFile: clipName } : { clips },
  };
}

/**
 * Keeps frames `first` … `last` of the shown keyed clip (trimClip), which then starts at `first`.
 * @throws ClipEditError when the shown clip is not keyed or the range is not within it
 */
export function trimClipEdit(doc: SceneDocument, first: number, last: number): SceneEdit {
  const { seq, name } = shownKeyedClip('Trim clip', doc);
  checkFrame('Trim clip', seq, name, first);
  checkFrame('Trim clip', seq, name, last);
  if (first > last) throw new ClipEditError(`Trim clip: the first frame (${first}) comes after the last (${last})`);
  return replaceShown(doc, `Trim ${name} to frames ${first}–${last}`, trimClip(seq, first, last));
}

/**
 * Makes the shown keyed clip `frames` long: shorter, it loses its frames from `frames` on (and their keys); longer,
 * its new frames hold its last frame (each bone's pose after its last key).
 * @throws ClipEditError when the shown clip is not keyed, or for a length outside 1 … MAX_CLIP_FRAMES
 */
export function clipLengthEdit(doc: SceneDocument, frames: number): SceneEdit {
  const { seq, name } = shownKeyedClip('Clip length', doc);
  checkFrameCount('Clip length', frames);
  if (frames === seq.frameCount) throw new ClipEditError(`Clip length: ${name} is ${frames} frames long already`);
  const label = `Make ${name} ${frames} frames long`;
  return replaceShown(doc, label, frames < seq.frameCount ? trimClip(seq, 0, frames - 1) : lengthenClip(seq, frames));
}

/**
 * The fields that show clip `index` (for SceneStore.show: choosing what to view is not an edit).
 * @throws ClipEditError for a clip that is not there
 */
export function showClipFields(doc: SceneDocument, index: number): Pick<SceneDocument, 'poses' | 'posesFile'> {
  const clips = doc.clips ?? [];
  if (!(Number.isInteger(index) && index >= 0 && index < clips.length))
    throw new ClipEditError(`Show clip: there is no clip ${index} (the scene has ${clips.length})`);
  return { poses: clips[index].poses, posesFile: clips[index].name };
}

/** `base`, or `base.001`, `base.002`, … : the first name no clip has. */
export function uniqueClipName(clips: readonly GltfClip[], base: string): string {
  return uniqueName(new Set(clips.map((clip) => clip.name)), base);
}

function shownKeyedClip(operation: string, doc: SceneDocument): { seq: KeyedClip; name: string } {
  if (!isKeyedClip(doc.poses))
    throw new ClipEditError(
      `${operation}: the clip shown (${doc.posesFile ?? (doc.poses ? 'poses' : 'the rest pose')}) cannot be keyed; key a pose or make a new clip first`,
    );
  return { seq: doc.poses, name: doc.posesFile ?? 'poses' };
}

/** The edit that replaces the shown clip's poses (in the clip list too, when it is there). */
function replaceShown(doc: SceneDocument, label: string, poses: PoseSequence): SceneEdit {
  const index = shownClipIndex(doc);
  if (index < 0) return { label, fields: { poses } };
  const clips = [...doc.clips!];
  clips[index] = { ...clips[index], poses };
  return { label, fields: { poses, clips } };
}

/** Whether a bone of `bones` (any bone) has a key at `frame`; in a clip without key flags every frame is a key. */
function hasKeyAt(seq: KeyedClip, frame: number, bones?: readonly number[]): boolean {
  const B = seq.boneCount;
  const { keys } = seq;
  if (!keys) return true;
  if (bones) return bones.some((b) => keys[frame * B + b] === 1);
  for (let b = 0; b < B; b++) if (keys[frame * B + b]) return true;
  return false;
}

/** Posed-by-hand bones with `bones` no longer posed; undefined when none is left. */
function withoutPosed(posed: PosedBones | undefined, bones: readonly number[]): PosedBones | undefined {
  if (!posed) return undefined;
  const flags = posed.bones.slice();
  for (const b of bones) flags[b] = 0;
  return flags.some((f) => f !== 0) ? { rotations: posed.rotations, bones: flags } : undefined;
}

function checkBones(operation: string, doc: SceneDocument, bones: readonly number[]): void {
  const B = boneCountOf(doc);
  const seen = new Set<number>();
  for (const b of bones) {
    if (!(Number.isInteger(b) && b >= 0 && b < B)) throw new ClipEditError(`${operation}: ${b} is not a bone (the skeleton has ${B})`);
    if (seen.has(b)) throw new ClipEditError(`${operation}: bone ${b} is named twice`);
    seen.add(b);
  }
}

function checkFrame(operation: string, seq: KeyedClip, name: string, frame: number): void {
  if (!(Number.isInteger(frame) && frame >= 0 && frame < seq.frameCount))
    throw new ClipEditError(`${operation}: frame ${frame} is not a frame of ${name} (0 … ${seq.frameCount - 1})`);
}

function checkFrameCount(operation: string, frames: number): void {
  if (!(Number.isInteger(frames) && frames >= 1 && frames <= MAX_CLIP_FRAMES))
    throw new ClipEditError(`${operation}: ${frames} is not a clip length (a whole number of frames from 1 to ${MAX_CLIP_FRAMES})`);
}

function checkedName(operation: string, clips: readonly GltfClip[], name: string, self: number): string {
  const trimmed = name.trim();
  if (trimmed === '') throw new ClipEditError(`${operation}: a clip needs a name`);
  const other = clips.findIndex((clip, i) => i !== self && clip.name === trimmed);
  if (other >= 0) throw new ClipEditError(`${operation}: clip ${other} is called ${trimmed} already`);
  return trimmed;
}

/**
 * What the timeline marks for the shown clip: the frames with a key of any bone, and those with a key of `bone`;
 * null when the shown clip has no key flags.
 * @param bone  the selected bone, or -1
 */
export function keyMarksOf(doc: SceneDocument, bone: number): { frames: number[]; selected: number[] } | null {
  const seq = doc.poses;
  if (!isKeyedClip(seq) || !seq.keys) return null;
  return { frames: keyedFrames(seq), selected: bone >= 0 && bone < seq.boneCount ? keyedFrames(seq, bone) : [] };
}
