import { CLICK_SLOP, type ToolPointer, type ToolState } from '../tool.ts';
import type { BrushTool } from './brush-tool.ts';

/**
 * The button is down and has not moved far: a release here is a click (on a joint it picks the joint's bone,
 * elsewhere it lays one dab); moving past a few pixels opens the stroke.
 */
export class BrushPointing implements ToolState {
  readonly name = 'pointing';

  constructor(private readonly tool: () => BrushTool) {}

  onPointerMove(pointer: ToolPointer): void {
    const tool = this.tool();
    tool.track(pointer);
    if (Math.hypot(pointer.x - tool.downAt.x, pointer.y - tool.downAt.y) < CLICK_SLOP) return;
    const bone = tool.host.selectedBone();
    if (bone < 0) return;
    tool.openStroke(bone);
    tool.transition('painting');
    tool.current.onPointerMove?.(pointer);
  }

  onPointerUp(pointer: ToolPointer): void {
    const tool = this.tool();
    tool.transition('idle');
    const joint = tool.host.jointBoneAt(pointer.clientX, pointer.clientY);
    if (joint >= 0) {
      tool.host.selectBone(joint);
      return;
    }
    const bone = tool.host.selectedBone();
    if (bone < 0) return;
    tool.openStroke(bone);
    tool.host.controller.endStroke();
  }

  /** Nothing was painted yet. */
  onCancel(): void {
    this.tool().transition('idle');
  }
}
