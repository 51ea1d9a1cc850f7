/**
 * Unposing progress: the Examples panel's bar ends when the examples are unposed, whatever order the worker's
 * messages arrive in, and a new scene starts without it (Cancel clearing it is unit-tested: here the unposing is over
 * before a click could reach it). The body with handles, its weights and eg0, eg1 (G), then Skin → Dual quaternion
 * + examples, as an artist does it.
 */
import { test, expect, type Page } from '@playwright/test';
import { dataFile } from './app-driver.ts';
import { openBodyWithTwoExamples, openNewScene } from './body-examples.ts';

const unposing = (page: Page): Promise<{ running: boolean; example: string; fraction: number }> =>
  page.evaluate(() => (window as any).__rigwright.examples.state().unposing);

test('unposing progress: the bar ends with the unposing and does not carry into the next scene', async ({ page }) => {
  test.setTimeout(240_000);
  const errors: string[] = [];
  await openBodyWithTwoExamples(page, errors);
  const panel = page.locator('#examples-panel');
  const bar = panel.locator('.example-progress');
  const method = page.locator('#skinning-method');
  // What the bar said while it was shown (unposing the body's two examples takes a fraction of a second).
  await page.evaluate(() => {
    const box = document.querySelector<HTMLElement>('#examples-panel .example-progress')!;
    const said: string[] = ((window as any).__barTexts = []);
    new MutationObserver(() => {
      if (!box.hidden) said.push(box.textContent ?? '');
    }).observe(box, { attributes: true, childList: true, characterData: true, subtree: true });
  });
  const barTexts = (): Promise<string[]> => page.evaluate(() => (window as any).__barTexts);

  // Skin → Dual quaternion + examples unposes eg0 and eg1 through DQS; once both are in, the bar is gone and stays gone.
  await method.selectOption('context-dqs');
  await expect.poll(async () => (await barTexts()).some((t) => t.startsWith('Unposing eg1 (DQS)')), 'the bar showed eg1').toBe(true);
  await page.evaluate(() => (window as any).__rigwright.examples.unposed());
  await expect.poll(async () => (await unposing(page)).running, 'the unposing ends with its results').toBe(false);
  await expect(bar, 'no bar once the examples are unposed').toBeHidden();
  // A few frames on (a late report would arrive by then), still no bar.
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  expect(await unposing(page), 'a late report does not bring the bar back').toMatchObject({ running: false });
  await expect(bar).toBeHidden();
  expect(await page.evaluate(() => (window as any).__rigwright.examples.state().cancelled), 'nothing was cancelled').toBe(false);

  // Linear blend + examples unposes them through LBS, and the Fox is opened at once (the unposing may still run, or
  // may have ended within the frame: it takes a fraction of a second): it shows no unposing of the body's examples.
  await method.selectOption('context-lbs');
  await openNewScene(page, dataFile('gltf', 'Fox', 'Fox.glb'), 'Fox.glb');
  await expect.poll(async () => (await unposing(page)).running, 'the Fox shows no unposing of the body’s examples').toBe(false);
  if (!(await panel.isVisible())) await page.keyboard.press('g');
  await expect(panel).toBeVisible();
  await expect(panel.locator('.example-row')).toHaveCount(0);
  await expect(bar).toBeHidden();
  expect(errors).toEqual([]);
});
