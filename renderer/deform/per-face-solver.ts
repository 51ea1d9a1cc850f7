/**
 * The per-face solver's client: per-face skinning and per-face context (Eq. 9 / Eq. 10) are solved in
 * workers/deform.worker.ts, so the viewport keeps drawing while a frame solves. One factor per document (dropped
 * when the mesh, the influences or the handles change: its pending results are then ignored and whoever waits is
 * released), the examples handed over once per example list and unposed per face there (with progress), and
 * while a solve runs only the newest pose waits, so the view never lags more than one solve. Errors (no fixed
 * vertex, a worker that dies) are kept to be shown. DOM-free; the worker is made by a function given to it.
 */
import { transfer, type Remote } from 'comlink';
import type { DeformApi } from '../../workers/deform.worker.ts';
import type { Influences } from '../../workers/skinning/influences.ts';
import type { ExampleShape, SceneDocument } from '../../workers/scene/scene-document.ts';
import { callWithProgress, SupervisedWorker, supervisedRemote } from '../io/worker-supervisor.ts';
import type { ContextSource } from './context-source.ts';
import { perFaceFixedBones, perFaceUnposeInputs, sameList, type ReferencePose } from './cpu-reference.ts';
import { isPerFace, perFaceBlendOf, type SkinMethod } from './skin-methods.ts';

/** One solved frame: #V × 3 positions and unit normals. */
export interface PerFaceResult {
  positions: Float64Array;
  normals: Float64Array;
}

/** What the solver asks of the deformation controller. */
export interface PerFaceHost {
  /** the document and influences the factor is made of */
  scene(): { doc: SceneDocument; influences: Influences };
  /** the newest pose given (the animation may move on while a solve runs), or null */
  newestPose(): ReferencePose | null;
  /** the methods on screen (the per-face ones among them are solved) */
  methodsShown(): readonly SkinMethod[];
  /** the examples and their weights of per-face context, or null */
  context(): ContextSource | null;
  /** the newest pose asked for is solved: the views take each method's result */
  solved(results: ReadonlyMap<SkinMethod, PerFaceResult>): void;
  /** an error, or the examples' unposing moved on: the chrome shows it */
  changed(): void;
}

/** The deform worker's calls, as the solver makes them. */
export type DeformWorker = Remote<DeformApi>;

/**
 * Per-face state of one document: the worker's factor, the examples it holds for per-face context (unposed per
 * face once per example set), the newest pose asked for and shown, and the last result of each per-face method.
 */
interface PerFaceState {
  ready: Promise<void>;
  /** the examples given to the worker, and the promise of their per-face unposing */
  examples: readonly ExampleShape[] | null;
  examplesReady: Promise<void>;
  /** the unposing whose progress and result count (a token), or null once it ended or was cancelled */
  unposeJob: object | null;
  /** the example list whose face transformations the worker holds (per-face context solves with them), or null */
  installed: readonly ExampleShape[] | null;
  requested: number;
  shown: number;
  results: Map<SkinMethod, PerFaceResult>;
  busy: boolean;
  error: string | null;
}

/** The deform worker of the page, supervised: a crash fails the pending calls and the next call starts a new one. */
export function deformWorker(): DeformWorker {
  return supervisedRemote(
    new SupervisedWorker<DeformApi>(
      'deformation worker',
      () => new Worker(new URL('../../workers/deform.worker.ts', import.meta.url), { type: 'module', name: 'rigwright-deform' }),
    ),
    (method) => (method === 'setup' ? 'Preparing per-face skinning' : 'Per-face skinning'),
  );
}

export class PerFaceSolver {
  /** per-face context's unposing of the examples in the worker: the fraction done, or null when none runs */
  unposing: number | null = null;
  private worker: DeformWorker | null = null;
  private state: PerFaceState | null = null;
  private waiters: (() => void)[] = [];

  /** @param connect  makes the worker, at the first solve (the page's supervised worker, or an in-process one in tests) */
  constructor(
    private readonly host: PerFaceHost,
    private readonly connect: () => DeformWorker = deformWorker,
  ) {}

  /** The error to show, if the setup or a solve failed (e.g. no fixed vertex). */
  get error(): string | null {
    return this.state?.error ?? null;
  }

  /** Abandons the solve (its factor no longer fits) and releases whoever waits on it; its unposing shows no more. */
  drop(): void {
    this.state = null;
    this.unposing = null;
    this.releaseWaiters();
  }

  /**
   * Cancels the examples' per-face unposing: its progress goes at once, a report or result that comes later is
   * dropped, and per-face context shows plain per-face skinning until the example list changes (which unposes
   * anew). A no-op when none runs.
   */
  cancel(): void {
    if (this.state) this.state.unposeJob = null;
    if (this.unposing === null) return;
    this.unposing = null;
    this.host.changed();
  }

  /**
   * Asks for a pose for `method` (the worker is set up first when need be); while a solve runs, only the newest
   * pose waits.
   * @param poseNumber  counts the poses given (the same for every method of one pose)
   * @returns the method's last result, to show until this pose is solved
   */
  request(method: SkinMethod, poseNumber: number, pose: ReferencePose): PerFaceResult | undefined {
    // No bone moves anything (a mesh without a skeleton yet): the rest mesh, and nothing to solve.
    const { doc } = this.host.scene();
    if (doc.skeleton.parents.length === 0) return { positions: doc.mesh.positions, normals: doc.restNormals };
    const state = (this.state ??= this.setUp());
    const context = this.host.context();
    if (perFaceBlendOf(method) && context) this.giveExamples(state, context.active);
    state.requested = poseNumber;
    if (!state.busy) void this.solve(state, pose);
    return state.results.get(method);
  }

  /** Resolves once the newest pose is solved, or has failed (at once when no per-face method is on screen). */
  settled(): Promise<void> {
    const state = this.state;
    if (!state || !this.host.methodsShown().some(isPerFace) || state.shown === state.requested || state.error !== null)
      return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** How many threads the worker's plain per-face frames run on (1 before any setup). */
  async threads(): Promise<number> {
    return this.worker ? await this.worker.threads() : 1;
  }

  /** Whether the worker's context frames blend their products on two threads (false before any examples). */
  async examplesShared(): Promise<boolean> {
    return this.worker ? await this.worker.examplesShared() : false;
  }

  /** Whether the worker's per-face frames run the WebAssembly kernels, solve and face loop (false before any setup). */
  async frameKernels(): Promise<boolean> {
    return this.worker ? await this.worker.frameKernels() : false;
  }

  private setUp(): PerFaceState {
    // A crash rejects the pending call (the state shows it) and the next document's setup gets a new worker.
    const worker = (this.worker ??= this.connect());
    const { doc, influences } = this.host.scene();
    const state: PerFaceState = {
      ready: Promise.resolve(),
      examples: null,
      examplesReady: Promise.resolve(),
      unposeJob: null,
      installed: null,
      requested: 0,
      shown: 0,
      results: new Map(),
      busy: false,
      error: null,
    };
    state.ready = worker
      .setup(doc.mesh.positions, doc.mesh.triangles, influences, doc.skeleton.parents.length, perFaceFixedBones(doc, influences))
      .then(
        () => undefined,
        (error: unknown) => {
          state.error = `Per-face skinning: ${messageOf(error)}`;
          // The error is shown (the host reads `error`) and whoever waits is released.
          this.releaseWaiters();
          this.host.changed();
        },
      );
    return state;
  }

  /** Hands the worker a new example list: unposed per face there, then their face transformations computed once. */
  private giveExamples(state: PerFaceState, examples: readonly ExampleShape[]): void {
    if (state.examples && sameList(state.examples, examples)) return;
    state.examples = examples;
    const inputs = perFaceUnposeInputs(this.host.scene().doc.skeleton, examples);
    const worker = this.worker!;
    // This unposing counts while it is the state's own job of the solver's own state: a newer list, a cancel or a
    // new document replaces it, and its reports, result and end then touch nothing (the newer job's bar stays).
    const job = {};
    state.unposeJob = job;
    const current = () => state === this.state && state.unposeJob === job;
    const progress = (done: number, total: number) => {
      if (!current()) return;
      this.unposing = total > 0 ? done / total : 0;
      this.host.changed();
    };
    state.examplesReady = state.ready
      .then(async () => {
        if (!current()) return;
        this.unposing = examples.length > 0 ? 0 : null;
        const unposed =
          examples.length > 0
            ? (await callWithProgress(progress, (report) => worker.unposePerFace(inputs, {}, report))).map((r) => r.unposed)
            : [];
        if (state.unposeJob !== job) return;
        await worker.setPerFaceExamples(unposed);
        state.installed = examples;
      })
      .catch((error: unknown) => {
        if (state.unposeJob === job) state.error = `Per-face context: ${messageOf(error)}`;
      })
      .finally(() => {
        if (!current()) return;
        state.unposeJob = null;
        this.unposing = null;
        this.host.changed();
      });
  }

  private async solve(state: PerFaceState, pose: ReferencePose): Promise<void> {
    state.busy = true;
    await state.ready;
    while (state === this.state && state.shown !== state.requested && state.error === null) {
      const target = state.requested;
      // The newest pose, not the one this loop started with: the animation may have moved on meanwhile.
      const newest = this.host.newestPose() ?? pose;
      const methods = [...new Set(this.host.methodsShown())].filter(isPerFace);
      try {
        for (const method of methods) {
          const transforms = newest.transforms.slice();
          const scales = newest.scaled ? newest.boneScales.slice() : null;
          const buffers = scales ? [transforms.buffer, scales.buffer] : [transforms.buffer];
          const blend = perFaceBlendOf(method);
          let result: PerFaceResult;
          if (blend) {
            await state.examplesReady;
            if (state.error !== null) break;
          }
          // The examples' face transformations, once the worker holds this list; while their unposing was cancelled
          // (or a newer list is on its way) the frame is plain per-face skinning.
          if (blend && state.installed !== null && state.installed === state.examples) {
            const exampleWeights = (this.host.context()?.weights ?? new Float64Array(0)).slice();
            result = await this.worker!.poseContext(
              transfer({ transforms, scales, exampleWeights, blend }, [...buffers, exampleWeights.buffer]),
            );
          } else result = await this.worker!.pose(transfer({ transforms, scales }, buffers));
          state.results.set(method, result);
        }
      } catch (error) {
        state.error = `Per-face skinning: ${messageOf(error)}`;
        break;
      }
      state.shown = target;
      if (state !== this.state) break;
      this.host.solved(state.results);
    }
    state.busy = false;
    if (state === this.state && (state.shown === state.requested || state.error !== null)) this.releaseWaiters();
  }

  private releaseWaiters(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
