/**
 * glTF animations into Rigwright clips: each animation's channels on joint nodes and their ancestors become
 * relative rotation matrices per bone (and start-joint translations where joints move beyond their parents'
 * rotations), resampled at a fixed rate. The conversion of poses is the reader's (gltf-import.ts).
 */
import type { Accessor, AnimationChannel, Node as GltfNode } from '@gltf-transform/core';
import type { GltfClip } from './gltf-export.ts';
import { multiply, readElement, transformPoint } from './gltf-numbers.ts';
import { excerpt } from './text-scanner.ts';
import { polarDecomposition } from '../math/polar-decomposition.ts';
import { quatNormalize, quatSlerp } from '../math/quaternion.ts';

/** Tolerance for "weights sum to 1", "no scale", "constant channel" (relative). */
export const TOLERANCE = 1e-3;
/** Start-joint translations all below this fraction of the mesh diagonal are round-off of rotations: not stored. */
const TRANSLATION_EPSILON = 1e-7;
/** Longest clip resampled (its last key time), seconds. */
export const MAX_CLIP_SECONDS = 3600;
/** Most frames × (nodes + bones + channels) one clip may cost to resample (bounds time and memory). */
export const MAX_CLIP_WORK = 1e7;

/** Local translation, rotation (x y z w) and scale of every scene node. */
export interface NodeTrs {
  translation: Float64Array;
  rotation: Float64Array;
  scale: Float64Array;
}

export interface ClipContext {
  indexOf: Map<GltfNode, number>;
  rest: NodeTrs;
  global: Float64Array;
  composeGlobals: (trs: NodeTrs) => void;
  jointIndex: number[];
  inverseBind: Float64Array;
  fromWorld: Float64Array;
  parentBone: Int32Array;
  /** bone heads (skeleton joints 0 … #B − 1) */
  heads: Float64Array;
  framesPerSecond: number;
  diagonal: number;
  warnings: string[];
  fail: (where: string, reason: string) => never;
  /** the animation's JSON pointer */
  where: string;
  pointer: (accessor: Accessor) => string;
  /** nodes composed per frame (joints and their ancestors) */
  nodeCount: number;
}

interface SampledChannel {
  node: number;
  path: 'rotation' | 'translation' | 'scale';
  times: Float64Array;
  values: Float64Array;
  interpolation: string;
}

/**
 * One glTF animation as relative rotation matrices, plus start-joint translations when joints move beyond their
 * parents' rotations, resampled at framesPerSecond from t = 0 to the last key (frame count ⌈duration · fps⌉ + 1;
 * the last frame is clamped to the last key's time).
 */
export function resampleClip(channels: AnimationChannel[], name: string, ctx: ClipContext): GltfClip {
  const { indexOf, rest, global, jointIndex, inverseBind, fromWorld, parentBone, heads, framesPerSecond, diagonal, warnings } = ctx;
  const boneCount = jointIndex.length;
  const sampled: SampledChannel[] = [];
  const dropped: string[] = [];
  let duration = 0;
  for (const channel of channels) {
    const sampler = channel.getSampler();
    const target = channel.getTargetNode();
    const path = channel.getTargetPath();
    if (!sampler || !target || !sampler.getInput() || !sampler.getOutput()) continue;
    const node = indexOf.get(target);
    if (node === undefined) continue;
    if (path === 'weights') {
      dropped.push(`morph weights of "${target.getName()}"`);
      continue;
    }
    if (path !== 'rotation' && path !== 'translation' && path !== 'scale') continue;
    const input = sampler.getInput()!;
    const output = sampler.getOutput()!;
    const { fail, pointer } = ctx;
    if (input.getType() !== 'SCALAR' || input.getComponentType() !== 5126) fail(pointer(input), 'key times must be SCALAR floats');
    const times = Float64Array.from({ length: input.getCount() }, (_, i) => input.getScalar(i));
    for (let i = 0; i < times.length; i++) {
      if (!Number.isFinite(times[i]) || times[i] < 0) fail(pointer(input), `key time ${i} is ${times[i]}; key times are finite and ≥ 0`);
      if (i > 0 && times[i] < times[i - 1])
        fail(pointer(input), `key time ${i} (${times[i]} s) comes before key time ${i - 1} (${times[i - 1]} s)`);
    }
    const width = path === 'rotation' ? 4 : 3;
    if (output.getElementSize() !== width)
      fail(pointer(output), `${path} values must be ${width === 4 ? 'VEC4' : 'VEC3'}, not ${output.getType()}`);
    const interpolation = sampler.getInterpolation();
    const perKey = interpolation === 'CUBICSPLINE' ? 3 : 1;
    if (output.getCount() !== perKey * times.length)
      fail(pointer(output), `${output.getCount()} ${path} values for ${times.length} key times (${interpolation} needs ${perKey} per key)`);
    const values = new Float64Array(output.getCount() * width);
    for (let i = 0; i < output.getCount(); i++)
      readElement(output, i, values, i * width, fail, `${pointer(output)} (animation "${excerpt(name)}")`);
    if (path === 'rotation') {
      for (let k = perKey === 3 ? 1 : 0; k < output.getCount(); k += perKey) {
        const length = Math.hypot(values[4 * k], values[4 * k + 1], values[4 * k + 2], values[4 * k + 3]);
        if (!(length > 1e-12 && Number.isFinite(length)))
          fail(
            `${pointer(output)} element ${k}`,
            `the rotation (${Array.from(values.subarray(4 * k, 4 * k + 4)).join(', ')}) is not a usable quaternion (length ${length})`,
          );
      }
    }
    duration = Math.max(duration, times.length > 0 ? times[times.length - 1] : 0);
    sampled.push({ node, path, times, values, interpolation });
  }
  if (dropped.length > 0) {
    warnings.push(
      `animation "${name}": ${dropped.slice(0, 4).join(', ')}${dropped.length > 4 ? ` and ${dropped.length - 4} more` : ''} ${dropped.length === 1 ? 'is' : 'are'} animated; Rigwright poses move bones only, so this is left out`,
    );
  }

  // Bounded before anything is allocated: a last key at 1e5 s would otherwise be millions of frames.
  if (duration > MAX_CLIP_SECONDS) {
    ctx.fail(
      ctx.where,
      `animation "${excerpt(name)}" lasts ${duration} s (its last key); Rigwright resamples clips of at most ${MAX_CLIP_SECONDS} s (${MAX_CLIP_SECONDS * framesPerSecond} frames at ${framesPerSecond} per second)`,
    );
  }
  const frameCount = Math.max(1, Math.ceil(duration * framesPerSecond - 1e-6) + 1);
  const work = frameCount * (ctx.nodeCount + boneCount + sampled.length);
  if (work > MAX_CLIP_WORK) {
    ctx.fail(
      ctx.where,
      `animation "${excerpt(name)}" needs ${frameCount} frames of ${boneCount} bones and ${ctx.nodeCount} nodes, more than Rigwright resamples in one clip (${MAX_CLIP_WORK} frame × node steps)`,
    );
  }
  const out = new Float64Array(9 * boneCount * frameCount);
  const translations = new Float64Array(3 * boneCount * frameCount);
  const current: NodeTrs = { translation: rest.translation.slice(), rotation: rest.rotation.slice(), scale: rest.scale.slice() };
  const jointMatrices = new Float64Array(16 * boneCount);
  const posedHeads = new Float64Array(3 * boneCount);
  const absolute = new Float64Array(9 * boneCount);
  const linear = new Float64Array(9);
  const stretch = new Float64Array(9);
  let worstScale = 0;
  let farthest = 0;
  for (let f = 0; f < frameCount; f++) {
    const time = Math.min(f / framesPerSecond, duration);
    current.translation.set(rest.translation);
    current.rotation.set(rest.rotation);
    current.scale.set(rest.scale);
    for (const channel of sampled) {
      if (channel.path === 'rotation') sampleRotation(channel, time, current.rotation, 4 * channel.node);
      else sampleVector(channel, time, channel.path === 'translation' ? current.translation : current.scale, 3 * channel.node);
    }
    ctx.composeGlobals(current);
    for (let j = 0; j < boneCount; j++) {
      const a = 16 * j;
      multiply(global, 16 * jointIndex[j], inverseBind, 16 * j, jointMatrices, a);
      multiply(jointMatrices, a, fromWorld, 0, jointMatrices, a);
      for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) linear[3 * r + c] = jointMatrices[a + 4 * c + r];
      polarDecomposition(linear, 0, absolute, 9 * j, stretch, 0);
      for (let r = 0; r < 3; r++)
        for (let c = 0; c < 3; c++) worstScale = Math.max(worstScale, Math.abs(stretch[3 * r + c] - (r === c ? 1 : 0)));
    }
    for (let j = 0; j < boneCount; j++)
      posedHeads.set(transformPoint(jointMatrices.subarray(16 * j, 16 * j + 16), heads.subarray(3 * j, 3 * j + 3)), 3 * j);
    for (let j = 0; j < boneCount; j++) {
      const o = 9 * (f * boneCount + j);
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
      const t = 3 * (f * boneCount + j);
      if (p < 0) {
        out.set(absolute.subarray(9 * j, 9 * j + 9), o);
        translations[t] = dx;
        translations[t + 1] = dy;
        translations[t + 2] = dz;
        farthest = Math.max(farthest, Math.hypot(dx, dy, dz));
        continue;
      }
      // R_j = Q_pᵀ · Q_j and t_j = Q_pᵀ · d
      for (let r = 0; r < 3; r++) {
        for (let c = 0; c < 3; c++) {
          out[o + 3 * r + c] =
            absolute[9 * p + r] * absolute[9 * j + c] +
            absolute[9 * p + 3 + r] * absolute[9 * j + 3 + c] +
            absolute[9 * p + 6 + r] * absolute[9 * j + 6 + c];
        }
        translations[t + r] = absolute[9 * p + r] * dx + absolute[9 * p + 3 + r] * dy + absolute[9 * p + 6 + r] * dz;
      }
      farthest = Math.max(farthest, Math.hypot(dx, dy, dz));
    }
  }
  ctx.composeGlobals(rest);
  for (let i = 0; i < out.length; i++) {
    if (!Number.isFinite(out[i]))
      ctx.fail(
        ctx.where,
        `animation "${excerpt(name)}" frame ${Math.floor(i / (9 * boneCount))}: the pose is not finite (its transforms are too large)`,
      );
  }
  for (let i = 0; i < translations.length; i++) {
    if (!Number.isFinite(translations[i]))
      ctx.fail(
        ctx.where,
        `animation "${excerpt(name)}" frame ${Math.floor(i / (3 * boneCount))}: a joint moves to a non-finite place (its transforms are too large)`,
      );
  }
  if (worstScale > TOLERANCE)
    warnings.push(
      `animation "${name}": joints scale or shear (up to ${worstScale.toPrecision(3)}); where the joints go is kept, the scaling itself is left out`,
    );
  // Joints that only rotate leave round-off here; a sequence without translations is the plain rotation form.
  const moves = farthest > TRANSLATION_EPSILON * diagonal;
  return {
    name,
    poses: moves
      ? { kind: 'matrices', boneCount, frameCount, rotations: out, translations }
      : { kind: 'matrices', boneCount, frameCount, rotations: out },
  };
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
function sampleVector(channel: SampledChannel, time: number, out: Float64Array, o: number): void {
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
function sampleRotation(channel: SampledChannel, time: number, out: Float64Array, o: number): void {
  const { times, values, interpolation } = channel;
  const n = times.length;
  if (n === 0) return;
  const cubic = interpolation === 'CUBICSPLINE';
  const stride = cubic ? 12 : 4;
  const valueAt = (k: number, target: Float64Array, to: number): void => {
    for (let c = 0; c < 4; c++) target[to + c] = values[k * stride + (cubic ? 4 : 0) + c];
  };
  if (time <= times[0] || n === 1) {
    valueAt(0, out, o);
    quatNormalize(out, o, out, o);
    return;
  }
  if (time >= times[n - 1]) {
    valueAt(n - 1, out, o);
    quatNormalize(out, o, out, o);
    return;
  }
  const lo = keyBefore(times, time);
  const hi = lo + 1;
  const dt = times[hi] - times[lo];
  const s = dt > 0 ? (time - times[lo]) / dt : 0;
  if (interpolation === 'STEP') {
    valueAt(lo, out, o);
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
    valueAt(lo, slerpA, 0);
    valueAt(hi, slerpB, 0);
    quatNormalize(slerpA, 0, slerpA, 0);
    quatNormalize(slerpB, 0, slerpB, 0);
    quatSlerp(slerpA, 0, slerpB, 0, s, out, o);
  }
  quatNormalize(out, o, out, o);
}
