/**
 * The scene's bone-indexed data reached through functions, not by indexing its arrays: a vertex's weight of a bone, a
 * bone's column of weights, a vertex's strongest bone, a block of rows replaced, a bone's rotation in a pose. The
 * weights are a dense #V × #B row-major matrix today; the renderer reaches them only through here, so another storage
 * (sparse rows) changes this module and not its callers.
 */
import type { DenseMatrix } from '../formats/types.ts';

/** Vertex `vertex`'s weight of `bone` (0 for bone -1, no bone). */
export function weightAt(weights: DenseMatrix, vertex: number, bone: number): number {
  return bone >= 0 ? weights.data[vertex * weights.cols + bone] : 0;
}

/**
 * Column `bone` of the weights, one value per vertex, into `out` (zeros for bone -1).
 * @param count  how many vertices, from vertex 0 (out's length by default)
 */
export function boneColumn(weights: DenseMatrix, bone: number, out: Float32Array | Float64Array, count = out.length): void {
  if (bone < 0) {
    out.fill(0, 0, count);
    return;
  }
  const { cols, data } = weights;
  for (let v = 0; v < count; v++) out[v] = data[v * cols + bone];
}

/** The bone with the largest weight at `vertex` (the first one on ties; 0 for a skeleton of no bones). */
export function dominantBone(weights: DenseMatrix, vertex: number): number {
  const { cols, data } = weights;
  const row = vertex * cols;
  let best = 0;
  for (let b = 1; b < cols; b++) if (data[row + b] > data[row + best]) best = b;
  return best;
}

/**
 * The weights with the rows from `firstVertex` on replaced by `rows` (a new matrix; the other rows copied bit for bit).
 * @param rows  k × #B row-major
 * @throws RangeError when the rows are not whole rows of this matrix, or run past its last vertex
 */
export function withRows(weights: DenseMatrix, firstVertex: number, rows: ArrayLike<number>): DenseMatrix {
  const nb = weights.cols;
  if (nb === 0 ? rows.length !== 0 : rows.length % nb !== 0 || firstVertex + rows.length / nb > weights.rows)
    throw new RangeError(`${rows.length} weights are not whole rows of ${nb} bones from vertex ${firstVertex} of ${weights.rows}`);
  const data = weights.data.slice();
  data.set(rows, firstVertex * nb);
  return { rows: weights.rows, cols: nb, data };
}

/**
 * The rows of `count` vertices from `firstVertex` on, as one `count` × #B row-major array (a copy: the scene's stay as
 * they are), for what works on one mesh of the scene or one vertex.
 * @throws RangeError when the vertices run past the matrix's last
 */
export function rowsOf(weights: DenseMatrix, firstVertex: number, count: number): Float64Array {
  if (!(firstVertex >= 0 && count >= 0 && firstVertex + count <= weights.rows))
    throw new RangeError(`vertices ${firstVertex} to ${firstVertex + count - 1} are not all among the ${weights.rows} of the weights`);
  return weights.data.slice(firstVertex * weights.cols, (firstVertex + count) * weights.cols);
}

/**
 * All the weights as one dense #V × #B row-major array (vertex v's weight of bone b at v · #B + b), for what needs
 * them whole: a file's bytes, a test's snapshot. A copy: the caller may keep or change it, the scene's stay as they are.
 */
export function denseWeights(weights: DenseMatrix): Float64Array {
  return weights.data.slice();
}

/** Bone `bone`'s 3 × 3 row-major rotation in a #B × 9 pose (a view of it, not a copy). */
export function boneRotation(pose: Float64Array, bone: number): Float64Array {
  return pose.subarray(9 * bone, 9 * bone + 9);
}
