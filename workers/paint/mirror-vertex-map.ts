import { closestPointOnTriangle } from './closest-point-on-triangle.ts';

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
 * For every vertex v: reflect it to r; in a grid of triangles binned by bounding box, the faces of r's own cell give
 * a first distance d to the surface, then the closest point is searched among the faces of every cell the cube of
 * half-width R = min(d, tolerance) around r meets. The search is exact: the closest surface point q is no farther
 * than d, and q's triangle is binned in q's cell, which the cube covers; when d > tolerance a match within the
 * tolerance still lies inside the cube. On a near-symmetric mesh d is a fraction of an edge, so each vertex visits
 * a handful of cells.
 * Vertices farther than the tolerance are reported.
 * @param positions #V × 3 positions, world units
 * @param triangles #F × 3 vertex indices
 * @param axis      0 = x, 1 = y, 2 = z: the mirror plane is axis = 0
 * @param tolerance largest accepted distance between a reflected vertex and the surface, world units
 * @param progress  called with the fraction of vertices matched, every few thousand vertices
 * @returns the map
 */
export function mirrorVertexMap(
  positions: Float64Array,
  triangles: Uint32Array,
  axis: 0 | 1 | 2,
  tolerance: number,
  progress?: (fraction: number) => void,
): MirrorVertexMap {
  const n = Math.floor(positions.length / 3);
  const faceCount = Math.floor(triangles.length / 3);
  for (let t = 0; t < 3 * faceCount; t++) {
    if (triangles[t] >= n)
      throw new RangeError(`mirrorVertexMap: face ${Math.floor(t / 3)} names vertex ${triangles[t]}, the mesh has ${n}`);
  }
  const faces = createTriangleGrid(positions, triangles);
  const { cellSize, originX, originY, originZ, dimX, dimY, dimZ, cellStart, cellFaces, boxes } = faces;
  const inverse = 1 / cellSize;

  const triangle = new Int32Array(n).fill(-1);
  const barycentric = new Float64Array(3 * n);
  const partner = new Int32Array(n).fill(-1);
  const distance = new Float64Array(n).fill(Infinity);
  const seenIn = new Int32Array(faceCount).fill(-1);
  const reflected = new Float64Array(3);
  const coords = new Float64Array(3);
  const unmatched: number[] = [];
  const cellIndex = (x: number, origin: number, dim: number) => Math.min(Math.max(Math.floor((x - origin) * inverse), 0), dim - 1);
  // Vertices are visited in the order of their reflection's cell, so consecutive searches read the same faces.
  const order = new Uint32Array(n);
  {
    const key = new Int32Array(n);
    const start = new Int32Array(dimX * dimY * dimZ + 1);
    for (let v = 0; v < n; v++) {
      const r = [positions[3 * v], positions[3 * v + 1], positions[3 * v + 2]];
      r[axis] = -r[axis];
      key[v] = cellIndex(r[0], originX, dimX) + dimX * (cellIndex(r[1], originY, dimY) + dimY * cellIndex(r[2], originZ, dimZ));
      start[key[v] + 1]++;
    }
    for (let c = 0; c + 1 < start.length; c++) start[c + 1] += start[c];
    for (let v = 0; v < n; v++) order[start[key[v]]++] = v;
  }
  for (let step = 0; step < n; step++) {
    if (progress && step % PROGRESS_EVERY === 0) progress(step / n);
    const v = order[step];
    reflected[0] = positions[3 * v];
    reflected[1] = positions[3 * v + 1];
    reflected[2] = positions[3 * v + 2];
    reflected[axis] = -reflected[axis];
    const [rx, ry, rz] = reflected;
    const ci = cellIndex(rx, originX, dimX),
      cj = cellIndex(ry, originY, dimY),
      ck = cellIndex(rz, originZ, dimZ);
    let best = Infinity;
    // Pass 0: r's own cell; pass 1: every cell the cube of half-width min(d, tolerance) around r meets.
    let i0 = ci,
      i1 = ci,
      j0 = cj,
      j1 = cj,
      k0 = ck,
      k1 = ck;
    for (let pass = 0; pass < 2; pass++) {
      if (pass === 1) {
        const half = Math.min(Math.sqrt(best), tolerance);
        i0 = cellIndex(rx - half, originX, dimX);
        i1 = cellIndex(rx + half, originX, dimX);
        j0 = cellIndex(ry - half, originY, dimY);
        j1 = cellIndex(ry + half, originY, dimY);
        k0 = cellIndex(rz - half, originZ, dimZ);
        k1 = cellIndex(rz + half, originZ, dimZ);
      }
      for (let k = k0; k <= k1; k++) {
        for (let j = j0; j <= j1; j++) {
          for (let i = i0; i <= i1; i++) {
            const cell = i + dimX * (j + dimY * k);
            for (let s = cellStart[cell], end = cellStart[cell + 1]; s < end; s++) {
              const f = cellFaces[s];
              if (seenIn[f] === v) continue;
              seenIn[f] = v;
              // Squared distance to the face's box: a lower bound that skips most faces cheaply.
              const o = 6 * f;
              const bx = Math.max(boxes[o] - rx, 0, rx - boxes[o + 3]);
              const by = Math.max(boxes[o + 1] - ry, 0, ry - boxes[o + 4]);
              const bz = Math.max(boxes[o + 2] - rz, 0, rz - boxes[o + 5]);
              if (bx * bx + by * by + bz * bz >= best) continue;
              const d2 = closestPointOnTriangle(
                reflected,
                0,
                positions,
                triangles[3 * f],
                triangles[3 * f + 1],
                triangles[3 * f + 2],
                coords,
                0,
              );
              if (d2 < best) {
                best = d2;
                triangle[v] = f;
                barycentric[3 * v] = coords[0];
                barycentric[3 * v + 1] = coords[1];
                barycentric[3 * v + 2] = coords[2];
              }
            }
          }
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
    const b0 = barycentric[3 * v],
      b1 = barycentric[3 * v + 1],
      b2 = barycentric[3 * v + 2];
    partner[v] = triangles[3 * f + (b0 >= b1 && b0 >= b2 ? 0 : b1 >= b2 ? 1 : 2)];
  }
  return { triangle, barycentric, partner, distance, unmatched: Uint32Array.from(unmatched) };
}

/** Vertices matched between two progress reports. */
const PROGRESS_EVERY = 8192;

/** Triangles binned into a uniform grid by their bounding boxes (compressed rows: cell → faces). */
interface TriangleGrid {
  cellSize: number;
  originX: number;
  originY: number;
  originZ: number;
  dimX: number;
  dimY: number;
  dimZ: number;
  /** #cells + 1 offsets into cellFaces; cell (i, j, k) has index i + dimX·(j + dimY·k) */
  cellStart: Int32Array;
  cellFaces: Int32Array;
  /** #F × 6 bounding boxes: min x y z, max x y z */
  boxes: Float64Array;
}

/**
 * The cell edge is twice the mean edge length, so a face overlaps a few cells; it grows while the grid would have
 * more than 4·#F cells (thin or sparse meshes).
 */
function createTriangleGrid(positions: Float64Array, triangles: Uint32Array): TriangleGrid {
  const faceCount = Math.floor(triangles.length / 3);
  const boxes = new Float64Array(6 * faceCount);
  let minX = Infinity,
    minY = Infinity,
    minZ = Infinity,
    maxX = -Infinity,
    maxY = -Infinity,
    maxZ = -Infinity;
  let edgeSum = 0;
  for (let f = 0; f < faceCount; f++) {
    const o = 6 * f;
    boxes[o] = boxes[o + 1] = boxes[o + 2] = Infinity;
    boxes[o + 3] = boxes[o + 4] = boxes[o + 5] = -Infinity;
    for (let k = 0; k < 3; k++) {
      const a = triangles[3 * f + k],
        b = triangles[3 * f + ((k + 1) % 3)];
      for (let c = 0; c < 3; c++) {
        const x = positions[3 * a + c];
        if (x < boxes[o + c]) boxes[o + c] = x;
        if (x > boxes[o + 3 + c]) boxes[o + 3 + c] = x;
      }
      edgeSum += Math.hypot(
        positions[3 * a] - positions[3 * b],
        positions[3 * a + 1] - positions[3 * b + 1],
        positions[3 * a + 2] - positions[3 * b + 2],
      );
    }
    minX = Math.min(minX, boxes[o]);
    minY = Math.min(minY, boxes[o + 1]);
    minZ = Math.min(minZ, boxes[o + 2]);
    maxX = Math.max(maxX, boxes[o + 3]);
    maxY = Math.max(maxY, boxes[o + 4]);
    maxZ = Math.max(maxZ, boxes[o + 5]);
  }
  if (faceCount === 0) minX = minY = minZ = maxX = maxY = maxZ = 0;
  const extent = Math.max(maxX - minX, maxY - minY, maxZ - minZ);
  let cellSize = faceCount > 0 ? edgeSum / (3 * faceCount) : 1;
  if (!(cellSize > 0)) cellSize = extent > 0 ? extent : 1;
  const dims = (size: number) => [maxX - minX, maxY - minY, maxZ - minZ].map((e) => Math.floor(e / size) + 1);
  while (dims(cellSize).reduce((a, b) => a * b, 1) > Math.max(4 * faceCount, 1)) cellSize *= 1.25;
  const [dimX, dimY, dimZ] = dims(cellSize);
  const inverse = 1 / cellSize;
  const cellStart = new Int32Array(dimX * dimY * dimZ + 1);
  // Two passes over each face's cell range: count, then fill.
  const visit = (f: number, each: (cell: number) => void) => {
    const o = 6 * f;
    const i0 = Math.floor((boxes[o] - minX) * inverse),
      i1 = Math.floor((boxes[o + 3] - minX) * inverse);
    const j0 = Math.floor((boxes[o + 1] - minY) * inverse),
      j1 = Math.floor((boxes[o + 4] - minY) * inverse);
    const k0 = Math.floor((boxes[o + 2] - minZ) * inverse),
      k1 = Math.floor((boxes[o + 5] - minZ) * inverse);
    for (let k = k0; k <= k1; k++) for (let j = j0; j <= j1; j++) for (let i = i0; i <= i1; i++) each(i + dimX * (j + dimY * k));
  };
  for (let f = 0; f < faceCount; f++) visit(f, (cell) => cellStart[cell + 1]++);
  for (let c = 0; c + 1 < cellStart.length; c++) cellStart[c + 1] += cellStart[c];
  const fill = cellStart.slice(0, -1);
  const cellFaces = new Int32Array(cellStart[cellStart.length - 1]);
  for (let f = 0; f < faceCount; f++) visit(f, (cell) => (cellFaces[fill[cell]++] = f));
  return { cellSize, originX: minX, originY: minY, originZ: minZ, dimX, dimY, dimZ, cellStart, cellFaces, boxes };
}
