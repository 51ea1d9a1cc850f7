import { brushFalloff, type BrushFalloff } from './brush-falloff.ts';
import { enforceWeightInvariants } from './enforce-weight-invariants.ts';
import type { PaintSettings, PaintWeights } from './paint-weights.ts';
import type { VertexGrid } from './vertex-grid.ts';

/** A linear gradient dragged from a start point A to an end point B (Blender's weight gradient tool). */
export interface WeightGradient {
  /** A, where the gradient holds `value`, world units (3 numbers) */
  start: ArrayLike<number>;
  /** B, where it reaches 0, world units (3 numbers) */
  end: ArrayLike<number>;
  /** how far from the segment A–B vertices are reached, world units */
  radius: number;
  /** the weight at A's side, in [0, 1] */
  value: number;
  /** in [0, 1]: how far each vertex moves toward the gradient (1 = onto it) */
  strength: number;
  /** the profile from A (t = 0) to B (t = 1): 'linear' is the straight ramp */
  falloff: BrushFalloff;
}

/**
 * The gradient's parameter of a point p: t = (p − A)·(B − A) / |B − A|², 0 at A's plane and 1 at B's plane, along
 * the drag direction. NaN when A = B.
 */
export function gradientParameter(gradient: WeightGradient, x: number, y: number, z: number): number {
  const { start: a, end: b } = gradient;
  const dx = b[0] - a[0],
    dy = b[1] - a[1],
    dz = b[2] - a[2];
  const length2 = dx * dx + dy * dy + dz * dz;
  if (!(length2 > 0)) return NaN;
  return ((x - a[0]) * dx + (y - a[1]) * dy + (z - a[2]) * dz) / length2;
}

/**
 * The gradient's target weight at parameter t: value·f(t) with the falloff profile f (brushFalloff), so `value` on
 * A's side (t ≤ 0) and 0 past B (t > 1); 'linear' is value·(1 − t) between them.
 */
export function gradientTarget(gradient: WeightGradient, t: number): number {
  return Math.min(Math.max(gradient.value, 0), 1) * brushFalloff(gradient.falloff, t);
}

/**
 * Gathers the vertices within `gradient.radius` of the segment A–B (a capsule) from a vertex grid, with their
 * gradient parameters t.
 * @param grid       the grid over the positions the gradient is dragged on
 * @param gradient   the gradient
 * @param outIndices capacity ≥ the count: vertex indices (first `count`)
 * @param outAlong   same capacity: each vertex's t (gradientParameter)
 * @returns the number of vertices in the capsule; when larger than the capacity, only the capacity was written
 *          (call again with larger arrays)
 */
export function gatherGradient(grid: VertexGrid, gradient: WeightGradient, outIndices: Uint32Array, outAlong: Float64Array): number {
  const { start: a, end: b, radius } = gradient;
  const { vertices, sortedPositions } = grid;
  const dx = b[0] - a[0],
    dy = b[1] - a[1],
    dz = b[2] - a[2];
  const length2 = dx * dx + dy * dy + dz * dz;
  if (!(length2 > 0) || !(radius >= 0)) return 0;
  const capacity = Math.min(outIndices.length, outAlong.length);
  const r2 = radius * radius;
  let count = 0;
  // The capsule is small next to the mesh only for short drags; a linear pass over the sorted vertices is as fast
  // as a sphere query around the segment's middle for the long ones, and has no reach to get wrong.
  for (let s = 0; s < vertices.length; s++) {
    const px = sortedPositions[3 * s] - a[0],
      py = sortedPositions[3 * s + 1] - a[1],
      pz = sortedPositions[3 * s + 2] - a[2];
    const t = (px * dx + py * dy + pz * dz) / length2;
    const u = Math.min(Math.max(t, 0), 1);
    const ex = px - u * dx,
      ey = py - u * dy,
      ez = pz - u * dz;
    if (ex * ex + ey * ey + ez * ez > r2) continue;
    if (count < capacity) {
      outIndices[count] = vertices[s];
      outAlong[count] = t;
    }
    count++;
  }
  return count;
}

/**
 * Applies a gradient to one bone's weights on the gathered vertices: w ← w + strength·(gradientTarget(t) − w), then
 * restores the invariants on those rows (enforceWeightInvariants, the bone as the painted one), as a brush dab does.
 * A locked bone is left unchanged.
 * @param weights  #V × #B weights, modified in place
 * @param bone     the bone the gradient paints
 * @param gradient the gradient (its value, strength and falloff)
 * @param indices  the vertices it reaches (first `count`), e.g. from gatherGradient
 * @param along    their parameters t along A → B
 * @param count    number of vertices
 * @param settings locks and influence limit
 */
export function applyGradient(
  weights: PaintWeights,
  bone: number,
  gradient: WeightGradient,
  indices: Uint32Array,
  along: Float64Array,
  count: number,
  settings: PaintSettings,
): void {
  const { boneCount: nb, data } = weights;
  if (!(bone >= 0 && bone < nb)) throw new RangeError(`applyGradient: bone ${bone} out of range [0, ${nb})`);
  if (settings.locked[bone] || count === 0) return;
  const strength = Math.min(Math.max(gradient.strength, 0), 1);
  for (let i = 0; i < count; i++) {
    const o = indices[i] * nb + bone;
    data[o] += strength * (gradientTarget(gradient, along[i]) - data[o]);
  }
  enforceWeightInvariants(weights, indices, count, bone, settings);
}
