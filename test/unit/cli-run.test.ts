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
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../../app/cli/main.ts';
import { readDmat } from '../../workers/formats/dmat.ts';
import { defaultProjectSettings, PROJECT_EXTENSION, readProjectFile, writeProjectFile } from '../../workers/formats/project-file.ts';
import { documentFromProject, projectSceneOf } from '../../workers/scene/project-document.ts';
import { boneNamesOf } from '../../workers/scene/bone-fields.ts';
import { mirrorVertexMap } from '../../workers/paint/mirror-vertex-map.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';
import { boneCountOf, vertexCountOf, withDerived, type SceneDocument } from '../../workers/scene/scene-document.ts';
import { limitInfluences } from '../../workers/weights/limit-influences.ts';
import { weldVertices } from '../../workers/mesh/weld-vertices.ts';
import { COMMANDS, type CommandId } from '../../renderer/commands/command-catalog.ts';
import { SCRIPT_DENIED_COMMANDS } from '../../renderer/commands/script-access.ts';
import { AppOnlyCommand, HEADLESS_COMMANDS } from '../../renderer/scripting/app-only-commands.ts';
import { headlessRegistry } from '../../renderer/scripting/headless-commands.ts';
import { sceneFromFiles } from '../../renderer/scripting/headless-scene.ts';
import { CliScriptFiles } from '../../app/cli/script/cli-files.ts';
import { glbBin, glbJson } from './glb-json.ts';
import { headlessPaintController } from './headless-hosts.ts';
import { splitCube } from './split-cube.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { dataFile, repoRoot } from './shared-data.ts';

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

test('headless Smooth bone on a cube split into six faces smooths across the seams as the paint panel does: coincident vertices stay equal', async () => {
  const cube = splitCube(4);
  const n = cube.positions.length / 3;
  // Bone 1's weight a function of position (equal on coincident vertices), far from smooth.
  const weights = new Float64Array(2 * n);
  for (let v = 0; v < n; v++) {
    const [x, y, z] = cube.positions.subarray(3 * v, 3 * v + 3);
    const w = Math.min(1, Math.max(0, z * z + 0.3 * Math.sin(7 * x + 3 * y)));
    weights[2 * v] = 1 - w;
    weights[2 * v + 1] = w;
  }
  const skeleton = buildSkeleton(
    { joints: Float64Array.from([0.5, 0.5, 0, 0.5, 0.5, 0.5, 0.5, 0.5, 1]), bones: Uint32Array.from([0, 1, 1, 2]) },
    'chain',
  );
  const doc = withDerived({
    name: 'cube',
    meshFiles: ['cube.off'],
    mesh: { positions: cube.positions, triangles: cube.triangles },
    skeletonFile: 'chain.tgf',
    skeleton,
    weights: { rows: n, cols: 2, data: weights },
    weightsSource: 'test',
    poses: null,
    posesFile: null,
    handles: null,
    handlesFile: null,
    warnings: [],
  });
  const { store, commands } = headless(doc);
  const appStore = new SceneStore({ ...doc, weights: { ...doc.weights, data: weights.slice() } }, new UndoHistory());
  const paint = headlessPaintController(appStore, { selectedBone: () => 1 });
  await commands.execute('bone.select', 1);
  await commands.execute('paint.smooth');
  await paint.run('smooth');
  assertSameBits(store.doc.weights.data, appStore.doc.weights.data, 'headless Smooth bone against the paint controller on the split cube');
  const weld = weldVertices(cube.positions, cube.triangles);
  const smoothed = store.doc.weights.data;
  for (let v = 0; v < n; v++) {
    const first = weld.representative[weld.index[v]];
    assert.equal(smoothed[2 * v + 1], smoothed[2 * first + 1], `vertex ${v} keeps its coincident vertex ${first}'s weight`);
  }
  assert.ok(!bits(smoothed).equals(bits(weights)), 'Smooth changed the weights');
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

test('headless registry: every catalog command has a handler; each one of the app alone is refused before its argument is checked, the others run', async () => {
  const { commands } = headless(await hand());
  assert.deepEqual(commands.missingHandlers(), []);
  const headlessIds = new Set<CommandId>(HEADLESS_COMMANDS);
  for (const id of Object.keys(COMMANDS) as CommandId[]) {
    if (headlessIds.has(id)) {
      assert.doesNotMatch(commands.refusal(id) ?? '', /runs only in the app/, `${id} runs headless`);
      continue;
    }
    // A nonsense argument: the refusal comes first, whatever the command takes.
    assert.throws(
      () => (commands.execute as (id: CommandId, argument?: unknown) => unknown)(id, { nonsense: true }),
      (error: unknown) =>
        error instanceof AppOnlyCommand && error.command === id && error.message.startsWith(`${id} runs only in the app: `),
      `${id} is refused as a command of the app alone`,
    );
    assert.equal(commands.isEnabled(id), false, `${id} is never enabled headless`);
  }
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

test('headless clip commands: the Fox’s clips renamed, a new clip made and lengthened, each one undo step, as the app’s clip commands', async () => {
  const doc = await opened(['gltf', 'Fox', 'Fox.glb']);
  const { store, commands } = headless(doc);
  assert.deepEqual(
    doc.clips?.map((c) => c.name),
    ['Survey', 'Walk', 'Run'],
  );
  await commands.execute('clip.rename', { clip: 1, name: 'Trot' });
  assert.deepEqual(
    store.doc.clips?.map((c) => c.name),
    ['Survey', 'Trot', 'Run'],
  );
  assert.throws(() => commands.execute('clip.rename', { clip: 0, name: 'Run' }), /Run/);
  const made = await commands.execute('clip.new', { name: 'Idle', frames: 10 });
  assert.equal(made, 3);
  assert.equal(store.doc.posesFile, 'Idle', 'the new clip is shown');
  await commands.execute('clip.length', 20);
  assert.equal(store.history.undoCount, 3);
  while (store.history.canUndo) await commands.execute('edit.undo');
  assert.equal(store.doc.clips, doc.clips, 'undone: the clips the Fox opened with');
});

// --- rigwright run ---------------------------------------------------------------------------------------------

const EXAMPLES = path.join(repoRoot, 'renderer', 'scripting', 'examples');

/** A script written into the work folder. @returns its path */
function script(name: string, text: string): string {
  const file = path.join(work, name);
  writeFileSync(file, text);
  return file;
}

/** The scene's weights as a project file stores them: the float64 array its extension names, read raw (unnormalized). */
function storedWeights(file: string): Float64Array {
  const glb = new Uint8Array(readFileSync(file));
  const json = glbJson<{
    bufferViews: { byteOffset?: number; byteLength: number }[];
    extensions: Record<string, { scene: { weights: { data: { bufferView: number; type: string } } } }>;
  }>(glb);
  const ref = json.extensions[PROJECT_EXTENSION].scene.weights.data;
  assert.equal(ref.type, 'float64', 'weights are stored as float64');
  const view = json.bufferViews[ref.bufferView];
  const bytes = glbBin(glb).slice(view.byteOffset ?? 0, (view.byteOffset ?? 0) + view.byteLength);
  return new Float64Array(bytes.buffer);
}

/** A project's document as `rigwright run --project` opens it (the reader's own checks included). */
function projectDocument(file: string): SceneDocument {
  const read = readProjectFile(new Uint8Array(readFileSync(file)), path.basename(file));
  return documentFromProject(read.scene, read.settings);
}

/** `doc` saved as a project in the work folder, with default settings. @returns its path */
async function saveProject(doc: SceneDocument, name: string): Promise<string> {
  const file = path.join(work, name);
  const settings = defaultProjectSettings(vertexCountOf(doc), boneCountOf(doc));
  writeFileSync(file, await writeProjectFile({ scene: projectSceneOf(doc), settings }, name));
  return file;
}

test('rigwright run: exit codes — a throw exits 1 with file:line:column: message, an empty script 0, a bad option or no script 2, --help 0', async () => {
  const throwing = script(
    'throws.ts',
    "print('before');\nconst bones = await rig.scene.bones();\nif (bones.length > 0) throw new Error('boom');\n",
  );
  const thrown = await rigwright('run', throwing, '--scene', dataFile('hand', 'hand.off'), dataFile('hand', 'hand.tgf'));
  assert.equal(thrown.status, 1, thrown.stderr);
  assert.equal(thrown.stdout, 'before\n', 'what the script printed before it threw');
  assert.match(thrown.stderr, new RegExp(`^${throwing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3:\\d+: boom\n$`));

  const empty = await rigwright('run', script('empty.ts', ''));
  assert.deepEqual(empty, { status: 0, stdout: '', stderr: '' });

  const unknown = await rigwright('run', throwing, '--bogus');
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /unknown option '--bogus'[\s\S]*Usage: rigwright run SCRIPT\.ts/);
  assert.equal((await rigwright('run')).status, 2, 'no script');
  assert.equal((await rigwright('run', throwing, '--scene', 'a.off', '--project', 'b.rig.glb')).status, 2, '--scene and --project');
  assert.equal((await rigwright('run', throwing, '--time-limit', '-1')).status, 2, 'a negative time limit');
  const help = await rigwright('run', '--help');
  assert.equal(help.status, 0);
  assert.match(help.stdout, /^Usage: rigwright run SCRIPT\.ts/);

  const missing = await rigwright('run', path.join(work, 'no-such-script.ts'));
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /no-such-script\.ts: cannot read the file/);
});

test('rigwright run: a command scripts may not run fails naming the command and its reason from SCRIPT_DENIED_COMMANDS', async () => {
  const denied = script('denied.ts', "await rig.execute('file.saveAs', null);\n");
  const result = await rigwright('run', denied, '--scene', dataFile('hand', 'hand.off'), dataFile('hand', 'hand.tgf'));
  assert.equal(result.status, 1, result.stderr);
  assert.ok(
    result.stderr.includes(`rig.execute: file.saveAs is not a command scripts can run: ${SCRIPT_DENIED_COMMANDS['file.saveAs']}`),
    `stderr names the command and why: ${result.stderr}`,
  );
  assert.ok(result.stderr.startsWith(`${denied}:1:`), `stderr names the script's line: ${result.stderr}`);
});

test('rigwright run: bind-cylinder-uniform.ts on the hand saves the weights and handles of bind.compute run directly, bit for bit', async () => {
  const out = path.join(work, 'hand-bound.rig.glb');
  const run = await rigwright(
    'run',
    path.join(EXAMPLES, 'bind-cylinder-uniform.ts'),
    '--scene',
    dataFile('hand', 'hand.off'),
    dataFile('hand', 'hand.tgf'),
    '--save',
    out,
  );
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /^hand\.off: 4780 vertices, 20 bones\nweights: harmonic \(uniform, automatic, cylinders r = /);

  const { store, commands } = headless(await hand());
  await commands.execute('bind.compute', { source: 'cylinder', laplacian: 'uniform' });
  assertSameBits(storedWeights(out), store.doc.weights.data, 'the example through rigwright run against bind.compute');
  const saved = projectDocument(out);
  assertSameBits(saved.handles!, store.doc.handles!, 'handles');
  assert.match(saved.weightsSource, /^harmonic \(uniform, automatic, cylinders r = /);
});

test('rigwright run: prune-and-limit.ts on a hand project equals paint.prune, bind.maxInfluences and paint.limit run directly, bit for bit', async () => {
  const project = await saveProject(await hand(), 'hand-provisional.rig.glb');
  const out = path.join(work, 'hand-pruned.rig.glb');
  const run = await rigwright('run', path.join(EXAMPLES, 'prune-and-limit.ts'), '--project', project, '--save', out, '--', '0.02', '3');
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /^non-zero weights: \d+ → \d+ \(pruned below 0\.02, at most 3 per vertex\)\n/);

  const { store, commands } = headless(projectDocument(project));
  await commands.execute('paint.prune', 0.02);
  await commands.execute('bind.maxInfluences', 3);
  await commands.execute('paint.limit');
  assertSameBits(storedWeights(out), store.doc.weights.data, 'the example through rigwright run against the commands');
  const settings = readProjectFile(new Uint8Array(readFileSync(out)), 'hand-pruned.rig.glb').settings;
  assert.equal(settings.paint.maxInfluences, 3, 'the max influences the script set is saved with the project');
});

test('rigwright run --project: the project’s binding options and max influences are the commands’, and --save keeps them', async () => {
  const doc = await hand();
  const settings = defaultProjectSettings(vertexCountOf(doc), boneCountOf(doc));
  settings.binding = { ...settings.binding, source: 'cylinder', laplacian: 'uniform', radiusFraction: 0.06 };
  settings.paint.maxInfluences = 3;
  const project = path.join(work, 'hand-options.rig.glb');
  writeFileSync(project, await writeProjectFile({ scene: projectSceneOf(doc), settings }, 'hand-options.rig.glb'));
  const out = path.join(work, 'hand-options-bound.rig.glb');
  const run = await rigwright('run', script('bind-as-set.ts', 'await rig.bind.compute();\n'), '--project', project, '--save', out);
  assert.equal(run.status, 0, run.stderr);

  const store = new SceneStore(projectDocument(project), new UndoHistory());
  const commands = headlessRegistry(store, { maxInfluences: 3 });
  await commands.execute('bind.compute', { source: 'cylinder', laplacian: 'uniform', radiusFraction: 0.06 });
  assertSameBits(storedWeights(out), store.doc.weights.data, 'Compute weights with the project’s options');
  const saved = readProjectFile(new Uint8Array(readFileSync(out)), 'hand-options-bound.rig.glb').settings;
  assert.equal(saved.paint.maxInfluences, 3);
  assert.deepEqual([saved.binding.source, saved.binding.laplacian, saved.binding.radiusFraction], ['cylinder', 'uniform', 0.06]);
});

test('rigwright run: mirror-and-rename.ts on the body mirrors its weights +x → −x and renames .L/.R bones to Left/Right prefixes, as the commands run directly', async () => {
  // The body with side names: each bone off the middle named by its side, its mirror partner (by position) the same base.
  const doc = await opened(['context-aware', 'reference.obj'], ['context-aware', 'skeleton.tgf']);
  const { store: naming, commands: namer } = headless(doc);
  const { joints, bones } = doc.skeleton;
  const B = boneCountOf(doc);
  const middle = (b: number): number => (joints[3 * bones[2 * b]] + joints[3 * bones[2 * b + 1]]) / 2;
  const side = (b: number): number => (Math.abs(middle(b)) < 0.01 * doc.diagonal ? 0 : Math.sign(middle(b)));
  const expectedNames: string[] = [];
  for (let b = 0; b < B; b++) {
    const mid = (joint: number): number[] => [0, 1, 2].map((k) => joints[3 * joint + k]);
    let base = b;
    if (side(b) < 0) {
      // the +x bone whose mirrored midpoint is nearest
      const here = [0, 1].map((end) => mid(bones[2 * b + end]));
      let best = Infinity;
      for (let c = 0; c < B; c++) {
        if (side(c) <= 0) continue;
        const there = [0, 1].map((end) => mid(bones[2 * c + end]));
        let d = 0;
        for (let end = 0; end < 2; end++)
          d += (here[end][0] + there[end][0]) ** 2 + (here[end][1] - there[end][1]) ** 2 + (here[end][2] - there[end][2]) ** 2;
        if (d < best) [best, base] = [d, c];
      }
    }
    const name = side(b) === 0 ? `spine_${b}` : `limb_${base}${side(b) > 0 ? '.L' : '.R'}`;
    await namer.execute('bone.rename', { bone: b, name });
    expectedNames.push(side(b) === 0 ? name : `${side(b) > 0 ? 'Left' : 'Right'}Limb${base}`);
  }
  assert.ok(
    expectedNames.some((n) => n.startsWith('Left')) && expectedNames.some((n) => n.startsWith('Right')),
    'the body has bones on both sides',
  );
  const project = await saveProject(naming.doc, 'body-named.rig.glb');
  const out = path.join(work, 'body-mirrored.rig.glb');
  const run = await rigwright('run', path.join(EXAMPLES, 'mirror-and-rename.ts'), '--project', project, '--save', out);
  assert.equal(run.status, 0, run.stderr);
  const renamed = expectedNames.filter((n) => !n.startsWith('spine_')).length;
  assert.equal(run.stdout, `mirrored the weights across x = 0; renamed ${renamed} bones\nwrote ${out}\n`);

  const { store, commands } = headless(projectDocument(project));
  await commands.execute('paint.mirrorToNegative', 0);
  boneNamesOf(store.doc).forEach((name, b) =>
    assert.equal(
      name.replace(/^limb_(\d+)\.([LR])$/, (_, n: string, s: string) => `${s === 'L' ? 'Left' : 'Right'}Limb${n}`),
      expectedNames[b],
    ),
  );
  assertSameBits(storedWeights(out), store.doc.weights.data, 'the example through rigwright run against paint.mirrorToNegative');
  assert.ok(!bits(store.doc.weights.data).equals(bits(projectDocument(project).weights.data)), 'mirroring changed the weights');
  assert.deepEqual([...(projectDocument(out).boneNames ?? [])], expectedNames);
});

test('rigwright run: export-clips.ts writes one GLB per clip of the Fox, each the file rig.files.exportGltf writes for that clip; outside the working folder only with --allow-write', async () => {
  const folder = path.join(work, 'clips');
  mkdirSync(folder);
  const fox = dataFile('gltf', 'Fox', 'Fox.glb');
  const refused = await rigwright('run', path.join(EXAMPLES, 'export-clips.ts'), '--scene', fox, '--', folder);
  assert.equal(refused.status, 1);
  assert.match(
    refused.stderr,
    /files\.exportGltf: ".*Fox-Survey\.glb" is outside the working folder \(.*\); run rigwright run with --allow-write to let the script write there\n$/,
  );
  assert.deepEqual(readdirSync(folder), [], 'nothing was written');

  const run = await rigwright('run', path.join(EXAMPLES, 'export-clips.ts'), '--scene', fox, '--allow-write', '--', folder);
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(readdirSync(folder).sort(), ['Fox-Run.glb', 'Fox-Survey.glb', 'Fox-Walk.glb']);

  // The same calls made directly, into another folder.
  const direct = path.join(work, 'clips-direct');
  mkdirSync(direct);
  const doc = await opened(['gltf', 'Fox', 'Fox.glb']);
  const store = new SceneStore(doc, new UndoHistory());
  const commands = headlessRegistry(store);
  const files = new CliScriptFiles({
    store,
    state: commands.state,
    opened: { doc, settings: null, weightsPainted: false, notices: [] },
    cwd: direct,
    projectFolder: null,
    allowWrite: false,
    warn: () => undefined,
  });
  for (const clip of ['Survey', 'Walk', 'Run']) {
    await files['files.exportGltf'](`Fox-${clip}.glb`, { clip });
    const written = new Uint8Array(readFileSync(path.join(folder, `Fox-${clip}.glb`)));
    assert.ok(Buffer.from(written).equals(readFileSync(path.join(direct, `Fox-${clip}.glb`))), `Fox-${clip}.glb: the same bytes`);
    const animations = glbJson<{ animations?: { name?: string }[] }>(written).animations ?? [];
    assert.deepEqual(
      animations.map((a) => a.name),
      [clip],
      `Fox-${clip}.glb holds its clip alone`,
    );
  }
});

test('rigwright run: rig.files paths are relative to the working folder; a write through a symbolic link that leads out of it is refused too', async () => {
  const folder = path.join(work, 'working');
  const outside = mkdtempSync(path.join(tmpdir(), 'rigwright-run-outside-'));
  mkdirSync(folder);
  symlinkSync(outside, path.join(folder, 'link'));
  const saving = script(
    'save-inside.ts',
    "await rig.files.saveProject('inside.rig.glb');\nawait rig.files.saveProject('link/outside.rig.glb');\n",
  );
  const cwd = process.cwd();
  let run: Awaited<ReturnType<typeof rigwright>>;
  try {
    process.chdir(folder);
    run = await rigwright('run', saving);
  } finally {
    process.chdir(cwd);
  }
  assert.equal(run.status, 1);
  assert.match(run.stderr, /save-inside\.ts:2:\d+: files\.saveProject: "link\/outside\.rig\.glb" is outside the working folder/);
  assert.ok(existsSync(path.join(folder, 'inside.rig.glb')), 'the write inside the working folder was made');
  assert.deepEqual(readdirSync(outside), [], 'nothing was written through the link');
});

test('rigwright run: the sandbox’s rules hold through the CLI — no fetch, no Node, and a script that never ends is stopped by --time-limit, saving nothing', async () => {
  const fetching = await rigwright('run', script('fetch.ts', "await fetch('http://127.0.0.1');\n"));
  assert.equal(fetching.status, 1);
  assert.match(fetching.stderr, /fetch\.ts:1:\d+: fetch is not available to scripts: they run without the network\n$/);
  const node = await rigwright(
    'run',
    script('node.ts', "print('start');\nconst g = globalThis as Record<string, unknown>;\nprint(typeof g.process);\n"),
  );
  assert.equal(node.status, 1);
  assert.equal(node.stdout, 'start\n');
  assert.match(node.stderr, /node\.ts:3:\d+: process is not available to scripts: they run without Node/);

  const project = await saveProject(await hand(), 'hand-loop.rig.glb');
  const out = path.join(work, 'hand-loop-out.rig.glb');
  const looping = script('loop.ts', 'await rig.paint.prune(0.2);\nwhile (true) {}\n');
  const started = performance.now();
  const stopped = await rigwright('run', looping, '--project', project, '--save', out, '--time-limit', '0.5');
  assert.equal(stopped.status, 1);
  assert.match(stopped.stderr, /loop\.ts: stopped after the time limit of 0\.5 s/);
  assert.ok(performance.now() - started < 20_000, 'the time limit ended the run');
  assert.deepEqual(
    readdirSync(work).filter((f) => f === 'hand-loop-out.rig.glb'),
    [],
    'a failed run saves nothing',
  );
});

test('rigwright run: a script’s progress, Compute weights’ stages and its bind report (vertices welded, bones without handles) go to stderr', async () => {
  // The hand with its first ten vertices doubled: each copy (at the end) takes the vertex's place in one triangle,
  // so the solve welds 4790 vertices into the hand's 4780.
  const doc = await hand();
  const { positions, triangles } = doc.mesh;
  const n = positions.length / 3;
  const doubled = Float64Array.from([...positions, ...positions.subarray(0, 30)]);
  const rewired = Uint32Array.from(triangles);
  for (let v = 0; v < 10; v++) rewired[rewired.indexOf(v)] = n + v;
  const off = ['OFF', `${n + 10} ${rewired.length / 3} 0`];
  for (let v = 0; v < n + 10; v++) off.push(Array.from(doubled.subarray(3 * v, 3 * v + 3)).join(' '));
  for (let t = 0; t < rewired.length; t += 3) off.push(`3 ${rewired[t]} ${rewired[t + 1]} ${rewired[t + 2]}`);
  const mesh = path.join(work, 'hand-doubled.off');
  writeFileSync(mesh, `${off.join('\n')}\n`);
  assert.equal(weldVertices(doubled, rewired).count, n, 'the copies weld onto the hand’s vertices');

  const binding = script(
    'progress.ts',
    "rig.progress(0.5, 'binding');\nawait rig.bind.compute({ source: 'cylinder', laplacian: 'uniform' });\n",
  );
  const run = await rigwright('run', binding, '--scene', mesh, dataFile('hand', 'hand.tgf'));
  assert.equal(run.status, 0, run.stderr);
  const lines = run.stderr.trimEnd().split('\n');
  assert.equal(lines[0], `${binding}: 50% binding`, 'the script’s rig.progress first');

  // Compute weights' stages, in the Bind panel's words, with the time so far; the fraction never goes back.
  const stages = lines.filter((line) => line.startsWith('rigwright: Compute weights: ') && /\d+% .+ · [\d.]+ s$/.test(line));
  const words = stages.map((line) => /: \d+% (.+) · /.exec(line)![1]);
  for (const stage of ['Choosing handles', 'Building the Laplacian', 'Ordering (fill-reducing)', 'Factorizing (Cholesky)'])
    assert.ok(words.includes(stage), `the stage ${stage} is reported: ${words.join(' | ')}`);
  assert.ok(words.indexOf('Choosing handles') < words.indexOf('Factorizing (Cholesky)'), 'the stages in order');
  const percents = stages.map((line) => Number(/: (\d+)% /.exec(line)![1]));
  assert.ok(
    percents.every((p, i) => i === 0 || p >= percents[i - 1]),
    `the fraction only grows: ${percents.join(', ')}`,
  );
  assert.equal(percents.at(-1), 100, 'the last stage is the end');

  // The report after the stages: what was welded, and the bones the cylinders missed as `rigwright weights` reports
  // them with the same options on the hand itself (whose vertices are the welded ones).
  const reportAt = lines.indexOf(`rigwright: Compute weights: ${n + 10} vertices solved as ${n} (coincident ones welded)`);
  assert.ok(reportAt > lines.indexOf(stages.at(-1)!), `the welded count after the stages:\n${run.stderr}`);
  const direct = await rigwright(
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
    path.join(work, 'hand-progress.dmat'),
  );
  // `rigwright weights` has no bone names (`bones 5, 10`); the scene's are `bone 5`, `bone 10`.
  const missed = /^rigwright: warning: bones? ([\d, ]+) ha(?:s|ve) no handle vertices/m.exec(direct.stderr);
  assert.ok(missed, `rigwright weights reports bones without handles:\n${direct.stderr}`);
  const bones = missed[1].split(', ').map((bone) => `bone ${bone}`);
  assert.deepEqual(
    lines.filter((line) => line.startsWith('rigwright: warning: ')),
    [
      `rigwright: warning: Compute weights: ${bones.join(', ')} ${bones.length === 1 ? 'has' : 'have'} no handle vertices: weight 0 everywhere`,
    ],
  );
  // The solve counts the bones with handles of the solve (automatic ones), not the scene's before it (none).
  assert.ok(words.includes(`Solving: bone 1 of ${20 - bones.length}`), `the solve names its bones: ${words.join(' | ')}`);
  assert.equal(run.stdout, '', 'nothing on stdout: the script printed nothing');
});
