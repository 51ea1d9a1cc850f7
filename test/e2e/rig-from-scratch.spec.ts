/**
 * The whole rig from scratch on one scene, in Chromium on SwiftShader, with real mouse events and keys: the body mesh
 * opened alone (0 bones); the skeleton tool (J) builds a chain of three bones along the left arm and one along the
 * spine by clicks, every joint inside the mesh (generalized winding number computed here from the mesh file); Shift+M
 * mirrors the arm with side names; the Bind panel's automatic handles and Compute weights bind it; the pose tool (R)
 * picks the forearm by its end joint, a drag on the gizmo's ring turns it and the Pose panel's numbers set exactly 90°,
 * the GPU mesh equal to the CPU reference; Alt+I keys the pose at frame 0, the arrow keys go to frame 20, a second
 * pose is keyed there, and playing shows the SLERP of the two keys between them; the GLB exported from the export
 * dialog holds the same bones, names and clip, read here in Node and opened again in the app; undo takes every step
 * back to the bare mesh, the bone count going down with it. Uses `window.__rigwright` (renderer/shell/test-hook.ts)
 * to read what the app holds.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test, expect, type Page } from '@playwright/test';
import {
  BODY_LEFT_ARM,
  BODY_SPINE,
  clickAt,
  dataFile,
  dragRing,
  exportGlbWithClip,
  gpuCpuDeviation,
  grabRing,
  loadFiles,
  openApp,
} from './app-driver.ts';
import { importGltf } from '../../workers/formats/gltf-import.ts';
import { readObj } from '../../workers/formats/obj.ts';
import { windingNumber, type Vec3 } from '../../workers/rig/volume-ray.ts';
import { quaternionMatrix } from '../unit/rotation-matrix.ts';

/** Bone 1 runs from the elbow (joint 1) to the wrist (joint 2): clicked last in its chain, the forearm. */
const FOREARM = 1;
const ELBOW = 1;
const WRIST = 2;
/** The frame of the second key. */
const SECOND_KEY = 20;

const bodyFile = dataFile('context-aware/reference.obj');
const body = readObj(readFileSync(bodyFile, 'utf8'), 'reference.obj').mesh;

interface Rig {
  joints: number[];
  bones: number[];
  parents: number[];
  names: string[];
}

const hook = (page: Page) => ({
  state: () => page.evaluate(() => (window as any).__rigwright.state()),
  skeleton: (): Promise<Rig> => page.evaluate(() => (window as any).__rigwright.skeleton()),
  undoLabels: (): Promise<string[]> => page.evaluate(() => (window as any).__rigwright.history().undo),
  posedJoints: (): Promise<number[]> => page.evaluate(() => (window as any).__rigwright.pose.joints()),
  rotations: (): Promise<number[]> => page.evaluate(() => (window as any).__rigwright.pose.shownRotations()),
  worldRotations: (): Promise<number[]> => page.evaluate(() => (window as any).__rigwright.pose.worldRotations()),
  setTime: (t: number) => page.evaluate((time) => (window as any).__rigwright.setTime(time), t),
});

const point = (values: ArrayLike<number>, j: number): Vec3 => [values[3 * j], values[3 * j + 1], values[3 * j + 2]];
const sub = (a: ArrayLike<number>, b: ArrayLike<number>): Vec3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const norm = (a: readonly number[]): number => Math.hypot(a[0], a[1], a[2]);
const dot = (a: readonly number[], b: readonly number[]): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];

/** Unit quaternion [x, y, z, w] of a 3×3 row-major rotation (Shepperd's method: the largest diagonal term first). */
function quaternionOf(m: readonly number[]): number[] {
  const trace = m[0] + m[4] + m[8];
  if (trace > 0) {
    const s = 2 * Math.sqrt(1 + trace);
    return [(m[7] - m[5]) / s, (m[2] - m[6]) / s, (m[3] - m[1]) / s, s / 4];
  }
  if (m[0] > m[4] && m[0] > m[8]) {
    const s = 2 * Math.sqrt(1 + m[0] - m[4] - m[8]);
    return [s / 4, (m[1] + m[3]) / s, (m[2] + m[6]) / s, (m[7] - m[5]) / s];
  }
  if (m[4] > m[8]) {
    const s = 2 * Math.sqrt(1 + m[4] - m[0] - m[8]);
    return [(m[1] + m[3]) / s, s / 4, (m[5] + m[7]) / s, (m[2] - m[6]) / s];
  }
  const s = 2 * Math.sqrt(1 + m[8] - m[0] - m[4]);
  return [(m[2] + m[6]) / s, (m[5] + m[7]) / s, s / 4, (m[3] - m[1]) / s];
}

/** SLERP (Shoemake 1985) of two unit quaternions along the shorter arc: sin((1−t)θ)/sin θ · a + sin(tθ)/sin θ · b. */
function slerp(a: readonly number[], b: readonly number[], t: number): number[] {
  let cos = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
  const sign = cos < 0 ? -1 : 1;
  cos *= sign;
  const theta = Math.acos(Math.min(1, cos));
  const [ka, kb] = [Math.sin((1 - t) * theta) / Math.sin(theta), (sign * Math.sin(t * theta)) / Math.sin(theta)];
  return a.map((v, k) => ka * v + kb * b[k]);
}

function maxDifference(a: readonly number[], b: readonly number[]): number {
  return a.reduce((most, v, i) => Math.max(most, Math.abs(v - b[i])), 0);
}

const IDENTITY = [1, 0, 0, 0, 1, 0, 0, 0, 1];

/** Largest distance between each bone's start joints, and between its end joints, in two skeletons with the same bones. */
function boneJointDistance(a: Rig, b: { joints: ArrayLike<number>; bones: ArrayLike<number> }): number {
  let worst = 0;
  for (let k = 0; k < a.bones.length; k++) worst = Math.max(worst, norm(sub(point(a.joints, a.bones[k]), point(b.joints, b.bones[k]))));
  return worst;
}

test('skeleton, gizmo and keys: a rig built on the bare body by mouse, bound, posed, keyed, exported and undone', async ({ page }) => {
  test.setTimeout(120_000);
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  await loadFiles(page, [bodyFile], 'reference.obj');
  const app = hook(page);
  const bare = await app.state();
  expect([bare.error, bare.vertexCount, bare.boneCount]).toEqual([null, 18453, 0]);
  /** bone count after each undo step made, by the history's length: undo must go back through the same counts */
  const bonesAtStep = [0];
  const record = async (what: string) => {
    const steps = (await app.undoLabels()).length;
    expect(steps, `${what}: one more undo step`).toBe(bonesAtStep.length);
    bonesAtStep.push((await app.state()).boneCount);
  };

  // The skeleton tool: a chain of three bones along the left arm, Escape, one bone along the spine.
  await page.keyboard.press('j');
  for (const [i, p] of BODY_LEFT_ARM.entries()) {
    await clickAt(page, p);
    if (i > 0) await record(`arm click ${i + 1}`);
  }
  await page.keyboard.press('Escape');
  for (const [i, p] of BODY_SPINE.entries()) {
    await clickAt(page, p);
    if (i > 0) await record('spine');
  }
  await page.keyboard.press('Escape');
  const built = await app.skeleton();
  expect(built.parents).toEqual([-1, 0, 1, -1]);
  expect(bonesAtStep).toEqual([0, 1, 2, 3, 4]);
  for (let j = 0; j < built.joints.length / 3; j++) {
    expect(
      windingNumber(body, point(built.joints, j)),
      `joint ${j} at ${point(built.joints, j).join(', ')} is inside the body`,
    ).toBeGreaterThan(0.5);
  }

  // Mirror the arm: a click on the shoulder selects the upper arm (Escape ends the chain that click starts), Shift+M.
  const shoulder = await page.evaluate(() => (window as any).__rigwright.jointScreenPosition(0));
  await page.mouse.click(shoulder.x, shoulder.y);
  await page.keyboard.press('Escape');
  expect((await app.state()).selectedBone).toBe(0);
  await page.keyboard.press('Shift+M');
  await record('mirror');
  const rig = await app.skeleton();
  expect(rig.names).toEqual(['bone 0.L', 'bone 1.L', 'bone 2.L', 'bone 3', 'bone 0.R', 'bone 1.R', 'bone 2.R']);
  expect(rig.parents).toEqual([-1, 0, 1, -1, -1, 4, 5]);
  const xs = Array.from({ length: body.positions.length / 3 }, (_, v) => body.positions[3 * v]);
  const plane = (Math.min(...xs) + Math.max(...xs)) / 2;
  for (let b = 0; b < 3; b++) {
    for (const end of [0, 1]) {
      const [x, y, z] = point(rig.joints, rig.bones[2 * b + end]);
      const copy = point(rig.joints, rig.bones[2 * (b + 4) + end]);
      expect(norm(sub(copy, [2 * plane - x, y, z])), `bone ${b + 4} mirrors bone ${b}`).toBeLessThan(1e-9);
      expect(windingNumber(body, copy), `the mirrored joint of bone ${b} is inside`).toBeGreaterThan(0.5);
    }
  }

  // Bind by mouse: the Bind panel (B), automatic handles from bone cylinders, Compute weights.
  await page.keyboard.press('b');
  const bindPanel = page.locator('#bind-panel');
  await expect(bindPanel).toBeVisible();
  await bindPanel.getByLabel('Automatic: bone cylinders').check();
  await bindPanel.getByRole('button', { name: 'Compute weights' }).click();
  await page.waitForFunction(
    () => {
      const h = (window as any).__rigwright;
      return h.state().error !== null || (!h.binding.state().binding.running && h.state().weightsSource.startsWith('harmonic'));
    },
    undefined,
    { timeout: 60_000 },
  );
  const bound = await app.state();
  expect(bound.error).toBeNull();
  expect(bound.weightsSource).toMatch(/automatic, cylinders/);
  await record('bind');
  const weights: number[] = (await page.evaluate(() => (window as any).__rigwright.snapshot())).weights;
  let worstSum = 0;
  for (let v = 0; v < bound.vertexCount; v++) {
    let sum = 0;
    for (let b = 0; b < 7; b++) sum += weights[7 * v + b];
    worstSum = Math.max(worstSum, Math.abs(sum - 1));
  }
  expect(worstSum, 'every row of the weights sums to 1').toBeLessThan(1e-9);
  await page.keyboard.press('b');

  // The pose tool: a click on the wrist picks the forearm; a drag on the gizmo's z ring turns it about that axis.
  await page.keyboard.press('r');
  const wristOnPage = await page.evaluate((j) => (window as any).__rigwright.jointScreenPosition(j), WRIST);
  await page.mouse.click(wristOnPage.x, wristOnPage.y);
  expect((await app.state()).selectedBone).toBe(FOREARM);
  await expect(page.locator('#pose-panel .pose-bone')).toHaveText('bone 1.L');
  const rest = await app.posedJoints();
  const zAxis: number[] = await page.evaluate(() => (window as any).__rigwright.pose.gizmoAxis(2));
  const grab = await grabRing(page, 2, 'Z');
  await dragRing(page, 2, grab.angle, grab.angle + 0.6);
  await record('gizmo drag');
  const dragged = await app.posedJoints();
  const turned = sub(point(dragged, WRIST), point(dragged, ELBOW));
  const restForearm = sub(point(rest, WRIST), point(rest, ELBOW));
  expect(Math.acos(dot(turned, restForearm) / (norm(turned) * norm(restForearm))), 'the drag turned the forearm').toBeGreaterThan(0.05);
  expect(Math.abs(dot(sub(turned, restForearm), zAxis)) / norm(restForearm), 'in the plane of the z ring').toBeLessThan(1e-9);

  // Exactly 90° about the bone's own x axis by the Pose panel's numbers: the forearm now stands at right angles to its
  // rest direction (x is across the bone), the elbow where it was.
  await page.fill('#pose-panel .pose-angle[data-axis="X"]', '90');
  await page.fill('#pose-panel .pose-angle[data-axis="Y"]', '0');
  await page.fill('#pose-panel .pose-angle[data-axis="Z"]', '0');
  await page.press('#pose-panel .pose-angle[data-axis="Z"]', 'Enter');
  await page.locator('#pose-panel .pose-angle[data-axis="Z"]').blur();
  await record('numbers');
  const posed = await app.posedJoints();
  const forearm = sub(point(posed, WRIST), point(posed, ELBOW));
  expect(Math.abs(dot(forearm, restForearm)) / (norm(forearm) * norm(restForearm)), 'at right angles to its rest direction').toBeLessThan(
    1e-9,
  );
  expect(Math.abs(norm(forearm) - norm(restForearm))).toBeLessThan(1e-12);
  expect(norm(sub(point(posed, ELBOW), point(rest, ELBOW)))).toBeLessThan(1e-12);
  const firstKey = (await app.rotations()).slice(9 * FOREARM, 9 * FOREARM + 9);

  // The GPU-skinned mesh equals the CPU reference, and the forearm's skin did move.
  const diagonal: number = await page.evaluate(() => (window as any).__rigwright.boundingDiagonal());
  for (const method of ['dqs', 'lbs']) {
    await page.evaluate((m) => (window as any).__rigwright.setMethod(m), method);
    const deviation = await gpuCpuDeviation(page);
    expect(deviation.maxError / diagonal, `${method}: GPU = CPU`).toBeLessThanOrEqual(1e-4);
    let moved = 0;
    for (let v = 0; v < deviation.vertexCount; v++) moved = Math.max(moved, norm(sub(point(deviation.gpu, v), point(body.positions, v))));
    expect(moved / diagonal, `${method}: the forearm's skin moved`).toBeGreaterThan(0.05);
  }

  // Key the pose at frame 0 (Alt+I), go to frame 20 with the arrow key, pose again, key again.
  await page.keyboard.press('Alt+i');
  await record('first key');
  expect((await app.state()).clipName).toBe('Action');
  await expect(page.locator('.key-mark')).toHaveCount(1);
  for (let f = 0; f < SECOND_KEY; f++) await page.keyboard.press('ArrowRight');
  expect((await app.state()).time).toBe(SECOND_KEY);
  await page.fill('#pose-panel .pose-angle[data-axis="X"]', '-30');
  await page.fill('#pose-panel .pose-angle[data-axis="Y"]', '40');
  await page.fill('#pose-panel .pose-angle[data-axis="Z"]', '70');
  await page.press('#pose-panel .pose-angle[data-axis="Z"]', 'Enter');
  await page.locator('#pose-panel .pose-angle[data-axis="Z"]').blur();
  await record('second pose');
  await page.keyboard.press('Alt+i');
  await record('second key');
  await expect(page.locator('.key-mark')).toHaveCount(2);
  const secondKey = (await app.rotations()).slice(9 * FOREARM, 9 * FOREARM + 9);
  expect(maxDifference(firstKey, secondKey), 'the two keys differ').toBeGreaterThan(0.5);

  // Between the keys the forearm turns by SLERP, every other bone at rest; after the last key it holds.
  const [q0, q1] = [quaternionOf(firstKey), quaternionOf(secondKey)];
  const expectedAt = (time: number) => quaternionMatrix(slerp(q0, q1, Math.min(Math.max(time / SECOND_KEY, 0), 1)));
  const checkPoseAt = async (what: string) => {
    const { time } = await app.state();
    const shown = await app.rotations();
    expect(
      maxDifference(shown.slice(9 * FOREARM, 9 * FOREARM + 9), expectedAt(time)),
      `${what} (frame ${time}): SLERP of the keys`,
    ).toBeLessThan(1e-9);
    for (let b = 0; b < 7; b++)
      if (b !== FOREARM) expect(maxDifference(shown.slice(9 * b, 9 * b + 9), IDENTITY), `${what}: bone ${b} at rest`).toBeLessThan(1e-12);
    return time;
  };
  for (let f = 0; f < SECOND_KEY / 2; f++) await page.keyboard.press('ArrowLeft');
  expect(await checkPoseAt('halfway')).toBe(SECOND_KEY / 2);
  await page.keyboard.press('Space');
  await expect.poll(async () => (await app.state()).time, 'playing moves on').not.toBe(SECOND_KEY / 2);
  await page.keyboard.press('Space');
  expect((await app.state()).playing).toBe(false);
  await checkPoseAt('where playing stopped');
  for (const frame of [5, 12.5, 15]) {
    await app.setTime(frame);
    await checkPoseAt(`frame ${frame}`);
  }

  // Export as GLB from the export dialog: the file holds the same bones (both ends of each), names and clip.
  const names = rig.names;
  const bytes = await exportGlbWithClip(page);
  const file = await importGltf(bytes, 'rig.glb');
  expect(file.boneNames).toEqual(names);
  expect(Array.from(file.skeleton.parents)).toEqual(rig.parents);
  const jointError = boneJointDistance(rig, file.skeleton);
  expect(jointError, 'each bone’s start and end joints in the file').toBeLessThan(1e-6);
  const clip = file.clips.find((c) => c.name === 'Action');
  expect(clip, 'the keyed clip is in the file').toBeTruthy();
  if (clip!.poses.kind !== 'matrices') throw new Error('the exported clip is read back as frames of rotation matrices');
  const stored = clip!.poses;
  const frames = (await app.state()).duration + 1;
  expect(stored.frameCount).toBe(frames);
  const expectedFrame = (frame: number) => Array.from({ length: 7 }, (_, b) => (b === FOREARM ? expectedAt(frame) : IDENTITY)).flat();
  let clipError = 0;
  for (let frame = 0; frame < frames; frame++) {
    clipError = Math.max(
      clipError,
      maxDifference(Array.from(stored.rotations.subarray(63 * frame, 63 * (frame + 1))), expectedFrame(frame)),
    );
  }
  expect(clipError, 'every frame of the file’s clip: the keys and the SLERP between them').toBeLessThan(1e-6);
  console.log(`GLB: ${bytes.length} bytes; joints within ${jointError.toExponential(2)}, clip within ${clipError.toExponential(2)}`);

  // Undo each step: the bone count goes back down through the counts it went up by, to the bare mesh.
  const labels = await app.undoLabels();
  console.log(`undo steps: ${labels.join(' | ')}`);
  expect(labels.length).toBe(bonesAtStep.length - 1);
  for (let step = labels.length; step > 0; step--) {
    await page.keyboard.press('Control+z');
    const s = await app.state();
    expect([(await app.undoLabels()).length, s.boneCount], `undoing “${labels[step - 1]}”`).toEqual([step - 1, bonesAtStep[step - 1]]);
  }
  const back = await app.state();
  expect([back.boneCount, back.jointCount, back.clips, back.weightsSource]).toEqual([0, 0, [], 'none (no skeleton yet)']);

  // The GLB opened in the app: the same bones, names and clip.
  const folder = mkdtempSync(path.join(tmpdir(), 'rig-from-scratch-'));
  writeFileSync(path.join(folder, 'rig.glb'), bytes);
  await loadFiles(page, [path.join(folder, 'rig.glb')], 'rig.glb');
  const reopened = await app.state();
  expect(reopened.error).toBeNull();
  const again = await app.skeleton();
  expect(again.names).toEqual(names);
  expect(again.parents).toEqual(rig.parents);
  expect(boneJointDistance(rig, again), 'each bone’s joints in the app').toBeLessThan(1e-6);
  expect(reopened.clips).toContain('Action');
  await page.evaluate((i) => (window as any).__rigwright.selectClip(i), reopened.clips.indexOf('Action'));
  await page.evaluate(() => (window as any).__rigwright.pause());
  for (const frame of [0, 5, 10, 15, SECOND_KEY, frames - 1]) {
    await app.setTime(frame);
    expect(maxDifference(await app.rotations(), expectedFrame(frame)), `frame ${frame} of the reopened clip`).toBeLessThan(1e-6);
  }
  expect(errors).toEqual([]);
});
