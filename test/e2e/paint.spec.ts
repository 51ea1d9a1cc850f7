/**
 * Weight painting as an artist does it, with real mouse events: paint mode on the hand, a stroke raises the selected
 * bone's weight near the stroke and nowhere far from it, every vertex still sums to 1, undo restores the weights bit
 * for bit and redo re-applies them; Escape during a stroke restores the weights; on the symmetric body, a stroke with
 * x symmetry (matched in a worker) also paints the mirrored region on the mirrored bone, and the Mirror command
 * copies a one-sided stroke across; a mirror match can be cancelled. Uses `window.__rigwright.paint`.
 */
import { test, expect, type Page } from '@playwright/test';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { artifactsDir, dataFile, gpuCpuDeviation, loadFiles, openApp } from './app-driver.ts';
import { readOff } from '../../workers/formats/off.ts';

const hook = (page: Page) => page.evaluate(() => (window as any).__rigwright.state());
const weights = (page: Page): Promise<number[]> => page.evaluate(() => (window as any).__rigwright.paint.weightsSnapshot());

async function load(page: Page, files: string[], mesh: string): Promise<void> {
  await loadFiles(page, files, mesh);
  expect((await hook(page)).error).toBeNull();
}

/** The screen point of the posed vertex nearest the mesh's screen centre that the brush hits (canvas centre). */
async function canvasCentre(page: Page): Promise<{ x: number; y: number }> {
  const box = (await page.locator('canvas').first().boundingBox())!;
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

async function stroke(page: Page, from: { x: number; y: number }, dx: number, dy: number): Promise<void> {
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(from.x + dx, from.y + dy, { steps: 8 });
  await page.mouse.up();
}

function rowSums(w: number[], nb: number): number[] {
  const sums: number[] = [];
  for (let o = 0; o < w.length; o += nb) sums.push(w.slice(o, o + nb).reduce((a, b) => a + b, 0));
  return sums;
}

test('hand: a stroke raises the bone near it only, sums stay 1, undo is exact, Escape cancels', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  await load(page, [dataFile('hand/hand.off'), dataFile('hand/hand.tgf')], 'hand.off');
  await page.evaluate(() => (window as any).__rigwright.pause());
  await page.keyboard.press('p');
  expect((await page.evaluate(() => (window as any).__rigwright.paint.state())).state).toBe('idle');
  await expect(page.locator('#paint-panel')).toBeVisible();
  const { boneCount: nb } = await hook(page);
  const diagonal: number = await page.evaluate(() => (window as any).__rigwright.boundingDiagonal());

  // Paint the bone that holds the least weight under the cursor, so a raise is visible.
  const centre = await canvasCentre(page);
  await page.evaluate(() => (window as any).__rigwright.paint.setBrush({ mode: 'add', strength: 0.5, radius: 30 }));
  const before = await weights(page);
  await page.evaluate(() => (window as any).__rigwright.paint.selectBone(0));
  const bone: number = (await hook(page)).selectedBone;
  expect(bone).toBeGreaterThanOrEqual(0);
  await stroke(page, { x: centre.x - 40, y: centre.y }, 80, 0);
  const after = await weights(page);
  const dabs: number[] = await page.evaluate(() => (window as any).__rigwright.paint.strokeWorldPositions());
  expect(dabs.length).toBeGreaterThan(6);
  const posed: number[] = await page.evaluate(() => (window as any).__rigwright.paint.posedPositions());

  const V = before.length / nb;
  let raised = 0;
  let farChanged = 0;
  let nearestRaise = 0;
  for (let v = 0; v < V; v++) {
    let nearest = Infinity;
    for (let d = 0; d < dabs.length; d += 3) {
      nearest = Math.min(nearest, Math.hypot(posed[3 * v] - dabs[d], posed[3 * v + 1] - dabs[d + 1], posed[3 * v + 2] - dabs[d + 2]));
    }
    const changed = before.slice(v * nb, v * nb + nb).some((w, b) => w !== after[v * nb + b]);
    if (after[v * nb + bone] > before[v * nb + bone] + 1e-6) {
      raised++;
      if (nearest < 0.01 * diagonal) nearestRaise++;
    }
    if (changed && nearest > 0.2 * diagonal) farChanged++;
  }
  expect(raised, 'the stroke raised the bone somewhere').toBeGreaterThan(5);
  expect(nearestRaise, 'right under the stroke').toBeGreaterThan(0);
  expect(farChanged, 'nothing far from the stroke changed').toBe(0);
  expect(Math.max(...rowSums(after, nb).map((sum) => Math.abs(sum - 1))), 'every vertex sums to 1').toBeLessThan(1e-5);

  mkdirSync(artifactsDir, { recursive: true });
  await page.mouse.move(centre.x, centre.y + 30);
  await page.waitForTimeout(100);
  await page.screenshot({ path: path.join(artifactsDir, 'hand-paint.png') });

  // Undo restores bit for bit; redo re-applies bit for bit.
  await page.keyboard.press('Control+z');
  expect(await weights(page)).toEqual(before);
  await page.keyboard.press('Control+Shift+z');
  expect(await weights(page)).toEqual(after);

  // Escape during a stroke puts the weights back and adds no undo step.
  const steps = (await page.evaluate(() => (window as any).__rigwright.paint.state())).undoSteps;
  await page.mouse.move(centre.x - 40, centre.y + 10);
  await page.mouse.down();
  await page.mouse.move(centre.x + 40, centre.y + 10, { steps: 6 });
  expect((await page.evaluate(() => (window as any).__rigwright.paint.state())).state).toBe('painting');
  await page.keyboard.press('Escape');
  await page.mouse.up();
  expect(await weights(page)).toEqual(after);
  expect((await page.evaluate(() => (window as any).__rigwright.paint.state())).undoSteps).toBe(steps);

  // Front faces only: with a brush wide enough to reach the back of the hand, the same stroke through the mesh
  // also raises vertices farther from the camera, and the front-only stroke raised none that it did not.
  await page.keyboard.press('Control+z');
  expect(await weights(page)).toEqual(before);
  const wideStroke = async (throughMesh: boolean): Promise<number[]> => {
    await page.evaluate((t) => (window as any).__rigwright.paint.setBrush({ radius: 90, throughMesh: t }), throughMesh);
    await stroke(page, { x: centre.x - 40, y: centre.y }, 80, 0);
    const result = await weights(page);
    await page.keyboard.press('Control+z');
    return result;
  };
  const through = await wideStroke(true);
  const frontOnly = await wideStroke(false);
  expect(await weights(page)).toEqual(before);
  const eye: number[] = await page.evaluate(() => (window as any).__rigwright.paint.cameraPosition());
  const toEye = (v: number) => Math.hypot(posed[3 * v] - eye[0], posed[3 * v + 1] - eye[1], posed[3 * v + 2] - eye[2]);
  const front: number[] = [];
  const backOnly: number[] = [];
  const frontNotThrough: number[] = [];
  for (let v = 0; v < V; v++) {
    const raisedFront = frontOnly[v * nb + bone] > before[v * nb + bone] + 1e-6;
    const raisedThrough = through[v * nb + bone] > before[v * nb + bone] + 1e-6;
    if (raisedFront) front.push(v);
    if (raisedFront && !raisedThrough) frontNotThrough.push(v);
    if (!raisedFront && raisedThrough) backOnly.push(v);
  }
  expect(frontNotThrough).toEqual([]);
  expect(backOnly.length, 'through the mesh reaches more vertices').toBeGreaterThan(5);
  const mean = (list: number[]) => list.reduce((s, v) => s + toEye(v), 0) / list.length;
  expect(mean(backOnly), 'the extra vertices lie behind the painted ones').toBeGreaterThan(mean(front));
  // Painting is deterministic: the first stroke again gives the same weights.
  await page.evaluate(() => (window as any).__rigwright.paint.setBrush({ radius: 30, throughMesh: false }));
  await stroke(page, { x: centre.x - 40, y: centre.y }, 80, 0);
  expect(await weights(page)).toEqual(after);

  // A click on a joint picks that joint's bone and paints nothing.
  const picked = await page.evaluate(() => {
    const h = (window as any).__rigwright;
    const count = h.state().jointCount as number;
    const box = document.querySelector('canvas')!.getBoundingClientRect();
    for (let j = count - 1; j >= 0; j--) {
      const p = h.jointScreenPosition(j);
      if (p.x > box.left + 20 && p.x < box.right - 20 && p.y > box.top + 20 && p.y < box.bottom - 20) return { joint: j, ...p };
    }
    return null;
  });
  expect(picked, 'a joint is on screen').not.toBeNull();
  await page.evaluate(() => (window as any).__rigwright.paint.selectBone(0));
  await page.mouse.click(picked!.x, picked!.y);
  expect((await hook(page)).selectedBone, `clicked joint ${picked!.joint}`).not.toBe(0);
  expect(await weights(page)).toEqual(after);
  expect((await page.evaluate(() => (window as any).__rigwright.paint.state())).undoSteps).toBe(steps);

  // Whole-mesh command as one undo step.
  await page.evaluate(() => (window as any).__rigwright.paint.command('smooth'));
  expect(Math.max(...rowSums(await weights(page), nb).map((sum) => Math.abs(sum - 1)))).toBeLessThan(1e-5);
  await page.keyboard.press('Control+z');
  expect(await weights(page)).toEqual(after);

  // The GPU skins with the painted weights.
  const deviation = await page.evaluate(async () => {
    const h = (window as any).__rigwright;
    const gpu: number[] = await h.gpuPositions();
    const cpu: number[] = h.cpuPositions();
    let max = 0;
    for (let i = 0; i < cpu.length; i++) max = Math.max(max, Math.abs(gpu[i] - cpu[i]));
    return max;
  });
  expect(deviation).toBeLessThan(1e-4 * diagonal);
  expect(errors).toEqual([]);
});

/**
 * Vertices whose `bone` weight rose by more than `by` between two snapshots.
 */
function raised(before: number[], after: number[], nb: number, bone: number, by = 1e-6): number[] {
  const out: number[] = [];
  for (let v = 0; v < before.length / nb; v++) if (after[v * nb + bone] > before[v * nb + bone] + by) out.push(v);
  return out;
}

/** Those of `vertices` not within 2% of the diagonal of the mirror image (x ↦ −x) of some vertex of `sources`. */
function notMirrorOf(vertices: number[], sources: number[], posed: number[], diagonal: number): number[] {
  return vertices.filter((v) => {
    if (!(posed[3 * v] < -0.05)) return true;
    let nearest = Infinity;
    for (const u of sources)
      nearest = Math.min(
        nearest,
        Math.hypot(posed[3 * v] + posed[3 * u], posed[3 * v + 1] - posed[3 * u + 1], posed[3 * v + 2] - posed[3 * u + 2]),
      );
    return nearest > 0.02 * diagonal;
  });
}

test('hand, posed: the brush paints on the posed surface, which follows the new weights after the stroke and after undo', async ({
  page,
}) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  await load(page, [dataFile('hand/hand.off'), dataFile('hand/hand.tgf'), dataFile('hand/hand-pose_matrot.dmat')], 'hand.off');
  await page.evaluate(() => {
    const h = (window as any).__rigwright;
    h.pause();
    h.setTime(33);
  });
  await page.keyboard.press('p');
  const diagonal: number = await page.evaluate(() => (window as any).__rigwright.boundingDiagonal());
  const rest = readOff(readFileSync(dataFile('hand/hand.off'), 'utf8'), 'hand.off').mesh.positions;
  const surface = (): Promise<number[]> => page.evaluate(() => (window as any).__rigwright.paint.surfacePositions());
  const posed = (): Promise<number[]> => page.evaluate(() => (window as any).__rigwright.paint.posedPositions());
  const before = await surface();
  expect(before, 'the surface is the posed mesh').toEqual(await posed());

  // hand.tgf: bone 10 runs from joint 0 to joint 1 (the forearm); joints 10 → 11 → 12 run along a bent finger.
  // Weight moved from the finger's bones to the forearm's moves the posed finger.
  await page.evaluate(() => {
    const paint = (window as any).__rigwright.paint;
    paint.selectBone(10);
    paint.setBrush({ mode: 'add', strength: 0.8, radius: 20 });
  });
  const [a, b] = await page.evaluate(() => [10, 12].map((j) => (window as any).__rigwright.jointScreenPosition(j)));
  await stroke(page, { x: 0.8 * a.x + 0.2 * b.x, y: 0.8 * a.y + 0.2 * b.y }, 0.6 * (b.x - a.x), 0.6 * (b.y - a.y));
  const dabs: number[] = await page.evaluate(() => (window as any).__rigwright.paint.strokeWorldPositions());
  expect(dabs.length).toBeGreaterThan(6);
  const nearest = (positions: ArrayLike<number>, d: number) => {
    let best = Infinity;
    for (let v = 0; v < positions.length; v += 3)
      best = Math.min(best, Math.hypot(positions[v] - dabs[d], positions[v + 1] - dabs[d + 1], positions[v + 2] - dabs[d + 2]));
    return best;
  };
  let offRest = 0;
  for (let d = 0; d < dabs.length; d += 3) {
    expect(nearest(before, d), 'every dab lies on the posed surface').toBeLessThan(0.01 * diagonal);
    if (nearest(rest, d) > 0.03 * diagonal) offRest++;
  }
  expect(offRest, 'dabs away from the rest surface: the brush used the pose').toBeGreaterThan(0);

  // The next move over the mesh brings the surface up to date: only the painted vertices are skinned again, and
  // the result equals skinning every vertex afresh.
  const after = await surface();
  expect(after).toEqual(await posed());
  let moved = 0;
  for (let i = 0; i < after.length; i += 3)
    if (Math.hypot(after[i] - before[i], after[i + 1] - before[i + 1], after[i + 2] - before[i + 2]) > 1e-3 * diagonal) moved++;
  expect(moved, 'the stroke moved the posed finger').toBeGreaterThan(5);
  await page.keyboard.press('Control+z');
  const undone = await surface();
  expect(undone).toEqual(await posed());
  // Painting holds the weights as float32 (PaintSession), so the surface comes back up to their rounding.
  expect(Math.max(...undone.map((x, i) => Math.abs(x - before[i]))), 'undo puts the surface back').toBeLessThan(1e-6 * diagonal);

  // Two influences per vertex, then a stroke: painting (limit 4) widens them, which gives the GPU a new influence
  // texture; the GPU skins the painted weights as the CPU does, every vertex included (not only the stroke's rows).
  await page.evaluate(() => (window as any).__rigwright.setInfluences(2));
  await stroke(page, { x: 0.8 * a.x + 0.2 * b.x, y: 0.8 * a.y + 0.2 * b.y }, 0.6 * (b.x - a.x), 0.6 * (b.y - a.y));
  const { maxError: deviation } = await gpuCpuDeviation(page);
  expect(deviation / diagonal, 'GPU equals CPU after painting').toBeLessThan(1e-4);
  expect(errors).toEqual([]);
});

test('body: x symmetry from the panel paints the mirrored region on the mirrored bone; Mirror +x → −x copies a one-sided stroke', async ({
  page,
}) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  await load(page, [dataFile('context-aware/reference.obj'), dataFile('context-aware/skeleton.tgf')], 'reference.obj');
  await page.evaluate(() => (window as any).__rigwright.pause());
  await page.keyboard.press('p');
  // Symmetry from the panel: the mirror match runs in a worker, then the bone pairs appear.
  await page.selectOption('#paint-panel .paint-symmetry', '0');
  await page.waitForFunction(() => (window as any).__rigwright.paint.state().bonePairs !== null);
  const pairs: number[] = (await page.evaluate(() => (window as any).__rigwright.paint.state())).bonePairs;
  const { boneCount: nb } = await hook(page);
  const diagonal: number = await page.evaluate(() => (window as any).__rigwright.boundingDiagonal());
  // skeleton.tgf: bone 15 is the upper arm on +x (joints 16 → 18, x 0.18 → 0.45), bone 16 its twin on −x.
  const side = 15;
  const twin = 16;
  expect(pairs[side], 'the upper arms are paired by their mirrored joints').toBe(twin);
  expect(pairs[twin]).toBe(side);
  await page.evaluate((b) => (window as any).__rigwright.paint.selectBone(b), side);
  const before = await weights(page);
  await page.evaluate(() => (window as any).__rigwright.paint.setBrush({ mode: 'add', strength: 0.6, radius: 25 }));
  const [shoulder, elbow] = await page.evaluate(() => [16, 18].map((j) => (window as any).__rigwright.jointScreenPosition(j)));
  const from = { x: 0.7 * shoulder.x + 0.3 * elbow.x, y: 0.7 * shoulder.y + 0.3 * elbow.y };
  const along = { x: 0.4 * (elbow.x - shoulder.x), y: 0.4 * (elbow.y - shoulder.y) };
  await stroke(page, from, along.x, along.y);
  const after = await weights(page);
  // No pose is loaded, so the posed positions are the rest positions the mirror map was built on.
  const posed: number[] = await page.evaluate(() => (window as any).__rigwright.paint.posedPositions());
  const raisedSide = raised(before, after, nb, side);
  const raisedPair = raised(before, after, nb, twin);
  expect(raisedSide.length).toBeGreaterThan(3);
  expect(raisedPair.length, 'the mirrored bone was painted too').toBeGreaterThan(3);
  expect(
    raisedSide.filter((v) => !(posed[3 * v] > 0.05)),
    'the stroke stayed on the +x arm',
  ).toEqual([]);
  // Every vertex raised on the twin lies on the −x arm, within a few edge lengths of the mirror image of a painted one.
  expect(notMirrorOf(raisedPair, raisedSide, posed, diagonal), 'raised on the twin bone but not the mirror of a painted vertex').toEqual(
    [],
  );
  expect(raisedPair.length / raisedSide.length).toBeGreaterThan(0.5);
  expect(raisedPair.length / raisedSide.length).toBeLessThan(2);
  expect(Math.max(...rowSums(after, nb).map((sum) => Math.abs(sum - 1))), 'every vertex sums to 1').toBeLessThan(1e-5);

  // Undo, symmetry off, the same stroke paints the +x arm only; then "Mirror +x → −x" copies it to the twin.
  await page.keyboard.press('Control+z');
  expect(await weights(page)).toEqual(before);
  await page.selectOption('#paint-panel .paint-symmetry', '');
  await expect.poll(() => page.evaluate(() => (window as any).__rigwright.paint.state().bonePairs)).toBeNull();
  await stroke(page, from, along.x, along.y);
  const oneSided = await weights(page);
  const paintedOnly = raised(before, oneSided, nb, side);
  expect(paintedOnly.length).toBeGreaterThan(3);
  expect(raised(before, oneSided, nb, twin), 'no symmetry: the twin is untouched').toEqual([]);
  const steps = (await page.evaluate(() => (window as any).__rigwright.paint.state())).undoSteps;
  await page.getByRole('button', { name: 'Mirror +x → −x' }).click();
  await expect.poll(() => page.evaluate(() => (window as any).__rigwright.paint.state().undoSteps)).toBe(steps + 1);
  const mirrored = await weights(page);
  // The command copies the whole +x side, so the body's own slight asymmetries move a little too; the stroke is
  // what rises by more than a third of its largest raise.
  let largest = 0;
  for (const v of paintedOnly) largest = Math.max(largest, oneSided[v * nb + side] - before[v * nb + side]);
  const marked = raised(before, oneSided, nb, side, largest / 3);
  const copied = raised(oneSided, mirrored, nb, twin, largest / 3);
  expect(copied.length, 'the twin bone rose on the −x arm').toBeGreaterThan(3);
  expect(notMirrorOf(copied, paintedOnly, posed, diagonal), 'raised on the twin but not the mirror of a painted vertex').toEqual([]);
  expect(copied.length / marked.length).toBeGreaterThan(0.5);
  expect(copied.length / marked.length).toBeLessThan(2);
  // The +x side is the source and stays as painted.
  const V = before.length / nb;
  let sourceChanged = 0;
  for (let v = 0; v < V; v++)
    if (posed[3 * v] > 1e-3 && oneSided.slice(v * nb, v * nb + nb).some((w, b) => Math.abs(w - mirrored[v * nb + b]) > 1e-6))
      sourceChanged++;
  expect(sourceChanged, 'the +x side is unchanged').toBe(0);
  expect(Math.max(...rowSums(mirrored, nb).map((sum) => Math.abs(sum - 1))), 'every vertex sums to 1').toBeLessThan(1e-5);
  await page.keyboard.press('Control+z');
  expect(await weights(page), 'one undo takes the mirror back exactly').toEqual(oneSided);
  expect(errors).toEqual([]);
});

test('hand: a mirror match can be cancelled; the symmetry in use stays, and asking again matches', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  await load(page, [dataFile('hand/hand.off'), dataFile('hand/hand.tgf')], 'hand.off');
  await page.keyboard.press('p');
  // Asked and cancelled in one turn of the page, before the worker can answer.
  const cancelled = await page.evaluate(() => {
    const paint = (window as any).__rigwright.paint;
    void paint.setSymmetry(0);
    const running = paint.matching();
    paint.cancelMatching();
    return { running, after: paint.matching() };
  });
  expect(cancelled.running).toEqual({ axis: 0, fraction: 0 });
  expect(cancelled.after).toBeNull();
  await expect(page.locator('#paint-panel .paint-matching')).toBeHidden();
  await expect.poll(() => page.locator('#paint-panel .paint-symmetry').inputValue()).toBe('');
  expect((await page.evaluate(() => (window as any).__rigwright.paint.state())).bonePairs).toBeNull();
  await page.evaluate(() => (window as any).__rigwright.paint.setSymmetry(0));
  expect((await page.evaluate(() => (window as any).__rigwright.paint.state())).bonePairs).not.toBeNull();
  await expect(page.locator('#paint-panel .paint-symmetry')).toHaveValue('0');
  expect(errors).toEqual([]);
});
