/**
 * A worker that dies under a task: the file-reading worker stops answering while it reads a file, then an uncaught
 * error kills it (what a browser reports for an allocation it refuses). The read rejects instead of hanging, one
 * error and one notice name the work that failed, the scene and its undo history stay as they were, and the next
 * read runs on a fresh worker.
 */
import { expect, test, type Page, type Worker } from '@playwright/test';
import { dataFile, loadFiles, openApp } from './app-driver.ts';

async function sceneState(page: Page) {
  return page.evaluate(() => {
    const hook = (window as any).__rigwright;
    const { meshFiles, vertexCount, boneCount, weightsSource } = hook.state();
    return {
      state: { meshFiles, vertexCount, boneCount, weightsSource },
      history: hook.history(),
      snapshot: hook.snapshot(),
      positions: hook.cpuPositions() as number[],
    };
  });
}

function ioWorkers(page: Page): Worker[] {
  return page.workers().filter((w) => /io\.worker/.test(w.url()));
}

test('the file-reading worker dies during a read: the read fails naming the file, the scene stays, the next read works', async ({
  page,
}) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  await loadFiles(page, [dataFile('libigl', 'arm.obj'), dataFile('libigl', 'arm.tgf')], 'arm.obj');
  expect(ioWorkers(page)).toHaveLength(1);
  const before = await sceneState(page);

  // The worker swallows its answers (the read never returns), then dies of an uncaught error.
  const [dying] = ioWorkers(page);
  await dying.evaluate(() => {
    (self as any).postMessage = () => undefined;
  });
  await page.setInputFiles('#file-input', [dataFile('libigl', 'arm-weights.dmat')]);
  await page.waitForTimeout(500);
  expect(await page.evaluate(() => (window as any).__rigwright.state().error)).toBeNull();
  await dying.evaluate(() => {
    setTimeout(() => {
      throw new RangeError('simulated out of memory');
    });
  });

  await page.waitForFunction(() => (window as any).__rigwright.state().error !== null, undefined, { timeout: 30_000 });
  const message =
    'Reading arm-weights.dmat failed: the file-reading worker stopped (RangeError: simulated out of memory); it is restarted for the next task';
  expect(await page.evaluate(() => (window as any).__rigwright.state().error)).toBe(message);
  const notice = page.locator('.notice:not([hidden])');
  await expect(notice).toHaveCount(1);
  await expect(notice.locator('.notice-title')).toHaveText('Reading arm-weights.dmat failed: the file-reading worker stopped');
  await expect(notice).toContainText('The scene and its undo history are unchanged');
  expect(await sceneState(page)).toEqual(before);

  // A fresh worker reads the same file: the weights come in as one more undo step.
  await page.click('#error-banner .error-dismiss');
  await loadFiles(page, [dataFile('libigl', 'arm-weights.dmat')]);
  const after = await sceneState(page);
  expect(await page.evaluate(() => (window as any).__rigwright.state().error)).toBeNull();
  expect(after.history.undo.length).toBe(before.history.undo.length + 1);
  expect(after.state.weightsSource).not.toBe(before.state.weightsSource);
  expect(ioWorkers(page)).toHaveLength(1);
  expect(ioWorkers(page)[0]).not.toBe(dying);
});
