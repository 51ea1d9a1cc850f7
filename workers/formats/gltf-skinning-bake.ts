/**
 * Skinning baked into vertex animation for glTF (gltf-vertex-animation.ts): a pose sequence played through a skinning
 * method on the CPU, one posed mesh per keyframe. glTF skins blend linearly only (glTF 2.0 §3.7.3), so this is how a
 * dual quaternion deformation (Kavan et al. 2008) reaches other programs exactly as it was previewed.
 */
import type { GltfVertexAnimation } from './gltf-vertex-animation.ts';
import type { DenseMatrix } from './types.ts';
import type { Skeleton } from '../rig/skeleton.ts';
import { identityPose, type PoseSequence } from '../rig/pose-sequence.ts';
import { poseForwardKinematics } from '../rig/forward-kinematics.ts';
import { influencesFromWeights } from '../skinning/influences.ts';
import { linearBlendSkinning } from '../skinning/linear-blend-skinning.ts';
import { dualQuaternionSkinning, type DualQuaternionAntipodality } from '../skinning/dual-quaternion-skinning.ts';
import { dualQuatsFromRigidMatrices } from '../math/dual-quaternion.ts';
import { alignDualQuaternionSigns } from '../skinning/align-dual-quaternion-signs.ts';

/** Skinning methods that bake: both are closed-form per frame. */
export type BakeableSkinMethod = 'lbs' | 'dqs';

/** One clip to bake: which poses, through which method, with which influences. */
export interface SkinningBake {
  /** animation clip name (must differ from the rotation clips' names) */
  name: string;
  method: BakeableSkinMethod;
  poses: PoseSequence;
  /** largest weights kept per vertex, renormalized (influencesFromWeights); 0 keeps all */
  influences: number;
  /** DQS only; default 'per-vertex' */
  antipodality?: DualQuaternionAntipodality;
}

/**
 * Keyframes a pose sequence bakes into: every stored frame of a rotation-matrix sequence (frame f at f / fps,
 * the exporter's rotation-clip timing), or the SLERP from the rest pose to a final quaternion pose sampled over
 * one second (the exporter writes that clip with keys at 0 s and 1 s).
 * @param poses            the sequence
 * @param framesPerSecond  keyframe rate (> 0)
 */
export function bakeFrameCount(poses: PoseSequence, framesPerSecond: number): number {
  return poses.kind === 'matrices' ? poses.frameCount : Math.max(1, Math.round(framesPerSecond)) + 1;
}

/**
 * A vertex animation that skins `restPositions` at every keyframe of `bake.poses`.
 * @param restPositions    #V × 3 rest positions (the exported mesh)
 * @param skeleton         #B bones
 * @param weights          #V × #B weights, row-major
 * @param bake             clip name, method, poses, influence count
 * @param framesPerSecond  keyframe rate, the same as the export's
 * @returns a GltfVertexAnimation whose positionsAt(f, out) writes #V × 3 posed positions of keyframe f
 */
export function skinningVertexAnimation(
  restPositions: Float64Array,
  skeleton: Skeleton,
  weights: DenseMatrix,
  bake: SkinningBake,
  framesPerSecond: number,
): GltfVertexAnimation {
  const boneCount = skeleton.parents.length;
  const influences = influencesFromWeights(weights, bake.influences);
  const rotations = identityPose(boneCount);
  const translations = new Float64Array(3 * boneCount);
  const transforms = new Float64Array(12 * boneCount);
  const dualQuaternions = new Float64Array(8 * boneCount);
  const frameCount = bakeFrameCount(bake.poses, framesPerSecond);
  const antipodality = bake.antipodality ?? 'per-vertex';
  return {
    name: bake.name,
    frameCount,
    positionsAt(frame: number, out: Float64Array): void {
      const time = bake.poses.kind === 'matrices' ? frame : frame / (frameCount - 1);
      poseForwardKinematics(skeleton, bake.poses, time, rotations, translations, transforms);
      if (bake.method === 'lbs') {
        linearBlendSkinning(restPositions, influences, transforms, out);
        return;
      }
      dualQuatsFromRigidMatrices(transforms, dualQuaternions);
      if (antipodality === 'per-bone') alignDualQuaternionSigns(skeleton.parents, skeleton.order, dualQuaternions);
      dualQuaternionSkinning(restPositions, influences, dualQuaternions, out, { antipodality });
    },
  };
}
