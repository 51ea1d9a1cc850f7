/**
 * The Look view honours glTF's alpha coverage, KHR_texture_transform and samplers, in Chromium on SwiftShader. A
 * generated asset holds ten one-quad meshes facing the camera, each with its own material over small known textures:
 * a four-colour texture whose quadrants also have four alphas (1, 0.78, 0.25, 0), and a two-texel-wide one. Every
 * expected colour is derived here from glTF's rules (alpha coverage §3.9.4, the sampler's wrap modes, the
 * extension's T · R · S), from the texture's own texels and from two pixels the app draws without our materials:
 * the same point in the plain shading (how it is lit) and with every mesh hidden (the background).
 */
import { test, expect, type Page } from '@playwright/test';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tmpdir } from 'node:os';
import { Document, NodeIO, type Material, type Texture } from '@gltf-transform/core';
import { KHRTextureTransform } from '@gltf-transform/extensions';
import { artifactsDir, openApp } from './app-driver.ts';
import { litColour, lookAndShaded, openInLook, projectAll, quadrantPng, rgbDistance, texelAlbedo } from './look-pixels.ts';
import { png } from '../unit/png-file.ts';

/** The quadrants' sRGB colours and alphas (0–255): top left, top right, bottom left, bottom right. */
const QUADRANTS = [
  [230, 40, 40, 255],
  [40, 200, 60, 200],
  [40, 80, 220, 64],
  [240, 200, 30, 0],
];
/** The two-texel-wide texture's columns (sRGB, opaque): left, right. */
const COLUMNS = [
  [200, 40, 40],
  [40, 40, 200],
];

type Wrap = 'REPEAT' | 'CLAMP_TO_EDGE' | 'MIRRORED_REPEAT';
const WRAP_ENUM: Record<Wrap, 10497 | 33071 | 33648> = { REPEAT: 10497, CLAMP_TO_EDGE: 33071, MIRRORED_REPEAT: 33648 };

interface Quad {
  name: string;
  texture: 'quadrants' | 'columns';
  alphaMode?: 'OPAQUE' | 'MASK' | 'BLEND';
  alphaCutoff?: number;
  /** base colour factor's alpha */
  alpha?: number;
  wrap?: Wrap;
  filter?: 'NEAREST' | 'LINEAR';
  transform?: { offset: [number, number]; rotation: number; scale: [number, number] };
  /** texture coordinates run from lo to hi across the quad (left to right, top to bottom) */
  uv?: [number, number];
}

const QUADS: Quad[] = [
  { name: 'opaque', texture: 'quadrants', alphaMode: 'OPAQUE' },
  { name: 'mask', texture: 'quadrants', alphaMode: 'MASK' },
  // alpha = 0.8 × the texel's: only the top left quadrant (0.8) reaches 0.7; the top right's 0.63 does not.
  { name: 'mask 0.7', texture: 'quadrants', alphaMode: 'MASK', alphaCutoff: 0.7, alpha: 0.8 },
  { name: 'blend', texture: 'quadrants', alphaMode: 'BLEND' },
  { name: 'transform', texture: 'quadrants', transform: { offset: [0.5, 0.5], rotation: Math.PI / 2, scale: [2, 1] } },
  { name: 'repeat', texture: 'quadrants', wrap: 'REPEAT', uv: [-0.5, 1.5] },
  { name: 'clamp', texture: 'quadrants', wrap: 'CLAMP_TO_EDGE', uv: [-0.5, 1.5] },
  { name: 'mirrored', texture: 'quadrants', wrap: 'MIRRORED_REPEAT', uv: [-0.5, 1.5] },
  { name: 'nearest', texture: 'columns', wrap: 'CLAMP_TO_EDGE', filter: 'NEAREST' },
  { name: 'linear', texture: 'columns', wrap: 'CLAMP_TO_EDGE', filter: 'LINEAR' },
];

/** Quad q's top left corner in the world (z = 0): five columns, two rows, 1 unit wide, 0.25 apart. */
function corner(q: number): [number, number] {
  return [-3 + 1.25 * (q % 5), 1.75 - 1.25 * Math.floor(q / 5)];
}

/** The generated asset: the ten quads on one skin (all bound to the root joint; rest pose, no clip). */
async function lookAsset(): Promise<Uint8Array> {
  const doc = new Document();
  const buffer = doc.createBuffer();
  const accessor = (type: 'SCALAR' | 'VEC2' | 'VEC3' | 'VEC4' | 'MAT4', array: Float32Array | Uint16Array | Uint8Array) =>
    doc.createAccessor().setType(type).setArray(array).setBuffer(buffer);
  const transforms = doc.createExtension(KHRTextureTransform);
  const hips = doc.createNode('hips');
  const top = doc.createNode('top').setTranslation([0, 1, 0]);
  hips.addChild(top);
  const skin = doc
    .createSkin('skin')
    .addJoint(hips)
    .addJoint(top)
    .setInverseBindMatrices(
      accessor('MAT4', Float32Array.of(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1)),
    );
  const columns = Uint8Array.of(...COLUMNS[0], 255, ...COLUMNS[1], 255, ...COLUMNS[0], 255, ...COLUMNS[1], 255);
  const textures: Record<Quad['texture'], Texture> = {
    quadrants: doc.createTexture('quadrants').setImage(quadrantPng(QUADRANTS)).setMimeType('image/png'),
    columns: doc
      .createTexture('columns')
      .setImage(png(2, 2, columns))
      .setMimeType('image/png'),
  };
  const scene = doc.createScene('scene').addChild(hips);
  QUADS.forEach((quad, q) => {
    const material: Material = doc
      .createMaterial(quad.name)
      .setBaseColorFactor([1, 1, 1, quad.alpha ?? 1])
      .setAlphaMode(quad.alphaMode ?? 'OPAQUE')
      .setBaseColorTexture(textures[quad.texture]);
    if (quad.alphaCutoff !== undefined) material.setAlphaCutoff(quad.alphaCutoff);
    const info = material.getBaseColorTextureInfo()!;
    if (quad.wrap) info.setWrapS(WRAP_ENUM[quad.wrap]).setWrapT(WRAP_ENUM[quad.wrap]);
    if (quad.filter) {
      const filter = quad.filter === 'NEAREST' ? 9728 : 9729;
      info.setMagFilter(filter).setMinFilter(filter);
    }
    if (quad.transform)
      info.setExtension(
        'KHR_texture_transform',
        transforms.createTransform().setOffset(quad.transform.offset).setRotation(quad.transform.rotation).setScale(quad.transform.scale),
      );
    const [x0, y0] = corner(q);
    const [lo, hi] = quad.uv ?? [0, 1];
    // Corners: top left, top right, bottom right, bottom left; v runs down the quad as it runs down the image.
    const positions = Float32Array.of(x0, y0, 0, x0 + 1, y0, 0, x0 + 1, y0 - 1, 0, x0, y0 - 1, 0);
    const uvs = Float32Array.of(lo, lo, hi, lo, hi, hi, lo, hi);
    const primitive = doc
      .createPrimitive()
      .setAttribute('POSITION', accessor('VEC3', positions))
      .setAttribute('TEXCOORD_0', accessor('VEC2', uvs))
      .setAttribute('JOINTS_0', accessor('VEC4', new Uint8Array(16)))
      .setAttribute('WEIGHTS_0', accessor('VEC4', Float32Array.of(1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0)))
      .setIndices(accessor('SCALAR', Uint16Array.of(0, 3, 2, 0, 2, 1)))
      .setMaterial(material);
    scene.addChild(doc.createNode(quad.name).setMesh(doc.createMesh(quad.name).addPrimitive(primitive)).setSkin(skin));
  });
  return new NodeIO().registerExtensions([KHRTextureTransform]).writeBinary(doc);
}

/** glTF's wrap modes on one coordinate (OpenGL's definitions of REPEAT, CLAMP_TO_EDGE, MIRRORED_REPEAT). */
function wrap(c: number, mode: Wrap): number {
  if (mode === 'REPEAT') return c - Math.floor(c);
  if (mode === 'CLAMP_TO_EDGE') return Math.min(1, Math.max(0, c));
  const m = c - 2 * Math.floor(c / 2);
  return m <= 1 ? m : 2 - m;
}

/** KHR_texture_transform on uv, built the way the extension composes it: scale, then rotate, then offset. */
function gltfTransform(t: NonNullable<Quad['transform']>, u: number, v: number): [number, number] {
  const [su, sv] = [t.scale[0] * u, t.scale[1] * v];
  // R = [cos r, sin r; −sin r, cos r] (rows): the extension's example turns uv ∈ [0, 1]² into the lower left quadrant.
  const [ru, rv] = [Math.cos(t.rotation) * su + Math.sin(t.rotation) * sv, -Math.sin(t.rotation) * su + Math.cos(t.rotation) * sv];
  return [ru + t.offset[0], rv + t.offset[1]];
}

/** three.js's own offset/repeat/rotation order (S · R), the control that must miss where the scale is not uniform. */
function threeOrder(t: NonNullable<Quad['transform']>, u: number, v: number): [number, number] {
  const [c, s] = [Math.cos(t.rotation), Math.sin(t.rotation)];
  return [t.scale[0] * (c * u + s * v) + t.offset[0], t.scale[1] * (-s * u + c * v) + t.offset[1]];
}

interface Sample {
  quad: number;
  /** the point in the quad: a from its left, b from its top, both in [0, 1] */
  a: number;
  b: number;
  x: number;
  y: number;
  /** the texture coordinates there, as the mesh has them (before transform and wrap) */
  raw: [number, number];
  /** the texture's uv after transform and wrap */
  uv: [number, number];
}

/** Quadrant index (0 top left … 3 bottom right) at a wrapped uv. */
const quadrantAt = (u: number, v: number) => 2 * (v >= 0.5 ? 1 : 0) + (u >= 0.5 ? 1 : 0);

/**
 * Points on a 9 × 9 grid inside each quad where the texture is flat: the wrapped uv at least 0.1 away from a
 * quadrant edge (and, where the texture repeats, from the wrap), so filtering and mipmaps cannot mix quadrants.
 */
function samplePoints(camera: { viewProjection: number[]; left: number; top: number; width: number; height: number }, quads: number[]) {
  const samples: Sample[] = [];
  for (const q of quads) {
    const quad = QUADS[q];
    const [x0, y0] = corner(q);
    const [lo, hi] = quad.uv ?? [0, 1];
    const mode = quad.wrap ?? 'REPEAT';
    const edges = mode === 'REPEAT' ? [0, 0.5, 1] : [0.5];
    for (let j = 0; j < 9; j++)
      for (let i = 0; i < 9; i++) {
        const [a, b] = [0.1 + 0.1 * i, 0.1 + 0.1 * j];
        const raw: [number, number] = [lo + (hi - lo) * a, lo + (hi - lo) * b];
        const [u, v] = quad.transform ? gltfTransform(quad.transform, ...raw) : raw;
        const uv: [number, number] = [wrap(u, mode), wrap(v, mode)];
        if (!uv.every((w) => edges.every((e) => Math.abs(w - e) >= 0.1))) continue;
        const p = projectAll(camera, [x0 + a, y0 - b, 0]);
        samples.push({ quad: q, a, b, x: p[0], y: p[1], raw, uv });
      }
  }
  return samples;
}

/**
 * How far (sRGB 0–255) a lit texel may be from `lit`'s prediction: the prediction scales the plain shading's whole
 * pixel by albedo / default albedo, its specular part too, which the renderer does not scale; bright, saturated
 * texels (the yellow quadrant) leave up to about 6.5 over. Quadrant colours are ≥ 40 apart.
 */
const TOLERANCE = 8;

async function openLookAsset(page: Page, errors: string[]): Promise<void> {
  await openApp(page, errors, { paused: true });
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'rigwright-look-alpha-')), 'look-alpha.glb');
  writeFileSync(file, await lookAsset());
  await openInLook(page, file, 'look-alpha.glb');
  const look = await page.evaluate(() => (window as any).__rigwright.look.state());
  expect(look.view).toBe('look');
  expect(look.problems).toEqual([]);
  expect(look.materials.map((m: { name: string; textured: boolean }) => [m.name, m.textured])).toEqual(QUADS.map((q) => [q.name, true]));
}

/** The Look pixels at the points, then the plain shading's and the background's (every mesh hidden) at the same points. */
async function threePixelSets(page: Page, points: { x: number; y: number }[]) {
  const pixels = (): Promise<number[][]> => page.evaluate((a) => (window as any).__rigwright.look.pixels(a), points);
  const { look, shaded } = await lookAndShaded(page, points);
  const toggleAll = () =>
    page.evaluate((n) => {
      for (let i = 0; i < n; i++) (window as any).__rigwright.command('meshes.toggle', i);
    }, QUADS.length);
  await toggleAll();
  const background = await pixels();
  await toggleAll();
  expect(await pixels(), 'shown again, the same Look pixels').toEqual(look);
  return { look, shaded, background };
}

test('alpha coverage: OPAQUE ignores alpha, MASK cuts texels below the cutoff out to the background, BLEND mixes with it', async ({
  page,
}) => {
  const errors: string[] = [];
  await openLookAsset(page, errors);
  const camera = await page.evaluate(() => (window as any).__rigwright.look.camera());
  const samples = samplePoints(camera, [0, 1, 2, 3]);
  const { look, shaded, background } = await threePixelSets(page, samples);
  mkdirSync(artifactsDir, { recursive: true });
  await page.screenshot({ path: path.join(artifactsDir, 'look-alpha.png') });

  const worst: Record<string, number> = {};
  const counts: Record<string, number> = {};
  const note = (kind: string, error: number) => {
    worst[kind] = Math.max(worst[kind] ?? 0, error);
    counts[kind] = (counts[kind] ?? 0) + 1;
  };
  samples.forEach((s, i) => {
    const quad = QUADS[s.quad];
    const texel = QUADRANTS[quadrantAt(...s.uv)];
    const opaque = litColour(shaded[i], texelAlbedo(texel));
    const bg = background[i];
    // The background must differ from the texel's colour for the check to tell them apart.
    expect(rgbDistance(opaque, bg), `${quad.name} at ${s.uv.join(',')}: texel and background differ`).toBeGreaterThan(40);
    const alpha = (quad.alpha ?? 1) * (texel[3] / 255);
    let expected: number[];
    let kind: string;
    if (quad.alphaMode === 'OPAQUE') [expected, kind] = [opaque, 'opaque'];
    else if (quad.alphaMode === 'MASK') [expected, kind] = alpha >= (quad.alphaCutoff ?? 0.5) ? [opaque, 'mask kept'] : [bg, 'mask cut'];
    else [expected, kind] = [[0, 1, 2].map((c) => alpha * opaque[c] + (1 - alpha) * bg[c]), `blend ${alpha.toFixed(2)}`];
    const error = rgbDistance(look[i], expected);
    note(kind, error);
    expect(
      error,
      `${quad.name} at uv ${s.uv.map((c) => c.toFixed(2)).join(',')}: rendered ${look[i].slice(0, 3).join(',')}, expected ${expected.map((c) => c.toFixed(1)).join(',')}`,
    ).toBeLessThanOrEqual(kind === 'mask cut' ? 1 : TOLERANCE);
  });
  console.log(
    `alpha coverage: worst |expected − rendered| (sRGB 0–255) by case: ${Object.entries(worst)
      .map(([k, e]) => `${k} ${e.toFixed(2)} (${counts[k]} points)`)
      .join('; ')}`,
  );
  // Every case was seen at several points: opaque quadrants with every alpha, kept and cut texels, each blend alpha.
  for (const kind of ['opaque', 'mask kept', 'mask cut', 'blend 1.00', 'blend 0.78', 'blend 0.25', 'blend 0.00'])
    expect(counts[kind] ?? 0, kind).toBeGreaterThanOrEqual(4);
  expect(errors).toEqual([]);
});

test('KHR_texture_transform and wrap modes move the pattern as glTF defines; CLAMP, REPEAT and MIRRORED differ outside [0, 1]', async ({
  page,
}) => {
  const errors: string[] = [];
  await openLookAsset(page, errors);
  const camera = await page.evaluate(() => (window as any).__rigwright.look.camera());
  const samples = samplePoints(camera, [4, 5, 6, 7]);
  const { look, shaded } = await threePixelSets(page, samples);
  const errorsBy: Record<string, number[]> = {};
  let threeMisses = 0;
  let plainMisses = 0;
  samples.forEach((s, i) => {
    const quad = QUADS[s.quad];
    const quadrant = quadrantAt(...s.uv);
    const expected = litColour(shaded[i], texelAlbedo(QUADRANTS[quadrant]));
    const error = rgbDistance(look[i], expected);
    (errorsBy[quad.name] ??= []).push(error);
    expect(
      error,
      `${quad.name} at uv ${s.uv.map((c) => c.toFixed(2)).join(',')}: rendered ${look[i].slice(0, 3).join(',')}`,
    ).toBeLessThanOrEqual(TOLERANCE);
    if (quad.transform) {
      // The controls: three.js's own S · R order, and no transform at all, read other quadrants at many points.
      const [tu, tv] = threeOrder(quad.transform, ...s.raw);
      if (quadrantAt(wrap(tu, 'REPEAT'), wrap(tv, 'REPEAT')) !== quadrant) threeMisses++;
      if (quadrantAt(...s.raw) !== quadrant) plainMisses++;
    }
  });
  // The wrap quads at the same point: where their modes read different quadrants (u = −0.3: REPEAT 0.7, CLAMP 0,
  // MIRRORED 0.3), the rendered colours differ too.
  const wrapNames = ['repeat', 'clamp', 'mirrored'];
  const at = new Map(samples.map((s, i) => [`${QUADS[s.quad].name} ${s.a.toFixed(1)} ${s.b.toFixed(1)}`, i]));
  const pairs: Record<string, number> = {};
  for (const s of samples.filter((t) => QUADS[t.quad].name === 'repeat')) {
    for (const other of ['clamp', 'mirrored']) {
      const j = at.get(`${other} ${s.a.toFixed(1)} ${s.b.toFixed(1)}`);
      if (j === undefined || quadrantAt(...samples[j].uv) === quadrantAt(...s.uv)) continue;
      pairs[other] = (pairs[other] ?? 0) + 1;
      expect(rgbDistance(look[j], look[samples.indexOf(s)]), `repeat and ${other} at ${s.a.toFixed(1)}, ${s.b.toFixed(1)}`).toBeGreaterThan(
        40,
      );
    }
  }
  console.log(
    `transform and wrap: worst |expected − rendered| (sRGB 0–255): ${Object.entries(errorsBy)
      .map(([k, e]) => `${k} ${Math.max(...e).toFixed(2)} (${e.length} points)`)
      .join(
        '; ',
      )}; of ${errorsBy.transform?.length ?? 0} transform points, S·R order reads another quadrant at ${threeMisses}, no transform at ${plainMisses}; repeat differs from clamp at ${pairs.clamp ?? 0}, from mirrored at ${pairs.mirrored ?? 0} points`,
  );
  for (const name of ['transform', ...wrapNames]) expect(errorsBy[name]?.length ?? 0, name).toBeGreaterThanOrEqual(12);
  expect(threeMisses).toBeGreaterThanOrEqual(4);
  expect(plainMisses).toBeGreaterThanOrEqual(4);
  expect(pairs.clamp ?? 0).toBeGreaterThanOrEqual(4);
  expect(pairs.mirrored ?? 0).toBeGreaterThanOrEqual(4);
  expect(errors).toEqual([]);
});

test('magnification filters: NEAREST shows whole texels, LINEAR interpolates between texel centres (in linear values)', async ({
  page,
}) => {
  const errors: string[] = [];
  await openLookAsset(page, errors);
  const camera = await page.evaluate(() => (window as any).__rigwright.look.camera());
  // Along the middle row of the two quads with the two-texel-wide texture (CLAMP_TO_EDGE), away from u = 0.5.
  const along = [0.15, 0.3, 0.4, 0.6, 0.7, 0.85];
  const points = [8, 9].flatMap((q) => {
    const [x0, y0] = corner(q);
    return along.map((a) => {
      const p = projectAll(camera, [x0 + a, y0 - 0.5, 0]);
      return { q, u: a, x: p[0], y: p[1] };
    });
  });
  const { look, shaded } = await threePixelSets(page, points);
  const [left, right] = COLUMNS.map(texelAlbedo);
  const report: string[] = [];
  points.forEach((p, i) => {
    // Texel centres at u = 1/4 and 3/4: NEAREST takes the texel the point is in; LINEAR weighs the two by
    // t = clamp(2u − 1/2, 0, 1), on the decoded (linear) values of the sRGB texture.
    const t = Math.min(1, Math.max(0, 2 * p.u - 0.5));
    const albedo = QUADS[p.q].filter === 'NEAREST' ? (p.u < 0.5 ? left : right) : [0, 1, 2].map((c) => (1 - t) * left[c] + t * right[c]);
    const expected = litColour(shaded[i], albedo);
    const error = rgbDistance(look[i], expected);
    report.push(error.toFixed(1));
    expect(
      error,
      `${QUADS[p.q].name} at u ${p.u}: rendered ${look[i].slice(0, 3).join(',')}, expected ${expected.map((c) => c.toFixed(1)).join(',')}`,
    ).toBeLessThanOrEqual(TOLERANCE);
  });
  // Where LINEAR mixes (u = 0.3, 0.4, 0.6, 0.7) it differs from NEAREST.
  for (const k of [1, 2, 3, 4]) expect(rgbDistance(look[k], look[along.length + k]), `u ${along[k]}`).toBeGreaterThan(15);
  console.log(`filters: |expected − rendered| (sRGB 0–255) nearest then linear: ${report.join(', ')}`);
  expect(errors).toEqual([]);
});
