/**
 * Several meshes on one skeleton, as an artist drops them: two OBJ tubes made here (with a two-bone skeleton and a
 * handle file indexing the joined vertices) open as one scene with a mesh each; H, Alt+H and / change what is drawn
 * (the viewport's index and its pixels); one brush stroke with all meshes active paints both across the gap, with
 * one mesh active only that one; binding one mesh gives its rows the harmonic solve on that tube alone (computed
 * here in Node) and leaves the other mesh's rows bit for bit; every undo is exact. Uses `window.__rigwright`.
 */
import { test, expect, type Page } from '@playwright/test';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { artifactsDir, loadFiles, openApp } from './app-driver.ts';
import { harmonicWeights } from '../../workers/weights/harmonic-weights.ts';

const SEGMENTS = 16;

// Wide enough that the status line never wraps: a wrap would resize the canvas and change the pixel counts.
test.use({ viewport: { width: 1600, height: 900 } });

interface Tube {
  rings: number;
  positions: number[];
  triangles: number[];
}

/** A tube along x from x0 to x1: `rings` rings of SEGMENTS vertices, radius r. */
function tube(x0: number, x1: number, rings: number, r: number): Tube {
  const positions: number[] = [];
  for (let i = 0; i < rings; i++) {
    for (let j = 0; j < SEGMENTS; j++) {
      const a = (2 * Math.PI * j) / SEGMENTS;
      positions.push(x0 + ((x1 - x0) * i) / (rings - 1), r * Math.cos(a), r * Math.sin(a));
    }
  }
  const triangles: number[] = [];
  for (let i = 0; i + 1 < rings; i++) {
    for (let j = 0; j < SEGMENTS; j++) {
      const a = i * SEGMENTS + j;
      const b = i * SEGMENTS + ((j + 1) % SEGMENTS);
      triangles.push(a, b, a + SEGMENTS, b, b + SEGMENTS, a + SEGMENTS);
    }
  }
  return { rings, positions, triangles };
}

const objText = (t: Tube): string =>
  [
    ...Array.from({ length: t.positions.length / 3 }, (_, v) => `v ${t.positions.slice(3 * v, 3 * v + 3).join(' ')}`),
    ...Array.from(
      { length: t.triangles.length / 3 },
      (_, f) =>
        `f ${t.triangles
          .slice(3 * f, 3 * f + 3)
          .map((i) => i + 1)
          .join(' ')}`,
    ),
  ].join('\n') + '\n';

/** A tube's end rings: the first on bone 0, the last on bone 1. */
function ringHandles(t: Tube): number[] {
  const n = t.positions.length / 3;
  return Array.from({ length: n }, (_, v) => (v < SEGMENTS ? 0 : v >= n - SEGMENTS ? 1 : -1));
}

const left = tube(-1, -0.03, 14, 0.22);
const right = tube(0.03, 1, 16, 0.18);
const VL = left.positions.length / 3;
const VR = right.positions.length / 3;
const NB = 2;

const hook = (page: Page) => page.evaluate(() => (window as any).__rigwright.state());
const meshes = (page: Page) => page.evaluate(() => (window as any).__rigwright.meshes.state());
const weights = (page: Page): Promise<number[]> => page.evaluate(() => (window as any).__rigwright.paint.weightsSnapshot());
const command = (page: Page, id: string, argument?: unknown): Promise<boolean> =>
  page.evaluate(([c, a]) => (window as any).__rigwright.command(c, a), [id, argument] as const);

/** Vertices of [start, start + count) whose row differs between two weight snapshots. */
function changedRows(before: number[], after: number[], start: number, count: number): number {
  let n = 0;
  for (let v = start; v < start + count; v++) {
    for (let b = 0; b < NB; b++) {
      if (!Object.is(before[v * NB + b], after[v * NB + b])) {
        n++;
        break;
      }
    }
  }
  return n;
}

/** A stroke along the bones through the gap between the tubes, from 30% of the way to joint 0 to 30% towards joint 2. */
async function strokeAcrossGap(page: Page): Promise<void> {
  const [j0, j1, j2] = await page.evaluate(() => [0, 1, 2].map((j) => (window as any).__rigwright.jointScreenPosition(j)));
  const at = (p: { x: number; y: number }, t: number) => ({ x: j1.x + t * (p.x - j1.x), y: j1.y + t * (p.y - j1.y) });
  const from = at(j0, 0.3);
  const to = at(j2, 0.3);
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(to.x, to.y, { steps: 12 });
  await page.mouse.up();
}

test('two meshes dropped at once: hide and isolate change what is drawn, a stroke crosses the gap or keeps to the active mesh, binding one mesh leaves the other bit for bit, undo is exact', async ({
  page,
}) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  const dir = mkdtempSync(path.join(tmpdir(), 'rigwright-meshes-'));
  const files = {
    left: path.join(dir, 'left.obj'),
    right: path.join(dir, 'right.obj'),
    skeleton: path.join(dir, 'two.tgf'),
    handles: path.join(dir, 'handles.dmat'),
  };
  writeFileSync(files.left, objText(left));
  writeFileSync(files.right, objText(right));
  writeFileSync(files.skeleton, '1 -1 0 0\n2 0 0 0\n3 1 0 0\n#\n1 2\n2 3\n');
  const handles = [...ringHandles(left), ...ringHandles(right)];
  writeFileSync(files.handles, `1 ${handles.length}\n${handles.join('\n')}\n`);
  await loadFiles(page, [files.left, files.right, files.skeleton, files.handles], 'right.obj');
  await page.evaluate(() => (window as any).__rigwright.pause());
  const state = await hook(page);
  expect(state.error).toBeNull();
  expect(state.meshFiles).toEqual(['left.obj', 'right.obj']);
  expect(state.vertexCount).toBe(VL + VR);
  const FL = left.triangles.length / 3;
  const FR = right.triangles.length / 3;
  expect((await meshes(page)).parts).toEqual([
    { name: 'left.obj', vertexStart: 0, vertexCount: VL, triangleStart: 0, triangleCount: FL },
    { name: 'right.obj', vertexStart: VL, vertexCount: VR, triangleStart: FL, triangleCount: FR },
  ]);
  expect((await meshes(page)).panelOpen, 'the Meshes panel opens for a scene with several meshes').toBe(true);
  await expect(page.locator('#meshes-panel .mesh-row')).toHaveCount(3);

  // Hide (H), show all (Alt+H), isolate (/): the viewport's index and its pixels; no undo step.
  const drawn = () => page.evaluate(() => (window as any).__rigwright.meshes.drawnTriangles());
  const pixels = (): Promise<number> => page.evaluate(() => (window as any).__rigwright.meshes.coveredPixels());
  const undoSteps = (await page.evaluate(() => (window as any).__rigwright.history())).undo.length;
  expect(await drawn()).toBe(FL + FR);
  const allPixels = await pixels();
  expect(await command(page, 'meshes.active', 'right.obj')).toBe(true);
  await expect(page.locator('#status')).toContainText('2 meshes: tools act on right.obj');
  await page.keyboard.press('h');
  expect((await meshes(page)).hidden).toEqual([false, true]);
  await expect(page.locator('#status')).toContainText('2 meshes: tools act on all, 1 hidden');
  expect(await drawn()).toBe(FL);
  const leftPixels = await pixels();
  expect(leftPixels, 'hiding the right tube draws fewer pixels').toBeLessThan(0.85 * allPixels);
  await page.keyboard.press('Alt+h');
  expect((await meshes(page)).hidden).toEqual([false, false]);
  expect(await drawn()).toBe(FL + FR);
  expect(Math.abs((await pixels()) - allPixels), 'showing all draws both again').toBeLessThan(0.02 * allPixels);
  await command(page, 'meshes.active', 1);
  await page.keyboard.press('/');
  expect((await meshes(page)).hidden).toEqual([true, false]);
  expect(await drawn()).toBe(FR);
  const rightPixels = await pixels();
  expect(rightPixels).toBeLessThan(0.85 * allPixels);
  // The split view's second half draws the same meshes, also when it is opened while one is hidden.
  await page.evaluate(() => (window as any).__rigwright.setSplit('dqs'));
  expect(await page.evaluate(() => (window as any).__rigwright.meshes.drawnTriangles('split'))).toBe(FR);
  await page.evaluate(() => (window as any).__rigwright.setSplit(null));
  expect(await page.evaluate(() => (window as any).__rigwright.meshes.drawnTriangles('split'))).toBeNull();
  // So does the unposed-examples row (here only the rest shape: the scene has no examples).
  expect(await command(page, 'examples.showUnposed')).toBe(true);
  expect(await page.evaluate(() => (window as any).__rigwright.meshes.drawnTriangles('unposed'))).toBe(FR);
  expect(await command(page, 'examples.showUnposed')).toBe(true);
  expect(await page.evaluate(() => (window as any).__rigwright.meshes.drawnTriangles('unposed'))).toBeNull();
  console.log(`covered pixels: both ${allPixels}, left alone ${leftPixels}, right alone ${rightPixels}`);
  mkdirSync(artifactsDir, { recursive: true });
  await page.screenshot({ path: path.join(artifactsDir, 'meshes-isolated.png') });
  await page.keyboard.press('/');
  expect((await meshes(page)).hidden).toEqual([false, false]);
  await page.evaluate(() => (window as any).__rigwright.setSplit('dqs'));
  expect(await page.evaluate(() => (window as any).__rigwright.meshes.drawnTriangles('split'))).toBe(FL + FR);
  await page.evaluate(() => (window as any).__rigwright.setSplit(null));
  expect(Math.abs((await pixels()) - allPixels), 'showing all draws both again').toBeLessThan(0.02 * allPixels);
  expect((await page.evaluate(() => (window as any).__rigwright.history())).undo.length, 'hiding is no undo step').toBe(undoSteps);

  // One stroke with all meshes active paints both tubes across the gap; undo is exact.
  await command(page, 'meshes.active', -1);
  await page.keyboard.press('p');
  await page.evaluate(() => {
    const h = (window as any).__rigwright;
    h.paint.setBrush({ mode: 'add', strength: 0.6, radius: 35 });
    h.paint.selectBone(0);
  });
  const before = await weights(page);
  await strokeAcrossGap(page);
  const across = await weights(page);
  const acrossLeft = changedRows(before, across, 0, VL);
  const acrossRight = changedRows(before, across, VL, VR);
  expect(acrossLeft, 'the stroke painted the left tube').toBeGreaterThan(5);
  expect(acrossRight, 'and the right tube').toBeGreaterThan(5);
  await page.screenshot({ path: path.join(artifactsDir, 'meshes-stroke.png') });
  await page.keyboard.press('Control+z');
  expect(await weights(page)).toEqual(before);

  // The same stroke with the right tube active leaves the left one as it was.
  await command(page, 'meshes.active', 'right.obj');
  await strokeAcrossGap(page);
  const rightOnly = await weights(page);
  expect(changedRows(before, rightOnly, 0, VL), 'the left tube is untouched').toBe(0);
  expect(changedRows(before, rightOnly, VL, VR)).toBeGreaterThan(5);
  // A hidden mesh is not painted either: all active, the right tube hidden.
  await page.keyboard.press('Control+z');
  expect(await weights(page)).toEqual(before);
  await command(page, 'meshes.active', -1);
  await command(page, 'meshes.toggle', 'right.obj');
  await strokeAcrossGap(page);
  const hiddenRight = await weights(page);
  expect(changedRows(before, hiddenRight, VL, VR), 'the hidden right tube is untouched').toBe(0);
  expect(changedRows(before, hiddenRight, 0, VL)).toBeGreaterThan(5);
  await page.keyboard.press('Control+z');
  expect(await weights(page)).toEqual(before);
  await command(page, 'meshes.toggle', 'right.obj');
  await page.keyboard.press('p');

  // Bind the right tube alone: its rows are the harmonic solve on that tube built here, the left rows stay.
  const scene = await page.evaluate(() => (window as any).__rigwright.work.scene());
  const rightPositions = Float64Array.from(scene.positions.slice(3 * VL));
  const direct = harmonicWeights(rightPositions, Uint32Array.from(right.triangles), Int32Array.from(ringHandles(right)), NB);
  await command(page, 'meshes.active', 'right.obj');
  // The harmonic solve from the handles: the tubes are open, which the default method binds volumetrically.
  await command(page, 'bind.options', { method: 'surface' });
  expect(await command(page, 'bind.computePart')).toBe(true);
  await page.waitForFunction(
    () => {
      const h = (window as any).__rigwright;
      return h.history().undo.at(-1) === 'Compute weights of right.obj' || h.state().error !== null;
    },
    undefined,
    { timeout: 60_000 },
  );
  expect((await hook(page)).error).toBeNull();
  const bound = await weights(page);
  expect(bound.slice(0, VL * NB), 'the left tube keeps its weights bit for bit').toEqual(before.slice(0, VL * NB));
  let worst = 0;
  for (let i = 0; i < VR * NB; i++) worst = Math.max(worst, Math.abs(bound[VL * NB + i] - direct.weights[i]));
  expect(worst, 'the right tube has the solve on itself').toBeLessThan(1e-12);
  expect(
    bound.slice(VL * NB).some((w) => w > 0.05 && w < 0.95),
    'harmonic, not rigid',
  ).toBe(true);
  await page.keyboard.press('Control+z');
  expect(await weights(page)).toEqual(before);
  await page.keyboard.press('Control+Shift+z');
  expect(await weights(page)).toEqual(bound);
  expect(errors).toEqual([]);
});
