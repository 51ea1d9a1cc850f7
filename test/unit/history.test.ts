/**
 * The undo history and the scene store: entries undo and redo in order, a new edit drops the redo steps, the memory
 * bound drops the oldest (never the newest) and says how many, a new scene starts over; the store's edits put back
 * the very arrays they replaced, merge consecutive edits with one key, and stop merging at any other step.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UndoHistory, bytesOf, type HistoryEvent } from '../../workers/scene/undo-history.ts';
import { SceneStore, type SceneChange } from '../../workers/scene/scene-store.ts';
import { demoDocument, twistDemoDocument } from '../../workers/scene/scene-document.ts';

function counter(log: string[], name: string, bytes = 0) {
  let value = 0;
  return {
    get value() {
      return value;
    },
    entry: () => {
      value++;
      return { label: name, bytes, undo: () => void log.push(`undo ${name}`), redo: () => void log.push(`redo ${name}`) };
    },
  };
}

test('undo and redo run the entries in order; a new step drops the redo steps', () => {
  const log: string[] = [];
  const history = new UndoHistory();
  for (const name of ['a', 'b', 'c']) history.push(counter(log, name).entry());
  assert.deepEqual(history.undoLabels(), ['a', 'b', 'c']);
  assert.equal(history.undo(), true);
  assert.equal(history.undo(), true);
  assert.equal(history.undoLabel, 'a');
  assert.equal(history.redoLabel, 'b');
  assert.equal(history.redo(), true);
  assert.deepEqual(log, ['undo c', 'undo b', 'redo b']);
  history.push(counter(log, 'd').entry());
  assert.equal(history.canRedo, false);
  assert.deepEqual(history.undoLabels(), ['a', 'b', 'd']);
  while (history.undo());
  assert.equal(history.undo(), false);
  assert.deepEqual(log.slice(3), ['undo d', 'undo b', 'undo a']);
});

test('the memory bound drops the oldest steps with a notice and always keeps the newest', () => {
  const events: HistoryEvent[] = [];
  const history = new UndoHistory({ maxBytes: 1000 });
  history.subscribe((e) => events.push(e));
  const log: string[] = [];
  for (let i = 0; i < 4; i++) history.push(counter(log, `s${i}`, 300).entry());
  assert.deepEqual(history.undoLabels(), ['s1', 's2', 's3']);
  assert.equal(history.bytes, 900);
  assert.deepEqual(
    events.filter((e) => e.kind === 'dropped'),
    [{ kind: 'dropped', count: 1, bytes: 300 }],
  );
  history.push(counter(log, 'huge', 5000).entry());
  assert.deepEqual(history.undoLabels(), ['huge'], 'the newest stays, however large');
  assert.equal(history.bytes, 5000);
  history.clear('opened hand.off');
  assert.deepEqual(events.at(-1), { kind: 'cleared', reason: 'opened hand.off', count: 1 });
  assert.equal(history.bytes, 0);
  assert.equal(history.canUndo, false);
  assert.equal(bytesOf(new Float64Array(4), new Uint8Array(3), 'x', null), 35);
  const shared = new Float32Array(8);
  assert.equal(bytesOf(shared, shared.subarray(2)), 32, 'one buffer counts once');
});

test('store edits put back the very arrays they replaced; a key merges consecutive edits; a new scene starts over', () => {
  const history = new UndoHistory();
  const store = new SceneStore(demoDocument(), history);
  const changes: SceneChange[] = [];
  store.subscribe((c) => changes.push(c));
  const start = store.doc;
  const handles = new Int32Array(start.mesh.positions.length / 3).fill(-1);
  handles[0] = 2;
  store.edit('Assign handles', { handles, handlesFile: 'drawn handles' });
  assert.equal(store.doc.handles, handles);
  assert.equal(store.doc.mesh, start.mesh, 'the rest of the document is the same');
  const scale = (x: number) => {
    const s = new Float64Array(3 * start.skeleton.parents.length).fill(1);
    s[0] = x;
    return s;
  };
  store.edit('Scale bone 0', { boneScales: scale(1.1) }, 'scale bone 0');
  store.edit('Scale bone 0', { boneScales: scale(1.2) }, 'scale bone 0');
  store.edit('Scale bone 0', { boneScales: scale(1.5) }, 'scale bone 0');
  assert.deepEqual(history.undoLabels(), ['Assign handles', 'Scale bone 0'], 'typing 1.1, 1.2, 1.5 is one step');
  assert.equal(store.doc.boneScales![0], 1.5);
  history.undo();
  assert.equal(store.doc.boneScales, start.boneScales);
  assert.equal(store.doc.handles, handles);
  history.redo();
  assert.equal(store.doc.boneScales![0], 1.5);
  // Another step in between: the next edit of the bone is a step of its own.
  history.push({ label: 'Paint stroke', bytes: 0, undo: () => undefined, redo: () => undefined });
  store.edit('Scale bone 0', { boneScales: scale(2) }, 'scale bone 0');
  assert.deepEqual(history.undoLabels(), ['Assign handles', 'Scale bone 0', 'Paint stroke', 'Scale bone 0']);
  while (history.undo());
  assert.equal(store.doc.handles, start.handles);
  assert.equal(store.doc.handlesFile, start.handlesFile);
  assert.equal(store.doc.boneScales, start.boneScales);
  assert.ok(
    changes.every((c) => c.kind === 'document' && !c.newScene),
    'the edits and their undos change the document, never the scene',
  );
  // Each change names the fields it replaced: the handles edit two, each bone-scale edit (merged or not) and every
  // undo and redo of one the bone scales alone.
  const fieldsOf = (c: SceneChange): string[] => (c.kind === 'document' ? [...c.fields].sort() : []);
  assert.deepEqual(fieldsOf(changes[0]), ['handles', 'handlesFile'], 'assigning handles changes the handles and their source');
  assert.deepEqual(fieldsOf(changes[1]), ['boneScales'], 'a bone scale changes the bone scales only');
  assert.deepEqual(
    changes.slice(1).map(fieldsOf),
    [
      ...Array.from({ length: 3 }, () => ['boneScales']), // 1.1, 1.2, 1.5 (two merged)
      ['boneScales'], // undo
      ['boneScales'], // redo
      ['boneScales'], // 2
      ['boneScales'], // undo 2 (the pushed paint step changes no field)
      ['boneScales'], // undo the merged step
      ['handles', 'handlesFile'], // undo the handles
    ],
    'every change says exactly the fields it replaced',
  );
  const other = demoDocument();
  store.open(other, 'opened the demo');
  assert.equal(store.doc, other);
  assert.equal(history.canUndo || history.canRedo, false);
  const last = changes.at(-1)!;
  assert.ok(
    last.kind === 'document' && last.newScene && last.previous.mesh === start.mesh,
    'opening a document starts a new scene whose previous mesh is the one before',
  );
  assert.ok(
    last.kind === 'document' && (['mesh', 'skeleton', 'weights', 'name'] as const).every((field) => last.fields.has(field)),
    'a new scene changes every field',
  );
});

test('a store edit of the skeleton is an undo step, not a new scene; an edit that breaks an invariant changes nothing', () => {
  const history = new UndoHistory();
  const start = demoDocument();
  const store = new SceneStore(start, history);
  const changes: SceneChange[] = [];
  store.subscribe((change) => changes.push(change));
  const joints = start.skeleton.joints.slice();
  joints[0] += 0.25;
  const skeleton = { ...start.skeleton, joints };
  store.edit('Move joint 0', { skeleton });
  const change = changes.at(-1)!;
  assert.ok(change.kind === 'document' && !change.newScene, 'a skeleton edit is not a new scene');
  assert.deepEqual(change.kind === 'document' ? [...change.fields] : [], ['skeleton']);
  assert.deepEqual(history.undoLabels(), ['Move joint 0']);
  history.undo();
  assert.equal(store.doc.skeleton, start.skeleton, 'undo puts the very skeleton back');
  const B = start.skeleton.parents.length;
  assert.throws(
    () => store.edit('Bad scales', { boneScales: new Float64Array(3 * (B + 1)) }),
    new RegExp(`boneScales holds ${B + 1} bones, the skeleton has ${B}`),
  );
  assert.equal(store.doc.skeleton, start.skeleton, 'a refused edit leaves the document');
  assert.deepEqual(history.undoLabels(), [], 'and the history');
});

test('an edit may carry the whole document (files loaded into the scene) while its mesh is the scene’s; another mesh is refused', () => {
  const store = new SceneStore(demoDocument(), new UndoHistory());
  const start = store.doc;
  store.edit('Load weights', { ...start, weightsSource: 'w.dmat' });
  assert.equal(store.doc.weightsSource, 'w.dmat');
  assert.equal(store.doc.mesh, start.mesh);
  const other = twistDemoDocument();
  assert.throws(() => store.edit('Load a mesh', { ...start, mesh: other.mesh } as never), /a new mesh is a new scene \(open it\)/);
  assert.equal(store.doc.weightsSource, 'w.dmat', 'the refused edit changed nothing');
});
