/**
 * The Look view's bookkeeping without a GPU: which index ranges each part draws with which material (hand-derived
 * ranges for parts of one vertex list), the view cycle, and the materials and textures made from a SurfaceLook —
 * each image decoded once however many views show it, base colours as linear factors, textures as sRGB with glTF's
 * UV convention, problems named per material, nothing left on a material after its view is gone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as THREE from 'three';
import type { MaterialLook, MeshPart, SurfaceLook } from '../../workers/formats/types.ts';
import {
  applyAlphaMode,
  applySampling,
  textureTransformMatrix,
  ImageCache,
  LookMaterials,
  defaultMaterial,
  materialSlot,
  partDrawGroups,
  type ImageDecoder,
} from '../../renderer/view/surface-look.ts';
import { VIEW_MODES, nextViewMode } from '../../renderer/view/view-modes.ts';

function part(name: string, triangleStart: number, triangleCount: number, material: number): MeshPart {
  return { name, vertexStart: 0, vertexCount: 0, triangleStart, triangleCount, material, source: null, skinned: true };
}

test('one mesh without parts is one group with the default material', () => {
  assert.deepEqual(partDrawGroups(undefined, 7, 0), [{ start: 0, count: 21, materialIndex: 0 }]);
  assert.deepEqual(partDrawGroups([], 7, 3), [{ start: 0, count: 21, materialIndex: 0 }]);
  assert.deepEqual(partDrawGroups(undefined, 0, 0), []);
});

test('parts draw their own material slot; neighbours with the same slot merge; gaps and bad indices take the default', () => {
  // body: triangles 0–9 material 1; eyes: 10–11 material 0; teeth: 12–14 material 0 (merges with the eyes);
  // a part with material -1 (15–16) and one whose material the look lacks (17), then 18–19 covered by nothing.
  const parts = [part('teeth', 12, 3, 0), part('body', 0, 10, 1), part('eyes', 10, 2, 0), part('plain', 15, 2, -1), part('lost', 17, 1, 5)];
  assert.deepEqual(partDrawGroups(parts, 20, 2), [
    { start: 0, count: 30, materialIndex: 2 },
    { start: 30, count: 15, materialIndex: 1 },
    { start: 45, count: 15, materialIndex: 0 },
  ]);
  // A gap between parts is drawn with the default material; every triangle exactly once.
  const gapped = partDrawGroups([part('a', 0, 2, 0), part('b', 5, 3, 0)], 8, 1);
  assert.deepEqual(gapped, [
    { start: 0, count: 6, materialIndex: 1 },
    { start: 6, count: 9, materialIndex: 0 },
    { start: 15, count: 9, materialIndex: 1 },
  ]);
});

test('overlapping or out-of-range parts still draw every triangle once', () => {
  const groups = partDrawGroups([part('a', 0, 6, 0), part('b', 4, 6, 1), part('c', 9, 100, 0)], 12, 2);
  const drawn = new Uint8Array(12);
  for (const g of groups) for (let t = g.start / 3; t < (g.start + g.count) / 3; t++) drawn[t]++;
  assert.deepEqual(Array.from(drawn), new Array(12).fill(1));
  assert.deepEqual(groups, [
    { start: 0, count: 18, materialIndex: 1 },
    { start: 18, count: 12, materialIndex: 2 },
    { start: 30, count: 6, materialIndex: 1 },
  ]);
});

test('material slots: -1, fractions and missing materials are the default (0)', () => {
  assert.equal(materialSlot(-1, 3), 0);
  assert.equal(materialSlot(0, 3), 1);
  assert.equal(materialSlot(2, 3), 3);
  assert.equal(materialSlot(3, 3), 0);
  assert.equal(materialSlot(0.5, 3), 0);
});

test('V cycles through Look only when the scene has a look, and through Transfer match only after a transfer', () => {
  assert.deepEqual(VIEW_MODES, ['look', 'shaded', 'heatmap', 'dominant', 'handles', 'transfer']);
  assert.equal(nextViewMode('look', true), 'shaded');
  assert.equal(nextViewMode('handles', true), 'look');
  assert.equal(nextViewMode('handles', false), 'shaded');
  assert.equal(nextViewMode('shaded', false), 'heatmap');
  assert.equal(nextViewMode('handles', false, true), 'transfer');
  assert.equal(nextViewMode('transfer', true, true), 'look');
  assert.equal(nextViewMode('transfer', false, false), 'shaded', 'the transfer view left once the transfer is gone');
});

/** A decoder that records its calls and resolves when told (or fails for mime type image/broken). */
function fakeDecoder() {
  const calls: { bytes: Uint8Array; mimeType: string }[] = [];
  const waiting: (() => void)[] = [];
  const decode: ImageDecoder = (bytes, mimeType) => {
    calls.push({ bytes, mimeType });
    return new Promise((resolve, reject) =>
      waiting.push(() =>
        mimeType === 'image/broken'
          ? reject(new Error('not an image'))
          : resolve({ width: bytes[0], height: bytes[1] } as unknown as TexImageSource),
      ),
    );
  };
  return { decode, calls, release: () => waiting.splice(0).forEach((go) => go()) };
}

function lookOf(uvs: boolean): SurfaceLook {
  const skin = new Uint8Array([4, 2, 9]);
  return {
    uvs: uvs ? new Float32Array([0, 0, 1, 0, 0, 1]) : null,
    materials: [
      { name: 'skin', baseColor: [0.5, 0.25, 1, 1], baseColorTexture: { bytes: skin, mimeType: 'image/png' }, doubleSided: false },
      { name: 'cloth', baseColor: [0.2, 0.4, 0.6, 1], baseColorTexture: null, doubleSided: true },
      // the same image as skin's (another material using it): decoded once
      { name: 'skin again', baseColor: [1, 1, 1, 1], baseColorTexture: { bytes: skin, mimeType: 'image/png' }, doubleSided: false },
      {
        name: 'broken',
        baseColor: [1, 1, 1, 1],
        baseColorTexture: { bytes: new Uint8Array([1, 1]), mimeType: 'image/broken' },
        doubleSided: false,
      },
    ],
  };
}

test('materials: slot 0 the default, then base colour (linear) × texture (sRGB, no flip), each image decoded once', async () => {
  const decoder = fakeDecoder();
  const images = new ImageCache(decoder.decode);
  const fallback = defaultMaterial();
  const prepared: THREE.Material[] = [];
  let changes = 0;
  const look = lookOf(true);
  const first = new LookMaterials(
    look,
    fallback,
    images,
    (m) => prepared.push(m),
    () => changes++,
  );
  // A second view of the same scene (the split view) shares the decoded images.
  const second = new LookMaterials(
    look,
    fallback,
    images,
    () => {},
    () => {},
  );
  assert.equal(first.materials.length, 5);
  assert.equal(first.materials[0], fallback);
  assert.deepEqual(prepared, first.materials.slice(1), 'every own material is prepared before use');
  assert.deepEqual(first.materials[1].color.toArray(), [0.5, 0.25, 1]);
  assert.deepEqual(first.materials[2].color.toArray(), [0.2, 0.4, 0.6]);
  assert.equal(first.materials[1].side, THREE.FrontSide);
  assert.equal(first.materials[2].side, THREE.DoubleSide);
  assert.equal(first.materials[1].name, 'skin');
  assert.equal(first.textured(1), false, 'no texture before its image is decoded');
  assert.equal(decoder.calls.length, 2, 'skin and broken: one decode per distinct image bytes');
  assert.equal(images.decodes, 2);

  decoder.release();
  await first.ready;
  await second.ready;
  for (const view of [first, second]) {
    const map = view.materials[1].map!;
    assert.ok(map, 'the skin material has its texture');
    assert.equal(map.colorSpace, THREE.SRGBColorSpace);
    assert.equal(map.flipY, false);
    assert.equal(map.wrapS, THREE.RepeatWrapping);
    assert.deepEqual(map.image, { width: 4, height: 2 });
    assert.equal(view.materials[3].map!.image, map.image, 'two materials, one image');
    assert.equal(view.textured(2), false, 'cloth has no texture');
    assert.equal(view.textured(4), false, 'an image that does not decode leaves the base colour');
    assert.equal(view.problems.length, 1);
    assert.match(view.problems[0], /^material broken: its image\/broken texture could not be decoded \(not an image\)$/);
  }
  assert.equal(first.materials[1].map === second.materials[1].map, false, 'each view has its own texture object');
  assert.equal(changes, 2, 'each texture that arrives asks for a redraw');

  let disposed = 0;
  for (const m of first.materials) m.addEventListener('dispose', () => disposed++);
  const map = first.materials[1].map!;
  let mapDisposed = false;
  map.addEventListener('dispose', () => (mapDisposed = true));
  first.dispose();
  assert.equal(disposed, 4, 'the view disposes its own materials, not the shared default one');
  assert.equal(mapDisposed, true);
});

test('a look without texture coordinates shows base colours and says why the texture is not shown', async () => {
  const decoder = fakeDecoder();
  const view = new LookMaterials(
    lookOf(false),
    defaultMaterial(),
    new ImageCache(decoder.decode),
    () => {},
    () => {},
  );
  await view.ready;
  assert.equal(decoder.calls.length, 0);
  assert.deepEqual(
    view.problems.filter((p) => p.startsWith('material skin:')),
    ['material skin: its texture is not shown, the mesh has no texture coordinates'],
  );
  assert.ok(
    view.materials.every((m) => m.map === null),
    'no material shows a texture',
  );
});

test('a view disposed before its images arrive puts no texture on its materials', async () => {
  const decoder = fakeDecoder();
  let changes = 0;
  const view = new LookMaterials(
    lookOf(true),
    defaultMaterial(),
    new ImageCache(decoder.decode),
    () => {},
    () => changes++,
  );
  view.dispose();
  decoder.release();
  await view.ready;
  assert.ok(
    view.materials.every((m) => m.map === null),
    'a view disposed before its images decode shows no texture',
  );
  assert.equal(changes, 0);
});

/** uv through a three.js uv matrix, as the shader does: (M · (u, v, 1)).xy */
function mapUv(matrix: THREE.Matrix3, u: number, v: number): [number, number] {
  const p = new THREE.Vector3(u, v, 1).applyMatrix3(matrix);
  return [p.x, p.y];
}

function assertClose(actual: readonly number[], expected: readonly number[], what: string): void {
  assert.equal(actual.length, expected.length, what);
  actual.forEach((a, i) => assert.ok(Math.abs(a - expected[i]) < 1e-12, `${what}: [${actual.join(', ')}] vs [${expected.join(', ')}]`));
}

test('KHR_texture_transform: the extension’s own example (lower left quadrant, turned) and T·R·S, not three.js’s S·R', () => {
  // KHR_texture_transform's example: offset (0, 1), rotation π/2, scale 0.5 shows only the image's lower left
  // quadrant (v runs down): uv' = (v / 2, 1 − u / 2).
  const example = textureTransformMatrix({ offset: [0, 1], rotation: Math.PI / 2, scale: [0.5, 0.5] });
  for (const [u, v] of [
    [0, 0],
    [1, 0],
    [0, 1],
    [1, 1],
    [0.25, 0.75],
  ])
    assertClose(mapUv(example, u, v), [v / 2, 1 - u / 2], `example at ${u},${v}`);
  // Offset 0.5, scale 2, rotation 90°: u' = 2v + 0.5, v' = −2u + 0.5.
  assertClose(mapUv(textureTransformMatrix({ offset: [0.5, 0.5], rotation: Math.PI / 2, scale: [2, 2] }), 0.25, 0.125), [0.75, 0], '90°');
  // With a uniform scale three.js's own offset/repeat/rotation (centre 0) give the same matrix: a second construction.
  const three = new THREE.Matrix3().setUvTransform(0.3, -0.2, 1.5, 1.5, 0.7, 0, 0);
  assertClose(textureTransformMatrix({ offset: [0.3, -0.2], rotation: 0.7, scale: [1.5, 1.5] }).elements, three.elements, 'uniform scale');
  // Not with a non-uniform one: glTF scales first, then rotates (R · S); three.js's repeat comes after its rotation.
  const glTF = textureTransformMatrix({ offset: [0, 0], rotation: Math.PI / 2, scale: [2, 1] });
  assertClose(mapUv(glTF, 1, 0), [0, -2], 'R · S takes (1, 0) to (2, 0) then turns it');
  assertClose(mapUv(new THREE.Matrix3().setUvTransform(0, 0, 2, 1, Math.PI / 2, 0, 0), 1, 0), [0, -1], 'S · R differs');
});

function materialLook(extra: Partial<MaterialLook>): MaterialLook {
  return { name: 'm', baseColor: [1, 1, 1, 0.25], baseColorTexture: null, doubleSided: false, ...extra };
}

test('alpha modes on the three.js material: OPAQUE ignores alpha, MASK tests against the cutoff, BLEND blends without depth writes', () => {
  const state = (look: MaterialLook) => {
    const material = new THREE.MeshStandardMaterial();
    applyAlphaMode(material, look);
    return [material.opacity, material.transparent, material.alphaTest, material.depthWrite];
  };
  // Opacity carries the factor's alpha in every mode; three.js writes alpha 1 for a material that is not transparent.
  assert.deepEqual(state(materialLook({})), [0.25, false, 0, true]);
  assert.deepEqual(state(materialLook({ alphaMode: 'OPAQUE', alphaCutoff: 0.9 })), [0.25, false, 0, true]);
  assert.deepEqual(state(materialLook({ alphaMode: 'MASK' })), [0.25, false, 0.5, true]);
  assert.deepEqual(state(materialLook({ alphaMode: 'MASK', alphaCutoff: 0.3 })), [0.25, false, 0.3, true]);
  assert.deepEqual(state(materialLook({ alphaMode: 'BLEND', alphaCutoff: 0.3 })), [0.25, true, 0, false]);
});

test('samplers on the texture: wrap modes, filters, mipmaps only for a mipmap filter; the transform as a fixed matrix', () => {
  const sampled = (look: MaterialLook) => {
    const texture = new THREE.Texture();
    applySampling(texture, look);
    return texture;
  };
  const plain = sampled(materialLook({}));
  assert.deepEqual(
    [plain.wrapS, plain.wrapT, plain.magFilter, plain.minFilter, plain.generateMipmaps, plain.matrixAutoUpdate],
    [THREE.RepeatWrapping, THREE.RepeatWrapping, THREE.LinearFilter, THREE.LinearMipmapLinearFilter, true, true],
  );
  const rows: [number, number, number | null, number | null, unknown[]][] = [
    [33071, 33648, 9728, 9728, [THREE.ClampToEdgeWrapping, THREE.MirroredRepeatWrapping, THREE.NearestFilter, THREE.NearestFilter, false]],
    [10497, 33071, 9729, 9729, [THREE.RepeatWrapping, THREE.ClampToEdgeWrapping, THREE.LinearFilter, THREE.LinearFilter, false]],
    [
      33648,
      10497,
      null,
      9984,
      [THREE.MirroredRepeatWrapping, THREE.RepeatWrapping, THREE.LinearFilter, THREE.NearestMipmapNearestFilter, true],
    ],
    [10497, 10497, 9728, 9985, [THREE.RepeatWrapping, THREE.RepeatWrapping, THREE.NearestFilter, THREE.LinearMipmapNearestFilter, true]],
    [10497, 10497, 9729, 9986, [THREE.RepeatWrapping, THREE.RepeatWrapping, THREE.LinearFilter, THREE.NearestMipmapLinearFilter, true]],
    [10497, 10497, null, 9987, [THREE.RepeatWrapping, THREE.RepeatWrapping, THREE.LinearFilter, THREE.LinearMipmapLinearFilter, true]],
  ];
  for (const [wrapS, wrapT, magFilter, minFilter, expected] of rows) {
    const t = sampled(materialLook({ sampler: { wrapS, wrapT, magFilter, minFilter } }));
    assert.deepEqual(
      [t.wrapS, t.wrapT, t.magFilter, t.minFilter, t.generateMipmaps],
      expected,
      `${wrapS} ${wrapT} ${magFilter} ${minFilter}`,
    );
  }
  const transform = { offset: [0.5, 0.25] as [number, number], rotation: 1, scale: [2, 3] as [number, number] };
  const moved = sampled(materialLook({ textureTransform: transform }));
  assert.equal(moved.matrixAutoUpdate, false, 'three.js must not rebuild the matrix from offset/repeat/rotation');
  // As three.js's renderer refreshes the map's uniform (WebGLMaterials: updateMatrix only when matrixAutoUpdate).
  if (moved.matrixAutoUpdate) moved.updateMatrix();
  assertClose(moved.matrix.elements, textureTransformMatrix(transform).elements, 'the texture holds the transform');
});
