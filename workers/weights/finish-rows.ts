/**
 * The last step of harmonicWeights: each vertex's row of weights from the solve. A free vertex's solved columns go
 * back to bone order, clamped to [0, 1] and rescaled to sum to 1; a handle vertex gets weight 1 on its bone. A free
 * row that clamps to all zeros (impossible for an exact harmonic solution, whose entries sum to 1) keeps its largest
 * entry's bone at 1, so the result is still a partition of unity.
 *
 * Where the solution lies in the kernels' scratch memory (choleskySolveRows) and the rows fit beside it, a
 * WebAssembly loop finishes them there and the rows are copied out once: on a process's first binding the
 * JavaScript loop, #V × #B iterations, runs in V8's interpreter (the body's 28 ms of a 60–90 ms first binding). The
 * arithmetic is the JavaScript's in the same order, so the weights are the same bit for bit (a unit test holds them
 * equal). The module is written with the builder of sparse/wasm-module.ts and kept as base64 (FINISH_MODULE_BASE64,
 * checked by a unit test).
 */
import { ByteLayout, Fn, inScratch, kernelMemoriesOf, local, moduleBytes, range, readInt as read } from '../sparse/wasm-module.ts';

/**
 * finish(n, bones, stride, freeIndex, handles, column, pivot, solved, out, finished): out's #V × #B rows, every entry
 * written; finished: #B f64 of scratch.
 */
function finish(): Fn {
  const f = new Fn('finish', ['n', 'bones', 'stride', 'freeIndex', 'handles', 'column', 'pivot', 'solved', 'out', 'finished']);
  f.local('i32', 'v', 'b', 'row', 'from', 'c', 'h', 'free', 'largest');
  f.local('f64', 'x', 'clamped', 'sum', 'inverse', 'largestValue');
  /** x = solved row's column c of bone b (local b), 0 for a bone without handles */
  const solvedOf = (g: Fn): void => {
    read(g, 'column', local('b')).set('c');
    g.f64Zero().set('x');
    g.get('c').i32(0).greaterEqualS();
    g.when((h) => h.get('c').i32(8).mul().get('from').add().load().set('x'));
  };
  /** the address of entry b (local) of the f64 row at local `base` */
  const entryOf = (g: Fn, base: string): Fn => g.get('b').i32(8).mul().get(base).add();
  range(
    f,
    'v',
    (g) => g.i32(0),
    local('n'),
    (g) => {
      g.get('v').get('bones').mul().i32(8).mul().get('out').add().set('row');
      range(
        g,
        'b',
        (h) => h.i32(0),
        local('bones'),
        (h) => entryOf(h, 'row').f64Zero().store(),
      );
      read(g, 'freeIndex', local('v')).set('free');
      g.get('free').i32(0).lessS();
      g.when(
        (h) => {
          read(h, 'handles', local('v')).set('h');
          h.get('h').i32(0).greaterEqualS();
          h.when((k) => k.get('h').i32(8).mul().get('row').add().f64(1).store());
        },
        (h) => {
          read(h, 'pivot', local('free')).get('stride').mul().i32(8).mul().get('solved').add().set('from');
          h.f64Zero().set('sum');
          range(
            h,
            'b',
            (k) => k.i32(0),
            local('bones'),
            (k) => {
              solvedOf(k);
              // x < 0 ? 0 : x > 1 ? 1 : x (NaN stays NaN)
              k.f64Zero().f64(1).get('x').get('x').f64(1).fgreater().select().get('x').f64Zero().fless().select().set('clamped');
              entryOf(k, 'finished').get('clamped').store();
              k.get('sum').get('clamped').fadd().set('sum');
            },
          );
          h.get('sum').f64Zero().fgreater().isZero();
          h.when(
            (k) => {
              // keep the largest solved value's bone at 1 (the row is zero already)
              k.i32(0).set('largest');
              k.f64(-Infinity).set('largestValue');
              range(
                k,
                'b',
                (m) => m.i32(0),
                local('bones'),
                (m) => {
                  solvedOf(m);
                  m.get('x').get('largestValue').fgreater();
                  m.when((q) => q.get('x').set('largestValue').get('b').set('largest'));
                },
              );
              k.get('largest').i32(8).mul().get('row').add().f64(1).store();
            },
            (k) => {
              k.f64(1).f64(1).get('sum').fdiv().get('sum').f64(1).fequal().select().set('inverse');
              range(
                k,
                'b',
                (m) => m.i32(0),
                local('bones'),
                (m) => {
                  entryOf(m, 'row');
                  entryOf(m, 'finished').load().get('inverse').fmul();
                  m.store();
                },
              );
            },
          );
        },
      );
    },
  );
  return f;
}

/** The module's bytes, as the builder writes them (FINISH_MODULE_BASE64 holds them). */
export function finishModuleBytes(): Uint8Array<ArrayBuffer> {
  return moduleBytes([finish()], false);
}

/** finishModuleBytes() as base64, held equal to the builder's output by a unit test. */
export const FINISH_MODULE_BASE64 = [
  'AGFzbQEAAAABDgFgCn9/f39/f39/f38AAhIBA2VudgZtZW1vcnkCAQCAgAIDAgEABwoBBmZpbmlzaAAACrAEAa0EAgh/BXxBACEK',
  'AkADQCAKIABIRQ0BIAogAWxBCGwgCGohDEEAIQsCQANAIAsgAUhFDQEgC0EIbCAMakQAAAAAAAAAADkDACALQQFqIQsMAAsLIApB',
  'BGwgA2ooAgAhECAQQQBIBEAgCkEEbCAEaigCACEPIA9BAE4EQCAPQQhsIAxqRAAAAAAAAPA/OQMACwUgEEEEbCAGaigCACACbEEI',
  'bCAHaiENRAAAAAAAAAAAIRRBACELAkADQCALIAFIRQ0BIAtBBGwgBWooAgAhDkQAAAAAAAAAACESIA5BAE4EQCAOQQhsIA1qKwMA',
  'IRILRAAAAAAAAAAARAAAAAAAAPA/IBIgEkQAAAAAAADwP2QbIBJEAAAAAAAAAABjGyETIAtBCGwgCWogEzkDACAUIBOgIRQgC0EB',
  'aiELDAALCyAURAAAAAAAAAAAZEUEQEEAIRFEAAAAAAAA8P8hFkEAIQsCQANAIAsgAUhFDQEgC0EEbCAFaigCACEORAAAAAAAAAAA',
  'IRIgDkEATgRAIA5BCGwgDWorAwAhEgsgEiAWZARAIBIhFiALIRELIAtBAWohCwwACwsgEUEIbCAMakQAAAAAAADwPzkDAAVEAAAA',
  'AAAA8D9EAAAAAAAA8D8gFKMgFEQAAAAAAADwP2EbIRVBACELAkADQCALIAFIRQ0BIAtBCGwgDGogC0EIbCAJaisDACAVojkDACAL',
  'QQFqIQsMAAsLCwsgCkEBaiEKDAALCws=',
].join('');

const finishMemories = kernelMemoriesOf(FINISH_MODULE_BASE64);

/**
 * Writes #V × #B weights from the solution.
 *
 * @param weights   #V × #B, zero on entry; written
 * @param freeIndex #V each vertex's free index, −1 for the others
 * @param handles   #V bone of each handle vertex, −1 for the others
 * @param column    #B solve column of each bone, −1 for bones without handles
 * @param solved    the solution: free index f's row at pivotOf[f] · stride, or (pivotOf null) vertex v's row at
 *                  v · stride, which may be `weights` itself (each row is read whole before it is written)
 * @param kernel    false: the JavaScript loop even where the WebAssembly one could run
 * @returns whether the WebAssembly loop wrote the rows
 */
export function finishRows(
  weights: Float64Array,
  boneCount: number,
  freeIndex: Int32Array,
  handles: Int32Array,
  column: Int32Array,
  solved: Float64Array,
  stride: number,
  pivotOf: Int32Array | null,
  kernel = true,
): boolean {
  if (kernel && pivotOf !== null && kernelFinishRows(weights, boneCount, freeIndex, handles, column, solved, stride, pivotOf)) return true;
  // The output is far larger than any cache: each row is read once (bone order, clamped, summed) and written once,
  // and the largest entry is only sought for the rare row that clamps to all zeros.
  const finished = new Float64Array(boneCount);
  for (let v = 0; v < freeIndex.length; v++) {
    const out = v * boneCount;
    const f = freeIndex[v];
    if (f < 0) {
      if (handles[v] >= 0) weights[out + handles[v]] = 1;
      continue;
    }
    const from = (pivotOf === null ? v : pivotOf[f]) * stride;
    let sum = 0;
    for (let b = 0; b < boneCount; b++) {
      const c = column[b];
      const x = c >= 0 ? solved[from + c] : 0;
      const clamped = x < 0 ? 0 : x > 1 ? 1 : x;
      finished[b] = clamped;
      sum += clamped;
    }
    if (!(sum > 0)) {
      keepLargest(weights, out, boneCount, column, solved, from);
      continue;
    }
    const inverse = sum === 1 ? 1 : 1 / sum;
    for (let b = 0; b < boneCount; b++) weights[out + b] = finished[b] * inverse;
  }
  return false;
}

/** Row `out` of weights becomes weight 1 on the bone of the largest solved value (solved's row at `from`). */
function keepLargest(weights: Float64Array, out: number, boneCount: number, column: Int32Array, solved: Float64Array, from: number): void {
  let largest = 0;
  let largestValue = -Infinity;
  for (let b = 0; b < boneCount; b++) {
    const c = column[b];
    const x = c >= 0 ? solved[from + c] : 0;
    if (x > largestValue) {
      largestValue = x;
      largest = b;
    }
  }
  weights.fill(0, out, out + boneCount);
  weights[out + largest] = 1;
}

/**
 * finishRows in WebAssembly beside the solution in the scratch memory, the rows copied out into `weights`.
 * @returns false (weights untouched) where WebAssembly is unavailable, the solution is not in the scratch memory or
 *          the rows would not fit beside it
 */
function kernelFinishRows(
  weights: Float64Array,
  boneCount: number,
  freeIndex: Int32Array,
  handles: Int32Array,
  column: Int32Array,
  solved: Float64Array,
  stride: number,
  pivotOf: Int32Array,
): boolean {
  const memories = finishMemories();
  if (memories === null || !inScratch(solved)) return false;
  const n = freeIndex.length;
  const at = new ByteLayout(solved.byteOffset + solved.byteLength);
  const solvedAt = solved.byteOffset;
  const freeIndexAt = at.take(4 * n);
  const handlesAt = at.take(4 * n);
  const columnAt = at.take(4 * boneCount);
  const pivotAt = at.take(4 * pivotOf.length);
  const finishedAt = at.take(8 * boneCount);
  const outAt = at.take(8 * n * boneCount);
  // The scratch memory, grown when short (the solution stays where it is).
  const bound = memories.takeScratch(at.end);
  if (bound === null) return false;
  const { buffer } = bound.memory;
  new Int32Array(buffer, freeIndexAt, n).set(freeIndex);
  new Int32Array(buffer, handlesAt, n).set(handles);
  new Int32Array(buffer, columnAt, boneCount).set(column);
  new Int32Array(buffer, pivotAt, pivotOf.length).set(pivotOf);
  const run = bound.exports.finish as (...args: number[]) => void;
  run(n, boneCount, stride, freeIndexAt, handlesAt, columnAt, pivotAt, solvedAt, outAt, finishedAt);
  weights.set(new Float64Array(buffer, outAt, n * boneCount));
  return true;
}
