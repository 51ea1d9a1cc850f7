import type { CscMatrix } from './csc-matrix.ts';
import { kernelSymbolic, MERGE_ALWAYS_COLUMNS, MERGE_ZERO_FRACTION } from './symbolic-kernel.ts';

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
 * Symbolic analysis of a symmetric positive definite matrix under a fill-reducing ordering: elimination tree
 * (Liu 1986), its postorder (folded into the permutation so supernodes are contiguous), column counts of L
 * (Gilbert, Ng & Peyton 1994, row-subtree skeleton), fundamental supernodes with relaxed amalgamation, and the
 * supernodes' row structures. The passes run in WebAssembly where the runtime allows (symbolic-kernel.ts: the same
 * passes, the same analysis value for value), else as the JavaScript below.
 *
 * @param a      symmetric #n × #n matrix; entries with row ≥ column are read (store both triangles or the lower one)
 * @param perm   #n fill-reducing ordering, perm[k] = original index of pivot k (e.g. amdOrdering(a))
 * @param kernel false: the JavaScript passes even where the WebAssembly ones could run
 * @returns the analysis, reusable for every matrix with a's pattern
 */
export function choleskySymbolic(a: CscMatrix, perm: Int32Array, kernel = true): CholeskySymbolic {
  const n = a.cols;
  if (a.rows !== n) throw new RangeError(`choleskySymbolic: matrix is ${a.rows}×${a.cols}, needs to be square`);
  if (perm.length !== n) throw new RangeError(`choleskySymbolic: ordering has ${perm.length} entries for a matrix of order ${n}`);
  const analysis = kernel ? kernelSymbolic(a, perm) : null;
  if (analysis !== null) return analysis;
  const degree = new Int32Array(n);
  const diagonalEntry = new Int32Array(n).fill(-1);
  countNeighbours(n, a.colPointers, a.rowIndices, degree, diagonalEntry);
  const start = new Int32Array(n + 1);
  const inverse = new Int32Array(n).fill(-1);
  inversePermutation(n, perm, degree, start, inverse);
  const tree = eliminationTree(a, inverse, start);
  const order = postorder(tree, perm, inverse);
  const { parent } = order;
  const pattern = permutedPattern(a, order, tree, degree, diagonalEntry);
  const { columnCounts, factorNonzeros } = columnCountsOf(order, pattern);

  const layout = supernodeLayout(parent, amalgamate(order, columnCounts));
  const { supernodeCount, supernodeStart, supernodeOfColumn, rowPointers, valuePointers } = layout;
  const { rows, assemblyMap } = supernodeRows(a.rowIndices.length, parent, pattern, layout);

  return {
    n,
    perm: order.perm,
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
// deoptimizing on the next loop's not-yet-seen code) until the whole function has run often enough. The loop
// functions take their arrays and sizes as arguments and return at most a number: code around a loop (an
// allocation, a property read, an object built for the result) runs on a first call before V8 records anything
// about it, and the code optimized for the next call would stop there and fall back to the interpreter, loop
// and all.
//
// A's entries are read three times: counted once in A's own numbering (each vertex's degree), placed once under
// the ordering for the elimination tree (in slots sized by those degrees, so nothing counts them under the
// ordering), and placed once more under the postordered ordering, where the column counts and the supernodes'
// rows read them column by column in order; the postorder keeps every edge's direction, so these lists' lengths
// are known from the first placement. Reading lists in the order they lie in memory matters more here than the
// passes' count: a list read out of order costs a cache miss at its start.

/**
 * inverse[perm[k]] = k, checking that perm is a permutation of 0 .. #perm−1; in the same pass, start[k]: where
 * pivot k's slot begins when each pivot has as many as its vertex's degree, in pivot order.
 */
function inversePermutation(n: number, perm: Int32Array, degree: Int32Array, start: Int32Array, inverse: Int32Array): void {
  for (let k = 0; k < n; k++) {
    const i = perm[k];
    if (!(i >= 0 && i < n) || inverse[i] !== -1)
      throw new RangeError(`choleskySymbolic: ordering is not a permutation (entry ${k} = ${i})`);
    inverse[i] = k;
    start[k + 1] = start[k] + degree[i];
  }
}

/**
 * Off-diagonal neighbours of each vertex in A's own numbering (where a mesh's neighbours lie close together),
 * from the entries below the diagonal, and where A's diagonal entry of each column is (−1: none). Checks that
 * rows ascend within each column (CscMatrix's rule), which lets the later passes read a column's entries below
 * the diagonal from its end and stop at the diagonal, skipping a stored upper triangle.
 */
function countNeighbours(n: number, colPointers: Int32Array, rowIndices: Int32Array, degree: Int32Array, diagonalEntry: Int32Array): void {
  for (let j = 0; j < n; j++) {
    let below = 0;
    let previous = -1;
    for (let p = colPointers[j]; p < colPointers[j + 1]; p++) {
      const i = rowIndices[p];
      if (i <= previous)
        throw new RangeError(`choleskySymbolic: column ${j} lists row ${i} after row ${previous}; rows must ascend within a column`);
      previous = i;
      if (i < j) continue;
      if (i === j) {
        diagonalEntry[j] = p;
        continue;
      }
      degree[i]++;
      below++;
    }
    degree[j] += below;
  }
}

/**
 * The elimination tree in the ordering's labels (parent[k] > k, −1 at roots), the size of each node's subtree,
 * and the lists of the neighbours each pivot has before it (upper part of P A Pᵀ).
 */
interface EliminationTree {
  parent: Int32Array;
  size: Int32Array;
  /** pivot k's neighbours before it: upper[start[k] .. upperEnd[k]) */
  start: Int32Array;
  upperEnd: Int32Array;
  upper: Int32Array;
}

/**
 * Liu's algorithm (1986, with path compression through `ancestor`) reads, for each pivot k, its neighbours
 * before it: those lists are filled first, each in a slot of its vertex's degree (in pivot order), so no pass
 * counts them.
 */
function eliminationTree(a: CscMatrix, inverse: Int32Array, start: Int32Array): EliminationTree {
  const n = a.cols;
  const upperEnd = start.slice(0, n);
  const upper = new Int32Array(start[n]);
  fillUpper(n, a.colPointers, a.rowIndices, inverse, upperEnd, upper);
  const parent = new Int32Array(n).fill(-1);
  const size = new Int32Array(n);
  const ancestor = new Int32Array(n).fill(-1);
  linkTree(n, start, upperEnd, upper, parent, size, ancestor);
  return { parent, size, start, upperEnd, upper };
}

/**
 * upper[start[k] .. upperEnd[k]): the pivots before k adjacent to k (upperEnd starts at start). Each column's
 * entries below the diagonal are read from its end down (rows ascend, as countNeighbours checked).
 */
function fillUpper(
  n: number,
  colPointers: Int32Array,
  rowIndices: Int32Array,
  inverse: Int32Array,
  upperEnd: Int32Array,
  upper: Int32Array,
): void {
  for (let j = 0; j < n; j++) {
    const pj = inverse[j];
    for (let p = colPointers[j + 1] - 1; p >= colPointers[j]; p--) {
      const i = rowIndices[p];
      if (i <= j) break;
      const pi = inverse[i];
      if (pi < pj) upper[upperEnd[pj]++] = pi;
      else upper[upperEnd[pi]++] = pj;
    }
  }
}

/**
 * Links each pivot to the roots of the subtrees its upper neighbours lie in; a node's children are all linked
 * at its own step and their subtrees are complete by then, so the subtree sizes add up along the way.
 */
function linkTree(
  n: number,
  start: Int32Array,
  upperEnd: Int32Array,
  upper: Int32Array,
  parent: Int32Array,
  size: Int32Array,
  ancestor: Int32Array,
): void {
  for (let k = 0; k < n; k++) {
    let sizeK = 1;
    for (let p = start[k]; p < upperEnd[k]; p++) {
      let i = upper[p];
      while (i !== -1 && i < k) {
        const next = ancestor[i];
        ancestor[i] = k;
        if (next === -1) {
          parent[i] = k;
          sizeK += size[i];
        }
        i = next;
      }
    }
    size[k] = sizeK;
  }
}

/**
 * The elimination tree's depth-first postorder (roots and children visited in increasing order), folded into
 * the ordering: postordering is an equivalent ordering (same fill, the tree relabelled) that makes every subtree
 * a contiguous column range, [first[k], k] for node k.
 */
interface Postorder {
  /** post[k]: the ordering's label of column k */
  post: Int32Array;
  /** the composed ordering: perm[k] is the original index of column k */
  perm: Int32Array;
  /** the elimination tree relabelled */
  parent: Int32Array;
  /** the lowest-numbered descendant of each column */
  first: Int32Array;
  /** the composed ordering's inverse (the array passed in, rewritten) */
  inverse: Int32Array;
}

/**
 * Numbers the postorder from subtree sizes instead of a depth-first walk: parents before children (parent[k] > k
 * in any elimination tree), each node takes the last place of its subtree's range and hands out the places before
 * it to its children, the last child first. Rewrites inverse into the composed ordering's inverse.
 */
function postorder(tree: EliminationTree, perm: Int32Array, inverse: Int32Array): Postorder {
  const n = perm.length;
  // once k is numbered: label[k], and end[k], where its next child's range ends; the roots are the children of
  // a node n past the end (label −1, range ending at n)
  const label = new Int32Array(n + 1);
  const end = new Int32Array(n + 1);
  label[n] = -1;
  end[n] = n;
  const post = new Int32Array(n);
  const finalPerm = new Int32Array(n);
  const parent = new Int32Array(n);
  const first = new Int32Array(n);
  numberPostorder(n, n - 1, tree.parent, tree.size, perm, inverse, label, end, post, finalPerm, parent, first);
  return { post, perm: finalPerm, parent, first, inverse };
}

/** top: n − 1, the loop's first node (given, as the loop functions compute nothing before their loop) */
function numberPostorder(
  n: number,
  top: number,
  treeParent: Int32Array,
  size: Int32Array,
  perm: Int32Array,
  inverse: Int32Array,
  label: Int32Array,
  end: Int32Array,
  post: Int32Array,
  finalPerm: Int32Array,
  parent: Int32Array,
  first: Int32Array,
): void {
  for (let k = top; k >= 0; k--) {
    const p = treeParent[k] === -1 ? n : treeParent[k];
    const last = end[p] - 1;
    end[p] = last + 1 - size[k];
    parent[last] = label[p];
    label[k] = last;
    end[k] = last;
    post[last] = k;
    first[last] = last - size[k] + 1;
    const original = perm[k];
    finalPerm[last] = original;
    inverse[original] = last;
  }
}

/**
 * Pattern of P A Pᵀ in the postordered labels, from the entries of A with row ≥ column. lower: column c lists the
 * rows r > c; upper: column r lists the rows c < r, each with the index of its entry in A, as pairs (c, p) at
 * upperPairs[2q], upperPairs[2q+1]; diagonalEntry[k]: A's entry on the diagonal at column k, or −1 when A stores
 * none. The postorder keeps every edge's direction (a descendant numbers below its ancestors either way), so the
 * lists' lengths are those of the elimination tree's pass.
 */
interface PermutedPattern {
  lowerPointers: Int32Array;
  lowerRows: Int32Array;
  upperPointers: Int32Array;
  upperPairs: Int32Array;
  diagonalEntry: Int32Array;
}

function permutedPattern(
  a: CscMatrix,
  order: Postorder,
  tree: EliminationTree,
  degree: Int32Array,
  diagonalOf: Int32Array,
): PermutedPattern {
  const n = a.cols;
  const lowerPointers = new Int32Array(n + 1);
  const upperPointers = new Int32Array(n + 1);
  const diagonalEntry = new Int32Array(n);
  listPointers(n, order.post, order.perm, tree.start, tree.upperEnd, degree, diagonalOf, lowerPointers, upperPointers, diagonalEntry);
  const lowerRows = new Int32Array(lowerPointers[n]);
  // as long as the tree's lists (one slot per neighbour, both sides), which are not read again
  const upperPairs = tree.upper;
  const lowerNext = lowerPointers.slice(0, n);
  const upperNext = upperPointers.slice(0, n);
  fillPermuted(n, a.colPointers, a.rowIndices, order.inverse, lowerNext, upperNext, lowerRows, upperPairs);
  return { lowerPointers, lowerRows, upperPointers, upperPairs, diagonalEntry };
}

function listPointers(
  n: number,
  post: Int32Array,
  perm: Int32Array,
  start: Int32Array,
  upperEnd: Int32Array,
  degree: Int32Array,
  diagonalOf: Int32Array,
  lowerPointers: Int32Array,
  upperPointers: Int32Array,
  diagonalEntry: Int32Array,
): void {
  for (let k = 0; k < n; k++) {
    const old = post[k];
    const upper = upperEnd[old] - start[old];
    const original = perm[k];
    upperPointers[k + 1] = upperPointers[k] + upper;
    lowerPointers[k + 1] = lowerPointers[k] + degree[original] - upper;
    diagonalEntry[k] = diagonalOf[original];
  }
}

/**
 * A's entries below the diagonal, each column's read from its end down (as in fillUpper); lowerNext and
 * upperNext start as the lists' starts and move along as they fill.
 */
function fillPermuted(
  n: number,
  colPointers: Int32Array,
  rowIndices: Int32Array,
  inverse: Int32Array,
  lowerNext: Int32Array,
  upperNext: Int32Array,
  lowerRows: Int32Array,
  upperPairs: Int32Array,
): void {
  for (let j = 0; j < n; j++) {
    const pj = inverse[j];
    for (let p = colPointers[j + 1] - 1; p >= colPointers[j]; p--) {
      const i = rowIndices[p];
      if (i <= j) break;
      const pi = inverse[i];
      const c = pi < pj ? pi : pj;
      const r = pi < pj ? pj : pi;
      lowerRows[lowerNext[c]++] = r;
      const q = 2 * upperNext[r]++;
      upperPairs[q] = c;
      upperPairs[q + 1] = p;
    }
  }
}

/**
 * Column counts of L for a postordered elimination tree: row i of L is the subtree of the etree spanned by the
 * non-zeros of row i of A; counting, for each column j, the row subtrees that contain j needs only the leaves of
 * each row subtree and the least common ancestors of consecutive leaves (Gilbert, Ng & Peyton 1994). One sweep in
 * postorder: a column's count is complete once its own step is done, so it is added to its parent's right then.
 */
function columnCountsOf(order: Postorder, pattern: PermutedPattern): { columnCounts: Int32Array; factorNonzeros: number } {
  const { parent, first } = order;
  const n = parent.length;
  const counts = new Int32Array(n);
  // per row (at 2i): the largest first[] of its subtree's leaves so far, and its latest leaf
  const leaves = new Int32Array(2 * n).fill(-1);
  // union-find toward the lowest ancestor not yet swept; −1: the node itself
  const ancestor = new Int32Array(n).fill(-1);
  const total = sweepColumnCounts(n, parent, first, pattern.lowerPointers, pattern.lowerRows, counts, leaves, ancestor);
  return { columnCounts: counts, factorNonzeros: total };
}

/** @returns the sum of the column counts */
function sweepColumnCounts(
  n: number,
  parent: Int32Array,
  first: Int32Array,
  lowerPointers: Int32Array,
  lowerRows: Int32Array,
  counts: Int32Array,
  leaves: Int32Array,
  ancestor: Int32Array,
): number {
  let total = 0;
  for (let j = 0; j < n; j++) {
    const fj = first[j];
    if (fj === j) counts[j]++;
    for (let p = lowerPointers[j]; p < lowerPointers[j + 1]; p++) {
      const i = 2 * lowerRows[p];
      // Is j a leaf of row i's subtree? Only when no earlier leaf's subtree already covers j.
      if (fj <= leaves[i]) continue;
      leaves[i] = fj;
      const previous = leaves[i + 1];
      leaves[i + 1] = j;
      counts[j]++;
      if (previous === -1) continue;
      let q = previous;
      while (ancestor[q] !== -1) q = ancestor[q];
      for (let s = previous; s !== q;) {
        const up = ancestor[s];
        ancestor[s] = q;
        s = up;
      }
      counts[q]--;
    }
    const pj = parent[j];
    total += counts[j];
    if (pj !== -1) {
      ancestor[j] = pj;
      counts[pj] += counts[j] - 1;
    }
  }
  return total;
}

/**
 * Supernodes, top first: fundamental supernodes with relaxed amalgamation. groupFirst[t] and groupRows[t] are the
 * first column and the row count of the t-th supernode from the top (its last column is the column before the
 * previous one's first); rowTotal and valueTotal add up the rows and block values of all.
 */
interface SupernodeGroups {
  count: number;
  groupFirst: Int32Array;
  groupRows: Int32Array;
  rowTotal: number;
  valueTotal: number;
}

/**
 * One pass down the columns. Fundamental supernodes: j+1 continues j's supernode when it is j's parent, its only
 * child (j+1's subtree then starts where j's does), and L(:,j) is L(:,j+1) plus the diagonal. Each fundamental
 * supernode, once its first column is reached, joins the group above it when it ends right where that group
 * starts and its parent lies in that group (so columns stay contiguous), and either the explicit zeros stay
 * acceptable (MERGE_ZERO_FRACTION) or the group stays narrow (MERGE_ALWAYS_COLUMNS).
 */
function amalgamate(order: Postorder, columnCounts: Int32Array): SupernodeGroups {
  const n = order.parent.length;
  const groupFirst = new Int32Array(n);
  const groupRows = new Int32Array(n);
  // the groups' rows and values, summed (written once, after the pass)
  const totals = new Float64Array(2);
  const count = groupColumns(n, n - 1, order.parent, order.first, columnCounts, groupFirst, groupRows, totals);
  return { count, groupFirst, groupRows, rowTotal: totals[0], valueTotal: totals[1] };
}

/**
 * The groups, top down; top: n − 1, the first column read.
 * @param totals  out: the groups' rows and values, summed
 * @returns the number of groups
 */
function groupColumns(
  n: number,
  top: number,
  parent: Int32Array,
  firstDescendant: Int32Array,
  columnCounts: Int32Array,
  groupFirst: Int32Array,
  groupRows: Int32Array,
  totals: Float64Array,
): number {
  let count = 0;
  let rowTotal = 0;
  let valueTotal = 0;
  // the group being built: columns [first, end), and its rows and non-zeros
  let first = n;
  let end = n;
  let rows = 0;
  let nonzeros = 0;
  // the fundamental supernode being read ends at column last
  let last = top;
  for (let k = top; k >= 0; k--) {
    if (k > 0 && parent[k - 1] === k && firstDescendant[k - 1] === firstDescendant[k] && columnCounts[k - 1] === columnCounts[k] + 1)
      continue;
    // fundamental supernode [k, last]; its column counts fall by one per column, so their sum is arithmetic
    const columns = last - k + 1;
    const ownNonzeros = columns * columnCounts[last] + (columns * (columns - 1)) / 2;
    const p = parent[last];
    const mergedColumns = columns + end - first;
    const mergedRows = columns + rows;
    const stored = mergedColumns * mergedRows - (mergedColumns * (mergedColumns - 1)) / 2;
    const fewZeros = (stored - ownNonzeros - nonzeros) / stored < MERGE_ZERO_FRACTION;
    if (p > last && p < end && (fewZeros || mergedColumns <= MERGE_ALWAYS_COLUMNS)) {
      rows = mergedRows;
      nonzeros += ownNonzeros;
    } else {
      if (end > first) {
        groupFirst[count] = first;
        groupRows[count++] = rows;
        rowTotal += rows;
        valueTotal += rows * (end - first);
      }
      end = last + 1;
      rows = columnCounts[k];
      nonzeros = ownNonzeros;
    }
    first = k;
    last = k - 1;
  }
  // The last group built (the one holding column 0).
  if (end > first) {
    groupFirst[count] = first;
    groupRows[count++] = rows;
    rowTotal += rows;
    valueTotal += rows * (end - first);
  }
  totals[0] = rowTotal;
  totals[1] = valueTotal;
  return count;
}

/**
 * Where each supernode's columns, rows and values go (the CholeskySymbolic fields of the same names); per
 * column k, at 2k: its supernode, and where its values start in the supernode's block less the supernode's
 * rowPointers entry (so that adding a row's place in `rows` gives the value's place); and the supernodal
 * elimination tree (superParent: the supernode holding the parent of each supernode's last column, or −1).
 */
interface SupernodeLayout {
  supernodeCount: number;
  supernodeStart: Int32Array;
  supernodeOfColumn: Int32Array;
  rowPointers: Int32Array;
  valuePointers: Int32Array;
  largestBlock: number;
  columnSlots: Int32Array;
  superParent: Int32Array;
}

/** Top supernode first, so that a supernode's parent is numbered before it, and the offsets counted down from the totals. */
function supernodeLayout(parent: Int32Array, groups: SupernodeGroups): SupernodeLayout {
  const { count: supernodeCount, groupFirst, groupRows, rowTotal, valueTotal } = groups;
  const n = parent.length;
  if (valueTotal > 0x7fffffff)
    throw new RangeError(`choleskySymbolic: the factor needs ${valueTotal} values, more than this implementation addresses`);
  const supernodeStart = new Int32Array(supernodeCount + 1);
  const rowPointers = new Int32Array(supernodeCount + 1);
  const valuePointers = new Int32Array(supernodeCount + 1);
  const superParent = new Int32Array(supernodeCount);
  const supernodeOfColumn = new Int32Array(n);
  const columnSlots = new Int32Array(2 * n);
  const largestBlock = placeSupernodes(
    n,
    supernodeCount,
    parent,
    groupFirst,
    groupRows,
    rowTotal,
    valueTotal,
    supernodeStart,
    rowPointers,
    valuePointers,
    superParent,
    supernodeOfColumn,
    columnSlots,
  );
  supernodeStart[supernodeCount] = n;
  rowPointers[supernodeCount] = rowTotal;
  valuePointers[supernodeCount] = valueTotal;
  return { supernodeCount, supernodeStart, supernodeOfColumn, rowPointers, valuePointers, largestBlock, columnSlots, superParent };
}

/** @returns the largest block (rows × columns) */
function placeSupernodes(
  n: number,
  supernodeCount: number,
  parent: Int32Array,
  groupFirst: Int32Array,
  groupRows: Int32Array,
  rowTotal: number,
  valueTotal: number,
  supernodeStart: Int32Array,
  rowPointers: Int32Array,
  valuePointers: Int32Array,
  superParent: Int32Array,
  supernodeOfColumn: Int32Array,
  columnSlots: Int32Array,
): number {
  let largestBlock = 0;
  let rowEnd = rowTotal;
  let valueEnd = valueTotal;
  let end = n;
  for (let t = 0; t < supernodeCount; t++) {
    const s = supernodeCount - 1 - t;
    const first = groupFirst[t];
    const rowCount = groupRows[t];
    rowEnd -= rowCount;
    valueEnd -= rowCount * (end - first);
    supernodeStart[s] = first;
    rowPointers[s] = rowEnd;
    valuePointers[s] = valueEnd;
    largestBlock = Math.max(largestBlock, rowCount * (end - first));
    const p = parent[end - 1];
    superParent[s] = p < 0 ? -1 : supernodeOfColumn[p];
    for (let k = first; k < end; k++) {
      supernodeOfColumn[k] = s;
      columnSlots[2 * k] = s;
      columnSlots[2 * k + 1] = valueEnd + (k - first) * rowCount - rowEnd;
    }
    end = first;
  }
  return largestBlock;
}

/**
 * Row structures (Liu's supernodal symbolic factorization, row by row): row i of L is the union of the etree
 * paths from the columns of row i of A up to i, so walking those paths through the supernodal tree and
 * appending i to every supernode met lists each supernode's rows in ascending order with no sorting. The same
 * walk places A's entries (CholeskySymbolic.assemblyMap): entry (i, j) lands in row i of j's supernode, the row
 * that supernode has just received.
 */
function supernodeRows(
  nonzeros: number,
  parent: Int32Array,
  pattern: PermutedPattern,
  layout: SupernodeLayout,
): { rows: Int32Array; assemblyMap: Int32Array } {
  const n = parent.length;
  const { supernodeCount, rowPointers, supernodeOfColumn, columnSlots, superParent } = layout;
  const rows = new Int32Array(rowPointers[supernodeCount]);
  const assemblyMap = new Int32Array(nonzeros).fill(-1);

  const fillPointer = rowPointers.slice(0, supernodeCount);
  const mark = new Int32Array(supernodeCount).fill(-1);
  const { upperPointers, upperPairs, diagonalEntry } = pattern;
  walkRows(n, supernodeOfColumn, columnSlots, superParent, upperPointers, upperPairs, diagonalEntry, rows, assemblyMap, fillPointer, mark);
  checkRowCounts(supernodeCount, fillPointer, rowPointers);
  return { rows, assemblyMap };
}

/** rows and assemblyMap filled; fillPointer: where each supernode's next row goes; mark: the last row each received. */
function walkRows(
  n: number,
  supernodeOfColumn: Int32Array,
  columnSlots: Int32Array,
  superParent: Int32Array,
  upperPointers: Int32Array,
  upperPairs: Int32Array,
  diagonalEntry: Int32Array,
  rows: Int32Array,
  assemblyMap: Int32Array,
  fillPointer: Int32Array,
  mark: Int32Array,
): void {
  for (let i = 0; i < n; i++) {
    const own = supernodeOfColumn[i];
    mark[own] = i;
    const place = fillPointer[own]++;
    rows[place] = i;
    const diagonal = diagonalEntry[i];
    if (diagonal !== -1) assemblyMap[diagonal] = columnSlots[2 * i + 1] + place;
    for (let p = 2 * upperPointers[i]; p < 2 * upperPointers[i + 1]; p += 2) {
      const j = 2 * upperPairs[p];
      const start = columnSlots[j];
      for (let s = start; mark[s] !== i; s = superParent[s]) {
        mark[s] = i;
        rows[fillPointer[s]++] = i;
      }
      assemblyMap[upperPairs[p + 1]] = columnSlots[j + 1] + fillPointer[start] - 1;
    }
  }
}

function checkRowCounts(supernodeCount: number, fillPointer: Int32Array, rowPointers: Int32Array): void {
  for (let s = 0; s < supernodeCount; s++) {
    if (fillPointer[s] !== rowPointers[s + 1]) {
      throw new Error(
        `choleskySymbolic: supernode ${s} has ${fillPointer[s] - rowPointers[s]} rows, column counts predicted ${rowPointers[s + 1] - rowPointers[s]}`,
      );
    }
  }
}
