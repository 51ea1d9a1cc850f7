/**
 * Keying poses into clips on the course hand, through the real command registry, scene store and pose playback:
 * a key set from a hand-posed bone lands in a new clip "Action" (60 frames) and clears the bone's hand pose, in one
 * undo step; the frames between two keys are the rotation at the linearly interpolated angle (SLERP between two
 * rotations about one axis, handout Eq. 1); undo gives back the very arrays; choosing a clip is no undo step and
 * leaves the project saved; keys survive a project save and reopen; the keyed clip goes through the app's glTF export
 * (every clip of the scene) and comes back with the same frames and bone names; file.saveClip writes the pose DMAT.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { COMMANDS } from '../../renderer/commands/command-catalog.ts';
import { CommandRegistry } from '../../renderer/commands/command-registry.ts';
import { BoneSelection } from '../../renderer/skeleton/bone-selection.ts';
import { keyCommands, keyMarkActions } from '../../renderer/skeleton/key-commands.ts';
import { PosePlayback } from '../../renderer/skeleton/pose-playback.ts';
import { ProjectSession } from '../../renderer/project/project-session.ts';
import { clipNameOf, sceneClips } from '../../renderer/io/gltf-export-action.ts';
import type { PoseKind } from '../../renderer/deform/pose-evaluator.ts';
import { readDmat } from '../../workers/formats/dmat.ts';
import { exportGltf } from '../../workers/formats/gltf-export.ts';
import { exportGltfInPlace } from '../../workers/formats/gltf-edit.ts';
import { importGltf } from '../../workers/formats/gltf-import.ts';
import { poseSequenceFromDmat } from '../../workers/formats/pose-file.ts';
import { defaultProjectSettings, readProjectFile, writeProjectFile } from '../../workers/formats/project-file.ts';
import { samplePose, type PoseSequence } from '../../workers/rig/pose-sequence.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { showClipFields } from '../../workers/scene/clip-edits.ts';
import { boneNamesOf } from '../../workers/scene/bone-fields.ts';
import { documentFromProject, projectSceneOf, projectSettingsOf } from '../../workers/scene/project-document.ts';
import { boneCountOf, type SceneDocument } from '../../workers/scene/scene-document.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';
import { fullCesiumMan, handDocument } from './full-documents.ts';
import { glbJson } from './glb-json.ts';
import { axisAngleMatrix } from './rotation-matrix.ts';

/** The timeline as the commands and the pose playback use it, without a page. */
class FakeTimeline {
  time = 0;
  duration = 0;
  playing = false;
  sequences = 0;
  setSequence(_kind: PoseKind, duration: number, autoplay: boolean): void {
    this.duration = duration;
    this.time = 0;
    this.playing = autoplay && duration > 0;
    this.sequences++;
  }
  pause(): void {
    this.playing = false;
  }
  seek(time: number): void {
    this.time = Math.min(Math.max(time, 0), this.duration);
  }
}

/** The hand at rest (no pose file), so the first key makes a clip. */
function restHand(): SceneDocument {
  return { ...handDocument(), poses: null, posesFile: null };
}

function setup(doc: SceneDocument = restHand()) {
  const history = new UndoHistory();
  const store = new SceneStore(doc, history);
  const boneSelection = new BoneSelection(store);
  const timeline = new FakeTimeline();
  new PosePlayback(store, timeline, () => {});
  const saved: { suggestedName: string; bytes: Uint8Array }[] = [];
  const commands = new CommandRegistry(() => ({}), undefined, { boneCount: () => boneCountOf(store.doc), meshIndex: () => 0 });
  const handlers = keyCommands({
    store,
    boneSelection,
    timeline,
    bridge: {
      saveFile: async (request) => {
        saved.push(request);
        return true;
      },
    },
    renderNow: () => {},
  });
  for (const id of Object.keys(handlers) as (keyof typeof handlers)[]) commands.register(id, handlers[id] as never);
  return { store, history, boneSelection, timeline, commands, saved };
}

/** Row-major rotation by `angle` radians about the unit `axis` (Rodrigues). */
/** Poses `bone` by hand at `rotation`, as the gizmo does (a store edit of posedBones). */
function poseByHand(store: SceneStore, bone: number, rotation: ArrayLike<number>): void {
  const B = boneCountOf(store.doc);
  const rotations = store.doc.posedBones?.rotations.slice() ?? new Float64Array(9 * B);
  const bones = store.doc.posedBones?.bones.slice() ?? new Uint8Array(B);
  rotations.set(rotation, 9 * bone);
  bones[bone] = 1;
  store.edit(`Rotate bone ${bone}`, { posedBones: { rotations, bones } });
}

const AXIS = [0.48, 0.6, 0.64];
const A0 = 0.3;
const A1 = 1.9;

function maxDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  assert.equal(a.length, b.length, 'same length');
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  return worst;
}

/** Keys bone `bone` at frames 0 and 40 by hand poses A0 and A1 about AXIS (key.insert of the selected bone). */
function keyTwoPoses(s: ReturnType<typeof setup>, bone: number): void {
  s.boneSelection.select(bone);
  poseByHand(s.store, bone, axisAngleMatrix(AXIS, A0));
  assert.equal(s.commands.execute('key.insert', 'selected'), 0, 'keyed at frame 0');
  s.timeline.seek(40);
  poseByHand(s.store, bone, axisAngleMatrix(AXIS, A1));
  assert.equal(s.commands.execute('key.insert'), 40, 'keyed at frame 40 (the selected bone by default)');
}

test('keys: two keys in a new clip Action; the frames between are SLERP; the keyed bone lets go of its hand pose', () => {
  const s = setup();
  const B = boneCountOf(s.store.doc);
  const bone = 3;
  s.boneSelection.select(bone);
  poseByHand(s.store, bone, axisAngleMatrix(AXIS, A0));
  const steps = s.history.undoCount;
  void s.commands.execute('key.insert', 'selected');
  const doc = s.store.doc;
  assert.equal(s.history.undoCount, steps + 1, 'one undo step');
  assert.equal(doc.posesFile, 'Action');
  assert.equal(doc.clips?.length, 1);
  assert.equal(doc.clips[0].poses, doc.poses, 'the shown poses are the clip (one object)');
  assert.ok(doc.poses?.kind === 'matrices' && doc.poses.frameCount === 60, 'a clip of 60 frames');
  assert.equal(doc.posedBones, undefined, 'the keyed bone is no longer posed by hand');
  assert.equal(s.timeline.duration, 59, 'the timeline shows the new clip');
  assert.equal(s.timeline.playing, false, 'paused at the key');

  s.timeline.seek(40);
  poseByHand(s.store, bone, axisAngleMatrix(AXIS, A1));
  void s.commands.execute('key.insert');
  const poses = s.store.doc.poses as Extract<PoseSequence, { kind: 'matrices' }>;
  assert.equal(s.timeline.time, 40, 'keying into the shown clip keeps the time');
  assert.deepEqual(
    Array.from({ length: 60 }, (_, f) => poses.keys![f * B + bone]).flatMap((k, f) => (k ? [f] : [])),
    [0, 40],
    'bone 3 is keyed at frames 0 and 40',
  );
  for (let b = 0; b < B; b++) if (b !== bone) assert.ok(!poses.keys!.some((k, i) => k && i % B === b), `bone ${b} has no key`);
  const out = new Float64Array(9 * B);
  for (const t of [0, 0.25, 0.5, 0.75, 1]) {
    samplePose(poses, 40 * t, out);
    const error = maxDifference(out.subarray(9 * bone, 9 * bone + 9), axisAngleMatrix(AXIS, A0 + t * (A1 - A0)));
    assert.ok(error < 1e-12, `t = ${t}: the rotation at the interpolated angle (error ${error})`);
  }
  samplePose(poses, 55, out);
  assert.ok(maxDifference(out.subarray(9 * bone, 9 * bone + 9), axisAngleMatrix(AXIS, A1)) < 1e-15, 'after the last key the bone holds it');
  samplePose(poses, 20, out);
  assert.ok(maxDifference(out.subarray(0, 9), [1, 0, 0, 0, 1, 0, 0, 0, 1]) === 0, 'a bone without keys stays at rest');
});

test('keys: undo gives back the document bit for bit, redo the same arrays; a refused command changes nothing', () => {
  const s = setup();
  const start = s.store.doc;
  keyTwoPoses(s, 5);
  void s.commands.execute('key.insertAll');
  void s.commands.execute('key.move', { from: 40, to: 50 });
  void s.commands.execute('key.delete', { frame: 0, bones: 'all' });
  void s.commands.execute('clip.rename', { clip: 0, name: 'Wave' });
  void s.commands.execute('clip.trim', { first: 0, last: 55 });
  void s.commands.execute('clip.length', 90);
  void s.commands.execute('clip.new', { name: 'Idle', frames: 12 });
  const end = s.store.doc;
  const labels = s.history.undoLabels();
  assert.equal(labels.length, 4 + 7, 'one undo step per command (and per hand pose)');
  while (s.history.canUndo) s.history.undo();
  for (const key of Object.keys(start) as (keyof SceneDocument)[]) assert.equal(s.store.doc[key], start[key], `undo gives back ${key}`);
  while (s.history.canRedo) s.history.redo();
  for (const key of Object.keys(end) as (keyof SceneDocument)[]) assert.equal(s.store.doc[key], end[key], `redo gives back ${key}`);

  const before = s.store.doc;
  assert.throws(() => s.commands.execute('clip.rename', { clip: 1, name: 'Wave' }), /Rename clip: clip 0 is called Wave already/);
  assert.throws(
    () => s.commands.execute('clip.trim', { first: 5, last: 2 }),
    /Trim clip: the first frame \(5\) comes after the last \(2\)/,
  );
  assert.throws(() => s.commands.execute('key.delete', { frame: 3, bones: 'all' }), /Delete keys: Idle has no key at frame 3/);
  assert.throws(() => s.commands.execute('key.move', { from: 0, to: 99 }), /Move keys: frame 99 is not a frame of Idle \(0 … 11\)/);
  assert.equal(s.store.doc, before, 'the refused commands changed nothing');
});

test('keys: move without bones moves the selected bone’s keys (every bone’s when none is selected); a key mark dragged on the timeline moves every bone’s', () => {
  const s = setup();
  const B = boneCountOf(s.store.doc);
  // Bones 2 and 5 keyed at frames 0 and 40: the timeline draws one mark at each frame for both.
  keyTwoPoses(s, 2);
  s.timeline.seek(0);
  keyTwoPoses(s, 5);
  const keyedFrames = (bone: number): number[] => {
    const p = s.store.doc.poses as Extract<PoseSequence, { kind: 'matrices' }>;
    return Array.from({ length: p.frameCount }, (_, f) => f).filter((f) => p.keys![f * B + bone]);
  };
  const keys = () => ({ 2: keyedFrames(2), 5: keyedFrames(5) });
  const start = s.store.doc;
  assert.equal(s.boneSelection.bone, 5);

  void s.commands.execute('key.move', { from: 40, to: 30 });
  assert.deepEqual(keys(), { 2: [0, 40], 5: [0, 30] }, 'without bones: the selected bone’s key alone');
  s.history.undo();
  assert.equal(s.store.doc.poses, start.poses);

  s.boneSelection.select(-1);
  void s.commands.execute('key.move', { from: 40, to: 30 });
  assert.deepEqual(keys(), { 2: [0, 30], 5: [0, 30] }, 'without bones and no bone selected: every bone’s');
  s.history.undo();

  // The mark at frame 40 dragged to 45 with bone 5 selected: both bones' keys go, as the mark drew them.
  s.boneSelection.select(5);
  const steps = s.history.undoCount;
  keyMarkActions(s.commands).move(40, 45);
  assert.deepEqual(keys(), { 2: [0, 45], 5: [0, 45] }, 'the dragged mark: every bone’s keys at its frame');
  assert.equal(s.history.undoCount, steps + 1, 'one undo step');
  keyMarkActions(s.commands).remove(45);
  assert.deepEqual(keys(), { 2: [0], 5: [0] }, 'the deleted mark: every bone’s keys at its frame');
  // The description is the script API's doc of rig.key.move: about the call, not about the timeline's marks.
  const description = COMMANDS['key.move'].description ?? '';
  assert.match(description, /^Move the keys at one frame to another/, 'key.move has its description');
  assert.doesNotMatch(description, /timeline|mark|drag/i, 'key.move’s description speaks of the command alone');
});

test('keys: delete, move, trim and length act on the keys; at rest they are refused, saying why', () => {
  const s = setup();
  assert.throws(() => s.commands.execute('key.delete'), /cannot be keyed/, 'nothing to delete at rest');
  assert.throws(() => s.commands.execute('key.insert', 'selected'), /key\.insert: no bone is selected/);
  assert.equal(s.commands.titleOf('key.insert'), 'Key all bones', 'the menu says what Alt+I keys: all bones with none selected');
  const bone = 2;
  keyTwoPoses(s, bone);
  assert.equal(s.commands.titleOf('key.insert'), `Key ${boneNamesOf(s.store.doc)[bone]}`, 'and the selected bone by its name');
  const B = boneCountOf(s.store.doc);
  const keysOf = () => {
    const p = s.store.doc.poses as Extract<PoseSequence, { kind: 'matrices' }>;
    return Array.from({ length: p.frameCount }, (_, f) => f).filter((f) => p.keys![f * B + bone]);
  };
  void s.commands.execute('key.move', { from: 40, to: 20 });
  assert.deepEqual(keysOf(), [0, 20]);
  const out = new Float64Array(9 * B);
  samplePose(s.store.doc.poses!, 10, out);
  assert.ok(maxDifference(out.subarray(9 * bone, 9 * bone + 9), axisAngleMatrix(AXIS, (A0 + A1) / 2)) < 1e-12, 'half way to the moved key');
  void s.commands.execute('clip.trim', { first: 10, last: 29 });
  assert.equal(s.timeline.duration, 19, 'the timeline shows the trimmed length');
  assert.deepEqual(keysOf(), [0, 10], 'the pose at the first kept frame became a key; the moved key is at 10 now');
  samplePose(s.store.doc.poses!, 0, out);
  assert.ok(
    maxDifference(out.subarray(9 * bone, 9 * bone + 9), axisAngleMatrix(AXIS, (A0 + A1) / 2)) < 1e-12,
    'the trimmed clip starts where frame 10 was',
  );
  void s.commands.execute('clip.length', 30);
  samplePose(s.store.doc.poses!, 29, out);
  assert.ok(maxDifference(out.subarray(9 * bone, 9 * bone + 9), axisAngleMatrix(AXIS, A1)) < 1e-12, 'the new frames hold the last key');
  s.timeline.seek(10);
  void s.commands.execute('key.delete');
  assert.deepEqual(keysOf(), [0], 'Delete at the current frame takes the selected bone’s key');
  assert.throws(() => s.commands.execute('clip.length', 0), /clip\.length: argument/);
});

test('keys: with no bones the key commands are refused saying so (the key buttons show it as their tooltip)', () => {
  const bare = buildSkeleton({ joints: new Float64Array(0), bones: new Uint32Array(0) }, 'hand.off');
  const s = setup({ ...restHand(), skeleton: bare });
  for (const id of ['key.insert', 'key.insertAll'] as const) {
    assert.equal(s.commands.refusal(id), 'the scene has no bones to key (build a skeleton first)', `${id} says why`);
    assert.throws(() => s.commands.execute(id), /cannot run now: the scene has no bones to key/, `${id} is refused`);
  }
  assert.equal(s.commands.refusal('key.delete'), 'the clip shown cannot be keyed (key a pose or make a new clip first)');
  assert.equal(s.history.undoCount, 0, 'nothing was edited');
});

test('clips: a new clip is shown; choosing a clip is no undo step and leaves the project saved', () => {
  const s = setup();
  const session = new ProjectSession(s.store, s.history);
  keyTwoPoses(s, 4);
  assert.equal(s.commands.execute('clip.new'), 1, 'the new clip is the second');
  assert.equal(s.store.doc.posesFile, 'Action.001', 'a name no clip has');
  session.markSaved('hand.rig.glb', null);
  const steps = s.history.undoCount;
  const shown = s.timeline.sequences;
  s.store.show(showClipFields(s.store.doc, 0));
  assert.equal(s.store.doc.posesFile, 'Action');
  assert.equal(s.store.doc.poses, s.store.doc.clips![0].poses, 'the chosen clip is shown');
  assert.equal(s.timeline.sequences, shown + 1, 'the timeline plays it');
  assert.equal(s.history.undoCount, steps, 'no undo step');
  assert.equal(session.dirty, false, 'still saved');
  assert.throws(() => showClipFields(s.store.doc, 2), /Show clip: there is no clip 2 \(the scene has 2\)/);
});

test('keys survive a project save and reopen', async () => {
  const s = setup();
  keyTwoPoses(s, 6);
  void s.commands.execute('clip.new', { name: 'Second', frames: 10 });
  void s.commands.execute('key.insertAll');
  const doc = s.store.doc;
  const bytes = await writeProjectFile({
    scene: projectSceneOf(doc),
    settings: projectSettingsOf(doc, defaultProjectSettings(doc.weights.rows, doc.weights.cols)),
  });
  const read = readProjectFile(bytes, 'hand.rig.glb');
  const opened = documentFromProject(read.scene, read.settings);
  assert.deepEqual(
    opened.clips?.map((c) => c.name),
    ['Action', 'Second'],
  );
  assert.equal(opened.poses, opened.clips[1].poses, 'the shown clip is still one of the clips');
  for (let c = 0; c < 2; c++) {
    const a: PoseSequence = doc.clips![c].poses;
    const b: PoseSequence = opened.clips[c].poses;
    assert.ok(a.kind === 'matrices' && b.kind === 'matrices', 'frames');
    assert.deepEqual(b.keys, a.keys, `clip ${c}: the same keys`);
    assert.deepEqual(b.rotations, a.rotations, `clip ${c}: the same frames`);
  }
});

test('the glTF export writes every clip, the keyed one included, and re-import gives its frames and the bone names', async () => {
  const s = setup();
  const original = handDocument();
  keyTwoPoses(s, 7);
  const doc = s.store.doc;
  const B = boneCountOf(doc);
  const names = Array.from({ length: B }, (_, b) => `finger_${b}`);
  const clips = sceneClips({ ...doc, poses: original.poses, posesFile: original.posesFile }, 'hand-pose_matrot');
  assert.deepEqual(
    clips.map((c) => c.name),
    ['Action', 'hand-pose_matrot'],
    'the keyed clip, and the pose file shown as a clip of its own',
  );
  const { bytes } = await exportGltf(
    { mesh: doc.mesh, skeleton: doc.skeleton, weights: doc.weights, boneNames: names, clips },
    'hand.glb',
    { format: 'glb' },
  );
  const rig = await importGltf(bytes, 'hand.glb');
  assert.deepEqual(rig.boneNames, names, 'the bones’ names come back');
  const action = rig.clips.find((c) => c.name === 'Action');
  assert.ok(action, 'the keyed clip is in the file');
  const keyed = doc.poses as Extract<PoseSequence, { kind: 'matrices' }>;
  assert.ok(action.poses.kind === 'matrices' && action.poses.frameCount === keyed.frameCount, 'one key per frame');
  const error = maxDifference(action.poses.rotations, keyed.rotations);
  assert.ok(error < 1e-6, `every frame within 1e-6 (${error})`);
});

test('file.saveClip writes the shown clip as a 3·B·L × 3 DMAT that reads back bit for bit', async () => {
  const s = setup();
  assert.throws(() => s.commands.execute('file.saveClip'), /the scene shows no clip of frames/);
  keyTwoPoses(s, 1);
  await s.commands.execute('file.saveClip');
  assert.equal(s.saved.length, 1);
  assert.equal(s.saved[0].suggestedName, 'Action.dmat');
  const B = boneCountOf(s.store.doc);
  const matrix = readDmat(s.saved[0].bytes, 'Action.dmat');
  assert.equal(matrix.rows, 3 * B * 60);
  assert.equal(matrix.cols, 3);
  const read = poseSequenceFromDmat(matrix, B, 'Action.dmat');
  assert.ok(read.kind === 'matrices', 'rotation matrices');
  assert.deepEqual(read.rotations, (s.store.doc.poses as Extract<PoseSequence, { kind: 'matrices' }>).rotations);
});

test('the in-place glTF export keeps the file’s clip and adds the keyed one, which re-imports with its frames and the bone names', async () => {
  const s = setup(await fullCesiumMan());
  const bone = 4;
  keyTwoPoses(s, bone);
  const doc = s.store.doc;
  assert.deepEqual(
    doc.clips?.map((c) => c.name),
    [(await fullCesiumMan()).clips![0].name, 'Action'],
    'a glTF clip (key times and curves) cannot be keyed: the key made a new clip beside it',
  );
  const { bytes } = await exportGltfInPlace(
    {
      source: doc.gltfSource!,
      mesh: doc.mesh,
      skeleton: doc.skeleton,
      weights: doc.weights,
      boneNames: doc.boneNames ? [...doc.boneNames] : undefined,
      clips: sceneClips(doc, clipNameOf(doc)),
      parts: doc.parts ? [...doc.parts] : undefined,
    },
    'CesiumMan.glb',
    { format: 'glb' },
  );
  const rig = await importGltf(bytes, 'CesiumMan.glb');
  assert.deepEqual(rig.boneNames, doc.boneNames, 'the bones’ names come back');
  assert.deepEqual(
    rig.clips.map((c) => c.name),
    doc.clips.map((c) => c.name),
    'the file’s clip and the keyed one',
  );
  const keyed = doc.poses as Extract<PoseSequence, { kind: 'matrices' }>;
  const action = rig.clips[1].poses;
  assert.ok(action.kind === 'matrices' && action.frameCount === keyed.frameCount, 'one key per frame');
  // The file's rest rotations are kept in place: compare the poses the clip gives, frame by frame.
  const B = boneCountOf(doc);
  const [a, b] = [new Float64Array(9 * B), new Float64Array(9 * B)];
  let error = 0;
  for (let f = 0; f < keyed.frameCount; f++) {
    samplePose(keyed, f, a);
    samplePose(action, f, b);
    error = Math.max(error, maxDifference(a, b));
  }
  assert.ok(error < 1e-6, `every frame within 1e-6 (${error})`);
});

test('a project whose key flags are not 0 or 1 is refused, naming the file, the clip, the frame and the bone', async () => {
  const s = setup();
  keyTwoPoses(s, 6);
  const doc = s.store.doc;
  const bytes = await writeProjectFile({
    scene: projectSceneOf(doc),
    settings: projectSettingsOf(doc, defaultProjectSettings(doc.weights.rows, doc.weights.cols)),
  });
  const json = glbJson<{
    bufferViews: { byteOffset: number }[];
    extensions: Record<string, { scene: { clips: { poses: { keys: { bufferView: number } } }[] } }>;
  }>(bytes);
  const keys = json.extensions.RIGWRIGHT_project.scene.clips[0].poses.keys;
  const B = boneCountOf(doc);
  const jsonLength = new DataView(bytes.buffer, bytes.byteOffset).getUint32(12, true);
  const bad = bytes.slice();
  bad[20 + jsonLength + 8 + json.bufferViews[keys.bufferView].byteOffset + 40 * B + 6] = 2;
  assert.throws(
    () => readProjectFile(bad, 'keys.rig.glb'),
    /^FormatError: keys\.rig\.glb: RIGWRIGHT_project\.scene\.clips\[0\]\.poses\.keys: frame 40, bone 6: 2 is not a key flag \(0 or 1\)$/,
  );
});

test('a key set into a pose file shown changes only its frame: the others stay as the file has them, and it becomes a clip', () => {
  const s = setup(handDocument());
  const file = s.store.doc.poses as Extract<PoseSequence, { kind: 'matrices' }>;
  const B = boneCountOf(s.store.doc);
  const L = file.frameCount;
  assert.ok(L > 2, 'the hand’s pose file has frames to keep');
  s.timeline.seek(1);
  s.boneSelection.select(2);
  poseByHand(s.store, 2, axisAngleMatrix(AXIS, A1));
  assert.equal(s.commands.execute('key.insert'), 1);
  const doc = s.store.doc;
  const keyed = doc.poses as Extract<PoseSequence, { kind: 'matrices' }>;
  assert.equal(doc.posesFile, 'hand-pose_matrot.dmat', 'the same sequence, keyed');
  assert.equal(s.timeline.time, 1, 'the time stays');
  assert.deepEqual(
    doc.clips?.map((c) => c.name),
    ['hand-pose_matrot.dmat'],
    'listed with the clips now',
  );
  for (let f = 0; f < L; f++)
    for (let b = 0; b < B; b++) {
      const at = 9 * (B * f + b);
      const expected = f === 1 && b === 2 ? axisAngleMatrix(AXIS, A1) : file.rotations.subarray(at, at + 9);
      assert.deepEqual(keyed.rotations.subarray(at, at + 9), Float64Array.from(expected), `frame ${f}, bone ${b}`);
    }
});
