/**
 * Binding as an artist does it, in Chromium on SwiftShader: handles drawn with a lasso (real mouse events) and
 * assigned to a bone, harmonic weights computed in the binding worker, the heat map shown, and the GPU skinning
 * with the new weights still equal to the CPU reference; then a long solve on a large generated tube is
 * cancelled and the app carries on with its previous weights. Uses `window.__rigwright` (renderer/test-hook.ts).
 */
import { test, expect, type Page } from '@playwright/test';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { artifactsDir, circle, dataFile, gpuCpuDeviation, lasso, loadFiles, openApp, topmostJoint } from './app-driver.ts';

const hook = (page: Page) => page.evaluate(() => (window as any).__rigwright.state());
const binding = (page: Page) => page.evaluate(() => (window as any).__rigwright.binding.state());

async function load(page: Page, files: string[], mesh?: string): Promise<void> {
  await loadFiles(page, files, mesh);
  expect((await hook(page)).error).toBeNull();
}

test('hand: lasso handles with the mouse, assign to a bone, compute harmonic weights, see the heat map', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors);
  await load(page, [dataFile('hand/hand.off'), dataFile('hand/hand.tgf'), dataFile('hand/hand-handles.dmat')], 'hand.off');
  expect((await hook(page)).weightsSource).toBe('bone distance (provisional)');
  await page.evaluate(() => (window as any).__rigwright.pause());

  // With the Bind panel closed, its editing keys do nothing.
  await page.keyboard.press('l');
  await page.keyboard.press('x');
  expect((await binding(page)).lasso).toBe('off');
  await page.keyboard.press('b');
  await expect(page.locator('#bind-panel')).toBeVisible();
  const loaded = await binding(page);
  expect(loaded.handleCounts.reduce((a: number, b: number) => a + b, 0)).toBe(2752);

  // Lasso around the topmost joint on screen (a finger tip), visible vertices only, then with x-ray.
  const tip = await topmostJoint(page);
  await page.keyboard.press('l');
  expect((await binding(page)).lasso).toBe('idle');
  const ring = circle(tip.x, tip.y, 40);
  await lasso(page, ring);
  const visible = (await binding(page)).selectedVertexCount;
  expect(visible).toBeGreaterThan(10);
  await page.keyboard.press('x');
  await lasso(page, ring);
  const all = (await binding(page)).selectedVertexCount;
  expect(all, 'x-ray also selects the far side').toBeGreaterThan(visible);
  await page.keyboard.press('x');
  await lasso(page, ring);
  expect((await binding(page)).selectedVertexCount).toBe(visible);
  // Ctrl removes, Shift adds back: back to the same selection.
  await lasso(page, circle(tip.x, tip.y, 15), 'Control');
  const afterRemove = (await binding(page)).selectedVertexCount;
  expect(afterRemove).toBeLessThan(visible);
  await lasso(page, circle(tip.x, tip.y, 15), 'Shift');
  expect((await binding(page)).selectedVertexCount).toBe(visible);
  // Escape while drawing drops the polygon and changes nothing.
  await page.mouse.move(tip.x - 60, tip.y - 60);
  await page.mouse.down();
  await page.mouse.move(tip.x + 60, tip.y - 60, { steps: 3 });
  await page.mouse.move(tip.x + 60, tip.y + 60, { steps: 3 });
  mkdirSync(artifactsDir, { recursive: true });
  await page.screenshot({ path: path.join(artifactsDir, 'hand-lasso.png') });
  expect((await binding(page)).lasso).toBe('drawing');
  await page.keyboard.press('Escape');
  expect((await binding(page)).lasso).toBe('idle');
  await page.mouse.up();
  expect((await binding(page)).selectedVertexCount).toBe(visible);

  // Assign to bone 3 with the panel's bone list and the A key: handles stay disjoint.
  const before: number[] = await page.evaluate(() => (window as any).__rigwright.binding.handles());
  await page.selectOption('#bind-panel .bone-select', '3');
  expect((await hook(page)).selectedBone).toBe(3);
  await page.keyboard.press('a');
  const after: number[] = await page.evaluate(() => (window as any).__rigwright.binding.handles());
  const moved = after.filter((b, v) => b !== before[v]).length;
  expect(moved).toBeGreaterThan(0);
  const counts = (await binding(page)).handleCounts;
  expect(counts[3]).toBe(after.filter((b) => b === 3).length);
  expect(counts.reduce((a: number, b: number) => a + b, 0)).toBe(after.filter((b) => b >= 0).length);

  // Compute through the button; the progress shows, then the weights arrive.
  await page.keyboard.press('l');
  await page.click('#bind-panel button:has-text("Compute weights")');
  await page.waitForFunction(() => (window as any).__rigwright.state().weightsSource.startsWith('harmonic'), undefined, {
    timeout: 60_000,
  });
  const done = await binding(page);
  expect(done.binding.running).toBe(false);
  expect(done.view).toBe('heatmap');
  expect(done.report.bonesWithoutHandles).toEqual([]);
  expect(done.report.unhandledComponents).toEqual([]);
  await expect(page.locator('#status')).toContainText('weights: harmonic (cotan');

  // The GPU, skinning with the new weights at a posed frame, equals the CPU reference.
  await page.evaluate(() => (window as any).__rigwright.setTime(20));
  const { maxError, diagonal } = await gpuCpuDeviation(page);
  expect(maxError).toBeLessThan(1e-4 * diagonal);

  await page.evaluate(() => (window as any).__rigwright.setTime(0));
  await page.keyboard.press('k');
  await page.selectOption('#bind-panel .bone-select', '10');
  await page.screenshot({ path: path.join(artifactsDir, 'hand-weights-heatmap.png') });
  await page.keyboard.press('v');
  expect((await binding(page)).view).toBe('dominant');
  await page.screenshot({ path: path.join(artifactsDir, 'hand-dominant-bone.png') });
  await page.keyboard.press('v');
  expect((await binding(page)).view).toBe('handles');
  await page.screenshot({ path: path.join(artifactsDir, 'hand-handles.png') });
  expect(errors).toEqual([]);
});

/** A closed tube along y: `rings` rings of `segments` vertices, capped, with `bones` bones along its axis. */
function tubeFiles(dir: string, rings: number, segments: number, bones: number): { obj: string; tgf: string; handles: string } {
  const lines: string[] = [];
  for (let r = 0; r < rings; r++) {
    const y = (r / (rings - 1)) * 8;
    for (let s = 0; s < segments; s++) {
      const a = (2 * Math.PI * s) / segments;
      lines.push(`v ${Math.cos(a).toFixed(5)} ${y.toFixed(5)} ${Math.sin(a).toFixed(5)}`);
    }
  }
  lines.push('v 0 0 0', 'v 0 8 0');
  const bottom = rings * segments + 1;
  const top = bottom + 1;
  for (let r = 0; r + 1 < rings; r++) {
    for (let s = 0; s < segments; s++) {
      const a = r * segments + s + 1;
      const b = r * segments + ((s + 1) % segments) + 1;
      lines.push(`f ${a} ${b + segments} ${b}`, `f ${a} ${a + segments} ${b + segments}`);
    }
  }
  for (let s = 0; s < segments; s++) {
    lines.push(`f ${bottom} ${s + 1} ${((s + 1) % segments) + 1}`);
    const base = (rings - 1) * segments;
    lines.push(`f ${top} ${base + ((s + 1) % segments) + 1} ${base + s + 1}`);
  }
  const obj = path.join(dir, 'long-tube.obj');
  writeFileSync(obj, lines.join('\n') + '\n');
  const tgf: string[] = [];
  for (let j = 0; j <= bones; j++) tgf.push(`${j + 1} 0 ${((j / bones) * 8).toFixed(4)} 0`);
  tgf.push('#');
  for (let b = 0; b < bones; b++) tgf.push(`${b + 1} ${b + 2}`);
  const skeleton = path.join(dir, 'long-tube.tgf');
  writeFileSync(skeleton, tgf.join('\n') + '\n');
  // One ring of handle vertices at the middle of each bone; everything else is free for the solver.
  const labels = new Array<number>(rings * segments + 2).fill(-1);
  for (let b = 0; b < bones; b++) {
    const ring = Math.round(((b + 0.5) / bones) * (rings - 1));
    for (let s = 0; s < segments; s++) labels[ring * segments + s] = b;
  }
  const handles = path.join(dir, 'long-tube-handles.dmat');
  writeFileSync(handles, `1 ${labels.length}\n${labels.join('\n')}\n`);
  return { obj, tgf: skeleton, handles };
}

test('a long solve on a large tube can be cancelled; the app stays responsive and keeps its weights', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors);
  const dir = mkdtempSync(path.join(tmpdir(), 'rigwright-bind-'));
  const files = tubeFiles(dir, 1536, 128, 16);
  await load(page, [files.obj, files.tgf, files.handles], 'long-tube.obj');
  const loaded = await hook(page);
  expect(loaded.vertexCount).toBe(1536 * 128 + 2);
  expect(loaded.weightsSource).toBe('bone distance (provisional)');
  const reference = await gpuCpuDeviation(page);
  expect(reference.maxError).toBeLessThan(1e-4 * reference.diagonal);

  await page.keyboard.press('b');
  await page.evaluate(() => {
    const w = window as any;
    w.__bindDone = false;
    w.__bindStart = performance.now();
    w.__rigwright.binding.startBind({ source: 'current' }).then(() => (w.__bindDone = true));
  });
  // Wait until the solver is into its heavy stages, then check the page answers quickly while it runs.
  await page.waitForFunction(
    () => {
      const b = (window as any).__rigwright.binding.state().binding;
      return b.running && ['ordering', 'factorization', 'solve'].includes(b.stage);
    },
    undefined,
    { timeout: 60_000, polling: 20 },
  );
  const rounds: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = Date.now();
    await page.evaluate(() => (window as any).__rigwright.state().framesRendered);
    rounds.push(Date.now() - t);
  }
  const stillRunning = await binding(page);
  console.log(
    `tube ${loaded.vertexCount} vertices: stage ${stillRunning.binding.stage} after ${await page.evaluate(() => Math.round(performance.now() - (window as any).__bindStart))} ms; page round trips ${rounds.join(', ')} ms`,
  );
  expect(stillRunning.binding.running, 'the solve is still running').toBe(true);
  expect(Math.max(...rounds), 'the main thread stays free while the worker solves').toBeLessThan(500);
  const framesBefore = (await hook(page)).framesRendered;

  await page.click('#bind-panel .bind-progress button:has-text("Cancel")');
  await page.waitForFunction(() => (window as any).__bindDone === true, undefined, { timeout: 2_000 });
  const after = await binding(page);
  expect(after.binding.running).toBe(false);
  expect(after.lastError).toBeNull();
  const state = await hook(page);
  expect(state.weightsSource).toBe('bone distance (provisional)');
  expect(state.error).toBeNull();
  await page.evaluate(() => (window as any).__rigwright.setTime(0));
  expect((await hook(page)).framesRendered, 'a seek renders').toBeGreaterThan(framesBefore);
  const afterCancel = await gpuCpuDeviation(page);
  expect(afterCancel.maxError).toBeLessThan(1e-4 * afterCancel.diagonal);

  // The next solve runs in a fresh worker.
  await page.evaluate(() => {
    void (window as any).__rigwright.binding.startBind({ source: 'current' });
  });
  await page.waitForFunction(() => (window as any).__rigwright.binding.state().binding.running, undefined, { polling: 20 });
  await page.evaluate(() => (window as any).__rigwright.binding.cancelBind());
  expect((await binding(page)).binding.running).toBe(false);
  expect(errors).toEqual([]);
});
