/**
 * The io worker's API called in-process, for tests that load files as the page does (loadIntoDocument) without a
 * worker, and a batch file made from text.
 */
import type { OpenedFile } from '../../app/ipc-contract.ts';
import type { IoClient } from '../../renderer/io/io-client.ts';
import { poseSequenceFromDmat } from '../../workers/formats/pose-file.ts';
import { readRigFile } from '../../workers/formats/read-file.ts';
import { poseSequenceFromTransforms } from '../../workers/formats/transform-animation.ts';
import { importGltf } from '../../workers/formats/gltf-import.ts';
import { handlesFromDmat, weightsFromDmat } from '../../workers/formats/weights-file.ts';
import { boneDistanceWeights } from '../../workers/weights/bone-distance-weights.ts';

export const inProcessIo = {
  readRigFile: async (name: string, bytes: Uint8Array) => readRigFile(name, bytes),
  weightsFromDmat: async (...args: Parameters<typeof weightsFromDmat>) => weightsFromDmat(...args),
  poseSequenceFromDmat: async (...args: Parameters<typeof poseSequenceFromDmat>) => poseSequenceFromDmat(...args),
  handlesFromDmat: async (...args: Parameters<typeof handlesFromDmat>) => handlesFromDmat(...args),
  poseSequenceFromTransforms: async (...args: Parameters<typeof poseSequenceFromTransforms>) => poseSequenceFromTransforms(...args),
  boneDistanceWeights: async (...args: Parameters<typeof boneDistanceWeights>) => boneDistanceWeights(...args),
  importGltf: async (name: string, bytes: Uint8Array, resources: Record<string, Uint8Array>) => importGltf(bytes, name, resources),
} as unknown as IoClient;

/** A file of a batch, its bytes the text as UTF-8. */
export const textFile = (name: string, text: string): OpenedFile => ({ name, bytes: new TextEncoder().encode(text) });
