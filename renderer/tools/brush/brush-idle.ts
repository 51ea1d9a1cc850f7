import type { ToolPointer, ToolState } from '../tool.ts';
import type { BrushTool } from './brush-tool.ts';

/** Hovering: the ring follows the surface. A left press starts pointing; in sample mode it picks up the weight under it. */
export class BrushIdle implements ToolState {
  readonly name = 'idle';

  constructor(private readonly tool: () => BrushTool) {}

  onPointerDown(pointer: ToolPointer): boolean {
    if (pointer.button !== 0) return false;
    const tool = this.tool();
    tool.track(pointer);
    tool.pressure = pointer.pointerType === 'pen' && pointer.pressure > 0 ? pointer.pressure : 1;
    tool.downAt.x = pointer.x;
    tool.downAt.y = pointer.y;
    const brush = tool.brush;
    const bone = tool.host.selectedBone();
    if (brush.mode === 'sample') {
      if (bone < 0) return true;
      tool.updateSurface();
      const value = tool.dabAt(pointer.x, pointer.y, bone);
      if (!Number.isNaN(value)) brush.value = Math.round(value * 1000) / 1000;
      brush.mode = 'set';
      tool.host.controller.changed();
      return true;
    }
    tool.transition('pointing');
    return true;
  }

  onPointerMove(pointer: ToolPointer): void {
    const tool = this.tool();
    tool.track(pointer);
    if (pointer.buttons === 0) tool.hover(pointer);
  }
}
