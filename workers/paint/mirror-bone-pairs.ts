import type { Skeleton } from '../rig/skeleton.ts';
import { mirroredName } from '../rig/side-names.ts';

/**
 * Pairs every bone with its mirror image across the plane `axis = plane`. By name when names are given and the
 * swapped name exists (mirroredName, workers/rig/side-names.ts); a bone whose name has no side is its own pair. Bones
 * left over (no names, or a side name whose partner is missing) are paired by position: the bone whose start and end joints are
 * nearest to this bone's reflected joints (sum of the two distances), accepted within `tolerance`; a bone
 * nearest to itself lies on the plane and is its own pair.
 * @param names     #B bone names, or null (TGF skeletons have none)
 * @param skeleton  rest joints and bones
 * @param axis      0 = x, 1 = y, 2 = z
 * @param tolerance largest accepted sum of joint distances, world units (default 5% of the skeleton's extent:
 *                  hand-placed rigs are symmetric only roughly — the context-aware body's spine sits 0.4% of its
 *                  height off the plane and its arms pair at 1%)
 * @param plane     where the plane crosses the axis (default 0)
 * @returns #B: the mirrored bone of each bone, itself for centre bones, -1 when nothing matches
 */
export function mirrorBonePairs(
  names: readonly string[] | null,
  skeleton: Skeleton,
  axis: 0 | 1 | 2,
  tolerance?: number,
  plane = 0,
): Int32Array {
  const { joints, bones } = skeleton;
  const nb = bones.length / 2;
  if (names && names.length !== nb) throw new RangeError(`mirrorBonePairs: ${names.length} names for ${nb} bones`);
  const pairs = new Int32Array(nb).fill(-1);
  if (names) {
    const byName = new Map<string, number>();
    names.forEach((name, b) => byName.set(name, b));
    for (let b = 0; b < nb; b++) {
      const mirrored = mirroredName(names[b]);
      if (mirrored === null) pairs[b] = b;
      else if (byName.has(mirrored)) pairs[b] = byName.get(mirrored)!;
    }
  }
  let extent = 0;
  for (let k = 0; k < 3; k++) {
    let low = Infinity,
      high = -Infinity;
    for (let i = k; i < joints.length; i += 3) {
      low = Math.min(low, joints[i]);
      high = Math.max(high, joints[i]);
    }
    if (high > low) extent = Math.max(extent, high - low);
  }
  const accept = tolerance ?? 0.05 * extent;
  const reflected = (joint: number, k: number) => (k === axis ? 2 * plane - joints[3 * joint + k] : joints[3 * joint + k]);
  for (let b = 0; b < nb; b++) {
    if (pairs[b] >= 0) continue;
    const s = bones[2 * b],
      e = bones[2 * b + 1];
    let best = -1;
    let bestCost = Infinity;
    for (let c = 0; c < nb; c++) {
      const cs = bones[2 * c],
        ce = bones[2 * c + 1];
      let ds = 0,
        de = 0;
      for (let k = 0; k < 3; k++) {
        ds += (joints[3 * cs + k] - reflected(s, k)) ** 2;
        de += (joints[3 * ce + k] - reflected(e, k)) ** 2;
      }
      const cost = Math.sqrt(ds) + Math.sqrt(de);
      if (cost < bestCost) {
        bestCost = cost;
        best = c;
      }
    }
    if (bestCost <= accept) pairs[b] = best;
  }
  return pairs;
}
