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

export interface InfluenceOptions {
  /** largest weights kept per vertex, renormalized; 0 = all */
  maxInfluences?: number;
}

/** What the viewport and the CLI's skin command keep per vertex unless told otherwise (what most engines skin with). */
export const INFLUENCE_DEFAULTS: Required<InfluenceOptions> = { maxInfluences: 4 };

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

  const influences: Influences = {
    vertexCount,
    stride,
    bones: new Uint32Array(vertexCount * stride),
    weights: new Float32Array(vertexCount * stride),
  };
  for (let v = 0; v < vertexCount; v++) writeInfluenceRow(data, boneCount, v, influences);
  return influences;
}

let rowValue = new Float64Array(16);
let rowBone = new Uint32Array(16);

/**
 * Rewrites one vertex's influences from its weight row, as influencesFromWeights does for every row: the `stride`
 * largest non-zero weights, largest first (ties: lower bone first), renormalized, rounded to float32; unused slots
 * and rows summing to 0 or less get bone 0, weight 0. Painting calls it for the rows it changed.
 * @param data       #V × #B dense weights, row-major
 * @param boneCount  #B
 * @param v          the vertex
 * @param influences written in place at row v
 */
export function writeInfluenceRow(data: ArrayLike<number>, boneCount: number, v: number, influences: Influences): void {
  const { stride, bones, weights } = influences;
  if (rowValue.length < stride) {
    rowValue = new Float64Array(stride);
    rowBone = new Uint32Array(stride);
  }
  const value = rowValue;
  const bone = rowBone;
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
  const o = v * stride;
  for (let i = 0; i < stride; i++) {
    const keep = i < count && sum > 0;
    bones[o + i] = keep ? bone[i] : 0;
    weights[o + i] = keep ? value[i] / sum : 0;
  }
}
