/**
 * `rigwright run` and the headless commands under it (renderer/scripting/headless-commands.ts), on the course hand
 * (hand.off, hand.tgf: 20 bones) and the context-aware body (18 453 vertices, 28 bones, symmetric across x).
 *
 * Independent expectations: Compute weights headless equals `rigwright weights` with the same options (limited to the
 * scene's max influences, as the app's Compute weights keeps them); the weight commands equal the app's paint
 * controller running the same commands on the same document; each built-in example run through `rigwright run`
 * equals the same commands run directly on a SceneStore through the headless registry, bit for bit. Also: exit codes
 * (a throw exits 1 naming file:line:column, an empty script exits 0, a bad option exits 2), writes outside the
 * working folder refused without --allow-write, and the sandbox's rules through the CLI.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../../app/cli/main.ts';
import { readDmat } from '../../workers/formats/dmat.ts';
import { mirrorVertexMap } from '../../workers/paint/mirror-vertex-map.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';
import type { SceneDocument } from '../../workers/scene/scene-document.ts';
import { limitInfluences } from '../../workers/weights/limit-influences.ts';
import { AppOnlyCommand, headlessRegistry } from '../../renderer/scripting/headless-commands.ts';
import { sceneFromFiles } from '../../renderer/scripting/headless-scene.ts';
import { headlessPaintController } from './headless-hosts.ts';
import { dataFile } from './shared-data.ts';

const work = mkdtempSync(path.join(tmpdir(), 'rigwright-run-'));

async function rigwright(...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const status = await runCli(args, { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stderr += t) } });
  return { status, stdout, stderr };
}

/** A scene opened as File → Import opens the files (the app's loader), by their paths in the shared data. */
async function opened(...files: string[][]): Promise<SceneDocument> {
  return sceneFromFiles(files.map((parts) => ({ name: parts.at(-1)!, bytes: new Uint8Array(readFileSync(dataFile(...parts))) })));
}

let handDoc: Promise<SceneDocument> | null = null;
/** The hand mesh and skeleton, opened without weights (provisional bone-distance weights, no handles). */
const hand = (): Promise<SceneDocument> => (handDoc ??= opened(['hand', 'hand.off'], ['hand', 'hand.tgf']));

/** A headless registry on a store of `doc`. */
function headless(doc: SceneDocument) {
  const store = new SceneStore(doc, new UndoHistory());
  return { store, commands: headlessRegistry(store) };
}

const bits = (array: ArrayBufferView): Buffer => Buffer.from(array.buffer, array.byteOffset, array.byteLength);

function assertSameBits(actual: ArrayBufferView, expected: ArrayBufferView, what: string): void {
  assert.equal(actual.constructor.name, expected.constructor.name, `${what}: array type`);
  assert.equal(actual.byteLength, expected.byteLength, `${what}: length`);
  assert.ok(bits(actual).equals(bits(expected)), `${what}: the bits differ`);
}

test('headless bind.compute: automatic cylinder handles and the uniform Laplacian give `rigwright weights` with those options, limited to 4 influences as Compute weights keeps them', async () => {
  const { store, commands } = headless(await hand());
  await commands.execute('bind.compute', { source: 'cylinder', laplacian: 'uniform' });
  assert.deepEqual(store.history.undoLabels(), ['Compute weights']);
  assert.match(store.doc.weightsSource, /^harmonic \(uniform, automatic, cylinders r = /);

  const out = path.join(work, 'hand-cylinder-uniform.dmat');
  const cli = await rigwright(
    'weights',
    '--mesh',
    dataFile('hand', 'hand.off'),
    '--skeleton',
    dataFile('hand', 'hand.tgf'),
    '--auto-handles',
    '--rule',
    'cylinder',
    '--laplacian',
    'uniform',
    '--out',
    out,
  );
  assert.equal(cli.status, 0, cli.stderr);
  const solved = readDmat(new Uint8Array(readFileSync(out)), out);
  const expected = limitInfluences(solved, 4, null).weights;
  assert.equal(store.doc.weights.cols, 20, 'the hand has 20 bones');
  assertSameBits(store.doc.weights.data, expected.data, 'headless Compute weights against rigwright weights, limited to 4');
  // The handles the rule chose are the scene's, as the app keeps them.
  assert.ok(store.doc.handles && store.doc.handles.some((h) => h >= 0), 'the automatic handles are the scene’s');
});

test('headless weight commands give the paint panel’s weights, bit for bit, under its undo labels', async () => {
  const doc = await hand();
  const { store, commands } = headless(doc);
  let selected = -1;
  // The paint controller writes the weights' rows in place: it gets a copy of them.
  const appStore = new SceneStore({ ...doc, weights: { ...doc.weights, data: doc.weights.data.slice() } }, new UndoHistory());
  const paint = headlessPaintController(appStore, {
    matcher: {
      mirrorVertexMap: (positions, triangles, axis, tolerance) => Promise.resolve(mirrorVertexMap(positions, triangles, axis, tolerance)),
      cancel: () => undefined,
    },
    selectedBone: () => selected,
  });
  await commands.execute('paint.prune', 0.05);
  await paint.run('prune', 0.05);
  await commands.execute('bone.select', 7);
  await commands.execute('paint.smooth');
  selected = 7;
  await paint.run('smooth');
  await commands.execute('paint.mirrorToNegative', 0);
  await paint.run('mirror-', undefined, 0);
  await commands.execute('paint.normalize');
  await paint.run('normalize');
  assert.deepEqual(store.history.undoLabels(), appStore.history.undoLabels(), 'the same undo steps, the same labels');
  assert.deepEqual(
    store.history.undoLabels(),
    ['Prune weights < 0.05', 'Smooth bone 7', 'Mirror +x → −x', 'Normalize'].slice(0, store.history.undoCount),
  );
  assertSameBits(store.doc.weights.data, appStore.doc.weights.data, 'headless against the paint controller');
  assert.ok(!bits(store.doc.weights.data).equals(bits(doc.weights.data)), 'the commands changed the weights');

  // Undo takes each step back: the weights the scene opened with come back, the very array.
  const after = store.doc.weights;
  for (let i = 0; i < 4; i++) await commands.execute('edit.undo');
  assert.equal(store.doc.weights, doc.weights, 'four undos: the weights opened');
  for (let i = 0; i < 4; i++) await commands.execute('edit.redo');
  assert.equal(store.doc.weights, after, 'four redos: the weights the commands made');
});

test('headless refusals: a command of the app alone says it runs only in the app and why; others say why not now', async () => {
  const { commands } = headless(await hand());
  assert.throws(
    () => commands.execute('view.wireframe'),
    (error: unknown) =>
      error instanceof AppOnlyCommand && /^view\.wireframe runs only in the app: it changes what the window shows$/.test(error.message),
  );
  assert.throws(() => commands.execute('file.export'), /file\.export runs only in the app: .*rig\.files/);
  assert.throws(() => commands.execute('tool.lasso'), /tool\.lasso runs only in the app: it needs the viewport and the pointer$/);
  assert.match(commands.refusal('bind.assign') ?? '', /runs only in the app: it works on the vertices selected in the viewport/);
  assert.throws(
    () => commands.execute('skin.method', 'perface'),
    /skin\.method runs only in the app: "perface" skinning needs the viewport/,
  );
  assert.throws(() => commands.execute('paint.smooth'), /paint\.smooth cannot run now: no bone selected$/);
  assert.throws(() => commands.execute('paint.prune', 2), /paint\.prune: argument must be/);
  assert.throws(() => commands.execute('edit.undo'), /edit\.undo cannot run now: nothing to undo/);
  assert.throws(() => commands.execute('bone.rename', { bone: 20, name: 'x' }), /bone\.rename: bone must be/);
  assert.equal(commands.refusal('paint.prune'), null, 'a headless command with its context met can run');
});

test('headless bone edits and settings: rename, max influences (with its limiting in one step), the selected bone following a delete, undo back to the start', async () => {
  const doc = await hand();
  const { store, commands } = headless(doc);
  await commands.execute('bone.rename', { bone: 3, name: 'index.L' });
  assert.equal(store.doc.boneNames?.[3], 'index.L');
  await commands.execute('bind.maxInfluences', 2);
  assert.equal(commands.state.maxInfluences, 2);
  assert.match(store.history.undoLabel ?? '', /^Max influences 4 → 2, [\d\u2009]+ vertices limited$/);
  for (let v = 0; v < store.doc.weights.rows; v++) {
    let nonZero = 0;
    for (let b = 0; b < store.doc.weights.cols; b++) if (store.doc.weights.data[v * store.doc.weights.cols + b] !== 0) nonZero++;
    assert.ok(nonZero <= 2, `vertex ${v} keeps at most 2 bones, has ${nonZero}`);
  }
  await commands.execute('bone.select', 5);
  await commands.execute('bone.delete', 4);
  assert.equal(commands.state.selectedBone, 4, 'bone 5 is bone 4 once bone 4 is gone');
  assert.equal(store.doc.skeleton.parents.length, 19);
  await commands.execute('skin.method', 'dqs');
  assert.equal(commands.state.skinMethod, 'dqs');
  while (store.history.canUndo) await commands.execute('edit.undo');
  assertSameBits(store.doc.weights.data, doc.weights.data, 'undone to the start');
  assert.equal(store.doc.skeleton, doc.skeleton, 'the skeleton opened');
  assert.equal(commands.state.maxInfluences, 4);
  assert.equal(commands.state.selectedBone, 5, 'the selection moved back with the bones');
});
