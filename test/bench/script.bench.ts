/**
 * The script API's weights and a script run's overhead. Weights: reading and setting those of 1M vertices × 4
 * influences (a tube of 1024 rings of 1024 vertices around a chain of 32 bones, each vertex weighted to the 4 bones
 * nearest along the chain):
 *
 * - the whole path: a script in the Node sandbox (as `rigwright run` runs it) timing `await rig.scene.weights()` and
 *   `await rig.scene.setWeights(rows)` with its own clock (performance.now(), as a script has it in a worker), each
 *   answered by the ScriptHost with sceneScriptCalls on a SceneStore, the rows transferred both ways; the scene holds
 *   the weights as rows, as it does once a script has set them (weight-storage.ts);
 * - the scene's answers alone (sceneScriptCalls called directly): reading rows the scene holds, reading weights the
 *   scene holds only dense (as Compute weights leaves them: one pass over the 1M × 32 matrix), and setting rows (checked,
 *   laid out canonically, one store edit with its undo step); and what the viewport pays after a set, the dense
 *   1M × 32 matrix made from the rows when first read.
 *
 * Reference: the same rows (bones Int32Array, values Float64Array) cloned to another thread and back with
 * postMessage in the same process, half the round trip (transferring them instead, as the sandbox does, only detaches
 * the buffers and is shown beside it). Aim: ≤ 50 ms each way.
 *
 * An empty script's run (compile, start the sandbox, run, end, the undo group) is set against starting a bare
 * worker thread and hearing from it. Aim: ≤ 100 ms.
 *
 *   node --expose-gc --import tsx test/bench/script.bench.ts
 */
import { Worker } from 'node:worker_threads';
import { startNodeSandbox } from '../../app/cli/script/node-sandbox.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import type { DenseMatrix } from '../../workers/formats/types.ts';
import { withDerived, type SceneDocument } from '../../workers/scene/scene-document.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';
import { heldRowsOf, isDenseMade, weightsHoldingRows } from '../../workers/scene/weight-storage.ts';
import type { ScriptCalls, WeightRows } from '../../workers/script/script-api.ts';
import { ScriptHost } from '../../workers/script/script-host.ts';
import { sceneScriptCalls } from '../../workers/script/script-scene-calls.ts';
import { canonicalWeightRows, weightRowsFromDense } from '../../workers/script/weight-rows.ts';
import { fmtMs, printTable, type BenchRow } from './bench-util.ts';

const RINGS = 1024;
const AROUND = 1024;
const BONES = 32;
const INFLUENCES = 4;
const RUNS = 7;
const AIM_MS = 50;

/** The tube: rings along x from 0 to BONES, a chain of BONES bones along it, 4 smooth weights per vertex summing to 1. */
function tubeScene(): SceneDocument {
  const vertexCount = RINGS * AROUND;
  const positions = new Float64Array(3 * vertexCount);
  const triangles = new Uint32Array(6 * (RINGS - 1) * AROUND);
  const data = new Float64Array(vertexCount * BONES);
  const near = new Float64Array(INFLUENCES);
  for (let r = 0, v = 0, t = 0; r < RINGS; r++) {
    const x = (BONES * r) / (RINGS - 1);
    // The 4 bones whose middles are nearest x, weighted by a hat of 2 bones' width, then normalized.
    const first = Math.min(Math.max(Math.round(x - 0.5) - 2, 0), BONES - INFLUENCES);
    let sum = 0;
    for (let k = 0; k < INFLUENCES; k++) sum += near[k] = Math.max(1e-3, 2 - Math.abs(x - (first + k + 0.5)));
    for (let a = 0; a < AROUND; a++, v++) {
      const angle = (2 * Math.PI * a) / AROUND;
      positions.set([x, Math.cos(angle), Math.sin(angle)], 3 * v);
      for (let k = 0; k < INFLUENCES; k++) data[v * BONES + first + k] = near[k] / sum;
      if (r + 1 < RINGS) {
        const next = r * AROUND + ((a + 1) % AROUND);
        triangles.set([v, v + AROUND, next, next, v + AROUND, next + AROUND], t);
        t += 6;
      }
    }
  }
  const joints = new Float64Array(3 * (BONES + 1));
  const bones = new Uint32Array(2 * BONES);
  for (let b = 0; b <= BONES; b++) joints[3 * b] = b;
  for (let b = 0; b < BONES; b++) bones.set([b, b + 1], 2 * b);
  const weights: DenseMatrix = { rows: vertexCount, cols: BONES, data };
  return withDerived({
    name: 'tube',
    meshFiles: [],
    mesh: { positions, triangles },
    skeletonFile: null,
    skeleton: buildSkeleton({ joints, bones }, 'tube'),
    weights,
    weightsSource: 'built-in',
    poses: null,
    posesFile: null,
    handles: null,
    handlesFile: null,
    warnings: [],
  });
}

/** Median milliseconds of an async step, after two unmeasured ones. */
async function medianAsyncMs(step: () => Promise<unknown>, runs = RUNS): Promise<number> {
  for (let i = 0; i < 2; i++) await step();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    globalThis.gc?.();
    const start = performance.now();
    await step();
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
}

/** A thread that sends every message straight back, transferring what it was given. */
function echoThread(): Worker {
  return new Worker(
    `const { parentPort } = require('node:worker_threads');
     parentPort.on('message', (m) => parentPort.postMessage(m, m.transfer ? [m.bones.buffer, m.values.buffer] : []));`,
    { eval: true },
  );
}

let rows: WeightRows | null = null;
/** The rows there and back: transferred (the API's way) or cloned; resolves when they are back on this thread. */
function roundTrip(thread: Worker, transfer: boolean): Promise<void> {
  const { bones, values } = rows!;
  return new Promise((resolve) => {
    thread.once('message', (back: { bones: Int32Array; values: Float64Array }) => {
      rows = { ...rows!, bones: back.bones, values: back.values };
      resolve();
    });
    thread.postMessage({ bones, values, transfer }, transfer ? [bones.buffer as ArrayBuffer, values.buffer as ArrayBuffer] : []);
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const vertexCount = RINGS * AROUND;
const noFiles = () => Promise.reject(new Error('no files in this benchmark'));
function callsOn(store: SceneStore, argumentsHandedOver = false): ScriptCalls {
  return sceneScriptCalls({
    store,
    argumentsHandedOver,
    execute: () => Promise.reject(new Error('no commands in this benchmark')),
    files: { 'files.open': noFiles, 'files.saveProject': noFiles, 'files.exportGltf': noFiles },
  });
}

const doc = tubeScene();
/** The same scene holding its weights as rows, as it does once a script has set them. */
const heldDoc: SceneDocument = {
  ...doc,
  weights: weightsHoldingRows(
    doc.weights.rows,
    BONES,
    canonicalWeightRows(weightRowsFromDense(doc.weights), doc.weights.rows, BONES, 'bench'),
  ),
};

// ---- the whole path: scripts in the Node sandbox ----
/** The script's read and write times and an empty script's run, medians; the store and host are dropped after. */
async function throughScripts(): Promise<{ readMs: number; writeMs: number; emptyMs: number }> {
  const sandboxStore = new SceneStore(heldDoc, new UndoHistory());
  const output: string[] = [];
  const host = new ScriptHost({
    calls: callsOn(sandboxStore, true),
    history: sandboxStore.history,
    startSandbox: startNodeSandbox,
    commandIds: [],
    onOutput: (line) => output.push(line.text),
  });
  /** Runs a script to its end; throws unless it ended `done`. @returns the run's own duration and what it printed */
  async function runScript(file: string, source: string): Promise<{ durationMs: number; printed: string[] }> {
    output.length = 0;
    const result = await host.run({ file, source, timeLimitMs: 0 });
    if (result.status !== 'done') throw new Error(`${file}: ${result.status} ${result.error?.message ?? ''}`);
    return { durationMs: result.durationMs, printed: [...output] };
  }
  // One read and one write per run (so that each run's undo step holds only its own matrices), timed by the script.
  const weightsScript = `
  let start = performance.now();
  const rows = await rig.scene.weights();
  const read = performance.now() - start;
  start = performance.now();
  await rig.scene.setWeights(rows);
  print(JSON.stringify({ read, write: performance.now() - start, influences: rows.influences }));
  `;
  const sandboxReads: number[] = [];
  const sandboxWrites: number[] = [];
  for (let i = 0; i < RUNS + 2; i++) {
    globalThis.gc?.();
    const { printed } = await runScript('weights-round-trip.ts', weightsScript);
    const times = JSON.parse(printed[0]) as { read: number; write: number; influences: number };
    if (times.influences !== INFLUENCES) throw new Error(`the script read ${times.influences} influences, expected ${INFLUENCES}`);
    if (i < 2) continue;
    sandboxReads.push(times.read);
    sandboxWrites.push(times.write);
  }
  if (sandboxStore.doc.weights.data[5 * BONES + 1] !== doc.weights.data[5 * BONES + 1]) throw new Error('the script changed a weight');
  const emptyRuns: number[] = [];
  for (let i = 0; i < RUNS + 2; i++) {
    const { durationMs } = await runScript('empty.ts', '');
    if (i >= 2) emptyRuns.push(durationMs);
  }
  return { readMs: median(sandboxReads), writeMs: median(sandboxWrites), emptyMs: median(emptyRuns) };
}
const sandbox = await throughScripts();
const bareThreadMs = await medianAsyncMs(
  () =>
    new Promise<void>((resolve) => {
      const thread = new Worker(`require('node:worker_threads').parentPort.postMessage(0)`, { eval: true });
      thread.once('message', () => void thread.terminate().then(() => resolve()));
    }),
);

// ---- the scene's answers alone ----
globalThis.gc?.();
const store = new SceneStore(heldDoc, new UndoHistory());
const calls = callsOn(store);
const readMs = await medianAsyncMs(() => {
  rows = calls['scene.weights']();
  return Promise.resolve();
});
if (rows!.influences !== INFLUENCES) throw new Error(`expected ${INFLUENCES} influences, the rows have ${rows!.influences}`);
const writeMs = await medianAsyncMs(() => {
  calls['scene.setWeights'](rows!);
  return Promise.resolve();
});
if (!heldRowsOf(store.doc.weights) || isDenseMade(store.doc.weights)) throw new Error('the set weights are not held as rows');
// The viewport's cost after a set: the dense matrix made from the rows the first time it reads them.
const denseMadeMs = await medianAsyncMs(() => {
  calls['scene.setWeights'](rows!);
  return Promise.resolve(store.doc.weights.data);
});
if (store.doc.weights.data[5 * BONES + 1] !== doc.weights.data[5 * BONES + 1]) throw new Error('setWeights changed a weight');
globalThis.gc?.();
const denseStore = new SceneStore(doc, new UndoHistory());
const denseReadMs = await medianAsyncMs(() => {
  rows = callsOn(denseStore)['scene.weights']();
  return Promise.resolve();
});

// ---- the reference: the same rows between two threads ----
const thread = echoThread();
const transferMs = (await medianAsyncMs(() => roundTrip(thread, true))) / 2;
const cloneMs = (await medianAsyncMs(() => roundTrip(thread, false))) / 2;
await thread.terminate();

const megabytes = ((rows!.bones.byteLength + rows!.values.byteLength) / 2 ** 20).toFixed(0);
const aim = (ms: number, most = AIM_MS) => `aim ≤ ${most} ms: ${ms <= most ? 'met' : 'missed'}`;
const cloned = `${fmtMs(cloneMs)} (rows cloned to a thread, one way)`;
printTable(
  `Script API weights — ${vertexCount.toLocaleString('en')} vertices × ${INFLUENCES} influences (${megabytes} MB of rows), ${BONES} bones (dense ${((8 * vertexCount * BONES) / 2 ** 20).toFixed(0)} MB)`,
  [
    {
      case: 'read: await rig.scene.weights() in a script (Node sandbox)',
      ours: fmtMs(sandbox.readMs),
      reference: cloned,
      ratio: (sandbox.readMs / cloneMs).toFixed(2),
      note: `${aim(sandbox.readMs)}; the script's clock`,
    },
    {
      case: 'write: await rig.scene.setWeights(rows) in a script (Node sandbox)',
      ours: fmtMs(sandbox.writeMs),
      reference: cloned,
      ratio: (sandbox.writeMs / cloneMs).toFixed(2),
      note: `${aim(sandbox.writeMs)}; the script's clock`,
    },
    {
      case: 'read: scene.weights() called directly, rows the scene holds',
      ours: fmtMs(readMs),
      reference: cloned,
      ratio: (readMs / cloneMs).toFixed(2),
      note: `rows transferred instead of cloned: ${fmtMs(transferMs)}`,
    },
    {
      case: 'read: scene.weights() called directly, weights the scene holds dense (dense → rows)',
      ours: fmtMs(denseReadMs),
      reference: cloned,
      ratio: (denseReadMs / cloneMs).toFixed(2),
      note: `one pass over the ${BONES}-bone matrix (Compute weights' result)`,
    },
    {
      case: 'write: scene.setWeights(rows) called directly, checked and held + one undo step',
      ours: fmtMs(writeMs),
      reference: cloned,
      ratio: (writeMs / cloneMs).toFixed(2),
      note: `then the dense matrix made when the viewport first reads it: ${fmtMs(Math.max(0, denseMadeMs - writeMs))} more`,
    },
  ] satisfies BenchRow[],
);
printTable('Script run overhead — an empty script, Node sandbox', [
  {
    case: 'compile, start the sandbox, run, end (ScriptHost.run)',
    ours: fmtMs(sandbox.emptyMs),
    reference: `${fmtMs(bareThreadMs)} (a bare worker thread started, heard from, ended)`,
    ratio: (sandbox.emptyMs / bareThreadMs).toFixed(2),
    note: aim(sandbox.emptyMs, 100),
  },
]);
