/**
 * The project file keeps the asset whole: meshes (parts), look (uvs, materials with their images), OBJ corners and
 * the imported glTF (bytes, resources, joint nodes) come back bit for bit; older files read as before; a damaged
 * section is refused naming its place.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { WebIO } from '@gltf-transform/core';
import { FormatError } from '../../workers/formats/format-error.ts';
import { readObj } from '../../workers/formats/obj.ts';
import { PROJECT_EXTENSION, readProjectFile, writeProjectFile, type ProjectContents } from '../../workers/formats/project-file.ts';
import type { GltfSource, SurfaceLook } from '../../workers/formats/types.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { documentFromProject, projectSceneOf } from '../../workers/scene/project-document.ts';
import { objSeedWithParts } from '../fuzz/corpus.ts';
import { FIXTURE_PATH } from '../make-project-fixture.ts';
import { assertValidGltf } from './gltf-skinning-reference.ts';
import { seededRandom } from './seeded-random.ts';
import { dataFile } from './shared-data.ts';
import { glbJson, withGlbJson } from './glb-json.ts';
import { projectContents } from './project-scene.ts';

const bits = (array: ArrayBufferView): Buffer => Buffer.from(array.buffer, array.byteOffset, array.byteLength);
function assertSameBits(actual: ArrayBufferView | null | undefined, expected: ArrayBufferView | null | undefined, what: string): void {
  assert.equal(actual?.constructor.name, expected?.constructor.name, `${what}: array type`);
  if (actual && expected) assert.ok(bits(actual).equals(bits(expected)), `${what}: bits differ`);
}

/** A two-object OBJ scene with corners, a look with a real JPEG and a glTF source with external resources. */
async function assetContents(): Promise<ProjectContents> {
  const read = readObj(objSeedWithParts(), 'two-objects.obj');
  const V = read.mesh.positions.length / 3;
  const random = seededRandom(14);
  const joints = Float64Array.from([0, 0, 0, 5, 3, 0, 10, 6, 0]);
  const skeleton = buildSkeleton({ joints, bones: Uint32Array.from([0, 1, 1, 2]) }, 'two.tgf');
  const data = new Float64Array(2 * V);
  for (let v = 0; v < V; v++) data[2 * v + 1] = 1 - (data[2 * v] = random());
  const cesium = new Uint8Array(readFileSync(dataFile('gltf', 'CesiumMan', 'CesiumMan.glb')));
  const image = (await new WebIO().readBinary(cesium)).getRoot().listTextures()[0];
  const look: SurfaceLook = {
    uvs: Float32Array.from({ length: 2 * V }, () => random()),
    materials: [
      {
        name: 'skin',
        baseColor: [1, 0.9, 0.8, 1],
        baseColorTexture: { bytes: image.getImage()!, mimeType: image.getMimeType() },
        doubleSided: false,
      },
      { name: 'glass', baseColor: [0.2, 0.3, 0.4, 0.5], baseColorTexture: null, doubleSided: true },
    ],
  };
  const gltfSource: GltfSource = {
    file: 'CesiumMan.gltf',
    bytes: cesium,
    // A computed `__proto__` key is an own property: a URI the reader must keep as one.
    resources: {
      'CesiumMan data.bin': Uint8Array.from({ length: 1001 }, () => Math.floor(random() * 256)),
      ['__proto__']: Uint8Array.from([1, 2, 3]),
    },
    jointNodes: Int32Array.from([3, 7]),
  };
  const parts = read.parts!.map((part, i) => ({
    ...part,
    material: i === 0 ? 0 : 1,
    source: i === 0 ? { node: 2, mesh: 0, primitive: 0 } : null,
    skinned: i === 0,
  }));
  return projectContents({
    name: 'two-objects.obj',
    mesh: read.mesh,
    skeletonFile: 'two.tgf',
    skeleton,
    boneNames: ['hip', 'knee'],
    weights: { rows: V, cols: 2, data },
    parts,
    look,
    objCorners: read.corners,
    gltfSource,
  });
}

function assertSameAsset(actual: ProjectContents['scene'], expected: ProjectContents['scene']): void {
  assert.deepEqual(actual.parts, expected.parts);
  assertSameBits(actual.look?.uvs, expected.look?.uvs, 'look.uvs');
  assert.equal(actual.look?.materials.length, expected.look?.materials.length);
  expected.look?.materials.forEach((m, i) => {
    const a = actual.look!.materials[i];
    assert.deepEqual(
      [a.name, a.baseColor, a.doubleSided, a.baseColorTexture?.mimeType],
      [m.name, m.baseColor, m.doubleSided, m.baseColorTexture?.mimeType],
    );
    assertSameBits(a.baseColorTexture?.bytes, m.baseColorTexture?.bytes, `material ${i} image`);
  });
  for (const key of ['texcoords', 'normals', 'cornerTexcoords', 'cornerNormals'] as const)
    assertSameBits(actual.objCorners?.[key], expected.objCorners?.[key], `objCorners.${key}`);
  const a = actual.gltfSource!;
  const e = expected.gltfSource!;
  assert.equal(a.file, e.file);
  assertSameBits(a.bytes, e.bytes, 'gltfSource.bytes');
  assertSameBits(a.jointNodes, e.jointNodes, 'gltfSource.jointNodes');
  assert.deepEqual(Object.keys(a.resources), Object.keys(e.resources));
  for (const uri of Object.keys(e.resources)) assertSameBits(a.resources[uri], e.resources[uri], `resource ${uri}`);
}

test('parts, look (uvs, materials, images), OBJ corners and the glTF source come back bit for bit; writing again gives the same bytes', async () => {
  const contents = await assetContents();
  assert.deepEqual(Object.keys(contents.scene.gltfSource!.resources), ['CesiumMan data.bin', '__proto__']);
  const bytes = await writeProjectFile(contents, 'asset.rig.glb');
  const read = readProjectFile(bytes, 'asset.rig.glb');
  assertSameAsset(read.scene, contents.scene);
  assertSameBits(read.scene.mesh.triangles, contents.scene.mesh.triangles, 'triangles');
  const again = await writeProjectFile(read, 'asset.rig.glb');
  assert.ok(Buffer.from(again).equals(Buffer.from(bytes)), 'the same contents write the same bytes');
  // The viewer's copy shows the two meshes with their materials, and is valid glTF.
  await assertValidGltf(bytes, 'asset.rig.glb');
  const preview = await new WebIO().readBinary(bytes);
  assert.deepEqual(
    preview
      .getRoot()
      .listMeshes()
      .map((m) => [m.getName(), m.listPrimitives()[0].getMaterial()?.getName()]),
    [
      ['body', 'skin'],
      ['eye', 'glass'],
    ],
  );
});

test('the document keeps its asset through the project: projectSceneOf → write → read → documentFromProject', async () => {
  const contents = await assetContents();
  const doc = documentFromProject(contents.scene);
  const scene = projectSceneOf(doc);
  const read = readProjectFile(await writeProjectFile({ scene, settings: contents.settings }, 'doc.rig.glb'), 'doc.rig.glb');
  const back = documentFromProject(read.scene);
  assertSameAsset(projectSceneOf(back), contents.scene);
});

test('a file without the asset sections (the format 1 fixture, or a scene without them) reads with none', async () => {
  const v1 = readProjectFile(new Uint8Array(readFileSync(FIXTURE_PATH)), 'project-v1.rig.glb');
  assert.deepEqual(
    ['parts', 'look', 'objCorners', 'gltfSource'].filter((key) => key in v1.scene),
    [],
  );
  const contents = await assetContents();
  const { parts, look, objCorners, gltfSource, ...plain } = contents.scene;
  void [parts, look, objCorners, gltfSource];
  const read = readProjectFile(await writeProjectFile({ scene: plain, settings: contents.settings }), 'plain.rig.glb');
  assert.deepEqual(
    ['parts', 'look', 'objCorners', 'gltfSource'].filter((key) => key in read.scene),
    [],
  );
  assert.equal('parts' in documentFromProject(read.scene), false);
});

interface Ref {
  bufferView: number;
  type: string;
  length: number;
}
/** The asset keys of the scene section as written. */
interface Json {
  parts: { name: string; vertexStart: number; vertexCount: number; triangleCount: number; material: number; skinned: unknown }[];
  look: { uvs: Ref; materials: { baseColor: number[] }[] };
  objCorners: { cornerNormals: Ref };
  gltfSource: { file?: string; resources: { uri: string }[]; jointNodes: Ref };
}

/** The GLB with its JSON changed by `edit` (same binary chunk). */
function withJson(bytes: Uint8Array, edit: (scene: Json) => void): Uint8Array {
  const json = glbJson<{ extensions: Record<string, { scene: Json }> }>(bytes);
  edit(json.extensions[PROJECT_EXTENSION].scene);
  return withGlbJson(bytes, json);
}

test('a damaged asset section is refused naming the file, the place and the reason', async () => {
  const bytes = await writeProjectFile(await assetContents(), 'asset.rig.glb');
  const refuses = (edit: (scene: Json) => void, message: RegExp): void =>
    assert.throws(
      () => readProjectFile(withJson(bytes, edit), 'bad.rig.glb'),
      (error: unknown) => error instanceof FormatError && message.test(error.message),
    );
  const P = 'bad\\.rig\\.glb: RIGWRIGHT_project\\.scene';
  refuses((s) => (s.parts[1].vertexStart = 48), new RegExp(`^${P}\\.parts\\[1\\]\\.vertexStart: 48, expected 49`));
  refuses(
    (s) => (s.parts[1].triangleCount = 71),
    new RegExp(`^${P}\\.parts: the meshes cover 98 of 98 vertices and 143 of 144 triangles$`),
  );
  refuses((s) => (s.parts[0].material = 2), new RegExp(`^${P}\\.parts\\[0\\]\\.material: 2 is not -1 or one of the 2 materials$`));
  refuses((s) => (s.parts[0].skinned = 1), new RegExp(`^${P}\\.parts\\[0\\]\\.skinned: 1 is not true or false$`));
  refuses((s) => (s.parts[1].name = 'body'), new RegExp(`^${P}\\.parts\\[1\\]\\.name: "body" is the name of an earlier mesh$`));
  refuses(
    (s) => ((s.parts[0].vertexCount = 50), (s.parts[1].vertexStart = 50), (s.parts[1].vertexCount = 48)),
    new RegExp(`^${P}\\.parts\\[1\\]: triangle 72 names vertex 49, outside the mesh's vertices$`),
  );
  refuses(
    (s) => (s.look.materials[1].baseColor = [0, 0, 2, 1]),
    new RegExp(`^${P}\\.look\\.materials\\[1\\]\\.baseColor: \\[0,0,2,1\\] is not four numbers in 0 … 1$`),
  );
  refuses((s) => (s.look.uvs.length = 10), new RegExp(`^${P}\\.look\\.uvs: 10 values, expected 196$`));
  refuses(
    (s) => (s.objCorners.cornerNormals.type = 'float64'),
    new RegExp(`^${P}\\.objCorners\\.cornerNormals: type "float64", expected "int32"$`),
  );
  refuses(
    (s) => (s.gltfSource.resources[1].uri = 'CesiumMan data.bin'),
    new RegExp(`^${P}\\.gltfSource\\.resources\\[1\\]\\.uri: "CesiumMan data.bin" is named twice$`),
  );
  refuses((s) => (s.gltfSource.jointNodes.length = 3), new RegExp(`^${P}\\.gltfSource\\.jointNodes: 3 values, expected 2$`));
  refuses((s) => void delete s.gltfSource.file, new RegExp(`^${P}\\.gltfSource\\.file: expected a string$`));
});
