import { prefixSums, type CscMatrix } from './csc-matrix.ts';

/** The graph of a sparse symmetric matrix: vertex i's neighbours are `neighbours[offsets[i] .. offsets[i+1])`. */
export interface AdjacencyGraph {
  vertexCount: number;
  /** #V+1 offsets */
  offsets: Int32Array;
  /** neighbour lists, no self loops, each neighbour once */
  neighbours: Int32Array;
}

/**
 * The adjacency graph of pattern(A + Aᵀ) without the diagonal — what an ordering for Cholesky looks at.
 * Works whether A stores both triangles or only one.
 *
 * @param a square #n × #n matrix; only its pattern is read
 * @returns the graph on n vertices
 */
export function symmetricAdjacency(a: CscMatrix): AdjacencyGraph {
  const n = a.cols;
  if (a.rows !== n) throw new RangeError(`symmetricAdjacency: matrix is ${a.rows}×${a.cols}, needs to be square`);
  const degree = new Int32Array(n + 1);
  countEdges(a, degree);
  prefixSums(degree);
  const raw = new Int32Array(degree[n]);
  fillEdges(a, degree, raw);
  // One stored triangle lists every edge once: nothing to remove (the lower triangle of a Laplacian, say).
  if (isOneTriangle(a)) return { vertexCount: n, offsets: degree, neighbours: raw };
  const offsets = new Int32Array(n + 1);
  const write = removeDuplicates(n, degree, raw, offsets);
  return { vertexCount: n, offsets, neighbours: write === raw.length ? raw : raw.slice(0, write) };
}

// One loop per function: V8 optimizes each on its own feedback and keeps the code between calls on large graphs.

function countEdges(a: CscMatrix, degree: Int32Array): void {
  const { colPointers, rowIndices } = a;
  for (let j = 0; j < a.cols; j++) {
    for (let p = colPointers[j]; p < colPointers[j + 1]; p++) {
      const i = rowIndices[p];
      if (i === j) continue;
      degree[i + 1]++;
      degree[j + 1]++;
    }
  }
}

function fillEdges(a: CscMatrix, degree: Int32Array, raw: Int32Array): void {
  const { colPointers, rowIndices } = a;
  const next = degree.slice(0, a.cols);
  for (let j = 0; j < a.cols; j++) {
    for (let p = colPointers[j]; p < colPointers[j + 1]; p++) {
      const i = rowIndices[p];
      if (i === j) continue;
      raw[next[i]++] = j;
      raw[next[j]++] = i;
    }
  }
}

/** Whether every entry of A lies on or below the diagonal, or every one on or above it (stops at the first pair). */
function isOneTriangle(a: CscMatrix): boolean {
  const { colPointers, rowIndices } = a;
  let below = false;
  let above = false;
  for (let j = 0; j < a.cols; j++) {
    for (let p = colPointers[j]; p < colPointers[j + 1]; p++) {
      if (rowIndices[p] > j) below = true;
      else if (rowIndices[p] < j) above = true;
    }
    if (below && above) return false;
  }
  return true;
}

/** A symmetric input lists every edge twice; keeps one copy, compacting raw in place. @returns entries kept */
function removeDuplicates(n: number, degree: Int32Array, raw: Int32Array, offsets: Int32Array): number {
  const lastSeen = new Int32Array(n).fill(-1);
  let write = 0;
  for (let i = 0; i < n; i++) {
    for (let p = degree[i]; p < degree[i + 1]; p++) {
      const k = raw[p];
      if (lastSeen[k] === i) continue;
      lastSeen[k] = i;
      raw[write++] = k;
    }
    offsets[i + 1] = write;
  }
  return write;
}
