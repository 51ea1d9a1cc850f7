/**
 * The script API's weights: reading and setting the weights of 1M vertices × 4 influences (a tube of 1024 rings of
 * 1024 vertices around a chain of 32 bones, each vertex weighted to the 4 bones nearest along the chain, dense
 * 1M × 32 in the scene as the document stores it) through the scene's answers to `rig.scene.weights()` and
 * `rig.scene.setWeights(rows)` (sceneScriptCalls: the dense matrix → rows, rows → a new dense matrix and one store
 * edit with its undo step). Reference: the same rows (bones Int32Array, values Float64Array) cloned to another
 * thread and back with postMessage, in the same process, half the round trip (transferring them instead, as the
 * sandbox does, only detaches the buffers and is shown beside it). The write is also set against its floor while the
 * scene stores weights dense: allocating the new 1M × 32 matrix (the undo step keeps the old) and writing the rows in.
 * Aim: ≤ 50 ms each way.
 *
 *   node --expose-gc --import tsx test/bench/script.bench.ts
 */
import { Worker } from 'node:worker_threads';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import type { DenseMatrix } from '../../workers/formats/types.ts';
import { withDerived, type SceneDocument } from '../../workers/scene/scene-document.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';
import type { WeightRows } from '../../workers/script/script-api.ts';
import { sceneScriptCalls } from '../../workers/script/script-scene-calls.ts';
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

const doc = tubeScene();
const store = new SceneStore(doc, new UndoHistory());
const calls = sceneScriptCalls({
  store,
  execute: () => Promise.reject(new Error('no commands in this benchmark')),
  files: {
    'files.open': () => Promise.reject(new Error('no files')),
    'files.saveProject': () => Promise.reject(new Error('no files')),
    'files.exportGltf': () => Promise.reject(new Error('no files')),
  },
});
const vertexCount = RINGS * AROUND;

const readMs = await medianAsyncMs(() => {
  rows = calls['scene.weights']();
  return Promise.resolve();
});
if (rows!.influences !== INFLUENCES) throw new Error(`expected ${INFLUENCES} influences, the rows have ${rows!.influences}`);
const writeMs = await medianAsyncMs(() => {
  calls['scene.setWeights'](rows!);
  return Promise.resolve();
});
if (store.doc.weights.data[5 * BONES + 1] !== doc.weights.data[5 * BONES + 1]) throw new Error('setWeights changed a weight');

// What setting the weights cannot go below while the scene stores them dense: a new #V × #B matrix (the undo step
// keeps the old one) with the rows written into it, no checks.
const floorMs = await medianAsyncMs(() => {
  const { bones, values } = rows!;
  const dense = new Float64Array(vertexCount * BONES);
  for (let v = 0, i = 0; v < vertexCount; v++)
    for (let s = 0; s < INFLUENCES; s++, i++) if (bones[i] >= 0) dense[v * BONES + bones[i]] = values[i];
  return Promise.resolve(dense);
});

const thread = echoThread();
const transferMs = (await medianAsyncMs(() => roundTrip(thread, true))) / 2;
const cloneMs = (await medianAsyncMs(() => roundTrip(thread, false))) / 2;
await thread.terminate();

const megabytes = ((rows!.bones.byteLength + rows!.values.byteLength) / 2 ** 20).toFixed(0);
const aim = (ms: number) => `aim ≤ ${AIM_MS} ms: ${ms <= AIM_MS ? 'met' : 'missed'}`;
const cloned = `${fmtMs(cloneMs)} (rows cloned to a thread, one way)`;
const table: BenchRow[] = [
  {
    case: `read: scene.weights(), dense → rows`,
    ours: fmtMs(readMs),
    reference: cloned,
    ratio: (readMs / cloneMs).toFixed(2),
    note: `${aim(readMs)}; transferred instead: ${fmtMs(transferMs)}`,
  },
  {
    case: `write: scene.setWeights(rows), rows → dense + one undo step`,
    ours: fmtMs(writeMs),
    reference: cloned,
    ratio: (writeMs / cloneMs).toFixed(2),
    note: `${aim(writeMs)}; a new dense matrix with the rows written in, alone: ${fmtMs(floorMs)}`,
  },
];
printTable(
  `Script API weights — ${vertexCount.toLocaleString('en')} vertices × ${INFLUENCES} influences (${megabytes} MB of rows), ${BONES} bones (dense ${((8 * vertexCount * BONES) / 2 ** 20).toFixed(0)} MB), the scene's answers called directly`,
  table,
);
