/**
 * Skinning baked into vertex animation for glTF (gltf-vertex-animation.ts): a pose sequence played through a skinning
 * method on the CPU, one posed mesh per keyframe. glTF skins blend linearly only (glTF 2.0 §3.7.3), so this is how a
 * dual quaternion deformation (Kavan et al. 2008), per-face skinning and per-face context deformation (Weber et al.
 * 2007 Eq. 9–10) reach other programs exactly as they were previewed. The per-face methods are set up as the viewport
 * sets them up (renderer/deform/deformation-controller.ts): one factor for the clip, fixed vertices from the scene's
 * handles (perFaceFixedVertices), the examples unposed per face once on that factor, and per frame their RBF
 * pose-space weights a_j(P) (Eq. 8) at the frame's relative rotations.
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
import { forwardKinematics } from '../rig/forward-kinematics.ts';
import {
  perFaceFixedVertices,
  perFaceSkinning,
  perFaceSkinningSetup,
  perFaceSkinningWorkspace,
  type PerFaceSkinningSetup,
} from '../skinning/per-face-skinning.ts';
import {
  perFaceContextSkinning,
  perFaceContextWorkspace,
  perFaceExamples,
  perFaceUnposeExamples,
  type PerFaceBlend,
} from '../posespace/per-face-context.ts';
import { poseSpaceInterpolator, poseSpaceWeights, PoseSpaceError, type PoseSpaceInterpolator } from '../posespace/pose-space-weights.ts';
import { FormatError } from './format-error.ts';
import type { GltfExamples } from './gltf-export.ts';

/**
 * Skinning methods that bake: LBS and DQS in closed form per frame; per-face skinning and per-face context
 * deformation (Eq. 9 or Eq. 10) as one Poisson solve per frame on a factor computed once.
 */
export type BakeableSkinMethod = 'lbs' | 'dqs' | 'perface' | 'context-perface-eq9' | 'context-perface-eq10';

export const BAKEABLE_SKIN_METHODS: readonly BakeableSkinMethod[] = [
  'lbs',
  'dqs',
  'perface',
  'context-perface-eq9',
  'context-perface-eq10',
];

/** What the per-face methods need beyond the vertices and weights. */
export interface PerFaceBakeInput {
  /** #F × 3 the exported mesh's triangles */
  triangles: Uint32Array;
  /** #V handle bone per vertex or -1 (the scene's handles), or null: the stitching's fixed vertices (perFaceFixedVertices) */
  handles: Int32Array | null;
  /** the context methods' examples (their positions, poses and RBF kernel), or null: plain per-face skinning */
  examples: GltfExamples | null;
}

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

/** The per-face blend of a context per-face method, or null. */
function perFaceBlendOf(method: BakeableSkinMethod): PerFaceBlend | null {
  return method === 'context-perface-eq9' ? 'eq9' : method === 'context-perface-eq10' ? 'eq10' : null;
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
 * @param perFace          triangles, handles and examples: required by 'perface' and the context per-face methods
 * @returns a GltfVertexAnimation whose positionsAt(f, out) writes #V × 3 posed positions of keyframe f
 * @throws FormatError naming the clip when a per-face method lacks the triangles, has no fixed vertex, or its
 *         examples' pose-space weights cannot be solved (naming the examples)
 */
export function skinningVertexAnimation(
  restPositions: Float64Array,
  skeleton: Skeleton,
  weights: DenseMatrix,
  bake: SkinningBake,
  framesPerSecond: number,
  perFace: PerFaceBakeInput | null = null,
): GltfVertexAnimation {
  if (bake.method !== 'lbs' && bake.method !== 'dqs')
    return perFaceVertexAnimation(restPositions, skeleton, weights, bake, framesPerSecond, perFace);
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
    ...keyTimesOf(bake.poses),
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

/** The per-face methods' bake: the viewport's setup once, then a stitch per keyframe (perFaceSkinning, perFaceContextSkinning). */
function perFaceVertexAnimation(
  restPositions: Float64Array,
  skeleton: Skeleton,
  weights: DenseMatrix,
  bake: SkinningBake,
  framesPerSecond: number,
  perFace: PerFaceBakeInput | null,
): GltfVertexAnimation {
  const place = `clip "${bake.name}"`;
  if (!perFace) throw new FormatError(place, '', `${bake.method} skinning bakes only with the mesh's triangles`);
  const boneCount = skeleton.parents.length;
  const influences = influencesFromWeights(weights, bake.influences);
  let setup: PerFaceSkinningSetup;
  try {
    const fixedBones = perFaceFixedVertices(skeleton.parents, influences, perFace.handles);
    setup = perFaceSkinningSetup(restPositions, perFace.triangles, influences, boneCount, fixedBones);
  } catch (error) {
    throw new FormatError(place, '', `per-face skinning: ${error instanceof Error ? error.message : String(error)}`);
  }
  const blend = perFaceBlendOf(bake.method);
  const examples = blend && perFace.examples && perFace.examples.names.length > 0 ? perFace.examples : null;
  const rotations = identityPose(boneCount);
  const translations = new Float64Array(3 * boneCount);
  const transforms = new Float64Array(12 * boneCount);
  const frameCount = bakeFrameCount(bake.poses, framesPerSecond);
  const timeOf = (frame: number): number => (bake.poses.kind === 'matrices' ? frame : frame / (frameCount - 1));
  if (!blend || !examples) {
    const workspace = perFaceSkinningWorkspace(setup);
    return {
      name: bake.name,
      frameCount,
      ...keyTimesOf(bake.poses),
      positionsAt(frame: number, out: Float64Array): void {
        poseForwardKinematics(skeleton, bake.poses, timeOf(frame), rotations, translations, transforms);
        perFaceSkinning(setup, transforms, out, workspace);
      },
    };
  }
  const J = examples.names.length;
  const poses = new Float64Array(J * 9 * boneCount);
  examples.poses.forEach((pose, j) => poses.set(pose, j * 9 * boneCount));
  let interpolator: PoseSpaceInterpolator;
  try {
    interpolator = poseSpaceInterpolator(poses, boneCount, examples.names, { kernel: examples.kernel });
  } catch (error) {
    if (!(error instanceof PoseSpaceError)) throw error;
    throw new FormatError(place, error.examples.join(', '), `per-face context: ${error.message}`);
  }
  // Per-face unposing of each example on the clip's factor, from the bone transforms of its own pose (as the viewport).
  const inputs = examples.positions.map((positions, j) => {
    const exampleTransforms = new Float64Array(12 * boneCount);
    forwardKinematics(skeleton, examples.poses[j], exampleTransforms);
    return { positions, transforms: exampleTransforms };
  });
  const unposed = perFaceUnposeExamples(setup, inputs).map((r) => r.unposed);
  const faceExamples = perFaceExamples(setup, unposed);
  const workspace = perFaceContextWorkspace(setup, faceExamples);
  const exampleWeights = new Float64Array(J);
  return {
    name: bake.name,
    frameCount,
    ...keyTimesOf(bake.poses),
    positionsAt(frame: number, out: Float64Array): void {
      poseForwardKinematics(skeleton, bake.poses, timeOf(frame), rotations, translations, transforms);
      poseSpaceWeights(interpolator, rotations, exampleWeights);
      perFaceContextSkinning(setup, faceExamples, exampleWeights, blend, transforms, out, workspace);
    },
  };
}

/** `{ times }` for a clip with key times (its frames play there), else nothing. */
function keyTimesOf(poses: PoseSequence): { times?: Float64Array } {
  return poses.kind === 'matrices' && poses.times ? { times: poses.times } : {};
}
