import type { Influences } from './influences.ts';
import { linearBlendSkinning } from './linear-blend-skinning.ts';
import { dualQuaternionSkinning, type DualQuaternionSkinningOptions } from './dual-quaternion-skinning.ts';

/**
 * Weight-blended skinning (Maya's "weight blended" skinning method): per vertex, the linear blend and the dual
 * quaternion results lerped by a blend value β_v,
 *     v' = v'_LBS + β_v (v'_DQS − v'_LBS),   n' = normalize(n'_LBS + β_v (n'_DQS − n'_LBS)),
 * so that β = 0 (the default) is LBS and β = 1 is DQS; painting β near 1 only where LBS collapses (shoulders,
 * wrists) keeps LBS's behaviour elsewhere. shaders/skin-select.glsl (SKIN_METHOD 2) evaluates the same formula.
 * @param restPositions        #V × 3 rest positions
 * @param influences           per-vertex influences (#V × stride)
 * @param transforms           #B × 12 row-major 3×4 affine transforms for LBS (the scaled ones, as they are)
 * @param boneDualQuaternions  #B × 8 dual quaternions for DQS (see dualQuaternionSkinning)
 * @param blend                #V blend values β in [0, 1]
 * @param outPositions         #V × 3
 * @param options              DQS options (antipodality, first-phase scales)
 * @param restNormals          optional #V × 3 unit rest normals
 * @param outNormals           #V × 3, written when restNormals is given
 */
export function weightBlendedSkinning(
  restPositions: Float64Array,
  influences: Influences,
  transforms: Float64Array,
  boneDualQuaternions: Float64Array,
  blend: Float32Array | Float64Array,
  outPositions: Float64Array,
  options?: DualQuaternionSkinningOptions,
  restNormals?: Float64Array,
  outNormals?: Float64Array,
): void {
  const n = restPositions.length;
  const dqs = new Float64Array(n);
  const dqsNormals = restNormals && outNormals ? new Float64Array(n) : undefined;
  linearBlendSkinning(restPositions, influences, transforms, outPositions, restNormals, outNormals);
  dualQuaternionSkinning(restPositions, influences, boneDualQuaternions, dqs, options, restNormals, dqsNormals);
  for (let v = 0; v < n / 3; v++) {
    const t = blend[v];
    if (t === 0) continue;
    const p = 3 * v;
    for (let c = 0; c < 3; c++) outPositions[p + c] += t * (dqs[p + c] - outPositions[p + c]);
    if (dqsNormals && outNormals) {
      const x = outNormals[p] + t * (dqsNormals[p] - outNormals[p]);
      const y = outNormals[p + 1] + t * (dqsNormals[p + 1] - outNormals[p + 1]);
      const z = outNormals[p + 2] + t * (dqsNormals[p + 2] - outNormals[p + 2]);
      const length = Math.hypot(x, y, z);
      if (length > 0) {
        outNormals[p] = x / length;
        outNormals[p + 1] = y / length;
        outNormals[p + 2] = z / length;
      }
    }
  }
}
