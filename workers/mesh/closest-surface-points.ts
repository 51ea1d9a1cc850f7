import { closestPointOnTriangle } from '../paint/closest-point-on-triangle.ts';

/** Where each query point's closest point on a triangle mesh lies (libigl's point_mesh_squared_distance). */
export interface ClosestSurfacePoints {
  /** #P triangle holding the closest point; -1 when the mesh has no triangle */
  triangle: Int32Array;
  /** #P × 3 barycentric coordinates of the closest point in that triangle (corners in the triangle's order) */
  barycentric: Float64Array;
  /** #P squared distance from the query to the closest point, mesh units²; Infinity when the mesh has no triangle */
  squaredDistance: Float64Array;
}

/** Triangles a leaf of the hierarchy holds at most. */
const LEAF_SIZE = 4;

/**
 * A bounding-volume hierarchy over triangles: node 0 is the root; an inner node's two children are nodes `child` and
 * `child + 1`; a leaf lists a run of `order`.
 */
interface TriangleBvh {
  /** #nodes × 6: min x y z, max x y z */
  boxes: Float64Array;
  /** #nodes: the first of an inner node's two children, -1 for a leaf */
  child: Int32Array;
  /** #nodes: a leaf's first entry in `order` */
  first: Int32Array;
  /** #nodes: a leaf's triangle count */
  count: Int32Array;
  /** #F triangle indices, grouped by leaf */
  order: Int32Array;
}

/**
 * The closest point on a triangle mesh to each query point, exactly: a bounding-volume hierarchy over the
 * triangles (median split along the longest axis of the centroids' box), searched nearest child first and pruned
 * by the squared distance to each node's box; each triangle is tested with closestPointOnTriangle (Ericson 2005).
 * Consecutive queries start from the previous query's best triangle as a first bound, so a query set in surface
 * order (a mesh's vertices) prunes most of the tree at once.
 *
 * @param positions #V × 3 mesh vertex positions
 * @param triangles #F × 3 vertex indices
 * @param queries   #P × 3 query points, same units
 * @param progress  optional: called with the fraction of queries done, every few thousand queries
 * @param isCancelled optional: polled with progress; when it returns true the search throws an AbortError DOMException
 * @returns per query: the triangle, barycentric coordinates and squared distance
 * @throws RangeError when a triangle names a vertex outside the mesh
 */
export function closestSurfacePoints(
  positions: Float64Array,
  triangles: Uint32Array,
  queries: Float64Array,
  progress?: (fraction: number) => void,
  isCancelled?: () => boolean,
): ClosestSurfacePoints {
  const n = Math.floor(positions.length / 3);
  const faceCount = Math.floor(triangles.length / 3);
  for (let t = 0; t < 3 * faceCount; t++) {
    if (triangles[t] >= n)
      throw new RangeError(`closestSurfacePoints: face ${Math.floor(t / 3)} names vertex ${triangles[t]}, the mesh has ${n}`);
  }
  const queryCount = Math.floor(queries.length / 3);
  const triangle = new Int32Array(queryCount).fill(-1);
  const barycentric = new Float64Array(3 * queryCount);
  const squaredDistance = new Float64Array(queryCount).fill(Infinity);
  if (faceCount === 0) return { triangle, barycentric, squaredDistance };
  const bvh = buildTriangleBvh(positions, triangles);
  const stack = new Int32Array(64 + 2 * Math.ceil(Math.log2(faceCount + 1)));
  const coords = new Float64Array(3);
  let previous = 0;
  for (let q = 0; q < queryCount; q++) {
    if (q % PROGRESS_EVERY === 0 && q > 0) {
      progress?.(q / queryCount);
      if (isCancelled?.()) throw new DOMException('closest surface points cancelled', 'AbortError');
    }
    // The previous query's triangle gives a first bound.
    let best = closestPointOnTriangle(
      queries,
      3 * q,
      positions,
      triangles[3 * previous],
      triangles[3 * previous + 1],
      triangles[3 * previous + 2],
      coords,
      0,
    );
    let bestFace = previous;
    let b0 = coords[0],
      b1 = coords[1],
      b2 = coords[2];
    const px = queries[3 * q],
      py = queries[3 * q + 1],
      pz = queries[3 * q + 2];
    let top = 0;
    stack[top++] = 0;
    while (top > 0) {
      const node = stack[--top];
      if (boxSquaredDistance(bvh.boxes, node, px, py, pz) >= best) continue;
      const child = bvh.child[node];
      if (child < 0) {
        for (let s = bvh.first[node], end = s + bvh.count[node]; s < end; s++) {
          const f = bvh.order[s];
          const d2 = closestPointOnTriangle(
            queries,
            3 * q,
            positions,
            triangles[3 * f],
            triangles[3 * f + 1],
            triangles[3 * f + 2],
            coords,
            0,
          );
          if (d2 < best) {
            best = d2;
            bestFace = f;
            b0 = coords[0];
            b1 = coords[1];
            b2 = coords[2];
          }
        }
        continue;
      }
      // The nearer child is searched first: pushed last.
      const dFirst = boxSquaredDistance(bvh.boxes, child, px, py, pz);
      const dSecond = boxSquaredDistance(bvh.boxes, child + 1, px, py, pz);
      if (dFirst <= dSecond) {
        if (dSecond < best) stack[top++] = child + 1;
        if (dFirst < best) stack[top++] = child;
      } else {
        if (dFirst < best) stack[top++] = child;
        if (dSecond < best) stack[top++] = child + 1;
      }
    }
    triangle[q] = bestFace;
    barycentric[3 * q] = b0;
    barycentric[3 * q + 1] = b1;
    barycentric[3 * q + 2] = b2;
    squaredDistance[q] = best;
    previous = bestFace;
  }
  progress?.(1);
  return { triangle, barycentric, squaredDistance };
}

/** Queries between two progress reports. */
const PROGRESS_EVERY = 4096;

/** Squared distance from (x, y, z) to node's box (0 inside). */
function boxSquaredDistance(boxes: Float64Array, node: number, x: number, y: number, z: number): number {
  const o = 6 * node;
  const dx = Math.max(boxes[o] - x, 0, x - boxes[o + 3]);
  const dy = Math.max(boxes[o + 1] - y, 0, y - boxes[o + 4]);
  const dz = Math.max(boxes[o + 2] - z, 0, z - boxes[o + 5]);
  return dx * dx + dy * dy + dz * dz;
}

/**
 * Builds the hierarchy top-down: each node's triangles are split at the median centroid along the longest axis of
 * the centroids' box (a quickselect on `order`), until a node holds LEAF_SIZE triangles or fewer.
 */
function buildTriangleBvh(positions: Float64Array, triangles: Uint32Array): TriangleBvh {
  const faceCount = Math.floor(triangles.length / 3);
  const centroids = new Float64Array(3 * faceCount);
  const faceBoxes = new Float64Array(6 * faceCount);
  for (let f = 0; f < faceCount; f++) {
    for (let c = 0; c < 3; c++) {
      const a = positions[3 * triangles[3 * f] + c];
      const b = positions[3 * triangles[3 * f + 1] + c];
      const d = positions[3 * triangles[3 * f + 2] + c];
      centroids[3 * f + c] = (a + b + d) / 3;
      faceBoxes[6 * f + c] = Math.min(a, b, d);
      faceBoxes[6 * f + 3 + c] = Math.max(a, b, d);
    }
  }
  // Every split makes two non-empty nodes of a non-leaf: fewer than 2F nodes in all.
  const capacity = Math.max(1, 2 * faceCount);
  const boxes = new Float64Array(6 * capacity);
  const child = new Int32Array(capacity).fill(-1);
  const first = new Int32Array(capacity);
  const count = new Int32Array(capacity);
  const order = new Int32Array(faceCount);
  for (let f = 0; f < faceCount; f++) order[f] = f;
  let nodeCount = 0;
  const newNode = (start: number, end: number): number => {
    const node = nodeCount++;
    first[node] = start;
    count[node] = end - start;
    const o = 6 * node;
    boxes[o] = boxes[o + 1] = boxes[o + 2] = Infinity;
    boxes[o + 3] = boxes[o + 4] = boxes[o + 5] = -Infinity;
    for (let s = start; s < end; s++) {
      const fo = 6 * order[s];
      for (let c = 0; c < 3; c++) {
        if (faceBoxes[fo + c] < boxes[o + c]) boxes[o + c] = faceBoxes[fo + c];
        if (faceBoxes[fo + 3 + c] > boxes[o + 3 + c]) boxes[o + 3 + c] = faceBoxes[fo + 3 + c];
      }
    }
    return node;
  };
  // An explicit work list, so deep trees cannot overflow the call stack; the children are made after their
  // triangles are split, so each node's box is its own triangles'.
  const pending: number[] = [newNode(0, faceCount)];
  while (pending.length > 0) {
    const node = pending.pop()!;
    const start = first[node];
    const end = start + count[node];
    if (end - start <= LEAF_SIZE) continue;
    let lo0 = Infinity,
      lo1 = Infinity,
      lo2 = Infinity,
      hi0 = -Infinity,
      hi1 = -Infinity,
      hi2 = -Infinity;
    for (let s = start; s < end; s++) {
      const o = 3 * order[s];
      lo0 = Math.min(lo0, centroids[o]);
      hi0 = Math.max(hi0, centroids[o]);
      lo1 = Math.min(lo1, centroids[o + 1]);
      hi1 = Math.max(hi1, centroids[o + 1]);
      lo2 = Math.min(lo2, centroids[o + 2]);
      hi2 = Math.max(hi2, centroids[o + 2]);
    }
    const e0 = hi0 - lo0,
      e1 = hi1 - lo1,
      e2 = hi2 - lo2;
    const axis = e0 >= e1 && e0 >= e2 ? 0 : e1 >= e2 ? 1 : 2;
    const middle = (start + end) >> 1;
    selectMedian(order, centroids, axis, start, end, middle);
    child[node] = newNode(start, middle);
    newNode(middle, end);
    pending.push(child[node], child[node] + 1);
  }
  return {
    boxes: boxes.subarray(0, 6 * nodeCount),
    child: child.subarray(0, nodeCount),
    first: first.subarray(0, nodeCount),
    count: count.subarray(0, nodeCount),
    order,
  };
}

/**
 * Reorders order[start, end) so that order[middle] holds the face whose centroid is the median along `axis`, the
 * faces before it not greater and those after not smaller (Hoare's quickselect).
 */
function selectMedian(order: Int32Array, centroids: Float64Array, axis: number, start: number, end: number, middle: number): void {
  let lo = start;
  let hi = end - 1;
  while (lo < hi) {
    const pivot = centroids[3 * order[(lo + hi) >> 1] + axis];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (centroids[3 * order[i] + axis] < pivot) i++;
      while (centroids[3 * order[j] + axis] > pivot) j--;
      if (i <= j) {
        const t = order[i];
        order[i] = order[j];
        order[j] = t;
        i++;
        j--;
      }
    }
    if (middle <= j) hi = j;
    else if (middle >= i) lo = i;
    else return;
  }
}
