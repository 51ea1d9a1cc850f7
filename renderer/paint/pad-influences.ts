import type { Influences } from '../../workers/skinning/influences.ts';

/**
 * The same influences with at least `stride` slots per vertex (new slots: bone 0, weight 0), so painting can add
 * bones to a vertex without changing the influence texture's layout.
 * @param influences #V × stride influences
 * @param stride     the slots wanted
 * @returns influences with max(stride, influences.stride) slots (the input itself when it already has them)
 */
export function padInfluences(influences: Influences, stride: number): Influences {
  if (influences.stride >= stride) return influences;
  const { vertexCount, stride: old } = influences;
  const bones = new Uint32Array(vertexCount * stride);
  const weights = new Float32Array(vertexCount * stride);
  for (let v = 0; v < vertexCount; v++) {
    bones.set(influences.bones.subarray(v * old, v * old + old), v * stride);
    weights.set(influences.weights.subarray(v * old, v * old + old), v * stride);
  }
  return { vertexCount, stride, bones, weights };
}
