import type { CholeskyFactor } from './cholesky-numeric.ts';
import { releaseFactorMemory } from './factor-kernel.ts';
import { panelKernels, panelMemory, type PanelKernels } from './panel-kernels.ts';
import { grown, MemoryCarver, PAGE } from './wasm-module.ts';

/** Columns per panel: four columns' entries of a row sit side by side, so one read of the row serves all four. */
const PANEL = 4;

/**
 * A Cholesky factor L repacked for solving L Lᵀ x = b with three right-hand sides every frame (the x, y, z of a
 * mesh): each supernode's entries lie in one contiguous run, in the order the solve reads them, without the
 * explicit zeros above the diagonal that the factor's dense blocks store. The solve then streams through memory
 * once per direction instead of striding over column-major blocks, which is what bounds it on large meshes.
 *
 * Per supernode s with c columns and r rows below its diagonal block, from valueStart[s]:
 * 1. the strictly lower triangle of the diagonal block, row by row (row j: L[j][0 … j−1]);
 * 2. the r rows below, in panels of PANEL columns (the last c mod PANEL columns in panels of one): for each panel,
 *    row after row, the panel's entries of that row side by side.
 * The forward pass reads a supernode's entries in increasing address order; the backward pass reads the rows below
 * the same way and then the triangle's rows from the last, two rows at a time (one copy of the triangle serves both).
 */
export interface CholeskyPanels {
  /** matrix order */
  n: number;
  supernodeCount: number;
  /** #supernodes + 1 first pivot of each supernode (the factor's supernodeStart) */
  supernodeStart: Int32Array;
  /** #supernodes + 1 offsets into belowRows */
  belowStart: Int32Array;
  /** 3 × the pivot row of each row below a supernode's diagonal block: where the row's x, y, z start in x */
  belowRows: Int32Array;
  /** #supernodes + 1 offsets into values */
  valueStart: Int32Array;
  /** #n 1 / L[k][k] */
  inverseDiagonal: Float64Array;
  values: Float64Array;
  /** 3 × the most rows below any supernode of two or more columns: where such a supernode gathers its rows */
  scratch: Float64Array;
  /**
   * The WebAssembly kernels that run both passes of the solve (panel-kernels.ts), or null where they are unavailable
   * (then the JavaScript loops do): every array here is then a view of their memory.
   */
  kernels: PanelKernels | null;
  /**
   * With kernels, (#n + 1) × 3 values in their memory (one spare row): where a caller keeps its right-hand sides to
   * solve them in place, and where choleskyPanelSolveThree solves those it is given from elsewhere (copied in and out)
   */
  solution: Float64Array | null;
  /** With kernels, the rest of their memory (the `room` bytes asked for) for a caller's own arrays; else null */
  room: MemoryCarver | null;
}

/**
 * Packs a factor for choleskyPanelSolveThree, once per factorization (refactoring the factor needs a new packing).
 * @param factor   choleskyNumeric(A, …)
 * @param kernels  false: leave the WebAssembly kernels out (the JavaScript loops solve; the same results bit for bit)
 * @param room     bytes to leave in the kernels' memory for the caller's arrays (panels.room hands them out)
 * @param inPlace  consume the factor: with kernels, a large factor's values are packed where they lie, in the memory
 *                 the WebAssembly factorization made them in, and the panels' other arrays laid after them, so that no
 *                 fresh pages are touched for the packed values (a copy into a new memory costs as much again as the
 *                 packing); other factors are copied as without it. Either way `factor.values` is left empty.
 * @returns the panels; without kernels they share the factor's supernodeStart, and nothing else
 */
export function choleskyPanels(factor: CholeskyFactor, kernels = true, room = 0, inPlace = false): CholeskyPanels {
  const { n, supernodeCount, supernodeStart, rowPointers, valuePointers, storedValues } = factor.symbolic;
  let v = factor.values;
  const belowStart = new Int32Array(supernodeCount + 1);
  const valueStart = new Int32Array(supernodeCount + 1);
  let belowTotal = 0;
  let valueTotal = 0;
  let widest = 0;
  // Whether the blocks lie one after another in supernode order, which packing in place relies on.
  let blocksInOrder = true;
  for (let s = 0, stored = 0; s < supernodeCount; s++) {
    const columns = supernodeStart[s + 1] - supernodeStart[s];
    const below = rowPointers[s + 1] - rowPointers[s] - columns;
    blocksInOrder &&= valuePointers[s] === stored;
    stored += columns * (columns + below);
    belowStart[s] = belowTotal;
    valueStart[s] = valueTotal;
    belowTotal += below;
    valueTotal += (columns * (columns - 1)) / 2 + columns * below;
    if (columns > 1 && below > widest) widest = below;
  }
  belowStart[supernodeCount] = belowTotal;
  valueStart[supernodeCount] = valueTotal;
  const counts = supernodeCount + 1;
  const others = MemoryCarver.bytes([n, 3 * widest, 3 * n + 3], [belowTotal, counts, counts, counts]) + room;
  // In place: the packed values from the memory's start (never past the factor's own values: a supernode's packed
  // entries are fewer than its block's), everything else after the factor's values.
  const factorMemory = kernels && inPlace && blocksInOrder ? releaseFactorMemory(v) : null;
  const valueBytes = factorMemory === null ? 0 : MemoryCarver.bytes([storedValues], []);
  const memory = !kernels
    ? null
    : factorMemory !== null && grown(factorMemory, Math.ceil((valueBytes + others) / PAGE))
      ? factorMemory
      : panelMemory(MemoryCarver.bytes([valueTotal], []) + others, false);
  if (inPlace) factor.values = new Float64Array(0);
  const packInPlace = memory !== null && memory === factorMemory;
  if (packInPlace) v = new Float64Array(memory.buffer, 0, storedValues);
  const carver = memory === null ? null : new MemoryCarver(memory.buffer, valueBytes);
  // With the kernels, everything the solve reads lies in their memory (the index arrays copied there).
  const onMemory = (array: Int32Array): Int32Array => (carver === null ? array : carver.copyOf(array));
  const belowRows = carver === null ? new Int32Array(belowTotal) : carver.int32(belowTotal);
  const values =
    carver === null
      ? new Float64Array(valueTotal)
      : packInPlace
        ? new Float64Array(memory.buffer, 0, valueTotal)
        : carver.float64(valueTotal);
  const inverseDiagonal = carver === null ? new Float64Array(n) : carver.float64(n);
  const kernelsOn = memory === null ? null : panelKernels(memory);
  packSupernodes(factor.symbolic, v, belowStart, valueStart, belowRows, values, inverseDiagonal, packInPlace ? kernelsOn : null);
  return {
    n,
    supernodeCount,
    supernodeStart: onMemory(supernodeStart),
    belowStart: onMemory(belowStart),
    belowRows,
    valueStart: onMemory(valueStart),
    inverseDiagonal,
    values,
    scratch: carver === null ? new Float64Array(3 * widest) : carver.float64(3 * widest),
    kernels: kernelsOn,
    solution: carver === null ? null : carver.float64(3 * n + 3),
    room: carver,
  };
}

/**
 * The packing's copy, supernode by supernode (a function of its own, so that V8 compiles this loop whole rather
 * than the sizing loop before it): each row below's x offset, 1 / L[k][k], the triangle by rows, then the rows below
 * in panels of four columns side by side and the last columns one at a time.
 * @param inPlace  null, or the kernels on the one buffer that `values` and `source` are views of, both from its
 *                 start: packing in place. A supernode's packed entries start no later than its block and are
 *                 fewer, so earlier supernodes never reach a later block; a block its own packed entries reach into
 *                 is read from a copy by the loops here, the others are packed by the kernels' packBlock.
 */
function packSupernodes(
  symbolic: CholeskyFactor['symbolic'],
  source: Float64Array,
  belowStart: Int32Array,
  valueStart: Int32Array,
  belowRows: Int32Array,
  values: Float64Array,
  inverseDiagonal: Float64Array,
  inPlace: PanelKernels | null,
): void {
  const { supernodeCount, supernodeStart, rowPointers, rows, valuePointers } = symbolic;
  let block = new Float64Array(0);
  for (let s = 0; s < supernodeCount; s++) {
    const first = supernodeStart[s];
    const columns = supernodeStart[s + 1] - first;
    const ld = rowPointers[s + 1] - rowPointers[s];
    const below = ld - columns;
    let v = source;
    let base = valuePointers[s];
    for (let i = 0; i < below; i++) belowRows[belowStart[s] + i] = 3 * rows[rowPointers[s] + columns + i];
    for (let j = 0; j < columns; j++) inverseDiagonal[first + j] = 1 / v[base + j * ld + j];
    if (inPlace !== null) {
      if (valueStart[s + 1] <= base) {
        inPlace.packBlock(8 * base, columns, ld, 8 * valueStart[s]);
        continue;
      }
      if (block.length < columns * ld) block = new Float64Array(columns * ld);
      block.set(source.subarray(base, base + columns * ld));
      v = block;
      base = 0;
    }
    let p = valueStart[s];
    for (let j = 1; j < columns; j++) for (let k = 0; k < j; k++) values[p++] = v[base + k * ld + j];
    let j = 0;
    for (; j + PANEL <= columns; j += PANEL) {
      // One panel (PANEL = 4 columns): each row's four entries side by side, read from four columns at once.
      const c0 = base + j * ld;
      const c1 = c0 + ld;
      const c2 = c1 + ld;
      const c3 = c2 + ld;
      for (let i = columns; i < ld; i++, p += PANEL) {
        values[p] = v[c0 + i];
        values[p + 1] = v[c1 + i];
        values[p + 2] = v[c2 + i];
        values[p + 3] = v[c3 + i];
      }
    }
    for (; j < columns; j++) for (let i = columns, c = base + j * ld; i < ld; i++) values[p++] = v[c + i];
  }
}

/**
 * Solves L Lᵀ x = y in place for three dense right-hand sides interleaved row by row in pivot order (x[3r + c] is
 * column c of pivot row r), on the packed factor: the same result as choleskySolvePermuted(factor, x, 3) up to
 * round-off (the sums run in another order). A supernode of two or more columns gathers the rows below it into
 * contiguous scratch, so each row's x, y, z is fetched from x once per supernode however many columns it has.
 * Extra trailing rows of x are left alone.
 *
 * @param panels choleskyPanels(factor)
 * @param x      at least #n × 3 values, pivot order; overwritten by the solution
 */
export function choleskyPanelSolveThree(panels: CholeskyPanels, x: Float64Array): void {
  const { n, supernodeCount, supernodeStart, belowStart, belowRows, valueStart, inverseDiagonal, values, scratch } = panels;
  if (x.length < 3 * n) throw new RangeError(`choleskyPanelSolveThree: expected ${n}×3 values, got ${x.length}`);
  const { kernels, solution } = panels;
  // The kernels read x in their memory: a right-hand side from elsewhere is solved in the panels' own rows.
  const y = kernels === null || solution === null || x.buffer === kernels.buffer ? x : solution;
  if (y !== x) y.set(x.subarray(0, 3 * n));
  // Each pass is its own function with array arguments, so V8 optimizes each loop on its own feedback.
  const all = new Int32Array([0, supernodeCount]);
  choleskyPanelForward(all, supernodeStart, belowStart, belowRows, valueStart, inverseDiagonal, values, y, scratch, kernels);
  choleskyPanelBackward(all, supernodeStart, belowStart, belowRows, valueStart, inverseDiagonal, values, y, scratch, kernels);
  if (y !== x) x.set(y.subarray(0, 3 * n));
}

/**
 * y = L⁻¹ b in place over some supernodes, supernode by supernode: the diagonal block's rows, then the rows below.
 * Over all supernodes ([0, #supernodes)) with the panels' belowRows this is the forward half of
 * choleskyPanelSolveThree. A supernode's solved rows are subtracted from the rows below it at the x offsets that
 * `belowRows` gives, so a caller that solves a subtree apart can send the updates of rows outside it elsewhere (a
 * copy of panels.belowRows with those entries changed) and add them in later: subtractions from one row commute up to
 * round-off.
 * @param ranges          pairs [first, end) of supernodes, ascending and disjoint, each run in increasing order;
 *                        a supernode's rows below must be solved after it (by these ranges or by a later call)
 * @param belowRows       panels.belowRows, or a copy that redirects some rows' updates (3 × a row's x offset)
 * @param v               panels.values
 * @param x               three right-hand sides interleaved in pivot order (see choleskyPanelSolveThree)
 * @param t               scratch of at least panels.scratch.length values, private to this call
 * @param kernels         panels.kernels (or another instance on their memory), or null: then the JavaScript loops
 *                        below run the pass; with kernels, every array argument must be a view of their memory
 * (the other arguments are the panels' arrays of the same names)
 */
export function choleskyPanelForward(
  ranges: Int32Array,
  supernodeStart: Int32Array,
  belowStart: Int32Array,
  belowRows: Int32Array,
  valueStart: Int32Array,
  inverseDiagonal: Float64Array,
  v: Float64Array,
  x: Float64Array,
  t: Float64Array,
  kernels: PanelKernels | null = null,
): void {
  if (kernels !== null) {
    onKernelMemory(kernels, supernodeStart, belowStart, belowRows, valueStart, inverseDiagonal, v, x, t);
    for (let r = 0; r < ranges.length; r += 2) {
      const [ss, bs, vs, inv] = [supernodeStart.byteOffset, belowStart.byteOffset, valueStart.byteOffset, inverseDiagonal.byteOffset];
      kernels.forwardRange(ranges[r], ranges[r + 1], ss, bs, vs, inv, v.byteOffset, x.byteOffset, t.byteOffset, belowRows.byteOffset);
    }
    return;
  }
  for (let r = 0; r < ranges.length; r += 2)
    for (let s = ranges[r], stop = ranges[r + 1]; s < stop; s++) {
      const first = supernodeStart[s];
      const columns = supernodeStart[s + 1] - first;
      const rowStart = belowStart[s];
      const below = belowStart[s + 1] - rowStart;
      const xb = 3 * first;
      let p = valueStart[s];
      // Row j of the block: x_j = (b_j − Σ_{k<j} L[j][k] x_k) / L[j][j].
      let inverse = inverseDiagonal[first];
      x[xb] *= inverse;
      x[xb + 1] *= inverse;
      x[xb + 2] *= inverse;
      for (let j = 1; j < columns; j++) {
        let a = 0,
          b = 0,
          c = 0;
        for (let k = 0, xk = xb; k < j; k++, xk += 3) {
          const l = v[p++];
          a += l * x[xk];
          b += l * x[xk + 1];
          c += l * x[xk + 2];
        }
        const xj = xb + 3 * j;
        inverse = inverseDiagonal[first + j];
        x[xj] = (x[xj] - a) * inverse;
        x[xj + 1] = (x[xj + 1] - b) * inverse;
        x[xj + 2] = (x[xj + 2] - c) * inverse;
      }
      if (below === 0) continue;
      if (columns === 1) {
        const a0 = x[xb],
          b0 = x[xb + 1],
          d0 = x[xb + 2];
        for (let i = 0; i < below; i++) {
          const l = v[p + i];
          const xi = belowRows[rowStart + i];
          x[xi] -= l * a0;
          x[xi + 1] -= l * b0;
          x[xi + 2] -= l * d0;
        }
        continue;
      }
      t.fill(0, 0, 3 * below);
      let j = 0;
      for (; j + PANEL <= columns; j += PANEL) {
        const x0 = xb + 3 * j;
        const a0 = x[x0],
          b0 = x[x0 + 1],
          d0 = x[x0 + 2];
        const a1 = x[x0 + 3],
          b1 = x[x0 + 4],
          d1 = x[x0 + 5];
        const a2 = x[x0 + 6],
          b2 = x[x0 + 7],
          d2 = x[x0 + 8];
        const a3 = x[x0 + 9],
          b3 = x[x0 + 10],
          d3 = x[x0 + 11];
        for (let ti = 0, end = 3 * below; ti < end; ti += 3, p += PANEL) {
          const l0 = v[p],
            l1 = v[p + 1],
            l2 = v[p + 2],
            l3 = v[p + 3];
          t[ti] += l0 * a0 + l1 * a1 + l2 * a2 + l3 * a3;
          t[ti + 1] += l0 * b0 + l1 * b1 + l2 * b2 + l3 * b3;
          t[ti + 2] += l0 * d0 + l1 * d1 + l2 * d2 + l3 * d3;
        }
      }
      for (; j < columns; j++) {
        const x0 = xb + 3 * j;
        const a0 = x[x0],
          b0 = x[x0 + 1],
          d0 = x[x0 + 2];
        for (let ti = 0, end = 3 * below; ti < end; ti += 3, p++) {
          const l = v[p];
          t[ti] += l * a0;
          t[ti + 1] += l * b0;
          t[ti + 2] += l * d0;
        }
      }
      for (let i = 0, ti = 0; i < below; i++, ti += 3) {
        const xi = belowRows[rowStart + i];
        x[xi] -= t[ti];
        x[xi + 1] -= t[ti + 1];
        x[xi + 2] -= t[ti + 2];
      }
    }
}

/**
 * x = L⁻ᵀ y in place over some supernodes, in reverse: the rows below, then the diagonal block's rows from the last.
 * Over all supernodes this is the backward half of choleskyPanelSolveThree. A supernode reads only the final x of
 * the rows below it, so the rows below every supernode of `ranges` must be solved before (or by these ranges).
 * @param ranges  pairs [first, end) of supernodes, ascending and disjoint; run from the last range's last supernode
 *                down to the first's first
 * (the other arguments as choleskyPanelForward's, with the panels' own belowRows)
 */
export function choleskyPanelBackward(
  ranges: Int32Array,
  supernodeStart: Int32Array,
  belowStart: Int32Array,
  belowRows: Int32Array,
  valueStart: Int32Array,
  inverseDiagonal: Float64Array,
  v: Float64Array,
  x: Float64Array,
  t: Float64Array,
  kernels: PanelKernels | null = null,
): void {
  if (kernels !== null) {
    onKernelMemory(kernels, supernodeStart, belowStart, belowRows, valueStart, inverseDiagonal, v, x, t);
    for (let r = ranges.length - 2; r >= 0; r -= 2) {
      const [ss, bs, vs, inv] = [supernodeStart.byteOffset, belowStart.byteOffset, valueStart.byteOffset, inverseDiagonal.byteOffset];
      kernels.backwardRange(ranges[r], ranges[r + 1], ss, bs, vs, inv, v.byteOffset, x.byteOffset, t.byteOffset, belowRows.byteOffset);
    }
    return;
  }
  for (let r = ranges.length - 2; r >= 0; r -= 2)
    for (let s = ranges[r + 1] - 1, low = ranges[r]; s >= low; s--) {
      const first = supernodeStart[s];
      const columns = supernodeStart[s + 1] - first;
      const rowStart = belowStart[s];
      const below = belowStart[s + 1] - rowStart;
      const xb = 3 * first;
      const triangle = (columns * (columns - 1)) / 2;
      let p = valueStart[s] + triangle;
      if (columns === 1) {
        let a = 0,
          b = 0,
          d = 0;
        for (let i = 0; i < below; i++, p++) {
          const l = v[p];
          const yi = belowRows[rowStart + i];
          a += l * x[yi];
          b += l * x[yi + 1];
          d += l * x[yi + 2];
        }
        const inverse = inverseDiagonal[first];
        x[xb] = (x[xb] - a) * inverse;
        x[xb + 1] = (x[xb + 1] - b) * inverse;
        x[xb + 2] = (x[xb + 2] - d) * inverse;
        continue;
      }
      if (below > 0) {
        for (let i = 0, ti = 0; i < below; i++, ti += 3) {
          const yi = belowRows[rowStart + i];
          t[ti] = x[yi];
          t[ti + 1] = x[yi + 1];
          t[ti + 2] = x[yi + 2];
        }
        let j = 0;
        for (; j + PANEL <= columns; j += PANEL) {
          let a0 = 0,
            b0 = 0,
            d0 = 0,
            a1 = 0,
            b1 = 0,
            d1 = 0,
            a2 = 0,
            b2 = 0,
            d2 = 0,
            a3 = 0,
            b3 = 0,
            d3 = 0;
          for (let ti = 0, end = 3 * below; ti < end; ti += 3, p += PANEL) {
            const u = t[ti],
              w = t[ti + 1],
              z = t[ti + 2];
            const l0 = v[p],
              l1 = v[p + 1],
              l2 = v[p + 2],
              l3 = v[p + 3];
            a0 += l0 * u;
            b0 += l0 * w;
            d0 += l0 * z;
            a1 += l1 * u;
            b1 += l1 * w;
            d1 += l1 * z;
            a2 += l2 * u;
            b2 += l2 * w;
            d2 += l2 * z;
            a3 += l3 * u;
            b3 += l3 * w;
            d3 += l3 * z;
          }
          const x0 = xb + 3 * j;
          x[x0] -= a0;
          x[x0 + 1] -= b0;
          x[x0 + 2] -= d0;
          x[x0 + 3] -= a1;
          x[x0 + 4] -= b1;
          x[x0 + 5] -= d1;
          x[x0 + 6] -= a2;
          x[x0 + 7] -= b2;
          x[x0 + 8] -= d2;
          x[x0 + 9] -= a3;
          x[x0 + 10] -= b3;
          x[x0 + 11] -= d3;
        }
        for (; j < columns; j++) {
          let a = 0,
            b = 0,
            d = 0;
          for (let ti = 0, end = 3 * below; ti < end; ti += 3, p++) {
            const l = v[p];
            a += l * t[ti];
            b += l * t[ti + 1];
            d += l * t[ti + 2];
          }
          const x0 = xb + 3 * j;
          x[x0] -= a;
          x[x0 + 1] -= b;
          x[x0 + 2] -= d;
        }
      }
      // Rows of the block from the last, two at a time: x_i is final once the rows after it have been taken off,
      // x_i = y_i / L[i][i]; then row i's entries take L[i][k] x_i off each earlier x_k. Rows i and i − 1 go together
      // (x_{i−1} first gets row i's last entry), so each earlier x_k is read and written once per pair.
      // Row i's i entries end where row i + 1's begin; the last row's end where the rows below begin.
      let rowEnd = valueStart[s] + triangle;
      let i = columns - 1;
      for (; i >= 1; i -= 2) {
        const upper = rowEnd - i; // row i: L[i][0 … i−1]
        const lower = upper - (i - 1); // row i − 1: L[i−1][0 … i−2]
        const xi = xb + 3 * i;
        let inverse = inverseDiagonal[first + i];
        const a = x[xi] * inverse,
          b = x[xi + 1] * inverse,
          d = x[xi + 2] * inverse;
        x[xi] = a;
        x[xi + 1] = b;
        x[xi + 2] = d;
        const li = v[upper + i - 1];
        const xh = xi - 3;
        inverse = inverseDiagonal[first + i - 1];
        const e = (x[xh] - li * a) * inverse,
          f = (x[xh + 1] - li * b) * inverse,
          g = (x[xh + 2] - li * d) * inverse;
        x[xh] = e;
        x[xh + 1] = f;
        x[xh + 2] = g;
        for (let k = 0, xk = xb; k < i - 1; k++, xk += 3) {
          const l = v[upper + k],
            m = v[lower + k];
          x[xk] -= l * a + m * e;
          x[xk + 1] -= l * b + m * f;
          x[xk + 2] -= l * d + m * g;
        }
        rowEnd = lower;
      }
      if (i === 0) {
        const inverse = inverseDiagonal[first];
        x[xb] *= inverse;
        x[xb + 1] *= inverse;
        x[xb + 2] *= inverse;
      }
    }
}

/** The kernels address their memory only: every array they read or write must be a view of it. */
function onKernelMemory(kernels: PanelKernels, ...views: (Int32Array | Float64Array)[]): void {
  for (const view of views) {
    if (view.buffer !== kernels.buffer) {
      throw new Error('choleskyPanelForward/Backward: with the WebAssembly kernels, every array must be a view of their memory');
    }
  }
}
