/**
 * A recent file that is no longer there, in Chromium with the File System Access API: the project is saved (its
 * handle kept in IndexedDB), the file is deleted, and choosing it from the recent list says which file could not be
 * opened and why, and offers to remove it; removed, it is gone from the list, after a reload too. The picker hands
 * out a real file handle of the origin's private file system (a picker dialog cannot be driven here).
 */
import { test, expect, type Page } from '@playwright/test';
import { menuItem, openApp } from './app-driver.ts';

const FILE = 'gone.rig.glb';

const recentNames = (page: Page): Promise<string[]> => page.evaluate(() => (window as any).__rigwright.project.state().recent);

test('a missing recent file is named with the reason, and Remove takes it out of the recent list for good', async ({ page }) => {
  const errors: string[] = [];
  await page.context().addInitScript((name: string) => {
    const w = window as any;
    const handle = async () => (await navigator.storage.getDirectory()).getFileHandle(name, { create: true });
    w.showSaveFilePicker = handle;
    w.showOpenFilePicker = async () => [await handle()];
  }, FILE);
  await openApp(page, errors, { paused: true });
  await page.keyboard.press('Control+s');
  await page.waitForFunction((name) => (window as any).__rigwright.project.state().fileName === name, FILE);
  await page.evaluate(() => (window as any).__rigwright.project.idle());
  expect(await recentNames(page)).toEqual([FILE]);

  // The file goes away behind the app's back; a fresh page still lists it.
  await page.evaluate(async (name) => (await navigator.storage.getDirectory()).removeEntry(name), FILE);
  await page.reload();
  await page.waitForFunction(() => (window as any).__rigwright !== undefined);
  await page.evaluate(() => (window as any).__rigwright.ready());
  // File → its first recent project.
  const first = await menuItem(page, 'File', 'file.recentFirst');
  await expect(first.locator('.menu-label')).toHaveText(`1. ${FILE}`);
  await first.click();
  const noRecent = async (what: string) => {
    await page
      .getByRole('menubar', { name: 'Menu bar' })
      .locator('.menu-title', { hasText: /^File$/ })
      .click();
    await expect(page.locator('#menu-bar .menu-popup button[data-command="file.open"]')).toBeVisible();
    await expect(page.locator('#menu-bar .menu-popup button[data-command="file.recentFirst"]'), what).toHaveCount(0);
    await page.keyboard.press('Escape');
  };

  const notice = page.locator('.notice');
  await expect(notice).toBeVisible();
  await expect(notice).toContainText(FILE);
  await expect(notice).toContainText(/moved, renamed or deleted/);
  await expect(page.locator('#error-banner')).toBeHidden();
  expect(await page.evaluate(() => (window as any).__rigwright.project.state().fileName)).toBeNull();

  await notice.getByRole('button', { name: 'Remove from recent files' }).click();
  await expect(notice).toBeHidden();
  await noRecent('the File menu lists no recent project');
  expect(await recentNames(page)).toEqual([]);

  await page.reload();
  await page.waitForFunction(() => (window as any).__rigwright !== undefined);
  await page.evaluate(() => (window as any).__rigwright.ready());
  expect(await recentNames(page)).toEqual([]);
  await noRecent('no recent project after a reload');
  expect(errors).toEqual([]);
});
