/**
 * A batch of files into the scene (renderer/document/load-files.ts loadBatchIntoDocument): the files that fit load
 * together, each one that does not is left out with its reader's message, naming it by its role. The batch is
 * libigl's elephant of tutorial 408: mesh, skeleton, weights and its animation of absolute bone transforms.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { OpenedFile } from '../../app/ipc-contract.ts';
import { loadBatchIntoDocument, loadIntoDocument } from '../../renderer/document/load-files.ts';
import { readDmat, writeDmatBinary } from '../../workers/formats/dmat.ts';
import { defaultProjectSettings, readProjectFile, writeProjectFile } from '../../workers/formats/project-file.ts';
import { documentFromProject, projectSceneOf, projectSettingsOf } from '../../workers/scene/project-document.ts';
import { PROVISIONAL_WEIGHTS, demoDocument } from '../../workers/scene/scene-document.ts';
import { inProcessIo, textFile } from './in-process-io.ts';
import { dataFile } from './shared-data.ts';

const opened = (name: string): OpenedFile => ({ name, bytes: new Uint8Array(readFileSync(dataFile('libigl', name))) });
const [obj, tgf, weights, anim] = ['elephant.obj', 'elephant.tgf', 'elephant-weights.dmat', 'elephant-anim.dmat'].map(opened);

test('the elephant, its skeleton, weights and animation load together: the animation is the scene’s clip', async () => {
  const { document, refused } = await loadBatchIntoDocument(demoDocument(), [obj, tgf, weights, anim], inProcessIo);
  assert.deepEqual(refused, [], 'every file fits');
  assert.equal(document.mesh.positions.length / 3, 6034);
  assert.equal(document.skeleton.parents.length, 24);
  assert.equal(document.weightsSource, 'elephant-weights.dmat');
  assert.equal(document.posesFile, 'elephant-anim.dmat');
  assert.ok(document.poses?.kind === 'matrices', 'the animation is a clip of frames');
  assert.equal(document.poses.frameCount, 457, 'one frame per column');
  const whole = await loadIntoDocument(demoDocument(), [anim, weights, tgf, obj], inProcessIo);
  assert.equal(whole.posesFile, 'elephant-anim.dmat', 'a batch taken whole reads the animation too, in any order');
});

test('a batch with a broken animation loads the other three and names the broken one with the reason', async () => {
  const cut = { name: 'elephant-anim.dmat', bytes: anim.bytes.slice(0, anim.bytes.length - 1000) };
  const { document, refused } = await loadBatchIntoDocument(demoDocument(), [obj, tgf, weights, cut], inProcessIo);
  assert.equal(refused.length, 1, `one file left out: ${JSON.stringify(refused)}`);
  assert.equal(refused[0].file, 'elephant-anim.dmat');
  assert.match(refused[0].message, /^elephant-anim\.dmat: /, 'the message names the file');
  assert.doesNotMatch(refused[0].message, /weights/, 'and does not call it the weights');
  assert.equal(document.mesh.positions.length / 3, 6034, 'the mesh is loaded');
  assert.equal(document.skeleton.parents.length, 24, 'the skeleton is loaded');
  assert.equal(document.weightsSource, 'elephant-weights.dmat', 'the weights are loaded');
  assert.equal(document.poses, null, 'the new skeleton starts at rest');
  await assert.rejects(
    loadIntoDocument(demoDocument(), [obj, tgf, weights, cut], inProcessIo),
    (error: unknown) => error instanceof Error && /^elephant-anim\.dmat: /.test(error.message),
    'taken whole, the batch is refused, naming the file',
  );
});

test('an animation for another skeleton is named as an animation, not as the weights, and the rest loads', async () => {
  // The first 22 bones' transforms: 264 × 457, an animation of libigl's layout for a skeleton of 22 bones (entry
  // c·4B + 4b + k of a column is row c, column k of bone b's [R | t]).
  const full = readDmat(anim.bytes, anim.name);
  const L = full.cols;
  const data = new Float64Array(12 * 22 * L);
  for (let c = 0; c < 3; c++)
    for (let entry = 0; entry < 4 * 22; entry++)
      for (let f = 0; f < L; f++) data[(c * 88 + entry) * L + f] = full.data[(c * 96 + entry) * L + f];
  const fewer = { name: 'elephant-anim.dmat', bytes: writeDmatBinary({ rows: 12 * 22, cols: L, data }) };
  const { document, refused } = await loadBatchIntoDocument(demoDocument(), [obj, tgf, weights, fewer], inProcessIo);
  assert.equal(refused.length, 1, `one file left out: ${JSON.stringify(refused)}`);
  assert.match(
    refused[0].message,
    /^elephant-anim\.dmat: this is an animation for another skeleton: it is 264 × 457, which holds transforms of 22 bones; this skeleton has 24 bones/,
  );
  assert.equal(document.weightsSource, 'elephant-weights.dmat');
});

test('broken weights are left out: the skeleton is bound provisionally and the animation still plays', async () => {
  const broken = textFile('elephant-weights.dmat', '2 3\n0.5 0.5\n');
  const { document, refused } = await loadBatchIntoDocument(demoDocument(), [obj, tgf, broken, anim], inProcessIo);
  assert.deepEqual(
    refused.map((r) => r.file),
    ['elephant-weights.dmat'],
  );
  assert.match(refused[0].message, /^elephant-weights\.dmat: /);
  assert.equal(document.weightsSource, PROVISIONAL_WEIGHTS, 'weights by bone distance until the artist binds');
  assert.equal(document.posesFile, 'elephant-anim.dmat');
});

test('a batch of which nothing fits changes nothing and names every file', async () => {
  const current = demoDocument();
  await assert.rejects(
    loadBatchIntoDocument(current, [textFile('a.obj', 'f 1 2 3\n'), textFile('b.dmat', '1 2\n0.5\n')], inProcessIo),
    (error: unknown) => {
      assert.ok(error instanceof Error && error.name === 'LoadError', 'a LoadError');
      const lines = error.message.split('\n');
      assert.equal(lines.length, 2, `one line per file: ${error.message}`);
      assert.match(lines[0], /^a\.obj: /);
      assert.match(lines[1], /^b\.dmat: /);
      return true;
    },
  );
});

test('the animation is kept in a project: saved and reopened, the clip is the same numbers', async () => {
  const { document } = await loadBatchIntoDocument(demoDocument(), [obj, tgf, weights, anim], inProcessIo);
  const settings = projectSettingsOf(document, defaultProjectSettings(6034, 24));
  const bytes = await writeProjectFile({ scene: projectSceneOf(document), settings }, 'elephant.rig.glb');
  const read = readProjectFile(bytes, 'elephant.rig.glb');
  const reopened = documentFromProject(read.scene, read.settings);
  assert.equal(reopened.posesFile, 'elephant-anim.dmat');
  assert.ok(document.poses?.kind === 'matrices' && reopened.poses?.kind === 'matrices', 'a clip of frames, before and after');
  assert.deepEqual(reopened.poses.rotations, document.poses.rotations, 'the rotations');
  assert.deepEqual(reopened.poses.translations, document.poses.translations, 'the translations of the roots');
});
