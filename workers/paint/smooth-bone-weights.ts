import { enforceWeightInvariants } from './enforce-weight-invariants.ts';
import type { PaintSettings, PaintWeights } from './paint-weights.ts';
import type { VertexOneRing } from './vertex-one-ring.ts';

/** Smoothing as the Paint panel's Smooth bone runs it: Jacobi steps of the uniform Laplacian and their factor λ. */
export const SMOOTH_BONE_DEFAULTS = { iterations: 10, factor: 0.5 } as const;

/**
 * Whole-mesh smoothing of one bone's weights: `iterations` Jacobi steps of uniform Laplacian smoothing on the
 * selected vertices, w ← w + λ·(mean of the one-ring − w), each followed by the invariants with the smoothed bone
 * as the painted one. Unselected vertices stay fixed, so with the handle vertices unselected the iteration
 * converges to the harmonic weight of the uniform Laplacian with those boundary values (Jacobson 2011's harmonic
 * weights, course handout Sec. 4, Eq. 2, with graph weights); the error decays geometrically, slowly on long
 * meshes (the rate is the smallest Laplacian eigenvalue of the free block). A vertex held by the smoothed bone
 * alone cannot lose weight (normalization gives the remainder back to it, see enforceWeightInvariants), so the
 * limit is the harmonic one only where the other bones are present.
 * @param weights    #V × #B weights, modified in place
 * @param bone       the bone to smooth (a locked bone is left unchanged)
 * @param oneRing    mesh one-ring
 * @param iterations number of steps
 * @param factor     λ in (0, 1]
 * @param selection  #V flags (1 = may change), or null for every vertex
 * @param settings   locks and influence limit
 */
export function smoothBoneWeights(
  weights: PaintWeights,
  bone: number,
  oneRing: VertexOneRing,
  iterations: number,
  factor: number,
  selection: Uint8Array | null,
  settings: PaintSettings,
): void {
  const { vertexCount: n, boneCount: nb, data } = weights;
  if (!(bone >= 0 && bone < nb)) throw new RangeError(`smoothBoneWeights: bone ${bone} out of range [0, ${nb})`);
  if (settings.locked[bone]) return;
  const lambda = Math.min(Math.max(factor, 0), 1);
  const rows = new Uint32Array(n);
  let count = 0;
  for (let v = 0; v < n; v++) if (!selection || selection[v]) rows[count++] = v;
  const next = new Float64Array(count);
  const { offsets, neighbors } = oneRing;
  for (let it = 0; it < iterations; it++) {
    for (let i = 0; i < count; i++) {
      const v = rows[i];
      const w = data[v * nb + bone];
      const begin = offsets[v],
        end = offsets[v + 1];
      let sum = 0;
      for (let p = begin; p < end; p++) sum += data[neighbors[p] * nb + bone];
      next[i] = end > begin ? w + lambda * (sum / (end - begin) - w) : w;
    }
    for (let i = 0; i < count; i++) data[rows[i] * nb + bone] = next[i];
    enforceWeightInvariants(weights, rows, count, bone, settings);
  }
}
