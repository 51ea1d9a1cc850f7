/**
 * `rigwright edit` and the scene edits under it (workers/scene/scene-edits.ts), on the context-aware body of the
 * shared data (18 453 vertices, 28 bones, symmetric across x) with harmonic weights from its handles. The expected
 * weights come from the app itself: its paint controller and paint session run the same command headless on the same
 * document, and the two results must agree bit for bit. Also: a project read into a document and written back keeps
 * every array, and bad input is refused naming the file and the argument.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../../app/cli/main.ts';
import { readDmat } from '../../workers/formats/dmat.ts';
import { readObj } from '../../workers/formats/obj.ts';
import {
  defaultProjectSettings,
  PROJECT_EXTENSION,
  readProjectFile,
  writeProjectFile,
  type ProjectSettings,
} from '../../workers/formats/project-file.ts';
import { readTgf } from '../../workers/formats/tgf.ts';
import { handlesFromDmat } from '../../workers/formats/weights-file.ts';
import { mirrorVertexMap } from '../../workers/paint/mirror-vertex-map.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { documentFromProject, projectSceneOf } from '../../workers/scene/project-document.ts';
import { boneCountOf, vertexCountOf, withDerived, type SceneDocument } from '../../workers/scene/scene-document.ts';
import { normalizeWeightsEdit, pruneWeightsEdit, smoothBoneEdit } from '../../workers/scene/scene-edits.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';
import { influencesFromWeights } from '../../workers/skinning/influences.ts';
import { harmonicWeights } from '../../workers/weights/harmonic-weights.ts';
import { PaintController, type PaintCommand } from '../../renderer/paint/paint-controller.ts';
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

/** The body saved as a project with LOCKED_BONE locked, in the work folder. @returns its path and its bytes */
async function bodyProject(name: string, settings?: (s: ProjectSettings) => void): Promise<{ file: string; bytes: Uint8Array }> {
  const doc = bodyOnce();
  const projectSettings = defaultProjectSettings(vertexCountOf(doc), boneCountOf(doc));
  projectSettings.paint.locked[LOCKED_BONE] = 1;
  settings?.(projectSettings);
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
  let influences = influencesFromWeights(doc.weights, 4);
  const paint = new PaintController({
    store,
    matcher: {
      mirrorVertexMap: (positions, triangles, axis, tolerance) => Promise.resolve(mirrorVertexMap(positions, triangles, axis, tolerance)),
      cancel: () => undefined,
    },
    selectedBone: () => selectedBone,
    weightsChanged: () => undefined,
    weightsSettled: () => undefined,
    schedule: () => undefined,
    vertexMask: () => vertexMask,
    views: {
      influences: () => influences,
      padInfluences: (stride) => (influences = influencesFromWeights(store.doc.weights, stride)),
      skinned: () => ({ packInfluenceRow: () => undefined, commitInfluenceRows: () => undefined }),
      weightView: () => ({ updateVertex: () => undefined, commitVertices: () => undefined }),
    },
  });
  /** the bone selected in the Paint panel (Smooth bone smooths it) */
  const select = (bone: number): void => void (selectedBone = bone);
  return { store, history, paint, select };
}

/** A file's bytes as a plain Uint8Array (a Node Buffer's slice() shares memory, which the project reader does not expect). */
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
}

const COMPARISONS: Comparison[] = [
  { name: 'normalize', app: [{ command: 'normalize' }], cli: ['--normalize'] },
  { name: 'prune', app: [{ command: 'prune', threshold: 0.05 }], cli: ['--prune', '0.05'] },
  { name: 'smooth', app: [{ command: 'smooth', bone: 5 }], cli: ['--smooth', '5'] },
  { name: 'mirror', app: [{ command: 'mirror+', axis: 0 }], cli: ['--mirror', 'x+'] },
  { name: 'mirror the other way', app: [{ command: 'mirror-', axis: 0 }], cli: ['--mirror', 'x-'] },
  {
    name: 'limit, prune, smooth the locked bone’s partner and mirror, in a row',
    app: [{ command: 'limit' }, { command: 'prune', threshold: 0.1 }, { command: 'smooth', bone: 4 }, { command: 'mirror-', axis: 0 }],
    cli: ['--limit', '--prune', '0.1', '--smooth', '4', '--mirror', 'x-'],
  },
];

for (const { name, app, cli } of COMPARISONS) {
  test(`edit ${cli.join(' ')} gives the weights of the paint panel's ${name}, bit for bit, with a bone locked`, async () => {
    const { file, bytes } = await bodyProject(`${name.replace(/\W+/g, '-')}.rig.glb`);
    const out = path.join(work, `${name.replace(/\W+/g, '-')}-out.rig.glb`);

    // The app: the project opened as the app opens it, the bone locked in the Paint panel, the commands run.
    const opened = readProjectFile(bytes, file);
    const start = documentFromProject(opened.scene);
    const startWeights = start.weights.data.slice();
    const { store, paint, select } = appPainter(start);
    paint.setLocked(LOCKED_BONE, true);
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
    assert.match(run.stdout, new RegExp(`wrote .*: ${app.length} edits`));
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
