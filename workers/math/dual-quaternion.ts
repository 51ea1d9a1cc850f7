/**
 * Unit dual quaternions q̂ = q₀ + ε q_ε for rigid transformations (Kavan et al. 2008, Appendix A).
 *
 * Layout: 8 numbers per dual quaternion, real part first, each part scalar last like workers/math/quaternion.ts:
 *   [q₀.x, q₀.y, q₀.z, q₀.w, q_ε.x, q_ε.y, q_ε.z, q_ε.w]
 * A rigid transform x ↦ R x + t is q₀ = the rotation quaternion of R and q_ε = ½ (0, t) q₀ (Eq. 25). q̂ and −q̂ are
 * the same transform (antipodality, Appendix A.4).
 *
 * Every function works on (array, offset) pairs so dual quaternions stay packed #B × 8 in one typed array; outputs
 * may alias inputs. No function allocates.
 */
import { matrixToQuat } from './quaternion.ts';

type Vec = Float64Array | Float32Array | number[];

const rotationScratch = new Float64Array(9);
const quatScratch = new Float64Array(4);
const translationScratch = new Float64Array(3);

/**
 * Writes the identity (1 + ε 0).
 * @param out,oi  8 numbers written at oi
 */
export function dualQuatIdentity(out: Vec, oi: number): void {
  out[oi] = 0;
  out[oi + 1] = 0;
  out[oi + 2] = 0;
  out[oi + 3] = 1;
  out[oi + 4] = 0;
  out[oi + 5] = 0;
  out[oi + 6] = 0;
  out[oi + 7] = 0;
}

/**
 * Dual quaternion of "rotate by q, then translate by t": q₀ = q, q_ε = ½ (0, t) q (Kavan 2008 Eq. 25).
 * @param q,qi    unit rotation quaternion (x y z w)
 * @param t,ti    translation 3-vector
 * @param out,oi  8 numbers written at oi
 */
export function dualQuatFromRotationTranslation(q: Vec, qi: number, t: Vec, ti: number, out: Vec, oi: number): void {
  const x = q[qi],
    y = q[qi + 1],
    z = q[qi + 2],
    w = q[qi + 3];
  const tx = t[ti],
    ty = t[ti + 1],
    tz = t[ti + 2];
  out[oi] = x;
  out[oi + 1] = y;
  out[oi + 2] = z;
  out[oi + 3] = w;
  // (0, t)(w, r) = (−t·r, w t + t × r)
  out[oi + 4] = 0.5 * (w * tx + ty * z - tz * y);
  out[oi + 5] = 0.5 * (w * ty + tz * x - tx * z);
  out[oi + 6] = 0.5 * (w * tz + tx * y - ty * x);
  out[oi + 7] = -0.5 * (tx * x + ty * y + tz * z);
}

/**
 * Dual quaternion of a rigid 3×4 affine transform, e.g. one bone of workers/rig/forward-kinematics.ts. The real
 * part comes from Shepperd's method (its w ≥ 0 when w is the largest component), so no sign is chosen here for
 * blending; see align-dual-quaternion-signs.ts or the per-vertex mode of DQS for that.
 * @param m12,mi  row-major 3×4 [R | t], R a rotation (orthonormal, det +1)
 * @param out,oi  8 numbers written at oi
 */
export function dualQuatFromRigidMatrix(m12: Vec, mi: number, out: Vec, oi: number): void {
  const r = rotationScratch;
  r[0] = m12[mi];
  r[1] = m12[mi + 1];
  r[2] = m12[mi + 2];
  r[3] = m12[mi + 4];
  r[4] = m12[mi + 5];
  r[5] = m12[mi + 6];
  r[6] = m12[mi + 8];
  r[7] = m12[mi + 9];
  r[8] = m12[mi + 10];
  matrixToQuat(r, 0, quatScratch, 0);
  const t = translationScratch;
  t[0] = m12[mi + 3];
  t[1] = m12[mi + 7];
  t[2] = m12[mi + 11];
  dualQuatFromRotationTranslation(quatScratch, 0, t, 0, out, oi);
}

/**
 * Converts #B rigid 3×4 transforms to #B dual quaternions.
 * @param transforms  #B × 12 row-major [R | t] per bone
 * @param out         #B × 8 dual quaternions (layout in the file comment)
 */
export function dualQuatsFromRigidMatrices(transforms: Float64Array, out: Float64Array): void {
  const count = Math.floor(transforms.length / 12);
  for (let b = 0; b < count; b++) dualQuatFromRigidMatrix(transforms, 12 * b, out, 8 * b);
}

/**
 * Rigid 3×4 matrix of a dual quaternion: R from c₀ = q₀/‖q₀‖ and t = vector part of 2 c_ε c₀*, c_ε = q_ε/‖q₀‖,
 * i.e. t = 2 (a₀ d_ε − a_ε d₀ + d₀ × d_ε) with a, d the scalar and vector parts (Kavan 2008 Sec. 4). A non-unit
 * input is read as its normalization, the way DLB uses it; the zero quaternion gives the identity.
 * @param dq,di    8 numbers
 * @param out12,oi row-major 3×4 [R | t] written at oi
 */
export function dualQuatToMatrix(dq: Vec, di: number, out12: Vec, oi: number): void {
  const x = dq[di],
    y = dq[di + 1],
    z = dq[di + 2],
    w = dq[di + 3];
  const ex = dq[di + 4],
    ey = dq[di + 5],
    ez = dq[di + 6],
    ew = dq[di + 7];
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
  out12[oi] = 1 - yy - zz;
  out12[oi + 1] = xy - wz;
  out12[oi + 2] = xz + wy;
  out12[oi + 4] = xy + wz;
  out12[oi + 5] = 1 - xx - zz;
  out12[oi + 6] = yz - wx;
  out12[oi + 8] = xz - wy;
  out12[oi + 9] = yz + wx;
  out12[oi + 10] = 1 - xx - yy;
  out12[oi + 3] = s * (w * ex - ew * x + (y * ez - z * ey));
  out12[oi + 7] = s * (w * ey - ew * y + (z * ex - x * ez));
  out12[oi + 11] = s * (w * ez - ew * z + (x * ey - y * ex));
}

/**
 * Product out = a b = a₀b₀ + ε (a₀b_ε + a_εb₀): the transform b first, then a.
 * @param a,ai    8 numbers
 * @param b,bi    8 numbers
 * @param out,oi  8 numbers written at oi
 */
export function dualQuatMultiply(a: Vec, ai: number, b: Vec, bi: number, out: Vec, oi: number): void {
  const ax = a[ai],
    ay = a[ai + 1],
    az = a[ai + 2],
    aw = a[ai + 3];
  const aex = a[ai + 4],
    aey = a[ai + 5],
    aez = a[ai + 6],
    aew = a[ai + 7];
  const bx = b[bi],
    by = b[bi + 1],
    bz = b[bi + 2],
    bw = b[bi + 3];
  const bex = b[bi + 4],
    bey = b[bi + 5],
    bez = b[bi + 6],
    bew = b[bi + 7];
  out[oi] = aw * bx + ax * bw + ay * bz - az * by;
  out[oi + 1] = aw * by - ax * bz + ay * bw + az * bx;
  out[oi + 2] = aw * bz + ax * by - ay * bx + az * bw;
  out[oi + 3] = aw * bw - ax * bx - ay * by - az * bz;
  out[oi + 4] = aw * bex + ax * bew + ay * bez - az * bey + (aew * bx + aex * bw + aey * bz - aez * by);
  out[oi + 5] = aw * bey - ax * bez + ay * bew + az * bex + (aew * by - aex * bz + aey * bw + aez * bx);
  out[oi + 6] = aw * bez + ax * bey - ay * bex + az * bew + (aew * bz + aex * by - aey * bx + aez * bw);
  out[oi + 7] = aw * bew - ax * bex - ay * bey - az * bez + (aew * bw - aex * bx - aey * by - aez * bz);
}

/**
 * Quaternion conjugate q̂* = q₀* + ε q_ε*; for a unit dual quaternion this is the inverse transform.
 * @param dq,di   8 numbers
 * @param out,oi  8 numbers written at oi
 */
export function dualQuatConjugate(dq: Vec, di: number, out: Vec, oi: number): void {
  out[oi] = -dq[di];
  out[oi + 1] = -dq[di + 1];
  out[oi + 2] = -dq[di + 2];
  out[oi + 3] = dq[di + 3];
  out[oi + 4] = -dq[di + 4];
  out[oi + 5] = -dq[di + 5];
  out[oi + 6] = -dq[di + 6];
  out[oi + 7] = dq[di + 7];
}

/**
 * Dual-number conjugate q̂‾ = q₀ − ε q_ε. A point v (as 1 + ε v) transforms as q̂ v̂ (q̂‾)* (Appendix A.2).
 * @param dq,di   8 numbers
 * @param out,oi  8 numbers written at oi
 */
export function dualQuatDualConjugate(dq: Vec, di: number, out: Vec, oi: number): void {
  out[oi] = dq[di];
  out[oi + 1] = dq[di + 1];
  out[oi + 2] = dq[di + 2];
  out[oi + 3] = dq[di + 3];
  out[oi + 4] = -dq[di + 4];
  out[oi + 5] = -dq[di + 5];
  out[oi + 6] = -dq[di + 6];
  out[oi + 7] = -dq[di + 7];
}

/**
 * Unit dual quaternion q̂/‖q̂‖ with ‖q̂‖ = ‖q₀‖ + ε ⟨q₀, q_ε⟩/‖q₀‖ (Eq. 22):
 * q₀/‖q₀‖ + ε (q_ε/‖q₀‖ − q₀ ⟨q₀, q_ε⟩/‖q₀‖³). The result satisfies ‖q₀‖ = 1 and ⟨q₀, q_ε⟩ = 0.
 * A zero real part has no normalization; the identity is written.
 * @param dq,di   8 numbers
 * @param out,oi  8 numbers written at oi
 */
export function dualQuatNormalize(dq: Vec, di: number, out: Vec, oi: number): void {
  const x = dq[di],
    y = dq[di + 1],
    z = dq[di + 2],
    w = dq[di + 3];
  const ex = dq[di + 4],
    ey = dq[di + 5],
    ez = dq[di + 6],
    ew = dq[di + 7];
  const n2 = x * x + y * y + z * z + w * w;
  if (!(n2 > 0)) {
    dualQuatIdentity(out, oi);
    return;
  }
  const inv = 1 / Math.sqrt(n2);
  const k = (x * ex + y * ey + z * ez + w * ew) / n2;
  out[oi] = x * inv;
  out[oi + 1] = y * inv;
  out[oi + 2] = z * inv;
  out[oi + 3] = w * inv;
  out[oi + 4] = (ex - x * k) * inv;
  out[oi + 5] = (ey - y * k) * inv;
  out[oi + 6] = (ez - z * k) * inv;
  out[oi + 7] = (ew - w * k) * inv;
}

/**
 * Transforms a point as Kavan 2008 Algorithm 1 does, without forming a matrix:
 * with c₀ = q₀/‖q₀‖ = (d₀, a₀) and c_ε = q_ε/‖q₀‖ = (d_ε, a_ε),
 * v' = v + 2 d₀ × (d₀ × v + a₀ v) + 2 (a₀ d_ε − a_ε d₀ + d₀ × d_ε).
 * The second term is Eq. 15 (rotation), the third the vector part of 2 c_ε c₀* (translation). A non-unit input
 * is read as its normalization; a zero real part leaves the point where it is.
 * @param dq,di   8 numbers
 * @param p,pi    3-vector point
 * @param out,oi  transformed point written at oi
 */
export function dualQuatTransformPoint(dq: Vec, di: number, p: Vec, pi: number, out: Vec, oi: number): void {
  const n2 = dq[di] * dq[di] + dq[di + 1] * dq[di + 1] + dq[di + 2] * dq[di + 2] + dq[di + 3] * dq[di + 3];
  const inv = n2 > 0 ? 1 / Math.sqrt(n2) : 0;
  const dx = dq[di] * inv,
    dy = dq[di + 1] * inv,
    dz = dq[di + 2] * inv,
    a = dq[di + 3] * inv;
  const ex = dq[di + 4] * inv,
    ey = dq[di + 5] * inv,
    ez = dq[di + 6] * inv,
    ae = dq[di + 7] * inv;
  const vx = p[pi],
    vy = p[pi + 1],
    vz = p[pi + 2];
  const ux = dy * vz - dz * vy + a * vx,
    uy = dz * vx - dx * vz + a * vy,
    uz = dx * vy - dy * vx + a * vz;
  out[oi] = vx + 2 * (dy * uz - dz * uy) + 2 * (a * ex - ae * dx + (dy * ez - dz * ey));
  out[oi + 1] = vy + 2 * (dz * ux - dx * uz) + 2 * (a * ey - ae * dy + (dz * ex - dx * ez));
  out[oi + 2] = vz + 2 * (dx * uy - dy * ux) + 2 * (a * ez - ae * dz + (dx * ey - dy * ex));
}

/**
 * Rotates a direction (e.g. a normal) by the rotational part only: v' = v + 2 d₀ × (d₀ × v + a₀ v), c₀ as in
 * dualQuatTransformPoint.
 * @param dq,di   8 numbers
 * @param v,vi    3-vector
 * @param out,oi  rotated 3-vector written at oi
 */
export function dualQuatRotateVector(dq: Vec, di: number, v: Vec, vi: number, out: Vec, oi: number): void {
  const n2 = dq[di] * dq[di] + dq[di + 1] * dq[di + 1] + dq[di + 2] * dq[di + 2] + dq[di + 3] * dq[di + 3];
  const inv = n2 > 0 ? 1 / Math.sqrt(n2) : 0;
  const dx = dq[di] * inv,
    dy = dq[di + 1] * inv,
    dz = dq[di + 2] * inv,
    a = dq[di + 3] * inv;
  const vx = v[vi],
    vy = v[vi + 1],
    vz = v[vi + 2];
  const ux = dy * vz - dz * vy + a * vx,
    uy = dz * vx - dx * vz + a * vy,
    uz = dx * vy - dy * vx + a * vz;
  out[oi] = vx + 2 * (dy * uz - dz * uy);
  out[oi + 1] = vy + 2 * (dz * ux - dx * uz);
  out[oi + 2] = vz + 2 * (dx * uy - dy * ux);
}

/**
 * Below this half-angle the closed forms lose digits to cancellation (sin h − h cos h ~ h³) and their Taylor
 * series, truncated after h⁴ (remainder ~h⁶ < 1e-18), take over.
 */
const SERIES_HALF_ANGLE = 1e-3;

/**
 * Logarithm of a unit dual quaternion (Appendix A.4): the pure dual vector p̂ = ŝ θ̂/2 with
 * q̂ = cos(θ̂/2) + ŝ sin(θ̂/2), θ̂ = θ₀ + ε θ_ε (θ₀ rotation angle, θ_ε translation along the screw axis ŝ).
 * Of q̂ and −q̂ (the same transform) the one with q₀.w ≥ 0 is used, so θ₀ ∈ [0, π]: the shorter screw.
 * The result's scalar slots (3 and 7) are 0. Writing h = θ₀/2, q₀ = (v₀, w₀), q_ε = (v_ε, w_ε):
 * p₀ = v₀ h/sin h and p_ε = v_ε h/sin h − w_ε v₀ (sin h − h cos h)/sin³ h, with their series near h = 0 (pure
 * translations, where p̂ = ε v_ε).
 * @param dq,di   unit dual quaternion
 * @param out,oi  8 numbers written at oi
 */
export function dualQuatLog(dq: Vec, di: number, out: Vec, oi: number): void {
  const sign = dq[di + 3] < 0 ? -1 : 1;
  const vx = sign * dq[di],
    vy = sign * dq[di + 1],
    vz = sign * dq[di + 2],
    w = sign * dq[di + 3];
  const ex = sign * dq[di + 4],
    ey = sign * dq[di + 5],
    ez = sign * dq[di + 6],
    ew = sign * dq[di + 7];
  const s = Math.sqrt(vx * vx + vy * vy + vz * vz);
  const h = Math.atan2(s, w);
  let k: number, g: number;
  if (h < SERIES_HALF_ANGLE) {
    const h2 = h * h;
    k = 1 + h2 / 6 + (7 * h2 * h2) / 360;
    g = 1 / 3 + (2 * h2) / 15 + (2 * h2 * h2) / 63;
  } else {
    const sin = Math.sin(h);
    k = h / sin;
    g = (sin - h * Math.cos(h)) / (sin * sin * sin);
  }
  out[oi] = k * vx;
  out[oi + 1] = k * vy;
  out[oi + 2] = k * vz;
  out[oi + 3] = 0;
  out[oi + 4] = k * ex - ew * g * vx;
  out[oi + 5] = k * ey - ew * g * vy;
  out[oi + 6] = k * ez - ew * g * vz;
  out[oi + 7] = 0;
}

/**
 * Exponential of a pure dual vector p̂ = p₀ + ε p_ε (scalar slots ignored), the inverse of dualQuatLog: with
 * ĥ = ‖p̂‖ = h + ε ⟨p₀, p_ε⟩/h, exp p̂ = cos ĥ + p̂ sin ĥ/ĥ, expanded with dual-number Taylor series:
 * real = (p₀ sin h/h, cos h), dual = (p_ε sin h/h + p₀ ⟨p₀, p_ε⟩ (h cos h − sin h)/h³, −⟨p₀, p_ε⟩ sin h/h).
 * The result is a unit dual quaternion.
 * @param p,pi    8 numbers (x y z of each part used)
 * @param out,oi  8 numbers written at oi
 */
export function dualQuatExp(p: Vec, pi: number, out: Vec, oi: number): void {
  const px = p[pi],
    py = p[pi + 1],
    pz = p[pi + 2];
  const ex = p[pi + 4],
    ey = p[pi + 5],
    ez = p[pi + 6];
  const h = Math.sqrt(px * px + py * py + pz * pz);
  const dot = px * ex + py * ey + pz * ez;
  let f: number, g: number;
  if (h < SERIES_HALF_ANGLE) {
    const h2 = h * h;
    f = 1 - h2 / 6 + (h2 * h2) / 120;
    g = -1 / 3 + h2 / 30 - (h2 * h2) / 840;
  } else {
    const sin = Math.sin(h);
    f = sin / h;
    g = (h * Math.cos(h) - sin) / (h * h * h);
  }
  out[oi] = f * px;
  out[oi + 1] = f * py;
  out[oi + 2] = f * pz;
  out[oi + 3] = Math.cos(h);
  out[oi + 4] = f * ex + g * dot * px;
  out[oi + 5] = f * ey + g * dot * py;
  out[oi + 6] = f * ez + g * dot * pz;
  out[oi + 7] = -f * dot;
}

const sclerpRelative = new Float64Array(8);
const sclerpConjugate = new Float64Array(8);

/**
 * Screw linear interpolation ScLERP(t; â, b̂) = (b̂ â*)^t â (Kavan 2008 Sec. 3.4), the power taken as
 * exp(t log(·)): constant-speed motion along one screw axis, rotation angle and translation along the axis both
 * linear in t. b̂ is negated first when ⟨a₀, b₀⟩ < 0 so that the shorter screw is taken, as SLERP does.
 * @param a,ai    unit dual quaternion at t = 0
 * @param b,bi    unit dual quaternion at t = 1
 * @param t       interpolation parameter
 * @param out,oi  8 numbers written at oi
 */
export function dualQuatScLerp(a: Vec, ai: number, b: Vec, bi: number, t: number, out: Vec, oi: number): void {
  const rel = sclerpRelative;
  dualQuatConjugate(a, ai, sclerpConjugate, 0);
  dualQuatMultiply(b, bi, sclerpConjugate, 0, rel, 0);
  const dot = a[ai] * b[bi] + a[ai + 1] * b[bi + 1] + a[ai + 2] * b[bi + 2] + a[ai + 3] * b[bi + 3];
  if (dot < 0) for (let i = 0; i < 8; i++) rel[i] = -rel[i];
  dualQuatLog(rel, 0, rel, 0);
  for (let i = 0; i < 8; i++) rel[i] *= t;
  dualQuatExp(rel, 0, rel, 0);
  dualQuatMultiply(rel, 0, a, ai, out, oi);
}
