/**
 * Keyframes as they are, in the app: a glTF clip plays at the file's key times (the timeline's range, ticks, key
 * steps and readout are the clip's seconds; poses at and between keys are the clip's own, as Node evaluates it), and
 * "Bake clip…" samples the clip at the rate typed into its dialog, as one step that undo takes back.
 */
import { test, expect, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { importGltf } from '../../workers/formats/gltf-import.ts';
import { poseForwardKinematics } from '../../workers/rig/forward-kinematics.ts';
import { frameAtSeconds, type PoseSequence } from '../../workers/rig/pose-sequence.ts';
import { influencesFromWeights } from '../../workers/skinning/influences.ts';
import { linearBlendSkinning } from '../../workers/skinning/linear-blend-skinning.ts';
import { maxDistance } from '../unit/gltf-skinning-reference.ts';
import { dataFile, openApp } from './app-driver.ts';

const FOX = () => dataFile('gltf', 'Fox', 'Fox.glb');

interface HookState {
  sceneName: string;
  time: number;
  duration: number;
  seconds: number | null;
  keyTimes: number[] | null;
  playing: boolean;
  error: string | null;
  clips: string[];
  clipName: string | null;
}

const state = (page: Page): Promise<HookState> => page.evaluate(() => (window as any).__rigwright.state());

async function openFox(page: Page): Promise<HookState> {
  await page.setInputFiles('#file-input', FOX());
  await page.waitForFunction(() => {
    const s = (window as any).__rigwright.state();
    return s.error !== null || s.sceneName === 'Fox.glb';
  });
  return state(page);
}

/** Our rig's posed mesh (forward kinematics, LBS with the app's default 4 influences) in Node. */
function nodePosed(rig: Awaited<ReturnType<typeof importGltf>>, poses: PoseSequence, frame: number): Float64Array {
  const B = rig.skeleton.parents.length;
  const transforms = new Float64Array(12 * B);
  poseForwardKinematics(rig.skeleton, poses, frame, new Float64Array(9 * B), new Float64Array(3 * B), transforms);
  const out = new Float64Array(rig.mesh.positions.length);
  linearBlendSkinning(rig.mesh.positions, influencesFromWeights(rig.weights, 4), transforms, out);
  return out;
}

test('Fox: the Walk plays at the file’s key times; keys and the time between them pose as the clip says', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  const opened = await openFox(page);
  expect(opened.error).toBeNull();
  expect(opened.clips).toEqual(['Survey', 'Walk', 'Run']);
  const rig = await importGltf(readFileSync(FOX()), 'Fox.glb');
  const walk = rig.clips[1].poses;
  if (walk.kind !== 'matrices' || !walk.times) throw new Error('Walk has key times');
  const keyTimes = Array.from(walk.times);

  await page.evaluate(() => (window as any).__rigwright.command('playback.clip', 1));
  await page.evaluate(() => (window as any).__rigwright.pause());
  let s = await state(page);
  expect(s.clipName).toBe('Walk');
  expect(s.keyTimes).toEqual(keyTimes);
  expect(s.duration).toBe(keyTimes.length - 1);
  // The slider runs over the clip's seconds, with one tick per key.
  const slider = page.locator('.scrubber');
  expect(Number(await slider.getAttribute('min'))).toBe(keyTimes[0]);
  expect(Number(await slider.getAttribute('max'))).toBe(keyTimes[keyTimes.length - 1]);
  await expect(page.locator('.key-ticks line')).toHaveCount(keyTimes.length);

  // The arrow keys step key by key; the readout says the key's time.
  await page.evaluate(() => (window as any).__rigwright.setTime(0));
  for (let k = 1; k <= 3; k++) {
    await page.keyboard.press('ArrowRight');
    s = await state(page);
    expect(s.time).toBe(k);
    expect(s.seconds).toBe(keyTimes[k]);
    await expect(page.locator('.time-readout')).toHaveText(`${keyTimes[k].toFixed(3)} s · key ${k} / ${keyTimes.length - 1}`);
  }

  // At a key and between keys the app's pose is the clip's, as Node evaluates it at those seconds.
  const diagonal: number = await page.evaluate(() => (window as any).__rigwright.boundingDiagonal());
  for (const seconds of [keyTimes[5], 0.5 * (keyTimes[5] + keyTimes[6]), keyTimes[11] + 0.3 * (keyTimes[12] - keyTimes[11])]) {
    const frame = frameAtSeconds(walk, seconds);
    await page.evaluate((f) => (window as any).__rigwright.setTime(f), frame);
    s = await state(page);
    expect(Math.abs(s.seconds! - seconds)).toBeLessThan(1e-12);
    const cpu: number[] = await page.evaluate(() => (window as any).__rigwright.cpuPositions());
    const error = maxDistance(cpu, nodePosed(rig, walk, frame)) / diagonal;
    expect(error, `pose at ${seconds} s`).toBeLessThan(1e-9);
  }

  // Playing moves through the clip's seconds (not a 30 fps frame grid) and loops within its keys.
  await page.evaluate(() => (window as any).__rigwright.play());
  const seen: number[] = [];
  const frames: number[] = [];
  for (let i = 0; i < 12; i++) {
    await page.waitForTimeout(100);
    const now = await state(page);
    expect(now.playing).toBe(true);
    seen.push(now.seconds!);
    expect(now.seconds!).toBeGreaterThanOrEqual(keyTimes[0]);
    expect(now.seconds!).toBeLessThanOrEqual(keyTimes[keyTimes.length - 1]);
    frames.push(now.time);
  }
  expect(new Set(seen).size).toBeGreaterThan(3);
  expect(
    frames.some((f) => !Number.isInteger(f)),
    'between keys the time is a fraction of the way to the next key',
  ).toBe(true);
  await page.evaluate(() => (window as any).__rigwright.pause());
  expect(errors).toEqual([]);
});

test('Bake clip… samples the Walk at the rate typed in, and undo brings the file’s keys back', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  expect((await openFox(page)).error).toBeNull();
  await page.evaluate(() => (window as any).__rigwright.command('playback.clip', 1));
  const before = await state(page);
  const keyTimes = before.keyTimes!;
  expect(keyTimes.length).toBe(18);

  await page.evaluate(() => (window as any).__rigwright.command('playback.bakeClip'));
  const dialog = page.locator('#bake-dialog');
  await expect(dialog).toBeVisible();
  await dialog.locator('input.bake-rate').fill('12');
  const end = keyTimes[keyTimes.length - 1];
  const frames = Math.ceil((end - keyTimes[0]) * 12 - 1e-6) + 1;
  await expect(dialog.locator('.export-note')).toHaveText(`${frames} frames from ${keyTimes[0].toFixed(3)} s to ${end.toFixed(3)} s.`);
  await dialog.locator('button.export-primary').click();
  await expect(dialog).toBeHidden();

  const baked = await state(page);
  expect(baked.clipName).toBe('Walk');
  expect(baked.keyTimes!.length).toBe(frames);
  for (let k = 1; k < frames - 1; k++) expect(Math.abs(baked.keyTimes![k] - baked.keyTimes![k - 1] - 1 / 12)).toBeLessThan(1e-12);
  expect(baked.keyTimes![frames - 1]).toBe(end);
  const history: { undo: string[] } = await page.evaluate(() => (window as any).__rigwright.history());
  expect(history.undo.at(-1)).toBe('Bake Walk at 12 fps');
  await expect(page.locator('.key-ticks line')).toHaveCount(frames);

  await page.keyboard.press('Control+z');
  await expect.poll(async () => (await state(page)).keyTimes).toEqual(keyTimes);
  await page.evaluate(() => (window as any).__rigwright.command('edit.redo'));
  expect((await state(page)).keyTimes!.length).toBe(frames);
  expect(errors).toEqual([]);
});
