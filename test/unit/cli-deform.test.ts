/**
 * `rigwright skin --method dqs|perface`, run as users run it, on the libigl arm. Expectations come from a second
 * implementation in this file (dual quaternion skinning written with quaternion products, q v q* + 2 q_ε q*,
 * over forward kinematics composed with quaternions), and from identities: a single rigid motion of the whole
 * skeleton is reproduced by every method, the rest pose returns the rest mesh.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot, dataFile } from './shared-data.ts';

const work = mkdtempSync(path.join(tmpdir(), 'rigwright-cli-deform-'));

const arm = { obj: dataFile('libigl', 'arm.obj'), tgf: dataFile('libigl', 'arm.tgf'), weights: dataFile('libigl', 'arm-weights.dmat') };

function rigwright(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ['app/cli/rigwright.mjs', ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 120_000 });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function succeeds(run: ReturnType<typeof rigwright>): ReturnType<typeof rigwright> {
  assert.equal(run.status, 0, `exit ${run.status}\n${run.stdout}\n${run.stderr}`);
  return run;
}

type Quat = [number, number, number, number];
type Vec3 = [number, number, number];

const qmul = ([ax, ay, az, aw]: Quat, [bx, by, bz, bw]: Quat): Quat => [
  aw * bx + ax * bw + ay * bz - az * by,
  aw * by - ax * bz + ay * bw + az * bx,
  aw * bz + ax * by - ay * bx + az * bw,
  aw * bw - ax * bx - ay * by - az * bz,
];
const conj = ([x, y, z, w]: Quat): Quat => [-x, -y, -z, w];
const rotate = (q: Quat, [x, y, z]: Vec3): Vec3 => qmul(qmul(q, [x, y, z, 0]), conj(q)).slice(0, 3) as Vec3;
const axisAngle = (axis: Vec3, degrees: number): Quat => {
  const length = Math.hypot(...axis);
  const half = (degrees * Math.PI) / 360;
  return [...axis.map((a) => (a / length) * Math.sin(half)), Math.cos(half)] as Quat;
};
function matrixOf([x, y, z, w]: Quat): number[][] {
  return [
    [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
    [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
    [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
  ];
}

function readArm(): { vertices: Vec3[]; faces: string[]; joints: Vec3[]; bones: [number, number][]; weights: number[][] } {
  const vertices: Vec3[] = [];
  const faces: string[] = [];
  for (const line of readFileSync(arm.obj, 'utf8').split('\n')) {
    const t = line.trim().split(/\s+/);
    if (t[0] === 'v') vertices.push([Number(t[1]), Number(t[2]), Number(t[3])]);
    if (t[0] === 'f')
      faces.push(
        t
          .slice(1)
          .map((c) => c.split('/')[0])
          .join(' '),
      );
  }
  const [nodes, edges] = readFileSync(arm.tgf, 'utf8').split(/^#.*$/m);
  const joints = nodes
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/).slice(1, 4).map(Number) as Vec3);
  const bones = edges
    .trim()
    .split('\n')
    .map(
      (l) =>
        l
          .trim()
          .split(/\s+/)
          .slice(0, 2)
          .map((s) => Number(s) - 1) as [number, number],
    );
  const tokens = readFileSync(arm.weights, 'utf8').trim().split(/\s+/).map(Number);
  const [cols, rows] = tokens;
  const weights = Array.from({ length: rows }, (_, r) => Array.from({ length: cols }, (_, c) => tokens[2 + c * rows + r]));
  return { vertices, faces, joints, bones, weights };
}

/** Writes a rotation-matrix pose file (frames × bones relative quaternions). */
function poseFile(name: string, frames: Quat[][]): string {
  const blocks = frames.flat().map(matrixOf).flat();
  const lines = [`3 ${blocks.length}`];
  for (let c = 0; c < 3; c++) for (const row of blocks) lines.push(String(row[c]));
  const file = path.join(work, name);
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

/** Absolute rotation and translation per bone: Q_b = Q_parent q_b, T_b = T_parent + Q_parent r − Q_b r. */
function absolute(joints: Vec3[], bones: [number, number][], relative: Quat[]): { q: Quat; t: Vec3 }[] {
  const out: ({ q: Quat; t: Vec3 } | null)[] = bones.map(() => null);
  const solve = (b: number): { q: Quat; t: Vec3 } => {
    const known = out[b];
    if (known) return known;
    const parent = bones.findIndex(([, end]) => end === bones[b][0]);
    const p = parent >= 0 ? solve(parent) : { q: [0, 0, 0, 1] as Quat, t: [0, 0, 0] as Vec3 };
    const r = joints[bones[b][0]];
    const q = qmul(p.q, relative[b]);
    const pr = rotate(p.q, r),
      qr = rotate(q, r);
    const result = { q, t: [0, 1, 2].map((i) => p.t[i] + pr[i] - qr[i]) as Vec3 };
    out[b] = result;
    return result;
  };
  return bones.map((_, b) => solve(b));
}

/** DQS written with quaternion products, 4 largest weights, signs against the strongest bone. */
function expectedDqs(vertices: Vec3[], weights: number[][], transforms: { q: Quat; t: Vec3 }[]): Vec3[] {
  const dual = transforms.map(({ q, t }) => qmul([...t, 0] as Quat, q).map((x) => x / 2) as Quat);
  return vertices.map((v, i) => {
    const top = weights[i]
      .map((w, b) => [w, b])
      .filter(([w]) => w > 0)
      .sort((a, b) => b[0] - a[0])
      .slice(0, 4);
    const ref = transforms[top[0][1]].q;
    const b0: Quat = [0, 0, 0, 0];
    const be: Quat = [0, 0, 0, 0];
    for (const [w, b] of top) {
      const q = transforms[b].q;
      const s = q[0] * ref[0] + q[1] * ref[1] + q[2] * ref[2] + q[3] * ref[3] < 0 ? -w : w;
      for (let k = 0; k < 4; k++) {
        b0[k] += s * q[k];
        be[k] += s * dual[b][k];
      }
    }
    const norm = Math.hypot(...b0);
    const c0 = b0.map((x) => x / norm) as Quat;
    const ce = be.map((x) => x / norm) as Quat;
    const t = qmul(ce, conj(c0));
    const r = rotate(c0, v);
    return [r[0] + 2 * t[0], r[1] + 2 * t[1], r[2] + 2 * t[2]];
  });
}

function readPositions(file: string): Vec3[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('v '))
    .map((l) => l.trim().split(/\s+/).slice(1, 4).map(Number) as Vec3);
}

function maxDistance(a: Vec3[], b: Vec3[]): number {
  assert.equal(a.length, b.length);
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.hypot(a[i][0] - b[i][0], a[i][1] - b[i][1], a[i][2] - b[i][2]));
  return worst;
}

const data = readArm();
const boneCount = data.bones.length;
const identity: Quat[] = data.bones.map(() => [0, 0, 0, 1]);
const bent: Quat[] = data.bones.map((_, b) => axisAngle([b % 2, 1, 0.3 * b], 35 + 20 * b));
const rigidMotion = axisAngle([0.2, 0.9, -0.4], 70);
const rigid: Quat[] = data.bones.map((_, b) => (b === 0 ? rigidMotion : [0, 0, 0, 1]));
/** Mild enough that no two bones' rotations are over 180° apart, where per-bone and per-vertex signs agree. */
const mild: Quat[] = data.bones.map((_, b) => axisAngle([1, b, 0.5], 20));
const poses = poseFile('arm-deform.dmat', [identity, bent, rigid, mild]);
/** Handles: the vertices whose strongest weight is the root bone (bone 0) hold it; the others are free. */
const handles = path.join(work, 'arm-handles.dmat');
writeFileSync(
  handles,
  [`1 ${data.vertices.length}`, ...data.weights.map((w) => (w.indexOf(Math.max(...w)) === 0 ? '0' : '-1'))].join('\n') + '\n',
);
const skin = (...extra: string[]) => [
  'skin',
  '--mesh',
  arm.obj,
  '--skeleton',
  arm.tgf,
  '--weights',
  arm.weights,
  '--poses',
  poses,
  ...extra,
];
const diagonal = (() => {
  const min = [0, 1, 2].map((i) => Math.min(...data.vertices.map((v) => v[i])));
  const max = [0, 1, 2].map((i) => Math.max(...data.vertices.map((v) => v[i])));
  return Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
})();

test('skin --method dqs at a bent frame matches dual quaternion skinning written with quaternion products', () => {
  assert.equal(boneCount, 4);
  const cases: [string, string, Quat[]][] = [
    ['per-vertex', '1', bent],
    ['per-vertex', '3', mild],
    ['per-bone', '3', mild],
  ];
  for (const [antipodality, frame, pose] of cases) {
    const out = path.join(work, `arm-dqs-${antipodality}-${frame}.obj`);
    const run = succeeds(rigwright(...skin('--frame', frame, '--method', 'dqs', '--antipodality', antipodality, '--out', out)));
    assert.match(run.stdout, new RegExp(`dqs \\(${antipodality} signs\\)`));
    const expected = expectedDqs(data.vertices, data.weights, absolute(data.joints, data.bones, pose));
    // Weights are float32 in the influences, so their ratios (what DLB blends) agree to about 1e-7.
    assert.ok(maxDistance(readPositions(out), expected) < 1e-6 * diagonal, `${antipodality} at frame ${frame}`);
  }
});

test('skin --method dqs differs from lbs where bones bend (the point of it)', () => {
  const dqs = path.join(work, 'arm-dqs.obj');
  const lbs = path.join(work, 'arm-lbs.obj');
  succeeds(rigwright(...skin('--frame', '1', '--method', 'dqs', '--out', dqs)));
  succeeds(rigwright(...skin('--frame', '1', '--method', 'lbs', '--out', lbs)));
  assert.ok(
    maxDistance(readPositions(dqs), readPositions(lbs)) > 1e-3 * diagonal,
    'DQS and LBS results differ by more than 1e-3 of the diagonal',
  );
});

test('skin --method perface: the rest pose returns the rest mesh; one rigid motion is reproduced', () => {
  const rest = path.join(work, 'arm-perface-rest.obj');
  const run = succeeds(rigwright(...skin('--frame', '0', '--method', 'perface', '--handles', handles, '--out', rest)));
  assert.match(run.stdout, /perface \(\d+ fixed vertices\)/);
  assert.ok(
    maxDistance(readPositions(rest), data.vertices) < 1e-9 * diagonal,
    'per-face at the rest frame leaves every vertex in place (within 1e-9 of the diagonal)',
  );

  const moved = path.join(work, 'arm-perface-rigid.obj');
  succeeds(rigwright(...skin('--frame', '2', '--method', 'perface', '--handles', handles, '--out', moved)));
  const { q, t } = absolute(data.joints, data.bones, rigid)[0];
  const expected = data.vertices.map((v) => rotate(q, v).map((x, i) => x + t[i]) as Vec3);
  assert.ok(
    maxDistance(readPositions(moved), expected) < 1e-8 * diagonal,
    'per-face on a rigid frame moves every vertex by the rigid transform (within 1e-8 of the diagonal)',
  );
  for (const method of ['lbs', 'dqs']) {
    const out = path.join(work, `arm-${method}-rigid.obj`);
    succeeds(rigwright(...skin('--frame', '2', '--method', method, '--out', out)));
    // Float32 weights meet 1 (LBS) and each other's ratios (DQS) only to about 1e-7.
    assert.ok(maxDistance(readPositions(out), expected) < 1e-6 * diagonal, method);
  }
});

test('skin --method perface refuses handles that fix nothing, naming the file', () => {
  const none = path.join(work, 'no-root-handles.dmat');
  writeFileSync(none, [`1 ${data.vertices.length}`, ...data.vertices.map((_, i) => (i === 0 ? '2' : '-1'))].join('\n') + '\n');
  const run = rigwright(...skin('--frame', '1', '--method', 'perface', '--handles', none, '--out', path.join(work, 'x.obj')));
  assert.equal(run.status, 1, run.stderr);
  assert.match(run.stderr, /no-root-handles\.dmat/);
  assert.match(run.stderr, /root bone/);
  assert.doesNotMatch(run.stderr, /^\s+at /m);
});
