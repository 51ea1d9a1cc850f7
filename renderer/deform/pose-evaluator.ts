/**
 * Turns a time on the timeline into the skeleton's current pose: relative rotations → forward kinematics →
 * rest-to-posed bone transforms and posed joint positions. All buffers are allocated once per document, so
 * evaluating every frame allocates nothing.
 */
import { posedJointPositions } from '../../workers/rig/forward-kinematics.ts';
import { scaledForwardKinematics } from '../../workers/rig/scaled-forward-kinematics.ts';
import { identityPose, poseDuration, samplePose, samplePoseTranslations } from '../../workers/rig/pose-sequence.ts';
import type { PosedBones, SceneDocument } from '../../workers/scene/scene-document.ts';

export type PoseKind = 'matrices' | 'quaternions' | 'rest';

/**
 * What the viewport shows over the document's pose, outside the undo history: the rest pose (a view toggle), and the
 * bones a gesture is posing before it becomes an edit (the gizmo or IK while dragging). One per app, shared by every
 * evaluator the app makes.
 */
export interface PoseView {
  /** show the rest pose: every bone unrotated, whatever the sequence and the posed bones say */
  rest: boolean;
  /** while a gesture poses bones: shown instead of the document's posedBones; null otherwise */
  live: PosedBones | null;
}

export class PoseEvaluator {
  /** #B × 9 row-major relative rotations at the last evaluated time */
  readonly rotations: Float64Array;
  /** #B × 3 start-joint translations at the last evaluated time (all zero unless the sequence has them) */
  readonly translations: Float64Array;
  /** #B × 12 row-major 3×4 rest → posed transforms at the last evaluated time, bone scales included */
  readonly transforms: Float64Array;
  /** #B × 3 local scale of each bone about its start joint (scaledForwardKinematics); all 1 by default */
  readonly boneScales: Float64Array;
  /** #J × 3 posed joint positions at the last evaluated time */
  readonly joints: Float64Array;
  readonly kind: PoseKind;
  /** #B × 9 identity rotations: the rest pose, copied in where no sequence or the rest toggle says so */
  private readonly restRotations: Float64Array;

  /** Whether any bone is scaled (a non-rigid joint). */
  get scaled(): boolean {
    return this.boneScales.some((s) => s !== 1);
  }
  /** frames (matrices), SLERP parameter (quaternions) or 0 (rest) */
  readonly duration: number;
  /** seconds of every frame, for a clip with key times (the timeline plays them); null otherwise */
  readonly times: Float64Array | null;

  /** @param view  the rest toggle and the gesture's live pose (a fresh one shows the document as it is) */
  constructor(
    private readonly doc: SceneDocument,
    readonly view: PoseView = { rest: false, live: null },
  ) {
    const boneCount = doc.skeleton.parents.length;
    this.restRotations = identityPose(boneCount);
    this.rotations = identityPose(boneCount);
    this.translations = new Float64Array(3 * boneCount);
    this.transforms = new Float64Array(12 * boneCount);
    this.boneScales = new Float64Array(3 * boneCount).fill(1);
    this.joints = new Float64Array(doc.skeleton.joints.length);
    this.kind = doc.poses ? doc.poses.kind : 'rest';
    this.duration = doc.poses ? poseDuration(doc.poses) : 0;
    this.times = doc.poses?.kind === 'matrices' ? (doc.poses.times ?? null) : null;
  }

  /**
   * @param time  frame number (matrices; between two frames of a clip with curves, the file's interpolation at the
   *              seconds between their key times) or t ∈ [0, 1] (quaternions); clamped by samplePose; ignored at rest.
   *              Bones posed by hand (the document's posedBones, or the view's live ones) show their own rotation at
   *              every time; the view's rest toggle shows every bone unrotated.
   */
  evaluate(time: number): void {
    let moved = false;
    // Without a sequence every bone starts at rest each time: a gesture's live bones must not stay once it ends.
    if (this.view.rest || !this.doc.poses) {
      this.rotations.set(this.restRotations);
    } else {
      samplePose(this.doc.poses, time, this.rotations);
      moved = samplePoseTranslations(this.doc.poses, time, this.translations);
    }
    const posed = this.view.rest ? null : (this.view.live ?? this.doc.posedBones);
    if (posed) {
      for (let b = 0; b < posed.bones.length; b++) {
        if (posed.bones[b]) this.rotations.set(posed.rotations.subarray(9 * b, 9 * b + 9), 9 * b);
      }
    }
    scaledForwardKinematics(this.doc.skeleton, this.rotations, this.boneScales, this.transforms, moved ? this.translations : null);
    posedJointPositions(this.doc.skeleton, this.transforms, this.joints);
  }
}
