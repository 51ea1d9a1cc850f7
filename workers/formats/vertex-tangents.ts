/**
 * Per-vertex tangents for a normal map (glTF's TANGENT: xyz a unit vector along +u, w ±1 the bitangent's side), by
 * Lengyel's method ("Computing Tangent Space Basis Vectors for an Arbitrary Mesh", 2001): each triangle adds its
 * ∂p/∂u and ∂p/∂v to its corners, then per vertex the summed ∂p/∂u is made orthogonal to the normal (Gram–Schmidt)
 * and w says whether cross(normal, tangent) points along the summed ∂p/∂v.
 *
 * glTF's normal maps have +Y up the image (glTF 2.0 §3.9.3), and its texture coordinate v runs down the image, so the
 * bitangent is taken along −v: a quad whose v runs down the image like the glTF picture has w = +1.
 */

/**
 * @param positions  #N × 3 vertex positions
 * @param normals    #N × 3 unit vertex normals
 * @param uvs        #N × 2 texture coordinates (glTF's: origin top left, v down)
 * @param indices    #F × 3 triangles, indices into the vertices
 * @returns #N × 4 tangents (x, y, z, w); a vertex whose triangles give no direction (no triangle, or uvs that do not
 *   vary) gets a unit vector perpendicular to its normal and w = 1
 */
export function vertexTangents(
  positions: ArrayLike<number>,
  normals: ArrayLike<number>,
  uvs: ArrayLike<number>,
  indices: ArrayLike<number>,
): Float32Array {
  const n = positions.length / 3;
  const du = new Float64Array(3 * n);
  const dv = new Float64Array(3 * n);
  for (let f = 0; f + 2 < indices.length; f += 3) {
    const a = indices[f];
    const b = indices[f + 1];
    const c = indices[f + 2];
    const s1 = uvs[2 * b] - uvs[2 * a];
    const s2 = uvs[2 * c] - uvs[2 * a];
    // −v: up the image
    const t1 = uvs[2 * a + 1] - uvs[2 * b + 1];
    const t2 = uvs[2 * a + 1] - uvs[2 * c + 1];
    const det = s1 * t2 - s2 * t1;
    if (!(Math.abs(det) > 1e-20)) continue;
    const r = 1 / det;
    for (let k = 0; k < 3; k++) {
      const e1 = positions[3 * b + k] - positions[3 * a + k];
      const e2 = positions[3 * c + k] - positions[3 * a + k];
      const sdir = (e1 * t2 - e2 * t1) * r;
      const tdir = (e2 * s1 - e1 * s2) * r;
      for (const v of [a, b, c]) {
        du[3 * v + k] += sdir;
        dv[3 * v + k] += tdir;
      }
    }
  }
  const out = new Float32Array(4 * n);
  for (let v = 0; v < n; v++) {
    const nx = normals[3 * v];
    const ny = normals[3 * v + 1];
    const nz = normals[3 * v + 2];
    const along = nx * du[3 * v] + ny * du[3 * v + 1] + nz * du[3 * v + 2];
    let tx = du[3 * v] - nx * along;
    let ty = du[3 * v + 1] - ny * along;
    let tz = du[3 * v + 2] - nz * along;
    let length = Math.hypot(tx, ty, tz);
    if (!(length > 1e-12)) {
      // Any direction in the tangent plane: the axis least along the normal, made orthogonal to it.
      const ax = Math.abs(nx) <= Math.abs(ny) && Math.abs(nx) <= Math.abs(nz) ? 1 : 0;
      const ay = ax === 0 && Math.abs(ny) <= Math.abs(nz) ? 1 : 0;
      const az = ax === 0 && ay === 0 ? 1 : 0;
      const d = nx * ax + ny * ay + nz * az;
      tx = ax - nx * d;
      ty = ay - ny * d;
      tz = az - nz * d;
      length = Math.hypot(tx, ty, tz);
    }
    tx /= length;
    ty /= length;
    tz /= length;
    // cross(normal, tangent) · ∂p/∂(−v)
    const side = (ny * tz - nz * ty) * dv[3 * v] + (nz * tx - nx * tz) * dv[3 * v + 1] + (nx * ty - ny * tx) * dv[3 * v + 2];
    out.set([tx, ty, tz, side < 0 ? -1 : 1], 4 * v);
  }
  return out;
}
