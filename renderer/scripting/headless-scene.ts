/**
 * Files into a scene without the page, as File → Import makes it: the app's own loader (document/load-files.ts) with
 * the io worker's readers called in-process, so that `rigwright run --scene` and a script's `rig.files.open` start
 * from the very document the app opens (the same provisional weights, parts, names and warnings). No DOM, no worker.
 */
import type { OpenedFile } from '../../app/ipc-contract.ts';
import { loadIntoDocument } from '../document/load-files.ts';
import type { IoClient } from '../io/io-client.ts';
import { importGltf } from '../../workers/formats/gltf-import.ts';
import { poseSequenceFromDmat } from '../../workers/formats/pose-file.ts';
import { readRigFile } from '../../workers/formats/read-file.ts';
import { poseSequenceFromTransforms } from '../../workers/formats/transform-animation.ts';
import { handlesFromDmat, weightsFromDmat } from '../../workers/formats/weights-file.ts';
import { demoDocument, type SceneDocument } from '../../workers/scene/scene-document.ts';
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
