/**
 * The generalized winding number of a triangle soup (Jacobson, Kavan and Sorkine-Hornung 2013, "Robust
 * Inside-Outside Segmentation using Generalized Winding Numbers", Eq. 5): w(q) = Σ_f Ω_f(q) / 4π, the signed solid
 * angles of the triangles seen from q over the whole sphere. It is 1 inside and 0 outside a closed, consistently
 * oriented mesh, k inside k nested layers, and degrades gracefully where the mesh has holes, gaps or
 * self-intersections (a point near a hole takes a value between 0 and 1), so w > 1/2 is a robust inside test.
 */

export interface WindingNumberOptions {
  /**
   * Accuracy parameter β of the hierarchical evaluation (Jacobson et al. 2013, Sec. 3.2): a cluster of triangles
   * whose centre is farther from the query than β × its radius counts as one dipole (its area-weighted normal at its
   * area-weighted centre); nearer clusters are opened, and leaves near the query summed exactly. Larger is more
   * accurate and slower; 0 sums every triangle exactly.
   */
  accuracy?: number;
}

export const WINDING_NUMBER_DEFAULTS: Required<WindingNumberOptions> = { accuracy: 2 };

/** Most triangles in a leaf of the tree. */
const LEAF_SIZE = 8;

/**
 * A bounding volume hierarchy over a mesh's triangles, with each node's dipole: the sum of its triangles' area
 * vectors (½ (b − a) × (c − a)), their area-weighted centre and the radius of the ball about that centre that holds
 * every corner.
 */
export interface WindingNumberTree {
  /** #V × 3 the mesh's positions (not copied) */
  positions: Float64Array;
  /** #F × 3 the mesh's triangles (not copied) */
  triangles: Uint32Array;
  /** #F the triangles in tree order: node k's triangles are order[start[k] .. start[k] + count[k]) */
  order: Uint32Array;
  /** #nodes first position in `order` of each node's triangles */
  start: Int32Array;
  /** #nodes triangle count of each node */
  count: Int32Array;
  /** #nodes first child of each inner node (the second is the next one), −1 for leaves */
  child: Int32Array;
  /** #nodes × 3 area-weighted centres */
  centre: Float64Array;
  /** #nodes × 3 area vectors (sum of the triangles' ½ (b − a) × (c − a)) */
  dipole: Float64Array;
  /** #nodes radius about the centre holding every corner of the node's triangles */
  radius: Float64Array;
}

/**
 * Builds the tree: triangles split at the median of their centroids along the longest side of the centroids' box,
 * down to LEAF_SIZE triangles per leaf. O(#F log #F).
 *
 * @param positions #V × 3 positions
 * @param triangles #F × 3 vertex indices
 * @throws RangeError naming the face when a face names a missing vertex
 */
export function windingNumberTree(positions: Float64Array, triangles: Uint32Array): WindingNumberTree {
  const n = Math.floor(positions.length / 3);
  const faceCount = Math.floor(triangles.length / 3);
  for (let f = 0; f < 3 * faceCount; f++)
    if (triangles[f] >= n)
      throw new RangeError(`windingNumberTree: face ${Math.floor(f / 3)} names vertex ${triangles[f]}, there are ${n}`);
  const centroid = new Float64Array(3 * faceCount);
  for (let f = 0; f < faceCount; f++) {
    for (let k = 0; k < 3; k++) {
      const a = positions[3 * triangles[3 * f] + k];
      const b = positions[3 * triangles[3 * f + 1] + k];
      const c = positions[3 * triangles[3 * f + 2] + k];
      centroid[3 * f + k] = (a + b + c) / 3;
    }
  }
  const order = new Uint32Array(faceCount);
  for (let f = 0; f < faceCount; f++) order[f] = f;
  const capacity = Math.max(1, 2 * Math.ceil(faceCount / (LEAF_SIZE / 2)));
  const start = new Int32Array(capacity);
  const count = new Int32Array(capacity);
  const child = new Int32Array(capacity).fill(-1);
  let nodes = 1;
  count[0] = faceCount;
  // Nodes are made breadth first; each is split when it is made into two children placed side by side.
  for (let k = 0; k < nodes; k++) {
    if (count[k] <= LEAF_SIZE) continue;
    const s = start[k];
    const m = count[k];
    let axis = 0;
    let widest = -1;
    for (let d = 0; d < 3; d++) {
      let lo = Infinity;
      let hi = -Infinity;
      for (let i = s; i < s + m; i++) {
        const x = centroid[3 * order[i] + d];
        if (x < lo) lo = x;
        if (x > hi) hi = x;
      }
      if (hi - lo > widest) {
        widest = hi - lo;
        axis = d;
      }
    }
    const half = m >> 1;
    selectByCentroid(order, s, s + m - 1, s + half, centroid, axis);
    child[k] = nodes;
    start[nodes] = s;
    count[nodes] = half;
    start[nodes + 1] = s + half;
    count[nodes + 1] = m - half;
    nodes += 2;
  }
  const centre = new Float64Array(3 * nodes);
  const dipole = new Float64Array(3 * nodes);
  const radius = new Float64Array(nodes);
  for (let k = 0; k < nodes; k++) nodeDipole(positions, triangles, order, start[k], count[k], k, centre, dipole, radius, centroid);
  return {
    positions,
    triangles,
    order,
    start: start.slice(0, nodes),
    count: count.slice(0, nodes),
    child: child.slice(0, nodes),
    centre,
    dipole,
    radius,
  };
}

/** Reorders order[lo..hi] so that order[nth] holds the triangle of the nth smallest centroid along `axis`, smaller ones before it. */
function selectByCentroid(order: Uint32Array, lo: number, hi: number, nth: number, centroid: Float64Array, axis: number): void {
  while (hi > lo) {
    const pivot = centroid[3 * order[(lo + hi) >> 1] + axis];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (centroid[3 * order[i] + axis] < pivot) i++;
      while (centroid[3 * order[j] + axis] > pivot) j--;
      if (i <= j) {
        const t = order[i];
        order[i++] = order[j];
        order[j--] = t;
      }
    }
    if (nth <= j) hi = j;
    else if (nth >= i) lo = i;
    else return;
  }
}

/** Writes node k's area-weighted centre, area vector and radius (the centroids' mean for a node of zero area). */
function nodeDipole(
  positions: Float64Array,
  triangles: Uint32Array,
  order: Uint32Array,
  s: number,
  m: number,
  k: number,
  centre: Float64Array,
  dipole: Float64Array,
  radius: Float64Array,
  centroid: Float64Array,
): void {
  let area = 0;
  let cx = 0;
  let cy = 0;
  let cz = 0;
  let mx = 0;
  let my = 0;
  let mz = 0;
  let nx = 0;
  let ny = 0;
  let nz = 0;
  for (let i = s; i < s + m; i++) {
    const f = order[i];
    const a = 3 * triangles[3 * f];
    const b = 3 * triangles[3 * f + 1];
    const c = 3 * triangles[3 * f + 2];
    const ux = positions[b] - positions[a];
    const uy = positions[b + 1] - positions[a + 1];
    const uz = positions[b + 2] - positions[a + 2];
    const vx = positions[c] - positions[a];
    const vy = positions[c + 1] - positions[a + 1];
    const vz = positions[c + 2] - positions[a + 2];
    const x = 0.5 * (uy * vz - uz * vy);
    const y = 0.5 * (uz * vx - ux * vz);
    const z = 0.5 * (ux * vy - uy * vx);
    nx += x;
    ny += y;
    nz += z;
    const faceArea = Math.hypot(x, y, z);
    area += faceArea;
    cx += faceArea * centroid[3 * f];
    cy += faceArea * centroid[3 * f + 1];
    cz += faceArea * centroid[3 * f + 2];
    mx += centroid[3 * f];
    my += centroid[3 * f + 1];
    mz += centroid[3 * f + 2];
  }
  if (area > 0) {
    cx /= area;
    cy /= area;
    cz /= area;
  } else {
    cx = mx / m;
    cy = my / m;
    cz = mz / m;
  }
  let r2 = 0;
  for (let i = s; i < s + m; i++) {
    const f = order[i];
    for (let corner = 0; corner < 3; corner++) {
      const p = 3 * triangles[3 * f + corner];
      const dx = positions[p] - cx;
      const dy = positions[p + 1] - cy;
      const dz = positions[p + 2] - cz;
      const d2 = dx * dx + dy * dy + dz * dz;
      if (d2 > r2) r2 = d2;
    }
  }
  centre[3 * k] = cx;
  centre[3 * k + 1] = cy;
  centre[3 * k + 2] = cz;
  dipole[3 * k] = nx;
  dipole[3 * k + 1] = ny;
  dipole[3 * k + 2] = nz;
  radius[k] = Math.sqrt(r2);
}

const FOUR_PI = 4 * Math.PI;

/**
 * Signed solid angle of triangle (a, b, c) seen from q, by Van Oosterom and Strackee (1983):
 * tan(Ω/2) = a·(b × c) / (|a||b||c| + (a·b)|c| + (b·c)|a| + (c·a)|b|) with a, b, c the corners relative to q.
 * Positive when the triangle's counter-clockwise side faces away from q. 0 when q is on the triangle's plane.
 */
function solidAngle(positions: Float64Array, a: number, b: number, c: number, qx: number, qy: number, qz: number): number {
  const ax = positions[a] - qx;
  const ay = positions[a + 1] - qy;
  const az = positions[a + 2] - qz;
  const bx = positions[b] - qx;
  const by = positions[b + 1] - qy;
  const bz = positions[b + 2] - qz;
  const cx = positions[c] - qx;
  const cy = positions[c + 1] - qy;
  const cz = positions[c + 2] - qz;
  const la = Math.sqrt(ax * ax + ay * ay + az * az);
  const lb = Math.sqrt(bx * bx + by * by + bz * bz);
  const lc = Math.sqrt(cx * cx + cy * cy + cz * cz);
  const det = ax * (by * cz - bz * cy) + ay * (bz * cx - bx * cz) + az * (bx * cy - by * cx);
  const den = la * lb * lc + (ax * bx + ay * by + az * bz) * lc + (bx * cx + by * cy + bz * cz) * la + (cx * ax + cy * ay + cz * az) * lb;
  return 2 * Math.atan2(det, den);
}

/** Scratch stack of node indices for windingNumberAt (the tree is at most about 2 log2 #F deep; 64 per level is plenty). */
let stack = new Int32Array(256);

/**
 * The winding number at one point from the tree: exact (every triangle's solid angle) when `accuracy` is 0, else
 * clusters farther than accuracy × their radius count as dipoles: Ω ≈ N·(p̄ − q) / |p̄ − q|³ (the solid angle of a
 * small patch of area vector N at p̄).
 *
 * @param tree     from windingNumberTree
 * @param qx       query point, mesh units (also qy, qz)
 * @param accuracy β (see WindingNumberOptions)
 * @returns w(q); about 1 inside a closed outward-facing mesh, 0 outside
 */
export function windingNumberAt(tree: WindingNumberTree, qx: number, qy: number, qz: number, accuracy: number): number {
  const { positions, triangles, order, start, count, child, centre, dipole, radius } = tree;
  if (count.length === 0 || count[0] === 0) return 0;
  const beta2 = accuracy * accuracy;
  let top = 0;
  stack[top++] = 0;
  let total = 0;
  while (top > 0) {
    const k = stack[--top];
    const dx = centre[3 * k] - qx;
    const dy = centre[3 * k + 1] - qy;
    const dz = centre[3 * k + 2] - qz;
    const d2 = dx * dx + dy * dy + dz * dz;
    const r = radius[k];
    if (accuracy > 0 && d2 > beta2 * r * r) {
      total += (dipole[3 * k] * dx + dipole[3 * k + 1] * dy + dipole[3 * k + 2] * dz) / (d2 * Math.sqrt(d2));
      continue;
    }
    const c = child[k];
    if (c >= 0) {
      if (top + 2 > stack.length) {
        const larger = new Int32Array(2 * stack.length);
        larger.set(stack);
        stack = larger;
      }
      stack[top++] = c;
      stack[top++] = c + 1;
      continue;
    }
    for (let i = start[k]; i < start[k] + count[k]; i++) {
      const f = 3 * order[i];
      total += solidAngle(positions, 3 * triangles[f], 3 * triangles[f + 1], 3 * triangles[f + 2], qx, qy, qz);
    }
  }
  return total / FOUR_PI;
}

/**
 * Generalized winding numbers at many points.
 *
 * @param positions #V × 3 mesh positions
 * @param triangles #F × 3 vertex indices (orientation counts: counter-clockwise seen from outside)
 * @param queries   #Q × 3 query points
 * @param options   see WindingNumberOptions
 * @returns #Q winding numbers
 */
export function windingNumbers(
  positions: Float64Array,
  triangles: Uint32Array,
  queries: Float64Array,
  options: WindingNumberOptions = {},
): Float64Array {
  const accuracy = options.accuracy ?? WINDING_NUMBER_DEFAULTS.accuracy;
  if (!(accuracy >= 0 && Number.isFinite(accuracy)))
    throw new RangeError(`windingNumbers: the accuracy must be a finite number ≥ 0, not ${accuracy}`);
  const tree = windingNumberTree(positions, triangles);
  const q = Math.floor(queries.length / 3);
  const out = new Float64Array(q);
  for (let i = 0; i < q; i++) out[i] = windingNumberAt(tree, queries[3 * i], queries[3 * i + 1], queries[3 * i + 2], accuracy);
  return out;
}
