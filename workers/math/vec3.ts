/**
 * Small 3-vector helpers for code that works on a few points (joint placement, template fitting, two-bone IK), not
 * per vertex: each returns a new tuple. Hot loops keep their numbers in typed arrays instead.
 */

/** A point or direction, x y z. */
export type Vec3 = readonly [number, number, number];

export function add(a: Vec3, b: Vec3): [number, number, number] {
  return [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
}

export function sub(a: Vec3, b: Vec3): [number, number, number] {
  return [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
}

export function scale(a: Vec3, s: number): [number, number, number] {
  return [a[0] * s, a[1] * s, a[2] * s];
}

export function dot(a: Vec3, b: Vec3): number {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

export function cross(a: Vec3, b: Vec3): [number, number, number] {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}

export function norm(a: Vec3): number {
  return Math.hypot(a[0], a[1], a[2]);
}

export function distance(a: Vec3, b: Vec3): number {
  return Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}

/** a + t (b − a) */
export function lerp(a: Vec3, b: Vec3, t: number): [number, number, number] {
  return add(a, scale(sub(b, a), t));
}

/** The unit vector along a, or null for a zero or non-finite vector. */
export function normalize(a: Vec3): [number, number, number] | null {
  const length = norm(a);
  return length > 0 && Number.isFinite(length) ? scale(a, 1 / length) : null;
}

/** Row-major 3×3 `m` (9 numbers) times `p`. */
export function transform(m: ArrayLike<number>, p: Vec3): [number, number, number] {
  return [m[0] * p[0] + m[1] * p[1] + m[2] * p[2], m[3] * p[0] + m[4] * p[1] + m[5] * p[2], m[6] * p[0] + m[7] * p[1] + m[8] * p[2]];
}
