import type { TgfSkeleton } from '../formats/types.ts';
import { WINDING_NUMBER_DEFAULTS } from '../mesh/winding-number.ts';
import { spreadWeldedRows, WELD_VERTICES_DEFAULTS, weldVertices, type WeldedVertices } from '../mesh/weld-vertices.ts';
import { weldedShells } from './binding-method.ts';
import { makeGrid, voxelizeSolid } from './voxel-solid.ts';
import { boneSeeds, GeodesicSearch } from './voxel-geodesics.ts';
import {
  aggregateVoxels,
  aggregateWeights,
  nodeVertexWeights,
  smoothWeights,
  vertexWeights,
  voxelGraph,
  weightsFromDistances,
} from './voxel-weights.ts';

/**
 * Geodesic voxel binding (Dionne and de Lasa 2013, "Geodesic Voxel Binding for Production Character Meshes"): the
 * solid the mesh encloses is voxelized, the bones are placed in it, and each vertex is weighted by the geodesic
 * distances, through the solid, from its voxel to the bones. It needs no manifold, closed or connected surface: a
 * voxel is solid where the generalized winding number says it is inside (open and self-intersecting shells) or where
 * a triangle crosses it (thin shells and single sheets), and every vertex of every shell takes the weights of the
 * solid around it.
 */

export interface VolumetricWeightsOptions {
  /**
   * voxels along the longest side of the mesh's bounding box, 64 to 512: a finer grid separates parts closer than a
   * default voxel (they need about two of its voxels between them), at the cost of the distances, which grows with
   * the solid voxels (the Fox on a loaded 2-core machine: 0.5–1.4 s at 128, 11–28 s at 512, BENCHMARKS.md); the
   * blend's length stays that of the default
   */
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
   * 0.0136, 0.0125) at a cost linear in the passes; 32 keeps a default bind within its time. Counted in passes of the
   * default grid, so the blend is a length in mesh units: a coarser grid runs passes · (resolution / 128)² passes (as
   * far, the spread growing as √passes voxels); a finer one runs the passes on the connected pieces of its solid in
   * each default-grid cell (aggregateVoxels), each starting from the sum of its voxels' weights, so a pass blends
   * over a default voxel as at the default while parts the fine grid separates (a gap under a default voxel) are
   * never averaged together.
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
   * vertices in a shell whose solid no bone reaches (such as a floating eye), which took their weights from the
   * nearest voxels that carry some: at the default grid and coarser ones, vertices none of whose eight surrounding
   * voxel centres carries weights, which take the nearest carrying voxel's row; on a finer grid, vertices whose own
   * voxel carries none, which interpolate the default-grid cells around them reached from the nearest carrying
   * voxel's node (or take that node's row)
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
 *    passes average each voxel with its solid face neighbours (keeping the K largest, normalized), on the default
 *    grid's spacing whatever the resolution: a finer grid's voxels are aggregated into nodes, the face-connected
 *    pieces of its solid inside each default-grid cell, two nodes neighbours where a voxel of one touches a voxel of
 *    the other through a face, each counted once as a voxel's face neighbour is (see the option). With a steep
 *    falloff each voxel starts near its nearest bone alone and the blend comes from this diffusion through the solid
 *    (the idea of Baran and Popović's bone heat, nearest bone and diffusion, in the solid): where two bones in line
 *    lie equally far (a plane through their joint), a region takes the bone its surroundings belong to.
 * 5. Vertices: the trilinear interpolation of the weights of the eight voxel centres around the vertex, over those
 *    that carry weights (renormalized); where none does, the weights of the nearest voxel that does. On a finer grid,
 *    of the eight default-grid cell centres around it, each cell taking its node nearest in graph steps (at most 3)
 *    to the node of the fine voxel holding the vertex (nodeVertexWeights): as smooth as at the default, and a part
 *    the fine grid separates takes nothing from its neighbour in the same cells. Each row keeps its K largest,
 *    normalized.
 *
 * All of it runs on the welded mesh (weldVertices with `weldTolerance`): the voxels from the welded triangles, whether
 * the mesh is closed from the welded shells, and each welded vertex weighted at its position (its first member's),
 * its row then given to every member, so seams — also those split by less than the tolerance — never tear.
 *
 * Memory: one byte and one 32-bit index per voxel of the grid, and at the default grid and coarser ones at most
 * 53 + 16K bytes per solid voxel: its number (4), the geodesic search's state (17; bones are processed one at a
 * time), the K nearest bones and distances (6K), the weights (4K), the smoothing's second buffers of weights and bones
 * (6K) and its table of each voxel's own and solid face neighbours' numbers with its offsets (at most 32, built in
 * place: voxelGraph). A grid finer than the default's keeps per solid voxel 25 + 10K bytes (its number, the search,
 * the nearest bones and distances, the weights, its node), 12 more while the nodes are found and 4 while they are
 * summed (aggregateVoxels, aggregateWeights), and per node, about one per solid voxel of the default grid (more where
 * a cell holds separate pieces), about 12K + 44 (the node's rows and second buffers, its table of about 7 neighbours
 * with its offsets, its cell, the vertices' marks; the table up to three times that while it is built). The Fox at
 * 512 voxels (12.1 million voxels, 2.5 million solid): about 0.27 GB at K = 4, 60 MB of it the grid.
 *
 * @param positions   #V × 3 rest positions, mesh units
 * @param triangles   #F × 3 vertex indices (any orientation mix; consistently outward gives the cleanest inside)
 * @param skeleton    joints #J × 3 and bones #B × 2 (start, end joint) in the mesh's space
 * @param options     see VolumetricWeightsOptions
 * @param progress    called with a stage name and the overall fraction done, in [0, 1]
 * @param isCancelled polled between stages, bones, regions and smoothing passes, every 65536 voxels of the longer
 *                    loops (a bone's search, the weights, the smoothing graph's building) and, on a finer grid, every 65536
 *                    vertices; when it returns true the computation throws an AbortError DOMException
 * @param welded      the mesh already welded by `weldTolerance` (a bind's one weld), or absent: welded here
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
  welded?: WeldedVertices,
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
  const weld = welded ?? weldVertices(positions, triangles, { tolerance: settings.weldTolerance });
  const grid = makeGrid(weld.positions, settings.resolution);
  const k = settings.maxInfluences;

  progress?.('voxelize', 0);
  // A closed mesh's winding number is constant on each region the surface voxels enclose; an open one's is not.
  const closed = weldedShells(weld).shells.every((shell) => shell.boundaryEdges === 0 && shell.nonManifoldEdges === 0);
  const { solid, surfaceVoxels, windingEvaluations } = voxelizeSolid(
    weld.positions,
    weld.triangles,
    grid,
    closed,
    settings.windingAccuracy,
    checkCancelled,
  );
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
    search.run(seeds.voxels, seeds.distances, b, grid, solid, nearestBone, nearestDistance, k, checkCancelled);
    progress?.('distances', 0.2 + (0.2 * (b + 1)) / Math.max(1, boneCount));
  }
  const distancesMs = performance.now() - t;

  checkCancelled();
  t = performance.now();
  // The smoothing takes about half a default bind's time or more (the Fox: 0.48 of 0.73 s), and half the bar.
  progress?.('smoothing', 0.4);
  // Distances in voxels of the default grid, whatever the resolution (only their ratios matter but for the clamp).
  const unit = grid.longest / VOLUMETRIC_WEIGHTS_DEFAULTS.resolution;
  let voxelWeights: Float32Array = weightsFromDistances(nearestDistance, nearestBone, k, settings.falloff, unit, checkCancelled);
  // The smoothing blends over a length in mesh units, whatever the resolution: `smoothingPasses` passes of the default
  // grid. A coarser grid runs the passes that blend as far (their spread grows as √passes voxels) on its own voxels; a
  // finer one runs them on the connected pieces of its solid inside each default-grid cell, so a pass blends over a
  // default voxel while parts the fine grid separates stay apart.
  let passes = settings.smoothingPasses;
  const finer = grid.h < unit;
  if (!finer) passes = Math.round(passes * (unit / grid.h) ** 2);
  const coarse = finer ? makeGrid(weld.positions, VOLUMETRIC_WEIGHTS_DEFAULTS.resolution) : grid;
  // On the grid's own voxels each node is a voxel, numbered as the voxel, and the voxels' rows are the nodes'.
  const nodes = finer ? aggregateVoxels(grid, solid, coarse, checkCancelled) : null;
  const graph = nodes ? nodes.graph : voxelGraph(grid, solid, checkCancelled);
  let nodeBones: Int16Array = nearestBone;
  if (nodes)
    ({ nearestBone: nodeBones, weights: voxelWeights } = aggregateWeights(
      voxelWeights,
      nearestBone,
      k,
      boneCount,
      nodes.nodeOf,
      graph.count,
      checkCancelled,
    ));
  checkCancelled();
  voxelWeights = smoothWeights(voxelWeights, nodeBones, k, boneCount, graph, passes, (pass) => {
    checkCancelled();
    progress?.('smoothing', 0.4 + (0.5 * pass) / passes);
  });
  const smoothMs = performance.now() - t;

  checkCancelled();
  t = performance.now();
  progress?.('vertices', 0.9);
  const weldedWeights = new Float64Array(weld.count * boneCount);
  // On the grid's own voxels the vertices sample them; on a finer grid's nodes, the coarse cells around them.
  const weldedFromNearestVoxel = nodes
    ? nodeVertexWeights(weld.positions, grid, solid, coarse, nodes, nodeBones, voxelWeights, k, boneCount, weldedWeights, checkCancelled)
    : vertexWeights(weld.positions, grid, solid, nodeBones, voxelWeights, k, boneCount, weldedWeights);
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
