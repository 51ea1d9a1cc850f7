/**
 * Weight painting as state and workflow, without DOM or three.js: the brush settings, the paint session of the
 * scene's current weights (renewed whenever the weights are replaced), strokes and whole-mesh commands as entries
 * of the one undo history, lock toggles (undoable too), symmetry with its mirror match computed in a worker, and
 * the once-per-frame flush that hands the touched vertices to the views. The brush tool (tools/brush/) drives
 * strokes; the paint panel (panels/paint-panel.ts) shows this state and changes it through commands and setters.
 */
import type { Influences } from '../../workers/skinning/influences.ts';
import { writeInfluenceRow } from '../../workers/skinning/influences.ts';
import type { BrushFalloff } from '../../workers/paint/brush-falloff.ts';
import type { Dab, DabMode } from '../../workers/paint/apply-dab.ts';
import type { WeightGradient } from '../../workers/paint/apply-gradient.ts';
import type { MirrorVertexMap } from '../../workers/paint/mirror-vertex-map.ts';
import type { PaintSettings } from '../../workers/paint/paint-weights.ts';
import { vertexOneRing, type VertexOneRing } from '../../workers/paint/vertex-one-ring.ts';
import type { DenseMatrix } from '../../workers/formats/types.ts';
import type { SceneStore } from '../../workers/scene/scene-store.ts';
import type { SceneDocument } from '../../workers/scene/scene-document.ts';
import { pick, type SettingsSection } from '../project/settings-store.ts';
import { paintLockEdit } from '../../workers/scene/scene-edits.ts';
import { MAX_INFLUENCE_CHOICES, MAX_INFLUENCES_DEFAULT } from '../../workers/weights/limit-influences.ts';
import { bytesOf } from '../../workers/scene/undo-history.ts';
import { PaintSession, type WeightRowsEdit } from './paint-session.ts';
import { BRUSH_FALLOFFS, BRUSH_MODES } from './brush-options.ts';

/**
 * What a drag of the brush does: a dab mode (apply-dab.ts), or 'gradient': the drag from A to B lays a linear
 * gradient of the set value on the vertices within the brush radius of the segment (apply-gradient.ts).
 */
export type BrushMode = DabMode | 'gradient';

export interface BrushSettings {
  mode: BrushMode;
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

export const BRUSH_DEFAULTS: Required<BrushSettings> = {
  mode: 'add',
  radius: 40,
  strength: 0.3,
  falloff: 'smooth',
  value: 1,
  spacing: 0.25,
  throughMesh: false,
};

/** The brush modes and falloffs a project may hold: brush-options.ts's, typed as the brush's here. */
const MODE_NAMES: readonly BrushMode[] = BRUSH_MODES;
const FALLOFF_NAMES: readonly BrushFalloff[] = BRUSH_FALLOFFS;

/** A stroke's undo step, by the brush mode it painted with. */
export const STROKE_LABELS: Readonly<Record<Exclude<BrushMode, 'sample'>, string>> = {
  add: 'Paint stroke',
  subtract: 'Subtract stroke',
  set: 'Set stroke',
  smooth: 'Smooth stroke',
  blur: 'Blur stroke',
  relax: 'Relax stroke',
  gradient: 'Gradient',
};

export type PaintCommand = 'normalize' | 'limit' | 'prune' | 'smooth' | 'flood' | 'mirror+' | 'mirror-';

/** The skinned mesh's influence texture: a vertex's row, then the upload of the rows packed. */
export interface InfluenceRows {
  packInfluenceRow(influences: Influences, v: number): void;
  commitInfluenceRows(): void;
}

/** The heat map's per-vertex inputs: a vertex's weight and dominant bone, then the upload. */
export interface WeightViewRows {
  updateVertex(v: number, weight: number, dominantBone: number): void;
  commitVertices(): void;
}

/** The views a flush writes the touched vertices into (handed over once per flush: the loop calls them directly). */
export interface PaintViews {
  influences(): Influences;
  /** replaces the influences with ones of at least `stride` slots (full upload) */
  padInfluences(stride: number): void;
  skinned(): InfluenceRows;
  weightView(): WeightViewRows;
}

/** The mirror match, computed off the page's thread. */
export interface MirrorMatcher {
  mirrorVertexMap(
    positions: Float64Array,
    triangles: Uint32Array,
    axis: 0 | 1 | 2,
    tolerance: number,
    progress: (fraction: number) => void,
  ): Promise<MirrorVertexMap>;
  cancel(): void;
}

export interface PaintHost {
  readonly store: SceneStore;
  readonly views: PaintViews;
  readonly matcher: MirrorMatcher;
  selectedBone(): number;
  /** weights changed during a stroke: the viewport redraws (and the CPU-side products of the weights refresh) */
  weightsChanged(): void;
  /** a stroke or command ended, or was undone: whatever is too costly to refresh during a stroke refreshes now */
  weightsSettled(): void;
  /** runs `callback` before the next frame is drawn */
  schedule(callback: () => void): void;
  /** #V flags of the vertices whole-mesh commands act on (the meshes the tools act on), or null for all */
  vertexMask?(): Uint8Array | null;
  /** #V flags of the selected vertices (the Bind panel's lasso): Flood fill fills those when any is selected */
  vertexSelection?(): Uint8Array | null;
}

const COMMAND_LABELS: Record<Exclude<PaintCommand, 'mirror+' | 'mirror-' | 'flood'>, string> = {
  normalize: 'Normalize',
  limit: 'Limit total',
  prune: 'Prune small weights',
  smooth: 'Smooth bone',
};

/** How many of the latest dab, flush and cursor-move durations are kept (for the bench). */
const TIMES_KEPT = 256;

export class PaintController {
  readonly brush: BrushSettings = { ...BRUSH_DEFAULTS };
  /** the symmetry asked for (shown while its match is computed) */
  wantedSymmetry: 0 | 1 | 2 | null = null;
  /** the running mirror match, or null */
  matchJob: { axis: 0 | 1 | 2; positions: Float64Array; fraction: number; result: Promise<MirrorVertexMap | null> } | null = null;
  /** a failure to show in the panel, or null */
  message: string | null = null;
  /** world positions of the last stroke's dabs (x y z …) */
  lastStroke: number[] = [];
  /** the brush mode of the open stroke's first dab (its undo step's name), or null before one */
  private strokeMode: Exclude<BrushMode, 'sample'> | null = null;
  /** durations (ms) of the latest dabs, flushes and cursor moves outside strokes */
  readonly times = { dabs: [] as number[], flushes: [] as number[], hovers: [] as number[] };
  private current: PaintSession | null = null;
  private framePending = false;
  private readonly listeners = new Set<() => void>();
  /** kept across sessions of one mesh: its mirror matches by axis and its one-rings */
  private meshCache: { positions: Float64Array; maps: (MirrorVertexMap | undefined)[]; oneRing: VertexOneRing } | null = null;
  /**
   * the locks (the document's paintLocks, as the paint functions read them) and the influence limit (a setting of the
   * session, kept until a new scene); the current session works with this same object
   */
  private sceneSettings: PaintSettings;

  constructor(private readonly host: PaintHost) {
    this.sceneSettings = { locked: locksOf(host.store.doc), maxInfluences: MAX_INFLUENCES_DEFAULT };
    host.store.subscribe((change) => {
      if (change.kind !== 'document') return;
      const doc = host.store.doc;
      // A new scene, whatever it kept of the last, starts with the default limit; the user's default max influences
      // follows (MaxInfluences.startWith, on every new scene), and a project opened restores its own after.
      if (change.newScene) this.sceneSettings = { locked: locksOf(doc), maxInfluences: MAX_INFLUENCES_DEFAULT };
      // A lock toggled, undone, or the bones edited: the locks are the document's (never written in place).
      else if (change.fields.has('paintLocks') || change.fields.has('skeleton')) this.sceneSettings.locked = locksOf(doc);
      if (doc.mesh !== change.previous.mesh && this.matchJob) this.cancelMatching();
      // A session paints with the skeleton and names it was made with (symmetry pairs bones by them): new ones, a new session.
      const { fields } = change;
      if (fields.has('weights') || fields.has('skeleton') || fields.has('boneNames')) this.dropSession();
      // A new mesh keeps the symmetry asked for: its mirror match is computed anew.
      if (doc.mesh !== change.previous.mesh && this.wantedSymmetry !== null) void this.setSymmetry(this.wantedSymmetry);
    });
  }

  /** The session of the scene's current weights, if one was needed since they last changed. */
  get session(): PaintSession | null {
    return this.current;
  }

  /** The session of the scene's current weights (made on first use). */
  ensureSession(): PaintSession {
    const doc = this.host.store.doc;
    if (this.current?.dense === doc.weights) return this.current;
    if (this.meshCache?.positions !== doc.mesh.positions) {
      this.meshCache = {
        positions: doc.mesh.positions,
        maps: [],
        oneRing: vertexOneRing(doc.mesh.positions.length / 3, doc.mesh.triangles, doc.mesh.positions),
      };
    }
    const settings = this.settings;
    const { maps, oneRing } = this.meshCache;
    const session = new PaintSession(
      doc.weights,
      doc.mesh.positions,
      doc.mesh.triangles,
      doc.skeleton,
      doc.boneNames ?? null,
      doc.diagonal,
      maps,
      settings,
      oneRing,
    );
    this.current = session;
    // New weights on the same mesh keep the symmetry asked for (its match is cached).
    const wanted = this.wantedSymmetry;
    if (wanted !== null && session.mirrorMap(wanted)) session.setSymmetry(wanted);
    return session;
  }

  private dropSession(): void {
    if (this.current?.strokeOpen) this.current.cancelStroke();
    this.current = null;
    this.changed();
  }

  /**
   * The locks (the document's) and the influence limit, which every session of the scene shares. Reading them makes
   * no session (a project's contents need them, and a session of a large mesh takes tens of milliseconds to make).
   */
  get settings(): PaintSettings {
    return this.sceneSettings;
  }

  /** Whether `bone` is locked (painting and commands keep its weights). */
  isLocked(bone: number): boolean {
    return this.sceneSettings.locked[bone] === 1;
  }

  /** The paint settings a project saves: the brush, the symmetry asked for, the locks (the document's) and the limit. */
  readonly settingsSection: SettingsSection<'paint'> = {
    save: () => {
      const doc = this.host.store.doc;
      return {
        brush: { ...this.brush },
        symmetry: this.wantedSymmetry,
        locked: doc.paintLocks ? doc.paintLocks.slice() : new Uint8Array(doc.skeleton.parents.length),
        maxInfluences: this.sceneSettings.maxInfluences,
      };
    },
    // The locks open with the document (they are part of it); the rest is the session's.
    restore: ({ brush, symmetry, maxInfluences }) => {
      const mine = this.brush;
      mine.mode = pick(brush.mode, MODE_NAMES, mine.mode);
      mine.falloff = pick(brush.falloff, FALLOFF_NAMES, mine.falloff);
      mine.radius = brush.radius > 0 ? brush.radius : mine.radius;
      mine.strength = brush.strength;
      mine.value = brush.value;
      mine.spacing = brush.spacing > 0 ? brush.spacing : mine.spacing;
      mine.throughMesh = brush.throughMesh;
      // The scene's max influences (1 … 8); a file's 0 (no limit) or more than glTF stores keeps the most it stores.
      this.sceneSettings.maxInfluences = pick(maxInfluences, MAX_INFLUENCE_CHOICES, MAX_INFLUENCE_CHOICES.at(-1)!);
      void this.setSymmetry(symmetry);
      this.changed();
    },
  };

  /** Called when anything the panel shows changed. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  changed(): void {
    for (const listener of this.listeners) listener();
  }

  // --- strokes (the brush tool) ---------------------------------------------------------------------------

  beginStroke(): void {
    this.lastStroke = [];
    this.strokeMode = null;
    this.ensureSession().beginStroke();
  }

  /** One dab (its vertices gathered into the session's context; a stroke is open unless sampling). @returns the sampled weight */
  dab(bone: number, dab: Dab): number {
    if (dab.mode !== 'sample') {
      this.lastStroke.push(dab.centre[0], dab.centre[1], dab.centre[2]);
      this.strokeMode ??= dab.mode;
    }
    const value = this.ensureSession().dab(bone, dab);
    this.queueFlush();
    return value;
  }

  /**
   * The gradient being dragged, from its start to where the pointer is now: the rows a previous call of the same drag
   * changed go back first, so the open stroke always holds this one gradient (one undo step, "Gradient", at
   * endStroke; Escape takes it back with cancelStroke). The bone's weights follow the gradient's value, strength and
   * falloff; `gradient.radius` limits it around the segment.
   * @returns the number of vertices it reached
   */
  gradient(bone: number, gradient: WeightGradient): number {
    const session = this.ensureSession();
    if (session.strokeOpen) session.cancelStroke();
    session.beginStroke();
    this.strokeMode = 'gradient';
    this.lastStroke = [gradient.start[0], gradient.start[1], gradient.start[2], gradient.end[0], gradient.end[1], gradient.end[2]];
    const count = session.gradient(bone, gradient);
    this.queueFlush();
    return count;
  }

  /**
   * Ends the open stroke as one undo step named by the brush mode of its first dab ("Paint stroke", "Smooth stroke",
   * see STROKE_LABELS); a stroke that changed no weight (all under locked bones, say) adds no step.
   */
  endStroke(): void {
    const session = this.current;
    if (!session?.strokeOpen) return;
    this.flush();
    this.pushEdit(STROKE_LABELS[this.strokeMode ?? 'add'], session.endStroke());
  }

  /** Escape: the open stroke's rows go back; nothing reaches the document or the history. */
  cancelStroke(): void {
    const session = this.current;
    if (!session?.strokeOpen) return;
    session.cancelStroke();
    this.flush();
    this.host.weightsSettled();
  }

  // --- commands ---------------------------------------------------------------------------------------------

  /**
   * A whole-mesh command as one undo step, on the meshes the tools act on. Normalize, limit, prune and smooth run at
   * once (a history group around them holds their step); mirroring goes across `axis`, by default the symmetry axis
   * (x when symmetry is off), once that axis's mirror match is known, so it returns a promise.
   */
  run(command: PaintCommand, threshold = 0.01, axis: 0 | 1 | 2 = this.current?.symmetry?.axis ?? 0): Promise<void> | void {
    if (command === 'mirror+' || command === 'mirror-') return this.mirror(command, axis);
    this.runNow(command, threshold, axis);
  }

  private async mirror(command: 'mirror+' | 'mirror-', axis: 0 | 1 | 2): Promise<void> {
    const session = this.ensureSession();
    if (!(await this.mirrorMapFor(axis)) || this.current !== session) return;
    this.runNow(command, 0, axis);
  }

  private runNow(command: PaintCommand, threshold: number, axis: 0 | 1 | 2): void {
    const session = this.ensureSession();
    if (session.strokeOpen) return;
    const bone = this.host.selectedBone();
    session.commandMask = this.host.vertexMask?.() ?? null;
    if (command === 'normalize') this.pushEdit(COMMAND_LABELS.normalize, session.normalizeAll());
    else if (command === 'limit') this.pushEdit(COMMAND_LABELS.limit, session.limitTotal());
    else if (command === 'prune') this.pushEdit(`Prune weights < ${threshold}`, session.prune(threshold));
    else if (command === 'smooth' && bone >= 0) this.pushEdit(`${COMMAND_LABELS.smooth} ${bone}`, session.smoothBone(bone));
    else if (command === 'flood' && bone >= 0) {
      const selected = this.floodMask(session.commandMask);
      session.commandMask = selected ?? session.commandMask;
      this.pushEdit(floodLabel(this.brush, selected !== null), session.flood(bone, floodDab(this.brush)));
    } else if (command === 'mirror+' || command === 'mirror-') {
      const [from, to] = command === 'mirror+' ? ['−', '+'] : ['+', '−'];
      const name = 'xyz'[axis];
      this.pushEdit(`Mirror ${from}${name} → ${to}${name}`, session.mirror(axis, command === 'mirror+' ? 1 : -1));
    }
  }

  /**
   * What Flood fill fills: the selected vertices of the meshes the tools act on (`meshMask`, null = every vertex)
   * when any is selected, else all of those meshes.
   * @returns #V flags of the selected vertices it fills, or null when none is selected (it fills the meshes)
   */
  private floodMask(meshMask: Uint8Array | null): Uint8Array | null {
    const selection = this.host.vertexSelection?.();
    const n = this.host.store.doc.weights.rows;
    if (!selection || selection.length !== n) return null;
    const mask = new Uint8Array(n);
    let any = false;
    for (let v = 0; v < n; v++) {
      mask[v] = selection[v] && (!meshMask || meshMask[v]) ? 1 : 0;
      any ||= mask[v] === 1;
    }
    return any ? mask : null;
  }

  /**
   * How many vertices Flood fill fills as a selection: the selected vertices on the meshes the tools act on; 0 when
   * none is selected there (it fills those whole meshes).
   */
  floodSelectionCount(): number {
    const mask = this.floodMask(this.host.vertexMask?.() ?? null);
    let count = 0;
    if (mask) for (let v = 0; v < mask.length; v++) count += mask[v];
    return count;
  }

  /** Flood fill's title in the menus and the panel: "Flood fill selection" while a selection limits it. */
  floodTitle(): string {
    return this.floodSelectionCount() > 0 ? 'Flood fill selection' : 'Flood fill';
  }

  /**
   * Locks (painting and commands keep its weights) or unlocks a bone: an edit of the document's locks, one undo step
   * (the same edit `rigwright edit --lock` makes).
   * @throws SceneEditError for a bone the skeleton does not have
   */
  setLocked(bone: number, locked: boolean): void {
    const edit = paintLockEdit(this.host.store.doc, bone, locked);
    if (!edit) return;
    this.host.store.edit(edit.label, edit.fields);
    this.changed();
  }

  private pushEdit(label: string, edit: WeightRowsEdit | null): void {
    if (!edit) {
      this.changed();
      return;
    }
    this.edited(edit.vertices);
    const { weights, vertices, before, after } = edit;
    this.host.store.history.push({
      label,
      bytes: bytesOf(vertices, before, after),
      undo: () => this.restoreRows(weights, vertices, before),
      redo: () => this.restoreRows(weights, vertices, after),
    });
  }

  private restoreRows(weights: DenseMatrix, vertices: Uint32Array, rows: ArrayLike<number>): void {
    // Entries undo in order, so the weights a paint step edited are the scene's again when it is undone.
    if (this.host.store.doc.weights !== weights) throw new Error('paint history: the weights this step edited are not the scene’s');
    this.ensureSession().setRows(vertices, rows);
    this.edited(vertices);
  }

  /** After an edit or its undo: the views catch up now, then the costly products of the weights. */
  private edited(vertices: Uint32Array): void {
    this.flush();
    this.host.weightsSettled();
    this.host.store.weightRowsEdited(vertices, vertices.length);
    this.changed();
  }

  // --- symmetry ---------------------------------------------------------------------------------------------

  /**
   * Symmetry across the plane axis = 0, or off. A new axis is matched first (in a worker, with progress and
   * cancel); painting goes on meanwhile with the symmetry in use before.
   * @returns once the symmetry asked for is in use, or the match was cancelled or superseded
   */
  async setSymmetry(axis: 0 | 1 | 2 | null): Promise<void> {
    this.wantedSymmetry = axis;
    this.changed();
    const session = this.ensureSession();
    if (axis !== null && !session.mirrorMap(axis)) {
      const map = await this.mirrorMapFor(axis);
      if (!map || this.wantedSymmetry !== axis || this.current !== session) {
        if (this.wantedSymmetry === axis) this.wantedSymmetry = session.symmetry?.axis ?? null;
        this.changed();
        return;
      }
    }
    session.setSymmetry(axis);
    this.changed();
  }

  /**
   * The mirror match of the current rest mesh across axis = 0: known, or computed by the matcher (one match at a
   * time; asking for another axis cancels the running one).
   * @returns the match, or null when cancelled or failed (a failure is kept in `message`)
   */
  private mirrorMapFor(axis: 0 | 1 | 2): Promise<MirrorVertexMap | null> {
    const session = this.ensureSession();
    const known = session.mirrorMap(axis);
    if (known) return Promise.resolve(known);
    const { positions, triangles } = this.host.store.doc.mesh;
    if (this.matchJob && this.matchJob.axis === axis && this.matchJob.positions === positions) return this.matchJob.result;
    this.cancelMatching();
    const job = { axis, positions, fraction: 0, result: Promise.resolve<MirrorVertexMap | null>(null) };
    job.result = this.host.matcher
      .mirrorVertexMap(positions, triangles, axis, session.mirrorTolerance, (fraction) => {
        job.fraction = fraction;
        if (this.matchJob === job) this.changed();
      })
      .then(
        (map) => {
          // The sessions of this mesh share meshCache.maps; a match for a mesh since replaced is dropped.
          if (this.meshCache?.positions === positions) this.meshCache.maps[axis] = map;
          return map;
        },
        (error: unknown) => {
          if (!(error instanceof DOMException && error.name === 'AbortError'))
            this.message = `Mirror matching failed: ${error instanceof Error ? error.message : String(error)}`;
          return null;
        },
      )
      .finally(() => {
        if (this.matchJob === job) this.matchJob = null;
        this.changed();
      });
    this.matchJob = job;
    this.changed();
    return job.result;
  }

  /** Stops a running mirror match; the symmetry in use stays. */
  cancelMatching(): void {
    if (!this.matchJob) return;
    this.matchJob = null;
    this.host.matcher.cancel();
    this.changed();
  }

  // --- views ------------------------------------------------------------------------------------------------

  queueFlush(): void {
    if (this.framePending) return;
    this.framePending = true;
    this.host.schedule(() => this.flush());
  }

  /** At most once per frame: the touched vertices' influences, texture rows and heat-map inputs, from the paint buffer. */
  flush(): void {
    this.framePending = false;
    const session = this.current;
    if (!session?.hasDirty) return;
    const start = performance.now();
    const { views } = this.host;
    const nb = session.weights.boneCount;
    const limit = Math.min(session.settings.maxInfluences > 0 ? session.settings.maxInfluences : nb, nb);
    if (views.influences().stride < limit) views.padInfluences(limit);
    const influences = views.influences();
    const skinned = views.skinned();
    const weightView = views.weightView();
    const bone = this.host.selectedBone();
    const data = session.weights.data;
    const { vertices, count } = session.takeDirty();
    for (let i = 0; i < count; i++) {
      const v = vertices[i];
      // Its ranked influences (whose first bone is the dominant one), its texture row, its heat-map inputs.
      writeInfluenceRow(data, nb, v, influences);
      skinned.packInfluenceRow(influences, v);
      weightView.updateVertex(v, bone >= 0 ? data[v * nb + bone] : 0, influences.bones[v * influences.stride]);
    }
    skinned.commitInfluenceRows();
    weightView.commitVertices();
    record(this.times.flushes, performance.now() - start);
    this.host.weightsChanged();
  }
}

export function record(times: number[], ms: number): void {
  if (times.length === TIMES_KEPT) times.shift();
  times.push(ms);
}

/** The document's locks as the paint functions read them: #B flags, a new array of 0 when it has none. */
function locksOf(doc: SceneDocument): Uint8Array {
  return doc.paintLocks ?? new Uint8Array(doc.skeleton.parents.length);
}

/**
 * Flood fill's dab: the brush's mode and strength; Set, and the modes that need a drag (gradient, sample), set the
 * brush value at full strength (Blender's Set Weight).
 */
export function floodDab(brush: BrushSettings): Dab {
  const mode = brush.mode === 'gradient' || brush.mode === 'sample' ? 'set' : brush.mode;
  return { centre: [0, 0, 0], radius: 1, strength: mode === 'set' ? 1 : brush.strength, falloff: 'constant', mode, value: brush.value };
}

/**
 * Flood fill's undo step: "Flood fill (set 0.5)", "Flood fill (add 0.3)", "Flood fill (blur)"; "Flood fill selection
 * (set 1)" when `selection` (a selection limited it).
 */
export function floodLabel(brush: BrushSettings, selection = false): string {
  const { mode, strength } = floodDab(brush);
  const amount = mode === 'set' ? ` ${brush.value}` : mode === 'add' || mode === 'subtract' ? ` ${strength}` : '';
  return `Flood fill${selection ? ' selection' : ''} (${mode}${amount})`;
}
