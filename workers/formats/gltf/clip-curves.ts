/**
 * A clip written as the rig's own curves, for joint nodes that are exactly the bones: each at its bone's head with no
 * rest rotation or scale, below its parent bone's node, bind frame = rest frame (a fresh export's; a file's whose
 * joints are so). Rotation keys are then the relative rotations R_b themselves, and curves read from a glTF keep
 * their interpolation, key times and tangents (exact-curves.ts).
 */
import type { Accessor, Animation, Document, Node as GltfNode } from '@gltf-transform/core';
import type { GltfClip } from '../gltf-export.ts';
import { exactJointCurves } from './exact-curves.ts';
import { boneInterpolation, type KeyInterpolation } from '../../rig/keyframe-curves.ts';
import { matrixToQuat } from '../../math/quaternion.ts';

type AccessorFactory = (type: 'SCALAR' | 'VEC3' | 'VEC4' | 'MAT4', array: Float32Array) => Accessor;

/**
 * One clip of rotation channels, one per joint node. Rotation matrices become one key per frame, at the clip's own
 * key times when it has them (a glTF clip, a baked clip), else at f / `framesPerSecond`; final-pose quaternions
 * become keys at t = 0 (identity) and t = 1 s (final pose). Keys are LINEAR, which glTF interpolates by SLERP
 * (glTF 2.0 Appendix C) — our SLERP between frames — except where the clip's curves say otherwise:
 * - a joint moved only by its own node's rotation and translation (no animated node between it and its parent's
 *   joint, no animated scale) gets those curves as they are, with their interpolation (STEP, LINEAR, CUBICSPLINE),
 *   key times and values and tangents mapped into the joint's frame (exact-curves.ts derives the map), so it
 *   poses as the source between keys too;
 * - another joint that only STEP channels move is written STEP at the clip's keys;
 * - a joint whose curves one rotation curve per joint cannot say (animated nodes between joints, scale, STEP and
 *   LINEAR mixed on those nodes) is written LINEAR at the keys, every key exact, and a notice names it.
 * Start-joint translations add a translation channel to every joint node that moves: its rest local translation
 * plus t_b, which is in the parent node's axes since joint nodes have no rest rotation, interpolated as its rotation
 * (or its own curve, mapped, as above).
 */
export function curveClip(
  doc: Document,
  accessor: AccessorFactory,
  jointNodes: GltfNode[],
  clip: GltfClip,
  framesPerSecond: number,
  warnings: string[],
): { animation: Animation; input: Accessor } {
  const { poses } = clip;
  const boneCount = poses.boneCount;
  const frameCount = poses.kind === 'matrices' ? poses.frameCount : 2;
  const keyTimes = poses.kind === 'matrices' ? poses.times : undefined;
  const times = new Float32Array(frameCount);
  for (let f = 0; f < frameCount; f++) times[f] = keyTimes ? keyTimes[f] : poses.kind === 'matrices' ? f / framesPerSecond : f;
  // Key time accessors, one per distinct list of times: the clip's keys, and each curve's own keys.
  const inputs = new Map<string, Accessor>();
  const inputOf = (keys: Float32Array): Accessor => {
    const id = keys.join(' ');
    let found = inputs.get(id);
    if (!found) inputs.set(id, (found = accessor('SCALAR', keys)));
    return found;
  };
  const input = (): Accessor => inputOf(times);
  const animation = doc.createAnimation(clip.name);
  // Joint scales (a clip from pose files with its scales file): λ_b at each frame, 1 where absent.
  const scales = poses.kind === 'matrices' ? clip.scales : undefined;
  const curves = poses.kind === 'matrices' && poses.times && frameCount > 1 && !scales ? poses.curves : undefined;
  const exact = Array.from({ length: boneCount }, (_, b) =>
    curves && poses.kind === 'matrices'
      ? exactJointCurves(curves, b, jointNodes[b].getTranslation(), {
          boneCount,
          times: poses.times!,
          rotations: poses.rotations,
          translations: poses.translations,
        })
      : null,
  );
  const interpolation = Array.from({ length: boneCount }, (_, b) => (curves && !exact[b] ? boneInterpolation(curves, b) : 'LINEAR'));
  const addChannel = (
    b: number,
    path: 'rotation' | 'translation' | 'scale',
    keys: Accessor,
    values: Float32Array,
    kind: KeyInterpolation,
  ): void => {
    const sampler = doc
      .createAnimationSampler()
      .setInput(keys)
      .setOutput(accessor(path === 'rotation' ? 'VEC4' : 'VEC3', values))
      .setInterpolation(kind);
    const channel = doc.createAnimationChannel().setTargetNode(jointNodes[b]).setTargetPath(path).setSampler(sampler);
    animation.addSampler(sampler).addChannel(channel);
  };
  const q = new Float64Array(4);
  for (let b = 0; b < boneCount; b++) {
    const own = exact[b]?.rotation;
    if (own) {
      addChannel(b, 'rotation', inputOf(Float32Array.from(own.times)), Float32Array.from(own.values), own.interpolation);
      continue;
    }
    const out = new Float32Array(4 * frameCount);
    for (let f = 0; f < frameCount; f++) {
      if (poses.kind === 'matrices') {
        matrixToQuat(poses.rotations, (f * boneCount + b) * 9, q, 0);
      } else if (f === 0) {
        q.set([0, 0, 0, 1]);
      } else {
        q.set(poses.final.subarray(4 * b, 4 * b + 4));
      }
      // Keep neighbouring keys on one hemisphere, so that a player interpolating components (not SLERP) still
      // takes the short way; q and −q are the same rotation.
      const o = 4 * f;
      const flip = f > 0 && q[0] * out[o - 4] + q[1] * out[o - 3] + q[2] * out[o - 2] + q[3] * out[o - 1] < 0 ? -1 : 1;
      for (let k = 0; k < 4; k++) out[o + k] = flip * q[k];
    }
    addChannel(b, 'rotation', input(), out, interpolation[b] ?? 'LINEAR');
  }
  const changed = jointNodes.filter((_, b) => interpolation[b] === null).map((node) => node.getName());
  if (curves && changed.length > 0) {
    const kinds = [...new Set(curves.channels.map((c) => c.interpolation))].sort().join(' and ');
    warnings.push(
      `clip "${clip.name}": ${changed.length} joint${changed.length === 1 ? '' : 's'} (${changed.slice(0, 4).join(', ')}${changed.length > 4 ? ', …' : ''}) move between keys in a way one curve per joint cannot say (animated nodes between joints, animated or non-uniform scale; the file's ${kinds} curves${curves.channels.some((c) => c.path === 'scale') ? ', scale' : ''}); they are written LINEAR at the clip's ${frameCount} key times: the pose at every key is exact, between keys it is SLERP`,
    );
  }
  const parentBone = parentBones(jointNodes);
  if (scales) addScaleChannels(scales, parentBone, frameCount, (b, values) => addChannel(b, 'scale', input(), values, 'LINEAR'));
  const translations = poses.kind === 'matrices' ? poses.translations : undefined;
  if (!translations && !scales) return { animation, input: input() };
  // A node's translation is in its parent's axes, which its parent's scale λ_p stretches: the rest offset plus
  // t_b, which the rig places with the parent's rotation alone, is divided by λ_p.
  const parentScale = (f: number, b: number): number => (scales && parentBone[b] >= 0 ? scales[f * boneCount + parentBone[b]] : 1);
  for (let b = 0; b < boneCount; b++) {
    const own = exact[b]?.translation;
    if (own) {
      addChannel(b, 'translation', inputOf(Float32Array.from(own.times)), Float32Array.from(own.values), own.interpolation);
      continue;
    }
    let moves = false;
    for (let f = 0; f < frameCount && !moves; f++) {
      const o = 3 * (f * boneCount + b);
      moves =
        parentScale(f, b) !== 1 || (!!translations && (translations[o] !== 0 || translations[o + 1] !== 0 || translations[o + 2] !== 0));
    }
    if (!moves) continue;
    const rest = jointNodes[b].getTranslation();
    const out = new Float32Array(3 * frameCount);
    for (let f = 0; f < frameCount; f++)
      for (let c = 0; c < 3; c++)
        out[3 * f + c] = (rest[c] + (translations ? translations[3 * (f * boneCount + b) + c] : 0)) / parentScale(f, b);
    addChannel(b, 'translation', input(), out, interpolation[b] ?? 'LINEAR');
  }
  return { animation, input: input() };
}

/** Each joint node's parent joint (its index in `jointNodes`), −1 for a node whose parent is no joint. */
function parentBones(jointNodes: readonly GltfNode[]): Int32Array {
  const index = new Map(jointNodes.map((node, b) => [node, b]));
  return Int32Array.from(jointNodes, (node) => {
    const parent = node.getParentNode();
    return parent ? (index.get(parent) ?? -1) : -1;
  });
}

/**
 * Scale channels for joints whose scale relative to their parent joint's, σ_b = λ_b / λ_p (a root's λ_b), is not 1
 * at some frame: the node's world linear part is then λ_b Q_b, the source joint's (clip-scales.ts).
 * @param scales  L·B uniform scales, frame-major
 * @param add     writes joint b's channel: L × 3 values
 */
function addScaleChannels(
  scales: Float64Array,
  parentBone: Int32Array,
  frameCount: number,
  add: (b: number, values: Float32Array) => void,
): void {
  const B = parentBone.length;
  for (let b = 0; b < B; b++) {
    const out = new Float32Array(3 * frameCount);
    for (let f = 0; f < frameCount; f++) {
      const p = parentBone[b];
      out.fill(scales[f * B + b] / (p >= 0 ? scales[f * B + p] : 1), 3 * f, 3 * f + 3);
    }
    if (out.some((value) => value !== 1)) add(b, out);
  }
}
