/**
 * What context skinning rides on (renderer/posespace/pose-space-controller.ts): the examples' displacements through
 * LBS or DQS and the pose-space weights of the pose last given. The deformation controller, its CPU reference and
 * its vertex maps read it.
 */
import type { ExampleShape } from '../../workers/scene/scene-document.ts';

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
