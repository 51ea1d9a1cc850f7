/**
 * What the steps of the one glTF write pipeline share (pipeline.ts): the Document being written and what the scene
 * and the document were before any step ran. An in-place export starts it from the source file
 * (source-document.ts), a fresh export from a new Document built from the scene (fresh-document.ts); every later
 * step is the same for both.
 */
import type { Accessor, Animation, AnimationSampler, Document, Node as GltfNode, Primitive, Skin } from '@gltf-transform/core';
import { FormatError } from '../format-error.ts';
import type { GltfClip, GltfPoseSpace } from '../gltf-export.ts';
import type { GltfVertexAnimation } from '../gltf-vertex-animation.ts';
import type { DenseMatrix, GltfSource, MeshPart, TriangleMesh } from '../types.ts';
import type { Skeleton } from '../../rig/skeleton.ts';
import type { DracoSource } from './keep-draco.ts';
import type { NodeBaseline } from './keep-node-transforms.ts';

/** Throws the export's FormatError for a place and a reason. */
export type Fail = (where: string, reason: string) => never;

/** The scene as every step sees it: what it writes into the Document. */
export interface ExportScene {
  /** the scene's vertices (parts are ranges of them) */
  mesh: TriangleMesh;
  skeleton: Skeleton;
  /** #V × #B */
  weights: DenseMatrix;
  /** #B; a name other than the document's renames that joint node */
  boneNames?: readonly string[];
  clips: readonly GltfClip[];
  /** example shapes as morph targets driven by their pose-space weights (morph-targets.ts) */
  poseSpace?: GltfPoseSpace;
  /** baked deformation, each a clip of morph targets (morph-targets.ts) */
  vertexAnimations?: readonly GltfVertexAnimation[];
}

/** A part as written: its mesh node, the primitives that draw it and which scene vertex each glTF vertex is. */
export interface PartTarget {
  node: GltfNode;
  /** the part's primitives, sharing its vertex accessors: one in a source file; one per material run in a fresh export */
  primitives: Primitive[];
  /** glTF vertex i is scene vertex map[i] (a fresh export splits vertices at OBJ seams); null: part.vertexStart + i */
  map: Uint32Array | null;
}

/** The document as it was before the steps: what "unchanged" means for the weights, the skeleton and the clips. */
export interface DocumentBefore {
  skeleton: Skeleton;
  weights: DenseMatrix;
  parts: readonly MeshPart[];
  boneNames: readonly string[];
  /** each joint's node index, in the document's bone order */
  jointNodes: Int32Array;
}

/** What the reader left out of a source file, carried into the written one as raw JSON (gltf-carry.ts). */
export interface CarryState {
  json: Record<string, unknown>;
  /** the source file and its resources (the bytes of what is carried) */
  source: GltfSource;
  accessors: Accessor[];
  accessorArrays: Map<number, ArrayLike<number>>;
  /** the source's Draco-compressed primitives as read (keep-draco.ts) */
  draco: DracoSource[];
  /** the source's nodes and their transforms before the steps (keep-node-transforms.ts) */
  nodes: NodeBaseline[];
}

/** The pipeline's working state. */
export interface ExportState {
  doc: Document;
  /** the output file, for messages */
  file: string;
  /** the document's own name, for messages (the source file; the output for a fresh export) */
  sourceName: string;
  fail: Fail;
  warnings: string[];
  /** the document's nodes as first read or built: the indices MeshPart.source and jointNodes use */
  nodes: GltfNode[];
  /** #B: each bone's joint node; null until the skeleton step gives a new bone one */
  jointNodes: (GltfNode | null)[];
  before: DocumentBefore;
  /** each bone's bone in `before` (-1: new) */
  originalBone: Int32Array;
  /** joints of the document that no bone names any more: they stay as plain nodes and leave the skins */
  removedNodes: Set<GltfNode>;
  /** bones the skeleton step made new joint nodes for */
  newBones: number[];
  skins: Skin[];
  /** C_s per skin: its bind space into the world, from the document as it was */
  skinToWorld: Map<Skin, Float64Array>;
  /**
   * What the document's start made itself and left to the steps (a fresh document; empty for a source file, which has
   * both as it was written): these skins have their joints but no inverse bind matrices, which the skins step
   * writes (inverse-binds.ts; their bind space is the world, C_s the identity), and these bones' joint nodes have
   * no bone end, which the bone-ends step writes where the children do not give it (bone-tails.ts).
   */
  built: { skins: ReadonlySet<Skin>; bones: readonly number[] };
  /** the skin a part that joins a skin joins; null when the document has no skinned mesh */
  firstSkin: Skin | null;
  /** each joint node's rest world matrix before the skeleton step */
  restBefore: Map<GltfNode, Float64Array>;
  parts: readonly MeshPart[];
  partTargets: (PartTarget | null)[];
  /** the scene mesh's bounding box diagonal: the scale of "moved" */
  diagonal: number;
  animationsBefore: Animation[];
  samplersRead: AnimationSampler[][];
  carry: CarryState | null;
  /** accessors no property used before the steps: they stay, while those the steps orphan go */
  unusedBefore: Set<Accessor>;
}

/** The FormatError thrower of an export to `file`. */
export function exportFail(file: string): Fail {
  return (where: string, reason: string): never => {
    throw new FormatError(file, where, `glTF export: ${reason}`);
  };
}

/**
 * Checks what both exports need of the scene: triangles (a mesh of points alone would be left out, and a file without
 * a mesh is no rig), weights of #V × #B, clips posing #B bones, examples of #V vertices.
 * (Each step checks its own options: pipeline.ts checkExportOptions.)
 * @throws through `fail`, naming the place and the reason
 */
export function checkExportScene(scene: ExportScene, fail: Fail): void {
  const { skeleton, weights } = scene;
  const boneCount = skeleton.parents.length;
  const vertexCount = scene.mesh.positions.length / 3;
  if (scene.mesh.triangles.length === 0)
    fail('mesh', `${vertexCount} vertices and no triangles: only triangle meshes are written, so there is nothing to write`);
  if (weights.rows !== vertexCount || weights.cols !== boneCount)
    fail('weights', `${weights.rows} × ${weights.cols} weights do not fit ${vertexCount} vertices × ${boneCount} bones`);
  for (const clip of scene.clips)
    if (clip.poses.boneCount !== boneCount)
      fail(`clip "${clip.name}"`, `poses are for ${clip.poses.boneCount} bones, the skeleton has ${boneCount}`);
  const poseSpace = scene.poseSpace;
  const exampleCount = poseSpace?.names.length ?? 0;
  if (poseSpace && poseSpace.displacements.length !== exampleCount * scene.mesh.positions.length)
    fail('examples', `${poseSpace.displacements.length / 3} displacements for ${exampleCount} examples × ${vertexCount} vertices`);
}

/** Scene vertex of a part's glTF vertex i. */
export function sceneVertex(part: MeshPart, target: PartTarget, i: number): number {
  return target.map ? target.map[i] : part.vertexStart + i;
}

/** How many glTF vertices a part's primitives have. */
export function targetVertexCount(part: MeshPart, target: PartTarget): number {
  return target.map ? target.map.length : part.vertexCount;
}
