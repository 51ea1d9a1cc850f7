/**
 * Per-face skinning and per-face context deformation (Eq. 9 / Eq. 10) baked into glTF vertex animation
 * (workers/formats/gltf-skinning-bake.ts), on the context-aware body of the shared data: the bake equals per-face
 * skinning run directly on a fresh setup, the context bake at an example's own frame is that example, and an export
 * carrying the bake passes the Khronos validator.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WebIO } from '@gltf-transform/core';
import { contextAwareBody } from './context-aware-data.ts';
import { assertValidGltf } from './gltf-skinning-reference.ts';
import { skinningVertexAnimation, type BakeableSkinMethod, type PerFaceBakeInput } from '../../workers/formats/gltf-skinning-bake.ts';
import { examplePoseSpace, exportGltf, type GltfExamples, type GltfRig } from '../../workers/formats/gltf-export.ts';
import { FormatError } from '../../workers/formats/format-error.ts';
import type { PoseSequence } from '../../workers/rig/pose-sequence.ts';
import { forwardKinematics } from '../../workers/rig/forward-kinematics.ts';
import { influencesFromWeights } from '../../workers/skinning/influences.ts';
import { perFaceFixedVertices, perFaceSkinning, perFaceSkinningSetup } from '../../workers/skinning/per-face-skinning.ts';
import { boundingBox } from '../../workers/mesh/bounds.ts';

const body = contextAwareBody();
const B = body.boneCount;
const diagonal = boundingBox(body.mesh.positions).diagonal;
const INFLUENCES = 4;

/** Frames of all_frames.dmat as a short clip: frame k of the clip is frame `frames[k]` of the sequence. */
function clipOf(frames: readonly number[]): Extract<PoseSequence, { kind: 'matrices' }> {
  const rotations = new Float64Array(frames.length * 9 * B);
  frames.forEach((f, k) => rotations.set(body.frames.rotations.subarray(f * 9 * B, (f + 1) * 9 * B), k * 9 * B));
  return { kind: 'matrices', boneCount: B, frameCount: frames.length, rotations };
}

function maxDistance(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let worst = 0;
  for (let v = 0; v < a.length / 3; v++) {
    worst = Math.max(worst, Math.hypot(a[3 * v] - b[3 * v], a[3 * v + 1] - b[3 * v + 1], a[3 * v + 2] - b[3 * v + 2]));
  }
  return worst;
}

const examples: GltfExamples = {
  names: body.examples.map((e) => e.name),
  positions: body.examples.map((e) => e.mesh.positions),
  poses: body.examples.map((e) => e.pose),
  kernel: 'gaussian',
};
const perFaceInput: PerFaceBakeInput = { triangles: body.mesh.triangles, handles: body.handles, examples };

function bake(method: BakeableSkinMethod, poses: PoseSequence, input: PerFaceBakeInput | null = perFaceInput) {
  return skinningVertexAnimation(
    body.mesh.positions,
    body.skeleton,
    body.weights,
    { name: `clip (${method} baked)`, method, poses, influences: INFLUENCES },
    30,
    input,
  );
}

test('a per-face bake equals per-face skinning of each frame on a fresh setup, bit for bit', () => {
  const frames = [0, 87, 250];
  const animation = bake('perface', clipOf(frames));
  assert.equal(animation.frameCount, frames.length);
  const influences = influencesFromWeights(body.weights, INFLUENCES);
  const setup = perFaceSkinningSetup(
    body.mesh.positions,
    body.mesh.triangles,
    influences,
    B,
    perFaceFixedVertices(body.skeleton.parents, influences, body.handles),
  );
  const baked = new Float64Array(body.mesh.positions.length);
  const direct = new Float64Array(body.mesh.positions.length);
  const transforms = new Float64Array(12 * B);
  frames.forEach((f, k) => {
    animation.positionsAt(k, baked);
    forwardKinematics(body.skeleton, body.frames.rotations.subarray(f * 9 * B, (f + 1) * 9 * B), transforms);
    perFaceSkinning(setup, transforms, direct);
    assert.ok(maxDistance(direct, body.mesh.positions) > 1e-3 * diagonal || f === 0, `frame ${f} is posed`);
    assert.deepEqual(baked, direct, `frame ${f}`);
  });
});

test('a context per-face bake at eg2 own frame (87) is eg2; the plain per-face bake is not; Eq. 9 and Eq. 10 both reproduce it', () => {
  const eg2 = body.examples[2].mesh.positions;
  const clip = clipOf([0, body.exampleFrames[2]]);
  const out = new Float64Array(eg2.length);
  bake('perface', clip).positionsAt(1, out);
  const plainError = maxDistance(out, eg2) / diagonal;
  const errors: Record<string, number> = {};
  for (const method of ['context-perface-eq9', 'context-perface-eq10'] as const) {
    bake(method, clip).positionsAt(1, out);
    errors[method] = maxDistance(out, eg2) / diagonal;
  }
  console.log(
    `eg2 at frame 87, max error / diagonal: plain per-face ${plainError.toExponential(2)}, ` +
      `context Eq. 9 ${errors['context-perface-eq9'].toExponential(2)}, Eq. 10 ${errors['context-perface-eq10'].toExponential(2)}`,
  );
  assert.ok(plainError > 1e-3, `plain per-face misses the sculpted example: ${plainError}`);
  assert.ok(errors['context-perface-eq9'] <= 1e-6, `Eq. 9: ${errors['context-perface-eq9']}`);
  assert.ok(errors['context-perface-eq10'] <= 1e-6, `Eq. 10: ${errors['context-perface-eq10']}`);
});

test('a context per-face bake without examples is the plain per-face bake', () => {
  const clip = clipOf([87]);
  const plain = new Float64Array(body.mesh.positions.length);
  const context = new Float64Array(body.mesh.positions.length);
  bake('perface', clip).positionsAt(0, plain);
  bake('context-perface-eq10', clip, { ...perFaceInput, examples: null }).positionsAt(0, context);
  assert.deepEqual(context, plain);
});

test('a per-face bake is refused with a clear error without the triangles or with two examples of one pose', () => {
  assert.throws(
    () => bake('perface', clipOf([0]), null),
    (e: unknown) => e instanceof FormatError && /clip \(perface baked\)/.test(e.message),
  );
  const twice: GltfExamples = {
    ...examples,
    names: ['a', 'b'],
    positions: examples.positions.slice(0, 2),
    poses: [examples.poses[0], examples.poses[0]],
  };
  assert.throws(
    () => bake('context-perface-eq9', clipOf([0]), { ...perFaceInput, examples: twice }),
    (e: unknown) => e instanceof FormatError && /a, b/.test(e.message),
  );
});

test('an export with a context per-face bake and the example targets passes the Khronos validator', async () => {
  const clip = clipOf([34, 87, 200]);
  const rig: GltfRig = { mesh: body.mesh, skeleton: body.skeleton, weights: body.weights, name: 'body' };
  const animation = bake('context-perface-eq10', clip);
  const { poseSpace } = examplePoseSpace(rig, examples, INFLUENCES);
  const { bytes } = await exportGltf({ ...rig, vertexAnimations: [animation], poseSpace }, 'body.glb', { framesPerSecond: 30 });
  await assertValidGltf(bytes, 'body with a context per-face bake');

  // The baked targets (after the example targets) hold the bake's positions at each keyframe, to float32 precision.
  const doc = await new WebIO().readBinary(bytes);
  const targets = doc.getRoot().listMeshes()[0].listPrimitives()[0].listTargets();
  const first = targets.length - clip.frameCount;
  const expected = new Float64Array(body.mesh.positions.length);
  animation.positionsAt(1, expected);
  const delta = targets[first + 1].getAttribute('POSITION')!;
  const morphed = new Float64Array(expected.length);
  for (let v = 0; v < morphed.length / 3; v++) {
    const d: number[] = delta.getElement(v, []);
    for (let c = 0; c < 3; c++) morphed[3 * v + c] = body.mesh.positions[3 * v + c] + d[c];
  }
  assert.ok(maxDistance(morphed, expected) <= 1e-5 * diagonal, `keyframe 1 target: ${maxDistance(morphed, expected) / diagonal}`);
  assert.ok(maxDistance(morphed, body.examples[2].mesh.positions) <= 1e-5 * diagonal, 'keyframe 1 (frame 87) is eg2');
});
