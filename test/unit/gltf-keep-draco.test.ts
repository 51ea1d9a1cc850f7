/**
 * `rigwright export --base` on a Draco file with nothing changed and no --compress keeps the compressed data as it
 * was (workers/formats/gltf/keep-draco.ts). The shared data has no Draco file, so one is made here the way other
 * tools make them: CesiumMan from ../shared/data/gltf compressed by glTF-Transform with Draco's default (edgebreaker)
 * encoder, which renumbers vertices. The output must hold the source's Draco stream byte for byte, decode to the
 * very positions and vertex count the source decodes to, and validate; with changed weights the stream is encoded
 * again, with a notice, and still validates.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { NodeIO } from '@gltf-transform/core';
import { KHRDracoMeshCompression } from '@gltf-transform/extensions';
import draco3d from 'draco3dgltf';
import { writeDmatAscii } from '../../workers/formats/dmat.ts';
import { exportGltfInPlace } from '../../workers/formats/gltf-edit.ts';
import { importGltf } from '../../workers/formats/gltf-import.ts';
import { skinningVertexAnimation } from '../../workers/formats/gltf-skinning-bake.ts';
import { boundingBox } from '../../workers/mesh/bounds.ts';
import { gltfJson } from '../../workers/formats/gltf-resource-uris.ts';
import { parseGlb } from '../../workers/formats/gltf/glb.ts';
import { twoJointSkinnedAsset } from './gltf-build.ts';
import { editOf } from './gltf-edit-input.ts';
import { assertValidGltf, gltfPosedPositions, maxDistance } from './gltf-skinning-reference.ts';
import { dataFile, repoRoot } from './shared-data.ts';

const work = mkdtempSync(path.join(tmpdir(), 'rigwright-keep-draco-'));

interface Json {
  meshes: { primitives: { attributes: Record<string, number>; extensions?: Record<string, { bufferView: number }> }[] }[];
  accessors: { bufferView?: number; count: number }[];
  bufferViews: { byteOffset?: number; byteLength: number }[];
}

function rigwright(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ['app/cli/rigwright.mjs', ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 180_000 });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Each Draco primitive's stream, in file order. */
function dracoStreams(glb: Uint8Array): Uint8Array[] {
  const json = gltfJson(glb, 'x') as Json;
  const bin = parseGlb(glb, 'x').bin!;
  return json.meshes.flatMap((mesh) =>
    mesh.primitives.flatMap((primitive) => {
      const extension = primitive.extensions?.KHR_draco_mesh_compression;
      if (!extension) return [];
      const view = json.bufferViews[extension.bufferView];
      return [bin.subarray(view.byteOffset ?? 0, (view.byteOffset ?? 0) + view.byteLength)];
    }),
  );
}

async function dracoCesiumMan(): Promise<Uint8Array> {
  const io = new NodeIO()
    .registerExtensions([KHRDracoMeshCompression])
    .registerDependencies({ 'draco3d.encoder': await draco3d.createEncoderModule() });
  const doc = await io.readBinary(readFileSync(dataFile('gltf', 'CesiumMan', 'CesiumMan.glb')));
  doc.createExtension(KHRDracoMeshCompression).setRequired(true);
  return io.writeBinary(doc);
}

test('export --base on a Draco file, nothing changed: the Draco stream byte for byte, the same decoded positions and vertex count', async () => {
  const source = await dracoCesiumMan();
  const sourceFile = path.join(work, 'CesiumMan-draco.glb');
  writeFileSync(sourceFile, source);
  const out = path.join(work, 'again.glb');
  const run = rigwright('export', '--base', sourceFile, '--out', out);
  assert.equal(run.status, 0, run.stderr);
  assert.doesNotMatch(run.stderr, /compressed again/, 'no re-encoding notice');
  const again = new Uint8Array(readFileSync(out));
  await assertValidGltf(again, 'the no-op export of a Draco file', {}, source);
  const before = dracoStreams(source);
  const after = dracoStreams(again);
  assert.equal(before.length, 1, 'CesiumMan has one compressed primitive');
  assert.equal(after.length, before.length, 'the output is still compressed');
  assert.ok(Buffer.from(after[0]).equals(Buffer.from(before[0])), 'the Draco stream is the source stream');
  // The accessors the stream holds keep the source's count (the vertex count as the encoder left it).
  const counts = (glb: Uint8Array): number[] => {
    const json = gltfJson(glb, 'x') as Json;
    return Object.values(json.meshes[0].primitives[0].attributes).map((a) => json.accessors[a].count);
  };
  assert.deepEqual(counts(again), counts(source));
  const decodedBefore = await importGltf(source, 'CesiumMan-draco.glb');
  const decodedAfter = await importGltf(again, 'again.glb');
  assert.equal(decodedAfter.mesh.positions.length, decodedBefore.mesh.positions.length, 'vertex count');
  assert.deepEqual(decodedAfter.mesh.positions, decodedBefore.mesh.positions, 'decoded positions');
  assert.deepEqual(decodedAfter.mesh.triangles, decodedBefore.mesh.triangles, 'decoded triangles');
  assert.deepEqual(decodedAfter.weights, decodedBefore.weights, 'decoded weights');
});

test('export --base on a Draco file with other weights: encoded again with a notice, valid, the new weights read back', async () => {
  const source = await dracoCesiumMan();
  const sourceFile = path.join(work, 'CesiumMan-draco-2.glb');
  writeFileSync(sourceFile, source);
  const rig = await importGltf(source, 'CesiumMan-draco-2.glb');
  const { rows, cols } = rig.weights;
  // Every vertex fully on the first joint: a change no quantization can hide.
  const data = new Float64Array(rows * cols);
  for (let v = 0; v < rows; v++) data[v * cols] = 1;
  const weightsFile = path.join(work, 'one-joint.dmat');
  writeFileSync(weightsFile, writeDmatAscii({ rows, cols, data }));
  const out = path.join(work, 'reweighted.glb');
  const run = rigwright('export', '--base', sourceFile, '--weights', weightsFile, '--out', out);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stderr, /compressed again/, 'the notice says the compressed meshes are encoded again');
  const written = new Uint8Array(readFileSync(out));
  await assertValidGltf(written, 'a re-weighted Draco file', {}, source);
  const back = await importGltf(written, 'reweighted.glb');
  // (Encoding again may renumber and merge vertices: every vertex read back is on the first joint only.)
  for (let v = 0; v < back.weights.rows; v++) {
    const row = Array.from(back.weights.data.subarray(v * cols, (v + 1) * cols));
    assert.deepEqual(row, [1, ...new Array<number>(cols - 1).fill(0)], `vertex ${v}: the new weights`);
  }
});

test('export --base on a Draco file whose stored weights are not valid glTF: kept compressed as stored, with a notice', async () => {
  // A strip of two quads on two joints; rows 1 and 4 sum to 0.8 and 1.3, far past Draco's quantization of weights.
  const { doc } = twoJointSkinnedAsset('strip', {
    positions: [-0.2, 0, 0, 0.2, 0, 0, -0.2, 1, 0, 0.2, 1, 0, -0.2, 2, 0, 0.2, 2, 0],
    joints: [0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0],
    weights: [1, 0, 0, 0, 0.6, 0.2, 0, 0, 0.5, 0.5, 0, 0, 0.5, 0.5, 0, 0, 0.7, 0.6, 0, 0, 1, 0, 0, 0],
    triangles: [0, 1, 3, 0, 3, 2, 2, 3, 5, 2, 5, 4],
  });
  doc.createExtension(KHRDracoMeshCompression).setRequired(true);
  const io = new NodeIO()
    .registerExtensions([KHRDracoMeshCompression])
    .registerDependencies({ 'draco3d.encoder': await draco3d.createEncoderModule() });
  const source = await io.writeBinary(doc);
  const sourceFile = path.join(work, 'strip-draco.glb');
  writeFileSync(sourceFile, source);
  const out = path.join(work, 'strip-again.glb');
  const run = rigwright('export', '--base', sourceFile, '--out', out);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stderr, /the weights of 1 Draco-compressed mesh \(strip\) in .* are not valid glTF .* kept as stored, compressed/);
  assert.doesNotMatch(run.stderr, /compressed again/, 'no re-encoding notice');
  const again = new Uint8Array(readFileSync(out));
  assert.ok(Buffer.from(dracoStreams(again)[0]).equals(Buffer.from(dracoStreams(source)[0])), 'the Draco stream is the source stream');

  // CesiumMan's weights, valid as stored within the quantization, give no such notice (the first test's file).
  const cesium = path.join(work, 'CesiumMan-draco-3.glb');
  writeFileSync(cesium, await dracoCesiumMan());
  const valid = rigwright('export', '--base', cesium, '--out', path.join(work, 'cesium-again.glb'));
  assert.equal(valid.status, 0, valid.stderr);
  assert.doesNotMatch(valid.stderr, /not valid glTF/);
});

test('in-place export of a Draco file with a baked clip: the stream kept, the morph targets uncompressed beside it, valid, played back as baked', async () => {
  const source = await dracoCesiumMan();
  const rig = await importGltf(source, 'CesiumMan-draco.glb');
  const poses = rig.clips[0].poses;
  const bake = skinningVertexAnimation(
    rig.mesh.positions,
    rig.skeleton,
    rig.weights,
    { name: 'walk (baked)', method: 'lbs', poses, influences: 4 },
    10,
  );
  const result = await exportGltfInPlace({ ...editOf(rig), vertexAnimations: [bake] }, 'baked.glb');
  assert.ok(!result.warnings.some((w) => /compressed again/.test(w)), `no re-encoding: ${result.warnings.join('; ')}`);
  await assertValidGltf(result.bytes, 'a Draco file with a baked clip', {}, source);
  assert.ok(
    Buffer.from(dracoStreams(result.bytes)[0]).equals(Buffer.from(dracoStreams(source)[0])),
    'the Draco stream is the source stream',
  );
  const json = gltfJson(result.bytes, 'baked') as Json & { meshes: { primitives: { targets?: Record<string, number>[] }[] }[] };
  const targets = json.meshes[0].primitives[0].targets ?? [];
  assert.equal(targets.length, bake.frameCount, 'a morph target per baked frame');
  const count = json.accessors[json.meshes[0].primitives[0].attributes.POSITION].count;
  for (const target of targets) {
    const accessor = json.accessors[target.POSITION];
    assert.ok(accessor.bufferView !== undefined, 'the target is stored uncompressed, in a buffer view of its own');
    assert.equal(accessor.count, count, "the target has the stream's vertex count");
  }
  // glTF's own playback: the decoded positions plus a frame's target (its weight is 1 at its key), skinned at the rest
  // nodes, give the baked positions.
  const io = new NodeIO()
    .registerExtensions([KHRDracoMeshCompression])
    .registerDependencies({ 'draco3d.decoder': await draco3d.createDecoderModule() });
  const written = await io.readBinary(result.bytes);
  const primitive = written.getRoot().listMeshes()[0].listPrimitives()[0];
  const position = primitive.getAttribute('POSITION')!;
  const base = Float32Array.from(position.getArray() as Float32Array);
  const diagonal = boundingBox(rig.mesh.positions).diagonal;
  const baked = new Float64Array(rig.mesh.positions.length);
  let worst = 0;
  for (const f of [0, Math.floor(bake.frameCount / 2), bake.frameCount - 1]) {
    const delta = primitive.listTargets()[f].getAttribute('POSITION')!.getArray() as Float32Array;
    position.setArray(base.map((x, i) => x + delta[i]));
    bake.positionsAt(f, baked);
    worst = Math.max(worst, maxDistance(gltfPosedPositions(written, null, 0), baked) / diagonal);
  }
  position.setArray(base);
  assert.ok(worst < 1e-5, `${worst} of the diagonal from the bake`);
});
