/**
 * `rigwright export --base` on a Draco file with nothing changed and no --compress keeps the compressed data as it
 * was (workers/formats/gltf/keep-draco.ts). The shared data has no Draco file, so one is made here the way other
 * tools make them: CesiumMan from ../shared/data/gltf compressed by glTF-Transform with Draco's default (edgebreaker)
 * encoder, which renumbers vertices. The output must hold the source's Draco stream byte for byte, decode to the
 * very positions and vertex count the source decodes to, and validate; with changed weights the stream is encoded
 * again, with a notice, and still validates. With two compressed primitives (CesiumMan split in two), only the one
 * whose weights change is encoded again and named in the notice; the other keeps its stream and accessors as the
 * source has them (GLB and .gltf, with morph targets added beside it too, with an attribute of its own beside its
 * stream), unless the two share a stream; a primitive the source stores uncompressed stays so; a compression asked
 * for encodes both again and says so. A .gltf of two buffers keeps each buffer's data in it; an accessor encoded again
 * keeps its extras; a file that also uses meshopt keeps its stream and its meshopt-compressed views byte for byte
 * (GLB and .gltf); the notice names the primitives the
 * encoder gives up on apart, groups the others by reason (6 named at most), says which keep their vertex order and
 * when the extension becomes required.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Document, NodeIO } from '@gltf-transform/core';
import { EXTMeshoptCompression, KHRDracoMeshCompression } from '@gltf-transform/extensions';
import draco3d from 'draco3dgltf';
import { MeshoptEncoder } from 'meshoptimizer/encoder';
import { writeDmatAscii } from '../../workers/formats/dmat.ts';
import { exportGltfInPlace } from '../../workers/formats/gltf-edit.ts';
import { importGltf } from '../../workers/formats/gltf-import.ts';
import { skinningVertexAnimation } from '../../workers/formats/gltf-skinning-bake.ts';
import { boundingBox } from '../../workers/mesh/bounds.ts';
import { gltfJson } from '../../workers/formats/gltf-resource-uris.ts';
import { parseGlb, writeGlb } from '../../workers/formats/gltf/glb.ts';
import { dracoNotice, dracoPlacements, type DracoKeep, type DracoPlan } from '../../workers/formats/gltf/keep-draco.ts';
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
  // (Encoding again may merge vertices: every vertex read back is on the first joint only.)
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

/**
 * CesiumMan with its one primitive split in two (the first half of its triangles and the rest, each with the vertices
 * it uses), both in its one skinned mesh, compressed by glTF-Transform with Draco's default (edgebreaker) encoder:
 * a file with two compressed primitives, each with a stream of its own.
 * @param shared      both primitives draw the same accessors (the first half's) with two materials instead: one stream
 * @param compressed  false: written without compression
 */
async function dracoCesiumManInTwo(shared = false, compressed = true): Promise<Uint8Array> {
  const io = new NodeIO()
    .registerExtensions([KHRDracoMeshCompression])
    .registerDependencies({ 'draco3d.encoder': await draco3d.createEncoderModule() });
  const doc = await io.readBinary(readFileSync(dataFile('gltf', 'CesiumMan', 'CesiumMan.glb')));
  const mesh = doc.getRoot().listMeshes()[0];
  const whole = mesh.listPrimitives()[0];
  const corners = Uint32Array.from(whole.getIndices()!.getArray() as ArrayLike<number>);
  const half = Math.floor(corners.length / 6) * 3;
  const halves = [corners.subarray(0, half), corners.subarray(half)];
  for (const triangles of shared ? [halves[0], halves[0]] : halves) {
    const used = [...new Set(triangles)].sort((a, b) => a - b);
    const local = new Map(used.map((v, i) => [v, i]));
    const part = doc
      .createPrimitive()
      .setMaterial(whole.getMaterial())
      .setIndices(
        doc
          .createAccessor()
          .setType('SCALAR')
          .setArray(Uint32Array.from(triangles, (v) => local.get(v)!)),
      );
    for (const semantic of whole.listSemantics()) {
      const attribute = whole.getAttribute(semantic)!;
      // A copy of the attribute's array type (Float32Array, Uint16Array, …), of the part's length.
      const copy = attribute.clone().setArray((attribute.getArray() as Float32Array).slice(0, used.length * attribute.getElementSize()));
      const element: number[] = [];
      used.forEach((v, i) => copy.setElement(i, attribute.getElement(v, element)));
      part.setAttribute(semantic, copy);
    }
    mesh.addPrimitive(part);
  }
  const unused = [...whole.listAttributes(), whole.getIndices()!];
  whole.dispose();
  for (const accessor of unused) accessor.dispose();
  if (shared) {
    // The second primitive draws the first one's accessors with a material of its own.
    const [first, second] = mesh.listPrimitives();
    const dropped = [...second.listAttributes(), second.getIndices()!];
    for (const semantic of first.listSemantics()) second.setAttribute(semantic, first.getAttribute(semantic));
    second.setIndices(first.getIndices()).setMaterial(first.getMaterial()!.clone().setName('second'));
    for (const accessor of dropped) accessor.dispose();
  }
  if (compressed) doc.createExtension(KHRDracoMeshCompression).setRequired(true);
  return io.writeBinary(doc);
}

/**
 * CesiumMan in two primitives (dracoCesiumManInTwo) with only the first compressed, as a file may hold them: the
 * uncompressed file with primitive 0's accessors and stream taken from the compressed one (its old buffer views stay,
 * unused).
 */
async function halfCompressedCesiumMan(): Promise<Uint8Array> {
  const plain = await dracoCesiumManInTwo(false, false);
  const compressed = await dracoCesiumManInTwo();
  interface Full {
    meshes: { primitives: { attributes: Record<string, number>; indices: number; extensions?: Record<string, unknown> }[] }[];
    accessors: Record<string, unknown>[];
    bufferViews: Record<string, unknown>[];
    extensionsUsed?: string[];
    extensionsRequired?: string[];
    buffers: { byteLength: number }[];
  }
  const json = gltfJson(plain, 'plain') as Full;
  const from = gltfJson(compressed, 'compressed') as Full;
  const stream = dracoStreams(compressed)[0];
  const bin = parseGlb(plain, 'plain').bin!;
  const at = Math.ceil(bin.length / 4) * 4;
  const joined = new Uint8Array(at + stream.length);
  joined.set(bin);
  joined.set(stream, at);
  json.bufferViews.push({ buffer: 0, byteOffset: at, byteLength: stream.length });
  json.buffers[0].byteLength = joined.length;
  const [target, source] = [json.meshes[0].primitives[0], from.meshes[0].primitives[0]];
  for (const key of [...Object.keys(source.attributes), 'indices']) {
    const index = key === 'indices' ? target.indices : target.attributes[key];
    json.accessors[index] = from.accessors[key === 'indices' ? source.indices : source.attributes[key]];
  }
  const extension = source.extensions!.KHR_draco_mesh_compression as { attributes: Record<string, number> };
  target.extensions = { KHR_draco_mesh_compression: { bufferView: json.bufferViews.length - 1, attributes: extension.attributes } };
  json.extensionsUsed = [...(json.extensionsUsed ?? []), 'KHR_draco_mesh_compression'];
  json.extensionsRequired = [...(json.extensionsRequired ?? []), 'KHR_draco_mesh_compression'];
  return writeGlb(json, joined);
}

/** Each primitive's stream (null for one without), mesh by mesh, in file order. */
function streamsOf(json: Json, bin: Uint8Array): (Uint8Array | null)[] {
  return json.meshes.flatMap((mesh) =>
    mesh.primitives.map((primitive) => {
      const extension = primitive.extensions?.KHR_draco_mesh_compression;
      if (!extension) return null;
      const view = json.bufferViews[extension.bufferView];
      return bin.subarray(view.byteOffset ?? 0, (view.byteOffset ?? 0) + view.byteLength);
    }),
  );
}

/** The JSON of a primitive's accessors (attributes by semantic, and 'indices'). */
function accessorsOf(json: Json & { accessors: unknown[] }, p: number): Record<string, unknown> {
  const primitive = json.meshes[0].primitives[p] as Json['meshes'][0]['primitives'][0] & { indices: number };
  return Object.fromEntries(
    [...Object.entries(primitive.attributes), ['indices', primitive.indices] as const].map(([key, a]) => [key, json.accessors[a]]),
  );
}

/**
 * The rows of part `p` of `rig`'s weights replaced by a ramp along the mesh's longest axis: t on joint 0 and 1 − t on
 * joint 1, t going from 0 to 1 over the mesh's extent. Far from CesiumMan's own weights, and a function of the position
 * only, so vertices at one place (seams) have the same weights whatever the encoder merges or renumbers.
 */
function reweighPart(rig: Awaited<ReturnType<typeof importGltf>>, p: number): Float64Array {
  const { cols } = rig.weights;
  const data = Float64Array.from(rig.weights.data);
  const { axis, low, extent } = longestAxis(rig.mesh.positions);
  const part = rig.parts[p];
  for (let v = part.vertexStart; v < part.vertexStart + part.vertexCount; v++) {
    const t = (rig.mesh.positions[3 * v + axis] - low) / extent;
    data.fill(0, v * cols, (v + 1) * cols);
    data[v * cols] = t;
    data[v * cols + 1] = 1 - t;
  }
  return data;
}

/** The axis along which `positions` (x, y, z per vertex) extend the most, their least coordinate on it, and the extent. */
function longestAxis(positions: Float64Array | Float32Array): { axis: number; low: number; extent: number } {
  let best = { axis: 0, low: 0, extent: -1 };
  for (let axis = 0; axis < 3; axis++) {
    let low = Infinity;
    let high = -Infinity;
    for (let i = axis; i < positions.length; i += 3) [low, high] = [Math.min(low, positions[i]), Math.max(high, positions[i])];
    if (high - low > best.extent) best = { axis, low, extent: high - low };
  }
  return best;
}

for (const format of ['glb', 'gltf'] as const)
  test(`in-place export (${format}) of a Draco file with two compressed primitives, the weights of one changed: the other keeps its stream and accessors, only the changed one is encoded again and named`, async () => {
    const source = await dracoCesiumManInTwo();
    const rig = await importGltf(source, 'CesiumMan-two.glb');
    assert.equal(rig.parts.length, 2, 'two parts, one per primitive');
    const sourceJson = gltfJson(source, 'source') as Json & { accessors: unknown[] };
    const sourceStreams = streamsOf(sourceJson, parseGlb(source, 'source').bin!);
    assert.equal(sourceStreams.filter(Boolean).length, 2, 'the source has two streams');
    assert.ok(!Buffer.from(sourceStreams[0]!).equals(Buffer.from(sourceStreams[1]!)), 'the two streams differ');

    const weights = { ...rig.weights, data: reweighPart(rig, 1) };
    const result = await exportGltfInPlace({ ...editOf(rig), weights }, `two.${format}`, { format, basename: 'two' });
    const json = gltfJson(result.bytes, 'two') as Json & { accessors: unknown[]; buffers: { uri?: string }[] };
    const bin = format === 'glb' ? parseGlb(result.bytes, 'two').bin! : result.resources[json.buffers[0].uri!];
    await assertValidGltf(result.bytes, `the ${format} with one primitive re-weighted`, result.resources, source);

    // The notice names primitive 1 and why, and says the other one is kept.
    const notices = result.warnings.filter((w) => /compressed again/.test(w));
    assert.equal(notices.length, 1, `one notice: ${result.warnings.join('; ')}`);
    assert.match(
      notices[0],
      /^1 of 2 Draco-compressed primitives of CesiumMan-two\.glb is compressed again \(quantized anew; the encoder may merge vertices whose values are all equal\)/,
    );
    assert.doesNotMatch(notices[0], /extensionsRequired/, 'the source requires the extension already');
    assert.match(notices[0], /mesh 0 \("Cesium_Man"\) primitive 1: its weights changed \(JOINTS_0, WEIGHTS_0\)/);
    assert.doesNotMatch(notices[0], /primitive 0/, 'the kept primitive is not named');
    assert.match(notices[0], /the other one keeps its compressed data byte for byte/);

    // Primitive 0: the source's stream and accessors' JSON, as they were.
    const streams = streamsOf(json, bin);
    assert.ok(streams[0] && Buffer.from(streams[0]).equals(Buffer.from(sourceStreams[0]!)), "primitive 0's stream is the source's");
    assert.deepEqual(accessorsOf(json, 0), accessorsOf(sourceJson, 0), "primitive 0's accessors are the source's");
    // Primitive 1: a stream of its own, another one (encoded again with the export's settings).
    assert.ok(streams[1] && !Buffer.from(streams[1]).equals(Buffer.from(sourceStreams[1]!)), 'primitive 1 is encoded again');
    const views = new Set(json.meshes[0].primitives.map((primitive) => primitive.extensions!.KHR_draco_mesh_compression.bufferView));
    assert.equal(views.size, 2, 'two streams in two views');
    // Nothing the writer laid out for primitive 0 (decoded data or a stream) stays in the buffer: every view is used.
    const usedViews = new Set<number>([
      ...views,
      ...json.accessors.flatMap((a) => ((a as { bufferView?: number }).bufferView ?? []) as number[]),
    ]);
    const images = (json as { images?: { bufferView?: number }[] }).images ?? [];
    for (const image of images) if (image.bufferView !== undefined) usedViews.add(image.bufferView);
    assert.equal(usedViews.size, json.bufferViews.length, 'every buffer view is used');

    // Read back: part 0 as the source decodes it, part 1 with the new weights within Draco's quantization of float
    // weights: 12 bits over their range (at most 1), so each weight is off by at most 1/(2·4095) ≈ 1.2e-4, a row's sum by
    // 2.4e-4, and the importer's renormalization moves a weight by at most that much more: 3.7e-4 in all.
    const files = format === 'glb' ? {} : result.resources;
    const back = await importGltf(result.bytes, `two.${format}`, files);
    const { cols } = rig.weights;
    const [first, second] = back.parts;
    assert.equal(first.vertexCount, rig.parts[0].vertexCount, 'part 0 keeps its vertex count');
    assert.deepEqual(
      back.weights.data.subarray(first.vertexStart * cols, (first.vertexStart + first.vertexCount) * cols),
      rig.weights.data.subarray(rig.parts[0].vertexStart * cols, (rig.parts[0].vertexStart + rig.parts[0].vertexCount) * cols),
      'part 0 weights as the source decodes them',
    );
    assert.deepEqual(
      back.mesh.positions.subarray(first.vertexStart * 3, (first.vertexStart + first.vertexCount) * 3),
      rig.mesh.positions.subarray(rig.parts[0].vertexStart * 3, (rig.parts[0].vertexStart + rig.parts[0].vertexCount) * 3),
      'part 0 positions as the source decodes them',
    );
    // (Encoding again may merge vertices: each vertex read back is matched to the source's nearest.)
    assert.ok(
      second.vertexCount > 0 && second.vertexCount <= rig.parts[1].vertexCount,
      `part 1: ${second.vertexCount} vertices read back of ${rig.parts[1].vertexCount} (the encoder merges vertices whose values are all equal)`,
    );
    const worst = worstWeightError(back, 1, rig, weights.data);
    assert.ok(worst <= 3.7e-4, `part 1 weights off by ${worst}`);
  });

/**
 * The largest difference between the weights read back for part `p` of `back` and `expected`, the weights of the
 * same part of `rig`, an encoder having merged and renumbered vertices: each vertex read back is compared with every
 * vertex of `rig`'s part that it may have been encoded from, and the nearest in weights counts. Those are the ones
 * within the reach of Draco's position quantization: 14 bits over the primitive's largest extent (at most the mesh's,
 * E), so each coordinate moves by at most E / (2 · 16383) and a vertex by √3 times that.
 */
function worstWeightError(
  back: Awaited<ReturnType<typeof importGltf>>,
  p: number,
  rig: Awaited<ReturnType<typeof importGltf>>,
  expected: Float64Array,
): number {
  const { cols } = rig.weights;
  const part = back.parts[p];
  const original = rig.parts[p];
  const q = back.mesh.positions;
  const r = rig.mesh.positions;
  const reach = ((Math.sqrt(3) * longestAxis(r).extent) / (2 * 16383)) * 1.01;
  let worst = 0;
  for (let v = part.vertexStart; v < part.vertexStart + part.vertexCount; v++) {
    let nearest = Infinity;
    for (let u = original.vertexStart; u < original.vertexStart + original.vertexCount; u++) {
      const d = Math.hypot(q[3 * v] - r[3 * u], q[3 * v + 1] - r[3 * u + 1], q[3 * v + 2] - r[3 * u + 2]);
      if (d > reach) continue;
      let off = 0;
      for (let j = 0; j < cols; j++) off = Math.max(off, Math.abs(back.weights.data[v * cols + j] - expected[u * cols + j]));
      nearest = Math.min(nearest, off);
    }
    worst = Math.max(worst, nearest);
  }
  return worst;
}

test('in-place export of a Draco file with two compressed primitives, nothing changed: both streams byte for byte, no notice', async () => {
  const source = await dracoCesiumManInTwo();
  const rig = await importGltf(source, 'CesiumMan-two.glb');
  const result = await exportGltfInPlace(editOf(rig), 'same.glb');
  assert.ok(!result.warnings.some((w) => /draco|compressed again/i.test(w)), `no re-encoding: ${result.warnings.join('; ')}`);
  await assertValidGltf(result.bytes, 'the no-op export of two compressed primitives', {}, source);
  const before = dracoStreams(source);
  const after = dracoStreams(result.bytes);
  assert.equal(after.length, 2, 'two streams');
  after.forEach((stream, k) => assert.ok(Buffer.from(stream).equals(Buffer.from(before[k])), `stream ${k} is the source's`));
  const json = gltfJson(result.bytes, 'same') as Json & { accessors: unknown[] };
  const sourceJson = gltfJson(source, 'source') as Json & { accessors: unknown[] };
  for (const p of [0, 1]) assert.deepEqual(accessorsOf(json, p), accessorsOf(sourceJson, p), `primitive ${p}'s accessors`);
});

test('in-place export of a Draco file whose two primitives share one stream, the weights of one changed: both encoded again, the notice says why', async () => {
  const source = await dracoCesiumManInTwo(true);
  const sourceJson = gltfJson(source, 'source') as Json;
  const [a, b] = sourceJson.meshes[0].primitives.map((primitive) => primitive.extensions!.KHR_draco_mesh_compression.bufferView);
  assert.equal(a, b, 'the source stores the two primitives in one stream');
  const rig = await importGltf(source, 'CesiumMan-shared.glb');
  assert.equal(rig.parts.length, 2, 'two parts, one per primitive');
  const weights = { ...rig.weights, data: reweighPart(rig, 1) };
  const result = await exportGltfInPlace({ ...editOf(rig), weights }, 'shared.glb');
  await assertValidGltf(result.bytes, 'a shared stream with one primitive re-weighted', {}, source);
  const notice = result.warnings.find((w) => /compressed again/.test(w)) ?? '';
  assert.match(notice, /^2 of 2 Draco-compressed primitives of CesiumMan-shared\.glb are compressed again/, result.warnings.join('; '));
  assert.match(notice, /primitive 1: its weights changed/);
  assert.match(
    notice,
    /primitive 0: it shares compressed data or accessors with mesh 0 \("Cesium_Man"\) primitive 1, which is encoded again/,
  );
  const streams = dracoStreams(result.bytes);
  assert.equal(streams.length, 2, 'both still compressed');
  assert.ok(!streams.some((stream) => Buffer.from(stream).equals(Buffer.from(dracoStreams(source)[0]))), "neither is the source's stream");
  const back = await importGltf(result.bytes, 'shared.glb');
  const worst = Math.max(worstWeightError(back, 0, rig, rig.weights.data), worstWeightError(back, 1, rig, weights.data));
  assert.ok(worst <= 3.7e-4, `both parts have their weights within the quantization: off by ${worst}`);
});

test('in-place export of a Draco file with two compressed primitives, one re-weighted and a baked clip added: the kept stream with its morph targets beside it, valid', async () => {
  const source = await dracoCesiumManInTwo();
  const rig = await importGltf(source, 'CesiumMan-two.glb');
  const weights = { ...rig.weights, data: reweighPart(rig, 1) };
  const bake = skinningVertexAnimation(
    rig.mesh.positions,
    rig.skeleton,
    weights,
    { name: 'walk (baked)', method: 'lbs', poses: rig.clips[0].poses, influences: 4 },
    4,
  );
  const result = await exportGltfInPlace({ ...editOf(rig), weights, vertexAnimations: [bake] }, 'two-baked.glb');
  await assertValidGltf(result.bytes, 'two compressed primitives, one re-weighted, with a baked clip', {}, source);
  const notices = result.warnings.filter((w) => /compressed again/.test(w));
  assert.equal(notices.length, 1, `one notice: ${result.warnings.join('; ')}`);
  assert.match(notices[0], /^1 of 2 .*primitive 1: its weights changed/);
  // Encoded with its morph targets: sequentially, without merging vertices.
  assert.match(notices[0], /\(quantized anew; it has morph targets, so it keeps its vertices and their order\)/);
  assert.doesNotMatch(notices[0], /merge/, 'nothing said of merging vertices');
  const streams = dracoStreams(result.bytes);
  assert.ok(Buffer.from(streams[0]).equals(Buffer.from(dracoStreams(source)[0])), "primitive 0's stream is the source's");
  const json = gltfJson(result.bytes, 'two-baked') as Json;
  const written = json.meshes[0].primitives as { attributes: Record<string, number>; targets?: Record<string, number>[] }[];
  written.forEach((primitive, p) => {
    const targets = primitive.targets ?? [];
    assert.equal(targets.length, bake.frameCount, `primitive ${p}: a morph target per baked frame`);
    const count = json.accessors[primitive.attributes.POSITION].count;
    for (const target of targets) {
      const accessor = json.accessors[target.POSITION];
      assert.ok(accessor.bufferView !== undefined, `primitive ${p}: the target is stored uncompressed`);
      assert.equal(accessor.count, count, `primitive ${p}: the target has the stream's vertex count`);
    }
  });
  assert.equal(
    json.accessors[json.meshes[0].primitives[0].attributes.POSITION].count,
    rig.parts[0].vertexCount,
    "primitive 0 keeps the source's vertex count",
  );
  // glTF's own playback, as in the one-primitive test: each primitive's decoded positions plus a frame's target,
  // skinned at the rest nodes, give the baked positions. Primitive 1's positions are quantized anew (14 bits over its
  // extent, at most the mesh's E: a vertex moves by up to √3 · E / 32766 ≈ 5.3e-5 E), so the bound is 1e-4 of the
  // diagonal; primitive 0's stream decodes to the very positions the bake started from.
  const io = new NodeIO()
    .registerExtensions([KHRDracoMeshCompression])
    .registerDependencies({ 'draco3d.decoder': await draco3d.createDecoderModule() });
  const read = await io.readBinary(result.bytes);
  const primitives = read.getRoot().listMeshes()[0].listPrimitives();
  const bases = primitives.map((primitive) => Float32Array.from(primitive.getAttribute('POSITION')!.getArray() as Float32Array));
  const diagonal = boundingBox(rig.mesh.positions).diagonal;
  const baked = new Float64Array(rig.mesh.positions.length);
  let worst = 0;
  for (const f of [1, bake.frameCount - 1]) {
    primitives.forEach((primitive, p) => {
      const delta = primitive.listTargets()[f].getAttribute('POSITION')!.getArray() as Float32Array;
      primitive.getAttribute('POSITION')!.setArray(bases[p].map((x, i) => x + delta[i]));
    });
    bake.positionsAt(f, baked);
    worst = Math.max(worst, maxDistance(gltfPosedPositions(read, null, 0), baked) / diagonal);
  }
  assert.ok(worst < 1e-4, `${worst} of the diagonal from the bake`);
});

test('in-place export of a Draco file asking for Draco compression: every primitive encoded again, unchanged ones included, and the notice says so', async () => {
  const source = await dracoCesiumManInTwo();
  const rig = await importGltf(source, 'CesiumMan-two.glb');
  const result = await exportGltfInPlace(editOf(rig), 'again.glb', { compression: 'draco' });
  await assertValidGltf(result.bytes, 'two compressed primitives compressed again as asked', {}, source);
  const notices = result.warnings.filter((w) => /compressed again/.test(w));
  assert.equal(notices.length, 1, `one notice: ${result.warnings.join('; ')}`);
  assert.match(
    notices[0],
    /^all 2 Draco-compressed primitives of CesiumMan-two\.glb are compressed again \(quantized anew\), unchanged ones included: the export asks for Draco compression/,
  );
  const before = dracoStreams(source);
  const after = dracoStreams(result.bytes);
  assert.equal(after.length, 2, 'both compressed');
  after.forEach((stream, k) => assert.ok(!Buffer.from(stream).equals(Buffer.from(before[k])), `stream ${k} is encoded again`));
});

test('in-place export of a file with one Draco-compressed and one plain primitive: the plain one re-weighted keeps the stream; the compressed one re-weighted is encoded again alone, the plain one stays plain', async () => {
  const source = await halfCompressedCesiumMan();
  const sourceJson = gltfJson(source, 'source') as Json & { accessors: unknown[] };
  const sourceStreams = streamsOf(sourceJson, parseGlb(source, 'source').bin!);
  assert.ok(sourceStreams[0] && sourceStreams[1] === null, 'the source compresses primitive 0 only');
  // (CesiumMan's own warning, its skinned mesh node below another node, is the original's.)
  await assertValidGltf(source, 'the half-compressed source', {}, readFileSync(dataFile('gltf', 'CesiumMan', 'CesiumMan.glb')));
  const rig = await importGltf(source, 'CesiumMan-half.glb');
  assert.equal(rig.parts.length, 2, 'two parts, one per primitive');

  // The plain primitive re-weighted: nothing compressed is encoded again, the plain one stays plain.
  const plainChanged = { ...rig.weights, data: reweighPart(rig, 1) };
  const one = await exportGltfInPlace({ ...editOf(rig), weights: plainChanged }, 'half-1.glb');
  assert.ok(!one.warnings.some((w) => /compressed again|Draco/.test(w)), `no re-encoding: ${one.warnings.join('; ')}`);
  await assertValidGltf(one.bytes, 'the plain primitive re-weighted', {}, source);
  const oneJson = gltfJson(one.bytes, 'one') as Json & { accessors: unknown[] };
  const oneStreams = streamsOf(oneJson, parseGlb(one.bytes, 'one').bin!);
  assert.ok(oneStreams[0] && Buffer.from(oneStreams[0]).equals(Buffer.from(sourceStreams[0])), "primitive 0's stream is the source's");
  assert.equal(oneStreams[1], null, 'primitive 1 stays uncompressed');
  assert.deepEqual(accessorsOf(oneJson, 0), accessorsOf(sourceJson, 0), "primitive 0's accessors are the source's");
  const oneBack = await importGltf(one.bytes, 'half-1.glb');
  // Uncompressed float weights: the new rows as float32 (relative rounding 2^-24), renormalised on reading.
  const { cols } = rig.weights;
  const part = rig.parts[1];
  let worst = 0;
  for (let i = part.vertexStart * cols; i < (part.vertexStart + part.vertexCount) * cols; i++)
    worst = Math.max(worst, Math.abs(oneBack.weights.data[i] - plainChanged.data[i]));
  assert.ok(worst < 1e-6, `part 1 reads back its new weights: off by ${worst}`);

  // The compressed primitive re-weighted: encoded again on its own; the plain one stays plain.
  const weights = { ...rig.weights, data: reweighPart(rig, 0) };
  const two = await exportGltfInPlace({ ...editOf(rig), weights }, 'half-2.glb');
  await assertValidGltf(two.bytes, 'the compressed primitive re-weighted', {}, source);
  const notices = two.warnings.filter((w) => /compressed again/.test(w));
  assert.equal(notices.length, 1, `one notice: ${two.warnings.join('; ')}`);
  assert.match(
    notices[0],
    /^1 of 1 Draco-compressed primitive of CesiumMan-half\.glb is compressed again .*primitive 0: its weights changed \(JOINTS_0, WEIGHTS_0\)$/,
  );
  const twoJson = gltfJson(two.bytes, 'two') as Json & { accessors: unknown[] };
  const twoStreams = streamsOf(twoJson, parseGlb(two.bytes, 'two').bin!);
  assert.ok(twoStreams[0] && !Buffer.from(twoStreams[0]).equals(Buffer.from(sourceStreams[0])), 'primitive 0 is encoded again');
  assert.equal(twoStreams[1], null, 'primitive 1 stays uncompressed');
  // (Laid out anew: their buffer views and offsets may differ.)
  const unlaid = (accessors: Record<string, unknown>): Record<string, unknown> =>
    Object.fromEntries(
      Object.entries(accessors as Record<string, Record<string, unknown>>).map(([key, { bufferView: _v, byteOffset: _o, ...rest }]) => [
        key,
        rest,
      ]),
    );
  assert.deepEqual(unlaid(accessorsOf(twoJson, 1)), unlaid(accessorsOf(sourceJson, 1)), "primitive 1's accessors are the source's");
  const twoBack = await importGltf(two.bytes, 'half-2.glb');
  assert.ok(worstWeightError(twoBack, 0, rig, weights.data) <= 3.7e-4, 'part 0 reads back its new weights');
});

test('in-place export of a Draco file whose unchanged primitive has an attribute outside its stream: kept with it, the other re-weighted or not', async () => {
  // Primitive 0 of the two gets a second UV set as a plain accessor of its own, beside its stream.
  const compressed = await dracoCesiumManInTwo();
  const json = gltfJson(compressed, 'compressed') as Json & {
    accessors: Record<string, unknown>[];
    bufferViews: Record<string, unknown>[];
    buffers: { byteLength: number }[];
  };
  const bin = parseGlb(compressed, 'compressed').bin!;
  const count = json.accessors[json.meshes[0].primitives[0].attributes.POSITION].count;
  const uv = new Float32Array(2 * count).map((_, i) => (i % 7) / 7);
  const at = Math.ceil(bin.length / 4) * 4;
  const joined = new Uint8Array(at + uv.byteLength);
  joined.set(bin);
  joined.set(new Uint8Array(uv.buffer), at);
  json.bufferViews.push({ buffer: 0, byteOffset: at, byteLength: uv.byteLength });
  json.buffers[0].byteLength = joined.length;
  json.accessors.push({ bufferView: json.bufferViews.length - 1, componentType: 5126, count, type: 'VEC2' });
  json.meshes[0].primitives[0].attributes.TEXCOORD_1 = json.accessors.length - 1;
  const source = writeGlb(json, joined);
  const rig = await importGltf(source, 'CesiumMan-uv2.glb');

  const same = await exportGltfInPlace(editOf(rig), 'uv2-same.glb');
  assert.ok(!same.warnings.some((w) => /compressed again/.test(w)), `no re-encoding: ${same.warnings.join('; ')}`);
  await assertValidGltf(same.bytes, 'the no-op export with an attribute outside the stream', {}, source);
  dracoStreams(same.bytes).forEach((stream, k) =>
    assert.ok(Buffer.from(stream).equals(Buffer.from(dracoStreams(source)[k])), `stream ${k} is the source's`),
  );

  const weights = { ...rig.weights, data: reweighPart(rig, 1) };
  const result = await exportGltfInPlace({ ...editOf(rig), weights }, 'uv2.glb');
  await assertValidGltf(result.bytes, 'an attribute outside the stream, the other primitive re-weighted', {}, source);
  const notice = result.warnings.find((w) => /compressed again/.test(w)) ?? '';
  assert.match(notice, /^1 of 2 Draco-compressed primitives of CesiumMan-uv2\.glb is compressed again/, result.warnings.join('; '));
  assert.match(notice, /primitive 1: its weights changed/);
  const streams = dracoStreams(result.bytes);
  assert.ok(Buffer.from(streams[0]).equals(Buffer.from(dracoStreams(source)[0])), "primitive 0's stream is the source's");
  const written = gltfJson(result.bytes, 'uv2') as Json & { accessors: { bufferView?: number; count: number }[] };
  const uv2 = written.accessors[written.meshes[0].primitives[0].attributes.TEXCOORD_1];
  assert.ok(uv2.bufferView !== undefined && uv2.count === count, 'the second UV set stays beside the stream, uncompressed');
  const back = await importGltf(result.bytes, 'uv2.glb');
  assert.ok(worstWeightError(back, 1, rig, weights.data) <= 3.7e-4, 'part 1 reads back its new weights');
});

/**
 * CesiumMan compressed with Draco as a .gltf of two buffers: the mesh's stream in mesh.bin, the skin's inverse bind
 * matrices and the walk's keys in rig.bin.
 */
async function dracoCesiumManTwoBuffers(): Promise<{ bytes: Uint8Array; resources: Record<string, Uint8Array> }> {
  const io = new NodeIO()
    .registerExtensions([KHRDracoMeshCompression])
    .registerDependencies({ 'draco3d.encoder': await draco3d.createEncoderModule() });
  const doc = await io.readBinary(readFileSync(dataFile('gltf', 'CesiumMan', 'CesiumMan.glb')));
  doc.getRoot().listBuffers()[0].setURI('mesh.bin');
  const rig = doc.createBuffer('rig').setURI('rig.bin');
  for (const skin of doc.getRoot().listSkins()) skin.getInverseBindMatrices()?.setBuffer(rig);
  for (const animation of doc.getRoot().listAnimations())
    for (const sampler of animation.listSamplers()) {
      sampler.getInput()?.setBuffer(rig);
      sampler.getOutput()?.setBuffer(rig);
    }
  doc.createExtension(KHRDracoMeshCompression).setRequired(true);
  const { json, resources } = await io.writeJSON(doc, { basename: 'CesiumMan-two-buffers' });
  return { bytes: new TextEncoder().encode(JSON.stringify(json)), resources };
}

/** Each Draco primitive's stream of a .gltf, in file order, with the index of the buffer it is in. */
function gltfStreams(bytes: Uint8Array, resources: Record<string, Uint8Array>): { buffer: number; bytes: Uint8Array }[] {
  const json = gltfJson(bytes, 'x') as Json & {
    buffers: { uri: string }[];
    bufferViews: { buffer: number; byteOffset?: number; byteLength: number }[];
  };
  return json.meshes.flatMap((mesh) =>
    mesh.primitives.flatMap((primitive) => {
      const extension = primitive.extensions?.KHR_draco_mesh_compression;
      if (!extension) return [];
      const view = json.bufferViews[extension.bufferView];
      const bin = resources[json.buffers[view.buffer].uri];
      return [{ buffer: view.buffer, bytes: bin.subarray(view.byteOffset ?? 0, (view.byteOffset ?? 0) + view.byteLength) }];
    }),
  );
}

test('in-place .gltf export of a Draco file of two buffers, nothing changed: the stream byte for byte in its own buffer, the other buffer as it was, no notice', async () => {
  const source = await dracoCesiumManTwoBuffers();
  const sourceJson = gltfJson(source.bytes, 'source') as Json & { accessors: unknown[]; buffers: { uri: string }[] };
  assert.equal(sourceJson.buffers.length, 2, 'the source has two buffers');
  const rig = await importGltf(source.bytes, 'CesiumMan-two-buffers.gltf', source.resources);
  const result = await exportGltfInPlace(editOf(rig), 'same.gltf', { format: 'gltf', basename: 'same' });
  assert.ok(!result.warnings.some((w) => /draco|compressed again/i.test(w)), `no re-encoding: ${result.warnings.join('; ')}`);
  await assertValidGltf(result.bytes, 'the no-op .gltf export of two buffers', { ...source.resources, ...result.resources }, source.bytes);
  const json = gltfJson(result.bytes, 'same') as Json & { accessors: unknown[]; buffers: { uri: string }[] };
  assert.equal(json.buffers.length, 2, 'two buffers written');
  const before = gltfStreams(source.bytes, source.resources);
  const after = gltfStreams(result.bytes, result.resources);
  assert.equal(after.length, 1, 'one stream');
  assert.ok(Buffer.from(after[0].bytes).equals(Buffer.from(before[0].bytes)), "the stream is the source's");
  assert.equal(after[0].buffer, 0, 'the stream is in the first buffer, where its primitive was');
  assert.deepEqual(accessorsOf(json, 0), accessorsOf(sourceJson, 0), "the primitive's accessors are the source's");
  // The second buffer holds the skin's and the clip's data as the source's does (nothing of the mesh).
  assert.ok(
    Buffer.from(result.resources[json.buffers[1].uri]).equals(Buffer.from(source.resources['rig.bin'])),
    "the second buffer is the source's rig.bin",
  );
  const back = await importGltf(result.bytes, 'same.gltf', result.resources);
  assert.deepEqual(back.mesh.positions, rig.mesh.positions, 'decoded positions');
  assert.deepEqual(back.weights, rig.weights, 'decoded weights');
});

test("in-place export of a Draco file, one primitive re-weighted whose POSITION has extras: the primitive encoded again keeps its accessor's extras", async () => {
  const compressed = await dracoCesiumManInTwo();
  const json = gltfJson(compressed, 'compressed') as Json & { accessors: Record<string, unknown>[] };
  const position = json.meshes[0].primitives[1].attributes.POSITION;
  json.accessors[position].extras = { scanned: 'left half', scale: 0.01 };
  const source = writeGlb(json, parseGlb(compressed, 'compressed').bin!);
  const rig = await importGltf(source, 'CesiumMan-extras.glb');
  const weights = { ...rig.weights, data: reweighPart(rig, 1) };
  const result = await exportGltfInPlace({ ...editOf(rig), weights }, 'extras.glb');
  await assertValidGltf(result.bytes, 'a re-weighted primitive with extras on POSITION', {}, source);
  assert.match(result.warnings.join('; '), /primitive 1: its weights changed/);
  const written = gltfJson(result.bytes, 'extras') as Json & { accessors: Record<string, unknown>[] };
  const accessor = written.accessors[written.meshes[0].primitives[1].attributes.POSITION];
  assert.deepEqual(accessor.extras, { scanned: 'left half', scale: 0.01 }, "the encoded primitive's POSITION keeps its extras");
  assert.equal(accessor.bufferView, undefined, 'the accessor is held by the stream');
  assert.ok(!Buffer.from(dracoStreams(result.bytes)[1]).equals(Buffer.from(dracoStreams(source)[1])), 'primitive 1 is encoded again');
});

/** The compressed bytes of each meshopt-compressed view of a written file, as hex, sorted. */
function meshoptBytes(json: Json, bins: readonly (Uint8Array | undefined)[]): string[] {
  const views = (json as unknown as { bufferViews: { extensions?: { EXT_meshopt_compression?: Record<string, number> } }[] }).bufferViews;
  return views
    .flatMap((view) => {
      const extension = view.extensions?.EXT_meshopt_compression;
      if (!extension) return [];
      const start = extension.byteOffset ?? 0;
      return [Buffer.from(bins[extension.buffer]!.subarray(start, start + extension.byteLength)).toString('hex')];
    })
    .sort();
}

for (const format of ['glb', 'gltf'] as const)
  test(`in-place export (${format}) of a file with a Draco primitive and meshopt-compressed data beside it, nothing changed: the stream and every compressed view byte for byte, no notice, valid, read back as the source`, async () => {
    // CesiumMan written by glTF-Transform with both: its primitive as a Draco stream, the rest (the primitive's decoded
    // data too) compressed with meshopt.
    await MeshoptEncoder.ready;
    const io = new NodeIO()
      .registerExtensions([KHRDracoMeshCompression, EXTMeshoptCompression])
      .registerDependencies({ 'draco3d.encoder': await draco3d.createEncoderModule(), 'meshopt.encoder': MeshoptEncoder });
    const doc = await io.readBinary(readFileSync(dataFile('gltf', 'CesiumMan', 'CesiumMan.glb')));
    doc.createExtension(KHRDracoMeshCompression).setRequired(true);
    doc.createExtension(EXTMeshoptCompression).setRequired(true);
    const source = await io.writeBinary(doc);
    const sourceJson = gltfJson(source, 'source') as Json & { extensionsUsed: string[] };
    assert.deepEqual(
      [...sourceJson.extensionsUsed].sort(),
      ['EXT_meshopt_compression', 'KHR_draco_mesh_compression'],
      'the source uses both',
    );
    const rig = await importGltf(source, 'CesiumMan-both.glb');
    const result = await exportGltfInPlace(editOf(rig), `both.${format}`, { format, basename: 'both' });
    assert.deepEqual(result.warnings, [], 'nothing to notice');
    await assertValidGltf(result.bytes, `a Draco and meshopt ${format} exported in place`, result.resources, source);
    const json = gltfJson(result.bytes, 'both') as Json & { extensionsUsed: string[]; buffers: { uri?: string }[] };
    assert.deepEqual([...json.extensionsUsed].sort(), ['EXT_meshopt_compression', 'KHR_draco_mesh_compression'], 'the output uses both');
    const bins =
      format === 'glb'
        ? [parseGlb(result.bytes, 'both').bin!]
        : json.buffers.map((buffer) => (buffer.uri ? result.resources[buffer.uri] : undefined));
    const sourceBin = parseGlb(source, 'source').bin!;
    assert.ok(
      Buffer.from(streamsOf(json, bins[0]!)[0]!).equals(Buffer.from(streamsOf(sourceJson, sourceBin)[0]!)),
      'the Draco stream, byte for byte',
    );
    const kept = meshoptBytes(json, bins);
    assert.ok(kept.length > 0, 'meshopt-compressed views written');
    assert.deepEqual(kept, meshoptBytes(sourceJson, [sourceBin]), "every meshopt view's compressed bytes are the source's");
    const back = await importGltf(result.bytes, `both.${format}`, result.resources);
    assert.deepEqual(back.mesh.positions, rig.mesh.positions, 'the positions the source decodes to');
    assert.deepEqual(back.mesh.triangles, rig.mesh.triangles, 'the triangles');
    assert.deepEqual(back.weights.data, rig.weights.data, 'the weights');
  });

test('Draco primitives the encoder gives up on: left out of the streams (written uncompressed) without ending the write, named in a clause of their own', async () => {
  // Two quads to encode again; the second's NORMAL has one element fewer than its POSITION, which Draco's mesh
  // builder refuses ("Error compressing "NORMAL" attribute.").
  const doc = new Document();
  const buffer = doc.createBuffer();
  const accessor = (type: 'VEC3' | 'SCALAR', array: Float32Array | Uint16Array) =>
    doc.createAccessor().setType(type).setArray(array).setBuffer(buffer);
  const quad = (normals: number): ReturnType<Document['createPrimitive']> =>
    doc
      .createPrimitive()
      .setAttribute('POSITION', accessor('VEC3', new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0])))
      .setAttribute(
        'NORMAL',
        accessor(
          'VEC3',
          new Float32Array(3 * normals).map((_, i) => (i % 3 === 2 ? 1 : 0)),
        ),
      )
      .setIndices(accessor('SCALAR', new Uint16Array([0, 1, 2, 1, 3, 2])));
  const [good, bad] = [quad(4), quad(3)];
  doc.createMesh('quads').addPrimitive(good).addPrimitive(bad);
  const plan: DracoPlan = {
    keeps: [],
    reencoded: [good, bad].map((primitive, p) => ({
      primitive,
      meshIndex: 0,
      primitiveIndex: p,
      label: `mesh 0 ("quads") primitive ${p}`,
      reason: 'its weights changed (WEIGHTS_0)',
    })),
  };
  const source = { file: 'quads.glb', bytes: new Uint8Array(0), resources: {}, jointNodes: new Int32Array(0) };
  const requiring = { extensionsRequired: ['KHR_draco_mesh_compression'] };
  const { placements, failed } = await dracoPlacements(plan, requiring, source);
  assert.deepEqual(
    placements.map((placement) => [placement.primitiveIndex, placement.stream.encoded]),
    [[0, true]],
    'the good quad has a stream encoded now',
  );
  assert.deepEqual(failed, [plan.reencoded[1]], 'the bad quad failed');
  assert.equal(
    dracoNotice(plan, failed, 'quads.glb', requiring),
    '1 of 2 Draco-compressed primitives of quads.glb is compressed again (quantized anew; the encoder may merge vertices whose values are all equal): mesh 0 ("quads") primitive 0: its weights changed (WEIGHTS_0); 1 more is written uncompressed, as the Draco encoder cannot compress it: mesh 0 ("quads") primitive 1: its weights changed (WEIGHTS_0)',
  );
  const alone = { keeps: [], reencoded: [plan.reencoded[1]] };
  assert.equal(
    dracoNotice(alone, failed, 'quads.glb', {}),
    '1 of 1 Draco-compressed primitive of quads.glb is written uncompressed, as the Draco encoder cannot compress it: mesh 0 ("quads") primitive 1: its weights changed (WEIGHTS_0)',
    'no claim that anything is compressed again',
  );
});

test('the Draco notice of many primitives encoded again groups them by reason and names 6 at most', () => {
  const doc = new Document();
  const reencoded = [
    'its POSITION changed',
    ...new Array<string>(7).fill('its weights changed (JOINTS_0, WEIGHTS_0)'),
    'it shares compressed data or accessors with mesh 0 primitive 0, which is encoded again',
  ].map((reason, m) => ({ primitive: doc.createPrimitive(), meshIndex: m, primitiveIndex: 0, label: `mesh ${m} primitive 0`, reason }));
  // (The notice counts the kept primitives only.)
  const keeps = [{}, {}] as DracoKeep[];
  assert.equal(
    dracoNotice({ keeps, reencoded }, [], 'many.glb', { extensionsRequired: ['KHR_draco_mesh_compression'] }),
    '9 of 11 Draco-compressed primitives of many.glb are compressed again (quantized anew; the encoder may merge vertices whose values are all equal): ' +
      'mesh 0 primitive 0: its POSITION changed; ' +
      'mesh 1 primitive 0, mesh 2 primitive 0, mesh 3 primitive 0, mesh 4 primitive 0, mesh 5 primitive 0 and 2 more: their weights changed (JOINTS_0, WEIGHTS_0); ' +
      '1 more for other reasons; the other 2 keep their compressed data byte for byte',
  );
  // The failed ones are named as sparingly, in their own clause.
  const failed = reencoded.slice(1, 8);
  assert.match(
    dracoNotice({ keeps, reencoded }, failed, 'many.glb', { extensionsRequired: ['KHR_draco_mesh_compression'] }) ?? '',
    /; 7 more are written uncompressed, as the Draco encoder cannot compress them: mesh 1 primitive 0, .*, mesh 6 primitive 0 and 1 more: their weights changed \(JOINTS_0, WEIGHTS_0\); the other 2 keep/,
  );
});

test('a Draco file that does not list the extension as required, one primitive re-weighted: the notice says the extension is added to extensionsRequired, and it is', async () => {
  const compressed = await dracoCesiumManInTwo();
  const json = gltfJson(compressed, 'compressed') as Json & { extensionsRequired?: string[] };
  delete json.extensionsRequired;
  const source = writeGlb(json, parseGlb(compressed, 'compressed').bin!);
  const rig = await importGltf(source, 'CesiumMan-optional.glb');
  const same = await exportGltfInPlace(editOf(rig), 'optional-same.glb');
  const sameJson = gltfJson(same.bytes, 'same') as { extensionsRequired?: string[] };
  assert.equal(sameJson.extensionsRequired, undefined, 'kept streams alone: nothing required, as in the source');
  const weights = { ...rig.weights, data: reweighPart(rig, 1) };
  const result = await exportGltfInPlace({ ...editOf(rig), weights }, 'optional.glb');
  await assertValidGltf(result.bytes, 'a re-weighted primitive of a file not requiring Draco', {}, source);
  const notice = result.warnings.find((w) => /compressed again/.test(w)) ?? '';
  assert.match(
    notice,
    /primitive 1: its weights changed \(JOINTS_0, WEIGHTS_0\); KHR_draco_mesh_compression is added to extensionsRequired, as what is compressed now has no uncompressed fallback; the other one keeps/,
    result.warnings.join('; '),
  );
  const written = gltfJson(result.bytes, 'optional') as { extensionsRequired?: string[] };
  assert.deepEqual(written.extensionsRequired, ['KHR_draco_mesh_compression'], 'the extension is required');
});

test('the Draco notice says which primitives encoded again keep their vertices and order (those with morph targets)', () => {
  const doc = new Document();
  const reencoded = [0, 1, 2].map((p) => ({
    primitive: p === 1 ? doc.createPrimitive().addTarget(doc.createPrimitiveTarget()) : doc.createPrimitive(),
    meshIndex: 0,
    primitiveIndex: p,
    label: `mesh 0 primitive ${p}`,
    reason: 'its weights changed (WEIGHTS_0)',
  }));
  assert.equal(
    dracoNotice({ keeps: [], reencoded }, [], 'mixed.glb', { extensionsRequired: ['KHR_draco_mesh_compression'] }),
    '3 of 3 Draco-compressed primitives of mixed.glb are compressed again (quantized anew; the encoder may merge vertices whose values are all equal, except in the one with morph targets (mesh 0 primitive 1), which keeps its vertices and their order): mesh 0 primitive 0, mesh 0 primitive 1, mesh 0 primitive 2: their weights changed (WEIGHTS_0)',
  );
});

test('in-place .gltf export of a Draco file of two buffers, re-weighted: the primitive encoded again into its own buffer, the other buffer as it was, valid, the new weights read back', async () => {
  const source = await dracoCesiumManTwoBuffers();
  const rig = await importGltf(source.bytes, 'CesiumMan-two-buffers.gltf', source.resources);
  const weights = { ...rig.weights, data: reweighPart(rig, 0) };
  const result = await exportGltfInPlace({ ...editOf(rig), weights }, 'new.gltf', { format: 'gltf', basename: 'new' });
  const notices = result.warnings.filter((w) => /compressed again/.test(w));
  assert.equal(notices.length, 1, `one notice: ${result.warnings.join('; ')}`);
  assert.match(
    notices[0],
    /^1 of 1 Draco-compressed primitive of CesiumMan-two-buffers\.gltf is compressed again .*primitive 0: its weights changed/,
  );
  await assertValidGltf(result.bytes, 'the re-weighted .gltf of two buffers', { ...source.resources, ...result.resources }, source.bytes);
  const json = gltfJson(result.bytes, 'new') as Json & { buffers: { uri: string }[] };
  assert.equal(json.buffers.length, 2, 'two buffers written');
  const [stream] = gltfStreams(result.bytes, result.resources);
  assert.equal(stream.buffer, 0, 'the stream is in the first buffer');
  assert.ok(!Buffer.from(stream.bytes).equals(Buffer.from(gltfStreams(source.bytes, source.resources)[0].bytes)), 'encoded again');
  assert.ok(
    Buffer.from(result.resources[json.buffers[1].uri]).equals(Buffer.from(source.resources['rig.bin'])),
    "the second buffer is the source's rig.bin",
  );
  const back = await importGltf(result.bytes, 'new.gltf', result.resources);
  const worst = worstWeightError(back, 0, rig, weights.data);
  assert.ok(worst <= 3.7e-4, `the new weights read back: off by ${worst}`);
});
