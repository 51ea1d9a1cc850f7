/**
 * Weight transfer between two meshes of one scene, as an artist does it in the Meshes panel: an arm (a tube weighted
 * from bone 0 to bone 1 along its length) and a sleeve around it with a loose cuff that stands too far off to match;
 * the sleeve made active, the arm chosen in the Transfer row, the button pressed: the sleeve's rows are those of the
 * same transfer computed here in Node, the arm's rows stay bit for bit, the notice counts the vertices matched and
 * inpainted, its action selects the inpainted ones, and one undo puts everything back. Then the same from a file: the
 * sleeve opened alone takes the arm's weights from its mesh and weight file chosen through Rig → Transfer weights from
 * a file…, the bones matched by count, the Transfer match view's legend counts what was matched and inpainted, and
 * the Bind panel's Last binding section selects the inpainted vertices; that view is test/e2e/screenshots/
 * transfer-match.png at 1440×900. Uses `window.__rigwright`.
 */
import { test, expect, type Page } from '@playwright/test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chooseFiles, loadFiles, openApp, repoRoot, runFromMenu } from './app-driver.ts';
import { weightTransfer } from '../../workers/weights/weight-transfer.ts';

const SEGMENTS = 16;

interface Tube {
  positions: number[];
  triangles: number[];
}

/** A tube along x from x0 to x1: `rings` rings of SEGMENTS vertices, radius radius(x). */
function tube(x0: number, x1: number, rings: number, radius: (x: number) => number): Tube {
  const positions: number[] = [];
  for (let i = 0; i < rings; i++) {
    const x = x0 + ((x1 - x0) * i) / (rings - 1);
    for (let j = 0; j < SEGMENTS; j++) {
      const a = (2 * Math.PI * j) / SEGMENTS;
      positions.push(x, radius(x) * Math.cos(a), radius(x) * Math.sin(a));
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
  return { positions, triangles };
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

const arm = tube(-1, 1, 41, () => 0.2);
/** 2 cm off the arm, but a cuff near x = 0.4 stands 15 cm off: beyond the match distance, so it is inpainted. */
const sleeve = tube(-0.6, 0.6, 25, (x) => 0.22 + 0.15 * Math.max(0, 1 - Math.abs(x - 0.4) / 0.1));
const VA = arm.positions.length / 3;
const VS = sleeve.positions.length / 3;
const NB = 2;

/** Bone 1's weight along the arm, 0 at x = −1 to 1 at x = 1; the sleeve starts all on bone 0. */
function startWeights(): number[] {
  const rows: number[][] = [];
  for (let v = 0; v < VA; v++) {
    const t = (arm.positions[3 * v] + 1) / 2;
    rows.push([1 - t, t]);
  }
  for (let v = 0; v < VS; v++) rows.push([1, 0]);
  return rows.flat();
}

/**
 * How many pixels of the viewport are orange (red well above blue: the Transfer view's inpainted colour) and how many
 * blue (blue well above red: its matched colour), from a screenshot decoded in the page.
 */
async function colourCounts(page: Page): Promise<{ orange: number; blue: number }> {
  const png = await page.locator('#viewport canvas').first().screenshot();
  return page.evaluate(async (base64) => {
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    const context = canvas.getContext('2d')!;
    context.drawImage(bitmap, 0, 0);
    const data = context.getImageData(0, 0, bitmap.width, bitmap.height).data;
    let orange = 0;
    let blue = 0;
    for (let i = 0; i < data.length; i += 4) {
      const [r, , b] = [data[i], data[i + 1], data[i + 2]];
      if (r > 120 && r > 2 * b) orange++;
      else if (b > 120 && b > 1.5 * r) blue++;
    }
    return { orange, blue };
  }, png.toString('base64'));
}

const weights = (page: Page): Promise<number[]> => page.evaluate(() => (window as any).__rigwright.paint.weightsSnapshot());

test('the Meshes panel carries the arm’s weights onto the sleeve: the transfer’s rows, the arm’s kept, one undo step', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  const dir = mkdtempSync(path.join(tmpdir(), 'rigwright-transfer-'));
  const files = {
    arm: path.join(dir, 'arm.obj'),
    sleeve: path.join(dir, 'sleeve.obj'),
    skeleton: path.join(dir, 'two.tgf'),
    weights: path.join(dir, 'weights.dmat'),
  };
  writeFileSync(files.arm, objText(arm));
  writeFileSync(files.sleeve, objText(sleeve));
  writeFileSync(files.skeleton, '1 -1 0 0\n2 0 0 0\n3 1 0 0\n#\n1 2\n2 3\n');
  const start = startWeights();
  const columnMajor = [0, 1].flatMap((b) => Array.from({ length: VA + VS }, (_, v) => start[v * NB + b]));
  writeFileSync(files.weights, `${NB} ${VA + VS}\n${columnMajor.join('\n')}\n`);
  await loadFiles(page, [files.arm, files.sleeve, files.skeleton, files.weights], 'sleeve.obj');
  expect((await page.evaluate(() => (window as any).__rigwright.state())).error).toBeNull();
  const before = await weights(page);
  const undoSteps = (await page.evaluate(() => (window as any).__rigwright.history())).undo.length;

  const panel = page.locator('#meshes-panel');
  await expect(panel).toBeVisible();
  await panel.locator('.mesh-row', { hasText: 'sleeve.obj' }).locator('.mesh-active').check();
  await panel.getByRole('combobox', { name: 'Transfer weights from' }).selectOption({ label: 'arm.obj' });
  await panel.getByRole('button', { name: 'Onto the active mesh' }).click();
  const notice = page.locator('.notice', { hasText: 'Weights transferred from arm.obj to sleeve.obj' });
  await expect(notice).toBeVisible();

  const expected = weightTransfer(
    {
      positions: Float64Array.from(arm.positions),
      triangles: Uint32Array.from(arm.triangles),
      weights: Float64Array.from(start.slice(0, VA * NB)),
    },
    { positions: Float64Array.from(sleeve.positions), triangles: Uint32Array.from(sleeve.triangles) },
    NB,
  );
  expect(expected.inpaintedCount, 'the cuff is inpainted').toBeGreaterThan(SEGMENTS);
  await expect(notice).toContainText(`${expected.matchedCount} vertices matched`);
  await expect(notice).toContainText(`${expected.inpaintedCount} vertices inpainted`);
  const after = await weights(page);
  expect(after.slice(0, VA * NB), 'the arm keeps its rows bit for bit').toEqual(before.slice(0, VA * NB));
  const sleeveRows = after.slice(VA * NB);
  // The worker runs the same code on the same numbers: the Node transfer's rows (the scene's max influences, 4, keep both bones).
  for (let i = 0; i < VS * NB; i++) expect(Math.abs(sleeveRows[i] - expected.weights[i]), `sleeve entry ${i}`).toBeLessThan(1e-12);

  await notice.getByRole('button', { name: 'Select the inpainted vertices' }).click();
  const selected: number = await page.evaluate(() => (window as any).__rigwright.binding.state().selectedVertexCount);
  expect(selected, 'the inpainted vertices are selected').toBe(expected.inpaintedCount);

  expect((await page.evaluate(() => (window as any).__rigwright.history())).undo.length, 'one undo step').toBe(undoSteps + 1);
  await page.keyboard.press('Control+z');
  expect(await weights(page), 'undo puts the weights back').toEqual(before);
  expect(errors).toEqual([]);
});

test('Rig → Transfer weights from a file…: the sleeve alone takes the arm’s weights from its files; the Transfer match view counts them', async ({
  page,
}) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  const dir = mkdtempSync(path.join(tmpdir(), 'rigwright-transfer-file-'));
  const files = {
    arm: path.join(dir, 'arm.obj'),
    armWeights: path.join(dir, 'arm.dmat'),
    sleeve: path.join(dir, 'sleeve.obj'),
    skeleton: path.join(dir, 'two.tgf'),
  };
  writeFileSync(files.arm, objText(arm));
  writeFileSync(files.sleeve, objText(sleeve));
  writeFileSync(files.skeleton, '1 -1 0 0\n2 0 0 0\n3 1 0 0\n#\n1 2\n2 3\n');
  const armRows = startWeights().slice(0, VA * NB);
  const columnMajor = [0, 1].flatMap((b) => Array.from({ length: VA }, (_, v) => armRows[v * NB + b]));
  writeFileSync(files.armWeights, `${NB} ${VA}\n${columnMajor.join('\n')}\n`);
  await loadFiles(page, [files.sleeve, files.skeleton], 'sleeve.obj');
  expect((await page.evaluate(() => (window as any).__rigwright.state())).error).toBeNull();
  const undoSteps = (await page.evaluate(() => (window as any).__rigwright.history())).undo.length;

  await chooseFiles(page, () => runFromMenu(page, 'Rig', 'weights.transferFromFile'), [files.arm, files.armWeights]);
  const notice = page.locator('.notice', { hasText: 'Weights transferred from arm.obj + arm.dmat to sleeve.obj' });
  await expect(notice).toBeVisible();
  await expect(notice).toContainText('Bones matched by count (2): arm.obj + arm.dmat names no bones.');
  const expected = weightTransfer(
    { positions: Float64Array.from(arm.positions), triangles: Uint32Array.from(arm.triangles), weights: Float64Array.from(armRows) },
    { positions: Float64Array.from(sleeve.positions), triangles: Uint32Array.from(sleeve.triangles) },
    NB,
  );
  const after = await weights(page);
  for (let i = 0; i < VS * NB; i++) expect(Math.abs(after[i] - expected.weights[i]), `sleeve entry ${i}`).toBeLessThan(1e-12);
  expect((await page.evaluate(() => (window as any).__rigwright.history())).undo.length, 'one undo step').toBe(undoSteps + 1);

  const shaded = await colourCounts(page);
  await page.evaluate(() => (window as any).__rigwright.command('view.mode', 'transfer'));
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  const coloured = await colourCounts(page);
  // The cuff's inpainted ring draws orange and the matched sleeve blue, where the shaded view had neither.
  expect(coloured.orange - shaded.orange, 'orange (inpainted) pixels appear').toBeGreaterThan(2000);
  expect(coloured.blue - shaded.blue, 'blue (matched) pixels appear').toBeGreaterThan(10000);
  const legend = page.locator('#heat-map-legend');
  await expect(legend).toBeVisible();
  await expect(legend).toHaveAttribute('data-kind', 'transfer');
  await expect(legend).toContainText('Transfer from arm.obj + arm.dmat to sleeve.obj');
  await expect(legend).toContainText(`${expected.matchedCount} vertices matched · ${expected.inpaintedCount} inpainted · 0 with no match`);
  // The view at 1440×900 (the README's picture): the sleeve matched (blue), its loose cuff inpainted (orange), the
  // legend's counts; the notice, read above, dismissed so it does not cover the legend.
  await notice.getByRole('button', { name: 'Dismiss' }).click();
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  await expect(legend).toBeVisible();
  await page.screenshot({ path: path.join(repoRoot, 'test/e2e/screenshots/transfer-match.png') });

  // The Bind panel's Last binding section lists the transfer's outcome; Select picks the inpainted vertices.
  await page.evaluate(() => (window as any).__rigwright.command('bind.panel'));
  const inpaintedLine = page.locator('.binding-summary-row', {
    hasText: `Transfer from arm.obj + arm.dmat to sleeve.obj: ${expected.inpaintedCount} vertices inpainted`,
  });
  await expect(inpaintedLine).toBeVisible();
  await inpaintedLine.getByRole('button', { name: 'Select' }).click();
  const selected: number = await page.evaluate(() => (window as any).__rigwright.binding.state().selectedVertexCount);
  expect(selected, 'the inpainted vertices are selected').toBe(expected.inpaintedCount);
  expect(errors).toEqual([]);
});
