/**
 * The binding controller's part in max influences and automatic handles: Compute weights is limited to the scene's
 * max influences; automatic handles that replace drawn ones are named in a notice whose Undo takes the whole step
 * back (and replacing automatic handles with automatic ones says nothing); an edit of the handles makes the handles
 * above the source, so the next Compute uses them as edited.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { limitInfluences, verticesOverInfluences } from '../../workers/weights/limit-influences.ts';
import { MaxInfluences } from '../../renderer/bind/max-influences.ts';
import { replacedHandles } from '../../renderer/bind/handle-provenance.ts';
import { demoDocument } from '../../workers/scene/scene-document.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';
import type { DenseMatrix } from '../../workers/formats/types.ts';
import { bindInProcess, headlessBindingController } from './headless-hosts.ts';

function rowSum(weights: DenseMatrix, v: number): number {
  let sum = 0;
  for (let b = 0; b < weights.cols; b++) sum += weights.data[v * weights.cols + b];
  return sum;
}

function bindingSetup(limit?: MaxInfluences, store = new SceneStore(demoDocument(), new UndoHistory())) {
  const notices: { title: string; items: string[]; actions: { label: string; run: () => void }[] }[] = [];
  let running = false;
  const controller = headlessBindingController(
    store,
    {
      get running() {
        return running;
      },
      cancel: () => undefined,
      bindMesh: (...args) => {
        running = true;
        return bindInProcess(...args).finally(() => (running = false));
      },
    },
    {
      selectedBone: () => 1,
      ...(limit ? { limitWeights: (weights: DenseMatrix) => limit.limit(weights) } : {}),
      notify: (title, items, actions) => void notices.push({ title, items, actions }),
    },
  );
  return { store, controller, notices };
}

test('Compute weights is limited to the max influences, renormalised', async () => {
  const store = new SceneStore(demoDocument(), new UndoHistory());
  const settings = { locked: new Uint8Array(store.doc.skeleton.parents.length), maxInfluences: 4 };
  const limit = new MaxInfluences({ store, paintSettings: () => settings, changed: () => undefined });
  limit.set(1);
  const { controller } = bindingSetup(limit, store);
  const unlimited = bindingSetup();
  await controller.startBind({ source: 'distance' });
  await unlimited.controller.startBind({ source: 'distance' });
  const free = unlimited.store.doc.weights;
  assert.ok(verticesOverInfluences(free, 1) > 100, 'the solve alone gives the demo’s joints two bones per vertex');
  const weights = store.doc.weights;
  assert.equal(verticesOverInfluences(weights, 1), 0, 'the scene’s weights have one bone per vertex');
  for (let v = 0; v < weights.rows; v++) assert.ok(Math.abs(rowSum(weights, v) - 1) < 1e-12, `vertex ${v} sums to 1`);
  assert.deepEqual(Array.from(weights.data), Array.from(limitInfluences(free, 1, null).weights.data), 'the solve, then the limit');
});

test('automatic handles name the drawn handles they replace, with Undo; an edit of handles makes them the source', async () => {
  const { store, controller, notices } = bindingSetup();
  const n = store.doc.mesh.positions.length / 3;
  controller.selection = new Uint8Array(n);
  for (const v of [5, 6, 7]) controller.selection[v] = 1;
  controller.selectedCount = 3;
  controller.assignSelection();
  const drawn = store.doc.handles!;

  controller.options.source = 'distance';
  // The surface solve, which the drawn handles feed (on the demo the distance rule's handles take most of the
  // vertices, so auto would bind volumetrically and leave the handles as they are).
  controller.options.method = 'surface';
  await controller.startBind();
  const automatic = store.doc.handles!;
  const expected = replacedHandles(drawn, automatic, store.doc.skeleton.parents.length);
  assert.deepEqual(expected, { bones: 1, vertices: 3 }, 'bone 1 had three drawn handle vertices, which the rule does not give it');
  assert.equal(notices.length, 1);
  assert.equal(notices[0].title, 'Automatic handles replaced the handles of 1 bone');
  assert.match(notices[0].items[0], /^3 handle vertices \(drawn handles\) gave way to automatic, distance rule\./);
  assert.deepEqual(
    notices[0].actions.map((a) => a.label),
    ['Undo'],
  );
  notices[0].actions[0].run();
  assert.equal(store.doc.handles, drawn, 'Undo brings the drawn handles back');
  assert.deepEqual(store.history.undoLabels(), ['Assign 3 handles to bone 1'], 'with the weights: one step');
  notices[0].actions[0].run();
  assert.equal(store.doc.handles, drawn, 'a second Undo from the same notice does nothing');

  // Automatic handles replacing automatic ones lose nothing: no notice.
  await controller.startBind();
  await controller.startBind();
  assert.equal(notices.length, 2, 'only the first of the two replaced drawn handles');

  // An edit of the automatic handles (the lasso's assign) makes the handles above the source.
  assert.equal(controller.options.source, 'distance');
  controller.selection = new Uint8Array(n);
  controller.selection[9] = 1;
  controller.selectedCount = 1;
  controller.assignSelection();
  assert.equal(controller.options.source, 'current');
  assert.equal(store.doc.handlesFile, 'automatic, distance rule, edited');
  const edited = store.doc.handles;
  await controller.startBind();
  assert.equal(store.doc.handles, edited, 'the next Compute uses the edited handles');
  assert.equal(notices.length, 2);
});

test('replacedHandles counts the bones whose handles changed and the handle vertices they had', () => {
  const previous = Int32Array.from([0, 0, 1, 1, 1, -1, 2, -1]);
  const next = Int32Array.from([0, 0, 1, -1, 1, 1, -1, 2]);
  // Bone 0 unchanged; bone 1 loses vertex 3 and gains 5 (had 3); bone 2 moves from 6 to 7 (had 1).
  assert.deepEqual(replacedHandles(previous, next, 3), { bones: 2, vertices: 4 });
  assert.deepEqual(replacedHandles(previous, previous, 3), { bones: 0, vertices: 0 });
  // A bone that had no handles is nothing lost.
  assert.deepEqual(replacedHandles(Int32Array.from([-1, -1]), Int32Array.from([0, 1]), 2), { bones: 0, vertices: 0 });
});

test('undoing a handle load back to the handles the scene started with switches no source', () => {
  const { store } = bindingSetup();
  const n = store.doc.mesh.positions.length / 3;
  const first = new Int32Array(n).fill(-1);
  first[3] = 0;
  store.edit('Load handles', { handles: first, handlesFile: 'first.dmat' });
  const started = new SceneStore({ ...store.doc }, new UndoHistory());
  const { controller: fresh } = bindingSetup(undefined, started);
  fresh.options.source = 'distance';
  const second = first.slice();
  second[4] = 1;
  started.edit('Load handles', { handles: second, handlesFile: 'second.dmat' });
  assert.equal(fresh.options.source, 'current', 'a load makes the loaded handles the source');
  fresh.options.source = 'distance';
  started.history.undo();
  assert.equal(started.doc.handles, first, 'undo brings the handles the scene started with');
  assert.equal(fresh.options.source, 'distance', 'undo is no load: the rule stays the source');
});
