/**
 * The save-changes dialog, with real mouse and keys: opening another scene (the Twist button) over unsaved changes
 * asks "Save changes to …?" with the focus on Save, so Enter keeps the work (this page downloads the project) and
 * then opens the other scene; Escape cancels, keeping the scene and its unsaved changes.
 */
import { expect, test, type Page } from '@playwright/test';
import { openApp, runFromMenu } from './app-driver.ts';

const state = (page: Page) => page.evaluate(() => (window as any).__rigwright.state());
const project = (page: Page) => page.evaluate(() => (window as any).__rigwright.project.state());

test('save-changes dialog: focus on Save, Enter saves the work before the other scene opens, Escape cancels', async ({ page }) => {
  const errors: string[] = [];
  // This page cannot write files itself: Save downloads the project.
  await page.addInitScript(() => {
    delete (window as any).showSaveFilePicker;
    delete (window as any).showOpenFilePicker;
  });
  await openApp(page, errors, { paused: true });
  const sceneName = (await state(page)).sceneName;
  expect((await state(page)).boneCount, 'the start scene has bones').toBeGreaterThan(1);
  await page.evaluate(() => (window as any).__rigwright.setBoneScale(1, [1.5, 1.5, 1.5]));
  expect(await project(page)).toMatchObject({ dirty: true });

  const dialog = page.locator('#save-changes-dialog');
  // File → Twist test opens another scene.
  const twist = () => runFromMenu(page, 'File', 'file.twistDemo');
  await twist();
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('Save changes to');
  await expect(dialog.getByRole('button', { name: 'Save', exact: true }), 'Save has the focus').toBeFocused();

  // Escape cancels: the dialog goes, the scene and its unsaved change stay.
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  expect((await state(page)).sceneName).toBe(sceneName);
  expect(await project(page)).toMatchObject({ dirty: true });

  // Asked again, Enter saves (a download here), then the other scene opens.
  await twist();
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('button', { name: 'Save', exact: true }), 'Save has the focus').toBeFocused();
  const download = page.waitForEvent('download');
  await page.keyboard.press('Enter');
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/\.rig\.glb$/);
  await expect(dialog).toBeHidden();
  await expect.poll(async () => (await state(page)).sceneName, 'the other scene opens after the save').not.toBe(sceneName);
  expect(await project(page)).toMatchObject({ dirty: false });
  expect(errors).toEqual([]);
});
