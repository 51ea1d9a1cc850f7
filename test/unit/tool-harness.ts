/**
 * The tools without a browser: a fake viewport (a container and a canvas that record their listeners and pointer
 * capture), a fake window and document for the key listener, and helpers that dispatch pointer and key events to
 * the real ToolManager as the browser would: pointer events go to the container's capture-phase listeners with the
 * canvas as their target, and reach the canvas (the camera controls) only when nobody stopped them.
 *
 * The scene under the brush is a flat 9 × 9 grid of vertices from -1 to 1 (0.25 apart) in the plane z = 0, seen by a
 * 90° camera at z = 1 through a 200 × 200 canvas: canvas pixel (x, y) lies over the point ((x - 100) / 100,
 * (100 - y) / 100, 0), and a brush radius of r CSS px is r / 100 world units at the centre. Two bones along x; bone 1
 * weighs (x + 1) / 2 at a vertex, bone 0 the rest. The painting is the real PaintController and PaintSession with
 * the real undo history, the commands are the real registry with the real keybinding table.
 */
import * as THREE from 'three';
import { CommandRegistry } from '../../renderer/commands/command-registry.ts';
import type { CommandId } from '../../renderer/commands/command-catalog.ts';
import type { WhenContext } from '../../renderer/commands/when-clause.ts';
import { boneCountOf, withDerived, type SceneDocument } from '../../workers/scene/scene-document.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';
import type { PaintController } from '../../renderer/paint/paint-controller.ts';
import type { LassoCombine } from '../../renderer/bind/binding-controller.ts';
import { BrushTool } from '../../renderer/tools/brush/brush-tool.ts';
import { LassoTool, type ClickCombine } from '../../renderer/tools/lasso/lasso-tool.ts';
import { SelectTool } from '../../renderer/tools/select/select-tool.ts';
import { ToolManager } from '../../renderer/tools/tool-manager.ts';
import { paintCommands } from '../../renderer/paint/paint-commands.ts';
import type { BrushRing } from '../../renderer/view/brush-ring.ts';
import { headlessPaintController } from './headless-hosts.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';

/** Grid side in vertices, and the step between them. */
export const GRID = 9;
export const STEP = 0.25;
/** The canvas's place on the page, and its size (CSS px). */
export const CANVAS_RECT = { left: 10, top: 20, width: 200, height: 200 };

type Listener = (event: FakeEvent) => void;

/** Stands for a DOM event: what the tool manager's listeners read, and whether they stopped or prevented it. */
export interface FakeEvent {
  type: string;
  target: unknown;
  defaultPrevented: boolean;
  stopped: boolean;
  preventDefault(): void;
  stopPropagation(): void;
  [field: string]: unknown;
}

/**
 * A fake event of `type` at `target`, with the event's own `fields` (clientX, key, shiftKey…).
 * @param fields - Copied onto the event as they are.
 */
export function fakeEvent(type: string, target: unknown, fields: Record<string, unknown>): FakeEvent {
  const event: FakeEvent = {
    type,
    target,
    defaultPrevented: false,
    stopped: false,
    preventDefault() {
      event.defaultPrevented = true;
    },
    stopPropagation() {
      event.stopped = true;
    },
    ...fields,
  };
  return event;
}

/** Stands for HTMLElement where there is none (Node): the key listener asks `instanceof HTMLElement`. */
class FakeHTMLElement {
  isContentEditable = false;
  parentElement: FakeElement | null = null;
}
class FakeHTMLInputElement extends FakeHTMLElement {}
class FakeHTMLSelectElement extends FakeHTMLElement {}
class FakeHTMLTextAreaElement extends FakeHTMLElement {}

/** An element that records its listeners, children, classes, attributes and pointer capture. */
export class FakeElement extends FakeHTMLElement {
  readonly listeners = new Map<string, Listener[]>();
  readonly children: FakeElement[] = [];
  readonly classes = new Set<string>();
  readonly classList = {
    add: (name: string) => void this.classes.add(name),
    remove: (name: string) => void this.classes.delete(name),
    contains: (name: string) => this.classes.has(name),
  };
  readonly style: Record<string, string> = { display: '' };
  readonly dataset: Record<string, string> = {};
  readonly attributes = new Map<string, string>();
  readonly captured = new Set<number>();

  constructor(private readonly rect = { left: 0, top: 0, width: 0, height: 0 }) {
    super();
  }

  addEventListener(type: string, listener: Listener): void {
    const list = this.listeners.get(type) ?? [];
    list.push(listener);
    this.listeners.set(type, list);
  }

  getBoundingClientRect() {
    const { left, top, width, height } = this.rect;
    return { left, top, width, height, right: left + width, bottom: top + height, x: left, y: top };
  }

  append(child: FakeElement): void {
    child.parentElement = this;
    this.children.push(child);
  }

  setAttribute(name: string, value: string): void {
    this.attributes.set(name, value);
  }

  setPointerCapture(id: number): void {
    this.captured.add(id);
  }

  hasPointerCapture(id: number): boolean {
    return this.captured.has(id);
  }

  releasePointerCapture(id: number): void {
    this.captured.delete(id);
  }
}

/** The page's document as the tools use it: a modal dialog may be open, and the lasso makes its outline elements. */
class FakeDocument {
  readonly body = new FakeElement();
  /** the open modal dialog, if a test opens one */
  openDialog: FakeElement | null = null;

  querySelector(selector: string): FakeElement | null {
    return selector === 'dialog[open]' ? this.openDialog : null;
  }

  createElementNS(): FakeElement {
    return new FakeElement();
  }
}

/**
 * Puts a harness's window and document, and the fake element classes, where the tools look for them (where Node has
 * none; a harness made later replaces an earlier harness's fakes, so each manager listens on its own window).
 */
function installGlobals(window: FakeElement, document: FakeDocument): void {
  const g = globalThis as Record<string, unknown>;
  const fakes: Record<string, unknown> = {
    HTMLElement: FakeHTMLElement,
    HTMLInputElement: FakeHTMLInputElement,
    HTMLSelectElement: FakeHTMLSelectElement,
    HTMLTextAreaElement: FakeHTMLTextAreaElement,
  };
  for (const [name, fake] of Object.entries(fakes)) if (g[name] === undefined) g[name] = fake;
  if (g.window === undefined || g.window instanceof FakeElement) g.window = window;
  if (g.document === undefined || g.document instanceof FakeDocument) g.document = document;
}

/** A text field to type in (key events from it are not shortcuts). */
export const textField = (): unknown => new FakeHTMLInputElement();

/** An element being edited in place (contenteditable). */
export function editableElement(): unknown {
  const element = new FakeHTMLElement();
  element.isContentEditable = true;
  return element;
}

export interface PointerOptions {
  button?: number;
  /** buttons held during the event; by default those pressed and not yet released (left 1, right 2, middle 4) */
  buttons?: number;
  pointerId?: number;
  pointerType?: string;
  pressure?: number;
  shiftKey?: boolean;
  ctrlKey?: boolean;
  metaKey?: boolean;
  altKey?: boolean;
  /** the element under the pointer (by default the canvas) */
  target?: unknown;
}

export interface KeyOptions {
  shiftKey?: boolean;
  ctrlKey?: boolean;
  metaKey?: boolean;
  altKey?: boolean;
  repeat?: boolean;
  isComposing?: boolean;
  /** the focused element (by default the page's body) */
  target?: unknown;
}

/** What became of a dispatched event. */
export interface Dispatched {
  /** not stopped by the manager: the canvas's own listeners (the camera controls) see it */
  reachedCanvas: boolean;
  defaultPrevented: boolean;
}

/** The flat grid scene (see the file's comment). */
export function gridDocument(): SceneDocument {
  const positions = new Float64Array(3 * GRID * GRID);
  const rows = GRID * GRID;
  const weights = new Float64Array(2 * rows);
  for (let j = 0; j < GRID; j++) {
    for (let i = 0; i < GRID; i++) {
      const v = i + GRID * j;
      const x = -1 + STEP * i;
      positions[3 * v] = x;
      positions[3 * v + 1] = -1 + STEP * j;
      weights[2 * v + 1] = (x + 1) / 2;
      weights[2 * v] = 1 - weights[2 * v + 1];
    }
  }
  const triangles: number[] = [];
  for (let j = 0; j + 1 < GRID; j++) {
    for (let i = 0; i + 1 < GRID; i++) {
      const a = i + GRID * j;
      // Counter-clockwise seen from +z (the camera).
      triangles.push(a, a + 1, a + 1 + GRID, a, a + 1 + GRID, a + GRID);
    }
  }
  const skeleton = buildSkeleton({ joints: Float64Array.of(-1, 0, 0, 0, 0, 0, 1, 0, 0), bones: Uint32Array.of(0, 1, 1, 2) }, 'grid.tgf');
  return withDerived({
    name: 'grid',
    meshFiles: [],
    mesh: { positions, triangles: Uint32Array.from(triangles) },
    skeletonFile: null,
    skeleton,
    weights: { rows, cols: 2, data: weights },
    weightsSource: 'built-in',
    poses: null,
    posesFile: null,
    handles: null,
    handlesFile: null,
    warnings: [],
  });
}

/** The vertex at grid column i (x = -1 + 0.25 i) and row j (y = -1 + 0.25 j). */
export const vertexAt = (i: number, j: number): number => i + GRID * j;

/** Every tool on the fake viewport, the manager, and recordings of what the tools asked of their hosts. */
export class ToolHarness {
  readonly container = new FakeElement({ left: 0, top: 0, width: 400, height: 300 });
  readonly canvas = new FakeElement(CANVAS_RECT);
  readonly history = new UndoHistory();
  readonly store = new SceneStore(gridDocument(), this.history);
  readonly camera = new THREE.PerspectiveCamera(90, 1, 0.01, 100);
  readonly window = new FakeElement();
  readonly document = new FakeDocument();
  selectedBone = -1;
  /** the joint drawn at a page point, for the brush's and the select tool's picking */
  joint: { bone: number; clientX: number; clientY: number } | null = null;
  /** what the hosts were asked: picks, selections, lassos, commands the fakes ran */
  readonly picks: { clientX: number; clientY: number }[] = [];
  readonly selections: number[] = [];
  readonly lassos: { polygon: number[]; combine: LassoCombine }[] = [];
  /** the lasso tool's clicks: page point and combination */
  readonly clicks: { clientX: number; clientY: number; combine: ClickCombine }[] = [];
  readonly ran: CommandId[] = [];
  /** ring calls: 'place' or 'hide' */
  readonly ring: string[] = [];
  readonly paint: PaintController;
  readonly commands: CommandRegistry;
  readonly manager: ToolManager;
  readonly brush: BrushTool;
  readonly lasso: LassoTool;
  readonly select: SelectTool;

  constructor() {
    installGlobals(this.window, this.document);
    this.canvas.parentElement = this.container;
    this.camera.position.set(0, 0, 1);
    this.camera.lookAt(0, 0, 0);
    this.camera.updateMatrixWorld();
    const store = this.store;
    // The frame never comes (schedule): a stroke's end, Escape and the surface's update flush themselves.
    this.paint = headlessPaintController(store, { selectedBone: () => this.selectedBone, stride: 2 });
    const ring = {
      place: () => void this.ring.push('place'),
      hide: () => void this.ring.push('hide'),
      showUnmatched: () => undefined,
      showingUnmatched: false,
    } as unknown as BrushRing;
    const triangles = store.doc.mesh.triangles;
    this.brush = new BrushTool({
      controller: this.paint,
      store,
      camera: this.camera,
      ring,
      posedPositions: () => store.doc.mesh.positions.slice(),
      posedPositionsAt: () => false,
      selectedBone: () => this.selectedBone,
      selectBone: (bone) => {
        this.selectedBone = bone;
        this.selections.push(bone);
      },
      jointBoneAt: (x, y) => this.jointAt(x, y),
      redraw: () => undefined,
      showWeightMap: () => undefined,
      vertexMask: () => null,
      shownTriangles: () => triangles,
    });
    const container = this.container as unknown as HTMLElement;
    const canvas = this.canvas as unknown as HTMLCanvasElement;
    this.select = new SelectTool({ pickBoneAt: (clientX, clientY) => void this.picks.push({ clientX, clientY }) });
    this.lasso = new LassoTool(
      {
        lassoed: (polygon, combine) => void this.lassos.push({ polygon, combine }),
        clicked: (clientX, clientY, combine) => void this.clicks.push({ clientX, clientY, combine }),
      },
      container,
      canvas,
    );
    this.commands = new CommandRegistry(
      () => this.context(),
      (id, error) => {
        throw new Error(`command ${id} failed: ${String(error)}`);
      },
    );
    // The paint commands as the shell registers them (renderer/paint/paint-commands.ts), the tools' as the shell's
    // handlers do; other commands a key reaches are recorded.
    const tools = (): ToolManager => this.manager;
    this.commands.registerAll({
      ...paintCommands({
        paint: this.paint,
        brushTool: {
          get active() {
            return tools().active.id === 'brush';
          },
          toggle: () => tools().toggle('brush'),
          resize: () => tools().tool<BrushTool>('brush').transition('resizing'),
        },
      }),
      'tool.cancel': { run: () => tools().active.cancel() },
      'tool.confirm': { run: () => tools().active.current.onConfirm?.() },
      'tool.lasso': { run: () => tools().toggle('lasso') },
      'view.dismiss': { run: () => void this.ran.push('view.dismiss') },
      'view.frameAll': { run: () => void this.ran.push('view.frameAll') },
    });
    this.manager = new ToolManager({ container, canvas, commands: this.commands, context: () => this.context() }, [
      this.select,
      this.lasso,
      this.brush,
    ]);
  }

  /** The app's context keys as the shell gives them (tool keys from the manager). */
  context(): WhenContext {
    return {
      ...this.manager.context(),
      bindPanel: true,
      boneSelected: this.selectedBone >= 0,
      hasSkeleton: boneCountOf(this.store.doc) > 0,
    };
  }

  private jointAt(clientX: number, clientY: number): number {
    const joint = this.joint;
    return joint && Math.hypot(clientX - joint.clientX, clientY - joint.clientY) <= 6 ? joint.bone : -1;
  }

  /** Records the states `tool` goes through from now on. */
  states(tool: { onStateChange(listener: () => void): unknown; state: string }): string[] {
    const seen: string[] = [];
    tool.onStateChange(() => seen.push(tool.state));
    return seen;
  }

  // --- events -----------------------------------------------------------------------------------------------

  /** the buttons pressed and not released, as PointerEvent.buttons has them */
  private held = 0;

  /** A pointer event at canvas point (x, y) (CSS px from the canvas's top-left corner). */
  pointer(
    type: 'pointerdown' | 'pointermove' | 'pointerup' | 'pointercancel',
    x: number,
    y: number,
    options: PointerOptions = {},
  ): Dispatched {
    const button = options.button ?? (type === 'pointermove' ? -1 : 0);
    // PointerEvent.button 0, 1, 2 (left, middle, right) is bit 1, 4, 2 of PointerEvent.buttons.
    const bit = [1, 4, 2][button] ?? 0;
    if (type === 'pointerdown') this.held |= bit;
    if (type === 'pointerup' || type === 'pointercancel') this.held &= ~bit;
    const event = fakeEvent(type, options.target ?? this.canvas, {
      clientX: x + CANVAS_RECT.left,
      clientY: y + CANVAS_RECT.top,
      button,
      buttons: options.buttons ?? this.held,
      pointerId: options.pointerId ?? 1,
      pointerType: options.pointerType ?? 'mouse',
      pressure: options.pressure ?? (this.held ? 0.5 : 0),
      shiftKey: options.shiftKey ?? false,
      ctrlKey: options.ctrlKey ?? false,
      metaKey: options.metaKey ?? false,
      altKey: options.altKey ?? false,
    });
    for (const listener of this.container.listeners.get(type) ?? []) listener(event);
    return { reachedCanvas: !event.stopped, defaultPrevented: event.defaultPrevented };
  }

  pointerDown(x: number, y: number, options?: PointerOptions): Dispatched {
    return this.pointer('pointerdown', x, y, options);
  }

  pointerMove(x: number, y: number, options?: PointerOptions): Dispatched {
    return this.pointer('pointermove', x, y, options);
  }

  pointerUp(x: number, y: number, options?: PointerOptions): Dispatched {
    return this.pointer('pointerup', x, y, options);
  }

  pointerCancel(x: number, y: number, options?: PointerOptions): Dispatched {
    return this.pointer('pointercancel', x, y, options);
  }

  /** A key press (`key` as KeyboardEvent.key says it: 'Escape', 'Enter', 'f'). */
  key(key: string, options: KeyOptions = {}): Dispatched {
    const event = fakeEvent('keydown', options.target ?? this.document.body, {
      key,
      shiftKey: options.shiftKey ?? false,
      ctrlKey: options.ctrlKey ?? false,
      metaKey: options.metaKey ?? false,
      altKey: options.altKey ?? false,
      repeat: options.repeat ?? false,
      isComposing: options.isComposing ?? false,
    });
    for (const listener of this.window.listeners.get('keydown') ?? []) listener(event);
    return { reachedCanvas: !event.stopped, defaultPrevented: event.defaultPrevented };
  }

  /** Opens (or closes, with false) a modal dialog on the page. */
  dialog(open: boolean): void {
    this.document.openDialog = open ? new FakeElement() : null;
  }
}
