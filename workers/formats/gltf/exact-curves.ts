/**
 * A glTF clip's own curves, carried to joint nodes that are exactly the bones (a fresh export's; an in-place
 * export's whose joints are so), for the clip writer (clip-curves.ts), wherever one channel per joint says them
 * exactly: the source's interpolation (STEP, LINEAR, CUBICSPLINE), its key times, and its values and tangents mapped
 * into the exported joint's frame, so that between keys the written file poses as the source's curves do.
 *
 * Exported side (fresh-document.ts): bone j's joint node has no rest rotation, rest translation r_j − r_parent and inverse
 * bind matrix T(−r_j), so its animated rotation IS the relative rotation R_j and its translation r_j − r_parent + t_j.
 * Source side (gltf-import.ts, keyframe-curves.ts). Bone j has joint node n; its parent bone p has joint node n_p
 * (a root: none). The joint matrix is A_j = G_n · IBM_j · F (F = C⁻¹ maps the world back to the file's bind
 * space), Q_j is the rotation of A_j's linear part (polar decomposition), R_j = Q_pᵀ Q_j, and the start-joint
 * translation is t_j = Q_pᵀ (A_j h_j − A_p h_p) − (h_j − h_p) (a root's A_j h_j − h_j), with the head
 * h_j = F⁻¹ · IBM_j⁻¹ · 0.
 * Let the only channels that move anything on the path from n up to n_p (n_p excluded; for a root, up to the scene
 * root) be n's own rotation q(t) and translation u(t), and let no node from n up to the scene root have animated
 * scale (keys at float32 round-off of one scale count as unanimated: the app's rigid poses leave them out). With M
 * the fixed product of the local matrices strictly between n_p and n,
 *   G_n = G_{n_p} · M · T(u) · R(q) · S_n   and   G_{n_p} = A_p · F⁻¹ · IBM_p⁻¹,
 * so A_j = A_p · K · T(u) · R(q) · S_n · IBM_j · F with the fixed affine K = F⁻¹ · IBM_p⁻¹ · M (a root: A_p = I
 * and K = M, the fixed global matrix of n's parent).
 * Rotation. When the linear parts of K and of W = S_n · IBM_j · F are similarities, X = s_x X′ and Y = s_y Y′ with
 * rotations X′, Y′, and A_p's linear part is s_p Q_p (uniform scales above n, a similarity IBM_p · F), the linear
 * part of A_j is s_p s_x s_y · Q_p X′ R(q) Y′, whose rotation is Q_j = Q_p X′ R(q) Y′. So R_j = X′ R(q) Y′, or in
 * quaternions e(t) = c · q(t) · d with the fixed unit quaternions c of X′ and d of Y′.
 * q ↦ c q d is an orthogonal linear map of R⁴ (|c q d| = |q|, and it keeps dot products). glTF 2.0 Appendix C
 * interpolates rotations by: STEP, the previous key; LINEAR, SLERP along the shorter arc, built from the keys' dot
 * product and linear combinations of the keys; CUBICSPLINE, the Hermite polynomial of values and tangents in R⁴,
 * then normalised. Each commutes with an orthogonal linear map, so the curve whose values AND tangents are c v d is
 * c q(t) d at every t. The short-path choice of SLERP depends on the sign of the keys' dot product, which the map
 * keeps: the written keys take the same arc as the source's.
 * Translation. W h_j = S_n · IBM_j · F · F⁻¹ · IBM_j⁻¹ · 0 = 0, so A_j h_j = A_p · K · u (R(q) drops out), and with
 * A_p x − A_p y = s_p Q_p (x − y):
 *   t_j = s_p (K u − h_p) − (h_j − h_p)         (a root: t_j = K u − h_j),
 * affine in u. The exported node's translation (fresh-document.ts) is its rest translation plus t_j, so its curve has
 * the values mapped by that affine map and the tangents by its linear part s_p · K (a root's K).
 * Where these conditions hold, every one of the channel's keys is checked against the clip's stored frames (which
 * the importer computed by the polar decomposition itself); a disagreement means the conditions missed something,
 * and the joint keeps the export's general path. So does a curve with a mapped value or tangent that a float32 cannot
 * hold (a source's key of length 1e38, which the stored frames normalize).
 */
import { composeTrs, identity, invertAffine, multiply } from '../gltf-numbers.ts';
import { polarDecomposition } from '../../math/polar-decomposition.ts';
import { matrixToQuat, quatMultiply, quatToMatrix } from '../../math/quaternion.ts';
import { isConstant, type KeyframeChannel, type KeyframeCurves, type KeyInterpolation } from '../../rig/keyframe-curves.ts';

/** One exported channel: its interpolation, key times (seconds) and values (CUBICSPLINE: in-tangent, value, out-tangent per key). */
export interface ExportedCurve {
  interpolation: KeyInterpolation;
  times: Float64Array;
  values: Float64Array;
}

/**
 * The joint's exported channels when its own node's curves say its pose exactly: `rotation` (null: its rotation
 * does not move) and `translation` (null: its own translation does not move, or the clip has no translations).
 */
export interface JointCurves {
  rotation: ExportedCurve | null;
  translation: ExportedCurve | null;
}

/** The clip's stored poses at its key times, to check the mapped keys against. */
export interface ClipFrames {
  boneCount: number;
  times: Float64Array;
  /** frame-major #L × #B × 9 row-major relative rotations */
  rotations: Float64Array;
  /** frame-major #L × #B × 3 start-joint translations, absent when the clip has none */
  translations?: Float64Array;
}

/** A similarity's deviation from a scaled rotation, relative (float32 inverse bind matrices are within ~1e-7). */
const SIMILARITY_TOLERANCE = 1e-5;
/** Largest entry difference of a mapped key's rotation matrix from the stored frame's. */
const ROTATION_TOLERANCE = 1e-7;
/**
 * Largest difference of a mapped key's translation from the stored frame's, relative to the skeleton's size: scale
 * keys at float32 round-off of 1 (which `holds` lets through) move joints by about 1e-6 of their distances, a wrong
 * map by the whole bone.
 */
const TRANSLATION_TOLERANCE = 1e-6;

/**
 * Bone b's channels in the exported file, or null when one channel per joint cannot say them exactly (animated
 * nodes between joints, animated scale, duplicate channels, key times that do not increase, non-similar frames).
 * @param curves     the clip's curves
 * @param b          bone (skin joint) index
 * @param restLocal  3: the exported joint node's rest translation (fresh-document.ts: r_b − r_parent, or r_b)
 * @param frames     the clip's stored poses, for the check of every mapped key
 */
export function exactJointCurves(curves: KeyframeCurves, b: number, restLocal: ArrayLike<number>, frames: ClipFrames): JointCurves | null {
  const { parents, jointNode, parentBone, inverseBind, fromWorld, heads } = curves;
  const N = parents.length;
  const n = jointNode[b];
  const p = parentBone[b];
  const stop = p >= 0 ? jointNode[p] : -1;
  const chain = new Set<number>();
  for (let m = n; m >= 0 && m !== stop; m = parents[m]) chain.add(m);
  const above = new Set<number>();
  for (let m = parents[n]; m >= 0; m = parents[m]) above.add(m);

  const own: Partial<Record<'rotation' | 'translation', KeyframeChannel>> = {};
  const seen = new Set<string>();
  for (const channel of curves.channels) {
    const key = `${channel.node} ${channel.path}`;
    const moving = !holds(channel);
    if (channel.node === n && seen.has(key)) return null;
    seen.add(key);
    if (!moving) continue;
    if (channel.path === 'scale' && (channel.node === n || above.has(channel.node))) return null;
    if (chain.has(channel.node) && channel.node !== n) return null;
    // A single key holds its value whatever its tangents: the stored frames say it as well.
    if (channel.node === n && channel.path !== 'scale' && channel.times.length > 1) {
      if (!increasing(channel.times)) return null;
      own[channel.path] = channel;
    }
  }

  // Node transforms with every unmoving channel at its value (moving ones at rest: only their scale would matter
  // above n, and that is unmoving).
  const translation = curves.restTranslation.slice();
  const rotation = curves.restRotation.slice();
  const scale = curves.restScale.slice();
  for (const channel of curves.channels) {
    if (!holds(channel)) continue;
    const width = channel.path === 'rotation' ? 4 : 3;
    const first = channel.interpolation === 'CUBICSPLINE' ? width : 0;
    const target = channel.path === 'rotation' ? rotation : channel.path === 'translation' ? translation : scale;
    target.set(channel.values.subarray(first, first + width), width * channel.node);
  }
  const local = new Float64Array(16 * N);
  for (let m = 0; m < N; m++) composeTrs(translation, 3 * m, rotation, 4 * m, scale, 3 * m, local, 16 * m);
  for (const m of above) {
    const sx = scale[3 * m],
      sy = scale[3 * m + 1],
      sz = scale[3 * m + 2];
    if (!(sx > 0) || Math.abs(sy - sx) > SIMILARITY_TOLERANCE * sx || Math.abs(sz - sx) > SIMILARITY_TOLERANCE * sx) return null;
  }

  // M: the local matrices strictly between n_p and n; K = F⁻¹ · IBM_p⁻¹ · M (a root: M).
  const k = identity();
  for (let m = parents[n]; m >= 0 && m !== stop; m = parents[m]) multiply(local, 16 * m, k, 0, k, 0);
  let sp = 1;
  if (p >= 0) {
    const toBind = new Float64Array(16);
    const unbind = new Float64Array(16);
    if (!invertAffine(fromWorld, 0, toBind, 0) || !invertAffine(inverseBind, 16 * p, unbind, 0)) return null;
    multiply(unbind, 0, k, 0, k, 0);
    multiply(toBind, 0, k, 0, k, 0);
    // A_p's linear part, up to the rotations above n_p (which do not change its scale): G_{n_p} · IBM_p · F.
    const global = identity();
    for (let m = stop; m >= 0; m = parents[m]) multiply(local, 16 * m, global, 0, global, 0);
    multiply(global, 0, inverseBind, 16 * p, global, 0);
    multiply(global, 0, fromWorld, 0, global, 0);
    const s = similarity(global);
    if (!s) return null;
    sp = s.scale;
  }
  const w = new Float64Array(16);
  const scaleOnly = new Float64Array(16);
  composeTrs(new Float64Array(3), 0, new Float64Array([0, 0, 0, 1]), 0, scale, 3 * n, scaleOnly, 0);
  multiply(scaleOnly, 0, inverseBind, 16 * b, w, 0);
  multiply(w, 0, fromWorld, 0, w, 0);
  const x = similarity(k);
  const y = similarity(w);
  if (!x || !y) return null;

  const B = frames.boneCount;
  const frameOf = new Map<number, number>();
  frames.times.forEach((t, f) => frameOf.set(t, f));
  let size = 0;
  for (const h of heads) size = Math.max(size, Math.abs(h));
  for (const r of Array.from(restLocal)) size = Math.max(size, Math.abs(r));

  let rotationCurve: ExportedCurve | null = null;
  const ownRotation = own.rotation;
  if (ownRotation) {
    const values = new Float64Array(ownRotation.values.length);
    for (let i = 0; i < values.length; i += 4) {
      quatMultiply(x.quaternion, 0, ownRotation.values, i, values, i);
      quatMultiply(values, i, y.quaternion, 0, values, i);
    }
    // LINEAR keys on one hemisphere, so that a player interpolating components (not SLERP) takes the short way too;
    // SLERP itself takes it whatever the signs (Appendix C), and a CUBICSPLINE key's sign is part of its curve.
    if (ownRotation.interpolation === 'LINEAR') {
      for (let i = 4; i < values.length; i += 4) {
        const dot =
          values[i] * values[i - 4] + values[i + 1] * values[i - 3] + values[i + 2] * values[i - 2] + values[i + 3] * values[i - 1];
        if (dot < 0) for (let c = 0; c < 4; c++) values[i + c] = -values[i + c];
      }
    }
    if (!storable(values)) return null;
    const stride = ownRotation.interpolation === 'CUBICSPLINE' ? 12 : 4;
    const first = ownRotation.interpolation === 'CUBICSPLINE' ? 4 : 0;
    const matrix = new Float64Array(9);
    for (let i = 0; i < ownRotation.times.length; i++) {
      const f = frameOf.get(ownRotation.times[i]);
      if (f === undefined) return null;
      quatToMatrix(values, i * stride + first, matrix, 0);
      const o = 9 * (f * B + b);
      for (let e = 0; e < 9; e++) if (!(Math.abs(matrix[e] - frames.rotations[o + e]) <= ROTATION_TOLERANCE)) return null;
    }
    rotationCurve = { interpolation: ownRotation.interpolation, times: ownRotation.times, values };
  }

  let translationCurve: ExportedCurve | null = null;
  const ownTranslation = own.translation;
  if (ownTranslation && frames.translations) {
    // value ↦ restLocal + s_p (K u − h_p) − (h_j − h_p), tangent ↦ s_p · lin(K) tangent (a root: s_p = 1, h_p = 0).
    const offset = new Float64Array(3);
    for (let c = 0; c < 3; c++) {
      const hp = p >= 0 ? heads[3 * p + c] : 0;
      offset[c] = restLocal[c] + sp * (k[12 + c] - hp) - (heads[3 * b + c] - hp);
    }
    const cubic = ownTranslation.interpolation === 'CUBICSPLINE';
    const source = ownTranslation.values;
    const values = new Float64Array(source.length);
    for (let i = 0; i < source.length; i += 3) {
      const isValue = !cubic || (i / 3) % 3 === 1;
      for (let r = 0; r < 3; r++) {
        values[i + r] = sp * (k[r] * source[i] + k[4 + r] * source[i + 1] + k[8 + r] * source[i + 2]) + (isValue ? offset[r] : 0);
      }
    }
    if (!storable(values)) return null;
    const stride = cubic ? 9 : 3;
    const first = cubic ? 3 : 0;
    for (let i = 0; i < ownTranslation.times.length; i++) {
      const f = frameOf.get(ownTranslation.times[i]);
      if (f === undefined) return null;
      const o = 3 * (f * B + b);
      for (let c = 0; c < 3; c++) {
        const stored = restLocal[c] + frames.translations[o + c];
        if (!(Math.abs(values[i * stride + first + c] - stored) <= TRANSLATION_TOLERANCE * Math.max(size, 1e-30))) return null;
      }
    }
    translationCurve = { interpolation: ownTranslation.interpolation, times: ownTranslation.times, values };
  }
  return { rotation: rotationCurve, translation: translationCurve };
}

/**
 * When the 4×4 affine matrix's linear part is s · Q (s > 0, Q a rotation): s and Q's unit quaternion; else null.
 */
function similarity(m: Float64Array): { scale: number; quaternion: Float64Array } | null {
  const a = new Float64Array(9);
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) a[3 * r + c] = m[4 * c + r];
  const det = a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) + a[2] * (a[3] * a[7] - a[4] * a[6]);
  if (!(det > 0) || !Number.isFinite(det)) return null;
  const s = Math.cbrt(det);
  // aᵀa = s² I for a similarity.
  for (let r = 0; r < 3; r++) {
    for (let c = 0; c < 3; c++) {
      const dot = a[r] * a[c] + a[3 + r] * a[3 + c] + a[6 + r] * a[6 + c];
      if (Math.abs(dot - (r === c ? s * s : 0)) > SIMILARITY_TOLERANCE * s * s) return null;
    }
  }
  const rotation = new Float64Array(9);
  polarDecomposition(a, 0, rotation, 0, new Float64Array(9), 0);
  const quaternion = new Float64Array(4);
  matrixToQuat(rotation, 0, quaternion, 0);
  return { scale: s, quaternion };
}

/**
 * Whether the channel holds one value: constant, or a scale whose keys differ from its first only by float32
 * round-off (within SIMILARITY_TOLERANCE; some exporters key a scale of 1 as 0.9999986 … 1.0000011 on every joint).
 * Rigid poses leave such scaling out in the app too; every mapped key is still checked against the stored frames.
 */
function holds(channel: KeyframeChannel): boolean {
  let known = held.get(channel);
  if (known === undefined) held.set(channel, (known = holdsOneValue(channel)));
  return known;
}

/** holds, remembered per channel: every joint of a clip asks about every channel. */
const held = new WeakMap<KeyframeChannel, boolean>();

function holdsOneValue(channel: KeyframeChannel): boolean {
  if (isConstant(channel)) return true;
  if (channel.path !== 'scale') return false;
  const { values } = channel;
  const cubic = channel.interpolation === 'CUBICSPLINE';
  const first = cubic ? 3 : 0;
  for (let i = 0; i < values.length; i += 3) {
    const tangent = cubic && (i / 3) % 3 !== 1;
    for (let c = 0; c < 3; c++) {
      const size = Math.abs(values[first + c]);
      if (!(Math.abs(values[i + c] - (tangent ? 0 : values[first + c])) <= SIMILARITY_TOLERANCE * size)) return false;
    }
  }
  return true;
}

/** Whether every value is finite as the float32 an accessor stores. */
function storable(values: Float64Array): boolean {
  for (const value of values) if (!Number.isFinite(Math.fround(value))) return false;
  return true;
}

/** Whether the key times strictly increase (glTF sampler inputs must). */
function increasing(times: Float64Array): boolean {
  for (let i = 1; i < times.length; i++) if (!(times[i] > times[i - 1])) return false;
  return true;
}
