/**
 * `rigwright edit` and the scene edits under it (workers/scene/scene-edits.ts), on the context-aware body of the
 * shared data (18 453 vertices, 28 bones, symmetric across x) with harmonic weights from its handles. The expected
 * weights come from the app itself: its paint controller and paint session run the same command headless on the same
 * document, and the two results must agree bit for bit. Also: a project read into a document and written back keeps
 * every array, and bad input is refused naming the file and the argument.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../../app/cli/main.ts';
import { readDmat } from '../../workers/formats/dmat.ts';
import { readObj } from '../../workers/formats/obj.ts';
import { poseSequenceFromDmat } from '../../workers/formats/pose-file.ts';
import { defaultProjectSettings, PROJECT_EXTENSION, readProjectFile, writeProjectFile } from '../../workers/formats/project-file.ts';
import { readTgf } from '../../workers/formats/tgf.ts';
import { handlesFromDmat } from '../../workers/formats/weights-file.ts';
import { mirrorVertexMap } from '../../workers/paint/mirror-vertex-map.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { documentFromProject, projectSceneOf, projectSettingsOf } from '../../workers/scene/project-document.ts';
import { boneCountOf, vertexCountOf, withDerived, type SceneDocument } from '../../workers/scene/scene-document.ts';
import { normalizeWeightsEdit, pruneWeightsEdit, smoothBoneEdit } from '../../workers/scene/scene-edits.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';
import { harmonicWeights } from '../../workers/weights/harmonic-weights.ts';
import type { PaintCommand } from '../../renderer/paint/paint-controller.ts';
import { headlessPaintController } from './headless-hosts.ts';
import { dataFile } from './shared-data.ts';
import { glbBin, glbJson } from './glb-json.ts';

const work = mkdtempSync(path.join(tmpdir(), 'rigwright-edit-'));

/** The body as the app would hold it after binding: rest mesh, skeleton, handles and their harmonic weights. */
function bodyDocument(): SceneDocument {
  const mesh = readObj(readFileSync(dataFile('context-aware', 'reference.obj'), 'utf8'), 'reference.obj').mesh;
  const skeleton = buildSkeleton(readTgf(readFileSync(dataFile('context-aware', 'skeleton.tgf'), 'utf8'), 'skeleton.tgf'), 'skeleton.tgf');
  const V = mesh.positions.length / 3;
  const B = skeleton.parents.length;
  const handles = handlesFromDmat(
    readDmat(new Uint8Array(readFileSync(dataFile('context-aware', 'handles.dmat'))), 'handles.dmat'),
    V,
    B,
    'handles.dmat',
  );
  const { weights } = harmonicWeights(mesh.positions, mesh.triangles, handles, B);
  return withDerived({
    name: 'reference.obj',
    meshFiles: ['reference.obj'],
    mesh,
    skeletonFile: 'skeleton.tgf',
    skeleton,
    weights: { rows: V, cols: B, data: weights },
    weightsSource: 'harmonic',
    poses: null,
    posesFile: null,
    handles,
    handlesFile: 'handles.dmat',
    warnings: [],
  });
}

let body: SceneDocument | null = null;
const bodyOnce = (): SceneDocument => (body ??= bodyDocument());

/** The bone locked in the comparisons: a side bone with a mirrored partner, heavy on a few thousand vertices. */
const LOCKED_BONE = 3;

/** The body saved as a project in the work folder, LOCKED_BONE locked unless `locked` is false. @returns its path and bytes */
async function bodyProject(name: string, locked = true, selectedBone = -1): Promise<{ file: string; bytes: Uint8Array }> {
  const doc = bodyOnce();
  const projectSettings = defaultProjectSettings(vertexCountOf(doc), boneCountOf(doc));
  projectSettings.paint.locked[LOCKED_BONE] = locked ? 1 : 0;
  projectSettings.view.selectedBone = selectedBone;
  const bytes = await writeProjectFile({ scene: projectSceneOf(doc), settings: projectSettings }, name);
  const file = path.join(work, name);
  writeFileSync(file, bytes);
  return { file, bytes };
}

async function rigwright(...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const status = await runCli(args, { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stderr += t) } });
  return { status, stdout, stderr };
}

/**
 * The app's paint controller on a store of `doc`, as the shell wires it, without a page: the mirror match computed
 * at once by the function the binding worker runs, the selected bone and the meshes' vertex mask as given.
 */
function appPainter(doc: SceneDocument, vertexMask: Uint8Array | null = null) {
  let selectedBone = -1;
  const history = new UndoHistory();
  const store = new SceneStore(doc, history);
  const paint = headlessPaintController(store, {
    matcher: {
      mirrorVertexMap: (positions, triangles, axis, tolerance) => Promise.resolve(mirrorVertexMap(positions, triangles, axis, tolerance)),
      cancel: () => undefined,
    },
    selectedBone: () => selectedBone,
    vertexMask: () => vertexMask,
  });
  /** the bone selected in the Paint panel (Smooth bone smooths it) */
  const select = (bone: number): void => void (selectedBone = bone);
  return { store, history, paint, select };
}

/** A file's bytes as a plain Uint8Array over the file's Buffer (storedWeights reads its raw bytes). */
function fileBytes(file: string): Uint8Array {
  const buffer = readFileSync(file);
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

/** The scene's weights as a project file stores them: the float64 array its extension names, read raw. */
function storedWeights(glb: Uint8Array): Float64Array {
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

const bits = (array: ArrayBufferView): Buffer => Buffer.from(array.buffer, array.byteOffset, array.byteLength);

function assertSameBits(actual: ArrayBufferView | null | undefined, expected: ArrayBufferView | null | undefined, what: string): void {
  assert.equal(actual?.constructor.name, expected?.constructor.name, `${what}: array type`);
  if (actual && expected) assert.ok(bits(actual).equals(bits(expected)), `${what}: the bits differ`);
}

/** How many rows of two #V × #B matrices differ anywhere. */
function rowsDiffering(a: Float64Array, b: Float64Array, cols: number): number {
  let count = 0;
  for (let o = 0; o < a.length; o += cols) {
    for (let k = 0; k < cols; k++) {
      if (!Object.is(a[o + k], b[o + k])) {
        count++;
        break;
      }
    }
  }
  return count;
}

interface Comparison {
  name: string;
  /** the paint panel's commands, in order, with the bone selected and the threshold given */
  app: { command: PaintCommand; bone?: number; threshold?: number; axis?: 0 | 1 | 2 }[];
  /** the same as `rigwright edit` options */
  cli: string[];
  /** where LOCKED_BONE is locked: saved in the project, or locked in the Paint panel and with --lock */
  lock: 'project' | 'edit';
}

const COMPARISONS: Comparison[] = [
  { name: 'normalize', app: [{ command: 'normalize' }], cli: ['--normalize'], lock: 'project' },
  { name: 'prune', app: [{ command: 'prune', threshold: 0.05 }], cli: ['--prune', '0.05'], lock: 'project' },
  { name: 'smooth', app: [{ command: 'smooth', bone: 5 }], cli: ['--smooth', '5'], lock: 'edit' },
  { name: 'mirror', app: [{ command: 'mirror+', axis: 0 }], cli: ['--mirror', 'x+'], lock: 'project' },
  { name: 'mirror the other way', app: [{ command: 'mirror-', axis: 0 }], cli: ['--mirror', 'x-'], lock: 'edit' },
  {
    name: 'limit, prune, smooth the locked bone’s partner and mirror, in a row',
    app: [{ command: 'limit' }, { command: 'prune', threshold: 0.1 }, { command: 'smooth', bone: 4 }, { command: 'mirror-', axis: 0 }],
    cli: ['--limit', '--prune', '0.1', '--smooth', '4', '--mirror', 'x-'],
    lock: 'project',
  },
];

for (const { name, app, cli: edits, lock } of COMPARISONS) {
  const cli = lock === 'edit' ? ['--lock', String(LOCKED_BONE), ...edits] : edits;
  test(`edit ${cli.join(' ')} gives the weights of the paint panel's ${name}, bit for bit, with a bone locked`, async () => {
    const { file, bytes } = await bodyProject(`${name.replace(/\W+/g, '-')}.rig.glb`, lock === 'project');
    const out = path.join(work, `${name.replace(/\W+/g, '-')}-out.rig.glb`);

    // The app: the project opened as the app opens it (its locks into the document), or the bone locked in the
    // Paint panel, then the commands run.
    const opened = readProjectFile(bytes, file);
    const start = documentFromProject(opened.scene, opened.settings);
    assert.equal(start.paintLocks?.[LOCKED_BONE] === 1, lock === 'project', `${name}: the project's lock is the document's`);
    const startWeights = start.weights.data.slice();
    const { store, paint, select } = appPainter(start);
    if (lock === 'edit') paint.setLocked(LOCKED_BONE, true);
    for (const step of app) {
      select(step.bone ?? -1);
      await paint.run(step.command, step.threshold, step.axis);
    }
    const expected = store.doc.weights.data;

    const run = await rigwright('edit', file, ...cli, '--out', out);
    assert.equal(run.status, 0, `exit ${run.status}: ${run.stderr}`);
    // The weights as the file stores them (reading the project would renormalize rows a lock left short of 1).
    const actual = storedWeights(fileBytes(out));
    assertSameBits(actual, expected, `${name}: weights`);
    const written = readProjectFile(fileBytes(out), out);
    // Not vacuous: the edit changed rows, and the locked bone's column kept every value.
    const B = start.weights.cols;
    assert.ok(rowsDiffering(actual, startWeights, B) > 0, `${name}: the edit changed no row`);
    for (let o = LOCKED_BONE; o < actual.length; o += B)
      assert.ok(
        Object.is(actual[o], Math.fround(startWeights[o])) || Object.is(actual[o], startWeights[o]),
        `${name}: locked bone changed`,
      );
    assert.equal(written.settings.paint.locked[LOCKED_BONE], 1, `${name}: the lock is saved`);
    assert.match(run.stdout, new RegExp(`wrote .*: ${cli.filter((a) => a.startsWith('--')).length} edits`));
    // Rows the lock left short of 1 (nothing unlocked beside it to fill the rest) are said on stderr, as the
    // project's reader says it corrects them.
    assert.equal(
      run.stderr.includes('do not sum to 1'),
      written.notices.length > 0,
      `${name}: ${run.stderr} / ${written.notices.join('; ')}`,
    );
  });
}

test('the scene edits with a vertex mask change the rows the paint panel changes on those meshes only, bit for bit', async () => {
  const doc = bodyOnce();
  const V = vertexCountOf(doc);
  // The left half of the vertex order stands for the meshes the tools act on.
  const mask = new Uint8Array(V).fill(1, 0, V >> 1);
  const locked = new Uint8Array(boneCountOf(doc));
  locked[LOCKED_BONE] = 1;
  const cases = [
    { command: 'prune' as const, edit: (d: SceneDocument) => pruneWeightsEdit(d, 0.05, { locked, vertexMask: mask }) },
    { command: 'smooth' as const, edit: (d: SceneDocument) => smoothBoneEdit(d, 7, { locked, vertexMask: mask }) },
    { command: 'normalize' as const, edit: (d: SceneDocument) => normalizeWeightsEdit(d, { locked, vertexMask: mask }) },
  ];
  for (const { command, edit } of cases) {
    const appDoc = { ...doc, weights: { ...doc.weights, data: doc.weights.data.slice() } };
    const { store, paint, select } = appPainter(appDoc, mask);
    select(7);
    paint.setLocked(LOCKED_BONE, true);
    await paint.run(command, 0.05);
    const made = edit(doc);
    assert.ok(made, `${command}: the edit changed something`);
    const weights = made.fields.weights!;
    assertSameBits(weights.data, store.doc.weights.data, `${command} on the masked meshes`);
    const B = doc.weights.cols;
    let outside = 0;
    for (let v = mask.indexOf(0); v < V; v++)
      for (let b = 0; b < B; b++) if (!Object.is(weights.data[v * B + b], doc.weights.data[v * B + b])) outside++;
    assert.equal(outside, 0, `${command}: weights outside the mask changed`);
    assert.ok(made.vertices! > 0 && made.vertices! <= V >> 1, `${command}: ${made.vertices} rows changed, all inside the mask`);
    assert.notEqual(made.fields.weights, doc.weights, `${command}: the edit makes new weights, the document's stay`);
  }
});

test('a project read into a document and written back keeps every array, and the locks through the document; the two files are the same bytes', async () => {
  const doc = bodyOnce();
  const V = vertexCountOf(doc);
  const B = boneCountOf(doc);
  const frames = poseSequenceFromDmat(
    readDmat(new Uint8Array(readFileSync(dataFile('context-aware', 'all_frames.dmat'))), 'all_frames.dmat'),
    B,
    'all_frames.dmat',
  );
  const example = readObj(readFileSync(dataFile('context-aware', 'eg0.obj'), 'utf8'), 'eg0.obj').mesh;
  const examplePose = poseSequenceFromDmat(
    readDmat(new Uint8Array(readFileSync(dataFile('context-aware', 'eg0.dmat'))), 'eg0.dmat'),
    B,
    'eg0.dmat',
  );
  assert.ok(examplePose.kind === 'matrices', 'eg0.dmat holds rotation matrices');
  const boneScales = new Float64Array(3 * B).fill(1);
  boneScales.set([1.25, 0.5, 2], 3 * 7);
  const full: SceneDocument = {
    ...doc,
    poses: frames,
    posesFile: 'all_frames.dmat',
    boneScales,
    boneNames: Array.from({ length: B }, (_, b) => `bone ${b}`),
    examples: [
      { name: 'eg0', file: 'eg0.obj', positions: example.positions, pose: examplePose.rotations, poseSource: 'eg0.dmat', hidden: false },
    ],
  };
  const settings = defaultProjectSettings(V, B);
  settings.paint.locked[LOCKED_BONE] = 1;
  settings.paint.locked[B - 1] = 1;
  settings.skin.blend = Float32Array.from({ length: V }, (_, v) => (v % 7) / 7);
  const first = await writeProjectFile({ scene: projectSceneOf(full), settings }, 'body.rig.glb');

  const read = readProjectFile(first, 'body.rig.glb');
  assert.deepEqual(read.notices, [], 'the body’s weights are read as written');
  const opened = documentFromProject(read.scene, read.settings);
  assertSameBits(opened.paintLocks, settings.paint.locked, 'the locks are the document’s');
  // The locks written are the document's: the settings handed to the writer have none.
  const unlocked = { ...read.settings, paint: { ...read.settings.paint, locked: new Uint8Array(B) } };
  const second = await writeProjectFile({ scene: projectSceneOf(opened), settings: projectSettingsOf(opened, unlocked) }, 'body.rig.glb');
  assert.ok(Buffer.from(second).equals(Buffer.from(first)), 'written again, the project is the same bytes');
  // No lock in the project: none in the document, and none written back.
  const none = documentFromProject(read.scene, unlocked);
  assert.equal(none.paintLocks, undefined, 'a project without locks opens without paintLocks');
  assert.ok(
    projectSettingsOf(none, read.settings).paint.locked.every((x) => x === 0),
    'a document without locks saves none',
  );

  assertSameBits(opened.mesh.positions, full.mesh.positions, 'mesh positions');
  assertSameBits(opened.mesh.triangles, full.mesh.triangles, 'mesh triangles');
  assertSameBits(opened.skeleton.joints, full.skeleton.joints, 'skeleton joints');
  assertSameBits(opened.skeleton.bones, full.skeleton.bones, 'skeleton bones');
  assertSameBits(opened.weights.data, full.weights.data, 'weights');
  assertSameBits(opened.handles, full.handles, 'handles');
  assertSameBits(opened.boneScales, full.boneScales, 'bone scales');
  assert.ok(opened.poses?.kind === 'matrices' && frames.kind === 'matrices', 'the poses are rotation matrices');
  assertSameBits(opened.poses.rotations, frames.rotations, 'poses');
  assertSameBits(opened.examples?.[0].positions, example.positions, 'example positions');
  assertSameBits(opened.examples?.[0].pose, examplePose.rotations, 'example pose');
  assert.deepEqual(opened.boneNames, full.boneNames, 'bone names');
  assertSameBits(read.settings.paint.locked, settings.paint.locked, 'paint locks');
  assertSameBits(read.settings.skin.blend, settings.skin.blend, 'skin blend');
});

test('edit --bone-scale, by name or number, is a step of the store on the bone scales; the rest of the project is kept', async () => {
  const B = boneCountOf(bodyOnce());
  const names = Array.from({ length: B }, (_, b) => `bone ${b}`);
  names[2] = '7';
  const file = path.join(work, 'named.rig.glb');
  const doc = { ...bodyOnce(), boneNames: names };
  const settings = defaultProjectSettings(vertexCountOf(doc), B);
  settings.paint.maxInfluences = 3;
  writeFileSync(file, await writeProjectFile({ scene: projectSceneOf(doc), settings }, 'named.rig.glb'));
  const out = path.join(work, 'named-scaled.rig.glb');
  // "7" is bone 2's name: a name wins over a number; bone 5 by its number; the last edit of a bone wins.
  const run = await rigwright(
    'edit',
    file,
    '--bone-scale',
    '7',
    '2',
    '1',
    '0.5',
    '--bone-scale',
    '5',
    '3',
    '3',
    '3',
    '--bone-scale',
    'bone 9',
    '1',
    '1',
    '4',
    '--bone-scale',
    '5',
    '1.5',
    '1',
    '1',
    '--out',
    out,
  );
  assert.equal(run.status, 0, `exit ${run.status}: ${run.stderr}`);
  assert.match(run.stdout, /Scale 7\nScale bone 5\nScale bone 9\nScale bone 5\nwrote .*: 4 edits/);
  const written = readProjectFile(fileBytes(out), out);
  const expected = new Float64Array(3 * B).fill(1);
  expected.set([2, 1, 0.5], 6);
  expected.set([1.5, 1, 1], 15);
  expected.set([1, 1, 4], 27);
  assertSameBits(written.scene.boneScales, expected, 'bone scales');
  assertSameBits(written.scene.weights.data, doc.weights.data, 'weights kept');
  assertSameBits(written.scene.handles, doc.handles, 'handles kept');
  assert.equal(written.settings.paint.maxInfluences, 3, 'the influence limit is kept');
});

test('edit refuses bad input naming the file or the argument, and writes nothing', async () => {
  const { file } = await bodyProject('errors.rig.glb');
  const out = path.join(work, 'never-written.rig.glb');
  const cases: { args: string[]; status: number; message: RegExp }[] = [
    { args: [file, '--smooth', 'elbow'], status: 1, message: /errors\.rig\.glb: --smooth "elbow": [^\n]*no bone names[^\n]*bones 0–27/ },
    { args: [file, '--smooth', '28'], status: 1, message: /errors\.rig\.glb: --smooth "28": / },
    { args: [file, '--normalize', '--bone-scale', '-1', '1', '1', '1'], status: 1, message: /errors\.rig\.glb: --bone-scale "-1": / },
    { args: [file, '--prune', '1.5'], status: 2, message: /--prune must be a number in \[0, 1\], not "1\.5"/ },
    { args: [file, '--prune', 'abc'], status: 2, message: /--prune must be a number in \[0, 1\], not "abc"/ },
    { args: [file, '--prune'], status: 2, message: /--prune needs a value/ },
    { args: [file, '--mirror', 'w'], status: 2, message: /--mirror must be x, y or z/ },
    { args: [file, '--bone-scale', '2', '1', '0', '1'], status: 2, message: /--bone-scale 2: the scale must be three positive numbers/ },
    { args: [file, '--max-influences', '2.5', '--limit'], status: 2, message: /--max-influences must be a whole number/ },
    {
      args: [file, '--max-influences', '0', '--limit'],
      status: 1,
      message: /errors\.rig\.glb: --limit: the project sets no influence limit/,
    },
    {
      args: [file, '--mesh', 'arm', '--normalize'],
      status: 1,
      message: /errors\.rig\.glb: --mesh "arm": no mesh of that name \(the scene has "reference\.obj"\)/,
    },
    { args: [file, '--flatten'], status: 2, message: /unknown option '--flatten'/ },
    { args: [file], status: 2, message: /no edit given/ },
    { args: [dataFile('hand', 'hand.off'), '--normalize'], status: 1, message: /hand\.off: not a Rigwright project/ },
    {
      args: [dataFile('gltf', 'CesiumMan', 'CesiumMan.glb'), '--normalize'],
      status: 1,
      message: /CesiumMan\.glb: not a Rigwright project/,
    },
    { args: [path.join(work, 'missing.rig.glb'), '--normalize'], status: 1, message: /missing\.rig\.glb: cannot read the file/ },
  ];
  for (const { args, status, message } of cases) {
    const run = await rigwright('edit', ...args, '--out', out);
    assert.equal(run.status, status, `${args.slice(1).join(' ')}: exit ${run.status}: ${run.stderr}`);
    assert.match(run.stderr, message, `${args.slice(1).join(' ')}`);
    assert.ok(!existsSync(out), `${args.slice(1).join(' ')}: an output was written`);
  }
  const noOut = await rigwright('edit', file, '--normalize');
  assert.equal(noOut.status, 2, 'no --out is a usage error');
  assert.match(noOut.stderr, /missing --out/);
});

test('edit --rename-bone, --delete-bone, --lock and --unlock are steps of the store on the skeleton, names and locks', async () => {
  const doc = bodyOnce();
  const B = boneCountOf(doc);
  // Bone 27 selected: it is bone 26 once bone 5 is gone.
  const { file } = await bodyProject('bones.rig.glb', false, 27);
  const out = path.join(work, 'bones-out.rig.glb');
  // Bone 5's parent is bone 2 (skeleton.tgf); bone 8 hangs from bone 5. After bone 5 goes, bone 27 is bone 26.
  assert.equal(doc.skeleton.parents[5], 2, 'bone 5 hangs from bone 2');
  assert.equal(doc.skeleton.parents[8], 5, 'bone 8 hangs from bone 5');
  const run = await rigwright(
    'edit',
    file,
    '--rename-bone',
    '27',
    'toe.R',
    '--lock',
    'toe.R',
    '--lock',
    '2',
    '--delete-bone',
    '5',
    '--unlock',
    'bone 2',
    '--out',
    out,
  );
  assert.equal(run.status, 0, `exit ${run.status}: ${run.stderr}`);
  assert.match(run.stdout, /Rename bone 27 to toe\.R\nLock toe\.R\nLock bone 2\nDelete bone 5\nUnlock bone 2\nwrote .*: 5 edits/);
  const written = readProjectFile(fileBytes(out), out);
  const names = Array.from({ length: B }, (_, b) => `bone ${b}`);
  names[27] = 'toe.R';
  names.splice(5, 1);
  assert.deepEqual(written.scene.boneNames, names, 'names: bone 27 renamed, bone 5 gone');
  const expectedLocks = new Uint8Array(B - 1);
  expectedLocks[26] = 1;
  assertSameBits(written.settings.paint.locked, expectedLocks, 'locks follow the bones: toe.R still locked, bone 2 unlocked');
  assert.equal(written.scene.skeleton.parents.length, B - 1, 'one bone fewer');
  assert.equal(written.settings.view.selectedBone, 26, 'the selected bone followed its bone');
  assert.equal(written.scene.skeleton.parents[7], 2, 'bone 8, now 7, hangs from bone 5’s parent');
  // Bone 5's weights went to bone 2; every other bone keeps its column, every row its sum.
  const before = doc.weights.data;
  const after = written.scene.weights.data;
  const V = vertexCountOf(doc);
  let worst = 0;
  for (let v = 0; v < V; v++) {
    for (let b = 0; b < B - 1; b++) {
      const old = b < 5 ? b : b + 1;
      const expected = before[v * B + old] + (b === 2 ? before[v * B + 5] : 0);
      worst = Math.max(worst, Math.abs(after[v * (B - 1) + b] - expected));
    }
  }
  assert.ok(worst <= 1e-15, `weights after deleting bone 5 are off by ${worst}`);
});

test('edit refuses bone edits the scene cannot take, naming the file and the option', async () => {
  const { file } = await bodyProject('bone-errors.rig.glb', false);
  const out = path.join(work, 'bone-errors-out.rig.glb');
  const cases: { args: string[]; message: RegExp }[] = [
    { args: ['--rename-bone', '3', 'bone 4', '--rename-bone', '5', 'bone 4'], message: /bone-errors\.rig\.glb: --rename-bone: / },
    { args: ['--delete-bone', 'hip'], message: /bone-errors\.rig\.glb: --delete-bone "hip": / },
    { args: ['--lock', '40'], message: /bone-errors\.rig\.glb: --lock "40": / },
  ];
  for (const { args, message } of cases) {
    const run = await rigwright('edit', file, ...args, '--out', out);
    assert.equal(run.status, 1, `${args.join(' ')}: exit ${run.status}: ${run.stderr}`);
    assert.match(run.stderr, message, args.join(' '));
    assert.ok(!existsSync(out), `${args.join(' ')}: an output was written`);
  }
});

test('edit keeps the weights’ painted mark while the weights stay, sets it with a weights edit and drops it with new weights', async () => {
  const doc = bodyOnce();
  const settings = defaultProjectSettings(vertexCountOf(doc), boneCountOf(doc));
  const painted = path.join(work, 'painted.rig.glb');
  writeFileSync(painted, await writeProjectFile({ scene: projectSceneOf(doc, true), settings }, 'painted.rig.glb'));
  const { file: unpainted } = await bodyProject('unpainted.rig.glb', false);
  const markOf = (file: string) => readProjectFile(fileBytes(file), file).scene.weightsPainted === true;
  assert.equal(markOf(painted), true);
  assert.equal(markOf(unpainted), false);
  const edit = async (file: string, name: string, ...edits: string[]) => {
    const out = path.join(work, name);
    const run = await rigwright('edit', file, ...edits, '--out', out);
    assert.equal(run.status, 0, `exit ${run.status}: ${run.stderr}`);
    assert.doesNotMatch(run.stdout, /changed nothing/);
    return out;
  };
  assert.equal(markOf(await edit(painted, 'painted-scaled.rig.glb', '--bone-scale', '5', '2', '2', '2')), true, 'a bone scale keeps it');
  assert.equal(markOf(await edit(unpainted, 'unpainted-pruned.rig.glb', '--prune', '0.1')), true, 'pruning the weights paints them');
  assert.equal(markOf(await edit(painted, 'painted-deleted.rig.glb', '--delete-bone', '5')), false, 'weights without a bone are new');
});
