/**
 * The examples and pose-space controllers in Node, on the built-in demo scene, with examples made by hand: the
 * rest mesh plus a known rest-space bump, posed by LBS at a frame of the demo's animation. Editing the list
 * (hide, rename, remove) is one labelled undo step each and undo puts the document's own list back; the pose
 * choice for meshes without a pose file is the viewport's or a chosen frame; unposing in the (here in-process)
 * worker recovers each bump (a second computation of the same δ), the weights are 1 at an example's own pose and
 * 0 for the others, cancelling leaves no displacements, near-singular vertices are reported with their count, and
 * two examples with the same pose are reported by name. Unposing progress ends with each result, even when a report
 * arrives after it, and Cancel and a new scene always clear it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { demoDocument, examplesOf, type ExampleShape } from '../../workers/scene/scene-document.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { ExamplesController } from '../../renderer/posespace/examples-controller.ts';
import { PoseSpaceController } from '../../renderer/posespace/pose-space-controller.ts';
import type { Unposer } from '../../renderer/io/posespace-client.ts';
import { forwardKinematics } from '../../workers/rig/forward-kinematics.ts';
import { samplePose } from '../../workers/rig/pose-sequence.ts';
import { influencesFromWeights } from '../../workers/skinning/influences.ts';
import { linearBlendSkinning } from '../../workers/skinning/linear-blend-skinning.ts';
import { unposeExample, type UnposeResult } from '../../workers/posespace/unpose.ts';
import { vertexNormals } from '../../workers/mesh/vertex-normals.ts';

const demo = demoDocument();
const B = demo.skeleton.parents.length;
const V = demo.mesh.positions.length / 3;
const influences = influencesFromWeights(demo.weights, 4);

function poseAt(frame: number): Float64Array {
  const rotations = new Float64Array(9 * B);
  samplePose(demo.poses!, frame, rotations);
  return rotations;
}

/** A smooth rest-space bump of height `height` around vertex `centre`. */
function bump(centre: number, height: number): Float64Array {
  const p = demo.mesh.positions;
  const out = new Float64Array(3 * V);
  const radius = 0.2 * demo.diagonal;
  for (let v = 0; v < V; v++) {
    const d = Math.hypot(p[3 * v] - p[3 * centre], p[3 * v + 1] - p[3 * centre + 1], p[3 * v + 2] - p[3 * centre + 2]);
    const s = Math.max(0, 1 - (d / radius) ** 2) ** 2;
    for (let c = 0; c < 3; c++) out[3 * v + c] = height * s * demo.restNormals[3 * v + c];
  }
  return out;
}

/** The example LBS makes of rest + δ at a frame's pose. */
function example(name: string, frame: number, delta: Float64Array): ExampleShape {
  const pose = poseAt(frame);
  const transforms = new Float64Array(12 * B);
  forwardKinematics(demo.skeleton, pose, transforms);
  const rest = demo.mesh.positions.map((x, i) => x + delta[i]);
  const positions = new Float64Array(3 * V);
  linearBlendSkinning(rest, influences, transforms, positions);
  return { name, file: `${name}.obj`, positions, pose, poseSource: `frame ${frame}`, hidden: false };
}

const FRAMES = [4, 12, 20];
const BUMPS = FRAMES.map((_, j) => bump(37 * (j + 1), 0.02 * demo.diagonal));

function setup(unposer?: Unposer) {
  const history = new UndoHistory();
  const store = new SceneStore(demoDocument(), history);
  store.edit('Add examples', { examples: FRAMES.map((f, j) => example(`eg${j}`, f, BUMPS[j])) });
  const shown = { rotations: poseAt(9), label: 'frame 9' };
  const notices: string[] = [];
  let changes = 0;
  const examples = new ExamplesController({ store, shownPose: () => shown, openFiles: () => Promise.resolve() });
  const inProcess: Unposer = {
    unpose: (job, onProgress) =>
      Promise.resolve().then(() => {
        const transforms = new Float64Array(12 * B);
        forwardKinematics(job.skeleton, job.pose, transforms);
        return unposeExample(job.restPositions, job.examplePositions, job.influences, transforms, {
          method: job.method,
          antipodality: job.antipodality,
          onProgress,
        });
      }),
    cancel: () => undefined,
  };
  const posespace = new PoseSpaceController({
    document: () => store.doc,
    influences: () => influences,
    antipodality: () => 'per-vertex',
    unposer: unposer ?? inProcess,
    notice: (title) => void notices.push(title),
    changed: () => void changes++,
    progressed: () => undefined,
  });
  return { history, store, examples, posespace, notices, changes: () => changes };
}

test('hide, rename and remove are one labelled step each; undo puts the same list back', () => {
  const { history, store, examples } = setup();
  const start = store.doc.examples;
  // The step that added the examples holds their arrays, and the history counts them against its memory bound.
  assert.equal(
    history.bytes,
    start!.reduce((sum, e) => sum + e.positions.byteLength + e.pose.byteLength, 0),
  );
  examples.toggle('eg1');
  examples.rename('eg2', '  lunge ');
  examples.remove('eg0');
  assert.deepEqual(history.undoLabels().slice(-3), ['Hide example eg1', 'Rename example eg2 to lunge', 'Remove example eg0']);
  assert.deepEqual(
    examplesOf(store.doc).map((e) => [e.name, e.hidden]),
    [
      ['eg1', true],
      ['lunge', false],
    ],
  );
  assert.equal(examplesOf(store.doc)[1].positions, start![2].positions, 'a rename keeps the shape itself');
  history.undo();
  history.undo();
  history.undo();
  assert.equal(store.doc.examples, start);
  history.redo();
  assert.deepEqual(
    examplesOf(store.doc).map((e) => e.hidden),
    [false, true, false],
  );
  assert.throws(() => examples.rename('eg0', 'eg1'), /eg1 is already an example's name/);
  assert.throws(() => examples.rename('eg0', ' '), /the new name is empty/);
  assert.throws(() => examples.remove('eg9'), /no example named "eg9" \(the examples are eg0, eg1, eg2\)/);
});

test('a mesh without a pose file takes the viewport pose, or the chosen frame of the sequence', () => {
  const { examples } = setup();
  const viewport = examples.defaultPose(B)!;
  assert.deepEqual(viewport.rotations, poseAt(9));
  assert.equal(viewport.source, 'the viewport pose (frame 9)');
  examples.setPoseChoice(20);
  const frame = examples.defaultPose(B)!;
  assert.deepEqual(frame.rotations, poseAt(20));
  assert.match(frame.source, /^frame 20 of /);
  assert.equal(examples.defaultPose(B + 1), null, 'no pose for another skeleton');
  assert.throws(() => examples.setPoseChoice(10_000), /frame 10000 is not in the loaded sequence/);
});

test('unposing recovers each example’s bump; a_j is δ_ij at the examples’ poses; hidden examples take no part', async () => {
  const { store, posespace, examples } = setup();
  posespace.require(['lbs']);
  assert.equal(posespace.progress.running, true);
  assert.equal(posespace.displacements('lbs'), null, 'nothing while unposing');
  await posespace.idle();
  const displacements = posespace.displacements('lbs')!;
  assert.equal(displacements.length, 3 * 3 * V);
  BUMPS.forEach((expected, j) => {
    let worst = 0;
    for (let i = 0; i < 3 * V; i++) worst = Math.max(worst, Math.abs(displacements[3 * V * j + i] - expected[i]));
    assert.ok(worst < 1e-9 * demo.diagonal, `eg${j}: |δ − bump| = ${worst}`);
  });
  // The normal changes are those of the rest mesh with each bump, against the rest normals (a second computation).
  const normals = posespace.normalDeltas('lbs')!;
  BUMPS.forEach((b, j) => {
    const bumped = vertexNormals(
      demo.mesh.positions.map((x, i) => x + b[i]),
      demo.mesh.triangles,
    );
    let worst = 0;
    for (let i = 0; i < 3 * V; i++) worst = Math.max(worst, Math.abs(normals[3 * V * j + i] - (bumped[i] - demo.restNormals[i])));
    assert.ok(worst < 1e-6, `eg${j}: normal change off by ${worst}`);
  });
  FRAMES.forEach((frame, j) => {
    posespace.setPose(poseAt(frame));
    assert.deepEqual(
      Array.from(posespace.weights, (a) => Math.round(a * 1e9) / 1e9 + 0),
      FRAMES.map((_, k) => (k === j ? 1 : 0)),
    );
  });
  posespace.setPose(poseAt(9));
  assert.ok(Math.abs(posespace.weights.reduce((a, b) => a + b, 0) - 1) < 1e-12, 'Eq. 8: the weights sum to 1');

  examples.toggle('eg1');
  posespace.refresh();
  posespace.setPose(poseAt(FRAMES[2]));
  assert.equal(posespace.weights.length, 2);
  const two = posespace.displacements('lbs')!;
  assert.deepEqual(two.subarray(3 * V), displacements.subarray(6 * V), 'eg2 is second now, its δ unchanged');
  const curves = posespace.curves()!;
  assert.equal(curves.frames, store.doc.poses?.kind === 'matrices' ? store.doc.poses.frameCount : NaN);
  assert.ok(Math.abs(curves.values[2 * FRAMES[2] + 1] - 1) < 1e-9, 'the curve of eg2 is 1 at its frame');
});

test('cancel stops unposing and leaves no displacements; near-singular vertices are reported with their count', async () => {
  let rejectPending: ((error: unknown) => void) | null = null;
  const hanging: Unposer = {
    unpose: () => new Promise((_, reject) => (rejectPending = reject)),
    cancel: () => rejectPending?.(new DOMException('cancelled', 'AbortError')),
  };
  const cancelled = setup(hanging);
  cancelled.posespace.require(['dqs']);
  assert.equal(cancelled.posespace.progress.running, true);
  cancelled.posespace.cancel();
  await cancelled.posespace.idle();
  assert.equal(cancelled.posespace.progress.running, false);
  assert.equal(cancelled.posespace.cancelled, true);
  assert.equal(cancelled.posespace.displacements('dqs'), null);
  assert.deepEqual(cancelled.notices, [], 'a cancel is not a failure');

  const singular: Unposer = {
    unpose: (job) =>
      Promise.resolve({
        unposed: job.restPositions.slice(),
        displacements: new Float64Array(job.restPositions.length),
        singularVertices: Uint32Array.of(3, 8, 21),
      }),
    cancel: () => undefined,
  };
  const reported = setup(singular);
  reported.posespace.require(['lbs']);
  await reported.posespace.idle();
  assert.deepEqual(reported.notices, [
    'Unposing eg0 (LBS): 3 near-singular vertices',
    'Unposing eg1 (LBS): 3 near-singular vertices',
    'Unposing eg2 (LBS): 3 near-singular vertices',
  ]);
});

test('unposing progress ends with each result even when a report arrives after it; Cancel and a new scene always clear it', async () => {
  // An unposer whose last report of each job comes after the job's result (the worker's ports read in another order).
  const late: (() => void)[] = [];
  const reversed: Unposer = {
    unpose: (job, onProgress) => {
      onProgress(1, 2);
      late.push(() => onProgress(2, 2));
      return Promise.resolve({
        unposed: job.restPositions.slice(),
        displacements: new Float64Array(job.restPositions.length),
        singularVertices: new Uint32Array(0),
      });
    },
    cancel: () => undefined,
  };
  const { posespace, store } = setup(reversed);
  posespace.require(['dqs']);
  await posespace.idle();
  assert.equal(late.length, 3, 'one job per example');
  for (const report of late) report();
  assert.deepEqual(posespace.progress, { running: false, example: '', base: 'lbs', fraction: 0 }, 'no job runs after every result is in');
  assert.ok(posespace.displacements('dqs') !== null, 'the displacements are ready');

  // Cancel clears the bar also when no job runs (nothing to stop), and a job cancelled mid-way reports no more.
  let reportHanging: ((done: number, total: number) => void) | null = null;
  let rejectPending: ((error: unknown) => void) | null = null;
  const hanging: Unposer = {
    unpose: (_job, onProgress) => {
      reportHanging = onProgress;
      return new Promise((_, reject) => (rejectPending = reject));
    },
    cancel: () => rejectPending?.(new DOMException('cancelled', 'AbortError')),
  };
  const cancelled = setup(hanging);
  cancelled.posespace.require(['lbs']);
  reportHanging!(1, 4);
  assert.equal(cancelled.posespace.progress.fraction, 0.25 / 3, 'a quarter of the first of three jobs');
  cancelled.posespace.cancel();
  assert.equal(cancelled.posespace.progress.running, false, 'cleared at once, before the worker answers');
  reportHanging!(2, 4);
  assert.equal(cancelled.posespace.progress.running, false, 'a report after the cancel is dropped');
  await cancelled.posespace.idle();
  cancelled.posespace.cancel();
  assert.equal(cancelled.posespace.progress.running, false);

  // A new scene stops the previous scene's unposing and clears its progress; its results go.
  const next = setup(hanging);
  next.posespace.require(['lbs']);
  assert.equal(next.posespace.progress.running, true);
  next.posespace.sceneOpened();
  assert.equal(next.posespace.progress.running, false, 'the new scene shows no unposing of the old one');
  reportHanging!(3, 4);
  assert.equal(next.posespace.progress.running, false, 'the old job’s late report is dropped');
  assert.equal(posespace.unposed(examplesOf(store.doc)[0], 'dqs') !== null, true, 'the other controller keeps its results');
  posespace.sceneOpened();
  assert.equal(posespace.unposed(examplesOf(store.doc)[0], 'dqs'), null, 'a new scene drops the old scene’s unposed examples');
});

test('two examples with the same pose are reported by name; the weights are then all 0', () => {
  const { store, posespace } = setup();
  const [a] = examplesOf(store.doc);
  store.edit('Add example', { examples: [...examplesOf(store.doc), { ...a, name: 'twin' }] });
  posespace.refresh();
  posespace.setPose(poseAt(4));
  assert.match(posespace.rbfError ?? '', /eg0.*twin|twin.*eg0/);
  assert.deepEqual(Array.from(posespace.weights), [0, 0, 0, 0]);
});

test('a job that ends after a new scene starts no unposing of the new scene’s examples until the new scene’s basis is taken', async () => {
  // A worker that answers only when told (or rejects at once on cancel), and lists the jobs it was given.
  const jobs: { example: Float64Array; influences: unknown; mesh: Float64Array }[] = [];
  let pending: { resolve: (r: UnposeResult) => void; reject: (error: unknown) => void } | null = null;
  const fake: Unposer = {
    unpose: (job) => {
      jobs.push({ example: job.examplePositions, influences: job.influences, mesh: job.restPositions });
      return new Promise((resolve, reject) => (pending = { resolve, reject }));
    },
    cancel: () => pending?.reject(new DOMException('cancelled', 'AbortError')),
  };
  const first = new SceneStore(demoDocument(), new UndoHistory());
  first.edit('Add examples', { examples: FRAMES.map((f, j) => example(`eg${j}`, f, BUMPS[j])) });
  const second = new SceneStore(demoDocument(), new UndoHistory());
  second.edit('Add examples', { examples: [example('fox0', 8, BUMPS[0])] });
  const secondInfluences = influencesFromWeights(second.doc.weights, 4);
  const scene = { store: first, influences };
  const notices: string[] = [];
  const posespace = new PoseSpaceController({
    document: () => scene.store.doc,
    influences: () => scene.influences,
    antipodality: () => 'per-vertex',
    unposer: fake,
    notice: (title) => void notices.push(title),
    changed: () => undefined,
    progressed: () => undefined,
  });
  posespace.require(['dqs']);
  assert.equal(jobs.length, 1, 'the first scene’s first example is being unposed');

  // The new scene is shown, then sceneOpened stops the old job; its end (the AbortError) pumps again.
  scene.store = second;
  scene.influences = secondInfluences;
  posespace.sceneOpened();
  for (let i = 0; i < 10; i++) await Promise.resolve();
  assert.equal(jobs.length, 1, 'no job starts before the new scene’s basis is taken');
  assert.equal(posespace.progress.running, false, 'no unposing shows');

  // The next frame asks again: the new scene's example is unposed with the new scene's influences and mesh.
  posespace.require(['dqs']);
  assert.equal(jobs.length, 2, 'the new scene’s example is unposed when asked');
  assert.equal(jobs[1].influences, secondInfluences, 'with the new scene’s influences');
  assert.equal(jobs[1].mesh, second.doc.mesh.positions, 'on the new scene’s mesh');
  assert.equal(jobs[1].example, examplesOf(second.doc)[0].positions, 'the new scene’s example');
  pending!.resolve({ unposed: new Float64Array(3 * V), displacements: new Float64Array(3 * V), singularVertices: new Uint32Array(0) });
  await posespace.idle();
  assert.ok(posespace.displacements('dqs') !== null, 'the new scene’s displacements are ready');
  assert.deepEqual(notices, [], 'nothing failed');
});
