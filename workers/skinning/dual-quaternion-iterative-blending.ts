import {
  dualQuatConjugate,
  dualQuatExp,
  dualQuatLog,
  dualQuatMultiply,
  dualQuatNormalize,
  dualQuatRotateVector,
  dualQuatTransformPoint,
} from '../math/dual-quaternion.ts';
import type { DualQuaternionAntipodality } from './dual-quaternion-skinning.ts';
import type { Influences } from './influences.ts';

export interface DualQuaternionIterativeBlendingOptions {
  /** sign choice of the inputs, as in DualQuaternionSkinningOptions.antipodality */
  antipodality?: DualQuaternionAntipodality;
  /** most iterations per vertex after the DLB estimate */
  maxIterations?: number;
  /**
   * Kavan's precision p: iteration stops once ‖x̂‖ < p, ‖x̂‖ the Euclidean norm of the 6 numbers of the mean
   * logarithm (half the correcting rotation angle in radians and half its translation, in model units)
   */
  tolerance?: number;
}

export const DUAL_QUATERNION_ITERATIVE_BLENDING_DEFAULTS: Required<DualQuaternionIterativeBlendingOptions> = {
  antipodality: 'per-vertex',
  maxIterations: 20,
  tolerance: 1e-12,
};

const blend = new Float64Array(8);
const blendConjugate = new Float64Array(8);
const relative = new Float64Array(8);
const mean = new Float64Array(8);

/**
 * Dual quaternion iterative blending, DIB (Kavan et al. 2008 Appendix B.1, Algorithm 3): the weighted mean on the
 * manifold of unit dual quaternions, the accurate (and about 3× slower) reference for DLB.
 *     b̂ = DLB(w; q̂₁ … q̂ₙ);  repeat x̂ = Σ w_k log(b̂* q̂_k); b̂ = b̂ exp(x̂)  until ‖x̂‖ < p.
 * For two transforms it equals ScLERP after one iteration. Signs are resolved as in dualQuaternionSkinning, the
 * weights are divided by their sum (as DLB's normalization makes them), a vertex without weight (or with weights
 * summing to 0) stays at rest,
 * and the rest pose returns the rest mesh bit for bit (every logarithm is exactly 0). b̂ is renormalized after each
 * step against drift; logarithms take the shorter screw of ±b̂* q̂_k. Rigid joints only (no first phase).
 * @param restPositions        #V × 3 rest positions
 * @param influences           per-vertex bones and weights (#V × stride)
 * @param boneDualQuaternions  #B × 8 unit dual quaternions, rest → posed
 * @param outPositions         #V × 3 posed positions (must not alias restPositions)
 * @param options              see DualQuaternionIterativeBlendingOptions
 * @param restNormals          optional #V × 3 rest normals
 * @param outNormals           #V × 3 posed normals (rotated by the blended rotation), written when restNormals is given
 */
export function dualQuaternionIterativeBlending(
  restPositions: Float64Array,
  influences: Influences,
  boneDualQuaternions: Float64Array,
  outPositions: Float64Array,
  options?: DualQuaternionIterativeBlendingOptions,
  restNormals?: Float64Array,
  outNormals?: Float64Array,
): void {
  const defaults = DUAL_QUATERNION_ITERATIVE_BLENDING_DEFAULTS;
  const perVertex = (options?.antipodality ?? defaults.antipodality) === 'per-vertex';
  const maxIterations = options?.maxIterations ?? defaults.maxIterations;
  const tolerance = options?.tolerance ?? defaults.tolerance;
  const { vertexCount, stride, bones, weights } = influences;
  const Q = boneDualQuaternions;
  const signed = new Float64Array(8 * stride);
  const signedWeights = new Float64Array(stride);
  const b = blend;
  for (let v = 0; v < vertexCount; v++) {
    let count = 0;
    let total = 0;
    let rx = 0,
      ry = 0,
      rz = 0,
      rw = 0;
    b.fill(0);
    for (let i = v * stride, end = i + stride; i < end; i++) {
      const w = weights[i];
      if (w === 0) continue;
      const o = 8 * bones[i];
      let sign = 1;
      if (perVertex) {
        if (rx === 0 && ry === 0 && rz === 0 && rw === 0) {
          rx = Q[o];
          ry = Q[o + 1];
          rz = Q[o + 2];
          rw = Q[o + 3];
        }
        if (rx * Q[o] + ry * Q[o + 1] + rz * Q[o + 2] + rw * Q[o + 3] < 0) sign = -1;
      }
      const so = 8 * count;
      for (let k = 0; k < 8; k++) {
        signed[so + k] = sign * Q[o + k];
        b[k] += w * signed[so + k];
      }
      signedWeights[count] = w;
      total += w;
      count++;
    }
    if (count === 0 || total === 0) {
      for (let k = 0; k < 3; k++) outPositions[3 * v + k] = restPositions[3 * v + k];
      if (restNormals && outNormals) for (let k = 0; k < 3; k++) outNormals[3 * v + k] = restNormals[3 * v + k];
      continue;
    }
    dualQuatNormalize(b, 0, b, 0);
    for (let k = 0; k < count; k++) signedWeights[k] /= total;
    for (let iteration = 0; iteration < maxIterations; iteration++) {
      dualQuatConjugate(b, 0, blendConjugate, 0);
      mean.fill(0);
      for (let k = 0; k < count; k++) {
        dualQuatMultiply(blendConjugate, 0, signed, 8 * k, relative, 0);
        dualQuatLog(relative, 0, relative, 0);
        const w = signedWeights[k];
        for (let j = 0; j < 8; j++) mean[j] += w * relative[j];
      }
      const step = Math.sqrt(
        mean[0] * mean[0] + mean[1] * mean[1] + mean[2] * mean[2] + mean[4] * mean[4] + mean[5] * mean[5] + mean[6] * mean[6],
      );
      if (step === 0) break;
      dualQuatExp(mean, 0, relative, 0);
      dualQuatMultiply(b, 0, relative, 0, b, 0);
      dualQuatNormalize(b, 0, b, 0);
      if (step < tolerance) break;
    }
    dualQuatTransformPoint(b, 0, restPositions, 3 * v, outPositions, 3 * v);
    if (restNormals && outNormals) dualQuatRotateVector(b, 0, restNormals, 3 * v, outNormals, 3 * v);
  }
}
