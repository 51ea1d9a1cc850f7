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
import { GLB_BUFFER, Logger, type Accessor, type Document, type Node as GltfNode, type Primitive } from '@gltf-transform/core';
import { FormatError } from './format-error.ts';
import { readClip, TOLERANCE, type NodeTrs } from './gltf-clips.ts';
import { composeTrs, invertAffine, multiply, normalMatrixOf, readElement, transformNormal, transformPoint } from './gltf-numbers.ts';
import { applyExtensionRules, readGltfDocument } from './gltf-extensions.ts';
import { gltfJson, isGlb, parseJsonText } from './gltf-resource-uris.ts';
import { checkGltf, parseGlb } from './gltf-validate.ts';
import { checkFileSize } from './read-file.ts';
import { excerpt } from './text-scanner.ts';
import type { GltfClip } from './gltf-export.ts';
import type { DenseMatrix, TriangleMesh } from './types.ts';
import type { Skeleton } from '../rig/skeleton.ts';
import { vertexNormals } from '../mesh/vertex-normals.ts';
import { boundingBox } from '../mesh/bounds.ts';

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
  /** one clip per glTF animation at its own key times, rotation matrices (and start-joint translations where joints move) */
  clips: GltfClip[];
  /** what was changed or left out, one sentence each */
  warnings: string[];
}

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
      readClip(animation.listChannels(), name, {
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
        where: `/animations/${a}`,
        pointer,
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
