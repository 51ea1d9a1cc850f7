import { enforceWeightInvariants } from './enforce-weight-invariants.ts';
import type { PaintSettings, PaintWeights } from './paint-weights.ts';

/**
 * Whole-mesh "clean": unlocked weights below `threshold` become 0 and their rows are renormalized around the
 * locked bones. A row whose unlocked weights are all below the threshold keeps its largest one (else the vertex
 * would lose its binding).
 * @param weights   #V × #B weights, modified in place
 * @param threshold weights strictly below it are pruned, in [0, 1]
 * @param settings  locks and the influence limit, re-applied on changed rows
 * @returns the number of rows changed
 */
export function pruneSmallWeights(weights: PaintWeights, threshold: number, settings: PaintSettings): number {
  const { vertexCount: n, boneCount: nb, data } = weights;
  const { locked } = settings;
  const changed = new Uint32Array(n);
  let changedCount = 0;
  for (let v = 0; v < n; v++) {
    const o = v * nb;
    let largest = -1;
    let pruned = 0;
    for (let b = 0; b < nb; b++) {
      if (locked[b]) continue;
      const w = data[o + b];
      if (w > 0 && (largest < 0 || w > data[o + largest])) largest = b;
      if (w > 0 && w < threshold) pruned++;
    }
    if (pruned === 0) continue;
    for (let b = 0; b < nb; b++) if (!locked[b] && b !== largest && data[o + b] < threshold) data[o + b] = 0;
    changed[changedCount++] = v;
  }
  enforceWeightInvariants(weights, changed, changedCount, -1, settings);
  return changedCount;
}
