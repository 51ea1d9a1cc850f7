/**
 * Per-vertex weight editing: the Vertex weights panel's table (renderer/paint/vertex-weights.ts), its commands
 * weights.copyRow and weights.pasteRow (workers/scene/scene-edits.ts pasteWeightRowEdit), a value typed in a row
 * (weights.set on the selection, as the panel runs it), selecting by a bone's weight range, and a click of the lasso
 * tool. Every expected row is derived by hand from the row rule of the brushes (enforce-weight-invariants.ts): locked
 * weights never change, the unlocked ones fill 1 − Σ locked in their proportions, the influence limit drops the
 * smallest unlocked ones first. Each edit is one undo step whose undo gives back the very floats before it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandRegistry } from '../../renderer/commands/command-registry.ts';
import {
  activeVertexOf,
  CopiedWeights,
  selectedVertices,
  vertexWeightsCommands,
  vertexWeightTable,
} from '../../renderer/paint/vertex-weights.ts';
import { weightCommands } from '../../renderer/scripting/weight-commands.ts';
import { contextCommands, type ContextCommandsHost } from '../../renderer/shell/context-commands.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { boneCountOf, vertexCountOf, withDerived, type SceneDocument } from '../../workers/scene/scene-document.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';
import { ToolHarness, CANVAS_RECT } from './tool-harness.ts';
import { headlessBindingController } from './headless-hosts.ts';

/** Rows of the scene's weights (bones root, arm, hand, finger); every value is exact in float32, every row sums to 1. */
const ROWS = [
  [0.5, 0.25, 0.25, 0],
  [1, 0, 0, 0],
  [0.25, 0.75, 0, 0],
  [0.5, 0, 0, 0.5],
  [0.125, 0.125, 0.5, 0.25],
];
const NAMES = ['root', 'arm', 'hand', 'finger'];

/** Five vertices (a triangle and a loose pair) along a four-bone chain on x. */
function scene(locked: readonly number[] = []): SceneDocument {
  const positions = Float64Array.from([0, 0, 0, 1, 0, 0, 0, 1, 0, 2, 0, 0, 3, 0, 0]);
  const triangles = Uint32Array.from([0, 1, 2, 2, 3, 4]);
  const skeleton = buildSkeleton(
    { joints: Float64Array.from([0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 4, 0, 0]), bones: Uint32Array.from([0, 1, 1, 2, 2, 3, 3, 4]) },
    'chain.tgf',
  );
  const paintLocks = new Uint8Array(4);
  for (const bone of locked) paintLocks[bone] = 1;
  return withDerived({
    name: 'five.obj',
    meshFiles: ['five.obj'],
    mesh: { positions, triangles },
    skeletonFile: 'chain.tgf',
    skeleton,
    boneNames: NAMES,
    weights: { rows: 5, cols: 4, data: Float64Array.from(ROWS.flat()) },
    weightsSource: 'by hand',
    poses: null,
    posesFile: null,
    handles: null,
    handlesFile: null,
    warnings: [],
    ...(locked.length > 0 ? { paintLocks } : {}),
  });
}

/** A selection of these vertices of the five. */
function selectionOf(...vertices: number[]): Uint8Array {
  const selection = new Uint8Array(5);
  for (const v of vertices) selection[v] = 1;
  return selection;
}

/** The app's registry with the weight commands and the vertex weights commands on one store and one selection. */
function setUp(locked: readonly number[] = [], maxInfluences = 4) {
  const store = new SceneStore(scene(locked), new UndoHistory());
  const binding: { selection: Uint8Array; selectedCount: number; clickedVertex: number } = {
    selection: new Uint8Array(5),
    selectedCount: 0,
    clickedVertex: -1,
  };
  const select = (...vertices: number[]) => {
    binding.selection = selectionOf(...vertices);
    binding.selectedCount = vertices.length;
  };
  const panel = { open: false, setOpen: (open: boolean) => (panel.open = open) };
  const copiedWeights = new CopiedWeights();
  const registry = new CommandRegistry(
    () => ({ toolBusy: false, hasSkeleton: true }),
    () => {},
    { boneCount: () => boneCountOf(store.doc), vertexCount: () => vertexCountOf(store.doc), meshIndex: () => 0 },
  );
  registry.registerAll({
    ...weightCommands(store, { maxInfluences: () => maxInfluences }),
    ...vertexWeightsCommands({ store, binding, copiedWeights, vertexWeightsPanel: panel, maxInfluences: { value: maxInfluences } }),
  });
  return { store, registry, binding, select, panel, copiedWeights };
}

/** The scene's weights as rows. */
function rowsOf(store: SceneStore): number[][] {
  const { data } = store.doc.weights;
  return ROWS.map((_, v) => Array.from(data.subarray(4 * v, 4 * v + 4)));
}

/** Each row equals the expected one within float32 rounding (1e-7) and sums to 1 (partition of unity). */
function assertRows(actual: number[][], expected: number[][], what: string): void {
  for (let v = 0; v < expected.length; v++) {
    for (let b = 0; b < 4; b++)
      assert.ok(
        Math.abs(actual[v][b] - expected[v][b]) <= 1e-7,
        `${what}: vertex ${v} bone ${b} is ${actual[v][b]}, expected ${expected[v][b]}`,
      );
    const sum = actual[v].reduce((a, w) => a + w, 0);
    assert.ok(Math.abs(sum - 1) <= 1e-6, `${what}: vertex ${v} sums to ${sum}`);
  }
}

/** Undo gives back the very weights before the edit (the same floats), redo the very weights after it. */
function assertUndoRedo(store: SceneStore, before: Float64Array, what: string): void {
  const after = store.doc.weights.data.slice();
  store.history.undo();
  assert.deepEqual(store.doc.weights.data, before, `${what}: undo restores the weights bit for bit`);
  store.history.redo();
  assert.deepEqual(store.doc.weights.data, after, `${what}: redo gives the edit again bit for bit`);
}

test('the table: a row per bone weighing on the selection, its mean, mixed where the vertices differ, locks, the active vertex', () => {
  const doc = scene([3]);
  const table = vertexWeightTable(doc.weights, selectionOf(0, 3), NAMES, doc.paintLocks ?? null, 3);
  assert.equal(table.count, 2);
  assert.equal(table.active, 3, 'the vertex clicked last, while selected');
  assert.deepEqual(
    table.rows.map(({ name, value, mixed, locked }) => ({ name, value, mixed, locked })),
    [
      // root 0.5 on both; arm 0.25 and 0, hand 0.25 and 0, finger 0 and 0.5: the largest mean first.
      { name: 'root', value: 0.5, mixed: false, locked: false },
      { name: 'finger', value: 0.25, mixed: true, locked: true },
      { name: 'arm', value: 0.125, mixed: true, locked: false },
      { name: 'hand', value: 0.125, mixed: true, locked: false },
    ],
  );
  const one = vertexWeightTable(doc.weights, selectionOf(2), NAMES, null, 4);
  assert.equal(one.active, 2, 'the vertex clicked last is not selected: the first selected is active');
  assert.deepEqual(
    one.rows.map(({ bone, value, min, max }) => [bone, value, min, max]),
    [
      [1, 0.75, 0.75, 0.75],
      [0, 0.25, 0.25, 0.25],
    ],
    'only the bones that weigh on vertex 2',
  );
  const none = vertexWeightTable(doc.weights, selectionOf(), NAMES, null);
  assert.deepEqual(none, { count: 0, active: -1, rows: [] }, 'no selection: no rows, no active vertex');
  assert.equal(activeVertexOf(selectionOf(1, 4), -1), 1);
  assert.deepEqual([...selectedVertices(selectionOf(4, 1, 3))], [1, 3, 4]);
});

test('a value typed in a row: weights.set on the selection, locks kept, the others rescaled, one undo step, the table follows', async () => {
  const { store, registry, binding, select } = setUp([2]);
  select(0, 4);
  const before = store.doc.weights.data.slice();
  // As the panel runs it: arm = 0.5 on the selected vertices. v0: hand (locked) keeps 0.25, root fills 1 − 0.25 − 0.5;
  // v4: hand keeps 0.5, arm takes the 0.5 left, root and finger drop to 0.
  const changed = await registry.execute('weights.set', { bone: 1, value: 0.5, vertices: selectedVertices(binding.selection) });
  assert.equal(changed, 2);
  assertRows(rowsOf(store), [[0.25, 0.5, 0.25, 0], ROWS[1], ROWS[2], ROWS[3], [0, 0.5, 0.5, 0]], 'arm typed 0.5');
  assert.deepEqual(store.doc.weights.data.subarray(4, 16), before.subarray(4, 16), 'unselected rows keep their very values');
  assert.equal(store.doc.weights.data[2], before[2], 'the locked bone keeps its float64 value bit for bit');
  assert.equal(store.history.undoCount, 1, 'one undo step');
  const table = vertexWeightTable(store.doc.weights, binding.selection, NAMES, store.doc.paintLocks ?? null);
  const arm = table.rows.find((row) => row.bone === 1)!;
  assert.ok(arm.value === 0.5 && !arm.mixed, 'the table shows the value typed on every selected vertex, not mixed');
  assertUndoRedo(store, before, 'typed value');
  store.history.undo();
  const undone = vertexWeightTable(store.doc.weights, binding.selection, NAMES, null).rows.find((row) => row.bone === 1)!;
  assert.ok(undone.value === 0.1875 && undone.mixed, 'after undo the table shows the mean before (0.25 and 0.125), mixed');
  await assert.rejects(
    async () => registry.execute('weights.set', { bone: 2, value: 0.5, vertices: [0] }),
    /weights\.set: hand is locked/,
    'a locked bone’s value cannot be typed',
  );
});

test('copy a vertex’s row and paste it onto the selection: one undo step, the other rows untouched', async () => {
  const { store, registry, select, copiedWeights } = setUp();
  select(0);
  const row = await registry.execute('weights.copyRow');
  assert.deepEqual(row, ROWS[0], 'copy gives back the active vertex’s row');
  assert.equal(copiedWeights.vertex, 0);
  select(1, 2);
  const before = store.doc.weights.data.slice();
  const changed = await registry.execute('weights.pasteRow');
  assert.equal(changed, 2, 'two rows changed');
  assertRows(rowsOf(store), [ROWS[0], ROWS[0], ROWS[0], ROWS[3], ROWS[4]], 'v0’s row pasted onto v1 and v2');
  assert.deepEqual(store.doc.weights.data.subarray(12), before.subarray(12), 'unselected rows keep their very values');
  assert.equal(store.history.undoCount, 1, 'one undo step');
  assert.equal(store.history.undoLabel, 'Paste weights onto 2 vertices');
  assertUndoRedo(store, before, 'paste');
  // The copied vertex given as the argument, and the vertices given: a script's paste.
  await registry.execute('weights.copyRow', 3);
  assert.equal(await registry.execute('weights.pasteRow', { vertices: [4] }), 1);
  assertRows(rowsOf(store).slice(4), [ROWS[3]], 'v3’s row onto v4');
});

test('paste around locked bones: the locked weights stay bit for bit, the row’s unlocked ones fill the rest in proportion', async () => {
  const { store, registry, select } = setUp([0]);
  select(3);
  const before = store.doc.weights.data.slice();
  // v4's row (0.125, 0.125, 0.5, 0.25) onto v3 with root (0.5) locked: arm, hand and finger (0.875 in all) fill 0.5.
  await registry.execute('weights.pasteRow', { row: ROWS[4] });
  const fill = 0.5 / 0.875;
  assertRows(rowsOf(store).slice(3, 4), [[0.5, 0.125 * fill, 0.5 * fill, 0.25 * fill]], 'hand-derived: 1/14, 2/7, 1/7');
  assert.equal(store.doc.weights.data[12], before[12], 'root, locked, keeps its very value');
  assertUndoRedo(store, before, 'paste around a lock');
  await assert.rejects(
    async () => registry.execute('weights.pasteRow', { row: [1, 0, 0, 0] }),
    /^Error: weights\.pasteRow: the row weighs only on locked bones, and vertex 3 has 0\.5 of weight for its unlocked bones/,
    'a row with weight only on locked bones has nowhere to put the rest',
  );
});

test('paste keeps the max influences: the smallest unlocked weights go first, locked ones count', async () => {
  const limited = setUp([], 2);
  limited.select(1);
  // v4's four weights onto v1 with at most 2: hand 0.5 and finger 0.25 are kept, in proportion 2 : 1.
  await limited.registry.execute('weights.pasteRow', { row: ROWS[4] });
  assertRows(rowsOf(limited.store).slice(1, 2), [[0, 0, 2 / 3, 1 / 3]], 'two influences kept');
  const lockedAndLimited = setUp([0], 2);
  lockedAndLimited.select(3);
  // On v3 root (locked, 0.5) takes one of the two places: hand alone fills the 0.5 left.
  await lockedAndLimited.registry.execute('weights.pasteRow', { row: ROWS[4] });
  assertRows(rowsOf(lockedAndLimited.store).slice(3, 4), [[0.5, 0, 0.5, 0]], 'the locked bone and one more');
});

test('copy and paste refuse what they cannot do, naming the command and the reason', async () => {
  const { registry, select, store, panel } = setUp();
  await assert.rejects(async () => registry.execute('weights.copyRow'), /^Error: weights\.copyRow: no vertex selected/);
  await assert.rejects(async () => registry.execute('weights.pasteRow'), /^Error: weights\.pasteRow: no row copied/);
  await assert.rejects(
    async () => registry.execute('weights.copyRow', 5),
    /weights\.copyRow: argument must be a vertex from 0 to 4, got 5/,
  );
  select(0);
  await registry.execute('weights.copyRow');
  select();
  await assert.rejects(async () => registry.execute('weights.pasteRow'), /^Error: weights\.pasteRow: no vertices selected/);
  await assert.rejects(
    async () => registry.execute('weights.pasteRow', { row: [0.5, 0.5] }),
    /weights\.pasteRow: row must be/,
    'a row of another length than the bones',
  );
  await assert.rejects(
    async () => registry.execute('weights.pasteRow', { vertices: [7] }),
    /weights\.pasteRow: vertices/,
    'a vertex out of range',
  );
  assert.equal(store.history.undoCount, 0, 'nothing refused made an undo step');
  assert.equal(await registry.execute('weights.vertexPanel'), true, 'the panel opens');
  assert.equal(panel.open, true);
  assert.equal(await registry.execute('weights.vertexPanel'), false, 'and closes');
});

test('select by a bone’s weight range: the vertices from min to max, both included', () => {
  const doc = scene();
  let selection: Uint8Array | null = null;
  const host: ContextCommandsHost = {
    store: { doc },
    boneSelection: { bone: -1 },
    binding: {
      selectVertices: (inside) => (selection = inside.slice()),
      get selectedCount() {
        return selection ? selection.reduce((n, s) => n + s, 0) : 0;
      },
    },
    notice: { show: () => {}, hide: () => {} },
    selectBone: () => {},
    setView: () => {},
    setBindPanel: () => assert.fail('the Vertex weights panel open: the Bind panel stays as it is'),
    vertexWeightsPanelOpen: () => true,
    vertexUnderPointer: () => -1,
    pickVertex: () => {},
  };
  const commands = contextCommands(host);
  // root weighs 0.5, 1, 0.25, 0.5, 0.125 on v0 … v4.
  assert.equal(commands['bind.selectByWeight'].run({ bone: 0, min: 0.2, max: 0.5 }), 3);
  assert.deepEqual([...selection!], [1, 0, 1, 1, 0]);
  assert.equal(commands['bind.selectByWeight'].run({ bone: 3, min: 0, max: 0 }), 3, 'finger weighs nothing on v0, v1, v2');
  assert.throws(
    () => commands['bind.selectByWeight'].run({ bone: 0, min: 0.6, max: 0.4 }),
    /bind\.selectByWeight: min 0\.6 is above max 0\.4/,
  );
});

test('lasso tool: a click picks at the press point (Shift adds, Ctrl or Cmd toggles); a drag still lassoes', () => {
  const h = new ToolHarness();
  h.manager.activate('lasso');
  const cases = [
    [{}, 'replace'],
    [{ shiftKey: true }, 'add'],
    [{ ctrlKey: true }, 'toggle'],
    [{ metaKey: true }, 'toggle'],
  ] as const;
  for (const [modifiers] of cases) {
    h.pointerDown(50, 60, modifiers);
    h.pointerMove(52, 61);
    h.pointerUp(52, 61);
  }
  assert.deepEqual(
    h.clicks,
    cases.map(([, combine]) => ({ clientX: 50 + CANVAS_RECT.left, clientY: 60 + CANVAS_RECT.top, combine })),
    'each click at the press point with its combination',
  );
  assert.deepEqual(h.lassos, [], 'a click is no lasso');
  h.pointerDown(50, 50);
  h.pointerMove(80, 50);
  h.pointerMove(80, 90);
  h.pointerUp(80, 90);
  assert.equal(h.lassos.length, 1, 'a drag lassoes');
  assert.equal(h.clicks.length, cases.length, 'and picks nothing');
});

test('a click selects one vertex: alone, added with Shift, toggled with Ctrl; off the mesh it clears; other meshes stay out', () => {
  const store = new SceneStore(scene(), new UndoHistory());
  let mask: Uint8Array | null = null;
  const client = {
    bindMesh: () => assert.fail('no solve'),
    cancel: () => {},
    running: false,
  };
  const binding = headlessBindingController(store, client, { vertexMask: () => mask });
  const selected = () => [...binding.selection];
  binding.clickVertex(2, 'replace');
  assert.deepEqual(selected(), [0, 0, 1, 0, 0]);
  assert.equal(binding.clickedVertex, 2);
  binding.clickVertex(4, 'add');
  assert.deepEqual(selected(), [0, 0, 1, 0, 1], 'Shift adds');
  assert.equal(binding.selectedCount, 2);
  binding.clickVertex(2, 'toggle');
  assert.deepEqual(selected(), [0, 0, 0, 0, 1], 'Ctrl on a selected vertex takes it out');
  assert.equal(binding.clickedVertex, -1, 'a vertex taken out is no longer the one clicked');
  binding.clickVertex(0, 'toggle');
  assert.deepEqual(selected(), [1, 0, 0, 0, 1], 'Ctrl on another vertex adds it');
  binding.clickVertex(-1, 'add');
  assert.deepEqual(selected(), [1, 0, 0, 0, 1], 'a Shift click off the mesh changes nothing');
  mask = Uint8Array.from([1, 1, 1, 0, 0]);
  binding.clickVertex(3, 'replace');
  assert.deepEqual(selected(), [1, 0, 0, 0, 1], 'a vertex of a mesh the lasso may not select changes nothing');
  binding.clickVertex(-1, 'replace');
  assert.deepEqual(selected(), [0, 0, 0, 0, 0], 'a click off the mesh clears the selection');
  assert.equal(binding.selectedCount, 0);
});
