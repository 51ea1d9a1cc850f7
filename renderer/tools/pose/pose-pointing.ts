/** The left button is down off the gizmo: released near where it went down, it is a click that picks a joint's bone. */
import { CLICK_SLOP, type ToolPointer, type ToolState } from '../tool.ts';
import type { PoseGesture } from './pose-gesture.ts';

export class PosePointing implements ToolState {
  readonly name = 'pointing';

  constructor(private readonly tool: () => PoseGesture) {}

  onPointerUp(pointer: ToolPointer): void {
    const tool = this.tool();
    tool.transition('idle');
    if (Math.hypot(pointer.clientX - tool.downAt.x, pointer.clientY - tool.downAt.y) <= CLICK_SLOP)
      tool.host.pickBoneAt(pointer.clientX, pointer.clientY);
  }

  /** A camera drag changes nothing in the scene; there is nothing to restore. */
  onCancel(): void {
    this.tool().transition('idle');
  }
}
