/**
 * Numbers as the glTF reader and writer use them: accessor elements read safely, and 4×4 affine matrices as glTF
 * stores them, column-major: entry (row r, column c) is m[4c + r]. Node transforms,
 * joint matrices and inverse bind matrices; offsets let one Float64Array hold many.
 */
import type { Accessor } from '@gltf-transform/core';

/** Reads one accessor element (denormalized), refusing NaN and infinities. */
export function readElement(
  accessor: Accessor,
  index: number,
  out: Float64Array,
  offset: number,
  fail: (w: string, r: string) => never,
  what: string,
): void {
  const value: number[] = accessor.getElement(index, []);
  for (let k = 0; k < value.length; k++) {
    if (!Number.isFinite(value[k])) fail(`${what} element ${index}`, `value ${value[k]} is not a finite number`);
    out[offset + k] = value[k];
  }
}

/** A new 4×4 identity matrix. */
export function identity(): Float64Array {
  const m = new Float64Array(16);
  m[0] = m[5] = m[10] = m[15] = 1;
  return m;
}

export function composeTrs(
  t: Float64Array,
  ti: number,
  q: Float64Array,
  qi: number,
  s: Float64Array,
  si: number,
  out: Float64Array,
  o: number,
): void {
  const x = q[qi],
    y = q[qi + 1],
    z = q[qi + 2],
    w = q[qi + 3];
  const n = x * x + y * y + z * z + w * w;
  const k = n > 0 ? 2 / n : 0;
  const xx = x * x * k,
    yy = y * y * k,
    zz = z * z * k,
    xy = x * y * k,
    xz = x * z * k,
    yz = y * z * k,
    wx = w * x * k,
    wy = w * y * k,
    wz = w * z * k;
  out[o] = (1 - yy - zz) * s[si];
  out[o + 1] = (xy + wz) * s[si];
  out[o + 2] = (xz - wy) * s[si];
  out[o + 3] = 0;
  out[o + 4] = (xy - wz) * s[si + 1];
  out[o + 5] = (1 - xx - zz) * s[si + 1];
  out[o + 6] = (yz + wx) * s[si + 1];
  out[o + 7] = 0;
  out[o + 8] = (xz + wy) * s[si + 2];
  out[o + 9] = (yz - wx) * s[si + 2];
  out[o + 10] = (1 - xx - yy) * s[si + 2];
  out[o + 11] = 0;
  out[o + 12] = t[ti];
  out[o + 13] = t[ti + 1];
  out[o + 14] = t[ti + 2];
  out[o + 15] = 1;
}

const product = new Float64Array(16);

/** out = a · b (out may alias a or b). */
export function multiply(a: Float64Array, ai: number, b: Float64Array, bi: number, out: Float64Array, o: number): void {
  for (let c = 0; c < 4; c++) {
    for (let r = 0; r < 4; r++) {
      product[4 * c + r] =
        a[ai + r] * b[bi + 4 * c] +
        a[ai + 4 + r] * b[bi + 4 * c + 1] +
        a[ai + 8 + r] * b[bi + 4 * c + 2] +
        a[ai + 12 + r] * b[bi + 4 * c + 3];
    }
  }
  out.set(product, o);
}

/** Inverse of an affine 4×4 matrix (last row 0 0 0 1); false when its linear part is singular. */
export function invertAffine(m: Float64Array, mi: number, out: Float64Array, o: number): boolean {
  const a = m[mi],
    b = m[mi + 4],
    c = m[mi + 8];
  const d = m[mi + 1],
    e = m[mi + 5],
    f = m[mi + 9];
  const g = m[mi + 2],
    h = m[mi + 6],
    i = m[mi + 10];
  const A = e * i - f * h,
    B = f * g - d * i,
    C = d * h - e * g;
  const det = a * A + b * B + c * C;
  if (!(Math.abs(det) > 1e-300)) return false;
  const s = 1 / det;
  const inv = [
    A * s,
    (c * h - b * i) * s,
    (b * f - c * e) * s,
    B * s,
    (a * i - c * g) * s,
    (c * d - a * f) * s,
    C * s,
    (b * g - a * h) * s,
    (a * e - b * d) * s,
  ];
  const tx = m[mi + 12],
    ty = m[mi + 13],
    tz = m[mi + 14];
  for (let r = 0; r < 3; r++) {
    out[o + r] = inv[3 * r];
    out[o + 4 + r] = inv[3 * r + 1];
    out[o + 8 + r] = inv[3 * r + 2];
    out[o + 3 + 4 * r] = 0;
    out[o + 12 + r] = -(inv[3 * r] * tx + inv[3 * r + 1] * ty + inv[3 * r + 2] * tz);
  }
  out[o + 15] = 1;
  return true;
}

export function transformPoint(m: Float64Array, p: ArrayLike<number>): [number, number, number] {
  return [
    m[0] * p[0] + m[4] * p[1] + m[8] * p[2] + m[12],
    m[1] * p[0] + m[5] * p[1] + m[9] * p[2] + m[13],
    m[2] * p[0] + m[6] * p[1] + m[10] * p[2] + m[14],
  ];
}

/** Row-major 3×3 inverse transpose of m's linear part (normals map by it). */
export function normalMatrixOf(m: Float64Array): Float64Array {
  const inverse = new Float64Array(16);
  invertAffine(m, 0, inverse, 0);
  const out = new Float64Array(9);
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) out[3 * r + c] = inverse[4 * r + c];
  return out;
}

export function transformNormal(n9: Float64Array, v: ArrayLike<number>): [number, number, number] {
  const x = n9[0] * v[0] + n9[1] * v[1] + n9[2] * v[2];
  const y = n9[3] * v[0] + n9[4] * v[1] + n9[5] * v[2];
  const z = n9[6] * v[0] + n9[7] * v[1] + n9[8] * v[2];
  const length = Math.hypot(x, y, z);
  return length > 0 ? [x / length, y / length, z / length] : [0, 0, 1];
}
