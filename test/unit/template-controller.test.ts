/**
 * The template rig's markers and fit, headless, on the course body opened alone (no skeleton): every marker starts on
 * the mesh; a dot let go over the mesh puts its marker on the first surface the view ray meets (outside just before
 * it, inside just after it, by the winding number); one let go beside the mesh is off it and the fit refuses, naming
 * it, with the scene unchanged; markers dragged to the places the course skeleton has its joints fit a template whose
 * every joint is inside the mesh, in one undo step that undo takes back; the defaults alone fit the body (fingers or not)
 * and the elephant as a quadruped with every joint inside; "Fit and bind" binds with automatic handles.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadIntoDocument } from '../../renderer/document/load-files.ts';
import {
  TemplateController,
  TemplateError,
  MARKER_DEFAULTS,
  TEMPLATE_KINDS,
  snappedAxis,
  type TemplateKind,
} from '../../renderer/skeleton/template-controller.ts';
import { BoneSelection } from '../../renderer/skeleton/bone-selection.ts';
import { templateCommands, templateHandleSource } from '../../renderer/skeleton/template-commands.ts';
import { TEMPLATE_MARKERS } from '../../workers/rig/template-rig.ts';
import { windingNumber, type Vec3 } from '../../workers/rig/volume-ray.ts';
import { readTgf } from '../../workers/formats/tgf.ts';
import { boneCountOf, demoDocument } from '../../workers/scene/scene-document.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';
import { boundingBox } from '../../workers/mesh/bounds.ts';
import { COURSE_JOINTS } from './body-markers.ts';
import { inProcessIo as io, textFile } from './in-process-io.ts';
import { dataFile } from './shared-data.ts';

/** A front camera as the headless host sees it: 100 page px per world unit, y down the page, rays along −z. */
const SCALE = 100;
const pageOf = (x: number, y: number) => ({ x: x * SCALE, y: -y * SCALE });
const rayAt = (pageX: number, pageY: number) => ({
  origin: [pageX / SCALE, -pageY / SCALE, 10] as Vec3,
  direction: [0, 0, -1] as Vec3,
});

const frontHost = (store: SceneStore) => ({
  store,
  rayAt,
  cameraAxes: () => ({ view: [0, 0, -1] as Vec3, up: [0, 1, 0] as Vec3 }),
  selection: new BoneSelection(store),
});

async function bareBody(): Promise<SceneStore> {
  const body = textFile('reference.obj', readFileSync(dataFile('context-aware', 'reference.obj'), 'utf8'));
  const doc = await loadIntoDocument(demoDocument(), [body], io);
  assert.equal(boneCountOf(doc), 0, 'the body opened alone has no skeleton');
  return new SceneStore(doc, new UndoHistory());
}

function courseJoints(): Float64Array {
  return readTgf(readFileSync(dataFile('context-aware', 'skeleton.tgf'), 'utf8'), 'skeleton.tgf').joints;
}

test('template markers: every marker of each template has a default, and starts on the mesh inside its bounding box', async () => {
  const store = await bareBody();
  const { min, max, diagonal } = boundingBox(store.doc.mesh.positions);
  const template = new TemplateController(frontHost(store));
  for (const kind of TEMPLATE_KINDS) {
    template.setKind(kind);
    for (const { id } of TEMPLATE_MARKERS[kind]) assert.ok(MARKER_DEFAULTS[kind][id], `${kind} marker ${id} has a default place`);
    for (const { id, point } of template.markers()) {
      assert.ok(point, `${kind} marker ${id} starts on the mesh`);
      for (let k = 0; k < 3; k++)
        assert.ok(point[k] >= min[k] - 1e-9 * diagonal && point[k] <= max[k] + 1e-9 * diagonal, `${kind} marker ${id} in the box`);
    }
  }
  // The humanoid's sides: the left (+x, the character facing the viewer) and the right markers mirror across x = 0.
  template.setKind('humanoid');
  const points = new Map(template.markers().map((m) => [m.id, m.point!]));
  for (const [id, point] of points) {
    if (!id.endsWith('.L')) continue;
    const right = points.get(id.replace(/\.L$/, '.R'))!;
    assert.ok(point[0] > 0 && right[0] < 0, `${id} on +x, its mirror on −x`);
    assert.ok(Math.abs(point[0] + right[0]) < 0.05 * diagonal, `${id} and its mirror at mirrored x (${point[0]}, ${right[0]})`);
  }
});

test('template markers: a dot let go over the mesh sits on the first surface its view ray meets; beside the mesh it is off', async () => {
  const store = await bareBody();
  const template = new TemplateController(frontHost(store));
  const joints = courseJoints();
  const mesh = store.doc.mesh;
  const wrist = COURSE_JOINTS['wrist.L'];
  const at = pageOf(joints[3 * wrist], joints[3 * wrist + 1]);
  const point = template.dropMarker('wrist.L', at.x, at.y);
  assert.ok(point, 'the ray over the left wrist meets the mesh');
  assert.ok(Math.abs(point[0] - joints[3 * wrist]) < 1e-12 && Math.abs(point[1] - joints[3 * wrist + 1]) < 1e-12, 'on the ray');
  const step = 1e-4;
  assert.ok(windingNumber(mesh, [point[0], point[1], point[2] + step]) < 0.5, 'outside just before the hit');
  assert.ok(windingNumber(mesh, [point[0], point[1], point[2] - step]) > 0.5, 'inside just after the hit');
  // Nothing of the mesh before it: the ray is outside all the way from its origin.
  for (let i = 1; i <= 16; i++) {
    const z = point[2] + ((10 - point[2]) * i) / 16;
    assert.ok(windingNumber(mesh, [point[0], point[1], z]) < 0.5, `outside at z = ${z.toFixed(3)}`);
  }
  assert.deepEqual(template.markers().find((m) => m.id === 'wrist.L')?.point, point);

  // Beside the body, far out along x: off the mesh, and the fit names it and changes nothing.
  const beside = pageOf(2, 0);
  assert.equal(template.dropMarker('elbow.R', beside.x, beside.y), null);
  const before = store.doc;
  const label = TEMPLATE_MARKERS.humanoid.find((m) => m.id === 'elbow.R')!.label;
  assert.throws(
    () => template.fit(),
    (error: unknown) => error instanceof TemplateError && error.message.includes(label) && /off the mesh/.test(error.message),
  );
  assert.equal(store.doc, before, 'the scene is unchanged');
  assert.equal(store.history.undoCount, 0, 'no undo step');
  assert.throws(() => template.dropMarker('tail', 0, 0), /humanoid template has no such marker/);
});

test('template fit: markers dragged to the course joints fit a named skeleton inside the body, one undo step', async () => {
  const store = await bareBody();
  const template = new TemplateController(frontHost(store));
  const joints = courseJoints();
  for (const { id } of TEMPLATE_MARKERS.humanoid) {
    const j = COURSE_JOINTS[id];
    assert.ok(j !== undefined, `the course skeleton has a joint for marker ${id}`);
    const at = pageOf(joints[3 * j], joints[3 * j + 1]);
    assert.ok(template.dropMarker(id, at.x, at.y), `marker ${id} on the mesh`);
  }
  const rest = store.doc;
  template.fit();
  const fitted = store.doc;
  const B = boneCountOf(fitted);
  assert.ok(B >= 15, `${B} bones: spine, neck, head, shoulders, arms, hands, legs, feet`);
  assert.equal(fitted.boneNames?.length, B, 'every bone is named');
  assert.equal(new Set(fitted.boneNames).size, B, 'the names differ');
  assert.equal(fitted.weights.rows, 18453);
  assert.equal(fitted.weights.cols, B);
  const J = fitted.skeleton.joints.length / 3;
  for (let j = 0; j < J; j++) {
    const p: Vec3 = [fitted.skeleton.joints[3 * j], fitted.skeleton.joints[3 * j + 1], fitted.skeleton.joints[3 * j + 2]];
    assert.ok(windingNumber(fitted.mesh, p) > 0.5, `joint ${j} inside the mesh`);
  }
  assert.deepEqual(store.history.undoLabels(), ['Fit the humanoid template']);
  store.history.undo();
  assert.equal(store.doc.skeleton, rest.skeleton, 'undo gives the bare mesh back');
  assert.equal(boneCountOf(store.doc), 0);
  store.history.redo();
  assert.equal(store.doc.skeleton, fitted.skeleton, 'redo gives the fit back');
  // The markers stay where they were put across the fit and its undo.
  assert.ok(
    template.markers().every((m) => m.point !== null),
    'markers kept',
  );
});

test('template commands: Fit and bind fits, then binds with automatic handles (the rule chosen, or bone cylinders)', async () => {
  assert.equal(templateHandleSource('current'), 'cylinder');
  assert.equal(templateHandleSource('distance'), 'distance');
  assert.equal(templateHandleSource('cylinder'), 'cylinder');
  const calls: string[] = [];
  let kind: TemplateKind = 'humanoid';
  const handlers = templateCommands({
    template: {
      setKind: (k) => void (kind = k),
      setFingers: (on) => void calls.push(`fingers ${on}`),
      setMarker: (id, point) => void calls.push(`marker ${id} ${point.join(' ')}`),
      resetMarkers: () => void calls.push('reset'),
      fit: () => void calls.push('fit'),
    },
    templatePanel: { open: false, setOpen: (on) => void calls.push(`panel ${on}`) },
    binding: {
      options: {
        source: 'current',
        laplacian: 'cotan',
        radiusFraction: 0.02,
        bindUnhandled: false,
        weldTolerance: 0,
        method: 'auto',
        voxelResolution: 128,
        falloff: 8,
      },
      startBind: async (options) => void calls.push(`bind ${options?.source}`),
    },
    frontView: () => void calls.push('front'),
  });
  await handlers['template.fitAndBind'].run(undefined);
  assert.deepEqual(calls, ['fit', 'bind cylinder']);
  await handlers['template.options'].run({ kind: 'quadruped', fingers: true });
  assert.equal(kind, 'quadruped');
  assert.equal(await handlers['template.panel'].run(undefined), true);
  await handlers['template.frontView'].run(undefined);
  assert.deepEqual(calls.slice(2), ['fingers true', 'panel true', 'front']);
});

test('template markers: the view they were placed in goes to the fit, snapped to a world axis within 15°', async () => {
  assert.deepEqual(snappedAxis([0.1, 0, -Math.sqrt(0.99)]), [0, 0, -1]);
  assert.deepEqual(snappedAxis([-Math.sqrt(0.98), 0.1, 0.1]), [-1, 0, 0]);
  const tilted: Vec3 = [Math.SQRT1_2, 0, -Math.SQRT1_2];
  assert.deepEqual(snappedAxis(tilted), tilted, '45° from every axis stays as it is');
  const store = await bareBody();
  let axes = { view: [-0.99, 0.05, Math.sqrt(1 - 0.99 ** 2 - 0.05 ** 2)] as Vec3, up: [0.05, 0.998, 0] as Vec3 };
  const template = new TemplateController({ store, rayAt, cameraAxes: () => axes, selection: new BoneSelection(store) });
  assert.deepEqual(template.view, { view: [0, 0, -1], up: [0, 1, 0] }, 'the front view before any drop');
  template.dropMarker('groin', 0, 20);
  assert.deepEqual(template.view, { view: [-1, 0, 0], up: [0, 1, 0] }, 'looking along −x, nudged');
  axes = { view: tilted, up: [0, 1, 0] };
  template.dropMarker('groin', 0, 20);
  assert.deepEqual(template.view.view, tilted);
  template.resetMarkers();
  template.markers();
  assert.deepEqual(template.view, { view: [0, 0, -1], up: [0, 1, 0] }, 'markers reset: the front view again');
});

test('template fit from the defaults alone: the body as a humanoid, with and without fingers, and the elephant as a quadruped', async () => {
  const insideCount = (store: SceneStore) => {
    const { joints } = store.doc.skeleton;
    let inside = 0;
    for (let j = 0; j < joints.length / 3; j++)
      if (windingNumber(store.doc.mesh, [joints[3 * j], joints[3 * j + 1], joints[3 * j + 2]]) > 0.5) inside++;
    return { inside, joints: joints.length / 3 };
  };
  const store = await bareBody();
  const template = new TemplateController(frontHost(store));
  template.fit();
  const plain = boneCountOf(store.doc);
  let counted = insideCount(store);
  assert.equal(counted.inside, counted.joints, `${counted.inside} of ${counted.joints} joints inside the body`);
  template.setFingers(true);
  template.fit();
  // Five finger chains of three bones on each hand.
  assert.equal(boneCountOf(store.doc), plain + 2 * 5 * 3);
  counted = insideCount(store);
  assert.equal(counted.inside, counted.joints, `${counted.inside} of ${counted.joints} joints inside the body, fingers too`);
  assert.deepEqual(store.history.undoLabels(), ['Fit the humanoid template', 'Fit the humanoid template with fingers']);

  const elephantFile = textFile('elephant.obj', readFileSync(dataFile('libigl', 'elephant.obj'), 'utf8'));
  const elephant = new SceneStore(await loadIntoDocument(demoDocument(), [elephantFile], io), new UndoHistory());
  const quadruped = new TemplateController(frontHost(elephant));
  quadruped.setKind('quadruped');
  quadruped.fit();
  counted = insideCount(elephant);
  assert.equal(counted.inside, counted.joints, `${counted.inside} of ${counted.joints} joints inside the elephant`);
  const names = elephant.doc.boneNames ?? [];
  const left = names.filter((n) => n.endsWith('.L'));
  assert.ok(left.length >= 4, `four legs' bones on the left (${left.join(', ')})`);
  assert.deepEqual(
    names.filter((n) => n.endsWith('.R')),
    left.map((n) => n.replace(/\.L$/, '.R')),
    'each left bone has its right twin',
  );
});

test('template fit: a selected bone is one the fit replaces, so the selection goes to none in the same undo step', async () => {
  const store = await bareBody();
  const host = frontHost(store);
  const template = new TemplateController(host);
  template.fit();
  host.selection.select(3);
  template.setFingers(true);
  template.fit();
  assert.equal(host.selection.bone, -1, 'no bone selected after the new fit');
  assert.deepEqual(store.history.undoLabels(), ['Fit the humanoid template', 'Fit the humanoid template with fingers']);
  store.history.undo();
  assert.equal(host.selection.bone, 3, 'undo selects the bone again');
  store.history.redo();
  assert.equal(host.selection.bone, -1, 'redo: none again');
});
