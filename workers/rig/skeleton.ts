import { FormatError } from '../formats/format-error.ts';
import type { TgfSkeleton } from '../formats/types.ts';

/**
 * A skeleton ready for forward kinematics. Bones keep their file order (rotations, handles and weights are
 * indexed by it); `order` lists them so that every parent comes before its children.
 */
export interface Skeleton {
  /** #J × 3 rest joint positions */
  joints: Float64Array;
  /** #B × 2 start joint, end joint (0-based) */
  bones: Uint32Array;
  /** #B parent bone of each bone, or -1 for a root */
  parents: Int32Array;
  /** #B bone indices, parents before children */
  order: Uint32Array;
}

/**
 * Builds the bone hierarchy of a TGF skeleton: the parent of bone b is the bone whose END joint is b's START
 * joint (libigl `directed_edge_parents`). Several roots are allowed and bones may be in any order.
 * @param tgf   joints #J × 3, bones #B × 2 (0-based joint indices), as read from the file
 * @param file  file name for error messages
 * @returns the skeleton; joints and bones are copies of the input
 * @throws FormatError (where = `bone k`, 0-based) when a bone names a missing joint, when a joint ends two bones
 *   (its parent would be ambiguous), or when bones form a cycle (no root above them)
 */
export function buildSkeleton(tgf: TgfSkeleton, file: string): Skeleton {
  const jointCount = Math.floor(tgf.joints.length / 3);
  const boneCount = Math.floor(tgf.bones.length / 2);
  const joints = Float64Array.from(tgf.joints.subarray(0, jointCount * 3));
  const bones = Uint32Array.from(tgf.bones.subarray(0, boneCount * 2));

  const endingBone = new Int32Array(jointCount).fill(-1);
  for (let b = 0; b < boneCount; b++) {
    for (let k = 0; k < 2; k++) {
      if (bones[2 * b + k] >= jointCount) {
        throw new FormatError(file, `bone ${b}`, `names joint ${bones[2 * b + k] + 1}, but the skeleton has only ${jointCount} joints`);
      }
    }
    const end = bones[2 * b + 1];
    if (endingBone[end] >= 0) {
      throw new FormatError(
        file,
        `bone ${b}`,
        `joint ${end + 1} is the end of both bone ${endingBone[end]} and bone ${b}, so its parent is ambiguous`,
      );
    }
    endingBone[end] = b;
  }

  const parents = new Int32Array(boneCount);
  const firstChild = new Int32Array(boneCount).fill(-1);
  const nextSibling = new Int32Array(boneCount).fill(-1);
  for (let b = boneCount - 1; b >= 0; b--) {
    const p = endingBone[bones[2 * b]];
    parents[b] = p;
    if (p >= 0) {
      nextSibling[b] = firstChild[p];
      firstChild[p] = b;
    }
  }

  // Breadth-first from the roots; a bone never reached hangs below a cycle.
  const order = new Uint32Array(boneCount);
  let count = 0;
  for (let b = 0; b < boneCount; b++) if (parents[b] < 0) order[count++] = b;
  for (let head = 0; head < count; head++) {
    for (let c = firstChild[order[head]]; c >= 0; c = nextSibling[c]) order[count++] = c;
  }
  if (count < boneCount) {
    const reached = new Uint8Array(boneCount);
    for (let i = 0; i < count; i++) reached[order[i]] = 1;
    let b = reached.indexOf(0);
    // Walking up the parents of an unreached bone must end on the cycle itself; report a bone on it.
    const seen = new Uint8Array(boneCount);
    while (!seen[b]) {
      seen[b] = 1;
      b = parents[b];
    }
    throw new FormatError(file, `bone ${b}`, 'bones form a cycle (following parents never reaches a root)');
  }
  return { joints, bones, parents, order };
}
