/**
 * Per-face context-aware deformation (course handout Sec. 8.2; Weber, Sorkine, Lipman, Gotsman 2007, Eq. 9–10),
 * on the factor of per-face skinning (workers/skinning/per-face-skinning.ts): nothing here refactors.
 *
 * 1. Per-face unposing (Sec. 8.2.1): each example triangle is rotated back by the inverse of its face's blended
 *    rotation R_f(P_j) — the rotation per-face skinning gives that face in the example's pose — and the rotated
 *    triangles are Poisson-stitched (Sec. 7.2), giving S̄_j. The fixed vertices (root handles) are the example's
 *    own vertices taken back through their bone's inverse transform, as per-face skinning moves them forward.
 * 2. Per-face example transformations (Sec. 8.2.2): T_{j,f}, the deformation gradient of face f of S̄_j with
 *    respect to the rest face. A triangle fixes only two columns of a 3×3 map, so the normal direction is completed
 *    as in deformation transfer: each frame is D = [e₁ e₂ m] with edges e₁ = x₁ − x₀, e₂ = x₂ − x₀ and
 *    m = (e₁ × e₂)/√|e₁ × e₂|, the unit normal scaled by the square root of twice the area (a length, so a face
 *    scaled by s has m scaled by s too), and T = D̄ D⁻¹. Since m is orthogonal to both edges and non-zero,
 *    det D = |e₁ × e₂|^{3/2} > 0 for every non-degenerate face, on the rest and on the unposed side, so T is full
 *    rank with det T > 0: its polar decomposition T = Q S has a proper rotation Q and a symmetric positive definite
 *    S. T maps the rest edges onto the unposed edges exactly; a rigid motion of a face gives its rotation and a
 *    uniform scale s gives s·I. A face collapsed by unposing gets m̄ = 0 (rank ≤ 2) and is counted.
 * 3. Context deformation (Sec. 8.2.3): with the pose-space weights a_j(P) (Eq. 8, Σ_j a_j = 1),
 *      Eq. 9   R(f)' = R(f) · Σ_j a_j T_{j,f}
 *      Eq. 10  R(f)' = R(f) · (⊕_j a_j Q_{j,f}) · (Σ_j a_j S_{j,f}),   ⊕ = exp Σ_j a_j log q_{j,f}
 *    then Poisson stitching on the same factor: with B_f the blended factor on the right of R(f), the stitching's
 *    right-hand side only needs B_f applied to the rest face's gradient products (perFaceStitch's source products).
 *    The sums are written as I + Σ_j a_j (X_j − I), which is the sum itself whenever Σ_j a_j = 1 and leaves the
 *    plain per-face skinning when there is no example. Each Q_{j,f} is turned into a quaternion aligned with the
 *    reference of every blend, the identity (the rest face: T_{j,f} is a deviation from rest), i.e. taken with
 *    w ≥ 0 before its log is stored, so all examples of a face blend in one hemisphere.
 *
 * Layouts are face-major so a frame reads its examples' data in order: entry (f·J + j) of each per-example array.
 */
import { polarDecomposition } from '../math/polar-decomposition.ts';
import { matrixToQuat } from '../math/quaternion.ts';
import { boundingBox } from '../mesh/bounds.ts';
import { perFaceActiveExamples, perFaceContextProductRange, type PerFaceBlend } from '../skinning/per-face-example-blend.ts';
import {
  faceEdgesAndNormal,
  perFaceGradientProducts,
  perFaceSkinning,
  perFaceSkinningWorkspace,
  perFaceStitch,
  type PerFaceSkinningSetup,
  type PerFaceSkinningWorkspace,
} from '../skinning/per-face-skinning.ts';

export type { PerFaceBlend };

/**
 * The examples' per-face transformations, computed once per set of unposed examples, kept in the form a frame reads:
 * T_{j,f} acts on the stitching only through the rest face's gradients, so Eq. 9 keeps T_{j,f} applied to them, and
 * Eq. 10 keeps T_{j,f}'s polar parts. Each is stored as its difference from the rest face (T = I) in float32: the
 * differences are small, so their rounding is ~1e-7 of the example's nuance, and a rest example stores exact zeros.
 */
export interface PerFaceExamples {
  exampleCount: number;
  faceCount: number;
  /**
   * #F × J × 6 at (f·J + j)·6: T_{j,f} p_{f,i} − p_{f,i} for corners i = 0, 1 of the rest products p_{f,i} =
   * setup.faceProducts. Corner 2 follows: the hat gradients of a face sum to zero, so Σ_i p_{f,i} = 0.
   */
  productOffsets: Float32Array;
  /**
   * #F × J × 9 the polar parts of T_{j,f} = Q S, at (f·J + j)·9: log q = (θ/2)·axis of Q taken with w ≥ 0 (aligned
   * to the identity), then S − I as s00 s01 s02 s11 s12 s22
   */
  polarOffsets: Float32Array;
  /**
   * #fixed × J × 3 S̄_j − S₀ at the stitching's fixed vertices (setup.fixedVertices order): gradients carry no
   * translation, so the examples' Dirichlet values are blended like per-vertex displacements, T_b (x₀ + Σ a_j δ_j)
   */
  fixedOffsets: Float64Array;
  /** J: faces of each unposed example that collapsed (their T has rank < 3) */
  degenerateFaces: Uint32Array;
}

/**
 * Inverse of each bone's 3×4 affine transform [A | t] → [A⁻¹ | −A⁻¹ t].
 * @param transforms     #B × 12 row-major 3×4
 * @param outTransforms  #B × 12 inverses
 * @throws RangeError naming the bone when its linear part is singular
 */
export function invertBoneTransforms(transforms: Float64Array, outTransforms: Float64Array): void {
  for (let o = 0; o < transforms.length; o += 12) {
    const a = transforms[o],
      b = transforms[o + 1],
      c = transforms[o + 2],
      d = transforms[o + 4],
      e = transforms[o + 5],
      f = transforms[o + 6],
      g = transforms[o + 8],
      h = transforms[o + 9],
      k = transforms[o + 10];
    const c00 = e * k - f * h,
      c01 = c * h - b * k,
      c02 = b * f - c * e;
    const c10 = f * g - d * k,
      c11 = a * k - c * g,
      c12 = c * d - a * f;
    const c20 = d * h - e * g,
      c21 = b * g - a * h,
      c22 = a * e - b * d;
    const det = a * c00 + b * c10 + c * c20;
    if (!(Math.abs(det) > 1e-300)) throw new RangeError(`per-face unposing: bone ${o / 12}'s transform is singular`);
    const s = 1 / det;
    const tx = transforms[o + 3],
      ty = transforms[o + 7],
      tz = transforms[o + 11];
    outTransforms[o] = c00 * s;
    outTransforms[o + 1] = c01 * s;
    outTransforms[o + 2] = c02 * s;
    outTransforms[o + 3] = -(c00 * tx + c01 * ty + c02 * tz) * s;
    outTransforms[o + 4] = c10 * s;
    outTransforms[o + 5] = c11 * s;
    outTransforms[o + 6] = c12 * s;
    outTransforms[o + 7] = -(c10 * tx + c11 * ty + c12 * tz) * s;
    outTransforms[o + 8] = c20 * s;
    outTransforms[o + 9] = c21 * s;
    outTransforms[o + 10] = c22 * s;
    outTransforms[o + 11] = -(c20 * tx + c21 * ty + c22 * tz) * s;
  }
}

export interface PerFaceUnposeOptions {
  /**
   * Refinement steps after the one-shot unposing of Sec. 8.2.1 (0 = the handout's method as written). Stitching
   * rotated triangles loses what does not integrate, so per-face skinning of the one-shot S̄ misses the example by
   * about a percent of the mesh size; each step adds the unposed residual, S̄ ← S̄ + U(S_j − P(S̄)), with P per-face
   * skinning of S̄ and U the unposing's linear part. The steps contract (≈ 0.15 per step on the body data), and
   * then per-face skinning of S̄_j, which is per-face context at P_j, reproduces S_j.
   */
  maxRefinements?: number;
  /** stop refining once P(S̄) is within this fraction of the example's bounding-box diagonal of S_j */
  tolerance?: number;
}

export const PER_FACE_UNPOSE_DEFAULTS: Required<PerFaceUnposeOptions> = { maxRefinements: 20, tolerance: 1e-8 };

export interface PerFaceUnposeResult {
  /** #V × 3 the unposed S̄_j */
  unposed: Float64Array;
  /** max_v ‖P(S̄_j)_v − S_j,v‖ over the example's bounding-box diagonal: how well the pose reproduces the example */
  residual: number;
  /** refinement steps taken */
  refinements: number;
}

/**
 * Per-face unposing of one example (Sec. 8.2.1): S̄_j = argmin Σ_f A_f ‖G_f x − R_f(P_j)ᵀ G_f x_j‖², fixed
 * vertices at T_b(P_j)⁻¹ x_j, solved on the setup's factor (no refactorization), then refined (see
 * PerFaceUnposeOptions.maxRefinements).
 * @param setup             perFaceSkinningSetup(rest mesh, influences, …) — the per-face skinning of the scene
 * @param examplePositions  #V × 3 the example S_j (the rest mesh's triangles)
 * @param transforms        #B × 12 rest → posed bone transforms of the example's pose (forwardKinematics(P_j))
 * @param options           refinement; PER_FACE_UNPOSE_DEFAULTS
 * @param workspace         per-face skinning scratch, reused
 * @throws RangeError when the example's vertex count or the bone count differs from the setup's
 */
export function perFaceUnpose(
  setup: PerFaceSkinningSetup,
  examplePositions: Float64Array,
  transforms: Float64Array,
  options: PerFaceUnposeOptions = {},
  workspace: PerFaceSkinningWorkspace = perFaceSkinningWorkspace(setup),
): PerFaceUnposeResult {
  const { maxRefinements, tolerance } = { ...PER_FACE_UNPOSE_DEFAULTS, ...options };
  if (examplePositions.length !== 3 * setup.vertexCount) {
    throw new RangeError(`per-face unposing: the example has ${examplePositions.length / 3} vertices, the rest mesh ${setup.vertexCount}`);
  }
  if (transforms.length !== 12 * setup.boneCount) {
    throw new RangeError(`per-face unposing: ${transforms.length / 12} bone transforms for ${setup.boneCount} bones`);
  }
  const inverse = new Float64Array(transforms.length);
  invertBoneTransforms(transforms, inverse);
  const products = new Float64Array(9 * setup.faceCount);
  const unposed = new Float64Array(examplePositions.length);
  const stitch = (bones: Float64Array, source: Float64Array, out: Float64Array): void => {
    perFaceGradientProducts(setup, source, products);
    perFaceStitch(setup, bones, source, products, out, workspace);
  };
  stitch(inverse, examplePositions, unposed);

  // The residual's correction goes through the linear part only: inverse rotations, no translation.
  const inverseLinear = inverse.slice();
  for (let o = 0; o < inverseLinear.length; o += 12) inverseLinear[o + 3] = inverseLinear[o + 7] = inverseLinear[o + 11] = 0;
  const diagonal = boundingBox(examplePositions).diagonal || 1;
  const posed = new Float64Array(examplePositions.length);
  const difference = new Float64Array(examplePositions.length);
  const correction = new Float64Array(examplePositions.length);
  let residual = Infinity;
  let refinements = 0;
  for (;;) {
    stitch(transforms, unposed, posed);
    let worst = 0;
    for (let v = 0; v < setup.vertexCount; v++) {
      const dx = (difference[3 * v] = examplePositions[3 * v] - posed[3 * v]);
      const dy = (difference[3 * v + 1] = examplePositions[3 * v + 1] - posed[3 * v + 1]);
      const dz = (difference[3 * v + 2] = examplePositions[3 * v + 2] - posed[3 * v + 2]);
      worst = Math.max(worst, Math.hypot(dx, dy, dz));
    }
    worst /= diagonal;
    if (!(worst < residual)) {
      // A step that does not shrink the residual is taken back (it cannot happen while the steps contract).
      if (refinements > 0) {
        for (let i = 0; i < unposed.length; i++) unposed[i] -= correction[i];
        refinements--;
      }
      break;
    }
    residual = worst;
    if (residual <= tolerance || refinements >= maxRefinements) break;
    stitch(inverseLinear, difference, correction);
    for (let i = 0; i < unposed.length; i++) unposed[i] += correction[i];
    refinements++;
  }
  return { unposed, residual, refinements };
}

/** One example to unpose: its positions and its pose's bone transforms. */
export interface PerFaceUnposeInput {
  positions: Float64Array;
  /** #B × 12 rest → posed transforms of the example's pose */
  transforms: Float64Array;
}

/**
 * Per-face unposing of several examples on one factor, reporting progress after each.
 * @returns one result per example
 */
export function perFaceUnposeExamples(
  setup: PerFaceSkinningSetup,
  examples: readonly PerFaceUnposeInput[],
  options: PerFaceUnposeOptions = {},
  onProgress: ((done: number, total: number) => void) | null = null,
): PerFaceUnposeResult[] {
  const workspace = perFaceSkinningWorkspace(setup);
  const out: PerFaceUnposeResult[] = [];
  onProgress?.(0, examples.length);
  for (const example of examples) {
    out.push(perFaceUnpose(setup, example.positions, example.transforms, options, workspace));
    onProgress?.(out.length, examples.length);
  }
  return out;
}

/**
 * T_{f} of every face of `deformed` with respect to `rest` (normal completed by the scaled unit normal; see the
 * file comment). Rest faces without area get T = I.
 * @param restPositions      #V × 3
 * @param triangles          #F × 3
 * @param deformedPositions  #V × 3 (same triangles)
 * @param out                9 numbers per face, row-major, at (f·stride + offset)·9
 * @param stride,offset      where face f's matrix goes (stride J, offset j for the examples' face-major layout)
 * @returns the number of faces whose deformed triangle has no area (T of rank < 3)
 */
export function faceDeformationGradients(
  restPositions: Float64Array,
  triangles: Uint32Array,
  deformedPositions: Float64Array,
  out: Float64Array,
  stride = 1,
  offset = 0,
): number {
  const frame = new Float64Array(9);
  const e = new Float64Array(9);
  const P = restPositions;
  let degenerate = 0;
  for (let f = 0; f < triangles.length / 3; f++) {
    const o = 9 * (f * stride + offset);
    const i0 = 3 * triangles[3 * f],
      i1 = 3 * triangles[3 * f + 1],
      i2 = 3 * triangles[3 * f + 2];
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
    const n2 = nx * nx + ny * ny + nz * nz;
    const scale = Math.sqrt(Math.sqrt(n2));
    if (!(n2 > 0) || !Number.isFinite(n2)) {
      out.fill(0, o, o + 9);
      out[o] = out[o + 4] = out[o + 8] = 1;
      continue;
    }
    const mx = nx / scale,
      my = ny / scale,
      mz = nz / scale;
    // D⁻¹ rows: (e₂ × m, m × e₁, e₁ × e₂) / det D, det D = (e₁ × e₂) · m = |n|^{3/2}.
    const inv = 1 / (n2 / scale);
    const r0x = (e2y * mz - e2z * my) * inv,
      r0y = (e2z * mx - e2x * mz) * inv,
      r0z = (e2x * my - e2y * mx) * inv;
    const r1x = (my * e1z - mz * e1y) * inv,
      r1y = (mz * e1x - mx * e1z) * inv,
      r1z = (mx * e1y - my * e1x) * inv;
    const r2x = nx * inv,
      r2y = ny * inv,
      r2z = nz * inv;
    deformedFrame(deformedPositions, i0, i1, i2, frame);
    if (frame[2] === 0 && frame[5] === 0 && frame[8] === 0) degenerate++;
    // T = D̄ D⁻¹: column c of D̄ times row c of D⁻¹, summed.
    for (let r = 0; r < 3; r++) {
      const a = frame[3 * r],
        b = frame[3 * r + 1],
        c = frame[3 * r + 2];
      out[o + 3 * r] = a * r0x + b * r1x + c * r2x;
      out[o + 3 * r + 1] = a * r0y + b * r1y + c * r2y;
      out[o + 3 * r + 2] = a * r0z + b * r1z + c * r2z;
    }
  }
  return degenerate;
}

/** D̄ = [ē₁ ē₂ m̄] row-major (column c holds ē₁, ē₂, m̄); m̄ = 0 for a triangle without area. */
function deformedFrame(Q: Float64Array, i0: number, i1: number, i2: number, out: Float64Array): void {
  // out holds e₁, e₂, n first, then is rearranged in place into the columns of D̄.
  faceEdgesAndNormal(Q, i0, i1, i2, out);
  const e1y = out[1],
    e1z = out[2],
    e2x = out[3],
    e2y = out[4],
    e2z = out[5],
    nx = out[6],
    ny = out[7],
    nz = out[8];
  const n2 = nx * nx + ny * ny + nz * nz;
  const scale = n2 > 0 ? 1 / Math.sqrt(Math.sqrt(n2)) : 0;
  out[1] = e2x;
  out[2] = nx * scale;
  out[3] = e1y;
  out[4] = e2y;
  out[5] = ny * scale;
  out[6] = e1z;
  out[7] = e2z;
  out[8] = nz * scale;
}

/**
 * The examples' per-face transformations T_{j,f} (faceDeformationGradients), kept as their action on the rest
 * gradients and as their polar parts Q_{j,f} (a sign-aligned log) and S_{j,f}, and the examples' offsets at the
 * fixed vertices.
 * @param setup    perFaceSkinningSetup(…) of the rest mesh S₀
 * @param unposed  J unposed examples S̄_j (#V × 3 each), e.g. from perFaceUnposeExamples
 * @throws RangeError naming the example whose vertex count differs
 */
export function perFaceExamples(setup: PerFaceSkinningSetup, unposed: readonly Float64Array[]): PerFaceExamples {
  const { restPositions, triangles, fixedVertices, faceCount, faceProducts: p } = setup;
  const J = unposed.length;
  const productOffsets = new Float32Array(faceCount * J * 6);
  const polarOffsets = new Float32Array(faceCount * J * 9);
  const degenerateFaces = new Uint32Array(J);
  const T = new Float64Array(faceCount * 9);
  const Q = new Float64Array(9);
  const S = new Float64Array(9);
  const q = new Float64Array(4);
  for (let j = 0; j < J; j++) {
    if (unposed[j].length !== restPositions.length) {
      throw new RangeError(
        `per-face examples: example ${j} has ${unposed[j].length / 3} vertices, the rest mesh ${restPositions.length / 3}`,
      );
    }
    degenerateFaces[j] = faceDeformationGradients(restPositions, triangles, unposed[j], T);
    for (let f = 0; f < faceCount; f++) {
      const t = 9 * f;
      const k = f * J + j;
      for (let i = 0; i < 2; i++) {
        const p0 = p[t + 3 * i],
          p1 = p[t + 3 * i + 1],
          p2 = p[t + 3 * i + 2];
        productOffsets[6 * k + 3 * i] = T[t] * p0 + T[t + 1] * p1 + T[t + 2] * p2 - p0;
        productOffsets[6 * k + 3 * i + 1] = T[t + 3] * p0 + T[t + 4] * p1 + T[t + 5] * p2 - p1;
        productOffsets[6 * k + 3 * i + 2] = T[t + 6] * p0 + T[t + 7] * p1 + T[t + 8] * p2 - p2;
      }
      polarDecomposition(T, t, Q, 0, S, 0);
      matrixToQuat(Q, 0, q, 0);
      // Align with the identity (the rest face) before the log: q and −q are one rotation, their logs are not.
      const sign = q[3] < 0 ? -1 : 1;
      const x = sign * q[0],
        y = sign * q[1],
        z = sign * q[2],
        w = sign * q[3];
      const sinHalf = Math.sqrt(x * x + y * y + z * z);
      const scale = sinHalf > 0 ? Math.atan2(sinHalf, w) / sinHalf : 1;
      const o = 9 * k;
      polarOffsets[o] = x * scale;
      polarOffsets[o + 1] = y * scale;
      polarOffsets[o + 2] = z * scale;
      polarOffsets[o + 3] = S[0] - 1;
      polarOffsets[o + 4] = S[1];
      polarOffsets[o + 5] = S[2];
      polarOffsets[o + 6] = S[4] - 1;
      polarOffsets[o + 7] = S[5];
      polarOffsets[o + 8] = S[8] - 1;
    }
  }
  const fixedOffsets = new Float64Array(fixedVertices.length * J * 3);
  for (let k = 0; k < fixedVertices.length; k++) {
    const v = fixedVertices[k];
    for (let j = 0; j < J; j++) {
      for (let d = 0; d < 3; d++) fixedOffsets[3 * (k * J + j) + d] = unposed[j][3 * v + d] - restPositions[3 * v + d];
    }
  }
  return { exampleCount: J, faceCount, productOffsets, polarOffsets, fixedOffsets, degenerateFaces };
}

/** Per-frame scratch of per-face context deformation, reused across frames. */
export interface PerFaceContextWorkspace {
  skinning: PerFaceSkinningWorkspace;
  /** #F × 9 this frame's products B_f p_{f,i}: the rest gradients under the blended example factor */
  products: Float64Array;
  /** #V × 3 the rest positions with the fixed vertices' blended example offsets (only those entries change) */
  source: Float64Array;
  /** J indices of the examples with a non-zero weight this frame, and those weights */
  active: Int32Array;
  activeWeights: Float64Array;
}

/**
 * @param products  #F × 9 where the frame's products go (a two-core frame's contextProducts, so that its threads read
 *                  them), or null for an array of the workspace's own
 */
export function perFaceContextWorkspace(
  setup: PerFaceSkinningSetup,
  examples: PerFaceExamples,
  products: Float64Array | null = null,
): PerFaceContextWorkspace {
  if (products !== null && products.length !== 9 * setup.faceCount) {
    throw new RangeError(`per-face context: ${products.length} product values for ${setup.faceCount} faces`);
  }
  return {
    skinning: perFaceSkinningWorkspace(setup),
    products: products ?? new Float64Array(9 * setup.faceCount),
    source: setup.restPositions.slice(),
    active: new Int32Array(examples.exampleCount),
    activeWeights: new Float64Array(examples.exampleCount),
  };
}

/**
 * Each face's rest gradient products under the blended example factor B_f, for the stitching: Eq. 9
 * B_f = I + Σ_j a_j (T_{j,f} − I), Eq. 10 B_f = (exp Σ_j a_j log q_{j,f}) · (I + Σ_j a_j (S_{j,f} − I)). Examples
 * with a_j = 0 are skipped.
 * @param setup           perFaceSkinningSetup(…) (its rest products)
 * @param examples        perFaceExamples(…)
 * @param exampleWeights  J weights a_j(P) (Eq. 8)
 * @param blend           'eq9' or 'eq10'
 * @param outProducts     #F × 9 B_f p_{f,i}
 * @param workspace       perFaceContextWorkspace(…) (its active lists are used)
 * @returns the number of examples with a non-zero weight, listed first in workspace.active / activeWeights
 */
export function perFaceContextProducts(
  setup: PerFaceSkinningSetup,
  examples: PerFaceExamples,
  exampleWeights: ArrayLike<number>,
  blend: PerFaceBlend,
  outProducts: Float64Array,
  workspace: Pick<PerFaceContextWorkspace, 'active' | 'activeWeights'>,
): number {
  const count = perFaceActiveExamples(examples, exampleWeights, workspace);
  perFaceContextProductRange(setup.faceProducts, examples, count, workspace, blend, outProducts, 0, setup.faceCount);
  return count;
}

/**
 * One frame of per-face context deformation: per-face skinning's R(f) times the blended example factor (Eq. 9 or
 * Eq. 10), Poisson-stitched on the setup's factor. With no example it is perFaceSkinning itself.
 * @param setup           perFaceSkinningSetup(…) (the factor is reused, never rebuilt)
 * @param examples        perFaceExamples(…) on the setup's rest mesh
 * @param exampleWeights  J weights a_j(P) of this frame's pose (poseSpaceWeights)
 * @param blend           'eq9' or 'eq10'
 * @param transforms      #B × 12 rest → posed bone transforms (see perFaceSkinning)
 * @param outPositions    #V × 3
 * @param workspace       perFaceContextWorkspace(setup, examples), reused across frames
 * @param boneScales      #B × 3 bone scales, or null for rigid transforms
 */
export function perFaceContextSkinning(
  setup: PerFaceSkinningSetup,
  examples: PerFaceExamples,
  exampleWeights: ArrayLike<number>,
  blend: PerFaceBlend,
  transforms: Float64Array,
  outPositions: Float64Array,
  workspace: PerFaceContextWorkspace = perFaceContextWorkspace(setup, examples),
  boneScales: Float64Array | null = null,
): void {
  if (examples.exampleCount === 0) {
    checkExamples(setup, examples);
    perFaceSkinning(setup, transforms, outPositions, workspace.skinning, boneScales);
    return;
  }
  perFaceContextSource(setup, examples, exampleWeights, blend, workspace);
  perFaceStitch(setup, transforms, workspace.source, workspace.products, outPositions, workspace.skinning, boneScales);
}

function checkExamples(setup: PerFaceSkinningSetup, examples: PerFaceExamples): void {
  if (examples.faceCount !== setup.faceCount) {
    throw new RangeError(`per-face context: examples for ${examples.faceCount} faces, the mesh has ${setup.faceCount}`);
  }
}

/**
 * What a context frame stitches: each face's source products under the blended example factor
 * (perFaceContextProducts, into workspace.products) and the fixed vertices' rest positions with their blended
 * example offsets (into workspace.source); perFaceStitch with them, or a two-core frame's contextFrame, poses it.
 * @param examples  perFaceExamples(…) with at least one example
 * (the other parameters are perFaceContextSkinning's)
 */
export function perFaceContextSource(
  setup: PerFaceSkinningSetup,
  examples: PerFaceExamples,
  exampleWeights: ArrayLike<number>,
  blend: PerFaceBlend,
  workspace: PerFaceContextWorkspace,
): void {
  checkExamples(setup, examples);
  const count = perFaceContextProducts(setup, examples, exampleWeights, blend, workspace.products, workspace);
  perFaceContextFixed(setup, examples, count, workspace);
}

/**
 * The fixed vertices' rest positions with their blended example offsets, into workspace.source.
 * @param count  perFaceActiveExamples(…), whose lists the workspace holds
 */
export function perFaceContextFixed(
  setup: PerFaceSkinningSetup,
  examples: PerFaceExamples,
  count: number,
  workspace: Pick<PerFaceContextWorkspace, 'source' | 'active' | 'activeWeights'>,
): void {
  const { source, active, activeWeights } = workspace;
  const { fixedVertices, restPositions } = setup;
  const { fixedOffsets, exampleCount: J } = examples;
  for (let k = 0; k < fixedVertices.length; k++) {
    const v = fixedVertices[k];
    let x = restPositions[3 * v],
      y = restPositions[3 * v + 1],
      z = restPositions[3 * v + 2];
    for (let i = 0; i < count; i++) {
      const a = activeWeights[i];
      const o = 3 * (k * J + active[i]);
      x += a * fixedOffsets[o];
      y += a * fixedOffsets[o + 1];
      z += a * fixedOffsets[o + 2];
    }
    source[3 * v] = x;
    source[3 * v + 1] = y;
    source[3 * v + 2] = z;
  }
}
