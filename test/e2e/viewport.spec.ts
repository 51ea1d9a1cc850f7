/**
 * The renderer as an artist meets it, in Chromium on SwiftShader: the demo animates, real rigs load through the
 * file input, the GPU-skinned positions read back from the GPU equal the CPU reference, and bad files leave
 * the scene untouched. Uses the page's test hook `window.__rigwright` (renderer/test-hook.ts).
 */
import { test, expect, type Page } from '@playwright/test';
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readRigFile } from '../../workers/formats/read-file.ts';
import { weightsFromDmat } from '../../workers/formats/weights-file.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { samplePose } from '../../workers/rig/pose-sequence.ts';
import { forwardKinematics } from '../../workers/rig/forward-kinematics.ts';
import { poseSequenceFromDmat } from '../../workers/formats/pose-file.ts';
import { influencesFromWeights } from '../../workers/skinning/influences.ts';
import { linearBlendSkinning } from '../../workers/skinning/linear-blend-skinning.ts';
import { writeDmatAscii } from '../../workers/formats/dmat.ts';
import { artifactsDir, dataFile, openApp, gpuCpuDeviation } from './app-driver.ts';

interface HookState {
  sceneName: string;
  meshFiles: string[];
  vertexCount: number;
  triangleCount: number;
  boneCount: number;
  jointCount: number;
  time: number;
  duration: number;
  poseKind: string;
  playing: boolean;
  influences: number;
  weightsSource: string;
  selectedBone: number;
  error: string | null;
  framesRendered: number;
}

const state = (page: Page): Promise<HookState> => page.evaluate(() => (window as any).__rigwright.state());

async function loadThroughUi(page: Page, files: string[]): Promise<void> {
  const before = (await state(page)).framesRendered;
  await page.setInputFiles('#file-input', files);
  await page.waitForFunction(
    ([names, frames]) => {
      const s = (window as any).__rigwright.state();
      return s.error !== null || (names.every((n) => s.meshFiles.includes(n) || s.sceneName.includes(n)) && s.framesRendered > frames);
    },
    [files.filter((f) => /\.(obj|off)$/.test(f)).map((f) => path.basename(f)), before] as const,
  );
}

test('the demo opens weighted and animating, and the GPU matches the CPU reference', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors);
  const first = await state(page);
  expect(first.playing).toBe(true);
  expect(first.vertexCount).toBeGreaterThan(1000);
  expect(first.boneCount).toBeGreaterThanOrEqual(4);
  const t0 = first.time;
  await page.waitForFunction((t) => (window as any).__rigwright.state().time !== t, t0);
  const gpuA = await gpuCpuDeviation(page);
  expect(gpuA.maxError).toBeLessThanOrEqual(1e-4 * gpuA.diagonal);

  await page.evaluate(() => (window as any).__rigwright.pause());
  const paused = await state(page);
  await page.evaluate((d) => (window as any).__rigwright.setTime(d / 3), paused.duration);
  const poseA = await gpuCpuDeviation(page);
  await page.evaluate((d) => (window as any).__rigwright.setTime((2 * d) / 3), paused.duration);
  const poseB = await gpuCpuDeviation(page);
  let moved = 0;
  for (let i = 0; i < poseA.gpu.length; i++) moved = Math.max(moved, Math.abs(poseA.gpu[i] - poseB.gpu[i]));
  expect(moved).toBeGreaterThan(0.01 * poseA.diagonal);
  expect(errors).toEqual([]);
});

test('the hand loads through the UI; at the last frame GPU skinning equals the CPU reference', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors);
  await loadThroughUi(page, [dataFile('hand', 'hand.off'), dataFile('hand', 'hand.tgf'), dataFile('hand', 'hand-pose_matrot.dmat')]);
  const loaded = await state(page);
  expect(loaded.error).toBeNull();
  expect(loaded.vertexCount).toBe(4780);
  expect(loaded.triangleCount).toBe(9556);
  expect(loaded.boneCount).toBe(20);
  expect(loaded.jointCount).toBe(21);
  expect(loaded.poseKind).toBe('matrices');
  expect(loaded.duration).toBe(33);

  await page.evaluate(() => {
    const h = (window as any).__rigwright;
    h.pause();
    h.setTime(33);
  });
  for (const influences of [4, 0]) {
    await page.evaluate((k) => (window as any).__rigwright.setInfluences(k), influences);
    const { maxError, diagonal, vertexCount } = await gpuCpuDeviation(page);
    expect(vertexCount).toBe(4780);
    expect(maxError, `influences ${influences}`).toBeLessThanOrEqual(1e-4 * diagonal);
  }
  mkdirSync(artifactsDir, { recursive: true });
  const shot = await page.screenshot({ path: path.join(artifactsDir, 'hand-last-frame.png') });
  await test.info().attach('hand-last-frame', { body: shot, contentType: 'image/png' });
  expect(errors).toEqual([]);
});

test('the libigl arm loads with its weights; GPU and CPU agree with an independent evaluation of the files', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors);
  const meshFile = dataFile('libigl', 'arm.obj');
  const skeletonFile = dataFile('libigl', 'arm.tgf');
  const weightsFile = dataFile('libigl', 'arm-weights.dmat');

  // A pose file written here: every bone bends 25° about a different axis over 10 frames.
  const skeleton = buildSkeleton((readRigFile('arm.tgf', readFileSync(skeletonFile)) as any).skeleton, 'arm.tgf');
  const boneCount = skeleton.parents.length;
  const frames = 10;
  const rows = 3 * boneCount * frames;
  const data = new Float64Array(rows * 3);
  for (let f = 0; f < frames; f++) {
    for (let b = 0; b < boneCount; b++) {
      const angle = ((25 * Math.PI) / 180) * (f / (frames - 1));
      const axis = [Math.cos(b), Math.sin(b), 0.5];
      const n = Math.hypot(axis[0], axis[1], axis[2]);
      const [x, y, z] = axis.map((a) => a / n);
      const c = Math.cos(angle),
        s = Math.sin(angle),
        C = 1 - c;
      const R = [
        c + x * x * C,
        x * y * C - z * s,
        x * z * C + y * s,
        y * x * C + z * s,
        c + y * y * C,
        y * z * C - x * s,
        z * x * C - y * s,
        z * y * C + x * s,
        c + z * z * C,
      ];
      data.set(R, (f * boneCount + b) * 3 * 3);
    }
  }
  const poseDir = mkdtempSync(path.join(tmpdir(), 'rigwright-e2e-'));
  const poseFile = path.join(poseDir, 'arm-bend.dmat');
  writeFileSync(poseFile, writeDmatAscii({ rows, cols: 3, data }));

  await loadThroughUi(page, [meshFile, skeletonFile, weightsFile, poseFile]);
  const loaded = await state(page);
  expect(loaded.error).toBeNull();
  expect(loaded.weightsSource).toContain('arm-weights.dmat');
  expect(loaded.boneCount).toBe(boneCount);
  expect(loaded.duration).toBe(frames - 1);

  await page.evaluate((t) => {
    const h = (window as any).__rigwright;
    h.pause();
    h.setInfluences(4);
    h.setTime(t);
  }, frames - 1);
  const { maxError, diagonal, gpu } = await gpuCpuDeviation(page);
  expect(maxError).toBeLessThanOrEqual(1e-4 * diagonal);

  // The same pose evaluated here in Node from the files themselves.
  const mesh = (readRigFile('arm.obj', readFileSync(meshFile)) as any).mesh;
  const weightsMatrix = (readRigFile('arm-weights.dmat', readFileSync(weightsFile)) as any).matrix;
  const { weights } = weightsFromDmat(weightsMatrix, mesh.positions.length / 3, boneCount, 'arm-weights.dmat');
  const poses = poseSequenceFromDmat((readRigFile('arm-bend.dmat', readFileSync(poseFile)) as any).matrix, boneCount, 'arm-bend.dmat');
  const rotations = new Float64Array(boneCount * 9);
  samplePose(poses, frames - 1, rotations);
  const transforms = new Float64Array(boneCount * 12);
  forwardKinematics(skeleton, rotations, transforms);
  const expected = new Float64Array(mesh.positions.length);
  linearBlendSkinning(mesh.positions, influencesFromWeights(weights, 4), transforms, expected);
  let nodeError = 0;
  let motion = 0;
  for (let i = 0; i < expected.length; i++) {
    nodeError = Math.max(nodeError, Math.abs(gpu[i] - expected[i]));
    motion = Math.max(motion, Math.abs(expected[i] - mesh.positions[i]));
  }
  expect(motion).toBeGreaterThan(0.01 * diagonal);
  expect(nodeError).toBeLessThanOrEqual(1e-4 * diagonal);
  expect(errors).toEqual([]);
});

test('clicking a joint selects its bone', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors);
  await loadThroughUi(page, [dataFile('hand', 'hand.off'), dataFile('hand', 'hand.tgf')]);
  await page.evaluate(() => (window as any).__rigwright.pause());
  // Bone 0 is the first edge line of hand.tgf; the joint at its end (0-based) selects it.
  const tgfLines = readFileSync(dataFile('hand', 'hand.tgf'), 'utf8').split('\n');
  const firstEdge = tgfLines.slice(tgfLines.findIndex((l) => l.startsWith('#')) + 1).find((l) => l.trim().length > 0)!;
  const endJoint = Number(firstEdge.trim().split(/\s+/)[1]) - 1;
  const point = await page.evaluate((j) => (window as any).__rigwright.jointScreenPosition(j), endJoint);
  await page.mouse.click(point.x, point.y);
  await expect.poll(async () => (await state(page)).selectedBone).toBe(0);
  expect(errors).toEqual([]);
});

test('bad files are reported with file, place and reason, and the scene is kept', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors);
  await loadThroughUi(page, [dataFile('hand', 'hand.off'), dataFile('hand', 'hand.tgf')]);
  const before = await state(page);
  const dir = mkdtempSync(path.join(tmpdir(), 'rigwright-bad-'));

  const truncated = path.join(dir, 'truncated.obj');
  writeFileSync(truncated, 'v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 2');
  await page.setInputFiles('#file-input', [truncated]);
  await expect.poll(async () => (await state(page)).error).toMatch(/truncated\.obj.*line 6/);
  await expect(page.getByText(/truncated\.obj/).first()).toBeVisible();

  const wrongWeights = path.join(dir, 'wrong-size.dmat');
  writeFileSync(wrongWeights, writeDmatAscii({ rows: 4780, cols: 7, data: new Float64Array(4780 * 7).fill(1 / 7) }));
  await page.setInputFiles('#file-input', [wrongWeights]);
  await expect.poll(async () => (await state(page)).error).toMatch(/wrong-size\.dmat/);

  const after = await state(page);
  expect(after.vertexCount).toBe(before.vertexCount);
  expect(after.boneCount).toBe(before.boneCount);
  expect(after.meshFiles).toEqual(before.meshFiles);
  const { maxError, diagonal } = await gpuCpuDeviation(page);
  expect(maxError).toBeLessThanOrEqual(1e-4 * diagonal);
  expect(errors.filter((e) => !/truncated\.obj|wrong-size\.dmat/.test(e))).toEqual([]);
});
