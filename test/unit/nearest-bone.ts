/**
 * An expectation for provisional weights that does not use the code that made them: a vertex much nearer to one bone
 * (as a segment) than to any other gets its largest weight from that bone. Test support, not a test file.
 */
import assert from 'node:assert/strict';
import type { DenseMatrix } from '../../workers/formats/types.ts';
import type { Skeleton } from '../../workers/rig/skeleton.ts';

/** Distance from point p to the segment a–b (a zero-length segment: to a). */
function segmentDistance(p: number[], a: number[], b: number[]): number {
  const e = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
  const q = [p[0] - a[0], p[1] - a[1], p[2] - a[2]];
  const length2 = e[0] * e[0] + e[1] * e[1] + e[2] * e[2];
  const t = length2 > 0 ? Math.min(1, Math.max(0, (q[0] * e[0] + q[1] * e[1] + q[2] * e[2]) / length2)) : 0;
  return Math.hypot(q[0] - t * e[0], q[1] - t * e[1], q[2] - t * e[2]);
}

/**
 * Asserts that every vertex nearer to its nearest bone than 0.9 of its distance to the next nearest has its largest
 * weight on that nearest bone, and that enough vertices are that clear to make the check mean something.
 * @param positions  #V × 3
 * @param weights    #V × #B row-major
 * @param margin     how much nearer (mesh units) the nearest bone must also be than the next, for weights that do not
 *                   resolve finer distances (a voxel's side, say); 0 when absent
 * @returns how many vertices were checked
 */
export function assertNearestBoneWeighsMost(
  positions: Float64Array,
  skeleton: Skeleton,
  weights: DenseMatrix,
  what: string,
  margin = 0,
): number {
  const { joints, bones } = skeleton;
  const B = bones.length / 2;
  const joint = (j: number): number[] => [joints[3 * j], joints[3 * j + 1], joints[3 * j + 2]];
  let checked = 0;
  for (let v = 0; v < weights.rows; v++) {
    const p = [positions[3 * v], positions[3 * v + 1], positions[3 * v + 2]];
    const distances = Array.from({ length: B }, (_, b) => segmentDistance(p, joint(bones[2 * b]), joint(bones[2 * b + 1])));
    const nearest = distances.indexOf(Math.min(...distances));
    const next = Math.min(...distances.filter((_, b) => b !== nearest));
    if (!(distances[nearest] <= 0.9 * next) || next - distances[nearest] < margin) continue;
    const row = Array.from(weights.data.subarray(B * v, B * v + B));
    const heaviest = row.indexOf(Math.max(...row));
    if (heaviest !== nearest) assert.fail(`${what}: vertex ${v} is nearest to bone ${nearest} but weighs most on bone ${heaviest}`);
    checked++;
  }
  assert.ok(checked >= weights.rows / 4, `${what}: ${checked} of ${weights.rows} vertices clearly nearest to one bone`);
  return checked;
}
