/**
 * The command-line tool takes its defaults from the same *_DEFAULTS objects as the app: without --radius,
 * `rigwright weights --rule cylinder` uses AUTOMATIC_HANDLES_DEFAULTS.radiusFraction of the bounding-box diagonal,
 * as the Bind panel does. Checked on the shared hand through runCli, with the radius and the handle count derived
 * here from the mesh file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../../app/cli/main.ts';
import { readRigFile } from '../../workers/formats/read-file.ts';
import { boundingBox } from '../../workers/mesh/bounds.ts';
import { AUTOMATIC_HANDLES_DEFAULTS, boneCylinderHandles } from '../../workers/weights/automatic-handles.ts';
import { dataFile } from './shared-data.ts';

const work = mkdtempSync(path.join(tmpdir(), 'rigwright-cli-defaults-'));

async function rigwright(...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const status = await runCli(args, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { status, stdout, stderr };
}

function read(file: string) {
  return readRigFile(file, readFileSync(file));
}

const handleCount = (handles: Int32Array): number => handles.filter((h) => h >= 0).length;

test('weights --rule cylinder without --radius: AUTOMATIC_HANDLES_DEFAULTS.radiusFraction × the bounding-box diagonal', async () => {
  const meshFile = dataFile('hand', 'hand.off');
  const skeletonFile = dataFile('hand', 'hand.tgf');
  const mesh = read(meshFile);
  const skeleton = read(skeletonFile);
  assert.ok(mesh.kind === 'mesh' && skeleton.kind === 'skeleton', 'hand.off reads as a mesh and hand.tgf as a skeleton');
  const radius = AUTOMATIC_HANDLES_DEFAULTS.radiusFraction * boundingBox(mesh.mesh.positions).diagonal;
  const expected = handleCount(boneCylinderHandles(mesh.mesh.positions, skeleton.skeleton, radius));
  const otherRadius = handleCount(boneCylinderHandles(mesh.mesh.positions, skeleton.skeleton, 1.25 * radius));
  assert.notEqual(otherRadius, expected, 'on the hand the handle count tells the radius apart');

  const run = await rigwright(
    'weights',
    '--mesh',
    meshFile,
    '--skeleton',
    skeletonFile,
    '--auto-handles',
    '--rule',
    'cylinder',
    '--out',
    path.join(work, 'w.dmat'),
  );
  assert.equal(run.status, 0, run.stderr);
  const report = /(\d+) handle vertices from automatic handles \(cylinder, radius ([\d.e-]+)\)/.exec(run.stdout);
  assert.ok(report, run.stdout);
  assert.equal(Number(report[1]), expected);
  assert.equal(report[2], String(Number(radius.toPrecision(4))));
});

test('weights --help states the default radius fraction', async () => {
  const run = await rigwright('weights', '--help');
  assert.equal(run.status, 0);
  assert.match(run.stdout, new RegExp(`default ${AUTOMATIC_HANDLES_DEFAULTS.radiusFraction} × the bounding-box diagonal`));
});
