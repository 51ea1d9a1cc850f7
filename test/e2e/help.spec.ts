/**
 * The help overlay (?): it stays inside a 1280×720 window and its rows scroll, by keys from its search field and by
 * the wheel, down to the last row; its search field, focused when it opens, filters the rows by key, command name
 * or description, and keys written with '+'; Escape closes it; it follows the light theme. Takes
 * test/e2e/screenshots/help.png at 1440×900.
 */
import { test, expect, type Locator, type Page } from '@playwright/test';
import path from 'node:path';
import { openApp, repoRoot } from './app-driver.ts';

/** Whether `row` lies wholly inside the page's viewport and inside the overlay's scrolled rows. */
async function rowVisible(page: Page, row: Locator, body: Locator): Promise<boolean> {
  const box = (await row.boundingBox())!;
  const frame = (await body.boundingBox())!;
  const window = page.viewportSize()!;
  return box.y >= 0 && box.y + box.height <= window.height && box.y >= frame.y - 0.5 && box.y + box.height <= frame.y + frame.height + 0.5;
}

test('help overlay scrolls to its last row at 1280×720, searches and closes on Escape', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  const errors: string[] = [];
  await openApp(page, errors);
  const help = page.locator('#help-overlay');
  const body = help.locator('.help-body');
  const search = help.getByRole('textbox', { name: 'Search keys and commands' });
  await page.keyboard.press('?');
  await expect(help).toBeVisible();
  await expect(search).toBeFocused();

  // The overlay keeps inside the window; the last row (the last mouse gesture) is below its fold at first.
  const overlay = (await help.boundingBox())!;
  expect(overlay.y + overlay.height, 'the overlay ends inside the window').toBeLessThanOrEqual(720);
  const lastRow = help.locator('.help-pointer dd').last();
  const firstRow = help.locator('.help-keys dd').first();
  await expect(lastRow).toHaveText(/select its bone/);
  expect(await rowVisible(page, lastRow, body), 'the last row is out of sight before scrolling').toBe(false);

  // Page Down from the search field scrolls to the end.
  for (let i = 0; i < 40 && !(await rowVisible(page, lastRow, body)); i++) await page.keyboard.press('PageDown');
  expect(await rowVisible(page, lastRow, body), 'Page Down reaches the last row').toBe(true);
  expect(await rowVisible(page, firstRow, body), 'the first row has scrolled away').toBe(false);
  await expect(search, 'the search field keeps the focus').toBeFocused();

  // Back up with the keys, then down with the wheel over the rows.
  for (let i = 0; i < 40 && !(await rowVisible(page, firstRow, body)); i++) await page.keyboard.press('PageUp');
  expect(await rowVisible(page, firstRow, body), 'Page Up comes back to the first row').toBe(true);
  const frame = (await body.boundingBox())!;
  await page.mouse.move(frame.x + frame.width / 2, frame.y + frame.height / 2);
  // One wheel step per poll, polled every 100 ms: on a loaded machine the poll's default back-off left too few steps.
  await expect
    .poll(
      async () => {
        await page.mouse.wheel(0, 400);
        return rowVisible(page, lastRow, body);
      },
      { message: 'the wheel reaches the last row', timeout: 30_000, intervals: [100] },
    )
    .toBe(true);

  // Searching 'paint' keeps the paint rows, with their keys, and hides the rest.
  await search.fill('paint');
  const shown = help.locator('.help-keys dd:visible');
  const actions = await shown.allTextContents();
  const keysOf = async (action: RegExp) =>
    help.locator('.help-keys dd:visible', { hasText: action }).locator('xpath=preceding-sibling::dt[1]').textContent();
  expect(actions.length, `'paint' keeps a few rows: ${actions.join(' | ')}`).toBeGreaterThanOrEqual(2);
  expect(await keysOf(/^Weight paint mode$/)).toBe('P');
  expect(await keysOf(/^Resize the brush \(paint mode\)$/)).toBe('F');
  expect(actions, 'Undo is not a paint row').not.toContain('Undo');
  const all = await help.locator('.help-keys dd').count();
  expect(actions.length, 'the search hides most rows').toBeLessThan(all / 4);
  // A single letter is a key: 'z' finds Undo and Redo by their chords.
  await search.fill('z');
  expect(await shown.allTextContents()).toEqual(['Undo', 'Redo']);
  // Keys written with '+', as people write them, are found too: the whole chord, whichever name the modifier has.
  await search.fill('Ctrl+Shift+Z');
  expect(await shown.allTextContents()).toEqual(['Redo']);
  await search.fill('mod+z');
  expect(await shown.allTextContents()).toEqual(['Undo', 'Redo']);
  await search.fill('no such thing');
  await expect(help.getByText('No key or command matches.')).toBeVisible();

  // Escape closes it, and the toolbar's ? is no longer pressed; ? opens it again with the field focused.
  await page.keyboard.press('Escape');
  await expect(help).toBeHidden();
  await expect(page.locator('button[data-command="help.keys"]')).toHaveAttribute('aria-pressed', 'false');
  await page.locator('button[data-command="help.keys"]').click();
  await expect(help).toBeVisible();
  await expect(search).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(help).toBeHidden();
  expect(errors).toEqual([]);
});

test('help overlay screenshot at 1440×900', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  const errors: string[] = [];
  await openApp(page, errors);
  await page.keyboard.press('?');
  const help = page.locator('#help-overlay');
  await expect(help).toBeVisible();
  const overlay = (await help.boundingBox())!;
  expect(overlay.y + overlay.height, 'the overlay ends inside the window').toBeLessThanOrEqual(900);
  // In the light theme the overlay takes the theme's panel colour (it kept the dark one), and back.
  const background = () => help.evaluate((node) => getComputedStyle(node).backgroundColor);
  const dark = await background();
  const theme = await page.evaluate(() => document.documentElement.dataset.theme ?? '');
  expect(theme, 'the dark theme at the start').not.toBe('light');
  await page.evaluate(() => (document.documentElement.dataset.theme = 'light'));
  expect(await background(), 'the light theme’s glass').toBe('rgba(247, 248, 250, 0.95)');
  await page.evaluate((was) => (document.documentElement.dataset.theme = was), theme);
  expect(await background()).toBe(dark);
  await page.screenshot({ path: path.join(repoRoot, 'test/e2e/screenshots/help.png') });
  expect(errors).toEqual([]);
});
