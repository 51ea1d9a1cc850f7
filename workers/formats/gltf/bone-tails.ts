/**
 * Bone ends in the joint nodes' extras (BONE_TAIL_EXTRA): glTF keeps joints, not bone ends, so where a reader could
 * not find a bone's end from its children the joint node says it.
 */
import type { Node as GltfNode } from '@gltf-transform/core';
import { BONE_TAIL_EXTRA, bonesWithoutChildTail } from './fresh-parts.ts';
import { invertAffine, transformPoint } from '../gltf-numbers.ts';
import type { Skeleton } from '../../rig/skeleton.ts';

/**
 * The bone ends of both exports (BONE_TAIL_EXTRA): a joint node that has one gets the bone's present end in its bind
 * frame (B_b⁻¹ · end), or loses it where the children now give the end; a new joint node (every joint of a fresh
 * document, and those the skeleton step adds) gets one where they do not. A file's joint without one keeps its
 * extras as they are (a no-op export changes nothing; its end is the importer's to find, as when it was read).
 * @param newBones bones whose joint nodes this export made
 */
export function writeBoneTails(
  skeleton: Skeleton,
  jointNodes: GltfNode[],
  bindFrames: Float64Array[],
  newBones: readonly number[],
  diagonal: number,
): void {
  const wanted = new Set(bonesWithoutChildTail(skeleton));
  // A set: a fresh document's new bones are all of them.
  const made = new Set(newBones);
  const inverse = new Float64Array(16);
  jointNodes.forEach((node, b) => {
    const extras = { ...node.getExtras() };
    const has = BONE_TAIL_EXTRA in extras;
    if (!wanted.has(b)) {
      if (!has) return;
      delete extras[BONE_TAIL_EXTRA];
      node.setExtras(extras);
      return;
    }
    if (!has && !made.has(b)) return;
    const e = 3 * skeleton.bones[2 * b + 1];
    const end = skeleton.joints.subarray(e, e + 3);
    const old = extras[BONE_TAIL_EXTRA];
    if (Array.isArray(old) && old.length === 3) {
      // Still where the file says: the file's numbers stay, bit for bit.
      const at = transformPoint(bindFrames[b], old as number[]);
      if (Math.hypot(at[0] - end[0], at[1] - end[1], at[2] - end[2]) <= 1e-9 * diagonal) return;
    }
    if (!invertAffine(bindFrames[b], 0, inverse, 0)) return;
    extras[BONE_TAIL_EXTRA] = transformPoint(inverse, end);
    node.setExtras(extras);
  });
}
