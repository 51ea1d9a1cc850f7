/**
 * Every field of a scene document that is indexed by bone, in one list: what an edit of the skeleton (a bone
 * inserted, deleted, re-parented or reordered) has to update, and what assertConsistent checks against the skeleton.
 * A field the document lacks (no clips, no glTF source) holds nothing. Not yet here: the paint locks, which the paint
 * controller still keeps by itself.
 */
import type { PoseSequence } from '../rig/pose-sequence.ts';
import type { SceneDocument } from './scene-document.ts';

/** One instance of a bone-indexed field: where it is in the document and how many bones it holds. */
export interface BoneFieldInstance {
  /** its place, as messages name it: `weights`, `clips[2].poses.curves.inverseBind` */
  readonly where: string;
  readonly bones: number;
}

export interface BoneField {
  /** the field, as the list names it: `weights`, `clips[].poses` */
  readonly name: string;
  /** the field's instances in `doc` (one for most; one per clip or example for theirs; none when absent) */
  instances(doc: SceneDocument): BoneFieldInstance[];
}

/** A pose sequence's own bone count and, when it keeps its file's keyframe curves, the curves' per-bone arrays. */
function poseInstances(poses: PoseSequence | null | undefined, where: string): BoneFieldInstance[] {
  if (!poses) return [];
  const found: BoneFieldInstance[] = [{ where, bones: poses.boneCount }];
  if (poses.kind === 'matrices' && poses.curves) {
    const { jointNode, inverseBind, parentBone, heads } = poses.curves;
    found.push(
      { where: `${where}.curves.jointNode`, bones: jointNode.length },
      { where: `${where}.curves.inverseBind`, bones: inverseBind.length / 16 },
      { where: `${where}.curves.parentBone`, bones: parentBone.length },
      { where: `${where}.curves.heads`, bones: heads.length / 3 },
    );
  }
  return found;
}

export const BONE_FIELDS: readonly BoneField[] = [
  { name: 'weights', instances: (doc) => [{ where: 'weights', bones: doc.weights.cols }] },
  { name: 'boneScales', instances: (doc) => (doc.boneScales ? [{ where: 'boneScales', bones: doc.boneScales.length / 3 }] : []) },
  { name: 'boneNames', instances: (doc) => (doc.boneNames ? [{ where: 'boneNames', bones: doc.boneNames.length }] : []) },
  { name: 'poses', instances: (doc) => poseInstances(doc.poses, 'poses') },
  { name: 'clips[].poses', instances: (doc) => (doc.clips ?? []).flatMap((clip, c) => poseInstances(clip.poses, `clips[${c}].poses`)) },
  {
    name: 'examples[].pose',
    instances: (doc) => (doc.examples ?? []).map((example, e) => ({ where: `examples[${e}].pose`, bones: example.pose.length / 9 })),
  },
  {
    name: 'gltfSource.jointNodes',
    instances: (doc) => (doc.gltfSource ? [{ where: 'gltfSource.jointNodes', bones: doc.gltfSource.jointNodes.length }] : []),
  },
];

/**
 * The first bone-indexed field of `doc` that does not hold one entry per bone of its skeleton, or null.
 * @returns its place and bone count
 */
export function boneFieldMismatch(doc: SceneDocument): BoneFieldInstance | null {
  const bones = doc.skeleton.parents.length;
  for (const field of BONE_FIELDS) for (const instance of field.instances(doc)) if (instance.bones !== bones) return instance;
  return null;
}
