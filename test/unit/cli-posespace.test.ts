/**
 * `rigwright unpose`, `skin --examples` and `export --examples`, run as users run them, on the context-aware body
 * (weights: harmonic from its handles). Expectations: posing the unposed example again (with `rigwright skin`,
 * a second path through the files) returns the example; at an example's own frame context skinning returns that
 * example; bad examples are refused naming the file and the place.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readObj } from '../../workers/formats/obj.ts';
import { writeDmatAscii } from '../../workers/formats/dmat.ts';
import { boundingBox } from '../../workers/mesh/bounds.ts';
import { WebIO } from '@gltf-transform/core';
import { assertValidGltf } from './gltf-skinning-reference.ts';
import { contextAwareBody } from './context-aware-data.ts';
import { dataFile, repoRoot } from './shared-data.ts';

const work = mkdtempSync(path.join(tmpdir(), 'rigwright-cli-posespace-'));
const body = contextAwareBody();
const diagonal = boundingBox(body.mesh.positions).diagonal;
const weightsFile = path.join(work, 'weights.dmat');
writeFileSync(weightsFile, writeDmatAscii(body.weights));
const file = (name: string) => dataFile('context-aware', name);
const rig = ['--mesh', file('reference.obj'), '--skeleton', file('skeleton.tgf'), '--weights', weightsFile];
const allExamples = [0, 1, 2, 3].map((j) => `${file(`eg${j}.obj`)}:${file(`eg${j}.dmat`)}`).join(',');

function rigwright(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ['app/cli/rigwright.mjs', ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 120_000 });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function succeeds(run: ReturnType<typeof rigwright>): ReturnType<typeof rigwright> {
  assert.equal(run.status, 0, `exit ${run.status}\n${run.stdout}\n${run.stderr}`);
  return run;
}

function positionsOf(objFile: string): Float64Array {
  return readObj(readFileSync(objFile, 'utf8'), objFile).mesh.positions;
}

function maxDistance(a: Float64Array, b: Float64Array): number {
  assert.equal(a.length, b.length);
  let worst = 0;
  for (let i = 0; i < a.length; i += 3) worst = Math.max(worst, Math.hypot(a[i] - b[i], a[i + 1] - b[i + 1], a[i + 2] - b[i + 2]));
  return worst;
}

test('rigwright unpose (lbs, dqs): `rigwright skin` of the unposed example at its pose returns the example', () => {
  const eg1 = body.examples[1].mesh.positions;
  for (const method of ['lbs', 'dqs']) {
    const unposed = path.join(work, `eg1-unposed-${method}.obj`);
    const run = succeeds(
      rigwright('unpose', ...rig, '--example', file('eg1.obj'), '--example-pose', file('eg1.dmat'), '--method', method, '--out', unposed),
    );
    assert.match(run.stdout, new RegExp(`18453 vertices unposed by ${method}, largest displacement [0-9.]+, 0 near-singular`));
    const unposedPositions = positionsOf(unposed);
    assert.ok(maxDistance(unposedPositions, body.mesh.positions) < 0.2 * maxDistance(eg1, body.mesh.positions), 'the pose is taken out');
    const reposed = path.join(work, `eg1-reposed-${method}.obj`);
    succeeds(
      rigwright(
        'skin',
        '--mesh',
        unposed,
        '--skeleton',
        file('skeleton.tgf'),
        '--weights',
        weightsFile,
        '--poses',
        file('eg1.dmat'),
        '--method',
        method,
        '--out',
        reposed,
      ),
    );
    const error = maxDistance(positionsOf(reposed), eg1) / diagonal;
    assert.ok(error <= 1e-9, `${method}: round trip ${error}`);
  }
});

test('rigwright skin --examples: at an example frame context LBS / DQS return that example; elsewhere the weights sum to 1', () => {
  for (const method of ['lbs', 'dqs']) {
    for (const [j, frame] of [
      [2, 87],
      [3, 80],
    ]) {
      const out = path.join(work, `context-${method}-${frame}.obj`);
      const run = succeeds(
        rigwright(
          'skin',
          ...rig,
          '--poses',
          file('all_frames.dmat'),
          '--frame',
          String(frame),
          '--method',
          method,
          '--examples',
          allExamples,
          '--out',
          out,
        ),
      );
      assert.match(run.stdout, new RegExp(`context from .*eg${j} 1\\.0000.*\\(gaussian RBF\\)`));
      const error = maxDistance(positionsOf(out), body.examples[j].mesh.positions) / diagonal;
      assert.ok(error <= 1e-6, `${method} frame ${frame}: ${error}`);
    }
    const out = path.join(work, `context-${method}-100.obj`);
    const plain = path.join(work, `plain-${method}-100.obj`);
    const run = succeeds(
      rigwright(
        'skin',
        ...rig,
        '--poses',
        file('all_frames.dmat'),
        '--frame',
        '100',
        '--method',
        method,
        '--examples',
        allExamples,
        '--rbf',
        'linear',
        '--out',
        out,
      ),
    );
    const weights = [...run.stdout.matchAll(/eg\d (-?[0-9.]+)/g)].map((m) => Number(m[1]));
    assert.equal(weights.length, 4);
    assert.ok(Math.abs(weights.reduce((s, a) => s + a, 0) - 1) <= 2e-4, run.stdout);
    assert.match(run.stdout, /\(linear RBF\)/);
    succeeds(rigwright('skin', ...rig, '--poses', file('all_frames.dmat'), '--frame', '100', '--method', method, '--out', plain));
    const correction = maxDistance(positionsOf(out), positionsOf(plain)) / diagonal;
    assert.ok(correction > 1e-4 && correction < 0.05, `${method}: the correction at frame 100 is ${correction} of the diagonal`);
  }
});

test('bad examples: same pose twice, other triangles, wrong bone count, bad options — refused with the file and the reason', () => {
  const same = rigwright(
    'skin',
    ...rig,
    '--poses',
    file('all_frames.dmat'),
    '--frame',
    '3',
    '--examples',
    `${file('eg0.obj')}:${file('eg0.dmat')},${file('eg1.obj')}:${file('eg0.dmat')}`,
    '--out',
    path.join(work, 'x.obj'),
  );
  assert.equal(same.status, 1);
  assert.match(same.stderr, /eg0\.dmat: examples ".*eg0\.obj" and ".*eg1\.obj" have the same pose/);

  const text = readFileSync(file('eg0.obj'), 'utf8');
  const lines = text.split('\n');
  const firstFace = lines.findIndex((l) => l.startsWith('f '));
  const [, a, b, c] = lines[firstFace + 5].trim().split(/\s+/);
  lines[firstFace + 5] = `f ${a} ${c} ${b}`;
  const flipped = path.join(work, 'flipped.obj');
  writeFileSync(flipped, lines.join('\n'));
  const faces = rigwright('unpose', ...rig, '--example', flipped, '--example-pose', file('eg0.dmat'), '--out', path.join(work, 'x.obj'));
  assert.equal(faces.status, 1);
  assert.match(faces.stderr, /flipped\.obj: face 5: an example must have the rest mesh's triangles/);

  const wrongBones = rigwright(
    'unpose',
    ...rig,
    '--example',
    file('eg0.obj'),
    '--example-pose',
    file('handles.dmat'),
    '--out',
    path.join(work, 'x.obj'),
  );
  assert.equal(wrongBones.status, 1);
  assert.match(wrongBones.stderr, /handles\.dmat/);

  const frames = rigwright(
    'unpose',
    ...rig,
    '--example',
    file('eg0.obj'),
    '--example-pose',
    file('all_frames.dmat'),
    '--out',
    path.join(work, 'x.obj'),
  );
  assert.equal(frames.status, 1);
  assert.match(frames.stderr, /all_frames\.dmat: an example pose is one frame \(84 × 3\), but the file holds 394 frames/);

  const kernel = rigwright(
    'skin',
    ...rig,
    '--poses',
    file('eg0.dmat'),
    '--examples',
    allExamples,
    '--rbf',
    'spline',
    '--out',
    path.join(work, 'x.obj'),
  );
  assert.equal(kernel.status, 2);
  assert.match(kernel.stderr, /--rbf must be gaussian or linear, not "spline"/);
  const list = rigwright('skin', ...rig, '--poses', file('eg0.dmat'), '--examples', file('eg0.obj'), '--out', path.join(work, 'x.obj'));
  assert.equal(list.status, 2);
  assert.match(list.stderr, /must be MESH:POSE/);
  const handles = rigwright(
    'unpose',
    ...rig,
    '--example',
    file('eg0.obj'),
    '--example-pose',
    file('eg0.dmat'),
    '--method',
    'perface',
    '--out',
    path.join(work, 'x.obj'),
  );
  assert.equal(handles.status, 2);
  assert.match(handles.stderr, /--method perface needs --handles/);
});

test('rigwright export --examples: a valid glTF whose morph targets are the examples, weighted a_j per keyframe', async () => {
  const out = path.join(work, 'body.glb');
  const run = succeeds(
    rigwright('export', ...rig, '--poses', file('all_frames.dmat'), '--examples', allExamples, '--rbf', 'linear', '--out', out),
  );
  assert.match(run.stdout, /4 example morph targets \(linear RBF weights\)/);
  const bytes = new Uint8Array(readFileSync(out));
  await assertValidGltf(bytes, 'rigwright export --examples');
  const doc = await new WebIO().readBinary(bytes);
  const targets = doc.getRoot().listMeshes()[0].listPrimitives()[0].listTargets();
  assert.deepEqual(
    targets.slice(0, 4).map((t) => t.getName()),
    ['eg0', 'eg1', 'eg2', 'eg3'],
  );
  const T = targets.length;
  const weights = doc
    .getRoot()
    .listAnimations()[0]
    .listChannels()
    .find((c) => c.getTargetPath() === 'weights')!
    .getSampler()!
    .getOutput()!
    .getArray() as Float32Array;
  assert.ok(
    weights.every((w) => w >= 0 && w <= 1),
    'every exported morph target weight is in [0, 1]',
  );
  const stored = targets.map((t) => t.getAttribute('POSITION')!.getArray() as Float32Array);
  const morphAt = (frame: number): Float64Array => {
    const out = new Float64Array(stored[0].length);
    stored.forEach((delta, t) => {
      for (let i = 0; i < out.length; i++) out[i] += weights[T * frame + t] * delta[i];
    });
    return out;
  };
  // Frame 87 is eg2's pose: the players add eg2's displacement, the difference between eg2 unposed and the rest mesh.
  const unposed = path.join(work, 'eg2-unposed-lbs.obj');
  succeeds(rigwright('unpose', ...rig, '--example', file('eg2.obj'), '--example-pose', file('eg2.dmat'), '--out', unposed));
  const eg2Displacement = positionsOf(unposed).map((x, i) => x - body.mesh.positions[i]);
  assert.ok(
    maxDistance(morphAt(87), eg2Displacement) / diagonal < 1e-6,
    "the morph at frame 87 is eg2's unposed displacement (within 1e-6 of the diagonal)",
  );
  // Frame 100 lies between the examples: a blend, not eg2's displacement.
  assert.ok(
    maxDistance(morphAt(100), eg2Displacement) / diagonal > 1e-3,
    "the morph at frame 100 differs from eg2's displacement by more than 1e-3 of the diagonal",
  );
  // Without --examples the same command writes no targets.
  const plain = path.join(work, 'plain.glb');
  succeeds(rigwright('export', ...rig, '--poses', file('all_frames.dmat'), '--out', plain));
  const plainDoc = await new WebIO().readBinary(new Uint8Array(readFileSync(plain)));
  assert.equal(plainDoc.getRoot().listMeshes()[0].listPrimitives()[0].listTargets().length, 0);
});
