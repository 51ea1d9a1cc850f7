/**
 * The weight brush (P): paints the selected bone on the POSED surface. The point under the cursor comes from a ray
 * against a BVH over the CPU-posed positions (view/paint-surface.ts); a dab gathers the vertices within its world
 * radius (vertex grid) and keeps those the camera sees (a depth grid under the brush, brush-visibility.ts) unless
 * "through the mesh" is on; the paint controller edits them and records the stroke as one undo step.
 *
 * idle (hover: the ring follows the surface) → pointing (button down: a click on a joint picks its bone,
 * elsewhere lays one dab) → painting (dabs every `spacing` × radius along the drag) → idle. In gradient mode a drag
 * goes to gradient instead: from the surface point where the button went down (A) to the point under the pointer
 * (B), the selected bone's weights follow a gradient of the set value, redone at every move, one undo step on
 * release. F enters resizing (the cursor sits on the rim of the brush being resized: move, click or Enter
 * confirms, Esc cancels).
 */
import * as THREE from 'three';
import { gatherDab } from '../../../workers/paint/paint-dab.ts';
import { keepMasked } from '../../document/mesh-parts.ts';
import type { SceneStore } from '../../../workers/scene/scene-store.ts';
import { record, type PaintController } from '../../paint/paint-controller.ts';
import type { BrushRing } from '../../view/brush-ring.ts';
import { PaintSurface } from '../../view/paint-surface.ts';
import { CLICK_SLOP, Tool, type ToolPointer, type ToolState } from '../tool.ts';
import { BrushVisibility } from './brush-visibility.ts';

export interface BrushHost {
  readonly controller: PaintController;
  readonly store: SceneStore;
  readonly camera: THREE.PerspectiveCamera;
  readonly ring: BrushRing;
  /** #V × 3 the posed positions of the current weights and pose */
  posedPositions(): Float64Array;
  /**
   * posedPositions at some vertices only (first `count` of `vertices`) into `out` (count × 3), when the method
   * skins each vertex on its own; false, writing nothing, when only posedPositions can tell
   */
  posedPositionsAt(vertices: ArrayLike<number>, count: number, out: Float64Array): boolean;
  selectedBone(): number;
  selectBone(bone: number): void;
  /** the bone of the joint drawn under a page point, or -1 */
  jointBoneAt(clientX: number, clientY: number): number;
  redraw(): void;
  /** the brush became the active tool: the selected bone's weight heat map shows */
  showWeightMap(): void;
  /** #V 1 for each vertex the brush may paint (the active mesh, not hidden), or null for every vertex */
  vertexMask(): Uint8Array | null;
  /** #F × 3 the triangles shown (hidden meshes' ones degenerate): the ray hits and the camera sees only those */
  shownTriangles(): Uint32Array;
}

const ndc = new THREE.Vector2();
const raycaster = new THREE.Raycaster();
const scratch = new THREE.Vector3();
const plane = new THREE.Plane();

export class BrushTool extends Tool<'pointing' | 'painting' | 'gradient' | 'resizing'> {
  /** the last pointer position over the canvas, CSS px */
  readonly cursor = { x: 0, y: 0 };
  /** where the button went down, and the pressure of a pen */
  readonly downAt = { x: 0, y: 0 };
  pressure = 1;
  /** the last dab's canvas position along the drag */
  readonly last = { x: 0, y: 0 };
  /** the canvas size at the latest pointer event (read once per event: reading it per dab forced layouts) */
  private readonly canvasSize = { width: 1, height: 1 };
  private surface: PaintSurface | null = null;
  /** the triangles the surface was built with */
  private surfaceTriangles: Uint32Array | null = null;
  /** the pose or the weights' owner changed since the surface was built */
  private surfaceStale = true;
  private surfaceSession: object | null = null;
  private readonly visibility = new BrushVisibility();
  private unmatchedPending = false;
  /** the unmatched vertices shown, placed at the current pose (null: none, or the pose changed since) */
  private unmatchedShown: Uint32Array | null = null;
  private active = false;

  constructor(readonly host: BrushHost) {
    super('brush', {
      idle: new BrushIdle(() => this),
      pointing: new BrushPointing(() => this),
      painting: new BrushPainting(() => this),
      gradient: new BrushGradient(() => this),
      resizing: new BrushResizing(() => this),
    });
    host.store.subscribe((change) => {
      if (change.kind === 'document' && change.previous.mesh !== host.store.doc.mesh) {
        this.surface?.dispose();
        this.surface = null;
      }
      if (change.kind === 'document') this.surfaceStale = true;
    });
    // Placing the markers skins every vertex: only when the list changes, not on every change of the paint state.
    host.controller.onChange(() => {
      if (this.unmatchedList() !== this.unmatchedShown) this.placeUnmatched();
    });
  }

  get brush() {
    return this.host.controller.brush;
  }

  override activate(): void {
    this.active = true;
    const { controller, store } = this.host;
    controller.ensureSession();
    if (this.host.selectedBone() < 0 && store.doc.skeleton.parents.length > 0) this.host.selectBone(0);
    this.host.showWeightMap();
    this.placeUnmatched();
    this.host.redraw();
  }

  override deactivate(): void {
    this.active = false;
    this.host.ring.hide();
    this.placeUnmatched();
    this.host.redraw();
  }

  /** The pose or the skinning changed: the surface under the brush is rebuilt before the next stroke. */
  poseChanged(): void {
    this.surfaceStale = true;
    this.unmatchedShown = null;
    // Later, not here: the caller is still inside its pose update.
    if (this.host.ring.showingUnmatched && !this.unmatchedPending) {
      this.unmatchedPending = true;
      requestAnimationFrame(() => {
        this.unmatchedPending = false;
        this.placeUnmatched();
      });
    }
  }

  /** Shows the vertices without a mirror match (symmetry on, brush active) at their posed positions. */
  placeUnmatched(): void {
    const list = this.unmatchedList();
    this.unmatchedShown = list;
    this.host.ring.showUnmatched(list, () => this.host.posedPositions());
  }

  private unmatchedList(): Uint32Array | null {
    return (this.active ? this.host.controller.session?.symmetry?.map.unmatched : undefined) ?? null;
  }

  /** Remembers the canvas size and cursor of a pointer event. */
  track(pointer: ToolPointer): void {
    this.canvasSize.width = pointer.width;
    this.canvasSize.height = pointer.height;
    this.cursor.x = pointer.x;
    this.cursor.y = pointer.y;
  }

  /**
   * Brings the surface under the brush up to date (outside strokes: a stroke paints on the surface it began on):
   * built afresh after a pose change, else only the vertices whose weights changed since are re-skinned and moved.
   */
  updateSurface(): void {
    const { controller } = this.host;
    // The skinning reads the influences, which the flush brings up to date with the weights.
    controller.flush();
    const session = controller.ensureSession();
    const moved = session.takeMoved();
    if (this.surfaceSession !== session) {
      this.surfaceSession = session;
      this.surfaceStale = true;
    }
    const triangles = this.host.shownTriangles();
    if (this.surface && this.surfaceTriangles !== triangles) {
      this.surface.dispose();
      this.surface = null;
    }
    if (!this.surface) {
      this.surface = new PaintSurface(this.host.posedPositions(), triangles);
      this.surfaceTriangles = triangles;
    } else if (this.surfaceStale) {
      this.surface.setAll(this.host.posedPositions());
    } else if (moved.count > 0) {
      const next = new Float64Array(3 * moved.count);
      if (this.host.posedPositionsAt(moved.vertices, moved.count, next)) this.surface.move(moved.vertices, moved.count, next);
      else this.surface.setAll(this.host.posedPositions());
    } else {
      return;
    }
    this.surfaceStale = false;
    this.visibility.invalidate();
  }

  /** The surface positions the next stroke paints on (#V × 3), brought up to date as the cursor's next move does. */
  surfacePositions(): Float64Array {
    this.updateSurface();
    return this.surface!.positions;
  }

  private hit(x: number, y: number): THREE.Intersection | null {
    if (!this.surface) return null;
    ndc.set((x / this.canvasSize.width) * 2 - 1, 1 - (y / this.canvasSize.height) * 2);
    raycaster.setFromCamera(ndc, this.host.camera);
    return this.surface.raycastFirst(raycaster.ray);
  }

  /** World radius of the brush at a point `distance` from the camera. */
  private worldRadius(distance: number): number {
    return (this.brush.radius * 2 * distance * Math.tan((this.host.camera.fov * Math.PI) / 360)) / this.canvasSize.height;
  }

  /** One dab at a canvas point; returns the sampled weight (NaN when the brush misses the mesh). */
  dabAt(x: number, y: number, bone: number): number {
    const start = performance.now();
    const hit = this.hit(x, y);
    const surface = this.surface;
    if (!hit || !surface) return NaN;
    const { controller } = this.host;
    const c = hit.point;
    const brush = this.brush;
    const dab = {
      centre: [c.x, c.y, c.z],
      radius: this.worldRadius(hit.distance),
      strength: brush.strength * this.pressure,
      falloff: brush.falloff,
      // A gradient is dragged, never dabbed (BrushGradient): a click in gradient mode samples nothing and changes nothing.
      mode: brush.mode === 'gradient' ? ('sample' as const) : brush.mode,
      value: brush.value,
    };
    const context = controller.ensureSession().context;
    context.grid = surface.grid;
    gatherDab(context, dab);
    // The mirrored dab keeps to the same meshes (paintGathered reads the mask).
    const mask = this.host.vertexMask();
    context.vertexMask = mask;
    if (mask) context.count = keepMasked(mask, context.indices, context.distances, context.count);
    if (!brush.throughMesh) this.keepVisible(x, y, hit.distance, dab.radius);
    const value = controller.dab(bone, dab);
    record(controller.times.dabs, performance.now() - start);
    return value;
  }

  /** Keeps the gathered vertices the camera sees (BrushVisibility: a depth grid under the brush). */
  private keepVisible(x: number, y: number, hitDistance: number, radius: number): void {
    const context = this.host.controller.ensureSession().context;
    const camera = this.host.camera;
    // The camera-space depth of the hit: its distance along the ray, projected on the view axis.
    const cosine = raycaster.ray.direction.dot(camera.getWorldDirection(scratch));
    const surface = this.surface!;
    context.count = this.visibility.filter(
      surface.bvh,
      surface.positions,
      camera,
      {
        x,
        y,
        radius: this.brush.radius,
        width: this.canvasSize.width,
        height: this.canvasSize.height,
        maxDepth: hitDistance * cosine + radius,
        reach: radius,
        tolerance: Math.max(0.004 * this.host.store.doc.diagonal, 0.1 * radius),
      },
      context.indices,
      context.distances,
      context.count,
    );
  }

  /**
   * Where a gradient drag starts: the surface point under a canvas point and the brush's world radius there (how far
   * from the segment it reaches), or null off the mesh.
   */
  gradientStart(x: number, y: number): { point: THREE.Vector3; radius: number } | null {
    this.updateSurface();
    const hit = this.hit(x, y);
    return hit && { point: hit.point.clone(), radius: this.worldRadius(hit.distance) };
  }

  /**
   * Lays the gradient from `start` to the point under the canvas point: on the surface where the pointer is over
   * it, else on the plane through the start facing the camera (the drag may end off the mesh). Where there is no
   * end (the pointer back on A, or the plane missed) there is no gradient: the open stroke's last one goes back, so
   * a release there commits nothing.
   * @returns the number of vertices it reached
   */
  gradientTo(bone: number, start: { point: THREE.Vector3; radius: number }, x: number, y: number): number {
    const hit = this.hit(x, y);
    let end: THREE.Vector3 | null = hit ? hit.point : null;
    if (!end) {
      ndc.set((x / this.canvasSize.width) * 2 - 1, 1 - (y / this.canvasSize.height) * 2);
      raycaster.setFromCamera(ndc, this.host.camera);
      plane.setFromNormalAndCoplanarPoint(this.host.camera.getWorldDirection(scratch), start.point);
      end = raycaster.ray.intersectPlane(plane, scratch);
    }
    const { controller } = this.host;
    if (!end || end.distanceTo(start.point) === 0) {
      controller.cancelStroke();
      return 0;
    }
    const context = controller.ensureSession().context;
    context.grid = this.surface!.grid;
    context.vertexMask = this.host.vertexMask();
    const brush = this.brush;
    return controller.gradient(bone, {
      start: start.point.toArray(),
      end: end.toArray(),
      radius: start.radius,
      value: brush.value,
      strength: brush.strength,
      falloff: brush.falloff,
    });
  }

  /** Opens the stroke and lays the first dab where the pointer went down. */
  openStroke(bone: number): void {
    this.updateSurface();
    this.host.controller.beginStroke();
    this.last.x = this.downAt.x;
    this.last.y = this.downAt.y;
    this.dabAt(this.downAt.x, this.downAt.y, bone);
  }

  /** Release of a stroke or a gradient: back to idle, the open stroke made one undo step. */
  closeStroke(): void {
    this.transition('idle');
    this.host.controller.endStroke();
  }

  /** Escape during a stroke or a gradient: what it painted is taken back. */
  dropStroke(): void {
    this.host.controller.cancelStroke();
    this.transition('idle');
  }

  /** The ring at a canvas point on the surface, or hidden off it. */
  updateRing(x: number, y: number): void {
    const hit = this.hit(x, y);
    if (hit) {
      const normal = hit.face ? scratch.copy(hit.face.normal) : scratch.set(0, 0, 1);
      this.host.ring.place(
        hit.point,
        normal,
        raycaster.ray.direction,
        this.worldRadius(hit.distance),
        this.brush.falloff,
        0.001 * this.host.store.doc.diagonal,
      );
    } else {
      this.host.ring.hide();
    }
    this.host.redraw();
  }

  /** While the cursor rests: the surface catches up and the ring follows (timed for the bench). */
  hover(pointer: ToolPointer): void {
    const start = performance.now();
    this.updateSurface();
    this.updateRing(pointer.x, pointer.y);
    record(this.host.controller.times.hovers, performance.now() - start);
  }
}

/** Hovering: the ring follows the surface. A left press starts pointing; in sample mode it picks up the weight under it. */
class BrushIdle implements ToolState {
  readonly name = 'idle';

  constructor(private readonly tool: () => BrushTool) {}

  onPointerDown(pointer: ToolPointer): boolean {
    if (pointer.button !== 0) return false;
    const tool = this.tool();
    tool.track(pointer);
    tool.pressure = pointer.pointerType === 'pen' && pointer.pressure > 0 ? pointer.pressure : 1;
    tool.downAt.x = pointer.x;
    tool.downAt.y = pointer.y;
    const brush = tool.brush;
    const bone = tool.host.selectedBone();
    if (brush.mode === 'sample') {
      if (bone < 0) return true;
      tool.updateSurface();
      const value = tool.dabAt(pointer.x, pointer.y, bone);
      if (!Number.isNaN(value)) brush.value = Math.round(value * 1000) / 1000;
      brush.mode = 'set';
      tool.host.controller.changed();
      return true;
    }
    tool.transition('pointing');
    return true;
  }

  onPointerMove(pointer: ToolPointer): void {
    const tool = this.tool();
    tool.track(pointer);
    if (pointer.buttons === 0) tool.hover(pointer);
  }
}

/**
 * The button is down and has not moved far: a release here is a click (on a joint it picks the joint's bone,
 * elsewhere it lays one dab); moving past a few pixels opens the stroke.
 */
class BrushPointing implements ToolState {
  readonly name = 'pointing';

  constructor(private readonly tool: () => BrushTool) {}

  onPointerMove(pointer: ToolPointer): void {
    const tool = this.tool();
    tool.track(pointer);
    if (Math.hypot(pointer.x - tool.downAt.x, pointer.y - tool.downAt.y) < CLICK_SLOP) return;
    const bone = tool.host.selectedBone();
    if (bone < 0) return;
    if (tool.brush.mode === 'gradient') {
      tool.transition('gradient');
      tool.current.onPointerMove?.(pointer);
      return;
    }
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
    if (bone < 0 || tool.brush.mode === 'gradient') return;
    tool.openStroke(bone);
    tool.host.controller.endStroke();
  }

  /** Nothing was painted yet. */
  onCancel(): void {
    this.tool().transition('idle');
  }
}

/** A stroke: a dab every `spacing` × radius along the drag; release makes it one undo step, Escape takes it back. */
class BrushPainting implements ToolState {
  readonly name = 'painting';

  constructor(private readonly tool: () => BrushTool) {}

  onPointerMove(pointer: ToolPointer): void {
    const tool = this.tool();
    tool.track(pointer);
    if (pointer.pointerType === 'pen' && pointer.pressure > 0) tool.pressure = pointer.pressure;
    const bone = tool.host.selectedBone();
    const brush = tool.brush;
    const step = Math.max(1, brush.spacing * brush.radius);
    const last = tool.last;
    let length = Math.hypot(pointer.x - last.x, pointer.y - last.y);
    while (length >= step) {
      const t = step / length;
      last.x += t * (pointer.x - last.x);
      last.y += t * (pointer.y - last.y);
      tool.dabAt(last.x, last.y, bone);
      length -= step;
    }
    tool.updateRing(pointer.x, pointer.y);
  }

  onPointerUp(): void {
    this.tool().closeStroke();
  }

  onCancel(): void {
    this.tool().dropStroke();
  }
}

/**
 * A gradient drag: from where the button went down (A) to the pointer (B), laid again at every move (the open
 * stroke holds the latest one); release makes it one undo step ("Gradient"), Escape takes it back. A press off the
 * mesh takes as A the first point of the drag over the mesh.
 */
class BrushGradient implements ToolState {
  readonly name = 'gradient';
  private start: { point: THREE.Vector3; radius: number } | null = null;

  constructor(private readonly tool: () => BrushTool) {}

  onEnter(): void {
    const tool = this.tool();
    this.start = tool.gradientStart(tool.downAt.x, tool.downAt.y);
  }

  onPointerMove(pointer: ToolPointer): void {
    const tool = this.tool();
    tool.track(pointer);
    const bone = tool.host.selectedBone();
    // A press off the mesh: the gradient starts where the drag first reaches it.
    this.start ??= tool.gradientStart(pointer.x, pointer.y);
    if (this.start && bone >= 0) tool.gradientTo(bone, this.start, pointer.x, pointer.y);
    tool.updateRing(pointer.x, pointer.y);
  }

  onPointerUp(): void {
    this.tool().closeStroke();
  }

  onCancel(): void {
    this.tool().dropStroke();
  }
}

/** Smallest and largest brush radius, CSS px. */
const RADIUS_RANGE = [2, 400] as const;

/**
 * Resizing the brush (Blender's radial control): the cursor sits on the rim of the ring, whose centre stays put;
 * moving sets the radius, a left click or Enter confirms, another button or Escape puts the old radius back.
 */
class BrushResizing implements ToolState {
  readonly name = 'resizing';
  private readonly centre = { x: 0, y: 0 };
  private from = 0;

  constructor(private readonly tool: () => BrushTool) {}

  onEnter(): void {
    const tool = this.tool();
    this.from = tool.brush.radius;
    this.centre.x = tool.cursor.x - tool.brush.radius;
    this.centre.y = tool.cursor.y;
    tool.host.controller.changed();
  }

  onExit(): void {
    this.tool().host.controller.changed();
  }

  onPointerMove(pointer: ToolPointer): void {
    const tool = this.tool();
    tool.track(pointer);
    tool.brush.radius = Math.max(
      RADIUS_RANGE[0],
      Math.min(RADIUS_RANGE[1], Math.hypot(pointer.x - this.centre.x, pointer.y - this.centre.y)),
    );
    tool.updateRing(this.centre.x, this.centre.y);
    tool.host.controller.changed();
  }

  onPointerDown(pointer: ToolPointer): boolean {
    if (pointer.button !== 0) this.tool().brush.radius = this.from;
    this.tool().transition('idle');
    return true;
  }

  onConfirm(): void {
    this.tool().transition('idle');
  }

  onCancel(): void {
    const tool = this.tool();
    tool.brush.radius = this.from;
    tool.transition('idle');
  }
}
