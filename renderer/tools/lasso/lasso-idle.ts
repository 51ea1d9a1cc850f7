import type { ToolPointer, ToolState } from '../tool.ts';
import type { LassoTool } from './lasso-tool.ts';

/** Armed: a left press starts a polygon, combined as the modifiers held now say. */
export class LassoIdle implements ToolState {
  readonly name = 'idle';

  constructor(private readonly tool: () => LassoTool) {}

  onPointerDown(pointer: ToolPointer): boolean {
    if (pointer.button !== 0) return false;
    const tool = this.tool();
    tool.combine = pointer.ctrlKey || pointer.metaKey ? 'remove' : pointer.shiftKey ? 'add' : 'replace';
    tool.points = [pointer.x, pointer.y];
    tool.transition('drawing');
    return true;
  }
}
