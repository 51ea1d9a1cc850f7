/**
 * Per-face skinning with Poisson stitching (course handout Sec. 7, Eq. 5–6).
 *
 * Each face f gets the rotation q_f = exp Σ_k h_k(f) log q_k (Eq. 5): the bones' rest → posed rotations blended
 * in log-quaternion space with per-face weights h_k(f), the mean of the three corner weights. Before blending,
 * each face's bone quaternions are made sign-consistent: the face's strongest bone is taken with w ≥ 0 and every
 * other bone with a non-negative dot product against it (q and −q are one rotation, but their logarithms differ).
 *
 * The vertices are then stitched (Eq. 6): positions x whose per-face gradients G_f x best match the rotated rest
 * gradients R_f G_f x̄, in the area-weighted least-squares sense
 *
 *     min_x Σ_f A_f ‖G_f x − R_f G_f x̄‖²   ⇔   (Gᵀ A G) x = Gᵀ A g̃,
 *
 * with the fixed vertices (Dirichlet rows) moved rigidly by their bone's transform, since gradients carry no
 * translation. Gᵀ A G is the cotangent Laplacian assembled from the same face gradients, so the rest pose and a
 * single rigid motion are reproduced up to solver round-off. The free block is factored once per mesh and fixed
 * set (sparse Cholesky, workers/sparse) and packed for the three-column solve; each frame solves three right-hand
 * sides, one per coordinate, in one pass over the factor each way.
 */
import { cscFromTriplets, type CscMatrix } from '../sparse/csc-matrix.ts';
import { amdOrdering } from '../sparse/amd-ordering.ts';
import { choleskySymbolic } from '../sparse/cholesky-symbolic.ts';
import { choleskyNumeric, type CholeskyFactor } from '../sparse/cholesky-numeric.ts';
import { choleskyPanels, choleskyPanelSolveThree, type CholeskyPanels } from '../sparse/cholesky-panels.ts';
import { matrixToQuat } from '../math/quaternion.ts';
import { logExpCos, logExpSinc } from '../math/half-angle-series.ts';
import type { Influences } from './influences.ts';
import { faceKernel, type FaceKernel } from './face-kernel.ts';
import { MemoryCarver } from '../sparse/wasm-module.ts';

/** Faces whose doubled area is below this fraction of their summed squared edge lengths carry no gradient. */
const ZERO_AREA = 1e-14;

/** Everything that depends on the rest mesh, the weights and the fixed set, not on the pose. */
export interface PerFaceSkinningSetup {
  vertexCount: number;
  faceCount: number;
  boneCount: number;
  /**
   * #F + 1: face f's bones and weights are slots faceSlotStart[f] … faceSlotStart[f + 1] − 1. The setup's faces (here,
   * in faceProducts, triangles and cornerRows) are the mesh's in the order of their lowest pivot row, so that the
   * frame's face loop adds into the right-hand sides nearly in order rather than all over them.
   */
  faceSlotStart: Uint32Array;
  /** per slot: a bone's mean corner weight over the face, strongest first within each face */
  faceWeights: Float64Array;
  /**
   * per slot: the index of the pair (the face's strongest bone, the slot's bone) in pairBones. The sign of a
   * bone's quaternion in a face's blend depends only on that pair, so each frame takes one log per pair.
   */
  slotPairs: Uint32Array;
  /** #pairs × 2: reference bone, blended bone */
  pairBones: Uint32Array;
  /** #F × 9: entry 3i + d = A_f ∇φ_i · ∇x̄_d for corner i and rest coordinate d (the stitching's right-hand side) */
  faceProducts: Float64Array;
  /** #F × 3 the faces' corners (the mesh's triangles, in the setup's face order) */
  triangles: Uint32Array;
  /** #F × 3 each corner's solutionRow: where the face loop adds its target gradients */
  cornerRows: Int32Array;
  restPositions: Float64Array;
  /** #V bone that moves a fixed vertex, or -1 for a free vertex */
  fixedBones: Int32Array;
  /** #V index among the free vertices, or -1 */
  freeIndex: Int32Array;
  freeCount: number;
  /**
   * #V where vertex v's three values start in the pivot-ordered solution (3 × its pivot row); fixed vertices all
   * point at the spare row after the last pivot, so accumulating into it needs no test
   */
  solutionRow: Int32Array;
  /** #free 3 × the vertex of each pivot row (where its position starts in a #V × 3 array): solutionRow inverted */
  pivotVertex: Int32Array;
  /** free × fixed block of Gᵀ A G, rows in pivot order (columns = fixed vertices in `fixedVertices` order) */
  freeFixed: CscMatrix;
  fixedVertices: Int32Array;
  /**
   * the free block's Cholesky factor packed for the per-frame solve (choleskyPanels); the factor itself is not kept
   * (134 MB at 295k vertices), the panels hold all a frame reads of it
   */
  panels: CholeskyPanels;
  /**
   * The face loop in WebAssembly (face-kernel.ts) on the panels' memory, where the face arrays above then lie too,
   * with room there for a frame's bone quaternions, pair logs and pair scales (which the workspaces take); null where
   * the kernels are unavailable (the JavaScript loop runs).
   */
  faceKernel: PerFaceFaceKernel | null;
}

/** The face kernel of a setup, and the frame's arrays it reads, in its memory. */
export interface PerFaceFaceKernel {
  kernel: FaceKernel;
  quaternions: Float64Array;
  pairLogs: Float64Array;
  pairScales: Float64Array;
}

/**
 * The fixed vertices of per-face stitching: the handle vertices of the root bones (several roots are all fixed);
 * without handles, the vertices whose strongest weight belongs to a root bone. Each is moved by its bone.
 * @param parents     #B parent bone or -1
 * @param influences  per-vertex influences (strongest first)
 * @param handles     #V handle bone per vertex or -1, or null
 * @returns #V bone per fixed vertex, -1 for free vertices
 */
export function perFaceFixedVertices(parents: Int32Array, influences: Influences, handles: Int32Array | null): Int32Array {
  const n = influences.vertexCount;
  const out = new Int32Array(n).fill(-1);
  for (let v = 0; v < n; v++) {
    if (handles) {
      const b = handles[v];
      if (b >= 0 && parents[b] < 0) out[v] = b;
    } else {
      const b = influences.bones[v * influences.stride];
      if (influences.weights[v * influences.stride] > 0 && parents[b] < 0) out[v] = b;
    }
  }
  return out;
}

/**
 * Precomputes per-face weights, gradients and the Cholesky factor of the free block, packed for the frame's solve.
 * @param restPositions  #V × 3 rest positions
 * @param triangles      #F × 3 vertex indices
 * @param influences     per-vertex influences (#V × stride)
 * @param boneCount      B
 * @param fixedBones     #V bone moving each fixed vertex or -1 (perFaceFixedVertices); at least one fixed vertex
 *                       per connected component, or the factorization reports the matrix as singular
 * @param stageDone      called as each stage ends (PerFaceSetupStage order), or null
 * @throws RangeError when no vertex is fixed; NotPositiveDefiniteError when a component has no fixed vertex
 */
export function perFaceSkinningSetup(
  restPositions: Float64Array,
  triangles: Uint32Array,
  influences: Influences,
  boneCount: number,
  fixedBones: Int32Array,
  stageDone: ((stage: PerFaceSetupStage) => void) | null = null,
): PerFaceSkinningSetup {
  return perFaceSetupStages(restPositions, triangles, influences, boneCount, fixedBones, stageDone, false).setup;
}

/**
 * The stages of perFaceSkinningSetup, in order: per-face weights and the stitching system ('assembly'), the free
 * block's AMD ordering, symbolic analysis and numeric factorization, 'packing' (the panels, and the free × fixed
 * block in pivot order), then the faces put in pivot order ('faces': the face loop's arrays, as the assembly's, in
 * the panels' memory where the face kernel reads them).
 */
export type PerFaceSetupStage = 'assembly' | 'ordering' | 'analysis' | 'factorization' | 'packing' | 'faces';

/**
 * perFaceSkinningSetup and the Cholesky factor the panels were packed from, for checks of the packed solve against
 * the factor's own. perFaceSkinningSetup packs a large factor in place, consuming it; this one packs a copy. The
 * parameters are perFaceSkinningSetup's.
 * @returns the setup, and the factor of the free block (setup.solutionRow's pivot order is its symbolic ordering's)
 */
export function perFaceSkinningSetupAndFactor(
  restPositions: Float64Array,
  triangles: Uint32Array,
  influences: Influences,
  boneCount: number,
  fixedBones: Int32Array,
  stageDone: ((stage: PerFaceSetupStage) => void) | null = null,
): { setup: PerFaceSkinningSetup; factor: CholeskyFactor } {
  return perFaceSetupStages(restPositions, triangles, influences, boneCount, fixedBones, stageDone, true);
}

/** perFaceSkinningSetup's work; `keepFactor` false packs the factor in place (its values are then left empty). */
function perFaceSetupStages(
  restPositions: Float64Array,
  triangles: Uint32Array,
  influences: Influences,
  boneCount: number,
  fixedBones: Int32Array,
  stageDone: ((stage: PerFaceSetupStage) => void) | null,
  keepFactor: boolean,
): { setup: PerFaceSkinningSetup; factor: CholeskyFactor } {
  const n = restPositions.length / 3;
  const faceCount = triangles.length / 3;
  const fixedVertices: number[] = [];
  const freeIndex = new Int32Array(n).fill(-1);
  const fixedIndex = new Int32Array(n).fill(-1);
  let freeCount = 0;
  for (let v = 0; v < n; v++) {
    if (fixedBones[v] >= 0) {
      fixedIndex[v] = fixedVertices.length;
      fixedVertices.push(v);
    } else {
      freeIndex[v] = freeCount++;
    }
  }
  if (fixedVertices.length === 0) throw new RangeError('per-face skinning: no fixed vertex (a root bone needs handle vertices or weight)');

  // Per-face weights: the mean of the corner weights, merged by bone, strongest first, packed face after face.
  const { stride, bones, weights } = influences;
  const faceStride = 3 * stride;
  const faceSlotStart = new Uint32Array(faceCount + 1);
  const faceBones = new Uint32Array(faceCount * faceStride);
  let faceWeights = new Float64Array(faceCount * faceStride);
  let slotPairs = new Uint32Array(faceCount * faceStride);
  const pairIndex = new Map<number, number>();
  const pairList: number[] = [];
  let slots = 0;
  const faceProducts = new Float64Array(faceCount * 9);
  // At most 9 triplets per face, split between the free-free and free-fixed blocks.
  const rows = new Int32Array(9 * faceCount);
  const cols = new Int32Array(9 * faceCount);
  const vals = new Float64Array(9 * faceCount);
  const fixedRows = new Int32Array(9 * faceCount);
  const fixedCols = new Int32Array(9 * faceCount);
  const fixedVals = new Float64Array(9 * faceCount);
  let freeTriplets = 0;
  let fixedTriplets = 0;
  const g = new Float64Array(9);
  const P = restPositions;
  for (let f = 0; f < faceCount; f++) {
    const o = slots;
    faceSlotStart[f] = o;
    let used = 0;
    for (let c = 0; c < 3; c++) {
      const v = triangles[3 * f + c];
      for (let k = 0; k < stride; k++) {
        const w = weights[v * stride + k] / 3;
        if (w === 0) continue;
        const b = bones[v * stride + k];
        let slot = 0;
        while (slot < used && faceBones[o + slot] !== b) slot++;
        if (slot === used) {
          faceBones[o + used] = b;
          used++;
        }
        faceWeights[o + slot] += w;
      }
    }
    sortSlotsDescending(faceBones, faceWeights, o, used);
    for (let k = 0; k < used; k++) {
      const key = faceBones[o] * boneCount + faceBones[o + k];
      let pair = pairIndex.get(key);
      if (pair === undefined) {
        pair = pairList.length / 2;
        pairIndex.set(key, pair);
        pairList.push(faceBones[o], faceBones[o + k]);
      }
      slotPairs[o + k] = pair;
    }
    slots += used;

    const area = faceHatGradients(P, triangles, f, g);
    if (area === 0) continue;
    faceGradientProducts(P, triangles, f, area, g, faceProducts);
    for (let i = 0; i < 3; i++) {
      const fi = freeIndex[triangles[3 * f + i]];
      if (fi < 0) continue;
      for (let j = 0; j < 3; j++) {
        const vj = triangles[3 * f + j];
        const k = area * (g[3 * i] * g[3 * j] + g[3 * i + 1] * g[3 * j + 1] + g[3 * i + 2] * g[3 * j + 2]);
        if (freeIndex[vj] >= 0) {
          rows[freeTriplets] = fi;
          cols[freeTriplets] = freeIndex[vj];
          vals[freeTriplets++] = k;
        } else {
          fixedRows[fixedTriplets] = fi;
          fixedCols[fixedTriplets] = fixedIndex[vj];
          fixedVals[fixedTriplets++] = k;
        }
      }
    }
  }
  faceSlotStart[faceCount] = slots;
  faceWeights = faceWeights.slice(0, slots);
  slotPairs = slotPairs.slice(0, slots);
  const kff = cscFromTriplets(freeCount, freeCount, rows, cols, vals, freeTriplets);
  stageDone?.('assembly');
  const ordering = amdOrdering(kff);
  stageDone?.('ordering');
  const symbolic = choleskySymbolic(kff, ordering);
  stageDone?.('analysis');
  const factor = choleskyNumeric(kff, symbolic);
  stageDone?.('factorization');
  const { inversePerm } = factor.symbolic;
  const solutionRow = new Int32Array(n);
  const pivotVertex = new Int32Array(freeCount);
  for (let v = 0; v < n; v++) {
    solutionRow[v] = 3 * (freeIndex[v] >= 0 ? inversePerm[freeIndex[v]] : freeCount);
    if (freeIndex[v] >= 0) pivotVertex[inversePerm[freeIndex[v]]] = 3 * v;
  }
  for (let t = 0; t < fixedTriplets; t++) fixedRows[t] = inversePerm[fixedRows[t]];
  const freeFixed = cscFromTriplets(freeCount, fixedVertices.length, fixedRows, fixedCols, fixedVals, fixedTriplets);
  const pairBones = Uint32Array.from(pairList);
  const pairs = pairBones.length / 2;
  // The panels, with room in the kernels' memory for the face loop's arrays and the frame's bone logs.
  const room = MemoryCarver.bytes(
    [faceWeights.length, faceProducts.length, 4 * boneCount, 3 * pairs, 3 * pairs],
    [faceSlotStart.length, slotPairs.length, pairBones.length, triangles.length],
  );
  const panels = choleskyPanels(factor, true, room, !keepFactor);
  const kernel = panels.kernels === null || panels.room === null ? null : faceKernel(panels.kernels.memory);
  const carver = kernel === null ? null : panels.room;
  stageDone?.('packing');
  // The faces sorted straight into that room (else into ordinary arrays).
  const faces = facesInPivotOrder({ faceSlotStart, faceWeights, slotPairs, faceProducts, triangles }, solutionRow, carver);
  const setup: PerFaceSkinningSetup = {
    vertexCount: n,
    faceCount,
    boneCount,
    ...faces,
    pairBones: carver === null ? pairBones : carver.copyOf(pairBones),
    restPositions,
    fixedBones,
    freeIndex,
    freeCount,
    solutionRow,
    pivotVertex,
    freeFixed,
    fixedVertices: Int32Array.from(fixedVertices),
    panels,
    faceKernel:
      kernel === null || carver === null
        ? null
        : {
            kernel,
            quaternions: carver.float64(4 * boneCount),
            pairLogs: carver.float64(3 * pairs),
            pairScales: carver.float64(3 * pairs),
          },
  };
  stageDone?.('faces');
  return { setup, factor };
}

/** The per-face arrays of a setup. */
type FaceArrays = Pick<PerFaceSkinningSetup, 'faceSlotStart' | 'faceWeights' | 'slotPairs' | 'faceProducts' | 'triangles'>;

/**
 * The faces put in the order of their lowest pivot row (ties in mesh order), with each corner's solution row.
 * @param faces        in mesh order
 * @param solutionRow  #V 3 × each vertex's pivot row (the spare row for fixed vertices)
 * @param memory       where the face loop's arrays go (the kernels' memory), or null for ordinary arrays
 */
function facesInPivotOrder(
  faces: FaceArrays,
  solutionRow: Int32Array,
  memory: MemoryCarver | null,
): FaceArrays & { cornerRows: Int32Array } {
  const { faceSlotStart, faceWeights, slotPairs, faceProducts, triangles } = faces;
  const faceCount = faceSlotStart.length - 1;
  // A counting sort on the lowest corner row: stable (mesh order within a row), in linear time.
  let rows = 0;
  for (let v = 0; v < solutionRow.length; v++) rows = Math.max(rows, solutionRow[v] / 3 + 1);
  const key = new Int32Array(faceCount);
  const start = new Int32Array(rows + 1);
  for (let f = 0; f < faceCount; f++) {
    key[f] = Math.min(solutionRow[triangles[3 * f]], solutionRow[triangles[3 * f + 1]], solutionRow[triangles[3 * f + 2]]) / 3;
    start[key[f] + 1]++;
  }
  for (let r = 0; r < rows; r++) start[r + 1] += start[r];
  const order = new Int32Array(faceCount);
  for (let f = 0; f < faceCount; f++) order[start[key[f]]++] = f;
  const sorted = {
    faceSlotStart: memory?.uint32(faceCount + 1) ?? new Uint32Array(faceCount + 1),
    faceWeights: memory?.float64(faceWeights.length) ?? new Float64Array(faceWeights.length),
    slotPairs: memory?.uint32(slotPairs.length) ?? new Uint32Array(slotPairs.length),
    faceProducts: memory?.float64(faceProducts.length) ?? new Float64Array(faceProducts.length),
    triangles: new Uint32Array(triangles.length),
    cornerRows: memory?.int32(triangles.length) ?? new Int32Array(triangles.length),
  };
  let slot = 0;
  for (let i = 0; i < faceCount; i++) {
    const f = order[i];
    sorted.faceSlotStart[i] = slot;
    for (let k = faceSlotStart[f]; k < faceSlotStart[f + 1]; k++, slot++) {
      sorted.faceWeights[slot] = faceWeights[k];
      sorted.slotPairs[slot] = slotPairs[k];
    }
    for (let c = 0; c < 3; c++) {
      const v = triangles[3 * f + c];
      sorted.triangles[3 * i + c] = v;
      sorted.cornerRows[3 * i + c] = solutionRow[v];
    }
    for (let k = 0; k < 9; k++) sorted.faceProducts[9 * i + k] = faceProducts[9 * f + k];
  }
  sorted.faceSlotStart[faceCount] = slot;
  return sorted;
}

/**
 * A triangle's edges from its first corner and their cross product: e₁ = x₁ − x₀, e₂ = x₂ − x₀, n = e₁ × e₂
 * (twice the area times the unit normal). The hat gradients here and the per-face deformation gradients of
 * per-face unposing start from this.
 * @param positions   #V × 3 positions
 * @param i0,i1,i2    3 × the corners' vertex indices (offsets into positions)
 * @param out9        e₁, e₂, n
 */
export function faceEdgesAndNormal(positions: Float64Array, i0: number, i1: number, i2: number, out9: Float64Array): void {
  const P = positions;
  const e1x = P[i1] - P[i0],
    e1y = P[i1 + 1] - P[i0 + 1],
    e1z = P[i1 + 2] - P[i0 + 2];
  const e2x = P[i2] - P[i0],
    e2y = P[i2 + 1] - P[i0 + 1],
    e2z = P[i2 + 2] - P[i0 + 2];
  out9[0] = e1x;
  out9[1] = e1y;
  out9[2] = e1z;
  out9[3] = e2x;
  out9[4] = e2y;
  out9[5] = e2z;
  out9[6] = e1y * e2z - e1z * e2y;
  out9[7] = e1z * e2x - e1x * e2z;
  out9[8] = e1x * e2y - e1y * e2x;
}

/** Scratch for faceEdgesAndNormal. */
const faceEdges = new Float64Array(9);

/**
 * Hat-function gradients of face f, ∇φ_i = (N × e_i) / |N|² with N the unnormalized normal and e_i the edge
 * opposite corner i, oriented counterclockwise.
 * @param positions  #V × 3 positions the gradients are taken on (the rest mesh for the stitching operator)
 * @param triangles  #F × 3 vertex indices
 * @param f          face
 * @param outG       9 numbers: ∇φ_0, ∇φ_1, ∇φ_2
 * @returns the face's area, or 0 for a face too thin to carry a gradient (outG is then left as it was)
 */
function faceHatGradients(positions: Float64Array, triangles: Uint32Array, f: number, outG: Float64Array): number {
  const P = positions;
  const i0 = 3 * triangles[3 * f],
    i1 = 3 * triangles[3 * f + 1],
    i2 = 3 * triangles[3 * f + 2];
  const e = faceEdges;
  faceEdgesAndNormal(P, i0, i1, i2, e);
  const e1x = e[0],
    e1y = e[1],
    e1z = e[2];
  const e2x = e[3],
    e2y = e[4],
    e2z = e[5];
  const nx = e[6],
    ny = e[7],
    nz = e[8];
  const twiceArea2 = nx * nx + ny * ny + nz * nz;
  const e3x = P[i2] - P[i1],
    e3y = P[i2 + 1] - P[i1 + 1],
    e3z = P[i2 + 2] - P[i1 + 2];
  const edges2 = e1x * e1x + e1y * e1y + e1z * e1z + e2x * e2x + e2y * e2y + e2z * e2z + e3x * e3x + e3y * e3y + e3z * e3z;
  if (!(twiceArea2 > ZERO_AREA * edges2 * edges2)) return 0;
  const inv = 1 / twiceArea2;
  // Opposite edges e_0 = x2 − x1, e_1 = x0 − x2, e_2 = x1 − x0.
  outG[0] = (ny * e3z - nz * e3y) * inv;
  outG[1] = (nz * e3x - nx * e3z) * inv;
  outG[2] = (nx * e3y - ny * e3x) * inv;
  outG[3] = (-ny * e2z + nz * e2y) * inv;
  outG[4] = (-nz * e2x + nx * e2z) * inv;
  outG[5] = (-nx * e2y + ny * e2x) * inv;
  outG[6] = (ny * e1z - nz * e1y) * inv;
  outG[7] = (nz * e1x - nx * e1z) * inv;
  outG[8] = (nx * e1y - ny * e1x) * inv;
  return 0.5 * Math.sqrt(twiceArea2);
}

/** Writes face f's 9 products A_f ∇φ_i · ∇x_d (corner i, coordinate d of `positions`) at 9f of `out`. */
function faceGradientProducts(
  positions: Float64Array,
  triangles: Uint32Array,
  f: number,
  area: number,
  g: Float64Array,
  out: Float64Array,
): void {
  const i0 = 3 * triangles[3 * f],
    i1 = 3 * triangles[3 * f + 1],
    i2 = 3 * triangles[3 * f + 2];
  for (let d = 0; d < 3; d++) {
    // ∇x_d = Σ_j x_j[d] ∇φ_j
    const x0 = positions[i0 + d],
      x1 = positions[i1 + d],
      x2 = positions[i2 + d];
    const gx = x0 * g[0] + x1 * g[3] + x2 * g[6];
    const gy = x0 * g[1] + x1 * g[4] + x2 * g[7];
    const gz = x0 * g[2] + x1 * g[5] + x2 * g[8];
    for (let i = 0; i < 3; i++) out[9 * f + 3 * i + d] = area * (g[3 * i] * gx + g[3 * i + 1] * gy + g[3 * i + 2] * gz);
  }
}

/**
 * The stitching's right-hand-side products for any positions on the rest mesh's connectivity: entry 9f + 3i + d is
 * A_f ∇φ_i · ∇x_d, with the hat gradients ∇φ_i and areas A_f of the REST faces (the operator the factor was built
 * from). For the rest positions this is `setup.faceProducts`; for an example shape it lets perFaceStitch rotate the
 * example's own gradients (per-face unposing). Faces without a gradient get zeros.
 * @param setup      perFaceSkinningSetup(…)
 * @param positions  #V × 3 positions with the rest mesh's triangles
 * @param out        #F × 9 products
 */
export function perFaceGradientProducts(setup: PerFaceSkinningSetup, positions: Float64Array, out: Float64Array): void {
  const g = new Float64Array(9);
  const { restPositions, triangles, faceCount } = setup;
  out.fill(0);
  for (let f = 0; f < faceCount; f++) {
    const area = faceHatGradients(restPositions, triangles, f, g);
    if (area > 0) faceGradientProducts(positions, triangles, f, area, g, out);
  }
}

function sortSlotsDescending(bones: Uint32Array, weights: Float64Array, o: number, count: number): void {
  for (let i = 1; i < count; i++) {
    const b = bones[o + i],
      w = weights[o + i];
    let j = i - 1;
    while (j >= 0 && weights[o + j] < w) {
      bones[o + j + 1] = bones[o + j];
      weights[o + j + 1] = weights[o + j];
      j--;
    }
    bones[o + j + 1] = b;
    weights[o + j + 1] = w;
  }
}

/** Per-pose scratch, sized per setup and reused across frames. */
export interface PerFaceSkinningWorkspace {
  /** #B × 4 rotation quaternions with w ≥ 0 */
  quaternions: Float64Array;
  /** #B × 3 log of +q and #B × 3 log of −q */
  logPositive: Float64Array;
  logNegative: Float64Array;
  /** #pairs × 3: the blended bone's log, with the sign that agrees with the reference bone */
  pairLogs: Float64Array;
  /** #pairs × 3: the blended bone's scale minus one along each rest axis (with bone scales only) */
  pairScales: Float64Array;
  /**
   * (#free + 1) × 3 right-hand sides and then solution, pivot order; the last row collects fixed corners. With the
   * panel kernels, the panels' own rows in the kernels' memory (so the solve copies nothing): workspaces of one setup
   * share them, which frames on one thread may, since each is done before the next begins. So do the quaternions,
   * pair logs and pair scales with the face kernel (setup.faceKernel's).
   */
  solution: Float64Array;
}

export function perFaceSkinningWorkspace(setup: PerFaceSkinningSetup): PerFaceSkinningWorkspace {
  const rows = 3 * (setup.freeCount + 1);
  const shared = setup.panels.solution;
  const { faceKernel } = setup;
  return {
    quaternions: faceKernel?.quaternions ?? new Float64Array(4 * setup.boneCount),
    logPositive: new Float64Array(3 * setup.boneCount),
    logNegative: new Float64Array(3 * setup.boneCount),
    pairLogs: faceKernel?.pairLogs ?? new Float64Array(setup.pairBones.length * 1.5),
    pairScales: faceKernel?.pairScales ?? new Float64Array(setup.pairBones.length * 1.5),
    solution: shared !== null && shared.length === rows ? shared : new Float64Array(rows),
  };
}

const linear = new Float64Array(9);

/**
 * Poses the mesh by per-face rotation blending and Poisson stitching.
 *
 * Non-rigid joints (Kavan 2008 Sec. 4.2 carried over to per-face blending): with bone scales, each face's target
 * deformation gradient is R_f · S̄_f, the per-face rotation after a first, linear phase that blends the bones'
 * rest-space scales, S̄_f = I + Σ_k h_k(f) (S_k − I) (the plain weighted mean when the weights sum to one, and
 * exactly I whenever no bone is scaled). Fixed vertices move by their bone's full transform, so a single bone's
 * scaled motion is reproduced.
 *
 * @param setup          perFaceSkinningSetup(…)
 * @param transforms     #B × 12 row-major 3×4 rest → posed bone transforms: rigid (forwardKinematics), or with
 *                       `boneScales` the scaled ones (scaledForwardKinematics, linear part Q_b · diag(s_b)); their
 *                       translations place the fixed vertices
 * @param outPositions   #V × 3 posed positions
 * @param workspace      scratch from perFaceSkinningWorkspace(setup), reused across frames
 * @param boneScales     #B × 3 each bone's scale along the rest axes (the one given to scaledForwardKinematics),
 *                       or null when the transforms are rigid
 */
export function perFaceSkinning(
  setup: PerFaceSkinningSetup,
  transforms: Float64Array,
  outPositions: Float64Array,
  workspace: PerFaceSkinningWorkspace = perFaceSkinningWorkspace(setup),
  boneScales: Float64Array | null = null,
): void {
  perFaceStitch(setup, transforms, setup.restPositions, setup.faceProducts, outPositions, workspace, boneScales);
}

/**
 * The general form of per-face skinning, on the same factor: each face's target deformation gradient is
 * R_f · S̄_f applied to the face's source gradients, given as their products with the rest hat gradients (the rest
 * shape's in per-face skinning; B_f times them for a per-face factor B_f on the right of R_f, as in per-face
 * context deformation, Weber et al. 2007 Eq. 9–10), with R_f and S̄_f blended from `transforms` as in
 * perFaceSkinning. Fixed vertices are their source position moved by their bone's transform.
 *
 * Per-face unposing is this with the inverse bone transforms and an example as the source: R_f of the inverse
 * rotations is exactly R_fᵀ (log q⁻¹ = −log q with the same sign choices), so each example face is rotated back.
 *
 * @param setup            perFaceSkinningSetup(…)
 * @param transforms       #B × 12 row-major 3×4 bone transforms (see perFaceSkinning)
 * @param sourcePositions  #V × 3 positions whose faces are transformed (setup.restPositions to pose the rest mesh);
 *                         only the fixed vertices' entries are read
 * @param sourceProducts   #F × 9 the faces' source gradient products p_i[d] = A_f ∇φ_i · ∇x_d:
 *                         perFaceGradientProducts(setup, sourcePositions) (setup.faceProducts for the rest positions)
 * @param outPositions     #V × 3 stitched positions
 * @param workspace        scratch from perFaceSkinningWorkspace(setup)
 * @param boneScales       #B × 3 bone scales, or null when the transforms are rigid
 */
export function perFaceStitch(
  setup: PerFaceSkinningSetup,
  transforms: Float64Array,
  sourcePositions: Float64Array,
  sourceProducts: Float64Array,
  outPositions: Float64Array,
  workspace: PerFaceSkinningWorkspace = perFaceSkinningWorkspace(setup),
  boneScales: Float64Array | null = null,
): void {
  const scaled = boneScales !== null && boneScales.some((x) => x !== 1);
  boneLogarithms(setup, transforms, scaled ? boneScales : null, workspace);
  const { solution } = workspace;
  solution.fill(0);
  const pairScales = scaled ? workspace.pairScales : null;
  const kernel = setup.faceKernel?.kernel ?? null;
  accumulateFaceGradients(
    setup,
    0,
    setup.faceCount,
    workspace.quaternions,
    workspace.pairLogs,
    pairScales,
    sourceProducts,
    solution,
    kernel,
  );
  fixedVerticesToRightHandSide(setup, transforms, sourcePositions, solution, outPositions);
  choleskyPanelSolveThree(setup.panels, solution);
  copySolution(setup, solution, outPositions);
}

/**
 * Each free vertex's stitched position from the pivot-ordered solution (fixed vertices are left as they are). The
 * solution is read in order and the positions written where they go: scattered writes cost about half what
 * scattered reads do on a large mesh (the pivot order is far from the vertex order).
 * @param setup         its pivot rows' vertices
 * @param solution      (#free + 1) × 3 solved values, pivot order
 * @param outPositions  #V × 3, the free vertices' entries written
 */
export function copySolution(setup: Pick<PerFaceSkinningSetup, 'pivotVertex'>, solution: Float64Array, outPositions: Float64Array): void {
  const { pivotVertex } = setup;
  for (let k = 0, r = 0; k < pivotVertex.length; k++, r += 3) {
    const o = pivotVertex[k];
    outPositions[o] = solution[r];
    outPositions[o + 1] = solution[r + 1];
    outPositions[o + 2] = solution[r + 2];
  }
}

/**
 * Each bone's rotation as a quaternion with w ≥ 0, its logarithms log(+q) and log(−q), and for every (reference,
 * bone) pair the log whose quaternion has a non-negative dot product with the reference's — and, with bone
 * scales, the pair's bone's scale minus one (the first phase's blend term).
 */
export function boneLogarithms(
  setup: PerFaceSkinningSetup,
  transforms: Float64Array,
  boneScales: Float64Array | null,
  workspace: PerFaceSkinningWorkspace,
): void {
  const { quaternions: Q, logPositive, logNegative, pairLogs, pairScales } = workspace;
  for (let b = 0; b < setup.boneCount; b++) {
    const o = 12 * b;
    // The rotation Q_b = (Q_b · diag(s_b)) · diag(1/s_b): column c of the linear part divided by s_c.
    const ix = boneScales ? 1 / boneScales[3 * b] : 1;
    const iy = boneScales ? 1 / boneScales[3 * b + 1] : 1;
    const iz = boneScales ? 1 / boneScales[3 * b + 2] : 1;
    for (let r = 0; r < 3; r++) {
      linear[3 * r] = transforms[o + 4 * r] * ix;
      linear[3 * r + 1] = transforms[o + 4 * r + 1] * iy;
      linear[3 * r + 2] = transforms[o + 4 * r + 2] * iz;
    }
    matrixToQuat(linear, 0, Q, 4 * b);
    if (Q[4 * b + 3] < 0) for (let k = 0; k < 4; k++) Q[4 * b + k] = -Q[4 * b + k];
    const x = Q[4 * b],
      y = Q[4 * b + 1],
      z = Q[4 * b + 2],
      w = Q[4 * b + 3];
    const s = Math.sqrt(x * x + y * y + z * z);
    // log(±q) = ±axis · atan2(s, ±w): half-angles φ and π − φ.
    const half = Math.atan2(s, w);
    const plus = s > 0 ? half / s : 1;
    const minus = s > 0 ? -(Math.PI - half) / s : 0;
    logPositive[3 * b] = x * plus;
    logPositive[3 * b + 1] = y * plus;
    logPositive[3 * b + 2] = z * plus;
    logNegative[3 * b] = x * minus;
    logNegative[3 * b + 1] = y * minus;
    logNegative[3 * b + 2] = z * minus;
  }
  const { pairBones } = setup;
  for (let p = 0; p < pairBones.length / 2; p++) {
    const r = 4 * pairBones[2 * p];
    const b = pairBones[2 * p + 1];
    const q = 4 * b;
    const log = Q[r] * Q[q] + Q[r + 1] * Q[q + 1] + Q[r + 2] * Q[q + 2] + Q[r + 3] * Q[q + 3] < 0 ? logNegative : logPositive;
    pairLogs[3 * p] = log[3 * b];
    pairLogs[3 * p + 1] = log[3 * b + 1];
    pairLogs[3 * p + 2] = log[3 * b + 2];
    if (boneScales) {
      pairScales[3 * p] = boneScales[3 * b] - 1;
      pairScales[3 * p + 1] = boneScales[3 * b + 1] - 1;
      pairScales[3 * p + 2] = boneScales[3 * b + 2] - 1;
    }
  }
}

/** The setup's arrays that the face loop reads (accumulateFaceGradients). */
export type PerFaceFaceArrays = Pick<PerFaceSkinningSetup, 'faceSlotStart' | 'faceWeights' | 'slotPairs' | 'pairBones' | 'cornerRows'>;

/**
 * Blends the rotation (Eq. 5), and with pairScales the scale, of faces faceFrom … faceTo − 1 and adds their target
 * gradients Gᵀ A g̃ to the pivot-ordered right-hand sides (fixed corners land in the spare last row). Faces are
 * independent: the loop over all faces equals the loops over any split of them, up to the order of the additions
 * into a row.
 * @param faces         the setup, or arrays of the same layout (faces in another order, in shared memory)
 * @param faceFrom      first face
 * @param faceTo        one past the last face
 * @param Q             workspace.quaternions after boneLogarithms
 * @param pairLogs      workspace.pairLogs after boneLogarithms
 * @param pairScales    workspace.pairScales after boneLogarithms with bone scales, or null
 * @param faceProducts  #F × 9 source gradient products, in the faces' order
 * @param rhs           (#free + 1) × 3 right-hand sides, added to
 * @param kernel        the face loop in WebAssembly (setup.faceKernel's, or another instance on its memory), or
 *                      null; it runs when every array here is a view of its memory (the same sums bit for bit),
 *                      else the JavaScript loop below does
 */
export function accumulateFaceGradients(
  faces: PerFaceFaceArrays,
  faceFrom: number,
  faceTo: number,
  Q: Float64Array,
  pairLogs: Float64Array,
  pairScales: Float64Array | null,
  faceProducts: Float64Array,
  rhs: Float64Array,
  kernel: FaceKernel | null = null,
): void {
  const { faceSlotStart, faceWeights, slotPairs, pairBones, cornerRows } = faces;
  if (kernel !== null) {
    const { buffer } = kernel;
    const arrays = [faceSlotStart, faceWeights, slotPairs, pairBones, cornerRows, Q, pairLogs, pairScales ?? Q, faceProducts, rhs];
    if (arrays.every((a) => a.buffer === buffer)) {
      // The kernel stops at a face whose log is too long for its series; that face takes the loop below.
      for (let f = faceFrom; f < faceTo; f++) {
        f = kernel.faceGradients(
          f,
          faceTo,
          pairScales === null ? 0 : 1,
          faceSlotStart.byteOffset,
          faceWeights.byteOffset,
          slotPairs.byteOffset,
          pairBones.byteOffset,
          cornerRows.byteOffset,
          faceProducts.byteOffset,
          Q.byteOffset,
          pairLogs.byteOffset,
          (pairScales ?? Q).byteOffset,
          rhs.byteOffset,
        );
        if (f < faceTo) accumulateFaceGradients(faces, f, f + 1, Q, pairLogs, pairScales, faceProducts, rhs);
      }
      return;
    }
  }
  let slot = faceSlotStart[faceFrom];
  for (let f = faceFrom; f < faceTo; f++) {
    const end = faceSlotStart[f + 1];
    let qx: number, qy: number, qz: number, qw: number;
    if (end - slot === 1 && faceWeights[slot] === 1) {
      // A face on one bone takes its rotation as it is (exp log q = q); only blends pay for the trigonometry.
      const ref = 4 * pairBones[2 * slotPairs[slot]];
      qx = Q[ref];
      qy = Q[ref + 1];
      qz = Q[ref + 2];
      qw = Q[ref + 3];
      slot = end;
    } else {
      let lx = 0,
        ly = 0,
        lz = 0;
      if (end - slot >= 4) {
        // Most faces blend four bones: one pass without the loop's exit test.
        const w0 = faceWeights[slot],
          w1 = faceWeights[slot + 1],
          w2 = faceWeights[slot + 2],
          w3 = faceWeights[slot + 3];
        const l0 = 3 * slotPairs[slot],
          l1 = 3 * slotPairs[slot + 1],
          l2 = 3 * slotPairs[slot + 2],
          l3 = 3 * slotPairs[slot + 3];
        lx = w0 * pairLogs[l0] + w1 * pairLogs[l1] + w2 * pairLogs[l2] + w3 * pairLogs[l3];
        ly = w0 * pairLogs[l0 + 1] + w1 * pairLogs[l1 + 1] + w2 * pairLogs[l2 + 1] + w3 * pairLogs[l3 + 1];
        lz = w0 * pairLogs[l0 + 2] + w1 * pairLogs[l1 + 2] + w2 * pairLogs[l2 + 2] + w3 * pairLogs[l3 + 2];
        slot += 4;
      }
      for (; slot < end; slot++) {
        const w = faceWeights[slot];
        const l = 3 * slotPairs[slot];
        lx += w * pairLogs[l];
        ly += w * pairLogs[l + 1];
        lz += w * pairLogs[l + 2];
      }
      // exp: q_f = (sin|l| l/|l|, cos|l|) (|l| ≤ π whenever the face's weights sum to at most one: every log is at
      // most π long).
      const x2 = lx * lx + ly * ly + lz * lz;
      const sinc = logExpSinc(x2);
      qw = logExpCos(x2);
      qx = lx * sinc;
      qy = ly * sinc;
      qz = lz * sinc;
    }
    const r00 = 1 - 2 * (qy * qy + qz * qz),
      r01 = 2 * (qx * qy - qz * qw),
      r02 = 2 * (qx * qz + qy * qw);
    const r10 = 2 * (qx * qy + qz * qw),
      r11 = 1 - 2 * (qx * qx + qz * qz),
      r12 = 2 * (qy * qz - qx * qw);
    const r20 = 2 * (qx * qz - qy * qw),
      r21 = 2 * (qy * qz + qx * qw),
      r22 = 1 - 2 * (qx * qx + qy * qy);
    let sx = 1,
      sy = 1,
      sz = 1;
    if (pairScales) {
      for (let k = faceSlotStart[f]; k < end; k++) {
        const w = faceWeights[k];
        const l = 3 * slotPairs[k];
        sx += w * pairScales[l];
        sy += w * pairScales[l + 1];
        sz += w * pairScales[l + 2];
      }
    }
    // Coordinate c's target gradient is Σ_d (R S̄)_cd ∇x̄_d, so corner i receives Σ_d R_cd s̄_d (A ∇φ_i · ∇x̄_d).
    const o = 9 * f;
    for (let i = 0; i < 3; i++) {
      const p0 = sx * faceProducts[o + 3 * i],
        p1 = sy * faceProducts[o + 3 * i + 1],
        p2 = sz * faceProducts[o + 3 * i + 2];
      const r = cornerRows[3 * f + i];
      rhs[r] += r00 * p0 + r01 * p1 + r02 * p2;
      rhs[r + 1] += r10 * p0 + r11 * p1 + r12 * p2;
      rhs[r + 2] += r20 * p0 + r21 * p1 + r22 * p2;
    }
  }
}

/** Fixed vertices follow their bone (written to the output); their columns move to the right-hand side. */
export function fixedVerticesToRightHandSide(
  setup: PerFaceSkinningSetup,
  transforms: Float64Array,
  P: Float64Array,
  rhs: Float64Array,
  outPositions: Float64Array,
): void {
  const { fixedVertices, fixedBones, freeFixed } = setup;
  const { colPointers, rowIndices, values } = freeFixed;
  for (let j = 0; j < fixedVertices.length; j++) {
    const v = fixedVertices[j];
    const o = 12 * fixedBones[v];
    const x = P[3 * v],
      y = P[3 * v + 1],
      z = P[3 * v + 2];
    const px = transforms[o] * x + transforms[o + 1] * y + transforms[o + 2] * z + transforms[o + 3];
    const py = transforms[o + 4] * x + transforms[o + 5] * y + transforms[o + 6] * z + transforms[o + 7];
    const pz = transforms[o + 8] * x + transforms[o + 9] * y + transforms[o + 10] * z + transforms[o + 11];
    outPositions[3 * v] = px;
    outPositions[3 * v + 1] = py;
    outPositions[3 * v + 2] = pz;
    for (let p = colPointers[j]; p < colPointers[j + 1]; p++) {
      const r = 3 * rowIndices[p];
      const a = values[p];
      rhs[r] -= a * px;
      rhs[r + 1] -= a * py;
      rhs[r + 2] -= a * pz;
    }
  }
}
