/**
 * A clip as its file keys it: key-framed translation, rotation and scale channels on a hierarchy of nodes, and the
 * map from those nodes to the skeleton's bones. Evaluating it at a time in seconds gives the relative rotations and
 * start-joint translations of every bone at that time (PoseSequence's form), with the file's own interpolation
 * between keys (glTF 2.0 Appendix C: STEP, LINEAR = SLERP for rotations, CUBICSPLINE = cubic Hermite).
 *
 * Conversion (gltf-import.ts explains it): the joint matrix A_j = G_j · IBM_j · F, its rotation Q_j (polar
 * decomposition), R_j = Q_parentᵀ · Q_j and t_j = Q_parentᵀ · (A_j h_j − A_parent h_j) (a root's A_j h_j − h_j).
 * Plain data (typed arrays and numbers), so a clip crosses worker boundaries and is evaluated by the page as well.
 */
import { composeTrs, multiply } from '../formats/gltf-numbers.ts';
import { polarDecomposition } from '../math/polar-decomposition.ts';
import { quatNormalize, quatSlerp } from '../math/quaternion.ts';

export type KeyInterpolation = 'STEP' | 'LINEAR' | 'CUBICSPLINE';

/** One animated property of one node. */
export interface KeyframeChannel {
  /** index into KeyframeCurves' nodes */
  node: number;
  path: 'rotation' | 'translation' | 'scale';
  interpolation: KeyInterpolation;
  /** key times in seconds, non-decreasing */
  times: Float64Array;
  /**
   * values per key (4 for rotations x y z w, 3 otherwise); CUBICSPLINE stores in-tangent, value, out-tangent per
   * key (glTF 2.0 §3.11)
   */
  values: Float64Array;
}

export interface KeyframeCurves {
  /** #N parent of each node within this list, −1 for a root; parents come before their children */
  parents: Int32Array;
  /** #N × 3 rest local translations */
  restTranslation: Float64Array;
  /** #N × 4 rest local rotations, x y z w */
  restRotation: Float64Array;
  /** #N × 3 rest local scales */
  restScale: Float64Array;
  /** #B node of each bone's joint */
  jointNode: Int32Array;
  /** #B × 16 inverse bind matrices, column-major */
  inverseBind: Float64Array;
  /** 16: maps the world back to the file's bind space (F = C⁻¹) */
  fromWorld: Float64Array;
  /** #B parent bone, −1 for a root */
  parentBone: Int32Array;
  /** #B × 3 bone heads (rest start joints) */
  heads: Float64Array;
  channels: KeyframeChannel[];
}

/** Reports of an evaluation, for the reader's notices. */
export interface KeyframeMeasure {
  /** largest deviation of a joint's stretch from the identity (scale or shear) */
  worstScale: number;
  /** largest start-joint translation length */
  farthest: number;
}

interface Scratch {
  translation: Float64Array;
  rotation: Float64Array;
  scale: Float64Array;
  local: Float64Array;
  global: Float64Array;
  joint: Float64Array;
  absolute: Float64Array;
  posedHeads: Float64Array;
}

const scratches = new WeakMap<KeyframeCurves, Scratch>();
const linear = new Float64Array(9);
const stretch = new Float64Array(9);

function scratchOf(curves: KeyframeCurves): Scratch {
  let s = scratches.get(curves);
  if (!s) {
    const N = curves.parents.length;
    const B = curves.jointNode.length;
    s = {
      translation: new Float64Array(3 * N),
      rotation: new Float64Array(4 * N),
      scale: new Float64Array(3 * N),
      local: new Float64Array(16 * N),
      global: new Float64Array(16 * N),
      joint: new Float64Array(16 * B),
      absolute: new Float64Array(9 * B),
      posedHeads: new Float64Array(3 * B),
    };
    scratches.set(curves, s);
  }
  return s;
}

/**
 * The pose of every bone at a time. Allocates nothing after the first call for a given `curves`.
 * @param curves        the clip
 * @param seconds       time in the file's seconds; before the first key a channel holds its first value, after the
 *                      last its last
 * @param rotations     #B × 9 row-major relative rotations R_j (output)
 * @param translations  #B × 3 start-joint translations t_j (output)
 * @param measure       when given, worstScale and farthest are raised to this time's values
 * @param scales        when given, #B: each joint's uniform scale at this time, the mean of its stretch's diagonal
 *                      (trace / 3 of S in A_j's linear part Q_j · S_j; 1 for a joint that only rotates)
 */
export function evaluateKeyframeCurves(
  curves: KeyframeCurves,
  seconds: number,
  rotations: Float64Array,
  translations: Float64Array,
  measure?: KeyframeMeasure,
  scales?: Float64Array,
): void {
  const s = scratchOf(curves);
  const { parents, jointNode, inverseBind, fromWorld, parentBone, heads } = curves;
  const N = parents.length;
  const B = jointNode.length;
  s.translation.set(curves.restTranslation);
  s.rotation.set(curves.restRotation);
  s.scale.set(curves.restScale);
  for (const channel of curves.channels) {
    if (channel.path === 'rotation') sampleRotation(channel, seconds, s.rotation, 4 * channel.node);
    else sampleVector(channel, seconds, channel.path === 'translation' ? s.translation : s.scale, 3 * channel.node);
  }
  const { local, global, joint, absolute, posedHeads } = s;
  for (let n = 0; n < N; n++) {
    composeTrs(s.translation, 3 * n, s.rotation, 4 * n, s.scale, 3 * n, local, 16 * n);
    if (parents[n] < 0) global.set(local.subarray(16 * n, 16 * n + 16), 16 * n);
    else multiply(global, 16 * parents[n], local, 16 * n, global, 16 * n);
  }
  for (let j = 0; j < B; j++) {
    const a = 16 * j;
    multiply(global, 16 * jointNode[j], inverseBind, a, joint, a);
    multiply(joint, a, fromWorld, 0, joint, a);
    for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) linear[3 * r + c] = joint[a + 4 * c + r];
    polarDecomposition(linear, 0, absolute, 9 * j, stretch, 0);
    if (scales) scales[j] = (stretch[0] + stretch[4] + stretch[8]) / 3;
    if (measure) {
      for (let r = 0; r < 3; r++)
        for (let c = 0; c < 3; c++) measure.worstScale = Math.max(measure.worstScale, Math.abs(stretch[3 * r + c] - (r === c ? 1 : 0)));
    }
    const x = heads[3 * j],
      y = heads[3 * j + 1],
      z = heads[3 * j + 2];
    for (let r = 0; r < 3; r++) posedHeads[3 * j + r] = joint[a + r] * x + joint[a + 4 + r] * y + joint[a + 8 + r] * z + joint[a + 12 + r];
  }
  for (let j = 0; j < B; j++) {
    const o = 9 * j;
    const p = parentBone[j];
    // Where the file puts this bone's head, against where our rigid parent bone (its posed head, its rotation)
    // carries it: P_p + Q_p (h_j − h_p); for a root, against the rest head.
    let dx = posedHeads[3 * j] - heads[3 * j];
    let dy = posedHeads[3 * j + 1] - heads[3 * j + 1];
    let dz = posedHeads[3 * j + 2] - heads[3 * j + 2];
    if (p >= 0) {
      const ex = heads[3 * j] - heads[3 * p],
        ey = heads[3 * j + 1] - heads[3 * p + 1],
        ez = heads[3 * j + 2] - heads[3 * p + 2];
      const q = 9 * p;
      dx = posedHeads[3 * j] - posedHeads[3 * p] - (absolute[q] * ex + absolute[q + 1] * ey + absolute[q + 2] * ez);
      dy = posedHeads[3 * j + 1] - posedHeads[3 * p + 1] - (absolute[q + 3] * ex + absolute[q + 4] * ey + absolute[q + 5] * ez);
      dz = posedHeads[3 * j + 2] - posedHeads[3 * p + 2] - (absolute[q + 6] * ex + absolute[q + 7] * ey + absolute[q + 8] * ez);
    }
    if (measure) measure.farthest = Math.max(measure.farthest, Math.hypot(dx, dy, dz));
    const t = 3 * j;
    if (p < 0) {
      rotations.set(absolute.subarray(o, o + 9), o);
      translations[t] = dx;
      translations[t + 1] = dy;
      translations[t + 2] = dz;
      continue;
    }
    // R_j = Q_pᵀ · Q_j and t_j = Q_pᵀ · d
    for (let r = 0; r < 3; r++) {
      for (let c = 0; c < 3; c++) {
        rotations[o + 3 * r + c] =
          absolute[9 * p + r] * absolute[o + c] +
          absolute[9 * p + 3 + r] * absolute[o + 3 + c] +
          absolute[9 * p + 6 + r] * absolute[o + 6 + c];
      }
      translations[t + r] = absolute[9 * p + r] * dx + absolute[9 * p + 3 + r] * dy + absolute[9 * p + 6 + r] * dz;
    }
  }
}

/** The sorted union of the channels' key times (each distinct time once); [0] for a clip without keys. */
export function unionKeyTimes(channels: readonly KeyframeChannel[]): Float64Array {
  const all: number[] = [];
  for (const channel of channels) for (const t of channel.times) all.push(t);
  if (all.length === 0) return new Float64Array([0]);
  all.sort((a, b) => a - b);
  const out: number[] = [all[0]];
  for (let i = 1; i < all.length; i++) if (all[i] !== out[out.length - 1]) out.push(all[i]);
  return Float64Array.from(out);
}

/**
 * How bone b's pose moves between two neighbouring keys of the clip, when a glTF channel keyed at those keys can
 * say it exactly: 'STEP' when every channel that moves the bone holds its value between keys; 'LINEAR' when the
 * bone's own node alone is animated, by LINEAR rotation and translation (its relative rotation is then a fixed
 * rotation times the node's, so SLERP of one is SLERP of the other, and its translation is affine in the node's);
 * null otherwise (cubic curves, animated nodes between bones, scale, or STEP and LINEAR mixed). A bone nothing
 * moves is 'LINEAR' (constant).
 */
export function boneInterpolation(curves: KeyframeCurves, b: number): 'STEP' | 'LINEAR' | null {
  const { parents, jointNode, parentBone } = curves;
  const stop = parentBone[b] >= 0 ? jointNode[parentBone[b]] : -1;
  const chain = new Set<number>();
  for (let n = jointNode[b]; n >= 0 && n !== stop; n = parents[n]) chain.add(n);
  const moving = curves.channels.filter((c) => chain.has(c.node) && !isConstant(c));
  if (moving.length === 0) return 'LINEAR';
  if (moving.every((c) => c.interpolation === 'STEP')) return 'STEP';
  const ownLinear = moving.every((c) => c.interpolation === 'LINEAR' && c.node === jointNode[b] && c.path !== 'scale');
  return ownLinear ? 'LINEAR' : null;
}

/** Whether every key of the channel holds the same value (and, for cubic curves, zero tangents). */
export function isConstant(channel: KeyframeChannel): boolean {
  const { values, interpolation } = channel;
  const width = channel.path === 'rotation' ? 4 : 3;
  const cubic = interpolation === 'CUBICSPLINE';
  const stride = cubic ? 3 * width : width;
  const first = cubic ? width : 0;
  for (let k = 0; k < values.length / stride; k++) {
    for (let c = 0; c < width; c++) {
      if (values[k * stride + first + c] !== values[first + c]) return false;
      if (cubic && (values[k * stride + c] !== 0 || values[k * stride + 2 * width + c] !== 0)) return false;
    }
  }
  return true;
}

/** The last key at or before `time`, for times[0] < time < times[n − 1] (binary search). */
function keyBefore(times: Float64Array, time: number): number {
  let lo = 0;
  let hi = times.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (times[mid] <= time) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** The translation or scale channel's value at `time` (STEP, LINEAR, CUBICSPLINE Hermite). */
function sampleVector(channel: KeyframeChannel, time: number, out: Float64Array, o: number): void {
  const { times, values, interpolation } = channel;
  const n = times.length;
  if (n === 0) return;
  const cubic = interpolation === 'CUBICSPLINE';
  const stride = cubic ? 9 : 3;
  const value = cubic ? 3 : 0;
  if (time <= times[0] || n === 1) {
    for (let c = 0; c < 3; c++) out[o + c] = values[value + c];
    return;
  }
  if (time >= times[n - 1]) {
    for (let c = 0; c < 3; c++) out[o + c] = values[(n - 1) * stride + value + c];
    return;
  }
  const lo = keyBefore(times, time);
  const hi = lo + 1;
  const dt = times[hi] - times[lo];
  const s = dt > 0 ? (time - times[lo]) / dt : 0;
  for (let c = 0; c < 3; c++) {
    const v0 = values[lo * stride + value + c];
    const v1 = values[hi * stride + value + c];
    if (interpolation === 'STEP') {
      out[o + c] = v0;
    } else if (cubic) {
      const s2 = s * s,
        s3 = s2 * s;
      const b0 = values[lo * 9 + 6 + c],
        a1 = values[hi * 9 + c];
      out[o + c] = (2 * s3 - 3 * s2 + 1) * v0 + (s3 - 2 * s2 + s) * dt * b0 + (-2 * s3 + 3 * s2) * v1 + (s3 - s2) * dt * a1;
    } else {
      out[o + c] = v0 + s * (v1 - v0);
    }
  }
}

const slerpA = new Float64Array(4);
const slerpB = new Float64Array(4);

/** The rotation channel's value at `time` (glTF 2.0 Appendix C: STEP, LINEAR = SLERP, CUBICSPLINE = Hermite). */
function sampleRotation(channel: KeyframeChannel, time: number, out: Float64Array, o: number): void {
  const { times, values, interpolation } = channel;
  const n = times.length;
  if (n === 0) return;
  const cubic = interpolation === 'CUBICSPLINE';
  const stride = cubic ? 12 : 4;
  const first = cubic ? 4 : 0;
  if (time <= times[0] || n === 1 || time >= times[n - 1]) {
    const k = time >= times[n - 1] ? n - 1 : 0;
    for (let c = 0; c < 4; c++) out[o + c] = values[k * stride + first + c];
    quatNormalize(out, o, out, o);
    return;
  }
  const lo = keyBefore(times, time);
  const hi = lo + 1;
  const dt = times[hi] - times[lo];
  const s = dt > 0 ? (time - times[lo]) / dt : 0;
  if (interpolation === 'STEP') {
    for (let c = 0; c < 4; c++) out[o + c] = values[lo * 4 + c];
  } else if (cubic) {
    const s2 = s * s,
      s3 = s2 * s;
    const h00 = 2 * s3 - 3 * s2 + 1,
      h10 = s3 - 2 * s2 + s,
      h01 = -2 * s3 + 3 * s2,
      h11 = s3 - s2;
    for (let c = 0; c < 4; c++) {
      const v0 = values[lo * 12 + 4 + c],
        b0 = values[lo * 12 + 8 + c];
      const v1 = values[hi * 12 + 4 + c],
        a1 = values[hi * 12 + c];
      out[o + c] = h00 * v0 + h10 * dt * b0 + h01 * v1 + h11 * dt * a1;
    }
  } else {
    for (let c = 0; c < 4; c++) {
      slerpA[c] = values[lo * 4 + c];
      slerpB[c] = values[hi * 4 + c];
    }
    quatNormalize(slerpA, 0, slerpA, 0);
    quatNormalize(slerpB, 0, slerpB, 0);
    quatSlerp(slerpA, 0, slerpB, 0, s, out, o);
  }
  quatNormalize(out, o, out, o);
}
