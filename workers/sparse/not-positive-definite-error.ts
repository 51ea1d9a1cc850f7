/**
 * Thrown by choleskyNumeric when a pivot is not safely positive: the matrix is not symmetric positive definite
 * (or is singular to working precision), so no Cholesky factor exists and any solution would be garbage.
 */
export class NotPositiveDefiniteError extends Error {
  override readonly name = 'NotPositiveDefiniteError';
  /**
   * @param index index (in the caller's numbering, before the fill-reducing permutation) of the row whose pivot failed
   * @param pivot the pivot value found: ≤ 0, NaN, or positive but lost to cancellation
   */
  constructor(
    readonly index: number,
    readonly pivot: number,
  ) {
    super(`matrix is not positive definite: the pivot of row ${index} is ${pivot}`);
  }
}
