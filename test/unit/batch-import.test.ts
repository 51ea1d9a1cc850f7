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
import { dmatRole } from '../../workers/formats/dmat-role.ts';
import { readDmat, writeDmatBinary } from '../../workers/formats/dmat.ts';
import type { DenseMatrix } from '../../workers/formats/types.ts';
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

/** The first `frames` columns (frames) of the elephant's animation, 288 × frames. */
function firstFrames(frames: number): DenseMatrix {
  const full = readDmat(anim.bytes, anim.name);
  const data = new Float64Array(full.rows * frames);
  for (let r = 0; r < full.rows; r++) for (let f = 0; f < frames; f++) data[r * frames + f] = full.data[r * full.cols + f];
  return { rows: full.rows, cols: frames, data };
}

test('an animation of 3 frames, 288 × 3 as 4 frames of poses would be, is read as the animation its values are', async () => {
  // 288 = 12 · 24 = 3 · 24 · 4: the shape of 3 frames of transforms and of 4 frames of rotation matrices. The
  // first 3×3 block of the pose reading holds entries 0–2 of frames 0–2, which is no rotation.
  const three = firstFrames(3);
  assert.deepEqual(dmatRole(three, 6034, 24), { role: 'animation', fits: true }, 'the values decide');
  const cut = { name: 'elephant-anim.dmat', bytes: writeDmatBinary(three) };
  const { document, refused } = await loadBatchIntoDocument(demoDocument(), [obj, tgf, weights, cut], inProcessIo);
  assert.deepEqual(refused, [], 'every file fits');
  assert.equal(document.posesFile, 'elephant-anim.dmat');
  const whole = await loadBatchIntoDocument(demoDocument(), [obj, tgf, weights, anim], inProcessIo);
  assert.ok(document.poses?.kind === 'matrices' && whole.document.poses?.kind === 'matrices', 'clips of frames');
  assert.equal(document.poses.frameCount, 3, 'one frame per column');
  assert.deepEqual(
    document.poses.rotations,
    whole.document.poses.rotations.slice(0, 3 * 24 * 9),
    'the frames of the whole animation’s first three',
  );
});

test('a 288 × 3 matrix that is neither poses nor an animation is refused naming both, and the rest loads', async () => {
  // Every entry 2: no 3×3 block is a rotation (R·Rᵀ is 12 everywhere) and every bone's 3×3 part is singular.
  const twos: DenseMatrix = { rows: 288, cols: 3, data: new Float64Array(288 * 3).fill(2) };
  assert.deepEqual(dmatRole(twos, 6034, 24), { role: 'poses', fits: true, alsoFits: 'animation' });
  const odd = { name: 'odd.dmat', bytes: writeDmatBinary(twos) };
  const { document, refused } = await loadBatchIntoDocument(demoDocument(), [obj, tgf, weights, odd], inProcessIo);
  assert.equal(refused.length, 1, `one file left out: ${JSON.stringify(refused)}`);
  assert.equal(refused[0].file, 'odd.dmat');
  assert.match(refused[0].message, /^odd\.dmat: 288 × 3 has the shape of a pose file .* and of an animation .* but reads as neither/);
  assert.match(refused[0].message, /as a pose file, frame 0 bone 0: not a rotation matrix/, 'the pose reader’s reason');
  assert.match(refused[0].message, /as an animation, frame 0 bone 0: the transform's 3×3 part has determinant/, 'the animation reader’s');
  assert.equal(document.weightsSource, 'elephant-weights.dmat', 'the rest loads');
  assert.equal(document.poses, null, 'the new skeleton starts at rest');
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
