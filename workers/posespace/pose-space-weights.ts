/**
 * Pose-space weights a_j(P) of the example shapes (course handout Sec. 8.1.3, Eq. 8; Lewis et al. 2000 pose space
 * deformation; Kurihara & Miyata 2004 Sec. 5.2): radial basis functions centred on the J example poses,
 *
 *     a_j(P) = Σ_t c_jt φ(d(P, P_t)),   with a_j(P_i) = δ_ij,
 *
 * then rescaled to sum to one (Eq. 8). The interpolation conditions read C Φ = I with the symmetric Φ_it =
 * φ(d(P_i, P_t)), so C = Φ⁻¹.
 *
 * Pose distance: d(P, Q) = sqrt(Σ_b ‖R_b − Q_b‖_F²) over the bones' relative rotations (the chordal distance; for one
 * bone turned by θ between the poses ‖R − Q‖_F = 2√2 sin(θ/2), so it grows with the angle and saturates at 180°).
 * It is the Euclidean distance of the poses seen as points of R^{9B}, which is what makes the kernels below safe:
 * the Gaussian gives a positive definite Φ for distinct poses, and the linear kernel φ(r) = r a non-singular Φ for
 * distinct poses (Micchelli 1986: −r is conditionally positive definite of order 1 on any Euclidean space).
 * Relative (not absolute) rotations make a pose of the arm independent of how the torso is turned.
 */
import type { PoseSequence } from '../rig/pose-sequence.ts';
import { samplePose } from '../rig/pose-sequence.ts';

/**
 * 'gaussian'  φ(r) = exp(−(r/σ)²), width σ (see PoseSpaceOptions.width)
 * 'linear'    φ(r) = r, the polyharmonic spline of order 1: no width; Φ is non-singular for distinct poses
 * Higher polyharmonic kernels without their polynomial term are not offered: the thin plate r² ln r vanishes at
 * r = 1 (two examples at distance 1 give a singular Φ); the cubic r³ is conditionally positive definite only of
 * order 2, so without the linear polynomial term (which the handout's J-by-J system does not have) Φ is singular
 * for some sets of distinct poses, and on the body's 394 frames it lets the raw sum Σ_j a_j come within 3e-3 of
 * zero, so that Eq. 8 scales the weights up to 2000.
 */
export type RbfKernel = 'gaussian' | 'linear';

export const RBF_KERNELS: readonly RbfKernel[] = ['gaussian', 'linear'];

export interface PoseSpaceOptions {
  /** radial basis function, see RbfKernel */
  kernel?: RbfKernel;
  /**
   * Gaussian width σ in pose-distance units; 0 chooses the default rule: the mean over the examples of the
   * distance to the nearest other example (1 for a single example), so that each example's bump reaches about
   * its nearest neighbour (φ = e⁻¹ there) and Φ stays well conditioned. Ignored by the other kernels.
   */
  width?: number;
  /** largest 1-norm condition number ‖Φ‖₁‖Φ⁻¹‖₁ accepted; above it the examples are refused as ill-conditioned */
  maxCondition?: number;
}

export const POSE_SPACE_DEFAULTS: Required<PoseSpaceOptions> = {
  kernel: 'gaussian',
  width: 0,
  maxCondition: 1e10,
};

/**
 * Two example poses closer than this (pose distance, about 3.5e-9 rad for one bone) are the same pose: their rows
 * of Φ would be equal.
 */
const SAME_POSE_DISTANCE = 1e-8;

/**
 * |Σ_j a_j| below this cannot be rescaled by Eq. 8 (it happens only far from all examples, where the RBF sum
 * crosses zero); all weight then goes to the nearest example.
 */
const MIN_WEIGHT_SUM = 1e-9;

/** The examples' poses and the solved RBF coefficients. */
export interface PoseSpaceInterpolator {
  kernel: RbfKernel;
  /** σ actually used (the Gaussian's; 0 for kernels without a width) */
  width: number;
  exampleCount: number;
  boneCount: number;
  /** J example names, for messages and the UI */
  names: readonly string[];
  /** J × B × 9 relative rotations, example-major */
  poses: Float64Array;
  /** J × J row-major: a_j(P) = Σ_t coefficients[j·J + t] φ(d(P, P_t)) before Eq. 8 */
  coefficients: Float64Array;
  /** ‖Φ‖₁‖Φ⁻¹‖₁ of the solved system (1 for J ≤ 1) */
  condition: number;
}

/** Examples whose poses cannot be interpolated (the same pose twice, or an ill-conditioned system); names them. */
export class PoseSpaceError extends Error {
  override readonly name = 'PoseSpaceError';
  constructor(
    readonly examples: readonly string[],
    reason: string,
  ) {
    super(reason);
  }
}

/**
 * The pose distance d(P, Q) = sqrt(Σ_b ‖R_b − Q_b‖_F²).
 * @param a,ai       pose P: #B × 9 row-major relative rotations at offset ai
 * @param b,bi       pose Q at offset bi
 * @param boneCount  B
 */
export function poseDistance(a: ArrayLike<number>, ai: number, b: ArrayLike<number>, bi: number, boneCount: number): number {
  let sum = 0;
  for (let i = 0, n = 9 * boneCount; i < n; i++) {
    const d = a[ai + i] - b[bi + i];
    sum += d * d;
  }
  return Math.sqrt(sum);
}

/** φ(r) for a kernel (width σ used by 'gaussian' only). */
export function rbfKernel(kernel: RbfKernel, r: number, width: number): number {
  switch (kernel) {
    case 'gaussian': {
      const s = r / width;
      return Math.exp(-s * s);
    }
    case 'linear':
      return r;
  }
}

/**
 * Solves the interpolation system for J example poses.
 * @param poses      J × B × 9 relative rotations, example-major
 * @param boneCount  B
 * @param names      J example names (messages name them)
 * @param options    see PoseSpaceOptions; missing fields take POSE_SPACE_DEFAULTS
 * @throws PoseSpaceError naming both examples when two poses are the same, naming the closest pair when Φ is
 *   ill-conditioned beyond maxCondition; RangeError for inconsistent sizes or options
 */
export function poseSpaceInterpolator(
  poses: Float64Array,
  boneCount: number,
  names: readonly string[],
  options?: PoseSpaceOptions,
): PoseSpaceInterpolator {
  const kernel = options?.kernel ?? POSE_SPACE_DEFAULTS.kernel;
  const maxCondition = options?.maxCondition ?? POSE_SPACE_DEFAULTS.maxCondition;
  if (!RBF_KERNELS.includes(kernel)) throw new RangeError(`unknown RBF kernel "${String(kernel)}"; use ${RBF_KERNELS.join(', ')}`);
  const J = names.length;
  if (poses.length !== J * 9 * boneCount) {
    throw new RangeError(`pose-space weights: ${poses.length} numbers of poses for ${J} examples × ${boneCount} bones × 9`);
  }
  const width0 = options?.width ?? POSE_SPACE_DEFAULTS.width;
  if (!(width0 >= 0)) throw new RangeError(`pose-space weights: the Gaussian width must be ≥ 0, not ${width0}`);

  const stride = 9 * boneCount;
  const distance = new Float64Array(J * J);
  let closest = [0, 0];
  let closestDistance = Infinity;
  for (let i = 0; i < J; i++) {
    for (let t = i + 1; t < J; t++) {
      const d = poseDistance(poses, i * stride, poses, t * stride, boneCount);
      distance[i * J + t] = distance[t * J + i] = d;
      if (d < closestDistance) {
        closestDistance = d;
        closest = [i, t];
      }
      if (d < SAME_POSE_DISTANCE) {
        throw new PoseSpaceError(
          [names[i], names[t]],
          `examples "${names[i]}" and "${names[t]}" have the same pose (pose distance ${d.toExponential(2)}), so no weights can tell them apart; remove one or change its pose`,
        );
      }
    }
  }

  let width = 0;
  if (kernel === 'gaussian') {
    width = width0 > 0 ? width0 : defaultGaussianWidth(distance, J);
  }
  const result: PoseSpaceInterpolator = {
    kernel,
    width,
    exampleCount: J,
    boneCount,
    names: [...names],
    poses: Float64Array.from(poses),
    coefficients: new Float64Array(J * J),
    condition: 1,
  };
  if (J === 0) return result;
  if (J === 1) {
    // One example: Eq. 8 makes a_1 ≡ 1 whatever the RBF, and φ(0) = 0 would make the linear system singular.
    result.coefficients[0] = 1;
    return result;
  }
  const phi = new Float64Array(J * J);
  for (let i = 0; i < J * J; i++) phi[i] = rbfKernel(kernel, distance[i], width);
  const inverse = invertDense(phi, J);
  const condition = inverse ? oneNorm(phi, J) * oneNorm(inverse, J) : Infinity;
  if (!inverse || !(condition <= maxCondition)) {
    const [i, t] = closest;
    throw new PoseSpaceError(
      [names[i], names[t]],
      `the ${kernel} RBF system of the ${J} example poses is ${inverse ? `ill-conditioned (condition number ${condition.toExponential(2)} > ${maxCondition.toExponential(0)})` : 'singular'}; the closest poses are examples "${names[i]}" and "${names[t]}" (pose distance ${closestDistance.toPrecision(3)})` +
        (kernel === 'gaussian' ? '; a smaller Gaussian width or removing one of them helps' : '; removing one of them helps'),
    );
  }
  result.coefficients = inverse;
  result.condition = condition;
  return result;
}

/**
 * The example weights at a pose: a_j(P) = Σ_t c_jt φ(d(P, P_t)), rescaled to sum to one (Eq. 8). At an example's
 * own pose this is δ_ij up to rounding. With one example a_1 = 1; with none, nothing is written. When the raw
 * sum is within 1e-9 of zero (far from all examples) the nearest example gets weight 1 and the others 0.
 * @param interpolator  from poseSpaceInterpolator
 * @param pose          #B × 9 relative rotations
 * @param out           J weights
 * @param outRaw        optional J weights before Eq. 8
 */
export function poseSpaceWeights(
  interpolator: PoseSpaceInterpolator,
  pose: ArrayLike<number>,
  out: Float64Array,
  outRaw?: Float64Array,
): void {
  const { exampleCount: J, boneCount, poses, coefficients, kernel, width } = interpolator;
  if (J === 0) return;
  if (J === 1) {
    out[0] = 1;
    if (outRaw) outRaw[0] = 1;
    return;
  }
  const stride = 9 * boneCount;
  const phi = scratch(J);
  let nearest = 0;
  let nearestDistance = Infinity;
  for (let t = 0; t < J; t++) {
    const d = poseDistance(pose, 0, poses, t * stride, boneCount);
    if (d < nearestDistance) {
      nearestDistance = d;
      nearest = t;
    }
    phi[t] = rbfKernel(kernel, d, width);
  }
  let sum = 0;
  for (let j = 0; j < J; j++) {
    let a = 0;
    for (let t = 0; t < J; t++) a += coefficients[j * J + t] * phi[t];
    out[j] = a;
    if (outRaw) outRaw[j] = a;
    sum += a;
  }
  if (!(Math.abs(sum) >= MIN_WEIGHT_SUM)) {
    out.fill(0, 0, J);
    out[nearest] = 1;
    return;
  }
  for (let j = 0; j < J; j++) out[j] /= sum;
}

/**
 * a_j along a pose sequence (the timeline curves, the glTF weight keyframes).
 * @param times  times of samplePose (frames for rotation-matrix sequences)
 * @returns #times × J, time-major
 */
export function poseSpaceWeightsOfSequence(interpolator: PoseSpaceInterpolator, seq: PoseSequence, times: ArrayLike<number>): Float64Array {
  const J = interpolator.exampleCount;
  if (seq.boneCount !== interpolator.boneCount) {
    throw new RangeError(`pose-space weights: the poses are for ${seq.boneCount} bones, the examples for ${interpolator.boneCount}`);
  }
  const out = new Float64Array(times.length * J);
  const pose = new Float64Array(9 * seq.boneCount);
  const weights = new Float64Array(J);
  for (let k = 0; k < times.length; k++) {
    samplePose(seq, times[k], pose);
    poseSpaceWeights(interpolator, pose, weights);
    out.set(weights, k * J);
  }
  return out;
}

let scratchPhi = new Float64Array(16);
function scratch(n: number): Float64Array {
  if (scratchPhi.length < n) scratchPhi = new Float64Array(n);
  return scratchPhi;
}

/** σ = mean distance of each example to its nearest other example (1 with fewer than two examples). */
function defaultGaussianWidth(distance: Float64Array, J: number): number {
  if (J < 2) return 1;
  let total = 0;
  for (let i = 0; i < J; i++) {
    let nearest = Infinity;
    for (let t = 0; t < J; t++) if (t !== i && distance[i * J + t] < nearest) nearest = distance[i * J + t];
    total += nearest;
  }
  return total / J;
}

/** max over columns of Σ_rows |a_rc| for an n × n row-major matrix. */
function oneNorm(a: Float64Array, n: number): number {
  let best = 0;
  for (let c = 0; c < n; c++) {
    let s = 0;
    for (let r = 0; r < n; r++) s += Math.abs(a[r * n + c]);
    if (s > best) best = s;
  }
  return best;
}

/** Gauss–Jordan inverse with partial pivoting of an n × n row-major matrix; null when a pivot is exactly 0. */
function invertDense(matrix: Float64Array, n: number): Float64Array | null {
  const a = Float64Array.from(matrix);
  const inv = new Float64Array(n * n);
  for (let i = 0; i < n; i++) inv[i * n + i] = 1;
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(a[r * n + col]) > Math.abs(a[pivot * n + col])) pivot = r;
    const p = a[pivot * n + col];
    if (p === 0 || !Number.isFinite(p)) return null;
    if (pivot !== col) {
      for (let c = 0; c < n; c++) {
        let tmp = a[col * n + c];
        a[col * n + c] = a[pivot * n + c];
        a[pivot * n + c] = tmp;
        tmp = inv[col * n + c];
        inv[col * n + c] = inv[pivot * n + c];
        inv[pivot * n + c] = tmp;
      }
    }
    for (let c = 0; c < n; c++) {
      a[col * n + c] /= p;
      inv[col * n + c] /= p;
    }
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const f = a[r * n + col];
      if (f === 0) continue;
      for (let c = 0; c < n; c++) {
        a[r * n + c] -= f * a[col * n + c];
        inv[r * n + c] -= f * inv[col * n + c];
      }
    }
  }
  return inv;
}
