/**
 * Binding a mesh split at every corner, in Chromium on SwiftShader: the Fox (each triangle has its own three
 * vertices) bound from its own skeleton with automatic handles in the Bind panel is solved as one welded surface,
 * and when its clip plays the GPU-skinned vertices stay with the vertices at the same rest position (readback); the
 * same with the volumetric method chosen in the panel.
 * Uses `window.__rigwright` (renderer/test-hook.ts).
 */
import { test, expect, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { importGltf } from '../../workers/formats/gltf-import.ts';
import { weldVertices } from '../../workers/mesh/weld-vertices.ts';
import { dataFile, openApp } from './app-driver.ts';

const hook = (page: Page) => page.evaluate(() => (window as any).__rigwright.state());
const binding = (page: Page) => page.evaluate(() => (window as any).__rigwright.binding.state());

test('Fox: Compute weights with automatic handles binds the split mesh welded; the played clip never opens a seam', async ({ page }) => {
  const file = dataFile('gltf', 'Fox', 'Fox.glb');
  const rig = await importGltf(readFileSync(file), 'Fox.glb');
  const weld = weldVertices(rig.mesh.positions, rig.mesh.triangles);
  const errors: string[] = [];
  await openApp(page, errors);
  await page.setInputFiles('#file-input', file);
  await page.waitForFunction(() => {
    const s = (window as any).__rigwright.state();
    return s.error !== null || s.sceneName === 'Fox.glb';
  });
  const opened = await hook(page);
  expect(opened.error).toBeNull();
  expect(opened.vertexCount).toBe(rig.mesh.positions.length / 3);

  await page.keyboard.press('b');
  const panel = page.locator('#bind-panel');
  await expect(panel).toBeVisible();
  await expect(panel.getByLabel('Weld within')).toHaveValue('0');
  await panel.getByLabel('Automatic: distance rule').check();
  // The surface solve asked for: auto binds the Fox volumetrically (its automatic handles take 60% of its vertices).
  await panel.getByLabel('Binding method', { exact: true }).selectOption('surface');
  await panel.locator('button:has-text("Compute weights")').click();
  await page.waitForFunction(() => (window as any).__rigwright.state().weightsSource.startsWith('harmonic'), undefined, {
    timeout: 60_000,
  });
  const bound = await binding(page);
  expect(bound.lastError).toBeNull();
  expect(bound.report.unhandledComponents, 'welded, the Fox is one piece with handles').toEqual([]);
  await expect(panel.locator('.bind-report')).toContainText(`solved as ${weld.count} (coincident ones welded)`);

  // Paused at keys across the clip, the GPU's posed vertices: each stays on its welded vertex's first member.
  await page.evaluate(() => (window as any).__rigwright.pause());
  const { duration } = await hook(page);
  const diagonal: number = await page.evaluate(() => (window as any).__rigwright.boundingDiagonal());
  let moved = 0;
  for (const t of [0.2, 0.45, 0.7, 0.95].map((f) => f * duration)) {
    const gpu: number[] = await page.evaluate(async (time) => {
      const h = (window as any).__rigwright;
      h.setTime(time);
      return h.gpuPositions();
    }, t);
    let gap = 0;
    for (let v = 0; v < weld.index.length; v++) {
      const u = weld.representative[weld.index[v]];
      gap = Math.max(gap, Math.hypot(gpu[3 * v] - gpu[3 * u], gpu[3 * v + 1] - gpu[3 * u + 1], gpu[3 * v + 2] - gpu[3 * u + 2]));
      moved = Math.max(moved, Math.hypot(gpu[3 * v] - rig.mesh.positions[3 * v], gpu[3 * v + 1] - rig.mesh.positions[3 * v + 1]));
    }
    expect(gap, `time ${t}: the largest distance between coincident vertices`).toBeLessThanOrEqual(1e-9 * diagonal);
  }
  expect(moved, 'the clip moves the Fox').toBeGreaterThan(0.01 * diagonal);
  expect(errors).toEqual([]);
});

test('Fox: the volumetric method chosen in the Bind panel binds every vertex from the bones; the played clip never opens a seam', async ({
  page,
}) => {
  const file = dataFile('gltf', 'Fox', 'Fox.glb');
  const rig = await importGltf(readFileSync(file), 'Fox.glb');
  const weld = weldVertices(rig.mesh.positions, rig.mesh.triangles);
  const n = rig.mesh.positions.length / 3;
  const errors: string[] = [];
  await openApp(page, errors);
  await page.setInputFiles('#file-input', file);
  await page.waitForFunction(() => {
    const s = (window as any).__rigwright.state();
    return s.error !== null || s.sceneName === 'Fox.glb';
  });
  expect((await hook(page)).error).toBeNull();
  await page.keyboard.press('b');
  const panel = page.locator('#bind-panel');
  await expect(panel.getByLabel('Binding method', { exact: true })).toHaveValue('auto');
  await panel.getByLabel('Binding method', { exact: true }).selectOption('volumetric');
  await expect(panel.getByLabel('Voxel resolution', { exact: true })).toHaveValue('128');
  await panel.locator('button:has-text("Compute weights")').click();
  await page.waitForFunction(() => (window as any).__rigwright.state().weightsSource.startsWith('volumetric'), undefined, {
    timeout: 60_000,
  });
  expect((await binding(page)).lastError).toBeNull();
  await expect(panel.locator('.bind-report')).toContainText(`one shell (${n} vertices from vertex 0, closed): bound volumetric`);
  const weights: number[] = await page.evaluate(() => (window as any).__rigwright.paint.weightsSnapshot());
  const bones = weights.length / n;
  for (let v = 0; v < n; v++) {
    const row = weights.slice(v * bones, (v + 1) * bones);
    expect(Math.abs(row.reduce((a, b) => a + b, 0) - 1), `vertex ${v} is weighted`).toBeLessThan(1e-9);
  }

  await page.evaluate(() => (window as any).__rigwright.pause());
  const { duration } = await hook(page);
  const diagonal: number = await page.evaluate(() => (window as any).__rigwright.boundingDiagonal());
  for (const t of [0.2, 0.45, 0.7, 0.95].map((f) => f * duration)) {
    const gpu: number[] = await page.evaluate(async (time) => {
      const h = (window as any).__rigwright;
      h.setTime(time);
      return h.gpuPositions();
    }, t);
    let gap = 0;
    for (let v = 0; v < weld.index.length; v++) {
      const u = weld.representative[weld.index[v]];
      gap = Math.max(gap, Math.hypot(gpu[3 * v] - gpu[3 * u], gpu[3 * v + 1] - gpu[3 * u + 1], gpu[3 * v + 2] - gpu[3 * u + 2]));
    }
    expect(gap, `time ${t}: the largest distance between coincident vertices`).toBeLessThanOrEqual(1e-9 * diagonal);
  }
  await page.keyboard.press('Control+z');
  await expect.poll(async () => (await hook(page)).weightsSource).not.toMatch(/^volumetric/);
  expect(errors).toEqual([]);
});
