import { applyDab, mirrorDab, type Dab } from './apply-dab.ts';
import { recordRows, type PaintHistory } from './paint-history.ts';
import type { PaintSettings, PaintWeights } from './paint-weights.ts';
import { queryVertexGrid, type VertexGrid } from './vertex-grid.ts';
import type { VertexOneRing } from './vertex-one-ring.ts';

/** Everything a brush stroke reads and writes, plus the gather buffers it reuses from dab to dab. */
export interface PaintContext {
  weights: PaintWeights;
  /** grid over the positions the brush paints on (rest or posed) */
  grid: VertexGrid;
  oneRing: VertexOneRing;
  settings: PaintSettings;
  /** when present, each dab records the rows it is about to change (the caller opens and closes the stroke) */
  history: PaintHistory | null;
  /** symmetry: the mirror plane axis = 0 and the bone pairs (mirrorBonePairs); null = off */
  symmetry: { axis: 0 | 1 | 2; bonePairs: Int32Array } | null;
  indices: Uint32Array;
  distances: Float64Array;
  mirrored: Dab & { centre: Float64Array };
}

/**
 * @returns a context with gather buffers for `capacity` vertices (they grow when a dab gathers more)
 */
export function createPaintContext(
  weights: PaintWeights,
  grid: VertexGrid,
  oneRing: VertexOneRing,
  settings: PaintSettings,
  history: PaintHistory | null = null,
  symmetry: PaintContext['symmetry'] = null,
  capacity = 4096,
): PaintContext {
  return {
    weights, grid, oneRing, settings, history, symmetry,
    indices: new Uint32Array(capacity),
    distances: new Float64Array(capacity),
    mirrored: { centre: new Float64Array(3), radius: 0, strength: 0, falloff: 'smooth', mode: 'add', value: 0 },
  };
}

/**
 * One dab of a stroke: gathers the vertices inside the brush, records their rows for undo, applies the dab with the
 * invariants (applyDab); with symmetry on, then the same dab at the mirrored centre on the paired bone (skipped
 * when the bone has no pair).
 * @param context paint context
 * @param bone    the painted bone
 * @param dab     the dab
 * @returns the bone's weight before the dab at the vertex nearest the centre (NaN when the brush gathered nothing)
 */
export function paintDab(context: PaintContext, bone: number, dab: Dab): number {
  const sampled = dabAt(context, bone, dab);
  const symmetry = context.symmetry;
  if (symmetry && dab.mode !== 'sample') {
    const pair = symmetry.bonePairs[bone];
    if (pair >= 0) dabAt(context, pair, mirrorDab(dab, symmetry.axis, context.mirrored));
  }
  return sampled;
}

function dabAt(context: PaintContext, bone: number, dab: Dab): number {
  const c = dab.centre;
  let count = queryVertexGrid(context.grid, c[0], c[1], c[2], dab.radius, context.indices, context.distances);
  if (count > context.indices.length) {
    context.indices = new Uint32Array(2 * count);
    context.distances = new Float64Array(2 * count);
    count = queryVertexGrid(context.grid, c[0], c[1], c[2], dab.radius, context.indices, context.distances);
  }
  if (context.history && dab.mode !== 'sample') recordRows(context.history, context.indices, count);
  return applyDab(context.weights, bone, dab, context.indices, context.distances, count, context.settings, context.oneRing);
}
