/**
 * The layout stays put when a label changes: at 1280×800 and 1440×900, the viewport canvas keeps its box while edits
 * with long undo labels go in and are undone, the tools, skinning methods and views are switched, clips with long
 * names are made and chosen, the project is saved under a long name, a scene with a long file
 * name is opened, a notice and the binding's progress show, and
 * the status line changes. Uses `window.__rigwright` for what the menus would do too.
 */
import { test, expect, type Page } from '@playwright/test';
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { artifactsDir, dataFile, openApp } from './app-driver.ts';

const LONG = 'left_forearm_twist_helper_with_a_rather_long_name_for_the_export';

type Box = { x: number; y: number; width: number; height: number };

async function canvasBox(page: Page): Promise<Box> {
  // Two frames: a change's reflow and the renderer's resize have both happened.
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  return (await page.locator('canvas.viewport-canvas').boundingBox())!;
}

const command = (page: Page, id: string, argument?: unknown): Promise<boolean> =>
  page.evaluate(([i, a]) => (window as any).__rigwright.command(i, a), [id, argument] as const);

for (const size of [
  { width: 1280, height: 800 },
  { width: 1440, height: 900 },
]) {
  test(`layout: the viewport does not move when labels change at ${size.width}×${size.height}`, async ({ page }) => {
    await page.setViewportSize(size);
    // Saving hands out a file of the origin's private file system (a picker dialog cannot be driven here).
    await page.context().addInitScript((name: string) => {
      const w = window as any;
      w.showSaveFilePicker = async () => (await navigator.storage.getDirectory()).getFileHandle(name, { create: true });
    }, `${LONG}.rig.glb`);
    const errors: string[] = [];
    await openApp(page, errors, { paused: true });
    const before = await canvasBox(page);
    const unchanged = async (what: string) => expect(await canvasBox(page), `the canvas after ${what}`).toEqual(before);

    // Long undo and redo labels: a bone renamed to a long name, then undone (Redo names it).
    expect(await command(page, 'bone.rename', { bone: 0, name: LONG })).toBe(true);
    await unchanged('a rename with a long undo label');
    await page.keyboard.press('Control+z');
    await unchanged('undo (a long redo label)');
    await page.keyboard.press('Control+Shift+z');

    // Tools, methods and views, by their keys.
    for (const key of ['j', 'Escape', 'r', 'r', 'p', 'p', 'b', 'b', 'm', 'm', 'm', 'v', 'v', 'd', 'd', 'w', 'w', 'i', 'i']) {
      await page.keyboard.press(key);
      await unchanged(`the key ${key}`);
    }
    expect(await command(page, 'skin.split', 'dqs')).toBe(true);
    await unchanged('the split view');
    expect(await command(page, 'skin.split', null)).toBe(true);

    // Clips with long names, made and chosen; keys in one of them (the clip menu's key buttons).
    expect(await command(page, 'clip.new', { name: `${LONG} walk cycle` })).toBe(true);
    await unchanged('a new clip with a long name');
    expect(await command(page, 'key.insertAll')).toBe(true);
    await unchanged('a key in the clip');
    expect(await command(page, 'clip.new', { name: 'Idle' })).toBe(true);
    expect(await command(page, 'playback.clip', 0)).toBe(true);
    await unchanged('choosing the first clip');

    // The project saved under a long name: the scene's name.
    await page.keyboard.press('Control+s');
    await page.waitForFunction((name) => (window as any).__rigwright.project.state().fileName === name, `${LONG}.rig.glb`);
    await page.evaluate(() => (window as any).__rigwright.project.idle());
    await unchanged('saving the project under a long name');

    // A notice, and a message in the status line.
    expect(await command(page, 'paint.sampleWeights', 0)).toBe(true);
    await unchanged('a notice');

    // A scene whose file has a long name.
    mkdirSync(artifactsDir, { recursive: true });
    const long = path.join(artifactsDir, `${LONG}_${LONG}.off`);
    copyFileSync(dataFile('hand', 'hand.off'), long);
    await page.setInputFiles('#file-input', [long, dataFile('hand', 'hand.tgf')]);
    // The scene was saved just before: no save-changes question.
    await page.waitForFunction((name) => (window as any).__rigwright.state().meshFiles.includes(name), path.basename(long), {
      timeout: 90_000,
    });
    expect((await page.evaluate(() => (window as any).__rigwright.state())).error).toBeNull();
    await unchanged('opening a scene with a long file name');

    // An error: computing weights without handles fails, and the banner says so.
    const bound = () => page.waitForFunction(() => !(window as any).__rigwright.binding.state().binding.running, null, { timeout: 90_000 });
    expect(await command(page, 'bind.compute')).toBe(true);
    await bound();
    await expect(page.getByRole('alert')).toContainText('Binding failed');
    await unchanged('an error');
    await page.getByRole('button', { name: 'Dismiss error' }).click();
    await unchanged('the error dismissed');

    // Binding's progress, with automatic handles, to the end.
    expect(await command(page, 'bind.compute', { source: 'distance' })).toBe(true);
    await unchanged('computing weights');
    await bound();
    expect((await page.evaluate(() => (window as any).__rigwright.state())).error).toBeNull();
    await unchanged('the weights computed');
    expect(
      errors.filter((e) => !e.startsWith('Binding failed: There are no handle vertices')),
      'no console error but the one asked for',
    ).toEqual([]);
  });
}

/** The toolbar's height, the tallest of its buttons, and whether its content fits its width. */
async function toolbarRow(page: Page) {
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  return page.locator('#toolbar').evaluate((bar) => {
    const style = getComputedStyle(bar);
    const padding = parseFloat(style.paddingTop) + parseFloat(style.paddingBottom);
    const border = parseFloat(style.borderTopWidth) + parseFloat(style.borderBottomWidth);
    const tallest = Math.max(...[...bar.querySelectorAll('button, select')].map((node) => node.getBoundingClientRect().height));
    return {
      height: bar.getBoundingClientRect().height,
      // One row: the toolbar's box (border-box) is one row of its tallest control with its padding, or its minimum height.
      oneRow: Math.max(tallest + padding + border, parseFloat(style.minHeight)),
      scrollWidth: bar.scrollWidth,
      clientWidth: bar.clientWidth,
      widths: [...bar.children].map((child) => `${child.className}: ${Math.round(child.getBoundingClientRect().width)}`),
    };
  });
}

for (const size of [
  { width: 1280, height: 800 },
  { width: 1440, height: 900 },
]) {
  test(`layout: the toolbar is one row at ${size.width}×${size.height}`, async ({ page }) => {
    await page.setViewportSize(size);
    const errors: string[] = [];
    await openApp(page, errors, { paused: true });
    const fits = async (what: string) => {
      const row = await toolbarRow(page);
      expect(row.height, `the toolbar's height ${what} (${row.widths.join(', ')})`).toBeCloseTo(row.oneRow, 0);
      expect(row.scrollWidth, `the toolbar's content width ${what} (${row.widths.join(', ')})`).toBeLessThanOrEqual(row.clientWidth);
    };
    await fits('as the app opens');

    // Long undo and redo labels, and a scene name longer than the room left.
    expect(await command(page, 'bone.rename', { bone: 0, name: LONG })).toBe(true);
    await page.evaluate((name) => (window as any).__rigwright.command('bone.rename', { bone: 1, name }), `${LONG}_${LONG}`);
    await page.keyboard.press('Control+z');
    await fits('with long undo and redo labels');

    // Each skinning method from the toolbar's list, weight blended last (its slider and value shown).
    const methods = await page
      .locator('#skinning-method option:not([disabled])')
      .evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value));
    expect(methods, 'the skinning methods').toContain('blend');
    for (const method of [...methods.filter((m) => m !== 'blend'), 'blend']) {
      await page.locator('#skinning-method').selectOption(method);
      await fits(`with Skin = ${method}`);
    }
    await expect(page.locator('#blend-amount')).toBeVisible();

    // The split view from the Skin options box, and the pose tool on.
    await page.getByRole('button', { name: 'Skin options' }).click();
    await page.getByLabel('Compare with').selectOption('dqs');
    await page.getByLabel('Flip guard').selectOption('per-bone');
    await page.keyboard.press('Escape');
    await expect(page.getByRole('group', { name: 'Skin options' })).toBeHidden();
    await expect(page.locator('.split-labels')).toBeVisible();
    await page.keyboard.press('r');
    await fits('with the blend slider, the split view and the pose tool');
    expect(errors, 'no console error').toEqual([]);
  });
}
