/**
 * A joint follows the pointer in the view plane through its rest position (with Shift held, to the middle of the
 * volume under the pointer), drawn moved while the scene stays as it was; the release moves it in one undo step
 * (`bone.moveJoint`), Escape or a lost pointer puts it back and changes nothing.
 */
import type { ToolPointer, ToolState } from '../tool.ts';
import type { SkeletonGesture } from './skeleton-gesture.ts';

export class SkeletonDragging implements ToolState {
  readonly name = 'dragging';

  constructor(private readonly tool: () => SkeletonGesture) {}

  onPointerMove(pointer: ToolPointer): void {
    const tool = this.tool();
    const drag = tool.drag!;
    drag.to = tool.dragTarget(pointer);
    tool.showGuides();
  }

  onPointerUp(pointer: ToolPointer): void {
    const tool = this.tool();
    this.onPointerMove(pointer);
    const { joint, from, to } = tool.drag!;
    this.finish();
    if (to.every((v, i) => v === from[i])) return;
    // Moving a joint numbers no bone anew: an open chain goes on from its (moved) last joint.
    const chain = tool.chain;
    tool.tryEdit(() => {
      tool.host.moveJoint(joint, to);
      tool.chain = chain;
      tool.showGuides();
    });
  }

  onCancel(): void {
    this.finish();
  }

  private finish(): void {
    const tool = this.tool();
    tool.drag = null;
    tool.afterClick();
  }
}
