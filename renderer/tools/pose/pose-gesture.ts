/**
 * What the pose tool's states use: the app (its host), and the tool as a gesture sees it. The states import this,
 * not the tool, which imports them.
 */
import type { ToolPointer } from '../tool.ts';
import type { PoseGizmo } from '../../view/pose-gizmo.ts';
import type { Skeleton } from '../../../workers/rig/skeleton.ts';
import type { PosedBones } from '../../../workers/scene/scene-document.ts';
import type { ShownPose } from '../../skeleton/pose-commands.ts';

/** What the pose tool uses of the app. */
export interface PoseToolHost {
  readonly gizmo: PoseGizmo;
  /** the selected bone, or -1 */
  selectedBone(): number;
  /** the rest pose is shown (a view): nothing is posed until it is turned off */
  restShown(): boolean;
  /** selects the bone of the joint drawn under a page point (none when no joint is there) */
  pickBoneAt(clientX: number, clientY: number): void;
  /** the joint drawn under a page point, or -1 */
  jointAt(clientX: number, clientY: number): number;
  /** the view ray through a page point: origin and unit direction, world units (Viewport.rayThrough) */
  rayThrough(clientX: number, clientY: number): { origin: [number, number, number]; direction: [number, number, number] };
  /** the camera's unit viewing direction, world axes */
  viewDirection(): [number, number, number];
  skeleton(): Skeleton;
  /** calls `listener` after every change of the document's skeleton (a bone edit, its undo or redo, another scene) */
  onSkeletonChange(listener: () => void): void;
  /** the pose on screen, brought up to date (its rotations, translations, scales, and #J × 3 posed joints) */
  shown(): ShownPose & { readonly joints: Float64Array };
  /** the pose last evaluated, as it is (refresh runs while a new pose is being applied) */
  evaluated(): ShownPose & { readonly joints: Float64Array };
  /** shows `posed` instead of the document's posed bones while a drag lasts; null: the document's again */
  live(posed: PosedBones | null): void;
  /** the bones posed with `bone` at `rotation` (3×3 relative), over the document's */
  withBone(bone: number, rotation: Float64Array): PosedBones;
  /**
   * the bones posed by two-bone IK from the pose `from`, `bone`'s end joint reaching `target` (null: the bone has no
   * parent)
   */
  reached(bone: number, target: readonly number[], pole: readonly number[] | null, from: ShownPose): PosedBones | null;
  /** one undo step: `bone` at `rotation` (pose.rotate) */
  rotate(bone: number, rotation: Float64Array): void;
  /** one undo step: `bone`'s end joint to `target` by IK (pose.ik) */
  reach(bone: number, target: readonly number[], pole: readonly number[] | null): void;
  redraw(): void;
}

export type PoseStateName = 'pointing' | 'rotating' | 'reaching';

/** The pose tool as its states see it. */
export interface PoseGesture {
  readonly host: PoseToolHost;
  /** where the button went down, page px */
  readonly downAt: { x: number; y: number };
  /** whether dragging the end joint solves IK (the gizmo is hidden then) */
  readonly ik: boolean;
  /** a pole point the bend plane goes through (world), or null: the bend plane the limb has now */
  readonly pole: number[] | null;
  transition(to: PoseStateName | 'idle'): void;
  /** puts the gizmo on the selected bone as posed now */
  refresh(): void;
}

/** A pointer's position in normalized device coordinates of the canvas (x right, y up, both −1 … 1). */
export function ndcOf(pointer: ToolPointer): { x: number; y: number } {
  return { x: (pointer.x / pointer.width) * 2 - 1, y: 1 - (pointer.y / pointer.height) * 2 };
}
