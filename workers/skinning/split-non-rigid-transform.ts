/**
 * Kavan 2008 Sec. 4.2 (non-rigid joints): a bone's affine rest → posed transform C(x) = M x + t is split into
 *   C = P ∘ K,
 *   K(x) = c + S (x − c)   the scale/shear of the first phase, about the bone's rest joint c (blended linearly),
 *   P(y) = R y + t'        the rigid part of the second phase (blended by DLB),
 * where M = R S is the polar decomposition (R rotation, S symmetric) and t' = C(c) − R c, so that
 * P(K(x)) = R c + R S (x − c) + M c + t − R c = M x + t exactly. The split holds for any centre c; taking the
 * rest joint makes the first phase a local inflation of the rest mesh around the joint (Kavan's Fig. 12), which
 * leaves the joint in place and keeps DLB's rotation centre where the rigid rig has it.
 * A scale that an artist means to be local to one bone (Kavan's S_i, not inherited by children) must be applied
 * to that bone's transform only; the split does not separate scale a child inherited from its parent.
 */
import { dualQuatFromRigidMatrix } from '../math/dual-quaternion.ts';
import { polarDecomposition } from '../math/polar-decomposition.ts';
import type { Skeleton } from '../rig/skeleton.ts';

type Vec = Float64Array | Float32Array | number[];

const linear = new Float64Array(9);
const rotation = new Float64Array(9);
const stretch = new Float64Array(9);
const rigid = new Float64Array(12);

/**
 * Splits one affine transform.
 * @param affine12,ai  row-major 3×4 [M | t], rest → posed, M invertible or not
 * @param center,ci    rest position c of the bone's joint (3 numbers)
 * @param outDq,di     unit dual quaternion of the rigid part P (8 numbers, layout of workers/math/dual-quaternion.ts)
 * @param outScale12,si row-major 3×4 [S | c − S c] of the first phase K
 */
export function splitNonRigidTransform(
  affine12: Vec,
  ai: number,
  center: Vec,
  ci: number,
  outDq: Vec,
  di: number,
  outScale12: Vec,
  si: number,
): void {
  for (let r = 0; r < 3; r++) {
    linear[3 * r] = affine12[ai + 4 * r];
    linear[3 * r + 1] = affine12[ai + 4 * r + 1];
    linear[3 * r + 2] = affine12[ai + 4 * r + 2];
  }
  polarDecomposition(linear, 0, rotation, 0, stretch, 0);
  const cx = center[ci],
    cy = center[ci + 1],
    cz = center[ci + 2];
  for (let r = 0; r < 3; r++) {
    const m0 = affine12[ai + 4 * r],
      m1 = affine12[ai + 4 * r + 1],
      m2 = affine12[ai + 4 * r + 2];
    const r0 = rotation[3 * r],
      r1 = rotation[3 * r + 1],
      r2 = rotation[3 * r + 2];
    const s0 = stretch[3 * r],
      s1 = stretch[3 * r + 1],
      s2 = stretch[3 * r + 2];
    const c = r === 0 ? cx : r === 1 ? cy : cz;
    rigid[4 * r] = r0;
    rigid[4 * r + 1] = r1;
    rigid[4 * r + 2] = r2;
    rigid[4 * r + 3] = m0 * cx + m1 * cy + m2 * cz + affine12[ai + 4 * r + 3] - (r0 * cx + r1 * cy + r2 * cz);
    outScale12[si + 4 * r] = s0;
    outScale12[si + 4 * r + 1] = s1;
    outScale12[si + 4 * r + 2] = s2;
    outScale12[si + 4 * r + 3] = c - (s0 * cx + s1 * cy + s2 * cz);
  }
  dualQuatFromRigidMatrix(rigid, 0, outDq, di);
}

/**
 * Splits every bone's transform about its rest START joint (the joint it rotates about in forward kinematics).
 * @param skeleton     rest skeleton (#B bones)
 * @param transforms   #B × 12 row-major 3×4 affine transforms, rest → posed
 * @param outDq        #B × 8 dual quaternions of the rigid parts (second phase of dualQuaternionSkinning)
 * @param outScale     #B × 12 scale/shear transforms (option `scaleTransforms` of dualQuaternionSkinning)
 */
export function splitNonRigidTransforms(skeleton: Skeleton, transforms: Float64Array, outDq: Float64Array, outScale: Float64Array): void {
  const boneCount = skeleton.parents.length;
  for (let b = 0; b < boneCount; b++) {
    splitNonRigidTransform(transforms, 12 * b, skeleton.joints, 3 * skeleton.bones[2 * b], outDq, 8 * b, outScale, 12 * b);
  }
}
