/**
 * Undo groups: history.group(label, fn) makes every entry pushed while fn runs one step — undone newest first,
 * redone in order, holding their bytes; nested groups fold into the outer one; an empty group pushes nothing; a
 * throwing fn is rolled back; store edits never merge across a group's edge. On a real paint controller (the
 * headless tool harness), normalize + smooth + prune in a group is one step whose undo gives back the weights bit
 * for bit and whose redo gives the grouped result bit for bit (the same bits as running the three ungrouped).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UndoHistory, type HistoryEvent } from '../../workers/scene/undo-history.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { demoDocument } from '../../workers/scene/scene-document.ts';
import { ToolHarness } from './tool-harness.ts';
import { seededRandom } from './seeded-random.ts';

function entry(log: string[], name: string, bytes = 0) {
  log.push(`do ${name}`);
  return { label: name, bytes, undo: () => void log.push(`undo ${name}`), redo: () => void log.push(`redo ${name}`) };
}

test('a group is one step: undo runs its entries newest first, redo in order, and it holds their bytes', () => {
  const log: string[] = [];
  const history = new UndoHistory();
  const events: HistoryEvent['kind'][] = [];
  history.subscribe((event) => events.push(event.kind));
  history.push(entry(log, 'before', 5));
  const result = history.group('Clean up', () => {
    history.push(entry(log, 'a', 10));
    history.push(entry(log, 'b', 20));
    history.push(entry(log, 'c', 40));
    return 'done';
  });
  assert.equal(result, 'done', 'group gives back what fn returns');
  assert.deepEqual(history.undoLabels(), ['before', 'Clean up']);
  assert.equal(history.bytes, 75);
  assert.deepEqual(events, ['pushed', 'pushed'], 'listeners hear of the group once, not of each entry in it');
  log.length = 0;
  assert.equal(history.undo(), true);
  assert.deepEqual(log, ['undo c', 'undo b', 'undo a']);
  assert.equal(history.undoLabel, 'before');
  assert.equal(history.redoLabel, 'Clean up');
  log.length = 0;
  assert.equal(history.redo(), true);
  assert.deepEqual(log, ['redo a', 'redo b', 'redo c']);
});

test('nested groups fold into the outer one; an empty group pushes nothing', () => {
  const log: string[] = [];
  const history = new UndoHistory();
  history.group('Outer', () => {
    history.push(entry(log, 'a'));
    history.group('Inner', () => {
      history.push(entry(log, 'b'));
      history.group('Empty', () => undefined);
      history.push(entry(log, 'c'));
    });
    history.push(entry(log, 'd'));
  });
  assert.deepEqual(history.undoLabels(), ['Outer']);
  history.group('Nothing', () => undefined);
  assert.deepEqual(history.undoLabels(), ['Outer'], 'an empty group is no step');
  log.length = 0;
  history.undo();
  assert.deepEqual(log, ['undo d', 'undo c', 'undo b', 'undo a']);
});

test('a group whose function throws undoes what it pushed, newest first, and rethrows; the history is as before', () => {
  const log: string[] = [];
  const history = new UndoHistory();
  history.push(entry(log, 'kept'));
  history.undo();
  log.length = 0;
  assert.throws(
    () =>
      history.group('Failing', () => {
        history.push(entry(log, 'a'));
        history.push(entry(log, 'b'));
        throw new Error('no weights yet');
      }),
    { message: 'no weights yet' },
  );
  assert.deepEqual(log, ['do a', 'do b', 'undo b', 'undo a']);
  assert.deepEqual(history.undoLabels(), []);
  assert.equal(history.redoLabel, 'kept', 'a rolled-back group leaves the redo steps alone');
  assert.equal(history.grouping, false);
  // An inner group that throws, caught inside the outer one: only the inner group's entries go back.
  log.length = 0;
  history.group('Outer', () => {
    history.push(entry(log, 'x'));
    assert.throws(() =>
      history.group('Inner', () => {
        history.push(entry(log, 'y'));
        throw new Error('inner');
      }),
    );
  });
  assert.deepEqual(log, ['do x', 'do y', 'undo y']);
  assert.deepEqual(history.undoLabels(), ['Outer']);
  log.length = 0;
  history.undo();
  assert.deepEqual(log, ['undo x']);
  // A function that returns a promise is refused: what it pushed before returning goes back.
  log.length = 0;
  assert.throws(
    () =>
      history.group('Async', async () => {
        history.push(entry(log, 'p'));
        await Promise.resolve();
      }),
    /must be synchronous/,
  );
  assert.deepEqual(log, ['do p', 'undo p']);
  assert.throws(() => history.group('Undo inside', () => history.undo()), /cannot undo while a group/);
});

test('store edits inside a group never merge with a step outside it, and the group’s step takes no merges', () => {
  const history = new UndoHistory();
  const store = new SceneStore(demoDocument(), history);
  const bones = store.doc.skeleton.parents.length;
  const scale = (x: number) => new Float64Array(3 * bones).fill(1).fill(x, 0, 3);
  store.edit('Scale bone 0', { boneScales: scale(1.1) }, 'scale 0');
  history.group('Scale twice', () => {
    store.edit('Scale bone 0', { boneScales: scale(1.2) }, 'scale 0');
    store.edit('Scale bone 0', { boneScales: scale(1.3) }, 'scale 0');
  });
  store.edit('Scale bone 0', { boneScales: scale(1.4) }, 'scale 0');
  assert.deepEqual(history.undoLabels(), ['Scale bone 0', 'Scale twice', 'Scale bone 0']);
  history.undo();
  assert.equal(store.doc.boneScales![0], 1.3);
  history.undo();
  assert.equal(store.doc.boneScales![0], 1.1, 'undoing the group puts back the value before it');
  history.redo();
  assert.equal(store.doc.boneScales![0], 1.3);
  // A throwing group puts the document back.
  const before = store.doc;
  assert.throws(() =>
    history.group('Broken', () => {
      store.edit('Scale bone 0', { boneScales: scale(2) });
      throw new Error('stop');
    }),
  );
  assert.equal(store.doc.boneScales, before.boneScales);
});

/** The harness's grid with weights that need normalizing (rows summing from 0.7 to 1.3) and some below 0.01. */
function untidyHarness(): ToolHarness {
  const harness = new ToolHarness();
  const random = seededRandom(7);
  const { weights } = harness.store.doc;
  const data = weights.data.map((w, i) => (i % 9 === 0 ? 0.004 : w * (0.7 + 0.6 * random())));
  harness.store.edit('Untidy weights', { weights: { ...weights, data } });
  harness.selectedBone = 1;
  return harness;
}

/**
 * Normalize, smooth bone 1, prune below 0.1 (smoothing lifts the weights below 0.01; one stays below 0.1), through
 * the registry as a script runs them: each returns at once, having made its step.
 */
function cleanUp(harness: ToolHarness): void {
  void harness.commands.execute('paint.normalize');
  void harness.commands.execute('paint.smooth');
  void harness.commands.execute('paint.prune', 0.1);
}

test('normalize + smooth + prune on a real paint controller in one group: one step, undone and redone bit for bit', () => {
  const harness = untidyHarness();
  const { history, store } = harness;
  const before = Float64Array.from(store.doc.weights.data);
  const stepsBefore = history.undoLabels();
  history.group('Clean up weights', () => cleanUp(harness));
  const grouped = Float64Array.from(store.doc.weights.data);
  assert.deepEqual(history.undoLabels(), [...stepsBefore, 'Clean up weights'], 'the three commands are one step');
  assert.ok(
    grouped.some((w, i) => w !== before[i]),
    'the commands changed the weights',
  );
  // A second way: the same three commands, ungrouped, on a fresh harness give the same bits as three steps.
  const ungrouped = untidyHarness();
  cleanUp(ungrouped);
  assert.deepEqual(
    ungrouped.history.undoLabels(),
    [...stepsBefore, 'Normalize', 'Smooth bone 1', 'Prune weights < 0.1'],
    'each command made a step',
  );
  assert.deepEqual(Array.from(ungrouped.store.doc.weights.data), Array.from(grouped));
  history.undo();
  assert.deepEqual(Array.from(store.doc.weights.data), Array.from(before), 'undo gives back the weights bit for bit');
  history.redo();
  assert.deepEqual(Array.from(store.doc.weights.data), Array.from(grouped), 'redo gives the grouped result bit for bit');
  history.undo();
  assert.deepEqual(Array.from(store.doc.weights.data), Array.from(before));
  // The one-line form a script writes: the command's own outcome is what the group's function returns.
  void history.group('Normalize', () => harness.commands.execute('paint.normalize'));
  assert.equal(history.undoLabel, 'Normalize', 'a whole-mesh paint command returns at once, its step made');
});
