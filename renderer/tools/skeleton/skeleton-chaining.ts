/**
 * A chain is open: the pending joint or the chain's last joint is drawn with a rubber-band bone to the pointer; a
 * click on the mesh adds a bone, a click on a joint branches from it, Escape ends the chain. Nothing is being
 * changed, so the tool is not busy: undo and the other commands run.
 */
import type { ToolPointer, ToolState } from '../tool.ts';
import type { SkeletonGesture } from './skeleton-gesture.ts';

export class SkeletonChaining implements ToolState {
  readonly name = 'chaining';

  constructor(private readonly tool: () => SkeletonGesture) {}

  onEnter(): void {
    this.tool().showGuides();
  }

  onPointerDown(pointer: ToolPointer): boolean {
    return this.tool().pressAt(pointer);
  }

  onPointerMove(pointer: ToolPointer): void {
    if (pointer.buttons !== 0) return;
    const tool = this.tool();
    tool.hover = { x: pointer.x, y: pointer.y };
    tool.showGuides();
  }

  /** Escape ends the chain; the bones it made stay (each is its own undo step). */
  onCancel(): void {
    this.tool().endChain();
  }
}
