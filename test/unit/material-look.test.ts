/**
 * A material's alpha coverage, its base colour texture's sampler and KHR_texture_transform through the formats: a
 * glTF built here with glTF-Transform (each alpha mode, a transform with a texCoord override, samplers other than the
 * default) imports into MaterialLook with the values written (defaults left absent), the texture coordinates being
 * the set the texture reads; the fresh export writes them back (valid glTF, the same values on import); the project
 * file keeps them and refuses damaged ones naming the place and the reason.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Document, WebIO, type Material } from '@gltf-transform/core';
import { KHRTextureTransform } from '@gltf-transform/extensions';
import { FormatError } from '../../workers/formats/format-error.ts';
import { exportGltf } from '../../workers/formats/gltf-export.ts';
import { importGltf, type GltfImportResult } from '../../workers/formats/gltf-import.ts';
import { FILTER, WRAP } from '../../workers/formats/material-look.ts';
import { PROJECT_EXTENSION, readProjectFile, writeProjectFile, type ProjectContents } from '../../workers/formats/project-file.ts';
import type { MaterialLook } from '../../workers/formats/types.ts';
import { assertValidGltf } from './gltf-skinning-reference.ts';
import { glbJson, withGlbJson } from './glb-json.ts';
import { png } from './png-file.ts';
import { projectContents } from './project-scene.ts';

/** A 1 × 1 PNG (a red texel), enough for a texture the importer keeps as bytes. */
const PNG_1X1 = png(1, 1, Uint8Array.of(255, 0, 0, 255));

/**
 * Four one-quad meshes on one skin, each with its own material: "opaque" (default alpha, clamp × mirrored, nearest ×
 * linear-mipmap-nearest), "mask" (cutoff 0.3, KHR_texture_transform reading TEXCOORD_1), "blend" (alpha 0.5, a
 * transform without override, default sampler), "plain" (no texture, every default).
 */
async function lookAsset(): Promise<Uint8Array> {
  const doc = new Document();
  const buffer = doc.createBuffer();
  const accessor = (type: 'SCALAR' | 'VEC2' | 'VEC3' | 'VEC4' | 'MAT4', array: Float32Array | Uint16Array | Uint8Array) =>
    doc.createAccessor().setType(type).setArray(array).setBuffer(buffer);
  const transforms = doc.createExtension(KHRTextureTransform);
  const root = doc.createNode('root');
  const skin = doc
    .createSkin('skin')
    .addJoint(root)
    .setInverseBindMatrices(accessor('MAT4', Float32Array.of(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1)));
  const texture = doc.createTexture('red').setImage(PNG_1X1).setMimeType('image/png');
  const opaque = doc.createMaterial('opaque').setBaseColorTexture(texture);
  opaque
    .getBaseColorTextureInfo()!
    .setWrapS(WRAP.CLAMP_TO_EDGE)
    .setWrapT(WRAP.MIRRORED_REPEAT)
    .setMagFilter(FILTER.NEAREST)
    .setMinFilter(FILTER.LINEAR_MIPMAP_NEAREST);
  const mask = doc.createMaterial('mask').setAlphaMode('MASK').setAlphaCutoff(0.3).setBaseColorTexture(texture);
  mask.getBaseColorTextureInfo()!.setExtension(
    'KHR_texture_transform',
    transforms
      .createTransform()
      .setOffset([0.5, -0.25])
      .setRotation(Math.PI / 2)
      .setScale([2, 3])
      .setTexCoord(1),
  );
  const blend = doc.createMaterial('blend').setAlphaMode('BLEND').setBaseColorFactor([1, 1, 1, 0.5]).setBaseColorTexture(texture);
  blend.getBaseColorTextureInfo()!.setExtension('KHR_texture_transform', transforms.createTransform().setOffset([0.25, 0]));
  const plain = doc.createMaterial('plain');
  const scene = doc.createScene('scene').addChild(root);
  [opaque, mask, blend, plain].forEach((material: Material, m) => {
    const x = 2 * m;
    const primitive = doc
      .createPrimitive()
      .setAttribute('POSITION', accessor('VEC3', Float32Array.of(x, 0, 0, x + 1, 0, 0, x + 1, 1, 0, x, 1, 0)))
      .setAttribute('TEXCOORD_0', accessor('VEC2', Float32Array.of(0, 1, 1, 1, 1, 0, 0, 0)))
      // TEXCOORD_1 differs from TEXCOORD_0 so that which set is read shows.
      .setAttribute('TEXCOORD_1', accessor('VEC2', Float32Array.of(0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1)))
      .setAttribute('JOINTS_0', accessor('VEC4', new Uint8Array(16)))
      .setAttribute('WEIGHTS_0', accessor('VEC4', Float32Array.of(1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0)))
      .setIndices(accessor('SCALAR', Uint16Array.of(0, 1, 2, 0, 2, 3)))
      .setMaterial(material);
    scene.addChild(doc.createNode(material.getName()).setMesh(doc.createMesh(material.getName()).addPrimitive(primitive)).setSkin(skin));
  });
  return new WebIO().registerExtensions([KHRTextureTransform]).writeBinary(doc);
}

/**
 * What each material of lookAsset reads as: hand-written from the values set above, defaults absent; metallic and
 * roughness are 1, glTF's defaults, which the file gives by leaving them out.
 */
const EXPECTED: Omit<MaterialLook, 'baseColorTexture'>[] = [
  {
    name: 'opaque',
    baseColor: [1, 1, 1, 1],
    doubleSided: false,
    metallic: 1,
    roughness: 1,
    sampler: { wrapS: 33071, wrapT: 33648, magFilter: 9728, minFilter: 9985 },
  },
  {
    name: 'mask',
    baseColor: [1, 1, 1, 1],
    doubleSided: false,
    metallic: 1,
    roughness: 1,
    alphaMode: 'MASK',
    alphaCutoff: 0.3,
    textureTransform: { offset: [0.5, -0.25], rotation: Math.PI / 2, scale: [2, 3] },
  },
  {
    name: 'blend',
    baseColor: [1, 1, 1, 0.5],
    doubleSided: false,
    metallic: 1,
    roughness: 1,
    alphaMode: 'BLEND',
    textureTransform: { offset: [0.25, 0], rotation: 0, scale: [1, 1] },
  },
  { name: 'plain', baseColor: [1, 1, 1, 1], doubleSided: false, metallic: 1, roughness: 1 },
];

function withoutImage(look: MaterialLook): Omit<MaterialLook, 'baseColorTexture'> {
  const { baseColorTexture, ...rest } = look;
  void baseColorTexture;
  return rest;
}

function assertMaterials(actual: readonly MaterialLook[], label: string): void {
  assert.deepEqual(actual.map(withoutImage), EXPECTED, label);
  assert.deepEqual(
    actual.map((m) => m.baseColorTexture?.mimeType ?? null),
    ['image/png', 'image/png', 'image/png', null],
    `${label}: textures`,
  );
}

test('import: alpha mode and cutoff, sampler and texture transform as written, defaults absent; uvs from the set the texture reads', async () => {
  const rig = await importGltf(await lookAsset(), 'look.glb');
  assertMaterials(rig.look.materials, 'import');
  const uvs = Array.from(rig.look.uvs!);
  const set0 = [0, 1, 1, 1, 1, 0, 0, 0];
  const set1 = [0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1];
  // Meshes in node order, 4 vertices each: the mask material's texture reads TEXCOORD_1 (its transform's override).
  assert.deepEqual(uvs, [...set0, ...set1, ...set0, ...set0]);
});

test('fresh export writes alpha mode, cutoff, sampler and KHR_texture_transform back: valid glTF, the same look on import', async () => {
  const rig = await importGltf(await lookAsset(), 'look.glb');
  const { bytes, warnings } = await exportGltf(
    {
      mesh: rig.mesh,
      skeleton: rig.skeleton,
      weights: rig.weights,
      boneNames: rig.boneNames,
      parts: rig.parts,
      look: rig.look,
      name: 'look',
    },
    'look-out.glb',
  );
  assert.deepEqual(warnings, []);
  await assertValidGltf(bytes, 'look-out.glb');
  const json = glbJson<{
    extensionsUsed?: string[];
    materials: {
      name: string;
      alphaMode?: string;
      pbrMetallicRoughness: { baseColorTexture?: { texCoord?: number; extensions?: unknown } };
    }[];
  }>(bytes);
  assert.deepEqual(json.extensionsUsed, ['KHR_texture_transform']);
  // The export writes the uvs the texture read as TEXCOORD_0, so no texCoord override is written.
  const mask = json.materials.find((m) => m.name === 'mask')!;
  assert.deepEqual(mask.pbrMetallicRoughness.baseColorTexture?.extensions, {
    KHR_texture_transform: { offset: [0.5, -0.25], rotation: Math.PI / 2, scale: [2, 3] },
  });
  const again = await importGltf(bytes, 'look-out.glb');
  assertMaterials(again.look.materials, 'after export');
  assert.deepEqual(Array.from(again.look.uvs!), Array.from(rig.look.uvs!));
});

function contentsOf(rig: GltfImportResult): ProjectContents {
  return projectContents({
    name: 'look.glb',
    mesh: rig.mesh,
    skeleton: rig.skeleton,
    boneNames: rig.boneNames,
    weights: rig.weights,
    parts: rig.parts,
    look: rig.look,
  });
}

/** The GLB with its project JSON changed by `edit` (same binary chunk). */
function withMaterials(bytes: Uint8Array, edit: (materials: Record<string, unknown>[]) => void): Uint8Array {
  const json = glbJson<{ extensions: Record<string, { scene: { look: { materials: Record<string, unknown>[] } } }> }>(bytes);
  edit(json.extensions[PROJECT_EXTENSION].scene.look.materials);
  return withGlbJson(bytes, json);
}

test('the project file keeps alpha mode, cutoff, sampler and transform, and refuses damaged ones naming the place', async () => {
  const rig = await importGltf(await lookAsset(), 'look.glb');
  const bytes = await writeProjectFile(contentsOf(rig), 'look.rig.glb');
  const read = readProjectFile(bytes, 'look.rig.glb');
  assertMaterials(read.scene.look!.materials, 'project file');
  assert.ok(Buffer.from(await writeProjectFile(read, 'look.rig.glb')).equals(Buffer.from(bytes)), 'written again: the same bytes');

  const refuses = (edit: (materials: Record<string, unknown>[]) => void, message: RegExp): void =>
    assert.throws(
      () => readProjectFile(withMaterials(bytes, edit), 'bad.rig.glb'),
      (error: unknown) => error instanceof FormatError && message.test(error.message),
      String(message),
    );
  const P = 'bad\\.rig\\.glb: RIGWRIGHT_project\\.scene\\.look\\.materials';
  refuses((m) => (m[1].alphaMode = 'CUTOUT'), new RegExp(`^${P}\\[1\\]\\.alphaMode: "CUTOUT" is not OPAQUE, MASK or BLEND$`));
  refuses((m) => (m[1].alphaCutoff = -0.5), new RegExp(`^${P}\\[1\\]\\.alphaCutoff: -0\\.5 is not a number ≥ 0$`));
  refuses((m) => (m[1].alphaCutoff = 'half'), new RegExp(`^${P}\\[1\\]\\.alphaCutoff: "half" is not a finite number$`));
  refuses(
    (m) => ((m[1].textureTransform as { offset: unknown }).offset = [0.5]),
    new RegExp(`^${P}\\[1\\]\\.textureTransform\\.offset: \\[0\\.5\\] is not two numbers$`),
  );
  refuses(
    (m) => ((m[1].textureTransform as { scale: unknown }).scale = [2, null]),
    new RegExp(`^${P}\\[1\\]\\.textureTransform\\.scale\\[1\\]: null is not a finite number$`),
  );
  refuses(
    (m) => delete (m[2].textureTransform as { rotation?: unknown }).rotation,
    new RegExp(`^${P}\\[2\\]\\.textureTransform\\.rotation: missing \\(expected a finite number\\)$`),
  );
  refuses(
    (m) => ((m[0].sampler as { wrapS: unknown }).wrapS = 10496),
    new RegExp(`^${P}\\[0\\]\\.sampler\\.wrapS: 10496 is not one of 10497, 33071, 33648$`),
  );
  refuses(
    (m) => ((m[0].sampler as { magFilter: unknown }).magFilter = 9984),
    new RegExp(`^${P}\\[0\\]\\.sampler\\.magFilter: 9984 is not one of 9728, 9729 or null$`),
  );
  refuses((m) => (m[0].sampler = 'nearest'), new RegExp(`^${P}\\[0\\]\\.sampler: expected an object$`));
});
