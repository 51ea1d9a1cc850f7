import type { TgfSkeleton } from '../formats/types.ts';
import { boundingBox } from '../mesh/bounds.ts';
import { windingNumberAt, windingNumberTree, WINDING_NUMBER_DEFAULTS, type WindingNumberTree } from '../mesh/winding-number.ts';
import { spreadWeldedRows, WELD_VERTICES_DEFAULTS, weldVertices } from '../mesh/weld-vertices.ts';
import { weldedShells } from './binding-method.ts';

/**
 * Geodesic voxel binding (Dionne and de Lasa 2013, "Geodesic Voxel Binding for Production Character Meshes"): the
 * solid the mesh encloses is voxelized, the bones are placed in it, and each vertex is weighted by the geodesic
 * distances, through the solid, from its voxel to the bones. It needs no manifold, closed or connected surface: a
 * voxel is solid where the generalized winding number says it is inside (open and self-intersecting shells) or where
 * a triangle crosses it (thin shells and single sheets), and every vertex of every shell takes the weights of the
 * solid around it.
 */

export interface VolumetricWeightsOptions {
  /** voxels along the longest side of the mesh's bounding box, 64 to 512 */
  resolution?: number;
  /**
   * How fast a bone's influence falls off with the geodesic distance d_b: w_b ∝ d_b^−falloff (Dionne and de Lasa
   * 2013 weigh by an inverse power of the distance too; their Eq. 1 blends the first and second powers and squares
   * them, powers 2 to 4 here). From 1 to 16; larger keeps each voxel on its nearest bone, leaving the blend to the
   * smoothing. 12 by measurement with 32 smoothing passes (8, 10, 12, 14, 16 tried on the shipped samples,
   * BENCHMARKS.md): gentler blends by the distance ratio, which at a joint of two bones in line ties over the whole
   * plane through the joint (the Fox's jaw, below its neck–head joint, took half the neck: max 0.0210 at 8, 0.0198 at
   * 12); steeper moves the Fox's and RiggedFigure's means away from the artists' (0.0016 / 0.00063 at 12, 0.0015 /
   * 0.00069 at 16).
   */
  falloff?: number;
  /** most bones weighing on a voxel and on a vertex (1 to VOLUMETRIC_MAX_INFLUENCES) */
  maxInfluences?: number;
  /**
   * Passes of averaging each solid voxel's weights with its solid face neighbours' (a diffusion through the solid, as
   * Baran and Popović's bone heat diffuses over the surface): the blend between two bones spreads over about √passes
   * voxels, and a region takes the bone the solid around it belongs to where the distances alone tie. 32 by
   * measurement (2, 8, 16, 24, 32, 48 tried at falloff 12 and 16): more passes brought every sample's max nearer the
   * artists' weights (the Fox 0.0235 at 2, 0.0201 at 24, 0.0198 at 32, 0.0196 at 48; RiggedFigure 0.0185, 0.0144,
   * 0.0136, 0.0125) at a cost linear in the passes; 32 keeps a default bind within its time. At a finer grid the same
   * passes blend over fewer mesh units.
   */
  smoothingPasses?: number;
  /** the winding number's accuracy β (WindingNumberOptions.accuracy) */
  windingAccuracy?: number;
  /**
   * Vertices within this distance (mesh units) are one vertex (weldVertices): the binding runs on the welded mesh and
   * every vertex of a welded group gets the group's row. 0 welds exactly coincident vertices only.
   */
  weldTolerance?: number;
}

export const VOLUMETRIC_WEIGHTS_DEFAULTS: Required<VolumetricWeightsOptions> = {
  resolution: 128,
  falloff: 12,
  maxInfluences: 4,
  smoothingPasses: 32,
  windingAccuracy: WINDING_NUMBER_DEFAULTS.accuracy,
  weldTolerance: WELD_VERTICES_DEFAULTS.tolerance,
};

/**
 * A bone with a child bone is left out of the volumetric binding when less than this fraction of its segment's
 * samples fall in solid voxels (mostly outside the mesh). On the shipped samples it leaves out the Fox's b_Root_00
 * (18% inside), which the artist gave no weight and which took the hips' weight (the Fox's mean distance to the
 * artist's deformation 0.0028 → 0.0020); every other bone with a child there is wholly inside.
 */
export const LEFT_OUT_INSIDE_FRACTION = 0.5;

/** The most bones the volumetric binding keeps per voxel and per vertex (its maxInfluences option's upper end). */
export const VOLUMETRIC_MAX_INFLUENCES = 8;

/** The falloff powers the option may take. */
export const VOLUMETRIC_FALLOFF_RANGE = [1, 16] as const;

/** The voxel resolutions the option may take (the grid's memory grows with their cube). */
export const VOXEL_RESOLUTION_RANGE = [64, 512] as const;

export interface VolumetricWeightsResult {
  /** #V × #B row-major; every row is in [0, 1] and sums to 1 (when the skeleton has a bone) */
  weights: Float64Array;
  /** the grid: voxels along x, y, z, the voxel's side in mesh units and the corner of voxel (0, 0, 0) */
  grid: { nx: number; ny: number; nz: number; cellSize: number; origin: [number, number, number] };
  /** the welded vertices the binding weighed (#V when no two vertices were welded) */
  weldedVertexCount: number;
  /** solid voxels (inside by the winding number, or crossed by a triangle) */
  solidVoxels: number;
  /** of which crossed by a triangle */
  surfaceVoxels: number;
  /** bones whose segment passes through no solid voxel: they start from the solid voxels nearest them */
  bonesOutsideSolid: number[];
  /**
   * bones left out of the binding (weight 0 on every vertex): bones with a child bone whose segment lies mostly
   * outside the solid (see LEFT_OUT_INSIDE_FRACTION), such as a root bone carrying the skeleton from the origin to the hips
   */
  bonesLeftOut: number[];
  /**
   * vertices none of whose eight surrounding voxel centres carries weights (a shell whose solid no bone reaches,
   * such as a floating eye): they take the weights of the nearest voxel that carries some
   */
  verticesFromNearestVoxel: number;
  /** winding numbers evaluated (the others were decided for a whole region of the grid at once) */
  windingEvaluations: number;
  /** wall-clock milliseconds per stage */
  timings: { voxelizeMs: number; distancesMs: number; smoothMs: number; verticesMs: number; totalMs: number };
}

/**
 * Volumetric skinning weights by geodesic voxel binding (Dionne and de Lasa 2013, Sec. 3–4):
 *
 * 1. Voxelize: a grid over the mesh's bounding box (`resolution` voxels along its longest side, two voxels of margin).
 *    A voxel is solid when a triangle crosses it (separating-axis test, Akenine-Möller 2001) or when the generalized
 *    winding number at its centre exceeds ½ (Jacobson et al. 2013). The voxels no triangle crosses fall into regions
 *    connected through faces; for a closed mesh the winding number is constant on each, so it is evaluated at a few
 *    voxels of a region (its seed and every voxel at a power-of-two place of the flood) and, when they agree clearly,
 *    given to the whole region; for an open mesh (or samples that disagree) block by block: a block away from the
 *    surface whose corners agree clearly takes their side, the others are evaluated voxel by voxel.
 * 2. Bones: a bone's voxels are the solid voxels its segment passes through, starting at the distance from their
 *    centre to the segment; a bone that passes through no solid voxel starts from the solid voxels nearest it. A bone
 *    that has a child bone (one starting at its end joint) and whose segment lies mostly outside the solid is left
 *    out (weight 0), as Blender leaves out a bone that does not deform: it only carries its children to the body (the
 *    root bone from the origin to the hips), and the mesh near it belongs to its children. A leaf bone outside the
 *    solid (a toe whose end joint was extended past the tip) is kept: no other bone reaches its part.
 * 3. Distances: Dijkstra's algorithm from each bone, one bone at a time, over the solid voxels' 26-neighbourhood
 *    (steps h, h√2, h√3). Each voxel keeps its `maxInfluences` nearest bones. A voxel whose distance to the bone is
 *    no less than its current K-th nearest is not expanded: by the triangle inequality the bone cannot be among the
 *    K nearest of any voxel reached through it.
 * 4. Weights: w_b ∝ d_b^−falloff over the voxel's nearest bones, normalized; `smoothingPasses` Jacobi
 *    passes average each voxel with its solid face neighbours (keeping the K largest, normalized). With a steep
 *    falloff each voxel starts near its nearest bone alone and the blend comes from this diffusion through the solid
 *    (the idea of Baran and Popović's bone heat, nearest bone and diffusion, in the solid): where two bones in line
 *    lie equally far (a plane through their joint), a region takes the bone its surroundings belong to.
 * 5. Vertices: the trilinear interpolation of the weights of the eight voxel centres around the vertex, over those
 *    that carry weights (renormalized); where none does, the weights of the nearest voxel that does. Each row keeps
 *    its K largest, normalized.
 *
 * All of it runs on the welded mesh (weldVertices with `weldTolerance`): the voxels from the welded triangles, whether
 * the mesh is closed from the welded shells, and each welded vertex weighted at its position (its first member's),
 * its row then given to every member, so seams — also those split by less than the tolerance — never tear.
 *
 * Memory: one byte and one 32-bit index per voxel of the grid, and about 12 + 6K bytes per solid voxel; bones are
 * processed one at a time.
 *
 * @param positions   #V × 3 rest positions, mesh units
 * @param triangles   #F × 3 vertex indices (any orientation mix; consistently outward gives the cleanest inside)
 * @param skeleton    joints #J × 3 and bones #B × 2 (start, end joint) in the mesh's space
 * @param options     see VolumetricWeightsOptions
 * @param progress    called with a stage name and the overall fraction done, in [0, 1]
 * @param isCancelled polled between stages, bones and regions; when it returns true the computation throws an
 *                    AbortError DOMException
 * @returns #V × #B weights and what the binding found
 * @throws RangeError naming the option or the face when an option is out of range or a face names a missing vertex
 */
export function volumetricWeights(
  positions: Float64Array,
  triangles: Uint32Array,
  skeleton: TgfSkeleton,
  options: VolumetricWeightsOptions = {},
  progress?: (stage: string, fraction: number) => void,
  isCancelled?: () => boolean,
): VolumetricWeightsResult {
  const settings = { ...VOLUMETRIC_WEIGHTS_DEFAULTS, ...options };
  const [lowest, highest] = VOXEL_RESOLUTION_RANGE;
  if (!(Number.isInteger(settings.resolution) && settings.resolution >= lowest && settings.resolution <= highest))
    throw new RangeError(
      `volumetricWeights: the resolution must be a whole number from ${lowest} to ${highest}, not ${settings.resolution}`,
    );
  const [gentlest, steepest] = VOLUMETRIC_FALLOFF_RANGE;
  if (!(settings.falloff >= gentlest && settings.falloff <= steepest))
    throw new RangeError(`volumetricWeights: the falloff must be from ${gentlest} to ${steepest}, not ${settings.falloff}`);
  if (!(Number.isInteger(settings.maxInfluences) && settings.maxInfluences >= 1 && settings.maxInfluences <= VOLUMETRIC_MAX_INFLUENCES))
    throw new RangeError(
      `volumetricWeights: max influences must be a whole number from 1 to ${VOLUMETRIC_MAX_INFLUENCES}, not ${settings.maxInfluences}`,
    );
  if (!(Number.isInteger(settings.smoothingPasses) && settings.smoothingPasses >= 0))
    throw new RangeError(`volumetricWeights: smoothing passes must be a whole number ≥ 0, not ${settings.smoothingPasses}`);
  if (!(settings.weldTolerance >= 0 && Number.isFinite(settings.weldTolerance)))
    throw new RangeError(`volumetricWeights: the weld tolerance must be a finite distance ≥ 0, not ${settings.weldTolerance}`);
  const n = Math.floor(positions.length / 3);
  if (positions.length !== 3 * n) throw new RangeError(`volumetricWeights: positions has ${positions.length} values, not a multiple of 3`);
  for (let f = 0; f < triangles.length; f++)
    if (triangles[f] >= n)
      throw new RangeError(`volumetricWeights: face ${Math.floor(f / 3)} names vertex ${triangles[f]}, there are ${n}`);
  const boneCount = Math.floor(skeleton.bones.length / 2);
  const jointCount = Math.floor(skeleton.joints.length / 3);
  for (let i = 0; i < 2 * boneCount; i++)
    if (skeleton.bones[i] >= jointCount)
      throw new RangeError(`volumetricWeights: bone ${i >> 1} names joint ${skeleton.bones[i]}, there are ${jointCount}`);
  const checkCancelled = () => {
    if (isCancelled?.()) throw new DOMException('volumetric weights cancelled', 'AbortError');
  };
  const start = performance.now();
  const weld = weldVertices(positions, triangles, { tolerance: settings.weldTolerance });
  const grid = makeGrid(weld.positions, settings.resolution);
  const k = settings.maxInfluences;

  progress?.('voxelize', 0);
  const state = new Uint8Array(grid.nx * grid.ny * grid.nz);
  const surfaceVoxels = markSurface(weld.positions, weld.triangles, grid, state);
  checkCancelled();
  // A closed mesh's winding number is constant on each region the surface voxels enclose; an open one's is not.
  const closed = weldedShells(weld).shells.every((shell) => shell.boundaryEdges === 0 && shell.nonManifoldEdges === 0);
  const windingEvaluations = markInside(weld.positions, weld.triangles, grid, state, settings.windingAccuracy, closed, checkCancelled);
  const solid = compactSolid(state, grid);
  const voxelizeMs = performance.now() - start;
  checkCancelled();

  let t = performance.now();
  progress?.('distances', 0.2);
  const nearestBone = new Int16Array(solid.count * k).fill(-1);
  const nearestDistance = new Float32Array(solid.count * k).fill(Infinity);
  const bonesOutsideSolid: number[] = [];
  const search = new GeodesicSearch(solid.count);
  const startJoints = new Set<number>();
  for (let b = 0; b < boneCount; b++) startJoints.add(skeleton.bones[2 * b]);
  const allSeeds = Array.from({ length: boneCount }, (_, b) => boneSeeds(skeleton, b, grid, solid));
  const leftOut = (b: number) => startJoints.has(skeleton.bones[2 * b + 1]) && allSeeds[b].insideFraction < LEFT_OUT_INSIDE_FRACTION;
  const bonesLeftOut: number[] = [];
  for (let b = 0; b < boneCount; b++) if (leftOut(b)) bonesLeftOut.push(b);
  // A skeleton of such bones alone keeps them all: some bone must carry the weights.
  if (bonesLeftOut.length === boneCount) bonesLeftOut.length = 0;
  for (let b = 0; b < boneCount; b++) {
    checkCancelled();
    if (bonesLeftOut.includes(b)) continue;
    const seeds = allSeeds[b];
    if (seeds.outside) bonesOutsideSolid.push(b);
    search.run(seeds.voxels, seeds.distances, b, grid, solid, nearestBone, nearestDistance, k);
    progress?.('distances', 0.2 + (0.6 * (b + 1)) / Math.max(1, boneCount));
  }
  const distancesMs = performance.now() - t;

  checkCancelled();
  t = performance.now();
  progress?.('smoothing', 0.8);
  // Distances in voxels of the default grid, whatever the resolution (only their ratios matter but for the clamp).
  const unit = grid.longest / VOLUMETRIC_WEIGHTS_DEFAULTS.resolution;
  let voxelWeights = weightsFromDistances(nearestDistance, nearestBone, k, settings.falloff, unit);
  voxelWeights = smoothWeights(voxelWeights, nearestBone, k, boneCount, grid, solid, settings.smoothingPasses, checkCancelled);
  const smoothMs = performance.now() - t;

  checkCancelled();
  t = performance.now();
  progress?.('vertices', 0.9);
  const weldedWeights = new Float64Array(weld.count * boneCount);
  const weldedFromNearestVoxel = vertexWeights(weld.positions, grid, solid, nearestBone, voxelWeights, k, boneCount, weldedWeights);
  const weights = spreadWeldedRows(weldedWeights, weld, boneCount, new Float64Array(n * boneCount));
  let verticesFromNearestVoxel = 0;
  for (let v = 0; v < n; v++) if (weldedFromNearestVoxel[weld.index[v]] === 1) verticesFromNearestVoxel++;
  const verticesMs = performance.now() - t;
  progress?.('done', 1);
  return {
    weights,
    grid: { nx: grid.nx, ny: grid.ny, nz: grid.nz, cellSize: grid.h, origin: [grid.ox, grid.oy, grid.oz] },
    weldedVertexCount: weld.count,
    solidVoxels: solid.count,
    surfaceVoxels,
    bonesOutsideSolid,
    bonesLeftOut,
    verticesFromNearestVoxel,
    windingEvaluations,
    timings: { voxelizeMs, distancesMs, smoothMs, verticesMs, totalMs: performance.now() - start },
  };
}

/** The voxel grid: voxel (i, j, l) spans origin + h·[i, i+1) × … and has linear index i + nx (j + ny l). */
interface Grid {
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

function makeGrid(positions: Float64Array, resolution: number): Grid {
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
interface Solid {
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

/** Distance from point p to segment ab, mesh units. */
function segmentDistance(px: number, py: number, pz: number, joints: Float64Array, a: number, b: number): number {
  const ax = joints[3 * a];
  const ay = joints[3 * a + 1];
  const az = joints[3 * a + 2];
  const dx = joints[3 * b] - ax;
  const dy = joints[3 * b + 1] - ay;
  const dz = joints[3 * b + 2] - az;
  const length2 = dx * dx + dy * dy + dz * dz;
  let t = length2 > 0 ? ((px - ax) * dx + (py - ay) * dy + (pz - az) * dz) / length2 : 0;
  t = t < 0 ? 0 : t > 1 ? 1 : t;
  return Math.hypot(px - ax - t * dx, py - ay - t * dy, pz - az - t * dz);
}

/**
 * Bone b's starting voxels: the solid voxels its segment passes through (sampled every quarter voxel), at the
 * distance from their centre to the segment; when there are none, the solid voxels within a voxel of the nearest
 * one, at their distance from the segment (so a bone far outside the mesh, such as a root on the ground, weighs little).
 */
function boneSeeds(
  skeleton: TgfSkeleton,
  b: number,
  grid: Grid,
  solid: Solid,
): { voxels: Int32Array; distances: Float64Array; outside: boolean; insideFraction: number } {
  const { nx, ny, nz, h, ox, oy, oz } = grid;
  const { joints } = skeleton;
  const a = skeleton.bones[2 * b];
  const e = skeleton.bones[2 * b + 1];
  const length = Math.hypot(joints[3 * e] - joints[3 * a], joints[3 * e + 1] - joints[3 * a + 1], joints[3 * e + 2] - joints[3 * a + 2]);
  const steps = Math.max(1, Math.ceil((4 * length) / h));
  const found = new Set<number>();
  let inside = 0;
  for (let s = 0; s <= steps; s++) {
    const t = s / steps;
    const i = Math.floor((joints[3 * a] + t * (joints[3 * e] - joints[3 * a]) - ox) / h);
    const j = Math.floor((joints[3 * a + 1] + t * (joints[3 * e + 1] - joints[3 * a + 1]) - oy) / h);
    const l = Math.floor((joints[3 * a + 2] + t * (joints[3 * e + 2] - joints[3 * a + 2]) - oz) / h);
    if (i < 0 || j < 0 || l < 0 || i >= nx || j >= ny || l >= nz) continue;
    const s2 = solid.index[i + nx * (j + ny * l)];
    if (s2 >= 0) {
      found.add(s2);
      inside++;
    }
  }
  const insideFraction = inside / (steps + 1);
  const centre = (s: number, axis: number): number => {
    const c = solid.cell[s];
    const coordinate = axis === 0 ? c % nx : axis === 1 ? Math.floor(c / nx) % ny : Math.floor(c / (nx * ny));
    return (axis === 0 ? ox : axis === 1 ? oy : oz) + (coordinate + 0.5) * h;
  };
  if (found.size > 0) {
    const voxels = Int32Array.from(found);
    const distances = Float64Array.from(voxels, (s) => segmentDistance(centre(s, 0), centre(s, 1), centre(s, 2), joints, a, e));
    return { voxels, distances, outside: false, insideFraction };
  }
  const all = new Float64Array(solid.count);
  let nearest = Infinity;
  for (let s = 0; s < solid.count; s++) {
    all[s] = segmentDistance(centre(s, 0), centre(s, 1), centre(s, 2), joints, a, e);
    if (all[s] < nearest) nearest = all[s];
  }
  const voxels: number[] = [];
  for (let s = 0; s < solid.count; s++) if (all[s] <= nearest + h) voxels.push(s);
  return { voxels: Int32Array.from(voxels), distances: Float64Array.from(voxels, (s) => all[s]), outside: true, insideFraction };
}

/** Dijkstra's algorithm over the solid voxels with an indexed binary heap, reused from bone to bone. */
class GeodesicSearch {
  private readonly distance: Float64Array;
  private readonly heap: Int32Array;
  private readonly place: Int32Array;
  private readonly done: Uint8Array;
  private size = 0;

  constructor(count: number) {
    this.distance = new Float64Array(count);
    this.heap = new Int32Array(count);
    this.place = new Int32Array(count).fill(-1);
    this.done = new Uint8Array(count);
  }

  /**
   * Distances from the seeds to every solid voxel the search reaches; each reached voxel's K nearest bones are
   * updated with bone b (see volumetricWeights, step 3, for the pruning).
   * @param nearestBone     #S × K bone of each voxel's nearest bones, −1 for empty places (sorted by distance)
   * @param nearestDistance #S × K their distances, mesh units (Infinity for empty places)
   */
  run(
    seeds: Int32Array,
    seedDistances: Float64Array,
    b: number,
    grid: Grid,
    solid: Solid,
    nearestBone: Int16Array,
    nearestDistance: Float32Array,
    k: number,
  ): void {
    const { distance, place, done } = this;
    distance.fill(Infinity);
    done.fill(0);
    this.size = 0;
    for (let i = 0; i < seeds.length; i++) this.update(seeds[i], seedDistances[i]);
    const { nx, ny, h } = grid;
    const offsets = neighbourOffsets(nx, ny);
    const steps = neighbourSteps(h);
    const { cell, index } = solid;
    while (this.size > 0) {
      const v = this.pop();
      done[v] = 1;
      place[v] = -1;
      const d = distance[v];
      const row = v * k;
      if (d >= nearestDistance[row + k - 1]) continue;
      insertNearest(nearestBone, nearestDistance, row, k, b, d);
      const c = cell[v];
      for (let o = 0; o < 26; o++) {
        const u = index[c + offsets[o]];
        if (u < 0 || done[u]) continue;
        const du = d + steps[o];
        if (du < distance[u]) this.update(u, du);
      }
    }
  }

  /** Lowers voxel v's tentative distance to d (inserting it into the heap when absent). */
  private update(v: number, d: number): void {
    const { distance, heap, place } = this;
    if (!(d < distance[v])) return;
    distance[v] = d;
    let i = place[v];
    if (i < 0) {
      i = this.size++;
      heap[i] = v;
      place[v] = i;
    }
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent];
      if (distance[p] <= d) break;
      heap[i] = p;
      place[p] = i;
      i = parent;
    }
    heap[i] = v;
    place[v] = i;
  }

  private pop(): number {
    const { distance, heap, place } = this;
    const top = heap[0];
    const last = heap[--this.size];
    if (this.size > 0) {
      const d = distance[last];
      let i = 0;
      for (;;) {
        let child = 2 * i + 1;
        if (child >= this.size) break;
        if (child + 1 < this.size && distance[heap[child + 1]] < distance[heap[child]]) child++;
        if (distance[heap[child]] >= d) break;
        heap[i] = heap[child];
        place[heap[i]] = i;
        i = child;
      }
      heap[i] = last;
      place[last] = i;
    }
    return top;
  }
}

/** Linear offsets of the 26 neighbours. */
function neighbourOffsets(nx: number, ny: number): Int32Array {
  const out = new Int32Array(26);
  let o = 0;
  for (let dl = -1; dl <= 1; dl++)
    for (let dj = -1; dj <= 1; dj++) for (let di = -1; di <= 1; di++) if (di || dj || dl) out[o++] = di + nx * (dj + ny * dl);
  return out;
}

/** Step lengths to the 26 neighbours (h, h√2, h√3), in neighbourOffsets' order. */
function neighbourSteps(h: number): Float64Array {
  const out = new Float64Array(26);
  let o = 0;
  for (let dl = -1; dl <= 1; dl++)
    for (let dj = -1; dj <= 1; dj++)
      for (let di = -1; di <= 1; di++) if (di || dj || dl) out[o++] = h * Math.sqrt(di * di + dj * dj + dl * dl);
  return out;
}

/** Inserts (b, d) into the sorted row of K nearest bones at `row`, dropping the farthest. */
function insertNearest(nearestBone: Int16Array, nearestDistance: Float32Array, row: number, k: number, b: number, d: number): void {
  let i = k - 1;
  while (i > 0 && nearestDistance[row + i - 1] > d) {
    nearestDistance[row + i] = nearestDistance[row + i - 1];
    nearestBone[row + i] = nearestBone[row + i - 1];
    i--;
  }
  nearestDistance[row + i] = d;
  nearestBone[row + i] = b;
}

/** Distances below this many default voxels count as this many (a voxel on the bone has finite weight). */
const NEAREST = 0.5;

/**
 * #S × K weights from the K nearest bones' distances, d^−falloff, each row normalized; a voxel no bone reached has a
 * row of zeros.
 * @param unit the distance unit, mesh units (a voxel of the default grid)
 */
function weightsFromDistances(
  nearestDistance: Float32Array,
  nearestBone: Int16Array,
  k: number,
  falloff: number,
  unit: number,
): Float32Array {
  const out = new Float32Array(nearestDistance.length);
  for (let row = 0; row < out.length; row += k) {
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
 * `passes` Jacobi passes: each solid voxel's weights become the mean of its own and its solid face neighbours' (those
 * that carry weights), keeping the K largest, normalized. `nearestBone` is rewritten to the kept bones (sorted by
 * weight, largest first; equal weights by bone index).
 * @param weights     #S × K the voxels' weights (of the bones in nearestBone)
 * @param nearestBone #S × K their bones, −1 for empty places; rewritten
 * @returns #S × K the smoothed weights
 */
function smoothWeights(
  weights: Float32Array,
  nearestBone: Int16Array,
  k: number,
  boneCount: number,
  grid: Grid,
  solid: Solid,
  passes: number,
  checkCancelled: () => void,
): Float32Array {
  const { nx, ny } = grid;
  const faces = [1, -1, nx, -nx, nx * ny, -nx * ny];
  // Each solid voxel and its solid face neighbours (−1 where there is none), found once for every pass.
  const around = new Int32Array(7 * solid.count);
  for (let v = 0; v < solid.count; v++) {
    around[7 * v] = v;
    for (let o = 0; o < 6; o++) around[7 * v + 1 + o] = solid.index[solid.cell[v] + faces[o]];
  }
  let inWeights: Float32Array = weights;
  let inBones: Int16Array = nearestBone;
  let outWeights: Float32Array = new Float32Array(weights.length);
  let outBones: Int16Array = new Int16Array(nearestBone.length);
  const accumulated = new Float64Array(boneCount);
  // seen[b] === stamp: bone b is in `touched` for the voxel being averaged.
  const seen = new Int32Array(boneCount).fill(-1);
  const touched = new Int32Array(7 * k);
  const topBones = new Int32Array(k);
  const topWeights = new Float64Array(k);
  for (let pass = 0; pass < passes; pass++) {
    checkCancelled();
    for (let v = 0; v < solid.count; v++) {
      let count = 0;
      for (let q = 7 * v; q < 7 * v + 7; q++) {
        const u = around[q];
        if (u < 0) continue;
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
  return inWeights === weights ? Float32Array.from(inWeights) : inWeights;
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
 * @param weights #V × #B out
 * @returns #V 1 where the vertex took the nearest voxel's weights, else 0
 */
function vertexWeights(
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
