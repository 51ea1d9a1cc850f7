/**
 * Buffers a written .gltf leaves empty (workers/formats/gltf/empty-buffers.ts): left out of the JSON, the views'
 * buffer indices (and EXT_meshopt_compression's) following, and — given the written files — the kept .bin files named
 * again for their count, their bytes moved with them, and a notice naming what was left out. The JSON here is shaped
 * as the writer leaves it: every buffer named after the output by its place in the list (model_0.bin, model_1.bin, …)
 * before the drop, an emptied one written as `{}`.
 */
import assert from 'node:assert/strict';
import test from 'node:test';
import { readFileSync } from 'node:fs';
import { NodeIO } from '@gltf-transform/core';
import { exportGltfInPlace } from '../../workers/formats/gltf-edit.ts';
import { importGltf } from '../../workers/formats/gltf-import.ts';
import { gltfJson } from '../../workers/formats/gltf-resource-uris.ts';
import { dropEmptyBuffers } from '../../workers/formats/gltf/empty-buffers.ts';
import { editOf } from './gltf-edit-input.ts';
import { assertValidGltf } from './gltf-skinning-reference.ts';
import { dataFile } from './shared-data.ts';

type Json = Record<string, unknown>;

const bytes = (n: number, fill: number): Uint8Array => new Uint8Array(n).fill(fill);

test('a .gltf left with only its second buffer: model_1.bin becomes model.bin, its view points at buffer 0, one notice', () => {
  const json: Json = {
    buffers: [{}, { uri: 'model_1.bin', byteLength: 8 }],
    bufferViews: [{ buffer: 1, byteLength: 8 }],
  };
  const resources: Record<string, Uint8Array> = { 'model_1.bin': bytes(8, 7) };
  const warnings: string[] = [];
  const dropped = dropEmptyBuffers(json, { resources, basename: 'model', warnings });
  assert.deepEqual(dropped, [{ index: 0, name: '' }], 'buffer 0 is left out');
  assert.deepEqual(json.buffers, [{ uri: 'model.bin', byteLength: 8 }], 'the lone buffer is named as a one-buffer file is');
  assert.deepEqual(json.bufferViews, [{ buffer: 0, byteLength: 8 }], 'the view follows its buffer');
  assert.deepEqual(Object.keys(resources), ['model.bin'], 'the file moved with its name');
  assert.deepEqual(resources['model.bin'], bytes(8, 7), 'with its bytes');
  assert.deepEqual(
    warnings,
    [
      'buffer 0 of the 2 written would hold no data (every accessor in it replaced or compressed into another buffer), so the file has 1 buffer; the .bin file is named model.bin',
    ],
    'one notice naming the buffer left out and the new name',
  );
});

test('a gap in the middle: model_0, model_2 and a meshopt fallback become model_0, model_1 and the fallback, views and extension follow', () => {
  const json: Json = {
    buffers: [
      { uri: 'model_0.bin', byteLength: 4 },
      { name: 'weights' },
      { uri: 'model_2.bin', byteLength: 6 },
      { byteLength: 16, extensions: { EXT_meshopt_compression: { fallback: true } } },
    ],
    bufferViews: [
      { buffer: 0, byteLength: 4 },
      { buffer: 3, byteLength: 16, extensions: { EXT_meshopt_compression: { buffer: 2, byteLength: 6 } } },
    ],
  };
  const resources: Record<string, Uint8Array> = { 'model_0.bin': bytes(4, 1), 'model_2.bin': bytes(6, 2) };
  const warnings: string[] = [];
  dropEmptyBuffers(json, { resources, basename: 'model', warnings });
  assert.deepEqual(
    (json.buffers as Json[]).map((buffer) => buffer.uri),
    ['model_0.bin', 'model_1.bin', undefined],
    'the kept files named in order, the fallback without a file',
  );
  const views = json.bufferViews as Json[];
  assert.equal(views[0].buffer, 0, 'the first view stays in buffer 0');
  assert.equal(views[1].buffer, 2, 'the fallback view follows its buffer (3 → 2)');
  assert.deepEqual(views[1].extensions, { EXT_meshopt_compression: { buffer: 1, byteLength: 6 } }, 'the compressed data follows (2 → 1)');
  assert.deepEqual(resources, { 'model_0.bin': bytes(4, 1), 'model_1.bin': bytes(6, 2) }, 'each file keeps its bytes under its new name');
  assert.equal(warnings.length, 1, 'one notice');
  assert.match(
    warnings[0],
    /^buffer 1 \("weights"\) of the 4 written would hold no data .* so the file has 3 buffers; the \.bin files are named model_0\.bin, model_1\.bin$/,
  );
});

test('the last buffer emptied: the names before it are already in order, nothing is renamed, the notice says which', () => {
  const json: Json = {
    buffers: [{ uri: 'a%20b_0.bin', byteLength: 4 }, { uri: 'a%20b_1.bin', byteLength: 4 }, {}],
    bufferViews: [{ buffer: 1 }],
  };
  const resources: Record<string, Uint8Array> = { 'a%20b_0.bin': bytes(4, 1), 'a%20b_1.bin': bytes(4, 2) };
  const warnings: string[] = [];
  dropEmptyBuffers(json, { resources, basename: 'a b', warnings });
  assert.deepEqual(Object.keys(resources), ['a%20b_0.bin', 'a%20b_1.bin'], 'the files as written');
  assert.deepEqual(
    warnings,
    [
      'buffer 2 of the 3 written would hold no data (every accessor in it replaced or compressed into another buffer), so the file has 2 buffers',
    ],
    'no renaming named',
  );
});

test('buffers not named by the writer keep their names; nothing empty, nothing changes and no notice', () => {
  const json: Json = { buffers: [{}, { uri: 'source.bin', byteLength: 4 }], bufferViews: [{ buffer: 1 }] };
  const resources: Record<string, Uint8Array> = { 'source.bin': bytes(4, 3) };
  const warnings: string[] = [];
  dropEmptyBuffers(json, { resources, basename: 'model', warnings });
  assert.deepEqual(json.buffers, [{ uri: 'source.bin', byteLength: 4 }], 'a name the writer did not give is kept');
  assert.deepEqual(Object.keys(resources), ['source.bin'], 'its file too');
  assert.match(warnings[0] ?? '', /^buffer 0 of the 2 written .* 1 buffer$/, 'the drop is still noticed');
  const full: Json = {
    buffers: [
      { uri: 'model_0.bin', byteLength: 4 },
      { uri: 'model_1.bin', byteLength: 4 },
    ],
    bufferViews: [{ buffer: 0 }, { buffer: 1 }],
  };
  const before = JSON.stringify(full);
  const none: string[] = [];
  assert.deepEqual(dropEmptyBuffers(full, { resources: {}, basename: 'model', warnings: none }), [], 'nothing dropped');
  assert.equal(JSON.stringify(full), before, 'the JSON is unchanged');
  assert.deepEqual(none, [], 'no notice');
});

test('seven buffers emptied: the notice names six and counts the rest', () => {
  const json: Json = {
    buffers: [...Array.from({ length: 7 }, () => ({})), { uri: 'm_7.bin', byteLength: 4 }],
    bufferViews: [{ buffer: 7 }],
  };
  const resources: Record<string, Uint8Array> = { 'm_7.bin': bytes(4, 9) };
  const warnings: string[] = [];
  dropEmptyBuffers(json, { resources, basename: 'm', warnings });
  assert.match(
    warnings[0],
    /^buffers 0, 1, 2, 3, 4, 5 and 1 more of the 8 written would hold no data \(every accessor in them /,
    'six named, one counted',
  );
  assert.deepEqual(Object.keys(resources), ['m.bin'], 'the lone file named m.bin');
});

test("an in-place .gltf export whose edit replaces every accessor of the source's second buffer writes one out.bin and says so", async () => {
  // CesiumMan as a .gltf of two buffers: the mesh, skin and clip in mesh.bin, the joints and weights in weights.bin.
  const io = new NodeIO();
  const doc = await io.readBinary(readFileSync(dataFile('gltf', 'CesiumMan', 'CesiumMan.glb')));
  doc.getRoot().listBuffers()[0].setURI('mesh.bin');
  const weightsBuffer = doc.createBuffer('weights').setURI('weights.bin');
  for (const mesh of doc.getRoot().listMeshes())
    for (const primitive of mesh.listPrimitives()) {
      primitive.getAttribute('JOINTS_0')?.setBuffer(weightsBuffer);
      primitive.getAttribute('WEIGHTS_0')?.setBuffer(weightsBuffer);
    }
  const written = await io.writeJSON(doc, { basename: 'cm' });
  const source = new TextEncoder().encode(JSON.stringify(written.json));
  const rig = await importGltf(source, 'cm.gltf', written.resources);
  // Every vertex half on bone 0, half on bone 1: the weights step writes new accessors and weights.bin holds nothing.
  const { rows, cols } = rig.weights;
  const data = new Float64Array(rows * cols);
  for (let v = 0; v < rows; v++) data[v * cols] = data[v * cols + 1] = 0.5;
  const result = await exportGltfInPlace({ ...editOf(rig), weights: { rows, cols, data } }, 'out.gltf', {
    format: 'gltf',
    basename: 'out',
  });

  const json = gltfJson(result.bytes, 'out.gltf') as { buffers: { uri?: string }[] };
  assert.deepEqual(
    json.buffers.map((buffer) => buffer.uri),
    ['out.bin'],
    'one buffer, named as a one-buffer file is (not out_0.bin)',
  );
  assert.deepEqual(Object.keys(result.resources).sort(), ['baseColor.jpg', 'out.bin'], 'the files written: the image and out.bin');
  const notices = result.warnings.filter((warning) => /would hold no data/.test(warning));
  assert.equal(notices.length, 1, `one notice of the buffer left out: ${result.warnings.join(' | ')}`);
  assert.match(
    notices[0],
    /^buffer 1 \("weights"\) of the 2 written .* the \.bin file is named out\.bin$/,
    'it names the buffer and the file',
  );
  await assertValidGltf(result.bytes, 'the .gltf with its weights buffer left out', result.resources, source);
  const back = await importGltf(result.bytes, 'out.gltf', result.resources);
  assert.equal(back.mesh.positions.length, rig.mesh.positions.length, 'every vertex reads back');
  for (let v = 0; v < rows; v++)
    assert.ok(
      back.weights.data[v * cols] === 0.5 && back.weights.data[v * cols + 1] === 0.5,
      `vertex ${v} reads back half on each of the first two bones`,
    );
});
