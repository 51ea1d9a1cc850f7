/**
 * Posing by hand: rotate a bone, reach a point by two-bone IK, reset one bone or the whole pose, show the rest pose,
 * copy the pose shown and paste it mirrored (each bone takes its mirror partner's rotation, reflected). Each
 * edit is one undo step that sets the document's posedBones (the bones posed by hand, shown over the sequence's pose
 * at every time); the rest toggle and the copied pose are views, not edits. Nothing else changes: the camera, the
 * selection, playback and the locks stay.
 *
 * Resetting the whole pose drops every hand-posed bone: without a clip shown that is the rest pose; with a clip shown
 * the bones follow the clip again (resetting one bone, by contrast, poses it at rest over the clip).
 */
import type { HandlersFor } from '../commands/command-handlers.ts';
import { toggled } from '../commands/command-handlers.ts';
import type { PoseView } from '../deform/pose-evaluator.ts';
import { quatToMatrix } from '../../workers/math/quaternion.ts';
import { ROTATION_TOLERANCE, rotationDefect, type PoseSpace } from '../../workers/rig/bone-rotations.ts';
import { mirroredPose } from '../../workers/rig/mirror-bones.ts';
import { identityPose } from '../../workers/rig/pose-sequence.ts';
import type { Skeleton } from '../../workers/rig/skeleton.ts';
import { defaultPole, solveTwoBoneIk } from '../../workers/rig/two-bone-ik.ts';
import { boneNamesOf } from '../../workers/scene/bone-fields.ts';
import { boneCountOf, type PosedBones, type SceneDocument } from '../../workers/scene/scene-document.ts';
import type { SceneStore } from '../../workers/scene/scene-store.ts';
import type { BoneSelection } from './bone-selection.ts';

/** What the pose commands use of the app. */
export interface PoseCommandsHost {
  readonly store: Pick<SceneStore, 'doc' | 'edit' | 'subscribe'>;
  readonly boneSelection: Pick<BoneSelection, 'bone'>;
  /** the rest toggle (and a gesture's live pose, which the commands leave alone) */
  readonly poseView: PoseView;
  /**
   * the pose on screen now, brought up to date: #B × 9 relative rotations, #B × 3 start-joint translations (zero
   * without), #B × 3 bone scales, #J × 3 posed joints
   */
  shown(): ShownPose & { readonly joints: Float64Array };
  /** the pose view changed: evaluate and draw again */
  poseViewChanged(): void;
  /** the pose tool's switch and settings */
  readonly poseTool: PoseToolControl;
}

/** The pose tool as its commands see it. */
export interface PoseToolControl {
  /** whether it is the active tool */
  readonly active: boolean;
  /** makes it the active tool, or goes back to the default tool */
  toggle(): void;
  readonly space: PoseSpace;
  setSpace(space: PoseSpace): void;
  readonly ik: boolean;
  setIk(on: boolean): void;
  /** the pole IK drags use (a world point), or null: the bend plane the limb has */
  readonly pole: readonly number[] | null;
  setPole(pole: readonly number[] | null): void;
  /** the camera's unit viewing direction, world axes */
  viewDirection(): readonly number[];
}

export type PoseCommandId =
  | 'tool.pose'
  | 'pose.space'
  | 'pose.ikMode'
  | 'pose.pole'
  | 'pose.poleFromView'
  | 'pose.rotate'
  | 'pose.reset'
  | 'pose.resetAll'
  | 'pose.rest'
  | 'pose.copy'
  | 'pose.pasteMirrored'
  | 'pose.ik';

/** A pose as the evaluator holds it (pose-evaluator.ts). */
export interface ShownPose {
  readonly rotations: Float64Array;
  readonly translations: Float64Array;
  readonly boneScales: Float64Array;
}

/**
 * The posed bones with `bone` set to `rotation` (a relative rotation, 9 numbers row-major) and flagged; the others as
 * they were. A new value: the document's arrays are not touched.
 */
export function withBonePosed(doc: SceneDocument, bone: number, rotation: ArrayLike<number>): PosedBones {
  const B = boneCountOf(doc);
  const rotations = doc.posedBones ? Float64Array.from(doc.posedBones.rotations) : identityPose(B);
  const bones = doc.posedBones ? Uint8Array.from(doc.posedBones.bones) : new Uint8Array(B);
  for (let k = 0; k < 9; k++) rotations[9 * bone + k] = rotation[k];
  bones[bone] = 1;
  return { rotations, bones };
}

/** Every bone posed at `rotations` (#B × 9), as a pasted pose is. */
export function allBonesPosed(rotations: Float64Array): PosedBones {
  return { rotations: Float64Array.from(rotations), bones: new Uint8Array(rotations.length / 9).fill(1) };
}

/**
 * The posed bones after two-bone IK puts `bone`'s end joint on `target` from the pose shown: the bone and its parent
 * posed at the solution (solveTwoBoneIk), over the document's posed bones.
 * @param pole  a world point the bend plane goes through; null: the plane the limb bends in now (defaultPole)
 * @throws Error naming pose.ik when the bone has no parent
 */
export function reachedPose(
  doc: SceneDocument,
  shown: ShownPose,
  bone: number,
  target: readonly number[],
  pole: readonly number[] | null,
): { posedBones: PosedBones; reached: boolean } {
  const upper = doc.skeleton.parents[bone];
  if (upper < 0) throw new Error(`pose.ik: ${boneNamesOf(doc)[bone]} has no parent bone; two-bone IK turns a bone and its parent`);
  const chain = {
    skeleton: doc.skeleton,
    rotations: shown.rotations,
    upper,
    lower: bone,
    boneScales: shown.boneScales,
    translations: shown.translations,
  };
  const { rotations, reached } = solveTwoBoneIk({
    ...chain,
    target: [target[0], target[1], target[2]],
    pole: pole ? [pole[0], pole[1], pole[2]] : defaultPole(chain),
  });
  const withUpper = withBonePosed(doc, upper, rotations.subarray(9 * upper, 9 * upper + 9));
  withUpper.rotations.set(rotations.subarray(9 * bone, 9 * bone + 9), 9 * bone);
  withUpper.bones[bone] = 1;
  return { posedBones: withUpper, reached };
}

/**
 * A pole in front of a bone's start joint (the knee or elbow of the bone and its parent) toward the viewer: that joint
 * moved against the view direction by the two bones' posed lengths, so two-bone IK bends it toward the camera.
 * @param joints  #J × 3 posed joints, world units
 * @param view    the camera's unit viewing direction
 * @returns a world point, or null when the bone has no parent (IK turns a bone and its parent)
 */
export function poleTowardView(
  skeleton: Skeleton,
  joints: ArrayLike<number>,
  bone: number,
  view: readonly number[],
): [number, number, number] | null {
  const upper = skeleton.parents[bone];
  if (upper < 0) return null;
  const { bones } = skeleton;
  const [a, b, c] = [bones[2 * upper], bones[2 * bone], bones[2 * bone + 1]].map((j) => [
    joints[3 * j],
    joints[3 * j + 1],
    joints[3 * j + 2],
  ]);
  const reach = Math.hypot(b[0] - a[0], b[1] - a[1], b[2] - a[2]) + Math.hypot(c[0] - b[0], c[1] - b[1], c[2] - b[2]);
  return [b[0] - reach * view[0], b[1] - reach * view[1], b[2] - reach * view[2]];
}

/**
 * The relative rotation a pose.rotate argument gives: the 9 numbers (row-major) when they are a rotation, or the
 * quaternion's (x, y, z, w; normalized).
 * @throws Error naming the command, the field and the reason
 */
export function rotationOfArgument(argument: { rotation?: readonly number[]; quaternion?: readonly number[] }): Float64Array {
  const { rotation, quaternion } = argument;
  if ((rotation === undefined) === (quaternion === undefined))
    throw new Error('pose.rotate: give exactly one of rotation (9 numbers, row-major) and quaternion (x, y, z, w)');
  const out = new Float64Array(9);
  if (rotation) {
    out.set(rotation);
    const defect = rotationDefect(out);
    if (!(defect <= ROTATION_TOLERANCE))
      throw new Error(
        `pose.rotate: rotation is not a rotation matrix (M·Mᵀ or det M differs from the identity's by ${defect.toExponential(2)}, more than ${ROTATION_TOLERANCE})`,
      );
    return out;
  }
  const q = [...quaternion!];
  if (!(Math.hypot(q[0], q[1], q[2], q[3]) > 1e-12)) throw new Error('pose.rotate: quaternion is zero, it gives no rotation');
  quatToMatrix(q, 0, out, 0);
  return out;
}

export function poseCommands(app: PoseCommandsHost): HandlersFor<PoseCommandId> {
  const { store, poseView } = app;
  /**
   * the pose last copied (#B × 9 relative rotations) and the skeleton it was copied from (a paste onto any other, even
   * with as many bones, would put rotations on bones they were not made for); a new scene forgets it, and the IK pole
   * (a point near the old scene's limbs)
   */
  let clipboard: { rotations: Float64Array; skeleton: Skeleton } | null = null;
  store.subscribe((change) => {
    if (change.kind !== 'document' || !change.newScene) return;
    clipboard = null;
    app.poseTool.setPole(null);
  });
  const nameOf = (bone: number): string => boneNamesOf(store.doc)[bone];
  /** the bone an argument names, else the selected one */
  const boneOf = (command: string, bone: number | undefined): number => {
    const b = bone ?? app.boneSelection.bone;
    if (b < 0) throw new Error(`${command}: no bone given and none selected`);
    return b;
  };
  // A pose edit shows what it did: the rest toggle goes off (it is a view, not part of the step).
  const pose = (label: string, posedBones: PosedBones | undefined): void => {
    store.edit(label, { posedBones });
    poseView.rest = false;
    app.poseViewChanged();
  };
  const { poseTool } = app;
  return {
    'tool.pose': { run: () => poseTool.toggle(), checked: () => poseTool.active },
    'pose.space': {
      run: (space) => {
        poseTool.setSpace(space ?? (poseTool.space === 'local' ? 'global' : 'local'));
        return poseTool.space;
      },
    },
    'pose.ikMode': { run: () => toggled(!poseTool.ik, (on) => poseTool.setIk(on)), checked: () => poseTool.ik },
    'pose.pole': { run: (pole) => poseTool.setPole(pole ?? null) },
    'pose.poleFromView': {
      run: () => {
        const bone = boneOf('pose.poleFromView', undefined);
        const pole = poleTowardView(store.doc.skeleton, app.shown().joints, bone, poseTool.viewDirection());
        if (!pole) throw new Error(`pose.poleFromView: ${nameOf(bone)} has no parent bone; two-bone IK turns a bone and its parent`);
        poseTool.setPole(pole);
      },
      canRun: () => app.boneSelection.bone >= 0 && !poseView.rest && store.doc.skeleton.parents[app.boneSelection.bone] >= 0,
      refusal: () =>
        poseView.rest
          ? 'the rest pose is shown: the pole goes by the pose, turn Rest off first'
          : app.boneSelection.bone < 0
            ? 'no bone is selected'
            : `${nameOf(app.boneSelection.bone)} has no parent bone; two-bone IK turns a bone and its parent`,
    },
    'pose.rotate': {
      run: (argument) => {
        const rotation = rotationOfArgument(argument);
        pose(`Pose ${nameOf(argument.bone)}`, withBonePosed(store.doc, argument.bone, rotation));
      },
    },
    'pose.reset': {
      run: (bone) => {
        const b = boneOf('pose.reset', bone);
        pose(`Reset ${nameOf(b)} to rest`, withBonePosed(store.doc, b, identityPose(1)));
      },
    },
    'pose.resetAll': {
      run: () => pose('Reset the pose', undefined),
      canRun: () => store.doc.posedBones !== undefined,
      refusal: 'no bone is posed by hand',
    },
    'pose.rest': {
      run: () =>
        toggled(!poseView.rest, (on) => {
          poseView.rest = on;
          app.poseViewChanged();
        }),
      checked: () => poseView.rest,
    },
    'pose.copy': {
      run: () => {
        clipboard = { rotations: Float64Array.from(app.shown().rotations), skeleton: store.doc.skeleton };
      },
    },
    'pose.pasteMirrored': {
      run: (axis) => pose('Paste the pose mirrored', allBonesPosed(mirroredPose(store.doc, clipboard!.rotations, axis))),
      canRun: () => clipboard !== null && clipboard.skeleton === store.doc.skeleton,
      refusal: () =>
        clipboard
          ? 'the pose was copied from another skeleton (its bones have been edited since): copy the pose again'
          : 'no pose has been copied',
    },
    'pose.ik': {
      run: ({ bone, target, pole }) => {
        if (poseView.rest) {
          poseView.rest = false;
          app.poseViewChanged();
        }
        const { posedBones, reached } = reachedPose(store.doc, app.shown(), bone, target, pole ?? null);
        pose(`Reach with ${nameOf(bone)}`, posedBones);
        return reached;
      },
    },
  };
}
