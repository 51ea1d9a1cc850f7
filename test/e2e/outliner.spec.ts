/**
 * The bone list (outliner) and bone names, with real mouse and key events: the course hand opened with a names file
 * written beside its TGF shows the names in the list and the status line; the search box filters by name and keeps
 * each match's ancestors; a double-click and typing renames a bone (F2 too); dragging a row onto another re-parents
 * it, and onto the list's empty area makes it a root; Delete deletes a bone, its parent's weights gaining its weights
 * (every row still summing to 1); undo gives back each step, and the list follows without losing its search. Save
 * skeleton downloads the TGF and its names file, which open again as the same rig. Uses `window.__rigwright` to read
 * the skeleton and the weights the app holds.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, expect, type Page } from '@playwright/test';
import { dataFile, loadFiles, openApp } from './app-driver.ts';

const FINGERS = ['thumb', 'index', 'middle', 'ring', 'pinky'];
/** The hand's 20 bones named by finger and number; bone 10 (the root) is the wrist. */
const NAMES = Array.from({ length: 20 }, (_, b) => (b === 10 ? 'wrist' : `${FINGERS[b % 5]}_${b}`));

type Skeleton = { parents: number[]; names: string[] };
const skeleton = (page: Page): Promise<Skeleton> => page.evaluate(() => (window as any).__rigwright.skeleton());
/** The weights the app holds: #V × #B, row-major. */
const weights = (page: Page): Promise<{ vertices: number; bones: number; values: number[] }> =>
  page.evaluate(() => {
    const hook = (window as any).__rigwright;
    const values: number[] = hook.snapshot().weights;
    const bones: number = hook.state().boneCount;
    return { vertices: values.length / bones, bones, values };
  });
const command = (page: Page, id: string, argument?: unknown): Promise<boolean> =>
  page.evaluate(([i, a]) => (window as any).__rigwright.command(i, a), [id, argument] as const);
const row = (page: Page, bone: number) => page.locator(`#bone-list .bone-row[data-bone="${bone}"]`);
/** The bones the list shows, in its order. */
const listed = (page: Page): Promise<number[]> =>
  page.locator('#bone-list .bone-row').evaluateAll((rows) => rows.map((r) => Number((r as HTMLElement).dataset.bone)));
/** A row's indentation in pixels, the depth of its bone in the tree. */
const indent = (page: Page, bone: number): Promise<number> =>
  row(page, bone).evaluate((r) => parseFloat((r as HTMLElement).style.paddingLeft));

/** Opens the course hand (hand.off, hand.tgf) with NAMES as its bones' names file, written to a new temporary folder. */
async function loadNamedHand(page: Page): Promise<void> {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'rigwright-names-'));
  const namesFile = path.join(folder, 'hand.names');
  writeFileSync(namesFile, `${NAMES.join('\n')}\n`);
  await loadFiles(page, [dataFile('hand', 'hand.off'), dataFile('hand', 'hand.tgf'), namesFile], 'hand.off');
}

/** Drags row `from` with the mouse, in steps, to the middle of `to` (a locator) and releases. */
async function dragRow(page: Page, from: number, to: ReturnType<Page['locator']>, toOffsetY = 0): Promise<void> {
  // The rows as the user sees them: both in the list's visible part, the target away from its edges (a drag near an
  // edge scrolls the list).
  await row(page, from).scrollIntoViewIfNeeded();
  await to.evaluate((node) => node.scrollIntoView({ block: 'center' }));
  const a = (await row(page, from).boundingBox())!;
  const b = (await to.boundingBox())!;
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2 + 8, { steps: 3 });
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2 + toOffsetY, { steps: 8 });
  await page.mouse.up();
}

test('outliner and bone names: names from the names file in the list and status line; search, rename, drag re-parent, undo', async ({
  page,
}) => {
  const errors: string[] = [];
  // A window tall enough that the bone list, docked above the bone-scale panel, shows the hand's rows that are dragged
  // onto each other (the list does not scroll itself during a drag).
  await page.setViewportSize({ width: 1280, height: 1200 });
  await openApp(page, errors, { paused: true });
  await loadNamedHand(page);
  expect(await page.evaluate(() => (window as any).__rigwright.state().error)).toBeNull();
  const rest = await skeleton(page);
  expect(rest.names).toEqual(NAMES);

  // O opens the list: every bone, by name, as a tree (a child one level deeper than its parent).
  await page.locator('canvas').first().hover();
  await page.keyboard.press('o');
  await expect(page.locator('#bone-list')).toBeVisible();
  expect((await listed(page)).sort((x, y) => x - y)).toEqual(NAMES.map((_, b) => b));
  for (let b = 0; b < NAMES.length; b++) {
    await expect(row(page, b).locator('.bone-name')).toHaveText(NAMES[b]);
    const p = rest.parents[b];
    expect(await indent(page, b), `bone ${b} sits one level under its parent`).toBe(p < 0 ? 4 : (await indent(page, p)) + 14);
  }

  // A click selects the bone: the status line names it.
  const picked = NAMES.indexOf('index_6');
  await row(page, picked).click();
  await expect(row(page, picked)).toHaveClass(/selected/);
  await expect(page.locator('#status')).toContainText('bone: index_6');
  expect(await page.evaluate(() => (window as any).__rigwright.state().selectedBone)).toBe(picked);

  // The search keeps the matches and their ancestors, and nothing else.
  await page.locator('#bone-list .bone-search').fill('THUMB');
  const matches = NAMES.flatMap((name, b) => (name.includes('thumb') ? [b] : []));
  const expected = new Set<number>();
  for (const m of matches) for (let b = m; b >= 0 && !expected.has(b); b = rest.parents[b]) expected.add(b);
  expect((await listed(page)).sort((x, y) => x - y)).toEqual([...expected].sort((x, y) => x - y));
  for (const b of expected) await expect(row(page, b)).toHaveClass(matches.includes(b) ? /^(?!.*ancestor)/ : /ancestor/);

  // A double-click renames in place; Enter commits, as one undo step. The search stays.
  const renamed = matches[0];
  await row(page, renamed).locator('.bone-name').dblclick();
  const field = page.locator('#bone-list .bone-rename');
  await expect(field).toBeFocused();
  await field.fill('thumb_tip_renamed');
  await field.press('Enter');
  await expect(row(page, renamed).locator('.bone-name')).toHaveText('thumb_tip_renamed');
  expect((await skeleton(page)).names[renamed]).toBe('thumb_tip_renamed');
  await expect(page.locator('#bone-list .bone-search')).toHaveValue('THUMB');
  // Escape cancels a rename.
  await row(page, renamed).locator('.bone-name').dblclick();
  await page.locator('#bone-list .bone-rename').fill('not kept');
  await page.locator('#bone-list .bone-rename').press('Escape');
  await expect(row(page, renamed).locator('.bone-name')).toHaveText('thumb_tip_renamed');
  await page.locator('#bone-list .bone-search').fill('');

  // Dragging a leaf's row onto the root's re-parents it under the root; onto the empty area makes it a root.
  const root = rest.parents.indexOf(-1);
  const leaf = rest.parents.findIndex((p, b) => p >= 0 && p !== root && !rest.parents.includes(b));
  expect(leaf, 'the hand has a fingertip whose parent is not the root').toBeGreaterThanOrEqual(0);
  await dragRow(page, leaf, row(page, root));
  await expect.poll(async () => (await skeleton(page)).parents[leaf]).toBe(root);
  expect(await indent(page, leaf)).toBe((await indent(page, root)) + 14);
  // A re-parent changes the rest skeleton the weights were made for: the status line and the Bind panel say so.
  const stale = 'Skeleton changed since binding — rebind to update the weights';
  await expect(page.locator('#status')).toContainText(stale);
  expect(await command(page, 'bind.panel')).toBe(true);
  await expect(page.locator('#bind-panel .bind-stale')).toContainText(stale);
  const tree = page.locator('#bone-list .bone-tree');
  const treeBox = (await tree.boundingBox())!;
  const lastRow = (await page.locator('#bone-list .bone-row').last().boundingBox())!;
  // Below the last row: the list's empty area.
  await dragRow(page, leaf, tree, lastRow.y + lastRow.height + 10 - (treeBox.y + treeBox.height / 2));
  await expect.poll(async () => (await skeleton(page)).parents[leaf]).toBe(-1);
  expect(await indent(page, leaf)).toBe(4);

  const labels: string[] = await page.evaluate(() => (window as any).__rigwright.history().undo);
  expect(labels).toEqual([
    `Rename ${NAMES[renamed]} to thumb_tip_renamed`,
    `Re-parent ${NAMES[leaf]} under wrist`,
    `Re-parent ${NAMES[leaf]} to the root`,
  ]);

  // Undo gives back each step, and the list follows.
  expect(await command(page, 'edit.undo')).toBe(true);
  await expect.poll(async () => (await skeleton(page)).parents[leaf]).toBe(root);
  expect(await indent(page, leaf)).toBe((await indent(page, root)) + 14);
  expect(await command(page, 'edit.undo')).toBe(true);
  await expect.poll(async () => (await skeleton(page)).parents[leaf]).toBe(rest.parents[leaf]);
  expect(await indent(page, leaf)).toBe((await indent(page, rest.parents[leaf])) + 14);
  expect(await command(page, 'edit.undo')).toBe(true);
  await expect(row(page, renamed).locator('.bone-name')).toHaveText(NAMES[renamed]);
  expect(await skeleton(page)).toEqual(rest);
  await expect(page.locator('#status')).not.toContainText(stale);
  await expect(page.locator('#bind-panel .bind-stale')).toHaveCount(0);
  expect(await command(page, 'bind.panel')).toBe(true);
  // The double-click selected the renamed bone: the status line has its name back.
  await expect(page.locator('#status')).toContainText(`bone: ${NAMES[renamed]} (`);

  // F2 on the focused row renames it; Delete deletes the bone (its weight goes to the parent); undo gives both back.
  const fingertip = rest.parents.findIndex((p, b) => p >= 0 && !rest.parents.includes(b));
  await row(page, fingertip).click();
  await page.keyboard.press('F2');
  await expect(page.locator('#bone-list .bone-rename')).toBeFocused();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.type('nail');
  await page.keyboard.press('Enter');
  await expect(row(page, fingertip).locator('.bone-name')).toHaveText('nail');
  await expect(page.locator('#status')).toContainText('bone: nail (');
  // With the Bind panel open, Delete is also its shortcut (clear handles): on the row it is the row's.
  expect(await command(page, 'bind.panel')).toBe(true);
  const steps: string[] = await page.evaluate(() => (window as any).__rigwright.history().undo);
  const before = await weights(page);
  await row(page, fingertip).focus();
  await page.keyboard.press('Delete');
  await expect(page.locator('#bone-list .bone-row')).toHaveCount(19);
  expect((await skeleton(page)).names).not.toContain('nail');
  expect(await page.evaluate(() => (window as any).__rigwright.history().undo)).toEqual([...steps, 'Delete nail']);
  // The weights: the parent's column gained the deleted bone's, every other column is as it was (the bones after the
  // deleted one a column to the left), and every row still sums to 1.
  const after = await weights(page);
  const parent = rest.parents[fingertip];
  const column = (b: number) => (b < fingertip ? b : b - 1);
  expect([after.vertices, after.bones]).toEqual([before.vertices, 19]);
  let handed = 0;
  let worstColumn = 0;
  let worstSum = 0;
  for (let v = 0; v < before.vertices; v++) {
    const was = (b: number) => before.values[20 * v + b];
    const now = (b: number) => after.values[19 * v + column(b)];
    handed = Math.max(handed, was(fingertip));
    worstColumn = Math.max(worstColumn, Math.abs(now(parent) - (was(parent) + was(fingertip))));
    let sum = 0;
    for (let b = 0; b < 20; b++) {
      if (b === fingertip) continue;
      sum += now(b);
      if (b !== parent) worstColumn = Math.max(worstColumn, Math.abs(now(b) - was(b)));
    }
    worstSum = Math.max(worstSum, Math.abs(sum - 1));
  }
  expect(handed, 'the deleted bone had weight to hand on').toBeGreaterThan(0.1);
  expect(worstColumn, `the parent (${NAMES[parent]}) gained the deleted bone's weights, the others kept theirs`).toBeLessThan(1e-12);
  expect(worstSum, 'every row still sums to 1').toBeLessThan(1e-12);
  expect(await command(page, 'bind.panel')).toBe(true);
  expect(await command(page, 'edit.undo')).toBe(true);
  await expect(page.locator('#bone-list .bone-row')).toHaveCount(20);
  await expect(row(page, fingertip).locator('.bone-name')).toHaveText('nail');
  expect(await weights(page), 'undo gives the weights back').toEqual(before);
  expect(await command(page, 'edit.undo')).toBe(true);
  await expect(row(page, fingertip).locator('.bone-name')).toHaveText(NAMES[fingertip]);
  expect(await skeleton(page)).toEqual(rest);

  // File → Save skeleton… downloads the TGF and its names file, which open again as the same bones and names.
  const downloads: { name: string; text: string }[] = [];
  page.on('download', (download) => {
    void download.path().then((file) => downloads.push({ name: download.suggestedFilename(), text: readFileSync(file, 'utf8') }));
  });
  expect(await command(page, 'file.saveSkeleton')).toBe(true);
  await expect.poll(() => downloads.length).toBe(2);
  const saved = Object.fromEntries(downloads.map((d) => [d.name, d.text]));
  expect(Object.keys(saved).sort()).toEqual(['hand.names', 'hand.tgf']);
  expect(saved['hand.names']).toBe(`${NAMES.join('\n')}\n`);
  const again = mkdtempSync(path.join(os.tmpdir(), 'rigwright-saved-'));
  for (const [name, text] of Object.entries(saved)) writeFileSync(path.join(again, name), text);
  await loadFiles(page, [path.join(again, 'hand.tgf'), path.join(again, 'hand.names')]);
  await expect.poll(async () => (await skeleton(page)).names).toEqual(NAMES);
  expect((await skeleton(page)).parents).toEqual(rest.parents);
  expect(errors).toEqual([]);
});

test('outliner: Escape cancels a row drag; the header’s Split, Mirror, Delete and Save skeleton… buttons run their commands, disabled with the reason when they cannot', async ({
  page,
}) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  await loadNamedHand(page);
  const rest = await skeleton(page);
  await page.locator('canvas').first().hover();
  await page.keyboard.press('o');
  await expect(page.locator('#bone-list')).toBeVisible();
  const button = (label: string) => page.locator('#bone-list header .bone-actions button', { hasText: label });
  const undoLabels = (): Promise<string[]> => page.evaluate(() => (window as any).__rigwright.history().undo);

  // Nothing selected: the buttons on the selected bone say why they cannot run; saving the skeleton can.
  expect(await page.evaluate(() => (window as any).__rigwright.state().selectedBone)).toBe(-1);
  for (const label of ['Split', 'Mirror', 'Delete']) {
    await expect(button(label)).toBeDisabled();
    await expect(button(label)).toHaveAttribute('title', /Cannot run now: no bone selected/);
  }
  await expect(button('Save…')).toBeEnabled();

  // A row dragged onto another and Escape pressed before the release: nothing changes.
  const root = rest.parents.indexOf(-1);
  const leaf = rest.parents.findIndex((p, b) => p >= 0 && p !== root && !rest.parents.includes(b));
  const a = (await row(page, leaf).boundingBox())!;
  await row(page, root).scrollIntoViewIfNeeded();
  const b = (await row(page, root).boundingBox())!;
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2 + 8, { steps: 3 });
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 8 });
  await expect(row(page, root)).toHaveClass(/drop-target/);
  await page.keyboard.press('Escape');
  await expect(page.locator('#bone-list .drop-target')).toHaveCount(0);
  await page.mouse.up();
  expect((await skeleton(page)).parents, 'Escape cancelled the re-parent').toEqual(rest.parents);
  expect(await undoLabels()).toEqual([]);

  // A bone selected: Split, Mirror and Delete run on it, each one undo step.
  await row(page, leaf).click();
  await expect(button('Split')).toBeEnabled();
  await expect(button('Split')).toHaveAttribute('title', /^In two at a new joint.*\(S\)$/);
  await button('Split').click();
  await expect(page.locator('#bone-list .bone-row')).toHaveCount(21);
  expect((await undoLabels()).length).toBe(1);
  await button('Delete').click();
  await expect(page.locator('#bone-list .bone-row')).toHaveCount(20);
  expect((await undoLabels()).length).toBe(2);
  await row(page, leaf).click();
  await button('Mirror').click();
  await expect.poll(async () => (await skeleton(page)).parents.length).toBeGreaterThan(20);
  expect((await undoLabels()).length).toBe(3);
  for (let step = 0; step < 3; step++) expect(await command(page, 'edit.undo')).toBe(true);
  expect(await skeleton(page)).toEqual(rest);

  // Save skeleton… downloads the TGF and its names file.
  const downloads: string[] = [];
  page.on('download', (download) => void downloads.push(download.suggestedFilename()));
  await button('Save…').click();
  await expect.poll(() => downloads.sort()).toEqual(['hand.names', 'hand.tgf']);

  // Another mesh opened alone has no bones: Save skeleton… says why it cannot run.
  await loadFiles(page, [dataFile('context-aware/reference.obj')], 'reference.obj');
  await expect(page.locator('#bone-list .bone-row')).toHaveCount(0);
  await expect(button('Save…')).toBeDisabled();
  await expect(button('Save…')).toHaveAttribute('title', /Cannot run now: /);
  expect(errors).toEqual([]);
});
