/**
 * The weights.* commands (renderer/scripting/weight-commands.ts) on a six-vertex, three-bone scene of two meshes,
 * every expected row derived by hand from the brushes' rule (enforce-weight-invariants.ts): the bone's new weight is
 * kept (clamped to the room the locked bones leave), the row's other unlocked bones are rescaled to fill the rest,
 * locked bones never change, the influence limit drops the smallest others. Each command is one undo step, its undo
 * gives back the very weights before it, and bad input is refused naming the command and the field. On the course
 * hand (shared data), the commands give the very floats a flood-fill dab of the brushes gives.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { COMMANDS } from '../../renderer/commands/command-catalog.ts';
import { CommandRegistry } from '../../renderer/commands/command-registry.ts';
import { weightCommands, type WeightCommandId } from '../../renderer/scripting/weight-commands.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { boneCountOf, vertexCountOf, withDerived, type SceneDocument } from '../../workers/scene/scene-document.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';
import { applyDab, type Dab } from '../../workers/paint/apply-dab.ts';
import { paintWeightsFromDense } from '../../workers/paint/paint-weights.ts';
import { handDocument } from './full-documents.ts';

/** Rows of the scene's weights (bones root, arm, hand); every value is exact in float32, every row sums to 1. */
const ROWS = [
  [0.5, 0.25, 0.25],
  [1, 0, 0],
  [0.25, 0.75, 0],
  [0.5, 0.5, 0],
  [0, 0.5, 0.5],
  [0.125, 0.125, 0.75],
];

/** A weight command and its argument as a script passes them: checked by the registry, not by TypeScript. */
type WeightCall = [id: WeightCommandId, argument: unknown];

/** A flood fill's dab: every vertex at the brush centre (constant falloff), as the paint session floods. */
const FLOOD: Dab = { centre: [0, 0, 0], radius: 1, strength: 1, falloff: 'constant', mode: 'set', value: 0 };

/** Two triangles, mesh "left" (vertices 0–2) and mesh "right" (3–5), along a three-bone chain on x. */
function scene(locked: readonly number[] = []): SceneDocument {
  const positions = Float64Array.from([0, 0, 0, 1, 0, 0, 0, 1, 0, 2, 0, 0, 3, 0, 0, 2, 1, 0]);
  const triangles = Uint32Array.from([0, 1, 2, 3, 4, 5]);
  const skeleton = buildSkeleton(
    { joints: Float64Array.from([0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0]), bones: Uint32Array.from([0, 1, 1, 2, 2, 3]) },
    'chain.tgf',
  );
  const part = (name: string, start: number) => ({
    name,
    vertexStart: 3 * start,
    vertexCount: 3,
    triangleStart: start,
    triangleCount: 1,
    material: -1,
    source: null,
    skinned: true,
  });
  const paintLocks = new Uint8Array(3);
  for (const bone of locked) paintLocks[bone] = 1;
  return withDerived({
    name: 'two.obj',
    meshFiles: ['two.obj'],
    mesh: { positions, triangles },
    parts: [part('left', 0), part('right', 1)],
    skeletonFile: 'chain.tgf',
    skeleton,
    boneNames: ['root', 'arm', 'hand'],
    weights: { rows: 6, cols: 3, data: Float64Array.from(ROWS.flat()) },
    weightsSource: 'by hand',
    poses: null,
    posesFile: null,
    handles: null,
    handlesFile: null,
    warnings: [],
    ...(locked.length > 0 ? { paintLocks } : {}),
  });
}

/** The app's registry with the weight commands alone, bone, vertex and mesh arguments checked against the scene. */
function setUp(locked: readonly number[] = [], maxInfluences = 4): { store: SceneStore; registry: CommandRegistry } {
  const store = new SceneStore(scene(locked), new UndoHistory());
  const registry = new CommandRegistry(
    () => ({ toolBusy: false, hasSkeleton: true }),
    () => {},
    {
      boneCount: () => boneCountOf(store.doc),
      vertexCount: () => vertexCountOf(store.doc),
      meshIndex: (value) => {
        const index = typeof value === 'number' ? value : ['left', 'right'].indexOf(value);
        if (!(index === 0 || index === 1)) throw new Error(`no mesh ${String(value)} in the scene`);
        return index;
      },
    },
  );
  registry.registerAll(weightCommands(store, { maxInfluences: () => maxInfluences }));
  return { store, registry };
}

/** The scene's weights as rows. */
function rowsOf(store: SceneStore): number[][] {
  const { data } = store.doc.weights;
  return ROWS.map((_, v) => Array.from(data.subarray(3 * v, 3 * v + 3)));
}

/** Each row equals the expected one within float32 rounding (1e-7), and sums to 1 (partition of unity). */
function assertRows(actual: number[][], expected: number[][], what: string): void {
  for (let v = 0; v < expected.length; v++) {
    for (let b = 0; b < 3; b++)
      assert.ok(
        Math.abs(actual[v][b] - expected[v][b]) <= 1e-7,
        `${what}: vertex ${v} bone ${b} is ${actual[v][b]}, expected ${expected[v][b]}`,
      );
    const sum = actual[v].reduce((a, w) => a + w, 0);
    assert.ok(Math.abs(sum - 1) <= 1e-6, `${what}: vertex ${v} sums to ${sum}`);
  }
}

test('weights.set on one mesh: each changed row keeps its total, rows outside the mesh keep their very values', async () => {
  const { store, registry } = setUp();
  const changed = await registry.execute('weights.set', { bone: 0, value: 0.75, mesh: 'left' });
  // v0: root 0.75, arm and hand share 0.25 as they had 1 : 1; v1 has root alone, which takes the whole row (stays 1);
  // v2: arm fills the 0.25 left.
  assertRows(rowsOf(store), [[0.75, 0.125, 0.125], ROWS[1], [0.75, 0.25, 0], ...ROWS.slice(3)], 'set root 0.75 on left');
  assert.equal(changed, 2, 'two rows changed');
  assert.deepEqual(rowsOf(store).slice(3), ROWS.slice(3), 'the right mesh is untouched');
  assert.equal(store.history.undoLabel, 'Set root to 0.75');
  assert.equal(store.history.undoCount, 1, 'one undo step');
});

test('weights.add around a locked bone: the locked weight stays, the others fill what is left', async () => {
  const { store, registry } = setUp([2]);
  const changed = await registry.execute('weights.add', { bone: 0, value: 0.25, vertices: [0, 4] });
  // v0: hand (locked) 0.25 leaves 0.75; root 0.5 + 0.25 = 0.75 takes it all, so arm drops to 0.
  // v4: hand (locked) 0.5 leaves 0.5; root 0 + 0.25, arm 0.5 scaled to the 0.25 left.
  const expected = ROWS.map((row) => [...row]);
  expected[0] = [0.75, 0, 0.25];
  expected[4] = [0.25, 0.25, 0.5];
  assertRows(rowsOf(store), expected, 'add 0.25 to root on vertices 0 and 4');
  assert.equal(changed, 2, 'two rows changed');
  for (let v = 0; v < 6; v++) assert.equal(rowsOf(store)[v][2], ROWS[v][2], `the locked hand keeps vertex ${v}'s weight`);
});

test('weights.set keeps the max influences: the smallest other bone goes', async () => {
  const { store, registry } = setUp([], 2);
  await registry.execute('weights.set', { bone: 2, value: 0.5, vertices: [2] });
  // v2 [0.25, 0.75, 0]: hand 0.5 makes three bones; with two allowed, root (the smallest other) goes, arm takes 0.5.
  const expected = ROWS.map((row) => [...row]);
  expected[2] = [0, 0.5, 0.5];
  assertRows(rowsOf(store), expected, 'set hand 0.5 on vertex 2, two influences');
});

test('weights.scale rescales the others; the bone is clamped at the whole row', async () => {
  const { store, registry } = setUp();
  const changed = await registry.execute('weights.scale', { bone: 1, factor: 2 });
  assertRows(
    rowsOf(store),
    [
      [1 / 3, 0.5, 1 / 6], // arm 0.5; root and hand (0.5 : 0.25) share 0.5
      ROWS[1], // no arm weight: not touched
      [0, 1, 0], // arm 1.5 clamped to 1: the others get nothing
      [0, 1, 0],
      [0, 1, 0],
      [0.125 * (0.75 / 0.875), 0.25, 0.75 * (0.75 / 0.875)],
    ],
    'scale arm by 2',
  );
  assert.equal(changed, 5, 'the five rows the arm weighs on changed');
});

test('weights.transfer moves one bone’s weight onto another; rows keep their totals; undo restores bit for bit', async () => {
  const { store, registry } = setUp();
  const before = store.doc.weights;
  const bytes = new Uint8Array(before.data.buffer.slice(0));
  const changed = await registry.execute('weights.transfer', { from: 0, to: 1 });
  assertRows(
    rowsOf(store),
    ROWS.map(([root, arm, hand]) => [0, arm + root, hand]),
    'root → arm',
  );
  assert.equal(changed, 5, 'the five rows root weighs on changed');
  assert.equal(store.history.undoLabel, "Transfer root's weights to arm");
  assert.ok(store.history.undo(), 'the transfer undoes');
  assert.equal(store.doc.weights, before, 'undo puts the very weights back');
  assert.deepEqual(new Uint8Array(store.doc.weights.data.buffer), bytes, 'bit for bit');
  assert.ok(store.history.redo(), 'and redoes');
  assert.equal(rowsOf(store)[0][1], 0.75, 'redo gives the transfer back');
});

test('a command that changes nothing makes no undo step and gives back 0', async () => {
  const { store, registry } = setUp();
  assert.equal(await registry.execute('weights.set', { bone: 0, value: 1, vertices: [1] }), 0, 'vertex 1 is root alone already');
  assert.equal(await registry.execute('weights.add', { bone: 1, value: 0.5, vertices: [] }), 0, 'no vertex listed');
  assert.equal(
    await registry.execute('weights.scale', { bone: 2, factor: 3, mesh: 1, vertices: [0, 1, 2] }),
    0,
    'no listed vertex in mesh 1',
  );
  assert.equal(store.history.undoCount, 0, 'no undo step');
});

test('bad input is refused naming the command and the field; nothing changes', async () => {
  const { store, registry } = setUp([2]);
  const refusals: [WeightCall, RegExp][] = [
    [['weights.set', { bone: 3, value: 0.5 }], /^Error: weights\.set: bone must be a bone from 0 to 2, got 3$/],
    [['weights.set', { bone: 0, value: 1.5 }], /^Error: weights\.set: value must be a number from 0 to 1, got 1\.5$/],
    [['weights.add', { bone: 0, value: -2 }], /^Error: weights\.add: value must be a number from -1 to 1, got -2$/],
    [['weights.scale', { bone: 0, factor: -1 }], /^Error: weights\.scale: factor must be a number from 0 to 1000, got -1$/],
    [
      ['weights.set', { bone: 0, value: 0.5, vertices: [0, 6] }],
      /^Error: weights\.set: vertices\[1\] must be a vertex from 0 to 5, got 6$/,
    ],
    [
      ['weights.set', { bone: 0, value: 0.5, vertices: 'all' }],
      /^Error: weights\.set: vertices must be an array of vertex indices, got "all"$/,
    ],
    [
      ['weights.set', { bone: 0, value: 0.5, vertices: [0.5] }],
      /^Error: weights\.set: vertices\[0\] must be a vertex from 0 to 5, got 0\.5$/,
    ],
    [
      ['weights.set', { bone: 0, value: 0.5, vertices: Float32Array.from([1]) }],
      /^Error: weights\.set: vertices must be an array of vertex indices, got/,
    ],
    [['weights.set', { bone: 0, value: 0.5, mesh: 'torso' }], /^Error: weights\.set: mesh: no mesh torso in the scene$/],
    [
      ['weights.set', { bone: 0, value: 0.5, weight: 1 }],
      /^Error: weights\.set: argument: weight is not a field \(fields: bone, value, mesh, vertices\)$/,
    ],
    [['weights.add', { bone: 2, value: 0.1 }], /^Error: weights\.add: hand is locked: its weights do not change/],
    [['weights.transfer', { from: 0, to: 2 }], /^Error: weights\.transfer: hand is locked/],
    [['weights.transfer', { from: 1, to: 1 }], /^Error: weights\.transfer: transfer from arm to itself$/],
  ];
  for (const [[id, argument], message] of refusals)
    await assert.rejects(async () => registry.execute(id, argument as never), message, `${id} ${JSON.stringify(argument)}`);
  assert.deepEqual(rowsOf(store), ROWS, 'the weights are as before');
  assert.equal(store.history.undoCount, 0, 'no undo step');
});

test('a vertex list may be an integer typed array (as rig.scene.handles() gives)', async () => {
  const { store, registry } = setUp();
  assert.equal(await registry.execute('weights.transfer', { from: 0, to: 2, vertices: Int32Array.from([0, 5]) }), 2, 'two rows changed');
  const expected = ROWS.map((row) => [...row]);
  expected[0] = [0, 0.25, 0.75];
  expected[5] = [0, 0.125, 0.875];
  assertRows(rowsOf(store), expected, 'root → hand on vertices 0 and 5');
});

test('the handlers check the mesh and the vertices themselves where no registry does (the headless registry may not)', () => {
  const store = new SceneStore(scene(), new UndoHistory());
  const handlers = weightCommands(store, { maxInfluences: () => 4 });
  assert.throws(
    () => handlers['weights.set'].run({ bone: 0, value: 0.5, mesh: 'torso' }),
    /^Error: weights\.set: mesh "torso" is not a mesh of the scene \("left", "right"\)$/,
  );
  assert.throws(
    () => handlers['weights.set'].run({ bone: 0, value: 0.5, vertices: Int32Array.from([2, -1]) }),
    /^Error: weights\.set: vertices\[1\] must be a vertex from 0 to 5, got -1$/,
  );
  assert.equal(
    handlers['weights.set'].run({ bone: 0, value: 0.75, vertices: Uint32Array.from([0]) }),
    1,
    'a typed array of vertices is taken',
  );
});

test('the weight commands are in the catalog for scripts, each with its reason for having no menu', () => {
  for (const id of ['weights.set', 'weights.add', 'weights.scale', 'weights.transfer'] as const) {
    assert.ok(COMMANDS[id].noMenu?.startsWith('scripts'), `${id} says why it has no menu`);
    assert.equal(COMMANDS[id].result?.kind, 'number', `${id} gives back how many vertices changed`);
  }
});

test('on the course hand the commands give the brushes’ own floats (a flood-fill dab, applyDab, on the same vertices), locked weights bit for bit', async () => {
  const hand = handDocument();
  const V = vertexCountOf(hand);
  const B = boneCountOf(hand);
  const LOCKED = 3;
  const BONE = 5;
  const paintLocks = new Uint8Array(B);
  paintLocks[LOCKED] = 1;
  const doc: SceneDocument = { ...hand, paintLocks };
  const vertices = Array.from({ length: Math.ceil(V / 3) }, (_, i) => 3 * i);
  const cases: [WeightCall, Dab][] = [
    [['weights.add', { bone: BONE, value: 0.2, vertices }], { ...FLOOD, mode: 'add', strength: 0.2 }],
    [['weights.set', { bone: BONE, value: 0.3, vertices }], { ...FLOOD, mode: 'set', strength: 1, value: 0.3 }],
  ];
  for (const [call, dab] of cases) {
    const store = new SceneStore(doc, new UndoHistory());
    const registry = new CommandRegistry(() => ({ toolBusy: false, hasSkeleton: true }));
    registry.registerAll(weightCommands(store, { maxInfluences: () => 4 }));
    const changed = await registry.execute(call[0], call[1] as never);

    const brush = paintWeightsFromDense(doc.weights);
    applyDab(brush, BONE, dab, Uint32Array.from(vertices), new Float64Array(vertices.length), vertices.length, {
      locked: paintLocks,
      maxInfluences: 4,
    });
    const before = doc.weights.data;
    const after = store.doc.weights.data;
    let rows = 0;
    for (let v = 0; v < V; v++) {
      const row = after.subarray(v * B, v * B + B);
      const old = before.subarray(v * B, v * B + B);
      if (row.every((w, b) => Object.is(w, old[b]))) continue;
      rows++;
      // The brush's float32 row, but for the locked bone, which keeps the document's float64 value bit for bit.
      const expected = Array.from(brush.data.subarray(v * B, v * B + B));
      expected[LOCKED] = old[LOCKED];
      assert.deepEqual(Array.from(row), expected, `${call[0]}: vertex ${v} as the brush makes it`);
      assert.ok(Object.is(row[LOCKED], old[LOCKED]), `${call[0]}: the locked bone keeps vertex ${v}'s weight`);
      const total = (w: ArrayLike<number>) => Array.from(w).reduce((a, x) => a + x, 0);
      assert.ok(Math.abs(total(row) - total(old)) < 1e-6, `${call[0]}: vertex ${v} keeps its total ${total(old)} (${total(row)})`);
      assert.ok(row.filter((w) => w !== 0).length <= 4, `${call[0]}: vertex ${v} has at most 4 influences`);
    }
    assert.equal(changed, rows, `${call[0]} counts the rows it changed`);
    assert.ok(rows > V / 4, `${call[0]} changed most listed rows (${rows} of ${vertices.length})`);
  }
});
