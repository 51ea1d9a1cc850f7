import { brushFalloff, type BrushFalloff } from './brush-falloff.ts';
import { enforceWeightInvariants } from './enforce-weight-invariants.ts';
import type { PaintSettings, PaintWeights } from './paint-weights.ts';
import type { VertexOneRing } from './vertex-one-ring.ts';

/**
 * What a dab does to the painted bone's weight w at a vertex whose falloff-scaled strength is s = strength·f(d/r):
 * 'add' w + s; 'subtract' w − s; 'set' w + s·(value − w); 'smooth' w + s·(mean of the one-ring's w − w), all
 * neighbours read before any is written; 'sample' changes nothing (the caller reads the returned weight).
 */
export type DabMode = 'add' | 'subtract' | 'set' | 'smooth' | 'sample';

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
 * @param oneRing   mesh one-ring, needed by 'smooth' mode only
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
      if (smoothed.length < count) smoothed = new Float64Array(Math.max(count, 2 * smoothed.length));
      const { offsets, neighbors } = oneRing;
      for (let i = 0; i < count; i++) {
        const v = indices[i];
        const begin = offsets[v],
          end = offsets[v + 1];
        const w = data[v * nb + bone];
        if (end === begin) {
          smoothed[i] = w;
          continue;
        }
        let sum = 0;
        for (let p = begin; p < end; p++) sum += data[neighbors[p] * nb + bone];
        smoothed[i] = w + strength * brushFalloff(falloff, distances[i] * inverseRadius) * (sum / (end - begin) - w);
      }
      for (let i = 0; i < count; i++) data[indices[i] * nb + bone] = smoothed[i];
      break;
    }
  }
  enforceWeightInvariants(weights, indices, count, bone, settings);
  return sampled;
}
