/**
 * Max influences: limiting a row keeps the largest unlocked weights and renormalises them around the locked ones
 * (checked by hand, against the paint invariants' float32 limiter, and on the context-aware body's harmonic weights);
 * the count the export dialog states is a direct count of the body's rows; setting the scene's limit is one undo
 * step with its weights; a new scene takes the user's default without one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_INFLUENCES_DEFAULT, limitInfluences, mostInfluences, verticesOverInfluences } from '../../workers/weights/limit-influences.ts';
import { headlessPaintController } from './headless-hosts.ts';
import { droppedWeight } from '../../workers/formats/gltf-export.ts';
import { enforceWeightInvariants } from '../../workers/paint/enforce-weight-invariants.ts';
import { allRows } from '../../workers/paint/normalize-all-weights.ts';
import { exportInfluenceNote, MaxInfluences } from '../../renderer/bind/max-influences.ts';
import { demoDocument, withDerived, type SceneDocument } from '../../workers/scene/scene-document.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';
import type { DenseMatrix } from '../../workers/formats/types.ts';
import type { PaintSettings } from '../../workers/paint/paint-weights.ts';
import { contextAwareBody } from './context-aware-data.ts';
import { influencesFromWeights } from '../../workers/skinning/influences.ts';
import { seededRandom } from './seeded-random.ts';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../../app/cli/main.ts';
import { readDmat } from '../../workers/formats/dmat.ts';
import { headlessRegistry } from '../../renderer/scripting/headless-commands.ts';
import { sceneFromFiles } from '../../renderer/scripting/headless-scene.ts';
import { VOLUMETRIC_WEIGHTS_DEFAULTS, volumetricWeights } from '../../workers/weights/volumetric-weights.ts';
import { dataFile } from './shared-data.ts';

function nonZeroPerRow(weights: DenseMatrix): number[] {
  const counts: number[] = [];
  for (let v = 0; v < weights.rows; v++)
    counts.push(Array.from(weights.data.subarray(v * weights.cols, (v + 1) * weights.cols)).filter((w) => w !== 0).length);
  return counts;
}

function rowSum(weights: DenseMatrix, v: number): number {
  let sum = 0;
  for (let b = 0; b < weights.cols; b++) sum += weights.data[v * weights.cols + b];
  return sum;
}

test('a row over the limit keeps its largest weights, renormalised around the locked ones (by hand)', () => {
  const weights = { rows: 3, cols: 4, data: Float64Array.from([0.4, 0.3, 0.2, 0.1, 0.5, 0.5, 0, 0, 0.1, 0.2, 0.3, 0.4]) };
  const free = limitInfluences(weights, 2, null);
  assert.equal(free.limited, 2, 'rows 0 and 2 have four weights, row 1 two');
  const expected = [0.4 / 0.7, 0.3 / 0.7, 0, 0, 0.5, 0.5, 0, 0, 0, 0, 0.3 / 0.7, 0.4 / 0.7];
  expected.forEach((w, i) => assert.ok(Math.abs(free.weights.data[i] - w) < 1e-15, `entry ${i}: ${free.weights.data[i]} against ${w}`));
  assert.equal(weights.data[3], 0.1, 'the input is not written');

  // Bone 3 locked at 0.1 in row 0: it stays, and the one other weight kept (0.4) takes the remaining 0.9.
  const locked = limitInfluences(weights, 2, Uint8Array.from([0, 0, 0, 1]));
  assert.deepEqual(Array.from(locked.weights.data.subarray(0, 4)), [0.9, 0, 0, 0.1]);
  // Row 2: bone 3 (0.4) locked, the largest unlocked (bone 2, 0.3) scaled to 0.6.
  assert.ok(Math.abs(locked.weights.data[10] - 0.6) < 1e-15 && locked.weights.data[11] === 0.4, 'row 2 around its lock');
  assert.equal(locked.unrepaired, 0);

  assert.equal(locked.keptOverLimit, 0);

  // Locked weights that use the whole limit: the largest unlocked weight stays beyond K and takes 1 − Σ locked, so
  // every row still sums to 1 (partition of unity wins over the limit), and the rows are counted.
  const tooMany = limitInfluences(weights, 1, Uint8Array.from([1, 1, 0, 0]));
  assert.equal(tooMany.unrepaired, 0, 'every row can keep its sum');
  assert.equal(tooMany.keptOverLimit, 3, 'every row holds two non-zero locked weights under a limit of one');
  const byHand = [0.4, 0.3, 0.3, 0, 0.5, 0.5, 0, 0, 0.1, 0.2, 0, 0.7];
  byHand.forEach((w, i) => assert.ok(Math.abs(tooMany.weights.data[i] - w) < 1e-15, `entry ${i}: ${tooMany.weights.data[i]} against ${w}`));
  // Locked weights summing to more than 1 cannot be repaired.
  const over = limitInfluences({ rows: 1, cols: 3, data: Float64Array.from([0.7, 0.6, 0.1]) }, 1, Uint8Array.from([1, 1, 0]));
  assert.equal(over.unrepaired, 1, 'Σ locked = 1.3');
  assert.deepEqual(Array.from(over.weights.data), [0.7, 0.6, 0], 'the locked weights stay, the unlocked one goes');
  assert.throws(
    () => limitInfluences(weights, 0, null),
    /limitInfluences: the influence limit must be a whole number of at least 1, not 0/,
  );
  assert.throws(() => limitInfluences(weights, 2, new Uint8Array(3)), /limitInfluences: 3 lock flags for 4 bones/);
});

test('limiting agrees with the paint invariants’ limiter (Limit total), locks included', () => {
  const rand = seededRandom(27);
  const rows = 400;
  const cols = 9;
  const data = new Float64Array(rows * cols);
  for (let v = 0; v < rows; v++) {
    let sum = 0;
    for (let b = 0; b < cols; b++) sum += data[v * cols + b] = rand() < 0.3 ? 0 : rand();
    for (let b = 0; b < cols; b++) data[v * cols + b] /= sum;
  }
  const locked = Uint8Array.from([0, 1, 0, 0, 0, 0, 1, 0, 0]);
  for (const k of [1, 3, 4, 6]) {
    const ours = limitInfluences({ rows, cols, data }, k, locked);
    const paint = { vertexCount: rows, boneCount: cols, data: Float32Array.from(data) };
    const settings: PaintSettings = { locked, maxInfluences: k };
    const failed = enforceWeightInvariants(paint, allRows(rows), rows, -1, settings);
    assert.equal(ours.unrepaired, failed, `K = ${k}: the same rows cannot be repaired`);
    let worst = 0;
    let worstSum = 0;
    for (let v = 0; v < rows; v++) {
      if (rowSumOf(data, v, cols, locked) >= 1) continue;
      let sum = 0;
      for (let b = 0; b < cols; b++) {
        worst = Math.max(worst, Math.abs(ours.weights.data[v * cols + b] - paint.data[v * cols + b]));
        sum += paint.data[v * cols + b];
      }
      worstSum = Math.max(worstSum, Math.abs(sum - 1));
    }
    assert.ok(worst < 1e-6, `K = ${k}: the two limiters differ by ${worst} at most (float32 rounding)`);
    assert.ok(worstSum < 1e-5, `K = ${k}: Limit total's rows sum to 1 within ${worstSum}, two locked bones or not`);
  }
});

function rowSumOf(data: Float64Array, v: number, cols: number, locked: Uint8Array): number {
  let sum = 0;
  for (let b = 0; b < cols; b++) if (locked[b]) sum += data[v * cols + b];
  return sum;
}

test('the body: the export dialog’s count is a direct count, and limiting keeps a partition of unity and the locks', () => {
  const body = contextAwareBody();
  const weights = body.weights;
  // The exporter's own count of the vertices whose weights it drops (its warning after export).
  const direct = droppedWeight(weights, 4).vertices;
  assert.ok(direct > 1000, `the body's harmonic weights have ${direct} vertices with more than 4 influences`);
  assert.equal(verticesOverInfluences(weights, 4), direct, 'the dialog counts what the exporter drops');
  const note = exportInfluenceNote(4, verticesOverInfluences(weights, 4), mostInfluences(weights));
  const grouped = String(direct).replace(/\B(?=(\d{3})+(?!\d))/g, '\u2009');
  assert.ok(
    note.startsWith(`Weights are limited to 4 influences per vertex: ${grouped} vertices have more; their smallest weights are dropped`),
    note,
  );
  assert.match(note, /one joint set \(JOINTS_0 \/ WEIGHTS_0\)/);
  assert.match(exportInfluenceNote(6, 0, 6), /every vertex has 6 or fewer\. Written as two joint sets/);
  assert.equal(mostInfluences(weights), Math.max(...nonZeroPerRow(weights)), 'the most any vertex of the body has');
  // A limit above four writes a second set only where a vertex keeps more than four.
  assert.match(exportInfluenceNote(6, 0, 3), /Written as one joint set \(JOINTS_0 \/ WEIGHTS_0\): no vertex has more than 4\.$/);

  const locked = new Uint8Array(body.boneCount);
  locked[5] = 1;
  locked[20] = 1;
  const { weights: limited, limited: count, unrepaired } = limitInfluences(weights, 4, locked);
  assert.equal(count, direct, 'every row over the limit is limited, no other');
  assert.equal(verticesOverInfluences(limited, 4), 0);
  let worstSum = 0;
  for (let v = 0; v < limited.rows; v++) {
    worstSum = Math.max(worstSum, Math.abs(rowSum(limited, v) - 1));
    for (const b of [5, 20])
      assert.equal(limited.data[v * weights.cols + b], weights.data[v * weights.cols + b], `vertex ${v}: locked bone ${b} kept`);
  }
  assert.ok(worstSum < 1e-12, `every row sums to 1 within ${worstSum}`);
  assert.equal(unrepaired, 0, 'no row of the body is left off 1');
  for (let i = 0; i < limited.data.length; i++) assert.ok(limited.data[i] >= 0, `weight ${i} is not negative`);
});

test('the body with a locked bone using the whole limit: rows keep Σ = 1 with their largest other bone beyond K', () => {
  const body = contextAwareBody();
  const { rows, cols, data } = body.weights;
  const locked = new Uint8Array(cols);
  locked[5] = 1;
  // By hand: a row with bone 5 in (0, 1) and another weight keeps bone 5 and its largest other bone, which takes 1 − w5.
  let expectedOver = 0;
  const expectedRows: { v: number; other: number }[] = [];
  for (let v = 0; v < rows; v++) {
    const w5 = data[v * cols + 5];
    let other = -1;
    for (let b = 0; b < cols; b++)
      if (b !== 5 && data[v * cols + b] > 0 && (other < 0 || data[v * cols + b] > data[v * cols + other])) other = b;
    if (w5 > 0 && other >= 0) {
      expectedOver++;
      expectedRows.push({ v, other });
    }
  }
  assert.ok(expectedOver > 1000, `${expectedOver} rows of the body weigh bone 5 and another`);
  for (const limit of [1, 2]) {
    const result = limitInfluences(body.weights, limit, locked);
    let worstSum = 0;
    for (let v = 0; v < rows; v++) worstSum = Math.max(worstSum, Math.abs(rowSum(result.weights, v) - 1));
    assert.ok(worstSum < 1e-12, `K = ${limit}: every row sums to 1 within ${worstSum}`);
    assert.equal(result.unrepaired, 0, `K = ${limit}: no row left off 1`);
    if (limit !== 1) continue;
    assert.equal(result.keptOverLimit, expectedOver, 'the rows whose locked bone uses the limit are counted');
    for (const { v, other } of expectedRows) {
      const w5 = data[v * cols + 5];
      assert.equal(result.weights.data[v * cols + 5], w5, `vertex ${v}: the locked weight stays`);
      assert.ok(Math.abs(result.weights.data[v * cols + other] - (1 - w5)) < 1e-12, `vertex ${v}: bone ${other} takes 1 − w5`);
    }
  }
});

function limitSetup(doc: SceneDocument = demoDocument()) {
  const history = new UndoHistory();
  const store = new SceneStore(doc, history);
  const settings: PaintSettings = { locked: new Uint8Array(doc.skeleton.parents.length), maxInfluences: 4 };
  const heard: number[] = [];
  const limit = new MaxInfluences({ store, paintSettings: () => settings, changed: (count) => void heard.push(count) });
  return { history, store, settings, heard, limit };
}

test('setting the max influences limits the weights in the same undo step; undo and redo bring both back', () => {
  const body = contextAwareBody();
  const doc = withDerived({
    ...demoDocument(),
    name: 'body',
    mesh: body.mesh,
    skeleton: body.skeleton,
    weights: body.weights,
    handles: null,
    poses: null,
  });
  const { history, store, settings, heard, limit } = limitSetup(doc);
  const before = store.doc.weights;
  const over3 = nonZeroPerRow(before).filter((count) => count > 3).length;
  assert.equal(limit.verticesOver(), nonZeroPerRow(before).filter((count) => count > 4).length);

  limit.set(3);
  const grouped = String(over3).replace(/\B(?=(\d{3})+(?!\d))/g, '\u2009');
  assert.deepEqual(history.undoLabels(), [`Max influences 4 → 3, ${grouped} vertices limited`]);
  assert.equal(settings.maxInfluences, 3);
  assert.equal(limit.verticesOver(), 0, 'no vertex has more than 3 now');
  assert.equal(verticesOverInfluences(store.doc.weights, 3), 0);
  const limited = store.doc.weights;

  limit.set(5);
  assert.deepEqual(history.undoLabels().at(-1), 'Max influences 3 → 5', 'raising drops nothing');
  assert.equal(store.doc.weights, limited, 'raising keeps the weights');

  history.undo();
  history.undo();
  assert.equal(settings.maxInfluences, 4);
  assert.equal(store.doc.weights, before, 'undo puts the weights before back');
  history.redo();
  assert.equal(store.doc.weights, limited);
  assert.equal(settings.maxInfluences, 3);
  assert.deepEqual(heard, [3, 5, 3, 4, 3], 'every change is heard, undo and redo included');

  limit.set(3);
  assert.equal(history.undoLabels().length, 1, 'setting the value it has is no step');
});

test('a new scene starts with the user’s default max influences: no undo step, the weights as they came', () => {
  const { history, store, settings, heard, limit } = limitSetup();
  const weights = store.doc.weights;
  limit.startWith(1);
  assert.equal(settings.maxInfluences, 1);
  assert.deepEqual(heard, [1]);
  assert.equal(history.undoLabels().length, 0, 'no undo step');
  assert.equal(store.doc.weights, weights, 'the weights stay as they came');
  assert.equal(limit.verticesOver(), verticesOverInfluences(weights, 1), 'the panel counts the vertices over it');
  assert.throws(() => limit.startWith(0), /Default max influences: 0 is not one of 1, 2, 3, 4, 5, 6, 7, 8/);
});

test('lowering the max influences below the locked bones says which vertices keep more, and keeps their sums', () => {
  const body = contextAwareBody();
  const paintLocks = new Uint8Array(body.boneCount);
  paintLocks[5] = 1;
  const doc = withDerived({
    ...demoDocument(),
    name: 'body',
    mesh: body.mesh,
    skeleton: body.skeleton,
    weights: body.weights,
    handles: null,
    poses: null,
    paintLocks,
  });
  const { history, store, limit } = limitSetup(doc);
  const { cols, data } = body.weights;
  let keep = 0;
  for (let v = 0; v < body.weights.rows; v++) {
    const row = data.subarray(v * cols, (v + 1) * cols);
    if (row[5] > 0 && row.some((w, b) => b !== 5 && w > 0)) keep++;
  }
  limit.set(1);
  const grouped = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, '\u2009');
  const over1 = nonZeroPerRow(body.weights).filter((count) => count > 1).length;
  assert.deepEqual(history.undoLabels(), [
    `Max influences 4 → 1, ${grouped(over1)} vertices limited; ${grouped(keep)} vertices keep more than 1: their locked bones already use the limit`,
  ]);
  let worstSum = 0;
  for (let v = 0; v < store.doc.weights.rows; v++) worstSum = Math.max(worstSum, Math.abs(rowSum(store.doc.weights, v) - 1));
  assert.ok(worstSum < 1e-12, `every row sums to 1 within ${worstSum}`);
});

test('a computation is limited without the paint locks: every row keeps at most K', () => {
  const body = contextAwareBody();
  const paintLocks = new Uint8Array(body.boneCount);
  paintLocks[5] = 1;
  const doc = withDerived({
    ...demoDocument(),
    name: 'body',
    mesh: body.mesh,
    skeleton: body.skeleton,
    weights: body.weights,
    handles: null,
    poses: null,
    paintLocks,
  });
  const { limit, settings } = limitSetup(doc);
  settings.maxInfluences = 1;
  const limited = limit.limit(body.weights);
  assert.equal(verticesOverInfluences(limited, 1), 0, 'no vertex keeps more than 1, bone 5 locked or not');
  for (let v = 0; v < limited.rows; v++) assert.ok(Math.abs(rowSum(limited, v) - 1) < 1e-12, `vertex ${v} sums to 1`);
});

test('the export dialog’s joint sets are the exporter’s: two only where a vertex keeps more than four', () => {
  const body = contextAwareBody();
  const bodyDoc = withDerived({
    ...demoDocument(),
    name: 'body',
    mesh: body.mesh,
    skeleton: body.skeleton,
    weights: body.weights,
    handles: null,
    poses: null,
  });
  for (const doc of [demoDocument(), bodyDoc]) {
    const { limit, settings } = limitSetup(doc);
    for (const k of [1, 4, 5, 6, 8]) {
      settings.maxInfluences = k;
      // gltf-export.ts writes four slots while the influences' stride (min(K, most)) is four or fewer, else eight.
      const exporterSets = influencesFromWeights(doc.weights, k).stride <= 4 ? 1 : 2;
      assert.equal(limit.exportJointSets(), exporterSets, `${doc.name}, K = ${k}`);
    }
  }
  const demo = demoDocument();
  const three = withDerived({ ...demo, weights: limitInfluences(demo.weights, 3, null).weights });
  const { limit, settings } = limitSetup(three);
  settings.maxInfluences = 6;
  assert.equal(mostInfluences(three.weights), 3, 'weights limited to three');
  assert.equal(limit.exportJointSets(), 1, 'K = 6 over weights of three bones writes one joint set: no second-set warning');
});

test('raising the max influences limits nothing; Limit now limits the weights over it as one undo step', () => {
  const body = contextAwareBody();
  const doc = withDerived({
    ...demoDocument(),
    name: 'body',
    mesh: body.mesh,
    skeleton: body.skeleton,
    weights: body.weights,
    handles: null,
    poses: null,
  });
  const { history, store, limit } = limitSetup(doc);
  limit.startWith(2);
  const loaded = store.doc.weights;
  limit.set(3);
  assert.deepEqual(history.undoLabels(), ['Max influences 2 → 3'], 'raising names no limiting');
  assert.equal(store.doc.weights, loaded, 'raising keeps the weights, over the new limit or not');
  const over3 = nonZeroPerRow(loaded).filter((count) => count > 3).length;
  assert.ok(over3 > 1000, `${over3} body vertices have more than 3`);
  assert.equal(limit.verticesOver(), over3, 'the Bind panel counts them');

  assert.equal(limit.limitNow(), true);
  const grouped = String(over3).replace(/\B(?=(\d{3})+(?!\d))/g, '\u2009');
  assert.deepEqual(history.undoLabels(), ['Max influences 2 → 3', `Limit to 3 influences, ${grouped} vertices limited`]);
  assert.equal(verticesOverInfluences(store.doc.weights, 3), 0);
  for (let v = 0; v < store.doc.weights.rows; v++) assert.ok(Math.abs(rowSum(store.doc.weights, v) - 1) < 1e-12, `vertex ${v} sums to 1`);
  assert.equal(limit.limitNow(), false, 'nothing over the limit: no step');
  assert.equal(history.undoLabels().length, 2);
  history.undo();
  assert.equal(store.doc.weights, loaded, 'undo brings the weights back');
  assert.equal(limit.value, 3, 'and leaves the limit');
});

test('every new scene starts from the default limit, the skeleton kept or not; the user’s default then applies', () => {
  const store = new SceneStore(demoDocument(), new UndoHistory());
  const paint = headlessPaintController(store);
  const limit = new MaxInfluences({ store, paintSettings: () => paint.settings, changed: () => undefined });
  limit.set(2);
  assert.equal(limit.value, 2);
  // A new scene with the same skeleton object (a new mesh over the rig): the limit does not carry over.
  store.open({ ...store.doc, name: 'again' }, 'Open');
  assert.equal(limit.value, MAX_INFLUENCES_DEFAULT, 'the default, not the last scene’s 2');
  limit.startWith(6);
  assert.equal(paint.settings.maxInfluences, 6, 'the user’s default, which the shell applies on every new scene');
});

test('NaN weights count as zero, as the exporter counts them: the dialog, the panel and the limit agree with it', () => {
  const weights = { rows: 3, cols: 4, data: Float64Array.from([0.5, NaN, 0.5, 0, NaN, 0.2, 0.3, 0.5, 0.25, 0.25, 0.25, 0.25]) };
  for (const k of [1, 2, 3]) assert.equal(verticesOverInfluences(weights, k), droppedWeight(weights, k).vertices, `K = ${k}`);
  assert.equal(verticesOverInfluences(weights, 3), 1, 'only the row of four numbers has more than 3');
  assert.equal(mostInfluences(weights), influencesFromWeights(weights, 0).stride, 'the most, as the influences’ stride');
  const limited = limitInfluences(weights, 2, null);
  assert.equal(limited.limited, 2, 'rows 1 and 2; row 0 has two numbers and a NaN');
  assert.ok(Number.isNaN(limited.weights.data[1]), 'a row within the limit is copied as it is');
  const row1 = [0, 0, 0.3 / 0.8, 0.5 / 0.8];
  row1.forEach((w, b) => assert.ok(Math.abs(limited.weights.data[4 + b] - w) < 1e-15, `row 1, bone ${b}: a limited row loses its NaN`));
});

test('the volumetric binding keeps the scene’s max influences (6 on the hand, over the binding’s default 4); rigwright weights keeps the app’s default 4', async () => {
  const files = [dataFile('hand', 'hand.off'), dataFile('hand', 'hand.tgf')];
  const doc = await sceneFromFiles(files.map((file) => ({ name: path.basename(file), bytes: new Uint8Array(readFileSync(file)) })));
  const store = new SceneStore(doc, new UndoHistory());
  const commands = headlessRegistry(store);
  await commands.execute('bind.maxInfluences', 6);
  await commands.execute('bind.compute', { method: 'volumetric', voxelResolution: 64 });
  const { positions, triangles } = doc.mesh;
  const direct = volumetricWeights(positions, triangles, doc.skeleton, { resolution: 64, maxInfluences: 6 });
  assert.deepEqual(store.doc.weights.data, direct.weights, 'Compute weights gives the binding kept to 6 bones');
  assert.equal(mostInfluences(store.doc.weights), 6, 'some vertex of the hand has 6 bones');

  const out = path.join(mkdtempSync(path.join(tmpdir(), 'rigwright-influences-')), 'hand.dmat');
  let stderr = '';
  const status = await runCli(
    ['weights', '--mesh', files[0], '--skeleton', files[1], '--method', 'volumetric', '--voxel-resolution', '64', '--out', out],
    { stdout: { write: () => undefined }, stderr: { write: (text: string) => (stderr += text) } },
  );
  assert.equal(status, 0, stderr);
  const written = readDmat(new Uint8Array(readFileSync(out)), out);
  // The command binds with the app's options: the default bones per vertex, as a Compute with the default setting.
  const kept = VOLUMETRIC_WEIGHTS_DEFAULTS.maxInfluences;
  const all = volumetricWeights(positions, triangles, doc.skeleton, { resolution: 64, maxInfluences: kept });
  let worst = 0;
  for (let i = 0; i < all.weights.length; i++) worst = Math.max(worst, Math.abs(written.data[i] - all.weights[i]));
  assert.ok(worst <= 1e-9, `the file has the binding kept to ${kept} bones (worst ${worst})`);
  assert.equal(mostInfluences(written), kept, `some vertex has ${kept} bones in the file`);
});
