/**
 * `rigwright weights`, run as users run it, on the shared hand and body. Expectations come from the input files
 * (the handle labels), from identities of harmonic weights (partition of unity; a handle has weight 1 on its bone)
 * and, for the uniform Laplacian, from the discrete harmonic condition checked on the OFF file's own faces: each
 * free vertex's weight is the mean of its neighbours'.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot, dataFile } from './shared-data.ts';
import { splitCube } from './split-cube.ts';
import { MaxInfluences } from '../../renderer/bind/max-influences.ts';
import { MAX_INFLUENCES_DEFAULT } from '../../workers/weights/limit-influences.ts';
import { demoDocument } from '../../workers/scene/scene-document.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';

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
  // Every bone kept (--max-influences 0): the condition holds for the solve's rows, not for rows cut to four bones.
  const run = rigwright(
    ...hand(),
    '--handles',
    dataFile('hand/hand-handles.dmat'),
    '--laplacian',
    'uniform',
    '--max-influences',
    '0',
    '--out',
    out,
  );
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

test('automatic handles: distance rule and cylinder rule both give a partition of unity; cylinders that hold no vertex are refused', () => {
  for (const extra of [['--auto-handles'], ['--auto-handles', '--rule', 'cylinder', '--radius', '0.05']]) {
    const out = path.join(work, `hand-auto-${extra.length}.dmat`);
    const run = rigwright(...hand(), ...extra, '--out', out);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /automatic handles/);
    const w = readAsciiDmat(out);
    for (let v = 0; v < w.rows; v += 7) {
      let sum = 0;
      for (let b = 0; b < w.cols; b++) sum += w.at(v, b);
      assert.ok(Math.abs(sum - 1) < 1e-9, `vertex ${v}: ${sum}`);
    }
  }
  // Cylinders too thin to hold any vertex of the hand leave nothing to solve from: refused, naming the file.
  const thin = rigwright(
    ...hand(),
    '--auto-handles',
    '--rule',
    'cylinder',
    '--radius',
    '0.02',
    '--method',
    'surface',
    '--out',
    path.join(work, 'hand-thin.dmat'),
  );
  assert.equal(thin.status, 1, thin.stderr);
  assert.match(thin.stderr, /hand\.off: no handle vertex .*nothing to solve the surface weights from/);
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

test('the body bound on its surface keeps at most 4 bones a vertex, the rows the app keeps: the largest 4 of the solve, scaled to sum to 1', () => {
  const body = (max: string[], out: string) =>
    rigwright(
      '--mesh',
      dataFile('context-aware/reference.obj'),
      '--skeleton',
      dataFile('context-aware/skeleton.tgf'),
      '--handles',
      dataFile('context-aware/handles.dmat'),
      '--method',
      'surface',
      ...max,
      '--out',
      path.join(work, out),
    );
  const limitedRun = body([], 'body-limited.dmat');
  assert.equal(limitedRun.status, 0, limitedRun.stderr);
  const allRun = body(['--max-influences', '0'], 'body-all.dmat');
  assert.equal(allRun.status, 0, allRun.stderr);
  const limited = readAsciiDmat(path.join(work, 'body-limited.dmat'));
  const all = readAsciiDmat(path.join(work, 'body-all.dmat'));
  assert.deepEqual([limited.rows, limited.cols], [all.rows, all.cols], 'the same shape');
  let over = 0;
  let worst = 0;
  for (let v = 0; v < all.rows; v++) {
    const row = Array.from({ length: all.cols }, (_, b) => all.at(v, b));
    const nonZero = row.filter((w) => w !== 0).length;
    if (nonZero > 4) over++;
    // The app's limit (Max influences 4, nothing locked): the 4 largest weights, a tie keeping the lower bone, scaled
    // to sum to 1; a row of 4 or fewer stays as it is.
    const kept = new Set(
      row
        .map((w, b) => [w, b])
        .sort((x, y) => y[0] - x[0] || x[1] - y[1])
        .slice(0, 4)
        .map(([, b]) => b),
    );
    const sum = row.reduce((total, w, b) => total + (kept.has(b) ? w : 0), 0);
    let count = 0;
    for (let b = 0; b < all.cols; b++) {
      const expected = nonZero <= 4 ? row[b] : kept.has(b) ? row[b] / sum : 0;
      worst = Math.max(worst, Math.abs(limited.at(v, b) - expected));
      if (limited.at(v, b) !== 0) count++;
    }
    assert.ok(count <= 4, `vertex ${v}: ${count} bones`);
  }
  assert.ok(over > 1000, `the solve's rows weigh on more than 4 bones at ${over} vertices: the limit has rows to cut`);
  assert.ok(worst < 1e-12, `largest difference from the solve's rows limited to 4: ${worst}`);
  // The app's Compute weights limits its solve with MaxInfluences.limit at a new scene's limit: the same rows.
  const store = new SceneStore(demoDocument(), new UndoHistory());
  const settings = { locked: new Uint8Array(all.cols), maxInfluences: MAX_INFLUENCES_DEFAULT };
  const app = new MaxInfluences({ store, paintSettings: () => settings, changed: () => undefined });
  const solve = Float64Array.from({ length: all.rows * all.cols }, (_, i) => all.at(Math.floor(i / all.cols), i % all.cols));
  const appRows = app.limit({ rows: all.rows, cols: all.cols, data: solve }).data;
  let differing = 0;
  for (let i = 0; i < appRows.length; i++) if (appRows[i] !== limited.at(Math.floor(i / all.cols), i % all.cols)) differing++;
  assert.equal(differing, 0, "entries that differ from the app's limited rows");
  const help = spawnSync(process.execPath, ['app/cli/rigwright.mjs', 'weights', '--help'], { cwd: repoRoot, encoding: 'utf8' });
  assert.match(help.stdout, /--max-influences K the most bones weighing on a vertex, 1–8; default 4, as the app's/);
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
    [
      [...hand(), '--auto-handles', '--max-influences', '9', '--out', 'x.dmat'],
      /--max-influences must be a whole number from 1 to 8, or 0/,
    ],
    [[...hand(), '--auto-handles', '--max-influences', '2.5', '--out', 'x.dmat'], /--max-influences must be .*not "2\.5"/],
    [[...hand(), '--auto-handles', '--max-influences', 'few', '--out', 'x.dmat'], /--max-influences must be .*not "few"/],
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

test('a cube split into six faces binds welded: coincident vertices get the same weights; --weld-tolerance joins a gap', () => {
  const cube = splitCube(2);
  const n = cube.positions.length / 3;
  // Face z = 1 lifted by 1e-4: its seams close only with a tolerance.
  const lifted = cube.positions.map((x, i) => (i % 3 === 2 && cube.face[Math.floor(i / 3)] === 5 ? x + 1e-4 : x));
  const off = (positions: Float64Array) =>
    `OFF\n${n} ${cube.triangles.length / 3} 0\n` +
    Array.from({ length: n }, (_, v) => positions.slice(3 * v, 3 * v + 3).join(' ')).join('\n') +
    '\n' +
    Array.from({ length: cube.triangles.length / 3 }, (_, f) => `3 ${cube.triangles.slice(3 * f, 3 * f + 3).join(' ')}`).join('\n') +
    '\n';
  writeFileSync(path.join(work, 'cube.off'), off(cube.positions));
  writeFileSync(path.join(work, 'lifted.off'), off(lifted));
  writeFileSync(path.join(work, 'cube.tgf'), '1 0.5 0.5 -0.5\n2 0.5 0.5 0.5\n3 0.5 0.5 1.5\n#\n1 2\n2 3\n');
  // Handles on face z = 0's own vertices (bone 0) and face z = 1's (bone 1): as DMAT, #V × 1, -1 for free.
  const labels = Array.from(cube.face, (f) => (f === 4 ? 0 : f === 5 ? 1 : -1));
  writeFileSync(path.join(work, 'cube-handles.dmat'), `1 ${n}\n${labels.join('\n')}\n`);
  const key = (positions: Float64Array, v: number) => positions.slice(3 * v, 3 * v + 3).join(',');
  const sameAtOnePosition = (file: string, positions: Float64Array) => {
    const weights = readAsciiDmat(file);
    const first = new Map<string, number>();
    let differing = 0;
    for (let v = 0; v < n; v++) {
      const u = first.get(key(positions, v)) ?? v;
      first.set(key(positions, v), u);
      if (weights.at(v, 0) !== weights.at(u, 0) || weights.at(v, 1) !== weights.at(u, 1)) differing++;
    }
    return differing;
  };
  const args = (mesh: string, out: string) => [
    '--mesh',
    path.join(work, mesh),
    '--skeleton',
    path.join(work, 'cube.tgf'),
    '--handles',
    path.join(work, 'cube-handles.dmat'),
    // The harmonic solve from the handles: a face lifted apart is a second shell, which the default method binds volumetrically.
    '--method',
    'surface',
    '--out',
    path.join(work, out),
  ];
  const exact = rigwright(...args('cube.off', 'cube-weights.dmat'));
  assert.equal(exact.status, 0, exact.stderr);
  assert.equal(exact.stderr, '', 'welded, every face is joined to a handle face');
  assert.match(exact.stdout, /54 vertices \(welded into 26\) × 2 bones/);
  assert.equal(sameAtOnePosition(path.join(work, 'cube-weights.dmat'), cube.positions), 0);
  const apart = rigwright(...args('lifted.off', 'lifted-weights.dmat'));
  assert.equal(apart.status, 0, apart.stderr);
  assert.match(apart.stdout, /54 vertices \(welded into 34\)/, 'the lifted face stays apart at tolerance 0');
  const joined = rigwright(...args('lifted.off', 'joined-weights.dmat'), '--weld-tolerance', '1e-3');
  assert.equal(joined.status, 0, joined.stderr);
  assert.match(joined.stdout, /54 vertices \(welded into 26\)/);
  const bad = rigwright(...args('cube.off', 'x.dmat'), '--weld-tolerance=-1');
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--weld-tolerance must be a distance ≥ 0, not "-1"/);
  const word = rigwright(...args('cube.off', 'x.dmat'), '--weld-tolerance', 'near');
  assert.equal(word.status, 2);
  assert.match(word.stderr, /--weld-tolerance must be a distance ≥ 0, not "near"/);
});
