/**
 * A fresh `rigwright export` from the files `rigwright import` wrote keeps the joint list and the scene: bone names
 * from the names file beside the TGF, no connector bones written as joints, every pose file a clip under its own name
 * (NAME-pose-CLIP.dmat gives CLIP). The expectation is the source file itself evaluated by glTF's rules: at every key
 * of every clip each joint of the export stands where the source's joint of that bone stands. The names file is the one
 * `import` writes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WebIO, type Document } from '@gltf-transform/core';
import { parseBoneNames } from '../../workers/formats/bone-names.ts';
import { writeDmatAscii } from '../../workers/formats/dmat.ts';
import { importGltf } from '../../workers/formats/gltf-import.ts';
import { fileKeyTimes } from './gltf-appendix-c.ts';
import { assertValidGltf, gltfNodeWorldPosition } from './gltf-skinning-reference.ts';
import { dataFile, repoRoot } from './shared-data.ts';

const work = mkdtempSync(path.join(tmpdir(), 'rigwright-export-fresh-'));

function rigwright(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ['app/cli/rigwright.mjs', ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 180_000 });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * The largest distance, over every key of every clip, between each joint of `exported` and its bone's source joint;
 * `clips` pairs each source animation (by index) with the exported one (by name).
 */
function jointDistance(
  source: Document,
  exported: Document,
  sourceJoint: (k: number) => string,
  clips: readonly [number, string][],
): number {
  const exportedJoints = exported.getRoot().listSkins()[0].listJoints();
  const sourceNodes = source.getRoot().listNodes();
  let worst = 0;
  for (const [a, name] of clips) {
    const e = exported
      .getRoot()
      .listAnimations()
      .findIndex((animation) => animation.getName() === name);
    assert.ok(e >= 0, `clip ${name} in the export`);
    for (const t of fileKeyTimes(source, a))
      exportedJoints.forEach((joint, k) => {
        const node = sourceNodes.find((n) => n.getName() === sourceJoint(k))!;
        const p = gltfNodeWorldPosition(source, a, t, node);
        const q = gltfNodeWorldPosition(exported, e, t, joint);
        worst = Math.max(worst, Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]));
      });
  }
  return worst;
}

test('fresh export from the Fox as imported, with its names file: every bone name, all three clips under their names, joints where the source has them', async () => {
  const file = dataFile('gltf', 'Fox', 'Fox.glb');
  const dir = path.join(work, 'fox');
  assert.equal(rigwright('import', file, '--out-dir', dir).status, 0);
  const rig = await importGltf(readFileSync(file), 'Fox.glb');
  // The TGF has a connector bone after the file's bones for each bone that starts away from its parent's end.
  const tgf = readFileSync(path.join(dir, 'fox.tgf'), 'utf8').split('#')[1].trim().split('\n');
  const connectors = tgf.length - rig.boneNames.length;
  assert.ok(connectors > 0, 'the Fox as imported has connector bones');
  // import wrote the names file beside the TGF: every joint's name, then a name for each connector bone.
  const names = parseBoneNames(readFileSync(path.join(dir, 'fox.names'), 'utf8'), 'fox.names', tgf.length);
  assert.deepEqual(names.slice(0, rig.boneNames.length), rig.boneNames);
  assert.ok(
    names.slice(rig.boneNames.length).every((name) => /^connector to /.test(name)),
    `connector names: ${names.slice(rig.boneNames.length).join(', ')}`,
  );
  const clips = ['Survey', 'Walk', 'Run'];
  const list = (kind: string): string => clips.map((clip) => path.join(dir, `fox-${kind}-${clip}.dmat`)).join(',');
  const out = path.join(work, 'fox.glb');
  const run = rigwright(
    'export',
    '--mesh',
    path.join(dir, 'fox.obj'),
    '--skeleton',
    path.join(dir, 'fox.tgf'),
    '--weights',
    path.join(dir, 'fox-weights.dmat'),
    '--poses',
    list('pose'),
    '--translations',
    list('translations'),
    '--times',
    list('times'),
    '--out',
    out,
  );
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /24 joints, 3 animations/);
  const bytes = new Uint8Array(readFileSync(out));
  await assertValidGltf(bytes, 'the Fox exported fresh');
  const exported = await new WebIO().readBinary(bytes);
  assert.deepEqual(
    exported
      .getRoot()
      .listAnimations()
      .map((animation) => animation.getName()),
    clips,
  );
  const joints = exported.getRoot().listSkins()[0].listJoints();
  assert.deepEqual(
    joints.map((joint) => joint.getName()),
    rig.boneNames,
  );
  const source = await new WebIO().readBinary(readFileSync(file));
  // The Fox spans about 170 units; float32 keys and matrices keep a few 1e-6 of that.
  const worst = jointDistance(
    source,
    exported,
    (k) => rig.boneNames[k],
    clips.map((clip, a) => [a, clip]),
  );
  assert.ok(worst < 1e-3, `joints ${worst} from the source's at its keys`);
});

test('fresh export from CesiumMan as imported: its four connector bones are no joints, the others stand where the source has them', async () => {
  const file = dataFile('gltf', 'CesiumMan', 'CesiumMan.glb');
  const dir = path.join(work, 'cesium');
  const imported = rigwright('import', file, '--out-dir', dir);
  assert.equal(imported.status, 0, imported.stderr);
  assert.match(imported.stderr, /4 bones start away from their parent's end/);
  const rig = await importGltf(readFileSync(file), 'CesiumMan.glb');
  const out = path.join(work, 'cesium.glb');
  const run = rigwright(
    'export',
    '--mesh',
    path.join(dir, 'Cesium_Man.obj'),
    '--skeleton',
    path.join(dir, 'Cesium_Man.tgf'),
    '--weights',
    path.join(dir, 'Cesium_Man-weights.dmat'),
    '--poses',
    path.join(dir, 'Cesium_Man-pose-animation_0.dmat'),
    '--translations',
    path.join(dir, 'Cesium_Man-translations-animation_0.dmat'),
    '--times',
    path.join(dir, 'Cesium_Man-times-animation_0.dmat'),
    '--out',
    out,
  );
  assert.equal(run.status, 0, run.stderr);
  assert.match(
    run.stderr,
    /4 connector bones \("connector to [^"]+", "connector to [^"]+", "connector to [^"]+", "connector to [^"]+": no weight/,
  );
  assert.match(run.stdout, /19 joints, 1 animation/);
  const bytes = new Uint8Array(readFileSync(out));
  await assertValidGltf(bytes, 'CesiumMan exported fresh');
  const exported = await new WebIO().readBinary(bytes);
  // The names file import wrote beside the TGF names the joints as the source does.
  assert.deepEqual(
    exported
      .getRoot()
      .listSkins()[0]
      .listJoints()
      .map((joint) => joint.getName()),
    rig.boneNames,
  );
  assert.deepEqual(
    exported
      .getRoot()
      .listAnimations()
      .map((animation) => animation.getName()),
    ['animation_0'],
  );
  const source = await new WebIO().readBinary(readFileSync(file));
  const worst = jointDistance(source, exported, (k) => rig.boneNames[k], [[0, 'animation_0']]);
  assert.ok(worst < 1e-5, `joints ${worst} from the source's at its keys`);
});

/**
 * A hand-written rig: a root bone (joint 1 → 2), two legs from joint 3 (bones 1 and 2), and an unweighted hips bone
 * from the root's end to the legs' start (joint 2 → 3), listed after its children: a real bone, not a connector.
 * With `oneLeg`, the right leg is left out, so the hips bone has the very shape a connector has (one child, from its
 * parent's end to its child's start). Three triangles, each on one of the root and the legs.
 */
function writeHandRig(dir: string, name: string, oneLeg: boolean, names?: readonly string[]): string[] {
  mkdirSync(dir, { recursive: true });
  const legs = oneLeg ? ['3 4'] : ['3 4', '3 5'];
  writeFileSync(
    path.join(dir, `${name}.tgf`),
    ['1 0 0 0', '2 0 1 0', '3 0 1.5 0', '4 -0.5 0 0', '5 0.5 0 0', '#', '1 2', ...legs, '2 3', '#', ''].join('\n'),
  );
  const B = legs.length + 2;
  const tris = oneLeg ? 2 : 3;
  const v = [
    [0, 0, 0.1, 0.2, 0.5, 0, -0.2, 0.5, 0],
    [-0.5, 0, 0, -0.4, 1.5, 0, -0.6, 1.5, 0.1],
    [0.5, 0, 0, 0.4, 1.5, 0, 0.6, 1.5, 0.1],
  ].slice(0, tris);
  const obj: string[] = [];
  v.forEach((t) => {
    for (let k = 0; k < 3; k++) obj.push(`v ${t[3 * k]} ${t[3 * k + 1]} ${t[3 * k + 2]}`);
  });
  v.forEach((_, t) => obj.push(`f ${3 * t + 1} ${3 * t + 2} ${3 * t + 3}`));
  writeFileSync(path.join(dir, `${name}.obj`), obj.join('\n') + '\n');
  // Triangle t's vertices on bone t (root, left leg, right leg); the hips bone (the last) has no weight.
  const data = new Float64Array(3 * tris * B);
  for (let i = 0; i < 3 * tris; i++) data[i * B + Math.floor(i / 3)] = 1;
  writeFileSync(path.join(dir, `${name}-weights.dmat`), writeDmatAscii({ rows: 3 * tris, cols: B, data }));
  if (names) writeFileSync(path.join(dir, `${name}.names`), names.join('\n') + '\n');
  return [
    '--mesh',
    path.join(dir, `${name}.obj`),
    '--skeleton',
    path.join(dir, `${name}.tgf`),
    '--weights',
    path.join(dir, `${name}-weights.dmat`),
  ];
}

test('fresh export keeps an unweighted hips bone listed after its children; it drops only bones marked as connectors', async () => {
  const dir = path.join(work, 'hand');
  const joints = async (args: string[], out: string): Promise<{ names: string[]; stderr: string }> => {
    const run = rigwright('export', ...args, '--out', out);
    assert.equal(run.status, 0, run.stderr);
    const bytes = new Uint8Array(readFileSync(out));
    await assertValidGltf(bytes, out);
    const doc = await new WebIO().readBinary(bytes);
    return {
      names: doc
        .getRoot()
        .listSkins()[0]
        .listJoints()
        .map((joint) => joint.getName()),
      stderr: run.stderr,
    };
  };
  // Two legs, no names file: the hips bone has two children, so it is no connector's shape; it stays a joint.
  const twoLegs = await joints(writeHandRig(dir, 'hips', false), path.join(work, 'hips.glb'));
  assert.equal(twoLegs.names.length, 4, `joints ${twoLegs.names.join(', ')}`);
  assert.doesNotMatch(twoLegs.stderr, /connector/);
  // The same with a names file naming it: still a joint, under its name.
  const named = await joints(writeHandRig(dir, 'hips-named', false, ['root', 'leg.L', 'leg.R', 'hips']), path.join(work, 'hips-named.glb'));
  assert.deepEqual(named.names, ['root', 'leg.L', 'leg.R', 'hips']);
  // One leg, no names file: the hips bone has a connector's shape (as every chain bone of a TGF has), and it stays.
  const bare = await joints(writeHandRig(dir, 'bare', true), path.join(work, 'bare.glb'));
  assert.equal(bare.names.length, 3, `joints ${bare.names.join(', ')}`);
  assert.doesNotMatch(bare.stderr, /connector/);
  // One leg: the hips bone has a connector's shape, but the names file says it is the hips: it stays.
  const control = await joints(writeHandRig(dir, 'control', true, ['root', 'leg', 'hips']), path.join(work, 'control.glb'));
  assert.deepEqual(control.names, ['root', 'leg', 'hips']);
  assert.doesNotMatch(control.stderr, /connector/);
  // One leg, the names file marking it as import does: left out, the leg on the root, and the notice names it.
  const marked = await joints(writeHandRig(dir, 'marked', true, ['root', 'leg', 'connector to leg']), path.join(work, 'marked.glb'));
  assert.deepEqual(marked.names, ['root', 'leg']);
  assert.match(marked.stderr, /1 connector bone \("connector to leg": no weight, at rest in every pose\) left out of the joints/);
});
