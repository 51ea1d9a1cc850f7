/**
 * glTF animations into Rigwright clips: each animation keeps its key times (the union of its channels' key times)
 * and its channels on joint nodes and their ancestors (KeyframeCurves), so that the app evaluates the clip between
 * keys as the file interpolates it; the pose at every key time is stored as relative rotation matrices per bone
 * (and start-joint translations where joints move beyond their parents' rotations). The conversion of poses is the
 * reader's (gltf-import.ts, workers/rig/keyframe-curves.ts).
 */
import type { Accessor, AnimationChannel, Node as GltfNode } from '@gltf-transform/core';
import type { GltfClip } from './gltf-export.ts';
import { readElement } from './gltf-numbers.ts';
import { excerpt } from './text-scanner.ts';
import { evaluateKeyframeCurves, unionKeyTimes, type KeyframeChannel, type KeyframeCurves } from '../rig/keyframe-curves.ts';

/** Tolerance for "weights sum to 1", "no scale", "constant channel" (relative). */
export const TOLERANCE = 1e-3;
/** Start-joint translations all below this fraction of the mesh diagonal are round-off of rotations: not stored. */
const TRANSLATION_EPSILON = 1e-7;
/** Most keys × (nodes + bones + channels) one clip may cost to evaluate at its keys (bounds time and memory). */
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
  /** parent scene node of every scene node, −1 for a root */
  parentOf: readonly number[];
  /** the scene nodes that move joints (joints and their ancestors), parents before children */
  composeOrder: readonly number[];
  jointIndex: number[];
  inverseBind: Float64Array;
  fromWorld: Float64Array;
  parentBone: Int32Array;
  /** bone heads (skeleton joints 0 … #B − 1) */
  heads: Float64Array;
  diagonal: number;
  warnings: string[];
  fail: (where: string, reason: string) => never;
  /** the animation's JSON pointer */
  where: string;
  pointer: (accessor: Accessor) => string;
}

/**
 * One glTF animation as a clip at its own key times: frame k is the pose at the k-th distinct key time of any of
 * its channels (a clip without channels is one frame, the rest pose, at 0 s), with `times` in seconds as the file
 * says and `curves` for the poses between keys.
 */
export function readClip(channels: AnimationChannel[], name: string, ctx: ClipContext): GltfClip {
  const { indexOf, rest, jointIndex, inverseBind, fromWorld, parentBone, heads, diagonal, warnings, composeOrder, parentOf } = ctx;
  const boneCount = jointIndex.length;
  // Scene nodes that move joints, renumbered in compose order.
  const local = new Map<number, number>();
  composeOrder.forEach((n, i) => local.set(n, i));
  const kept: KeyframeChannel[] = [];
  const dropped: string[] = [];
  for (const channel of channels) {
    const sampler = channel.getSampler();
    const target = channel.getTargetNode();
    const path = channel.getTargetPath();
    if (!sampler || !target || !sampler.getInput() || !sampler.getOutput()) continue;
    const sceneNode = indexOf.get(target);
    if (sceneNode === undefined) continue;
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
    // A channel on a node that moves no joint changes no pose: its keys add no frames.
    const node = local.get(sceneNode);
    if (node === undefined || times.length === 0) continue;
    kept.push({ node, path, interpolation, times, values });
  }
  if (dropped.length > 0) {
    warnings.push(
      `animation "${name}": ${dropped.slice(0, 4).join(', ')}${dropped.length > 4 ? ` and ${dropped.length - 4} more` : ''} ${dropped.length === 1 ? 'is' : 'are'} animated; Rigwright poses move bones only, so this is left out`,
    );
  }

  // Bounded before the frames are allocated: each key costs a pass over the nodes, bones and channels.
  let keyCount = 0;
  for (const channel of kept) keyCount += channel.times.length;
  const work = keyCount * (composeOrder.length + boneCount + kept.length);
  if (work > MAX_CLIP_WORK) {
    ctx.fail(
      ctx.where,
      `animation "${excerpt(name)}" has ${keyCount} keys on ${kept.length} channels for ${boneCount} bones and ${composeOrder.length} nodes, more than Rigwright evaluates in one clip (${MAX_CLIP_WORK} key × node steps)`,
    );
  }
  const times = unionKeyTimes(kept);
  const frameCount = times.length;
  const curves: KeyframeCurves = {
    parents: Int32Array.from(composeOrder, (n) => (parentOf[n] < 0 ? -1 : local.get(parentOf[n])!)),
    restTranslation: new Float64Array(3 * composeOrder.length),
    restRotation: new Float64Array(4 * composeOrder.length),
    restScale: new Float64Array(3 * composeOrder.length),
    jointNode: Int32Array.from(jointIndex, (n) => local.get(n)!),
    inverseBind: inverseBind.slice(),
    fromWorld: fromWorld.slice(),
    parentBone: parentBone.slice(),
    heads: heads.slice(0, 3 * boneCount),
    channels: kept,
  };
  composeOrder.forEach((n, i) => {
    curves.restTranslation.set(rest.translation.subarray(3 * n, 3 * n + 3), 3 * i);
    curves.restRotation.set(rest.rotation.subarray(4 * n, 4 * n + 4), 4 * i);
    curves.restScale.set(rest.scale.subarray(3 * n, 3 * n + 3), 3 * i);
  });
  const out = new Float64Array(9 * boneCount * frameCount);
  const translations = new Float64Array(3 * boneCount * frameCount);
  const measure = { worstScale: 0, farthest: 0 };
  for (let f = 0; f < frameCount; f++) {
    evaluateKeyframeCurves(
      curves,
      times[f],
      out.subarray(9 * boneCount * f, 9 * boneCount * (f + 1)),
      translations.subarray(3 * boneCount * f, 3 * boneCount * (f + 1)),
      measure,
    );
  }
  for (let i = 0; i < out.length; i++) {
    if (!Number.isFinite(out[i]))
      ctx.fail(
        ctx.where,
        `animation "${excerpt(name)}" key ${Math.floor(i / (9 * boneCount))}: the pose is not finite (its transforms are too large)`,
      );
  }
  for (let i = 0; i < translations.length; i++) {
    if (!Number.isFinite(translations[i]))
      ctx.fail(
        ctx.where,
        `animation "${excerpt(name)}" key ${Math.floor(i / (3 * boneCount))}: a joint moves to a non-finite place (its transforms are too large)`,
      );
  }
  if (measure.worstScale > TOLERANCE)
    warnings.push(
      `animation "${name}": joints scale or shear (up to ${measure.worstScale.toPrecision(3)}); where the joints go is kept, the scaling itself is left out`,
    );
  // Joints that only rotate leave round-off here; a sequence without translations is the plain rotation form.
  const moves = measure.farthest > TRANSLATION_EPSILON * diagonal;
  return {
    name,
    poses: moves
      ? { kind: 'matrices', boneCount, frameCount, rotations: out, translations, times, curves }
      : { kind: 'matrices', boneCount, frameCount, rotations: out, times, curves },
  };
}
