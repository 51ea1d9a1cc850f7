/**
 * The button went down on a joint (the tool has the press): released there, it is a click that makes the joint the
 * chain's last one; moved past a few pixels, it drags the joint, or with Alt re-parents its bone.
 */
import { CLICK_SLOP, type ToolPointer, type ToolState } from '../tool.ts';
import { jointPosition, type SkeletonGesture } from './skeleton-gesture.ts';

export class SkeletonPressing implements ToolState {
  readonly name = 'pressing';

  constructor(private readonly tool: () => SkeletonGesture) {}

  onPointerMove(pointer: ToolPointer): void {
    const tool = this.tool();
    if (Math.hypot(pointer.x - tool.press.x, pointer.y - tool.press.y) <= CLICK_SLOP) return;
    if (tool.press.alt) {
      tool.transition('reparenting');
      tool.current.onPointerMove?.(pointer);
      return;
    }
    const from = jointPosition(tool.host.doc().skeleton.joints, tool.press.joint);
    tool.drag = { joint: tool.press.joint, from, to: from };
    tool.transition('dragging');
    tool.current.onPointerMove?.(pointer);
  }

  onPointerUp(): void {
    const tool = this.tool();
    tool.branchFrom(tool.press.joint);
  }

  onCancel(): void {
    this.tool().afterClick();
  }
}
