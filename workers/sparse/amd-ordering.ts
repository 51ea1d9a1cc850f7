import type { CscMatrix } from './csc-matrix.ts';
import { symmetricAdjacency, type AdjacencyGraph } from './symmetric-adjacency.ts';

/**
 * Approximate minimum degree ordering (Amestoy, Davis & Duff 1996, "An approximate minimum degree ordering
 * algorithm", SIAM J. Matrix Anal. Appl. 17(4)): greedy elimination of the variable of least (approximate)
 * external degree on the quotient graph, with element absorption, aggressive absorption, mass elimination and
 * supervariable detection. No dense-row special case: mesh Laplacians have bounded degree.
 *
 * @param a square #n × #n matrix; only the pattern of A + Aᵀ is read
 * @returns perm, #n: perm[k] is the original index of the k-th pivot
 */
export function amdOrdering(a: CscMatrix): Int32Array {
  return amdOfGraph(symmetricAdjacency(a));
}

/** Buckets of the supervariable hash table (a power of two). */
const HASH_BUCKETS = 1024;

/**
 * Approximate minimum degree ordering of an adjacency graph.
 *
 * @param graph     symmetric graph without self loops
 * @param markLimit the element marks are reset once their counter passes this (default: as late as Int32 allows;
 *                  a lower one gives the same ordering with more resets)
 * @returns perm, #V: perm[k] is the vertex eliminated k-th
 */
export function amdOfGraph(graph: AdjacencyGraph, markLimit = 0x7fffffff): Int32Array {
  const n = graph.vertexCount;
  if (n === 0) return new Int32Array(0);
  // Quotient graph storage: node i's list is iw[pe[i] .. pe[i]+len[i]); for a variable, its first elen[i] entries
  // are elements, the rest variables. New elements are appended at `free`; dead lists are never compacted.
  let iw = new Int32Array(Math.max(graph.neighbours.length * 2, n + 16));
  iw.set(graph.neighbours);
  let free = graph.neighbours.length;
  const pe = new Int32Array(n);
  const len = new Int32Array(n);
  const elen = new Int32Array(n);
  const nv = new Int32Array(n);
  const degree = new Int32Array(n);
  // Tree links: a merged variable points at its principal variable, a mass-eliminated one at its element.
  const parent = new Int32Array(n).fill(-1);
  // Elimination step of each pivot, -1 for variables eliminated along with another.
  const step = new Int32Array(n).fill(-1);
  // Element marks for |Le \ Lp| and list marks for supervariable comparison, as offsets from wflg (0: dead element).
  // Int32 halves the traffic of the hottest reads; wflg is reset before it could overflow.
  const w = new Int32Array(n).fill(1);
  let wflg = 2;
  // The largest degree of any element so far: a step stores element marks below wflg + lemax, so raising wflg by
  // lemax (not by n) clears them, and the O(n) reset of the marks comes once in many steps instead of every few
  // thousand on a large mesh (Amestoy, Davis & Duff's own bound).
  let lemax = 0;
  // One step raises wflg by at most 2n and stores marks below wflg + n.
  const wflgLimit = Math.min(markLimit, 0x7fffffff - 3 * n - 1);
  const head = new Int32Array(n + 1).fill(-1);
  const next = new Int32Array(n).fill(-1);
  const last = new Int32Array(n).fill(-1);
  // Supervariable candidates by hash: a small table (only one element's variables are in it at a time) stays in
  // the first-level cache, where one indexed by hash mod n missed it at every insertion on a large mesh.
  const hashHead = new Int32Array(HASH_BUCKETS).fill(-1);
  const hashNext = new Int32Array(n).fill(-1);
  const hashOf = new Int32Array(n);

  const insert = (i: number, d: number) => {
    const h = head[d];
    next[i] = h;
    last[i] = -1;
    if (h !== -1) last[h] = i;
    head[d] = i;
  };
  const remove = (i: number) => {
    if (next[i] !== -1) last[next[i]] = last[i];
    if (last[i] !== -1) next[last[i]] = next[i];
    else head[degree[i]] = next[i];
  };

  initialDegreeLists(graph.offsets, pe, len, nv, degree, head, next, last);

  let eliminated = 0;
  let minDegree = 0;
  let steps = 0;
  while (eliminated < n) {
    if (wflg > wflgLimit) wflg = clearMarks(w);
    while (head[minDegree] === -1) minDegree++;
    const p = head[minDegree];
    remove(p);
    step[p] = steps++;
    const elenp = elen[p];
    let pivotSize = nv[p];
    eliminated += pivotSize;

    // Lp: the union of p's elements and p's variables, without p — the new element p.
    nv[p] = -pivotSize;
    let dk = 0;
    let lpStart: number;
    let lpEnd: number;
    if (elenp === 0) {
      lpStart = pe[p];
      lpEnd = lpStart;
      for (let k = pe[p]; k < pe[p] + len[p]; k++) {
        const i = iw[k];
        const nvi = nv[i];
        if (nvi <= 0) continue;
        dk += nvi;
        nv[i] = -nvi;
        iw[lpEnd++] = i;
        remove(i);
      }
    } else {
      let need = len[p];
      for (let k = pe[p]; k < pe[p] + elenp; k++) need += len[iw[k]];
      if (free + need > iw.length) {
        const grown = new Int32Array(Math.max(2 * iw.length, free + need + n));
        grown.set(iw.subarray(0, free));
        iw = grown;
      }
      lpStart = free;
      lpEnd = free;
      for (let k = pe[p]; k < pe[p] + len[p]; k++) {
        const e = iw[k];
        const isElement = k < pe[p] + elenp;
        const from = isElement ? pe[e] : k;
        const to = isElement ? pe[e] + len[e] : k + 1;
        for (let q = from; q < to; q++) {
          const i = iw[q];
          const nvi = nv[i];
          if (nvi <= 0) continue;
          dk += nvi;
          nv[i] = -nvi;
          iw[lpEnd++] = i;
          remove(i);
        }
        if (isElement && e !== p) {
          parent[e] = p;
          w[e] = 0;
        }
      }
      free = lpEnd;
    }
    pe[p] = lpStart;
    len[p] = lpEnd - lpStart;
    elen[p] = -1;
    degree[p] = dk;
    if (dk > lemax) lemax = dk;

    // w[e] − wflg becomes |Le \ Lp| for every live element e next to Lp.
    for (let k = lpStart; k < lpEnd; k++) {
      const i = iw[k];
      const eln = elen[i];
      if (eln <= 0) continue;
      const nvi = -nv[i];
      const wnvi = wflg - nvi;
      for (let q = pe[i]; q < pe[i] + eln; q++) {
        const e = iw[q];
        const we = w[e];
        if (we >= wflg) w[e] = we - nvi;
        else if (we !== 0) w[e] = degree[e] + wnvi;
      }
    }

    // Approximate degrees of Lp's variables; prune absorbed elements and covered variables from their lists.
    for (let k = lpStart; k < lpEnd; k++) {
      const i = iw[k];
      const p1 = pe[i];
      const p2 = p1 + elen[i];
      let pn = p1;
      let h = 0;
      let d = 0;
      for (let q = p1; q < p2; q++) {
        const e = iw[q];
        if (w[e] === 0) continue;
        const external = w[e] - wflg;
        if (external > 0) {
          d += external;
          iw[pn++] = e;
          h += e;
        } else {
          // Aggressive absorption: Le ⊆ Lp, so element p covers e.
          parent[e] = p;
          w[e] = 0;
        }
      }
      elen[i] = pn - p1 + 1;
      const p3 = pn;
      const p4 = p1 + len[i];
      for (let q = p2; q < p4; q++) {
        const j = iw[q];
        const nvj = nv[j];
        if (nvj <= 0) continue;
        d += nvj;
        iw[pn++] = j;
        h += j;
      }
      if (elen[i] === 1 && p3 === pn) {
        // Mass elimination: i is adjacent to element p only, so it is eliminated together with p.
        parent[i] = p;
        const nvi = -nv[i];
        dk -= nvi;
        pivotSize += nvi;
        eliminated += nvi;
        nv[i] = 0;
        elen[i] = -1;
      } else {
        degree[i] = Math.min(degree[i], d);
        // Element p goes first in i's list.
        iw[pn] = iw[p3];
        iw[p3] = iw[p1];
        iw[p1] = p;
        len[i] = pn - p1 + 1;
        const bucket = h & (HASH_BUCKETS - 1);
        hashOf[i] = h;
        hashNext[i] = hashHead[bucket];
        hashHead[bucket] = i;
      }
    }
    degree[p] = dk;
    // Marks of the scan above are below wflg + lemax.
    wflg += lemax;

    // Supervariables: variables of Lp with identical lists (same hash first, then compared) merge.
    for (let k = lpStart; k < lpEnd; k++) {
      const first = iw[k];
      if (nv[first] >= 0) continue;
      const bucket = hashOf[first] & (HASH_BUCKETS - 1);
      let i = hashHead[bucket];
      hashHead[bucket] = -1;
      for (; i !== -1 && hashNext[i] !== -1; i = hashNext[i]) {
        const ln = len[i];
        const eln = elen[i];
        const hi = hashOf[i];
        for (let q = pe[i] + 1; q < pe[i] + ln; q++) w[iw[q]] = wflg;
        let jLast = i;
        for (let j = hashNext[i]; j !== -1;) {
          let same = hashOf[j] === hi && len[j] === ln && elen[j] === eln;
          for (let q = pe[j] + 1; same && q < pe[j] + ln; q++) if (w[iw[q]] !== wflg) same = false;
          if (same) {
            parent[j] = i;
            nv[i] += nv[j];
            nv[j] = 0;
            elen[j] = -1;
            j = hashNext[j];
            hashNext[jLast] = j;
          } else {
            jLast = j;
            j = hashNext[j];
          }
        }
        wflg++;
      }
    }

    // Finalize degrees of the surviving principal variables in Lp and compact Lp to them.
    let write = lpStart;
    for (let k = lpStart; k < lpEnd; k++) {
      const i = iw[k];
      const nvi = -nv[i];
      if (nvi <= 0) continue;
      nv[i] = nvi;
      const d = Math.min(degree[i] + dk - nvi, n - eliminated - nvi);
      degree[i] = d;
      insert(i, d);
      if (d < minDegree) minDegree = d;
      iw[write++] = i;
    }
    nv[p] = pivotSize;
    len[p] = write - lpStart;
    if (len[p] === 0) w[p] = 0;
    if (elenp !== 0) free = write;
    // Every mark of the supervariable scan is below wflg already.
  }

  return permutationFromSteps(step, parent, steps);
}

/** Unmarks every live entry of w (dead elements stay 0), so marking starts again at wflg = 2, which it returns. */
function clearMarks(w: Int32Array): number {
  for (let x = 0; x < w.length; x++) if (w[x] !== 0) w[x] = 1;
  return 2;
}

/** Quotient graph = the graph itself; every variable in the degree list of its degree (head/next/last as in amdOfGraph). */
function initialDegreeLists(
  offsets: Int32Array,
  pe: Int32Array,
  len: Int32Array,
  nv: Int32Array,
  degree: Int32Array,
  head: Int32Array,
  next: Int32Array,
  last: Int32Array,
): void {
  for (let i = 0; i < pe.length; i++) {
    pe[i] = offsets[i];
    len[i] = offsets[i + 1] - offsets[i];
    nv[i] = 1;
    degree[i] = len[i];
    const h = head[degree[i]];
    next[i] = h;
    last[i] = -1;
    if (h !== -1) last[h] = i;
    head[degree[i]] = i;
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
