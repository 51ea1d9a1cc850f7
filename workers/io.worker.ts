/**
 * The file-reading worker: parsing, validating and provisional binding run here so the viewport keeps animating
 * while a large mesh or weight matrix loads. A thin comlink wrapper; every typed array it returns is transferred,
 * not copied. Errors (FormatError) reach the caller as rejected promises with the same message.
 */
import { expose, transfer } from 'comlink';
import { readRigFile, type RigFile } from './formats/read-file.ts';
import { weightsFromDmat, handlesFromDmat } from './formats/weights-file.ts';
import { poseSequenceFromDmat } from './formats/pose-file.ts';
import { poseSequenceFromTransforms, type TransformAnimationClip } from './formats/transform-animation.ts';
import { boneDistanceWeights } from './weights/bone-distance-weights.ts';
import type { DenseMatrix } from './formats/types.ts';
import type { PoseSequence } from './rig/pose-sequence.ts';
import type { Skeleton } from './rig/skeleton.ts';
import { importGltf, type GltfImportResult } from './formats/gltf-import.ts';
import {
  GLTF_EXPORT_DEFAULTS,
  examplePoseSpace,
  exportGltf,
  type GltfExamples,
  type GltfExportOptions,
  type GltfExportResult,
  type GltfPoseSpace,
  type GltfRig,
} from './formats/gltf-export.ts';
import type { GltfVertexAnimation } from './formats/gltf-vertex-animation.ts';
import { exportGltfInPlace, type GltfEdit } from './formats/gltf-edit.ts';
import { skinningVertexAnimation, type SkinningBake } from './formats/gltf-skinning-bake.ts';
import { writeProjectFile, type ProjectContents } from './formats/project-file.ts';
import { readWeightedAsset, type AssetFile, type WeightedAsset } from './formats/weighted-asset.ts';

/** Marks the distinct buffers of `arrays` for transfer (a buffer listed twice would make postMessage throw). */
function transferred<T>(value: T, arrays: ArrayBufferView[]): T {
  const buffers = new Set<ArrayBuffer>();
  for (const array of arrays) buffers.add(array.buffer as ArrayBuffer);
  return transfer(value, [...buffers]);
}

function rigFileArrays(file: RigFile): ArrayBufferView[] {
  switch (file.kind) {
    case 'mesh':
      return [file.mesh.positions, file.mesh.triangles];
    case 'skeleton':
      return [file.skeleton.joints, file.skeleton.bones];
    case 'matrix':
      return [file.matrix.data];
    case 'names':
      return [];
  }
}

export const ioApi = {
  /** Reads one .obj/.off/.tgf/.names/.dmat file (see workers/formats/read-file.ts). */
  readRigFile(name: string, bytes: Uint8Array): RigFile {
    const file = readRigFile(name, bytes);
    return transferred(file, rigFileArrays(file));
  },

  /** #V × #B weights from a DMAT, with warnings for negative weights or rows far from summing to 1. */
  weightsFromDmat(matrix: DenseMatrix, vertexCount: number, boneCount: number, file: string): { weights: DenseMatrix; warnings: string[] } {
    const result = weightsFromDmat(matrix, vertexCount, boneCount, file);
    return transferred(result, [result.weights.data]);
  },

  /** A pose sequence for B bones from a `3·B·L × 3` or `4B × 1` DMAT. */
  poseSequenceFromDmat(matrix: DenseMatrix, boneCount: number, file: string): PoseSequence {
    const poses = poseSequenceFromDmat(matrix, boneCount, file);
    return transferred(poses, [poses.kind === 'matrices' ? poses.rotations : poses.final]);
  },

  /** A clip for the skeleton from libigl's animation of absolute bone transforms, a `12·B × L` DMAT (transform-animation.ts). */
  poseSequenceFromTransforms(matrix: DenseMatrix, skeleton: Skeleton, file: string): TransformAnimationClip {
    const clip = poseSequenceFromTransforms(matrix, skeleton, file);
    const { poses } = clip;
    const arrays: ArrayBufferView[] = poses.kind === 'matrices' ? [poses.rotations] : [poses.final];
    if (poses.kind === 'matrices' && poses.translations) arrays.push(poses.translations);
    return transferred(clip, arrays);
  },

  /** #V handle bone indices (-1 = free) from a `#V × 1` DMAT. */
  handlesFromDmat(matrix: DenseMatrix, vertexCount: number, boneCount: number, file: string): Int32Array {
    const handles = handlesFromDmat(matrix, vertexCount, boneCount, file);
    return transferred(handles, [handles]);
  },

  /** A rigged glTF (GLB, or .gltf with its resources by URI): meshes as parts, skeleton, weights, clips, look and the file kept for in-place export (gltf-import.ts). */
  async importGltf(name: string, bytes: Uint8Array, resources: Record<string, Uint8Array>): Promise<GltfImportResult> {
    const rig = await importGltf(bytes, name, resources);
    const { mesh, skeleton } = rig;
    const arrays: ArrayBufferView[] = [
      mesh.positions,
      mesh.triangles,
      rig.normals,
      skeleton.joints,
      skeleton.bones,
      skeleton.parents,
      skeleton.order,
      rig.weights.data,
      rig.gltfSource.bytes,
      rig.gltfSource.jointNodes,
      ...Object.values(rig.gltfSource.resources),
    ];
    if (rig.look.uvs) arrays.push(rig.look.uvs);
    for (const material of rig.look.materials) if (material.baseColorTexture) arrays.push(material.baseColorTexture.bytes);
    for (const { poses } of rig.clips) {
      arrays.push(poses.kind === 'matrices' ? poses.rotations : poses.final);
      if (poses.kind === 'matrices' && poses.translations) arrays.push(poses.translations);
    }
    return transferred(rig, arrays);
  },

  /** A skinned glTF (gltf-export.ts) of the scene, with its bakes and examples as morph targets (sceneMorphs). */
  async exportGltf(
    rig: Omit<GltfRig, 'vertexAnimations'>,
    file: string,
    options: GltfExportOptions,
    bakes: SkinningBake[],
    examples: GltfExamples | null = null,
    handles: Int32Array | null = null,
  ): Promise<GltfExportResult> {
    const { vertexAnimations, poseSpace, warnings } = sceneMorphs(rig, options, bakes, examples, handles);
    const result = await exportGltf({ ...rig, vertexAnimations, poseSpace }, file, options);
    result.warnings.unshift(...warnings);
    return transferred(result, [result.bytes, ...Object.values(result.resources)]);
  },

  /**
   * The scene's source glTF written back with the scene's changes (gltf-edit.ts), its bakes and examples as new
   * morph targets (sceneMorphs, gltf/example-morphs.ts and gltf/baked-morphs.ts).
   */
  async exportGltfInPlace(
    edit: Omit<GltfEdit, 'poseSpace' | 'vertexAnimations'>,
    file: string,
    options: GltfExportOptions,
    bakes: SkinningBake[],
    examples: GltfExamples | null = null,
    handles: Int32Array | null = null,
  ): Promise<GltfExportResult> {
    const { vertexAnimations, poseSpace, warnings } = sceneMorphs(edit, options, bakes, examples, handles);
    const result = await exportGltfInPlace({ ...edit, vertexAnimations, poseSpace }, file, options);
    result.warnings.unshift(...warnings);
    return transferred(result, [result.bytes, ...Object.values(result.resources)]);
  },

  /** A project file (project-file.ts), written here so the page's thread stays free (autosave). */
  async encodeProject(contents: Omit<ProjectContents, 'formatVersion'>, fileName: string): Promise<Uint8Array> {
    const bytes = await writeProjectFile(contents, fileName);
    return transferred(bytes, [bytes]);
  },

  /** A weighted mesh to transfer weights from: a project, a rigged glTF, or a mesh with its weights (weighted-asset.ts). */
  async readWeightedAsset(files: AssetFile[]): Promise<WeightedAsset> {
    const asset = await readWeightedAsset(files);
    return transferred(asset, [asset.mesh.positions, asset.mesh.triangles, asset.weights.data]);
  },

  /** Provisional #V × #B weights by inverse distance to the bones. */
  boneDistanceWeights(positions: Float64Array, skeleton: Skeleton): DenseMatrix {
    const weights = boneDistanceWeights(positions, skeleton);
    return transferred(weights, [weights.data]);
  },
};

export type IoApi = typeof ioApi;

/**
 * What both glTF exports add to the scene, computed here: each of `bakes` a clip of morph targets skinned on the CPU
 * (gltf-skinning-bake.ts), since a callback cannot cross into the worker, and `examples` the pose space of their morph
 * targets (context LBS, examplePoseSpace), unposed with the influences the file stores. A per-face bake is set up as
 * the viewport's: fixed vertices from `handles` (the scene's, or null), and for per-face context the same
 * `examples`, unposed per face on the bake's factor.
 */
function sceneMorphs(
  scene: Pick<GltfRig, 'mesh' | 'skeleton' | 'weights'>,
  options: GltfExportOptions,
  bakes: SkinningBake[],
  examples: GltfExamples | null,
  handles: Int32Array | null,
): { vertexAnimations: GltfVertexAnimation[]; poseSpace: GltfPoseSpace | undefined; warnings: string[] } {
  const framesPerSecond = options.framesPerSecond ?? GLTF_EXPORT_DEFAULTS.framesPerSecond;
  const perFace = { triangles: scene.mesh.triangles, handles, examples };
  const vertexAnimations = bakes.map((bake) =>
    skinningVertexAnimation(scene.mesh.positions, scene.skeleton, scene.weights, bake, framesPerSecond, perFace),
  );
  if (!examples || examples.names.length === 0) return { vertexAnimations, poseSpace: undefined, warnings: [] };
  const { poseSpace, warnings } = examplePoseSpace(scene, examples, options.influences ?? GLTF_EXPORT_DEFAULTS.influences);
  return { vertexAnimations, poseSpace, warnings };
}

expose(ioApi);
