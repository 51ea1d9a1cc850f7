/**
 * Runs a glTF export of the scene in the io worker and saves the result through the bridge: a GLB as one file (the
 * desktop shell's save dialog, or a download on the web), a .gltf with its .bin and images as one asset (one
 * question where, the images at their URIs beside it: RigwrightBridge.saveAsset).
 */
import type { RigwrightBridge } from '../../app/ipc-contract.ts';
import type { GltfEdit } from '../../workers/formats/gltf-edit.ts';
import type { GltfClip, GltfExamples, GltfExportOptions } from '../../workers/formats/gltf-export.ts';
import type { GltfSource } from '../../workers/formats/types.ts';
import type { RbfKernel } from '../../workers/posespace/pose-space-weights.ts';
import type { BakeableSkinMethod, SkinningBake } from '../../workers/formats/gltf-skinning-bake.ts';
import type { DualQuaternionAntipodality } from '../../workers/skinning/dual-quaternion-skinning.ts';
import type { ExportChoice } from '../panels/export-dialog.ts';
import type { IoClient } from './io-client.ts';
import { activeExamplesOf, type SceneDocument } from '../../workers/scene/scene-document.ts';
import { boneNamesOf } from '../../workers/scene/bone-fields.ts';

/** How the scene is being skinned, for the bake. */
export interface BakeSettings {
  method: BakeableSkinMethod;
  /** influences kept per vertex in the viewport (0 = all) */
  influences: number;
  antipodality: DualQuaternionAntipodality;
  /** the RBF kernel of the examples' pose-space weights */
  kernel: RbfKernel;
}

/** The clip name of the scene's current pose sequence. */
export function clipNameOf(doc: SceneDocument): string | null {
  if (!doc.poses) return null;
  return (doc.posesFile ?? 'pose').replace(/\.dmat$/i, '');
}

/**
 * @param doc     the scene to write (its mesh, rest normals, skeleton, weights, bone names, clips (sceneClips),
 *                its meshes (parts), look and OBJ corners, and its examples not hidden, as morph targets driven by
 *                their pose-space weights: context LBS)
 * @param choice  from the export dialog
 * @param bake    the viewport's method and influences, used when choice.bake is set; a per-face bake is set up as the
 *                viewport's (the scene's handles fix its stitching, its shown examples drive per-face context)
 * @returns the export's warnings, one sentence each
 * @throws FormatError from the export (naming the export, the file and the reason), or an Error when saving fails
 */
export async function exportSceneAsGltf(
  doc: SceneDocument,
  choice: ExportChoice,
  bake: BakeSettings,
  io: IoClient,
  bridge: RigwrightBridge,
): Promise<string[]> {
  const clipName = clipNameOf(doc);
  const base = choice.fileName.replace(/\.(glb|gltf)$/i, '');
  const bakes: SkinningBake[] =
    choice.bake && doc.poses && clipName !== null
      ? [
          {
            name: `${clipName} (${bake.method} baked)`,
            method: bake.method,
            poses: doc.poses,
            influences: bake.influences,
            antipodality: bake.antipodality,
          },
        ]
      : [];
  const options: GltfExportOptions = {
    format: choice.format,
    influences: choice.influences,
    weightComponent: choice.weightComponent,
    compression: choice.compression,
    basename: base,
  };
  const shown = activeExamplesOf(doc);
  const examples: GltfExamples | null =
    shown.length > 0
      ? { names: shown.map((e) => e.name), positions: shown.map((e) => e.positions), poses: shown.map((e) => e.pose), kernel: bake.kernel }
      : null;
  const result = doc.gltfSource
    ? await io.exportGltfInPlace(inPlaceEdit(doc, doc.gltfSource, choice, clipName), choice.fileName, options, bakes, examples, doc.handles)
    : await io.exportGltf(
        {
          mesh: doc.mesh,
          normals: doc.restNormals,
          skeleton: doc.skeleton,
          weights: doc.weights,
          boneNames: [...boneNamesOf(doc)],
          clips: choice.includeClip ? sceneClips(doc, clipName) : [],
          name: base,
          // The asset as loaded: its meshes, texture coordinates, materials and OBJ vt/vn.
          ...(doc.parts ? { parts: doc.parts } : {}),
          ...(doc.look ? { look: doc.look } : {}),
          ...(doc.objCorners ? { objCorners: doc.objCorners } : {}),
        },
        choice.fileName,
        options,
        bakes,
        examples,
        doc.handles,
      );
  const resources = Object.entries(result.resources).map(([uri, bytes]) => ({ uri, bytes }));
  if (resources.length === 0) await bridge.saveFile({ suggestedName: choice.fileName, bytes: result.bytes });
  else await bridge.saveAsset({ suggestedName: choice.fileName, bytes: result.bytes, resources });
  return result.warnings;
}

/**
 * The clips an export writes: every clip of the scene (keyed clips included), and the current pose sequence as a new
 * clip when it is none of them (under its name, or `<name> (edited)` when a clip has that name).
 */
export function sceneClips(doc: SceneDocument, clipName: string | null): GltfClip[] {
  const clips: GltfClip[] = [...(doc.clips ?? [])];
  if (doc.poses && clipName !== null && !clips.some((clip) => clip.poses === doc.poses))
    clips.push({ name: clips.some((clip) => clip.name === clipName) ? `${clipName} (edited)` : clipName, poses: doc.poses });
  return clips;
}

/**
 * A scene imported from glTF goes back into its file (workers/formats/gltf-edit.ts): every clip of the scene (the
 * file's unchanged ones stay as they are), and the current pose sequence as a new clip when it is none of them.
 * The examples not hidden become new morph targets (keyed on the new clips), and a baked skinning clip new morph
 * targets after them (workers/formats/gltf/baked-morphs.ts).
 */
function inPlaceEdit(
  doc: SceneDocument,
  source: GltfSource,
  choice: ExportChoice,
  clipName: string | null,
): Omit<GltfEdit, 'poseSpace' | 'vertexAnimations'> {
  const clips = choice.includeClip ? sceneClips(doc, clipName) : [...(doc.clips ?? [])];
  return {
    source,
    mesh: doc.mesh,
    skeleton: doc.skeleton,
    weights: doc.weights,
    boneNames: [...boneNamesOf(doc)],
    clips,
    parts: doc.parts ? [...doc.parts] : undefined,
  };
}
