/**
 * Meshes without a skin in the app, in Chromium on SwiftShader: a static crate (no joint above it) stays at rest and
 * a rigid sword (below the arm joint) follows its joint in the GPU-skinned view at every key of the clip, where glTF's
 * own posing of the file (test/unit/props-asset.ts, no importer, no three.js) puts them, and the GPU readback equals
 * the CPU reference the unit tests compare with `rigwright skin` and the exports.
 */
import { test, expect } from '@playwright/test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WebIO } from '@gltf-transform/core';
import { importGltf } from '../../workers/formats/gltf-import.ts';
import { maxDistance } from '../unit/gltf-skinning-reference.ts';
import { gltfPosedByMesh, KEY_TIMES, propsAsset } from '../unit/props-asset.ts';
import { loadFiles, openApp } from './app-driver.ts';

test('a static crate stays and a rigid sword follows the arm on the GPU at every key, as glTF poses them', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  const bytes = await propsAsset();
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'rigwright-static-e2e-')), 'props.glb');
  writeFileSync(file, bytes);
  await loadFiles(page, [file], 'props.glb');
  expect(await page.evaluate(() => (window as any).__rigwright.state().error)).toBeNull();
  await page.evaluate(() => (window as any).__rigwright.pause());

  const rig = await importGltf(bytes, 'props.glb');
  const source = await new WebIO().readBinary(bytes);
  const diagonal: number = await page.evaluate(() => (window as any).__rigwright.boundingDiagonal());
  for (let k = 0; k < KEY_TIMES.length; k++) {
    await page.evaluate((frame) => (window as any).__rigwright.setTime(frame), k);
    const { gpu, cpu } = await page.evaluate(async () => {
      const hook = (window as any).__rigwright;
      return { gpu: (await hook.gpuPositions()) as number[], cpu: hook.cpuPositions() as number[] };
    });
    expect(maxDistance(gpu, cpu), `GPU vs CPU at key ${k}`).toBeLessThanOrEqual(1e-5 * diagonal);
    const expected = gltfPosedByMesh(source, KEY_TIMES[k]);
    for (const part of rig.parts) {
      const range = gpu.slice(3 * part.vertexStart, 3 * (part.vertexStart + part.vertexCount));
      expect(maxDistance(range, expected.get(part.name)!), `${part.name} at key ${k}`).toBeLessThanOrEqual(1e-5 * diagonal);
    }
  }
  expect(errors).toEqual([]);
});
