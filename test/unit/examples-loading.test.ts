/**
 * Example shapes into the scene document (renderer/document/example-files.ts through loadIntoDocument), with the
 * real readers run in-process, on the context-aware body of ../shared/data: examples pair with their poses by
 * base name, their poses are the frames PROVENANCE.md says (34, 56, 87, 80 of all_frames.dmat), a mesh with other
 * faces or vertex count and a pose for another bone count are refused naming the file and the first difference,
 * an example without a pose takes the default pose given, and a new mesh drops the old scene's examples.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OpenedFile } from '../../app/ipc-contract.ts';
import { readRigFile } from '../../workers/formats/read-file.ts';
import { demoDocument, examplesOf, type SceneDocument } from '../../workers/scene/scene-document.ts';
import { loadIntoDocument } from '../../renderer/document/load-files.ts';
import { baseName, partitionExamples } from '../../renderer/document/example-files.ts';
import { inProcessIo as io, textFile } from './in-process-io.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dataDir = process.env.RIGWRIGHT_DATA ?? path.resolve(repoRoot, '../shared/data');

function bodyFile(name: string): OpenedFile {
  const file = path.join(dataDir, 'context-aware', name);
  if (!existsSync(file)) throw new Error(`shared data missing: ${file} (set RIGWRIGHT_DATA to the data folder)`);
  return { name, bytes: new Uint8Array(readFileSync(file)) };
}
const textOf = (file: OpenedFile) => new TextDecoder().decode(file.bytes);

const BODY = ['reference.obj', 'skeleton.tgf', 'all_frames.dmat'].map(bodyFile);
const EXAMPLES = [0, 1, 2, 3].flatMap((i) => [bodyFile(`eg${i}.obj`), bodyFile(`eg${i}.dmat`)]);
/** PROVENANCE.md: eg0…eg3 are frames 34, 56, 87 and 80 (0-based) of all_frames.dmat */
const FRAMES = [34, 56, 87, 80];

let body: Promise<SceneDocument> | null = null;
const loadBody = () => (body ??= loadIntoDocument(demoDocument(), BODY, io));

test('the body and its four examples in one drop: paired by base name, each with its own pose frame', async () => {
  const doc = await loadIntoDocument(demoDocument(), [...EXAMPLES, ...BODY], io);
  assert.equal(doc.name, 'reference.obj', 'the unpaired mesh with the skeleton is the rest mesh');
  const examples = examplesOf(doc);
  assert.deepEqual(
    examples.map((e) => [e.name, e.file, e.poseSource, e.hidden]),
    [0, 1, 2, 3].map((i) => [`eg${i}`, `eg${i}.obj`, `eg${i}.dmat`, false]),
  );
  const frames = doc.poses?.kind === 'matrices' ? doc.poses.rotations : new Float64Array();
  const B = 28;
  examples.forEach((example, j) => {
    assert.equal(example.pose.length, 9 * B);
    const frame = frames.subarray(9 * B * FRAMES[j], 9 * B * (FRAMES[j] + 1));
    let worst = 0;
    for (let k = 0; k < 9 * B; k++) worst = Math.max(worst, Math.abs(frame[k] - example.pose[k]));
    assert.ok(worst < 1e-12, `${example.name} is frame ${FRAMES[j]} (${worst})`);
    assert.equal(example.positions.length, doc.mesh.positions.length);
    assert.notDeepEqual(example.positions, doc.mesh.positions, 'the example is not the rest mesh');
  });
});

test('examples dropped onto the body are added to it, keeping rig and weights; a repeated name is made unique', async () => {
  const doc = await loadBody();
  const one = await loadIntoDocument(doc, [bodyFile('eg2.obj'), bodyFile('eg2.dmat')], io);
  assert.equal(one.mesh, doc.mesh);
  assert.equal(one.weights, doc.weights);
  assert.equal(one.poses, doc.poses);
  const again = await loadIntoDocument(one, [bodyFile('eg2.dmat'), bodyFile('eg2.obj')], io);
  assert.deepEqual(
    examplesOf(again).map((e) => e.name),
    ['eg2', 'eg2 2'],
  );
  assert.equal(examplesOf(again)[0], examplesOf(one)[0], 'the examples already there are kept as they are');
});

test('a mesh whose faces differ is refused, naming the file and the first differing face', async () => {
  const doc = await loadBody();
  const lines = textOf(bodyFile('eg1.obj')).split('\n');
  const faceLines = lines.map((l, i) => (l.startsWith('f ') ? i : -1)).filter((i) => i >= 0);
  const target = faceLines[7];
  const [, a, b, c] = lines[target].trim().split(/\s+/);
  lines[target] = `f ${a} ${c} ${b}`;
  const swapped = textFile('sculpt.obj', lines.join('\n'));
  await assert.rejects(loadIntoDocument(doc, [swapped, textFile('sculpt.dmat', textOf(bodyFile('eg1.dmat')))], io), (error: Error) => {
    assert.match(error.message, /^sculpt\.obj: face 7: /);
    assert.ok(error.message.includes(`this face is ${a} ${c} ${b}, the rest mesh's is ${a} ${b} ${c}`), error.message);
    return true;
  });
});

test('a mesh with another vertex count is refused with both counts', async () => {
  const doc = await loadBody();
  const hand = { name: 'hand.off', bytes: new Uint8Array(readFileSync(path.join(dataDir, 'hand', 'hand.off'))) };
  await assert.rejects(
    loadIntoDocument(doc, [hand, textFile('hand.dmat', textOf(bodyFile('eg0.dmat')))], io),
    /hand\.off: .*18453 vertices; it has 4780/,
  );
});

test('a pose with the wrong bone count is refused, naming the file and the bone counts', async () => {
  const doc = await loadBody();
  const values = textOf(bodyFile('eg0.dmat')).trim().split(/\s+/).slice(2).map(Number);
  // 27 bones: drop the last bone's rows from each column-major column of 84 values.
  const columns = [0, 1, 2].map((c) => values.slice(84 * c, 84 * c + 81));
  const short = textFile('eg0.dmat', `3 81\n${columns.flat().join('\n')}\n`);
  await assert.rejects(loadIntoDocument(doc, [bodyFile('eg0.obj'), short], io), (error: Error) => {
    assert.match(error.message, /^eg0\.dmat: 81 × 3 \(a pose for 27 bones\); .*84 × 3.*28 bones/);
    return true;
  });
});

test('an example without a pose takes the default pose; without one it is refused by name', async () => {
  const doc = await loadBody();
  const rotations = doc.poses?.kind === 'matrices' ? doc.poses.rotations.slice(9 * 28 * 87, 9 * 28 * 88) : new Float64Array();
  const added = await loadIntoDocument(doc, [bodyFile('eg2.obj')], io, {
    asExamples: true,
    defaultPose: (boneCount) => (boneCount === 28 ? { rotations, source: 'frame 87 of all_frames.dmat' } : null),
  });
  const [example] = examplesOf(added);
  assert.equal(example.poseSource, 'frame 87 of all_frames.dmat');
  assert.deepEqual(example.pose, rotations);
  assert.notEqual(example.pose, rotations, 'the example keeps its own copy');
  await assert.rejects(loadIntoDocument(doc, [bodyFile('eg2.obj')], io, { asExamples: true }), /eg2\.obj: no pose for this example/);
  // Without the Examples panel, one mesh alone is still a new scene.
  assert.deepEqual(
    partitionExamples([readRigFile('eg2.obj', bodyFile('eg2.obj').bytes)]).examples.map((e) => e.mesh.name),
    [],
  );
});

test('a new mesh drops the examples of the old scene; a weights file keeps them', async () => {
  const doc = await loadIntoDocument(await loadBody(), [bodyFile('eg3.obj'), bodyFile('eg3.dmat')], io);
  assert.equal(examplesOf(doc).length, 1);
  const reopened = await loadIntoDocument(doc, [bodyFile('reference.obj'), bodyFile('skeleton.tgf')], io);
  assert.equal(examplesOf(reopened).length, 0);
  const handles = await loadIntoDocument(doc, [bodyFile('handles.dmat')], io);
  assert.equal(examplesOf(handles)[0], examplesOf(doc)[0]);
  assert.equal(baseName('dir/eg3.obj'), 'eg3');
});
