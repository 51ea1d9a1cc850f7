/**
 * Per-vertex context-aware deformation (course handout Eq. 7), the CPU reference of the viewport's context LBS and
 * context DQS. The handout writes v_i = T(P, w(i)) v0_i + Σ_j a_j(P) δ_j,i, adding the displacements AFTER the
 * skinning transform; but δ_j = S̄_j − S_0 lives in rest space (unpose.ts), so constraint (2) needs it added
 * BEFORE the transform:
 *
 *     v_i = T(P, w(i)) (v0_i + Σ_j a_j(P) δ_j,i).
 *
 * Derivation: at P = P_j, a_k(P_j) = δ_jk, so v_i = T(P_j, w(i)) (v0_i + δ_j,i) = T(P_j, w(i)) v̄_j,i = v_j,i by
 * the definition of unposing; the handout's order would give T v0 + δ_j, which differs from S_j wherever T is not
 * a translation. It is also exactly glTF's order (morph targets are applied before skinning), so context LBS exports
 * as morph targets δ_j with weights a_j(P(t)).
 *
 * Displacements are packed example-major: δ_j,i is at displacements[3 (j·#V + i) + c].
 */
import { dualQuaternionSkinning, type DualQuaternionSkinningOptions } from '../skinning/dual-quaternion-skinning.ts';
import type { Influences } from '../skinning/influences.ts';
import { linearBlendSkinning } from '../skinning/linear-blend-skinning.ts';

/**
 * The corrected rest shape v0 + Σ_j a_j δ_j. Examples with weight exactly 0 are skipped, so v0 is returned bit for
 * bit when every weight is 0.
 * @param restPositions   #V × 3 rest shape S_0
 * @param displacements   J × #V × 3, example-major
 * @param exampleWeights  J weights a_j(P) (poseSpaceWeights)
 * @param out             #V × 3 (may be restPositions itself)
 */
export function contextRestPositions(
  restPositions: Float64Array,
  displacements: Float64Array,
  exampleWeights: ArrayLike<number>,
  out: Float64Array,
): void {
  const n = restPositions.length;
  const J = exampleWeights.length;
  if (displacements.length !== J * n) {
    throw new RangeError(`context skinning: ${displacements.length / 3} displacements for ${J} examples × ${n / 3} vertices`);
  }
  if (out !== restPositions) out.set(restPositions);
  for (let j = 0; j < J; j++) {
    const a = exampleWeights[j];
    if (a === 0) continue;
    const o = j * n;
    for (let i = 0; i < n; i++) out[i] += a * displacements[o + i];
  }
}

let scratchRest = new Float64Array(0);
function corrected(restPositions: Float64Array, displacements: Float64Array, exampleWeights: ArrayLike<number>): Float64Array {
  if (exampleWeights.length === 0 && displacements.length === 0) return restPositions;
  if (scratchRest.length !== restPositions.length) scratchRest = new Float64Array(restPositions.length);
  contextRestPositions(restPositions, displacements, exampleWeights, scratchRest);
  return scratchRest;
}

/**
 * Context LBS: linearBlendSkinning of v0 + Σ_j a_j δ_j. With no examples (J = 0) it is linearBlendSkinning of the
 * rest shape itself, bit for bit.
 * @param restPositions   #V × 3
 * @param displacements   J × #V × 3 (LBS-unposed, example-major)
 * @param exampleWeights  J weights a_j(P)
 * @param influences      per-vertex influences
 * @param transforms      #B × 12 rest → posed at P
 * @param outPositions    #V × 3 (must not alias restPositions)
 */
export function contextLinearBlendSkinning(
  restPositions: Float64Array,
  displacements: Float64Array,
  exampleWeights: ArrayLike<number>,
  influences: Influences,
  transforms: Float64Array,
  outPositions: Float64Array,
): void {
  linearBlendSkinning(corrected(restPositions, displacements, exampleWeights), influences, transforms, outPositions);
}

/**
 * Context DQS: dualQuaternionSkinning of v0 + Σ_j a_j δ_j (displacements unposed through DQS). With no examples it is
 * dualQuaternionSkinning of the rest shape itself, bit for bit.
 * @param boneDualQuaternions  #B × 8 rest → posed at P
 * @param options              as dualQuaternionSkinning's (use the antipodality the examples were unposed with)
 */
export function contextDualQuaternionSkinning(
  restPositions: Float64Array,
  displacements: Float64Array,
  exampleWeights: ArrayLike<number>,
  influences: Influences,
  boneDualQuaternions: Float64Array,
  outPositions: Float64Array,
  options?: DualQuaternionSkinningOptions,
): void {
  dualQuaternionSkinning(corrected(restPositions, displacements, exampleWeights), influences, boneDualQuaternions, outPositions, options);
}
