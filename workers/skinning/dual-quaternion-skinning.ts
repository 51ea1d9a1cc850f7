import type { Influences } from './influences.ts';

/** How the signs of q̂ and −q̂ (the same transform, blending differently) are chosen. */
export type DualQuaternionAntipodality = 'per-vertex' | 'per-bone';

export interface DualQuaternionSkinningOptions {
  /**
   * 'per-vertex': Kavan 2008 Algorithm 2 in the loop — each influence is negated when its real part has a
   * negative dot product with the vertex's first influence (first with non-zero weight); any sign input works,
   * and a valid sign sequence is found whenever one exists (Lemma 5).
   * 'per-bone': Sec. 4.1 — signs are used as given, which must have been aligned along the skeleton by
   * alignDualQuaternionSigns (workers/skinning/align-dual-quaternion-signs.ts); a little faster, and a joint
   * passing 180° flips (Fig. 20).
   */
  antipodality?: DualQuaternionAntipodality;
  /**
   * #B × 12 row-major 3×4 scale/shear transforms of the first phase of Sec. 4.2 (non-rigid joints), e.g. the
   * `outScale` of splitNonRigidTransforms; null means identity for every bone (rigid skinning only).
   */
  scaleTransforms?: Float64Array | null;
}

export const DUAL_QUATERNION_SKINNING_DEFAULTS: Required<DualQuaternionSkinningOptions> = {
  antipodality: 'per-vertex',
  scaleTransforms: null,
};

/**
 * Dual quaternion skinning by dual quaternion linear blending, DLB (Kavan et al. 2008, Eq. 11 and Algorithm 1):
 * b̂ = Σ_k w_k (±q̂_k) with signs per `antipodality`, c₀ = b₀/‖b₀‖ = (d₀, a₀), c_ε = b_ε/‖b₀‖ = (d_ε, a_ε), and
 *     v' = v + 2 d₀ × (d₀ × v + a₀ v) + 2 (a₀ d_ε − a_ε d₀ + d₀ × d_ε).
 * The normalization makes the result independent of the weights' sum, so float32 weights that sum to 1 only
 * within 1e-7 blend exactly as intended, and a vertex without weight keeps its rest position. At rest every q̂_k
 * is exactly (0, 0, 0, 1 | 0, 0, 0, 0) (dualQuatFromRigidMatrix of an identity matrix), so d₀, d_ε and a_ε are
 * exactly 0 and v' = v + 0 + 0 returns the rest mesh bit for bit whatever ‖b₀‖ rounds to.
 *
 * With `scaleTransforms` (Sec. 4.2), a first phase moves the rest vertex by the linearly blended scale/shear
 * K = I + Σ_k w_k (K_k − I) (matrices hold no rotation there, so linear blending is safe), then DLB applies the
 * rigid part. Normals are mapped by the cofactor of K's linear part (the inverse transpose up to a positive
 * factor), rescaled to their rest length, then rotated by c₀. Rigid rotation keeps a normal's length, so unit
 * rest normals stay unit.
 *
 * A vertex whose blended real part is exactly zero (no weight, or half on q̂ and half on −q̂ in 'per-bone' mode
 * with unaligned input) keeps its first-phase position and normal.
 * @param restPositions        #V × 3 rest positions
 * @param influences           per-vertex bones and weights (#V × stride), see influences.ts
 * @param boneDualQuaternions  #B × 8 unit dual quaternions, rest → posed (layout of workers/math/dual-quaternion.ts:
 *                             real x y z w, dual x y z w)
 * @param outPositions         #V × 3 posed positions (must not alias restPositions)
 * @param options              see DualQuaternionSkinningOptions; missing fields take DUAL_QUATERNION_SKINNING_DEFAULTS
 * @param restNormals          optional #V × 3 rest normals
 * @param outNormals           #V × 3 posed normals, written when restNormals is given
 */
export function dualQuaternionSkinning(
  restPositions: Float64Array,
  influences: Influences,
  boneDualQuaternions: Float64Array,
  outPositions: Float64Array,
  options?: DualQuaternionSkinningOptions,
  restNormals?: Float64Array,
  outNormals?: Float64Array,
): void {
  const perVertex = (options?.antipodality ?? DUAL_QUATERNION_SKINNING_DEFAULTS.antipodality) === 'per-vertex';
  const K = options?.scaleTransforms ?? DUAL_QUATERNION_SKINNING_DEFAULTS.scaleTransforms;
  if (K || (restNormals && outNormals)) {
    skinGeneral(restPositions, influences, boneDualQuaternions, outPositions, perVertex, K, restNormals ?? null, outNormals ?? null);
    return;
  }
  const { vertexCount, stride, bones, weights } = influences;
  const Q = boneDualQuaternions;
  const P = restPositions;
  const out = outPositions;
  for (let v = 0, i = 0; v < vertexCount; v++) {
    let bx = 0,
      by = 0,
      bz = 0,
      bw = 0,
      ex = 0,
      ey = 0,
      ez = 0,
      ew = 0;
    let rx = 0,
      ry = 0,
      rz = 0,
      rw = 0;
    for (const end = i + stride; i < end; i++) {
      const w = weights[i];
      if (w === 0) continue;
      const o = 8 * bones[i];
      const qx = Q[o],
        qy = Q[o + 1],
        qz = Q[o + 2],
        qw = Q[o + 3];
      let sw = w;
      if (perVertex) {
        if (rx === 0 && ry === 0 && rz === 0 && rw === 0) {
          rx = qx;
          ry = qy;
          rz = qz;
          rw = qw;
        }
        if (rx * qx + ry * qy + rz * qz + rw * qw < 0) sw = -w;
      }
      bx += sw * qx;
      by += sw * qy;
      bz += sw * qz;
      bw += sw * qw;
      ex += sw * Q[o + 4];
      ey += sw * Q[o + 5];
      ez += sw * Q[o + 6];
      ew += sw * Q[o + 7];
    }
    const p = 3 * v;
    const x = P[p],
      y = P[p + 1],
      z = P[p + 2];
    const n2 = bx * bx + by * by + bz * bz + bw * bw;
    if (n2 === 0) {
      out[p] = x;
      out[p + 1] = y;
      out[p + 2] = z;
      continue;
    }
    const inv = 1 / Math.sqrt(n2);
    const dx = bx * inv,
      dy = by * inv,
      dz = bz * inv,
      a = bw * inv;
    const fx = ex * inv,
      fy = ey * inv,
      fz = ez * inv,
      ae = ew * inv;
    const ux = dy * z - dz * y + a * x,
      uy = dz * x - dx * z + a * y,
      uz = dx * y - dy * x + a * z;
    out[p] = x + 2 * (dy * uz - dz * uy) + 2 * (a * fx - ae * dx + (dy * fz - dz * fy));
    out[p + 1] = y + 2 * (dz * ux - dx * uz) + 2 * (a * fy - ae * dy + (dz * fx - dx * fz));
    out[p + 2] = z + 2 * (dx * uy - dy * ux) + 2 * (a * fz - ae * dz + (dx * fy - dy * fx));
  }
}

/** The same blend with the optional first phase (scale/shear) and normals. */
function skinGeneral(
  P: Float64Array,
  influences: Influences,
  Q: Float64Array,
  out: Float64Array,
  perVertex: boolean,
  K: Float64Array | null,
  N: Float64Array | null,
  outN: Float64Array | null,
): void {
  const { vertexCount, stride, bones, weights } = influences;
  const withNormals = N !== null && outN !== null;
  for (let v = 0, i0 = 0; v < vertexCount; v++, i0 += stride) {
    const p = 3 * v;
    let x = P[p],
      y = P[p + 1],
      z = P[p + 2];
    let nx = 0,
      ny = 0,
      nz = 0;
    if (withNormals) {
      nx = N[p];
      ny = N[p + 1];
      nz = N[p + 2];
    }

    if (K) {
      // First phase: D = Σ w (K_k − I), d = Σ w t_k; the blended scale/shear is I + D.
      let d00 = 0,
        d01 = 0,
        d02 = 0,
        d10 = 0,
        d11 = 0,
        d12 = 0,
        d20 = 0,
        d21 = 0,
        d22 = 0;
      let tx = 0,
        ty = 0,
        tz = 0;
      for (let i = i0, end = i0 + stride; i < end; i++) {
        const w = weights[i];
        if (w === 0) continue;
        const o = 12 * bones[i];
        d00 += w * (K[o] - 1);
        d01 += w * K[o + 1];
        d02 += w * K[o + 2];
        tx += w * K[o + 3];
        d10 += w * K[o + 4];
        d11 += w * (K[o + 5] - 1);
        d12 += w * K[o + 6];
        ty += w * K[o + 7];
        d20 += w * K[o + 8];
        d21 += w * K[o + 9];
        d22 += w * (K[o + 10] - 1);
        tz += w * K[o + 11];
      }
      const sx = x + (d00 * x + d01 * y + d02 * z + tx);
      const sy = y + (d10 * x + d11 * y + d12 * z + ty);
      const sz = z + (d20 * x + d21 * y + d22 * z + tz);
      x = sx;
      y = sy;
      z = sz;
      if (withNormals) {
        // cof(M) has columns c1×c2, c2×c0, c0×c1 for the columns c_j of M = I + D.
        const m00 = 1 + d00,
          m11 = 1 + d11,
          m22 = 1 + d22;
        const qx = nx * (m11 * m22 - d21 * d12) + ny * (d12 * d20 - m22 * d10) + nz * (d10 * d21 - d20 * m11);
        const qy = nx * (d21 * d02 - d01 * m22) + ny * (m22 * m00 - d02 * d20) + nz * (d20 * d01 - m00 * d21);
        const qz = nx * (d01 * d12 - m11 * d02) + ny * (d02 * d10 - d12 * m00) + nz * (m00 * m11 - d10 * d01);
        const q2 = qx * qx + qy * qy + qz * qz;
        if (q2 > 0) {
          const f = Math.sqrt(nx * nx + ny * ny + nz * nz) / Math.sqrt(q2);
          nx = qx * f;
          ny = qy * f;
          nz = qz * f;
        }
      }
    }

    let bx = 0,
      by = 0,
      bz = 0,
      bw = 0,
      ex = 0,
      ey = 0,
      ez = 0,
      ew = 0;
    let rx = 0,
      ry = 0,
      rz = 0,
      rw = 0;
    for (let i = i0, end = i0 + stride; i < end; i++) {
      const w = weights[i];
      if (w === 0) continue;
      const o = 8 * bones[i];
      const qx = Q[o],
        qy = Q[o + 1],
        qz = Q[o + 2],
        qw = Q[o + 3];
      let sw = w;
      if (perVertex) {
        if (rx === 0 && ry === 0 && rz === 0 && rw === 0) {
          rx = qx;
          ry = qy;
          rz = qz;
          rw = qw;
        }
        if (rx * qx + ry * qy + rz * qz + rw * qw < 0) sw = -w;
      }
      bx += sw * qx;
      by += sw * qy;
      bz += sw * qz;
      bw += sw * qw;
      ex += sw * Q[o + 4];
      ey += sw * Q[o + 5];
      ez += sw * Q[o + 6];
      ew += sw * Q[o + 7];
    }
    const n2 = bx * bx + by * by + bz * bz + bw * bw;
    if (n2 === 0) {
      out[p] = x;
      out[p + 1] = y;
      out[p + 2] = z;
      if (withNormals) {
        outN[p] = nx;
        outN[p + 1] = ny;
        outN[p + 2] = nz;
      }
      continue;
    }
    const inv = 1 / Math.sqrt(n2);
    const dx = bx * inv,
      dy = by * inv,
      dz = bz * inv,
      a = bw * inv;
    const fx = ex * inv,
      fy = ey * inv,
      fz = ez * inv,
      ae = ew * inv;
    const ux = dy * z - dz * y + a * x,
      uy = dz * x - dx * z + a * y,
      uz = dx * y - dy * x + a * z;
    out[p] = x + 2 * (dy * uz - dz * uy) + 2 * (a * fx - ae * dx + (dy * fz - dz * fy));
    out[p + 1] = y + 2 * (dz * ux - dx * uz) + 2 * (a * fy - ae * dy + (dz * fx - dx * fz));
    out[p + 2] = z + 2 * (dx * uy - dy * ux) + 2 * (a * fz - ae * dz + (dx * fy - dy * fx));
    if (withNormals) {
      const mx = dy * nz - dz * ny + a * nx,
        my = dz * nx - dx * nz + a * ny,
        mz = dx * ny - dy * nx + a * nz;
      outN[p] = nx + 2 * (dy * mz - dz * my);
      outN[p + 1] = ny + 2 * (dz * mx - dx * mz);
      outN[p + 2] = nz + 2 * (dx * my - dy * mx);
    }
  }
}
