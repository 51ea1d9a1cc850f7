import type { ToolPointer, ToolState } from '../tool.ts';
import type { BrushTool } from './brush-tool.ts';

/** Smallest and largest brush radius, CSS px. */
const RADIUS_RANGE = [2, 400] as const;

/**
 * Resizing the brush (Blender's radial control): the cursor sits on the rim of the ring, whose centre stays put;
 * moving sets the radius, a left click or Enter confirms, another button or Escape puts the old radius back.
 */
export class BrushResizing implements ToolState {
  readonly name = 'resizing';
  private readonly centre = { x: 0, y: 0 };
  private from = 0;

  constructor(private readonly tool: () => BrushTool) {}

  onEnter(): void {
    const tool = this.tool();
    this.from = tool.brush.radius;
    this.centre.x = tool.cursor.x - tool.brush.radius;
    this.centre.y = tool.cursor.y;
    tool.host.controller.changed();
  }

  onExit(): void {
    this.tool().host.controller.changed();
  }

  onPointerMove(pointer: ToolPointer): void {
    const tool = this.tool();
    tool.track(pointer);
    tool.brush.radius = Math.max(
      RADIUS_RANGE[0],
      Math.min(RADIUS_RANGE[1], Math.hypot(pointer.x - this.centre.x, pointer.y - this.centre.y)),
    );
    tool.updateRing(this.centre.x, this.centre.y);
    tool.host.controller.changed();
  }

  onPointerDown(pointer: ToolPointer): boolean {
    if (pointer.button !== 0) this.tool().brush.radius = this.from;
    this.tool().transition('idle');
    return true;
  }

  onConfirm(): void {
    this.tool().transition('idle');
  }

  onCancel(): void {
    const tool = this.tool();
    tool.brush.radius = this.from;
    tool.transition('idle');
  }
}
