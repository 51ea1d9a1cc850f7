/**
 * Rays through a mesh's volume, for placing joints inside it: every hit of a ray with the surface (Möller & Trumbore
 * 1997), the middle of the part of the volume a ray crosses first, and the generalized winding number that tells
 * inside from outside (Jacobson et al. 2013, with the solid angle of Van Oosterom & Strackee 1983).
 */
import type { TriangleMesh } from '../formats/types.ts';
import type { Vec3 } from './bone-edits.ts';

export type { Vec3 };

/** One crossing of a ray with a triangle. */
export interface RayHit {
  /** the ray parameter: the hit is origin + t·direction (in units of |direction|), t > 0 */
  t: number;
  /** the triangle's index (row of mesh.triangles) */
  triangle: number;
  /** the ray goes against the triangle's outward normal (b − a) × (c − a), CCW: it enters the volume there */
  entering: boolean;
}

/**
 * Relative tolerance of the barycentric test and of merging duplicate hits: a ray through an edge or vertex
 * shared by several triangles crosses the surface once, so hits of the same orientation closer than this (in units
 * of the hit distance plus the ray's length scale) count once.
 */
const MERGE_TOLERANCE = 1e-9;

/**
 * Every hit of the ray origin + t·direction with the mesh's triangles, t > 0, sorted by t. A ray through a shared
 * edge or vertex gives one hit per crossing (coincident hits with the same orientation are merged); triangles the
 * ray grazes in their plane are not hit.
 * @param mesh       positions #V × 3, triangles #F × 3 (CCW seen from outside)
 * @param origin     the ray's start
 * @param direction  the ray's direction (need not be unit length; t is in units of it)
 * @returns the hits in order of t
 */
export function rayHits(mesh: TriangleMesh, origin: Vec3, direction: Vec3): RayHit[] {
  const P = mesh.positions;
  const T = mesh.triangles;
  const [ox, oy, oz] = origin;
  const [dx, dy, dz] = direction;
  const hits: RayHit[] = [];
  const triangleCount = Math.floor(T.length / 3);
  for (let f = 0; f < triangleCount; f++) {
    const a = 3 * T[3 * f],
      b = 3 * T[3 * f + 1],
      c = 3 * T[3 * f + 2];
    const ax = P[a],
      ay = P[a + 1],
      az = P[a + 2];
    const e1x = P[b] - ax,
      e1y = P[b + 1] - ay,
      e1z = P[b + 2] - az;
    const e2x = P[c] - ax,
      e2y = P[c + 1] - ay,
      e2z = P[c + 2] - az;
    // Möller–Trumbore: p = d × e2, det = e1 · p
    const px = dy * e2z - dz * e2y,
      py = dz * e2x - dx * e2z,
      pz = dx * e2y - dy * e2x;
    const det = e1x * px + e1y * py + e1z * pz;
    if (det === 0 || !Number.isFinite(det)) continue;
    const inv = 1 / det;
    const sx = ox - ax,
      sy = oy - ay,
      sz = oz - az;
    const u = (sx * px + sy * py + sz * pz) * inv;
    if (u < -MERGE_TOLERANCE || u > 1 + MERGE_TOLERANCE) continue;
    const qx = sy * e1z - sz * e1y,
      qy = sz * e1x - sx * e1z,
      qz = sx * e1y - sy * e1x;
    const v = (dx * qx + dy * qy + dz * qz) * inv;
    if (v < -MERGE_TOLERANCE || u + v > 1 + MERGE_TOLERANCE) continue;
    const t = (e2x * qx + e2y * qy + e2z * qz) * inv;
    if (!(t > 0)) continue;
    // det = e1 · (d × e2) = d · (e2 × e1) = −d · n: positive when the ray runs against the outward normal
    hits.push({ t, triangle: f, entering: det > 0 });
  }
  hits.sort((h, k) => h.t - k.t || h.triangle - k.triangle);
  return mergeCoincident(hits);
}

/** Drops a hit that repeats the previous kept hit of the same orientation at the same t (a shared edge or vertex). */
function mergeCoincident(hits: RayHit[]): RayHit[] {
  const kept: RayHit[] = [];
  for (const hit of hits) {
    let duplicate = false;
    for (let i = kept.length - 1; i >= 0; i--) {
      const k = kept[i];
      if (hit.t - k.t > MERGE_TOLERANCE * (1 + Math.abs(hit.t))) break;
      if (k.entering === hit.entering) {
        duplicate = true;
        break;
      }
    }
    if (!duplicate) kept.push(hit);
  }
  return kept;
}

/**
 * Where a joint placed along this ray goes: the middle of the part of the volume the ray crosses first. Seen from
 * outside (the generalized winding number at the origin at most 1/2 in size), that part runs from the first hit into
 * the volume to the exit that leaves it: the hits are counted from the first one, a hit with the first hit's
 * orientation one level deeper, one with the other orientation one level out, and the exit is the hit that brings
 * the depth back to 0, so a limb seen through a second shell nested in it, or through another limb nested inside,
 * still gives that limb's middle, and a mesh wound inside out works too. From inside the volume (the camera zoomed
 * into the mesh) the part starts at the origin itself, at the depth the winding number there gives (rounded; its
 * sign says whether the mesh is wound outward or inside out), and ends at the hit that brings that depth to 0, so
 * the joint lands inside the volume the eye is in rather than between it and the next part. When no hit closes the
 * part (an open surface), or the closing hit lies on its start, the first two hits at distinct t are used (from
 * inside: the origin and the first hit); a single hit from outside gives that point.
 * @param mesh       positions #V × 3, triangles #F × 3
 * @param origin     the ray's start (the eye, or a point in front of the mesh)
 * @param direction  the ray's direction
 * @returns the midpoint and the entry and exit points (from inside: the entry is the origin), or null when the ray
 *          misses the mesh
 */
export function volumeMidpoint(mesh: TriangleMesh, origin: Vec3, direction: Vec3): { point: Vec3; entry: Vec3; exit: Vec3 } | null {
  const hits = rayHits(mesh, origin, direction);
  if (hits.length === 0) return null;
  const winding = windingNumber(mesh, origin);
  const inside = Math.abs(winding) > 0.5;
  const first = hits[0];
  // From outside the first hit enters, whichever way the mesh is wound; from inside, the winding number's sign says
  // which orientation goes deeper (an outward-wound mesh is entered against its normals).
  const deeper = inside ? winding > 0 : first.entering;
  const entryT = inside ? 0 : first.t;
  const distinct = (t: number): boolean => t - entryT > MERGE_TOLERANCE * (1 + Math.abs(entryT));
  let exitT: number | null = null;
  let depth = inside ? Math.round(Math.abs(winding)) : 0;
  for (const hit of hits) {
    depth += hit.entering === deeper ? 1 : -1;
    if (depth === 0) {
      if (distinct(hit.t)) exitT = hit.t;
      break;
    }
  }
  if (exitT === null) exitT = hits.find((h) => distinct(h.t))?.t ?? entryT;
  const at = (t: number): Vec3 => [origin[0] + t * direction[0], origin[1] + t * direction[1], origin[2] + t * direction[2]];
  return { point: at((entryT + exitT) / 2), entry: at(entryT), exit: at(exitT) };
}

/**
 * Generalized winding number of a point (Jacobson, Kavan & Sorkine-Hornung 2013, eq. 6): the sum of the signed
 * solid angles of the triangles seen from the point, over 4π. Each solid angle Ω follows Van Oosterom & Strackee
 * (1983): tan(Ω/2) = a·(b×c) / (|a||b||c| + (a·b)|c| + (b·c)|a| + (c·a)|b|), with a, b, c the corners relative to
 * the point.
 * @param mesh   positions #V × 3, triangles #F × 3 (CCW seen from outside)
 * @param point  the query point
 * @returns ≈ 1 inside a closed outward-wound mesh, ≈ 0 outside, fractional near holes
 */
export function windingNumber(mesh: TriangleMesh, point: Vec3): number {
  const P = mesh.positions;
  const T = mesh.triangles;
  const [x, y, z] = point;
  let total = 0;
  const triangleCount = Math.floor(T.length / 3);
  for (let f = 0; f < triangleCount; f++) {
    const a = 3 * T[3 * f],
      b = 3 * T[3 * f + 1],
      c = 3 * T[3 * f + 2];
    const ax = P[a] - x,
      ay = P[a + 1] - y,
      az = P[a + 2] - z;
    const bx = P[b] - x,
      by = P[b + 1] - y,
      bz = P[b + 2] - z;
    const cx = P[c] - x,
      cy = P[c + 1] - y,
      cz = P[c + 2] - z;
    const la = Math.hypot(ax, ay, az),
      lb = Math.hypot(bx, by, bz),
      lc = Math.hypot(cx, cy, cz);
    const triple = ax * (by * cz - bz * cy) + ay * (bz * cx - bx * cz) + az * (bx * cy - by * cx);
    const denominator =
      la * lb * lc + (ax * bx + ay * by + az * bz) * lc + (bx * cx + by * cy + bz * cz) * la + (cx * ax + cy * ay + cz * az) * lb;
    total += 2 * Math.atan2(triple, denominator);
  }
  return total / (4 * Math.PI);
}
