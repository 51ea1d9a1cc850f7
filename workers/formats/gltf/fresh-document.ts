/**
 * A fresh export's start (gltf-export.ts): a new Document built from the scene, which the pipeline's steps then edit
 * in place as they edit a source file (pipeline.ts).
 *
 * Rig mapping: every bone becomes one joint node with the bone's name, placed at the bone's rest START joint r_b and
 * parented to its parent bone's node (local translation r_b − r_parent, or r_b for a root), with no rest rotation.
 * Its inverse bind matrix, written by the skins step (inverse-binds.ts) as the inverse of that rest world matrix, is
 * the translation by −r_b; the bone's end, where its children do not give it, is written by the bone-ends step
 * (bone-tails.ts). The Document holds what a source file would: nodes, meshes, materials, skins with their joints.
 * Animating the node's rotation with our relative rotation R_b then reproduces forward kinematics exactly: with the
 * world matrix G_b = G_p · T(r_b − r_p) · R_b, the joint matrix
 * G_b · T(−r_b) = [Q_p R_b | T_p + Q_p r_b − Q_b r_b], which is libigl's [Q_b | T_b] (rig/forward-kinematics.ts).
 * A pose's start-joint translation t_b animates the node's translation to r_b − r_p + t_b. The joint nodes are
 * exactly the bones: a bone whose start is away from its parent's end is still one node (connector bones belong to
 * TGF only). Rest positions are rounded to a float32 grid (gridJointPositions) so that each inverse bind matrix is
 * exactly the inverse of its joint's rest world matrix. Several root bones hang below one node that is not a joint,
 * the common root a skin needs.
 *
 * Meshes: each part of the scene (MeshPart) is one mesh node (part-primitives.ts). A part without weight is static
 * (a mesh node without a skin at the scene's root), a part held unskinned whose vertices all hang on one bone is
 * rigid (a mesh node without a skin below that bone's joint node): see partBinding. Skinned parts on separate
 * skeleton trees (several root bones) get a skin per tree (skinGroups); on one tree, the one skin has every bone,
 * skin joint k bone k.
 */
import { Document, type Accessor, type Node as GltfNode, type Skin } from '@gltf-transform/core';
import { CollectingLogger } from '../gltf-collecting-logger.ts';
import type { GltfRig } from '../gltf-export.ts';
import { checkCorners, checkedParts, checkLook, gridJointPositions, lookMaterials, partBinding } from './fresh-parts.ts';
import { lookExtensions } from '../material-look.ts';
import type { DenseMatrix, MeshPart } from '../types.ts';
import { vertexNormals } from '../../mesh/vertex-normals.ts';
import type { Skeleton } from '../../rig/skeleton.ts';
import { influencesFromWeights } from '../../skinning/influences.ts';
import { exportFail, type ExportState, type Fail, type PartTarget } from './export-state.ts';
import { identity } from '../gltf-numbers.ts';
import { diagonalOf, worldMatrix } from './node-matrices.ts';
import { partPrimitives } from './part-primitives.ts';

/**
 * Builds the new Document of `rig` and the pipeline's state for it.
 * @param influences the weights step's most influences per vertex (SkinWeightsOptions): a part whose kept
 *   influences all name one bone is rigid (partBinding)
 * @throws FormatError naming the export, the file and the reason when the parts of the rig do not fit together
 */
export async function freshState(rig: GltfRig, file: string, influences: number): Promise<ExportState> {
  const fail = exportFail(file);
  const names = checkRig(rig, fail);
  const { mesh, skeleton } = rig;
  const warnings: string[] = [];
  const doc = new Document();
  doc.setLogger(new CollectingLogger(warnings));
  const buffer = doc.createBuffer();
  const accessor = (type: 'SCALAR' | 'VEC2' | 'VEC3' | 'VEC4' | 'MAT4', array: Float32Array | Uint16Array | Uint32Array): Accessor =>
    doc.createAccessor().setType(type).setArray(array).setBuffer(buffer);
  const look = rig.look;
  if (look) checkLook(mesh, look, fail);
  const allParts = checkedParts(mesh, rig.parts, rig.name ?? 'mesh', look?.materials.length ?? 0, fail);
  const corners = rig.objCorners ?? null;
  if (corners) checkCorners(mesh, corners, fail);
  const meshName = rig.name ?? 'mesh';
  const scene = doc.createScene(meshName);
  doc.getRoot().setDefaultScene(scene);
  const materials = look ? lookMaterials(doc, look.materials, warnings, await lookExtensions(look.materials)) : [];
  const geometry = {
    doc,
    accessor,
    mesh,
    restNormals: rig.normals ?? vertexNormals(mesh.positions, mesh.triangles),
    corners,
    look,
    materials,
    warnings,
  };
  const kept = influencesFromWeights(rig.weights, influences);
  const parts: MeshPart[] = [];
  const rigid: { node: GltfNode; bone: number }[] = [];
  const partTargets: PartTarget[] = [];
  for (const part of allParts) {
    if (part.triangleCount === 0) {
      warnings.push(`mesh "${part.name}" has no triangles, so it is left out (glTF has no empty meshes)`);
      continue;
    }
    const { primitives, map } = partPrimitives(geometry, part);
    const gltfMesh = doc.createMesh(part.name);
    for (const primitive of primitives) gltfMesh.addPrimitive(primitive);
    const node = doc.createNode(part.name).setMesh(gltfMesh);
    const binding = partBinding(part, map, kept);
    if (binding.kind === 'rigid') rigid.push({ node, bone: binding.bone });
    else scene.addChild(node);
    parts.push({ ...part, skinned: binding.kind === 'skinned' });
    partTargets.push({ node, primitives, map });
  }
  const jointNodes = jointNodesOf(doc, skeleton, names, meshName);
  // A rigid part's vertices are in the rest pose's world: below its joint (rest world matrix T(r_b)) the node undoes
  // the joint's translation, so that it is at rest where the scene has it and follows the joint with weight 1.
  for (const { node, bone } of rigid) {
    const at = worldMatrix(jointNodes[bone]);
    node.setTranslation([-at[12], -at[13], -at[14]]);
    jointNodes[bone].addChild(node);
  }
  // Skins with their joints only: the skins step writes their inverse bind matrices (ExportState.built).
  const skins = skinGroups(skeleton, rig.weights, parts).map((bones, s, all) => {
    const skin = doc.createSkin(all.length === 1 ? `${meshName} skin` : `${meshName} skin ${s}`);
    for (const b of bones.joints) skin.addJoint(jointNodes[b]);
    for (const p of bones.parts) partTargets[p].node.setSkin(skin);
    return skin;
  });
  return freshStateOf(doc, rig, names, file, fail, warnings, jointNodes, skins, parts, partTargets);
}

/** The state of the new Document: nothing in it is "as it was" but the skeleton and names it was built with. */
function freshStateOf(
  doc: Document,
  rig: GltfRig,
  names: readonly string[],
  file: string,
  fail: Fail,
  warnings: string[],
  jointNodes: GltfNode[],
  skins: Skin[],
  parts: MeshPart[],
  partTargets: PartTarget[],
): ExportState {
  const root = doc.getRoot();
  const nodes = root.listNodes();
  const boneCount = jointNodes.length;
  return {
    doc,
    file,
    sourceName: file,
    fail,
    warnings,
    nodes,
    jointNodes,
    before: {
      skeleton: rig.skeleton,
      weights: { rows: 0, cols: boneCount, data: new Float64Array(0) },
      parts: [],
      boneNames: names,
      jointNodes: Int32Array.from(jointNodes, (node) => nodes.indexOf(node)),
    },
    originalBone: Int32Array.from({ length: boneCount }, (_, b) => b),
    removedNodes: new Set(),
    newBones: [],
    skins,
    // Bind space is the world: each joint's inverse bind matrix is the inverse of its rest world matrix.
    skinToWorld: new Map(skins.map((skin) => [skin, identity()])),
    built: { skins: new Set(skins), bones: Array.from({ length: boneCount }, (_, b) => b) },
    firstSkin: skins[0] ?? null,
    restBefore: new Map(jointNodes.map((node) => [node, worldMatrix(node)])),
    parts,
    partTargets,
    diagonal: diagonalOf(rig.mesh.positions),
    animationsBefore: [],
    samplersRead: [],
    carry: null,
    unusedBefore: new Set(),
  };
}

/**
 * Checks what only a fresh export needs of the rig: vertices, bones that fit glTF's joint indices, normals and
 * triangles of the mesh, one name per bone, clips with names of their own.
 * @returns the bone names (the rig's, else `bone_<b>`)
 */
function checkRig(rig: GltfRig, fail: Fail): readonly string[] {
  const { mesh } = rig;
  const vertexCount = mesh.positions.length / 3;
  const boneCount = rig.skeleton.parents.length;
  if (vertexCount === 0) fail('', 'the mesh has no vertices');
  if (boneCount === 0) fail('', 'the skeleton has no bones');
  if (boneCount > 65536) fail('', `${boneCount} bones do not fit glTF joint indices (at most 65536)`);
  if (rig.normals && rig.normals.length !== mesh.positions.length)
    fail('normals', `${rig.normals.length / 3} normals for ${vertexCount} vertices`);
  for (let i = 0; i < mesh.triangles.length; i++)
    if (mesh.triangles[i] >= vertexCount)
      fail(`triangle ${Math.floor(i / 3)}`, `names vertex ${mesh.triangles[i]}, but the mesh has ${vertexCount}`);
  const names = rig.boneNames ?? Array.from({ length: boneCount }, (_, b) => `bone_${b}`);
  if (names.length !== boneCount) fail('', `${names.length} bone names for ${boneCount} bones`);
  const clipNames = new Set<string>();
  for (const clip of [...(rig.clips ?? []), ...(rig.vertexAnimations ?? [])]) {
    if (clipNames.has(clip.name)) fail(`clip "${clip.name}"`, 'two clips have this name');
    clipNames.add(clip.name);
  }
  return names;
}

/**
 * One joint node per bone at its grid position (see the module comment), below a common root node when there are
 * several roots. The bone ends are the bone-ends step's to write (ExportState.built).
 */
function jointNodesOf(doc: Document, skeleton: Skeleton, names: readonly string[], meshName: string): GltfNode[] {
  const { parents } = skeleton;
  const scene = doc.getRoot().getDefaultScene()!;
  const jointNodes = names.map((name) => doc.createNode(name));
  const skeletonRoot = parents.filter((p) => p < 0).length > 1 ? doc.createNode(`${meshName} skeleton`) : null;
  if (skeletonRoot) scene.addChild(skeletonRoot);
  const at = gridJointPositions(skeleton);
  parents.forEach((p, b) => {
    const s = 3 * b;
    const ps = 3 * p;
    jointNodes[b].setTranslation(p >= 0 ? [at[s] - at[ps], at[s + 1] - at[ps + 1], at[s + 2] - at[ps + 2]] : [at[s], at[s + 1], at[s + 2]]);
    if (p >= 0) jointNodes[p].addChild(jointNodes[b]);
    else (skeletonRoot ?? scene).addChild(jointNodes[b]);
  });
  return jointNodes;
}

/**
 * The skins of the skinned parts: one per skeleton tree (a root bone and everything below it) that skinned parts
 * weight, trees that one part weights together sharing one. One skin: it has every bone, in bone order. Several:
 * each has the bones of its trees, in bone order.
 * @returns per skin its joints (bones) and its parts (indices into `parts`)
 */
function skinGroups(skeleton: Skeleton, weights: DenseMatrix, parts: readonly MeshPart[]): { joints: number[]; parts: number[] }[] {
  const { parents, order } = skeleton;
  const B = parents.length;
  // Each bone's tree (its root bone), then trees joined where a part weights bones of several.
  const tree = new Int32Array(B);
  for (const b of order) tree[b] = parents[b] >= 0 ? tree[parents[b]] : b;
  const group = Int32Array.from({ length: B }, (_, b) => b);
  const find = (b: number): number => {
    while (group[b] !== b) b = group[b] = group[group[b]];
    return b;
  };
  const partTree = parts.map((part) => {
    if (!part.skinned) return -1;
    let first = -1;
    for (let v = part.vertexStart; v < part.vertexStart + part.vertexCount; v++)
      for (let b = 0; b < B; b++) {
        if (weights.data[v * B + b] === 0) continue;
        const r = find(tree[b]);
        if (first < 0) first = r;
        else if (r !== first) group[r] = first;
      }
    return first;
  });
  const byGroup = new Map<number, number[]>();
  partTree.forEach((t, p) => {
    if (t < 0) return;
    const key = find(t);
    byGroup.set(key, [...(byGroup.get(key) ?? []), p]);
  });
  const all = Array.from({ length: B }, (_, b) => b);
  if (byGroup.size <= 1) return [...byGroup.values()].map((members) => ({ joints: all, parts: members }));
  return [...byGroup].map(([key, members]) => ({ joints: all.filter((b) => find(tree[b]) === key), parts: members }));
}
