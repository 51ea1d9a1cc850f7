/**
 * The `rigwright` command-line tool, run as users run it (`node app/cli/rigwright.mjs …` from the repository root)
 * on the shared rigging data. Expected values come from the input files themselves (rest joints, the arm mesh) and
 * from a second, deliberately different implementation in this file: joints are chained start → end along the
 * parent bones with quaternions or the stored matrices, and skinning is evaluated as Σ w (R v + t) per vertex.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot, dataDir, dataFile } from './shared-data.ts';

const work = mkdtempSync(path.join(tmpdir(), 'rigwright-cli-'));

function workFile(name: string, text?: string): string {
  const file = path.join(work, name);
  if (text !== undefined) writeFileSync(file, text);
  return file;
}

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function rigwright(...args: string[]): Run {
  const result = spawnSync(process.execPath, ['app/cli/rigwright.mjs', ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function succeeds(run: Run): Run {
  assert.equal(run.status, 0, `exit ${run.status}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  return run;
}

/** A user error: the given exit code, the message on stderr, never a stack trace. */
function fails(run: Run, status: number, ...patterns: RegExp[]): void {
  assert.equal(run.status, status, `exit ${run.status}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  for (const pattern of patterns) assert.match(run.stderr, pattern);
  assert.doesNotMatch(run.stderr, /^\s+at /m, 'stack trace printed');
}

// --- a second reader for the formats, as small as possible ---

/** libigl DMAT, ASCII: `cols rows`, then column-major values. Returns rows as arrays. */
function parseDmat(text: string): number[][] {
  const tokens = text.trim().split(/\s+/).map(Number);
  const [cols, rows] = tokens;
  assert.equal(tokens.length, 2 + cols * rows, 'DMAT value count');
  return Array.from({ length: rows }, (_, r) => Array.from({ length: cols }, (_, c) => tokens[2 + c * rows + r]));
}

function dmatText(rows: number[][]): string {
  const cols = rows[0].length;
  const lines = [`${cols} ${rows.length}`];
  for (let c = 0; c < cols; c++) for (const row of rows) lines.push(String(row[c]));
  return `${lines.join('\n')}\n`;
}

/** TGF: `i x y z …` node lines, `#`, then `a b` edge lines (1-based). */
function parseTgf(text: string): { joints: number[][]; bones: [number, number][] } {
  const [nodePart, edgePart] = text.split(/^#.*$/m);
  const joints = nodePart
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).slice(1, 4).map(Number));
  const bones = edgePart
    .trim()
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map(
      (line) =>
        line
          .trim()
          .split(/\s+/)
          .slice(0, 2)
          .map((i) => Number(i) - 1) as [number, number],
    );
  return { joints, bones };
}

function parseObj(text: string): { vertices: number[][]; faces: string[] } {
  const vertices: number[][] = [];
  const faces: string[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('v ')) vertices.push(line.trim().split(/\s+/).slice(1, 4).map(Number));
    else if (line.startsWith('f '))
      faces.push(
        line
          .trim()
          .split(/\s+/)
          .slice(1)
          .map((corner) => corner.split('/')[0])
          .join(' '),
      );
  }
  return { vertices, faces };
}

// --- a second forward kinematics: chain posed joints from the root outwards ---

type Mat3 = number[][];
const IDENTITY: Mat3 = [
  [1, 0, 0],
  [0, 1, 0],
  [0, 0, 1],
];

function multiply(a: Mat3, b: Mat3): Mat3 {
  return a.map((row) => [0, 1, 2].map((c) => row[0] * b[0][c] + row[1] * b[1][c] + row[2] * b[2][c]));
}

function apply(m: Mat3, v: number[]): number[] {
  return m.map((row) => row[0] * v[0] + row[1] * v[1] + row[2] * v[2]);
}

/** Quaternion x y z w → rotation matrix (Hamilton, scalar last). */
function quaternionMatrix([x, y, z, w]: number[]): Mat3 {
  return [
    [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
    [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
    [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
  ];
}

/** Hamilton product a ⊗ b, x y z w. */
function quaternionMultiply([ax, ay, az, aw]: number[], [bx, by, bz, bw]: number[]): number[] {
  return [
    aw * bx + ax * bw + ay * bz - az * by,
    aw * by - ax * bz + ay * bw + az * bx,
    aw * bz + ax * by - ay * bx + az * bw,
    aw * bw - ax * bx - ay * by - az * bz,
  ];
}

/** SLERP from the identity to unit q (shortest arc), by the angle formula rather than matrix blending. */
function slerpFromIdentity(q: number[], t: number): number[] {
  const s = q[3] < 0 ? q.map((v) => -v) : q;
  const angle = Math.acos(Math.min(1, s[3]));
  if (angle < 1e-12) return [0, 0, 0, 1];
  const a = Math.sin((1 - t) * angle) / Math.sin(angle);
  const b = Math.sin(t * angle) / Math.sin(angle);
  return [b * s[0], b * s[1], b * s[2], a + b * s[3]];
}

function parentsOf(bones: [number, number][]): number[] {
  return bones.map(([start]) => bones.findIndex(([, end]) => end === start));
}

/**
 * Posed joints and absolute bone transforms by walking each bone's parent chain: the absolute rotation is the
 * product of relative rotations from the root, a root's start joint stays put, and a bone's end is its posed
 * start plus the absolute rotation of its rest offset.
 */
function chainPose(joints: number[][], bones: [number, number][], relative: Mat3[]) {
  const parents = parentsOf(bones);
  const absolute: (Mat3 | undefined)[] = [];
  const rotationOf = (b: number): Mat3 => (absolute[b] ??= multiply(parents[b] < 0 ? IDENTITY : rotationOf(parents[b]), relative[b]));
  const posedStart = (b: number): number[] => (parents[b] < 0 ? joints[bones[b][0]] : posedEnd(parents[b]));
  const posedEnd = (b: number): number[] => {
    const [start, end] = bones[b];
    const offset = apply(
      rotationOf(b),
      joints[end].map((v, i) => v - joints[start][i]),
    );
    return posedStart(b).map((v, i) => v + offset[i]);
  };
  const posed = joints.map((joint) => joint.slice());
  bones.forEach((bone, b) => {
    posed[bone[0]] = posedStart(b);
    posed[bone[1]] = posedEnd(b);
  });
  // Bone b maps rest point p to R_b (p − s_b) + posed s_b.
  const transform = (b: number, p: number[]): number[] => {
    const start = joints[bones[b][0]];
    const rotated = apply(
      rotationOf(b),
      p.map((v, i) => v - start[i]),
    );
    const origin = posedStart(b);
    return rotated.map((v, i) => v + origin[i]);
  };
  return { posed, transform };
}

function maxDifference(a: number[][], b: number[][]): number {
  assert.equal(a.length, b.length, 'row count');
  let worst = 0;
  a.forEach((row, r) => row.forEach((v, c) => (worst = Math.max(worst, Math.abs(v - b[r][c])))));
  return worst;
}

function matrixFrames(rows: number[][], boneCount: number, frame: number): Mat3[] {
  return Array.from({ length: boneCount }, (_, b) => rows.slice(3 * (frame * boneCount + b), 3 * (frame * boneCount + b) + 3));
}

const hand = {
  tgf: () => dataFile('hand', 'hand.tgf'),
  matrot: () => dataFile('hand', 'hand-pose_matrot.dmat'),
  quat: () => dataFile('hand', 'hand-pose_quat.dmat'),
  off: () => dataFile('hand', 'hand.off'),
  handles: () => dataFile('hand', 'hand-handles.dmat'),
};
const arm = {
  obj: () => dataFile('libigl', 'arm.obj'),
  tgf: () => dataFile('libigl', 'arm.tgf'),
  weights: () => dataFile('libigl', 'arm-weights.dmat'),
};

test('the shared data folder is there', () => {
  assert.ok(existsSync(dataDir), `shared data missing: ${dataDir} (set RIGWRIGHT_DATA to the data folder)`);
});

test('fk --frame 0 of the hand animation gives the rest joints of the TGF', () => {
  const out = workFile('hand-frame0.dmat');
  succeeds(rigwright('fk', '--skeleton', hand.tgf(), '--poses', hand.matrot(), '--frame', '0', '--out', out));
  const rest = parseTgf(readFileSync(hand.tgf(), 'utf8')).joints;
  const joints = parseDmat(readFileSync(out, 'utf8'));
  assert.equal(joints.length, 21);
  assert.ok(maxDifference(joints, rest) <= 1e-12, `differs from rest by ${maxDifference(joints, rest)}`);
});

test('fk without --frame takes the last frame, which matches chaining the stored matrices and is not the rest pose', () => {
  const lastByDefault = workFile('hand-default.dmat');
  const last = workFile('hand-frame33.dmat');
  const run = succeeds(rigwright('fk', '--skeleton', hand.tgf(), '--poses', hand.matrot(), '--out', lastByDefault));
  assert.match(run.stdout, /frame 33/);
  succeeds(rigwright('fk', '--skeleton', hand.tgf(), '--poses', hand.matrot(), '--frame', '33', '--out', last));
  assert.equal(readFileSync(lastByDefault, 'utf8'), readFileSync(last, 'utf8'));

  const { joints: rest, bones } = parseTgf(readFileSync(hand.tgf(), 'utf8'));
  const joints = parseDmat(readFileSync(last, 'utf8'));
  assert.ok(maxDifference(joints, rest) > 0.05, 'the last frame should bend the hand');
  const expected = chainPose(rest, bones, matrixFrames(parseDmat(readFileSync(hand.matrot(), 'utf8')), bones.length, 33)).posed;
  assert.ok(maxDifference(joints, expected) <= 1e-9, `differs from the chained matrices by ${maxDifference(joints, expected)}`);
});

test('fk on quaternion poses: --t 0 is the rest pose, --t 1 and --t 0.4 match quaternions composed along the chain', () => {
  const { joints: rest, bones } = parseTgf(readFileSync(hand.tgf(), 'utf8'));
  const final = parseDmat(readFileSync(hand.quat(), 'utf8')).map((row) => row[0]);
  const parents = parentsOf(bones);

  const atZero = workFile('hand-t0.dmat');
  succeeds(rigwright('fk', '--skeleton', hand.tgf(), '--poses', hand.quat(), '--t', '0', '--out', atZero));
  assert.ok(maxDifference(parseDmat(readFileSync(atZero, 'utf8')), rest) <= 1e-12, 'fk at t = 0 gives the rest pose (within 1e-12)');

  for (const [t, name] of [
    [1, 'hand-t1.dmat'],
    [0.4, 'hand-t04.dmat'],
  ] as const) {
    const out = workFile(name);
    const args = ['fk', '--skeleton', hand.tgf(), '--poses', hand.quat(), '--out', out];
    succeeds(rigwright(...(t === 1 ? args : [...args, '--t', String(t)])));
    const relative = bones.map((_, b) => {
      const q = final.slice(4 * b, 4 * b + 4);
      const length = Math.hypot(...q);
      return slerpFromIdentity(
        q.map((v) => v / length),
        t,
      );
    });
    // Absolute quaternions: compose relative ones from the root down, then chain the joints.
    const absolute: number[][] = [];
    const absoluteOf = (b: number): number[] =>
      (absolute[b] ??= parents[b] < 0 ? relative[b] : quaternionMultiply(absoluteOf(parents[b]), relative[b]));
    const expected = rest.map((j) => j.slice());
    const endOf = (b: number): number[] => {
      const [start, end] = bones[b];
      const from = parents[b] < 0 ? rest[start] : endOf(parents[b]);
      const offset = apply(
        quaternionMatrix(absoluteOf(b)),
        rest[end].map((v, i) => v - rest[start][i]),
      );
      return from.map((v, i) => v + offset[i]);
    };
    bones.forEach(([, end], b) => (expected[end] = endOf(b)));
    const joints = parseDmat(readFileSync(out, 'utf8'));
    assert.ok(maxDifference(joints, rest) > 0.05, `t = ${t} should move the joints`);
    assert.ok(maxDifference(joints, expected) <= 1e-9, `t = ${t}: differs from composed quaternions by ${maxDifference(joints, expected)}`);
  }
});

test('fk --out *.json holds the same joints and says where in the sequence they were taken', () => {
  const asDmat = workFile('hand-f20.dmat');
  const asJson = workFile('hand-f20.json');
  succeeds(rigwright('fk', '--skeleton', hand.tgf(), '--poses', hand.matrot(), '--frame', '20', '--out', asDmat));
  succeeds(rigwright('fk', '--skeleton', hand.tgf(), '--poses', hand.matrot(), '--frame', '20', '--out', asJson));
  const json = JSON.parse(readFileSync(asJson, 'utf8')) as { frame: number; frameCount: number; kind: string; joints: number[][] };
  assert.equal(json.frame, 20);
  assert.equal(json.frameCount, 34);
  assert.equal(json.kind, 'matrices');
  assert.deepEqual(json.joints, parseDmat(readFileSync(asDmat, 'utf8')));

  const quatJson = workFile('hand-t05.json');
  succeeds(rigwright('fk', '--skeleton', hand.tgf(), '--poses', hand.quat(), '--t', '0.5', '--out', quatJson));
  const quat = JSON.parse(readFileSync(quatJson, 'utf8')) as { t: number; kind: string; joints: number[][] };
  assert.equal(quat.t, 0.5);
  assert.equal(quat.kind, 'quaternions');
  assert.equal(quat.joints.length, 21);
});

/** Two frames for the arm's 4 bones: the identity, then a bend of every bone about a different axis. */
function armPoseFile(): { file: string; frames: Mat3[][] } {
  const bend = (b: number): Mat3 => {
    const axis = [
      [0, 0, 1],
      [0, 1, 0],
      [1, 1, 0],
      [1, 2, 3],
    ][b];
    const length = Math.hypot(...axis);
    const half = ((25 + 10 * b) * Math.PI) / 360;
    return quaternionMatrix([...axis.map((v) => (v / length) * Math.sin(half)), Math.cos(half)]);
  };
  const frames = [[0, 1, 2, 3].map(() => IDENTITY), [0, 1, 2, 3].map(bend)];
  return { file: workFile('arm-poses.dmat', dmatText(frames.flat().flat())), frames };
}

test('skin at the identity frame reproduces the arm mesh exactly', () => {
  const { file: poses } = armPoseFile();
  const out = workFile('arm-rest.obj');
  const run = succeeds(
    rigwright(
      'skin',
      '--mesh',
      arm.obj(),
      '--skeleton',
      arm.tgf(),
      '--weights',
      arm.weights(),
      '--poses',
      poses,
      '--frame',
      '0',
      '--method',
      'lbs',
      '--out',
      out,
    ),
  );
  assert.match(run.stdout, /8311 vertices/);
  const posed = parseObj(readFileSync(out, 'utf8'));
  const original = parseObj(readFileSync(arm.obj(), 'utf8'));
  assert.equal(posed.vertices.length, 8311);
  assert.deepEqual(posed.vertices, original.vertices);
  assert.deepEqual(posed.faces, original.faces);
});

test('skin at a bent frame matches Σ w (R v + t) evaluated here, for all influences and for one', () => {
  const { file: poses, frames } = armPoseFile();
  const { joints, bones } = parseTgf(readFileSync(arm.tgf(), 'utf8'));
  const weights = parseDmat(readFileSync(arm.weights(), 'utf8'));
  const rest = parseObj(readFileSync(arm.obj(), 'utf8')).vertices;
  const { transform } = chainPose(joints, bones, frames[1]);
  const diagonal = Math.hypot(...[0, 1, 2].map((i) => Math.max(...rest.map((v) => v[i])) - Math.min(...rest.map((v) => v[i]))));

  const blended = rest.map((v, i) => {
    const sum = weights[i].reduce((a, w) => a + w, 0);
    const out = [0, 0, 0];
    weights[i].forEach((w, b) => {
      if (w === 0) return;
      const p = transform(b, v);
      for (let k = 0; k < 3; k++) out[k] += (w / sum) * p[k];
    });
    return out;
  });
  const rigid = rest.map((v, i) => transform(weights[i].indexOf(Math.max(...weights[i])), v));

  const common = ['skin', '--mesh', arm.obj(), '--skeleton', arm.tgf(), '--weights', arm.weights(), '--poses', poses, '--frame', '1'];
  for (const [influences, expected, name] of [
    ['all', blended, 'all'],
    ['1', rigid, 'one'],
  ] as const) {
    const out = workFile(`arm-bent-${name}.obj`);
    succeeds(rigwright(...common, '--influences', influences, '--out', out));
    const posed = parseObj(readFileSync(out, 'utf8')).vertices;
    assert.ok(maxDifference(posed, rest) > 0.05 * diagonal, 'the pose should deform the arm');
    // Weights are float32 (shared with the GPU), hence the tolerance.
    assert.ok(maxDifference(posed, expected) <= 1e-6 * diagonal, `${name}: differs by ${maxDifference(posed, expected)}`);
  }
  // The arm has 4 bones, so the default K = 4 keeps them all.
  const byDefault = workFile('arm-bent-default.obj');
  succeeds(rigwright(...common, '--out', byDefault));
  assert.equal(readFileSync(byDefault, 'utf8'), readFileSync(workFile('arm-bent-all.obj'), 'utf8'));
});

test('info describes good files and how they fit together', () => {
  const run = succeeds(rigwright('info', hand.off(), hand.tgf(), hand.matrot(), hand.quat(), hand.handles()));
  assert.equal(run.stderr, '');
  assert.match(run.stdout, /hand\.off: mesh\n\s+4780 vertices, 9556 triangles\n\s+bounds/);
  assert.match(run.stdout, /hand\.tgf: skeleton\n\s+21 joints, 20 bones, 1 root \(bone 10\)/);
  assert.match(run.stdout, /1 10 10 10 10 10 2 3 17 15 -1 19 4 14 6 12 7 5 16 0/);
  assert.match(
    run.stdout,
    /hand-pose_matrot\.dmat: matrix 2040 × 3\n\s+could be rotation-matrix poses[^\n]*\n\s+fits [^\n]*hand\.tgf: 34 frames of 20 bones/,
  );
  assert.match(run.stdout, /hand-pose_quat\.dmat: matrix 80 × 1\n\s+could be final-pose quaternions[^\n]*20 bones/);
  assert.match(
    run.stdout,
    /hand-handles\.dmat: matrix 4780 × 1\n\s+could be handles for 4780 vertices: bones 0–19, 2028 vertices without a handle/,
  );

  const armRun = succeeds(rigwright('info', arm.obj(), arm.tgf(), arm.weights()));
  assert.match(
    armRun.stdout,
    /arm-weights\.dmat: matrix 8311 × 4\n\s+could be skinning weights[^\n]*\n\s+fits [^\n]*arm\.obj and [^\n]*arm\.tgf as skinning weights/,
  );

  const roots = succeeds(rigwright('info', dataFile('context-aware', 'skeleton.tgf')));
  assert.match(roots.stdout, /\d+ joints, \d+ bones, 3 roots/);
});

test('info reports every file, names file, place and reason for each bad one, and exits 1', () => {
  const truncated = workFile('truncated.obj', 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2');
  const missingNode = workFile('missing-node.tgf', '1 0 0 0\n2 0 1 0\n#\n1 2\n1 3\n');
  const shortDmat = workFile('short.dmat', '2 3\n1\n2\n3\n4\n5\n');
  const nan = workFile('nan.dmat', '1 3\n0.5\nnan\n0.5\n');
  const otherMeshWeights = workFile('other-mesh-weights.dmat', dmatText(Array.from({ length: 10 }, () => [0.25, 0.25, 0.25, 0.25])));
  const run = rigwright(
    'info',
    truncated,
    missingNode,
    shortDmat,
    nan,
    arm.obj(),
    arm.tgf(),
    hand.quat(),
    otherMeshWeights,
    workFile('absent.off'),
  );
  fails(
    run,
    1,
    /truncated\.obj: line 4: [^\n]*(truncated|2 corners)/,
    /missing-node\.tgf: line 5: [^\n]*node 3/,
    /short\.dmat: line \d+: [^\n]*5 of the 6 values/,
    /nan\.dmat: line 3, row 2 column 1: [^\n]*NaN/,
    /hand-pose_quat\.dmat: [^\n]*another skeleton[^\n]*20 bones[^\n]*4 bones/,
    /other-mesh-weights\.dmat: [^\n]*10 × 4[^\n]*8311 × 4/,
    /absent\.off: cannot read the file: no such file/,
  );
  assert.equal(run.stderr.trim().split('\n').length, 7, run.stderr);
  // The good files are still described.
  assert.match(run.stdout, /arm\.obj: mesh\n\s+8311 vertices/);
  assert.match(run.stdout, /arm\.tgf: skeleton\n\s+5 joints, 4 bones, 1 root/);
  assert.match(run.stdout, /bad files: 7 of 9/);
});

test('fk and skin refuse inputs that do not fit, naming the file and the reason (exit 1)', () => {
  const out = workFile('unused.dmat');
  fails(
    rigwright('fk', '--skeleton', hand.tgf(), '--poses', hand.matrot(), '--frame', '34', '--out', out),
    1,
    /hand-pose_matrot\.dmat: frame 34: out of range[^\n]*34 frames/,
  );
  fails(
    rigwright('fk', '--skeleton', hand.tgf(), '--poses', hand.matrot(), '--t', '0.5', '--out', out),
    1,
    /hand-pose_matrot\.dmat: [^\n]*--t does not apply[^\n]*--frame/,
  );
  fails(
    rigwright('fk', '--skeleton', hand.tgf(), '--poses', hand.quat(), '--frame', '1', '--out', out),
    1,
    /hand-pose_quat\.dmat: [^\n]*--frame does not apply[^\n]*--t/,
  );
  fails(rigwright('fk', '--skeleton', arm.tgf(), '--poses', hand.quat(), '--out', out), 1, /hand-pose_quat\.dmat: [^\n]*another skeleton/);
  fails(rigwright('fk', '--skeleton', hand.off(), '--poses', hand.quat(), '--out', out), 1, /hand\.off: [^\n]*not a skeleton/);
  fails(
    rigwright('fk', '--skeleton', workFile('nowhere.tgf'), '--poses', hand.quat(), '--out', out),
    1,
    /nowhere\.tgf: cannot read the file/,
  );
  const { file: poses } = armPoseFile();
  const obj = workFile('unused.obj');
  fails(
    rigwright('skin', '--mesh', hand.off(), '--skeleton', arm.tgf(), '--weights', arm.weights(), '--poses', poses, '--out', obj),
    1,
    /arm-weights\.dmat: [^\n]*8311 × 4[^\n]*4780 × 4/,
  );
  fails(
    rigwright(
      'skin',
      '--mesh',
      arm.obj(),
      '--skeleton',
      arm.tgf(),
      '--weights',
      arm.weights(),
      '--poses',
      poses,
      '--frame',
      '2',
      '--out',
      obj,
    ),
    1,
    /arm-poses\.dmat: frame 2: out of range/,
  );
  assert.equal(existsSync(obj), false, 'no output after an error');
});

test('command-line mistakes print the usage and exit 2; --help prints it and exits 0', () => {
  fails(rigwright(), 2, /no command/, /Usage: rigwright <command>/);
  fails(rigwright('posture'), 2, /unknown command "posture"/, /Usage: rigwright <command>/);
  fails(rigwright('fk', '--skeleton', hand.tgf(), '--bogus'), 2, /--bogus/, /Usage: rigwright fk/);
  fails(rigwright('fk', '--skeleton', hand.tgf(), '--poses', hand.quat()), 2, /missing --out/);
  fails(rigwright('fk', hand.tgf()), 2, /Unexpected argument|positional/i, /Usage: rigwright fk/);
  fails(rigwright('fk', '--skeleton', hand.tgf(), '--poses', hand.quat(), '--out', 'x.txt'), 2, /--out must end in \.dmat or \.json/);
  fails(rigwright('fk', '--skeleton', hand.tgf(), '--poses', hand.matrot(), '--frame', '-1', '--out', 'x.dmat'), 2, /--frame/);
  fails(
    rigwright('fk', '--skeleton', hand.tgf(), '--poses', hand.quat(), '--t', '1.5', '--out', 'x.dmat'),
    2,
    /--t must be a number from 0 to 1/,
  );
  fails(
    rigwright('fk', '--skeleton', hand.tgf(), '--poses', hand.quat(), '--t', '1', '--frame', '0', '--out', 'x.dmat'),
    2,
    /either --frame or --t/,
  );
  const skinArgs = [
    'skin',
    '--mesh',
    arm.obj(),
    '--skeleton',
    arm.tgf(),
    '--weights',
    arm.weights(),
    '--poses',
    hand.quat(),
    '--out',
    'x.obj',
  ];
  fails(rigwright(...skinArgs, '--method', 'perface'), 2, /--method perface needs --handles/, /Usage: rigwright skin/);
  fails(rigwright(...skinArgs, '--method', 'dqs', '--antipodality', 'sideways'), 2, /--antipodality must be per-vertex or per-bone/);
  fails(rigwright(...skinArgs, '--method', 'magic'), 2, /unknown --method "magic"/);
  fails(rigwright(...skinArgs, '--method', 'dqs', '--threads', '2'), 2, /--threads applies with --method perface without --examples only/);
  fails(
    rigwright(...skinArgs, '--method', 'perface', '--handles', 'h.dmat', '--examples', 'e.txt', '--threads', '2'),
    2,
    /--threads applies with --method perface without --examples only/,
  );
  fails(
    rigwright(...skinArgs, '--method', 'perface', '--handles', 'h.dmat', '--threads', 'many'),
    2,
    /--threads must be 1 or 2, got "many"/,
  );
  fails(rigwright(...skinArgs, '--influences', 'some'), 2, /--influences must be/);
  fails(rigwright('info'), 2, /no files given/, /Usage: rigwright info/);
  assert.match(succeeds(rigwright('--help')).stdout, /Usage: rigwright <command>/);
  for (const command of ['info', 'fk', 'skin']) {
    const help = succeeds(rigwright(command, '--help'));
    assert.match(help.stdout, new RegExp(`^Usage: rigwright ${command}`));
    assert.equal(help.stderr, '');
  }
});
