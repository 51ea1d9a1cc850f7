/**
 * Compressed sparse column (CSC) matrices: the storage every sparse operation in workers/sparse shares.
 *
 * Column j holds rows `rowIndices[colPointers[j] .. colPointers[j+1])` with matching `values`; rows are
 * sorted ascending within a column and appear once.
 */
export interface CscMatrix {
  rows: number;
  cols: number;
  /** #cols+1 offsets into rowIndices / values */
  colPointers: Int32Array;
  /** nnz row indices, ascending per column */
  rowIndices: Int32Array;
  /** nnz values */
  values: Float64Array;
}

/**
 * Builds a CSC matrix from triplets (i, j, v); entries that name the same (i, j) are summed, as in a finite
 * element assembly.
 *
 * @param rows        number of rows
 * @param cols        number of columns
 * @param tripletRows count row indices, each in [0, rows)
 * @param tripletCols count column indices, each in [0, cols)
 * @param tripletValues count values
 * @param count       how many triplets to read (defaults to tripletRows.length)
 * @returns the summed matrix, rows sorted within each column
 */
export function cscFromTriplets(
  rows: number,
  cols: number,
  tripletRows: ArrayLike<number>,
  tripletCols: ArrayLike<number>,
  tripletValues: ArrayLike<number>,
  count: number = tripletRows.length,
): CscMatrix {
  for (let t = 0; t < count; t++) {
    const i = tripletRows[t];
    const j = tripletCols[t];
    if (!(i >= 0 && i < rows && j >= 0 && j < cols)) {
      throw new RangeError(`cscFromTriplets: triplet ${t} (${i}, ${j}) lies outside a ${rows}×${cols} matrix`);
    }
  }
  // Bucket by row first (compressed rows, unsorted columns), merge duplicates within each row, then
  // transposing into columns visits rows in increasing order, which sorts every column for free.
  const rowPointers = new Int32Array(rows + 1);
  for (let t = 0; t < count; t++) rowPointers[tripletRows[t] + 1]++;
  for (let i = 0; i < rows; i++) rowPointers[i + 1] += rowPointers[i];
  const next = rowPointers.slice(0, rows);
  const byRowCols = new Int32Array(count);
  const byRowValues = new Float64Array(count);
  for (let t = 0; t < count; t++) {
    const p = next[tripletRows[t]]++;
    byRowCols[p] = tripletCols[t];
    byRowValues[p] = tripletValues[t];
  }
  const lastSlot = new Int32Array(cols).fill(-1);
  let write = 0;
  for (let i = 0; i < rows; i++) {
    const start = rowPointers[i];
    const end = rowPointers[i + 1];
    const rowStart = write;
    for (let p = start; p < end; p++) {
      const j = byRowCols[p];
      const slot = lastSlot[j];
      if (slot >= rowStart) {
        byRowValues[slot] += byRowValues[p];
      } else {
        lastSlot[j] = write;
        byRowCols[write] = j;
        byRowValues[write] = byRowValues[p];
        write++;
      }
    }
    rowPointers[i] = rowStart;
  }
  rowPointers[rows] = write;
  return transposeCompressed(rows, cols, rowPointers, byRowCols, byRowValues);
}

/**
 * Transpose of a CSC matrix (equivalently: converts between compressed columns and compressed rows).
 *
 * @param a any CSC matrix, #rows × #cols
 * @returns aᵀ, #cols × #rows, rows sorted within columns
 */
export function cscTranspose(a: CscMatrix): CscMatrix {
  return transposeCompressed(a.cols, a.rows, a.colPointers, a.rowIndices, a.values);
}

/**
 * Given a compressed-row matrix (rows × cols), returns the same matrix in compressed columns (which is what a
 * transpose of CSC is, with the roles swapped).
 */
function transposeCompressed(rows: number, cols: number, rowPointers: Int32Array, colIndices: Int32Array, values: Float64Array): CscMatrix {
  const nnz = rowPointers[rows];
  const colPointers = new Int32Array(cols + 1);
  for (let p = 0; p < nnz; p++) colPointers[colIndices[p] + 1]++;
  for (let j = 0; j < cols; j++) colPointers[j + 1] += colPointers[j];
  const next = colPointers.slice(0, cols);
  const rowIndices = new Int32Array(nnz);
  const out = new Float64Array(nnz);
  for (let i = 0; i < rows; i++) {
    for (let p = rowPointers[i]; p < rowPointers[i + 1]; p++) {
      const q = next[colIndices[p]]++;
      rowIndices[q] = i;
      out[q] = values[p];
    }
  }
  return { rows, cols, colPointers, rowIndices, values: out };
}

/**
 * y = A x for a CSC matrix.
 *
 * @param a   #rows × #cols matrix
 * @param x   #cols vector
 * @param out #rows vector, overwritten (allocated when omitted)
 * @returns out
 */
export function cscMultiplyVector(a: CscMatrix, x: ArrayLike<number>, out: Float64Array = new Float64Array(a.rows)): Float64Array {
  out.fill(0);
  for (let j = 0; j < a.cols; j++) {
    const xj = x[j];
    for (let p = a.colPointers[j]; p < a.colPointers[j + 1]; p++) out[a.rowIndices[p]] += a.values[p] * xj;
  }
  return out;
}

/** counts[k+1] += counts[k] along the array, in place: per-column counts at [k+1] become column offsets. */
export function prefixSums(counts: Int32Array): void {
  for (let k = 0; k + 1 < counts.length; k++) counts[k + 1] += counts[k];
}
