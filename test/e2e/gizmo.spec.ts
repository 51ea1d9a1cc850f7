/**
 * Posing with the gizmo and two-bone IK in Chromium (SwiftShader), with real mouse events, on the course body
 * (context-aware/: reference.obj, skeleton.tgf, handles.dmat; no pose file, so the body is flexed from rest). The
 * pose tool (R) picks the forearm by a click on its end joint; dragging the gizmo's ring turns the forearm about that
 * ring's axis as one undo step (Escape mid-drag puts it back); typing 90 in the Pose panel's X field and Enter turns it
 * exactly 90° about its own x axis; the GPU-skinned mesh then equals the CPU reference within 1e-4 of the diagonal
 * for every skinning method, and paint mode paints on the posed mesh. In IK mode (Shift+I) dragging the wrist puts it on the point under the pointer in the view
 * plane (1e-6 of the diagonal) with the elbow in the bend plane it had; undo gives the pose back. The libigl elephant,
 * which has no pose file, is flexed the same way. The tool starts from the toolbar's Pose button and the status line
 * says what a click does; the panel's angles are off while the rest pose is shown; Pole toward view puts the pole in
 * front of the elbow toward the camera and Clear pole lets it go; a hand pose saved in a project opens again bit for
 * bit.
 */
import { test, expect, type Page } from '@playwright/test';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readTgf } from '../../workers/formats/tgf.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { dataFile, dragRing, gpuCpuDeviation, grabRing, loadFiles, openApp } from './app-driver.ts';

/** skeleton.tgf (PROVENANCE.md): bone 17 runs from joint 16 (shoulder) to 18 (elbow), bone 19 from 18 to 20 (wrist). */
const UPPER_ARM = 17;
const FOREARM = 19;
const SHOULDER = 16;
const ELBOW = 18;
const WRIST = 20;

type V3 = [number, number, number];
const sub = (a: number[], b: number[]): V3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const add = (a: number[], b: number[]): V3 => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
const scale = (a: number[], s: number): V3 => [a[0] * s, a[1] * s, a[2] * s];
const dot = (a: number[], b: number[]): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a: number[], b: number[]): V3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const norm = (a: number[]): number => Math.hypot(a[0], a[1], a[2]);
const unit = (a: number[]): V3 => scale(a, 1 / norm(a));
const joint = (joints: number[], j: number): V3 => [joints[3 * j], joints[3 * j + 1], joints[3 * j + 2]];

const hook = <T>(page: Page, fn: (h: any) => T): Promise<T> => page.evaluate<T>(`(${fn.toString()})(window.__rigwright)`);

async function openBody(page: Page, errors: string[]): Promise<void> {
  await openApp(page, errors, { paused: true });
  const body = (name: string) => dataFile('context-aware', name);
  await loadFiles(page, [body('reference.obj'), body('skeleton.tgf'), body('handles.dmat')], 'reference.obj');
  expect(await hook(page, (h) => h.state().error)).toBeNull();
}

/** Clicks a joint with the mouse, where the overlay draws it. */
async function clickJoint(page: Page, j: number): Promise<void> {
  const p = await page.evaluate((jj) => (window as any).__rigwright.jointScreenPosition(jj), j);
  await page.mouse.click(p.x, p.y);
}

/** The rotation axis of a 3×3 rotation (row-major) and its angle. */
function axisAngleOf(m: number[]): { axis: V3; angle: number } {
  const s: V3 = [m[7] - m[5], m[2] - m[6], m[3] - m[1]];
  const angle = Math.atan2(norm(s) / 2, (m[0] + m[4] + m[8] - 1) / 2);
  return { axis: unit(s), angle };
}

/** a · bᵀ of two 3×3 row-major rotations at offsets */
function timesTransposed(a: number[], ai: number, b: number[], bi: number): number[] {
  const out: number[] = [];
  for (let r = 0; r < 3; r++)
    for (let c = 0; c < 3; c++)
      out.push(a[ai + 3 * r] * b[bi + 3 * c] + a[ai + 3 * r + 1] * b[bi + 3 * c + 1] + a[ai + 3 * r + 2] * b[bi + 3 * c + 2]);
  return out;
}

/** A page point's view ray, from the camera's projection × view matrix alone (column-major 4×4). */
function pageRay(camera: { viewProjection: number[]; left: number; top: number; width: number; height: number }, x: number, y: number) {
  const inv = invert4(camera.viewProjection);
  const ndcX = ((x - camera.left) / camera.width) * 2 - 1;
  const ndcY = 1 - ((y - camera.top) / camera.height) * 2;
  const unproject = (z: number): V3 => {
    const v = [ndcX, ndcY, z, 1];
    const o = [0, 0, 0, 0];
    for (let r = 0; r < 4; r++) for (let c = 0; c < 4; c++) o[r] += inv[4 * c + r] * v[c];
    return [o[0] / o[3], o[1] / o[3], o[2] / o[3]];
  };
  const near = unproject(-1);
  return { origin: near, direction: unit(sub(unproject(1), near)) };
}

/** The camera's viewing direction: from the unprojected centre of the near plane to that of the far plane. */
function viewDirection(camera: { viewProjection: number[]; left: number; top: number; width: number; height: number }): V3 {
  return pageRay(camera, camera.left + camera.width / 2, camera.top + camera.height / 2).direction;
}

/** Inverse of a 4×4 matrix (column-major), by Gauss–Jordan elimination with partial pivoting. */
function invert4(m: number[]): number[] {
  const a = Array.from({ length: 4 }, (_, r) => [
    ...Array.from({ length: 4 }, (_, c) => m[4 * c + r]),
    ...[0, 1, 2, 3].map((k) => (k === r ? 1 : 0)),
  ]);
  for (let col = 0; col < 4; col++) {
    let pivot = col;
    for (let r = col + 1; r < 4; r++) if (Math.abs(a[r][col]) > Math.abs(a[pivot][col])) pivot = r;
    [a[col], a[pivot]] = [a[pivot], a[col]];
    const p = a[col][col];
    for (let k = 0; k < 8; k++) a[col][k] /= p;
    for (let r = 0; r < 4; r++) {
      if (r === col) continue;
      const f = a[r][col];
      for (let k = 0; k < 8; k++) a[r][k] -= f * a[col][k];
    }
  }
  const out = new Array<number>(16);
  for (let r = 0; r < 4; r++) for (let c = 0; c < 4; c++) out[4 * c + r] = a[r][4 + c];
  return out;
}

test('gizmo: pick the forearm by its joint, turn it by a ring, set 90° by number; GPU mesh equals the CPU reference', async ({ page }) => {
  test.setTimeout(240_000);
  const errors: string[] = [];
  await openBody(page, errors);
  // The toolbar's Pose button, as a mouse user starts the tool; the status line says what a click does.
  const poseButton = page.locator('#toolbar button[data-command="tool.pose"]');
  await poseButton.click();
  expect(await hook(page, (h) => h.pose.state().active)).toBe(true);
  await expect(poseButton).toHaveAttribute('aria-pressed', 'true');
  await expect(page.locator('#status .status-hint')).toContainText('click a joint to pick its bone');
  await clickJoint(page, WRIST);
  expect(await hook(page, (h) => h.state().selectedBone)).toBe(FOREARM);
  expect(await hook(page, (h) => h.pose.state().gizmo.visible)).toBe(true);
  await expect(page.locator('#status .status-hint')).toContainText('drag a ring of the gizmo to turn the bone in its own axes');
  const undoBefore: number = await hook(page, (h) => h.history().undo.length);
  const rest: number[] = await hook(page, (h) => h.pose.joints());

  // Drag the local z ring; the forearm turns about the gizmo's z axis, one undo step.
  const zAxis: number[] = await hook(page, (h) => h.pose.gizmoAxis(2));
  const worldBefore: number[] = await hook(page, (h) => h.pose.worldRotations());
  const grab = await grabRing(page, 2, 'Z');
  await dragRing(page, 2, grab.angle, grab.angle + 0.6);
  const worldAfter: number[] = await hook(page, (h) => h.pose.worldRotations());
  const turn = axisAngleOf(timesTransposed(worldAfter, 9 * FOREARM, worldBefore, 9 * FOREARM));
  expect(Math.abs(turn.angle), 'the drag turned the forearm').toBeGreaterThan(0.05);
  expect(norm(cross(turn.axis, zAxis)), 'about the ring’s axis').toBeLessThan(1e-6);
  const parentTurn = axisAngleOf(timesTransposed(worldAfter, 9 * UPPER_ARM, worldBefore, 9 * UPPER_ARM));
  expect(parentTurn.angle, 'the upper arm stays').toBeLessThan(1e-12);
  expect(await hook(page, (h) => h.history().undo.length)).toBe(undoBefore + 1);
  expect(await hook(page, (h) => h.pose.state().posed[19])).toBe(1);

  // Escape in the middle of a drag puts the bone back and makes no step.
  const posedBefore: number[] = await hook(page, (h) => h.pose.state().rotations);
  const again = await grabRing(page, 2, 'Z');
  await dragRing(page, 2, again.angle, again.angle - 0.5, false);
  expect(await hook(page, (h) => h.pose.state().toolState)).toBe('rotating');
  await page.keyboard.press('Escape');
  await page.mouse.up();
  expect(await hook(page, (h) => h.pose.state().rotations)).toEqual(posedBefore);
  expect(await hook(page, (h) => h.pose.shownRotations().slice(9 * 19, 9 * 19 + 9))).toEqual(
    posedBefore.slice(9 * FOREARM, 9 * FOREARM + 9),
  );
  expect(await hook(page, (h) => h.history().undo.length)).toBe(undoBefore + 1);

  // Exactly 90° about the bone's own x axis by the numbers: the wrist goes to elbow + length · (the bone's z axis).
  await page.fill('#pose-panel .pose-angle[data-axis="X"]', '90');
  await page.fill('#pose-panel .pose-angle[data-axis="Y"]', '0');
  await page.fill('#pose-panel .pose-angle[data-axis="Z"]', '0');
  await page.press('#pose-panel .pose-angle[data-axis="Z"]', 'Enter');
  expect(await hook(page, (h) => h.history().undo.length)).toBe(undoBefore + 2);
  const posed: number[] = await hook(page, (h) => h.pose.joints());
  const diagonal: number = await hook(page, (h) => h.boundingDiagonal());
  // The bone's rest frame: y along it, x = y × world z, z = x × y (nothing above the forearm is posed: its parents are at rest).
  const restElbow = joint(rest, ELBOW);
  const along = sub(joint(rest, WRIST), restElbow);
  const y = unit(along);
  const x = unit(cross(y, [0, 0, 1]));
  const z = cross(x, y);
  const expected = add(joint(posed, ELBOW), scale(z, norm(along)));
  expect(norm(sub(joint(posed, WRIST), expected)) / diagonal, 'the wrist turned exactly 90° about the bone’s x axis').toBeLessThan(1e-9);
  expect(norm(sub(joint(posed, ELBOW), restElbow))).toBeLessThan(1e-12);
  const shownAngles = await page.$$eval('#pose-panel .pose-angle', (inputs) => inputs.map((i) => Number((i as HTMLInputElement).value)));
  expect(shownAngles).toEqual([90, 0, 0]);

  // While the rest pose is shown the numbers are off and blank (they would be the rest pose's, and a turn typed there
  // would be taken against it); Rest off again shows the pose's numbers.
  const angleFields = () =>
    page.$$eval('#pose-panel .pose-angle', (inputs) =>
      inputs.map((i) => [(i as HTMLInputElement).disabled, (i as HTMLInputElement).value]),
    );
  await page.click('#pose-panel button[data-command="pose.rest"]');
  expect(await hook(page, (h) => h.pose.state().rest)).toBe(true);
  expect(await angleFields()).toEqual([
    [true, ''],
    [true, ''],
    [true, ''],
  ]);
  await expect(page.locator('#pose-panel .pose-space-note')).toContainText('The rest pose is shown');
  await expect(page.locator('#status .status-hint')).toContainText('the rest pose is shown');
  await page.click('#pose-panel button[data-command="pose.rest"]');
  expect(await angleFields()).toEqual([
    [false, '90'],
    [false, '0'],
    [false, '0'],
  ]);
  expect(await hook(page, (h) => h.history().undo.length), 'the rest toggle is no step').toBe(undoBefore + 2);

  // The GPU-skinned mesh equals the CPU reference in every method.
  for (const method of ['lbs', 'dqs', 'perface', 'blend']) {
    await page.evaluate((m) => (window as any).__rigwright.setMethod(m), method);
    const { maxError } = await gpuCpuDeviation(page);
    expect(maxError / diagonal, `${method}: GPU = CPU`).toBeLessThanOrEqual(1e-4);
  }

  // Out of the number field, keys are shortcuts again. Paint mode paints on the posed mesh, the pose kept.
  await page.locator('#pose-panel .pose-angle[data-axis="Z"]').blur();
  await page.keyboard.press('p');
  expect(await hook(page, (h) => h.pose.state().active)).toBe(false);
  const surface: number[] = await hook(page, (h) => h.paint.surfacePositions());
  const cpu: number[] = await hook(page, (h) => h.cpuPositions());
  expect(surface, 'the brush paints on the posed mesh').toEqual(cpu);
  expect(await hook(page, (h) => h.pose.joints())).toEqual(posed);
  await page.keyboard.press('r');

  // Undo both steps: the body is at rest again.
  await page.keyboard.press('Control+z');
  await page.keyboard.press('Control+z');
  expect(await hook(page, (h) => h.pose.state().posed)).toBeNull();
  expect(await hook(page, (h) => h.pose.joints())).toEqual(rest);
  expect(errors).toEqual([]);
});

test('IK: drag the wrist to a point in the view plane; it reaches it and the elbow keeps its bend plane; undo restores', async ({
  page,
}) => {
  test.setTimeout(240_000);
  const errors: string[] = [];
  await openBody(page, errors);
  await page.keyboard.press('r');
  await clickJoint(page, WRIST);
  expect(await hook(page, (h) => h.state().selectedBone)).toBe(FOREARM);
  // Bend the elbow first (by the numbers), so the arm has a bend plane to keep.
  await page.fill('#pose-panel .pose-angle[data-axis="X"]', '0');
  await page.fill('#pose-panel .pose-angle[data-axis="Y"]', '0');
  await page.fill('#pose-panel .pose-angle[data-axis="Z"]', '50');
  await page.press('#pose-panel .pose-angle[data-axis="Z"]', 'Enter');
  // Out of the number field, keys are shortcuts again.
  await page.locator('#pose-panel .pose-angle[data-axis="Z"]').blur();
  await page.keyboard.press('Shift+I');
  expect(await hook(page, (h) => h.pose.state().ik)).toBe(true);
  expect(await hook(page, (h) => h.pose.state().gizmo.visible)).toBe(false);

  const before: number[] = await hook(page, (h) => h.pose.joints());
  const a = joint(before, SHOULDER);
  const b = joint(before, ELBOW);
  const c = joint(before, WRIST);
  // The arm is bent (50° at the elbow), so it has a bend plane for the drag to keep: the sine of the angle at the
  // shoulder between the upper arm and the shoulder–wrist line is well away from 0.
  const bendSine = norm(cross(sub(b, a), sub(c, a))) / (norm(sub(b, a)) * norm(sub(c, a)));
  expect(bendSine, 'the arm is bent before the drag').toBeGreaterThan(0.2);
  const undoBefore: number = await hook(page, (h) => h.history().undo.length);
  const start = await page.evaluate((j) => (window as any).__rigwright.jointScreenPosition(j), WRIST);
  const shoulderOnPage = await page.evaluate((j) => (window as any).__rigwright.jointScreenPosition(j), SHOULDER);
  // A third of the way toward the shoulder on screen: within reach.
  const end = { x: start.x + (shoulderOnPage.x - start.x) / 3, y: start.y + (shoulderOnPage.y - start.y) / 3 - 10 };
  await page.mouse.move(start.x, start.y);
  await page.mouse.down();
  for (let k = 1; k <= 10; k++) await page.mouse.move(start.x + ((end.x - start.x) * k) / 10, start.y + ((end.y - start.y) * k) / 10);
  expect(await hook(page, (h) => h.pose.state().toolState)).toBe('reaching');
  await page.mouse.up();
  expect(await hook(page, (h) => h.history().undo.length)).toBe(undoBefore + 1);

  // The target: where the ray under the pointer meets the view plane through the wrist as it was.
  const camera = await hook(page, (h) => h.look.camera());
  const ray = pageRay(camera, end.x, end.y);
  const n = viewDirection(camera);
  const t = dot(sub(c, ray.origin), n) / dot(ray.direction, n);
  const target = add(ray.origin, scale(ray.direction, t));
  const after: number[] = await hook(page, (h) => h.pose.joints());
  const diagonal: number = await hook(page, (h) => h.boundingDiagonal());
  expect(norm(sub(joint(after, WRIST), target)) / diagonal, 'the wrist is on the target').toBeLessThan(1e-6);
  expect(norm(sub(joint(after, SHOULDER), a)) / diagonal, 'the shoulder stays').toBeLessThan(1e-9);
  // The elbow lies in the plane through the shoulder and the target that contains the old bend direction.
  const line = unit(sub(c, a));
  const bend = unit(sub(sub(b, a), scale(line, dot(sub(b, a), line))));
  const pole = add(b, scale(bend, norm(sub(b, a)) + norm(sub(c, b))));
  const plane = unit(cross(sub(target, a), sub(pole, a)));
  expect(Math.abs(dot(sub(joint(after, ELBOW), a), plane)) / diagonal, 'the elbow is in the pole plane').toBeLessThan(1e-6);
  const state = await hook(page, (h) => h.pose.state());
  expect(
    state.posed.reduce((s: number, f: number) => s + f, 0),
    'the forearm and the upper arm posed',
  ).toBe(2);
  expect(state.posed[UPPER_ARM] + state.posed[FOREARM]).toBe(2);
  const { maxError } = await gpuCpuDeviation(page);
  expect(maxError / diagonal, 'GPU = CPU after IK').toBeLessThanOrEqual(1e-4);

  // The pole toward the view: in front of the elbow as posed, toward the camera, as far as the arm reaches.
  await page.click('#pose-panel button[data-command="pose.poleFromView"]');
  const note = (await page.locator('#pose-panel .pose-pole-note').textContent()) ?? '';
  const shown = /through \((-?[\d.]+), (-?[\d.]+), (-?[\d.]+)\)/.exec(note);
  expect(shown, `the note gives the pole (${note})`).not.toBeNull();
  const elbowNow = joint(after, ELBOW);
  const reach = norm(sub(elbowNow, joint(after, SHOULDER))) + norm(sub(joint(after, WRIST), elbowNow));
  const expectedPole = sub(elbowNow, scale(n, reach));
  for (let k = 0; k < 3; k++) expect(Math.abs(Number(shown![k + 1]) - expectedPole[k]), `pole coordinate ${k}`).toBeLessThan(1e-3);
  await page.click('#pose-panel button[data-command="pose.pole"]');
  await expect(page.locator('#pose-panel .pose-pole-note')).toContainText('the bend plane the limb has');
  expect(await hook(page, (h) => h.history().undo.length), 'pole settings are no steps').toBe(undoBefore + 1);

  await page.keyboard.press('Control+z');
  const undone: number[] = await hook(page, (h) => h.pose.joints());
  expect(norm(sub(joint(undone, WRIST), c))).toBeLessThan(1e-12);
  expect(errors).toEqual([]);
});

test('gizmo pose saved in a project and opened again: the bones posed by hand come back bit for bit', async ({ page }) => {
  test.setTimeout(240_000);
  const errors: string[] = [];
  // This page cannot write files itself: Save downloads the project.
  await page.addInitScript(() => {
    delete (window as any).showSaveFilePicker;
    delete (window as any).showOpenFilePicker;
  });
  await openBody(page, errors);
  await page.keyboard.press('r');
  await clickJoint(page, WRIST);
  await page.fill('#pose-panel .pose-angle[data-axis="X"]', '30');
  await page.fill('#pose-panel .pose-angle[data-axis="Y"]', '-20');
  await page.fill('#pose-panel .pose-angle[data-axis="Z"]', '45');
  await page.press('#pose-panel .pose-angle[data-axis="Z"]', 'Enter');
  await page.locator('#pose-panel .pose-angle[data-axis="Z"]').blur();
  const posed = await hook(page, (h) => h.pose.state());
  expect(posed.posed[FOREARM]).toBe(1);
  const joints: number[] = await hook(page, (h) => h.pose.joints());

  const download = page.waitForEvent('download');
  await page.keyboard.press('Control+s');
  const file = await download;
  const saved = path.join(mkdtempSync(path.join(tmpdir(), 'rigwright-pose-')), file.suggestedFilename());
  await file.saveAs(saved);
  await page.evaluate(() => (window as any).__rigwright.project.idle());
  // Reset the pose so that what shows after opening can only come from the file.
  await page.keyboard.press('Alt+Shift+R');
  expect(await hook(page, (h) => h.pose.state().posed)).toBeNull();

  expect(await hook(page, (h) => h.history().undo.length)).toBe(2);
  // Opening is a new scene: its history starts over.
  await page.setInputFiles('#file-input', saved);
  // The reset is not saved: the page asks first, and Discard lets it go.
  await page.locator('#save-changes-dialog button', { hasText: 'Discard' }).click();
  await page.waitForFunction(() => (window as any).__rigwright.history().undo.length === 0);
  await page.evaluate(() => (window as any).__rigwright.project.idle());
  const opened = await hook(page, (h) => h.pose.state());
  expect(opened.posed, 'the posed flags').toEqual(posed.posed);
  expect(opened.rotations, 'their rotations, bit for bit').toEqual(posed.rotations);
  expect(await hook(page, (h) => h.pose.joints()), 'the same pose on screen').toEqual(joints);
  expect(errors).toEqual([]);
});

test('gizmo and IK flex the elephant, a mesh without a pose file: GPU mesh equals the CPU reference', async ({ page }) => {
  test.setTimeout(240_000);
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  const elephant = (name: string) => dataFile('libigl', name);
  await loadFiles(page, [elephant('elephant.obj'), elephant('elephant.tgf'), elephant('elephant-weights.dmat')], 'elephant.obj');
  expect(await hook(page, (h) => h.state().error)).toBeNull();
  expect(await hook(page, (h) => h.state().poseKind)).toBe('rest');
  const { joints, bones, parents } = buildSkeleton(readTgf(readFileSync(elephant('elephant.tgf'), 'utf8'), 'elephant.tgf'), 'elephant.tgf');
  // A leaf bone with a parent whose end joint stands clear of every other joint on screen: a click there picks it.
  const onPage: { x: number; y: number }[] = await page.evaluate(
    (count) => Array.from({ length: count }, (_, j) => (window as any).__rigwright.jointScreenPosition(j)),
    joints.length / 3,
  );
  let bone = -1;
  let clearance = 0;
  for (let b = 0; b < parents.length; b++) {
    const end = bones[2 * b + 1];
    if (parents[b] < 0 || Array.from(bones).some((j, k) => k % 2 === 0 && j === end)) continue;
    const gap = Math.min(...onPage.map((p, j) => (j === end ? Infinity : Math.hypot(p.x - onPage[end].x, p.y - onPage[end].y))));
    if (gap > clearance) [bone, clearance] = [b, gap];
  }
  expect(clearance, 'a leaf joint stands clear on screen').toBeGreaterThan(12);
  const end = bones[2 * bone + 1];
  await page.keyboard.press('r');
  await clickJoint(page, end);
  expect(await hook(page, (h) => h.state().selectedBone)).toBe(bone);
  const rest: number[] = await hook(page, (h) => h.pose.joints());

  await page.fill('#pose-panel .pose-angle[data-axis="X"]', '40');
  await page.press('#pose-panel .pose-angle[data-axis="X"]', 'Enter');
  await page.locator('#pose-panel .pose-angle[data-axis="X"]').blur();
  const flexed: number[] = await hook(page, (h) => h.pose.joints());
  const diagonal: number = await hook(page, (h) => h.boundingDiagonal());
  expect(norm(sub(joint(flexed, end), joint(rest, end))) / diagonal, 'the bone turned').toBeGreaterThan(1e-3);
  for (const method of ['lbs', 'dqs']) {
    await page.evaluate((m) => (window as any).__rigwright.setMethod(m), method);
    const { maxError } = await gpuCpuDeviation(page);
    expect(maxError / diagonal, `${method}: GPU = CPU`).toBeLessThanOrEqual(1e-4);
  }

  // IK: the end joint dragged 25 px toward its parent's start on screen reaches the view-plane point under the pointer.
  await page.keyboard.press('Shift+I');
  const start: { x: number; y: number } = await page.evaluate((j) => (window as any).__rigwright.jointScreenPosition(j), end);
  const root: { x: number; y: number } = await page.evaluate(
    (j) => (window as any).__rigwright.jointScreenPosition(j),
    bones[2 * parents[bone]],
  );
  const length = Math.hypot(root.x - start.x, root.y - start.y);
  const to = { x: start.x + (25 * (root.x - start.x)) / length, y: start.y + (25 * (root.y - start.y)) / length };
  await page.mouse.move(start.x, start.y);
  await page.mouse.down();
  for (let k = 1; k <= 5; k++) await page.mouse.move(start.x + ((to.x - start.x) * k) / 5, start.y + ((to.y - start.y) * k) / 5);
  await page.mouse.up();
  const camera = await hook(page, (h) => h.look.camera());
  const ray = pageRay(camera, to.x, to.y);
  const n = viewDirection(camera);
  const t = dot(sub(joint(flexed, end), ray.origin), n) / dot(ray.direction, n);
  const target = add(ray.origin, scale(ray.direction, t));
  const reached: number[] = await hook(page, (h) => h.pose.joints());
  expect(norm(sub(joint(reached, end), target)) / diagonal, 'the end joint is on the target').toBeLessThan(1e-6);
  const { maxError } = await gpuCpuDeviation(page);
  expect(maxError / diagonal, 'GPU = CPU after IK').toBeLessThanOrEqual(1e-4);
  expect(await hook(page, (h) => h.history().undo.length)).toBe(2);
  expect(errors).toEqual([]);
});
