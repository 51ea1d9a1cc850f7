import { enforceWeightInvariants } from './enforce-weight-invariants.ts';
import { allRows } from './normalize-all-weights.ts';
import type { PaintSettings, PaintWeights } from './paint-weights.ts';

/**
 * Whole-mesh "limit total": every vertex keeps at most K non-zero weights (the largest unlocked ones besides the
 * locked), renormalized around the locked bones.
 * @param weights  #V × #B weights, modified in place
 * @param settings locked bones and K = maxInfluences (≥ 1)
 * @returns rows that could not be repaired (see enforceWeightInvariants)
 */
export function limitTotalInfluences(weights: PaintWeights, settings: PaintSettings): number {
  if (!(settings.maxInfluences >= 1))
    throw new RangeError(`limitTotalInfluences: influence limit ${settings.maxInfluences} must be at least 1`);
  return enforceWeightInvariants(weights, allRows(weights.vertexCount), weights.vertexCount, -1, settings);
}
