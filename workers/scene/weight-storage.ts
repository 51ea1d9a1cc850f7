/**
 * How a document's weights are held. `SceneDocument.weights` is a #V × #B DenseMatrix, and most of the app reads it
 * as one (`weights.data`). Weights that arrive as rows (per vertex, a few slots of bone and value: a script's
 * `setWeights`) are kept as those rows, and the dense matrix is made from them only when something first reads
 * `data` — a 1M-vertex scene with 4 influences of 32 bones holds 48 MiB of rows rather than 256 MiB of matrix until
 * then, and a script that sets and reads its weights never pays for the matrix.
 *
 * Such a matrix is a plain object whose `data` is a getter until first read, then the dense array (the same one on
 * every later read). Its rows stay beside it, and stay right, as long as nobody writes into `data`: weight painting,
 * the one place that writes into a document's weights in place, announces its rows (SceneStore.weightRowsEdited),
 * which forgets the rows here. Spreading such a matrix or sending it to another thread reads `data`, as for any
 * other matrix.
 */
import type { DenseMatrix } from '../formats/types.ts';

/**
 * A vertex's weights as slots, canonical: per vertex its non-zero weights, largest first (ties in bone order), then
 * unused slots (bone -1, value 0); `influences` is the most slots any vertex uses, at least 1.
 */
export interface HeldRows {
  readonly influences: number;
  /** #V × influences bone indices, -1 in an unused slot */
  readonly bones: Int32Array;
  /** #V × influences weights, 0 in an unused slot */
  readonly values: Float64Array;
}

const heldRows = new WeakMap<DenseMatrix, HeldRows>();

/**
 * A #V × #B matrix that holds `rows` and makes its dense `data` from them when first read.
 * @param rows  canonical rows (HeldRows), owned by the matrix from now on: nobody may write into them
 */
export function weightsHoldingRows(vertexCount: number, boneCount: number, rows: HeldRows): DenseMatrix {
  const weights = { rows: vertexCount, cols: boneCount } as DenseMatrix;
  Object.defineProperty(weights, 'data', {
    enumerable: true,
    configurable: true,
    get(): Float64Array {
      const data = denseOfRows(rows, vertexCount, boneCount);
      Object.defineProperty(weights, 'data', { value: data, enumerable: true, writable: false, configurable: false });
      return data;
    },
  });
  heldRows.set(weights, rows);
  return weights;
}

/** The canonical rows `weights` holds (weightsHoldingRows), or null when it is only a dense matrix. Never write into them. */
export function heldRowsOf(weights: DenseMatrix): HeldRows | null {
  return heldRows.get(weights) ?? null;
}

/** Whether the dense `data` of `weights` exists yet (false only for held rows whose matrix nobody has read). */
export function isDenseMade(weights: DenseMatrix): boolean {
  return Object.getOwnPropertyDescriptor(weights, 'data')?.get === undefined;
}

/** `weights` is about to be, or was, written in place: from now on only its dense matrix is the weights. */
export function forgetHeldRows(weights: DenseMatrix): void {
  if (!heldRows.has(weights)) return;
  void weights.data;
  heldRows.delete(weights);
}

/** The typed arrays `weights` holds now (its rows, its dense matrix once made): what an undo step keeps alive. */
export function weightArrays(weights: DenseMatrix): ArrayBufferView[] {
  const rows = heldRows.get(weights);
  const arrays: ArrayBufferView[] = rows ? [rows.bones, rows.values] : [];
  if (isDenseMade(weights)) arrays.push(weights.data);
  return arrays;
}

/** The #V × #B row-major matrix of canonical rows: each slot's value at its vertex and bone, 0 elsewhere. */
function denseOfRows(rows: HeldRows, vertexCount: number, boneCount: number): Float64Array {
  const { influences, bones, values } = rows;
  const data = new Float64Array(vertexCount * boneCount);
  for (let v = 0, slot = 0, row = 0; v < vertexCount; v++, row += boneCount) {
    for (let end = slot + influences; slot < end; slot++) {
      const b = bones[slot];
      if (b >= 0) data[row + b] = values[slot];
    }
  }
  return data;
}
