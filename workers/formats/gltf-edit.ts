/**
 * In-place glTF export: the file a scene was imported from (GltfSource) is read again into a glTF-Transform
 * Document, only what the user changed is replaced, and the same Document is written back, so UVs, materials,
 * textures, cameras, lights, unskinned nodes, names, extras and extensions pass through.
 *
 * What is replaced:
 *   weights     JOINTS_0/WEIGHTS_0 (and _1 for eight influences) of every skinned part whose weight rows differ
 *               from the file's as the importer reads them; parts whose rows are the file's keep their accessors,
 *               unless the file stores them invalidly (storedWeightsValid), which the importer read normalised
 *   skeleton    a joint node whose bone head moved gets a local translation that puts it there (its rotation and
 *               scale stay); a bone without a node (jointNodes[b] = -1) gets a new node under its parent bone's;
 *               a changed parent re-parents the node keeping its world transform. Inverse bind matrices of joints
 *               whose rest world matrix G_j changed, or that a skin gains, are IBM_s,j = G_j⁻¹ · C_s, where C_s =
 *               G_r · IBM_s,r (r the skin's first joint, before any change) maps the skin's bind space into the
 *               world; the others keep the file's. Nothing else is invented: no connector joints. A joint of the
 *               file that no bone names any more (a removed bone) leaves every skin (the skins' JOINTS are written
 *               again with the new indices); its node stays where it was as a plain node, so children and kept
 *               clips that animate it are unchanged, and a child bone's node stays under it unless its parent
 *               bone changed otherwise.
 *   clips       a clip with `source` keeps that animation as it is; a clip without one is written as a new
 *               animation (see writeClip); an animation no clip names any more is removed
 *   binding     a part the file had without a skin and that is now `skinned` joins the first skin: its vertices
 *               move into that skin's bind space (C⁻¹ · G_node), since glTF ignores a skinned node's transform
 *   examples    new morph targets on skinned parts without targets of their own, weights keyed on new clips
 *               (gltf-edit-morphs.ts, as exportGltf's GltfPoseSpace)
 *   bakes       baked deformation as morph targets after those, one new animation per bake (gltf-edit-morphs.ts)
 *
 * What glTF-Transform's reader drops (extensions it does not read, KHR_animation_pointer channels other than node
 * TRS) is carried over as raw JSON: see gltf-carry.ts.
 */
import {
  Logger,
  WebIO,
  type Accessor,
  type Animation,
  type AnimationSampler,
  type Document,
  type Node as GltfNode,
  type Primitive,
  type Scene,
  type Skin,
} from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { accessorValues, accessorsWithUnknownExtensions, patchGlbJson, pointerSamplers, prepareCarry, sourceJson } from './gltf-carry.ts';
import { CollectingLogger } from './gltf-collecting-logger.ts';
import { FormatError } from './format-error.ts';
import { addBakedMorphs, addExampleMorphs } from './gltf-edit-morphs.ts';
import { compressOnWrite } from './gltf-extensions.ts';
import type { GltfVertexAnimation } from './gltf-vertex-animation.ts';
import {
  GLTF_EXPORT_DEFAULTS,
  droppedWeight,
  gatherSet,
  type GltfClip,
  type GltfExportOptions,
  type GltfExportResult,
  type GltfPoseSpace,
  writeGltfJson,
} from './gltf-export.ts';
import { importGltf, readCheckedGltf, type GltfImportResult } from './gltf-import.ts';
import { BONE_TAIL_EXTRA, bonesWithoutChildTail } from './gltf-export-parts.ts';
import { composeTrs, identity, invertAffine, multiply, transformPoint } from './gltf-numbers.ts';
import { quantizeSkinWeights } from './gltf-skin-weights.ts';
import type { DenseMatrix, GltfSource, MeshPart, TriangleMesh } from './types.ts';
import type { Skeleton } from '../rig/skeleton.ts';
import { forwardKinematics } from '../rig/forward-kinematics.ts';
import { samplePose } from '../rig/pose-sequence.ts';
import { influencesFromWeights } from '../skinning/influences.ts';
import { matrixToQuat } from '../math/quaternion.ts';

/** The scene as the in-place export needs it. */
export interface GltfEdit {
  source: GltfSource;
  /** the scene's vertices (parts are ranges of them) */
  mesh: TriangleMesh;
  skeleton: Skeleton;
  /** #V × #B */
  weights: DenseMatrix;
  /** #B, for new joint nodes and renamed bones (a name other than the file's renames its node); default the node's name */
  boneNames?: readonly string[];
  clips: readonly GltfClip[];
  /** absent: the parts the file gives */
  parts?: readonly MeshPart[];
  /** example shapes as new morph targets driven by their pose-space weights (see GltfPoseSpace and addExampleMorphs) */
  poseSpace?: GltfPoseSpace;
  /** baked deformation, each a new clip of morph targets (gltf-edit-morphs.ts) */
  vertexAnimations?: readonly GltfVertexAnimation[];
}

/** Relative: a joint's head or rest matrix that moved less than this (× the mesh diagonal) is unchanged. */
const MOVED = 1e-9;

/**
 * Writes the scene's source glTF back with the scene's changes (see the module comment).
 * @param edit     the source file, the scene's mesh, skeleton, weights, clips and parts
 * @param file     output file name, for messages
 * @param options  format, influences, weight component, keyframe rate of new clips, basename, compression
 * @returns the file bytes, external resources and warnings
 * @throws FormatError naming the export, the file and the reason when the scene does not fit its source
 */
export async function exportGltfInPlace(edit: GltfEdit, file: string, options?: GltfExportOptions): Promise<GltfExportResult> {
  const opts: Required<GltfExportOptions> = { ...GLTF_EXPORT_DEFAULTS, ...options };
  const fail = (where: string, reason: string): never => {
    throw new FormatError(file, where, `glTF export: ${reason}`);
  };
  const { source, skeleton, weights } = edit;
  const boneCount = skeleton.parents.length;
  const vertexCount = edit.mesh.positions.length / 3;
  if (weights.rows !== vertexCount || weights.cols !== boneCount)
    fail('weights', `${weights.rows} × ${weights.cols} weights do not fit ${vertexCount} vertices × ${boneCount} bones`);
  if (source.jointNodes.length !== boneCount)
    fail('', `the skeleton has ${boneCount} bones, its source ${source.file} names joints for ${source.jointNodes.length}`);
  if (!(Number.isInteger(opts.influences) && opts.influences >= 1 && opts.influences <= 8))
    fail('', `influences must be a whole number from 1 to 8 (up to 4: one joint set, above: two), not ${String(opts.influences)}`);
  if (!(opts.framesPerSecond > 0)) fail('', `frames per second must be positive, not ${opts.framesPerSecond}`);
  for (const clip of edit.clips)
    if (clip.poses.boneCount !== boneCount)
      fail(`clip "${clip.name}"`, `poses are for ${clip.poses.boneCount} bones, the skeleton has ${boneCount}`);

  const warnings: string[] = [];
  // The file as the importer reads it: its parts, weights and skeleton are what "unchanged" means.
  const original = await importGltf(source.bytes, source.file, source.resources);
  const doc = await readCheckedGltf(source.bytes, source.file, source.resources, []);
  doc.setLogger(new Logger(Logger.Verbosity.SILENT));
  const root = doc.getRoot();
  const nodes = root.listNodes();
  // The writer leaves out a translation, rotation or scale within 1e-5 of its default (glTF-Transform's
  // MathUtils.eq): such values are set to the default first, so that the matrices computed here are the written ones.
  for (const node of nodes) {
    if (near(node.getTranslation(), [0, 0, 0])) node.setTranslation([0, 0, 0]);
    if (near(node.getRotation(), [0, 0, 0, 1])) node.setRotation([0, 0, 0, 1]);
    if (near(node.getScale(), [1, 1, 1])) node.setScale([1, 1, 1]);
  }
  const animationsBefore = root.listAnimations();
  const samplersRead = animationsBefore.map((animation) => animation.listSamplers());
  // What the reader leaves out is carried over as raw JSON (gltf-carry.ts): the file's objects as read, by index.
  const fileJson = sourceJson(source);
  const accessorsRead = root.listAccessors();
  const accessorArrays = new Map<number, ArrayLike<number>>();
  for (const a of accessorsWithUnknownExtensions(fileJson)) if (accessorsRead[a]) accessorArrays.set(a, accessorValues(accessorsRead[a]));
  // Accessors the file does not use stay (the writer keeps them); the ones this export orphans go.
  const unusedBefore = new Set(root.listAccessors().filter((accessor) => accessor.listParents().length <= 1));
  const parts = edit.parts ?? original.parts;
  const partsEnd = parts.reduce((end, part) => Math.max(end, part.vertexStart + part.vertexCount), 0);
  if (partsEnd > vertexCount) fail('parts', `the parts cover ${partsEnd} vertices, the mesh has ${vertexCount}`);
  const diagonal = edit.mesh.positions.length > 0 ? diagonalOf(edit.mesh.positions) : 1;

  const jointNodes: (GltfNode | null)[] = Array.from(source.jointNodes, (n, b) => {
    if (n < 0) return null;
    if (n >= nodes.length) fail(`bone ${b}`, `its joint node ${n} is not in ${source.file}`);
    return nodes[n];
  });

  // Skins the scene's mesh nodes use, each with C_s from the file as it is.
  const skins = root.listSkins();
  const skinToWorld = new Map<Skin, Float64Array>();
  for (const skin of skins) {
    const joints = skin.listJoints();
    if (joints.length === 0) continue;
    const ibm = readInverseBind(skin);
    const c = new Float64Array(16);
    multiply(worldMatrix(joints[0]), 0, ibm, 0, c, 0);
    skinToWorld.set(skin, c);
  }
  const firstSkin = original.gltfSource.jointNodes.length > 0 ? firstUsedSkin(doc) : null;
  if (!firstSkin) return fail('', `${source.file} has no skinned mesh`);

  // Each bone's bone in the file as read (by joint node; −1: new). A joint of the file that no bone names any more
  // is a removed bone: its node stays where it is, as a plain node (kept clips may animate it, children hang under
  // it), and it leaves every skin.
  const originalBoneOfNode = new Map<number, number>();
  original.gltfSource.jointNodes.forEach((n, ob) => originalBoneOfNode.set(n, ob));
  const originalBone = Int32Array.from(source.jointNodes, (n) => (n >= 0 ? (originalBoneOfNode.get(n) ?? -1) : -1));
  const stillJoints = new Set(source.jointNodes);
  const removedNodes = new Set(
    Array.from(original.gltfSource.jointNodes, (n) => (stillJoints.has(n) ? null : nodes[n])).filter((n) => n !== null),
  );
  if (removedNodes.size > 0)
    warnings.push(
      `${removedNodes.size === 1 ? '1 joint is no longer a bone' : `${removedNodes.size} joints are no longer bones`} (${[...removedNodes].map((n) => n.getName() || '(unnamed)').join(', ')}); their nodes stay as plain nodes and leave the skins`,
    );

  // Skeleton: parents first; nodes for new bones, moved heads, changed parents.
  const restBefore = new Map<GltfNode, Float64Array>();
  for (const node of jointNodes) if (node) restBefore.set(node, worldMatrix(node));
  const currentJoints = new Set(jointNodes.filter((node) => node !== null));
  const nearestJointAncestor = (node: GltfNode): GltfNode | null => {
    let up = node.getParentNode();
    while (up && !currentJoints.has(up)) up = up.getParentNode();
    return up;
  };
  const originalHeads = original.skeleton.joints;
  const names = edit.boneNames ?? (removedNodes.size === 0 ? original.boneNames : []);
  const newBones: number[] = [];
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
      newBones.push(b);
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
    const name = edit.boneNames?.[b];
    if (ob >= 0 && name !== undefined && name !== original.boneNames[ob]) node.setName(name);
    const was = ob >= 0 ? originalHeads.subarray(3 * original.skeleton.bones[2 * ob], 3 * original.skeleton.bones[2 * ob] + 3) : null;
    const moved = !was || Math.hypot(head[0] - was[0], head[1] - was[1], head[2] - was[2]) > MOVED * diagonal;
    let ancestorMoved = false;
    for (let up = node.getParentNode(); up && !ancestorMoved; up = up.getParentNode()) ancestorMoved = replaced.has(up);
    if (!moved && !ancestorMoved) continue;
    if (was && moved) movedBones++;
    const target = moved ? head : restBefore.get(node)!.subarray(12, 15);
    const parentWorld = node.getParentNode() ? worldMatrix(node.getParentNode()!) : identity();
    const inverse = new Float64Array(16);
    if (!invertAffine(parentWorld, 0, inverse, 0)) fail(`bone ${b}`, "its parent node's world matrix is singular");
    const t = transformPoint(inverse, target);
    // Rounded to what the file stores, so that the inverse bind matrices are computed from the written transform.
    node.setTranslation([Math.fround(t[0]), Math.fround(t[1]), Math.fround(t[2])]);
    replaced.add(node);
  }
  if (newBones.length > 0) warnings.push(`${newBones.length} new joint nodes (${newBones.map((b) => names[b] ?? `bone_${b}`).join(', ')})`);
  if (movedBones > 0) warnings.push(`${movedBones} joints moved; their inverse bind matrices are recomputed`);

  // Which bones each skin needs: its joints, and every bone a vertex of a node using it has weight on.
  const skinJoints = new Map<Skin, GltfNode[]>();
  for (const skin of skins)
    skinJoints.set(
      skin,
      skin.listJoints().filter((node) => !removedNodes.has(node)),
    );
  const boneOfNode = new Map<GltfNode, number>();
  jointNodes.forEach((node, b) => boneOfNode.set(node!, b));
  const partPrimitives = parts.map((part) => primitiveOf(part, nodes, fail));
  const partPrimitiveSet = new Set(partPrimitives.map((found) => found?.primitive));
  parts.forEach((part, i) => {
    if (!part.skinned || !partPrimitives[i]) return;
    const node = partPrimitives[i].node;
    const skin = node.getSkin() ?? firstSkin;
    const joints = skinJoints.get(skin)!;
    const present = new Set(joints);
    for (let v = part.vertexStart; v < part.vertexStart + part.vertexCount; v++) {
      for (let b = 0; b < boneCount; b++) {
        if (weights.data[v * boneCount + b] !== 0 && !present.has(jointNodes[b]!)) {
          present.add(jointNodes[b]!);
          joints.push(jointNodes[b]!);
        }
      }
    }
  });

  // Inverse bind matrices: with the skeleton as in the file, the file's (a skin that gains joints gets theirs
  // computed); once a joint's rest world matrix changed, every joint's, so that all are the rest joints' inverses.
  const skeletonChanged = newBones.length > 0 || [...restBefore].some(([node, was]) => !sameMatrix(was, worldMatrix(node), diagonal));
  for (const skin of skins) {
    const joints = skinJoints.get(skin)!;
    const c = skinToWorld.get(skin);
    if (!c) continue;
    const before = skin.listJoints();
    const old = readInverseBind(skin);
    const ibm = new Float64Array(16 * joints.length);
    let changed = joints.length !== before.length || joints.some((node, k) => k < before.length && before[k] !== node);
    joints.forEach((node, k) => {
      const at = before.indexOf(node);
      if (at >= 0 && !skeletonChanged) {
        ibm.set(old.subarray(16 * at, 16 * at + 16), 16 * k);
        return;
      }
      changed = true;
      const inverse = new Float64Array(16);
      if (!invertAffine(worldMatrix(node), 0, inverse, 0)) fail(`joint "${node.getName()}"`, 'its rest world matrix is singular');
      multiply(inverse, 0, c, 0, ibm, 16 * k);
    });
    if (!changed) continue;
    if (before.some((node) => removedNodes.has(node))) {
      // The parts' JOINTS are written again below; a skinned primitive the scene does not hold (lines, points, a
      // node outside the default scene) has its slots renumbered here, a removed joint's going to its nearest
      // joint ancestor, as the scene moves a removed bone's weight to its parent.
      const slot = before.map((node) => {
        let up: GltfNode | null = node;
        while (up && !joints.includes(up)) up = up.getParentNode();
        return up ? joints.indexOf(up) : 0;
      });
      for (const node of nodes) {
        if (node.getSkin() !== skin) continue;
        for (const primitive of node.getMesh()?.listPrimitives() ?? [])
          if (!partPrimitiveSet.has(primitive)) renumberJoints(primitive, slot);
      }
    }
    for (const node of before) if (removedNodes.has(node)) skin.removeJoint(node);
    for (const node of joints) if (!before.includes(node)) skin.addJoint(node);
    const accessor = doc
      .createAccessor()
      .setType('MAT4')
      .setArray(Float32Array.from(ibm))
      .setBuffer(root.listBuffers()[0] ?? doc.createBuffer());
    skin.setInverseBindMatrices(accessor);
  }

  // Weights and newly bound parts.
  let dropped = 0;
  let largestDropped = 0;
  let unweighted = 0;
  const originalPartAt = new Map(original.parts.map((part) => [sourceKey(part), part]));
  const invalidKept: string[] = [];
  parts.forEach((part, i) => {
    const found = partPrimitives[i];
    if (!part.skinned || !found) return;
    const { node, primitive } = found;
    const was = originalPartAt.get(sourceKey(part));
    const newlyBound = !node.getSkin();
    if (
      !newlyBound &&
      was &&
      was.vertexCount === part.vertexCount &&
      sameRows(weights, part.vertexStart, original, was.vertexStart, part.vertexCount)
    ) {
      // The weights as the importer read them, but stored invalidly (the importer normalised them): written again.
      if (storedWeightsValid(primitive)) return;
      invalidKept.push(part.name);
    }
    if (primitive.getAttribute('POSITION')!.getCount() !== part.vertexCount)
      fail(
        `part "${part.name}"`,
        `${part.vertexCount} vertices, its primitive in ${source.file} has ${primitive.getAttribute('POSITION')!.getCount()}`,
      );
    const skin = node.getSkin() ?? firstSkin;
    const joints = skinJoints.get(skin)!;
    const jointOf = new Map(joints.map((joint, k) => [joint, k]));
    const rows: DenseMatrix = {
      rows: part.vertexCount,
      cols: boneCount,
      data: weights.data.subarray(part.vertexStart * boneCount, (part.vertexStart + part.vertexCount) * boneCount),
    };
    const influences = influencesFromWeights(rows, opts.influences);
    for (let k = 0; k < influences.bones.length; k++) influences.bones[k] = jointOf.get(jointNodes[influences.bones[k]]!) ?? 0;
    const slotCount = influences.stride <= 4 ? 4 : 8;
    const stored = quantizeSkinWeights(influences, slotCount, opts.weightComponent, joints.length);
    const loss = droppedWeight(rows, opts.influences);
    dropped += loss.vertices;
    largestDropped = Math.max(largestDropped, loss.largest);
    unweighted += stored.unweightedVertices;
    const buffer = primitive.getAttribute('POSITION')!.getBuffer() ?? root.listBuffers()[0];
    for (let set = 0; set < 2; set++) {
      primitive.setAttribute(`JOINTS_${set}`, null).setAttribute(`WEIGHTS_${set}`, null);
    }
    for (let set = 0; set < slotCount / 4; set++) {
      primitive.setAttribute(
        `JOINTS_${set}`,
        doc
          .createAccessor()
          .setType('VEC4')
          .setArray(gatherSet(stored.joints, slotCount, set))
          .setBuffer(buffer),
      );
      primitive.setAttribute(
        `WEIGHTS_${set}`,
        doc
          .createAccessor()
          .setType('VEC4')
          .setArray(gatherSet(stored.weights, slotCount, set))
          .setNormalized(opts.weightComponent !== 'float')
          .setBuffer(buffer),
      );
    }
    if (newlyBound) bindPart(doc, node, primitive, skin, skinToWorld.get(skin)!);
  });
  if (invalidKept.length > 0)
    warnings.push(
      `the weights of ${invalidKept.length} mesh${invalidKept.length === 1 ? '' : 'es'} (${invalidKept.join(', ')}) in ${source.file} are not valid glTF (negative, not summing to 1, or a joint twice); they are written again as read, normalised`,
    );
  if (dropped > 0)
    warnings.push(
      `${dropped} vertices have more than ${opts.influences} influences; the weakest are dropped and the rest renormalized (largest weight dropped: ${largestDropped.toPrecision(3)})`,
    );
  if (unweighted > 0)
    warnings.push(
      `${unweighted} vertices have no weight; glTF needs weights that sum to 1, so they are bound fully to their skin's first joint`,
    );
  if (opts.influences === 8)
    warnings.push('eight influences are stored in JOINTS_0/WEIGHTS_0 and JOINTS_1/WEIGHTS_1; many viewers read only the first set');

  // A skinned mesh ignores its node's and its parents' transforms (glTF 2.0 §3.7.3), so a skinned mesh node below
  // another one moves to the scene's root without moving anything (the validator warns about it otherwise).
  for (const node of nodes) {
    const parent = node.getParentNode();
    // (Only a node without children: moving it would move them.)
    if (!node.getMesh() || !node.getSkin() || !parent || node.listChildren().length > 0) continue;
    const scenes = root.listScenes().filter((scene) => isInScene(scene, node));
    parent.removeChild(node);
    for (const scene of scenes) scene.addChild(node);
  }

  // Clips: kept, removed or written.
  const kept = new Set<number>();
  for (const clip of edit.clips) {
    if (clip.source === undefined) continue;
    if (!(clip.source >= 0 && clip.source < animationsBefore.length))
      fail(`clip "${clip.name}"`, `${source.file} has no animation ${clip.source}`);
    kept.add(clip.source);
  }
  const animationIndex = new Map<number, number>();
  // A clip made from an animation that is not kept (a bake) inherits the samplers of its channels the scene does
  // not pose with (gltf-carry.ts puts the channels back on them).
  const inherited = new Map<GltfClip, AnimationSampler[]>();
  const samplerCopies = new Map<AnimationSampler, AnimationSampler[]>();
  animationsBefore.forEach((animation, a) => {
    if (kept.has(a)) {
      animationIndex.set(a, animationIndex.size);
      return;
    }
    const heirs = edit.clips.filter((clip) => clip.source === undefined && clip.from === a);
    const carried = heirs.length > 0 ? pointerSamplers(fileJson, a).map((s) => samplersRead[a][s]) : [];
    if (carried.length > 0)
      heirs.forEach((heir, h) => {
        // The first clip made from it takes the samplers themselves, any other a copy on the same keys.
        const own = h === 0 ? carried : carried.map((sampler) => sampler.clone());
        if (h > 0) own.forEach((copy, k) => samplerCopies.set(carried[k], [...(samplerCopies.get(carried[k]) ?? []), copy]));
        inherited.set(heir, own);
      });
    for (const channel of animation.listChannels()) channel.dispose();
    for (const sampler of animation.listSamplers()) if (carried.includes(sampler)) animation.removeSampler(sampler);
    for (const sampler of animation.listSamplers()) sampler.dispose();
    animation.dispose();
  });
  const restWorld = new Map<GltfNode, Float64Array>();
  const bindFrames = bindFramesOf(jointNodes, skins, skinToWorld);
  writeBoneTails(skeleton, jointNodes as GltfNode[], bindFrames, newBones, diagonal);
  const morphs = edit.poseSpace
    ? addExampleMorphs(doc, edit.poseSpace, edit.clips, parts, partPrimitives, skinToWorld, firstSkin, warnings, fail)
    : null;
  for (const clip of edit.clips) {
    if (clip.source !== undefined) continue;
    const animation = writeClip(
      doc,
      clip,
      skeleton,
      jointNodes as GltfNode[],
      bindFrames,
      restWorld,
      opts.framesPerSecond,
      diagonal,
      warnings,
    );
    morphs?.key(animation, clip);
    for (const sampler of inherited.get(clip) ?? []) animation.addSampler(sampler);
  }
  addBakedMorphs(
    {
      doc,
      mesh: edit.mesh,
      parts,
      partPrimitives,
      jointMatrices: (skin) => {
        const ibm = readInverseBind(skin);
        const out = new Float64Array(ibm.length);
        skin.listJoints().forEach((joint, k) => multiply(worldMatrix(joint), 0, ibm, 16 * k, out, 16 * k));
        return out;
      },
      bindToWorld: (skin) => skinToWorld.get(skin) ?? identity(),
      exampleNodes: morphs?.nodes ?? new Set(),
      exampleTargetCount: morphs?.targetCount ?? 0,
      framesPerSecond: opts.framesPerSecond,
      warnings,
      fail,
    },
    edit.vertexAnimations ?? [],
  );
  // Accessors only the replaced attributes, matrices and removed animations used.
  for (const accessor of root.listAccessors()) if (!unusedBefore.has(accessor) && accessor.listParents().length <= 1) accessor.dispose();

  const carried = prepareCarry(
    fileJson,
    { accessors: accessorsRead, accessorArrays, samplers: samplersRead, samplerCopies, animationIndex },
    warnings,
  );
  const io = new WebIO().setLogger(new CollectingLogger(warnings)).registerExtensions(ALL_EXTENSIONS);
  try {
    // A GLB holds one buffer: a .gltf source with several (SimpleSkin has four) has its accessors moved into one.
    const [firstBuffer, ...otherBuffers] = root.listBuffers();
    if (opts.format === 'glb' && otherBuffers.length > 0) {
      for (const accessor of root.listAccessors()) accessor.setBuffer(firstBuffer);
      for (const buffer of otherBuffers) buffer.dispose();
    }
    const used = root.listExtensionsUsed().map((extension) => extension.extensionName);
    if (used.includes('KHR_draco_mesh_compression')) await compressOnWrite(doc, io, 'draco');
    if (used.includes('EXT_meshopt_compression')) await compressOnWrite(doc, io, 'meshopt');
    if (opts.compression !== 'none') await compressOnWrite(doc, io, opts.compression);
    if (opts.format === 'glb') return { bytes: patchGlbJson(await io.writeBinary(doc), carried, file), resources: {}, warnings };
    const { json, resources } = await writeGltfJson(io, doc, opts.basename);
    carried(json as unknown as Record<string, unknown>);
    return { bytes: new TextEncoder().encode(JSON.stringify(json)), resources, warnings };
  } catch (error) {
    if (error instanceof FormatError) throw error;
    return fail('', `cannot write the file: ${error instanceof Error ? error.message : String(error)}`);
  }
}

const WRITER_TOLERANCE = 1e-5;

function near(value: readonly number[], base: readonly number[]): boolean {
  return value.every((x, i) => Math.abs(x - base[i]) <= WRITER_TOLERANCE);
}

function sourceKey(part: MeshPart): string {
  return part.source ? `${part.source.node}/${part.source.primitive}` : '';
}

function primitiveOf(
  part: MeshPart,
  nodes: GltfNode[],
  fail: (where: string, reason: string) => never,
): { node: GltfNode; primitive: Primitive } | null {
  if (!part.source) return null;
  const node = nodes[part.source.node];
  const primitive = node?.getMesh()?.listPrimitives()[part.source.primitive];
  if (!node || !primitive)
    return fail(`part "${part.name}"`, `node ${part.source.node} primitive ${part.source.primitive} is not in the source`);
  return { node, primitive };
}

/**
 * A primitive's JOINTS_n renumbered by `slot` (old skin slot → new), with the weights of slots that come to name one
 * joint added together (glTF wants each joint once per vertex); new accessors, so others sharing them keep theirs.
 */
function renumberJoints(primitive: Primitive, slot: readonly number[]): void {
  const sets: { joints: Accessor; weights: Accessor }[] = [];
  for (let set = 0; primitive.getAttribute(`JOINTS_${set}`) && primitive.getAttribute(`WEIGHTS_${set}`); set++)
    sets.push({ joints: primitive.getAttribute(`JOINTS_${set}`)!.clone(), weights: primitive.getAttribute(`WEIGHTS_${set}`)!.clone() });
  if (sets.length === 0) return;
  const js: number[] = [];
  const ws: number[] = [];
  for (let v = 0; v < sets[0].joints.getCount(); v++) {
    const merged = new Map<number, number>();
    for (const { joints, weights } of sets) {
      joints.getElement(v, js);
      weights.getElement(v, ws);
      for (let k = 0; k < 4; k++) if (ws[k] !== 0) merged.set(slot[js[k]] ?? 0, (merged.get(slot[js[k]] ?? 0) ?? 0) + ws[k]);
    }
    const entries = [...merged];
    sets.forEach(({ joints, weights }, set) => {
      const part = entries.slice(4 * set, 4 * set + 4);
      while (part.length < 4) part.push([0, 0]);
      joints.setElement(
        v,
        part.map(([joint]) => joint),
      );
      weights.setElement(
        v,
        part.map(([, weight]) => weight),
      );
    });
  }
  sets.forEach(({ joints, weights }, set) => primitive.setAttribute(`JOINTS_${set}`, joints).setAttribute(`WEIGHTS_${set}`, weights));
}

function sameRows(weights: DenseMatrix, start: number, original: GltfImportResult, originalStart: number, count: number): boolean {
  const B = weights.cols;
  if (original.weights.cols !== B) return false;
  const a = weights.data;
  const b = original.weights.data;
  for (let i = 0; i < count * B; i++) if (a[start * B + i] !== b[originalStart * B + i]) return false;
  return true;
}

/**
 * Tolerance on the sum of a vertex's stored weights: the Khronos validator reports a sum off 1 by 9.5e-7 (float32
 * 1 + 2⁻²⁰) as not normalised and takes one off by 3e-7.
 */
const WEIGHT_SUM_TOLERANCE = 5e-7;

/**
 * Whether a skinned primitive's JOINTS_n/WEIGHTS_n are valid glTF as stored (glTF 2.0 §3.7.3.3, as the Khronos
 * validator checks them): every weight finite and ≥ 0, each vertex's weights summing to 1 (WEIGHT_SUM_TOLERANCE), and
 * no joint twice among a vertex's weighted slots. Joint indices past the skin are refused by the importer already.
 */
function storedWeightsValid(primitive: Primitive): boolean {
  const sets: [Accessor, Accessor][] = [];
  for (let set = 0; ; set++) {
    const joints = primitive.getAttribute(`JOINTS_${set}`);
    const weights = primitive.getAttribute(`WEIGHTS_${set}`);
    if (!joints || !weights) break;
    sets.push([joints, weights]);
  }
  if (sets.length === 0) return false;
  const count = sets[0][1].getCount();
  const joint: number[] = [];
  const weight: number[] = [];
  const used = new Set<number>();
  for (let v = 0; v < count; v++) {
    let sum = 0;
    used.clear();
    for (const [joints, weights] of sets) {
      joints.getElement(v, joint);
      weights.getElement(v, weight);
      for (let k = 0; k < 4; k++) {
        const w = weight[k];
        if (!(Number.isFinite(w) && w >= 0)) return false;
        if (w === 0) continue;
        if (used.has(joint[k])) return false;
        used.add(joint[k]);
        sum += w;
      }
    }
    if (!(Math.abs(sum - 1) <= WEIGHT_SUM_TOLERANCE)) return false;
  }
  return true;
}

/** The first skin a mesh node of the default scene uses, depth first. */
function firstUsedSkin(doc: Document): Skin | null {
  const root = doc.getRoot();
  const scene = root.getDefaultScene() ?? root.listScenes()[0];
  const stack = scene ? [...scene.listChildren()].reverse() : [];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.getMesh() && node.getSkin()) return node.getSkin();
    stack.push(...[...node.listChildren()].reverse());
  }
  return null;
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

function isInScene(scene: Scene, node: GltfNode): boolean {
  let top = node;
  while (top.getParentNode()) top = top.getParentNode()!;
  return scene.listChildren().includes(top);
}

function detach(node: GltfNode, scenes: readonly Scene[]): void {
  node.getParentNode()?.removeChild(node);
  for (const scene of scenes) scene.removeChild(node);
}

function localMatrix(node: GltfNode): Float64Array {
  const m = new Float64Array(16);
  composeTrs(
    Float64Array.from(node.getTranslation()),
    0,
    Float64Array.from(node.getRotation()),
    0,
    Float64Array.from(node.getScale()),
    0,
    m,
    0,
  );
  return m;
}

/** A node's world matrix in its rest pose, in double precision. */
function worldMatrix(node: GltfNode): Float64Array {
  const m = localMatrix(node);
  for (let parent = node.getParentNode(); parent; parent = parent.getParentNode()) multiply(localMatrix(parent), 0, m, 0, m, 0);
  return m;
}

function sameMatrix(a: Float64Array, b: Float64Array, diagonal: number): boolean {
  for (let i = 0; i < 16; i++) {
    const scale = i >= 12 && i < 15 ? diagonal : 1;
    if (Math.abs(a[i] - b[i]) > MOVED * scale) return false;
  }
  return true;
}

function readInverseBind(skin: Skin): Float64Array {
  const joints = skin.listJoints();
  const out = new Float64Array(16 * joints.length);
  const accessor = skin.getInverseBindMatrices();
  const element: number[] = [];
  for (let k = 0; k < joints.length; k++) {
    if (accessor) out.set(accessor.getElement(k, element), 16 * k);
    else out[16 * k] = out[16 * k + 5] = out[16 * k + 10] = out[16 * k + 15] = 1;
  }
  return out;
}

/** Translation, rotation and scale of an affine matrix without shear (the node's own convention, glTF 2.0 §3.5.3). */
function decompose(m: Float64Array): { t: [number, number, number]; r: [number, number, number, number]; s: [number, number, number] } {
  const sx = Math.hypot(m[0], m[1], m[2]);
  const sy = Math.hypot(m[4], m[5], m[6]);
  let sz = Math.hypot(m[8], m[9], m[10]);
  const det = m[0] * (m[5] * m[10] - m[6] * m[9]) - m[4] * (m[1] * m[10] - m[2] * m[9]) + m[8] * (m[1] * m[6] - m[2] * m[5]);
  if (det < 0) sz = -sz;
  const rotation = Float64Array.of(m[0] / sx, m[4] / sy, m[8] / sz, m[1] / sx, m[5] / sy, m[9] / sz, m[2] / sx, m[6] / sy, m[10] / sz);
  const q = new Float64Array(4);
  matrixToQuat(rotation, 0, q, 0);
  return { t: [m[12], m[13], m[14]], r: [q[0], q[1], q[2], q[3]], s: [sx, sy, sz] };
}

function setLocalFromWorld(node: GltfNode, world: Float64Array): void {
  const parent = node.getParentNode();
  const local = new Float64Array(16);
  if (parent) {
    const inverse = new Float64Array(16);
    invertAffine(worldMatrix(parent), 0, inverse, 0);
    multiply(inverse, 0, world, 0, local, 0);
  } else {
    local.set(world);
  }
  const { t, r, s } = decompose(local);
  const stored = <T extends number[]>(values: T): T => values.map(Math.fround) as T;
  node.setTranslation(stored(t)).setRotation(stored(r)).setScale(stored(s));
}

/**
 * The bone ends a fresh export writes (BONE_TAIL_EXTRA, exportGltf) kept true in place: a joint node that has one gets
 * the bone's present end in its bind frame (B_b⁻¹ · end), or loses it where the children now give the end; a new
 * joint node gets one where they do not. A file's joint without one keeps its extras as they are (a no-op export
 * changes nothing; its end is the importer's to find, as when it was read).
 */
function writeBoneTails(
  skeleton: Skeleton,
  jointNodes: GltfNode[],
  bindFrames: Float64Array[],
  newBones: readonly number[],
  diagonal: number,
): void {
  const wanted = new Set(bonesWithoutChildTail(skeleton));
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
    if (!has && !newBones.includes(b)) return;
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

/**
 * Each bone's bind frame B_b = C_s · IBM_s,b⁻¹ (its world matrix in the bind pose) from the first skin that has it:
 * the file skins a vertex v by G_b(pose) · IBM_b, our rig poses x = C v by A_b, so G_b(pose) = A_b · B_b.
 */
function bindFramesOf(jointNodes: (GltfNode | null)[], skins: Skin[], skinToWorld: Map<Skin, Float64Array>): Float64Array[] {
  const frames: Float64Array[] = [];
  jointNodes.forEach((node, b) => {
    for (const skin of skins) {
      const k = skin.listJoints().indexOf(node!);
      const c = skinToWorld.get(skin);
      if (k < 0 || !c) continue;
      const ibm = readInverseBind(skin).subarray(16 * k, 16 * k + 16);
      const inverse = new Float64Array(16);
      if (!invertAffine(ibm, 0, inverse, 0)) continue;
      const frame = new Float64Array(16);
      multiply(c, 0, inverse, 0, frame, 0);
      frames[b] = frame;
      return;
    }
    frames[b] = worldMatrix(node!);
  });
  return frames;
}

/**
 * A clip as a new animation on the file's own joint nodes. At each key the rig's forward kinematics gives A_b
 * (rest → posed, world); the joint's posed world matrix is G_b = A_b · B_b (bindFramesOf), and its local TRS is
 * G_parent⁻¹ · G_b, where a parent node that is not a joint follows its nearest joint ancestor rigidly (or stays at
 * rest). Every joint gets a rotation channel; translation and scale channels where they leave the rest values.
 * Keys at the clip's key times, else at frame f / framesPerSecond (matrices), or t = 0 rest and t = 1 s final pose
 * (quaternions); LINEAR.
 */
function writeClip(
  doc: Document,
  clip: GltfClip,
  skeleton: Skeleton,
  jointNodes: GltfNode[],
  bindFrames: Float64Array[],
  restWorld: Map<GltfNode, Float64Array>,
  framesPerSecond: number,
  diagonal: number,
  warnings: string[],
): Animation {
  const { poses } = clip;
  const B = poses.boneCount;
  const keys = poses.kind === 'matrices' ? poses.frameCount : 2;
  const keyTimes = poses.kind === 'matrices' ? poses.times : undefined;
  const times = Float32Array.from({ length: keys }, (_, f) =>
    poses.kind === 'matrices' ? (keyTimes ? keyTimes[f] : f / framesPerSecond) : f,
  );
  const rotations = new Float64Array(9 * B);
  const translations = new Float64Array(3 * B);
  const transforms = new Float64Array(12 * B);
  const boneOf = new Map(jointNodes.map((node, b) => [node, b]));
  const rest = (node: GltfNode): Float64Array => {
    let m = restWorld.get(node);
    if (!m) restWorld.set(node, (m = worldMatrix(node)));
    return m;
  };
  const T = new Float32Array(3 * B * keys);
  const R = new Float32Array(4 * B * keys);
  const S = new Float32Array(3 * B * keys);
  const posed: Float64Array[] = [];
  const a = new Float64Array(16);
  const inverse = new Float64Array(16);
  const local = new Float64Array(16);
  for (let f = 0; f < keys; f++) {
    if (poses.kind === 'matrices') {
      rotations.set(poses.rotations.subarray(9 * B * f, 9 * B * (f + 1)));
      if (poses.translations) translations.set(poses.translations.subarray(3 * B * f, 3 * B * (f + 1)));
      forwardKinematics(skeleton, rotations, transforms, poses.translations ? translations : null);
    } else {
      samplePose(poses, f, rotations);
      forwardKinematics(skeleton, rotations, transforms, null);
    }
    for (const b of skeleton.order) {
      const o = 12 * b;
      a.set([transforms[o], transforms[o + 4], transforms[o + 8], 0, transforms[o + 1], transforms[o + 5], transforms[o + 9], 0]);
      a.set([transforms[o + 2], transforms[o + 6], transforms[o + 10], 0, transforms[o + 3], transforms[o + 7], transforms[o + 11], 1], 8);
      const world = (posed[b] = new Float64Array(16));
      multiply(a, 0, bindFrames[b], 0, world, 0);
      // The parent node's posed world matrix: a joint's, or a plain node's carried by its nearest joint ancestor.
      const parent = jointNodes[b].getParentNode();
      let parentWorld: Float64Array = identity();
      if (parent) {
        let ancestor: GltfNode | null = parent;
        while (ancestor && !boneOf.has(ancestor)) ancestor = ancestor.getParentNode();
        if (!ancestor) parentWorld = rest(parent);
        else {
          const p = boneOf.get(ancestor)!;
          invertAffine(rest(ancestor), 0, inverse, 0);
          parentWorld = new Float64Array(16);
          multiply(inverse, 0, rest(parent), 0, parentWorld, 0);
          multiply(posed[p], 0, parentWorld, 0, parentWorld, 0);
        }
      }
      invertAffine(parentWorld, 0, inverse, 0);
      multiply(inverse, 0, world, 0, local, 0);
      const { t, r, s } = decompose(local);
      T.set(t, 3 * (f * B + b));
      S.set(s, 3 * (f * B + b));
      // Neighbouring keys on one hemisphere, so that players interpolating components take the short way.
      const q = 4 * (f * B + b);
      const flip = f > 0 && r[0] * R[q - 4 * B] + r[1] * R[q - 4 * B + 1] + r[2] * R[q - 4 * B + 2] + r[3] * R[q - 4 * B + 3] < 0 ? -1 : 1;
      for (let k = 0; k < 4; k++) R[q + k] = flip * r[k];
    }
  }
  const buffer = doc.getRoot().listBuffers()[0] ?? doc.createBuffer();
  const input = doc.createAccessor().setType('SCALAR').setArray(times).setBuffer(buffer);
  const animation = doc.createAnimation(clip.name);
  const channel = (node: GltfNode, path: 'rotation' | 'translation' | 'scale', values: Float32Array): void => {
    const output = doc
      .createAccessor()
      .setType(path === 'rotation' ? 'VEC4' : 'VEC3')
      .setArray(values)
      .setBuffer(buffer);
    const sampler = doc.createAnimationSampler().setInput(input).setOutput(output).setInterpolation('LINEAR');
    animation.addSampler(sampler).addChannel(doc.createAnimationChannel().setTargetNode(node).setTargetPath(path).setSampler(sampler));
  };
  let scaled = 0;
  for (let b = 0; b < B; b++) {
    const node = jointNodes[b];
    const pick = (all: Float32Array, width: number): Float32Array => {
      const out = new Float32Array(width * keys);
      for (let f = 0; f < keys; f++) for (let k = 0; k < width; k++) out[width * f + k] = all[width * (f * B + b) + k];
      return out;
    };
    channel(node, 'rotation', pick(R, 4));
    const t = pick(T, 3);
    const restT = node.getTranslation();
    if (t.some((value, i) => Math.abs(value - restT[i % 3]) > MOVED * diagonal)) channel(node, 'translation', t);
    const s = pick(S, 3);
    const restS = node.getScale();
    if (s.some((value, i) => Math.abs(value - restS[i % 3]) > 1e-6 * Math.abs(restS[i % 3]))) {
      channel(node, 'scale', s);
      scaled++;
    }
  }
  if (scaled > 0)
    warnings.push(`clip "${clip.name}": ${scaled} joints get a scale channel (their bind frames are scaled unlike their rest nodes)`);
  return animation;
}

/**
 * A formerly unskinned part joins `skin`: glTF ignores a skinned node's transform, so its positions and normals
 * move from the node's space into the skin's bind space, v' = C⁻¹ · G_node · v; a mesh other nodes share is copied
 * for this node first, so that they keep theirs.
 */
function bindPart(doc: Document, node: GltfNode, primitive: Primitive, skin: Skin, skinToWorld: Float64Array): void {
  const mesh = node.getMesh()!;
  let target = primitive;
  const users = mesh.listParents().filter((parent) => parent.propertyType === 'Node');
  if (users.length > 1) {
    const index = mesh.listPrimitives().indexOf(primitive);
    const copy = doc.createMesh(mesh.getName());
    for (const p of mesh.listPrimitives()) copy.addPrimitive(p.clone());
    node.setMesh(copy);
    target = copy.listPrimitives()[index];
    for (const semantic of ['JOINTS_0', 'WEIGHTS_0', 'JOINTS_1', 'WEIGHTS_1']) primitive.setAttribute(semantic, null);
  }
  const toBind = new Float64Array(16);
  invertAffine(skinToWorld, 0, toBind, 0);
  multiply(toBind, 0, worldMatrix(node), 0, toBind, 0);
  const normalMatrix = new Float64Array(16);
  invertAffine(toBind, 0, normalMatrix, 0);
  const position = target.getAttribute('POSITION')!;
  const element: number[] = [];
  const positions = new Float32Array(3 * position.getCount());
  for (let i = 0; i < position.getCount(); i++) positions.set(transformPoint(toBind, position.getElement(i, element)), 3 * i);
  target.setAttribute('POSITION', doc.createAccessor().setType('VEC3').setArray(positions).setBuffer(position.getBuffer()));
  const normal = target.getAttribute('NORMAL');
  if (normal) {
    const normals = new Float32Array(3 * normal.getCount());
    for (let i = 0; i < normal.getCount(); i++) {
      const [x, y, z] = normal.getElement(i, element);
      // Normals transform by the inverse transpose: n' = (M⁻¹)ᵀ n.
      const n = [
        normalMatrix[0] * x + normalMatrix[1] * y + normalMatrix[2] * z,
        normalMatrix[4] * x + normalMatrix[5] * y + normalMatrix[6] * z,
        normalMatrix[8] * x + normalMatrix[9] * y + normalMatrix[10] * z,
      ];
      const length = Math.hypot(n[0], n[1], n[2]) || 1;
      normals.set([n[0] / length, n[1] / length, n[2] / length], 3 * i);
    }
    target.setAttribute('NORMAL', doc.createAccessor().setType('VEC3').setArray(normals).setBuffer(normal.getBuffer()));
  }
  node.setSkin(skin);
  // Its own transform no longer applies; one left in place would only mislead (and the validator warns), unless
  // children still depend on it.
  if (node.listChildren().length === 0) node.setTranslation([0, 0, 0]).setRotation([0, 0, 0, 1]).setScale([1, 1, 1]);
}

function diagonalOf(positions: Float64Array): number {
  const lo = [Infinity, Infinity, Infinity];
  const hi = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < positions.length; i++) {
    lo[i % 3] = Math.min(lo[i % 3], positions[i]);
    hi[i % 3] = Math.max(hi[i % 3], positions[i]);
  }
  return Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]) || 1;
}
