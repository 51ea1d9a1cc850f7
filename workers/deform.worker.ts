/**
 * The deformation worker: per-face skinning's Poisson stitching (workers/skinning/per-face-skinning.ts) runs here
 * so the viewport keeps drawing while a frame solves. `setup` factors once per mesh and fixed set; each `pose`
 * solves three right-hand sides and returns positions and normals, transferred. Per-face context deformation
 * (workers/posespace/per-face-context.ts) runs on the same factor: `unposePerFace` unposes examples,
 * `setPerFaceExamples` computes their per-face transformations once, `poseContext` poses a frame with given
 * example weights a_j. A thin comlink wrapper.
 *
 * A large mesh's setup runs on two threads: a helper worker started per setup (per-face-helper.worker.ts) orders the
 * free block while this worker assembles the system (perFaceSetupOrderedApart). When the page is cross-origin isolated
 * (so that threads may share memory), plain per-face frames then run on the same two threads (perFaceTwoCore).
 * Per-face context frames and unposing stay on this thread.
 */
import { expose, transfer } from 'comlink';
import type { Influences } from './skinning/influences.ts';
import {
  perFaceSkinning,
  perFaceSkinningWorkspace,
  type PerFaceSkinningSetup,
  type PerFaceSkinningWorkspace,
} from './skinning/per-face-skinning.ts';
import { vertexNormals } from './mesh/vertex-normals.ts';
import {
  perFaceSetupOrderedApart,
  perFaceTwoCore,
  perFaceWorthTwoThreads,
  type PerFaceHelperAnswer,
  type PerFaceHelperMessage,
  type PerFaceTwoCore,
} from './skinning/per-face-two-core.ts';
import {
  perFaceContextSkinning,
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
/** the current setup's two-core frame, or null (not isolated, a small mesh, or while its helper starts) */
let twoCore: PerFaceTwoCore | null = null;
/** setups begun so far: a setup that finds a later one begun when its ordering arrives drops its result */
let setups = 0;

/** How long a helper worker may take to start running a frame before plain per-face frames stay on this thread, ms. */
const HELPER_START_MS = 10_000;
/** How long the setup waits for a helper's ordering before it orders here, ms (a 1M-vertex mesh orders in ~2 s). */
const HELPER_ORDERING_MS = 60_000;

/** A helper worker for a large mesh's setup on a machine with two cores or more, or null. */
function startHelper(fixedBones: Int32Array): Worker | null {
  if ((globalThis.navigator?.hardwareConcurrency ?? 1) < 2 || !perFaceWorthTwoThreads(fixedBones)) return null;
  try {
    return new Worker(new URL('./per-face-helper.worker.ts', import.meta.url), { type: 'module', name: 'rigwright-per-face-helper' });
  } catch {
    return null;
  }
}

/**
 * The helper's next answer, or null when it fails to load, fails, or says nothing within `timeoutMs`. Its failures
 * are handled here: they must not reach the page as this worker's.
 */
function nextAnswer(helper: Worker, timeoutMs: number): Promise<PerFaceHelperAnswer | null> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => settle(null), timeoutMs);
    function settle(answer: PerFaceHelperAnswer | null) {
      clearTimeout(timer);
      helper.onmessage = null;
      helper.onmessageerror = null;
      helper.onerror = (event) => event.preventDefault();
      resolve(answer);
    }
    helper.onmessage = (event: MessageEvent<PerFaceHelperAnswer>) => settle(event.data);
    helper.onmessageerror = () => settle(null);
    helper.onerror = (event) => {
      event.preventDefault();
      settle(null);
    };
  });
}

/**
 * The two-core frame of a setup on its helper, running, or null when the page may not share memory, the mesh does not
 * split to gain, or the helper does not start its frame (memory short, a worker that fails or does not answer in
 * HELPER_START_MS): per-face frames then run on this thread, and the helper is ended. Resolves once the helper has
 * said it runs (a thread blocked in a frame must not wait on a worker that is still loading).
 */
async function startTwoCore(next: PerFaceSkinningSetup, helper: Worker): Promise<PerFaceTwoCore | null> {
  let frame: PerFaceTwoCore | null = null;
  if ((globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated) {
    try {
      frame = perFaceTwoCore(next, (shared) => {
        helper.postMessage({ kind: 'frame', shared } satisfies PerFaceHelperMessage);
        return { stop: () => helper.terminate() };
      });
    } catch {
      frame = null;
    }
  }
  if (!frame) {
    helper.terminate();
    return null;
  }
  const answer = await nextAnswer(helper, HELPER_START_MS);
  if (answer?.kind !== 'running') {
    frame.dispose();
    return null;
  }
  return frame;
}

/**
 * A plain per-face frame on two threads when the setup has them; false when it has not or the frame failed (the
 * two-core frame is then dropped for good and the caller solves on this thread).
 */
function twoCoreFrame(transforms: Float64Array, positions: Float64Array, scales: Float64Array | null): boolean {
  if (!twoCore) return false;
  try {
    twoCore.frame(transforms, positions, scales);
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
    contextWorkspace = null;
    const generation = ++setups;
    const helper = startHelper(fixedBones);
    let helperOrdered = helper !== null;
    const orderOnHelper = async (request: PerFaceHelperMessage): Promise<Int32Array | null> => {
      if (!helper) return null;
      helper.postMessage(request);
      const answer = await nextAnswer(helper, HELPER_ORDERING_MS);
      helperOrdered = answer?.kind === 'ordering';
      return answer?.kind === 'ordering' ? answer.ordering : null;
    };
    let next: PerFaceSkinningSetup;
    try {
      next = (await perFaceSetupOrderedApart(restPositions, triangles, influences, boneCount, fixedBones, orderOnHelper)).setup;
    } catch (error) {
      helper?.terminate();
      throw error;
    }
    // Another setup may have begun while this one waited for its ordering: this one is then not needed.
    if (generation !== setups) {
      helper?.terminate();
      return next.fixedVertices.length;
    }
    setup = next;
    workspace = perFaceSkinningWorkspace(next);
    if (!helper) return next.fixedVertices.length;
    if (!helperOrdered) {
      // A helper that could not order is not trusted with frames.
      helper.terminate();
      return next.fixedVertices.length;
    }
    const frame = await startTwoCore(next, helper);
    // Another setup may have begun while the helper started its frame: this one's frame is then not needed.
    if (setup === next) twoCore = frame;
    else frame?.dispose();
    return next.fixedVertices.length;
  },

  /** How many threads a plain per-face frame of the current setup runs on: 2 with the two-core frame, else 1. */
  threads(): number {
    return twoCore ? 2 : 1;
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
    if (!twoCoreFrame(transforms, positions, scales)) perFaceSkinning(setup, transforms, positions, workspace, scales);
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
    contextWorkspace = perFaceContextWorkspace(setup, examples);
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
    if (!examples || !contextWorkspace) {
      if (!twoCoreFrame(transforms, positions, scales)) perFaceSkinning(setup, transforms, positions, workspace, scales);
    } else perFaceContextSkinning(setup, examples, exampleWeights, blend, transforms, positions, contextWorkspace, scales);
    return posed(positions, setup.triangles);
  },
};

export type DeformApi = typeof deformApi;

expose(deformApi);
