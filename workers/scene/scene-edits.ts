/**
 * Whole-mesh edits of a scene document — normalize, limit total, prune, smooth a bone, mirror across an axis, scale
 * a bone, lock a bone, paste a weight row — as functions that return the fields to replace, for `SceneStore.edit`.
 * The command-line tool applies them to a project; the weight edits give the very weights the paint panel's commands
 * give (renderer/paint/paint-session.ts), bit for bit, because they take the same steps on the same workers/paint
 * functions:
 *
 *   1. the document's float64 weights are copied into a float32 paint buffer (paintWeightsFromDense);
 *   2. the operation runs on the whole buffer, honouring the locks and the influence limit, through runOnRows (the
 *      paint session runs its commands through it too): a row counts as changed when any of its values differs
 *      (Object.is, so 0 and -0 differ), and a changed row outside the vertex mask is put back as it was;
 *   3. the changed rows take the buffer's float32 values, every other row keeps the document's own float64 values.
 *
 * Unlike the paint panel, which writes those rows into the document's weights in place and keeps them for undo
 * itself, an edit here makes new weights, so the store's history holds the document's arrays whole.
 */
import type { DenseMatrix } from '../formats/types.ts';
import { enforceWeightInvariants } from '../paint/enforce-weight-invariants.ts';
import { limitTotalInfluences } from '../paint/limit-total-influences.ts';
import { mirrorBonePairs } from '../paint/mirror-bone-pairs.ts';
import { mirrorVertexMap, type MirrorVertexMap } from '../paint/mirror-vertex-map.ts';
import { mirrorWeights } from '../paint/mirror-weights.ts';
import { normalizeAllWeights } from '../paint/normalize-all-weights.ts';
import {
  PAINT_SETTINGS_MAX_INFLUENCES_DEFAULT,
  paintWeightsFromDense,
  runOnRows,
  type PaintSettings,
  type PaintWeights,
} from '../paint/paint-weights.ts';
import { pruneSmallWeights } from '../paint/prune-small-weights.ts';
import { SMOOTH_BONE_DEFAULTS, smoothBoneWeights } from '../paint/smooth-bone-weights.ts';
import { boneNamesOf } from './bone-fields.ts';
import { vertexOneRing, type VertexOneRing } from '../paint/vertex-one-ring.ts';
import { boneCountOf, vertexCountOf, type SceneDocument } from './scene-document.ts';
import type { SceneFields } from './scene-store.ts';

/** One edit for `store.edit(label, fields)`. */
export interface SceneEdit {
  /** what the undo history calls it; the paint panel's label for the same command */
  readonly label: string;
  readonly fields: SceneFields;
  /** a weight edit's count of vertices whose rows it changed */
  readonly vertices?: number;
}

/** What a weight edit respects besides its own arguments. */
export interface WeightEditOptions {
  /** #B flags, 1 = locked: the bone's weights never change; absent: the document's paintLocks; null: none locked */
  locked?: Uint8Array | null;
  /** the most non-zero weights a vertex keeps (0 = no limit), re-applied on the rows an edit changes */
  maxInfluences?: number;
  /** #V flags, 1 = the edit may change the vertex's row (the meshes the tools act on); absent or null: every vertex */
  vertexMask?: Uint8Array | null;
}

export const WEIGHT_EDIT_DEFAULTS: Required<Omit<WeightEditOptions, 'locked'>> = {
  maxInfluences: PAINT_SETTINGS_MAX_INFLUENCES_DEFAULT,
  vertexMask: null,
};

/** Thrown for an edit that cannot apply to this document (a bone out of range, a threshold outside [0, 1]). */
export class SceneEditError extends Error {
  override readonly name = 'SceneEditError';
}

/** The locks and limit as the paint operations take them, checked against the document. */
function paintSettingsOf(doc: SceneDocument, options: WeightEditOptions): PaintSettings {
  const B = boneCountOf(doc);
  const { maxInfluences } = { ...WEIGHT_EDIT_DEFAULTS, ...options };
  const locked = options.locked === undefined ? doc.paintLocks : options.locked;
  if (locked && locked.length !== B) throw new SceneEditError(`locks for ${locked.length} bones, the skeleton has ${B}`);
  if (!(Number.isSafeInteger(maxInfluences) && maxInfluences >= 0))
    throw new SceneEditError(`influence limit ${maxInfluences} is not a whole number ≥ 0`);
  const mask = options.vertexMask;
  if (mask && mask.length !== vertexCountOf(doc))
    throw new SceneEditError(`a vertex mask of ${mask.length} vertices, the mesh has ${vertexCountOf(doc)}`);
  return { locked: locked ?? new Uint8Array(B), maxInfluences };
}

/**
 * Runs `operation` on a float32 copy of the document's weights (steps 1–3 of the file's comment).
 * @returns the new weights and how many rows changed, or null when no row within the mask changed
 */
function weightsAfter(
  doc: SceneDocument,
  mask: Uint8Array | null,
  operation: (paint: PaintWeights) => void,
): { weights: DenseMatrix; vertices: number } | null {
  const paint = paintWeightsFromDense(doc.weights);
  const changed = runOnRows(paint, mask, () => operation(paint));
  if (changed.length === 0) return null;
  const nb = paint.boneCount;
  const next = doc.weights.data.slice();
  for (const v of changed) next.set(paint.data.subarray(v * nb, v * nb + nb), v * nb);
  return { weights: { rows: doc.weights.rows, cols: doc.weights.cols, data: next }, vertices: changed.length };
}

function weightEdit(label: string, after: { weights: DenseMatrix; vertices: number } | null): SceneEdit | null {
  return after && { label, fields: { weights: after.weights }, vertices: after.vertices };
}

/**
 * Normalize: every row to Σ w = 1 around the locked bones (normalizeAllWeights).
 * @returns the edit, or null when no row changes
 */
export function normalizeWeightsEdit(doc: SceneDocument, options: WeightEditOptions = {}): SceneEdit | null {
  const settings = paintSettingsOf(doc, options);
  return weightEdit(
    'Normalize',
    weightsAfter(doc, options.vertexMask ?? null, (paint) => normalizeAllWeights(paint, settings)),
  );
}

/**
 * Limit total: every vertex keeps at most `maxInfluences` non-zero weights (limitTotalInfluences).
 * @throws SceneEditError when there is no limit (maxInfluences 0)
 */
export function limitTotalEdit(doc: SceneDocument, options: WeightEditOptions = {}): SceneEdit | null {
  const settings = paintSettingsOf(doc, options);
  if (settings.maxInfluences < 1) throw new SceneEditError('limit total needs an influence limit of at least 1 (it is 0: no limit)');
  return weightEdit(
    'Limit total',
    weightsAfter(doc, options.vertexMask ?? null, (paint) => limitTotalInfluences(paint, settings)),
  );
}

/**
 * Prune: unlocked weights below `threshold` become 0, rows renormalized (pruneSmallWeights).
 * @param threshold  in [0, 1]
 * @throws SceneEditError for a threshold outside [0, 1]
 */
export function pruneWeightsEdit(doc: SceneDocument, threshold: number, options: WeightEditOptions = {}): SceneEdit | null {
  if (!(threshold >= 0 && threshold <= 1)) throw new SceneEditError(`prune threshold ${threshold} is not in [0, 1]`);
  const settings = paintSettingsOf(doc, options);
  return weightEdit(
    `Prune weights < ${threshold}`,
    weightsAfter(doc, options.vertexMask ?? null, (paint) => pruneSmallWeights(paint, threshold, settings)),
  );
}

/**
 * Smooth bone: SMOOTH_BONE_DEFAULTS steps of one-ring smoothing of one bone's weights (smoothBoneWeights).
 * @param oneRing  the mesh's one-rings, when the caller keeps them (they depend on the mesh only)
 * @throws SceneEditError for a bone out of range
 */
export function smoothBoneEdit(
  doc: SceneDocument,
  bone: number,
  options: WeightEditOptions = {},
  oneRing: VertexOneRing = vertexOneRing(vertexCountOf(doc), doc.mesh.triangles, doc.mesh.positions),
): SceneEdit | null {
  checkBone(doc, bone);
  const settings = paintSettingsOf(doc, options);
  const { iterations, factor } = SMOOTH_BONE_DEFAULTS;
  return weightEdit(
    `Smooth ${boneNamesOf(doc)[bone]}`,
    weightsAfter(doc, options.vertexMask ?? null, (paint) => smoothBoneWeights(paint, bone, oneRing, iterations, factor, null, settings)),
  );
}

/** How far a reflected vertex may be from the surface and still match: 1% of the bounding-box diagonal (as painting). */
export const mirrorToleranceOf = (doc: SceneDocument): number => 0.01 * doc.diagonal;

/**
 * Mirror: the vertices on the `targetSide` of the plane axis = 0 (rest pose) take the weights of their mirror
 * images, each bone moved to its pair (mirrorBonePairs by name, then by position; mirrorWeights).
 * @param map  the mirror match across `axis` at mirrorToleranceOf(doc), when the caller has it; computed otherwise
 */
export function mirrorWeightsEdit(
  doc: SceneDocument,
  axis: 0 | 1 | 2,
  targetSide: -1 | 1,
  options: WeightEditOptions = {},
  map: MirrorVertexMap = mirrorVertexMap(doc.mesh.positions, doc.mesh.triangles, axis, mirrorToleranceOf(doc)),
): SceneEdit | null {
  const settings = paintSettingsOf(doc, options);
  const bonePairs = mirrorBonePairs(doc.boneNames ? [...doc.boneNames] : null, doc.skeleton, axis);
  const name = 'xyz'[axis];
  const [from, to] = targetSide === 1 ? ['−', '+'] : ['+', '−'];
  const { positions, triangles } = doc.mesh;
  return weightEdit(
    `Mirror ${from}${name} → ${to}${name}`,
    weightsAfter(doc, options.vertexMask ?? null, (paint) =>
      mirrorWeights(paint, positions, triangles, map, bonePairs, axis, targetSide, settings),
    ),
  );
}

/**
 * Scale bone: the bone's local scale about its start joint (the other bones keep theirs; a document without scales
 * has 1 everywhere).
 * @param scale  x, y, z factors, finite and positive
 */
export function boneScaleEdit(doc: SceneDocument, bone: number, scale: readonly [number, number, number]): SceneEdit {
  checkBone(doc, bone);
  // An index loop: every() skips the holes of a sparse array.
  if (scale.length !== 3 || ![0, 1, 2].every((i) => Number.isFinite(scale[i]) && scale[i] > 0))
    throw new SceneEditError(`bone scale ${scale.join(' ')} is not three positive numbers`);
  const scales = doc.boneScales ? doc.boneScales.slice() : new Float64Array(3 * boneCountOf(doc)).fill(1);
  scales.set(scale, 3 * bone);
  return { label: `Scale ${boneNamesOf(doc)[bone]}`, fields: { boneScales: scales } };
}

/**
 * Lock or unlock a bone for weight edits and painting (the document's paintLocks, absent when none is locked).
 * @returns the edit, or null when the bone already is so
 */
export function paintLockEdit(doc: SceneDocument, bone: number, locked: boolean): SceneEdit | null {
  checkBone(doc, bone);
  if ((doc.paintLocks?.[bone] === 1) === locked) return null;
  const next = doc.paintLocks ? doc.paintLocks.slice() : new Uint8Array(boneCountOf(doc));
  next[bone] = locked ? 1 : 0;
  return {
    label: `${locked ? 'Lock' : 'Unlock'} ${boneNamesOf(doc)[bone]}`,
    fields: { paintLocks: next.some((x) => x === 1) ? next : undefined },
  };
}

/**
 * What a bone-weight edit does to the bone's weight w in each row it changes: `set` w = value, `add` w + value,
 * `scale` w · value.
 */
export interface BoneWeightChange {
  readonly kind: 'set' | 'add' | 'scale';
  readonly value: number;
}

/**
 * Set, add to or scale one bone's weights, as a brush stroke does (its rows then go through
 * enforceWeightInvariants with the bone as the painted one): the bone's new weight is clamped to [0, 1 − Σ locked]
 * and kept, and the row's other unlocked bones are rescaled to fill the rest, so every changed row sums to 1 around
 * its locked bones (a row whose other unlocked bones are all 0 gives the bone the whole 1 − Σ locked: its weight has
 * nowhere else to go); locked bones never change (their float64 values kept, bit for bit); the influence limit
 * drops the row's smallest other weights.
 * Rows it touches: `set` every row of the vertex mask; `add` those too, but for a negative value only the rows
 * where the bone weighs (subtracting from nothing changes nothing); `scale` the rows where the bone weighs.
 * @param change  set: value in [0, 1]; add: value in [-1, 1]; scale: value ≥ 0
 * @throws SceneEditError for a bone out of range, a locked bone, or a value outside its range
 */
export function boneWeightEdit(
  doc: SceneDocument,
  bone: number,
  change: BoneWeightChange,
  options: WeightEditOptions = {},
): SceneEdit | null {
  checkBone(doc, bone);
  const settings = paintSettingsOf(doc, options);
  const name = boneNamesOf(doc)[bone];
  if (settings.locked[bone]) throw new SceneEditError(`${name} is locked: its weights do not change (unlock it first)`);
  const { kind, value } = change;
  const [low, high, range] =
    kind === 'set' ? [0, 1, 'in [0, 1]'] : kind === 'add' ? [-1, 1, 'in [-1, 1]'] : [0, Number.MAX_VALUE, 'finite and ≥ 0'];
  if (!(value >= low && value <= high)) throw new SceneEditError(`the ${kind} value ${value} is not ${range}`);
  const mask = options.vertexMask ?? null;
  const B = boneCountOf(doc);
  const weights = doc.weights.data;
  const rows = rowsWhere(vertexCountOf(doc), mask, (v) => kind === 'set' || (kind === 'add' && value > 0) || weights[v * B + bone] > 0);
  const label =
    kind === 'set' ? `Set ${name} to ${value}` : kind === 'add' ? `Add ${value} to ${name}` : `Scale ${name}'s weights by ${value}`;
  const after = weightsAfter(doc, mask, (paint) => {
    const { data } = paint;
    for (const v of rows) {
      const o = v * B + bone;
      data[o] = kind === 'set' ? value : kind === 'add' ? data[o] + value : data[o] * value;
    }
    enforceWeightInvariants(paint, rows, rows.length, bone, settings);
  });
  return weightEdit(label, after && lockedKept(after, doc, settings.locked));
}

/**
 * Transfer: on every row of the vertex mask where `from` weighs, its weight moves to `to` (w_to + w_from, w_from = 0),
 * then the row's invariants hold as after a brush stroke on `to` (enforceWeightInvariants): the row keeps its total,
 * and the influence limit cannot be passed (one bone leaves as one comes in).
 * @throws SceneEditError for a bone out of range, the same bone twice, or a locked bone
 */
export function transferWeightsEdit(doc: SceneDocument, from: number, to: number, options: WeightEditOptions = {}): SceneEdit | null {
  checkBone(doc, from);
  checkBone(doc, to);
  const names = boneNamesOf(doc);
  if (from === to) throw new SceneEditError(`transfer from ${names[from]} to itself`);
  const settings = paintSettingsOf(doc, options);
  for (const bone of [from, to])
    if (settings.locked[bone]) throw new SceneEditError(`${names[bone]} is locked: its weights do not change (unlock it first)`);
  const mask = options.vertexMask ?? null;
  const B = boneCountOf(doc);
  const weights = doc.weights.data;
  const rows = rowsWhere(vertexCountOf(doc), mask, (v) => weights[v * B + from] > 0);
  const after = weightsAfter(doc, mask, (paint) => {
    const { data } = paint;
    for (const v of rows) {
      data[v * B + to] += data[v * B + from];
      data[v * B + from] = 0;
    }
    enforceWeightInvariants(paint, rows, rows.length, to, settings);
  });
  return weightEdit(`Transfer ${names[from]}'s weights to ${names[to]}`, after && lockedKept(after, doc, settings.locked));
}

/**
 * Paste a weight row: every row of the vertex mask takes the row's weights (a vertex's weights copied in the vertex
 * weights panel), as a brush stroke's row repair leaves them (enforceWeightInvariants, no painted bone): the locked
 * bones keep their weights (float64, bit for bit), the row's unlocked weights are scaled to fill what the locked ones
 * leave, 1 − Σ locked, so the row sums to 1, and where the row and the vertex's locked bones together pass the
 * influence limit the smallest unlocked weights are dropped before that scaling.
 * @param row  #B weights, finite and ≥ 0 (the copied vertex's row; it need not sum to 1: only its proportions count)
 * @throws SceneEditError for a row of another length, a negative or non-finite value, or a row with no weight on an
 *         unlocked bone while a vertex of the mask has room for it (its weight would have nowhere to go)
 */
export function pasteWeightRowEdit(doc: SceneDocument, row: ArrayLike<number>, options: WeightEditOptions = {}): SceneEdit | null {
  const B = boneCountOf(doc);
  if (row.length !== B) throw new SceneEditError(`a row of ${row.length} weights, the skeleton has ${B} bones`);
  for (let b = 0; b < B; b++)
    if (!(Number.isFinite(row[b]) && row[b] >= 0))
      throw new SceneEditError(`weight ${b} (${boneNamesOf(doc)[b]}) of the row is ${row[b]}, not a number ≥ 0`);
  const settings = paintSettingsOf(doc, options);
  const mask = options.vertexMask ?? null;
  const rows = rowsWhere(vertexCountOf(doc), mask, () => true);
  let unlockedTotal = 0;
  for (let b = 0; b < B; b++) if (!settings.locked[b]) unlockedTotal += row[b];
  const weights = doc.weights.data;
  if (unlockedTotal === 0) {
    for (const v of rows) {
      let lockedSum = 0;
      for (let b = 0; b < B; b++) if (settings.locked[b]) lockedSum += weights[v * B + b];
      if (lockedSum < 1)
        throw new SceneEditError(
          `the row weighs only on locked bones, and vertex ${v} has ${1 - lockedSum} of weight for its unlocked bones (unlock a bone of the row)`,
        );
    }
  }
  const after = weightsAfter(doc, mask, (paint) => {
    const { data } = paint;
    for (const v of rows) for (let b = 0; b < B; b++) if (!settings.locked[b]) data[v * B + b] = row[b];
    enforceWeightInvariants(paint, rows, rows.length, -1, settings);
  });
  return weightEdit(
    `Paste weights onto ${rows.length === 1 ? 'a vertex' : `${rows.length} vertices`}`,
    after && lockedKept(after, doc, settings.locked),
  );
}

/**
 * The locked bones' weights back to the document's own float64 values on every row (a changed row took the paint
 * buffer's float32 ones, rounded), so a locked weight stays bit for bit what it was.
 */
function lockedKept(
  after: { weights: DenseMatrix; vertices: number },
  doc: SceneDocument,
  locked: Uint8Array,
): { weights: DenseMatrix; vertices: number } {
  const B = boneCountOf(doc);
  const { data } = after.weights;
  const original = doc.weights.data;
  for (let b = 0; b < B; b++) {
    if (!locked[b]) continue;
    for (let o = b; o < data.length; o += B) data[o] = original[o];
  }
  return after;
}

/** The vertices of the mask (every vertex without one) for which `keep` holds, in order. */
function rowsWhere(vertexCount: number, mask: Uint8Array | null, keep: (v: number) => boolean): Uint32Array {
  const rows: number[] = [];
  for (let v = 0; v < vertexCount; v++) if ((!mask || mask[v]) && keep(v)) rows.push(v);
  return Uint32Array.from(rows);
}

function checkBone(doc: SceneDocument, bone: number): void {
  const B = boneCountOf(doc);
  if (!(Number.isSafeInteger(bone) && bone >= 0 && bone < B)) throw new SceneEditError(`bone ${bone} is not one of the skeleton's ${B}`);
}
