/**
 * Keying a clip that cannot take keys (a glTF clip with key times) on the course hand: the key lands in a new clip at
 * the clip's seconds since its start, 30 frames a second, and the new clip is long enough to hold that frame (60
 * frames at least); a key past the longest clip is refused, saying why. Lengthening the shown keyed clip holds its
 * last frame.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keyedFrames, newKeyedClip, setKeys } from '../../workers/rig/keyed-clip.ts';
import { identityPose, type PoseSequence } from '../../workers/rig/pose-sequence.ts';
import { clipLengthEdit, insertKeysEdit, keyFrameAt, MAX_CLIP_FRAMES, NEW_CLIP_DEFAULTS } from '../../workers/scene/clip-edits.ts';
import { boneCountOf, type SceneDocument } from '../../workers/scene/scene-document.ts';
import { handDocument } from './full-documents.ts';

type Matrices = Extract<PoseSequence, { kind: 'matrices' }>;

/** Row-major rotation by `angle` radians about z. */
const aboutZ = (angle: number): number[] => [Math.cos(angle), -Math.sin(angle), 0, Math.sin(angle), Math.cos(angle), 0, 0, 0, 1];

/** The hand showing a clip with key times `times` (seconds), bone 0 turned about z by 0.1 rad per frame. */
function handWithTimedClip(times: number[]): SceneDocument {
  const doc = handDocument();
  const B = boneCountOf(doc);
  const L = times.length;
  const rotations = new Float64Array(9 * B * L);
  for (let f = 0; f < L; f++) {
    rotations.set(identityPose(B), 9 * B * f);
    rotations.set(aboutZ(0.1 * f), 9 * B * f);
  }
  const poses: PoseSequence = { kind: 'matrices', boneCount: B, frameCount: L, rotations, times: Float64Array.from(times) };
  return { ...doc, poses, posesFile: 'walk', clips: [{ name: 'walk', poses }] };
}

test('a key set 5 s into a 10 s glTF clip lands 4 s after its start, at frame 120 of a new clip of 121 frames, with the pose on screen', () => {
  // Keys at 1, 3.5, 6, 8.5 and 11 s: the timeline's frame 0.8 is 1 + 0.8 · 2.5 = 3 s, 2 s after the clip's start;
  // frame 1.6 is 5 s, 4 s after it, where bone 0 is 0.6 of the way from 0.1 to 0.2 rad: 0.16 rad.
  const doc = handWithTimedClip([1, 3.5, 6, 8.5, 11]);
  const B = boneCountOf(doc);
  assert.equal(keyFrameAt(doc, 0.8), 60, '2 s since the start is frame 60');
  assert.equal(keyFrameAt(doc, 1.6), 120, '4 s since the start is frame 120');
  const edit = insertKeysEdit(doc, 1.6, [0]);
  assert.equal(edit.frame, 120, 'the frame keyed');
  assert.equal(edit.label, 'Key bone 0 at frame 120 of Action', 'the label names that frame');
  const poses = edit.fields.poses as Matrices;
  assert.equal(poses.frameCount, 121, 'the new clip reaches the frame keyed');
  assert.deepStrictEqual(keyedFrames(poses, 0), [120], 'bone 0 is keyed at frame 120');
  const keyed = poses.rotations.subarray(9 * B * 120, 9 * B * 120 + 9);
  for (let i = 0; i < 9; i++) assert.ok(Math.abs(keyed[i] - aboutZ(0.16)[i]) < 1e-12, `entry ${i}: the rotation on screen (0.16 rad)`);
  assert.equal(edit.fields.clips!.length, 2, 'the new clip is added beside the glTF clip');

  const early = insertKeysEdit(doc, 0.1, [0]);
  assert.equal(early.frame, 8, '0.25 s since the start is frame 7.5, rounded to 8');
  assert.equal((early.fields.poses as Matrices).frameCount, NEW_CLIP_DEFAULTS.frames, 'a short clip has the default length');
});

test('a key past the longest clip is refused, naming the time and the limit', () => {
  // 4000 s between two keys: frame 0.9 is 3600 s, frame 108000 of a new clip.
  const doc = handWithTimedClip([0, 4000]);
  assert.equal(keyFrameAt(doc, 0.9), MAX_CLIP_FRAMES, 'an hour in is frame 108000');
  assert.throws(
    () => insertKeysEdit(doc, 0.9, [0]),
    /^ClipEditError: Key: 3600\.000 s into walk is frame 108000 of a new clip, past the longest clip \(108000 frames, an hour at 30 frames per second\)$/,
  );
});

test('lengthening the shown keyed clip holds its last frame; shortening trims it', () => {
  const doc = handDocument();
  const B = boneCountOf(doc);
  const pose = identityPose(B);
  pose.set(aboutZ(0.7), 9 * 2);
  const poses = setKeys(newKeyedClip(B, 10), 4, [2], pose);
  const shown: SceneDocument = { ...doc, poses, posesFile: 'Action', clips: [{ name: 'Action', poses }] };
  const longer = clipLengthEdit(shown, 25);
  assert.equal(longer.label, 'Make Action 25 frames long');
  const seq = longer.fields.poses as Matrices;
  assert.equal(seq.frameCount, 25, '25 frames');
  assert.equal(longer.fields.clips![0].poses, seq, 'the clip list holds the same sequence');
  for (let f = 10; f < 25; f++)
    assert.deepStrictEqual(
      Array.from(seq.rotations.subarray(9 * (B * f + 2), 9 * (B * f + 2) + 9)),
      aboutZ(0.7),
      `frame ${f} holds the key`,
    );
  assert.deepStrictEqual(keyedFrames(seq), [4], 'no new keys');
  assert.equal((clipLengthEdit(shown, 3).fields.poses as Matrices).frameCount, 3, 'shorter: trimmed');
});
