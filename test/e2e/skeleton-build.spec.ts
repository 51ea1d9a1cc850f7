/**
 * Building a skeleton on a bare mesh with the mouse, in Chromium on SwiftShader: the body mesh opened alone has no
 * skeleton and the app works with 0 bones (the rest mesh on the GPU equals the CPU reference; binding, painting and
 * export refuse, saying why); then the skeleton tool (J) builds a chain of three bones along the left arm and one
 * along the spine with real clicks, every joint lands inside the mesh (generalized winding number computed here from
 * the mesh file), a joint dragged moves in one undo step, automatic handles and harmonic weights bind it, and undo
 * takes the scene back to the bare mesh. Uses `window.__rigwright` (renderer/shell/test-hook.ts).
 */
import { test, expect, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { BODY_LEFT_ARM, BODY_SPINE, clickAt, dataFile, gpuCpuDeviation, loadFiles, openApp, pagePoint } from './app-driver.ts';
import { readObj } from '../../workers/formats/obj.ts';
import { windingNumber } from '../../workers/rig/volume-ray.ts';

type Vec3 = [number, number, number];

const state = (page: Page) => page.evaluate(() => (window as any).__rigwright.state());
const history = (page: Page): Promise<{ undo: string[]; redo: number }> => page.evaluate(() => (window as any).__rigwright.history());
const command = (page: Page, id: string, argument?: unknown): Promise<boolean> =>
  page.evaluate(([i, a]) => (window as any).__rigwright.command(i, a), [id, argument] as const);
const skeleton = (page: Page): Promise<{ joints: number[]; bones: number[]; parents: number[]; names: string[] }> =>
  page.evaluate(() => (window as any).__rigwright.skeleton());

const body = readObj(readFileSync(dataFile('context-aware/reference.obj'), 'utf8'), 'reference.obj').mesh;

test('skeleton: the body mesh opened alone has no skeleton, and the app works with 0 bones', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  await loadFiles(page, [dataFile('context-aware/reference.obj')], 'reference.obj');
  const bare = await state(page);
  expect(bare.error).toBeNull();
  expect([bare.vertexCount, bare.boneCount, bare.jointCount]).toEqual([18453, 0, 0]);
  for (const method of ['lbs', 'dqs', 'perface', 'blend']) {
    await page.evaluate((m) => (window as any).__rigwright.setMethod(m), method);
    await page.evaluate(() => (window as any).__rigwright.settled());
    const d = await gpuCpuDeviation(page);
    expect(d.maxError, `${method}: the rest mesh`).toBeLessThan(1e-4 * d.diagonal);
    const rest = Array.from(body.positions);
    expect(Math.max(...d.gpu.map((v, i) => Math.abs(v - rest[i]))), `${method}: the GPU draws the rest mesh`).toBeLessThan(1e-6);
  }
  await page.evaluate(() => (window as any).__rigwright.setMethod('lbs'));
  // What needs bones refuses, saying why; the status line says there is no skeleton yet.
  const refusals = await page.evaluate(() => {
    const hook = (window as any).__rigwright;
    return ['bind.compute', 'tool.brush', 'file.export', 'paint.normalize'].map((id) => hook.command(id));
  });
  expect(refusals).toEqual([false, false, false, false]);
  await expect(page.locator('#status')).toContainText('no skeleton yet');
  await page.keyboard.press('p');
  expect((await page.evaluate(() => (window as any).__rigwright.tool())).id).toBe('select');
  expect(errors).toEqual([]);
});

test('skeleton: a chain along the left arm and a bone along the spine built by clicks, joints inside, drag, bind, undo to the bare mesh', async ({
  page,
}) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  await loadFiles(page, [dataFile('context-aware/reference.obj')], 'reference.obj');
  await page.keyboard.press('j');
  expect(await page.evaluate(() => (window as any).__rigwright.tool())).toEqual({ id: 'skeleton', state: 'idle' });
  await expect(page.locator('#status')).toContainText('click on the mesh to place the first joint');

  for (const [i, point] of BODY_LEFT_ARM.entries()) {
    await clickAt(page, point);
    expect((await state(page)).boneCount, `after click ${i + 1} on the arm`).toBe(i);
  }
  expect((await page.evaluate(() => (window as any).__rigwright.tool())).state).toBe('chaining');
  await expect(page.locator('#status')).toContainText('Esc ends the chain');
  await page.keyboard.press('Escape');
  expect((await page.evaluate(() => (window as any).__rigwright.tool())).state).toBe('idle');
  for (const point of BODY_SPINE) await clickAt(page, point);
  await page.keyboard.press('Escape');

  const built = await skeleton(page);
  expect(built.parents).toEqual([-1, 0, 1, -1]);
  for (let j = 0; j < built.joints.length / 3; j++) {
    const joint = built.joints.slice(3 * j, 3 * j + 3) as Vec3;
    expect(windingNumber(body, joint), `joint ${j} at ${joint.join(', ')} is inside the body`).toBeGreaterThan(0.5);
  }
  // Each joint lies on the view ray of its click: drawn where the click was.
  const clicked = [...BODY_LEFT_ARM, ...BODY_SPINE];
  for (const [j, p] of clicked.entries()) {
    const [at, drawn] = [await pagePoint(page, p), await pagePoint(page, built.joints.slice(3 * j, 3 * j + 3))];
    expect(Math.hypot(at.x - drawn.x, at.y - drawn.y), `joint ${j} under its click`).toBeLessThan(1);
  }
  console.log(`joints: ${built.joints.map((v) => v.toFixed(3)).join(' ')}`);

  // A drag on the elbow moves it under the pointer (in the view plane): one undo step; Escape during a drag puts it back.
  const steps = (await history(page)).undo.length;
  const elbow = await page.evaluate(() => (window as any).__rigwright.jointScreenPosition(1));
  await page.mouse.move(elbow.x, elbow.y);
  await page.mouse.down();
  await page.mouse.move(elbow.x + 4, elbow.y - 3);
  await page.mouse.move(elbow.x + 8, elbow.y - 6);
  expect((await page.evaluate(() => (window as any).__rigwright.tool())).state).toBe('dragging');
  await page.keyboard.press('Escape');
  await page.mouse.up();
  expect((await skeleton(page)).joints).toEqual(built.joints);
  expect((await history(page)).undo.length).toBe(steps);
  await page.mouse.move(elbow.x, elbow.y);
  await page.mouse.down();
  await page.mouse.move(elbow.x + 4, elbow.y - 3);
  await page.mouse.move(elbow.x + 8, elbow.y - 6);
  await page.mouse.up();
  const dragged = await skeleton(page);
  expect((await history(page)).undo.length, 'one undo step').toBe(steps + 1);
  expect(dragged.joints[3], 'the elbow moved right').toBeGreaterThan(built.joints[3]);
  expect(dragged.joints[4], 'and up').toBeGreaterThan(built.joints[4]);
  const shown = await pagePoint(page, dragged.joints.slice(3, 6));
  expect(Math.hypot(shown.x - (elbow.x + 8), shown.y - (elbow.y - 6)), 'the elbow is where the pointer let go').toBeLessThan(0.5);
  expect(windingNumber(body, dragged.joints.slice(3, 6) as Vec3)).toBeGreaterThan(0.5);

  // Mirror the arm: a click on its shoulder joint selects the upper arm, Shift+M copies the limb across the plane.
  const shoulder = await page.evaluate(() => (window as any).__rigwright.jointScreenPosition(0));
  await page.mouse.click(shoulder.x, shoulder.y);
  await page.keyboard.press('Escape');
  expect((await state(page)).selectedBone).toBe(0);
  await page.keyboard.press('Shift+M');
  const mirrored = await skeleton(page);
  expect(mirrored.names).toEqual(['bone 0.L', 'bone 1.L', 'bone 2.L', 'bone 3', 'bone 0.R', 'bone 1.R', 'bone 2.R']);
  const plane = (Math.min(...xs(body.positions)) + Math.max(...xs(body.positions))) / 2;
  for (let b = 0; b < 3; b++) {
    const original = mirrored.bones[2 * b + 1];
    const copy = mirrored.bones[2 * (b + 4) + 1];
    const [x, y, z] = mirrored.joints.slice(3 * original, 3 * original + 3);
    const mirroredJoint = mirrored.joints.slice(3 * copy, 3 * copy + 3);
    expect(Math.abs(mirroredJoint[0] - (2 * plane - x)) + Math.abs(mirroredJoint[1] - y) + Math.abs(mirroredJoint[2] - z)).toBeLessThan(
      1e-9,
    );
    expect(windingNumber(body, mirroredJoint as Vec3), `the mirrored joint of bone ${b} is inside`).toBeGreaterThan(0.5);
  }

  // Weights from automatic handles (the Bind panel's Compute weights), a partition of unity.
  expect(await command(page, 'bind.compute', { source: 'cylinder' })).toBe(true);
  await page.waitForFunction(
    () => {
      const h = (window as any).__rigwright;
      return h.state().error !== null || (!h.binding.state().binding.running && h.state().weightsSource.startsWith('harmonic'));
    },
    undefined,
    { timeout: 110_000 },
  );
  const bound = await state(page);
  expect(bound.error).toBeNull();
  const weights: number[] = (await page.evaluate(() => (window as any).__rigwright.snapshot())).weights;
  let worst = 0;
  for (let v = 0; v < bound.vertexCount; v++) {
    let sum = 0;
    for (let b = 0; b < 7; b++) sum += weights[7 * v + b];
    worst = Math.max(worst, Math.abs(sum - 1));
  }
  expect(worst, 'every row sums to 1').toBeLessThan(1e-9);
  console.log(`bound: ${bound.weightsSource}; largest |Σ w − 1| ${worst.toExponential(2)}`);

  // Undo every step: back to the bare mesh.
  const labels = (await history(page)).undo;
  console.log(`undo steps: ${labels.join(' | ')}`);
  expect(labels).toEqual([
    'Insert bone 0',
    'Insert bone 1',
    'Insert bone 2',
    'Insert bone 3',
    'Move joint 1',
    expect.stringMatching(/^Mirror/),
    expect.stringMatching(/weights/i),
  ]);
  for (let i = 0; i < labels.length; i++) expect(await command(page, 'edit.undo')).toBe(true);
  const back = await state(page);
  expect([back.boneCount, back.jointCount, back.weightsSource]).toEqual([0, 0, 'none (no skeleton yet)']);
  expect(errors).toEqual([]);
});

function xs(positions: Float64Array): number[] {
  return Array.from({ length: positions.length / 3 }, (_, v) => positions[3 * v]);
}
