/**
 * Polar decomposition of a 3×3 matrix, A = R S with R a rotation (orthonormal, det +1) and S symmetric
 * (Shoemake and Duff 1992, used by Kavan 2008 Sec. 4.2 to separate a joint's scale/shear from its rigid part).
 *
 * Method: eigenvectors V and eigenvalues σᵢ² of AᵀA by cyclic Jacobi rotations, then U = [u₁ u₂ u₁×u₂] from
 * A vᵢ by Gram–Schmidt, R = U Vᵀ, S = sym(Rᵀ A). Because R is built from an orthonormal frame rather than from
 * A S⁻¹, singular matrices (a bone scaled to zero along an axis) still get a rotation, and R is orthonormal to
 * rounding. When det A > 0, S = √(AᵀA) is positive semi-definite; when det A < 0 (a mirror), R still has det +1
 * and S carries the reflection as one negative eigenvalue. R S recomposes A to rounding in every case.
 */

type Vec = Float64Array | Float32Array | number[];

const sym = new Float64Array(9);
const vecs = new Float64Array(9);
const order = new Int32Array(3);
const frame = new Float64Array(9);

/** Diagonalizes the symmetric `sym` in place by Jacobi rotations, accumulating the rotations in `vecs` (columns = eigenvectors). */
function jacobiEigen(): void {
  const a = sym;
  const v = vecs;
  v.fill(0);
  v[0] = 1;
  v[4] = 1;
  v[8] = 1;
  for (let sweep = 0; sweep < 32; sweep++) {
    const off = a[1] * a[1] + a[2] * a[2] + a[5] * a[5];
    const diag = a[0] * a[0] + a[4] * a[4] + a[8] * a[8];
    if (!(off > 1e-34 * diag)) return;
    for (let pair = 0; pair < 3; pair++) {
      const p = pair === 2 ? 1 : 0;
      const q = pair === 0 ? 1 : 2;
      const apq = a[3 * p + q];
      if (apq === 0) continue;
      // Numerical Recipes' rotation: t = tan φ is the smaller root, so |φ| ≤ π/4 and the sweep converges.
      const theta = (a[3 * q + q] - a[3 * p + p]) / (2 * apq);
      const t = (theta >= 0 ? 1 : -1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
      const c = 1 / Math.sqrt(t * t + 1);
      const s = t * c;
      for (let k = 0; k < 3; k++) {
        const akp = a[3 * k + p],
          akq = a[3 * k + q];
        a[3 * k + p] = c * akp - s * akq;
        a[3 * k + q] = s * akp + c * akq;
      }
      for (let k = 0; k < 3; k++) {
        const apk = a[3 * p + k],
          aqk = a[3 * q + k];
        a[3 * p + k] = c * apk - s * aqk;
        a[3 * q + k] = s * apk + c * aqk;
      }
      a[3 * p + q] = 0;
      a[3 * q + p] = 0;
      for (let k = 0; k < 3; k++) {
        const vkp = v[3 * k + p],
          vkq = v[3 * k + q];
        v[3 * k + p] = c * vkp - s * vkq;
        v[3 * k + q] = s * vkp + c * vkq;
      }
    }
  }
}

/**
 * Right polar decomposition A = R S.
 * @param a9,ai     3×3 row-major matrix A
 * @param outR9,ri  3×3 row-major rotation R written at ri
 * @param outS9,si  3×3 row-major symmetric S written at si
 */
export function polarDecomposition(a9: Vec, ai: number, outR9: Vec, ri: number, outS9: Vec, si: number): void {
  const a00 = a9[ai],
    a01 = a9[ai + 1],
    a02 = a9[ai + 2];
  const a10 = a9[ai + 3],
    a11 = a9[ai + 4],
    a12 = a9[ai + 5];
  const a20 = a9[ai + 6],
    a21 = a9[ai + 7],
    a22 = a9[ai + 8];
  sym[0] = a00 * a00 + a10 * a10 + a20 * a20;
  sym[1] = sym[3] = a00 * a01 + a10 * a11 + a20 * a21;
  sym[2] = sym[6] = a00 * a02 + a10 * a12 + a20 * a22;
  sym[4] = a01 * a01 + a11 * a11 + a21 * a21;
  sym[5] = sym[7] = a01 * a02 + a11 * a12 + a21 * a22;
  sym[8] = a02 * a02 + a12 * a12 + a22 * a22;
  jacobiEigen();
  order[0] = 0;
  order[1] = 1;
  order[2] = 2;
  for (let i = 1; i < 3; i++) {
    for (let j = i; j > 0 && sym[4 * order[j]] > sym[4 * order[j - 1]]; j--) {
      const swap = order[j];
      order[j] = order[j - 1];
      order[j - 1] = swap;
    }
  }

  // frame rows 0..2: v₁, v₂, v₃ (descending σ), made right-handed so that det(U Vᵀ) = +1.
  for (let r = 0; r < 3; r++) {
    const c = order[r];
    frame[3 * r] = vecs[c];
    frame[3 * r + 1] = vecs[3 + c];
    frame[3 * r + 2] = vecs[6 + c];
  }
  frame[6] = frame[1] * frame[5] - frame[2] * frame[4];
  frame[7] = frame[2] * frame[3] - frame[0] * frame[5];
  frame[8] = frame[0] * frame[4] - frame[1] * frame[3];

  const scale = Math.sqrt(Math.max(sym[4 * order[0]], 0));
  const tiny = 1e-13 * scale;

  // u₁ = A v₁ / |A v₁|; an all-zero A keeps u₁ = v₁ (R = I).
  let u1x = a00 * frame[0] + a01 * frame[1] + a02 * frame[2];
  let u1y = a10 * frame[0] + a11 * frame[1] + a12 * frame[2];
  let u1z = a20 * frame[0] + a21 * frame[1] + a22 * frame[2];
  let n = Math.hypot(u1x, u1y, u1z);
  if (n > tiny && n > 0) {
    u1x /= n;
    u1y /= n;
    u1z /= n;
  } else {
    u1x = frame[0];
    u1y = frame[1];
    u1z = frame[2];
  }
  // u₂ = A v₂ orthogonalized against u₁; rank ≤ 1 falls back to v₂, then to any perpendicular of u₁.
  let u2x = a00 * frame[3] + a01 * frame[4] + a02 * frame[5];
  let u2y = a10 * frame[3] + a11 * frame[4] + a12 * frame[5];
  let u2z = a20 * frame[3] + a21 * frame[4] + a22 * frame[5];
  if (Math.hypot(u2x, u2y, u2z) <= tiny) {
    u2x = frame[3];
    u2y = frame[4];
    u2z = frame[5];
  }
  let d = u1x * u2x + u1y * u2y + u1z * u2z;
  u2x -= d * u1x;
  u2y -= d * u1y;
  u2z -= d * u1z;
  n = Math.hypot(u2x, u2y, u2z);
  if (n < 1e-8) {
    const ax = Math.abs(u1x),
      ay = Math.abs(u1y),
      az = Math.abs(u1z);
    const e = ax <= ay && ax <= az ? 0 : ay <= az ? 1 : 2;
    u2x = e === 0 ? 1 : 0;
    u2y = e === 1 ? 1 : 0;
    u2z = e === 2 ? 1 : 0;
    d = u1x * u2x + u1y * u2y + u1z * u2z;
    u2x -= d * u1x;
    u2y -= d * u1y;
    u2z -= d * u1z;
    n = Math.hypot(u2x, u2y, u2z);
  }
  u2x /= n;
  u2y /= n;
  u2z /= n;
  const u3x = u1y * u2z - u1z * u2y,
    u3y = u1z * u2x - u1x * u2z,
    u3z = u1x * u2y - u1y * u2x;

  // R = U Vᵀ = Σ uₖ vₖᵀ
  const r00 = u1x * frame[0] + u2x * frame[3] + u3x * frame[6];
  const r01 = u1x * frame[1] + u2x * frame[4] + u3x * frame[7];
  const r02 = u1x * frame[2] + u2x * frame[5] + u3x * frame[8];
  const r10 = u1y * frame[0] + u2y * frame[3] + u3y * frame[6];
  const r11 = u1y * frame[1] + u2y * frame[4] + u3y * frame[7];
  const r12 = u1y * frame[2] + u2y * frame[5] + u3y * frame[8];
  const r20 = u1z * frame[0] + u2z * frame[3] + u3z * frame[6];
  const r21 = u1z * frame[1] + u2z * frame[4] + u3z * frame[7];
  const r22 = u1z * frame[2] + u2z * frame[5] + u3z * frame[8];

  // S = Rᵀ A, symmetrized (its antisymmetric part is rounding only).
  const s00 = r00 * a00 + r10 * a10 + r20 * a20;
  const s11 = r01 * a01 + r11 * a11 + r21 * a21;
  const s22 = r02 * a02 + r12 * a12 + r22 * a22;
  const s01 = 0.5 * (r00 * a01 + r10 * a11 + r20 * a21 + (r01 * a00 + r11 * a10 + r21 * a20));
  const s02 = 0.5 * (r00 * a02 + r10 * a12 + r20 * a22 + (r02 * a00 + r12 * a10 + r22 * a20));
  const s12 = 0.5 * (r01 * a02 + r11 * a12 + r21 * a22 + (r02 * a01 + r12 * a11 + r22 * a21));

  outR9[ri] = r00;
  outR9[ri + 1] = r01;
  outR9[ri + 2] = r02;
  outR9[ri + 3] = r10;
  outR9[ri + 4] = r11;
  outR9[ri + 5] = r12;
  outR9[ri + 6] = r20;
  outR9[ri + 7] = r21;
  outR9[ri + 8] = r22;
  outS9[si] = s00;
  outS9[si + 1] = s01;
  outS9[si + 2] = s02;
  outS9[si + 3] = s01;
  outS9[si + 4] = s11;
  outS9[si + 5] = s12;
  outS9[si + 6] = s02;
  outS9[si + 7] = s12;
  outS9[si + 8] = s22;
}
