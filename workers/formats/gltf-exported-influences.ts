/**
 * The skinning influences a linear-blend engine reads back from an exported glTF: the K strongest weights per
 * vertex, renormalized, then quantized to the stored component type exactly as exportGltf writes JOINTS_n/WEIGHTS_n
 * (quantizeSkinWeights), and decoded the way glTF 2.0 §3.7.3.3 defines normalized accessors (value / 255 or
 * value / 65535). Feeding these to LBS previews the exported file before it is written.
 */
import { influencesFromWeights, type Influences } from '../skinning/influences.ts';
import { quantizeSkinWeights, weightQuantizationScale, type GltfWeightComponent } from './gltf-skin-weights.ts';
import type { DenseMatrix } from './types.ts';

/**
 * @param weights    #V × #B weights, row-major
 * @param keep       most influences per vertex in the file, 1 … 8 (4 slots up to 4, else 8)
 * @param component  stored type of WEIGHTS_n
 * @returns influences with stride 4 or 8 (the file's slot count), weights as the file decodes them (float32)
 */
export function exportedInfluences(weights: DenseMatrix, keep: number, component: GltfWeightComponent): Influences {
  const kept = influencesFromWeights(weights, keep);
  const slotCount = kept.stride <= 4 ? 4 : 8;
  const stored = quantizeSkinWeights(kept, slotCount, component, weights.cols);
  const scale = component === 'float' ? 1 : weightQuantizationScale(component);
  const decoded = new Float32Array(stored.weights.length);
  for (let i = 0; i < decoded.length; i++) decoded[i] = stored.weights[i] / scale;
  return { vertexCount: kept.vertexCount, stride: slotCount, bones: Uint32Array.from(stored.joints), weights: decoded };
}

/**
 * The most a vertex can move when its weights change by the quantization: Σ_k |Δw_k| ≤ slots / scale (each stored
 * weight is off by less than one unit), and since Σ_k Δw_k = 0 the position moves by Σ_k Δw_k (A_k x − c) for any
 * c, so at most (slots / scale) · max_k ‖A_k x − c‖. With c the full-precision position this gives the bound below.
 * @param component  stored type of WEIGHTS_n
 * @param slots      4 or 8
 * @param spread     max over the vertex's influencing bones of ‖A_k x − c‖, in mesh units
 */
export function quantizationBound(component: GltfWeightComponent, slots: number, spread: number): number {
  return (slots / weightQuantizationScale(component)) * spread;
}
