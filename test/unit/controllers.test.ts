/**
 * The controllers run without a DOM, here in Node, on the built-in demo scene: painting and binding record every
 * edit in the one undo history. A stroke, a weight computation that replaces the weights, and their undo put the
 * document's own values back bit for bit (a stroke made before new weights is still undoable after them); Escape
 * adds no step; handle edits and automatic handles undo with the weights they
 * came with; a failed computation changes nothing and says why.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { demoDocument, type SceneDocument } from '../../workers/scene/scene-document.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import type { PaintController, MirrorMatcher } from '../../renderer/paint/paint-controller.ts';
import { mirrorVertexMap } from '../../workers/paint/mirror-vertex-map.ts';
import { bindInProcess, headlessBindingController, headlessPaintController } from './headless-hosts.ts';
import { gatherDab } from '../../workers/paint/paint-dab.ts';
import { createVertexGrid } from '../../workers/paint/vertex-grid.ts';

function paintSetup(
  matcher: MirrorMatcher = { mirrorVertexMap: () => Promise.reject(new Error('no matching here')), cancel: () => undefined },
) {
  const history = new UndoHistory();
  const store = new SceneStore(demoDocument(), history);
  const packed = new Set<number>();
  const controller = headlessPaintController(store, { matcher, packed, schedule: (callback) => queueMicrotask(callback) });
  return { history, store, controller, packed };
}

/** One stroke of three dabs on bone 1 around vertex `v`. */
function stroke(controller: PaintController, doc: SceneDocument, v: number): void {
  const session = controller.ensureSession();
  session.context.grid = createVertexGrid(doc.mesh.positions);
  controller.beginStroke();
  for (let d = 0; d < 3; d++) {
    const centre = [doc.mesh.positions[3 * v] + 0.02 * d, doc.mesh.positions[3 * v + 1], doc.mesh.positions[3 * v + 2]];
    const dab = { centre, radius: 0.1 * doc.diagonal, strength: 0.4, falloff: 'smooth' as const, mode: 'add' as const, value: 0 };
    gatherDab(session.context, dab);
    controller.dab(1, dab);
  }
  controller.endStroke();
}

test('paint strokes and new weights share one history; undo puts the document back bit for bit', () => {
  const { history, store, controller, packed } = paintSetup();
  const start = store.doc.weights;
  const startData = start.data.slice();
  stroke(controller, store.doc, 100);
  assert.deepEqual(history.undoLabels(), ['Paint stroke']);
  assert.ok(packed.size > 0, 'the views were handed the stroke');
  assert.notDeepEqual(start.data, startData, 'the stroke reached the document');
  const afterStroke = start.data.slice();

  // New weights replace the document's; the stroke before them stays undoable.
  const replaced = { rows: start.rows, cols: start.cols, data: new Float64Array(start.data.length).fill(1 / start.cols) };
  store.edit('Compute weights', { weights: replaced, weightsSource: 'uniform' });
  stroke(controller, store.doc, 300);
  assert.deepEqual(history.undoLabels(), ['Paint stroke', 'Compute weights', 'Paint stroke']);
  const afterSecond = replaced.data.slice();

  history.undo();
  assert.deepEqual(
    replaced.data,
    Float64Array.from({ length: start.data.length }, () => 1 / start.cols),
  );
  history.undo();
  assert.equal(store.doc.weights, start);
  assert.deepEqual(start.data, afterStroke);
  history.undo();
  assert.deepEqual(start.data, startData, 'bit for bit: the document’s own float64 values, not float32 copies');
  for (let i = 0; i < 3; i++) history.redo();
  assert.equal(store.doc.weights, replaced);
  assert.deepEqual(replaced.data, afterSecond);
  assert.deepEqual(start.data, afterStroke);
});

test('new weights keep the symmetry in use', async () => {
  let matched = 0;
  const { store, controller } = paintSetup({
    mirrorVertexMap: (positions, triangles, axis, tolerance) => {
      matched++;
      return Promise.resolve(mirrorVertexMap(positions, triangles, axis, tolerance));
    },
    cancel: () => undefined,
  });
  await controller.setSymmetry(0);
  assert.equal(controller.session?.symmetry?.axis, 0);
  const weights = store.doc.weights;
  store.edit('Compute weights', { weights: { ...weights, data: weights.data.slice() } });
  assert.equal(controller.ensureSession().symmetry?.axis, 0, 'the new session paints with the same symmetry');
  assert.equal(matched, 1, 'from the cached match');
});

test('the locks and influence limit are read without making a paint session; the session made later paints with them', () => {
  const { store, controller } = paintSetup();
  const settings = controller.settings;
  assert.equal(controller.session, null, 'reading the settings (as a project’s contents do) made no session');
  controller.setLocked(2, true);
  settings.maxInfluences = 3;
  assert.equal(controller.session, null, 'locking a bone made no session either');
  const session = controller.ensureSession();
  assert.equal(session.settings, settings, 'the session takes the settings read before it');
  assert.equal(controller.settings, settings, 'and they are the session’s');
  const weights = store.doc.weights;
  store.edit('Compute weights', { weights: { ...weights, data: weights.data.slice() } });
  assert.equal(controller.session, null, 'new weights: no session until one is needed');
  assert.equal(controller.settings, settings, 'the same skeleton keeps its settings');
  assert.equal(controller.ensureSession().settings.locked[2], 1, 'the lock holds in the new session');
});

test('Escape adds no step; a whole-mesh command and a lock toggle are one each, undone exactly', async () => {
  const { history, store, controller } = paintSetup();
  const data = store.doc.weights.data.slice();
  const session = controller.ensureSession();
  session.context.grid = createVertexGrid(store.doc.mesh.positions);
  controller.beginStroke();
  const dab = {
    centre: Array.from(store.doc.mesh.positions.subarray(300, 303)),
    radius: 0.2 * store.doc.diagonal,
    strength: 1,
    falloff: 'smooth' as const,
    mode: 'add' as const,
    value: 0,
  };
  gatherDab(session.context, dab);
  controller.dab(1, dab);
  controller.cancelStroke();
  assert.deepEqual(store.doc.weights.data, data);
  assert.equal(history.canUndo, false, 'Escape adds no step');
  // A whole-mesh command is one step, and its undo is exact.
  await controller.run('normalize');
  assert.deepEqual(history.undoLabels(), ['Normalize']);
  history.undo();
  assert.deepEqual(store.doc.weights.data, data);
  controller.setLocked(2, true);
  assert.deepEqual(history.undoLabels(), ['Lock bone 2']);
  assert.equal(controller.settings.locked[2], 1);
  history.undo();
  assert.equal(controller.settings.locked[2], 0);
  await controller.run('prune', 0.3);
  assert.deepEqual(history.undoLabels(), ['Prune weights < 0.3']);
  history.undo();
  assert.deepEqual(store.doc.weights.data, data);
});

function bindingSetup(fail = false) {
  const history = new UndoHistory();
  const store = new SceneStore(demoDocument(), history);
  const errors: string[] = [];
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
        const result = fail ? Promise.reject(new Error('the factor is not positive definite')) : bindInProcess(...args);
        return result.finally(() => (running = false));
      },
    },
    { selectedBone: () => 3, showError: (message) => void errors.push(message) },
  );
  return { history, store, controller, errors };
}

test('handle edits, automatic handles and computed weights are steps; undo restores handles and weights together', async () => {
  const { history, store, controller } = bindingSetup();
  const start = store.doc;
  const n = start.mesh.positions.length / 3;
  controller.selection = new Uint8Array(n);
  for (const v of [5, 6, 7]) controller.selection[v] = 1;
  controller.selectedCount = 3;
  controller.assignSelection();
  assert.deepEqual(history.undoLabels(), ['Assign 3 handles to bone 3']);
  assert.deepEqual([...store.doc.handles!.subarray(5, 8)], [3, 3, 3]);
  assert.equal(controller.selectedCount, 0, 'assigning consumes the selection');
  const drawn = store.doc.handles;

  await controller.startBind({ source: 'distance', method: 'surface' });
  assert.deepEqual(history.undoLabels(), ['Assign 3 handles to bone 3', 'Compute weights']);
  assert.notEqual(store.doc.weights, start.weights);
  assert.match(store.doc.weightsSource, /^harmonic \(cotan, automatic, distance rule/);
  assert.equal(store.doc.handlesFile, 'automatic, distance rule');
  assert.ok(controller.lastResult, 'the report shows while these weights are the scene’s');
  for (let v = 0; v < n; v++) {
    let sum = 0;
    for (let b = 0; b < start.weights.cols; b++) sum += store.doc.weights.data[v * start.weights.cols + b];
    assert.ok(Math.abs(sum - 1) < 1e-9, `row ${v} sums to 1`);
  }
  history.undo();
  assert.equal(store.doc.weights, start.weights);
  assert.equal(store.doc.handles, drawn, 'the automatic handles go with the weights they made');
  assert.equal(controller.lastResult, null);
  history.undo();
  assert.equal(store.doc.handles, start.handles);
  assert.equal(store.doc.handlesFile, start.handlesFile);
});

test('a failed computation changes nothing, adds no step and says why', async () => {
  const { history, store, controller, errors } = bindingSetup(true);
  const before = store.doc;
  await controller.startBind({ source: 'distance', method: 'surface' });
  assert.equal(store.doc, before);
  assert.equal(history.canUndo, false);
  assert.deepEqual(errors, ['Binding failed: the factor is not positive definite']);
  assert.equal(controller.progress.running, false);
});
