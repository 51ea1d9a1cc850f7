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
   * vertices that keep more than K non-zero weights because their locked bones already use the limit: K or more
   * locked non-zero weights summing to less than 1 keep their largest unlocked weight beyond K (partition of unity
   * wins over the limit), and more than K locked weights summing to 1 keep those locked weights
   */
  keptOverLimit: number;
  /**
   * vertices that could not keep Σ w = 1: locked weights summing to more than 1, or less than 1 with no positive
   * unlocked weight to take the remainder; their locked weights stay and their unlocked ones are dropped as the limit
   * allows, unscaled
   */
  unrepaired: number;
}

/**
 * Limits every vertex to at most K non-zero weights, as Maya's skinCluster "maintain max influences" does: in a row
 * with more, the smallest unlocked weights are dropped (locked ones always stay), and the unlocked weights kept are
 * scaled to fill 1 − Σ locked, so the row sums to 1 again. Where the locked weights already use the K places and sum
 * to less than 1, the largest unlocked weight stays beyond K to take the remainder (the row keeps its sum; counted in
 * `keptOverLimit`). Ties drop the higher bone first. NaN weights count as zero, as the export's influences do
 * (influencesFromWeights): a row is over the limit by its other non-zero weights, and a row limited loses its NaN
 * (set to 0); negative weights count and are the first dropped.
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
  let keptOverLimit = 0;
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
      if (Number.isNaN(w)) {
        if (!locked?.[b]) out[o + b] = 0;
        continue;
      }
      if (locked?.[b]) {
        lockedSum += w;
        lockedCount++;
      } else order.push(b);
    }
    // Largest first, negative weights last; ties keep the lower bone.
    order.sort((a, b) => out[o + b] - out[o + a] || a - b);
    const room = 1 - lockedSum;
    const keep = unlockedKept(maxInfluences, lockedCount, room);
    let keptSum = 0;
    let kept = 0;
    for (let i = 0; i < order.length; i++) {
      const b = order[i];
      if (i < keep && out[o + b] > 0) {
        keptSum += out[o + b];
        kept++;
      } else out[o + b] = 0;
    }
    if (lockedCount + kept > maxInfluences) keptOverLimit++;
    if (lockedSum > 1 + LOCKED_SUM_TOLERANCE || (room > 0 && !(keptSum > 0))) {
      unrepaired++;
      continue;
    }
    if (!(room > 0)) continue;
    const scale = room / keptSum;
    for (let i = 0; i < kept; i++) out[o + order[i]] *= scale;
  }
  return { weights: { rows, cols, data: out }, limited, keptOverLimit, unrepaired };
}

/** How far locked weights may sum above 1 (float rounding of weights saved as float32) before a row is unrepairable. */
export const LOCKED_SUM_TOLERANCE = 1e-6;

/**
 * The row rule every influence limiter shares: how many unlocked non-zero weights a row over the limit keeps. The K
 * places left by the locked non-zero weights; but at least one while the locked weights leave room (1 − Σ locked > 0)
 * for it to fill, since a row that sums to less than 1 is worse than one with a bone too many.
 * @param maxInfluences  K
 * @param lockedCount    the row's locked non-zero weights
 * @param room           1 − Σ locked of the row
 */
export function unlockedKept(maxInfluences: number, lockedCount: number, room: number): number {
  const left = Math.max(0, maxInfluences - lockedCount);
  return left === 0 && room > 0 ? 1 : left;
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

/** Non-zero entries of one row; NaN counts as zero, as the exporter's influencesFromWeights and droppedWeight count. */
function nonZeroCount(data: ArrayLike<number>, o: number, cols: number): number {
  let count = 0;
  for (let b = 0; b < cols; b++) {
    const w = data[o + b];
    if (w > 0 || w < 0) count++;
  }
  return count;
}
