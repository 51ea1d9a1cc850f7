/**
 * The template rig from markers, with the real mouse, in Chromium on SwiftShader: the body mesh opened alone, the
 * Template panel opened by its key, the front view by its button, each marker's dot dragged onto its place (the page
 * position of the course skeleton's joint there, through the test hook), Fit (every joint inside the mesh, one undo
 * step, undone back to the bare mesh), Fit and bind (automatic handles, harmonic weights), the right arm posed by IK to
 * a target, and the deformed mesh without NaN, the GPU equal to the CPU reference, the weights a partition of unity.
 * Uses `window.__rigwright` (renderer/shell/test-hook.ts).
 */
import { readFileSync } from 'node:fs';
import { test, expect, type Page } from '@playwright/test';
import { dataFile, gpuCpuDeviation, loadFiles, openApp } from './app-driver.ts';
import { readTgf } from '../../workers/formats/tgf.ts';
import { readObj } from '../../workers/formats/obj.ts';
import { windingNumber, type Vec3 } from '../../workers/rig/volume-ray.ts';
import { COURSE_JOINTS } from '../unit/body-markers.ts';

interface TemplateState {
  panelOpen: boolean;
  kind: string;
  markers: { id: string; label: string; point: number[] | null }[];
  bones: string[];
}

const hook = (page: Page) => ({
  state: () => page.evaluate(() => (window as any).__rigwright.state()),
  template: (): Promise<TemplateState> => page.evaluate(() => (window as any).__rigwright.template.state()),
  pagePosition: (point: number[]): Promise<{ x: number; y: number }> =>
    page.evaluate((p) => (window as any).__rigwright.template.pagePosition(p), point),
  scene: () => page.evaluate(() => (window as any).__rigwright.work.scene()),
  command: (id: string, argument?: unknown): Promise<unknown> =>
    page.evaluate(([i, a]) => (window as any).__rigwright.command(i, a), [id, argument] as const),
  undoLabels: (): Promise<string[]> => page.evaluate(() => (window as any).__rigwright.history().undo),
});

/** Presses a dot and drags it, in small steps, to a page point. */
async function dragTo(page: Page, from: { x: number; y: number }, to: { x: number; y: number }): Promise<void> {
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(to.x, to.y, { steps: 8 });
  await page.mouse.up();
}

test('template: markers dragged onto the bare body fit a skeleton inside it; fit and bind; the right arm posed by IK', async ({ page }) => {
  test.setTimeout(300_000);
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  await loadFiles(page, [dataFile('context-aware', 'reference.obj')], 'reference.obj');
  const app = hook(page);
  const bare = await app.state();
  expect(bare.error).toBeNull();
  expect([bare.vertexCount, bare.boneCount]).toEqual([18453, 0]);
  const body = readObj(readFileSync(dataFile('context-aware', 'reference.obj'), 'utf8'), 'reference.obj').mesh;
  const course = readTgf(readFileSync(dataFile('context-aware', 'skeleton.tgf'), 'utf8'), 'skeleton.tgf').joints;
  const diagonal: number = await page.evaluate(() => (window as any).__rigwright.boundingDiagonal());

  // The panel by its key, the front view by its button.
  await page.keyboard.press('Shift+T');
  await expect(page.locator('#template-panel')).toBeVisible();
  await page.locator('#template-panel').getByRole('button', { name: 'Front view' }).click();
  const start = await app.template();
  expect(start.kind).toBe('humanoid');
  expect(
    start.markers.every((m) => m.point !== null),
    'every marker starts on the mesh',
  ).toBe(true);

  // A dot let go beside the body (above the right arm, beside the head) is off the mesh: Fit refuses, naming it.
  const offDot = (await page.locator('.template-dot[data-marker="elbow.R"]').boundingBox())!;
  await dragTo(page, { x: offDot.x + offDot.width / 2, y: offDot.y + offDot.height / 2 }, await app.pagePosition([-0.6, 0.5, 0]));
  expect((await app.template()).markers.find((m) => m.id === 'elbow.R')!.point).toBeNull();
  await page.locator('#template-panel').getByRole('button', { name: 'Fit', exact: true }).click();
  const refused = await app.state();
  expect(refused.error).toMatch(/Right elbow is off the mesh/);
  expect(refused.boneCount).toBe(0);
  expect(await app.undoLabels()).toEqual([]);
  await page.keyboard.press('Escape');

  // Each dot dragged by the mouse onto the page position of its place.
  const gaps: string[] = [];
  for (const { id } of start.markers) {
    const j = COURSE_JOINTS[id];
    expect(j, `the course skeleton has a joint for marker ${id}`).toBeDefined();
    const place = [course[3 * j], course[3 * j + 1], course[3 * j + 2]];
    const target = await app.pagePosition(place);
    const dot = (await page.locator(`.template-dot[data-marker="${id}"]`).boundingBox())!;
    await dragTo(page, { x: dot.x + dot.width / 2, y: dot.y + dot.height / 2 }, target);
    const marker = (await app.template()).markers.find((m) => m.id === id)!;
    expect(marker.point, `${id} is on the mesh`).not.toBeNull();
    // The dot's view ray is the target's: the marker shows where the dot was let go.
    const shown = await app.pagePosition(marker.point!);
    expect(Math.hypot(shown.x - target.x, shown.y - target.y), `${id}: on screen where it was let go`).toBeLessThan(1);
    // It sits on the skin in front of the joint: on the view ray through it, at most a limb's thickness away.
    const gap = Math.hypot(marker.point![0] - place[0], marker.point![1] - place[1], marker.point![2] - place[2]);
    expect(gap, `${id}: ${gap} from its joint`).toBeLessThan(0.1 * diagonal);
    gaps.push(`${id} ${(gap / diagonal).toFixed(4)}`);
  }
  console.log(`markers' distance to the course joints / diagonal: ${gaps.join(', ')}`);

  // Fit: one undo step; every joint inside the body; undo gives the bare mesh back.
  await page.locator('#template-panel').getByRole('button', { name: 'Fit', exact: true }).click();
  const fitted = await app.state();
  expect(fitted.error).toBeNull();
  expect(fitted.boneCount).toBeGreaterThanOrEqual(15);
  expect(await app.undoLabels()).toEqual(['Fit the humanoid template']);
  const scene = await app.scene();
  for (let j = 0; j < scene.joints.length / 3; j++) {
    const p: Vec3 = [scene.joints[3 * j], scene.joints[3 * j + 1], scene.joints[3 * j + 2]];
    expect(windingNumber(body, p), `joint ${j} inside the mesh`).toBeGreaterThan(0.5);
  }
  await page.keyboard.press('Control+Z');
  expect((await app.state()).boneCount).toBe(0);

  // Fit and bind: the fit, then weights by the default method (auto: harmonic from automatic handles, or volumetric
  // where those handles would take most of the vertices).
  const bindStart = Date.now();
  await page.locator('#template-panel').getByRole('button', { name: 'Fit and bind' }).click();
  await page.waitForFunction(
    () => {
      const h = (window as any).__rigwright;
      return h.state().error !== null || (!h.binding.state().binding.running && /^(harmonic|volumetric) /.test(h.state().weightsSource));
    },
    undefined,
    { timeout: 240_000 },
  );
  const bound = await app.state();
  expect(bound.error).toBeNull();
  console.log(`fit and bind: ${bound.boneCount} bones, ${((Date.now() - bindStart) / 1000).toFixed(1)} s, weights ${bound.weightsSource}`);
  expect(await app.undoLabels()).toEqual(['Fit the humanoid template', 'Compute weights']);
  const { bones } = await app.template();
  expect(bones.length).toBe(bound.boneCount);

  // The right arm (−x) by IK: the forearm's end to a point below and in front of the shoulder, within reach.
  const forearm = bones.findIndex((name) => /forearm/i.test(name) && /(\.R|_r|Right|^R_)/.test(name));
  expect(forearm, `a right forearm among ${bones.join(', ')}`).toBeGreaterThanOrEqual(0);
  const rig = await app.scene();
  const joint = (j: number) => [rig.joints[3 * j], rig.joints[3 * j + 1], rig.joints[3 * j + 2]];
  const [elbowJoint, wristJoint] = [rig.bones[2 * forearm], rig.bones[2 * forearm + 1]];
  // The upper arm: the bone that ends at the forearm's start (bone b ends at rig.bones[2b + 1]).
  const upperArm = Math.floor(rig.bones.findIndex((j: number, k: number) => k % 2 === 1 && j === elbowJoint) / 2);
  expect(rig.bones[2 * upperArm + 1], 'the upper arm ends at the elbow').toBe(elbowJoint);
  const shoulder = joint(rig.bones[2 * upperArm]);
  const reach =
    Math.hypot(...joint(elbowJoint).map((x, k) => x - shoulder[k])) +
    Math.hypot(...joint(wristJoint).map((x, k) => x - joint(elbowJoint)[k]));
  const down = [-0.4, -0.8, 0.45];
  const length = Math.hypot(...down);
  const target = shoulder.map((x, k) => x + (0.85 * reach * down[k]) / length);
  expect(await app.command('pose.ik', { bone: forearm, target })).toBe(true);

  // The deformed mesh: no NaN, the GPU equal to the CPU reference, the hand moved toward the target.
  const cpu: number[] = await page.evaluate(() => (window as any).__rigwright.cpuPositions());
  expect(
    cpu.some((x) => !Number.isFinite(x)),
    'no NaN in the deformed mesh',
  ).toBe(false);
  const rest = Array.from(body.positions);
  const moved = cpu.reduce(
    (most, x, i) => (i % 3 === 0 ? Math.max(most, Math.hypot(x - rest[i], cpu[i + 1] - rest[i + 1], cpu[i + 2] - rest[i + 2])) : most),
    0,
  );
  expect(moved, 'the arm moved').toBeGreaterThan(0.1 * diagonal);
  const gpu = await gpuCpuDeviation(page);
  expect(gpu.maxError).toBeLessThan(1e-4 * gpu.diagonal);
  // The wrist is on the target, in 3D: its posed joint.
  const posedJoints: number[] = await page.evaluate(() => (window as any).__rigwright.pose.joints());
  const wristPosed = [posedJoints[3 * wristJoint], posedJoints[3 * wristJoint + 1], posedJoints[3 * wristJoint + 2]];
  const wristGap = Math.hypot(...wristPosed.map((x, k) => x - target[k]));
  expect(wristGap / diagonal, 'the posed wrist on the target').toBeLessThan(1e-9);
  console.log(
    `IK pose: wrist ${(wristGap / diagonal).toExponential(2)} of the diagonal from the target, largest vertex move ${(moved / diagonal).toFixed(3)}, GPU − CPU ${(gpu.maxError / gpu.diagonal).toExponential(2)}`,
  );

  // Partition of unity: every row sums to 1 within 1e-9, every weight ≥ 0.
  const weights: number[] = (await app.scene()).weights;
  const B = bound.boneCount;
  let worstSum = 0;
  let lowest = Infinity;
  for (let v = 0; v < weights.length / B; v++) {
    let sum = 0;
    for (let b = 0; b < B; b++) {
      sum += weights[v * B + b];
      lowest = Math.min(lowest, weights[v * B + b]);
    }
    worstSum = Math.max(worstSum, Math.abs(sum - 1));
  }
  expect(worstSum).toBeLessThan(1e-9);
  console.log(`partition of unity: largest |Σ w − 1| ${worstSum.toExponential(2)}, smallest weight ${lowest}`);
  expect(lowest).toBeGreaterThanOrEqual(0);
  // The console's only error is the refusal shown in the banner.
  expect(errors.filter((e) => !/Right elbow is off the mesh/.test(e))).toEqual([]);
});
