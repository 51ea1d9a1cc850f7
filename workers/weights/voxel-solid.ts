/**
 * The solid a mesh encloses, as voxels (the volumetric binding's first stage, volumetric-weights.ts): a grid over the
 * mesh's box, the voxels a triangle crosses (separating-axis test, Akenine-Möller 2001) and the voxels the generalized
 * winding number puts inside (Jacobson et al. 2013), decided region by region or block by block.
 */
import { boundingBox } from '../mesh/bounds.ts';
import { windingNumberAt, windingNumberTree, type WindingNumberTree } from '../mesh/winding-number.ts';

/**
 * The solid voxels of a mesh: those a triangle crosses and those inside (winding number above ½), numbered in grid
 * order. See volumetricWeights, step 1.
 * @param positions #V × 3 positions, mesh units (welded: distinct)
 * @param triangles #F × 3 vertex indices
 * @param grid      makeGrid's grid over the positions
 * @param closed    whether the mesh has no boundary or non-manifold edge (its winding number is then constant on each
 *                  region the surface voxels enclose, and a few samples decide a region)
 * @param accuracy  the winding number's accuracy β (WindingNumberOptions.accuracy)
 * @param checkCancelled throws to stop, called between stages and regions
 * @returns the solid voxels, how many a triangle crosses, and how many winding numbers were evaluated
 */
export function voxelizeSolid(
  positions: Float64Array,
  triangles: Uint32Array,
  grid: Grid,
  closed: boolean,
  accuracy: number,
  checkCancelled: () => void,
): { solid: Solid; surfaceVoxels: number; windingEvaluations: number } {
  const state = new Uint8Array(grid.nx * grid.ny * grid.nz);
  const surfaceVoxels = markSurface(positions, triangles, grid, state);
  checkCancelled();
  const windingEvaluations = markInside(positions, triangles, grid, state, accuracy, closed, checkCancelled);
  return { solid: compactSolid(state, grid), surfaceVoxels, windingEvaluations };
}

/** The voxel grid: voxel (i, j, l) spans origin + h·[i, i+1) × … and has linear index i + nx (j + ny l). */
export interface Grid {
  nx: number;
  ny: number;
  nz: number;
  h: number;
  ox: number;
  oy: number;
  oz: number;
  /** the bounding box's longest side */
  longest: number;
}

/** Voxels of margin around the mesh's box: solid voxels never touch the grid's border, so neighbour offsets never wrap. */
const MARGIN = 2;

/**
 * The grid over the mesh's bounding box, `resolution` voxels along its longest side and MARGIN voxels more on each
 * side, centred on the box.
 * @param positions #V × 3 positions, mesh units
 */
export function makeGrid(positions: Float64Array, resolution: number): Grid {
  const { min, max } = boundingBox(positions);
  const sides = [max[0] - min[0], max[1] - min[1], max[2] - min[2]];
  const longest = Math.max(sides[0], sides[1], sides[2]) || 1;
  const h = longest / resolution;
  const count = sides.map((s) => Math.max(1, Math.ceil(s / h)) + 2 * MARGIN);
  // Centred on the box, so the margin is the same on both sides.
  const origin = sides.map((s, a) => (min[a] + max[a]) / 2 - (count[a] * h) / 2);
  return { nx: count[0], ny: count[1], nz: count[2], h, ox: origin[0], oy: origin[1], oz: origin[2], longest };
}

/** Voxel states while voxelizing. */
const UNKNOWN = 0;
const SURFACE = 1;
const INSIDE = 2;
const OUTSIDE = 3;
const VISITED = 4;

/**
 * Marks every voxel a triangle crosses SURFACE (triangle–box separating-axis test, Akenine-Möller 2001: the box's
 * axes, the triangle's normal and the nine cross products of their edges; the box grown by a hair so that a triangle
 * on a voxel face marks both voxels).
 * @returns the number of voxels marked
 */
function markSurface(positions: Float64Array, triangles: Uint32Array, grid: Grid, state: Uint8Array): number {
  const { nx, ny, h, ox, oy, oz } = grid;
  const e = 0.5 * h * (1 + 1e-9);
  const v = new Float64Array(9);
  let marked = 0;
  for (let f = 0; f < triangles.length; f += 3) {
    let lo0 = Infinity;
    let lo1 = Infinity;
    let lo2 = Infinity;
    let hi0 = -Infinity;
    let hi1 = -Infinity;
    let hi2 = -Infinity;
    for (let c = 0; c < 3; c++) {
      const p = 3 * triangles[f + c];
      const x = positions[p];
      const y = positions[p + 1];
      const z = positions[p + 2];
      if (x < lo0) lo0 = x;
      if (x > hi0) hi0 = x;
      if (y < lo1) lo1 = y;
      if (y > hi1) hi1 = y;
      if (z < lo2) lo2 = z;
      if (z > hi2) hi2 = z;
    }
    const i0 = Math.max(0, Math.floor((lo0 - ox) / h - 1e-9));
    const i1 = Math.min(grid.nx - 1, Math.floor((hi0 - ox) / h + 1e-9));
    const j0 = Math.max(0, Math.floor((lo1 - oy) / h - 1e-9));
    const j1 = Math.min(grid.ny - 1, Math.floor((hi1 - oy) / h + 1e-9));
    const l0 = Math.max(0, Math.floor((lo2 - oz) / h - 1e-9));
    const l1 = Math.min(grid.nz - 1, Math.floor((hi2 - oz) / h + 1e-9));
    for (let l = l0; l <= l1; l++)
      for (let j = j0; j <= j1; j++)
        for (let i = i0; i <= i1; i++) {
          const cell = i + nx * (j + ny * l);
          if (state[cell] === SURFACE) continue;
          const cx = ox + (i + 0.5) * h;
          const cy = oy + (j + 0.5) * h;
          const cz = oz + (l + 0.5) * h;
          for (let c = 0; c < 3; c++) {
            const p = 3 * triangles[f + c];
            v[3 * c] = positions[p] - cx;
            v[3 * c + 1] = positions[p + 1] - cy;
            v[3 * c + 2] = positions[p + 2] - cz;
          }
          if (triangleOverlapsBox(v, e)) {
            state[cell] = SURFACE;
            marked++;
          }
        }
  }
  return marked;
}

/**
 * Whether the triangle v (3 × 3, relative to the box's centre) overlaps the cube of half side e about the origin
 * (Akenine-Möller 2001; the box-axis tests are done by the caller's choice of voxels, and repeated here cheaply).
 */
function triangleOverlapsBox(v: Float64Array, e: number): boolean {
  for (let a = 0; a < 3; a++) {
    const p0 = v[a];
    const p1 = v[3 + a];
    const p2 = v[6 + a];
    if (Math.min(p0, p1, p2) > e || Math.max(p0, p1, p2) < -e) return false;
  }
  // Edges f0 = v1 − v0, f1 = v2 − v1, f2 = v0 − v2; axes e_a × f_j.
  for (let j = 0; j < 3; j++) {
    const s = 3 * j;
    const t = 3 * ((j + 1) % 3);
    const fx = v[t] - v[s];
    const fy = v[t + 1] - v[s + 1];
    const fz = v[t + 2] - v[s + 2];
    // (1,0,0) × f = (0, −fz, fy); (0,1,0) × f = (fz, 0, −fx); (0,0,1) × f = (−fy, fx, 0)
    if (separates(v, 0, -fz, fy, e)) return false;
    if (separates(v, fz, 0, -fx, e)) return false;
    if (separates(v, -fy, fx, 0, e)) return false;
  }
  const ux = v[3] - v[0];
  const uy = v[4] - v[1];
  const uz = v[5] - v[2];
  const wx = v[6] - v[0];
  const wy = v[7] - v[1];
  const wz = v[8] - v[2];
  return !separates(v, uy * wz - uz * wy, uz * wx - ux * wz, ux * wy - uy * wx, e);
}

/** Whether axis (ax, ay, az) separates triangle v from the cube of half side e about the origin. */
function separates(v: Float64Array, ax: number, ay: number, az: number, e: number): boolean {
  const p0 = ax * v[0] + ay * v[1] + az * v[2];
  const p1 = ax * v[3] + ay * v[4] + az * v[5];
  const p2 = ax * v[6] + ay * v[7] + az * v[8];
  const r = e * (Math.abs(ax) + Math.abs(ay) + Math.abs(az));
  return Math.min(p0, p1, p2) > r || Math.max(p0, p1, p2) < -r;
}

/** A winding number this far from ½ or farther decides a whole region from its samples. */
const CLEAR_MARGIN = 0.25;

/**
 * Decides INSIDE or OUTSIDE for every voxel that is not SURFACE, region by region (regions: voxels connected through
 * faces without crossing a SURFACE voxel). A first flood counts the region and samples the winding number at its
 * seed and at the 2nd, 4th, 8th … voxel reached (ever farther from the seed); if the mesh is `closed` (no boundary
 * or non-manifold edge after welding: the winding number is then constant on the region) and every sample is on the
 * same side of ½ by CLEAR_MARGIN, the second flood gives the region that side, else marks it PENDING for
 * decideByBlocks. An open mesh's inside leaks through its holes into the outside's region, where a few samples would
 * miss it.
 * @returns the number of winding numbers evaluated
 */
function markInside(
  positions: Float64Array,
  triangles: Uint32Array,
  grid: Grid,
  state: Uint8Array,
  accuracy: number,
  closed: boolean,
  checkCancelled: () => void,
): number {
  const { nx, ny, nz, h, ox, oy, oz } = grid;
  // A closed mesh needs a few evaluations per region: the first EXACT_EVALUATIONS are summed over every triangle,
  // which costs less than building the tree; the tree is built when more are needed.
  let tree: WindingNumberTree | null = null;
  const exactTree = singleLeaf(positions, triangles);
  const queue = new GrowingQueue();
  const stride = [1, -1, nx, -nx, nx * ny, -nx * ny];
  let evaluations = 0;
  let anyPending = false;
  const windingOf = (cell: number): number => {
    evaluations++;
    const i = cell % nx;
    const j = Math.floor(cell / nx) % ny;
    const l = Math.floor(cell / (nx * ny));
    if (evaluations > EXACT_EVALUATIONS) tree ??= windingNumberTree(positions, triangles);
    return windingNumberAt(tree ?? exactTree, ox + (i + 0.5) * h, oy + (j + 0.5) * h, oz + (l + 0.5) * h, tree ? accuracy : 0);
  };
  const total = nx * ny * nz;
  for (let seed = 0; seed < total; seed++) {
    if (state[seed] !== UNKNOWN) continue;
    checkCancelled();
    // First flood: count and sample.
    let visited = 0;
    let nextSample = 1;
    let inside = 0;
    let outside = 0;
    let unclear = 0;
    queue.clear();
    queue.push(seed);
    state[seed] = VISITED;
    while (queue.size > 0) {
      const cell = queue.shift();
      visited++;
      if (visited === nextSample) {
        nextSample *= 2;
        const w = windingOf(cell);
        if (w > 0.5 + CLEAR_MARGIN) inside++;
        else if (w < 0.5 - CLEAR_MARGIN) outside++;
        else unclear++;
      }
      pushUnvisitedNeighbours(cell, stride, grid, state, UNKNOWN, VISITED, queue);
    }
    const uniform = closed && unclear === 0 && (inside === 0 || outside === 0);
    const side = uniform ? (inside > 0 ? INSIDE : OUTSIDE) : PENDING;
    if (side === PENDING) anyPending = true;
    // Second flood: the region's side, or PENDING for decideByBlocks.
    queue.clear();
    queue.push(seed);
    state[seed] = side;
    while (queue.size > 0) pushUnvisitedNeighbours(queue.shift(), stride, grid, state, VISITED, side, queue);
  }
  if (anyPending) decideByBlocks(grid, state, windingOf, checkCancelled);
  return evaluations;
}

/** A region whose samples disagree, waiting for decideByBlocks. */
const PENDING = 5;

/**
 * How far from ½ a block's corners must all be for decideByBlocks to give it their side: less than CLEAR_MARGIN, since
 * a block is small and the winding number varies little over it away from the surface (inside an open box it stays
 * well above ½ but under ¾ near the opening).
 */
const BLOCK_MARGIN = 0.1;

/** Side of the blocks decideByBlocks decides from their corners. */
const BLOCK = 4;

/**
 * Decides the PENDING voxels (regions where the winding number varies: open meshes, near holes) block by block: a
 * block of BLOCK³ voxels that no triangle crosses takes the side its eight corner voxels agree on (clearly, by
 * BLOCK_MARGIN) — the winding number is harmonic away from the surface, so it varies slowly there; any other block
 * has the winding number evaluated at each of its pending voxels. Corner values are shared between blocks.
 */
function decideByBlocks(grid: Grid, state: Uint8Array, windingOf: (cell: number) => number, checkCancelled: () => void): void {
  const { nx, ny, nz } = grid;
  const bx = Math.ceil(nx / BLOCK);
  const by = Math.ceil(ny / BLOCK);
  const bz = Math.ceil(nz / BLOCK);
  const corners = new Float32Array((bx + 1) * (by + 1) * (bz + 1)).fill(NaN);
  const corner = (ci: number, cj: number, cl: number): number => {
    const c = ci + (bx + 1) * (cj + (by + 1) * cl);
    if (Number.isNaN(corners[c])) {
      const i = Math.min(ci * BLOCK, nx - 1);
      const j = Math.min(cj * BLOCK, ny - 1);
      const l = Math.min(cl * BLOCK, nz - 1);
      corners[c] = windingOf(i + nx * (j + ny * l));
    }
    return corners[c];
  };
  for (let bl = 0; bl < bz; bl++) {
    checkCancelled();
    for (let bj = 0; bj < by; bj++)
      for (let bi = 0; bi < bx; bi++) {
        let pending = 0;
        let surface = false;
        for (let l = bl * BLOCK; l < Math.min(nz, (bl + 1) * BLOCK); l++)
          for (let j = bj * BLOCK; j < Math.min(ny, (bj + 1) * BLOCK); j++)
            for (let i = bi * BLOCK; i < Math.min(nx, (bi + 1) * BLOCK); i++) {
              const st = state[i + nx * (j + ny * l)];
              if (st === PENDING) pending++;
              else if (st === SURFACE) surface = true;
            }
        if (pending === 0) continue;
        let side = UNKNOWN;
        if (!surface) {
          let above = 0;
          let below = 0;
          for (let k = 0; k < 8; k++) {
            const w = corner(bi + (k & 1), bj + ((k >> 1) & 1), bl + (k >> 2));
            if (w > 0.5 + BLOCK_MARGIN) above++;
            else if (w < 0.5 - BLOCK_MARGIN) below++;
          }
          side = above === 8 ? INSIDE : below === 8 ? OUTSIDE : UNKNOWN;
        }
        for (let l = bl * BLOCK; l < Math.min(nz, (bl + 1) * BLOCK); l++)
          for (let j = bj * BLOCK; j < Math.min(ny, (bj + 1) * BLOCK); j++)
            for (let i = bi * BLOCK; i < Math.min(nx, (bi + 1) * BLOCK); i++) {
              const cell = i + nx * (j + ny * l);
              if (state[cell] !== PENDING) continue;
              state[cell] = side !== UNKNOWN ? side : windingOf(cell) > 0.5 ? INSIDE : OUTSIDE;
            }
      }
  }
}

/** Winding numbers evaluated exactly before the tree is built (see markInside). */
const EXACT_EVALUATIONS = 32;

/** A tree of one leaf holding every triangle: windingNumberAt on it with accuracy 0 sums them all. */
function singleLeaf(positions: Float64Array, triangles: Uint32Array): WindingNumberTree {
  const faceCount = Math.floor(triangles.length / 3);
  const order = new Uint32Array(faceCount);
  for (let f = 0; f < faceCount; f++) order[f] = f;
  return {
    positions,
    triangles,
    order,
    start: Int32Array.of(0),
    count: Int32Array.of(faceCount),
    child: Int32Array.of(-1),
    centre: new Float64Array(3),
    dipole: new Float64Array(3),
    radius: Float64Array.of(Infinity),
  };
}

/** Pushes the face neighbours of `cell` whose state is `from` onto the queue, setting their state to `to`. */
function pushUnvisitedNeighbours(
  cell: number,
  stride: number[],
  grid: Grid,
  state: Uint8Array,
  from: number,
  to: number,
  queue: GrowingQueue,
): void {
  const { nx, ny, nz } = grid;
  const i = cell % nx;
  const j = Math.floor(cell / nx) % ny;
  const l = Math.floor(cell / (nx * ny));
  for (let d = 0; d < 6; d++) {
    if ((d === 0 && i === nx - 1) || (d === 1 && i === 0)) continue;
    if ((d === 2 && j === ny - 1) || (d === 3 && j === 0)) continue;
    if ((d === 4 && l === nz - 1) || (d === 5 && l === 0)) continue;
    const next = cell + stride[d];
    if (state[next] !== from) continue;
    state[next] = to;
    queue.push(next);
  }
}

/** A FIFO queue of voxel indices that grows as needed (a flood's frontier). */
class GrowingQueue {
  private items = new Int32Array(1024);
  private head = 0;
  private tail = 0;
  get size(): number {
    return this.tail - this.head;
  }
  clear(): void {
    this.head = this.tail = 0;
  }
  push(x: number): void {
    if (this.tail === this.items.length) {
      const live = this.tail - this.head;
      const items = live * 2 > this.items.length ? new Int32Array(this.items.length * 2) : this.items;
      items.copyWithin(0, this.head, this.tail);
      if (items !== this.items) items.set(this.items.subarray(this.head, this.tail));
      this.items = items;
      this.head = 0;
      this.tail = live;
    }
    this.items[this.tail++] = x;
  }
  shift(): number {
    return this.items[this.head++];
  }
  /** the q-th live item from the head, q in [0, size) */
  at(q: number): number {
    return this.items[this.head + q];
  }
}

/** The solid voxels numbered in grid order. */
export interface Solid {
  count: number;
  /** #S linear grid index of each solid voxel */
  cell: Int32Array;
  /** #grid solid index of each voxel, −1 for the others */
  index: Int32Array;
}

/**
 * Numbers the solid voxels. The grid's outermost layer is never solid (no triangle reaches the margin, and a point
 * outside the mesh's convex hull has a winding number of at most ½), which is enforced here so that the neighbour
 * offsets of a solid voxel never leave the grid.
 */
function compactSolid(state: Uint8Array, grid: Grid): Solid {
  const { nx, ny, nz } = grid;
  const index = new Int32Array(state.length);
  let count = 0;
  for (let c = 0; c < state.length; c++) {
    const i = c % nx;
    const j = Math.floor(c / nx) % ny;
    const l = Math.floor(c / (nx * ny));
    const border = i === 0 || j === 0 || l === 0 || i === nx - 1 || j === ny - 1 || l === nz - 1;
    index[c] = !border && (state[c] === SURFACE || state[c] === INSIDE) ? count++ : -1;
  }
  const cell = new Int32Array(count);
  for (let c = 0; c < state.length; c++) if (index[c] >= 0) cell[index[c]] = c;
  return { count, cell, index };
}
