import type { ToolPointer, ToolState } from '../tool.ts';
import type { LassoTool } from './lasso-tool.ts';

/** Points closer than this (CSS px) to the previous one are not recorded. */
const MIN_SEGMENT = 2;

/** The polygon follows the pointer; release hands it over, Escape drops it. Nothing in the scene changes before release. */
export class LassoDrawing implements ToolState {
  readonly name = 'drawing';

  constructor(private readonly tool: () => LassoTool) {}

  onEnter(): void {
    this.tool().drawOutline();
  }

  onPointerMove(pointer: ToolPointer): void {
    const tool = this.tool();
    const n = tool.points.length;
    if (Math.hypot(pointer.x - tool.points[n - 2], pointer.y - tool.points[n - 1]) < MIN_SEGMENT) return;
    tool.points.push(pointer.x, pointer.y);
    tool.drawOutline();
  }

  onPointerUp(): void {
    const tool = this.tool();
    const polygon = tool.points;
    const combine = tool.combine;
    this.onCancel();
    if (polygon.length >= 6) tool.host.lassoed(polygon, combine);
  }

  onCancel(): void {
    const tool = this.tool();
    tool.points = [];
    tool.drawOutline();
    tool.transition('idle');
  }
}
