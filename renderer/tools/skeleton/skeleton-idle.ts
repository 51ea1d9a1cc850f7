/** No chain open: a click on the mesh starts one, a press on a joint may branch from it, move it or re-parent. */
import type { ToolPointer, ToolState } from '../tool.ts';
import type { SkeletonGesture } from './skeleton-gesture.ts';

export class SkeletonIdle implements ToolState {
  readonly name = 'idle';

  constructor(private readonly tool: () => SkeletonGesture) {}

  onPointerDown(pointer: ToolPointer): boolean {
    return this.tool().pressAt(pointer);
  }
}
