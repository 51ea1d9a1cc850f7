/**
 * A uniform grid over vertex positions for brush gathering (all vertices within a sphere). Vertices are stored
 * cell by cell (counting sort), with a copy of their positions in that order, so a query walks contiguous memory.
 * When some of the positions it was built from change (rest or posed, whichever the brush paints on), either
 * rebuild it (createVertexGrid) or move those vertices (moveGridVertices): a moved vertex stays in its cell, and
 * queries widen their cell range by how far any vertex has left its cell (`slack`).
 */
export interface VertexGrid {
  /** cell edge length, world units */
  cellSize: number;
  /** grid origin (minimum corner), world units */
  originX: number;
  originY: number;
  originZ: number;
  /** cells per axis */
  dimX: number;
  dimY: number;
  dimZ: number;
  /** #cells + 1 offsets into `vertices`; cell (i, j, k) has index i + dimX·(j + dimY·k) */
  cellStart: Int32Array;
  /** #V vertex indices, grouped by cell */
  vertices: Uint32Array;
  /** #V × 3 positions in the order of `vertices` */
  sortedPositions: Float64Array;
  /** #V each vertex's slot in `vertices` */
  slotOf: Uint32Array;
  /** #V each vertex's cell */
  cellOf: Int32Array;
  /** the farthest any vertex lies outside its cell along an axis (0 until moveGridVertices moves one out) */
  slack: number;
}

/** Mean vertices per occupied cell the default cell size aims at: enough to amortize a cell visit. */
const TARGET_VERTICES_PER_CELL = 8;
/** Upper bound of cells per vertex: bounds the grid's memory (4 bytes per cell) on thin or sparse meshes. */
const MAX_CELLS_PER_VERTEX = 2;

/**
 * Builds the grid. The default cell size treats the vertices as a surface sample: area ≈ diagonal², so about
 * TARGET_VERTICES_PER_CELL vertices fall in a cell of edge diagonal·√(8 / #V); the cell is enlarged when the box
 * would need more than 2·#V cells.
 * @param positions #V × 3 positions, world units
 * @param cellSize  optional cell edge length (world units); positive
 * @returns the grid (memory ≈ 36·#V bytes + 4 bytes per cell)
 */
export function createVertexGrid(positions: Float64Array, cellSize?: number): VertexGrid {
  const n = Math.floor(positions.length / 3);
  let minX = Infinity,
    minY = Infinity,
    minZ = Infinity,
    maxX = -Infinity,
    maxY = -Infinity,
    maxZ = -Infinity;
  for (let i = 0; i < 3 * n; i += 3) {
    const x = positions[i],
      y = positions[i + 1],
      z = positions[i + 2];
    if (!(Number.isFinite(x) && Number.isFinite(y) && Number.isFinite(z)))
      throw new RangeError(`createVertexGrid: vertex ${i / 3} has a non-finite coordinate`);
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
    if (z < minZ) minZ = z;
    if (z > maxZ) maxZ = z;
  }
  if (n === 0) minX = minY = minZ = maxX = maxY = maxZ = 0;
  const ex = maxX - minX,
    ey = maxY - minY,
    ez = maxZ - minZ;
  const diagonal = Math.hypot(ex, ey, ez);
  let size = cellSize ?? diagonal * Math.sqrt(TARGET_VERTICES_PER_CELL / Math.max(n, 1));
  if (!(size > 0)) size = diagonal > 0 ? diagonal : 1;
  const cellsFor = (s: number) => (Math.floor(ex / s) + 1) * (Math.floor(ey / s) + 1) * (Math.floor(ez / s) + 1);
  const maxCells = Math.max(MAX_CELLS_PER_VERTEX * n, 1);
  if (cellSize === undefined) {
    while (cellsFor(size) > maxCells) size *= 1.25;
  }
  const dimX = Math.floor(ex / size) + 1,
    dimY = Math.floor(ey / size) + 1,
    dimZ = Math.floor(ez / size) + 1;
  const cellCount = dimX * dimY * dimZ;
  if (cellCount > 2 ** 31 - 1) throw new RangeError(`createVertexGrid: cell size ${size} needs ${cellCount} cells`);

  const cellOf = new Int32Array(n);
  const cellStart = new Int32Array(cellCount + 1);
  const inverse = 1 / size;
  for (let v = 0; v < n; v++) {
    const i = Math.min(Math.floor((positions[3 * v] - minX) * inverse), dimX - 1);
    const j = Math.min(Math.floor((positions[3 * v + 1] - minY) * inverse), dimY - 1);
    const k = Math.min(Math.floor((positions[3 * v + 2] - minZ) * inverse), dimZ - 1);
    const c = i + dimX * (j + dimY * k);
    cellOf[v] = c;
    cellStart[c + 1]++;
  }
  for (let c = 0; c < cellCount; c++) cellStart[c + 1] += cellStart[c];
  const fill = cellStart.slice(0, cellCount);
  const vertices = new Uint32Array(n);
  const slotOf = new Uint32Array(n);
  const sortedPositions = new Float64Array(3 * n);
  for (let v = 0; v < n; v++) {
    const slot = fill[cellOf[v]]++;
    vertices[slot] = v;
    slotOf[v] = slot;
    sortedPositions[3 * slot] = positions[3 * v];
    sortedPositions[3 * slot + 1] = positions[3 * v + 1];
    sortedPositions[3 * slot + 2] = positions[3 * v + 2];
  }
  return {
    cellSize: size,
    originX: minX,
    originY: minY,
    originZ: minZ,
    dimX,
    dimY,
    dimZ,
    cellStart,
    vertices,
    sortedPositions,
    slotOf,
    cellOf,
    slack: 0,
  };
}

/**
 * Moves some vertices to new positions without rebuilding: each keeps its cell, and the grid's slack grows to the
 * farthest any of them now lies outside its cell along an axis. Queries stay exact; they visit more cells as the
 * slack grows, so the move is refused (and the grid left unchanged) when the slack would exceed `maxSlack`.
 * @param grid      from createVertexGrid
 * @param positions #V × 3 positions, of which those of `moved` are new
 * @param moved     the vertices that moved (first `count`)
 * @param count     number of entries of `moved` to use
 * @param maxSlack  largest slack accepted, world units (default one cell)
 * @returns false when the move was refused: rebuild the grid instead
 */
export function moveGridVertices(
  grid: VertexGrid,
  positions: Float64Array,
  moved: ArrayLike<number>,
  count: number,
  maxSlack = grid.cellSize,
): boolean {
  const { cellSize, originX, originY, originZ, dimX, dimY, cellOf, slotOf, sortedPositions } = grid;
  let slack = grid.slack;
  for (let i = 0; i < count; i++) {
    const v = moved[i];
    const x = positions[3 * v],
      y = positions[3 * v + 1],
      z = positions[3 * v + 2];
    if (!(Number.isFinite(x) && Number.isFinite(y) && Number.isFinite(z)))
      throw new RangeError(`moveGridVertices: vertex ${v} has a non-finite coordinate`);
    const c = cellOf[v];
    const ci = c % dimX,
      cj = Math.floor(c / dimX) % dimY,
      ck = Math.floor(c / (dimX * dimY));
    const lx = originX + ci * cellSize,
      ly = originY + cj * cellSize,
      lz = originZ + ck * cellSize;
    const outside = Math.max(lx - x, x - lx - cellSize, ly - y, y - ly - cellSize, lz - z, z - lz - cellSize);
    if (outside > slack) slack = outside;
  }
  if (slack > maxSlack) return false;
  for (let i = 0; i < count; i++) {
    const v = moved[i];
    const s = slotOf[v];
    sortedPositions[3 * s] = positions[3 * v];
    sortedPositions[3 * s + 1] = positions[3 * v + 1];
    sortedPositions[3 * s + 2] = positions[3 * v + 2];
  }
  grid.slack = slack;
  return true;
}

/**
 * All vertices within `radius` of a point (inclusive), in no particular order.
 * When more vertices match than the output arrays hold, only the first `outIndices.length` are written and the
 * full count is returned, so the caller can grow its arrays and ask again.
 * @param grid          from createVertexGrid
 * @param cx            query centre x (world units); likewise cy, cz
 * @param radius        query radius, world units
 * @param outIndices    capacity ≥ expected count: vertex indices
 * @param outDistances  same capacity: distance of each vertex to the centre, world units
 * @returns the number of vertices within the sphere
 */
export function queryVertexGrid(
  grid: VertexGrid,
  cx: number,
  cy: number,
  cz: number,
  radius: number,
  outIndices: Uint32Array,
  outDistances: Float64Array,
): number {
  if (!(radius >= 0)) return 0;
  const { cellSize, originX, originY, originZ, dimX, dimY, dimZ, cellStart, vertices, sortedPositions } = grid;
  const inverse = 1 / cellSize;
  // A vertex inside the sphere lies in a cell within radius + slack of the centre along every axis. Both ends are
  // clamped into the grid: a moved vertex may lie just outside it, in a boundary cell.
  const reach = radius + grid.slack;
  const cell = (t: number, dim: number) => Math.min(Math.max(Math.floor(t * inverse), 0), dim - 1);
  const i0 = cell(cx - reach - originX, dimX),
    i1 = cell(cx + reach - originX, dimX);
  const j0 = cell(cy - reach - originY, dimY),
    j1 = cell(cy + reach - originY, dimY);
  const k0 = cell(cz - reach - originZ, dimZ),
    k1 = cell(cz + reach - originZ, dimZ);
  const capacity = Math.min(outIndices.length, outDistances.length);
  const r2 = radius * radius;
  let count = 0;
  for (let k = k0; k <= k1; k++) {
    for (let j = j0; j <= j1; j++) {
      // One x-run of cells is one contiguous range of the sorted vertices.
      const rowCell = dimX * (j + dimY * k);
      const end = cellStart[rowCell + i1 + 1];
      for (let s = cellStart[rowCell + i0]; s < end; s++) {
        const dx = sortedPositions[3 * s] - cx;
        const dy = sortedPositions[3 * s + 1] - cy;
        const dz = sortedPositions[3 * s + 2] - cz;
        const d2 = dx * dx + dy * dy + dz * dz;
        if (d2 > r2) continue;
        if (count < capacity) {
          outIndices[count] = vertices[s];
          outDistances[count] = Math.sqrt(d2);
        }
        count++;
      }
    }
  }
  return count;
}
