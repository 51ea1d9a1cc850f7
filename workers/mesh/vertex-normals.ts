/**
 * Area-weighted vertex normals: the sum of the incident triangles' cross products (twice their area times their
 * unit normal), normalized. Triangles are CCW seen from outside, so normals point outward.
 * @param positions  #V × 3 positions
 * @param triangles  #F × 3 vertex indices, 0-based
 * @param out        optional #V × 3 output (reused when given)
 * @returns #V × 3 unit normals; a vertex that touches no triangle of positive area gets (0, 0, 1), so that
 *   shaders never normalize a zero vector
 */
export function vertexNormals(positions: Float64Array, triangles: Uint32Array, out?: Float64Array): Float64Array {
  const normals = out ?? new Float64Array(positions.length);
  normals.fill(0);
  const P = positions;
  for (let f = 0; f < triangles.length; f += 3) {
    const a = 3 * triangles[f],
      b = 3 * triangles[f + 1],
      c = 3 * triangles[f + 2];
    const ux = P[b] - P[a],
      uy = P[b + 1] - P[a + 1],
      uz = P[b + 2] - P[a + 2];
    const vx = P[c] - P[a],
      vy = P[c + 1] - P[a + 1],
      vz = P[c + 2] - P[a + 2];
    const nx = uy * vz - uz * vy,
      ny = uz * vx - ux * vz,
      nz = ux * vy - uy * vx;
    normals[a] += nx;
    normals[a + 1] += ny;
    normals[a + 2] += nz;
    normals[b] += nx;
    normals[b + 1] += ny;
    normals[b + 2] += nz;
    normals[c] += nx;
    normals[c + 1] += ny;
    normals[c + 2] += nz;
  }
  for (let i = 0; i < normals.length; i += 3) {
    const x = normals[i],
      y = normals[i + 1],
      z = normals[i + 2];
    const length = Math.sqrt(x * x + y * y + z * z);
    if (length > 0 && Number.isFinite(length)) {
      normals[i] = x / length;
      normals[i + 1] = y / length;
      normals[i + 2] = z / length;
    } else {
      normals[i] = 0;
      normals[i + 1] = 0;
      normals[i + 2] = 1;
    }
  }
  return normals;
}
