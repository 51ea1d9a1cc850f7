/**
 * The Look view of an OBJ with its material library and texture, in Chromium on SwiftShader. A generated OBJ in the
 * plane z = 0 (facing +z) has one object "Panel": two quads side by side using material "painted" (map_Kd a 64²
 * four-colour PNG) and a third quad, on vertices of its own, using "tinted" (Kd only). The painted quads share their
 * middle edge (v2, v5) but take different image regions: the left one the red quadrant, the right one the yellow
 * one, so v2 and v5 each have two `vt` (a UV seam). Opened with its .mtl, the PNG and a one-bone TGF:
 * - the object loads as two parts, "Panel (painted)" and "Panel (tinted)", with their materials, the image on
 *   "painted"; no notice;
 * - at points inside each painted quad (also next to the seam) the rendered colour is the quadrant's texel colour,
 *   lit as the plain shading at the same point is lit (a per-vertex uv would blend red, green, blue and yellow across
 *   the right quad), and the tinted quad is Kd lit alike;
 * - the heat map is one colour on both sides of the seam (the weight view's inputs reach the seam copies), and hiding
 *   the tinted mesh draws the painted quads alone, pixel for pixel as before;
 * - the GPU readback, per rig vertex, equals the CPU reference (10 vertices, not the 12 drawn), also for the split
 *   view's second half;
 * - the glTF export validates (Khronos validator) and carries the material, its PNG bytes and the per-corner texture
 *   coordinates.
 * Opened without the PNG, a notice names the image and the material keeps its colour. With the tinted quad on the
 * painted quads' vertices, the object is one mesh whose triangles are drawn in a run per material.
 */
import { test, expect, type Page } from '@playwright/test';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tmpdir } from 'node:os';
import { NodeIO } from '@gltf-transform/core';
import { writeDmatAscii } from '../../workers/formats/dmat.ts';
import { assertValidGltf } from '../unit/gltf-skinning-reference.ts';
import {
  QUADRANTS,
  expectLitColours,
  lookAndShaded,
  openInLook,
  projectPoints,
  quadrantPng,
  rgbDistance,
  splitViewError,
  texelAlbedo,
} from './look-pixels.ts';
import { exportFromDialog, gpuCpuDeviation, openApp } from './app-driver.ts';

const TINT = [0.6, 0.3, 0.05];

const POSITIONS = [
  // painted: bottom row v1 v2 v3, top row v4 v5 v6
  [-1.6, 0.5, 0],
  [-0.6, 0.5, 0],
  [0.4, 0.5, 0],
  [-1.6, 1.5, 0],
  [-0.6, 1.5, 0],
  [0.4, 1.5, 0],
  // tinted: v7 … v10
  [0.6, 0.5, 0],
  [1.6, 0.5, 0],
  [1.6, 1.5, 0],
  [0.6, 1.5, 0],
];

/** OBJ's vt (v up): the left quad inside the top-left (red) quadrant, the right quad inside the bottom-right (yellow). */
const OBJ_TEXT = [
  '# two painted quads with a UV seam down their shared edge, and a tinted quad',
  'mtllib panel.mtl',
  'o Panel',
  ...POSITIONS.map((p) => `v ${p.join(' ')}`),
  'vt 0.1 0.6',
  'vt 0.4 0.6',
  'vt 0.4 0.9',
  'vt 0.1 0.9',
  'vt 0.6 0.1',
  'vt 0.9 0.1',
  'vt 0.9 0.4',
  'vt 0.6 0.4',
  'vn 0 0 1',
  'usemtl painted',
  's off',
  'f 1/1/1 2/2/1 5/3/1 4/4/1',
  // The tinted quad comes between the painted ones in the file: the reader groups faces by part.
  'usemtl tinted',
  'f 7//1 8//1 9//1 10//1',
  'usemtl painted',
  'f 2/5/1 3/6/1 6/7/1 5/8/1',
  '',
].join('\n');

const MTL_TEXT = [
  '# Blender-like library',
  'newmtl painted',
  'Ns 250',
  'Ka 1 1 1',
  'Kd 0.8 0.8 0.8',
  'Ks 0.5 0.5 0.5',
  'Ni 1.45',
  'd 1',
  'illum 2',
  'map_Kd -blendu on -blendv on quadrants.png',
  '',
  'newmtl tinted',
  `Kd ${TINT.join(' ')}`,
  'Tr 0',
  'illum 1',
  '',
].join('\n');

/** The same panel with the tinted quad on the painted quads' right edge (v3, v6) and two vertices of its own. */
const SHARED_OBJ_TEXT = OBJ_TEXT.replace(
  /^v 0\.6 0\.5 0\nv 1\.6 0\.5 0\nv 1\.6 1\.5 0\nv 0\.6 1\.5 0\n/m,
  'v 1.4 0.5 0\nv 1.4 1.5 0\n',
).replace('f 7//1 8//1 9//1 10//1', 'f 3//1 7//1 8//1 6//1');

function writeAsset(withImage: boolean, obj = OBJ_TEXT): string[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'rigwright-obj-look-'));
  const files: [string, string | Uint8Array][] = [
    ['panel.obj', obj],
    ['panel.mtl', MTL_TEXT],
    // One bone along the panel's left edge (the provisional weights bind every vertex to it).
    ['panel.tgf', '1 -1.7 0.4 0\n2 -1.7 1.6 0\n#\n1 2\n'],
  ];
  if (withImage) files.push(['quadrants.png', quadrantPng(QUADRANTS)]);
  return files.map(([name, content]) => {
    const file = path.join(dir, name);
    writeFileSync(file, content);
    return file;
  });
}

async function open(page: Page, files: string[]): Promise<void> {
  await openInLook(page, files, 'panel.obj');
}

interface LookState {
  view: string;
  hasUvs: boolean;
  materials: { name: string; baseColor: number[]; textured: boolean; doubleSided: boolean }[];
  groups: { start: number; count: number; materialIndex: number }[];
  problems: string[];
}

test('an OBJ with its .mtl and PNG: parts per material, the texture drawn per corner across the UV seam, export keeps it', async ({
  page,
}) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  const files = writeAsset(true);
  await open(page, files);
  const look: LookState = await page.evaluate(() => (window as any).__rigwright.look.state());
  expect(look.view).toBe('look');
  expect(look.hasUvs).toBe(true);
  expect(look.problems).toEqual([]);
  expect(look.materials).toEqual([
    // With map_Kd the image is the colour (Kd 0.8 is not multiplied in); d 1 → alpha 1. OBJ says nothing of culling:
    // single-sided, as the export writes them.
    { name: 'painted', baseColor: [1, 1, 1, 1], textured: true, doubleSided: false },
    // Tr 0 → alpha 1.
    { name: 'tinted', baseColor: [...TINT, 1], textured: false, doubleSided: false },
  ]);
  // Parts: the painted quads' 4 triangles first (v1 … v6), then the tinted quad's 2 (v7 … v10).
  const meshes = await page.evaluate(() => (window as any).__rigwright.meshes.state());
  expect(meshes.parts).toEqual([
    { name: 'Panel (painted)', vertexStart: 0, vertexCount: 6, triangleStart: 0, triangleCount: 4 },
    { name: 'Panel (tinted)', vertexStart: 6, vertexCount: 4, triangleStart: 4, triangleCount: 2 },
  ]);
  expect(look.groups).toEqual([
    { start: 0, count: 12, materialIndex: 1 },
    { start: 12, count: 6, materialIndex: 2 },
  ]);
  expect(await page.locator('.notice:not([hidden])').count()).toBe(0);

  // Points (world, z = 0) in the left quad, the right quad (two of them a hair from the seam at x = −0.6) and the
  // tinted quad. Inside a painted quad the uv stays inside its quadrant, so the texel is the quadrant's colour.
  const left = [
    [-1.35, 0.75, 0],
    [-0.85, 1.25, 0],
    [-0.65, 0.6, 0],
  ];
  const right = [
    [-0.55, 0.6, 0],
    [-0.55, 1.4, 0],
    [-0.1, 1.0, 0],
    [0.3, 1.4, 0],
  ];
  const tinted = [[1.1, 1.0, 0]];
  const world = [...left, ...right, ...tinted];
  const camera = await page.evaluate(() => (window as any).__rigwright.look.camera());
  const points = projectPoints(camera, world);
  const { look: shown, shaded } = await lookAndShaded(page, points);

  // Same light, another albedo: linear(shaded) × albedo / default albedo, back to sRGB.
  const albedos = [...left.map(() => texelAlbedo(QUADRANTS[0])), ...right.map(() => texelAlbedo(QUADRANTS[3])), TINT];
  const report = expectLitColours(shown, shaded, albedos, 6, (i) => `point ${i} (${world[i].join(', ')})`);
  console.log(
    `OBJ look: |predicted − rendered| (sRGB 0–255) at 3 red, 4 yellow and 1 tinted points: ${report.map((e) => e.toFixed(2)).join(', ')}`,
  );

  // The weight view's per-vertex inputs reach the seam copies: with one bone every weight is 1, so the heat map is one
  // colour on both sides of the seam (a copy without its rig vertex's entries would show another).
  const across = projectPoints(camera, [
    [-0.65, 1.0, 0],
    [-0.55, 1.0, 0],
    [-0.1, 1.0, 0],
  ]);
  await page.evaluate(() => {
    const h = (window as any).__rigwright;
    h.command('bone.select', 0);
    h.command('view.mode', 'heatmap');
  });
  const heat: number[][] = await page.evaluate((a) => (window as any).__rigwright.look.pixels(a), across);
  await page.evaluate(() => (window as any).__rigwright.command('view.mode', 'look'));
  for (const pixel of heat.slice(1)) expect(rgbDistance(pixel, heat[0]), `heat map ${heat.map(String).join(' | ')}`).toBeLessThanOrEqual(3);
  // Hiding the tinted mesh leaves the painted quads' 4 triangles drawn (the seam copies' triangles among them).
  await page.evaluate(() => (window as any).__rigwright.command('meshes.toggle', 'Panel (tinted)'));
  expect(await page.evaluate(() => (window as any).__rigwright.meshes.drawnTriangles())).toBe(4);
  const hidden: number[][] = await page.evaluate((a) => (window as any).__rigwright.look.pixels(a), points);
  expect(hidden.slice(0, 7)).toEqual(shown.slice(0, 7));
  expect(hidden[7]).not.toEqual(shown[7]);
  await page.evaluate(() => (window as any).__rigwright.command('meshes.toggle', 'Panel (tinted)'));
  expect(await page.evaluate(() => (window as any).__rigwright.meshes.drawnTriangles())).toBe(6);

  // The GPU skins the rig's 10 vertices (the 2 seam copies are drawn, not read back) as the CPU does, at rest and posed
  // (a final-pose quaternion file: 0.6 rad about z, reached from the rest pose over the clip).
  const rest = await gpuCpuDeviation(page);
  expect(rest.vertexCount).toBe(10);
  expect(rest.maxError).toBeLessThanOrEqual(1e-6 * rest.diagonal);
  const poseFile = path.join(path.dirname(files[0]), 'panel-pose.dmat');
  writeFileSync(poseFile, writeDmatAscii({ rows: 4, cols: 1, data: Float64Array.of(0, 0, Math.sin(0.3), Math.cos(0.3)) }));
  await page.setInputFiles('#file-input', poseFile);
  await page.waitForFunction(() => (window as any).__rigwright.snapshot().posesFile === 'panel-pose.dmat');
  const posedErrors: string[] = [];
  for (const method of ['lbs', 'dqs']) {
    await page.evaluate((m) => {
      const h = (window as any).__rigwright;
      h.command('skin.method', m);
      h.setTime(20);
    }, method);
    const posed = await gpuCpuDeviation(page);
    expect(posed.vertexCount).toBe(10);
    const moved = Math.max(...posed.gpu.map((x, i) => Math.abs(x - rest.gpu[i])));
    expect(moved, `${method}: the pose moves the panel`).toBeGreaterThan(0.005);
    expect(posed.maxError, method).toBeLessThanOrEqual(1e-5 * posed.diagonal);
    posedErrors.push(`${method} ${(posed.maxError / posed.diagonal).toExponential(2)}`);
  }

  // The split view's second half is a view of its own, split at the seam too: its readback, per rig vertex, is its
  // method's CPU reference.
  await page.evaluate(() => {
    const h = (window as any).__rigwright;
    h.command('skin.method', 'lbs');
    h.setSplit('dqs');
  });
  const split = await splitViewError(page, 'dqs');
  console.log(
    `OBJ look GPU − CPU / diagonal: rest ${(rest.maxError / rest.diagonal).toExponential(2)}, ${posedErrors.join(', ')}, split dqs ${(split.worst / rest.diagonal).toExponential(2)}`,
  );
  expect(split.count).toBe(10);
  expect(split.worst).toBeLessThanOrEqual(1e-5 * rest.diagonal);
  await page.evaluate(() => (window as any).__rigwright.setSplit(null));

  // The fresh glTF export: the material with its PNG, and one glTF vertex per distinct (v, vt) corner.
  await page.keyboard.press('Control+e');
  const dialog = page.locator('dialog.export-dialog');
  await expect(dialog).toBeVisible();
  await dialog.getByRole('radio', { name: /GLB/ }).check({ force: true });
  const { bytes: exportedBytes } = await exportFromDialog(page, dialog);
  await assertValidGltf(exportedBytes, 'panel.glb exported from the app');
  const exported = await new NodeIO().readBinary(exportedBytes);
  const root = exported.getRoot();
  const materials = root.listMaterials();
  expect(materials.map((m) => m.getName())).toEqual(['painted', 'tinted']);
  const image = materials[0].getBaseColorTexture()?.getImage();
  const pngBytes = new Uint8Array(readFileSync(files[3]));
  expect(image && Buffer.from(image).equals(Buffer.from(pngBytes))).toBe(true);
  expect(materials[1].getBaseColorFactor()).toEqual([...TINT, 1]);
  const painted = root.listMeshes().find((m) => m.listPrimitives()[0].getMaterial() === materials[0])!;
  const primitive = painted.listPrimitives()[0];
  const uv = primitive.getAttribute('TEXCOORD_0')!;
  const position = primitive.getAttribute('POSITION')!;
  // 6 vertices + a copy of v2 and of v5 for the right quad's vt.
  expect(uv.getCount()).toBe(8);
  const corners = new Set<string>();
  for (let i = 0; i < uv.getCount(); i++) {
    const [u, v] = uv.getElement(i, [0, 0]);
    const [x, y] = position.getElement(i, [0, 0, 0]);
    corners.add(`${x.toFixed(2)} ${y.toFixed(2)} ${u.toFixed(2)} ${(1 - v).toFixed(2)}`);
  }
  // OBJ's v up is glTF's 1 − v.
  expect([...corners].sort()).toEqual(
    [
      '-1.60 0.50 0.10 0.60',
      '-0.60 0.50 0.40 0.60',
      '-0.60 1.50 0.40 0.90',
      '-1.60 1.50 0.10 0.90',
      '-0.60 0.50 0.60 0.10',
      '0.40 0.50 0.90 0.10',
      '0.40 1.50 0.90 0.40',
      '-0.60 1.50 0.60 0.40',
    ].sort(),
  );
  expect(errors).toEqual([]);
});

test('an OBJ with its .mtl but without the PNG: a notice names the image, the material keeps its colour', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  await open(page, writeAsset(false));
  const look: LookState = await page.evaluate(() => (window as any).__rigwright.look.state());
  expect(look.materials.map((m) => [m.name, m.baseColor, m.textured])).toEqual([
    ['painted', [0.8, 0.8, 0.8, 1], false],
    ['tinted', [...TINT, 1], false],
  ]);
  const notice = page.locator('.notice:not([hidden])');
  await expect(notice).toHaveCount(1);
  await expect(notice).toContainText("panel.mtl: material 'painted': its image 'quadrants.png' was not among the files opened");
  expect(errors).toEqual([]);
});

test('materials sharing vertices: one mesh, its triangles drawn in a run per material', async ({ page }) => {
  expect(SHARED_OBJ_TEXT).toContain('f 3//1 7//1 8//1 6//1');
  expect(SHARED_OBJ_TEXT).not.toContain('v 0.6 0.5 0');
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  await open(page, writeAsset(true, SHARED_OBJ_TEXT));
  const look: LookState = await page.evaluate(() => (window as any).__rigwright.look.state());
  const meshes = await page.evaluate(() => (window as any).__rigwright.meshes.state());
  expect(meshes.parts).toEqual([{ name: 'Panel', vertexStart: 0, vertexCount: 8, triangleStart: 0, triangleCount: 6 }]);
  // Runs in the order the materials first come: painted (both painted quads: 4 triangles), then tinted (2).
  expect(look.groups).toEqual([
    { start: 0, count: 12, materialIndex: 1 },
    { start: 12, count: 6, materialIndex: 2 },
  ]);
  expect(await page.locator('.notice:not([hidden])').count()).toBe(0);
  const world = [
    [-1.1, 1.0, 0],
    [-0.1, 1.0, 0],
    [0.9, 1.0, 0],
  ];
  const camera = await page.evaluate(() => (window as any).__rigwright.look.camera());
  const { look: shown, shaded } = await lookAndShaded(page, projectPoints(camera, world));
  const albedos = [texelAlbedo(QUADRANTS[0]), texelAlbedo(QUADRANTS[3]), TINT];
  expectLitColours(shown, shaded, albedos, 6);
  expect(errors).toEqual([]);
});
