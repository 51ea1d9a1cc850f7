/**
 * The one list of bone-indexed fields (workers/scene/bone-fields.ts): a real glTF scene (CesiumMan: bone names, a
 * clip with its file's keyframe curves, the kept glTF's joint nodes) with bone scales, paint locks and an example
 * holds one entry per bone in every field, and a document with any one field a bone short is refused by
 * assertConsistent naming that field, so no entry of the list goes unchecked.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BONE_FIELDS } from '../../workers/scene/bone-fields.ts';
import { assertConsistent, boneCountOf, type SceneDocument } from '../../workers/scene/scene-document.ts';
import type { PoseSequence } from '../../workers/rig/pose-sequence.ts';
import { fullCesiumMan as fullScene } from './full-documents.ts';

/** `poses` with every per-bone array of its keyframe curves one bone short. */
const curvesShort = (poses: PoseSequence): PoseSequence =>
  poses.kind === 'matrices' && poses.curves
    ? {
        ...poses,
        curves: {
          ...poses.curves,
          jointNode: poses.curves.jointNode.slice(1),
          inverseBind: poses.curves.inverseBind.slice(16),
          parentBone: poses.curves.parentBone.slice(1),
          heads: poses.curves.heads.slice(3),
        },
      }
    : poses;

test('every bone-indexed field of a full glTF scene holds one entry per bone', async () => {
  const doc = await fullScene();
  const B = boneCountOf(doc);
  assert.equal(B, 19, 'CesiumMan’s skin has 19 joints');
  assert.doesNotThrow(() => assertConsistent(doc), 'the full scene is consistent');
  const instances = BONE_FIELDS.flatMap((field) => field.instances(doc));
  // weights, bone scales, bone names, paint locks, the shown poses and their 4 curve arrays, the clip's the same, the
  // example's pose, the joint nodes: 1 + 1 + 1 + 1 + 5 + 5 + 1 + 1.
  assert.equal(instances.length, 16, `instances: ${instances.map((i) => i.where).join(', ')}`);
  for (const instance of instances) assert.equal(instance.bones, B, `${instance.where} holds one entry per bone`);
});

test('a document with any one bone-indexed field a bone short is refused, naming the field', async () => {
  const doc = await fullScene();
  const B = boneCountOf(doc);
  const clip = doc.clips![0];
  const short: [string, SceneDocument][] = [
    ['boneScales', { ...doc, boneScales: doc.boneScales!.slice(3) }],
    ['boneNames', { ...doc, boneNames: doc.boneNames!.slice(1) }],
    ['paintLocks', { ...doc, paintLocks: doc.paintLocks!.slice(1) }],
    ['clips[0].poses.curves.jointNode', { ...doc, clips: [{ ...clip, poses: curvesShort(clip.poses) }] }],
    ['gltfSource.jointNodes', { ...doc, gltfSource: { ...doc.gltfSource!, jointNodes: doc.gltfSource!.jointNodes.slice(1) } }],
    ['poses.curves.jointNode', { ...doc, poses: curvesShort(doc.poses!) }],
  ];
  for (const [where, broken] of short)
    assert.throws(
      () => assertConsistent(broken),
      (error: unknown) => error instanceof Error && error.message === `CesiumMan.glb: ${where} holds ${B - 1} bones, the skeleton has ${B}`,
      `${where} a bone short is refused naming it`,
    );
});
