/**
 * An Alt-drag from a joint: released on another joint, the bone that ends at the first joint (or starts there)
 * hangs from the bone that ends at the second (`bone.reparent`, one undo step); released on a root's start joint it
 * becomes a root; released elsewhere, or Escape, changes nothing.
 */
import type { ToolPointer, ToolState } from '../tool.ts';
import type { SkeletonGesture } from './skeleton-gesture.ts';

export class SkeletonReparenting implements ToolState {
  readonly name = 'reparenting';

  constructor(private readonly tool: () => SkeletonGesture) {}

  onPointerMove(pointer: ToolPointer): void {
    const tool = this.tool();
    tool.hover = { x: pointer.x, y: pointer.y };
  }

  onPointerUp(pointer: ToolPointer): void {
    const tool = this.tool();
    const target = tool.host.jointAt(pointer.x, pointer.y);
    const { skeleton } = tool.host.doc();
    const from = tool.press.joint;
    tool.afterClick();
    if (target < 0 || target === from) return;
    const bone = boneAt(skeleton.bones, from, 1) >= 0 ? boneAt(skeleton.bones, from, 1) : boneAt(skeleton.bones, from, 0);
    const parent = boneAt(skeleton.bones, target, 1);
    if (bone < 0) return;
    try {
      tool.host.reparentBone(bone, parent >= 0 ? parent : null);
      tool.host.selectBone(bone);
    } catch (error) {
      tool.host.tell(error instanceof Error ? error.message : String(error));
    }
  }

  onCancel(): void {
    this.tool().afterClick();
  }
}

/** The first bone whose joint `end` (0: start, 1: end) is `joint`, or -1. */
function boneAt(bones: Uint32Array, joint: number, end: 0 | 1): number {
  for (let b = 0; b < bones.length / 2; b++) if (bones[2 * b + end] === joint) return b;
  return -1;
}
