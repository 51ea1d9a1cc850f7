/**
 * The deformation methods in Chromium on SwiftShader: for linear blend, dual quaternion (both antipodality
 * modes, and with a scaled, non-rigid joint), weight-blended and per-face skinning (also with a scaled joint),
 * the positions read back from the GPU equal the method's CPU reference in workers/skinning within 1e-4 of the
 * bounding-box diagonal, on the hand and on the context-aware body at several frames; on the twist test tube, LBS collapses the middle near
 * 180° and DQS does not. Screenshots of the split view and the heat map go to test/e2e/artifacts.
 */
import { test, expect, type Page } from '@playwright/test';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { TWIST_RADIUS, TWIST_LENGTH } from '../../workers/demo/twist-demo.ts';
import { writeDmatAscii } from '../../workers/formats/dmat.ts';
import { readObj } from '../../workers/formats/obj.ts';
import { midpointSubdivision, subdividedCourseBody } from '../unit/midpoint-subdivision.ts';
import { artifactsDir, dataFile, gpuCpuDeviation, loadExamples, openApp } from './app-driver.ts';

async function load(page: Page, files: string[], vertexCount: number): Promise<void> {
  await page.setInputFiles('#file-input', files);
  await page.waitForFunction(
    (n) => {
      const s = (window as any).__rigwright.state();
      return s.error !== null || s.vertexCount === n;
    },
    vertexCount,
    { timeout: 60_000 },
  );
  const error = await page.evaluate(() => (window as any).__rigwright.state().error);
  expect(error).toBeNull();
  await page.evaluate(() => (window as any).__rigwright.pause());
}

/** Largest GPU–CPU distance, relative to the bounding-box diagonal, at the current pose and method. */
async function relativeDeviation(page: Page): Promise<number> {
  const { maxError, diagonal } = await gpuCpuDeviation(page);
  return maxError / diagonal;
}

interface Case {
  label: string;
  setup: (page: Page) => Promise<void>;
}

const CASES: Case[] = [
  { label: 'LBS', setup: (p) => p.evaluate(() => (window as any).__rigwright.setMethod('lbs')) },
  {
    label: 'DQS per-vertex signs',
    setup: (p) =>
      p.evaluate(() => {
        const h = (window as any).__rigwright;
        h.setMethod('dqs');
        h.setAntipodality('per-vertex');
      }),
  },
  {
    label: 'DQS per-bone signs',
    setup: (p) =>
      p.evaluate(() => {
        const h = (window as any).__rigwright;
        h.setMethod('dqs');
        h.setAntipodality('per-bone');
      }),
  },
  {
    label: 'DQS with a scaled joint',
    setup: (p) =>
      p.evaluate(() => {
        const h = (window as any).__rigwright;
        h.setMethod('dqs');
        h.setAntipodality('per-vertex');
        h.setBoneScale(3, [1.4, 0.8, 1.2]);
      }),
  },
  { label: 'LBS with a scaled joint', setup: (p) => p.evaluate(() => (window as any).__rigwright.setMethod('lbs')) },
  {
    label: 'weight blended',
    setup: (p) =>
      p.evaluate(() => {
        const h = (window as any).__rigwright;
        h.setBoneScale(3, [1, 1, 1]);
        h.setMethod('blend');
        h.setBlendWeights(0.5);
      }),
  },
  { label: 'per-face', setup: (p) => p.evaluate(() => (window as any).__rigwright.setMethod('perface')) },
  { label: 'per-face with a scaled joint', setup: (p) => p.evaluate(() => (window as any).__rigwright.setBoneScale(3, [1.4, 0.8, 1.2])) },
];

async function checkAllMethods(page: Page, frames: number[]): Promise<void> {
  for (const c of CASES) {
    await c.setup(page);
    for (const frame of frames) {
      await page.evaluate((f) => (window as any).__rigwright.setTime(f), frame);
      const deviation = await relativeDeviation(page);
      expect(deviation, `${c.label} at frame ${frame}`).toBeLessThanOrEqual(1e-4);
    }
  }
}

test('hand: GPU readback equals the CPU reference for every method', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  await load(
    page,
    [
      dataFile('hand', 'hand.off'),
      dataFile('hand', 'hand.tgf'),
      dataFile('hand', 'hand-pose_matrot.dmat'),
      dataFile('hand', 'hand-handles.dmat'),
    ],
    4780,
  );
  await checkAllMethods(page, [12, 33]);
  expect(errors).toEqual([]);
});

test('body: GPU readback equals the CPU reference for every method', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  const dir = ['context-aware'];
  await load(
    page,
    [
      dataFile(...dir, 'reference.obj'),
      dataFile(...dir, 'skeleton.tgf'),
      dataFile(...dir, 'all_frames.dmat'),
      dataFile(...dir, 'handles.dmat'),
    ],
    18453,
  );
  await checkAllMethods(page, [60, 250]);
  expect(errors).toEqual([]);
});

/** Mean distance from the x axis of the vertices in the ring at the joint (x = half the tube's length). */
async function middleRadius(page: Page): Promise<number> {
  return page.evaluate(async (half) => {
    const hook = (window as any).__rigwright;
    const gpu: number[] = await hook.gpuPositions();
    let sum = 0;
    let count = 0;
    // A twist about x keeps every vertex's x, so the joint's ring is found in the posed mesh too.
    for (let i = 0; i < gpu.length; i += 3) {
      if (Math.abs(gpu[i] - half) > 1e-3) continue;
      sum += Math.hypot(gpu[i + 1], gpu[i + 2]);
      count++;
    }
    return count > 0 ? sum / count : NaN;
  }, TWIST_LENGTH / 2);
}

test('twist test: LBS collapses the middle near 180°, DQS keeps it, weight blended spans both; split view and heat map render', async ({
  page,
}) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  await page.evaluate(() => {
    const h = (window as any).__rigwright;
    h.loadTwistDemo();
    h.pause();
  });
  expect((await page.evaluate(() => (window as any).__rigwright.state())).sceneName).toBe('Twist test');

  await page.evaluate(() => (window as any).__rigwright.setTime(0));
  await page.evaluate(() => (window as any).__rigwright.setMethod('lbs'));
  const rest = await middleRadius(page);
  expect(rest).toBeGreaterThan(TWIST_RADIUS);
  expect(rest).toBeLessThan(1.1 * TWIST_RADIUS);

  await page.evaluate(() => (window as any).__rigwright.setTime(59)); // 177°
  const lbs = await middleRadius(page);
  expect(await relativeDeviation(page)).toBeLessThanOrEqual(1e-4);
  await page.evaluate(() => (window as any).__rigwright.setMethod('dqs'));
  const dqs = await middleRadius(page);
  expect(await relativeDeviation(page)).toBeLessThanOrEqual(1e-4);
  expect(lbs).toBeLessThan(0.1 * rest);
  expect(dqs).toBeGreaterThan(0.99 * rest);

  // Weight blended from the toolbar: its DQS slider appears with the method, starts at 0 (LBS) and at 1 is DQS.
  await expect(page.locator('#blend-amount')).toBeHidden();
  await page.selectOption('#skinning-method', 'blend');
  await expect(page.locator('#blend-amount')).toBeVisible();
  await expect(page.locator('#blend-amount')).toHaveValue('0');
  expect(Math.abs((await middleRadius(page)) - lbs)).toBeLessThan(1e-3 * rest);
  await page.locator('#blend-amount').focus();
  await page.keyboard.press('End');
  await expect(page.locator('.blend-field .slider-value')).toHaveValue('1');
  expect(Math.abs((await middleRadius(page)) - dqs)).toBeLessThan(1e-3 * rest);
  expect(await relativeDeviation(page)).toBeLessThanOrEqual(1e-4);
  await page.keyboard.press('Home');
  await page.selectOption('#skinning-method', 'dqs');
  await expect(page.locator('#blend-amount')).toBeHidden();

  await page.evaluate(() => {
    const h = (window as any).__rigwright;
    h.setSplit('lbs');
    h.setHeatMap(true);
  });
  mkdirSync(artifactsDir, { recursive: true });
  const shot = await page.screenshot({ path: path.join(artifactsDir, 'twist-split-heatmap.png') });
  expect(shot.length).toBeGreaterThan(10_000);
  expect(errors).toEqual([]);
});

test('body subdivided once (73,806 vertices): per-face frames, and per-face context frames with its four examples, run on two threads in the page’s worker and equal the CPU reference, scaled joint too', async ({
  page,
}) => {
  test.setTimeout(300_000);
  // The course body subdivided once, with its handles carried along, written as the files an artist would open.
  const dir = ['context-aware'];
  const fine = subdividedCourseBody(1);
  const folder = path.join(artifactsDir, 'two-core');
  mkdirSync(folder, { recursive: true });
  const objFile = path.join(folder, 'body-subdivided.obj');
  const handlesFile = path.join(folder, 'body-subdivided-handles.dmat');
  const lines: string[] = [];
  for (let v = 0; v < fine.positions.length; v += 3) lines.push(`v ${fine.positions[v]} ${fine.positions[v + 1]} ${fine.positions[v + 2]}`);
  for (let f = 0; f < fine.triangles.length; f += 3)
    lines.push(`f ${fine.triangles[f] + 1} ${fine.triangles[f + 1] + 1} ${fine.triangles[f + 2] + 1}`);
  writeFileSync(objFile, `${lines.join('\n')}\n`);
  writeFileSync(handlesFile, writeDmatAscii({ rows: fine.handles.length, cols: 1, data: Float64Array.from(fine.handles) }));
  const vertexCount = fine.positions.length / 3;
  expect(vertexCount).toBe(73806);

  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  expect(await page.evaluate(() => crossOriginIsolated), 'the page may share memory with its workers').toBe(true);
  await load(page, [objFile, dataFile(...dir, 'skeleton.tgf'), dataFile(...dir, 'all_frames.dmat'), handlesFile], vertexCount);
  await page.evaluate(() => (window as any).__rigwright.setMethod('perface'));
  for (const [label, scale] of [
    ['per-face', [1, 1, 1]],
    ['per-face with a scaled joint', [1.4, 0.8, 1.2]],
  ] as const) {
    await page.evaluate((s) => (window as any).__rigwright.setBoneScale(3, s), scale as unknown as number[]);
    for (const frame of [60, 250]) {
      await page.evaluate((f) => (window as any).__rigwright.setTime(f), frame);
      await page.evaluate(() => (window as any).__rigwright.settled());
      expect(await page.evaluate(() => (window as any).__rigwright.perFaceThreads()), `${label}: two threads`).toBe(2);
      expect(await page.evaluate(() => (window as any).__rigwright.perFaceKernels()), `${label}: WebAssembly kernels`).toBe(true);
      expect(await relativeDeviation(page), `${label} at frame ${frame}`).toBeLessThanOrEqual(1e-4);
    }
  }

  // Per-face context on two threads: the four examples subdivided the same way, copied into the frame's shared
  // memory (which grows for them), each thread blending its own faces' products.
  await page.evaluate(() => (window as any).__rigwright.setBoneScale(3, [1, 1, 1]));
  const exampleFiles = [0, 1, 2, 3].flatMap((i) => {
    const file = dataFile(...dir, `eg${i}.obj`);
    const { mesh } = readObj(readFileSync(file, 'utf8'), file);
    const example = midpointSubdivision(mesh.positions, mesh.triangles, new Int32Array(mesh.positions.length / 3), 1);
    const out = path.join(folder, `eg${i}.obj`);
    const rows: string[] = [];
    for (let v = 0; v < example.positions.length; v += 3) {
      rows.push(`v ${example.positions[v]} ${example.positions[v + 1]} ${example.positions[v + 2]}`);
    }
    for (let f = 0; f < example.triangles.length; f += 3) {
      rows.push(`f ${example.triangles[f] + 1} ${example.triangles[f + 1] + 1} ${example.triangles[f + 2] + 1}`);
    }
    writeFileSync(out, `${rows.join('\n')}\n`);
    return [out, dataFile(...dir, `eg${i}.dmat`)];
  });
  await loadExamples(page, exampleFiles, 4);
  for (const method of ['context-perface-eq10', 'context-perface-eq9']) {
    await page.evaluate((m) => (window as any).__rigwright.setMethod(m), method);
    for (const frame of [87, 200]) {
      await page.evaluate((f) => (window as any).__rigwright.setTime(f), frame);
      await page.evaluate(() => (window as any).__rigwright.settled());
      expect(await page.evaluate(() => (window as any).__rigwright.perFaceThreads()), `${method}: two threads`).toBe(2);
      const shared = await page.evaluate(() => (window as any).__rigwright.perFaceExamplesShared());
      expect(shared, `${method}: each thread blends its own faces`).toBe(true);
      expect(await relativeDeviation(page), `${method} at frame ${frame}`).toBeLessThanOrEqual(1e-4);
    }
  }
  expect(errors).toEqual([]);
});
