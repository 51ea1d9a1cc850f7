/** How a brush's effect fades from its centre (distance 0) to its rim (normalized distance 1). */
export type BrushFalloff = 'smooth' | 'linear' | 'constant';

/**
 * Brush falloff profile f(t) of the normalized distance t = d / radius.
 * - 'smooth': 1 − 3t² + 2t³ (the reversed smoothstep): f(0) = 1, f(½) = ½, f(1) = 0, zero slope at both ends, so
 *   the edited region blends into the rest without a crease.
 * - 'linear': 1 − t.
 * - 'constant': 1 inside the brush.
 * Every profile is non-increasing on [0, 1], equals 1 at t ≤ 0 and 0 for t > 1 (outside the brush).
 * @param falloff profile name
 * @param t       normalized distance (unitless); NaN gives 0
 * @returns the weight of the dab at that distance, in [0, 1]
 */
export function brushFalloff(falloff: BrushFalloff, t: number): number {
  if (!(t <= 1)) return 0;
  if (t <= 0) return 1;
  switch (falloff) {
    case 'smooth':
      return 1 - t * t * (3 - 2 * t);
    case 'linear':
      return 1 - t;
    case 'constant':
      return 1;
  }
}
