/**
 * `rigwright info` on everything `rigwright import` writes (OBJ, MTL, images, TGF, weights, poses, translations, key
 * times), run as users run them: from the shipped glTF samples and from a clip keyed on whole seconds, whose key times
 * (0, 1, 2) are also a handles file in shape. Which pose file each times file goes with is known independently, from
 * the names import gives them (NAME-pose-CLIP.dmat and NAME-times-CLIP.dmat); frame counts and times are read here
 * from the DMAT text.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { NodeIO } from '@gltf-transform/core';
import { twoJointSkinnedAsset } from './gltf-build.ts';
import { repoRoot, dataFile } from './shared-data.ts';
import { propsAsset } from './props-asset.ts';

const work = mkdtempSync(path.join(tmpdir(), 'rigwright-info-imported-'));

function rigwright(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ['app/cli/rigwright.mjs', ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 120_000 });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** `info`'s lines about one file: its heading line and the indented lines below it. */
function block(stdout: string, file: string): string {
  const lines = stdout.split('\n');
  const start = lines.findIndex((line) => line.startsWith(`${file}: `));
  assert.ok(start >= 0, `info says nothing about ${file}:\n${stdout}`);
  let end = start + 1;
  while (end < lines.length && lines[end].startsWith('  ')) end++;
  return lines.slice(start, end).join('\n');
}

/** An ASCII DMAT's values, read by hand: header `cols rows`, then the values column-major. */
function dmatColumn(file: string): number[] {
  const [header, ...values] = readFileSync(file, 'utf8').trim().split(/\s+/);
  assert.equal(header, '1', `${file} has one column`);
  return values.slice(1).map(Number);
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Imports `source` into its own folder and runs info on every file written; checks the key times files. */
function importAndDescribe(source: string, folder: string): { stdout: string; written: string[] } {
  const out = path.join(work, folder);
  const imported = rigwright('import', source, '--out-dir', out);
  assert.equal(imported.status, 0, imported.stderr);
  const written = readdirSync(out).map((name) => path.join(out, name));
  const info = rigwright('info', ...written);
  assert.equal(info.status, 0, `${folder}: info exits 0 on what import wrote\n${info.stdout}\n${info.stderr}`);
  assert.doesNotMatch(info.stdout, /error:|fits nothing|unreadable/, `${folder}: every file is read`);
  const timesFiles = written.filter((file) => /-times-[^/]*\.dmat$/.test(file));
  assert.ok(timesFiles.length > 0, `${folder}: import wrote key times`);
  for (const file of written) {
    const about = block(info.stdout, file);
    if (/\.(dmat|mtl|png|jpe?g)$/.test(file)) assert.match(about, /\n {2}fits /, `${folder}: info says what ${file} fits:\n${about}`);
  }
  for (const file of timesFiles) {
    const times = dmatColumn(file);
    const poses = file.replace(/-times-([^/]*)$/, '-pose-$1');
    const about = block(info.stdout, file);
    assert.match(
      about,
      new RegExp(
        `could be the key times of a clip of ${times.length} frames?, ${escape(String(Number(times[0].toPrecision(6))))}–${escape(String(Number(times.at(-1)!.toPrecision(6))))} s`,
      ),
      about,
    );
    assert.match(about, new RegExp(`\n {2}fits ${escape(poses)} as key times`), `${file} goes with ${poses}:\n${about}`);
  }
  return { stdout: info.stdout, written };
}

test('info reads every file import writes from the shipped glTF samples and says what each fits', () => {
  const samples = [
    ['CesiumMan', 'CesiumMan.glb'],
    ['Fox', 'Fox.glb'],
    ['RiggedFigure', 'RiggedFigure.glb'],
    ['RiggedSimple', 'RiggedSimple.glb'],
    ['SimpleSkin', 'glTF/SimpleSkin.gltf'],
  ];
  for (const [folder, file] of samples) {
    const { stdout, written } = importAndDescribe(dataFile('gltf', folder, ...file.split('/')), folder);
    // The images import wrote are the materials' base colour images, and the library fits the OBJ that names it.
    for (const image of written.filter((f) => /\.(png|jpe?g)$/.test(f)))
      assert.match(block(stdout, image), /fits material "[^"]*" of .*\.mtl as its base colour image/, image);
    for (const library of written.filter((f) => f.endsWith('.mtl')))
      assert.match(block(stdout, library), /fits .*\.obj: its materials/, library);
  }
});

test('a clip keyed on whole seconds: its key times (0, 1, 2) are not refused as handles, and export --times takes them', async () => {
  // A stick of three vertices: the two at its foot on the root, the one at its top on the tip.
  const { doc, tip, acc } = twoJointSkinnedAsset('stick', {
    positions: [-0.2, 0, 0, 0.2, 0, 0, 0, 2, 0],
    joints: [0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0],
    weights: [1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0],
  });
  const sampler = doc
    .createAnimationSampler()
    .setInput(acc('SCALAR', Float32Array.from([0, 1, 2])))
    .setOutput(acc('VEC4', Float32Array.from([0, 0, 0, 1, 0, 0, Math.SQRT1_2, Math.SQRT1_2, 0, 0, 1, 0])))
    .setInterpolation('LINEAR');
  doc
    .createAnimation('bend')
    .addSampler(sampler)
    .addChannel(doc.createAnimationChannel().setTargetNode(tip).setTargetPath('rotation').setSampler(sampler));
  const source = path.join(work, 'stick.glb');
  writeFileSync(source, await new NodeIO().writeBinary(doc));

  const { stdout } = importAndDescribe(source, 'stick');
  const times = path.join(work, 'stick', 'stick-times-bend.dmat');
  assert.deepEqual(dmatColumn(times), [0, 1, 2]);
  // Whole numbers ≥ -1 in one column: handles in shape, which is said, but not checked against the mesh as if meant.
  assert.match(block(stdout, times), /could be handles for 3 vertices/);
  const files = (name: string) => path.join(work, 'stick', name);
  const exported = rigwright(
    'export',
    ...['--mesh', files('stick.obj'), '--skeleton', files('stick.tgf'), '--weights', files('stick-weights.dmat')],
    ...['--poses', files('stick-pose-bend.dmat'), '--times', times, '--out', path.join(work, 'stick-again.glb')],
  );
  assert.equal(exported.status, 0, exported.stderr);
  const again = await new NodeIO().read(path.join(work, 'stick-again.glb'));
  const input = again.getRoot().listAnimations()[0].listSamplers()[0].getInput()!;
  assert.deepEqual(Array.from(input.getArray() as Float32Array), [0, 1, 2], 'the clip is keyed at the times info said it fits');
});

test('the weights of a static mesh (rows of zeros, as import writes them) are weights with static vertices, not a file that fits nothing', async () => {
  const source = path.join(work, 'props.glb');
  writeFileSync(source, await propsAsset());
  const { stdout } = importAndDescribe(source, 'props');
  const weights = block(stdout, path.join(work, 'props', 'body-weights.dmat'));
  assert.match(weights, /could be skinning weights for 13 vertices × 2 bones/, weights);
  // The crate's four vertices: the asset's only mesh without a joint above it.
  assert.match(weights, /\n {2}4 vertices have no weight: static, they stay at rest/, weights);
  assert.doesNotMatch(weights, /warning/, weights);
});
