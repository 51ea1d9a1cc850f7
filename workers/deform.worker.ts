/**
 * The deformation worker: per-face skinning's Poisson stitching (workers/skinning/per-face-skinning.ts) runs here
 * so the viewport keeps drawing while a frame solves. `setup` factors once per mesh and fixed set; each `pose`
 * solves three right-hand sides and returns positions and normals, transferred. Per-face context deformation
 * (workers/posespace/per-face-context.ts) runs on the same factor: `unposePerFace` unposes examples,
 * `setPerFaceExamples` computes their per-face transformations once, `poseContext` poses a frame with given
 * example weights a_j. A thin comlink wrapper.
 */
import { expose, transfer } from 'comlink';
import type { Influences } from './skinning/influences.ts';
import {
  perFaceSkinning,
  perFaceSkinningSetup,
  perFaceSkinningWorkspace,
  type PerFaceSkinningSetup,
  type PerFaceSkinningWorkspace,
} from './skinning/per-face-skinning.ts';
import { vertexNormals } from './mesh/vertex-normals.ts';
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

function posed(positions: Float64Array, triangles: Uint32Array): { positions: Float64Array; normals: Float64Array } {
  const normals = vertexNormals(positions, triangles);
  return transfer({ positions, normals }, [positions.buffer, normals.buffer]);
}

export const deformApi = {
  /** Factors the stitching system; see perFaceSkinningSetup. Returns the number of fixed vertices. */
  setup(restPositions: Float64Array, triangles: Uint32Array, influences: Influences, boneCount: number, fixedBones: Int32Array): number {
    // Let the previous mesh's setup go before building the next, so memory never holds two factorizations.
    setup = null;
    workspace = null;
    // Example transformations belong to the unposed shapes, which depend on the weights: set them anew.
    examples = null;
    contextWorkspace = null;
    const next = perFaceSkinningSetup(restPositions, triangles, influences, boneCount, fixedBones);
    setup = next;
    workspace = perFaceSkinningWorkspace(next);
    return next.fixedVertices.length;
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
    perFaceSkinning(setup, transforms, positions, workspace, scales);
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
    if (!examples || !contextWorkspace) perFaceSkinning(setup, transforms, positions, workspace, scales);
    else perFaceContextSkinning(setup, examples, exampleWeights, blend, transforms, positions, contextWorkspace, scales);
    return posed(positions, setup.triangles);
  },
};

export type DeformApi = typeof deformApi;

expose(deformApi);
