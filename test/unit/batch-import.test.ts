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

/** A pose of the elephant's 24 bones, each at rest: 72 × 3 identity blocks. */
const restPose = (): Uint8Array => {
  const data = new Float64Array(72 * 3);
  for (let b = 0; b < 24; b++) for (let k = 0; k < 3; k++) data[(3 * b + k) * 3 + k] = 1;
  return writeDmatBinary({ rows: 72, cols: 3, data });
};

test('a broken example or example pose is left out with its reason; the rest of the batch and the good example load', async () => {
  const examples: OpenedFile[] = [
    textFile('eg0.obj', 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n'),
    { name: 'eg0.dmat', bytes: restPose() },
    { name: 'eg1.obj', bytes: obj.bytes },
    { name: 'eg1.dmat', bytes: restPose() },
    { name: 'eg2.obj', bytes: obj.bytes },
    textFile('eg2.dmat', '3 6\n1 0 0 1 0 0\n0 1 0 0 1 0\n0 0 1 0 0 1\n'),
  ];
  const { document, refused } = await loadBatchIntoDocument(demoDocument(), [obj, tgf, weights, anim, ...examples], inProcessIo);
  const why = (file: string): string => refused.find((r) => r.file === file)?.message ?? `${file} was loaded`;
  assert.deepEqual(refused.map((r) => r.file).sort(), ['eg0.dmat', 'eg0.obj', 'eg2.dmat', 'eg2.obj'], 'the two broken examples');
  assert.match(
    why('eg0.obj'),
    /^eg0\.obj: an example must have the rest mesh's 6034 vertices; it has 3$/,
    'the mesh at fault, with both vertex counts',
  );
  assert.match(why('eg0.dmat'), /^eg0\.dmat: not loaded, since its example eg0\.obj was not/);
  assert.match(
    why('eg2.dmat'),
    /^eg2\.dmat: 6 × 3 \(a pose for 2 bones\); the pose of example eg2\.obj must be 72 × 3/,
    'the pose at fault',
  );
  assert.match(why('eg2.obj'), /^eg2\.obj: not loaded, since its pose eg2\.dmat was not/);
  assert.deepEqual(
    (document.examples ?? []).map((e) => [e.name, e.poseSource]),
    [['eg1', 'eg1.dmat']],
    'the good example is added',
  );
  assert.equal(document.mesh.positions.length / 3, 6034, 'the mesh is loaded');
  assert.equal(document.weightsSource, 'elephant-weights.dmat', 'the weights are loaded');
  assert.equal(document.posesFile, 'elephant-anim.dmat', 'the animation is loaded');
  await assert.rejects(
    loadIntoDocument(demoDocument(), [obj, tgf, weights, anim, ...examples], inProcessIo),
    (error: unknown) => error instanceof Error && /^eg0\.obj: .*\neg2\.dmat: /.test(error.message),
    'taken whole, the batch is refused, naming each example at fault',
  );
});

test('a DMAT that fits no role is left out with the shapes that would fit, even when its reader takes it', async () => {
  // A reader that takes any shape, as a lenient one might: the batch still has no place for a 6034 × 2 matrix.
  const lenient = {
    ...inProcessIo,
    weightsFromDmat: async (m: DenseMatrix) => ({ weights: m, warnings: [] }),
  } as unknown as typeof inProcessIo;
  const two = { name: 'two.dmat', bytes: writeDmatBinary({ rows: 6034, cols: 2, data: new Float64Array(6034 * 2).fill(0.5) }) };
  const { document, refused } = await loadBatchIntoDocument(demoDocument(), [obj, tgf, weights, two], lenient);
  assert.equal(refused.length, 1, `one file left out: ${JSON.stringify(refused)}`);
  assert.match(
    refused[0].message,
    /^two\.dmat: 6034 × 2 fits nothing this mesh of 6034 vertices and skeleton of 24 bones read: weights are 6034 × 24/,
  );
  assert.equal(document.weightsSource, 'elephant-weights.dmat');
});

test('two skeletons or two weight files: the first that reads is loaded, the other left out as a second one', async () => {
  const copy = (file: OpenedFile, name: string): OpenedFile => ({ name, bytes: file.bytes });
  const { document, refused } = await loadBatchIntoDocument(
    demoDocument(),
    [obj, tgf, copy(tgf, 'elephant-2.tgf'), weights, copy(weights, 'elephant-weights-2.dmat'), anim],
    inProcessIo,
  );
  assert.deepEqual(
    refused.map((r) => r.message),
    [
      "elephant-2.tgf: a second skeleton: this batch's skeleton is elephant.tgf; open elephant-2.tgf on its own to use it instead",
      "elephant-weights-2.dmat: a second weight file: this batch's weight file is elephant-weights.dmat; open elephant-weights-2.dmat on its own to use it instead",
    ],
  );
  assert.equal(document.skeleton.parents.length, 24);
  assert.equal(document.weightsSource, 'elephant-weights.dmat');
  assert.equal(document.posesFile, 'elephant-anim.dmat');
  // A skeleton whose bones form a cycle parses but cannot be built: the next one is the batch's skeleton.
  const cycle = textFile('cycle.tgf', '1 0 0 0\n2 1 0 0\n#\n1 2\n2 1\n');
  const second = await loadBatchIntoDocument(demoDocument(), [obj, cycle, tgf, weights], inProcessIo);
  assert.deepEqual(
    second.refused.map((r) => r.file),
    ['cycle.tgf'],
  );
  assert.match(second.refused[0].message, /^cycle\.tgf: bone 0: bones form a cycle/);
  assert.equal(second.document.skeletonFile, 'elephant.tgf', 'the skeleton that fits');
  assert.equal(second.document.weightsSource, 'elephant-weights.dmat');
  await assert.rejects(
    loadIntoDocument(demoDocument(), [obj, tgf, copy(tgf, 'elephant-2.tgf')], inProcessIo),
    /elephant\.tgf, elephant-2\.tgf: 2 skeletons at once/,
    'taken whole, two skeletons refuse the batch',
  );
});

test('when the batch’s mesh cannot be read, its skeleton, weights and animation are refused, not bound to the scene’s mesh', async () => {
  const broken = textFile('elephant.obj', 'v 0 0 0\nf 1 2 9\n');
  await assert.rejects(loadBatchIntoDocument(demoDocument(), [broken, tgf, weights, anim], inProcessIo), (error: unknown) => {
    assert.ok(error instanceof Error && error.name === 'LoadError', 'a LoadError');
    const lines = error.message.split('\n');
    assert.equal(lines.length, 4, `one line per file: ${error.message}`);
    assert.match(lines[0], /^elephant\.obj: /, 'the mesh with its own reason');
    assert.doesNotMatch(lines[0], /not loaded, since/, 'the mesh with its own reason');
    for (const [i, file] of ['elephant.tgf', 'elephant-weights.dmat', 'elephant-anim.dmat'].entries())
      assert.equal(lines[i + 1], `${file}: not loaded, since its mesh elephant.obj could not be read`);
    return true;
  });
});

test('a broken mesh without a skeleton: DMATs that fit the scene as it is load, those that do not name the mesh', async () => {
  const broken = textFile('elephant.obj', 'v 0 0 0\nf 1 2 9\n');
  await assert.rejects(
    loadBatchIntoDocument(demoDocument(), [broken, weights], inProcessIo),
    (error: unknown) => {
      assert.ok(error instanceof Error, 'an Error');
      const lines = error.message.split('\n');
      assert.equal(lines.length, 2, `one line per file: ${error.message}`);
      assert.match(
        lines[1],
        /^elephant-weights\.dmat: not loaded, since its mesh elephant\.obj could not be read \(nor does it fit this scene: /,
      );
      return true;
    },
    'the elephant’s weights do not fit the demo scene',
  );
  // On the arm, the arm's weights are an edit of the scene whatever else the batch holds.
  const arm = (await loadBatchIntoDocument(demoDocument(), ['arm.obj', 'arm.tgf'].map(opened), inProcessIo)).document;
  const { document, refused } = await loadBatchIntoDocument(
    arm,
    [opened('arm-weights.dmat'), textFile('broken.off', 'OFF\n3 1 0\n')],
    inProcessIo,
  );
  assert.deepEqual(
    refused.map((r) => r.file),
    ['broken.off'],
  );
  assert.equal(document.weightsSource, 'arm-weights.dmat', 'the weights fit the scene and load');
  assert.equal(document.mesh, arm.mesh, 'on the scene’s mesh');
});

test('when an example’s mesh cannot be read, its pose is refused rather than read as the scene’s pose', async () => {
  const broken = textFile('eg0.obj', 'v 0 0 0\nf 1 2 9\n');
  const { document, refused } = await loadBatchIntoDocument(
    demoDocument(),
    [obj, tgf, weights, broken, { name: 'eg0.dmat', bytes: restPose() }],
    inProcessIo,
  );
  assert.deepEqual(
    refused.map((r) => r.file),
    ['eg0.obj', 'eg0.dmat'],
  );
  assert.equal(refused[1].message, 'eg0.dmat: not loaded, since its example eg0.obj could not be read');
  assert.equal(document.posesFile, null, 'the skeleton starts at rest');
  assert.equal(document.weightsSource, 'elephant-weights.dmat', 'the rest loads');
  assert.equal(document.examples, undefined, 'no example');
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
