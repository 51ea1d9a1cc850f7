/**
 * The humanoid template's markers on the course body (context-aware/reference.obj: a T-pose, +y up, facing +z, its
 * left arm toward +x), where a user would click in the front view. Test support, not a test file.
 *
 * They are found from the mesh's own vertices by these rules, then projected as the user's click is (the surface point
 * a ray along the view, −z, hits first):
 * - groin: 5 mm above the lowest vertex within 1 cm of the mid-plane x = 0 (the top of the gap between the legs);
 * - chin: among the vertices within 1 cm of the mid-plane in the top 15 % of the height (the head), the lowest of
 *   those within 1 cm of the front-most one's depth (the face);
 * - wrists and elbows: at 77 % and 49 % of the way from the mid-plane to the tip of each arm (the extreme x on that
 *   side), at the middle of the arm's vertical extent there;
 * - knees: at 29 % of the height above the soles, at the middle of that leg's horizontal extent there.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readObj } from '../../workers/formats/obj.ts';
import type { TriangleMesh } from '../../workers/formats/types.ts';
import { rayHits, type Vec3 } from '../../workers/rig/volume-ray.ts';
import { dataFile } from './shared-data.ts';

/** The course body's mesh. */
export const body: TriangleMesh = readObj(readFileSync(dataFile('context-aware', 'reference.obj'), 'utf8'), 'reference.obj').mesh;

/** 0-based joints of the course skeleton (skeleton.tgf) at each humanoid marker's place on the body. */
export const COURSE_JOINTS: Record<string, number> = {
  chin: 12,
  'wrist.L': 20,
  'wrist.R': 21,
  'elbow.L': 18,
  'elbow.R': 19,
  'knee.L': 4,
  'knee.R': 5,
  groin: 0,
};

function vertexes(mesh: TriangleMesh): Vec3[] {
  const out: Vec3[] = [];
  for (let i = 0; i < mesh.positions.length; i += 3) out.push([mesh.positions[i], mesh.positions[i + 1], mesh.positions[i + 2]]);
  return out;
}

/** The surface point a click at (x, y) in the front view lands on: the first hit of a ray along −z. */
function click(mesh: TriangleMesh, x: number, y: number): Vec3 {
  const hits = rayHits(mesh, [x, y, 10], [0, 0, -1]);
  assert.ok(hits.length > 0, `a click at (${x}, ${y}) lands on the mesh`);
  return [x, y, 10 - hits[0].t];
}

function middle(values: number[]): number {
  return (Math.min(...values) + Math.max(...values)) / 2;
}

/** The humanoid markers on the course body, by the rules in the header. */
export function bodyMarkers(): Record<string, Vec3> {
  const vs = vertexes(body);
  const ys = vs.map((v) => v[1]);
  const [bottom, top] = [Math.min(...ys), Math.max(...ys)];
  const height = top - bottom;
  const nearMid = vs.filter((v) => Math.abs(v[0]) < 0.01);
  const lowestMid = nearMid.reduce((a, b) => (b[1] < a[1] ? b : a));
  const head = nearMid.filter((v) => v[1] > top - 0.15 * height);
  const faceFront = Math.max(...head.map((v) => v[2]));
  const chin = head.filter((v) => v[2] > faceFront - 0.01).reduce((a, b) => (b[1] < a[1] ? b : a));
  const markers: Record<string, Vec3> = { groin: click(body, lowestMid[0], lowestMid[1] + 0.005), chin: click(body, chin[0], chin[1]) };
  for (const [suffix, sign] of [
    ['L', 1],
    ['R', -1],
  ] as const) {
    const tip = sign * Math.max(...vs.map((v) => sign * v[0]));
    for (const [id, fraction] of [
      ['wrist', 0.77],
      ['elbow', 0.49],
    ] as const) {
      const x = fraction * tip;
      markers[`${id}.${suffix}`] = click(body, x, middle(vs.filter((v) => Math.abs(v[0] - x) < 0.005).map((v) => v[1])));
    }
    const kneeHeight = bottom + 0.29 * height;
    const leg = vs.filter((v) => Math.abs(v[1] - kneeHeight) < 0.005 && sign * v[0] > 0);
    markers[`knee.${suffix}`] = click(body, middle(leg.map((v) => v[0])), kneeHeight);
  }
  return markers;
}
