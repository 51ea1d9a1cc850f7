/**
 * What a script reads of the scene and writes to it (sceneScriptCalls, weight-rows.ts), on the course hand and on
 * CesiumMan as the app opens it. Expectations come from the data files read here without the app's readers (the OFF
 * header's counts, the TGF joints, the handle DMAT's labels), from rows built the slow obvious way (sort each
 * vertex's non-zero weights), from the CLI's `rigwright skin` run as users run it, and from the viewport's own
 * CPU reference (renderer/deform) for bone scales and hand-posed bones.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeDmatBinary } from '../../workers/formats/dmat.ts';
import type { DenseMatrix } from '../../workers/formats/types.ts';
import { boneNamesOf } from '../../workers/scene/bone-fields.ts';
import { boneCountOf, vertexCountOf, type SceneDocument } from '../../workers/scene/scene-document.ts';
import { pruneWeightsEdit } from '../../workers/scene/scene-edits.ts';
import { SceneStore, type SceneChange } from '../../workers/scene/scene-store.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';
import { influencesFromWeights } from '../../workers/skinning/influences.ts';
import type { ScriptCalls, WeightRows } from '../../workers/script/script-api.ts';
import { sceneScriptCalls } from '../../workers/script/script-scene-calls.ts';
import { denseFromWeightRows, weightRowsFromDense } from '../../workers/script/weight-rows.ts';
import { CpuReference } from '../../renderer/deform/cpu-reference.ts';
import { PoseEvaluator } from '../../renderer/deform/pose-evaluator.ts';
import { fullCesiumMan, handDocument } from './full-documents.ts';
import { dataFile, repoRoot } from './shared-data.ts';

const work = mkdtempSync(path.join(tmpdir(), 'rigwright-script-scene-'));

function callsOn(doc: SceneDocument, skinMethod?: () => 'lbs' | 'dqs'): { store: SceneStore; calls: ScriptCalls; executed: unknown[][] } {
  const store = new SceneStore(doc, new UndoHistory());
  const executed: unknown[][] = [];
  const calls = sceneScriptCalls({
    store,
    execute: (id, argument) => {
      executed.push([id, argument]);
      return Promise.resolve(`ran ${id}`);
    },
    files: {
      'files.open': (paths) => {
        executed.push(['open', paths]);
        return Promise.resolve();
      },
      'files.saveProject': (file) => Promise.resolve(`saved ${file}`),
      'files.exportGltf': (file, options) => Promise.resolve(`exported ${file} ${JSON.stringify(options)}`),
    },
    ...(skinMethod ? { skinMethod } : {}),
  });
  return { store, calls, executed };
}

/** The hand with its bone-distance weights pruned below 0.05 (the app's prune), so rows have 1 to several slots. */
function prunedHand(): SceneDocument {
  const doc = handDocument();
  const edit = pruneWeightsEdit(doc, 0.05, { locked: null, maxInfluences: 0 });
  assert.ok(edit, 'pruning the hand’s bone-distance weights at 0.05 changes rows');
  return { ...doc, ...edit.fields };
}

/** Rows the slow obvious way: each vertex's non-zero weights as objects, sorted by value down, then bone up. */
function referenceRows(weights: DenseMatrix): { bone: number; value: number }[][] {
  const rows: { bone: number; value: number }[][] = [];
  for (let v = 0; v < weights.rows; v++) {
    const row: { bone: number; value: number }[] = [];
    for (let b = 0; b < weights.cols; b++) {
      const value = weights.data[v * weights.cols + b];
      if (value !== 0) row.push({ bone: b, value });
    }
    rows.push(row.sort((x, y) => y.value - x.value || x.bone - y.bone));
  }
  return rows;
}

/** Whether two Float64Arrays hold the same bits (NaN payloads and the sign of zero included). */
function sameBits(a: Float64Array, b: Float64Array): boolean {
  if (a.length !== b.length) return false;
  const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  return x.every((byte, i) => byte === y[i]);
}

test('weights as rows: each vertex’s non-zero weights largest first, unused slots bone -1 and 0, back to the same bits', () => {
  const doc = prunedHand();
  const rows = weightRowsFromDense(doc.weights);
  const reference = referenceRows(doc.weights);
  const most = Math.max(...reference.map((r) => r.length));
  const fewest = Math.min(...reference.map((r) => r.length));
  assert.ok(fewest < most, `the pruned hand has rows of ${fewest} to ${most} weights, so unused slots occur`);
  assert.equal(rows.vertexCount, 4780);
  assert.equal(rows.boneCount, 20);
  assert.equal(rows.influences, most, 'slots per vertex: the most non-zero weights any vertex has');
  for (let v = 0; v < rows.vertexCount; v++) {
    for (let s = 0; s < rows.influences; s++) {
      const want = reference[v][s] ?? { bone: -1, value: 0 };
      const i = v * rows.influences + s;
      if (rows.bones[i] !== want.bone || !Object.is(rows.values[i], want.value))
        assert.fail(`vertex ${v} slot ${s}: (${rows.bones[i]}, ${rows.values[i]}), expected (${want.bone}, ${want.value})`);
    }
  }
  const back = denseFromWeightRows(rows, 4780, 20, 'test');
  assert.ok(sameBits(back, doc.weights.data), 'rows → dense gives the document’s weights bit for bit');
  assert.notEqual(back, doc.weights.data, 'a fresh array');

  // The unpruned hand: every bone has weight at every vertex, 20 slots each.
  const full = handDocument().weights;
  const fullRows = weightRowsFromDense(full);
  assert.equal(fullRows.influences, 20);
  assert.ok(sameBits(denseFromWeightRows(fullRows, 4780, 20, 'test'), full.data), 'the full hand’s weights round-trip bit for bit');
});

test('rows → dense keeps any float64 bits, in any slot order and with any slot count; rows of no bones have one empty slot', () => {
  // Values with every mantissa bit used, subnormals and negatives: kept exactly, wherever the slot is.
  const values = new Float64Array([Math.PI / 7, 5e-324, -0.1, 0, 1 - 2 ** -53, 0.3, 0, 0, 2 ** -1074 * 3]);
  const bones = new Int32Array([2, 0, 1, -1, 3, 0, -1, -1, 1]);
  const rows: WeightRows = { vertexCount: 3, boneCount: 4, influences: 3, bones, values };
  const dense = denseFromWeightRows(rows, 3, 4, 'test');
  const expected = new Float64Array([5e-324, -0.1, Math.PI / 7, 0, 0.3, 0, 0, 1 - 2 ** -53, 0, 2 ** -1074 * 3, 0, 0]);
  assert.ok(sameBits(dense, expected), `dense ${Array.from(dense).join(', ')}`);
  const again = weightRowsFromDense({ rows: 3, cols: 4, data: dense });
  assert.equal(again.influences, 3);
  assert.deepEqual(Array.from(again.bones), [2, 0, 1, 3, 0, -1, 1, -1, -1], 'largest first; -0.1 after the positives');
  // Rows that need more slots the further down they are (the rows so far laid out again, several times), with ties.
  const growing: DenseMatrix = { rows: 60, cols: 12, data: new Float64Array(720) };
  for (let v = 0; v < 60; v++)
    for (let k = 0; k <= Math.min(11, Math.floor(v / 5)); k++) growing.data[v * 12 + ((5 * k + v) % 12)] = ((v * 7 + k * 3) % 5) / 4 - 0.25;
  const grown = weightRowsFromDense(growing);
  const expectedRows = referenceRows(growing);
  assert.equal(grown.influences, Math.max(...expectedRows.map((r) => r.length)));
  for (let v = 0; v < 60; v++) {
    const slots = Array.from({ length: grown.influences }, (_, s) => expectedRows[v][s] ?? { bone: -1, value: 0 });
    const got = slots.map((_, s) => ({ bone: grown.bones[v * grown.influences + s], value: grown.values[v * grown.influences + s] }));
    assert.deepEqual(got, slots, `vertex ${v}`);
  }
  assert.ok(sameBits(denseFromWeightRows(grown, 60, 12, 'test'), growing.data), 'the growing rows round-trip bit for bit');
  const empty = weightRowsFromDense({ rows: 2, cols: 0, data: new Float64Array(0) });
  assert.deepEqual([empty.influences, Array.from(empty.bones), Array.from(empty.values)], [1, [-1, -1], [0, 0]]);
  assert.equal(
    denseFromWeightRows({ ...rows, influences: 0, bones: new Int32Array(0), values: new Float64Array(0) }, 3, 4, 't').length,
    12,
  );
});

test('bad rows are refused naming the vertex and slot (a repeated bone too: refused, not summed)', () => {
  const base = (): { bones: Int32Array; values: Float64Array } => ({
    bones: new Int32Array([0, 1, 2, -1]),
    values: new Float64Array([0.5, 0.5, 1, 0]),
  });
  const rows = (change: (r: { bones: Int32Array; values: Float64Array }) => void): WeightRows => {
    const r = base();
    change(r);
    return { vertexCount: 2, boneCount: 3, influences: 2, ...r };
  };
  const refused = (r: WeightRows, pattern: RegExp) => assert.throws(() => denseFromWeightRows(r, 2, 3, 'scene.setWeights'), pattern);
  refused(
    rows((r) => (r.bones[2] = 3)),
    /^Error: scene\.setWeights: vertex 1, slot 0: bone 3 is not a bone of the scene \(0 … 2, or -1 for none\)/,
  );
  refused(
    rows((r) => (r.bones[3] = -2)),
    /vertex 1, slot 1: bone -2 is not a bone/,
  );
  refused(
    rows((r) => (r.values[1] = NaN)),
    /vertex 0, slot 1: the weight NaN is not a finite number/,
  );
  refused(
    rows((r) => (r.values[2] = -Infinity)),
    /vertex 1, slot 0: the weight -Infinity is not a finite/,
  );
  refused(
    rows((r) => (r.values[3] = 0.25)),
    /vertex 1, slot 1: a weight of 0\.25 in a slot with no bone/,
  );
  refused(
    rows((r) => (r.bones[1] = 0)),
    /vertex 0: bone 0 is in slots 0 and 1; a vertex names each bone once/,
  );
  refused({ ...rows(() => {}), vertexCount: 3 }, /the rows are for 3 vertices × 3 bones, the scene has 2 × 3/);
  refused({ ...rows(() => {}), influences: 3 }, /bones must hold 6 bone indices \(2 vertices × 3 influences\), not 4/);
  refused({ ...rows(() => {}), values: new Float64Array(3) }, /values must hold 4 weights .*, not 3/);
  refused({ ...rows(() => {}), influences: 1.5 }, /influences must be a whole number ≥ 0, not 1\.5/);
});

test('summary: counts, meshes, clips, weights source and handles as the files give them', async () => {
  const doc = handDocument();
  const { calls } = callsOn(doc);
  const summary = calls['scene.summary']();
  // hand.off's header line: "OFF" then "#V #F #E".
  const header = readFileSync(dataFile('hand', 'hand.off'), 'utf8').split('\n')[1].trim().split(/\s+/).map(Number);
  const tgfEdges = readFileSync(dataFile('hand', 'hand.tgf'), 'utf8')
    .split('#')[1]
    .trim()
    .split('\n')
    .filter((l) => l.trim());
  // hand-handles.dmat: "cols rows" then one label per vertex, -1 for none.
  const labels = readFileSync(dataFile('hand', 'hand-handles.dmat'), 'utf8').trim().split(/\s+/).slice(2).map(Number);
  assert.deepEqual(
    { ...summary, meshes: undefined, clips: undefined },
    {
      name: 'hand.off',
      vertexCount: header[0],
      triangleCount: header[1],
      boneCount: tgfEdges.length,
      meshes: undefined,
      clips: undefined,
      weightsSource: 'bone distance',
      handleCount: labels.filter((l) => l >= 0).length,
    },
  );
  assert.ok(summary.handleCount > 0 && summary.handleCount < header[0], `some vertices are handles (${summary.handleCount})`);
  assert.deepEqual(summary.meshes, [
    { index: 0, name: 'hand.off', firstVertex: 0, vertexCount: header[0], firstTriangle: 0, triangleCount: header[1] },
  ]);
  // hand-pose_matrot.dmat: "3 3·B·L", so L = rows / (3 · 20).
  const poseRows = Number(readFileSync(dataFile('hand', 'hand-pose_matrot.dmat'), 'utf8').split(/\s+/)[1]);
  assert.deepEqual(summary.clips, [{ name: 'hand-pose_matrot.dmat', frameCount: poseRows / 60, shown: true }]);
  assert.deepEqual(callsOn(handDocument('quaternions')).calls['scene.summary']().clips, [
    { name: 'hand-pose_quat.dmat', frameCount: 2, shown: true },
  ]);

  const cesiumDoc = await fullCesiumMan();
  const clip = cesiumDoc.clips?.[0]?.poses;
  assert.ok(clip?.kind === 'matrices', 'CesiumMan’s clip is baked frames');
  const cesium = callsOn(cesiumDoc).calls['scene.summary']();
  assert.deepEqual(cesium.clips, [{ name: 'animation 0', frameCount: clip.frameCount, shown: true }]);
  assert.equal(cesium.meshes.length, 1);
  assert.equal(cesium.meshes[0].name, 'Cesium_Man');
  assert.equal(cesium.handleCount, 0, 'a glTF has no weight-solver handles');
});

test('bones: names, parents, head and tail from the TGF; bone(name) finds one, an unknown name lists the 3 closest', async () => {
  const doc = handDocument();
  const { calls } = callsOn(doc);
  const [nodes, edges] = readFileSync(dataFile('hand', 'hand.tgf'), 'utf8').split('#');
  const joints = nodes
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/).slice(1, 4).map(Number));
  const pairs = edges
    .trim()
    .split('\n')
    .filter((l) => l.trim())
    .map((l) =>
      l
        .trim()
        .split(/\s+/)
        .slice(0, 2)
        .map((i) => Number(i) - 1),
    );
  const bones = calls['scene.bones']();
  assert.equal(bones.length, pairs.length);
  for (const bone of bones) {
    const [start, end] = pairs[bone.index];
    assert.deepEqual([bone.name, bone.head, bone.tail, bone.locked], [`bone ${bone.index}`, joints[start], joints[end], false]);
    // The parent is the bone that ends where this one starts (none for a root).
    const parent = pairs.findIndex(([, e]) => e === start);
    assert.equal(bone.parent, parent, `bone ${bone.index}'s parent`);
  }
  assert.deepEqual(calls['scene.bone']('bone 7'), bones[7]);
  assert.throws(
    () => calls['scene.bone']('bone 33'),
    /^Error: scene\.bone: no bone "bone 33" in the skeleton; the closest names are "bone 3", "bone 13", "bone 0"$/,
  );

  const cesium = await fullCesiumMan();
  const c = callsOn(cesium).calls;
  assert.equal(c['scene.bone']('leg_joint_R_2').index, boneNamesOf(cesium).indexOf('leg_joint_R_2'));
  assert.equal(c['scene.bone']('Skeleton_neck_joint_2').locked, false);
  assert.equal(c['scene.bones']()[1].locked, true, 'bone 1 has a paint lock in this document');
  // Letter case is ignored in the distance: LEG_JOINT_L_5X is one letter from leg_joint_L_5, two from L_1 and L_2.
  assert.throws(
    () => c['scene.bone']('LEG_JOINT_L_5X'),
    /no bone "LEG_JOINT_L_5X" in the skeleton; the closest names are "leg_joint_L_5", "leg_joint_L_1", "leg_joint_L_2"$/,
  );
  assert.throws(() => c['scene.bone'](3 as unknown as string), /scene\.bone: a bone's name is a string, not 3/);
});

test('reads are fresh arrays: changing what a call returned leaves the document as it was', () => {
  const doc = handDocument();
  const { calls, store } = callsOn(doc);
  const before = { weights: doc.weights.data.slice(), positions: doc.mesh.positions.slice(), handles: doc.handles!.slice() };
  const dense = calls['scene.denseWeights']();
  const rest = calls['scene.restPositions']();
  const handles = calls['scene.handles']();
  const rows = calls['scene.weights']();
  assert.ok(sameBits(dense, doc.weights.data) && sameBits(rest, doc.mesh.positions), 'dense weights and rest positions as stored');
  assert.deepEqual(handles, doc.handles);
  for (const array of [dense, rest, rows.values]) array.fill(7);
  handles.fill(3);
  rows.bones.fill(0);
  assert.equal(store.doc, doc, 'no edit');
  assert.ok(
    sameBits(doc.weights.data, before.weights) && sameBits(doc.mesh.positions, before.positions),
    'weights and positions untouched',
  );
  assert.deepEqual(doc.handles, before.handles);
  assert.deepEqual(callsOn({ ...doc, handles: null }).calls['scene.handles'](), new Int32Array(4780).fill(-1), 'no handles: -1 everywhere');
});

test('setWeights is one undo step equal to the direct store edit; undo puts back the very arrays', () => {
  const doc = handDocument();
  const pruned = prunedHand().weights;
  const rows = weightRowsFromDense(pruned);
  const { calls, store } = callsOn(doc);
  const changes: SceneChange[] = [];
  store.subscribe((change) => changes.push(change));
  calls['scene.setWeights'](rows);
  rows.values.fill(0.5);
  assert.deepEqual(store.history.undoLabels(), ['Set weights']);
  assert.ok(sameBits(store.doc.weights.data, pruned.data), 'the rows’ values, bit for bit, untouched by changing the rows after');
  assert.equal(store.doc.weightsSource, 'script');
  assert.equal(changes.length, 1);
  assert.deepEqual(changes[0].kind === 'document' ? [...changes[0].fields].sort() : [], ['weights', 'weightsSource']);

  // The same edit made directly on the store: the same document fields.
  const direct = new SceneStore(doc, new UndoHistory());
  direct.edit('Set weights', { weights: { rows: 4780, cols: 20, data: pruned.data.slice() }, weightsSource: 'script' });
  const { weights: a, ...restA } = store.doc;
  const { weights: b, ...restB } = direct.doc;
  assert.deepEqual([a.rows, a.cols], [b.rows, b.cols]);
  assert.ok(sameBits(a.data, b.data), 'same weights');
  assert.deepEqual(restA, restB);

  assert.equal(store.history.undo(), true);
  assert.equal(store.doc.weights, doc.weights, 'undo restores the same weights object');
  assert.equal(store.doc.weightsSource, doc.weightsSource);
  assert.equal(store.history.redo(), true);
  assert.ok(sameBits(store.doc.weights.data, pruned.data), 'redo');

  // A dense matrix is copied too; a wrong size or a non-finite value is refused with the document unchanged.
  const dense = pruned.data.slice();
  calls['scene.setWeights'](dense);
  dense[0] = 9;
  assert.equal(store.doc.weights.data[0], pruned.data[0]);
  const now = store.doc;
  assert.throws(
    () => calls['scene.setWeights'](new Float64Array(10)),
    /scene\.setWeights: a dense matrix of 10 weights does not fit the scene's 4780 vertices × 20 bones \(95600\)/,
  );
  const bad = pruned.data.slice();
  bad[20 * 17 + 4] = Infinity;
  assert.throws(() => calls['scene.setWeights'](bad), /scene\.setWeights: vertex 17, bone 4: the weight Infinity is not a finite number/);
  assert.throws(
    () => calls['scene.setWeights'](new Float32Array(95600) as unknown as Float64Array),
    /a dense matrix is a Float64Array, not a Float32Array/,
  );
  assert.throws(
    () => calls['scene.setWeights']({ ...rows, boneCount: 19 }),
    /the rows are for 4780 vertices × 19 bones, the scene has 4780 × 20/,
  );
  for (const notWeights of [null, 5, 'weights'])
    assert.throws(
      () => calls['scene.setWeights'](notWeights as unknown as Float64Array),
      /^Error: scene\.setWeights: weights must be rows \(vertexCount, boneCount, influences, bones, values\) or a Float64Array$/,
    );
  assert.equal(store.doc, now, 'refused: no edit');
  assert.equal(store.history.undoCount, 2);
});

test('setHandles is one undo step equal to the direct store edit; bones outside -1 … #B-1 are refused naming the vertex', () => {
  const doc = handDocument();
  const { calls, store } = callsOn(doc);
  const handles = new Int32Array(4780).fill(-1);
  handles[10] = 19;
  handles[4779] = 0;
  calls['scene.setHandles'](handles);
  handles[11] = 4;
  assert.deepEqual(store.history.undoLabels(), ['Set handles']);
  const direct = new SceneStore(doc, new UndoHistory());
  const expected = new Int32Array(4780).fill(-1);
  expected[10] = 19;
  expected[4779] = 0;
  direct.edit('Set handles', { handles: expected, handlesFile: 'script' });
  assert.deepEqual(store.doc, direct.doc, 'the same document fields as the direct edit (the handles copied when given)');
  assert.equal(calls['scene.summary']().handleCount, 2);
  store.history.undo();
  assert.equal(store.doc.handles, doc.handles, 'undo restores the same handles array');
  const wrong = new Int32Array(4780).fill(-1);
  wrong[300] = 20;
  assert.throws(
    () => calls['scene.setHandles'](wrong),
    /^Error: scene\.setHandles: vertex 300: 20 is not a bone of the scene \(0 … 19, or -1 for none\)$/,
  );
  assert.throws(() => calls['scene.setHandles'](new Int32Array(3)), /scene\.setHandles: 3 handle entries, the scene has 4780 vertices/);
  assert.equal(store.history.undoCount, 0);
});

/** Writes a document's weights as a binary DMAT for the CLI. */
function weightsFile(doc: SceneDocument, name: string): string {
  const file = path.join(work, name);
  writeFileSync(file, writeDmatBinary(doc.weights));
  return file;
}

/** `rigwright skin` on the hand, read back from its OBJ (which writes the fewest digits that read back exactly). */
function cliSkin(weights: string, poses: string, timeOption: string[], method: 'lbs' | 'dqs'): Float64Array {
  const out = path.join(work, `skin-${method}-${timeOption.join('')}.obj`);
  const result = spawnSync(
    process.execPath,
    [
      'app/cli/rigwright.mjs',
      'skin',
      '--mesh',
      dataFile('hand', 'hand.off'),
      '--skeleton',
      dataFile('hand', 'hand.tgf'),
      '--weights',
      weights,
      '--poses',
      dataFile('hand', poses),
      ...timeOption,
      '--method',
      method,
      '--out',
      out,
    ],
    { cwd: repoRoot, encoding: 'utf8', timeout: 120_000 },
  );
  assert.equal(result.status, 0, result.stderr);
  const values = readFileSync(out, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('v '))
    .flatMap((l) => l.split(/\s+/).slice(1, 4).map(Number));
  return Float64Array.from(values);
}

function maxDifference(a: Float64Array, b: Float64Array): number {
  assert.equal(a.length, b.length, 'same vertex count');
  let most = 0;
  for (let i = 0; i < a.length; i++) most = Math.max(most, Math.abs(a[i] - b[i]));
  return most;
}

test('skin at a frame of the shown clip equals `rigwright skin` (LBS and DQS, frames and a final pose) to 1e-12', () => {
  const doc = prunedHand();
  const weights = weightsFile(doc, 'hand-pruned.dmat');
  const { calls } = callsOn(doc, () => 'dqs');
  const rest = doc.mesh.positions;
  for (const frame of [0, 33]) {
    for (const method of ['lbs', 'dqs'] as const) {
      const ours = calls['scene.skin']({ method, frame });
      const cli = cliSkin(weights, 'hand-pose_matrot.dmat', ['--frame', String(frame)], method);
      const difference = maxDifference(ours, cli);
      assert.ok(difference <= 1e-12, `frame ${frame}, ${method}: differs from rigwright skin by ${difference}`);
      if (frame === 33) assert.ok(maxDifference(ours, rest) > 0.01, `frame 33 moves the hand (${method})`);
    }
  }
  // The default method is the host's (here DQS), the default clip the shown one, the default frame 0.
  const byDefault = calls['scene.skin']();
  assert.ok(sameBits(byDefault, calls['scene.skin']({ method: 'dqs', clip: 'hand-pose_matrot.dmat', frame: 0 })), 'defaults');

  const quaternions = { ...handDocument('quaternions'), weights: doc.weights };
  const q = callsOn(quaternions).calls;
  const final = q['scene.skin']({ frame: 1 });
  const difference = maxDifference(final, cliSkin(weights, 'hand-pose_quat.dmat', ['--t', '1'], 'lbs'));
  assert.ok(difference <= 1e-12, `the final pose (frame 1) differs from rigwright skin --t 1 by ${difference}`);
  assert.ok(sameBits(q['scene.skin']({ frame: 0 }), rest), 'frame 0 of a final pose is the rest pose');
});

test('skin with bone scales and hand-posed bones equals the viewport’s CPU reference; bad options are refused', async () => {
  const doc = await fullCesiumMan();
  const B = boneCountOf(doc);
  const V = vertexCountOf(doc);
  // Bone 5 posed by hand: a quarter turn about x over the clip.
  const rotations = new Float64Array(9 * B);
  const bones = new Uint8Array(B);
  bones[5] = 1;
  rotations.set([1, 0, 0, 0, 0, -1, 0, 1, 0], 45);
  const posedDoc: SceneDocument = { ...doc, posedBones: { rotations, bones } };
  const { calls } = callsOn(posedDoc);
  const frames = calls['scene.summary']().clips[0].frameCount;
  assert.ok(frames > 10, `CesiumMan's clip has ${frames} frames`);
  const influences = influencesFromWeights(doc.weights, 4);
  const reference = new CpuReference(posedDoc, influences);
  const evaluator = new PoseEvaluator(posedDoc);
  evaluator.boneScales.set(posedDoc.boneScales!);
  for (const frame of [0, 10]) {
    evaluator.evaluate(frame);
    for (const method of ['lbs', 'dqs'] as const) {
      const viewport = reference.positions(method, evaluator, {
        antipodality: 'per-vertex',
        blendWeights: new Float32Array(V),
        context: null,
      });
      const difference = maxDifference(calls['scene.skin']({ method, frame }), viewport);
      assert.ok(difference <= 1e-12, `frame ${frame}, ${method}: differs from the viewport's reference by ${difference}`);
    }
  }
  // The scale and the hand pose matter: without them the result differs.
  const plain = callsOn({ ...doc, boneScales: null }).calls['scene.skin']({ frame: 10 });
  assert.ok(maxDifference(plain, calls['scene.skin']({ frame: 10 })) > 1e-3, 'bone scales and the hand pose change the skinned mesh');

  assert.throws(
    () => calls['scene.skin']({ frame: frames }),
    new RegExp(`scene\\.skin: frame ${frames} is out of range: clip "animation 0" has frames 0 … ${frames - 1}`),
  );
  assert.throws(() => calls['scene.skin']({ frame: 1.5 }), /frame 1\.5 is out of range/);
  assert.throws(() => calls['scene.skin']({ clip: 'walk' }), /scene\.skin: the scene has no clip "walk"; its clips are "animation 0"/);
  assert.throws(() => calls['scene.skin']({ method: 'perface' as 'lbs' }), /scene\.skin: method must be "lbs" or "dqs", not "perface"/);
  assert.throws(
    () => calls['scene.skin']({ frames: 2 } as never),
    /scene\.skin: unknown option "frames" \(the options are method, clip and frame\)/,
  );
  const still = callsOn({ ...doc, boneScales: null, poses: null, posesFile: null, clips: [] }).calls;
  assert.ok(sameBits(still['scene.skin'](), doc.mesh.positions), 'no clip and no bone scales: the rest mesh');
  assert.throws(() => still['scene.skin']({ frame: 1 }), /frame 1 is out of range: the scene has no clip, only the rest pose \(frame 0\)/);
});

test('execute and files are the host’s own calls, with the arguments as given', async () => {
  const { calls, executed } = callsOn(handDocument());
  assert.equal(await calls.execute('paint.prune', 0.01), 'ran paint.prune');
  await calls['files.open'](['a.obj', 'a.tgf']);
  assert.deepEqual(executed, [
    ['paint.prune', 0.01],
    ['open', ['a.obj', 'a.tgf']],
  ]);
  assert.equal(await calls['files.saveProject']('x.rig.glb'), 'saved x.rig.glb');
  assert.equal(await calls['files.exportGltf']('x.glb', { influences: 4 }), 'exported x.glb {"influences":4}');
});
