/**
 * The weights being painted and everything an edit needs: the float32 paint buffer (workers/paint/paint-weights.ts),
 * copied into the document's float64 weights on commit, locks and the influence limit, the per-stroke undo history
 * (workers/paint/paint-history.ts), symmetry (mirror vertex map and bone pairs), and the vertices changed since the
 * views, the document and the surface under the brush last caught up. No DOM, no three.js.
 */
import type { DenseMatrix } from '../../workers/formats/types.ts';
import type { Skeleton } from '../../workers/rig/skeleton.ts';
import type { Dab } from '../../workers/paint/apply-dab.ts';
import { createPaintContext, paintGathered, type PaintContext } from '../../workers/paint/paint-dab.ts';
import { beginStroke, cancelStroke, createPaintHistory, endStroke, recordRows, redo, undo, type PaintHistory } from '../../workers/paint/paint-history.ts';
import { defaultPaintSettings, paintWeightsFromDense, type PaintSettings, type PaintWeights } from '../../workers/paint/paint-weights.ts';
import { vertexOneRing, type VertexOneRing } from '../../workers/paint/vertex-one-ring.ts';
import { normalizeAllWeights } from '../../workers/paint/normalize-all-weights.ts';
import { limitTotalInfluences } from '../../workers/paint/limit-total-influences.ts';
import { pruneSmallWeights } from '../../workers/paint/prune-small-weights.ts';
import { smoothBoneWeights } from '../../workers/paint/smooth-bone-weights.ts';
import { mirrorVertexMap, type MirrorVertexMap } from '../../workers/paint/mirror-vertex-map.ts';
import { mirrorBonePairs } from '../../workers/paint/mirror-bone-pairs.ts';
import { mirrorWeights } from '../../workers/paint/mirror-weights.ts';

export interface PaintSymmetry {
  axis: 0 | 1 | 2;
  map: MirrorVertexMap;
  /** #B mirrored bone of each bone, -1 = none */
  bonePairs: Int32Array;
}

export class PaintSession {
  readonly weights: PaintWeights;
  readonly settings: PaintSettings;
  readonly history: PaintHistory;
  readonly oneRing: VertexOneRing;
  /** the brush's gather buffers and, once the viewport has set it, the grid over the posed surface */
  readonly context: PaintContext;
  symmetry: PaintSymmetry | null = null;
  /** vertices changed since the views last caught up (takeDirty) */
  private readonly dirty: ChangedVertices;
  /** vertices changed since the document weights last caught up (commit) */
  private readonly uncommitted: ChangedVertices;
  /** vertices changed since the surface under the brush last caught up (takeMoved) */
  private readonly moved: ChangedVertices;

  /**
   * @param dense     #V × #B document weights; edits are written into it (float32 values) on commit
   * @param restPositions #V × 3 rest positions (symmetry is matched in the rest pose)
   * @param mirrorMaps    mirror matches of these rest positions by axis, at mirrorTolerance: shared with whoever
   *                      keeps them across sessions (new weights, same mesh); matches found here are added to it
   */
  constructor(
    readonly dense: DenseMatrix,
    private readonly restPositions: Float64Array,
    private readonly triangles: Uint32Array,
    private readonly skeleton: Skeleton,
    private readonly boneNames: readonly string[] | null,
    private readonly diagonal: number,
    private readonly mirrorMaps: (MirrorVertexMap | undefined)[] = [],
  ) {
    this.weights = paintWeightsFromDense(dense);
    dense.data.set(this.weights.data);
    this.settings = defaultPaintSettings(dense.cols);
    this.history = createPaintHistory(this.weights);
    this.oneRing = vertexOneRing(dense.rows, triangles);
    this.context = createPaintContext(this.weights, null, this.oneRing, this.settings, this.history);
    this.dirty = new ChangedVertices(dense.rows);
    this.uncommitted = new ChangedVertices(dense.rows);
    this.moved = new ChangedVertices(dense.rows);
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
    this.context.symmetry = symmetry && { axis: symmetry.axis, bonePairs: symmetry.bonePairs, partner: symmetry.map.partner };
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

  endStroke(): void {
    endStroke(this.history);
  }

  /** Escape: puts back every row the open stroke changed and adds no undo step. */
  cancelStroke(): void {
    const restored = cancelStroke(this.history);
    this.markDirty(restored, restored.length);
  }

  undo(): boolean {
    const record = this.history.undoStack[this.history.undoStack.length - 1];
    if (!undo(this.history)) return false;
    this.markDirty(record.vertices, record.vertices.length);
    return true;
  }

  redo(): boolean {
    const record = this.history.redoStack[this.history.redoStack.length - 1];
    if (!redo(this.history)) return false;
    this.markDirty(record.vertices, record.vertices.length);
    return true;
  }

  /** Runs a whole-mesh command as one undo step. */
  command(run: () => void): void {
    beginStroke(this.history);
    recordRows(this.history, null, 0);
    run();
    endStroke(this.history);
    this.dirty.addAll();
    this.uncommitted.addAll();
    this.moved.addAll();
  }

  normalizeAll(): void {
    this.command(() => normalizeAllWeights(this.weights, this.settings));
  }

  limitTotal(): void {
    this.command(() => limitTotalInfluences(this.weights, this.settings));
  }

  prune(threshold: number): void {
    this.command(() => pruneSmallWeights(this.weights, threshold, this.settings));
  }

  smoothBone(bone: number, iterations = 10, factor = 0.5): void {
    this.command(() => smoothBoneWeights(this.weights, bone, this.oneRing, iterations, factor, null, this.settings));
  }

  /** Copies the weights of the side opposite `targetSide` onto it, bones swapped with their pairs. */
  mirror(axis: 0 | 1 | 2, targetSide: -1 | 1): void {
    const previous = this.symmetry;
    this.setSymmetry(axis);
    const symmetry = this.symmetry!;
    this.command(() =>
      mirrorWeights(this.weights, this.restPositions, this.triangles, symmetry.map, symmetry.bonePairs, axis, targetSide, this.settings),
    );
    this.useSymmetry(previous);
  }

  /**
   * The vertices whose weights changed since the last call, for the views (their rows are read from `weights`, the
   * float32 paint buffer; the document weights catch up on commit).
   * @returns the changed vertices (a view valid until the next edit), or null when every vertex may have changed
   */
  takeDirty(): { vertices: Uint32Array; count: number } | null {
    return this.dirty.take();
  }

  /**
   * Writes the rows changed since the last commit into the document weights: at the end of a stroke (and of an
   * undo, redo or command), and whenever the document is read meanwhile; a stroke's frames leave it to then.
   */
  commit(): void {
    const nb = this.weights.boneCount;
    const { data } = this.weights;
    const changed = this.uncommitted.take();
    if (changed === null) {
      this.dense.data.set(data);
      return;
    }
    const { vertices, count } = changed;
    for (let i = 0; i < count; i++) {
      for (let b = 0, o = vertices[i] * nb; b < nb; b++) this.dense.data[o + b] = data[o + b];
    }
  }

  get hasDirty(): boolean {
    return !this.dirty.empty;
  }

  /**
   * The vertices whose weights changed since the last call, for whoever keeps posed positions (they may have
   * moved): a view valid until the next edit, or null when every vertex may have changed.
   */
  takeMoved(): { vertices: Uint32Array; count: number } | null {
    return this.moved.take();
  }

  private markDirty(vertices: ArrayLike<number>, count: number): void {
    this.dirty.add(vertices, count);
    this.uncommitted.add(vertices, count);
    this.moved.add(vertices, count);
  }
}

/** A set of vertices, each listed once in the order first added, or "every vertex". */
class ChangedVertices {
  private readonly list: Uint32Array;
  private count = 0;
  private readonly listed: Uint8Array;
  private all = false;

  constructor(vertexCount: number) {
    this.list = new Uint32Array(vertexCount);
    this.listed = new Uint8Array(vertexCount);
  }

  get empty(): boolean {
    return !this.all && this.count === 0;
  }

  add(vertices: ArrayLike<number>, count: number): void {
    if (this.all) return;
    for (let i = 0; i < count; i++) {
      const v = vertices[i];
      if (this.listed[v]) continue;
      this.listed[v] = 1;
      this.list[this.count++] = v;
    }
  }

  addAll(): void {
    this.all = true;
  }

  /** Empties the set. @returns what it held (a view valid until the next add), or null for every vertex */
  take(): { vertices: Uint32Array; count: number } | null {
    const { count, all } = this;
    for (let i = 0; i < count; i++) this.listed[this.list[i]] = 0;
    this.count = 0;
    this.all = false;
    return all ? null : { vertices: this.list, count };
  }
}
