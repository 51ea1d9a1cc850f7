/**
 * The pose tool waiting: a press on a gizmo ring starts turning the bone; in IK mode a press on the selected bone's
 * end joint starts reaching; any other left press is the camera's too (it orbits on a drag) and may be a click that
 * picks a joint's bone. Moving the pointer highlights the ring under it.
 */
import type { ToolPointer, ToolState } from '../tool.ts';
import { ndcOf, type PoseGesture } from './pose-gesture.ts';

export class PoseIdle implements ToolState {
  readonly name = 'idle';

  constructor(private readonly tool: () => PoseGesture) {}

  onPointerDown(pointer: ToolPointer): boolean {
    if (pointer.button !== 0) return false;
    const tool = this.tool();
    const { host } = tool;
    const bone = host.selectedBone();
    if (bone >= 0 && !tool.ik) {
      const { x, y } = ndcOf(pointer);
      if (host.gizmo.press(x, y)) {
        tool.transition('rotating');
        return true;
      }
    }
    if (bone >= 0 && tool.ik && !host.restShown() && host.skeleton().parents[bone] >= 0) {
      const end = host.skeleton().bones[2 * bone + 1];
      if (host.jointAt(pointer.clientX, pointer.clientY) === end) {
        tool.transition('reaching');
        return true;
      }
    }
    tool.downAt.x = pointer.clientX;
    tool.downAt.y = pointer.clientY;
    tool.transition('pointing');
    return false;
  }

  onPointerMove(pointer: ToolPointer): void {
    const { gizmo } = this.tool().host;
    if (!gizmo.visible) return;
    const before = gizmo.axis;
    const { x, y } = ndcOf(pointer);
    gizmo.hover(x, y);
    if (gizmo.axis !== before) this.tool().host.redraw();
  }
}
