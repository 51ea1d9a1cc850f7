/**
 * The tool manager: the only pointer and key listener on the viewport. Pointer events on the canvas go to the
 * current state of exactly one active tool (select/orbit, lasso, brush); keys go through the one keybinding table
 * to commands. Switching tool cancels the old tool's gesture first, so two tools never act on one drag.
 *
 * The camera controls (three's OrbitControls) listen on the canvas itself. The manager listens on the canvas's
 * container in the capture phase, so it sees each press first: when the active tool takes the press, the camera
 * controls never see it; when it does not (the select tool, or the right button for panning), they orbit as usual.
 */
import type { CommandRegistry } from '../commands/command-registry.ts';
import { chordOf, resolveKey } from '../commands/keybindings.ts';
import type { WhenContext } from '../commands/when-clause.ts';
import { CLICK_SLOP, type Tool, type ToolId, type ToolPointer } from './tool.ts';

export interface ToolManagerOptions {
  /** the viewport element holding the canvas */
  container: HTMLElement;
  canvas: HTMLCanvasElement;
  commands: CommandRegistry;
  /** the app's context keys now; the manager adds `tool`, `toolState` and `toolBusy` */
  context(): WhenContext;
  /**
   * A right click on the canvas (no tool taking the press, the pointer never further than CLICK_SLOP from where it
   * went down): the context menu for what is under the pointer. A right drag stays the camera's pan, even one that
   * ends back near its start.
   */
  contextMenu?(pointer: ToolPointer): void;
}

/** Whether a key event belongs to a text field (or select) rather than to the app's shortcuts. */
export function isTypingTarget(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return (
    target instanceof HTMLInputElement ||
    target instanceof HTMLSelectElement ||
    target instanceof HTMLTextAreaElement ||
    target.isContentEditable
  );
}

export class ToolManager {
  private readonly tools = new Map<ToolId, Tool>();
  private activeTool: Tool;
  private captured = -1;
  /** a right press no tool took, where it went down (page px), until the pointer goes further than CLICK_SLOP: its release is a right click */
  private rightPress: { pointerId: number; x: number; y: number } | null = null;
  private readonly listeners = new Set<() => void>();

  /** @param tools  every tool; the first is the default, active at the start and after another is switched off */
  constructor(
    private readonly options: ToolManagerOptions,
    tools: readonly Tool[],
  ) {
    for (const tool of tools) {
      this.tools.set(tool.id, tool);
      tool.onStateChange(() => this.changed());
    }
    this.activeTool = tools[0];
    const { container } = options;
    container.addEventListener('pointerdown', this.down, { capture: true });
    container.addEventListener('pointermove', this.move, { capture: true });
    container.addEventListener('pointerup', this.up, { capture: true });
    container.addEventListener('pointercancel', this.lost, { capture: true });
    window.addEventListener('keydown', this.key, { capture: true });
  }

  get active(): Tool {
    return this.activeTool;
  }

  get defaultTool(): Tool {
    return this.tools.values().next().value!;
  }

  tool<T extends Tool>(id: ToolId): T {
    const tool = this.tools.get(id);
    if (!tool) throw new Error(`no tool ${id}`);
    return tool as T;
  }

  /** The context keys the tools add: `tool` (the active tool), `toolState` (its state), `toolBusy` (a gesture). */
  context(): WhenContext {
    return { tool: this.activeTool.id, toolState: this.activeTool.state, toolBusy: this.activeTool.busy };
  }

  /** Makes `id` the active tool; the previous one's gesture is cancelled first. */
  activate(id: ToolId): void {
    const next = this.tool(id);
    if (next === this.activeTool) return;
    this.activeTool.cancel();
    this.release();
    this.activeTool.deactivate();
    this.activeTool = next;
    next.activate();
    this.changed();
  }

  /** Activates `id`, or goes back to the default tool when `id` is active already. */
  toggle(id: ToolId): void {
    this.activate(this.activeTool.id === id ? this.defaultTool.id : id);
  }

  /** Called when the active tool or its state changes. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  private pointer(event: PointerEvent): ToolPointer {
    const rect = this.options.canvas.getBoundingClientRect();
    return {
      x: event.clientX - rect.left,
      y: event.clientY - rect.top,
      clientX: event.clientX,
      clientY: event.clientY,
      width: rect.width,
      height: rect.height,
      button: event.button,
      buttons: event.buttons,
      pointerId: event.pointerId,
      pointerType: event.pointerType,
      pressure: event.pressure,
      shiftKey: event.shiftKey,
      ctrlKey: event.ctrlKey,
      metaKey: event.metaKey,
      altKey: event.altKey,
    };
  }

  private readonly down = (event: PointerEvent): void => {
    if (event.target !== this.options.canvas) return;
    if (this.captured >= 0) {
      // Another pointer (a second finger, a pen beside the mouse) while a gesture holds one: neither the tool nor the
      // camera takes it, so a stroke or lasso is not turned into an orbit half-way.
      event.stopPropagation();
      event.preventDefault();
      return;
    }
    // While a script runs the tools start nothing (their gestures edit the scene without a command); the camera
    // still takes the press.
    if (this.options.context().scriptRunning) return;
    const taken = this.activeTool.current.onPointerDown?.(this.pointer(event)) ?? false;
    this.rightPress = !taken && event.button === 2 ? { pointerId: event.pointerId, x: event.clientX, y: event.clientY } : null;
    if (!taken) return;
    event.stopPropagation();
    event.preventDefault();
    this.captured = event.pointerId;
    this.options.canvas.setPointerCapture(event.pointerId);
  };

  private readonly move = (event: PointerEvent): void => {
    const press = this.rightPress;
    // Once the pointer leaves the click slop the press is a drag (a pan), wherever it is released.
    if (press && event.pointerId === press.pointerId && Math.hypot(event.clientX - press.x, event.clientY - press.y) > CLICK_SLOP)
      this.rightPress = null;
    const mine = event.pointerId === this.captured;
    // While a gesture holds a pointer, only that pointer drives it; otherwise moves over the canvas hover.
    if (!mine && (this.captured >= 0 || event.target !== this.options.canvas)) return;
    if (mine) event.stopPropagation();
    this.activeTool.current.onPointerMove?.(this.pointer(event));
  };

  private readonly up = (event: PointerEvent): void => {
    const press = this.rightPress;
    if (press && event.pointerId === press.pointerId && event.button === 2) {
      this.rightPress = null;
      if (Math.hypot(event.clientX - press.x, event.clientY - press.y) <= CLICK_SLOP) this.options.contextMenu?.(this.pointer(event));
      return;
    }
    const mine = event.pointerId === this.captured;
    if (!mine && (this.captured >= 0 || event.target !== this.options.canvas)) return;
    if (mine) {
      event.stopPropagation();
      this.release();
    }
    this.activeTool.current.onPointerUp?.(this.pointer(event));
  };

  private readonly lost = (event: PointerEvent): void => {
    if (event.pointerId !== this.captured) return;
    this.release();
    this.activeTool.cancel();
  };

  private release(): void {
    if (this.captured >= 0 && this.options.canvas.hasPointerCapture(this.captured))
      this.options.canvas.releasePointerCapture(this.captured);
    this.captured = -1;
  }

  private readonly key = (event: KeyboardEvent): void => {
    if (event.defaultPrevented || event.isComposing || (event.repeat && event.key === 'Escape')) return;
    // Typing in a text field, and anything inside a modal dialog (which handles its own Escape), is not a shortcut.
    if (isTypingTarget(event.target) || document.querySelector('dialog[open]')) return;
    // A control that handles some keys itself keeps them (data-own-keys lists them: a timeline key mark's Delete).
    if (event.target instanceof HTMLElement && event.target.dataset.ownKeys?.split(' ').includes(event.key)) return;
    const chord = chordOf(event);
    if (!chord) return;
    const binding = resolveKey(chord, this.options.context());
    if (!binding) return;
    event.preventDefault();
    event.stopPropagation();
    this.options.commands.invoke(binding.command);
  };
}
