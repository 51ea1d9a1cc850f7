/**
 * Nothing the user does while a script runs is lost or folded into the run: on the hand, after a brush stroke of the
 * user's own, a script prunes the weights and then spins (busy slices with awaits between). Meanwhile Ctrl+Z (the
 * real key) and a brush stroke (the real mouse) change neither the scene nor the history, Edit → Undo and Paint →
 * Prune are greyed and the command palette says why ('a script is running — Stop it first'), while the view stays
 * free (W toggles the wireframe). After Stop the scene and the history are as before the run, and Ctrl+Z undoes the
 * user's stroke.
 */
import { test, expect, type Page } from '@playwright/test';
import { dataFile, loadFiles, menuItem, openApp, pagePoint } from './app-driver.ts';

const weightsOf = (page: Page): Promise<number[]> => page.evaluate(() => (window as any).__rigwright.snapshot().weights);
const undoLabels = (page: Page): Promise<string[]> => page.evaluate(() => (window as any).__rigwright.history().undo);

async function drag(page: Page, from: { x: number; y: number }, to: { x: number; y: number }): Promise<void> {
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(to.x, to.y, { steps: 10 });
  await page.mouse.up();
}

/** World points on the drawn hand: the vertex nearest its bounding box's middle, shifted along x by `offsets` of its width. */
function meshPoints(page: Page, offsets: number[]): Promise<number[][]> {
  return page.evaluate((offsets) => {
    const p: number[] = (window as any).__rigwright.paint.surfacePositions();
    const low = [Infinity, Infinity, Infinity];
    const high = [-Infinity, -Infinity, -Infinity];
    for (let i = 0; i < p.length; i++) {
      low[i % 3] = Math.min(low[i % 3], p[i]);
      high[i % 3] = Math.max(high[i % 3], p[i]);
    }
    const nearest = (q: number[]) => {
      let best = 0;
      let bestDistance = Infinity;
      for (let v = 0; v < p.length / 3; v++) {
        const d = (p[3 * v] - q[0]) ** 2 + (p[3 * v + 1] - q[1]) ** 2 + (p[3 * v + 2] - q[2]) ** 2;
        if (d < bestDistance) [best, bestDistance] = [v, d];
      }
      return [p[3 * best], p[3 * best + 1], p[3 * best + 2]];
    };
    const middle = low.map((l, k) => (l + high[k]) / 2);
    return offsets.map((f) => nearest([middle[0] + f * (high[0] - low[0]), middle[1], middle[2]]));
  }, offsets);
}

/** Prunes, then spins for a minute in 20 ms busy slices, yielding between them (Stop ends it). */
const PRUNE_THEN_SPIN = `await rig.paint.prune(0.2);
print('pruned');
const end = Date.now() + 60_000;
while (Date.now() < end) {
  const slice = Date.now() + 20;
  while (Date.now() < slice) {}
  await new Promise((resolve) => setTimeout(resolve, 0));
}
`;

test('while a script runs the user’s Ctrl+Z and brush strokes change nothing; after Stop all is as before the run', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  await loadFiles(page, [dataFile('hand', 'hand.off'), dataFile('hand', 'hand.tgf')], 'hand.off');
  await page.evaluate(() => (window as any).__rigwright.pause());
  const start = await weightsOf(page);

  // The user's own stroke before the run.
  await page.keyboard.press('p');
  const panel = page.locator('#paint-panel');
  await expect(panel).toBeVisible();
  await panel.locator('.paint-bone-name').nth(2).click();
  const [left, right] = await meshPoints(page, [-0.2, 0.2]);
  const from = await pagePoint(page, left);
  const to = await pagePoint(page, right);
  await drag(page, from, to);
  const stroked = await weightsOf(page);
  expect(stroked, 'the user’s stroke changed weights').not.toEqual(start);
  const labelsBefore = await undoLabels(page);
  expect(labelsBefore).toHaveLength(1);

  await page.evaluate((source) => {
    (window as any).__scriptRun = (window as any).__rigwright.runScript(source, 'spin.ts');
  }, PRUNE_THEN_SPIN);
  await expect.poll(async () => JSON.stringify(await weightsOf(page)) !== JSON.stringify(stroked), 'the script’s prune lands').toBe(true);
  const pruned = await weightsOf(page);
  const labelsDuringRun = await undoLabels(page);

  // Ctrl+Z and a brush stroke: nothing changes.
  await page.locator('canvas').first().hover();
  await page.keyboard.press('Control+z');
  await drag(page, to, from);
  await drag(page, from, to);
  expect(await weightsOf(page), 'neither Ctrl+Z nor the strokes changed the weights').toEqual(pruned);
  expect(await undoLabels(page), 'nor the history').toEqual(labelsDuringRun);
  expect((await page.evaluate(() => (window as any).__rigwright.scriptState())).running, 'the script still runs').toBe(true);

  // Greyed in the menus, and the palette says why.
  await expect(await menuItem(page, 'Edit', 'edit.undo')).toBeDisabled();
  await page.keyboard.press('Escape');
  await expect(await menuItem(page, 'Paint', 'paint.prune')).toBeDisabled();
  await page.keyboard.press('Escape');
  await page.keyboard.press('Control+Shift+P');
  const palette = page.getByRole('dialog', { name: 'Command palette' });
  await palette.getByRole('combobox', { name: 'Search commands' }).fill('Prune');
  const prune = palette.locator('[role="option"][data-command="paint.prune"]');
  await expect(prune).toHaveAttribute('aria-disabled', 'true');
  await expect(prune).toContainText('a script is running — Stop it first');
  await page.keyboard.press('Escape');
  await expect(palette).toBeHidden();

  // Viewing stays free: W toggles the wireframe (the View menu's check mark follows).
  const wireframe = async () => (await menuItem(page, 'View', 'view.wireframe')).getAttribute('aria-checked');
  const wasOn = await wireframe();
  await page.keyboard.press('Escape');
  await page.locator('canvas').first().hover();
  await page.keyboard.press('w');
  expect(await wireframe(), 'W toggled the wireframe').toBe(wasOn === 'true' ? 'false' : 'true');
  await page.keyboard.press('Escape');

  await page.evaluate(() => (window as any).__rigwright.stopScript());
  const run = await page.evaluate(() => (window as any).__scriptRun as Promise<{ result: { status: string } }>);
  expect(run.result.status).toBe('stopped');
  expect(await weightsOf(page), 'the scene as before the run, bit for bit').toEqual(stroked);
  expect(await undoLabels(page), 'the history as before the run').toEqual(labelsBefore);

  // The user's commands work again: Ctrl+Z undoes the user's stroke.
  await page.locator('canvas').first().hover();
  await page.keyboard.press('Control+z');
  expect(await undoLabels(page)).toEqual([]);
  expect(await weightsOf(page), 'the stroke undone').toEqual(start);
  expect(errors).toEqual([]);
});
