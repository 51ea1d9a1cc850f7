/** A test mesh split at every edge of a cube, as exporters write flat-shaded meshes. */

/**
 * A unit cube [0, 1]³ whose six faces are separate grids of `divisions` × `divisions` quads, each face with its own
 * vertices (as a flat-shaded or UV-split export has them): 6·(divisions + 1)² vertices, 12·divisions² triangles,
 * 6 connected pieces. Coordinates are i / divisions, exact for a power of two.
 * @returns positions, triangles, and #V the face (0–5: x = 0, x = 1, y = 0, y = 1, z = 0, z = 1) of each vertex
 */
export function splitCube(divisions = 1): { positions: Float64Array; triangles: Uint32Array; face: Int32Array } {
  const positions: number[] = [];
  const triangles: number[] = [];
  const face: number[] = [];
  const side = divisions + 1;
  for (let axis = 0; axis < 3; axis++) {
    for (const level of [0, 1]) {
      const u = (axis + 1) % 3;
      const v = (axis + 2) % 3;
      const base = positions.length / 3;
      for (let j = 0; j < side; j++) {
        for (let i = 0; i < side; i++) {
          const p = [0, 0, 0];
          p[axis] = level;
          p[u] = i / divisions;
          p[v] = j / divisions;
          positions.push(...p);
          face.push(2 * axis + level);
        }
      }
      for (let j = 0; j < divisions; j++) {
        for (let i = 0; i < divisions; i++) {
          const a = base + j * side + i;
          triangles.push(a, a + 1, a + side + 1, a, a + side + 1, a + side);
        }
      }
    }
  }
  return { positions: Float64Array.from(positions), triangles: Uint32Array.from(triangles), face: Int32Array.from(face) };
}

/**
 * splitCube with every face's triangles counter-clockwise seen from outside (splitCube's faces all wind the same way
 * about their axis, so the x = 0, y = 0 and z = 0 faces face in): a consistently oriented soup, as a winding number
 * needs.
 */
export function outwardSplitCube(divisions = 1): { positions: Float64Array; triangles: Uint32Array; face: Int32Array } {
  const cube = splitCube(divisions);
  const triangles = cube.triangles.slice();
  for (let t = 0; t < triangles.length; t += 3) {
    if (cube.face[triangles[t]] % 2 === 1) continue;
    const b = triangles[t + 1];
    triangles[t + 1] = triangles[t + 2];
    triangles[t + 2] = b;
  }
  return { ...cube, triangles };
}
