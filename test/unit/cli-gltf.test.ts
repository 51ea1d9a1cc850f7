/**
 * `rigwright export` and `rigwright import`, run as users run them: the arm exported to glTF with a pose file and
 * imported back must give files that pose like the originals (our FK + LBS on both sides); the Fox's walk, root
 * motion included, survives import → skin / export as glTF's own evaluation of the file has it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readRigFile } from '../../workers/formats/read-file.ts';
import { writeDmatAscii } from '../../workers/formats/dmat.ts';
import { poseSequenceFromDmat, poseSequenceToDmat } from '../../workers/formats/pose-file.ts';
import type { DenseMatrix, TgfSkeleton, TriangleMesh } from '../../workers/formats/types.ts';
import { buildSkeleton, type Skeleton } from '../../workers/rig/skeleton.ts';
import { forwardKinematics } from '../../workers/rig/forward-kinematics.ts';
import { samplePose, type PoseSequence } from '../../workers/rig/pose-sequence.ts';
import { influencesFromWeights } from '../../workers/skinning/influences.ts';
import { linearBlendSkinning } from '../../workers/skinning/linear-blend-skinning.ts';
import { boundingBox } from '../../workers/mesh/bounds.ts';
import { NodeIO } from '@gltf-transform/core';
import { assertValidGltf, gltfPosedPositions, maxDistance } from './gltf-skinning-reference.ts';
import { png } from './png-file.ts';
import { repoRoot, dataFile } from './shared-data.ts';

const work = mkdtempSync(path.join(tmpdir(), 'rigwright-cli-gltf-'));

function rigwright(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ['app/cli/rigwright.mjs', ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 120_000 });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function read<K extends 'mesh' | 'skeleton' | 'matrix'>(
  file: string,
  kind: K,
): K extends 'mesh' ? TriangleMesh : K extends 'skeleton' ? TgfSkeleton : DenseMatrix {
  const got = readRigFile(file, readFileSync(file));
  assert.equal(got.kind, kind, file);
  return (got.kind === 'mesh' ? got.mesh : got.kind === 'skeleton' ? got.skeleton : got.matrix) as never;
}

function posed(mesh: TriangleMesh, skeleton: Skeleton, weights: DenseMatrix, poses: PoseSequence, frame: number): Float64Array {
  const boneCount = skeleton.parents.length;
  const rotations = new Float64Array(9 * boneCount);
  const transforms = new Float64Array(12 * boneCount);
  samplePose(poses, frame, rotations);
  forwardKinematics(skeleton, rotations, transforms);
  const out = new Float64Array(mesh.positions.length);
  linearBlendSkinning(mesh.positions, influencesFromWeights(weights, 4), transforms, out);
  return out;
}

test('rigwright export then import: the round trip through files poses like the originals', async () => {
  const meshFile = dataFile('libigl', 'arm.obj');
  const skeletonFile = dataFile('libigl', 'arm.tgf');
  const weightsFile = dataFile('libigl', 'arm-weights.dmat');
  const skeleton = buildSkeleton(read(skeletonFile, 'skeleton'), 'arm.tgf');
  const boneCount = skeleton.parents.length;
  const frameCount = 8;
  const rotations = new Float64Array(9 * boneCount * frameCount);
  for (let f = 0; f < frameCount; f++) {
    for (let b = 0; b < boneCount; b++) {
      const a = 0.5 * Math.sin(f + b);
      rotations.set([Math.cos(a), 0, Math.sin(a), 0, 1, 0, -Math.sin(a), 0, Math.cos(a)], 9 * (f * boneCount + b));
    }
  }
  const posesFile = path.join(work, 'wave.dmat');
  writeFileSync(posesFile, writeDmatAscii(poseSequenceToDmat({ kind: 'matrices', boneCount, frameCount, rotations })));

  for (const out of ['arm.glb', 'arm.gltf']) {
    const target = path.join(work, out);
    const exported = rigwright(
      'export',
      '--mesh',
      meshFile,
      '--skeleton',
      skeletonFile,
      '--weights',
      weightsFile,
      '--poses',
      posesFile,
      '--out',
      target,
    );
    assert.equal(exported.status, 0, exported.stderr);
    assert.match(exported.stdout, /8311 vertices, 4 joints, 1 animation, up to 4 influences per vertex \(float weights\)/);
    const resources: Record<string, Uint8Array> = {};
    if (out.endsWith('.gltf')) resources['arm.bin'] = readFileSync(path.join(work, 'arm.bin'));
    await assertValidGltf(readFileSync(target), out, resources);

    const outDir = path.join(work, `imported-${out}`);
    const imported = rigwright('import', target, '--out-dir', outDir);
    assert.equal(imported.status, 0, imported.stderr);
    assert.deepEqual(readdirSync(outDir).sort(), [
      'arm-pose-wave.dmat',
      'arm-times-wave.dmat',
      'arm-weights.dmat',
      'arm.names',
      'arm.obj',
      'arm.tgf',
    ]);
    const mesh = read(path.join(outDir, 'arm.obj'), 'mesh');
    const back = buildSkeleton(read(path.join(outDir, 'arm.tgf'), 'skeleton'), 'arm.tgf');
    const weights = read(path.join(outDir, 'arm-weights.dmat'), 'matrix');
    const poses = poseSequenceFromDmat(read(path.join(outDir, 'arm-pose-wave.dmat'), 'matrix'), boneCount, 'arm-pose-wave.dmat');
    // The clip's key times: a pose file's frames were written at 30 fps (float32 key times in the file).
    const keyTimes = read(path.join(outDir, 'arm-times-wave.dmat'), 'matrix');
    assert.equal(keyTimes.rows, poses.kind === 'matrices' ? poses.frameCount : -1);
    keyTimes.data.forEach((t, f) => assert.equal(t, Math.fround(f / 30), `key ${f}`));
    const originalMesh = read(meshFile, 'mesh');
    const originalWeights = read(weightsFile, 'matrix');
    const originalPoses = poseSequenceFromDmat(read(posesFile, 'matrix'), boneCount, 'wave.dmat');
    const diagonal = boundingBox(originalMesh.positions).diagonal;
    for (const f of [0, 3, 7]) {
      const error =
        maxDistance(posed(mesh, back, weights, poses, f), posed(originalMesh, skeleton, originalWeights, originalPoses, f)) / diagonal;
      assert.ok(error < 1e-4, `${out} frame ${f}: off by ${error} of the diagonal`);
    }
  }
});

test('rigwright export --influences takes 1 … 8, as the app’s max influences: each vertex keeps that many, one joint set up to four', async () => {
  const args = [
    '--mesh',
    dataFile('libigl', 'arm.obj'),
    '--skeleton',
    dataFile('libigl', 'arm.tgf'),
    '--weights',
    dataFile('libigl', 'arm-weights.dmat'),
  ];
  const weights = read(dataFile('libigl', 'arm-weights.dmat'), 'matrix');
  for (const k of [1, 2, 3, 6]) {
    const out = path.join(work, `arm-k${k}.glb`);
    const exported = rigwright('export', ...args, '--influences', String(k), '--out', out);
    assert.equal(exported.status, 0, exported.stderr);
    assert.match(exported.stdout, new RegExp(`up to ${k} influences per vertex`));
    const document = await new NodeIO().readBinary(readFileSync(out));
    const primitive = document.getRoot().listMeshes()[0].listPrimitives()[0];
    // The arm has four bones: no vertex keeps more than four, so six writes one set too.
    assert.deepEqual(
      primitive.listSemantics().filter((name) => name.startsWith('JOINTS_')),
      ['JOINTS_0'],
      `K = ${k}`,
    );
    const stored = primitive.getAttribute('WEIGHTS_0')!.getArray() as Float32Array;
    let most = 0;
    for (let v = 0; v < stored.length / 4; v++)
      most = Math.max(most, Array.from(stored.subarray(4 * v, 4 * v + 4)).filter((w) => w > 0).length);
    // By hand: the most non-zero weights a row of the file has, capped at K.
    let fileMost = 0;
    for (let v = 0; v < weights.rows; v++)
      fileMost = Math.max(
        fileMost,
        Array.from(weights.data.subarray(v * weights.cols, (v + 1) * weights.cols)).filter((w) => w !== 0).length,
      );
    assert.equal(most, Math.min(k, fileMost), `K = ${k}: the most weights a vertex keeps in the file`);
  }
});

test('rigwright export/import: bad command lines exit 2, bad files exit 1, without stack traces', () => {
  for (const influences of ['9', '0', '2.5', 'all']) {
    const bad = rigwright(
      'export',
      '--mesh',
      'a.obj',
      '--skeleton',
      'a.tgf',
      '--weights',
      'w.dmat',
      '--influences',
      influences,
      '--out',
      'x.glb',
    );
    assert.equal(bad.status, 2, influences);
    assert.equal(bad.stderr.trim().split('\n')[0], `rigwright: --influences must be a whole number from 1 to 8, not "${influences}"`);
  }
  // --compress is checked the same way fresh and with --base, against the write step's own list.
  for (const args of [
    ['--mesh', 'a.obj', '--skeleton', 'a.tgf', '--weights', 'w.dmat'],
    ['--base', 'b.glb'],
  ]) {
    const bad = rigwright('export', ...args, '--compress', 'zip', '--out', 'x.glb');
    assert.equal(bad.status, 2, args.join(' '));
    assert.equal(bad.stderr.trim().split('\n')[0], 'rigwright: --compress must be none, draco, meshopt; not "zip"', args.join(' '));
  }
  const wrongOut = rigwright('export', '--mesh', 'a.obj', '--skeleton', 'a.tgf', '--weights', 'w.dmat', '--out', 'x.fbx');
  assert.equal(wrongOut.status, 2);
  assert.match(wrongOut.stderr, /--out must end in \.glb or \.gltf/);
  const timesAlone = rigwright(
    'export',
    '--mesh',
    'a.obj',
    '--skeleton',
    'a.tgf',
    '--weights',
    'w.dmat',
    '--times',
    'k.dmat',
    '--out',
    'x.glb',
  );
  assert.equal(timesAlone.status, 2);
  assert.match(timesAlone.stderr, /--translations and --times apply with --poses only/);
  const junk = path.join(work, 'junk.glb');
  writeFileSync(junk, 'glTF but not really');
  const missing = rigwright('import', junk, '--out-dir', path.join(work, 'never'));
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /junk\.glb/);
  assert.doesNotMatch(missing.stderr, /^\s+at /m);
});

test('rigwright import of a walk with root motion writes its translations; skin and export take them back', async () => {
  const fox = dataFile('gltf', 'Fox', 'Fox.glb');
  const outDir = path.join(work, 'fox');
  const imported = rigwright('import', fox, '--out-dir', outDir);
  assert.equal(imported.status, 0, imported.stderr);
  // Six of the fox's bones start away from their parent's end: TGF gets a connector bone for each.
  assert.match(imported.stderr, /6 bones start away from their parent's end .*connector bone from its parent's end \(bones 24–29/);
  const files = readdirSync(outDir);
  const walkPoses = files.find((f) => /-pose-Walk\.dmat$/.test(f));
  const walkTranslations = files.find((f) => /-translations-Walk\.dmat$/.test(f));
  assert.ok(walkPoses && walkTranslations, files.join(', '));
  const base = walkPoses.replace(/-pose-Walk\.dmat$/, '');
  const meshFile = path.join(outDir, `${base}.obj`);
  const args = [
    '--mesh',
    meshFile,
    '--skeleton',
    path.join(outDir, `${base}.tgf`),
    '--weights',
    path.join(outDir, `${base}-weights.dmat`),
    '--poses',
    path.join(outDir, walkPoses),
  ];
  const translations = ['--translations', path.join(outDir, walkTranslations)];

  // The posed mesh at frame 12 (the pose files hold one frame per key of the clip) is where glTF's own evaluation of
  // the file (every channel) puts it at the clip's key 12.
  const doc = await new NodeIO().read(fox);
  const animations = doc.getRoot().listAnimations();
  const walk = animations.findIndex((a) => a.getName() === 'Walk');
  const keyTime = animations[walk].listSamplers()[0].getInput()!.getScalar(12);
  const reference = gltfPosedPositions(doc, walk, keyTime);
  const diagonal = boundingBox(read(meshFile, 'mesh').positions).diagonal;
  const posedFile = path.join(work, 'fox-walk-12.obj');
  const skinned = rigwright('skin', ...args, ...translations, '--frame', '12', '--out', posedFile);
  assert.equal(skinned.status, 0, skinned.stderr);
  const error = maxDistance(read(posedFile, 'mesh').positions, reference) / diagonal;
  assert.ok(error < 1e-4, `skinned with translations: off by ${error} of the diagonal`);
  // Without them the root motion is missing.
  assert.equal(rigwright('skin', ...args, '--frame', '12', '--out', posedFile).status, 0);
  assert.ok(maxDistance(read(posedFile, 'mesh').positions, reference) / diagonal > 1e-2, 'the walk moves the root');

  const exported = path.join(work, 'fox-again.glb');
  const again = rigwright('export', ...args, ...translations, '--out', exported);
  assert.equal(again.status, 0, again.stderr);
  await assertValidGltf(readFileSync(exported), 'fox-again.glb');
  const againDoc = await new NodeIO().read(exported);
  // A pose DMAT has no key times: its export plays frame f at f / 30 s.
  const errorAgain = maxDistance(gltfPosedPositions(againDoc, 0, 12 / 30), reference) / diagonal;
  assert.ok(errorAgain < 1e-4, `re-exported with translations: off by ${errorAgain} of the diagonal`);

  const wrong = rigwright('skin', ...args, '--translations', path.join(outDir, `${base}-weights.dmat`), '--frame', '0', '--out', posedFile);
  assert.equal(wrong.status, 1);
  assert.match(wrong.stderr, /weights\.dmat: translations for 30 bones × \d+ frames are \d+ × 3, not 1728 × 30/);
});

test('rigwright export --mesh A.obj keeps its objects, vt and mtllib materials with their images, as the app does', async () => {
  const dir = mkdtempSync(path.join(work, 'obj-materials-'));
  mkdirSync(path.join(dir, 'tex'));
  const texels = Uint8Array.of(255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 0, 255);
  const image = png(2, 2, texels);
  writeFileSync(path.join(dir, 'tex', 'skin.png'), image);
  const vt = [
    [0, 0],
    [1, 0],
    [1, 1],
    [0, 1],
  ];
  writeFileSync(
    path.join(dir, 'a.obj'),
    [
      'mtllib a.mtl',
      'o body',
      'v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0',
      ...vt.map(([u, v]) => `vt ${u} ${v}`),
      'usemtl skin',
      'f 1/1 2/2 3/3\nf 1/1 3/3 4/4',
      'o hat',
      'v 0 2 0\nv 1 2 0\nv 1 3 0',
      'usemtl felt',
      'f 5 6 7',
      '',
    ].join('\n'),
  );
  // The image path as Windows exporters write it, under a folder next to the library.
  writeFileSync(path.join(dir, 'a.mtl'), 'newmtl skin\nKd 0.8 0.6 0.5\nmap_Kd tex\\skin.png\nnewmtl felt\nKd 0.2 0.2 0.6\nd 0.5\n');
  writeFileSync(path.join(dir, 's.tgf'), '1 0 0 0\n2 0 2 0\n3 0 3 0\n#\n1 2\n2 3\n');
  const weights = new Float64Array(7 * 2);
  for (let v = 0; v < 7; v++) weights[v * 2 + (v < 4 ? 0 : 1)] = 1;
  writeFileSync(path.join(dir, 'w.dmat'), writeDmatAscii({ rows: 7, cols: 2, data: weights }));
  const out = path.join(dir, 'a.glb');
  const exportArgs = [
    'export',
    '--mesh',
    path.join(dir, 'a.obj'),
    '--skeleton',
    path.join(dir, 's.tgf'),
    '--weights',
    path.join(dir, 'w.dmat'),
    '--out',
    out,
  ];
  const run = rigwright(...exportArgs);
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stderr, '');
  assert.match(run.stdout, /7 vertices in 2 meshes, 2 materials, 2 joints/);
  const bytes = new Uint8Array(readFileSync(out));
  await assertValidGltf(bytes, 'an OBJ with materials exported by the CLI');
  const doc = await new NodeIO().readBinary(bytes);
  const meshes = doc.getRoot().listMeshes();
  assert.equal(meshes.length, 2);
  assert.equal(doc.getRoot().listSkins().length, 1);
  const [body, hat] = meshes.map((mesh) => mesh.listPrimitives()[0]);
  assert.equal(body.getMaterial()?.getName(), 'skin');
  assert.deepEqual(Buffer.from(body.getMaterial()!.getBaseColorTexture()!.getImage()!), Buffer.from(image), 'the PNG as it is');
  assert.equal(hat.getMaterial()?.getName(), 'felt');
  assert.equal(hat.getMaterial()?.getAlphaMode(), 'BLEND');
  assert.deepEqual(
    Array.from(hat.getMaterial()!.getBaseColorFactor(), (c) => Math.fround(c)),
    Array.from(Float32Array.of(0.2, 0.2, 0.6, 0.5)),
  );
  // Each written vertex's texture coordinate is an OBJ vt with v flipped (glTF's origin is top left).
  const uv = body.getAttribute('TEXCOORD_0')!;
  const position = body.getAttribute('POSITION')!;
  // The body's OBJ vertex k sits at the corners (0,0) (1,0) (1,1) (0,1) and uses vt k.
  const corners = [
    [0, 0],
    [1, 0],
    [1, 1],
    [0, 1],
  ];
  assert.equal(uv.getCount(), 4);
  for (let i = 0; i < uv.getCount(); i++) {
    const [x, y] = position.getElement(i, [0, 0, 0]);
    const k = corners.findIndex(([cx, cy]) => cx === x && cy === y);
    assert.ok(k >= 0, `vertex ${i} at (${x}, ${y})`);
    assert.deepEqual(uv.getElement(i, [0, 0]), [vt[k][0], 1 - vt[k][1]], `vertex ${i}`);
  }
  assert.equal(hat.getAttribute('TEXCOORD_0'), null, 'the hat has no vt');

  // Without its image the material keeps its colour, and the warning names the image.
  rmSync(path.join(dir, 'tex', 'skin.png'));
  const bare = rigwright(...exportArgs);
  assert.equal(bare.status, 0, bare.stderr);
  assert.match(bare.stderr, /material 'skin': its image 'tex\\skin\.png' was not among the files opened/);
});

test('rigwright import writes the materials as an MTL library with the images; export --mesh of that OBJ gives the texture and UVs back bit for bit', async () => {
  const dir = mkdtempSync(path.join(work, 'import-materials-'));
  const source = dataFile('gltf', 'CesiumMan', 'CesiumMan.glb');
  const imported = rigwright('import', source, '--out-dir', dir);
  assert.equal(imported.status, 0, imported.stderr);
  const original = await new NodeIO().read(source);
  const originalPrimitive = original.getRoot().listMeshes()[0].listPrimitives()[0];
  const originalImage = originalPrimitive.getMaterial()!.getBaseColorTexture()!.getImage()!;
  const base = 'Cesium_Man';
  const library = readFileSync(path.join(dir, `${base}.mtl`), 'utf8');
  assert.match(library, /^newmtl Cesium_Man-effect\nKd 1 1 1\nmap_Kd Cesium_Man-texture-0\.jpg\n/);
  assert.deepEqual(Buffer.from(readFileSync(path.join(dir, `${base}-texture-0.jpg`))), Buffer.from(originalImage));
  // After the comment line that names the source (imported-source.ts).
  assert.match(
    readFileSync(path.join(dir, `${base}.obj`), 'utf8'),
    /^# imported from "[^"\n]*CesiumMan\.glb"\nmtllib Cesium_Man\.mtl\n[\s\S]*\nusemtl Cesium_Man-effect\nf /,
  );

  const out = path.join(dir, 'again.glb');
  const exported = rigwright(
    'export',
    '--mesh',
    path.join(dir, `${base}.obj`),
    '--skeleton',
    path.join(dir, `${base}.tgf`),
    '--weights',
    path.join(dir, `${base}-weights.dmat`),
    '--out',
    out,
  );
  assert.equal(exported.status, 0, exported.stderr);
  const bytes = new Uint8Array(readFileSync(out));
  await assertValidGltf(bytes, 'CesiumMan through import and export --mesh');
  const again = (await new NodeIO().readBinary(bytes)).getRoot().listMeshes()[0].listPrimitives()[0];
  assert.deepEqual(Buffer.from(again.getMaterial()!.getBaseColorTexture()!.getImage()!), Buffer.from(originalImage));
  assert.deepEqual(
    Array.from(again.getAttribute('TEXCOORD_0')!.getArray() as Float32Array),
    Array.from(originalPrimitive.getAttribute('TEXCOORD_0')!.getArray() as Float32Array),
  );

  // What MTL cannot say is a warning naming the material: a colour tinting the image, an alpha cutoff, an image
  // type other than PNG or JPEG (written as it is, under its own extension).
  const material = originalPrimitive.getMaterial()!;
  material.setBaseColorFactor([0.5, 0.25, 1, 1]).setAlphaMode('MASK');
  material.getBaseColorTexture()!.setMimeType('image/webp');
  const changed = path.join(dir, 'changed.glb');
  writeFileSync(changed, await new NodeIO().writeBinary(original));
  const warned = rigwright('import', changed, '--out-dir', path.join(dir, 'changed'));
  assert.equal(warned.status, 0, warned.stderr);
  const warnings = warned.stderr.split('\n').filter((line) => line.includes('.mtl: '));
  assert.deepEqual(warnings, [
    "rigwright: warning: Cesium_Man.mtl: material 'Cesium_Man-effect': its image is image/webp; most OBJ readers read PNG and JPEG only",
    "rigwright: warning: Cesium_Man.mtl: material 'Cesium_Man-effect': its colour (0.5, 0.25, 1) tints its image in glTF; OBJ readers take the image alone",
    "rigwright: warning: Cesium_Man.mtl: material 'Cesium_Man-effect': MTL cannot say its alpha cutoff; it is left out",
  ]);
  assert.match(readFileSync(path.join(dir, 'changed', `${base}.mtl`), 'utf8'), /\nmap_Kd Cesium_Man-texture-0\.webp\n/);
  assert.deepEqual(Buffer.from(readFileSync(path.join(dir, 'changed', `${base}-texture-0.webp`))), Buffer.from(originalImage));
});
