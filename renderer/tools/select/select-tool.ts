/**
 * The default tool: the camera controls orbit, pan and zoom, and a click (a press and release that barely move)
 * on a joint selects its bone, elsewhere clears the selection. idle → pointing (button down) → idle on release:
 * a click picks, a drag was the camera's.
 */
import { CLICK_SLOP, Tool, type ToolPointer, type ToolState } from '../tool.ts';

export interface SelectHost {
  /** selects the bone of the joint drawn under the page point, or none */
  pickBoneAt(clientX: number, clientY: number): void;
}

export class SelectTool extends Tool<'pointing'> {
  /** where the button went down, page px */
  readonly downAt = { x: 0, y: 0 };

  constructor(readonly host: SelectHost) {
    super('select', {
      idle: new SelectIdle(() => this),
      pointing: new SelectPointing(() => this),
    });
  }
}

/** Waiting: a left press starts pointing; the camera controls still get the press (they orbit on a drag). */
class SelectIdle implements ToolState {
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

/** What the pointing state needs of its tool (the select tool's, and the pose tool's off its gizmo). */
export interface PointingTool {
  readonly host: SelectHost;
  /** where the button went down, page px */
  readonly downAt: { x: number; y: number };
  transition(to: 'idle'): void;
}

/** The left button is down: released near where it went down, it is a click that picks a joint's bone. */
export class SelectPointing implements ToolState {
  readonly name = 'pointing';

  constructor(private readonly tool: () => PointingTool) {}

  onPointerUp(pointer: ToolPointer): void {
    const tool = this.tool();
    tool.transition('idle');
    if (Math.hypot(pointer.clientX - tool.downAt.x, pointer.clientY - tool.downAt.y) <= CLICK_SLOP)
      tool.host.pickBoneAt(pointer.clientX, pointer.clientY);
  }

  /** A camera drag changes nothing in the scene; there is nothing to restore. */
  onCancel(): void {
    this.tool().transition('idle');
  }
}
