/**
 * The one glTF write pipeline. An export starts from a Document (the source file read again for an in-place export,
 * source-document.ts; a new one built from the scene for a fresh export, fresh-document.ts) and then runs the same
 * steps, in this order:
 *   skeleton      joint nodes where the scene's bones are (skeleton-step.ts)
 *   skins         each skin's joints and inverse bind matrices: a fresh document's skins get all of theirs here
 *                 (inverse-binds.ts)
 *   weights       JOINTS_n/WEIGHTS_n of the parts whose weights changed, parts that join a skin (skin-weights-step.ts)
 *   clips         kept, removed and new animations, each with its own name (clips-step.ts)
 *   bone ends     the joints' tail extras: a fresh document's joints get theirs here (bone-tails.ts)
 *   examples      example shapes as morph targets keyed in the new clips (example-morphs.ts)
 *   bakes         baked deformation as morph targets and clips (baked-morphs.ts)
 *   storable      every number made fits the file (no float32 or transform overflow), and a mesh is skinned
 *                 (storable.ts)
 *   write         orphaned accessors out, the reader's leftovers carried, what nothing changed written as the source
 *                 wrote it, compression, GLB or .gltf (write-step.ts)
 * Every step adds its notices to the same list. A step that takes options has its own (XOptions and X_DEFAULTS in a small
 * file of its own, which the page loads without the writer: skin-weights-options.ts, clips-options.ts,
 * write-options.ts; GltfExportOptions is all of them) and is handed only those.
 */
import type { GltfExportOptions, GltfExportResult } from '../gltf-export.ts';
import { addBakedMorphs } from './baked-morphs.ts';
import { skinnedNodesToRoot } from './bind-part.ts';
import { writeBoneTails } from './bone-tails.ts';
import { checkClipsOptions } from './clips-options.ts';
import { removeUnkeptAnimations, writeNewClips } from './clips-step.ts';
import { addExampleMorphs } from './example-morphs.ts';
import type { ExportScene, ExportState, Fail } from './export-state.ts';
import type { Node as GltfNode } from '@gltf-transform/core';
import { bindFramesOf, updateSkins } from './inverse-binds.ts';
import { placeJoints } from './skeleton-step.ts';
import { checkSkinnedMesh, checkStorable } from './storable.ts';
import { checkWriteOptions } from './write-options.ts';
import { checkSkinWeightsOptions } from './skin-weights-options.ts';
import { writeSkinWeights } from './skin-weights-step.ts';
import { disposeOrphanAccessors, writeDocument } from './write-step.ts';

/**
 * Checks every step's options (each step's own check).
 * @throws through `fail`, naming the reason
 */
export function checkExportOptions(opts: Required<GltfExportOptions>, fail: Fail): void {
  checkSkinWeightsOptions(opts, fail);
  checkClipsOptions(opts, fail);
  checkWriteOptions(opts, fail);
}

/**
 * Runs the steps on `state` for `scene` and writes the file.
 * @param opts every step's options (GLTF_EXPORT_DEFAULTS filled in); each step is handed its own only
 * @returns the file bytes, external resources and the warnings of every step
 * @throws FormatError naming the export, the file and the reason when the scene does not fit the document
 */
export async function runExportPipeline(
  state: ExportState,
  scene: ExportScene,
  opts: Required<GltfExportOptions>,
): Promise<GltfExportResult> {
  const { influences, weightComponent, framesPerSecond, format, basename, compression } = opts;
  const clips = { framesPerSecond };
  placeJoints(state, scene);
  const skinJoints = updateSkins(state, scene);
  const bound = writeSkinWeights(state, scene, skinJoints, { influences, weightComponent });
  // Only the nodes this export binds move; the source's own hierarchy stays as it is.
  skinnedNodesToRoot(state.doc, bound, state.warnings);
  const kept = removeUnkeptAnimations(state, scene);
  const jointNodes = state.jointNodes as GltfNode[];
  const bindFrames = bindFramesOf(jointNodes, state.skins, state.skinToWorld);
  writeBoneTails(scene.skeleton, jointNodes, bindFrames, [...state.built.bones, ...state.newBones], state.diagonal);
  const examples = scene.poseSpace ? addExampleMorphs(state, scene, scene.poseSpace) : null;
  writeNewClips(state, scene, bindFrames, kept.inherited, examples?.key ?? null, clips);
  addBakedMorphs(state, scene, examples, clips);
  disposeOrphanAccessors(state);
  checkStorable(state);
  checkSkinnedMesh(state, scene.weights);
  return writeDocument(state, kept, { format, basename, compression });
}
