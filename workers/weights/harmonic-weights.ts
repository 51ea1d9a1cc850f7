import type { CscMatrix } from '../sparse/csc-matrix.ts';
import { cotangentLaplacian } from '../mesh/cotangent-laplacian.ts';
import { kernelCotangentFreeBlock, type FreeBlock } from '../mesh/laplacian-kernel.ts';
import { uniformLaplacian } from '../mesh/uniform-laplacian.ts';
import { connectedComponents } from '../mesh/connected-components.ts';
import { amdOrdering } from '../sparse/amd-ordering.ts';
import { nestedDissectionOrdering } from '../sparse/nested-dissection-ordering.ts';
import { choleskySymbolic } from '../sparse/cholesky-symbolic.ts';
import { choleskyNumeric, type CholeskyFactor } from '../sparse/cholesky-numeric.ts';
import { choleskySolvePermuted, choleskySolveRows } from '../sparse/cholesky-solve.ts';
import { finishRows } from './finish-rows.ts';
import { NotPositiveDefiniteError } from '../sparse/not-positive-definite-error.ts';
import {
  spreadWeldedRows,
  WELD_VERTICES_DEFAULTS,
  weldedHandleConflicts,
  weldedHandles,
  weldRoots,
  weldedFromRoots,
  type WeldedVertices,
} from '../mesh/weld-vertices.ts';

export interface HarmonicWeightsOptions {
  /**
   * 'cotan': the cotangent Laplacian, smooth weights that follow the geometry (course handout Sec. 4).
   * 'uniform': the graph Laplacian, for meshes whose geometry is too broken for cotangents.
   */
  laplacian?: 'cotan' | 'uniform';
  /**
   * What to do with a connected component that has no handle vertex (harmonic weights are undefined there):
   * 'report' leaves its weights at zero; 'bind-rigidly' gives its vertices weight 1 on the bone whose handles are
   * nearest. Both report it.
   */
  unhandledComponents?: 'report' | 'bind-rigidly';
  /**
   * Fill-reducing ordering for the Cholesky factor. AMD is the default by measurement: on the hand, the body, the
   * body subdivided twice and the 131k tube it gives 15–35% less fill than nested dissection and orders faster.
   */
  ordering?: 'amd' | 'nested-dissection';
  /**
   * Whether the solve runs on the welded topology (weldVertices): vertices at the same place (seams, flat-shaded
   * corners) are one vertex of the Laplacian and get the same weights. Off: the file's index topology, on which a
   * split mesh is many pieces that move apart.
   */
  weld?: boolean;
  /** largest distance between vertices welded into one, in mesh units; 0 welds only exactly coincident ones */
  weldTolerance?: number;
}

export const HARMONIC_WEIGHTS_DEFAULTS: Required<HarmonicWeightsOptions> = {
  laplacian: 'cotan',
  unhandledComponents: 'report',
  ordering: 'amd',
  weld: true,
  weldTolerance: WELD_VERTICES_DEFAULTS.tolerance,
};

/** A connected component of the mesh without any handle vertex. */
export interface UnhandledComponent {
  vertexCount: number;
  /** the bone whose handle vertices come closest to the component, -1 when no bone has handles */
  nearestBone: number;
  /** the component's lowest vertex index, to point the user at it */
  firstVertex: number;
}

export interface HarmonicWeightsResult {
  /** #V × #B row-major; rows of handled vertices are in [0, 1] and sum to 1 (to 1e-12) */
  weights: Float64Array;
  /** bones with no handle vertex: their weights are zero everywhere */
  bonesWithoutHandles: number[];
  unhandledComponents: UnhandledComponent[];
  /** the Laplacian actually used: 'uniform' also when the cotangent one was not positive definite on the free vertices */
  laplacianUsed: 'cotan' | 'uniform';
  /** the vertices the solve ran on: #V less those welded into another (#V when nothing was welded or welding is off) */
  weldedVertexCount: number;
  /**
   * welded vertices whose members were handles of different bones (each holds its first member's bone), and the
   * lowest vertex of one of them; absent when there are none
   */
  handleConflicts?: { count: number; firstVertex: number };
  /**
   * wall-clock milliseconds per stage (weldMs: finding coincident vertices; solveMs: right-hand sides and the
   * triangular solves; finishMs: clamping and normalising the rows after them)
   */
  timings: {
    weldMs: number;
    laplacianMs: number;
    orderingMs: number;
    symbolicMs: number;
    factorMs: number;
    solveMs: number;
    finishMs: number;
    totalMs: number;
  };
}

/**
 * Harmonic skinning weights (course handout Sec. 4, Eq. 2; Baran & Popović 2007 use the same Dirichlet problem):
 * for each bone k, L w_k = 0 on the free vertices, w_k = 1 on bone k's handle vertices and 0 on other bones'
 * handles. One Cholesky factorization of the free-free block L_ff serves every bone; the right-hand sides
 * −L_fh·[handle indicator] are solved together in one pass over the factor, inside the output array.
 *
 * Since L's rows sum to zero, Σ_k w_k solves L_ff s = L_ff 1, so the weights are a partition of unity up to
 * round-off; they are then clamped to [0, 1] and each row rescaled to sum to exactly 1 (round-off only: the
 * cotangent Laplacian can give slightly negative weights next to obtuse triangles).
 *
 * The solve runs on the welded mesh (weldVertices, unless `weld` is off): vertices at the same position are one
 * unknown, a welded vertex is a handle of the bone of its first member that is one, and its row of weights is copied
 * to every member, so coincident vertices get bit-identical weights and seams cannot tear. Reported vertices
 * (`firstVertex`, `vertexCount`) are the input's.
 *
 * Connected components without a handle vertex are found before anything is factorized (their block would be
 * singular) and reported. If the cotangent L_ff still is not positive definite (broken geometry: an edge whose
 * cotangent weights cancel, cutting a piece off), the uniform Laplacian — positive definite on every handled
 * component — is used instead, with the same analysis, and reported in `laplacianUsed`.
 *
 * @param positions   #V × 3 rest positions
 * @param triangles   #F × 3 vertex indices
 * @param handles     #V: the bone a vertex is a handle of, or -1 for a free vertex
 * @param boneCount   #B
 * @param options     see HarmonicWeightsOptions
 * @param progress    called with a stage name and the overall fraction done, in [0, 1]
 * @param isCancelled polled between stages; when it returns true the computation throws an
 *                    AbortError DOMException
 * @param welded      the mesh already welded by `weldTolerance` (a bind's one weld), or absent: welded here
 * @returns weights and reports
 */
export function harmonicWeights(
  positions: Float64Array,
  triangles: Uint32Array,
  handles: Int32Array,
  boneCount: number,
  options: HarmonicWeightsOptions = {},
  progress?: (stage: string, fraction: number) => void,
  isCancelled?: () => boolean,
  welded?: WeldedVertices,
): HarmonicWeightsResult {
  const settings = { ...HARMONIC_WEIGHTS_DEFAULTS, ...options };
  const n = Math.floor(positions.length / 3);
  if (positions.length !== 3 * n) throw new RangeError(`harmonicWeights: positions has ${positions.length} values, not a multiple of 3`);
  if (handles.length !== n) throw new RangeError(`harmonicWeights: ${handles.length} handle labels for ${n} vertices`);
  if (!(Number.isInteger(boneCount) && boneCount >= 0)) throw new RangeError(`harmonicWeights: bone count ${boneCount} is not a count`);
  if (!settings.weld) return solveHarmonic(positions, triangles, handles, boneCount, settings, 0, progress, isCancelled).result;
  const start = performance.now();
  countHandles(handles, boneCount);
  // Which vertices weld first; the welded mesh only when some do (most meshes bound whole have no split vertices).
  const groups = welded ?? weldRoots(positions, { tolerance: settings.weldTolerance });
  if (groups.count === n)
    return solveHarmonic(positions, triangles, handles, boneCount, settings, performance.now() - start, progress, isCancelled).result;
  const weld = 'root' in groups ? weldedFromRoots(positions, triangles, groups) : groups;
  const weldMs = performance.now() - start;
  const { result, labels } = solveHarmonic(
    weld.positions,
    weld.triangles,
    weldedHandles(handles, weld),
    boneCount,
    settings,
    weldMs,
    progress,
    isCancelled,
  );
  const weights = spreadWeldedRows(result.weights, weld, boneCount, new Float64Array(n * boneCount));
  // Unhandled components in the input's vertices: their lowest vertex (a welded vertex's first member) and their size.
  const unhandledOf = new Map<number, number>();
  const unhandledComponents = result.unhandledComponents.map((c, u) => {
    unhandledOf.set(labels[c.firstVertex], u);
    return { ...c, firstVertex: weld.representative[c.firstVertex], vertexCount: 0 };
  });
  if (unhandledComponents.length > 0) {
    for (let v = 0; v < n; v++) {
      const u = unhandledOf.get(labels[weld.index[v]]);
      if (u !== undefined) unhandledComponents[u].vertexCount++;
    }
  }
  const conflicts = weldedHandleConflicts(handles, weld);
  const totalMs = performance.now() - start;
  return {
    ...result,
    weights,
    unhandledComponents,
    ...(conflicts.count > 0 ? { handleConflicts: conflicts } : {}),
    timings: { ...result.timings, totalMs },
  };
}

/**
 * harmonicWeights on the topology given (welded or not).
 * @param weldMs  the time spent welding before, reported with the timings
 * @returns the result and #V the connected component of each vertex
 */
function solveHarmonic(
  positions: Float64Array,
  triangles: Uint32Array,
  handles: Int32Array,
  boneCount: number,
  settings: Required<HarmonicWeightsOptions>,
  weldMs: number,
  progress?: (stage: string, fraction: number) => void,
  isCancelled?: () => boolean,
): { result: HarmonicWeightsResult; labels: Int32Array } {
  const n = Math.floor(positions.length / 3);
  const checkCancelled = () => {
    if (isCancelled?.()) throw new DOMException('harmonic weights cancelled', 'AbortError');
  };
  const start = performance.now();
  // Each loop over vertices lives in a function of its own: this runs once per bind, and V8 optimizes a function
  // with one loop on that loop's feedback, where one long function is compiled loop by loop, mid-run, and
  // deoptimized at each loop it has not seen yet.
  const handleCount = countHandles(handles, boneCount);
  const bonesWithoutHandles: number[] = [];
  const activeBones: number[] = [];
  for (let b = 0; b < boneCount; b++) (handleCount[b] === 0 ? bonesWithoutHandles : activeBones).push(b);

  const components = connectedComponents(n, triangles);
  const {
    handled: componentHandled,
    size: componentSize,
    first: componentFirst,
  } = componentSummary(components.labels, components.count, handles);
  const unhandledComponents: UnhandledComponent[] = [];
  const unhandledIndex = new Int32Array(components.count).fill(-1);
  for (let c = 0; c < components.count; c++) {
    if (componentHandled[c]) continue;
    unhandledIndex[c] = unhandledComponents.length;
    unhandledComponents.push({ vertexCount: componentSize[c], nearestBone: -1, firstVertex: componentFirst[c] });
  }
  if (unhandledComponents.length > 0) nearestBones(positions, handles, components.labels, unhandledIndex, unhandledComponents);

  checkCancelled();
  progress?.('laplacian', 0);
  // Free vertices: not handles, in a component that has a handle. Only their columns of K are read.
  const freeIndex = new Int32Array(n);
  const isFree = new Uint8Array(n);
  const freeCount = markFree(handles, components.labels, componentHandled, freeIndex, isFree);
  let laplacianUsed = settings.laplacian;
  let free =
    laplacianUsed === 'cotan'
      ? cotangentFreeBlock(positions, triangles, isFree, freeIndex, freeCount, handles)
      : freeBlock(uniformLaplacian(n, triangles), freeIndex, freeCount, handles);
  let kff = free.kff;
  const laplacianMs = performance.now() - start;

  checkCancelled();
  progress?.('ordering', 0.1);
  let t = performance.now();
  const perm = settings.ordering === 'amd' ? amdOrdering(kff) : nestedDissectionOrdering(kff);
  const orderingMs = performance.now() - t;
  t = performance.now();
  const symbolic = choleskySymbolic(kff, perm);
  const symbolicMs = performance.now() - t;

  checkCancelled();
  progress?.('factorization', 0.2);
  t = performance.now();
  let factor: CholeskyFactor;
  try {
    factor = choleskyNumeric(kff, symbolic);
  } catch (e) {
    if (!(e instanceof NotPositiveDefiniteError) || laplacianUsed === 'uniform') throw e;
    // Same mesh connectivity and free set, hence the same pattern: only the values change.
    laplacianUsed = 'uniform';
    free = freeBlock(uniformLaplacian(n, triangles), freeIndex, freeCount, handles);
    kff = free.kff;
    factor = choleskyNumeric(kff, symbolic);
  }
  const factorMs = performance.now() - t;

  checkCancelled();
  progress?.('solve', 0.5);
  t = performance.now();
  const weights = new Float64Array(n * boneCount);
  const width = activeBones.length;
  const column = solveColumns(activeBones, boneCount, free.couplingFree, free.couplingBone, symbolic.inversePerm);
  const { inversePerm } = symbolic;
  // Where the kernel runs, the right-hand sides are placed straight into its memory in pivot order and the rows are
  // finished from there: no copy of #free × width values in and out.
  const solved =
    freeCount > 0 && width > 0
      ? choleskySolveRows(factor, width, (x) => placeCouplings(free, inversePerm, column, freeCount, width, x, null))
      : null;
  if (solved === null) {
    // The solve runs inside `weights`, pivot row r at its own vertex's row (solved columns first), so no work array
    // (on the largest meshes it would double the peak memory).
    const rowOffsets = new Int32Array(freeCount);
    for (let v = 0; v < n; v++) if (freeIndex[v] >= 0) rowOffsets[inversePerm[freeIndex[v]]] = v * boneCount;
    const nonZero = placeCouplings(free, inversePerm, column, freeCount, width, weights, rowOffsets);
    checkCancelled();
    if (freeCount > 0 && width > 0) choleskySolvePermuted(factor, weights, width, rowOffsets, nonZero);
  }
  const solveMs = performance.now() - t;
  progress?.('solve', 0.9);
  t = performance.now();
  if (solved === null) finishRows(weights, boneCount, freeIndex, handles, column, weights, boneCount, null);
  else finishRows(weights, boneCount, freeIndex, handles, column, solved, width, inversePerm);
  if (settings.unhandledComponents === 'bind-rigidly')
    bindRigidly(weights, boneCount, components.labels, unhandledIndex, unhandledComponents);
  const finishMs = performance.now() - t;
  progress?.('done', 1);
  const result: HarmonicWeightsResult = {
    weights,
    bonesWithoutHandles,
    unhandledComponents,
    laplacianUsed,
    weldedVertexCount: n,
    timings: { weldMs, laplacianMs, orderingMs, symbolicMs, factorMs, solveMs, finishMs, totalMs: weldMs + performance.now() - start },
  };
  return { result, labels: components.labels };
}

/**
 * freeBlock of the cotangent Laplacian, assembled only in the free columns: in WebAssembly where it runs
 * (laplacian-kernel.ts, the same block and couplings bit for bit), else cotangentLaplacian and freeBlock.
 *
 * @param isFree    #V: 1 for the free vertices
 * @param freeIndex #V: each free vertex's index, −1 for the others
 * @param kernel    false: the JavaScript passes even where the WebAssembly ones could run
 */
export function cotangentFreeBlock(
  positions: Float64Array,
  triangles: Uint32Array,
  isFree: Uint8Array,
  freeIndex: Int32Array,
  freeCount: number,
  handles: Int32Array,
  kernel = true,
): FreeBlock {
  const block = kernel ? kernelCotangentFreeBlock(positions, triangles, isFree, freeIndex, freeCount, handles) : null;
  return block ?? freeBlock(cotangentLaplacian(positions, triangles, isFree), freeIndex, freeCount, handles);
}

/**
 * The lower triangle of K restricted to the free vertices, numbered by freeIndex (which increases with the
 * vertex index, so rows stay sorted), and the free–handle couplings that make up the right-hand sides.
 *
 * @returns kff; couplings as parallel arrays: free index, bone of the handle vertex, K value
 */
function freeBlock(k: CscMatrix, freeIndex: Int32Array, freeCount: number, handles: Int32Array): FreeBlock {
  const { colPointers, rowIndices, values } = k;
  const colPointersFf = new Int32Array(freeCount + 1);
  let count = 0;
  let couplings = 0;
  for (let v = 0; v < k.cols; v++) {
    const f = freeIndex[v];
    if (f < 0) continue;
    for (let p = colPointers[v]; p < colPointers[v + 1]; p++) {
      const r = rowIndices[p];
      if (freeIndex[r] >= f) count++;
      else if (handles[r] >= 0) couplings++;
    }
  }
  const rowsFf = new Int32Array(count);
  const valuesFf = new Float64Array(count);
  const couplingFree = new Int32Array(couplings);
  const couplingBone = new Int32Array(couplings);
  const couplingValue = new Float64Array(couplings);
  let w = 0;
  let c = 0;
  for (let v = 0; v < k.cols; v++) {
    const f = freeIndex[v];
    if (f < 0) continue;
    for (let p = colPointers[v]; p < colPointers[v + 1]; p++) {
      const r = rowIndices[p];
      const g = freeIndex[r];
      if (g >= f) {
        rowsFf[w] = g;
        valuesFf[w++] = values[p];
      } else if (handles[r] >= 0) {
        couplingFree[c] = f;
        couplingBone[c] = handles[r];
        couplingValue[c++] = values[p];
      }
    }
    colPointersFf[f + 1] = w;
  }
  return {
    kff: { rows: freeCount, cols: freeCount, colPointers: colPointersFf, rowIndices: rowsFf, values: valuesFf },
    couplingFree,
    couplingBone,
    couplingValue,
  };
}

/**
 * Checks every handle label and counts each bone's handle vertices.
 *
 * @param handles #V: bone of each handle vertex, -1 for a free vertex
 * @returns #B handle vertices per bone
 */
function countHandles(handles: Int32Array, boneCount: number): Int32Array {
  const handleCount = new Int32Array(boneCount);
  for (let i = 0; i < handles.length; i++) {
    const h = handles[i];
    if (h < -1 || h >= boneCount)
      throw new RangeError(`harmonicWeights: vertex ${i} is a handle of bone ${h}, there are ${boneCount} bones`);
    if (h >= 0) handleCount[h]++;
  }
  return handleCount;
}

/**
 * Per component: whether it has a handle vertex, its vertex count and its lowest vertex.
 *
 * @param labels #V component of each vertex
 * @returns three #components arrays
 */
function componentSummary(
  labels: Int32Array,
  count: number,
  handles: Int32Array,
): { handled: Uint8Array; size: Int32Array; first: Int32Array } {
  const handled = new Uint8Array(count);
  const size = new Int32Array(count);
  const first = new Int32Array(count).fill(-1);
  for (let i = 0; i < labels.length; i++) {
    const c = labels[i];
    size[c]++;
    if (first[c] < 0) first[c] = i;
    if (handles[i] >= 0) handled[c] = 1;
  }
  return { handled, size, first };
}

/**
 * Numbers the free vertices (not handles, in a handled component) in vertex order.
 *
 * @param freeIndex #V out: free index of each vertex, -1 for the others
 * @param isFree    #V out: 1 for the free vertices
 * @returns the number of free vertices
 */
function markFree(
  handles: Int32Array,
  labels: Int32Array,
  componentHandled: Uint8Array,
  freeIndex: Int32Array,
  isFree: Uint8Array,
): number {
  let freeCount = 0;
  for (let i = 0; i < handles.length; i++) {
    if (handles[i] < 0 && componentHandled[labels[i]]) {
      isFree[i] = 1;
      freeIndex[i] = freeCount++;
    } else {
      freeIndex[i] = -1;
    }
  }
  return freeCount;
}

/**
 * Solve column of each bone: bones whose handles are eliminated close together get neighbouring columns, which
 * keeps the solves' non-zero column ranges narrow (see choleskySolvePermuted).
 *
 * @param activeBones  the bones with handle vertices
 * @param couplingFree free index of each free–handle coupling, couplingBone the handle's bone
 * @param inversePerm  #free pivot of each free index
 * @returns #B column of each bone, -1 for bones without handles
 */
function solveColumns(
  activeBones: number[],
  boneCount: number,
  couplingFree: Int32Array,
  couplingBone: Int32Array,
  inversePerm: Int32Array,
): Int32Array {
  const pivotSum = new Float64Array(boneCount);
  const pivotCount = new Float64Array(boneCount);
  for (let c = 0; c < couplingFree.length; c++) {
    pivotSum[couplingBone[c]] += inversePerm[couplingFree[c]];
    pivotCount[couplingBone[c]]++;
  }
  const meanPivot = (b: number) => (pivotCount[b] > 0 ? pivotSum[b] / pivotCount[b] : Infinity);
  const order = [...activeBones].sort((a, b) => meanPivot(a) - meanPivot(b));
  const column = new Int32Array(boneCount).fill(-1);
  for (let c = 0; c < order.length; c++) column[order[c]] = c;
  return column;
}

/**
 * Writes the right-hand sides −L_fh·E: pivot row r at rowOffsets[r] of x (r·width when null), in solve columns
 * (minus the couplings of the vertex to the handle vertices of each bone).
 *
 * @param inversePerm #free pivot of each free index
 * @param column      #B solve column of each bone, -1 for bones without handles
 * @returns low, high: #free the column range outside of which pivot row r of the right-hand sides is zero (for
 *          choleskySolvePermuted)
 */
function placeCouplings(
  couplings: { couplingFree: Int32Array; couplingBone: Int32Array; couplingValue: Float64Array },
  inversePerm: Int32Array,
  column: Int32Array,
  freeCount: number,
  width: number,
  x: Float64Array,
  rowOffsets: Int32Array | null,
): { low: Int32Array; high: Int32Array } {
  const low = new Int32Array(freeCount).fill(width);
  const high = new Int32Array(freeCount);
  const { couplingFree, couplingBone, couplingValue } = couplings;
  for (let c = 0; c < couplingFree.length; c++) {
    const r = inversePerm[couplingFree[c]];
    const j = column[couplingBone[c]];
    x[(rowOffsets === null ? r * width : rowOffsets[r]) + j] -= couplingValue[c];
    if (j < low[r]) low[r] = j;
    if (j >= high[r]) high[r] = j + 1;
  }
  return { low, high };
}

/**
 * Weight 1 on its nearest bone for every vertex of an unhandled component (whose rows are still zero).
 *
 * @param labels         #V component of each vertex
 * @param unhandledIndex #components index into `components`, -1 for handled ones
 */
function bindRigidly(
  weights: Float64Array,
  boneCount: number,
  labels: Int32Array,
  unhandledIndex: Int32Array,
  components: UnhandledComponent[],
): void {
  for (let v = 0; v < labels.length; v++) {
    const u = unhandledIndex[labels[v]];
    if (u < 0) continue;
    const bone = components[u].nearestBone;
    if (bone >= 0) weights[v * boneCount + bone] = 1;
  }
}

/** Largest number of vertex-pair distances spent on finding each unhandled component's nearest bone. */
const NEAREST_BONE_PAIRS = 1 << 24;

/**
 * For each unhandled component, the bone owning the handle vertex closest to any of its vertices. Exact while
 * (component vertices × handle vertices) stays under NEAREST_BONE_PAIRS; beyond that the component's vertices
 * are sampled evenly, which can only pick a handle slightly farther than the closest.
 */
function nearestBones(
  positions: Float64Array,
  handles: Int32Array,
  labels: Int32Array,
  unhandledIndex: Int32Array,
  components: UnhandledComponent[],
): void {
  const n = handles.length;
  const handleVertices: number[] = [];
  for (let i = 0; i < n; i++) if (handles[i] >= 0) handleVertices.push(i);
  if (handleVertices.length === 0) return;
  const members: number[][] = components.map(() => []);
  for (let i = 0; i < n; i++) {
    const u = unhandledIndex[labels[i]];
    if (u >= 0) members[u].push(i);
  }
  for (let u = 0; u < components.length; u++) {
    const vertices = members[u];
    const step = Math.max(1, Math.ceil((vertices.length * handleVertices.length) / NEAREST_BONE_PAIRS));
    let best = Infinity;
    let bestBone = -1;
    for (let q = 0; q < vertices.length; q += step) {
      const v = vertices[q];
      const x = positions[3 * v];
      const y = positions[3 * v + 1];
      const z = positions[3 * v + 2];
      for (const h of handleVertices) {
        const dx = positions[3 * h] - x;
        const dy = positions[3 * h + 1] - y;
        const dz = positions[3 * h + 2] - z;
        const d = dx * dx + dy * dy + dz * dz;
        if (d < best) {
          best = d;
          bestBone = handles[h];
        }
      }
    }
    components[u].nearestBone = bestBone;
  }
}
