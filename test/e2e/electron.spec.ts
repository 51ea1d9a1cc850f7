/**
 * The desktop app itself, driven through Playwright's Electron support: the window opens on the built page,
 * the preload's bridge is there, the viewport renders into a canvas, and the page has no Node.js (sandbox and
 * context isolation hold); the Scripting panel's editor and TypeScript workers and a script's sandbox worker start
 * under the desktop app's Content-Security-Policy (completions listed, a type error underlined, a script run), with no
 * CSP violation reported. Electron is an optional dependency whose binary cannot always be downloaded; without it
 * this spec prints one `SKIP electron: …` line and is skipped.
 */
import { _electron, test, expect } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const mainScript = path.join(repoRoot, 'dist/app/main.cjs');

/** The Electron binary, or why there is none. */
function findElectron(): { binary: string } | { skip: string } {
  let binary: unknown;
  try {
    // The electron package's main export is the path of the binary it downloaded on install.
    binary = createRequire(import.meta.url)('electron');
  } catch (error) {
    return { skip: `the electron package is absent or incomplete (${(error as Error).message.split('\n')[0]})` };
  }
  if (typeof binary !== 'string' || !existsSync(binary)) return { skip: `no Electron binary at ${String(binary)}` };
  return { binary };
}

test('the desktop window shows the viewport with the bridge and without Node.js', async () => {
  const electron = findElectron();
  if ('skip' in electron) {
    console.log(`SKIP electron: ${electron.skip}`);
    test.skip(true, electron.skip);
    return;
  }
  if (!existsSync(path.join(repoRoot, 'dist/renderer/index.html'))) {
    throw new Error('dist/renderer is missing: build the page first (npm run build:renderer)');
  }
  execFileSync(process.execPath, [path.join(repoRoot, 'app/build.mjs')], { cwd: repoRoot, stdio: 'inherit' });

  // Chromium refuses to start its OS sandbox as root (CI containers); the page-level sandbox still applies.
  const rootArgs = process.getuid?.() === 0 ? ['--no-sandbox'] : [];
  const app = await _electron.launch({ executablePath: electron.binary, args: [...rootArgs, mainScript], cwd: repoRoot });
  try {
    const page = await app.firstWindow();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to (load|create|execute|connect)/i.test(message.text())) violations.push(message.text());
    });
    await page.waitForLoadState('domcontentloaded');
    expect(page.url()).toBe('rigwright://app/index.html');
    expect(await page.evaluate(() => (window as unknown as { rigwright?: { platform?: string } }).rigwright?.platform)).toBe('electron');
    await expect(page.locator('canvas').first()).toBeVisible();
    const pageGlobals = await page.evaluate(() => ({
      require: typeof (globalThis as { require?: unknown }).require,
      process: typeof (globalThis as { process?: unknown }).process,
      module: typeof (globalThis as { module?: unknown }).module,
    }));
    expect(pageGlobals).toEqual({ require: 'undefined', process: 'undefined', module: 'undefined' });
    const bridgeKeys = await page.evaluate(() => Object.keys((window as unknown as { rigwright: object }).rigwright).sort());
    expect(bridgeKeys).toEqual([
      'answerClose',
      'autosave',
      'onCloseRequest',
      'onMenuCommand',
      'openFiles',
      'platform',
      'projects',
      'saveAsset',
      'saveFile',
      'scriptFiles',
      'setMenu',
      'setUnsaved',
    ]);
    // Navigation away from the app and new windows are refused.
    await page.evaluate(() => {
      window.open('https://example.com/');
      location.href = 'https://example.com/';
    });
    await page.waitForTimeout(500);
    expect(page.url()).toBe('rigwright://app/index.html');
    expect(app.windows()).toHaveLength(1);

    // The Scripting panel: monaco's editor and TypeScript workers, and a script's sandbox worker, under this CSP.
    await page.keyboard.press('Control+Shift+E');
    const panel = page.getByRole('complementary', { name: 'Scripting' });
    const editor = panel.locator('.monaco-editor');
    await expect(editor).toBeVisible({ timeout: 60_000 });
    await editor.click();
    await page.keyboard.type('rig.sce');
    await expect(page.locator('.suggest-widget .monaco-list-row .label-name', { hasText: /^scene$/ })).toBeVisible({ timeout: 60_000 });
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.type("await rig.paint.prune('x')");
    await page.keyboard.press('Escape');
    await expect(editor.locator('.squiggly-error').first(), 'a type error is underlined').toBeVisible({ timeout: 60_000 });
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.type("print('sum', 20 + 22)");
    await page.keyboard.press('Control+Enter');
    const output = panel.getByRole('log', { name: 'Script output' });
    await expect(output).toContainText('sum 42', { timeout: 60_000 });
    expect(violations, 'no Content-Security-Policy violation').toEqual([]);
  } finally {
    await app.close();
  }
});
