/**
 * `rigwright info` and `rigwright fk` on libigl's animation of absolute bone transforms (elephant-anim.dmat, tutorial
 * 408), run as users run it. Expected joints come straight from the file: each joint of the rest skeleton moved by the
 * transform [R | t] of a bone that starts or ends at it (column f, entry c·4B + 4b + k = row c, column k of bone b's).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readDmat } from '../../workers/formats/dmat.ts';
import { readTgf } from '../../workers/formats/tgf.ts';
import { repoRoot, dataFile } from './shared-data.ts';

const work = mkdtempSync(path.join(tmpdir(), 'rigwright-cli-animation-'));
const skeletonFile = dataFile('libigl', 'elephant.tgf');
const animationFile = dataFile('libigl', 'elephant-anim.dmat');

function rigwright(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ['app/cli/rigwright.mjs', ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 120_000 });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

test('info names the animation of absolute transforms by its shape and checks it against the skeleton', () => {
  const alone = rigwright('info', animationFile);
  assert.equal(alone.status, 0, alone.stderr);
  assert.ok(
    alone.stdout.includes(
      'matrix 288 × 457\n  could be an animation of absolute bone transforms: 457 frames of 24 bones (12·B × L, one column per frame)\n',
    ),
    alone.stdout,
  );
  assert.doesNotMatch(alone.stdout, /weights/, 'it is not called weights');
  const withSkeleton = rigwright('info', skeletonFile, animationFile);
  assert.equal(withSkeleton.status, 0, withSkeleton.stderr);
  assert.ok(withSkeleton.stdout.includes(`  fits ${skeletonFile} as an animation: 457 frames of 24 bones\n`), withSkeleton.stdout);
});

test('fk plays the animation: every joint at frame 200 is where the file’s transforms put it', () => {
  const out = path.join(work, 'joints.dmat');
  const run = rigwright('fk', '--skeleton', skeletonFile, '--poses', animationFile, '--frame', '200', '--out', out);
  assert.equal(run.status, 0, run.stderr);
  const joints = readDmat(new Uint8Array(readFileSync(out)), out);
  const tgf = readTgf(readFileSync(skeletonFile, 'utf8'), skeletonFile);
  const animation = readDmat(new Uint8Array(readFileSync(animationFile)), animationFile);
  const B = tgf.bones.length / 2;
  const J = tgf.joints.length / 3;
  assert.deepEqual([joints.rows, joints.cols], [J, 3]);
  // Bone b's transform moves joint j to R r_j + t.
  const moved = (b: number, j: number): number[] =>
    [0, 1, 2].map((c) => {
      let s = animation.data[(c * 4 * B + 4 * b + 3) * animation.cols + 200];
      for (let k = 0; k < 3; k++) s += animation.data[(c * 4 * B + 4 * b + k) * animation.cols + 200] * tgf.joints[3 * j + k];
      return s;
    });
  let worst = 0;
  let motion = 0;
  for (let j = 0; j < J; j++) {
    let bone = -1;
    for (let b = 0; b < B && bone < 0; b++) if (tgf.bones[2 * b] === j || tgf.bones[2 * b + 1] === j) bone = b;
    const expected = moved(bone, j);
    for (let c = 0; c < 3; c++) {
      worst = Math.max(worst, Math.abs(joints.data[3 * j + c] - expected[c]));
      motion = Math.max(motion, Math.abs(expected[c] - tgf.joints[3 * j + c]));
    }
  }
  assert.ok(motion > 10, `frame 200 moves the joints (by up to ${motion})`);
  // Rounding of the conversion and of forward kinematics, and the 1e-9 · extent a joined bone's translation may lose.
  assert.ok(worst < 1e-6, `joints differ from the file's transforms by ${worst}`);
});

test('an animation for another skeleton, and --translations with an animation, are refused naming the file', () => {
  const out = path.join(work, 'arm-joints.dmat');
  const other = rigwright('fk', '--skeleton', dataFile('libigl', 'arm.tgf'), '--poses', animationFile, '--out', out);
  assert.equal(other.status, 1, other.stdout);
  assert.match(
    other.stderr,
    /elephant-anim\.dmat: this is an animation for another skeleton: it is 288 × 457, which holds transforms of 24 bones; this skeleton has 4 bones, which needs 48 × L/,
  );
  const extra = rigwright('fk', '--skeleton', skeletonFile, '--poses', animationFile, '--translations', animationFile, '--out', out);
  assert.equal(extra.status, 2, extra.stderr);
  assert.match(extra.stderr, /--translations does not apply: .*elephant-anim\.dmat is an animation of absolute bone transforms/);
});

test('export writes the animation as a glTF clip: a rotation channel per bone, a translation channel per root', () => {
  const out = path.join(work, 'elephant.glb');
  const run = rigwright(
    'export',
    '--mesh',
    dataFile('libigl', 'elephant.obj'),
    '--skeleton',
    skeletonFile,
    '--weights',
    dataFile('libigl', 'elephant-weights.dmat'),
    '--poses',
    animationFile,
    '--out',
    out,
  );
  assert.equal(run.status, 0, run.stderr);
  const info = rigwright('info', out);
  assert.equal(info.status, 0, info.stderr);
  // 24 bones, of which 3 are roots (elephant.tgf's bones 0, 14 and 19); the file's 457 columns at 30 fps.
  assert.ok(
    info.stdout.includes('clip "elephant-anim": 457 keys, 30 fps, 0–15.2 s; 27 channels (24 rotation, 3 translation)'),
    info.stdout,
  );
});
