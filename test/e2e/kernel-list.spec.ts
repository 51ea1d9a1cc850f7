/**
 * The Examples panel's Kernel list offers exactly the kernels its tooltip and the README name: the panel opens
 * with G, the mouse rests on the list, and the kernels its tooltip names, and those the README's Examples paragraph
 * names, must be its options; each option is chosen with a click and the keys, and the pose-space weights use it.
 */
import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openApp } from './app-driver.ts';

const README = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../README.md');
/** RBF kernel names a text may use for the pose-space weights (lower case) */
const KERNEL_WORDS = ['gaussian', 'linear', 'cubic', 'quintic', 'thin plate', 'multiquadric'];

const named = (text: string): string[] => KERNEL_WORDS.filter((word) => text.toLowerCase().includes(word));

test('the Kernel list offers every kernel its tooltip and the README name, and only those', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors);
  await page.keyboard.press('g');
  const select = page.locator('#examples-panel .kernel-select');
  await expect(select).toBeVisible();
  await select.hover();
  const tooltip = (await select.getAttribute('title')) ?? '';
  const options = await select
    .locator('option')
    .evaluateAll((all) => all.map((o) => ({ value: (o as HTMLOptionElement).value, label: o.textContent ?? '' })));
  const offered = options.map((o) => named(o.label)[0]);
  expect(offered, 'each option is a known kernel').not.toContain(undefined);

  expect(named(tooltip).sort(), `the tooltip "${tooltip}" names the kernels offered`).toEqual([...offered].sort());
  const readme = readFileSync(README, 'utf8');
  const sentence = /weighted by RBF pose-space weights \(([^)]*)\)/.exec(readme.replace(/\s+/g, ' '));
  expect(sentence, 'the README names the kernels of the pose-space weights').not.toBeNull();
  expect(named(sentence![1]).sort(), `the README's "${sentence![1]}" names the kernels offered`).toEqual([...offered].sort());

  // Each option is chosen by mouse and keys (the list opened with a click, an arrow, Enter) and the weights use it.
  const kernel = () => page.evaluate(() => (window as any).__rigwright.examples.state().kernel);
  expect(await kernel()).toBe(options[0].value);
  for (let k = 1; k < options.length; k++) {
    await select.click();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await expect.poll(kernel).toBe(options[k].value);
  }
  await select.click();
  await page.keyboard.press('Home');
  await page.keyboard.press('Enter');
  await expect.poll(kernel).toBe(options[0].value);
  expect(errors).toEqual([]);
});
