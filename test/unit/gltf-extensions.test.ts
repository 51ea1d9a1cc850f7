/**
 * glTF extensions on import (workers/formats/gltf-extensions.ts): Draco- and meshopt-compressed CesiumMan made here
 * with glTF-Transform import and pose like the original within what the compression can change; required
 * extensions that only concern appearance are kept, ones that change geometry and are not read refuse the file
 * naming the extension; KHR_animation_pointer channels on node TRS are read like ordinary channels; `rigwright export
 * --compress` writes valid compressed files that re-import within the quantization bound.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { NodeIO, type Document } from '@gltf-transform/core';
import { EXTMeshoptCompression, KHRDracoMeshCompression } from '@gltf-transform/extensions';
import draco3d from 'draco3dgltf';
import { MeshoptEncoder } from 'meshoptimizer/encoder';
import { FormatError } from '../../workers/formats/format-error.ts';
import { requiredExtensionHandling } from '../../workers/formats/gltf-extensions.ts';
import { importGltf, type GltfImportResult } from '../../workers/formats/gltf-import.ts';
import { gltfJson } from '../../workers/formats/gltf-resource-uris.ts';
import { boundingBox } from '../../workers/mesh/bounds.ts';
import { poseForwardKinematics } from '../../workers/rig/forward-kinematics.ts';
import type { PoseSequence } from '../../workers/rig/pose-sequence.ts';
import { influencesFromWeights } from '../../workers/skinning/influences.ts';
import { linearBlendSkinning } from '../../workers/skinning/linear-blend-skinning.ts';
import { assertValidGltf } from './gltf-skinning-reference.ts';
import { armRigOptions, dataFile, repoRoot } from './shared-data.ts';

const cesiumMan = (): Uint8Array => readFileSync(dataFile('gltf', 'CesiumMan', 'CesiumMan.glb'));

async function encoderIO(): Promise<NodeIO> {
  await MeshoptEncoder.ready;
  return new NodeIO()
    .registerExtensions([KHRDracoMeshCompression, EXTMeshoptCompression])
    .registerDependencies({ 'draco3d.encoder': await draco3d.createEncoderModule(), 'meshopt.encoder': MeshoptEncoder });
}

/** The file's JSON `extensionsRequired`, read without glTF-Transform. */
function requiredOf(bytes: Uint8Array): string[] {
  return (gltfJson(bytes, 'x') as { extensionsRequired?: string[] }).extensionsRequired ?? [];
}

/** Bone transforms (#B × 12, rest → posed) and posed positions by LBS with every weight of the rig, at frame f. */
function posed(rig: GltfImportResult, clip: number, frame: number): { transforms: Float64Array; positions: Float64Array } {
  const boneCount = rig.skeleton.parents.length;
  const transforms = new Float64Array(12 * boneCount);
  poseForwardKinematics(
    rig.skeleton,
    rig.clips[clip].poses,
    frame,
    new Float64Array(9 * boneCount),
    new Float64Array(3 * boneCount),
    transforms,
  );
  const positions = new Float64Array(rig.mesh.positions.length);
  linearBlendSkinning(rig.mesh.positions, influencesFromWeights(rig.weights, 0), transforms, positions);
  return { transforms, positions };
}

/** Largest extent over the axes of a POSITION accessor's box, read from the original document (mesh space). */
function positionRange(doc: Document): number {
  const position = doc.getRoot().listMeshes()[0].listPrimitives()[0].getAttribute('POSITION')!;
  const min = position.getMin([]);
  const max = position.getMax([]);
  return Math.max(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
}

/** Largest extent over the components of a WEIGHTS_0 accessor. */
function weightRange(doc: Document): number {
  const weights = doc.getRoot().listMeshes()[0].listPrimitives()[0].getAttribute('WEIGHTS_0')!;
  let lo = Infinity,
    hi = -Infinity;
  for (let i = 0; i < weights.getCount(); i++) {
    for (const w of weights.getElement(i, [])) {
      lo = Math.min(lo, w);
      hi = Math.max(hi, w);
    }
  }
  return hi - lo;
}

/** Each triangle rotated to start at its smallest index (winding kept). */
function canonicalTriangles(triangles: Uint32Array): Uint32Array {
  const out = new Uint32Array(triangles.length);
  for (let f = 0; f < triangles.length; f += 3) {
    const a = triangles[f],
      b = triangles[f + 1],
      c = triangles[f + 2];
    out.set(a <= b && a <= c ? [a, b, c] : b <= c ? [b, c, a] : [c, a, b], f);
  }
  return out;
}

function rotationsOf(poses: PoseSequence): Float64Array {
  if (poses.kind !== 'matrices') throw new Error('the clip is not rotation matrices');
  return poses.rotations;
}

function maxDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  assert.equal(a.length, b.length);
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  return worst;
}

/** Largest |ratio − 1| of triangle edge lengths between two meshes with the same triangles. */
function edgeLengthChange(a: Float64Array, b: Float64Array, triangles: Uint32Array): number {
  let worst = 0;
  for (let f = 0; f < triangles.length; f += 3) {
    for (let k = 0; k < 3; k++) {
      const i = 3 * triangles[f + k],
        j = 3 * triangles[f + ((k + 1) % 3)];
      const la = Math.hypot(a[i] - a[j], a[i + 1] - a[j + 1], a[i + 2] - a[j + 2]);
      const lb = Math.hypot(b[i] - b[j], b[i + 1] - b[j + 1], b[i + 2] - b[j + 2]);
      if (la > 0) worst = Math.max(worst, Math.abs(lb / la - 1));
    }
  }
  return worst;
}

test('Draco-compressed CesiumMan (made here) imports and poses like the original within the quantization bound', async () => {
  const io = await encoderIO();
  const original = cesiumMan();
  const doc = await io.readBinary(original);
  const meshSpace = doc.getRoot().listMeshes()[0].listPrimitives()[0].getAttribute('POSITION')!.getArray()! as Float32Array;
  const rangeP = positionRange(doc);
  const rangeW = weightRange(doc);
  // Sequential encoding keeps the vertex order, so vertices compare one to one. Default bits: POSITION 14, and
  // WEIGHTS_0 is a generic attribute, 12.
  doc
    .createExtension(KHRDracoMeshCompression)
    .setRequired(true)
    .setEncoderOptions({ method: KHRDracoMeshCompression.EncoderMethod.SEQUENTIAL });
  const compressed = await io.writeBinary(doc);
  assert.deepEqual(requiredOf(compressed), ['KHR_draco_mesh_compression']);
  const accessors = (gltfJson(compressed, 'x') as { accessors: { bufferView?: number }[] }).accessors;
  assert.ok(
    accessors.filter((a) => a.bufferView === undefined).length >= 5,
    'the mesh attributes and indices live in the Draco stream only',
  );

  const rig = await importGltf(original, 'CesiumMan.glb');
  const decoded = await importGltf(compressed, 'CesiumMan-draco.glb');
  assert.deepEqual(decoded.warnings, rig.warnings);
  assert.equal(decoded.mesh.positions.length, rig.mesh.positions.length);
  assert.deepEqual(decoded.mesh.triangles, rig.mesh.triangles);
  assert.deepEqual(decoded.boneNames, rig.boneNames);

  // The bound. Draco quantizes each component to q bits over the attribute's range r (the box's largest extent):
  // step r / (2^q − 1), rounding to nearest, so a component moves by at most step / 2 and a point by
  // √3 / 2 · step. The importer maps mesh space to the world by the rest root joint matrix C; C preserves every
  // edge length of this mesh (checked below), so it is an isometry and the bound carries over unchanged.
  assert.ok(edgeLengthChange(Float64Array.from(meshSpace), rig.mesh.positions, rig.mesh.triangles) < 1e-6, 'C is an isometry');
  const positionBound = (Math.sqrt(3) / 2) * (rangeP / (2 ** 14 - 1));
  let restError = 0;
  for (let i = 0; i < rig.mesh.positions.length; i += 3) {
    const p = rig.mesh.positions,
      q = decoded.mesh.positions;
    restError = Math.max(restError, Math.hypot(p[i] - q[i], p[i + 1] - q[i + 1], p[i + 2] - q[i + 2]));
  }
  assert.ok(restError <= positionBound, `rest positions move by ${restError}, bound ${positionBound}`);
  assert.ok(restError > positionBound / 100, 'the positions really were quantized');

  // Posed: p = Σ w_j A_j x. With rigid A_j and weights w' ≥ 0 summing to 1 after import,
  //   p' − p = Σ w'_j A_j (x' − x) + Σ (w'_j − w_j) (A_j x − p),
  // the second form because Σ (w'_j − w_j) = 0. So |p' − p| ≤ |x' − x| + Σ |w'_j − w_j| · max_j |A_j x − p|. Four
  // weights each off by at most e = r_w / (2 (2^12 − 1)), then divided by their sum s ∈ [1 − 4e, 1 + 4e], give
  // Σ |w'_j − w_j| ≤ 8e / (1 − 4e); the skinning rounds weights to float32, 2^-24 relative, in each rig.
  const e = rangeW / (2 * (2 ** 12 - 1));
  const weightBound = (8 * e) / (1 - 4 * e) + 2 ** -23;
  const boneCount = rig.skeleton.parents.length;
  const clip = rig.clips[0];
  assert.equal(decoded.clips.length, 1);
  // Draco leaves the animation as it is; glTF-Transform rewrites the root's matrix as TRS, hence round-off.
  assert.ok(maxDifference(rotationsOf(decoded.clips[0].poses), rotationsOf(clip.poses)) < 1e-12, 'the clip is the original');
  const frameCount = clip.poses.kind === 'matrices' ? clip.poses.frameCount : 1;
  let worstRatio = 0;
  for (let f = 0; f < frameCount; f += 5) {
    const a = posed(rig, 0, f);
    const b = posed(decoded, 0, f);
    for (let v = 0; v < rig.mesh.positions.length / 3; v++) {
      const x = rig.mesh.positions.subarray(3 * v, 3 * v + 3);
      const p = a.positions.subarray(3 * v, 3 * v + 3);
      let spread = 0;
      for (let j = 0; j < boneCount; j++) {
        if (rig.weights.data[v * boneCount + j] === 0 && decoded.weights.data[v * boneCount + j] === 0) continue;
        const T = a.transforms.subarray(12 * j, 12 * j + 12);
        const ax = [0, 1, 2].map((r) => T[4 * r] * x[0] + T[4 * r + 1] * x[1] + T[4 * r + 2] * x[2] + T[4 * r + 3]);
        spread = Math.max(spread, Math.hypot(ax[0] - p[0], ax[1] - p[1], ax[2] - p[2]));
      }
      const bound = positionBound + weightBound * spread;
      const q = b.positions.subarray(3 * v, 3 * v + 3);
      const error = Math.hypot(q[0] - p[0], q[1] - p[1], q[2] - p[2]);
      assert.ok(error <= bound, `frame ${f} vertex ${v}: posed ${error} apart, bound ${bound}`);
      worstRatio = Math.max(worstRatio, error / bound);
    }
  }
  assert.ok(worstRatio > 0.01, `the bound is not vacuous (largest error / bound: ${worstRatio})`);
});

test('meshopt-compressed CesiumMan (made here) imports like the original: the codec is lossless without filters', async () => {
  const io = await encoderIO();
  const original = cesiumMan();
  const doc = await io.readBinary(original);
  // The QUANTIZE method applies no filter (filters are the lossy part); the vertex and index codecs are lossless,
  // so the bound is zero up to the round-off of node transforms that glTF-Transform rewrites (matrix → TRS).
  doc.createExtension(EXTMeshoptCompression).setRequired(true).setEncoderOptions({ method: EXTMeshoptCompression.EncoderMethod.QUANTIZE });
  const compressed = await io.writeBinary(doc);
  assert.deepEqual(requiredOf(compressed), ['EXT_meshopt_compression']);
  const views = (gltfJson(compressed, 'x') as { bufferViews: { extensions?: Record<string, unknown> }[] }).bufferViews;
  assert.ok(views.filter((v) => v.extensions?.EXT_meshopt_compression).length >= 5, 'buffer views are meshopt-compressed');

  const rig = await importGltf(original, 'CesiumMan.glb');
  const decoded = await importGltf(compressed, 'CesiumMan-meshopt.glb');
  assert.deepEqual(decoded.warnings, rig.warnings);
  // The index codec may rotate a triangle's corners (same winding), nothing more.
  assert.deepEqual(canonicalTriangles(decoded.mesh.triangles), canonicalTriangles(rig.mesh.triangles));
  assert.deepEqual(decoded.weights, rig.weights);
  const diagonal = boundingBox(rig.mesh.positions).diagonal;
  const frameCount = rig.clips[0].poses.kind === 'matrices' ? rig.clips[0].poses.frameCount : 1;
  for (let f = 0; f < frameCount; f += 7) {
    const a = posed(rig, 0, f).positions;
    const b = posed(decoded, 0, f).positions;
    let worst = 0;
    for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
    assert.ok(worst <= 1e-12 * diagonal, `frame ${f}: ${worst} apart`);
  }
});

/** SimpleSkin (glTF JSON with embedded buffers), changed by `edit`, as bytes. */
function simpleSkin(edit: (json: Record<string, unknown> & { animations: { channels: Record<string, unknown>[] }[] }) => void): Uint8Array {
  const json = JSON.parse(readFileSync(dataFile('gltf', 'SimpleSkin', 'glTF-Embedded', 'SimpleSkin.gltf'), 'utf8')) as Parameters<
    typeof edit
  >[0];
  edit(json);
  return new TextEncoder().encode(JSON.stringify(json));
}

test('a file requiring KHR_materials_unlit (and a material extension nobody reads yet) imports like the plain file', async () => {
  const plain = await importGltf(
    simpleSkin(() => {}),
    'SimpleSkin.gltf',
  );
  const unlit = simpleSkin((json) => {
    json.extensionsUsed = ['KHR_materials_unlit', 'KHR_texture_transform'];
    json.extensionsRequired = ['KHR_materials_unlit', 'KHR_texture_transform'];
    json.materials = [{ name: 'flat', extensions: { KHR_materials_unlit: {} } }];
    (json.meshes as { primitives: { material?: number }[] }[])[0].primitives[0].material = 0;
  });
  const rig = await importGltf(unlit, 'unlit.gltf');
  assert.deepEqual(rig.mesh, plain.mesh);
  assert.deepEqual(rig.weights, plain.weights);
  assert.deepEqual(rig.clips, plain.clips);
  assert.deepEqual(rig.warnings, plain.warnings);

  const future = simpleSkin((json) => {
    json.extensionsUsed = ['KHR_materials_sparkle'];
    json.extensionsRequired = ['KHR_materials_sparkle'];
  });
  const kept = await importGltf(future, 'future.gltf');
  assert.deepEqual(kept.mesh, plain.mesh);
  assert.ok(
    kept.warnings.some((w) => w.includes('KHR_materials_sparkle') && /appearance/.test(w)),
    `a notice names the unread extension: ${kept.warnings.join(' | ')}`,
  );
});

test('a file requiring a geometry extension Rigwright does not read is refused, naming the extension and the file', async () => {
  for (const name of ['EXT_mesh_ultra_codec', 'EXT_mesh_gpu_instancing', 'KHR_mesh_primitive_restart']) {
    const bytes = simpleSkin((json) => {
      json.extensionsUsed = ['KHR_materials_unlit', name];
      json.extensionsRequired = ['KHR_materials_unlit', name];
    });
    await assert.rejects(importGltf(bytes, 'needs-it.gltf'), (error: unknown) => {
      assert.ok(error instanceof FormatError, String(error));
      assert.match(error.message, new RegExp(`^needs-it\\.gltf: extensionsRequired: .*${name}`));
      return true;
    });
  }
  // The same extensions, only used (not required), do not refuse the file: it must load without them.
  const optional = simpleSkin((json) => {
    json.extensionsUsed = ['EXT_mesh_ultra_codec'];
  });
  assert.equal((await importGltf(optional, 'optional.gltf')).mesh.positions.length, 30);
  // The rule's table: appearance kept, compression read, unknown refused.
  assert.equal(requiredExtensionHandling('KHR_materials_clearcoat'), 'kept');
  assert.equal(requiredExtensionHandling('KHR_draco_mesh_compression'), 'read');
  assert.equal(requiredExtensionHandling('EXT_mesh_ultra_codec'), undefined);
});

test('KHR_animation_pointer channels on node TRS read like ordinary channels; other pointers are named in a notice', async () => {
  const plain = await importGltf(
    simpleSkin(() => {}),
    'SimpleSkin.gltf',
  );
  const pointered = simpleSkin((json) => {
    json.extensionsUsed = ['KHR_animation_pointer'];
    json.materials = [{ name: 'skin' }];
    const animation = json.animations[0] as { name?: string; channels: { sampler: number; target: Record<string, unknown> }[] };
    animation.name = 'Bend';
    const channel = animation.channels[0];
    const { node, path } = channel.target as { node: number; path: string };
    channel.target = { path: 'pointer', extensions: { KHR_animation_pointer: { pointer: `/nodes/${node}/${path}` } } };
    // The same VEC4 sampler driving a material colour: not a bone, so left out with a notice.
    animation.channels.push({
      sampler: 0,
      target: { path: 'pointer', extensions: { KHR_animation_pointer: { pointer: '/materials/0/pbrMetallicRoughness/baseColorFactor' } } },
    });
  });
  const rig = await importGltf(pointered, 'pointer.gltf');
  assert.equal(rig.clips.length, 1);
  assert.equal(rig.clips[0].name, 'Bend');
  assert.deepEqual(rig.clips[0].poses, plain.clips[0].poses, 'the pointer channel animates the joint as the plain file does');
  const notice = rig.warnings.find((w) => w.includes('KHR_animation_pointer'));
  assert.ok(notice, rig.warnings.join(' | '));
  assert.match(
    notice,
    /animation "Bend": 1 KHR_animation_pointer channel left out of the clip \(\/materials\/0\/pbrMetallicRoughness\/baseColorFactor\)/,
  );
});

function rigwright(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ['app/cli/rigwright.mjs', ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 120_000 });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

test('rigwright export --compress draco|meshopt: valid, required, and re-imports like the plain export within the bound', async () => {
  const work = mkdtempSync(path.join(tmpdir(), 'rigwright-compress-'));
  const inputs = armRigOptions();
  // Integer weights pass Draco unquantized, so only positions move.
  const outputs: Record<string, Uint8Array> = {};
  for (const compress of ['none', 'draco', 'meshopt']) {
    const out = path.join(work, `arm-${compress}.glb`);
    const run = rigwright('export', ...inputs, '--weight-type', 'unsigned-short', '--compress', compress, '--out', out);
    assert.equal(run.status, 0, run.stderr);
    outputs[compress] = readFileSync(out);
    await assertValidGltf(outputs[compress], `arm exported with --compress ${compress}`);
  }
  assert.deepEqual(requiredOf(outputs.none), []);
  assert.deepEqual(requiredOf(outputs.draco), ['KHR_draco_mesh_compression']);
  assert.deepEqual(requiredOf(outputs.meshopt), ['EXT_meshopt_compression']);
  assert.ok(outputs.draco.length < outputs.none.length / 2, `Draco: ${outputs.draco.length} of ${outputs.none.length} bytes`);

  const plain = await importGltf(outputs.none, 'arm-none.glb');
  const meshopt = await importGltf(outputs.meshopt, 'arm-meshopt.glb');
  assert.deepEqual(meshopt.mesh.positions, plain.mesh.positions);
  assert.deepEqual(meshopt.weights, plain.weights);
  assert.deepEqual(canonicalTriangles(meshopt.mesh.triangles), canonicalTriangles(plain.mesh.triangles));

  const draco = await importGltf(outputs.draco, 'arm-draco.glb');
  assert.deepEqual(draco.weights, plain.weights, 'integer weights are exact');
  assert.deepEqual(canonicalTriangles(draco.mesh.triangles), canonicalTriangles(plain.mesh.triangles), 'same vertex order');
  // 14-bit positions over the POSITION box's largest extent (the file's own min/max; our export writes the mesh in
  // world space under an identity root, so the import's positions are the file's): |x' − x| ≤ √3 / 2 · r / (2^14 − 1).
  const json = gltfJson(outputs.draco, 'arm-draco.glb') as {
    accessors: { min?: number[]; max?: number[] }[];
    meshes: { primitives: { attributes: { POSITION: number } }[] }[];
  };
  const box = json.accessors[json.meshes[0].primitives[0].attributes.POSITION];
  const range = Math.max(...box.max!.map((hi, k) => hi - box.min![k]));
  const bound = (Math.sqrt(3) / 2) * (range / (2 ** 14 - 1));
  let worst = 0;
  for (let i = 0; i < plain.mesh.positions.length; i += 3) {
    const p = plain.mesh.positions,
      q = draco.mesh.positions;
    worst = Math.max(worst, Math.hypot(p[i] - q[i], p[i + 1] - q[i + 1], p[i + 2] - q[i + 2]));
  }
  assert.ok(worst <= bound && worst > bound / 100, `positions moved by ${worst}, bound ${bound}`);
});
