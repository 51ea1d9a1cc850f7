/**
 * Batch import: libigl's elephant of tutorial 408 — elephant.obj, elephant.tgf, elephant-weights.dmat and its
 * animation of absolute bone transforms, elephant-anim.dmat — chosen together in the Import dialog loads as one scene
 * that plays the animation; the pose at a frame is checked against libigl's U = M·T evaluated here from the files.
 * Dropped with the animation cut short, the other three load and one notice names the broken file with the reason;
 * with the animation cut to 3 frames (the shape of 4 frames of poses too) it is the clip, and a second skeleton is
 * listed as not loaded; with the mesh broken, nothing is bound to the scene's mesh and every file is named.
 */
import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { chooseFiles, dataFile, gpuCpuDeviation, openApp } from './app-driver.ts';
import { readDmat, writeDmatBinary } from '../../workers/formats/dmat.ts';
import { readObj } from '../../workers/formats/obj.ts';

const FILES = ['elephant.obj', 'elephant.tgf', 'elephant-weights.dmat', 'elephant-anim.dmat'];

/**
 * Drops files on the window as a user's drag and drop does: a DataTransfer with File objects (their bytes travel to
 * the page as base64, which megabytes of DMAT need to arrive in seconds).
 */
async function dropFiles(page: Page, files: { name: string; bytes: Uint8Array }[]): Promise<void> {
  await page.evaluate(
    (list) => {
      const transfer = new DataTransfer();
      for (const { name, base64 } of list) transfer.items.add(new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], name));
      window.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    },
    files.map((f) => ({ name: f.name, base64: Buffer.from(f.bytes).toString('base64') })),
  );
}

/** Waits until the scene shows elephant.obj and a frame has been drawn since, or an error is shown. */
async function waitForElephant(page: Page, framesBefore: number): Promise<void> {
  await page.waitForFunction(
    (frames) => {
      const s = (window as any).__rigwright.state();
      return s.error !== null || (s.meshFiles.includes('elephant.obj') && s.framesRendered > frames);
    },
    framesBefore,
    { timeout: 90_000 },
  );
}

const framesRendered = (page: Page): Promise<number> => page.evaluate(() => (window as any).__rigwright.state().framesRendered);

/**
 * libigl's U = M·T at frame f from the files: column f of the animation, reshaped column-major to 4B × 3, holds
 * bone e's [R | t] with entry r + 4B·c at row r, column c of its 4 × 3 block (Rᵀ over tᵀ); U[v] = Σ_e W[v][e] (R v + t).
 */
function libiglPose(frame: number): { posed: Float64Array; rest: Float64Array } {
  const { mesh } = readObj(readFileSync(dataFile('libigl', 'elephant.obj'), 'utf8'), 'elephant.obj');
  const W = readDmat(new Uint8Array(readFileSync(dataFile('libigl', 'elephant-weights.dmat'))), 'elephant-weights.dmat');
  const T = readDmat(new Uint8Array(readFileSync(dataFile('libigl', 'elephant-anim.dmat'))), 'elephant-anim.dmat');
  const B = W.cols;
  const V = W.rows;
  const P = mesh.positions;
  const posed = new Float64Array(3 * V);
  for (let v = 0; v < V; v++)
    for (let e = 0; e < B; e++)
      for (let c = 0; c < 3; c++) {
        let s = 0;
        for (let r = 0; r < 4; r++) s += T.data[(4 * e + r + 4 * B * c) * T.cols + frame] * (r < 3 ? P[3 * v + r] : 1);
        posed[3 * v + c] += W.data[v * B + e] * s;
      }
  return { posed, rest: P };
}

test('batch import: the elephant, its skeleton, weights and absolute-transform animation load together and play', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors);
  const before = await framesRendered(page);
  await chooseFiles(
    page,
    () => page.keyboard.press('Control+i'),
    FILES.map((f) => dataFile('libigl', f)),
  );
  await waitForElephant(page, before);
  const loaded = await page.evaluate(() => (window as any).__rigwright.state());
  expect(loaded.error).toBeNull();
  expect(loaded.vertexCount).toBe(6034);
  expect(loaded.boneCount).toBe(24);
  expect(loaded.weightsSource).toBe('elephant-weights.dmat');
  expect(loaded.duration, 'one frame per column of the animation: 457 frames').toBe(456);
  await expect(page.locator('.notice:not([hidden])', { hasText: 'not loaded' })).toHaveCount(0);

  // The animation plays: Space starts playback when it is paused, and the time moves on.
  if (!loaded.playing) {
    await page.locator('canvas').first().hover();
    await page.keyboard.press('Space');
  }
  await expect.poll(() => page.evaluate(() => (window as any).__rigwright.state().playing)).toBe(true);
  const t0: number = await page.evaluate(() => (window as any).__rigwright.state().time);
  await page.waitForFunction((t) => (window as any).__rigwright.state().time !== t, t0, { timeout: 30_000 });

  // Frame 200 as the app skins it (all influences) and as libigl's LBS does from the files.
  const frame = 200;
  const cpu: number[] = await page.evaluate((f) => {
    const h = (window as any).__rigwright;
    h.pause();
    h.setInfluences(0);
    h.setTime(f);
    return h.cpuPositions();
  }, frame);
  const { maxError, diagonal } = await gpuCpuDeviation(page);
  expect(maxError, 'the GPU draws what the CPU reference computes').toBeLessThanOrEqual(1e-4 * diagonal);
  const { posed, rest } = libiglPose(frame);
  let error = 0;
  let motion = 0;
  for (let i = 0; i < posed.length; i += 3) {
    error = Math.max(error, Math.hypot(cpu[i] - posed[i], cpu[i + 1] - posed[i + 1], cpu[i + 2] - posed[i + 2]));
    motion = Math.max(motion, Math.hypot(posed[i] - rest[i], posed[i + 1] - rest[i + 1], posed[i + 2] - rest[i + 2]));
  }
  expect(motion, 'frame 200 moves the elephant').toBeGreaterThan(0.05 * diagonal);
  // The viewport skins with float32 weights renormalised per vertex; libigl's with the file's float64 ones.
  expect(error, `the app's pose at frame ${frame} is libigl's`).toBeLessThanOrEqual(1e-5 * diagonal);
  expect(errors).toEqual([]);
});

test('batch import: with a broken animation the other three load, and one notice names the broken file with the reason', async ({
  page,
}) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  const files = FILES.map((name) => ({ name, bytes: new Uint8Array(readFileSync(dataFile('libigl', name))) }));
  // Cut the animation short: its header announces more values than the file holds.
  files[3] = { name: files[3].name, bytes: files[3].bytes.subarray(0, files[3].bytes.length - 1000) };
  const before = await framesRendered(page);
  await dropFiles(page, files);
  await waitForElephant(page, before);
  const loaded = await page.evaluate(() => ({ state: (window as any).__rigwright.state() }));
  expect(loaded.state.error).toBeNull();
  expect(loaded.state.vertexCount).toBe(6034);
  expect(loaded.state.boneCount).toBe(24);
  expect(loaded.state.weightsSource).toBe('elephant-weights.dmat');
  expect(loaded.state.duration, 'no clip: the new skeleton stands at rest').toBe(0);
  const notice = page.locator('.notice:not([hidden])');
  await expect(notice).toHaveCount(1);
  await expect(notice.locator('.notice-title')).toHaveText('Opened elephant.obj with 1 file not loaded');
  await expect(notice.locator('li')).toHaveText([
    'Not loaded: elephant-anim.dmat: binary data: the file ends after 131491 of the 131616 values announced by its header (457 columns × 288 rows); it looks truncated',
  ]);
  expect(errors).toEqual([]);
});

test('batch import: an animation of 3 frames loads as the clip, and a second skeleton is listed as not loaded', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  const files: { name: string; bytes: Uint8Array }[] = FILES.map((name) => ({
    name,
    bytes: new Uint8Array(readFileSync(dataFile('libigl', name))),
  }));
  // The animation's first 3 columns: 288 × 3, the shape of 4 frames of 24 rotation matrices as well.
  const full = readDmat(files[3].bytes, files[3].name);
  const data = new Float64Array(full.rows * 3);
  for (let r = 0; r < full.rows; r++) for (let f = 0; f < 3; f++) data[r * 3 + f] = full.data[r * full.cols + f];
  files[3] = { name: files[3].name, bytes: writeDmatBinary({ rows: full.rows, cols: 3, data }) };
  files.push({ name: 'elephant-2.tgf', bytes: files[1].bytes });
  const before = await framesRendered(page);
  await dropFiles(page, files);
  await waitForElephant(page, before);
  const state = await page.evaluate(() => (window as any).__rigwright.state());
  expect(state.error).toBeNull();
  expect(state.boneCount).toBe(24);
  expect(state.weightsSource).toBe('elephant-weights.dmat');
  expect(state.duration, 'one frame per column: 3 frames').toBe(2);
  const notice = page.locator('.notice:not([hidden])');
  await expect(notice).toHaveCount(1);
  await expect(notice.locator('.notice-title')).toHaveText('Opened elephant.obj with 1 file not loaded');
  await expect(notice.locator('li')).toHaveText([
    "Not loaded: elephant-2.tgf: a second skeleton: this batch's skeleton is elephant.tgf; open elephant-2.tgf on its own to use it instead",
  ]);
  expect(errors).toEqual([]);
});

test('batch import: when the mesh of the batch cannot be read, its skeleton and animation are not bound to the scene’s mesh', async ({
  page,
}) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  const files = FILES.map((name) => ({ name, bytes: new Uint8Array(readFileSync(dataFile('libigl', name))) }));
  files[0] = { name: 'elephant.obj', bytes: new TextEncoder().encode('v 0 0 0\nf 1 2 9\n') };
  const scene = await page.evaluate(() => (window as any).__rigwright.state());
  await dropFiles(page, files);
  await page.waitForFunction(() => (window as any).__rigwright.state().error !== null, undefined, { timeout: 90_000 });
  const state = await page.evaluate(() => (window as any).__rigwright.state());
  const lines: string[] = state.error.split('\n');
  expect(lines[0]).toMatch(/^elephant\.obj: /);
  expect(lines.slice(1)).toEqual(
    ['elephant.tgf', 'elephant-weights.dmat', 'elephant-anim.dmat'].map(
      (f) => `${f}: not loaded, since its mesh elephant.obj could not be read`,
    ),
  );
  expect(state.vertexCount, 'the scene is as it was').toBe(scene.vertexCount);
  expect(state.boneCount).toBe(scene.boneCount);
  expect(state.meshFiles).toEqual(scene.meshFiles);
  expect(state.duration).toBe(scene.duration);
  expect(errors, 'the message is logged once, nothing else went wrong').toEqual([state.error]);
});
