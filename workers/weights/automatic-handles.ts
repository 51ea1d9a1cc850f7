import type { TgfSkeleton } from '../formats/types.ts';
import { spreadWeldedRows, weldVertices, type WeldedVertices } from '../mesh/weld-vertices.ts';

/**
 * The settings of the two handle rules below as callers (the app's Bind panel, `rigwright weights`) present them:
 * the cylinder radius relative to the mesh, since a radius in mesh units suits only one mesh.
 */
export interface AutomaticHandlesOptions {
  /** jointDistanceHandles: sphere radius as a multiple of the bone midpoint's closest-vertex distance */
  distanceFactor?: number;
  /** boneCylinderHandles: cylinder radius as a fraction of the mesh's bounding-box diagonal */
  radiusFraction?: number;
}

export const AUTOMATIC_HANDLES_DEFAULTS: Required<AutomaticHandlesOptions> = {
  distanceFactor: 1.5,
  radiusFraction: 0.04,
};

/**
 * How handles are chosen automatically (handout Sec. 4.1), and the tolerance, in mesh units, within which vertices
 * are one (weldVertices; 0 or absent: exactly coincident ones).
 */
export type AutomaticHandleRule = ({ rule: 'distance'; factor?: number } | { rule: 'cylinder'; radius: number }) & {
  weldTolerance?: number;
};

/**
 * Automatic handles on the welded mesh: the rule runs on the welded vertices (each at its first member's position)
 * and every member of a welded vertex gets its label, so vertices the binding welds are never split between a
 * handle and a free vertex, nor between two bones.
 * @param positions #V × 3 rest positions
 * @param skeleton  joints #J × 3 and bones #B × 2
 * @param weld      the positions already welded by the rule's weld tolerance (a bind's one weld), or absent: welded here
 * @returns #V: bone index of each handle vertex, -1 for free vertices
 */
export function automaticHandles(
  positions: Float64Array,
  skeleton: TgfSkeleton,
  rule: AutomaticHandleRule,
  weld: WeldedVertices = weldVertices(positions, new Uint32Array(0), { tolerance: rule.weldTolerance ?? 0 }),
): Int32Array {
  const welded =
    rule.rule === 'distance'
      ? jointDistanceHandles(weld.positions, skeleton, rule.factor)
      : boneCylinderHandles(weld.positions, skeleton, rule.radius);
  return spreadWeldedRows(welded, weld, 1, new Int32Array(positions.length / 3));
}

/**
 * Handles by the course rule (handout Sec. 4.1, "geometric selection"): bone b claims every vertex closer to its
 * reference point than `factor` × the distance from that point to the mesh's closest vertex.
 *
 * The reference point is the bone's MIDPOINT, not its start joint: several bones often start at the same joint
 * (the fingers at the wrist, both legs at the pelvis), which would give them the same sphere, and a sphere around
 * a joint pins the articulation itself to one bone, where the weights most need to blend. The midpoint is unique
 * per bone and sits in the middle of the part the bone moves rigidly.
 *
 * Vertices claimed by several bones go to the one whose sphere they are deepest in (smallest distance relative
 * to its radius), so the handles are disjoint as harmonicWeights requires. Every bone claims at least its closest
 * vertex, unless another bone claims that vertex more strongly.
 *
 * @param positions #V × 3 rest positions
 * @param skeleton  joints #J × 3 and bones #B × 2 (start, end joint)
 * @param factor    sphere radius as a multiple of the closest-vertex distance (1.5 in the handout)
 * @returns #V: bone index of each handle vertex, -1 for free vertices
 */
export function jointDistanceHandles(
  positions: Float64Array,
  skeleton: TgfSkeleton,
  factor = AUTOMATIC_HANDLES_DEFAULTS.distanceFactor,
): Int32Array {
  const n = Math.floor(positions.length / 3);
  const boneCount = skeleton.bones.length / 2;
  const handles = new Int32Array(n).fill(-1);
  const depth = new Float64Array(n).fill(Infinity);
  for (let b = 0; b < boneCount; b++) {
    const s = 3 * skeleton.bones[2 * b];
    const e = 3 * skeleton.bones[2 * b + 1];
    const mx = 0.5 * (skeleton.joints[s] + skeleton.joints[e]);
    const my = 0.5 * (skeleton.joints[s + 1] + skeleton.joints[e + 1]);
    const mz = 0.5 * (skeleton.joints[s + 2] + skeleton.joints[e + 2]);
    let closest = Infinity;
    for (let v = 0; v < n; v++) {
      const d = squaredDistance(positions, v, mx, my, mz);
      if (d < closest) closest = d;
    }
    const radius = factor * Math.sqrt(closest);
    for (let v = 0; v < n; v++) {
      const d = Math.sqrt(squaredDistance(positions, v, mx, my, mz));
      if (d > radius) continue;
      const relative = radius > 0 ? d / radius : 0;
      if (relative < depth[v]) {
        depth[v] = relative;
        handles[v] = b;
      }
    }
  }
  return handles;
}

/**
 * Handles by a cylinder around each bone (handout Sec. 4.1): bone b claims the vertices within `radius` of its
 * segment whose projection falls strictly between its two joints — a cylinder without end caps, so the regions
 * around the joints stay free for the weights to blend. A vertex inside several cylinders goes to the closest
 * bone segment, which keeps the handles disjoint.
 *
 * @param positions #V × 3 rest positions
 * @param skeleton  joints #J × 3 and bones #B × 2 (start, end joint)
 * @param radius    cylinder radius, in the mesh's units
 * @returns #V: bone index of each handle vertex, -1 for free vertices
 */
export function boneCylinderHandles(positions: Float64Array, skeleton: TgfSkeleton, radius: number): Int32Array {
  const n = Math.floor(positions.length / 3);
  const boneCount = skeleton.bones.length / 2;
  const handles = new Int32Array(n).fill(-1);
  const best = new Float64Array(n).fill(Infinity);
  const r2 = radius * radius;
  for (let b = 0; b < boneCount; b++) {
    const s = 3 * skeleton.bones[2 * b];
    const e = 3 * skeleton.bones[2 * b + 1];
    const ax = skeleton.joints[s];
    const ay = skeleton.joints[s + 1];
    const az = skeleton.joints[s + 2];
    const dx = skeleton.joints[e] - ax;
    const dy = skeleton.joints[e + 1] - ay;
    const dz = skeleton.joints[e + 2] - az;
    const length2 = dx * dx + dy * dy + dz * dz;
    if (!(length2 > 0)) continue;
    for (let v = 0; v < n; v++) {
      const px = positions[3 * v] - ax;
      const py = positions[3 * v + 1] - ay;
      const pz = positions[3 * v + 2] - az;
      const t = (px * dx + py * dy + pz * dz) / length2;
      if (!(t > 0 && t < 1)) continue;
      const qx = px - t * dx;
      const qy = py - t * dy;
      const qz = pz - t * dz;
      const d2 = qx * qx + qy * qy + qz * qz;
      if (d2 <= r2 && d2 < best[v]) {
        best[v] = d2;
        handles[v] = b;
      }
    }
  }
  return handles;
}

function squaredDistance(positions: Float64Array, v: number, x: number, y: number, z: number): number {
  const dx = positions[3 * v] - x;
  const dy = positions[3 * v + 1] - y;
  const dz = positions[3 * v + 2] - z;
  return dx * dx + dy * dy + dz * dz;
}
