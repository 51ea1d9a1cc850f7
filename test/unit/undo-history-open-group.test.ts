/**
 * Groups that stay open across awaits (history.openGroup, a script run): what is pushed until close() is one step,
 * labelled as opened, undone newest first and redone in order; close() with nothing pushed pushes nothing; abort()
 * undoes everything pushed meanwhile newest first — store edits and in-place row edits alike — so the document is
 * bit for bit as before; undo and redo are refused while it is open; `group` inside it folds into it; ends are used
 * once and in order.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UndoHistory, bytesOf, type HistoryEntry } from '../../workers/scene/undo-history.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { demoDocument } from '../../workers/scene/scene-document.ts';

/** A paint-stroke-like entry: scales row `vertex` of the weights in place and keeps the row it replaced. */
function paintRow(store: SceneStore, vertex: number, factor: number): HistoryEntry {
  const { data, cols } = store.doc.weights;
  const before = data.slice(vertex * cols, (vertex + 1) * cols);
  for (let b = 0; b < cols; b++) data[vertex * cols + b] *= factor;
  const after = data.slice(vertex * cols, (vertex + 1) * cols);
  return {
    label: 'Paint stroke',
    bytes: bytesOf(before, after),
    undo: () => store.doc.weights.data.set(before, vertex * cols),
    redo: () => store.doc.weights.data.set(after, vertex * cols),
  };
}

/** Asserts two arrays hold the same values element by element (Object.is: -0 and NaN count). */
function assertSameBits(actual: ArrayLike<number>, expected: ArrayLike<number>, what: string): void {
  assert.equal(actual.length, expected.length, `${what}: length`);
  for (let i = 0; i < expected.length; i++)
    if (!Object.is(actual[i], expected[i])) assert.fail(`${what}[${i}]: ${actual[i]} is not ${expected[i]}`);
}

function handlesWith(store: SceneStore, vertex: number, bone: number): Int32Array {
  const handles = new Int32Array(store.doc.mesh.positions.length / 3).fill(-1);
  handles[vertex] = bone;
  return handles;
}

test('an open group is one step across awaits: labelled as opened, undone newest first, redone in order', async () => {
  const history = new UndoHistory();
  const store = new SceneStore(demoDocument(), history);
  store.edit('Before', { handles: handlesWith(store, 0, 0), handlesFile: 'drawn' });
  const start = store.doc;
  const weightsBefore = start.weights.data.slice();
  const group = history.openGroup('Script: mirror.ts');
  store.edit('Assign handles', { handles: handlesWith(store, 3, 1), handlesFile: 'script' });
  await new Promise((resolve) => setTimeout(resolve, 5));
  history.push(paintRow(store, 2, 0.5));
  await Promise.resolve();
  history.group('Clean up', () => {
    history.push(paintRow(store, 4, 0.25));
    store.edit('Assign handles', { handles: handlesWith(store, 5, 2), handlesFile: 'script 2' });
  });
  assert.equal(history.grouping, true, 'the group is open until closed');
  assert.deepEqual(history.undoLabels(), ['Before'], 'nothing reaches the stack while the group is open');
  const afterHandles = store.doc.handles;
  const afterWeights = store.doc.weights.data.slice();
  assert.equal(group.close(), true, 'close says a step was made');
  assert.equal(history.grouping, false);
  assert.deepEqual(history.undoLabels(), ['Before', 'Script: mirror.ts'], 'one step, labelled as opened');
  assert.equal(history.undo(), true);
  assert.equal(store.doc.handles, start.handles, 'undo puts the very handles array back');
  assert.equal(store.doc.handlesFile, 'drawn');
  assertSameBits(store.doc.weights.data, weightsBefore, 'weights after undo');
  assert.equal(history.redo(), true);
  assert.equal(store.doc.handles, afterHandles, 'redo puts the run’s last handles back');
  assertSameBits(store.doc.weights.data, afterWeights, 'weights after redo');
  assert.equal(history.undoLabel, 'Script: mirror.ts');
});

test('abort rolls back store edits and in-place row edits newest first: the document as before, bit for bit', async () => {
  const history = new UndoHistory();
  const store = new SceneStore(demoDocument(), history);
  const start = store.doc;
  const weightsBefore = start.weights.data.slice();
  const order: string[] = [];
  const group = history.openGroup('Script: failing.ts');
  // The same row painted twice: only newest-first undo gives the first "before" back.
  history.push(paintRow(store, 1, 0.5));
  await Promise.resolve();
  history.push(paintRow(store, 1, 3));
  store.edit('Assign handles', { handles: handlesWith(store, 7, 1), handlesFile: 'script' });
  history.push({ label: 'marker', bytes: 0, undo: () => void order.push('marker'), redo: () => undefined });
  assert.notEqual(store.doc.weights.data[1 * start.weights.cols], weightsBefore[1 * start.weights.cols], 'the row changed');
  group.abort();
  assert.deepEqual(order, ['marker'], 'the newest entry is undone');
  assert.equal(history.grouping, false);
  assert.equal(history.canUndo, false, 'nothing is left on the stack');
  assert.equal(history.canRedo, false, 'an aborted run leaves nothing to redo');
  assert.equal(store.doc.handles, start.handles, 'the handles field is the one before the run');
  assert.equal(store.doc.handlesFile, start.handlesFile);
  assert.equal(store.doc.weights, start.weights, 'the weights matrix is the same object');
  assertSameBits(store.doc.weights.data, weightsBefore, 'weights after abort');
});

test('close with nothing pushed pushes nothing; undo and redo are refused while open; ends are used once', () => {
  const history = new UndoHistory();
  history.push({ label: 'a', bytes: 1, undo: () => undefined, redo: () => undefined });
  const empty = history.openGroup('Script: empty.ts');
  assert.throws(() => history.undo(), /cannot undo while a group of edits is open/);
  assert.throws(() => history.redo(), /cannot redo while a group of edits is open/);
  assert.equal(empty.close(), false, 'nothing pushed: no step');
  assert.deepEqual(history.undoLabels(), ['a']);
  assert.throws(() => empty.close(), /close after the group ended/);
  assert.throws(() => empty.abort(), /abort after the group ended/);
  assert.equal(history.undo(), true, 'undo works again once the group has ended');
});

test('groups close in the order they opened; an open group inside another folds into it', () => {
  const log: string[] = [];
  const history = new UndoHistory();
  const push = (name: string) =>
    history.push({ label: name, bytes: 2, undo: () => void log.push(`undo ${name}`), redo: () => void log.push(`redo ${name}`) });
  const outer = history.openGroup('Outer');
  push('a');
  const inner = history.openGroup('Inner');
  push('b');
  assert.throws(() => outer.close(), /"Outer" was closed while a group opened after it was still open/);
  assert.equal(inner.close(), true);
  push('c');
  assert.equal(outer.close(), true);
  assert.deepEqual(history.undoLabels(), ['Outer']);
  assert.equal(history.bytes, 6, 'the step holds the bytes of all three');
  history.undo();
  assert.deepEqual(log, ['undo c', 'undo b', 'undo a']);
});

test('a new scene opened inside an open group drops what the group held: abort then undoes nothing of the new scene', () => {
  const history = new UndoHistory();
  const store = new SceneStore(demoDocument(), history);
  const group = history.openGroup('Script: open.ts');
  let undone = 0;
  history.push({ label: 'old scene edit', bytes: 0, undo: () => void undone++, redo: () => undefined });
  const fresh = demoDocument();
  store.open(fresh, 'opened demo');
  group.abort();
  assert.equal(undone, 0, 'the old scene’s entry is not run on the new scene');
  assert.equal(store.doc, fresh);
});
