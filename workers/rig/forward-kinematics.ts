import type { Skeleton } from './skeleton.ts';
import { samplePose, samplePoseTranslations, type PoseSequence } from './pose-sequence.ts';

/**
 * Forward kinematics in libigl's convention (course handout Sec. 3): bone b rotates by R_b about its rest START
 * joint r_b, relative to its parent. Absolute rotation Q_b = Q_parent · R_b and translation
 * T_b = T_parent + Q_parent · r_b − Q_b · r_b (roots: Q_parent = I, T_parent = 0), so x ↦ Q_b x + T_b maps the
 * rest pose to the posed one. With start-joint translations t_b (PoseSequence) the start joint also moves by
 * Q_parent · t_b: T_b = T_parent + Q_parent · (r_b + t_b) − Q_b · r_b (a root's by t_b). No scale (see
 * scaled-forward-kinematics.ts).
 * @param skeleton           rest skeleton (bones in any order; `order` gives parents first)
 * @param relativeRotations  #B × 9, row-major 3×3 rotation of each bone relative to its parent
 * @param outTransforms      #B × 12, row-major 3×4 affine [Q_b | T_b] per bone, rest → posed (same length units as the joints)
 * @param translations       #B × 3 start-joint translations in the parent's rest axes, or null for none
 */
export function forwardKinematics(
  skeleton: Skeleton,
  relativeRotations: Float64Array,
  outTransforms: Float64Array,
  translations: Float64Array | null = null,
): void {
  const { joints, bones, parents, order } = skeleton;
  const R = relativeRotations;
  const T = outTransforms;
  const n = order.length;
  for (let i = 0; i < n; i++) {
    const b = order[i];
    const p = parents[b];
    const s = 3 * bones[2 * b];
    const rx = joints[s],
      ry = joints[s + 1],
      rz = joints[s + 2];
    // The start joint's rest position plus its translation, where the parent's motion is applied.
    const mx = translations ? rx + translations[3 * b] : rx;
    const my = translations ? ry + translations[3 * b + 1] : ry;
    const mz = translations ? rz + translations[3 * b + 2] : rz;
    const ri = 9 * b;
    const o = 12 * b;
    if (p < 0) {
      for (let row = 0; row < 3; row++) {
        const q0 = R[ri + 3 * row],
          q1 = R[ri + 3 * row + 1],
          q2 = R[ri + 3 * row + 2];
        const m = row === 0 ? mx : row === 1 ? my : mz;
        T[o + 4 * row] = q0;
        T[o + 4 * row + 1] = q1;
        T[o + 4 * row + 2] = q2;
        T[o + 4 * row + 3] = m - (q0 * rx + q1 * ry + q2 * rz);
      }
      continue;
    }
    const po = 12 * p;
    for (let row = 0; row < 3; row++) {
      const p0 = T[po + 4 * row],
        p1 = T[po + 4 * row + 1],
        p2 = T[po + 4 * row + 2],
        pt = T[po + 4 * row + 3];
      const q0 = p0 * R[ri] + p1 * R[ri + 3] + p2 * R[ri + 6];
      const q1 = p0 * R[ri + 1] + p1 * R[ri + 4] + p2 * R[ri + 7];
      const q2 = p0 * R[ri + 2] + p1 * R[ri + 5] + p2 * R[ri + 8];
      T[o + 4 * row] = q0;
      T[o + 4 * row + 1] = q1;
      T[o + 4 * row + 2] = q2;
      T[o + 4 * row + 3] = pt + (p0 * mx + p1 * my + p2 * mz) - (q0 * rx + q1 * ry + q2 * rz);
    }
  }
}

/**
 * Bone transforms at a time of a pose sequence: samplePose, its translations when it has them, forwardKinematics.
 * @param rotations     #B × 9 scratch (left holding the sampled rotations)
 * @param translations  #B × 3 scratch (left holding the sampled translations, zero without)
 * @param outTransforms #B × 12 rest → posed
 */
export function poseForwardKinematics(
  skeleton: Skeleton,
  seq: PoseSequence,
  time: number,
  rotations: Float64Array,
  translations: Float64Array,
  outTransforms: Float64Array,
): void {
  samplePose(seq, time, rotations);
  const moved = samplePoseTranslations(seq, time, translations);
  forwardKinematics(skeleton, rotations, outTransforms, moved ? translations : null);
}

/**
 * Posed joint positions: a joint follows the transform of a bone that starts at it, else of the bone that ends at
 * it, else it stays at rest. Without start-joint translations these agree wherever a child starts at its parent's
 * end (a bone rotates about its start joint); with them, a joint goes where its own bone's start moved, so a bone
 * whose child slid away is drawn reaching to it.
 * @param skeleton    rest skeleton
 * @param transforms  #B × 12 rest → posed affine transforms from `forwardKinematics`
 * @param outJoints   #J × 3 posed joint positions
 */
export function posedJointPositions(skeleton: Skeleton, transforms: Float64Array, outJoints: Float64Array): void {
  const { joints, bones } = skeleton;
  const boneCount = bones.length / 2;
  outJoints.set(joints);
  // End joints first, start joints second, so that the start-of-bone rule wins where both apply.
  for (let k = 1; k >= 0; k--) {
    for (let b = 0; b < boneCount; b++) {
      const j = 3 * bones[2 * b + k];
      const x = joints[j],
        y = joints[j + 1],
        z = joints[j + 2];
      const o = 12 * b;
      outJoints[j] = transforms[o] * x + transforms[o + 1] * y + transforms[o + 2] * z + transforms[o + 3];
      outJoints[j + 1] = transforms[o + 4] * x + transforms[o + 5] * y + transforms[o + 6] * z + transforms[o + 7];
      outJoints[j + 2] = transforms[o + 8] * x + transforms[o + 9] * y + transforms[o + 10] * z + transforms[o + 11];
    }
  }
}
