/**
 * Per-vertex unposing of an example shape (course handout Sec. 8.1.1–8.1.2): the example S_j was sculpted at pose
 * P_j, so each of its vertices is taken back through the inverse of its own blended transform,
 *
 *     v̄_j,i = T(P_j, w(i))⁻¹ v_j,i,     δ_j,i = v̄_j,i − v_0,i,
 *
 * T being the transform the skinning method applies to that vertex at P_j. Posing S̄_j with the same method at P_j
 * returns S_j exactly (up to rounding): that is what makes constraint (2) of Sec. 8.1.3 hold.
 *
 * - LBS: T = [M | t] with M = I + Σ_k w_k (A_k − I), t = Σ_k w_k t_k, written like linear-blend-skinning.ts so
 *   that the round trip is exact even where float32 weights do not sum to exactly 1; v̄ = M⁻¹ (v − t).
 *   M is a blend of rotations and can be (nearly) singular — two bones turned 180° apart blended 50/50 collapse
 *   the vertex onto a line or a point (the candy-wrapper). Such a vertex's example position says almost nothing
 *   about its rest position, and M⁻¹ would turn a sculpting detail of 0.1 mm into centimetres. A vertex is
 *   near-singular when det M ≤ 0 (the blend flips it) or κ_F(M) = ‖M‖_F ‖M⁻¹‖_F > maxCondition (default 1e3;
 *   κ_F(I) = 3). Near-singular vertices are listed in the result and get v̄ = v_0, δ = 0: they follow plain
 *   skinning, the one safe choice that depends on nothing the transform destroyed.
 * - DQS: the blended, normalized dual quaternion ĉ (dual-quaternion-skinning.ts, DLB with the same sign rule) is a
 *   rigid motion v ↦ R v + t, so its inverse R⁻¹ (v − t) is exact. It degenerates only when the blended real
 *   part ‖Σ w_k q_k‖ vanishes (signs cancelling); below minDualNorm (default 1e-3) the vertex is near-singular as
 *   above. With non-rigid joints (Kavan 2008 Sec. 4.2, `scaleTransforms`), the first phase K = I + Σ_k w_k (K_k − I)
 *   (with translation Σ_k w_k c_k) is inverted after the rigid part, with the same condition test as LBS's M.
 */
import { FormatError } from '../formats/format-error.ts';
import type { TriangleMesh } from '../formats/types.ts';
import { dualQuatsFromRigidMatrices } from '../math/dual-quaternion.ts';
import type { DualQuaternionAntipodality } from '../skinning/dual-quaternion-skinning.ts';
import type { Influences } from '../skinning/influences.ts';
import { alignDualQuaternionSigns } from '../skinning/align-dual-quaternion-signs.ts';
import { forwardKinematics } from '../rig/forward-kinematics.ts';
import type { Skeleton } from '../rig/skeleton.ts';

export type UnposeMethod = 'lbs' | 'dqs';

export interface UnposeOptions {
  /** the skinning whose blended transform is inverted: 'lbs' or 'dqs' */
  method?: UnposeMethod;
  /** dqs: sign choice, as in DualQuaternionSkinningOptions.antipodality */
  antipodality?: DualQuaternionAntipodality;
  /** dqs: #B × 8 bone dual quaternions (e.g. sign-aligned per bone); null derives them from `transforms` */
  boneDualQuaternions?: Float64Array | null;
  /**
   * dqs: #B × 12 first-phase scale/shear transforms of non-rigid joints (DualQuaternionSkinningOptions
   * .scaleTransforms, with boneDualQuaternions their rigid parts); null for rigid joints
   */
  scaleTransforms?: Float64Array | null;
  /** lbs (and the dqs first phase): the largest κ_F(M) = ‖M‖_F ‖M⁻¹‖_F of an invertible blended matrix (κ_F(I) = 3) */
  maxCondition?: number;
  /** dqs: the smallest norm of the blended real part ‖Σ w_k q_k‖ (1 where all bones agree) */
  minDualNorm?: number;
  /** called with (vertices done, #V) every PROGRESS_STEP vertices and once at the end */
  onProgress?: ((done: number, total: number) => void) | null;
}

export const UNPOSE_DEFAULTS: Required<UnposeOptions> = {
  method: 'lbs',
  antipodality: 'per-vertex',
  boneDualQuaternions: null,
  scaleTransforms: null,
  maxCondition: 1e3,
  minDualNorm: 1e-3,
  onProgress: null,
};

/** Vertices between two progress reports. */
export const UNPOSE_PROGRESS_STEP = 4096;

export interface UnposeResult {
  /** #V × 3 unposed example S̄_j */
  unposed: Float64Array;
  /** #V × 3 rest-space displacements δ_j = S̄_j − S_0 (0 at near-singular vertices) */
  displacements: Float64Array;
  /** near-singular vertices, ascending; their S̄ is the rest position and δ is 0 */
  singularVertices: Uint32Array;
}

/**
 * Unposes one example.
 * @param restPositions     #V × 3 rest shape S_0
 * @param examplePositions  #V × 3 example S_j (same vertices as the rest shape)
 * @param influences        per-vertex skinning influences (#V × stride)
 * @param transforms        #B × 12 row-major 3×4 rest → posed bone transforms at the example's pose P_j
 *                          (forwardKinematics of its relative rotations)
 * @param options           see UnposeOptions; missing fields take UNPOSE_DEFAULTS
 */
export function unposeExample(
  restPositions: Float64Array,
  examplePositions: Float64Array,
  influences: Influences,
  transforms: Float64Array,
  options?: UnposeOptions,
): UnposeResult {
  const o = { ...UNPOSE_DEFAULTS, ...options };
  const n = restPositions.length;
  if (examplePositions.length !== n) {
    throw new RangeError(`unposing: the example has ${examplePositions.length / 3} vertices, the rest mesh ${n / 3}`);
  }
  if (influences.vertexCount * 3 !== n) {
    throw new RangeError(`unposing: influences for ${influences.vertexCount} vertices, the mesh has ${n / 3}`);
  }
  const unposed = new Float64Array(n);
  const singular: number[] = [];
  if (o.method === 'lbs') {
    unposeLinear(examplePositions, influences, transforms, o.maxCondition, unposed, singular, o.onProgress);
  } else if (o.method === 'dqs') {
    let dq = o.boneDualQuaternions;
    if (!dq) {
      dq = new Float64Array((8 * transforms.length) / 12);
      dualQuatsFromRigidMatrices(transforms, dq);
    }
    unposeDualQuaternion(
      examplePositions,
      influences,
      dq,
      o.antipodality === 'per-vertex',
      o.scaleTransforms,
      o.minDualNorm,
      o.maxCondition,
      unposed,
      singular,
      o.onProgress,
    );
  } else {
    throw new RangeError(`unposing: unknown method "${String(o.method)}"; use lbs or dqs`);
  }
  for (const v of singular) for (let c = 0; c < 3; c++) unposed[3 * v + c] = restPositions[3 * v + c];
  const displacements = new Float64Array(n);
  for (let i = 0; i < n; i++) displacements[i] = unposed[i] - restPositions[i];
  return { unposed, displacements, singularVertices: Uint32Array.from(singular) };
}

/**
 * Unposes several examples (each at its own pose) through `method` and packs their displacements J × #V × 3,
 * example-major, as context skinning and the glTF export take them. DQS with per-bone signs unposes with the dual
 * quaternions aligned along the skeleton, as skinning then uses them.
 * @param examples  each example's #V × 3 positions and #B × 9 relative rotations
 * @returns the packed displacements and each example's near-singular vertices
 */
export function unposeExamples(
  restPositions: Float64Array,
  examples: readonly { positions: Float64Array; pose: Float64Array }[],
  skeleton: Skeleton,
  influences: Influences,
  method: UnposeMethod,
  antipodality: DualQuaternionAntipodality,
): { displacements: Float64Array; singularVertices: Uint32Array[] } {
  const n = restPositions.length;
  const boneCount = skeleton.parents.length;
  const displacements = new Float64Array(examples.length * n);
  const transforms = new Float64Array(12 * boneCount);
  const perBone = method === 'dqs' && antipodality === 'per-bone' ? new Float64Array(8 * boneCount) : null;
  const singularVertices = examples.map((e, j) => {
    forwardKinematics(skeleton, e.pose, transforms);
    if (perBone) {
      dualQuatsFromRigidMatrices(transforms, perBone);
      alignDualQuaternionSigns(skeleton.parents, skeleton.order, perBone);
    }
    const result = unposeExample(restPositions, e.positions, influences, transforms, {
      method,
      antipodality,
      boneDualQuaternions: perBone,
    });
    displacements.set(result.displacements, j * n);
    return result.singularVertices;
  });
  return { displacements, singularVertices };
}

/**
 * Checks that an example mesh is the rest mesh in another pose: the same vertex count and the same triangles.
 * @throws FormatError naming `file` and the vertex count, the triangle count, or the first differing face (0-based)
 */
export function checkExampleMesh(rest: TriangleMesh, example: TriangleMesh, file: string): void {
  const vertexCount = rest.positions.length / 3;
  const exampleVertices = example.positions.length / 3;
  if (exampleVertices !== vertexCount) {
    throw new FormatError(file, '', `an example must have the rest mesh's ${vertexCount} vertices; it has ${exampleVertices}`);
  }
  const faces = rest.triangles.length / 3;
  for (let f = 0; f < Math.min(faces, example.triangles.length / 3); f++) {
    for (let k = 0; k < 3; k++) {
      if (rest.triangles[3 * f + k] !== example.triangles[3 * f + k]) {
        const show = (t: Uint32Array) => `${t[3 * f] + 1} ${t[3 * f + 1] + 1} ${t[3 * f + 2] + 1}`;
        throw new FormatError(
          file,
          `face ${f}`,
          `an example must have the rest mesh's triangles; this face is ${show(example.triangles)}, the rest mesh's is ${show(rest.triangles)} (1-based vertices)`,
        );
      }
    }
  }
  if (example.triangles.length !== rest.triangles.length) {
    throw new FormatError(file, '', `an example must have the rest mesh's ${faces} triangles; it has ${example.triangles.length / 3}`);
  }
}

function unposeLinear(
  S: Float64Array,
  influences: Influences,
  T: Float64Array,
  maxCondition: number,
  out: Float64Array,
  singular: number[],
  onProgress: ((done: number, total: number) => void) | null,
): void {
  const { vertexCount, stride, bones, weights } = influences;
  for (let v = 0; v < vertexCount; v++) {
    if (onProgress && v > 0 && v % UNPOSE_PROGRESS_STEP === 0) onProgress(v, vertexCount);
    if (!invertBlendedMatrix(T, bones, weights, v * stride, stride, maxCondition, S, out, 3 * v)) singular.push(v);
  }
  onProgress?.(vertexCount, vertexCount);
}

function unposeDualQuaternion(
  S: Float64Array,
  influences: Influences,
  Q: Float64Array,
  perVertex: boolean,
  K: Float64Array | null,
  minDualNorm: number,
  maxCondition: number,
  out: Float64Array,
  singular: number[],
  onProgress: ((done: number, total: number) => void) | null,
): void {
  const { vertexCount, stride, bones, weights } = influences;
  for (let v = 0, i = 0; v < vertexCount; v++) {
    if (onProgress && v > 0 && v % UNPOSE_PROGRESS_STEP === 0) onProgress(v, vertexCount);
    // The blend of dualQuaternionSkinning, sign rule included.
    let bx = 0,
      by = 0,
      bz = 0,
      bw = 0,
      ex = 0,
      ey = 0,
      ez = 0,
      ew = 0;
    let rx = 0,
      ry = 0,
      rz = 0,
      rw = 0;
    let total = 0;
    for (const end = i + stride; i < end; i++) {
      const w = weights[i];
      if (w === 0) continue;
      total += w;
      const o = 8 * bones[i];
      const qx = Q[o],
        qy = Q[o + 1],
        qz = Q[o + 2],
        qw = Q[o + 3];
      let sw = w;
      if (perVertex) {
        if (rx === 0 && ry === 0 && rz === 0 && rw === 0) {
          rx = qx;
          ry = qy;
          rz = qz;
          rw = qw;
        }
        if (rx * qx + ry * qy + rz * qz + rw * qw < 0) sw = -w;
      }
      bx += sw * qx;
      by += sw * qy;
      bz += sw * qz;
      bw += sw * qw;
      ex += sw * Q[o + 4];
      ey += sw * Q[o + 5];
      ez += sw * Q[o + 6];
      ew += sw * Q[o + 7];
    }
    const p = 3 * v;
    if (total === 0) {
      // No weight: skinning leaves the vertex where it is.
      out[p] = S[p];
      out[p + 1] = S[p + 1];
      out[p + 2] = S[p + 2];
      continue;
    }
    const n2 = bx * bx + by * by + bz * bz + bw * bw;
    if (!(Math.sqrt(n2) >= minDualNorm * total)) {
      singular.push(v);
      continue;
    }
    const inv = 1 / Math.sqrt(n2);
    const dx = bx * inv,
      dy = by * inv,
      dz = bz * inv,
      a = bw * inv;
    const fx = ex * inv,
      fy = ey * inv,
      fz = ez * inv,
      ae = ew * inv;
    // Forward: v' = R v + t, t = 2 (a fε − aε d + d × fε), R v = v + 2 d × (d × v + a v). Inverse: R⁻¹ rotates by
    // the conjugate (−d, a).
    const x = S[p] - 2 * (a * fx - ae * dx + (dy * fz - dz * fy));
    const y = S[p + 1] - 2 * (a * fy - ae * dy + (dz * fx - dx * fz));
    const z = S[p + 2] - 2 * (a * fz - ae * dz + (dx * fy - dy * fx));
    const ux = -(dy * z - dz * y) + a * x,
      uy = -(dz * x - dx * z) + a * y,
      uz = -(dx * y - dy * x) + a * z;
    out[p] = x - 2 * (dy * uz - dz * uy);
    out[p + 1] = y - 2 * (dz * ux - dx * uz);
    out[p + 2] = z - 2 * (dx * uy - dy * ux);
    if (K && !invertBlendedMatrix(K, bones, weights, v * stride, stride, maxCondition, out, out, p)) singular.push(v);
  }
  onProgress?.(vertexCount, vertexCount);
}

/**
 * Solves (I + D) x + t = y for one vertex, where [D | t] = Σ_k w_k ([A_k | t_k] − [I | 0]) is blended over its
 * influences from index i0 exactly as linear-blend-skinning.ts blends it (and the first phase of
 * dualQuaternionSkinning, with the scale/shear transforms K_k as A_k): y = src[p…p+2], x goes to out[p…p+2].
 * @returns false (out untouched) when I + D is near-singular: det ≤ 0 or κ_F > maxCondition
 */
function invertBlendedMatrix(
  T: Float64Array,
  bones: Uint32Array,
  weights: Float32Array,
  i0: number,
  stride: number,
  maxCondition: number,
  src: Float64Array,
  out: Float64Array,
  p: number,
): boolean {
  let d00 = 0,
    d01 = 0,
    d02 = 0,
    d10 = 0,
    d11 = 0,
    d12 = 0,
    d20 = 0,
    d21 = 0,
    d22 = 0;
  let tx = 0,
    ty = 0,
    tz = 0;
  for (let i = i0, end = i0 + stride; i < end; i++) {
    const w = weights[i];
    if (w === 0) continue;
    const o = 12 * bones[i];
    d00 += w * (T[o] - 1);
    d01 += w * T[o + 1];
    d02 += w * T[o + 2];
    tx += w * T[o + 3];
    d10 += w * T[o + 4];
    d11 += w * (T[o + 5] - 1);
    d12 += w * T[o + 6];
    ty += w * T[o + 7];
    d20 += w * T[o + 8];
    d21 += w * T[o + 9];
    d22 += w * (T[o + 10] - 1);
    tz += w * T[o + 11];
  }
  const m00 = 1 + d00,
    m11 = 1 + d11,
    m22 = 1 + d22;
  // Cofactors: M⁻¹ = cof(M)ᵀ / det M.
  const c00 = m11 * m22 - d12 * d21,
    c01 = d12 * d20 - d10 * m22,
    c02 = d10 * d21 - m11 * d20;
  const c10 = d02 * d21 - d01 * m22,
    c11 = m00 * m22 - d02 * d20,
    c12 = d01 * d20 - m00 * d21;
  const c20 = d01 * d12 - d02 * m11,
    c21 = d02 * d10 - m00 * d12,
    c22 = m00 * m11 - d01 * d10;
  const det = m00 * c00 + d01 * c01 + d02 * c02;
  const normM = Math.sqrt(m00 * m00 + d01 * d01 + d02 * d02 + d10 * d10 + m11 * m11 + d12 * d12 + d20 * d20 + d21 * d21 + m22 * m22);
  const normCof = Math.sqrt(c00 * c00 + c01 * c01 + c02 * c02 + c10 * c10 + c11 * c11 + c12 * c12 + c20 * c20 + c21 * c21 + c22 * c22);
  if (!(det > 0) || !((normM * normCof) / det <= maxCondition)) return false;
  const x = src[p] - tx,
    y = src[p + 1] - ty,
    z = src[p + 2] - tz;
  out[p] = (c00 * x + c10 * y + c20 * z) / det;
  out[p + 1] = (c01 * x + c11 * y + c21 * z) / det;
  out[p + 2] = (c02 * x + c12 * y + c22 * z) / det;
  return true;
}
