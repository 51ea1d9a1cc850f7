import { closestPointOnTriangle } from './closest-point-on-triangle.ts';
import { createVertexGrid, queryVertexGrid, type VertexGrid } from './vertex-grid.ts';

/**
 * Where each vertex's mirror image lands on the surface: the closest point of the mesh to the vertex reflected
 * across the plane `axis = 0`, as a triangle and barycentric coordinates, so weights transfer by interpolation and
 * meshes that are only nearly symmetric still match.
 */
export interface MirrorVertexMap {
  /** #V triangle containing the closest point, -1 when unmatched */
  triangle: Int32Array;
  /** #V × 3 barycentric coordinates in that triangle */
  barycentric: Float64Array;
  /** #V the triangle corner with the largest coordinate (the mirror partner vertex), -1 when unmatched */
  partner: Int32Array;
  /** #V distance from the reflected vertex to the surface, world units; Infinity when nothing is within reach */
  distance: Float64Array;
  /** vertices whose reflection is farther than the tolerance from the surface, ascending */
  unmatched: Uint32Array;
}

/**
 * For every vertex v: reflect it, then find the closest point of the surface among the triangles around the vertices
 * within tolerance + the longest edge of the reflection (a surface point within the tolerance lies in a triangle
 * whose corners are all that close), via the vertex grid. Vertices farther than the tolerance are reported.
 * @param positions #V × 3 positions, world units
 * @param triangles #F × 3 vertex indices
 * @param axis      0 = x, 1 = y, 2 = z: the mirror plane is axis = 0
 * @param tolerance largest accepted distance between a reflected vertex and the surface, world units
 * @param grid      optional vertex grid over `positions` (built when omitted)
 * @returns the map
 */
export function mirrorVertexMap(
  positions: Float64Array,
  triangles: Uint32Array,
  axis: 0 | 1 | 2,
  tolerance: number,
  grid?: VertexGrid,
): MirrorVertexMap {
  const n = Math.floor(positions.length / 3);
  const faceCount = Math.floor(triangles.length / 3);
  const vertexGrid = grid ?? createVertexGrid(positions);
  // Vertex → incident triangles, compressed.
  const faceStart = new Int32Array(n + 1);
  for (let t = 0; t < 3 * faceCount; t++) {
    if (triangles[t] >= n) throw new RangeError(`mirrorVertexMap: face ${Math.floor(t / 3)} names vertex ${triangles[t]}, the mesh has ${n}`);
    faceStart[triangles[t] + 1]++;
  }
  for (let v = 0; v < n; v++) faceStart[v + 1] += faceStart[v];
  const fill = faceStart.slice(0, n);
  const faces = new Int32Array(3 * faceCount);
  let longestEdge = 0;
  for (let f = 0; f < faceCount; f++) {
    for (let k = 0; k < 3; k++) {
      const a = triangles[3 * f + k], b = triangles[3 * f + ((k + 1) % 3)];
      faces[fill[a]++] = f;
      const e = Math.hypot(positions[3 * a] - positions[3 * b], positions[3 * a + 1] - positions[3 * b + 1], positions[3 * a + 2] - positions[3 * b + 2]);
      if (e > longestEdge) longestEdge = e;
    }
  }
  const reach = tolerance + longestEdge;

  const triangle = new Int32Array(n).fill(-1);
  const barycentric = new Float64Array(3 * n);
  const partner = new Int32Array(n).fill(-1);
  const distance = new Float64Array(n).fill(Infinity);
  const seenIn = new Int32Array(faceCount).fill(-1);
  let indices = new Uint32Array(256);
  let distances = new Float64Array(256);
  const reflected = new Float64Array(3);
  const coords = new Float64Array(3);
  const unmatched: number[] = [];
  for (let v = 0; v < n; v++) {
    reflected[0] = positions[3 * v];
    reflected[1] = positions[3 * v + 1];
    reflected[2] = positions[3 * v + 2];
    reflected[axis] = -reflected[axis];
    let count = queryVertexGrid(vertexGrid, reflected[0], reflected[1], reflected[2], reach, indices, distances);
    if (count > indices.length) {
      indices = new Uint32Array(2 * count);
      distances = new Float64Array(2 * count);
      count = queryVertexGrid(vertexGrid, reflected[0], reflected[1], reflected[2], reach, indices, distances);
    }
    let best = Infinity;
    for (let i = 0; i < count; i++) {
      const u = indices[i];
      for (let p = faceStart[u]; p < faceStart[u + 1]; p++) {
        const f = faces[p];
        if (seenIn[f] === v) continue;
        seenIn[f] = v;
        const d2 = closestPointOnTriangle(reflected, 0, positions, triangles[3 * f], triangles[3 * f + 1], triangles[3 * f + 2], coords, 0);
        if (d2 < best) {
          best = d2;
          triangle[v] = f;
          barycentric[3 * v] = coords[0];
          barycentric[3 * v + 1] = coords[1];
          barycentric[3 * v + 2] = coords[2];
        }
      }
    }
    const d = Math.sqrt(best);
    distance[v] = d;
    if (!(d <= tolerance)) {
      triangle[v] = -1;
      unmatched.push(v);
      continue;
    }
    const f = triangle[v];
    const b0 = barycentric[3 * v], b1 = barycentric[3 * v + 1], b2 = barycentric[3 * v + 2];
    partner[v] = triangles[3 * f + (b0 >= b1 && b0 >= b2 ? 0 : b1 >= b2 ? 1 : 2)];
  }
  return { triangle, barycentric, partner, distance, unmatched: Uint32Array.from(unmatched) };
}
