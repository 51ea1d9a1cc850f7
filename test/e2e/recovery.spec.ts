/**
 * Nothing is lost on close or crash, in Chromium as a user meets it: on the hand, handles drawn with the lasso, a
 * paint stroke and a bone scale, autosaved after the (shortened) idle delay; the page closed without saving, a fresh
 * page of the same origin offers the work (when, what) and Recover restores the scene bit for bit — mesh, skeleton,
 * weights, handles, bone scales and poses — with unsaved changes. The recovering page's own work, ended the same way,
 * is offered in turn; Discard starts without it and it is not offered again. On the context-aware body with two example
 * shapes, one hidden (an edit), recovery restores the examples' positions and poses bit for bit, their names and hidden
 * flags. Closing asks first only with unsaved changes (the browser's beforeunload prompt), and the app's Save / Discard /
 * Cancel dialog answers for in-app actions. Uses `window.__rigwright.work`.
 */
import { test, expect, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { assignHandlesAroundTopJoint, dataFile, loadExamples, loadFiles, openApp } from './app-driver.ts';

const work = (page: Page) => page.evaluate(() => (window as any).__rigwright.work.state());
const scene = (page: Page) => page.evaluate(() => (window as any).__rigwright.work.scene());
const history = (page: Page): Promise<string[]> => page.evaluate(() => (window as any).__rigwright.history().undo);

/** Waits until this page has autosaved its latest edit (by default: the version counts as many edits as the history holds). */
async function autosaved(page: Page, edits?: number): Promise<void> {
  edits ??= (await history(page)).length;
  await page.waitForFunction((n) => (window as any).__rigwright.work.state().latest?.editCount === n, edits, { timeout: 30_000 });
}

async function stroke(page: Page, from: { x: number; y: number }, dx: number): Promise<void> {
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(from.x + dx, from.y, { steps: 8 });
  await page.mouse.up();
}

/** Opens a fresh page of the same browser context (so IndexedDB and local storage are shared) and waits for the recovery check. */
async function reopen(page: Page, errors: string[]): Promise<Page> {
  const next = await page.context().newPage();
  await openApp(next, errors, { paused: true });
  await next.evaluate(() => (window as any).__rigwright.work.started());
  return next;
}

test('hand: handles, a stroke and a bone scale, closed without saving: recovery restores the scene bit for bit', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  await page.evaluate(() => (window as any).__rigwright.work.setAutosave({ delaySeconds: 1 }));
  await loadFiles(
    page,
    [dataFile('hand/hand.off'), dataFile('hand/hand.tgf'), dataFile('hand/hand-handles.dmat'), dataFile('hand/hand-pose_matrot.dmat')],
    'hand.off',
  );
  expect((await page.evaluate(() => (window as any).__rigwright.state())).error).toBeNull();
  await page.evaluate(() => (window as any).__rigwright.pause());
  await page.evaluate(() => (window as any).__rigwright.setTime(3));
  expect((await work(page)).unsaved, 'a scene just opened has nothing unsaved').toBe(false);

  // Handles: a lasso around the topmost joint, assigned to bone 3 with the A key.
  const handlesBefore: number[] = await page.evaluate(() => (window as any).__rigwright.binding.handles());
  expect(await assignHandlesAroundTopJoint(page, 3)).toBeGreaterThan(10);

  // Weights: a paint stroke across the middle of the view.
  await page.keyboard.press('p');
  await page.evaluate(() => (window as any).__rigwright.paint.setBrush({ mode: 'add', strength: 0.5, radius: 30 }));
  await page.evaluate(() => (window as any).__rigwright.paint.selectBone(0));
  const box = (await page.locator('canvas').first().boundingBox())!;
  await stroke(page, { x: box.x + box.width / 2 - 40, y: box.y + box.height / 2 }, 80);
  await page.keyboard.press('p');

  // A bone scale.
  await page.evaluate(() => (window as any).__rigwright.setBoneScale(2, [1.25, 0.8, 1.1]));
  const steps = await history(page);
  expect(steps).toHaveLength(3);
  expect(steps[0]).toMatch(/^Assign \d+ handles to bone 3$/);
  expect(steps.slice(1)).toEqual(['Paint stroke', 'Scale bone 2']);
  const before = await scene(page);
  expect(before.handles.filter((b: number, v: number) => b !== handlesBefore[v]).length, 'handles were edited').toBeGreaterThan(0);
  expect(before.boneScales.slice(6, 9)).toEqual([1.25, 0.8, 1.1]);
  expect(before.poses.length).toBeGreaterThan(0);
  expect((await work(page)).unsaved).toBe(true);

  await autosaved(page);
  const saved = (await work(page)).latest;
  // The page's own share of an autosave is copying the scene to the worker (printed; timing belongs to benchmarks).
  const { pauseMs } = await work(page);
  console.log(
    `autosave of ${before.positions.length / 3} vertices × ${before.bones.length / 2} bones: ${pauseMs.toFixed(2)} ms on the page's thread`,
  );
  expect(saved).toMatchObject({
    name: 'untitled',
    vertexCount: before.positions.length / 3,
    boneCount: before.bones.length / 2,
    editCount: 3,
  });

  // Closed without saving (no beforeunload): a fresh page offers the work, saying when and what.
  await page.close({ runBeforeUnload: false });
  const next = await reopen(page, errors);
  const offered = await work(next);
  expect(offered.promptShown).toBe(true);
  expect(offered.offered).toEqual(saved);
  const prompt = next.locator('#recovery-prompt');
  await expect(prompt).toBeVisible();
  const vertices = (before.positions.length / 3).toLocaleString('en-US');
  await expect(prompt).toContainText(`untitled: ${vertices} vertices, ${before.bones.length / 2} bones, 3 edits`);
  await expect(prompt).toContainText(/Autosaved at \d\d:\d\d \(just now\)/);
  // The fresh page starts on the demo; nothing of the offer is applied until Recover.
  expect((await scene(next)).positions.length).not.toBe(before.positions.length);

  await prompt.locator('button', { hasText: 'Recover' }).click();
  await expect(prompt).toBeHidden();
  const after = await scene(next);
  for (const key of ['positions', 'triangles', 'joints', 'bones', 'weights', 'handles', 'boneScales', 'poses', 'translations'] as const) {
    expect(after[key], `${key} bit for bit`).toEqual(before[key]);
  }
  expect(after.weightsSource).toBe(before.weightsSource);
  expect(after.posesFile).toBe(before.posesFile);
  const state = await work(next);
  expect(state.unsaved, 'recovered work is unsaved until saved').toBe(true);
  expect(await next.title()).toMatch(/^• /);
  expect(state.written, 'the recovered work is autosaved by the new session at once').toBeGreaterThan(0);
  const stored = await next.evaluate(() => (window as any).__rigwright.work.stored());
  expect(
    stored.marked.map((m: { session: string }) => m.session),
    'only the new session holds the work',
  ).toEqual([state.session]);

  // The new page goes too, without saving: its work (the recovered edits and one more) is offered again; Discard
  // starts without it and it is not offered again. (Chromium here ends the whole browser on a renderer crash, so a
  // page ended from outside stands for the crash.)
  await next.evaluate(() => (window as any).__rigwright.setBoneScale(4, [0.9, 0.9, 0.9]));
  await autosaved(next, 4);
  const endedAt = (await work(next)).latest;
  const endedScene = await scene(next);
  await next.close({ runBeforeUnload: false });
  const third = await reopen(page, errors);
  expect((await work(third)).offered).toEqual(endedAt);
  expect(endedAt.editCount).toBe(4);
  const thirdPrompt = third.locator('#recovery-prompt');
  await expect(thirdPrompt).toContainText('4 edits');
  expect(endedScene.boneScales.slice(12, 15)).toEqual([0.9, 0.9, 0.9]);
  await thirdPrompt.locator('button', { hasText: 'Discard' }).click();
  await expect(thirdPrompt).toBeHidden();
  const kept = await third.evaluate(() => (window as any).__rigwright.work.stored());
  expect(
    kept.versions.some((v: { id: string }) => v.id === endedAt.id),
    'Discard keeps the files',
  ).toBe(true);
  const fourth = await reopen(page, errors);
  expect((await work(fourth)).promptShown, 'a discarded offer is not made again').toBe(false);
  expect(errors).toEqual([]);
});

test('context-aware body with two examples, one hidden, closed without saving: recovery restores the examples bit for bit', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const errors: string[] = [];
  const body = (name: string) => dataFile(`context-aware/${name}`);
  const arrays = (p: Page): Promise<Record<string, string | null>> => p.evaluate(() => (window as any).__rigwright.project.arrays());
  const values = (p: Page): Promise<Record<string, unknown>> => p.evaluate(() => (window as any).__rigwright.project.values());
  const examples = (p: Page): Promise<{ name: string; hidden: boolean }[]> =>
    p.evaluate(() => (window as any).__rigwright.examples.state().examples.map((e: any) => ({ name: e.name, hidden: e.hidden })));
  await openApp(page, errors, { paused: true });
  await page.evaluate(() => (window as any).__rigwright.work.setAutosave({ delaySeconds: 1 }));
  await loadFiles(page, [body('reference.obj'), body('skeleton.tgf')], 'reference.obj');
  expect((await page.evaluate(() => (window as any).__rigwright.state())).error).toBeNull();
  await loadExamples(page, [body('eg0.obj'), body('eg0.dmat'), body('eg1.obj'), body('eg1.dmat')], 2);
  await page.evaluate(() => (window as any).__rigwright.pause());

  // Hiding an example is an edit of its own, on the history: the scene has unsaved changes.
  expect(await page.evaluate(() => (window as any).__rigwright.command('examples.toggle', 'eg1'))).toBe(true);
  expect((await history(page)).at(-1)).toBe('Hide example eg1');
  expect((await work(page)).unsaved).toBe(true);
  expect(await examples(page)).toEqual([
    { name: 'eg0', hidden: false },
    { name: 'eg1', hidden: true },
  ]);
  const before = await arrays(page);
  const beforeValues = await values(page);
  expect(beforeValues).toMatchObject({
    examples: [
      { name: 'eg0', file: 'eg0.obj', poseSource: 'eg0.dmat', hidden: false },
      { name: 'eg1', file: 'eg1.obj', poseSource: 'eg1.dmat', hidden: true },
    ],
  });
  // The page's examples are the files' numbers: eg0.obj's first vertex, read here, and 28 bones × 9 pose entries each.
  const eg0 = readFileSync(body('eg0.obj'), 'utf8')
    .split('\n')
    .find((line) => line.startsWith('v '))!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const positions0 = new Float64Array(Buffer.from(before['example eg0.positions']!, 'base64').buffer.slice(0));
  expect(positions0.length).toBe(3 * 18453);
  expect(Array.from(positions0.subarray(0, 3))).toEqual(eg0);
  for (const name of ['eg0', 'eg1']) expect(Buffer.from(before[`example ${name}.pose`]!, 'base64').length).toBe(8 * 9 * 28);
  expect(before['example eg0.positions']).not.toBe(before['example eg1.positions']);

  await autosaved(page);
  const saved = (await work(page)).latest;
  expect(saved).toMatchObject({ vertexCount: 18453, boneCount: 28 });

  // Closed without saving (no beforeunload): a fresh page of the same origin offers the work; Recover restores it.
  await page.close({ runBeforeUnload: false });
  const next = await reopen(page, errors);
  expect((await work(next)).offered).toEqual(saved);
  expect(await examples(next), 'the fresh page starts without the examples').toEqual([]);
  const prompt = next.locator('#recovery-prompt');
  await expect(prompt).toBeVisible();
  await prompt.locator('button', { hasText: 'Recover' }).click();
  await expect(prompt).toBeHidden();
  const after = await arrays(next);
  expect(Object.keys(after).sort()).toEqual(Object.keys(before).sort());
  for (const key of Object.keys(before)) expect(after[key], `${key} bit for bit`).toBe(before[key]);
  expect(await values(next)).toEqual(beforeValues);
  // The app's own Examples state, not only the project's view of it.
  expect(await examples(next)).toEqual([
    { name: 'eg0', hidden: false },
    { name: 'eg1', hidden: true },
  ]);
  expect((await work(next)).unsaved, 'recovered work is unsaved until saved').toBe(true);
  expect(errors).toEqual([]);
});

test('closing asks first only with unsaved changes; the in-app dialog discards or cancels; the autosave delay is a setting', async ({
  page,
}) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.type());
    void dialog.dismiss();
  });
  // A click gives the page the user activation browsers require before they show a beforeunload prompt.
  const box = (await page.locator('canvas').first().boundingBox())!;
  await page.mouse.click(box.x + 10, box.y + 10);
  expect((await work(page)).unsaved).toBe(false);
  await page.close({ runBeforeUnload: true });
  await expect.poll(() => page.isClosed()).toBe(true);
  expect(dialogs, 'nothing unsaved: no question').toEqual([]);

  const second = await page.context().newPage();
  await openApp(second, errors, { paused: true });
  await second.evaluate(() => (window as any).__rigwright.work.started());
  // The idle delay is a setting (File › Autosave settings…), kept for the next start.
  expect((await work(second)).settings).toEqual({ delaySeconds: 30, versions: 5 });
  expect(await second.evaluate(() => (window as any).__rigwright.command('file.autosaveSettings'))).toBe(true);
  const settings = second.locator('#autosave-settings');
  await expect(settings).toBeVisible();
  await settings.locator('input[name="autosave-delay"]').fill('1');
  await settings.locator('input[name="autosave-versions"]').fill('3');
  await settings.locator('button', { hasText: 'Apply' }).click();
  await expect(settings).toBeHidden();
  expect((await work(second)).settings).toEqual({ delaySeconds: 1, versions: 3 });
  const kinds: string[] = [];
  let leave = false;
  second.on('dialog', (dialog) => {
    kinds.push(dialog.type());
    void (leave ? dialog.accept() : dialog.dismiss());
  });
  const box2 = (await second.locator('canvas').first().boundingBox())!;
  await second.mouse.click(box2.x + 10, box2.y + 10);
  await second.evaluate(() => (window as any).__rigwright.setBoneScale(1, [1.5, 1.5, 1.5]));
  expect((await work(second)).unsaved).toBe(true);

  // The app's own dialog (opening another scene over unsaved changes): Cancel keeps, Discard lets go.
  const cancelled = second.evaluate(() => (window as any).__rigwright.work.mayDiscard());
  const dialog = second.locator('#save-changes-dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('Save changes to');
  await dialog.locator('button', { hasText: 'Cancel' }).click();
  expect(await cancelled).toBe(false);
  await expect(dialog).toBeHidden();
  const escaped = second.evaluate(() => (window as any).__rigwright.work.mayDiscard());
  await expect(dialog).toBeVisible();
  await second.keyboard.press('Escape');
  expect(await escaped, 'Escape cancels').toBe(false);
  // Opening another scene over unsaved changes asks the same: Cancel keeps the scene.
  const sceneName = (await second.evaluate(() => (window as any).__rigwright.state())).sceneName;
  expect(await second.evaluate(() => (window as any).__rigwright.command('file.twistDemo'))).toBe(true);
  await expect(dialog).toBeVisible();
  await dialog.locator('button', { hasText: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  expect((await second.evaluate(() => (window as any).__rigwright.state())).sceneName).toBe(sceneName);

  // With unsaved changes the browser asks before the page goes: dismissed, the page stays; accepted, it closes.
  await second.close({ runBeforeUnload: true });
  await expect.poll(() => kinds).toEqual(['beforeunload']);
  expect(second.isClosed()).toBe(false);
  expect(await second.evaluate(() => (window as any).__rigwright.state().boneCount)).toBeGreaterThan(0);

  await second.evaluate(() => (window as any).__rigwright.setBoneScale(1, [1.4, 1.5, 1.5]));
  await autosaved(second);
  const session = (await work(second)).session;
  const discarded = second.evaluate(() => (window as any).__rigwright.work.mayDiscard());
  await dialog.locator('button', { hasText: 'Discard' }).click();
  expect(await discarded).toBe(true);
  const stored = await second.evaluate(() => (window as any).__rigwright.work.stored());
  expect(
    stored.marked.some((m: { session: string }) => m.session === session),
    'discarded: not offered for recovery',
  ).toBe(false);

  leave = true;
  await second.close({ runBeforeUnload: true });
  await expect.poll(() => second.isClosed()).toBe(true);
  expect(kinds).toEqual(['beforeunload', 'beforeunload']);
  const third = await page.context().newPage();
  await openApp(third, errors, { paused: true });
  await third.evaluate(() => (window as any).__rigwright.work.started());
  expect((await work(third)).promptShown, 'discarded work is not offered').toBe(false);
  expect((await work(third)).settings, 'the setting is kept').toEqual({ delaySeconds: 1, versions: 3 });
  expect(errors).toEqual([]);
});
