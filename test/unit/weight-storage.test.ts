/**
 * Weights a script sets as rows are held as those rows (weight-storage.ts): laid out canonically, read back without
 * the dense matrix, the dense matrix made from them only when read, right after painting writes into it, and an undo
 * step that keeps only what exists. Expectations are built by hand (the slots of a few vertices sorted on paper) and
 * with the dense path the scene had before (weightRowsFromDense of a dense matrix filled slot by slot here).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DenseMatrix } from '../../workers/formats/types.ts';
import { vertexCountOf, type SceneDocument } from '../../workers/scene/scene-document.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';
import { forgetHeldRows, heldRowsOf, isDenseMade, weightArrays, weightsHoldingRows } from '../../workers/scene/weight-storage.ts';
import type { ScriptCalls, WeightRows } from '../../workers/script/script-api.ts';
import { sceneScriptCalls } from '../../workers/script/script-scene-calls.ts';
import { canonicalWeightRows, weightRowsFromDense } from '../../workers/script/weight-rows.ts';
import { handDocument } from './full-documents.ts';

function callsOn(doc: SceneDocument, argumentsHandedOver = false): { store: SceneStore; calls: ScriptCalls } {
  const store = new SceneStore(doc, new UndoHistory());
  const none = () => Promise.reject(new Error('not in this test'));
  const calls = sceneScriptCalls({
    store,
    execute: none,
    files: { 'files.open': none, 'files.saveProject': none, 'files.exportGltf': none },
    argumentsHandedOver,
  });
  return { store, calls };
}

/** Whether two Float64Arrays hold the same bits (the sign of zero included). */
function sameBits(a: Float64Array, b: Float64Array): boolean {
  if (a.length !== b.length) return false;
  const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  return x.every((byte, i) => byte === y[i]);
}

/** Rows for the hand (#V × 20): vertex v gets 3 slots in a scrambled order, one of them sometimes empty or ±0. */
function scrambledHandRows(vertexCount: number): WeightRows {
  const bones = new Int32Array(vertexCount * 3);
  const values = new Float64Array(vertexCount * 3);
  for (let v = 0; v < vertexCount; v++) {
    const a = v % 20;
    const b = (v * 7 + 3) % 20 === a ? (a + 1) % 20 : (v * 7 + 3) % 20;
    const c = [a, b].includes((v * 13 + 11) % 20) ? (Math.max(a, b) + 1) % 20 : (v * 13 + 11) % 20;
    const third = v % 5 === 0 ? -0 : v % 5 === 1 ? 0.25 : 0.125 * (v % 3);
    // smallest first, and for v % 4 === 2 the two larger equal (a tie, resolved by bone)
    bones.set([c === a || c === b ? -1 : c, b, a], 3 * v);
    values.set([c === a || c === b ? 0 : third, 0.25, v % 4 === 2 ? 0.25 : 0.5], 3 * v);
  }
  return { vertexCount, boneCount: 20, influences: 3, bones, values };
}

/** The dense matrix the rows stand for, slot by slot (what the scene stored before it held rows). */
function denseByHand(rows: WeightRows): DenseMatrix {
  const data = new Float64Array(rows.vertexCount * rows.boneCount);
  for (let v = 0; v < rows.vertexCount; v++)
    for (let s = 0; s < rows.influences; s++) {
      const i = v * rows.influences + s;
      if (rows.bones[i] >= 0 && rows.values[i] !== 0) data[v * rows.boneCount + rows.bones[i]] = rows.values[i];
    }
  return { rows: rows.vertexCount, cols: rows.boneCount, data };
}

test('rows a script sets are held canonically: read back without a dense matrix, equal to reading the dense one', () => {
  const doc = handDocument();
  const V = vertexCountOf(doc);
  const { store, calls } = callsOn(doc);
  const given = scrambledHandRows(V);
  const givenCopy = { ...given, bones: given.bones.slice(), values: given.values.slice() };
  calls['scene.setWeights'](given);
  const weights = store.doc.weights;
  assert.ok(heldRowsOf(weights), 'the scene holds rows');
  assert.equal(isDenseMade(weights), false, 'no dense matrix yet');

  const back = calls['scene.weights']();
  assert.equal(isDenseMade(weights), false, 'reading the rows makes no dense matrix');
  assert.notEqual(back.bones, given.bones, 'fresh arrays, not the ones given (not handed over)');
  assert.deepEqual(given, givenCopy, 'the given rows are untouched');
  // Hand-checked: vertex 2 has a = 2, b = 17, c = 37 mod 20 = 17 = b, so 18; values c 0.125·2, b 0.25, a 0.25 (a tie):
  // all three 0.25, so in bone order.
  assert.deepEqual(Array.from(back.bones.subarray(6, 9)), [2, 17, 18]);
  assert.deepEqual(Array.from(back.values.subarray(6, 9)), [0.25, 0.25, 0.25]);
  // vertex 0: a = 0, b = 3, c = 11 with -0: no weight, so a 0.5 then b 0.25 then an empty slot.
  assert.deepEqual(
    [Array.from(back.bones.subarray(0, 3)), Array.from(back.values.subarray(0, 3))],
    [
      [0, 3, -1],
      [0.5, 0.25, 0],
    ],
  );

  // The same as the dense path: the dense matrix the rows stand for, read as rows.
  const reference = weightRowsFromDense(denseByHand(given));
  assert.equal(back.influences, reference.influences);
  assert.deepEqual(Array.from(back.bones), Array.from(reference.bones));
  assert.ok(sameBits(back.values, reference.values), 'values bit for bit');

  // The dense matrix, once read, is the hand-built one (+0 where the rows had -0) and the rows stay held.
  assert.ok(sameBits(weights.data, denseByHand(given).data), 'dense data made from the rows');
  assert.equal(isDenseMade(weights), true);
  assert.equal(weights.data, weights.data, 'made once: the same array on every read');
  assert.ok(heldRowsOf(weights), 'reading the dense matrix keeps the rows');
});

test('rows handed over (a ScriptHost’s) are kept without a copy when canonical, laid out afresh when not', () => {
  const doc = handDocument();
  const V = vertexCountOf(doc);
  const canonical = weightRowsFromDense(denseByHand(scrambledHandRows(V)));
  const { store, calls } = callsOn(doc, true);
  calls['scene.setWeights'](canonical);
  assert.equal(heldRowsOf(store.doc.weights)?.bones, canonical.bones, 'canonical rows handed over are kept as they are');
  assert.equal(heldRowsOf(store.doc.weights)?.values, canonical.values);

  const scrambled = scrambledHandRows(V);
  calls['scene.setWeights'](scrambled);
  assert.notEqual(heldRowsOf(store.doc.weights)?.bones, scrambled.bones, 'rows out of order are laid out afresh');
  // Wider than needed (a 4th empty slot everywhere): narrowed to the most any vertex uses, so copied.
  const wide: WeightRows = {
    ...canonical,
    influences: canonical.influences + 1,
    bones: new Int32Array(V * (canonical.influences + 1)).fill(-1),
    values: new Float64Array(V * (canonical.influences + 1)),
  };
  for (let v = 0; v < V; v++)
    for (let s = 0; s < canonical.influences; s++) {
      wide.bones[v * wide.influences + s] = canonical.bones[v * canonical.influences + s];
      wide.values[v * wide.influences + s] = canonical.values[v * canonical.influences + s];
    }
  calls['scene.setWeights'](wide);
  const held = heldRowsOf(store.doc.weights)!;
  assert.equal(held.influences, canonical.influences, 'narrowed to the slots used');
  assert.deepEqual(Array.from(held.bones), Array.from(canonical.bones));

  // Handed over or not, bad rows get the same messages.
  const bad = { ...canonical, values: canonical.values.slice() };
  bad.values[7] = NaN;
  const slot = 7 % canonical.influences;
  const vertex = Math.floor(7 / canonical.influences);
  assert.throws(
    () => calls['scene.setWeights'](bad),
    new RegExp(`^Error: scene\\.setWeights: vertex ${vertex}, slot ${slot}: the weight NaN is not a finite number$`),
  );
  // Values of another type in an Array: refused as before, not turned into numbers.
  assert.throws(
    () => canonicalWeightRows({ vertexCount: 1, boneCount: 2, influences: 1, bones: [0] as never, values: ['1'] as never }, 1, 2, 't'),
    /^Error: t: vertex 0, slot 0: the weight 1 is not a finite number$/,
  );
});

test('the undo step of a set holds the rows alone; painting written into the dense matrix forgets the rows', () => {
  const doc = handDocument();
  const V = vertexCountOf(doc);
  const { store, calls } = callsOn(doc);
  const before = store.history.bytes;
  calls['scene.setWeights'](scrambledHandRows(V));
  const weights = store.doc.weights;
  const rowBytes = heldRowsOf(weights)!.bones.byteLength + heldRowsOf(weights)!.values.byteLength;
  assert.equal(store.history.bytes - before, rowBytes + doc.weights.data.byteLength, 'the step: the new rows and the old matrix');
  assert.deepEqual(weightArrays(weights), [heldRowsOf(weights)!.bones, heldRowsOf(weights)!.values]);

  // Painting: rows of data written in place, then announced. Reads then see the painted values.
  const data = weights.data;
  data.fill(0, 5 * 20, 6 * 20);
  data[5 * 20 + 17] = 1;
  store.weightRowsEdited([5], 1);
  assert.equal(heldRowsOf(store.doc.weights), null, 'the rows are forgotten');
  const back = calls['scene.weights']();
  const k = back.influences;
  assert.deepEqual(Array.from(back.bones.subarray(5 * k, 5 * k + 2)), [17, -1], 'the painted vertex');
  assert.deepEqual(Array.from(back.values.subarray(5 * k, 5 * k + 2)), [1, 0]);
  assert.ok(sameBits(store.doc.weights.data, data), 'the same matrix, still the document’s');

  // Undo puts the old matrix back; redo the held one, whose dense matrix is the painted one now.
  store.history.undo();
  assert.equal(store.doc.weights, doc.weights);
  store.history.redo();
  assert.equal(store.doc.weights.data[5 * 20 + 17], 1);
});

test('a held matrix spreads, clones and forgets like any other: its data read when needed', () => {
  const rows = canonicalWeightRows(
    { vertexCount: 2, boneCount: 3, influences: 2, bones: new Int32Array([2, 0, 1, -1]), values: new Float64Array([0.75, 0.25, 1, 0]) },
    2,
    3,
    't',
  );
  const expected = [0.25, 0, 0.75, 0, 1, 0];
  const spread = { ...weightsHoldingRows(2, 3, rows) };
  assert.deepEqual(Array.from(spread.data), expected, 'a spread copy has the dense data');
  const cloned = structuredClone(weightsHoldingRows(2, 3, rows));
  assert.deepEqual([cloned.rows, cloned.cols, Array.from(cloned.data)], [2, 3, expected], 'a clone (postMessage) too');
  const forgotten = weightsHoldingRows(2, 3, rows);
  forgetHeldRows(forgotten);
  assert.equal(heldRowsOf(forgotten), null);
  assert.deepEqual(Array.from(forgotten.data), expected, 'forgetting made the dense data first');
  assert.equal(isDenseMade({ rows: 1, cols: 1, data: new Float64Array(1) }), true, 'a plain matrix is dense');
});
