/**
 * The deformation worker: per-face skinning's Poisson stitching (workers/skinning/per-face-skinning.ts) runs here
 * so the viewport keeps drawing while a frame solves. `setup` factors once per mesh and fixed set; each `pose`
 * solves three right-hand sides and returns positions and normals, transferred. Per-face context deformation
 * (workers/posespace/per-face-context.ts) runs on the same factor: `unposePerFace` unposes examples,
 * `setPerFaceExamples` computes their per-face transformations once, `poseContext` poses a frame with given
 * example weights a_j. A thin comlink wrapper.
 *
 * When the page is cross-origin isolated (so that threads may share memory) and the mesh is large enough to gain,
 * plain per-face frames and per-face context frames run on two threads (perFaceTwoCore): this worker and a helper
 * worker it starts per setup (per-face-helper.worker.ts). The examples are then copied into the two-core frame's
 * shared memory, and each thread blends its own faces' products; unposing stays on this thread.
 */
import { expose, transfer } from 'comlink';
import type { Influences } from './skinning/influences.ts';
import {
  perFaceSkinning,
  perFaceSkinningSetup,
  perFaceStitch,
  perFaceSkinningWorkspace,
  type PerFaceSkinningSetup,
  type PerFaceSkinningWorkspace,
} from './skinning/per-face-skinning.ts';
import { vertexNormals } from './mesh/vertex-normals.ts';
import { perFaceTwoCore, type PerFaceHelperShared, type PerFaceTwoCore } from './skinning/per-face-two-core.ts';
import { perFaceActiveExamples } from './skinning/per-face-example-blend.ts';
import {
  perFaceContextFixed,
  perFaceContextSkinning,
  perFaceContextSource,
  perFaceContextWorkspace,
  perFaceExamples,
  perFaceUnposeExamples,
  type PerFaceBlend,
  type PerFaceContextWorkspace,
  type PerFaceExamples,
  type PerFaceUnposeInput,
  type PerFaceUnposeOptions,
  type PerFaceUnposeResult,
} from './posespace/per-face-context.ts';

let setup: PerFaceSkinningSetup | null = null;
let workspace: PerFaceSkinningWorkspace | null = null;
let examples: PerFaceExamples | null = null;
let contextWorkspace: PerFaceContextWorkspace | null = null;
/** whether `examples` are in the two-core frame's shared memory (its examplesFrame blends their products) */
let examplesShared = false;
/** the current setup's two-core frame, or null (not isolated, a small mesh, or while its helper starts) */
let twoCore: PerFaceTwoCore | null = null;

/** How long a helper worker may take to start before plain per-face frames stay on this thread, ms. */
const HELPER_START_MS = 10_000;

/**
 * The two-core frame of a setup with its helper worker running, or null when the page may not share memory, the
 * machine has one core, the mesh is too small to gain, or the helper does not start (memory short, a worker that
 * fails to load or does not answer in HELPER_START_MS): per-face frames then run on this thread as before. Resolves
 * once the helper has said it runs (a thread blocked in a frame must not wait on a worker that is still loading).
 */
async function startTwoCore(next: PerFaceSkinningSetup): Promise<PerFaceTwoCore | null> {
  if (!(globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated) return null;
  if ((globalThis.navigator?.hardwareConcurrency ?? 1) < 2) return null;
  let helper: Worker | null = null;
  let frame: PerFaceTwoCore | null;
  try {
    frame = perFaceTwoCore(next, (shared: PerFaceHelperShared) => {
      const started = new Worker(new URL('./per-face-helper.worker.ts', import.meta.url), {
        type: 'module',
        name: 'rigwright-per-face-helper',
      });
      started.postMessage(shared);
      helper = started;
      return { stop: () => started.terminate() };
    });
  } catch {
    return null;
  }
  if (!frame) return null;
  const running = helper as unknown as Worker;
  const ok = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), HELPER_START_MS);
    const settle = (answer: boolean) => {
      clearTimeout(timer);
      resolve(answer);
    };
    running.onmessage = () => settle(true);
    running.onmessageerror = () => settle(false);
    running.onerror = (event) => {
      // Handled here: the helper's failure must not reach the page as this worker's.
      event.preventDefault();
      settle(false);
    };
  });
  running.onmessage = null;
  running.onmessageerror = null;
  if (!ok) {
    frame.dispose();
    return null;
  }
  // A failure later reaches the frame through the shared control words (it throws there); not as this worker's error.
  running.onerror = (event) => event.preventDefault();
  return frame;
}

/**
 * A per-face context frame: its products and fixed positions here, stitched on two threads when the setup has them
 * and the workspace writes its products where they read them; else (or when the two-core frame fails, which drops
 * it for good) all on this thread.
 */
function contextFrame(
  current: PerFaceSkinningSetup,
  currentExamples: PerFaceExamples,
  context: PerFaceContextWorkspace,
  exampleWeights: Float64Array,
  blend: PerFaceBlend,
  transforms: Float64Array,
  positions: Float64Array,
  scales: Float64Array | null,
): void {
  if (!twoCore || currentExamples.exampleCount === 0 || context.products !== twoCore.contextProducts) {
    perFaceContextSkinning(current, currentExamples, exampleWeights, blend, transforms, positions, context, scales);
    return;
  }
  if (examplesShared) {
    // Each thread blends its own faces' products; the fixed vertices' positions here.
    perFaceContextFixed(current, currentExamples, perFaceActiveExamples(currentExamples, exampleWeights, context), context);
    if (onTwoCores((two) => two.examplesFrame(exampleWeights, blend, transforms, context.source, positions, scales))) return;
    perFaceContextSkinning(current, currentExamples, exampleWeights, blend, transforms, positions, context, scales);
    return;
  }
  perFaceContextSource(current, currentExamples, exampleWeights, blend, context);
  if (onTwoCores((two) => two.contextFrame(transforms, context.source, positions, scales))) return;
  perFaceStitch(current, transforms, context.source, context.products, positions, context.skinning, scales);
}

/**
 * A plain per-face frame: on two threads when the setup has them, else (or when the two-core frame fails, which
 * drops it for good) on this thread.
 */
function plainFrame(
  current: PerFaceSkinningSetup,
  currentWorkspace: PerFaceSkinningWorkspace,
  transforms: Float64Array,
  positions: Float64Array,
  scales: Float64Array | null,
): void {
  if (onTwoCores((two) => two.frame(transforms, positions, scales))) return;
  perFaceSkinning(current, transforms, positions, currentWorkspace, scales);
}

/**
 * Runs a frame on the two-core frame; false when the setup has none or the frame failed (the two-core frame is then
 * dropped for good and the caller solves on this thread).
 */
function onTwoCores(frame: (two: PerFaceTwoCore) => void): boolean {
  if (!twoCore) return false;
  try {
    frame(twoCore);
    return true;
  } catch {
    twoCore.dispose();
    twoCore = null;
    return false;
  }
}

function posed(positions: Float64Array, triangles: Uint32Array): { positions: Float64Array; normals: Float64Array } {
  const normals = vertexNormals(positions, triangles);
  return transfer({ positions, normals }, [positions.buffer, normals.buffer]);
}

export const deformApi = {
  /**
   * Factors the stitching system; see perFaceSkinningSetup. Returns the number of fixed vertices. Plain per-face
   * frames then run on two threads when they can (see the module comment).
   */
  async setup(
    restPositions: Float64Array,
    triangles: Uint32Array,
    influences: Influences,
    boneCount: number,
    fixedBones: Int32Array,
  ): Promise<number> {
    // Let the previous mesh's setup go before building the next (a setup whose helper is still starting is let go
    // once it has started).
    twoCore?.dispose();
    twoCore = null;
    setup = null;
    workspace = null;
    // Example transformations belong to the unposed shapes, which depend on the weights: set them anew.
    examples = null;
    examplesShared = false;
    contextWorkspace = null;
    const next = perFaceSkinningSetup(restPositions, triangles, influences, boneCount, fixedBones);
    setup = next;
    workspace = perFaceSkinningWorkspace(next);
    const frame = await startTwoCore(next);
    // Another setup may have begun while the helper started: this one's frame is then not needed.
    if (setup === next) twoCore = frame;
    else frame?.dispose();
    return next.fixedVertices.length;
  },

  /** How many threads a plain per-face frame of the current setup runs on: 2 with the two-core frame, else 1. */
  threads(): number {
    return twoCore ? 2 : 1;
  },

  /** Whether context frames blend their products on both threads (the examples are in the shared memory). */
  examplesShared(): boolean {
    return twoCore !== null && examplesShared;
  },

  /**
   * Whether the current setup's frames run the WebAssembly kernels, the solve's and the face loop's (false before any
   * setup, or without them).
   */
  frameKernels(): boolean {
    return setup !== null && setup.panels.kernels !== null && setup.faceKernel !== null;
  },

  /**
   * One frame: #B × 12 bone transforms (rigid, or scaled with #B × 3 bone scales; see perFaceSkinning) → #V × 3
   * positions and unit normals.
   */
  pose({ transforms, scales }: { transforms: Float64Array; scales: Float64Array | null }): {
    positions: Float64Array;
    normals: Float64Array;
  } {
    if (!setup || !workspace) throw new Error('per-face skinning: pose before setup');
    const positions = new Float64Array(3 * setup.vertexCount);
    plainFrame(setup, workspace, transforms, positions, scales);
    return posed(positions, setup.triangles);
  },

  /**
   * Per-face unposing of examples on the current factor (perFaceUnposeExamples); `onProgress` (wrap it in comlink's
   * `proxy`) hears (examples done, total). Returns each S̄_j with its residual and refinement steps.
   */
  unposePerFace(
    inputs: PerFaceUnposeInput[],
    options: PerFaceUnposeOptions = {},
    onProgress: ((done: number, total: number) => void) | null = null,
  ): PerFaceUnposeResult[] {
    if (!setup) throw new Error('per-face unposing: unpose before setup');
    const results = perFaceUnposeExamples(setup, inputs, options, onProgress);
    return transfer(
      results,
      results.map((r) => r.unposed.buffer),
    );
  },

  /**
   * Computes the examples' per-face transformations T_{j,f} once from their unposed shapes (J × #V × 3); an empty
   * list removes them. Returns each example's count of collapsed faces.
   */
  setPerFaceExamples(unposed: Float64Array[]): number[] {
    if (!setup) throw new Error('per-face context: examples before setup');
    examples = perFaceExamples(setup, unposed);
    // With two threads the examples go where both read them (this worker's copy then let go), and the frame's
    // products where both write and read them.
    const shared = examples.exampleCount > 0 && twoCore ? twoCore.shareExamples(examples) : null;
    examplesShared = shared !== null;
    examples = shared ?? examples;
    contextWorkspace = perFaceContextWorkspace(setup, examples, twoCore?.contextProducts ?? null);
    return Array.from(examples.degenerateFaces);
  },

  /**
   * One frame of per-face context deformation (perFaceContextSkinning): bone transforms (and scales) as in `pose`,
   * J example weights a_j(P) and the blend, Eq. 9 or Eq. 10 → #V × 3 positions and unit normals. Without examples
   * it is `pose`.
   */
  poseContext({
    transforms,
    scales,
    exampleWeights,
    blend,
  }: {
    transforms: Float64Array;
    scales: Float64Array | null;
    exampleWeights: Float64Array;
    blend: PerFaceBlend;
  }): { positions: Float64Array; normals: Float64Array } {
    if (!setup || !workspace) throw new Error('per-face context: pose before setup');
    const positions = new Float64Array(3 * setup.vertexCount);
    if (!examples || !contextWorkspace) plainFrame(setup, workspace, transforms, positions, scales);
    else contextFrame(setup, examples, contextWorkspace, exampleWeights, blend, transforms, positions, scales);
    return posed(positions, setup.triangles);
  },
};

export type DeformApi = typeof deformApi;

expose(deformApi);
