/**
 * The deformation methods in the viewport, as the rest of the app sees them: which skinning the mesh shows (linear
 * blend, dual quaternion, per-face, or LBS/DQS weight blended), DQS's antipodality mode, the split view comparing
 * two methods side by side, and the distortion and example maps. Each pose, it feeds the views it is given
 * (DeformationViews, renderer/view/deformation-views.ts: the skinned meshes, the split drawing) the joint
 * transforms, dual quaternions (with the first-phase scale of non-rigid joints), the examples' displacements, or
 * per-face positions solved in the deform worker. It also answers with the CPU reference of a method, which the
 * GPU readback is tested against.
 *
 * Its parts, one concern each: the settings (deformation-settings.ts), the CPU reference (cpu-reference.ts), the
 * vertex maps (vertex-maps.ts) and the per-face solver's client (per-face-solver.ts). DOM-free, without three.js
 * and renderer/view/ (the layer rules check it), so Node tests drive it with a fake views object.
 */
import type { Influences } from '../../workers/skinning/influences.ts';
import type { DualQuaternionAntipodality } from '../../workers/skinning/dual-quaternion-skinning.ts';
import type { SceneDocument } from '../../workers/scene/scene-document.ts';
import type { ContextSource } from './context-source.ts';
import { CpuReference, poseDualQuaternions, type ReferenceSettings } from './cpu-reference.ts';
import { DeformationSettings, type DeformationSetting, type ExampleMapMode } from './deformation-settings.ts';
import { PerFaceSolver, type DeformWorker, type PerFaceResult } from './per-face-solver.ts';
import type { PoseEvaluator } from './pose-evaluator.ts';
import { contextBaseOf, isPerFace, type SkinMethod } from './skin-methods.ts';
import { VertexMaps, valueRange } from './vertex-maps.ts';

export type { ContextSource } from './context-source.ts';

/** One skinned mesh the controller feeds: the main view, or the split view's second half. */
export interface SkinnedFeed {
  /**
   * @param perVertexSigns  DQS aligns signs per vertex (antipodality 'per-vertex')
   * @param scaled          some bone is scaled: the dual quaternions come with first-phase scales
   */
  setMethod(method: SkinMethod, perVertexSigns: boolean, scaled: boolean): void;
  /** the examples' displacements and normal changes (J × #V × 3) with their J weights, or null and no weights */
  setContext(displacements: Float64Array | null, normalDeltas: Float64Array | null, weights: ArrayLike<number>): void;
  /** #B × 12 rest → posed transforms */
  setTransforms(transforms: Float64Array): void;
  /** #B × 8 dual quaternions, with #B × 12 first-phase scales when a bone is scaled */
  setDualQuaternions(dualQuaternions: Float64Array, scales: Float64Array | null): void;
  /** a per-face method's solved positions and normals (#V × 3 each) */
  setStreamedPositions(positions: Float64Array, normals: Float64Array): void;
  /** #V values in [0, 1] to colour the mesh with (area distortion, or a magnitude), or null: no colouring */
  setDistortion(values: Float32Array | null, kind?: 'distortion' | 'magnitude'): void;
}

/**
 * The views the controller is given (renderer/view/deformation-views.ts): the main skinned view, the split view's
 * second half (made and removed here on request), and the split drawing. `View` is the skinned view's type and
 * `Renderer` the renderer a readback uses, both opaque to the controller.
 */
export interface DeformationViews<View = unknown, Renderer = unknown> {
  /** the main view */
  readonly primary: SkinnedFeed;
  /** the split view's second half, or null while the view is not split */
  readonly secondary: SkinnedFeed | null;
  /** the second half as the test hook sees it, or null */
  readonly splitView: View | null;
  /** makes the split view's second half: for the scene, look and triangles given last, with this #V blend */
  openSplit(blend: Float32Array): void;
  /** removes the split view's second half, if any */
  closeSplit(): void;
  /** a new document: the main view the app made for it; a second half shown is made again */
  setDocument(doc: SceneDocument, influences: Influences, primary: View): void;
  /** new influences, for the second half (the app gives the main view its own) */
  setInfluences(influences: Influences): void;
  /** the triangles drawn (hidden meshes' degenerate), for the second half */
  setTriangles(triangles: Uint32Array): void;
  /** the Look view on or off, for the second half */
  setLook(on: boolean): void;
  /** #V LBS ↔ DQS blend of the weight-blended method, for both halves */
  setBlendWeights(blend: Float32Array): void;
  /** the skinned views step aside (another display has the viewport): no split drawing */
  setHidden(hidden: boolean): void;
  /** resolves once the second half has its look's images (at once when there is none) */
  lookReady(): Promise<void>;
  /** the second half's skinned positions read back from the GPU (#V × 3), or null when there is none */
  readSplitPositions(renderer: Renderer): Float32Array | null;
}

const NO_EXAMPLES = new Float64Array(0);

export class DeformationController<View = unknown, Renderer = unknown> {
  /** method, antipodality, split, heat map, example map, blend weights; the controller follows every change */
  readonly settings: DeformationSettings;
  /** what the example map shows now, in words (its scale, or why it is blank) */
  exampleMapNote = '';
  /** each view's vertex map now: the lowest and highest value it was given, and the examples' full scale */
  private readonly mapRanges = new Map<SkinnedFeed, { min: number; max: number; fullScale: number }>();
  /** the examples' displacements and weights, for the context methods */
  context: ContextSource | null = null;

  private doc: SceneDocument;
  private influences: Influences;
  private readonly reference: CpuReference;
  private readonly maps: VertexMaps;
  private readonly perFace: PerFaceSolver;
  private dualQuaternions: Float64Array;
  private scales: Float64Array;
  private poseCounter = 0;
  private lastEvaluator: PoseEvaluator | null = null;
  private lookOn = false;
  private hiddenNow = false;

  /**
   * @param connect  makes the per-face solver's worker (tests give an in-process one; the page's by default)
   */
  constructor(
    private readonly views: DeformationViews<View, Renderer>,
    doc: SceneDocument,
    influences: Influences,
    private readonly onChange: () => void,
    connect?: () => DeformWorker,
  ) {
    this.doc = doc;
    this.influences = influences;
    this.settings = new DeformationSettings(doc.mesh.positions.length / 3);
    this.reference = new CpuReference(doc, influences);
    this.maps = new VertexMaps(doc);
    this.dualQuaternions = new Float64Array(8 * doc.skeleton.parents.length);
    this.scales = new Float64Array(12 * doc.skeleton.parents.length);
    this.perFace = new PerFaceSolver(
      {
        scene: () => ({ doc: this.doc, influences: this.influences }),
        newestPose: () => this.lastEvaluator,
        methodsShown: () => this.settings.methodsShown,
        context: () => this.context,
        solved: (results) => this.showSolved(results),
        changed: () => this.onChange(),
      },
      connect,
    );
    this.settings.subscribe((setting) => this.settingChanged(setting));
  }

  // --- the settings, as the rest of the app reads and sets them ----------------------------------------------

  get method(): SkinMethod {
    return this.settings.method;
  }

  get antipodality(): DualQuaternionAntipodality {
    return this.settings.antipodality;
  }

  /** the right half's method in the split view, or null when the view is not split */
  get splitMethod(): SkinMethod | null {
    return this.settings.splitMethod;
  }

  get heatMap(): boolean {
    return this.settings.heatMap;
  }

  /**
   * The examples' heat maps: the displacement applied now, |Σ_j a_j δ_j| (full scale: the largest |δ| of any
   * example), or, at an example's own pose, each vertex's distance to that example (full scale: 0.1% of the
   * bounding-box diagonal). They take the place of the distortion map.
   */
  get exampleMap(): ExampleMapMode {
    return this.settings.exampleMap;
  }

  /**
   * The vertex map on screen (the distortion or an examples' map) and the values it colours with now, over the views
   * shown (both halves of the split view): the lowest and highest, in the map's own units (log2 of the area ratio;
   * mesh units for the examples' maps), and the full scale the colours saturate at in those units (1 for the
   * distortion, ±1: half or double the area). null when no vertex map is on or no view has one yet.
   */
  get vertexMapShown(): { map: 'distortion' | Exclude<ExampleMapMode, 'off'>; min: number; max: number; fullScale: number } | null {
    const { vertexMap, exampleMap } = this.settings;
    if (vertexMap === 'none') return null;
    const ranges = this.shownFeeds().flatMap(([feed]) => this.mapRanges.get(feed) ?? []);
    if (ranges.length === 0) return null;
    // The examples' values are fractions of their full scale; in mesh units they are those times the scale.
    const unit = (r: { fullScale: number }) => (vertexMap === 'example' ? r.fullScale : 1);
    return {
      map: exampleMap === 'off' ? 'distortion' : exampleMap,
      min: Math.min(...ranges.map((r) => r.min * unit(r))),
      max: Math.max(...ranges.map((r) => r.max * unit(r))),
      fullScale: Math.max(...ranges.map((r) => r.fullScale)),
    };
  }

  /** #V LBS ↔ DQS blend of method 'blend' (0 = LBS) */
  get blendWeights(): Float32Array {
    return this.settings.blendWeights;
  }

  /** per-face context's unposing of the examples in the worker: the fraction done, or null when none runs */
  get perFaceUnposing(): number | null {
    return this.perFace.unposing;
  }

  /** Cancels per-face context's unposing of the examples: its progress goes at once (PerFaceSolver.cancel). */
  cancelPerFaceUnposing(): void {
    this.perFace.cancel();
  }

  /** the views draw the asset's materials (the Look view) */
  get lookShown(): boolean {
    return this.lookOn;
  }

  /** the skinned views step aside (another display, e.g. the unposed examples, has the viewport) */
  get hidden(): boolean {
    return this.hiddenNow;
  }

  set hidden(hidden: boolean) {
    this.hiddenNow = hidden;
    this.views.setHidden(hidden);
  }

  setMethod(method: SkinMethod): void {
    this.settings.setMethod(method);
  }

  cycleMethod(): void {
    this.settings.cycleMethod();
  }

  setAntipodality(mode: DualQuaternionAntipodality): void {
    this.settings.setAntipodality(mode);
  }

  /** @param method  the right half's method, or null to show one view */
  setSplit(method: SkinMethod | null): void {
    this.settings.setSplit(method);
  }

  setHeatMap(on: boolean): void {
    this.settings.setHeatMap(on);
  }

  setExampleMap(mode: ExampleMapMode): void {
    this.settings.setExampleMap(mode);
  }

  setBlendWeights(blend: Float32Array): void {
    this.settings.setBlendWeights(blend);
  }

  // --- the scene ---------------------------------------------------------------------------------------------

  /** A new document (or new influences): views, per-vertex buffers and the per-face factor start over. */
  setDocument(doc: SceneDocument, influences: Influences, primary: View): void {
    const sameMesh = doc.mesh === this.doc.mesh;
    this.doc = doc;
    this.influences = influences;
    const n = doc.mesh.positions.length / 3;
    if (!sameMesh || this.settings.blendWeights.length !== n) this.settings.startMesh(n);
    this.dualQuaternions = new Float64Array(8 * doc.skeleton.parents.length);
    this.scales = new Float64Array(12 * doc.skeleton.parents.length);
    this.reference.setScene(doc, influences);
    this.maps.setDocument(doc);
    this.views.setDocument(doc, influences, primary);
    this.perFace.drop();
    // The last evaluator belongs to the previous document; the caller poses the new one next.
    this.lastEvaluator = null;
    this.configureViews();
  }

  setInfluences(influences: Influences): void {
    this.influences = influences;
    this.views.setInfluences(influences);
    this.reference.setScene(this.doc, influences);
    this.perFace.drop();
  }

  /**
   * New handles on the same mesh and weights: per-face stitching fixes the root bones' handle vertices, so its setup
   * is made again from them.
   */
  setHandles(doc: SceneDocument): void {
    this.doc = doc;
    this.reference.setScene(doc, this.influences);
    this.maps.setDocument(doc);
    this.perFace.drop();
    this.configureViews();
  }

  /**
   * The influences were edited in place (a paint stroke or command ended): the per-face setup, built from them, is
   * built again when next used.
   */
  influencesEdited(): void {
    this.reference.dropPerFace();
    this.perFace.drop();
  }

  /** The triangles drawn (hidden meshes' ones degenerate, MeshesController.visibleTriangles), for the split view's second half too. */
  setTriangles(triangles: Uint32Array): void {
    this.views.setTriangles(triangles);
  }

  /** The Look view on or off, for the split view's second half too. */
  setLook(on: boolean): void {
    this.lookOn = on;
    this.views.setLook(on);
  }

  /** Resolves once the split view's second half has its look's images (at once when the view is not split). */
  lookReady(): Promise<void> {
    return this.views.lookReady();
  }

  /** The split view's second half, when it is shown: for the test hook. */
  get splitView(): View | null {
    return this.settings.splitMethod !== null ? this.views.splitView : null;
  }

  /** The split view's right half read back from the GPU (#V × 3), or null when the view is not split. */
  readSplitPositions(renderer: Renderer): Float32Array | null {
    return this.views.readSplitPositions(renderer);
  }

  // --- poses -------------------------------------------------------------------------------------------------

  /** Feeds this pose to every visible view. */
  applyPose(evaluator: PoseEvaluator): void {
    this.lastEvaluator = evaluator;
    this.poseCounter++;
    const { antipodality, vertexMap, exampleMap } = this.settings;
    const scaled = evaluator.scaled;
    const scales = poseDualQuaternions(this.doc.skeleton, evaluator, antipodality, this.dualQuaternions, this.scales);
    const shown = this.shownFeeds();
    const context = this.context;
    if (context) {
      context.require(shown.flatMap(([, method]) => contextBaseOf(method) ?? []));
      context.setPose(evaluator.rotations);
    }
    for (const [feed, method] of shown) {
      feed.setMethod(method, antipodality === 'per-vertex', scaled);
      const base = contextBaseOf(method);
      const displacements = base && context ? context.displacements(base) : null;
      const normals = base && context && displacements ? context.normalDeltas(base) : null;
      feed.setContext(displacements, normals, displacements && context ? context.weights : NO_EXAMPLES);
      feed.setTransforms(evaluator.transforms);
      feed.setDualQuaternions(this.dualQuaternions, scales);
      if (isPerFace(method)) {
        const last = this.perFace.request(method, this.poseCounter, evaluator);
        if (last) feed.setStreamedPositions(last.positions, last.normals);
      } else if (vertexMap === 'distortion') this.showDistortion(feed, this.cpuReference(method, evaluator));
      if (exampleMap !== 'off') {
        const { values, fullScale, note } = this.maps.exampleMap(exampleMap, method, evaluator.rotations, context, () =>
          this.cpuReference(method, evaluator),
        );
        this.exampleMapNote = note;
        this.mapRanges.set(feed, { ...valueRange(values), fullScale });
        feed.setDistortion(values, 'magnitude');
      }
    }
  }

  /**
   * The CPU reference of a method at the evaluator's current pose (workers/skinning/*), with this controller's
   * influences, antipodality, bone scales and blend weights.
   * @returns #V × 3 positions (a buffer reused by the next call)
   */
  cpuReference(method: SkinMethod, evaluator: PoseEvaluator): Float64Array {
    return this.reference.positions(method, evaluator, this.referenceSettings());
  }

  /**
   * cpuReference at some vertices only, for a method that skins each vertex on its own (all but per-face, whose
   * Poisson solve couples every vertex).
   * @param vertices the vertices (first `count`)
   * @param out      count × 3 their positions, in the order of `vertices`
   * @returns false, writing nothing, for per-face skinning
   */
  cpuReferenceAt(method: SkinMethod, evaluator: PoseEvaluator, vertices: ArrayLike<number>, count: number, out: Float64Array): boolean {
    return this.reference.positionsAt(method, evaluator, this.referenceSettings(), vertices, count, out);
  }

  /** Resolves once the per-face solve of the newest pose is on the GPU, or has failed (at once for the other methods). */
  settled(): Promise<void> {
    return this.perFace.settled();
  }

  /** How many threads plain per-face frames run on: 2 when the page shares memory and the mesh is large enough. */
  perFaceThreads(): Promise<number> {
    return this.perFace.threads();
  }

  /** Whether per-face context frames blend their products on two threads (the examples in shared memory). */
  perFaceExamplesShared(): Promise<boolean> {
    return this.perFace.examplesShared();
  }

  /** Whether per-face frames run the WebAssembly kernels, solve and face loop (else their JavaScript loops). */
  perFaceKernels(): Promise<boolean> {
    return this.perFace.frameKernels();
  }

  /** The per-face error to show, if its setup failed (e.g. no fixed vertex). */
  get perFaceError(): string | null {
    return this.perFace.error;
  }

  // --- feeding the views -------------------------------------------------------------------------------------

  private referenceSettings(): ReferenceSettings {
    const { antipodality, blendWeights } = this.settings;
    return { antipodality, blendWeights, context: this.context };
  }

  private settingChanged(setting: DeformationSetting): void {
    if (setting === 'blendWeights') {
      // The shaders read the blend; the pose is applied again by whoever changed it (the frame loop's markPose).
      this.views.setBlendWeights(this.settings.blendWeights);
      return;
    }
    if (setting === 'split' && this.settings.splitMethod === null) this.views.closeSplit();
    this.configureViews();
  }

  /** The views on screen with their methods: the main view, then the split view's second half. */
  private shownFeeds(): [SkinnedFeed, SkinMethod][] {
    const { primary, secondary } = this.views;
    const { method, splitMethod } = this.settings;
    const shown: [SkinnedFeed, SkinMethod][] = [[primary, method]];
    if (splitMethod !== null && secondary) shown.push([secondary, splitMethod]);
    return shown;
  }

  private configureViews(): void {
    if (this.settings.splitMethod !== null && !this.views.secondary) this.views.openSplit(this.settings.blendWeights);
    if (this.settings.vertexMap === 'none') for (const [feed] of this.shownFeeds()) feed.setDistortion(null);
    this.mapRanges.clear();
    if (this.lastEvaluator) this.applyPose(this.lastEvaluator);
    this.onChange();
  }

  private showDistortion(feed: SkinnedFeed, positions: ArrayLike<number>): void {
    const values = this.maps.distortion(positions);
    this.mapRanges.set(feed, { ...valueRange(values), fullScale: 1 });
    feed.setDistortion(values);
  }

  /** The newest pose asked for is solved per face: each view of a per-face method takes its result. */
  private showSolved(results: ReadonlyMap<SkinMethod, PerFaceResult>): void {
    const distortion = this.settings.vertexMap === 'distortion';
    for (const [feed, method] of this.shownFeeds()) {
      const result = results.get(method);
      if (!result) continue;
      feed.setStreamedPositions(result.positions, result.normals);
      if (distortion) this.showDistortion(feed, result.positions);
    }
    this.onChange();
  }
}
