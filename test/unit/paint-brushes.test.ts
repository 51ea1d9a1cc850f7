/**
 * The blur, relax, gradient and flood brushes: hand-derived values on tiny meshes, and the properties each is
 * defined by (blur of a constant field is constant and flattens a ramp smooth keeps; relax keeps the bone's total
 * under the brush; a gradient is linear along its drag; flood fills the active mesh), with the invariants strokes
 * keep (partition of unity, locked bones untouched, the influence limit), and one labelled undo step each.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyDab, BLUR_SIGMA, type Dab } from '../../workers/paint/apply-dab.ts';
import { applyGradient, gatherGradient, gradientParameter, type WeightGradient } from '../../workers/paint/apply-gradient.ts';
import type { PaintSettings, PaintWeights } from '../../workers/paint/paint-weights.ts';
import { vertexOneRing, type VertexOneRing } from '../../workers/paint/vertex-one-ring.ts';
import { createVertexGrid, queryVertexGrid } from '../../workers/paint/vertex-grid.ts';
import { demoDocument } from '../../workers/scene/scene-document.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { floodDab, floodLabel, BRUSH_DEFAULTS, STROKE_LABELS } from '../../renderer/paint/paint-controller.ts';
import { BRUSH_MODES } from '../../renderer/paint/brush-options.ts';
import { headlessPaintController } from './headless-hosts.ts';
import { seededRandom } from './seeded-random.ts';
import { GRID, gridDocument } from './tool-harness.ts';

/** A flat nx × ny grid of unit spacing in z = 0, each square split along the same diagonal. */
function grid(nx: number, ny: number) {
  const positions = new Float64Array(3 * nx * ny);
  for (let j = 0; j < ny; j++) for (let i = 0; i < nx; i++) positions.set([i, j, 0], 3 * (j * nx + i));
  const triangles: number[] = [];
  for (let j = 0; j + 1 < ny; j++) {
    for (let i = 0; i + 1 < nx; i++) {
      const a = j * nx + i;
      triangles.push(a, a + 1, a + nx + 1, a, a + nx + 1, a + nx);
    }
  }
  return { positions, triangles: Uint32Array.from(triangles), oneRing: vertexOneRing(nx * ny, Uint32Array.from(triangles)) };
}

function settings(boneCount: number, lockedBones: number[] = [], maxInfluences = 4): PaintSettings {
  const locked = new Uint8Array(boneCount);
  for (const b of lockedBones) locked[b] = 1;
  return { locked, maxInfluences };
}

function weightsOf(rows: number[][]): PaintWeights {
  return { vertexCount: rows.length, boneCount: rows[0].length, data: Float32Array.from(rows.flat()) };
}

const dab = (over: Partial<Dab>): Dab => ({
  centre: [0, 0, 0],
  radius: 1,
  strength: 1,
  falloff: 'constant',
  mode: 'add',
  value: 0,
  ...over,
});

/** A path 0 – 1 – 2 as a one-ring (the brushes read only the one-ring, not the triangles). */
const PATH: VertexOneRing = { offsets: Int32Array.from([0, 1, 3, 4]), neighbors: Int32Array.from([1, 0, 2, 1]) };

function column(weights: PaintWeights, bone: number): number[] {
  return Array.from({ length: weights.vertexCount }, (_, v) => weights.data[v * weights.boneCount + bone]);
}

function assertClose(actual: number[], expected: number[], tolerance: number, what: string): void {
  assert.equal(actual.length, expected.length, `${what}: length`);
  actual.forEach((x, i) => assert.ok(Math.abs(x - expected[i]) <= tolerance, `${what}[${i}]: ${x}, expected ${expected[i]}`));
}

function assertRowsSumToOne(weights: PaintWeights, what: string): void {
  const nb = weights.boneCount;
  for (let v = 0; v < weights.vertexCount; v++) {
    let sum = 0;
    for (let b = 0; b < nb; b++) {
      const w = weights.data[v * nb + b];
      assert.ok(w >= 0, `${what}: vertex ${v} bone ${b} is negative (${w})`);
      sum += w;
    }
    assert.ok(Math.abs(sum - 1) < 1e-6, `${what}: vertex ${v} sums to ${sum}`);
  }
}

const ALL = (n: number) => Uint32Array.from({ length: n }, (_, i) => i);

test('blur: every vertex moves toward the Gaussian-weighted mean of the brush (hand-derived on three vertices)', () => {
  const weights = weightsOf([
    [0.2, 0.8],
    [0.6, 0.4],
    [1, 0],
  ]);
  const distances = Float64Array.from([0, 0.5, 1]);
  applyDab(weights, 0, dab({ mode: 'blur', falloff: 'linear' }), ALL(3), distances, 3, settings(2), PATH);
  // σ = radius / 2 = 0.5: Gaussian weights exp(−d²/(2·0.25)) = 1, e^−0.5, e^−2; falloff 1 − d.
  const g = [1, Math.exp(-0.5), Math.exp(-2)];
  const mean = (0.2 * g[0] + 0.6 * g[1] + 1 * g[2]) / (g[0] + g[1] + g[2]);
  assert.equal(BLUR_SIGMA, 0.5);
  const expected = [0.2 + 1 * (mean - 0.2), 0.6 + 0.5 * (mean - 0.6), 1];
  assertClose(column(weights, 0), expected, 1e-6, 'blurred bone 0');
  assertClose(
    column(weights, 1),
    expected.map((w) => 1 - w),
    1e-6,
    'the other bone fills the rest',
  );
});

test('blur keeps a constant field constant, flattens a ramp that smooth leaves in place, and keeps locks and partition of unity', () => {
  const { positions, oneRing } = grid(9, 9);
  const n = 81;
  const vertexGrid = createVertexGrid(positions);
  const indices = new Uint32Array(n);
  const distances = new Float64Array(n);
  const count = queryVertexGrid(vertexGrid, 4, 4, 0, 2.5, indices, distances);
  assert.ok(count > 15, `${count} vertices under the brush`);

  // Constant 0.35 on bone 0, the rest on bones 1 and 2 (bone 2 locked at 0.25).
  const constant = weightsOf(Array.from({ length: n }, () => [0.35, 0.4, 0.25]));
  applyDab(
    constant,
    0,
    dab({ mode: 'blur', centre: [4, 4, 0], radius: 2.5, falloff: 'smooth' }),
    indices,
    distances,
    count,
    settings(3, [2]),
    oneRing,
  );
  assertClose(column(constant, 0), new Array<number>(n).fill(0.35), 1e-7, 'blurred constant');

  // A linear ramp along x: smooth (the one-ring mean of a symmetric grid neighbourhood) keeps it inside; blur does not.
  const ramp = () => weightsOf(Array.from({ length: n }, (_, v) => [0.08 * (v % 9), 0.75 - 0.08 * (v % 9), 0.25]));
  const smoothed = ramp();
  applyDab(smoothed, 0, dab({ mode: 'smooth', centre: [4, 4, 0], radius: 2.5 }), indices, distances, count, settings(3, [2]), oneRing);
  assertClose(column(smoothed, 0), column(ramp(), 0), 1e-6, 'smooth of a linear ramp on a regular grid');
  const blurred = ramp();
  applyDab(blurred, 0, dab({ mode: 'blur', centre: [4, 4, 0], radius: 2.5 }), indices, distances, count, settings(3, [2]), oneRing);
  // Constant falloff at strength 1: every vertex under the brush takes the one mean, 0.32 by symmetry about x = 4.
  for (let i = 0; i < count; i++) assert.ok(Math.abs(blurred.data[3 * indices[i]] - 0.32) < 1e-6, `vertex ${indices[i]} blurred to 0.32`);
  assertClose(column(blurred, 2), new Array<number>(n).fill(0.25), 0, 'locked bone');
  assertRowsSumToOne(blurred, 'blur');
});

test('relax keeps the bone’s total under the brush where smooth adds to it (hand-derived on a path)', () => {
  const relaxed = weightsOf([
    [0.2, 0.8],
    [0.6, 0.4],
    [0.4, 0.6],
  ]);
  applyDab(relaxed, 0, dab({ mode: 'relax' }), ALL(3), new Float64Array(3), 3, settings(2), PATH);
  // One-ring means 0.6, 0.3, 0.6; the smooth step δ = 0.4, −0.3, 0.2 sums to 0.3; relax takes its mean 0.1 off each.
  assertClose(column(relaxed, 0), [0.5, 0.2, 0.5], 1e-6, 'relaxed');
  const smoothed = weightsOf([
    [0.2, 0.8],
    [0.6, 0.4],
    [0.4, 0.6],
  ]);
  applyDab(smoothed, 0, dab({ mode: 'smooth' }), ALL(3), new Float64Array(3), 3, settings(2), PATH);
  assertClose(column(smoothed, 0), [0.6, 0.3, 0.6], 1e-6, 'smoothed');
  assertRowsSumToOne(relaxed, 'relax');
});

test('relax on a bumpy field: the total under the brush is kept, the field gets smoother, locks and limits hold', () => {
  const { positions, oneRing } = grid(12, 12);
  const n = 144;
  const random = seededRandom(27);
  // Four bones, bone 3 locked; bone 0 a bump between 0.2 and 0.5 so no weight is clamped.
  const rows = Array.from({ length: n }, () => {
    const w0 = 0.2 + 0.3 * random();
    const w1 = (0.7 - w0) * random();
    return [w0, w1, 0.7 - w0 - w1, 0.3];
  });
  const weights = weightsOf(rows);
  const before = weights.data.slice();
  const vertexGrid = createVertexGrid(positions);
  const indices = new Uint32Array(n);
  const distances = new Float64Array(n);
  const count = queryVertexGrid(vertexGrid, 5.5, 5.5, 0, 3.2, indices, distances);
  const total = (data: Float32Array) => Array.from(indices.subarray(0, count)).reduce((sum, v) => sum + data[4 * v], 0);
  const roughness = (data: Float32Array) => {
    let sum = 0;
    for (let i = 0; i < count; i++) {
      const v = indices[i];
      for (let p = oneRing.offsets[v]; p < oneRing.offsets[v + 1]; p++) sum += (data[4 * v] - data[4 * oneRing.neighbors[p]]) ** 2;
    }
    return sum;
  };
  applyDab(
    weights,
    0,
    dab({ mode: 'relax', centre: [5.5, 5.5, 0], radius: 3.2, strength: 0.8, falloff: 'smooth' }),
    indices,
    distances,
    count,
    settings(4, [3], 3),
    oneRing,
  );
  assert.ok(Math.abs(total(weights.data) - total(before)) < 1e-5, `total ${total(weights.data)} kept from ${total(before)}`);
  assert.ok(roughness(weights.data) < 0.7 * roughness(before), `rougher than expected: ${roughness(weights.data)} vs ${roughness(before)}`);
  for (let v = 0; v < n; v++) assert.equal(weights.data[4 * v + 3], before[4 * v + 3], `locked bone at vertex ${v}`);
  // The rows under the brush are brought within the limit, as a stroke's are.
  for (const v of indices.subarray(0, count)) {
    const nonZero = [0, 1, 2, 3].filter((b) => weights.data[4 * v + b] > 0).length;
    assert.ok(nonZero <= 3, `vertex ${v} has ${nonZero} influences, limit 3`);
  }
  assertRowsSumToOne(weights, 'relax');
});

test('gradient: the weight falls linearly from the set value at A to 0 at B along the drag, within the radius of the segment', () => {
  const { positions } = grid(11, 5);
  const n = 55;
  const vertexGrid = createVertexGrid(positions);
  const gradient: WeightGradient = { start: [2, 2, 0], end: [8, 2, 0], radius: 1.2, value: 1, strength: 1, falloff: 'linear' };
  const indices = new Uint32Array(n);
  const along = new Float64Array(n);
  const count = gatherGradient(vertexGrid, gradient, indices, along);
  // Brute force: the vertices within 1.2 of the segment y = 2, 2 ≤ x ≤ 8 (x from 1 to 9 on rows 1 … 3).
  const inside = [...Array(n).keys()].filter((v) => {
    const x = v % 11,
      y = Math.floor(v / 11);
    const dx = x < 2 ? 2 - x : x > 8 ? x - 8 : 0;
    return dx * dx + (y - 2) ** 2 <= 1.44;
  });
  assert.deepEqual(
    [...indices.subarray(0, count)].sort((a, b) => a - b),
    inside,
  );
  for (let i = 0; i < count; i++) assert.equal(along[i], ((indices[i] % 11) - 2) / 6, `t of vertex ${indices[i]}`);

  const weights = weightsOf(Array.from({ length: n }, () => [0.5, 0.3, 0.2]));
  applyGradient(weights, 0, gradient, indices, along, count, settings(3, [2]));
  for (let v = 0; v < n; v++) {
    const x = v % 11;
    const expected = inside.includes(v) ? Math.min(1, Math.max(0, 1 - (x - 2) / 6)) : 0.5;
    // The locked bone keeps 0.2: bone 0 is clamped to the 0.8 left.
    assert.ok(Math.abs(weights.data[3 * v] - Math.min(expected, 0.8)) < 1e-6, `vertex ${v}: ${weights.data[3 * v]}, expected ${expected}`);
    assert.equal(weights.data[3 * v + 2], Math.fround(0.2), `locked bone at vertex ${v}`);
  }
  assertRowsSumToOne(weights, 'gradient');
  // Linear along the line: equal steps in x, equal steps in weight between A and B (where no lock clamps it).
  const middle = [4, 5, 6, 7, 8].map((x) => weights.data[3 * (2 * 11 + x)]);
  for (let k = 1; k < middle.length; k++)
    assert.ok(Math.abs(middle[k - 1] - middle[k] - 1 / 6) < 1e-6, `step ${k}: ${middle[k - 1] - middle[k]}`);
  assert.ok(Number.isNaN(gradientParameter({ ...gradient, end: gradient.start }, 1, 2, 3)), 'a gradient of zero length has no parameter');
});

test('gradient with half strength and the smooth profile moves each weight half-way to value·(1 − 3t² + 2t³)', () => {
  const weights = weightsOf([
    [0.4, 0.6],
    [0.4, 0.6],
    [0.4, 0.6],
  ]);
  const gradient: WeightGradient = { start: [0, 0, 0], end: [1, 0, 0], radius: 1, value: 0.8, strength: 0.5, falloff: 'smooth' };
  applyGradient(weights, 0, gradient, ALL(3), Float64Array.from([-0.5, 0.5, 2]), 3, settings(2));
  assertClose(column(weights, 0), [0.4 + 0.5 * (0.8 - 0.4), 0.4 + 0.5 * (0.4 - 0.4), 0.4 + 0.5 * (0 - 0.4)], 1e-6, 'half-way');
});

test('flood: Set fills the bone with the set value at full strength, Add by the strength, over the active mesh only; one labelled undo step', () => {
  const history = new UndoHistory();
  const store = new SceneStore(demoDocument(), history);
  const n = store.doc.weights.rows;
  const mask = new Uint8Array(n);
  for (let v = 0; v < n; v += 2) mask[v] = 1;
  const paint = headlessPaintController(store, { selectedBone: () => 1, vertexMask: () => mask });
  paint.setLocked(0, true);
  const nb = store.doc.weights.cols;
  const before = store.doc.weights.data.slice();
  Object.assign(paint.brush, { ...BRUSH_DEFAULTS, mode: 'set', value: 0.25, strength: 0.3 });
  assert.deepEqual(floodDab(paint.brush).strength, 1);
  void paint.run('flood');
  assert.deepEqual(history.undoLabels(), ['Lock bone 0', 'Flood fill (set 0.25)']);
  assert.equal(floodLabel(paint.brush), 'Flood fill (set 0.25)');
  const data = store.doc.weights.data;
  for (let v = 0; v < n; v++) {
    const row = data.subarray(v * nb, (v + 1) * nb);
    // Rows the fill wrote hold the paint buffer's float32 values, the locked weight too, as after a stroke.
    assert.equal(row[0], mask[v] ? Math.fround(before[v * nb]) : before[v * nb], `locked bone 0 at vertex ${v}`);
    if (!mask[v]) {
      assert.deepEqual([...row], [...before.subarray(v * nb, (v + 1) * nb)], `vertex ${v} is off the active mesh`);
      continue;
    }
    const room = 1 - Math.fround(before[v * nb]);
    assert.ok(Math.abs(row[1] - Math.min(0.25, room)) < 1e-6, `vertex ${v}: bone 1 is ${row[1]}, expected ${Math.min(0.25, room)}`);
    const sum = row.reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(sum - 1) < 1e-6, `vertex ${v} sums to ${sum}`);
    assert.ok(row.filter((w) => w > 0).length <= paint.settings.maxInfluences, `vertex ${v} keeps the influence limit`);
  }

  // Add: +0.3 on every vertex of the mask (below the room the lock leaves), then undo puts the set fill back.
  const afterSet = data.slice();
  paint.brush.mode = 'add';
  void paint.run('flood');
  assert.equal(history.undoLabels().at(-1), 'Flood fill (add 0.3)');
  for (let v = 0; v < n; v += 2) {
    const expected = Math.min(afterSet[v * nb + 1] + 0.3, 1 - Math.fround(before[v * nb]));
    assert.ok(Math.abs(data[v * nb + 1] - expected) < 1e-6, `vertex ${v}: ${data[v * nb + 1]}, expected ${expected}`);
  }
  history.undo();
  assert.deepEqual(store.doc.weights.data, afterSet, 'undo of the add fill');
});

test('a gradient drag redone at each move is one "Gradient" step that leaves only the last gradient; a blur flood over the whole mesh keeps partition of unity', () => {
  const history = new UndoHistory();
  const store = new SceneStore(demoDocument(), history);
  const paint = headlessPaintController(store, { selectedBone: () => 1 });
  const session = paint.ensureSession();
  session.context.grid = createVertexGrid(store.doc.mesh.positions);
  const start = store.doc.weights.data.slice();
  const { diagonal } = store.doc;
  const p = store.doc.mesh.positions;
  const a = [p[0], p[1], p[2]];
  const b = [p[0] + 0.3 * diagonal, p[1], p[2]];
  Object.assign(paint.brush, { ...BRUSH_DEFAULTS, mode: 'gradient', value: 1, strength: 1, falloff: 'linear' });
  const gradient = (end: number[]): WeightGradient => ({ start: a, end, radius: 0.2 * diagonal, value: 1, strength: 1, falloff: 'linear' });
  // A drag: three moves, each redoing the gradient from A to the pointer; the release keeps the last one.
  paint.gradient(1, gradient([p[0] + 0.1 * diagonal, p[1], p[2]]));
  paint.gradient(1, gradient([p[0] + 0.2 * diagonal, p[1], p[2]]));
  const reached = paint.gradient(1, gradient(b));
  assert.ok(reached > 10, `${reached} vertices reached`);
  paint.endStroke();
  assert.deepEqual(history.undoLabels(), ['Gradient']);
  // The same gradient laid once on the starting weights gives the same result: the earlier moves left nothing behind.
  const once = { vertexCount: store.doc.weights.rows, boneCount: store.doc.weights.cols, data: Float32Array.from(start) };
  const indices = new Uint32Array(once.vertexCount);
  const along = new Float64Array(once.vertexCount);
  const count = gatherGradient(session.context.grid, gradient(b), indices, along);
  applyGradient(once, 1, gradient(b), indices, along, count, paint.settings);
  for (let i = 0; i < start.length; i++) assert.ok(Math.abs(store.doc.weights.data[i] - once.data[i]) < 1e-7, `entry ${i}`);
  history.undo();
  assert.deepEqual(store.doc.weights.data, start, 'undo of the gradient');

  paint.brush.mode = 'blur';
  void paint.run('flood');
  assert.deepEqual(history.undoLabels(), ['Flood fill (blur)']);
  assertRowsSumToOne(
    { vertexCount: store.doc.weights.rows, boneCount: store.doc.weights.cols, data: Float32Array.from(store.doc.weights.data) },
    'blur flood',
  );
});

test('flood fills the selected vertices when any is selected (on the active mesh), the whole active mesh when none is', () => {
  const history = new UndoHistory();
  const store = new SceneStore(demoDocument(), history);
  const n = store.doc.weights.rows;
  const nb = store.doc.weights.cols;
  const mesh = new Uint8Array(n).fill(1);
  mesh.fill(0, 0, 10);
  let selection = new Uint8Array(n);
  for (let v = 0; v < 40; v += 3) selection[v] = 1;
  const paint = headlessPaintController(store, { selectedBone: () => 1, vertexMask: () => mesh, vertexSelection: () => selection });
  Object.assign(paint.brush, { ...BRUSH_DEFAULTS, mode: 'set', value: 0.5 });
  const before = store.doc.weights.data.slice();
  // 0, 3, … 39 are selected, of which 12, 15, … 39 are on the active mesh: ten vertices, and the title says so.
  assert.equal(paint.floodSelectionCount(), 10, 'the selected vertices on the active mesh');
  assert.equal(paint.floodTitle(), 'Flood fill selection');
  void paint.run('flood');
  const changed = (v: number) => store.doc.weights.data.subarray(v * nb, (v + 1) * nb).some((w, b) => w !== before[v * nb + b]);
  const filled = [...Array(n).keys()].filter(changed);
  // Selected and on the active mesh: 12, 15, … 39 (0 … 9 are off it); their bone 1 is 0.5 now.
  assert.deepEqual(
    filled,
    [...Array(n).keys()].filter((v) => v >= 10 && v < 40 && v % 3 === 0 && Math.abs(before[v * nb + 1] - 0.5) > 1e-9),
  );
  for (const v of filled) assert.ok(Math.abs(store.doc.weights.data[v * nb + 1] - 0.5) < 1e-6, `vertex ${v}`);

  // Nothing selected: the whole active mesh.
  selection = new Uint8Array(n);
  assert.equal(paint.floodSelectionCount(), 0, 'nothing selected');
  assert.equal(paint.floodTitle(), 'Flood fill');
  void paint.run('flood');
  for (let v = 0; v < n; v++) {
    const w = store.doc.weights.data[v * nb + 1];
    if (v < 10) assert.equal(w, before[v * nb + 1], `vertex ${v} is off the active mesh`);
    else assert.ok(Math.abs(w - 0.5) < 1e-6, `vertex ${v}: ${w}`);
  }
  assert.deepEqual(history.undoLabels(), ['Flood fill selection (set 0.5)', 'Flood fill (set 0.5)']);

  // Selected vertices off the active mesh only: the fill is the whole active mesh's.
  selection = new Uint8Array(n).fill(1, 0, 10);
  assert.equal(paint.floodSelectionCount(), 0, 'no selected vertex on the active mesh');
  assert.equal(paint.floodTitle(), 'Flood fill');
});

/**
 * The 9 × 9 grid of the tool harness (two bones, bone 1 selected) with bone 1's weights set by `bone1(v)` and bone 0
 * the rest, in a store of its own; each square is split along (i, j)–(i + 1, j + 1), so an inner vertex v has the
 * six neighbours v ± 1, v ± GRID, v ± (GRID + 1).
 */
function gridPaint(bone1: (v: number) => number) {
  const doc = gridDocument();
  const { data, rows } = doc.weights;
  for (let v = 0; v < rows; v++) {
    data[2 * v + 1] = bone1(v);
    data[2 * v] = 1 - data[2 * v + 1];
  }
  const history = new UndoHistory();
  const store = new SceneStore(doc, history);
  const paint = headlessPaintController(store, { selectedBone: () => 1 });
  return { store, history, paint, bone1: () => Array.from({ length: rows }, (_, v) => store.doc.weights.data[2 * v + 1]) };
}

test('flood blur is local: each vertex moves toward its neighbours’ mean, and a vertex with 0 and no weighted neighbour stays 0', () => {
  // Bone 1 only at the centre vertex (4, 4), 0.8 (bone 0 keeps 0.2, so normalization leaves bone 1 as painted); a
  // blur flood at strength 0.5.
  const centre = 4 * GRID + 4;
  const { paint, history, bone1 } = gridPaint((v) => (v === centre ? 0.8 : 0));
  Object.assign(paint.brush, { ...BRUSH_DEFAULTS, mode: 'blur', strength: 0.5 });
  void paint.run('flood');
  assert.deepEqual(history.undoLabels(), ['Flood fill (blur)']);
  const neighbours = [centre - 1, centre + 1, centre - GRID, centre + GRID, centre - GRID - 1, centre + GRID + 1];
  const after = bone1();
  for (let v = 0; v < after.length; v++) {
    // The centre: 0.8 + 0.5·(0 − 0.8); its six neighbours, each with six neighbours of which one weighs 0.8:
    // 0.5·(0.8/6); every other vertex has 0 and no weighted neighbour.
    const expected = v === centre ? 0.4 : neighbours.includes(v) ? (0.5 * 0.8) / 6 : 0;
    assert.ok(Math.abs(after[v] - expected) < 1e-7, `vertex ${v}: bone 1 is ${after[v]}, expected ${expected}`);
  }
  assertRowsSumToOne(
    { vertexCount: after.length, boneCount: 2, data: Float32Array.from(paint.session!.dense.data) },
    'blur flood on the grid',
  );
});

test('flood relax keeps the bone’s total over the mesh and evens the field out', () => {
  const random = seededRandom(27);
  const { paint, history, bone1, store } = gridPaint(() => 0.3 + 0.4 * random());
  const { triangles } = store.doc.mesh;
  const roughness = (w: number[]) => {
    // Σ over the mesh's edges (each triangle's three, inner edges twice) of the squared difference.
    let sum = 0;
    for (let t = 0; t < triangles.length; t += 3)
      for (let k = 0; k < 3; k++) sum += (w[triangles[t + k]] - w[triangles[t + ((k + 1) % 3)]]) ** 2;
    return sum;
  };
  const before = bone1();
  Object.assign(paint.brush, { ...BRUSH_DEFAULTS, mode: 'relax', strength: 0.5 });
  void paint.run('flood');
  assert.deepEqual(history.undoLabels(), ['Flood fill (relax)']);
  const after = bone1();
  const total = (w: number[]) => w.reduce((a, b) => a + b, 0);
  assert.ok(Math.abs(total(after) - total(before)) < 1e-4, `bone 1's total ${total(after)}, was ${total(before)}`);
  assert.ok(roughness(after) < 0.5 * roughness(before), `roughness ${roughness(after)}, was ${roughness(before)}`);
});

test('a flood or a gradient on a locked bone changes nothing and adds no undo step', () => {
  const { paint, history, store } = gridPaint((v) => (v % GRID) / (GRID - 1));
  paint.setLocked(1, true);
  const before = store.doc.weights.data.slice();
  for (const mode of ['set', 'add', 'blur', 'relax'] as const) {
    Object.assign(paint.brush, { ...BRUSH_DEFAULTS, mode, value: 0.5 });
    void paint.run('flood');
  }
  const session = paint.ensureSession();
  session.context.grid = createVertexGrid(store.doc.mesh.positions);
  paint.gradient(1, { start: [-1, 0, 0], end: [1, 0, 0], radius: 0.5, value: 1, strength: 1, falloff: 'linear' });
  paint.endStroke();
  assert.deepEqual(history.undoLabels(), ['Lock bone 1'], 'only the lock is a step');
  assert.deepEqual(store.doc.weights.data, before, 'no weight changed');
});

test('the brush modes a project, a command or the preferences may name are the modes a stroke has a label for, and sample', () => {
  assert.deepEqual([...BRUSH_MODES].sort(), [...Object.keys(STROKE_LABELS), 'sample'].sort());
});
