/**
 * The per-face solver's unposing of the examples (per-face context) as the page sees it: its progress belongs to
 * the newest example list only, Cancel clears it at once and drops what the worker sends after, and the Cancel
 * command stops both unposings (per vertex and per face). A fake deform worker answers when the test says.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { demoDocument, type ExampleShape } from '../../workers/scene/scene-document.ts';
import { influencesFromWeights } from '../../workers/skinning/influences.ts';
import { PerFaceSolver, type DeformWorker, type PerFaceResult } from '../../renderer/deform/per-face-solver.ts';
import type { SkinMethod } from '../../renderer/deform/skin-methods.ts';
import { examplesCommands, type ExamplesCommandsHost } from '../../renderer/posespace/examples-commands.ts';

const doc = demoDocument();
const B = doc.skeleton.parents.length;
const V = doc.mesh.positions.length / 3;
const influences = influencesFromWeights(doc.weights, 4);

function identityRotations(): Float64Array {
  const r = new Float64Array(9 * B);
  for (let b = 0; b < B; b++) r[9 * b] = r[9 * b + 4] = r[9 * b + 8] = 1;
  return r;
}

function exampleShape(name: string): ExampleShape {
  const pose = identityRotations();
  return { name, file: `${name}.obj`, positions: doc.mesh.positions.slice(), pose, poseSource: 'rest', hidden: false };
}

function restTransforms(): Float64Array {
  const t = new Float64Array(12 * B);
  for (let b = 0; b < B; b++) t[12 * b] = t[12 * b + 5] = t[12 * b + 10] = 1;
  return t;
}

interface Unposing {
  count: number;
  report: (done: number, total: number) => void;
  finish: () => void;
}

/** A deform worker whose per-face unposing answers only when the test finishes it; the calls it took are listed. */
function fakeWorker() {
  const unposings: Unposing[] = [];
  const installed: number[] = [];
  const calls: string[] = [];
  const frame = (): PerFaceResult => ({ positions: new Float64Array(3 * V), normals: new Float64Array(3 * V) });
  const worker = {
    setup: () => Promise.resolve(0),
    unposePerFace: (inputs: unknown[], _options: unknown, report: (done: number, total: number) => void) =>
      new Promise((resolve) => {
        unposings.push({
          count: inputs.length,
          report,
          finish: () => resolve(inputs.map(() => ({ unposed: new Float64Array(3 * V) }))),
        });
      }),
    setPerFaceExamples: (unposed: unknown[]) => {
      installed.push(unposed.length);
      return Promise.resolve([]);
    },
    pose: () => {
      calls.push('pose');
      return Promise.resolve(frame());
    },
    poseContext: () => {
      calls.push('poseContext');
      return Promise.resolve(frame());
    },
  };
  return { worker: worker as unknown as DeformWorker, unposings, installed, calls };
}

/** Lets every promise already settled run its reactions (the fake's answers, the solver's chains). */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

function solverWith(method: SkinMethod) {
  const fake = fakeWorker();
  let examples: ExampleShape[] = [exampleShape('eg0'), exampleShape('eg1')];
  let changes = 0;
  const pose = { transforms: restTransforms(), boneScales: new Float64Array(3 * B).fill(1), scaled: false };
  const solver = new PerFaceSolver(
    {
      scene: () => ({ doc, influences }),
      newestPose: () => pose,
      methodsShown: () => [method],
      context: () => ({
        active: examples,
        weights: new Float64Array(examples.length),
        displacements: () => null,
        normalDeltas: () => null,
        setPose: () => undefined,
        require: () => undefined,
      }),
      solved: () => undefined,
      changed: () => void changes++,
    },
    () => fake.worker,
  );
  let poseNumber = 0;
  const request = () => solver.request(method, ++poseNumber, pose);
  return {
    solver,
    fake,
    request,
    setExamples: (list: ExampleShape[]) => (examples = list),
    changes: () => changes,
  };
}

test('per-face unposing: an older example list that ends leaves the newer one’s progress; Cancel clears it at once and drops what comes later', async () => {
  const { solver, fake, request, setExamples, changes } = solverWith('context-perface-eq9');
  request();
  await settle();
  assert.equal(fake.unposings.length, 1, 'the two examples are handed to the worker once');
  assert.equal(solver.unposing, 0, 'the unposing shows from its start');
  fake.unposings[0].report(1, 2);
  assert.equal(solver.unposing, 0.5, 'one of two examples done');

  // Another example list while the first is unposed: the newer job's bar is the one shown.
  setExamples([exampleShape('eg0'), exampleShape('eg1'), exampleShape('eg2')]);
  request();
  await settle();
  assert.equal(fake.unposings.length, 2, 'the new list is unposed');
  assert.equal(fake.unposings[1].count, 3, 'all three examples of the new list');
  fake.unposings[1].report(1, 3);
  fake.unposings[0].report(2, 2);
  assert.equal(solver.unposing, 1 / 3, 'a report of the replaced job is dropped');
  fake.unposings[0].finish();
  await settle();
  assert.equal(solver.unposing, 1 / 3, 'the replaced job’s end leaves the newer job’s progress');
  assert.deepEqual(fake.installed, [], 'the replaced list’s face transformations are not installed');

  // Cancel: the bar goes at once, before the worker answers; a later report and the result change nothing.
  const before = changes();
  solver.cancel();
  assert.equal(solver.unposing, null, 'Cancel clears the progress at once');
  assert.equal(changes(), before + 1, 'the chrome is told once');
  fake.unposings[1].report(2, 3);
  assert.equal(solver.unposing, null, 'a report after the cancel is dropped');
  fake.unposings[1].finish();
  await settle();
  assert.equal(solver.unposing, null, 'the cancelled job’s end shows nothing');
  assert.deepEqual(fake.installed, [], 'the cancelled list is not installed');
  await solver.settled();
  assert.ok(fake.calls.length > 0, 'the frames asked for were solved');
  assert.ok(
    fake.calls.every((c) => c === 'pose'),
    `without unposed examples per-face context is plain per-face skinning (calls: ${fake.calls.join(', ')})`,
  );
  solver.cancel();
  assert.equal(changes(), before + 1, 'a second Cancel with nothing running tells nothing');

  // A new list after the cancel is unposed anew and, once done, poses with the examples.
  setExamples([exampleShape('eg3')]);
  request();
  await settle();
  assert.equal(fake.unposings.length, 3, 'the new list after a cancel is unposed');
  assert.equal(solver.unposing, 0, 'and its progress shows');
  fake.unposings[2].finish();
  await settle();
  assert.equal(solver.unposing, null, 'its progress ends with its result');
  assert.deepEqual(fake.installed, [1], 'its one example is installed');
  request();
  await solver.settled();
  assert.equal(fake.calls.at(-1), 'poseContext', 'then per-face context poses with the examples');
});

test('per-face unposing: a dropped factor (new mesh or influences) ends its progress', async () => {
  const { solver, fake, request } = solverWith('context-perface-eq10');
  request();
  await settle();
  assert.equal(solver.unposing, 0, 'the unposing runs');
  solver.drop();
  assert.equal(solver.unposing, null, 'dropping the factor ends the progress');
  fake.unposings[0].report(1, 2);
  fake.unposings[0].finish();
  await settle();
  assert.equal(solver.unposing, null, 'the dropped job reports nothing after');
});

test('Cancel unposing stops the per-vertex and the per-face unposing, and is refused only when neither runs', () => {
  const done: string[] = [];
  const state = { perVertex: false, perFace: null as number | null };
  const host = {
    posespace: {
      get progress() {
        return { running: state.perVertex };
      },
      setKernel: () => undefined,
      cancel: () => {
        done.push('per vertex');
        state.perVertex = false;
      },
    },
    deformation: {
      exampleMap: 'off',
      setExampleMap: () => undefined,
      get perFaceUnposing() {
        return state.perFace;
      },
      cancelPerFaceUnposing: () => {
        done.push('per face');
        state.perFace = null;
      },
    },
  } as unknown as ExamplesCommandsHost;
  const cancel = examplesCommands(host)['examples.cancelUnpose'];
  assert.equal(cancel.canRun?.(), false, 'nothing to cancel');
  state.perFace = 0.4;
  assert.equal(cancel.canRun?.(), true, 'the per-face unposing alone can be cancelled');
  void cancel.run(undefined);
  assert.deepEqual(done, ['per vertex', 'per face'], 'both unposings are told to stop');
  assert.equal(state.perFace, null, 'the per-face bar is cleared');
  state.perVertex = true;
  assert.equal(cancel.canRun?.(), true, 'the per-vertex unposing can be cancelled');
});
