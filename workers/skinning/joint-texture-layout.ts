import type { Influences } from './influences.ts';

/**
 * The data layout shared by the CPU reference and the GPU skinning shaders (shaders/lbs.glsl). Both textures
 * are RGBA32F, JOINT_TEXTURE_WIDTH texels wide, and addressed by a linear texel index i:
 *
 *     x = i % JOINT_TEXTURE_WIDTH,   y = floor(i / JOINT_TEXTURE_WIDTH)
 *
 * Joint texture — bone b's 3×4 rest → posed affine [R | t] occupies texels 3b, 3b + 1, 3b + 2; texel 3b + r
 * holds row r: (R[r][0], R[r][1], R[r][2], t[r]). Height = ceil(3B / WIDTH), so 1024 bones need 3 rows and the
 * 2048-row minimum of WebGL2 allows about 700 000 bones.
 *
 * Influence texture — vertex v owns `texelsPerVertex = ceil(stride / 2)` texels starting at linear index
 * v · texelsPerVertex; texel k of the vertex holds (bone, weight) of influences 2k and 2k + 1:
 * (bone_2k, weight_2k, bone_2k+1, weight_2k+1). Bone indices are stored as floats (exact below 2^24); slots past
 * `stride` hold bone 0, weight 0.
 *
 * Dual quaternion texture (shaders/dqs.glsl) — bone b occupies DUAL_QUATERNION_TEXELS_PER_BONE = 5 texels from
 * linear index 5b:
 *     5b       real part  (x, y, z, w) of the unit dual quaternion of the rigid part, rest → posed
 *     5b + 1   dual part  (x, y, z, w)
 *     5b + 2…4 rows r = 0, 1, 2 of the 3×4 first-phase scale/shear [S | c − S c] of a non-rigid joint (Kavan 2008
 *              Sec. 4.2, workers/skinning/split-non-rigid-transform.ts); identity rows (1 0 0 0, 0 1 0 0, 0 0 1 0)
 *              for rigid bones
 * The dual quaternions' signs are written as given: per-bone antipodality (Sec. 4.1) aligns them before packing,
 * per-vertex antipodality (Algorithm 2) leaves them to the shader.
 *
 * Because the texture rows are consecutive in memory, texel i starts at float 4i of the pixel buffer.
 */
export const JOINT_TEXTURE_WIDTH = 1024;
/** log2 of JOINT_TEXTURE_WIDTH: shaders split a linear texel index with a mask and a shift, not integer division. */
export const JOINT_TEXTURE_WIDTH_LOG2 = 10;

/** Texture size for B bones: width JOINT_TEXTURE_WIDTH, height ≥ 1 rows. Buffer length = width · height · 4 floats. */
export function jointTextureSize(boneCount: number): { width: number; height: number } {
  return { width: JOINT_TEXTURE_WIDTH, height: Math.max(1, Math.ceil((3 * boneCount) / JOINT_TEXTURE_WIDTH)) };
}

/**
 * Writes the joint texture's pixels.
 * @param transforms  #B × 12 row-major 3×4 affine transforms (rest → posed)
 * @param boneCount   B
 * @param out         RGBA32F pixels, at least width · height · 4 floats of `jointTextureSize(B)`; texels past 3B are left as they are
 */
export function packJointTransforms(transforms: Float64Array, boneCount: number, out: Float32Array): void {
  // Row r of bone b is floats 12b + 4r … +3 in both arrays, so the layout is a straight float64 → float32 copy.
  out.set(transforms.subarray(0, 12 * boneCount));
}

/** Texels per bone in the dual quaternion texture: real part, dual part, three rows of the first-phase scale. */
export const DUAL_QUATERNION_TEXELS_PER_BONE = 5;

/** Dual quaternion texture size for B bones. Buffer length = width · height · 4 floats. */
export function dualQuaternionTextureSize(boneCount: number): { width: number; height: number } {
  return {
    width: JOINT_TEXTURE_WIDTH,
    height: Math.max(1, Math.ceil((DUAL_QUATERNION_TEXELS_PER_BONE * boneCount) / JOINT_TEXTURE_WIDTH)),
  };
}

/**
 * Writes the dual quaternion texture's pixels.
 * @param dualQuaternions  #B × 8 unit dual quaternions (real x y z w, dual x y z w), rest → posed rigid parts
 * @param scales           #B × 12 row-major 3×4 first-phase scale/shear transforms, or null for all rigid
 * @param boneCount        B
 * @param out              RGBA32F pixels, at least width · height · 4 floats of `dualQuaternionTextureSize(B)`
 */
export function packDualQuaternions(
  dualQuaternions: Float64Array,
  scales: Float64Array | null,
  boneCount: number,
  out: Float32Array,
): void {
  for (let b = 0; b < boneCount; b++) {
    const o = 4 * DUAL_QUATERNION_TEXELS_PER_BONE * b;
    for (let k = 0; k < 8; k++) out[o + k] = dualQuaternions[8 * b + k];
    if (scales) {
      for (let k = 0; k < 12; k++) out[o + 8 + k] = scales[12 * b + k];
    } else {
      for (let k = 0; k < 12; k++) out[o + 8 + k] = k === 0 || k === 5 || k === 10 ? 1 : 0;
    }
  }
}

/** Influence texture size for #V vertices with `stride` influences each. Buffer length = width · height · 4 floats. */
export function influenceTextureSize(vertexCount: number, stride: number): { width: number; height: number; texelsPerVertex: number } {
  const texelsPerVertex = Math.max(1, Math.ceil(stride / 2));
  return {
    width: JOINT_TEXTURE_WIDTH,
    height: Math.max(1, Math.ceil((vertexCount * texelsPerVertex) / JOINT_TEXTURE_WIDTH)),
    texelsPerVertex,
  };
}

/**
 * Writes the influence texture's pixels.
 * @param influences  per-vertex bone indices and weights (#V × stride)
 * @param out         RGBA32F pixels, at least width · height · 4 floats of `influenceTextureSize(#V, stride)`
 */
export function packInfluences(influences: Influences, out: Float32Array): void {
  for (let v = 0; v < influences.vertexCount; v++) packInfluenceVertex(influences, v, out);
}

/**
 * Writes one vertex's texels of the influence texture (a partial update after painting).
 * @param influences  per-vertex bone indices and weights (#V × stride)
 * @param vertex      the vertex
 * @param out         RGBA32F pixels of `influenceTextureSize(#V, stride)`; its texels [vertex · texelsPerVertex,
 *                    (vertex + 1) · texelsPerVertex) are written
 */
export function packInfluenceVertex(influences: Influences, vertex: number, out: Float32Array): void {
  const { stride, bones, weights } = influences;
  const slots = 2 * Math.max(1, Math.ceil(stride / 2));
  const src = vertex * stride;
  const dst = 2 * vertex * slots;
  for (let k = 0; k < slots; k++) {
    if (k < stride) {
      out[dst + 2 * k] = bones[src + k];
      out[dst + 2 * k + 1] = weights[src + k];
    } else {
      out[dst + 2 * k] = 0;
      out[dst + 2 * k + 1] = 0;
    }
  }
}
