/**
 * Skinned glTF 2.0 export (GLB, or .gltf + .bin): the scene's types for it (GltfRig, GltfClip, GltfPoseSpace), the
 * options, and the fresh export. A fresh export is an in-place edit of a new document: it builds a glTF-Transform
 * Document from the scene (gltf/fresh-document.ts: meshes, materials, joint nodes with the bones' names, skins) and
 * then runs the same steps as an in-place export (gltf/pipeline.ts: weights, inverse bind matrices, clips with their
 * curves, morph targets, compression, notices, writing).
 */
import { PoseSpaceError, poseSpaceInterpolator, type PoseSpaceInterpolator, type RbfKernel } from '../posespace/pose-space-weights.ts';
import { unposeExamples } from '../posespace/unpose.ts';
import { FormatError, MAX_FILE_NAME_SHOWN, printableLine } from './format-error.ts';
import { CLIPS_DEFAULTS, type ClipsOptions } from './gltf/clips-options.ts';
import { SKIN_WEIGHTS_DEFAULTS, type SkinWeightsOptions } from './gltf/skin-weights-options.ts';
import { WRITE_DEFAULTS, type WriteOptions } from './gltf/write-options.ts';
import type { GltfVertexAnimation } from './gltf-vertex-animation.ts';
import type { DenseMatrix, GltfSource, MeshPart, ObjCorners, SurfaceLook, TriangleMesh } from './types.ts';
import type { Skeleton } from '../rig/skeleton.ts';
import type { PoseSequence } from '../rig/pose-sequence.ts';
import { influencesFromWeights } from '../skinning/influences.ts';

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
  /**
   * L·B uniform scales of the joints at each frame, frame-major (gltf/clip-scales.ts: what a pose file made from a
   * clip whose joints scale leaves out); a fresh export writes them as scale channels. Absent: every joint at scale 1.
   */
  scales?: Float64Array;
}

/**
 * What is exported. Bones are indexed in skeleton order; with one skin, skin joint k is bone k (skinned meshes that
 * share no weighted bone get skins of their own: gltf/fresh-document.ts).
 */
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
  /** the meshes, each written as its own mesh node; absent: one mesh of everything */
  parts?: readonly MeshPart[];
  /** texture coordinates (TEXCOORD_0, when there are no OBJ corners) and the materials parts name */
  look?: SurfaceLook;
  /** OBJ vt/vn per triangle corner: TEXCOORD_0 and NORMAL, splitting vertices where corners of one vertex differ */
  objCorners?: ObjCorners;
  /**
   * the glTF the scene was read from, when it is exported fresh all the same: what that file holds and a fresh export
   * cannot write (vertex colours, more texture coordinate sets, its tangents, cameras, lights, animation of nodes that
   * are not joints) is named in the notices (gltf/fresh-losses.ts, from the file's JSON alone: `resources` may be
   * empty); exportGltfInPlace keeps it all
   */
  source?: Pick<GltfSource, 'file' | 'bytes' | 'resources'>;
}

/**
 * Per-vertex context LBS (workers/posespace/context-skinning.ts), v = T(P) (v0 + Σ_j a_j(P) δ_j), in glTF terms:
 * glTF applies morph targets before skinning (glTF 2.0 §3.7.2 and §3.7.3), so targets holding the examples'
 * rest-space displacements δ_j, with the weights a_j(P(t)) animated in every clip, are exactly context LBS at every
 * keyframe, in any player. Weights outside [0, 1] are split over two targets per example (gltf/morph-channels.ts
 * planExampleTargets).
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

/**
 * The export's options: each step's own (gltf/pipeline.ts: the weights, clips and write steps' XOptions, with their
 * X_DEFAULTS beside them). A missing field takes GLTF_EXPORT_DEFAULTS.
 */
export interface GltfExportOptions extends WriteOptions, SkinWeightsOptions, ClipsOptions {}

/** Every step's defaults, as the steps state them. */
export const GLTF_EXPORT_DEFAULTS: Required<GltfExportOptions> = { ...WRITE_DEFAULTS, ...SKIN_WEIGHTS_DEFAULTS, ...CLIPS_DEFAULTS };

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
  // Loaded on demand: the page imports this module for its types and defaults and should not carry the writer.
  const [{ checkExportScene, exportFail }, { freshState }, { checkExportOptions, runExportPipeline }] = await Promise.all([
    import('./gltf/export-state.ts'),
    import('./gltf/fresh-document.ts'),
    import('./gltf/pipeline.ts'),
  ]);
  // Every clip is new to the new document, whatever file it was once read from.
  const clips = (rig.clips ?? []).map(({ name, poses, scales }): GltfClip => ({ name, poses, ...(scales ? { scales } : {}) }));
  const scene = { ...rig, clips };
  checkExportOptions(opts, exportFail(file));
  checkExportScene(scene, exportFail(file));
  const state = await freshState(rig, file, opts.influences);
  const result = await runExportPipeline(state, scene, opts);
  if (rig.source) {
    const [{ gltfJson }, { freshExportLosses }] = await Promise.all([import('./gltf-resource-uris.ts'), import('./gltf/fresh-losses.ts')]);
    let json: unknown;
    try {
      json = gltfJson(rig.source.bytes, rig.source.file);
    } catch (error) {
      // The source only informs the notices: one that no longer reads does not stop the export.
      if (!(error instanceof FormatError)) throw error;
      const shown = printableLine(rig.source.file, MAX_FILE_NAME_SHOWN);
      result.warnings.push(`what the export leaves out of ${shown} could not be checked: ${error.message}`);
      return result;
    }
    result.warnings.push(...freshExportLosses(json, rig.source.file));
  }
  return result;
}

export { droppedWeight } from './gltf-skin-weights.ts';
