/**
 * Context-aware deformation's state for the viewport (handout Sec. 8.1): the examples unposed in the pose-space
 * worker (each example through the skinning the viewport uses — LBS or DQS — with progress and cancel), their
 * rest-space displacements δ_j packed for the GPU, and the RBF pose-space weights a_j(P) of the pose shown (Eq. 8)
 * and along the whole sequence (the timeline's curves).
 *
 * Unposed results are kept per example object and skinning base, and dropped when what they were computed from
 * changes (the rest mesh, the influences, the DQS signs). The interpolator is rebuilt when the shown examples or
 * the kernel change; a system that cannot be solved (two examples with the same pose) is reported naming the
 * examples, and the weights are then all 0, so context skinning shows the plain method. Near-singular vertices
 * found while unposing are reported with their count (they keep δ = 0 and follow plain skinning).
 * DOM-free: the Examples panel and the timeline show this state; the deformation controller feeds it to the GPU.
 */
import type { Influences } from '../../workers/skinning/influences.ts';
import type { DualQuaternionAntipodality } from '../../workers/skinning/dual-quaternion-skinning.ts';
import type { UnposeResult } from '../../workers/posespace/unpose.ts';
import {
  PoseSpaceError,
  RBF_KERNELS,
  poseSpaceInterpolator,
  poseSpaceWeights,
  poseSpaceWeightsOfSequence,
  type PoseSpaceInterpolator,
  type RbfKernel,
} from '../../workers/posespace/pose-space-weights.ts';
import { poseDuration } from '../../workers/rig/pose-sequence.ts';
import { vertexNormals } from '../../workers/mesh/vertex-normals.ts';
import { activeExamplesOf, type ExampleShape, type SceneDocument } from '../../workers/scene/scene-document.ts';
import type { Unposer } from '../io/posespace-client.ts';
import { pick, type SettingsSection } from '../project/settings-store.ts';

/** The per-vertex skinning a correction rides on. */
export type ContextBase = 'lbs' | 'dqs';

export const CONTEXT_BASE_LABELS: Record<ContextBase, string> = { lbs: 'LBS', dqs: 'DQS' };

export interface PoseSpaceHost {
  document(): SceneDocument;
  influences(): Influences;
  antipodality(): DualQuaternionAntipodality;
  readonly unposer: Unposer;
  /** a non-fatal observation to show (near-singular vertices), or a failure (`error`: it stays until dismissed) */
  notice(title: string, items: string[], error?: boolean): void;
  /** new displacements or weights: the deformation shown changes */
  changed(): void;
  /** only the unposing progress changed */
  progressed(): void;
}

export interface UnposeProgress {
  running: boolean;
  /** the example being unposed, and through which skinning */
  example: string;
  base: ContextBase;
  /** of all the unposing asked for now, in [0, 1] */
  fraction: number;
}

const IDLE: UnposeProgress = { running: false, example: '', base: 'lbs', fraction: 0 };

export class PoseSpaceController {
  /** the kernels the pose-space weights can use */
  readonly kernels: readonly RbfKernel[] = RBF_KERNELS;
  kernel: RbfKernel = 'gaussian';
  progress: UnposeProgress = IDLE;
  /** the pose-space system's problem (naming the examples), or null */
  rbfError: string | null = null;
  /** unposing was cancelled: it starts again only when asked anew (another method, example or scene) */
  cancelled = false;
  /** a_j at the pose last given to setPose, one per shown example (activeExamplesOf) */
  weights = new Float64Array(0);

  private results = new Map<ContextBase, Map<ExampleShape, UnposeResult>>();
  /** what the results were computed from */
  private basis: { mesh: unknown; influences: Influences | null; antipodality: DualQuaternionAntipodality } = {
    mesh: null,
    influences: null,
    antipodality: 'per-vertex',
  };
  private needed = new Set<ContextBase>();
  private running = false;
  private interpolator: PoseSpaceInterpolator | null = null;
  private interpolatorKey: { examples: readonly ExampleShape[] | undefined; kernel: RbfKernel; skeleton: unknown } | null = null;
  private packed = new Map<ContextBase, { examples: ExampleShape[]; data: Float64Array; normals: Float64Array | null }>();
  private curveCache: { interpolator: PoseSpaceInterpolator; poses: unknown; values: Float64Array; frames: number } | null = null;
  private lastPose: Float64Array | null = null;
  private idleWaiters: (() => void)[] = [];
  /** the job whose progress is shown; a report of any other (late, after its result or a cancel) is dropped */
  private job: object | null = null;

  constructor(private readonly host: PoseSpaceHost) {}

  /** The examples the deformation uses now (not hidden), in document order: index j of weights and displacements. */
  get active(): ExampleShape[] {
    return activeExamplesOf(this.host.document());
  }

  /** Asks for displacements through these bases (the methods on screen); starts unposing what is missing. */
  require(bases: readonly ContextBase[]): void {
    const added = bases.some((b) => !this.needed.has(b));
    this.needed = new Set(bases);
    if (added) this.cancelled = false;
    this.refresh();
  }

  /**
   * The document, influences or DQS signs may have changed: drops what no longer fits and unposes what is missing.
   * Cheap when nothing changed.
   */
  refresh(): void {
    const doc = this.host.document();
    const influences = this.host.influences();
    const antipodality = this.host.antipodality();
    const basis = this.basis;
    if (basis.mesh !== doc.mesh || basis.influences !== influences || basis.antipodality !== antipodality) {
      if (this.running) this.host.unposer.cancel();
      this.results.clear();
      this.packed.clear();
      this.basis = { mesh: doc.mesh, influences, antipodality };
      this.cancelled = false;
    }
    this.refreshInterpolator(doc);
    void this.pump();
  }

  /** The influences were edited in place (painting): every unposed result is stale. */
  influencesEdited(): void {
    this.basis = { ...this.basis, influences: null };
    this.refresh();
  }

  /** The pose-space settings a project saves: the kernel. */
  readonly settingsSection: SettingsSection<'posespace'> = {
    save: () => ({ kernel: this.kernel }),
    restore: (saved) => this.setKernel(pick(saved.kernel, this.kernels, this.kernel)),
  };

  setKernel(kernel: RbfKernel): void {
    this.kernel = kernel;
    this.refresh();
    this.host.changed();
  }

  /** Resolves once no unposing runs and none waits to (all asked for is done, or cancelled). */
  idle(): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Stops unposing; context skinning shows the plain method until unposing is asked for again. The progress is
   * cleared at once, whether or not a job was still running.
   */
  cancel(): void {
    if (this.running) {
      this.cancelled = true;
      this.host.unposer.cancel();
    }
    this.endProgress();
  }

  /**
   * A new scene: the unposing of the previous one stops, its results and progress go, and the new scene unposes
   * what its own examples need when asked.
   */
  sceneOpened(): void {
    if (this.running) this.host.unposer.cancel();
    this.job = null;
    this.results.clear();
    this.packed.clear();
    this.basis = { mesh: null, influences: null, antipodality: 'per-vertex' };
    this.cancelled = false;
    this.endProgress();
  }

  /** a_j at this pose (#B × 9 relative rotations), into `weights`. */
  setPose(rotations: Float64Array): void {
    this.lastPose = rotations;
    const J = this.active.length;
    if (this.weights.length !== J) this.weights = new Float64Array(J);
    if (this.interpolator && this.interpolator.exampleCount === J) poseSpaceWeights(this.interpolator, rotations, this.weights);
    else this.weights.fill(0);
  }

  /**
   * J × #V × 3 displacements of the shown examples unposed through `base` (example-major), or null while any of
   * them is still being unposed (or unposing was cancelled).
   */
  displacements(base: ContextBase): Float64Array | null {
    const examples = this.active;
    const packed = this.packed.get(base);
    if (packed && sameList(packed.examples, examples)) return packed.data;
    const results = this.results.get(base);
    if (!examples.every((e) => results?.has(e))) return null;
    const n = this.host.document().mesh.positions.length;
    const data = new Float64Array(examples.length * n);
    examples.forEach((e, j) => data.set(results!.get(e)!.displacements, j * n));
    this.packed.set(base, { examples, data, normals: null });
    return data;
  }

  /**
   * J × #V × 3 normal changes n(S̄_j) − n(S_0) of the shown examples unposed through `base` (example-major, area-
   * weighted unit normals), packed like displacements(base), or null while those are not ready. Blended with the
   * same a_j they turn the rest normals toward the examples' (the GPU renormalizes), so the shading follows the
   * sculpted detail as the positions do.
   */
  normalDeltas(base: ContextBase): Float64Array | null {
    if (!this.displacements(base)) return null;
    const packed = this.packed.get(base)!;
    if (packed.normals) return packed.normals;
    const doc = this.host.document();
    const n = doc.mesh.positions.length;
    const normals = new Float64Array(packed.examples.length * n);
    packed.examples.forEach((e, j) => {
      const unposed = this.results.get(base)!.get(e)!.unposed;
      const exampleNormals = vertexNormals(unposed, doc.mesh.triangles);
      for (let i = 0; i < n; i++) normals[j * n + i] = exampleNormals[i] - doc.restNormals[i];
    });
    packed.normals = normals;
    return normals;
  }

  /** An example's unposed shape S̄_j through `base`, once computed. */
  unposed(example: ExampleShape, base: ContextBase): UnposeResult | null {
    return this.results.get(base)?.get(example) ?? null;
  }

  /**
   * a_j along the loaded sequence, one row per frame (matrices) or per 1/100 of t (quaternions): frames × J,
   * time-major, with the J names; null without examples, a solvable system or a sequence. Always of the document
   * now (the interpolator is brought up to date first).
   */
  curves(): { frames: number; duration: number; values: Float64Array; names: readonly string[] } | null {
    const doc = this.host.document();
    this.refreshInterpolator(doc);
    const interpolator = this.interpolator;
    if (!interpolator || !doc.poses || interpolator.exampleCount === 0) return null;
    const duration = poseDuration(doc.poses);
    if (this.curveCache?.interpolator !== interpolator || this.curveCache.poses !== doc.poses) {
      const frames = doc.poses.kind === 'matrices' ? duration + 1 : 101;
      const times = Float64Array.from({ length: frames }, (_, i) => (doc.poses!.kind === 'matrices' ? i : i / 100));
      this.curveCache = { interpolator, poses: doc.poses, values: poseSpaceWeightsOfSequence(interpolator, doc.poses, times), frames };
    }
    return { frames: this.curveCache.frames, duration, values: this.curveCache.values, names: interpolator.names };
  }

  private refreshInterpolator(doc: SceneDocument): void {
    const key = this.interpolatorKey;
    if (key && key.examples === doc.examples && key.kernel === this.kernel && key.skeleton === doc.skeleton) return;
    this.interpolatorKey = { examples: doc.examples, kernel: this.kernel, skeleton: doc.skeleton };
    const examples = this.active;
    const B = doc.skeleton.parents.length;
    const poses = new Float64Array(examples.length * 9 * B);
    examples.forEach((e, j) => poses.set(e.pose, j * 9 * B));
    this.rbfError = null;
    try {
      this.interpolator = poseSpaceInterpolator(
        poses,
        B,
        examples.map((e) => e.name),
        { kernel: this.kernel },
      );
    } catch (error) {
      this.interpolator = null;
      const names = error instanceof PoseSpaceError ? ` (${error.examples.join(', ')})` : '';
      this.rbfError = `Pose-space weights${names}: ${error instanceof Error ? error.message : String(error)}`;
    }
    this.weights = new Float64Array(0);
    if (this.lastPose) this.setPose(this.lastPose);
  }

  /** The next (base, example) pair without a result, in the order asked. */
  private nextJob(): { base: ContextBase; example: ExampleShape; index: number; count: number } | null {
    const examples = this.active;
    const jobs: { base: ContextBase; example: ExampleShape }[] = [];
    for (const base of this.needed) for (const example of examples) jobs.push({ base, example });
    const missing = jobs.filter((j) => !this.results.get(j.base)?.has(j.example));
    if (missing.length === 0) return null;
    return { ...missing[0], index: jobs.length - missing.length, count: jobs.length };
  }

  /** Whether the results are of the document, influences and DQS signs shown now (refresh has brought them up). */
  private basisIsCurrent(): boolean {
    const basis = this.basis;
    return (
      basis.mesh === this.host.document().mesh &&
      basis.influences !== null &&
      basis.influences === this.host.influences() &&
      basis.antipodality === this.host.antipodality()
    );
  }

  private async pump(): Promise<void> {
    if (this.running) return;
    // Work starts only for the basis of the document shown: a job that ends after a new scene or an edit of the
    // influences calls pump before refresh has taken the new basis, and would unpose the new examples with the
    // old (or no) influences. The next refresh brings the basis up and pumps again.
    if (!this.basisIsCurrent()) return;
    if (this.cancelled) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const resolve of waiters) resolve();
      return;
    }
    const job = this.nextJob();
    if (!job) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const resolve of waiters) resolve();
      return;
    }
    this.running = true;
    const doc = this.host.document();
    const basis = this.basis;
    const { base, example, index, count } = job;
    const token = {};
    this.job = token;
    const setProgress = (fraction: number) => {
      if (this.job !== token) return;
      this.progress = { running: true, example: example.name, base, fraction: (index + fraction) / count };
      this.host.progressed();
    };
    setProgress(0);
    try {
      const result = await this.host.unposer.unpose(
        {
          restPositions: doc.mesh.positions,
          examplePositions: example.positions,
          influences: basis.influences!,
          skeleton: doc.skeleton,
          pose: example.pose,
          method: base,
          antipodality: basis.antipodality,
        },
        (done, total) => setProgress(done / total),
      );
      if (this.basis === basis) {
        let map = this.results.get(base);
        if (!map) this.results.set(base, (map = new Map<ExampleShape, UnposeResult>()));
        map.set(example, result);
        const singular = result.singularVertices.length;
        if (singular > 0) {
          const shown = Array.from(result.singularVertices.subarray(0, 8)).join(', ');
          this.host.notice(
            `Unposing ${example.name} (${CONTEXT_BASE_LABELS[base]}): ${singular} near-singular ${singular > 1 ? 'vertices' : 'vertex'}`,
            [
              `Their blended ${CONTEXT_BASE_LABELS[base]} transform at ${example.poseSource} is (nearly) singular, so the example says almost nothing about their rest position; they keep δ = 0 and follow plain skinning.`,
              `Vertices ${shown}${singular > 8 ? ', …' : ''}`,
            ],
          );
        }
      }
    } catch (error) {
      if (!(error instanceof DOMException && error.name === 'AbortError')) {
        this.cancelled = true;
        this.host.notice(`Unposing ${example.name} failed`, [error instanceof Error ? error.message : String(error)], true);
      }
    } finally {
      this.running = false;
      if (this.job === token) this.job = null;
      this.progress = IDLE;
    }
    this.host.changed();
    void this.pump();
  }

  /** No job's progress is shown any more (a late report of one is dropped). */
  private endProgress(): void {
    this.job = null;
    if (!this.progress.running) return;
    this.progress = IDLE;
    this.host.progressed();
  }
}

function sameList<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
