/**
 * The Look view in Chromium on SwiftShader, on CesiumMan (one material, a 1024² JPEG base-colour texture):
 * the asset opens in the Look view with its texture on its material and its texture coordinates as in the file;
 * at screen points chosen where the texture is flat, the rendered colour is the texture's colour at the uv under
 * the point (found on the CPU from the posed mesh and the camera), lit as the plain shading at the same point is
 * lit; switching to the weight views and back draws the same pixels again; and with the textured material on,
 * the GPU readback equals the CPU reference for every skinning method and for the split view's second half,
 * whose half is textured too. On a generated asset with three meshes (a base-colour material, a four-colour PNG
 * texture, no material), each part is drawn with its own material, the one without as the weight views draw it.
 */
import { test, expect, type Page } from '@playwright/test';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Document, NodeIO } from '@gltf-transform/core';
import { tmpdir } from 'node:os';
import { importGltf } from '../../workers/formats/gltf-import.ts';
import { writeDmatAscii } from '../../workers/formats/dmat.ts';
import { artifactsDir, dataFile, menuItem, openApp } from './app-driver.ts';
import {
  QUADRANTS,
  expectLitColours,
  litColour,
  lookAndShaded,
  openInLook,
  projectAll,
  projectPoints,
  quadrantPng,
  rgbDistance,
  splitViewError,
  texelAlbedo,
} from './look-pixels.ts';

const CESIUM_MAN = () => dataFile('gltf', 'CesiumMan', 'CesiumMan.glb');

interface LookState {
  view: string;
  shown: boolean;
  hasUvs: boolean;
  materials: { name: string; baseColor: number[]; textured: boolean; doubleSided: boolean }[];
  groups: { start: number; count: number; materialIndex: number }[];
  problems: string[];
}

async function openCesiumMan(page: Page, errors: string[]): Promise<void> {
  await openApp(page, errors, { paused: true });
  await page.setInputFiles('#file-input', CESIUM_MAN());
  await page.waitForFunction(() => {
    const s = (window as any).__rigwright.state();
    return s.error !== null || s.sceneName === 'CesiumMan.glb';
  });
  expect(await page.evaluate(() => (window as any).__rigwright.state().error)).toBeNull();
  await page.evaluate(() => (window as any).__rigwright.look.ready());
  await page.evaluate((a) => {
    const h = (window as any).__rigwright;
    h.pause();
    h.setTime(a);
    // The bones are drawn in blue over the mesh: hidden, so every coloured pixel is the texture's.
    h.command('view.skeleton');
  }, 12);
}

/** The file's texture coordinates and base-colour image, read in Node. */
async function fileLook(): Promise<{ uvs: Float32Array; image: Uint8Array; mimeType: string; baseColor: number[] }> {
  const document = await new NodeIO().readBinary(new Uint8Array(readFileSync(CESIUM_MAN())));
  const primitive = document.getRoot().listMeshes()[0].listPrimitives()[0];
  const material = primitive.getMaterial()!;
  const texture = material.getBaseColorTexture()!;
  return {
    uvs: primitive.getAttribute('TEXCOORD_0')!.getArray() as Float32Array,
    image: texture.getImage()!,
    mimeType: texture.getMimeType(),
    baseColor: material.getBaseColorFactor(),
  };
}

/** The image's RGBA texels as the page decodes them (the decoder the app uses; no premultiplying, no profile). */
async function decodeInPage(page: Page, image: Uint8Array, mimeType: string): Promise<{ width: number; height: number; data: Uint8Array }> {
  const decoded = await page.evaluate(
    async ([base64, type]) => {
      const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const bitmap = await createImageBitmap(new Blob([bytes], { type }), { premultiplyAlpha: 'none', colorSpaceConversion: 'none' });
      const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
      const context = canvas.getContext('2d')!;
      context.drawImage(bitmap, 0, 0);
      const data = context.getImageData(0, 0, bitmap.width, bitmap.height).data;
      let text = '';
      for (let i = 0; i < data.length; i += 8192) text += String.fromCharCode(...data.subarray(i, i + 8192));
      return { width: bitmap.width, height: bitmap.height, data: btoa(text) };
    },
    [Buffer.from(image).toString('base64'), mimeType] as const,
  );
  return { width: decoded.width, height: decoded.height, data: new Uint8Array(Buffer.from(decoded.data, 'base64')) };
}

interface SurfaceHit {
  triangle: number;
  depth: number;
  uv: [number, number];
}

/**
 * The front-most triangle under a page point and the texture coordinates there (perspective-correct).
 * @param screen  #V × 4 projected vertices: page x, page y, NDC depth, 1/w (projectAll)
 */
function surfaceAt(x: number, y: number, triangles: number[], uvs: number[], screen: Float64Array): SurfaceHit | null {
  const px = x;
  const py = y;
  let best: SurfaceHit | null = null;
  for (let t = 0; t < triangles.length / 3; t++) {
    const [a, b, c] = [triangles[3 * t], triangles[3 * t + 1], triangles[3 * t + 2]];
    const ax = screen[4 * a],
      ay = screen[4 * a + 1],
      bx = screen[4 * b],
      by = screen[4 * b + 1],
      cx = screen[4 * c],
      cy = screen[4 * c + 1];
    const area = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
    if (area === 0) continue;
    const l1 = ((px - ax) * (cy - ay) - (py - ay) * (cx - ax)) / area;
    const l2 = ((bx - ax) * (py - ay) - (by - ay) * (px - ax)) / area;
    const l0 = 1 - l1 - l2;
    if (l0 < 0 || l1 < 0 || l2 < 0) continue;
    const depth = l0 * screen[4 * a + 2] + l1 * screen[4 * b + 2] + l2 * screen[4 * c + 2];
    if (best && depth >= best.depth) continue;
    // Perspective-correct: interpolate uv / w and 1 / w linearly in screen space.
    const w0 = l0 * screen[4 * a + 3],
      w1 = l1 * screen[4 * b + 3],
      w2 = l2 * screen[4 * c + 3];
    const sum = w0 + w1 + w2;
    const u = (w0 * uvs[2 * a] + w1 * uvs[2 * b] + w2 * uvs[2 * c]) / sum;
    const v = (w0 * uvs[2 * a + 1] + w1 * uvs[2 * b + 1] + w2 * uvs[2 * c + 1]) / sum;
    best = { triangle: t, depth, uv: [u, v] };
  }
  return best;
}

/** sRGB 0–255 texel colour at uv (nearest texel; glTF: u right, v down from the image's top row, repeating). */
function texel(image: { width: number; height: number; data: Uint8Array }, u: number, v: number): number[] {
  const x = Math.min(image.width - 1, Math.floor((u - Math.floor(u)) * image.width));
  const y = Math.min(image.height - 1, Math.floor((v - Math.floor(v)) * image.height));
  const o = 4 * (y * image.width + x);
  return [image.data[o], image.data[o + 1], image.data[o + 2]];
}

/** Largest per-channel spread of the texels within `radius` texels of uv. */
function texelSpread(image: { width: number; height: number; data: Uint8Array }, u: number, v: number, radius: number): number {
  const x0 = Math.floor((u - Math.floor(u)) * image.width);
  const y0 = Math.floor((v - Math.floor(v)) * image.height);
  const low = [255, 255, 255];
  const high = [0, 0, 0];
  for (let dy = -radius; dy <= radius; dy++) {
    for (let dx = -radius; dx <= radius; dx++) {
      const x = (((x0 + dx) % image.width) + image.width) % image.width;
      const y = (((y0 + dy) % image.height) + image.height) % image.height;
      const o = 4 * (y * image.width + x);
      for (let c = 0; c < 3; c++) {
        low[c] = Math.min(low[c], image.data[o + c]);
        high[c] = Math.max(high[c], image.data[o + c]);
      }
    }
  }
  return Math.max(high[0] - low[0], high[1] - low[1], high[2] - low[2]);
}

const saturation = (rgb: number[]) => Math.max(...rgb) - Math.min(...rgb);

interface Sample {
  x: number;
  y: number;
  uv: [number, number];
  texel: number[];
}

/**
 * Screen points where the comparison is fair: on the mesh, away from its outline and from uv seams (the points
 * 2 px around hit the same surface with nearby uvs), and where the texture is flat over the pixel's footprint.
 */
async function flatTexturePoints(page: Page, image: { width: number; height: number; data: Uint8Array }): Promise<Sample[]> {
  const camera = await page.evaluate(() => (window as any).__rigwright.look.camera());
  const positions: number[] = await page.evaluate(() => (window as any).__rigwright.cpuPositions());
  const triangles: number[] = await page.evaluate(() => (window as any).__rigwright.work.scene().triangles);
  const uvs: number[] = await page.evaluate(() => (window as any).__rigwright.look.uvs());
  const screen = projectAll(camera, positions);
  let minX = Infinity,
    maxX = -Infinity,
    minY = Infinity,
    maxY = -Infinity;
  for (let v = 0; v < positions.length / 3; v++) {
    minX = Math.min(minX, screen[4 * v]);
    maxX = Math.max(maxX, screen[4 * v]);
    minY = Math.min(minY, screen[4 * v + 1]);
    maxY = Math.max(maxY, screen[4 * v + 1]);
  }
  const samples: Sample[] = [];
  const step = 7;
  // Stay above the feet, where the ground grid may be drawn over the mesh.
  for (let y = Math.ceil(minY) + 0.5; y < maxY - 0.12 * (maxY - minY); y += step) {
    for (let x = Math.ceil(minX) + 0.5; x < maxX; x += step) {
      const hit = surfaceAt(x, y, triangles, uvs, screen);
      if (!hit) continue;
      let fair = true;
      let reach = 0;
      // Neighbours 2 and 3 px away: an edge nearer than that is blended into the pixel by antialiasing, which mixes
      // two surfaces (and two albedos), so the pixel is no one texel's colour.
      for (const [dx, dy] of [
        [2, 0],
        [-2, 0],
        [0, 2],
        [0, -2],
        [3, 0],
        [-3, 0],
        [0, 3],
        [0, -3],
      ]) {
        const near = surfaceAt(x + dx, y + dy, triangles, uvs, screen);
        if (!near || Math.abs(near.depth - hit.depth) > 1e-3) {
          fair = false;
          break;
        }
        reach = Math.max(reach, Math.abs(near.uv[0] - hit.uv[0]) * image.width, Math.abs(near.uv[1] - hit.uv[1]) * image.height);
      }
      // A uv seam shows as a jump of many texels between points 2 px apart.
      if (!fair || reach > 24) continue;
      const radius = Math.ceil(reach) + 2;
      if (texelSpread(image, hit.uv[0], hit.uv[1], radius) > 6) continue;
      samples.push({ x, y, uv: hit.uv, texel: texel(image, hit.uv[0], hit.uv[1]) });
    }
  }
  return samples;
}

test('CesiumMan opens in the Look view; each sampled pixel is the texture at its uv, lit as the plain shading is', async ({ page }) => {
  const errors: string[] = [];
  await openCesiumMan(page, errors);
  const file = await fileLook();
  const look: LookState = await page.evaluate(() => (window as any).__rigwright.look.state());
  expect(look.view).toBe('look');
  expect(look.shown).toBe(true);
  expect(look.hasUvs).toBe(true);
  expect(look.problems).toEqual([]);
  expect(look.materials).toHaveLength(1);
  expect(look.materials[0]).toMatchObject({ textured: true, doubleSided: false, baseColor: file.baseColor });
  const triangleCount: number = await page.evaluate(() => (window as any).__rigwright.state().triangleCount);
  // One part, one material: the whole index buffer is drawn with material 0 (slot 1).
  expect(look.groups).toEqual([{ start: 0, count: 3 * triangleCount, materialIndex: 1 }]);
  const uvs: number[] = await page.evaluate(() => (window as any).__rigwright.look.uvs());
  expect(uvs.length).toBe(file.uvs.length);
  expect(
    uvs.every((u, i) => u === file.uvs[i]),
    'texture coordinates as in the file, bit for bit',
  ).toBe(true);

  const image = await decodeInPage(page, file.image, file.mimeType);
  expect([image.width, image.height]).toEqual([1024, 1024]);
  const samples = await flatTexturePoints(page, image);
  const points = samples.map(({ x, y }) => ({ x, y }));
  const lookPixels: number[][] = await page.evaluate((a) => (window as any).__rigwright.look.pixels(a), points);
  await page.evaluate(() => (window as any).__rigwright.command('view.mode', 'shaded'));
  expect((await page.evaluate(() => (window as any).__rigwright.look.state())).shown).toBe(false);
  const shadedPixels: number[][] = await page.evaluate((a) => (window as any).__rigwright.look.pixels(a), points);

  mkdirSync(artifactsDir, { recursive: true });
  await page.evaluate(() => (window as any).__rigwright.command('view.mode', 'look'));
  await page.screenshot({ path: path.join(artifactsDir, 'look-cesium-man.png') });

  // Diffuse light scales the albedo: look ≈ shaded × (texel × base colour) / default albedo, channel by channel, in
  // linear values. The specular part (about the same in both) is what this leaves over.
  const errorsPerPoint: number[] = [];
  const flippedErrors: number[] = [];
  let compared = 0;
  let coloured = 0;
  for (let i = 0; i < samples.length; i++) {
    const shaded = shadedPixels[i];
    const shown = lookPixels[i];
    if (shaded.slice(0, 3).some((c) => c >= 250) || shown.slice(0, 3).some((c) => c >= 250)) continue;
    const predict = (colour: number[]) =>
      litColour(
        shaded,
        texelAlbedo(colour).map((a, c) => a * file.baseColor[c]),
      );
    const predicted = predict(samples[i].texel);
    if (predicted.some((c) => c >= 250)) continue;
    compared++;
    const error = rgbDistance(predicted, shown);
    errorsPerPoint.push(error);
    // The control: the same prediction with the image upside down (v up, OpenGL's convention) misses.
    const flipped = predict(texel(image, samples[i].uv[0], 1 - samples[i].uv[1]));
    flippedErrors.push(rgbDistance(flipped, shown));
    if (saturation(samples[i].texel) > 60) {
      coloured++;
      // Where the texture is coloured, the plain shading is not: the pixel's colour comes from the texture.
      expect(saturation(shown.slice(0, 3)), `point ${samples[i].x},${samples[i].y}`).toBeGreaterThan(30);
    }
  }
  errorsPerPoint.sort((a, b) => a - b);
  flippedErrors.sort((a, b) => a - b);
  const median = errorsPerPoint[Math.floor(errorsPerPoint.length / 2)];
  const worst = errorsPerPoint.at(-1)!;
  const flippedMedian = flippedErrors[Math.floor(flippedErrors.length / 2)];
  console.log(
    `look pixels: ${samples.length} flat-texture points, ${compared} compared (${coloured} coloured); |predicted − rendered| (sRGB, 0–255): median ${median.toFixed(2)}, worst ${worst.toFixed(2)}; with v flipped: median ${flippedMedian.toFixed(2)}`,
  );
  expect(flippedMedian).toBeGreaterThan(10 * median);
  expect(compared).toBeGreaterThanOrEqual(40);
  expect(coloured).toBeGreaterThanOrEqual(5);
  expect(median).toBeLessThanOrEqual(3);
  expect(worst).toBeLessThanOrEqual(12);
  expect(errors).toEqual([]);
});

/** Page points on a grid over the canvas's left or right half (or all of it). */
function grid(camera: { left: number; top: number; width: number; height: number }, half: 'left' | 'right' | 'all', step = 6) {
  const points: { x: number; y: number }[] = [];
  const x0 = camera.left + (half === 'right' ? camera.width / 2 : 0);
  const x1 = camera.left + (half === 'left' ? camera.width / 2 : camera.width);
  for (let y = camera.top + 0.5; y < camera.top + camera.height; y += step) for (let x = x0 + 0.5; x < x1; x += step) points.push({ x, y });
  return points;
}

/** How many pixels show the texture's blue or green (the plain material and the background are greys). */
const colouredCount = (pixels: number[][]) => pixels.filter((p) => saturation(p.slice(0, 3)) > 40).length;

test('T and V switch between the Look view and the weight views; back in Look the same pixels are drawn', async ({ page }) => {
  const errors: string[] = [];
  await openCesiumMan(page, errors);
  const camera = await page.evaluate(() => (window as any).__rigwright.look.camera());
  const points = grid(camera, 'all', 8);
  const pixels = (): Promise<number[][]> => page.evaluate((a) => (window as any).__rigwright.look.pixels(a), points);
  const view = (): Promise<string> => page.evaluate(() => (window as any).__rigwright.binding.state().view);
  const first = await pixels();
  const textured = colouredCount(first);
  expect(textured, 'textured pixels in the Look view').toBeGreaterThan(200);

  await page.keyboard.press('t');
  expect(await view()).toBe('shaded');
  expect(colouredCount(await pixels()), 'the plain shading is grey').toBeLessThan(textured / 20);
  await page.keyboard.press('v');
  expect(await view()).toBe('heatmap');
  const heatmap = await pixels();
  expect(heatmap).not.toEqual(first);
  await page.keyboard.press('t');
  expect(await view()).toBe('look');
  expect(await pixels()).toEqual(first);
  await page.keyboard.press('t');
  expect(await view()).toBe('heatmap');
  expect(await pixels()).toEqual(heatmap);
  for (const next of ['dominant', 'handles', 'look']) {
    await page.keyboard.press('v');
    expect(await view()).toBe(next);
  }
  expect(await pixels()).toEqual(first);
  // View → Look in the menu bar is the same command, checked while the look is on.
  const look = () => menuItem(page, 'View', 'view.look');
  await expect(await look()).toHaveAttribute('aria-checked', 'true');
  await (await look()).click();
  expect(await view()).toBe('handles');
  await expect(await look()).toHaveAttribute('aria-checked', 'false');
  await (await look()).click();
  expect(await view()).toBe('look');
  expect(errors).toEqual([]);
});

const METHODS = ['lbs', 'dqs', 'blend', 'context-lbs', 'context-dqs', 'perface'];

/**
 * A handles DMAT pinning one vertex of each connected piece of the mesh to the root bone: per-face stitching solves
 * one Poisson system over the mesh and needs a fixed vertex in every piece (CesiumMan is made of several).
 */
async function pinningHandles(page: Page): Promise<string> {
  const triangles: number[] = await page.evaluate(() => (window as any).__rigwright.work.scene().triangles);
  const vertexCount: number = await page.evaluate(() => (window as any).__rigwright.state().vertexCount);
  const rig = await importGltf(new Uint8Array(readFileSync(CESIUM_MAN())), 'CesiumMan.glb');
  const root = rig.skeleton.parents.indexOf(-1);
  const parent = Int32Array.from({ length: vertexCount }, (_, v) => v);
  const find = (v: number): number => (parent[v] === v ? v : (parent[v] = find(parent[v])));
  const union = (a: number, b: number) => {
    const [x, y] = [find(a), find(b)];
    if (x !== y) parent[Math.max(x, y)] = Math.min(x, y);
  };
  for (let i = 0; i < triangles.length; i += 3) {
    union(triangles[i], triangles[i + 1]);
    union(triangles[i], triangles[i + 2]);
  }
  const handles = new Float64Array(vertexCount).fill(-1);
  for (let v = 0; v < vertexCount; v++) if (find(v) === v) handles[v] = root;
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'rigwright-look-')), 'CesiumMan-pins.dmat');
  writeFileSync(file, writeDmatAscii({ rows: vertexCount, cols: 1, data: handles }));
  return file;
}

test('with the textured material on, the GPU readback equals the CPU reference for every method and the split view', async ({ page }) => {
  const errors: string[] = [];
  await openCesiumMan(page, errors);
  const diagonal: number = await page.evaluate(() => (window as any).__rigwright.boundingDiagonal());
  const duration: number = await page.evaluate(() => (window as any).__rigwright.state().duration);
  const camera = await page.evaluate(() => (window as any).__rigwright.look.camera());
  const deviation = async (): Promise<number> =>
    page.evaluate(async () => {
      const h = (window as any).__rigwright;
      const gpu: number[] = await h.gpuPositions();
      const cpu: number[] = h.cpuPositions();
      let worst = 0;
      for (let i = 0; i < cpu.length; i += 3) {
        const d = Math.hypot(gpu[i] - cpu[i], gpu[i + 1] - cpu[i + 1], gpu[i + 2] - cpu[i + 2]);
        worst = Number.isNaN(d) ? Infinity : Math.max(worst, d);
      }
      return worst;
    });
  await page.setInputFiles('#file-input', await pinningHandles(page));
  await page.waitForFunction(() => (window as any).__rigwright.snapshot().handlesFile !== null);
  expect(await page.evaluate(() => (window as any).__rigwright.state().error)).toBeNull();
  const rows: string[] = [];
  for (const method of METHODS) {
    await page.evaluate((m) => (window as any).__rigwright.setMethod(m), method);
    if (method === 'blend') await page.evaluate(() => (window as any).__rigwright.setBlendWeights(0.5));
    for (const frame of [Math.round(duration / 3), duration]) {
      await page.evaluate((t) => (window as any).__rigwright.setTime(t), frame);
      await page.evaluate(() => (window as any).__rigwright.settled());
      const look: LookState = await page.evaluate(() => (window as any).__rigwright.look.state());
      expect(look.shown && look.materials[0].textured, `${method}: the textured material is on`).toBe(true);
      const worst = await deviation();
      rows.push(`${method} frame ${frame}: ${(worst / diagonal).toExponential(2)}`);
      expect(worst, `${method} at frame ${frame}`).toBeLessThanOrEqual(1e-4 * diagonal);
      const shown = colouredCount(await page.evaluate((a) => (window as any).__rigwright.look.pixels(a), grid(camera, 'all', 8)));
      expect(shown, `${method} at frame ${frame}: the mesh is drawn textured`).toBeGreaterThan(40);
    }
  }
  console.log(`GPU − CPU, largest distance / diagonal, Look view on: ${rows.join('; ')}`);

  // Split view: the second half is made while Look is on and is textured too; its readback equals its method's CPU reference.
  await page.evaluate(() => {
    const h = (window as any).__rigwright;
    h.setMethod('lbs');
    h.setSplit('dqs');
  });
  const split = (await splitViewError(page, 'dqs')).worst;
  expect(split).toBeLessThanOrEqual(1e-4 * diagonal);
  const left = colouredCount(await page.evaluate((a) => (window as any).__rigwright.look.pixels(a), grid(camera, 'left', 6)));
  const right = colouredCount(await page.evaluate((a) => (window as any).__rigwright.look.pixels(a), grid(camera, 'right', 6)));
  console.log(`split view: ${(split / diagonal).toExponential(2)} of the diagonal; textured pixels left ${left}, right ${right}`);
  expect(left).toBeGreaterThan(40);
  expect(right).toBeGreaterThan(40);
  await page.screenshot({ path: path.join(artifactsDir, 'look-split.png') });
  // Leaving the Look view turns both halves grey.
  await page.evaluate(() => (window as any).__rigwright.command('view.mode', 'shaded'));
  const greyRight = colouredCount(await page.evaluate((a) => (window as any).__rigwright.look.pixels(a), grid(camera, 'right', 6)));
  expect(greyRight).toBeLessThan(right / 20);
  expect(errors).toEqual([]);
});

/**
 * A generated asset with three meshes on one skin, side by side in the plane z = 0, facing +z, each a 4 × 4 grid of
 * quads 1 unit wide: "tinted" with a base-colour-only material, "textured" with the four-colour PNG (base colour
 * white, one-sided), and "plain" with no material. Vertices are bound to the root joint; no clip (rest pose).
 */
async function threePartAsset(): Promise<{ bytes: Uint8Array; tint: number[] }> {
  const doc = new Document();
  const buffer = doc.createBuffer();
  const accessor = (type: 'SCALAR' | 'VEC2' | 'VEC3' | 'VEC4' | 'MAT4', array: Float32Array | Uint16Array | Uint8Array) =>
    doc.createAccessor().setType(type).setArray(array).setBuffer(buffer);
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
  const tint = [0.6, 0.3, 0.05, 1];
  const tinted = doc.createMaterial('tinted').setBaseColorFactor(tint as [number, number, number, number]);
  const texture = doc.createTexture('quadrants').setImage(quadrantPng(QUADRANTS)).setMimeType('image/png');
  const textured = doc.createMaterial('textured').setBaseColorTexture(texture);
  const scene = doc.createScene('scene').addChild(hips);
  const cells = 4;
  ['tinted', 'textured', 'plain'].forEach((name, m) => {
    const positions: number[] = [];
    const uvs: number[] = [];
    for (let j = 0; j <= cells; j++)
      for (let i = 0; i <= cells; i++) {
        positions.push(1.2 * m - 1.7 + i / cells, 0.5 + j / cells, 0);
        uvs.push(i / cells, 1 - j / cells);
      }
    const indices: number[] = [];
    for (let j = 0; j < cells; j++)
      for (let i = 0; i < cells; i++) {
        const a = j * (cells + 1) + i;
        indices.push(a, a + 1, a + cells + 2, a, a + cells + 2, a + cells + 1);
      }
    const n = positions.length / 3;
    const primitive = doc
      .createPrimitive()
      .setAttribute('POSITION', accessor('VEC3', Float32Array.from(positions)))
      .setAttribute('TEXCOORD_0', accessor('VEC2', Float32Array.from(uvs)))
      .setAttribute('JOINTS_0', accessor('VEC4', new Uint8Array(4 * n)))
      .setAttribute(
        'WEIGHTS_0',
        accessor(
          'VEC4',
          Float32Array.from({ length: 4 * n }, (_, k) => (k % 4 === 0 ? 1 : 0)),
        ),
      )
      .setIndices(accessor('SCALAR', Uint16Array.from(indices)));
    if (m === 0) primitive.setMaterial(tinted);
    if (m === 1) primitive.setMaterial(textured);
    scene.addChild(doc.createNode(name).setMesh(doc.createMesh(name).addPrimitive(primitive)).setSkin(skin));
  });
  return { bytes: await new NodeIO().writeBinary(doc), tint };
}

test('three meshes, two materials and none: each part is drawn with its own material, the plain one as the weight views draw it', async ({
  page,
}) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  const asset = await threePartAsset();
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'rigwright-look-')), 'three-parts.glb');
  writeFileSync(file, asset.bytes);
  await openInLook(page, file, 'three-parts.glb');
  const look: LookState = await page.evaluate(() => (window as any).__rigwright.look.state());
  expect(look.view).toBe('look');
  expect(look.materials.map((m) => [m.name, m.textured])).toEqual([
    ['tinted', false],
    ['textured', true],
  ]);
  // 32 triangles per mesh, in the file's node order: material 0 → slot 1, material 1 → slot 2, none → slot 0.
  expect(look.groups).toEqual([
    { start: 0, count: 96, materialIndex: 1 },
    { start: 96, count: 96, materialIndex: 2 },
    { start: 192, count: 96, materialIndex: 0 },
  ]);

  // Points at the centres of the tinted and plain grids and of the textured grid's quadrants (world, z = 0).
  const world = [
    [-1.2, 1, 0],
    [-0.25, 1.25, 0],
    [0.25, 1.25, 0],
    [-0.25, 0.75, 0],
    [0.25, 0.75, 0],
    [1.2, 1, 0],
  ];
  const camera = await page.evaluate(() => (window as any).__rigwright.look.camera());
  const { look: shown, shaded } = await lookAndShaded(page, projectPoints(camera, world));

  // The uv's v runs down the image: the grid's top row (y = 1.5) has v = 0, the image's top row.
  const albedos = [asset.tint.slice(0, 3), ...QUADRANTS.map(texelAlbedo)];
  const report = expectLitColours(shown, shaded, albedos, 6);
  console.log(
    `three parts: |predicted − rendered| (sRGB 0–255) at the tinted centre and the four quadrants: ${report.map((e) => e.toFixed(2)).join(', ')}`,
  );
  // The part without a material is drawn with the default material: the same pixel as in the weight views' shading.
  expect(shown[5]).toEqual(shaded[5]);
  expect(errors).toEqual([]);
});
