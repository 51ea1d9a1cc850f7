/**
 * The page is cross-origin isolated, as the web build's server and the desktop app's scheme make it with the opener
 * and embedder policy headers: SharedArrayBuffer exists, and memory made on the page is shared with the app's
 * workers. A buffer posted to the file-reading worker is written there with Atomics, and the page, waiting on it,
 * wakes to see the write.
 */
import { expect, test } from '@playwright/test';
import { dataFile, loadFiles, openApp } from './app-driver.ts';

test('the page is cross-origin isolated and shares memory with the file-reading worker', async ({ page }) => {
  const errors: string[] = [];
  const documentHeaders: Record<string, string>[] = [];
  page.on('response', (response) => {
    if (response.request().resourceType() === 'document') documentHeaders.push(response.headers());
  });
  // Every worker the page makes is kept with its script's URL, so the test can post to the app's own.
  await page.addInitScript(() => {
    const made: { url: string; worker: Worker }[] = [];
    (window as any).__madeWorkers = made;
    const PageWorker = window.Worker;
    window.Worker = class extends PageWorker {
      constructor(url: string | URL, options?: WorkerOptions) {
        super(url, options);
        made.push({ url: String(url), worker: this });
      }
    };
  });
  await openApp(page, errors, { paused: true });

  expect(documentHeaders).toHaveLength(1);
  expect(documentHeaders[0]).toMatchObject({
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-embedder-policy': 'require-corp',
  });
  expect(await page.evaluate(() => ({ isolated: crossOriginIsolated, sharedMemory: typeof SharedArrayBuffer }))).toEqual({
    isolated: true,
    sharedMemory: 'function',
  });

  // Reading a mesh starts the file-reading worker, a module worker of the build; isolated too, as its script came
  // with the embedder policy.
  await loadFiles(page, [dataFile('libigl', 'arm.obj'), dataFile('libigl', 'arm.tgf')], 'arm.obj');
  const ioWorkers = page.workers().filter((worker) => /io\.worker/.test(worker.url()));
  expect(ioWorkers).toHaveLength(1);
  const [io] = ioWorkers;
  expect(await io.evaluate(() => crossOriginIsolated)).toBe(true);
  // Beside the worker's own handler (which answers a message that is no call with nothing the page waits for), a
  // listener that writes a value, then a flag, into shared memory it is sent, and wakes whoever waits on the flag.
  await io.evaluate(() => {
    self.addEventListener('message', (event: MessageEvent) => {
      const shared: unknown = event.data?.sharedProbe;
      if (!(shared instanceof SharedArrayBuffer)) return;
      const cells = new Int32Array(shared);
      Atomics.store(cells, 1, 4242);
      Atomics.store(cells, 0, 1);
      Atomics.notify(cells, 0);
    });
  });

  const seen = await page.evaluate(async () => {
    const made = (window as any).__madeWorkers as { url: string; worker: Worker }[];
    const io = made.filter((entry) => /io\.worker/.test(entry.url));
    if (io.length !== 1) throw new Error(`expected one file-reading worker on the page, found ${io.length}`);
    const shared = new SharedArrayBuffer(8);
    const cells = new Int32Array(shared);
    // Atomics.waitAsync (ES2024): the page's thread may not block, but it may wait for a notify.
    const waitAsync = (Atomics as any).waitAsync as (
      cells: Int32Array,
      index: number,
      value: number,
      timeout: number,
    ) => { async: boolean; value: Promise<string> | string };
    const wait = waitAsync(cells, 0, 0, 10_000);
    io[0].worker.postMessage({ sharedProbe: shared });
    const woken = wait.async ? await wait.value : wait.value;
    return { woken, flag: Atomics.load(cells, 0), value: Atomics.load(cells, 1) };
  });
  expect(seen).toEqual({ woken: 'ok', flag: 1, value: 4242 });

  // The worker still does its work after the probe: the weights are read through it.
  const weightsBefore = await page.evaluate(() => (window as any).__rigwright.state().weightsSource);
  await loadFiles(page, [dataFile('libigl', 'arm-weights.dmat')]);
  const after = await page.evaluate(() => (window as any).__rigwright.state());
  expect(after.error).toBeNull();
  expect(after.weightsSource).not.toBe(weightsBefore);
  expect(page.workers().filter((worker) => /io\.worker/.test(worker.url()))).toEqual([io]);
  expect(errors).toEqual([]);
});
