/**
 * A clip whose joints scale (keys near 1, as some exporters write a scale of 1) keeps those scales through the files
 * `rigwright import` writes: NAME-scales-CLIP.dmat beside the pose file, and a fresh `rigwright export --scales`
 * writes them back as scale channels. The expectation is the source file evaluated by glTF's rules (Appendix C):
 * at every key each joint matrix G_j · IBM_j of the export is the source's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Document, WebIO, type Node as GltfNode } from '@gltf-transform/core';
import { elements, fileKeyTimes, mul, worldMatrices, type Mat } from './gltf-appendix-c.ts';
import { assertValidGltf } from './gltf-skinning-reference.ts';
import { repoRoot } from './shared-data.ts';

const work = mkdtempSync(path.join(tmpdir(), 'rigwright-clip-scales-'));

function rigwright(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ['app/cli/rigwright.mjs', ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 180_000 });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * A strip of 8 vertices along y on a chain of three joints (the middle one with a rest rotation), and one clip of
 * three keys: the middle joint turns about z, the root and the middle joint scale by near-1 factors.
 */
async function scaledChain(): Promise<Uint8Array> {
  const doc = new Document();
  const buffer = doc.createBuffer();
  const positions = new Float32Array([-0.1, 0, 0, 0.1, 0, 0, -0.1, 1, 0, 0.1, 1, 0, -0.1, 2, 0, 0.1, 2, 0, -0.1, 3, 0, 0.1, 3, 0]);
  const joints = new Uint16Array([0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 2, 0, 0, 1, 2, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0]);
  const weights = new Float32Array([
    1, 0, 0, 0, 1, 0, 0, 0, 0.5, 0.5, 0, 0, 0.5, 0.5, 0, 0, 0.5, 0.5, 0, 0, 0.5, 0.5, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0,
  ]);
  const indices = new Uint16Array([0, 1, 3, 0, 3, 2, 2, 3, 5, 2, 5, 4, 4, 5, 7, 4, 7, 6]);
  const accessor = (type: 'SCALAR' | 'VEC3' | 'VEC4' | 'MAT4', array: Float32Array | Uint16Array) =>
    doc.createAccessor().setType(type).setArray(array).setBuffer(buffer);
  const primitive = doc
    .createPrimitive()
    .setAttribute('POSITION', accessor('VEC3', positions))
    .setAttribute('JOINTS_0', accessor('VEC4', joints))
    .setAttribute('WEIGHTS_0', accessor('VEC4', weights))
    .setIndices(accessor('SCALAR', indices));
  const mesh = doc.createMesh('strip').addPrimitive(primitive);
  // The middle joint turns 90° about y at rest; its child is then 1 along its own y.
  const half = Math.SQRT1_2;
  const root = doc.createNode('root').setTranslation([0, 0, 0]);
  const middle = doc.createNode('middle').setTranslation([0, 1, 0]).setRotation([0, half, 0, half]);
  const tip = doc.createNode('tip').setTranslation([0, 1, 0]);
  root.addChild(middle);
  middle.addChild(tip);
  // IBM_j = inverse of each joint's rest world matrix (column-major).
  const ibm = new Float32Array(48);
  ibm.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1], 0);
  ibm.set([0, 0, 1, 0, 0, 1, 0, 0, -1, 0, 0, 0, 0, -1, 0, 1], 16);
  ibm.set([0, 0, 1, 0, 0, 1, 0, 0, -1, 0, 0, 0, 0, -2, 0, 1], 32);
  const skin = doc.createSkin('skin').addJoint(root).addJoint(middle).addJoint(tip).setInverseBindMatrices(accessor('MAT4', ibm));
  const meshNode = doc.createNode('strip').setMesh(mesh).setSkin(skin);
  doc.createScene('scene').addChild(root).addChild(meshNode);
  const times = accessor('SCALAR', new Float32Array([0, 0.5, 1]));
  const animation = doc.createAnimation('Bend');
  const channel = (node: GltfNode, targetPath: 'rotation' | 'scale', values: Float32Array): void => {
    const sampler = doc
      .createAnimationSampler()
      .setInput(times)
      .setOutput(accessor(targetPath === 'rotation' ? 'VEC4' : 'VEC3', values))
      .setInterpolation('LINEAR');
    animation
      .addSampler(sampler)
      .addChannel(doc.createAnimationChannel().setTargetNode(node).setTargetPath(targetPath).setSampler(sampler));
  };
  // middle: rest rotation, then rest · (30° about z), then rest · (60° about z)
  const turn = (degrees: number): number[] => {
    const h = (degrees * Math.PI) / 360;
    const [ax, ay, az, aw] = [0, half, 0, half];
    const [bx, by, bz, bw] = [0, 0, Math.sin(h), Math.cos(h)];
    return [
      aw * bx + ax * bw + ay * bz - az * by,
      aw * by - ax * bz + ay * bw + az * bx,
      aw * bz + ax * by - ay * bx + az * bw,
      aw * bw - ax * bx - ay * by - az * bz,
    ];
  };
  channel(middle, 'rotation', new Float32Array([...turn(0), ...turn(30), ...turn(60)]));
  const uniform = (...s: number[]): Float32Array => Float32Array.from(s.flatMap((k) => [k, k, k]));
  channel(root, 'scale', uniform(1, 1.00002, 0.99997));
  channel(middle, 'scale', uniform(0.99998, 1.00003, 1));
  return new WebIO().writeBinary(doc);
}

/** The largest difference of the joint matrices G_j · IBM_j at every key: linear entries, and translations over `size`. */
async function jointMatrixDistance(source: Document, exported: Document, size: number, clip = 0): Promise<number> {
  const joints = (doc: Document): { nodes: GltfNode[]; ibm: Mat[] } => {
    const skin = doc.getRoot().listSkins()[0];
    return { nodes: skin.listJoints(), ibm: elements(skin.getInverseBindMatrices()!) };
  };
  const a = joints(source);
  const b = joints(exported);
  // Joint k of the export is bone k, the source's joint k (import keeps the first skin's order).
  assert.equal(b.nodes.length, a.nodes.length, 'the export has a joint per source joint');
  let worst = 0;
  for (const t of fileKeyTimes(source, 0)) {
    const worldA = worldMatrices(source, 0, t);
    const worldB = worldMatrices(exported, clip, t);
    a.nodes.forEach((node, j) => {
      const p = mul(worldA.get(node)!, a.ibm[j]);
      const q = mul(worldB.get(b.nodes[j])!, b.ibm[j]);
      for (let i = 0; i < 15; i++) worst = Math.max(worst, Math.abs(p[i] - q[i]) / (i >= 12 ? size : 1));
    });
  }
  return worst;
}

test('import writes the joint scales of a clip keyed near 1, and a fresh export with --scales has the source joint matrices at every key', async () => {
  const file = path.join(work, 'chain.glb');
  const bytes = await scaledChain();
  writeFileSync(file, bytes);
  const dir = path.join(work, 'chain');
  const imported = rigwright('import', file, '--out-dir', dir);
  assert.equal(imported.status, 0, imported.stderr);
  const scalesFile = path.join(dir, 'strip-scales-Bend.dmat');
  assert.ok(existsSync(scalesFile), `import wrote ${scalesFile}: ${imported.stdout}`);
  // info says what the scales file fits: the pose file of as many frames, with the skeleton.
  const info = rigwright('info', path.join(dir, 'strip.tgf'), path.join(dir, 'strip-pose-Bend.dmat'), scalesFile);
  assert.equal(info.status, 0, info.stderr);
  assert.match(info.stdout, /could be joint scales for 9 bone-frames/);
  assert.match(info.stdout, /fits \S*strip-pose-Bend\.dmat as joint scales/);
  const translationsFile = path.join(dir, 'strip-translations-Bend.dmat');
  const common = [
    '--mesh',
    path.join(dir, 'strip.obj'),
    '--skeleton',
    path.join(dir, 'strip.tgf'),
    '--weights',
    path.join(dir, 'strip-weights.dmat'),
    '--poses',
    path.join(dir, 'strip-pose-Bend.dmat'),
    '--times',
    path.join(dir, 'strip-times-Bend.dmat'),
    ...(existsSync(translationsFile) ? ['--translations', translationsFile] : []),
  ];
  const source = await new WebIO().readBinary(bytes);
  // The strip is 3 long: its diagonal is about 3.
  const size = 3;

  const withScales = path.join(work, 'with-scales.glb');
  const run = rigwright('export', ...common, '--scales', scalesFile, '--out', withScales);
  assert.equal(run.status, 0, run.stderr);
  const written = new Uint8Array(readFileSync(withScales));
  await assertValidGltf(written, 'the chain exported with its scales');
  const kept = await jointMatrixDistance(source, await new WebIO().readBinary(written), size);
  // float32 keys and inverse bind matrices keep about 1e-7; the scales themselves are 2e-5 … 3e-5 away from 1.
  assert.ok(kept < 1e-6, `joint matrices ${kept} from the source's at its keys with --scales`);

  // Without the scales file the joints lose what the scales did: the check above can tell.
  const without = path.join(work, 'without-scales.glb');
  assert.equal(rigwright('export', ...common, '--out', without).status, 0, 'export without --scales');
  const lost = await jointMatrixDistance(source, await new WebIO().readBinary(readFileSync(without)), size);
  assert.ok(lost > 1e-5, `without --scales the joint matrices are ${lost} from the source's`);

  // In place: the pose files with their scales become a new clip beside the source's, posing as the source's does.
  const onBase = path.join(work, 'on-base.glb');
  const base = common.slice(common.indexOf('--poses'));
  const edited = rigwright(
    'export',
    '--base',
    file,
    '--skeleton',
    path.join(dir, 'strip.tgf'),
    ...base,
    '--scales',
    scalesFile,
    '--out',
    onBase,
  );
  assert.equal(edited.status, 0, edited.stderr);
  const inPlace = await new WebIO().readBinary(new Uint8Array(readFileSync(onBase)));
  assert.deepEqual(
    inPlace
      .getRoot()
      .listAnimations()
      .map((animation) => animation.getName()),
    ['Bend', 'strip-pose-Bend'],
  );
  const again = await jointMatrixDistance(source, inPlace, size, 1);
  assert.ok(again < 1e-6, `joint matrices of the clip written in place ${again} from the source's at its keys`);
  assert.doesNotMatch(edited.stderr, /get a scale channel/);
});

test('export --scales names the file and the shape when the scales do not fit the poses', () => {
  const dir = path.join(work, 'chain');
  const bad = path.join(work, 'bad-scales.dmat');
  writeFileSync(bad, '1 2\n1\n1\n');
  const run = rigwright(
    'export',
    '--mesh',
    path.join(dir, 'strip.obj'),
    '--skeleton',
    path.join(dir, 'strip.tgf'),
    '--weights',
    path.join(dir, 'strip-weights.dmat'),
    '--poses',
    path.join(dir, 'strip-pose-Bend.dmat'),
    '--scales',
    bad,
    '--out',
    path.join(work, 'bad.glb'),
  );
  assert.notEqual(run.status, 0, 'a scales file of the wrong shape is refused');
  assert.match(run.stderr, /bad-scales\.dmat/);
  assert.match(run.stderr, /joint scales are \d+ × 1/);
});
