/**
 * Compressed glTF in the built app, in Chromium: Draco- and meshopt-compressed CesiumMan, made here in Node with
 * glTF-Transform, open through the file input. Their decoders load in the file-reading module worker (Draco's
 * .wasm from the build's assets, meshopt's inlined), and the scene poses like the uncompressed file opened in the
 * same page (the exact quantization bound is the unit test's, test/unit/gltf-extensions.test.ts). Every response
 * carries the desktop app's Content-Security-Policy, as app/main.ts sends it, so the worker compiles WebAssembly
 * under the same rules as in Electron.
 */
import { test, expect, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { NodeIO } from '@gltf-transform/core';
import { EXTMeshoptCompression, KHRDracoMeshCompression } from '@gltf-transform/extensions';
import draco3d from 'draco3dgltf';
import { MeshoptEncoder } from 'meshoptimizer/encoder';
import { CONTENT_SECURITY_POLICY } from '../../app/app-scheme.ts';
import { assertValidGltf, maxDistance } from '../unit/gltf-skinning-reference.ts';
import { glbJson } from '../unit/glb-json.ts';
import { dataFile, exportFromDialog, openApp } from './app-driver.ts';

interface Loaded {
  sceneName: string;
  vertexCount: number;
  error: string | null;
  positions: number[];
  diagonal: number;
}

/** Opens a file given as bytes, pauses at t = 1 s and returns the CPU-posed positions. */
async function open(page: Page, name: string, bytes: Uint8Array): Promise<Loaded> {
  await page.setInputFiles('#file-input', { name, mimeType: 'model/gltf-binary', buffer: Buffer.from(bytes) });
  await page.waitForFunction((n) => {
    const s = (window as any).__rigwright.state();
    return s.error !== null || s.sceneName === n;
  }, name);
  return page.evaluate(() => {
    const hook = (window as any).__rigwright;
    hook.pause();
    hook.setTime(1);
    const s = hook.state();
    return {
      sceneName: s.sceneName,
      vertexCount: s.vertexCount,
      error: s.error,
      positions: hook.cpuPositions(),
      diagonal: hook.boundingDiagonal(),
    };
  });
}

/**
 * Opens the app with every response carrying the desktop app's Content-Security-Policy, as app/main.ts sends it.
 * @returns the list that receives each WebAssembly response ("200 name.wasm") as it comes
 */
async function openUnderDesktopPolicy(page: Page, errors: string[]): Promise<string[]> {
  const wasm: string[] = [];
  page.on('response', (response) => {
    if (response.url().endsWith('.wasm')) wasm.push(`${response.status()} ${response.url().split('/').pop()}`);
  });
  await page.route('**/*', async (route) => {
    const response = await route.fetch();
    await route.fulfill({ response, headers: { ...response.headers(), 'content-security-policy': CONTENT_SECURITY_POLICY } });
  });
  await openApp(page, errors);
  return wasm;
}

test('Draco- and meshopt-compressed CesiumMan decode in the worker and pose like the original', async ({ page }) => {
  const errors: string[] = [];
  const wasm = await openUnderDesktopPolicy(page, errors);
  const original = readFileSync(dataFile('gltf', 'CesiumMan', 'CesiumMan.glb'));
  await MeshoptEncoder.ready;
  const io = new NodeIO()
    .registerExtensions([KHRDracoMeshCompression, EXTMeshoptCompression])
    .registerDependencies({ 'draco3d.encoder': await draco3d.createEncoderModule(), 'meshopt.encoder': MeshoptEncoder });
  const dracoDoc = await io.readBinary(original);
  dracoDoc
    .createExtension(KHRDracoMeshCompression)
    .setRequired(true)
    .setEncoderOptions({ method: KHRDracoMeshCompression.EncoderMethod.SEQUENTIAL });
  const draco = await io.writeBinary(dracoDoc);
  const meshoptDoc = await io.readBinary(original);
  meshoptDoc.createExtension(EXTMeshoptCompression).setRequired(true);
  const meshopt = await io.writeBinary(meshoptDoc);

  const reference = await open(page, 'CesiumMan.glb', original);
  expect(reference.error).toBeNull();
  const fromDraco = await open(page, 'CesiumMan-draco.glb', draco);
  expect(fromDraco.error).toBeNull();
  expect(fromDraco.sceneName).toBe('CesiumMan-draco.glb');
  expect(fromDraco.vertexCount).toBe(reference.vertexCount);
  // 14-bit positions over a ~1.5 m box move points by ~0.05 mm; the posed mesh stays within 1e-3 of the diagonal.
  const dracoError = maxDistance(fromDraco.positions, reference.positions) / reference.diagonal;
  expect(dracoError).toBeGreaterThan(0);
  expect(dracoError).toBeLessThan(1e-3);
  expect(wasm).toEqual([expect.stringMatching(/^200 draco_decoder_gltf.*\.wasm$/)]);
  const fromMeshopt = await open(page, 'CesiumMan-meshopt.glb', meshopt);
  expect(fromMeshopt.error).toBeNull();
  expect(fromMeshopt.vertexCount).toBe(reference.vertexCount);
  expect(maxDistance(fromMeshopt.positions, reference.positions) / reference.diagonal).toBeLessThan(1e-9);
  expect(errors).toEqual([]);
});

test('the export dialog compresses with Draco or meshopt: each file validates, requires its extension and opens posing like the scene', async ({
  page,
}) => {
  const errors: string[] = [];
  const wasm = await openUnderDesktopPolicy(page, errors);
  const reference = await open(page, 'CesiumMan.glb', readFileSync(dataFile('gltf', 'CesiumMan', 'CesiumMan.glb')));
  expect(reference.error).toBeNull();
  const dialog = page.locator('dialog.export-dialog');
  const written: Record<string, Uint8Array> = {};
  for (const [compression, label] of [
    ['draco', /Draco/],
    ['meshopt', /Meshopt/],
  ] as const) {
    await page.keyboard.press('Control+e');
    await expect(dialog).toBeVisible();
    await expect(dialog.locator('.export-warning', { hasText: 'required extension' })).toBeHidden();
    await dialog.getByRole('radio', { name: label }).check({ force: true });
    await expect(dialog.locator('.export-warning', { hasText: 'required extension' })).toBeVisible();
    written[compression] = (await exportFromDialog(page, dialog)).bytes;
    await expect(dialog).toBeHidden();
    // The dialog remembers the choice; back to none for the next export.
    await page.keyboard.press('Control+e');
    await expect(dialog.getByRole('radio', { name: label })).toBeChecked();
    await dialog.getByRole('radio', { name: /None/ }).check({ force: true });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  }
  expect(requiredOf(written.draco)).toEqual(['KHR_draco_mesh_compression']);
  expect(requiredOf(written.meshopt)).toEqual(['EXT_meshopt_compression']);
  // Edited in place: the source's own warning (its skinned mesh node below another node, kept there) is the source's.
  const source = readFileSync(dataFile('gltf', 'CesiumMan', 'CesiumMan.glb'));
  await assertValidGltf(written.draco, 'CesiumMan exported with Draco from the app', {}, source);
  await assertValidGltf(written.meshopt, 'CesiumMan exported with meshopt from the app', {}, source);
  expect(written.draco.length).toBeLessThan(written.meshopt.length);
  // The encoder's WebAssembly came from the build, under the desktop app's Content-Security-Policy.
  expect(wasm).toContainEqual(expect.stringMatching(/^200 draco_encoder.*\.wasm$/));

  const fromDraco = await open(page, 'CesiumMan-draco-out.glb', written.draco);
  expect(fromDraco.error).toBeNull();
  expect(fromDraco.vertexCount).toBe(reference.vertexCount);
  const dracoError = maxDistance(fromDraco.positions, reference.positions) / reference.diagonal;
  expect(dracoError).toBeGreaterThan(0);
  expect(dracoError).toBeLessThan(1e-3);
  const fromMeshopt = await open(page, 'CesiumMan-meshopt-out.glb', written.meshopt);
  expect(fromMeshopt.error).toBeNull();
  expect(maxDistance(fromMeshopt.positions, reference.positions) / reference.diagonal).toBeLessThan(1e-6);
  expect(errors).toEqual([]);
});

/** The file's extensionsRequired. */
function requiredOf(glb: Uint8Array): string[] {
  return glbJson<{ extensionsRequired?: string[] }>(glb).extensionsRequired ?? [];
}
