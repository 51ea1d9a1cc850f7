/**
 * A fresh glTF export of an OBJ keeps what its MTL says: base colour, metallic and roughness (Pm, Pr; or Blender's
 * importer's rules from Ns and illum; never glTF's metal default), alpha (d, a map_d that is the colour image, a
 * colour image with alpha), the normal map (map_Bump with -bm), emission (Ke, map_Ke), single sides; what cannot be
 * kept (map_Pr, a map_d of another image) is a notice. The file is read back three ways: its JSON as written, the
 * Khronos validator, and three.js's GLTFLoader (a reader that knows nothing of our code). Expected values are worked
 * out by hand from the MTL below.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as THREE from 'three';
import { GLTFLoader, type GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { WebIO } from '@gltf-transform/core';
import { readObj } from '../../workers/formats/obj.ts';
import { objLook, type BatchFile } from '../../workers/formats/obj-materials.ts';
import { exportGltf } from '../../workers/formats/gltf-export.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { readProjectFile, writeProjectFile } from '../../workers/formats/project-file.ts';
import { assertValidGltf } from './gltf-skinning-reference.ts';
import { blenderMissing, blenderReport } from './blender.ts';
import { repoRoot } from './shared-data.ts';
import { projectContents } from './project-scene.ts';

/** CRC-32 of PNG chunks (ISO 3309, polynomial 0xEDB88320), bit by bit. */
function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** A width × height PNG of 8-bit RGB (channels 3) or RGBA (4) texels, each row filter 0 (PNG spec §11.2.2, §9). */
function png(width: number, height: number, channels: 3 | 4, texel: (x: number, y: number) => number[]): Uint8Array {
  const chunk = (type: string, data: Uint8Array): Uint8Array => {
    const out = new Uint8Array(12 + data.length);
    const view = new DataView(out.buffer);
    view.setUint32(0, data.length);
    out.set(new TextEncoder().encode(type), 4);
    out.set(data, 8);
    view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
    return out;
  };
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header.set([8, channels === 4 ? 6 : 2, 0, 0, 0], 8);
  const raw = new Uint8Array(height * (1 + width * channels));
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) raw.set(texel(x, y).slice(0, channels), y * (1 + width * channels) + 1 + x * channels);
  const parts = [
    Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a),
    chunk('IHDR', header),
    chunk('IDAT', new Uint8Array(deflateSync(raw))),
    chunk('IEND', new Uint8Array(0)),
  ];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const NORMAL_PNG = png(4, 4, 3, () => [128, 128, 255]);
const LEAF_PNG = png(4, 4, 4, (x) => [40, 160, 60, x < 2 ? 255 : 0]);
const GLOW_PNG = png(4, 4, 3, (x, y) => [255, 64 * x, 64 * y]);
const ROUGH_PNG = png(4, 4, 3, () => [200, 200, 200]);

const MTL = [
  'newmtl Metal',
  'Kd 0.8 0.2 0.1',
  'Pm 0.9',
  'Pr 0.25',
  'd 0.5',
  'map_Bump -bm 0.7 normal.png',
  'Ke 0.1 0.2 0.3',
  '',
  'newmtl Leaf',
  'Ns 360',
  'illum 2',
  'map_Kd leaf.png',
  'map_d leaf.png',
  '',
  'newmtl Cutout',
  'Ns 90',
  'illum 2',
  'map_Kd leaf.png',
  'map_Pr rough.png',
  '',
  'newmtl Plain',
  'Kd 0.5 0.5 0.5',
  '',
  'newmtl Glow',
  'Kd 0.2 0.2 0.2',
  'illum 3',
  'Ka 0.4 0.5 0.6',
  'map_Ke glow.png',
  'map_d rough.png',
  '',
  'newmtl Shiny',
  'illum 2',
  '',
  'newmtl Mirror',
  'illum 5',
  '',
].join('\n');

/** The MTL and its images, as opened with the OBJ. */
function materialFiles(): BatchFile[] {
  return [
    { name: 'look.mtl', bytes: new TextEncoder().encode(MTL) },
    { name: 'normal.png', bytes: NORMAL_PNG },
    { name: 'leaf.png', bytes: LEAF_PNG },
    { name: 'glow.png', bytes: GLOW_PNG },
    { name: 'rough.png', bytes: ROUGH_PNG },
  ];
}

/** A quad per material side by side, one object each, with texture coordinates. */
function objText(): string {
  const lines = ['mtllib look.mtl', 'vt 0 0', 'vt 1 0', 'vt 1 1', 'vt 0 1'];
  Object.keys(EXPECTED).forEach((name, i) => {
    const x = 2 * i;
    lines.push(`o ${name}`, `v ${x} 0 0`, `v ${x + 1} 0 0`, `v ${x + 1} 1 0`, `v ${x} 1 0`, `usemtl ${name}`);
    const v = 4 * i;
    lines.push(`f ${v + 1}/1 ${v + 2}/2 ${v + 3}/3 ${v + 4}/4`);
  });
  return lines.join('\n') + '\n';
}

/** What each material must be in the file, worked out from the MTL by hand. */
const EXPECTED: Record<
  string,
  {
    baseColor: number[];
    metallic: number;
    roughness: number;
    alphaMode: 'OPAQUE' | 'MASK' | 'BLEND';
    emissive: number[];
    normalScale: number | null;
    baseColorTexture: boolean;
    emissiveTexture: boolean;
  }
> = {
  // Pm, Pr, d as given; -bm 0.7 is the normal map's scale; Ke as given.
  Metal: {
    baseColor: [0.8, 0.2, 0.1, 0.5],
    metallic: 0.9,
    roughness: 0.25,
    alphaMode: 'BLEND',
    emissive: [0.1, 0.2, 0.3],
    normalScale: 0.7,
    baseColorTexture: false,
    emissiveTexture: false,
  },
  // No Pr: roughness 1 − √(360 / 1000) = 0.4; illum 2 reflects nothing: metallic 0; map_d is the colour image: BLEND.
  Leaf: {
    baseColor: [1, 1, 1, 1],
    metallic: 0,
    roughness: 0.4,
    alphaMode: 'BLEND',
    emissive: [0, 0, 0],
    normalScale: null,
    baseColorTexture: true,
    emissiveTexture: false,
  },
  // √(90 / 1000) = 0.3 → roughness 0.7 (map_Pr is not kept); a colour image with alpha and no map_d: a cutout.
  Cutout: {
    baseColor: [1, 1, 1, 1],
    metallic: 0,
    roughness: 0.7,
    alphaMode: 'MASK',
    emissive: [0, 0, 0],
    normalScale: null,
    baseColorTexture: true,
    emissiveTexture: false,
  },
  // Says nothing: a rough non-metal, opaque.
  Plain: {
    baseColor: [0.5, 0.5, 0.5, 1],
    metallic: 0,
    roughness: 1,
    alphaMode: 'OPAQUE',
    emissive: [0, 0, 0],
    normalScale: null,
    baseColorTexture: false,
    emissiveTexture: false,
  },
  // illum 3 reflects: metallic = mean of Ka = 0.5; no Ns and not the highlight model (2): roughness 1; map_Ke: factor 1.
  Glow: {
    baseColor: [0.2, 0.2, 0.2, 1],
    metallic: 0.5,
    roughness: 1,
    alphaMode: 'OPAQUE',
    emissive: [1, 1, 1],
    normalScale: null,
    baseColorTexture: false,
    emissiveTexture: true,
  },
  // The highlight model without Ns: roughness 0 (Blender's rule).
  Shiny: {
    baseColor: [1, 1, 1, 1],
    metallic: 0,
    roughness: 0,
    alphaMode: 'OPAQUE',
    emissive: [0, 0, 0],
    normalScale: null,
    baseColorTexture: false,
    emissiveTexture: false,
  },
  // A reflection model without Ka: metallic 1; without Ns: roughness 1.
  Mirror: {
    baseColor: [1, 1, 1, 1],
    metallic: 1,
    roughness: 1,
    alphaMode: 'OPAQUE',
    emissive: [0, 0, 0],
    normalScale: null,
    baseColorTexture: false,
    emissiveTexture: false,
  },
};

function close(actual: readonly number[], expected: readonly number[], what: string): void {
  assert.equal(actual.length, expected.length, `${what}: ${actual.length} components`);
  for (let i = 0; i < expected.length; i++)
    assert.ok(Math.abs(actual[i] - expected[i]) < 1e-6, `${what}: [${actual.join(', ')}], expected [${expected.join(', ')}]`);
}

async function exportedObj(): Promise<{ bytes: Uint8Array; warnings: string[]; lookWarnings: string[] }> {
  const obj = readObj(objText(), 'look.obj');
  const {
    look,
    parts,
    warnings: lookWarnings,
  } = objLook(
    [{ name: 'look.obj', materials: obj.materials, materialLibraries: obj.materialLibraries, parts: obj.parts }],
    materialFiles(),
  );
  assert.ok(look && parts?.[0], 'the MTL gives a look and the OBJ its parts');
  const skeleton = buildSkeleton({ joints: Float64Array.of(0, 0, 0, 0, 1, 0), bones: Uint32Array.of(0, 1) }, 'look.tgf');
  const vertexCount = obj.mesh.positions.length / 3;
  const weights = { rows: vertexCount, cols: 1, data: new Float64Array(vertexCount).fill(1) };
  const { bytes, warnings } = await exportGltf(
    { mesh: obj.mesh, skeleton, weights, parts: parts[0], look, objCorners: obj.corners ?? undefined, name: 'look' },
    'look.glb',
  );
  return { bytes, warnings, lookWarnings };
}

/** The GLB's JSON chunk, parsed as any reader would. */
function glbJson(bytes: Uint8Array): {
  materials: {
    name: string;
    pbrMetallicRoughness: { baseColorFactor?: number[]; metallicFactor?: number; roughnessFactor?: number; baseColorTexture?: object };
    alphaMode?: string;
    alphaCutoff?: number;
    doubleSided?: boolean;
    emissiveFactor?: number[];
    emissiveTexture?: object;
    normalTexture?: { scale?: number };
  }[];
} {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = view.getUint32(12, true);
  return JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + length))) as ReturnType<typeof glbJson>;
}

test("OBJ → glTF: the MTL's Pm, Pr, d, map_Bump (-bm), Ke, map_Ke and texture alpha are the materials written; the rest is a notice", async () => {
  const { bytes, warnings, lookWarnings } = await exportedObj();
  assert.deepEqual(warnings, []);
  assert.deepEqual(lookWarnings, [
    "look.mtl: material 'Cutout': map_Pr 'rough.png' is not kept (glTF packs roughness and metallic into one image); the material uses roughness 0.7 and metallic 0",
    "look.mtl: material 'Glow': its map_d image 'rough.png' is not kept: glTF takes alpha from the base colour image only",
  ]);
  await assertValidGltf(bytes, 'look.glb');
  const json = glbJson(bytes);
  assert.deepEqual(
    json.materials.map((m) => m.name),
    Object.keys(EXPECTED),
  );
  for (const m of json.materials) {
    const expected = EXPECTED[m.name];
    const pbr = m.pbrMetallicRoughness;
    close(pbr.baseColorFactor ?? [1, 1, 1, 1], expected.baseColor, `${m.name} baseColorFactor`);
    // As a reader sees them, with glTF's defaults (1: metal, fully rough) where the file leaves them out: glTF-Transform
    // leaves out a factor equal to its default, so only metallic 0 tells that it was written.
    close([pbr.metallicFactor ?? 1, pbr.roughnessFactor ?? 1], [expected.metallic, expected.roughness], `${m.name} metallic, roughness`);
    assert.equal(m.alphaMode ?? 'OPAQUE', expected.alphaMode, `${m.name} alphaMode`);
    if (expected.alphaMode === 'MASK') assert.equal(m.alphaCutoff ?? 0.5, 0.5, `${m.name} alphaCutoff`);
    assert.equal(m.doubleSided ?? false, false, `${m.name}: OBJ says nothing of culling: single-sided`);
    close(m.emissiveFactor ?? [0, 0, 0], expected.emissive, `${m.name} emissiveFactor`);
    assert.equal(m.emissiveTexture !== undefined, expected.emissiveTexture, `${m.name} emissiveTexture`);
    assert.equal(pbr.baseColorTexture !== undefined, expected.baseColorTexture, `${m.name} baseColorTexture`);
    assert.equal(m.normalTexture ? (m.normalTexture.scale ?? 1) : null, expected.normalScale, `${m.name} normalTexture.scale`);
  }
  // The normal-mapped quad lies in z = 0 with u along +x and the OBJ's v (up the image) along +y: tangent +x, and
  // cross(normal +z, tangent) = +y is the way up the image, so w = +1. Meshes without a normal map have no tangents.
  const meshes = (await new WebIO().readBinary(bytes)).getRoot().listMeshes();
  for (const mesh of meshes) {
    const tangents = mesh.listPrimitives()[0].getAttribute('TANGENT');
    assert.equal(tangents !== null, mesh.getName() === 'Metal', `${mesh.getName()}: tangents only with a normal map`);
    if (!tangents) continue;
    for (let v = 0; v < tangents.getCount(); v++) close(tangents.getElement(v, []), [1, 0, 0, 1], `Metal tangent ${v}`);
  }
});

test("OBJ → glTF: three.js's GLTFLoader reads the exported materials with the same factors, alpha and maps", async () => {
  const { bytes } = await exportedObj();
  // GLTFLoader decodes images with the page's createImageBitmap (and finds URL on `self`), which Node lacks: a
  // stand-in gives each image its size only, enough for the loader to make its textures; the factors and modes are
  // read from the file as written.
  const globals = globalThis as { createImageBitmap?: unknown; self?: unknown };
  const saved = { createImageBitmap: globals.createImageBitmap, self: globals.self };
  globals.createImageBitmap = async () => ({ width: 4, height: 4, close() {} });
  globals.self = globalThis;
  let gltf: GLTF;
  try {
    gltf = await new Promise<GLTF>((resolve, reject) => {
      const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
      new GLTFLoader().parse(buffer, '', resolve, reject);
    });
  } finally {
    globals.createImageBitmap = saved.createImageBitmap;
    globals.self = saved.self;
  }
  const materials = new Map<string, THREE.MeshStandardMaterial>();
  gltf.scene.traverse((o) => {
    if (o instanceof THREE.Mesh) {
      const material = o.material as THREE.MeshStandardMaterial;
      materials.set(material.name, material);
    }
  });
  assert.deepEqual([...materials.keys()].sort(), Object.keys(EXPECTED).sort());
  for (const [name, material] of materials) {
    const expected = EXPECTED[name];
    assert.ok(material instanceof THREE.MeshStandardMaterial, `${name}: a MeshStandardMaterial`);
    close([material.metalness, material.roughness], [expected.metallic, expected.roughness], `${name} metalness, roughness`);
    // three.js's colours are linear here (the factor is linear in glTF and in three.js's working space).
    close([material.color.r, material.color.g, material.color.b, material.opacity], expected.baseColor, `${name} colour and opacity`);
    assert.equal(material.transparent, expected.alphaMode === 'BLEND', `${name}: transparent only for BLEND`);
    assert.equal(material.alphaTest, expected.alphaMode === 'MASK' ? 0.5 : 0, `${name}: alphaTest only for MASK`);
    assert.equal(material.side, THREE.FrontSide, `${name}: single-sided`);
    close([material.emissive.r, material.emissive.g, material.emissive.b], expected.emissive, `${name} emissive`);
    assert.equal(material.emissiveMap !== null, expected.emissiveTexture, `${name} emissiveMap`);
    assert.equal(material.map !== null, expected.baseColorTexture, `${name} map`);
    assert.equal(material.normalMap !== null, expected.normalScale !== null, `${name} normalMap`);
    if (expected.normalScale !== null)
      close([material.normalScale.x, material.normalScale.y], [expected.normalScale, expected.normalScale], `${name} normalScale`);
  }
});

test('OBJ look: the project file keeps metallic, roughness, emission and the normal map', async () => {
  const obj = readObj(objText(), 'look.obj');
  const { look, parts } = objLook(
    [{ name: 'look.obj', materials: obj.materials, materialLibraries: obj.materialLibraries, parts: obj.parts }],
    materialFiles(),
  );
  assert.ok(look && parts?.[0], 'a look');
  const skeleton = buildSkeleton({ joints: Float64Array.of(0, 0, 0, 0, 1, 0), bones: Uint32Array.of(0, 1) }, 'look.tgf');
  const vertexCount = obj.mesh.positions.length / 3;
  const weights = { rows: vertexCount, cols: 1, data: new Float64Array(vertexCount).fill(1) };
  const contents = projectContents({
    name: 'look.obj',
    mesh: obj.mesh,
    skeletonFile: 'look.tgf',
    skeleton,
    boneNames: ['bone'],
    weights,
    weightsSource: 'look',
    parts: parts[0],
    look,
  });
  const saved = await writeProjectFile(contents, 'look.rig.glb');
  assert.deepEqual(readProjectFile(saved, 'look.rig.glb').scene.look, look);
});

const noBlender = blenderMissing("the check of OBJ materials against Blender's OBJ importer");

test(
  "OBJ look: metallic, roughness, alpha, normal and emission maps as Blender's own OBJ importer reads the same files",
  { skip: noBlender ? 'blender is not installed' : false },
  () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'rigwright-obj-pbr-'));
    writeFileSync(path.join(dir, 'look.obj'), objText());
    for (const file of materialFiles()) writeFileSync(path.join(dir, file.name), file.bytes);
    const report = blenderReport<{
      materials: Record<
        string,
        {
          metallic: number;
          roughness: number;
          alpha: number;
          blend: string;
          normalMap: boolean;
          emissionMap: boolean;
        }
      >;
    }>(path.join(repoRoot, 'test/blender/inspect-obj-materials.py'), [path.join(dir, 'look.obj')]);
    const obj = readObj(objText(), 'look.obj');
    const { look } = objLook(
      [{ name: 'look.obj', materials: obj.materials, materialLibraries: obj.materialLibraries, parts: obj.parts }],
      materialFiles(),
    );
    assert.ok(look, 'a look');
    assert.deepEqual(Object.keys(report.materials).sort(), Object.keys(EXPECTED).sort());
    for (const ours of look.materials) {
      const blender = report.materials[ours.name];
      close([ours.metallic ?? 0, ours.roughness ?? 1], [blender.metallic, blender.roughness], `${ours.name}: ours against Blender's`);
      assert.equal(ours.baseColor[3], blender.alpha, `${ours.name}: alpha`);
      // Blender blends for d < 1 and for an alpha image. Where we differ, on purpose: a colour image's own alpha Blender
      // ignores, where ours is a cutout (Cutout); an alpha image other than the colour image glTF cannot hold, so
      // ours stays opaque with a notice (Glow).
      if (ours.name === 'Cutout') assert.equal(ours.alphaMode, 'MASK', 'Cutout: a colour image with alpha is a cutout here');
      else if (ours.name === 'Glow') assert.equal(ours.alphaMode, undefined, 'Glow: opaque, its map_d not kept');
      else assert.equal(ours.alphaMode === 'BLEND', blender.blend === 'BLEND', `${ours.name}: blended in both or in neither`);
      assert.equal(ours.normalTexture !== undefined, blender.normalMap, `${ours.name}: a normal map in both or in neither`);
      assert.equal(ours.emissiveTexture !== undefined, blender.emissionMap, `${ours.name}: an emission map in both or in neither`);
    }
  },
);

test('OBJ → glTF: a normal map on a mesh without texture coordinates gets (0, 0) ones with a notice, and tangents: still valid', async () => {
  const obj = readObj('mtllib n.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl Bumpy\nf 1 2 3\n', 'flat.obj');
  const { look, parts } = objLook(
    [{ name: 'flat.obj', materials: obj.materials, materialLibraries: obj.materialLibraries, parts: obj.parts }],
    [
      { name: 'n.mtl', bytes: new TextEncoder().encode('newmtl Bumpy\nmap_Bump normal.png\n') },
      { name: 'normal.png', bytes: NORMAL_PNG },
    ],
  );
  assert.ok(look && parts?.[0], 'a look');
  const skeleton = buildSkeleton({ joints: Float64Array.of(0, 0, 0, 0, 1, 0), bones: Uint32Array.of(0, 1) }, 'flat.tgf');
  const weights = { rows: 3, cols: 1, data: new Float64Array(3).fill(1) };
  const { bytes, warnings } = await exportGltf(
    { mesh: obj.mesh, skeleton, weights, parts: parts[0], look, objCorners: obj.corners ?? undefined, name: 'flat' },
    'flat.glb',
  );
  assert.deepEqual(warnings, ['mesh "flat": its material has a texture but the mesh has no texture coordinates; all are (0, 0)']);
  await assertValidGltf(bytes, 'flat.glb');
  const primitive = (await new WebIO().readBinary(bytes)).getRoot().listMeshes()[0].listPrimitives()[0];
  assert.ok(primitive.getAttribute('TEXCOORD_0') && primitive.getAttribute('TANGENT'), 'texture coordinates and tangents are written');
});
