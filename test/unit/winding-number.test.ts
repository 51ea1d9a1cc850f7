import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readObj } from '../../workers/formats/obj.ts';
import { readTgf } from '../../workers/formats/tgf.ts';
import { boundingBox } from '../../workers/mesh/bounds.ts';
import { windingNumbers, WINDING_NUMBER_DEFAULTS } from '../../workers/mesh/winding-number.ts';
import { dataFile } from './shared-data.ts';
import { seededRandom } from './seeded-random.ts';
import { uvSphere } from './uv-sphere.ts';

/**
 * Inside test by ray parity, a second algorithm for a closed mesh: the number of triangles a ray from q along a
 * slightly skewed direction crosses (Möller–Trumbore), odd inside.
 */
function rayParity(positions: Float64Array, triangles: Uint32Array, qx: number, qy: number, qz: number): number {
  const [dx, dy, dz] = [0.9171, 0.3112, 0.2481];
  let crossings = 0;
  for (let f = 0; f < triangles.length; f += 3) {
    const a = 3 * triangles[f];
    const b = 3 * triangles[f + 1];
    const c = 3 * triangles[f + 2];
    const e1 = [positions[b] - positions[a], positions[b + 1] - positions[a + 1], positions[b + 2] - positions[a + 2]];
    const e2 = [positions[c] - positions[a], positions[c + 1] - positions[a + 1], positions[c + 2] - positions[a + 2]];
    const p = [dy * e2[2] - dz * e2[1], dz * e2[0] - dx * e2[2], dx * e2[1] - dy * e2[0]];
    const det = e1[0] * p[0] + e1[1] * p[1] + e1[2] * p[2];
    if (det === 0) continue;
    const t = [qx - positions[a], qy - positions[a + 1], qz - positions[a + 2]];
    const u = (t[0] * p[0] + t[1] * p[1] + t[2] * p[2]) / det;
    if (u < 0 || u > 1) continue;
    const s = [t[1] * e1[2] - t[2] * e1[1], t[2] * e1[0] - t[0] * e1[2], t[0] * e1[1] - t[1] * e1[0]];
    const v = (dx * s[0] + dy * s[1] + dz * s[2]) / det;
    if (v < 0 || u + v > 1) continue;
    if ((e2[0] * s[0] + e2[1] * s[1] + e2[2] * s[2]) / det > 0) crossings++;
  }
  return crossings % 2;
}

/** #n × 3 points uniformly in a ball of `radius` about the origin (rejection sampling). */
function pointsInBall(n: number, radius: number, random: () => number): Float64Array {
  const out = new Float64Array(3 * n);
  for (let i = 0; i < n;) {
    const x = 2 * random() - 1;
    const y = 2 * random() - 1;
    const z = 2 * random() - 1;
    if (x * x + y * y + z * z > 1) continue;
    out.set([radius * x, radius * y, radius * z], 3 * i++);
  }
  return out;
}

/** #n × 3 points on random directions at distances in [inner, outer] from the origin. */
function pointsInShell(n: number, inner: number, outer: number, random: () => number): Float64Array {
  const out = new Float64Array(3 * n);
  const ball = pointsInBall(n, 1, random);
  for (let i = 0; i < n; i++) {
    const length = Math.hypot(ball[3 * i], ball[3 * i + 1], ball[3 * i + 2]) || 1;
    const r = inner + (outer - inner) * random();
    for (let k = 0; k < 3; k++) out[3 * i + k] = (r * ball[3 * i + k]) / length;
  }
  return out;
}

test('winding number of a closed sphere: exactly 1 inside and 0 outside (within 1e-6); the hierarchical mode within its stated error', () => {
  const random = seededRandom(7);
  const sphere = uvSphere(48, 24, 1);
  // The polyhedron lies between the circumscribed sphere (radius 1) and its inscribed one (cos of the half angles).
  const inside = pointsInBall(300, 0.95, random);
  const outside = pointsInShell(300, 1.05, 4, random);
  const exactInside = windingNumbers(sphere.positions, sphere.triangles, inside, { accuracy: 0 });
  const exactOutside = windingNumbers(sphere.positions, sphere.triangles, outside, { accuracy: 0 });
  for (let i = 0; i < 300; i++) {
    assert.ok(Math.abs(exactInside[i] - 1) <= 1e-6, `inside point ${i}: w = ${exactInside[i]}, not 1`);
    assert.ok(Math.abs(exactOutside[i]) <= 1e-6, `outside point ${i}: w = ${exactOutside[i]}, not 0`);
  }
  const fastInside = windingNumbers(sphere.positions, sphere.triangles, inside);
  const fastOutside = windingNumbers(sphere.positions, sphere.triangles, outside);
  let worst = 0;
  for (let i = 0; i < 300; i++) worst = Math.max(worst, Math.abs(fastInside[i] - 1), Math.abs(fastOutside[i]));
  assert.ok(worst <= 0.1, `the dipole approximation at β = ${WINDING_NUMBER_DEFAULTS.accuracy} is within 0.1 of exact, got ${worst}`);
  // A larger β is more accurate: β = 8 opens every cluster nearer than 8 radii.
  const fine = windingNumbers(sphere.positions, sphere.triangles, inside, { accuracy: 8 });
  let fineWorst = 0;
  for (let i = 0; i < 300; i++) fineWorst = Math.max(fineWorst, Math.abs(fine[i] - 1));
  assert.ok(fineWorst < worst && fineWorst <= 0.01, `β = 8 is within 0.01 (${fineWorst}) and better than β = 2 (${worst})`);
});

test('winding number of the course body (closed, 37k triangles): 1 inside and 0 outside by ray parity at its joints, 0 beyond its box, exact and hierarchical agree on the side', () => {
  const body = readObj(readFileSync(dataFile('context-aware/reference.obj'), 'utf8'), 'reference.obj').mesh;
  const skeleton = readTgf(readFileSync(dataFile('context-aware/skeleton.tgf'), 'utf8'), 'skeleton.tgf');
  const joints = skeleton.joints;
  const exact = windingNumbers(body.positions, body.triangles, joints, { accuracy: 0 });
  let insideJoints = 0;
  for (let j = 0; j < exact.length; j++) {
    const parity = rayParity(body.positions, body.triangles, joints[3 * j], joints[3 * j + 1], joints[3 * j + 2]);
    insideJoints += parity;
    assert.ok(Math.abs(exact[j] - parity) <= 1e-6, `joint ${j}: w = ${exact[j]}, ray parity ${parity}`);
  }
  assert.ok(insideJoints >= 20, `most of the ${exact.length} joints are inside the body (${insideJoints})`);
  const { min, max, diagonal } = boundingBox(body.positions);
  const random = seededRandom(3);
  // Outside: beyond the bounding box by up to a diagonal, on every side.
  const outside = new Float64Array(3 * 60);
  for (let i = 0; i < 60; i++) {
    const axis = i % 3;
    for (let k = 0; k < 3; k++) outside[3 * i + k] = min[k] + (max[k] - min[k]) * random();
    outside[3 * i + axis] = (i % 2 ? max[axis] : min[axis]) + (i % 2 ? 1 : -1) * (0.01 + random()) * diagonal;
  }
  const exactOutside = windingNumbers(body.positions, body.triangles, outside, { accuracy: 0 });
  for (let i = 0; i < 60; i++) assert.ok(Math.abs(exactOutside[i]) <= 1e-6, `outside point ${i}: w = ${exactOutside[i]}, not 0`);
  // Random points in the box: the hierarchical value is on the same side of 1/2 wherever the exact one is clear of it.
  const box = new Float64Array(3 * 200);
  for (let i = 0; i < 3 * 200; i++) box[i] = min[i % 3] + (max[i % 3] - min[i % 3]) * random();
  const exactBox = windingNumbers(body.positions, body.triangles, box, { accuracy: 0 });
  const fastBox = windingNumbers(body.positions, body.triangles, box);
  let worst = 0;
  for (let i = 0; i < 200; i++) {
    worst = Math.max(worst, Math.abs(exactBox[i] - fastBox[i]));
    const parity = rayParity(body.positions, body.triangles, box[3 * i], box[3 * i + 1], box[3 * i + 2]);
    assert.ok(Math.abs(exactBox[i] - parity) <= 1e-6, `box point ${i}: exact w = ${exactBox[i]}, ray parity ${parity}`);
    assert.equal(fastBox[i] > 0.5, exactBox[i] > 0.5, `box point ${i}: hierarchical ${fastBox[i]}, exact ${exactBox[i]}`);
  }
  assert.ok(worst <= 0.15, `hierarchical mode within 0.15 of exact on the body, got ${worst}`);
});

test('winding number of a sphere with a hole: inside > 1/2 and outside < 1/2 away from the hole', () => {
  const random = seededRandom(11);
  const sphere = uvSphere(48, 24, 1);
  // Drop the north cap (the triangles at the pole and the first ring band): a hole of polar radius 2π/24 = 15°.
  const capTriangles = 48 * 3;
  const open = sphere.triangles.slice(3 * capTriangles);
  const inside = pointsInBall(300, 0.9, random);
  const outside = pointsInShell(300, 1.1, 3, random);
  // Away from the hole: more than 0.6 from the north pole.
  const away = (p: Float64Array, i: number) => Math.hypot(p[3 * i], p[3 * i + 1], p[3 * i + 2] - 1) > 0.6;
  for (const accuracy of [0, WINDING_NUMBER_DEFAULTS.accuracy]) {
    const wInside = windingNumbers(sphere.positions, open, inside, { accuracy });
    const wOutside = windingNumbers(sphere.positions, open, outside, { accuracy });
    let tested = 0;
    for (let i = 0; i < 300; i++) {
      if (away(inside, i)) {
        tested++;
        assert.ok(wInside[i] > 0.5 && (accuracy > 0 || wInside[i] < 1), `β ${accuracy}: inside point ${i}: w = ${wInside[i]}`);
      }
      if (away(outside, i)) assert.ok(Math.abs(wOutside[i]) < 0.5, `β ${accuracy}: outside point ${i}: w = ${wOutside[i]}`);
    }
    assert.ok(tested > 200, `most inside points are away from the hole (${tested})`);
  }
  // The hole's own solid angle: at the centre, w = 1 − (cap area)/(4π) = (1 + cos 15°) / 2 for the polyhedron within 1e-2.
  const centre = windingNumbers(sphere.positions, open, new Float64Array(3), { accuracy: 0 });
  assert.ok(Math.abs(centre[0] - (1 + Math.cos(Math.PI / 12)) / 2) <= 1e-2, `w at the centre ${centre[0]}`);
});
