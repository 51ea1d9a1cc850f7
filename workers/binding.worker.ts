/**
 * The binding worker: automatic handles, harmonic weights, volumetric weights and mirror matching for symmetric painting, off the main
 * thread so the viewport keeps drawing while a large mesh is factorized or matched. A thin comlink wrapper over
 * workers/weights/ and workers/paint/mirror-vertex-map.ts.
 *
 * Progress travels back through a comlink-proxied callback (fire-and-forget messages). Cancellation does NOT
 * travel in: the solve is one synchronous call, so this worker reads no message until it returns, and a proxied
 * `isCancelled` would answer with a Promise, never a boolean. Without SharedArrayBuffer (it needs COOP/COEP
 * headers the web build cannot count on) the caller cancels by terminating this worker and starting a new one
 * (renderer/binding-client.ts): immediate at any stage, and nothing in here outlives a call.
 *
 * Every typed array returned is transferred, not copied.
 */
import { expose, transfer } from 'comlink';
import { harmonicWeights, type HarmonicWeightsOptions, type HarmonicWeightsResult } from './weights/harmonic-weights.ts';
import { automaticHandles, type AutomaticHandleRule } from './weights/automatic-handles.ts';
import type { TgfSkeleton } from './formats/types.ts';
import { mirrorVertexMap, type MirrorVertexMap } from './paint/mirror-vertex-map.ts';
import { volumetricWeights, type VolumetricWeightsOptions, type VolumetricWeightsResult } from './weights/volumetric-weights.ts';

export type { AutomaticHandleRule };

export const bindingApi = {
  /**
   * #V handle labels (bone index or -1) by a geometric rule, on the welded mesh (see automaticHandles).
   * @param positions #V × 3 rest positions
   * @param skeleton  joints #J × 3, bones #B × 2
   */
  automaticHandles(positions: Float64Array, skeleton: TgfSkeleton, rule: AutomaticHandleRule): Int32Array {
    const handles = automaticHandles(positions, skeleton, rule);
    return transfer(handles, [handles.buffer]);
  },

  /**
   * Harmonic weights (see harmonicWeights). `progress` is a comlink proxy; it receives the stage and the overall
   * fraction in [0, 1].
   */
  harmonicWeights(
    positions: Float64Array,
    triangles: Uint32Array,
    handles: Int32Array,
    boneCount: number,
    options: HarmonicWeightsOptions,
    progress?: (stage: string, fraction: number) => void,
  ): HarmonicWeightsResult {
    const result = harmonicWeights(
      positions,
      triangles,
      handles,
      boneCount,
      options,
      (stage, fraction) => void progress?.(stage, fraction),
    );
    return transfer(result, [result.weights.buffer]);
  },

  /**
   * Volumetric weights by geodesic voxel binding (see volumetricWeights). `progress` is a comlink proxy; it receives
   * the stage and the overall fraction in [0, 1].
   */
  volumetricWeights(
    positions: Float64Array,
    triangles: Uint32Array,
    skeleton: TgfSkeleton,
    options: VolumetricWeightsOptions,
    progress?: (stage: string, fraction: number) => void,
  ): VolumetricWeightsResult {
    const result = volumetricWeights(positions, triangles, skeleton, options, (stage, fraction) => void progress?.(stage, fraction));
    return transfer(result, [result.weights.buffer]);
  },

  /** Mirror partners across the plane axis = 0 (see mirrorVertexMap); `progress` receives the fraction matched. */
  mirrorVertexMap(
    positions: Float64Array,
    triangles: Uint32Array,
    axis: 0 | 1 | 2,
    tolerance: number,
    progress?: (fraction: number) => void,
  ): MirrorVertexMap {
    const map = mirrorVertexMap(positions, triangles, axis, tolerance, (fraction) => void progress?.(fraction));
    return transfer(map, [map.triangle.buffer, map.barycentric.buffer, map.partner.buffer, map.distance.buffer, map.unmatched.buffer]);
  },
};

export type BindingApi = typeof bindingApi;

expose(bindingApi);
