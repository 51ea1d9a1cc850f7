/**
 * Clip choice: choosing which of the Fox's clips to view is not an edit. The clip picker's choices leave the undo
 * history as it was, the title without the unsaved mark, and opening another scene afterwards asks nothing.
 */
import { test, expect } from '@playwright/test';
import { dataFile, loadFiles, openApp, runFromMenu } from './app-driver.ts';

test('clip choice: choosing clips adds no undo step, leaves the scene saved, and another scene opens without a save prompt', async ({
  page,
}) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  await loadFiles(page, [dataFile('gltf', 'Fox', 'Fox.glb')], 'Fox.glb');
  const project = () => page.evaluate(() => (window as any).__rigwright.project.state());
  const before = await project();
  expect(before).toMatchObject({ dirty: false });
  const undoButton = page.locator('#toolbar button[data-command="edit.undo"]');
  const undoTitle = await undoButton.getAttribute('title');

  const picker = page.getByLabel('Animation clip');
  for (const clip of ['Run', 'Walk', 'Survey', 'Run']) {
    await picker.selectOption({ label: clip });
    await page.waitForFunction((name) => (window as any).__rigwright.state().clipName === name, clip);
    const now = await project();
    expect(now.undo, `choosing ${clip}: the history is as it was`).toEqual(before.undo);
    expect(now.dirty, `choosing ${clip}: nothing to save`).toBe(false);
    expect(now.title, 'no unsaved mark').not.toMatch(/^•/);
    await expect(undoButton).toHaveAttribute('title', undoTitle!);
  }
  await expect(page.locator('#status')).not.toContainText('undo:');

  // Another scene: no question about unsaved changes.
  await runFromMenu(page, 'File', 'file.twistDemo');
  await expect.poll(async () => (await page.evaluate(() => (window as any).__rigwright.state())).meshFiles).not.toContain('Fox.glb');
  await expect(page.locator('#save-changes-dialog')).toBeHidden();
  expect(errors).toEqual([]);
});
