/**
 * The brushes an artist reaches for, with real mouse: blur and relax strokes, a gradient dragged from A to B, and
 * flood fill, on the hand with a bone locked. Each is one named undo step; every vertex keeps partition of unity and
 * the locked bone keeps its weights; the gradient's weights are the brush's blend toward value·(1 − t) along the drag;
 * a flood fill limited to a selection says so in the panel and its undo step, and fills only the selection.
 */
import { test, expect, type Page } from '@playwright/test';
import { dataFile, loadFiles, openApp, pagePoint } from './app-driver.ts';

const weightsOf = (page: Page): Promise<number[]> => page.evaluate(() => (window as any).__rigwright.snapshot().weights);
const undoLabels = (page: Page): Promise<string[]> => page.evaluate(() => (window as any).__rigwright.history().undo);

async function drag(page: Page, from: { x: number; y: number }, to: { x: number; y: number }): Promise<void> {
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(to.x, to.y, { steps: 10 });
  await page.mouse.up();
}

/**
 * World points on the drawn mesh: the vertex nearest the middle of its bounding box, shifted along x by each of
 * `offsets` (fractions of the box's width), as the brush's surface has it (posed).
 */
function meshPoints(page: Page, offsets: number[]): Promise<number[][]> {
  return page.evaluate((offsets) => {
    const p: number[] = (window as any).__rigwright.paint.surfacePositions();
    const low = [Infinity, Infinity, Infinity];
    const high = [-Infinity, -Infinity, -Infinity];
    for (let i = 0; i < p.length; i++) {
      low[i % 3] = Math.min(low[i % 3], p[i]);
      high[i % 3] = Math.max(high[i % 3], p[i]);
    }
    const nearest = (q: number[]) => {
      let best = 0;
      let bestDistance = Infinity;
      for (let v = 0; v < p.length / 3; v++) {
        const d = (p[3 * v] - q[0]) ** 2 + (p[3 * v + 1] - q[1]) ** 2 + (p[3 * v + 2] - q[2]) ** 2;
        if (d < bestDistance) [best, bestDistance] = [v, d];
      }
      return [p[3 * best], p[3 * best + 1], p[3 * best + 2]];
    };
    const middle = low.map((l, k) => (l + high[k]) / 2);
    return offsets.map((f) => nearest([middle[0] + f * (high[0] - low[0]), middle[1], middle[2]]));
  }, offsets);
}

/** Every row sums to 1 with no negative weight; the locked bone's column is as it was (checked in one pass, then asserted). */
function expectInvariants(weights: number[], before: number[], boneCount: number, locked: number, what: string): void {
  const problems: string[] = [];
  for (let v = 0; v < weights.length / boneCount && problems.length < 5; v++) {
    let sum = 0;
    for (let b = 0; b < boneCount; b++) {
      const w = weights[v * boneCount + b];
      if (!(w >= 0)) problems.push(`vertex ${v} bone ${b} is ${w}`);
      sum += w;
    }
    if (!(Math.abs(sum - 1) < 1e-5)) problems.push(`vertex ${v} sums to ${sum}`);
    const o = v * boneCount + locked;
    if (!(Math.abs(weights[o] - before[o]) < 1e-6)) problems.push(`locked bone at vertex ${v}: ${weights[o]}, was ${before[o]}`);
  }
  expect(problems, what).toEqual([]);
}

test('brushes: blur, relax, gradient and flood fill, each one undo step that keeps locks and partition of unity', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  await loadFiles(page, [dataFile('hand', 'hand.off'), dataFile('hand', 'hand.tgf')], 'hand.off');
  await page.evaluate(() => (window as any).__rigwright.pause());
  expect((await page.evaluate(() => (window as any).__rigwright.state())).error).toBeNull();
  const boneCount: number = await page.evaluate(() => (window as any).__rigwright.skeleton().parents.length);
  const start = await weightsOf(page);

  await page.keyboard.press('p');
  const panel = page.locator('#paint-panel');
  await expect(panel).toBeVisible();
  // Bone 1 locked, bone 2 painted.
  await panel.locator('.paint-bone-name').nth(1).click();
  await panel.locator('.paint-lock').nth(1).click();
  await panel.locator('.paint-bone-name').nth(2).click();
  // Where the hand is drawn now: the vertices nearest its middle and a fifth of its width to either side.
  const [left, right] = await meshPoints(page, [-0.2, 0.2]);
  const strokeFrom = await pagePoint(page, left);
  const strokeTo = await pagePoint(page, right);

  // Blur and relax strokes across the middle of the hand.
  await panel.locator('button[data-mode="blur"]').click();
  await drag(page, strokeFrom, strokeTo);
  const blurred = await weightsOf(page);
  expect(blurred, 'the blur stroke changed weights').not.toEqual(start);
  expectInvariants(blurred, start, boneCount, 1, 'blur');
  await panel.locator('button[data-mode="relax"]').click();
  await drag(page, strokeTo, strokeFrom);
  const relaxed = await weightsOf(page);
  expect(relaxed, 'the relax stroke changed weights').not.toEqual(blurred);
  expectInvariants(relaxed, start, boneCount, 1, 'relax');
  expect(await undoLabels(page)).toEqual(['Lock bone 1', 'Blur stroke', 'Relax stroke']);

  // Gradient, linear falloff: a drag from A to B; Escape during a drag takes it back.
  await panel.locator('button[data-mode="gradient"]').click();
  await panel.locator('select.paint-falloff').selectOption('linear');
  // A and B on the hand: where the vertices nearest its middle and a quarter of its width to the side are drawn.
  const [a, b] = await meshPoints(page, [0, 0.25]);
  const from = await pagePoint(page, a);
  const to = await pagePoint(page, b);
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move((from.x + to.x) / 2, (from.y + to.y) / 2, { steps: 6 });
  // Mid-drag: the tool is in its gradient state and the gradient from A to the pointer is laid (the document gets it on release).
  const during = await page.evaluate(() => {
    const paint = (window as any).__rigwright.paint;
    return { state: paint.state().state as string, ends: (paint.strokeWorldPositions() as number[]).length };
  });
  expect(during, errors.join('\n')).toEqual({ state: 'gradient', ends: 6 });
  await page.keyboard.press('Escape');
  await page.mouse.up();
  expect(await weightsOf(page), 'Escape put the weights back').toEqual(relaxed);
  expect(await undoLabels(page)).toEqual(['Lock bone 1', 'Blur stroke', 'Relax stroke']);

  await drag(page, from, to);
  const graded = await weightsOf(page);
  expect(await undoLabels(page)).toEqual(['Lock bone 1', 'Blur stroke', 'Relax stroke', 'Gradient']);
  expectInvariants(graded, start, boneCount, 1, 'gradient');
  // Each changed vertex moved by the strength toward value·(1 − t), t its place along A → B (clamped to [0, 1]),
  // unless the locked bone left less room than that.
  const { ends, positions, strength, value } = await page.evaluate(() => {
    const h = (window as any).__rigwright;
    const { brush } = h.paint.state();
    return {
      ends: h.paint.strokeWorldPositions() as number[],
      positions: h.paint.surfacePositions() as number[],
      strength: brush.strength as number,
      value: brush.value as number,
    };
  });
  expect(ends).toHaveLength(6);
  const [ax, ay, az, bx, by, bz] = ends;
  const length2 = (bx - ax) ** 2 + (by - ay) ** 2 + (bz - az) ** 2;
  let changed = 0;
  let checked = 0;
  const wrong: string[] = [];
  for (let v = 0; v < graded.length / boneCount; v++) {
    const o = v * boneCount + 2;
    if (graded[o] === relaxed[o]) continue;
    changed++;
    const t =
      ((positions[3 * v] - ax) * (bx - ax) + (positions[3 * v + 1] - ay) * (by - ay) + (positions[3 * v + 2] - az) * (bz - az)) / length2;
    const target = value * Math.min(1, Math.max(0, 1 - t));
    const expected = relaxed[o] + strength * (target - relaxed[o]);
    if (expected > 1 - graded[v * boneCount + 1]) continue;
    checked++;
    if (!(Math.abs(graded[o] - expected) < 1e-5)) wrong.push(`vertex ${v}: ${graded[o]}, expected ${expected} (t = ${t})`);
  }
  expect(wrong.slice(0, 5), 'the gradient is the blend toward value·(1 − t)').toEqual([]);
  expect(changed, 'the gradient reached vertices').toBeGreaterThan(20);
  expect(checked, 'most were below the room the lock leaves').toBeGreaterThan(changed / 2);

  // Flood fill with Set at the set value 1: the bone takes all the room the locked bone leaves, on every vertex.
  await panel.locator('button[data-mode="set"]').click();
  await expect(panel.locator('.paint-flood-scope'), 'no vertex selected: the fill is the whole mesh').toHaveText('whole mesh');
  await panel.getByRole('button', { name: 'Flood fill', exact: true }).click();
  expect(await undoLabels(page)).toEqual(['Lock bone 1', 'Blur stroke', 'Relax stroke', 'Gradient', 'Flood fill (set 1)']);
  const flooded = await weightsOf(page);
  expectInvariants(flooded, start, boneCount, 1, 'flood');
  const unfilled = Array.from({ length: flooded.length / boneCount }, (_, v) => v).filter(
    (v) => !(Math.abs(flooded[v * boneCount + 2] - (1 - flooded[v * boneCount + 1])) < 1e-5),
  );
  expect(unfilled.slice(0, 5), 'vertices where the fill left room').toEqual([]);

  // Undo walks back one brush at a time.
  await page.keyboard.press('Control+z');
  expect(await weightsOf(page)).toEqual(graded);
  await page.keyboard.press('Control+z');
  expect(await weightsOf(page)).toEqual(relaxed);

  // Flood fill on a selection says so: Paint ▸ Select vertices by weight selects where bone 2 weighs ≥ 0.5; the panel
  // counts them beside the button, which reads "Flood fill selection", and the fill is that step.
  const selected = Array.from({ length: relaxed.length / boneCount }, (_, v) => v).filter((v) => relaxed[v * boneCount + 2] >= 0.5);
  expect(selected.length, 'bone 2 leads somewhere').toBeGreaterThan(0);
  await page
    .getByRole('menubar', { name: 'Menu bar' })
    .locator('.menu-title', { hasText: /^Paint$/ })
    .click();
  await page.locator('#menu-bar .menu-popup button[data-command="bind.selectByWeight"]').click();
  await expect(panel.locator('.paint-flood-scope')).toHaveText(`${selected.length} vertices selected`);
  await panel.getByRole('button', { name: 'Flood fill selection', exact: true }).click();
  expect((await undoLabels(page)).at(-1)).toBe('Flood fill selection (set 1)');
  const filled = await weightsOf(page);
  const outside = Array.from({ length: filled.length / boneCount }, (_, v) => v).filter(
    (v) => !selected.includes(v) && filled.slice(v * boneCount, (v + 1) * boneCount).some((w, k) => w !== relaxed[v * boneCount + k]),
  );
  expect(outside.slice(0, 5), 'vertices off the selection that changed').toEqual([]);
  expect(errors).toEqual([]);
});
