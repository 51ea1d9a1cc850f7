/**
 * Autosave's cost on the page's thread: one autosave of the body (18,453 vertices, 28 bones) with its four example
 * shapes, and of the body subdivided twice (295,218 vertices). The project file is encoded in the io worker and
 * stored in IndexedDB; what the page's thread does is copy the scene (a slice per task), move the copy to the worker
 * and hand the bytes to IndexedDB (a chunk per task). Measured two ways in headless Chromium, with the viewport's draws
 * held (SwiftShader would fill the thread with drawing):
 *
 * - the page's own clock around each of autosave's own steps, the longest of them (the test hook's `pauseMs`: a slice
 *   of the copy, or the hand-over to the worker);
 * - a heartbeat on the page's thread (a MessageChannel posting to itself) during the whole autosave: the longest gap
 *   between beats is the longest the thread was blocked — what a frame would have waited — set against the longest gap
 *   in as long a stretch just before, without autosave. Each autosave is of an edit whose own work on the page (the
 *   scene skinned anew, the panels) has ended, so neither stretch holds it; on a machine of few cores, the io worker's
 *   encoding also competes with the page's thread for a core, which the stretch without autosave does not show.
 *
 *   node --import tsx test/bench/autosave.bench.ts
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { cacheDir, dataDir, fmtMs, printTable, refDir, requireFile, withAppPage, type BenchRow } from './bench-util.ts';

const PORT = 4187;
const RUNS = 7;
/** How long after an edit its own work on the page (skinning the scene anew, the panels) is taken to be over. */
const SETTLE_MS = 2000;
const body = (name: string) => requireFile(path.join(dataDir, 'context-aware', name));

function subdividedBody(levels: number): string {
  mkdirSync(cacheDir, { recursive: true });
  const prefix = path.join(cacheDir, `body-subdivided-${levels}`);
  if (!existsSync(`${prefix}.obj`)) {
    execFileSync(
      'python3',
      [requireFile(path.join(refDir, 'subdivide.py')), body('reference.obj'), body('handles.dmat'), String(levels), prefix],
      {
        stdio: 'inherit',
      },
    );
  }
  return `${prefix}.obj`;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * Opens `files` as the scene (and `examples` as example shapes) and waits until the scene has `vertices`; the changes
 * of the scene before are discarded when the app asks.
 */
async function open(page: Page, files: string[], vertices: number, examples: string[] = []): Promise<void> {
  const unsaved: boolean = await page.evaluate(() => (window as any).__rigwright.work.state().unsaved);
  await page.setInputFiles('#file-input', files);
  if (unsaved) await page.locator('#save-changes-dialog .save-changes-discard').click();
  await page.waitForFunction(
    (n) => {
      const s = (window as any).__rigwright.state();
      return s.error !== null || s.vertexCount === n;
    },
    vertices,
    { timeout: 600_000 },
  );
  if (examples.length > 0) {
    await page.setInputFiles('#file-input', examples);
    await page.waitForFunction((n) => (window as any).__rigwright.examples.state().examples.length === n, examples.length / 2, {
      timeout: 600_000,
    });
  }
  const error = await page.evaluate(() => (window as any).__rigwright.state().error);
  if (error) throw new Error(`autosave bench: ${error}`);
}

/**
 * A heartbeat on the page's thread: `window.heartbeat(during)` runs `during` while a MessageChannel posts to itself and
 * resolves with the longest gap between beats and the time `during` took, in ms. Plain JavaScript: the TypeScript
 * loader would name the page's inner functions with a helper the page does not have.
 */
const HEARTBEAT = `window.heartbeat = async (during) => {
  const channel = new MessageChannel();
  let last = performance.now();
  let longest = 0;
  let beating = true;
  channel.port1.onmessage = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (beating) channel.port2.postMessage(0);
  };
  channel.port2.postMessage(0);
  const start = performance.now();
  await during();
  const elapsed = performance.now() - start;
  beating = false;
  channel.port1.close();
  return { longest: Math.max(longest, performance.now() - last), elapsed };
};`;

/**
 * `runs` autosaves, each of an edit (a bone scale) whose own work on the page has ended (SETTLE_MS after it), with a
 * heartbeat on the page's thread; and just before each, a stretch as long as the autosave before it (the first: 1 s)
 * without one. Times in ms.
 */
async function measure(page: Page, runs: number) {
  await page.evaluate(HEARTBEAT);
  return page.evaluate(
    async ({ count, settle }) => {
      const w = window as any;
      const hook = w.__rigwright;
      hook.holdDraws(true);
      const autosaves: { pause: number; longest: number; elapsed: number; slices: number; restarts: number }[] = [];
      const quiet: number[] = [];
      let stretch = 1000;
      for (let r = 0; r < count; r++) {
        hook.setBoneScale(r % 4, [1 + (r + 1) / 100, 1, 1]);
        await new Promise((resolve) => setTimeout(resolve, settle));
        quiet.push((await w.heartbeat(() => new Promise((resolve) => setTimeout(resolve, stretch)))).longest);
        const { longest, elapsed } = await w.heartbeat(() => hook.work.flush());
        stretch = elapsed;
        const state = hook.work.state();
        if (state.latest?.editCount === undefined) throw new Error('autosave bench: nothing was written');
        autosaves.push({ pause: state.pauseMs, longest, elapsed, slices: state.snapshot.slices, restarts: state.snapshot.restarts });
      }
      hook.holdDraws(false);
      return { autosaves, quiet, written: hook.work.state().written };
    },
    { count: runs, settle: SETTLE_MS },
  );
}

const cases = [
  {
    name: 'body, 18,453 v, 28 bones, 4 example shapes',
    files: [body('reference.obj'), body('skeleton.tgf')],
    vertices: 18_453,
    examples: [0, 1, 2, 3].flatMap((i) => [body(`eg${i}.obj`), body(`eg${i}.dmat`)]),
  },
  { name: 'body subdivided twice, 295,218 v, 28 bones', files: [subdividedBody(2), body('skeleton.tgf')], vertices: 295_218, examples: [] },
];

const rows: BenchRow[] = [];
await withAppPage(path.join(cacheDir, 'autosave-dist'), PORT, async (page) => {
  await page.evaluate(() => (window as any).__rigwright.pause());
  for (const c of cases) {
    await open(page, c.files, c.vertices, c.examples);
    const result = await measure(page, RUNS);
    const pause = median(result.autosaves.map((a) => a.pause));
    const longest = median(result.autosaves.map((a) => a.longest));
    const worst = Math.max(...result.autosaves.map((a) => a.longest));
    const elapsed = median(result.autosaves.map((a) => a.elapsed));
    const slices = median(result.autosaves.map((a) => a.slices));
    const restarts = result.autosaves.reduce((sum, a) => sum + a.restarts, 0);
    rows.push({
      case: c.name,
      ours: `${fmtMs(pause)} longest own step; longest block ${fmtMs(longest)} (worst ${fmtMs(worst)})`,
      reference: `longest block without autosave ${fmtMs(median(result.quiet))} (worst ${fmtMs(Math.max(...result.quiet))})`,
      ratio: '—',
      note: `whole autosave ${fmtMs(elapsed)} (worker + IndexedDB), scene copied in ${slices} tasks (${restarts} restarts in all), median of ${RUNS}`,
    });
  }
});
printTable("Autosave on the page's thread (one version, after an edit)", rows);
