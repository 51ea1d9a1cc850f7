import { applyDab, type Dab } from './apply-dab.ts';
import { applyGradient, gatherGradient, type WeightGradient } from './apply-gradient.ts';
import { recordRows, type PaintHistory } from './paint-history.ts';
import type { PaintSettings, PaintWeights } from './paint-weights.ts';
import { queryVertexGrid, type VertexGrid } from './vertex-grid.ts';
import type { VertexOneRing } from './vertex-one-ring.ts';
import type { WeldedVertices } from '../mesh/weld-vertices.ts';

/** Symmetry painting: each dab is repeated on the mirror partners of its vertices, on the paired bone. */
export interface DabSymmetry {
  /** mirror plane axis = 0 (0 = x, 1 = y, 2 = z) */
  axis: 0 | 1 | 2;
  /** #B the mirrored bone of each bone (mirrorBonePairs), -1 = none: the mirrored dab is skipped */
  bonePairs: Int32Array;
  /**
   * #V each vertex's mirror partner, -1 when unmatched (mirrorVertexMap's `partner`, matched in the rest pose, so
   * the mirrored dab lands on the mirrored region in any pose)
   */
  partner: Int32Array;
  /**
   * the mesh's coincident vertices (weldVertices): a partner's whole welded vertex is painted, so a seam on the
   * mirrored side moves as one; absent: the partners alone
   */
  welded?: Pick<WeldedVertices, 'index' | 'memberStart' | 'members'>;
}

/** Everything a brush stroke reads and writes, plus the buffers it reuses from dab to dab. */
export interface PaintContext {
  weights: PaintWeights;
  /** grid over the positions the brush paints on (rest or posed); needed by gatherDab only */
  grid: VertexGrid | null;
  oneRing: VertexOneRing;
  settings: PaintSettings;
  /** when present, each dab records the rows it is about to change (the caller opens and closes the stroke) */
  history: PaintHistory | null;
  symmetry: DabSymmetry | null;
  /** #V 1 for each vertex a mirrored dab may paint (the meshes the brush acts on), or null for every vertex */
  vertexMask: Uint8Array | null;
  /** the last dab's vertices (first `count`) and their distances to its centre */
  indices: Uint32Array;
  distances: Float64Array;
  count: number;
  /** the last mirrored dab's vertices (first `mirroredCount`) and distances */
  mirroredIndices: Uint32Array;
  mirroredDistances: Float64Array;
  mirroredCount: number;
  /**
   * #V × 2 scratch for gathering mirror partners once each: per vertex its mark (stamped, never cleared) and, when
   * marked as a partner, its slot in mirroredIndices; side by side, so a partner costs one cache line
   */
  marks: Int32Array;
  stamp: number;
  /** the mirrored dab's targets of each vertex, built when a symmetry is first painted with (mirrorTargets) */
  mirrorTargets: MirrorTargets | null;
}

/**
 * Each vertex's targets of a mirrored dab, flattened once per symmetry: its mirror partner's welded vertex's members
 * (the vertices a dab on it paints on the other side), so a dab reads one list per vertex instead of going from the
 * partner to its welded vertex to the members.
 */
export interface MirrorTargets {
  /** the symmetry's partners and welding they were built from */
  partner: Int32Array;
  welded: DabSymmetry['welded'];
  /**
   * #V + 1: vertex v's targets are targets[start[v] .. start[v + 1]); null when no two vertices are welded
   * (`targets` is then the partner array itself, -1 = none)
   */
  start: Int32Array | null;
  targets: Int32Array;
}

/**
 * @param symmetry the symmetry (partners, and the welded vertices when it has them)
 * @returns each vertex's mirrored-dab targets: the members of its partner's welded vertex, ascending (none for an
 *          unmatched vertex), or the partner alone without welding
 */
export function mirrorTargets(symmetry: DabSymmetry): MirrorTargets {
  const { partner, welded } = symmetry;
  const n = partner.length;
  if (!welded || welded.memberStart.length - 1 === welded.index.length) return { partner, welded, start: null, targets: partner };
  const { index, memberStart, members } = welded;
  const start = new Int32Array(n + 1);
  for (let v = 0; v < n; v++) {
    const p = partner[v];
    start[v + 1] = start[v] + (p < 0 ? 0 : memberStart[index[p] + 1] - memberStart[index[p]]);
  }
  const targets = new Int32Array(start[n]);
  for (let v = 0; v < n; v++) {
    const p = partner[v];
    if (p >= 0) targets.set(members.subarray(memberStart[index[p]], memberStart[index[p] + 1]), start[v]);
  }
  return { partner, welded, start, targets };
}

/**
 * @returns a context with gather buffers for `capacity` vertices (they grow when a dab gathers more)
 */
export function createPaintContext(
  weights: PaintWeights,
  grid: VertexGrid | null,
  oneRing: VertexOneRing,
  settings: PaintSettings,
  history: PaintHistory | null = null,
  symmetry: DabSymmetry | null = null,
  capacity = 4096,
): PaintContext {
  return {
    weights,
    grid,
    oneRing,
    settings,
    history,
    symmetry,
    vertexMask: null,
    indices: new Uint32Array(capacity),
    distances: new Float64Array(capacity),
    count: 0,
    mirroredIndices: new Uint32Array(capacity),
    mirroredDistances: new Float64Array(capacity),
    mirroredCount: 0,
    marks: new Int32Array(2 * weights.vertexCount),
    stamp: 0,
    mirrorTargets: null,
  };
}

/**
 * Gathers the vertices inside the brush into `context.indices` / `distances` / `count`.
 * @returns the number gathered
 */
export function gatherDab(context: PaintContext, dab: Dab): number {
  const { grid } = context;
  if (!grid) throw new Error('gatherDab: the paint context has no vertex grid');
  const c = dab.centre;
  let count = queryVertexGrid(grid, c[0], c[1], c[2], dab.radius, context.indices, context.distances);
  if (count > context.indices.length) {
    context.indices = new Uint32Array(2 * count);
    context.distances = new Float64Array(2 * count);
    count = queryVertexGrid(grid, c[0], c[1], c[2], dab.radius, context.indices, context.distances);
  }
  context.count = count;
  return count;
}

/**
 * One dab of a stroke: gathers the vertices inside the brush (gatherDab), then paints them (paintGathered).
 * @param context paint context
 * @param bone    the painted bone
 * @param dab     the dab
 * @returns the bone's weight before the dab at the vertex nearest the centre (NaN when the brush gathered nothing)
 */
export function paintDab(context: PaintContext, bone: number, dab: Dab): number {
  gatherDab(context, dab);
  return paintGathered(context, bone, dab);
}

/**
 * Paints the vertices already in `context.indices` (the first `context.count`; a caller may have filtered a
 * gather, e.g. to the faces the camera sees): records their rows for undo, applies the dab with the invariants
 * (applyDab); with symmetry on and the bone paired, then the same dab on the paired bone at the gathered vertices'
 * mirror partners (with the vertices coincident with them, when the symmetry has them), each partner once at its
 * smallest distance; partners outside `context.vertexMask` are left alone. A bone paired with itself (one on the plane) skips partners the dab already painted. The mirrored vertices
 * are left in `context.mirroredIndices`.
 * @returns the bone's weight before the dab at the vertex nearest the centre (NaN when nothing was gathered)
 */
export function paintGathered(context: PaintContext, bone: number, dab: Dab): number {
  const { indices, distances, count } = context;
  context.mirroredCount = 0;
  if (context.history && dab.mode !== 'sample') recordRows(context.history, indices, count);
  const sampled = applyDab(context.weights, bone, dab, indices, distances, count, context.settings, context.oneRing);
  const symmetry = context.symmetry;
  const pair = symmetry && dab.mode !== 'sample' ? symmetry.bonePairs[bone] : -1;
  if (pair < 0) return sampled;
  let built = context.mirrorTargets;
  if (built?.partner !== symmetry!.partner || built.welded !== symmetry!.welded) built = context.mirrorTargets = mirrorTargets(symmetry!);
  const { start, targets } = built;
  const { marks, vertexMask } = context;
  const stamp = (context.stamp += 2);
  // marks[2q] = stamp: gathered as a partner, at slot marks[2q + 1]; stamp + 1: painted by the dab itself (self-paired
  // bone only).
  if (pair === bone) for (let i = 0; i < count; i++) marks[2 * indices[i]] = stamp + 1;
  if (context.mirroredIndices.length < count) {
    context.mirroredIndices = new Uint32Array(2 * count);
    context.mirroredDistances = new Float64Array(2 * count);
  }
  let mirrored = context.mirroredIndices;
  let mirroredDistances = context.mirroredDistances;
  let m = 0;
  for (let i = 0; i < count; i++) {
    const v = indices[i];
    // The partner alone (no welding: k = -1 names it), or every vertex of its welded vertex.
    const first = start ? start[v] : -1;
    const end = start ? start[v + 1] : targets[v] < 0 ? -1 : 0;
    for (let k = first; k < end; k++) {
      const q = start ? targets[k] : targets[v];
      const mark = marks[2 * q];
      if (mark === stamp + 1 || (vertexMask && !vertexMask[q])) continue;
      if (mark === stamp) {
        const s = marks[2 * q + 1];
        if (distances[i] < mirroredDistances[s]) mirroredDistances[s] = distances[i];
        continue;
      }
      if (m === mirrored.length) {
        mirrored = grown(mirrored, new Uint32Array(2 * m));
        mirroredDistances = grown(mirroredDistances, new Float64Array(2 * m));
      }
      marks[2 * q] = stamp;
      marks[2 * q + 1] = m;
      mirrored[m] = q;
      mirroredDistances[m++] = distances[i];
    }
  }
  context.mirroredIndices = mirrored;
  context.mirroredDistances = mirroredDistances;
  context.mirroredCount = m;
  if (context.history) recordRows(context.history, mirrored, m);
  applyDab(context.weights, pair, dab, mirrored, mirroredDistances, m, context.settings, context.oneRing);
  return sampled;
}

/**
 * Paints a gradient (applyGradient) on the vertices within its radius of the segment A–B on the context's grid,
 * those outside `context.vertexMask` left out, recording their rows for undo first. The vertices are left in
 * `context.indices` (first `context.count`) with their parameters t along A → B in `context.distances`. The mirrored
 * side is not painted: a gradient is dragged where it is wanted, on each side.
 * @returns the number of vertices the gradient reached
 */
export function paintGradient(context: PaintContext, bone: number, gradient: WeightGradient): number {
  const { grid } = context;
  if (!grid) throw new Error('paintGradient: the paint context has no vertex grid');
  let count = gatherGradient(grid, gradient, context.indices, context.distances);
  if (count > context.indices.length) {
    context.indices = new Uint32Array(count);
    context.distances = new Float64Array(count);
    count = gatherGradient(grid, gradient, context.indices, context.distances);
  }
  const { indices, distances, vertexMask } = context;
  if (vertexMask) {
    let kept = 0;
    for (let i = 0; i < count; i++) {
      if (!vertexMask[indices[i]]) continue;
      indices[kept] = indices[i];
      distances[kept++] = distances[i];
    }
    count = kept;
  }
  context.count = count;
  context.mirroredCount = 0;
  if (context.history) recordRows(context.history, indices, count);
  applyGradient(context.weights, bone, gradient, indices, distances, count, context.settings);
  return count;
}

/** `into` holding `from`'s values first (a gather buffer doubled). */
function grown<T extends Uint32Array | Float64Array>(from: T, into: T): T {
  into.set(from);
  return into;
}
