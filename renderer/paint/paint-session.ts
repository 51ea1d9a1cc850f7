/**
 * The weights being painted and everything an edit needs: the float32 paint buffer (workers/paint/paint-weights.ts)
 * the brush edits, locks and the influence limit, the open stroke's record (workers/paint/paint-history.ts, for
 * Escape), symmetry (mirror vertex map and bone pairs), and the vertices changed since the views and the surface
 * under the brush last caught up. When a stroke or a whole-mesh command ends, its rows are written into the
 * document's float64 weights and handed back, before and after, as one WeightRowsEdit: the app's undo history
 * keeps those, so undo puts the document's own values back bit for bit. No DOM, no three.js.
 */
import type { DenseMatrix } from '../../workers/formats/types.ts';
import type { Skeleton } from '../../workers/rig/skeleton.ts';
import { applyDab, type Dab } from '../../workers/paint/apply-dab.ts';
import type { WeightGradient } from '../../workers/paint/apply-gradient.ts';
import { createPaintContext, mirrorTargets, paintGathered, paintGradient, type PaintContext } from '../../workers/paint/paint-dab.ts';
import { beginStroke, cancelStroke, createPaintHistory, endStroke, type PaintHistory } from '../../workers/paint/paint-history.ts';
import {
  defaultPaintSettings,
  paintWeightsFromDense,
  runOnRows,
  type PaintSettings,
  type PaintWeights,
} from '../../workers/paint/paint-weights.ts';
import { vertexOneRing, type VertexOneRing } from '../../workers/paint/vertex-one-ring.ts';
import { normalizeAllWeights } from '../../workers/paint/normalize-all-weights.ts';
import { limitTotalInfluences } from '../../workers/paint/limit-total-influences.ts';
import { pruneSmallWeights } from '../../workers/paint/prune-small-weights.ts';
import { SMOOTH_BONE_DEFAULTS, smoothBoneWeights } from '../../workers/paint/smooth-bone-weights.ts';
import { mirrorVertexMap, type MirrorVertexMap } from '../../workers/paint/mirror-vertex-map.ts';
import { mirrorBonePairs } from '../../workers/paint/mirror-bone-pairs.ts';
import { mirrorWeights } from '../../workers/paint/mirror-weights.ts';
import { weldVertices, type WeldedVertices } from '../../workers/mesh/weld-vertices.ts';

export interface PaintSymmetry {
  axis: 0 | 1 | 2;
  map: MirrorVertexMap;
  /** #B mirrored bone of each bone, -1 = none */
  bonePairs: Int32Array;
}

/** The rows one stroke or command changed in the document weights, before and after (row-major, #vertices × #B). */
export interface WeightRowsEdit {
  weights: DenseMatrix;
  vertices: Uint32Array;
  before: Float64Array;
  /** the paint buffer's float32 values, which the document now holds */
  after: Float32Array;
}

export class PaintSession {
  readonly weights: PaintWeights;
  readonly history: PaintHistory;
  /** the brush's gather buffers and, once the viewport has set it, the grid over the posed surface */
  readonly context: PaintContext;
  symmetry: PaintSymmetry | null = null;
  /** the rest mesh's coincident vertices, found when symmetry is first turned on */
  private welded: WeldedVertices | undefined;
  /** vertices changed since the views (set 0, takeDirty) and the surface under the brush (set 1, takeMoved) caught up */
  private readonly changes: ChangedVertices;

  /**
   * @param dense         #V × #B document weights: a completed edit writes its rows into it
   * @param restPositions #V × 3 rest positions (symmetry is matched in the rest pose)
   * @param mirrorMaps    mirror matches of these rest positions by axis, at mirrorTolerance: shared with whoever
   *                      keeps them across sessions (new weights, same mesh); matches found here are added to it
   * @param settings      locks and the influence limit (kept across sessions of one skeleton by their owner)
   * @param oneRing       the mesh's vertex one-rings (kept across sessions of one mesh by their owner)
   */
  constructor(
    readonly dense: DenseMatrix,
    private readonly restPositions: Float64Array,
    private readonly triangles: Uint32Array,
    private readonly skeleton: Skeleton,
    private readonly boneNames: readonly string[] | null,
    private readonly diagonal: number,
    private readonly mirrorMaps: (MirrorVertexMap | undefined)[] = [],
    readonly settings: PaintSettings = defaultPaintSettings(dense.cols),
    readonly oneRing: VertexOneRing = vertexOneRing(dense.rows, triangles, restPositions),
  ) {
    this.weights = paintWeightsFromDense(dense);
    this.history = createPaintHistory(this.weights);
    this.context = createPaintContext(this.weights, null, this.oneRing, this.settings, this.history);
    this.changes = new ChangedVertices(dense.rows);
  }

  /** How far a reflected vertex may be from the surface and still match: 1% of the bounding-box diagonal. */
  get mirrorTolerance(): number {
    return 0.01 * this.diagonal;
  }

  /** The mirror match across axis = 0 if it is known (in the shared mirrorMaps, or from an earlier setSymmetry). */
  mirrorMap(axis: 0 | 1 | 2): MirrorVertexMap | null {
    return this.mirrorMaps[axis] ?? null;
  }

  /**
   * Symmetry across the plane axis = 0 (rest pose), or off (null). The mirror match is computed here, on this
   * thread, unless it is already known (the viewport computes it in a worker first).
   */
  setSymmetry(axis: 0 | 1 | 2 | null): void {
    if (axis === null) this.useSymmetry(null);
    else if (this.symmetry?.axis !== axis) {
      const bonePairs = mirrorBonePairs(this.boneNames ? [...this.boneNames] : null, this.skeleton, axis);
      this.useSymmetry({ axis, map: this.knownMirrorMap(axis), bonePairs });
    }
  }

  private knownMirrorMap(axis: 0 | 1 | 2): MirrorVertexMap {
    return (this.mirrorMaps[axis] ??= mirrorVertexMap(this.restPositions, this.triangles, axis, this.mirrorTolerance));
  }

  private useSymmetry(symmetry: PaintSymmetry | null): void {
    this.symmetry = symmetry;
    // A mirrored dab paints its partners' coincident vertices too, so seams stay closed on the mirrored side.
    this.context.symmetry = symmetry && {
      axis: symmetry.axis,
      bonePairs: symmetry.bonePairs,
      partner: symmetry.map.partner,
      welded: (this.welded ??= weldVertices(this.restPositions, this.triangles)),
    };
    // Its targets now, not in a stroke's first dab (one pass over the vertices).
    this.context.mirrorTargets = this.context.symmetry && mirrorTargets(this.context.symmetry);
  }

  get strokeOpen(): boolean {
    return this.history.open;
  }

  beginStroke(): void {
    beginStroke(this.history);
  }

  /**
   * One dab on the vertices gathered into `context.indices` (the first `context.count`); with symmetry, the same
   * dab on their mirror partners and the paired bone (paintGathered).
   * @returns the bone's weight before the dab at the gathered vertex nearest the centre (NaN when none)
   */
  dab(bone: number, dab: Dab): number {
    const context = this.context;
    const sampled = paintGathered(context, bone, dab);
    if (dab.mode !== 'sample') {
      this.markDirty(context.indices, context.count);
      this.markDirty(context.mirroredIndices, context.mirroredCount);
    }
    return sampled;
  }

  /**
   * A gradient within the open stroke (paintGradient), on the grid the brush tool set in the context.
   * @returns the number of vertices it reached
   */
  gradient(bone: number, gradient: WeightGradient): number {
    const context = this.context;
    const count = paintGradient(context, bone, gradient);
    this.markDirty(context.indices, count);
    return count;
  }

  /** Ends the stroke: its rows go into the document weights. @returns the edit, or null when it changed nothing */
  endStroke(): WeightRowsEdit | null {
    return this.finishEdit(endStroke(this.history));
  }

  /** Escape: puts back every row the open stroke changed; the document weights never saw them. */
  cancelStroke(): void {
    const restored = cancelStroke(this.history);
    this.markDirty(restored, restored.length);
  }

  /**
   * Writes rows into the document weights and the paint buffer (an undo or redo of an edit of these weights).
   * @param rows  #vertices × #B, row-major
   */
  setRows(vertices: Uint32Array, rows: ArrayLike<number>): void {
    const nb = this.weights.boneCount;
    const { data } = this.weights;
    const dense = this.dense.data;
    for (let i = 0; i < vertices.length; i++) {
      for (let b = 0, o = vertices[i] * nb, r = i * nb; b < nb; b++) {
        dense[o + b] = rows[r + b];
        data[o + b] = rows[r + b];
      }
    }
    this.markDirty(vertices, vertices.length);
  }

  /**
   * Whole-mesh commands act on these vertices only (#V flags: the meshes the tools act on), or on all (null). The
   * meshes of a scene share no edges, so a command run on all and undone outside the mask is the command on the
   * masked meshes alone.
   */
  commandMask: Uint8Array | null = null;

  /**
   * Runs a whole-mesh command on the paint buffer. @returns the edit of the rows it changed within commandMask (only
   * those: the rest keep the document's own values), or null when it changed nothing
   */
  command(run: () => void): WeightRowsEdit | null {
    const vertices = runOnRows(this.weights, this.commandMask, run);
    this.markDirty(vertices, vertices.length);
    return this.finishEdit(vertices);
  }

  normalizeAll(): WeightRowsEdit | null {
    return this.command(() => normalizeAllWeights(this.weights, this.settings));
  }

  limitTotal(): WeightRowsEdit | null {
    return this.command(() => limitTotalInfluences(this.weights, this.settings));
  }

  prune(threshold: number): WeightRowsEdit | null {
    return this.command(() => pruneSmallWeights(this.weights, threshold, this.settings));
  }

  smoothBone(bone: number, { iterations, factor } = SMOOTH_BONE_DEFAULTS): WeightRowsEdit | null {
    return this.command(() => smoothBoneWeights(this.weights, bone, this.oneRing, iterations, factor, null, this.settings));
  }

  /**
   * Flood fill: one dab over every vertex of commandMask (all when null) at full falloff, so each vertex gets the
   * dab's change as the brush centre would (applyDab, with the locks and the invariants). Blur is local: each vertex
   * moves by the strength toward the mean of its one-ring (the smooth step), read before any is written; the blur
   * brush's one mean over the brush area would be the mean of the whole mesh here, and would spread the bone over it.
   * @param dab the dab (its centre, radius and falloff are not used)
   */
  flood(bone: number, dab: Dab): WeightRowsEdit | null {
    const mask = this.commandMask;
    const all = new Uint32Array(this.weights.vertexCount);
    let count = 0;
    for (let v = 0; v < all.length; v++) if (!mask || mask[v]) all[count++] = v;
    const mode = dab.mode === 'blur' ? 'smooth' : dab.mode;
    const flat: Dab = { ...dab, mode, centre: [0, 0, 0], radius: 1, falloff: 'constant' };
    return this.command(() => applyDab(this.weights, bone, flat, all, new Float64Array(count), count, this.settings, this.oneRing));
  }

  /** Copies the weights of the side opposite `targetSide` onto it, bones swapped with their pairs. */
  mirror(axis: 0 | 1 | 2, targetSide: -1 | 1): WeightRowsEdit | null {
    const previous = this.symmetry;
    this.setSymmetry(axis);
    const symmetry = this.symmetry!;
    const edit = this.command(() =>
      mirrorWeights(this.weights, this.restPositions, this.triangles, symmetry.map, symmetry.bonePairs, axis, targetSide, this.settings),
    );
    this.useSymmetry(previous);
    return edit;
  }

  /**
   * The vertices whose weights changed since the last call, ascending, for the views (their rows are read from
   * `weights`, the float32 paint buffer): a view valid until the next edit.
   */
  takeDirty(): { vertices: Uint32Array; count: number } {
    return this.changes.take(0);
  }

  get hasDirty(): boolean {
    return !this.changes.empty(0);
  }

  /**
   * The vertices whose weights changed since the last call, for whoever keeps posed positions (they may have
   * moved): a view valid until the next edit.
   */
  takeMoved(): { vertices: Uint32Array; count: number } {
    return this.changes.take(1);
  }

  /** The document rows of `vertices` before and after the paint buffer's values are written into them. */
  private finishEdit(vertices: Uint32Array): WeightRowsEdit | null {
    if (vertices.length === 0) return null;
    const nb = this.weights.boneCount;
    const { data } = this.weights;
    const dense = this.dense.data;
    const before = new Float64Array(vertices.length * nb);
    const after = new Float32Array(vertices.length * nb);
    for (let i = 0; i < vertices.length; i++) {
      for (let b = 0, o = vertices[i] * nb, r = i * nb; b < nb; b++) {
        before[r + b] = dense[o + b];
        after[r + b] = data[o + b];
        dense[o + b] = data[o + b];
      }
    }
    return { weights: this.dense, vertices, before, after };
  }

  private markDirty(vertices: ArrayLike<number>, count: number): void {
    this.changes.add(vertices, count);
  }
}

/**
 * Two sets of vertices, each listed once: those changed since the views last caught up (set 0), handed out in
 * ascending order, and since the surface under the brush last did (set 1), in the order first added. Every change
 * enters both, so one byte per vertex holds both memberships (bit 1 << set) and a vertex added is looked up once.
 * The views' arrays (influences, texture, heat map) are walked forward in vertex order, several vertices to a cache
 * line, where a brush's gather order would jump across them.
 */
export class ChangedVertices {
  private readonly lists: [Uint32Array, Uint32Array];
  private readonly counts = [0, 0];
  private readonly listed: Uint8Array;
  /** the other buffer of set 0's sort */
  private spare: Uint32Array;
  private readonly histogram = new Int32Array(1 << RADIX_BITS);
  /** bits of the largest vertex number */
  private readonly keyBits: number;

  constructor(vertexCount: number) {
    this.lists = [new Uint32Array(vertexCount), new Uint32Array(vertexCount)];
    this.spare = new Uint32Array(vertexCount);
    this.listed = new Uint8Array(vertexCount);
    this.keyBits = 32 - Math.clz32(Math.max(vertexCount - 1, 1));
  }

  empty(set: 0 | 1): boolean {
    return this.counts[set] === 0;
  }

  /** Adds the vertices to both sets. */
  add(vertices: ArrayLike<number>, count: number): void {
    const { listed } = this;
    const [views, surface] = this.lists;
    let [inViews, inSurface] = this.counts;
    for (let i = 0; i < count; i++) {
      const v = vertices[i];
      const flags = listed[v];
      if (flags === 3) continue;
      listed[v] = 3;
      if (!(flags & 1)) views[inViews++] = v;
      if (!(flags & 2)) surface[inSurface++] = v;
    }
    this.counts[0] = inViews;
    this.counts[1] = inSurface;
  }

  /** Empties one set. @returns what it held (a view valid until the next add) */
  take(set: 0 | 1): { vertices: Uint32Array; count: number } {
    const count = this.counts[set];
    let list = this.lists[set];
    if (set === 0) {
      const sorted = radixSort(list, this.spare, count, this.keyBits, this.histogram);
      if (sorted !== list) [this.spare, this.lists[0], list] = [list, sorted, sorted];
    }
    const keep = set === 0 ? 2 : 1;
    for (let i = 0; i < count; i++) this.listed[list[i]] &= keep;
    this.counts[set] = 0;
    return { vertices: list, count };
  }
}

/** Digits of radixSort, in bits: two passes sort the vertices of a mesh of up to 4M. */
const RADIX_BITS = 11;

/**
 * Sorts keys[0 .. count) ascending: least significant digit first, RADIX_BITS a pass, between `keys` and `other`.
 * @param keys      the keys, each below 2^bits
 * @param other     a buffer of at least `count`
 * @param bits      bits of the largest key
 * @param histogram 2^RADIX_BITS counts (scratch)
 * @returns the buffer holding the sorted keys: `keys` or `other`
 */
function radixSort(keys: Uint32Array, other: Uint32Array, count: number, bits: number, histogram: Int32Array): Uint32Array {
  const digit = (1 << RADIX_BITS) - 1;
  let from = keys;
  let to = other;
  for (let shift = 0; shift < bits; shift += RADIX_BITS) {
    histogram.fill(0);
    for (let i = 0; i < count; i++) histogram[(from[i] >>> shift) & digit]++;
    for (let d = 0, sum = 0; d <= digit; d++) {
      const c = histogram[d];
      histogram[d] = sum;
      sum += c;
    }
    for (let i = 0; i < count; i++) {
      const key = from[i];
      to[histogram[(key >>> shift) & digit]++] = key;
    }
    [from, to] = [to, from];
  }
  return from;
}
