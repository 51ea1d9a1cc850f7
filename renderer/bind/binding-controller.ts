/**
 * Binding as state and workflow, without DOM: the vertex selection (drawn with the lasso), handle edits (assign,
 * free, load) and weights computed in the binding worker with progress and Cancel (one bindMesh call: harmonic from
 * the handles or volumetric from the bones, on one weld), the bind's report, and comparing the handles with a
 * reference file. Handles and weights live in the scene document; every change
 * of them is one step in the undo history (the weights a computation replaced come back with Undo).
 */
import type { OpenedFile, RigwrightBridge } from '../../app/ipc-contract.ts';
import { writeDmatAscii } from '../../workers/formats/dmat.ts';
import { AUTOMATIC_HANDLES_DEFAULTS } from '../../workers/weights/automatic-handles.ts';
import {
  assignHandles,
  clearHandles,
  handleCounts,
  handleOverlap,
  handlesToMatrix,
  type HandleOverlap,
} from '../../workers/weights/handle-edits.ts';
import { bindingReport } from '../../workers/weights/binding-report.ts';
import { HARMONIC_WEIGHTS_DEFAULTS, type HarmonicWeightsResult } from '../../workers/weights/harmonic-weights.ts';
import {
  VOLUMETRIC_MAX_INFLUENCES,
  VOLUMETRIC_WEIGHTS_DEFAULTS,
  type VolumetricWeightsResult,
} from '../../workers/weights/volumetric-weights.ts';
import { BINDING_METHODS, type BindingMethod } from '../../workers/weights/binding-method.ts';
import { errorMessage, vertexCountOf, boneCountOf } from '../../workers/scene/scene-document.ts';
import type { SceneStore } from '../../workers/scene/scene-store.ts';
import { boneNamesOf } from '../../workers/scene/bone-fields.ts';
import type { BindingClient } from '../io/binding-client.ts';
import type { RigFile } from '../../workers/formats/read-file.ts';
import type { DenseMatrix, MeshPart } from '../../workers/formats/types.ts';
import { lassoSelect } from './lasso-selection.ts';
import { weldVertices } from '../../workers/mesh/weld-vertices.ts';
import type { BindMeshReply, WeldGroups } from '../../workers/weights/bind-mesh.ts';
import { partMesh, withPartHandles, withPartWeights, withSkinned } from '../document/mesh-parts.ts';
import { pick, type SettingsSection } from '../project/settings-store.ts';
import { formatLength } from '../project/length-units.ts';
import { HANDLE_SOURCES, type HandleSource } from './handle-sources.ts';
import { HandleProvenance, replacedHandles, type ReplacedHandles } from './handle-provenance.ts';

export { HANDLE_SOURCES, type HandleSource };
export type LassoCombine = 'replace' | 'add' | 'remove';

export interface BindOptions {
  source?: HandleSource;
  laplacian?: 'cotan' | 'uniform';
  /** cylinder radius as a fraction of the bounding diagonal */
  radiusFraction?: number;
  bindUnhandled?: boolean;
  /**
   * vertices this close (mesh units) are one for the solve and get the same weights; 0: only exactly coincident ones
   * (a mesh split at seams is always bound as the surface it is; see harmonicWeights)
   */
  weldTolerance?: number;
  /**
   * 'surface': harmonic weights from the handles; 'volumetric': geodesic voxel binding from the bones (no handles:
   * every shell gets weights); 'auto': volumetric for a mesh of several shells or with a boundary, surface otherwise
   */
  method?: BindingMethod;
  /** the volumetric grid's voxels along the mesh's longest side (64–512) */
  voxelResolution?: number;
  /** the volumetric falloff: weights ∝ geodesic distance^−falloff (1–16) */
  falloff?: number;
}

export const BIND_DEFAULTS: Required<BindOptions> = {
  source: 'current',
  laplacian: HARMONIC_WEIGHTS_DEFAULTS.laplacian,
  radiusFraction: AUTOMATIC_HANDLES_DEFAULTS.radiusFraction,
  bindUnhandled: HARMONIC_WEIGHTS_DEFAULTS.unhandledComponents === 'bind-rigidly',
  weldTolerance: HARMONIC_WEIGHTS_DEFAULTS.weldTolerance,
  method: 'auto',
  voxelResolution: VOLUMETRIC_WEIGHTS_DEFAULTS.resolution,
  falloff: VOLUMETRIC_WEIGHTS_DEFAULTS.falloff,
};

export interface BindingHost {
  readonly store: SceneStore;
  readonly client: Pick<BindingClient, 'bindMesh' | 'cancel' | 'running'>;
  /** the file reader (the io worker): a reference handle file is read with it */
  readonly io: {
    readRigFile(name: string, bytes: Uint8Array): Promise<RigFile>;
    handlesFromDmat(matrix: DenseMatrix, vertexCount: number, boneCount: number, file: string): Promise<Int32Array>;
  };
  readonly bridge: Pick<RigwrightBridge, 'openFiles' | 'saveFile'>;
  /** #V × 3 vertex positions at the pose on screen */
  posedPositions(): Float64Array;
  /** the camera's view-projection matrix (column-major, 16) and the canvas size in CSS px */
  viewProjection(): { elements: ArrayLike<number>; width: number; height: number };
  selectedBone(): number;
  /** loads files through the app's usual path (handles are #V × 1 DMATs) */
  load(files: OpenedFile[]): Promise<void>;
  showError(message: string): void;
  /** new weights were computed and are the scene's (the view shows them) */
  computed(): void;
  /** #V 1 for each vertex the lasso may select (the active mesh, not hidden), or null for every vertex */
  vertexMask(): Uint8Array | null;
  /** #F × 3 the triangles shown (hidden meshes' ones degenerate): only they hide what is behind them */
  shownTriangles(): Uint32Array;
  /** computed weights limited to the scene's max influences (max-influences.ts); absent: kept as solved */
  limitWeights?(weights: DenseMatrix): DenseMatrix;
  /**
   * the scene's max influences (1 … 8): the volumetric binding keeps that many bones per voxel and vertex; absent:
   * the volumetric binding's default (VOLUMETRIC_WEIGHTS_DEFAULTS.maxInfluences)
   */
  maxInfluences?(): number;
  /** tells the artist what a computation replaced, with the way back (a notice with Undo) */
  notify?(title: string, items: string[], actions: { label: string; run: () => void }[]): void;
}

export const STAGE_TEXT: Record<string, string> = {
  handles: 'Choosing handles',
  laplacian: 'Building the Laplacian',
  ordering: 'Ordering (fill-reducing)',
  factorization: 'Factorizing (Cholesky)',
  solve: 'Solving',
  done: 'Finishing',
  voxelize: 'Voxelizing the solid',
  distances: 'Geodesic distances through the solid',
  smoothing: 'Smoothing the voxel weights',
  vertices: 'Weights at the vertices',
};

/** What every completed bind keeps, whichever method ran. */
interface LastBindCommon {
  /** the scene's weights it made (the report holds while they are the scene's) */
  weights: object;
  boundRigidly: boolean;
  /** the mesh of the scene it bound (null: the whole scene) and the weld distance it ran with */
  part: MeshPart | null;
  weldTolerance: number;
  /**
   * the bound mesh welded (the part's own vertex numbers) and #W the shell of each welded vertex: the one weld the
   * method was chosen on, which the binding report's shells and the selection's welded groups reuse
   */
  weld: WeldGroups;
  shellOf: Int32Array;
  /** why auto chose the method ('' when the method was given) */
  reason: string;
  /** the bind's own times, in the worker (the weld, shells, handles and the whole bind; see BindMeshResult.timings) */
  bindTimings: BindMeshReply['timings'];
}

/**
 * The last completed bind, by the method that ran: the surface solve's result (its Laplacian, the bones and parts
 * without handles, its stage times), or the volumetric binding's (its grid, solid voxels, bones left out, stage times).
 */
export type LastBind = LastBindCommon &
  ({ method: 'surface'; result: HarmonicWeightsResult } | { method: 'volumetric'; result: VolumetricWeightsResult });

export class BindingController {
  readonly options: Required<BindOptions> = { ...BIND_DEFAULTS };
  selection = new Uint8Array(0);
  /** counts the selection's changes (the lasso edits it in place) */
  selectionVersion = 0;
  selectedCount = 0;
  /** the vertex a click selected last (the Vertex weights panel's active vertex while it stays selected), or -1 */
  clickedVertex = -1;
  xray = false;
  progress = { running: false, stage: '', fraction: 0 };
  /** the last completed bind, while its weights are the scene's: what ran, on which welded mesh, and what it found */
  lastResult: LastBind | null = null;
  lastError: string | null = null;
  overlap: { rows: HandleOverlap[]; name: string } | null = null;
  solveStarted = 0;
  /** the bones with handle vertices in the solve running (its handles, automatic ones not yet the scene's) */
  private solvedBones = 0;
  private freeHandles: Int32Array = new Int32Array(0);
  /** the scene mesh's vertices welded by the binding's weld tolerance, for the mesh and tolerance it was made for */
  private welded: { mesh: unknown; tolerance: number; weld: WeldGroups } | null = null;
  private readonly listeners = new Set<() => void>();
  /** where each handles array of the scene came from: the artist, or a rule by a Compute */
  private readonly provenance = new HandleProvenance();

  /** The binding settings a project saves: how Compute weights runs. */
  readonly settingsSection: SettingsSection<'binding'> = {
    save: () => ({ ...this.options }),
    restore: (saved) => {
      const options = this.options;
      options.source = pick(saved.source, HANDLE_SOURCES, options.source);
      options.laplacian = pick(saved.laplacian, ['cotan', 'uniform'] as const, options.laplacian);
      options.radiusFraction = saved.radiusFraction > 0 ? saved.radiusFraction : options.radiusFraction;
      options.bindUnhandled = saved.bindUnhandled;
      options.weldTolerance = saved.weldTolerance >= 0 ? saved.weldTolerance : BIND_DEFAULTS.weldTolerance;
      options.method = pick(saved.method, BINDING_METHODS, BIND_DEFAULTS.method);
      options.voxelResolution = saved.voxelResolution;
      options.falloff = saved.falloff;
      this.changed();
    },
  };

  constructor(private readonly host: BindingHost) {
    this.reset();
    this.noticeHandles(true, false);
    host.store.subscribe((change) => {
      if (change.kind !== 'document') return;
      const doc = host.store.doc;
      if (change.newScene || change.fields.has('mesh')) this.reset();
      // An edited skeleton keeps the selection and the report; a solve for the skeleton before it is cancelled.
      else if (change.fields.has('skeleton') && this.progress.running) this.host.client.cancel();
      if (this.lastResult && this.lastResult.weights !== doc.weights) this.lastResult = null;
      this.noticeHandles(change.newScene, change.fields.has('handles') && change.fields.has('handlesFile'));
      this.changed();
    });
  }

  /**
   * Handles loaded from a file while a rule is the handle source make the handles above the source (as a lasso edit
   * does), so the next Compute uses the handles loaded. Undo and redo bring back arrays seen before: no switch.
   */
  private noticeHandles(newScene: boolean, handlesReplaced: boolean): void {
    const handles = this.host.store.doc.handles;
    if (!handles || !this.provenance.isNew(handles)) return;
    if (!newScene && handlesReplaced && this.options.source !== 'current') this.options.source = 'current';
  }

  /**
   * The scene's handles that a Compute with automatic handles would lose: those drawn, loaded or edited, with the
   * ones a rule wrote (and nothing changed since) freed (-1). Compute's notice and the Bind panel's note count them.
   * @returns #V labels (bone, or -1)
   */
  drawnHandles(): Int32Array {
    return this.provenance.drawn(this.handles);
  }

  /**
   * How many drawn (or loaded, or edited) handle vertices a Compute with automatic handles replaces: those of `part`
   * (null: the whole scene), as drawnHandles gives them. The Bind panel's note says it before Compute runs.
   */
  handleVerticesReplaced(part: MeshPart | null): number {
    const drawn = this.drawnHandles();
    const start = part?.vertexStart ?? 0;
    const end = part ? start + part.vertexCount : drawn.length;
    let count = 0;
    for (let v = start; v < end; v++) if (drawn[v] >= 0) count++;
    return count;
  }

  /** A new scene or mesh: nothing selected, no report, no computation. */
  private reset(): void {
    const n = vertexCountOf(this.host.store.doc);
    this.selection = new Uint8Array(n);
    this.selectedCount = 0;
    this.clickedVertex = -1;
    this.selectionVersion++;
    this.freeHandles = new Int32Array(n).fill(-1);
    this.lastResult = null;
    // The old mesh's weld goes with it (it would keep the mesh's arrays alive).
    this.welded = null;
    this.overlap = null;
    if (this.progress.running) this.host.client.cancel();
    this.progress = { running: false, stage: '', fraction: 0 };
  }

  /** #V handle labels of the scene (bone index, or -1 for a free vertex). */
  get handles(): Int32Array {
    return this.host.store.doc.handles ?? this.freeHandles;
  }

  /** where the handles came from: a file, a rule, 'drawn handles', or null for none */
  get handlesName(): string | null {
    return this.host.store.doc.handlesFile;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  setXray(on: boolean): void {
    this.xray = on;
    this.changed();
  }

  /** The lasso tool's polygon (canvas CSS px) combined into the selection. */
  lassoed(polygon: number[], combine: LassoCombine): void {
    const doc = this.host.store.doc;
    const camera = this.host.viewProjection();
    const inside = lassoSelect({
      positions: this.host.posedPositions(),
      triangles: this.host.shownTriangles(),
      viewProjection: camera.elements,
      width: camera.width,
      height: camera.height,
      polygon,
      xray: this.xray,
      diagonal: doc.diagonal,
    });
    this.selectVertices(inside, combine);
  }

  /**
   * Vertices combined into the selection (the lasso's, a click's, or those a bone weighs). The selection is made of
   * whole welded vertices: a chosen vertex brings the vertices welded with it (at its place, or within the binding's
   * weld tolerance: a seam's other side), so a weight typed or pasted on the selection moves every copy alike and the
   * seam stays closed. Only those the lasso may select (the active mesh, not hidden) count.
   * @param inside  #V 1 = chosen (widened to welded groups and masked in place)
   */
  selectVertices(inside: Uint8Array, combine: LassoCombine): void {
    this.widenToWelded(inside);
    const mask = this.host.vertexMask();
    if (mask) for (let v = 0; v < inside.length; v++) inside[v] &= mask[v];
    const selection = this.selection;
    let count = 0;
    for (let v = 0; v < selection.length; v++) {
      if (combine === 'replace') selection[v] = inside[v];
      else if (combine === 'add') selection[v] |= inside[v];
      else if (inside[v]) selection[v] = 0;
      count += selection[v];
    }
    this.selectedCount = count;
    this.selectionVersion++;
    this.changed();
  }

  /**
   * Marks every vertex welded with a marked one (weldVertices with the binding's weld tolerance, kept while the mesh
   * and the tolerance stay).
   * @param inside #V 1 = chosen, widened in place
   */
  private widenToWelded(inside: Uint8Array): void {
    const { mesh } = this.host.store.doc;
    const tolerance = this.options.weldTolerance;
    if (this.welded?.mesh !== mesh || this.welded.tolerance !== tolerance)
      this.welded = { mesh, tolerance, weld: weldVertices(mesh.positions, new Uint32Array(0), { tolerance }) };
    const { weld } = this.welded;
    if (weld.count === inside.length) return;
    const chosen = new Uint8Array(weld.count);
    for (let v = 0; v < inside.length; v++) if (inside[v]) chosen[weld.index[v]] = 1;
    for (let v = 0; v < inside.length; v++) inside[v] = chosen[weld.index[v]];
  }

  /**
   * A click of the lasso tool on the mesh: the vertex and the vertices welded with it (`replace`), added (`add`,
   * Shift) or flipped (`toggle`, Ctrl). A click that misses the mesh (-1) without a modifier clears the selection; with one it changes nothing. A
   * vertex the lasso may not select (another mesh than the active one) changes nothing either.
   */
  clickVertex(vertex: number, combine: 'replace' | 'add' | 'toggle'): void {
    const inside = new Uint8Array(this.selection.length);
    if (vertex < 0 || vertex >= inside.length) {
      if (combine === 'replace') this.selectVertices(inside, 'replace');
      return;
    }
    const mask = this.host.vertexMask();
    if (mask && !mask[vertex]) return;
    inside[vertex] = 1;
    const deselect = combine === 'toggle' && this.selection[vertex] === 1;
    this.clickedVertex = deselect ? -1 : vertex;
    this.selectVertices(inside, combine === 'replace' ? 'replace' : deselect ? 'remove' : 'add');
  }

  /** Makes the selected vertices handles of the selected bone (one undo step); the selection is consumed. */
  assignSelection(): void {
    const bone = this.host.selectedBone();
    if (bone < 0) {
      this.host.showError('Select a bone first (click a joint or pick it in the Bind panel), then assign the selection to it.');
      return;
    }
    if (this.selectedCount === 0) return;
    const name = boneNamesOf(this.host.store.doc)[bone];
    this.editHandles(
      `Assign ${this.selectedCount} handle${this.selectedCount === 1 ? '' : 's'} to ${name}`,
      assignHandles(this.handles, this.selection, bone),
    );
  }

  /** Frees the selected vertices (one undo step); the selection is consumed. */
  clearSelection(): void {
    if (this.selectedCount === 0) return;
    this.editHandles(`Free ${this.selectedCount} handle${this.selectedCount === 1 ? '' : 's'}`, clearHandles(this.handles, this.selection));
  }

  /**
   * An edit of the scene's handles (one undo step). The next Compute weights uses the handles as edited: a rule
   * chosen as the handle source gives way to the current handles.
   */
  private editHandles(label: string, handles: Int32Array): void {
    const name = this.handlesName;
    this.selection = new Uint8Array(this.selection.length);
    this.selectedCount = 0;
    this.selectionVersion++;
    this.options.source = 'current';
    this.host.store.edit(label, {
      handles,
      handlesFile: name && !name.endsWith(', edited') ? `${name}, edited` : (name ?? 'drawn handles'),
    });
  }

  /** #B handle vertices per bone. */
  handleCounts(): number[] {
    return handleCounts(this.handles, boneCountOf(this.host.store.doc));
  }

  /** The last solve's warnings (bones without handles, parts without handles), one line each. */
  reportLines(): string[] {
    const last = this.lastResult;
    if (last?.method !== 'surface') return [];
    const names = boneNamesOf(this.host.store.doc);
    return bindingReport(
      last.result.bonesWithoutHandles,
      last.result.unhandledComponents,
      last.boundRigidly,
      names,
      last.result.handleConflicts,
    );
  }

  /** How many vertices are handles, and where they came from. */
  handleCount(): { count: number; name: string | null } {
    let count = 0;
    for (const bone of this.handles) if (bone >= 0) count++;
    return { count, name: this.handlesName };
  }

  /**
   * Computes harmonic weights with the current options (overridden by `overrides`), limited to the scene's max
   * influences, and makes them the scene's, as one undo step ("Compute weights"; automatic handles come with it).
   * Automatic handles that replace drawn or loaded ones are named in a notice with Undo (which takes back the whole
   * step). Never rejects: errors are shown, Cancel leaves everything as it was.
   * @param part  one mesh of the scene: the weights are solved on it alone (its triangles, its handles; bones
   *              without handles on it get zero there) and only its rows change, the other meshes' stay bit for bit;
   *              null: the whole scene
   */
  async startBind(overrides: BindOptions = {}, part: MeshPart | null = null): Promise<void> {
    const store = this.host.store;
    const doc = store.doc;
    if (this.host.client.running) return;
    const options = { ...this.options, ...overrides };
    this.lastError = null;
    this.solveStarted = performance.now();
    this.setProgress(true, 'handles', 0);
    try {
      const mesh = part ? partMesh(doc.mesh, this.handles, part) : { ...doc.mesh, handles: this.handles };
      const boneCount = boneCountOf(doc);
      const rule =
        options.source === 'current'
          ? null
          : options.source === 'distance'
            ? ({ rule: 'distance' } as const)
            : ({ rule: 'cylinder', radius: options.radiusFraction * doc.diagonal } as const);
      // One call: the weld, the shells, the automatic handles ('auto' binds volumetrically where they would take most
      // of the mesh), the method and the solve, in the worker, on one weld that comes back with the result.
      const bind = await this.host.client.bindMesh(
        mesh.positions,
        mesh.triangles,
        doc.skeleton,
        {
          method: options.method,
          handles: mesh.handles,
          rule,
          boneCount,
          weldTolerance: options.weldTolerance,
          harmonic: { laplacian: options.laplacian, unhandledComponents: options.bindUnhandled ? 'bind-rigidly' : 'report' },
          volumetric: {
            resolution: options.voxelResolution,
            falloff: options.falloff,
            maxInfluences: Math.min(VOLUMETRIC_MAX_INFLUENCES, this.host.maxInfluences?.() ?? VOLUMETRIC_WEIGHTS_DEFAULTS.maxInfluences),
          },
        },
        // Progress messages posted just before a cancel can still arrive after it.
        (stage, fraction, solvedBones) => {
          if (!this.host.client.running) return;
          if (solvedBones !== undefined) this.solvedBones = solvedBones;
          this.setProgress(true, stage, fraction);
        },
      );
      // A new mesh or skeleton meanwhile: these weights belong to a scene that is gone.
      if (store.doc.mesh !== doc.mesh || store.doc.skeleton !== doc.skeleton) return;
      // The weld the bind ran on serves the report's shells and the selection's welded groups.
      if (!part) this.welded = { mesh: doc.mesh, tolerance: options.weldTolerance, weld: bind.weld };
      const bound = { weld: bind.weld, shellOf: bind.shellOf, reason: bind.reason, bindTimings: bind.timings };
      if (bind.volumetric) {
        this.finishVolumetric(options, part, bind.volumetric, bound);
        return;
      }
      const result = bind.surface;
      if (!result)
        throw new Error(
          part
            ? `${part.name} has no handle vertices: draw some on it with the lasso (with it active), or choose automatic handles.`
            : 'There are no handle vertices: draw some with the lasso, load a handle file or choose automatic handles.',
        );
      const handles = bind.handles;
      const handleName = !rule
        ? (this.handlesName ?? 'drawn handles')
        : rule.rule === 'distance'
          ? 'automatic, distance rule'
          : `automatic, cylinders r = ${formatLength(rule.radius)}`;
      const seconds = (performance.now() - this.solveStarted) / 1000;
      const solvedRows = part ? part.vertexCount : vertexCountOf(doc);
      const limited = this.host.limitWeights?.({ rows: solvedRows, cols: boneCount, data: result.weights }).data ?? result.weights;
      const weights = part ? withPartWeights(doc.weights, part, limited) : { rows: vertexCountOf(doc), cols: boneCount, data: limited };
      const solved = `harmonic (${result.laplacianUsed}, ${handleName}, ${seconds.toFixed(seconds < 10 ? 1 : 0)} s)`;
      const source = part ? `${doc.weightsSource}; ${part.name}: ${solved}` : solved;
      const sceneHandles = part ? withPartHandles(this.handles, part, handles) : handles;
      const handleFields = options.source === 'current' ? {} : { handles: sceneHandles, handlesFile: handleName };
      // Always counted against the handles the artist drew or loaded (bones: 0 when the rule gives them again).
      const replaced = options.source === 'current' ? null : replacedHandles(this.drawnHandles(), sceneHandles, boneCount);
      if (options.source !== 'current') this.provenance.markRuleWritten(sceneHandles, this.handles, part);
      // A mesh the file had without a skin is skinned once it is bound.
      const parts = doc.parts && withSkinned(doc.parts, part);
      const partFields = parts !== doc.parts ? { parts } : {};
      store.edit(part ? `Compute weights of ${part.name}` : 'Compute weights', {
        weights,
        weightsSource: source,
        ...handleFields,
        ...partFields,
        // Weights of the whole mesh fit the skeleton as it is now; one part's leave the others' as stale as they were.
        ...(part ? {} : { bindingStale: undefined }),
      });
      // The report points at scene vertices.
      const unhandledComponents = result.unhandledComponents.map((c) => ({ ...c, firstVertex: c.firstVertex + (part?.vertexStart ?? 0) }));
      this.lastResult = {
        method: 'surface',
        result: { ...result, unhandledComponents },
        boundRigidly: options.bindUnhandled,
        weights,
        part,
        weldTolerance: options.weldTolerance,
        ...bound,
      };
      if (replaced && replaced.bones > 0) this.tellReplaced(replaced, doc.handlesFile ?? 'drawn handles', handleName);
      this.host.computed();
    } catch (error) {
      if (!(error instanceof DOMException && error.name === 'AbortError')) {
        this.lastError = errorMessage(error);
        this.host.showError(`Binding failed: ${this.lastError}`);
      }
    } finally {
      this.setProgress(false, '', 0);
    }
  }

  /**
   * startBind's volumetric ending: the volumetric binding's weights (the handles stay as they are and were not used),
   * limited to the scene's max influences, as one undo step.
   */
  private finishVolumetric(
    options: Required<BindOptions>,
    part: MeshPart | null,
    result: VolumetricWeightsResult,
    bound: Pick<LastBindCommon, 'weld' | 'shellOf' | 'reason' | 'bindTimings'>,
  ): void {
    const store = this.host.store;
    const doc = store.doc;
    const seconds = (performance.now() - this.solveStarted) / 1000;
    const boneCount = boneCountOf(doc);
    const solvedRows = part ? part.vertexCount : vertexCountOf(doc);
    const limited = this.host.limitWeights?.({ rows: solvedRows, cols: boneCount, data: result.weights }).data ?? result.weights;
    const weights = part ? withPartWeights(doc.weights, part, limited) : { rows: vertexCountOf(doc), cols: boneCount, data: limited };
    const { nx, ny, nz } = result.grid;
    const solved = `volumetric (${nx}×${ny}×${nz} voxels, falloff ${options.falloff}, ${seconds.toFixed(seconds < 10 ? 1 : 0)} s)`;
    const parts = doc.parts && withSkinned(doc.parts, part);
    store.edit(part ? `Compute weights of ${part.name}` : 'Compute weights', {
      weights,
      weightsSource: part ? `${doc.weightsSource}; ${part.name}: ${solved}` : solved,
      ...(parts !== doc.parts ? { parts } : {}),
      ...(part ? {} : { bindingStale: undefined }),
    });
    this.lastResult = {
      method: 'volumetric',
      result,
      boundRigidly: false,
      weights,
      part,
      weldTolerance: options.weldTolerance,
      ...bound,
    };
    this.host.computed();
  }

  /** The notice after automatic handles replaced drawn ones: how many bones' handles went, and Undo for the step. */
  private tellReplaced(replaced: ReplacedHandles, previousName: string, handleName: string): void {
    const history = this.host.store.history;
    const step = history.newest;
    const bones = `${replaced.bones} bone${replaced.bones === 1 ? '' : 's'}`;
    const vertices = `${replaced.vertices} handle ${replaced.vertices === 1 ? 'vertex' : 'vertices'}`;
    this.host.notify?.(
      `Automatic handles replaced the handles of ${bones}`,
      [
        `${vertices} (${previousName}) gave way to ${handleName}.`,
        'Undo puts them and the weights before back; choose “Handles above” to compute with the handles you draw.',
      ],
      [{ label: 'Undo', run: () => void (history.newest === step && history.undo()) }],
    );
  }

  cancelBind(): void {
    this.host.client.cancel();
  }

  private setProgress(running: boolean, stage: string, fraction: number): void {
    this.progress = { running, stage, fraction };
    this.changed();
  }

  /** What the progress bar says: the stage, the bone being solved, and the time so far. */
  progressText(): string {
    const { stage, fraction } = this.progress;
    let text = STAGE_TEXT[stage] ?? stage;
    if (stage === 'solve') {
      const active = this.solvedBones;
      const done = Math.round(((fraction - 0.5) / 0.5) * active);
      text = done >= active ? 'Solved' : `Solving: bone ${Math.min(active, done + 1)} of ${active}`;
    }
    return `${text} · ${((performance.now() - this.solveStarted) / 1000).toFixed(1)} s`;
  }

  async openHandles(): Promise<void> {
    const files = await this.host.bridge.openFiles({ title: 'Open a handle file', extensions: ['dmat'] });
    if (files.length > 0) await this.host.load(files);
  }

  saveHandles(): Promise<void> {
    return this.save('handles.dmat', writeDmatAscii(handlesToMatrix(this.handles)));
  }

  saveWeights(): Promise<void> {
    return this.save('weights.dmat', writeDmatAscii(this.host.store.doc.weights));
  }

  private async save(name: string, text: string): Promise<void> {
    try {
      await this.host.bridge.saveFile({ suggestedName: name, bytes: new TextEncoder().encode(text) });
    } catch (error) {
      this.host.showError(`Could not save ${name}: ${errorMessage(error)}`);
    }
  }

  /** Overlap of the handles with a reference handle file, bone by bone (|ours ∩ ref| / |ours ∪ ref|). */
  async compareHandles(): Promise<void> {
    const doc = this.host.store.doc;
    try {
      const [file] = await this.host.bridge.openFiles({ title: 'Open a reference handle file', extensions: ['dmat'] });
      if (!file) return;
      const read = await this.host.io.readRigFile(file.name, file.bytes);
      if (read.kind !== 'matrix') throw new Error(`${file.name}: not a DMAT matrix`);
      const reference = await this.host.io.handlesFromDmat(read.matrix, vertexCountOf(doc), boneCountOf(doc), file.name);
      this.overlap = { rows: handleOverlap(this.handles, reference, boneCountOf(doc)), name: file.name };
      this.changed();
    } catch (error) {
      this.host.showError(errorMessage(error));
    }
  }
}

/** What the status line and the Bind panel say while the binding is stale (SceneDocument.bindingStale). */
export const STALE_BINDING_TEXT = 'Skeleton changed since binding — rebind to update the weights';
