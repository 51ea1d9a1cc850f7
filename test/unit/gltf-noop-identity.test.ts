/**
 * A no-op edit is the identity: every glTF of ../shared/data/gltf, imported and exported in place with nothing
 * changed, gives the same JSON (nodes, hierarchy, matrices where the file had matrices, names, order, materials with
 * the defaults they spell out, accessor bounds, animations) apart from the generator and the buffers' layout, and the
 * same values in every accessor and the same bytes in every image. Nothing moves: a skinned mesh node below another
 * node stays where the source has it, and nothing is noticed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Document, Format, NodeIO, WebIO } from '@gltf-transform/core';
import { EXTMeshoptCompression, KHRDracoMeshCompression, KHRLightsPunctual } from '@gltf-transform/extensions';
import draco3d from 'draco3dgltf';
import { MeshoptDecoder, MeshoptEncoder } from 'meshoptimizer';
import { exportGltfInPlace } from '../../workers/formats/gltf-edit.ts';
import type { GltfExportResult } from '../../workers/formats/gltf-export.ts';
import { importGltf } from '../../workers/formats/gltf-import.ts';
import { gltfJson, gltfResources } from '../../workers/formats/gltf-resource-uris.ts';
import { parseGlb, writeGlb } from '../../workers/formats/gltf/glb.ts';
import { axisAngle, gltfBuilder, TEXTURE } from './gltf-build.ts';
import { editOf } from './gltf-edit-input.ts';
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

test('no-op in-place export of a meshopt-compressed RiggedFigure: the same JSON and the accessor values the decoder gives', async () => {
  await Promise.all([MeshoptEncoder.ready, MeshoptDecoder.ready]);
  const io = new WebIO()
    .registerExtensions([EXTMeshoptCompression])
    .registerDependencies({ 'meshopt.encoder': MeshoptEncoder, 'meshopt.decoder': MeshoptDecoder });
  const doc = await io.readBinary(new Uint8Array(readFileSync(dataFile('gltf', 'RiggedFigure', 'RiggedFigure.glb'))));
  doc.createExtension(EXTMeshoptCompression).setRequired(true).setEncoderOptions({ method: EXTMeshoptCompression.EncoderMethod.QUANTIZE });
  const bytes = await io.writeBinary(doc);
  const compressed = (glb: Uint8Array, label: string): number =>
    (((gltfJson(glb, label) as Json).bufferViews ?? []) as Json[]).filter(
      (view) => (view.extensions as Json | undefined)?.EXT_meshopt_compression,
    ).length;
  assert.ok(compressed(bytes, 'source') > 0, 'the input has meshopt-compressed buffer views');
  // The JSON comparison covers extensionsUsed and extensionsRequired; the buffer views are laid out afresh.
  const out = await assertNoopIdentity(bytes, 'meshopt.glb', {}, io);
  assert.equal(compressed(out.bytes, 'export'), compressed(bytes, 'source'), 'as many meshopt-compressed buffer views');
  assert.ok(!out.warnings.some((w) => /meshopt/i.test(w)), `no re-encoding to report: ${out.warnings.join('; ')}`);
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
