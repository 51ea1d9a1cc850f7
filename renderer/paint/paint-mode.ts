/**
 * Weight paint mode (P): a brush tool (idle → stroking → idle; Escape during a stroke restores the weights; F + drag
 * resizes the brush) painting the selected bone on the POSED surface. The point under the cursor comes from a ray
 * against a three-mesh-bvh BVH over the CPU-posed positions; the brush gathers the vertices within its world radius
 * (vertex grid) and keeps those the camera sees (a depth grid rasterized under the brush, BrushVisibility) unless
 * "through the mesh" is on. Edits go through PaintSession (workers/paint core, invariants after every dab, undo per
 * stroke); once per animation frame the touched vertices' influences are re-packed into their influence texture
 * rows and the heat map's attribute range is refreshed.
 */
import '../panels/paint-panel.css';
import * as THREE from 'three';
import { writeInfluenceRow, type Influences } from '../../workers/skinning/influences.ts';
import type { BrushFalloff } from '../../workers/paint/brush-falloff.ts';
import type { DabMode } from '../../workers/paint/apply-dab.ts';
import { gatherDab } from '../../workers/paint/paint-dab.ts';
import { PaintSession } from './paint-session.ts';
import { BindingClient } from '../io/binding-client.ts';
import type { MirrorVertexMap } from '../../workers/paint/mirror-vertex-map.ts';
import { BrushVisibility } from '../tools/brush/brush-visibility.ts';
import { PaintSurface } from '../view/paint-surface.ts';
import type { SceneDocument } from '../document/scene-document.ts';
import type { SkinnedMeshView } from '../view/skinned-mesh.ts';
import type { WeightView } from '../view/weight-view.ts';
import { toolButton } from '../panels/app-chrome.ts';

export interface BrushSettings {
  mode: DabMode;
  /** CSS pixels */
  radius: number;
  strength: number;
  falloff: BrushFalloff;
  /** 'set' target */
  value: number;
  /** dab spacing as a fraction of the radius */
  spacing: number;
  throughMesh: boolean;
}

export const BRUSH_DEFAULTS: BrushSettings = { mode: 'add', radius: 40, strength: 0.3, falloff: 'smooth', value: 1, spacing: 0.25, throughMesh: false };

export interface PaintHost {
  container: HTMLElement;
  canvas: HTMLCanvasElement;
  camera: THREE.PerspectiveCamera;
  scene: THREE.Scene;
  document(): SceneDocument;
  skinned(): SkinnedMeshView;
  influences(): Influences;
  /** replaces the influences with ones of at least `stride` slots (full upload) */
  padInfluences(stride: number): void;
  posedPositions(): Float64Array;
  /**
   * posedPositions at some vertices only (first `count` of `vertices`) into `out` (count × 3), when the method
   * skins each vertex on its own; false, writing nothing, when only posedPositions can tell
   */
  posedPositionsAt(vertices: ArrayLike<number>, count: number, out: Float64Array): boolean;
  weightView(): WeightView | null;
  selectedBone(): number;
  selectBone(bone: number): void;
  /** the viewport must redraw */
  redraw(): void;
  /** weights changed during a stroke: the viewport must redraw (and the CPU-side products of the weights refresh) */
  weightsChanged(): void;
  /** a stroke or command ended, or was undone: whatever is too costly to refresh during a stroke refreshes now */
  weightsSettled(): void;
  jointBoneAt(x: number, y: number): number;
  /** a stroke or command was completed, undone or redone */
  historyChanged(): void;
  /** shows the selected bone's weight heat map */
  showWeightMap(): void;
}

export type PaintState = 'off' | 'idle' | 'stroking' | 'resizing';

/** `window.__rigwright.paint` (renderer/test-hook.ts). */
export interface PaintTestHook {
  setPaintMode(on: boolean): void;
  setBrush(settings: Partial<BrushSettings>): void;
  /** symmetry plane axis = 0 (0 = x), or off; resolves once the mirror match (worker) is in use */
  setSymmetry(axis: 0 | 1 | 2 | null): Promise<void>;
  /** the running mirror match: its axis and the fraction done, or null */
  matching(): { axis: number; fraction: number } | null;
  cancelMatching(): void;
  setLocked(bone: number, locked: boolean): void;
  selectBone(bone: number): void;
  state(): { state: PaintState; brush: BrushSettings; undoSteps: number; redoSteps: number; bonePairs: number[] | null; unmatched: number };
  /** the document's #V × #B row-major weights, after pending edits */
  weightsSnapshot(): number[];
  /** the last stroke's dab centres on the posed surface, x y z … (world units) */
  strokeWorldPositions(): number[];
  /** #V × 3 the posed positions of the current weights and pose, skinned afresh */
  posedPositions(): number[];
  /** #V × 3 the surface the next stroke paints on, brought up to date as the cursor's next move over it does */
  surfacePositions(): number[];
  /** the camera's world position */
  cameraPosition(): number[];
  undo(): void;
  redo(): void;
  /**
   * Durations (ms) of the latest dabs (pick on the posed surface, gather, visibility, paint, invariants, undo record),
   * flushes (influence rows re-packed, texture rows and heat-map blocks queued) and cursor moves outside strokes
   * (surface brought up to date, ring placed), oldest first; reading clears them.
   */
  takeTimes(): { dabs: number[]; flushes: number[]; hovers: number[] };
  command(name: 'normalize' | 'limit' | 'prune' | 'smooth' | 'mirror+' | 'mirror-', threshold?: number, axis?: 0 | 1 | 2): Promise<void>;
}

const ndc = new THREE.Vector2();
const raycaster = new THREE.Raycaster();
const scratch = new THREE.Vector3();
const zAxis = new THREE.Vector3(0, 0, 1);

const RING_VERTEX = `varying vec2 vUv; void main() { vUv = uv * 2.0 - 1.0; gl_Position = projectionMatrix * modelViewMatrix * vec4(position, 1.0); }`;
const RING_FRAGMENT = `uniform int falloff; varying vec2 vUv;
void main() {
  float t = length(vUv);
  if (t > 1.0) discard;
  float f = falloff == 0 ? 1.0 - t * t * (3.0 - 2.0 * t) : falloff == 1 ? 1.0 - t : 1.0;
  float rim = smoothstep(0.93, 0.97, t);
  gl_FragColor = vec4(mix(vec3(1.0, 0.62, 0.2), vec3(1.0), rim), 0.28 * f + 0.9 * rim);
}`;

export class PaintMode {
  state: PaintState = 'off';
  readonly brush: BrushSettings = { ...BRUSH_DEFAULTS };
  session: PaintSession | null = null;
  /** world positions of the last stroke's dabs (x y z …) */
  lastStroke: number[] = [];
  /** the posed surface the brush paints on; kept through a stroke, brought up to date before the next one */
  private surface: PaintSurface | null = null;
  /** the pose changed since the surface was built */
  private surfaceStale = true;
  private pointerId = -1;
  private last = { x: 0, y: 0 };
  private pressure = 1;
  private downAt = { x: 0, y: 0 };
  private resizeCentre = { x: 0, y: 0 };
  private resizeFrom = 0;
  private cursor = { x: 0, y: 0 };
  private framePending = false;
  private readonly ring: THREE.Mesh<THREE.CircleGeometry, THREE.ShaderMaterial>;
  /** symmetry on: the vertices that found no mirror match, as points on the posed surface */
  private readonly unmatched: THREE.Points<THREE.BufferGeometry, THREE.PointsMaterial>;
  /** the last TIMES_KEPT dabs', flushes' and cursor moves' durations, ms (cost of the brush per dab and per frame) */
  private readonly dabTimes: number[] = [];
  private readonly flushTimes: number[] = [];
  private readonly hoverTimes: number[] = [];
  private unmatchedPending = false;
  private readonly visibility = new BrushVisibility();
  /** stroking: whether the undo step is open (the pointer moved past CLICK_SLOP, or was released) */
  private strokeOpen = false;
  /** the canvas's client rectangle at the latest pointer event (see local) */
  private canvasRect: DOMRect = new DOMRect();
  /** mirror matching runs in its own worker, so a bind in progress never waits on it (and vice versa) */
  private matcher: BindingClient | null = null;
  private matchJob: { axis: 0 | 1 | 2; positions: Float64Array; fraction: number; result: Promise<MirrorVertexMap | null> } | null = null;
  /** mirror matches of the rest mesh `positions`, by axis; the sessions of that mesh share `maps` */
  private mirrorCache: { positions: Float64Array; maps: (MirrorVertexMap | undefined)[] } | null = null;
  /** the symmetry the user asked for (the select shows it while its match is computed) */
  private wantedSymmetry: 0 | 1 | 2 | null = null;
  private matchingRow!: HTMLElement;
  private matchingBar!: HTMLProgressElement;
  private matchingText!: HTMLElement;
  private symmetrySelect!: HTMLSelectElement;
  private readonly panel: HTMLElement;
  private readonly boneList: HTMLElement;
  private readonly toggle: HTMLButtonElement;
  private readonly info: HTMLElement;

  constructor(private readonly host: PaintHost) {
    this.ring = new THREE.Mesh(
      new THREE.CircleGeometry(1, 64),
      new THREE.ShaderMaterial({ uniforms: { falloff: { value: 0 } }, vertexShader: RING_VERTEX, fragmentShader: RING_FRAGMENT, transparent: true, depthTest: false, depthWrite: false, side: THREE.DoubleSide }),
    );
    this.ring.renderOrder = 10;
    this.ring.visible = false;
    this.ring.frustumCulled = false;
    host.scene.add(this.ring);
    this.unmatched = new THREE.Points(
      new THREE.BufferGeometry(),
      new THREE.PointsMaterial({ color: 0xff2bd6, size: 5, sizeAttenuation: false, depthTest: false, transparent: true, opacity: 0.9 }),
    );
    this.unmatched.renderOrder = 9;
    this.unmatched.frustumCulled = false;
    this.unmatched.visible = false;
    host.scene.add(this.unmatched);

    const toolbar = document.getElementById('toolbar');
    this.toggle = toolButton(null, 'Paint', 'Weight paint mode (P)', () => this.setOn(this.state === 'off'));
    toolbar?.insertBefore(this.toggle, toolbar.querySelector('.scene-name'));

    this.panel = document.createElement('aside');
    this.panel.className = 'bind-panel paint-panel';
    this.panel.id = 'paint-panel';
    this.panel.hidden = true;
    const header = document.createElement('header');
    header.className = 'bind-header';
    const title = document.createElement('h2');
    title.textContent = 'Weight paint';
    header.append(title);
    toolButton(header, '×', 'Leave paint mode (P)', () => this.setOn(false), 'icon-button');
    this.panel.append(header);
    this.panel.append(this.buildBrushSection(), this.buildCommandSection());
    const bones = this.section('Bones (click a name to paint it)');
    this.boneList = document.createElement('div');
    this.boneList.className = 'paint-bones';
    bones.append(this.boneList);
    this.info = document.createElement('p');
    this.info.className = 'dim';
    this.panel.append(bones, this.info);
    host.container.append(this.panel);

    host.container.addEventListener('pointerdown', this.down, { capture: true });
    host.container.addEventListener('pointermove', this.move, { capture: true });
    host.container.addEventListener('pointerup', this.up, { capture: true });
    window.addEventListener('keydown', this.key, { capture: true });
  }

  /** After every document swap: a new document's weights start a new session (and history). */
  attach(): void {
    const doc = this.host.document();
    if (this.session && this.session.dense === doc.weights) return;
    if (this.state === 'stroking' || this.state === 'resizing') {
      this.releasePointer();
      this.strokeOpen = false;
      this.state = 'idle';
    }
    this.session = null;
    this.surfaceStale = true;
    this.surface?.dispose();
    this.surface = null;
    if (this.matchJob && this.matchJob.positions !== doc.mesh.positions) this.cancelMatching();
    if (this.state !== 'off') this.ensureSession();
    this.placeUnmatched();
    this.refresh();
    // New weights on the same mesh keep the symmetry asked for (its match is cached); a new mesh matches anew.
    if (this.wantedSymmetry !== null) void this.setSymmetry(this.wantedSymmetry);
  }

  /**
   * The pose or the skinning changed (not the weights: the surface follows those itself): the surface under the
   * brush is rebuilt before the next stroke.
   */
  poseChanged(): void {
    this.surfaceStale = true;
    // Later, not here: the host is still inside its pose update.
    if (this.unmatched.visible && !this.unmatchedPending) {
      this.unmatchedPending = true;
      requestAnimationFrame(() => {
        this.unmatchedPending = false;
        this.placeUnmatched();
      });
    }
  }

  /** Shows the vertices without a mirror match (symmetry on, paint mode on) at their posed positions. */
  private placeUnmatched(): void {
    const list = this.state !== 'off' ? this.session?.symmetry?.map.unmatched : undefined;
    this.unmatched.visible = !!list && list.length > 0;
    if (!list || list.length === 0) return;
    const posed = this.host.posedPositions();
    const geometry = this.unmatched.geometry;
    let attribute = geometry.getAttribute('position') as THREE.BufferAttribute | undefined;
    if (!attribute || attribute.count !== list.length) {
      attribute = new THREE.BufferAttribute(new Float32Array(3 * list.length), 3);
      geometry.setAttribute('position', attribute);
    }
    const out = attribute.array as Float32Array;
    for (let i = 0; i < list.length; i++) {
      const v = list[i];
      out[3 * i] = posed[3 * v];
      out[3 * i + 1] = posed[3 * v + 1];
      out[3 * i + 2] = posed[3 * v + 2];
    }
    attribute.needsUpdate = true;
  }

  setOn(on: boolean): void {
    if (!on && this.state === 'stroking') this.cancelStroke();
    this.state = on ? 'idle' : 'off';
    this.panel.hidden = !on;
    this.toggle.setAttribute('aria-pressed', String(on));
    this.ring.visible = false;
    if (on) {
      this.ensureSession();
      if (this.host.selectedBone() < 0 && this.host.document().skeleton.parents.length > 0) this.host.selectBone(0);
      this.host.showWeightMap();
    }
    this.placeUnmatched();
    this.refresh();
    this.host.redraw();
  }

  /**
   * Symmetry across the plane axis = 0, or off. A new axis is matched first (mirrorMapFor: in a worker, with
   * progress and cancel); painting goes on meanwhile with the symmetry in use before.
   * @returns once the symmetry asked for is in use, or the match was cancelled or superseded
   */
  async setSymmetry(axis: 0 | 1 | 2 | null): Promise<void> {
    this.wantedSymmetry = axis;
    this.refresh();
    const session = this.ensureSession();
    if (axis !== null && !session.mirrorMap(axis)) {
      const map = await this.mirrorMapFor(axis);
      if (!map || this.wantedSymmetry !== axis || this.session !== session) {
        if (this.wantedSymmetry === axis) this.wantedSymmetry = session.symmetry?.axis ?? null;
        this.refresh();
        return;
      }
    }
    session.setSymmetry(axis);
    this.placeUnmatched();
    this.refresh();
    this.host.redraw();
  }

  /**
   * The mirror match of the current rest mesh across axis = 0: known, or computed in the worker with its progress
   * in the panel (one match at a time; asking for another axis cancels the running one).
   * @returns the match, or null when cancelled or failed (a failure is shown in the panel)
   */
  private mirrorMapFor(axis: 0 | 1 | 2): Promise<MirrorVertexMap | null> {
    const session = this.ensureSession();
    const known = session.mirrorMap(axis);
    if (known) return Promise.resolve(known);
    const positions = this.host.document().mesh.positions;
    if (this.matchJob && this.matchJob.axis === axis && this.matchJob.positions === positions) return this.matchJob.result;
    this.cancelMatching();
    this.matcher ??= new BindingClient();
    const job = { axis, positions, fraction: 0, result: Promise.resolve<MirrorVertexMap | null>(null) };
    job.result = this.matcher
      .mirrorVertexMap(positions, this.host.document().mesh.triangles, axis, session.mirrorTolerance, (fraction) => {
        job.fraction = fraction;
        if (this.matchJob === job) this.showMatching();
      })
      .then(
        (map) => {
          // The sessions of this mesh share mirrorCache.maps; a match for a mesh since replaced is dropped.
          if (this.mirrorCache?.positions === positions) this.mirrorCache.maps[axis] = map;
          return map;
        },
        (error: unknown) => {
          if (!(error instanceof DOMException && error.name === 'AbortError')) this.info.textContent = `Mirror matching failed: ${error instanceof Error ? error.message : String(error)}`;
          return null;
        },
      )
      .finally(() => {
        if (this.matchJob === job) this.matchJob = null;
        this.showMatching();
      });
    this.matchJob = job;
    this.showMatching();
    return job.result;
  }

  /** Stops a running mirror match; the symmetry in use stays. */
  cancelMatching(): void {
    if (!this.matchJob) return;
    this.matchJob = null;
    this.matcher?.cancel();
    this.showMatching();
  }

  private showMatching(): void {
    const job = this.matchJob;
    this.matchingRow.hidden = !job;
    if (!job) return;
    this.matchingText.textContent = `Matching mirror vertices across ${'xyz'[job.axis]} = 0… ${Math.round(100 * job.fraction)}%`;
    this.matchingBar.value = job.fraction;
  }

  private ensureSession(): PaintSession {
    if (!this.session) {
      const doc = this.host.document();
      if (this.mirrorCache?.positions !== doc.mesh.positions) this.mirrorCache = { positions: doc.mesh.positions, maps: [] };
      this.session = new PaintSession(doc.weights, doc.mesh.positions, doc.mesh.triangles, doc.skeleton, doc.boneNames ?? null, doc.diagonal, this.mirrorCache.maps);
      this.queueFlush();
    }
    return this.session;
  }

  /** Whether the weights carry painted strokes or commands (that are not undone). */
  get painted(): boolean {
    return (this.session?.history.undoStack.length ?? 0) > 0;
  }

  undo(): void {
    if (this.state !== 'stroking' && this.session?.undo()) this.edited();
  }

  redo(): void {
    if (this.state !== 'stroking' && this.session?.redo()) this.edited();
  }

  private edited(): void {
    // Now, not at the next frame: what refreshes on weightsSettled reads the influences the flush brings up to date.
    this.flush();
    this.host.weightsSettled();
    this.refreshInfo();
    this.host.historyChanged();
  }

  /**
   * Whole-mesh commands; mirroring goes across `axis`, by default the symmetry axis (x when symmetry is off), once
   * that axis's mirror match is known.
   */
  async run(command: 'normalize' | 'limit' | 'prune' | 'smooth' | 'mirror+' | 'mirror-', threshold = 0.01, axis: 0 | 1 | 2 = this.session?.symmetry?.axis ?? 0): Promise<void> {
    let session = this.ensureSession();
    if (command === 'mirror+' || command === 'mirror-') {
      if (!(await this.mirrorMapFor(axis)) || this.session !== session) return;
      session = this.ensureSession();
    }
    if (this.state === 'stroking') return;
    if (command === 'normalize') session.normalizeAll();
    else if (command === 'limit') session.limitTotal();
    else if (command === 'prune') session.prune(threshold);
    else if (command === 'smooth' && this.host.selectedBone() >= 0) session.smoothBone(this.host.selectedBone());
    else if (command === 'mirror+' || command === 'mirror-') session.mirror(axis, command === 'mirror+' ? 1 : -1);
    this.edited();
  }

  testHook(): PaintTestHook {
    return {
      setPaintMode: (on) => this.setOn(on),
      setBrush: (settings) => {
        Object.assign(this.brush, settings);
        this.refresh();
      },
      setSymmetry: (axis) => this.setSymmetry(axis),
      matching: () => (this.matchJob ? { axis: this.matchJob.axis, fraction: this.matchJob.fraction } : null),
      cancelMatching: () => this.cancelMatching(),
      selectBone: (bone) => this.host.selectBone(bone),
      setLocked: (bone, locked) => {
        this.ensureSession().settings.locked[bone] = locked ? 1 : 0;
        this.refresh();
      },
      state: () => ({
        state: this.state,
        brush: { ...this.brush },
        undoSteps: this.session?.history.undoStack.length ?? 0,
        redoSteps: this.session?.history.redoStack.length ?? 0,
        bonePairs: this.session?.symmetry ? Array.from(this.session.symmetry.bonePairs) : null,
        unmatched: this.session?.symmetry ? this.session.symmetry.map.unmatched.length : 0,
      }),
      weightsSnapshot: () => {
        this.flush();
        this.commitWeights();
        return Array.from(this.host.document().weights.data);
      },
      strokeWorldPositions: () => this.lastStroke.slice(),
      posedPositions: () => {
        this.flush();
        return Array.from(this.host.posedPositions());
      },
      surfacePositions: () => {
        this.updateSurface();
        return Array.from(this.surface!.positions);
      },
      cameraPosition: () => this.host.camera.position.toArray(),
      undo: () => this.undo(),
      redo: () => this.redo(),
      takeTimes: () => ({ dabs: this.dabTimes.splice(0), flushes: this.flushTimes.splice(0), hovers: this.hoverTimes.splice(0) }),
      command: (name, threshold, axis) => this.run(name, threshold, axis),
    };
  }

  // --- pointer and keys -------------------------------------------------------------------------------------

  /**
   * The event's canvas coordinates. The canvas rectangle is read here, once per pointer event, and kept for the
   * dabs and the ring that event lays (reading it per dab forced a layout each time the panel's text had changed).
   */
  private local(event: { clientX: number; clientY: number }): [number, number] {
    this.canvasRect = this.host.canvas.getBoundingClientRect();
    return [event.clientX - this.canvasRect.left, event.clientY - this.canvasRect.top];
  }

  private readonly down = (event: PointerEvent): void => {
    if (this.state === 'off' || event.target !== this.host.canvas) return;
    if (this.state === 'resizing') {
      event.stopPropagation();
      event.preventDefault();
      if (event.button !== 0) this.brush.radius = this.resizeFrom;
      this.state = 'idle';
      this.refresh();
      return;
    }
    if (event.button !== 0 || this.state !== 'idle') return;
    event.stopPropagation();
    event.preventDefault();
    const [x, y] = this.local(event);
    this.pressure = event.pointerType === 'pen' && event.pressure > 0 ? event.pressure : 1;
    this.downAt = { x, y };
    const bone = this.host.selectedBone();
    if (bone < 0) return;
    this.ensureSession();
    if (this.brush.mode === 'sample') {
      this.updateSurface();
      const value = this.dabAt(x, y, bone);
      if (!Number.isNaN(value)) this.brush.value = Math.round(value * 1000) / 1000;
      this.brush.mode = 'set';
      this.refresh();
      return;
    }
    // The stroke opens on the first move past a few pixels, or on release: a click on a joint picks its bone.
    this.strokeOpen = false;
    this.state = 'stroking';
    this.lastStroke = [];
    this.pointerId = event.pointerId;
    this.host.canvas.setPointerCapture(event.pointerId);
    this.last = { x, y };
  };

  /** Opens the undo step and lays the first dab where the pointer went down. */
  private openStroke(bone: number): void {
    this.updateSurface();
    this.session!.beginStroke();
    this.strokeOpen = true;
    this.dabAt(this.downAt.x, this.downAt.y, bone);
  }

  private readonly move = (event: PointerEvent): void => {
    if (this.state === 'off') return;
    const [x, y] = this.local(event);
    this.cursor = { x, y };
    if (this.state === 'resizing') {
      this.brush.radius = Math.max(2, Math.min(400, Math.hypot(x - this.resizeCentre.x, y - this.resizeCentre.y)));
      this.updateRing(this.resizeCentre.x, this.resizeCentre.y);
      this.refreshInfo();
      return;
    }
    if (this.state === 'idle') {
      if (event.buttons === 0) {
        const start = performance.now();
        this.updateSurface();
        this.updateRing(x, y);
        record(this.hoverTimes, performance.now() - start);
      }
      return;
    }
    if (event.pointerId !== this.pointerId) return;
    event.stopPropagation();
    if (event.pointerType === 'pen' && event.pressure > 0) this.pressure = event.pressure;
    const bone = this.host.selectedBone();
    if (!this.strokeOpen) {
      if (Math.hypot(x - this.downAt.x, y - this.downAt.y) < CLICK_SLOP) return;
      this.openStroke(bone);
    }
    const step = Math.max(1, this.brush.spacing * this.brush.radius);
    let length = Math.hypot(x - this.last.x, y - this.last.y);
    while (length >= step) {
      const t = step / length;
      this.last = { x: this.last.x + t * (x - this.last.x), y: this.last.y + t * (y - this.last.y) };
      this.dabAt(this.last.x, this.last.y, bone);
      length -= step;
    }
    this.updateRing(x, y);
  };

  private readonly up = (event: PointerEvent): void => {
    if (this.state !== 'stroking' || event.pointerId !== this.pointerId) return;
    event.stopPropagation();
    if (!this.strokeOpen) {
      // A click (no drag): on a joint it picks the joint's bone, elsewhere it is a one-dab stroke.
      const joint = this.host.jointBoneAt(event.clientX, event.clientY);
      if (joint >= 0) {
        this.releasePointer();
        this.state = 'idle';
        this.host.selectBone(joint);
        return;
      }
      this.openStroke(this.host.selectedBone());
    }
    this.finishStroke();
  };

  private releasePointer(): void {
    if (this.host.canvas.hasPointerCapture(this.pointerId)) this.host.canvas.releasePointerCapture(this.pointerId);
    this.pointerId = -1;
  }

  private finishStroke(): void {
    this.releasePointer();
    this.session?.endStroke();
    this.strokeOpen = false;
    this.state = 'idle';
    this.edited();
  }

  private cancelStroke(): void {
    this.releasePointer();
    if (this.strokeOpen) this.session?.cancelStroke();
    this.strokeOpen = false;
    this.state = 'idle';
    this.queueFlush();
  }

  private readonly key = (event: KeyboardEvent): void => {
    const target = event.target as HTMLElement | null;
    if (target instanceof HTMLInputElement || target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement) return;
    const key = event.key.toLowerCase();
    const modifier = event.ctrlKey || event.metaKey;
    if (modifier && !event.altKey && (key === 'z' || key === 'y') && this.session) {
      if (key === 'y' || event.shiftKey) this.redo();
      else this.undo();
      event.preventDefault();
      event.stopPropagation();
      return;
    }
    if (modifier || event.altKey) return;
    if (key === 'p') {
      this.setOn(this.state === 'off');
    } else if (this.state === 'off') {
      return;
    } else if (key === 'escape' && (this.state === 'stroking' || this.state === 'resizing')) {
      if (this.state === 'stroking') this.cancelStroke();
      else {
        this.brush.radius = this.resizeFrom;
        this.state = 'idle';
      }
    } else if (key === 'f' && this.state === 'idle') {
      // Blender's radial control: the cursor sits on the rim of the brush being resized.
      this.state = 'resizing';
      this.resizeFrom = this.brush.radius;
      this.resizeCentre = { x: this.cursor.x - this.brush.radius, y: this.cursor.y };
    } else if (key === 'enter' && this.state === 'resizing') {
      this.state = 'idle';
    } else {
      return;
    }
    this.refresh();
    event.preventDefault();
    event.stopPropagation();
  };

  // --- surface, gathering, dabs ----------------------------------------------------------------------------

  /**
   * Brings the surface under the brush up to date (outside strokes: a stroke paints on the surface it began on):
   * built afresh after a pose change, else only the vertices whose weights changed since are re-skinned and moved.
   */
  private updateSurface(): void {
    // The skinning reads the influences, which the flush brings up to date with the weights.
    this.flush();
    const moved = this.session?.takeMoved();
    if (!this.surface) {
      this.surface = new PaintSurface(this.host.posedPositions(), this.host.document().mesh.triangles);
    } else if (this.surfaceStale || moved === null) {
      this.surface.setAll(this.host.posedPositions());
    } else if (moved && moved.count > 0) {
      const next = new Float64Array(3 * moved.count);
      if (this.host.posedPositionsAt(moved.vertices, moved.count, next)) this.surface.move(moved.vertices, moved.count, next);
      else this.surface.setAll(this.host.posedPositions());
    } else {
      return;
    }
    this.surfaceStale = false;
    this.visibility.invalidate();
  }

  private hit(x: number, y: number): THREE.Intersection | null {
    if (!this.surface) return null;
    const rect = this.canvasRect;
    ndc.set((x / rect.width) * 2 - 1, 1 - (y / rect.height) * 2);
    raycaster.setFromCamera(ndc, this.host.camera);
    return this.surface.raycastFirst(raycaster.ray);
  }

  /** World radius of the brush at a point `distance` from the camera. */
  private worldRadius(distance: number): number {
    const rect = this.canvasRect;
    return (this.brush.radius * 2 * distance * Math.tan((this.host.camera.fov * Math.PI) / 360)) / rect.height;
  }

  /** One dab at a canvas point; returns the sampled weight (NaN when the brush misses the mesh). */
  private dabAt(x: number, y: number, bone: number): number {
    const start = performance.now();
    const hit = this.hit(x, y);
    const session = this.session;
    const surface = this.surface;
    if (!hit || !session || !surface) return NaN;
    const c = hit.point;
    const dab = { centre: [c.x, c.y, c.z], radius: this.worldRadius(hit.distance), strength: this.brush.strength * this.pressure, falloff: this.brush.falloff, mode: this.brush.mode, value: this.brush.value };
    const context = session.context;
    context.grid = surface.grid;
    gatherDab(context, dab);
    if (!this.brush.throughMesh) this.keepVisible(x, y, hit.distance, dab.radius);
    this.lastStroke.push(c.x, c.y, c.z);
    const value = session.dab(bone, dab);
    record(this.dabTimes, performance.now() - start);
    this.queueFlush();
    return value;
  }

  /** Keeps the gathered vertices the camera sees (BrushVisibility: a depth grid under the brush). */
  private keepVisible(x: number, y: number, hitDistance: number, radius: number): void {
    const context = this.session!.context;
    const rect = this.canvasRect;
    // The camera-space depth of the hit: its distance along the ray, projected on the view axis.
    const cosine = raycaster.ray.direction.dot(this.host.camera.getWorldDirection(scratch));
    const surface = this.surface!;
    context.count = this.visibility.filter(surface.bvh, surface.positions, this.host.camera, {
      x, y, radius: this.brush.radius, width: rect.width, height: rect.height,
      maxDepth: hitDistance * cosine + radius,
      reach: radius,
      tolerance: Math.max(0.004 * this.host.document().diagonal, 0.1 * radius),
    }, context.indices, context.distances, context.count);
  }

  private updateRing(x: number, y: number): void {
    const hit = this.state === 'off' ? null : this.hit(x, y);
    this.ring.visible = !!hit;
    if (hit) {
      const normal = hit.face ? scratch.copy(hit.face.normal) : scratch.set(0, 0, 1);
      if (normal.dot(raycaster.ray.direction) > 0) normal.negate();
      this.ring.position.copy(hit.point).addScaledVector(normal, 0.001 * this.host.document().diagonal);
      this.ring.quaternion.setFromUnitVectors(zAxis, normal);
      this.ring.scale.setScalar(this.worldRadius(hit.distance));
      this.ring.material.uniforms.falloff.value = ['smooth', 'linear', 'constant'].indexOf(this.brush.falloff);
    }
    this.host.redraw();
  }

  // --- views -----------------------------------------------------------------------------------------------

  private queueFlush(): void {
    if (this.framePending) return;
    this.framePending = true;
    requestAnimationFrame(() => this.flush());
  }

  /**
   * At most once per frame: the touched vertices' influences, texture rows and heat-map blocks, read from the
   * session's float32 weights. Outside a stroke the document weights catch up too (PaintSession.commit).
   */
  flush(): void {
    this.framePending = false;
    const session = this.session;
    if (!session) return;
    if (session.hasDirty) {
      const start = performance.now();
      const nb = session.weights.boneCount;
      const limit = Math.min(session.settings.maxInfluences > 0 ? session.settings.maxInfluences : nb, nb);
      if (this.host.influences().stride < limit) this.host.padInfluences(limit);
      const influences = this.host.influences();
      const skinned = this.host.skinned();
      const view = this.host.weightView();
      const bone = this.host.selectedBone();
      const data = session.weights.data;
      const changed = session.takeDirty();
      // null: a whole-mesh command, every row.
      const count = changed ? changed.count : influences.vertexCount;
      for (let i = 0; i < count; i++) {
        const v = changed ? changed.vertices[i] : i;
        // Its ranked influences (whose first bone is the dominant one), its texture row, its heat-map inputs.
        writeInfluenceRow(data, nb, v, influences);
        skinned.packInfluenceRow(influences, v);
        view?.updateVertex(v, bone >= 0 ? data[v * nb + bone] : 0, influences.bones[v * influences.stride]);
      }
      skinned.commitInfluenceRows();
      view?.commitVertices();
      record(this.flushTimes, performance.now() - start);
      this.host.weightsChanged();
      this.refreshInfo();
    }
    if (this.state !== 'stroking') session.commit();
  }

  /** Brings the document weights up to date with a stroke still being painted (before someone reads them). */
  commitWeights(): void {
    this.session?.commit();
  }

  // --- panel -----------------------------------------------------------------------------------------------

  private section(title: string): HTMLElement {
    const section = document.createElement('section');
    section.className = 'bind-section';
    const h = document.createElement('h3');
    h.textContent = title;
    section.append(h);
    return section;
  }

  private control(parent: HTMLElement, label: string, input: HTMLElement): void {
    const row = document.createElement('label');
    row.className = 'slider-row';
    row.append(label, input);
    parent.append(row);
  }

  private slider(min: number, max: number, step: number, get: () => number, set: (x: number) => void): HTMLInputElement {
    const input = document.createElement('input');
    input.type = 'range';
    input.min = String(min);
    input.max = String(max);
    input.step = String(step);
    input.dataset.refresh = '1';
    input.addEventListener('input', () => {
      set(Number(input.value));
      this.refreshInfo();
    });
    (input as HTMLInputElement & { sync?: () => void }).sync = () => (input.value = String(get()));
    return input;
  }

  private buildBrushSection(): HTMLElement {
    const section = this.section('Brush');
    const modes = document.createElement('div');
    modes.className = 'row paint-modes';
    for (const mode of ['add', 'subtract', 'set', 'smooth', 'sample'] as DabMode[]) {
      const button = toolButton(modes, mode[0].toUpperCase() + mode.slice(1), `${mode} brush`, () => {
        this.brush.mode = mode;
        this.refresh();
      });
      button.dataset.mode = mode;
    }
    section.append(modes);
    this.control(section, 'radius px ', this.slider(2, 200, 1, () => this.brush.radius, (x) => (this.brush.radius = x)));
    this.control(section, 'strength ', this.slider(0, 1, 0.01, () => this.brush.strength, (x) => (this.brush.strength = x)));
    this.control(section, 'set value ', this.slider(0, 1, 0.01, () => this.brush.value, (x) => (this.brush.value = x)));
    this.control(section, 'spacing ', this.slider(0.05, 1, 0.05, () => this.brush.spacing, (x) => (this.brush.spacing = x)));
    const falloff = document.createElement('select');
    for (const f of ['smooth', 'linear', 'constant']) falloff.add(new Option(f, f));
    falloff.addEventListener('change', () => {
      this.brush.falloff = falloff.value as BrushFalloff;
      falloff.blur();
    });
    falloff.className = 'paint-falloff';
    this.control(section, 'falloff ', falloff);
    const through = document.createElement('input');
    through.type = 'checkbox';
    through.className = 'paint-through';
    through.addEventListener('change', () => (this.brush.throughMesh = through.checked));
    this.control(section, 'through the mesh ', through);
    const symmetry = document.createElement('select');
    symmetry.className = 'paint-symmetry';
    for (const [label, value] of [['off', ''], ['x', '0'], ['y', '1'], ['z', '2']]) symmetry.add(new Option(label, value));
    symmetry.addEventListener('change', () => {
      void this.setSymmetry(symmetry.value === '' ? null : (Number(symmetry.value) as 0 | 1 | 2));
      symmetry.blur();
    });
    this.symmetrySelect = symmetry;
    this.control(section, 'symmetry ', symmetry);
    this.matchingRow = document.createElement('div');
    this.matchingRow.className = 'row paint-matching';
    this.matchingRow.hidden = true;
    this.matchingText = document.createElement('span');
    this.matchingBar = document.createElement('progress');
    this.matchingBar.max = 1;
    this.matchingRow.append(this.matchingText, this.matchingBar);
    toolButton(this.matchingRow, 'Cancel', 'Stop matching; the symmetry in use stays', () => {
      this.cancelMatching();
      void this.setSymmetry(this.session?.symmetry?.axis ?? null);
    });
    section.append(this.matchingRow);
    const limit = document.createElement('input');
    limit.type = 'number';
    limit.min = '0';
    limit.max = '16';
    limit.value = '4';
    limit.className = 'paint-limit';
    limit.addEventListener('change', () => (this.ensureSession().settings.maxInfluences = Math.max(0, Math.round(Number(limit.value) || 0))));
    this.control(section, 'max influences ', limit);
    return section;
  }

  private buildCommandSection(): HTMLElement {
    const section = this.section('Whole mesh');
    const row = document.createElement('div');
    row.className = 'row';
    toolButton(row, 'Normalize', 'Every vertex sums to 1 (locked bones kept)', () => this.run('normalize'));
    toolButton(row, 'Limit total', 'At most the max influences per vertex', () => this.run('limit'));
    toolButton(row, 'Prune < 0.01', 'Drop weights below 0.01', () => this.run('prune', 0.01));
    toolButton(row, 'Smooth bone', "Smooth the selected bone's weights", () => this.run('smooth'));
    // Labelled with the symmetry axis by refresh().
    toolButton(row, '', '', () => this.run('mirror+')).dataset.mirror = '1';
    toolButton(row, '', '', () => this.run('mirror-')).dataset.mirror = '-1';
    const history = document.createElement('div');
    history.className = 'row';
    toolButton(history, 'Undo', 'Ctrl/⌘ Z', () => this.undo());
    toolButton(history, 'Redo', 'Ctrl/⌘ Shift Z or Ctrl Y', () => this.redo());
    section.append(row, history);
    return section;
  }

  /** Redraws the panel from the state. */
  refresh(): void {
    if (this.panel.hidden) return;
    this.symmetrySelect.value = this.wantedSymmetry === null ? '' : String(this.wantedSymmetry);
    for (const input of this.panel.querySelectorAll<HTMLInputElement & { sync?: () => void }>('input[data-refresh]')) input.sync?.();
    for (const button of this.panel.querySelectorAll<HTMLButtonElement>('[data-mode]')) button.setAttribute('aria-pressed', String(button.dataset.mode === this.brush.mode));
    const axis = 'xyz'[this.session?.symmetry?.axis ?? 0];
    for (const button of this.panel.querySelectorAll<HTMLButtonElement>('[data-mirror]')) {
      const [from, to] = button.dataset.mirror === '1' ? ['−', '+'] : ['+', '−'];
      button.textContent = `Mirror ${from}${axis} → ${to}${axis}`;
      button.title = `Copy the ${from}${axis} side onto the ${to}${axis} side, bones swapped with their mirrored pairs`;
    }
    const doc = this.host.document();
    const session = this.session;
    const selected = this.host.selectedBone();
    const pairs = session?.symmetry?.bonePairs;
    this.boneList.replaceChildren(
      ...Array.from({ length: doc.skeleton.parents.length }, (_, b) => {
        const row = document.createElement('div');
        row.className = 'paint-bone';
        row.setAttribute('aria-selected', String(b === selected));
        const name = document.createElement('button');
        name.type = 'button';
        name.className = 'paint-bone-name';
        name.textContent = `${doc.boneNames?.[b] ?? `bone ${b}`}${pairs ? `  ↔ ${pairs[b] < 0 ? '—' : pairs[b]}` : ''}`;
        name.addEventListener('click', () => this.host.selectBone(b));
        const lock = document.createElement('button');
        lock.type = 'button';
        lock.className = 'paint-lock';
        const locked = !!session?.settings.locked[b];
        lock.textContent = locked ? 'locked' : 'lock';
        lock.title = locked ? 'Unlock: painting may change this bone' : 'Lock: painting and commands keep this bone';
        lock.setAttribute('aria-pressed', String(locked));
        lock.addEventListener('click', () => {
          const s = this.ensureSession();
          s.settings.locked[b] = s.settings.locked[b] ? 0 : 1;
          this.refresh();
        });
        row.append(lock, name);
        return row;
      }),
    );
    this.refreshInfo();
  }

  private refreshInfo(): void {
    const s = this.session;
    const unmatched = s?.symmetry ? ` · ${s.symmetry.map.unmatched.length} vertices without a mirror match` : '';
    const steps = s ? ` · ${s.history.undoStack.length} undo steps` : '';
    this.info.textContent = `${this.state === 'resizing' ? 'resizing: move, click to confirm, Esc cancels · ' : ''}radius ${Math.round(this.brush.radius)} px${steps}${unmatched}`;
  }
}

/** CSS pixels the pointer may move between press and release for a click (joint pick) rather than a stroke. */
const CLICK_SLOP = 4;

/** How many of the latest dab and flush durations the test hook reports. */
const TIMES_KEPT = 256;

function record(times: number[], ms: number): void {
  if (times.length === TIMES_KEPT) times.shift();
  times.push(ms);
}
