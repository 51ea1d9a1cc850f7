/**
 * The button went down off the joints and the camera has the press: released near where it went down, it is a click
 * that places a joint on the mesh; a drag was the camera's orbit and places nothing.
 */
import { CLICK_SLOP, type ToolPointer, type ToolState } from '../tool.ts';
import type { SkeletonGesture } from './skeleton-gesture.ts';

export class SkeletonPointing implements ToolState {
  readonly name = 'pointing';

  constructor(private readonly tool: () => SkeletonGesture) {}

  onPointerUp(pointer: ToolPointer): void {
    const tool = this.tool();
    if (Math.hypot(pointer.x - tool.press.x, pointer.y - tool.press.y) <= CLICK_SLOP) tool.clickAt(pointer.x, pointer.y);
    else tool.afterClick();
  }

  /** Nothing changed yet: back to the chain, or to idle. */
  onCancel(): void {
    this.tool().afterClick();
  }
}
