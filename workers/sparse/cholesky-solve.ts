import type { CholeskyFactor } from './cholesky-numeric.ts';
import { kernelSolve, kernelSolveRows } from './solve-kernel.ts';

/**
 * Solves A X = B with a Cholesky factor of A, for k right-hand sides at once.
 *
 * @param factor choleskyNumeric(A, …)
 * @param b      #n × k right-hand sides, row-major (row i belongs to A's row i)
 * @param k      number of right-hand sides
 * @param out    #n × k solution, row-major; may be `b` itself (allocated when omitted)
 * @returns out
 */
export function choleskySolve(
  factor: CholeskyFactor,
  b: Float64Array,
  k: number,
  out: Float64Array = new Float64Array(b.length),
): Float64Array {
  const { n, perm } = factor.symbolic;
  if (b.length !== n * k || out.length !== n * k)
    throw new RangeError(`choleskySolve: expected ${n}×${k} right-hand sides, got ${b.length} and ${out.length} values`);
  const x = new Float64Array(n * k);
  for (let r = 0; r < n; r++) x.set(b.subarray(perm[r] * k, perm[r] * k + k), r * k);
  choleskySolvePermuted(factor, x, k);
  for (let r = 0; r < n; r++) out.set(x.subarray(r * k, r * k + k), perm[r] * k);
  return out;
}

/**
 * Solves L Lᵀ x = y in place for k right-hand sides whose rows are already in pivot order (row r of x belongs to
 * pivot r, i.e. to A's row perm[r]) — the form a caller that builds its right-hand sides in pivot order uses to
 * save a copy; with rowOffsets the rows may sit anywhere in x. Each supernode's updates run as small dense
 * products with every right-hand side handled in the same pass over L.
 *
 * Columns that are zero are skipped. Forward: y = L⁻¹b is non-zero only on the elimination-tree ancestors of b's
 * non-zero rows, so each supernode only works on the column range that is non-zero in its own rows or in its
 * descendants'. Backward: each tree of the elimination forest is a connected component of A's graph, whose
 * solution is zero wherever its right-hand side is, so each supernode works on its tree's range. Right-hand sides
 * with local support (one per bone, non-zero next to that bone's handles, whose handle vertices cut the free
 * vertices into pieces) make most of both halves free; order the columns so nearby supports get nearby indices.
 *
 * @param factor     choleskyNumeric(A, …)
 * @param x          #n × k, row-major, pivot order (or rows placed by rowOffsets); overwritten by the solution
 * @param k          number of right-hand sides
 * @param rowOffsets optional #n: where pivot row r starts in x (default r·k; rows must not overlap). Lets the solve
 *                   run inside a larger array in any row order — e.g. directly in a caller's output, whose other
 *                   entries stay untouched
 * @param nonZero    optional #n low and high: pivot row r of x is zero outside columns [low[r], high[r]) (a row
 *                   with low ≥ high is zero). Saves reading every row of x to find them — which, in a freshly
 *                   allocated x, also touches each untouched page once more
 * @param kernel     false: the JavaScript loops even where the WebAssembly ones (solve-kernel.ts, the same solution
 *                   bit for bit) could run
 */
export function choleskySolvePermuted(
  factor: CholeskyFactor,
  x: Float64Array,
  k: number,
  rowOffsets?: Int32Array,
  nonZero?: { low: Int32Array; high: Int32Array },
  kernel = true,
): void {
  const n = factor.symbolic.n;
  let offset: Int32Array;
  if (rowOffsets) {
    if (rowOffsets.length !== n) throw new RangeError(`choleskySolvePermuted: ${rowOffsets.length} row offsets for ${n} rows`);
    for (let r = 0; r < n; r++) {
      if (!(rowOffsets[r] >= 0 && rowOffsets[r] + k <= x.length)) {
        throw new RangeError(`choleskySolvePermuted: row ${r} at offset ${rowOffsets[r]} does not fit ${k} values in ${x.length}`);
      }
    }
    offset = rowOffsets;
  } else {
    if (x.length < n * k) throw new RangeError(`choleskySolvePermuted: expected ${n}×${k} values, got ${x.length}`);
    offset = new Int32Array(n);
    for (let r = 0; r < n; r++) offset[r] = r * k;
  }
  const { supernodeCount, supernodeStart, rowPointers, rows, valuePointers, parent, supernodeOfColumn } = factor.symbolic;
  const v = factor.values;
  // Each pass is its own function with array arguments: V8 then optimizes each loop once, on its own feedback, and
  // keeps that code from one solve to the next.
  let low: Int32Array;
  let high: Int32Array;
  if (nonZero) {
    ({ low, high } = givenRanges(factor, k, nonZero, 'choleskySolvePermuted'));
  } else {
    low = new Int32Array(supernodeCount).fill(k);
    high = new Int32Array(supernodeCount);
    forwardColumnRanges(supernodeCount, supernodeStart, parent, supernodeOfColumn, x, k, offset, low, high);
  }
  if (kernel) {
    const root = rootRanges(factor, low, high);
    if (kernelSolve(factor, x, k, offset, low, high, root.low, root.high)) return;
  }
  forwardSolve(supernodeCount, supernodeStart, rowPointers, rows, valuePointers, v, x, offset, low, high);
  backwardColumnRanges(supernodeCount, supernodeStart, parent, supernodeOfColumn, low, high);
  backwardSolve(supernodeCount, supernodeStart, rowPointers, rows, valuePointers, v, x, offset, low, high);
}

/**
 * choleskySolvePermuted on right-hand sides written straight into the solve kernel's memory, so that they are not
 * copied in and out: `place` writes them into the zero rows it is given (pivot row r at r·k) and returns each row's
 * non-zero column range (choleskySolvePermuted's `nonZero`); the rows returned hold the solution, the same bit for
 * bit, and stay valid until the next kernel call.
 * @returns null, having called nothing, where the kernel cannot take the solve (choleskySolvePermuted then)
 */
export function choleskySolveRows(
  factor: CholeskyFactor,
  k: number,
  place: (x: Float64Array) => { low: Int32Array; high: Int32Array },
): Float64Array | null {
  const solve = kernelSolveRows(factor, k);
  if (solve === null) return null;
  const { low, high } = givenRanges(factor, k, place(solve.compact), 'choleskySolveRows');
  const root = rootRanges(factor, low, high);
  solve.run(low, high, root.low, root.high);
  return solve.compact;
}

/**
 * Each supernode's forward column range from each row's given non-zero range (forwardColumnRanges without reading x).
 * @param caller  named in the error when the ranges are not one per row
 */
function givenRanges(
  factor: CholeskyFactor,
  k: number,
  nonZero: { low: Int32Array; high: Int32Array },
  caller: string,
): { low: Int32Array; high: Int32Array } {
  const { n, supernodeCount, supernodeStart, parent, supernodeOfColumn } = factor.symbolic;
  if (nonZero.low.length !== n || nonZero.high.length !== n)
    throw new RangeError(`${caller}: column ranges for ${nonZero.low.length} and ${nonZero.high.length} rows, not ${n}`);
  const low = new Int32Array(supernodeCount).fill(k);
  const high = new Int32Array(supernodeCount);
  givenColumnRanges(supernodeCount, supernodeStart, parent, supernodeOfColumn, nonZero.low, nonZero.high, k, low, high);
  return { low, high };
}

/**
 * The backward pass's ranges for the kernel, forward ranges left as they are. Each elimination tree is one connected
 * component of A's graph, decoupled from the others, so its solution is zero in every column where its right-hand side
 * is: the backward solve of a supernode needs only its root's range, which after the forward pass spans the whole tree.
 */
function rootRanges(factor: CholeskyFactor, low: Int32Array, high: Int32Array): { low: Int32Array; high: Int32Array } {
  const { supernodeCount, supernodeStart, parent, supernodeOfColumn } = factor.symbolic;
  const root = { low: low.slice(), high: high.slice() };
  backwardColumnRanges(supernodeCount, supernodeStart, parent, supernodeOfColumn, root.low, root.high);
  return root;
}

/** Non-zero column range [low, high) of each supernode's rows in y = L⁻¹b, widened up the supernodal tree. */
function forwardColumnRanges(
  supernodeCount: number,
  supernodeStart: Int32Array,
  parent: Int32Array,
  supernodeOfColumn: Int32Array,
  x: Float64Array,
  k: number,
  offset: Int32Array,
  low: Int32Array,
  high: Int32Array,
): void {
  for (let s = 0; s < supernodeCount; s++) {
    let lo = low[s];
    let hi = high[s];
    for (let q = supernodeStart[s]; q < supernodeStart[s + 1]; q++) {
      const r = offset[q];
      for (let c = 0; c < lo; c++) {
        if (x[r + c] !== 0) {
          lo = c;
          break;
        }
      }
      for (let c = k - 1; c >= hi; c--) {
        if (x[r + c] !== 0) {
          hi = c + 1;
          break;
        }
      }
    }
    setRange(s, lo, hi, supernodeStart, parent, supernodeOfColumn, low, high);
  }
}

/** Records supernode s's column range [lo, hi) and widens its parent supernode's range to cover it. */
function setRange(
  s: number,
  lo: number,
  hi: number,
  supernodeStart: Int32Array,
  parent: Int32Array,
  supernodeOfColumn: Int32Array,
  low: Int32Array,
  high: Int32Array,
): void {
  low[s] = lo;
  high[s] = hi;
  const p = parent[supernodeStart[s + 1] - 1];
  if (p >= 0 && lo < hi) {
    const t = supernodeOfColumn[p];
    if (lo < low[t]) low[t] = lo;
    if (hi > high[t]) high[t] = hi;
  }
}

/** forwardColumnRanges from each row's given range [rowLow, rowHigh) (clipped to [0, k)) instead of x itself. */
function givenColumnRanges(
  supernodeCount: number,
  supernodeStart: Int32Array,
  parent: Int32Array,
  supernodeOfColumn: Int32Array,
  rowLow: Int32Array,
  rowHigh: Int32Array,
  k: number,
  low: Int32Array,
  high: Int32Array,
): void {
  for (let s = 0; s < supernodeCount; s++) {
    let lo = low[s];
    let hi = high[s];
    for (let q = supernodeStart[s]; q < supernodeStart[s + 1]; q++) {
      const a = rowLow[q] > 0 ? rowLow[q] : 0;
      const b = rowHigh[q] < k ? rowHigh[q] : k;
      if (a >= b) continue;
      if (a < lo) lo = a;
      if (b > hi) hi = b;
    }
    setRange(s, lo, hi, supernodeStart, parent, supernodeOfColumn, low, high);
  }
}

/** y = L⁻¹b in place, supernode by supernode, on each supernode's column range. */
function forwardSolve(
  supernodeCount: number,
  supernodeStart: Int32Array,
  rowPointers: Int32Array,
  rows: Int32Array,
  valuePointers: Int32Array,
  v: Float64Array,
  x: Float64Array,
  offset: Int32Array,
  low: Int32Array,
  high: Int32Array,
): void {
  for (let s = 0; s < supernodeCount; s++) {
    const lo = low[s];
    const hi = high[s];
    if (lo >= hi) continue;
    const first = supernodeStart[s];
    const columns = supernodeStart[s + 1] - first;
    const rowStart = rowPointers[s];
    const ld = rowPointers[s + 1] - rowStart;
    const base = valuePointers[s];
    for (let j = 0; j < columns; j++) {
      const cj = base + j * ld;
      const xj = offset[first + j];
      const inverse = 1 / v[cj + j];
      for (let c = lo; c < hi; c++) x[xj + c] *= inverse;
      for (let i = j + 1; i < columns; i++) {
        const l = v[cj + i];
        if (l === 0) continue;
        const xi = offset[first + i];
        for (let c = lo; c < hi; c++) x[xi + c] -= l * x[xj + c];
      }
    }
    let j = 0;
    for (; j + 3 < columns; j += 4) {
      const c0 = base + j * ld;
      const c1 = c0 + ld;
      const c2 = c1 + ld;
      const c3 = c2 + ld;
      const x0 = offset[first + j];
      const x1 = offset[first + j + 1];
      const x2 = offset[first + j + 2];
      const x3 = offset[first + j + 3];
      for (let i = columns; i < ld; i++) {
        const a0 = v[c0 + i];
        const a1 = v[c1 + i];
        const a2 = v[c2 + i];
        const a3 = v[c3 + i];
        const xi = offset[rows[rowStart + i]];
        for (let c = lo; c < hi; c++) x[xi + c] -= a0 * x[x0 + c] + a1 * x[x1 + c] + a2 * x[x2 + c] + a3 * x[x3 + c];
      }
    }
    for (; j < columns; j++) {
      const c0 = base + j * ld;
      const x0 = offset[first + j];
      for (let i = columns; i < ld; i++) {
        const a0 = v[c0 + i];
        if (a0 === 0) continue;
        const xi = offset[rows[rowStart + i]];
        for (let c = lo; c < hi; c++) x[xi + c] -= a0 * x[x0 + c];
      }
    }
  }
}

/** Every supernode takes its tree root's column range. */
function backwardColumnRanges(
  supernodeCount: number,
  supernodeStart: Int32Array,
  parent: Int32Array,
  supernodeOfColumn: Int32Array,
  low: Int32Array,
  high: Int32Array,
): void {
  for (let s = supernodeCount - 1; s >= 0; s--) {
    const p = parent[supernodeStart[s + 1] - 1];
    if (p < 0) continue;
    const t = supernodeOfColumn[p];
    low[s] = low[t];
    high[s] = high[t];
  }
}

/** x = L⁻ᵀy in place, supernodes in reverse, on each supernode's column range. */
function backwardSolve(
  supernodeCount: number,
  supernodeStart: Int32Array,
  rowPointers: Int32Array,
  rows: Int32Array,
  valuePointers: Int32Array,
  v: Float64Array,
  x: Float64Array,
  offset: Int32Array,
  low: Int32Array,
  high: Int32Array,
): void {
  for (let s = supernodeCount - 1; s >= 0; s--) {
    const lo = low[s];
    const hi = high[s];
    if (lo >= hi) continue;
    const first = supernodeStart[s];
    const columns = supernodeStart[s + 1] - first;
    const rowStart = rowPointers[s];
    const ld = rowPointers[s + 1] - rowStart;
    const base = valuePointers[s];
    let j = 0;
    // Two columns at a time: each row of x read below the supernode serves both (same sums as one at a time).
    for (; j + 1 < columns; j += 2) {
      const cj0 = base + j * ld;
      const cj1 = cj0 + ld;
      const xj0 = offset[first + j];
      const xj1 = offset[first + j + 1];
      let i = columns;
      for (; i + 3 < ld; i += 4) {
        const a0 = v[cj0 + i];
        const a1 = v[cj0 + i + 1];
        const a2 = v[cj0 + i + 2];
        const a3 = v[cj0 + i + 3];
        const b0 = v[cj1 + i];
        const b1 = v[cj1 + i + 1];
        const b2 = v[cj1 + i + 2];
        const b3 = v[cj1 + i + 3];
        const y0 = offset[rows[rowStart + i]];
        const y1 = offset[rows[rowStart + i + 1]];
        const y2 = offset[rows[rowStart + i + 2]];
        const y3 = offset[rows[rowStart + i + 3]];
        for (let c = lo; c < hi; c++) {
          const u0 = x[y0 + c];
          const u1 = x[y1 + c];
          const u2 = x[y2 + c];
          const u3 = x[y3 + c];
          x[xj0 + c] -= a0 * u0 + a1 * u1 + a2 * u2 + a3 * u3;
          x[xj1 + c] -= b0 * u0 + b1 * u1 + b2 * u2 + b3 * u3;
        }
      }
      for (; i < ld; i++) {
        const a0 = v[cj0 + i];
        const b0 = v[cj1 + i];
        const y0 = offset[rows[rowStart + i]];
        if (a0 !== 0) for (let c = lo; c < hi; c++) x[xj0 + c] -= a0 * x[y0 + c];
        if (b0 !== 0) for (let c = lo; c < hi; c++) x[xj1 + c] -= b0 * x[y0 + c];
      }
    }
    for (; j < columns; j++) {
      const cj = base + j * ld;
      const xj = offset[first + j];
      let i = columns;
      for (; i + 3 < ld; i += 4) {
        const a0 = v[cj + i];
        const a1 = v[cj + i + 1];
        const a2 = v[cj + i + 2];
        const a3 = v[cj + i + 3];
        const y0 = offset[rows[rowStart + i]];
        const y1 = offset[rows[rowStart + i + 1]];
        const y2 = offset[rows[rowStart + i + 2]];
        const y3 = offset[rows[rowStart + i + 3]];
        for (let c = lo; c < hi; c++) x[xj + c] -= a0 * x[y0 + c] + a1 * x[y1 + c] + a2 * x[y2 + c] + a3 * x[y3 + c];
      }
      for (; i < ld; i++) {
        const a0 = v[cj + i];
        if (a0 === 0) continue;
        const y0 = offset[rows[rowStart + i]];
        for (let c = lo; c < hi; c++) x[xj + c] -= a0 * x[y0 + c];
      }
    }
    for (let j = columns - 1; j >= 0; j--) {
      const cj = base + j * ld;
      const xj = offset[first + j];
      for (let i = j + 1; i < columns; i++) {
        const l = v[cj + i];
        if (l === 0) continue;
        const xi = offset[first + i];
        for (let c = lo; c < hi; c++) x[xj + c] -= l * x[xi + c];
      }
      const inverse = 1 / v[cj + j];
      for (let c = lo; c < hi; c++) x[xj + c] *= inverse;
    }
  }
}
