/**
 * The clips step's options (clips-step.ts): how it keys the clips it writes; baked vertex animations without key times
 * are keyed alike (baked-morphs.ts). Apart from the step so that the page can read the defaults
 * (GLTF_EXPORT_DEFAULTS) without loading the writer.
 */
import type { Fail } from './export-state.ts';

export interface ClipsOptions {
  /** keyframe rate of rotation-matrix pose sequences and vertex animations without key times (pose files) */
  framesPerSecond?: number;
}

export const CLIPS_DEFAULTS: Required<ClipsOptions> = { framesPerSecond: 30 };

/**
 * Checks the clips step's options: a positive keyframe rate.
 * @throws through `fail`, naming the reason
 */
export function checkClipsOptions(opts: Required<ClipsOptions>, fail: Fail): void {
  if (!(opts.framesPerSecond > 0)) fail('', `frames per second must be positive, not ${opts.framesPerSecond}`);
}
