/**
 * How the controllers react to a change of the scene, per field: an edit of the skeleton is not a new scene, so the
 * selected bone, the binding's lasso selection, the paint locks and the playback time are kept; a new scene resets
 * them. The controllers run in Node against the real store and history.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BoneSelection } from '../../renderer/skeleton/bone-selection.ts';
import { PosePlayback, type SequenceTimeline } from '../../renderer/skeleton/pose-playback.ts';
import { demoDocument, twistDemoDocument, type SceneDocument } from '../../workers/scene/scene-document.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { headlessBindingController, headlessPaintController } from './headless-hosts.ts';
import { loadIntoDocument } from '../../renderer/document/load-files.ts';
import { inProcessIo, textFile } from './in-process-io.ts';

/** A timeline that keeps time as the app's does: a new sequence starts at 0; otherwise time is what it was set to. */
class RecordingTimeline implements SequenceTimeline {
  time = 0;
  sequences = 0;
  setSequence(): void {
    this.time = 0;
    this.sequences++;
  }
}

/** The document with its rest joints moved (every bone-indexed field unchanged: the same bones). */
function withJointMoved(doc: SceneDocument, joint: number, dx: number): SceneDocument['skeleton'] {
  const joints = doc.skeleton.joints.slice();
  joints[3 * joint] += dx;
  return buildSkeleton({ joints, bones: doc.skeleton.bones }, doc.name);
}

function bindingController(store: SceneStore, hang: { cancelled: number }) {
  let running = false;
  let reject: ((error: unknown) => void) | null = null;
  // A solve that runs until it is cancelled.
  return headlessBindingController(store, {
    get running() {
      return running;
    },
    cancel: () => {
      hang.cancelled++;
      running = false;
      reject?.(new DOMException('cancelled', 'AbortError'));
    },
    bindMesh: () => {
      running = true;
      return new Promise((_, r) => (reject = r));
    },
  });
}

test('an edit of the skeleton keeps the selected bone, the lasso selection and the playback time; a new scene resets them', async () => {
  const store = new SceneStore(demoDocument(), new UndoHistory());
  const timeline = new RecordingTimeline();
  let posed = 0;
  const playback = new PosePlayback(store, timeline, () => posed++);
  const selection = new BoneSelection(store);
  const hang = { cancelled: 0 };
  const binding = bindingController(store, hang);
  assert.equal(timeline.sequences, 1, 'the first scene is shown on the timeline');

  selection.select(2);
  const lasso = binding.selection;
  lasso[4] = lasso[9] = 1;
  binding.selectedCount = 2;
  timeline.time = 7.5;
  const evaluatorBefore = playback.evaluator;

  // A solve running while the skeleton changes belongs to the skeleton before: it is cancelled.
  store.edit('Assign handles', { handles: new Int32Array(store.doc.mesh.positions.length / 3).fill(0) });
  const solving = binding.startBind();
  assert.equal(binding.progress.running, true, 'the solve runs');
  store.edit('Move joint 1', { skeleton: withJointMoved(store.doc, 1, 0.1) });
  await solving;

  assert.equal(selection.bone, 2, 'the selected bone is kept');
  assert.equal(binding.selection, lasso, 'the lasso selection is the same array');
  assert.equal(binding.selectedCount, 2);
  assert.deepEqual([lasso[4], lasso[9]], [1, 1]);
  assert.equal(timeline.time, 7.5, 'the playback time is kept');
  assert.equal(timeline.sequences, 1, 'the sequence did not start over');
  assert.notEqual(playback.evaluator, evaluatorBefore, 'the pose is evaluated on the new skeleton');
  assert.ok(posed > 0, 'the pose was marked to be shown again');
  assert.equal(hang.cancelled, 1, 'the solve for the skeleton before was cancelled');
  assert.equal(binding.progress.running, false);

  store.history.undo();
  assert.equal(selection.bone, 2, 'undo keeps the selection too');
  assert.equal(timeline.time, 7.5);

  store.open(twistDemoDocument(), 'opened the twist test');
  assert.equal(selection.bone, -1, 'a new scene selects no bone');
  assert.equal(binding.selectedCount, 0, 'a new scene clears the lasso selection');
  assert.equal(timeline.time, 0, 'a new scene plays from the start');
  assert.equal(timeline.sequences, 2);
});

test('the bone selection never names a bone the skeleton lacks; a selection put back waits for its skeleton', () => {
  const store = new SceneStore(demoDocument(), new UndoHistory());
  const selection = new BoneSelection(store);
  const B = store.doc.skeleton.parents.length;
  assert.throws(() => selection.select(B), new RegExp(`bone ${B} is not a bone of the skeleton \\(0 to ${B - 1}`));
  selection.select(B - 1);
  assert.equal(selection.bone, B - 1);
  // An undo step puts back a bone of the skeleton it restores: until then it reads as none.
  selection.restore(B + 2);
  assert.equal(selection.bone, -1, 'a bone the skeleton lacks reads as none');
  selection.restore(3);
  assert.equal(selection.bone, 3);
});

test('another sequence starts the timeline over; the same sequence rewritten by a bone edit does not', () => {
  const store = new SceneStore(demoDocument(), new UndoHistory());
  const timeline = new RecordingTimeline();
  new PosePlayback(store, timeline, () => undefined);
  const poses = store.doc.poses!;
  assert.equal(poses.kind, 'matrices');
  timeline.time = 3;
  // The same frames, arrays rewritten (what deleting or inserting a bone does to every pose).
  store.edit('Rewrite', { poses: { ...poses, rotations: poses.kind === 'matrices' ? poses.rotations.slice() : new Float64Array() } });
  assert.equal(timeline.time, 3, 'the same sequence keeps its time');
  store.edit('Another file', { poses: { ...poses }, posesFile: 'walk.dmat' });
  assert.equal(timeline.time, 0, 'poses from another file start over');
  timeline.time = 2;
  const shorter =
    poses.kind === 'matrices' ? { ...poses, frameCount: 2, rotations: poses.rotations.slice(0, 2 * 9 * poses.boneCount) } : poses;
  store.edit('Bake', { poses: shorter });
  assert.equal(timeline.time, 0, 'other frames start over');
});

test('paint locks are the document’s: a toggle is an edit, a skeleton edit keeps them, undo after it still works', () => {
  const store = new SceneStore(demoDocument(), new UndoHistory());
  const paint = headlessPaintController(store);
  const B = store.doc.skeleton.parents.length;
  paint.setLocked(3, true);
  assert.deepEqual(store.history.undoLabels(), ['Lock bone 3']);
  assert.deepEqual(
    [...store.doc.paintLocks!].map((x, b) => (x ? b : -1)).filter((b) => b >= 0),
    [3],
  );
  assert.equal(paint.isLocked(3), true);
  assert.equal(paint.settings.locked, store.doc.paintLocks, 'the paint functions read the document’s locks');

  store.edit('Move joint 1', { skeleton: withJointMoved(store.doc, 1, 0.1) });
  assert.equal(paint.isLocked(3), true, 'a skeleton edit keeps the lock');
  paint.setLocked(5, true);
  store.history.undo(); // the lock of bone 5
  store.history.undo(); // the joint move
  assert.equal(paint.isLocked(5), false);
  assert.equal(paint.isLocked(3), true, 'undoing the skeleton edit keeps the earlier lock');
  store.history.undo(); // the lock of bone 3
  assert.equal(store.doc.paintLocks, undefined, 'no lock left: the document has none');
  assert.equal(paint.isLocked(3), false);
  store.history.redo();
  assert.equal(paint.isLocked(3), true, 'redo locks it again');
  assert.throws(() => paint.setLocked(B, true), new RegExp(`bone ${B} is not one of the skeleton's ${B}`));

  store.open(twistDemoDocument(), 'opened the twist test');
  assert.equal(paint.isLocked(0), false, 'a new scene has its own locks (none)');
});

test('a paint session follows the bones: a rename or a skeleton edit makes a new one (symmetry pairs bones by them)', () => {
  const store = new SceneStore(demoDocument(), new UndoHistory());
  const paint = headlessPaintController(store);
  const first = paint.ensureSession();
  store.edit('Rename', {
    boneNames: store.doc.skeleton.parents.length > 0 ? Array.from(store.doc.skeleton.parents, (_, b) => `b${b}`) : [],
  });
  assert.equal(paint.session, null, 'the session of the old names is dropped');
  assert.notEqual(paint.ensureSession(), first);
  const second = paint.session;
  store.edit('Move joint 1', { skeleton: withJointMoved(store.doc, 1, 0.1) });
  assert.equal(paint.session, null, 'and that of the old skeleton');
  assert.notEqual(paint.ensureSession(), second);
});

test('the locks stay when only the mesh is replaced, the influence limit starts from the default; another skeleton starts over', async () => {
  const store = new SceneStore(demoDocument(), new UndoHistory());
  const paint = headlessPaintController(store);
  paint.settings.maxInfluences = 2;
  paint.setLocked(1, true);
  // Only a mesh file opened: the scene is new, its skeleton the same object (load-files.ts keeps it and its locks).
  const current = store.doc;
  const meshOnly = await loadIntoDocument(current, [textFile('demo.off', offText(current))], inProcessIo);
  assert.equal(meshOnly.skeleton, current.skeleton, 'the skeleton is kept');
  assert.equal(meshOnly.paintLocks, current.paintLocks, 'and its locks');
  store.open(meshOnly, 'opened demo.off');
  // Every new scene starts from the default limit (the shell then applies the user's default: MaxInfluences.startWith).
  assert.equal(paint.settings.maxInfluences, 4, 'the default influence limit');
  assert.equal(paint.isLocked(1), true, 'the lock stays');
  store.open(twistDemoDocument(), 'opened the twist test');
  assert.equal(paint.settings.maxInfluences, 4, 'another skeleton: the default limit');
  assert.equal(paint.isLocked(1), false, 'and no lock');
});

/** The document's mesh as an OFF file. */
function offText(doc: SceneDocument): string {
  const { positions, triangles } = doc.mesh;
  const lines = ['OFF', `${positions.length / 3} ${triangles.length / 3} 0`];
  for (let v = 0; v < positions.length; v += 3) lines.push(`${positions[v]} ${positions[v + 1]} ${positions[v + 2]}`);
  for (let t = 0; t < triangles.length; t += 3) lines.push(`3 ${triangles[t]} ${triangles[t + 1]} ${triangles[t + 2]}`);
  return `${lines.join('\n')}\n`;
}
