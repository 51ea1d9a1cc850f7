/**
 * glTF export and import. Expected values come from our CPU rig (forward kinematics + linear blend skinning on
 * the original data) and from glTF's own skinning math evaluated independently in gltf-skinning-reference.ts;
 * every file we write must pass the Khronos validator with no errors and no warnings.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Document, NodeIO, WebIO } from '@gltf-transform/core';
import { readObj } from '../../workers/formats/obj.ts';
import { readOff } from '../../workers/formats/off.ts';
import { readTgf } from '../../workers/formats/tgf.ts';
import { readDmat } from '../../workers/formats/dmat.ts';
import { FormatError } from '../../workers/formats/format-error.ts';
import { poseSequenceFromDmat, poseSequenceToDmat } from '../../workers/formats/pose-file.ts';
import { exportGltf, type GltfRig } from '../../workers/formats/gltf-export.ts';
import { importGltf, type GltfImportResult } from '../../workers/formats/gltf-import.ts';
import { gltfResources } from '../../workers/formats/gltf-resource-uris.ts';
import { quantizeSkinWeights } from '../../workers/formats/gltf-skin-weights.ts';
import { vertexAnimationCost } from '../../workers/formats/gltf-vertex-animation.ts';
import type { DenseMatrix } from '../../workers/formats/types.ts';
import { buildSkeleton, type Skeleton } from '../../workers/rig/skeleton.ts';
import { forwardKinematics, poseForwardKinematics, posedJointPositions } from '../../workers/rig/forward-kinematics.ts';
import { frameAtSeconds, samplePose, type PoseSequence } from '../../workers/rig/pose-sequence.ts';
import { influencesFromWeights } from '../../workers/skinning/influences.ts';
import { linearBlendSkinning } from '../../workers/skinning/linear-blend-skinning.ts';
import { dualQuaternionSkinning } from '../../workers/skinning/dual-quaternion-skinning.ts';
import { dualQuatsFromRigidMatrices } from '../../workers/math/dual-quaternion.ts';
import { boneDistanceWeights } from '../../workers/weights/bone-distance-weights.ts';
import { boundingBox } from '../../workers/mesh/bounds.ts';
import { vertexNormals } from '../../workers/mesh/vertex-normals.ts';
import { assertValidGltf, gltfNodeWorldPosition, gltfPosedPositions, maxDistance } from './gltf-skinning-reference.ts';
import { dataFile } from './shared-data.ts';
import { axisAngleMatrix } from './rotation-matrix.ts';

const TOLERANCE = 1e-4;

/** Posed positions by our CPU rig: FK of the skeleton at `time` of `poses`, then LBS with `influences` per vertex. */
function cpuPosed(
  rest: Float64Array,
  skeleton: Skeleton,
  weights: DenseMatrix,
  poses: PoseSequence,
  time: number,
  influences = 4,
): Float64Array {
  const boneCount = skeleton.parents.length;
  const transforms = new Float64Array(12 * boneCount);
  poseForwardKinematics(skeleton, poses, time, new Float64Array(9 * boneCount), new Float64Array(3 * boneCount), transforms);
  const out = new Float64Array(rest.length);
  linearBlendSkinning(rest, influencesFromWeights(weights, influences), transforms, out);
  return out;
}

function importedPosed(rig: GltfImportResult, clip: number, frame: number, influences = 4): Float64Array {
  return cpuPosed(rig.mesh.positions, rig.skeleton, rig.weights, rig.clips[clip].poses, frame, influences);
}

/** Seconds of frame f of an imported clip: its key time (clips keep the file's key times). */
function keyTime(rig: GltfImportResult, clip: number, frame: number): number {
  const poses = rig.clips[clip].poses;
  assert.ok(poses.kind === 'matrices' && poses.times, `clip ${clip} has key times`);
  return poses.times[frame];
}

function loadArm(): { rig: GltfRig; poses: PoseSequence } {
  const mesh = readObj(readFileSync(dataFile('libigl', 'arm.obj'), 'utf8'), 'arm.obj').mesh;
  const skeleton = buildSkeleton(readTgf(readFileSync(dataFile('libigl', 'arm.tgf'), 'utf8'), 'arm.tgf'), 'arm.tgf');
  const weights = readDmat(readFileSync(dataFile('libigl', 'arm-weights.dmat')), 'arm-weights.dmat');
  const boneCount = skeleton.parents.length;
  // A generated pose file: 12 frames, each bone swinging about its own tilted axis.
  const frameCount = 12;
  const rotations = new Float64Array(9 * boneCount * frameCount);
  for (let f = 0; f < frameCount; f++) {
    for (let b = 0; b < boneCount; b++) {
      const angle = 0.7 * Math.sin((2 * Math.PI * f) / frameCount + b);
      const axis = [Math.sin(b), Math.cos(b), 0.5];
      const n = Math.hypot(...axis);
      rotations.set(
        axisAngleMatrix(
          axis.map((a) => a / n),
          angle,
        ),
        9 * (f * boneCount + b),
      );
    }
  }
  const generated = poseSequenceToDmat({ kind: 'matrices', boneCount, frameCount, rotations });
  const poses = poseSequenceFromDmat(generated, boneCount, 'arm-pose.dmat');
  return { rig: { mesh, skeleton, weights, clips: [{ name: 'swing', poses }], name: 'arm' }, poses };
}

function loadHand(): { rig: GltfRig; matrices: PoseSequence; quaternions: PoseSequence } {
  const mesh = readOff(readFileSync(dataFile('hand', 'hand.off'), 'utf8'), 'hand.off').mesh;
  const skeleton = buildSkeleton(readTgf(readFileSync(dataFile('hand', 'hand.tgf'), 'utf8'), 'hand.tgf'), 'hand.tgf');
  const boneCount = skeleton.parents.length;
  const matrices = poseSequenceFromDmat(
    readDmat(readFileSync(dataFile('hand', 'hand-pose_matrot.dmat')), 'm'),
    boneCount,
    'hand-pose_matrot.dmat',
  );
  const quaternions = poseSequenceFromDmat(
    readDmat(readFileSync(dataFile('hand', 'hand-pose_quat.dmat')), 'q'),
    boneCount,
    'hand-pose_quat.dmat',
  );
  const weights = boneDistanceWeights(mesh.positions, skeleton);
  return {
    rig: {
      mesh,
      skeleton,
      weights,
      clips: [
        { name: 'matrot', poses: matrices },
        { name: 'quat', poses: quaternions },
      ],
      name: 'hand',
    },
    matrices,
    quaternions,
  };
}

test('quantized weights sum exactly to one and keep the four largest', () => {
  const vertexCount = 500;
  const boneCount = 9;
  const weights: DenseMatrix = { rows: vertexCount, cols: boneCount, data: new Float64Array(vertexCount * boneCount) };
  let seed = 7;
  const random = (): number => (seed = (seed * 16807) % 2147483647) / 2147483647;
  for (let i = 0; i < weights.data.length; i++) weights.data[i] = random() < 0.5 ? random() ** 3 : 0;
  const influences = influencesFromWeights(weights, 4);
  for (const [component, scale] of [
    ['unsigned-byte', 255],
    ['unsigned-short', 65535],
    ['float', 1],
  ] as const) {
    const q = quantizeSkinWeights(influences, 4, component, boneCount);
    for (let v = 0; v < vertexCount; v++) {
      const row = Array.from(weights.data.subarray(v * boneCount, (v + 1) * boneCount));
      const topFour = row
        .map((w, b) => ({ w, b }))
        .filter((e) => e.w > 0)
        .sort((a, b) => b.w - a.w)
        .slice(0, 4);
      const stored = Array.from(q.weights.subarray(4 * v, 4 * v + 4));
      const joints = Array.from(q.joints.subarray(4 * v, 4 * v + 4));
      if (topFour.length === 0) {
        assert.deepEqual([stored[0], joints[0]], [scale, 0], 'an unweighted vertex is bound to bone 0');
        continue;
      }
      if (component === 'float') {
        let single = 0;
        for (const w of stored) single = Math.fround(single + w);
        assert.equal(single, 1, `vertex ${v}: float32 sum`);
        assert.equal(
          stored.reduce((a, b) => a + b, 0),
          1,
          `vertex ${v}: float64 sum`,
        );
      } else {
        assert.equal(
          stored.reduce((a, b) => a + b, 0),
          scale,
          `vertex ${v}: integer sum`,
        );
      }
      const total = topFour.reduce((a, e) => a + e.w, 0);
      for (let k = 0; k < 4; k++) {
        if (stored[k] === 0) {
          assert.equal(joints[k], 0, `vertex ${v} slot ${k}: an empty slot holds joint 0`);
          continue;
        }
        assert.ok(
          topFour.some((e) => e.b === joints[k]),
          `vertex ${v}: joint ${joints[k]} is not among the four largest`,
        );
        const exact = (row[joints[k]] / total) * (component === 'float' ? 1 : scale);
        assert.ok(Math.abs(stored[k] - exact) <= (component === 'float' ? 1e-6 : 1), `vertex ${v} slot ${k}: ${stored[k]} vs ${exact}`);
      }
    }
  }
});

test('arm: export (GLB and .gltf + .bin, every weight type) validates, poses like our rig, and re-imports the same', async () => {
  const { rig, poses } = loadArm();
  const rest = rig.mesh.positions;
  const diagonal = boundingBox(rest).diagonal;
  const frames = [0, 3, 7, 11];
  const expected = frames.map((f) => cpuPosed(rest, rig.skeleton, rig.weights, poses, f));
  for (const weightComponent of ['float', 'unsigned-short', 'unsigned-byte'] as const) {
    const glb = await exportGltf(rig, 'arm.glb', { weightComponent });
    await assertValidGltf(glb.bytes, `arm.glb (${weightComponent})`);
    const doc = await new WebIO().readBinary(glb.bytes);
    // Integer weights are rounded to 1/255 or 1/65535, which moves vertices by up to that fraction of a bone's travel.
    const allowed = weightComponent === 'unsigned-byte' ? 5e-3 : TOLERANCE;
    frames.forEach((f, i) => {
      const error = maxDistance(gltfPosedPositions(doc, 0, f / 30), expected[i]) / diagonal;
      assert.ok(error < allowed, `${weightComponent}: glTF skinning of our file at frame ${f} is off by ${error} of the diagonal`);
    });
    if (weightComponent !== 'float') continue;
    const imported = await importGltf(glb.bytes, 'arm.glb');
    assert.deepEqual(imported.warnings, []);
    assert.equal(imported.clips[0].name, 'swing');
    assert.equal(imported.clips[0].poses.kind === 'matrices' && imported.clips[0].poses.frameCount, 12);
    assert.deepEqual(Array.from(imported.skeleton.parents), Array.from(rig.skeleton.parents));
    frames.forEach((f, i) => {
      const error = maxDistance(importedPosed(imported, 0, f), expected[i]) / diagonal;
      assert.ok(error < TOLERANCE, `re-imported arm at frame ${f} is off by ${error} of the diagonal`);
    });
  }
  const gltf = await exportGltf(rig, 'arm.gltf', { format: 'gltf', basename: 'arm' });
  assert.deepEqual(Object.keys(gltf.resources), ['arm.bin']);
  assert.deepEqual(gltfResources(gltf.bytes, 'arm.gltf'), [{ uri: 'arm.bin', path: 'arm.bin' }]);
  await assertValidGltf(gltf.bytes, 'arm.gltf', gltf.resources);
  const imported = await importGltf(gltf.bytes, 'arm.gltf', gltf.resources);
  const error = maxDistance(importedPosed(imported, 0, 7), expected[2]) / diagonal;
  assert.ok(error < TOLERANCE, `arm.gltf re-imported is off by ${error}`);
});

test('hand: matrix and quaternion clips with bone-distance weights survive export and import', async () => {
  const { rig, matrices, quaternions } = loadHand();
  const rest = rig.mesh.positions;
  const diagonal = boundingBox(rest).diagonal;
  const out = await exportGltf(rig, 'hand.glb', { influences: 8 });
  assert.ok(
    out.warnings.some((w) => /many viewers read only the first set/.test(w)),
    out.warnings.join('\n'),
  );
  await assertValidGltf(out.bytes, 'hand.glb');
  const imported = await importGltf(out.bytes, 'hand.glb');
  assert.deepEqual(
    imported.clips.map((c) => c.name),
    ['matrot', 'quat'],
  );
  // Matrices: frame f at f/30 s, read back at those key times. Quaternions: keys at t = 0 and 1 s, read back as two
  // keys with the file's LINEAR (SLERP) curves in between.
  assert.deepEqual(Array.from(imported.clips[1].poses.kind === 'matrices' ? (imported.clips[1].poses.times ?? []) : []), [0, 1]);
  for (const f of [0, 10, 20, 33]) {
    assert.equal(keyTime(imported, 0, f), Math.fround(f / 30));
    const error = maxDistance(importedPosed(imported, 0, f, 8), cpuPosed(rest, rig.skeleton, rig.weights, matrices, f, 8)) / diagonal;
    assert.ok(error < TOLERANCE, `hand matrot frame ${f}: off by ${error}`);
  }
  for (const f of [0, 9, 15, 30]) {
    const error =
      maxDistance(
        importedPosed(imported, 1, frameAtSeconds(imported.clips[1].poses, f / 30), 8),
        cpuPosed(rest, rig.skeleton, rig.weights, quaternions, f / 30, 8),
      ) / diagonal;
    assert.ok(error < TOLERANCE, `hand quat t = ${f}/30: off by ${error}`);
  }
});

const SAMPLES = [
  ['RiggedSimple', 'RiggedSimple.glb'],
  ['RiggedFigure', 'RiggedFigure.glb'],
  ['CesiumMan', 'CesiumMan.glb'],
  ['Fox', 'Fox.glb'],
  ['SimpleSkin', 'glTF-Embedded', 'SimpleSkin.gltf'],
  ['SimpleSkin', 'glTF', 'SimpleSkin.gltf'],
];

async function readSample(parts: string[]): Promise<{ bytes: Uint8Array; resources: Record<string, Uint8Array>; doc: Document }> {
  const file = dataFile('gltf', ...parts);
  const bytes = readFileSync(file);
  const resources: Record<string, Uint8Array> = {};
  for (const { uri, path: relative } of gltfResources(bytes, file)) resources[uri] = readFileSync(path.join(path.dirname(file), relative));
  return { bytes, resources, doc: await new NodeIO().read(file) };
}

for (const parts of SAMPLES) {
  test(`Khronos ${parts.join('/')}: import poses like glTF's skinning; our re-export validates and poses the same`, async () => {
    const { bytes, resources, doc } = await readSample(parts);
    const rig = await importGltf(bytes, parts[parts.length - 1], resources);
    const diagonal = boundingBox(rig.mesh.positions).diagonal;
    assert.ok(rig.clips.length >= 1, 'the sample has at least one clip');
    const again = await exportGltf({ ...rig, boneNames: rig.boneNames }, 'again.glb');
    await assertValidGltf(again.bytes, `${parts.join('/')} re-exported`);
    const againDoc = await new WebIO().readBinary(again.bytes);
    for (const [c, clip] of rig.clips.entries()) {
      const frameCount = clip.poses.kind === 'matrices' ? clip.poses.frameCount : 1;
      for (const f of [0, Math.floor(frameCount / 3), frameCount - 1]) {
        // Every channel: rotation, translation (root motion) and scale.
        const reference = gltfPosedPositions(doc, c, keyTime(rig, c, f));
        const ours = importedPosed(rig, c, f, 0);
        const error = maxDistance(ours, reference) / diagonal;
        assert.ok(error < TOLERANCE, `${clip.name} frame ${f}: our rig is off by ${error} of the diagonal`);
        const reexported = gltfPosedPositions(againDoc, c, keyTime(rig, c, f));
        const errorAgain = maxDistance(reexported, reference) / diagonal;
        assert.ok(errorAgain < TOLERANCE, `${clip.name} frame ${f}: re-export is off by ${errorAgain} of the diagonal`);
      }
    }
  });
}

test('Fox: the walk’s root motion becomes start-joint translations; missing normals are reported; the hierarchy keeps its parents', async () => {
  const { bytes, doc } = await readSample(['Fox', 'Fox.glb']);
  const rig = await importGltf(bytes, 'Fox.glb');
  assert.ok(!rig.warnings.some((w) => /translation/.test(w)), rig.warnings.join('\n'));
  const walk = rig.clips.find((clip) => clip.name === 'Walk')!;
  assert.ok(walk.poses.kind === 'matrices' && walk.poses.translations, 'Walk has start-joint translations');
  // The hip's head, posed by our rig, goes where glTF's own evaluation of the file puts that joint.
  const hip = rig.boneNames.indexOf('b_Hip_01');
  const hipNode = doc
    .getRoot()
    .listNodes()
    .find((node) => node.getName() === 'b_Hip_01')!;
  const frameCount = walk.poses.kind === 'matrices' ? walk.poses.frameCount : 1;
  const diagonal = boundingBox(rig.mesh.positions).diagonal;
  const boneCount = rig.skeleton.parents.length;
  let travelled = 0;
  for (const f of [0, Math.floor(frameCount / 2), frameCount - 1]) {
    const transforms = new Float64Array(12 * boneCount);
    poseForwardKinematics(rig.skeleton, walk.poses, f, new Float64Array(9 * boneCount), new Float64Array(3 * boneCount), transforms);
    const joints = new Float64Array(rig.skeleton.joints.length);
    posedJointPositions(rig.skeleton, transforms, joints);
    const expected = gltfNodeWorldPosition(doc, rig.clips.indexOf(walk), keyTime(rig, rig.clips.indexOf(walk), f), hipNode);
    const ours = joints.subarray(3 * hip, 3 * hip + 3);
    const error = Math.hypot(ours[0] - expected[0], ours[1] - expected[1], ours[2] - expected[2]) / diagonal;
    assert.ok(error < TOLERANCE, `hip at frame ${f} is off by ${error} of the diagonal`);
    travelled = Math.max(
      travelled,
      Math.hypot(
        ours[0] - rig.skeleton.joints[3 * hip],
        ours[1] - rig.skeleton.joints[3 * hip + 1],
        ours[2] - rig.skeleton.joints[3 * hip + 2],
      ),
    );
  }
  assert.ok(travelled > 0.01 * diagonal, `the hip moves (${travelled / diagonal} of the diagonal)`);
  assert.ok(
    rig.warnings.some((w) => /no normals; area-weighted vertex normals were computed/.test(w)),
    'a warning says area-weighted vertex normals were computed',
  );
  assert.equal(rig.skeleton.parents.length, 24);
  assert.equal(rig.weights.cols, 24, 'one weight column per bone');
  const computed = vertexNormals(rig.mesh.positions, rig.mesh.triangles);
  assert.ok(maxDistance(rig.normals, computed) < 1e-12, 'the normals are the computed area-weighted vertex normals (within 1e-12)');
});

test('SimpleSkin: the embedded and the external-buffer files import identically', async () => {
  const embedded = await readSample(['SimpleSkin', 'glTF-Embedded', 'SimpleSkin.gltf']);
  const external = await readSample(['SimpleSkin', 'glTF', 'SimpleSkin.gltf']);
  assert.ok(Object.keys(external.resources).length >= 1, 'the external-buffer sample comes with its .bin files');
  const a = await importGltf(embedded.bytes, 'SimpleSkin.gltf');
  const b = await importGltf(external.bytes, 'SimpleSkin.gltf', external.resources);
  assert.deepEqual(Array.from(a.mesh.positions), Array.from(b.mesh.positions));
  assert.deepEqual(Array.from(a.weights.data), Array.from(b.weights.data));
  assert.deepEqual(
    Array.from(a.clips[0].poses.kind === 'matrices' ? a.clips[0].poses.rotations : []),
    Array.from(b.clips[0].poses.kind === 'matrices' ? b.clips[0].poses.rotations : []),
  );
  await assert.rejects(
    importGltf(external.bytes, 'SimpleSkin.gltf'),
    (e: unknown) =>
      e instanceof FormatError &&
      e.message === 'SimpleSkin.gltf: /buffers/0/uri: glTF import: the buffer file "skinGeometry.bin" was not found',
  );
});

test('import: weights that do not sum to one are normalized and reported', async () => {
  const { doc } = await readSample(['SimpleSkin', 'glTF-Embedded', 'SimpleSkin.gltf']);
  const weights = doc.getRoot().listMeshes()[0].listPrimitives()[0].getAttribute('WEIGHTS_0')!;
  const original: number[][] = [];
  for (let v = 0; v < weights.getCount(); v++) {
    const w = weights.getElement(v, []);
    original.push(w);
    if (v % 2 === 0)
      weights.setElement(
        v,
        w.map((x) => 0.8 * x),
      );
  }
  // GLB holds one buffer; SimpleSkin uses several.
  const [buffer, ...others] = doc.getRoot().listBuffers();
  for (const accessor of doc.getRoot().listAccessors()) accessor.setBuffer(buffer);
  for (const other of others) other.dispose();
  const rig = await importGltf(await new WebIO().writeBinary(doc), 'scaled.glb');
  assert.ok(
    rig.warnings.some((w) => /5 vertices have weights that do not sum to 1 \(farthest: 0\.8000\); normalized/.test(w)),
    rig.warnings.join('\n'),
  );
  for (let v = 0; v < original.length; v++) {
    const row = Array.from(rig.weights.data.subarray(2 * v, 2 * v + 2));
    assert.ok(Math.abs(row[0] + row[1] - 1) < 1e-12, `vertex ${v}: its two weights sum to 1 (within 1e-12)`);
    const total = original[v].reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(row[0] - original[v][0] / total) < 1e-6, `vertex ${v}`);
  }
});

test('import: a Z-up root matrix above the joints turns the bind pose into Y-up world space', async () => {
  const { rig, poses } = loadArm();
  const out = await exportGltf(rig, 'arm.glb');
  const doc = await new WebIO().readBinary(out.bytes);
  const scene = doc.getRoot().getDefaultScene()!;
  const zUp = doc.createNode('Z_UP').setRotation([-Math.SQRT1_2, 0, 0, Math.SQRT1_2]);
  for (const child of scene.listChildren()) {
    if (child.getSkin()) continue;
    scene.removeChild(child);
    zUp.addChild(child);
  }
  scene.addChild(zUp);
  const bytes = await new WebIO().writeBinary(doc);
  await assertValidGltf(bytes, 'arm with Z_UP');
  const imported = await importGltf(bytes, 'zup.glb');
  const rest = rig.mesh.positions;
  const rotated = new Float64Array(rest.length);
  // −90° about x: (x, y, z) → (x, z, −y)
  for (let i = 0; i < rest.length; i += 3) rotated.set([rest[i], rest[i + 2], -rest[i + 1]], i);
  const diagonal = boundingBox(rest).diagonal;
  assert.ok(maxDistance(imported.mesh.positions, rotated) / diagonal < 1e-6, 'bind pose in world space');
  for (const f of [0, 5, 9]) {
    const error = maxDistance(importedPosed(imported, 0, f), gltfPosedPositions(doc, 0, f / 30)) / diagonal;
    assert.ok(error < TOLERANCE, `frame ${f}: off by ${error}`);
  }
  const unrotated = cpuPosed(rest, rig.skeleton, rig.weights, poses, 5);
  assert.ok(maxDistance(importedPosed(imported, 0, 5), unrotated) / diagonal > 0.1, 'the Z-up rotation is applied');
});

test('import: bad files are FormatErrors naming the file and the reason', async () => {
  await assert.rejects(
    importGltf(new TextEncoder().encode('not a model'), 'junk.gltf'),
    (e: unknown) => e instanceof FormatError && /^junk\.gltf: neither GLB nor glTF JSON/.test(e.message),
  );
  const plain = new Document();
  const buffer = plain.createBuffer();
  const prim = plain.createPrimitive().setAttribute(
    'POSITION',
    plain
      .createAccessor()
      .setType('VEC3')
      .setArray(new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]))
      .setBuffer(buffer),
  );
  plain.createScene().addChild(plain.createNode().setMesh(plain.createMesh().addPrimitive(prim)));
  const bytes = await new WebIO().writeBinary(plain);
  await assert.rejects(
    importGltf(bytes, 'static.glb'),
    (e: unknown) => e instanceof FormatError && /^static\.glb: glTF import: the scene has no skinned mesh/.test(e.message),
  );
  await assert.rejects(
    importGltf(bytes.subarray(0, 30), 'cut.glb'),
    (e: unknown) => e instanceof FormatError && /^cut\.glb: /.test(e.message),
  );
});

test('export: mismatched parts are FormatErrors naming the export, the file and the reason', async () => {
  const { rig } = loadArm();
  await assert.rejects(
    exportGltf({ ...rig, weights: { rows: 3, cols: 4, data: new Float64Array(12) } }, 'out.glb'),
    (e: unknown) =>
      e instanceof FormatError && e.message === 'out.glb: weights: glTF export: 3 × 4 weights do not fit 8311 vertices × 4 bones',
  );
});

test('baked vertex animation: DQS frames as morph targets validate, cost what was announced and replay the frames', async () => {
  const { rig, poses } = loadArm();
  const boneCount = rig.skeleton.parents.length;
  const influences = influencesFromWeights(rig.weights, 4);
  const rotations = new Float64Array(9 * boneCount);
  const transforms = new Float64Array(12 * boneCount);
  const dq = new Float64Array(8 * boneCount);
  const dqsAt = (frame: number, out: Float64Array): void => {
    samplePose(poses, frame, rotations);
    forwardKinematics(rig.skeleton, rotations, transforms);
    dualQuatsFromRigidMatrices(transforms, dq);
    dualQuaternionSkinning(rig.mesh.positions, influences, dq, out);
  };
  const frameCount = 6;
  const plain = await exportGltf({ ...rig, clips: [] }, 'arm.glb');
  const baked = await exportGltf({ ...rig, clips: [], vertexAnimations: [{ name: 'dqs', frameCount, positionsAt: dqsAt }] }, 'arm.glb');
  await assertValidGltf(baked.bytes, 'arm with DQS bake');
  const cost = vertexAnimationCost(rig.mesh.positions.length / 3, [frameCount]);
  const growth = baked.bytes.length - plain.bytes.length;
  assert.ok(growth >= cost.totalBytes && growth < cost.totalBytes + 4096, `announced ${cost.totalBytes} bytes, the file grew by ${growth}`);
  const doc = await new WebIO().readBinary(baked.bytes);
  const primitive = doc.getRoot().listMeshes()[0].listPrimitives()[0];
  assert.equal(primitive.listTargets().length, frameCount);
  const diagonal = boundingBox(rig.mesh.positions).diagonal;
  const expected = new Float64Array(rig.mesh.positions.length);
  for (let f = 0; f < frameCount; f++) {
    dqsAt(f, expected);
    const delta = primitive.listTargets()[f].getAttribute('POSITION')!;
    const replayed = rig.mesh.positions.map((x, i) => Math.fround(x) + delta.getElement(Math.floor(i / 3), [0, 0, 0])[i % 3]);
    assert.ok(maxDistance(replayed, expected) / diagonal < 1e-6, `frame ${f}`);
    // The stored normals plus the target's normal delta are the deformed mesh's normals.
    const stored = primitive.getAttribute('NORMAL')!;
    const normalDelta = primitive.listTargets()[f].getAttribute('NORMAL')!;
    const shaded = new Float64Array(expected.length).map(
      (_, i) => stored.getElement(Math.floor(i / 3), [0, 0, 0])[i % 3] + normalDelta.getElement(Math.floor(i / 3), [0, 0, 0])[i % 3],
    );
    assert.ok(maxDistance(shaded, vertexNormals(expected, rig.mesh.triangles)) < 1e-5, `frame ${f} normals`);
  }
  // The bake bends the arm: some normal turns by more than 10°.
  const last = primitive.listTargets()[frameCount - 1].getAttribute('NORMAL')!;
  let largest = 0;
  for (let v = 0; v < last.getCount(); v++) largest = Math.max(largest, Math.hypot(...last.getElement(v, [])));
  assert.ok(largest > 2 * Math.sin((5 * Math.PI) / 180), `largest normal change ${largest}`);
});
