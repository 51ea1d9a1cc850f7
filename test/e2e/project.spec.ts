/**
 * Project files as a user meets them, in Chromium: on the hand, handles drawn with the lasso, a paint stroke, a bone
 * scale, a lock and changed settings (method, view, per-vertex blend map, brush); the title marks unsaved changes;
 * Ctrl+S saves the project (a download where the page cannot write files itself) and the marker goes; a fresh page
 * opens the file with Ctrl+O and has every array bit for bit, the names and settings, a history that starts at
 * "Opened", and a title without the marker. The fixture written by the first format version opens too (dropped on
 * the page), with the values its script put in. Where the browser has the File System Access API, Save asks once and
 * then writes the same file, and the recent file (its handle kept in IndexedDB) reopens in a fresh page without a
 * picker. The context-aware body with two example shapes (one hidden) and the linear pose-space kernel saves and
 * reopens with the examples' positions and poses bit for bit, their names and hidden flags. Uses
 * `window.__rigwright.project`.
 */
import { test, expect, type Page } from '@playwright/test';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { assignHandlesAroundTopJoint, chooseFiles, dataFile, loadExamples, loadFiles, menuItem, openApp, repoRoot } from './app-driver.ts';
import { readProjectFile } from '../../workers/formats/project-file.ts';
import { projectArrays } from '../../renderer/shell/project-test-hook.ts';

const project = (page: Page) => page.evaluate(() => (window as any).__rigwright.project.state());
const arrays = (page: Page): Promise<Record<string, string | null>> => page.evaluate(() => (window as any).__rigwright.project.arrays());
const values = (page: Page): Promise<Record<string, unknown>> => page.evaluate(() => (window as any).__rigwright.project.values());

/** This page cannot write files itself (no File System Access API): Save downloads, Open uses the file input. */
async function withoutFileAccess(page: Page): Promise<void> {
  await page.addInitScript(() => {
    delete (window as any).showSaveFilePicker;
    delete (window as any).showOpenFilePicker;
  });
}

function base64(array: ArrayBufferView | null | undefined): string | null {
  return array ? Buffer.from(array.buffer, array.byteOffset, array.byteLength).toString('base64') : null;
}

test('hand: edits and settings saved with Ctrl+S, opened in a fresh page with Ctrl+O: every array bit for bit, history "Opened"', async ({
  page,
}) => {
  const errors: string[] = [];
  await withoutFileAccess(page);
  await openApp(page, errors, { paused: true });
  await loadFiles(page, [dataFile('hand/hand.off'), dataFile('hand/hand.tgf'), dataFile('hand/hand-pose_matrot.dmat')], 'hand.off');
  expect((await page.evaluate(() => (window as any).__rigwright.state())).error).toBeNull();
  await page.evaluate(() => (window as any).__rigwright.pause());
  expect(await project(page)).toMatchObject({ fileName: null, dirty: false, title: 'hand.off — Rigwright' });

  // Handles: a lasso around the topmost joint, assigned to bone 3 with the A key.
  expect(await assignHandlesAroundTopJoint(page, 3)).toBeGreaterThan(10);

  // Weights: a paint stroke across the middle of the view.
  await page.keyboard.press('p');
  await page.evaluate(() => (window as any).__rigwright.paint.setBrush({ mode: 'add', strength: 0.5, radius: 30, falloff: 'linear' }));
  await page.evaluate(() => (window as any).__rigwright.paint.selectBone(0));
  const box = (await page.locator('canvas').first().boundingBox())!;
  await page.mouse.move(box.x + box.width / 2 - 40, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 + 40, box.y + box.height / 2, { steps: 8 });
  await page.mouse.up();
  await page.keyboard.press('p');

  // A bone scale, a lock, and settings: dual quaternions, the weight map, a per-vertex blend map, 3 max influences
  // (in the Bind panel: an undo step with the weights it limits).
  await page.evaluate(() => (window as any).__rigwright.setBoneScale(2, [1.25, 0.8, 1.1]));
  await page.evaluate(() => (window as any).__rigwright.paint.setLocked(1, true));
  await page.evaluate(() => (window as any).__rigwright.setMethod('dqs'));
  await page.evaluate(() => (window as any).__rigwright.binding.setView('heatmap'));
  await page.keyboard.press('b');
  await page.locator('.bind-panel select.max-influences').selectOption('3');
  await page.keyboard.press('b');
  await page.evaluate(() => {
    const h = (window as any).__rigwright;
    const n = h.state().vertexCount;
    h.setBlendWeights(Array.from({ length: n }, (_, v) => (v % 7) / 6));
  });
  await page.evaluate(() => (window as any).__rigwright.paint.selectBone(2));

  const edited = await project(page);
  expect(edited.undo).toHaveLength(5);
  expect(edited.undo[0]).toMatch(/^Assign \d+ handles to bone 3$/);
  expect(edited.undo.slice(1, 4)).toEqual(['Paint stroke', 'Scale bone 2', 'Lock bone 1']);
  expect(edited.undo[4]).toMatch(/^Max influences 4 → 3/);
  expect(edited).toMatchObject({ dirty: true, title: '• hand.off — Rigwright' });
  const before = await arrays(page);
  const beforeValues = await values(page);
  expect(before.handles).not.toBeNull();
  expect(before.boneScales).not.toBeNull();
  expect(before.blend).not.toBeNull();
  expect(beforeValues).toMatchObject({
    skin: { method: 'dqs' },
    view: { mode: 'heatmap', influences: 3, selectedBone: 2 },
    paint: { brush: { falloff: 'linear', strength: 0.5, radius: 30 }, maxInfluences: 3 },
    export: { influences: 3 },
  });

  // Ctrl+S: no file yet, so Save as; this page downloads it.
  const download = page.waitForEvent('download');
  await page.keyboard.press('Control+s');
  const file = await download;
  expect(file.suggestedFilename()).toBe('hand.rig.glb');
  const saved = path.join(mkdtempSync(path.join(tmpdir(), 'rigwright-project-')), file.suggestedFilename());
  await file.saveAs(saved);
  await page.evaluate(() => (window as any).__rigwright.project.idle());
  expect(await project(page)).toMatchObject({ fileName: 'hand.rig.glb', dirty: false, title: 'hand.rig.glb — Rigwright' });
  const bytes = readFileSync(saved);
  expect(bytes.subarray(0, 4).toString('latin1')).toBe('glTF');
  // The file itself, read in Node: the weights are the page's, bit for bit.
  const read = readProjectFile(new Uint8Array(bytes), 'hand.rig.glb');
  expect(base64(read.scene.weights.data)).toBe(before.weights);
  expect(read.scene.weights.data.some((w) => Math.fround(w) !== w)).toBe(true);

  // A fresh page opens it with Ctrl+O (the file picker of a page without the File System Access API).
  const fresh = await page.context().newPage();
  await withoutFileAccess(fresh);
  await openApp(fresh, errors, { paused: true });
  expect((await project(fresh)).title).toMatch(/^[^•].* — Rigwright$/);
  await chooseFiles(fresh, () => fresh.keyboard.press('Control+o'), saved);
  await fresh.waitForFunction(() => (window as any).__rigwright.project.state().fileName === 'hand.rig.glb');
  await fresh.evaluate(() => (window as any).__rigwright.project.idle());
  const opened = await project(fresh);
  expect(opened).toMatchObject({
    fileName: 'hand.rig.glb',
    dirty: false,
    title: 'hand.rig.glb — Rigwright',
    origin: 'Opened',
    undo: [],
    error: null,
  });
  expect(opened.recent).toContain('hand.rig.glb');
  // Recent files: in the File menu (its recent group, after Open project, Save, Save as, Import and the exchange group;
  // separators left out), on the desktop and in the page's menu bar.
  const fileMenu: string[] = await fresh.evaluate(() =>
    (window as any).__rigwright
      .menu()
      .find((m: any) => m.label === 'File')
      .items.filter((i: any) => !i.separator)
      .map((i: any) => i.label),
  );
  expect(fileMenu.slice(0, 4)).toEqual(['Open project…', 'Save', 'Save as…', 'Import…']);
  expect(fileMenu, 'the File menu lists the saved project').toContain('1. hand.rig.glb');
  expect(await arrays(fresh)).toEqual(before);
  expect(await values(fresh)).toEqual(beforeValues);
  const state = await fresh.evaluate(() => (window as any).__rigwright.state());
  expect(state).toMatchObject({ sceneName: 'hand.off', method: 'dqs', influences: 3, selectedBone: 2 });
  expect((await fresh.evaluate(() => (window as any).__rigwright.binding.state())).view).toBe('heatmap');

  // An edit marks it unsaved again; undo clears the marker.
  await fresh.evaluate(() => (window as any).__rigwright.setBoneScale(0, [1.5, 1.5, 1.5]));
  await expect.poll(async () => (await project(fresh)).title).toBe('• hand.rig.glb — Rigwright');
  await fresh.keyboard.press('Control+z');
  await expect.poll(async () => (await project(fresh)).title).toBe('hand.rig.glb — Rigwright');
  expect(errors).toEqual([]);
});

test('the fixture of format 1, dropped on the page, opens with the values its script put in', async ({ page }) => {
  const errors: string[] = [];
  await openApp(page, errors, { paused: true });
  const fixture = path.join(repoRoot, 'test/fixtures/project-v1.rig.glb');
  const expected = readProjectFile(new Uint8Array(readFileSync(fixture)), 'project-v1.rig.glb');
  await page.setInputFiles('#file-input', fixture);
  await page.waitForFunction(() => (window as any).__rigwright.project.state().fileName === 'project-v1.rig.glb');
  await page.evaluate(() => (window as any).__rigwright.project.idle());
  expect(await project(page)).toMatchObject({ origin: 'Opened', dirty: false, title: 'project-v1.rig.glb — Rigwright', error: null });
  const got = await arrays(page);
  expect(got).toEqual(projectArrays(expected));
  // The names it holds: the mesh, skeleton and settings' arrays, and the poses as the first clip (walk, matrices)
  // beside the two clips (wave, quaternions); no examples in format 1.
  expect(Object.keys(got).sort()).toEqual(
    [
      'positions',
      'triangles',
      'joints',
      'bones',
      'weights',
      'handles',
      'boneScales',
      'blend',
      'locked',
      'poses.rotations',
      'poses.translations',
      'clip walk.rotations',
      'clip walk.translations',
      'clip wave.final',
    ].sort(),
  );
  expect(got['poses.rotations']).toBe(got['clip walk.rotations']);
  expect(got['poses.translations']).toBe(got['clip walk.translations']);
  expect(await values(page)).toEqual({
    name: 'arm.obj',
    meshFiles: ['arm.obj'],
    skeletonFile: 'arm.tgf',
    boneNames: ['upper', 'lower', 'hand'],
    weightsSource: 'arm-weights.dmat',
    posesFile: 'walk',
    poseKind: 'matrices',
    clips: ['walk', 'wave'],
    handlesFile: 'arm-handles.dmat',
    skin: { method: 'dqs', antipodality: 'per-bone', split: 'lbs', heatMap: true, blend: null },
    view: { mode: 'heatmap', isoLines: false, wireframe: true, skeleton: false, influences: 3, asExported: false, selectedBone: 1 },
    paint: {
      brush: { mode: 'smooth', radius: 25, strength: 0.6, falloff: 'linear', value: 0.4, spacing: 0.5, throughMesh: true },
      symmetry: 0,
      locked: null,
      maxInfluences: 3,
    },
    // The export's influences are the scene's max influences (the paint settings' 3), not the 8 the file's export held.
    export: { format: 'glb', influences: 3, weightComponent: 'unsigned-short' },
    // Format 1 had no examples: the file opens with none and the default kernel.
    posespace: { kernel: 'gaussian' },
    examples: [],
  });
  expect(errors).toEqual([]);
});

test('context-aware body with two examples (one hidden) and the linear kernel: saved, opened in a fresh page, examples bit for bit', async ({
  page,
}) => {
  test.setTimeout(240_000);
  const errors: string[] = [];
  const body = (name: string) => dataFile(`context-aware/${name}`);
  await withoutFileAccess(page);
  await openApp(page, errors, { paused: true });
  await loadFiles(page, [body('reference.obj'), body('skeleton.tgf')], 'reference.obj');
  expect((await page.evaluate(() => (window as any).__rigwright.state())).error).toBeNull();
  await loadExamples(page, [body('eg0.obj'), body('eg0.dmat'), body('eg1.obj'), body('eg1.dmat')], 2);
  await page.evaluate(() => (window as any).__rigwright.pause());
  expect(await page.evaluate(() => (window as any).__rigwright.command('examples.toggle', 'eg1'))).toBe(true);
  expect(await page.evaluate(() => (window as any).__rigwright.command('examples.kernel', 'linear'))).toBe(true);

  const before = await arrays(page);
  const beforeValues = await values(page);
  expect(beforeValues).toMatchObject({
    posespace: { kernel: 'linear' },
    examples: [
      { name: 'eg0', file: 'eg0.obj', poseSource: 'eg0.dmat', hidden: false },
      { name: 'eg1', file: 'eg1.obj', poseSource: 'eg1.dmat', hidden: true },
    ],
  });
  // The page's examples are the files' numbers: eg0.obj's first vertex, read here, and 28 bones × 9 pose entries.
  const eg0 = readFileSync(body('eg0.obj'), 'utf8')
    .split('\n')
    .find((line) => line.startsWith('v '))!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const positions0 = new Float64Array(Buffer.from(before['example eg0.positions']!, 'base64').buffer.slice(0));
  expect(Array.from(positions0.subarray(0, 3))).toEqual(eg0);
  expect(Buffer.from(before['example eg1.pose']!, 'base64').length).toBe(8 * 9 * 28);

  const download = page.waitForEvent('download');
  await page.keyboard.press('Control+s');
  const file = await download;
  expect(file.suggestedFilename()).toBe('reference.rig.glb');
  const saved = path.join(mkdtempSync(path.join(tmpdir(), 'rigwright-project-')), file.suggestedFilename());
  await file.saveAs(saved);
  await page.evaluate(() => (window as any).__rigwright.project.idle());
  // The file itself, read in Node: format 2, the examples' arrays the page's, bit for bit.
  const read = readProjectFile(new Uint8Array(readFileSync(saved)), 'reference.rig.glb');
  expect(read.formatVersion).toBe(2);
  expect(read.scene.examples.map((e) => [e.name, e.hidden])).toEqual([
    ['eg0', false],
    ['eg1', true],
  ]);
  for (const e of read.scene.examples) {
    expect(base64(e.positions)).toBe(before[`example ${e.name}.positions`]);
    expect(base64(e.pose)).toBe(before[`example ${e.name}.pose`]);
  }

  const fresh = await page.context().newPage();
  await withoutFileAccess(fresh);
  await openApp(fresh, errors, { paused: true });
  await chooseFiles(fresh, () => fresh.keyboard.press('Control+o'), saved);
  await fresh.waitForFunction(() => (window as any).__rigwright.project.state().fileName === 'reference.rig.glb');
  await fresh.evaluate(() => (window as any).__rigwright.project.idle());
  expect(await project(fresh)).toMatchObject({ origin: 'Opened', dirty: false, undo: [], error: null });
  expect(await arrays(fresh)).toEqual(before);
  expect(await values(fresh)).toEqual(beforeValues);
  // The app's own Examples state, not only the project's view of it.
  const examples = await fresh.evaluate(() => (window as any).__rigwright.examples.state());
  expect(examples.kernel).toBe('linear');
  expect(examples.examples.map((e: { name: string; hidden: boolean }) => [e.name, e.hidden])).toEqual([
    ['eg0', false],
    ['eg1', true],
  ]);
  expect(errors).toEqual([]);
});

test('with the File System Access API: Save asks once, then writes the same file; the recent file reopens in a fresh page', async ({
  page,
}) => {
  const errors: string[] = [];
  // The pickers hand out a real file handle of the origin's private file system (a picker dialog cannot be driven here).
  await page.context().addInitScript(() => {
    const w = window as any;
    w.__pickerCalls = 0;
    const handle = async () => (await navigator.storage.getDirectory()).getFileHandle('hand.rig.glb', { create: true });
    w.showSaveFilePicker = async () => {
      w.__pickerCalls++;
      return handle();
    };
    w.showOpenFilePicker = async () => {
      w.__pickerCalls++;
      return [await handle()];
    };
  });
  await openApp(page, errors, { paused: true });
  await loadFiles(page, [dataFile('hand/hand.off'), dataFile('hand/hand.tgf')], 'hand.off');
  const pickerCalls = (p: Page): Promise<number> => p.evaluate(() => (window as any).__pickerCalls);
  const save = async (p: Page) => {
    await p.keyboard.press('Control+s');
    await p.waitForFunction(() => !(window as any).__rigwright.project.state().dirty);
    await p.evaluate(() => (window as any).__rigwright.project.idle());
  };

  await page.evaluate(() => (window as any).__rigwright.setBoneScale(1, [1.2, 1.2, 1.2]));
  await save(page);
  expect(await pickerCalls(page)).toBe(1);
  expect(await project(page)).toMatchObject({ fileName: 'hand.rig.glb', title: 'hand.rig.glb — Rigwright' });

  await page.evaluate(() => (window as any).__rigwright.paint.setLocked(0, true));
  await page.evaluate(() => (window as any).__rigwright.setBoneScale(2, [0.7, 0.7, 0.7]));
  expect((await project(page)).title).toBe('• hand.rig.glb — Rigwright');
  await save(page);
  expect(await pickerCalls(page), 'Save wrote the same file without asking').toBe(1);
  const secondSave = await arrays(page);
  const written = await page.evaluate(async () => {
    const file = await (await (await navigator.storage.getDirectory()).getFileHandle('hand.rig.glb')).getFile();
    return file.size;
  });
  expect(written).toBeGreaterThan(1000);

  // A fresh page: the recent file (its handle kept in IndexedDB) opens from File → Open Recent without a picker.
  const fresh = await page.context().newPage();
  await openApp(fresh, errors, { paused: true });
  const recent = await menuItem(fresh, 'File', 'file.recentFirst');
  await expect(recent.locator('.menu-label')).toHaveText('1. hand.rig.glb');
  await recent.click();
  await fresh.waitForFunction(() => (window as any).__rigwright.project.state().fileName === 'hand.rig.glb');
  await fresh.evaluate(() => (window as any).__rigwright.project.idle());
  expect(await pickerCalls(fresh)).toBe(0);
  expect(await project(fresh)).toMatchObject({ origin: 'Opened', dirty: false, title: 'hand.rig.glb — Rigwright' });
  expect(await arrays(fresh)).toEqual(secondSave);
  // Save in the new page goes to the same file, still without asking.
  await fresh.evaluate(() => (window as any).__rigwright.setBoneScale(0, [1.1, 1.1, 1.1]));
  await save(fresh);
  expect(await pickerCalls(fresh)).toBe(0);
  expect(errors).toEqual([]);
});
