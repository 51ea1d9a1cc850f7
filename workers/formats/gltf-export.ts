/**
 * Skinned glTF 2.0 export (GLB, or .gltf + .bin) with glTF-Transform's platform-neutral Document and WebIO.
 *
 * Rig mapping: every bone becomes one joint node, placed at the bone's rest START joint r_b and parented to its
 * parent bone's node (local translation r_b − r_parent, or r_b for a root), with no rest rotation. Its inverse
 * bind matrix is the translation by −r_b. Animating the node's rotation with our relative rotation R_b then
 * reproduces forward kinematics exactly: with the world matrix G_b = G_p · T(r_b − r_p) · R_b, the joint matrix
 * G_b · T(−r_b) = [Q_p R_b | T_p + Q_p r_b − Q_b r_b], which is libigl's [Q_b | T_b] (rig/forward-kinematics.ts).
 * A pose's start-joint translation t_b animates the node's translation to r_b − r_p + t_b, giving
 * [Q_b | T_p + Q_p (r_b + t_b) − Q_b r_b], forward kinematics with translations.
 * The joint nodes are exactly the bones, with their names: a bone whose start is away from its parent's end is still
 * one node (connector bones belong to TGF only). Rest positions are rounded to a float32 grid (gridJointPositions in
 * gltf-export-parts.ts) so that each inverse bind matrix is exactly the inverse of its joint's rest world matrix.
 * Several root bones hang below one node that is not a joint, the common root a skin needs.
 *
 * Meshes: each part of the scene (MeshPart) is one mesh node; skinned parts share the one skin. A part without weight
 * is static (a mesh node without a skin at the scene's root), a part held unskinned whose vertices all hang on one
 * bone is rigid (a mesh node without a skin below that bone's joint node): see partBinding. TEXCOORD_0 and NORMAL
 * come from the OBJ corners (vertices split per distinct corner) or from the look's per-vertex uvs; materials from
 * the look (gltf-export-parts.ts).
 */
import {
  PoseSpaceError,
  poseSpaceInterpolator,
  poseSpaceWeights,
  type PoseSpaceInterpolator,
  type RbfKernel,
} from '../posespace/pose-space-weights.ts';
import { unposeExamples } from '../posespace/unpose.ts';
import {
  Document,
  Format,
  WebIO,
  type Accessor,
  type Extension,
  type Animation,
  type Mesh as GltfMesh,
  type Node as GltfNode,
  type Primitive,
} from '@gltf-transform/core';
import { CollectingLogger } from './gltf-collecting-logger.ts';
import { bufferUris } from './gltf-resource-uris.ts';
import { FormatError } from './format-error.ts';
import type { GltfCompression } from './gltf-extensions.ts';
import { quantizeSkinWeights, type GltfWeightComponent } from './gltf-skin-weights.ts';
import { vertexAnimationCost, type GltfVertexAnimation } from './gltf-vertex-animation.ts';
import {
  BONE_TAIL_EXTRA,
  bonesWithoutChildTail,
  checkCorners,
  checkedParts,
  checkLook,
  gridJointPositions,
  lookMaterials,
  partBinding,
  partLayout,
} from './gltf-export-parts.ts';
import { vertexTangents } from './vertex-tangents.ts';
import { lookExtensions } from './material-look.ts';
import type { DenseMatrix, MeshPart, ObjCorners, SurfaceLook, TriangleMesh } from './types.ts';
import type { Skeleton } from '../rig/skeleton.ts';
import { identityPose, samplePose, type PoseSequence } from '../rig/pose-sequence.ts';
import { boneInterpolation, type KeyInterpolation } from '../rig/keyframe-curves.ts';
import { exactJointCurves } from './gltf-export-curves.ts';
import { matrixToQuat } from '../math/quaternion.ts';
import { influencesFromWeights } from '../skinning/influences.ts';
import { vertexNormals } from '../mesh/vertex-normals.ts';

/** A named pose sequence: one animation clip. */
export interface GltfClip {
  name: string;
  poses: PoseSequence;
  /**
   * the animation index in the source glTF. A clip that still carries `source` is unchanged: in-place export leaves
   * that animation exactly as it is in the file. Any edit of a clip in the app (bake, edit, new clip from a DMAT)
   * makes a clip without `source`, which export writes.
   */
  source?: number;
  /**
   * the animation index in the source glTF this clip was made from (a bake of it), when it no longer is that
   * animation: in-place export moves that animation's channels the scene does not pose with (KHR_animation_pointer
   * on materials, lights, …) into the animation it writes for this clip
   */
  from?: number;
}

/** What is exported. Bones are indexed in skeleton order; skin joint k is bone k. */
export interface GltfRig {
  mesh: TriangleMesh;
  /** #V × 3 unit normals; computed (area-weighted) when missing */
  normals?: Float64Array;
  skeleton: Skeleton;
  /** #V × #B weights, row-major */
  weights: DenseMatrix;
  /** #B joint node names; default `bone_<b>` */
  boneNames?: readonly string[];
  clips?: readonly GltfClip[];
  /** deformations glTF skinning cannot express, baked as morph targets (gltf-vertex-animation.ts) */
  vertexAnimations?: readonly GltfVertexAnimation[];
  /** example shapes as morph targets driven by their pose-space weights (context LBS), see GltfPoseSpace */
  poseSpace?: GltfPoseSpace;
  /** mesh and mesh node name when there are no parts, and the scene's; default 'mesh' */
  name?: string;
  /** the meshes, each written as its own mesh node (skinned ones on the one skin); absent: one mesh of everything */
  parts?: readonly MeshPart[];
  /** texture coordinates (TEXCOORD_0, when there are no OBJ corners) and the materials parts name */
  look?: SurfaceLook;
  /** OBJ vt/vn per triangle corner: TEXCOORD_0 and NORMAL, splitting vertices where corners of one vertex differ */
  objCorners?: ObjCorners;
}

/**
 * Per-vertex context LBS (workers/posespace/context-skinning.ts), v = T(P) (v0 + Σ_j a_j(P) δ_j), in glTF terms:
 * glTF applies morph targets before skinning (glTF 2.0 §3.7.2 and §3.7.3), so targets holding the examples'
 * rest-space displacements δ_j, with the weights a_j(P(t)) animated in every clip, are exactly context LBS at every
 * keyframe, in any player. Weights outside [0, 1] are split over two targets per example (planExampleTargets).
 * Example targets come first on the mesh (then baked vertex animations); the mesh's default weights are those of
 * the rest pose; each clip gets a `weights` channel keyed like its rotations.
 */
export interface GltfPoseSpace {
  /** J example names: the targets' names (mesh extras.targetNames, read by three.js and Blender; "<name> −" for negative parts) */
  names: readonly string[];
  /** J × #V × 3 rest-space displacements δ_j (unposed through LBS), example-major */
  displacements: Float64Array;
  /** the examples' RBF interpolator (plain data, so the export can run in a worker): a_j(P) by poseSpaceWeights */
  interpolator: PoseSpaceInterpolator;
}

/** Examples as the app holds them: the export unposes them itself (examplePoseSpace). */
export interface GltfExamples {
  /** J names, the targets' names */
  names: readonly string[];
  /** each example's #V × 3 positions */
  positions: readonly Float64Array[];
  /** each example's #B × 9 relative rotations, the pose it was sculpted in */
  poses: readonly Float64Array[];
  kernel: RbfKernel;
}

/**
 * The GltfPoseSpace of `examples`: unposed through LBS with the influences the file stores (`influences` per vertex,
 * from the rig's weights), so that a player's LBS of the morphed rest mesh gives each example back at its pose.
 * @returns the pose space, and a warning per example with near-singular vertices (they get no displacement)
 * @throws FormatError naming the examples when their pose-space weights cannot be solved (two with the same pose)
 */
export function examplePoseSpace(
  rig: Pick<GltfRig, 'mesh' | 'skeleton' | 'weights'>,
  examples: GltfExamples,
  influences: number,
): { poseSpace: GltfPoseSpace; warnings: string[] } {
  const B = rig.skeleton.parents.length;
  const poses = new Float64Array(examples.poses.length * 9 * B);
  examples.poses.forEach((pose, j) => poses.set(pose, j * 9 * B));
  let interpolator: PoseSpaceInterpolator;
  try {
    interpolator = poseSpaceInterpolator(poses, B, examples.names, { kernel: examples.kernel });
  } catch (error) {
    if (!(error instanceof PoseSpaceError)) throw error;
    throw new FormatError(error.examples.join(', '), '', `glTF export: ${error.message}`);
  }
  const stored = influencesFromWeights(rig.weights, influences);
  const list = examples.positions.map((positions, j) => ({ positions, pose: examples.poses[j] }));
  const { displacements, singularVertices } = unposeExamples(rig.mesh.positions, list, rig.skeleton, stored, 'lbs', 'per-vertex');
  const warnings = singularVertices.flatMap((singular, j) =>
    singular.length > 0
      ? [`example ${examples.names[j]}: ${singular.length} near-singular vertices keep no displacement (they follow plain skinning)`]
      : [],
  );
  return { poseSpace: { names: examples.names, displacements, interpolator }, warnings };
}

export interface GltfExportOptions {
  /** 'glb': one binary file; 'gltf': JSON plus one .bin resource */
  format?: 'glb' | 'gltf';
  /**
   * most influences per vertex, 1 … 8: the largest kept, renormalized; up to 4 are stored in JOINTS_0/WEIGHTS_0, more
   * add JOINTS_1/WEIGHTS_1 (which many viewers ignore)
   */
  influences?: number;
  /** stored type of WEIGHTS_n; integers are normalized and sum exactly to 255 / 65535 per vertex */
  weightComponent?: GltfWeightComponent;
  /** keyframe rate of rotation-matrix pose sequences and vertex animations without key times (pose files) */
  framesPerSecond?: number;
  /** name of the .bin resource without extension (format 'gltf') */
  basename?: string;
  /** geometry compression, written as a required extension (see compressOnWrite in gltf-extensions.ts) */
  compression?: GltfCompression;
}

export const GLTF_EXPORT_DEFAULTS: Required<GltfExportOptions> = {
  format: 'glb',
  influences: 4,
  weightComponent: 'float',
  framesPerSecond: 30,
  basename: 'model',
  compression: 'none',
};

/** The exported file: `bytes` is the GLB or the .gltf JSON (UTF-8); `resources` maps a URI to its bytes. */
export interface GltfExportResult {
  bytes: Uint8Array;
  resources: Record<string, Uint8Array>;
  /** what the file cannot say as we do (dropped weight, viewer support), one sentence each */
  warnings: string[];
}

/**
 * Writes a skinned, animated glTF 2.0 asset.
 * @param rig      mesh (#V positions, #F triangles), optional normals, skeleton (#B bones), #V × #B weights, clips,
 *                 baked vertex animations
 * @param file     output file name, for messages
 * @param options  see GltfExportOptions; missing fields take GLTF_EXPORT_DEFAULTS
 * @returns the file bytes, external resources and warnings
 * @throws FormatError (naming the export, the file and the reason) when the parts do not fit together
 */
export async function exportGltf(rig: GltfRig, file: string, options?: GltfExportOptions): Promise<GltfExportResult> {
  const opts: Required<GltfExportOptions> = { ...GLTF_EXPORT_DEFAULTS, ...options };
  const fail = (where: string, reason: string): never => {
    throw new FormatError(file, where, `glTF export: ${reason}`);
  };
  const { mesh, skeleton, weights } = rig;
  const vertexCount = mesh.positions.length / 3;
  const boneCount = skeleton.parents.length;
  if (vertexCount === 0) fail('', 'the mesh has no vertices');
  if (boneCount === 0) fail('', 'the skeleton has no bones');
  if (boneCount > 65536) fail('', `${boneCount} bones do not fit glTF joint indices (at most 65536)`);
  if (weights.rows !== vertexCount || weights.cols !== boneCount) {
    fail('weights', `${weights.rows} × ${weights.cols} weights do not fit ${vertexCount} vertices × ${boneCount} bones`);
  }
  if (rig.normals && rig.normals.length !== mesh.positions.length)
    fail('normals', `${rig.normals.length / 3} normals for ${vertexCount} vertices`);
  if (!(Number.isInteger(opts.influences) && opts.influences >= 1 && opts.influences <= 8))
    fail('', `influences must be a whole number from 1 to 8 (up to 4: one joint set, above: two), not ${String(opts.influences)}`);
  if (!(opts.framesPerSecond > 0)) fail('', `frames per second must be positive, not ${opts.framesPerSecond}`);
  for (let i = 0; i < mesh.triangles.length; i++) {
    if (mesh.triangles[i] >= vertexCount)
      fail(`triangle ${Math.floor(i / 3)}`, `names vertex ${mesh.triangles[i]}, but the mesh has ${vertexCount}`);
  }
  const names = rig.boneNames ?? Array.from({ length: boneCount }, (_, b) => `bone_${b}`);
  if (names.length !== boneCount) fail('', `${names.length} bone names for ${boneCount} bones`);
  const clipNames = new Set<string>();
  for (const clip of [...(rig.clips ?? []), ...(rig.vertexAnimations ?? [])]) {
    if (clipNames.has(clip.name)) fail(`clip "${clip.name}"`, 'two clips have this name');
    clipNames.add(clip.name);
  }
  for (const clip of rig.clips ?? []) {
    if (clip.poses.boneCount !== boneCount)
      fail(`clip "${clip.name}"`, `poses are for ${clip.poses.boneCount} bones, the skeleton has ${boneCount}`);
  }
  const poseSpace = rig.poseSpace;
  const exampleCount = poseSpace?.names.length ?? 0;
  if (poseSpace && poseSpace.displacements.length !== exampleCount * mesh.positions.length) {
    fail('examples', `${poseSpace.displacements.length / 3} displacements for ${exampleCount} examples × ${vertexCount} vertices`);
  }
  // The examples' weights at the rest pose (the mesh's default weights) and at every key of every clip, K × J each.
  let restExampleWeights: Float64Array = new Float64Array(0);
  let clipExampleWeights: Float64Array[] = [];
  let exampleTargets: ExampleTarget[] = [];
  if (poseSpace && exampleCount > 0) {
    restExampleWeights = examplePoseWeights(poseSpace, [identityPose(boneCount)], fail);
    clipExampleWeights = (rig.clips ?? []).map((clip) => examplePoseWeights(poseSpace, clipKeyPoses(clip.poses), fail));
    exampleTargets = planExampleTargets(poseSpace.names, [restExampleWeights, ...clipExampleWeights]);
  }
  const bakedTargets = (rig.vertexAnimations ?? []).reduce((sum, bake) => sum + bake.frameCount, 0);
  const targetCount = exampleTargets.length + bakedTargets;

  const warnings: string[] = [];
  const doc = new Document();
  doc.setLogger(new CollectingLogger(warnings));
  const buffer = doc.createBuffer();
  const accessor = (
    type: 'SCALAR' | 'VEC2' | 'VEC3' | 'VEC4' | 'MAT4',
    array: Float32Array | Uint8Array | Uint16Array | Uint32Array,
  ): Accessor => doc.createAccessor().setType(type).setArray(array).setBuffer(buffer);

  const look = rig.look;
  if (look) checkLook(mesh, look, fail);
  const parts = checkedParts(mesh, rig.parts, rig.name ?? 'mesh', look?.materials.length ?? 0, fail);
  const corners = rig.objCorners ?? null;
  if (corners) checkCorners(mesh, corners, fail);
  const restNormals = rig.normals ?? vertexNormals(mesh.positions, mesh.triangles);

  const influences = influencesFromWeights(weights, opts.influences);
  const slotCount = influences.stride <= 4 ? 4 : 8;
  const stored = quantizeSkinWeights(influences, slotCount, opts.weightComponent, boneCount);
  if (slotCount === 8) {
    warnings.push(
      'eight influences are stored in JOINTS_0/WEIGHTS_0 and JOINTS_1/WEIGHTS_1; many viewers read only the first set and then skin with a part of the weight',
    );
  }
  const dropped = droppedWeight(weights, opts.influences);
  if (dropped.vertices > 0) {
    warnings.push(
      `${dropped.vertices} vertices have more than ${opts.influences} influences; the weakest are dropped and the rest renormalized (largest weight dropped: ${dropped.largest.toPrecision(3)})`,
    );
  }

  const meshName = rig.name ?? 'mesh';
  const scene = doc.createScene(meshName);
  doc.getRoot().setDefaultScene(scene);
  const materials = look ? lookMaterials(doc, look.materials, warnings, await lookExtensions(look.materials)) : [];
  // One mesh node per part, over its own vertices (split per OBJ corner): skinned parts share the one skin, static
  // ones stay at the scene's root, rigid ones hang below their joint (partBinding).
  let unweighted = 0;
  const rigidParts: { node: GltfNode; bone: number }[] = [];
  for (const part of parts)
    if (part.triangleCount === 0) warnings.push(`mesh "${part.name}" has no triangles, so it is left out (glTF has no empty meshes)`);
  const written: WrittenPart[] = parts
    .filter((part) => part.triangleCount > 0)
    .map((part) => {
      const layout = partLayout(part, mesh.triangles, corners);
      const { map } = layout;
      const n = map.length;
      const positions = new Float32Array(3 * n);
      const normals = new Float64Array(3 * n);
      for (let i = 0; i < n; i++) {
        const v = map[i];
        const vn = layout.normal ? layout.normal[i] : -1;
        for (let c = 0; c < 3; c++) {
          positions[3 * i + c] = mesh.positions[3 * v + c];
          normals[3 * i + c] = vn >= 0 ? corners!.normals[3 * vn + c] : restNormals[3 * v + c];
        }
      }
      const primitive = doc
        .createPrimitive()
        .setAttribute('POSITION', accessor('VEC3', positions))
        .setAttribute('NORMAL', accessor('VEC3', unitNormals(normals)));
      const material = part.material >= 0 ? materials[part.material] : null;
      let uvs: Float32Array | null = null;
      if (layout.texcoord && layout.texcoord.some((t) => t >= 0)) {
        // OBJ puts v = 0 at the bottom of the image, glTF at the top.
        uvs = new Float32Array(2 * n);
        const used = new Uint8Array(n);
        for (const i of layout.indices) used[i] = 1;
        let missing = 0;
        layout.texcoord.forEach((t, i) => {
          if (t >= 0) {
            uvs![2 * i] = corners!.texcoords[2 * t];
            uvs![2 * i + 1] = 1 - corners!.texcoords[2 * t + 1];
          } else if (used[i]) missing++;
        });
        if (missing > 0)
          warnings.push(`mesh "${part.name}": ${missing} vertices have no texture coordinate in the OBJ file; they get (0, 0)`);
      } else if (!layout.texcoord && look?.uvs) {
        uvs = new Float32Array(2 * n);
        for (let i = 0; i < n; i++) {
          uvs[2 * i] = look.uvs[2 * map[i]];
          uvs[2 * i + 1] = look.uvs[2 * map[i] + 1];
        }
      } else if (material?.getBaseColorTexture() || material?.getNormalTexture() || material?.getEmissiveTexture()) {
        uvs = new Float32Array(2 * n);
        warnings.push(`mesh "${part.name}": its material has a texture but the mesh has no texture coordinates; all are (0, 0)`);
      }
      if (uvs) primitive.setAttribute('TEXCOORD_0', accessor('VEC2', uvs));
      // A normal map needs a tangent space, written rather than left to each reader to make up (vertex-tangents.ts).
      const runMaterials = (part.materialRanges ?? [part]).map((run) => (run.material >= 0 ? materials[run.material] : null));
      if (uvs && runMaterials.some((m) => m?.getNormalTexture())) {
        primitive.setAttribute('TANGENT', accessor('VEC4', vertexTangents(positions, unitNormals(normals), uvs, layout.indices)));
      }
      const binding = partBinding(part, map, influences);
      if (binding.kind === 'skinned') {
        unweighted += binding.unweighted;
        for (let set = 0; set < slotCount / 4; set++) {
          primitive.setAttribute(`JOINTS_${set}`, accessor('VEC4', gatherSet(stored.joints, slotCount, set, map)));
          primitive.setAttribute(
            `WEIGHTS_${set}`,
            accessor('VEC4', gatherSet(stored.weights, slotCount, set, map)).setNormalized(opts.weightComponent !== 'float'),
          );
        }
      }
      // A part whose triangles come in runs of several materials: a primitive per run, sharing the vertex accessors.
      const runs = part.materialRanges ?? [{ triangleCount: part.triangleCount, material: part.material }];
      const primitives: Primitive[] = [];
      let first = 0;
      for (const run of runs) {
        if (run.triangleCount === 0) continue;
        const indices = layout.indices.subarray(3 * first, 3 * (first + run.triangleCount));
        first += run.triangleCount;
        const runPrimitive = primitives.length === 0 ? primitive : primitive.clone();
        runPrimitive.setIndices(accessor('SCALAR', n <= 65535 ? Uint16Array.from(indices) : indices.slice()));
        const runMaterial = run.material >= 0 ? materials[run.material] : null;
        runPrimitive.setMaterial(runMaterial);
        primitives.push(runPrimitive);
      }
      const gltfMesh = doc.createMesh(part.name);
      for (const p of primitives) gltfMesh.addPrimitive(p);
      const node = doc.createNode(part.name).setMesh(gltfMesh);
      if (binding.kind === 'rigid') rigidParts.push({ node, bone: binding.bone });
      else scene.addChild(node);
      return { node, mesh: gltfMesh, primitives, map, skinned: binding.kind === 'skinned' };
    });
  if (unweighted > 0) {
    warnings.push(
      `${unweighted} vertices of skinned meshes have no weight; glTF needs weights that sum to 1, so they are bound fully to ${names[0]}`,
    );
  }
  // Morph targets (examples, baked vertex animations) move skinned vertices only.
  const morphed = written.filter((w) => w.skinned);
  if (morphed.length === 0 && targetCount > 0)
    warnings.push('no mesh is skinned, so the examples and baked vertex animations (morph targets of skinned meshes) are left out');

  const { parents } = skeleton;
  const jointNodes: GltfNode[] = [];
  for (let b = 0; b < boneCount; b++) jointNodes.push(doc.createNode(names[b]));
  // A skin's joints need a common root (glTF 2.0 §3.7.3): several root bones hang below one node that is no joint.
  const skeletonRoot = parents.filter((p) => p < 0).length > 1 ? doc.createNode(`${meshName} skeleton`) : null;
  if (skeletonRoot) scene.addChild(skeletonRoot);
  const at = gridJointPositions(skeleton);
  const inverseBind = new Float32Array(16 * boneCount);
  for (let b = 0; b < boneCount; b++) {
    const s = 3 * b;
    const p = parents[b];
    const ps = 3 * p;
    jointNodes[b].setTranslation(p >= 0 ? [at[s] - at[ps], at[s + 1] - at[ps + 1], at[s + 2] - at[ps + 2]] : [at[s], at[s + 1], at[s + 2]]);
    if (p >= 0) jointNodes[p].addChild(jointNodes[b]);
    else (skeletonRoot ?? scene).addChild(jointNodes[b]);
    const m = 16 * b;
    inverseBind[m] = inverseBind[m + 5] = inverseBind[m + 10] = inverseBind[m + 15] = 1;
    inverseBind[m + 12] = -at[s];
    inverseBind[m + 13] = -at[s + 1];
    inverseBind[m + 14] = -at[s + 2];
  }
  // A rigid part's vertices are in the rest pose's world: below its joint (rest world matrix T(r_b)) the node undoes
  // the joint's translation, so that it is at rest where the scene has it and follows the joint as LBS with weight 1.
  for (const { node, bone } of rigidParts) {
    node.setTranslation([-at[3 * bone], -at[3 * bone + 1], -at[3 * bone + 2]]);
    jointNodes[bone].addChild(node);
  }
  // glTF keeps joints, not bone ends: where a reader could not find a bone's end from its children (a leaf, or a
  // bone whose first child starts elsewhere), the joint node says it in its extras (BONE_TAIL_EXTRA).
  for (const b of bonesWithoutChildTail(skeleton)) {
    const e = 3 * skeleton.bones[2 * b + 1];
    const tail = [0, 1, 2].map((c) => skeleton.joints[e + c] - at[3 * b + c]);
    jointNodes[b].setExtras({ ...jointNodes[b].getExtras(), [BONE_TAIL_EXTRA]: tail });
  }
  if (morphed.length > 0) {
    const skin = doc.createSkin(`${meshName} skin`).setInverseBindMatrices(accessor('MAT4', inverseBind));
    for (const node of jointNodes) skin.addJoint(node);
    for (const part of morphed) part.node.setSkin(skin);
  }
  const addTarget = (name: string, delta: Float32Array, normalDelta: Float32Array): void => {
    for (const part of morphed) {
      const position = accessor('VEC3', gather3(delta, part.map));
      const normal = accessor('VEC3', gather3(normalDelta, part.map));
      for (const primitive of part.primitives)
        primitive.addTarget(doc.createPrimitiveTarget(name).setAttribute('POSITION', position).setAttribute('NORMAL', normal));
    }
  };
  /** A `weights` channel on every morphed mesh node, keyed at `input`. */
  const addWeightsChannels = (animation: Animation, input: Accessor, values: Float32Array): void => {
    const output = accessor('SCALAR', values);
    for (const part of morphed) {
      const sampler = doc.createAnimationSampler().setInput(input).setOutput(output).setInterpolation('LINEAR');
      const channel = doc.createAnimationChannel().setTargetNode(part.node).setTargetPath('weights').setSampler(sampler);
      animation.addSampler(sampler).addChannel(channel);
    }
  };

  if (poseSpace && exampleTargets.length > 0) addExampleTargets(addTarget, mesh, poseSpace, exampleTargets, fail);
  (rig.clips ?? []).forEach((clip, c) => {
    const { animation, input } = addRotationClip(doc, accessor, jointNodes, clip, opts.framesPerSecond, warnings);
    if (exampleTargets.length === 0 || morphed.length === 0) return;
    const keys = clipExampleWeights[c].length / exampleCount;
    const values = new Float32Array(keys * targetCount);
    for (let k = 0; k < keys; k++) {
      exampleTargetWeights(
        exampleTargets,
        clipExampleWeights[c].subarray(k * exampleCount, (k + 1) * exampleCount),
        values,
        k * targetCount,
      );
    }
    addWeightsChannels(animation, input(), values);
    if (clip.poses.kind === 'quaternions') {
      warnings.push(
        `clip "${clip.name}": the example weights are keyed at its two keyframes only; between them players interpolate them linearly, not as the weights of the interpolated pose`,
      );
    }
  });

  const bakes = rig.vertexAnimations ?? [];
  if (bakes.length > 0 && morphed.length > 0) {
    const cost = vertexAnimationCost(
      vertexCount,
      bakes.map((bake) => bake.frameCount),
    );
    warnings.push(
      `baked vertex animation adds ${cost.totalBytes} bytes (${cost.targetBytes} in morph targets, ${cost.animationBytes} in keyframes)`,
    );
    addVertexAnimations(doc, accessor, addTarget, addWeightsChannels, mesh, bakes, opts.framesPerSecond, exampleTargets.length, fail);
  }
  if (targetCount > 0) {
    const defaults = new Float32Array(targetCount);
    if (exampleTargets.length > 0) exampleTargetWeights(exampleTargets, restExampleWeights, defaults, 0);
    for (const part of morphed) part.mesh.setWeights([...defaults]);
  }

  // The extensions the document uses (a material's KHR_texture_transform) are written with it.
  const io = new WebIO().setLogger(new CollectingLogger(warnings)).registerExtensions(
    doc
      .getRoot()
      .listExtensionsUsed()
      .map((extension) => extension.constructor as typeof Extension),
  );
  try {
    // Loaded on demand: the page imports this module for its defaults and should not carry the extensions.
    if (opts.compression !== 'none') await (await import('./gltf-extensions.ts')).compressOnWrite(doc, io, opts.compression);
    if (opts.format === 'glb') return { bytes: await io.writeBinary(doc), resources: {}, warnings };
    const { json, resources } = await writeGltfJson(io, doc, opts.basename);
    return { bytes: new TextEncoder().encode(JSON.stringify(json)), resources, warnings };
  } catch (error) {
    return fail('', `cannot write the file: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * The document as a .gltf (JSON) and its resources, for the fresh and the in-place export alike. Its buffers are named
 * after the file (bufferUris): kept under a source's names, an export next to that source would write its data into
 * the files the source still refers to.
 */
export function writeGltfJson(io: WebIO, doc: Document, basename: string): ReturnType<WebIO['writeJSON']> {
  const buffers = doc.getRoot().listBuffers();
  const uris = bufferUris(basename, buffers.length);
  buffers.forEach((buffer, k) => buffer.setURI(uris[k]));
  return io.writeJSON(doc, { format: Format.GLTF, basename });
}

/** Float32 normals renormalized after rounding, so that every stored normal is unit within float32 precision. */
function unitNormals(normals: Float64Array): Float32Array {
  const out = new Float32Array(normals.length);
  for (let i = 0; i < normals.length; i += 3) {
    const x = normals[i],
      y = normals[i + 1],
      z = normals[i + 2];
    const length = Math.hypot(x, y, z);
    if (length > 0 && Number.isFinite(length)) {
      out[i] = x / length;
      out[i + 1] = y / length;
      out[i + 2] = z / length;
    } else {
      out[i + 2] = 1;
    }
  }
  return out;
}

/**
 * One set of four (JOINTS_n or WEIGHTS_n) from all slots of every scene vertex: for the glTF vertices `map` names,
 * or for every vertex in order.
 */
export function gatherSet<T extends Float32Array | Uint8Array | Uint16Array>(all: T, slotCount: number, set: number, map?: Uint32Array): T {
  const count = map ? map.length : all.length / slotCount;
  const out = new (all.constructor as { new (n: number): T })(count * 4);
  for (let i = 0; i < count; i++) {
    const v = map ? map[i] : i;
    for (let k = 0; k < 4; k++) out[4 * i + k] = all[v * slotCount + 4 * set + k];
  }
  return out;
}

/** The #V × 3 values of the glTF vertices `map` names. */
function gather3(values: Float32Array, map: Uint32Array): Float32Array {
  const out = new Float32Array(3 * map.length);
  for (let i = 0; i < map.length; i++) {
    out[3 * i] = values[3 * map[i]];
    out[3 * i + 1] = values[3 * map[i] + 1];
    out[3 * i + 2] = values[3 * map[i] + 2];
  }
  return out;
}

/** A part as written: its mesh node, mesh, primitives (one per material run) and glTF vertex → scene vertex map. */
interface WrittenPart {
  node: GltfNode;
  mesh: GltfMesh;
  primitives: Primitive[];
  map: Uint32Array;
  skinned: boolean;
}

/** Adds a morph target, given per scene vertex, to every morphed part. */
type AddTarget = (name: string, delta: Float32Array, normalDelta: Float32Array) => void;

/** Vertices with more than K non-zero weights, and the largest weight beyond the K largest. */
export function droppedWeight(weights: DenseMatrix, keep: number): { vertices: number; largest: number } {
  const { rows, cols, data } = weights;
  let vertices = 0;
  let largest = 0;
  const row = new Float64Array(cols);
  for (let v = 0; v < rows; v++) {
    let nonZero = 0;
    for (let b = 0; b < cols; b++) {
      row[b] = Math.abs(data[v * cols + b]);
      if (row[b] > 0) nonZero++;
    }
    if (nonZero <= keep) continue;
    vertices++;
    row.sort();
    largest = Math.max(largest, row[cols - 1 - keep]);
  }
  return { vertices, largest };
}

type AccessorFactory = (type: 'SCALAR' | 'VEC3' | 'VEC4' | 'MAT4', array: Float32Array) => Accessor;

/**
 * One clip of rotation channels, one per joint node. Rotation matrices become one key per frame, at the clip's own
 * key times when it has them (a glTF clip, a baked clip), else at f / `framesPerSecond`; final-pose quaternions
 * become keys at t = 0 (identity) and t = 1 s (final pose). Keys are LINEAR, which glTF interpolates by SLERP
 * (glTF 2.0 Appendix C) — our SLERP between frames — except where the clip's curves say otherwise:
 * - a joint moved only by its own node's rotation and translation (no animated node between it and its parent's
 *   joint, no animated scale) gets those curves as they are, with their interpolation (STEP, LINEAR, CUBICSPLINE),
 *   key times and values and tangents mapped into the joint's frame (gltf-export-curves.ts derives the map), so it
 *   poses as the source between keys too;
 * - another joint that only STEP channels move is written STEP at the clip's keys;
 * - a joint whose curves one rotation curve per joint cannot say (animated nodes between joints, scale, STEP and
 *   LINEAR mixed on those nodes) is written LINEAR at the keys, every key exact, and a notice names it.
 * Start-joint translations add a translation channel to every joint node that moves: its rest local translation
 * plus t_b, which is in the parent node's axes since joint nodes have no rest rotation, interpolated as its rotation
 * (or its own curve, mapped, as above).
 */
function addRotationClip(
  doc: Document,
  accessor: AccessorFactory,
  jointNodes: GltfNode[],
  clip: GltfClip,
  framesPerSecond: number,
  warnings: string[],
): { animation: Animation; input: () => Accessor } {
  const { poses } = clip;
  const boneCount = poses.boneCount;
  const frameCount = poses.kind === 'matrices' ? poses.frameCount : 2;
  const keyTimes = poses.kind === 'matrices' ? poses.times : undefined;
  const times = new Float32Array(frameCount);
  for (let f = 0; f < frameCount; f++) times[f] = keyTimes ? keyTimes[f] : poses.kind === 'matrices' ? f / framesPerSecond : f;
  // Key time accessors, one per distinct list of times: the clip's keys, and each curve's own keys.
  const inputs = new Map<string, Accessor>();
  const inputOf = (keys: Float32Array): Accessor => {
    const id = keys.join(' ');
    let found = inputs.get(id);
    if (!found) inputs.set(id, (found = accessor('SCALAR', keys)));
    return found;
  };
  const input = (): Accessor => inputOf(times);
  const animation = doc.createAnimation(clip.name);
  const curves = poses.kind === 'matrices' && poses.times && frameCount > 1 ? poses.curves : undefined;
  const exact = Array.from({ length: boneCount }, (_, b) =>
    curves && poses.kind === 'matrices'
      ? exactJointCurves(curves, b, jointNodes[b].getTranslation(), {
          boneCount,
          times: poses.times!,
          rotations: poses.rotations,
          translations: poses.translations,
        })
      : null,
  );
  const interpolation = Array.from({ length: boneCount }, (_, b) => (curves && !exact[b] ? boneInterpolation(curves, b) : 'LINEAR'));
  const addChannel = (b: number, path: 'rotation' | 'translation', keys: Accessor, values: Float32Array, kind: KeyInterpolation): void => {
    const sampler = doc
      .createAnimationSampler()
      .setInput(keys)
      .setOutput(accessor(path === 'rotation' ? 'VEC4' : 'VEC3', values))
      .setInterpolation(kind);
    const channel = doc.createAnimationChannel().setTargetNode(jointNodes[b]).setTargetPath(path).setSampler(sampler);
    animation.addSampler(sampler).addChannel(channel);
  };
  const q = new Float64Array(4);
  for (let b = 0; b < boneCount; b++) {
    const own = exact[b]?.rotation;
    if (own) {
      addChannel(b, 'rotation', inputOf(Float32Array.from(own.times)), Float32Array.from(own.values), own.interpolation);
      continue;
    }
    const out = new Float32Array(4 * frameCount);
    for (let f = 0; f < frameCount; f++) {
      if (poses.kind === 'matrices') {
        matrixToQuat(poses.rotations, (f * boneCount + b) * 9, q, 0);
      } else if (f === 0) {
        q.set([0, 0, 0, 1]);
      } else {
        q.set(poses.final.subarray(4 * b, 4 * b + 4));
      }
      // Keep neighbouring keys on one hemisphere, so that a player interpolating components (not SLERP) still
      // takes the short way; q and −q are the same rotation.
      const o = 4 * f;
      const flip = f > 0 && q[0] * out[o - 4] + q[1] * out[o - 3] + q[2] * out[o - 2] + q[3] * out[o - 1] < 0 ? -1 : 1;
      for (let k = 0; k < 4; k++) out[o + k] = flip * q[k];
    }
    addChannel(b, 'rotation', input(), out, interpolation[b] ?? 'LINEAR');
  }
  const changed = jointNodes.filter((_, b) => interpolation[b] === null).map((node) => node.getName());
  if (curves && changed.length > 0) {
    const kinds = [...new Set(curves.channels.map((c) => c.interpolation))].sort().join(' and ');
    warnings.push(
      `clip "${clip.name}": ${changed.length} joint${changed.length === 1 ? '' : 's'} (${changed.slice(0, 4).join(', ')}${changed.length > 4 ? ', …' : ''}) move between keys in a way one curve per joint cannot say (animated nodes between joints, animated or non-uniform scale; the file's ${kinds} curves${curves.channels.some((c) => c.path === 'scale') ? ', scale' : ''}); they are written LINEAR at the clip's ${frameCount} key times: the pose at every key is exact, between keys it is SLERP`,
    );
  }
  const result = { animation, input };
  const translations = poses.kind === 'matrices' ? poses.translations : undefined;
  if (!translations) return result;
  for (let b = 0; b < boneCount; b++) {
    const own = exact[b]?.translation;
    if (own) {
      addChannel(b, 'translation', inputOf(Float32Array.from(own.times)), Float32Array.from(own.values), own.interpolation);
      continue;
    }
    let moves = false;
    for (let f = 0; f < frameCount && !moves; f++) {
      const o = 3 * (f * boneCount + b);
      moves = translations[o] !== 0 || translations[o + 1] !== 0 || translations[o + 2] !== 0;
    }
    if (!moves) continue;
    const rest = jointNodes[b].getTranslation();
    const out = new Float32Array(3 * frameCount);
    for (let f = 0; f < frameCount; f++) for (let c = 0; c < 3; c++) out[3 * f + c] = rest[c] + translations[3 * (f * boneCount + b) + c];
    addChannel(b, 'translation', input(), out, interpolation[b] ?? 'LINEAR');
  }
  return result;
}

/**
 * The examples' pose-space weights at each pose, #poses × J (the examples' target weights are keyed from them).
 * @throws through `fail`, naming the example, when a weight is not a finite number
 */
export function examplePoseWeights(
  poseSpace: GltfPoseSpace,
  poses: readonly Float64Array[],
  fail: (where: string, reason: string) => never,
): Float64Array {
  const J = poseSpace.names.length;
  const out = new Float64Array(poses.length * J);
  poses.forEach((pose, k) => poseSpaceWeights(poseSpace.interpolator, pose, out.subarray(k * J, (k + 1) * J)));
  const bad = out.findIndex((a) => !Number.isFinite(a));
  if (bad >= 0) fail(`example "${poseSpace.names[bad % J]}"`, 'its pose-space weight is not a finite number');
  return out;
}

/** The relative rotations at each key of a clip, as addRotationClip keys it (frames; or t = 0 and t = 1). */
export function clipKeyPoses(poses: PoseSequence): Float64Array[] {
  const keys = poses.kind === 'matrices' ? poses.frameCount : 2;
  return Array.from({ length: keys }, (_, k) => {
    const pose = new Float64Array(9 * poses.boneCount);
    samplePose(poses, k, pose);
    return pose;
  });
}

/** A morph target of an example: its displacement δ_j times `scale` (negative: the part of a_j below zero). */
export interface ExampleTarget {
  name: string;
  example: number;
  scale: number;
}

/**
 * Stored morph weights stay in [0, 1], because players clamp them there: Blender's importer turns targets into
 * shape keys whose slider range is [0, 1] (widened only by the mesh's default weights), and an animated value
 * outside it is clamped. The RBF weights a_j leave that range (the Gaussian overshoots to 1.15 and undershoots
 * to −0.27 on the body's clip), so each example's weight is split, a_j = max(a_j, 0) − max(−a_j, 0), into a
 * target s⁺ δ_j weighted max(a_j, 0)/s⁺ and, when a_j ever goes below zero, a target −s⁻ δ_j (named "<name> −")
 * weighted max(−a_j, 0)/s⁻, with s± = max(1, the part's largest value over all keys). Players lerp each part
 * between two keys, and lerp(max(a, 0)) − lerp(max(−a, 0)) = lerp(a) since max(a, 0) − max(−a, 0) = a at both
 * keys, so the split is exact at and between keys. An example whose weights stay in [0, 1] gets one target δ_j
 * weighted a_j.
 * @param weightSets  K × J weights, J = names.length, for every key of every clip and the rest pose
 */
export function planExampleTargets(names: readonly string[], weightSets: readonly Float64Array[]): ExampleTarget[] {
  const J = names.length;
  const positive = new Float64Array(J);
  const negative = new Float64Array(J);
  for (const set of weightSets) {
    for (let i = 0; i < set.length; i++) {
      const j = i % J;
      positive[j] = Math.max(positive[j], set[i]);
      negative[j] = Math.max(negative[j], -set[i]);
    }
  }
  const targets: ExampleTarget[] = names.map((name, j) => ({ name, example: j, scale: Math.max(1, positive[j]) }));
  names.forEach((name, j) => {
    if (negative[j] > 0) targets.push({ name: `${name} −`, example: j, scale: -Math.max(1, negative[j]) });
  });
  return targets;
}

/** The stored weight of every example target for one key's J weights a_j (see planExampleTargets). */
export function exampleTargetWeights(targets: readonly ExampleTarget[], a: ArrayLike<number>, out: Float32Array, offset: number): void {
  targets.forEach((target, t) => {
    const part = target.scale > 0 ? Math.max(a[target.example], 0) : Math.max(-a[target.example], 0);
    out[offset + t] = part / Math.abs(target.scale);
  });
}

/**
 * The examples' morph targets (GltfPoseSpace, planExampleTargets): POSITION scale · δ_j, and NORMAL scale times
 * the change of the area-weighted vertex normals from the rest mesh to the corrected rest shape v0 + δ_j, so
 * shading follows the correction.
 */
function addExampleTargets(
  addTarget: AddTarget,
  mesh: TriangleMesh,
  poseSpace: GltfPoseSpace,
  targets: readonly ExampleTarget[],
  fail: (where: string, reason: string) => never,
): void {
  const rest = mesh.positions;
  const n = rest.length;
  const restNormals = vertexNormals(rest, mesh.triangles);
  const corrected = new Float64Array(n);
  const normalChange = poseSpace.names.map((name, j) => {
    for (let i = 0; i < n; i++) {
      const d = poseSpace.displacements[j * n + i];
      if (!Number.isFinite(d)) fail(`example "${name}"`, `vertex ${Math.floor(i / 3)} has no finite displacement`);
      corrected[i] = rest[i] + d;
    }
    const normals = vertexNormals(corrected, mesh.triangles);
    for (let i = 0; i < n; i++) normals[i] -= restNormals[i];
    return normals;
  });
  for (const { name, example, scale } of targets) {
    const delta = new Float32Array(n);
    const normalDelta = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      delta[i] = scale * poseSpace.displacements[example * n + i];
      normalDelta[i] = scale * normalChange[example][i];
    }
    addTarget(name, delta, normalDelta);
  }
}

/**
 * Morph targets, one per baked frame, and one `weights` clip per bake (see gltf-vertex-animation.ts). Each target
 * moves positions and normals: its NORMAL delta is the change of the area-weighted vertex normals from the rest
 * mesh to the frame, so shading follows the baked deformation (and the rest frame leaves the stored normals).
 */
function addVertexAnimations(
  doc: Document,
  accessor: AccessorFactory,
  addTarget: AddTarget,
  addWeightsChannels: (animation: Animation, input: Accessor, values: Float32Array) => void,
  mesh: TriangleMesh,
  bakes: readonly GltfVertexAnimation[],
  framesPerSecond: number,
  firstTarget: number,
  fail: (where: string, reason: string) => never,
): void {
  const restPositions = mesh.positions;
  const targetCount = firstTarget + bakes.reduce((sum, bake) => sum + bake.frameCount, 0);
  const posed = new Float64Array(restPositions.length);
  const restNormals = vertexNormals(restPositions, mesh.triangles);
  const posedNormals = new Float64Array(restPositions.length);
  let first = firstTarget;
  for (const bake of bakes) {
    if (!(bake.frameCount >= 1 && Number.isInteger(bake.frameCount)))
      fail(`clip "${bake.name}"`, `frame count must be a whole number ≥ 1, not ${bake.frameCount}`);
    for (let f = 0; f < bake.frameCount; f++) {
      bake.positionsAt(f, posed);
      const delta = new Float32Array(posed.length);
      for (let i = 0; i < posed.length; i++) {
        const d = posed[i] - restPositions[i];
        if (!Number.isFinite(d)) fail(`clip "${bake.name}" frame ${f}`, `vertex ${Math.floor(i / 3)} has no finite position`);
        delta[i] = d;
      }
      vertexNormals(posed, mesh.triangles, posedNormals);
      const normalDelta = new Float32Array(posed.length);
      for (let i = 0; i < posed.length; i++) normalDelta[i] = posedNormals[i] - restNormals[i];
      addTarget(`${bake.name} ${f}`, delta, normalDelta);
    }
    const times = new Float32Array(bake.frameCount);
    const values = new Float32Array(bake.frameCount * targetCount);
    for (let f = 0; f < bake.frameCount; f++) {
      times[f] = bake.times ? bake.times[f] : f / framesPerSecond;
      values[f * targetCount + first + f] = 1;
    }
    addWeightsChannels(doc.createAnimation(bake.name), accessor('SCALAR', times), values);
    first += bake.frameCount;
  }
}
