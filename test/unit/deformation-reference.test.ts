/**
 * The CPU reference of the viewport's skinning (renderer/deform/cpu-reference.ts) against independent
 * computations on the twist tube (two bones, the second turning about the tube's axis): linear blend computed by
 * hand, dual quaternion skinning against its closed form (the blend of the identity and a rotation about one axis is
 * a rotation about that axis), weight blended at its ends, context LBS/DQS with a hand-made displacement, and
 * per-face skinning against workers/skinning called directly.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CpuReference, type ReferenceSettings } from '../../renderer/deform/cpu-reference.ts';
import type { ContextSource } from '../../renderer/deform/context-source.ts';
import { PoseEvaluator } from '../../renderer/deform/pose-evaluator.ts';
import { twistDemoDocument } from '../../workers/scene/scene-document.ts';
import { influencesFromWeights, type Influences } from '../../workers/skinning/influences.ts';
import { perFaceFixedVertices, perFaceSkinning, perFaceSkinningSetup } from '../../workers/skinning/per-face-skinning.ts';
import { twistDegreesAt } from '../../workers/demo/twist-demo.ts';

const doc = twistDemoDocument();
const influences = influencesFromWeights(doc.weights, 4);
const n = doc.mesh.positions.length / 3;

function poseAt(frame: number): PoseEvaluator {
  const evaluator = new PoseEvaluator(doc);
  evaluator.evaluate(frame);
  return evaluator;
}

function settings(overrides: Partial<ReferenceSettings> = {}): ReferenceSettings {
  return { antipodality: 'per-vertex', blendWeights: new Float32Array(n), context: null, ...overrides };
}

/** Each vertex's weights of bone 0 (the still one) and bone 1 (the twisting one). */
function boneWeights(inf: Influences, v: number): [number, number] {
  const w: [number, number] = [0, 0];
  for (let k = 0; k < inf.stride; k++) w[inf.bones[v * inf.stride + k]] += inf.weights[v * inf.stride + k];
  return w;
}

/** p turned by `angle` about the x axis (the tube's axis, through both joints). */
function turned(p: readonly number[], angle: number): number[] {
  const c = Math.cos(angle),
    s = Math.sin(angle);
  return [p[0], c * p[1] - s * p[2], s * p[1] + c * p[2]];
}

function restOf(v: number, displacement?: (v: number) => number[]): number[] {
  const p = Array.from(doc.mesh.positions.subarray(3 * v, 3 * v + 3));
  const d = displacement?.(v) ?? [0, 0, 0];
  return [p[0] + d[0], p[1] + d[1], p[2] + d[2]];
}

/**
 * Linear blend by hand, p + w0 (p − p) + w1 (R_x(θ) p − p): bone 0 does not move and bone 1 turns about the axis
 * its joint is on (the form v + Σ_k w_k (T_k v − v) of Σ_k w_k T_k v, exact for float weights whose sum is off
 * 1 by their rounding).
 */
function handLbs(theta: number, displacement?: (v: number) => number[]): Float64Array {
  const out = new Float64Array(3 * n);
  for (let v = 0; v < n; v++) {
    const [, w1] = boneWeights(influences, v);
    const p = restOf(v, displacement);
    const q = turned(p, theta);
    for (let c = 0; c < 3; c++) out[3 * v + c] = p[c] + w1 * (q[c] - p[c]);
  }
  return out;
}

/**
 * DQS's closed form: w0 · (identity) + w1 · (rotation by θ about x), normalized, is the rotation about x by
 * φ = 2 atan2(w1 sin(θ/2), w0 + w1 cos(θ/2)) with no translation (the axis passes through the joint).
 */
function closedFormDqs(theta: number, displacement?: (v: number) => number[]): Float64Array {
  const out = new Float64Array(3 * n);
  for (let v = 0; v < n; v++) {
    const [w0, w1] = boneWeights(influences, v);
    const phi = 2 * Math.atan2(w1 * Math.sin(theta / 2), w0 + w1 * Math.cos(theta / 2));
    out.set(turned(restOf(v, displacement), phi), 3 * v);
  }
  return out;
}

function worstDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  assert.equal(a.length, b.length, 'as many coordinates');
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  return worst;
}

const RAD = Math.PI / 180;

test('linear blend of the twist at 90° is w0 p + w1 R p, computed by hand', () => {
  assert.equal(twistDegreesAt(30), 90);
  const reference = new CpuReference(doc, influences);
  const positions = reference.positions('lbs', poseAt(30), settings());
  assert.ok(
    worstDifference(positions, handLbs(90 * RAD)) < 1e-12,
    `LBS matches the hand computation (off by ${worstDifference(positions, handLbs(90 * RAD))})`,
  );
  // The middle ring (weights 1/2, 1/2) shrinks to cos 45° of its radius: the candy wrapper starting.
  const mid = Array.from({ length: n }, (_, v) => v).filter(
    (v) => Math.abs(doc.mesh.positions[3 * v] - 1) < 1e-9 && doc.mesh.positions[3 * v + 1] !== 0,
  );
  assert.ok(mid.length > 0, 'the tube has a ring at the joint');
  const v = mid[0];
  const rest = Math.hypot(doc.mesh.positions[3 * v + 1], doc.mesh.positions[3 * v + 2]);
  const posed = Math.hypot(positions[3 * v + 1], positions[3 * v + 2]);
  assert.ok(Math.abs(posed / rest - Math.SQRT1_2) < 1e-6, `the joint ring shrinks by cos 45° (ratio ${posed / rest})`);
});

test('dual quaternion skinning of the twist at 90° matches the closed form, keeps every radius, and blended at β = 1 is DQS, at β = 0 LBS', () => {
  const reference = new CpuReference(doc, influences);
  const pose = poseAt(30);
  const expected = closedFormDqs(90 * RAD);
  assert.ok(worstDifference(reference.positions('dqs', pose, settings()), expected) < 1e-9, 'DQS matches its closed form');
  const positions = reference.positions('dqs', pose, settings({ antipodality: 'per-bone' }));
  assert.ok(worstDifference(positions, expected) < 1e-9, 'per-bone antipodality is the same at 90°');
  for (let v = 0; v < n; v++) {
    const rest = Math.hypot(doc.mesh.positions[3 * v + 1], doc.mesh.positions[3 * v + 2]);
    assert.ok(Math.abs(Math.hypot(positions[3 * v + 1], positions[3 * v + 2]) - rest) < 1e-9, `vertex ${v} keeps its distance to the axis`);
  }
  const ones = new Float32Array(n).fill(1);
  assert.ok(worstDifference(reference.positions('blend', pose, settings({ blendWeights: ones })), expected) < 1e-9, 'blend β = 1 is DQS');
  assert.ok(worstDifference(reference.positions('blend', pose, settings()), handLbs(90 * RAD)) < 1e-12, 'blend β = 0 is LBS');
});

test('past 180°, per-bone antipodality takes the short way round (−179° instead of 181°)', () => {
  assert.equal(twistDegreesAt(69), 181);
  const reference = new CpuReference(doc, influences);
  const positions = reference.positions('dqs', poseAt(69), settings({ antipodality: 'per-bone' }));
  assert.ok(worstDifference(positions, closedFormDqs(-179 * RAD)) < 1e-9, 'the second bone’s quaternion is flipped to its parent’s side');
  assert.ok(worstDifference(positions, closedFormDqs(181 * RAD)) > 1e-2, 'and differs from the long way round');
});

/** One example's displacement δ of each vertex (a made-up smooth field), weighted a = 0.4. */
const delta = (v: number): number[] => [0.01 * Math.sin(v), 0.02 * Math.cos(0.5 * v), 0.005 * ((v % 7) - 3)];
const A = 0.4;

function contextSource(): ContextSource {
  const displacements = new Float64Array(3 * n);
  for (let v = 0; v < n; v++) displacements.set(delta(v), 3 * v);
  return {
    displacements: () => displacements,
    normalDeltas: () => null,
    weights: Float64Array.from([A]),
    setPose: () => {},
    require: () => {},
    active: [],
  };
}

test('context LBS and context DQS skin the rest shape moved by Σ a_j δ_j, at every vertex and at a few', () => {
  const reference = new CpuReference(doc, influences);
  const pose = poseAt(30);
  const moved = (v: number): number[] => delta(v).map((d) => A * d);
  const context = contextSource();
  const lbs = reference.positions('context-lbs', pose, settings({ context }));
  assert.ok(worstDifference(lbs, handLbs(90 * RAD, moved)) < 1e-12, 'context LBS by hand');
  const dqs = reference.positions('context-dqs', pose, settings({ context })).slice();
  assert.ok(worstDifference(dqs, closedFormDqs(90 * RAD, moved)) < 1e-9, 'context DQS in closed form');
  assert.ok(worstDifference(dqs, closedFormDqs(90 * RAD)) > 1e-3, 'the displacement shows');

  const vertices = Uint32Array.from([n - 1, 7, 2400, 0]);
  const some = new Float64Array(3 * vertices.length);
  assert.equal(reference.positionsAt('context-dqs', pose, settings({ context }), vertices, vertices.length, some), true);
  vertices.forEach((v, i) => {
    assert.ok(worstDifference(some.subarray(3 * i, 3 * i + 3), dqs.subarray(3 * v, 3 * v + 3)) < 1e-12, `vertex ${v} alone as among all`);
  });
  assert.equal(reference.positionsAt('perface', pose, settings(), vertices, 4, some), false, 'per-face couples every vertex');
});

test('per-face skinning is workers/skinning’s per-face solve of the same influences and fixed vertices', () => {
  const reference = new CpuReference(doc, influences);
  const pose = poseAt(30);
  const fixed = perFaceFixedVertices(doc.skeleton.parents, influences, doc.handles);
  const setup = perFaceSkinningSetup(doc.mesh.positions, doc.mesh.triangles, influences, doc.skeleton.parents.length, fixed);
  const expected = new Float64Array(3 * n);
  perFaceSkinning(setup, pose.transforms, expected);
  const positions = reference.positions('perface', pose, settings());
  assert.ok(worstDifference(positions, expected) < 1e-12, 'the same solve');
  assert.ok(worstDifference(positions, handLbs(90 * RAD)) > 1e-3, 'and not linear blend');
  // Without examples, per-face context is plain per-face.
  const context = { ...contextSource(), weights: new Float64Array(0), active: [] };
  assert.ok(
    worstDifference(reference.positions('context-perface-eq9', pose, settings({ context })), expected) < 1e-9,
    'Eq. 9 with no example',
  );
});
