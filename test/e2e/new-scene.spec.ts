/**
 * New scene: what was on for the previous scene's examples does not outlive it. With the body's examples' error map
 * on ("error against the example at its pose") and the Examples panel closed, the status line names the map and a
 * click there switches it off; turned on again and the Fox opened, the Fox shows its own look: no map, no overlay in
 * the status line.
 */
import { test, expect, type Page } from '@playwright/test';
import { dataFile } from './app-driver.ts';
import { openBodyWithTwoExamples, openNewScene } from './body-examples.ts';

const exampleMap = (page: Page): Promise<string> => page.evaluate(() => (window as any).__rigwright.examples.state().exampleMap.mode);

test('new scene: an example heat map is shown in the status line, switched off there, and does not outlive its scene', async ({ page }) => {
  test.setTimeout(240_000);
  const errors: string[] = [];
  await openBodyWithTwoExamples(page, errors);
  const panel = page.locator('#examples-panel');
  const status = page.locator('#status');
  const overlay = status.locator('.status-link', { hasText: 'overlay' });

  const showErrorMap = async () => {
    if (!(await panel.isVisible())) await page.keyboard.press('g');
    await panel.locator('.example-map-select').selectOption('error');
    await expect.poll(() => exampleMap(page)).toBe('error');
    await panel.locator('.bind-header button').click();
    await expect(panel).toBeHidden();
  };

  // The map is on with its panel closed: the status line says so, and a click there switches it off.
  await showErrorMap();
  await expect(overlay).toHaveText('overlay: example error map ×');
  await overlay.click();
  await expect.poll(() => exampleMap(page)).toBe('off');
  await expect(overlay).toHaveCount(0);

  // On again, then another scene: the Fox has no examples, and its look is not hidden under the body's map.
  await showErrorMap();
  await expect(overlay).toHaveCount(1);
  await openNewScene(page, dataFile('gltf', 'Fox', 'Fox.glb'), 'Fox.glb');
  await expect.poll(() => exampleMap(page)).toBe('off');
  const look = await page.evaluate(() => (window as any).__rigwright.look.state());
  expect(look.view, 'the Fox opens in its look').toBe('look');
  expect(look.shown, 'its materials are drawn').toBe(true);
  // The texture is decoded after the scene opens.
  await expect
    .poll(async () => {
      const { materials } = await page.evaluate(() => (window as any).__rigwright.look.state());
      return materials.some((m: { textured: boolean }) => m.textured);
    }, 'its texture is on')
    .toBe(true);
  expect((await page.evaluate(() => (window as any).__rigwright.state())).heatMap, 'no distortion map either').toBe(false);
  await expect(status).toContainText('Fox.glb');
  await expect(overlay).toHaveCount(0);
  expect(errors).toEqual([]);
});
