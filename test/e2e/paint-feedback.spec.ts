/**
 * What painting tells the artist, with real mouse and keys: a stroke over a locked bone changes no weight and adds no
 * undo step; each stroke's undo step is named by its brush mode ("Smooth stroke"); counts read in the singular for
 * one ("1 undo step"); the status line's count of the scene's warnings opens them in the app, not in the console.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test, expect, type Page } from '@playwright/test';
import { dataFile, loadFiles, openApp } from './app-driver.ts';

const snapshot = (page: Page) => page.evaluate(() => (window as any).__rigwright.snapshot());
const undoLabels = (page: Page): Promise<string[]> => page.evaluate(() => (window as any).__rigwright.history().undo);

async function openHand(page: Page): Promise<{ x: number; y: number }> {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  await loadFiles(page, [dataFile('hand', 'hand.off'), dataFile('hand', 'hand.tgf')], 'hand.off');
  await page.evaluate(() => (window as any).__rigwright.pause());
  expect((await page.evaluate(() => (window as any).__rigwright.state())).error).toBeNull();
  const box = (await page.locator('canvas').first().boundingBox())!;
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

async function stroke(page: Page, x: number, y: number): Promise<void> {
  await page.mouse.move(x - 50, y);
  await page.mouse.down();
  await page.mouse.move(x + 50, y, { steps: 8 });
  await page.mouse.up();
}

test('paint stroke over a locked bone adds no undo step; a smooth stroke is named "Smooth stroke"; "1 undo step"', async ({ page }) => {
  const { x, y } = await openHand(page);
  await page.keyboard.press('p');
  const panel = page.locator('#paint-panel');
  await expect(panel).toBeVisible();
  await panel.locator('.paint-bone-name').nth(1).click();
  await panel.locator('.paint-lock').nth(1).click();
  expect(await undoLabels(page)).toEqual(['Lock bone 1']);
  await expect(panel).toContainText('1 undo step ');
  await expect(panel).not.toContainText('1 undo steps');

  // The selected bone is locked: the stroke keeps every weight, and the history has nothing to take back.
  const before = await snapshot(page);
  await stroke(page, x, y);
  expect(await snapshot(page), 'the locked stroke changed no weight').toEqual(before);
  expect(await undoLabels(page), 'and added no undo step').toEqual(['Lock bone 1']);
  await expect(panel).toContainText('1 undo step ');

  // Another bone, unlocked: an add stroke, then a smooth stroke over it, each named by its mode.
  await panel.locator('.paint-bone-name').nth(2).click();
  await panel.locator('button[data-mode="add"]').click();
  await stroke(page, x, y);
  expect(await undoLabels(page)).toEqual(['Lock bone 1', 'Paint stroke']);
  await expect(panel).toContainText('2 undo steps');
  const painted = await snapshot(page);
  await panel.locator('button[data-mode="smooth"]').click();
  await stroke(page, x, y + 10);
  expect(await snapshot(page), 'the smooth stroke changed weights').not.toEqual(painted);
  expect(await undoLabels(page)).toEqual(['Lock bone 1', 'Paint stroke', 'Smooth stroke']);
  await expect(page.locator('#status')).toContainText('undo: Smooth stroke');
});

test('scene warnings: the status line counts them and a click on the count lists them in the app, not in the console', async ({ page }) => {
  // SimpleSkin with 13 images whose files are not opened with it: reading keeps the rest and warns of each, more
  // warnings than a notice used to list before pointing at the console.
  const gltf = JSON.parse(readFileSync(dataFile('gltf', 'SimpleSkin', 'glTF-Embedded', 'SimpleSkin.gltf'), 'utf8'));
  const images = Array.from({ length: 13 }, (_, i) => `skin-${i}.png`);
  gltf.images = images.map((uri) => ({ uri }));
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'rigwright-warnings-')), 'SimpleSkin.gltf');
  writeFileSync(file, JSON.stringify(gltf));
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  await loadFiles(page, [file], 'SimpleSkin.gltf');

  // Opening lists them once; the artist closes that notice and wants them back later.
  const notice = page.locator('.notice');
  await expect(notice).toBeVisible();
  const warnings = await notice.locator('li').allTextContents();
  for (const [i, uri] of images.entries())
    expect(warnings).toContain(`SimpleSkin.gltf: image ${i} ("${uri}") was not opened and is left out`);
  expect(warnings.join('\n')).not.toContain('console');
  await notice.locator('.notice-dismiss').click();
  await expect(notice).toBeHidden();

  const status = page.locator('#status');
  await expect(status).not.toContainText('console');
  const count = status.locator('.status-link', { hasText: 'warning' });
  await expect(count).toHaveText(`${warnings.length} warnings`);
  await count.click();
  await expect(notice).toBeVisible();
  await expect(notice.locator('.notice-title')).toHaveText(`SimpleSkin.gltf: ${warnings.length} warnings`);
  await expect(notice.locator('li')).toHaveText(warnings);
  expect(errors).toEqual([]);
});
