/**
 * glTF keeps joints, not bone ends: a fresh export writes the end of every bone whose end a reader cannot find from
 * its children (leaves; bones whose first child starts elsewhere) into its joint node's extras, and import reads it
 * back, so a skeleton built in the app comes back with the same bones. Without the extras a leaf's end is a guess
 * (its parent's direction continued), which moves the course body's five leaf ends.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bonesWithoutChildTail, BONE_TAIL_EXTRA } from '../../workers/formats/gltf/fresh-parts.ts';
import { exportGltfInPlace } from '../../workers/formats/gltf-edit.ts';
import { exportGltf } from '../../workers/formats/gltf-export.ts';
import { importGltf } from '../../workers/formats/gltf-import.ts';
import { insertBone } from '../../workers/rig/bone-edits.ts';
import type { SceneDocument } from '../../workers/scene/scene-document.ts';
import { bodyDocument, fullCesiumMan } from './full-documents.ts';
import { assertValidGltf } from './gltf-skinning-reference.ts';
import { glbJson, withGlbJson } from './glb-json.ts';

/** Largest distance between each bone's start and end joints in `a` and `b`. */
function boneJointDistance(a: SceneDocument['skeleton'], b: SceneDocument['skeleton']): number {
  let worst = 0;
  for (let k = 0; k < a.bones.length; k++) {
    const i = 3 * a.bones[k];
    const j = 3 * b.bones[k];
    worst = Math.max(worst, Math.hypot(a.joints[i] - b.joints[j], a.joints[i + 1] - b.joints[j + 1], a.joints[i + 2] - b.joints[j + 2]));
  }
  return worst;
}

test("the course body's leaf ends survive a glTF export and import; the file validates and says the ends in extras", async () => {
  const body = bodyDocument();
  // A bone added in the app, branching off the middle of the skeleton: a leaf whose direction is not its parent's.
  const branched = { ...body, ...insertBone(body, { parent: 3, tip: [0.3, 0.2, 0.1] }).fields };
  const { skeleton } = branched;
  const leaves = Array.from(skeleton.parents.keys()).filter((b) => !skeleton.parents.includes(b));
  assert.ok(leaves.length >= 6, `the body has leaves (${leaves.length})`);
  const written = bonesWithoutChildTail(skeleton);
  for (const leaf of leaves) assert.ok(written.includes(leaf), `leaf bone ${leaf} gets its end written`);

  const { bytes } = await exportGltf({ mesh: branched.mesh, skeleton, weights: branched.weights, name: 'body' }, 'body.glb');
  await assertValidGltf(bytes, 'body.glb');
  const json = glbJson<{ nodes: { extras?: Record<string, unknown> }[] }>(bytes);
  const withTails = json.nodes.filter((n) => n.extras?.[BONE_TAIL_EXTRA] !== undefined).length;
  assert.equal(withTails, written.length, 'one extras tail per bone whose end the children do not give');

  const back = (await importGltf(bytes, 'body.glb')).skeleton;
  assert.deepEqual(Array.from(back.parents), Array.from(skeleton.parents), 'the same hierarchy');
  // Starts are rounded to float32 by the export (inverse bind matrices are float32); ends are exact relative to them.
  const diagonal = branched.diagonal;
  assert.ok(boneJointDistance(skeleton, back) < 1e-6 * diagonal, `every bone's start and end within 1e-6 of the diagonal`);

  // Without the extras the importer guesses the leaves' ends, and they move: what the extras are for.
  for (const node of json.nodes) delete node.extras?.[BONE_TAIL_EXTRA];
  const guessed = (await importGltf(withGlbJson(bytes, json), 'body.glb')).skeleton;
  assert.ok(boneJointDistance(skeleton, guessed) > 1e-3 * diagonal, 'without the extras a leaf end is only a guess');
});

test('in place, the ends stay true: a moved leaf end is written anew, a no-op export keeps the numbers, a file without them gains none', async () => {
  const body = bodyDocument();
  const { bytes } = await exportGltf({ mesh: body.mesh, skeleton: body.skeleton, weights: body.weights, name: 'body' }, 'body.glb');
  const read = await importGltf(bytes, 'body.glb');
  const edit = { source: read.gltfSource, mesh: read.mesh, skeleton: read.skeleton, weights: read.weights, clips: read.clips };
  const tailsOf = (glb: Uint8Array): unknown[] =>
    glbJson<{ nodes: { extras?: Record<string, unknown> }[] }>(glb).nodes.map((n) => n.extras?.[BONE_TAIL_EXTRA] ?? null);

  // Nothing changed: the same extras, number for number.
  const same = await exportGltfInPlace(edit, 'same.glb');
  assert.deepEqual(tailsOf(same.bytes), tailsOf(bytes), 'a no-op export keeps every tail as the file had it');

  // A leaf's end moved (its bone's length and direction change): re-import finds it where it was moved to.
  const leaf = Array.from(read.skeleton.parents.keys()).find((b) => !read.skeleton.parents.includes(b))!;
  const joints = read.skeleton.joints.slice();
  const e = 3 * read.skeleton.bones[2 * leaf + 1];
  joints[e] += 0.05;
  joints[e + 1] -= 0.02;
  const moved = { ...read.skeleton, joints };
  const out = await exportGltfInPlace({ ...edit, skeleton: moved }, 'moved.glb');
  const back = (await importGltf(out.bytes, 'moved.glb')).skeleton;
  const b = 3 * back.bones[2 * leaf + 1];
  assert.ok(
    Math.hypot(back.joints[b] - joints[e], back.joints[b + 1] - joints[e + 1], back.joints[b + 2] - joints[e + 2]) < 1e-6 * body.diagonal,
    'the moved leaf end comes back where it was moved to',
  );

  // A file that never had them (CesiumMan) gains none in a no-op export.
  const cesium = await fullCesiumMan();
  const source = cesium.gltfSource!;
  const plain = await exportGltfInPlace(
    { source, mesh: cesium.mesh, skeleton: cesium.skeleton, weights: cesium.weights, clips: cesium.clips ?? [] },
    'CesiumMan.glb',
  );
  assert.ok(
    tailsOf(plain.bytes).every((t) => t === null),
    'no tails written into a file that had none',
  );
});
