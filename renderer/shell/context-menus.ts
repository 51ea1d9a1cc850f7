/**
 * The right-click menus, wired: a right click in the viewport (the tool manager tells when a press was a click and not
 * a pan) opens the menu for the joint under the pointer (its bone), else for the mesh there (the vertex nearest the
 * surface point the view ray hits first), else the view's; a right click on a row of the bone list or the meshes panel,
 * or on the clip picker, opens the menu for that row. What each menu holds is context-commands.ts.
 */
import type { CommandRegistry } from '../commands/command-registry.ts';
import { ContextMenu } from '../panels/context-menu.ts';
import type { Viewport } from '../view/viewport.ts';
import { rayHits } from '../../workers/rig/volume-ray.ts';
import type { SceneDocument } from '../../workers/scene/scene-document.ts';
import { boneMenu, clipMenu, meshMenu, meshRowMenu, viewMenu } from './context-commands.ts';

/** What the menus use of the app. */
export interface ContextMenusHost {
  readonly commands: CommandRegistry;
  readonly store: { readonly doc: SceneDocument; subscribe(listener: () => void): () => void };
  readonly selectedBone: number;
  readonly paint: { isLocked(bone: number): boolean };
  readonly viewport: Pick<Viewport, 'rayThrough'>;
  readonly meshes: {
    visibleTriangles(): Uint32Array;
    readonly list: readonly { readonly name: string }[];
    /** per mesh, whether it is hidden */
    readonly hidden: readonly boolean[];
  };
  /** the bone of the joint drawn under a page point, or -1 */
  jointBoneAt(pageX: number, pageY: number): number;
  /** #V × 3 positions at the pose and method on screen */
  posedPositions(): Float64Array;
}

export class ContextMenus {
  readonly menu: ContextMenu;
  /** where the pointer is over the canvas (page px), or null while it is elsewhere */
  private lastPointer: { x: number; y: number } | null = null;
  /** a pick waiting for the next left click in the viewport (pickVertex), or null */
  private picking: { picked: (vertex: number) => void; cancelled?: () => void } | null = null;

  private readonly canvas: HTMLCanvasElement;

  constructor(
    private readonly host: ContextMenusHost,
    canvas: HTMLCanvasElement,
  ) {
    this.menu = new ContextMenu(host.commands);
    // A menu's items name what it was opened on: any change of the scene (an edit, an undo, a new scene) closes it.
    host.store.subscribe(() => this.menu.close());
    // The browser's own menu never opens over the viewport, whichever tool (and camera state) is active.
    canvas.addEventListener('contextmenu', (event) => event.preventDefault());
    canvas.addEventListener('pointermove', (event) => (this.lastPointer = { x: event.clientX, y: event.clientY }), { passive: true });
    canvas.addEventListener('pointerleave', () => (this.lastPointer = null));
    // Before the tool manager (on the canvas's container) and the camera: a pick's click is only a pick.
    window.addEventListener('pointerdown', (event) => this.pick(event), { capture: true });
    // Escape gives a waiting pick up (before the tool's and the app's own Escape).
    window.addEventListener(
      'keydown',
      (event) => {
        if (!this.picking || event.key !== 'Escape') return;
        event.preventDefault();
        event.stopPropagation();
        this.endPick()?.cancelled?.();
      },
      { capture: true },
    );
    this.canvas = canvas;
    document.addEventListener('contextmenu', (event) => this.onList(event));
  }

  /** Opens the menu for what is drawn under a page point of the viewport. */
  atViewport(pageX: number, pageY: number): void {
    const { doc } = this.host.store;
    const bone = this.host.jointBoneAt(pageX, pageY);
    if (bone >= 0) {
      const { title, entries } = boneMenu(bone, { doc, locked: this.host.paint.isLocked(bone) });
      this.menu.show(pageX, pageY, title, entries);
      return;
    }
    const vertex = this.vertexAt(pageX, pageY);
    const { title, entries } = vertex >= 0 ? meshMenu(vertex, doc, this.host.selectedBone) : viewMenu();
    this.menu.show(pageX, pageY, title, entries);
  }

  /** The vertex under the pointer while it is over the viewport, or -1 (see vertexAt). */
  vertexUnderPointer(): number {
    return this.lastPointer ? this.vertexAt(this.lastPointer.x, this.lastPointer.y) : -1;
  }

  /**
   * The next left click in the viewport picks a vertex and tells `picked` (-1: it missed the mesh); while it waits the
   * viewport shows a crosshair. Escape or any other press gives up and tells `cancelled`.
   */
  pickVertex(picked: (vertex: number) => void, cancelled?: () => void): void {
    this.endPick()?.cancelled?.();
    this.picking = { picked, cancelled };
    this.canvas.style.cursor = 'crosshair';
  }

  /** Ends a waiting pick (the cursor goes back): the pick, or null when none waited. */
  private endPick(): { picked: (vertex: number) => void; cancelled?: () => void } | null {
    const picking = this.picking;
    this.picking = null;
    if (picking) this.canvas.style.cursor = '';
    return picking;
  }

  private pick(event: PointerEvent): void {
    // The press that chose the command (in a menu) comes before it runs, so any press now is the artist's answer.
    const picking = this.endPick();
    if (!picking) return;
    if (event.target !== this.canvas || event.button !== 0) return picking.cancelled?.();
    event.stopPropagation();
    event.preventDefault();
    picking.picked(this.vertexAt(event.clientX, event.clientY));
  }

  /**
   * The vertex under a page point: of the first shown triangle the view ray through it hits (on the mesh as posed
   * now), the corner nearest the hit; -1 when the ray misses the mesh.
   */
  vertexAt(pageX: number, pageY: number): number {
    if (this.host.store.doc.mesh.positions.length === 0) return -1;
    const positions = this.host.posedPositions();
    const triangles = this.host.meshes.visibleTriangles();
    const { origin, direction } = this.host.viewport.rayThrough(pageX, pageY);
    const [first] = rayHits({ positions, triangles }, origin, direction);
    if (!first) return -1;
    const hit = origin.map((o, k) => o + first.t * direction[k]);
    let best = -1;
    let bestDistance = Infinity;
    for (let corner = 0; corner < 3; corner++) {
      const v = triangles[3 * first.triangle + corner];
      const d = Math.hypot(positions[3 * v] - hit[0], positions[3 * v + 1] - hit[1], positions[3 * v + 2] - hit[2]);
      if (d < bestDistance) {
        best = v;
        bestDistance = d;
      }
    }
    return best;
  }

  /** A right click on a list's row: the menu for that row (elsewhere the browser's own menu, as on any page). */
  private onList(event: MouseEvent): void {
    const target = event.target instanceof Element ? event.target : null;
    const boneRow = target?.closest<HTMLElement>('.bone-row');
    const meshRow = target?.closest<HTMLElement>('.mesh-row');
    const clipPicker = target?.closest<HTMLElement>('.clip-picker');
    let menu: ReturnType<typeof viewMenu> | null = null;
    if (boneRow?.dataset.bone !== undefined) {
      const bone = Number(boneRow.dataset.bone);
      menu = boneMenu(bone, { doc: this.host.store.doc, locked: this.host.paint.isLocked(bone) });
    } else if (meshRow?.dataset.index !== undefined) {
      const index = Number(meshRow.dataset.index);
      menu = meshRowMenu(index, this.host.meshes.list[index]?.name ?? '', this.host.meshes.hidden[index] ?? false);
    } else if (clipPicker) {
      const select = clipPicker.querySelector('select');
      menu = clipMenu(select?.selectedOptions[0]?.textContent ?? '', select && select.value !== '' ? Number(select.value) : -1);
    }
    if (!menu) return;
    event.preventDefault();
    this.menu.show(event.clientX, event.clientY, menu.title, menu.entries);
  }
}
