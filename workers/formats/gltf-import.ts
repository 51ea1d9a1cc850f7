/**
 * Rigged glTF 2.0 import (GLB, or .gltf with its resources) into Rigwright's rig: one merged triangle mesh in the
 * bind pose, one bone per skin joint, #V × #B weights and one rotation-matrix PoseSequence per animation clip.
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
  type Document,
  type AnimationChannel,
  type Node as GltfNode,
  type Primitive,
} from '@gltf-transform/core';
import { FormatError } from './format-error.ts';
import { applyExtensionRules, readGltfDocument } from './gltf-extensions.ts';
import { gltfJson, isGlb, parseJsonText } from './gltf-resource-uris.ts';
import { checkGltf, parseGlb } from './gltf-validate.ts';
import { checkFileSize } from './read-file.ts';
import { excerpt } from './text-scanner.ts';
import type { GltfClip } from './gltf-export.ts';
import type { DenseMatrix, TriangleMesh } from './types.ts';
import type { Skeleton } from '../rig/skeleton.ts';
import { polarDecomposition } from '../math/polar-decomposition.ts';
import { quatNormalize, quatSlerp } from '../math/quaternion.ts';
import { vertexNormals } from '../mesh/vertex-normals.ts';
import { boundingBox } from '../mesh/bounds.ts';

export interface GltfImportOptions {
  /** rate at which animation clips are resampled into rotation-matrix frames */
  framesPerSecond?: number;
}

export const GLTF_IMPORT_DEFAULTS: Required<GltfImportOptions> = {
  framesPerSecond: 30,
};

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
  /** one clip per glTF animation, rotation matrices (and start-joint translations where joints move) at framesPerSecond */
  clips: GltfClip[];
  /** what was changed or left out, one sentence each */
  warnings: string[];
}

/** Tolerance for "weights sum to 1", "no scale", "constant channel" (relative). */
const TOLERANCE = 1e-3;
/** Start-joint translations all below this fraction of the mesh diagonal are round-off of rotations: not stored. */
const TRANSLATION_EPSILON = 1e-7;
/** Longest clip resampled (its last key time), seconds. */
export const MAX_CLIP_SECONDS = 3600;
/** Most frames × (nodes + bones + channels) one clip may cost to resample (bounds time and memory). */
export const MAX_CLIP_WORK = 1e7;

/**
 * Reads a .glb or .gltf into a glTF-Transform Document only after checking it: the required extensions and
 * animation pointers (gltf-extensions.ts), then everything glTF-Transform trusts (counts, offsets, references,
 * hierarchy: gltf-validate.ts), then the reader with its decoders.
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
    const parts = parseGlb(bytes, file);
    json = parseJsonText(parts.jsonBytes, file);
    glbBin = parts.bin;
  } else {
    json = gltfJson(bytes, file);
  }
  applyExtensionRules(json, file, warnings);
  const checked = checkGltf(json, glbBin, resources, GLB_BUFFER, fail, warnings);
  return readGltfDocument(checked.json, checked.resources, file, warnings);
}

/**
 * Reads a rigged glTF asset.
 * @param bytes      .glb, or .gltf JSON (UTF-8)
 * @param file       file name for messages
 * @param resources  external files the .gltf names (see gltfResourceUris), by URI as written; `data:` URIs and
 *                   GLB binary chunks need nothing here
 * @param options    see GltfImportOptions; missing fields take GLTF_IMPORT_DEFAULTS
 * @throws FormatError (naming the import, the file, the place and the reason) for unreadable files, files without
 *         a skinned mesh, joint indices past the skin, or non-finite data, and files requiring an extension that
 *         gltf-extensions.ts refuses
 */
export async function importGltf(
  bytes: Uint8Array,
  file: string,
  resources: Record<string, Uint8Array> = {},
  options?: GltfImportOptions,
): Promise<GltfImportResult> {
  const opts: Required<GltfImportOptions> = { ...GLTF_IMPORT_DEFAULTS, ...options };
  const fail = (where: string, reason: string): never => {
    throw new FormatError(file, where, `glTF import: ${reason}`);
  };
  const warnings: string[] = [];
  const doc = await readCheckedGltf(bytes, file, resources, warnings);
  doc.setLogger(new Logger(Logger.Verbosity.SILENT));
  const root = doc.getRoot();
  const scene = root.getDefaultScene() ?? root.listScenes()[0];
  if (!scene) fail('', 'the file has no scene');

  // Scene nodes, parents before children.
  const nodes: GltfNode[] = [];
  const parentOf: number[] = [];
  const indexOf = new Map<GltfNode, number>();
  // Depth-first without recursion (a chain of thousands of nodes must not overflow the stack); the hierarchy is
  // a forest (checked in checkGltf).
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
  const accessorIndex = new Map(root.listAccessors().map((accessor, a) => [accessor, a]));
  const nodeIndex = new Map(root.listNodes().map((node, n) => [node, n]));
  /** `/accessors/3` for messages. */
  const pointer = (accessor: Accessor): string => `/accessors/${accessorIndex.get(accessor) ?? '?'}`;
  const expectType = (accessor: Accessor, role: string, types: string[]): void => {
    if (!types.includes(accessor.getType())) fail(pointer(accessor), `${role} must be ${types.join(' or ')}, not ${accessor.getType()}`);
  };

  const skinnedNodes = nodes.filter((node) => node.getMesh() && node.getSkin());
  if (skinnedNodes.length === 0) fail('', 'the scene has no skinned mesh (no node with both a mesh and a skin)');
  const skin = skinnedNodes[0].getSkin()!;
  const skinWhere = `/skins/${root.listSkins().indexOf(skin)}`;
  const meshNodes = skinnedNodes.filter((node) => node.getSkin() === skin);
  if (meshNodes.length < skinnedNodes.length) {
    warnings.push(
      `${skinnedNodes.length - meshNodes.length} skinned mesh nodes use another skin than "${skin.getName()}" and are left out`,
    );
  }
  const unskinned = nodes.filter((node) => node.getMesh() && !node.getSkin()).length;
  if (unskinned > 0) warnings.push(`${unskinned} meshes without a skin are left out`);

  const jointNodes = skin.listJoints();
  const boneCount = jointNodes.length;
  if (boneCount === 0) fail(skinWhere, 'the skin has no joints');
  const jointIndex = jointNodes.map((node) => indexOf.get(node) ?? -1);
  jointIndex.forEach((n, j) => {
    if (n < 0)
      fail(
        `${skinWhere}/joints/${j}`,
        `joint node ${nodeIndex.get(jointNodes[j])} ("${excerpt(jointNodes[j].getName())}") is not in the scene`,
      );
  });
  const boneNames = jointNodes.map((node, j) => node.getName() || `joint_${j}`);

  const inverseBind = new Float64Array(16 * boneCount);
  const ibmAccessor = skin.getInverseBindMatrices();
  if (ibmAccessor) expectType(ibmAccessor, 'inverse bind matrices', ['MAT4']);
  for (let j = 0; j < boneCount; j++) {
    if (ibmAccessor) {
      if (ibmAccessor.getCount() < boneCount)
        fail(`${skinWhere}/inverseBindMatrices`, `${ibmAccessor.getCount()} inverse bind matrices for ${boneCount} joints`);
      readElement(ibmAccessor, j, inverseBind, 16 * j, fail, `${pointer(ibmAccessor)} (inverse bind matrix)`);
    } else {
      inverseBind[16 * j] = inverseBind[16 * j + 5] = inverseBind[16 * j + 10] = inverseBind[16 * j + 15] = 1;
    }
  }

  // Rest-pose local and global matrices of all nodes.
  const nodeCount = nodes.length;
  const rest: NodeTrs = {
    translation: new Float64Array(3 * nodeCount),
    rotation: new Float64Array(4 * nodeCount),
    scale: new Float64Array(3 * nodeCount),
  };
  const local = new Float64Array(16 * nodeCount);
  const global = new Float64Array(16 * nodeCount);
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
  // Only joints and their ancestors move joints: the global matrices of other nodes are never needed. Nodes are in
  // depth-first order, so a parent comes before its children here too.
  const needed = new Uint8Array(nodeCount);
  for (const n of jointIndex) for (let k = n; k >= 0 && !needed[k]; k = parentOf[k]) needed[k] = 1;
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

  // C = the root joint's rest joint matrix; its inverse maps world back to the file's bind space.
  const parentBone = new Int32Array(boneCount).fill(-1);
  const boneOfNode = new Int32Array(nodeCount).fill(-1);
  jointIndex.forEach((n, j) => (boneOfNode[n] = j));
  for (let j = 0; j < boneCount; j++) {
    for (let n = parentOf[jointIndex[j]]; n >= 0; n = parentOf[n]) {
      if (boneOfNode[n] >= 0) {
        parentBone[j] = boneOfNode[n];
        break;
      }
    }
  }
  const firstRoot = parentBone.indexOf(-1);
  const toWorld = new Float64Array(16);
  multiply(global, 16 * jointIndex[firstRoot], inverseBind, 16 * firstRoot, toWorld, 0);
  const fromWorld = new Float64Array(16);
  if (!invertAffine(toWorld, 0, fromWorld, 0))
    fail(`${skinWhere}/joints/${firstRoot}`, 'the rest joint matrix of the root joint is singular');

  // Mesh: every triangle primitive of every node that uses the skin.
  const positions: number[] = [];
  const normalsIn: number[] = [];
  const triangles: number[] = [];
  const weightRows: Float64Array[] = [];
  let missingNormals = 0;
  let unweighted = 0;
  const element = new Float64Array(16);
  const normalMatrix = normalMatrixOf(toWorld);
  for (const meshNode of meshNodes) {
    const primitives = meshNode.getMesh()!.listPrimitives();
    primitives.forEach((primitive, k) => {
      const where = `/meshes/${root.listMeshes().indexOf(meshNode.getMesh()!)}/primitives/${k}`;
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
      const base = positions.length / 3;
      const count = position.getCount();
      expectType(position, 'POSITION', ['VEC3']);
      const normal = primitive.getAttribute('NORMAL');
      if (!normal) missingNormals++;
      for (const [semantic, accessor] of primitive.listSemantics().map((name) => [name, primitive.getAttribute(name)!] as const)) {
        if (accessor.getCount() !== count)
          fail(`${where}/attributes/${semantic}`, `${accessor.getCount()} elements for the primitive's ${count} positions`);
      }
      if (normal) expectType(normal, 'NORMAL', ['VEC3']);
      for (let i = 0; i < count; i++) {
        readElement(position, i, element, 0, fail, `${pointer(position)} (POSITION)`);
        positions.push(...transformPoint(toWorld, element));
        if (normal) {
          readElement(normal, i, element, 0, fail, `${pointer(normal)} (NORMAL)`);
          normalsIn.push(...transformNormal(normalMatrix, element));
        } else {
          normalsIn.push(0, 0, 0);
        }
      }
      const rows = readWeights(primitive, count, boneCount, pointer, fail);
      if (!rows) unweighted += count;
      for (let i = 0; i < count; i++)
        weightRows.push(rows ? rows.subarray(i * boneCount, (i + 1) * boneCount) : new Float64Array(boneCount));
      const indices = primitive.getIndices();
      if (indices) {
        expectType(indices, 'indices', ['SCALAR']);
        if (![5121, 5123, 5125].includes(indices.getComponentType()) || indices.getNormalized())
          fail(pointer(indices), 'indices must be unsigned bytes, shorts or ints, not normalized');
      }
      triangleList(primitive, count, mode, base, triangles, fail, where);
    });
  }
  const vertexCount = positions.length / 3;
  if (vertexCount === 0 || triangles.length === 0) fail('', 'the skinned meshes have no triangles');
  const mesh: TriangleMesh = { positions: Float64Array.from(positions), triangles: Uint32Array.from(triangles) };
  const normals = Float64Array.from(normalsIn);
  if (missingNormals > 0) {
    const computed = vertexNormals(mesh.positions, mesh.triangles);
    for (let i = 0; i < normals.length; i += 3) {
      if (normals[i] === 0 && normals[i + 1] === 0 && normals[i + 2] === 0) normals.set(computed.subarray(i, i + 3), i);
    }
    warnings.push(`${missingNormals} primitives have no normals; area-weighted vertex normals were computed`);
  }
  if (unweighted > 0) warnings.push(`${unweighted} vertices have no JOINTS_0/WEIGHTS_0 and stay at rest`);

  const weights: DenseMatrix = { rows: vertexCount, cols: boneCount, data: new Float64Array(vertexCount * boneCount) };
  weightRows.forEach((row, v) => weights.data.set(row, v * boneCount));
  normalizeWeights(weights, warnings);

  const diagonal = boundingBox(mesh.positions).diagonal || 1;
  const skeleton = buildImportedSkeleton(toWorld, inverseBind, parentBone, diagonal, (j) =>
    fail(`${skinWhere}/joints/${j}`, `the inverse bind matrix of joint ${j} ("${excerpt(boneNames[j])}") is singular`),
  );
  checkRestPose(global, jointIndex, inverseBind, fromWorld, skeleton, boneNames, diagonal, warnings);

  const clips: GltfClip[] = [];
  const usedNames = new Set<string>();
  root.listAnimations().forEach((animation, a) => {
    let name = animation.getName() || `animation ${a}`;
    while (usedNames.has(name)) name = `${name} (${a})`;
    usedNames.add(name);
    clips.push(
      resampleClip(animation.listChannels(), name, {
        indexOf,
        rest,
        global,
        composeGlobals,
        jointIndex,
        inverseBind,
        fromWorld,
        parentBone,
        heads: skeleton.joints,
        framesPerSecond: opts.framesPerSecond,
        diagonal,
        warnings,
        fail,
        where: `/animations/${a}`,
        pointer,
        nodeCount: composeOrder.length,
      }),
    );
  });

  // Finite inputs can still overflow once multiplied (1e38 translations, scales): nothing non-finite leaves here.
  const overflow = (what: string, data: Float64Array): void => {
    if (!data.every(Number.isFinite))
      fail('', `the ${what} are not finite numbers once the node transforms are applied (values too large)`);
  };
  overflow('mesh positions', mesh.positions);
  overflow('normals', normals);
  overflow('bone positions', skeleton.joints);
  overflow('weights', weights.data);
  const name = meshNodes[0].getName() || meshNodes[0].getMesh()!.getName() || 'mesh';
  return { name, mesh, normals, skeleton, boneNames, weights, clips, warnings };
}

/** Reads one accessor element (denormalized), refusing NaN and infinities. */
function readElement(
  accessor: Accessor,
  index: number,
  out: Float64Array,
  offset: number,
  fail: (w: string, r: string) => never,
  what: string,
): void {
  const value: number[] = accessor.getElement(index, []);
  for (let k = 0; k < value.length; k++) {
    if (!Number.isFinite(value[k])) fail(`${what} element ${index}`, `value ${value[k]} is not a finite number`);
    out[offset + k] = value[k];
  }
}

/** #count × #B weights of a primitive from all JOINTS_n/WEIGHTS_n sets, or null when it has none. */
function readWeights(
  primitive: Primitive,
  count: number,
  boneCount: number,
  pointer: (accessor: Accessor) => string,
  fail: (w: string, r: string) => never,
): Float64Array | null {
  if (!primitive.getAttribute('JOINTS_0') || !primitive.getAttribute('WEIGHTS_0')) return null;
  const rows = new Float64Array(count * boneCount);
  const joint = new Float64Array(4);
  const weight = new Float64Array(4);
  for (let set = 0; ; set++) {
    const joints = primitive.getAttribute(`JOINTS_${set}`);
    const values = primitive.getAttribute(`WEIGHTS_${set}`);
    if (!joints || !values) break;
    // Joint indices are whole numbers: a normalized or float JOINTS_n would turn them into fractions that name no
    // joint, and the weights would vanish.
    if (joints.getType() !== 'VEC4' || ![5121, 5123].includes(joints.getComponentType()))
      fail(pointer(joints), `JOINTS_${set} must be VEC4 of unsigned bytes or shorts (glTF 2.0 §3.7.3.3)`);
    if (joints.getNormalized()) fail(pointer(joints), `JOINTS_${set} is marked normalized; joint indices must be whole numbers`);
    if (values.getType() !== 'VEC4') fail(pointer(values), `WEIGHTS_${set} must be VEC4, not ${values.getType()}`);
    if (values.getComponentType() !== 5126 && !(values.getNormalized() && [5121, 5123].includes(values.getComponentType())))
      fail(pointer(values), `WEIGHTS_${set} must be floats or normalized unsigned bytes or shorts`);
    for (let i = 0; i < count; i++) {
      readElement(joints, i, joint, 0, fail, `${pointer(joints)} (JOINTS_${set})`);
      readElement(values, i, weight, 0, fail, `${pointer(values)} (WEIGHTS_${set})`);
      for (let k = 0; k < 4; k++) {
        if (weight[k] === 0) continue;
        if (!(joint[k] >= 0 && joint[k] < boneCount))
          fail(`${pointer(joints)} (JOINTS_${set}) element ${i}`, `joint ${joint[k]} is past the skin's ${boneCount} joints`);
        rows[i * boneCount + joint[k]] += weight[k];
      }
    }
  }
  return rows;
}

/** Rows scaled to sum 1; negative weights become 0. Reports rows that needed it. */
function normalizeWeights(weights: DenseMatrix, warnings: string[]): void {
  const { rows, cols, data } = weights;
  let off = 0;
  let worst = 1;
  let negative = 0;
  for (let v = 0; v < rows; v++) {
    let sum = 0;
    for (let b = 0; b < cols; b++) {
      if (data[v * cols + b] < 0) {
        data[v * cols + b] = 0;
        negative++;
      }
      sum += data[v * cols + b];
    }
    if (sum === 0) continue;
    if (Math.abs(sum - 1) > TOLERANCE) {
      off++;
      if (Math.abs(sum - 1) > Math.abs(worst - 1)) worst = sum;
    }
    for (let b = 0; b < cols; b++) data[v * cols + b] /= sum;
  }
  if (negative > 0) warnings.push(`${negative} negative weights were set to 0`);
  if (off > 0) warnings.push(`${off} vertices have weights that do not sum to 1 (farthest: ${worst.toPrecision(4)}); normalized`);
}

function triangleList(
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
 * Bones in skin order: head of bone j = joint j = C · IBM_j⁻¹ · 0. Tail: the head of the first child whose head
 * is elsewhere; for a leaf, its parent's direction continued by the parent's length; for a lone root, the bind
 * frame's +Y axis (glTF and Blender bones point along local +Y) at a tenth of the mesh diagonal.
 */
function buildImportedSkeleton(
  toWorld: Float64Array,
  inverseBind: Float64Array,
  parents: Int32Array,
  diagonal: number,
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

/** Local translation, rotation (x y z w) and scale of every scene node. */
interface NodeTrs {
  translation: Float64Array;
  rotation: Float64Array;
  scale: Float64Array;
}

interface ClipContext {
  indexOf: Map<GltfNode, number>;
  rest: NodeTrs;
  global: Float64Array;
  composeGlobals: (trs: NodeTrs) => void;
  jointIndex: number[];
  inverseBind: Float64Array;
  fromWorld: Float64Array;
  parentBone: Int32Array;
  /** bone heads (skeleton joints 0 … #B − 1) */
  heads: Float64Array;
  framesPerSecond: number;
  diagonal: number;
  warnings: string[];
  fail: (where: string, reason: string) => never;
  /** the animation's JSON pointer */
  where: string;
  pointer: (accessor: Accessor) => string;
  /** nodes composed per frame (joints and their ancestors) */
  nodeCount: number;
}

interface SampledChannel {
  node: number;
  path: 'rotation' | 'translation' | 'scale';
  times: Float64Array;
  values: Float64Array;
  interpolation: string;
}

/**
 * One glTF animation as relative rotation matrices, plus start-joint translations when joints move beyond their
 * parents' rotations, resampled at framesPerSecond from t = 0 to the last key (frame count ⌈duration · fps⌉ + 1;
 * the last frame is clamped to the last key's time).
 */
function resampleClip(channels: AnimationChannel[], name: string, ctx: ClipContext): GltfClip {
  const { indexOf, rest, global, jointIndex, inverseBind, fromWorld, parentBone, heads, framesPerSecond, diagonal, warnings } = ctx;
  const boneCount = jointIndex.length;
  const sampled: SampledChannel[] = [];
  const dropped: string[] = [];
  let duration = 0;
  for (const channel of channels) {
    const sampler = channel.getSampler();
    const target = channel.getTargetNode();
    const path = channel.getTargetPath();
    if (!sampler || !target || !sampler.getInput() || !sampler.getOutput()) continue;
    const node = indexOf.get(target);
    if (node === undefined) continue;
    if (path === 'weights') {
      dropped.push(`morph weights of "${target.getName()}"`);
      continue;
    }
    if (path !== 'rotation' && path !== 'translation' && path !== 'scale') continue;
    const input = sampler.getInput()!;
    const output = sampler.getOutput()!;
    const { fail, pointer } = ctx;
    if (input.getType() !== 'SCALAR' || input.getComponentType() !== 5126) fail(pointer(input), 'key times must be SCALAR floats');
    const times = Float64Array.from({ length: input.getCount() }, (_, i) => input.getScalar(i));
    for (let i = 0; i < times.length; i++) {
      if (!Number.isFinite(times[i]) || times[i] < 0) fail(pointer(input), `key time ${i} is ${times[i]}; key times are finite and ≥ 0`);
      if (i > 0 && times[i] < times[i - 1])
        fail(pointer(input), `key time ${i} (${times[i]} s) comes before key time ${i - 1} (${times[i - 1]} s)`);
    }
    const width = path === 'rotation' ? 4 : 3;
    if (output.getElementSize() !== width)
      fail(pointer(output), `${path} values must be ${width === 4 ? 'VEC4' : 'VEC3'}, not ${output.getType()}`);
    const interpolation = sampler.getInterpolation();
    const perKey = interpolation === 'CUBICSPLINE' ? 3 : 1;
    if (output.getCount() !== perKey * times.length)
      fail(pointer(output), `${output.getCount()} ${path} values for ${times.length} key times (${interpolation} needs ${perKey} per key)`);
    const values = new Float64Array(output.getCount() * width);
    for (let i = 0; i < output.getCount(); i++)
      readElement(output, i, values, i * width, fail, `${pointer(output)} (animation "${excerpt(name)}")`);
    if (path === 'rotation') {
      for (let k = perKey === 3 ? 1 : 0; k < output.getCount(); k += perKey) {
        const length = Math.hypot(values[4 * k], values[4 * k + 1], values[4 * k + 2], values[4 * k + 3]);
        if (!(length > 1e-12 && Number.isFinite(length)))
          fail(
            `${pointer(output)} element ${k}`,
            `the rotation (${Array.from(values.subarray(4 * k, 4 * k + 4)).join(', ')}) is not a usable quaternion (length ${length})`,
          );
      }
    }
    duration = Math.max(duration, times.length > 0 ? times[times.length - 1] : 0);
    sampled.push({ node, path, times, values, interpolation });
  }
  if (dropped.length > 0) {
    warnings.push(
      `animation "${name}": ${dropped.slice(0, 4).join(', ')}${dropped.length > 4 ? ` and ${dropped.length - 4} more` : ''} ${dropped.length === 1 ? 'is' : 'are'} animated; Rigwright poses move bones only, so this is left out`,
    );
  }

  // Bounded before anything is allocated: a last key at 1e5 s would otherwise be millions of frames.
  if (duration > MAX_CLIP_SECONDS) {
    ctx.fail(
      ctx.where,
      `animation "${excerpt(name)}" lasts ${duration} s (its last key); Rigwright resamples clips of at most ${MAX_CLIP_SECONDS} s (${MAX_CLIP_SECONDS * framesPerSecond} frames at ${framesPerSecond} per second)`,
    );
  }
  const frameCount = Math.max(1, Math.ceil(duration * framesPerSecond - 1e-6) + 1);
  const work = frameCount * (ctx.nodeCount + boneCount + sampled.length);
  if (work > MAX_CLIP_WORK) {
    ctx.fail(
      ctx.where,
      `animation "${excerpt(name)}" needs ${frameCount} frames of ${boneCount} bones and ${ctx.nodeCount} nodes, more than Rigwright resamples in one clip (${MAX_CLIP_WORK} frame × node steps)`,
    );
  }
  const out = new Float64Array(9 * boneCount * frameCount);
  const translations = new Float64Array(3 * boneCount * frameCount);
  const current: NodeTrs = { translation: rest.translation.slice(), rotation: rest.rotation.slice(), scale: rest.scale.slice() };
  const jointMatrices = new Float64Array(16 * boneCount);
  const posedHeads = new Float64Array(3 * boneCount);
  const absolute = new Float64Array(9 * boneCount);
  const linear = new Float64Array(9);
  const stretch = new Float64Array(9);
  let worstScale = 0;
  let farthest = 0;
  for (let f = 0; f < frameCount; f++) {
    const time = Math.min(f / framesPerSecond, duration);
    current.translation.set(rest.translation);
    current.rotation.set(rest.rotation);
    current.scale.set(rest.scale);
    for (const channel of sampled) {
      if (channel.path === 'rotation') sampleRotation(channel, time, current.rotation, 4 * channel.node);
      else sampleVector(channel, time, channel.path === 'translation' ? current.translation : current.scale, 3 * channel.node);
    }
    ctx.composeGlobals(current);
    for (let j = 0; j < boneCount; j++) {
      const a = 16 * j;
      multiply(global, 16 * jointIndex[j], inverseBind, 16 * j, jointMatrices, a);
      multiply(jointMatrices, a, fromWorld, 0, jointMatrices, a);
      for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) linear[3 * r + c] = jointMatrices[a + 4 * c + r];
      polarDecomposition(linear, 0, absolute, 9 * j, stretch, 0);
      for (let r = 0; r < 3; r++)
        for (let c = 0; c < 3; c++) worstScale = Math.max(worstScale, Math.abs(stretch[3 * r + c] - (r === c ? 1 : 0)));
    }
    for (let j = 0; j < boneCount; j++)
      posedHeads.set(transformPoint(jointMatrices.subarray(16 * j, 16 * j + 16), heads.subarray(3 * j, 3 * j + 3)), 3 * j);
    for (let j = 0; j < boneCount; j++) {
      const o = 9 * (f * boneCount + j);
      const p = parentBone[j];
      // Where the file puts this bone's head, against where our rigid parent bone (its posed head, its rotation)
      // carries it: P_p + Q_p (h_j − h_p); for a root, against the rest head.
      let dx = posedHeads[3 * j] - heads[3 * j];
      let dy = posedHeads[3 * j + 1] - heads[3 * j + 1];
      let dz = posedHeads[3 * j + 2] - heads[3 * j + 2];
      if (p >= 0) {
        const ex = heads[3 * j] - heads[3 * p],
          ey = heads[3 * j + 1] - heads[3 * p + 1],
          ez = heads[3 * j + 2] - heads[3 * p + 2];
        const q = 9 * p;
        dx = posedHeads[3 * j] - posedHeads[3 * p] - (absolute[q] * ex + absolute[q + 1] * ey + absolute[q + 2] * ez);
        dy = posedHeads[3 * j + 1] - posedHeads[3 * p + 1] - (absolute[q + 3] * ex + absolute[q + 4] * ey + absolute[q + 5] * ez);
        dz = posedHeads[3 * j + 2] - posedHeads[3 * p + 2] - (absolute[q + 6] * ex + absolute[q + 7] * ey + absolute[q + 8] * ez);
      }
      const t = 3 * (f * boneCount + j);
      if (p < 0) {
        out.set(absolute.subarray(9 * j, 9 * j + 9), o);
        translations[t] = dx;
        translations[t + 1] = dy;
        translations[t + 2] = dz;
        farthest = Math.max(farthest, Math.hypot(dx, dy, dz));
        continue;
      }
      // R_j = Q_pᵀ · Q_j and t_j = Q_pᵀ · d
      for (let r = 0; r < 3; r++) {
        for (let c = 0; c < 3; c++) {
          out[o + 3 * r + c] =
            absolute[9 * p + r] * absolute[9 * j + c] +
            absolute[9 * p + 3 + r] * absolute[9 * j + 3 + c] +
            absolute[9 * p + 6 + r] * absolute[9 * j + 6 + c];
        }
        translations[t + r] = absolute[9 * p + r] * dx + absolute[9 * p + 3 + r] * dy + absolute[9 * p + 6 + r] * dz;
      }
      farthest = Math.max(farthest, Math.hypot(dx, dy, dz));
    }
  }
  ctx.composeGlobals(rest);
  for (let i = 0; i < out.length; i++) {
    if (!Number.isFinite(out[i]))
      ctx.fail(
        ctx.where,
        `animation "${excerpt(name)}" frame ${Math.floor(i / (9 * boneCount))}: the pose is not finite (its transforms are too large)`,
      );
  }
  for (let i = 0; i < translations.length; i++) {
    if (!Number.isFinite(translations[i]))
      ctx.fail(
        ctx.where,
        `animation "${excerpt(name)}" frame ${Math.floor(i / (3 * boneCount))}: a joint moves to a non-finite place (its transforms are too large)`,
      );
  }
  if (worstScale > TOLERANCE)
    warnings.push(
      `animation "${name}": joints scale or shear (up to ${worstScale.toPrecision(3)}); where the joints go is kept, the scaling itself is left out`,
    );
  // Joints that only rotate leave round-off here; a sequence without translations is the plain rotation form.
  const moves = farthest > TRANSLATION_EPSILON * diagonal;
  return {
    name,
    poses: moves
      ? { kind: 'matrices', boneCount, frameCount, rotations: out, translations }
      : { kind: 'matrices', boneCount, frameCount, rotations: out },
  };
}

/** The last key at or before `time`, for times[0] < time < times[n − 1] (binary search). */
function keyBefore(times: Float64Array, time: number): number {
  let lo = 0;
  let hi = times.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (times[mid] <= time) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** The translation or scale channel's value at `time` (STEP, LINEAR, CUBICSPLINE Hermite). */
function sampleVector(channel: SampledChannel, time: number, out: Float64Array, o: number): void {
  const { times, values, interpolation } = channel;
  const n = times.length;
  if (n === 0) return;
  const cubic = interpolation === 'CUBICSPLINE';
  const stride = cubic ? 9 : 3;
  const value = cubic ? 3 : 0;
  if (time <= times[0] || n === 1) {
    for (let c = 0; c < 3; c++) out[o + c] = values[value + c];
    return;
  }
  if (time >= times[n - 1]) {
    for (let c = 0; c < 3; c++) out[o + c] = values[(n - 1) * stride + value + c];
    return;
  }
  const lo = keyBefore(times, time);
  const hi = lo + 1;
  const dt = times[hi] - times[lo];
  const s = dt > 0 ? (time - times[lo]) / dt : 0;
  for (let c = 0; c < 3; c++) {
    const v0 = values[lo * stride + value + c];
    const v1 = values[hi * stride + value + c];
    if (interpolation === 'STEP') {
      out[o + c] = v0;
    } else if (cubic) {
      const s2 = s * s,
        s3 = s2 * s;
      const b0 = values[lo * 9 + 6 + c],
        a1 = values[hi * 9 + c];
      out[o + c] = (2 * s3 - 3 * s2 + 1) * v0 + (s3 - 2 * s2 + s) * dt * b0 + (-2 * s3 + 3 * s2) * v1 + (s3 - s2) * dt * a1;
    } else {
      out[o + c] = v0 + s * (v1 - v0);
    }
  }
}

const slerpA = new Float64Array(4);
const slerpB = new Float64Array(4);

/** The rotation channel's value at `time` (glTF 2.0 Appendix C: STEP, LINEAR = SLERP, CUBICSPLINE = Hermite). */
function sampleRotation(channel: SampledChannel, time: number, out: Float64Array, o: number): void {
  const { times, values, interpolation } = channel;
  const n = times.length;
  if (n === 0) return;
  const cubic = interpolation === 'CUBICSPLINE';
  const stride = cubic ? 12 : 4;
  const valueAt = (k: number, target: Float64Array, to: number): void => {
    for (let c = 0; c < 4; c++) target[to + c] = values[k * stride + (cubic ? 4 : 0) + c];
  };
  if (time <= times[0] || n === 1) {
    valueAt(0, out, o);
    quatNormalize(out, o, out, o);
    return;
  }
  if (time >= times[n - 1]) {
    valueAt(n - 1, out, o);
    quatNormalize(out, o, out, o);
    return;
  }
  const lo = keyBefore(times, time);
  const hi = lo + 1;
  const dt = times[hi] - times[lo];
  const s = dt > 0 ? (time - times[lo]) / dt : 0;
  if (interpolation === 'STEP') {
    valueAt(lo, out, o);
  } else if (cubic) {
    const s2 = s * s,
      s3 = s2 * s;
    const h00 = 2 * s3 - 3 * s2 + 1,
      h10 = s3 - 2 * s2 + s,
      h01 = -2 * s3 + 3 * s2,
      h11 = s3 - s2;
    for (let c = 0; c < 4; c++) {
      const v0 = values[lo * 12 + 4 + c],
        b0 = values[lo * 12 + 8 + c];
      const v1 = values[hi * 12 + 4 + c],
        a1 = values[hi * 12 + c];
      out[o + c] = h00 * v0 + h10 * dt * b0 + h01 * v1 + h11 * dt * a1;
    }
  } else {
    valueAt(lo, slerpA, 0);
    valueAt(hi, slerpB, 0);
    quatNormalize(slerpA, 0, slerpA, 0);
    quatNormalize(slerpB, 0, slerpB, 0);
    quatSlerp(slerpA, 0, slerpB, 0, s, out, o);
  }
  quatNormalize(out, o, out, o);
}

// --- 4×4 matrices, column-major as in glTF: entry (row r, column c) is m[4c + r] ---

function composeTrs(
  t: Float64Array,
  ti: number,
  q: Float64Array,
  qi: number,
  s: Float64Array,
  si: number,
  out: Float64Array,
  o: number,
): void {
  const x = q[qi],
    y = q[qi + 1],
    z = q[qi + 2],
    w = q[qi + 3];
  const n = x * x + y * y + z * z + w * w;
  const k = n > 0 ? 2 / n : 0;
  const xx = x * x * k,
    yy = y * y * k,
    zz = z * z * k,
    xy = x * y * k,
    xz = x * z * k,
    yz = y * z * k,
    wx = w * x * k,
    wy = w * y * k,
    wz = w * z * k;
  out[o] = (1 - yy - zz) * s[si];
  out[o + 1] = (xy + wz) * s[si];
  out[o + 2] = (xz - wy) * s[si];
  out[o + 3] = 0;
  out[o + 4] = (xy - wz) * s[si + 1];
  out[o + 5] = (1 - xx - zz) * s[si + 1];
  out[o + 6] = (yz + wx) * s[si + 1];
  out[o + 7] = 0;
  out[o + 8] = (xz + wy) * s[si + 2];
  out[o + 9] = (yz - wx) * s[si + 2];
  out[o + 10] = (1 - xx - yy) * s[si + 2];
  out[o + 11] = 0;
  out[o + 12] = t[ti];
  out[o + 13] = t[ti + 1];
  out[o + 14] = t[ti + 2];
  out[o + 15] = 1;
}

const product = new Float64Array(16);

/** out = a · b (out may alias a or b). */
function multiply(a: Float64Array, ai: number, b: Float64Array, bi: number, out: Float64Array, o: number): void {
  for (let c = 0; c < 4; c++) {
    for (let r = 0; r < 4; r++) {
      product[4 * c + r] =
        a[ai + r] * b[bi + 4 * c] +
        a[ai + 4 + r] * b[bi + 4 * c + 1] +
        a[ai + 8 + r] * b[bi + 4 * c + 2] +
        a[ai + 12 + r] * b[bi + 4 * c + 3];
    }
  }
  out.set(product, o);
}

/** Inverse of an affine 4×4 matrix (last row 0 0 0 1); false when its linear part is singular. */
function invertAffine(m: Float64Array, mi: number, out: Float64Array, o: number): boolean {
  const a = m[mi],
    b = m[mi + 4],
    c = m[mi + 8];
  const d = m[mi + 1],
    e = m[mi + 5],
    f = m[mi + 9];
  const g = m[mi + 2],
    h = m[mi + 6],
    i = m[mi + 10];
  const A = e * i - f * h,
    B = f * g - d * i,
    C = d * h - e * g;
  const det = a * A + b * B + c * C;
  if (!(Math.abs(det) > 1e-300)) return false;
  const s = 1 / det;
  const inv = [
    A * s,
    (c * h - b * i) * s,
    (b * f - c * e) * s,
    B * s,
    (a * i - c * g) * s,
    (c * d - a * f) * s,
    C * s,
    (b * g - a * h) * s,
    (a * e - b * d) * s,
  ];
  const tx = m[mi + 12],
    ty = m[mi + 13],
    tz = m[mi + 14];
  for (let r = 0; r < 3; r++) {
    out[o + r] = inv[3 * r];
    out[o + 4 + r] = inv[3 * r + 1];
    out[o + 8 + r] = inv[3 * r + 2];
    out[o + 3 + 4 * r] = 0;
    out[o + 12 + r] = -(inv[3 * r] * tx + inv[3 * r + 1] * ty + inv[3 * r + 2] * tz);
  }
  out[o + 15] = 1;
  return true;
}

function transformPoint(m: Float64Array, p: ArrayLike<number>): [number, number, number] {
  return [
    m[0] * p[0] + m[4] * p[1] + m[8] * p[2] + m[12],
    m[1] * p[0] + m[5] * p[1] + m[9] * p[2] + m[13],
    m[2] * p[0] + m[6] * p[1] + m[10] * p[2] + m[14],
  ];
}

/** Row-major 3×3 inverse transpose of m's linear part (normals map by it). */
function normalMatrixOf(m: Float64Array): Float64Array {
  const inverse = new Float64Array(16);
  invertAffine(m, 0, inverse, 0);
  const out = new Float64Array(9);
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) out[3 * r + c] = inverse[4 * r + c];
  return out;
}

function transformNormal(n9: Float64Array, v: ArrayLike<number>): [number, number, number] {
  const x = n9[0] * v[0] + n9[1] * v[1] + n9[2] * v[2];
  const y = n9[3] * v[0] + n9[4] * v[1] + n9[5] * v[2];
  const z = n9[6] * v[0] + n9[7] * v[1] + n9[8] * v[2];
  const length = Math.hypot(x, y, z);
  return length > 0 ? [x / length, y / length, z / length] : [0, 0, 1];
}
