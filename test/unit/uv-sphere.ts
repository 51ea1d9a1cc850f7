/**
 * A closed UV sphere for tests: `rings` − 1 rings of `segments` vertices between two pole vertices, triangles
 * counter-clockwise seen from outside (outward normals).
 * @param centre sphere centre
 * @returns #V × 3 positions, #F × 3 triangles; the north pole is vertex 0, the south pole the last vertex
 */
export function uvSphere(
  segments: number,
  rings: number,
  radius = 1,
  centre: [number, number, number] = [0, 0, 0],
): { positions: Float64Array; triangles: Uint32Array } {
  const positions: number[] = [centre[0], centre[1], centre[2] + radius];
  for (let r = 1; r < rings; r++) {
    const polar = (Math.PI * r) / rings;
    for (let s = 0; s < segments; s++) {
      const azimuth = (2 * Math.PI * s) / segments;
      positions.push(
        centre[0] + radius * Math.sin(polar) * Math.cos(azimuth),
        centre[1] + radius * Math.sin(polar) * Math.sin(azimuth),
        centre[2] + radius * Math.cos(polar),
      );
    }
  }
  const south = positions.length / 3;
  positions.push(centre[0], centre[1], centre[2] - radius);
  const ring = (r: number, s: number) => 1 + (r - 1) * segments + (s % segments);
  const triangles: number[] = [];
  for (let s = 0; s < segments; s++) triangles.push(0, ring(1, s), ring(1, s + 1));
  for (let r = 1; r + 1 < rings; r++)
    for (let s = 0; s < segments; s++) {
      triangles.push(ring(r, s), ring(r + 1, s), ring(r + 1, s + 1));
      triangles.push(ring(r, s), ring(r + 1, s + 1), ring(r, s + 1));
    }
  for (let s = 0; s < segments; s++) triangles.push(south, ring(rings - 1, s + 1), ring(rings - 1, s));
  return { positions: Float64Array.from(positions), triangles: Uint32Array.from(triangles) };
}
