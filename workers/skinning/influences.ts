import type { DenseMatrix } from '../formats/types.ts';

/**
 * Sparse per-vertex skinning influences, the form both the CPU and the GPU skinning read.
 * Unused slots hold bone 0 with weight 0.
 */
export interface Influences {
  vertexCount: number;
  /** influences per vertex (≥ 1) */
  stride: number;
  /** #V × stride bone indices */
  bones: Uint32Array;
  /** #V × stride weights, sorted largest first, summing to 1 per vertex (or all 0) */
  weights: Float32Array;
}

/**
 * Keeps the K largest non-zero weights of every vertex and renormalizes them to sum 1. Rows whose kept weights
 * sum to 0 or less (all zero, or cancelling negative weights) stay all zero, which leaves those vertices at rest.
 * NaN weights count as zero. Weights are rounded to float32 after renormalizing, so CPU and GPU skin with
 * identical numbers.
 * @param weights        #V × #B dense weights, row-major
 * @param maxInfluences  K, the most influences kept per vertex; 0 keeps all non-zero weights
 * @returns influences with stride = the largest kept count over all vertices (at least 1)
 */
export function influencesFromWeights(weights: DenseMatrix, maxInfluences: number): Influences {
  const { rows: vertexCount, cols: boneCount, data } = weights;
  const limit = maxInfluences > 0 ? Math.min(maxInfluences, boneCount) : boneCount;

  let stride = 1;
  for (let v = 0; v < vertexCount; v++) {
    const row = v * boneCount;
    let nonZero = 0;
    for (let b = 0; b < boneCount; b++) {
      const w = data[row + b];
      if (w > 0 || w < 0) nonZero++;
    }
    if (nonZero > stride) stride = Math.min(nonZero, limit);
    if (stride === limit) break;
  }

  const bones = new Uint32Array(vertexCount * stride);
  const kept = new Float32Array(vertexCount * stride);
  const value = new Float64Array(stride);
  const bone = new Uint32Array(stride);
  for (let v = 0; v < vertexCount; v++) {
    const row = v * boneCount;
    // Insertion into a short list sorted largest first; ties keep the lower bone index first.
    let count = 0;
    for (let b = 0; b < boneCount; b++) {
      const w = data[row + b];
      if (!(w > 0 || w < 0)) continue;
      if (count === stride && w <= value[stride - 1]) continue;
      let i = count < stride ? count++ : stride - 1;
      while (i > 0 && value[i - 1] < w) {
        value[i] = value[i - 1];
        bone[i] = bone[i - 1];
        i--;
      }
      value[i] = w;
      bone[i] = b;
    }
    let sum = 0;
    for (let i = 0; i < count; i++) sum += value[i];
    if (!(sum > 0)) continue;
    const o = v * stride;
    for (let i = 0; i < count; i++) {
      bones[o + i] = bone[i];
      kept[o + i] = value[i] / sum;
    }
  }
  return { vertexCount, stride, bones, weights: kept };
}
