/**
 * Context LBS exported as glTF morph targets (workers/formats/gltf-export.ts, GltfPoseSpace): the body with the
 * examples eg0…eg3 and the 394-frame clip. The file must pass the Khronos validator with no errors and no warnings,
 * and two players that know nothing of our code — three.js's GLTFLoader + AnimationMixer (morph, then skin) and
 * Blender's importer (shape keys + armature) — must pose it like our CPU context LBS within 1e-4 of the diagonal.
 * Blender missing prints one `SKIP blender:` line and skips that test only.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WebIO } from '@gltf-transform/core';
import { examplePoseSpace, exportGltf } from '../../workers/formats/gltf-export.ts';
import { boundingBox } from '../../workers/mesh/bounds.ts';
import { forwardKinematics } from '../../workers/rig/forward-kinematics.ts';
import { identityPose, samplePose } from '../../workers/rig/pose-sequence.ts';
import { influencesFromWeights } from '../../workers/skinning/influences.ts';
import { linearBlendSkinning } from '../../workers/skinning/linear-blend-skinning.ts';
import { contextLinearBlendSkinning } from '../../workers/posespace/context-skinning.ts';
import { poseSpaceInterpolator, poseSpaceWeights } from '../../workers/posespace/pose-space-weights.ts';
import { unposeExample } from '../../workers/posespace/unpose.ts';
import { assertValidGltf, maxDistance } from './gltf-skinning-reference.ts';
import { contextAwareBody } from './context-aware-data.ts';
import { repoRoot } from './shared-data.ts';
import { blenderMissing, blenderReport } from './blender.ts';
import { threePlayer } from './three-player.ts';

const FRAMES = [60, 87, 100];
const FPS = 30;

const body = contextAwareBody();
const B = body.boneCount;
const rest = body.mesh.positions;
const n = rest.length;
const diagonal = boundingBox(rest).diagonal;
const influences = influencesFromWeights(body.weights, 4);
const names = body.examples.map((e) => e.name);
const poses = new Float64Array(4 * 9 * B);
body.examples.forEach((e, j) => poses.set(e.pose, 9 * B * j));
const interpolator = poseSpaceInterpolator(poses, B, names);
const displacements = new Float64Array(4 * n);
const transforms = new Float64Array(12 * B);
body.examples.forEach((e, j) => {
  forwardKinematics(body.skeleton, e.pose, transforms);
  displacements.set(unposeExample(rest, e.mesh.positions, influences, transforms, { method: 'lbs' }).displacements, j * n);
});

/** Our CPU context LBS and plain LBS at a frame of the clip, and the example weights there. */
function cpuAt(frame: number): { context: Float64Array; plain: Float64Array; weights: Float64Array } {
  const rotations = new Float64Array(9 * B);
  samplePose(body.frames, frame, rotations);
  forwardKinematics(body.skeleton, rotations, transforms);
  const weights = new Float64Array(4);
  poseSpaceWeights(interpolator, rotations, weights);
  const context = new Float64Array(n);
  const plain = new Float64Array(n);
  contextLinearBlendSkinning(rest, displacements, weights, influences, transforms, context);
  linearBlendSkinning(rest, influences, transforms, plain);
  return { context, plain, weights };
}

const exported = exportGltf(
  {
    mesh: body.mesh,
    skeleton: body.skeleton,
    weights: body.weights,
    clips: [{ name: 'all_frames', poses: body.frames }],
    poseSpace: { names, displacements, interpolator },
    name: 'body',
  },
  'body.glb',
  { framesPerSecond: FPS },
);

test('context LBS export: valid glTF (0 errors, 0 warnings); its targets and stored weights in [0, 1] give Σ_j a_j(P) δ_j at each key', async () => {
  const { bytes } = await exported;
  await assertValidGltf(bytes, 'body with examples');
  const doc = await new WebIO().readBinary(bytes);
  const mesh = doc.getRoot().listMeshes()[0];
  const targets = mesh.listPrimitives()[0].listTargets();
  const targetNames = targets.map((t) => t.getName());
  assert.deepEqual(targetNames.slice(0, 4), names);
  assert.ok(
    targetNames.slice(4).every((name) => / −$/.test(name) && names.includes(name.slice(0, -2))),
    targetNames.join(),
  );
  const channel = doc
    .getRoot()
    .listAnimations()[0]
    .listChannels()
    .find((c) => c.getTargetPath() === 'weights')!;
  const output = channel.getSampler()!.getOutput()!.getArray() as Float32Array;
  const T = targets.length;
  assert.equal(output.length, T * body.frames.frameCount);
  assert.ok(
    output.every((w) => w >= 0 && w <= 1),
    'every stored weight lies in [0, 1]',
  );
  const stored = targets.map((t) => t.getAttribute('POSITION')!.getArray() as Float32Array);
  /** What a player adds to the rest shape for the stored weights w. */
  const morph = (w: ArrayLike<number>): Float64Array => {
    const out = new Float64Array(n);
    stored.forEach((delta, t) => {
      for (let i = 0; i < n; i++) out[i] += w[t] * delta[i];
    });
    return out;
  };
  const ours = (a: ArrayLike<number>): Float64Array => {
    const out = new Float64Array(n);
    for (let j = 0; j < 4; j++) for (let i = 0; i < n; i++) out[i] += a[j] * displacements[j * n + i];
    return out;
  };
  const rotations = new Float64Array(9 * B);
  const a = new Float64Array(4);
  poseSpaceWeights(interpolator, identityPose(B), a);
  assert.ok(maxDistance(morph(mesh.getWeights()), ours(a)) / diagonal < 1e-6, 'default weights: the rest pose');
  for (const f of [0, ...FRAMES, body.frames.frameCount - 1]) {
    samplePose(body.frames, f, rotations);
    poseSpaceWeights(interpolator, rotations, a);
    const error = maxDistance(morph(output.subarray(T * f, T * (f + 1))), ours(a)) / diagonal;
    assert.ok(error < 1e-6, `frame ${f}: the stored morph is off by ${error}`);
  }
});

test("three.js's GLTFLoader and AnimationMixer pose the export like our CPU context LBS (1e-4 of the diagonal)", async () => {
  const { bytes } = await exported;
  const { mesh, posedAt } = await threePlayer(bytes, 'all_frames');
  assert.deepEqual(Object.keys(mesh.morphTargetDictionary!).slice(0, 4), names);
  for (const f of FRAMES) {
    const posed = posedAt(f / FPS);
    assert.equal(posed.length, n);
    const { context, plain, weights } = cpuAt(f);
    const error = maxDistance(posed, context) / diagonal;
    const correction = maxDistance(context, plain) / diagonal;
    console.log(
      `three.js frame ${f}: a = ${[...weights].map((x) => x.toFixed(3)).join(' ')}; off context LBS by ${error.toExponential(2)}, the correction is ${correction.toExponential(2)} of the diagonal`,
    );
    assert.ok(error < 1e-4, `frame ${f}: ${error}`);
    assert.ok(correction > 1e-3, `frame ${f}: the examples correct the pose visibly`);
    if (f === 87) assert.ok(maxDistance(posed, body.examples[2].mesh.positions) / diagonal < 1e-4, 'frame 87 is eg2');
  }
});

const noBlender = blenderMissing('the shape-key check');

test(
  "Blender's importer (shape keys + armature) poses the export like our CPU context LBS (1e-4 of the diagonal)",
  { skip: noBlender ? 'blender is not installed' : false },
  async () => {
    const { bytes } = await exported;
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'rigwright-blender-posespace-')), 'body.glb');
    writeFileSync(file, bytes);
    const report = blenderReport<{ rest: number[]; posed: Record<string, number[]> }>(
      path.join(repoRoot, 'test/blender/inspect-gltf.py'),
      [file, 'all_frames', ...FRAMES.map(String)],
      256 * 1024 * 1024,
    );
    // Blender keeps the vertices in file order here (no seams: one vertex per position); check it, then compare.
    assert.equal(report.rest.length, n);
    assert.ok(maxDistance(report.rest, rest) / diagonal < 1e-6, 'Blender kept the vertex order');
    for (const f of FRAMES) {
      const { context } = cpuAt(f);
      const error = maxDistance(report.posed[String(f)], context) / diagonal;
      console.log(`blender frame ${f}: off context LBS by ${error.toExponential(2)} of the diagonal`);
      assert.ok(error < 1e-4, `frame ${f}: ${error}`);
    }
  },
);

test('examples and a baked vertex animation share the mesh: example targets first, the bake keys its own targets after them', async () => {
  const bake = {
    name: 'bake',
    frameCount: 2,
    positionsAt: (frame: number, out: Float64Array) => cpuAt(FRAMES[frame]).plain.forEach((x, i) => (out[i] = x)),
  };
  const { bytes } = await exportGltf(
    {
      mesh: body.mesh,
      skeleton: body.skeleton,
      weights: body.weights,
      clips: [{ name: 'all_frames', poses: body.frames }],
      vertexAnimations: [bake],
      poseSpace: { names, displacements, interpolator },
    },
    'both.glb',
  );
  await assertValidGltf(bytes, 'examples and a bake');
  const doc = await new WebIO().readBinary(bytes);
  const targets = doc.getRoot().listMeshes()[0].listPrimitives()[0].listTargets();
  const exampleTargets = targets.length - 2;
  assert.deepEqual(
    targets.slice(exampleTargets).map((t) => t.getName()),
    ['bake 0', 'bake 1'],
  );
  const bakeWeights = doc
    .getRoot()
    .listAnimations()
    .find((a) => a.getName() === 'bake')!
    .listChannels()[0]
    .getSampler()!
    .getOutput()!
    .getArray() as Float32Array;
  const expected = new Float32Array(2 * targets.length);
  expected[exampleTargets] = 1;
  expected[targets.length + exampleTargets + 1] = 1;
  assert.deepEqual(bakeWeights, expected);
  // The bake's first target is its first frame, as a displacement from the rest mesh.
  const first = targets[exampleTargets].getAttribute('POSITION')!.getArray() as Float32Array;
  const frame = cpuAt(FRAMES[0]).plain;
  assert.ok(
    maxDistance(
      Float64Array.from(first, (d, i) => rest[i] + d),
      frame,
    ) /
      diagonal <
      1e-6,
    "the bake's first target is its first frame's displacement from the rest mesh (within 1e-6 of the diagonal)",
  );
});

test("the app's export (examples as the scene holds them, unposed in the export): each example comes back at its own frame", async () => {
  // examplePoseSpace unposes with the influences the file stores; a player morphs the rest mesh with the stored
  // targets and weights at the example's key, then skins it: that must be the example, the sculpted mesh itself.
  const rig = { mesh: body.mesh, skeleton: body.skeleton, weights: body.weights, clips: [{ name: 'all_frames', poses: body.frames }] };
  const { poseSpace, warnings } = examplePoseSpace(
    rig,
    { names, positions: body.examples.map((e) => e.mesh.positions), poses: body.examples.map((e) => e.pose), kernel: 'linear' },
    4,
  );
  assert.deepEqual(warnings, []);
  const { bytes } = await exportGltf({ ...rig, poseSpace, name: 'body' }, 'body.glb', { framesPerSecond: FPS });
  await assertValidGltf(bytes, 'body with examples, app path');
  const doc = await new WebIO().readBinary(bytes);
  const targets = doc.getRoot().listMeshes()[0].listPrimitives()[0].listTargets();
  const stored = targets.map((t) => t.getAttribute('POSITION')!.getArray() as Float32Array);
  const output = doc
    .getRoot()
    .listAnimations()[0]
    .listChannels()
    .find((c) => c.getTargetPath() === 'weights')!
    .getSampler()!
    .getOutput()!
    .getArray() as Float32Array;
  const T = targets.length;
  const rotations = new Float64Array(9 * B);
  const posed = new Float64Array(n);
  body.examples.forEach((example, j) => {
    const f = body.exampleFrames[j];
    const morphed = Float64Array.from(rest);
    stored.forEach((delta, t) => {
      for (let i = 0; i < n; i++) morphed[i] += output[T * f + t] * delta[i];
    });
    samplePose(body.frames, f, rotations);
    forwardKinematics(body.skeleton, rotations, transforms);
    linearBlendSkinning(morphed, influences, transforms, posed);
    const error = maxDistance(posed, example.mesh.positions) / diagonal;
    assert.ok(error < 1e-5, `${example.name} at frame ${f}: off by ${error} of the diagonal`);
  });
});
