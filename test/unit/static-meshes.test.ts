/**
 * Meshes without a skin, one rule everywhere: a mesh node with a joint above it follows that joint rigidly, one
 * without stays at rest. A generated asset has a skinned body, a static crate at the scene's root and a rigid sword
 * below the arm joint; glTF's own evaluation of it (node matrices from the clip's keys, Σ w (G · IBM) v for skinned
 * vertices, G_node v for the others) is the expectation that `rigwright skin`, the app's CPU reference of the
 * viewport, and the glTF a fresh export writes (from the app's scene, and from the files `rigwright import` wrote)
 * must meet at every key of the clip.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WebIO, type Document, type Node as GltfNode } from '@gltf-transform/core';
import { readRigFile } from '../../workers/formats/read-file.ts';
import { influencesFromWeights } from '../../workers/skinning/influences.ts';
import { CpuReference } from '../../renderer/deform/cpu-reference.ts';
import { PoseEvaluator } from '../../renderer/deform/pose-evaluator.ts';
import { exportSceneGltf, sceneFromFiles } from '../../renderer/scripting/headless-scene.ts';
import type { SceneDocument } from '../../workers/scene/scene-document.ts';
import { assertValidGltf } from './gltf-skinning-reference.ts';
import { gltfPosedByMesh, KEY_TIMES, propsAsset } from './props-asset.ts';
import { repoRoot } from './shared-data.ts';

const work = mkdtempSync(path.join(tmpdir(), 'rigwright-static-meshes-'));
/** float32 storage of positions, normals and matrices: a few ulps of the asset's size (about 4) */
const TOLERANCE = 1e-5;

function rigwright(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ['app/cli/rigwright.mjs', ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 120_000 });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The scene's #V × 3 positions cut into its meshes, by name. */
function byPart(doc: SceneDocument, positions: ArrayLike<number>): Map<string, number[]> {
  return new Map(
    doc.parts!.map((part) => [part.name, Array.from(positions).slice(3 * part.vertexStart, 3 * (part.vertexStart + part.vertexCount))]),
  );
}

function assertSamePlaces(got: Map<string, number[]>, expected: Map<string, number[]>, label: string): void {
  assert.deepEqual([...got.keys()].sort(), [...expected.keys()].sort(), `${label}: the meshes`);
  for (const [name, points] of expected) {
    const other = got.get(name)!;
    assert.equal(other.length, points.length, `${label}, ${name}: vertex count`);
    let worst = 0;
    for (let i = 0; i < points.length; i += 3)
      worst = Math.max(worst, Math.hypot(points[i] - other[i], points[i + 1] - other[i + 1], points[i + 2] - other[i + 2]));
    assert.ok(worst <= TOLERANCE, `${label}, ${name}: ${worst} away from glTF's posing`);
  }
}

test('a static crate and a rigid sword: rigwright skin, the app and both fresh exports pose them as glTF does at every key', async () => {
  const bytes = await propsAsset();
  const sourceFile = path.join(work, 'props.glb');
  writeFileSync(sourceFile, bytes);
  const source = await new WebIO().readBinary(bytes);
  const expected = KEY_TIMES.map((t) => gltfPosedByMesh(source, t));
  // The expectation itself: the crate never moves, the sword does.
  assert.deepEqual(expected[2].get('crate'), expected[0].get('crate'), 'glTF leaves the crate where it is');
  assert.notDeepEqual(expected[2].get('sword'), expected[0].get('sword'), 'glTF moves the sword with the arm');

  // The app: the glTF opened as File → Import opens it, posed by the viewport's CPU reference at each key.
  const scene = await sceneFromFiles([{ name: 'props.glb', bytes }]);
  assert.deepEqual(
    scene.parts!.map((part) => [part.name, part.skinned]),
    [
      ['body', true],
      ['crate', false],
      ['sword', false],
    ],
  );
  const influences = influencesFromWeights(scene.weights, 4);
  const reference = new CpuReference(scene, influences);
  KEY_TIMES.forEach((_, k) => {
    const pose = new PoseEvaluator(scene);
    pose.evaluate(k);
    const positions = reference.positions('lbs', pose, {
      antipodality: 'per-vertex',
      blendWeights: new Float32Array(influences.vertexCount),
      context: null,
    });
    assertSamePlaces(byPart(scene, positions), expected[k], `the app at key ${k}`);
  });

  // rigwright import says how each mesh moves; rigwright skin poses its files at each frame.
  const out = path.join(work, 'imported');
  const imported = rigwright('import', sourceFile, '--out-dir', out);
  assert.equal(imported.status, 0, imported.stderr);
  assert.match(imported.stdout, /mesh crate: vertices 6–9 \(unskinned, static: no joint above it, stays at rest\)/);
  assert.match(imported.stdout, /mesh sword: vertices 10–12 \(unskinned, rigid: follows joint arm\)/);
  const files = [
    '--mesh',
    path.join(out, 'body.obj'),
    '--skeleton',
    path.join(out, 'body.tgf'),
    '--weights',
    path.join(out, 'body-weights.dmat'),
  ];
  const clip = ['--poses', path.join(out, 'body-pose-wave.dmat'), '--translations', path.join(out, 'body-translations-wave.dmat')];
  KEY_TIMES.forEach((_, k) => {
    const posedFile = path.join(work, `posed-${k}.obj`);
    const skinned = rigwright('skin', ...files, ...clip, '--frame', String(k), '--out', posedFile);
    assert.equal(skinned.status, 0, skinned.stderr);
    const read = readRigFile(posedFile, readFileSync(posedFile));
    assert.equal(read.kind, 'mesh');
    if (read.kind === 'mesh') assertSamePlaces(byPart(scene, read.mesh.positions), expected[k], `rigwright skin at frame ${k}`);
  });

  // A fresh export of the app's scene (as from a scene that is not glTF): the crate at the root, the sword below the arm.
  const fresh = await exportSceneGltf({ ...scene, gltfSource: undefined }, 'fresh.glb', { format: 'glb' });
  await assertValidGltf(fresh.bytes, 'fresh.glb');
  const freshDoc = await new WebIO().readBinary(fresh.bytes);
  const named = (doc: Document, name: string): GltfNode =>
    doc
      .getRoot()
      .listNodes()
      .find((node) => node.getName() === name)!;
  for (const name of ['crate', 'sword']) {
    assert.equal(named(freshDoc, name).getSkin(), null, `fresh.glb: the ${name} has no skin`);
    assert.deepEqual(
      named(freshDoc, name).getMesh()!.listPrimitives()[0].listSemantics().sort(),
      ['NORMAL', 'POSITION'],
      `fresh.glb: ${name}`,
    );
  }
  assert.equal(named(freshDoc, 'crate').getParentNode(), null, 'fresh.glb: the crate is at the scene root');
  assert.equal(named(freshDoc, 'sword').getParentNode()?.getName(), 'arm', 'fresh.glb: the sword hangs below the arm');
  assert.ok(
    !fresh.warnings.some((w) => /no weight/.test(w)),
    `fresh.glb: no vertex is said to have no weight: ${fresh.warnings.join('; ')}`,
  );
  KEY_TIMES.forEach((t, k) => assertSamePlaces(gltfPosedByMesh(freshDoc, t), expected[k], `fresh.glb at key ${k}`));

  // A fresh export from the files rigwright import wrote: the crate without weight stays static and unskinned.
  const cliFile = path.join(work, 'from-files.glb');
  const exported = rigwright('export', ...files, ...clip, '--times', path.join(out, 'body-times-wave.dmat'), '--out', cliFile);
  assert.equal(exported.status, 0, exported.stderr);
  assert.doesNotMatch(exported.stderr, /no weight/, 'no vertex is bound to a bone it has no weight on');
  const cliBytes = readFileSync(cliFile);
  await assertValidGltf(cliBytes, 'from-files.glb');
  const cliDoc = await new WebIO().readBinary(cliBytes);
  assert.equal(named(cliDoc, 'crate').getSkin(), null, 'from-files.glb: the crate has no skin');
  KEY_TIMES.forEach((t, k) => assertSamePlaces(gltfPosedByMesh(cliDoc, t), expected[k], `from-files.glb at key ${k}`));
});
