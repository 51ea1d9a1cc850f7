/**
 * Nothing is lost on close or crash, in Chromium as a user meets it: on the hand, handles drawn with the lasso, a
 * paint stroke and a bone scale, autosaved after the (shortened) idle delay; the page closed without saving, a fresh
 * page of the same origin offers the work (when, what) and Recover restores the scene bit for bit — mesh, skeleton,
 * weights, handles, bone scales and poses — with unsaved changes. The recovering page's own work, ended the same way,
 * is offered in turn; Discard starts without it and it is not offered again. On the context-aware body with two example
 * shapes, one hidden (an edit), recovery restores the examples' positions and poses bit for bit, their names and hidden
 * flags. Autosave while the artist paints without pause (a stroke every 10 s for 3 minutes, on Playwright's clock):
 * versions are written at the maximum wait, recovery offers them newest first and restores the newest bit for bit, and
 * a damaged newest version is marked and the one before it offered and restored. A browser storage that cannot be
 * opened is said in the app. Closing asks first only with unsaved changes (the browser's beforeunload prompt), and the
 * app's Save / Discard / Cancel dialog answers for in-app actions. Uses `window.__rigwright.work`.
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

async function stroke(page: Page, from: { x: number; y: number }, dx: number, steps = 8): Promise<void> {
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(from.x + dx, from.y, { steps });
  await page.mouse.up();
}

/** The scene's weights as the bytes of their float64 values (base64): equal strings are equal bit for bit. */
const weightBits = (page: Page): Promise<string> =>
  page.evaluate(() => {
    const bytes = new Uint8Array(new Float64Array((window as any).__rigwright.work.scene().weights as number[]).buffer);
    let text = '';
    for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(text);
  });

/** The autosave versions in the page's storage, with their sessions. */
const stored = (page: Page): Promise<{ versions: { id: string; session: string }[]; marked: { session: string; alive: boolean }[] }> =>
  page.evaluate(() => (window as any).__rigwright.work.stored());

/**
 * Cuts a version's bytes in the page's IndexedDB short, as a write cut short leaves them: its last chunk (keyed
 * `<id>/<number>`) keeps its first half. @returns the version's chunks
 */
async function truncateStoredVersion(page: Page, id: string): Promise<number> {
  return page.evaluate(async (key) => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const request = indexedDB.open('rigwright-autosave');
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error ?? new Error('rigwright-autosave: cannot be opened'));
    });
    const transaction = db.transaction('bytes', 'readwrite');
    const store = transaction.objectStore('bytes');
    const chunks = IDBKeyRange.bound(`${key}/`, `${key}/\uffff`);
    const count = store.count(chunks);
    const last = store.openCursor(chunks, 'prev');
    last.onsuccess = () => {
      const chunk = last.result?.value as Uint8Array | undefined;
      if (chunk) last.result!.update(chunk.slice(0, chunk.length >> 1));
    };
    await new Promise((resolve, reject) => {
      transaction.oncomplete = resolve;
      transaction.onerror = () => reject(transaction.error ?? new Error('rigwright-autosave: the write failed'));
    });
    db.close();
    return count.result;
  }, id);
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

test('autosave while painting without pause: versions at the maximum wait; recovery offers them and falls back past a damaged one', async ({
  page,
}) => {
  test.setTimeout(180_000);
  const errors: string[] = [];
  // The page's timers and Date run on Playwright's clock: 3 minutes of work pass in a few seconds (workers keep real time).
  await page.clock.install();
  await openApp(page, errors, { paused: true });
  await page.evaluate(() => (window as any).__rigwright.work.setAutosave({ delaySeconds: 30, maxWaitSeconds: 60 }));
  await loadFiles(page, [dataFile('hand/hand.off'), dataFile('hand/hand.tgf'), dataFile('hand/hand-handles.dmat')], 'hand.off');
  expect((await page.evaluate(() => (window as any).__rigwright.state())).error).toBeNull();
  await page.keyboard.press('p');
  await page.evaluate(() => (window as any).__rigwright.paint.setBrush({ mode: 'add', strength: 0.3, radius: 40 }));
  // The viewport's draws are held while painting (the page does the rest of its work): SwiftShader's frames are slow.
  await page.evaluate(() => (window as any).__rigwright.holdDraws(true));
  const box = (await page.locator('canvas').first().boundingBox())!;
  /** the weights after each count of edits, as the artist left them (weightBits) */
  const weightsAt = new Map<number, string>();
  /**
   * One stroke across the hand (bone and height varying), then `seconds` of the clock.
   * @param editsBefore  edits the page's project had before its history began (a recovered version's)
   */
  const paintFor = async (p: Page, i: number, seconds: number, editsBefore = 0) => {
    await p.evaluate((b) => (window as any).__rigwright.paint.selectBone(b), i % 5);
    await stroke(p, { x: box.x + box.width / 2 - 60, y: box.y + box.height / 2 - 60 + 12 * (i % 10) }, 120, 3);
    weightsAt.set(editsBefore + (await history(p)).length, await weightBits(p));
    await p.clock.fastForward(seconds * 1000);
  };
  /** Waits until no version is being written (a write the clock started runs on in real time). */
  const writesDone = (p: Page) => p.waitForFunction(() => !(window as any).__rigwright.work.state().writing);

  // A stroke every 10 s for 3 minutes: the idle delay (30 s) never passes, the maximum wait (60 s) writes anyway.
  for (let i = 0; i < 18; i++) await paintFor(page, i, 10);
  await writesDone(page);
  expect(await history(page)).toEqual(Array(18).fill('Paint stroke'));
  const first = await work(page);
  const session = first.session;
  const mine = (await stored(page)).versions.filter((v) => v.session === session);
  expect(first.written, 'versions written while painting').toBeGreaterThanOrEqual(2);
  expect(mine.length, 'versions kept').toBe(first.written);
  const newest = first.latest;
  expect(weightsAt.has(newest.editCount), 'the newest version holds a whole number of strokes').toBe(true);

  // Killed (no beforeunload): a fresh page offers every version, newest first, and restores the newest bit for bit.
  await page.close({ runBeforeUnload: false });
  const second = await reopen(page, errors);
  const offer = await work(second);
  expect(offer.offered, 'the newest version is selected').toEqual(newest);
  expect(offer.offeredVersions, 'every version, newest first').toEqual(
    mine.map((v) => v.id).sort((a, b) => Number(b.split('-').at(-1)) - Number(a.split('-').at(-1))),
  );
  expect(offer.damaged).toEqual([]);
  const prompt = second.locator('#recovery-prompt');
  await expect(prompt).toBeVisible();
  await expect(prompt.locator('#recovery-versions option')).toHaveCount(mine.length);
  await expect(prompt).toContainText(`${newest.editCount} edits`);
  await prompt.locator('button', { hasText: 'Recover' }).click();
  await expect(prompt).toBeHidden();
  expect(await weightBits(second), 'the newest version, bit for bit').toBe(weightsAt.get(newest.editCount));

  // The recovering page paints on (a stroke, a minute's pause: a version each), its newest version is damaged as it
  // is killed: the next page marks it, says so, and offers the one before, which restores bit for bit.
  await second.keyboard.press('p');
  await second.evaluate(() => (window as any).__rigwright.holdDraws(true));
  const before = (await work(second)).written;
  weightsAt.clear();
  for (let i = 0; i < 2; i++) {
    await paintFor(second, 18 + i, 60, newest.editCount);
    await writesDone(second);
  }
  const ended = await work(second);
  expect(ended.written - before, 'a version per stroke').toBe(2);
  expect(ended.latest.editCount).toBe(newest.editCount + 2);
  const versions = (await stored(second)).versions.filter((v) => v.session === ended.session);
  expect(versions.length).toBeGreaterThanOrEqual(3);
  expect(await truncateStoredVersion(second, ended.latest.id), 'the version is stored in chunks').toBeGreaterThan(0);
  await second.close({ runBeforeUnload: false });
  const third = await reopen(page, errors);
  const fallback = await work(third);
  expect(fallback.offeredVersions[0], 'the damaged version is still listed first').toBe(ended.latest.id);
  expect(fallback.damaged).toEqual([ended.latest.id]);
  expect(fallback.offered.editCount, 'the version before it is selected').toBe(ended.latest.editCount - 1);
  const thirdPrompt = third.locator('#recovery-prompt');
  await expect(thirdPrompt).toContainText('cannot be opened');
  await expect(thirdPrompt.locator('#recovery-versions option').first()).toBeDisabled();
  await expect(thirdPrompt.locator('#recovery-versions option').first()).toContainText('(damaged)');
  await thirdPrompt.locator('button', { hasText: 'Recover' }).click();
  await expect(thirdPrompt).toBeHidden();
  expect(await weightBits(third), 'the version before the damaged one, bit for bit').toBe(weightsAt.get(fallback.offered.editCount));
  expect(errors).toEqual([]);
});

test('autosave says in the app when the browser storage cannot be opened, and stays off', async ({ page }) => {
  const errors: string[] = [];
  await page.addInitScript(() => {
    IDBFactory.prototype.open = () => {
      throw new DOMException('The user denied permission to access the database.', 'SecurityError');
    };
  });
  await openApp(page, errors, { paused: true });
  await page.evaluate(() => (window as any).__rigwright.work.started());
  const notice = page.locator('.notice');
  await expect(notice).toBeVisible();
  await expect(notice).toContainText('Autosave is off');
  await expect(notice).toContainText('IndexedDB rigwright-autosave cannot be opened: The user denied permission to access the database.');
  expect((await work(page)).off).toMatch(/^IndexedDB rigwright-autosave cannot be opened/);
  await page.evaluate(() => (window as any).__rigwright.setBoneScale(1, [1.5, 1.5, 1.5]));
  await page.evaluate(() => (window as any).__rigwright.work.flush());
  expect((await work(page)).written, 'nothing written').toBe(0);
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
  // The idle delay and the maximum wait are a setting (File › Autosave settings…), kept for the next start.
  expect((await work(second)).settings).toEqual({ delaySeconds: 30, maxWaitSeconds: 60, versions: 5 });
  expect(await second.evaluate(() => (window as any).__rigwright.command('file.autosaveSettings'))).toBe(true);
  const settings = second.locator('#autosave-settings');
  await expect(settings).toBeVisible();
  await settings.locator('input[name="autosave-delay"]').fill('1');
  await settings.locator('input[name="autosave-max-wait"]').fill('90');
  await settings.locator('input[name="autosave-versions"]').fill('3');
  await settings.locator('button', { hasText: 'Apply' }).click();
  await expect(settings).toBeHidden();
  expect((await work(second)).settings).toEqual({ delaySeconds: 1, maxWaitSeconds: 90, versions: 3 });
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
  expect((await work(third)).settings, 'the setting is kept').toEqual({ delaySeconds: 1, maxWaitSeconds: 90, versions: 3 });
  expect(errors).toEqual([]);
});
