/**
 * The skeleton step: the document's joint nodes put where the scene's bones are. Parents first: a bone without a node
 * gets a new one under its parent bone's node; a changed parent re-parents the node keeping its world transform; a
 * bone renamed in the scene renames its node; a joint whose head moved gets a local translation that puts it there
 * (its rotation and scale stay). Nothing else is invented: no connector joints.
 */
import type { Node as GltfNode } from '@gltf-transform/core';
import { identity, invertAffine, transformPoint } from '../gltf-numbers.ts';
import type { ExportScene, ExportState } from './export-state.ts';
import { detach, MOVED, setLocalFromWorld, worldMatrix } from './node-matrices.ts';

/** Places the joint nodes (see the module comment); fills `state.newBones` and says what moved in the warnings. */
export function placeJoints(state: ExportState, scene: ExportScene): void {
  const { doc, jointNodes, before, originalBone, removedNodes, warnings, fail, diagonal } = state;
  const { skeleton } = scene;
  const root = doc.getRoot();
  const currentJoints = new Set(jointNodes.filter((node) => node !== null));
  const nearestJointAncestor = (node: GltfNode): GltfNode | null => {
    let up = node.getParentNode();
    while (up && !currentJoints.has(up)) up = up.getParentNode();
    return up;
  };
  const originalHeads = before.skeleton.joints;
  const names = scene.boneNames ?? (removedNodes.size === 0 ? before.boneNames : []);
  let movedBones = 0;
  const replaced = new Set<GltfNode>();
  for (const b of skeleton.order) {
    const p = skeleton.parents[b];
    const parentNode = p >= 0 ? jointNodes[p] : null;
    const head = skeleton.joints.subarray(3 * skeleton.bones[2 * b], 3 * skeleton.bones[2 * b] + 3);
    let node = jointNodes[b];
    if (!node) {
      node = doc.createNode(names[b] ?? `bone_${b}`);
      jointNodes[b] = node;
      state.newBones.push(b);
      currentJoints.add(node);
      const parent = parentNode ?? firstRootParent(jointNodes);
      if (parent) parent.addChild(node);
      else for (const scene of root.listScenes()) scene.addChild(node);
    } else if (nearestJointAncestor(node) !== parentNode) {
      // A changed parent. (A parent removed in between is not one: the node stays under it.)
      const world = worldMatrix(node);
      detach(node, root.listScenes());
      if (parentNode) parentNode.addChild(node);
      else for (const scene of root.listScenes()) scene.addChild(node);
      setLocalFromWorld(node, world);
    }
    // The head goes where the scene has it: only the local translation changes. A joint the user did not move
    // but whose parent moved keeps its world position (the file's, which may differ from the bind pose).
    const ob = originalBone[b];
    // A bone renamed in the scene renames its node; a name as the file had it leaves the node as it is.
    const name = scene.boneNames?.[b];
    if (ob >= 0 && name !== undefined && name !== before.boneNames[ob]) node.setName(name);
    const was = ob >= 0 ? originalHeads.subarray(3 * before.skeleton.bones[2 * ob], 3 * before.skeleton.bones[2 * ob] + 3) : null;
    const moved = !was || Math.hypot(head[0] - was[0], head[1] - was[1], head[2] - was[2]) > MOVED * diagonal;
    let ancestorMoved = false;
    for (let up = node.getParentNode(); up && !ancestorMoved; up = up.getParentNode()) ancestorMoved = replaced.has(up);
    if (!moved && !ancestorMoved) continue;
    if (was && moved) movedBones++;
    const target = moved ? head : state.restBefore.get(node)!.subarray(12, 15);
    const parentWorld = node.getParentNode() ? worldMatrix(node.getParentNode()!) : identity();
    const inverse = new Float64Array(16);
    if (!invertAffine(parentWorld, 0, inverse, 0)) fail(`bone ${b}`, "its parent node's world matrix is singular");
    const t = transformPoint(inverse, target);
    // Rounded to what the file stores, so that the inverse bind matrices are computed from the written transform.
    node.setTranslation([Math.fround(t[0]), Math.fround(t[1]), Math.fround(t[2])]);
    replaced.add(node);
  }
  const { newBones } = state;
  if (newBones.length > 0) warnings.push(`${newBones.length} new joint nodes (${newBones.map((b) => names[b] ?? `bone_${b}`).join(', ')})`);
  if (movedBones > 0) warnings.push(`${movedBones} joints moved; their inverse bind matrices are recomputed`);
}

/** The parent of the first joint node that has no joint above it: where new root bones go. */
function firstRootParent(jointNodes: (GltfNode | null)[]): GltfNode | null {
  const joints = new Set(jointNodes.filter((node): node is GltfNode => node !== null));
  for (const node of joints) {
    let parent = node.getParentNode();
    while (parent && !joints.has(parent)) parent = parent.getParentNode();
    if (!parent) return node.getParentNode();
  }
  return null;
}
