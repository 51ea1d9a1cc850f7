/**
 * Hand-posed bones (the gizmo's and IK's poses not yet keyed) are part of the user's work: a project keeps them bit for
 * bit, and a project whose posed bones are broken is refused naming the field and the bone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FormatError } from '../../workers/formats/format-error.ts';
import { defaultProjectSettings, readProjectFile, writeProjectFile } from '../../workers/formats/project-file.ts';
import { quatToMatrix } from '../../workers/math/quaternion.ts';
import { identityPose } from '../../workers/rig/pose-sequence.ts';
import { documentFromProject, projectSceneOf, projectSettingsOf } from '../../workers/scene/project-document.ts';
import type { SceneDocument } from '../../workers/scene/scene-document.ts';
import { handDocument } from './full-documents.ts';
import { seededRandom } from './seeded-random.ts';

async function saved(doc: SceneDocument): Promise<Uint8Array> {
  return writeProjectFile({
    scene: projectSceneOf(doc),
    settings: projectSettingsOf(doc, defaultProjectSettings(doc.weights.rows, doc.weights.cols)),
  });
}

function posedHand(): SceneDocument {
  const hand = handDocument();
  const B = hand.skeleton.parents.length;
  const rotations = identityPose(B);
  const bones = new Uint8Array(B);
  const random = seededRandom(7);
  for (const b of [2, 5, B - 1]) {
    const q = new Float64Array([random() - 0.5, random() - 0.5, random() - 0.5, random() - 0.5]);
    const n = Math.hypot(...q);
    quatToMatrix(
      q.map((x) => x / n),
      0,
      rotations,
      9 * b,
    );
    bones[b] = 1;
  }
  return { ...hand, posedBones: { rotations, bones } };
}

test('a project keeps the bones posed by hand, rotations and flags bit for bit; a scene without them stays without', async () => {
  const doc = posedHand();
  const read = readProjectFile(await saved(doc), 'hand.rig.glb');
  const back = documentFromProject(read.scene, read.settings);
  assert.deepEqual(back.posedBones?.bones, doc.posedBones!.bones);
  assert.deepEqual(back.posedBones?.rotations, doc.posedBones!.rotations);
  const plain = handDocument();
  const again = readProjectFile(await saved(plain), 'hand.rig.glb');
  assert.equal(documentFromProject(again.scene, again.settings).posedBones, undefined, 'no posed bones come back from none');
});

test('broken posed bones are refused, naming the field and the bone', async () => {
  const doc = posedHand();
  const flags = doc.posedBones!.bones.slice();
  flags[3] = 2;
  const badFlag = await saved({ ...doc, posedBones: { ...doc.posedBones!, bones: flags } });
  assert.throws(
    () => readProjectFile(badFlag, 'hand.rig.glb'),
    (error: unknown) => error instanceof FormatError && error.where.endsWith('posedBones.bones') && /bone 3 is marked 2/.test(error.reason),
  );
  const rotations = doc.posedBones!.rotations.slice();
  rotations[9 * 4 + 2] = Number.NaN;
  const badRotation = await saved({ ...doc, posedBones: { ...doc.posedBones!, rotations } });
  assert.throws(
    () => readProjectFile(badRotation, 'hand.rig.glb'),
    (error: unknown) =>
      error instanceof FormatError && error.where.endsWith('posedBones.rotations') && /bone 4 is not a rotation/.test(error.reason),
  );
  // A matrix that is no rotation (a scale) is refused as a pose file's would be.
  const scaled = doc.posedBones!.rotations.slice();
  for (const k of [0, 4, 8]) scaled[9 * 5 + k] *= 2;
  const badScale = await saved({ ...doc, posedBones: { ...doc.posedBones!, rotations: scaled } });
  assert.throws(
    () => readProjectFile(badScale, 'hand.rig.glb'),
    (error: unknown) =>
      error instanceof FormatError && error.where.endsWith('posedBones.rotations') && /bone 5 is not a rotation/.test(error.reason),
  );
});
