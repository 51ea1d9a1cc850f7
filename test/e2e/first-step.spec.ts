/**
 * A new artist's first step, with real mouse: the start hint over the viewport (Import…, Open a sample, Start from
 * the demo), gone once a scene is opened and shown again at the next start unless "Show at startup" is unticked;
 * the toolbar tour shown on the first visit only, step by step over real controls, and again when asked for.
 */
import { test, expect, type Page } from '@playwright/test';
import { chooseFiles, dataFile, openApp } from './app-driver.ts';

const hint = (page: Page) => page.getByRole('dialog', { name: 'Start', exact: true });
const tourCard = (page: Page) => page.getByRole('dialog', { name: 'Tour of the toolbar' });
const undoLabels = (page: Page): Promise<string[]> => page.evaluate(() => (window as any).__rigwright.history().undo);
const snapshot = (page: Page): Promise<{ weightsSource: string; handles: number[] | null }> =>
  page.evaluate(() => (window as any).__rigwright.snapshot());

async function reload(page: Page): Promise<void> {
  await page.reload();
  await page.waitForFunction(() => (window as any).__rigwright !== undefined);
  await page.evaluate(() => (window as any).__rigwright.ready());
}

test('empty state: the start hint offers Import…, a sample and the demo, and goes once a scene is opened', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors, { firstStep: true });
  // The first visit also starts the tour, which hides the hint while it runs; skipping it brings the hint back.
  await expect(tourCard(page)).toBeVisible();
  await expect(hint(page)).toBeHidden();
  await tourCard(page).getByRole('button', { name: 'Skip tour' }).click();
  await expect(tourCard(page)).toBeHidden();
  await expect(hint(page)).toBeVisible();
  await expect(hint(page)).toContainText('Start rigging');
  const demoName = await page.locator('.scene-name').textContent();

  // Open a sample: the twist test replaces the demo, and the hint goes.
  await hint(page).getByRole('button', { name: 'Open a sample' }).click();
  await expect(hint(page)).toBeHidden();
  await expect(page.locator('.scene-name')).not.toHaveText(demoName ?? '');

  // Next start: the hint again (the tour was seen). Import… opens the file chooser; the hand replaces the demo.
  await reload(page);
  await expect(hint(page)).toBeVisible();
  await expect(tourCard(page)).toBeHidden();
  await chooseFiles(page, () => hint(page).getByRole('button', { name: 'Import…' }).click(), [
    dataFile('hand', 'hand.off'),
    dataFile('hand', 'hand.tgf'),
  ]);
  await expect(page.locator('.scene-name')).toContainText('hand');
  await expect(hint(page)).toBeHidden();

  // Start from the demo: the demo's mesh and skeleton unbound (no handles, provisional weights) as a new scene, with
  // nothing to undo; the start-up demo is weighted (its weights are the built-in ones).
  await reload(page);
  await expect(hint(page)).toBeVisible();
  expect((await snapshot(page)).weightsSource).toBe('built-in');
  await hint(page).getByRole('button', { name: 'Start from the demo' }).click();
  await expect(hint(page)).toBeHidden();
  await expect(page.locator('.scene-name')).toHaveText(demoName ?? '');
  expect(await undoLabels(page)).toEqual([]);
  const started = await snapshot(page);
  expect(started.weightsSource, 'unbound: the weights are provisional until Compute weights').toBe('bone distance (provisional)');
  expect(started.handles, 'no handles').toBeNull();

  // An edit of the start-up demo is a start too: the hint goes.
  await reload(page);
  await expect(hint(page)).toBeVisible();
  await page.keyboard.press('p');
  const panel = page.locator('#paint-panel');
  await expect(panel).toBeVisible();
  await panel.locator('.paint-lock').first().click();
  await expect(hint(page)).toBeHidden();

  // Unticking "Show at startup" is remembered.
  await reload(page);
  await hint(page).getByLabel('Show at startup').uncheck();
  await reload(page);
  await expect(page.locator('#viewport')).toBeVisible();
  await expect(hint(page)).toBeHidden();
  expect(errors).toEqual([]);
});

test('tour: shown once on the first visit, step by step over the toolbar, and again from the start hint and Help', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors, { firstStep: true });
  const card = tourCard(page);
  await expect(card).toBeVisible();
  const steps = Number((await card.locator('.tour-counter').textContent())!.split(' of ')[1]);
  expect(steps, 'the tour has a few steps').toBeGreaterThanOrEqual(3);

  // Each step rings a real control, of the toolbar or the menu bar, and places its card below it.
  const seen: string[] = [];
  const menus: string[] = [];
  for (let i = 1; i <= steps; i++) {
    await expect(card.locator('.tour-counter')).toHaveText(`${i} of ${steps}`);
    const command = (await card.getAttribute('data-command'))!;
    const menu = await card.getAttribute('data-menu');
    seen.push(command);
    if (menu) menus.push(menu);
    const control = menu
      ? page.getByRole('menubar', { name: 'Menu bar' }).locator('.menu-title', { hasText: new RegExp(`^${menu}$`) })
      : page.locator(`#toolbar button[data-command="${command}"]`);
    const target = (await control.boundingBox())!;
    const ring = (await page.locator('.tour-ring').boundingBox())!;
    expect(ring.x, `${command}: the ring surrounds the control`).toBeLessThanOrEqual(target.x);
    expect(ring.x + ring.width).toBeGreaterThanOrEqual(target.x + target.width);
    expect(ring.y).toBeLessThanOrEqual(target.y);
    expect(ring.y + ring.height).toBeGreaterThanOrEqual(target.y + target.height);
    expect((await card.boundingBox())!.y, `${command}: the card is below it`).toBeGreaterThan(target.y + target.height);
    await card.getByRole('button', { name: i === steps ? 'Done' : 'Next' }).click();
  }
  expect(seen[0]).toBe('file.open');
  expect(new Set(seen).size, 'every step shows another control').toBe(steps);
  expect(menus, 'the menu bar’s Rig (Compute weights) and Paint titles are steps').toEqual(['Rig', 'Paint']);
  expect(seen).toContain('bind.compute');
  await expect(card).toBeHidden();
  await expect(page.locator('.tour-ring')).toBeHidden();

  // Seen: the next start shows no tour; the start hint's link shows it again, and Skip ends it.
  await reload(page);
  await expect(hint(page)).toBeVisible();
  await expect(card).toBeHidden();
  await hint(page).getByRole('button', { name: 'Take the tour of the toolbar' }).click();
  await expect(card).toBeVisible();
  await expect(card.locator('.tour-counter')).toHaveText(`1 of ${steps}`);
  await expect(hint(page), 'the hint is hidden while the tour runs').toBeHidden();
  // Escape is Skip: the tour ends and the hint is back.
  await page.keyboard.press('Escape');
  await expect(card).toBeHidden();
  await expect(page.locator('.tour-ring')).toBeHidden();
  await expect(hint(page)).toBeVisible();

  // The ring follows its control when the toolbar changes size (a narrower window lays the toolbar out anew).
  await hint(page).getByRole('button', { name: 'Take the tour of the toolbar' }).click();
  await expect(card).toHaveAttribute('data-command', 'file.open');
  const control = page.locator('#toolbar button[data-command="file.open"]');
  await page.evaluate(() => {
    document.getElementById('toolbar')!.style.paddingLeft = '120px';
  });
  await expect
    .poll(async () => Math.abs((await page.locator('.tour-ring').boundingBox())!.x - ((await control.boundingBox())!.x - 4)))
    .toBeLessThan(1);
  await page.evaluate(() => {
    document.getElementById('toolbar')!.style.paddingLeft = '';
  });
  await card.getByRole('button', { name: 'Skip tour' }).click();
  await expect(card).toBeHidden();
  await reload(page);
  await expect(hint(page)).toBeVisible();
  await expect(card).toBeHidden();

  // Help → Tour of the toolbar, from the menu bar.
  await page
    .getByRole('menubar', { name: 'Menu bar' })
    .locator('.menu-title', { hasText: /^Help$/ })
    .click();
  await page.locator('#menu-bar .menu-popup button[data-command="help.tour"]').click();
  await expect(card).toBeVisible();
  await expect(card.locator('.tour-counter')).toHaveText(`1 of ${steps}`);
  await expect(hint(page), 'the tour takes the hint’s place').toBeHidden();
  await card.getByRole('button', { name: 'Skip tour' }).click();
  await expect(card).toBeHidden();
  expect(errors).toEqual([]);
});
