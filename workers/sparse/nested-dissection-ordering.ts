import type { CscMatrix } from './csc-matrix.ts';
import { symmetricAdjacency, type AdjacencyGraph } from './symmetric-adjacency.ts';

/** Subgraphs at most this large are not split further; their vertices keep breadth-first order. */
const LEAF_SIZE = 48;

/**
 * Fill-reducing ordering by nested dissection (George 1973): split the graph of A with a small vertex separator,
 * order both halves recursively, the separator last. Separators come from breadth-first level structures
 * rooted at a pseudo-peripheral vertex (George & Liu 1979); among the levels, the one minimising
 * |S| / (|A|·|B|) is taken, so cuts are short and balanced. On surface meshes this gives O(n log n) fill and big
 * dense separator blocks near the root of the elimination tree — what a supernodal factorization wants.
 *
 * @param a square #n × #n matrix; only the pattern of A + Aᵀ is read
 * @returns perm, #n: perm[k] is the original index of the k-th pivot
 */
export function nestedDissectionOrdering(a: CscMatrix): Int32Array {
  return nestedDissectionOfGraph(symmetricAdjacency(a));
}

/**
 * Nested dissection of an adjacency graph.
 *
 * @param graph symmetric graph without self loops
 * @returns perm, #V: perm[k] is the vertex eliminated k-th
 */
export function nestedDissectionOfGraph(graph: AdjacencyGraph): Int32Array {
  const n = graph.vertexCount;
  const { offsets, neighbours } = graph;
  const perm = new Int32Array(n);
  for (let i = 0; i < n; i++) perm[i] = i;
  const tag = new Int32Array(n);
  const visit = new Int32Array(n);
  const level = new Int32Array(n);
  const forward = new Uint8Array(n);
  const queue = new Int32Array(n);
  const scratch = new Int32Array(n);
  const levelStart = new Int32Array(n + 2);
  const forwardCount = new Int32Array(n + 1);
  let stamp = 0;
  // Explicit stack of [lo, hi) ranges of perm, each holding one subgraph's vertices (unordered).
  const stack: number[] = [0, n];

  /** Breadth-first search inside the current subgraph; fills queue, level, forward; returns the reach count. */
  const bfs = (root: number, id: number): number => {
    const s = ++stamp;
    visit[root] = s;
    level[root] = 0;
    queue[0] = root;
    let head = 0;
    let tail = 1;
    while (head < tail) {
      const v = queue[head++];
      const next = level[v] + 1;
      let hasForward = 0;
      for (let p = offsets[v]; p < offsets[v + 1]; p++) {
        const u = neighbours[p];
        if (tag[u] !== id) continue;
        if (visit[u] !== s) {
          visit[u] = s;
          level[u] = next;
          queue[tail++] = u;
          hasForward = 1;
        } else if (level[u] === next) {
          hasForward = 1;
        }
      }
      forward[v] = hasForward;
    }
    return tail;
  };

  let id = 0;
  while (stack.length > 0) {
    const hi = stack.pop()!;
    const lo = stack.pop()!;
    const size = hi - lo;
    if (size <= LEAF_SIZE) continue;
    id++;
    for (let k = lo; k < hi; k++) tag[perm[k]] = id;

    const reached = bfs(perm[lo], id);
    if (reached < size) {
      // Disconnected: the reached component first, the rest after; no separator needed.
      const s = stamp;
      let w = 0;
      for (let k = lo; k < hi; k++) if (visit[perm[k]] !== s) scratch[w++] = perm[k];
      perm.set(queue.subarray(0, reached), lo);
      perm.set(scratch.subarray(0, w), lo + reached);
      stack.push(lo, lo + reached, lo + reached, hi);
      continue;
    }
    // The last vertex reached is as far from the start as any: a pseudo-peripheral root.
    bfs(queue[size - 1], id);
    const levels = level[queue[size - 1]] + 1;
    if (levels < 3) {
      perm.set(queue.subarray(0, size), lo);
      continue;
    }
    levelStart.fill(0, 0, levels + 1);
    forwardCount.fill(0, 0, levels);
    for (let k = 0; k < size; k++) {
      const v = queue[k];
      levelStart[level[v] + 1]++;
      forwardCount[level[v]] += forward[v];
    }
    for (let l = 0; l < levels; l++) levelStart[l + 1] += levelStart[l];

    let best = -1;
    let bestCost = Infinity;
    for (let l = 1; l <= levels - 2; l++) {
      const sep = forwardCount[l];
      const sideA = levelStart[l + 1] - sep;
      const sideB = size - levelStart[l + 1];
      const cost = sep / (sideA * sideB);
      if (cost < bestCost) {
        bestCost = cost;
        best = l;
      }
    }
    const sepSize = forwardCount[best];
    const sideB = size - levelStart[best + 1];
    const sideA = size - sideB - sepSize;
    let wa = lo;
    let wb = lo + sideA;
    let ws = hi - sepSize;
    for (let k = 0; k < size; k++) {
      const v = queue[k];
      const l = level[v];
      if (l < best || (l === best && forward[v] === 0)) perm[wa++] = v;
      else if (l === best) perm[ws++] = v;
      else perm[wb++] = v;
    }
    stack.push(lo, lo + sideA, lo + sideA, lo + sideA + sideB);
  }
  return perm;
}
