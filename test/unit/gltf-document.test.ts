/**
 * glTF batches into the scene document (renderer/gltf-document.ts), with the real importer run in-process: a .gltf
 * finds its .bin files by base name, a missing buffer or a stray file refuses the batch with a message naming the
 * file, and the document carries the bone names and every clip, with weights that fit the mesh and skeleton.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OpenedFile } from '../../app/ipc-contract.ts';
import { gltfIntoDocument, isGltfBatch } from '../../renderer/document/gltf-document.ts';
import { boneCountOf, demoDocument, vertexCountOf } from '../../workers/scene/scene-document.ts';
import { loadIntoDocument } from '../../renderer/document/load-files.ts';
import { inProcessIo } from './in-process-io.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dataDir = process.env.RIGWRIGHT_DATA ?? path.resolve(repoRoot, '../shared/data');

function dataFiles(folder: string[], names?: string[]): OpenedFile[] {
  const dir = path.join(dataDir, ...folder);
  if (!existsSync(dir)) throw new Error(`shared data missing: ${dir} (set RIGWRIGHT_DATA to the data folder)`);
  return (names ?? readdirSync(dir).filter((n) => /\.(gltf|glb|bin)$/.test(n))).map((name) => ({
    name,
    bytes: new Uint8Array(readFileSync(path.join(dir, name))),
  }));
}

const io = inProcessIo;

test('SimpleSkin.gltf with its four .bin files equals the embedded version', async () => {
  const separate = await gltfIntoDocument(dataFiles(['gltf', 'SimpleSkin', 'glTF']), io);
  const embedded = await gltfIntoDocument(dataFiles(['gltf', 'SimpleSkin', 'glTF-Embedded']), io);
  assert.equal(separate.name, 'SimpleSkin.gltf');
  assert.deepEqual(Array.from(separate.mesh.positions), Array.from(embedded.mesh.positions));
  assert.deepEqual(Array.from(separate.weights.data), Array.from(embedded.weights.data));
  assert.equal(separate.weights.rows, vertexCountOf(separate));
  assert.equal(separate.weights.cols, boneCountOf(separate));
  assert.equal(separate.boneNames?.length, boneCountOf(separate));
  assert.equal(separate.clips?.length, 1);
  assert.equal(separate.poses, separate.clips[0].poses);
});

test('a .gltf without a buffer it names, a lone .bin, or a glTF with other rig files is refused, naming the files', async () => {
  const withoutBins = dataFiles(['gltf', 'SimpleSkin', 'glTF'], ['SimpleSkin.gltf']);
  await assert.rejects(gltfIntoDocument(withoutBins, io), /SimpleSkin\.gltf: buffer 0 is in "\w+\.bin", which was not opened/);
  const bin: OpenedFile = { name: 'skin.bin', bytes: new Uint8Array(8) };
  assert.ok(isGltfBatch([bin]), 'a .bin file on its own counts as a glTF batch');
  await assert.rejects(loadIntoDocument(demoDocument(), [bin], io), /skin\.bin: glTF buffers need the \.gltf file/);
  const glb = dataFiles(['gltf', 'RiggedSimple'], ['RiggedSimple.glb']);
  const obj: OpenedFile = { name: 'extra.obj', bytes: new TextEncoder().encode('v 0 0 0\n') };
  await assert.rejects(gltfIntoDocument([...glb, obj], io), /extra\.obj: a glTF file replaces the whole scene/);
  await assert.rejects(gltfIntoDocument([...glb, ...glb], io), /2 glTF files at once/);
  const broken: OpenedFile = { name: 'broken.glb', bytes: new Uint8Array([0x67, 0x6c, 0x54, 0x46, 2, 0, 0, 0, 12, 0, 0, 0]) };
  await assert.rejects(gltfIntoDocument([broken], io), /broken\.glb/);
});

test('a .gltf naming a buffer outside its folder is refused naming the URI, even when a file of that base name is opened with it', async () => {
  const files = dataFiles(['gltf', 'SimpleSkin', 'glTF']);
  const gltf = files.find((f) => f.name === 'SimpleSkin.gltf')!;
  const json = JSON.parse(new TextDecoder().decode(gltf.bytes)) as { buffers: { uri: string }[] };
  const first = json.buffers[0].uri;
  for (const uri of [`../${first}`, `%2e%2e/${first}`, `/tmp/${first}`]) {
    json.buffers[0].uri = uri;
    const changed = { name: 'SimpleSkin.gltf', bytes: new TextEncoder().encode(JSON.stringify(json)) };
    await assert.rejects(
      gltfIntoDocument([changed, ...files.filter((f) => f !== gltf)], io),
      (error: Error) => error.message.startsWith('SimpleSkin.gltf: ') && error.message.includes(uri),
      `${uri} is refused, naming it`,
    );
  }
});

test('Fox.glb: three clips, the first shown, bone names from the joint nodes', async () => {
  const doc = await loadIntoDocument(demoDocument(), dataFiles(['gltf', 'Fox'], ['Fox.glb']), io);
  assert.deepEqual(
    doc.clips?.map((c) => c.name),
    ['Survey', 'Walk', 'Run'],
  );
  assert.equal(doc.posesFile, 'Survey');
  assert.ok(doc.boneNames?.includes('b_Hip_01'), 'the bone names include b_Hip_01');
  assert.ok(
    doc.warnings.every((w) => w.startsWith('Fox.glb: ')),
    'every warning starts with the file name Fox.glb',
  );
});
