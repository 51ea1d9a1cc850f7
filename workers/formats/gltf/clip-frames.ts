/**
 * A clip written from the rig's poses at its keys, for joint nodes of any rest transform (rest rotations, scales,
 * plain nodes between joints): the clip's channels say the pose at every key exactly and interpolate LINEAR between.
 */
import type { Accessor, Animation, Document, Node as GltfNode } from '@gltf-transform/core';
import type { GltfClip } from '../gltf-export.ts';
import { identity, invertAffine, multiply } from '../gltf-numbers.ts';
import type { Skeleton } from '../../rig/skeleton.ts';
import { forwardKinematics } from '../../rig/forward-kinematics.ts';
import { samplePose } from '../../rig/pose-sequence.ts';
import { decompose, MOVED, worldMatrix } from './node-matrices.ts';

/**
 * A clip as a new animation on the file's own joint nodes. At each key the rig's forward kinematics gives A_b
 * (rest → posed, world); the joint's posed world matrix is G_b = A_b · B_b (bindFramesOf), and its local TRS is
 * G_parent⁻¹ · G_b, where a parent node that is not a joint follows its nearest joint ancestor rigidly (or stays at
 * rest). Every joint gets a rotation channel; translation and scale channels where they leave the rest values.
 * Keys at the clip's key times, else at frame f / framesPerSecond (matrices), or t = 0 rest and t = 1 s final pose
 * (quaternions); LINEAR. A clip with joint scales (clip-scales.ts) scales each A_b by its λ_b about the bone's posed
 * head, which the scale channels then carry.
 */
export function frameClip(
  doc: Document,
  clip: GltfClip,
  skeleton: Skeleton,
  jointNodes: GltfNode[],
  bindFrames: Float64Array[],
  restWorld: Map<GltfNode, Float64Array>,
  framesPerSecond: number,
  diagonal: number,
  warnings: string[],
): { animation: Animation; input: Accessor } {
  const { poses } = clip;
  const B = poses.boneCount;
  const keys = poses.kind === 'matrices' ? poses.frameCount : 2;
  const keyTimes = poses.kind === 'matrices' ? poses.times : undefined;
  const times = Float32Array.from({ length: keys }, (_, f) =>
    poses.kind === 'matrices' ? (keyTimes ? keyTimes[f] : f / framesPerSecond) : f,
  );
  const rotations = new Float64Array(9 * B);
  const translations = new Float64Array(3 * B);
  const transforms = new Float64Array(12 * B);
  const boneOf = new Map(jointNodes.map((node, b) => [node, b]));
  const rest = (node: GltfNode): Float64Array => {
    let m = restWorld.get(node);
    if (!m) restWorld.set(node, (m = worldMatrix(node)));
    return m;
  };
  const T = new Float32Array(3 * B * keys);
  const R = new Float32Array(4 * B * keys);
  const S = new Float32Array(3 * B * keys);
  const posed: Float64Array[] = [];
  const a = new Float64Array(16);
  const inverse = new Float64Array(16);
  const local = new Float64Array(16);
  for (let f = 0; f < keys; f++) {
    if (poses.kind === 'matrices') {
      rotations.set(poses.rotations.subarray(9 * B * f, 9 * B * (f + 1)));
      if (poses.translations) translations.set(poses.translations.subarray(3 * B * f, 3 * B * (f + 1)));
      forwardKinematics(skeleton, rotations, transforms, poses.translations ? translations : null);
    } else {
      samplePose(poses, f, rotations);
      forwardKinematics(skeleton, rotations, transforms, null);
    }
    for (const b of skeleton.order) {
      const o = 12 * b;
      a.set([transforms[o], transforms[o + 4], transforms[o + 8], 0, transforms[o + 1], transforms[o + 5], transforms[o + 9], 0]);
      a.set([transforms[o + 2], transforms[o + 6], transforms[o + 10], 0, transforms[o + 3], transforms[o + 7], transforms[o + 11], 1], 8);
      if (clip.scales) scaleAboutHead(a, clip.scales[f * B + b], skeleton.joints, 3 * skeleton.bones[2 * b]);
      const world = (posed[b] = new Float64Array(16));
      multiply(a, 0, bindFrames[b], 0, world, 0);
      // The parent node's posed world matrix: a joint's, or a plain node's carried by its nearest joint ancestor.
      const parent = jointNodes[b].getParentNode();
      let parentWorld: Float64Array = identity();
      if (parent) {
        let ancestor: GltfNode | null = parent;
        while (ancestor && !boneOf.has(ancestor)) ancestor = ancestor.getParentNode();
        if (!ancestor) parentWorld = rest(parent);
        else {
          const p = boneOf.get(ancestor)!;
          invertAffine(rest(ancestor), 0, inverse, 0);
          parentWorld = new Float64Array(16);
          multiply(inverse, 0, rest(parent), 0, parentWorld, 0);
          multiply(posed[p], 0, parentWorld, 0, parentWorld, 0);
        }
      }
      invertAffine(parentWorld, 0, inverse, 0);
      multiply(inverse, 0, world, 0, local, 0);
      const { t, r, s } = decompose(local);
      T.set(t, 3 * (f * B + b));
      S.set(s, 3 * (f * B + b));
      // Neighbouring keys on one hemisphere, so that players interpolating components take the short way.
      const q = 4 * (f * B + b);
      const flip = f > 0 && r[0] * R[q - 4 * B] + r[1] * R[q - 4 * B + 1] + r[2] * R[q - 4 * B + 2] + r[3] * R[q - 4 * B + 3] < 0 ? -1 : 1;
      for (let k = 0; k < 4; k++) R[q + k] = flip * r[k];
    }
  }
  const buffer = doc.getRoot().listBuffers()[0] ?? doc.createBuffer();
  const input = doc.createAccessor().setType('SCALAR').setArray(times).setBuffer(buffer);
  const animation = doc.createAnimation(clip.name);
  const channel = (node: GltfNode, path: 'rotation' | 'translation' | 'scale', values: Float32Array): void => {
    const output = doc
      .createAccessor()
      .setType(path === 'rotation' ? 'VEC4' : 'VEC3')
      .setArray(values)
      .setBuffer(buffer);
    const sampler = doc.createAnimationSampler().setInput(input).setOutput(output).setInterpolation('LINEAR');
    animation.addSampler(sampler).addChannel(doc.createAnimationChannel().setTargetNode(node).setTargetPath(path).setSampler(sampler));
  };
  let scaled = 0;
  for (let b = 0; b < B; b++) {
    const node = jointNodes[b];
    const pick = (all: Float32Array, width: number): Float32Array => {
      const out = new Float32Array(width * keys);
      for (let f = 0; f < keys; f++) for (let k = 0; k < width; k++) out[width * f + k] = all[width * (f * B + b) + k];
      return out;
    };
    channel(node, 'rotation', pick(R, 4));
    const t = pick(T, 3);
    const restT = node.getTranslation();
    if (t.some((value, i) => Math.abs(value - restT[i % 3]) > MOVED * diagonal)) channel(node, 'translation', t);
    const s = pick(S, 3);
    const restS = node.getScale();
    if (s.some((value, i) => Math.abs(value - restS[i % 3]) > 1e-6 * Math.abs(restS[i % 3]))) {
      channel(node, 'scale', s);
      scaled++;
    }
  }
  if (scaled > 0 && !clip.scales)
    warnings.push(`clip "${clip.name}": ${scaled} joints get a scale channel (their bind frames are scaled unlike their rest nodes)`);
  return { animation, input };
}

/**
 * A_b(x) = M x + c (column-major 4×4 `a`) scaled by `scale` about the posed head P = A_b(h): λ M x + P − λ M h.
 * @param joints  the skeleton's joints, #J × 3; the head h is at joints[h..h+3)
 */
function scaleAboutHead(a: Float64Array, scale: number, joints: Float64Array, h: number): void {
  const x = joints[h],
    y = joints[h + 1],
    z = joints[h + 2];
  for (let r = 0; r < 3; r++) {
    const mh = a[r] * x + a[4 + r] * y + a[8 + r] * z;
    a[12 + r] += (1 - scale) * mh;
    a[r] *= scale;
    a[4 + r] *= scale;
    a[8 + r] *= scale;
  }
}
