import type { Influences } from './influences.ts';

/**
 * Linear blend skinning (course handout Eq. 3), written as
 *
 *     v' = v + Σ_k w_k ((A_k − I) v + t_k)
 *
 * which equals Σ_k w_k (A_k v + t_k) when the weights sum to 1, but returns the rest mesh bit-exactly when every
 * transform is the identity (each term is exactly 0), and leaves a vertex in place where weight is missing.
 * Normals are mapped by the cofactor matrix of the blended linear part M = I + Σ_k w_k (A_k − I) (the inverse
 * transpose up to a positive scale when det M > 0) and renormalized; a normal that collapses to zero keeps its
 * rest direction. shaders/lbs.glsl evaluates the same formula.
 * @param restPositions  #V × 3 rest positions
 * @param influences     per-vertex bones and weights (#V × stride)
 * @param transforms     #B × 12 row-major 3×4 affine [A | t] per bone, rest → posed
 * @param outPositions   #V × 3 posed positions (may be restPositions itself)
 * @param restNormals    optional #V × 3 rest unit normals
 * @param outNormals     #V × 3 posed unit normals, written when restNormals is given (may be restNormals itself)
 */
export function linearBlendSkinning(
  restPositions: Float64Array,
  influences: Influences,
  transforms: Float64Array,
  outPositions: Float64Array,
  restNormals?: Float64Array,
  outNormals?: Float64Array,
): void {
  if (restNormals && outNormals) {
    skinWithNormals(restPositions, influences, transforms, outPositions, restNormals, outNormals);
    return;
  }
  const vertexCount = influences.vertexCount;
  const stride = influences.stride;
  const bones = influences.bones;
  const weights = influences.weights;
  const T = transforms;
  const P = restPositions;
  const out = outPositions;
  for (let v = 0, i = 0; v < vertexCount; v++) {
    const p = 3 * v;
    const x = P[p],
      y = P[p + 1],
      z = P[p + 2];
    let dx = 0,
      dy = 0,
      dz = 0;
    for (const end = i + stride; i < end; i++) {
      const w = weights[i];
      if (w === 0) continue;
      const o = 12 * bones[i];
      dx += w * ((T[o] - 1) * x + T[o + 1] * y + T[o + 2] * z + T[o + 3]);
      dy += w * (T[o + 4] * x + (T[o + 5] - 1) * y + T[o + 6] * z + T[o + 7]);
      dz += w * (T[o + 8] * x + T[o + 9] * y + (T[o + 10] - 1) * z + T[o + 11]);
    }
    out[p] = x + dx;
    out[p + 1] = y + dy;
    out[p + 2] = z + dz;
  }
}

function skinWithNormals(
  P: Float64Array,
  influences: Influences,
  T: Float64Array,
  out: Float64Array,
  N: Float64Array,
  outN: Float64Array,
): void {
  const { vertexCount, stride, bones, weights } = influences;
  for (let v = 0, i = 0; v < vertexCount; v++) {
    // D = Σ w (A − I), d = Σ w t; then M = I + D.
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
    for (const end = i + stride; i < end; i++) {
      const w = weights[i];
      if (w === 0) continue;
      const o = 12 * bones[i];
      d00 += w * (T[o] - 1);
      d01 += w * T[o + 1];
      d02 += w * T[o + 2];
      tx += w * T[o + 3];
      d10 += w * T[o + 4];
      d11 += w * (T[o + 5] - 1);
      d12 += w * T[o + 6];
      ty += w * T[o + 7];
      d20 += w * T[o + 8];
      d21 += w * T[o + 9];
      d22 += w * (T[o + 10] - 1);
      tz += w * T[o + 11];
    }
    const p = 3 * v;
    const x = P[p],
      y = P[p + 1],
      z = P[p + 2];
    out[p] = x + (d00 * x + d01 * y + d02 * z + tx);
    out[p + 1] = y + (d10 * x + d11 * y + d12 * z + ty);
    out[p + 2] = z + (d20 * x + d21 * y + d22 * z + tz);

    // Columns c0, c1, c2 of M; cof(M) has columns c1×c2, c2×c0, c0×c1.
    const m00 = 1 + d00,
      m11 = 1 + d11,
      m22 = 1 + d22;
    const c1xc2x = m11 * m22 - d21 * d12,
      c1xc2y = d21 * d02 - d01 * m22,
      c1xc2z = d01 * d12 - m11 * d02;
    const c2xc0x = d12 * d20 - m22 * d10,
      c2xc0y = m22 * m00 - d02 * d20,
      c2xc0z = d02 * d10 - d12 * m00;
    const c0xc1x = d10 * d21 - d20 * m11,
      c0xc1y = d20 * d01 - m00 * d21,
      c0xc1z = m00 * m11 - d10 * d01;
    const nx = N[p],
      ny = N[p + 1],
      nz = N[p + 2];
    const qx = nx * c1xc2x + ny * c2xc0x + nz * c0xc1x;
    const qy = nx * c1xc2y + ny * c2xc0y + nz * c0xc1y;
    const qz = nx * c1xc2z + ny * c2xc0z + nz * c0xc1z;
    const length = Math.sqrt(qx * qx + qy * qy + qz * qz);
    if (length > 0) {
      outN[p] = qx / length;
      outN[p + 1] = qy / length;
      outN[p + 2] = qz / length;
    } else {
      outN[p] = nx;
      outN[p + 1] = ny;
      outN[p + 2] = nz;
    }
  }
}
