/**
 * The Bind panel's line after a Compute: what the bind ran and how long it took (no DOM, so it is testable alone).
 */
import type { LastBind } from './binding-controller.ts';
import { countOf, formatCount } from '../project/plain-number.ts';

/**
 * What the last bind ran, in one line: the bind's own time (in the worker: the weld, shells, handles and solve) and,
 * by method, the surface solve's Laplacian and welded vertices, or the volumetric binding's grid, solid voxels and the
 * time of its voxels, distances and weights.
 * @param boneCount #B, to count the rows solved
 */
export function doneLine(last: LastBind, boneCount: number): string {
  const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  if (last.method === 'volumetric') {
    const { grid, solidVoxels, surfaceVoxels, timings } = last.result;
    const solid = `${formatCount(solidVoxels)} solid voxels (${formatCount(surfaceVoxels)} on the surface)`;
    const times = `voxels ${seconds(timings.voxelizeMs)}, distances ${seconds(timings.distancesMs)}, weights ${seconds(timings.smoothMs + timings.verticesMs)}`;
    return `Done in ${seconds(last.bindTimings.totalMs)} · volumetric: ${grid.nx}×${grid.ny}×${grid.nz} grid, ${solid}; ${times}`;
  }
  const { result } = last;
  // The vertices solved (the scene's, or one part's) and the welded ones they were solved as.
  const solved = result.weights.length / Math.max(1, boneCount);
  const welded =
    result.weldedVertexCount < solved
      ? ` · ${countOf(solved, 'vertex', 'vertices')} solved as ${formatCount(result.weldedVertexCount)} (coincident ones welded)`
      : '';
  return `Done in ${seconds(last.bindTimings.totalMs)} · ${result.laplacianUsed === 'uniform' ? 'even' : 'surface-aware'} smoothness${welded}`;
}
