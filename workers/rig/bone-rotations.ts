/**
 * Rotations of posed bones as a posing tool reads and writes them: each bone's world rotation from the relative ones
 * (libigl's convention, forward-kinematics.ts), a bone's rest frame (its own axes: y along the bone), the rotation
 * of a bone set in the world's axes or in its own, and X/Y/Z angles. Every matrix is 3×3 row-major (9 numbers at
 * an offset), as the pose sequences store them; angles are radians.
 */
import type { Skeleton } from './skeleton.ts';

type Vec = Float64Array | number[];

/** How far a matrix may be from a rotation (|M Mᵀ − I| entries, |det − 1|) and still be taken as one. */
export const ROTATION_TOLERANCE = 1e-6;

/**
 * out = a · b.
 * @param a,ai  3×3 at offset ai   @param b,bi  3×3 at offset bi   @param out,oi  3×3 written at oi (may not alias)
 */
export function multiply3(a: Vec, ai: number, b: Vec, bi: number, out: Vec, oi: number): void {
  for (let r = 0; r < 3; r++) {
    for (let c = 0; c < 3; c++) {
      out[oi + 3 * r + c] = a[ai + 3 * r] * b[bi + c] + a[ai + 3 * r + 1] * b[bi + 3 + c] + a[ai + 3 * r + 2] * b[bi + 6 + c];
    }
  }
}

/** out = aᵀ · b (a rotation's inverse times b). Same layout as multiply3; out may not alias. */
export function multiplyTransposed3(a: Vec, ai: number, b: Vec, bi: number, out: Vec, oi: number): void {
  for (let r = 0; r < 3; r++) {
    for (let c = 0; c < 3; c++) {
      out[oi + 3 * r + c] = a[ai + r] * b[bi + c] + a[ai + 3 + r] * b[bi + 3 + c] + a[ai + 6 + r] * b[bi + 6 + c];
    }
  }
}

/** out = a · bᵀ. Same layout as multiply3; out may not alias. */
export function multiplyByTransposed3(a: Vec, ai: number, b: Vec, bi: number, out: Vec, oi: number): void {
  for (let r = 0; r < 3; r++) {
    for (let c = 0; c < 3; c++) {
      out[oi + 3 * r + c] = a[ai + 3 * r] * b[bi + 3 * c] + a[ai + 3 * r + 1] * b[bi + 3 * c + 1] + a[ai + 3 * r + 2] * b[bi + 3 * c + 2];
    }
  }
}

/**
 * World rotation of every bone: Q_b = Q_parent · R_b (roots: Q_b = R_b), the rotation part of forwardKinematics
 * without its translations.
 * @param skeleton   rest skeleton (`order`: parents first)
 * @param relative   #B × 9 relative rotations
 * @param out        #B × 9 world rotations
 */
export function worldRotations(skeleton: Skeleton, relative: Float64Array, out: Float64Array): void {
  const { parents, order } = skeleton;
  for (let i = 0; i < order.length; i++) {
    const b = order[i];
    const p = parents[b];
    if (p < 0) out.set(relative.subarray(9 * b, 9 * b + 9), 9 * b);
    else multiply3(out, 9 * p, relative, 9 * b, out, 9 * b);
  }
}

/**
 * A bone's own axes at rest, as the columns of a rotation: y along the bone (start → end joint), x = y × ẑ normalized
 * (perpendicular to both the bone and the world's z axis; y × x̂ for a bone within about 26° of z, |y_z| > 0.9, where
 * y × ẑ would be too short to trust), z = x × y. A bone of length zero gets the world's axes.
 * @param skeleton  rest skeleton
 * @param bone      the bone
 * @param out,oi    3×3 written at oi, columns x, y, z
 */
export function boneRestFrame(skeleton: Skeleton, bone: number, out: Vec, oi = 0): void {
  const { joints, bones } = skeleton;
  const s = 3 * bones[2 * bone];
  const e = 3 * bones[2 * bone + 1];
  let yx = joints[e] - joints[s],
    yy = joints[e + 1] - joints[s + 1],
    yz = joints[e + 2] - joints[s + 2];
  const length = Math.hypot(yx, yy, yz);
  if (!(length > 0)) {
    for (let k = 0; k < 9; k++) out[oi + k] = k % 4 === 0 ? 1 : 0;
    return;
  }
  yx /= length;
  yy /= length;
  yz /= length;
  // x = y × reference, the reference being the world's z axis, or its x axis when the bone runs nearly along z.
  const alongZ = Math.abs(yz) > 0.9;
  let xx = alongZ ? 0 : yy,
    xy = alongZ ? yz : -yx,
    xz = alongZ ? -yy : 0;
  const xl = Math.hypot(xx, xy, xz);
  xx /= xl;
  xy /= xl;
  xz /= xl;
  const zx = xy * yz - xz * yy,
    zy = xz * yx - xx * yz,
    zz = xx * yy - xy * yx;
  out[oi] = xx;
  out[oi + 1] = yx;
  out[oi + 2] = zx;
  out[oi + 3] = xy;
  out[oi + 4] = yy;
  out[oi + 5] = zy;
  out[oi + 6] = xz;
  out[oi + 7] = yz;
  out[oi + 8] = zz;
}

/**
 * The rotation R = Rx(x) · Ry(y) · Rz(z) (three.js's Euler order 'XYZ').
 * @param angles  [x, y, z] radians
 * @param out,oi  3×3 written at oi
 */
export function eulerXyzToMatrix(angles: readonly number[], out: Vec, oi = 0): void {
  const [x, y, z] = angles;
  const a = Math.cos(x),
    b = Math.sin(x),
    c = Math.cos(y),
    d = Math.sin(y),
    e = Math.cos(z),
    f = Math.sin(z);
  out[oi] = c * e;
  out[oi + 1] = -c * f;
  out[oi + 2] = d;
  out[oi + 3] = a * f + b * e * d;
  out[oi + 4] = a * e - b * f * d;
  out[oi + 5] = -b * c;
  out[oi + 6] = b * f - a * e * d;
  out[oi + 7] = b * e + a * f * d;
  out[oi + 8] = a * c;
}

/**
 * X/Y/Z angles of a rotation, the inverse of eulerXyzToMatrix: y ∈ [−π/2, π/2], x and z ∈ (−π, π]; at y = ±π/2 (gimbal
 * lock) z is 0.
 * @param m,mi  3×3 rotation at offset mi
 * @returns [x, y, z] radians
 */
export function matrixToEulerXyz(m: Vec, mi = 0): [number, number, number] {
  const m02 = Math.min(1, Math.max(-1, m[mi + 2]));
  const y = Math.asin(m02);
  if (Math.abs(m02) < 1 - 1e-12) return [Math.atan2(-m[mi + 5], m[mi + 8]), y, Math.atan2(-m[mi + 1], m[mi])];
  return [Math.atan2(m[mi + 7], m[mi + 4]), y, 0];
}

/**
 * The nearest rotation to an almost-rotation, by Gram–Schmidt on its columns (x kept in direction, y made
 * perpendicular to it, z = x × y), in place. Products of rotations read from files (det 1 within 1e-6) drift from
 * orthonormal; a pose written back is made exact again.
 * @param m,mi  3×3 at offset mi
 */
export function orthonormalize3(m: Vec, mi = 0): void {
  let xx = m[mi],
    xy = m[mi + 3],
    xz = m[mi + 6];
  const xl = Math.hypot(xx, xy, xz);
  xx /= xl;
  xy /= xl;
  xz /= xl;
  const d = m[mi + 1] * xx + m[mi + 4] * xy + m[mi + 7] * xz;
  let yx = m[mi + 1] - d * xx,
    yy = m[mi + 4] - d * xy,
    yz = m[mi + 7] - d * xz;
  const yl = Math.hypot(yx, yy, yz);
  yx /= yl;
  yy /= yl;
  yz /= yl;
  m[mi] = xx;
  m[mi + 3] = xy;
  m[mi + 6] = xz;
  m[mi + 1] = yx;
  m[mi + 4] = yy;
  m[mi + 7] = yz;
  m[mi + 2] = xy * yz - xz * yy;
  m[mi + 5] = xz * yx - xx * yz;
  m[mi + 8] = xx * yy - xy * yx;
}

/**
 * How far a 3×3 matrix is from a rotation: the largest of |M Mᵀ − I|'s entries and |det M − 1| (NaN for a matrix
 * with a NaN).
 */
export function rotationDefect(m: Vec, mi = 0): number {
  let worst = 0;
  for (let r = 0; r < 3; r++) {
    for (let c = 0; c < 3; c++) {
      const dot = m[mi + 3 * r] * m[mi + 3 * c] + m[mi + 3 * r + 1] * m[mi + 3 * c + 1] + m[mi + 3 * r + 2] * m[mi + 3 * c + 2];
      const d = Math.abs(dot - (r === c ? 1 : 0));
      if (!(d <= worst)) worst = d;
    }
  }
  const det =
    m[mi] * (m[mi + 4] * m[mi + 8] - m[mi + 5] * m[mi + 7]) -
    m[mi + 1] * (m[mi + 3] * m[mi + 8] - m[mi + 5] * m[mi + 6]) +
    m[mi + 2] * (m[mi + 3] * m[mi + 7] - m[mi + 4] * m[mi + 6]);
  const d = Math.abs(det - 1);
  return d <= worst ? worst : d;
}

/** The space a bone's rotation is read and set in: the world's axes, or the bone's own (boneRestFrame, posed). */
export type PoseSpace = 'global' | 'local';

const scratchA = new Float64Array(9);
const scratchB = new Float64Array(9);
const scratchChain = new Float64Array(9);

/**
 * A bone's rotation as the user reads it, as a 3×3: in 'local' space its rotation relative to its parent in its own
 * rest axes, Fᵀ · R_b · F (F = boneRestFrame); in 'global' space its world rotation Q_b (rest → posed, world axes).
 * @param skeleton   rest skeleton
 * @param relative   #B × 9 relative rotations of the pose shown
 * @param bone       the bone
 * @param space      which reading
 * @param out        3×3 written at 0
 */
export function boneRotationIn(skeleton: Skeleton, relative: Float64Array, bone: number, space: PoseSpace, out: Vec): void {
  if (space === 'global') {
    parentWorldRotation(skeleton, relative, bone, scratchA);
    multiply3(scratchA, 0, relative, 9 * bone, out, 0);
    return;
  }
  boneRestFrame(skeleton, bone, scratchA);
  multiplyTransposed3(scratchA, 0, relative, 9 * bone, scratchB, 0);
  multiply3(scratchB, 0, scratchA, 0, out, 0);
}

/**
 * The relative rotation R_b that makes a bone read `rotation` in `space` (the inverse of boneRotationIn): 'local':
 * R_b = F · rotation · Fᵀ; 'global': R_b = Q_parentᵀ · rotation; made exactly orthonormal (orthonormalize3).
 * @param rotation  3×3 in `space`
 * @param out       3×3 relative rotation written at 0
 */
export function relativeRotationFrom(
  skeleton: Skeleton,
  relative: Float64Array,
  bone: number,
  space: PoseSpace,
  rotation: Vec,
  out: Vec,
): void {
  if (space === 'global') {
    parentWorldRotation(skeleton, relative, bone, scratchA);
    multiplyTransposed3(scratchA, 0, rotation, 0, out, 0);
  } else {
    boneRestFrame(skeleton, bone, scratchA);
    multiply3(scratchA, 0, rotation, 0, scratchB, 0);
    multiplyByTransposed3(scratchB, 0, scratchA, 0, out, 0);
  }
  orthonormalize3(out);
}

/**
 * The world rotation of a bone's parent, Q_parent = R_root ··· R_parent (the identity for a root), by walking up the
 * chain.
 * @param out  3×3 written at 0
 */
export function parentWorldRotation(skeleton: Skeleton, relative: Float64Array, bone: number, out: Vec): void {
  for (let k = 0; k < 9; k++) out[k] = k % 4 === 0 ? 1 : 0;
  for (let b = skeleton.parents[bone]; b >= 0; b = skeleton.parents[b]) {
    multiply3(relative, 9 * b, out, 0, scratchChain, 0);
    for (let k = 0; k < 9; k++) out[k] = scratchChain[k];
  }
}
