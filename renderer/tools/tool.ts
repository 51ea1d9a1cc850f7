/**
 * Tools as small state machines, one state per file (tldraw's model): a tool is a set of named states, exactly one
 * current; the tool manager hands each pointer event to the current state of the one active tool, and a state
 * answers by doing its work and, when the gesture moves on, `transition`ing to the next state. Escape calls the
 * current state's `cancel`, which restores whatever that state changed and goes back to idle.
 */

export type ToolId = 'select' | 'lasso' | 'brush' | 'pose' | 'skeleton';

/** CSS pixels a press may move before release and still count as a click. */
export const CLICK_SLOP = 4;

/** A pointer event as tools see it: canvas-local CSS pixels plus what the event carried. */
export interface ToolPointer {
  /** CSS px from the canvas's top-left corner */
  x: number;
  y: number;
  /** page coordinates (joint picking projects into the page) */
  clientX: number;
  clientY: number;
  /** canvas width and height in CSS px at this event */
  width: number;
  height: number;
  button: number;
  buttons: number;
  pointerId: number;
  pointerType: string;
  pressure: number;
  shiftKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
}

export interface ToolState {
  /** 'idle' is every tool's resting state */
  readonly name: string;
  onEnter?(): void;
  onExit?(): void;
  /**
   * @returns true when the state takes the press: the camera controls do not see it and the tool captures the
   * pointer until it is released
   */
  onPointerDown?(pointer: ToolPointer): boolean;
  onPointerMove?(pointer: ToolPointer): void;
  onPointerUp?(pointer: ToolPointer): void;
  /** Escape, a lost pointer or a tool switch: restore what this state changed and go back to idle */
  onCancel?(): void;
  /** Enter */
  onConfirm?(): void;
}

export class Tool<S extends string = string> {
  private currentName: S;
  private readonly listeners = new Set<() => void>();

  /**
   * @param id       the tool's name in the tool manager and in the `tool` context key
   * @param states   every state by name; `idle` is where the tool starts and returns
   */
  constructor(
    readonly id: ToolId,
    private readonly states: Record<S | 'idle', ToolState>,
  ) {
    this.currentName = 'idle' as S;
  }

  get state(): S | 'idle' {
    return this.currentName;
  }

  get current(): ToolState {
    return this.states[this.currentName];
  }

  /** Whether a gesture is in progress (any state but idle). */
  get busy(): boolean {
    return this.currentName !== 'idle';
  }

  transition(to: S | 'idle'): void {
    if (to === this.currentName) return;
    this.current.onExit?.();
    this.currentName = to as S;
    this.current.onEnter?.();
    for (const listener of this.listeners) listener();
  }

  /** Cancels the gesture in progress, if any (the state restores what it changed). */
  cancel(): void {
    if (this.busy) this.current.onCancel?.();
    if (this.busy) this.transition('idle');
  }

  /** Called on every state change (status text, cursor, context keys). */
  onStateChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Called when the tool becomes the active one. */
  activate(): void {}

  /** Called when another tool becomes active, after any gesture was cancelled. */
  deactivate(): void {}

  /** What a click or drag does now, for the status line; null when the tool has nothing to say. */
  hint(): string | null {
    return null;
  }
}
