/**
 * The pose tool's states without a browser, on the course body at rest, with the real gizmo (three.js's
 * TransformControls, fed the pointer by the tool), the real pose commands, store and evaluator, and a 90° camera in
 * front of the +x arm: a click on the wrist picks the forearm; a press on a gizmo ring is taken (the camera does not
 * get it) and a drag along the ring turns the forearm about that ring's axis, live and without a step until the
 * release makes one; Escape mid-drag puts the bone back; a press off the gizmo goes to the camera; in IK mode a drag of
 * the wrist is one pose.ik step.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as THREE from 'three';
import { CommandRegistry } from '../../renderer/commands/command-registry.ts';
import { PoseEvaluator, type PoseView } from '../../renderer/deform/pose-evaluator.ts';
import { BoneSelection } from '../../renderer/skeleton/bone-selection.ts';
import { poseCommands, reachedPose, withBonePosed } from '../../renderer/skeleton/pose-commands.ts';
import type { ToolPointer } from '../../renderer/tools/tool.ts';
import { PoseTool } from '../../renderer/tools/pose/pose-tool.ts';
import { PoseGizmo } from '../../renderer/view/pose-gizmo.ts';
import { boneForJoint } from '../../renderer/view/skeleton-overlay.ts';
import { moveJoints, renameBone } from '../../workers/rig/bone-edits.ts';
import { worldRotations } from '../../workers/rig/bone-rotations.ts';
import { boneCountOf } from '../../workers/scene/scene-document.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';
import { bodyDocument } from './full-documents.ts';

const FOREARM = 19;
const WRIST = 20;
const SIZE = 400;

function setup() {
  const body = bodyDocument();
  const store = new SceneStore({ ...body, poses: null, posesFile: null }, new UndoHistory());
  const boneSelection = new BoneSelection(store);
  const view: PoseView = { rest: false, live: null };
  let evaluated = store.doc;
  let evaluator = new PoseEvaluator(evaluated, view);
  const shown = () => {
    if (evaluated !== store.doc) evaluator = new PoseEvaluator((evaluated = store.doc), view);
    evaluator.evaluate(0);
    return evaluator;
  };
  const scene = new THREE.Scene();
  const camera = new THREE.PerspectiveCamera(90, 1, 0.01, 100);
  camera.position.set(0.45, 0.22, 1.2);
  camera.lookAt(0.45, 0.22, 0);
  camera.updateMatrixWorld();
  const gizmo = new PoseGizmo(scene, camera);
  const commands = new CommandRegistry(() => ({ toolBusy: false }), undefined, { boneCount: () => boneCountOf(store.doc) });
  const page = (p: number[]) => {
    const v = new THREE.Vector3(p[0], p[1], p[2]).project(camera);
    return { x: ((v.x + 1) / 2) * SIZE, y: ((1 - v.y) / 2) * SIZE };
  };
  const jointAt = (x: number, y: number): number => {
    const joints = shown().joints;
    let best = -1;
    let bestDistance = 8;
    for (let j = 0; j < joints.length / 3; j++) {
      const p = page([joints[3 * j], joints[3 * j + 1], joints[3 * j + 2]]);
      const d = Math.hypot(p.x - x, p.y - y);
      if (d < bestDistance) [best, bestDistance] = [j, d];
    }
    return best;
  };
  const handlers = poseCommands({
    store,
    boneSelection,
    poseView: view,
    shown,
    poseViewChanged: () => undefined,
    poseTool: {
      active: true,
      toggle: () => undefined,
      space: 'local',
      setSpace: () => undefined,
      ik: false,
      setIk: () => undefined,
      pole: null,
      setPole: () => undefined,
      viewDirection: () => [0, 0, -1],
    },
  });
  for (const id of Object.keys(handlers) as (keyof typeof handlers)[]) commands.register(id, handlers[id] as never);
  const tool: PoseTool = new PoseTool({
    gizmo,
    selectedBone: () => boneSelection.bone,
    restShown: () => view.rest,
    pickBoneAt: (x, y) => {
      const j = jointAt(x, y);
      boneSelection.select(j < 0 ? -1 : boneForJoint(store.doc.skeleton.bones, j));
      tool.refresh();
    },
    jointAt,
    // The canvas fills the page from its corner: a page point's ray, from the camera's unprojection of its near and far
    // points (the viewport's own needs a canvas).
    rayThrough: (x, y) => {
      const ndc = [(x / SIZE) * 2 - 1, 1 - (y / SIZE) * 2];
      const near = new THREE.Vector3(ndc[0], ndc[1], -1).unproject(camera);
      const direction = new THREE.Vector3(ndc[0], ndc[1], 1).unproject(camera).sub(near).normalize();
      return { origin: [near.x, near.y, near.z], direction: [direction.x, direction.y, direction.z] };
    },
    viewDirection: () => {
      const view = camera.getWorldDirection(new THREE.Vector3());
      return [view.x, view.y, view.z];
    },
    skeleton: () => store.doc.skeleton,
    onSkeletonChange: (listener) =>
      void store.subscribe((change) => {
        if (change.kind === 'document' && change.previous.skeleton !== store.doc.skeleton) listener();
      }),
    shown,
    evaluated: () => evaluator,
    live: (posed) => (view.live = posed),
    withBone: (bone, rotation) => withBonePosed(store.doc, bone, rotation),
    reached: (bone, target, pole, from) => reachedPose(store.doc, from, bone, target, pole).posedBones,
    rotate: (bone, rotation) => void commands.execute('pose.rotate', { bone, rotation: [...rotation] }),
    reach: (bone, target) => void commands.execute('pose.ik', { bone, target: [target[0], target[1], target[2]] }),
    redraw: () => undefined,
  });
  tool.activate();
  const pointer = (p: { x: number; y: number }, button = 0): ToolPointer => ({
    x: p.x,
    y: p.y,
    clientX: p.x,
    clientY: p.y,
    width: SIZE,
    height: SIZE,
    button,
    buttons: 1,
    pointerId: 1,
    pointerType: 'mouse',
    pressure: 0.5,
    shiftKey: false,
    ctrlKey: false,
    metaKey: false,
    altKey: false,
  });
  const world = () => {
    const e = shown();
    const out = new Float64Array(e.rotations.length);
    worldRotations(store.doc.skeleton, e.rotations, out);
    return out;
  };
  return { store, tool, gizmo, shown, page, pointer, world, boneSelection, view };
}

/** The axis of the rotation a · bᵀ (3×3 row-major at offsets), unit, and its angle. */
function turnBetween(a: Float64Array, b: Float64Array, o: number): { axis: number[]; angle: number } {
  const m: number[] = [];
  for (let r = 0; r < 3; r++)
    for (let c = 0; c < 3; c++)
      m.push(a[o + 3 * r] * b[o + 3 * c] + a[o + 3 * r + 1] * b[o + 3 * c + 1] + a[o + 3 * r + 2] * b[o + 3 * c + 2]);
  const s = [m[7] - m[5], m[2] - m[6], m[3] - m[1]];
  const n = Math.hypot(...s);
  return { axis: s.map((v) => v / n), angle: Math.atan2(n / 2, (m[0] + m[4] + m[8] - 1) / 2) };
}

test('click the wrist, drag the z ring: the forearm turns about that axis, one step at release; Escape puts it back', () => {
  const { store, tool, gizmo, shown, page, pointer, world, boneSelection, view } = setup();
  const wrist = shown().joints.subarray(3 * WRIST, 3 * WRIST + 3);
  const at = page([...wrist]);
  assert.equal(tool.current.onPointerDown!(pointer(at)), false, 'a click off the gizmo is the camera’s press too');
  tool.current.onPointerUp!(pointer(at));
  assert.equal(boneSelection.bone, FOREARM, 'the click on the wrist picks the forearm');
  assert.ok(gizmo.visible, 'the gizmo shows on it');

  const ringAt = (angle: number) => page(gizmo.ringPoint(2, angle));
  const axis = gizmo.axisDirection(2);
  const before = world();
  // Around the ring from 45° until the gizmo picks the z ring there: a whole turn at most.
  let angle = Math.PI / 4;
  for (let tries = 1; !gizmo.hover((ringAt(angle).x / SIZE) * 2 - 1, 1 - (ringAt(angle).y / SIZE) * 2); tries++) {
    assert.ok(tries * 0.2 < 2 * Math.PI, 'some point of the z ring is picked as the z ring within a turn');
    angle += 0.2;
  }
  assert.equal(gizmo.axis, 'Z');
  assert.equal(tool.current.onPointerDown!(pointer(ringAt(angle))), true, 'a press on a ring is taken from the camera');
  assert.equal(tool.state, 'rotating');
  for (let k = 1; k <= 6; k++) tool.current.onPointerMove!(pointer(ringAt(angle + 0.1 * k)));
  assert.ok(view.live, 'the turn shows live');
  assert.equal(store.history.undoCount, 0, 'no step before the release');
  tool.current.onPointerUp!(pointer(ringAt(angle + 0.6)));
  assert.equal(tool.state, 'idle');
  assert.equal(view.live, null, 'the live pose is gone');
  assert.equal(store.history.undoCount, 1, 'one step at the release');
  const turn = turnBetween(world(), before, 9 * FOREARM);
  // The ring nearly faces the camera (the bone's z axis is the world's up to the arm's slope): about the angle dragged.
  assert.ok(turn.angle > 0.5 && turn.angle < 0.7, `a drag of 0.6 rad along the ring turns about as much (${turn.angle})`);
  const cross = [
    turn.axis[1] * axis[2] - turn.axis[2] * axis[1],
    turn.axis[2] * axis[0] - turn.axis[0] * axis[2],
    turn.axis[0] * axis[1] - turn.axis[1] * axis[0],
  ];
  assert.ok(Math.hypot(...cross) < 1e-9, 'about the ring’s axis');

  const posed = store.doc.posedBones;
  const afterDrag = world();
  angle += 0.6;
  assert.equal(tool.current.onPointerDown!(pointer(ringAt(angle))), true);
  for (let k = 1; k <= 4; k++) tool.current.onPointerMove!(pointer(ringAt(angle - 0.1 * k)));
  tool.cancel();
  assert.equal(tool.state, 'idle');
  assert.equal(view.live, null);
  assert.equal(store.doc.posedBones, posed, 'Escape keeps the document as it was');
  assert.equal(store.history.undoCount, 1, 'and makes no step');
  const still = turnBetween(world(), afterDrag, 9 * FOREARM);
  assert.ok(still.angle < 1e-12, 'the bone shows where it was before the cancelled drag');
});

test('IK mode: a drag of the wrist is one pose.ik step that puts the wrist on the view plane point under the pointer', () => {
  const { store, tool, shown, page, pointer, boneSelection, gizmo } = setup();
  boneSelection.select(FOREARM);
  tool.setIk(true);
  assert.equal(gizmo.visible, false, 'no gizmo in IK mode');
  const wrist = [...shown().joints.subarray(3 * WRIST, 3 * WRIST + 3)];
  const start = page(wrist);
  assert.equal(tool.current.onPointerDown!(pointer(start)), true, 'the end joint is taken');
  assert.equal(tool.state, 'reaching');
  const end = { x: start.x - 60, y: start.y - 30 };
  for (let k = 1; k <= 5; k++)
    tool.current.onPointerMove!(pointer({ x: start.x + (end.x - start.x) * (k / 5), y: start.y + (end.y - start.y) * (k / 5) }));
  tool.current.onPointerUp!(pointer(end));
  assert.deepEqual(store.history.undoLabels(), ['Reach with bone 19']);
  // The camera looks along −z, so the view plane through the wrist is z = wrist z; the pointer's point on it:
  const reached = shown().joints.subarray(3 * WRIST, 3 * WRIST + 3);
  const onPage = page([...reached]);
  assert.ok(Math.hypot(onPage.x - end.x, onPage.y - end.y) < 1e-6, 'the wrist is under the pointer');
  assert.ok(Math.abs(reached[2] - wrist[2]) < 1e-9, 'in the view plane through where it was');
});

test('while the rest pose is shown the gizmo is hidden and a press on its ring is the camera’s', () => {
  const { tool, gizmo, page, pointer, boneSelection, view, store } = setup();
  boneSelection.select(FOREARM);
  tool.refresh();
  assert.ok(gizmo.visible, 'the gizmo shows on the selected bone');
  const ring = page(gizmo.ringPoint(2, Math.PI / 4));
  view.rest = true;
  tool.refresh();
  assert.equal(gizmo.visible, false, 'hidden at rest');
  assert.equal(tool.current.onPointerDown!(pointer(ring)), false, 'the press goes to the camera');
  tool.current.onPointerUp!(pointer({ x: ring.x + 30, y: ring.y }));
  assert.equal(boneSelection.bone, FOREARM, 'a drag (the camera’s) keeps the selection');
  assert.equal(store.history.undoCount, 0);
  view.rest = false;
  tool.refresh();
  assert.ok(gizmo.visible, 'shown again');
});

test('the IK pole belongs to the skeleton it was set for: a bone edit or another skeleton lets it go', () => {
  const { store, tool } = setup();
  tool.pole = [0.4, -0.3, 0.5];
  assert.deepEqual(tool.pole, [0.4, -0.3, 0.5], 'set');
  const renamed = renameBone(store.doc, FOREARM, 'forearm.L');
  store.edit(renamed.label, renamed.fields);
  assert.deepEqual(tool.pole, [0.4, -0.3, 0.5], 'a rename keeps the skeleton, and the pole');
  const move = () => {
    const moved = moveJoints(store.doc, [{ joint: WRIST, position: [0.7, 0.2, 0.1] }]);
    store.edit(moved.label, moved.fields);
  };
  move();
  assert.equal(tool.pole, null, 'a rest joint moved: the pole goes');
  store.history.undo();
  assert.equal(tool.pole, null, 'and stays gone after an undo');
  // Nothing reads the pole between the edit and its undo, which brings back the skeleton the pole was set for.
  tool.pole = [0.4, -0.3, 0.5];
  move();
  store.history.undo();
  assert.equal(tool.pole, null, 'unread until after the undo: still gone');
  // Set on the edited skeleton, then the edit undone (the skeleton the pole was set for goes), then redone.
  store.history.redo();
  tool.pole = [0.4, -0.3, 0.5];
  store.history.undo();
  store.history.redo();
  assert.equal(tool.pole, null, 'an undo lets it go too, and a redo does not bring it back');
  tool.pole = [0.4, -0.3, 0.5];
  const fitted = { ...store.doc.skeleton, joints: Float64Array.from(store.doc.skeleton.joints) };
  store.open({ ...store.doc, skeleton: fitted }, 'opened reference.obj');
  assert.equal(tool.pole, null, 'another scene with a skeleton of its own: the pole goes');
});

test('the status hint says what a click or a drag does in each mode and state', () => {
  const { tool, boneSelection, view, gizmo, page, pointer, shown } = setup();
  assert.match(tool.hint(), /click a joint to pick its bone/, 'no bone: pick one');
  boneSelection.select(FOREARM);
  tool.refresh();
  assert.match(tool.hint(), /drag a ring of the gizmo to turn the bone in its own axes/);
  tool.setSpace('global');
  assert.match(tool.hint(), /in the world’s axes/);
  tool.setSpace('local');
  let angle = Math.PI / 4;
  const ringAt = (t: number) => page(gizmo.ringPoint(2, t));
  for (let tries = 1; !gizmo.hover((ringAt(angle).x / SIZE) * 2 - 1, 1 - (ringAt(angle).y / SIZE) * 2); tries++) {
    assert.ok(tries * 0.2 < 2 * Math.PI, 'some point of the z ring is picked as the z ring within a turn');
    angle += 0.2;
  }
  assert.equal(tool.current.onPointerDown!(pointer(ringAt(angle))), true, 'the ring takes the press');
  assert.match(tool.hint(), /turning the bone about the ring’s axis.*Esc puts it back/);
  tool.cancel();
  const away = { x: 5, y: 5 };
  assert.equal(tool.current.onPointerDown!(pointer(away)), false);
  assert.match(tool.hint(), /release here to pick the bone/);
  tool.current.onPointerUp!(pointer({ x: 60, y: 5 }));
  assert.equal(boneSelection.bone, FOREARM, 'a drag turned the view and kept the bone');
  tool.setIk(true);
  assert.match(tool.hint(), /IK.*drag the bone’s end joint/);
  const wrist = page([...shown().joints.subarray(3 * WRIST, 3 * WRIST + 3)]);
  assert.equal(tool.current.onPointerDown!(pointer(wrist)), true);
  assert.match(tool.hint(), /end joint follows the pointer.*Esc puts it back/);
  tool.cancel();
  boneSelection.select(0);
  assert.match(tool.hint(), /has no parent/, 'a root bone cannot reach by IK');
  view.rest = true;
  assert.match(tool.hint(), /rest pose is shown; turn Rest off to pose/);
});
