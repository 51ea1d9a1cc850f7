/**
 * The deformation methods in the viewport: which skinning the mesh shows (linear blend, dual quaternion,
 * per-face, or LBS/DQS weight blended), DQS's antipodality mode, the split view comparing two methods side by
 * side (scissor halves of one canvas, one camera, one pose), and the distortion heat map. It feeds each visible
 * SkinnedMeshView every pose: joint transforms, dual quaternions (with the first-phase scale of non-rigid
 * joints), or per-face positions solved in workers/deform.worker.ts and streamed into the position buffer.
 * It also computes the CPU reference of the method shown, which the GPU readback is tested against.
 */
import * as THREE from 'three';
import { proxy, transfer, type Remote } from 'comlink';
import type { DeformApi } from '../../workers/deform.worker.ts';
import { SupervisedWorker, supervisedRemote } from '../io/worker-supervisor.ts';
import type { Influences } from '../../workers/skinning/influences.ts';
import { linearBlendSkinning } from '../../workers/skinning/linear-blend-skinning.ts';
import { dualQuaternionSkinning, type DualQuaternionAntipodality } from '../../workers/skinning/dual-quaternion-skinning.ts';
import { alignDualQuaternionSigns } from '../../workers/skinning/align-dual-quaternion-signs.ts';
import { splitNonRigidTransforms } from '../../workers/skinning/split-non-rigid-transform.ts';
import { weightBlendedSkinning } from '../../workers/skinning/weight-blended-skinning.ts';
import {
  perFaceFixedVertices,
  perFaceSkinning,
  perFaceSkinningSetup,
  type PerFaceSkinningSetup,
} from '../../workers/skinning/per-face-skinning.ts';
import { dualQuatsFromRigidMatrices } from '../../workers/math/dual-quaternion.ts';
import { oneRingAreaChange, oneRingAreas } from '../../workers/mesh/one-ring-area-change.ts';
import type { SceneDocument } from '../../workers/scene/scene-document.ts';
import type { PoseEvaluator } from './pose-evaluator.ts';
import { SkinnedMeshView, type GpuSkinMethod } from '../view/skinned-mesh.ts';
import type { Viewport } from '../view/viewport.ts';

import { forwardKinematics } from '../../workers/rig/forward-kinematics.ts';
import {
  perFaceContextSkinning,
  perFaceExamples,
  perFaceUnposeExamples,
  type PerFaceExamples,
} from '../../workers/posespace/per-face-context.ts';
import { poseDistance } from '../../workers/posespace/pose-space-weights.ts';
import type { ExampleShape } from '../../workers/scene/scene-document.ts';
import { METHOD_CYCLE, contextBaseOf, isPerFace, perFaceBlendOf, type SkinMethod } from './skin-methods.ts';

const drawingSize = new THREE.Vector2();

const GPU_METHOD: Record<SkinMethod, GpuSkinMethod> = {
  lbs: 'lbs',
  dqs: 'dqs',
  perface: 'streamed',
  blend: 'blend',
  'context-lbs': 'lbs',
  'context-dqs': 'dqs',
  'context-perface-eq9': 'streamed',
  'context-perface-eq10': 'streamed',
};

const NO_EXAMPLES = new Float64Array(0);

/**
 * What context skinning rides on (renderer/posespace/pose-space-controller.ts): the examples' displacements through
 * LBS or DQS and the pose-space weights of the pose last given.
 */
export interface ContextSource {
  /** J × #V × 3 displacements unposed through `base`, or null while they are being computed */
  displacements(base: 'lbs' | 'dqs'): Float64Array | null;
  /** J × #V × 3 changes of the unposed examples' normals from the rest normals, packed like the displacements */
  normalDeltas(base: 'lbs' | 'dqs'): Float64Array | null;
  /** J weights a_j at the pose last given to setPose */
  readonly weights: Float64Array;
  setPose(rotations: Float64Array): void;
  /** the bases the methods on screen need (unposing starts for what is missing) */
  require(bases: readonly ('lbs' | 'dqs')[]): void;
  /** the examples the weights are for, in order */
  readonly active: ExampleShape[];
}

/**
 * Per-face state of one document: the worker's factor, the examples it holds for per-face context (unposed per
 * face once per example set), the newest pose asked for and shown, and the last result of each per-face method.
 */
interface PerFaceState {
  ready: Promise<void>;
  /** the examples given to the worker, and the promise of their per-face unposing */
  examples: readonly ExampleShape[] | null;
  examplesReady: Promise<void>;
  requested: number;
  shown: number;
  results: Map<SkinMethod, { positions: Float64Array; normals: Float64Array }>;
  busy: boolean;
  error: string | null;
}

export class DeformationController {
  method: SkinMethod = 'lbs';
  antipodality: DualQuaternionAntipodality = 'per-vertex';
  /** the right half's method in the split view, or null when the view is not split */
  splitMethod: SkinMethod | null = null;
  heatMap = false;
  /**
   * The examples' heat maps: the displacement applied now, |Σ_j a_j δ_j| (full scale: the largest |δ| of any
   * example), or, at an example's own pose, each vertex's distance to that example (full scale: 0.1% of the
   * bounding-box diagonal). They take the place of the distortion map.
   */
  exampleMap: 'off' | 'displacement' | 'error' = 'off';
  /** per-face context's unposing of the examples in the worker: the fraction done, or null when none runs */
  perFaceUnposing: number | null = null;
  /** the views draw the asset's materials (the Look view) */
  lookShown = false;
  /** the skinned views step aside (another display, e.g. the unposed examples, has the viewport) */
  hidden = false;
  /** what the example map shows now, in words (its scale, or why it is blank) */
  exampleMapNote = '';
  /** #V LBS ↔ DQS blend of method 'blend' (0 = LBS) */
  blendWeights: Float32Array;

  private secondary: SkinnedMeshView | null = null;
  /** the triangles the views draw (hidden meshes' degenerate), or null: all */
  private triangles: Uint32Array | null = null;
  private dualQuaternions: Float64Array;
  private scales: Float64Array;
  private worker: Remote<DeformApi> | null = null;
  private perFace: PerFaceState | null = null;
  private perFaceReference: PerFaceSkinningSetup | null = null;
  /** per-face context's CPU reference: the examples' face transformations, for the example list they were made of */
  private perFaceContextReference: { examples: readonly ExampleShape[]; data: PerFaceExamples } | null = null;
  private waiters: (() => void)[] = [];
  private restAreas: Float64Array;
  private scratchAreas: Float64Array;
  private distortion: Float32Array;
  private cpuScratch: Float64Array;
  private magnitudes = new Float32Array(0);
  private poseCounter = 0;
  private lastEvaluator: PoseEvaluator | null = null;
  /** the examples' displacements and weights, for the context methods */
  context: ContextSource | null = null;

  constructor(
    private readonly viewport: Viewport,
    private doc: SceneDocument,
    private influences: Influences,
    private primary: SkinnedMeshView,
    private readonly onChange: () => void,
  ) {
    const n = doc.mesh.positions.length / 3;
    this.blendWeights = new Float32Array(n);
    this.dualQuaternions = new Float64Array(8 * doc.skeleton.parents.length);
    this.scales = new Float64Array(12 * doc.skeleton.parents.length);
    this.restAreas = oneRingAreas(doc.mesh.positions, doc.mesh.triangles, new Float64Array(n));
    this.scratchAreas = new Float64Array(n);
    this.distortion = new Float32Array(n);
    this.cpuScratch = new Float64Array(3 * n);
    viewport.renderHook = (renderer, scene, camera) => this.renderSplit(renderer, scene, camera);
  }

  /** A new document (or new influences): views, per-vertex buffers and the per-face factor start over. */
  setDocument(doc: SceneDocument, influences: Influences, primary: SkinnedMeshView): void {
    const sameMesh = doc.mesh === this.doc.mesh;
    this.doc = doc;
    this.influences = influences;
    this.primary = primary;
    const n = doc.mesh.positions.length / 3;
    if (!sameMesh || this.blendWeights.length !== n) {
      this.blendWeights = new Float32Array(n);
      this.restAreas = oneRingAreas(doc.mesh.positions, doc.mesh.triangles, new Float64Array(n));
      this.scratchAreas = new Float64Array(n);
      this.distortion = new Float32Array(n);
      this.cpuScratch = new Float64Array(3 * n);
    }
    this.dualQuaternions = new Float64Array(8 * doc.skeleton.parents.length);
    this.scales = new Float64Array(12 * doc.skeleton.parents.length);
    this.disposeSecondary();
    this.dropPerFace();
    // The last evaluator belongs to the previous document; the caller poses the new one next.
    this.lastEvaluator = null;
    this.configureViews();
  }

  setInfluences(influences: Influences): void {
    this.influences = influences;
    this.secondary?.setInfluences(influences);
    this.dropPerFace();
  }

  /**
   * New handles on the same mesh and weights: per-face stitching fixes the root bones' handle vertices, so its setup
   * is made again from them.
   */
  setHandles(doc: SceneDocument): void {
    this.doc = doc;
    this.dropPerFace();
    this.configureViews();
  }

  /**
   * The influences were edited in place (a paint stroke or command ended): the per-face setup, built from them, is
   * built again when next used.
   */
  influencesEdited(): void {
    this.dropPerFace();
  }

  /** Abandons the per-face solve (its factor no longer fits) and releases whoever waits on it. */
  private dropPerFace(): void {
    this.perFace = null;
    this.perFaceReference = null;
    this.perFaceContextReference = null;
    this.releaseWaiters();
  }

  private releaseWaiters(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }

  setMethod(method: SkinMethod): void {
    this.method = method;
    this.configureViews();
  }

  cycleMethod(): void {
    const i = METHOD_CYCLE.indexOf(this.method);
    this.setMethod(METHOD_CYCLE[(i + 1) % METHOD_CYCLE.length]);
  }

  setAntipodality(mode: DualQuaternionAntipodality): void {
    this.antipodality = mode;
    this.configureViews();
  }

  /** @param method  the right half's method, or null to show one view */
  setSplit(method: SkinMethod | null): void {
    this.splitMethod = method;
    if (method === null) this.disposeSecondary();
    this.configureViews();
  }

  /** Resolves once the split view's second half has its look's images (at once when the view is not split). */
  lookReady(): Promise<void> {
    return this.secondary?.lookReady ?? Promise.resolve();
  }

  /** The triangles drawn (hidden meshes' ones degenerate, MeshesController.visibleTriangles), for the split view's second half too. */
  setTriangles(triangles: Uint32Array): void {
    this.triangles = triangles;
    this.secondary?.setTriangles(triangles);
  }

  /** The split view's second half, when it is shown: for the test hook. */
  get splitView(): SkinnedMeshView | null {
    return this.splitMethod !== null ? this.secondary : null;
  }

  /** The Look view on or off, for the split view's second half too. */
  setLook(on: boolean): void {
    this.lookShown = on;
    this.secondary?.setLook(on);
  }

  setHeatMap(on: boolean): void {
    this.heatMap = on;
    this.configureViews();
  }

  setExampleMap(mode: 'off' | 'displacement' | 'error'): void {
    this.exampleMap = mode;
    this.configureViews();
  }

  setBlendWeights(blend: Float32Array): void {
    this.blendWeights.set(blend);
    this.primary.setBlendWeights(this.blendWeights);
    this.secondary?.setBlendWeights(this.blendWeights);
  }

  /** Feeds this pose to every visible view. */
  applyPose(evaluator: PoseEvaluator): void {
    this.lastEvaluator = evaluator;
    this.poseCounter++;
    const scaled = evaluator.scaled;
    if (scaled) {
      splitNonRigidTransforms(this.doc.skeleton, evaluator.transforms, this.dualQuaternions, this.scales);
    } else {
      // Without bone scales the transforms are rigid (scaledForwardKinematics equals forwardKinematics exactly).
      dualQuatsFromRigidMatrices(evaluator.transforms, this.dualQuaternions);
    }
    if (this.antipodality === 'per-bone')
      alignDualQuaternionSigns(this.doc.skeleton.parents, this.doc.skeleton.order, this.dualQuaternions);
    const views = this.visibleViews();
    const context = this.context;
    if (context) {
      context.require(views.flatMap(([, method]) => contextBaseOf(method) ?? []));
      context.setPose(evaluator.rotations);
    }
    for (const [view, method] of views) {
      view.setMethod(GPU_METHOD[method], this.antipodality === 'per-vertex', scaled);
      const base = contextBaseOf(method);
      const displacements = base && context ? context.displacements(base) : null;
      const normals = base && displacements ? context!.normalDeltas(base) : null;
      view.setContext(displacements, normals, displacements ? context!.weights : NO_EXAMPLES);
      view.setTransforms(evaluator.transforms);
      view.setDualQuaternions(this.dualQuaternions, scaled ? this.scales : null);
      if (isPerFace(method)) this.requestPerFace(view, method, evaluator);
      else if (this.heatMap && this.exampleMap === 'off') view.setDistortion(this.distortionOf(this.cpuReference(method, evaluator)));
      if (this.exampleMap !== 'off') view.setDistortion(this.exampleMapValues(method, evaluator), 'magnitude');
    }
  }

  /**
   * The CPU reference of a method at the evaluator's current pose (workers/skinning/*), with this controller's
   * influences, antipodality, bone scales and blend weights.
   * @returns #V × 3 positions (a buffer reused by the next call)
   */
  cpuReference(method: SkinMethod, evaluator: PoseEvaluator): Float64Array {
    const out = this.cpuScratch;
    if (isPerFace(method)) {
      this.perFaceReference ??= perFaceSkinningSetup(
        this.doc.mesh.positions,
        this.doc.mesh.triangles,
        this.influences,
        this.doc.skeleton.parents.length,
        this.fixedBones(),
      );
      const blend = perFaceBlendOf(method);
      const scales = evaluator.scaled ? evaluator.boneScales : null;
      if (blend && this.context) {
        const examples = this.perFaceContextExamples(this.perFaceReference, this.context.active);
        perFaceContextSkinning(this.perFaceReference, examples, this.context.weights, blend, evaluator.transforms, out, undefined, scales);
      } else perFaceSkinning(this.perFaceReference, evaluator.transforms, out, undefined, scales);
    } else {
      this.skinPerVertex(method, evaluator, this.doc.mesh.positions, this.influences, this.blendWeights, out);
    }
    return out;
  }

  /**
   * cpuReference at some vertices only, for a method that skins each vertex on its own (all but per-face, whose
   * Poisson solve couples every vertex).
   * @param vertices the vertices (first `count`)
   * @param out      count × 3 their positions, in the order of `vertices`
   * @returns false, writing nothing, for per-face skinning
   */
  cpuReferenceAt(method: SkinMethod, evaluator: PoseEvaluator, vertices: ArrayLike<number>, count: number, out: Float64Array): boolean {
    if (isPerFace(method)) return false;
    const { stride } = this.influences;
    const rest = new Float64Array(3 * count);
    const influences: Influences = {
      vertexCount: count,
      stride,
      bones: new Uint32Array(count * stride),
      weights: new Float32Array(count * stride),
    };
    const blend = new Float32Array(count);
    for (let i = 0; i < count; i++) {
      const v = vertices[i];
      rest.set(this.doc.mesh.positions.subarray(3 * v, 3 * v + 3), 3 * i);
      influences.bones.set(this.influences.bones.subarray(v * stride, v * stride + stride), i * stride);
      influences.weights.set(this.influences.weights.subarray(v * stride, v * stride + stride), i * stride);
      blend[i] = this.blendWeights[v];
    }
    this.skinPerVertex(method, evaluator, rest, influences, blend, out, vertices);
    return true;
  }

  /** @param vertices  which vertices `rest` holds (cpuReferenceAt), or undefined for all of them in order */
  private skinPerVertex(
    method: SkinMethod,
    evaluator: PoseEvaluator,
    rest: Float64Array,
    influences: Influences,
    blend: Float32Array,
    out: Float64Array,
    vertices?: ArrayLike<number>,
  ): void {
    const options = { antipodality: this.antipodality, scaleTransforms: evaluator.scaled ? this.scales : null };
    const base = contextBaseOf(method);
    const displacements = base && this.context ? this.context.displacements(base) : null;
    if (base && displacements) {
      // The examples' displacements of these vertices, weighted, move the rest positions first (Eq. 7).
      const n = this.doc.mesh.positions.length;
      const corrected = new Float64Array(rest.length);
      const weights = this.context!.weights;
      const whole = rest.length === n && rest === this.doc.mesh.positions;
      for (let i = 0; i < rest.length / 3; i++) {
        const v = whole ? i : (vertices?.[i] ?? i);
        for (let c = 0; c < 3; c++) {
          let x = rest[3 * i + c];
          for (let j = 0; j < weights.length; j++) if (weights[j] !== 0) x += weights[j] * displacements[j * n + 3 * v + c];
          corrected[3 * i + c] = x;
        }
      }
      rest = corrected;
    }
    switch (method) {
      case 'context-lbs':
      case 'lbs':
        linearBlendSkinning(rest, influences, evaluator.transforms, out);
        break;
      case 'context-dqs':
      case 'dqs':
        dualQuaternionSkinning(rest, influences, this.dualQuaternions, out, options);
        break;
      case 'blend':
        weightBlendedSkinning(rest, influences, evaluator.transforms, this.dualQuaternions, blend, out, options);
        break;
      default:
        throw new Error(`${method} is solved per face, not per vertex`);
    }
  }

  /** #V values in [0, 1] of the example map for a method at the evaluator's pose (see exampleMap). */
  private exampleMapValues(method: SkinMethod, evaluator: PoseEvaluator): Float32Array {
    const n = this.doc.mesh.positions.length / 3;
    if (this.magnitudes.length !== n) this.magnitudes = new Float32Array(n);
    const out = this.magnitudes.fill(0);
    const context = this.context;
    if (!context || context.active.length === 0) {
      this.exampleMapNote = 'no examples shown';
      return out;
    }
    if (this.exampleMap === 'displacement') {
      const base = contextBaseOf(method) ?? (method === 'dqs' ? 'dqs' : 'lbs');
      const displacements = context.displacements(base);
      if (!displacements) {
        this.exampleMapNote = 'waiting for unposing';
        return out;
      }
      let scale = 0;
      for (let i = 0; i < displacements.length; i += 3)
        scale = Math.max(scale, Math.hypot(displacements[i], displacements[i + 1], displacements[i + 2]));
      const { weights } = context;
      for (let v = 0; v < n; v++) {
        let x = 0,
          y = 0,
          z = 0;
        for (let j = 0; j < weights.length; j++) {
          const o = 3 * (j * n + v);
          x += weights[j] * displacements[o];
          y += weights[j] * displacements[o + 1];
          z += weights[j] * displacements[o + 2];
        }
        out[v] = scale > 0 ? Math.hypot(x, y, z) / scale : 0;
      }
      this.exampleMapNote = `|Σ a_j δ_j| through ${base.toUpperCase()}; full scale ${scale.toPrecision(3)} (the largest |δ|)`;
      return out;
    }
    const B = this.doc.skeleton.parents.length;
    const example = context.active.find((e) => poseDistance(e.pose, 0, evaluator.rotations, 0, B) < 1e-9);
    if (!example) {
      this.exampleMapNote = 'not at an example’s pose: go to one (its frame) to see the error against it';
      return out;
    }
    const positions = this.cpuReference(method, evaluator);
    const scale = 1e-3 * this.doc.diagonal;
    let worst = 0;
    for (let v = 0; v < n; v++) {
      const d = Math.hypot(
        positions[3 * v] - example.positions[3 * v],
        positions[3 * v + 1] - example.positions[3 * v + 1],
        positions[3 * v + 2] - example.positions[3 * v + 2],
      );
      worst = Math.max(worst, d);
      out[v] = d / scale;
    }
    this.exampleMapNote = `distance to ${example.name}: largest ${(worst / this.doc.diagonal).toExponential(2)} of the diagonal; full scale 0.1%`;
    return out;
  }

  /** The examples' per-face transformations for the CPU reference (unposed per face on the main thread, once per list). */
  private perFaceContextExamples(setup: PerFaceSkinningSetup, examples: readonly ExampleShape[]): PerFaceExamples {
    const cached = this.perFaceContextReference;
    if (cached && sameList(cached.examples, examples)) return cached.data;
    const unposed = perFaceUnposeExamples(setup, this.perFaceUnposeInputs(examples)).map((r) => r.unposed);
    const data = perFaceExamples(setup, unposed);
    this.perFaceContextReference = { examples, data };
    return data;
  }

  /** Each example's positions and the bone transforms of its own pose. */
  private perFaceUnposeInputs(examples: readonly ExampleShape[]): { positions: Float64Array; transforms: Float64Array }[] {
    return examples.map((e) => {
      const transforms = new Float64Array(12 * this.doc.skeleton.parents.length);
      forwardKinematics(this.doc.skeleton, e.pose, transforms);
      return { positions: e.positions.slice(), transforms };
    });
  }

  /** The split view's right half read back from the GPU (#V × 3), or null when the view is not split. */
  readSplitPositions(renderer: THREE.WebGLRenderer): Float32Array | null {
    return this.secondary ? this.secondary.readSkinnedPositions(renderer) : null;
  }

  /** Resolves once the per-face solve of the newest pose is on the GPU, or has failed (at once for the other methods). */
  settled(): Promise<void> {
    const state = this.perFace;
    if (!state || !this.usesPerFace() || state.shown === state.requested || state.error !== null) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** The per-face error to show, if its setup failed (e.g. no fixed vertex). */
  get perFaceError(): string | null {
    return this.perFace?.error ?? null;
  }

  private usesPerFace(): boolean {
    return isPerFace(this.method) || (this.splitMethod !== null && isPerFace(this.splitMethod));
  }

  private visibleViews(): [SkinnedMeshView, SkinMethod][] {
    const views: [SkinnedMeshView, SkinMethod][] = [[this.primary, this.method]];
    if (this.splitMethod !== null && this.secondary) views.push([this.secondary, this.splitMethod]);
    return views;
  }

  private configureViews(): void {
    if (this.splitMethod !== null && !this.secondary) {
      this.secondary = new SkinnedMeshView(this.doc, this.influences, () => this.viewport.invalidate());
      this.secondary.mesh.visible = false;
      this.secondary.setLook(this.lookShown);
      this.secondary.setBlendWeights(this.blendWeights);
      if (this.triangles?.length === this.doc.mesh.triangles.length) this.secondary.setTriangles(this.triangles);
      this.viewport.scene.add(this.secondary.mesh);
    }
    for (const [view] of this.visibleViews()) {
      if (!this.heatMap && this.exampleMap === 'off') view.setDistortion(null);
    }
    if (this.lastEvaluator) this.applyPose(this.lastEvaluator);
    this.onChange();
  }

  private disposeSecondary(): void {
    if (!this.secondary) return;
    this.viewport.scene.remove(this.secondary.mesh);
    this.secondary.dispose();
    this.secondary = null;
  }

  private fixedBones(): Int32Array {
    return perFaceFixedVertices(this.doc.skeleton.parents, this.influences, this.doc.handles);
  }

  private distortionOf(positions: ArrayLike<number>): Float32Array {
    oneRingAreaChange(this.restAreas, positions, this.doc.mesh.triangles, this.distortion, this.scratchAreas);
    return this.distortion;
  }

  /** Asks the worker for this pose; while a solve runs, only the newest pose waits, so the view never lags more than one solve. */
  private requestPerFace(view: SkinnedMeshView, method: SkinMethod, evaluator: PoseEvaluator): void {
    if (!this.perFace) {
      // A crash rejects the pending call (the per-face state shows it) and the next document's setup gets a new worker.
      this.worker ??= supervisedRemote(
        new SupervisedWorker<DeformApi>(
          'deformation worker',
          () => new Worker(new URL('../../workers/deform.worker.ts', import.meta.url), { type: 'module', name: 'rigwright-deform' }),
        ),
        (method) => (method === 'setup' ? 'Preparing per-face skinning' : 'Per-face skinning'),
      );
      const worker = this.worker;
      const doc = this.doc;
      const fixed = this.fixedBones();
      const state: PerFaceState = {
        ready: Promise.resolve(),
        examples: null,
        examplesReady: Promise.resolve(),
        requested: 0,
        shown: 0,
        results: new Map(),
        busy: false,
        error: null,
      };
      state.ready = worker.setup(doc.mesh.positions, doc.mesh.triangles, this.influences, doc.skeleton.parents.length, fixed).then(
        () => undefined,
        (error: unknown) => {
          state.error = `Per-face skinning: ${error instanceof Error ? error.message : String(error)}`;
          // The error is shown (refreshDeformationChrome reads perFaceError) and whoever waits is released.
          this.releaseWaiters();
          this.onChange();
        },
      );
      this.perFace = state;
    }
    const state = this.perFace;
    if (perFaceBlendOf(method) && this.context) this.givePerFaceExamples(state, this.context.active);
    const shown = state.results.get(method);
    if (shown) view.setStreamedPositions(shown.positions, shown.normals);
    state.requested = this.poseCounter;
    if (!state.busy) void this.solvePerFace(state, evaluator);
  }

  /** Hands the worker a new example list: unposed per face there, then their face transformations computed once. */
  private givePerFaceExamples(state: PerFaceState, examples: readonly ExampleShape[]): void {
    if (state.examples && sameList(state.examples, examples)) return;
    state.examples = examples;
    const inputs = this.perFaceUnposeInputs(examples);
    const worker = this.worker!;
    const progress = proxy((done: number, total: number) => {
      if (state !== this.perFace) return;
      this.perFaceUnposing = total > 0 ? done / total : 0;
      this.onChange();
    });
    state.examplesReady = state.ready
      .then(async () => {
        this.perFaceUnposing = examples.length > 0 ? 0 : null;
        const unposed = examples.length > 0 ? (await worker.unposePerFace(inputs, {}, progress)).map((r) => r.unposed) : [];
        await worker.setPerFaceExamples(unposed);
      })
      .catch((error: unknown) => {
        state.error = `Per-face context: ${error instanceof Error ? error.message : String(error)}`;
      })
      .finally(() => {
        this.perFaceUnposing = null;
        this.onChange();
      });
  }

  private async solvePerFace(state: PerFaceState, evaluator: PoseEvaluator): Promise<void> {
    state.busy = true;
    await state.ready;
    while (state === this.perFace && state.shown !== state.requested && state.error === null) {
      const target = state.requested;
      // The newest pose, not the one this loop started with: the animation may have moved on meanwhile.
      const newest = this.lastEvaluator ?? evaluator;
      const methods = [...new Set(this.visibleViews().map(([, m]) => m))].filter(isPerFace);
      try {
        for (const method of methods) {
          const transforms = newest.transforms.slice();
          const scales = newest.scaled ? newest.boneScales.slice() : null;
          const buffers = scales ? [transforms.buffer, scales.buffer] : [transforms.buffer];
          const blend = perFaceBlendOf(method);
          let result: { positions: Float64Array; normals: Float64Array };
          if (blend) {
            await state.examplesReady;
            if (state.error !== null) break;
            const exampleWeights = (this.context?.weights ?? new Float64Array(0)).slice();
            result = await this.worker!.poseContext(
              transfer({ transforms, scales, exampleWeights, blend }, [...buffers, exampleWeights.buffer]),
            );
          } else result = await this.worker!.pose(transfer({ transforms, scales }, buffers));
          state.results.set(method, result);
        }
      } catch (error) {
        state.error = `Per-face skinning: ${error instanceof Error ? error.message : String(error)}`;
        break;
      }
      state.shown = target;
      if (state !== this.perFace) break;
      for (const [view, method] of this.visibleViews()) {
        const result = state.results.get(method);
        if (!result) continue;
        view.setStreamedPositions(result.positions, result.normals);
        if (this.heatMap && this.exampleMap === 'off') view.setDistortion(this.distortionOf(result.positions));
      }
      this.onChange();
    }
    state.busy = false;
    if (state === this.perFace && (state.shown === state.requested || state.error !== null)) this.releaseWaiters();
  }

  /** Split view: left half the primary method, right half the second, same camera; false when not split. */
  private renderSplit(renderer: THREE.WebGLRenderer, scene: THREE.Scene, camera: THREE.PerspectiveCamera): boolean {
    if (this.splitMethod === null || !this.secondary || this.hidden) return false;
    const size = renderer.getSize(drawingSize);
    const half = Math.floor(size.x / 2);
    const aspect = camera.aspect;
    const zoom = camera.zoom;
    // Halving the width would crop a framed subject; zooming out by the full ratio would shrink a tall one.
    // The square root of the ratio is the compromise that keeps both a character and a long tube in view.
    camera.aspect = half / size.y;
    camera.zoom = zoom * Math.sqrt(half / size.x);
    camera.updateProjectionMatrix();
    renderer.setScissorTest(true);
    const halves: [SkinnedMeshView, SkinnedMeshView, number, number][] = [
      [this.primary, this.secondary, 0, half],
      [this.secondary, this.primary, half, size.x - half],
    ];
    for (const [shown, hidden, x, width] of halves) {
      shown.mesh.visible = true;
      hidden.mesh.visible = false;
      renderer.setViewport(x, 0, width, size.y);
      renderer.setScissor(x, 0, width, size.y);
      renderer.render(scene, camera);
    }
    this.primary.mesh.visible = true;
    this.secondary.mesh.visible = false;
    renderer.setScissorTest(false);
    renderer.setViewport(0, 0, size.x, size.y);
    camera.aspect = aspect;
    camera.zoom = zoom;
    camera.updateProjectionMatrix();
    return true;
  }
}

function sameList<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
