/**
 * Max influences: one setting of the scene, in the Bind panel. Weights loaded over it are counted there and in the
 * export dialog, before exporting, with the figure a direct count of the scene's weights gives; raising the value in
 * the panel limits nothing and the panel's Limit now limits the weights over it in one undo step (Ctrl+Z takes it
 * back), the view skins with it, and the exported glTF writes one joint set while no vertex keeps more than four.
 */
import { test, expect, type Page } from '@playwright/test';
import { NodeIO } from '@gltf-transform/core';
import { dataFile, exportFromDialog, loadFiles, openApp } from './app-driver.ts';

/** Vertices whose row of the scene's weights has more than `k` non-zero entries, counted here from the weights. */
async function rowsOver(page: Page, k: number): Promise<{ over: number; worstSum: number; most: number }> {
  const { weights, boneCount } = await page.evaluate(() => {
    const h = (window as any).__rigwright;
    return { weights: h.paint.weightsSnapshot() as number[], boneCount: h.state().boneCount as number };
  });
  let over = 0;
  let worstSum = 0;
  let most = 0;
  for (let o = 0; o < weights.length; o += boneCount) {
    const row = weights.slice(o, o + boneCount);
    const count = row.filter((w) => w !== 0).length;
    most = Math.max(most, count);
    if (count > k) over++;
    worstSum = Math.max(worstSum, Math.abs(row.reduce((a, b) => a + b, 0) - 1));
  }
  return { over, worstSum, most };
}

const grouped = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, '\u2009');

/** Opens the export dialog (Ctrl+E), exports a GLB and gives its first primitive's joint sets. */
async function exportedJointSets(page: Page): Promise<{ note: string; warned: boolean; sets: string[] }> {
  await page.keyboard.press('Control+e');
  const dialog = page.locator('dialog.export-dialog');
  await expect(dialog).toBeVisible();
  await dialog.getByRole('radio', { name: /GLB/ }).check({ force: true });
  const note = (await dialog.locator('.export-influences').textContent()) ?? '';
  const warned = await dialog.locator('.export-warning', { hasText: 'Many viewers read only the first set of four' }).isVisible();
  const { bytes } = await exportFromDialog(page, dialog);
  const document = await new NodeIO().readBinary(bytes);
  const primitive = document.getRoot().listMeshes()[0].listPrimitives()[0];
  return {
    note,
    warned,
    sets: primitive
      .listSemantics()
      .filter((name) => name.startsWith('JOINTS_'))
      .sort(),
  };
}

test('max influences: one setting limits the weights in one undo step, and the export says what it does before it does it', async ({
  page,
}) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  await loadFiles(page, [dataFile('libigl', 'arm.obj'), dataFile('libigl', 'arm.tgf')], 'arm.obj');

  // Two influences, set in the Bind panel with the mouse, before the weights come from a file.
  await page.keyboard.press('b');
  const select = page.locator('.bind-panel select.max-influences');
  await expect(select).toHaveValue('4');
  await select.selectOption('2');
  await expect(select).toHaveValue('2');
  await loadFiles(page, [dataFile('libigl', 'arm-weights.dmat')]);
  expect(await page.evaluate(() => (window as any).__rigwright.state().weightsSource)).toContain('arm-weights.dmat');
  const loaded = await rowsOver(page, 2);
  expect(loaded.over, 'the file gives vertices more than two bones').toBeGreaterThan(1000);
  await expect(page.locator('.bind-panel .max-influences-note')).toContainText(`${grouped(loaded.over)} vertices have more than 2`);
  expect(await page.evaluate(() => (window as any).__rigwright.state().influences), 'the view skins with the setting').toBe(2);

  // The export dialog says what it will do, with the count of the weights as they are.
  await page.keyboard.press('Control+e');
  const dialog = page.locator('dialog.export-dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog.locator('.export-influences')).toHaveText(
    `Weights are limited to 2 influences per vertex: ${grouped(loaded.over)} vertices have more; their smallest weights are dropped and the rest renormalised. Written as one joint set (JOINTS_0 / WEIGHTS_0).`,
  );
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();

  // Three: raising the limit limits nothing; the panel counts the vertices over it and Limit now limits them in one step.
  const over3 = (await rowsOver(page, 3)).over;
  expect(over3, 'the file gives vertices more than three bones').toBeGreaterThan(0);
  await select.selectOption('3');
  await expect.poll(() => page.evaluate(() => (window as any).__rigwright.history().undo.at(-1) as string)).toBe('Max influences 2 → 3');
  expect((await rowsOver(page, 3)).over, 'raising keeps the weights').toBe(over3);
  const note = page.locator('.bind-panel .max-influences-note');
  await expect(note).toContainText(`${grouped(over3)} vertices have more than 3`);
  await note.getByRole('button', { name: 'Limit now' }).click();
  const history = await page.evaluate(() => (window as any).__rigwright.history().undo as string[]);
  expect(history.at(-1)).toBe(`Limit to 3 influences, ${grouped(over3)} vertices limited`);
  const limited = await rowsOver(page, 3);
  expect(limited.over).toBe(0);
  expect(limited.worstSum, 'rows still sum to 1').toBeLessThan(1e-9);
  await expect(note).toBeHidden();
  expect(await page.evaluate(() => (window as any).__rigwright.state().influences)).toBe(3);

  // Undo takes the limiting back, then the setting.
  await page.keyboard.press('Control+z');
  expect((await rowsOver(page, 3)).over).toBe(over3);
  await expect(select).toHaveValue('3');
  await page.keyboard.press('Control+z');
  await expect(select).toHaveValue('2');
  expect((await rowsOver(page, 2)).over).toBe(loaded.over);
  await page.keyboard.press('Control+Shift+z');
  await page.keyboard.press('Control+Shift+z');
  await expect(select).toHaveValue('3');
  expect((await rowsOver(page, 3)).over).toBe(0);

  // The file keeps it: one joint set at three, two at six.
  const three = await exportedJointSets(page);
  expect(three.note).toContain('limited to 3 influences per vertex: every vertex has 3 or fewer');
  expect(three.sets).toEqual(['JOINTS_0']);
  // Six: the arm's four bones never give a vertex more than four, so one set still holds every weight.
  await select.selectOption('6');
  const six = await exportedJointSets(page);
  expect(six.note).toContain('Written as one joint set (JOINTS_0 / WEIGHTS_0): no vertex has more than 4.');
  expect(six.sets).toEqual(['JOINTS_0']);
  expect(six.warned, 'no warning about viewers that read one set of four when one set is written').toBe(false);
  expect(errors).toEqual([]);
});
