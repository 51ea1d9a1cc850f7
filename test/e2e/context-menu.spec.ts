/**
 * Right-click context menus, with the real mouse on the built-in demo (a worm of 7 bones with its weights): on a joint
 * (select its bone, lock and unlock its weights, isolate them as the weight map), on the mesh (sample the weights at
 * the vertex under the pointer, select the vertices the selected bone weighs), on rows of the bone list and the meshes
 * panel and on the clip picker; the menu stays inside the window and closes on Escape and on a press outside; a right
 * drag still pans the camera and opens no menu. Uses `window.__rigwright` to read the scene.
 */
import { test, expect, type Page } from '@playwright/test';
import { openApp, pagePoint } from './app-driver.ts';

const hook = (page: Page) => ({
  state: () => page.evaluate(() => (window as any).__rigwright.state()),
  skeleton: (): Promise<{ joints: number[]; bones: number[]; names: string[] }> =>
    page.evaluate(() => (window as any).__rigwright.skeleton()),
  weights: (): Promise<number[]> => page.evaluate(() => (window as any).__rigwright.snapshot().weights),
  posed: (): Promise<number[]> => page.evaluate(() => (window as any).__rigwright.cpuPositions()),
  joint: (j: number): Promise<{ x: number; y: number }> => page.evaluate((jj) => (window as any).__rigwright.jointScreenPosition(jj), j),
  undoLabels: (): Promise<string[]> => page.evaluate(() => (window as any).__rigwright.history().undo),
  binding: () => page.evaluate(() => (window as any).__rigwright.binding.state()),
  meshes: () => page.evaluate(() => (window as any).__rigwright.meshes.state()),
  camera: (): Promise<number[]> => page.evaluate(() => (window as any).__rigwright.paint.cameraPosition()),
});

/** Whether a box lies wholly inside the page's viewport. */
function inside(page: Page, box: { x: number; y: number; width: number; height: number }): boolean {
  const { width, height } = page.viewportSize()!;
  return box.x >= 0 && box.y >= 0 && box.x + box.width <= width && box.y + box.height <= height;
}

test('context menu: on a joint, on the mesh, on list rows; right drag still pans', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  const app = hook(page);
  const menu = page.getByRole('menu');
  const { bones, names } = await app.skeleton();
  const B = names.length;
  // The tip of the worm: a joint that ends a bone and starts none; its bone is the one a click on it selects.
  const starts = new Set(bones.filter((_, i) => i % 2 === 0));
  const tipBone = bones.findIndex((j, i) => i % 2 === 1 && !starts.has(j)) >> 1;
  const tip = await app.joint(bones[2 * tipBone + 1]);

  // On a joint: the bone's menu; Select bone selects it.
  await page.mouse.click(tip.x, tip.y, { button: 'right' });
  await expect(menu).toBeVisible();
  await expect(menu).toContainText(`Bone ${names[tipBone]}`);
  expect(inside(page, (await menu.boundingBox())!), 'the menu is inside the window').toBe(true);
  await menu.getByRole('menuitem', { name: 'Select bone' }).click();
  await expect(menu).toBeHidden();
  expect((await app.state()).selectedBone).toBe(tipBone);

  // Lock its weights: one undo step named for the bone; the next menu offers Unlock; Escape closes without a change.
  await page.mouse.click(tip.x, tip.y, { button: 'right' });
  await menu.getByRole('menuitem', { name: 'Lock its weights', exact: true }).click();
  expect((await app.undoLabels()).at(-1)).toBe(`Lock ${names[tipBone]}`);
  await page.mouse.click(tip.x, tip.y, { button: 'right' });
  await expect(menu.getByRole('menuitem', { name: 'Unlock its weights', exact: true })).toBeVisible();
  await expect(menu.getByRole('menuitem', { name: 'Select bone' }), 'the first item has the focus').toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(menu.getByRole('menuitem', { name: 'Unlock its weights', exact: true }), 'the arrow keys move between items').toBeFocused();
  await page.keyboard.press('Escape');
  await expect(menu).toBeHidden();
  expect((await app.undoLabels()).at(-1), 'Escape ran nothing').toBe(`Lock ${names[tipBone]}`);
  await page.mouse.click(tip.x, tip.y, { button: 'right' });
  await menu.getByRole('menuitem', { name: 'Unlock its weights', exact: true }).click();
  expect((await app.undoLabels()).at(-1)).toBe(`Unlock ${names[tipBone]}`);

  // Isolate another bone's weights: it is selected and the weight map shows it.
  const other = (tipBone + 1) % B;
  const otherJoint = await app.joint(bones[2 * other + 1]);
  await page.mouse.click(otherJoint.x, otherJoint.y, { button: 'right' });
  const otherTitle = (await menu.locator('.context-menu-title').textContent())!;
  const otherBone = names.indexOf(otherTitle.replace(/^Bone /, ''));
  expect(otherBone, `${otherTitle} names a bone`).toBeGreaterThanOrEqual(0);
  await menu.getByRole('menuitem', { name: 'Isolate its weights' }).click();
  expect((await app.state()).selectedBone).toBe(otherBone);
  expect((await app.binding()).view).toBe('heatmap');

  // On the mesh, halfway between two joints of a middle bone (away from both): the vertex under the pointer.
  const mid = (bones.length / 2) >> 1;
  const [a, b] = [await app.joint(bones[2 * mid]), await app.joint(bones[2 * mid + 1])];
  const at = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
  await page.mouse.click(at.x, at.y, { button: 'right' });
  const title = (await menu.locator('.context-menu-title').textContent())!;
  expect(title).toMatch(/^Vertex \d+$/);
  const vertex = Number(title.slice('Vertex '.length));
  const posed = await app.posed();
  const drawn = await pagePoint(page, posed.slice(3 * vertex, 3 * vertex + 3));
  expect(Math.hypot(drawn.x - at.x, drawn.y - at.y), 'the vertex is drawn under the pointer').toBeLessThan(15);

  // Sample weights here: the notice lists the bones that weigh on it, largest first, as the scene's weights say.
  const weights = await app.weights();
  const row = names
    .map((name, bone) => ({ name, weight: weights[vertex * B + bone] }))
    .filter((w) => w.weight >= 5e-4)
    .sort((p, q) => q.weight - p.weight);
  await menu.getByRole('menuitem', { name: 'Sample weights here' }).click();
  const notice = page.locator('.notice');
  await expect(notice).toBeVisible();
  await expect(notice.locator('.notice-title')).toHaveText(`Vertex ${vertex}: ${row.length === 1 ? '1 bone' : `${row.length} bones`}`);
  expect(await notice.locator('li').allTextContents()).toEqual(row.map((w) => `${w.name}: ${w.weight.toFixed(3)}`));
  await notice.getByRole('button', { name: 'Dismiss' }).click();

  // The same from the menu bar, away from the mesh: Paint → Sample weights at a vertex asks for a click on
  // the mesh, and that click samples (and does not select or orbit).
  await page
    .getByRole('menubar', { name: 'Menu bar' })
    .locator('.menu-title', { hasText: /^Paint$/ })
    .click();
  await page.locator('#menu-bar .menu-popup button[data-command="paint.sampleWeights"]').click();
  await expect(notice.locator('.notice-title')).toHaveText('Sample weights: click a point of the mesh (Esc cancels)');
  await expect(page.locator('canvas').first(), 'a crosshair while the pick waits').toHaveCSS('cursor', 'crosshair');
  // Escape gives the pick up: its notice goes and the cursor comes back.
  await page.keyboard.press('Escape');
  await expect(notice).toBeHidden();
  await expect(page.locator('canvas').first()).not.toHaveCSS('cursor', 'crosshair');
  await page
    .getByRole('menubar', { name: 'Menu bar' })
    .locator('.menu-title', { hasText: /^Paint$/ })
    .click();
  await page.locator('#menu-bar .menu-popup button[data-command="paint.sampleWeights"]').click();
  await expect(page.locator('#menu-bar .menu-popup')).toBeHidden();
  await expect(notice.locator('.notice-title')).toHaveText('Sample weights: click a point of the mesh (Esc cancels)');
  const selectedBefore = (await app.state()).selectedBone;
  await page.mouse.click(at.x, at.y);
  await expect(notice.locator('.notice-title')).toHaveText(`Vertex ${vertex}: ${row.length === 1 ? '1 bone' : `${row.length} bones`}`);
  expect((await app.state()).selectedBone, 'the pick selected nothing').toBe(selectedBefore);

  // Select vertices by weight of the selected bone: the Bind panel's selection is every vertex it weighs ≥ 0.5.
  await page.mouse.click(at.x, at.y, { button: 'right' });
  await menu.getByRole('menuitem', { name: `Select vertices ${names[otherBone]} weighs ≥ 0.5` }).click();
  const expected = Array.from({ length: weights.length / B }, (_, v) => weights[v * B + otherBone]).filter((w) => w >= 0.5).length;
  expect(expected, 'the bone leads somewhere').toBeGreaterThan(0);
  const bind = await app.binding();
  expect(bind.selectedVertexCount).toBe(expected);
  expect(bind.panelOpen, 'the selection is the Bind panel’s').toBe(true);

  // A press outside closes the menu and runs nothing.
  const labels = await app.undoLabels();
  await page.mouse.click(tip.x, tip.y, { button: 'right' });
  await expect(menu).toBeVisible();
  await page.locator('#status').click();
  await expect(menu).toBeHidden();
  expect(await app.undoLabels()).toEqual(labels);

  // Near the window's corner the menu moves in to stay inside it.
  const canvas = (await page.locator('canvas').first().boundingBox())!;
  await page.mouse.click(canvas.x + canvas.width - 3, canvas.y + canvas.height - 3, { button: 'right' });
  await expect(menu).toBeVisible();
  expect(inside(page, (await menu.boundingBox())!), 'the corner menu is inside the window').toBe(true);
  await page.keyboard.press('Escape');

  // A right drag pans: the camera moves and no menu opens.
  const camera = await app.camera();
  await page.mouse.move(canvas.x + canvas.width * 0.3, canvas.y + canvas.height * 0.3);
  await page.mouse.down({ button: 'right' });
  await page.mouse.move(canvas.x + canvas.width * 0.3 + 80, canvas.y + canvas.height * 0.3 + 30, { steps: 6 });
  await page.mouse.up({ button: 'right' });
  await expect(menu).toBeHidden();
  expect(await app.camera(), 'the right drag panned the camera').not.toEqual(camera);
  // A right drag that comes back to where it started is a drag too: no menu.
  const from = { x: canvas.x + canvas.width * 0.3, y: canvas.y + canvas.height * 0.3 };
  await page.mouse.move(from.x, from.y);
  await page.mouse.down({ button: 'right' });
  await page.mouse.move(from.x + 60, from.y + 20, { steps: 4 });
  await page.mouse.move(from.x + 1, from.y + 1, { steps: 4 });
  await page.mouse.up({ button: 'right' });
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  await expect(menu, 'a right drag back to its start opens no menu').toBeHidden();

  // The bone list: a row's menu selects that row's bone.
  await page.keyboard.press('o');
  const boneRow = page.locator(`.bone-row[data-bone="${tipBone}"]`);
  await boneRow.click({ button: 'right' });
  await expect(menu).toContainText(`Bone ${names[tipBone]}`);
  await menu.getByRole('menuitem', { name: 'Select bone' }).click();
  expect((await app.state()).selectedBone).toBe(tipBone);
  // Rename…: the menu asks for the name, starting from the bone's own; typing keys no shortcut; Enter renames.
  await boneRow.click({ button: 'right' });
  await menu.getByRole('menuitem', { name: 'Rename…' }).click();
  const nameField = menu.getByRole('textbox', { name: 'Bone name' });
  await expect(nameField).toBeFocused();
  await expect(nameField).toHaveValue(names[tipBone]);
  await nameField.fill('tail.tip');
  await expect(menu, 'typing keeps the menu open').toBeVisible();
  await page.keyboard.press('Enter');
  await expect(menu).toBeHidden();
  expect((await app.skeleton()).names[tipBone]).toBe('tail.tip');
  expect((await app.undoLabels()).at(-1)).toMatch(/tail\.tip/);
  await page.keyboard.press('Control+z');
  expect((await app.skeleton()).names[tipBone]).toBe(names[tipBone]);
  await page.keyboard.press('o');

  // The meshes panel: a mesh row's menu makes it the active mesh.
  await page.evaluate(() => (window as any).__rigwright.command('meshes.panel'));
  const meshRow = page.locator('.mesh-row[data-index="0"]');
  await meshRow.click({ button: 'right' });
  await expect(menu.getByRole('menuitem', { name: 'Hide it', exact: true }), 'a shown mesh offers Hide').toBeVisible();
  await menu.getByRole('menuitem', { name: 'Make it the active mesh' }).click();
  expect((await app.meshes()).active).toBe(0);

  // The clip picker: the clip edits for the clip shown; Key all bones keys the current frame.
  expect(await page.evaluate(() => (window as any).__rigwright.command('clip.new', { name: 'Walk' })), 'a new clip').toBe(true);
  await page.locator('.clip-picker').click({ button: 'right' });
  await expect(menu.locator('.context-menu-title')).toHaveText('Clip Walk');
  await menu.getByRole('menuitem', { name: 'Key all bones' }).click();
  await expect(menu).toBeHidden();
  expect((await app.undoLabels()).at(-1), 'Key all bones keyed the frame shown').toMatch(/^Key .* at frame \d+ of Walk$/);
  expect(errors).toEqual([]);
});

test('context menu: a click outside only closes it; in weight paint mode a click on the mesh paints nothing', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  const app = hook(page);
  const menu = page.getByRole('menu');
  await page.keyboard.press('p');
  await expect.poll(() => page.evaluate(() => (window as any).__rigwright.tool().id)).toBe('brush');
  // A brush that changes what it touches (set to one half, through the mesh), aimed at the mesh vertex nearest its
  // centroid, so a click that reaches the viewport paints.
  await page.evaluate(() => {
    const paint = (window as any).__rigwright.paint;
    paint.setBrush({ mode: 'set', value: 0.5, strength: 1, radius: 60, throughMesh: true });
    paint.selectBone(0);
  });
  const positions = await app.posed();
  const n = positions.length / 3;
  const centroid = [0, 1, 2].map((axis) => positions.filter((_, i) => i % 3 === axis).reduce((a, b) => a + b, 0) / n);
  let nearest = 0;
  for (let v = 1; v < n; v++) {
    const d = (w: number) => Math.hypot(...[0, 1, 2].map((axis) => positions[3 * w + axis] - centroid[axis]));
    if (d(v) < d(nearest)) nearest = v;
  }
  const centre = await pagePoint(page, positions.slice(3 * nearest, 3 * nearest + 3));
  // The menu opens with its corner at the pointer: the left clicks go a little up and left of it, outside the menu.
  const beside = { x: centre.x - 4, y: centre.y - 4 };
  // A click on the mesh with no menu open paints a dab: one undo step (so the click below would paint if it got through).
  const start = (await app.undoLabels()).length;
  await page.mouse.click(beside.x, beside.y);
  await expect.poll(async () => (await app.undoLabels()).length, 'a click paints with no menu open').toBe(start + 1);

  const before = await app.undoLabels();
  await page.mouse.click(centre.x, centre.y, { button: 'right' });
  await expect(menu.locator('.context-menu-title')).toHaveText(/^Vertex \d+$/);
  await page.mouse.click(beside.x, beside.y);
  await expect(menu).toBeHidden();
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  expect(await app.undoLabels(), 'the click that closed the menu painted nothing').toEqual(before);

  // A right press elsewhere while the menu is open closes it and opens it again where it is released.
  await page.mouse.click(centre.x, centre.y, { button: 'right' });
  await expect(menu).toBeVisible();
  await page.mouse.click(beside.x, beside.y, { button: 'right' });
  await expect(menu).toBeVisible();
  const box = (await menu.boundingBox())!;
  expect(Math.hypot(box.x - beside.x, box.y - beside.y), 'the menu opened again at the second right click').toBeLessThan(1);
  await page.keyboard.press('Escape');
  await expect(menu).toBeHidden();

  // An open menu never goes stale: a change of the scene (here an undo run from elsewhere) closes it, and so does any
  // key that is not the menu's own (Tab, a shortcut); the arrow keys keep it open.
  await page.mouse.click(centre.x, centre.y, { button: 'right' });
  await expect(menu).toBeVisible();
  await page.evaluate(() => (window as any).__rigwright.command('edit.undo'));
  await expect(menu, 'a change of the scene closes the menu').toBeHidden();
  await page.evaluate(() => (window as any).__rigwright.command('edit.redo'));
  expect(await app.undoLabels()).toEqual(before);
  for (const key of ['Tab', 'w']) {
    await page.mouse.click(centre.x, centre.y, { button: 'right' });
    await expect(menu).toBeVisible();
    await page.keyboard.press('ArrowDown');
    await expect(menu, 'an arrow key keeps the menu open').toBeVisible();
    await page.keyboard.press(key);
    await expect(menu, `${key} closes the menu`).toBeHidden();
  }

  // The next click paints again: only the dismissing press is swallowed.
  await page.mouse.click(beside.x, beside.y);
  await expect.poll(async () => (await app.undoLabels()).length).toBe(before.length + 1);
  expect(errors).toEqual([]);
});
