import type { CscMatrix } from '../sparse/csc-matrix.ts';
import { closestSurfacePoints } from '../mesh/closest-surface-points.ts';
import { connectedComponents } from '../mesh/connected-components.ts';
import { cotangentLaplacian } from '../mesh/cotangent-laplacian.ts';
import { uniformLaplacian } from '../mesh/uniform-laplacian.ts';
import { vertexNormals } from '../mesh/vertex-normals.ts';
import { oneRingAreas } from '../mesh/one-ring-area-change.ts';
import { spreadWeldedRows, weldVertices, type WeldedVertices } from '../mesh/weld-vertices.ts';
import { boundingBox } from '../mesh/bounds.ts';
import { vertexOneRing, type VertexOneRing } from '../paint/vertex-one-ring.ts';
import { amdOrdering } from '../sparse/amd-ordering.ts';
import { choleskySymbolic } from '../sparse/cholesky-symbolic.ts';
import { choleskyNumeric, type CholeskyFactor } from '../sparse/cholesky-numeric.ts';
import { choleskySolve } from '../sparse/cholesky-solve.ts';
import { NotPositiveDefiniteError } from '../sparse/not-positive-definite-error.ts';

export interface WeightTransferOptions {
  /**
   * Largest distance from a target vertex to its closest source point that counts as a match, as a fraction of the
   * target's bounding-box diagonal (Abdrashitov et al. 2023 suggest 0.05).
   */
  maxDistance?: number;
  /** Largest angle between the target vertex normal and the source normal there that counts as a match, degrees (the paper: 30); 180 accepts any. */
  maxAngle?: number;
  /**
   * Also match where the source normal faces the other way within maxAngle (a target whose normals point inward, a
   * one-sided card). The paper does not (a normal facing away is what tells an arm from the torso beside it): off.
   */
  acceptFlippedNormals?: boolean;
  /**
   * Smoothing passes over the inpainted vertices and the matched ones within maxDistance of them, after the
   * inpainting (the paper's optional step: 10); 0: none.
   */
  smoothIterations?: number;
  /** How far each smoothing pass moves a vertex's weights toward its neighbours' mean, in (0, 1] (the paper: 0.2). */
  smoothStrength?: number;
  /**
   * The Laplacian of the inpainting energy: 'cotan' (the paper's), or 'uniform' for a target whose geometry is too
   * broken for cotangents. 'cotan' gives way to 'uniform' by itself when its system is not positive definite.
   */
  laplacian?: 'cotan' | 'uniform';
  /**
   * Whether the transfer runs on the welded meshes (weldVertices): vertices at one place (split at UV seams, normal
   * creases, the corners of a flat-shaded mesh) are one, get one row of weights and one smooth normal on either side,
   * and the inpainting reaches across seams. false keeps the index topology and the files' normals.
   */
  weld?: boolean;
  /** largest distance between target vertices welded into one, in mesh units; 0 welds only coincident ones */
  weldTolerance?: number;
}

export const WEIGHT_TRANSFER_DEFAULTS: Required<WeightTransferOptions> = {
  maxDistance: 0.05,
  maxAngle: 30,
  acceptFlippedNormals: false,
  smoothIterations: 10,
  smoothStrength: 0.2,
  laplacian: 'cotan',
  weld: true,
  weldTolerance: 0,
};

/** A target vertex's weights were interpolated at its closest source point, which passed both thresholds. */
export const TRANSFER_MATCHED = 0;
/** A target vertex's weights were inpainted from the matched vertices around it. */
export const TRANSFER_INPAINTED = 1;
/**
 * A target vertex in a part of the target (a connected component) where no vertex matched: nothing to inpaint from,
 * so it keeps the weights of its closest source point (what nearest-point transfer gives).
 */
export const TRANSFER_NEAREST = 2;

export interface WeightTransferResult {
  /** #Vt × #B row-major weights of the target: each row in [0, 1] summing to 1 (around the locks, see weightTransfer) */
  weights: Float64Array;
  /** #Vt TRANSFER_MATCHED, TRANSFER_INPAINTED or TRANSFER_NEAREST */
  status: Uint8Array;
  /** #Vt 1 where the smoothing passes moved the vertex's weights (inpainted vertices and matched ones near them) */
  smoothed: Uint8Array;
  matchedCount: number;
  inpaintedCount: number;
  /** vertices in parts with no match, given their closest point's weights (TRANSFER_NEAREST) */
  nearestCount: number;
  smoothedCount: number;
  /** rows that could not be a partition of unity: the source's weights there are all zero, or the locks leave no room they could fill */
  unnormalizedCount: number;
  /** the target vertices the transfer ran on: #Vt less those welded into another */
  weldedVertexCount: number;
  /** the match distance used, in mesh units (maxDistance × the target's diagonal) */
  distanceUsed: number;
  /** the Laplacian the inpainting used: 'uniform' also when the cotangent system was not positive definite */
  laplacianUsed: 'cotan' | 'uniform';
  /** wall-clock milliseconds per stage */
  timings: { matchMs: number; inpaintMs: number; smoothMs: number; totalMs: number };
}

/** A triangle mesh as the transfer reads it. */
export interface TransferMesh {
  /** #V × 3 rest positions, one unit for source and target */
  positions: Float64Array;
  /** #F × 3 vertex indices */
  triangles: Uint32Array;
  /** optional #V × 3 unit vertex normals; area-weighted vertex normals (vertexNormals) when absent */
  normals?: Float64Array;
}

/** The weights a transfer must keep: the target's own columns of its locked bones. */
export interface TransferLocks {
  /** #B flags, 1 = locked */
  locked: Uint8Array;
  /** #Vt × #B the target's current weights: its locked columns stay as they are */
  weights: Float64Array;
}

/**
 * Robust skin weight transfer (Abdrashitov, Raichstat, Monsen and Hill 2023, "Robust Skin Weights Transfer via
 * Weight Inpainting"):
 *
 * 1. Matching: each target vertex's closest point on the source surface (closestSurfacePoints), its
 *    weights and normal interpolated there with the barycentric coordinates. The match is kept when the distance is
 *    at most maxDistance × the target's diagonal and the angle between the target vertex's normal and the source
 *    normal at most maxAngle; a target vertex near the torso whose closest point is on the arm facing it fails the
 *    angle test instead of taking the arm's weights (nearest-point transfer's bleeding).
 * 2. Inpainting: the unmatched vertices' weights minimise tr(Wᵀ Q W) with Q = −L + L M⁻¹ L (L the
 *    cotangent Laplacian 2·cotmatrix, negative semi-definite, M the lumped mass matrix: the Dirichlet energy plus the
 *    Laplacian energy), with the matched rows as Dirichlet conditions: Q_uu W_u = −Q_um W_m, one sparse Cholesky
 *    factorization for every bone. Q's rows sum to zero, so the rows of the solution sum to 1 where the matched
 *    ones do; round-off and the bi-Laplacian's overshoot are clamped to [0, 1] and the rows rescaled. M is the
 *    barycentric lumped mass (a third of each incident triangle's area) where the paper's code uses the Voronoi
 *    one: both are the same operator to first order, and the barycentric one stays positive on obtuse triangles.
 *    A connected component of the target with no matched vertex has nothing to inpaint from: its vertices keep
 *    their closest points' weights (TRANSFER_NEAREST).
 * 3. Smoothing (the paper's optional step): smoothIterations passes of w ← (1 − α) w + α · mean of the one-ring,
 *    over the inpainted vertices and the matched ones within maxDistance of one of them (reached through matched
 *    vertices), each pass from the previous pass's weights (Jacobi, so the result does not depend on vertex order).
 *    A convex combination of rows that sum to 1 sums to 1.
 * 4. Locks: a locked bone's column of the target keeps `locks.weights`; the other bones' transferred weights are
 *    rescaled to fill 1 − Σ locked. A row whose transferred weight lies on locked bones alone keeps its own unlocked
 *    weights rescaled instead; where neither has any, the row is counted in unnormalizedCount.
 *
 * Steps 1–3 run on the welded target (weldVertices, unless `weld` is off): vertices at one place are one vertex with
 * one row of weights and one normal, so a mesh split at seams or flat-shaded matches with smooth normals and is
 * inpainted across its seams; the source's normals are its welded mesh's too.
 *
 * @param source      the weighted mesh, with `weights` #Vs × #B row-major
 * @param target      the mesh to weight
 * @param boneCount   #B
 * @param options     see WeightTransferOptions
 * @param locks       optional: the target's locked bones and current weights
 * @param progress    called with a stage ('matching', 'inpainting', 'smoothing', 'done') and the overall fraction
 * @param isCancelled polled between stages and while matching; when it returns true the transfer throws an
 *                    AbortError DOMException
 * @returns the target's weights and what happened to each vertex
 * @throws RangeError naming the input that does not fit (sizes, an empty source, an option out of range)
 */
export function weightTransfer(
  source: TransferMesh & { weights: Float64Array },
  target: TransferMesh,
  boneCount: number,
  options: WeightTransferOptions = {},
  locks?: TransferLocks,
  progress?: (stage: string, fraction: number) => void,
  isCancelled?: () => boolean,
): WeightTransferResult {
  const settings = { ...WEIGHT_TRANSFER_DEFAULTS, ...options };
  const sourceCount = Math.floor(source.positions.length / 3);
  const n = Math.floor(target.positions.length / 3);
  checkInputs(source, target, boneCount, settings, locks, sourceCount, n);
  const start = performance.now();
  const nb = boneCount;
  // Welded meshes: the target's welded vertices are the unknowns; the source is welded for its normals alone.
  const weld = settings.weld ? weldVertices(target.positions, target.triangles, { tolerance: settings.weldTolerance }) : null;
  const welded = weld && weld.count < n ? weld : null;
  const mesh: TransferMesh = welded
    ? {
        positions: welded.positions,
        triangles: welded.triangles,
        normals: target.normals && pickRows(target.normals, welded.representative, 3),
      }
    : target;
  const sourceNormals = source.normals ?? smoothNormals(source, settings.weld);
  const solved = transferOnMesh(source, sourceNormals, mesh, nb, settings, progress, isCancelled);
  const weights = welded ? spreadWeldedRows(solved.weights, welded, nb, new Float64Array(n * nb)) : solved.weights;
  const status = welded ? spreadFlags(solved.status, welded) : solved.status;
  const smoothed = welded ? spreadFlags(solved.smoothed, welded) : solved.smoothed;
  let unnormalizedCount = solved.emptyRows;
  if (locks && locks.locked.some((l) => l !== 0)) unnormalizedCount = keepLocks(weights, nb, locks);
  const counts = [0, 0, 0];
  let smoothedCount = 0;
  for (let v = 0; v < n; v++) {
    counts[status[v]]++;
    smoothedCount += smoothed[v];
  }
  progress?.('done', 1);
  return {
    weights,
    status,
    smoothed,
    matchedCount: counts[TRANSFER_MATCHED],
    inpaintedCount: counts[TRANSFER_INPAINTED],
    nearestCount: counts[TRANSFER_NEAREST],
    smoothedCount,
    unnormalizedCount,
    weldedVertexCount: welded ? welded.count : n,
    distanceUsed: solved.distanceUsed,
    laplacianUsed: solved.laplacianUsed,
    timings: { ...solved.timings, totalMs: performance.now() - start },
  };
}

/** A per-welded-vertex byte given to every vertex welded into it: #V. */
function spreadFlags(values: Uint8Array, weld: WeldedVertices): Uint8Array {
  const out = new Uint8Array(weld.index.length);
  for (let v = 0; v < out.length; v++) out[v] = values[weld.index[v]];
  return out;
}

/** rows[representative[i]] for each i: #W × width. */
function pickRows(rows: Float64Array, representative: Int32Array, width: number): Float64Array {
  const out = new Float64Array(representative.length * width);
  for (let i = 0; i < representative.length; i++)
    out.set(rows.subarray(representative[i] * width, representative[i] * width + width), i * width);
  return out;
}

/** #V × 3 area-weighted vertex normals, of the welded mesh when `weld` (each vertex its welded vertex's normal). */
function smoothNormals(mesh: TransferMesh, weld: boolean): Float64Array {
  const n = Math.floor(mesh.positions.length / 3);
  const welded: WeldedVertices | null = weld ? weldVertices(mesh.positions, mesh.triangles) : null;
  if (!welded || welded.count === n) return vertexNormals(mesh.positions, mesh.triangles);
  return spreadWeldedRows(vertexNormals(welded.positions, welded.triangles), welded, 3, new Float64Array(3 * n));
}

/** Steps 1–3 of weightTransfer on one mesh (the welded target): matching, inpainting, smoothing. */
function transferOnMesh(
  source: TransferMesh & { weights: Float64Array },
  sourceNormals: Float64Array,
  target: TransferMesh,
  nb: number,
  settings: Required<WeightTransferOptions>,
  progress: ((stage: string, fraction: number) => void) | undefined,
  isCancelled: (() => boolean) | undefined,
): {
  weights: Float64Array;
  status: Uint8Array;
  smoothed: Uint8Array;
  emptyRows: number;
  distanceUsed: number;
  laplacianUsed: 'cotan' | 'uniform';
  timings: { matchMs: number; inpaintMs: number; smoothMs: number };
} {
  const checkCancelled = () => {
    if (isCancelled?.()) throw new DOMException('weight transfer cancelled', 'AbortError');
  };
  const n = Math.floor(target.positions.length / 3);
  const start = performance.now();

  // 1. Matching.
  progress?.('matching', 0);
  const closest = closestSurfacePoints(
    source.positions,
    source.triangles,
    target.positions,
    (fraction) => progress?.('matching', 0.4 * fraction),
    isCancelled,
  );
  const targetNormals = target.normals ?? vertexNormals(target.positions, target.triangles);
  const distanceUsed = settings.maxDistance * boundingBox(target.positions).diagonal;
  const weights = new Float64Array(n * nb);
  const matched = new Uint8Array(n);
  matchVertices(source, sourceNormals, targetNormals, closest, nb, distanceUsed, settings, weights, matched);
  const matchMs = performance.now() - start;

  // 2. Inpainting.
  checkCancelled();
  progress?.('inpainting', 0.4);
  let t = performance.now();
  const status = new Uint8Array(n);
  const components = connectedComponents(n, target.triangles);
  const componentMatched = new Uint8Array(components.count);
  for (let v = 0; v < n; v++) if (matched[v]) componentMatched[components.labels[v]] = 1;
  const freeIndex = new Int32Array(n).fill(-1);
  let freeCount = 0;
  for (let v = 0; v < n; v++) {
    if (matched[v]) continue;
    if (componentMatched[components.labels[v]]) {
      status[v] = TRANSFER_INPAINTED;
      freeIndex[v] = freeCount++;
    } else {
      status[v] = TRANSFER_NEAREST;
    }
  }
  let laplacianUsed = settings.laplacian;
  if (freeCount > 0) {
    laplacianUsed = inpaint(target, freeIndex, freeCount, nb, settings.laplacian, weights, checkCancelled, (fraction) =>
      progress?.('inpainting', 0.4 + 0.4 * fraction),
    );
  }
  const emptyRows = clampRows(weights, nb);
  const inpaintMs = performance.now() - t;

  // 3. Smoothing.
  checkCancelled();
  progress?.('smoothing', 0.8);
  t = performance.now();
  let smoothed: Uint8Array = new Uint8Array(n);
  if (freeCount > 0 && settings.smoothIterations > 0) {
    const ring = vertexOneRing(n, target.triangles);
    smoothed = smoothingRegion(target.positions, ring, status, distanceUsed);
    smoothRows(weights, nb, ring, smoothed, settings.smoothIterations, settings.smoothStrength);
  }
  const smoothMs = performance.now() - t;
  return { weights, status, smoothed, emptyRows, distanceUsed, laplacianUsed, timings: { matchMs, inpaintMs, smoothMs } };
}

function checkInputs(
  source: TransferMesh & { weights: Float64Array },
  target: TransferMesh,
  boneCount: number,
  settings: Required<WeightTransferOptions>,
  locks: TransferLocks | undefined,
  sourceCount: number,
  n: number,
): void {
  if (!(Number.isInteger(boneCount) && boneCount >= 0)) throw new RangeError(`weightTransfer: bone count ${boneCount} is not a count`);
  if (source.positions.length !== 3 * sourceCount)
    throw new RangeError(`weightTransfer: source positions have ${source.positions.length} values, not a multiple of 3`);
  if (target.positions.length !== 3 * n)
    throw new RangeError(`weightTransfer: target positions have ${target.positions.length} values, not a multiple of 3`);
  if (source.triangles.length < 3) throw new RangeError('weightTransfer: the source mesh has no triangles to take weights from');
  if (source.weights.length !== sourceCount * boneCount)
    throw new RangeError(
      `weightTransfer: source weights have ${source.weights.length} values, not ${sourceCount} vertices × ${boneCount} bones`,
    );
  if (source.normals && source.normals.length !== 3 * sourceCount)
    throw new RangeError(`weightTransfer: ${source.normals.length / 3} source normals for ${sourceCount} vertices`);
  if (target.normals && target.normals.length !== 3 * n)
    throw new RangeError(`weightTransfer: ${target.normals.length / 3} target normals for ${n} vertices`);
  for (let t = 0; t < target.triangles.length; t++) {
    if (target.triangles[t] >= n)
      throw new RangeError(`weightTransfer: target face ${Math.floor(t / 3)} names vertex ${target.triangles[t]}, the mesh has ${n}`);
  }
  if (!(settings.maxDistance >= 0)) throw new RangeError(`weightTransfer: maxDistance ${settings.maxDistance} is not ≥ 0`);
  if (!(settings.maxAngle >= 0 && settings.maxAngle <= 180))
    throw new RangeError(`weightTransfer: maxAngle ${settings.maxAngle}° is not in [0, 180]`);
  if (!(Number.isInteger(settings.smoothIterations) && settings.smoothIterations >= 0))
    throw new RangeError(`weightTransfer: smoothIterations ${settings.smoothIterations} is not a whole number ≥ 0`);
  if (!(settings.smoothStrength > 0 && settings.smoothStrength <= 1))
    throw new RangeError(`weightTransfer: smoothStrength ${settings.smoothStrength} is not in (0, 1]`);
  if (locks) {
    if (locks.locked.length !== boneCount) throw new RangeError(`weightTransfer: locks for ${locks.locked.length} bones, not ${boneCount}`);
    if (locks.weights.length !== n * boneCount)
      throw new RangeError(`weightTransfer: the target's current weights have ${locks.weights.length} values, not ${n} × ${boneCount}`);
  }
}

/**
 * Step 1: every target row gets the source weights interpolated at its closest point; `matched` marks those within
 * the distance whose normals agree.
 * @param weights #Vt × #B out
 * @param matched #Vt out
 */
function matchVertices(
  source: TransferMesh & { weights: Float64Array },
  sourceNormals: Float64Array,
  targetNormals: Float64Array,
  closest: { triangle: Int32Array; barycentric: Float64Array; squaredDistance: Float64Array },
  nb: number,
  distance: number,
  settings: Required<WeightTransferOptions>,
  weights: Float64Array,
  matched: Uint8Array,
): void {
  const { triangles } = source;
  const sourceWeights = source.weights;
  const squaredLimit = distance * distance;
  const anyAngle = settings.maxAngle >= 180;
  const cosLimit = Math.cos((settings.maxAngle * Math.PI) / 180);
  const n = matched.length;
  for (let v = 0; v < n; v++) {
    const f = closest.triangle[v];
    const a = triangles[3 * f],
      b = triangles[3 * f + 1],
      c = triangles[3 * f + 2];
    const u0 = closest.barycentric[3 * v],
      u1 = closest.barycentric[3 * v + 1],
      u2 = closest.barycentric[3 * v + 2];
    const out = v * nb;
    for (let k = 0; k < nb; k++)
      weights[out + k] = u0 * sourceWeights[a * nb + k] + u1 * sourceWeights[b * nb + k] + u2 * sourceWeights[c * nb + k];
    if (!(closest.squaredDistance[v] <= squaredLimit)) continue;
    if (anyAngle) {
      matched[v] = 1;
      continue;
    }
    const nx = u0 * sourceNormals[3 * a] + u1 * sourceNormals[3 * b] + u2 * sourceNormals[3 * c];
    const ny = u0 * sourceNormals[3 * a + 1] + u1 * sourceNormals[3 * b + 1] + u2 * sourceNormals[3 * c + 1];
    const nz = u0 * sourceNormals[3 * a + 2] + u1 * sourceNormals[3 * b + 2] + u2 * sourceNormals[3 * c + 2];
    const length = Math.hypot(nx, ny, nz);
    const targetLength = Math.hypot(targetNormals[3 * v], targetNormals[3 * v + 1], targetNormals[3 * v + 2]);
    if (!(length > 0 && targetLength > 0)) continue;
    const cos = (nx * targetNormals[3 * v] + ny * targetNormals[3 * v + 1] + nz * targetNormals[3 * v + 2]) / (length * targetLength);
    if (cos >= cosLimit || (settings.acceptFlippedNormals && -cos >= cosLimit)) matched[v] = 1;
  }
}

/**
 * Step 2: solves Q_uu W_u = −Q_um W_m for the free (inpainted) rows of `weights`, in place.
 * @param freeIndex #Vt index of each free vertex among the free ones (increasing with the vertex), -1 for the others
 * @returns the Laplacian used
 */
function inpaint(
  target: TransferMesh,
  freeIndex: Int32Array,
  freeCount: number,
  nb: number,
  laplacian: 'cotan' | 'uniform',
  weights: Float64Array,
  checkCancelled: () => void,
  progress: (fraction: number) => void,
): 'cotan' | 'uniform' {
  const n = freeIndex.length;
  let used = laplacian;
  let system = inpaintingSystem(target, used, freeIndex, freeCount, nb, weights);
  const perm = amdOrdering(system.quu);
  const symbolic = choleskySymbolic(system.quu, perm);
  checkCancelled();
  progress(0.25);
  let factor: CholeskyFactor;
  try {
    factor = choleskyNumeric(system.quu, symbolic);
  } catch (error) {
    if (!(error instanceof NotPositiveDefiniteError) || used === 'uniform') throw error;
    // The uniform system has the same pattern (the same two-ring), so the symbolic analysis carries over.
    used = 'uniform';
    system = inpaintingSystem(target, used, freeIndex, freeCount, nb, weights);
    factor = choleskyNumeric(system.quu, symbolic);
  }
  checkCancelled();
  progress(0.75);
  const solution = choleskySolve(factor, system.rhs, nb);
  for (let v = 0; v < n; v++) {
    const f = freeIndex[v];
    if (f >= 0) weights.set(solution.subarray(f * nb, f * nb + nb), v * nb);
  }
  progress(1);
  return used;
}

/**
 * Q = K + K M⁻¹ K on the target, with K = −L the positive semi-definite Laplacian (K_ij = −(cot α + cot β) for the
 * cotangent one, twice cotangentLaplacian, as the paper's 2·cotmatrix; the graph Laplacian for 'uniform', with M = I),
 * restricted to the free vertices: the lower triangle of Q_uu, and the right-hand sides −Q_um W_m.
 *
 * Column i of K M⁻¹ K is Σ_k K_ki / m_k · K_{·k} over the neighbours k of i (and i itself): a two-ring, gathered
 * column by column in a dense accumulator over the vertices.
 *
 * @returns quu: #free × #free lower triangle; rhs: #free × #B row-major
 */
function inpaintingSystem(
  target: TransferMesh,
  laplacian: 'cotan' | 'uniform',
  freeIndex: Int32Array,
  freeCount: number,
  nb: number,
  weights: Float64Array,
): { quu: CscMatrix; rhs: Float64Array } {
  const n = freeIndex.length;
  const k = laplacian === 'cotan' ? cotangentLaplacian(target.positions, target.triangles) : uniformLaplacian(n, target.triangles);
  const scale = laplacian === 'cotan' ? 2 : 1;
  const inverseMass = laplacian === 'cotan' ? inverseLumpedMass(target.positions, target.triangles) : new Float64Array(n).fill(1);
  const { colPointers, rowIndices, values } = k;
  const accumulated = new Float64Array(n);
  const mark = new Int32Array(n).fill(-1);
  const touched = new Int32Array(n);
  const rhs = new Float64Array(freeCount * nb);
  const pointers = new Int32Array(freeCount + 1);
  let rows: Int32Array = new Int32Array(16 * freeCount);
  let entries: Float64Array = new Float64Array(16 * freeCount);
  let nnz = 0;
  for (let i = 0; i < n; i++) {
    const f = freeIndex[i];
    if (f < 0) continue;
    let touchedCount = 0;
    const add = (j: number, x: number) => {
      if (mark[j] !== i) {
        mark[j] = i;
        accumulated[j] = 0;
        touched[touchedCount++] = j;
      }
      accumulated[j] += x;
    };
    for (let p = colPointers[i]; p < colPointers[i + 1]; p++) {
      const m = rowIndices[p];
      const kmi = scale * values[p];
      add(m, kmi);
      const s = kmi * inverseMass[m];
      if (s === 0) continue;
      for (let q = colPointers[m]; q < colPointers[m + 1]; q++) add(rowIndices[q], s * scale * values[q]);
    }
    const column = touched.subarray(0, touchedCount).sort();
    if (nnz + touchedCount > rows.length) {
      const grown = Math.max(2 * rows.length, nnz + touchedCount);
      rows = growInt(rows, grown);
      entries = growFloat(entries, grown);
    }
    for (const j of column) {
      const g = freeIndex[j];
      const x = accumulated[j];
      if (g >= f) {
        rows[nnz] = g;
        entries[nnz++] = x;
      } else if (g < 0) {
        // A matched neighbour: its known weights move to the right-hand side.
        for (let b = 0; b < nb; b++) rhs[f * nb + b] -= x * weights[j * nb + b];
      }
    }
    pointers[f + 1] = nnz;
  }
  return {
    quu: { rows: freeCount, cols: freeCount, colPointers: pointers, rowIndices: rows.slice(0, nnz), values: entries.slice(0, nnz) },
    rhs,
  };
}

function growInt(array: Int32Array, length: number): Int32Array {
  const grown = new Int32Array(length);
  grown.set(array);
  return grown;
}

function growFloat(array: Float64Array, length: number): Float64Array {
  const grown = new Float64Array(length);
  grown.set(array);
  return grown;
}

/**
 * #V inverse barycentric lumped mass: 3 / (the summed area of the vertex's triangles); 0 for a vertex whose
 * triangles all have zero area (its cotangent column is empty too, so it adds nothing to K M⁻¹ K).
 */
function inverseLumpedMass(positions: Float64Array, triangles: Uint32Array): Float64Array {
  // A vertex's lumped mass is a third of its one-ring's area.
  const mass = oneRingAreas(positions, triangles, new Float64Array(Math.floor(positions.length / 3)));
  for (let v = 0; v < mass.length; v++) mass[v] = mass[v] > 0 ? 3 / mass[v] : 0;
  return mass;
}

/**
 * Every row clamped to [0, 1] and rescaled to sum to 1.
 * @returns the rows left all zero (nothing to rescale)
 */
function clampRows(weights: Float64Array, nb: number): number {
  let empty = 0;
  for (let o = 0; o < weights.length; o += nb) {
    let sum = 0;
    for (let b = 0; b < nb; b++) {
      const x = weights[o + b];
      const clamped = x > 0 ? (x < 1 ? x : 1) : 0;
      weights[o + b] = clamped;
      sum += clamped;
    }
    if (!(sum > 0)) {
      if (nb > 0) empty++;
      continue;
    }
    if (sum !== 1) for (let b = 0; b < nb; b++) weights[o + b] /= sum;
  }
  return empty;
}

/**
 * The vertices the smoothing passes move: the inpainted ones, and each matched vertex reached from an inpainted one
 * through matched vertices all within `distance` of it (a search from each inpainted vertex on the region's rim).
 * @returns #V 1 = smoothed
 */
function smoothingRegion(positions: Float64Array, ring: VertexOneRing, status: Uint8Array, distance: number): Uint8Array {
  const n = status.length;
  const region = new Uint8Array(n);
  const seenFrom = new Int32Array(n).fill(-1);
  const queue = new Int32Array(n);
  const squared = distance * distance;
  const { offsets, neighbors } = ring;
  for (let u = 0; u < n; u++) if (status[u] === TRANSFER_INPAINTED) region[u] = 1;
  for (let u = 0; u < n; u++) {
    if (status[u] !== TRANSFER_INPAINTED) continue;
    let head = 0;
    let tail = 0;
    queue[tail++] = u;
    seenFrom[u] = u;
    while (head < tail) {
      const v = queue[head++];
      for (let p = offsets[v]; p < offsets[v + 1]; p++) {
        const w = neighbors[p];
        if (seenFrom[w] === u || status[w] !== TRANSFER_MATCHED) continue;
        seenFrom[w] = u;
        const dx = positions[3 * w] - positions[3 * u],
          dy = positions[3 * w + 1] - positions[3 * u + 1],
          dz = positions[3 * w + 2] - positions[3 * u + 2];
        if (dx * dx + dy * dy + dz * dz > squared) continue;
        region[w] = 1;
        queue[tail++] = w;
      }
    }
  }
  return region;
}

/** `iterations` Jacobi passes of w ← (1 − α) w + α · (mean of the one-ring's w) over the rows in `region`, in place. */
function smoothRows(weights: Float64Array, nb: number, ring: VertexOneRing, region: Uint8Array, iterations: number, alpha: number): void {
  const { offsets, neighbors } = ring;
  const rows: number[] = [];
  for (let v = 0; v < region.length; v++) if (region[v] && offsets[v + 1] > offsets[v]) rows.push(v);
  const next = new Float64Array(rows.length * nb);
  for (let pass = 0; pass < iterations; pass++) {
    for (let r = 0; r < rows.length; r++) {
      const v = rows[r];
      const share = alpha / (offsets[v + 1] - offsets[v]);
      for (let b = 0; b < nb; b++) next[r * nb + b] = (1 - alpha) * weights[v * nb + b];
      for (let p = offsets[v]; p < offsets[v + 1]; p++) {
        const w = neighbors[p] * nb;
        for (let b = 0; b < nb; b++) next[r * nb + b] += share * weights[w + b];
      }
    }
    for (let r = 0; r < rows.length; r++) weights.set(next.subarray(r * nb, r * nb + nb), rows[r] * nb);
  }
}

/**
 * Step 4: locked columns from `locks.weights`, unlocked ones rescaled to 1 − Σ locked (see weightTransfer).
 * @returns rows that could not sum to 1
 */
function keepLocks(weights: Float64Array, nb: number, locks: TransferLocks): number {
  const { locked, weights: current } = locks;
  let failed = 0;
  for (let o = 0; o < weights.length; o += nb) {
    let lockedSum = 0;
    let transferred = 0;
    let own = 0;
    for (let b = 0; b < nb; b++) {
      if (locked[b]) lockedSum += current[o + b];
      else {
        transferred += weights[o + b];
        own += current[o + b] > 0 ? current[o + b] : 0;
      }
    }
    const room = lockedSum < 1 ? 1 - lockedSum : 0;
    const from = transferred > 0 ? weights : own > 0 ? current : null;
    const sum = transferred > 0 ? transferred : own;
    for (let b = 0; b < nb; b++) {
      if (locked[b]) weights[o + b] = current[o + b];
      else weights[o + b] = from && from[o + b] > 0 ? (from[o + b] * room) / sum : 0;
    }
    if (lockedSum > 1 + 1e-9 || (room > 0 && !from)) failed++;
  }
  return failed;
}
