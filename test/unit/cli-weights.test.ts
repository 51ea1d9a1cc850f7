/**
 * `rigwright weights`, run as users run it, on the shared hand and body. Expectations come from the input files
 * (the handle labels), from identities of harmonic weights (partition of unity; a handle has weight 1 on its bone)
 * and, for the uniform Laplacian, from the discrete harmonic condition checked on the OFF file's own faces: each
 * free vertex's weight is the mean of its neighbours'.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot, dataFile } from './shared-data.ts';

const work = mkdtempSync(path.join(tmpdir(), 'rigwright-cli-weights-'));

function rigwright(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ['app/cli/rigwright.mjs', 'weights', ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** An ASCII DMAT read without the app's reader: `cols rows`, then column-major values. */
function readAsciiDmat(file: string): { rows: number; cols: number; at: (r: number, c: number) => number } {
  const tokens = readFileSync(file, 'utf8').trim().split(/\s+/).map(Number);
  const [cols, rows] = tokens;
  assert.equal(tokens.length, 2 + rows * cols, `${file}: value count`);
  return { rows, cols, at: (r, c) => tokens[2 + c * rows + r] };
}

/** Vertex neighbours from the OFF file's faces, read independently of the app. */
function offNeighbours(file: string): Set<number>[] {
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const [v, f] = lines[1].split(/\s+/).map(Number);
  const neighbours = Array.from({ length: v }, () => new Set<number>());
  for (let i = 0; i < f; i++) {
    const [k, ...ids] = lines[2 + v + i].split(/\s+/).map(Number);
    for (let a = 0; a < k; a++) {
      neighbours[ids[a]].add(ids[(a + 1) % k]);
      neighbours[ids[(a + 1) % k]].add(ids[a]);
    }
  }
  return neighbours;
}

const hand = () => ['--mesh', dataFile('hand/hand.off'), '--skeleton', dataFile('hand/hand.tgf')];

test('the hand with its handle file: #V × #B, partition of unity, weight 1 on each handle’s bone', () => {
  const out = path.join(work, 'hand-weights.dmat');
  const run = rigwright(...hand(), '--handles', dataFile('hand/hand-handles.dmat'), '--out', out);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /4780 vertices × 20 bones, cotan Laplacian/);
  assert.equal(run.stderr, '', 'every bone has handles and the hand is one piece: nothing to report');
  const w = readAsciiDmat(out);
  assert.deepEqual([w.rows, w.cols], [4780, 20]);
  const handles = readAsciiDmat(dataFile('hand/hand-handles.dmat'));
  for (let v = 0; v < w.rows; v++) {
    let sum = 0;
    for (let b = 0; b < w.cols; b++) {
      const x = w.at(v, b);
      assert.ok(x >= 0 && x <= 1, `vertex ${v} bone ${b}: ${x}`);
      sum += x;
    }
    assert.ok(Math.abs(sum - 1) < 1e-9, `vertex ${v}: row sums to ${sum}`);
    const h = handles.at(v, 0);
    if (h >= 0) assert.equal(w.at(v, h), 1, `handle vertex ${v} of bone ${h}`);
  }
});

test('uniform Laplacian: every free vertex’s weight is the average of its neighbours’ (the discrete harmonic condition)', () => {
  const out = path.join(work, 'hand-uniform.dmat');
  const run = rigwright(...hand(), '--handles', dataFile('hand/hand-handles.dmat'), '--laplacian', 'uniform', '--out', out);
  assert.equal(run.status, 0, run.stderr);
  const w = readAsciiDmat(out);
  const handles = readAsciiDmat(dataFile('hand/hand-handles.dmat'));
  const neighbours = offNeighbours(dataFile('hand/hand.off'));
  let worst = 0;
  for (let v = 0; v < w.rows; v++) {
    if (handles.at(v, 0) >= 0) continue;
    for (const b of [0, 5, 10, 19]) {
      let mean = 0;
      for (const u of neighbours[v]) mean += w.at(u, b);
      mean /= neighbours[v].size;
      worst = Math.max(worst, Math.abs(mean - w.at(v, b)));
    }
  }
  // Values are printed with enough digits to round-trip; the clamp to [0, 1] only moves round-off.
  assert.ok(worst < 1e-9, `largest deviation from the neighbour average: ${worst}`);
});

test('automatic handles: distance rule and cylinder rule both give a partition of unity', () => {
  for (const extra of [['--auto-handles'], ['--auto-handles', '--rule', 'cylinder', '--radius', '0.02']]) {
    const out = path.join(work, `hand-auto-${extra.length}.dmat`);
    const run = rigwright(...hand(), ...extra, '--out', out);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /automatic handles/);
    const w = readAsciiDmat(out);
    for (let v = 0; v < w.rows; v += 7) {
      let sum = 0;
      for (let b = 0; b < w.cols; b++) sum += w.at(v, b);
      assert.ok(Math.abs(sum - 1) < 1e-9 || sum === 0, `vertex ${v}: ${sum}`);
    }
  }
});

test('the body reports bones 1, 2, 12 and 13 without handles on stderr, and they get weight 0', () => {
  const out = path.join(work, 'body.dmat');
  const run = rigwright(
    '--mesh',
    dataFile('context-aware/reference.obj'),
    '--skeleton',
    dataFile('context-aware/skeleton.tgf'),
    '--handles',
    dataFile('context-aware/handles.dmat'),
    '--out',
    out,
  );
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stderr, /bones 1, 2, 12, 13 have no handle vertices/);
  const w = readAsciiDmat(out);
  assert.equal(w.cols, 28);
  for (const b of [1, 2, 12, 13]) for (let v = 0; v < w.rows; v += 11) assert.equal(w.at(v, b), 0);
});

test('usage errors exit 2 with the usage text; bad files exit 1 naming the file', () => {
  const cases: [string[], RegExp][] = [
    [[...hand(), '--out', path.join(work, 'x.dmat')], /exactly one of --handles FILE and --auto-handles/],
    [[...hand(), '--auto-handles', '--handles', 'h.dmat', '--out', path.join(work, 'x.dmat')], /exactly one/],
    [[...hand(), '--auto-handles', '--rule', 'sphere', '--out', path.join(work, 'x.dmat')], /--rule must be distance or cylinder/],
    [
      [...hand(), '--auto-handles', '--rule', 'cylinder', '--radius=-1', '--out', path.join(work, 'x.dmat')],
      /--radius must be a positive number/,
    ],
    [[...hand(), '--auto-handles', '--laplacian', 'cubic', '--out', path.join(work, 'x.dmat')], /--laplacian must be cotan or uniform/],
    [[...hand(), '--auto-handles', '--out', path.join(work, 'x.txt')], /--out must end in \.dmat/],
    [['--skeleton', dataFile('hand/hand.tgf'), '--auto-handles', '--out', 'x.dmat'], /missing --mesh/],
    [[...hand(), '--auto-handles', '--bogus', '--out', 'x.dmat'], /bogus/],
  ];
  for (const [args, message] of cases) {
    const run = rigwright(...args);
    assert.equal(run.status, 2, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, message);
    assert.match(run.stderr, /Usage: rigwright weights/);
  }
  const wrongHandles = rigwright(...hand(), '--handles', dataFile('context-aware/handles.dmat'), '--out', path.join(work, 'x.dmat'));
  assert.equal(wrongHandles.status, 1);
  assert.match(wrongHandles.stderr, /handles\.dmat/);
  assert.doesNotMatch(wrongHandles.stderr, /Usage|at .*\.ts/);
  const missing = rigwright(
    '--mesh',
    path.join(work, 'nope.off'),
    '--skeleton',
    dataFile('hand/hand.tgf'),
    '--auto-handles',
    '--out',
    path.join(work, 'x.dmat'),
  );
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /nope\.off.*no such file/);
});
