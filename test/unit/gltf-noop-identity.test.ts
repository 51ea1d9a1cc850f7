/**
 * A no-op edit is the identity: every glTF of ../shared/data/gltf, imported and exported in place with nothing
 * changed, gives the same JSON (nodes, hierarchy, matrices where the file had matrices, names, order, materials with
 * the defaults they spell out, accessor bounds, animations) apart from the generator and the buffers' layout, and the
 * same values in every accessor and the same bytes in every image. Nothing moves: a skinned mesh node below another
 * node stays where the source has it, and nothing is noticed. A meshopt-compressed source (with and without meshopt's
 * filters, GLB and .gltf, and one laid out by hand as the writer would not: INDICES mode, two attributes in one
 * compressed view) keeps every compressed view's extension and bytes; with its weights edited, only the views
 * of the weights are compressed again, named in a notice, and the file reads back with the new weights.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Document, Format, NodeIO, WebIO } from '@gltf-transform/core';
import { EXTMeshoptCompression, KHRDracoMeshCompression, KHRLightsPunctual, KHRMeshQuantization } from '@gltf-transform/extensions';
import draco3d from 'draco3dgltf';
import { MeshoptDecoder, MeshoptEncoder } from 'meshoptimizer';
import { exportGltfInPlace } from '../../workers/formats/gltf-edit.ts';
import type { GltfExportResult } from '../../workers/formats/gltf-export.ts';
import { importGltf, readCheckedGltf } from '../../workers/formats/gltf-import.ts';
import { gltfJson, gltfResources } from '../../workers/formats/gltf-resource-uris.ts';
import { parseGlb, writeGlb } from '../../workers/formats/gltf/glb.ts';
import { planMeshopt } from '../../workers/formats/gltf/keep-meshopt.ts';
import { axisAngle, gltfBuilder, TEXTURE } from './gltf-build.ts';
import { editOf } from './gltf-edit-input.ts';
import { assertValidGltf } from './gltf-skinning-reference.ts';
import { dataFile } from './shared-data.ts';

type Json = Record<string, unknown>;

const FILES = [
  ['RiggedSimple', 'RiggedSimple.glb'],
  ['RiggedFigure', 'RiggedFigure.glb'],
  ['CesiumMan', 'CesiumMan.glb'],
  ['Fox', 'Fox.glb'],
  ['SimpleSkin', 'glTF', 'SimpleSkin.gltf'],
  ['SimpleSkin', 'glTF-Embedded', 'SimpleSkin.gltf'],
];

/** Keys that say where bytes lie, which a writer lays out afresh. */
const LAYOUT = new Set(['bufferView', 'byteOffset', 'byteStride']);

/** Where layout keys are ignored: an accessor (sparse parts included), an image, a Draco primitive's extension. */
const LAID_OUT = /^\.accessors\[\d+\]|^\.images\[\d+\]$|\.extensions\.KHR_draco_mesh_compression$/;

/** A buffer view's or buffer's keys that say where bytes lie (those of its meshopt extension too). */
const VIEW_LAYOUT = new Set(['buffer', 'byteOffset', 'byteLength', 'byteStride', 'uri']);

/**
 * Every difference between two JSON values, as `path: before -> after`. Layout keys are ignored only on accessors,
 * images and the Draco extension, the generator everywhere; buffers and buffer views are compared apart
 * (viewDifferences), as the writer lays them out afresh.
 */
function differences(a: unknown, b: unknown, at: string, out: string[]): void {
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) out.push(`${at}: ${a.length} items -> ${b.length}`);
    for (let i = 0; i < Math.min(a.length, b.length); i++) differences(a[i], b[i], `${at}[${i}]`, out);
    return;
  }
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const x = a as Json;
    const y = b as Json;
    for (const key of new Set([...Object.keys(x), ...Object.keys(y)])) {
      if (LAYOUT.has(key) && LAID_OUT.test(at)) continue;
      if ((at === '' && ['buffers', 'bufferViews'].includes(key)) || (at === '.asset' && key === 'generator')) continue;
      differences(x[key], y[key], `${at}.${key}`, out);
    }
    return;
  }
  if (JSON.stringify(a) !== JSON.stringify(b)) out.push(`${at}: ${JSON.stringify(a)} -> ${JSON.stringify(b)}`);
}

/** A buffer view or buffer without its layout keys (VIEW_LAYOUT), in it and in its meshopt extension. */
function withoutLayout(view: Json): Json {
  const strip = (json: Json): Json => Object.fromEntries(Object.entries(json).filter(([key]) => !VIEW_LAYOUT.has(key)));
  const out = strip(view);
  const extensions = view.extensions as Record<string, Json> | undefined;
  if (extensions?.EXT_meshopt_compression)
    out.extensions = { ...extensions, EXT_meshopt_compression: strip(extensions.EXT_meshopt_compression) };
  return out;
}

/**
 * The differences of the buffer views' keys other than layout (target, name, extras, extensions such as
 * EXT_meshopt_compression's mode, filter and count), each view found through what uses it (an accessor, a sparse
 * accessor's indices and values, an image, a Draco primitive), and of the buffers' (name, extras, extensions).
 */
function viewDifferences(before: Json, after: Json, out: string[]): void {
  const users = (json: Json): [string, number | undefined][] => [
    ...((json.accessors ?? []) as Json[]).flatMap((accessor, k): [string, number | undefined][] => {
      const sparse = accessor.sparse as Record<string, Json> | undefined;
      return [
        [`accessor ${k}`, accessor.bufferView as number | undefined],
        ...(sparse
          ? ([
              [`accessor ${k} sparse indices`, sparse.indices.bufferView],
              [`accessor ${k} sparse values`, sparse.values.bufferView],
            ] as [string, number][])
          : []),
      ];
    }),
    ...((json.images ?? []) as Json[]).map((image, k): [string, number | undefined] => [
      `image ${k}`,
      image.bufferView as number | undefined,
    ]),
    ...((json.meshes ?? []) as Json[]).flatMap((mesh, m) =>
      (mesh.primitives as Json[]).map((primitive, p): [string, number | undefined] => [
        `mesh ${m} primitive ${p} Draco`,
        ((primitive.extensions as Record<string, Json> | undefined)?.KHR_draco_mesh_compression?.bufferView as number | undefined) ??
          undefined,
      ]),
    ),
  ];
  const views = (json: Json): Json[] => (json.bufferViews ?? []) as Json[];
  const a = users(before);
  const b = users(after);
  assert.equal(b.length, a.length, 'as many users of buffer views');
  a.forEach(([user, view], k) => {
    const other = b[k][1];
    if ((view === undefined) !== (other === undefined)) out.push(`${user}: buffer view ${view} -> ${other}`);
    else if (view !== undefined)
      differences(withoutLayout(views(before)[view]), withoutLayout(views(after)[other!]), `${user}'s buffer view`, out);
  });
  const buffers = (json: Json): Json[] => ((json.buffers ?? []) as Json[]).map(withoutLayout);
  differences(buffers(before), buffers(after), '.buffers', out);
}

for (const parts of FILES) {
  test(`no-op in-place export of ${parts.join('/')}: the same JSON, accessor values and image bytes`, async () => {
    const file = dataFile('gltf', ...parts);
    const bytes = new Uint8Array(readFileSync(file));
    const resources: Record<string, Uint8Array> = {};
    for (const resource of gltfResources(bytes, file))
      resources[resource.uri] = new Uint8Array(readFileSync(path.join(path.dirname(file), resource.path)));
    await assertNoopIdentity(bytes, file, resources, new WebIO());
  });
}

/**
 * Imports `bytes` and exports it in place with nothing changed; asserts the JSON, every accessor's values as `io`
 * decodes them and every image's bytes are the source's.
 * @returns the export (its bytes and notices)
 */
async function assertNoopIdentity(
  bytes: Uint8Array,
  file: string,
  resources: Record<string, Uint8Array>,
  io: WebIO,
): Promise<GltfExportResult> {
  const rig = await importGltf(bytes, path.basename(file), resources);
  const glb = file.endsWith('.glb');
  const out = await exportGltfInPlace(editOf(rig), glb ? 'same.glb' : 'same.gltf', glb ? {} : { format: 'gltf', basename: 'same' });

  // Nothing to notice: the source's hierarchy stays as it is, skinned mesh nodes below other nodes included.
  assert.deepEqual(out.warnings, [], 'no notices');
  const before = gltfJson(bytes, 'source') as Json;
  const after = gltfJson(out.bytes, 'export') as Json;
  const found: string[] = [];
  differences(before, after, '', found);
  viewDifferences(before, after, found);
  assert.deepEqual(found, [], 'JSON differences');

  const source = glb ? await io.readBinary(bytes) : await io.readJSON({ json: before as never, resources: resources as never });
  const written = glb ? await io.readBinary(out.bytes) : await io.readJSON({ json: after as never, resources: out.resources as never });
  const sourceAccessors = source.getRoot().listAccessors();
  const writtenAccessors = written.getRoot().listAccessors();
  assert.equal(writtenAccessors.length, sourceAccessors.length, 'accessor count');
  const bytesOf = (accessor: (typeof sourceAccessors)[number]): Buffer => {
    const array = accessor.getArray() as unknown as ArrayBufferView;
    return Buffer.from(array.buffer, array.byteOffset, array.byteLength);
  };
  sourceAccessors.forEach((accessor, k) => {
    assert.equal(writtenAccessors[k].getComponentType(), accessor.getComponentType(), `accessor ${k}: component type`);
    assert.ok(bytesOf(writtenAccessors[k]).equals(bytesOf(accessor)), `accessor ${k}: values`);
  });
  const images = (doc: typeof source): Buffer[] =>
    doc
      .getRoot()
      .listTextures()
      .map((texture) => Buffer.from(texture.getImage()!));
  assert.deepEqual(images(written), images(source), 'image bytes');
  return out;
}

/** An io that reads and writes meshopt compression, and KHR_mesh_quantization (filtered normals). */
async function meshoptIo(): Promise<WebIO> {
  await Promise.all([MeshoptEncoder.ready, MeshoptDecoder.ready]);
  return new WebIO()
    .registerExtensions([EXTMeshoptCompression, KHRMeshQuantization])
    .registerDependencies({ 'meshopt.encoder': MeshoptEncoder, 'meshopt.decoder': MeshoptDecoder });
}

/**
 * A shared GLB (RiggedFigure unless named) written by glTF-Transform with every view it can compress meshopt-compressed. QUANTIZE
 * applies no filter; FILTER applies meshopt's lossy filters (OCTAHEDRAL normals, QUATERNION rotations, EXPONENTIAL
 * floats), which the export's own meshopt writing (no filter) does not: encoding its views again would change them.
 * Filtered normals are normalized bytes, so that source uses KHR_mesh_quantization.
 */
async function meshoptSource(io: WebIO, method: 'quantize' | 'filter', model = 'RiggedFigure'): Promise<Uint8Array> {
  return io.writeBinary(await meshoptSourceDocument(io, method, model));
}

/** The shared GLB `model` as a Document set to be written meshopt-compressed with `method` (meshoptSource). */
async function meshoptSourceDocument(io: WebIO, method: 'quantize' | 'filter', model = 'RiggedFigure'): Promise<Document> {
  const doc = await io.readBinary(new Uint8Array(readFileSync(dataFile('gltf', model, `${model}.glb`))));
  doc
    .createExtension(EXTMeshoptCompression)
    .setRequired(true)
    .setEncoderOptions({
      method: method === 'filter' ? EXTMeshoptCompression.EncoderMethod.FILTER : EXTMeshoptCompression.EncoderMethod.QUANTIZE,
    });
  // The filters store normals as normalized bytes, which glTF allows with KHR_mesh_quantization.
  if (method === 'filter') doc.createExtension(KHRMeshQuantization).setRequired(true);
  return doc;
}

/** The filters a meshopt source's views use (NONE for a view without one). */
function filtersOf(json: Json): string[] {
  return compressedViews(json).map((v) => {
    const extensions = (json.bufferViews as Json[])[v].extensions as Record<string, Json>;
    return (extensions.EXT_meshopt_compression.filter as string | undefined) ?? 'NONE';
  });
}

/** The meshopt-compressed buffer views of a glTF's JSON, by index. */
function compressedViews(json: Json): number[] {
  return ((json.bufferViews ?? []) as Json[]).flatMap((view, v) =>
    (view.extensions as Json | undefined)?.EXT_meshopt_compression ? [v] : [],
  );
}

/**
 * Each accessor of a glTF by its use, independent of the accessors' order: 'mesh 0 primitive 0 WEIGHTS_0',
 * 'mesh 0 primitive 0 indices', 'skin 0 inverse binds', 'animation 0 sampler 2 output' → accessor index.
 */
function accessorUses(json: Json): Map<string, number> {
  const uses = new Map<string, number>();
  ((json.meshes ?? []) as Json[]).forEach((mesh, m) =>
    (mesh.primitives as Json[]).forEach((primitive, p) => {
      for (const [semantic, a] of Object.entries(primitive.attributes as Record<string, number>))
        uses.set(`mesh ${m} primitive ${p} ${semantic}`, a);
      if (typeof primitive.indices === 'number') uses.set(`mesh ${m} primitive ${p} indices`, primitive.indices);
    }),
  );
  ((json.skins ?? []) as Json[]).forEach((skin, s) => {
    if (typeof skin.inverseBindMatrices === 'number') uses.set(`skin ${s} inverse binds`, skin.inverseBindMatrices);
  });
  ((json.animations ?? []) as Json[]).forEach((animation, a) =>
    (animation.samplers as Json[]).forEach((sampler, s) => {
      uses.set(`animation ${a} sampler ${s} input`, sampler.input as number);
      uses.set(`animation ${a} sampler ${s} output`, sampler.output as number);
    }),
  );
  return uses;
}

/**
 * The view accessor `a` lies in, when it is meshopt-compressed: its index, its extension's JSON and its compressed
 * bytes, read from `bins` (each buffer's bytes by index); null for an accessor in a view that is not compressed.
 */
function compressedViewOf(
  json: Json,
  bins: readonly (Uint8Array | undefined)[],
  a: number,
): { view: number; extension: Json; bytes: Buffer } | null {
  const view = ((json.accessors as Json[])[a].bufferView as number | undefined) ?? -1;
  const extension = ((json.bufferViews as Json[])[view]?.extensions as Record<string, Json> | undefined)?.EXT_meshopt_compression;
  if (!extension) return null;
  const start = (extension.byteOffset as number | undefined) ?? 0;
  const bin = bins[extension.buffer as number];
  assert.ok(bin, `buffer ${String(extension.buffer)} of compressed view ${view} has bytes`);
  return { view, extension, bytes: Buffer.from(bin.subarray(start, start + (extension.byteLength as number))) };
}

/** A meshopt extension without the keys that say where its bytes lie (which buffer, where in it). */
function withoutPlace(extension: Json): Json {
  const { buffer: _buffer, byteOffset: _offset, ...rest } = extension;
  return rest;
}

/** Each buffer's bytes of a written file, by buffer index: a GLB's binary chunk, a .gltf's resources by URI. */
function binsOf(bytes: Uint8Array, resources: Record<string, Uint8Array>, label: string): (Uint8Array | undefined)[] {
  const json = gltfJson(bytes, label) as Json;
  if (Object.keys(resources).length === 0) return [parseGlb(bytes, label).bin ?? undefined];
  return ((json.buffers ?? []) as Json[]).map((buffer) => (typeof buffer.uri === 'string' ? resources[buffer.uri] : undefined));
}

// Fox and CesiumMan add an embedded image and animations whose samplers share compressed views.
for (const [model, method] of [
  ['RiggedFigure', 'quantize'],
  ['RiggedFigure', 'filter'],
  ['Fox', 'filter'],
  ['CesiumMan', 'quantize'],
] as const)
  test(`no-op in-place export of a meshopt-compressed ${model} (${method}): the same JSON, decoded values and compressed bytes`, async () => {
    const io = await meshoptIo();
    const bytes = await meshoptSource(io, method, model);
    const sourceJson = gltfJson(bytes, 'source') as Json;
    const sourceViews = compressedViews(sourceJson);
    assert.ok(sourceViews.length > 0, 'the input has meshopt-compressed buffer views');
    if (method === 'filter')
      assert.ok(
        filtersOf(sourceJson).some((filter) => filter !== 'NONE'),
        'some views are filtered',
      );
    // The JSON comparison covers extensionsUsed and extensionsRequired; the buffer views are laid out afresh.
    const out = await assertNoopIdentity(bytes, 'meshopt.glb', {}, io);
    assert.ok(!out.warnings.some((w) => /meshopt/i.test(w)), `no re-encoding to report: ${out.warnings.join('; ')}`);
    assertCompressedViewsKept(bytes, out.bytes);
  });

/**
 * Every compressed view of a GLB source, found through the accessors in it, has its extension (but where its bytes
 * lie) and its compressed bytes in the export, and the export has as many compressed views.
 */
function assertCompressedViewsKept(bytes: Uint8Array, exported: Uint8Array): void {
  const sourceJson = gltfJson(bytes, 'source') as Json;
  const sourceViews = compressedViews(sourceJson);
  const json = gltfJson(exported, 'export') as Json;
  assert.equal(compressedViews(json).length, sourceViews.length, 'as many meshopt-compressed buffer views');
  const sourceBins = binsOf(bytes, {}, 'source');
  const bins = binsOf(exported, {}, 'export');
  const uses = accessorUses(json);
  const covered = new Set<number>();
  for (const [use, a] of accessorUses(sourceJson)) {
    const before = compressedViewOf(sourceJson, sourceBins, a);
    if (!before) continue;
    const after = compressedViewOf(json, bins, uses.get(use)!);
    assert.ok(after, `${use}: still compressed`);
    assert.deepEqual(withoutPlace(after.extension), withoutPlace(before.extension), `${use}: the view's meshopt extension`);
    assert.ok(after.bytes.equals(before.bytes), `${use}: the compressed bytes, byte for byte`);
    covered.add(before.view);
  }
  assert.deepEqual(
    [...covered].sort((x, y) => x - y),
    sourceViews,
    'every compressed view of the source is compared',
  );
}

/**
 * A meshopt RiggedFigure laid out as glTF-Transform's writer would not: its index view encoded in meshopt's INDICES
 * mode (the writer uses TRIANGLES for triangle lists) and its NORMAL and POSITION views merged into one compressed
 * view of 740 elements, POSITION at byteOffset 4440 (the writer gives each attribute its own view). Each view's data
 * is decoded from the writer's file and encoded here (encodeGltfBuffer, version 0); the compressed bytes are laid out
 * again in buffer 0 in view order, 4-byte aligned, and the fallback buffer's ranges after them in view order.
 */
async function handLaidMeshopt(io: WebIO): Promise<Uint8Array> {
  const bytes = await meshoptSource(io, 'quantize');
  const json = structuredClone(gltfJson(bytes, 'source')) as Json;
  const bin = parseGlb(bytes, 'source').bin!;
  const views = json.bufferViews as Json[];
  const accessors = json.accessors as Json[];
  const meshopt = (view: Json): Json => (view.extensions as Record<string, Json>).EXT_meshopt_compression;
  const decode = (view: Json): Uint8Array => {
    const extension = meshopt(view);
    const out = new Uint8Array((extension.count as number) * (extension.byteStride as number));
    const start = extension.byteOffset as number;
    MeshoptDecoder.decodeGltfBuffer(
      out,
      extension.count as number,
      extension.byteStride as number,
      bin.subarray(start, start + (extension.byteLength as number)),
      extension.mode as string,
      extension.filter as string | undefined,
    );
    return out;
  };
  const attributes = ((json.meshes as Json[])[0].primitives as Json[])[0] as { attributes: Record<string, number>; indices: number };
  const indexView = accessors[attributes.indices].bufferView as number;
  const normal = attributes.attributes.NORMAL;
  const position = attributes.attributes.POSITION;
  const [first, second] = [accessors[normal].bufferView as number, accessors[position].bufferView as number];
  assert.equal(meshopt(views[indexView]).mode, 'TRIANGLES', 'the writer encodes triangle indices as TRIANGLES');
  assert.ok(
    views[first].byteStride === 12 && views[second].byteStride === 12 && second !== first,
    'NORMAL and POSITION in views of their own, 12 bytes apart',
  );
  const encoded: Uint8Array[] = views.map((view) => {
    const extension = meshopt(view);
    const start = extension.byteOffset as number;
    return bin.slice(start, start + (extension.byteLength as number));
  });
  encoded[indexView] = MeshoptEncoder.encodeGltfBuffer(
    decode(views[indexView]),
    meshopt(views[indexView]).count as number,
    2,
    'INDICES',
    0,
  );
  meshopt(views[indexView]).mode = 'INDICES';
  // POSITION's elements after NORMAL's in one view.
  const a = decode(views[first]);
  const b = decode(views[second]);
  const merged = new Uint8Array(a.length + b.length);
  merged.set(a, 0);
  merged.set(b, a.length);
  encoded[first] = MeshoptEncoder.encodeGltfBuffer(merged, merged.length / 12, 12, 'ATTRIBUTES', 0);
  meshopt(views[first]).count = merged.length / 12;
  views[first].byteLength = merged.length;
  accessors[position].byteOffset = a.length;
  accessors[position].bufferView = first;
  encoded.splice(second, 1);
  views.splice(second, 1);
  for (const accessor of accessors) if ((accessor.bufferView as number) > second) accessor.bufferView = (accessor.bufferView as number) - 1;
  // Laid out again: compressed bytes in buffer 0, the decoded ranges in the fallback buffer.
  let at = 0;
  let fallbackAt = 0;
  const out = new Uint8Array(encoded.reduce((sum, piece) => sum + Math.ceil(piece.length / 4) * 4, 0));
  views.forEach((view, v) => {
    out.set(encoded[v], at);
    Object.assign(meshopt(view), { byteOffset: at, byteLength: encoded[v].length });
    at += Math.ceil(encoded[v].length / 4) * 4;
    view.byteOffset = fallbackAt;
    fallbackAt += Math.ceil((view.byteLength as number) / 4) * 4;
  });
  const buffers = json.buffers as Json[];
  buffers[0].byteLength = out.length;
  buffers[1].byteLength = fallbackAt;
  return writeGlb(json, out);
}

test('no-op in-place export of a hand-laid meshopt RiggedFigure (INDICES mode, two attributes in one compressed view): every view kept byte for byte', async () => {
  const io = await meshoptIo();
  const bytes = await handLaidMeshopt(io);
  const sourceJson = gltfJson(bytes, 'source') as Json;
  // The planner keeps every compressed view: none is encoded again.
  const read = await readCheckedGltf(bytes, 'hand.glb', {}, []);
  const plan = planMeshopt(sourceJson, () => parseGlb(bytes, 'hand').bin!, read.getRoot().listAccessors(), MeshoptDecoder);
  assert.deepEqual(plan.reencoded, [], 'nothing planned to be encoded again');
  assert.equal(plan.keeps.length, compressedViews(sourceJson).length, 'every compressed view planned to be kept');
  assert.equal(plan.keeps.length, 8, "the writer's 9 views less the one merged");
  const out = await assertNoopIdentity(bytes, 'hand.glb', {}, io);
  assert.ok(!out.warnings.some((w) => /meshopt/i.test(w)), `no re-encoding to report: ${out.warnings.join('; ')}`);
  assertCompressedViewsKept(bytes, out.bytes);
});

test('no-op in-place export of a meshopt-compressed (filter) RiggedFigure .gltf as .gltf: its buffer views and its .bin byte for byte', async () => {
  const io = await meshoptIo();
  const doc = await meshoptSourceDocument(io, 'filter');
  const { json: written, resources } = await io.writeJSON(doc, { format: Format.GLTF, basename: 'figure' });
  // As a reader sees it (the writer's objects have keys set to undefined, which JSON leaves out).
  const json = JSON.parse(JSON.stringify(written)) as Json;
  const bytes = new TextEncoder().encode(JSON.stringify(json));
  assert.deepEqual(Object.keys(resources), ['figure.bin'], 'the source has one .bin');
  assert.ok(
    filtersOf(json).some((filter) => filter !== 'NONE'),
    'some views are filtered',
  );
  const out = await assertNoopIdentity(bytes, 'figure.gltf', resources, io);
  const after = gltfJson(out.bytes, 'export') as Json;
  // Nothing is encoded again, so nothing moves: the views (extensions and all), the buffers and the .bin are the source's.
  assert.deepEqual(after.bufferViews, json.bufferViews, 'the buffer views, layout included');
  assert.deepEqual(
    (after.buffers as Json[]).map(({ uri: _uri, ...buffer }) => buffer),
    (json.buffers as Json[]).map(({ uri: _uri, ...buffer }) => buffer),
    'the buffers but their file names',
  );
  const bin = out.resources[(after.buffers as Json[])[0].uri as string];
  assert.ok(bin && Buffer.from(bin).equals(Buffer.from(resources['figure.bin'])), 'the .bin, byte for byte');
});

for (const [format, method] of [
  ['glb', 'quantize'],
  ['gltf', 'quantize'],
  ['glb', 'filter'],
] as const)
  test(`in-place export (${format}) of a meshopt-compressed RiggedFigure (${method}) with its weights edited: untouched views keep their bytes, the weights are compressed again and named`, async () => {
    const io = await meshoptIo();
    const source = await meshoptSource(io, method);
    const sourceJson = gltfJson(source, 'source') as Json;
    const rig = await importGltf(source, 'meshopt.glb');
    // Two joints per vertex, t and 1 − t with t = (v mod 7) / 6: far from RiggedFigure's own weights.
    const { rows, cols } = rig.weights;
    assert.ok(cols >= 2, 'at least two joints');
    const data = new Float64Array(rows * cols);
    for (let v = 0; v < rows; v++) {
      data[v * cols] = (v % 7) / 6;
      data[v * cols + 1] = 1 - (v % 7) / 6;
    }
    const out = await exportGltfInPlace({ ...editOf(rig), weights: { ...rig.weights, data } }, `w.${format}`, { format, basename: 'w' });
    await assertValidGltf(out.bytes, `the re-weighted meshopt ${format}`, out.resources, source);

    // The notice names the two views of the weights and why, and counts the others as kept.
    const total = compressedViews(sourceJson).length;
    const notices = out.warnings.filter((w) => /compressed again/.test(w));
    assert.equal(notices.length, 1, `one notice: ${out.warnings.join('; ')}`);
    assert.match(notices[0], new RegExp(`^2 of ${total} meshopt-compressed buffer views of meshopt\\.glb are compressed again`));
    assert.match(
      notices[0],
      /buffer view \d+ \(mesh 0 \("Proxy"\) primitive 0 JOINTS_0\), buffer view \d+ \(mesh 0 \("Proxy"\) primitive 0 WEIGHTS_0\): the export replaced or removed data they hold/,
    );
    assert.match(notices[0], new RegExp(`the other ${total - 2} keep their compressed data byte for byte$`));

    // Every other compressed view keeps its extension and bytes; those of the weights are compressed anew.
    const json = gltfJson(out.bytes, 'export') as Json;
    const sourceBins = binsOf(source, {}, 'source');
    const bins = binsOf(out.bytes, out.resources, 'export');
    const uses = accessorUses(json);
    let kept = 0;
    for (const [use, a] of accessorUses(sourceJson)) {
      const before = compressedViewOf(sourceJson, sourceBins, a);
      const after = compressedViewOf(json, bins, uses.get(use)!);
      assert.ok(before && after, `${use}: compressed in the source and in the export`);
      if (/ (JOINTS|WEIGHTS)_0$/.test(use)) {
        assert.ok(!after.bytes.equals(before.bytes), `${use}: compressed anew`);
        continue;
      }
      assert.deepEqual(withoutPlace(after.extension), withoutPlace(before.extension), `${use}: the view's meshopt extension`);
      assert.ok(after.bytes.equals(before.bytes), `${use}: the compressed bytes, byte for byte`);
      kept++;
    }
    assert.ok(kept > 0, 'some views kept');

    // Read back by the project's reader (meshopt decoder): the new weights, to float precision.
    const back = await importGltf(out.bytes, `w.${format}`, out.resources);
    assert.equal(back.weights.rows, rows, 'as many weight rows');
    for (let i = 0; i < rows * cols; i++)
      assert.ok(Math.abs(back.weights.data[i] - data[i]) <= 1e-6, `weight ${i}: ${back.weights.data[i]} read back, ${data[i]} written`);
  });

/**
 * A generated asset with what the shared files lack: node matrices (a joint's child and a camera node written as
 * `matrix`), a MASK material with its cutoff, a normal map with its scale, the base colour on the second UV set,
 * vertex colours, a perspective camera and a KHR_lights_punctual spot light. Written as GLB by glTF-Transform, the
 * matrices put in the JSON by hand (glTF-Transform writes TRS).
 */
async function generatedAsset(): Promise<Uint8Array> {
  const doc = new Document();
  const { acc } = gltfBuilder(doc);
  const joint = doc.createNode('root').setTranslation([0, 0.5, 0]);
  const tip = doc
    .createNode('tip')
    .setTranslation([0, 1, 0])
    .setRotation(axisAngle([0, 0, 1], 0.3) as [number, number, number, number]);
  joint.addChild(tip);
  const skin = doc
    .createSkin('skin')
    .addJoint(joint)
    .addJoint(tip)
    .setInverseBindMatrices(
      acc(
        'MAT4',
        Float32Array.from([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -0.5, 0, 1, ...[1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1.5, 0, 1]]),
      ),
    );
  const texture = doc.createTexture('look').setImage(TEXTURE).setMimeType('image/png');
  const normalMap = doc.createTexture('bumps').setImage(TEXTURE).setMimeType('image/png');
  const material = doc
    .createMaterial('cutout')
    .setAlphaMode('MASK')
    .setAlphaCutoff(0.3)
    .setBaseColorTexture(texture)
    .setNormalTexture(normalMap)
    .setNormalScale(0.5);
  material.getBaseColorTextureInfo()!.setTexCoord(1);
  const primitive = doc
    .createPrimitive()
    .setAttribute('POSITION', acc('VEC3', Float32Array.from([0, 0, 0, 1, 0, 0, 1, 2, 0, 0, 2, 0])))
    .setAttribute('NORMAL', acc('VEC3', Float32Array.from([0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1])))
    .setAttribute('TEXCOORD_0', acc('VEC2', Float32Array.from([0, 0, 1, 0, 1, 1, 0, 1])))
    .setAttribute('TEXCOORD_1', acc('VEC2', Float32Array.from([0.5, 0, 1, 0.5, 0.5, 1, 0, 0.5])))
    .setAttribute('COLOR_0', acc('VEC4', Float32Array.from([1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1, 1, 1, 1, 0.5])))
    .setAttribute('JOINTS_0', acc('VEC4', Uint16Array.from([0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0])))
    .setAttribute('WEIGHTS_0', acc('VEC4', Float32Array.from([1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0])))
    .setIndices(acc('SCALAR', Uint16Array.from([0, 1, 2, 0, 2, 3])))
    .setMaterial(material);
  const lights = doc.createExtension(KHRLightsPunctual);
  const light = lights.createLight('spot').setType('spot').setIntensity(3).setRange(10).setInnerConeAngle(0.2).setOuterConeAngle(0.6);
  const camera = doc.createCamera('view').setType('perspective').setYFov(0.8).setZNear(0.1).setZFar(100).setAspectRatio(1.5);
  doc
    .createScene('scene')
    .addChild(joint)
    .addChild(doc.createNode('body').setMesh(doc.createMesh('quad').addPrimitive(primitive)).setSkin(skin))
    .addChild(doc.createNode('eye').setCamera(camera).setTranslation([0, 1, 5]))
    .addChild(doc.createNode('lamp').setExtension('KHR_lights_punctual', light).setTranslation([2, 3, 1]));
  tip.addChild(doc.createNode('marker').setTranslation([0.1, 0.2, 0.3]));
  const { json, resources } = await new NodeIO().registerExtensions([KHRLightsPunctual]).writeJSON(doc, { format: Format.GLB });
  const nodes = (json as unknown as Json).nodes as Json[];
  for (const [name, matrix] of [
    ['marker', [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0.1, 0.2, 0.3, 1]],
    ['eye', [0, 0, -1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1, 5, 1]],
  ] as const) {
    const node = nodes.find((n) => n.name === name)!;
    delete node.translation;
    delete node.rotation;
    delete node.scale;
    node.matrix = matrix;
  }
  return writeGlb(json, Object.values(resources)[0]);
}

test('no-op in-place export of a generated asset with matrices, a MASK material, a normal map, two UV sets, vertex colours, a camera and a light', async () => {
  const bytes = await generatedAsset();
  const json = gltfJson(bytes, 'generated') as Json;
  assert.ok((json.nodes as Json[]).filter((node) => node.matrix !== undefined).length === 2, 'the generated asset has two matrix nodes');
  const text = JSON.stringify(json);
  for (const feature of [
    '"MASK"',
    '"alphaCutoff":0.3',
    '"normalTexture"',
    '"texCoord":1',
    '"COLOR_0"',
    '"TEXCOORD_1"',
    '"cameras"',
    '"KHR_lights_punctual"',
  ])
    assert.ok(text.includes(feature), `the generated asset has ${feature}`);
  await assertNoopIdentity(bytes, 'generated.glb', {}, new WebIO().registerExtensions([KHRLightsPunctual]));
});

test("no-op in-place export keeps a buffer's name and extras as the file has them", async () => {
  const generated = await generatedAsset();
  const json = gltfJson(generated, 'generated') as Json;
  const buffers = json.buffers as Json[];
  assert.equal(buffers.length, 1, 'the generated asset has one buffer');
  buffers[0].name = 'body data';
  buffers[0].extras = { author: 'rig shop', revision: 3, tags: ['skin', 'lod0'] };
  const bytes = writeGlb(json, parseGlb(generated, 'generated.glb').bin!);
  const out = await assertNoopIdentity(bytes, 'named.glb', {}, new WebIO().registerExtensions([KHRLightsPunctual]));
  const written = (gltfJson(out.bytes, 'export') as Json).buffers as Json[];
  assert.equal(written.length, 1, 'one buffer written');
  assert.equal(written[0].name, 'body data', "the buffer's name");
  assert.deepEqual(written[0].extras, { author: 'rig shop', revision: 3, tags: ['skin', 'lod0'] }, "the buffer's extras");
});

test('no-op in-place export of a Draco-compressed CesiumMan: the same JSON (Draco extension and its buffer views included) and decoded values', async () => {
  const encoderIo = new NodeIO()
    .registerExtensions([KHRDracoMeshCompression])
    .registerDependencies({ 'draco3d.encoder': await draco3d.createEncoderModule() });
  const doc = await encoderIo.readBinary(new Uint8Array(readFileSync(dataFile('gltf', 'CesiumMan', 'CesiumMan.glb'))));
  doc.createExtension(KHRDracoMeshCompression).setRequired(true);
  const bytes = await encoderIo.writeBinary(doc);
  const io = new WebIO()
    .registerExtensions([KHRDracoMeshCompression])
    .registerDependencies({ 'draco3d.decoder': await draco3d.createDecoderModule() });
  const out = await assertNoopIdentity(bytes, 'draco.glb', {}, io);
  assert.ok(!out.warnings.some((w) => /draco/i.test(w)), `no re-encoding to report: ${out.warnings.join('; ')}`);
});
