/**
 * The default tool: the camera controls orbit, pan and zoom, and a click (a press and release that barely move)
 * on a joint selects its bone, elsewhere clears the selection. idle → pointing (button down) → idle on release:
 * a click picks, a drag was the camera's.
 */
import { Tool } from '../tool.ts';
import { SelectIdle } from './select-idle.ts';
import { SelectPointing } from './select-pointing.ts';

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
