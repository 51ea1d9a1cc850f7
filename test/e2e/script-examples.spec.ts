/**
 * The four built-in scripts (renderer/scripting/examples/) give the same result in the app and headless: each runs in
 * the web build through the app's script controller (the test hook's runScript, as the Scripting panel's Run does;
 * prune-and-limit from the panel itself, opened from Examples ▾ and run with Run) on the course's hand or body loaded
 * through the page's file input, and through `rigwright run` (Node, spawned here) on the same files. The weights are
 * compared as the bytes of their float64 values (the CLI's through the project it saves with --save, which keeps
 * them at full precision), the bone names for mirror-and-rename, and the exported GLB files byte for byte for
 * export-clips (the web build's writes are downloads, caught here); what the scripts print, too.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test, expect, type Download, type Page } from '@playwright/test';
import { dataFile, loadFiles, openApp, repoRoot } from './app-driver.ts';
import { readProjectFile } from '../../workers/formats/project-file.ts';

interface Run {
  result: { status: string; error?: { message: string; line?: number }; changed: boolean };
  output: { kind: 'log' | 'error' | 'progress'; text: string }[];
}

const EXAMPLES = path.join(repoRoot, 'renderer/scripting/examples');
const CLI = path.join(repoRoot, 'app/cli/rigwright.mjs');

const HAND = [dataFile('hand/hand.off'), dataFile('hand/hand.tgf')];

/** Runs `rigwright run EXAMPLE ARGS…` in `cwd`; fails the test with its output unless it exits 0. */
function runHeadless(example: string, args: string[], cwd: string): { stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [CLI, 'run', path.join(EXAMPLES, example), ...args], { cwd, encoding: 'utf8', timeout: 110_000 });
  expect(run.status, `rigwright run ${example} ${args.join(' ')}\n${run.stdout}\n${run.stderr}`).toBe(0);
  return { stdout: run.stdout, stderr: run.stderr };
}

/** The project `rigwright run --save` wrote: its weights' float64 bytes (base64) and its bone names. */
function savedProject(file: string): { weights: string; names: string[] } {
  const project = readProjectFile(new Uint8Array(readFileSync(file)), path.basename(file));
  expect(project.notices, 'the project reads back without corrections').toEqual([]);
  const data = project.scene.weights.data;
  return {
    weights: Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64'),
    names: project.scene.boneNames ?? [],
  };
}

/** The app's weights as the bytes of their float64 values (base64), and its bone names. */
function appScene(page: Page): Promise<{ weights: string; names: string[] }> {
  return page.evaluate(() => {
    const hook = (window as any).__rigwright;
    const bytes = new Uint8Array(new Float64Array(hook.snapshot().weights as number[]).buffer);
    let text = '';
    for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return { weights: btoa(text), names: hook.skeleton().names as string[] };
  });
}

/**
 * Opens the app on `files` and runs the example there to its end, with no time limit (the solve takes seconds here).
 * @param edits  whether the example edits the scene (one undo step named after it), or only reads and writes files
 */
async function runInApp(page: Page, files: string[], mesh: string, example: string, edits = true): Promise<Run> {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  await loadFiles(page, files, mesh);
  expect(await page.evaluate(() => (window as any).__rigwright.state().error)).toBeNull();
  await page.evaluate(() => (window as any).__rigwright.setScriptTimeLimit(0));
  const source = readFileSync(path.join(EXAMPLES, example), 'utf8');
  const run = await page.evaluate(([s, f]) => (window as any).__rigwright.runScript(s, f) as Promise<Run>, [source, example] as const);
  expect(run.result.status, JSON.stringify(run.output)).toBe('done');
  expect(run.result.changed, 'the run made an undo step').toBe(edits);
  const undo = await page.evaluate(() => (window as any).__rigwright.history().undo as string[]);
  if (edits) expect(undo.at(-1)).toBe(`Script: ${example}`);
  else expect(undo, 'no undo step').toEqual([]);
  expect(errors).toEqual([]);
  return run;
}

/**
 * Opens the app on `files` and runs the example as an artist does: the Scripting panel (Ctrl+Shift+E), Examples ▾,
 * the example, Run; waits for the console's closing line.
 * @returns the console's lines (what the script printed, then how the run ended)
 */
async function runFromPanel(page: Page, files: string[], mesh: string, example: string): Promise<string[]> {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  await loadFiles(page, files, mesh);
  await page.evaluate(() => (window as any).__rigwright.setScriptTimeLimit(0));
  await page.keyboard.press('Control+Shift+E');
  const panel = page.getByRole('complementary', { name: 'Scripting' });
  await expect(panel.locator('.monaco-editor')).toBeVisible();
  await panel.getByRole('button', { name: 'Examples ▾' }).click();
  await panel.getByRole('menuitem', { name: example }).click();
  await expect(panel.locator('.script-name')).toHaveText(example);
  await panel.getByRole('button', { name: 'Run', exact: true }).click();
  const lines = panel.getByRole('log', { name: 'Script output' }).locator('.script-line');
  await expect(lines.last()).toContainText(`${example} done in`, { timeout: 110_000 });
  const undo = await page.evaluate(() => (window as any).__rigwright.history().undo as string[]);
  expect(undo.at(-1)).toBe(`Script: ${example}`);
  expect(errors).toEqual([]);
  return lines.allInnerTexts();
}

/** What the app's run printed (print / console.log), without the controller's closing line. */
function printed(run: Run): string[] {
  return run.output
    .slice(0, -1)
    .filter((line) => line.kind === 'log')
    .map((line) => line.text);
}

/** What the CLI printed on standard output, without --save's `wrote FILE`. */
function stdoutLines(stdout: string): string[] {
  return stdout.split('\n').filter((line) => line !== '' && !line.startsWith('wrote '));
}

/**
 * A names file for the body's TGF (context-aware/skeleton.tgf), which has none: a bone whose end joint lies at +x
 * (the body's left) is `limbK.L` and its mirror partner at −x `limbK.R` (K the smaller bone index of the pair,
 * partners matched by the mirrored end joint), a bone on the middle `limbK`.
 */
function bodyBoneNames(tgf: string): string[] {
  const [jointPart, bonePart] = tgf.split(/^#\s*$/m);
  const joints = jointPart
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).slice(1, 4).map(Number));
  const ends = bonePart
    .trim()
    .split('\n')
    .map((line) => joints[Number(line.trim().split(/\s+/)[1]) - 1]);
  const side = (p: number[]) => (p[0] > 0.02 ? 1 : p[0] < -0.02 ? -1 : 0);
  return ends.map((end, k) => {
    if (side(end) === 0) return `limb${k}`;
    let partner = -1;
    let best = Infinity;
    ends.forEach((other, j) => {
      const d = Math.hypot(other[0] + end[0], other[1] - end[1], other[2] - end[2]);
      if (side(other) === -side(end) && d < best) [partner, best] = [j, d];
    });
    return `limb${Math.min(k, partner)}.${side(end) > 0 ? 'L' : 'R'}`;
  });
}

test('bind-cylinder-uniform.ts on the hand: the same weights in the app and from rigwright run, bit for bit', async ({ page }) => {
  const folder = test.info().outputPath('cli');
  mkdirSync(folder, { recursive: true });
  const cli = runHeadless('bind-cylinder-uniform.ts', ['--scene', ...HAND, '--save', 'hand.rig.glb'], folder);
  const headless = savedProject(path.join(folder, 'hand.rig.glb'));

  const run = await runInApp(page, HAND, 'hand.off', 'bind-cylinder-uniform.ts');
  const app = await appScene(page);
  expect(app.weights === headless.weights, 'the weights’ float64 bytes are the same').toBe(true);
  // The solve's time in the weights' source differs from run to run; the rest of what is printed does not.
  const untimed = (lines: string[]) => lines.map((line) => line.replace(/, [\d.]+ s\)/, ', … s)'));
  expect(untimed(printed(run))).toEqual(untimed(stdoutLines(cli.stdout)));
  expect(printed(run)[0]).toBe('hand.off: 4780 vertices, 20 bones');
  // The bones the cylinders miss are warned about in both.
  const warning = run.output.find((line) => line.kind === 'error')?.text;
  expect(warning).toMatch(/^no handle vertices for .+: try a larger radius$/);
  expect(cli.stderr).toContain(warning);
});

test('prune-and-limit.ts on the hand, run from the Scripting panel’s Examples ▾: the same weights as from rigwright run, bit for bit', async ({
  page,
}) => {
  const folder = test.info().outputPath('cli');
  mkdirSync(folder, { recursive: true });
  const cli = runHeadless('prune-and-limit.ts', ['--scene', ...HAND, '--save', 'hand.rig.glb'], folder);
  const headless = savedProject(path.join(folder, 'hand.rig.glb'));

  const shown = await runFromPanel(page, HAND, 'hand.off', 'prune-and-limit.ts');
  const app = await appScene(page);
  expect(app.weights === headless.weights, 'the weights’ float64 bytes are the same').toBe(true);
  expect(shown.slice(0, -1), 'the panel’s console shows what the CLI printed').toEqual(stdoutLines(cli.stdout));
  // At most 4 bones per vertex, rows summing to 1: the run did what it says.
  const weights = (await page.evaluate(() => (window as any).__rigwright.snapshot().weights)) as number[];
  for (let v = 0; v < weights.length / 20; v++) {
    const row = weights.slice(v * 20, v * 20 + 20);
    expect(row.filter((w) => w !== 0).length, `vertex ${v}'s influences`).toBeLessThanOrEqual(4);
  }
});

test('mirror-and-rename.ts on the body: the same weights and bone names in the app and from rigwright run', async ({ page }) => {
  const folder = test.info().outputPath('cli');
  mkdirSync(folder, { recursive: true });
  const names = bodyBoneNames(readFileSync(dataFile('context-aware/skeleton.tgf'), 'utf8'));
  expect(new Set(names).size, 'every bone its own name').toBe(names.length);
  // The names file goes beside a copy of the skeleton, as the loader pairs skeleton.tgf with skeleton.names.
  writeFileSync(path.join(folder, 'skeleton.tgf'), readFileSync(dataFile('context-aware/skeleton.tgf')));
  writeFileSync(path.join(folder, 'skeleton.names'), `${names.join('\n')}\n`);
  const body = [dataFile('context-aware/reference.obj'), path.join(folder, 'skeleton.tgf'), path.join(folder, 'skeleton.names')];
  const cli = runHeadless('mirror-and-rename.ts', ['--scene', ...body, '--save', 'body.rig.glb'], folder);
  const headless = savedProject(path.join(folder, 'body.rig.glb'));

  const run = await runInApp(page, body, 'reference.obj', 'mirror-and-rename.ts');
  const app = await appScene(page);
  expect(app.names).toEqual(headless.names);
  // Every side bone renamed to the engine convention, the middle ones kept.
  const renamed = names.filter((name) => /\.[LR]$/.test(name)).length;
  expect(renamed, 'the body has side bones').toBeGreaterThan(8);
  expect(app.names.filter((name) => /^(Left|Right)Limb\d+$/.test(name)).length).toBe(renamed);
  expect(app.names.filter((name) => /^limb\d+$/.test(name))).toEqual(names.filter((name) => /^limb\d+$/.test(name)));
  expect(app.weights === headless.weights, 'the weights’ float64 bytes are the same').toBe(true);
  expect(printed(run)).toEqual(stdoutLines(cli.stdout));
  expect(printed(run)).toEqual([`mirrored the weights across x = 0; renamed ${renamed} bones`]);
});

test('export-clips.ts on the hand with its pose file: the app downloads the same GLB bytes rigwright run writes', async ({ page }) => {
  const folder = test.info().outputPath('cli');
  mkdirSync(path.join(folder, 'clips'), { recursive: true });
  const files = [...HAND, dataFile('hand/hand-pose_matrot.dmat')];
  runHeadless('export-clips.ts', ['--scene', ...files, '--', 'clips'], folder);
  const written = readdirSync(path.join(folder, 'clips'));
  expect(written).toEqual(['hand-hand-pose_matrot.glb']);

  const downloads: Download[] = [];
  page.on('download', (download) => downloads.push(download));
  const run = await runInApp(page, files, 'hand.off', 'export-clips.ts', false);
  expect(run.output.filter((line) => line.kind === 'progress').map((line) => line.text)).toEqual(['hand-pose_matrot.dmat']);
  await expect.poll(() => downloads.length).toBe(1);
  expect(downloads[0].suggestedFilename()).toBe(written[0]);
  const fromApp = readFileSync(await downloads[0].path());
  const fromCli = readFileSync(path.join(folder, 'clips', written[0]));
  expect(fromApp.subarray(0, 4).toString('latin1'), 'a GLB').toBe('glTF');
  expect(fromApp.length, 'the GLB’s size').toBe(fromCli.length);
  expect(fromApp.equals(fromCli), 'the GLB’s bytes are the same').toBe(true);
  // The GLB's JSON chunk (after the 12-byte header and the chunk's 8-byte header): the skinned hand with its one clip.
  const json = JSON.parse(fromApp.subarray(20, 20 + fromApp.readUInt32LE(12)).toString('utf8'));
  expect(json.animations.map((animation: { name: string }) => animation.name)).toEqual(['hand-pose_matrot']);
  expect(json.skins[0].joints.length, 'a joint node per bone of the hand').toBe(20);
});
