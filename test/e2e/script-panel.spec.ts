/**
 * The Scripting panel with real keystrokes in monaco, on the course hand: Ctrl+Shift+E opens it; `rig.` lists the
 * API's members (bind, scene, paint) in the suggest widget; `rig.paint.prune('x')` is underlined as an error (a
 * string where the threshold is a number); a typed script that computes weights with automatic cylinder handles and
 * prunes them runs with Ctrl+Enter, the console says it is done and how long it took, the weights and the heat map
 * change, and one Ctrl+Z restores the weights bit for bit; while a script runs, Run is greyed, Stop is not and the
 * bar shows the progress it reports; an error's "line L, column C" puts the cursor there; a built-in example opens
 * from Examples ▾ and runs; the text typed is kept for the next window of the app; with every file served under the
 * desktop app's Content-Security-Policy header, monaco's workers and a script's sandbox work and nothing is refused.
 * Writes test/e2e/screenshots/script-panel.png
 * (1440×900) for the README. Uses `window.__rigwright`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test, expect, type Locator, type Page } from '@playwright/test';
import { CONTENT_SECURITY_POLICY, CROSS_ORIGIN_ISOLATION_HEADERS } from '../../app/app-scheme.ts';
import { chooseFiles, dataFile, loadFiles, openApp, repoRoot } from './app-driver.ts';

const hook = (page: Page) => ({
  weights: (): Promise<number[]> => page.evaluate(() => (window as any).__rigwright.paint.weightsSnapshot()),
  command: (id: string, argument?: unknown): Promise<boolean> =>
    page.evaluate(([i, a]) => (window as any).__rigwright.command(i, a), [id, argument] as const),
  undoLabels: (): Promise<string[]> => page.evaluate(() => (window as any).__rigwright.history().undo),
  /** the viewport's pixels on a 16 × 12 grid over the canvas, drawn now */
  pixels: async (): Promise<number[][]> => {
    const box = (await page.locator('canvas').first().boundingBox())!;
    const points = Array.from({ length: 16 * 12 }, (_, i) => ({
      x: box.x + ((i % 16) + 0.5) * (box.width / 16),
      y: box.y + (Math.floor(i / 16) + 0.5) * (box.height / 12),
    }));
    return page.evaluate((p) => (window as any).__rigwright.look.pixels(p), points);
  },
});

/** Ctrl+Shift+E opens the Scripting panel; its editor, once shown, is clicked into. */
async function openScriptEditor(page: Page): Promise<{ panel: Locator; editor: Locator }> {
  await page.keyboard.press('Control+Shift+E');
  const panel = page.getByRole('complementary', { name: 'Scripting' });
  await expect(panel).toBeVisible();
  const editor = panel.locator('.monaco-editor');
  await expect(editor).toBeVisible();
  await editor.click();
  return { panel, editor };
}

/** Types `lines` into the focused editor one by one, closing any suggestion before each line break. */
async function typeLines(page: Page, lines: readonly string[]): Promise<void> {
  for (const line of lines) {
    await page.keyboard.type(line);
    await page.keyboard.press('Escape');
    await page.keyboard.press('Enter');
  }
}

/** Empties the editor with the keys an artist would use. */
async function clearEditor(page: Page): Promise<void> {
  await page.keyboard.press('Control+a');
  await page.keyboard.press('Delete');
}

test('scripting panel: completions, type errors, a typed script run with Ctrl+Enter and undone with one Ctrl+Z, an example', async ({
  page,
}) => {
  test.setTimeout(240_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  const errors: string[] = [];
  const requested: string[] = [];
  page.on('request', (request) => requested.push(request.url()));
  await openApp(page, errors, { paused: true });
  await page.evaluate((keys) => keys.forEach((key) => localStorage.removeItem(key)), ['rigwright.scriptDraft', 'rigwright.recentScripts']);
  await loadFiles(page, [dataFile('hand', 'hand.off'), dataFile('hand', 'hand.tgf')], 'hand.off');
  const app = hook(page);
  // The heat map of the first bone, as the artist looks at it before the script.
  expect(await app.command('view.mode', 'heatmap')).toBe(true);
  expect(await app.command('bone.select', 0)).toBe(true);

  // Ctrl+Shift+E opens the panel; monaco loads then (not at the app's start).
  expect(await page.locator('.monaco-editor').count(), 'no editor before the panel opens').toBe(0);
  expect(
    requested.filter((url) => /editor\.api|script-editor|ts\.worker|editor\.worker/.test(url)),
    'monaco is not loaded before the panel opens',
  ).toEqual([]);
  const { panel, editor } = await openScriptEditor(page);

  // `rig.` lists the API: each member found by its first letters in the suggest widget.
  await page.keyboard.type('rig.');
  const suggest = page.locator('.suggest-widget');
  await expect(suggest).toBeVisible();
  for (const member of ['bind', 'scene', 'paint']) {
    await page.keyboard.type(member.slice(0, 3));
    await expect(
      suggest.locator('.monaco-list-row .label-name', { hasText: new RegExp(`^${member}$`) }),
      `rig.${member} is offered`,
    ).toBeVisible();
    for (let i = 0; i < 3; i++) await page.keyboard.press('Backspace');
  }
  await page.keyboard.press('Escape');
  await clearEditor(page);

  // Signature help names the argument as the call is typed; a hover shows the call's documentation.
  await page.keyboard.type('await rig.paint.prune(');
  const hints = page.locator('.parameter-hints-widget');
  await expect(hints).toBeVisible();
  await expect(hints).toContainText('threshold');
  await page.keyboard.press('Escape');
  await editor.locator('.view-line span', { hasText: /^prune$/ }).hover();
  const hover = page.locator('.monaco-hover');
  await expect(hover.getByText('Drop weights below a threshold', { exact: false })).toBeVisible();
  await page.mouse.move(0, 0);
  await clearEditor(page);

  // A string where prune takes a number is a type error, underlined.
  await page.keyboard.type("await rig.paint.prune('x')");
  await page.keyboard.press('Escape');
  await expect(editor.locator('.squiggly-error').first(), 'the wrong argument is underlined').toBeVisible({ timeout: 30_000 });
  await clearEditor(page);
  await expect(editor.locator('.squiggly-error')).toHaveCount(0, { timeout: 30_000 });

  // A script typed and run with Ctrl+Enter: automatic cylinder handles, harmonic weights, pruned.
  const before = await app.weights();
  const pixelsBefore = await app.pixels();
  await typeLines(page, [
    "await rig.bind.compute({ source: 'cylinder', laplacian: 'uniform' })",
    'await rig.paint.prune(0.05)',
    'const rows = await rig.scene.weights()',
    "print('influences', rows.influences)",
  ]);
  await expect(editor.locator('.squiggly-error'), 'the script type-checks').toHaveCount(0);
  // What is typed in the editor is text, not the app's keys (P would be weight paint mode, W the wireframe).
  expect(await page.evaluate(() => (window as any).__rigwright.tool().id)).toBe('select');
  expect(
    requested.some((url) => /ts\.worker/.test(url)),
    'the TypeScript worker came from the app',
  ).toBe(true);
  await expect(panel.locator('.script-name')).toHaveText('untitled.ts •');
  await page.keyboard.press('Control+Enter');
  const output = panel.getByRole('log', { name: 'Script output' });
  await expect(output.locator('.script-line').last()).toContainText(/untitled\.ts done in \d+\.\d\d s/, { timeout: 120_000 });
  await expect(output).toContainText('influences');
  const after = await app.weights();
  expect(after.length).toBe(before.length);
  expect(
    after.some((w, i) => w !== before[i]),
    'the script changed the weights',
  ).toBe(true);
  // Pruned at 0.05: no weight left between 0 and 0.05 (renormalized rows keep at least what was pruned away).
  expect(after.filter((w) => w > 0 && w < 0.05).length, 'no weight under the prune threshold').toBe(0);
  expect((await app.undoLabels()).at(-1)).toBe('Script: untitled.ts');
  const pixelsAfter = await app.pixels();
  expect(
    pixelsAfter.some((p, i) => p.some((c, k) => c !== pixelsBefore[i][k])),
    'the heat map changed',
  ).toBe(true);

  // One Ctrl+Z, outside the editor (in it, Ctrl+Z is the editor's own undo), restores the weights bit for bit.
  await panel.locator('.bind-header h2').click();
  await page.keyboard.press('Control+z');
  await expect.poll(() => app.weights()).toEqual(before);

  // A run reporting progress: Run greyed, Stop not, the bar at the fraction with its message; Stop ends it.
  const run = panel.getByRole('button', { name: 'Run', exact: true });
  const stop = panel.getByRole('button', { name: 'Stop', exact: true });
  await expect(run).toBeEnabled();
  await expect(stop).toBeDisabled();
  await page.evaluate(() => {
    void (window as any).__rigwright.runScript("rig.progress(0.5, 'half way')\nawait new Promise(() => {})", 'waits.ts');
  });
  await expect(run).toBeDisabled();
  await expect(stop).toBeEnabled();
  const bar = panel.getByRole('progressbar', { name: 'Script progress' });
  await expect(bar).toBeVisible();
  await expect(bar).toHaveJSProperty('value', 0.5);
  await expect(panel.locator('.script-progress')).toContainText('half way');
  await stop.click();
  await expect(output.locator('.script-line').last()).toContainText('waits.ts stopped');
  await expect(run).toBeEnabled();
  await expect(bar).toBeHidden();

  // An error names its line and column; a click there puts the editor's cursor on it.
  await editor.click();
  await clearEditor(page);
  await typeLines(page, ["print('first line')", "throw new Error('on purpose')"]);
  await page.keyboard.press('Control+Enter');
  const place = output.getByRole('button', { name: /^line 2(, column \d+)?$/ });
  await expect(place).toBeVisible();
  await expect(output.locator('.script-error').first()).toContainText('on purpose');
  await place.click();
  const cursor = panel.locator('.monaco-editor .cursors-layer .cursor');
  const secondLine = await page.evaluate(
    () =>
      [...document.querySelectorAll('.script-panel .monaco-editor .view-line')]
        .find((l) => l.textContent?.includes('purpose'))
        ?.getBoundingClientRect().top,
  );
  expect(secondLine, 'the failing line is shown').toBeDefined();
  await expect
    .poll(async () => Math.abs((await cursor.boundingBox())!.y - secondLine!), { message: 'the cursor is on the failing line' })
    .toBeLessThan(1);

  // What is typed is kept: another window of the app opens with it, marked unsaved.
  const typed = await panel.locator('.view-lines').innerText();
  const second = await page.context().newPage();
  await second.setViewportSize({ width: 1440, height: 900 });
  await openApp(second, errors, { paused: true });
  await second.keyboard.press('Control+Shift+E');
  const secondPanel = second.getByRole('complementary', { name: 'Scripting' });
  await expect(secondPanel.locator('.monaco-editor')).toBeVisible();
  await expect(secondPanel.locator('.view-lines')).toHaveText(typed, { useInnerText: true });
  await expect(secondPanel.locator('.script-name')).toHaveText('untitled.ts •');
  await second.close();

  // An example from Examples ▾ replaces it once the unsaved text may go, and runs.
  await panel.getByRole('button', { name: 'Examples ▾' }).click();
  await panel.getByRole('menuitem', { name: 'bind-cylinder-uniform.ts' }).click();
  await expect(panel.locator('.script-question')).toContainText('untitled.ts has changes that are not saved');
  await panel.locator('.script-question').getByRole('button', { name: 'Discard' }).click();
  await expect(panel.locator('.script-name')).toHaveText('bind-cylinder-uniform.ts');
  await expect(panel.locator('.view-lines')).toContainText('rig.scene.summary()');
  const exampleBefore = await app.weights();
  await run.click();
  await expect(output.locator('.script-line').last()).toContainText(/bind-cylinder-uniform\.ts done in/, { timeout: 120_000 });
  expect(
    (await app.weights()).some((w, i) => w !== exampleBefore[i]),
    'the example changed the weights',
  ).toBe(true);
  expect((await app.undoLabels()).at(-1)).toBe('Script: bind-cylinder-uniform.ts');

  await page.locator('.script-panel .bind-header h2').click();
  await page.screenshot({ path: path.join(repoRoot, 'test/e2e/screenshots/script-panel.png') });
  expect(errors).toEqual([]);
});

test('scripting panel: docked in the right column with the other panels open, none overlapping, its editor and console usable', async ({
  page,
}) => {
  const errors: string[] = [];
  await page.setViewportSize({ width: 1440, height: 900 });
  await openApp(page, errors, { paused: true });
  await page.keyboard.press('g');
  await page.keyboard.press('o');
  await page.locator('#bone-list .bone-row').first().click();
  await expect(page.locator('.bone-scale-panel')).toBeVisible();
  await page.keyboard.press('Control+Shift+E');
  const panel = page.getByRole('complementary', { name: 'Scripting' });
  await expect(panel.locator('.monaco-editor')).toBeVisible();
  await expect(page.locator('.panel-column-right > #script-panel'), 'the panel is docked in the right column').toHaveCount(1);
  const panels = await page.$$eval('.panel-column > .docked-panel', (nodes) =>
    nodes
      .filter((node) => !(node as HTMLElement).hidden && getComputedStyle(node).display !== 'none')
      .map((node) => {
        const box = node.getBoundingClientRect();
        return { name: node.id || node.className, x: box.x, y: box.y, width: box.width, height: box.height };
      }),
  );
  expect(panels.length, 'the examples, the bone list, the bone scales and the Scripting panel').toBeGreaterThanOrEqual(4);
  for (const [i, a] of panels.entries()) {
    expect(a.height, `${a.name} keeps its header and some rows`).toBeGreaterThan(50);
    for (const b of panels.slice(i + 1)) {
      const overlapX = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
      const overlapY = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
      expect(overlapX <= 0 || overlapY <= 0, `${a.name} and ${b.name} overlap`).toBe(true);
    }
  }
  const editorBox = (await panel.locator('.script-editor').boundingBox())!;
  const consoleBox = (await panel.getByRole('log', { name: 'Script output' }).boundingBox())!;
  expect(editorBox.height, 'the editor shows several lines').toBeGreaterThan(100);
  expect(consoleBox.height, 'the console shows a few lines').toBeGreaterThan(40);
  expect(consoleBox.y, 'the console is below the editor').toBeGreaterThanOrEqual(editorBox.y + editorBox.height);
  // Ctrl+Shift+E again closes it.
  await page.locator('#bone-list .bone-row').first().click();
  await page.keyboard.press('Control+Shift+E');
  await expect(panel).toBeHidden();
  expect(errors).toEqual([]);
});

test('scripting panel: Save as… downloads the script under its name, Open… reads a .ts file, Recent ▾ reopens a script as saved, unsaved text is asked about', async ({
  page,
}, testInfo) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  await page.evaluate((keys) => keys.forEach((key) => localStorage.removeItem(key)), ['rigwright.scriptDraft', 'rigwright.recentScripts']);
  const { panel, editor } = await openScriptEditor(page);
  await page.keyboard.type("print('saved')");
  const name = panel.locator('.script-name');
  await expect(name).toHaveText('untitled.ts •');

  // Save as…: the name asked in the panel (.ts added), the file downloaded with the editor's text.
  await panel.getByRole('button', { name: 'Save as…' }).click();
  const field = panel.getByRole('textbox', { name: 'Script file name' });
  await field.fill('mirror');
  const [download] = await Promise.all([page.waitForEvent('download'), field.press('Enter')]);
  expect(download.suggestedFilename()).toBe('mirror.ts');
  expect(readFileSync(await download.path(), 'utf8')).toBe("print('saved')");
  await expect(name).toHaveText('mirror.ts');

  // Open…: a .ts file from disk replaces the text (nothing unsaved, so nothing is asked).
  const other = testInfo.outputPath('other.ts');
  writeFileSync(other, "print('from disk')\n");
  await chooseFiles(page, () => panel.getByRole('button', { name: 'Open…' }).click(), other);
  await expect(name).toHaveText('other.ts');
  await expect(panel.locator('.view-lines')).toContainText("print('from disk')");

  // Unsaved changes are asked about before Open… replaces them: Cancel keeps them.
  await editor.click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('// more');
  await expect(name).toHaveText('other.ts •');
  await panel.getByRole('button', { name: 'Open…' }).click();
  const question = panel.locator('.script-question');
  await expect(question).toContainText('other.ts has changes that are not saved');
  await question.getByRole('button', { name: 'Cancel' }).click();
  await expect(question).toBeHidden();
  await expect(panel.locator('.view-lines')).toContainText('// more');

  // Recent ▾ lists both, newest first; mirror.ts comes back as saved once the unsaved text may go.
  await panel.getByRole('button', { name: 'Recent ▾' }).click();
  const recent = panel.getByRole('menu', { name: 'Recent' }).getByRole('menuitem');
  await expect(recent).toHaveText(['other.ts', 'mirror.ts']);
  await recent.filter({ hasText: 'mirror.ts' }).click();
  await question.getByRole('button', { name: 'Discard' }).click();
  await expect(name).toHaveText('mirror.ts');
  await expect(panel.locator('.view-lines')).toHaveText("print('saved')");
  expect(errors).toEqual([]);
});

test('scripting panel under the desktop app’s Content-Security-Policy and isolation headers, as the app serves every file: monaco’s workers complete and check, a script runs, nothing is refused', async ({
  page,
  context,
}) => {
  test.setTimeout(120_000);
  // Every response — the page, its scripts, monaco's worker scripts — carries the headers the desktop app sends
  // (app/app-scheme.ts): the policy beside the page's own meta policy, and the cross-origin isolation pair, as in
  // the desktop window.
  const desktopHeaders: Record<string, string> = { 'content-security-policy': CONTENT_SECURITY_POLICY };
  for (const [name, value] of Object.entries(CROSS_ORIGIN_ISOLATION_HEADERS)) desktopHeaders[name.toLowerCase()] = value;
  const served: string[] = [];
  await context.route('**/*', async (route) => {
    const response = await route.fetch();
    served.push(route.request().url());
    await route.fulfill({ response, headers: { ...response.headers(), ...desktopHeaders } });
  });
  const refusals: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) refusals.push(message.text());
  });
  await page.addInitScript(() => {
    const seen: string[] = ((window as any).__cspViolations = []);
    document.addEventListener('securitypolicyviolation', (event) => seen.push(`${event.violatedDirective} ${event.blockedURI}`));
  });
  const errors: string[] = [];
  await openApp(page, errors);
  expect(await page.evaluate(() => crossOriginIsolated), 'the page is cross-origin isolated').toBe(true);
  // The header is in force: a media load, which only the header forbids (media-src 'none'), is refused.
  await page.evaluate(() => {
    const audio = document.createElement('audio');
    audio.src = '/header-check.ogg';
    document.body.append(audio);
  });
  await expect
    .poll(() => page.evaluate(() => (window as any).__cspViolations as string[]))
    .toContain(`media-src ${new URL('/header-check.ogg', page.url()).href}`);
  await expect.poll(() => refusals.length, 'the refusal is reported on the console').toBeGreaterThan(0);
  await page.evaluate(() => ((window as any).__cspViolations.length = 0));
  refusals.length = 0;
  errors.length = 0;

  const { panel, editor } = await openScriptEditor(page);
  await page.keyboard.type('rig.sce');
  await expect(page.locator('.suggest-widget .monaco-list-row .label-name', { hasText: /^scene$/ }), 'completions').toBeVisible();
  await page.keyboard.press('Escape');
  await clearEditor(page);
  await page.keyboard.type("await rig.paint.prune('x')");
  await page.keyboard.press('Escape');
  await expect(editor.locator('.squiggly-error').first(), 'a type error is underlined').toBeVisible({ timeout: 30_000 });
  await clearEditor(page);
  await typeLines(page, ["print('sum', 20 + 22)", 'const summary = await rig.scene.summary()', "print('bones', summary.boneCount)"]);
  await page.keyboard.press('Control+Enter');
  const output = panel.getByRole('log', { name: 'Script output' });
  await expect(output.locator('.script-line').last()).toContainText(/untitled\.ts done in \d+\.\d\d s/, { timeout: 60_000 });
  await expect(output).toContainText('sum 42');
  // The scene's bone count as the page's document holds it (bones: two joint indices per bone).
  const boneCount = await page.evaluate(() => (window as any).__rigwright.work.scene().bones.length / 2);
  expect(boneCount, 'the start scene has bones').toBeGreaterThan(0);
  await expect(output).toContainText(`bones ${boneCount}`);
  // Monaco starts its editor worker when a feature first asks for it, which on a loaded machine may come after the
  // run: wait for both workers.
  const isMonacoWorker = (url: string) => /ts\.worker|editor\.worker/.test(url);
  await expect
    .poll(() => served.filter(isMonacoWorker).length, { message: 'monaco’s workers were served with the header', timeout: 30_000 })
    .toBeGreaterThanOrEqual(2);
  // Monaco's workers started under the embedder policy, and are isolated with the page.
  await expect
    .poll(() => page.workers().filter((worker) => isMonacoWorker(worker.url())).length, {
      message: 'monaco’s editor and TypeScript workers run',
      timeout: 30_000,
    })
    .toBeGreaterThanOrEqual(2);
  const monacoWorkers = page.workers().filter((worker) => isMonacoWorker(worker.url()));
  for (const worker of monacoWorkers) expect(await worker.evaluate(() => crossOriginIsolated), worker.url()).toBe(true);
  expect(await page.evaluate(() => (window as any).__cspViolations as string[]), 'no violation in the page').toEqual([]);
  expect(refusals, 'nothing refused in the page or its workers').toEqual([]);
  expect(errors).toEqual([]);
});
