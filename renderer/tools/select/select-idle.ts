import type { ToolPointer, ToolState } from '../tool.ts';
import type { SelectTool } from './select-tool.ts';

/** Waiting: a left press starts pointing; the camera controls still get the press (they orbit on a drag). */
export class SelectIdle implements ToolState {
  readonly name = 'idle';

  constructor(private readonly tool: () => SelectTool) {}

  onPointerDown(pointer: ToolPointer): boolean {
    if (pointer.button !== 0) return false;
    const tool = this.tool();
    tool.downAt.x = pointer.clientX;
    tool.downAt.y = pointer.clientY;
    tool.transition('pointing');
    return false;
  }
}
