/**
 * Editing the skeleton is not a new scene: on the course hand with its pose sequence, a bone renamed and a bone
 * deleted through commands, then both undone, keep the camera where the user turned it, the selected bone and the
 * playback time; the views show the edited skeleton (a bone fewer) and, after undo, the skeleton as it was.
 * Uses `window.__rigwright`.
 */
import { test, expect, type Page } from '@playwright/test';
import { dataFile, loadFiles, openApp } from './app-driver.ts';

const hook = (page: Page) => ({
  state: () => page.evaluate(() => (window as any).__rigwright.state()),
  command: (id: string, argument?: unknown): Promise<boolean> =>
    page.evaluate(([i, a]) => (window as any).__rigwright.command(i, a), [id, argument] as const),
  undoLabels: (): Promise<string[]> => page.evaluate(() => (window as any).__rigwright.history().undo),
  camera: (): Promise<number[]> => page.evaluate(() => (window as any).__rigwright.paint.cameraPosition()),
  pause: () => page.evaluate(() => (window as any).__rigwright.pause()),
  setTime: (time: number) => page.evaluate((t) => (window as any).__rigwright.setTime(t), time),
});

// hand.tgf: bone 8 (joints 4 → 5, 0-based) is a fingertip whose parent is bone 17 (3 → 4); bone 5 (1 → 2) is a
// metacarpal; bone 3 (1 → 9) another, numbered before both.
const RENAMED = 5;
const DELETED = 8;
const SELECTED = 3;

test('bone rename and delete through commands, both undone: the camera, the selected bone and playback do not reset', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  await loadFiles(
    page,
    [dataFile('hand', 'hand.off'), dataFile('hand', 'hand.tgf'), dataFile('hand', 'hand-pose_matrot.dmat')],
    'hand.off',
  );
  const app = hook(page);
  const loaded = await app.state();
  expect(loaded.error).toBeNull();
  expect(loaded.boneCount).toBe(20);

  // The user turns the camera, picks a bone and stops the clip at a frame.
  const box = (await page.locator('canvas').first().boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 + 120, box.y + box.height / 2 + 40, { steps: 6 });
  await page.mouse.up();
  expect(await app.command('bone.select', SELECTED)).toBe(true);
  await app.pause();
  await app.setTime(17);
  const camera = await app.camera();
  const before = await app.state();
  expect(before.selectedBone).toBe(SELECTED);
  expect(before.time).toBe(17);
  expect(before.playing).toBe(false);

  const keptEverything = async (what: string, boneCount: number) => {
    const now = await app.state();
    expect(now.error, what).toBeNull();
    expect(now.boneCount, `${what}: bones`).toBe(boneCount);
    expect(now.selectedBone, `${what}: the selected bone`).toBe(SELECTED);
    expect(now.time, `${what}: the playback time`).toBe(17);
    expect(now.playing, `${what}: playing`).toBe(false);
    expect(now.duration, `${what}: the sequence`).toBe(before.duration);
    expect(await app.camera(), `${what}: the camera`).toEqual(camera);
  };

  expect(await app.command('bone.rename', { bone: RENAMED, name: 'index metacarpal' })).toBe(true);
  await keptEverything('after the rename', 20);
  expect(await app.command('bone.delete', DELETED)).toBe(true);
  await keptEverything('after the delete', 19);
  expect(await app.undoLabels()).toEqual([`Rename bone ${RENAMED} to index metacarpal`, `Delete bone ${DELETED}`]);

  expect(await app.command('edit.undo')).toBe(true);
  await keptEverything('after undoing the delete', 20);
  expect(await app.command('edit.undo')).toBe(true);
  await keptEverything('after undoing the rename', 20);
  expect(await app.undoLabels()).toEqual([]);
  // The views drew the edited skeleton and the one given back without a console error.
  expect(errors).toEqual([]);
});
