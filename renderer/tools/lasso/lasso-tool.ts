/**
 * The lasso: a small state machine. `off` (the viewport orbits as usual) ⇄ `idle` (armed: a left drag draws)
 * → `drawing` (the polygon follows the pointer) → back to `idle` on release, when the polygon is handed to
 * `onLasso`. Escape while drawing drops the polygon and changes nothing. While armed, the tool takes the left
 * button before the orbit controls see it; the right button still pans and the wheel still zooms.
 * The modifier held at the press decides the combination: Shift adds, Ctrl/Cmd removes, none replaces.
 */

export type LassoState = 'off' | 'idle' | 'drawing';
export type LassoCombine = 'replace' | 'add' | 'remove';

/** Points closer than this (CSS px) to the previous one are not recorded. */
const MIN_SEGMENT = 2;
const SVG_NS = 'http://www.w3.org/2000/svg';

export class LassoTool {
  private current: LassoState = 'off';
  private combine: LassoCombine = 'replace';
  private points: number[] = [];
  private pointerId = -1;
  private readonly svg: SVGSVGElement;
  private readonly path: SVGPolygonElement;

  /**
   * @param container  the viewport element holding the canvas; the outline is drawn over it
   * @param canvas     the WebGL canvas; polygon coordinates are relative to its top-left corner, in CSS px
   * @param onLasso    called with the closed polygon (x0 y0 x1 y1 …) and the combination
   * @param onChange   called whenever the state changes (for the UI)
   */
  constructor(
    container: HTMLElement,
    private readonly canvas: HTMLCanvasElement,
    private readonly onLasso: (polygon: number[], combine: LassoCombine) => void,
    private readonly onChange: (state: LassoState) => void,
  ) {
    this.svg = document.createElementNS(SVG_NS, 'svg');
    this.svg.classList.add('lasso-overlay');
    this.path = document.createElementNS(SVG_NS, 'polygon');
    this.svg.append(this.path);
    this.svg.style.display = 'none';
    container.append(this.svg);
    // Capture on the container: the tool sees the press before the canvas's orbit controls and can keep it.
    container.addEventListener('pointerdown', this.down, { capture: true });
    container.addEventListener('pointermove', this.move, { capture: true });
    container.addEventListener('pointerup', this.up, { capture: true });
    container.addEventListener('pointercancel', () => this.cancel(), { capture: true });
  }

  get state(): LassoState {
    return this.current;
  }

  setArmed(armed: boolean): void {
    if (!armed) this.cancel();
    this.set(armed ? 'idle' : 'off');
    this.canvas.classList.toggle('lasso-armed', armed);
  }

  /** Escape: drops a polygon being drawn; returns whether there was one. */
  cancel(): boolean {
    if (this.current !== 'drawing') return false;
    if (this.pointerId >= 0 && this.canvas.hasPointerCapture(this.pointerId)) this.canvas.releasePointerCapture(this.pointerId);
    this.pointerId = -1;
    this.points = [];
    this.svg.style.display = 'none';
    this.set('idle');
    return true;
  }

  private set(state: LassoState): void {
    if (state === this.current) return;
    this.current = state;
    this.onChange(state);
  }

  private local(event: PointerEvent): [number, number] {
    const rect = this.canvas.getBoundingClientRect();
    return [event.clientX - rect.left, event.clientY - rect.top];
  }

  private readonly down = (event: PointerEvent): void => {
    if (this.current !== 'idle' || event.button !== 0 || event.target !== this.canvas) return;
    event.stopPropagation();
    event.preventDefault();
    this.combine = event.ctrlKey || event.metaKey ? 'remove' : event.shiftKey ? 'add' : 'replace';
    this.svg.dataset.combine = this.combine;
    this.points = this.local(event);
    this.pointerId = event.pointerId;
    this.canvas.setPointerCapture(event.pointerId);
    this.redraw();
    this.svg.style.display = '';
    this.set('drawing');
  };

  private readonly move = (event: PointerEvent): void => {
    if (this.current !== 'drawing' || event.pointerId !== this.pointerId) return;
    event.stopPropagation();
    const [x, y] = this.local(event);
    const n = this.points.length;
    if (Math.hypot(x - this.points[n - 2], y - this.points[n - 1]) < MIN_SEGMENT) return;
    this.points.push(x, y);
    this.redraw();
  };

  private readonly up = (event: PointerEvent): void => {
    if (this.current !== 'drawing' || event.pointerId !== this.pointerId) return;
    event.stopPropagation();
    const polygon = this.points;
    const combine = this.combine;
    this.cancel();
    if (polygon.length >= 6) this.onLasso(polygon, combine);
  };

  private redraw(): void {
    const rect = this.canvas.getBoundingClientRect();
    const parent = this.svg.parentElement!.getBoundingClientRect();
    const dx = rect.left - parent.left;
    const dy = rect.top - parent.top;
    let text = '';
    for (let i = 0; i < this.points.length; i += 2) text += `${this.points[i] + dx},${this.points[i + 1] + dy} `;
    this.path.setAttribute('points', text);
  }
}
