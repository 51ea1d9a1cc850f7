import type { Influences } from '../skinning/influences.ts';
import type { DenseMatrix } from './types.ts';

/**
 * How WEIGHTS_n values are stored: 32-bit floats, or unsigned byte / short integers read as value / 255 or
 * value / 65535 (glTF 2.0 §3.7.3.3, "normalized" accessors).
 */
export type GltfWeightComponent = 'float' | 'unsigned-byte' | 'unsigned-short';

/**
 * The integer every vertex's stored weights must add up to. Floats are quantized to multiples of 2⁻²⁴: every such
 * number in [0, 1] is exact in float32 (24 significant bits), and so is every partial sum, so the stored weights
 * sum to exactly 1 in any order and any precision.
 */
export function weightQuantizationScale(component: GltfWeightComponent): number {
  return component === 'unsigned-byte' ? 255 : component === 'unsigned-short' ? 65535 : 1 << 24;
}

/** JOINTS_n / WEIGHTS_n data for all sets, vertex-major: vertex v's slot s is at v·slotCount + s. */
export interface GltfSkinWeights {
  slotCount: number;
  /** #V × slotCount joint indices (Uint8Array when every index fits a byte) */
  joints: Uint8Array | Uint16Array;
  /** #V × slotCount weights as stored: floats in [0, 1], or integers of the normalized component type */
  weights: Float32Array | Uint8Array | Uint16Array;
  /** vertices that had no weight at all and were bound fully to bone 0 (glTF needs weights that sum to 1) */
  unweightedVertices: number;
}

/**
 * Quantizes per-vertex influences so that each vertex's stored weights sum to the quantization scale exactly
 * (largest-remainder rounding: round every weight down, then give the missing units to the largest remainders).
 * The influences are taken as given (largest first, as influencesFromWeights sorts them); slots whose weight
 * rounds to 0, and unused slots, hold joint 0 with weight 0.
 * @param influences  #V × stride bones and weights; stride ≤ slotCount
 * @param slotCount   4 per JOINTS_n/WEIGHTS_n set: 4 or 8
 * @param component   stored component type of WEIGHTS_n
 * @param boneCount   number of joints in the skin (chooses the JOINTS_n component type)
 */
export function quantizeSkinWeights(
  influences: Influences,
  slotCount: number,
  component: GltfWeightComponent,
  boneCount: number,
): GltfSkinWeights {
  const { vertexCount, stride, bones, weights } = influences;
  if (stride > slotCount) throw new RangeError(`quantizeSkinWeights: ${stride} influences per vertex do not fit ${slotCount} slots`);
  const scale = weightQuantizationScale(component);
  const joints = boneCount <= 256 ? new Uint8Array(vertexCount * slotCount) : new Uint16Array(vertexCount * slotCount);
  const units = new Float64Array(vertexCount * slotCount);
  const remainder = new Float64Array(stride);
  let unweightedVertices = 0;
  for (let v = 0; v < vertexCount; v++) {
    const i = v * stride;
    const o = v * slotCount;
    let sum = 0;
    for (let k = 0; k < stride; k++) sum += weights[i + k];
    if (!(sum > 0)) {
      unweightedVertices++;
      units[o] = scale;
      continue;
    }
    let given = 0;
    for (let k = 0; k < stride; k++) {
      const exact = (weights[i + k] * scale) / sum;
      const whole = Math.floor(exact);
      units[o + k] = whole;
      remainder[k] = exact - whole;
      given += whole;
    }
    // Hand out the missing units to the largest remainders (a handful of slots: repeated scans are cheapest).
    for (; given < scale; given++) {
      let best = 0;
      for (let k = 1; k < stride; k++) if (remainder[k] > remainder[best]) best = k;
      units[o + best]++;
      remainder[best] = -1;
    }
    for (let k = 0; k < stride; k++) if (units[o + k] > 0) joints[o + k] = bones[i + k];
  }
  let stored: Float32Array | Uint8Array | Uint16Array;
  if (component === 'float') {
    stored = new Float32Array(units.length);
    for (let i = 0; i < units.length; i++) stored[i] = units[i] / scale;
  } else {
    stored = component === 'unsigned-byte' ? Uint8Array.from(units) : Uint16Array.from(units);
  }
  return { slotCount, joints, weights: stored, unweightedVertices };
}

/** Vertices with more than K non-zero weights, and the largest weight beyond the K largest. */
export function droppedWeight(weights: DenseMatrix, keep: number): { vertices: number; largest: number } {
  const { rows, cols, data } = weights;
  let vertices = 0;
  let largest = 0;
  const row = new Float64Array(cols);
  for (let v = 0; v < rows; v++) {
    let nonZero = 0;
    for (let b = 0; b < cols; b++) {
      row[b] = Math.abs(data[v * cols + b]);
      if (row[b] > 0) nonZero++;
    }
    if (nonZero <= keep) continue;
    vertices++;
    row.sort();
    largest = Math.max(largest, row[cols - 1 - keep]);
  }
  return { vertices, largest };
}
