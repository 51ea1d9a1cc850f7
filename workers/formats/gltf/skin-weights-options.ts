/**
 * The weights step's options (skin-weights-step.ts): how it stores the weights it writes. Apart from the step so that
 * the page can read the defaults (GLTF_EXPORT_DEFAULTS) without loading the writer.
 */
import type { GltfWeightComponent } from '../gltf-skin-weights.ts';
import type { Fail } from './export-state.ts';

export interface SkinWeightsOptions {
  /**
   * most influences per vertex, 1 … 8: the largest kept, renormalized; up to 4 are stored in JOINTS_0/WEIGHTS_0, more
   * add JOINTS_1/WEIGHTS_1 (which many viewers ignore)
   */
  influences?: number;
  /** stored type of WEIGHTS_n; integers are normalized and sum exactly to 255 / 65535 per vertex */
  weightComponent?: GltfWeightComponent;
}

export const SKIN_WEIGHTS_DEFAULTS: Required<SkinWeightsOptions> = { influences: 4, weightComponent: 'float' };

/**
 * Checks the weights step's options: whole influences 1 … 8.
 * @throws through `fail`, naming the reason
 */
export function checkSkinWeightsOptions(opts: Required<SkinWeightsOptions>, fail: Fail): void {
  if (!(Number.isInteger(opts.influences) && opts.influences >= 1 && opts.influences <= 8))
    fail('', `influences must be a whole number from 1 to 8 (up to 4: one joint set, above: two), not ${String(opts.influences)}`);
}
