/**
 * Per-frame GPU cost of context LBS over plain LBS in headless Chromium (WebGL2 on SwiftShader, the CPU standing in
 * for a GPU): the built renderer is served, the context-aware body (18 453 vertices, 28 bones) and its four
 * examples are opened through the file input, the examples are unposed, and each measured frame poses the
 * skeleton (and, for context LBS, evaluates the pose-space weights), uploads the textures, draws and waits with a
 * one-pixel readback (the test hook's measureFrameTime). The reference is plain LBS on the same page, measured in
 * alternating rounds so drift hits both alike; the aim is a ratio ≤ 1.3. BENCH_PAGE_WIDTH / BENCH_PAGE_HEIGHT set
 * the page size (default 1280×800); a 1-pixel-wide page leaves only the vertex work, where the examples'
 * displacement fetches are.
 */
import path from 'node:path';
import { cacheDir, dataDir, fmtMs, printTable, withAppPage } from './bench-util.ts';

const PORT = 4179;
const FRAMES = 40;
const ROUNDS = 5;
const body = (name: string) => path.join(dataDir, 'context-aware', name);

const viewport = { width: Number(process.env.BENCH_PAGE_WIDTH ?? 1280), height: Number(process.env.BENCH_PAGE_HEIGHT ?? 800) };
await withAppPage(
  path.join(cacheDir, 'posespace-gpu-dist'),
  PORT,
  async (page) => {
    await page.setInputFiles('#file-input', [body('reference.obj'), body('skeleton.tgf'), body('all_frames.dmat')]);
    await page.waitForFunction(
      () => {
        const s = (window as any).__rigwright.state();
        return s.error !== null || (s.vertexCount === 18453 && s.poseKind === 'matrices');
      },
      undefined,
      { timeout: 120_000 },
    );
    await page.setInputFiles(
      '#file-input',
      [0, 1, 2, 3].flatMap((i) => [body(`eg${i}.obj`), body(`eg${i}.dmat`)]),
    );
    await page.waitForFunction(
      () => {
        const h = (window as any).__rigwright;
        return h.state().error !== null || h.examples.state().examples.length === 4;
      },
      undefined,
      { timeout: 120_000 },
    );
    const error: string | null = await page.evaluate(() => (window as any).__rigwright.state().error);
    if (error) throw new Error(error);
    await page.evaluate(async () => {
      const h = (window as any).__rigwright;
      h.pause();
      h.command('skin.method', 'context-lbs');
      await h.examples.unposed();
    });

    const measure = (method: string) =>
      page.evaluate(
        ([m, n]) => {
          const h = (window as any).__rigwright;
          h.command('skin.method', m);
          return h.measureFrameTime(n) as number;
        },
        [method, FRAMES] as const,
      );
    await measure('lbs');
    await measure('context-lbs');
    const plain: number[] = [];
    const context: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      plain.push(await measure('lbs'));
      context.push(await measure('context-lbs'));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const plainMs = median(plain);
    const contextMs = median(context);
    printTable('Pose space on the GPU, headless Chromium (SwiftShader)', [
      {
        case: `body 18453 vertices, 28 bones, 4 influences, 4 examples, ${viewport.width}×${viewport.height} page`,
        ours: `${fmtMs(contextMs)} (context LBS)`,
        reference: `${fmtMs(plainMs)} (plain LBS)`,
        ratio: (contextMs / plainMs).toFixed(2),
        note: `median of ${ROUNDS} alternating rounds × ${FRAMES} frames; aim ≤ 1.3`,
      },
    ]);
  },
  viewport,
);
