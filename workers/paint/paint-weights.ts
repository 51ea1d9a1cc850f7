import type { DenseMatrix } from '../formats/types.ts';

/**
 * The weights being painted: #V × #B row-major Float32Array.
 *
 * Why dense float32 rather than K slots per vertex: a dab reads and writes one bone column on a few thousand
 * vertices and the invariants then touch those rows only, so O(1) access to any (vertex, bone) keeps the brush,
 * the one-ring smoothing and the mirror transfer branch-free; the row-major layout is the one harmonic weights
 * and DMAT files produce. Float32 halves the memory of the float64 DenseMatrix and is exactly the precision the
 * GPU skins with (Influences.weights is Float32Array). Memory is 4·#V·#B bytes: 134 MiB for 1.2M vertices and 28
 * bones. A K-slot layout (6·K bytes per vertex, 29 MiB at K = 4) would be preferable for rigs with hundreds of
 * bones, at the cost of a search per access and of re-slotting whenever a bone enters a vertex.
 */
export interface PaintWeights {
  vertexCount: number;
  boneCount: number;
  /** #V × #B row-major weights */
  data: Float32Array;
}

/**
 * Per-bone settings every paint operation respects.
 * locked: #B flags (1 = locked: the bone's weights never change, normalization works around them).
 * maxInfluences: the most non-zero weights a vertex may keep; 0 = no limit.
 */
export interface PaintSettings {
  locked: Uint8Array;
  maxInfluences: number;
}

export const PAINT_SETTINGS_MAX_INFLUENCES_DEFAULT = 4;

/** Settings with nothing locked and the default influence limit (4). */
export function defaultPaintSettings(boneCount: number): PaintSettings {
  return { locked: new Uint8Array(boneCount), maxInfluences: PAINT_SETTINGS_MAX_INFLUENCES_DEFAULT };
}

/**
 * @param weights #V × #B dense weights, row-major float64
 * @returns a float32 copy to paint on
 */
export function paintWeightsFromDense(weights: DenseMatrix): PaintWeights {
  return { vertexCount: weights.rows, boneCount: weights.cols, data: Float32Array.from(weights.data) };
}

/**
 * @param weights painted weights
 * @returns #V × #B DenseMatrix (float64 copy), for skinning, influencesFromWeights and DMAT export
 */
export function paintWeightsToDense(weights: PaintWeights): DenseMatrix {
  return { rows: weights.vertexCount, cols: weights.boneCount, data: Float64Array.from(weights.data) };
}

/**
 * Runs a whole-mesh operation (normalize, limit, prune, smooth, mirror) on the buffer, kept to the rows `mask` allows:
 * a row it changed outside the mask is put back as it was. A row counts as changed when any of its values differs
 * (Object.is, so 0 and -0 differ). The Paint panel's commands and the scene edits of the command line both run their
 * operations through here, so they change the same rows the same way.
 * @param mask  #V flags, 1 = the operation may change the vertex's row; null: every vertex
 * @returns the vertices whose rows it changed (within the mask), in order
 */
export function runOnRows(weights: PaintWeights, mask: Uint8Array | null, operation: () => void): Uint32Array {
  const { data, boneCount: nb, vertexCount } = weights;
  const before = data.slice();
  operation();
  const changed: number[] = [];
  for (let v = 0; v < vertexCount; v++) {
    for (let b = 0, o = v * nb; b < nb; b++) {
      if (!Object.is(data[o + b], before[o + b])) {
        if (mask && !mask[v]) data.set(before.subarray(o, o + nb), o);
        else changed.push(v);
        break;
      }
    }
  }
  return Uint32Array.from(changed);
}
