import type { ToolPointer, ToolState } from '../tool.ts';
import type { BrushTool } from './brush-tool.ts';

/** A stroke: a dab every `spacing` × radius along the drag; release makes it one undo step, Escape takes it back. */
export class BrushPainting implements ToolState {
  readonly name = 'painting';

  constructor(private readonly tool: () => BrushTool) {}

  onPointerMove(pointer: ToolPointer): void {
    const tool = this.tool();
    tool.track(pointer);
    if (pointer.pointerType === 'pen' && pointer.pressure > 0) tool.pressure = pointer.pressure;
    const bone = tool.host.selectedBone();
    const brush = tool.brush;
    const step = Math.max(1, brush.spacing * brush.radius);
    const last = tool.last;
    let length = Math.hypot(pointer.x - last.x, pointer.y - last.y);
    while (length >= step) {
      const t = step / length;
      last.x += t * (pointer.x - last.x);
      last.y += t * (pointer.y - last.y);
      tool.dabAt(last.x, last.y, bone);
      length -= step;
    }
    tool.updateRing(pointer.x, pointer.y);
  }

  onPointerUp(): void {
    const tool = this.tool();
    tool.transition('idle');
    tool.host.controller.endStroke();
  }

  onCancel(): void {
    const tool = this.tool();
    tool.host.controller.cancelStroke();
    tool.transition('idle');
  }
}
