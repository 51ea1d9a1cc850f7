/**
 * Binding a mesh split at every corner, in Chromium on SwiftShader: the Fox (each triangle has its own three
 * vertices) bound from its own skeleton with automatic handles in the Bind panel is solved as one welded surface,
 * and when its clip plays the GPU-skinned vertices stay with the vertices at the same rest position (readback); the
 * same with the volumetric method chosen in the panel; a vertex clicked and given a weight in the Vertex weights panel
 * takes its coincident copies with it, so the seams stay closed.
 * Uses `window.__rigwright` (renderer/test-hook.ts).
 */
import { test, expect, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { importGltf } from '../../workers/formats/gltf-import.ts';
import { weldVertices } from '../../workers/mesh/weld-vertices.ts';
import { formatCount } from '../../renderer/project/plain-number.ts';
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
  expect(bound.report.method, 'the surface solve ran').toBe('surface');
  expect(bound.report.laplacianUsed).toBe('cotan');
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
  const volumetric = await binding(page);
  expect(volumetric.lastError).toBeNull();
  expect(volumetric.report, 'the volumetric binding ran, with no Laplacian').toMatchObject({ method: 'volumetric', laplacianUsed: null });
  // What ran, once, in the report: the grid and its solid voxels; which method bound which shell, once, in Last binding.
  await expect(panel.locator('.bind-report')).toContainText(
    /volumetric: \d+×\d+×\d+ grid, [\d\u2009]+ solid voxels \([\d\u2009]+ on the surface\)/,
  );
  await expect(panel.locator('.binding-summary')).toContainText(`Volumetric weights: 1 shell, ${formatCount(n)} vertices`);
  await expect(panel.locator('.bind-report')).not.toContainText('bound volumetric');
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

test('Fox: a clicked vertex selects its coincident copies; a weight typed in the Vertex weights panel moves them together, and Ctrl+Z gives the very weights back', async ({
  page,
}) => {
  const file = dataFile('gltf', 'Fox', 'Fox.glb');
  const rig = await importGltf(readFileSync(file), 'Fox.glb');
  const weld = weldVertices(rig.mesh.positions, rig.mesh.triangles);
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  await page.setInputFiles('#file-input', file);
  await page.waitForFunction(() => {
    const s = (window as any).__rigwright.state();
    return s.error !== null || s.sceneName === 'Fox.glb';
  });
  expect((await hook(page)).error).toBeNull();
  // Welded weights first (the surface solve from automatic handles), so every seam starts closed.
  await page.keyboard.press('b');
  const bindPanel = page.locator('#bind-panel');
  await bindPanel.getByLabel('Automatic: distance rule').check();
  await bindPanel.getByLabel('Binding method', { exact: true }).selectOption('surface');
  await bindPanel.locator('button:has-text("Compute weights")').click();
  await page.waitForFunction(() => (window as any).__rigwright.state().weightsSource.startsWith('harmonic'), undefined, {
    timeout: 60_000,
  });
  expect((await binding(page)).lastError).toBeNull();
  await page.evaluate(() => (window as any).__rigwright.pause());
  const B: number = (await hook(page)).boneCount;

  await page.keyboard.press('Shift+W');
  const panel = page.getByRole('complementary', { name: 'Vertex weights' });
  await expect(panel).toBeVisible();
  await panel.getByRole('button', { name: 'Select…' }).click();
  // The vertex nearest the camera among those two bones weigh on, at the page point it is drawn at (from the camera now).
  const { vertex, x, y } = await page.evaluate((boneCount) => {
    const h = (window as any).__rigwright;
    const positions: number[] = h.paint.posedPositions();
    const weights: number[] = h.paint.weightsSnapshot();
    const camera = h.look.camera();
    const m: number[] = camera.viewProjection;
    let best = { vertex: -1, x: 0, y: 0, w: Infinity };
    for (let v = 0; v < positions.length / 3; v++) {
      let bones = 0;
      for (let b = 0; b < boneCount; b++) if (weights[v * boneCount + b] > 0.05) bones++;
      if (bones < 2) continue;
      const [px, py, pz] = [positions[3 * v], positions[3 * v + 1], positions[3 * v + 2]];
      const w = m[3] * px + m[7] * py + m[11] * pz + m[15];
      const cx = (m[0] * px + m[4] * py + m[8] * pz + m[12]) / w;
      const cy = (m[1] * px + m[5] * py + m[9] * pz + m[13]) / w;
      if (Math.abs(cx) > 0.8 || Math.abs(cy) > 0.8 || w >= best.w) continue;
      best = { vertex: v, x: camera.left + ((cx + 1) / 2) * camera.width, y: camera.top + ((1 - cy) / 2) * camera.height, w };
    }
    return best;
  }, B);
  expect(vertex).toBeGreaterThanOrEqual(0);
  await page.mouse.click(x, y);
  // The click hits the vertex or a neighbour: whichever is active, the selection is its whole welded group.
  const status = await panel.getByText(/selected · active: vertex \d+/).textContent();
  const active = Number(/active: vertex (\d+)/.exec(status ?? '')?.[1]);
  const group = weld.index[active];
  const members = Array.from(weld.members.subarray(weld.memberStart[group], weld.memberStart[group + 1]));
  expect(await page.evaluate(() => (window as any).__rigwright.binding.state().selectedVertexCount)).toBe(members.length);
  expect(members.length, 'the Fox splits every vertex').toBeGreaterThan(1);

  const before: number[] = await page.evaluate(() => (window as any).__rigwright.paint.weightsSnapshot());
  // The table's strongest bone (its fields are named by the bones' names): type 0.3 for it, Enter.
  const fields = panel.getByRole('table', { name: 'Weights of the selected vertices' }).getByRole('textbox');
  const shown = await fields.evaluateAll((inputs) =>
    inputs.map((input) => ({ value: Number((input as HTMLInputElement).value), name: input.getAttribute('aria-label') ?? '' })),
  );
  const strongest = shown.reduce((p, q) => (q.value > p.value ? q : p));
  // The table orders its rows by weight: the field is found again by its bone's name.
  const field = panel.getByRole('textbox', { name: strongest.name, exact: true });
  await field.click();
  await field.fill('0.3');
  await page.keyboard.press('Enter');
  await expect(field).toHaveValue('0.3');
  const typed: number[] = await page.evaluate(() => (window as any).__rigwright.paint.weightsSnapshot());
  const first = typed.slice(members[0] * B, members[0] * B + B);
  expect(first, 'the typed weight is in the row').toContainEqual(expect.closeTo(0.3, 7));
  expect(first).not.toEqual(before.slice(members[0] * B, members[0] * B + B));
  for (const v of members) expect(typed.slice(v * B, v * B + B), `copy ${v} has the first copy's row`).toEqual(first);

  // Posed at a key of the clip, no copy leaves the others (GPU readback).
  const { duration } = await hook(page);
  const diagonal: number = await page.evaluate(() => (window as any).__rigwright.boundingDiagonal());
  const gpu: number[] = await page.evaluate(async (time) => {
    const h = (window as any).__rigwright;
    h.setTime(time);
    return h.gpuPositions();
  }, 0.45 * duration);
  let gaps = 0;
  for (let v = 0; v < weld.index.length; v++) {
    const u = weld.representative[weld.index[v]];
    if (Math.hypot(gpu[3 * v] - gpu[3 * u], gpu[3 * v + 1] - gpu[3 * u + 1], gpu[3 * v + 2] - gpu[3 * u + 2]) > 1e-9 * diagonal) gaps++;
  }
  expect(gaps, 'vertices apart from their coincident partners at the key').toBe(0);

  await page.keyboard.press('Control+z');
  const undone: number[] = await page.evaluate(() => (window as any).__rigwright.paint.weightsSnapshot());
  expect(undone, 'Ctrl+Z gives the very weights back').toEqual(before);
  expect(errors).toEqual([]);
});
