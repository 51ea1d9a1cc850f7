/**
 * A gizmo ring is being dragged: the bone turns live (shown over the document, not yet an edit); the release makes the
 * turn one undo step (pose.rotate); Escape puts the bone and the gizmo back.
 */
import type { ToolPointer, ToolState } from '../tool.ts';
import {
  boneRestFrame,
  multiplyByTransposed3,
  multiplyTransposed3,
  orthonormalize3,
  parentWorldRotation,
} from '../../../workers/rig/bone-rotations.ts';
import { ndcOf, type PoseGesture } from './pose-gesture.ts';

export class PoseRotating implements ToolState {
  readonly name = 'rotating';
  private bone = -1;
  /** the parent's world rotation and the bone's rest frame, fixed for the drag */
  private readonly parentWorld = new Float64Array(9);
  private readonly restFrame = new Float64Array(9);
  private readonly frame = new Float64Array(9);
  private readonly world = new Float64Array(9);
  /** the bone's relative rotation the drag has reached, or null before the first move */
  private rotation: Float64Array | null = null;

  constructor(private readonly tool: () => PoseGesture) {}

  onEnter(): void {
    const { host } = this.tool();
    this.bone = host.selectedBone();
    this.rotation = null;
    parentWorldRotation(host.skeleton(), host.shown().rotations, this.bone, this.parentWorld);
    boneRestFrame(host.skeleton(), this.bone, this.restFrame);
  }

  onPointerMove(pointer: ToolPointer): void {
    const { host } = this.tool();
    const { x, y } = ndcOf(pointer);
    host.gizmo.drag(x, y, this.frame);
    // The gizmo's frame is Q_b · F: Q_b = frame · Fᵀ, and R_b = Q_parentᵀ · Q_b.
    multiplyByTransposed3(this.frame, 0, this.restFrame, 0, this.world, 0);
    this.rotation ??= new Float64Array(9);
    multiplyTransposed3(this.parentWorld, 0, this.world, 0, this.rotation, 0);
    orthonormalize3(this.rotation);
    host.live(host.withBone(this.bone, this.rotation));
  }

  onPointerUp(pointer: ToolPointer): void {
    const tool = this.tool();
    const { x, y } = ndcOf(pointer);
    tool.host.gizmo.release(x, y);
    tool.host.live(null);
    const rotation = this.rotation;
    tool.transition('idle');
    if (rotation) tool.host.rotate(this.bone, rotation);
    tool.refresh();
  }

  onCancel(): void {
    const tool = this.tool();
    tool.host.gizmo.cancel();
    tool.host.live(null);
    tool.transition('idle');
    tool.refresh();
  }
}
