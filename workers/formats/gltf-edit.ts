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
 *               (gltf/example-morphs.ts, as a fresh export's)
 *   bakes       baked deformation as morph targets after those, one new animation per bake (gltf/baked-morphs.ts)
 *
 * What glTF-Transform's reader drops (extensions it does not read, KHR_animation_pointer channels other than node
 * TRS) is carried over as raw JSON: see gltf-carry.ts.
 *
 * The steps are those of every export (gltf/pipeline.ts); only the start differs (gltf/source-document.ts).
 */
import { GLTF_EXPORT_DEFAULTS, type GltfClip, type GltfExportOptions, type GltfExportResult, type GltfPoseSpace } from './gltf-export.ts';
import type { GltfVertexAnimation } from './gltf-vertex-animation.ts';
import type { DenseMatrix, GltfSource, MeshPart, TriangleMesh } from './types.ts';
import type { Skeleton } from '../rig/skeleton.ts';
import { checkExportScene, exportFail } from './gltf/export-state.ts';
import { checkExportOptions, runExportPipeline } from './gltf/pipeline.ts';
import { sourceState } from './gltf/source-document.ts';

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
  /** example shapes as new morph targets driven by their pose-space weights (see GltfPoseSpace and gltf/example-morphs.ts) */
  poseSpace?: GltfPoseSpace;
  /** baked deformation, each a new clip of morph targets (gltf/baked-morphs.ts) */
  vertexAnimations?: readonly GltfVertexAnimation[];
}

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
  checkExportOptions(opts, exportFail(file));
  checkExportScene(edit, exportFail(file));
  const state = await sourceState(edit.source, edit, edit.parts, file);
  return runExportPipeline(state, edit, opts);
}
