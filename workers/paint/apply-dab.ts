import { brushFalloff, type BrushFalloff } from './brush-falloff.ts';
import { enforceWeightInvariants } from './enforce-weight-invariants.ts';
import type { PaintSettings, PaintWeights } from './paint-weights.ts';
import type { VertexOneRing } from './vertex-one-ring.ts';

/**
 * What a dab does to the painted bone's weight w at a vertex whose falloff-scaled strength is s = strength·f(d/r):
 * - 'add' w + s; 'subtract' w − s; 'set' w + s·(value − w);
 * - 'smooth' w + s·(mean of the one-ring's w − w): one Jacobi step of the uniform (graph) Laplacian, all neighbours
 *   read before any is written; it evens out neighbouring vertices and leaves broad ramps in place;
 * - 'blur' w + s·(m − w), m the Gaussian-weighted mean of w over every vertex under the brush, weight
 *   exp(−d²/(2σ²)) of the distance d to the centre, σ = radius / 2 (Blender's Average brush with a Gaussian kernel):
 *   the whole brush area is pulled toward one value, so ramps narrower than the brush flatten; a constant field
 *   stays constant;
 * - 'relax' the smooth step minus its mean: with δ = s·(one-ring mean − w), each vertex gets δ − s·(Σδ / Σs), so
 *   the bone's total Σ w under the brush is kept (Laplacian smoothing that does not shrink the weight, as Maya's
 *   Relax against Blender's Smooth), exactly so where no weight is clamped at 0 or at the room the locks leave;
 * - 'sample' changes nothing (the caller reads the returned weight).
 */
export type DabMode = 'add' | 'subtract' | 'set' | 'smooth' | 'blur' | 'relax' | 'sample';

/** One brush dab. */
export interface Dab {
  /** brush centre, world units (3 numbers) */
  centre: ArrayLike<number>;
  /** brush radius, world units */
  radius: number;
  /** in [0, 1]: the change at the centre, as a fraction (add/subtract: weight units) */
  strength: number;
  falloff: BrushFalloff;
  mode: DabMode;
  /** target weight of 'set' mode, in [0, 1] */
  value: number;
}

let smoothed = new Float64Array(0);

/** σ of the blur brush's Gaussian as a fraction of the brush radius. */
export const BLUR_SIGMA = 0.5;

/** The one-ring means of `bone` at the gathered vertices into `smoothed` (a vertex without neighbours: its own w). */
function oneRingMeans(
  data: Float32Array,
  nb: number,
  bone: number,
  indices: Uint32Array,
  count: number,
  oneRing: VertexOneRing,
): Float64Array {
  if (smoothed.length < count) smoothed = new Float64Array(Math.max(count, 2 * smoothed.length));
  const { offsets, neighbors } = oneRing;
  for (let i = 0; i < count; i++) {
    const v = indices[i];
    const begin = offsets[v],
      end = offsets[v + 1];
    if (end === begin) {
      smoothed[i] = data[v * nb + bone];
      continue;
    }
    let sum = 0;
    for (let p = begin; p < end; p++) sum += data[neighbors[p] * nb + bone];
    smoothed[i] = sum / (end - begin);
  }
  return smoothed;
}

/**
 * Applies one dab to one bone's weights on the gathered vertices, then restores the invariants (normalization
 * around locked bones, influence limit) on those vertices only (enforceWeightInvariants). Painting a locked bone
 * changes nothing.
 * @param weights   #V × #B weights, modified in place
 * @param bone      the painted bone
 * @param dab       the dab
 * @param indices   vertices inside the brush (first `count`), e.g. from queryVertexGrid
 * @param distances their distances to the dab centre, world units
 * @param count     number of gathered vertices
 * @param settings  locks and influence limit
 * @param oneRing   mesh one-ring, needed by 'smooth' and 'relax' modes only
 * @returns the bone's weight, before the dab, at the gathered vertex nearest the centre (what 'sample' reads);
 *          NaN when nothing was gathered
 */
export function applyDab(
  weights: PaintWeights,
  bone: number,
  dab: Dab,
  indices: Uint32Array,
  distances: Float64Array,
  count: number,
  settings: PaintSettings,
  oneRing?: VertexOneRing,
): number {
  const { boneCount: nb, data } = weights;
  if (!(bone >= 0 && bone < nb)) throw new RangeError(`applyDab: bone ${bone} out of range [0, ${nb})`);
  let nearest = -1;
  let nearestDistance = Infinity;
  for (let i = 0; i < count; i++) {
    if (distances[i] < nearestDistance) {
      nearestDistance = distances[i];
      nearest = indices[i];
    }
  }
  const sampled = nearest >= 0 ? data[nearest * nb + bone] : NaN;
  if (dab.mode === 'sample' || settings.locked[bone] || count === 0) return sampled;

  const strength = Math.min(Math.max(dab.strength, 0), 1);
  const inverseRadius = dab.radius > 0 ? 1 / dab.radius : Infinity;
  const falloff = dab.falloff;
  switch (dab.mode) {
    case 'add':
    case 'subtract': {
      const sign = dab.mode === 'add' ? strength : -strength;
      for (let i = 0; i < count; i++) data[indices[i] * nb + bone] += sign * brushFalloff(falloff, distances[i] * inverseRadius);
      break;
    }
    case 'set': {
      const value = Math.min(Math.max(dab.value, 0), 1);
      for (let i = 0; i < count; i++) {
        const o = indices[i] * nb + bone;
        data[o] += strength * brushFalloff(falloff, distances[i] * inverseRadius) * (value - data[o]);
      }
      break;
    }
    case 'smooth': {
      if (!oneRing) throw new Error('applyDab: smooth mode needs the mesh one-ring');
      const means = oneRingMeans(data, nb, bone, indices, count, oneRing);
      for (let i = 0; i < count; i++) {
        const o = indices[i] * nb + bone;
        data[o] += strength * brushFalloff(falloff, distances[i] * inverseRadius) * (means[i] - data[o]);
      }
      break;
    }
    case 'relax': {
      if (!oneRing) throw new Error('applyDab: relax mode needs the mesh one-ring');
      const means = oneRingMeans(data, nb, bone, indices, count, oneRing);
      let changeSum = 0;
      let strengthSum = 0;
      for (let i = 0; i < count; i++) {
        const s = strength * brushFalloff(falloff, distances[i] * inverseRadius);
        means[i] = s * (means[i] - data[indices[i] * nb + bone]);
        changeSum += means[i];
        strengthSum += s;
      }
      if (strengthSum === 0) break;
      const shift = changeSum / strengthSum;
      for (let i = 0; i < count; i++) {
        data[indices[i] * nb + bone] += means[i] - strength * brushFalloff(falloff, distances[i] * inverseRadius) * shift;
      }
      break;
    }
    case 'blur': {
      const inverseTwoSigma2 = dab.radius > 0 ? 1 / (2 * (BLUR_SIGMA * dab.radius) ** 2) : 0;
      let weighted = 0;
      let total = 0;
      for (let i = 0; i < count; i++) {
        const g = Math.exp(-distances[i] * distances[i] * inverseTwoSigma2);
        weighted += g * data[indices[i] * nb + bone];
        total += g;
      }
      const mean = weighted / total;
      for (let i = 0; i < count; i++) {
        const o = indices[i] * nb + bone;
        data[o] += strength * brushFalloff(falloff, distances[i] * inverseRadius) * (mean - data[o]);
      }
      break;
    }
  }
  enforceWeightInvariants(weights, indices, count, bone, settings);
  return sampled;
}
