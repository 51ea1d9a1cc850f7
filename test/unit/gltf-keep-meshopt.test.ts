/**
 * The plan and the notice of keep-meshopt.ts on their own: a meshopt-compressed RiggedFigure read as the export reads
 * its source keeps every compressed view; an accessor whose values change after reading (one value, in place) has its
 * view encoded again for that reason, the others kept; a view whose accessor is gone is encoded again as replaced; the
 * notice names at most six views, grouped by reason, and counts the rest. (The written files: gltf-noop-identity.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { WebIO } from '@gltf-transform/core';
import { EXTMeshoptCompression } from '@gltf-transform/extensions';
import { MeshoptDecoder, MeshoptEncoder } from 'meshoptimizer';
import { readCheckedGltf } from '../../workers/formats/gltf-import.ts';
import { gltfJson } from '../../workers/formats/gltf-resource-uris.ts';
import { parseGlb } from '../../workers/formats/gltf/glb.ts';
import { meshoptNotice, placeMeshoptViews, planMeshopt, type MeshoptPlan } from '../../workers/formats/gltf/keep-meshopt.ts';
import { dataFile } from './shared-data.ts';

type Json = Record<string, unknown>;

/** RiggedFigure written by glTF-Transform meshopt-compressed (no filter), its JSON and its Document as read. */
async function figure(): Promise<{
  bytes: Uint8Array;
  json: Json;
  plan: () => MeshoptPlan;
  doc: Awaited<ReturnType<typeof readCheckedGltf>>;
}> {
  await Promise.all([MeshoptEncoder.ready, MeshoptDecoder.ready]);
  const io = new WebIO()
    .registerExtensions([EXTMeshoptCompression])
    .registerDependencies({ 'meshopt.encoder': MeshoptEncoder, 'meshopt.decoder': MeshoptDecoder });
  const source = await io.readBinary(new Uint8Array(readFileSync(dataFile('gltf', 'RiggedFigure', 'RiggedFigure.glb'))));
  source.createExtension(EXTMeshoptCompression).setRequired(true);
  const bytes = await io.writeBinary(source);
  const json = gltfJson(bytes, 'figure') as Json;
  const doc = await readCheckedGltf(bytes, 'figure.glb', {}, []);
  const accessors = doc.getRoot().listAccessors();
  const plan = (): MeshoptPlan => planMeshopt(json, () => parseGlb(bytes, 'figure').bin!, accessors, MeshoptDecoder);
  return { bytes, json, plan, doc };
}

/** The compressed views of a glTF's JSON, by index. */
function compressedViews(json: Json): number[] {
  return (json.bufferViews as Json[]).flatMap((view, v) => ((view.extensions as Json | undefined)?.EXT_meshopt_compression ? [v] : []));
}

test('planMeshopt: a source read and left as is keeps every compressed view, with its bytes', async () => {
  const { bytes, json, plan } = await figure();
  const bin = parseGlb(bytes, 'figure').bin!;
  const { keeps, reencoded } = plan();
  assert.deepEqual(reencoded, [], 'nothing encoded again');
  // Each buffer's bytes asked for once, not once per view (a data: URI would be decoded each time).
  const asked: number[] = [];
  const { doc } = await figure();
  planMeshopt(json, (k) => (asked.push(k), bin), doc.getRoot().listAccessors(), MeshoptDecoder);
  assert.deepEqual(asked, [0], "the compressed data's buffer, once for the 9 views");
  assert.deepEqual(
    keeps.map((keep) => keep.view),
    compressedViews(json),
    'every compressed view kept',
  );
  for (const keep of keeps) {
    const extension = ((json.bufferViews as Json[])[keep.view].extensions as Record<string, Json>).EXT_meshopt_compression;
    const start = (extension.byteOffset as number | undefined) ?? 0;
    const expected = bin.subarray(start, start + (extension.byteLength as number));
    assert.ok(Buffer.from(keep.bytes).equals(Buffer.from(expected)), `view ${keep.view}: the source's compressed bytes`);
  }
});

test('planMeshopt: one value changed in place encodes its view again ("changed"), a removed accessor its view ("replaced")', async () => {
  const { json, plan, doc } = await figure();
  const accessors = doc.getRoot().listAccessors();
  const attributes = ((json.meshes as Json[])[0].primitives as Json[])[0].attributes as Record<string, number>;
  // POSITION's first x moved by 1 (a value the decoder does not give), and the WEIGHTS_0 accessor disposed.
  const position = accessors[attributes.POSITION].getArray() as Float32Array;
  position[0] += 1;
  accessors[attributes.WEIGHTS_0].dispose();
  const viewOf = (a: number): number => (json.accessors as Json[])[a].bufferView as number;
  const { keeps, reencoded } = plan();
  assert.deepEqual(
    reencoded.map(({ view, reason }) => [view, reason]),
    [
      [viewOf(attributes.POSITION), 'changed'],
      [viewOf(attributes.WEIGHTS_0), 'replaced'],
    ].sort((a, b) => (a[0] as number) - (b[0] as number)),
    'the two views and why',
  );
  assert.equal(keeps.length, compressedViews(json).length - 2, 'the others kept');
  const notice = meshoptNotice({ keeps, reencoded }, 'figure.glb');
  assert.match(notice ?? '', /^2 of \d+ meshopt-compressed buffer views of figure\.glb are compressed again/);
  assert.match(notice ?? '', /primitive 0 POSITION\): the values it holds changed/);
  assert.match(notice ?? '', /primitive 0 WEIGHTS_0\): the export replaced or removed data it holds/);
});

test('meshoptNotice: at most six views named, grouped by reason, the rest counted; none encoded again gives no notice', () => {
  const label = (v: number): string => `buffer view ${v} (accessor ${v})`;
  const reencoded = [
    ...[0, 1, 2, 3, 4].map((view) => ({ view, label: label(view), reason: 'replaced' as const })),
    ...[5, 6, 7].map((view) => ({ view, label: label(view), reason: 'changed' as const })),
    { view: 8, label: label(8), reason: 'sparse' as const },
  ];
  const notice = meshoptNotice({ keeps: [], reencoded }, 'many.glb');
  assert.equal(
    notice,
    '9 of 9 meshopt-compressed buffer views of many.glb are compressed again (EXT_meshopt_compression, encoded anew by the writer, with the data now written): ' +
      'buffer view 0 (accessor 0), buffer view 1 (accessor 1), buffer view 2 (accessor 2), buffer view 3 (accessor 3), buffer view 4 (accessor 4): the export replaced or removed data they hold (what replaces it is compressed anew); ' +
      'buffer view 5 (accessor 5) and 2 more: the values they hold changed; 1 more for other reasons',
  );
  assert.equal(meshoptNotice({ keeps: [], reencoded: [] }, 'none.glb'), null, 'no notice');
});

test('planMeshopt: a view whose data the decoder refuses is encoded again as undecodable, named so in the notice', async () => {
  const { json, bytes, doc } = await figure();
  const refusing = {
    decodeGltfBuffer(): void {
      throw new Error('malformed');
    },
  };
  const plan = planMeshopt(json, () => parseGlb(bytes, 'figure').bin!, doc.getRoot().listAccessors(), refusing);
  assert.equal(plan.keeps.length, 0, 'nothing kept');
  assert.deepEqual(
    plan.reencoded.map(({ reason }) => reason),
    compressedViews(json).map(() => 'undecodable'),
    'every view, as undecodable',
  );
  assert.match(meshoptNotice(plan, 'figure.glb') ?? '', /: their data cannot be decoded/);
});

test('planMeshopt: a fallback buffer with data of its own (a uri) has its views encoded again, as "fallback"', async () => {
  const { json, bytes, doc } = await figure();
  const withData = structuredClone(json);
  const fallback = (withData.buffers as Json[]).findIndex((buffer) => (buffer.extensions as Json | undefined)?.EXT_meshopt_compression);
  (withData.buffers as Json[])[fallback].uri = 'fallback.bin';
  const bin = parseGlb(bytes, 'figure').bin!;
  const plan = planMeshopt(withData, (k) => (k === fallback ? new Uint8Array(64) : bin), doc.getRoot().listAccessors(), MeshoptDecoder);
  assert.equal(plan.keeps.length, 0, 'nothing kept');
  assert.deepEqual(
    plan.reencoded.map(({ reason }) => reason),
    compressedViews(json).map(() => 'fallback'),
    'every view, as fallback',
  );
  assert.match(meshoptNotice(plan, 'figure.glb') ?? '', /their fallback buffers are not ones without data of their own/);
});

/** The source's JSON as the writer would give it back: a copy whose accessors carry their source index as a tag. */
function tagged(json: Json): Json {
  const copy = structuredClone(json);
  (copy.accessors as Json[]).forEach((accessor, a) => (accessor.extras = { rigwrightSource: a }));
  return copy;
}

test('placeMeshoptViews: a kept view whose accessors have no tag in the written JSON is left as written and reported', async () => {
  const { json, bytes, plan } = await figure();
  const { keeps } = plan();
  const written = structuredClone(json);
  const { unplaced } = placeMeshoptViews(written, [parseGlb(bytes, 'figure').bin!], keeps, json);
  assert.deepEqual(unplaced, compressedViews(json), 'every kept view unplaced');
  const notice = meshoptNotice({ keeps, reencoded: [] }, 'figure.glb', unplaced);
  assert.match(notice ?? '', /^9 of 9 meshopt-compressed buffer views of figure\.glb are compressed again/);
  assert.match(notice ?? '', /: their accessors could not be found in the file as written/);
});

test('placeMeshoptViews: each kept view stays on its own fallback buffer; a fallback buffer made anew has only the flag', async () => {
  const { json, bytes, plan } = await figure();
  const { keeps } = plan();
  const bin = parseGlb(bytes, 'figure').bin!;
  const buffers = json.buffers as Json[];
  const fallback = buffers.findIndex((buffer) => (buffer.extensions as Json | undefined)?.EXT_meshopt_compression);
  // Two fallback buffers: the views after the fourth moved to a second one.
  const two = tagged(json);
  (two.buffers as Json[]).push(structuredClone(buffers[fallback]));
  (two.bufferViews as Json[]).forEach((view, v) => {
    if (v >= 4) view.buffer = buffers.length;
  });
  placeMeshoptViews(two, [bin], keeps, json);
  const decodedLength = (views: Json[]): number => views.reduce((sum, view) => sum + Math.ceil((view.byteLength as number) / 4) * 4, 0);
  const on = (k: number): Json[] => (two.bufferViews as Json[]).filter((view) => view.buffer === k);
  const sourceViews = json.bufferViews as Json[];
  assert.equal(on(fallback).length, 4, 'four views on the first fallback buffer');
  assert.equal(on(buffers.length).length, sourceViews.length - 4, 'the others on the second');
  assert.equal((two.buffers as Json[])[fallback].byteLength, decodedLength(sourceViews.slice(0, 4)), "the first's length: its views'");
  assert.equal((two.buffers as Json[])[buffers.length].byteLength, decodedLength(sourceViews.slice(4)), "the second's length: its views'");
  // No fallback buffer written: the source's (here with a uri and a name) gives only its flag.
  const none = tagged(json);
  for (const view of none.bufferViews as Json[]) delete (view.extensions as Json).EXT_meshopt_compression;
  (none.buffers as Json[]).splice(fallback, 1);
  for (const view of none.bufferViews as Json[]) view.buffer = 0;
  const source = structuredClone(json);
  Object.assign((source.buffers as Json[])[fallback], { uri: 'source-fallback.bin', name: 'fallback' });
  placeMeshoptViews(none, [bin], keeps, source);
  const added = (none.buffers as Json[]).at(-1)!;
  assert.deepEqual(Object.keys(added).sort(), ['byteLength', 'extensions'], 'only the flag and the length');
  assert.deepEqual(added.extensions, { EXT_meshopt_compression: { fallback: true } }, 'the flag');
  assert.ok(
    (none.bufferViews as Json[]).every((view) => view.buffer === (none.buffers as Json[]).length - 1),
    'every kept view on it',
  );
});
