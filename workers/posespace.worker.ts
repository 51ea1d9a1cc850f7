/**
 * The pose-space worker: per-vertex unposing of example shapes (workers/posespace/unpose.ts), with progress, so the
 * viewport keeps drawing while an 18k-vertex example is taken back to the rest pose. A thin comlink wrapper. The RBF
 * pose-space weights are not here: their system is J × J and a whole sequence's curves cost #frames · J pose
 * distances (microseconds), so renderer/posespace/pose-space-controller.ts computes them with the pose, where a
 * worker round trip would only add a frame of lag. Cancelling is terminating the worker (renderer/io/posespace-client.ts), the only way to stop a
 * synchronous loop without SharedArrayBuffer.
 */
import { expose, transfer } from 'comlink';
import { forwardKinematics } from './rig/forward-kinematics.ts';
import type { Skeleton } from './rig/skeleton.ts';
import type { Influences } from './skinning/influences.ts';
import type { DualQuaternionAntipodality } from './skinning/dual-quaternion-skinning.ts';
import { unposeExample, type UnposeMethod, type UnposeResult } from './posespace/unpose.ts';

export interface UnposeJob {
  restPositions: Float64Array;
  examplePositions: Float64Array;
  influences: Influences;
  skeleton: Skeleton;
  /** #B × 9 relative rotations of the example's pose */
  pose: Float64Array;
  method: UnposeMethod;
  antipodality: DualQuaternionAntipodality;
}

export const posespaceApi = {
  /**
   * Unposes one example at its own pose (forward kinematics of `pose`, then unposeExample).
   * @param onProgress  (vertices done, #V), every few thousand vertices
   */
  unpose(job: UnposeJob, onProgress?: (done: number, total: number) => void): UnposeResult {
    const transforms = new Float64Array(12 * job.skeleton.parents.length);
    forwardKinematics(job.skeleton, job.pose, transforms);
    const result = unposeExample(job.restPositions, job.examplePositions, job.influences, transforms, {
      method: job.method,
      antipodality: job.antipodality,
      onProgress: onProgress ? (done, total) => void onProgress(done, total) : null,
    });
    return transfer(result, [result.unposed.buffer, result.displacements.buffer, result.singularVertices.buffer]);
  },
};

export type PosespaceApi = typeof posespaceApi;

expose(posespaceApi);
