import type { CscMatrix } from './csc-matrix.ts';
import type { CholeskySymbolic } from './cholesky-symbolic.ts';
import { NotPositiveDefiniteError } from './not-positive-definite-error.ts';
import { kernelFactor, PIVOT_CANCELLATION } from './factor-kernel.ts';
import { SCRATCH_BYTES } from './wasm-module.ts';

/** A numeric Cholesky factor P A Pᵀ = L Lᵀ: dense supernode blocks laid out as `symbolic` describes. */
export interface CholeskyFactor {
  symbolic: CholeskySymbolic;
  /** #symbolic.storedValues: supernode blocks, column-major, leading dimension = the supernode's row count */
  values: Float64Array;
}

/**
 * Left-looking supernodal Cholesky factorization (Ng & Peyton 1993): for each supernode in column order, gather
 * A's entries into its dense block, subtract the updates of every earlier supernode whose rows reach it
 * (one dense product per descendant, scattered through relative row indices), then factor the block's
 * diagonal part and scale the rows below.
 *
 * The loop runs as WebAssembly (factor-kernel.ts) where the runtime allows: a large factor's values are then a view
 * of the kernel's memory (a small one's are copied out of it). A pivot that keeps less than PIVOT_CANCELLATION of its original diagonal entry means the
 * matrix is singular to working precision (e.g. a Laplacian block with no Dirichlet row): it is reported instead of
 * divided by.
 *
 * @param a        symmetric positive definite matrix with exactly the pattern `symbolic` was made from
 * @param symbolic choleskySymbolic(pattern of a, ordering)
 * @param out      a factor to overwrite (reuses its storage when refactoring with new values)
 * @param kernel   false: the JavaScript loop even where the WebAssembly one could run; a number: the size in bytes
 *                 up to which the WebAssembly loop works in its scratch memory and copies the factor out (0: every
 *                 factor in a memory of its own; the default is SCRATCH_BYTES)
 * @returns the factor
 * @throws NotPositiveDefiniteError when a pivot is ≤ 0, NaN, or lost to cancellation
 */
export function choleskyNumeric(
  a: CscMatrix,
  symbolic: CholeskySymbolic,
  out?: CholeskyFactor,
  kernel: boolean | number = true,
): CholeskyFactor {
  if (a.rowIndices.length !== symbolic.matrixNonzeros || a.cols !== symbolic.n) {
    throw new RangeError(
      `choleskyNumeric: the matrix (order ${a.cols}, ${a.rowIndices.length} non-zeros) is not the pattern analysed (order ${symbolic.n}, ${symbolic.matrixNonzeros} non-zeros)`,
    );
  }
  const made =
    kernel === false
      ? null
      : kernelFactor(
          symbolic,
          (values) => assemble(symbolic.assemblyMap, a.values, values),
          out?.values,
          kernel === true ? SCRATCH_BYTES : kernel,
        );
  if (made !== null) {
    const { values, failed } = made;
    if (failed >= 0) {
      const s = symbolic.supernodeOfColumn[failed];
      const rowCount = symbolic.rowPointers[s + 1] - symbolic.rowPointers[s];
      const j = failed - symbolic.supernodeStart[s];
      throw new NotPositiveDefiniteError(symbolic.perm[failed], values[symbolic.valuePointers[s] + j * rowCount + j]);
    }
    if (out) {
      out.symbolic = symbolic;
      out.values = values;
      return out;
    }
    return { symbolic, values };
  }
  const reuse = out !== undefined && out.values.length === symbolic.storedValues;
  // A new array is already zero; filling it would touch every page of a large factor once more.
  const values = reuse ? out.values.fill(0) : new Float64Array(symbolic.storedValues);
  assemble(symbolic.assemblyMap, a.values, values);
  const { n, supernodeCount, supernodeStart, supernodeOfColumn, rowPointers, rows, valuePointers, perm, largestBlock } = symbolic;
  // An update's rows are some of its target's rows, its columns some of the target's columns: no update is larger
  // than the largest block.
  const update = new Float64Array(largestBlock);
  factorSupernodes(n, supernodeCount, supernodeStart, supernodeOfColumn, rowPointers, rows, valuePointers, perm, values, update);
  if (out) {
    out.symbolic = symbolic;
    out.values = values;
    return out;
  }
  return { symbolic, values };
}

/** Adds A's entries into the supernode blocks (map: CholeskySymbolic.assemblyMap). */
function assemble(map: Int32Array, av: Float64Array, values: Float64Array): void {
  for (let p = 0; p < map.length; p++) {
    const m = map[p];
    if (m >= 0) values[m] += av[p];
  }
}

/**
 * The factorization loop proper, on the symbolic analysis's arrays passed one by one: V8 optimizes it on the
 * arrays' own types, and that code stays valid from one factorization to the next.
 */
function factorSupernodes(
  n: number,
  supernodeCount: number,
  supernodeStart: Int32Array,
  supernodeOfColumn: Int32Array,
  rowPointers: Int32Array,
  rows: Int32Array,
  valuePointers: Int32Array,
  perm: Int32Array,
  values: Float64Array,
  update: Float64Array,
): void {
  const local = new Int32Array(n);
  const relative = new Int32Array(n);
  const head = new Int32Array(supernodeCount).fill(-1);
  const link = new Int32Array(supernodeCount);
  const cursor = new Int32Array(supernodeCount);
  const originalDiagonal = new Float64Array(n);

  for (let s = 0; s < supernodeCount; s++) {
    const first = supernodeStart[s];
    const columns = supernodeStart[s + 1] - first;
    const rowStart = rowPointers[s];
    const rowCount = rowPointers[s + 1] - rowStart;
    const base = valuePointers[s];
    // s's own columns come first among its rows, in order: only the rows below need a map.
    for (let r = columns; r < rowCount; r++) local[rows[rowStart + r]] = r;
    for (let j = 0; j < columns; j++) originalDiagonal[first + j] = values[base + j * rowCount + j];
    const end = first + columns;

    let d = head[s];
    head[s] = -1;
    while (d !== -1) {
      const nextD = link[d];
      const dRowStart = rowPointers[d];
      const dRowEnd = rowPointers[d + 1];
      const dRows = dRowEnd - dRowStart;
      const dColumns = supernodeStart[d + 1] - supernodeStart[d];
      const dBase = valuePointers[d];
      const p1 = cursor[d];
      // Where each of d's rows from p1 on sits in s's block, looked up once for the whole update: the rows in s's
      // columns (the update's width) at their column, the rows below through the map.
      let p2 = p1;
      for (; p2 < dRowEnd; p2++) {
        const row = rows[p2];
        if (row >= end) break;
        relative[p2 - p1] = row - first;
      }
      for (let p = p2; p < dRowEnd; p++) relative[p - p1] = local[rows[p]];
      const i0 = p1 - dRowStart;
      const height = dRowEnd - p1;
      const width = p2 - p1;
      if (dColumns === 1) {
        // Most supernodes of a mesh Laplacian are single columns: subtract the outer product directly.
        const c0 = dBase + i0;
        for (let j = 0; j < width; j++) {
          const target = base + relative[j] * rowCount;
          const a0 = values[c0 + j];
          for (let i = j; i < height; i++) values[target + relative[i]] -= values[c0 + i] * a0;
        }
      } else {
        descendantUpdate(values, dBase + i0, dRows, dColumns, height, width, update, base, rowCount, relative);
      }
      if (p2 < dRowEnd) {
        const t = supernodeOfColumn[rows[p2]];
        cursor[d] = p2;
        link[d] = head[t];
        head[t] = d;
      }
      d = nextD;
    }

    factorBlock(values, base, rowCount, columns, first, originalDiagonal, perm);

    if (rowCount > columns) {
      const t = supernodeOfColumn[rows[rowStart + columns]];
      cursor[s] = rowStart + columns;
      link[s] = head[t];
      head[t] = s;
    }
  }
}

/**
 * Subtracts descendant d's update L_d[i0:, :] · L_d[i0 : i0+width, :]ᵀ (lower trapezoid) from supernode s's block,
 * row i of the update landing on s's row relative[i]. Passes over four columns of L_d at a time (the first one over
 * the last one to three columns when columns is not a multiple of four, a missing column counting as a zero
 * coefficient on a column already present). An L_d of one pass (at most four columns) subtracts its products from
 * s's block directly, two update columns at a time; a longer one goes four update columns at a time (each entry of
 * L_d loaded serves sixteen products), then two, its passes but the last adding into `c` (height × width,
 * column-major, zeroed first) and the last subtracting their sum. A last odd update column is summed row by row
 * (groups of four columns of L_d, then the rest one at a time) and subtracted directly.
 *
 * @param v        the factor's values: L_d's block and s's block
 * @param top      offset of L_d's entry (i0, 0)
 * @param ld       L_d's leading dimension
 * @param columns  L_d's column count
 * @param base     offset of s's block
 * @param rowCount s's leading dimension
 * @param relative #height: s's row of each of the update's rows
 */
function descendantUpdate(
  v: Float64Array,
  top: number,
  ld: number,
  columns: number,
  height: number,
  width: number,
  c: Float64Array,
  base: number,
  rowCount: number,
  relative: Int32Array,
): void {
  const rest = columns & 3;
  const blocked = columns - rest;
  // The passes before the last: the partial one first, then every group of four but the last.
  const firstGroup = rest === 0 ? 4 : 0;
  const last = blocked - 4;
  let j = 0;
  if (columns <= 4) {
    for (; j + 1 < width; j += 2)
      subtractPair(v, top, ld, columns, j, height, relative, base + relative[j] * rowCount, base + relative[j + 1] * rowCount);
  } else {
    for (; j + 3 < width; j += 4) {
      const cj = j * height;
      c.fill(0, cj + j, cj + 4 * height);
      if (rest !== 0) addQuad(v, top + blocked * ld, ld, rest, j, height, c, cj);
      else addQuad(v, top, ld, 4, j, height, c, cj);
      for (let t = firstGroup; t < last; t += 4) addQuad(v, top + t * ld, ld, 4, j, height, c, cj);
      finishQuad(v, top + last * ld, ld, j, height, c, cj, relative, base, rowCount);
    }
    for (; j + 1 < width; j += 2) {
      const cj = j * height;
      c.fill(0, cj + j, cj + 2 * height);
      if (rest !== 0) addPair(v, top + blocked * ld, ld, rest, j, height, c, cj);
      else addPair(v, top, ld, 4, j, height, c, cj);
      for (let t = firstGroup; t < last; t += 4) addPair(v, top + t * ld, ld, 4, j, height, c, cj);
      finishPair(v, top + last * ld, ld, j, height, c, cj, relative, base + relative[j] * rowCount, base + relative[j + 1] * rowCount);
    }
  }
  if (j < width) {
    // The last column alone, row by row: each row's products summed in the same order as the passes above.
    const tj = base + relative[j] * rowCount;
    for (let i = j; i < height; i++) {
      let sum = 0;
      let c0 = top;
      for (let t = 0; t < blocked; t += 4, c0 += 4 * ld) {
        const c1 = c0 + ld;
        const c2 = c1 + ld;
        const c3 = c2 + ld;
        sum += v[c0 + i] * v[c0 + j] + v[c1 + i] * v[c1 + j] + v[c2 + i] * v[c2 + j] + v[c3 + i] * v[c3 + j];
      }
      for (let t = blocked; t < columns; t++, c0 += ld) sum += v[c0 + i] * v[c0 + j];
      v[tj + relative[i]] -= sum;
    }
  }
}

// The passes of descendantUpdate over `count` (1 to 4) columns of L_d from c0, for update columns j and j+1 (rows j
// .. height−1, column j+1 from its diagonal row j+1) or j .. j+3 (rows j .. j+2, the triangle above row j+3 where
// the four columns start at different rows, entry by entry): add the products to c, or (all four columns) subtract
// c plus the products from s's block, or (one pass in all) subtract the products from s's columns at tj and tk.

function subtractPair(
  v: Float64Array,
  c0: number,
  ld: number,
  count: number,
  j: number,
  height: number,
  relative: Int32Array,
  tj: number,
  tk: number,
): void {
  const c1 = count > 1 ? c0 + ld : c0;
  const c2 = count > 2 ? c1 + ld : c0;
  const c3 = count > 3 ? c2 + ld : c0;
  const a0 = v[c0 + j];
  const a1 = count > 1 ? v[c1 + j] : 0;
  const a2 = count > 2 ? v[c2 + j] : 0;
  const a3 = count > 3 ? v[c3 + j] : 0;
  const b0 = v[c0 + j + 1];
  const b1 = count > 1 ? v[c1 + j + 1] : 0;
  const b2 = count > 2 ? v[c2 + j + 1] : 0;
  const b3 = count > 3 ? v[c3 + j + 1] : 0;
  v[tj + relative[j]] -= a0 * a0 + a1 * a1 + a2 * a2 + a3 * a3;
  for (let i = j + 1; i < height; i++) {
    const x0 = v[c0 + i];
    const x1 = v[c1 + i];
    const x2 = v[c2 + i];
    const x3 = v[c3 + i];
    const r = relative[i];
    v[tj + r] -= x0 * a0 + x1 * a1 + x2 * a2 + x3 * a3;
    v[tk + r] -= x0 * b0 + x1 * b1 + x2 * b2 + x3 * b3;
  }
}

function addPair(v: Float64Array, c0: number, ld: number, count: number, j: number, height: number, c: Float64Array, cj: number): void {
  const ck = cj + height;
  const c1 = count > 1 ? c0 + ld : c0;
  const c2 = count > 2 ? c1 + ld : c0;
  const c3 = count > 3 ? c2 + ld : c0;
  const a0 = v[c0 + j];
  const a1 = count > 1 ? v[c1 + j] : 0;
  const a2 = count > 2 ? v[c2 + j] : 0;
  const a3 = count > 3 ? v[c3 + j] : 0;
  const b0 = v[c0 + j + 1];
  const b1 = count > 1 ? v[c1 + j + 1] : 0;
  const b2 = count > 2 ? v[c2 + j + 1] : 0;
  const b3 = count > 3 ? v[c3 + j + 1] : 0;
  c[cj + j] += a0 * a0 + a1 * a1 + a2 * a2 + a3 * a3;
  for (let i = j + 1; i < height; i++) {
    const x0 = v[c0 + i];
    const x1 = v[c1 + i];
    const x2 = v[c2 + i];
    const x3 = v[c3 + i];
    c[cj + i] += x0 * a0 + x1 * a1 + x2 * a2 + x3 * a3;
    c[ck + i] += x0 * b0 + x1 * b1 + x2 * b2 + x3 * b3;
  }
}

function finishPair(
  v: Float64Array,
  c0: number,
  ld: number,
  j: number,
  height: number,
  c: Float64Array,
  cj: number,
  relative: Int32Array,
  tj: number,
  tk: number,
): void {
  const ck = cj + height;
  const c1 = c0 + ld;
  const c2 = c1 + ld;
  const c3 = c2 + ld;
  const a0 = v[c0 + j];
  const a1 = v[c1 + j];
  const a2 = v[c2 + j];
  const a3 = v[c3 + j];
  const b0 = v[c0 + j + 1];
  const b1 = v[c1 + j + 1];
  const b2 = v[c2 + j + 1];
  const b3 = v[c3 + j + 1];
  v[tj + relative[j]] -= c[cj + j] + (a0 * a0 + a1 * a1 + a2 * a2 + a3 * a3);
  for (let i = j + 1; i < height; i++) {
    const x0 = v[c0 + i];
    const x1 = v[c1 + i];
    const x2 = v[c2 + i];
    const x3 = v[c3 + i];
    const r = relative[i];
    v[tj + r] -= c[cj + i] + (x0 * a0 + x1 * a1 + x2 * a2 + x3 * a3);
    v[tk + r] -= c[ck + i] + (x0 * b0 + x1 * b1 + x2 * b2 + x3 * b3);
  }
}

function addQuad(v: Float64Array, c0: number, ld: number, count: number, j: number, height: number, c: Float64Array, cj: number): void {
  const ck = cj + height;
  const cl = ck + height;
  const cm = cl + height;
  const c1 = count > 1 ? c0 + ld : c0;
  const c2 = count > 2 ? c1 + ld : c0;
  const c3 = count > 3 ? c2 + ld : c0;
  const a0 = v[c0 + j];
  const a1 = count > 1 ? v[c1 + j] : 0;
  const a2 = count > 2 ? v[c2 + j] : 0;
  const a3 = count > 3 ? v[c3 + j] : 0;
  const b0 = v[c0 + j + 1];
  const b1 = count > 1 ? v[c1 + j + 1] : 0;
  const b2 = count > 2 ? v[c2 + j + 1] : 0;
  const b3 = count > 3 ? v[c3 + j + 1] : 0;
  const d0 = v[c0 + j + 2];
  const d1 = count > 1 ? v[c1 + j + 2] : 0;
  const d2 = count > 2 ? v[c2 + j + 2] : 0;
  const d3 = count > 3 ? v[c3 + j + 2] : 0;
  const e0 = v[c0 + j + 3];
  const e1 = count > 1 ? v[c1 + j + 3] : 0;
  const e2 = count > 2 ? v[c2 + j + 3] : 0;
  const e3 = count > 3 ? v[c3 + j + 3] : 0;
  c[cj + j] += a0 * a0 + a1 * a1 + a2 * a2 + a3 * a3;
  c[cj + j + 1] += b0 * a0 + b1 * a1 + b2 * a2 + b3 * a3;
  c[ck + j + 1] += b0 * b0 + b1 * b1 + b2 * b2 + b3 * b3;
  c[cj + j + 2] += d0 * a0 + d1 * a1 + d2 * a2 + d3 * a3;
  c[ck + j + 2] += d0 * b0 + d1 * b1 + d2 * b2 + d3 * b3;
  c[cl + j + 2] += d0 * d0 + d1 * d1 + d2 * d2 + d3 * d3;
  for (let i = j + 3; i < height; i++) {
    const x0 = v[c0 + i];
    const x1 = v[c1 + i];
    const x2 = v[c2 + i];
    const x3 = v[c3 + i];
    c[cj + i] += x0 * a0 + x1 * a1 + x2 * a2 + x3 * a3;
    c[ck + i] += x0 * b0 + x1 * b1 + x2 * b2 + x3 * b3;
    c[cl + i] += x0 * d0 + x1 * d1 + x2 * d2 + x3 * d3;
    c[cm + i] += x0 * e0 + x1 * e1 + x2 * e2 + x3 * e3;
  }
}

function finishQuad(
  v: Float64Array,
  c0: number,
  ld: number,
  j: number,
  height: number,
  c: Float64Array,
  cj: number,
  relative: Int32Array,
  base: number,
  rowCount: number,
): void {
  const ck = cj + height;
  const cl = ck + height;
  const cm = cl + height;
  const c1 = c0 + ld;
  const c2 = c1 + ld;
  const c3 = c2 + ld;
  const t0 = base + relative[j] * rowCount;
  const t1 = base + relative[j + 1] * rowCount;
  const t2 = base + relative[j + 2] * rowCount;
  const t3 = base + relative[j + 3] * rowCount;
  const a0 = v[c0 + j];
  const a1 = v[c1 + j];
  const a2 = v[c2 + j];
  const a3 = v[c3 + j];
  const b0 = v[c0 + j + 1];
  const b1 = v[c1 + j + 1];
  const b2 = v[c2 + j + 1];
  const b3 = v[c3 + j + 1];
  const d0 = v[c0 + j + 2];
  const d1 = v[c1 + j + 2];
  const d2 = v[c2 + j + 2];
  const d3 = v[c3 + j + 2];
  const e0 = v[c0 + j + 3];
  const e1 = v[c1 + j + 3];
  const e2 = v[c2 + j + 3];
  const e3 = v[c3 + j + 3];
  const r0 = relative[j];
  const r1 = relative[j + 1];
  const r2 = relative[j + 2];
  v[t0 + r0] -= c[cj + j] + (a0 * a0 + a1 * a1 + a2 * a2 + a3 * a3);
  v[t0 + r1] -= c[cj + j + 1] + (b0 * a0 + b1 * a1 + b2 * a2 + b3 * a3);
  v[t1 + r1] -= c[ck + j + 1] + (b0 * b0 + b1 * b1 + b2 * b2 + b3 * b3);
  v[t0 + r2] -= c[cj + j + 2] + (d0 * a0 + d1 * a1 + d2 * a2 + d3 * a3);
  v[t1 + r2] -= c[ck + j + 2] + (d0 * b0 + d1 * b1 + d2 * b2 + d3 * b3);
  v[t2 + r2] -= c[cl + j + 2] + (d0 * d0 + d1 * d1 + d2 * d2 + d3 * d3);
  for (let i = j + 3; i < height; i++) {
    const x0 = v[c0 + i];
    const x1 = v[c1 + i];
    const x2 = v[c2 + i];
    const x3 = v[c3 + i];
    const r = relative[i];
    v[t0 + r] -= c[cj + i] + (x0 * a0 + x1 * a1 + x2 * a2 + x3 * a3);
    v[t1 + r] -= c[ck + i] + (x0 * b0 + x1 * b1 + x2 * b2 + x3 * b3);
    v[t2 + r] -= c[cl + i] + (x0 * d0 + x1 * d1 + x2 * d2 + x3 * d3);
    v[t3 + r] -= c[cm + i] + (x0 * e0 + x1 * e1 + x2 * e2 + x3 * e3);
  }
}

/**
 * Dense left-looking Cholesky of a supernode's rowCount × columns block (diagonal part and the rows below), four
 * columns at a time, then two: each pass over four earlier columns' entries updates all of them, so an entry loaded
 * serves sixteen products (eight for a pair).
 */
function factorBlock(
  v: Float64Array,
  base: number,
  ld: number,
  columns: number,
  first: number,
  originalDiagonal: Float64Array,
  perm: Int32Array,
): void {
  let j = 0;
  for (; j + 3 < columns; j += 4) {
    const cj = base + j * ld;
    for (let t = 0; t < j; t += 4) blockQuad(v, base + t * ld, ld, j, cj);
    factorPair(v, base, ld, j, first, originalDiagonal, perm);
    factorPair(v, base, ld, j + 2, first, originalDiagonal, perm);
  }
  for (; j + 1 < columns; j += 2) {
    const cj = base + j * ld;
    for (let t = 0; t + 3 < j; t += 4) blockPair(v, base + t * ld, ld, j, cj);
    factorPair(v, base, ld, j, first, originalDiagonal, perm);
  }
  if (j < columns) {
    const cj = base + j * ld;
    for (let t = 0; t < j; t++) {
      const c0 = base + t * ld;
      const a0 = v[c0 + j];
      if (a0 === 0) continue;
      for (let i = j; i < ld; i++) v[cj + i] -= v[c0 + i] * a0;
    }
    finishColumn(v, cj, j, ld, first, originalDiagonal, perm);
  }
}

/** Block columns j .. j+3 (from cj, each from its diagonal row down) less the products of block columns c0 .. c0+3·ld. */
function blockQuad(v: Float64Array, c0: number, ld: number, j: number, cj: number): void {
  const c1 = c0 + ld;
  const c2 = c1 + ld;
  const c3 = c2 + ld;
  const ck = cj + ld;
  const cl = ck + ld;
  const cm = cl + ld;
  const a0 = v[c0 + j];
  const a1 = v[c1 + j];
  const a2 = v[c2 + j];
  const a3 = v[c3 + j];
  const b0 = v[c0 + j + 1];
  const b1 = v[c1 + j + 1];
  const b2 = v[c2 + j + 1];
  const b3 = v[c3 + j + 1];
  const d0 = v[c0 + j + 2];
  const d1 = v[c1 + j + 2];
  const d2 = v[c2 + j + 2];
  const d3 = v[c3 + j + 2];
  const e0 = v[c0 + j + 3];
  const e1 = v[c1 + j + 3];
  const e2 = v[c2 + j + 3];
  const e3 = v[c3 + j + 3];
  v[cj + j] -= a0 * a0 + a1 * a1 + a2 * a2 + a3 * a3;
  v[cj + j + 1] -= b0 * a0 + b1 * a1 + b2 * a2 + b3 * a3;
  v[ck + j + 1] -= b0 * b0 + b1 * b1 + b2 * b2 + b3 * b3;
  v[cj + j + 2] -= d0 * a0 + d1 * a1 + d2 * a2 + d3 * a3;
  v[ck + j + 2] -= d0 * b0 + d1 * b1 + d2 * b2 + d3 * b3;
  v[cl + j + 2] -= d0 * d0 + d1 * d1 + d2 * d2 + d3 * d3;
  for (let i = j + 3; i < ld; i++) {
    const x0 = v[c0 + i];
    const x1 = v[c1 + i];
    const x2 = v[c2 + i];
    const x3 = v[c3 + i];
    v[cj + i] -= x0 * a0 + x1 * a1 + x2 * a2 + x3 * a3;
    v[ck + i] -= x0 * b0 + x1 * b1 + x2 * b2 + x3 * b3;
    v[cl + i] -= x0 * d0 + x1 * d1 + x2 * d2 + x3 * d3;
    v[cm + i] -= x0 * e0 + x1 * e1 + x2 * e2 + x3 * e3;
  }
}

/** Block columns j and j+1 (from cj) less the products of block columns c0 .. c0+3·ld. */
function blockPair(v: Float64Array, c0: number, ld: number, j: number, cj: number): void {
  const ck = cj + ld;
  const c1 = c0 + ld;
  const c2 = c1 + ld;
  const c3 = c2 + ld;
  const a0 = v[c0 + j];
  const a1 = v[c1 + j];
  const a2 = v[c2 + j];
  const a3 = v[c3 + j];
  const b0 = v[c0 + j + 1];
  const b1 = v[c1 + j + 1];
  const b2 = v[c2 + j + 1];
  const b3 = v[c3 + j + 1];
  v[cj + j] -= a0 * a0 + a1 * a1 + a2 * a2 + a3 * a3;
  for (let i = j + 1; i < ld; i++) {
    const x0 = v[c0 + i];
    const x1 = v[c1 + i];
    const x2 = v[c2 + i];
    const x3 = v[c3 + i];
    v[cj + i] -= x0 * a0 + x1 * a1 + x2 * a2 + x3 * a3;
    v[ck + i] -= x0 * b0 + x1 * b1 + x2 * b2 + x3 * b3;
  }
}

/**
 * Block columns j and j+1, already updated by the block's columns before the last multiple of four below j: updated
 * by the one to three columns from there to j one at a time, then factored (column j+1 updated by column j).
 */
function factorPair(
  v: Float64Array,
  base: number,
  ld: number,
  j: number,
  first: number,
  originalDiagonal: Float64Array,
  perm: Int32Array,
): void {
  const cj = base + j * ld;
  const ck = cj + ld;
  for (let t = j & ~3; t < j; t++) {
    const c0 = base + t * ld;
    const a0 = v[c0 + j];
    const b0 = v[c0 + j + 1];
    if (a0 === 0 && b0 === 0) continue;
    v[cj + j] -= a0 * a0;
    for (let i = j + 1; i < ld; i++) {
      const x0 = v[c0 + i];
      v[cj + i] -= x0 * a0;
      v[ck + i] -= x0 * b0;
    }
  }
  finishColumn(v, cj, j, ld, first, originalDiagonal, perm);
  const a = v[cj + j + 1];
  if (a !== 0) for (let i = j + 1; i < ld; i++) v[ck + i] -= v[cj + i] * a;
  finishColumn(v, ck, j + 1, ld, first, originalDiagonal, perm);
}

/** Column j of a block, updated by every column before it: its pivot checked and square-rooted, the rest scaled. */
function finishColumn(
  v: Float64Array,
  cj: number,
  j: number,
  ld: number,
  first: number,
  originalDiagonal: Float64Array,
  perm: Int32Array,
): void {
  const pivot = v[cj + j];
  if (!(pivot > PIVOT_CANCELLATION * Math.abs(originalDiagonal[first + j])) || pivot === Infinity) {
    throw new NotPositiveDefiniteError(perm[first + j], pivot);
  }
  const diagonal = Math.sqrt(pivot);
  v[cj + j] = diagonal;
  const inverse = 1 / diagonal;
  for (let i = j + 1; i < ld; i++) v[cj + i] *= inverse;
}
