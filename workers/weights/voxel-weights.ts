/**
 * Weights from the voxels' geodesic distances to their nearest bones, smoothed through the solid, and carried to the
 * vertices (the volumetric binding's fourth and fifth stages, volumetric-weights.ts).
 */
import type { Grid, Solid } from './voxel-solid.ts';

/** Distances below this many default voxels count as this many (a voxel on the bone has finite weight). */
const NEAREST = 0.5;

/** How many voxels (or vertices) the loops go through between two polls for cancel. */
const POLL_EVERY = 1 << 16;

/**
 * #S × K weights from the K nearest bones' distances, d^−falloff, each row normalized; a voxel no bone reached has a
 * row of zeros.
 * @param unit           the distance unit, mesh units (a voxel of the default grid)
 * @param checkCancelled throws to stop, called every POLL_EVERY voxels
 */
export function weightsFromDistances(
  nearestDistance: Float32Array,
  nearestBone: Int16Array,
  k: number,
  falloff: number,
  unit: number,
  checkCancelled: () => void = () => {},
): Float32Array {
  const out = new Float32Array(nearestDistance.length);
  for (let row = 0; row < out.length; row += k) {
    if ((row / k) % POLL_EVERY === 0) checkCancelled();
    let sum = 0;
    // Relative to the nearest bone's (d_0 / d)^falloff, which cannot underflow.
    const nearest = Math.max(NEAREST, nearestDistance[row] / unit);
    for (let i = 0; i < k; i++) {
      if (nearestBone[row + i] < 0) break;
      const d = Math.max(NEAREST, nearestDistance[row + i] / unit);
      const w = (nearest / d) ** falloff;
      out[row + i] = w;
      sum += w;
    }
    if (sum > 0) for (let i = 0; i < k; i++) out[row + i] /= sum;
  }
  return out;
}

/**
 * The graph the smoothing runs on: node u's neighbours, itself first, are `neighbours[start[u] .. start[u + 1])`, each
 * listed once.
 */
export interface SmoothingGraph {
  /** #N nodes */
  count: number;
  /** #N + 1 offsets into `neighbours` */
  start: Int32Array;
  /** each node's own number and then its neighbours' */
  neighbours: Int32Array;
}

/**
 * The smoothing's graph on the grid's own voxels: each node is a solid voxel, numbered as the voxel, and lists itself
 * and then its solid face neighbours in the order +x, −x, +y, −y, +z, −z (the 7-point table of the default grid and
 * coarser ones). Built in two sweeps (the neighbours counted, then listed), so nothing is copied.
 * Memory: 4 bytes per solid voxel for the offsets and 4 per listed neighbour, a voxel listing itself and at most six:
 * at most 32 bytes per solid voxel, nothing more while it is built.
 * @param grid           the grid of the solid
 * @param solid          its solid voxels (none in the grid's outermost layer)
 * @param checkCancelled throws to stop, called every POLL_EVERY voxels of each sweep
 */
export function voxelGraph(grid: Grid, solid: Solid, checkCancelled: () => void = () => {}): SmoothingGraph {
  const { nx, ny } = grid;
  const faces = [1, -1, nx, -nx, nx * ny, -nx * ny];
  const { count, cell, index } = solid;
  const start = new Int32Array(count + 1);
  for (let s = 0; s < count; s++) {
    if ((s & (POLL_EVERY - 1)) === 0) checkCancelled();
    let listed = 1;
    for (let o = 0; o < 6; o++) if (index[cell[s] + faces[o]] >= 0) listed++;
    start[s + 1] = start[s] + listed;
  }
  const neighbours = new Int32Array(start[count]);
  for (let s = 0; s < count; s++) {
    if ((s & (POLL_EVERY - 1)) === 0) checkCancelled();
    let q = start[s];
    neighbours[q++] = s;
    for (let o = 0; o < 6; o++) {
      const u = index[cell[s] + faces[o]];
      if (u >= 0) neighbours[q++] = u;
    }
  }
  return { count, start, neighbours };
}

/**
 * The smoothing's graph over the solid voxels of a grid finer than the default, aggregated to the cells of the
 * default grid: the nodes are the connected pieces of the solid voxels inside each coarse cell (a voxel belongs to the
 * cell holding its centre; connected through the faces of voxels of that cell), and two nodes are neighbours when some
 * voxel of one is a face neighbour of some voxel of the other. So parts the fine grid separates stay apart, however
 * close, while a pass still blends over about one coarse voxel. Given the grid itself (or a coarser one) as `coarse`,
 * each node is one voxel, numbered as the voxel, and the graph is voxelGraph's (which the binding uses there, without
 * the per-voxel arrays made here).
 * Memory per solid voxel: 16 bytes while the graph is built (the coarse cell, the node, the nodes' members in order,
 * their starts), of which the node (4) is returned. Per node: the offsets (4), the cell (4, returned), the marks
 * while the neighbours are listed (4) and the listed neighbours, 4 bytes each (the node itself and at most one
 * neighbour per outer face of its voxels; a node of a solid region lists about 7): the list grows by doubling from
 * 7 per node and is copied to its length at the end, so up to three times its length while built.
 * @param grid           the grid of the solid
 * @param solid          its solid voxels (none in the grid's outermost layer)
 * @param coarse         the grid whose cells aggregate the voxels (the default resolution's over the same mesh)
 * @param checkCancelled throws to stop: called every POLL_EVERY voxels while their cells are found, then each time
 *                       the voxels dequeued by the flood and visited while listing the neighbours (each voxel once in
 *                       each) reach another multiple of POLL_EVERY
 * @returns the graph, #S `nodeOf` (each solid voxel's node) and #N `nodeCell` (each node's cell of the coarse grid,
 *          linear index; of the grid itself where the cells are the voxels)
 */
export function aggregateVoxels(
  grid: Grid,
  solid: Solid,
  coarse: Grid,
  checkCancelled: () => void = () => {},
): { graph: SmoothingGraph; nodeOf: Int32Array; nodeCell: Int32Array } {
  const { nx, ny, h } = grid;
  const faces = [1, -1, nx, -nx, nx * ny, -nx * ny];
  const count = solid.count;
  const ownCells = coarse === grid || coarse.h <= h;
  // Each solid voxel's coarse cell (its own where the cells are the voxels).
  const key = new Int32Array(count);
  const along = (q: number, origin: number, coarseOrigin: number, cells: number) =>
    Math.min(cells - 1, Math.max(0, Math.floor((origin + (q + 0.5) * h - coarseOrigin) / coarse.h)));
  for (let s = 0; s < count; s++) {
    if ((s & (POLL_EVERY - 1)) === 0) checkCancelled();
    if (ownCells) {
      key[s] = solid.cell[s];
      continue;
    }
    const c = solid.cell[s];
    const i = along(c % nx, grid.ox, coarse.ox, coarse.nx);
    const j = along(Math.floor(c / nx) % ny, grid.oy, coarse.oy, coarse.ny);
    const l = along(Math.floor(c / (nx * ny)), grid.oz, coarse.oz, coarse.nz);
    key[s] = i + coarse.nx * (j + coarse.ny * l);
  }
  // Voxels dequeued by the flood and visited while listing the neighbours: a poll at each multiple of POLL_EVERY.
  let work = 0;
  // The pieces, by a breadth-first flood within each cell: `members` lists each node's voxels in turn.
  const nodeOf = new Int32Array(count).fill(-1);
  const members = new Int32Array(count);
  const memberStart = new Int32Array(count + 1);
  let nodes = 0;
  let tail = 0;
  for (let s = 0; s < count; s++) {
    if (nodeOf[s] >= 0) continue;
    memberStart[nodes] = tail;
    nodeOf[s] = nodes;
    members[tail++] = s;
    for (let head = memberStart[nodes]; head < tail; head++) {
      if ((++work & (POLL_EVERY - 1)) === 0) checkCancelled();
      const m = members[head];
      for (let o = 0; o < 6; o++) {
        const u = solid.index[solid.cell[m] + faces[o]];
        if (u >= 0 && nodeOf[u] < 0 && key[u] === key[m]) {
          nodeOf[u] = nodes;
          members[tail++] = u;
        }
      }
    }
    nodes++;
  }
  memberStart[nodes] = tail;
  // Each node's neighbours, listed once, found through its voxels' faces.
  const start = new Int32Array(nodes + 1);
  let neighbours = new Int32Array(7 * nodes);
  let length = 0;
  const push = (x: number) => {
    if (length === neighbours.length) {
      const grown = new Int32Array(2 * neighbours.length);
      grown.set(neighbours);
      neighbours = grown;
    }
    neighbours[length++] = x;
  };
  const listed = new Int32Array(nodes).fill(-1);
  for (let node = 0; node < nodes; node++) {
    start[node] = length;
    push(node);
    listed[node] = node;
    for (let q = memberStart[node]; q < memberStart[node + 1]; q++) {
      if ((++work & (POLL_EVERY - 1)) === 0) checkCancelled();
      const cell = solid.cell[members[q]];
      for (let o = 0; o < 6; o++) {
        const u = solid.index[cell + faces[o]];
        if (u < 0) continue;
        const other = nodeOf[u];
        if (listed[other] === node) continue;
        listed[other] = node;
        push(other);
      }
    }
  }
  start[nodes] = length;
  const nodeCell = new Int32Array(nodes);
  for (let node = 0; node < nodes; node++) nodeCell[node] = key[members[memberStart[node]]];
  return { graph: { count: nodes, start, neighbours: neighbours.slice(0, length) }, nodeOf, nodeCell };
}

/**
 * `passes` Jacobi passes on the graph: each node's weights become the mean of its own and its neighbours' (those that
 * carry weights), keeping the K largest, normalized. `nearestBone` is rewritten to the kept bones (sorted by weight,
 * largest first; equal weights by bone index). On the grid's own graph (voxelGraph) a node is a voxel and the mean is
 * over the voxel and its solid face neighbours.
 * Memory: a second buffer of weights and bones (6K bytes per node).
 * @param weights     #N × K the nodes' weights (of the bones in nearestBone); used as one of the two buffers the passes
 *                    alternate between, so overwritten after two passes or more (the result may be this array)
 * @param nearestBone #N × K their bones, −1 for empty places; rewritten
 * @param graph       the nodes and their neighbours (voxelGraph or aggregateVoxels)
 * @param beforePass  called with the pass's number before each pass (to poll for cancel, which throws, and report progress)
 * @returns #N × K the smoothed weights: `weights` itself after an even number of passes, the second buffer after an odd
 */
export function smoothWeights(
  weights: Float32Array,
  nearestBone: Int16Array,
  k: number,
  boneCount: number,
  graph: SmoothingGraph,
  passes: number,
  beforePass: (pass: number) => void,
): Float32Array {
  const { start, neighbours } = graph;
  let widest = 0;
  for (let v = 0; v < graph.count; v++) widest = Math.max(widest, start[v + 1] - start[v]);
  let inWeights: Float32Array = weights;
  let inBones: Int16Array = nearestBone;
  let outWeights: Float32Array = new Float32Array(weights.length);
  let outBones: Int16Array = new Int16Array(nearestBone.length);
  const accumulated = new Float64Array(boneCount);
  // seen[b] === v: bone b is in `touched` for node v, the one being averaged.
  const seen = new Int32Array(boneCount).fill(-1);
  const touched = new Int32Array(widest * k);
  const topBones = new Int32Array(k);
  const topWeights = new Float64Array(k);
  for (let pass = 0; pass < passes; pass++) {
    beforePass(pass);
    for (let v = 0; v < graph.count; v++) {
      let count = 0;
      for (let q = start[v]; q < start[v + 1]; q++) {
        const u = neighbours[q];
        for (let i = u * k; i < u * k + k; i++) {
          const b = inBones[i];
          if (b < 0) break;
          if (seen[b] !== v) {
            seen[b] = v;
            accumulated[b] = 0;
            touched[count++] = b;
          }
          accumulated[b] += inWeights[i];
        }
      }
      // The K largest, by insertion (K is small).
      let kept = 0;
      for (let t = 0; t < count; t++) {
        const b = touched[t];
        const w = accumulated[b];
        seen[b] = -1;
        let i = kept < k ? kept++ : k;
        while (i > 0 && (topWeights[i - 1] < w || (topWeights[i - 1] === w && topBones[i - 1] > b))) {
          if (i < k) {
            topWeights[i] = topWeights[i - 1];
            topBones[i] = topBones[i - 1];
          }
          i--;
        }
        if (i < k) {
          topWeights[i] = w;
          topBones[i] = b;
        }
      }
      let sum = 0;
      for (let i = 0; i < kept; i++) sum += topWeights[i];
      const row = v * k;
      for (let i = 0; i < k; i++) {
        const has = i < kept && sum > 0;
        outBones[row + i] = has ? topBones[i] : -1;
        outWeights[row + i] = has ? topWeights[i] / sum : 0;
      }
    }
    [inWeights, outWeights] = [outWeights, inWeights];
    [inBones, outBones] = [outBones, inBones];
  }
  if (inBones !== nearestBone) nearestBone.set(inBones);
  return inWeights;
}

/**
 * The voxels' weights summed into their nodes (aggregateVoxels): each node's row is the sum of its voxels' rows, the
 * K largest kept, normalized, largest first.
 * Memory: the nodes' rows (6K bytes per node) and a list of the voxels by node (4 bytes per voxel).
 * @param weights     #S × K the voxels' weights (of the bones in nearestBone)
 * @param nearestBone #S × K their bones, −1 for empty places
 * @param nodeOf      #S each voxel's node, in [0, nodeCount)
 * @param checkCancelled throws to stop, called every POLL_EVERY voxels of each of its three sweeps
 * @returns the nodes' #N × K bones (−1 for empty places) and weights
 */
export function aggregateWeights(
  weights: Float32Array,
  nearestBone: Int16Array,
  k: number,
  boneCount: number,
  nodeOf: Int32Array,
  nodeCount: number,
  checkCancelled: () => void = () => {},
): { nearestBone: Int16Array; weights: Float32Array } {
  // The voxels of each node, by a counting sort on the node.
  const start = new Int32Array(nodeCount + 1);
  for (let s = 0; s < nodeOf.length; s++) {
    if ((s & (POLL_EVERY - 1)) === 0) checkCancelled();
    start[nodeOf[s] + 1]++;
  }
  for (let c = 0; c < nodeCount; c++) start[c + 1] += start[c];
  const members = new Int32Array(nodeOf.length);
  const next = start.slice(0, nodeCount);
  for (let s = 0; s < nodeOf.length; s++) {
    if ((s & (POLL_EVERY - 1)) === 0) checkCancelled();
    members[next[nodeOf[s]]++] = s;
  }
  const outBones = new Int16Array(nodeCount * k).fill(-1);
  const outWeights = new Float32Array(nodeCount * k);
  const accumulated = new Float64Array(boneCount);
  const touched: number[] = [];
  for (let c = 0; c < nodeCount; c++) {
    for (let m = start[c]; m < start[c + 1]; m++) {
      if ((m & (POLL_EVERY - 1)) === 0) checkCancelled();
      for (let i = members[m] * k; i < members[m] * k + k; i++) {
        const b = nearestBone[i];
        if (b < 0) break;
        if (accumulated[b] === 0 && weights[i] > 0) touched.push(b);
        accumulated[b] += weights[i];
      }
    }
    keepLargest(accumulated, touched, k, outBones, outWeights, c * k);
  }
  return { nearestBone: outBones, weights: outWeights };
}

/**
 * Writes the K largest of the accumulated weights (of bones `touched`) into the rows at `row`, normalized, largest
 * first, and clears the accumulator.
 */
function keepLargest(
  accumulated: Float64Array,
  touched: number[],
  k: number,
  outBones: Int16Array | Int32Array,
  outWeights: Float32Array | Float64Array,
  row: number,
): void {
  touched.sort((a, b) => accumulated[b] - accumulated[a] || a - b);
  const kept = Math.min(k, touched.length);
  let sum = 0;
  for (let i = 0; i < kept; i++) sum += accumulated[touched[i]];
  if (sum > 0)
    for (let i = 0; i < kept; i++) {
      outBones[row + i] = touched[i];
      outWeights[row + i] = accumulated[touched[i]] / sum;
    }
  for (const b of touched) accumulated[b] = 0;
  touched.length = 0;
}

/**
 * Each vertex's row: trilinear interpolation over the eight voxel centres around it that carry weights, or the
 * nearest voxel that does; the K largest kept, normalized.
 * @param nearestBone  #S × K the voxels' bones, −1 for empty places
 * @param voxelWeights #S × K their weights
 * @param weights      #V × #B out
 * @returns #V 1 where the vertex took the nearest voxel's weights, else 0
 */
export function vertexWeights(
  positions: Float64Array,
  grid: Grid,
  solid: Solid,
  nearestBone: Int16Array,
  voxelWeights: Float32Array,
  k: number,
  boneCount: number,
  weights: Float64Array,
): Uint8Array {
  const { nx, ny, nz, h, ox, oy, oz } = grid;
  const n = positions.length / 3;
  const accumulated = new Float64Array(boneCount);
  const touched: number[] = [];
  const rowBones = new Int32Array(k);
  const rowWeights = new Float64Array(k);
  const carries = (cell: number): number => {
    const s = solid.index[cell];
    return s >= 0 && nearestBone[s * k] >= 0 ? s : -1;
  };
  const fromNearest = new Uint8Array(n);
  for (let v = 0; v < n; v++) {
    const gx = (positions[3 * v] - ox) / h - 0.5;
    const gy = (positions[3 * v + 1] - oy) / h - 0.5;
    const gz = (positions[3 * v + 2] - oz) / h - 0.5;
    const i0 = Math.floor(gx);
    const j0 = Math.floor(gy);
    const l0 = Math.floor(gz);
    let total = 0;
    for (let corner = 0; corner < 8; corner++) {
      const di = corner & 1;
      const dj = (corner >> 1) & 1;
      const dl = corner >> 2;
      const i = i0 + di;
      const j = j0 + dj;
      const l = l0 + dl;
      if (i < 0 || j < 0 || l < 0 || i >= nx || j >= ny || l >= nz) continue;
      const s = carries(i + nx * (j + ny * l));
      if (s < 0) continue;
      const c = (di ? gx - i0 : 1 - gx + i0) * (dj ? gy - j0 : 1 - gy + j0) * (dl ? gz - l0 : 1 - gz + l0);
      if (!(c > 0)) continue;
      total += c;
      for (let q = 0; q < k; q++) {
        const b = nearestBone[s * k + q];
        if (b < 0) break;
        if (accumulated[b] === 0) touched.push(b);
        accumulated[b] += c * voxelWeights[s * k + q];
      }
    }
    if (total === 0) {
      const s = nearestCarrying(positions, v, grid, carries);
      if (s < 0) continue;
      fromNearest[v] = 1;
      for (let q = 0; q < k; q++) {
        const b = nearestBone[s * k + q];
        if (b < 0) break;
        touched.push(b);
        accumulated[b] = voxelWeights[s * k + q];
      }
    }
    rowBones.fill(-1);
    keepLargest(accumulated, touched, k, rowBones, rowWeights, 0);
    for (let q = 0; q < k && rowBones[q] >= 0; q++) weights[v * boneCount + rowBones[q]] = rowWeights[q];
  }
  return fromNearest;
}

/** Graph steps a node of a finer grid's vertex may be from the corner nodes it interpolates (see nodeVertexWeights). */
const CORNER_HOPS = 3;

/**
 * Each vertex's row on a finer grid's nodes (aggregateVoxels): the trilinear interpolation over the eight coarse cell
 * centres around the vertex, as vertexWeights on the coarse grid, where each cell's weights are those of its node
 * reached first, in graph steps (at most CORNER_HOPS), from the vertex's own node, the node of the fine voxel holding
 * the vertex (or, where that voxel carries no weights, of the nearest one that does), by a direct path: one of no more
 * steps than coarse cells (Manhattan) between the own node's cell and that corner's (each step moves at most one cell,
 * so no fewer either). A cell with no such node is left out. So the weights vary smoothly over coarse cells as on the
 * default grid, and a part the fine grid separates takes nothing from its neighbour in the same cells (the path
 * around the end of the gap is longer than direct) up to the coarse cells where the two join: a vertex whose own node
 * lies in such a cell reaches the neighbour's node in the cell beside the gap through the joined node as directly, and
 * takes that corner's share. Where no corner has a node, the vertex takes its own node's row. The K largest kept,
 * normalized.
 * Memory: 8 bytes per node (the steps' marks and list).
 * @param coarse      the grid whose cells made the nodes
 * @param graph       the nodes and their neighbours; `nodeOf` #S each solid voxel's node; `nodeCell` #N each node's cell
 * @param nearestBone #N × K the nodes' bones, −1 for empty places
 * @param nodeWeights #N × K the nodes' weights
 * @param weights     #V × #B out
 * @param checkCancelled throws to stop, called every POLL_EVERY vertices
 * @returns #V 1 where the vertex's own voxel carried no weights and its row came from around the nearest carrying
 *          voxel's node (the cells around the vertex reached from that node, or that node's row alone), else 0
 */
export function nodeVertexWeights(
  positions: Float64Array,
  grid: Grid,
  solid: Solid,
  coarse: Grid,
  nodes: { graph: SmoothingGraph; nodeOf: Int32Array; nodeCell: Int32Array },
  nearestBone: Int16Array,
  nodeWeights: Float32Array,
  k: number,
  boneCount: number,
  weights: Float64Array,
  checkCancelled: () => void = () => {},
): Uint8Array {
  const { graph, nodeOf, nodeCell } = nodes;
  const { start, neighbours } = graph;
  const n = positions.length / 3;
  const accumulated = new Float64Array(boneCount);
  const touched: number[] = [];
  const rowBones = new Int32Array(k);
  const rowWeights = new Float64Array(k);
  const carries = (cell: number): number => {
    const voxel = solid.index[cell];
    const node = voxel >= 0 ? nodeOf[voxel] : -1;
    return node >= 0 && nearestBone[node * k] >= 0 ? node : -1;
  };
  // mark[node] === v: the node was reached from vertex v's node; `reached` lists them by steps (breadth first).
  const mark = new Int32Array(graph.count).fill(-1);
  const reached = new Int32Array(graph.count);
  const cornerNode = new Int32Array(8);
  const fromNearest = new Uint8Array(n);
  const { nx: cx, ny: cy } = coarse;
  const add = (node: number, c: number) => {
    for (let q = 0; q < k; q++) {
      const b = nearestBone[node * k + q];
      if (b < 0) break;
      if (accumulated[b] === 0) touched.push(b);
      accumulated[b] += c * nodeWeights[node * k + q];
    }
  };
  for (let v = 0; v < n; v++) {
    if ((v & (POLL_EVERY - 1)) === 0) checkCancelled();
    const px = positions[3 * v];
    const py = positions[3 * v + 1];
    const pz = positions[3 * v + 2];
    const i = Math.floor((px - grid.ox) / grid.h);
    const j = Math.floor((py - grid.oy) / grid.h);
    const l = Math.floor((pz - grid.oz) / grid.h);
    const inside = i >= 0 && j >= 0 && l >= 0 && i < grid.nx && j < grid.ny && l < grid.nz;
    let own = inside ? carries(i + grid.nx * (j + grid.ny * l)) : -1;
    if (own < 0) {
      own = nearestCarrying(positions, v, grid, carries);
      if (own < 0) continue;
      fromNearest[v] = 1;
    }
    const gx = (px - coarse.ox) / coarse.h - 0.5;
    const gy = (py - coarse.oy) / coarse.h - 0.5;
    const gz = (pz - coarse.oz) / coarse.h - 0.5;
    const i0 = Math.floor(gx);
    const j0 = Math.floor(gy);
    const l0 = Math.floor(gz);
    // The own node's cell, relative to the corners' first.
    const ownI = (nodeCell[own] % cx) - i0;
    const ownJ = (Math.floor(nodeCell[own] / cx) % cy) - j0;
    const ownL = Math.floor(nodeCell[own] / (cx * cy)) - l0;
    // Breadth first from the vertex's node: each corner cell takes the first carrying node reached in it by a direct
    // path, one of as many steps as cells (Manhattan) between the own node's cell and the corner's.
    cornerNode.fill(-1);
    let count = 0;
    mark[own] = v;
    reached[count++] = own;
    for (let head = 0, steps = 0, level = count; head < count; head++) {
      if (head === level) {
        if (++steps > CORNER_HOPS) break;
        level = count;
      }
      const node = reached[head];
      const cell = nodeCell[node];
      const di = (cell % cx) - i0;
      const dj = (Math.floor(cell / cx) % cy) - j0;
      const dl = Math.floor(cell / (cx * cy)) - l0;
      // A node first reached in more steps than cells from the own node's lies on no direct path: neither taken nor
      // gone through.
      if (steps > Math.abs(di - ownI) + Math.abs(dj - ownJ) + Math.abs(dl - ownL)) continue;
      if (di >= 0 && di <= 1 && dj >= 0 && dj <= 1 && dl >= 0 && dl <= 1) {
        const corner = di + 2 * dj + 4 * dl;
        if (cornerNode[corner] < 0 && nearestBone[node * k] >= 0) cornerNode[corner] = node;
      }
      if (steps === CORNER_HOPS) continue;
      for (let q = start[node] + 1; q < start[node + 1]; q++) {
        const u = neighbours[q];
        if (mark[u] === v) continue;
        mark[u] = v;
        reached[count++] = u;
      }
    }
    let total = 0;
    for (let corner = 0; corner < 8; corner++) {
      const node = cornerNode[corner];
      if (node < 0) continue;
      const di = corner & 1;
      const dj = (corner >> 1) & 1;
      const dl = corner >> 2;
      const c = (di ? gx - i0 : 1 - gx + i0) * (dj ? gy - j0 : 1 - gy + j0) * (dl ? gz - l0 : 1 - gz + l0);
      if (!(c > 0)) continue;
      total += c;
      add(node, c);
    }
    if (total === 0) add(own, 1);
    rowBones.fill(-1);
    keepLargest(accumulated, touched, k, rowBones, rowWeights, 0);
    for (let q = 0; q < k && rowBones[q] >= 0; q++) weights[v * boneCount + rowBones[q]] = rowWeights[q];
  }
  return fromNearest;
}

/**
 * The solid voxel carrying weights whose centre is nearest vertex v, searched in growing cubic shells about its
 * voxel until no nearer one can be found; −1 when none carries weights.
 */
function nearestCarrying(positions: Float64Array, v: number, grid: Grid, carries: (cell: number) => number): number {
  const { nx, ny, nz, h, ox, oy, oz } = grid;
  const px = positions[3 * v];
  const py = positions[3 * v + 1];
  const pz = positions[3 * v + 2];
  const ci = Math.min(nx - 1, Math.max(0, Math.floor((px - ox) / h)));
  const cj = Math.min(ny - 1, Math.max(0, Math.floor((py - oy) / h)));
  const cl = Math.min(nz - 1, Math.max(0, Math.floor((pz - oz) / h)));
  let best = -1;
  let bestDistance = Infinity;
  const largest = Math.max(nx, ny, nz);
  for (let r = 0; r < largest; r++) {
    // Every voxel of shell r is at least (r − 1) h from the point (which lies in the centre voxel).
    if ((r - 1) * h > bestDistance) break;
    for (let l = cl - r; l <= cl + r; l++) {
      if (l < 0 || l >= nz) continue;
      for (let j = cj - r; j <= cj + r; j++) {
        if (j < 0 || j >= ny) continue;
        const onFace = l === cl - r || l === cl + r || j === cj - r || j === cj + r;
        for (let i = ci - r; i <= ci + r; i += onFace ? 1 : 2 * r || 1) {
          if (i < 0 || i >= nx) continue;
          const s = carries(i + nx * (j + ny * l));
          if (s < 0) continue;
          const d = Math.hypot(ox + (i + 0.5) * h - px, oy + (j + 0.5) * h - py, oz + (l + 0.5) * h - pz);
          if (d < bestDistance) {
            bestDistance = d;
            best = s;
          }
        }
      }
    }
  }
  return best;
}
