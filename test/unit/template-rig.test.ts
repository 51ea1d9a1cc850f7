/**
 * Template skeletons fitted from markers (workers/rig/template-rig.ts).
 *
 * Humanoid, on the course body (context-aware/reference.obj: a T-pose, +y up, facing +z, its left arm toward +x).
 * The markers are where a user would click in the front view, found from the mesh's own vertices by the rules in
 * body-markers.ts.
 * Checked: every joint inside the mesh (winding number > 1/2), with and without fingers; left mirrors right across
 * the plane through the groin and chin markers within 1e-6, and central joints lie on it; one root; the joints the
 * markers stand for, and the shoulders and hips derived from proportions, near the data set's own hand-made
 * skeleton (skeleton.tgf); the same fit from the back view, and the fit turned with the mesh, markers and view.
 * Humanoid on the libigl elephant (standing on its hind legs, its trunk in front of its chest), markers clicked over
 * its own skeleton's joints: inside, symmetric, the spine in the chest.
 * Quadruped, on a box animal built here (body, four legs, head, tail: each a closed box): joints inside, symmetric,
 * spine on the body's middle height, tail on the tail's, legs on the legs' axes; and on the Khronos Fox (markers from
 * its vertices): inside, symmetric, its front leg's elbow and wrist near the Fox's own. Missing markers and markers
 * off the mesh are named in the error; on a box figure, a groin marker placed low on a leg leaves the root between the
 * legs, and the fit is refused naming the bone and the marker.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { importGltf } from '../../workers/formats/gltf-import.ts';
import { readObj } from '../../workers/formats/obj.ts';
import { readTgf } from '../../workers/formats/tgf.ts';
import type { TriangleMesh } from '../../workers/formats/types.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { fitTemplate, TEMPLATE_MARKERS, type FittedSkeleton } from '../../workers/rig/template-rig.ts';
import { rayHits, windingNumber, type Vec3 } from '../../workers/rig/volume-ray.ts';
import { body, bodyMarkers } from './body-markers.ts';
import { dataFile } from './shared-data.ts';

const tgf = readTgf(readFileSync(dataFile('context-aware', 'skeleton.tgf'), 'utf8'), 'skeleton.tgf');

const joint = (s: FittedSkeleton, j: number): Vec3 => [s.joints[3 * j], s.joints[3 * j + 1], s.joints[3 * j + 2]];
const endOf = (s: FittedSkeleton, name: string): Vec3 => {
  const b = s.names.indexOf(name);
  assert.ok(b >= 0, `bone ${name} exists`);
  return joint(s, s.bones[2 * b + 1]);
};
const distance = (a: Vec3, b: Vec3): number => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

function assertInside(mesh: TriangleMesh, s: FittedSkeleton, what: string): void {
  for (let j = 0; j < s.joints.length / 3; j++) {
    const w = windingNumber(mesh, joint(s, j));
    assert.ok(w > 0.5, `${what}: joint ${j} (${joint(s, j).join(', ')}) is inside: winding number ${w}`);
  }
}

/** Every `.L` bone has a `.R` bone whose joints are its mirror image across x = plane; other bones lie on the plane. */
function assertSymmetric(s: FittedSkeleton, plane: number, what: string): void {
  let pairs = 0;
  s.names.forEach((name, b) => {
    if (name.endsWith('.R')) return;
    if (!name.endsWith('.L')) {
      const end = joint(s, s.bones[2 * b + 1]);
      assert.ok(Math.abs(end[0] - plane) < 1e-6, `${what}: central bone ${name} ends on the plane (x = ${end[0]}, plane ${plane})`);
      return;
    }
    const m = s.names.indexOf(name.slice(0, -2) + '.R');
    assert.ok(m >= 0, `${what}: ${name} has a right twin`);
    for (const k of [0, 1]) {
      const l = joint(s, s.bones[2 * b + k]);
      const r = joint(s, s.bones[2 * m + k]);
      const error = Math.max(Math.abs(l[0] - plane + (r[0] - plane)), Math.abs(l[1] - r[1]), Math.abs(l[2] - r[2]));
      assert.ok(error < 1e-6, `${what}: ${name} mirrors its twin within 1e-6 (${error})`);
    }
    pairs++;
  });
  assert.ok(pairs > 0, `${what}: has side bones`);
}

function assertOneRoot(s: FittedSkeleton, what: string): void {
  const skeleton = buildSkeleton({ joints: s.joints, bones: s.bones }, what);
  const roots = [...skeleton.parents.keys()].filter((b) => skeleton.parents[b] < 0).map((b) => s.names[b]);
  assert.deepEqual(roots, ['hips'], `${what}: the hips bone is the one root`);
  assert.equal(new Set(s.names).size, s.names.length, `${what}: names are unique`);
}

test('template: the humanoid fitted on the course body is inside the mesh and symmetric, with and without fingers', () => {
  const markers = bodyMarkers();
  const plane = (markers.groin[0] + markers.chin[0]) / 2;
  for (const fingers of [false, true]) {
    const what = fingers ? 'with fingers' : 'without fingers';
    const s = fitTemplate(body, 'humanoid', markers, { fingers });
    // 6 central bones; per side shoulder, upper arm, forearm, hand, pelvis, thigh, shin, foot, toe (+ 5 × 3 fingers)
    assert.equal(s.names.length, 6 + 2 * (9 + (fingers ? 15 : 0)), `${what}: bone count`);
    assert.equal(s.bones.length, 2 * s.names.length, `${what}: two joints per bone`);
    assertInside(body, s, what);
    assertSymmetric(s, plane, what);
    assertOneRoot(s, what);
  }
});

test('template: the humanoid’s joints land near the course body’s own skeleton', () => {
  const s = fitTemplate(body, 'humanoid', bodyMarkers());
  const reference = (j: number): Vec3 => [tgf.joints[3 * (j - 1)], tgf.joints[3 * (j - 1) + 1], tgf.joints[3 * (j - 1) + 2]];
  // skeleton.tgf's nodes (1-based): left/right elbow 19/20, wrist 21/22, knee 5/6, ankle 8/9, shoulder 17/18, hip 2/3
  const expected: [string, number, number, number][] = [
    ['upperarm.L', 19, 20, 0.04],
    ['forearm.L', 21, 22, 0.04],
    ['thigh.L', 5, 6, 0.04],
    ['shin.L', 8, 9, 0.06],
    ['shoulder.L', 17, 18, 0.06],
    ['pelvis.L', 2, 3, 0.07],
    // central: the head's base, and the top of the hips bone (the pelvis), each the same joint on both sides
    ['neck', 13, 13, 0.1],
    ['hips', 1, 1, 0.1],
  ];
  for (const [name, left, right, tolerance] of expected) {
    const l = distance(endOf(s, name), reference(left));
    const r = name.endsWith('.L') ? distance(endOf(s, name.replace('.L', '.R')), reference(right)) : l;
    assert.ok(l < tolerance && r < tolerance, `${name}: ${l.toFixed(3)} / ${r.toFixed(3)} from the data set's joint, at most ${tolerance}`);
  }
});

test('template: on the elephant (a biped with a trunk hanging in front of its chest) the joints are inside and symmetric', () => {
  const mesh = readObj(readFileSync(dataFile('libigl', 'elephant.obj'), 'utf8'), 'elephant.obj').mesh;
  const own = readTgf(readFileSync(dataFile('libigl', 'elephant.tgf'), 'utf8'), 'elephant.tgf');
  const click = (x: number, y: number): Vec3 => {
    const hits = rayHits(mesh, [x, y, 1000], [0, 0, -1]);
    assert.ok(hits.length > 0, `a click at (${x}, ${y}) lands on the elephant`);
    return [x, y, 1000 - hits[0].t];
  };
  // Clicks over the data set's own joints (0-based nodes of elephant.tgf): elbows 8/12, wrists 9/13, knees 16/21, the
  // chin at the neck joint 5; the groin 0.5 above the lowest vertex within 1 of the mid-plane x = 0.
  const at = (j: number): Vec3 => click(own.joints[3 * j], own.joints[3 * j + 1]);
  let lowest: Vec3 = [0, Infinity, 0];
  for (let i = 0; i < mesh.positions.length; i += 3)
    if (Math.abs(mesh.positions[i]) < 1 && mesh.positions[i + 1] < lowest[1]) lowest = [mesh.positions[i], mesh.positions[i + 1], 0];
  const markers = {
    groin: click(lowest[0], lowest[1] + 0.5),
    chin: at(5),
    'elbow.L': at(8),
    'elbow.R': at(12),
    'wrist.L': at(9),
    'wrist.R': at(13),
    'knee.L': at(16),
    'knee.R': at(21),
  };
  const plane = (markers.groin[0] + markers.chin[0]) / 2;
  for (const fingers of [false, true]) {
    const s = fitTemplate(mesh, 'humanoid', markers, { fingers });
    assertInside(mesh, s, `elephant, ${fingers ? 'with' : 'without'} fingers`);
    assertSymmetric(s, plane, 'elephant');
  }
  // the spine runs through the chest, not the trunk in front of it: within the chest's depth about the hips
  const spine = endOf(fitTemplate(mesh, 'humanoid', markers), 'spine.002');
  assert.ok(Math.abs(spine[2] - own.joints[3 * 3 + 2]) < 5, `spine.002 at depth ${spine[2]}, the data set's spine at ${own.joints[11]}`);
});

test('template: the body and its markers turned, with the view and up turned alike, give the skeleton turned alike', () => {
  const markers = bodyMarkers();
  // about y by 0.7, then about x by −0.4 radians
  const [ca, sa, cb, sb] = [Math.cos(0.7), Math.sin(0.7), Math.cos(-0.4), Math.sin(-0.4)];
  const turn = (p: ArrayLike<number>): Vec3 => {
    const x = ca * p[0] + sa * p[2];
    const z = -sa * p[0] + ca * p[2];
    return [x, cb * p[1] - sb * z, sb * p[1] + cb * z];
  };
  const positions = new Float64Array(body.positions.length);
  for (let i = 0; i < positions.length; i += 3) positions.set(turn(body.positions.subarray(i, i + 3)), i);
  const turnedMarkers = Object.fromEntries(Object.entries(markers).map(([id, p]) => [id, turn(p)]));
  for (const fingers of [false, true]) {
    const s = fitTemplate(body, 'humanoid', markers, { fingers });
    const turned = fitTemplate({ positions, triangles: body.triangles }, 'humanoid', turnedMarkers, {
      fingers,
      view: turn([0, 0, -1]),
      up: turn([0, 1, 0]),
    });
    assert.deepEqual(turned.names, s.names, 'same bones');
    assert.deepEqual(turned.bones, s.bones, 'same bones');
    for (let j = 0; j < s.joints.length / 3; j++) {
      const expected = turn(s.joints.subarray(3 * j, 3 * j + 3));
      const error = distance(expected, joint(turned, j));
      assert.ok(error < 1e-6, `${fingers ? 'with fingers' : 'without'}: joint ${j} is the turned joint within 1e-6 (${error})`);
    }
  }
});

test('template: the same markers fitted from the back view give the same skeleton', () => {
  const markers = bodyMarkers();
  const front = fitTemplate(body, 'humanoid', markers);
  const back = fitTemplate(body, 'humanoid', markers, { view: [0, 0, 1] });
  assert.deepEqual(back.names, front.names, 'same bones');
  for (let i = 0; i < front.joints.length; i++) {
    assert.ok(Math.abs(front.joints[i] - back.joints[i]) < 1e-9, `joint coordinate ${i}: ${front.joints[i]} vs ${back.joints[i]}`);
  }
});

/** A closed box, CCW seen from outside, appended to positions and triangles. */
function addBox(positions: number[], triangles: number[], min: Vec3, max: Vec3): void {
  const base = positions.length / 3;
  for (let k = 0; k < 8; k++) positions.push(k & 1 ? max[0] : min[0], k & 2 ? max[1] : min[1], k & 4 ? max[2] : min[2]);
  const quads = [
    [0, 2, 3, 1], // −z
    [4, 5, 7, 6], // +z
    [0, 1, 5, 4], // −y
    [2, 6, 7, 3], // +y
    [0, 4, 6, 2], // −x
    [1, 3, 7, 5], // +x
  ];
  for (const [a, b, c, d] of quads) triangles.push(base + a, base + b, base + c, base + a, base + c, base + d);
}

/** A box animal facing +z: body, four legs (reaching 5 cm into the body), a head and a tail. */
function boxAnimal(): TriangleMesh {
  const positions: number[] = [];
  const triangles: number[] = [];
  addBox(positions, triangles, [-0.25, 0.5, -1], [0.25, 0.9, 1]);
  for (const x of [-1, 1]) {
    for (const z of [-1, 1]) {
      const [x0, x1] = x > 0 ? [0.1, 0.25] : [-0.25, -0.1];
      const [z0, z1] = z > 0 ? [0.6, 0.85] : [-0.85, -0.6];
      addBox(positions, triangles, [x0, 0, z0], [x1, 0.55, z1]);
    }
  }
  addBox(positions, triangles, [-0.12, 0.75, 0.9], [0.12, 1.2, 1.4]);
  addBox(positions, triangles, [-0.04, 0.8, -1.4], [0.04, 0.86, -0.95]);
  return { positions: Float64Array.from(positions), triangles: Uint32Array.from(triangles) };
}

test('template: the quadruped on a box animal has its spine in the body’s middle and its legs on the legs’ axes', () => {
  const mesh = boxAnimal();
  const markers: Record<string, Vec3> = {
    snout: [0, 1, 1.4],
    withers: [0, 0.9, 0.7],
    tail: [0, 0.86, -1],
    tailtip: [0, 0.83, -1.4],
    'frontfoot.L': [0.175, 0, 0.725],
    'frontfoot.R': [-0.175, 0, 0.725],
    'backfoot.L': [0.175, 0, -0.725],
    'backfoot.R': [-0.175, 0, -0.725],
  };
  const s = fitTemplate(mesh, 'quadruped', markers);
  assertInside(mesh, s, 'box animal');
  assertSymmetric(s, 0, 'box animal');
  assertOneRoot(s, 'box animal');
  for (const name of ['hips', 'spine.001', 'spine.002', 'spine.003']) {
    assert.ok(Math.abs(endOf(s, name)[1] - 0.7) < 1e-9, `${name} ends at the body's middle height 0.7 (${endOf(s, name)[1]})`);
  }
  for (const name of ['tail.002', 'tail.003']) {
    assert.ok(Math.abs(endOf(s, name)[1] - 0.83) < 1e-9, `${name} ends at the tail's middle height 0.83 (${endOf(s, name)[1]})`);
  }
  for (const [name, z] of [
    ['upperarm.L', 0.725],
    ['forearm.L', 0.725],
    ['hand.L', 0.725],
    ['thigh.L', -0.725],
    ['shin.L', -0.725],
    ['foot.L', -0.725],
  ] as const) {
    const p = endOf(s, name);
    assert.ok(Math.abs(p[0] - 0.175) < 1e-9 && Math.abs(p[2] - z) < 1e-9, `${name} ends on the leg's axis (${p.join(', ')})`);
  }
  assert.deepEqual(
    TEMPLATE_MARKERS.quadruped.map((m) => m.id),
    Object.keys(markers),
    'the markers asked for are the ones given',
  );
});

test('template: the quadruped on the Khronos Fox (a triangle soup) is inside and symmetric, its front legs near the Fox’s own', async () => {
  const file = dataFile('gltf', 'Fox', 'Fox.glb');
  const fox = await importGltf(new Uint8Array(readFileSync(file)), 'Fox.glb');
  const vs: Vec3[] = [];
  for (let i = 0; i < fox.mesh.positions.length; i += 3)
    vs.push([fox.mesh.positions[i], fox.mesh.positions[i + 1], fox.mesh.positions[i + 2]]);
  // The Fox stands on y = 0 facing +z, its left toward +x. Markers: vertices found by these rules.
  const most = (keep: (v: Vec3) => boolean, score: (v: Vec3) => number): Vec3 =>
    vs.filter(keep).reduce((a, b) => (score(b) > score(a) ? b : a));
  const mid = (v: Vec3): boolean => Math.abs(v[0]) < 1;
  const markers: Record<string, Vec3> = {
    snout: most(mid, (v) => v[2]), // the front-most vertex on the mid-plane
    withers: most(
      (v) => mid(v) && Math.abs(v[2] - 18) < 5,
      (v) => v[1],
    ), // the back's top above the front feet (z ≈ 18)
    tail: most(
      (v) => mid(v) && Math.abs(v[2] + 40) < 3,
      (v) => v[1],
    ), // the top where the tail leaves the body (z ≈ −40)
    tailtip: most(mid, (v) => -v[2]), // the back-most vertex on the mid-plane
    'frontfoot.L': most(
      (v) => v[0] > 0 && v[2] > 0,
      (v) => -v[1],
    ), // the lowest vertex of each quarter
    'frontfoot.R': most(
      (v) => v[0] < 0 && v[2] > 0,
      (v) => -v[1],
    ),
    'backfoot.L': most(
      (v) => v[0] > 0 && v[2] < 0,
      (v) => -v[1],
    ),
    'backfoot.R': most(
      (v) => v[0] < 0 && v[2] < 0,
      (v) => -v[1],
    ),
  };
  const s = fitTemplate(fox.mesh, 'quadruped', markers);
  assertInside(fox.mesh, s, 'Fox');
  const plane = (markers.snout[0] + markers.withers[0] + markers.tail[0] + markers.tailtip[0]) / 4;
  assertSymmetric(s, plane, 'Fox');
  assertOneRoot(s, 'Fox');
  // the Fox's own front leg: b_LeftForeArm_010 starts at its elbow, b_LeftHand_011 at its wrist
  const own = (name: string): Vec3 => {
    const b = fox.boneNames.indexOf(name);
    const j = fox.skeleton.bones[2 * b];
    return [fox.skeleton.joints[3 * j], fox.skeleton.joints[3 * j + 1], fox.skeleton.joints[3 * j + 2]];
  };
  const size = Math.max(...vs.map((v) => v[1])); // the Fox's height
  for (const [name, ownName] of [
    ['upperarm.L', 'b_LeftForeArm_010'],
    ['forearm.L', 'b_LeftHand_011'],
  ] as const) {
    const d = distance(endOf(s, name), own(ownName));
    assert.ok(d < 0.1 * size, `${name} ends ${d.toFixed(1)} from the Fox's ${ownName}, at most a tenth of its height ${size.toFixed(1)}`);
  }
});

test('template: missing or broken markers are named in the error', () => {
  const markers = bodyMarkers();
  const { chin: _chin, ['knee.R']: _knee, ...rest } = markers;
  assert.throws(
    () => fitTemplate(body, 'humanoid', rest),
    (e: Error) => e.message === 'fitTemplate humanoid: missing markers: chin, knee.R',
  );
  assert.throws(
    () => fitTemplate(body, 'humanoid', { ...markers, 'wrist.L': [0, Number.NaN, 0] }),
    /marker wrist\.L must be three finite numbers/,
  );
  assert.throws(() => fitTemplate(body, 'humanoid', markers, { view: [0, 1, 0] }), /view and up must be/);
  // A marker 10 cm in front of the body (the body is about 1.8 m tall): off the mesh, named with its distance.
  const chin = markers.chin;
  assert.throws(
    () => fitTemplate(body, 'humanoid', { ...markers, chin: [chin[0], chin[1], chin[2] + 0.1] }),
    (e: Error) =>
      e.name === 'TemplateFitError' &&
      /^fitTemplate humanoid: marker chin is 0\.\d+ from the mesh's surface: a marker sits on the mesh/.test(e.message),
  );
});

/**
 * A box figure (+y up, facing +z): torso, head, arms out to the sides, and two legs with a gap between them below the
 * torso, from y = 0 to 1.
 */
function boxFigure(): TriangleMesh {
  const positions: number[] = [];
  const triangles: number[] = [];
  addBox(positions, triangles, [-0.3, 1, -0.15], [0.3, 1.6, 0.15]);
  addBox(positions, triangles, [-0.1, 1.6, -0.1], [0.1, 1.9, 0.1]);
  for (const x of [-1, 1]) {
    addBox(positions, triangles, x > 0 ? [0.05, 0, -0.1] : [-0.25, 0, -0.1], x > 0 ? [0.25, 1, 0.1] : [-0.05, 1, 0.1]);
    addBox(positions, triangles, x > 0 ? [0.3, 1.45, -0.05] : [-1, 1.45, -0.05], x > 0 ? [1, 1.55, 0.05] : [-0.3, 1.55, 0.05]);
  }
  return { positions: Float64Array.from(positions), triangles: Uint32Array.from(triangles) };
}

test('template: a joint the fit cannot put inside the mesh is refused, naming its bone and the markers it came from', () => {
  const mesh = boxFigure();
  const onFront = (x: number, y: number, z: number): Vec3 => [x, y, z];
  const markers: Record<string, Vec3> = {
    chin: onFront(0, 1.65, 0.1),
    'wrist.L': onFront(0.8, 1.5, 0.05),
    'wrist.R': onFront(-0.8, 1.5, 0.05),
    'elbow.L': onFront(0.55, 1.5, 0.05),
    'elbow.R': onFront(-0.55, 1.5, 0.05),
    'knee.L': onFront(0.15, 0.5, 0.1),
    'knee.R': onFront(-0.15, 0.5, 0.1),
    groin: onFront(0, 1, 0.1),
  };
  // Placed well: every joint inside.
  assertInside(mesh, fitTemplate(mesh, 'humanoid', markers), 'box figure');
  // The groin marker clicked halfway down the inner side of the left leg: the root lands in the gap between the legs,
  // where no line along the view meets the mesh.
  assert.throws(
    () => fitTemplate(mesh, 'humanoid', { ...markers, groin: [0.05, 0.5, 0] }),
    (e: Error) =>
      e.name === 'TemplateFitError' &&
      e.message.startsWith(
        'fitTemplate humanoid: the start of bone hips lies outside the mesh (winding number 0.00); it is placed from marker groin',
      ),
  );
});
