/**
 * What a glTF holds and neither `rigwright import`'s files nor a fresh `rigwright export` from them can hold (vertex
 * colours, a second texture coordinate set, tangents, cameras, lights, the animation of a node that is not a joint) is
 * said by `import`, and again, once each, by a fresh `export` from the written files, which finds the source through
 * the OBJ's first line (relative to the OBJ's folder, or absolute); with the source gone, one line says it could not be
 * checked. The source is made here with exactly one of each, on named things, so that
 * each notice is expected exactly once and naming them; the exported file is read back to show it holds none of them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { NodeIO } from '@gltf-transform/core';
import { KHRLightsPunctual } from '@gltf-transform/extensions';
import { importedFromOf } from '../../app/cli/imported-source.ts';
import { twoJointSkinnedAsset } from './gltf-build.ts';
import { repoRoot } from './shared-data.ts';

const work = mkdtempSync(path.join(tmpdir(), 'rigwright-import-losses-'));

function rigwright(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  return rigwrightIn(repoRoot, ...args);
}

/** The CLI run from the working directory `cwd`. */
function rigwrightIn(cwd: string, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const cli = path.join(repoRoot, 'app/cli/rigwright.mjs');
  const result = spawnSync(process.execPath, [cli, ...args], { cwd, encoding: 'utf8', timeout: 120_000 });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * A stick skinned to two joints whose mesh "stick" has COLOR_0, TEXCOORD_0/1 and TANGENT, with a camera "shot", a light
 * "lamp" and a clip "Wave" that turns the joint "tip" and slides the node "prop".
 */
async function writeRichSource(file: string): Promise<void> {
  const { doc, acc, tip } = twoJointSkinnedAsset('stick', {
    positions: [-0.2, 0, 0, 0.2, 0, 0, 0, 2, 0],
    joints: [0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0],
    weights: [1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0],
    triangles: [0, 1, 2],
  });
  const primitive = doc.getRoot().listMeshes()[0].listPrimitives()[0];
  primitive
    .setAttribute('COLOR_0', acc('VEC4', Float32Array.from([1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1])))
    .setAttribute('TEXCOORD_0', acc('VEC2', Float32Array.from([0, 0, 1, 0, 0.5, 1])))
    .setAttribute('TEXCOORD_1', acc('VEC2', Float32Array.from([0, 0, 0.5, 0, 0.25, 0.5])))
    .setAttribute('TANGENT', acc('VEC4', Float32Array.from([1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1])));
  const scene = doc.getRoot().listScenes()[0];
  const prop = doc.createNode('prop').setTranslation([2, 0, 0]);
  scene.addChild(prop);
  const times = acc('SCALAR', Float32Array.from([0, 1]));
  const sampler = (type: 'VEC3' | 'VEC4', values: number[]) =>
    doc
      .createAnimationSampler()
      .setInput(times)
      .setOutput(acc(type, Float32Array.from(values)))
      .setInterpolation('LINEAR');
  const turn = sampler('VEC4', [0, 0, 0, 1, 0, 0, Math.SQRT1_2, Math.SQRT1_2]);
  const slide = sampler('VEC3', [2, 0, 0, 3, 0, 0]);
  doc
    .createAnimation('Wave')
    .addSampler(turn)
    .addSampler(slide)
    .addChannel(doc.createAnimationChannel().setTargetNode(tip).setTargetPath('rotation').setSampler(turn))
    .addChannel(doc.createAnimationChannel().setTargetNode(prop).setTargetPath('translation').setSampler(slide));
  scene.addChild(doc.createNode('shot').setCamera(doc.createCamera('lens').setType('perspective').setYFov(0.8).setZNear(0.1)));
  const lights = doc.createExtension(KHRLightsPunctual);
  scene.addChild(doc.createNode('lamp').setExtension('KHR_lights_punctual', lights.createLight('key').setType('point')));
  writeFileSync(file, await new NodeIO().registerExtensions([KHRLightsPunctual]).writeBinary(doc));
}

/** The six losses, each as a line of stderr names it. */
const LOSSES: readonly [string, RegExp][] = [
  ['vertex colours', /vertex colours \(COLOR_n\) of .*rich\.glb's meshes stick are not written/],
  ['second UV set', /texture coordinate sets \(TEXCOORD_1 …\) of .*rich\.glb's meshes stick are not written/],
  ['tangents', /the tangents of .*rich\.glb's meshes stick are not kept/],
  ['camera', /1 camera of .*rich\.glb is not written/],
  ['light', /1 light of .*rich\.glb \(KHR_lights_punctual\) is not written/],
  ['prop animation', /the animation of 1 node of .*rich\.glb that is not a joint \(prop \(translation\)\) is not written/],
];

function countLines(stderr: string, pattern: RegExp): number {
  return stderr.split('\n').filter((line) => pattern.test(line)).length;
}

test('import names the colours, second UV set, tangents, camera, light and non-joint animation it leaves out; a fresh export from its files names each once; without the source, one line says so', async () => {
  const source = path.join(work, 'rich.glb');
  await writeRichSource(source);
  const out = path.join(work, 'rich');
  const imported = rigwright('import', source, '--out-dir', out);
  assert.equal(imported.status, 0, imported.stderr);
  for (const [what, pattern] of LOSSES)
    assert.equal(countLines(imported.stderr, pattern), 1, `import names the ${what} once:\n${imported.stderr}`);

  const written = readdirSync(out);
  const stem = written.find((name) => name.endsWith('.obj'))!.replace(/\.obj$/, '');
  const file = (suffix: string): string => path.join(out, `${stem}${suffix}`);
  assert.equal(
    readFileSync(file('.obj'), 'utf8').split('\n')[0],
    '# imported from "../rich.glb"',
    'the OBJ records its source from its folder',
  );

  const exportArgs = (glb: string): string[] => [
    'export',
    ...['--mesh', file('.obj'), '--skeleton', file('.tgf'), '--weights', file('-weights.dmat'), '--out', glb],
    ...['--poses', file('-pose-Wave.dmat'), '--times', file('-times-Wave.dmat')],
  ];
  const fresh = path.join(work, 'fresh.glb');
  const exported = rigwright(...exportArgs(fresh));
  assert.equal(exported.status, 0, exported.stderr);
  for (const [what, pattern] of LOSSES)
    assert.equal(countLines(exported.stderr, pattern), 1, `export names the ${what} once:\n${exported.stderr}`);
  assert.doesNotMatch(exported.stderr, /could not be checked/, 'the source is there');
  // What the notices say is left out is indeed not in the file.
  const doc = await new NodeIO().registerExtensions([KHRLightsPunctual]).read(fresh);
  const semantics = doc
    .getRoot()
    .listMeshes()
    .flatMap((mesh) => mesh.listPrimitives().flatMap((primitive) => primitive.listSemantics()));
  assert.ok(
    !semantics.some((s) => s.startsWith('COLOR_') || s === 'TEXCOORD_1' || s === 'TANGENT'),
    `no colours, second UV set or tangents: ${semantics.join(', ')}`,
  );
  const animated = doc
    .getRoot()
    .listAnimations()
    .flatMap((animation) => animation.listChannels().map((channel) => channel.getTargetNode()?.getName()));
  assert.ok(animated.includes('tip') && !animated.includes('prop'), `the joint's clip only: ${animated.join(', ')}`);
  assert.equal(doc.getRoot().listCameras().length, 0, 'no camera');
  assert.ok(
    doc
      .getRoot()
      .listNodes()
      .every((node) => !node.getExtension('KHR_lights_punctual')),
    'no light',
  );

  // Moved away: the export says in one line that it could not check, and names none of the losses.
  renameSync(source, path.join(work, 'rich-moved.glb'));
  const unchecked = rigwright(...exportArgs(path.join(work, 'fresh-2.glb')));
  assert.equal(unchecked.status, 0, unchecked.stderr);
  assert.equal(countLines(unchecked.stderr, /rich\.glb, which is no longer there: .* could not be checked/), 1, unchecked.stderr);
  for (const [what, pattern] of LOSSES) assert.equal(countLines(unchecked.stderr, pattern), 0, `no ${what} notice without the source`);
});

test('a fresh export from an OBJ that records no source says nothing about one', async () => {
  const folder = path.join(work, 'plain');
  const source = path.join(work, 'plain.glb');
  await writeRichSource(source);
  const imported = rigwright('import', source, '--out-dir', folder);
  assert.equal(imported.status, 0, imported.stderr);
  // The imported stick's files, with the OBJ's first line (the record) taken out.
  const obj = path.join(
    folder,
    readdirSync(folder).find((name) => name.endsWith('.obj'))!,
  );
  const lines = readFileSync(obj, 'utf8').split('\n');
  assert.match(lines[0], /^# imported from /, 'the record is the first line');
  const bare = path.join(folder, 'bare.obj');
  writeFileSync(bare, lines.slice(1).join('\n'));
  const stem = obj.replace(/\.obj$/, '');
  copyFileSync(`${stem}.tgf`, path.join(folder, 'bare.tgf'));
  const exported = rigwright(
    'export',
    ...['--mesh', bare, '--skeleton', path.join(folder, 'bare.tgf'), '--weights', `${stem}-weights.dmat`],
    ...['--out', path.join(work, 'bare.glb')],
  );
  assert.equal(exported.status, 0, exported.stderr);
  assert.doesNotMatch(exported.stderr, /plain\.glb|could not be checked|vertex colours|camera/, exported.stderr);
});

/** The stem of the OBJ/TGF/DMAT files `import` wrote into `folder`. */
function importedStem(folder: string): string {
  return path.join(
    folder,
    readdirSync(folder)
      .find((name) => name.endsWith('.obj'))!
      .replace(/\.obj$/, ''),
  );
}

test('folders with spaces and a quote, a relative --mesh from another working folder: the record finds the source, each loss named once', async () => {
  const sourceFolder = path.join(work, 'src "q" dir');
  mkdirSync(sourceFolder);
  const source = path.join(sourceFolder, 'rich.glb');
  await writeRichSource(source);
  const out = path.join(work, 'out dir');
  const imported = rigwright('import', source, '--out-dir', out);
  assert.equal(imported.status, 0, imported.stderr);
  const stem = importedStem(out);
  // The path from the OBJ's folder, as a JSON string: the quotes escaped, the spaces kept.
  assert.equal(
    readFileSync(`${stem}.obj`, 'utf8').split('\n')[0],
    String.raw`# imported from "../src \"q\" dir/rich.glb"`,
    'the OBJ records its source from its folder',
  );
  // Run from `work`, the files named relative to it: the record is resolved from the OBJ's folder, not the working one.
  const relative = (suffix: string): string => path.relative(work, `${stem}${suffix}`);
  const exported = rigwrightIn(
    work,
    'export',
    ...['--mesh', relative('.obj'), '--skeleton', relative('.tgf'), '--weights', relative('-weights.dmat')],
    ...['--out', 'quoted.glb'],
  );
  assert.equal(exported.status, 0, exported.stderr);
  for (const [what, pattern] of LOSSES)
    assert.equal(countLines(exported.stderr, pattern), 1, `export names the ${what} once:\n${exported.stderr}`);
  assert.doesNotMatch(exported.stderr, /could not be checked/, 'the source is found');
});

test('an absolute record (a source on another drive) is the source as it is, not a path under the OBJ folder', async () => {
  const source = path.join(work, 'absolute', 'rich.glb');
  mkdirSync(path.dirname(source));
  await writeRichSource(source);
  const out = path.join(work, 'absolute-out');
  const imported = rigwright('import', source, '--out-dir', out);
  assert.equal(imported.status, 0, imported.stderr);
  const stem = importedStem(out);
  // What the line holds when no relative path leads to the source (path.relative across Windows drives).
  const lines = readFileSync(`${stem}.obj`, 'utf8').split('\n');
  writeFileSync(`${stem}.obj`, [`# imported from ${JSON.stringify(source)}`, ...lines.slice(1)].join('\n'));
  assert.equal(importedFromOf(`${stem}.obj`), source, 'the recorded path itself');
  const exported = rigwright(
    'export',
    ...[
      '--mesh',
      `${stem}.obj`,
      '--skeleton',
      `${stem}.tgf`,
      '--weights',
      `${stem}-weights.dmat`,
      '--out',
      path.join(work, 'absolute.glb'),
    ],
  );
  assert.equal(exported.status, 0, exported.stderr);
  for (const [what, pattern] of LOSSES)
    assert.equal(countLines(exported.stderr, pattern), 1, `export names the ${what} once:\n${exported.stderr}`);
  assert.doesNotMatch(exported.stderr, /could not be checked/, 'the source is found');
});

test('a user OBJ whose first line reads "# imported from foo.glb" (no JSON string) records nothing, even with foo.glb beside it', async () => {
  const folder = path.join(work, 'user');
  const imported = rigwright('import', path.join(work, 'plain.glb'), '--out-dir', folder);
  assert.equal(imported.status, 0, imported.stderr);
  const stem = importedStem(folder);
  copyFileSync(path.join(work, 'plain.glb'), path.join(folder, 'foo.glb'));
  const lines = readFileSync(`${stem}.obj`, 'utf8').split('\n');
  writeFileSync(`${stem}.obj`, ['# imported from foo.glb', ...lines.slice(1)].join('\n'));
  assert.equal(importedFromOf(`${stem}.obj`), null, 'no record');
  const exported = rigwright(
    'export',
    ...['--mesh', `${stem}.obj`, '--skeleton', `${stem}.tgf`, '--weights', `${stem}-weights.dmat`, '--out', path.join(work, 'user.glb')],
  );
  assert.equal(exported.status, 0, exported.stderr);
  assert.doesNotMatch(exported.stderr, /foo\.glb|could not be checked|vertex colours|camera/, exported.stderr);
});

test('the paths in the warning that the recorded source is gone are shown on one line', async () => {
  const folder = path.join(work, 'gone');
  const imported = rigwright('import', path.join(work, 'plain.glb'), '--out-dir', folder);
  assert.equal(imported.status, 0, imported.stderr);
  const stem = importedStem(folder);
  const lines = readFileSync(`${stem}.obj`, 'utf8').split('\n');
  // A record (edited by hand) whose path holds a line break and an escape character.
  writeFileSync(`${stem}.obj`, [`# imported from ${JSON.stringify('gone\nwith\u001b[31mred.glb')}`, ...lines.slice(1)].join('\n'));
  const exported = rigwright(
    'export',
    ...['--mesh', `${stem}.obj`, '--skeleton', `${stem}.tgf`, '--weights', `${stem}-weights.dmat`, '--out', path.join(work, 'gone.glb')],
  );
  assert.equal(exported.status, 0, exported.stderr);
  assert.equal(
    countLines(exported.stderr, /it was imported from .*gone with\\u001b\[31mred\.glb, which is no longer there: .* could not be checked$/),
    1,
    exported.stderr,
  );
  assert.ok(!exported.stderr.includes('\u001b'), 'no escape character reaches the terminal');
});
