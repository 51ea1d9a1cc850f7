/**
 * The Look view's bookkeeping without a GPU: which index ranges each part draws with which material (hand-derived
 * ranges for parts of one vertex list), the view cycle, and the materials and textures made from a SurfaceLook —
 * each image decoded once however many views show it, base colours as linear factors, textures as sRGB with glTF's
 * UV convention, problems named per material, nothing left on a material after its view is gone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as THREE from 'three';
import type { MeshPart, SurfaceLook } from '../../workers/formats/types.ts';
import {
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

test('V cycles through Look only when the scene has a look', () => {
  assert.deepEqual(VIEW_MODES, ['look', 'shaded', 'heatmap', 'dominant', 'handles']);
  assert.equal(nextViewMode('look', true), 'shaded');
  assert.equal(nextViewMode('handles', true), 'look');
  assert.equal(nextViewMode('handles', false), 'shaded');
  assert.equal(nextViewMode('shaded', false), 'heatmap');
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
  assert.ok(view.materials.every((m) => m.map === null));
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
  assert.ok(view.materials.every((m) => m.map === null));
  assert.equal(changes, 0);
});
