import { prefixSums, type CscMatrix } from './csc-matrix.ts';

/**
 * The pattern-only part of a sparse Cholesky factorization P A Pᵀ = L Lᵀ: everything that depends on where A's
 * non-zeros are and not on their values, so a matrix with new values and the same pattern refactors without it
 * being recomputed (cholesky-numeric.ts).
 *
 * Columns of L are grouped into supernodes: runs of consecutive columns that share one row structure below
 * their diagonal block, stored as one dense column-major block (Ng & Peyton 1993). Supernode s holds columns
 * [supernodeStart[s], supernodeStart[s+1]) and rows `rows[rowPointers[s] .. rowPointers[s+1])` — first its own
 * columns, then the rows below, ascending — in a block of `rowCount × columnCount` values at
 * valuePointers[s], leading dimension rowCount. All indices are in pivot order.
 */
export interface CholeskySymbolic {
  /** matrix order */
  n: number;
  /** #n: perm[k] is the original index of pivot k */
  perm: Int32Array;
  /** #n: inversePerm[i] is the pivot position of original index i */
  inversePerm: Int32Array;
  /** #n elimination tree in pivot order (postordered: parent[k] > k), -1 at roots */
  parent: Int32Array;
  /** #n non-zeros in each column of L, diagonal included */
  columnCounts: Int32Array;
  /** Σ columnCounts: non-zeros of L without the explicit zeros that supernode amalgamation adds */
  factorNonzeros: number;
  supernodeCount: number;
  /** #supernodes+1 first column of each supernode */
  supernodeStart: Int32Array;
  /** #n the supernode that holds each column */
  supernodeOfColumn: Int32Array;
  /** #supernodes+1 offsets into rows */
  rowPointers: Int32Array;
  rows: Int32Array;
  /** #supernodes+1 offsets of each supernode's dense block in the values array */
  valuePointers: Int32Array;
  /** length of the values array (valuePointers[supernodeCount]) */
  storedValues: number;
  /** largest rowCount × columnCount block, for sizing the update workspace */
  largestBlock: number;
  /** nnz(A) this analysis was made for, checked when refactoring */
  matrixNonzeros: number;
  /** #nnz(A): where A's value p lands in the values array, or -1 for entries above the diagonal (ignored) */
  assemblyMap: Int32Array;
}

/**
 * Explicit zeros a supernode merge may add, as a fraction of the merged block. Harmonic weights solve dozens of
 * right-hand sides per factorization, so solve time (proportional to the stored entries) outweighs the faster
 * dense kernels that CHOLMOD-style aggressive amalgamation buys: on the body mesh subdivided twice, merging only
 * nearly-free-of-zeros blocks cut the solve by a quarter at equal factorization time against CHOLMOD's default rule.
 */
const MERGE_ZERO_FRACTION = 0.02;

/**
 * Symbolic analysis of a symmetric positive definite matrix under a fill-reducing ordering: elimination tree
 * (Liu 1986), its postorder (folded into the permutation so supernodes are contiguous), column counts of L
 * (Gilbert, Ng & Peyton 1994, row-subtree skeleton), fundamental supernodes with relaxed amalgamation, and the
 * supernodes' row structures.
 *
 * @param a    symmetric #n × #n matrix; entries with row ≥ column are read (store both triangles or the lower one)
 * @param perm #n fill-reducing ordering, perm[k] = original index of pivot k (e.g. amdOrdering(a))
 * @returns the analysis, reusable for every matrix with a's pattern
 */
export function choleskySymbolic(a: CscMatrix, perm: Int32Array): CholeskySymbolic {
  const n = a.cols;
  if (a.rows !== n) throw new RangeError(`choleskySymbolic: matrix is ${a.rows}×${a.cols}, needs to be square`);
  if (perm.length !== n) throw new RangeError(`choleskySymbolic: ordering has ${perm.length} entries for a matrix of order ${n}`);
  const inverse = inversePermutation(perm);
  const tree = eliminationTree(n, permutedPattern(a, inverse, false));
  const post = postorder(n, tree);
  const finalPerm = perm.slice();
  const parent = isIdentity(post) ? tree : applyPostorder(post, tree, perm, finalPerm, inverse);
  const pattern = permutedPattern(a, inverse, true);
  const columnCounts = columnCountsOf(n, parent, pattern);
  const factorNonzeros = sumOf(columnCounts);

  const fundamentalStart = fundamentalSupernodes(n, parent, columnCounts);
  const groups = amalgamate(parent, columnCounts, fundamentalStart);
  const layout = supernodeLayout(n, fundamentalStart, groups);
  const { supernodeCount, supernodeStart, supernodeOfColumn, rowPointers, valuePointers } = layout;
  const rows = supernodeRows(n, parent, pattern, layout);
  const assemblyMap = assemblyMapOf(a.rowIndices.length, n, pattern, layout, rows);

  return {
    n,
    perm: finalPerm,
    inversePerm: inverse,
    parent,
    columnCounts,
    factorNonzeros,
    supernodeCount,
    supernodeStart,
    supernodeOfColumn,
    rowPointers,
    rows,
    valuePointers,
    storedValues: valuePointers[supernodeCount],
    largestBlock: layout.largestBlock,
    matrixNonzeros: a.rowIndices.length,
    assemblyMap,
  };
}

// The analysis runs once per factorization on large inputs, so each pass below is its own small function: V8
// optimizes a function with one hot loop on that loop's own type feedback, and keeps the optimized code valid
// from one call to the next, where one long function with many loops is compiled again and again (each loop
// deoptimizing on the next loop's not-yet-seen code) until the whole function has run often enough.

/** inverse[perm[k]] = k, checking that perm is a permutation of 0 .. #perm−1. */
function inversePermutation(perm: Int32Array): Int32Array {
  const n = perm.length;
  const inverse = new Int32Array(n).fill(-1);
  for (let k = 0; k < n; k++) {
    const i = perm[k];
    if (!(i >= 0 && i < n) || inverse[i] !== -1)
      throw new RangeError(`choleskySymbolic: ordering is not a permutation (entry ${k} = ${i})`);
    inverse[i] = k;
  }
  return inverse;
}

function isIdentity(order: Int32Array): boolean {
  for (let k = 0; k < order.length; k++) if (order[k] !== k) return false;
  return true;
}

function sumOf(counts: Int32Array): number {
  let sum = 0;
  for (let k = 0; k < counts.length; k++) sum += counts[k];
  return sum;
}

/**
 * Postordering is an equivalent ordering (same fill, and the elimination tree relabelled) that makes every
 * subtree a contiguous column range. Writes the composed ordering into finalPerm and its inverse into inverse.
 *
 * @returns the relabelled elimination tree
 */
function applyPostorder(post: Int32Array, parent: Int32Array, perm: Int32Array, finalPerm: Int32Array, inverse: Int32Array): Int32Array {
  const n = post.length;
  const postInverse = new Int32Array(n);
  for (let k = 0; k < n; k++) postInverse[post[k]] = k;
  const relabelled = new Int32Array(n);
  for (let k = 0; k < n; k++) {
    const p = parent[post[k]];
    relabelled[k] = p < 0 ? -1 : postInverse[p];
  }
  for (let k = 0; k < n; k++) finalPerm[k] = perm[post[k]];
  for (let k = 0; k < n; k++) inverse[finalPerm[k]] = k;
  return relabelled;
}

/**
 * Fundamental supernodes: j+1 continues j's supernode when it is j's parent, its only child, and L(:,j) is
 * L(:,j+1) plus the diagonal.
 *
 * @returns #fundamental+1 first column of each fundamental supernode, then n
 */
function fundamentalSupernodes(n: number, parent: Int32Array, columnCounts: Int32Array): Int32Array {
  const childCount = new Int32Array(n);
  for (let k = 0; k < n; k++) if (parent[k] >= 0) childCount[parent[k]]++;
  const start = new Int32Array(n + 1);
  let count = 0;
  if (n > 0) start[count++] = 0;
  for (let k = 1; k < n; k++) {
    if (!(parent[k - 1] === k && childCount[k] === 1 && columnCounts[k - 1] === columnCounts[k] + 1)) start[count++] = k;
  }
  if (n > 0) start[count++] = n;
  return start.slice(0, Math.max(count, 1));
}

/**
 * Relaxed amalgamation of fundamental supernodes into groups. A group is named by its topmost fundamental
 * supernode; groupOf[s] === s marks a group's top, whose first column and row count are groupFirst[s] and
 * groupRows[s].
 */
interface SupernodeGroups {
  groupOf: Int32Array;
  groupFirst: Int32Array;
  groupRows: Float64Array;
}

/**
 * Parents before children: a supernode joins its parent's group when it ends right where that group starts (so
 * columns stay contiguous) and the explicit zeros stay acceptable (MERGE_ZERO_FRACTION).
 */
function amalgamate(parent: Int32Array, columnCounts: Int32Array, fundamentalStart: Int32Array): SupernodeGroups {
  const n = parent.length;
  const fundamentalCount = fundamentalStart.length - 1;
  const fundamentalOf = new Int32Array(n);
  for (let s = 0; s < fundamentalCount; s++) fundamentalOf.fill(s, fundamentalStart[s], fundamentalStart[s + 1]);
  const groupOf = new Int32Array(fundamentalCount);
  const groupFirst = new Int32Array(fundamentalCount);
  const groupRows = new Float64Array(fundamentalCount);
  const groupNonzeros = new Float64Array(fundamentalCount);
  for (let s = fundamentalCount - 1; s >= 0; s--) {
    const first = fundamentalStart[s];
    const last = fundamentalStart[s + 1] - 1;
    const columns = last - first + 1;
    let nonzeros = 0;
    for (let k = first; k <= last; k++) nonzeros += columnCounts[k];
    groupOf[s] = s;
    groupFirst[s] = first;
    groupRows[s] = columnCounts[first];
    groupNonzeros[s] = nonzeros;
    const p = parent[last];
    if (p < 0) continue;
    const g = groupOf[fundamentalOf[p]];
    if (groupFirst[g] !== last + 1) continue;
    const mergedColumns = columns + fundamentalStart[g + 1] - groupFirst[g];
    const mergedRows = columns + groupRows[g];
    const stored = mergedColumns * mergedRows - (mergedColumns * (mergedColumns - 1)) / 2;
    const actual = nonzeros + groupNonzeros[g];
    if ((stored - actual) / stored >= MERGE_ZERO_FRACTION) continue;
    groupOf[s] = g;
    groupFirst[g] = first;
    groupRows[g] = mergedRows;
    groupNonzeros[g] = actual;
  }
  return { groupOf, groupFirst, groupRows };
}

/** Where each supernode's columns, rows and values go (the CholeskySymbolic fields of the same names). */
interface SupernodeLayout {
  supernodeCount: number;
  supernodeStart: Int32Array;
  supernodeOfColumn: Int32Array;
  rowPointers: Int32Array;
  valuePointers: Int32Array;
  largestBlock: number;
}

function supernodeLayout(n: number, fundamentalStart: Int32Array, groups: SupernodeGroups): SupernodeLayout {
  const { groupOf, groupFirst, groupRows } = groups;
  const fundamentalCount = fundamentalStart.length - 1;
  let supernodeCount = 0;
  for (let s = 0; s < fundamentalCount; s++) if (groupOf[s] === s) supernodeCount++;
  const supernodeStart = new Int32Array(supernodeCount + 1);
  const rowPointers = new Int32Array(supernodeCount + 1);
  const valuePointers = new Int32Array(supernodeCount + 1);
  const supernodeOfColumn = new Int32Array(n);
  let largestBlock = 0;
  let t = 0;
  let rowTotal = 0;
  let valueTotal = 0;
  for (let s = 0; s < fundamentalCount; s++) {
    if (groupOf[s] !== s) continue;
    const first = groupFirst[s];
    const columns = fundamentalStart[s + 1] - first;
    const rowCount = groupRows[s];
    supernodeStart[t] = first;
    supernodeOfColumn.fill(t, first, first + columns);
    rowPointers[t] = rowTotal;
    valuePointers[t] = valueTotal;
    rowTotal += rowCount;
    valueTotal += rowCount * columns;
    if (valueTotal > 0x7fffffff)
      throw new RangeError(`choleskySymbolic: the factor needs ${valueTotal} values, more than this implementation addresses`);
    largestBlock = Math.max(largestBlock, rowCount * columns);
    t++;
  }
  supernodeStart[t] = n;
  rowPointers[t] = rowTotal;
  valuePointers[t] = valueTotal;
  return { supernodeCount, supernodeStart, supernodeOfColumn, rowPointers, valuePointers, largestBlock };
}

/**
 * Row structures (Liu's supernodal symbolic factorization, row by row): row i of L is the union of the etree
 * paths from the columns of row i of A up to i, so walking those paths through the supernodal tree and
 * appending i to every supernode met lists each supernode's rows in ascending order with no sorting.
 */
function supernodeRows(n: number, parent: Int32Array, pattern: PermutedPattern, layout: SupernodeLayout): Int32Array {
  const { supernodeCount, supernodeStart, supernodeOfColumn, rowPointers } = layout;
  const rows = new Int32Array(rowPointers[supernodeCount]);
  const superParent = new Int32Array(supernodeCount);
  for (let s = 0; s < supernodeCount; s++) {
    const p = parent[supernodeStart[s + 1] - 1];
    superParent[s] = p < 0 ? -1 : supernodeOfColumn[p];
  }
  const fillPointer = rowPointers.slice(0, supernodeCount);
  const mark = new Int32Array(supernodeCount).fill(-1);
  const { upperPointers, upperRows } = pattern;
  for (let i = 0; i < n; i++) {
    const own = supernodeOfColumn[i];
    mark[own] = i;
    rows[fillPointer[own]++] = i;
    for (let p = upperPointers[i]; p < upperPointers[i + 1]; p++) {
      for (let s = supernodeOfColumn[upperRows[p]]; mark[s] !== i; s = superParent[s]) {
        mark[s] = i;
        rows[fillPointer[s]++] = i;
      }
    }
  }
  for (let s = 0; s < supernodeCount; s++) {
    if (fillPointer[s] !== rowPointers[s + 1]) {
      throw new Error(
        `choleskySymbolic: supernode ${s} has ${fillPointer[s] - rowPointers[s]} rows, column counts predicted ${rowPointers[s + 1] - rowPointers[s]}`,
      );
    }
  }
  return rows;
}

/** #nnz(A): where A's value p lands in the supernode blocks, -1 above the diagonal (CholeskySymbolic.assemblyMap). */
function assemblyMapOf(nonzeros: number, n: number, pattern: PermutedPattern, layout: SupernodeLayout, rows: Int32Array): Int32Array {
  const { supernodeCount, supernodeStart, rowPointers, valuePointers } = layout;
  const assemblyMap = new Int32Array(nonzeros).fill(-1);
  const local = new Int32Array(n);
  const { lowerPointers, lowerRows, lowerEntries, diagonalEntry } = pattern;
  for (let s = 0; s < supernodeCount; s++) {
    const first = supernodeStart[s];
    const rowCount = rowPointers[s + 1] - rowPointers[s];
    for (let p = rowPointers[s]; p < rowPointers[s + 1]; p++) local[rows[p]] = p - rowPointers[s];
    for (let k = first; k < supernodeStart[s + 1]; k++) {
      const base = valuePointers[s] + (k - first) * rowCount;
      for (let p = lowerPointers[k]; p < lowerPointers[k + 1]; p++) assemblyMap[lowerEntries[p]] = base + local[lowerRows[p]];
      assemblyMap[diagonalEntry[k]] = base + (k - first);
    }
  }
  return assemblyMap;
}

/**
 * Pattern of P A Pᵀ from the entries of A with row ≥ column. lower: column c lists rows r > c (and the original
 * entry index of each); upper: column r lists rows c < r; diagonalEntry[k]: A's entry on the diagonal at pivot
 * k, or -1 when A stores none. Without `withLower` only the upper lists are built (all an elimination tree
 * needs) and the lower arrays are empty.
 */
interface PermutedPattern {
  lowerPointers: Int32Array;
  lowerRows: Int32Array;
  lowerEntries: Int32Array;
  upperPointers: Int32Array;
  upperRows: Int32Array;
  diagonalEntry: Int32Array;
}

function permutedPattern(a: CscMatrix, inverse: Int32Array, withLower: boolean): PermutedPattern {
  const n = a.cols;
  const lowerPointers = new Int32Array(n + 1);
  const upperPointers = new Int32Array(n + 1);
  const diagonalEntry = new Int32Array(n).fill(-1);
  countPermuted(a, inverse, lowerPointers, upperPointers, diagonalEntry);
  prefixSums(lowerPointers);
  prefixSums(upperPointers);
  const count = lowerPointers[n];
  const lowerRows = new Int32Array(withLower ? count : 0);
  const lowerEntries = new Int32Array(withLower ? count : 0);
  const upperRows = new Int32Array(count);
  if (withLower) fillPermutedBoth(a, inverse, lowerPointers, upperPointers, lowerRows, lowerEntries, upperRows);
  else fillPermutedUpper(a, inverse, upperPointers, upperRows);
  return { lowerPointers, lowerRows, lowerEntries, upperPointers, upperRows, diagonalEntry };
}

/** Entries per column of the permuted lower (at [k+1]) and upper patterns, and where the diagonal is. */
function countPermuted(
  a: CscMatrix,
  inverse: Int32Array,
  lowerCounts: Int32Array,
  upperCounts: Int32Array,
  diagonalEntry: Int32Array,
): void {
  const n = a.cols;
  const { colPointers, rowIndices } = a;
  for (let j = 0; j < n; j++) {
    const pj = inverse[j];
    for (let p = colPointers[j]; p < colPointers[j + 1]; p++) {
      const i = rowIndices[p];
      if (i < j) continue;
      if (i === j) {
        diagonalEntry[pj] = p;
        continue;
      }
      const pi = inverse[i];
      lowerCounts[(pi < pj ? pi : pj) + 1]++;
      upperCounts[(pi < pj ? pj : pi) + 1]++;
    }
  }
}

function fillPermutedUpper(a: CscMatrix, inverse: Int32Array, upperPointers: Int32Array, upperRows: Int32Array): void {
  const n = a.cols;
  const { colPointers, rowIndices } = a;
  const upperNext = upperPointers.slice(0, n);
  for (let j = 0; j < n; j++) {
    const pj = inverse[j];
    for (let p = colPointers[j]; p < colPointers[j + 1]; p++) {
      const i = rowIndices[p];
      if (i <= j) continue;
      const pi = inverse[i];
      upperRows[upperNext[pi < pj ? pj : pi]++] = pi < pj ? pi : pj;
    }
  }
}

function fillPermutedBoth(
  a: CscMatrix,
  inverse: Int32Array,
  lowerPointers: Int32Array,
  upperPointers: Int32Array,
  lowerRows: Int32Array,
  lowerEntries: Int32Array,
  upperRows: Int32Array,
): void {
  const n = a.cols;
  const { colPointers, rowIndices } = a;
  const lowerNext = lowerPointers.slice(0, n);
  const upperNext = upperPointers.slice(0, n);
  for (let j = 0; j < n; j++) {
    const pj = inverse[j];
    for (let p = colPointers[j]; p < colPointers[j + 1]; p++) {
      const i = rowIndices[p];
      if (i <= j) continue;
      const pi = inverse[i];
      const c = pi < pj ? pi : pj;
      const r = pi < pj ? pj : pi;
      const q = lowerNext[c]++;
      lowerRows[q] = r;
      lowerEntries[q] = p;
      upperRows[upperNext[r]++] = c;
    }
  }
}

/** Elimination tree of L from the upper pattern (Liu 1986, with path compression through `ancestor`). */
function eliminationTree(n: number, pattern: PermutedPattern): Int32Array {
  const parent = new Int32Array(n).fill(-1);
  const ancestor = new Int32Array(n).fill(-1);
  const { upperPointers, upperRows } = pattern;
  for (let k = 0; k < n; k++) {
    for (let p = upperPointers[k]; p < upperPointers[k + 1]; p++) {
      let i = upperRows[p];
      while (i !== -1 && i < k) {
        const next = ancestor[i];
        ancestor[i] = k;
        if (next === -1) parent[i] = k;
        i = next;
      }
    }
  }
  return parent;
}

/** Depth-first postorder of a forest, children visited in increasing order: post[k] = node numbered k. */
function postorder(n: number, parent: Int32Array): Int32Array {
  const head = new Int32Array(n).fill(-1);
  const next = new Int32Array(n).fill(-1);
  childLists(parent, head, next);
  const post = new Int32Array(n);
  const stack = new Int32Array(n);
  let k = 0;
  for (let root = 0; root < n; root++) {
    if (parent[root] !== -1) continue;
    let top = 0;
    stack[0] = root;
    while (top >= 0) {
      const p = stack[top];
      const child = head[p];
      if (child === -1) {
        top--;
        post[k++] = p;
      } else {
        head[p] = next[child];
        stack[++top] = child;
      }
    }
  }
  return post;
}

/** Children of each node as linked lists, head[p] → next[child] → …, in increasing order. */
function childLists(parent: Int32Array, head: Int32Array, next: Int32Array): void {
  for (let j = parent.length - 1; j >= 0; j--) {
    if (parent[j] === -1) continue;
    next[j] = head[parent[j]];
    head[parent[j]] = j;
  }
}

/**
 * Column counts of L for a postordered elimination tree: row i of L is the subtree of the etree spanned by the
 * non-zeros of row i of A; counting, for each column j, the row subtrees that contain j needs only the leaves of
 * each row subtree and the least common ancestors of consecutive leaves (Gilbert, Ng & Peyton 1994).
 */
function columnCountsOf(n: number, parent: Int32Array, pattern: PermutedPattern): Int32Array {
  const counts = new Int32Array(n);
  const first = firstDescendants(n, parent, counts);
  subtractOverlaps(n, parent, pattern, first, counts);
  for (let j = 0; j < n; j++) if (parent[j] !== -1) counts[parent[j]] += counts[j];
  return counts;
}

/** first[j]: the lowest-numbered descendant of j; counts[k] starts at 1 for the leaves of the etree. */
function firstDescendants(n: number, parent: Int32Array, counts: Int32Array): Int32Array {
  const first = new Int32Array(n).fill(-1);
  for (let k = 0; k < n; k++) {
    counts[k] = first[k] === -1 ? 1 : 0;
    for (let j = k; j !== -1 && first[j] === -1; j = parent[j]) first[j] = k;
  }
  return first;
}

/** The row-subtree leaves and least-common-ancestor corrections of columnCountsOf, before summing up the tree. */
function subtractOverlaps(n: number, parent: Int32Array, pattern: PermutedPattern, first: Int32Array, counts: Int32Array): void {
  const maxFirst = new Int32Array(n).fill(-1);
  const previousLeaf = new Int32Array(n).fill(-1);
  const ancestor = new Int32Array(n);
  for (let i = 0; i < n; i++) ancestor[i] = i;
  const { lowerPointers, lowerRows } = pattern;
  for (let j = 0; j < n; j++) {
    if (parent[j] !== -1) counts[parent[j]]--;
    for (let p = lowerPointers[j]; p < lowerPointers[j + 1]; p++) {
      const i = lowerRows[p];
      // Is j a leaf of row i's subtree? Only when no earlier leaf's subtree already covers j.
      if (first[j] <= maxFirst[i]) continue;
      maxFirst[i] = first[j];
      const previous = previousLeaf[i];
      previousLeaf[i] = j;
      counts[j]++;
      if (previous === -1) continue;
      let q = previous;
      while (q !== ancestor[q]) q = ancestor[q];
      for (let s = previous; s !== q;) {
        const up = ancestor[s];
        ancestor[s] = q;
        s = up;
      }
      counts[q]--;
    }
    if (parent[j] !== -1) ancestor[j] = parent[j];
  }
}
