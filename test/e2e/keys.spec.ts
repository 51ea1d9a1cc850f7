/**
 * Keying poses into a clip on the course body, with real keys and mouse: a bone posed by its command, keyed at frame 0
 * with Alt+I; posed again, keyed at frame 20 with the Key button and its key mark dragged to frame 30 with the mouse
 * (a drag cancelled by Escape moves nothing); played, the bone turns as the time advances, and the pose between the
 * keys is SLERP (for two rotations about one axis, the rotation at the linearly interpolated angle); a right-click on
 * a mark deletes its keys, and so does the Delete key button; the key buttons say why when they cannot run; the clip
 * menu makes, renames and trims clips and reaches Bake clip…; exported as GLB and imported again (in Node and in the
 * app), the clip comes back with the same bones (joints, parents), names and frames. Undo takes every step back to
 * the bare rig.
 */
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { importGltf } from '../../workers/formats/gltf-import.ts';
import { dataFile, exportGlbWithClip, loadFiles, openApp } from './app-driver.ts';
import { axisAngleMatrix } from '../unit/rotation-matrix.ts';

const body = (name: string) => dataFile('context-aware', name);
/** A bone of the left arm in skeleton.tgf, below the shoulder: keying it moves the arm. */
const BONE = 15;
const AXIS = [0.48, 0.6, 0.64];
const A0 = 0.2;
const A1 = 1.4;

const hook = (page: Page) => ({
  state: () => page.evaluate(() => (window as any).__rigwright.state()),
  command: (id: string, argument?: unknown) =>
    page.evaluate(([i, a]) => (window as any).__rigwright.command(i, a), [id, argument] as const),
  /** bone BONE's relative rotation on screen, 9 numbers */
  rotation: () => page.evaluate((b) => (window as any).__rigwright.pose.shownRotations().slice(9 * b, 9 * b + 9), BONE),
  setTime: (t: number) => page.evaluate((time) => (window as any).__rigwright.setTime(time), t),
  history: () => page.evaluate(() => (window as any).__rigwright.history()),
});

function maxDifference(a: readonly number[], b: readonly number[]): number {
  return Math.max(...a.map((v, i) => Math.abs(v - b[i])));
}

/** The page point of a key mark's centre. */
async function markCentre(page: Page, frame: number): Promise<{ x: number; y: number }> {
  const box = (await page.locator(`.key-mark[data-frame="${frame}"]`).boundingBox())!;
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

test('keys: key two poses into a clip by keyboard and mouse, play the SLERP between them, export and re-import the clip', async ({
  page,
}) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  await loadFiles(page, [body('reference.obj'), body('skeleton.tgf')], 'reference.obj');
  const h = hook(page);
  const bare = await h.history();
  expect((await h.state()).clipName).toBeNull();
  const names: string[] = await page.evaluate(() => (window as any).__rigwright.skeleton().names);

  // The key buttons by the clip menu: Delete key is disabled at rest and its tooltip says why.
  const keyButton = page.locator('button.clip-key');
  const deleteKeyButton = page.locator('button.clip-key-delete');
  await expect(deleteKeyButton).toBeDisabled();
  await expect(deleteKeyButton).toHaveAttribute('title', /^Delete keys: the clip shown cannot be keyed/);
  // (the keys as the help shows them: Alt, Shift and I with a separator between)
  await expect(page.locator('button.clip-key-all')).toHaveAttribute('title', /^Key all bones \(Alt\W+Shift\W+I\)$/);

  // Pose the bone and key it with the keyboard at frame 0: a new clip "Action", paused at the key.
  await h.command('bone.select', BONE);
  const escaped = names[BONE].replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  await expect(keyButton).toHaveAttribute('title', new RegExp(`^Key ${escaped} \\(Alt\\W+I\\)$`));
  await h.command('pose.rotate', { bone: BONE, rotation: axisAngleMatrix(AXIS, A0) });
  await page.keyboard.press('Alt+i');
  let s = await h.state();
  expect(s.error).toBeNull();
  expect(s.clipName).toBe('Action');
  expect(s.clips).toEqual(['Action']);
  expect(s.duration).toBe(59);
  expect(s.playing).toBe(false);
  await expect(page.locator('.key-mark')).toHaveCount(1);
  await expect(page.locator('.key-mark.selected')).toHaveCount(1);

  // A second pose keyed at frame 20 with the Key button, its mark dragged to frame 30 with the mouse: one undo step.
  await h.setTime(20);
  await h.command('pose.rotate', { bone: BONE, rotation: axisAngleMatrix(AXIS, A1) });
  await expect(deleteKeyButton).toBeEnabled();
  await keyButton.click();
  await expect(page.locator('.key-mark')).toHaveCount(2);
  expect((await h.history()).undo.at(-1)).toBe(`Key ${names[BONE]} at frame 20 of Action`);
  await expect(page.locator('.key-mark[data-frame="20"]')).toHaveAttribute('title', /^Every bone’s keys at frame 20: drag to move them/);
  const from = await markCentre(page, 20);
  const zero = await markCentre(page, 0);
  const perFrame = (from.x - zero.x) / 20;
  const steps = (await h.history()).undo.length;
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(from.x + 5 * perFrame, from.y, { steps: 4 });
  await page.mouse.move(from.x + 10 * perFrame, from.y, { steps: 4 });
  await page.mouse.up();
  await expect(page.locator('.key-mark[data-frame="30"]')).toHaveCount(1);
  await expect(page.locator('.key-mark[data-frame="20"]')).toHaveCount(0);
  expect((await h.history()).undo.length).toBe(steps + 1);

  // A drag of that mark cancelled by Escape: the mark follows the pointer, then goes back, and nothing moves.
  const at30 = await markCentre(page, 30);
  await page.mouse.move(at30.x, at30.y);
  await page.mouse.down();
  await page.mouse.move(at30.x + 10 * perFrame, at30.y, { steps: 4 });
  expect((await markCentre(page, 30)).x, 'the dragged mark follows the pointer').toBeGreaterThan(at30.x + 5 * perFrame);
  await page.keyboard.press('Escape');
  expect(Math.abs((await markCentre(page, 30)).x - at30.x), 'Escape puts the mark back').toBeLessThan(1);
  await page.mouse.move(at30.x + 15 * perFrame, at30.y, { steps: 2 });
  await page.mouse.up();
  await expect(page.locator('.key-mark[data-frame="30"]')).toHaveCount(1);
  expect(Math.abs((await markCentre(page, 30)).x - at30.x), 'the mark stays after the release').toBeLessThan(1);
  expect((await h.history()).undo.length, 'a cancelled drag is no undo step').toBe(steps + 1);
  expect((await h.state()).time, 'nor does it move the time').toBe(30);

  // Play from frame 0: the time advances and the bone turns, as the SLERP between the keys at that time.
  await h.setTime(0);
  await page.keyboard.press('Space');
  await page.waitForFunction(() => (window as any).__rigwright.state().time >= 4);
  await page.keyboard.press('Space');
  // Two frames drawn after the pause, so the pose shown is the one at the time shown.
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  const played = await page.evaluate((b) => {
    const hook = (window as any).__rigwright;
    return { state: hook.state(), rotation: hook.pose.shownRotations().slice(9 * b, 9 * b + 9) as number[] };
  }, BONE);
  expect(played.state.playing).toBe(false);
  expect(played.state.time, 'the time advanced while playing').toBeGreaterThanOrEqual(4);
  expect(maxDifference(played.rotation, axisAngleMatrix(AXIS, A0)), 'the bone turned from its first key').toBeGreaterThan(1e-3);
  const playedAngle = A0 + Math.min(played.state.time / 30, 1) * (A1 - A0);
  expect(maxDifference(played.rotation, axisAngleMatrix(AXIS, playedAngle)), `the SLERP at frame ${played.state.time}`).toBeLessThan(1e-9);

  // Then look between the keys: the rotation at the interpolated angle, at whole and fractional frames.
  for (const frame of [0, 7.5, 15, 22.5, 30, 45]) {
    await h.setTime(frame);
    const t = Math.min(frame / 30, 1);
    const error = maxDifference(await h.rotation(), axisAngleMatrix(AXIS, A0 + t * (A1 - A0)));
    expect(error, `frame ${frame}`).toBeLessThan(1e-9);
  }

  // A third key, deleted by a right-click on its mark; the clip menu renames the clip.
  await h.setTime(50);
  await page.keyboard.press('Alt+Shift+i');
  await expect(page.locator('.key-mark')).toHaveCount(3);
  const third = await markCentre(page, 50);
  await page.mouse.click(third.x, third.y, { button: 'right' });
  await expect(page.locator('.key-mark')).toHaveCount(2);
  // Keyed again and deleted with Delete on its mark, the Bind panel open (where Delete alone clears handles).
  await page.keyboard.press('Alt+Shift+i');
  await page.keyboard.press('b');
  await expect(page.locator('.key-mark')).toHaveCount(3);
  await h.setTime(0);
  const again = await markCentre(page, 50);
  await page.mouse.click(again.x, again.y);
  expect((await h.state()).time, 'a click on a mark goes to its frame').toBe(50);
  await page.keyboard.press('Delete');
  await expect(page.locator('.key-mark')).toHaveCount(2);
  expect((await h.history()).undo.at(-1)).toBe('Delete keys at frame 50 of Action');
  await page.keyboard.press('b');
  // The Delete key button deletes the selected bone's key at the current frame; undo brings it back.
  await h.setTime(30);
  await deleteKeyButton.click();
  await expect(page.locator('.key-mark')).toHaveCount(1);
  expect((await h.history()).undo.at(-1)).toBe('Delete keys at frame 30 of Action');
  await page.keyboard.press('Control+z');
  await expect(page.locator('.key-mark')).toHaveCount(2);
  await page.locator('.clip-menu-button').click();
  const menu = page.locator('.clip-menu-popover');
  await expect(menu).toBeVisible();
  await menu.locator('input.clip-name').fill('Wave');
  await menu.locator('button.clip-rename').click();
  expect((await h.state()).clipName).toBe('Wave');
  await expect(page.locator('button.clip-bake')).toBeEnabled();
  await page.keyboard.press('Escape');
  await expect(menu).toBeHidden();

  // Export as GLB; the file holds the clip with the bones' names and the frames on screen.
  const skeleton: { joints: number[]; bones: number[]; parents: number[]; names: string[] } = await page.evaluate(() =>
    (window as any).__rigwright.skeleton(),
  );
  expect(skeleton.names).toEqual(names);
  const bytes = await exportGlbWithClip(page);
  const rig = await importGltf(bytes, 'keys.glb');
  const boneCount = (await h.state()).boneCount;
  expect(names.length).toBe(boneCount);
  expect(rig.boneNames).toEqual(names);
  const clip = rig.clips.find((c) => c.name === 'Wave');
  expect(clip, 'the keyed clip is in the file').toBeTruthy();
  const poses = clip!.poses;
  if (poses.kind !== 'matrices') throw new Error('the clip is frames');
  expect(poses.frameCount).toBe(60);
  for (const frame of [0, 15, 30, 59]) {
    await h.setTime(frame);
    const shown: number[] = await page.evaluate(() => (window as any).__rigwright.pose.shownRotations());
    const stored = Array.from(poses.rotations.subarray(9 * boneCount * frame, 9 * boneCount * (frame + 1)));
    expect(maxDifference(stored, shown), `frame ${frame} of the file`).toBeLessThan(1e-6);
  }

  // Undo goes back to the bare rig, step by step; then the exported file opens in the app with its clip.
  while ((await h.history()).undo.length > bare.undo.length) await page.keyboard.press('Control+z');
  s = await h.state();
  expect(s.clips).toEqual([]);
  expect(s.clipName).toBeNull();
  const dir = mkdtempSync(path.join(tmpdir(), 'keys-'));
  const file = path.join(dir, 'keys.glb');
  writeFileSync(file, bytes);
  await loadFiles(page, [file], 'keys.glb');
  s = await h.state();
  expect(s.error).toBeNull();
  expect(s.boneCount).toBe(boneCount);
  const back: typeof skeleton = await page.evaluate(() => (window as any).__rigwright.skeleton());
  expect(back.names).toEqual(names);
  expect(back.parents, 'the same parents').toEqual(skeleton.parents);
  // The same joints, bone by bone, within the file's float32 precision: both ends of every bone, a leaf's end too (the
  // export writes it in its joint node's extras), in the file read in Node and in the app.
  const scale = Math.max(...skeleton.joints.map(Math.abs));
  for (const [where, other] of [
    ['the file', rig.skeleton],
    ['the app', back],
  ] as const)
    for (let b = 0; b < boneCount; b++)
      for (const end of [0, 1]) {
        const [j, k] = [skeleton.bones[2 * b + end], other.bones[2 * b + end]];
        const error = maxDifference(skeleton.joints.slice(3 * j, 3 * j + 3), Array.from(other.joints.slice(3 * k, 3 * k + 3)));
        expect(error, `${where}: bone ${b} ${end ? 'end' : 'start'} joint`).toBeLessThan(1e-6 * scale);
      }
  expect(s.clips).toContain('Wave');
  // The clip read back poses the bone between its keys as the keyed clip did (float32 in the file).
  await h.command('playback.clip', s.clips.indexOf('Wave'));
  await page.evaluate(() => (window as any).__rigwright.pause());
  await h.setTime(15);
  expect(maxDifference(await h.rotation(), axisAngleMatrix(AXIS, A0 + 0.5 * (A1 - A0)))).toBeLessThan(1e-6);
  expect(errors).toEqual([]);
});

test('clip menu: new clip, trim and length by mouse; choosing a clip is no undo step', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  await loadFiles(page, [body('reference.obj'), body('skeleton.tgf')], 'reference.obj');
  const h = hook(page);
  await page.locator('.clip-menu-button').click();
  const menu = page.locator('.clip-menu-popover');
  await menu.getByRole('button', { name: 'New clip' }).click();
  await menu.getByRole('button', { name: 'New clip' }).click();
  let s = await h.state();
  expect(s.clips).toEqual(['Action', 'Action.001']);
  expect(s.clipName).toBe('Action.001');
  await page.locator('.clip-menu-button').click();
  await page.locator('.clip-menu-button').click();
  await menu.locator('input.clip-first').fill('10');
  await menu.locator('input.clip-last').fill('39');
  await menu.locator('button.clip-trim').click();
  expect((await h.state()).duration).toBe(29);
  await menu.locator('input.clip-length').fill('90');
  await menu.locator('button.clip-set-length').click();
  expect((await h.state()).duration).toBe(89);

  const steps = (await h.history()).undo.length;
  await page.locator('select.clip-select').selectOption('0');
  s = await h.state();
  expect(s.clipName).toBe('Action');
  expect(s.duration).toBe(59);
  expect((await h.history()).undo.length, 'choosing a clip is no undo step').toBe(steps);
  expect(errors).toEqual([]);
});
