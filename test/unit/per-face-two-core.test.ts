/**
 * Per-face skinning's frame on two threads (perFaceTwoCore, its helper on a worker thread) against the one-thread
 * frame perFaceSkinning, on the body subdivided once (73,806 vertices) and twice (295,218), posed by the frames of
 * all_frames.dmat, with and without bone scales, and its context frame against perFaceContextSkinning: the two must
 * agree to 1e-12 of the bounding-box diagonal. Also the
 * partition's invariants, no partition for a small mesh, and a helper thread that ends when disposed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { readObj, writeObj } from '../../workers/formats/obj.ts';
import { readTgf } from '../../workers/formats/tgf.ts';
import { readDmat, writeDmatAscii, writeDmatBinary } from '../../workers/formats/dmat.ts';
import { poseSequenceFromDmat } from '../../workers/formats/pose-file.ts';
import { boundingBox } from '../../workers/mesh/bounds.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { poseDuration, samplePose } from '../../workers/rig/pose-sequence.ts';
import { scaledForwardKinematics } from '../../workers/rig/scaled-forward-kinematics.ts';
import { boneDistanceWeights } from '../../workers/weights/bone-distance-weights.ts';
import { influencesFromWeights } from '../../workers/skinning/influences.ts';
import {
  perFaceFixedVertices,
  perFaceSkinning,
  perFaceSkinningSetup,
  perFaceSkinningWorkspace,
  type PerFaceSkinningSetup,
} from '../../workers/skinning/per-face-skinning.ts';
import { perFaceTwoCore, perFaceTwoCorePartition, TWO_CORE_MIN_FREE_ROWS } from '../../workers/skinning/per-face-two-core.ts';
import { perFaceTwoCoreThread } from '../../app/cli/per-face-thread.ts';
import { perFaceActiveExamples } from '../../workers/skinning/per-face-example-blend.ts';
import {
  perFaceContextFixed,
  perFaceContextSkinning,
  perFaceContextSource,
  perFaceContextWorkspace,
  perFaceExamples,
  type PerFaceExamples,
} from '../../workers/posespace/per-face-context.ts';
import { subdividedCourseBody } from './midpoint-subdivision.ts';
import { dataFile, repoRoot } from './shared-data.ts';

const skeleton = buildSkeleton(readTgf(readFileSync(dataFile('context-aware/skeleton.tgf'), 'utf8'), 'skeleton.tgf'), 'skeleton.tgf');
const boneCount = skeleton.parents.length;
const frames = poseSequenceFromDmat(
  readDmat(new Uint8Array(readFileSync(dataFile('context-aware/all_frames.dmat'))), 'all_frames.dmat'),
  boneCount,
  'all_frames.dmat',
);

/** The body subdivided `levels` times and its per-face setup. */
function bodySetup(levels: number): { setup: PerFaceSkinningSetup; diagonal: number } {
  const body = subdividedCourseBody(levels);
  const influences = influencesFromWeights(boneDistanceWeights(body.positions, skeleton), 4);
  const fixed = perFaceFixedVertices(skeleton.parents, influences, body.handles);
  const setup = perFaceSkinningSetup(body.positions, body.triangles, influences, boneCount, fixed);
  return { setup, diagonal: boundingBox(body.positions).diagonal };
}

/** Bone scales that vary over the bones and poses (about 0.8 … 1.25 along each axis). */
function boneScalesFor(pose: number): Float64Array {
  return Float64Array.from({ length: 3 * boneCount }, (_, i) => 1 + 0.2 * Math.sin(1.7 * i + 0.9 * pose));
}

/**
 * Poses a setup by `poseCount` frames spread over the animation on one thread and on two.
 * @returns the largest vertex distance between the two over the diagonal, and the least motion of a pose
 */
async function compareFrames(levels: number, poseCount: number, scaled: boolean) {
  const { setup, diagonal } = bodySetup(levels);
  const twoCore = await perFaceTwoCoreThread(setup);
  assert.ok(twoCore !== null, `the body subdivided ${levels}× (${setup.freeCount} free rows) splits over two threads`);
  const workspace = perFaceSkinningWorkspace(setup);
  const rotations = new Float64Array(9 * boneCount);
  const transforms = new Float64Array(12 * boneCount);
  const one = new Float64Array(3 * setup.vertexCount);
  const two = new Float64Array(3 * setup.vertexCount);
  let worst = 0;
  let moved = Infinity;
  try {
    for (let k = 0; k < poseCount; k++) {
      samplePose(frames, Math.floor((k * poseDuration(frames)) / Math.max(1, poseCount - 1)), rotations);
      const scales = scaled ? boneScalesFor(k) : null;
      scaledForwardKinematics(skeleton, rotations, scales, transforms);
      perFaceSkinning(setup, transforms, one, workspace, scales);
      two.fill(NaN);
      twoCore.frame(transforms, two, scales);
      let distance = 0;
      let motion = 0;
      for (let i = 0; i < one.length; i += 3) {
        distance = Math.max(distance, Math.hypot(one[i] - two[i], one[i + 1] - two[i + 1], one[i + 2] - two[i + 2]));
        const p = setup.restPositions;
        motion = Math.max(motion, Math.hypot(one[i] - p[i], one[i + 1] - p[i + 1], one[i + 2] - p[i + 2]));
      }
      worst = Math.max(worst, Number.isNaN(distance) ? Infinity : distance / diagonal);
      moved = Math.min(moved, motion / diagonal);
    }
  } finally {
    twoCore.dispose();
  }
  return { worst, moved, vertices: setup.vertexCount };
}

test('the two-core frame equals perFaceSkinning on 30 poses of the body subdivided once (73,806 vertices) to 1e-12 of the diagonal, without and with bone scales', async () => {
  for (const scaled of [false, true]) {
    const { worst, moved, vertices } = await compareFrames(1, 30, scaled);
    assert.equal(vertices, 73_806);
    assert.ok(moved > 0.01, `every pose moves some vertex by over 1% of the diagonal (least: ${moved}, scaled ${scaled})`);
    assert.ok(worst <= 1e-12, `largest difference ${worst} of the diagonal (scaled ${scaled})`);
  }
});

test('the two-core frame equals perFaceSkinning on poses of the body subdivided twice (295,218 vertices) to 1e-12 of the diagonal, without and with bone scales', async () => {
  for (const scaled of [false, true]) {
    const { worst, moved, vertices } = await compareFrames(2, 3, scaled);
    assert.equal(vertices, 295_218);
    assert.ok(moved > 0.01, `every pose moves some vertex by over 1% of the diagonal (least: ${moved}, scaled ${scaled})`);
    assert.ok(worst <= 1e-12, `largest difference ${worst} of the diagonal (scaled ${scaled})`);
  }
});

test('the partition: bins and top cover every supernode once in contiguous ranges, and a bin supernode updates only its bin and the top', () => {
  const { setup } = bodySetup(1);
  const panels = setup.panels;
  const partition = perFaceTwoCorePartition(panels);
  assert.ok(partition !== null, 'the body subdivided once has a partition');
  const { top, bins, speedUp } = partition;
  assert.ok(speedUp >= 1.5 && speedUp <= 2, `estimated speed-up ${speedUp} between 1.5 and 2`);
  const owner = new Int8Array(panels.supernodeCount).fill(-1);
  for (const [label, ranges] of [
    [0, bins[0]],
    [1, bins[1]],
    [2, top],
  ] as const) {
    assert.ok(ranges.length > 0 && ranges.length % 2 === 0, `part ${label} is a non-empty list of pairs`);
    for (let r = 0; r < ranges.length; r += 2) {
      assert.ok(ranges[r] < ranges[r + 1], `part ${label}: range ${ranges[r]} … ${ranges[r + 1]} is not empty`);
      if (r > 0) assert.ok(ranges[r - 1] <= ranges[r], `part ${label}: ranges ascend and are disjoint`);
      for (let s = ranges[r]; s < ranges[r + 1]; s++) {
        assert.ok(owner[s] === -1, `supernode ${s} is in part ${label} and part ${owner[s]}`);
        owner[s] = label;
      }
    }
  }
  assert.ok(!owner.includes(-1), 'every supernode is in a bin or the top');
  const supernodeOf = new Int32Array(panels.n);
  for (let s = 0; s < panels.supernodeCount; s++) supernodeOf.fill(s, panels.supernodeStart[s], panels.supernodeStart[s + 1]);
  let bad = 0;
  let crossing = 0;
  for (let s = 0; s < panels.supernodeCount; s++) {
    for (let i = panels.belowStart[s]; i < panels.belowStart[s + 1]; i++) {
      const t = owner[supernodeOf[panels.belowRows[i] / 3]];
      if (owner[s] === 2 && t !== 2) bad++;
      if (owner[s] !== 2 && t !== 2 && t !== owner[s]) bad++;
      if (owner[s] !== 2 && t === 2) crossing++;
    }
  }
  assert.equal(bad, 0, 'no row below a supernode lies in the other bin, nor below the top');
  assert.ok(crossing > 0, 'some bin rows update the top (the accumulators are exercised)');
});

test('a mesh with fewer free rows than the threshold has no partition and no two-core frame', async () => {
  const { setup } = bodySetup(0);
  assert.ok(setup.freeCount < TWO_CORE_MIN_FREE_ROWS, `the body has ${setup.freeCount} free rows`);
  assert.equal(perFaceTwoCorePartition(setup.panels), null);
  assert.equal(await perFaceTwoCoreThread(setup), null);
});

test('a process that uses the two-core frame exits: the helper thread ends on dispose and never holds the process', () => {
  const script = fileURLToPath(new URL('./per-face-two-core-exit.ts', import.meta.url));
  for (const dispose of ['dispose', 'keep']) {
    const started = performance.now();
    const run = spawnSync(process.execPath, ['--import', 'tsx', script, dispose], { encoding: 'utf8', timeout: 120_000 });
    assert.equal(run.status, 0, `the script (${dispose}) exited with 0: ${run.stderr}`);
    assert.match(run.stdout, new RegExp(`^framed ${dispose}`), `the script (${dispose}) posed a frame first`);
    assert.ok(performance.now() - started < 120_000, `the script (${dispose}) ended by itself`);
  }
});

test('the helper thread leaves its loop on the stop command that dispose posts, and its thread ends with code 0', async () => {
  const { setup } = bodySetup(1);
  let worker: Worker | null = null;
  let stopped = 0;
  const twoCore = perFaceTwoCore(setup, (shared) => {
    worker = new Worker(new URL('../../app/cli/per-face-thread-worker.mjs', import.meta.url), { workerData: shared, execArgv: [] });
    // stop() ends nothing here: the thread must end by leaving runPerFaceHelper.
    return { stop: () => void stopped++ };
  });
  assert.ok(twoCore !== null && worker !== null, 'the body subdivided once starts a helper');
  const thread = worker as Worker;
  await once(thread, 'message');
  const exited = once(thread, 'exit');
  twoCore.frame(
    new Float64Array(12 * boneCount).map((_, i) => (i % 12 === 0 || i % 12 === 5 || i % 12 === 10 ? 1 : 0)),
    new Float64Array(3 * setup.vertexCount),
  );
  twoCore.dispose();
  twoCore.dispose();
  const [code] = (await exited) as [number];
  assert.equal(code, 0, 'the helper thread ended normally');
  assert.equal(stopped, 1, 'dispose calls stop once, however often it is called');
  assert.throws(() => twoCore.frame(new Float64Array(12 * boneCount), new Float64Array(3 * setup.vertexCount)), /after dispose/);
});

test('a helper that fails stops the two-core frame: the frame throws saying so, with the helper’s message, and every later frame is refused', async () => {
  const { setup } = bodySetup(1);
  let worker: Worker | null = null;
  let stopped = 0;
  const twoCore = perFaceTwoCore(setup, (shared) => {
    // A memory too small for the views it is said to hold: the helper fails before its first command, making them.
    assert.ok(shared.memory !== null, 'the solve is set up in a shared WebAssembly memory');
    const tooSmall = new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true });
    worker = new Worker(new URL('../../app/cli/per-face-thread-worker.mjs', import.meta.url), {
      workerData: { ...shared, memory: tooSmall },
      execArgv: [],
    });
    return { stop: () => void stopped++ };
  });
  assert.ok(twoCore !== null && worker !== null, 'the body subdivided once starts a helper');
  const thread = worker as Worker;
  const failed = once(thread, 'error');
  const identity = new Float64Array(12 * boneCount).map((_, i) => (i % 12 === 0 || i % 12 === 5 || i % 12 === 10 ? 1 : 0));
  assert.throws(
    () => twoCore.frame(identity, new Float64Array(3 * setup.vertexCount)),
    /^Error: perFaceTwoCore: the frame failed and the two threads are stopped: perFaceTwoCore: the helper thread failed: .*(offset|length|bounds)/i,
    "the error carries the helper's own message",
  );
  assert.match(String((await failed)[0]), /RangeError/, 'the helper thread failed on its views of the memory');
  assert.equal(stopped, 1, 'the failed frame stopped the helper');
  assert.throws(() => twoCore.frame(identity, new Float64Array(3 * setup.vertexCount)), /after dispose/);
});

test('rigwright skin --method perface --threads 2 on the body subdivided once runs on two threads and writes what the default (one thread) writes, to 1e-12 of the diagonal', () => {
  const work = mkdtempSync(path.join(tmpdir(), 'rigwright-two-core-'));
  const body = subdividedCourseBody(1);
  const file = (name: string) => path.join(work, name);
  writeFileSync(file('body.obj'), writeObj({ positions: body.positions, triangles: body.triangles }));
  writeFileSync(file('weights.dmat'), writeDmatBinary(boneDistanceWeights(body.positions, skeleton)));
  writeFileSync(file('handles.dmat'), writeDmatAscii({ rows: body.handles.length, cols: 1, data: Float64Array.from(body.handles) }));
  const skin = (out: string, ...extra: string[]) => {
    const run = spawnSync(
      process.execPath,
      [
        'app/cli/rigwright.mjs',
        'skin',
        ...['--mesh', file('body.obj'), '--skeleton', dataFile('context-aware/skeleton.tgf'), '--weights', file('weights.dmat')],
        ...['--poses', dataFile('context-aware/all_frames.dmat'), '--frame', '40', '--method', 'perface'],
        ...['--handles', file('handles.dmat'), '--out', file(out), ...extra],
      ],
      { cwd: repoRoot, encoding: 'utf8', timeout: 120_000 },
    );
    assert.equal(run.status, 0, `skin ${extra.join(' ')} exited with ${run.status}: ${run.stderr}`);
    return { stdout: run.stdout, positions: readObj(readFileSync(file(out), 'utf8'), out).mesh.positions };
  };
  const two = skin('two.obj', '--threads', '2');
  const one = skin('one.obj');
  assert.match(two.stdout, /perface \(\d+ fixed vertices, two threads\)/, '--threads 2 runs on two threads');
  assert.match(one.stdout, /perface \(\d+ fixed vertices\)/, 'the default runs on one');
  const diagonal = boundingBox(body.positions).diagonal;
  let worst = 0;
  let motion = 0;
  for (let i = 0; i < one.positions.length; i += 3) {
    const [a, b, p] = [one.positions, two.positions, body.positions];
    worst = Math.max(worst, Math.hypot(a[i] - b[i], a[i + 1] - b[i + 1], a[i + 2] - b[i + 2]) / diagonal);
    motion = Math.max(motion, Math.hypot(a[i] - p[i], a[i + 1] - p[i + 1], a[i + 2] - p[i + 2]) / diagonal);
  }
  assert.equal(two.positions.length, body.positions.length);
  assert.ok(motion > 0.01, `frame 40 moves some vertex by over 1% of the diagonal (${motion})`);
  assert.ok(worst <= 1e-12, `largest difference ${worst} of the diagonal`);
});

test('a context frame stitched on two threads (contextFrame) equals perFaceContextSkinning on one, Eq. 9 and Eq. 10, on 12 poses of the body subdivided once, to 1e-12 of the diagonal', async () => {
  const { setup, diagonal } = bodySetup(1);
  const twoCore = await perFaceTwoCoreThread(setup);
  assert.ok(twoCore !== null, 'the body subdivided once splits over two threads');
  // Two example shapes: the rest mesh bulged smoothly two ways (what unposed sculpts are to the rest mesh).
  const rest = setup.restPositions;
  const unposed = [0, 1].map((j) =>
    rest.map((value, i) => value + 0.02 * diagonal * Math.sin((3.1 * rest[i - (i % 3) + ((i + j) % 3)]) / diagonal + j)),
  );
  const examples = perFaceExamples(setup, unposed);
  const oneThread = perFaceContextWorkspace(setup, examples);
  const shared = perFaceContextWorkspace(setup, examples, twoCore.contextProducts);
  assert.ok(shared.products === twoCore.contextProducts, 'the workspace writes its products where both threads read them');
  const rotations = new Float64Array(9 * boneCount);
  const transforms = new Float64Array(12 * boneCount);
  const one = new Float64Array(3 * setup.vertexCount);
  const two = new Float64Array(3 * setup.vertexCount);
  const plain = new Float64Array(3 * setup.vertexCount);
  let worst = 0;
  let fromPlain = Infinity;
  try {
    for (let k = 0; k < 12; k++) {
      samplePose(frames, Math.floor((k * poseDuration(frames)) / 11), rotations);
      const scales = k % 3 === 2 ? boneScalesFor(k) : null;
      scaledForwardKinematics(skeleton, rotations, scales, transforms);
      const weights = Float64Array.of(0.6 - 0.04 * k, 0.1 + 0.05 * k);
      const blend = k % 2 === 0 ? 'eq9' : 'eq10';
      perFaceContextSkinning(setup, examples, weights, blend, transforms, one, oneThread, scales);
      perFaceContextSource(setup, examples, weights, blend, shared);
      twoCore.contextFrame(transforms, shared.source, two, scales);
      twoCore.frame(transforms, plain, scales);
      let difference = 0;
      let fromRest = 0;
      for (let v = 0; v < setup.vertexCount; v++) {
        difference = Math.max(
          difference,
          Math.hypot(one[3 * v] - two[3 * v], one[3 * v + 1] - two[3 * v + 1], one[3 * v + 2] - two[3 * v + 2]),
        );
        fromRest = Math.max(
          fromRest,
          Math.hypot(plain[3 * v] - two[3 * v], plain[3 * v + 1] - two[3 * v + 1], plain[3 * v + 2] - two[3 * v + 2]),
        );
      }
      worst = Math.max(worst, difference / diagonal);
      fromPlain = Math.min(fromPlain, fromRest / diagonal);
    }
  } finally {
    twoCore.dispose();
  }
  assert.ok(worst <= 1e-12, `largest difference ${worst} of the diagonal`);
  assert.ok(fromPlain > 1e-4, `the examples moved every context frame away from the plain one (least ${fromPlain} of the diagonal)`);
});

test('a context frame from shared examples (examplesFrame: each thread blends its own faces) equals perFaceContextSkinning, Eq. 9 and Eq. 10, with two, three and again two examples shared, to 1e-12 of the diagonal', async () => {
  const { setup, diagonal } = bodySetup(1);
  const twoCore = await perFaceTwoCoreThread(setup);
  assert.ok(twoCore !== null, 'the body subdivided once splits over two threads');
  const rest = setup.restPositions;
  const bulged = (j: number) =>
    rest.map((value, i) => value + 0.02 * diagonal * Math.sin((3.1 * rest[i - (i % 3) + ((i + j) % 3)]) / diagonal + j));
  const rotations = new Float64Array(9 * boneCount);
  const transforms = new Float64Array(12 * boneCount);
  const one = new Float64Array(3 * setup.vertexCount);
  const two = new Float64Array(3 * setup.vertexCount);
  let worst = 0;
  let framesRun = 0;
  try {
    for (const J of [2, 3, 2]) {
      const examples = perFaceExamples(
        setup,
        Array.from({ length: J }, (_, j) => bulged(j + J)),
      );
      const shared: PerFaceExamples | null = twoCore.shareExamples(examples);
      assert.ok(shared !== null, `${J} examples fit in the shared memory`);
      assert.deepEqual(shared.polarOffsets, examples.polarOffsets, 'the shared copy holds the same offsets');
      assert.ok(shared.productOffsets !== examples.productOffsets, 'a copy, not the caller’s array');
      const oneThread = perFaceContextWorkspace(setup, examples);
      const context = perFaceContextWorkspace(setup, shared, twoCore.contextProducts);
      for (let k = 0; k < 6; k++, framesRun++) {
        samplePose(frames, Math.floor((k * poseDuration(frames)) / 5), rotations);
        const scales = k % 3 === 2 ? boneScalesFor(k) : null;
        scaledForwardKinematics(skeleton, rotations, scales, transforms);
        const weights = Float64Array.from({ length: J }, (_, j) => (j === 1 && k === 4 ? 0 : 0.5 - 0.05 * k + 0.1 * j));
        const blend = k % 2 === 0 ? 'eq9' : 'eq10';
        perFaceContextSkinning(setup, examples, weights, blend, transforms, one, oneThread, scales);
        perFaceContextFixed(setup, shared, perFaceActiveExamples(shared, weights, context), context);
        twoCore.examplesFrame(weights, blend, transforms, context.source, two, scales);
        let difference = 0;
        for (let v = 0; v < setup.vertexCount; v++) {
          difference = Math.max(
            difference,
            Math.hypot(one[3 * v] - two[3 * v], one[3 * v + 1] - two[3 * v + 1], one[3 * v + 2] - two[3 * v + 2]),
          );
        }
        worst = Math.max(worst, difference / diagonal);
      }
    }
  } finally {
    twoCore.dispose();
  }
  assert.equal(framesRun, 18);
  assert.ok(worst <= 1e-12, `largest difference ${worst} of the diagonal`);
});
