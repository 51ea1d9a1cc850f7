/**
 * Painted label: weights computed on the hand and then painted say ", painted" in the status line; saved with Ctrl+S
 * and reopened with Ctrl+O in a fresh page, the project says so again (the file keeps the mark, and the reopened
 * weights are the painted ones). A project saved before any paint stroke reopens without it.
 */
import { test, expect, type Page } from '@playwright/test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chooseFiles, dataFile, loadFiles, openApp } from './app-driver.ts';

/** This page cannot write files itself (no File System Access API): Save downloads, Open uses the file input. */
async function withoutFileAccess(page: Page): Promise<void> {
  await page.addInitScript(() => {
    delete (window as any).showSaveFilePicker;
    delete (window as any).showOpenFilePicker;
  });
}

/** Ctrl+S, and the downloaded project saved to a new folder: its path. */
async function saveProject(page: Page): Promise<string> {
  const download = page.waitForEvent('download');
  await page.keyboard.press('Control+s');
  const file = await download;
  const saved = path.join(mkdtempSync(path.join(tmpdir(), 'rigwright-painted-')), file.suggestedFilename());
  await file.saveAs(saved);
  await page.evaluate(() => (window as any).__rigwright.project.idle());
  return saved;
}

/** The project opened with Ctrl+O in a fresh page: that page. */
async function reopen(page: Page, file: string, errors: string[]): Promise<Page> {
  const fresh = await page.context().newPage();
  await withoutFileAccess(fresh);
  await openApp(fresh, errors, { paused: true });
  await chooseFiles(fresh, () => fresh.keyboard.press('Control+o'), file);
  await fresh.waitForFunction((name) => (window as any).__rigwright.project.state().fileName === name, path.basename(file));
  return fresh;
}

test('painted label: the weights’ “, painted” comes back when the project is reopened', async ({ page }) => {
  test.setTimeout(180_000);
  const errors: string[] = [];
  await withoutFileAccess(page);
  await openApp(page, errors, { paused: true });
  await loadFiles(page, [dataFile('hand/hand.off'), dataFile('hand/hand.tgf'), dataFile('hand/hand-handles.dmat')], 'hand.off');
  const weights = page.locator('#status .status-field', { hasText: 'weights:' });

  await page.keyboard.press('b');
  await page.locator('#bind-panel button:has-text("Compute weights")').click();
  await expect(weights).toContainText('weights: harmonic', { timeout: 90_000 });
  await page.keyboard.press('b');
  await expect(weights).not.toContainText('painted');
  const computed = (await weights.textContent())!;

  // Saved before painting: reopened, no mark.
  const unpainted = await reopen(page, await saveProject(page), errors);
  await expect(unpainted.locator('#status .status-field', { hasText: 'weights:' })).toHaveText(computed);
  await unpainted.close();

  // A paint stroke across the middle of the view.
  await page.keyboard.press('p');
  await page.evaluate(() => (window as any).__rigwright.paint.selectBone(0));
  const box = (await page.locator('canvas').first().boundingBox())!;
  await page.mouse.move(box.x + box.width / 2 - 40, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 + 40, box.y + box.height / 2, { steps: 8 });
  await page.mouse.up();
  await page.keyboard.press('p');
  await expect(weights).toHaveText(`${computed}, painted`);
  const painted = await page.evaluate(() => (window as any).__rigwright.project.arrays().weights);

  const fresh = await reopen(page, await saveProject(page), errors);
  await expect(fresh.locator('#status .status-field', { hasText: 'weights:' })).toHaveText(`${computed}, painted`);
  expect(await fresh.evaluate(() => (window as any).__rigwright.project.arrays().weights), 'the painted weights').toBe(painted);
  expect(errors).toEqual([]);
});
