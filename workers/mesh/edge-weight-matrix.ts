import type { CscMatrix } from '../sparse/csc-matrix.ts';

/**
 * Assembles the positive semi-definite operator K = Σ_faces Σ_edges w (e_i − e_j)(e_i − e_j)ᵀ from one weight per
 * face corner, the weight belonging to the edge opposite that corner: K_ij = −Σ w over the faces sharing edge
 * (i, j), K_ii = −Σ_{j≠i} K_ij. Symmetric with zero row sums by construction, and assembled in one pass over
 * per-vertex lists (no searching), since building Laplacians is a visible part of computing weights.
 *
 * @param vertexCount #V
 * @param triangles   #F × 3 vertex indices
 * @param cornerWeights #F × 3: weight of the edge opposite each corner (b–c for corner a, and so on); only read
 *                    for faces with a vertex in `columns`
 * @param columns     optional #V mask: only the columns of vertices with a non-zero entry are assembled, the others
 *                    are left empty. A Dirichlet problem reads only its free vertices' columns, and on a rigged mesh
 *                    most vertices are handles, so this skips most of the work. Assembled columns are exactly those
 *                    of the full matrix.
 * @returns #V × #V CSC matrix; column i holds i and its edge neighbours, rows sorted
 * @throws RangeError when a triangle names a vertex outside [0, #V)
 */
export function edgeWeightMatrix(
  vertexCount: number,
  triangles: Uint32Array,
  cornerWeights: Float64Array,
  columns?: Uint8Array,
): CscMatrix {
  const n = vertexCount;
  const faceCount = Math.floor(triangles.length / 3);
  if (columns && columns.length !== n)
    throw new RangeError(`edgeWeightMatrix: column mask has ${columns.length} entries for ${n} vertices`);
  const mask = columns ?? new Uint8Array(n).fill(1);
  // Slot layout per assembled vertex: its diagonal first, then two (neighbour, weight) pairs per incident face.
  const start = new Int32Array(n + 1);
  for (let t = 0; t < faceCount * 3; t++) {
    const v = triangles[t];
    if (v >= n) throw new RangeError(`edgeWeightMatrix: face ${Math.floor(t / 3)} names vertex ${v}, the mesh has ${n}`);
    if (mask[v] !== 0) start[v + 1] += 2;
  }
  for (let i = 0; i < n; i++) start[i + 1] += start[i] + 1;
  const rows = new Int32Array(start[n]);
  const values = new Float64Array(start[n]);
  const fill = new Int32Array(n);
  for (let i = 0; i < n; i++) fill[i] = start[i] + 1;
  for (let f = 0; f < faceCount; f++) {
    const a = triangles[3 * f];
    const b = triangles[3 * f + 1];
    const c = triangles[3 * f + 2];
    const ma = mask[a];
    const mb = mask[b];
    const mc = mask[c];
    if ((ma | mb | mc) === 0) continue;
    const wa = cornerWeights[3 * f];
    const wb = cornerWeights[3 * f + 1];
    const wc = cornerWeights[3 * f + 2];
    if (ma !== 0) {
      const q = fill[a];
      rows[q] = b;
      values[q] = wc;
      rows[q + 1] = c;
      values[q + 1] = wb;
      fill[a] = q + 2;
    }
    if (mb !== 0) {
      const q = fill[b];
      rows[q] = c;
      values[q] = wa;
      rows[q + 1] = a;
      values[q + 1] = wc;
      fill[b] = q + 2;
    }
    if (mc !== 0) {
      const q = fill[c];
      rows[q] = a;
      values[q] = wb;
      rows[q + 1] = b;
      values[q + 1] = wa;
      fill[c] = q + 2;
    }
  }
  const colPointers = new Int32Array(n + 1);
  const slot = new Int32Array(n).fill(-1);
  let write = 0;
  for (let i = 0; i < n; i++) {
    if (mask[i] === 0) {
      colPointers[i + 1] = write;
      continue;
    }
    const first = write;
    let diagonal = 0;
    rows[write] = i;
    slot[i] = write++;
    for (let p = start[i] + 1; p < start[i + 1]; p++) {
      const j = rows[p];
      const w = values[p];
      diagonal += w;
      const s = slot[j];
      if (s >= first) {
        values[s] -= w;
        continue;
      }
      // Insertion into the sorted run; columns hold a handful of entries on a mesh.
      let q = write++;
      while (q > first && rows[q - 1] > j) {
        rows[q] = rows[q - 1];
        values[q] = values[q - 1];
        slot[rows[q]] = q;
        q--;
      }
      rows[q] = j;
      values[q] = -w;
      slot[j] = q;
    }
    values[slot[i]] = diagonal;
    colPointers[i + 1] = write;
  }
  // A masked matrix is a working copy for one solve: views save copying it (the unused tail is small).
  if (columns) return { rows: n, cols: n, colPointers, rowIndices: rows.subarray(0, write), values: values.subarray(0, write) };
  return { rows: n, cols: n, colPointers, rowIndices: rows.slice(0, write), values: values.slice(0, write) };
}
