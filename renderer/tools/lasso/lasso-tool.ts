/**
 * The lasso: idle (armed: a left drag draws; the right button still pans and the wheel still zooms) → drawing
 * (the outline follows the pointer) → idle on release, when the closed polygon goes to the host. Escape while
 * drawing drops the polygon and changes nothing. The modifier held at the press decides the combination: Shift
 * adds, Ctrl/Cmd removes, none replaces. A click (released within CLICK_SLOP of the press) picks the vertex under the
 * pointer instead: Shift adds it, Ctrl/Cmd toggles it, none selects it alone.
 */
import type { LassoCombine } from '../../bind/binding-controller.ts';
import { CLICK_SLOP, Tool, type ToolPointer, type ToolState } from '../tool.ts';

/** How a click combines the vertex under the pointer with the selection. */
export type ClickCombine = 'replace' | 'add' | 'toggle';

export interface LassoHost {
  /** the closed polygon (x0 y0 x1 y1 …, canvas CSS px) with its combination */
  lassoed(polygon: number[], combine: LassoCombine): void;
  /** a click at a page point (client CSS px): the vertex under it, combined with the selection */
  clicked(clientX: number, clientY: number, combine: ClickCombine): void;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

export class LassoTool extends Tool<'drawing'> {
  /** the polygon being drawn, canvas CSS px */
  points: number[] = [];
  combine: LassoCombine = 'replace';
  /** how a click (no drag) combines the vertex under the pointer */
  clickCombine: ClickCombine = 'replace';
  /** where the button went down, page px */
  readonly downAt = { x: 0, y: 0 };
  private readonly svg: SVGSVGElement;
  private readonly outline: SVGPolygonElement;

  /**
   * @param container  the viewport element holding the canvas; the outline is drawn over it
   * @param canvas     the WebGL canvas (polygon coordinates are relative to its top-left corner)
   */
  constructor(
    readonly host: LassoHost,
    container: HTMLElement,
    private readonly canvas: HTMLCanvasElement,
  ) {
    super('lasso', {
      idle: new LassoIdle(() => this),
      drawing: new LassoDrawing(() => this),
    });
    this.svg = document.createElementNS(SVG_NS, 'svg');
    this.svg.classList.add('lasso-overlay');
    this.outline = document.createElementNS(SVG_NS, 'polygon');
    this.svg.append(this.outline);
    this.svg.style.display = 'none';
    container.append(this.svg);
  }

  override activate(): void {
    this.canvas.classList.add('lasso-armed');
  }

  override deactivate(): void {
    this.canvas.classList.remove('lasso-armed');
  }

  /** Shows the outline of `points` (or hides it when there are none). */
  drawOutline(): void {
    if (this.points.length === 0) {
      this.svg.style.display = 'none';
      return;
    }
    const rect = this.canvas.getBoundingClientRect();
    const parent = this.svg.parentElement!.getBoundingClientRect();
    const dx = rect.left - parent.left;
    const dy = rect.top - parent.top;
    let text = '';
    for (let i = 0; i < this.points.length; i += 2) text += `${this.points[i] + dx},${this.points[i + 1] + dy} `;
    this.outline.setAttribute('points', text);
    this.svg.dataset.combine = this.combine;
    this.svg.style.display = '';
  }
}

/** Armed: a left press starts a polygon, combined as the modifiers held now say. */
class LassoIdle implements ToolState {
  readonly name = 'idle';

  constructor(private readonly tool: () => LassoTool) {}

  onPointerDown(pointer: ToolPointer): boolean {
    if (pointer.button !== 0) return false;
    const tool = this.tool();
    tool.combine = pointer.ctrlKey || pointer.metaKey ? 'remove' : pointer.shiftKey ? 'add' : 'replace';
    tool.clickCombine = pointer.ctrlKey || pointer.metaKey ? 'toggle' : pointer.shiftKey ? 'add' : 'replace';
    tool.downAt.x = pointer.clientX;
    tool.downAt.y = pointer.clientY;
    tool.points = [pointer.x, pointer.y];
    tool.transition('drawing');
    return true;
  }
}

/** Points closer than this (CSS px) to the previous one are not recorded. */
const MIN_SEGMENT = 2;

/** The polygon follows the pointer; release hands it over, Escape drops it. Nothing in the scene changes before release. */
class LassoDrawing implements ToolState {
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

  onPointerUp(pointer: ToolPointer): void {
    const tool = this.tool();
    const polygon = tool.points;
    const combine = tool.combine;
    this.onCancel();
    let extent = 0;
    for (let i = 0; i < polygon.length; i += 2) extent = Math.max(extent, Math.hypot(polygon[i] - polygon[0], polygon[i + 1] - polygon[1]));
    const { x, y } = tool.downAt;
    if (extent <= CLICK_SLOP && Math.hypot(pointer.clientX - x, pointer.clientY - y) <= CLICK_SLOP)
      tool.host.clicked(x, y, tool.clickCombine);
    else if (polygon.length >= 6) tool.host.lassoed(polygon, combine);
  }

  onCancel(): void {
    const tool = this.tool();
    tool.points = [];
    tool.drawOutline();
    tool.transition('idle');
  }
}
