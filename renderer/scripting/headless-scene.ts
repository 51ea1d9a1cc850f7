/**
 * Files into a scene and a scene into glTF without the page: File → Import's loader (document/load-files.ts) with the
 * io worker's readers called in-process, so that `rigwright run --scene` and a script's `rig.files.open` start from
 * the very document the app opens (the same provisional weights, parts, names and warnings); and File → Export
 * glTF…'s choice of what goes into the file (the asset as loaded, every clip, the glTF a scene came from edited in
 * place) handed to the export functions the io worker runs. No DOM, no worker.
 */
import type { OpenedFile } from '../../app/ipc-contract.ts';
import { loadIntoDocument } from '../document/load-files.ts';
import type { IoClient } from '../io/io-client.ts';
import { sceneClips, clipNameOf } from '../io/gltf-export-action.ts';
import { exportGltfInPlace } from '../../workers/formats/gltf-edit.ts';
import { exportGltf, type GltfExportOptions, type GltfExportResult } from '../../workers/formats/gltf-export.ts';
import { importGltf } from '../../workers/formats/gltf-import.ts';
import { poseSequenceFromDmat } from '../../workers/formats/pose-file.ts';
import { readRigFile } from '../../workers/formats/read-file.ts';
import { poseSequenceFromTransforms } from '../../workers/formats/transform-animation.ts';
import { handlesFromDmat, weightsFromDmat } from '../../workers/formats/weights-file.ts';
import { boneNamesOf } from '../../workers/scene/bone-fields.ts';
import { activeExamplesOf, demoDocument, type SceneDocument } from '../../workers/scene/scene-document.ts';
import { boneDistanceWeights } from '../../workers/weights/bone-distance-weights.ts';

/** The io worker's readers the loader calls, run here (the worker's own functions, on the same arguments). */
const inProcessIo = {
  readRigFile: (name: string, bytes: Uint8Array) => Promise.resolve(readRigFile(name, bytes)),
  weightsFromDmat: (...args: Parameters<typeof weightsFromDmat>) => Promise.resolve(weightsFromDmat(...args)),
  poseSequenceFromDmat: (...args: Parameters<typeof poseSequenceFromDmat>) => Promise.resolve(poseSequenceFromDmat(...args)),
  handlesFromDmat: (...args: Parameters<typeof handlesFromDmat>) => Promise.resolve(handlesFromDmat(...args)),
  poseSequenceFromTransforms: (...args: Parameters<typeof poseSequenceFromTransforms>) =>
    Promise.resolve(poseSequenceFromTransforms(...args)),
  boneDistanceWeights: (...args: Parameters<typeof boneDistanceWeights>) => Promise.resolve(boneDistanceWeights(...args)),
  importGltf: (name: string, bytes: Uint8Array, resources: Record<string, Uint8Array>) =>
    Promise.resolve(importGltf(bytes, name, resources)),
} as unknown as IoClient;

/**
 * A scene from a batch of files, as the app opens them over its start-up scene: a mesh with its skeleton, weights,
 * handles and poses (.obj/.off, .tgf with its .names, .dmat), or a glTF (.glb, or .gltf with its .bin and images).
 * @param files    the batch, in any order, each named as the loader matches it (its base name)
 * @param current  the scene the batch goes into (a DMAT alone changes it); default the app's start-up demo
 * @returns the new document, fully validated
 * @throws FormatError or LoadError naming the file, the place and the reason
 */
export function sceneFromFiles(files: readonly OpenedFile[], current: SceneDocument = demoDocument()): Promise<SceneDocument> {
  return loadIntoDocument(current, files, inProcessIo);
}

/**
 * The scene as a glTF, as File → Export glTF… writes it with its clip included and nothing baked: a scene imported
 * from glTF goes back into its file (its meshes, materials, names and other clips kept), any other scene becomes a
 * new asset of its meshes, look and OBJ corners; every clip of the scene, and the pose sequence shown as a clip of
 * its own when it is none of them (sceneClips). Examples are not written headless: the result's warnings say so.
 * @param fileName  the output's name (its base name names the .bin of a .gltf)
 * @returns the file's bytes, the resources a .gltf refers to, and the export's warnings
 * @throws FormatError naming the export, the file and the reason
 */
export async function exportSceneGltf(doc: SceneDocument, fileName: string, options: GltfExportOptions): Promise<GltfExportResult> {
  const clips = sceneClips(doc, clipNameOf(doc));
  const boneNames = [...boneNamesOf(doc)];
  const result = doc.gltfSource
    ? await exportGltfInPlace(
        {
          source: doc.gltfSource,
          mesh: doc.mesh,
          skeleton: doc.skeleton,
          weights: doc.weights,
          boneNames,
          clips,
          parts: doc.parts ? [...doc.parts] : undefined,
        },
        fileName,
        options,
      )
    : await exportGltf(
        {
          mesh: doc.mesh,
          normals: doc.restNormals,
          skeleton: doc.skeleton,
          weights: doc.weights,
          boneNames,
          clips,
          name: fileName.replace(/\.(glb|gltf)$/i, ''),
          ...(doc.parts ? { parts: doc.parts } : {}),
          ...(doc.look ? { look: doc.look } : {}),
          ...(doc.objCorners ? { objCorners: doc.objCorners } : {}),
        },
        fileName,
        options,
      );
  const examples = activeExamplesOf(doc).length;
  if (examples > 0)
    result.warnings.push(`${examples} example shape${examples === 1 ? ' is' : 's are'} not written headless; export them from the app`);
  return result;
}
