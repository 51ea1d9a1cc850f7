/**
 * `rigwright skeleton`: a skeleton from joints and parents, and a template fitted to markers on the course body,
 * written as TGF with its names file (read back by the app's readers: the same joints bit for bit, bones and names)
 * and as a project (opened as the app opens it: the mesh, the bones, their names and provisional weights); bad
 * command lines exit 2 with the usage, bad input exits 1 naming the file, the entry and the reason.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../../app/cli/main.ts';
import { parseBoneNames } from '../../workers/formats/bone-names.ts';
import { readProjectFile } from '../../workers/formats/project-file.ts';
import { readTgf } from '../../workers/formats/tgf.ts';
import { fitTemplate } from '../../workers/rig/template-rig.ts';
import { documentFromProject } from '../../workers/scene/project-document.ts';
import { PROVISIONAL_WEIGHTS, boneCountOf } from '../../workers/scene/scene-document.ts';
import { boneDistanceWeights } from '../../workers/weights/bone-distance-weights.ts';
import { body, bodyMarkers } from './body-markers.ts';
import { assertNearestBoneWeighsMost } from './nearest-bone.ts';
import { dataFile } from './shared-data.ts';

const work = mkdtempSync(path.join(tmpdir(), 'rigwright-skeleton-'));
const bodyFile = dataFile('context-aware', 'reference.obj');

async function rigwright(...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const status = await runCli(args, { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stderr += t) } });
  return { status, stdout, stderr };
}

function json(name: string, value: unknown): string {
  const file = path.join(work, name);
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
}

/** A unit cube as OBJ, 8 vertices and 12 triangles, outward. */
function cubeFile(): string {
  const file = path.join(work, 'cube.obj');
  const v = [0, 1].flatMap((z) => [0, 1].flatMap((y) => [0, 1].map((x) => `v ${x} ${y} ${z}`)));
  const quads = [
    [1, 3, 4, 2],
    [5, 6, 8, 7],
    [1, 2, 6, 5],
    [3, 7, 8, 4],
    [1, 5, 7, 3],
    [2, 4, 8, 6],
  ];
  writeFileSync(file, [...v, ...quads.map((q) => `f ${q.join(' ')}`)].join('\n') + '\n');
  return file;
}

test('rigwright skeleton --joints: the TGF and its names file hold the joints, one bone per parented joint, and the names', async () => {
  const joints = [
    [0.5, 0.1, 0.5],
    [0.5, 0.5, 0.5],
    [0.5, 0.9, 0.5],
    [0.2, 0.6, 0.5],
    [0.1 + 1e-17, 1 / 3, 0.5],
  ];
  const file = json('tree.json', { joints, parents: [-1, 0, 1, 1, 3], names: ['root', 'spine', 'neck', 'arm', 'hand'] });
  const out = path.join(work, 'tree.tgf');
  const run = await rigwright('skeleton', cubeFile(), '--joints', file, '--out', out);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /4 bones, 5 joints/);
  const tgf = readTgf(readFileSync(out, 'utf8'), out);
  assert.deepEqual([...tgf.joints], joints.flat(), 'joints bit for bit');
  assert.deepEqual([...tgf.bones], [0, 1, 1, 2, 1, 3, 3, 4], 'one bone from each parent joint');
  const namesFile = path.join(work, 'tree.names');
  assert.deepEqual(parseBoneNames(readFileSync(namesFile, 'utf8'), namesFile, 4), ['spine', 'neck', 'arm', 'hand']);
});

test('rigwright skeleton --template humanoid: the fitted skeleton as TGF and names, and as a project of the body', async () => {
  const markers = bodyMarkers();
  const markersFile = json('markers.json', { ...markers, view: [0, 0, -1] });
  const out = path.join(work, 'body.tgf');
  const project = path.join(work, 'body.rig.glb');
  const run = await rigwright(
    'skeleton',
    bodyFile,
    '--template',
    'humanoid',
    '--markers',
    markersFile,
    '--fingers',
    '--out',
    out,
    '--project',
    project,
  );
  assert.equal(run.status, 0, run.stderr);
  const expected = fitTemplate(body, 'humanoid', markers, { fingers: true });
  const B = expected.names.length;
  assert.equal(B, 54, 'the humanoid with fingers');
  const tgf = readTgf(readFileSync(out, 'utf8'), out);
  assert.deepEqual(tgf.joints, expected.joints, 'the fitted joints, bit for bit');
  assert.deepEqual(tgf.bones, expected.bones);
  const namesFile = path.join(work, 'body.names');
  assert.deepEqual(parseBoneNames(readFileSync(namesFile, 'utf8'), namesFile, B), expected.names);

  const read = readProjectFile(new Uint8Array(readFileSync(project)), project);
  const doc = documentFromProject(read.scene, read.settings);
  assert.equal(boneCountOf(doc), B);
  assert.deepEqual(doc.boneNames, expected.names);
  assert.deepEqual(doc.skeleton.joints, expected.joints);
  assert.deepEqual(doc.mesh.positions, body.positions, 'the mesh');
  assert.equal(doc.skeletonFile, 'body.tgf');
  assert.equal(doc.weightsSource, PROVISIONAL_WEIGHTS);
  assert.deepEqual(doc.weights.data, boneDistanceWeights(body.positions, doc.skeleton).data, 'weights by bone distance');
  for (let v = 0; v < doc.weights.rows; v++) {
    let sum = 0;
    for (let b = 0; b < B; b++) sum += doc.weights.data[B * v + b];
    if (!(Math.abs(sum - 1) < 1e-12)) assert.fail(`vertex ${v}: weights sum to ${sum}`);
  }
  assertNearestBoneWeighsMost(body.positions, doc.skeleton, doc.weights, 'the template project');
  assert.equal(doc.poses, null);
});

test('rigwright skeleton: a project alone, from joints', async () => {
  const file = json('chain.json', {
    joints: [
      [0.5, 0.2, 0.5],
      [0.5, 0.5, 0.5],
      [0.5, 0.8, 0.5],
    ],
    parents: [-1, 0, 1],
  });
  const project = path.join(work, 'cube.rig.glb');
  const run = await rigwright('skeleton', cubeFile(), '--joints', file, '--project', project);
  assert.equal(run.status, 0, run.stderr);
  const read = readProjectFile(new Uint8Array(readFileSync(project)), project);
  const doc = documentFromProject(read.scene, read.settings);
  assert.deepEqual(doc.boneNames, ['bone 0', 'bone 1']);
  assert.deepEqual([...doc.skeleton.parents], [-1, 0]);
  assert.equal(doc.skeletonFile, 'chain.json');
});

test('rigwright skeleton: a bad command line exits 2 with the usage', async () => {
  const markersFile = json('m.json', bodyMarkers());
  const jointsFile = json('j.json', {
    joints: [
      [0, 0, 0],
      [0, 1, 0],
    ],
    parents: [-1, 0],
  });
  const out = path.join(work, 'never.tgf');
  const cases: [string[], string][] = [
    [['skeleton', '--joints', jointsFile, '--out', out], 'no mesh given'],
    [['skeleton', bodyFile, '--out', out], 'give either --joints or --template'],
    [['skeleton', bodyFile, '--joints', jointsFile, '--template', 'humanoid', '--out', out], 'give either --joints or --template'],
    [['skeleton', bodyFile, '--template', 'biped', '--markers', markersFile, '--out', out], '--template must be humanoid or quadruped'],
    [['skeleton', bodyFile, '--template', 'humanoid', '--out', out], '--template needs --markers'],
    [['skeleton', bodyFile, '--template', 'quadruped', '--markers', markersFile, '--fingers', '--out', out], '--fingers goes with'],
    [['skeleton', bodyFile, '--joints', jointsFile, '--markers', markersFile, '--out', out], '--markers and --fingers go with --template'],
    [['skeleton', bodyFile, '--joints', jointsFile], 'give --out S.tgf, --project P.rig.glb or both'],
    [['skeleton', bodyFile, '--joints', jointsFile, '--out', path.join(work, 'x.obj')], '--out must end in .tgf'],
  ];
  for (const [args, message] of cases) {
    const run = await rigwright(...args);
    assert.equal(run.status, 2, `${args.join(' ')}: exit 2 (${run.stderr})`);
    assert.ok(run.stderr.startsWith(`rigwright: ${message}`), `${args.join(' ')}: ${run.stderr.split('\n')[0]}`);
    assert.ok(run.stderr.includes('Usage: rigwright skeleton'), 'the usage follows');
  }
  assert.ok(!existsSync(out), 'nothing written');
  const help = await rigwright('skeleton', '--help');
  assert.equal(help.status, 0);
  assert.ok(help.stdout.includes('chin, wrist.L, wrist.R, elbow.L, elbow.R, knee.L, knee.R, groin'), 'the help lists the markers');
});

test('rigwright skeleton: bad input exits 1 naming the file, the entry and the reason', async () => {
  const markers = bodyMarkers();
  const out = path.join(work, 'bad.tgf');
  const { chin: _chin, ...withoutChin } = markers;
  const cases: [string[], string][] = [
    [
      [
        '--joints',
        json('cycle.json', {
          joints: [
            [0, 0, 0],
            [0, 1, 0],
            [0, 2, 0],
          ],
          parents: [2, 0, 1],
        }),
      ],
      'cycle.json: parents[0]: joint 0 is its own ancestor',
    ],
    [
      ['--joints', json('nan.json', '{"joints": [[0, 0, 0], [0, 1]], "parents": [-1, 0]}')],
      'nan.json: joints[1]: must be three finite numbers',
    ],
    [['--joints', json('broken.json', '{"joints": [[0, 0, 0]],\n "parents": [-1 0]}')], 'broken.json: not valid JSON at line 2, column 17'],
    [
      ['--template', 'humanoid', '--markers', json('missing.json', withoutChin)],
      'missing.json: fitTemplate humanoid: missing markers: chin',
    ],
    [
      ['--template', 'humanoid', '--markers', json('typo.json', { ...markers, 'wrist.l': [0, 0, 0] })],
      'typo.json: wrist.l: is no marker of the humanoid template',
    ],
    [
      ['--template', 'humanoid', '--markers', json('short.json', { ...markers, chin: [0, 0] })],
      'short.json: chin: must be three finite numbers',
    ],
    [['--joints', path.join(work, 'absent.json')], 'absent.json: cannot read the file'],
    [
      ['--template', 'humanoid', '--markers', json('off.json', { ...markers, 'knee.R': [markers['knee.R'][0], markers['knee.R'][1], 5] })],
      "off.json: fitTemplate humanoid: marker knee.R is 4.82 from the mesh's surface",
    ],
  ];
  for (const [args, message] of cases) {
    const run = await rigwright('skeleton', bodyFile, ...args, '--out', out);
    assert.equal(run.status, 1, `${args.join(' ')}: exit 1 (${run.stderr})`);
    assert.ok(run.stderr.startsWith(`rigwright: ${path.join(work, message)}`), `${args.join(' ')}: ${run.stderr}`);
  }
  assert.ok(!existsSync(out), 'nothing written');
});
