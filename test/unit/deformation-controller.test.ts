/**
 * The deformation controller (renderer/deform/deformation-controller.ts) driven with fake views that record what
 * they are fed, and an in-process per-face worker made of workers/skinning: what each view gets when the method,
 * the split, the maps, the pose or the document change, and the per-face solver's results, errors and waiting.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DeformationController, type DeformationViews, type SkinnedFeed } from '../../renderer/deform/deformation-controller.ts';
import type { DeformWorker } from '../../renderer/deform/per-face-solver.ts';
import { PoseEvaluator } from '../../renderer/deform/pose-evaluator.ts';
import type { SkinMethod } from '../../renderer/deform/skin-methods.ts';
import { demoDocument, twistDemoDocument, type SceneDocument } from '../../workers/scene/scene-document.ts';
import { influencesFromWeights, type Influences } from '../../workers/skinning/influences.ts';
import { linearBlendSkinning } from '../../workers/skinning/linear-blend-skinning.ts';
import { dualQuatsFromRigidMatrices } from '../../workers/math/dual-quaternion.ts';
import { oneRingAreaChange, oneRingAreas } from '../../workers/mesh/one-ring-area-change.ts';
import { vertexNormals } from '../../workers/mesh/vertex-normals.ts';
import {
  perFaceFixedVertices,
  perFaceSkinning,
  perFaceSkinningSetup,
  type PerFaceSkinningSetup,
} from '../../workers/skinning/per-face-skinning.ts';

type Call = [string, ...unknown[]];

function lastOf(calls: readonly Call[], name: string): Call | undefined {
  return calls.filter(([called]) => called === name).at(-1);
}

/** A skinned view that records every call (name and arguments, arrays copied as they were then). */
class RecordingFeed implements SkinnedFeed {
  calls: Call[] = [];
  constructor(readonly name: string) {}
  private record(call: string, ...args: unknown[]): void {
    this.calls.push([call, ...args.map((a) => (ArrayBuffer.isView(a) ? (a as Float64Array).slice() : a))]);
  }
  last(call: string): Call | undefined {
    return lastOf(this.calls, call);
  }
  setMethod(method: SkinMethod, perVertexSigns: boolean, scaled: boolean): void {
    this.record('setMethod', method, perVertexSigns, scaled);
  }
  setContext(displacements: Float64Array | null, normalDeltas: Float64Array | null, weights: ArrayLike<number>): void {
    this.record('setContext', displacements, normalDeltas, Array.from(weights));
  }
  setTransforms(transforms: Float64Array): void {
    this.record('setTransforms', transforms);
  }
  setDualQuaternions(dualQuaternions: Float64Array, scales: Float64Array | null): void {
    this.record('setDualQuaternions', dualQuaternions, scales);
  }
  setStreamedPositions(positions: Float64Array, normals: Float64Array): void {
    this.record('setStreamedPositions', positions, normals);
  }
  setDistortion(values: Float32Array | null, kind?: 'distortion' | 'magnitude'): void {
    this.record('setDistortion', values, kind);
  }
}

/** The views: a recording main view (a new one per document), a recording second half made on openSplit. */
class FakeViews implements DeformationViews<string, string> {
  primary: RecordingFeed;
  secondary: RecordingFeed | null = null;
  calls: Call[] = [];
  constructor(primaryName: string) {
    this.primary = new RecordingFeed(primaryName);
  }
  get splitView(): string | null {
    return this.secondary?.name ?? null;
  }
  openSplit(blend: Float32Array): void {
    this.calls.push(['openSplit', blend.slice()]);
    this.secondary = new RecordingFeed('split');
  }
  closeSplit(): void {
    this.calls.push(['closeSplit']);
    this.secondary = null;
  }
  setDocument(doc: SceneDocument, _influences: Influences, primary: string): void {
    this.calls.push(['setDocument', doc.name, primary]);
    this.primary = new RecordingFeed(primary);
    this.secondary = null;
  }
  setInfluences(influences: Influences): void {
    this.calls.push(['setInfluences', influences.stride]);
  }
  setTriangles(triangles: Uint32Array): void {
    this.calls.push(['setTriangles', triangles.length]);
  }
  setLook(on: boolean): void {
    this.calls.push(['setLook', on]);
  }
  setBlendWeights(blend: Float32Array): void {
    this.calls.push(['setBlendWeights', blend.slice()]);
  }
  setHidden(hidden: boolean): void {
    this.calls.push(['setHidden', hidden]);
  }
  lookReady(): Promise<void> {
    return Promise.resolve();
  }
  readSplitPositions(renderer: string): Float32Array | null {
    this.calls.push(['readSplitPositions', renderer]);
    return this.secondary ? new Float32Array(3) : null;
  }
}

/** The deform worker's setup and pose, in this process, made of workers/skinning directly; counts its calls. */
function inProcessWorker(options: { failSetup?: string } = {}) {
  let setup: PerFaceSkinningSetup | null = null;
  const counts = { setup: 0, pose: 0 };
  const worker = {
    setup(positions: Float64Array, triangles: Uint32Array, influences: Influences, boneCount: number, fixed: Int32Array) {
      counts.setup++;
      if (options.failSetup) return Promise.reject(new Error(options.failSetup));
      setup = perFaceSkinningSetup(positions, triangles, influences, boneCount, fixed);
      return Promise.resolve(setup.fixedVertices.length);
    },
    pose({ transforms, scales }: { transforms: Float64Array; scales: Float64Array | null }) {
      counts.pose++;
      const positions = new Float64Array(3 * setup!.vertexCount);
      perFaceSkinning(setup!, transforms, positions, undefined, scales);
      return Promise.resolve({ positions, normals: vertexNormals(positions, setup!.triangles) });
    },
  };
  return { worker: worker as unknown as DeformWorker, counts };
}

function scene(doc: SceneDocument = demoDocument()) {
  const influences = influencesFromWeights(doc.weights, 4);
  const views = new FakeViews('main');
  const { worker, counts } = inProcessWorker();
  let changes = 0;
  const controller = new DeformationController(
    views,
    doc,
    influences,
    () => changes++,
    () => worker,
  );
  const evaluator = new PoseEvaluator(doc);
  const frame = Math.floor(evaluator.duration / 2);
  evaluator.evaluate(frame);
  return { doc, influences, views, controller, evaluator, counts, changes: () => changes };
}

function lbs(doc: SceneDocument, influences: Influences, transforms: Float64Array): Float64Array {
  const out = new Float64Array(doc.mesh.positions.length);
  linearBlendSkinning(doc.mesh.positions, influences, transforms, out);
  return out;
}

test('a pose feeds the main view its method, transforms and dual quaternions; no split view is made', () => {
  const { controller, views, evaluator } = scene();
  assert.ok(
    evaluator.transforms.some((t, i) => t !== [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0][i % 12]),
    'the demo pose moves a bone',
  );
  controller.applyPose(evaluator);
  const main = views.primary;
  assert.deepEqual(
    main.calls.map(([name]) => name),
    ['setMethod', 'setContext', 'setTransforms', 'setDualQuaternions'],
  );
  assert.deepEqual(main.last('setMethod'), ['setMethod', 'lbs', true, false]);
  assert.deepEqual(main.last('setContext'), ['setContext', null, null, []]);
  assert.deepEqual(main.last('setTransforms')![1], evaluator.transforms);
  const dq = new Float64Array((8 * evaluator.transforms.length) / 12);
  dualQuatsFromRigidMatrices(evaluator.transforms, dq);
  assert.deepEqual(main.last('setDualQuaternions'), ['setDualQuaternions', dq, null]);
  assert.equal(views.secondary, null);
  assert.deepEqual(views.calls, []);
});

test('the method, antipodality and split re-feed the last pose; the split view is made with the blend and removed when closed', () => {
  const { controller, views, evaluator, changes } = scene();
  controller.applyPose(evaluator);
  const before = changes();
  controller.setMethod('dqs');
  assert.deepEqual(views.primary.last('setMethod'), ['setMethod', 'dqs', true, false]);
  controller.setAntipodality('per-bone');
  assert.deepEqual(views.primary.last('setMethod'), ['setMethod', 'dqs', false, false], 'per-bone: signs aligned before packing');
  assert.equal(changes(), before + 2, 'each change tells the chrome');

  controller.setBlendWeights(new Float32Array(controller.blendWeights.length).fill(0.5));
  assert.deepEqual(views.calls.at(-1)?.[0], 'setBlendWeights');
  controller.setSplit('blend');
  assert.equal(views.calls.filter(([c]) => c === 'openSplit').length, 1);
  const opened = views.calls.find(([c]) => c === 'openSplit')![1] as Float32Array;
  assert.ok(
    opened.every((b) => b === 0.5),
    'the second half is made with the blend set',
  );
  assert.deepEqual(views.secondary!.last('setMethod'), ['setMethod', 'blend', false, false]);
  assert.deepEqual(views.secondary!.last('setTransforms')![1], evaluator.transforms, 'one pose on both halves');
  assert.equal(controller.splitView, 'split');
  controller.setSplit('lbs');
  assert.equal(views.calls.filter(([c]) => c === 'openSplit').length, 1, 'another method keeps the same second half');
  controller.setSplit(null);
  assert.deepEqual(views.calls.at(-1), ['closeSplit']);
  assert.equal(controller.splitView, null);
  assert.equal(controller.readSplitPositions('the renderer'), null);
  assert.deepEqual(views.calls.at(-1), ['readSplitPositions', 'the renderer']);
});

test('the heat map colours each view with the one-ring area change of its method; the examples map replaces it; off clears it', () => {
  const { doc, influences, controller, views, evaluator } = scene();
  controller.applyPose(evaluator);
  controller.setHeatMap(true);
  const expected = new Float32Array(doc.mesh.positions.length / 3);
  const n = expected.length;
  oneRingAreaChange(
    oneRingAreas(doc.mesh.positions, doc.mesh.triangles, new Float64Array(n)),
    lbs(doc, influences, evaluator.transforms),
    doc.mesh.triangles,
    expected,
    new Float64Array(n),
  );
  const [, values, kind] = views.primary.last('setDistortion')!;
  assert.equal(kind, undefined, 'the area distortion colouring');
  assert.ok(
    expected.some((d) => Math.abs(d) > 1e-3),
    'the pose distorts some one-ring',
  );
  assert.deepEqual(values, expected);

  controller.setExampleMap('displacement');
  assert.deepEqual(views.primary.last('setDistortion')!.slice(2), ['magnitude']);
  assert.equal(controller.exampleMapNote, 'no examples shown');
  controller.setExampleMap('off');
  assert.deepEqual(views.primary.last('setDistortion')![2], undefined, 'the heat map is back');
  views.primary.calls = [];
  controller.setHeatMap(false);
  assert.deepEqual(views.primary.calls[0], ['setDistortion', null, undefined], 'with both off, the colouring is cleared first');
  assert.equal(views.primary.calls.filter(([c, v]) => c === 'setDistortion' && v !== null).length, 0, 'and not coloured again by the pose');
});

test('per-face: the solve of the pose reaches the view, equal to workers/skinning’s solve, and settled waits for it', async () => {
  const { doc, influences, controller, views, evaluator, counts } = scene();
  controller.setMethod('perface');
  controller.applyPose(evaluator);
  assert.equal(views.primary.last('setStreamedPositions'), undefined, 'nothing solved yet');
  await controller.settled();
  assert.equal(counts.setup, 1);
  const setup = perFaceSkinningSetup(
    doc.mesh.positions,
    doc.mesh.triangles,
    influences,
    doc.skeleton.parents.length,
    perFaceFixedVertices(doc.skeleton.parents, influences, doc.handles),
  );
  const expected = new Float64Array(doc.mesh.positions.length);
  perFaceSkinning(setup, evaluator.transforms, expected);
  const shown = views.primary.last('setStreamedPositions')!;
  assert.deepEqual(shown[1], expected);
  assert.deepEqual(views.primary.last('setMethod'), ['setMethod', 'perface', true, false]);
  assert.equal(controller.perFaceError, null);

  // A second pose while nothing runs: the last result is shown at once, then the new one.
  const posesBefore = counts.pose;
  evaluator.evaluate(0);
  controller.applyPose(evaluator);
  assert.deepEqual(views.primary.last('setStreamedPositions')![1], expected, 'the last result meanwhile');
  await controller.settled();
  assert.equal(counts.pose, posesBefore + 1);
  perFaceSkinning(setup, evaluator.transforms, expected);
  assert.deepEqual(views.primary.last('setStreamedPositions')![1], expected);

  // New influences: a new factor for the next solve.
  controller.setInfluences(influencesFromWeights(doc.weights, 2));
  controller.applyPose(evaluator);
  await controller.settled();
  assert.equal(counts.setup, 2);
  assert.deepEqual(views.calls.at(-1)?.[0], 'setInfluences');
});

test('a per-face setup that fails is an error to show, and whoever waits is released', async () => {
  const doc = twistDemoDocument();
  const views = new FakeViews('main');
  const { worker } = inProcessWorker({ failSetup: 'no fixed vertex' });
  let changes = 0;
  const controller = new DeformationController(
    views,
    doc,
    influencesFromWeights(doc.weights, 4),
    () => changes++,
    () => worker,
  );
  const evaluator = new PoseEvaluator(doc);
  evaluator.evaluate(30);
  controller.setMethod('perface');
  const before = changes;
  controller.applyPose(evaluator);
  await controller.settled();
  assert.equal(controller.perFaceError, 'Per-face skinning: no fixed vertex');
  assert.ok(changes > before, 'the chrome is told');
  assert.equal(views.primary.last('setStreamedPositions'), undefined);
});

test('a new document: the views are given its main view, the blend starts over, the split is made again, and the next pose feeds it', () => {
  const { controller, views, evaluator } = scene();
  controller.setSplit('dqs');
  controller.applyPose(evaluator);
  const twist = twistDemoDocument();
  const influences = influencesFromWeights(twist.weights, 4);
  controller.setDocument(twist, influences, 'twist main');
  assert.deepEqual(
    views.calls.find(([c]) => c === 'setDocument'),
    ['setDocument', 'Twist test', 'twist main'],
  );
  assert.equal(controller.blendWeights.length, twist.mesh.positions.length / 3);
  const reopened = lastOf(views.calls, 'openSplit')!;
  assert.equal((reopened[1] as Float32Array).length, twist.mesh.positions.length / 3, 'the second half is made for the new mesh');
  assert.equal(views.primary.name, 'twist main');
  assert.equal(views.primary.last('setTransforms'), undefined, 'the old pose is not applied to the new document');

  const pose = new PoseEvaluator(twist);
  pose.evaluate(30);
  controller.applyPose(pose);
  assert.deepEqual(views.primary.last('setTransforms')![1], pose.transforms);
  assert.deepEqual(views.secondary!.last('setMethod'), ['setMethod', 'dqs', true, false]);
  const cpu = controller.cpuReference('lbs', pose);
  assert.deepEqual(cpu, lbs(twist, influences, pose.transforms), 'the CPU reference is of the new document');
});

test('the look, the triangles and hiding reach the views', () => {
  const { controller, views } = scene();
  controller.setLook(true);
  controller.setTriangles(new Uint32Array(6));
  controller.hidden = true;
  assert.equal(controller.lookShown, true);
  assert.equal(controller.hidden, true);
  assert.deepEqual(views.calls, [
    ['setLook', true],
    ['setTriangles', 6],
    ['setHidden', true],
  ]);
});
