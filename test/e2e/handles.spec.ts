/**
 * Automatic handles, with the real mouse: drawn handles are not replaced silently. With a rule chosen as the handle
 * source, the Bind panel says before Compute what it will replace, and after it a notice names how many bones'
 * handles went, with Undo taking the whole step back; editing automatic handles with the lasso makes the handles
 * above the source, so the next Compute uses them as edited. A handle file is the artist's whatever it is called:
 * loading one while a rule is the source makes it the source, and a rule replacing it says so.
 */
import { test, expect, type Page } from '@playwright/test';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { circle, dataFile, lasso, loadFiles, openApp, topmostJoint } from './app-driver.ts';

const binding = (page: Page) => page.evaluate(() => (window as any).__rigwright.binding.state());
const handles = (page: Page) => page.evaluate(() => (window as any).__rigwright.binding.handles() as number[]);
const state = (page: Page) => page.evaluate(() => (window as any).__rigwright.state());

/** Clicks Compute weights in the Bind panel and waits until the solve has finished. */
async function compute(page: Page): Promise<void> {
  const before = (await page.evaluate(() => (window as any).__rigwright.history().undo as string[])).length;
  await page.locator('#bind-panel').getByRole('button', { name: 'Compute weights' }).click();
  await page.waitForFunction(
    (n) => {
      const h = (window as any).__rigwright;
      return h.state().error !== null || (!h.binding.state().binding.running && h.history().undo.length > n);
    },
    before,
    { timeout: 90_000 },
  );
  expect((await state(page)).error).toBeNull();
}

test('automatic handles: say what they replace, Undo brings drawn handles back, an edit makes the edited handles the source', async ({
  page,
}) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  await loadFiles(page, [dataFile('hand/hand.off'), dataFile('hand/hand.tgf')], 'hand.off');
  await page.keyboard.press('b');
  const panel = page.locator('#bind-panel');
  await expect(panel).toBeVisible();

  // Drawn handles: a lasso around the topmost joint, assigned to bone 5 chosen in the panel.
  await panel.locator('select.bone-select').selectOption('5');
  await page.keyboard.press('l');
  const tip = await topmostJoint(page);
  await lasso(page, circle(tip.x, tip.y, 40));
  const drawnCount = (await binding(page)).selectedVertexCount;
  expect(drawnCount).toBeGreaterThan(10);
  await page.keyboard.press('a');
  const drawn = await handles(page);
  expect(drawn.filter((b) => b === 5).length).toBe(drawnCount);

  // A rule as the source: the panel says what Compute will replace before it runs.
  await panel.getByText('Automatic: distance rule').click();
  expect((await binding(page)).source).toBe('distance');
  await expect(panel.locator('.replace-note')).toHaveText(
    `Compute replaces the ${drawnCount} handle vertices above (drawn handles) with automatic ones; Undo brings them back.`,
  );
  await compute(page);
  const notice = page.locator('.notice');
  await expect(notice).toContainText('Automatic handles replaced the handles of 1 bone');
  await expect(notice).toContainText(`${drawnCount} handle vertices (drawn handles) gave way to automatic, distance rule.`);
  expect((await state(page)).weightsSource).toContain('automatic, distance rule');
  const automatic = await handles(page);
  expect(automatic).not.toEqual(drawn);

  // Undo in the notice: the drawn handles and the weights before, in one step.
  await notice.getByRole('button', { name: 'Undo' }).click();
  expect(await handles(page)).toEqual(drawn);
  expect((await state(page)).weightsSource).toBe('bone distance (provisional)');
  const undo = await page.evaluate(() => (window as any).__rigwright.history().undo as string[]);
  expect(undo.at(-1)).toBe(`Assign ${drawnCount} handles to bone 5`);

  // Automatic handles again, then edited with the lasso (Shift adds): the source becomes the handles above.
  await compute(page);
  expect(await handles(page)).toEqual(automatic);
  await expect(panel.locator('.replace-note')).toBeHidden();
  await lasso(page, circle(tip.x + 30, tip.y + 60, 25));
  expect((await binding(page)).selectedVertexCount).toBeGreaterThan(0);
  await page.keyboard.press('a');
  expect((await binding(page)).source).toBe('current');
  await expect(panel.getByRole('radio', { name: 'Handles above' })).toBeChecked();
  const edited = await handles(page);
  expect(edited).not.toEqual(automatic);
  await compute(page);
  expect(await handles(page), 'Compute uses the edited handles').toEqual(edited);
  expect((await state(page)).weightsSource).toContain('automatic, distance rule, edited');
  expect(errors).toEqual([]);
});

test('automatic handles: a handle file named automatic… is the artist’s; loading it makes it the source, and a rule replacing it says so', async ({
  page,
}) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  await loadFiles(page, [dataFile('hand/hand.off'), dataFile('hand/hand.tgf')], 'hand.off');
  await page.keyboard.press('b');
  const panel = page.locator('#bind-panel');
  await expect(panel).toBeVisible();
  await panel.getByText('Automatic: distance rule').click();
  expect((await binding(page)).source).toBe('distance');

  const file = path.join(mkdtempSync(path.join(tmpdir(), 'rigwright-handles-')), 'automatic-hand.dmat');
  copyFileSync(dataFile('hand', 'hand-handles.dmat'), file);
  await loadFiles(page, [file]);
  await expect.poll(async () => (await binding(page)).source, { message: 'the loaded handles become the source' }).toBe('current');
  await expect(panel.getByRole('radio', { name: 'Handles above' })).toBeChecked();
  const loaded = (await handles(page)).filter((b) => b >= 0).length;
  expect(loaded).toBeGreaterThan(0);

  await panel.getByText('Automatic: distance rule').click();
  const grouped = String(loaded).replace(/\B(?=(\d{3})+(?!\d))/g, '\u2009');
  await expect(panel.locator('.replace-note')).toContainText(`Compute replaces the ${grouped} handle vertices above (automatic-hand.dmat)`);
  await compute(page);
  await expect(page.locator('.notice')).toContainText('Automatic handles replaced the handles of');
  expect(errors).toEqual([]);
});
