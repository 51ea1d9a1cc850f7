/**
 * The one glTF write pipeline: a fresh export is an in-place edit of a new document. A generated two-figure scene (a
 * left figure on the skeleton tree hip → knee, a right one on the tree arm → hand) is written fresh; glTF's own evaluation
 * of the file (node matrices from the clip's keys, Σ w (G · IBM) v) must give the scene's LBS at every key, with the
 * bones' names, both clips under their own names and the two figures on skins of their own (one per tree). The file is then imported
 * and a new clip written into it in place, and the same imported scene with the same clip written fresh: both new
 * clips must pose as the rig does, keyed alike.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WebIO, type Document, type Node as GltfNode } from '@gltf-transform/core';
import { exportGltf, type GltfClip, type GltfRig } from '../../workers/formats/gltf-export.ts';
import { exportGltfInPlace } from '../../workers/formats/gltf-edit.ts';
import { importGltf } from '../../workers/formats/gltf-import.ts';
import type { MeshPart } from '../../workers/formats/types.ts';
import { forwardKinematics } from '../../workers/rig/forward-kinematics.ts';
import type { PoseSequence } from '../../workers/rig/pose-sequence.ts';
import type { Skeleton } from '../../workers/rig/skeleton.ts';
import { influencesFromWeights } from '../../workers/skinning/influences.ts';
import { linearBlendSkinning } from '../../workers/skinning/linear-blend-skinning.ts';
import { mul } from './gltf-appendix-c.ts';
import { editOf } from './gltf-edit-input.ts';
import { applyAnimation, assertValidGltf } from './gltf-skinning-reference.ts';
import { axisAngleMatrix } from './rotation-matrix.ts';

/** float32 storage of positions, matrices and key values, relative to the scene's size (about 3) */
const TOLERANCE = 1e-5;
const NAMES = ['hip', 'knee', 'arm', 'hand'];

/** A clip of `frames` poses at `times`: bone b turns about z by angle(b, f). */
function clip(name: string, times: number[], angle: (b: number, f: number) => number): GltfClip {
  const B = NAMES.length;
  const rotations = new Float64Array(9 * B * times.length);
  times.forEach((_, f) => {
    for (let b = 0; b < B; b++) rotations.set(axisAngleMatrix([0, 0, 1], angle(b, f)), 9 * (f * B + b));
  });
  const poses: PoseSequence = { kind: 'matrices', boneCount: B, frameCount: times.length, rotations, times: Float64Array.from(times) };
  return { name, poses };
}

/**
 * Two strips of 2 × 3 vertices along y: the left one at x = 0 (y = 0 … 2) on hip (0 → 1) and knee (1 → 2), the right
 * one at x = 2 on arm and hand; each vertex's weight goes from the lower bone to the upper one with its height.
 */
function twoFigures(): GltfRig {
  const positions: number[] = [];
  const triangles: number[] = [];
  const weights = new Float64Array(12 * 4);
  const parts: MeshPart[] = [];
  for (const [figure, x0] of [
    [0, 0],
    [1, 2],
  ]) {
    const start = positions.length / 3;
    for (let row = 0; row < 3; row++)
      for (let side = 0; side < 2; side++) {
        const v = positions.length / 3;
        positions.push(x0 + 0.2 * side, row, 0.1 * side);
        const up = row / 2;
        weights[4 * v + 2 * figure] = 1 - up;
        weights[4 * v + 2 * figure + 1] = up;
      }
    for (let row = 0; row < 2; row++) {
      const a = start + 2 * row;
      triangles.push(a, a + 1, a + 3, a, a + 3, a + 2);
    }
    parts.push({
      name: figure === 0 ? 'left' : 'right',
      vertexStart: start,
      vertexCount: 6,
      triangleStart: 4 * figure,
      triangleCount: 4,
      material: -1,
      source: null,
      skinned: true,
    });
  }
  const skeleton: Skeleton = {
    joints: Float64Array.of(0, 0, 0, 0, 1, 0, 0, 2, 0, 2, 0, 0, 2, 1, 0, 2, 2, 0),
    bones: Uint32Array.of(0, 1, 1, 2, 3, 4, 4, 5),
    parents: Int32Array.of(-1, 0, -1, 2),
    order: Uint32Array.of(0, 1, 2, 3),
  };
  return {
    mesh: { positions: Float64Array.from(positions), triangles: Uint32Array.from(triangles) },
    skeleton,
    weights: { rows: 12, cols: 4, data: weights },
    boneNames: NAMES,
    parts,
    name: 'figures',
    clips: [clip('walk', [0, 0.5, 1], (b, f) => 0.3 * f * (b + 1)), clip('wave', [0, 0.25], (b, f) => (b === 3 ? 0.8 * f : -0.2 * f))],
  };
}

/** The scene's LBS at key f of `poses`, #V × 3. */
function sceneSkinned(rig: GltfRig, poses: PoseSequence, f: number): Float64Array {
  const B = rig.skeleton.parents.length;
  const transforms = new Float64Array(12 * B);
  if (poses.kind !== 'matrices') throw new Error('matrices expected');
  forwardKinematics(rig.skeleton, poses.rotations.subarray(9 * B * f, 9 * B * (f + 1)), transforms);
  const out = new Float64Array(rig.mesh.positions.length);
  linearBlendSkinning(rig.mesh.positions, influencesFromWeights(rig.weights, 4), transforms, out);
  return out;
}

/** glTF's posing of each mesh node (by name) at `time` of animation `a`: through its own skin, else its world matrix. */
function gltfPosedByName(doc: Document, a: number, time: number): Map<string, number[]> {
  const restore = applyAnimation(doc, a, time);
  const out = new Map<string, number[]>();
  for (const node of doc.getRoot().listNodes()) {
    const mesh = node.getMesh();
    if (!mesh) continue;
    const skin = node.getSkin();
    const ibm = skin?.getInverseBindMatrices();
    const joints = skin
      ? skin.listJoints().map((joint: GltfNode, j) => mul(Array.from(joint.getWorldMatrix()), ibm!.getElement(j, [])))
      : [];
    const points: number[] = [];
    const primitive = mesh.listPrimitives()[0];
    const position = primitive.getAttribute('POSITION')!;
    for (let v = 0; v < position.getCount(); v++) {
      const p = position.getElement(v, []);
      let m = Array.from(node.getWorldMatrix());
      if (skin) {
        m = new Array<number>(16).fill(0);
        const js = primitive.getAttribute('JOINTS_0')!.getElement(v, []);
        const ws = primitive.getAttribute('WEIGHTS_0')!.getElement(v, []);
        for (let k = 0; k < 4; k++) for (let e = 0; e < 16; e++) m[e] += ws[k] * joints[js[k]][e];
      }
      points.push(
        m[0] * p[0] + m[4] * p[1] + m[8] * p[2] + m[12],
        m[1] * p[0] + m[5] * p[1] + m[9] * p[2] + m[13],
        m[2] * p[0] + m[6] * p[1] + m[10] * p[2] + m[14],
      );
    }
    out.set(mesh.getName(), points);
  }
  restore();
  return out;
}

/** Asserts that animation `name` of `doc` poses every part as the scene's LBS does at each of the clip's keys. */
function assertPosesLikeScene(doc: Document, rig: GltfRig, clipOfScene: GltfClip, label: string): void {
  const animations = doc.getRoot().listAnimations();
  const a = animations.findIndex((animation) => animation.getName() === clipOfScene.name);
  assert.ok(a >= 0, `${label}: an animation named ${clipOfScene.name} (${animations.map((x) => x.getName()).join(', ')})`);
  const poses = clipOfScene.poses;
  if (poses.kind !== 'matrices') throw new Error('matrices expected');
  for (let f = 0; f < poses.frameCount; f++) {
    const expected = sceneSkinned(rig, poses, f);
    const got = gltfPosedByName(doc, a, poses.times![f]);
    for (const part of rig.parts!) {
      const points = got.get(part.name);
      assert.ok(points, `${label}: a mesh named ${part.name}`);
      let worst = 0;
      for (let v = 0; v < part.vertexCount; v++) {
        const o = 3 * (part.vertexStart + v);
        worst = Math.max(
          worst,
          Math.hypot(points[3 * v] - expected[o], points[3 * v + 1] - expected[o + 1], points[3 * v + 2] - expected[o + 2]),
        );
      }
      assert.ok(worst < TOLERANCE, `${label}, ${clipOfScene.name} key ${f}, ${part.name}: ${worst} from the scene's LBS`);
    }
  }
}

test('fresh export: the bones keep their names, every clip its own name, figures on separate skeleton trees get skins of their own', async () => {
  const rig = twoFigures();
  const out = await exportGltf(rig, 'figures.glb');
  await assertValidGltf(out.bytes, 'figures.glb');
  const doc = await new WebIO().readBinary(out.bytes);
  const root = doc.getRoot();
  assert.deepEqual(
    root.listAnimations().map((animation) => animation.getName()),
    ['walk', 'wave'],
  );
  const skins = root.listSkins().map((skin) => skin.listJoints().map((joint) => joint.getName()));
  assert.deepEqual(skins, [
    ['hip', 'knee'],
    ['arm', 'hand'],
  ]);
  const skinOf = (mesh: string): string[] =>
    root
      .listNodes()
      .find((node) => node.getMesh()?.getName() === mesh)!
      .getSkin()!
      .listJoints()
      .map((joint) => joint.getName());
  assert.deepEqual(skinOf('left'), ['hip', 'knee']);
  assert.deepEqual(skinOf('right'), ['arm', 'hand']);
  for (const c of rig.clips!) assertPosesLikeScene(doc, rig, c, 'figures.glb');
});

test('fresh export: trees that one mesh weights together share one skin of every bone, skin joint k bone k', async () => {
  const rig = twoFigures();
  const data = Float64Array.from(rig.weights.data);
  // The right figure's lowest vertex also takes some of the hip.
  data.set([0.25, 0, 0.75, 0], 4 * 6);
  const shared = { ...rig, weights: { ...rig.weights, data } };
  const out = await exportGltf(shared, 'shared.glb');
  await assertValidGltf(out.bytes, 'shared.glb');
  const doc = await new WebIO().readBinary(out.bytes);
  assert.deepEqual(
    doc
      .getRoot()
      .listSkins()
      .map((skin) => skin.listJoints().map((joint) => joint.getName())),
    [NAMES],
  );
  for (const c of shared.clips!) assertPosesLikeScene(doc, shared, c, 'shared.glb');
});

test('one pipeline: a new clip written into an exported file in place and the same scene written fresh pose alike, keyed alike', async () => {
  const rig = twoFigures();
  const first = await exportGltf(rig, 'figures.glb');
  const imported = await importGltf(first.bytes, 'figures.glb');
  const reach = clip('reach', [0, 0.4, 0.8, 1.2], (b, f) => 0.25 * f * (b % 2 === 0 ? 1 : -1));
  const inPlace = await exportGltfInPlace({ ...editOf(imported), clips: [...imported.clips, reach] }, 'in-place.glb');
  const fresh = await exportGltf(
    {
      mesh: imported.mesh,
      skeleton: imported.skeleton,
      weights: imported.weights,
      boneNames: imported.boneNames,
      parts: imported.parts,
      name: 'figures',
      clips: [...imported.clips, reach],
    },
    'fresh.glb',
  );
  const scene: GltfRig = { ...rig, mesh: imported.mesh, skeleton: imported.skeleton, weights: imported.weights, parts: imported.parts };
  const docs: [string, Document][] = [];
  for (const [label, written] of [
    ['in-place.glb', inPlace],
    ['fresh.glb', fresh],
  ] as const) {
    await assertValidGltf(written.bytes, label);
    const doc = await new WebIO().readBinary(written.bytes);
    assert.deepEqual(
      doc
        .getRoot()
        .listAnimations()
        .map((animation) => animation.getName()),
      ['walk', 'wave', 'reach'],
      `${label}: every clip under its own name`,
    );
    for (const c of [...imported.clips, reach]) assertPosesLikeScene(doc, scene, c, label);
    docs.push([label, doc]);
  }
  // The new clip's channels: the same joints, paths, interpolation and key times in both files.
  const channels = (doc: Document): string[] =>
    doc
      .getRoot()
      .listAnimations()
      .find((animation) => animation.getName() === 'reach')!
      .listChannels()
      .map((channel) => {
        const sampler = channel.getSampler()!;
        const input = sampler.getInput()!;
        const times = Array.from({ length: input.getCount() }, (_, k) => input.getScalar(k)).join(' ');
        return `${channel.getTargetNode()!.getName()} ${channel.getTargetPath()} ${sampler.getInterpolation()} ${times}`;
      })
      .sort();
  assert.deepEqual(channels(docs[0][1]), channels(docs[1][1]));
});
