/**
 * Unit quaternions for rotations, stored x, y, z, w (scalar last, the libigl `column_to_quats` and three.js
 * order). Every function works on (array, offset) pairs so that callers can keep quaternions and matrices packed
 * in one typed array; outputs may alias inputs.
 *
 * Quaternion q = [cos(θ/2), sin(θ/2)·axis] rotates by θ about `axis` (course handout Sec. 1.2).
 */

type Vec = Float64Array | Float32Array | number[];

/**
 * Hamilton product out = a·b (rotation b first, then a).
 * @param a,ai  quaternion a at offset ai (x y z w)
 * @param b,bi  quaternion b at offset bi
 * @param out,oi  4 numbers written at oi
 */
export function quatMultiply(a: Vec, ai: number, b: Vec, bi: number, out: Vec, oi: number): void {
  const ax = a[ai],
    ay = a[ai + 1],
    az = a[ai + 2],
    aw = a[ai + 3];
  const bx = b[bi],
    by = b[bi + 1],
    bz = b[bi + 2],
    bw = b[bi + 3];
  out[oi] = aw * bx + ax * bw + ay * bz - az * by;
  out[oi + 1] = aw * by - ax * bz + ay * bw + az * bx;
  out[oi + 2] = aw * bz + ax * by - ay * bx + az * bw;
  out[oi + 3] = aw * bw - ax * bx - ay * by - az * bz;
}

/**
 * Rotation matrix of a quaternion. Non-unit quaternions are treated as their normalized direction (the factor
 * 2/|q|² instead of 2), so a slightly denormalized input still yields an orthonormal matrix; the zero quaternion
 * gives the identity.
 * @param q,qi  quaternion at offset qi (x y z w)
 * @param out9,oi  3×3 row-major matrix written at oi (9 numbers)
 */
export function quatToMatrix(q: Vec, qi: number, out9: Vec, oi: number): void {
  const x = q[qi],
    y = q[qi + 1],
    z = q[qi + 2],
    w = q[qi + 3];
  const n = x * x + y * y + z * z + w * w;
  const s = n > 0 ? 2 / n : 0;
  const xx = x * x * s,
    yy = y * y * s,
    zz = z * z * s;
  const xy = x * y * s,
    xz = x * z * s,
    yz = y * z * s;
  const wx = w * x * s,
    wy = w * y * s,
    wz = w * z * s;
  out9[oi] = 1 - yy - zz;
  out9[oi + 1] = xy - wz;
  out9[oi + 2] = xz + wy;
  out9[oi + 3] = xy + wz;
  out9[oi + 4] = 1 - xx - zz;
  out9[oi + 5] = yz - wx;
  out9[oi + 6] = xz - wy;
  out9[oi + 7] = yz + wx;
  out9[oi + 8] = 1 - xx - yy;
}

/**
 * Unit quaternion of a rotation matrix, by Shepperd's method: the square root is taken of the largest of
 * 1 + trace and 1 + 2·m_ii − trace, which keeps the divisor ≥ 1/2 and the result accurate for every angle,
 * including 180°. The sign is chosen so that w ≥ 0 whenever the pivot is w.
 * @param m9,mi  3×3 row-major rotation matrix at offset mi
 * @param out,oi  quaternion written at oi (x y z w), unit length
 */
export function matrixToQuat(m9: Vec, mi: number, out: Vec, oi: number): void {
  const m00 = m9[mi],
    m01 = m9[mi + 1],
    m02 = m9[mi + 2];
  const m10 = m9[mi + 3],
    m11 = m9[mi + 4],
    m12 = m9[mi + 5];
  const m20 = m9[mi + 6],
    m21 = m9[mi + 7],
    m22 = m9[mi + 8];
  const trace = m00 + m11 + m22;
  let x: number, y: number, z: number, w: number;
  if (trace >= m00 && trace >= m11 && trace >= m22) {
    const s = 2 * Math.sqrt(1 + trace);
    w = s / 4;
    x = (m21 - m12) / s;
    y = (m02 - m20) / s;
    z = (m10 - m01) / s;
  } else if (m00 >= m11 && m00 >= m22) {
    const s = 2 * Math.sqrt(1 + m00 - m11 - m22);
    x = s / 4;
    y = (m01 + m10) / s;
    z = (m02 + m20) / s;
    w = (m21 - m12) / s;
  } else if (m11 >= m22) {
    const s = 2 * Math.sqrt(1 - m00 + m11 - m22);
    y = s / 4;
    x = (m01 + m10) / s;
    z = (m12 + m21) / s;
    w = (m02 - m20) / s;
  } else {
    const s = 2 * Math.sqrt(1 - m00 - m11 + m22);
    z = s / 4;
    x = (m02 + m20) / s;
    y = (m12 + m21) / s;
    w = (m10 - m01) / s;
  }
  const inv = 1 / Math.hypot(x, y, z, w);
  out[oi] = x * inv;
  out[oi + 1] = y * inv;
  out[oi + 2] = z * inv;
  out[oi + 3] = w * inv;
}

/** Below this angle between a and b (cos > 1 − 1e-6), SLERP's sin θ divisor loses precision; NLERP is exact enough. */
const NLERP_COS = 1 - 1e-6;

/**
 * Spherical linear interpolation q_t = a (a⁻¹ b)^t (course handout Eq. 1) along the shorter arc: b is negated
 * when a·b < 0, since q and −q are the same rotation. Constant angular speed in t. t = 0 and t = 1 return a and
 * ±b exactly.
 * @param a,ai  unit quaternion at t = 0
 * @param b,bi  unit quaternion at t = 1
 * @param t     interpolation parameter, usually in [0, 1]
 * @param out,oi  unit quaternion written at oi
 */
export function quatSlerp(a: Vec, ai: number, b: Vec, bi: number, t: number, out: Vec, oi: number): void {
  const ax = a[ai],
    ay = a[ai + 1],
    az = a[ai + 2],
    aw = a[ai + 3];
  let bx = b[bi],
    by = b[bi + 1],
    bz = b[bi + 2],
    bw = b[bi + 3];
  let cos = ax * bx + ay * by + az * bz + aw * bw;
  if (cos < 0) {
    cos = -cos;
    bx = -bx;
    by = -by;
    bz = -bz;
    bw = -bw;
  }
  if (t === 0) {
    out[oi] = ax;
    out[oi + 1] = ay;
    out[oi + 2] = az;
    out[oi + 3] = aw;
    return;
  }
  if (t === 1) {
    out[oi] = bx;
    out[oi + 1] = by;
    out[oi + 2] = bz;
    out[oi + 3] = bw;
    return;
  }
  let sa: number, sb: number;
  if (cos > NLERP_COS) {
    sa = 1 - t;
    sb = t;
  } else {
    const theta = Math.acos(Math.min(cos, 1));
    const inv = 1 / Math.sin(theta);
    sa = Math.sin((1 - t) * theta) * inv;
    sb = Math.sin(t * theta) * inv;
  }
  const x = sa * ax + sb * bx,
    y = sa * ay + sb * by,
    z = sa * az + sb * bz,
    w = sa * aw + sb * bw;
  const n = Math.hypot(x, y, z, w);
  const inv = n > 0 ? 1 / n : 0;
  out[oi] = x * inv;
  out[oi + 1] = y * inv;
  out[oi + 2] = z * inv;
  out[oi + 3] = w * inv;
}

/**
 * Rotates a vector by a unit quaternion: v' = v + 2w(u×v) + 2u×(u×v), u = (x, y, z).
 * @param q,qi  unit quaternion
 * @param v,vi  3-vector
 * @param out,oi  rotated 3-vector written at oi
 */
export function quatRotateVector(q: Vec, qi: number, v: Vec, vi: number, out: Vec, oi: number): void {
  const x = q[qi],
    y = q[qi + 1],
    z = q[qi + 2],
    w = q[qi + 3];
  const vx = v[vi],
    vy = v[vi + 1],
    vz = v[vi + 2];
  const cx = 2 * (y * vz - z * vy),
    cy = 2 * (z * vx - x * vz),
    cz = 2 * (x * vy - y * vx);
  out[oi] = vx + w * cx + (y * cz - z * cy);
  out[oi + 1] = vy + w * cy + (z * cx - x * cz);
  out[oi + 2] = vz + w * cz + (x * cy - y * cx);
}

/**
 * Scales a quaternion to unit length; the zero quaternion becomes the identity (0, 0, 0, 1).
 * @param q,qi  quaternion
 * @param out,oi  unit quaternion written at oi
 */
export function quatNormalize(q: Vec, qi: number, out: Vec, oi: number): void {
  const x = q[qi],
    y = q[qi + 1],
    z = q[qi + 2],
    w = q[qi + 3];
  const n = Math.hypot(x, y, z, w);
  if (n === 0) {
    out[oi] = 0;
    out[oi + 1] = 0;
    out[oi + 2] = 0;
    out[oi + 3] = 1;
    return;
  }
  out[oi] = x / n;
  out[oi + 1] = y / n;
  out[oi + 2] = z / n;
  out[oi + 3] = w / n;
}
