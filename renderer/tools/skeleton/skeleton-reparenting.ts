/**
 * An Alt-drag from a joint: a band runs from the dragged joint to the pointer (to the joint under it, when there is
 * one); released on another joint, the bone that ends at the first joint (or starts there) hangs from the bone that
 * ends at the second (`bone.reparent`, one undo step); released on a root's start joint it becomes a root; released
 * elsewhere, or Escape, changes nothing.
 */
import { boneForJoint } from '../../view/skeleton-overlay.ts';
import type { ToolPointer, ToolState } from '../tool.ts';
import type { SkeletonGesture } from './skeleton-gesture.ts';

export class SkeletonReparenting implements ToolState {
  readonly name = 'reparenting';

  constructor(private readonly tool: () => SkeletonGesture) {}

  onPointerMove(pointer: ToolPointer): void {
    const tool = this.tool();
    tool.hover = { x: pointer.x, y: pointer.y };
    tool.showGuides();
  }

  onPointerUp(pointer: ToolPointer): void {
    const tool = this.tool();
    const target = tool.host.jointAt(pointer.x, pointer.y);
    const { bones } = tool.host.doc().skeleton;
    const from = tool.press.joint;
    this.finish();
    if (target < 0 || target === from) return;
    const bone = boneForJoint(bones, from);
    // The new parent is the bone ending at the target; a joint only bones start at (a root's start) has none.
    const parent = boneForJoint(bones, target);
    if (bone < 0) return;
    tool.tryEdit(() => {
      tool.host.reparentBone(bone, parent >= 0 && bones[2 * parent + 1] === target ? parent : null);
      tool.host.selectBone(bone);
    });
  }

  onCancel(): void {
    this.finish();
  }

  /** The band goes: the pointer's place is not a chain's rubber band. */
  private finish(): void {
    const tool = this.tool();
    tool.hover = null;
    tool.afterClick();
  }
}
