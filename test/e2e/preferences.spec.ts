/**
 * preferences: the page opens with Ctrl+, ; the theme, a command's key (recorded with real keys, a conflict named
 * and cancelled first) and the brush of a new scene are changed there; the new key runs its command and the old one
 * no longer does, and the help lists it; after a reload of the page all are kept. A screenshot of the page at
 * 1440×900. Stored values this version cannot read fall back to their defaults, named in a notice.
 */
import { test, expect, type Page } from '@playwright/test';
import path from 'node:path';
import { openApp, repoRoot } from './app-driver.ts';

const SCREENSHOT = path.join(repoRoot, 'test/e2e/screenshots/preferences.png');

/** Whether the View menu's Wireframe is checked (the web bridge keeps the menu model it was sent). */
async function wireframeOn(page: Page): Promise<boolean | undefined> {
  return page.evaluate(() => {
    const menus = (window as any).__rigwright.menu() as { items: { command: string; checked?: boolean }[] }[];
    return menus.flatMap((m) => m.items).find((item) => item.command === 'view.wireframe')?.checked;
  });
}

const brushRadius = (page: Page) => page.evaluate(() => (window as any).__rigwright.paint.state().brush.radius as number);
const brushMode = (page: Page) => page.evaluate(() => (window as any).__rigwright.paint.state().brush.mode as string);
const pageBackground = (page: Page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
/** The viewport's colour a few pixels inside its top left corner (above the grid's horizon), RGB 0–255. */
async function viewportCorner(page: Page): Promise<number[]> {
  const box = (await page.locator('canvas').first().boundingBox())!;
  const [rgba] = await page.evaluate((p) => (window as any).__rigwright.look.pixels([p]) as number[][], { x: box.x + 4, y: box.y + 4 });
  return rgba.slice(0, 3);
}
const near = (rgb: number[], hex: number) => rgb.every((c, i) => Math.abs(c - ((hex >> (16 - 8 * i)) & 255)) <= 3);

test.use({ viewport: { width: 1440, height: 900 } });

test('preferences: theme, a key binding and the brush of a new scene are changed, used, and kept after a reload', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors);
  expect(await pageBackground(page), 'the dark theme at first').toBe('rgb(20, 22, 26)');
  expect(near(await viewportCorner(page), 0x1b1e24), `the dark viewport at first: ${String(await viewportCorner(page))}`).toBe(true);
  expect(await brushRadius(page)).toBe(40);

  await page.keyboard.press('Control+Comma');
  const dialog = page.getByRole('dialog', { name: 'Preferences' });
  await expect(dialog).toBeVisible();

  // Theme: the whole page follows.
  await dialog.getByRole('combobox', { name: 'Theme', exact: true }).selectOption({ label: 'Light' });
  await expect.poll(() => pageBackground(page)).toBe('rgb(233, 235, 239)');
  expect(near(await viewportCorner(page), 0xb6bbc3), 'the viewport turns light grey too').toBe(true);

  // A key: W → K is refused (K shows the skeleton), then W → Q is taken.
  const wireframeRow = dialog.locator('tr[data-command="view.wireframe"]');
  await wireframeRow.getByRole('button', { name: 'Key W of Wireframe' }).click();
  await expect(wireframeRow.getByRole('button', { name: /Key .* of Wireframe/ })).toHaveText('Press a key…');
  await page.keyboard.press('k');
  await expect(dialog.getByRole('status')).toContainText('K already runs “Show skeleton”');
  await dialog.getByRole('status').getByRole('button', { name: 'Cancel' }).click();
  await expect(wireframeRow.getByRole('button', { name: 'Key W of Wireframe' })).toBeVisible();
  await wireframeRow.getByRole('button', { name: 'Key W of Wireframe' }).click();
  await page.keyboard.press('q');
  await expect(wireframeRow.getByRole('button', { name: 'Key Q of Wireframe' })).toBeVisible();
  await expect(dialog.getByRole('status')).toHaveText('Q runs “Wireframe”');
  await expect(dialog.locator('tr[data-command="view.skeleton"]').getByRole('button', { name: 'Key K of Show skeleton' })).toBeVisible();

  // Tab is never recorded: it ends the recording and moves the focus on. A click elsewhere ends it too, and the click
  // reaches what it pressed (the search field, which then takes the typing).
  const wireframeQ = wireframeRow.getByRole('button', { name: 'Key Q of Wireframe' });
  await wireframeQ.click();
  await expect(wireframeQ).toHaveText('Press a key…');
  await page.keyboard.press('Tab');
  await expect(wireframeQ).toHaveText('Q');
  await expect(wireframeQ).not.toBeFocused();
  await expect(dialog.getByRole('status')).toHaveText('');
  await wireframeQ.click();
  await expect(wireframeQ).toHaveText('Press a key…');
  const search = dialog.getByRole('searchbox', { name: 'Search commands or keys' });
  await search.click();
  await expect(wireframeQ).toHaveText('Q');
  await page.keyboard.type('wire');
  await expect(search).toHaveValue('wire');
  await search.fill('');
  await expect(wireframeQ).toHaveText('Q');

  // Brush of a new scene: radius 64, smooth.
  await dialog.getByRole('spinbutton', { name: 'Brush radius (px)', exact: true }).fill('64');
  await dialog.getByRole('spinbutton', { name: 'Brush radius (px)', exact: true }).press('Tab');
  await dialog.getByRole('combobox', { name: 'Brush mode', exact: true }).selectOption({ label: 'Smooth' });
  await dialog.getByRole('combobox', { name: 'Max influences', exact: true }).selectOption({ label: '3' });
  await dialog.getByRole('searchbox', { name: 'Search commands or keys' }).fill('wire');
  await expect(dialog.locator('tbody tr')).toHaveCount(1);
  await dialog.getByRole('searchbox', { name: 'Search commands or keys' }).fill('');
  await wireframeRow.scrollIntoViewIfNeeded();
  await page.screenshot({ path: SCREENSHOT });

  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();

  // The new key runs Wireframe at once (the search field had the focus: the key goes to the app); W no longer does.
  const before = await wireframeOn(page);
  expect(typeof before, 'the View menu has Wireframe').toBe('boolean');
  await page.keyboard.press('q');
  await expect.poll(() => wireframeOn(page)).toBe(!before);
  await page.keyboard.press('w');
  await page.waitForTimeout(200);
  expect(await wireframeOn(page), 'W is no longer Wireframe').toBe(!before);
  expect(await page.evaluate(() => (window as any).__rigwright.keyTable() as string[])).toContain('Q');

  // A reload keeps them: the light theme, Q for Wireframe, and the new scene (the demo) starts with the brush set.
  await page.reload();
  await page.waitForFunction(() => (window as any).__rigwright !== undefined);
  await page.evaluate(() => (window as any).__rigwright.ready());
  expect(await pageBackground(page)).toBe('rgb(233, 235, 239)');
  expect(await brushRadius(page)).toBe(64);
  expect(await brushMode(page)).toBe('smooth');
  expect(await page.evaluate(() => (window as any).__rigwright.state().influences), 'the view follows the max influences').toBe(3);
  const reloaded = await wireframeOn(page);
  await page.keyboard.press('q');
  await expect.poll(() => wireframeOn(page)).toBe(!reloaded);
  // The help lists the user's key.
  await page.keyboard.press('?');
  const help = page.getByRole('dialog', { name: 'Keyboard and mouse' });
  await expect(help).toBeVisible();
  await page.keyboard.type('wireframe');
  await expect(help.locator('dt:not([hidden]) kbd')).toHaveText(['Q']);
  await page.keyboard.press('Escape');
  await expect(help).toBeHidden();
  await page.keyboard.press('Control+Comma');
  await expect(wireframeRow.getByRole('button', { name: 'Key Q of Wireframe' })).toBeVisible();
  await expect(dialog.getByRole('spinbutton', { name: 'Brush radius (px)', exact: true })).toHaveValue('64');

  // Reset one gives W back.
  await wireframeRow.getByRole('button', { name: 'Reset' }).click();
  await expect(wireframeRow.getByRole('button', { name: 'Key W of Wireframe' })).toBeVisible();
  expect(errors).toEqual([]);
});

test('preferences: a stored value this version cannot read falls back to its default, and a notice names it', async ({ page }) => {
  await page.addInitScript(() => {
    const values = {
      theme: 'purple',
      brush: { mode: 'add', radius: 9999, strength: 0.3, falloff: 'smooth' },
      keys: { 'view.frameAll': ['Q'] },
    };
    localStorage.setItem('rigwright.preferences', JSON.stringify({ version: 1, values }));
  });
  const errors: string[] = [];
  await openApp(page, errors);
  await expect(page.getByText('Some preferences could not be read')).toBeVisible();
  await expect(
    page.getByText('Preference “Theme” could not be read ("purple" is not one of "dark", "light"); the default is used'),
  ).toBeVisible();
  await expect(
    page.getByText('Preference “Brush” could not be read (radius 9999 is not a number in 2 … 400); the default is used'),
  ).toBeVisible();
  expect(await pageBackground(page), 'the default theme').toBe('rgb(20, 22, 26)');
  expect(await brushRadius(page), 'the default brush').toBe(40);
  expect(await page.evaluate(() => (window as any).__rigwright.keyTable() as string[]), 'the readable keys are kept').toContain('Q');
  expect(errors).toEqual([]);
});

test('preferences: a stored key that clashes with a key of the table wins; the command that lost it says so and cannot take it back while it clashes', async ({
  page,
}) => {
  await page.addInitScript(() => {
    const values = { keys: { 'view.frameAll': ['W'], 'no.longerACommand': ['Mod+Alt+O'] } };
    localStorage.setItem('rigwright.preferences', JSON.stringify({ version: 1, values }));
  });
  const errors: string[] = [];
  await openApp(page, errors);
  await expect(page.getByText('Preference “Keys”: W runs “Frame all” as you set it; “Wireframe” no longer has it')).toBeVisible();
  await expect(page.getByText('Preference “Keys”: "no.longerACommand" is not a command; its keys are dropped')).toBeVisible();
  const before = await wireframeOn(page);
  const frames = await page.evaluate(() => (window as any).__rigwright.keyTable() as string[]);
  expect(frames, 'W is still in the table in use, for Frame all').toContain('W');
  await page.keyboard.press('w');
  await page.waitForTimeout(200);
  expect(await wireframeOn(page), 'W no longer toggles Wireframe').toBe(before);

  await page.keyboard.press('Control+Comma');
  const dialog = page.getByRole('dialog', { name: 'Preferences' });
  const wireframeRow = dialog.locator('tr[data-command="view.wireframe"]');
  await expect(dialog.locator('tr[data-command="view.frameAll"]').getByRole('button', { name: 'Key W of Frame all' })).toBeVisible();
  await expect(wireframeRow.getByRole('button', { name: /^Key / })).toHaveCount(0);
  await wireframeRow.getByRole('button', { name: 'Reset' }).click();
  await expect(dialog.getByRole('status')).toHaveText('Reset cannot be done: W runs both “Frame all” and “Wireframe”');
  await dialog.locator('tr[data-command="view.frameAll"]').getByRole('button', { name: 'Reset' }).click();
  await wireframeRow.getByRole('button', { name: 'Reset' }).click();
  await expect(wireframeRow.getByRole('button', { name: 'Key W of Wireframe' })).toBeVisible();
  expect(errors).toEqual([]);
});
