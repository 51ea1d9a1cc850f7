/**
 * Loading batches of files into the scene document (workers/scene/scene-document.ts) with the real readers, run
 * in-process instead of in the worker: how each DMAT is classified by shape, provisional binding, rest pose for
 * a new skeleton, and that a bad batch is refused as a whole with a message naming the file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OpenedFile } from '../../app/ipc-contract.ts';
import { readRigFile } from '../../workers/formats/read-file.ts';
import { writeDmatAscii } from '../../workers/formats/dmat.ts';
import {
  PROVISIONAL_WEIGHTS,
  boneCountOf,
  demoDocument,
  jointCountOf,
  triangleCountOf,
  vertexCountOf,
} from '../../workers/scene/scene-document.ts';
import { loadIntoDocument } from '../../renderer/document/load-files.ts';
import { inProcessIo as io, textFile } from './in-process-io.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dataDir = process.env.RIGWRIGHT_DATA ?? path.resolve(repoRoot, '../shared/data');

function dataFile(...parts: string[]): OpenedFile {
  const file = path.join(dataDir, ...parts);
  if (!existsSync(file)) throw new Error(`shared data missing: ${file} (set RIGWRIGHT_DATA to the data folder)`);
  return { name: path.basename(file), bytes: new Uint8Array(readFileSync(file)) };
}

const demo = demoDocument();

test('the demo document is complete: weights #V × #B, an animation for its bones', () => {
  assert.equal(demo.weights.rows, vertexCountOf(demo));
  assert.equal(demo.weights.cols, boneCountOf(demo));
  assert.ok(boneCountOf(demo) >= 4, 'the demo has at least 4 bones');
  assert.equal(demo.poses?.kind, 'matrices');
  assert.equal(demo.poses?.boneCount, boneCountOf(demo));
  assert.ok(demo.diagonal > 0, 'the demo has a positive diagonal');
});

test('hand mesh + skeleton + rotation matrices: provisional weights, 34-frame sequence', async () => {
  const doc = await loadIntoDocument(
    demo,
    [dataFile('hand', 'hand-pose_matrot.dmat'), dataFile('hand', 'hand.tgf'), dataFile('hand', 'hand.off')],
    io,
  );
  assert.deepEqual([vertexCountOf(doc), triangleCountOf(doc), boneCountOf(doc), jointCountOf(doc)], [4780, 9556, 20, 21]);
  assert.equal(doc.name, 'hand.off');
  assert.deepEqual(doc.meshFiles, ['hand.off']);
  assert.equal(doc.weightsSource, PROVISIONAL_WEIGHTS);
  assert.equal(doc.weights.rows, 4780);
  assert.equal(doc.weights.cols, 20);
  for (let v = 0; v < 4780; v += 97) {
    let sum = 0;
    for (let b = 0; b < 20; b++) sum += doc.weights.data[v * 20 + b];
    assert.ok(Math.abs(sum - 1) < 1e-9, `row ${v} sums to ${sum}`);
  }
  assert.equal(doc.poses?.kind, 'matrices');
  assert.equal(doc.poses?.kind === 'matrices' ? doc.poses.frameCount : 0, 34);
  assert.equal(doc.posesFile, 'hand-pose_matrot.dmat');
});

test('a #V × 1 DMAT is kept as handles, a 4B × 1 DMAT is a quaternion pose; the rest is shared', async () => {
  const hand = await loadIntoDocument(demo, [dataFile('hand', 'hand.off'), dataFile('hand', 'hand.tgf')], io);
  assert.equal(hand.poses, null, 'a new skeleton without poses starts at rest');
  const withHandles = await loadIntoDocument(hand, [dataFile('hand', 'hand-handles.dmat'), dataFile('hand', 'hand-pose_quat.dmat')], io);
  assert.equal(withHandles.handles?.length, 4780);
  assert.equal(withHandles.handlesFile, 'hand-handles.dmat');
  assert.equal(withHandles.poses?.kind, 'quaternions');
  assert.equal(withHandles.mesh, hand.mesh);
  assert.equal(withHandles.skeleton, hand.skeleton);
  assert.equal(withHandles.weights, hand.weights);
  assert.equal(withHandles.weightsSource, PROVISIONAL_WEIGHTS);
});

test('weights from a file replace provisional ones and name their source', async () => {
  const doc = await loadIntoDocument(
    demo,
    [dataFile('libigl', 'arm.obj'), dataFile('libigl', 'arm.tgf'), dataFile('libigl', 'arm-weights.dmat')],
    io,
  );
  assert.equal(doc.weightsSource, 'arm-weights.dmat');
  assert.equal(doc.weights.rows, vertexCountOf(doc));
  assert.equal(doc.weights.cols, boneCountOf(doc));
  assert.equal(doc.poses, null);
});

test('a wrong-size weight matrix is refused by name and sizes; the current document is untouched', async () => {
  const hand = await loadIntoDocument(demo, [dataFile('hand', 'hand.off'), dataFile('hand', 'hand.tgf')], io);
  const bad = textFile('wrong-size.dmat', writeDmatAscii({ rows: 4780, cols: 7, data: new Float64Array(4780 * 7).fill(1 / 7) }));
  await assert.rejects(loadIntoDocument(hand, [bad], io), /wrong-size\.dmat.*4780/s);
  assert.equal(vertexCountOf(hand), 4780);
  assert.equal(boneCountOf(hand), 20);
});

test('a pose file for another skeleton is refused, even in a batch that is otherwise fine', async () => {
  // The demo has 7 bones; 2040 × 3 holds 680 matrices, not a whole number of 7-bone frames.
  await assert.rejects(
    loadIntoDocument(demo, [dataFile('hand', 'hand-pose_matrot.dmat')], io),
    /hand-pose_matrot\.dmat: .*another skeleton/,
  );
  await assert.rejects(loadIntoDocument(demo, [dataFile('hand', 'hand-pose_quat.dmat')], io), /hand-pose_quat\.dmat: .*another skeleton/);
});

test('a handle file for another mesh is refused as handles, naming both vertex counts', async () => {
  await assert.rejects(loadIntoDocument(demo, [dataFile('hand', 'hand-handles.dmat')], io), (error: Error) => {
    assert.match(error.message, /^hand-handles\.dmat: /);
    assert.match(error.message, /4780/);
    assert.ok(error.message.includes(String(vertexCountOf(demo))), error.message);
    return true;
  });
});

test('parse errors of several files are all reported, each with file and line', async () => {
  const truncated = textFile('truncated.obj', 'v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 2');
  const badTgf = textFile('bad.tgf', '1 0 0 0\n2 1 0 0\n#\n1 3\n');
  await assert.rejects(loadIntoDocument(demo, [truncated, badTgf], io), (error: Error) => {
    assert.match(error.message, /truncated\.obj: line 6/);
    assert.match(error.message, /bad\.tgf/);
    assert.equal(error.message.split('\n').length, 2);
    return true;
  });
});

test('two meshes in one batch make one scene: vertices joined in batch order, a part per file, DMATs index the joined vertices', async () => {
  const arm = readRigFile('arm.obj', dataFile('libigl', 'arm.obj').bytes);
  const hand = readRigFile('hand.off', dataFile('hand', 'hand.off').bytes);
  assert.ok(arm.kind === 'mesh' && hand.kind === 'mesh', 'arm.obj and hand.off read as meshes');
  const va = arm.mesh.positions.length / 3;
  const vh = hand.mesh.positions.length / 3;
  // Handles: the first vertex of each file, on bones 0 and 1 of a two-bone skeleton.
  const handles = new Float64Array(va + vh).fill(-1);
  handles[0] = 0;
  handles[va] = 1;
  const doc = await loadIntoDocument(
    demo,
    [
      dataFile('libigl', 'arm.obj'),
      dataFile('hand', 'hand.off'),
      textFile('two.tgf', '1 0 0 0\n2 1 0 0\n3 2 0 0\n#\n1 2\n2 3\n'),
      textFile('handles.dmat', writeDmatAscii({ rows: va + vh, cols: 1, data: handles })),
    ],
    io,
  );
  assert.equal(vertexCountOf(doc), va + vh);
  assert.deepEqual(doc.meshFiles, ['arm.obj', 'hand.off']);
  assert.deepEqual(
    doc.parts?.map((p) => [p.name, p.vertexStart, p.vertexCount, p.triangleStart, p.triangleCount]),
    [
      ['arm.obj', 0, va, 0, arm.mesh.triangles.length / 3],
      ['hand.off', va, vh, arm.mesh.triangles.length / 3, hand.mesh.triangles.length / 3],
    ],
  );
  assert.deepEqual(doc.mesh.positions.subarray(3 * va), hand.mesh.positions);
  assert.deepEqual(
    doc.mesh.triangles.subarray(arm.mesh.triangles.length),
    hand.mesh.triangles.map((v) => v + va),
  );
  assert.equal(doc.handles?.[va], 1);
  assert.equal(doc.handles?.[0], 0);
  assert.equal(doc.weightsSource, PROVISIONAL_WEIGHTS);
  // The same file twice: names made unique.
  const twice = await loadIntoDocument(demo, [dataFile('hand', 'hand.off'), dataFile('hand', 'hand.off')], io);
  assert.deepEqual(
    twice.parts?.map((p) => p.name),
    ['hand.off', 'hand.off 2'],
  );
  // A skeleton alone keeps the scene's meshes.
  const reskeletoned = await loadIntoDocument(doc, [textFile('one.tgf', '1 0 0 0\n2 1 0 0\n#\n1 2\n')], io);
  assert.equal(reskeletoned.parts, doc.parts);
});
