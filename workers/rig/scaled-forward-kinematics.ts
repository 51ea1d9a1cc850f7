import type { Skeleton } from './skeleton.ts';
import { forwardKinematics } from './forward-kinematics.ts';

/**
 * Forward kinematics with a per-bone local scale (non-rigid joints, Kavan 2008 Sec. 4.2): bone b's transform is
 * its rigid FK transform composed with a scale about its rest start joint r_b,
 *
 *     C_b(x) = Q_b (r_b + S_b (x − r_b)) + p_b − Q_b r_b,      S_b = diag(sx, sy, sz) in the rest pose's axes,
 *
 * where Q_b = Q_parent · R_b is the absolute rotation and p_b the posed start joint. Children do NOT inherit the
 * scale (Maya's default "segment scale compensate"): a child's start joint follows its parent's scaled bone,
 * p_c = C_parent(r_c), so lengthening a bone pushes its children along without stretching them, and fattening a
 * forearm leaves the hand as it was. This keeps each bone's non-rigid part exactly its own S_b, which is what the
 * two-phase DQS split (split-non-rigid-transform.ts) recovers: polar(Q_b S_b) = (Q_b, S_b).
 * With every scale 1 the result equals `forwardKinematics` (libigl's convention) exactly.
 * @param skeleton           rest skeleton (bones in any order; `order` gives parents first)
 * @param relativeRotations  #B × 9 row-major relative rotations
 * @param boneScales         #B × 3 positive scale factors along x, y, z per bone, or null for all 1
 * @param outTransforms      #B × 12 row-major 3×4 affine [Q_b S_b | p_b − Q_b S_b r_b], rest → posed
 * @param translations       #B × 3 start-joint translations (PoseSequence), or null: a child's start joint is then
 *                           p_c = C_parent(r_c) + Q_parent · t_c, unscaled like the child itself
 */
export function scaledForwardKinematics(
  skeleton: Skeleton,
  relativeRotations: Float64Array,
  boneScales: Float64Array | null,
  outTransforms: Float64Array,
  translations: Float64Array | null = null,
): void {
  forwardKinematics(skeleton, relativeRotations, outTransforms, translations);
  if (!boneScales || isAllOnes(boneScales)) return;
  const { joints, bones, parents, order } = skeleton;
  const T = outTransforms;
  for (let i = 0; i < order.length; i++) {
    const b = order[i];
    const p = parents[b];
    const s = 3 * bones[2 * b];
    const rx = joints[s],
      ry = joints[s + 1],
      rz = joints[s + 2];
    const o = 12 * b;
    // The posed start joint: the rest joint moved by the parent's (already scaled) transform, or by this
    // bone's own rigid transform at a root (where it is a fixed point of the rotation about it).
    const src = p < 0 ? o : 12 * p;
    let px = T[src] * rx + T[src + 1] * ry + T[src + 2] * rz + T[src + 3];
    let py = T[src + 4] * rx + T[src + 5] * ry + T[src + 6] * rz + T[src + 7];
    let pz = T[src + 8] * rx + T[src + 9] * ry + T[src + 10] * rz + T[src + 11];
    if (translations && p >= 0) {
      // Q_parent · t = (Q_parent S_parent) · S_parent⁻¹ t; a root's rigid transform already holds its own.
      const tx = translations[3 * b] / boneScales[3 * p],
        ty = translations[3 * b + 1] / boneScales[3 * p + 1],
        tz = translations[3 * b + 2] / boneScales[3 * p + 2];
      px += T[src] * tx + T[src + 1] * ty + T[src + 2] * tz;
      py += T[src + 4] * tx + T[src + 5] * ty + T[src + 6] * tz;
      pz += T[src + 8] * tx + T[src + 9] * ty + T[src + 10] * tz;
    }
    const sx = boneScales[3 * b],
      sy = boneScales[3 * b + 1],
      sz = boneScales[3 * b + 2];
    for (let row = 0; row < 3; row++) {
      // Rows of the rigid rotation are still in T (this bone has not been rewritten yet); the rotation is
      // that of forwardKinematics, since rotations compose without the scales.
      const m0 = T[o + 4 * row] * sx,
        m1 = T[o + 4 * row + 1] * sy,
        m2 = T[o + 4 * row + 2] * sz;
      T[o + 4 * row] = m0;
      T[o + 4 * row + 1] = m1;
      T[o + 4 * row + 2] = m2;
      T[o + 4 * row + 3] = (row === 0 ? px : row === 1 ? py : pz) - (m0 * rx + m1 * ry + m2 * rz);
    }
  }
}

function isAllOnes(scales: Float64Array): boolean {
  for (let i = 0; i < scales.length; i++) if (scales[i] !== 1) return false;
  return true;
}
