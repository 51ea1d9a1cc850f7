/**
 * What a glTF holds and neither `rigwright import`'s files nor a fresh `rigwright export` from them can hold (vertex
 * colours, a second texture coordinate set, cameras, lights) is said by `import`, and again, once each, by a fresh
 * `export` from the written files, which finds the source through the OBJ's first line; with the source gone, one
 * line says it could not be checked. The source is made here with exactly one of each, on named things, so that
 * each notice is expected exactly once and naming them; the exported file is read back to show it holds none of them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { NodeIO } from '@gltf-transform/core';
import { KHRLightsPunctual } from '@gltf-transform/extensions';
import { twoJointSkinnedAsset } from './gltf-build.ts';
import { repoRoot } from './shared-data.ts';

const work = mkdtempSync(path.join(tmpdir(), 'rigwright-import-losses-'));

function rigwright(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ['app/cli/rigwright.mjs', ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 120_000 });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A stick skinned to two joints whose mesh "stick" has COLOR_0 and TEXCOORD_0/1, with a camera "shot" and a light "lamp". */
async function writeRichSource(file: string): Promise<void> {
  const { doc, acc } = twoJointSkinnedAsset('stick', {
    positions: [-0.2, 0, 0, 0.2, 0, 0, 0, 2, 0],
    joints: [0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0],
    weights: [1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0],
    triangles: [0, 1, 2],
  });
  const primitive = doc.getRoot().listMeshes()[0].listPrimitives()[0];
  primitive
    .setAttribute('COLOR_0', acc('VEC4', Float32Array.from([1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1])))
    .setAttribute('TEXCOORD_0', acc('VEC2', Float32Array.from([0, 0, 1, 0, 0.5, 1])))
    .setAttribute('TEXCOORD_1', acc('VEC2', Float32Array.from([0, 0, 0.5, 0, 0.25, 0.5])));
  const scene = doc.getRoot().listScenes()[0];
  scene.addChild(doc.createNode('shot').setCamera(doc.createCamera('lens').setType('perspective').setYFov(0.8).setZNear(0.1)));
  const lights = doc.createExtension(KHRLightsPunctual);
  scene.addChild(doc.createNode('lamp').setExtension('KHR_lights_punctual', lights.createLight('key').setType('point')));
  writeFileSync(file, await new NodeIO().registerExtensions([KHRLightsPunctual]).writeBinary(doc));
}

/** The four losses, each as a line of stderr names it. */
const LOSSES: readonly [string, RegExp][] = [
  ['vertex colours', /vertex colours \(COLOR_n\) of .*rich\.glb's meshes stick are not written/],
  ['second UV set', /texture coordinate sets \(TEXCOORD_1 …\) of .*rich\.glb's meshes stick are not written/],
  ['camera', /1 camera of .*rich\.glb is not written/],
  ['light', /1 light of .*rich\.glb \(KHR_lights_punctual\) is not written/],
];

function countLines(stderr: string, pattern: RegExp): number {
  return stderr.split('\n').filter((line) => pattern.test(line)).length;
}

test('import names the colours, second UV set, camera and light it leaves out; a fresh export from its files names each once; without the source, one line says so', async () => {
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
  assert.ok(!semantics.some((s) => s.startsWith('COLOR_') || s === 'TEXCOORD_1'), `no colours or second UV set: ${semantics.join(', ')}`);
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
