/**
 * Notices and panels. An informational notice (a file opened with a warning) goes by itself after a few seconds, and
 * the messages list, opened from the status line or View → Messages, keeps it; a notice shown again goes when another
 * scene opens. Panels opened together — Bind, Examples, Bones, the bone's scales, Pose, the keyboard help — dock in
 * the viewport's side columns: no two of their boxes overlap.
 */
import { test, expect, type Page } from '@playwright/test';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { artifactsDir, dataFile, loadFiles, openApp, runFromMenu } from './app-driver.ts';

/** SimpleSkin with one image whose file is not opened with it: it opens with one warning. */
function simpleSkinWithMissingImage(): string {
  const gltf = JSON.parse(readFileSync(dataFile('gltf', 'SimpleSkin', 'glTF-Embedded', 'SimpleSkin.gltf'), 'utf8'));
  gltf.images = [{ uri: 'skin.png' }];
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'rigwright-notices-')), 'SimpleSkin.gltf');
  writeFileSync(file, JSON.stringify(gltf));
  return file;
}

test('notices: an informational notice times out, the messages list keeps it, and a new scene takes a notice away', async ({ page }) => {
  test.setTimeout(120_000);
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  await loadFiles(page, [simpleSkinWithMissingImage()], 'SimpleSkin.gltf');
  const notice = page.locator('.notice');
  await expect(notice).toBeVisible();
  const title = (await notice.locator('.notice-title').textContent())!;
  expect(title).toContain('SimpleSkin.gltf');
  const lines = await notice.locator('li').allTextContents();
  expect(
    lines.some((line) => line.includes('skin.png')),
    'the missing image is named',
  ).toBe(true);

  // Long enough to read (8 s, and 1.5 s more per line), then it goes without a click.
  const shownAt = Date.now();
  await page.waitForTimeout(4000);
  await expect(notice, 'still there after 4 s').toBeVisible();
  await expect(notice).toBeHidden({ timeout: 15_000 });
  const shownFor = Date.now() - shownAt;
  console.log(`the notice went after ${shownFor} ms`);
  expect(shownFor).toBeGreaterThan(8000);

  // The status line counts the messages; a click lists them, newest first, with their lines.
  const status = page.locator('#status');
  const messages = status.locator('.status-link', { hasText: 'message' });
  await expect(messages).toHaveText('1 message');
  await messages.click();
  const list = page.locator('#messages-panel');
  await expect(list).toBeVisible();
  await expect(list.locator('.message-title')).toHaveText([title]);
  await expect(list.locator('.message-row li')).toHaveText(lines);
  await list.getByRole('button', { name: '×' }).click();
  await expect(list).toBeHidden();

  // Shown again (the warning count), then another scene: the notice goes at once; the list keeps both.
  await status.locator('.status-link', { hasText: 'warning' }).click();
  await expect(notice).toBeVisible();
  await runFromMenu(page, 'File', 'file.twistDemo');
  await expect
    .poll(async () => (await page.evaluate(() => (window as any).__rigwright.state())).meshFiles)
    .not.toContain('SimpleSkin.gltf');
  await expect(notice).toBeHidden({ timeout: 2000 });
  await expect(messages).toHaveText('2 messages');

  // The list from the menu bar: View → Messages.
  await page
    .getByRole('menubar', { name: 'Menu bar' })
    .locator('.menu-title', { hasText: /^View$/ })
    .click();
  await page.locator('#menu-bar .menu-popup button[data-command="view.messages"]').click();
  await expect(list).toBeVisible();
  await expect(list.locator('.message-title')).toHaveCount(2);
  expect(errors).toEqual([]);
});

/** The page boxes of the panels shown now, by name. */
async function shownPanels(page: Page): Promise<{ name: string; x: number; y: number; width: number; height: number }[]> {
  const panels =
    '#bind-panel, #template-panel, #pose-panel, #meshes-panel, #help-overlay, #examples-panel, #bone-list, #paint-panel, .bone-scale-panel, #messages-panel, .notice';
  return page.$$eval(panels, (nodes) =>
    nodes
      .filter((node) => !(node as HTMLElement).hidden && getComputedStyle(node).display !== 'none')
      .map((node) => {
        const box = node.getBoundingClientRect();
        return { name: node.id || node.className, x: box.x, y: box.y, width: box.width, height: box.height };
      }),
  );
}

test('panels: panels opened together dock beside each other and none overlaps another', async ({ page }) => {
  const errors: string[] = [];
  await page.setViewportSize({ width: 1440, height: 900 });
  await openApp(page, errors, { paused: true });

  await page.keyboard.press('b');
  await page.keyboard.press('g');
  await page.keyboard.press('o');
  // A bone chosen in the bone list: its scales show.
  await page.locator('#bone-list .bone-row').first().click();
  await expect(page.locator('.bone-scale-panel')).toBeVisible();
  await page.locator('#toolbar button[data-command="tool.pose"]').click();
  await expect(page.locator('#pose-panel')).toBeVisible();
  await page.locator('#toolbar button[data-command="help.keys"]').click();
  await expect(page.locator('#help-overlay')).toBeVisible();

  await page.screenshot({ path: path.join(artifactsDir, 'panels-docked.png') });
  const panels = await shownPanels(page);
  console.log(
    panels.map((p) => `${p.name}: ${Math.round(p.x)}, ${Math.round(p.y)}, ${Math.round(p.width)} × ${Math.round(p.height)}`).join('\n'),
  );
  const names = panels.map((p) => p.name);
  for (const id of ['bind-panel', 'examples-panel', 'bone-list', 'pose-panel', 'help-overlay', 'bone-scale-panel'])
    expect(
      names.some((n) => n.includes(id)),
      `${id} is shown`,
    ).toBe(true);
  for (const panel of panels) expect(panel.height, `${panel.name} keeps its header and some rows`).toBeGreaterThan(50);
  for (const [i, a] of panels.entries())
    for (const b of panels.slice(i + 1)) {
      const overlapX = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
      const overlapY = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
      expect(overlapX <= 0 || overlapY <= 0, `${a.name} and ${b.name} overlap`).toBe(true);
    }
  // Each panel docks itself where it is made, whenever that is: none floats over the viewport outside the columns.
  const undocked = await page.$$eval(
    '#viewport > .bind-panel, #viewport > .help-overlay, #viewport > .notice, #viewport > .bone-scale-panel, .docked-panel:not(.panel-column > *)',
    (nodes) => nodes.map((node) => node.id || node.className),
  );
  expect(undocked, 'every panel is in a dock column').toEqual([]);
  expect(errors).toEqual([]);
});
