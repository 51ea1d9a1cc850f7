/**
 * A pose sequence for a skeleton of B bones. Rotations are relative to the parent bone (libigl convention),
 * indexed by bone in file order.
 * - `matrices`: L frames of 3×3 rotation matrices; `rotations` holds 9·B·L numbers, frame-major then bone,
 *   each matrix row-major (rotations[(f·B + b)·9 + r·3 + c] = R_fb[r][c]).
 * - `quaternions`: only the final pose, one unit quaternion per bone, x y z w; in-between poses are SLERP from identity.
 */
export type PoseSequence =
  | { kind: 'matrices'; boneCount: number; frameCount: number; rotations: Float64Array }
  | { kind: 'quaternions'; boneCount: number; final: Float64Array };
