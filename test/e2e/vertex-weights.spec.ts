/**
 * Per-vertex weight editing as an artist does it, with the real mouse and keys: on the course hand, the Vertex weights
 * panel (Shift+W), a vertex picked by a click with the lasso, its weights in the table, a weight typed and committed
 * with Enter (the weights and the table change, Ctrl+Z gives the very weights back), then the vertex's row copied and
 * pasted onto a lasso selection (each selected row becomes the copied one, one undo step). Uses `window.__rigwright`
 * (renderer/shell/test-hook.ts) to read the weights and the camera.
 */
import { test, expect, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { artifactsDir, circle, dataFile, lasso, loadFiles, openApp, topmostJoint } from './app-driver.ts';
import { plainNumber } from '../../renderer/project/plain-number.ts';

const weightsOf = (page: Page): Promise<number[]> => page.evaluate(() => (window as any).__rigwright.paint.weightsSnapshot());
const selectedCount = (page: Page): Promise<number> => page.evaluate(() => (window as any).__rigwright.binding.state().selectedVertexCount);

/**
 * The vertex nearest the camera among those at least two bones weigh on (so a typed weight has others to rescale),
 * and the page point it is drawn at: nothing of the mesh is in front of it, so a click there hits it.
 */
async function frontVertex(page: Page, boneCount: number): Promise<{ vertex: number; x: number; y: number }> {
  return page.evaluate((B) => {
    const hook = (window as any).__rigwright;
    const positions: number[] = hook.paint.posedPositions();
    const weights: number[] = hook.paint.weightsSnapshot();
    const camera = hook.look.camera();
    const m: number[] = camera.viewProjection;
    let best = { vertex: -1, x: 0, y: 0, w: Infinity };
    for (let v = 0; v < positions.length / 3; v++) {
      let bones = 0;
      for (let b = 0; b < B; b++) if (weights[v * B + b] > 0.05) bones++;
      if (bones < 2) continue;
      const [px, py, pz] = [positions[3 * v], positions[3 * v + 1], positions[3 * v + 2]];
      const w = m[3] * px + m[7] * py + m[11] * pz + m[15];
      const x = (m[0] * px + m[4] * py + m[8] * pz + m[12]) / w;
      const y = (m[1] * px + m[5] * py + m[9] * pz + m[13]) / w;
      if (Math.abs(x) > 0.8 || Math.abs(y) > 0.8 || w >= best.w) continue;
      best = { vertex: v, x: camera.left + ((x + 1) / 2) * camera.width, y: camera.top + ((1 - y) / 2) * camera.height, w };
    }
    return { vertex: best.vertex, x: best.x, y: best.y };
  }, boneCount);
}

test('hand: click a vertex, type a weight, undo; copy its row and paste it onto a lasso selection', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  await loadFiles(page, [dataFile('hand/hand.off'), dataFile('hand/hand.tgf')], 'hand.off');
  const B: number = await page.evaluate(() => (window as any).__rigwright.state().boneCount);
  expect(B).toBeGreaterThan(2);

  await page.keyboard.press('Shift+W');
  const panel = page.getByRole('complementary', { name: 'Vertex weights' });
  await expect(panel).toBeVisible();
  await expect(panel.getByText(/No vertex selected/)).toBeVisible();
  await panel.getByRole('button', { name: 'Select…' }).click();
  expect(await page.evaluate(() => (window as any).__rigwright.binding.state().lasso)).toBe('idle');

  // A click on the vertex nearest the camera selects it alone; the table lists the bones weighing on it.
  const { vertex, x, y } = await frontVertex(page, B);
  expect(vertex).toBeGreaterThanOrEqual(0);
  await page.mouse.click(x, y);
  expect(await selectedCount(page)).toBe(1);
  await expect(panel.getByText(`1 vertex selected · active: vertex ${vertex}`)).toBeVisible();
  const before = await weightsOf(page);
  const row = before.slice(vertex * B, vertex * B + B);
  const weighing = row.map((w, b) => ({ w, b })).filter(({ w }) => w > 0);
  const rows = panel.locator('tbody tr');
  await expect(rows).toHaveCount(weighing.length);
  for (const { w, b } of weighing) await expect(panel.getByRole('textbox', { name: `bone ${b} weight` })).toHaveValue(plainNumber(w));
  mkdirSync(artifactsDir, { recursive: true });
  await page.screenshot({ path: path.join(artifactsDir, 'vertex-weights.png') });

  // Type 0.3 for the strongest bone, Enter: that weight becomes 0.3, the row still sums to 1, one undo step.
  const strongest = weighing.reduce((p, q) => (q.w > p.w ? q : p)).b;
  const field = panel.getByRole('textbox', { name: `bone ${strongest} weight` });
  await field.click();
  await field.fill('0.3');
  await page.keyboard.press('Enter');
  await expect(field).toHaveValue('0.3');
  const typed = await weightsOf(page);
  expect(Math.abs(typed[vertex * B + strongest] - 0.3)).toBeLessThan(1e-7);
  const sum = typed.slice(vertex * B, vertex * B + B).reduce((a, w) => a + w, 0);
  expect(Math.abs(sum - 1)).toBeLessThan(1e-6);
  const changedRows = new Set<number>();
  for (let i = 0; i < before.length; i++) if (typed[i] !== before[i]) changedRows.add(Math.floor(i / B));
  expect([...changedRows]).toEqual([vertex]);
  await page.keyboard.press('Control+z');
  expect(await weightsOf(page), 'Ctrl+Z gives the very weights back').toEqual(before);
  await expect(field).toHaveValue(plainNumber(row[strongest]));

  // Copy the vertex's row; lasso around the topmost joint (a finger tip) and paste: each selected row is the copied one.
  await panel.getByRole('button', { name: 'Copy' }).click();
  await expect(panel.getByText(`copied: vertex ${vertex}`)).toBeVisible();
  const tip = await topmostJoint(page);
  await lasso(page, circle(tip.x, tip.y, 30));
  const count = await selectedCount(page);
  expect(count).toBeGreaterThan(1);
  await panel.getByRole('button', { name: 'Paste' }).click();
  const pasted = await weightsOf(page);
  // The scene's max influences hold: the copied row's largest K weights, scaled to sum to 1.
  const limit: number = await page.evaluate(() => (window as any).__rigwright.state().influences);
  const kept = row
    .map((w, b) => ({ w, b }))
    .filter(({ w }) => w > 0)
    .sort((p, q) => q.w - p.w || p.b - q.b)
    .slice(0, limit > 0 ? limit : B);
  const keptSum = kept.reduce((a, { w }) => a + w, 0);
  const expected = new Array<number>(B).fill(0);
  for (const { w, b } of kept) expected[b] = w / keptSum;
  const changed: number[] = [];
  for (let v = 0; v < pasted.length / B; v++) {
    const same = pasted.slice(v * B, v * B + B).every((w, b) => w === before[v * B + b]);
    if (!same) changed.push(v);
  }
  expect(changed.length, 'every selected vertex not already weighted so changed').toBeGreaterThan(0);
  expect(changed.length).toBeLessThanOrEqual(count);
  for (const v of changed)
    for (let b = 0; b < B; b++) expect(Math.abs(pasted[v * B + b] - expected[b]), `vertex ${v} bone ${b}`).toBeLessThan(1e-6);
  await expect(panel.getByText(`${count} vertices selected`, { exact: false })).toBeVisible();
  for (const { b } of kept) await expect(panel.getByRole('textbox', { name: `bone ${b} weight` })).toHaveValue(plainNumber(expected[b]));
  await expect(rows).toHaveCount(kept.length);

  // A bone that weighs on none of them, added at 0.2 in the add row: it has 0.2 on each, within the max influences.
  const added = Array.from({ length: B }, (_, b) => b).find((b) => expected[b] === 0)!;
  await panel.getByRole('combobox', { name: 'Bone to add' }).selectOption(String(added));
  await panel.getByRole('textbox', { name: 'Added bone weight' }).fill('0.2');
  await page.keyboard.press('Enter');
  await expect(panel.getByRole('textbox', { name: `bone ${added} weight` })).toHaveValue('0.2');
  const withAdded = await weightsOf(page);
  for (const v of changed) {
    const r = withAdded.slice(v * B, v * B + B);
    expect(Math.abs(r[added] - 0.2), `vertex ${v} has the added bone`).toBeLessThan(1e-7);
    expect(Math.abs(r.reduce((a, w) => a + w, 0) - 1)).toBeLessThan(1e-6);
    expect(r.filter((w) => w > 0).length).toBeLessThanOrEqual(limit > 0 ? limit : B);
  }
  await page.keyboard.press('Control+z');
  expect(await weightsOf(page), 'Ctrl+Z takes the added bone back').toEqual(pasted);
  await page.keyboard.press('Control+z');
  expect(await weightsOf(page), 'one Ctrl+Z takes the whole paste back').toEqual(before);
  expect(errors).toEqual([]);
});

test('hand: Shift and Ctrl clicks add and toggle vertices, a bone’s weight range selects, a row’s lock and bone act', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  await loadFiles(page, [dataFile('hand/hand.off'), dataFile('hand/hand.tgf')], 'hand.off');
  const B: number = await page.evaluate(() => (window as any).__rigwright.state().boneCount);
  await page.keyboard.press('Shift+W');
  const panel = page.getByRole('complementary', { name: 'Vertex weights' });
  await panel.getByRole('button', { name: 'Select…' }).click();

  const first = await frontVertex(page, B);
  const tip = await topmostJoint(page);
  await page.mouse.click(first.x, first.y);
  await page.keyboard.down('Shift');
  await page.mouse.click(tip.x, tip.y);
  await page.keyboard.up('Shift');
  expect(await selectedCount(page), 'Shift adds the finger tip’s vertex').toBe(2);
  await expect(panel.getByText(/^2 vertices selected/)).toBeVisible();
  await page.keyboard.down('Control');
  await page.mouse.click(tip.x, tip.y);
  expect(await selectedCount(page), 'Ctrl takes it out again').toBe(1);
  await page.mouse.click(first.x, first.y);
  await page.keyboard.up('Control');
  expect(await selectedCount(page), 'and Ctrl on the first takes it out too').toBe(0);
  await expect(panel.getByText(/No vertex selected/)).toBeVisible();

  // From 0.9 to 1 of the first vertex's strongest bone: exactly the vertices it weighs so on.
  const weights = await weightsOf(page);
  const row = weights.slice(first.vertex * B, first.vertex * B + B);
  const strongest = row.indexOf(Math.max(...row));
  await panel.getByRole('combobox', { name: 'Bone whose weights select' }).selectOption(String(strongest));
  await panel.getByRole('textbox', { name: 'From weight' }).fill('0.9');
  await panel.getByRole('textbox', { name: 'To weight' }).fill('1');
  await panel.getByRole('button', { name: 'Select', exact: true }).click();
  let expected = 0;
  for (let v = 0; v < weights.length / B; v++) if (weights[v * B + strongest] >= 0.9) expected++;
  expect(expected).toBeGreaterThan(0);
  expect(await selectedCount(page)).toBe(expected);
  expect(await page.evaluate(() => (window as any).__rigwright.state().selectedBone), 'the bone chosen becomes the selected one').toBe(
    strongest,
  );
  const field = panel.getByRole('textbox', { name: `bone ${strongest} weight` });
  await expect(field).toBeEnabled();
  // A row's bone name selects the bone (the weight map shows it).
  await page.evaluate(() => (window as any).__rigwright.paint.selectBone(-1));
  await panel.getByRole('button', { name: `bone ${strongest}`, exact: true }).click();
  expect(await page.evaluate(() => (window as any).__rigwright.state().selectedBone)).toBe(strongest);

  // The row's lock runs paint.lock (one undo step): the field cannot be typed in while the bone is locked.
  await panel.getByRole('button', { name: `Lock bone ${strongest}` }).click();
  await expect(panel.getByRole('button', { name: `Lock bone ${strongest}` })).toHaveAttribute('aria-pressed', 'true');
  await expect(field).toBeDisabled();
  await page.keyboard.press('Control+z');
  await expect(field).toBeEnabled();
  expect(await weightsOf(page), 'locking changed no weight').toEqual(weights);
  expect(errors).toEqual([]);
});
