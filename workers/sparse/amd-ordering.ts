import type { CscMatrix } from './csc-matrix.ts';
import { symmetricAdjacency, type AdjacencyGraph } from './symmetric-adjacency.ts';
import { amdKernel, amdKernelAvailable, amdKernelOfMatrix } from './amd-kernel.ts';

/**
 * Approximate minimum degree ordering (Amestoy, Davis & Duff 1996, "An approximate minimum degree ordering
 * algorithm", SIAM J. Matrix Anal. Appl. 17(4)): greedy elimination of the variable of least (approximate)
 * external degree on the quotient graph, with element absorption, aggressive absorption, mass elimination and
 * supervariable detection. No dense-row special case: mesh Laplacians have bounded degree. The graph, the
 * elimination and the permutation run as WebAssembly (amd-kernel.ts, the same ordering) where the runtime allows,
 * else as the JavaScript below.
 *
 * @param a square #n × #n matrix; only the pattern of A + Aᵀ is read
 * @returns perm, #n: perm[k] is the original index of the k-th pivot
 */
export function amdOrdering(a: CscMatrix): Int32Array {
  if (a.rows !== a.cols) throw new RangeError(`amdOrdering: matrix is ${a.rows}×${a.cols}, needs to be square`);
  if (a.cols === 0) return new Int32Array(0);
  if (amdKernelAvailable()) {
    // The graph is built and ordered in the kernel's memory (the same lists symmetricAdjacency makes).
    const perm = amdKernelOfMatrix(a, wflgLimitOf(a.cols));
    if (perm !== null) return perm;
  } else primeOnce();
  return amdOfGraph(symmetricAdjacency(a));
}

/** Where the marks' counter is cleared: as late as Int32 allows (see amdOfGraph), or at markLimit. */
function wflgLimitOf(n: number, markLimit = 0x7fffffff): number {
  return Math.min(markLimit, 0x7fffffff - 3 * n - 1);
}

let primed = false;

/**
 * For the JavaScript loop (where WebAssembly cannot run):
 * orders a small triangulated grid once per process, with the marks cleared at every step, so that every branch of
 * the ordering's functions has run before a large ordering: V8 compiles a function from the branches taken so far,
 * and throws the code away when a branch it has not seen is first taken, the function running unoptimised until it
 * is compiled again. On the harmonic block of the body subdivided twice (78,649 free vertices) the first ordering
 * of a process took 130–170 ms (210–280 ms of CPU with the compiler's threads) without the primer and 106–113 ms
 * (157–161 ms of CPU) with it, when the step was still one long loop; later orderings about 50 ms. The primer
 * itself costs a process 2–3 ms once (its first amdOrdering, on a 1 × 1 matrix, against 0.007 ms for the second).
 */
function primeOnce(): void {
  if (primed) return;
  primed = true;
  const grid = triangulatedGrid(PRIMER_SIDE);
  // Twice: V8 starts recording a function's feedback only once it has run a while, partway into the first call.
  amdOfGraph(grid, 2, false);
  amdOfGraph(grid, 2, false);
}

/** Side of the primer grid: large enough for elements to merge, supervariables to form and lists to be pruned. */
const PRIMER_SIDE = 12;

/** The graph of a side × side grid of vertices, each square split along one diagonal (a mesh's vertex graph). */
function triangulatedGrid(side: number): AdjacencyGraph {
  const n = side * side;
  const offsets = new Int32Array(n + 1);
  const lists: number[][] = [];
  for (let i = 0; i < n; i++) lists.push([]);
  const link = (u: number, v: number) => {
    lists[u].push(v);
    lists[v].push(u);
  };
  for (let y = 0; y < side; y++)
    for (let x = 0; x < side; x++) {
      const v = y * side + x;
      if (x + 1 < side) link(v, v + 1);
      if (y + 1 < side) link(v, v + side);
      if (x + 1 < side && y + 1 < side) link(v, v + side + 1);
    }
  for (let i = 0; i < n; i++) offsets[i + 1] = offsets[i] + lists[i].length;
  return { vertexCount: n, offsets, neighbours: Int32Array.from(lists.flat()) };
}

/**
 * Fields of a node in amdOfGraph's node array: where its list starts in iw and its length, how many of its entries
 * are elements (-1 once eliminated), its size as a supervariable (negated while in the pivot's element), its
 * (approximate external) degree, its mark, and its neighbours in its degree list.
 */
const PE = 0;
const LEN = 1;
const ELEN = 2;
const NV = 3;
const DEGREE = 4;
const MARK = 5;
const NEXT = 6;
const LAST = 7;
const NODE = 8;

/** Buckets of the supervariable hash table (a power of two). */
const HASH_BUCKETS = 1024;

/**
 * Approximate minimum degree ordering of an adjacency graph.
 *
 * @param graph     symmetric graph without self loops
 * @param markLimit for testing: the marks are cleared once their counter passes this (default: as late as Int32
 *                  allows); a lower one clears them more often (2: before every step) and gives the same ordering
 * @param kernel    false: the JavaScript loop even where the WebAssembly one (amd-kernel.ts) could run
 * @returns perm, #V: perm[k] is the vertex eliminated k-th
 */
export function amdOfGraph(graph: AdjacencyGraph, markLimit = 0x7fffffff, kernel = true): Int32Array {
  const n = graph.vertexCount;
  if (n === 0) return new Int32Array(0);
  if (kernel) {
    const eliminated = amdKernel(graph.offsets, graph.neighbours, wflgLimitOf(n, markLimit));
    if (eliminated !== null) return eliminated.perm;
  }
  // Quotient graph storage: node i's list is iw[PE .. PE + LEN) of its fields; for a variable, its first ELEN entries
  // are elements, the rest variables. New elements are appended at at[FREE]; dead lists are never compacted.
  let iw = new Int32Array(Math.max(graph.neighbours.length * 2, n + 16));
  iw.set(graph.neighbours);
  // Each node's fields side by side (NODE values from 8i: PE … LAST): the elimination touches a node's list start,
  // length, element count, size, degree, mark and degree-list links together, one cache line for all where eight
  // arrays of n missed the cache eight times on a large mesh.
  const node = new Int32Array(NODE * n);
  // Tree links: a merged variable points at its principal variable, a mass-eliminated one at its element.
  const parent = new Int32Array(n).fill(-1);
  // Elimination step of each pivot, -1 for variables eliminated along with another.
  const step = new Int32Array(n).fill(-1);
  // Marks (field MARK), as offsets from wflg: an element's |Le \ Lp| during a step, a node's list mark during the
  // supervariable comparison; 0 is a dead element, 1 a cleared mark. clearMarks runs before wflg could overflow.
  let wflg = 2;
  // The largest degree of any element so far: a step stores element marks below wflg + lemax, so raising wflg by
  // lemax (not by n) clears them, and the O(n) reset of the marks comes once in many steps instead of every few
  // thousand on a large mesh (Amestoy, Davis & Duff's own bound).
  let lemax = 0;
  // One step stores marks below wflg + lemax ≤ wflg + n and raises wflg by lemax plus one per supervariable
  // comparison (at most n each), so a step started under this limit ends within Int32.
  const wflgLimit = wflgLimitOf(n, markLimit);
  const head = new Int32Array(n + 1).fill(-1);
  // Supervariable candidates by hash: a small table (only one element's variables are in it at a time) stays in
  // the first-level cache, where one indexed by hash mod n missed it at every insertion on a large mesh.
  const hashHead = new Int32Array(HASH_BUCKETS).fill(-1);
  const hashNext = new Int32Array(n).fill(-1);
  const hashOf = new Int32Array(n);

  initialDegreeLists(graph.offsets, node, head);

  // Each phase of a step is a function of its own, called once per step: V8 compiles each small function whole once
  // it is hot, in the first steps of a process's first ordering, where the single long loop they made was compiled
  // mid-run (on-stack) and again on entry, the ordering running unoptimised meanwhile.
  const at = new Int32Array(STEP_VALUES);
  at[FREE] = graph.neighbours.length;
  let minDegree = 0;
  let steps = 0;
  while (at[ELIMINATED] < n) {
    if (wflg > wflgLimit) wflg = clearMarks(node);
    while (head[minDegree] === -1) minDegree++;
    const p = head[minDegree];
    removeFromDegreeList(node, head, p);
    step[p] = steps++;
    const elenp = node[NODE * p + ELEN];
    // Lp: the union of p's elements and p's variables, without p — the new element p.
    if (elenp !== 0) {
      const need = elementSpace(iw, node, p, elenp);
      if (at[FREE] + need > iw.length) {
        const grown = new Int32Array(Math.max(2 * iw.length, at[FREE] + need + n));
        grown.set(iw.subarray(0, at[FREE]));
        iw = grown;
      }
    }
    pivotElement(iw, node, head, parent, p, elenp, at);
    node[NODE * p + PE] = at[LP_START];
    node[NODE * p + LEN] = at[LP_END] - at[LP_START];
    node[NODE * p + ELEN] = -1;
    node[NODE * p + DEGREE] = at[DK];
    if (at[DK] > lemax) lemax = at[DK];
    markExternalDegrees(iw, node, at[LP_START], at[LP_END], wflg);
    approximateDegrees(iw, node, parent, hashHead, hashNext, hashOf, p, wflg, at);
    node[NODE * p + DEGREE] = at[DK];
    // Marks of the scan above are below wflg + lemax.
    wflg = mergeSupervariables(iw, node, parent, hashHead, hashNext, hashOf, at[LP_START], at[LP_END], wflg + lemax);
    minDegree = finishElement(iw, node, head, p, elenp, n, minDegree, at);
    // Every mark of the supervariable scan is below wflg already.
  }

  return permutationFromSteps(step, parent, steps);
}

// A step's running values, passed between its phases in one small Int32Array (STEP_VALUES long): where Lp lies in
// iw, the pivot element's external degree dk, the pivot's size, how many variables are eliminated so far, and where
// iw's free space starts.
const LP_START = 0;
const LP_END = 1;
const DK = 2;
const PIVOT_SIZE = 3;
const ELIMINATED = 4;
const FREE = 5;
const STEP_VALUES = 6;

/** Room Lp may need when appended: p's list length plus its elements' list lengths. */
function elementSpace(iw: Int32Array, node: Int32Array, p: number, elenp: number): number {
  let need = node[NODE * p + LEN];
  for (let k = node[NODE * p + PE], stop = k + elenp; k < stop; k++) need += node[NODE * iw[k] + LEN];
  return need;
}

/**
 * Lp, the new element p: the live variables of p's elements and of its own list, each taken out of its degree list
 * and flagged (size negated); p's elements are absorbed into it. A pivot without elements writes Lp over its own
 * list (the writes trail the reads); one with elements appends it at at[FREE] (iw has the room) and moves at[FREE]
 * past it. Sets at[LP_START], at[LP_END], at[DK], at[PIVOT_SIZE] and adds the pivot to at[ELIMINATED].
 */
function pivotElement(
  iw: Int32Array,
  node: Int32Array,
  head: Int32Array,
  parent: Int32Array,
  p: number,
  elenp: number,
  at: Int32Array,
): void {
  const pivotSize = node[NODE * p + NV];
  node[NODE * p + NV] = -pivotSize;
  const pe = node[NODE * p + PE];
  const stop = pe + node[NODE * p + LEN];
  const start = elenp === 0 ? pe : at[FREE];
  let end = start;
  let dk = 0;
  for (let k = pe; k < stop; k++) {
    const e = iw[k];
    const isElement = k < pe + elenp;
    const from = isElement ? node[NODE * e + PE] : k;
    const to = isElement ? node[NODE * e + PE] + node[NODE * e + LEN] : k + 1;
    for (let q = from; q < to; q++) {
      const i = iw[q];
      const nvi = node[NODE * i + NV];
      if (nvi <= 0) continue;
      dk += nvi;
      node[NODE * i + NV] = -nvi;
      iw[end++] = i;
      removeFromDegreeList(node, head, i);
    }
    if (isElement && e !== p) {
      parent[e] = p;
      node[NODE * e + MARK] = 0;
    }
  }
  at[LP_START] = start;
  at[LP_END] = end;
  if (elenp !== 0) at[FREE] = end;
  at[DK] = dk;
  at[PIVOT_SIZE] = pivotSize;
  at[ELIMINATED] += pivotSize;
}

/** node[NODE * e + MARK] − wflg becomes |Le \ Lp| for every live element e next to Lp. */
function markExternalDegrees(iw: Int32Array, node: Int32Array, lpStart: number, lpEnd: number, wflg: number): void {
  for (let k = lpStart; k < lpEnd; k++) {
    const i = iw[k];
    const eln = node[NODE * i + ELEN];
    if (eln <= 0) continue;
    const nvi = -node[NODE * i + NV];
    const wnvi = wflg - nvi;
    for (let q = node[NODE * i + PE], stop = q + eln; q < stop; q++) {
      const e = iw[q];
      const we = node[NODE * e + MARK];
      if (we >= wflg) node[NODE * e + MARK] = we - nvi;
      else if (we !== 0) node[NODE * e + MARK] = node[NODE * e + DEGREE] + wnvi;
    }
  }
}

/**
 * Approximate degrees of Lp's variables; prunes absorbed elements and covered variables from their lists, eliminates
 * a variable adjacent to element p only along with p (at[DK], at[PIVOT_SIZE], at[ELIMINATED] updated), and puts the
 * others in the supervariable hash table.
 */
function approximateDegrees(
  iw: Int32Array,
  node: Int32Array,
  parent: Int32Array,
  hashHead: Int32Array,
  hashNext: Int32Array,
  hashOf: Int32Array,
  p: number,
  wflg: number,
  at: Int32Array,
): void {
  let dk = at[DK];
  let pivotSize = at[PIVOT_SIZE];
  let eliminated = at[ELIMINATED];
  for (let k = at[LP_START], lpEnd = at[LP_END]; k < lpEnd; k++) {
    const i = iw[k];
    const p1 = node[NODE * i + PE];
    const p2 = p1 + node[NODE * i + ELEN];
    let pn = p1;
    let h = 0;
    let d = 0;
    for (let q = p1; q < p2; q++) {
      const e = iw[q];
      if (node[NODE * e + MARK] === 0) continue;
      const external = node[NODE * e + MARK] - wflg;
      if (external > 0) {
        d += external;
        iw[pn++] = e;
        h += e;
      } else {
        // Aggressive absorption: Le ⊆ Lp, so element p covers e.
        parent[e] = p;
        node[NODE * e + MARK] = 0;
      }
    }
    node[NODE * i + ELEN] = pn - p1 + 1;
    const p3 = pn;
    const p4 = p1 + node[NODE * i + LEN];
    for (let q = p2; q < p4; q++) {
      const j = iw[q];
      const nvj = node[NODE * j + NV];
      if (nvj <= 0) continue;
      d += nvj;
      iw[pn++] = j;
      h += j;
    }
    if (node[NODE * i + ELEN] === 1 && p3 === pn) {
      // Mass elimination: i is adjacent to element p only, so it is eliminated together with p.
      parent[i] = p;
      const nvi = -node[NODE * i + NV];
      dk -= nvi;
      pivotSize += nvi;
      eliminated += nvi;
      node[NODE * i + NV] = 0;
      node[NODE * i + ELEN] = -1;
    } else {
      node[NODE * i + DEGREE] = Math.min(node[NODE * i + DEGREE], d);
      // Element p goes first in i's list.
      iw[pn] = iw[p3];
      iw[p3] = iw[p1];
      iw[p1] = p;
      node[NODE * i + LEN] = pn - p1 + 1;
      const bucket = h & (HASH_BUCKETS - 1);
      hashOf[i] = h;
      hashNext[i] = hashHead[bucket];
      hashHead[bucket] = i;
    }
  }
  at[DK] = dk;
  at[PIVOT_SIZE] = pivotSize;
  at[ELIMINATED] = eliminated;
}

/**
 * Supervariables: variables of Lp with identical lists (same hash first, then compared) merge into the first.
 * @returns the mark counter after the comparisons (one step of it per list marked)
 */
function mergeSupervariables(
  iw: Int32Array,
  node: Int32Array,
  parent: Int32Array,
  hashHead: Int32Array,
  hashNext: Int32Array,
  hashOf: Int32Array,
  lpStart: number,
  lpEnd: number,
  wflg: number,
): number {
  for (let k = lpStart; k < lpEnd; k++) {
    const first = iw[k];
    if (node[NODE * first + NV] >= 0) continue;
    const bucket = hashOf[first] & (HASH_BUCKETS - 1);
    let i = hashHead[bucket];
    hashHead[bucket] = -1;
    for (; i !== -1 && hashNext[i] !== -1; i = hashNext[i]) {
      const ln = node[NODE * i + LEN];
      const eln = node[NODE * i + ELEN];
      const hi = hashOf[i];
      // The bucket holds other hashes too: i's list is marked only when a later variable has its full hash,
      // length and element count, so a long list meets no O(length) pass without a candidate to compare.
      let candidate = hashNext[i];
      while (candidate !== -1 && (hashOf[candidate] !== hi || node[NODE * candidate + LEN] !== ln || node[NODE * candidate + ELEN] !== eln))
        candidate = hashNext[candidate];
      if (candidate === -1) continue;
      for (let q = node[NODE * i + PE] + 1; q < node[NODE * i + PE] + ln; q++) node[NODE * iw[q] + MARK] = wflg;
      let jLast = i;
      for (let j = hashNext[i]; j !== -1;) {
        let same = hashOf[j] === hi && node[NODE * j + LEN] === ln && node[NODE * j + ELEN] === eln;
        for (let q = node[NODE * j + PE] + 1; same && q < node[NODE * j + PE] + ln; q++)
          if (node[NODE * iw[q] + MARK] !== wflg) same = false;
        const after = hashNext[j];
        if (same) {
          parent[j] = i;
          node[NODE * i + NV] += node[NODE * j + NV];
          node[NODE * j + NV] = 0;
          node[NODE * j + ELEN] = -1;
          hashNext[jLast] = after;
        } else {
          jLast = j;
        }
        j = after;
      }
      wflg++;
    }
  }
  return wflg;
}

/**
 * Final degrees of Lp's surviving principal variables (back in the degree lists), Lp compacted to them, and the
 * element p's size and length; at[FREE] follows an appended Lp's end.
 * @returns the least degree now listed (at most minDegree)
 */
function finishElement(
  iw: Int32Array,
  node: Int32Array,
  head: Int32Array,
  p: number,
  elenp: number,
  n: number,
  minDegree: number,
  at: Int32Array,
): number {
  const lpStart = at[LP_START];
  const dk = at[DK];
  const eliminated = at[ELIMINATED];
  let least = minDegree;
  let write = lpStart;
  for (let k = lpStart, lpEnd = at[LP_END]; k < lpEnd; k++) {
    const i = iw[k];
    const nvi = -node[NODE * i + NV];
    if (nvi <= 0) continue;
    node[NODE * i + NV] = nvi;
    const d = Math.min(node[NODE * i + DEGREE] + dk - nvi, n - eliminated - nvi);
    node[NODE * i + DEGREE] = d;
    insertInDegreeList(node, head, i, d);
    if (d < least) least = d;
    iw[write++] = i;
  }
  node[NODE * p + NV] = at[PIVOT_SIZE];
  node[NODE * p + LEN] = write - lpStart;
  if (write === lpStart) node[NODE * p + MARK] = 0;
  if (elenp !== 0) at[FREE] = write;
  return least;
}

/** Puts variable i at the head of degree list d (a node's NEXT and LAST fields link the list; head[d] its first). */
function insertInDegreeList(node: Int32Array, head: Int32Array, i: number, d: number): void {
  const h = head[d];
  node[NODE * i + NEXT] = h;
  node[NODE * i + LAST] = -1;
  if (h !== -1) node[NODE * h + LAST] = i;
  head[d] = i;
}

/** Takes variable i out of the degree list of its DEGREE field. */
function removeFromDegreeList(node: Int32Array, head: Int32Array, i: number): void {
  const next = node[NODE * i + NEXT];
  const last = node[NODE * i + LAST];
  if (next !== -1) node[NODE * next + LAST] = last;
  if (last !== -1) node[NODE * last + NEXT] = next;
  else head[node[NODE * i + DEGREE]] = next;
}

/** Unmarks every live node (dead elements stay 0), so marking starts again at wflg = 2, which it returns. */
function clearMarks(node: Int32Array): number {
  for (let x = MARK; x < node.length; x += NODE) if (node[x] !== 0) node[x] = 1;
  return 2;
}

/** Quotient graph = the graph itself; every variable in the degree list of its degree (head as in amdOfGraph). */
function initialDegreeLists(offsets: Int32Array, node: Int32Array, head: Int32Array): void {
  const n = offsets.length - 1;
  for (let i = 0; i < n; i++) {
    const at = NODE * i;
    const d = offsets[i + 1] - offsets[i];
    node[at + PE] = offsets[i];
    node[at + LEN] = d;
    node[at + ELEN] = 0;
    node[at + NV] = 1;
    node[at + DEGREE] = d;
    node[at + MARK] = 1;
    const h = head[d];
    node[at + NEXT] = h;
    node[at + LAST] = -1;
    if (h !== -1) node[NODE * h + LAST] = i;
    head[d] = i;
  }
}

/**
 * Pivots in elimination order; every other variable right after the pivot it was eliminated with.
 *
 * @param step   #n elimination step of each pivot, -1 for the others
 * @param parent #n for a non-pivot, the variable or element it was merged into (compressed here)
 * @param steps  number of pivots
 */
function permutationFromSteps(step: Int32Array, parent: Int32Array, steps: number): Int32Array {
  const n = step.length;
  const group = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    let r = i;
    while (step[r] === -1) r = parent[r];
    group[i] = step[r];
    for (let j = i; step[j] === -1;) {
      const up = parent[j];
      parent[j] = r;
      j = up;
    }
  }
  const start = new Int32Array(steps + 1);
  for (let i = 0; i < n; i++) start[group[i] + 1]++;
  for (let s = 0; s < steps; s++) start[s + 1] += start[s];
  const perm = new Int32Array(n);
  for (let i = 0; i < n; i++) perm[start[group[i]]++] = i;
  return perm;
}
