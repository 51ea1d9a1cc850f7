/**
 * `rigwright clip` and `rigwright pose` on the libigl arm (4 bones), with bone names from a names file beside the TGF
 * and from a project. The clip's in-between frames are checked against rotations about z written out with cos and sin
 * (SLERP between two rotations about one axis turns by the angle in proportion); frames before the first key and after
 * the last hold them; unkeyed bones rest; `rigwright fk` reads the written clip and gives the joints of forward
 * kinematics with the rotations expected at its frame; bad keys, and a project without bones, are refused naming the
 * file and the entry.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../../app/cli/main.ts';
import { readDmat } from '../../workers/formats/dmat.ts';
import { readObj } from '../../workers/formats/obj.ts';
import { poseSequenceFromDmat } from '../../workers/formats/pose-file.ts';
import { defaultProjectSettings, writeProjectFile } from '../../workers/formats/project-file.ts';
import { readTgf } from '../../workers/formats/tgf.ts';
import { forwardKinematics, posedJointPositions } from '../../workers/rig/forward-kinematics.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { projectSceneOf } from '../../workers/scene/project-document.ts';
import { bareDocument, withDerived } from '../../workers/scene/scene-document.ts';
import { boneDistanceWeights } from '../../workers/weights/bone-distance-weights.ts';
import { dataFile } from './shared-data.ts';

const work = mkdtempSync(path.join(tmpdir(), 'rigwright-clip-'));
const NAMES = ['shoulder', 'upperarm', 'forearm', 'hand'];

/** The arm's TGF in the work folder with its names file beside it. */
function namedArm(): string {
  const tgf = path.join(work, 'arm.tgf');
  copyFileSync(dataFile('libigl', 'arm.tgf'), tgf);
  writeFileSync(path.join(work, 'arm.names'), `${NAMES.join('\n')}\n`);
  return tgf;
}

async function rigwright(...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const status = await runCli(args, { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stderr += t) } });
  return { status, stdout, stderr };
}

function writeJson(name: string, value: unknown): string {
  const file = path.join(work, name);
  writeFileSync(file, JSON.stringify(value));
  return file;
}

/** Rotation by `angle` about z, row-major. */
const aboutZ = (angle: number): number[] => [Math.cos(angle), -Math.sin(angle), 0, Math.sin(angle), Math.cos(angle), 0, 0, 0, 1];
const IDENTITY = [1, 0, 0, 0, 1, 0, 0, 0, 1];

/** Bone b's matrix at frame f of a 3·B·L × 3 pose DMAT. */
function readClip(file: string, boneCount: number): (f: number, b: number) => number[] {
  const seq = poseSequenceFromDmat(readDmat(new Uint8Array(readFileSync(file)), file), boneCount, file);
  assert.equal(seq.kind, 'matrices', 'the clip is rotation matrices');
  return (f, b) =>
    Array.from((seq as { rotations: Float64Array }).rotations.subarray(9 * (boneCount * f + b), 9 * (boneCount * f + b) + 9));
}

function assertMatrix(actual: number[], expected: number[], what: string): void {
  for (let i = 0; i < 9; i++)
    assert.ok(Math.abs(actual[i] - expected[i]) < 1e-12, `${what}: entry ${i} is ${actual[i]}, expected ${expected[i]}`);
}

test('rigwright clip keys named and numbered bones and SLERPs between keys; rigwright fk reads the clip', async () => {
  const tgf = namedArm();
  const half = Math.SQRT1_2;
  const keys = writeJson('keys.json', [
    { frame: 2, bone: 'forearm', quaternion: [0, 0, 0, 1] },
    { frame: 6, bone: 'forearm', quaternion: [0, 0, half, half] },
    { frame: 3, bone: 0, quaternion: [0, 0, 2 * Math.sin(0.3), 2 * Math.cos(0.3)] },
  ]);
  const out = path.join(work, 'clip.dmat');
  const run = await rigwright('clip', tgf, '--keys', keys, '--out', out, '--frames', '9');
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /9 frames × 4 bones \(108 × 3\), 3 keys at 3 frames/);
  const at = readClip(out, 4);
  for (let f = 0; f < 9; f++) {
    const t = Math.min(Math.max((f - 2) / 4, 0), 1);
    assertMatrix(at(f, 2), aboutZ((t * Math.PI) / 2), `frame ${f}: the forearm turns ${t} of 90°`);
    assertMatrix(at(f, 0), aboutZ(0.6), `frame ${f}: the shoulder holds its one key (normalized)`);
    for (const b of [1, 3]) assertMatrix(at(f, b), IDENTITY, `frame ${f}: bone ${b} rests`);
  }
  const joints = path.join(work, 'joints.json');
  const fk = await rigwright('fk', '--skeleton', tgf, '--poses', out, '--frame', '4', '--out', joints);
  assert.equal(fk.status, 0, `rigwright fk reads the clip: ${fk.stderr}`);
  // Frame 4: the shoulder at its key (0.6 about z), the forearm half way (45° about z), the others at rest; the joints
  // are those of forward kinematics with these rotations.
  const skeleton = buildSkeleton(readTgf(readFileSync(tgf, 'utf8'), tgf), tgf);
  const rotations = Float64Array.from([...aboutZ(0.6), ...IDENTITY, ...aboutZ(Math.PI / 4), ...IDENTITY]);
  const transforms = new Float64Array(12 * 4);
  forwardKinematics(skeleton, rotations, transforms);
  const expected = new Float64Array(skeleton.joints.length);
  posedJointPositions(skeleton, transforms, expected);
  const written = (JSON.parse(readFileSync(joints, 'utf8')) as { frame: number; joints: number[][] }).joints.flat();
  assert.equal(written.length, expected.length, 'one row per joint');
  for (let i = 0; i < expected.length; i++)
    assert.ok(Math.abs(written[i] - expected[i]) < 1e-12, `joint coordinate ${i}: ${written[i]}, forward kinematics gives ${expected[i]}`);
  assert.ok(
    Math.hypot(...[0, 1, 2].map((k) => expected[3 * 3 + k] - skeleton.joints[3 * 3 + k])) > 1e-3,
    'the posed forearm end is not at rest: the comparison sees the pose',
  );

  // Without --frames the clip ends at the last key.
  const short = await rigwright('clip', tgf, '--keys', keys, '--out', out);
  assert.equal(short.status, 0, short.stderr);
  assert.match(short.stdout, /7 frames × 4 bones/);
});

test('rigwright clip and pose refuse bad keys, naming the file and the entry', async () => {
  const tgf = namedArm();
  const out = path.join(work, 'bad.dmat');
  const cases: [unknown, RegExp][] = [
    [[{ frame: 0, bone: 'elbow', quaternion: [0, 0, 0, 1] }], /entry 0: no bone is named "elbow"/],
    [[{ frame: 0, bone: 4, quaternion: [0, 0, 0, 1] }], /entry 0: the bone must be a name or an index 0–3, not 4/],
    [[{ frame: 1.5, bone: 0, quaternion: [0, 0, 0, 1] }], /entry 0: the frame must be a whole number ≥ 0, not 1.5/],
    [[{ frame: 0, bone: 0, quaternion: [0, 0, 0] }], /entry 0: the quaternion must be four finite numbers/],
    [[{ frame: 0, bone: 0, quaternion: [0, 0, 0, 0] }], /entry 0: the quaternion \(0, 0, 0, 0\) is zero/],
    [
      [
        { frame: 0, bone: 'hand', quaternion: [0, 0, 0, 1] },
        { frame: 0, bone: 3, quaternion: [0, 0, 0, 1] },
      ],
      /entry 1: bone "hand" is given twice at frame 0 \(entry 0 too\)/,
    ],
    [{ frame: 0 }, /keys\.json: expected a list of/],
  ];
  for (const [value, message] of cases) {
    const run = await rigwright('clip', tgf, '--keys', writeJson('keys.json', value), '--out', out);
    assert.equal(run.status, 1, `${JSON.stringify(value)}: bad input exits 1`);
    assert.match(run.stderr, message, JSON.stringify(value));
  }
  const late = await rigwright(
    'clip',
    tgf,
    '--keys',
    writeJson('keys.json', [{ frame: 5, bone: 0, quaternion: [0, 0, 0, 1] }]),
    '--out',
    out,
    '--frames',
    '3',
  );
  assert.equal(late.status, 1, 'a key past the clip exits 1');
  assert.match(late.stderr, /entry 0: frame 5 is past the clip's last frame 2 \(--frames 3\)/);
  const usage = await rigwright('clip', tgf, '--keys', writeJson('keys.json', []), '--out', out, '--frames', '0');
  assert.equal(usage.status, 2, '--frames 0 is a usage error');
  writeFileSync(path.join(work, 'broken.json'), '[{"frame": 0,]');
  const broken = await rigwright('pose', tgf, '--rotations', path.join(work, 'broken.json'), '--out', out);
  assert.equal(broken.status, 1, 'broken JSON exits 1');
  assert.match(broken.stderr, /broken\.json: not valid JSON at line 1, column/);
});

test('rigwright pose writes one pose as matrices or quaternions; bones of a project are named by the project', async () => {
  const { mesh } = readObj(readFileSync(dataFile('libigl', 'arm.obj'), 'utf8'), 'arm.obj');
  const skeleton = buildSkeleton(readTgf(readFileSync(dataFile('libigl', 'arm.tgf'), 'utf8'), 'arm.tgf'), 'arm.tgf');
  const doc = withDerived({
    name: 'arm.obj',
    meshFiles: ['arm.obj'],
    mesh,
    skeletonFile: 'arm.tgf',
    skeleton,
    weights: boneDistanceWeights(mesh.positions, skeleton),
    weightsSource: 'bone distance',
    poses: null,
    posesFile: null,
    handles: null,
    handlesFile: null,
    warnings: [],
    boneNames: ['root', 'upper.L', 'lower.L', 'hand.L'],
  });
  const project = path.join(work, 'arm.rig.glb');
  const settings = defaultProjectSettings(mesh.positions.length / 3, 4);
  writeFileSync(project, await writeProjectFile({ scene: projectSceneOf(doc), settings }, 'arm.rig.glb'));
  const rotations = writeJson('pose.json', [{ bone: 'lower.L', quaternion: [0, 0, 3 * Math.sin(0.2), 3 * Math.cos(0.2)] }]);
  const matrices = path.join(work, 'pose.dmat');
  const run = await rigwright('pose', project, '--rotations', rotations, '--out', matrices);
  assert.equal(run.status, 0, run.stderr);
  const at = readClip(matrices, 4);
  assertMatrix(at(0, 2), aboutZ(0.4), 'lower.L turns 0.4 about z');
  for (const b of [0, 1, 3]) assertMatrix(at(0, b), IDENTITY, `bone ${b} rests`);

  const quaternions = path.join(work, 'pose-q.dmat');
  const q = await rigwright(
    'pose',
    namedArm(),
    '--rotations',
    writeJson('pose.json', [{ bone: 'forearm', quaternion: [0, 0, 1, 1] }]),
    '--out',
    quaternions,
    '--quaternions',
  );
  assert.equal(q.status, 0, q.stderr);
  const m = readDmat(new Uint8Array(readFileSync(quaternions)), quaternions);
  assert.deepStrictEqual([m.rows, m.cols], [16, 1], '4B × 1');
  const expected = [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, Math.SQRT1_2, Math.SQRT1_2, 0, 0, 0, 1];
  for (let i = 0; i < 16; i++) assert.ok(Math.abs(m.data[i] - expected[i]) < 1e-15, `quaternion entry ${i}`);
});

test('rigwright pose and clip refuse a project without bones (a mesh alone), naming the project', async () => {
  const { mesh } = readObj(readFileSync(dataFile('libigl', 'arm.obj'), 'utf8'), 'arm.obj');
  const project = path.join(work, 'bare.rig.glb');
  const doc = bareDocument({ name: 'arm.obj', mesh });
  const settings = defaultProjectSettings(mesh.positions.length / 3, 0);
  writeFileSync(project, await writeProjectFile({ scene: projectSceneOf(doc), settings }, 'bare.rig.glb'));
  const rotations = writeJson('none.json', [{ bone: 0, quaternion: [0, 0, 0, 1] }]);
  const out = path.join(work, 'never.dmat');
  for (const args of [
    ['pose', project, '--rotations', rotations, '--out', out],
    ['clip', project, '--keys', writeJson('none-keys.json', [{ frame: 0, bone: 0, quaternion: [0, 0, 0, 1] }]), '--out', out],
  ]) {
    const run = await rigwright(...args);
    assert.equal(run.status, 1, `${args[0]}: exit 1 (${run.stderr})`);
    assert.ok(run.stderr.startsWith(`rigwright: ${project}: the skeleton has no bones`), `${args[0]}: ${run.stderr}`);
  }
  assert.ok(!existsSync(out), 'nothing written');
});
