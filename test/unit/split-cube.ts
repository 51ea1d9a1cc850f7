/** A test mesh split at every edge, as exporters write flat-shaded meshes. */

/**
 * A unit cube whose six faces are separate quads (each with its own four corners, as exporters write a flat-shaded
 * mesh): 24 vertices, 12 triangles, 6 connected pieces.
 */
export function splitCube(): { positions: Float64Array; triangles: Uint32Array } {
  const positions: number[] = [];
  const triangles: number[] = [];
  for (let axis = 0; axis < 3; axis++) {
    for (const side of [0, 1]) {
      const u = (axis + 1) % 3;
      const v = (axis + 2) % 3;
      const base = positions.length / 3;
      for (const [a, b] of [
        [0, 0],
        [1, 0],
        [1, 1],
        [0, 1],
      ]) {
        const p = [0, 0, 0];
        p[axis] = side;
        p[u] = a;
        p[v] = b;
        positions.push(...p);
      }
      triangles.push(base, base + 1, base + 2, base, base + 2, base + 3);
    }
  }
  return { positions: Float64Array.from(positions), triangles: Uint32Array.from(triangles) };
}
