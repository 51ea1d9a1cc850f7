/**
 * The deformation worker: per-face skinning's Poisson stitching (workers/skinning/per-face-skinning.ts) runs here
 * so the viewport keeps drawing while a frame solves. `setup` factors once per mesh and fixed set; each `pose`
 * solves three right-hand sides and returns positions and normals, transferred. A thin comlink wrapper.
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

let setup: PerFaceSkinningSetup | null = null;
let workspace: PerFaceSkinningWorkspace | null = null;

export const deformApi = {
  /** Factors the stitching system; see perFaceSkinningSetup. Returns the number of fixed vertices. */
  setup(restPositions: Float64Array, triangles: Uint32Array, influences: Influences, boneCount: number, fixedBones: Int32Array): number {
    setup = perFaceSkinningSetup(restPositions, triangles, influences, boneCount, fixedBones);
    workspace = perFaceSkinningWorkspace(setup);
    return setup.fixedVertices.length;
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
    const normals = vertexNormals(positions, setup.triangles);
    return transfer({ positions, normals }, [positions.buffer, normals.buffer]);
  },
};

export type DeformApi = typeof deformApi;

expose(deformApi);
