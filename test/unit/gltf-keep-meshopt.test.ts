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
import { meshoptNotice, planMeshopt, type MeshoptPlan } from '../../workers/formats/gltf/keep-meshopt.ts';
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
  const plan = (): MeshoptPlan =>
    planMeshopt(json, { file: 'figure.glb', bytes, resources: {}, jointNodes: new Int32Array(0) }, accessors, MeshoptDecoder);
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
