/**
 * Closest point of triangle (a, b, c) to point p, as barycentric coordinates, by the Voronoi-region test of
 * Ericson, Real-Time Collision Detection (2005), Sec. 5.1.5: vertex regions, then edge regions, then the interior.
 * Degenerate triangles fall into a vertex or edge region, so the result is always finite.
 * @param p     query point: p[pi .. pi+2]
 * @param x     vertex positions (#V × 3); a, b, c are vertex indices into it
 * @param out   receives (u, v, w) at out[oi .. oi+2], the closest point being u·a + v·b + w·c
 * @returns the squared distance from p to the closest point
 */
export function closestPointOnTriangle(
  p: ArrayLike<number>,
  pi: number,
  x: ArrayLike<number>,
  a: number,
  b: number,
  c: number,
  out: Float64Array,
  oi: number,
): number {
  const ax = x[3 * a],
    ay = x[3 * a + 1],
    az = x[3 * a + 2];
  const abx = x[3 * b] - ax,
    aby = x[3 * b + 1] - ay,
    abz = x[3 * b + 2] - az;
  const acx = x[3 * c] - ax,
    acy = x[3 * c + 1] - ay,
    acz = x[3 * c + 2] - az;
  const apx = p[pi] - ax,
    apy = p[pi + 1] - ay,
    apz = p[pi + 2] - az;
  let u = 1,
    v = 0,
    w = 0;
  const d1 = abx * apx + aby * apy + abz * apz;
  const d2 = acx * apx + acy * apy + acz * apz;
  if (!(d1 <= 0 && d2 <= 0)) {
    const bpx = apx - abx,
      bpy = apy - aby,
      bpz = apz - abz;
    const d3 = abx * bpx + aby * bpy + abz * bpz;
    const d4 = acx * bpx + acy * bpy + acz * bpz;
    const cpx = apx - acx,
      cpy = apy - acy,
      cpz = apz - acz;
    const d5 = abx * cpx + aby * cpy + abz * cpz;
    const d6 = acx * cpx + acy * cpy + acz * cpz;
    const vc = d1 * d4 - d3 * d2;
    const vb = d5 * d2 - d1 * d6;
    const va = d3 * d6 - d5 * d4;
    if (d3 >= 0 && d4 <= d3) {
      u = 0;
      v = 1;
    } else if (d6 >= 0 && d5 <= d6) {
      u = 0;
      w = 1;
    } else if (vc <= 0 && d1 >= 0 && d3 <= 0) {
      const t = d1 - d3 > 0 ? d1 / (d1 - d3) : 0;
      u = 1 - t;
      v = t;
    } else if (vb <= 0 && d2 >= 0 && d6 <= 0) {
      const t = d2 - d6 > 0 ? d2 / (d2 - d6) : 0;
      u = 1 - t;
      w = t;
    } else if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
      const t = d4 - d3 + (d5 - d6) > 0 ? (d4 - d3) / (d4 - d3 + (d5 - d6)) : 0;
      u = 0;
      v = 1 - t;
      w = t;
    } else {
      const denominator = va + vb + vc;
      if (denominator > 0) {
        v = vb / denominator;
        w = vc / denominator;
        u = 1 - v - w;
      }
    }
  }
  out[oi] = u;
  out[oi + 1] = v;
  out[oi + 2] = w;
  const qx = v * abx + w * acx - apx,
    qy = v * aby + w * acy - apy,
    qz = v * abz + w * acz - apz;
  return qx * qx + qy * qy + qz * qz;
}
