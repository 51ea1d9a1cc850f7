/**
 * Per-face skinning's frame (perFaceSkinning) on two threads that share memory: the calling thread and one helper
 * thread, which the caller starts (a worker_threads Worker in Node, a Web Worker in the browser) and which runs
 * runPerFaceHelper. Both halves of the frame that cost time split in two:
 *
 * - The face loop: each thread blends half of the faces and adds their target gradients into its own right-hand
 *   sides; the calling thread then adds the helper's into its own. Faces are independent, so this is the one-thread
 *   loop with the additions into each row in another order. The setup's faces are in the order of their first pivot
 *   row, so each half writes mostly its own stretch of rows.
 * - The solve L Lᵀ x = b: the factor's supernodes form a tree (a supernode's rows below are in its ancestors), and
 *   its subtrees are contiguous ranges of supernodes. The partition (perFaceTwoCorePartition) cuts the tree into a
 *   small top — the supernodes nearest the roots — and two bins of whole subtrees under it, balanced by the factor's
 *   entries. A bin's forward pass updates only rows of its own subtrees and of the top: each thread runs its bin's
 *   forward pass at once, with its updates of top rows sent to its own accumulator rows past the end of x (the
 *   forward rows: belowRows with those entries changed), so no row is written by both threads. The calling thread
 *   then adds both accumulators into the top rows and solves the top forward and backward. The backward pass of a
 *   bin reads only its own subtrees' rows and the top's, final by then, so both threads run their bins' backward
 *   passes at once again. The result is the one-thread solve's up to the order of the additions into the top rows
 *   in the forward pass; the backward pass is the same arithmetic.
 *
 * - Per-face context frames: the examples' stored offsets are copied once into the shared memory, which grows for
 *   them (shareExamples), and each thread blends its own faces' products (Eq. 9 or 10) just before its face loop,
 *   which reads no other face's: no barrier more (examplesFrame).
 *
 * The threads meet at three barriers per frame (faces done, forward done, backward done) over an Int32Array of
 * shared control words: the calling thread posts a command and polls until it is done (blocking in Atomics.wait
 * only after JOIN_SPIN_MS); the helper polls for the next command for HELPER_SPIN_MS, then blocks, so the
 * barriers within a frame cost microseconds, a frame that follows a frame finds it awake, and a helper between
 * frames sleeps (waking it costs the next frame about 2 ms where idle cores sleep). Everything the helper reads — the
 * packed factor, the faces, the frame's bone logarithms, x — lives in shared memory made once per setup (a copy of
 * the panels' arrays and of the face arrays: at 295k vertices about 92 MB and 70 MB). These are views of one shared
 * WebAssembly memory, so that both threads run their passes with the panel kernels (panel-kernels.ts) and their
 * faces with the face kernel (face-kernel.ts), each thread with its own instances; where WebAssembly is unavailable
 * they are SharedArrayBuffers and the JavaScript loops run.
 *
 * The calling thread must be allowed to block (Node's main thread or a worker; not a browser page's main thread).
 */
import { choleskyPanelBackward, choleskyPanelForward, type CholeskyPanels } from '../sparse/cholesky-panels.ts';
import { panelKernels, panelMemory } from '../sparse/panel-kernels.ts';
import { MemoryCarver, PAGE } from '../sparse/wasm-module.ts';
import { faceKernel } from './face-kernel.ts';
import {
  perFaceActiveExamples,
  perFaceContextProductRange,
  type PerFaceBlend,
  type PerFaceExampleOffsets,
} from './per-face-example-blend.ts';
import {
  accumulateFaceGradients,
  boneLogarithms,
  copySolution,
  fixedVerticesToRightHandSide,
  perFaceSkinningWorkspace,
  type PerFaceFaceArrays,
  type PerFaceSkinningSetup,
  type PerFaceSkinningWorkspace,
} from './per-face-skinning.ts';

/** Factors with fewer free rows are solved on one thread: the barriers and the copies would eat the gain. */
export const TWO_CORE_MIN_FREE_ROWS = 30_000;
/** The least estimated solve speed-up (entries over the longest thread's share) worth a second thread. */
export const TWO_CORE_MIN_SPEED_UP = 1.5;
/** How many top supernodes the partition may take before it stops looking for a better balance. */
const MAX_TOP_STEPS = 256;
/**
 * How long the calling thread polls for the helper before it blocks, ms. A thread that blocks and is woken costs
 * about 2 ms on a machine whose idle cores sleep (measured on a 2-core VM, against under 1 µs polling), so the
 * calling thread, which has nothing else to do meanwhile, polls through a whole frame's share of the helper.
 */
const JOIN_SPIN_MS = 50;
/**
 * How long the helper polls for the next command before it blocks, ms: longer than the calling thread's work
 * between two commands of a frame (about 2 ms at 295k vertices), short enough that a helper between frames sleeps.
 */
const HELPER_SPIN_MS = 4;
/** Polls between two looks at the clock. */
const POLLS = 1024;
/** How long the calling thread waits for the helper before it gives up with an error. */
const HELPER_TIMEOUT_MS = 60_000;

// The control words: the calling thread writes COMMAND, SCALED, CONTEXT and then bumps POSTED; the helper runs the
// command and stores POSTED's value in DONE (or sets FAILED).
const POSTED = 0;
const COMMAND = 1;
const DONE = 2;
const SCALED = 3;
const FAILED = 4;
/**
 * What the frame's faces take: the setup's own products (PLAIN), contextProducts as the caller wrote them (PRODUCTS),
 * or contextProducts that each thread first blends for its own faces from the shared examples (EXAMPLES)
 */
const CONTEXT = 5;
/** With EXAMPLES: 0 for Eq. 9, 1 for Eq. 10; how many examples are active this frame */
const BLEND = 6;
const ACTIVE_COUNT = 7;
/**
 * The shared examples: their count J, then byte offsets into the memory of their product offsets, polar offsets,
 * active list and active weights (written by shareExamples before the frame that reads them)
 */
const EXAMPLE_COUNT = 8;
const EXAMPLE_ARRAYS = 9; // … 12
/** Where the helper leaves its error's message when it fails (FAILED), as character codes ending in a 0 */
const MESSAGE = 16;
const MESSAGE_CHARACTERS = 239;
const CONTROL_WORDS = MESSAGE + MESSAGE_CHARACTERS + 1;

const PLAIN = 0;
const PRODUCTS = 1;
const EXAMPLES = 2;

const FACES = 1;
const FORWARD = 2;
const BACKWARD = 3;
const STOP = 4;

/** How the factor's supernodes split over two threads (ranges are pairs [first, end), ascending). */
export interface PerFaceTwoCorePartition {
  /** the top supernodes: every ancestor of a bin's subtree that is not in a bin; solved by the calling thread alone */
  top: Int32Array;
  /** bins[0]: the calling thread's subtrees, bins[1]: the helper's; one range per subtree */
  bins: [Int32Array, Int32Array];
  /** the factor's entries over those of the longest thread (its bin plus the top): the solve's estimated speed-up */
  speedUp: number;
}

/**
 * Splits the supernodes of a packed factor into a top and two bins of whole subtrees: starting from the roots, the
 * heaviest subtree of the frontier moves into the top (its children into the frontier) step by step, the frontier's
 * subtrees go heaviest first into the lighter bin, and the step with the best estimated speed-up wins. A supernode's
 * weight is its entries plus its columns (what the passes read).
 * @param panels  choleskyPanels(factor)
 * @returns the partition, or null when the factor has fewer than TWO_CORE_MIN_FREE_ROWS rows, when the best split
 *          would not reach TWO_CORE_MIN_SPEED_UP, or when its supernodes are not in postorder (subtrees not
 *          contiguous)
 */
export function perFaceTwoCorePartition(panels: CholeskyPanels): PerFaceTwoCorePartition | null {
  const { n, supernodeCount: count, supernodeStart, belowStart, belowRows, valueStart } = panels;
  if (n < TWO_CORE_MIN_FREE_ROWS) return null;
  const supernodeOf = new Int32Array(n);
  for (let s = 0; s < count; s++) supernodeOf.fill(s, supernodeStart[s], supernodeStart[s + 1]);
  // The supernodal elimination tree: a supernode's parent holds the first row below it.
  const parent = new Int32Array(count).fill(-1);
  const weight = new Float64Array(count);
  for (let s = 0; s < count; s++) {
    weight[s] = valueStart[s + 1] - valueStart[s] + supernodeStart[s + 1] - supernodeStart[s];
    let lowest = n;
    for (let i = belowStart[s]; i < belowStart[s + 1]; i++) lowest = Math.min(lowest, belowRows[i] / 3);
    if (lowest < n) parent[s] = supernodeOf[lowest];
    if (parent[s] !== -1 && parent[s] <= s) return null;
  }
  const subtree = Float64Array.from(weight);
  const size = new Int32Array(count).fill(1);
  const firstOf = Int32Array.from({ length: count }, (_, s) => s);
  const children: number[][] = Array.from({ length: count }, () => []);
  for (let s = 0; s < count; s++) {
    if (firstOf[s] !== s - size[s] + 1) return null; // not in postorder: a subtree is not one range
    const p = parent[s];
    if (p === -1) continue;
    subtree[p] += subtree[s];
    size[p] += size[s];
    firstOf[p] = Math.min(firstOf[p], firstOf[s]);
    children[p].push(s);
  }
  const roots: number[] = [];
  let total = 0;
  for (let s = 0; s < count; s++) {
    if (parent[s] === -1) {
      roots.push(s);
      total += subtree[s];
    }
  }
  const heaviestFirst = (a: number, b: number): number => subtree[b] - subtree[a] || a - b;
  const binsOf = (frontier: number[]): { bins: [number[], number[]]; load: [number, number] } => {
    const bins: [number[], number[]] = [[], []];
    const load: [number, number] = [0, 0];
    for (const s of [...frontier].sort(heaviestFirst)) {
      const b = load[0] <= load[1] ? 0 : 1;
      bins[b].push(s);
      load[b] += subtree[s];
    }
    return { bins, load };
  };
  const frontier = [...roots];
  const moved: number[] = [];
  let topWeight = 0;
  let best = { speedUp: 0, steps: 0, bins: [[], []] as [number[], number[]] };
  for (let step = 0; step <= MAX_TOP_STEPS && frontier.length > 0; step++) {
    const { bins, load } = binsOf(frontier);
    const speedUp = total / (Math.max(load[0], load[1]) + topWeight);
    if (speedUp > best.speedUp + 1e-9) best = { speedUp, steps: step, bins };
    frontier.sort(heaviestFirst);
    const s = frontier.shift()!;
    moved.push(s);
    topWeight += weight[s];
    frontier.push(...children[s]);
  }
  if (best.speedUp < TWO_CORE_MIN_SPEED_UP) return null;
  // The best step's top: the supernodes moved before it; its bins as they were filled then.
  const inTop = new Uint8Array(count);
  for (const s of moved.slice(0, best.steps)) inTop[s] = 1;
  const { bins } = best;
  // Every row below a supernode of a bin must be in that bin or in the top: then the bins' passes touch disjoint
  // rows outside the top. (It holds whenever the rows below a supernode are in its ancestors, as in any Cholesky
  // factor; checked, since the solve would silently race otherwise.)
  const owner = Int8Array.from(inTop, (t) => (t ? 2 : -1));
  bins.forEach((subtrees, b) => {
    for (const s of subtrees) owner.fill(b, firstOf[s], s + 1);
  });
  for (let s = 0; s < count; s++) {
    if (owner[s] === -1) return null;
    if (owner[s] === 2) continue;
    for (let i = belowStart[s]; i < belowStart[s + 1]; i++) {
      const o = owner[supernodeOf[belowRows[i] / 3]];
      if (o !== 2 && o !== owner[s]) return null;
    }
  }
  const rangesOf = (subtrees: number[]): Int32Array =>
    Int32Array.from(
      subtrees
        .map((s) => [firstOf[s], s + 1])
        .sort((a, b) => a[0] - b[0])
        .flat(),
    );
  const top: number[] = [];
  for (let s = 0; s < count; s++) {
    if (!inTop[s]) continue;
    if (top.length > 0 && top[top.length - 1] === s) top[top.length - 1] = s + 1;
    else top.push(s, s + 1);
  }
  return { top: Int32Array.from(top), bins: [rangesOf(bins[0]), rangesOf(bins[1])], speedUp: best.speedUp };
}

/** What the helper thread reads: views on SharedArrayBuffers (and numbers), safe to post to a worker as they are. */
export interface PerFaceHelperShared {
  /** CONTROL_WORDS control words (see the module comment) */
  control: Int32Array;
  /**
   * The shared WebAssembly memory that every array here but `control` is a view of, where each thread runs its passes
   * with the panel kernels (panel-kernels.ts) and its faces with the face kernel (face-kernel.ts); null where
   * WebAssembly is unavailable (then they are SharedArrayBuffers and the JavaScript loops run)
   */
  memory: WebAssembly.Memory | null;
  supernodeStart: Int32Array;
  belowStart: Int32Array;
  belowRows: Int32Array;
  /** belowRows with each bin's updates of top rows sent to that bin's accumulator rows */
  forwardRows: Int32Array;
  valueStart: Int32Array;
  inverseDiagonal: Float64Array;
  values: Float64Array;
  /** the helper's scratch for the solve */
  scratch: Float64Array;
  /** the helper's subtrees (bin 1) */
  ranges: Int32Array;
  /** where the helper's accumulator of top-row updates lies in x: [accumulatorFrom, accumulatorTo) */
  accumulatorFrom: number;
  accumulatorTo: number;
  /** (#free + 1) × 3 right-hand sides and solution in pivot order, then the two threads' accumulators */
  x: Float64Array;
  /** the setup's faces (in the order of their first pivot row), in shared memory */
  faces: PerFaceFaceArrays & { faceProducts: Float64Array };
  /** #F × 9 the source products of a context frame (PerFaceTwoCore.contextProducts) */
  contextProducts: Float64Array;
  /** the helper's faces: [faceFrom, faceTo) */
  faceFrom: number;
  faceTo: number;
  /** the frame's bone logarithms (boneLogarithms writes them on the calling thread) */
  quaternions: Float64Array;
  pairLogs: Float64Array;
  pairScales: Float64Array;
  /**
   * (#free + 1) × 3: the helper's half of the right-hand sides; its faces add only into [rhsFrom, rhsTo) (the faces
   * are in the order of their lowest pivot row, so the helper's, the later half, start high), the rest stays zero
   */
  rhs: Float64Array;
  rhsFrom: number;
  rhsTo: number;
}

/** Per-face skinning's frame on two threads; see perFaceTwoCore. */
export interface PerFaceTwoCore {
  readonly partition: PerFaceTwoCorePartition;
  /**
   * Poses the mesh as perFaceSkinning(setup, transforms, outPositions, workspace, boneScales) does, up to round-off.
   * Blocks the calling thread until the helper's share is done.
   */
  frame(transforms: Float64Array, outPositions: Float64Array, boneScales?: Float64Array | null): void;
  /**
   * #F × 9 source products in shared memory, in the setup's face order: what a context frame's faces take instead of
   * the rest products (per-face context deformation writes its B_f p_{f,i} here; see perFaceContextWorkspace).
   */
  readonly contextProducts: Float64Array;
  /**
   * Stitches the faces' target gradients from contextProducts, with the fixed vertices' positions taken from
   * `sourcePositions` and moved by their bones: perFaceStitch(setup, transforms, sourcePositions, contextProducts,
   * outPositions, workspace, boneScales) up to round-off, on two threads.
   */
  contextFrame(transforms: Float64Array, sourcePositions: Float64Array, outPositions: Float64Array, boneScales?: Float64Array | null): void;
  /**
   * Copies the examples' offsets into the shared memory (which grows for them, or reuses the room of examples shared
   * before, whose shared copies then hold these), so that each thread blends its own faces' products in
   * examplesFrame. Returns the examples with those arrays replaced by their shared copies (the same values; the caller
   * may drop its own), or null where the memory cannot take them (no WebAssembly memory, or it cannot grow that much):
   * then no examples are shared, and contextFrame, with products from the caller, is the way.
   */
  shareExamples<T extends PerFaceExampleOffsets>(examples: T): T | null;
  /**
   * A context frame from the examples last shared: each thread blends its half of the faces' products under the
   * examples' weights (Eq. 9 or 10; perFaceContextProductRange) and stitches them; the fixed vertices are taken from
   * `sourcePositions` (their blended example offsets, which the caller computes) as in contextFrame. The same
   * positions as perFaceContextSkinning up to round-off.
   */
  examplesFrame(
    exampleWeights: ArrayLike<number>,
    blend: PerFaceBlend,
    transforms: Float64Array,
    sourcePositions: Float64Array,
    outPositions: Float64Array,
    boneScales?: Float64Array | null,
  ): void;
  /** Stops the helper (its thread ends) and releases it; frame may not be called after. Idempotent. */
  dispose(): void;
}

/** Started by the caller on another thread: it runs runPerFaceHelper(shared) there, and stop() ends that thread. */
export type PerFaceHelperStarter = (shared: PerFaceHelperShared) => { stop(): void };

function sharedCopy<T extends Int32Array | Uint32Array | Float64Array>(array: T): T {
  const Type = array.constructor as new (buffer: SharedArrayBuffer) => T;
  const copy = new Type(new SharedArrayBuffer(array.byteLength));
  copy.set(array);
  return copy;
}

function sharedFloats(length: number): Float64Array {
  return new Float64Array(new SharedArrayBuffer(8 * length));
}

/** Posts a command to the helper; returns the number DONE takes when it is done. */
function post(control: Int32Array, command: number): number {
  Atomics.store(control, COMMAND, command);
  // As the control word holds it (an Int32 wraps; DONE is compared with what the helper read).
  const posted = (Atomics.add(control, POSTED, 1) + 1) | 0;
  Atomics.notify(control, POSTED);
  return posted;
}

/** The message the helper left when it failed. */
function helperMessage(control: Int32Array): string {
  let message = '';
  for (let i = MESSAGE; i < MESSAGE + MESSAGE_CHARACTERS && Atomics.load(control, i) !== 0; i++) {
    message += String.fromCharCode(Atomics.load(control, i));
  }
  return message;
}

/** Waits until the helper has done command `posted`: spins, then blocks. */
function join(control: Int32Array, posted: number): void {
  const since = performance.now();
  for (let polls = 1; ; polls++) {
    const done = Atomics.load(control, DONE);
    if (done === posted) return;
    if (Atomics.load(control, FAILED) !== 0) throw new Error(`perFaceTwoCore: the helper thread failed: ${helperMessage(control)}`);
    if (polls % POLLS !== 0) continue;
    const waited = performance.now() - since;
    if (waited < JOIN_SPIN_MS) continue;
    if (waited > HELPER_TIMEOUT_MS) {
      throw new Error(`perFaceTwoCore: the helper thread did not answer in ${HELPER_TIMEOUT_MS / 1000} s`);
    }
    Atomics.wait(control, DONE, done, 100);
  }
}

/**
 * Sets up per-face skinning's frame on two threads for a setup: the partition, the shared memory, and the helper,
 * started once through `startHelper`.
 * @param setup        perFaceSkinningSetup(…)
 * @param startHelper  starts a thread that calls runPerFaceHelper(shared); its stop() ends that thread
 * @returns the two-core frame, or null when the factor is too small or too unbalanced to gain (see
 *          perFaceTwoCorePartition); then no helper is started
 */
export function perFaceTwoCore(setup: PerFaceSkinningSetup, startHelper: PerFaceHelperStarter): PerFaceTwoCore | null {
  const { panels, faceCount } = setup;
  const partition = perFaceTwoCorePartition(panels);
  if (partition === null) return null;
  const { top, bins } = partition;
  const { n, supernodeStart, belowStart, belowRows } = panels;

  // Top rows in order; accumulator row k of each thread collects the updates of the k-th.
  const topRows: number[] = [];
  const topIndex = new Int32Array(n).fill(-1);
  for (let r = 0; r < top.length; r += 2) {
    for (let row = supernodeStart[top[r]]; row < supernodeStart[top[r + 1]]; row++) {
      topIndex[row] = topRows.length;
      topRows.push(row);
    }
  }
  // x, then each accumulator, each starting on a 64-byte line so that the threads' writes do not share one.
  const line = (values: number): number => Math.ceil(values / 8) * 8;
  const accumulatorFrom = [line(3 * (n + 1)), line(3 * (n + 1)) + line(3 * topRows.length)];
  const xLength = accumulatorFrom[1] + line(3 * topRows.length);
  // What the solve reads and writes, in one shared WebAssembly memory where the kernels can run (else plain shared
  // buffers): the values, both row lists, x and each thread's scratch.
  const scratchLength = panels.scratch.length;
  const boneLogs = perFaceSkinningWorkspace(setup);
  const { faceSlotStart, faceWeights, slotPairs, pairBones, cornerRows, faceProducts } = setup;
  const memory = panelMemory(
    MemoryCarver.bytes(
      [panels.values.length, panels.inverseDiagonal.length, xLength, scratchLength, scratchLength]
        .concat([boneLogs.quaternions.length, boneLogs.pairLogs.length, boneLogs.pairScales.length, 3 * (n + 1)])
        .concat([faceWeights.length, faceProducts.length, faceProducts.length]),
      [belowRows.length, belowRows.length, supernodeStart.length, belowStart.length, panels.valueStart.length].concat([
        faceSlotStart.length,
        slotPairs.length,
        pairBones.length,
        cornerRows.length,
      ]),
    ),
    true,
    true,
  );
  const carver = memory === null ? null : new MemoryCarver(memory.buffer);
  const floats = (length: number): Float64Array => (carver === null ? sharedFloats(length) : carver.float64(length));
  const copyOf = <T extends Int32Array | Uint32Array | Float64Array>(array: T): T =>
    carver === null ? sharedCopy(array) : carver.copyOf(array);
  const x = floats(xLength);

  const forwardRows = copyOf(belowRows);
  bins.forEach((ranges, b) => {
    for (let r = 0; r < ranges.length; r += 2) {
      for (let i = belowStart[ranges[r]]; i < belowStart[ranges[r + 1]]; i++) {
        const t = topIndex[belowRows[i] / 3];
        if (t >= 0) forwardRows[i] = accumulatorFrom[b] + 3 * t;
      }
    }
  });

  // The faces and the frame's bone logs in the same memory, where each thread's face kernel reads them.
  const faces = {
    faceSlotStart: copyOf(faceSlotStart),
    faceWeights: copyOf(faceWeights),
    slotPairs: copyOf(slotPairs),
    pairBones: copyOf(pairBones),
    cornerRows: copyOf(cornerRows),
    faceProducts: copyOf(faceProducts),
  };
  const half = faceCount >> 1;
  const workspace: PerFaceSkinningWorkspace = {
    quaternions: floats(boneLogs.quaternions.length),
    logPositive: boneLogs.logPositive,
    logNegative: boneLogs.logNegative,
    pairLogs: floats(boneLogs.pairLogs.length),
    pairScales: floats(boneLogs.pairScales.length),
    solution: x.subarray(0, 3 * (n + 1)),
  };
  const control = new Int32Array(new SharedArrayBuffer(4 * CONTROL_WORDS));
  const shared: PerFaceHelperShared = {
    control,
    memory,
    supernodeStart: copyOf(supernodeStart),
    belowStart: copyOf(belowStart),
    belowRows: copyOf(belowRows),
    forwardRows,
    valueStart: copyOf(panels.valueStart),
    inverseDiagonal: copyOf(panels.inverseDiagonal),
    values: copyOf(panels.values),
    scratch: floats(scratchLength),
    ranges: bins[1],
    accumulatorFrom: accumulatorFrom[1],
    accumulatorTo: accumulatorFrom[1] + 3 * topRows.length,
    x,
    faces,
    contextProducts: floats(faceProducts.length),
    faceFrom: half,
    faceTo: faceCount,
    quaternions: workspace.quaternions,
    pairLogs: workspace.pairLogs,
    pairScales: workspace.pairScales,
    rhs: floats(3 * (n + 1)),
    ...rowsOf(faces.cornerRows, half, faceCount),
  };
  const helper = startHelper(shared);
  let disposed = false;

  const scratch = floats(scratchLength);
  const kernels = memory === null ? null : panelKernels(memory);
  const facesKernel = memory === null ? null : faceKernel(memory);
  const rows3 = 3 * (n + 1);
  const own = bins[0];
  const ownFrom = accumulatorFrom[0];
  const otherFrom = accumulatorFrom[1];
  const topRowList = Int32Array.from(topRows);
  const { vertexCount } = setup;
  const { valueStart, inverseDiagonal, values, rhs } = shared;
  const solveRows = shared.belowRows;
  const starts = shared.supernodeStart;
  const belows = shared.belowStart;

  const { contextProducts } = shared;
  // The shared examples (shareExamples): their views, and the room they take at the memory's end.
  let sharedExamples: SharedExamples | null = null;
  let examplesRoom: { from: number; bytes: number } | null = null;
  return {
    partition,
    contextProducts,
    frame(transforms, outPositions, boneScales = null) {
      checkedFrame(transforms, PLAIN, null, outPositions, boneScales);
    },
    contextFrame(transforms, sourcePositions, outPositions, boneScales = null) {
      checkedFrame(transforms, PRODUCTS, sourcePositions, outPositions, boneScales);
    },
    shareExamples(examples) {
      if (disposed) throw new Error('perFaceTwoCore: shareExamples after dispose');
      const copy = copyExamples(examples);
      return copy === null ? null : { ...examples, productOffsets: copy.productOffsets, polarOffsets: copy.polarOffsets };
    },
    examplesFrame(exampleWeights, blend, transforms, sourcePositions, outPositions, boneScales = null) {
      if (sharedExamples === null) throw new Error('perFaceTwoCore: examplesFrame before shareExamples');
      const count = perFaceActiveExamples(sharedExamples, exampleWeights, sharedExamples);
      Atomics.store(control, BLEND, blend === 'eq10' ? 1 : 0);
      Atomics.store(control, ACTIVE_COUNT, count);
      checkedFrame(transforms, EXAMPLES, sourcePositions, outPositions, boneScales);
    },
    dispose: stop,
  };

  /** shareExamples' copy into the memory's room for examples (grown when too small); null when it cannot grow. */
  function copyExamples(examples: PerFaceExampleOffsets): SharedExamples | null {
    const J = examples.exampleCount;
    sharedExamples = null;
    if (memory === null || examples.productOffsets.length !== 6 * faceCount * J || examples.polarOffsets.length !== 9 * faceCount * J) {
      return null;
    }
    const bytes = MemoryCarver.bytes([J], [6 * faceCount * J, 9 * faceCount * J, J]) + 64;
    if (examplesRoom === null || examplesRoom.bytes < bytes) {
      const from = memory.buffer.byteLength;
      try {
        memory.grow(Math.ceil(bytes / PAGE));
      } catch {
        return null; // over the memory's maximum, or out of memory: the caller blends the products alone
      }
      examplesRoom = { from, bytes: memory.buffer.byteLength - from };
    }
    const room = new MemoryCarver(memory.buffer, examplesRoom.from);
    sharedExamples = {
      exampleCount: J,
      productOffsets: room.copyOf(examples.productOffsets),
      polarOffsets: room.copyOf(examples.polarOffsets),
      active: room.int32(J),
      activeWeights: room.float64(J),
    };
    Atomics.store(control, EXAMPLE_COUNT, J);
    const arrays = [sharedExamples.productOffsets, sharedExamples.polarOffsets, sharedExamples.active, sharedExamples.activeWeights];
    arrays.forEach((a, i) => Atomics.store(control, EXAMPLE_ARRAYS + i, a.byteOffset));
    return sharedExamples;
  }

  function checkedFrame(
    transforms: Float64Array,
    context: number,
    sourcePositions: Float64Array | null,
    outPositions: Float64Array,
    boneScales: Float64Array | null,
  ): void {
    if (disposed) throw new Error('perFaceTwoCore: frame after dispose');
    if (sourcePositions !== null && sourcePositions.length < 3 * vertexCount) {
      throw new RangeError(`perFaceTwoCore: expected ${vertexCount}×3 source positions, got ${sourcePositions.length}`);
    }
    if (transforms.length < 12 * setup.boneCount) {
      throw new RangeError(`perFaceTwoCore: expected ${setup.boneCount}×12 transform values, got ${transforms.length}`);
    }
    if (outPositions.length < 3 * vertexCount) {
      throw new RangeError(`perFaceTwoCore: expected ${vertexCount}×3 output values, got ${outPositions.length}`);
    }
    try {
      solveFrame(transforms, context, sourcePositions, outPositions, boneScales);
    } catch (error) {
      // The helper may still be inside its share: no later frame may post to it. Stopped for good; one thread
      // (perFaceSkinning) is what the caller falls back on.
      stop();
      throw new Error(`perFaceTwoCore: the frame failed and the two threads are stopped: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }

  function stop(): void {
    if (disposed) return;
    disposed = true;
    post(control, STOP);
    helper.stop();
  }

  function solveFrame(
    transforms: Float64Array,
    context: number,
    sourcePositions: Float64Array | null,
    outPositions: Float64Array,
    boneScales: Float64Array | null,
  ): void {
    const scaled = boneScales !== null && boneScales.some((v) => v !== 1);
    boneLogarithms(setup, transforms, scaled ? boneScales : null, workspace);
    Atomics.store(control, SCALED, scaled ? 1 : 0);
    Atomics.store(control, CONTEXT, context);
    const products = context === PLAIN ? faces.faceProducts : contextProducts;
    // Faces: half here into x, half on the helper into rhs (each blending its faces' products first from examples).
    let posted = post(control, FACES);
    if (context === EXAMPLES && sharedExamples !== null) {
      const { blend, count } = frameBlend(control);
      perFaceContextProductRange(faces.faceProducts, sharedExamples, count, sharedExamples, blend, contextProducts, 0, half, facesKernel);
    }
    x.fill(0, 0, rows3);
    const pairScales = scaled ? workspace.pairScales : null;
    accumulateFaceGradients(faces, 0, half, workspace.quaternions, workspace.pairLogs, pairScales, products, x, facesKernel);
    join(control, posted);
    addInto(x, rhs, shared.rhsFrom, shared.rhsTo);
    fixedVerticesToRightHandSide(setup, transforms, sourcePositions ?? setup.restPositions, x, outPositions);
    // Forward: each bin at once, top-row updates into the accumulators; then the top here.
    posted = post(control, FORWARD);
    x.fill(0, ownFrom, ownFrom + 3 * topRowList.length);
    choleskyPanelForward(own, starts, belows, forwardRows, valueStart, inverseDiagonal, values, x, scratch, kernels);
    join(control, posted);
    for (let k = 0, a = ownFrom, b = otherFrom; k < topRowList.length; k++, a += 3, b += 3) {
      const r = 3 * topRowList[k];
      x[r] += x[a] + x[b];
      x[r + 1] += x[a + 1] + x[b + 1];
      x[r + 2] += x[a + 2] + x[b + 2];
    }
    choleskyPanelForward(top, starts, belows, solveRows, valueStart, inverseDiagonal, values, x, scratch, kernels);
    choleskyPanelBackward(top, starts, belows, solveRows, valueStart, inverseDiagonal, values, x, scratch, kernels);
    // Backward: each bin at once, below the final top.
    posted = post(control, BACKWARD);
    choleskyPanelBackward(own, starts, belows, solveRows, valueStart, inverseDiagonal, values, x, scratch, kernels);
    join(control, posted);
    copySolution(setup, x, outPositions);
  }
}

/** An EXAMPLES frame's blend and active example count, as examplesFrame posted them. */
function frameBlend(control: Int32Array): { blend: PerFaceBlend; count: number } {
  return { blend: Atomics.load(control, BLEND) === 1 ? 'eq10' : 'eq9', count: Atomics.load(control, ACTIVE_COUNT) };
}

/** The shared examples' arrays, views of the two-core frame's memory. */
interface SharedExamples extends PerFaceExampleOffsets {
  /** this frame's active examples and their weights (perFaceActiveExamples) */
  active: Int32Array;
  activeWeights: Float64Array;
}

/**
 * The shared examples as the control words place them, as views of this thread's handle of the memory (taken again
 * when they moved or the memory grew since `known`).
 */
function examplesOnMemory(
  control: Int32Array,
  memory: WebAssembly.Memory,
  faceCount: number,
  known: SharedExamples | null,
): SharedExamples {
  const J = Atomics.load(control, EXAMPLE_COUNT);
  const at = (i: number): number => Atomics.load(control, EXAMPLE_ARRAYS + i);
  if (known !== null && known.exampleCount === J && known.productOffsets.byteOffset === at(0) && known.polarOffsets.byteOffset === at(1)) {
    return known;
  }
  // This thread's handle of the memory learns of the other thread's growing it a little later (V8 updates each
  // thread's buffer on an interrupt): wait for it to cover the examples.
  const end = Math.max(at(0) + 24 * faceCount * J, at(1) + 36 * faceCount * J, at(2) + 4 * J, at(3) + 8 * J);
  const since = performance.now();
  while (memory.buffer.byteLength < end) {
    if (performance.now() - since > HELPER_TIMEOUT_MS)
      throw new Error('perFaceTwoCore: the shared memory did not grow on the helper thread');
  }
  const { buffer } = memory;
  return {
    exampleCount: J,
    productOffsets: new Float32Array(buffer, at(0), 6 * faceCount * J),
    polarOffsets: new Float32Array(buffer, at(1), 9 * faceCount * J),
    active: new Int32Array(buffer, at(2), J),
    activeWeights: new Float64Array(buffer, at(3), J),
  };
}

// The frame's plain loops are functions of their own (addInto here, copySolution of per-face-skinning.ts), so that
// V8 optimizes each on its own feedback: inside the frame's closure the copy out ran at a sixth of its speed.

/** x[i] += y[i] for from ≤ i < to. */
function addInto(x: Float64Array, y: Float64Array, from: number, to: number): void {
  for (let i = from; i < to; i++) x[i] += y[i];
}

/** The span of right-hand-side values that faces from … to − 1 add into: [rhsFrom, rhsTo). */
function rowsOf(cornerRows: Int32Array, from: number, to: number): { rhsFrom: number; rhsTo: number } {
  let low = Infinity;
  let high = -Infinity;
  for (let i = 3 * from; i < 3 * to; i++) {
    low = Math.min(low, cornerRows[i]);
    high = Math.max(high, cornerRows[i]);
  }
  return low > high ? { rhsFrom: 0, rhsTo: 0 } : { rhsFrom: low, rhsTo: high + 3 };
}

/**
 * The helper thread's loop: waits for a command (spinning a short while, then in Atomics.wait), runs its half of
 * the face loop into shared.rhs, its bin's forward pass (its accumulator zeroed first) or its bin's backward pass,
 * and reports it done; returns on the stop command. A failure is reported to the calling thread before it is thrown.
 * @param shared  the PerFaceHelperShared that perFaceTwoCore gave the starter
 */
export function runPerFaceHelper(shared: PerFaceHelperShared): void {
  try {
    helperLoop(shared);
  } catch (error) {
    // Its message for the calling thread's error, as character codes after the control words.
    const message = String((error as Error)?.message ?? error).slice(0, MESSAGE_CHARACTERS);
    for (let i = 0; i < message.length; i++) Atomics.store(shared.control, MESSAGE + i, message.charCodeAt(i));
    Atomics.store(shared.control, MESSAGE + message.length, 0);
    Atomics.store(shared.control, FAILED, 1);
    Atomics.notify(shared.control, DONE);
    throw error;
  }
}

function helperLoop(shared: PerFaceHelperShared): void {
  const { control, memory } = shared;
  const { ranges, accumulatorFrom, accumulatorTo, faceFrom, faceTo } = shared;
  const faceCount = shared.faces.faceSlotStart.length - 1;
  // The views this thread received, remade on this thread's own handle of the memory (the kernels check that they
  // are its views); the same bytes. One buffer object for every view and both kernels: the calling thread may grow
  // the memory (shareExamples) while this thread starts, which gives memory.buffer a new object here.
  const buffer = memory?.buffer ?? null;
  const onMemory = <T extends Int32Array | Uint32Array | Float64Array>(view: T): T => {
    if (buffer === null) return view;
    const Type = view.constructor as new (buffer: ArrayBufferLike, offset: number, length: number) => T;
    return new Type(buffer, view.byteOffset, view.length);
  };
  const supernodeStart = onMemory(shared.supernodeStart);
  const belowStart = onMemory(shared.belowStart);
  const belowRows = onMemory(shared.belowRows);
  const forwardRows = onMemory(shared.forwardRows);
  const valueStart = onMemory(shared.valueStart);
  const inverseDiagonal = onMemory(shared.inverseDiagonal);
  const values = onMemory(shared.values);
  const x = onMemory(shared.x);
  const scratch = onMemory(shared.scratch);
  const faces = {
    faceSlotStart: onMemory(shared.faces.faceSlotStart),
    faceWeights: onMemory(shared.faces.faceWeights),
    slotPairs: onMemory(shared.faces.slotPairs),
    pairBones: onMemory(shared.faces.pairBones),
    cornerRows: onMemory(shared.faces.cornerRows),
    faceProducts: onMemory(shared.faces.faceProducts),
  };
  const contextProducts = onMemory(shared.contextProducts);
  const quaternions = onMemory(shared.quaternions);
  const pairLogs = onMemory(shared.pairLogs);
  const pairScales = onMemory(shared.pairScales);
  const rhs = onMemory(shared.rhs);
  const kernels = memory === null || buffer === null ? null : panelKernels(memory, buffer);
  const facesKernel = memory === null || buffer === null ? null : faceKernel(memory, buffer);
  let examples: SharedExamples | null = null;
  let seen = 0;
  for (;;) {
    const since = performance.now();
    for (let polls = 1; Atomics.load(control, POSTED) === seen; polls++) {
      if (polls % POLLS === 0 && performance.now() - since > HELPER_SPIN_MS) Atomics.wait(control, POSTED, seen);
    }
    seen = Atomics.load(control, POSTED);
    const command = Atomics.load(control, COMMAND);
    if (command === FACES) {
      rhs.fill(0, shared.rhsFrom, shared.rhsTo);
      const scales = Atomics.load(control, SCALED) === 1 ? pairScales : null;
      const context = Atomics.load(control, CONTEXT);
      if (context === EXAMPLES && memory !== null) {
        examples = examplesOnMemory(control, memory, faceCount, examples);
        const { blend, count } = frameBlend(control);
        perFaceContextProductRange(faces.faceProducts, examples, count, examples, blend, contextProducts, faceFrom, faceTo, facesKernel);
      }
      const products = context === PLAIN ? faces.faceProducts : contextProducts;
      accumulateFaceGradients(faces, faceFrom, faceTo, quaternions, pairLogs, scales, products, rhs, facesKernel);
    } else if (command === FORWARD) {
      x.fill(0, accumulatorFrom, accumulatorTo);
      choleskyPanelForward(ranges, supernodeStart, belowStart, forwardRows, valueStart, inverseDiagonal, values, x, scratch, kernels);
    } else if (command === BACKWARD) {
      choleskyPanelBackward(ranges, supernodeStart, belowStart, belowRows, valueStart, inverseDiagonal, values, x, scratch, kernels);
    }
    Atomics.store(control, DONE, seen);
    Atomics.notify(control, DONE);
    if (command === STOP) return;
  }
}
