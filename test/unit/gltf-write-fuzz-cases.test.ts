/**
 * Inputs on which the fuzzer's write formats (`npm run fuzz -- --format glb-write,gltf-write`) found the glTF writer
 * failing, rebuilt by hand from the shared files, and a short run of those formats. Each export must return a file
 * the reader reads back, or refuse with a clear error (a FormatError naming the output file and what overflowed):
 * - a rotation key of length 6e38, which the reader normalizes: the fresh export carried the file's curve as it was,
 *   and its keys became Infinity as float32; now the joint takes the general path and poses as read;
 * - a joint node 1e300 away (a double holds it): the fresh export keyed its translation as float32 Infinity, and an
 *   in-place export that turned a bone wrote infinite inverse bind matrices or a node translation JSON writes as null;
 * - a .gltf whose weights buffer an edit empties (SimpleSkin keeps its weights in a buffer of their own): written
 *   as `{}` without byteLength, which the reader refuses;
 * - `extensionsUsed` holding a number: the reader threw a TypeError instead of refusing the file;
 * - an OBJ of vertices without faces (a truncated file): the fresh export left its only mesh out and wrote a file of
 *   joints alone, with an empty buffer, which the reader refuses;
 * - a glTF without JOINTS_0 (read with every weight zero): the fresh export wrote its mesh unskinned, a file without a
 *   skinned mesh that the reader refuses; the no-op in-place export keeps the file's skin; likewise skinned parts
 *   without weights beside a prop held unskinned on one bone, refused saying to bind the mesh.
 * Also the fuzzer's own check of a no-op export (sameScene), on a read-back as read and on one changed.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import test from 'node:test';
import { FormatError } from '../../workers/formats/format-error.ts';
import { exportGltf } from '../../workers/formats/gltf-export.ts';
import { exportGltfInPlace } from '../../workers/formats/gltf-edit.ts';
import { importGltf, type GltfImportResult } from '../../workers/formats/gltf-import.ts';
import { parseGlb, writeGlb } from '../../workers/formats/gltf/glb.ts';
import { formatFailure, formatReport, runFuzz } from '../fuzz/harness.ts';
import { classifyError } from '../fuzz/outcome.ts';
import { nearestBoneWeights } from '../fuzz/obj-write-outcome.ts';
import { editOfRead, freshRigOfRead, sameScene, turnedSubtree } from '../fuzz/write-outcome.ts';
import { readObj } from '../../workers/formats/obj.ts';
import type { MeshPart } from '../../workers/formats/types.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { dataFile } from './shared-data.ts';

type Json = Record<string, unknown> & { accessors: Json[]; bufferViews: Json[] };

/** A shared GLB with what `edit` changes: its JSON, or accessor `a`'s element `i` set to `values` (float components). */
function glbWith(name: string, edit: (json: Json, setElement: (a: number, i: number, values: number[]) => void) => void): Uint8Array {
  const glb = new Uint8Array(readFileSync(dataFile('gltf', name, `${name}.glb`)));
  const { jsonBytes, bin } = parseGlb(glb, `${name}.glb`);
  const json = JSON.parse(new TextDecoder().decode(jsonBytes)) as Json;
  const data = Uint8Array.from(bin!);
  const view = new DataView(data.buffer);
  edit(json, (a, i, values) => {
    const accessor = json.accessors[a];
    const bufferView = json.bufferViews[accessor.bufferView as number];
    const stride = (bufferView.byteStride as number | undefined) ?? 4 * values.length;
    const at = ((bufferView.byteOffset as number | undefined) ?? 0) + ((accessor.byteOffset as number | undefined) ?? 0) + i * stride;
    values.forEach((v, c) => view.setFloat32(at + 4 * c, v, true));
  });
  return writeGlb(json, data);
}

/** Asserts that `run` refuses with a clear error (the fuzzer's rule) naming `file` and containing `names`. */
async function assertClearRefusal(run: () => Promise<unknown>, file: string, ...names: string[]): Promise<void> {
  let error: unknown = null;
  try {
    await run();
  } catch (caught) {
    error = caught;
  }
  assert.ok(error instanceof FormatError, `refused with a FormatError, not ${String(error)}`);
  assert.equal(classifyError(error, file).kind, 'clear error', `a clear error: ${error.message}`);
  for (const name of names) assert.ok(error.message.includes(name), `the message names ${name}: ${error.message}`);
}

/** The largest entry difference between two clips' rotations at every key (same bones, same keys). */
function rotationDifference(a: GltfImportResult['clips'][number], b: GltfImportResult['clips'][number]): number {
  assert.ok(a.poses.kind === 'matrices' && b.poses.kind === 'matrices', 'matrix clips');
  assert.equal(a.poses.rotations.length, b.poses.rotations.length, 'the same keys and bones');
  let worst = 0;
  for (let i = 0; i < a.poses.rotations.length; i++) worst = Math.max(worst, Math.abs(a.poses.rotations[i] - b.poses.rotations[i]));
  return worst;
}

test('fresh export: a rotation key of length 6e38, read normalized, is written so that the file reads back posing as read', async () => {
  // Accessor 16: one joint's rotation keys (LINEAR); key 5 becomes (3e38, 3e38, 3e38, 3e38), the rotation (½, ½, ½, ½).
  const bytes = glbWith('CesiumMan', (_, set) => set(16, 5, [3e38, 3e38, 3e38, 3e38]));
  const read = await importGltf(bytes, 'CesiumMan.glb');
  const clip = read.clips[0];
  assert.ok(clip.poses.kind === 'matrices', 'a matrix clip');
  const written = await exportGltf(freshRigOfRead(read), 'CesiumMan.out.glb');
  const back = await importGltf(written.bytes, 'CesiumMan.out.glb');
  assert.equal(back.clips.length, 1, 'the clip is written');
  // float32 keys: the rotations agree within float32 round-off at every key, key 5 included.
  const difference = rotationDifference(back.clips[0], clip);
  assert.ok(difference < 1e-5, `the written clip poses as read: ${difference}`);
});

/** Fox.glb with joint node b_LeftLeg02_016 (node 19) 1e300 along z: a double holds it, a float32 does not. */
async function foxFarAway(): Promise<GltfImportResult> {
  const glb = new Uint8Array(readFileSync(dataFile('gltf', 'Fox', 'Fox.glb')));
  const { jsonBytes, bin } = parseGlb(glb, 'Fox.glb');
  const json = JSON.parse(new TextDecoder().decode(jsonBytes)) as { nodes: { name: string; translation: number[] }[] };
  assert.equal(json.nodes[19].name, 'b_LeftLeg02_016', 'node 19 is the left leg joint');
  json.nodes[19].translation[2] = 1e300;
  return importGltf(writeGlb(json, bin!), 'Fox.glb');
}

test('a joint 1e300 away: the no-op in-place export is the file; a fresh export, whose keys hold it, is refused naming a clip', async () => {
  const read = await foxFarAway();
  // Nothing changed: the source's node and inverse bind matrices are written as they were.
  const same = await exportGltfInPlace(editOfRead(read), 'Fox.out.glb');
  const back = await importGltf(same.bytes, 'Fox.out.glb');
  assert.equal(back.mesh.positions.length, read.mesh.positions.length, 'the no-op export reads back with every vertex');
  // A fresh export keys each joint's translation from its parent (rest + t): 1e300 as float32 is Infinity.
  await assertClearRefusal(
    () => exportGltf(freshRigOfRead(read), 'Fox.out.glb'),
    'Fox.out.glb',
    'clip "Survey"',
    'not finite as a 32-bit float',
    'move the far joint nearer',
  );
});

test('a joint 1e300 away: turning a bone is refused naming the node placed past ±1.8e308 or the inverse bind matrices', async () => {
  const read = await foxFarAway();
  const turned = (name: string) => ({
    ...editOfRead(read),
    skeleton: turnedSubtree(read.skeleton, read.boneNames.indexOf(name), [0, 0, 1], 0.3),
  });
  // The leg turned about its head: the foot below the far joint gets a new local translation, 1e300 · 2 sin(0.15) off.
  await assertClearRefusal(
    () => exportGltfInPlace(turned('b_LeftLeg02_016'), 'Fox.out.glb'),
    'Fox.out.glb',
    'node "b_LeftFoot01_017"',
    'the joint is placed too far',
    'move the far joint nearer',
  );
  // The spine turned: the skin's bind frames change, and the far joint's inverse bind matrix is past float32.
  await assertClearRefusal(
    () => exportGltfInPlace(turned('b_Spine01_02'), 'Fox.out.glb'),
    'Fox.out.glb',
    'skin 0 inverse bind matrices',
    'beyond ±3.4e38',
  );
});

test('in-place export to .gltf: a buffer that edited weights empty is left out, every buffer has its bytes', async () => {
  // SimpleSkin keeps JOINTS_0 and WEIGHTS_0 in a buffer of their own; new weights replace both accessors.
  const source = new Uint8Array(readFileSync(dataFile('gltf', 'SimpleSkin', 'glTF-Embedded', 'SimpleSkin.gltf')));
  const read = await importGltf(source, 'SimpleSkin.gltf');
  const { rows, cols } = read.weights;
  const data = new Float64Array(rows * cols);
  // Every vertex weighted 0.25 / 0.75 between the two joints: weights the file does not have.
  for (let v = 0; v < rows; v++) data.set([0.25, 0.75], v * cols);
  for (const compression of ['none', 'draco'] as const) {
    const file = `SimpleSkin-${compression}.out.gltf`;
    const out = await exportGltfInPlace({ ...editOfRead(read), weights: { rows, cols, data } }, file, { format: 'gltf', compression });
    const json = JSON.parse(new TextDecoder().decode(out.bytes)) as { buffers: { uri?: string; byteLength?: number }[] };
    for (const [k, buffer] of json.buffers.entries()) {
      assert.ok((buffer.byteLength ?? 0) >= 1, `${file}: buffer ${k} has bytes: ${JSON.stringify(buffer)}`);
      assert.equal(out.resources[buffer.uri!]?.length, buffer.byteLength, `${file}: buffer ${k} is written`);
    }
    const back = await importGltf(out.bytes, file, out.resources);
    if (compression === 'none') {
      assert.equal(back.mesh.positions.length, read.mesh.positions.length, `${file}: every vertex read back`);
      let worst = 0;
      for (let i = 0; i < data.length; i++) worst = Math.max(worst, Math.abs(back.weights.data[i] - data[i]));
      assert.ok(worst < 1e-6, `${file}: the new weights read back (${worst})`);
    } else {
      // Draco may merge or reorder vertices but keeps every triangle; every vertex has the same new row, so each row
      // read back is (0.25, 0.75) within Draco's quantization of float weights (12 bits: 1.2e-4 per weight, the
      // importer's renormalization at most 2.4e-4 more: 3.7e-4, as in gltf-keep-draco.test.ts).
      assert.ok(back.mesh.positions.length > 0, `${file}: the compressed mesh reads back`);
      assert.equal(back.mesh.triangles.length, read.mesh.triangles.length, `${file}: every triangle read back`);
      assert.equal(back.weights.cols, cols, `${file}: both bones read back`);
      let worst = 0;
      for (let v = 0; v < back.weights.rows; v++)
        worst = Math.max(worst, Math.abs(back.weights.data[v * cols] - 0.25), Math.abs(back.weights.data[v * cols + 1] - 0.75));
      assert.ok(worst <= 3.7e-4, `${file}: the new weights read back within Draco's quantization (${worst})`);
    }
  }
});

test('glTF import: an extensionsUsed entry that is a number is refused clearly', async () => {
  const source = new Uint8Array(readFileSync(dataFile('gltf', 'SimpleSkin', 'glTF-Embedded', 'SimpleSkin.gltf')));
  const json = JSON.parse(new TextDecoder().decode(source)) as Record<string, unknown>;
  json.extensionsUsed = [-0.5];
  await assertClearRefusal(
    () => importGltf(new TextEncoder().encode(JSON.stringify(json)), 'SimpleSkin.gltf'),
    'SimpleSkin.gltf',
    '/extensionsUsed',
  );
});

test('fresh export: an OBJ of vertices without triangles is refused naming the mesh, where a file of joints alone was written', async () => {
  const { mesh } = readObj('v 0 0 0\nv 1 0 0\nv 0 1 0\n', 'points.obj');
  assert.equal(mesh.triangles.length, 0, 'no faces');
  const skeleton = buildSkeleton({ joints: Float64Array.of(0, 0, 0, 1, 0, 0, 2, 0, 0), bones: Uint32Array.of(0, 1, 1, 2) }, 'two.tgf');
  const rig = { mesh, skeleton, weights: nearestBoneWeights(mesh, skeleton) };
  await assertClearRefusal(
    () => exportGltf(rig, 'points.out.glb'),
    'points.out.glb',
    'no triangles',
    'only triangle meshes are written, so there is nothing to write',
  );
});

test('a glTF without joints: the no-op in-place export keeps its skin; a fresh export, with no weight to write, is refused', async () => {
  const source = new Uint8Array(readFileSync(dataFile('gltf', 'SimpleSkin', 'glTF-Embedded', 'SimpleSkin.gltf')));
  const json = JSON.parse(new TextDecoder().decode(source)) as { meshes: { primitives: { attributes: Record<string, number> }[] }[] };
  delete json.meshes[0].primitives[0].attributes.JOINTS_0;
  const read = await importGltf(new TextEncoder().encode(JSON.stringify(json)), 'SimpleSkin.gltf');
  assert.ok(
    read.weights.data.every((w) => w === 0),
    'every weight is zero',
  );
  const same = await exportGltfInPlace(editOfRead(read), 'SimpleSkin.out.gltf', { format: 'gltf' });
  const back = await importGltf(same.bytes, 'SimpleSkin.out.gltf', same.resources);
  assert.equal(back.mesh.positions.length, read.mesh.positions.length, 'the no-op export reads back with every vertex');
  await assertClearRefusal(() => exportGltf(freshRigOfRead(read), 'SimpleSkin.out.glb'), 'SimpleSkin.out.glb', 'no vertex has a weight');
});

test('fresh export: skinned parts without weights and a prop held unskinned on one bone are refused, saying to bind the mesh', async () => {
  // Two triangles, one per part: the body (skinned, no weight) and a prop the scene holds unskinned on bone 0.
  const { mesh } = readObj('v 0 0 0\nv 1 0 0\nv 0 1 0\nv 2 0 0\nv 3 0 0\nv 2 1 0\nf 1 2 3\nf 4 5 6\n', 'two.obj');
  const skeleton = buildSkeleton({ joints: Float64Array.of(0, 0, 0, 1, 0, 0, 2, 0, 0), bones: Uint32Array.of(0, 1, 1, 2) }, 'two.tgf');
  const part = (name: string, k: number, skinned: boolean): MeshPart => ({
    name,
    vertexStart: 3 * k,
    vertexCount: 3,
    triangleStart: k,
    triangleCount: 1,
    material: -1,
    source: null,
    skinned,
  });
  const data = new Float64Array(6 * 2);
  for (const v of [3, 4, 5]) data[2 * v] = 1;
  const rig = { mesh, skeleton, weights: { rows: 6, cols: 2, data }, parts: [part('body', 0, true), part('prop', 1, false)] };
  await assertClearRefusal(
    () => exportGltf(rig, 'two.out.glb'),
    'two.out.glb',
    'weights',
    'the skinned meshes have no weights (only meshes held unskinned follow a bone)',
    'bind the mesh first',
  );
  // The prop skinned instead: it is written on the skin, and the file reads back.
  const written = await exportGltf({ ...rig, parts: [part('body', 0, true), part('prop', 1, true)] }, 'two.out.glb');
  const back = await importGltf(written.bytes, 'two.out.glb');
  assert.equal(back.mesh.triangles.length, 6, 'both triangles read back');
});

test("the write fuzzer's no-op check: CesiumMan saved again unchanged reads back the same; a changed name, position or weight is named", async () => {
  const source = new Uint8Array(readFileSync(dataFile('gltf', 'CesiumMan', 'CesiumMan.glb')));
  const read = await importGltf(source, 'CesiumMan.glb');
  const out = await exportGltfInPlace(editOfRead(read), 'CesiumMan.out.glb', { format: 'glb' });
  const back = await importGltf(out.bytes, 'CesiumMan.out.glb', out.resources);
  assert.equal(sameScene(back, read), '', 'the no-op export reads back as read');
  assert.ok(read.clips.length > 0 && read.boneNames.length > 1, 'CesiumMan has clips and bones');
  const renamed = [...back.boneNames];
  renamed[1] += 'x';
  assert.match(sameScene({ ...back, boneNames: renamed }, read), /^bones /, 'a renamed bone is named');
  const clips = back.clips.map((clip, k) => (k === 0 ? { ...clip, name: `${clip.name}x` } : clip));
  assert.match(sameScene({ ...back, clips }, read), /^clips /, 'a renamed clip is named');
  assert.match(sameScene({ ...back, clips: back.clips.slice(1) }, read), /^clips /, 'a lost clip is named');
  let extent = 0;
  for (const x of read.mesh.positions) extent = Math.max(extent, Math.abs(x));
  // Float32 round-off passes (2 ulps at the mesh's extent); 1e-5 of the extent does not.
  for (const [nudge, passes] of [
    [2 * 2 ** -23 * extent, true],
    [1e-5 * extent, false],
  ] as const) {
    const positions = Float64Array.from(back.mesh.positions);
    positions[7] += nudge;
    const problem = sameScene({ ...back, mesh: { ...back.mesh, positions } }, read);
    assert.equal(problem === '', passes, `position moved by ${nudge}: ${problem}`);
    if (!passes) assert.match(problem, /^position 7 \(vertex 2\)/, 'the moved position is named');
  }
  for (const [nudge, passes] of [
    [5e-7, true],
    [2e-6, false],
  ] as const) {
    const data = Float64Array.from(back.weights.data);
    const i = data.findIndex((w) => w > 0.1);
    data[i] -= nudge;
    const problem = sameScene({ ...back, weights: { ...back.weights, data } }, read);
    assert.equal(problem === '', passes, `weight moved by ${nudge}: ${problem}`);
  }
  // A vertex read without weight (weights not valid glTF) that reads back fully on one bone: only as the notice says.
  const { cols } = read.weights;
  const v = Array.from({ length: read.weights.rows }, (_, k) => k).find((k) =>
    back.weights.data.subarray(k * cols, (k + 1) * cols).includes(1),
  );
  assert.ok(v !== undefined, 'CesiumMan has a vertex fully on one bone');
  const unweighted = Float64Array.from(read.weights.data).fill(0, v * cols, (v + 1) * cols);
  const readUnweighted = { ...read, weights: { ...read.weights, data: unweighted } };
  const notice = (n: number): string =>
    `${n} vertices of skinned meshes have no weight; glTF needs weights that sum to 1, so they are bound fully to their skin's first joint`;
  assert.match(sameScene(back, readUnweighted), new RegExp(`^weight of vertex ${v}, `), 'bound without a notice: named');
  assert.equal(sameScene(back, readUnweighted, [notice(1)]), '', 'bound as the notice says');
  assert.match(
    sameScene(back, readUnweighted, [notice(2)]),
    /^1 vertices read without weight .* says 2/,
    'a count other than the notice’s',
  );
});

test('fuzz: 150 inputs per write format end in files read back or clear errors (GLB and glTF three exports each, OBJ one)', async () => {
  const count = 150;
  const formats = ['glb-write', 'gltf-write', 'obj-write'] as const;
  const report = await runFuzz({ count, formats: [...formats], seed: 15, timeoutMs: 20000 });
  process.stdout.write(`${formatReport(report)}\n`);
  for (const format of formats) {
    const tally = report.counts.get(format)!;
    const total = [...tally.values()].reduce((a, b) => a + b, 0);
    assert.equal(total, count, `${format}: every input ended somehow`);
    const exports = report.exports.get(format);
    assert.ok(exports && exports.written > 0, `${format}: some exports were written and read back`);
    const perScene = format === 'obj-write' ? 1 : 3;
    const refused = exports.refused['no-op'] + exports.refused.edit + exports.refused.fresh;
    assert.equal(exports.written + refused, perScene * (tally.get('result') ?? 0), `${format}: ${perScene} exports per scene read`);
    assert.equal(exports.refused['no-op'], 0, `${format}: no file the reader accepted is refused saving again unchanged`);
  }
  assert.deepEqual(report.failures.map(formatFailure), [], 'inputs whose writes ended otherwise than in a file read back or a clear error');
});
