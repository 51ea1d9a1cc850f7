/**
 * Scripts in the app's sandbox (the web build in Chromium), run through the test hook as the scripting panel's Run
 * does: a script binding the hand with automatic handles and pruning its weights changes them, and one Ctrl+Z (the
 * real key) takes the whole run back, bit for bit; `while (true) {}` is ended by Stop and by a 2 s time limit while
 * the viewport keeps drawing and the page answers, the scene unchanged after; Stop during Compute weights on the body
 * cancels the solve and ends the run at once, the scene as before; the network, importScripts and the
 * DOM are not there, each failing with a clear error in the output; a throw names the script's line. The web
 * build's files for scripts: opening asks in the app, whose button opens the file picker; writes are downloads.
 */
import { readFileSync } from 'node:fs';
import { test, expect, type Download, type Page } from '@playwright/test';
import { chooseFiles, dataFile, loadFiles, openApp } from './app-driver.ts';

interface Output {
  kind: 'log' | 'error' | 'progress';
  text: string;
  line?: number;
  column?: number;
  fraction?: number;
}
interface Run {
  result: {
    status: string;
    error?: { message: string; file: string; line?: number; column?: number };
    durationMs: number;
    changed: boolean;
  };
  output: Output[];
}

const snapshot = (page: Page) => page.evaluate(() => (window as any).__rigwright.snapshot());
const undoLabels = (page: Page) => page.evaluate(() => (window as any).__rigwright.history().undo as string[]);
const framesRendered = (page: Page) => page.evaluate(() => (window as any).__rigwright.state().framesRendered as number);
/** Whether a script run is going on. */
const scriptRunning = (page: Page) => page.evaluate(() => (window as any).__rigwright.scriptState().running as boolean);
/** A script that changes the weights and then never ends. */
const PRUNE_THEN_SPIN = 'await rig.paint.prune(0.3);\nwhile (true) {}\n';

/** Runs a script to its end and gives back how it ended and its output. */
function runScript(page: Page, source: string, file: string): Promise<Run> {
  return page.evaluate(([s, f]) => (window as any).__rigwright.runScript(s, f) as Promise<Run>, [source, file] as const);
}

/** Starts a script without waiting for it (its run is kept on the page as `__scriptRun`); resolves once it runs. */
async function startScript(page: Page, source: string, file: string): Promise<void> {
  await page.evaluate(
    ([s, f]) => {
      (window as any).__scriptRun = (window as any).__rigwright.runScript(s, f);
    },
    [source, file] as const,
  );
  await expect.poll(() => scriptRunning(page)).toBe(true);
}

/** Resolves once the scene's weights are no longer `weights` (a running script's edit has landed). */
async function weightsChangedFrom(page: Page, weights: number[]): Promise<void> {
  await expect.poll(async () => JSON.stringify((await snapshot(page)).weights) !== JSON.stringify(weights)).toBe(true);
}

const endOfRun = (page: Page) => page.evaluate(() => (window as any).__scriptRun as Promise<Run>);

/**
 * While a script spins: the viewport draws frame after frame (the demo's clip plays) and the page answers a round
 * trip at once, over `ms` milliseconds.
 * @returns the frames drawn meanwhile and the slowest round trip, ms
 */
async function pageWhileRunning(page: Page, ms: number): Promise<{ frames: number; slowestMs: number }> {
  const first = await framesRendered(page);
  let slowestMs = 0;
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const start = Date.now();
    await page.evaluate(() => (window as any).__rigwright.scriptState());
    slowestMs = Math.max(slowestMs, Date.now() - start);
    await page.waitForTimeout(100);
  }
  return { frames: (await framesRendered(page)) - first, slowestMs };
}

const BIND_AND_PRUNE = `// Bind with automatic cylinder handles and the uniform Laplacian, then prune.
const before = await rig.scene.summary();
print('vertices', before.vertexCount, 'bones', before.boneCount);
rig.progress(0.1, 'computing weights');
await rig.bind.compute({ source: 'cylinder', laplacian: 'uniform' });
rig.progress(0.8, 'pruning');
await rig.paint.prune(0.05);
const rows: WeightRows = await rig.scene.weights();
let small = 0;
for (let i = 0; i < rows.values.length; i++) if (rows.values[i] > 0 && rows.values[i] < 0.05) small++;
print('weights below 0.05:', small);
`;

test('a script binds with automatic handles and prunes; one Ctrl+Z restores the weights bit for bit', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  await loadFiles(page, [dataFile('hand/hand.off'), dataFile('hand/hand.tgf')], 'hand.off');
  // The solve takes seconds on this machine's two cores, shared with the software renderer: no time limit here.
  await page.evaluate(() => (window as any).__rigwright.setScriptTimeLimit(0));
  const before = await snapshot(page);
  const stepsBefore = await undoLabels(page);

  await startScript(page, BIND_AND_PRUNE, 'bind-and-prune.ts');
  // While the weights are computed the status line says so, with the progress the script reported.
  await expect(page.locator('#status')).toContainText('Running script… bind-and-prune.ts 10% · computing weights');
  const run = await endOfRun(page);
  expect(run.result.status, JSON.stringify(run.output)).toBe('done');
  expect(run.result.changed).toBe(true);
  const texts = run.output.map((o) => o.text);
  expect(texts).toContain('vertices 4780 bones 20');
  expect(texts).toContain('weights below 0.05: 0');
  expect(run.output.filter((o) => o.kind === 'progress').map((o) => o.fraction)).toEqual([0.1, 0.8]);
  expect(run.output.at(-1)?.text).toMatch(
    /^bind-and-prune\.ts done in [\d.]+ s: its changes are one undo step, “Script: bind-and-prune\.ts”$/,
  );

  // The weights changed, and every weight left is 0 or at least the threshold (the rows summing to 1 again).
  const after = await snapshot(page);
  expect(after.weights).not.toEqual(before.weights);
  expect(after.weights.every((w: number) => w === 0 || w >= 0.05)).toBe(true);
  const bones = (await page.evaluate(() => (window as any).__rigwright.state().boneCount)) as number;
  for (let v = 0; v < after.weights.length / bones; v++) {
    const sum = after.weights.slice(v * bones, (v + 1) * bones).reduce((a: number, b: number) => a + b, 0);
    // Pruning renormalizes in the paint buffer's float32.
    expect(Math.abs(sum - 1), `vertex ${v}'s weights sum to 1`).toBeLessThan(1e-6);
  }
  expect(await undoLabels(page)).toEqual([...stepsBefore, 'Script: bind-and-prune.ts']);

  // One Ctrl+Z: the whole run, bit for bit (weights, handles and where they came from).
  await page.locator('canvas').first().hover();
  await page.keyboard.press('Control+z');
  await expect.poll(() => undoLabels(page)).toEqual(stepsBefore);
  expect(await snapshot(page)).toEqual(before);
  expect(errors).toEqual([]);
});

test('while (true) {} is ended by Stop, the viewport drawing and the page answering meanwhile; the scene is as before', async ({
  page,
}) => {
  const errors: string[] = [];
  // The demo's clip plays: each frame is drawn, so the count shows the page kept drawing.
  await openApp(page, errors);
  // A step to undo before the run: Ctrl+Z during the run must leave it alone.
  expect((await runScript(page, 'await rig.paint.prune(0.05);', 'first.ts')).result.status).toBe('done');
  const before = await snapshot(page);
  const stepsBefore = await undoLabels(page);
  expect(stepsBefore.at(-1)).toBe('Script: first.ts');

  // It edits the weights first: Stop takes that back too.
  // Printed lines reach the app when the script next waits (the summary), before it spins.
  await startScript(page, 'await rig.paint.prune(0.3);\nprint("pruned");\nawait rig.scene.summary();\nwhile (true) {}\n', 'spin.ts');
  await expect(page.locator('#status')).toContainText('Running script… spin.ts');
  await weightsChangedFrom(page, before.weights);
  const meanwhile = await pageWhileRunning(page, 2000);
  expect(meanwhile.frames, 'frames drawn while the script spins').toBeGreaterThanOrEqual(2);
  // A page the script held would not answer at all until the script ended.
  expect(meanwhile.slowestMs, 'slowest round trip to the page, ms').toBeLessThan(2500);
  expect(await scriptRunning(page)).toBe(true);
  // Undo waits for the run's end: the key does nothing meanwhile.
  await page.locator('canvas').first().hover();
  await page.keyboard.press('Control+z');
  expect(await page.evaluate(() => (window as any).__rigwright.state().error)).toBeNull();

  await page.evaluate(() => (window as any).__rigwright.stopScript());
  const run = await endOfRun(page);
  expect(run.result.status).toBe('stopped');
  expect(run.output.map((o) => o.text)).toContain('pruned');
  expect(run.output.at(-1)?.text).toMatch(/^spin\.ts stopped after [\d.]+ s; the scene is as it was before the run$/);
  expect(await snapshot(page)).toEqual(before);
  expect(await undoLabels(page)).toEqual(stepsBefore);
  await expect(page.locator('#status')).not.toContainText('Running script');
  expect(errors).toEqual([]);
});

test('the Scripting panel’s Stop, clicked with the mouse, ends while (true) {}; the viewport draws meanwhile and the scene is as before', async ({
  page,
}) => {
  const errors: string[] = [];
  await openApp(page, errors);
  await page.keyboard.press('Control+Shift+E');
  const panel = page.getByRole('complementary', { name: 'Scripting' });
  await expect(panel).toBeVisible();
  const stop = panel.getByRole('button', { name: 'Stop', exact: true });
  await expect(stop).toBeDisabled();
  const before = await snapshot(page);
  const stepsBefore = await undoLabels(page);

  await startScript(page, PRUNE_THEN_SPIN, 'spin.ts');
  await weightsChangedFrom(page, before.weights);
  await expect(stop).toBeEnabled();
  const meanwhile = await pageWhileRunning(page, 1000);
  expect(meanwhile.frames, 'frames drawn while the script spins').toBeGreaterThanOrEqual(2);
  expect(await scriptRunning(page), 'still spinning').toBe(true);

  // The real mouse on the button, at its place now.
  const box = (await stop.boundingBox())!;
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  const run = await endOfRun(page);
  expect(run.result.status).toBe('stopped');
  expect(run.output.at(-1)?.text).toMatch(/^spin\.ts stopped after [\d.]+ s; the scene is as it was before the run$/);
  await expect(panel.getByRole('log', { name: 'Script output' })).toContainText('spin.ts stopped after');
  await expect(stop).toBeDisabled();
  expect(await snapshot(page)).toEqual(before);
  expect(await undoLabels(page)).toEqual(stepsBefore);
  const after = await framesRendered(page);
  await expect.poll(() => framesRendered(page), { message: 'the viewport draws after the run' }).toBeGreaterThan(after);
  expect(errors).toEqual([]);
});

test('Esc, pressed with the focus in the script editor and then in the viewport, ends while (true) {} as Stop does; the scene is as before', async ({
  page,
}) => {
  const errors: string[] = [];
  await openApp(page, errors);
  await page.keyboard.press('Control+Shift+E');
  const panel = page.getByRole('complementary', { name: 'Scripting' });
  const editor = panel.locator('.monaco-editor');
  await expect(editor).toBeVisible();
  const stop = panel.getByRole('button', { name: 'Stop', exact: true });
  const before = await snapshot(page);
  const stepsBefore = await undoLabels(page);

  for (const where of ['editor', 'viewport'] as const) {
    await startScript(page, PRUNE_THEN_SPIN, 'spin.ts');
    await weightsChangedFrom(page, before.weights);
    await expect(stop).toBeEnabled();
    if (where === 'editor') {
      await editor.click();
      await expect(editor.locator('textarea')).toBeFocused();
    } else {
      // A press and release on the canvas, at its middle now: the camera takes it, the tools start nothing.
      const box = (await page.locator('canvas').first().boundingBox())!;
      await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
      await expect(editor.locator('textarea')).not.toBeFocused();
    }
    expect(await scriptRunning(page), `still spinning (${where})`).toBe(true);
    await page.keyboard.press('Escape');
    const run = await endOfRun(page);
    expect(run.result.status, where).toBe('stopped');
    expect(run.output.at(-1)?.text).toMatch(/^spin\.ts stopped after [\d.]+ s; the scene is as it was before the run$/);
    await expect(stop).toBeDisabled();
    expect(await snapshot(page), where).toEqual(before);
    expect(await undoLabels(page), where).toEqual(stepsBefore);
  }
  expect(errors).toEqual([]);
});

test('Esc that closes a pop-up while a script runs closes only the pop-up (the Examples ▾ menu, monaco’s completion list); the next Esc stops the run', async ({
  page,
}) => {
  const errors: string[] = [];
  await openApp(page, errors);
  await page.keyboard.press('Control+Shift+E');
  const panel = page.getByRole('complementary', { name: 'Scripting' });
  const editor = panel.locator('.monaco-editor');
  await expect(editor).toBeVisible();
  const before = await snapshot(page);
  const stepsBefore = await undoLabels(page);
  await startScript(page, PRUNE_THEN_SPIN, 'spin.ts');
  await weightsChangedFrom(page, before.weights);

  // Examples ▾ opens with its first item focused; Escape closes it, the focus back on its button, and the run goes on.
  const examples = panel.getByRole('button', { name: 'Examples ▾' });
  const menu = panel.getByRole('menu', { name: 'Examples' });
  await examples.click();
  await expect(menu.getByRole('menuitem').first()).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(menu).toBeHidden();
  await expect(examples).toBeFocused();
  // Time for an Escape that reached the key table to have ended the run.
  await page.waitForTimeout(500);
  expect(await scriptRunning(page), 'the menu’s Escape closed the menu alone').toBe(true);

  // Ctrl+Space in the editor opens monaco’s completion list; Escape closes it, and the run goes on.
  await editor.click();
  await expect(editor.locator('textarea')).toBeFocused();
  const suggestions = editor.locator('.suggest-widget.visible');
  await page.keyboard.press('Control+Space');
  await expect(suggestions).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(suggestions).toBeHidden();
  await page.waitForTimeout(500);
  expect(await scriptRunning(page), 'the completion list’s Escape closed the list alone').toBe(true);

  // The next Escape, nothing open, stops the run: the scene as before.
  await page.keyboard.press('Escape');
  const run = await endOfRun(page);
  expect(run.result.status).toBe('stopped');
  await expect(panel.getByRole('button', { name: 'Stop', exact: true })).toBeDisabled();
  expect(await snapshot(page)).toEqual(before);
  expect(await undoLabels(page)).toEqual(stepsBefore);
  expect(errors).toEqual([]);
});

test('Stop during a script’s Compute weights on the body cancels the solve and ends the run at once; the scene is as before', async ({
  page,
}) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  const body = (name: string) => dataFile('context-aware', name);
  await loadFiles(page, [body('reference.obj'), body('skeleton.tgf')], 'reference.obj');
  await page.evaluate(() => (window as any).__rigwright.setScriptTimeLimit(0));
  const before = await snapshot(page);
  const stepsBefore = await undoLabels(page);

  await startScript(
    page,
    "print('binding');\nawait rig.bind.compute({ method: 'volumetric', voxelResolution: 256 });\nprint('bound');\n",
    'bind-body.ts',
  );
  // Compute weights is under way (in the binding worker) before Stop is pressed.
  await expect
    .poll(() => page.evaluate(() => (window as any).__rigwright.binding.state().binding.running as boolean), { timeout: 60_000 })
    .toBe(true);
  // … and has reported progress from the worker: the solve itself runs, not only its start.
  await expect
    .poll(() => page.evaluate(() => (window as any).__rigwright.binding.state().binding.fraction as number), { timeout: 60_000 })
    .toBeGreaterThan(0);
  expect(await page.evaluate(() => (window as any).__rigwright.binding.state().binding.running), 'still solving').toBe(true);

  // Stop, as the panel's Stop does; the time from it to the run's end, measured in the page.
  const stopped = await page.evaluate(async () => {
    const hook = (window as any).__rigwright;
    const start = performance.now();
    hook.stopScript();
    const run = (await (window as any).__scriptRun) as Run;
    return { ms: performance.now() - start, run, solving: hook.binding.state().binding.running as boolean };
  });
  expect(stopped.run.result.status).toBe('stopped');
  // Cancelling ends the solve's worker at once; the run then ends within about a second (margin for a loaded machine).
  expect(stopped.ms, 'ms from Stop to the end of the run').toBeLessThan(1500);
  expect(stopped.solving, 'the solve was cancelled').toBe(false);
  const texts = stopped.run.output.map((o) => o.text);
  expect(texts).toContain('binding');
  expect(texts).not.toContain('bound');
  expect(stopped.run.output.at(-1)?.text).toMatch(/^bind-body\.ts stopped after [\d.]+ s; the scene is as it was before the run$/);
  expect(await snapshot(page)).toEqual(before);
  expect(await undoLabels(page)).toEqual(stepsBefore);
  expect(await page.evaluate(() => (window as any).__rigwright.state().error)).toBeNull();
  expect(errors).toEqual([]);
});

test('while (true) {} is ended by a 2 s time limit, the viewport drawing meanwhile; the scene is as before', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors);
  await page.evaluate(() => (window as any).__rigwright.setScriptTimeLimit(2));
  const before = await snapshot(page);
  const stepsBefore = await undoLabels(page);

  const started = Date.now();
  await startScript(page, PRUNE_THEN_SPIN, 'spin.ts');
  // Well inside the 2 s: the run is still spinning while the page is watched.
  const meanwhile = await pageWhileRunning(page, 800);
  expect(meanwhile.frames, 'frames drawn while the script spins').toBeGreaterThanOrEqual(2);
  // A page the script held would not answer at all until the script ended.
  expect(meanwhile.slowestMs, 'slowest round trip to the page, ms').toBeLessThan(2500);
  const run = await endOfRun(page);
  const seconds = (Date.now() - started) / 1000;
  expect(run.result.status).toBe('timed-out');
  expect(run.result.durationMs).toBeGreaterThanOrEqual(1900);
  expect(seconds, 'the run ended soon after its 2 s').toBeLessThan(8);
  expect(run.output.at(-1)?.text).toBe('spin.ts reached the time limit (2 s) and was stopped; the scene is as it was before the run');
  expect(await snapshot(page)).toEqual(before);
  expect(await undoLabels(page)).toEqual(stepsBefore);
  expect(errors).toEqual([]);
});

test('a new scene the user opens while a script runs stops the script first; nothing of the run reaches the new scene', async ({
  page,
}) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  await startScript(page, 'await rig.paint.prune(0.3);\nprint("pruned");\nwhile (true) {}\n', 'spin.ts');
  await expect.poll(() => page.evaluate(() => (window as any).__rigwright.scriptState().status)).toMatch(/^Running script… spin\.ts/);
  // The demo commands wait for the run (a running script holds the scene against the user's commands)…
  await expect(page.evaluate(() => (window as any).__rigwright.loadTwistDemo())).rejects.toThrow(/a script is running — Stop it first/);
  // …but files the user opens make a new scene, which stops the run.
  await loadFiles(page, [dataFile('hand/hand.off'), dataFile('hand/hand.tgf')], 'hand.off');
  const run = await endOfRun(page);
  expect(run.result.status).toBe('stopped');
  const state = await page.evaluate(() => (window as any).__rigwright.state());
  expect(state.boneCount, 'the hand: 20 bones').toBe(20);
  expect(await undoLabels(page), 'the new scene’s history has no step of the run').toEqual([]);
  // The hand as it opens on its own, bit for bit.
  const opened = await snapshot(page);
  await loadFiles(page, [dataFile('hand/hand.off'), dataFile('hand/hand.tgf')], 'hand.off');
  expect(opened).toEqual(await snapshot(page));
  expect(errors).toEqual([]);
});

test('no network, no importScripts, no DOM: each fails with a clear error in the output, and nothing reaches the network', async ({
  page,
}) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  const requests: string[] = [];
  // The script's worker is a blob: of the page; anything else not of the app's origin left it.
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith('blob:') && !url.startsWith(new URL(page.url()).origin)) requests.push(url);
  });
  const before = await snapshot(page);
  const cases = [
    {
      file: 'fetch.ts',
      source: "print('start');\nawait fetch('http://127.0.0.1');\n",
      word: /fetch is not available to scripts: they run without the network/,
      line: 2,
    },
    {
      file: 'import-scripts.ts',
      source: "print('start');\nimportScripts('x.js');\n",
      word: /importScripts is not available to scripts/,
      line: 2,
    },
    {
      file: 'document.ts',
      source: "print('start');\nprint(document.title);\n",
      word: /document is not available to scripts: they run without the page/,
      line: 2,
    },
  ];
  for (const { file, source, word, line } of cases) {
    const run = await runScript(page, source, file);
    expect(run.result.status, file).toBe('failed');
    expect(run.result.error?.message, file).toMatch(word);
    expect(run.result.error?.line, `${file}: the line of the call`).toBe(line);
    const failures = run.output.filter((o) => o.kind === 'error');
    expect(failures.length, `${file}: the error and the last line`).toBeGreaterThanOrEqual(2);
    expect(failures[0].text, file).toMatch(word);
    expect(failures[0].line, file).toBe(line);
    expect(run.output.at(-1)?.text).toMatch(
      new RegExp(`^${file.replace('.', '\\.')} failed after [\\d.]+ s; the scene is as it was before the run$`),
    );
  }
  expect(requests, 'requests that left the app').toEqual([]);
  expect(await snapshot(page)).toEqual(before);
  expect(errors).toEqual([]);
});

test('a script that throws reports the line and column of its throw in the script, its TypeScript types and all', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  const source = [
    "print('one');",
    'interface Limit {',
    '  bones: number;',
    '}',
    'const limit: Limit = { bones: 4 };',
    // Types before the throw on its line: sucrase takes them out, and the column must still be the script's.
    "const max: Record<string, number> = {} as Record<string, number>; if (limit.bones < 8) throw new Error('too few bones for this rig');",
    "print('never', max);",
  ].join('\n');
  const run = await runScript(page, source, 'throws.ts');
  expect(run.result.status).toBe('failed');
  // The engine names `new Error`'s place: its column in the script's own line 6, found in the text.
  const column = source.split('\n')[5].indexOf('new Error') + 1;
  expect(column).toBeGreaterThan(80);
  expect(run.result.error).toMatchObject({
    file: 'throws.ts',
    line: 6,
    column,
    message: expect.stringMatching(/too few bones for this rig/),
  });
  const texts = run.output.map((o) => o.text);
  expect(texts[0]).toBe('one');
  expect(texts).not.toContain('never');
  const failure = run.output.find((o) => o.kind === 'error');
  expect(failure?.line).toBe(6);
  expect(failure?.text).toMatch(/too few bones for this rig/);
  expect(errors).toEqual([]);
});

test('files in the web build: open asks in the app and loads what the user picks; each write is a download named after the path', async ({
  page,
}) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  const downloads: Download[] = [];
  page.on('download', (download) => downloads.push(download));
  const source = [
    "await rig.files.open(['/data/hand/hand.off', 'hand.tgf']);",
    'const summary = await rig.scene.summary();',
    'print(summary.vertexCount, summary.boneCount);',
    "print(await rig.files.exportGltf('out/hand.glb', { influences: 4 }));",
    "print(await rig.files.saveProject('out/hand.rig.glb'));",
  ].join('\n');
  await startScript(page, source, 'files.ts');
  const notice = page.locator('.notice');
  await expect(notice).toContainText('files.ts asks to open hand.off, hand.tgf');
  await chooseFiles(page, () => notice.getByRole('button', { name: 'Choose the files…' }).click(), [
    dataFile('hand/hand.off'),
    dataFile('hand/hand.tgf'),
  ]);
  const run = await endOfRun(page);
  expect(run.result.status, JSON.stringify(run.output)).toBe('done');
  expect(run.output.slice(0, 3).map((o) => o.text)).toEqual(['4780 20', 'hand.glb', 'hand.rig.glb']);
  expect((await page.evaluate(() => (window as any).__rigwright.state())).meshFiles).toEqual(['hand.off']);
  await expect.poll(() => downloads.length).toBe(2);
  expect(downloads.map((d) => d.suggestedFilename())).toEqual(['hand.glb', 'hand.rig.glb']);
  for (const download of downloads) {
    const bytes = readFileSync(await download.path());
    expect(bytes.subarray(0, 4).toString('latin1'), `${download.suggestedFilename()} is a GLB`).toBe('glTF');
  }

  // Refuse: the script fails saying so, and no picker opens.
  await startScript(page, "await rig.files.open('arm.off');", 'refused.ts');
  await expect(notice).toContainText('refused.ts asks to open arm.off');
  await notice.getByRole('button', { name: 'Refuse' }).click();
  const refused = await endOfRun(page);
  expect(refused.result.status).toBe('failed');
  expect(refused.result.error?.message).toMatch(/files\.open: the user did not open arm\.off/);
  expect(errors).toEqual([]);
});
