import type { CscMatrix } from '../sparse/csc-matrix.ts';

/**
 * The sparsity pattern shared by every per-vertex operator of a triangle mesh: entry (i, j) exists when i = j or
 * i and j share an edge. Values are zero, to be filled by the caller (cotangentLaplacian, uniformLaplacian).
 *
 * @param vertexCount #V
 * @param triangles   #F × 3 vertex indices
 * @returns #V × #V CSC matrix with sorted rows and zero values
 * @throws RangeError when a triangle names a vertex outside [0, #V)
 */
export function vertexAdjacencyPattern(vertexCount: number, triangles: Uint32Array): CscMatrix {
  const n = vertexCount;
  const faceCount = Math.floor(triangles.length / 3);
  const degree = new Int32Array(n + 1);
  for (let t = 0; t < faceCount * 3; t++) {
    const v = triangles[t];
    if (v >= n) throw new RangeError(`vertexAdjacencyPattern: face ${Math.floor(t / 3)} names vertex ${v}, the mesh has ${n}`);
    degree[v + 1] += 2;
  }
  for (let i = 0; i < n; i++) degree[i + 1] += degree[i] + 1;
  const raw = new Int32Array(degree[n]);
  const next = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    raw[degree[i]] = i;
    next[i] = degree[i] + 1;
  }
  for (let f = 0; f < faceCount; f++) {
    const a = triangles[3 * f];
    const b = triangles[3 * f + 1];
    const c = triangles[3 * f + 2];
    raw[next[a]++] = b;
    raw[next[a]++] = c;
    raw[next[b]++] = c;
    raw[next[b]++] = a;
    raw[next[c]++] = a;
    raw[next[c]++] = b;
  }
  const colPointers = new Int32Array(n + 1);
  const lastSeen = new Int32Array(n).fill(-1);
  let write = 0;
  for (let i = 0; i < n; i++) {
    const start = write;
    for (let p = degree[i]; p < degree[i + 1]; p++) {
      const j = raw[p];
      if (lastSeen[j] === i) continue;
      lastSeen[j] = i;
      // Insertion into the sorted run: columns hold a handful of entries on a mesh.
      let q = write++;
      while (q > start && raw[q - 1] > j) {
        raw[q] = raw[q - 1];
        q--;
      }
      raw[q] = j;
    }
    colPointers[i + 1] = write;
  }
  return { rows: n, cols: n, colPointers, rowIndices: raw.slice(0, write), values: new Float64Array(write) };
}
