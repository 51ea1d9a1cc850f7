/**
 * Posing by hand on the course body through the real command registry, scene store and pose evaluator: each pose edit
 * is one undo step whose undo gives back the document bit for bit; the rest toggle is a view, not a step; a bone
 * rotated shows that rotation over the clip at every time; IK puts the end joint on the target; the Pose panel's
 * angles round-trip through the rotation in either space; bad arguments name the command and the reason.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CommandRegistry } from '../../renderer/commands/command-registry.ts';
import { PoseEvaluator, type PoseView } from '../../renderer/deform/pose-evaluator.ts';
import { BoneSelection } from '../../renderer/skeleton/bone-selection.ts';
import { PosePlayback } from '../../renderer/skeleton/pose-playback.ts';
import { poseCommands, type PoseToolControl } from '../../renderer/skeleton/pose-commands.ts';
import {
  boneRestFrame,
  boneRotationIn,
  eulerXyzToMatrix,
  matrixToEulerXyz,
  multiply3,
  relativeRotationFrom,
  rotationDefect,
  worldRotations,
  type PoseSpace,
} from '../../workers/rig/bone-rotations.ts';
import { forwardKinematics, posedJointPositions } from '../../workers/rig/forward-kinematics.ts';
import { moveJoints, reorderBones } from '../../workers/rig/bone-edits.ts';
import { identityPose } from '../../workers/rig/pose-sequence.ts';
import { boneCountOf, type SceneDocument } from '../../workers/scene/scene-document.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';
import { bodyDocument } from './full-documents.ts';
import { axisAngleMatrix } from './rotation-matrix.ts';

/** The course body's forearm (elbow → wrist on the +x arm) and its upper arm (skeleton.tgf edges 20→22, 18→20). */
const FOREARM = 19;
const UPPER_ARM = 17;
/** The test camera's viewing direction: down −z, turned a little (unit length). */
const VIEW = [0.28, 0, -0.96];

function setup(doc: SceneDocument = bodyDocument()) {
  const store = new SceneStore(doc, new UndoHistory());
  const boneSelection = new BoneSelection(store);
  const poseView: PoseView = { rest: false, live: null };
  // As the app's pose playback does: a new evaluator for each new document (it reads the one it was made with).
  let evaluated = store.doc;
  let evaluator = new PoseEvaluator(evaluated, poseView);
  let time = 0;
  const shown = () => {
    if (evaluated !== store.doc) evaluator = new PoseEvaluator((evaluated = store.doc), poseView);
    evaluator.evaluate(time);
    return evaluator;
  };
  let viewChanges = 0;
  let space: PoseSpace = 'local';
  let ik = false;
  let active = false;
  let pole: readonly number[] | null = null;
  const poseTool: PoseToolControl = {
    get active() {
      return active;
    },
    toggle: () => (active = !active),
    get space() {
      return space;
    },
    setSpace: (s) => (space = s),
    get ik() {
      return ik;
    },
    setIk: (on) => (ik = on),
    get pole() {
      return pole;
    },
    setPole: (p) => (pole = p),
    viewDirection: () => VIEW,
  };
  const commands = new CommandRegistry(() => ({}), undefined, { boneCount: () => boneCountOf(store.doc) });
  const handlers = poseCommands({ store, boneSelection, poseView, shown, poseViewChanged: () => viewChanges++, poseTool });
  for (const id of Object.keys(handlers) as (keyof typeof handlers)[]) commands.register(id, handlers[id] as never);
  return {
    store,
    boneSelection,
    poseView,
    commands,
    poseTool,
    shown,
    seek: (t: number) => (time = t),
    viewChanges: () => viewChanges,
  };
}

function assertSameDocument(actual: SceneDocument, expected: SceneDocument, what: string): void {
  for (const key of new Set([...Object.keys(actual), ...Object.keys(expected)]) as Set<keyof SceneDocument>)
    assert.equal(actual[key], expected[key], `${what}: ${key} is the same value as before`);
}

test('pose.rotate, pose.reset, pose.resetAll and pose.ik are one undo step each; undo gives back the very document', () => {
  const { store, commands, boneSelection, shown } = setup();
  const start = store.doc;
  const rotation = axisAngleMatrix([0, 0, 1], 0.7);
  void commands.execute('pose.rotate', { bone: FOREARM, rotation });
  assert.equal(store.history.undoCount, 1, 'pose.rotate is one step');
  assert.deepEqual(
    Array.from(store.doc.posedBones!.rotations.subarray(9 * FOREARM, 9 * FOREARM + 9)),
    rotation,
    'the bone holds the rotation given',
  );
  assert.equal(
    store.doc.posedBones!.bones.reduce((a, b) => a + b, 0),
    1,
    'only that bone is posed by hand',
  );
  const afterRotate = store.doc;

  boneSelection.select(FOREARM);
  void commands.execute('pose.reset');
  assert.equal(store.history.undoCount, 2, 'pose.reset is one step');
  assert.deepEqual(Array.from(store.doc.posedBones!.rotations.subarray(9 * FOREARM, 9 * FOREARM + 9)), [1, 0, 0, 0, 1, 0, 0, 0, 1]);
  assert.equal(store.doc.posedBones!.bones[FOREARM], 1, 'a reset bone stays posed, at rest, over the clip');
  const afterReset = store.doc;

  // IK over the clip's frame 0, the forearm at rest: the wrist to a point a third of the way to the shoulder, moved off
  // the arm's line, the elbow bending toward a pole below and behind the shoulder. The clip's matrices are rotations
  // only within 1e-6 (PROVENANCE.md), and the chain's lengths carry that error: 1e-6 of the diagonal here; at rest the
  // solve is exact to 1e-9 (the IK test below).
  const { bones } = store.doc.skeleton;
  const at = (j: number, joints: Float64Array) => [joints[3 * j], joints[3 * j + 1], joints[3 * j + 2]];
  const before = shown().joints;
  const shoulder = at(bones[2 * UPPER_ARM], before);
  const wrist = at(bones[2 * FOREARM + 1], before);
  const target = [0, 1, 2].map((k) => wrist[k] + (shoulder[k] - wrist[k]) / 3 + (k === 1 ? 0.04 : 0)) as [number, number, number];
  const pole: [number, number, number] = [shoulder[0] + 0.1, shoulder[1] - 0.4, shoulder[2] - 0.3];
  assert.equal(commands.execute('pose.ik', { bone: FOREARM, target, pole }), true, 'pose.ik says the target was within reach');
  assert.equal(store.history.undoCount, 3, 'pose.ik is one step');
  const after = shown().joints;
  const end = at(bones[2 * FOREARM + 1], after);
  const miss = Math.hypot(end[0] - target[0], end[1] - target[1], end[2] - target[2]) / store.doc.diagonal;
  assert.ok(miss < 1e-6, `the wrist is on the target within 1e-6 of the diagonal (off by ${miss})`);
  const u = target.map((x, k) => x - shoulder[k]);
  const v = pole.map((x, k) => x - shoulder[k]);
  const normal = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
  const offPlane = (joints: Float64Array) => {
    const elbow = at(bones[2 * FOREARM], joints);
    return normal.reduce((sum, n, k) => sum + n * (elbow[k] - shoulder[k]), 0) / Math.hypot(...normal) / store.doc.diagonal;
  };
  assert.ok(Math.abs(offPlane(before)) > 1e-3, 'the elbow was off that plane before');
  const off = offPlane(after);
  assert.ok(Math.abs(off) < 1e-6, `the elbow is in the plane through the shoulder, the target and the pole (off by ${off})`);
  void commands.execute('pose.resetAll');
  assert.equal(store.history.undoCount, 4, 'pose.resetAll is one step');
  assert.equal(store.doc.posedBones, undefined, 'reset all lets every bone go');
  assert.throws(() => commands.execute('pose.resetAll'), /no bone is posed by hand/, 'a second reset all has nothing to do');

  store.history.undo();
  store.history.undo();
  assertSameDocument(store.doc, afterReset, 'undoing reset all and IK');
  store.history.undo();
  assertSameDocument(store.doc, afterRotate, 'undoing the reset');
  store.history.undo();
  assertSameDocument(store.doc, start, 'undoing the rotation');
  store.history.redo();
  assertSameDocument(store.doc, afterRotate, 'redo');
});

test('a rotated bone shows its rotation over the clip at every time, and forward kinematics follows', () => {
  const { commands, shown, seek, store } = setup();
  const rotation = axisAngleMatrix([0, 1, 0], -1.1);
  void commands.execute('pose.rotate', { bone: FOREARM, rotation });
  const transforms = new Float64Array(12 * boneCountOf(store.doc));
  const joints = new Float64Array(store.doc.skeleton.joints.length);
  for (const time of [0, 57, 201.5, 393]) {
    seek(time);
    const e = shown();
    const ours = Array.from(e.rotations.subarray(9 * FOREARM, 9 * FOREARM + 9));
    assert.deepEqual(ours, rotation, `the forearm holds its rotation at time ${time}`);
    // Every other bone is the clip's; the joints are forward kinematics of those rotations (libigl's convention).
    const clip = store.doc.poses!;
    assert.equal(clip.kind, 'matrices');
    const frame = Math.round(time);
    if (frame === time)
      assert.deepEqual(
        Array.from(e.rotations.subarray(9 * UPPER_ARM, 9 * UPPER_ARM + 9)),
        Array.from(
          (clip as { rotations: Float64Array }).rotations.subarray(
            9 * (frame * boneCountOf(store.doc) + UPPER_ARM),
            9 * (frame * boneCountOf(store.doc) + UPPER_ARM) + 9,
          ),
        ),
        `the upper arm plays the clip at frame ${frame}`,
      );
    forwardKinematics(store.doc.skeleton, e.rotations, transforms);
    posedJointPositions(store.doc.skeleton, transforms, joints);
    for (let k = 0; k < joints.length; k++) assert.ok(Math.abs(joints[k] - e.joints[k]) < 1e-12, `joint coordinate ${k} at time ${time}`);
  }
});

test('pose.rest is a view toggle: no undo step, the rest pose shown, the document as it was', () => {
  const { commands, store, shown, poseView, viewChanges } = setup();
  void commands.execute('pose.rotate', { bone: FOREARM, quaternion: [0, 0, Math.sin(0.4), Math.cos(0.4)] });
  const before = store.doc;
  const steps = store.history.undoCount;
  assert.equal(commands.execute('pose.rest'), true, 'the toggle says it is on');
  assert.equal(store.history.undoCount, steps, 'no undo step');
  assert.equal(store.doc, before, 'the document is the same value');
  assert.ok(viewChanges() > 0, 'the view is told to draw again');
  const e = shown();
  for (let b = 0; b < boneCountOf(store.doc); b++)
    assert.deepEqual(Array.from(e.rotations.subarray(9 * b, 9 * b + 9)), [1, 0, 0, 0, 1, 0, 0, 0, 1], `bone ${b} at rest`);
  assert.deepEqual(Array.from(e.joints), Array.from(store.doc.skeleton.joints), 'the joints at their rest positions');
  assert.equal(commands.execute('pose.rest'), false, 'off again');
  assert.equal(poseView.rest, false);
  assert.ok(Math.abs(shown().rotations[9 * FOREARM + 1] + Math.sin(0.8)) < 1e-12, 'the posed forearm shows again (R₀₁ = −sin 0.8)');
});

test('pose.rotate takes a quaternion as the rotation it is, and refuses what is not a rotation, naming why', () => {
  const { commands, store } = setup();
  const half = 0.3;
  const axis = [1 / Math.sqrt(3), 1 / Math.sqrt(3), 1 / Math.sqrt(3)];
  // A quaternion scaled by 2 is the same rotation.
  const q = [...axis.map((a) => 2 * a * Math.sin(half)), 2 * Math.cos(half)];
  void commands.execute('pose.rotate', { bone: 3, quaternion: q as [number, number, number, number] });
  const expected = axisAngleMatrix(axis, 2 * half);
  const got = store.doc.posedBones!.rotations.subarray(27, 36);
  for (let k = 0; k < 9; k++) assert.ok(Math.abs(got[k] - expected[k]) < 1e-15, `entry ${k} equals Rodrigues' formula`);
  const before = store.doc;
  assert.throws(
    () => commands.execute('pose.rotate', { bone: 3, rotation: [1, 0, 0, 0, 1, 0, 0, 0, -1] }),
    /pose\.rotate: rotation is not a rotation matrix/,
  );
  assert.throws(() => commands.execute('pose.rotate', { bone: 3, rotation: [1, 1, 0, 0, 1, 0, 0, 0, 1] }), /not a rotation matrix/);
  assert.throws(() => commands.execute('pose.rotate', { bone: 3, quaternion: [0, 0, 0, 0] }), /pose\.rotate: quaternion is zero/);
  assert.throws(() => commands.execute('pose.rotate', { bone: 3 }), /give exactly one of rotation/);
  assert.throws(() => commands.execute('pose.rotate', { bone: 99, rotation: [1, 0, 0, 0, 1, 0, 0, 0, 1] }), /pose\.rotate.*bone/);
  assert.throws(() => commands.execute('pose.ik', { bone: 0, target: [0, 0, 0] }), /pose\.ik: bone 0 has no parent bone/);
  assert.throws(() => commands.execute('pose.reset'), /pose\.reset: no bone given and none selected/);
  assert.equal(store.doc, before, 'refused edits change nothing');
  assert.equal(store.history.undoCount, 1);
});

test('pose.ik puts the forearm’s end on a reachable target and keeps the elbow in the pole plane', () => {
  // At rest the rotations are exact (1e-9 of the diagonal); over the clip, whose matrices are rotations only within
  // 1e-6 (PROVENANCE.md), the chain's lengths carry that error (1e-6).
  for (const [withClip, tolerance] of [
    [false, 1e-9],
    [true, 1e-6],
  ] as const) {
    const body = bodyDocument();
    const { commands, store, shown } = setup(withClip ? body : { ...body, poses: null, posesFile: null });
    const { bones } = store.doc.skeleton;
    const shoulder = bones[2 * UPPER_ARM],
      elbow = bones[2 * FOREARM],
      wrist = bones[2 * FOREARM + 1];
    const at = (j: number, joints: Float64Array) => [joints[3 * j], joints[3 * j + 1], joints[3 * j + 2]];
    const before = shown();
    const s = at(shoulder, before.joints);
    const w = at(wrist, before.joints);
    // A target the arm reaches: the wrist pulled 30 % of the way toward the shoulder and moved a little.
    const target = [w[0] + 0.3 * (s[0] - w[0]), w[1] + 0.3 * (s[1] - w[1]) + 0.05, w[2] + 0.05];
    const pole = [s[0] + 0.1, s[1] - 0.4, s[2] - 0.3];
    const reached = commands.execute('pose.ik', {
      bone: FOREARM,
      target: target as [number, number, number],
      pole: pole as [number, number, number],
    });
    assert.equal(reached, true, 'the target is within reach');
    const after = shown();
    const end = at(wrist, after.joints);
    const diagonal = store.doc.diagonal;
    const miss = Math.hypot(end[0] - target[0], end[1] - target[1], end[2] - target[2]);
    assert.ok(miss < tolerance * diagonal, `the wrist is on the target (off by ${miss / diagonal} of the diagonal, clip ${withClip})`);
    const e = at(elbow, after.joints);
    const moved = at(shoulder, after.joints).map((x, k) => x - s[k]);
    assert.ok(Math.hypot(...moved) < 1e-15 * diagonal + 1e-15, 'the shoulder stays (up to rounding)');
    // The elbow lies in the plane through the shoulder, the target and the pole.
    const u = [target[0] - s[0], target[1] - s[1], target[2] - s[2]];
    const v = [pole[0] - s[0], pole[1] - s[1], pole[2] - s[2]];
    const n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
    const off = ((e[0] - s[0]) * n[0] + (e[1] - s[1]) * n[1] + (e[2] - s[2]) * n[2]) / Math.hypot(...n);
    assert.ok(Math.abs(off) < tolerance * diagonal, `the elbow is in the pole plane (off by ${off}, clip ${withClip})`);
    const posed = store.doc.posedBones!;
    assert.equal(posed.bones[FOREARM] + posed.bones[UPPER_ARM], 2, 'the forearm and the upper arm are posed');
    assert.equal(
      posed.bones.reduce((a, b) => a + b, 0),
      2,
      'and nothing else',
    );
  }
});

test('the Pose panel’s angles: set 90° about the local x axis, read back 90°, in either space the inverse of the other', () => {
  const { commands, store, shown } = setup();
  const { skeleton } = store.doc;
  for (const space of ['local', 'global'] as const) {
    const wanted = new Float64Array(9);
    eulerXyzToMatrix([Math.PI / 2, 0, 0], wanted);
    const relative = new Float64Array(9);
    relativeRotationFrom(skeleton, shown().rotations, FOREARM, space, wanted, relative);
    assert.ok(rotationDefect(relative) < 1e-12, `${space}: a rotation (made exact from the clip's near-rotations)`);
    void commands.execute('pose.rotate', { bone: FOREARM, rotation: [...relative] });
    const read = new Float64Array(9);
    boneRotationIn(skeleton, shown().rotations, FOREARM, space, read);
    const angles = matrixToEulerXyz(read);
    assert.ok(
      Math.abs(angles[0] - Math.PI / 2) < 1e-12 && Math.abs(angles[1]) < 1e-12 && Math.abs(angles[2]) < 1e-12,
      `${space}: reads back 90°, 0, 0`,
    );
  }
  // In local space 90° about x turns the forearm about its own x axis: world rotation Q = Q_parent · F · Rx · Fᵀ.
  const local = new Float64Array(9);
  eulerXyzToMatrix([Math.PI / 2, 0, 0], local);
  const relative = new Float64Array(9);
  relativeRotationFrom(skeleton, shown().rotations, FOREARM, 'local', local, relative);
  const F = new Float64Array(9);
  boneRestFrame(skeleton, FOREARM, F);
  const xAxis = [F[0], F[3], F[6]];
  const expected = axisAngleMatrix(xAxis, Math.PI / 2);
  for (let k = 0; k < 9; k++)
    assert.ok(Math.abs(relative[k] - expected[k]) < 1e-12, `F·Rx·Fᵀ is the turn about the bone's own x axis (entry ${k})`);
  // The rest frame: y along the bone, right-handed, orthonormal.
  const { joints, bones } = skeleton;
  const a = 3 * bones[2 * FOREARM],
    b = 3 * bones[2 * FOREARM + 1];
  const along = [joints[b] - joints[a], joints[b + 1] - joints[a + 1], joints[b + 2] - joints[a + 2]];
  const length = Math.hypot(...along);
  for (let k = 0; k < 3; k++) assert.ok(Math.abs(F[3 * k + 1] - along[k] / length) < 1e-12, 'the frame’s y axis runs along the bone');
  assert.ok(rotationDefect(F) < 1e-12, 'the frame is a rotation');
  // Global rotation is the world rotation: Q_forearm from worldRotations.
  const world = new Float64Array(9 * boneCountOf(store.doc));
  worldRotations(skeleton, shown().rotations, world);
  const read = new Float64Array(9);
  boneRotationIn(skeleton, shown().rotations, UPPER_ARM, 'global', read);
  for (let k = 0; k < 9; k++) assert.ok(Math.abs(read[k] - world[9 * UPPER_ARM + k]) < 1e-15, 'global reading = world rotation');
  const product = new Float64Array(9);
  multiply3(world, 9 * UPPER_ARM, shown().rotations, 9 * FOREARM, product, 0);
  for (let k = 0; k < 9; k++) assert.ok(Math.abs(product[k] - world[9 * FOREARM + k]) < 1e-15, 'Q_child = Q_parent · R_child');
});

test('Euler angles: XYZ angles and back, away from gimbal lock, against the product of the axis rotations', () => {
  for (const angles of [
    [0.3, -0.2, 1.1],
    [-2.9, 1.2, -0.4],
    [1.0, -1.5, 3.0],
  ]) {
    const m = new Float64Array(9);
    eulerXyzToMatrix(angles, m);
    const product = new Float64Array(9);
    const xy = new Float64Array(9);
    multiply3(axisAngleMatrix([1, 0, 0], angles[0]), 0, axisAngleMatrix([0, 1, 0], angles[1]), 0, xy, 0);
    multiply3(xy, 0, axisAngleMatrix([0, 0, 1], angles[2]), 0, product, 0);
    for (let k = 0; k < 9; k++) assert.ok(Math.abs(m[k] - product[k]) < 1e-15, `Rx·Ry·Rz entry ${k}`);
    const back = matrixToEulerXyz(m);
    for (let k = 0; k < 3; k++) assert.ok(Math.abs(back[k] - angles[k]) < 1e-12, `angle ${k} back`);
  }
});

test('copy and paste mirrored: the left arm takes the right arm’s turn reflected; pasting the mirror again gives the original', () => {
  const { commands, store, shown, seek } = setup();
  assert.throws(() => commands.execute('pose.pasteMirrored'), /no pose has been copied/, 'nothing to paste yet');
  seek(87);
  const original = Float64Array.from(shown().rotations);
  void commands.execute('pose.copy');
  assert.equal(store.history.undoCount, 0, 'copying is not an edit');
  void commands.execute('pose.pasteMirrored');
  assert.equal(store.history.undoCount, 1, 'the paste is one step');
  const mirrored = store.doc.posedBones!;
  assert.ok(
    mirrored.bones.every((flag) => flag === 1),
    'every bone is posed',
  );
  // The body's arms: bone 17 (+x upper arm) and bone 18 (−x upper arm) are partners across x = 0: R'₁₈ = M R₁₇ M.
  const M = [-1, 1, 1];
  for (let r = 0; r < 3; r++)
    for (let c = 0; c < 3; c++)
      assert.equal(
        mirrored.rotations[9 * 18 + 3 * r + c],
        M[r] * M[c] * original[9 * 17 + 3 * r + c],
        `the −x upper arm is the +x one reflected (entry ${r},${c})`,
      );
  void commands.execute('pose.copy');
  void commands.execute('pose.pasteMirrored');
  assert.deepEqual(Array.from(store.doc.posedBones!.rotations), Array.from(original), 'mirrored twice is the original, bit for bit');
  const pasted = store.doc;
  store.history.undo();
  assert.equal(store.doc.posedBones, mirrored, 'undo gives back the first paste');
  store.history.undo();
  assert.equal(store.doc.posedBones, undefined, 'and then the clip as it was');
  store.history.redo();
  store.history.redo();
  assert.equal(store.doc.posedBones, pasted.posedBones, 'redo gives back the second paste');
});

test('a pose copied from one skeleton does not paste onto another with as many bones; a new scene forgets the copy', () => {
  const { commands, store } = setup();
  void commands.execute('pose.copy');
  const B = boneCountOf(store.doc);
  // The same bones numbered the other way round: as many bones, each rotation now on another bone.
  const reordered = reorderBones(
    store.doc,
    Array.from({ length: B }, (_, b) => B - 1 - b),
  );
  store.edit(reordered.label, reordered.fields);
  assert.equal(boneCountOf(store.doc), B, 'as many bones as the copy has rotations');
  assert.throws(() => commands.execute('pose.pasteMirrored'), /pose was copied from another skeleton.*copy the pose again/);
  const moved = moveJoints(store.doc, [{ joint: 3, position: [0.1, 0.2, 0.3] }]);
  store.edit(moved.label, moved.fields);
  assert.throws(() => commands.execute('pose.pasteMirrored'), /another skeleton/, 'nor after a rest joint moved');
  store.history.undo();
  store.history.undo();
  const steps = store.history.undoCount;
  void commands.execute('pose.pasteMirrored');
  assert.equal(store.history.undoCount, steps + 1, 'the skeleton it was copied from again (undo): the paste is one step');
  // Another file with the very same bone count opens: the copy is gone.
  store.open(bodyDocument(), 'opened reference.obj');
  assert.equal(boneCountOf(store.doc), B);
  assert.throws(() => commands.execute('pose.pasteMirrored'), /no pose has been copied/);
});

test('the app’s pose playback shows a pose edit at once, keeps the timeline, and shows a gesture’s live bones', () => {
  const store = new SceneStore(bodyDocument(), new UndoHistory());
  const sequences: number[] = [];
  let posed = 0;
  const playback = new PosePlayback(store, { setSequence: (_kind, duration) => void sequences.push(duration) }, () => posed++);
  const rotation = axisAngleMatrix([1, 0, 0], 0.5);
  store.edit('Pose', {
    posedBones: { rotations: identityPose(boneCountOf(store.doc)), bones: new Uint8Array(boneCountOf(store.doc)) },
  });
  const before = posed;
  const posedBones = { rotations: identityPose(boneCountOf(store.doc)), bones: new Uint8Array(boneCountOf(store.doc)) };
  posedBones.rotations.set(rotation, 9 * FOREARM);
  posedBones.bones[FOREARM] = 1;
  store.edit('Pose the forearm', { posedBones });
  assert.ok(posed > before, 'the view is told');
  assert.equal(sequences.length, 1, 'the timeline keeps its sequence (no restart)');
  playback.evaluator.evaluate(120);
  assert.deepEqual(Array.from(playback.evaluator.rotations.subarray(9 * FOREARM, 9 * FOREARM + 9)), rotation, 'the edit shows');
  // A gesture's live pose shows over the document until it is cleared.
  const live = { rotations: identityPose(boneCountOf(store.doc)), bones: new Uint8Array(boneCountOf(store.doc)) };
  live.bones[UPPER_ARM] = 1;
  playback.view.live = live;
  playback.evaluator.evaluate(120);
  assert.deepEqual(
    Array.from(playback.evaluator.rotations.subarray(9 * UPPER_ARM, 9 * UPPER_ARM + 9)),
    [1, 0, 0, 0, 1, 0, 0, 0, 1],
    'the live bone',
  );
  playback.view.live = null;
  playback.evaluator.evaluate(120);
  assert.notDeepEqual(
    Array.from(playback.evaluator.rotations.subarray(9 * UPPER_ARM, 9 * UPPER_ARM + 9)),
    [1, 0, 0, 0, 1, 0, 0, 0, 1],
    'the clip again once the gesture is over',
  );
});

test('without a clip, a gesture’s live bones leave no trace once it ends', () => {
  const body = bodyDocument();
  const store = new SceneStore({ ...body, poses: null, posesFile: null }, new UndoHistory());
  const playback = new PosePlayback(store, { setSequence: () => undefined }, () => undefined);
  const live = { rotations: identityPose(boneCountOf(store.doc)), bones: new Uint8Array(boneCountOf(store.doc)) };
  live.rotations.set(axisAngleMatrix([0, 0, 1], 0.9), 9 * UPPER_ARM);
  live.bones[UPPER_ARM] = 1;
  playback.view.live = live;
  playback.evaluator.evaluate(0);
  assert.notDeepEqual(Array.from(playback.evaluator.joints), Array.from(store.doc.skeleton.joints), 'the live bone moves the arm');
  playback.view.live = null;
  playback.evaluator.evaluate(0);
  assert.deepEqual(Array.from(playback.evaluator.joints), Array.from(store.doc.skeleton.joints), 'the rest pose again, every joint');
});

test('the tool commands: the gizmo’s space toggles or is set, IK mode toggles, the pole is set and cleared; none is an edit', () => {
  const { commands, poseTool, store } = setup();
  assert.equal(commands.execute('pose.space'), 'global', 'toggled from local');
  assert.equal(commands.execute('pose.space', 'global'), 'global', 'set');
  assert.equal(commands.execute('pose.space'), 'local');
  assert.equal(commands.execute('pose.ikMode'), true);
  assert.equal(poseTool.ik, true);
  void commands.execute('pose.pole', [0.1, -0.2, 0.3]);
  assert.deepEqual(poseTool.pole, [0.1, -0.2, 0.3]);
  void commands.execute('pose.pole', null);
  assert.equal(poseTool.pole, null);
  void commands.execute('pose.pole', [0.1, -0.2, 0.3]);
  store.open(bodyDocument(), 'opened reference.obj');
  assert.equal(poseTool.pole, null, 'a new scene lets the pole go');
  assert.throws(() => commands.execute('pose.pole', [0, 0] as never), /pose\.pole/);
  assert.throws(() => commands.execute('pose.space', 'world' as never), /pose\.space/);
  assert.equal(store.history.undoCount, 0, 'settings, not edits');
});

test('pose.poleFromView puts the pole in front of the elbow toward the camera; pose.pole without an argument clears it', () => {
  const body = bodyDocument();
  const { commands, poseTool, boneSelection, shown, poseView, store } = setup({ ...body, poses: null, posesFile: null });
  assert.throws(() => commands.execute('pose.poleFromView'), /no bone is selected/);
  boneSelection.select(FOREARM);
  void commands.execute('pose.rotate', { bone: FOREARM, rotation: axisAngleMatrix([0, 0, 1], 0.6) });
  void commands.execute('pose.poleFromView');
  const { bones } = store.doc.skeleton;
  const joints = shown().joints;
  const at = (j: number) => [joints[3 * j], joints[3 * j + 1], joints[3 * j + 2]];
  const shoulder = at(bones[2 * UPPER_ARM]);
  const elbow = at(bones[2 * FOREARM]);
  const wrist = at(bones[2 * FOREARM + 1]);
  const reach = Math.hypot(...elbow.map((x, k) => x - shoulder[k])) + Math.hypot(...wrist.map((x, k) => x - elbow[k]));
  // Where the camera sits from the elbow (−VIEW), as far as the arm reaches.
  const expected = elbow.map((x, k) => x - reach * VIEW[k]);
  const pole = poseTool.pole!;
  for (let k = 0; k < 3; k++) assert.ok(Math.abs(pole[k] - expected[k]) < 1e-12, `pole coordinate ${k}: elbow − reach · view`);
  assert.equal(store.history.undoCount, 1, 'a setting, not an edit');
  void commands.execute('pose.pole');
  assert.equal(poseTool.pole, null, 'no argument clears the pole');
  boneSelection.select(0);
  assert.equal(commands.isEnabled('pose.poleFromView'), false, 'greyed on a root bone');
  assert.equal(commands.refusal('pose.poleFromView'), 'bone 0 has no parent bone; two-bone IK turns a bone and its parent');
  assert.throws(() => commands.execute('pose.poleFromView'), /pose\.poleFromView.*bone 0 has no parent bone/);
  boneSelection.select(FOREARM);
  poseView.rest = true;
  assert.throws(() => commands.execute('pose.poleFromView'), /the rest pose is shown/);
  assert.equal(poseTool.pole, null, 'the refusals set nothing');
});
