/**
 * The brush's symmetric dab and row repair as they were written first, kept as references for the faster ones in
 * workers/paint (paint-dab.ts, enforce-weight-invariants.ts), which must give the same bits: the mirrored dab went
 * from each gathered vertex to its partner, the partner's welded vertex and its members, with separate mark and slot
 * arrays; the row repair read and classified every bone of a row. Test support, not a test file.
 */
import { applyDab, type Dab } from '../../workers/paint/apply-dab.ts';
import { brushFalloff } from '../../workers/paint/brush-falloff.ts';
import type { DabSymmetry } from '../../workers/paint/paint-dab.ts';
import { recordRows, type PaintHistory } from '../../workers/paint/paint-history.ts';
import type { PaintSettings, PaintWeights } from '../../workers/paint/paint-weights.ts';
import type { VertexOneRing } from '../../workers/paint/vertex-one-ring.ts';
import { LOCKED_SUM_TOLERANCE, unlockedKept } from '../../workers/weights/limit-influences.ts';

/** What the reference dab reads and writes: PaintContext's fields, with its own scratch. */
export interface ReferencePaintState {
  weights: PaintWeights;
  oneRing: VertexOneRing;
  settings: PaintSettings;
  history: PaintHistory | null;
  symmetry: DabSymmetry | null;
  vertexMask: Uint8Array | null;
  indices: Uint32Array;
  distances: Float64Array;
  count: number;
  mirroredIndices: Uint32Array;
  mirroredDistances: Float64Array;
  mirroredCount: number;
  mark: Int32Array;
  slot: Int32Array;
  stamp: number;
}

/** A reference state on `weights` whose gather buffers hold `capacity` vertices. */
export function referencePaintState(
  weights: PaintWeights,
  oneRing: VertexOneRing,
  settings: PaintSettings,
  history: PaintHistory | null,
  symmetry: DabSymmetry | null,
  capacity: number,
): ReferencePaintState {
  return {
    weights,
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
    mark: new Int32Array(weights.vertexCount),
    slot: new Int32Array(weights.vertexCount),
    stamp: 0,
  };
}

/**
 * paintGathered as first written: the dab on the gathered vertices (the first `state.count` of `state.indices`), then
 * on their partners' welded vertices' members with the paired bone, each once at its smallest distance. The gather
 * buffers must hold every mirrored vertex (no growing here).
 * @returns the bone's weight before the dab at the vertex nearest the centre
 */
export function referencePaintGathered(state: ReferencePaintState, bone: number, dab: Dab, apply: typeof applyDab = applyDab): number {
  const { indices, distances, count } = state;
  state.mirroredCount = 0;
  if (state.history && dab.mode !== 'sample') recordRows(state.history, indices, count);
  const sampled = apply(state.weights, bone, dab, indices, distances, count, state.settings, state.oneRing);
  const symmetry = state.symmetry;
  const pair = symmetry && dab.mode !== 'sample' ? symmetry.bonePairs[bone] : -1;
  if (pair < 0) return sampled;
  const { partner, welded } = symmetry!;
  const { mark, slot, vertexMask } = state;
  const stamp = (state.stamp += 2);
  if (pair === bone) for (let i = 0; i < count; i++) mark[indices[i]] = stamp + 1;
  const mirrored = state.mirroredIndices;
  const mirroredDistances = state.mirroredDistances;
  let m = 0;
  for (let i = 0; i < count; i++) {
    const p = partner[indices[i]];
    if (p < 0) continue;
    const w = welded ? welded.index[p] : 0;
    const first = welded ? welded.memberStart[w] : -1;
    const end = welded ? welded.memberStart[w + 1] : 0;
    for (let k = first; k < end; k++) {
      const q = k < 0 ? p : welded!.members[k];
      if (mark[q] === stamp + 1 || (vertexMask && !vertexMask[q])) continue;
      if (mark[q] === stamp) {
        const s = slot[q];
        if (distances[i] < mirroredDistances[s]) mirroredDistances[s] = distances[i];
        continue;
      }
      mark[q] = stamp;
      slot[q] = m;
      mirrored[m] = q;
      mirroredDistances[m++] = distances[i];
    }
  }
  state.mirroredCount = m;
  if (state.history) recordRows(state.history, mirrored, m);
  apply(state.weights, pair, dab, mirrored, mirroredDistances, m, state.settings, state.oneRing);
  return sampled;
}

/**
 * applyDab's add, subtract and set modes followed by the reference row repair: the first brush's whole dab in those
 * modes (the others throw).
 * @returns the bone's weight before the dab at the gathered vertex nearest the centre (NaN when none)
 */
export function referenceApplyDab(
  weights: PaintWeights,
  bone: number,
  dab: Dab,
  indices: Uint32Array,
  distances: Float64Array,
  count: number,
  settings: PaintSettings,
): number {
  const { boneCount: nb, data } = weights;
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
  const value = Math.min(Math.max(dab.value, 0), 1);
  for (let i = 0; i < count; i++) {
    const o = indices[i] * nb + bone;
    const s = strength * brushFalloff(dab.falloff, distances[i] * inverseRadius);
    if (dab.mode === 'add') data[o] += s;
    else if (dab.mode === 'subtract') data[o] += -s;
    else if (dab.mode === 'set') data[o] += s * (value - data[o]);
    else throw new Error(`referenceApplyDab: no ${dab.mode} mode here`);
  }
  referenceEnforceWeightInvariants(weights, indices, count, bone, settings);
  return sampled;
}

/**
 * enforceWeightInvariants as first written (the same rules, see there): every bone of a row is read and classified.
 * @returns the number of rows that could not be repaired
 */
export function referenceEnforceWeightInvariants(
  weights: PaintWeights,
  rows: ArrayLike<number>,
  count: number,
  paintedBone: number,
  settings: PaintSettings,
): number {
  const { boneCount: nb, data } = weights;
  const { locked } = settings;
  const others = new Int32Array(nb);
  const painted = paintedBone >= 0 && paintedBone < nb && !locked[paintedBone] ? paintedBone : -1;
  const limit = settings.maxInfluences > 0 ? settings.maxInfluences : nb;
  let failed = 0;
  for (let r = 0; r < count; r++) {
    const o = rows[r] * nb;
    let lockedSum = 0;
    let lockedNonZero = 0;
    let otherCount = 0;
    let othersSum = 0;
    for (let b = 0; b < nb; b++) {
      const w = data[o + b];
      if (locked[b]) {
        lockedSum += w;
        if (w !== 0) lockedNonZero++;
      } else if (!(w > 0)) {
        data[o + b] = 0;
      } else if (b !== painted) {
        others[otherCount++] = b;
        othersSum += w;
      }
    }
    const remainder = lockedSum < 1 ? 1 - lockedSum : 0;
    let paintedValue = painted >= 0 ? Math.min(data[o + painted], remainder) : 0;
    let rowFailed = lockedSum > 1 + LOCKED_SUM_TOLERANCE;
    const allowed = painted >= 0 ? limit - lockedNonZero - (paintedValue > 0 ? 1 : 0) : unlockedKept(limit, lockedNonZero, remainder);
    if (otherCount > allowed) {
      dropSmallest(data, o, others, otherCount, allowed > 0 ? allowed : 0);
      let kept = 0;
      othersSum = 0;
      for (let i = 0; i < otherCount; i++) {
        const b = others[i];
        if (data[o + b] === 0) continue;
        others[kept++] = b;
        othersSum += data[o + b];
      }
      otherCount = kept;
    }
    const target = remainder - paintedValue;
    if (othersSum > 0) {
      const scale = target / othersSum;
      for (let i = 0; i < otherCount; i++) data[o + others[i]] *= scale;
    } else if (painted >= 0) {
      paintedValue = remainder;
    } else if (remainder > 0) {
      rowFailed = true;
    }
    if (painted >= 0) data[o + painted] = paintedValue;
    if (rowFailed) failed++;
  }
  return failed;
}

/** Zeroes all but the `keep` largest of the listed bones; ties keep the lower bone (a sort, where the original ranks in place). */
function dropSmallest(data: Float32Array, o: number, bones: Int32Array, count: number, keep: number): void {
  const order = Array.from(bones.subarray(0, count)).sort((a, b) => data[o + b] - data[o + a] || a - b);
  for (const b of order.slice(keep)) data[o + b] = 0;
}

/** The paint session's sets of changed vertices as first written: each vertex listed once, in the order first added. */
export class ReferenceChangedVertices {
  private readonly list: Uint32Array;
  private count = 0;
  private readonly listed: Uint8Array;

  constructor(vertexCount: number) {
    this.list = new Uint32Array(vertexCount);
    this.listed = new Uint8Array(vertexCount);
  }

  add(vertices: ArrayLike<number>, count: number): void {
    for (let i = 0; i < count; i++) {
      const v = vertices[i];
      if (this.listed[v]) continue;
      this.listed[v] = 1;
      this.list[this.count++] = v;
    }
  }

  /** Empties the set. @returns what it held (a view valid until the next add) */
  take(): { vertices: Uint32Array; count: number } {
    const { count } = this;
    for (let i = 0; i < count; i++) this.listed[this.list[i]] = 0;
    this.count = 0;
    return { vertices: this.list, count };
  }
}
