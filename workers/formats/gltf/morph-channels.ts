/**
 * Morph target bookkeeping shared by the example and bake steps: the examples' weights planned into targets whose
 * stored weights stay in [0, 1], empty targets that keep a mesh's primitives in step, `weights` channels.
 */
import type { Accessor, Animation, Document, Mesh as GltfMesh, Node as GltfNode } from '@gltf-transform/core';
import type { GltfPoseSpace } from '../gltf-export.ts';
import { poseSpaceWeights } from '../../posespace/pose-space-weights.ts';
import { samplePose, type PoseSequence } from '../../rig/pose-sequence.ts';
import type { Fail } from './export-state.ts';

/**
 * The examples' pose-space weights at each pose, #poses × J (the examples' target weights are keyed from them).
 * @throws through `fail`, naming the example, when a weight is not a finite number
 */
export function examplePoseWeights(poseSpace: GltfPoseSpace, poses: readonly Float64Array[], fail: Fail): Float64Array {
  const J = poseSpace.names.length;
  const out = new Float64Array(poses.length * J);
  poses.forEach((pose, k) => poseSpaceWeights(poseSpace.interpolator, pose, out.subarray(k * J, (k + 1) * J)));
  const bad = out.findIndex((a) => !Number.isFinite(a));
  if (bad >= 0) fail(`example "${poseSpace.names[bad % J]}"`, 'its pose-space weight is not a finite number');
  return out;
}

/** The relative rotations at each key of a clip, as addRotationClip keys it (frames; or t = 0 and t = 1). */
export function clipKeyPoses(poses: PoseSequence): Float64Array[] {
  const keys = poses.kind === 'matrices' ? poses.frameCount : 2;
  return Array.from({ length: keys }, (_, k) => {
    const pose = new Float64Array(9 * poses.boneCount);
    samplePose(poses, k, pose);
    return pose;
  });
}

/** A morph target of an example: its displacement δ_j times `scale` (negative: the part of a_j below zero). */
export interface ExampleTarget {
  name: string;
  example: number;
  scale: number;
}

/**
 * Stored morph weights stay in [0, 1], because players clamp them there: Blender's importer turns targets into
 * shape keys whose slider range is [0, 1] (widened only by the mesh's default weights), and an animated value
 * outside it is clamped. The RBF weights a_j leave that range (the Gaussian overshoots to 1.15 and undershoots
 * to −0.27 on the body's clip), so each example's weight is split, a_j = max(a_j, 0) − max(−a_j, 0), into a
 * target s⁺ δ_j weighted max(a_j, 0)/s⁺ and, when a_j ever goes below zero, a target −s⁻ δ_j (named "<name> −")
 * weighted max(−a_j, 0)/s⁻, with s± = max(1, the part's largest value over all keys). Players lerp each part
 * between two keys, and lerp(max(a, 0)) − lerp(max(−a, 0)) = lerp(a) since max(a, 0) − max(−a, 0) = a at both
 * keys, so the split is exact at and between keys. An example whose weights stay in [0, 1] gets one target δ_j
 * weighted a_j.
 * @param weightSets  K × J weights, J = names.length, for every key of every clip and the rest pose
 */
export function planExampleTargets(names: readonly string[], weightSets: readonly Float64Array[]): ExampleTarget[] {
  const J = names.length;
  const positive = new Float64Array(J);
  const negative = new Float64Array(J);
  for (const set of weightSets) {
    for (let i = 0; i < set.length; i++) {
      const j = i % J;
      positive[j] = Math.max(positive[j], set[i]);
      negative[j] = Math.max(negative[j], -set[i]);
    }
  }
  const targets: ExampleTarget[] = names.map((name, j) => ({ name, example: j, scale: Math.max(1, positive[j]) }));
  names.forEach((name, j) => {
    if (negative[j] > 0) targets.push({ name: `${name} −`, example: j, scale: -Math.max(1, negative[j]) });
  });
  return targets;
}

/** The stored weight of every example target for one key's J weights a_j (see planExampleTargets). */
export function exampleTargetWeights(targets: readonly ExampleTarget[], a: ArrayLike<number>, out: Float32Array, offset: number): void {
  targets.forEach((target, t) => {
    const part = target.scale > 0 ? Math.max(a[target.example], 0) : Math.max(-a[target.example], 0);
    out[offset + t] = part / Math.abs(target.scale);
  });
}

/**
 * Pads every primitive of `mesh` with zero POSITION targets up to `count` (a mesh's primitives share its weights, so
 * each needs as many targets); `name` names the target at an index.
 */
export function padTargets(doc: Document, mesh: GltfMesh, count: number, name: (index: number) => string): void {
  for (const primitive of mesh.listPrimitives()) {
    const position = primitive.getAttribute('POSITION')!;
    while (primitive.listTargets().length < count) {
      const zero = doc
        .createAccessor()
        .setType('VEC3')
        .setArray(new Float32Array(3 * position.getCount()))
        .setBuffer(position.getBuffer());
      primitive.addTarget(doc.createPrimitiveTarget(name(primitive.listTargets().length)).setAttribute('POSITION', zero));
    }
  }
}

/** A LINEAR `weights` channel on each node, keying `values` (#keys × #targets) at the times `input`. */
export function addWeightsChannels(
  doc: Document,
  animation: Animation,
  nodes: Iterable<GltfNode>,
  input: Accessor,
  values: Float32Array,
): void {
  for (const node of nodes) {
    const output = doc.createAccessor().setType('SCALAR').setArray(values.slice()).setBuffer(input.getBuffer());
    const sampler = doc.createAnimationSampler().setInput(input).setOutput(output).setInterpolation('LINEAR');
    animation.addSampler(sampler).addChannel(doc.createAnimationChannel().setTargetNode(node).setTargetPath('weights').setSampler(sampler));
  }
}

/** Whether a mesh node's mesh has morph targets (its own: new targets go only where there are none). */
export function hasMorphTargets(node: GltfNode): boolean {
  return node
    .getMesh()!
    .listPrimitives()
    .some((primitive) => primitive.listTargets().length > 0);
}
