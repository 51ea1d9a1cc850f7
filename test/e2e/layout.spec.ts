/**
 * The layout stays put when a label changes: at 1280×800 and 1440×900, the viewport canvas keeps its box while edits
 * with long undo labels go in and are undone, the tools, skinning methods and views are switched, clips with long
 * names are made and chosen, the project is saved under a long name (the recent files list), a scene with a long file
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

    // The project saved under a long name: the scene's name, and the recent files list.
    await page.keyboard.press('Control+s');
    await page.waitForFunction((name) => (window as any).__rigwright.project.state().fileName === name, `${LONG}.rig.glb`);
    await page.evaluate(() => (window as any).__rigwright.project.idle());
    await expect(page.locator('select.recent-projects option').nth(1)).toHaveText(`${LONG}.rig.glb`);
    await unchanged('saving the project (its name in the recent files)');

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
