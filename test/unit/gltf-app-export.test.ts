/**
 * What the app's glTF export adds to gltf-export.ts: the influences its "as exported" preview skins with
 * (gltf-exported-influences.ts) are exactly what the file stores, and skinning baked as vertex animation
 * (gltf-skinning-bake.ts) validates, costs what vertexAnimationCost says, and replays glTF's own skinning (LBS)
 * or moves rigidly bound vertices like LBS (DQS).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebIO } from '@gltf-transform/core';
import { exportGltf, type GltfRig } from '../../workers/formats/gltf-export.ts';
import { importGltf } from '../../workers/formats/gltf-import.ts';
import { exportedInfluences, quantizationBound } from '../../workers/formats/gltf-exported-influences.ts';
import { bakeFrameCount, skinningVertexAnimation, type SkinningBake } from '../../workers/formats/gltf-skinning-bake.ts';
import { vertexAnimationCost } from '../../workers/formats/gltf-vertex-animation.ts';
import { boundingBox } from '../../workers/mesh/bounds.ts';
import { assertValidGltf, gltfPosedPositions, maxDistance } from './gltf-skinning-reference.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dataDir = process.env.RIGWRIGHT_DATA ?? path.resolve(repoRoot, '../shared/data');

async function cesiumMan(): Promise<GltfRig & { clips: NonNullable<GltfRig['clips']> }> {
  const file = path.join(dataDir, 'gltf', 'CesiumMan', 'CesiumMan.glb');
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(file);
  } catch {
    throw new Error(`shared data missing: ${file} (set RIGWRIGHT_DATA to the data folder)`);
  }
  const rig = await importGltf(bytes, 'CesiumMan.glb');
  return {
    mesh: rig.mesh,
    normals: rig.normals,
    skeleton: rig.skeleton,
    weights: rig.weights,
    boneNames: rig.boneNames,
    clips: rig.clips,
    name: 'CesiumMan',
  };
}

test('"as exported" influences are exactly the stored JOINTS_n / WEIGHTS_n, decoded', async () => {
  const rig = await cesiumMan();
  for (const component of ['unsigned-byte', 'unsigned-short', 'float'] as const) {
    const { bytes } = await exportGltf({ ...rig, clips: [] }, 'c.glb', { weightComponent: component });
    const primitive = (await new WebIO().readBinary(bytes)).getRoot().listMeshes()[0].listPrimitives()[0];
    const joints = primitive.getAttribute('JOINTS_0')!;
    const weights = primitive.getAttribute('WEIGHTS_0')!;
    const expected = exportedInfluences(rig.weights, 4, component);
    assert.equal(expected.stride, 4);
    for (let v = 0; v < expected.vertexCount; v++) {
      // getElement decodes normalized integers to value / 255 (or 65535), as engines do.
      const js: number[] = joints.getElement(v, []);
      const ws: number[] = weights.getElement(v, []);
      for (let k = 0; k < 4; k++) {
        assert.ok(
          Math.abs(ws[k] - expected.weights[4 * v + k]) <= 1e-7,
          `${component} vertex ${v} slot ${k}: ${ws[k]} vs ${expected.weights[4 * v + k]}`,
        );
        if (ws[k] > 0) assert.equal(js[k], expected.bones[4 * v + k]);
      }
    }
  }
  assert.equal(quantizationBound('unsigned-byte', 4, 2), 8 / 255);
});

test('a baked LBS clip validates, costs what was announced, and replays glTF skinning of the rotation clip', async () => {
  const rig = await cesiumMan();
  const poses = rig.clips[0].poses;
  const bake: SkinningBake = { name: 'walk baked', method: 'lbs', poses, influences: 4 };
  const frames = bakeFrameCount(poses, 30);
  assert.equal(frames, poses.kind === 'matrices' ? poses.frameCount : -1);
  const plain = await exportGltf(rig, 'c.glb');
  const baked = await exportGltf(
    { ...rig, vertexAnimations: [skinningVertexAnimation(rig.mesh.positions, rig.skeleton, rig.weights, bake, 30)] },
    'c.glb',
  );
  await assertValidGltf(baked.bytes, 'CesiumMan with a baked clip');
  const cost = vertexAnimationCost(rig.mesh.positions.length / 3, [frames]);
  const added = baked.bytes.length - plain.bytes.length;
  assert.ok(added >= cost.totalBytes && added <= cost.totalBytes + 64 * 1024, `added ${added} bytes, announced ${cost.totalBytes}`);

  const doc = await new WebIO().readBinary(baked.bytes);
  const targets = doc.getRoot().listMeshes()[0].listPrimitives()[0].listTargets();
  assert.equal(targets.length, frames);
  const bakeTimes = doc.getRoot().listAnimations()[1].listSamplers()[0].getInput()!;
  assert.deepEqual(
    Array.from({ length: bakeTimes.getCount() }, (_, k) => bakeTimes.getScalar(k)),
    Array.from(poses.kind === 'matrices' && poses.times ? poses.times : []),
  );
  const diagonal = boundingBox(rig.mesh.positions).diagonal;
  for (const f of [0, 17, frames - 1]) {
    const delta = targets[f].getAttribute('POSITION')!;
    const morphed = new Float64Array(rig.mesh.positions.length);
    for (let v = 0; v < morphed.length / 3; v++) {
      const d: number[] = delta.getElement(v, []);
      for (let c = 0; c < 3; c++) morphed[3 * v + c] = rig.mesh.positions[3 * v + c] + d[c];
    }
    // Frame f of the bake is the clip's key f, played at the clip's key time (CesiumMan keys at 24 fps).
    const skinned = gltfPosedPositions(doc, 0, poses.kind === 'matrices' && poses.times ? poses.times[f] : Number.NaN);
    assert.ok(maxDistance(morphed, skinned) <= 1e-4 * diagonal, `frame ${f}: ${maxDistance(morphed, skinned)}`);
  }
});

test('a DQS bake differs from LBS where bones blend and agrees where one bone holds a vertex', async () => {
  const rig = await cesiumMan();
  const poses = rig.clips[0].poses;
  const make = (method: 'lbs' | 'dqs') =>
    skinningVertexAnimation(rig.mesh.positions, rig.skeleton, rig.weights, { name: method, method, poses, influences: 4 }, 30);
  const lbs = new Float64Array(rig.mesh.positions.length);
  const dqs = new Float64Array(rig.mesh.positions.length);
  make('lbs').positionsAt(30, lbs);
  make('dqs').positionsAt(30, dqs);
  const { rows, cols, data } = rig.weights;
  const diagonal = boundingBox(rig.mesh.positions).diagonal;
  let blended = 0;
  let rigidCount = 0;
  for (let v = 0; v < rows; v++) {
    const d = Math.hypot(lbs[3 * v] - dqs[3 * v], lbs[3 * v + 1] - dqs[3 * v + 1], lbs[3 * v + 2] - dqs[3 * v + 2]);
    const rigid = Array.from(data.subarray(v * cols, (v + 1) * cols)).some((w) => w === 1);
    if (rigid) rigidCount++;
    if (rigid) assert.ok(d <= 1e-9 * diagonal, `vertex ${v} bound to one bone moves ${d} apart`);
    else if (d > 1e-6 * diagonal) blended++;
  }
  assert.ok(rigidCount > 0 && blended > 0, `${rigidCount} rigidly bound vertices, ${blended} where DQS and LBS differ`);
});
