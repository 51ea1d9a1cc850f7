/**
 * Rigged glTF 2.0 import (GLB, or .gltf with its resources) into Rigwright's rig: every triangle primitive of every
 * mesh node as one part of a merged triangle mesh in the bind pose, one bone per joint of every skin (the union of
 * the skins' joint nodes, the first skin's first and in its order), #V × #B weights, one rotation-matrix
 * PoseSequence per animation clip, texture coordinates and materials, and the file itself for in-place export.
 * Mesh nodes without a skin are parts with skinned = false, one rule for them everywhere: with a joint above them
 * they are rigid, bound (weight 1) to their nearest ancestor joint, which moves them as glTF does; with none they are
 * static, with all-zero weight rows, and stay at rest in every pose (`rigwright skin`, the app's view, and a fresh
 * export, which writes them as a mesh node without a skin; see partBinding in gltf/fresh-parts.ts).
 *
 * Conversion of poses (glTF 2.0 §3.7.3): the file deforms a vertex v by Σ w_j M_j v with the joint matrix
 * M_j = G_j · IBM_j, G_j the joint node's global transform. Our rig deforms rest positions x = C v by
 * Σ w_j A_j x, so A_j = M_j · C⁻¹, where C = M_root in the file's rest pose maps the mesh into the world (it
 * holds e.g. a Z-up root matrix that the inverse bind matrices leave out; it is the identity when they include
 * it). A bone's head is its joint's bind-pose position h_j = C · IBM_j⁻¹ · 0. Our forward kinematics rotates each
 * bone about its head by Q_j = Q_parent · R_j, so the absolute rotation is Q_j = linear part of A_j and the
 * relative rotation R_j = Q_parentᵀ · Q_j. Where a joint's head does not land where its parent carries it
 * (translation channels: root motion, sliding joints; or a rest pose that differs from the bind pose), the pose's
 * start-joint translation takes up the difference, t_j = Q_parentᵀ · (A_j h_j − A_parent h_j) (a root's
 * A_j h_j − h_j), so A_j is reproduced exactly whenever it is rigid. Scale animation has no place in our rigid
 * poses: its effect on where joints go is kept, the bones' own scaling is reported and left out.
 */
import {
  GLB_BUFFER,
  Logger,
  type Accessor,
  type Animation,
  type Document,
  type Material,
  type Node as GltfNode,
  type Primitive,
  type Root,
  type Scene,
  type Skin,
} from '@gltf-transform/core';
import { FormatError } from './format-error.ts';
import { readClip, TOLERANCE, type ClipContext, type NodeTrs } from './gltf-clips.ts';
import { composeTrs, invertAffine, multiply, normalMatrixOf, readElement, transformPoint } from './gltf-numbers.ts';
import { applyExtensionRules, readGltfDocument } from './gltf-extensions.ts';
import { gltfJson, parseJsonText } from './gltf-resource-uris.ts';
import { isGlb, parseGlb, type GlbChunks } from './gltf/glb.ts';
import { readPrimitiveVertices, readPrimitiveWeights, type VertexArrays } from './gltf/read-vertices.ts';
import { sanitizeGltfInput } from './gltf/sanitize-input.ts';
import { checkFileSize } from './read-file.ts';
import { excerpt } from './text-scanner.ts';
import { normalizeWeightRows } from './weights-file.ts';
import type { GltfClip } from './gltf-export.ts';
import { BONE_TAIL_EXTRA } from './gltf/fresh-parts.ts';
import type { DenseMatrix, GltfSource, MaterialLook, MeshPart, SurfaceLook, TriangleMesh } from './types.ts';
import type { Skeleton } from '../rig/skeleton.ts';
import { vertexNormals } from '../mesh/vertex-normals.ts';
import { boundingBox } from '../mesh/bounds.ts';
import { baseColorTexCoord, readAlphaAndSampling } from './material-look.ts';

/** A rig read from glTF. Bone b is skin joint b. */
export interface GltfImportResult {
  /** the skinned mesh node's name (or the file's first one) */
  name: string;
  /** all triangles of every primitive of the skinned mesh nodes, bind pose, world space */
  mesh: TriangleMesh;
  /** #V × 3 unit normals (computed where the file has none) */
  normals: Float64Array;
  /**
   * bones in skin joint order; joints 0 … #B − 1 are the bone heads, leaf tails follow. `parents` is the
   * nearest ancestor node that is a joint, which a bone may have even when its head is not its parent's tail.
   */
  skeleton: Skeleton;
  /** #B joint node names */
  boneNames: string[];
  /** #V × #B, rows sum to 1 (or are all zero for a vertex without weight) */
  weights: DenseMatrix;
  /** one clip per glTF animation at its own key times, rotation matrices (and start-joint translations where joints move); `source` is the animation's index */
  clips: GltfClip[];
  /** one per triangle primitive of every mesh node (skinned or not), in the file's node order, covering the vertices in order */
  parts: MeshPart[];
  /** TEXCOORD_0 per vertex as stored (zeros for parts without), and every material of the file */
  look: SurfaceLook;
  /** the file as read, for in-place export; jointNodes[b] is bone b's node */
  gltfSource: GltfSource;
  /** what was changed or left out, one sentence each */
  warnings: string[];
}

/**
 * Reads a .glb or .gltf into a glTF-Transform Document only after checking it: the required extensions and
 * animation pointers (gltf-extensions.ts), then everything glTF-Transform trusts (counts, offsets, references,
 * hierarchy: the input sanitizer, gltf/sanitize-input.ts), then the reader with its decoders.
 * @param bytes      the .glb or .gltf file
 * @param file       file name for messages
 * @param resources  external files the .gltf names, by URI as written
 * @param warnings   notices are appended here
 * @throws FormatError naming the file, the place and the reason
 */
export async function readCheckedGltf(
  bytes: Uint8Array,
  file: string,
  resources: Record<string, Uint8Array>,
  warnings: string[],
): Promise<Document> {
  const fail = (where: string, reason: string): never => {
    throw new FormatError(file, where, `glTF import: ${reason}`);
  };
  checkFileSize(file, bytes.length);
  for (const [uri, data] of Object.entries(resources)) checkFileSize(uri, data.length);
  let json: unknown;
  let glbBin: Uint8Array | null = null;
  if (isGlb(bytes)) {
    const parts = glbChunks(bytes, file);
    json = parseJsonText(parts.jsonBytes, file, true);
    glbBin = parts.bin;
  } else {
    json = gltfJson(bytes, file);
  }
  applyExtensionRules(json, file, warnings);
  const checked = sanitizeGltfInput(json, glbBin, resources, GLB_BUFFER, fail, warnings);
  return readGltfDocument(checked.json, checked.resources, file, warnings);
}

/** parseGlb, its refusals worded as the importer's others (`glTF import: …`). */
function glbChunks(bytes: Uint8Array, file: string): GlbChunks {
  try {
    return parseGlb(bytes, file);
  } catch (error) {
    if (error instanceof FormatError) throw new FormatError(file, error.where, `glTF import: ${error.reason}`);
    throw error;
  }
}

/**
 * Reads a rigged glTF asset.
 * @param bytes      .glb, or .gltf JSON (UTF-8)
 * @param file       file name for messages
 * @param resources  external files the .gltf names (see gltfResources), by URI as written; `data:` URIs and
 *                   GLB binary chunks need nothing here
 * @throws FormatError (naming the import, the file, the place and the reason) for unreadable files, files without
 *         a skinned mesh, joint indices past the skin, or non-finite data, and files requiring an extension that
 *         gltf-extensions.ts refuses
 */
export async function importGltf(bytes: Uint8Array, file: string, resources: Record<string, Uint8Array> = {}): Promise<GltfImportResult> {
  const fail = (where: string, reason: string): never => {
    throw new FormatError(file, where, `glTF import: ${reason}`);
  };
  const warnings: string[] = [];
  const doc = await readCheckedGltf(bytes, file, resources, warnings);
  doc.setLogger(new Logger(Logger.Verbosity.SILENT));
  const root = doc.getRoot();
  const scene = root.getDefaultScene() ?? root.listScenes()[0];
  if (!scene) fail('', 'the file has no scene');

  const { nodes, parentOf, indexOf } = sceneNodes(scene);
  const accessorIndex = new Map(root.listAccessors().map((accessor, a) => [accessor, a]));
  const nodeIndex = new Map(root.listNodes().map((node, n) => [node, n]));
  /** `/accessors/3` for messages. */
  const pointer = (accessor: Accessor): string => `/accessors/${accessorIndex.get(accessor) ?? '?'}`;
  const expectType = (accessor: Accessor, role: string, types: string[]): void => {
    if (!types.includes(accessor.getType())) fail(pointer(accessor), `${role} must be ${types.join(' or ')}, not ${accessor.getType()}`);
  };

  const { skinnedNodes, skins, skinWhereOf, skinWhere, jointNodes, boneCount, jointIndex, boneNames, boneOfJointNode } = skinJoints(
    root,
    nodes,
    indexOf,
    nodeIndex,
    fail,
  );

  const skinInverseBind = skins.map((skin) => ownInverseBinds(skin, skinWhereOf(skin), pointer, expectType, fail));

  // Rest-pose local and global matrices of all nodes.
  const nodeCount = nodes.length;
  const rest = restTrs(nodes, nodeIndex, fail);
  const local = new Float64Array(16 * nodeCount);
  const global = new Float64Array(16 * nodeCount);
  // Mesh nodes in the file's node order, which an in-place export keeps (it may move a skinned mesh node in the
  // hierarchy, and adds nodes only at the end), so the parts come back in the same vertex order.
  const meshNodes = root.listNodes().filter((node) => node.getMesh() && indexOf.has(node));
  // Only joints, unskinned mesh nodes and their ancestors are ever needed: the global matrices of other nodes are
  // not computed. Nodes are in depth-first order, so a parent comes before its children here too.
  const needed = new Uint8Array(nodeCount);
  const unskinnedIndex = meshNodes.filter((node) => !node.getSkin()).map((node) => indexOf.get(node)!);
  for (const n of [...jointIndex, ...unskinnedIndex]) for (let k = n; k >= 0 && !needed[k]; k = parentOf[k]) needed[k] = 1;
  const composeOrder: number[] = [];
  for (let n = 0; n < nodeCount; n++) if (needed[n]) composeOrder.push(n);
  const composeGlobals = (trs: NodeTrs): void => {
    for (const n of composeOrder) {
      composeTrs(trs.translation, 3 * n, trs.rotation, 4 * n, trs.scale, 3 * n, local, 16 * n);
      if (parentOf[n] < 0) global.set(local.subarray(16 * n, 16 * n + 16), 16 * n);
      else multiply(global, 16 * parentOf[n], local, 16 * n, global, 16 * n);
    }
  };
  composeGlobals(rest);

  const parentBone = new Int32Array(boneCount).fill(-1);
  const boneOfNode = new Int32Array(nodeCount).fill(-1);
  jointIndex.forEach((n, j) => (boneOfNode[n] = j));
  const nearestJoint = (node: number): number => {
    for (let n = parentOf[node]; n >= 0; n = parentOf[n]) if (boneOfNode[n] >= 0) return boneOfNode[n];
    return -1;
  };
  for (let j = 0; j < boneCount; j++) parentBone[j] = nearestJoint(jointIndex[j]);

  // C = the first skin's root joint's rest joint matrix: it maps that skin's bind space into the world.
  const firstJoints = skins[0].listJoints();
  const firstRootInSkin = firstJoints.findIndex((node) => parentBone[boneOfJointNode.get(node)!] < 0);
  const firstRoot = firstRootInSkin >= 0 ? firstRootInSkin : 0;
  const toWorld = new Float64Array(16);
  multiply(global, 16 * jointIndex[boneOfJointNode.get(firstJoints[firstRoot])!], skinInverseBind[0], 16 * firstRoot, toWorld, 0);
  const fromWorld = new Float64Array(16);
  if (!invertAffine(toWorld, 0, fromWorld, 0))
    fail(`${skinWhere}/joints/${firstRoot}`, 'the rest joint matrix of the root joint is singular');

  const { inverseBind, skinToWorld } = commonInverseBinds({
    skins,
    skinInverseBind,
    toWorld,
    global,
    jointIndex,
    parentBone,
    boneOfJointNode,
    boneNames,
    skinWhere,
    skinWhereOf,
    warnings,
    fail,
  });

  const { vertices, weights, triangles, parts, materials, anyTexcoords, missingNormals, unweighted, vertexCount } = readMeshParts({
    root,
    meshNodes,
    skins,
    skinToWorld,
    global,
    indexOf,
    nodeIndex,
    boneOfJointNode,
    boneCount,
    nearestJoint,
    pointer,
    expectType,
    warnings,
    fail,
  });
  if (vertexCount === 0 || triangles.length === 0) fail('', 'the meshes have no triangles');
  const mesh: TriangleMesh = { positions: vertices.positions, triangles };
  const normals = vertices.normals;
  finishMesh(mesh, normals, weights, missingNormals, unweighted, warnings);

  const diagonal = boundingBox(mesh.positions).diagonal || 1;
  const skeleton = buildImportedSkeleton(toWorld, inverseBind, parentBone, diagonal, jointNodes.map(storedTail), (j) =>
    fail(`${skinWhere}/joints/${j}`, `the inverse bind matrix of joint ${j} ("${excerpt(boneNames[j])}") is singular`),
  );
  checkRestPose(global, jointIndex, inverseBind, fromWorld, skeleton, boneNames, diagonal, warnings);

  const clips = readClips(root.listAnimations(), {
    indexOf,
    rest,
    parentOf,
    composeOrder,
    jointIndex,
    inverseBind,
    fromWorld,
    parentBone,
    heads: skeleton.joints,
    diagonal,
    warnings,
    fail,
    pointer,
  });

  // Finite inputs can still overflow once multiplied (1e38 translations, scales): nothing non-finite leaves here.
  const arrays = { 'mesh positions': mesh.positions, normals, 'bone positions': skeleton.joints, weights: weights.data };
  for (const [what, data] of Object.entries(arrays))
    if (!data.every(Number.isFinite))
      fail('', `the ${what} are not finite numbers once the node transforms are applied (values too large)`);
  const name = skinnedNodes[0].getName() || skinnedNodes[0].getMesh()!.getName() || 'mesh';
  const look: SurfaceLook = { uvs: anyTexcoords ? vertices.uvs : null, materials: materials.map(materialLook) };
  const gltfSource: GltfSource = {
    file,
    bytes,
    resources,
    jointNodes: Int32Array.from(jointNodes, (node) => nodeIndex.get(node)!),
  };
  return { name, mesh, normals, skeleton, boneNames, weights, clips, parts, look, gltfSource, warnings };
}

/**
 * The mesh's last steps once its parts are read: area-weighted vertex normals for the vertices of primitives without
 * NORMAL (left all zero by the reading), weight rows normalized to sum 1, and the notices of both and of vertices
 * without weights.
 * @param mesh            the merged mesh, world space
 * @param normals         #V × 3, completed in place
 * @param weights         #V × #B, rows normalized in place
 * @param missingNormals  primitives without NORMAL
 * @param unweighted      vertices without JOINTS_0/WEIGHTS_0
 * @param warnings        notices are appended here
 */
function finishMesh(
  mesh: TriangleMesh,
  normals: Float64Array,
  weights: DenseMatrix,
  missingNormals: number,
  unweighted: number,
  warnings: string[],
): void {
  if (missingNormals > 0) {
    const computed = vertexNormals(mesh.positions, mesh.triangles);
    for (let i = 0; i < normals.length; i += 3) {
      if (normals[i] === 0 && normals[i + 1] === 0 && normals[i + 2] === 0) normals.set(computed.subarray(i, i + 3), i);
    }
    warnings.push(`${missingNormals} primitives have no normals; area-weighted vertex normals were computed`);
  }
  if (unweighted > 0) warnings.push(`${unweighted} vertices have no JOINTS_0/WEIGHTS_0 and stay at rest`);
  warnings.push(...normalizeWeightRows(weights, false));
}

/** A joint node's bone tail as a fresh export stores it in its extras (BONE_TAIL_EXTRA), or null when it has none. */
function storedTail(node: GltfNode): number[] | null {
  const tail = (node.getExtras() as Record<string, unknown> | null)?.[BONE_TAIL_EXTRA];
  return Array.isArray(tail) && tail.length === 3 && tail.every((x) => typeof x === 'number' && Number.isFinite(x))
    ? (tail as number[])
    : null;
}

/**
 * The skins of the scene's skinned mesh nodes and their joints, as bones: every skin the scene's mesh nodes use, in
 * the order their first mesh node comes; the first one's joints come first, in its order, so a file with one skin
 * keeps its joint list exactly; the other skins' joints not in it follow.
 * @throws FormatError (through `fail`) when the scene has no skinned mesh, a skin no joints, or a joint is not in the
 *   scene
 */
function skinJoints(
  root: Root,
  nodes: GltfNode[],
  indexOf: Map<GltfNode, number>,
  nodeIndex: Map<GltfNode, number>,
  fail: (where: string, reason: string) => never,
) {
  const skinnedNodes = nodes.filter((node) => node.getMesh() && node.getSkin());
  if (skinnedNodes.length === 0) fail('', 'the scene has no skinned mesh (no node with both a mesh and a skin)');
  const skins: Skin[] = [];
  for (const node of skinnedNodes) if (!skins.includes(node.getSkin()!)) skins.push(node.getSkin()!);
  const skinWhereOf = (skin: Skin): string => `/skins/${root.listSkins().indexOf(skin)}`;
  const skinWhere = skinWhereOf(skins[0]);

  const jointNodes: GltfNode[] = [];
  for (const skin of skins) {
    const joints = skin.listJoints();
    if (joints.length === 0) fail(skinWhereOf(skin), 'the skin has no joints');
    for (const node of joints) if (!jointNodes.includes(node)) jointNodes.push(node);
  }
  const boneCount = jointNodes.length;
  const jointIndex = jointNodes.map((node) => indexOf.get(node) ?? -1);
  jointIndex.forEach((n, j) => {
    if (n < 0)
      fail(
        `${skinWhere}/joints/${j}`,
        `joint node ${nodeIndex.get(jointNodes[j])} ("${excerpt(jointNodes[j].getName())}") is not in the scene`,
      );
  });
  const boneNames = jointNodes.map((node, j) => node.getName() || `joint_${j}`);
  const boneOfJointNode = new Map(jointNodes.map((node, j) => [node, j]));
  return { skinnedNodes, skins, skinWhereOf, skinWhere, jointNodes, boneCount, jointIndex, boneNames, boneOfJointNode };
}

/**
 * Every animation as a clip, in file order, each named after its animation (`animation N` when unnamed; a name
 * taken already gets ` (N)` appended) and knowing its index in the file.
 * @param context  what readClip needs, but the JSON pointer, which is each animation's
 */
function readClips(animations: Animation[], context: Omit<ClipContext, 'where'>): GltfClip[] {
  const usedNames = new Set<string>();
  return animations.map((animation, a) => {
    let name = animation.getName() || `animation ${a}`;
    while (usedNames.has(name)) name = `${name} (${a})`;
    usedNames.add(name);
    return { ...readClip(animation.listChannels(), name, { ...context, where: `/animations/${a}` }), source: a };
  });
}

/**
 * A scene's nodes, parents before children: depth-first without recursion (a chain of thousands of nodes must not
 * overflow the stack); the hierarchy is a forest (checked by sanitizeGltfInput).
 * @returns the nodes in that order, each one's parent in it (−1 for a root) and each node's place in it
 */
function sceneNodes(scene: Scene): { nodes: GltfNode[]; parentOf: number[]; indexOf: Map<GltfNode, number> } {
  const nodes: GltfNode[] = [];
  const parentOf: number[] = [];
  const indexOf = new Map<GltfNode, number>();
  const stack: [GltfNode, number][] = scene
    .listChildren()
    .map((node): [GltfNode, number] => [node, -1])
    .reverse();
  while (stack.length > 0) {
    const [node, parent] = stack.pop()!;
    if (indexOf.has(node)) continue;
    indexOf.set(node, nodes.length);
    nodes.push(node);
    parentOf.push(parent);
    const self = nodes.length - 1;
    const children = node.listChildren();
    for (let k = children.length - 1; k >= 0; k--) stack.push([children[k], self]);
  }
  return { nodes, parentOf, indexOf };
}

/**
 * A skin's inverse bind matrices, #joints × 16, in its own joint order (identities without the accessor).
 * @param where  the skin's JSON pointer for messages
 */
function ownInverseBinds(
  skin: Skin,
  where: string,
  pointer: (accessor: Accessor) => string,
  expectType: (accessor: Accessor, role: string, types: string[]) => void,
  fail: (where: string, reason: string) => never,
): Float64Array {
  const joints = skin.listJoints();
  const out = new Float64Array(16 * joints.length);
  const ibmAccessor = skin.getInverseBindMatrices();
  if (ibmAccessor) {
    expectType(ibmAccessor, 'inverse bind matrices', ['MAT4']);
    if (ibmAccessor.getCount() < joints.length)
      fail(`${where}/inverseBindMatrices`, `${ibmAccessor.getCount()} inverse bind matrices for ${joints.length} joints`);
  }
  for (let j = 0; j < joints.length; j++) {
    if (ibmAccessor) readElement(ibmAccessor, j, out, 16 * j, fail, `${pointer(ibmAccessor)} (inverse bind matrix)`);
    else out[16 * j] = out[16 * j + 5] = out[16 * j + 10] = out[16 * j + 15] = 1;
  }
  return out;
}

/**
 * The nodes' rest translations, rotations and scales (#nodes × 3, × 4, × 3).
 * @throws FormatError (through `fail`) for a node matrix that does not split into finite ones (e.g. a zero scale)
 */
function restTrs(nodes: GltfNode[], nodeIndex: Map<GltfNode, number>, fail: (where: string, reason: string) => never): NodeTrs {
  const nodeCount = nodes.length;
  const rest: NodeTrs = {
    translation: new Float64Array(3 * nodeCount),
    rotation: new Float64Array(4 * nodeCount),
    scale: new Float64Array(3 * nodeCount),
  };
  for (let n = 0; n < nodeCount; n++) {
    const t = nodes[n].getTranslation();
    const r = nodes[n].getRotation();
    const s = nodes[n].getScale();
    // A node matrix that does not split into translation, rotation and scale (e.g. a zero scale) gives NaN here.
    if (![...t, ...r, ...s].every(Number.isFinite) || t.length !== 3 || r.length !== 4 || s.length !== 3)
      fail(`/nodes/${nodeIndex.get(nodes[n])}`, 'its transform does not give a finite translation, rotation and scale');
    rest.translation.set(t, 3 * n);
    rest.rotation.set(r, 4 * n);
    rest.scale.set(s, 3 * n);
  }
  return rest;
}

/** What commonInverseBinds needs of the import (see importGltf): the skins, their own inverse binds, the rest pose. */
interface InverseBindInput {
  skins: Skin[];
  /** each skin's inverse bind matrices, #joints × 16, in its own joint order */
  skinInverseBind: Float64Array[];
  /** C, the first skin's bind space into the world */
  toWorld: Float64Array;
  /** every scene node's rest-pose global matrix, #nodes × 16 */
  global: Float64Array;
  /** the scene node of each bone */
  jointIndex: number[];
  parentBone: Int32Array;
  boneOfJointNode: Map<GltfNode, number>;
  boneNames: string[];
  skinWhere: string;
  skinWhereOf: (skin: Skin) => string;
  warnings: string[];
  fail: (where: string, reason: string) => never;
}

/**
 * Every bone's inverse bind matrix in the first skin's bind space. Another skin s maps its bind space into the
 * world by C_s, taken so that the first joint it shares with the skins before it keeps that joint's inverse bind
 * matrix (C_s = C · IBM_j⁻¹ · IBM_s,j), or, sharing none, by its own root's rest joint matrix; its joints then
 * have IBM_s,j · C_s⁻¹ · C. Skins bound in one bind pose agree on every shared joint (checked below).
 * @returns each bone's inverse bind matrix in the first skin's bind space (#B × 16) and each skin's bind space into
 *   the world (4×4 column-major)
 */
function commonInverseBinds(input: InverseBindInput): { inverseBind: Float64Array; skinToWorld: Float64Array[] } {
  const {
    skins,
    skinInverseBind,
    toWorld,
    global,
    jointIndex,
    parentBone,
    boneOfJointNode,
    boneNames,
    skinWhere,
    skinWhereOf,
    warnings,
    fail,
  } = input;
  const boneCount = boneNames.length;
  const inverseBind = new Float64Array(16 * boneCount);
  const assigned = new Uint8Array(boneCount);
  const skinToWorld: Float64Array[] = [];
  const scratch = new Float64Array(16);
  const inverse = new Float64Array(16);
  let disagreeing = 0;
  skins.forEach((skin, s) => {
    const joints = skin.listJoints();
    const ibm = skinInverseBind[s];
    const c = new Float64Array(16);
    if (s === 0) {
      c.set(toWorld);
    } else {
      const shared = joints.findIndex((node) => assigned[boneOfJointNode.get(node)!]);
      if (shared >= 0) {
        const b = boneOfJointNode.get(joints[shared])!;
        if (!invertAffine(inverseBind, 16 * b, inverse, 0))
          fail(`${skinWhere}/joints/${b}`, `the inverse bind matrix of joint ${b} ("${excerpt(boneNames[b])}") is singular`);
        multiply(toWorld, 0, inverse, 0, scratch, 0);
        multiply(scratch, 0, ibm, 16 * shared, c, 0);
      } else {
        const root = Math.max(
          0,
          joints.findIndex((node) => parentBone[boneOfJointNode.get(node)!] < 0),
        );
        multiply(global, 16 * jointIndex[boneOfJointNode.get(joints[root])!], ibm, 16 * root, c, 0);
      }
    }
    skinToWorld.push(c);
    const fromSkin = new Float64Array(16);
    if (!invertAffine(c, 0, fromSkin, 0)) fail(skinWhereOf(skin), 'the rest joint matrix of its root joint is singular');
    multiply(fromSkin, 0, toWorld, 0, fromSkin, 0);
    joints.forEach((node, k) => {
      const b = boneOfJointNode.get(node)!;
      multiply(ibm, 16 * k, fromSkin, 0, scratch, 0);
      if (!assigned[b]) {
        inverseBind.set(scratch, 16 * b);
        assigned[b] = 1;
      } else if (s > 0) {
        let off = 0;
        for (let e = 0; e < 16; e++) off = Math.max(off, Math.abs(scratch[e] - inverseBind[16 * b + e]));
        if (off > TOLERANCE) disagreeing++;
      }
    });
  });
  if (disagreeing > 0)
    warnings.push(`${disagreeing} joints shared by several skins have other bind poses in each; the first skin's bind pose is used`);
  return { inverseBind, skinToWorld };
}

/** What readMeshParts needs of the import: the document, its nodes and skins as importGltf ordered and placed them. */
interface MeshPartsInput {
  root: Root;
  /** mesh nodes in the scene, in the file's node order */
  meshNodes: GltfNode[];
  /** the skins the scene's mesh nodes use, in order */
  skins: Skin[];
  /** each skin's bind space into the world, 4×4 column-major */
  skinToWorld: Float64Array[];
  /** every scene node's rest-pose global matrix, #nodes × 16 (scene order) */
  global: Float64Array;
  indexOf: Map<GltfNode, number>;
  nodeIndex: Map<GltfNode, number>;
  boneOfJointNode: Map<GltfNode, number>;
  boneCount: number;
  /** the bone of a scene node's nearest ancestor joint, −1 for none */
  nearestJoint: (node: number) => number;
  pointer: (accessor: Accessor) => string;
  expectType: (accessor: Accessor, role: string, types: string[]) => void;
  warnings: string[];
  fail: (where: string, reason: string) => never;
}

/** The mesh as read: its vertex arrays, weights, triangles and parts. */
interface MeshPartsRead {
  vertices: VertexArrays;
  /** #V × #B rows, not yet normalized */
  weights: DenseMatrix;
  triangles: Uint32Array;
  parts: MeshPart[];
  materials: Material[];
  vertexCount: number;
  anyTexcoords: boolean;
  /** primitives without NORMAL (their normals are left zero) */
  missingNormals: number;
  /** skinned vertices without JOINTS_0/WEIGHTS_0 */
  unweighted: number;
}

/**
 * The mesh of glTF import: every triangle primitive of every mesh node, in node order, one part each (see importGltf).
 */
function readMeshParts(input: MeshPartsInput): MeshPartsRead {
  const {
    root,
    meshNodes,
    skins,
    skinToWorld,
    global,
    indexOf,
    nodeIndex,
    boneOfJointNode,
    boneCount,
    nearestJoint,
    pointer,
    expectType,
    warnings,
    fail,
  } = input;
  // Mesh: every triangle primitive of every mesh node, in node order, one part each. Skinned nodes' vertices are
  // their skin's bind pose in the world; unskinned nodes' are their rest pose in the world, bound rigidly to the
  // nearest ancestor joint (as glTF moves them: with that node), or to nothing (they stay at rest) when none is.
  // First the primitives that make the mesh (triangles with positions), so that its arrays are made once at their
  // size; then their vertices, triangles and weight rows, written straight into those arrays.
  const meshPrimitives: { meshNode: GltfNode; meshIndex: number; primitive: Primitive; k: number; siblings: number }[] = [];
  let vertexCount = 0;
  for (const meshNode of meshNodes) {
    const gltfMesh = meshNode.getMesh()!;
    const meshIndex = root.listMeshes().indexOf(gltfMesh);
    const primitives = gltfMesh.listPrimitives();
    primitives.forEach((primitive, k) => {
      const where = `/meshes/${meshIndex}/primitives/${k}`;
      const mode = primitive.getMode();
      if (mode !== 4 && mode !== 5 && mode !== 6) {
        warnings.push(`${where}: points or lines (mode ${mode}) are left out`);
        return;
      }
      const position = primitive.getAttribute('POSITION');
      if (!position) {
        warnings.push(`${where}: no POSITION attribute; left out`);
        return;
      }
      if (primitive.listTargets().length > 0) warnings.push(`${where}: ${primitive.listTargets().length} morph targets are left out`);
      meshPrimitives.push({ meshNode, meshIndex, primitive, k, siblings: primitives.length });
      vertexCount += position.getCount();
    });
  }
  const vertices: VertexArrays = {
    positions: new Float64Array(3 * vertexCount),
    normals: new Float64Array(3 * vertexCount),
    uvs: new Float32Array(2 * vertexCount),
  };
  const weights: DenseMatrix = { rows: vertexCount, cols: boneCount, data: new Float64Array(vertexCount * boneCount) };
  let anyTexcoords = false;
  const triangleList: number[] = [];
  const parts: MeshPart[] = [];
  const partNames = new Set<string>();
  const materials = root.listMaterials();
  let missingNormals = 0;
  let unweighted = 0;
  let base = 0;
  let placedNode: GltfNode | null = null;
  let placement: Float64Array = new Float64Array(16);
  let normalMatrix: Float64Array = placement;
  for (const { meshNode, meshIndex, primitive, k, siblings } of meshPrimitives) {
    const gltfMesh = meshNode.getMesh()!;
    const skin = meshNode.getSkin();
    const s = skin ? skins.indexOf(skin) : -1;
    if (placedNode !== meshNode) {
      placedNode = meshNode;
      placement = s >= 0 ? skinToWorld[s] : global.subarray(16 * indexOf.get(meshNode)!, 16 * indexOf.get(meshNode)! + 16);
      normalMatrix = normalMatrixOf(Float64Array.from(placement));
    }
    const skinBones = skin ? skin.listJoints().map((node) => boneOfJointNode.get(node)!) : [];
    const rigidBone = skin ? -1 : nearestJoint(indexOf.get(meshNode)!);
    const where = `/meshes/${meshIndex}/primitives/${k}`;
    const mode = primitive.getMode();
    const position = primitive.getAttribute('POSITION')!;
    const triangleBase = triangleList.length / 3;
    const count = position.getCount();
    expectType(position, 'POSITION', ['VEC3']);
    const normal = primitive.getAttribute('NORMAL');
    if (!normal) missingNormals++;
    for (const [semantic, accessor] of primitive.listSemantics().map((name) => [name, primitive.getAttribute(name)!] as const)) {
      if (accessor.getCount() !== count)
        fail(`${where}/attributes/${semantic}`, `${accessor.getCount()} elements for the primitive's ${count} positions`);
    }
    if (normal) expectType(normal, 'NORMAL', ['VEC3']);
    // The set the base colour texture reads (TEXCOORD_0 unless its material names another).
    const uvSet = `TEXCOORD_${baseColorTexCoord(primitive.getMaterial())}`;
    const texcoord = primitive.getAttribute(uvSet);
    if (texcoord) expectType(texcoord, uvSet, ['VEC2']);
    const names = {
      position: `${pointer(position)} (POSITION)`,
      normal: normal ? `${pointer(normal)} (NORMAL)` : '',
      texcoord: texcoord ? `${pointer(texcoord)} (${uvSet})` : '',
    };
    readPrimitiveVertices(position, normal, texcoord, placement, normalMatrix, names, vertices, base, fail);
    if (texcoord) anyTexcoords = true;
    if (skin && !readPrimitiveWeights(primitive, count, skinBones, boneCount, pointer, weights.data, base, fail)) unweighted += count;
    if (rigidBone >= 0) for (let i = 0; i < count; i++) weights.data[(base + i) * boneCount + rigidBone] = 1;
    const indices = primitive.getIndices();
    if (indices) {
      expectType(indices, 'indices', ['SCALAR']);
      if (![5121, 5123, 5125].includes(indices.getComponentType()) || indices.getNormalized())
        fail(pointer(indices), 'indices must be unsigned bytes, shorts or ints, not normalized');
    }
    readTriangles(primitive, count, mode, base, triangleList, fail, where);
    const nodeName = meshNode.getName() || gltfMesh.getName() || `mesh ${meshIndex}`;
    let name = siblings > 1 ? `${nodeName} ${k}` : nodeName;
    for (let n = 2; partNames.has(name); n++) name = `${siblings > 1 ? `${nodeName} ${k}` : nodeName} (${n})`;
    partNames.add(name);
    const material = primitive.getMaterial();
    parts.push({
      name,
      vertexStart: base,
      vertexCount: count,
      triangleStart: triangleBase,
      triangleCount: triangleList.length / 3 - triangleBase,
      material: material ? materials.indexOf(material) : -1,
      source: { node: nodeIndex.get(meshNode)!, mesh: meshIndex, primitive: k },
      skinned: skin !== null,
    });
    base += count;
  }
  return {
    vertices,
    weights,
    triangles: Uint32Array.from(triangleList),
    parts,
    materials,
    vertexCount,
    anyTexcoords,
    missingNormals,
    unweighted,
  };
}

/**
 * A material's base colour, alpha coverage, texture transform, sampler, metallic, roughness and emissive factor, as
 * the viewport and the export need them.
 */
function materialLook(material: Material, m: number): MaterialLook {
  const texture = material.getBaseColorTexture();
  const image = texture?.getImage();
  const factor = material.getBaseColorFactor();
  const [er, eg, eb] = material.getEmissiveFactor();
  return {
    name: material.getName() || `material ${m}`,
    baseColor: [factor[0], factor[1], factor[2], factor[3]],
    baseColorTexture: texture && image ? { bytes: image.slice(), mimeType: texture.getMimeType() } : null,
    doubleSided: material.getDoubleSided(),
    ...readAlphaAndSampling(material),
    metallic: material.getMetallicFactor(),
    roughness: material.getRoughnessFactor(),
    ...(er > 0 || eg > 0 || eb > 0 ? { emissive: [er, eg, eb] as [number, number, number] } : {}),
  };
}

function readTriangles(
  primitive: Primitive,
  count: number,
  mode: number,
  base: number,
  out: number[],
  fail: (w: string, r: string) => never,
  where: string,
): void {
  const indices = primitive.getIndices();
  const n = indices ? indices.getCount() : count;
  const at = (i: number): number => {
    const index = indices ? indices.getScalar(i) : i;
    if (!(index >= 0 && index < count)) fail(`${where} index ${i}`, `vertex ${index} is past the primitive's ${count} vertices`);
    return base + index;
  };
  if (mode === 4) {
    for (let i = 0; i + 2 < n; i += 3) out.push(at(i), at(i + 1), at(i + 2));
  } else if (mode === 5) {
    // Strips alternate winding; swapping every odd triangle keeps them all counter-clockwise.
    for (let i = 0; i + 2 < n; i++) out.push(...(i % 2 === 0 ? [at(i), at(i + 1), at(i + 2)] : [at(i + 1), at(i), at(i + 2)]));
  } else {
    for (let i = 1; i + 1 < n; i++) out.push(at(0), at(i), at(i + 1));
  }
}

/**
 * Bones in skin order: head of bone j = joint j = C · IBM_j⁻¹ · 0. Tail: where the joint node's extras give it
 * (BONE_TAIL_EXTRA, [x, y, z] in the bind frame, as Rigwright writes it), C · IBM_j⁻¹ · tail; else the head of the
 * first child whose head is elsewhere; for a leaf, its parent's direction continued by the parent's length; for a lone root, the bind
 * frame's +Y axis (glTF and Blender bones point along local +Y) at a tenth of the mesh diagonal.
 */
function buildImportedSkeleton(
  toWorld: Float64Array,
  inverseBind: Float64Array,
  parents: Int32Array,
  diagonal: number,
  tails: readonly (readonly number[] | null)[],
  singular: (joint: number) => never,
): Skeleton {
  const boneCount = parents.length;
  const heads = new Float64Array(3 * boneCount);
  const bindFrame = new Float64Array(16 * boneCount);
  const inverse = new Float64Array(16);
  for (let j = 0; j < boneCount; j++) {
    if (!invertAffine(inverseBind, 16 * j, inverse, 0)) singular(j);
    multiply(toWorld, 0, inverse, 0, bindFrame, 16 * j);
    heads[3 * j] = bindFrame[16 * j + 12];
    heads[3 * j + 1] = bindFrame[16 * j + 13];
    heads[3 * j + 2] = bindFrame[16 * j + 14];
  }
  const near = 1e-9 * diagonal;
  const distance = (a: number, b: number): number =>
    Math.hypot(heads[3 * a] - heads[3 * b], heads[3 * a + 1] - heads[3 * b + 1], heads[3 * a + 2] - heads[3 * b + 2]);
  const joints: number[] = Array.from(heads);
  const bones = new Uint32Array(2 * boneCount);
  for (let j = 0; j < boneCount; j++) {
    bones[2 * j] = j;
    const given = tails[j];
    if (given) {
      const f = 16 * j;
      const [tx, ty, tz] = given;
      bones[2 * j + 1] = joints.length / 3;
      for (let r = 0; r < 3; r++)
        joints.push(bindFrame[f + r] * tx + bindFrame[f + 4 + r] * ty + bindFrame[f + 8 + r] * tz + bindFrame[f + 12 + r]);
      continue;
    }
    let tail = -1;
    for (let c = 0; c < boneCount && tail < 0; c++) if (parents[c] === j && distance(c, j) > near) tail = c;
    if (tail >= 0) {
      bones[2 * j + 1] = tail;
      continue;
    }
    const p = parents[j];
    const x = heads[3 * j],
      y = heads[3 * j + 1],
      z = heads[3 * j + 2];
    let dx: number, dy: number, dz: number;
    if (p >= 0 && distance(j, p) > near) {
      dx = x - heads[3 * p];
      dy = y - heads[3 * p + 1];
      dz = z - heads[3 * p + 2];
    } else {
      const f = 16 * j;
      const length = Math.hypot(bindFrame[f + 4], bindFrame[f + 5], bindFrame[f + 6]) || 1;
      const scale = (0.1 * diagonal) / length;
      dx = bindFrame[f + 4] * scale;
      dy = bindFrame[f + 5] * scale;
      dz = bindFrame[f + 6] * scale;
    }
    bones[2 * j + 1] = joints.length / 3;
    joints.push(x + dx, y + dy, z + dz);
  }
  const order = new Uint32Array(boneCount);
  let count = 0;
  for (let b = 0; b < boneCount; b++) if (parents[b] < 0) order[count++] = b;
  for (let head = 0; head < count; head++) for (let c = 0; c < boneCount; c++) if (parents[c] === order[head]) order[count++] = c;
  return { joints: Float64Array.from(joints), bones, parents: Int32Array.from(parents), order };
}

/** Warns when the file's rest node pose puts a joint elsewhere than its bind pose (poses use the bind pose). */
function checkRestPose(
  global: Float64Array,
  jointIndex: number[],
  inverseBind: Float64Array,
  fromWorld: Float64Array,
  skeleton: Skeleton,
  names: string[],
  diagonal: number,
  warnings: string[],
): void {
  const a = new Float64Array(16);
  const moved: string[] = [];
  for (let j = 0; j < jointIndex.length; j++) {
    multiply(global, 16 * jointIndex[j], inverseBind, 16 * j, a, 0);
    multiply(a, 0, fromWorld, 0, a, 0);
    const h = skeleton.joints.subarray(3 * j, 3 * j + 3);
    const p = transformPoint(a, h);
    if (Math.hypot(p[0] - h[0], p[1] - h[1], p[2] - h[2]) > TOLERANCE * diagonal) moved.push(names[j]);
  }
  if (moved.length > 0) {
    warnings.push(
      `the file's rest pose is not its bind pose at ${moved.length} joints (${moved.slice(0, 5).join(', ')}${moved.length > 5 ? ', …' : ''}); bones use the bind pose`,
    );
  }
}
