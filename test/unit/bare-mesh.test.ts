/**
 * A mesh opened without a skeleton: the scene has 0 bones (#V × 0 weights, no poses), skinning gives the rest mesh,
 * the project file keeps it, and the first bone inserted weighs 1 at every vertex. The scene's own mesh opened again
 * (same vertices and triangles) keeps its skeleton.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadIntoDocument } from '../../renderer/document/load-files.ts';
import { COMMANDS, type CommandId } from '../../renderer/commands/command-catalog.ts';
import { whyNot } from '../../renderer/commands/when-clause.ts';
import {
  NO_SKELETON_WEIGHTS,
  PROVISIONAL_WEIGHTS,
  assertConsistent,
  boneCountOf,
  demoDocument,
  jointCountOf,
  vertexCountOf,
} from '../../workers/scene/scene-document.ts';
import { BoneEditError, deleteBone, insertBone } from '../../workers/rig/bone-edits.ts';
import { influencesFromWeights } from '../../workers/skinning/influences.ts';
import { linearBlendSkinning } from '../../workers/skinning/linear-blend-skinning.ts';
import { forwardKinematics } from '../../workers/rig/forward-kinematics.ts';
import { defaultProjectSettings, readProjectFile, writeProjectFile } from '../../workers/formats/project-file.ts';
import { documentFromProject, projectSceneOf, projectSettingsOf } from '../../workers/scene/project-document.ts';
import { inProcessIo as io, textFile } from './in-process-io.ts';
import { dataFile } from './shared-data.ts';

const TRIANGLE_OBJ = 'v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 3 4\n';

test('bare mesh: a mesh opened alone has no skeleton: 0 bones and joints, #V × 0 weights, no poses, names or handles', async () => {
  const demo = demoDocument();
  const doc = await loadIntoDocument(demo, [textFile('shape.obj', TRIANGLE_OBJ)], io);
  assert.equal(boneCountOf(doc), 0);
  assert.equal(jointCountOf(doc), 0);
  assert.deepEqual([doc.weights.rows, doc.weights.cols, doc.weights.data.length], [4, 0, 0]);
  assert.equal(doc.weightsSource, NO_SKELETON_WEIGHTS);
  assert.equal(doc.poses, null);
  assert.equal(doc.handles, null);
  assert.equal(doc.boneNames, undefined);
  assert.equal(doc.skeletonFile, null);
  assert.doesNotThrow(() => assertConsistent(doc));

  // Skinning with no bone leaves every vertex where it is.
  const influences = influencesFromWeights(doc.weights, 4);
  assert.equal(influences.vertexCount, 4);
  assert.ok(
    influences.weights.every((w) => w === 0),
    'no vertex has a weight',
  );
  const transforms = new Float64Array(0);
  forwardKinematics(doc.skeleton, new Float64Array(0), transforms);
  const out = new Float64Array(12);
  linearBlendSkinning(doc.mesh.positions, influences, transforms, out);
  assert.deepEqual([...out], [...doc.mesh.positions]);
});

test('bare mesh: the body opened alone over the demo has no bones; a skeleton opened next fits it', async () => {
  const body = textFile('reference.obj', readFileSync(dataFile('context-aware', 'reference.obj'), 'utf8'));
  const doc = await loadIntoDocument(demoDocument(), [body], io);
  assert.equal(vertexCountOf(doc), 18453);
  assert.equal(boneCountOf(doc), 0);
  const rigged = await loadIntoDocument(
    doc,
    [textFile('skeleton.tgf', readFileSync(dataFile('context-aware', 'skeleton.tgf'), 'utf8'))],
    io,
  );
  assert.equal(boneCountOf(rigged), 28);
  assert.equal(rigged.weightsSource, PROVISIONAL_WEIGHTS);
});

test('bare mesh: the scene’s own mesh opened again keeps its skeleton, names and locks; a changed triangle does not', async () => {
  const demo = demoDocument();
  const { positions, triangles } = demo.mesh;
  const lines = ['OFF', `${positions.length / 3} ${triangles.length / 3} 0`];
  for (let v = 0; v < positions.length; v += 3) lines.push(`${positions[v] + 0.01} ${positions[v + 1]} ${positions[v + 2]}`);
  const faces = (tris: Uint32Array) => {
    const out: string[] = [];
    for (let t = 0; t < tris.length; t += 3) out.push(`3 ${tris[t]} ${tris[t + 1]} ${tris[t + 2]}`);
    return out;
  };
  const same = await loadIntoDocument(demo, [textFile('moved.off', [...lines, ...faces(triangles), ''].join('\n'))], io);
  assert.equal(same.skeleton, demo.skeleton, 'the same mesh, moved, keeps the skeleton');
  assert.equal(same.weightsSource, PROVISIONAL_WEIGHTS);
  const flipped = Uint32Array.from(triangles);
  [flipped[1], flipped[2]] = [flipped[2], flipped[1]];
  const other = await loadIntoDocument(demo, [textFile('other.off', [...lines, ...faces(flipped), ''].join('\n'))], io);
  assert.equal(boneCountOf(other), 0, 'other triangles: another mesh, no skeleton');
});

test('bare mesh: the first bone is a root from a new head joint to a new tip, weighing 1 at every vertex', async () => {
  const doc = await loadIntoDocument(demoDocument(), [textFile('shape.obj', TRIANGLE_OBJ)], io);
  assert.throws(() => insertBone(doc, { parent: null, tip: [0, 1, 0] }), BoneEditError);
  assert.throws(() => deleteBone(doc, 0), /bone 0 is out of range: the skeleton has 0 bones/);
  const first = insertBone(doc, { parent: null, head: [0, 0, 0], tip: [0, 1, 0] });
  const one = { ...doc, ...first.fields };
  assert.doesNotThrow(() => assertConsistent(one));
  assert.equal(boneCountOf(one), 1);
  assert.deepEqual([...one.skeleton.joints], [0, 0, 0, 0, 1, 0]);
  assert.deepEqual([...one.skeleton.bones], [0, 1]);
  assert.deepEqual([...one.skeleton.parents], [-1]);
  assert.deepEqual([one.weights.rows, one.weights.cols, [...one.weights.data]], [4, 1, [1, 1, 1, 1]]);
  assert.equal(one.weightsSource, PROVISIONAL_WEIGHTS);
  assert.ok(!('bindingStale' in first.fields) && one.bindingStale === undefined, 'nothing was bound: the first bone stales no binding');
  // The second bone hangs from the first and weighs nothing yet: every row still sums to 1.
  const second = insertBone(one, { parent: 0, tip: [0, 2, 0] });
  const two = { ...one, ...second.fields };
  assert.deepEqual([...two.skeleton.parents], [-1, 0]);
  assert.deepEqual([...two.weights.data], [1, 0, 1, 0, 1, 0, 1, 0]);
  assert.equal(two.bindingStale, true, 'the second bone changes a skeleton the weights were made for');
});

test('bare mesh: a project with no skeleton saves and reopens with 0 bones, and with its first bone after an insert', async () => {
  const doc = await loadIntoDocument(demoDocument(), [textFile('shape.obj', TRIANGLE_OBJ)], io);
  const settings = defaultProjectSettings(4, 0);
  const bytes = await writeProjectFile({ scene: projectSceneOf(doc), settings: projectSettingsOf(doc, settings) }, 'shape.rig.glb');
  const read = readProjectFile(bytes, 'shape.rig.glb');
  const reopened = documentFromProject(read.scene, read.settings);
  assert.equal(boneCountOf(reopened), 0);
  assert.deepEqual([reopened.weights.rows, reopened.weights.cols], [4, 0]);
  assert.deepEqual([...reopened.mesh.positions], [...doc.mesh.positions]);
  assert.doesNotThrow(() => assertConsistent(reopened));

  const one = { ...reopened, ...insertBone(reopened, { parent: null, head: [0, 0, 0], tip: [0, 0, 1] }).fields };
  const again = readProjectFile(
    await writeProjectFile({ scene: projectSceneOf(one), settings: projectSettingsOf(one, defaultProjectSettings(4, 1)) }, 'one.rig.glb'),
    'one.rig.glb',
  );
  const withBone = documentFromProject(again.scene, again.settings);
  assert.deepEqual([...withBone.skeleton.joints], [0, 0, 0, 0, 0, 1]);
  assert.deepEqual([...withBone.weights.data], [1, 1, 1, 1]);
});

test('bare mesh: what needs bones refuses, saying the skeleton tool builds them', () => {
  const context = { toolBusy: false, binding: false, meshActive: true, bindPanel: true, hasSkeleton: false };
  const needBones: CommandId[] = [
    'bind.compute',
    'bind.computeRigid',
    'bind.computePart',
    'bind.saveWeights',
    'tool.brush',
    'paint.normalize',
    'paint.limit',
    'file.export',
  ];
  for (const id of needBones) {
    assert.equal(whyNot(COMMANDS[id].enabledWhen, context), 'no skeleton yet: build one with the skeleton tool (J)', id);
    assert.equal(whyNot(COMMANDS[id].enabledWhen, { ...context, hasSkeleton: true }), null, `${id} runs with a skeleton`);
  }
  assert.equal(whyNot(COMMANDS['tool.skeleton'].enabledWhen, context), null, 'the skeleton tool needs none');
});
