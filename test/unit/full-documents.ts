/**
 * Scene documents of the shared data with every bone-indexed field the data allows, for tests of the bone-field list
 * and of the bone edits: CesiumMan as the app opens it (names, a clip with keyframe curves, the kept glTF) with bone
 * scales, paint locks and an example; the course hand with its rotation-matrix poses and weight-solver handles (and a
 * variant with its quaternion pose); the context-aware body with its harmonic weights, 394 frames and four examples.
 * appliedEdit applies a bone edit to one through a real store and checks the undo step it makes.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gltfIntoDocument } from '../../renderer/document/gltf-document.ts';
import { readDmat } from '../../workers/formats/dmat.ts';
import { readOff } from '../../workers/formats/off.ts';
import { poseSequenceFromDmat } from '../../workers/formats/pose-file.ts';
import { readTgf } from '../../workers/formats/tgf.ts';
import { handlesFromDmat } from '../../workers/formats/weights-file.ts';
import type { BoneEdit } from '../../workers/rig/bone-edits.ts';
import { poseForwardKinematics } from '../../workers/rig/forward-kinematics.ts';
import type { PoseSequence } from '../../workers/rig/pose-sequence.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { boneDistanceWeights } from '../../workers/weights/bone-distance-weights.ts';
import { assertConsistent, boneCountOf, withDerived, type SceneDocument } from '../../workers/scene/scene-document.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';
import { contextAwareBody } from './context-aware-data.ts';
import { inProcessIo } from './in-process-io.ts';
import { dataFile } from './shared-data.ts';

/** CesiumMan as the app opens it, with bone scales, paint locks and one example (its rest mesh in the clip's first pose). */
export async function fullCesiumMan(): Promise<SceneDocument> {
  const file = dataFile('gltf', 'CesiumMan', 'CesiumMan.glb');
  const doc = await gltfIntoDocument([{ name: path.basename(file), bytes: new Uint8Array(readFileSync(file)) }], inProcessIo);
  const B = boneCountOf(doc);
  const first = doc.clips?.[0]?.poses;
  assert.ok(first?.kind === 'matrices' && first.curves, 'CesiumMan’s clip keeps its keyframe curves');
  const boneScales = new Float64Array(3 * B).fill(1);
  boneScales.set([1.5, 0.5, 2], 3 * 2);
  const paintLocks = new Uint8Array(B);
  paintLocks[1] = 1;
  return {
    ...doc,
    boneScales,
    paintLocks,
    examples: [
      {
        name: 'eg',
        file: 'eg.obj',
        positions: doc.mesh.positions,
        pose: first.rotations.slice(0, 9 * B),
        poseSource: 'frame 0',
        hidden: false,
      },
    ],
  };
}

const bytesOf = (...parts: string[]): Uint8Array => new Uint8Array(readFileSync(dataFile(...parts)));

/**
 * The course hand: hand.off, hand.tgf, bone-distance weights, the rotation-matrix pose sequence (or, with
 * `quaternions`, the quaternion pose) and the weight-solver handles.
 */
export function handDocument(poses: 'matrices' | 'quaternions' = 'matrices'): SceneDocument {
  const { mesh } = readOff(readFileSync(dataFile('hand', 'hand.off'), 'utf8'), 'hand.off');
  const skeleton = buildSkeleton(readTgf(readFileSync(dataFile('hand', 'hand.tgf'), 'utf8'), 'hand.tgf'), 'hand.tgf');
  const B = skeleton.parents.length;
  const V = mesh.positions.length / 3;
  const posesFile = poses === 'matrices' ? 'hand-pose_matrot.dmat' : 'hand-pose_quat.dmat';
  return withDerived({
    name: 'hand.off',
    meshFiles: ['hand.off'],
    mesh,
    skeletonFile: 'hand.tgf',
    skeleton,
    weights: boneDistanceWeights(mesh.positions, skeleton),
    weightsSource: 'bone distance',
    poses: poseSequenceFromDmat(readDmat(bytesOf('hand', posesFile), posesFile), B, posesFile),
    posesFile,
    handles: handlesFromDmat(readDmat(bytesOf('hand', 'hand-handles.dmat'), 'hand-handles.dmat'), V, B, 'hand-handles.dmat'),
    handlesFile: 'hand-handles.dmat',
    warnings: [],
  });
}

/** The context-aware body: harmonic weights from its handles, all 394 frames, the four examples in their poses. */
export function bodyDocument(): SceneDocument {
  const body = contextAwareBody();
  return withDerived({
    name: 'reference.obj',
    meshFiles: ['reference.obj'],
    mesh: body.mesh,
    skeletonFile: 'skeleton.tgf',
    skeleton: body.skeleton,
    weights: body.weights,
    weightsSource: 'harmonic',
    poses: body.frames,
    posesFile: 'all_frames.dmat',
    handles: body.handles,
    handlesFile: 'handles.dmat',
    warnings: [],
    examples: body.examples.map((example, e) => ({
      name: example.name,
      file: `${example.name}.obj`,
      positions: example.mesh.positions,
      pose: example.pose,
      poseSource: `frame ${body.exampleFrames[e]} of all_frames.dmat`,
      hidden: false,
    })),
  });
}

type TypedArray = Float64Array | Float32Array | Uint32Array | Int32Array | Uint8Array;

/** Every typed array reachable from the document, each with a copy taken now. */
function snapshot(doc: SceneDocument): [TypedArray, TypedArray][] {
  const found: [TypedArray, TypedArray][] = [];
  const seen = new Set<unknown>();
  const walk = (value: unknown): void => {
    if (!value || typeof value !== 'object' || seen.has(value)) return;
    seen.add(value);
    if (ArrayBuffer.isView(value)) {
      const array = value as TypedArray;
      found.push([array, array.slice()]);
      return;
    }
    for (const item of Array.isArray(value) ? value : Object.values(value)) walk(item);
  };
  walk(doc);
  return found;
}

function assertUnchanged(taken: [TypedArray, TypedArray][], what: string): void {
  for (const [array, copy] of taken) assert.deepStrictEqual(array, copy, `${what}: an array of the input document changed`);
}

/**
 * Applies the edit through a store with a real history: one step, the result consistent, undo gives back the very
 * same field values, redo the edit's. The input document is checked unchanged.
 * @returns the edited document
 */
export function appliedEdit(doc: SceneDocument, make: (doc: SceneDocument) => BoneEdit): SceneDocument {
  const taken = snapshot(doc);
  const edit = make(doc);
  const store = new SceneStore(doc, new UndoHistory());
  store.edit(edit.label, edit.fields);
  assert.equal(store.history.undoCount, 1, `${edit.label}: one undo step`);
  const after = store.doc;
  assert.doesNotThrow(() => assertConsistent(after), `${edit.label}: the result is consistent`);
  assert.ok(store.history.undo(), `${edit.label}: undoes`);
  for (const key of Object.keys({ ...doc, ...after }) as (keyof SceneDocument)[])
    assert.ok(store.doc[key] === doc[key], `${edit.label}: undo gives back the same ${key}`);
  assert.ok(store.history.redo(), `${edit.label}: redoes`);
  for (const key of Object.keys(edit.fields) as (keyof SceneDocument)[])
    assert.ok(store.doc[key] === after[key], `${edit.label}: redo gives back the edit's ${key}`);
  assertUnchanged(taken, edit.label);
  return after;
}

/** World transforms (#B × 12) of every frame of a pose sequence (a quaternion pose: its final pose). */
export function worldTransforms(doc: SceneDocument, seq: PoseSequence): Float64Array[] {
  const B = boneCountOf(doc);
  const frames = seq.kind === 'matrices' ? seq.frameCount : 1;
  const rotations = new Float64Array(9 * B);
  const translations = new Float64Array(3 * B);
  return Array.from({ length: frames }, (_, f) => {
    const out = new Float64Array(12 * B);
    poseForwardKinematics(doc.skeleton, seq, seq.kind === 'matrices' ? f : 1, rotations, translations, out);
    return out;
  });
}
