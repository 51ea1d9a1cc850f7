/**
 * The context-aware body as an artist sets it up in the app: reference.obj with its skeleton and handles opened
 * through the file input, harmonic weights computed from the Bind panel, and examples eg0 and eg1 (each with its
 * pose file) added from the Examples panel (G). Test support for the specs that start from that scene, not a spec.
 */
import { expect, type Page } from '@playwright/test';
import { chooseFiles, dataFile, loadFiles, openApp } from './app-driver.ts';

export const body = (name: string): string => dataFile('context-aware', name);

/** Opens the app on the body with handles, computes its weights and adds eg0 and eg1; the Examples panel is left open. */
export async function openBodyWithTwoExamples(page: Page, errors: string[]): Promise<void> {
  await openApp(page, errors, { paused: true });
  await loadFiles(page, [body('reference.obj'), body('skeleton.tgf'), body('handles.dmat')], 'reference.obj');
  expect(await page.evaluate(() => (window as any).__rigwright.state().error)).toBeNull();

  await page.keyboard.press('b');
  await page.locator('#bind-panel button:has-text("Compute weights")').click();
  await expect
    .poll(() => page.evaluate(() => (window as any).__rigwright.history().undo.at(-1)), { timeout: 90_000 })
    .toBe('Compute weights');
  await page.keyboard.press('b');

  await page.keyboard.press('g');
  const panel = page.locator('#examples-panel');
  await expect(panel).toBeVisible();
  await chooseFiles(page, () => panel.getByRole('button', { name: 'Add…' }).click(), [
    body('eg0.obj'),
    body('eg0.dmat'),
    body('eg1.obj'),
    body('eg1.dmat'),
  ]);
  await expect(panel.locator('.example-row')).toHaveCount(2, { timeout: 90_000 });
}

/** Opens a file that replaces the scene, letting the scene's unsaved changes go when the app asks. */
export async function openNewScene(page: Page, file: string, mesh: string): Promise<void> {
  await page.setInputFiles('#file-input', file);
  const dialog = page.locator('#save-changes-dialog');
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: 'Discard', exact: true }).click();
  await page.waitForFunction((name) => (window as any).__rigwright.state().meshFiles.includes(name), mesh, { timeout: 90_000 });
}
