/**
 * Skinning weights and handle assignments stored as DMAT matrices, checked against the mesh and skeleton they
 * are loaded for.
 */
import { FormatError } from './format-error.ts';
import type { DenseMatrix } from './types.ts';

/** Weights below −this count as negative (solvers leave round-off such as −9e-10 that is not worth a warning). */
const NEGATIVE_TOLERANCE = 1e-6;
/** Rows whose sum is further than this from 1 break the partition of unity. */
const ROW_SUM_TOLERANCE = 1e-3;

/** Describes how a matrix's size relates to #V × #B, for size errors. */
function sizeMismatch(what: string, m: DenseMatrix, vertexCount: number, expectedCols: number, colsMeaning: string): string {
  const expected = `${vertexCount} × ${expectedCols}`;
  let relation: string;
  if (m.rows === expectedCols && m.cols === vertexCount) {
    relation = 'it looks transposed';
  } else if (m.rows === vertexCount) {
    relation = `the ${m.rows} rows match the mesh's vertices, but the ${m.cols} columns do not match ${colsMeaning}`;
  } else if (m.cols === expectedCols) {
    relation = `the ${m.cols} columns match ${colsMeaning}, but the ${m.rows} rows do not match the mesh's ${vertexCount} vertices (it was made for another mesh)`;
  } else {
    relation = `neither the rows match the mesh's ${vertexCount} vertices nor the columns ${colsMeaning} (it was made for another mesh and skeleton)`;
  }
  return `${what} are ${m.rows} × ${m.cols}, but this mesh and skeleton need ${expected} (vertices × ${expectedCols === 1 ? '1' : 'bones'}): ${relation}`;
}

/**
 * Checks a #V × #B weight matrix (one row per vertex, one column per bone in TGF edge order).
 * @param m           the matrix as read (row-major)
 * @param vertexCount #V of the mesh
 * @param boneCount   #B of the skeleton
 * @param file        file name for error messages
 * A row of zeros is a static vertex (one that stays at rest: a mesh without a skin and without a joint above it, as
 * `rigwright import` writes it), not a row that fails to sum to 1; `staticRows` counts them.
 * @returns weights: `m` itself; warnings: negative weights and rows that do not sum to 1 (counts, worst entry);
 *          staticRows: rows of zeros
 * @throws FormatError when the size is not #V × #B (naming both sizes and which dimension matches), or a
 *         value is NaN or infinite (naming row and column, 1-based)
 */
export function weightsFromDmat(
  m: DenseMatrix,
  vertexCount: number,
  boneCount: number,
  file: string,
): { weights: DenseMatrix; warnings: string[]; staticRows: number } {
  if (m.rows !== vertexCount || m.cols !== boneCount) {
    throw new FormatError(file, '', sizeMismatch('the weights', m, vertexCount, boneCount, `the skeleton's ${boneCount} bones`));
  }
  const { data } = m;
  let negatives = 0;
  let mostNegative = 0;
  let mostNegativeAt = 0;
  let badRows = 0;
  let worstRowSum = 1;
  let worstRow = 0;
  let staticRows = 0;
  for (let r = 0; r < vertexCount; r++) {
    let sum = 0;
    let anyWeight = false;
    for (let c = 0; c < boneCount; c++) {
      const w = data[r * boneCount + c];
      if (!Number.isFinite(w)) {
        throw new FormatError(file, `row ${r + 1} column ${c + 1}`, `weight ${Number.isNaN(w) ? 'is NaN (not a number)' : 'is infinite'}`);
      }
      if (w < -NEGATIVE_TOLERANCE) {
        negatives++;
        if (w < mostNegative) {
          mostNegative = w;
          mostNegativeAt = r * boneCount + c;
        }
      }
      sum += w;
      if (w !== 0) anyWeight = true;
    }
    if (!anyWeight) staticRows++;
    else if (Math.abs(sum - 1) > ROW_SUM_TOLERANCE) {
      badRows++;
      if (Math.abs(sum - 1) > Math.abs(worstRowSum - 1)) {
        worstRowSum = sum;
        worstRow = r;
      }
    }
  }
  const warnings: string[] = [];
  if (negatives > 0) {
    const r = Math.floor(mostNegativeAt / boneCount);
    warnings.push(
      `${negatives} negative weight${negatives === 1 ? '' : 's'}; the smallest is ${mostNegative} at row ${r + 1} column ${mostNegativeAt - r * boneCount + 1}`,
    );
  }
  if (badRows > 0) {
    warnings.push(
      `${badRows} row${badRows === 1 ? ' does' : 's do'} not sum to 1; the furthest is row ${worstRow + 1} with sum ${worstRowSum}`,
    );
  }
  return { weights: m, warnings, staticRows };
}

/**
 * Makes weight rows partitions of unity as glTF import does: negative weights become 0, then the row is divided by
 * its sum; a row without positive weight stays all 0 (its vertex stays at rest).
 * @param weights  #V × #B, changed in place
 * @param onlyOff  false: every row (glTF import); true: only the rows that break the invariants — a weight below
 *                 −NEGATIVE_TOLERANCE or a sum further than ROW_SUM_TOLERANCE from 1 — the others keep their bits
 *                 (a project file's weights are the scene's own)
 * @returns what was changed, one sentence each: weights set to 0, rows that did not sum to 1 (none: [])
 */
export function normalizeWeightRows(weights: DenseMatrix, onlyOff: boolean): string[] {
  const { rows, cols, data } = weights;
  let off = 0;
  let worst = 1;
  let negative = 0;
  for (let v = 0; v < rows; v++) {
    const row = v * cols;
    if (onlyOff) {
      let sum = 0;
      let smallest = 0;
      for (let b = 0; b < cols; b++) {
        sum += data[row + b];
        smallest = Math.min(smallest, data[row + b]);
      }
      if (smallest >= -NEGATIVE_TOLERANCE && (sum === 0 || Math.abs(sum - 1) <= ROW_SUM_TOLERANCE)) continue;
    }
    let sum = 0;
    for (let b = 0; b < cols; b++) {
      if (data[row + b] < 0) {
        data[row + b] = 0;
        negative++;
      }
      sum += data[row + b];
    }
    if (sum === 0) continue;
    if (Math.abs(sum - 1) > ROW_SUM_TOLERANCE) {
      off++;
      if (Math.abs(sum - 1) > Math.abs(worst - 1)) worst = sum;
    }
    for (let b = 0; b < cols; b++) data[row + b] /= sum;
  }
  const changes: string[] = [];
  if (negative > 0) changes.push(`${negative} negative weights were set to 0`);
  if (off > 0) changes.push(`${off} vertices have weights that do not sum to 1 (farthest: ${worst.toPrecision(4)}); normalized`);
  return changes;
}

/**
 * Reads handle assignments: one entry per vertex, −1 for a free vertex or the 0-based bone index it is bound to.
 * @param m           the matrix as read: #V × 1
 * @param vertexCount #V of the mesh
 * @param boneCount   #B of the skeleton
 * @param file        file name for error messages
 * @returns #V handle bone indices, −1 = none
 * @throws FormatError when the size is not #V × 1, or an entry is not −1 or a whole number 0..#B−1 (names the row, 1-based)
 */
export function handlesFromDmat(m: DenseMatrix, vertexCount: number, boneCount: number, file: string): Int32Array {
  if (m.rows !== vertexCount || m.cols !== 1) {
    throw new FormatError(file, '', sizeMismatch('the handles', m, vertexCount, 1, 'one column'));
  }
  const handles = new Int32Array(vertexCount);
  for (let v = 0; v < vertexCount; v++) {
    const h = m.data[v];
    if (!(Number.isInteger(h) && h >= -1 && h < boneCount)) {
      throw new FormatError(
        file,
        `row ${v + 1}`,
        `handle ${h} is neither -1 (no handle) nor a bone of this skeleton (0 to ${boneCount - 1})`,
      );
    }
    handles[v] = h;
  }
  return handles;
}
