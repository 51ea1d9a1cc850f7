/**
 * The interaction architecture as a user meets it, with real keys and mouse: one tool owns each drag (P, B, L and a
 * drag lassoes without painting; with the brush active a drag paints without lassoing); Escape in the middle of a
 * drag leaves the scene exactly as it was, in every tool; and one undo history takes back a paint stroke, a handle
 * assignment, a weight computation, a bone scale and another stroke, bit for bit, naming each step on the Undo
 * button, in the status line and in the desktop Edit menu, then redoes them all.
 */
import { test, expect, type Page } from '@playwright/test';
import { dataFile, loadFiles, openApp } from './app-driver.ts';

const state = (page: Page) => page.evaluate(() => (window as any).__rigwright.state());
const snapshot = (page: Page) => page.evaluate(() => (window as any).__rigwright.snapshot());
const tool = (page: Page) => page.evaluate(() => (window as any).__rigwright.tool());
const undoLabels = (page: Page): Promise<string[]> => page.evaluate(() => (window as any).__rigwright.history().undo);
const selected = (page: Page): Promise<number> => page.evaluate(() => (window as any).__rigwright.binding.state().selectedVertexCount);

async function canvasCentre(page: Page): Promise<{ x: number; y: number }> {
  const box = (await page.locator('canvas').first().boundingBox())!;
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

/** Press, move through the points, release (or, with `escape`, press Escape before releasing). */
async function drag(page: Page, points: [number, number][], escape = false): Promise<void> {
  await page.mouse.move(points[0][0], points[0][1]);
  await page.mouse.down();
  for (const [x, y] of points.slice(1)) await page.mouse.move(x, y, { steps: 3 });
  if (escape) await page.keyboard.press('Escape');
  await page.mouse.up();
}

function circle(cx: number, cy: number, r: number, n = 16): [number, number][] {
  return Array.from({ length: n }, (_, i) => [cx + r * Math.cos((2 * Math.PI * i) / n), cy + r * Math.sin((2 * Math.PI * i) / n)]);
}

async function openHand(page: Page, withHandles: boolean): Promise<void> {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  const files = [
    dataFile('hand', 'hand.off'),
    dataFile('hand', 'hand.tgf'),
    ...(withHandles ? [dataFile('hand', 'hand-handles.dmat')] : []),
  ];
  await loadFiles(page, files, 'hand.off');
  await page.evaluate(() => (window as any).__rigwright.pause());
  expect((await state(page)).error).toBeNull();
}

test('one tool owns each drag: P, B, L then a drag lassoes and does not paint; the brush paints and does not lasso; Escape mid-drag changes nothing', async ({
  page,
}) => {
  await openHand(page, false);
  const { x, y } = await canvasCentre(page);
  const start = await snapshot(page);

  // The bug this replaces: with paint mode, the Bind panel and the lasso all switched on, one drag did both.
  await page.keyboard.press('p');
  await page.keyboard.press('b');
  await page.keyboard.press('l');
  expect(await tool(page)).toEqual({ id: 'lasso', state: 'idle' });
  await expect(page.locator('#paint-panel')).toBeHidden();
  await drag(page, circle(x, y, 90));
  const lassoed = await selected(page);
  expect(lassoed, 'the lasso selected vertices').toBeGreaterThan(20);
  expect(await snapshot(page), 'and painted nothing').toEqual(start);
  expect(await undoLabels(page)).toEqual([]);

  // The other way round: the brush takes the drag, the lasso never sees it.
  await page.keyboard.press('p');
  expect(await tool(page)).toEqual({ id: 'brush', state: 'idle' });
  await expect(page.locator('#paint-panel')).toBeVisible();
  await page.evaluate(() => (window as any).__rigwright.paint.setBrush({ mode: 'add', strength: 0.5, radius: 30 }));
  await drag(page, [
    [x - 40, y],
    [x + 40, y],
  ]);
  expect(await selected(page), 'the selection is as the lasso left it').toBe(lassoed);
  const painted = await snapshot(page);
  expect(painted.weights).not.toEqual(start.weights);
  expect(await undoLabels(page)).toEqual(['Paint stroke']);

  // Escape in the middle of a drag, in each tool, leaves the scene and the history exactly as they were.
  await drag(
    page,
    [
      [x - 40, y + 15],
      [x + 40, y + 15],
    ],
    true,
  );
  expect(await tool(page)).toEqual({ id: 'brush', state: 'idle' });
  expect(await snapshot(page)).toEqual(painted);
  expect(await undoLabels(page)).toEqual(['Paint stroke']);

  const radius: number = await page.evaluate(() => (window as any).__rigwright.paint.state().brush.radius);
  await page.mouse.move(x, y);
  await page.keyboard.press('f');
  expect(await tool(page)).toEqual({ id: 'brush', state: 'resizing' });
  await page.mouse.move(x + 70, y + 50, { steps: 4 });
  expect(await page.evaluate(() => (window as any).__rigwright.paint.state().brush.radius)).not.toBe(radius);
  await page.keyboard.press('Escape');
  expect(await tool(page)).toEqual({ id: 'brush', state: 'idle' });
  expect(await page.evaluate(() => (window as any).__rigwright.paint.state().brush.radius)).toBe(radius);

  await page.keyboard.press('b');
  await page.keyboard.press('l');
  expect(await tool(page)).toEqual({ id: 'lasso', state: 'idle' });
  await drag(page, circle(x + 60, y - 40, 70), true);
  expect(await selected(page)).toBe(lassoed);
  expect(await tool(page)).toEqual({ id: 'lasso', state: 'idle' });

  await page.keyboard.press('l');
  expect(await tool(page)).toEqual({ id: 'select', state: 'idle' });
  await drag(
    page,
    [
      [x, y],
      [x + 80, y + 30],
    ],
    true,
  );
  expect(await tool(page)).toEqual({ id: 'select', state: 'idle' });
  expect(await snapshot(page)).toEqual(painted);
  expect(await undoLabels(page)).toEqual(['Paint stroke']);
});

test('one undo history: stroke, handles, weights, bone scale, stroke; undo five times is the start bit for bit, redo five times the end; each step is named', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await openHand(page, true);
  const { x, y } = await canvasCentre(page);
  const start = await snapshot(page);
  await expect(page.locator('#status')).not.toContainText('undo:');

  // 1. A paint stroke.
  await page.keyboard.press('p');
  await page.evaluate(() => (window as any).__rigwright.paint.setBrush({ mode: 'add', strength: 0.5, radius: 30 }));
  await drag(page, [
    [x - 40, y],
    [x + 40, y],
  ]);
  // 2. Handles: a lasso selection assigned to bone 5.
  await page.keyboard.press('b');
  await page.keyboard.press('l');
  await drag(page, circle(x, y - 60, 60));
  expect(await selected(page)).toBeGreaterThan(0);
  await page.evaluate(() => (window as any).__rigwright.paint.selectBone(5));
  await page.keyboard.press('a');
  // 3. Harmonic weights from the panel's button.
  await page.keyboard.press('l');
  await page.click('#bind-panel button:has-text("Compute weights")');
  await page.waitForFunction(
    () => {
      const s = (window as any).__rigwright;
      return s.state().weightsSource.startsWith('harmonic') && !s.binding.state().binding.running;
    },
    undefined,
    { timeout: 90_000 },
  );
  // 4. Bone 5 scaled in the bone panel (typed: one step however many keystrokes).
  await page.fill('.bone-scale-x', '1.4');
  await page.fill('.bone-scale-x', '1.45');
  // While the field has focus, keys are text; the artist moves on to the viewport.
  await page.locator('.bone-scale-x').blur();
  // 5. Another stroke.
  await page.keyboard.press('p');
  await drag(page, [
    [x - 30, y + 20],
    [x + 30, y + 20],
  ]);
  const end = await snapshot(page);
  const labels = await undoLabels(page);
  expect(labels).toHaveLength(5);
  expect(labels[0]).toBe('Paint stroke');
  expect(labels[1]).toMatch(/^Assign \d+ handles to bone 5$/);
  expect(labels.slice(2)).toEqual(['Compute weights', 'Scale bone 5', 'Paint stroke']);
  expect(end.boneScales.slice(15, 18)).toEqual([1.45, 1.45, 1.45]);
  expect(end.weightsSource).toMatch(/^harmonic/);

  const undoButton = page.locator('.edit-group button[data-command="edit.undo"]');
  const redoButton = page.locator('.edit-group button[data-command="edit.redo"]');
  const editMenu = async (): Promise<string[]> =>
    page.evaluate(() =>
      (window as any).__rigwright
        .menu()
        .find((m: any) => m.label === 'Edit')
        .items.map((i: any) => `${i.label}${i.enabled ? '' : ' (disabled)'}`),
    );
  for (let i = labels.length - 1; i >= 0; i--) {
    await expect(undoButton).toHaveText(`Undo ${labels[i]}`);
    await expect(page.locator('#status')).toContainText(`undo: ${labels[i]}`);
    expect((await editMenu())[0]).toBe(`Undo ${labels[i]}`);
    await page.keyboard.press('Control+z');
  }
  expect(await snapshot(page), 'five undos: the start, bit for bit').toEqual(start);
  await expect(undoButton).toBeDisabled();
  expect((await editMenu())[0]).toBe('Undo (disabled)');
  for (let i = 0; i < labels.length; i++) {
    await expect(redoButton).toHaveText(`Redo ${labels[i]}`);
    expect((await editMenu())[1]).toBe(`Redo ${labels[i]}`);
    await page.keyboard.press('Control+Shift+z');
  }
  expect(await snapshot(page), 'five redos: the end, bit for bit').toEqual(end);

  // Opening a new scene over unsaved changes asks first; Discard lets them go, the new scene starts a new history
  // and says so.
  const opened = loadFiles(page, [dataFile('hand', 'hand.off'), dataFile('hand', 'hand.tgf')], 'hand.off');
  await page.locator('#save-changes-dialog button', { hasText: 'Discard' }).click();
  await opened;
  expect(await undoLabels(page)).toEqual([]);
  await expect(page.locator('.notice')).toContainText('undo history starts over');
});

test('the help overlay lists exactly the keybinding table; typing in a field triggers no command', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  await page.keyboard.press('?');
  await expect(page.locator('#help-overlay')).toBeVisible();
  const shown = await page.locator('#help-overlay .help-keys kbd').allTextContents();
  const table: string[] = await page.evaluate(() => (window as any).__rigwright.keyTable());
  expect(shown).toEqual(table);
  await page.keyboard.press('Escape');
  await expect(page.locator('#help-overlay')).toBeHidden();

  // Keys typed into the export dialog's name field are text, not commands.
  // View → Wireframe's check mark, as the menus have it.
  const wireframe = async () =>
    page.evaluate(() =>
      String(
        (window as any).__rigwright
          .menu()
          .flatMap((menu: any) => menu.items)
          .find((item: any) => item.command === 'view.wireframe').checked,
      ),
    );
  expect(await wireframe()).toBe('false');
  await page.keyboard.press('Control+e');
  await page.locator('.export-dialog input[type=text]').first().fill('');
  await page.locator('.export-dialog input[type=text]').first().type('wkpbl');
  expect(await wireframe()).toBe('false');
  expect(await tool(page)).toEqual({ id: 'select', state: 'idle' });
  await page.keyboard.press('Escape');
  await expect(page.locator('.export-dialog')).toBeHidden();
  await page.keyboard.press('w');
  expect(await wireframe()).toBe('true');
  expect(errors).toEqual([]);
});
