import { enforceWeightInvariants } from './enforce-weight-invariants.ts';
import type { MirrorVertexMap } from './mirror-vertex-map.ts';
import type { PaintSettings, PaintWeights } from './paint-weights.ts';

/**
 * Whole-mesh mirror: every matched vertex on the target side of the plane `axis = 0` takes the weights of its mirror
 * image, interpolated barycentrically in the triangle it lands in, with each bone b moved to its pair
 * (w'_v[pairs[b]] = Σ_corners β_c·w_c[b]). Locked bones keep their weights; rows are then repaired with
 * enforceWeightInvariants. All source rows are read before any target row is written, so triangles that straddle
 * the plane read the weights as they were.
 * @param weights    #V × #B weights, modified in place
 * @param positions  #V × 3 positions the map was built from (for the side test)
 * @param triangles  #F × 3 vertex indices the map was built from
 * @param map        from mirrorVertexMap (same axis)
 * @param bonePairs  #B mirrored bone of each bone (itself for centre bones, -1 = no partner: its weight is dropped)
 * @param axis       0 = x, 1 = y, 2 = z
 * @param targetSide -1: vertices with coordinate < 0 receive; +1: those with coordinate > 0
 * @param settings   locks and influence limit
 * @returns the vertices written (ascending)
 */
export function mirrorWeights(
  weights: PaintWeights,
  positions: Float64Array,
  triangles: Uint32Array,
  map: MirrorVertexMap,
  bonePairs: Int32Array,
  axis: 0 | 1 | 2,
  targetSide: -1 | 1,
  settings: PaintSettings,
): Uint32Array {
  const { vertexCount: n, boneCount: nb, data } = weights;
  const { locked } = settings;
  let targetCount = 0;
  for (let v = 0; v < n; v++) if (positions[3 * v + axis] * targetSide > 0 && map.triangle[v] >= 0) targetCount++;
  const targets = new Uint32Array(targetCount);
  const rows = new Float64Array(targetCount * nb);
  let t = 0;
  for (let v = 0; v < n; v++) {
    const f = map.triangle[v];
    if (!(positions[3 * v + axis] * targetSide > 0 && f >= 0)) continue;
    targets[t] = v;
    for (let k = 0; k < 3; k++) {
      const beta = map.barycentric[3 * v + k];
      const o = triangles[3 * f + k] * nb;
      for (let b = 0; b < nb; b++) {
        const pair = bonePairs[b];
        if (pair >= 0) rows[t * nb + pair] += beta * data[o + b];
      }
    }
    t++;
  }
  for (let i = 0; i < targetCount; i++) {
    const o = targets[i] * nb;
    for (let b = 0; b < nb; b++) if (!locked[b]) data[o + b] = rows[i * nb + b];
  }
  enforceWeightInvariants(weights, targets, targetCount, -1, settings);
  return targets;
}
