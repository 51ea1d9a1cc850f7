/**
 * Rays through a mesh's volume (workers/rig/volume-ray.ts) on a closed triangulated cylinder built here: its cross
 * section is a regular polygon with an even number of sides, so the prism is symmetric about every point of its
 * axis, and any ray through an axis point that crosses only the side wall has its chord's middle exactly at that
 * point. Rays across the cylinder give that middle within 1e-6 of the radius; hits through shared edges count once;
 * a shell nested inside, a mesh wound inside out and an open surface still give a point; a ray from inside gives the
 * middle between its origin and the wall it leaves by, inside the volume, with another limb beyond, wound inside out
 * or inside a nested shell. Winding numbers are 1 inside
 * and 0 outside the closed cylinder (a point is inside exactly when it is within the polygon and between the caps),
 * −1 inside the inside-out copy, and 1 / 0 for points of the course body placed by its own surface.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readObj } from '../../workers/formats/obj.ts';
import type { TriangleMesh } from '../../workers/formats/types.ts';
import { rayHits, volumeMidpoint, windingNumber, type Vec3 } from '../../workers/rig/volume-ray.ts';
import { seededRandom } from './seeded-random.ts';
import { dataFile } from './shared-data.ts';

const RADIUS = 0.3;
const HEIGHT = 2;
const SIDES = 64;

/**
 * A closed cylinder about the z axis from z = 0 to z = height: a regular polygon of `sides` corners (one at angle
 * `phase`) at each end, side quads split into two triangles, caps fanned from a centre vertex, all CCW seen from
 * outside.
 */
function cylinder(radius: number, height: number, sides: number, phase = 0): TriangleMesh {
  const positions: number[] = [];
  for (const z of [0, height]) {
    for (let i = 0; i < sides; i++) {
      const angle = phase + (2 * Math.PI * i) / sides;
      positions.push(radius * Math.cos(angle), radius * Math.sin(angle), z);
    }
  }
  const bottomCentre = 2 * sides;
  const topCentre = 2 * sides + 1;
  positions.push(0, 0, 0, 0, 0, height);
  const triangles: number[] = [];
  for (let i = 0; i < sides; i++) {
    const j = (i + 1) % sides;
    triangles.push(i, j, sides + j, i, sides + j, sides + i);
    triangles.push(bottomCentre, j, i);
    triangles.push(topCentre, sides + i, sides + j);
  }
  return { positions: Float64Array.from(positions), triangles: Uint32Array.from(triangles) };
}

function flipped(mesh: TriangleMesh): TriangleMesh {
  const triangles = mesh.triangles.slice();
  for (let f = 0; f < triangles.length; f += 3) [triangles[f + 1], triangles[f + 2]] = [triangles[f + 2], triangles[f + 1]];
  return { positions: mesh.positions, triangles };
}

/** The meshes' vertices and triangles in one mesh, in order. */
function joined(...meshes: TriangleMesh[]): TriangleMesh {
  const positions: number[] = [];
  const triangles: number[] = [];
  for (const m of meshes) {
    const base = positions.length / 3;
    positions.push(...m.positions);
    triangles.push(...Array.from(m.triangles, (v) => v + base));
  }
  return { positions: Float64Array.from(positions), triangles: Uint32Array.from(triangles) };
}

/** The mesh moved by `dx` along x. */
function shiftedX(mesh: TriangleMesh, dx: number): TriangleMesh {
  const positions = mesh.positions.slice();
  for (let i = 0; i < positions.length; i += 3) positions[i] += dx;
  return { positions, triangles: mesh.triangles };
}

/**
 * The cylinder with a second, smaller shell nested inside it (0.8 of the radius, from z = 0.25 to 1.75): a ray across
 * both enters twice and leaves twice, so only depth counting finds the outer wall as the exit.
 */
function nested(): TriangleMesh {
  const inner = cylinder(0.8 * RADIUS, HEIGHT - 0.5, SIDES);
  const raised = inner.positions.slice();
  for (let i = 2; i < raised.length; i += 3) raised[i] += 0.25;
  return joined(cylinder(RADIUS, HEIGHT, SIDES), { positions: raised, triangles: inner.triangles });
}

const distanceToAxis = (p: Vec3): number => Math.hypot(p[0], p[1]);

/**
 * A ray that crosses the axis point (0, 0, z) from outside, in a random direction tilted at most `tilt` radians from
 * the cross-section plane, starting 3 radii before that point: it meets only the side wall when the chord stays
 * between the caps.
 */
function rayAcross(random: () => number, z: number, tilt: number): { origin: Vec3; direction: Vec3 } {
  const azimuth = 2 * Math.PI * random();
  const elevation = (2 * random() - 1) * tilt;
  const direction: Vec3 = [Math.cos(elevation) * Math.cos(azimuth), Math.cos(elevation) * Math.sin(azimuth), Math.sin(elevation)];
  const back = 3 * RADIUS;
  return { origin: [-back * direction[0], -back * direction[1], z - back * direction[2]], direction };
}

test('a ray across a closed cylinder puts the joint on its axis, within 1e-6 of the radius', () => {
  const mesh = cylinder(RADIUS, HEIGHT, SIDES);
  const random = seededRandom(23);
  for (let k = 0; k < 200; k++) {
    const z = 0.5 + random();
    const { origin, direction } = rayAcross(random, z, 0.6);
    const hits = rayHits(mesh, origin, direction);
    assert.equal(hits.length, 2, `ray ${k}: one entry and one exit (${hits.length} hits)`);
    assert.ok(hits[0].entering && !hits[1].entering, `ray ${k}: the first hit enters, the second leaves`);
    const found = volumeMidpoint(mesh, origin, direction);
    assert.ok(found, `ray ${k} hits`);
    const { point, entry, exit } = found;
    assert.ok(distanceToAxis(point) <= 1e-6 * RADIUS, `ray ${k}: midpoint ${distanceToAxis(point)} from the axis`);
    assert.ok(Math.abs(point[2] - z) <= 1e-6 * RADIUS, `ray ${k}: midpoint at height ${point[2]}, ray crosses the axis at ${z}`);
    for (const p of [entry, exit]) {
      const r = distanceToAxis(p);
      // on a side face: between the polygon's inradius and its circumradius
      assert.ok(
        r >= RADIUS * Math.cos(Math.PI / SIDES) - 1e-12 && r <= RADIUS + 1e-12,
        `ray ${k}: hit ${r} from the axis lies on the wall`,
      );
    }
  }
});

test('a ray along the axis enters and leaves through the caps and gives the middle of the axis', () => {
  const mesh = cylinder(RADIUS, HEIGHT, SIDES);
  // tilted a little so the ray misses the caps' centre vertices and fan edges' common point
  const direction: Vec3 = [0.01, 0.003, 1];
  const origin: Vec3 = [-0.01 * 5, -0.003 * 5, -5];
  const found = volumeMidpoint(mesh, origin, direction);
  assert.ok(found, 'the ray hits');
  assert.ok(Math.abs(found.entry[2]) < 1e-12 && Math.abs(found.exit[2] - HEIGHT) < 1e-12, 'entry on the bottom cap, exit on the top cap');
  const expected = [0.01 * (HEIGHT / 2), 0.003 * (HEIGHT / 2), HEIGHT / 2];
  for (let i = 0; i < 3; i++)
    assert.ok(Math.abs(found.point[i] - expected[i]) < 1e-12, `coordinate ${i}: ${found.point[i]} ≠ ${expected[i]}`);
});

test('a ray through an edge or a vertex shared by triangles crosses the surface once there', () => {
  const mesh = cylinder(RADIUS, HEIGHT, 8, 0);
  // through the corners at angle 0 and π (vertical edges) at mid height: each lies on 2 side triangles' shared edge
  const alongEdge = rayHits(mesh, [-1, 0, 1], [1, 0, 0]);
  assert.equal(alongEdge.length, 2, `two crossings through the shared vertical edges (${alongEdge.length} hits)`);
  assert.ok(Math.abs(alongEdge[0].t - (1 - RADIUS)) < 1e-12 && Math.abs(alongEdge[1].t - (1 + RADIUS)) < 1e-12, 'at the corners');
  // through the bottom cap's centre vertex, shared by all 8 fan triangles, and the top's
  const throughCentres = rayHits(mesh, [0, 0, -1], [0, 0, 1]);
  assert.equal(throughCentres.length, 2, `two crossings through the caps' centre vertices (${throughCentres.length} hits)`);
  assert.deepEqual(
    throughCentres.map((h) => h.entering),
    [true, false],
    'enters at the bottom, leaves at the top',
  );
  assert.equal(rayHits(mesh, [1, 1, 1], [1, 0, 0]).length, 0, 'a ray pointing away from the mesh misses');
  assert.equal(volumeMidpoint(mesh, [1, 1, 1], [1, 0, 0]), null, 'no midpoint for a miss');
});

test('a nested second shell, an inside-out mesh and two limbs on one ray still give the first limb’s middle', () => {
  const random = seededRandom(5);
  const mesh = cylinder(RADIUS, HEIGHT, SIDES);
  // a second cylinder 1 unit along +x: a ray along +x from the left crosses the first, then the second
  const two = joined(mesh, shiftedX(mesh, 1));
  for (const [name, m] of [
    ['nested shell', nested()],
    ['inside out', flipped(mesh)],
    ['two cylinders', two],
  ] as const) {
    for (let k = 0; k < 20; k++) {
      const z = 0.5 + random();
      const y = (2 * random() - 1) * 0.5 * RADIUS;
      const found = volumeMidpoint(m, [-2, y, z], [1, 0, 0]);
      assert.ok(found, `${name}: the ray hits`);
      // a horizontal chord at height y is symmetric about x = 0 (the polygon is symmetric about the y axis)
      assert.ok(Math.abs(found.point[0]) < 1e-9 && found.point[1] === y, `${name}, ray ${k}: middle ${found.point.join(', ')} on x = 0`);
      // the exit is the outer wall's (beyond the nested shell's radius), not the second cylinder's
      assert.ok(found.exit[0] > 0.8 * RADIUS && found.exit[0] <= RADIUS + 1e-12, `${name}, ray ${k}: the exit leaves the first cylinder`);
    }
  }
  const hits = rayHits(nested(), [-2, 0.1 * RADIUS, 1], [1, 0, 0]);
  assert.deepEqual(
    hits.map((h) => h.entering),
    [true, true, false, false],
    'the ray enters both shells before leaving either',
  );
});

test('a ray from inside the volume (the eye zoomed into the mesh) puts the joint between the eye and the wall it leaves by', () => {
  const random = seededRandom(17);
  const mesh = cylinder(RADIUS, HEIGHT, SIDES);
  // Beyond the wall the ray leaves by lies a second limb: the middle between the two would be empty space.
  for (const [name, m, inner] of [
    ['one cylinder', mesh, false],
    ['a second limb beyond', joined(mesh, shiftedX(mesh, 1)), false],
    ['inside out', flipped(joined(mesh, shiftedX(mesh, 1))), false],
    ['inside a nested shell', nested(), true],
  ] as const) {
    for (let k = 0; k < 20; k++) {
      const origin: Vec3 = [(2 * random() - 1) * 0.5 * RADIUS, (2 * random() - 1) * 0.5 * RADIUS, 0.5 + random()];
      const direction: Vec3 = [1, 0.2 * (2 * random() - 1), 0];
      const found = volumeMidpoint(m, origin, direction);
      assert.ok(found, `${name}: the ray hits`);
      // The wall the ray leaves by: the outer cylinder's side, whose crossing the plain cylinder gives as its only hit.
      const [wall] = rayHits(mesh, origin, direction);
      assert.equal(rayHits(mesh, origin, direction).length, 1, `${name}, ray ${k}: from inside the plain cylinder one wall is hit`);
      const expected = origin.map((o, i) => o + (wall.t / 2) * direction[i]);
      for (let i = 0; i < 3; i++)
        assert.ok(
          Math.abs(found.point[i] - expected[i]) < 1e-12,
          `${name}, ray ${k}: coordinate ${i} is ${found.point[i]}, the middle of the eye and the wall ${expected[i]}`,
        );
      assert.deepEqual(found.entry, origin, `${name}, ray ${k}: the part starts at the eye`);
      const w = windingNumber(m, found.point);
      assert.ok(Math.abs(w) > 0.5, `${name}, ray ${k}: the joint is inside (winding number ${w})`);
      if (inner) assert.ok(Math.abs(windingNumber(m, origin) - 2) < 1e-9, `${name}: the eye is inside both shells`);
    }
  }
});

test('overlapping parts (a limb pushed into the body) are crossed as one volume, by depth counting', () => {
  const random = seededRandom(8);
  // two cylinders, the second shifted by one radius along +x, overlapping: enter A, enter B, leave A, leave B
  const a = cylinder(RADIUS, HEIGHT, SIDES);
  const shifted = a.positions.slice();
  for (let i = 0; i < shifted.length; i += 3) shifted[i] += RADIUS;
  const union: TriangleMesh = {
    positions: Float64Array.from([...a.positions, ...shifted]),
    triangles: Uint32Array.from([...a.triangles, ...Array.from(a.triangles, (v) => v + a.positions.length / 3)]),
  };
  for (let k = 0; k < 20; k++) {
    const z = 0.5 + random();
    const y = (2 * random() - 1) * 0.5 * RADIUS;
    const hits = rayHits(union, [-2, y, z], [1, 0, 0]);
    assert.deepEqual(
      hits.map((h) => h.entering),
      [true, true, false, false],
      `ray ${k}: enters both before leaving either`,
    );
    const found = volumeMidpoint(union, [-2, y, z], [1, 0, 0]);
    assert.ok(found, `ray ${k} hits`);
    // A's chord at height y runs from −w to w; B's from −w + R to w + R: the union's middle is R / 2
    assert.ok(Math.abs(found.point[0] - RADIUS / 2) < 1e-9, `ray ${k}: middle at x = ${found.point[0]}, expected ${RADIUS / 2}`);
  }
});

test('an open surface falls back to its first two hits, and one hit gives that point', () => {
  // two parallel squares facing the same way (no volume between them by orientation)
  const square = (z: number): number[] => [-1, -1, z, 1, -1, z, 1, 1, z, -1, 1, z];
  const open: TriangleMesh = {
    positions: Float64Array.from([...square(0), ...square(1)]),
    triangles: Uint32Array.from([0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7]),
  };
  const found = volumeMidpoint(open, [0.1, 0.2, -1], [0, 0, 1]);
  assert.ok(found, 'hits');
  assert.deepEqual([found.entry[2], found.exit[2], found.point[2]], [0, 1, 0.5], 'the middle of the two sheets');
  const single = volumeMidpoint(open, [0.1, 0.2, 0.5], [0, 0, 1]);
  assert.ok(single, 'hits');
  assert.deepEqual(single.point, [0.1, 0.2, 1], 'a single hit is the point itself');
});

test('winding number: 1 inside the closed cylinder, 0 outside, −1 inside when wound inside out', () => {
  const mesh = cylinder(RADIUS, HEIGHT, SIDES);
  const inside = flipped(mesh);
  const random = seededRandom(11);
  const inradius = RADIUS * Math.cos(Math.PI / SIDES);
  let insideCount = 0;
  for (let k = 0; k < 400; k++) {
    const p: Vec3 = [(2 * random() - 1) * 1.5 * RADIUS, (2 * random() - 1) * 1.5 * RADIUS, -0.5 + 3 * random()];
    const r = distanceToAxis(p);
    // keep clear of the surface, where the number changes in a thin layer
    if (Math.abs(r - RADIUS) < 0.02 || Math.abs(r - inradius) < 0.02 || Math.abs(p[2]) < 0.02 || Math.abs(p[2] - HEIGHT) < 0.02) continue;
    const expected = r < inradius && p[2] > 0 && p[2] < HEIGHT ? 1 : 0;
    insideCount += expected;
    const w = windingNumber(mesh, p);
    assert.ok(Math.abs(w - expected) < 1e-9, `point ${p.join(', ')}: winding number ${w}, expected ${expected}`);
    assert.ok(Math.abs(windingNumber(inside, p) + expected) < 1e-9, `point ${p.join(', ')}: inside out gives the opposite`);
  }
  assert.ok(insideCount > 50, `enough points inside (${insideCount})`);
});

test('winding number on the course body: the middle of a ray’s chord is inside, points beyond the surface outside', () => {
  const file = dataFile('context-aware', 'reference.obj');
  const body = readObj(readFileSync(file, 'utf8'), file).mesh;
  const random = seededRandom(3);
  let checked = 0;
  for (let k = 0; k < 30; k++) {
    const x = (2 * random() - 1) * 0.2;
    const y = -1 + 1.4 * random();
    const found = volumeMidpoint(body, [x, y, 2], [0, 0, -1]);
    if (!found) continue;
    checked++;
    const w = windingNumber(body, found.point);
    assert.ok(Math.abs(w - 1) < 1e-6, `chord middle ${found.point.join(', ')}: winding number ${w}`);
    const beyond: Vec3 = [found.entry[0], found.entry[1], found.entry[2] + 0.01];
    assert.ok(Math.abs(windingNumber(body, beyond)) < 1e-6, `a point 1 cm in front of the surface at ${beyond.join(', ')} is outside`);
  }
  assert.ok(checked > 10, `enough rays hit the body (${checked})`);
});
