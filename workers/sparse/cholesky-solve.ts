import type { CholeskyFactor } from './cholesky-numeric.ts';

/**
 * Solves A X = B with a Cholesky factor of A, for k right-hand sides at once.
 *
 * @param factor choleskyNumeric(A, …)
 * @param b      #n × k right-hand sides, row-major (row i belongs to A's row i)
 * @param k      number of right-hand sides
 * @param out    #n × k solution, row-major; may be `b` itself (allocated when omitted)
 * @returns out
 */
export function choleskySolve(factor: CholeskyFactor, b: Float64Array, k: number, out: Float64Array = new Float64Array(b.length)): Float64Array {
  const { n, perm } = factor.symbolic;
  if (b.length !== n * k || out.length !== n * k) throw new RangeError(`choleskySolve: expected ${n}×${k} right-hand sides, got ${b.length} and ${out.length} values`);
  const x = new Float64Array(n * k);
  for (let r = 0; r < n; r++) x.set(b.subarray(perm[r] * k, perm[r] * k + k), r * k);
  choleskySolvePermuted(factor, x, k);
  for (let r = 0; r < n; r++) out.set(x.subarray(r * k, r * k + k), perm[r] * k);
  return out;
}

/**
 * Solves L Lᵀ x = y in place for k right-hand sides whose rows are already in pivot order (row r of x belongs to
 * pivot r, i.e. to A's row perm[r]) — the form a caller that builds its right-hand sides in pivot order uses to
 * save a copy. Each supernode's solved rows are one contiguous k-wide block, so its updates run as small dense
 * products with every right-hand side handled in the same pass over L.
 *
 * The forward solve skips right-hand sides that are still zero: y = L⁻¹b is non-zero only on the elimination-tree
 * ancestors of b's non-zero rows, so each supernode only works on the column range that is non-zero in its own
 * rows or in its descendants'. Right-hand sides with local support (one per bone, non-zero next to that bone's
 * handles) make the forward half nearly free; order the columns so nearby supports get nearby indices.
 *
 * @param factor choleskyNumeric(A, …)
 * @param x      #n × k, row-major, pivot order; overwritten by the solution
 * @param k      number of right-hand sides
 */
export function choleskySolvePermuted(factor: CholeskyFactor, x: Float64Array, k: number): void {
  const { supernodeCount, supernodeStart, rowPointers, rows, valuePointers, parent, supernodeOfColumn } = factor.symbolic;
  const v = factor.values;

  // Non-zero column range [low, high) of each supernode's rows in y, widened up the supernodal tree.
  const low = new Int32Array(supernodeCount).fill(k);
  const high = new Int32Array(supernodeCount);
  for (let s = 0; s < supernodeCount; s++) {
    let lo = low[s];
    let hi = high[s];
    for (let r = supernodeStart[s] * k; r < supernodeStart[s + 1] * k; r += k) {
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
    low[s] = lo;
    high[s] = hi;
    const p = parent[supernodeStart[s + 1] - 1];
    if (p >= 0 && lo < hi) {
      const t = supernodeOfColumn[p];
      if (lo < low[t]) low[t] = lo;
      if (hi > high[t]) high[t] = hi;
    }
  }

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
      const xj = (first + j) * k;
      const inverse = 1 / v[cj + j];
      for (let c = lo; c < hi; c++) x[xj + c] *= inverse;
      for (let i = j + 1; i < columns; i++) {
        const l = v[cj + i];
        if (l === 0) continue;
        const xi = (first + i) * k;
        for (let c = lo; c < hi; c++) x[xi + c] -= l * x[xj + c];
      }
    }
    let j = 0;
    for (; j + 3 < columns; j += 4) {
      const c0 = base + j * ld;
      const c1 = c0 + ld;
      const c2 = c1 + ld;
      const c3 = c2 + ld;
      const x0 = (first + j) * k;
      const x1 = x0 + k;
      const x2 = x1 + k;
      const x3 = x2 + k;
      for (let i = columns; i < ld; i++) {
        const a0 = v[c0 + i];
        const a1 = v[c1 + i];
        const a2 = v[c2 + i];
        const a3 = v[c3 + i];
        const xi = rows[rowStart + i] * k;
        for (let c = lo; c < hi; c++) x[xi + c] -= a0 * x[x0 + c] + a1 * x[x1 + c] + a2 * x[x2 + c] + a3 * x[x3 + c];
      }
    }
    for (; j < columns; j++) {
      const c0 = base + j * ld;
      const x0 = (first + j) * k;
      for (let i = columns; i < ld; i++) {
        const a0 = v[c0 + i];
        if (a0 === 0) continue;
        const xi = rows[rowStart + i] * k;
        for (let c = lo; c < hi; c++) x[xi + c] -= a0 * x[x0 + c];
      }
    }
  }

  for (let s = supernodeCount - 1; s >= 0; s--) {
    const first = supernodeStart[s];
    const columns = supernodeStart[s + 1] - first;
    const rowStart = rowPointers[s];
    const ld = rowPointers[s + 1] - rowStart;
    const base = valuePointers[s];
    for (let j = 0; j < columns; j++) {
      const cj = base + j * ld;
      const xj = (first + j) * k;
      let i = columns;
      for (; i + 3 < ld; i += 4) {
        const a0 = v[cj + i];
        const a1 = v[cj + i + 1];
        const a2 = v[cj + i + 2];
        const a3 = v[cj + i + 3];
        const y0 = rows[rowStart + i] * k;
        const y1 = rows[rowStart + i + 1] * k;
        const y2 = rows[rowStart + i + 2] * k;
        const y3 = rows[rowStart + i + 3] * k;
        for (let c = 0; c < k; c++) x[xj + c] -= a0 * x[y0 + c] + a1 * x[y1 + c] + a2 * x[y2 + c] + a3 * x[y3 + c];
      }
      for (; i < ld; i++) {
        const a0 = v[cj + i];
        if (a0 === 0) continue;
        const y0 = rows[rowStart + i] * k;
        for (let c = 0; c < k; c++) x[xj + c] -= a0 * x[y0 + c];
      }
    }
    for (let j = columns - 1; j >= 0; j--) {
      const cj = base + j * ld;
      const xj = (first + j) * k;
      for (let i = j + 1; i < columns; i++) {
        const l = v[cj + i];
        if (l === 0) continue;
        const xi = (first + i) * k;
        for (let c = 0; c < k; c++) x[xj + c] -= l * x[xi + c];
      }
      const inverse = 1 / v[cj + j];
      for (let c = 0; c < k; c++) x[xj + c] *= inverse;
    }
  }
}
