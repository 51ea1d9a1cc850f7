import { enforceWeightInvariants } from './enforce-weight-invariants.ts';
import type { PaintSettings, PaintWeights } from './paint-weights.ts';

/**
 * Whole-mesh normalize: every row to Σ_b w = 1, locked bones unchanged, the rest scaled proportionally
 * (enforceWeightInvariants with no painted bone and no influence limit).
 * @param weights  #V × #B weights, modified in place
 * @param settings locked bones (maxInfluences is ignored here)
 * @returns rows that could not be normalized (Σ locked > 1, or nothing unlocked to scale)
 */
export function normalizeAllWeights(weights: PaintWeights, settings: PaintSettings): number {
  return enforceWeightInvariants(weights, allRows(weights.vertexCount), weights.vertexCount, -1, {
    locked: settings.locked,
    maxInfluences: 0,
  });
}

/** 0, 1, …, n − 1 */
export function allRows(n: number): Uint32Array {
  const rows = new Uint32Array(n);
  for (let i = 0; i < n; i++) rows[i] = i;
  return rows;
}
