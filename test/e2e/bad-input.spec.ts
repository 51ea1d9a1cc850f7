/**
 * Bad files in the app: after a scene is loaded and edited, a corrupt OFF and then a corrupt GLB are dropped on the
 * window. Each gives one message naming the file, the place and the reason (the reader's own FormatError), and the
 * scene — its arrays, its files, its undo history — is exactly as before.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { dataFile, loadFiles, openApp } from './app-driver.ts';

/** Drops files on the window as a user's drag and drop does: a DataTransfer with File objects. */
async function dropFiles(page: Page, files: { name: string; bytes: Uint8Array }[]): Promise<void> {
  await page.evaluate(
    (list) => {
      const transfer = new DataTransfer();
      for (const { name, bytes } of list) transfer.items.add(new File([new Uint8Array(bytes)], name));
      window.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    },
    files.map((f) => ({ name: f.name, bytes: Array.from(f.bytes) })),
  );
}

/** Everything of the scene a bad file must not touch. */
async function sceneState(page: Page) {
  return page.evaluate(() => {
    const hook = (window as any).__rigwright;
    const { meshFiles, vertexCount, triangleCount, boneCount, jointCount, weightsSource, clips, sceneName } = hook.state();
    return {
      state: { meshFiles, vertexCount, triangleCount, boneCount, jointCount, weightsSource, clips, sceneName },
      history: hook.history(),
      snapshot: hook.snapshot(),
      positions: hook.cpuPositions() as number[],
    };
  });
}

async function shownMessages(page: Page) {
  return page.evaluate(() => ({
    error: (window as any).__rigwright.state().error as string | null,
    banner: (document.querySelector('#error-banner') as HTMLElement).hidden
      ? null
      : document.querySelector('#error-banner .error-message')!.textContent,
    notices: [...document.querySelectorAll<HTMLElement>('.notice')].filter((n) => !n.hidden).map((n) => n.textContent),
  }));
}

test('a corrupt OFF and a corrupt GLB dropped on a scene: one message each naming file, place and reason; the scene and its history stay', async ({
  page,
}) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  await loadFiles(page, [dataFile('libigl', 'arm.obj'), dataFile('libigl', 'arm.tgf')], 'arm.obj');
  await loadFiles(page, [dataFile('libigl', 'arm-weights.dmat')]);
  await page.evaluate(() => (window as any).__rigwright.setBoneScale(1, [1.25, 1.25, 1.25])); // an edit of the scene's own
  const before = await sceneState(page);
  expect(before.state.vertexCount).toBe(8311);
  expect(before.history.undo.length).toBeGreaterThanOrEqual(2);
  expect((await shownMessages(page)).error).toBeNull();

  const cases = [
    {
      name: 'broken.off',
      bytes: new TextEncoder().encode('OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 7\n'),
      message: 'broken.off: line 6: face 0 names vertex 7, but vertices are numbered 0 to 2',
    },
    {
      name: 'broken.glb',
      bytes: (() => {
        const glb = readFileSync(dataFile('gltf', 'RiggedSimple', 'RiggedSimple.glb'));
        return new Uint8Array(glb.subarray(0, Math.floor(glb.length * 0.6)));
      })(),
      message:
        'broken.glb: GLB header: glTF import: the header gives a length of 15104 bytes (byte 8), the file has 9062; it looks truncated',
    },
  ];
  for (const { name, bytes, message } of cases) {
    errors.length = 0;
    await dropFiles(page, [{ name, bytes }]);
    await page.waitForFunction(() => (window as any).__rigwright.state().error !== null, undefined, { timeout: 30_000 });
    const shown = await shownMessages(page);
    expect(shown.error, name).toBe(message);
    expect(shown.banner, `${name}: the banner shows the same one message`).toBe(message);
    expect(shown.notices, `${name}: no second message`).toEqual([]);
    expect(errors, `${name}: logged once, nothing else went wrong`).toEqual([message]);
    const after = await sceneState(page);
    expect(after.state, name).toEqual(before.state);
    expect(after.history, name).toEqual(before.history);
    expect(after.snapshot, name).toEqual(before.snapshot);
    expect(after.positions, name).toEqual(before.positions);
    await page.click('#error-banner .error-dismiss');
    await expect(page.locator('#error-banner')).toBeHidden();
  }

  // A bad file chosen in the Open dialog (the page's file input) is reported the same way.
  const opened = path.join(mkdtempSync(path.join(tmpdir(), 'rigwright-bad-input-')), 'opened.glb');
  writeFileSync(opened, cases[1].bytes);
  await page.setInputFiles('#file-input', [opened]);
  await page.waitForFunction(() => (window as any).__rigwright.state().error !== null, undefined, { timeout: 30_000 });
  expect((await shownMessages(page)).error).toBe(cases[1].message.replace('broken.glb', 'opened.glb'));
  expect(await sceneState(page)).toEqual(before);
  await page.click('#error-banner .error-dismiss');

  // The scene still works: undo takes back the last edit of the scene, not a file that never loaded.
  const lastStep = before.history.undo.at(-1);
  await page.evaluate(() => (window as any).__rigwright.command('edit.undo'));
  const undone = await sceneState(page);
  expect(undone.history.undo).toEqual(before.history.undo.slice(0, -1));
  expect(undone.history.redo).toBe(1);
  expect(lastStep).toBeDefined();

  // A batch with a good file and a bad one loads the good one as one undo step, and one notice names the bad one
  // with the reason; no error stops the batch.
  const brokenOff = cases[0];
  errors.length = 0;
  await dropFiles(page, [
    { name: 'arm-weights.dmat', bytes: new Uint8Array(readFileSync(dataFile('libigl', 'arm-weights.dmat'))) },
    brokenOff,
  ]);
  await expect.poll(async () => (await sceneState(page)).history.undo.length).toBe(undone.history.undo.length + 1);
  const batch = await sceneState(page);
  expect(batch.history.undo.at(-1)).toBe('Open arm-weights.dmat');
  expect(batch.state.weightsSource).toBe('arm-weights.dmat');
  const shown = await shownMessages(page);
  expect(shown.error).toBeNull();
  expect(shown.notices).toHaveLength(1);
  expect(shown.notices[0]).toContain('1 file not loaded');
  expect(shown.notices[0]).toContain(`Not loaded: ${brokenOff.message}`);
  expect(errors).toEqual([]);
});
