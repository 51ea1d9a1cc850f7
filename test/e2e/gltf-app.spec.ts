/**
 * glTF in the app, in Chromium on SwiftShader: rigged .glb files open through the file input with their counts,
 * bones and clips; the GPU-skinned result equals the CPU reference; an export from the app's dialog passes the
 * Khronos validator and, read back in Node, poses like the app; the "as exported" preview with 8-bit weights
 * stays within the quantization bound of full-precision LBS and equals a Node evaluation of the quantized weights.
 */
import { test, expect, type Download, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gltfJson } from '../../workers/formats/gltf-resource-uris.ts';
import { importGltf, type GltfImportResult } from '../../workers/formats/gltf-import.ts';
import { exportedInfluences, quantizationBound } from '../../workers/formats/gltf-exported-influences.ts';
import { influencesFromWeights, type Influences } from '../../workers/skinning/influences.ts';
import { linearBlendSkinning } from '../../workers/skinning/linear-blend-skinning.ts';
import { forwardKinematics, poseForwardKinematics } from '../../workers/rig/forward-kinematics.ts';
import { identityPose } from '../../workers/rig/pose-sequence.ts';
import { NodeIO } from '@gltf-transform/core';
import { assertValidGltf, gltfPosedPositions, maxDistance } from '../unit/gltf-skinning-reference.ts';
import { TEXTURE, texturedAsset } from '../unit/gltf-build.ts';
import { dataFile, exportFromDialog, openApp } from './app-driver.ts';

const CESIUM_MAN = () => dataFile('gltf', 'CesiumMan', 'CesiumMan.glb');
const RIGGED_SIMPLE = () => dataFile('gltf', 'RiggedSimple', 'RiggedSimple.glb');

interface HookState {
  sceneName: string;
  vertexCount: number;
  triangleCount: number;
  boneCount: number;
  time: number;
  duration: number;
  poseKind: string;
  playing: boolean;
  error: string | null;
  framesRendered: number;
  asExported: boolean;
  clips: string[];
  clipName: string | null;
  method: string;
}

const state = (page: Page): Promise<HookState> => page.evaluate(() => (window as any).__rigwright.state());

async function openThroughInput(page: Page, file: string): Promise<HookState> {
  await page.setInputFiles('#file-input', file);
  const name = path.basename(file);
  await page.waitForFunction((n) => {
    const s = (window as any).__rigwright.state();
    return s.error !== null || s.sceneName === n;
  }, name);
  return state(page);
}

/** Vertex, triangle and joint counts read straight from the file's JSON (one skinned mesh, one skin). */
function countsInFile(file: string): { vertices: number; triangles: number; bones: number; animations: number } {
  const json = gltfJson(readFileSync(file), file) as {
    meshes: { primitives: { attributes: Record<string, number>; indices: number }[] }[];
    accessors: { count: number }[];
    skins: { joints: number[] }[];
    animations?: unknown[];
  };
  let vertices = 0;
  let triangles = 0;
  for (const mesh of json.meshes) {
    for (const p of mesh.primitives) {
      vertices += json.accessors[p.attributes.POSITION].count;
      triangles += json.accessors[p.indices].count / 3;
    }
  }
  return { vertices, triangles, bones: json.skins[0].joints.length, animations: json.animations?.length ?? 0 };
}

async function gpuAndCpu(page: Page): Promise<{ gpu: number[]; cpu: number[]; diagonal: number }> {
  return page.evaluate(async () => {
    const hook = (window as any).__rigwright;
    const gpu: number[] = await hook.gpuPositions();
    return { gpu, cpu: hook.cpuPositions(), diagonal: hook.boundingDiagonal() };
  });
}

/** Bone transforms of clip `clip` at `frame` (rest pose without clips). */
function transformsAt(rig: GltfImportResult, clip: number, frame: number): Float64Array {
  const boneCount = rig.skeleton.parents.length;
  const transforms = new Float64Array(12 * boneCount);
  const rotations = identityPose(boneCount);
  if (rig.clips[clip])
    poseForwardKinematics(rig.skeleton, rig.clips[clip].poses, frame, rotations, new Float64Array(3 * boneCount), transforms);
  else forwardKinematics(rig.skeleton, rotations, transforms);
  return transforms;
}

function lbs(rig: GltfImportResult, influences: Influences, transforms: Float64Array): Float64Array {
  const out = new Float64Array(rig.mesh.positions.length);
  linearBlendSkinning(rig.mesh.positions, influences, transforms, out);
  return out;
}

for (const [label, file] of [
  ['CesiumMan', CESIUM_MAN],
  ['RiggedSimple', RIGGED_SIMPLE],
] as const) {
  test(`${label}.glb opens through the file input, plays its clip, and the GPU matches the CPU`, async ({ page }) => {
    const errors: string[] = [];
    await openApp(page, errors);
    const expected = countsInFile(file());
    const loaded = await openThroughInput(page, file());
    expect(loaded.error).toBeNull();
    expect(loaded.vertexCount).toBe(expected.vertices);
    expect(loaded.triangleCount).toBe(expected.triangles);
    expect(loaded.boneCount).toBe(expected.bones);
    expect(loaded.clips.length).toBe(expected.animations);
    expect(loaded.poseKind).toBe('matrices');
    expect(loaded.duration).toBeGreaterThan(1);
    expect(loaded.playing).toBe(true);
    await page.waitForFunction((t) => (window as any).__rigwright.state().time !== t, loaded.time);

    await page.evaluate(() => (window as any).__rigwright.pause());
    for (const fraction of [0.25, 0.6, 1]) {
      await page.evaluate((t) => (window as any).__rigwright.setTime(t), Math.round(fraction * loaded.duration));
      const { gpu, cpu, diagonal } = await gpuAndCpu(page);
      expect(maxDistance(gpu, cpu), `${label} at ${fraction} of the clip`).toBeLessThanOrEqual(1e-4 * diagonal);
    }
    expect(errors).toEqual([]);
  });
}

test('a .bin without its .gltf is refused and the scene stays', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors);
  const before = await state(page);
  await page.setInputFiles('#file-input', { name: 'lonely.bin', mimeType: 'application/octet-stream', buffer: Buffer.alloc(16) });
  await page.waitForFunction(() => (window as any).__rigwright.state().error !== null);
  const after = await state(page);
  expect(after.error).toContain('lonely.bin');
  expect(after.sceneName).toBe(before.sceneName);
  expect(after.vertexCount).toBe(before.vertexCount);
});

test('an export from the dialog validates and, read back in Node, poses like the app', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors);
  await openThroughInput(page, CESIUM_MAN());
  await page.evaluate(() => (window as any).__rigwright.pause());
  const frame = 20;
  await page.evaluate((t) => (window as any).__rigwright.setTime(t), frame);
  const { cpu, diagonal } = await gpuAndCpu(page);

  await page.keyboard.press('Control+e');
  const dialog = page.locator('dialog.export-dialog');
  await expect(dialog).toBeVisible();
  await dialog.getByRole('radio', { name: /GLB/ }).check({ force: true });
  await expect(dialog.locator('.export-influences')).toContainText('Weights are limited to 4 influences per vertex');
  await dialog.getByLabel('Weight storage').selectOption('float');
  await expect(dialog.locator('input[name="include-clip"]')).toBeChecked();
  await dialog.locator('input[name="bake"]').check();
  await expect(dialog.locator('.export-cost')).toContainText('Adds');
  await dialog.locator('input[name="bake"]').uncheck();
  await page.screenshot({ path: '/tmp/gltf-export-dialog.png' });
  const { name, bytes } = await exportFromDialog(page, dialog);
  expect(name).toBe('CesiumMan.glb');
  await expect(dialog).toBeHidden();
  // The closed dialog hands the keyboard back: E toggles the "as exported" preview.
  await page.keyboard.press('e');
  expect((await state(page)).asExported).toBe(true);
  await page.keyboard.press('e');
  expect((await state(page)).asExported).toBe(false);
  // Edited in place: the source's own warning (its skinned mesh node below another node, kept there) is the source's.
  await assertValidGltf(bytes, 'CesiumMan.glb exported from the app', {}, readFileSync(CESIUM_MAN()));

  const reread = await importGltf(bytes, 'CesiumMan.glb');
  expect(reread.clips.length).toBe(1);
  const posed = lbs(reread, influencesFromWeights(reread.weights, 4), transformsAt(reread, 0, frame));
  expect(maxDistance(posed, cpu)).toBeLessThanOrEqual(1e-4 * diagonal);

  // The file came from glTF, so it is edited in place; a bake goes in as morph targets and a clip of its own.
  await page.keyboard.press('Control+e');
  await dialog.locator('input[name="bake"]').check();
  const { bytes: baked } = await exportFromDialog(page, dialog);
  await assertValidGltf(baked, 'CesiumMan.glb exported with a bake', {}, readFileSync(CESIUM_MAN()));
  const bakedDoc = await new NodeIO().readBinary(baked);
  const bakedClip = bakedDoc
    .getRoot()
    .listAnimations()
    .find((a) => / baked\)$/.test(a.getName()))!;
  expect(bakedClip, 'a clip of morph weights').toBeTruthy();
  expect(bakedClip.listChannels().every((c) => c.getTargetPath() === 'weights')).toBe(true);
  expect(bakedDoc.getRoot().listMeshes()[0].listPrimitives()[0].listTargets().length).toBe(
    bakedClip.listSamplers()[0].getInput()!.getCount(),
  );
  expect(errors).toEqual([]);
});

test('"as exported" with 8-bit weights: within the quantization bound of full precision, equal to Node', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors);
  await openThroughInput(page, CESIUM_MAN());
  const frame = 12;
  await page.evaluate((t) => {
    const h = (window as any).__rigwright;
    h.pause();
    h.setInfluences(4);
    h.setTime(t);
  }, frame);
  const full = await gpuAndCpu(page);

  await page.evaluate(() => (window as any).__rigwright.setAsExported(true, { influences: 4, weightComponent: 'unsigned-byte' }));
  const s = await state(page);
  expect(s.asExported).toBe(true);
  expect(s.method).toBe('lbs');
  const exported = await gpuAndCpu(page);
  expect(maxDistance(exported.gpu, exported.cpu)).toBeLessThanOrEqual(1e-4 * exported.diagonal);

  const rig = await importGltf(new Uint8Array(readFileSync(CESIUM_MAN())), 'CesiumMan.glb');
  const transforms = transformsAt(rig, 0, frame);
  const quantized = exportedInfluences(rig.weights, 4, 'unsigned-byte');
  const node = lbs(rig, quantized, transforms);
  expect(maxDistance(exported.gpu, node)).toBeLessThanOrEqual(1e-4 * exported.diagonal);

  // Per vertex: |quantized − full| ≤ (slots / 255) · max_k ‖A_k x − p_full‖ over the vertex's bones.
  const kept = influencesFromWeights(rig.weights, 4);
  const fullNode = lbs(rig, kept, transforms);
  expect(maxDistance(fullNode, full.cpu)).toBeLessThanOrEqual(1e-4 * full.diagonal);
  const x = rig.mesh.positions;
  let changed = 0;
  for (let v = 0; v < kept.vertexCount; v++) {
    let spread = 0;
    for (let k = 0; k < kept.stride; k++) {
      const t = 12 * kept.bones[v * kept.stride + k];
      const moved = [0, 1, 2].map(
        (r) =>
          transforms[t + 4 * r] * x[3 * v] +
          transforms[t + 4 * r + 1] * x[3 * v + 1] +
          transforms[t + 4 * r + 2] * x[3 * v + 2] +
          transforms[t + 4 * r + 3],
      );
      spread = Math.max(spread, Math.hypot(moved[0] - fullNode[3 * v], moved[1] - fullNode[3 * v + 1], moved[2] - fullNode[3 * v + 2]));
    }
    const d = Math.hypot(
      exported.gpu[3 * v] - full.gpu[3 * v],
      exported.gpu[3 * v + 1] - full.gpu[3 * v + 1],
      exported.gpu[3 * v + 2] - full.gpu[3 * v + 2],
    );
    expect(d, `vertex ${v}`).toBeLessThanOrEqual(quantizationBound('unsigned-byte', 4, spread) + 1e-5 * full.diagonal);
    if (d > 1e-6 * full.diagonal) changed++;
  }
  expect(changed, 'quantization moves some vertices').toBeGreaterThan(0);

  await page.keyboard.press('e');
  expect((await state(page)).asExported).toBe(false);
  expect(errors).toEqual([]);
});

test('a .gltf opens with its .bin files dropped together, and without them is refused naming the buffer', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors);
  const folder = path.dirname(dataFile('gltf', 'SimpleSkin', 'glTF', 'SimpleSkin.gltf'));
  const gltf = path.join(folder, 'SimpleSkin.gltf');
  const refused = await openThroughInput(page, gltf);
  expect(refused.error).toMatch(/SimpleSkin\.gltf: buffer \d+ is in "\w+\.bin"/);
  expect(refused.sceneName).not.toBe('SimpleSkin.gltf');

  const bins = ['inverseBindMatrices.bin', 'skinAnimation.bin', 'skinGeometry.bin', 'skinningData.bin'].map((f) => path.join(folder, f));
  await page.setInputFiles('#file-input', [gltf, ...bins]);
  await page.waitForFunction(() => (window as any).__rigwright.state().sceneName === 'SimpleSkin.gltf');
  const loaded = await state(page);
  expect(loaded.error).toBeNull();
  const embedded = countsInFile(dataFile('gltf', 'SimpleSkin', 'glTF-Embedded', 'SimpleSkin.gltf'));
  expect(loaded.vertexCount).toBe(embedded.vertices);
  expect(loaded.boneCount).toBe(embedded.bones);
  const { gpu, cpu, diagonal } = await gpuAndCpu(page);
  expect(maxDistance(gpu, cpu)).toBeLessThanOrEqual(1e-4 * diagonal);
});

test('Fox.glb: the clip picker switches between its three clips; the walk moves the root as glTF says', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors);
  const loaded = await openThroughInput(page, dataFile('gltf', 'Fox', 'Fox.glb'));
  expect(loaded.error).toBeNull();
  expect(loaded.clips).toEqual(['Survey', 'Walk', 'Run']);
  expect(loaded.clipName).toBe('Survey');
  const picker = page.getByLabel('Animation clip');
  await expect(picker).toBeVisible();
  await picker.selectOption({ label: 'Run' });
  await page.waitForFunction(() => (window as any).__rigwright.state().clipName === 'Run');
  const run = await state(page);
  expect(run.duration).not.toBe(loaded.duration);
  expect(run.playing).toBe(true);
  await page.evaluate(
    (t) => {
      const h = (window as any).__rigwright;
      h.pause();
      h.setTime(t);
    },
    Math.round(run.duration / 2),
  );
  const { gpu, cpu, diagonal } = await gpuAndCpu(page);
  expect(maxDistance(gpu, cpu)).toBeLessThanOrEqual(1e-4 * diagonal);

  // The walk translates the hips (root motion): the drawn mesh is where glTF's own evaluation of the file puts it.
  await picker.selectOption({ label: 'Walk' });
  await page.waitForFunction(() => (window as any).__rigwright.state().clipName === 'Walk');
  await page.evaluate(() => {
    const h = (window as any).__rigwright;
    h.pause();
    h.setTime(12);
  });
  const walk = await gpuAndCpu(page);
  const doc = await new NodeIO().read(dataFile('gltf', 'Fox', 'Fox.glb'));
  const walkIndex = doc
    .getRoot()
    .listAnimations()
    .findIndex((a) => a.getName() === 'Walk');
  // Frame 12 is the clip's key 12, at the file's key time.
  const keyTime = doc.getRoot().listAnimations()[walkIndex].listSamplers()[0].getInput()!.getScalar(12);
  const reference = gltfPosedPositions(doc, walkIndex, keyTime);
  expect(maxDistance(walk.gpu, reference)).toBeLessThanOrEqual(1e-4 * walk.diagonal);
  expect(errors).toEqual([]);
});

test('glTF + bin export downloads both files, which validate together', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors);
  await openThroughInput(page, RIGGED_SIMPLE());
  const downloads: Promise<[string, Uint8Array]>[] = [];
  page.on('download', (download) =>
    downloads.push(download.path().then((file) => [download.suggestedFilename(), new Uint8Array(readFileSync(file))])),
  );
  await page.keyboard.press('Control+e');
  const dialog = page.locator('dialog.export-dialog');
  await dialog.getByRole('radio', { name: /glTF \+ bin/ }).check({ force: true });
  await dialog.getByLabel('Weight storage').selectOption('unsigned-short');
  await dialog.getByRole('button', { name: 'Export' }).click();
  await expect(dialog).toBeHidden();
  await expect.poll(() => downloads.length).toBe(2);
  const files = Object.fromEntries(await Promise.all(downloads));
  expect(Object.keys(files).sort()).toEqual(['RiggedSimple.bin', 'RiggedSimple.gltf']);
  await assertValidGltf(
    files['RiggedSimple.gltf'],
    'RiggedSimple.gltf exported from the app',
    { 'RiggedSimple.bin': files['RiggedSimple.bin'] },
    readFileSync(RIGGED_SIMPLE()),
  );
  const reread = await importGltf(files['RiggedSimple.gltf'], 'RiggedSimple.gltf', { 'RiggedSimple.bin': files['RiggedSimple.bin'] });
  expect(reread.mesh.positions.length / 3).toBe((await state(page)).vertexCount);
  expect(errors).toEqual([]);
});

/** Exports the scene as glTF + bin under the name `edited`, waits for `count` downloads and returns them by name. */
async function exportAsGltfFiles(page: Page, count: number): Promise<Record<string, Uint8Array>> {
  const downloads: Promise<[string, Uint8Array]>[] = [];
  const listener = (download: Download) =>
    downloads.push(download.path().then((file) => [download.suggestedFilename(), new Uint8Array(readFileSync(file))]));
  page.on('download', listener);
  await page.keyboard.press('Control+e');
  const dialog = page.locator('dialog.export-dialog');
  await dialog.getByRole('radio', { name: /glTF \+ bin/ }).check({ force: true });
  await dialog.getByLabel('File name').fill('edited');
  await dialog.getByRole('button', { name: 'Export' }).click();
  await expect(dialog).toBeHidden();
  await expect.poll(() => downloads.length).toBe(count);
  page.off('download', listener);
  return Object.fromEntries(await Promise.all(downloads));
}

test('a .gltf with its image in textures/ exports from the web page as one asset: into a chosen folder, or as downloads that name each other', async ({
  page,
}) => {
  const errors: string[] = [];
  // The folder picker answers with a folder of the origin's private file system: the page writes through the real
  // File System Access API, and the test reads the folder back.
  await page.addInitScript(() => {
    (window as any).showDirectoryPicker = async () =>
      (await navigator.storage.getDirectory()).getDirectoryHandle('chosen', { create: true });
  });
  await openApp(page, errors);
  // asset.gltf, asset.bin and the image whose URI is textures/skin.png (dropped files carry no folders: it is found by
  // its base name).
  const { json, bin } = await texturedAsset();
  await page.setInputFiles('#file-input', [
    { name: 'asset.gltf', mimeType: 'model/gltf+json', buffer: Buffer.from(JSON.stringify(json)) },
    { name: 'asset.bin', mimeType: 'application/octet-stream', buffer: Buffer.from(bin) },
    { name: 'skin.png', mimeType: 'image/png', buffer: Buffer.from(TEXTURE) },
  ]);
  await page.waitForFunction(() => (window as any).__rigwright.state().sceneName === 'asset.gltf');

  expect(Object.keys(await exportAsGltfFiles(page, 0)), 'nothing is downloaded when a folder was chosen').toEqual([]);
  const readChosen = (): Promise<Record<string, number[]>> =>
    page.evaluate(async () => {
      const files: Record<string, number[]> = {};
      const walk = async (folder: any, prefix: string): Promise<void> => {
        for await (const [name, handle] of folder.entries()) {
          if (handle.kind === 'directory') await walk(handle, `${prefix}${name}/`);
          else files[`${prefix}${name}`] = Array.from(new Uint8Array(await (await handle.getFile()).arrayBuffer()));
        }
      };
      await walk(await (await navigator.storage.getDirectory()).getDirectoryHandle('chosen'), '');
      return files;
    });
  // The .gltf is written last: once it is there, the set is whole.
  await expect.poll(async () => Object.keys(await readChosen()).sort()).toEqual(['edited.bin', 'edited.gltf', 'textures/skin.png']);
  const written = await readChosen();
  const chosen = Object.fromEntries(Object.entries(written).map(([name, bytes]) => [name, Uint8Array.from(bytes)]));
  expect(Buffer.from(chosen['textures/skin.png']).equals(Buffer.from(TEXTURE)), 'the image byte for byte').toBe(true);
  const reread = await importGltf(chosen['edited.gltf'], 'edited.gltf', chosen);
  expect(Buffer.from(reread.look.materials[0].baseColorTexture?.bytes ?? []).equals(Buffer.from(TEXTURE))).toBe(true);

  // Without a folder picker: downloads, the image's path flattened into its name, and the .gltf naming it so.
  await page.evaluate(() => delete (window as any).showDirectoryPicker);
  const downloaded = await exportAsGltfFiles(page, 3);
  expect(Object.keys(downloaded).sort()).toEqual(['edited.bin', 'edited.gltf', 'textures_skin.png']);
  expect(Buffer.from(downloaded['textures_skin.png']).equals(Buffer.from(TEXTURE)), 'the image byte for byte').toBe(true);
  const again = await importGltf(downloaded['edited.gltf'], 'edited.gltf', downloaded);
  expect(Buffer.from(again.look.materials[0].baseColorTexture?.bytes ?? []).equals(Buffer.from(TEXTURE))).toBe(true);
  expect(errors).toEqual([]);
});
