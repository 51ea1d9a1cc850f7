import type { DenseMatrix } from '../formats/types.ts';

/** The values the scene's "Max influences" may take: glTF stores at most two sets of four (JOINTS_0, JOINTS_1). */
export const MAX_INFLUENCE_CHOICES = [1, 2, 3, 4, 5, 6, 7, 8] as const;

/** What a new scene starts with: one set of four, what most engines skin with. */
export const MAX_INFLUENCES_DEFAULT = 4;

/** What limitInfluences did. */
export interface LimitedInfluences {
  /** #V × #B the limited weights (a new matrix; rows with K or fewer non-zero weights are copied bit for bit) */
  weights: DenseMatrix;
  /** vertices whose rows were limited */
  limited: number;
  /**
   * vertices that could not keep Σ w = 1 within the limit: more than K locked non-zero weights, locked weights summing
   * to 1 or more with unlocked ones to drop, or nothing unlocked left to take the remainder; their locked weights stay
   * and the unlocked ones are dropped or kept as the limit allows, unscaled
   */
  unrepaired: number;
}

/**
 * Limits every vertex to at most K non-zero weights, as Maya's skinCluster "maintain max influences" does: in a row
 * with more, the smallest unlocked weights are dropped (locked ones always stay), and the unlocked weights kept are
 * scaled to fill 1 − Σ locked, so the row sums to 1 again. Ties drop the higher bone first. Negative and NaN weights
 * count as non-zero and are the first dropped.
 * @param weights        #V × #B weights, row-major float64
 * @param maxInfluences  K ≥ 1
 * @param locked         #B flags (1 = locked: its weights never change), or null for none
 * @throws RangeError naming the operation when K is not a whole number ≥ 1 or `locked` has the wrong length
 */
export function limitInfluences(weights: DenseMatrix, maxInfluences: number, locked: Uint8Array | null): LimitedInfluences {
  const { rows, cols, data } = weights;
  if (!(Number.isInteger(maxInfluences) && maxInfluences >= 1))
    throw new RangeError(`limitInfluences: the influence limit must be a whole number of at least 1, not ${maxInfluences}`);
  if (locked && locked.length !== cols) throw new RangeError(`limitInfluences: ${locked.length} lock flags for ${cols} bones`);
  const out = Float64Array.from(data);
  const order: number[] = [];
  let limited = 0;
  let unrepaired = 0;
  for (let v = 0; v < rows; v++) {
    const o = v * cols;
    if (nonZeroCount(out, o, cols) <= maxInfluences) continue;
    limited++;
    let lockedSum = 0;
    let lockedCount = 0;
    order.length = 0;
    for (let b = 0; b < cols; b++) {
      const w = out[o + b];
      if (w === 0) continue;
      if (locked?.[b]) {
        lockedSum += w;
        lockedCount++;
      } else order.push(b);
    }
    // Largest first; NaN and negative weights last; ties keep the lower bone.
    order.sort((a, b) => rank(out[o + b]) - rank(out[o + a]) || a - b);
    const keep = Math.max(0, maxInfluences - lockedCount);
    let keptSum = 0;
    for (let i = 0; i < order.length; i++) {
      const b = order[i];
      if (i < keep && out[o + b] > 0) keptSum += out[o + b];
      else out[o + b] = 0;
    }
    const room = 1 - lockedSum;
    if (lockedCount > maxInfluences || !(room > 0) || !(keptSum > 0)) {
      unrepaired++;
      continue;
    }
    const scale = room / keptSum;
    for (let i = 0; i < Math.min(keep, order.length); i++) out[o + order[i]] *= scale;
  }
  return { weights: { rows, cols, data: out }, limited, unrepaired };
}

/**
 * Vertices with more than K non-zero weights: the ones limitInfluences changes and an export to K influences drops
 * weights of.
 * @param weights  #V × #B weights, row-major
 * @param maxInfluences  K
 */
export function verticesOverInfluences(weights: DenseMatrix, maxInfluences: number): number {
  const { rows, cols, data } = weights;
  let count = 0;
  for (let v = 0; v < rows; v++) if (nonZeroCount(data, v * cols, cols) > maxInfluences) count++;
  return count;
}

/**
 * The most non-zero weights any vertex has: with a limit K, an export keeps min(K, this) per vertex, which decides
 * whether one joint set of four is enough.
 * @param weights  #V × #B weights, row-major
 */
export function mostInfluences(weights: DenseMatrix): number {
  const { rows, cols, data } = weights;
  let most = 0;
  for (let v = 0; v < rows; v++) most = Math.max(most, nonZeroCount(data, v * cols, cols));
  return most;
}

/** Non-zero (or NaN) entries of one row. */
function nonZeroCount(data: ArrayLike<number>, o: number, cols: number): number {
  let count = 0;
  for (let b = 0; b < cols; b++) if (data[o + b] !== 0) count++;
  return count;
}

/** A weight's rank when choosing what to keep: its value, NaN below every number. */
function rank(w: number): number {
  return Number.isNaN(w) ? -Infinity : w;
}
