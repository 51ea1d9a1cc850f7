/**
 * Skinning weights as rows (WeightRows of script-api.ts: per vertex, `influences` slots of bone and value, largest
 * first) and back. The rows are what a script reads and writes; the scene keeps rows it is given as they are
 * (canonical, weight-storage.ts) and makes its dense #V × #B matrix from them only when something needs it, so a
 * script that sets and reads rows never pays for the matrix. Every conversion is one pass over its input, with no
 * allocation per vertex.
 */
import type { DenseMatrix } from '../formats/types.ts';
import { heldRowsOf, weightsHoldingRows, type HeldRows } from '../scene/weight-storage.ts';
import type { WeightRows } from './script-api.ts';

/** A slot with no bone: WeightRows' bone index of an unused slot (its value is 0). */
export const NO_BONE = -1;

/**
 * The weights as rows: each vertex's non-zero weights (a weight of ±0 is no weight; any other value, negative ones
 * included, is kept as it is, bit for bit), largest first, ties in bone order; the slots a vertex does not use hold
 * bone NO_BONE and value 0.
 *
 * One pass over the dense matrix (the whole cost at a million vertices is reading it once): each row's weights are
 * sorted into its slots as they are read; when a row needs more slots than the rows have, the rows so far are laid
 * out again at twice the width (at most #B), and rows wider than the final count are narrowed once at the end.
 * @param weights  #V × #B dense weights, row-major (`data[v · #B + b]`)
 * @returns rows with `influences` = the most non-zero weights any vertex has, at least 1; fresh arrays, nothing
 *          shared with `weights`
 */
export function weightRowsFromDense(weights: DenseMatrix): WeightRows {
  const { rows: vertexCount, cols: boneCount, data } = weights;
  let width = Math.max(1, Math.min(boneCount, INITIAL_WIDTH));
  let influences = 1;
  let bones: Int32Array = new Int32Array(vertexCount * width).fill(NO_BONE);
  let values: Float64Array = new Float64Array(vertexCount * width);
  for (let v = 0, row = 0; v < vertexCount; v++, row += boneCount) {
    let slots = v * width;
    let used = 0;
    for (let b = 0; b < boneCount; b++) {
      const w = data[row + b];
      if (w === 0) continue;
      if (used === width) {
        // This row needs more slots than any before it: every row so far (this one too) laid out wider.
        const wider = Math.min(boneCount, 2 * width);
        ({ bones, values } = relaid(bones, values, v + 1, width, wider, vertexCount));
        width = wider;
        slots = v * width;
      }
      insertSlot(bones, values, slots, used++, b, w);
    }
    if (used > influences) influences = used;
  }
  if (width > influences) ({ bones, values } = relaid(bones, values, vertexCount, width, influences, vertexCount));
  return { vertexCount, boneCount, influences, bones, values };
}

/**
 * Puts bone b's weight w into a vertex's sorted slots (largest first, equal weights in bone order), the `used` slots
 * from `first` on holding its weights so far: an insertion, since a vertex has few weights.
 */
function insertSlot(bones: Int32Array, values: Float64Array, first: number, used: number, b: number, w: number): void {
  let j = first + used;
  while (j > first && (values[j - 1] < w || (values[j - 1] === w && bones[j - 1] > b))) {
    values[j] = values[j - 1];
    bones[j] = bones[j - 1];
    j--;
  }
  values[j] = w;
  bones[j] = b;
}

/** Slots per vertex weightRowsFromDense starts with: the 4 influences most rigs have. */
const INITIAL_WIDTH = 4;

/**
 * Rows laid out at another width: the first `filled` rows' first min(from, to) slots copied, every other slot
 * NO_BONE / 0 (slots past `to` hold only unused slots when narrowing).
 */
function relaid(
  bones: Int32Array,
  values: Float64Array,
  filled: number,
  from: number,
  to: number,
  vertexCount: number,
): { bones: Int32Array; values: Float64Array } {
  const newBones = new Int32Array(vertexCount * to).fill(NO_BONE);
  const newValues = new Float64Array(vertexCount * to);
  const kept = Math.min(from, to);
  for (let v = 0; v < filled; v++) {
    for (let s = 0; s < kept; s++) {
      newBones[v * to + s] = bones[v * from + s];
      newValues[v * to + s] = values[v * from + s];
    }
  }
  return { bones: newBones, values: newValues };
}

/**
 * The dense #V × #B matrix of weight rows with any number of slots: each slot's value at its vertex and bone, bit
 * for bit (a weight of ±0 is no weight: +0); a bone no slot of a vertex names gets 0.
 * @returns #V × #B row-major weights, a fresh array
 * @throws Error as canonicalWeightRows
 */
export function denseFromWeightRows(rows: WeightRows, vertexCount: number, boneCount: number, caller: string): Float64Array {
  return weightsHoldingRows(vertexCount, boneCount, canonicalWeightRows(rows, vertexCount, boneCount, caller)).data;
}

/**
 * Weight rows with any number of slots, in any slot order, checked against the scene and laid out canonically (as
 * `weightRowsFromDense` gives them and the scene holds them: each vertex's non-zero weights largest first, ties in
 * bone order, unused slots NO_BONE / 0, as many slots as the most any vertex uses, at least 1). Values are kept bit
 * for bit; a weight of ±0 is no weight. One pass reads and checks the rows; rows already canonical (what a script
 * read, with values changed in place) whose arrays the caller hands over are kept as they are, any others are laid
 * out afresh in a second pass.
 * @param rows         the rows; `bones` and `values` each `vertexCount · influences` long, `influences` ≥ 0
 * @param vertexCount  #V the rows must have (the scene's)
 * @param boneCount    #B the rows must have (the scene's)
 * @param caller       what the messages start with, e.g. `scene.setWeights`
 * @param handedOver   true when nobody else holds `rows.bones` and `rows.values` (they were transferred to the
 *                     caller): canonical Int32Array / Float64Array rows are then kept without a copy
 * @returns canonical rows: fresh arrays, or with `handedOver`, possibly the given ones
 * @throws Error, naming the caller and the reason, for counts that do not fit, and naming the vertex and slot for a
 *         bone that is not an integer from NO_BONE to #B − 1, a value that is not finite, a value in a slot with no
 *         bone, or a bone that a vertex names twice (refused rather than summed: rows as `weightRowsFromDense` gives
 *         them name each bone once, so a repeat is a script's mistake, and a sum would not keep values as given)
 */
export function canonicalWeightRows(
  rows: WeightRows,
  vertexCount: number,
  boneCount: number,
  caller: string,
  handedOver = false,
): HeldRows {
  function fail(reason: string): never {
    throw new Error(`${caller}: ${reason}`);
  }
  if (rows === null || typeof rows !== 'object')
    fail(`weights must be rows (vertexCount, boneCount, influences, bones, values) or a Float64Array`);
  if (rows.vertexCount !== vertexCount || rows.boneCount !== boneCount)
    fail(
      `the rows are for ${String(rows.vertexCount)} vertices × ${String(rows.boneCount)} bones, the scene has ${vertexCount} × ${boneCount}`,
    );
  const influences = rows.influences;
  if (!Number.isInteger(influences) || influences < 0) fail(`influences must be a whole number ≥ 0, not ${String(influences)}`);
  const slotCount = vertexCount * influences;
  const { bones, values } = rows;
  if (!isNumberArray(bones) || bones.length !== slotCount)
    fail(`bones must hold ${slotCount} bone indices (${vertexCount} vertices × ${influences} influences), not ${lengthOf(bones)}`);
  if (!isNumberArray(values) || values.length !== slotCount)
    fail(`values must hold ${slotCount} weights (${vertexCount} vertices × ${influences} influences), not ${lengthOf(values)}`);

  // The checks, and whether the rows are canonical already; stamp[b] = v + 1 once vertex v has named bone b. The
  // loop only finds the first bad slot (kept free of the messages, which cost time here even when never built).
  const stamp = new Int32Array(boneCount);
  let most = 0;
  let canonical = true;
  let bad = -1;
  scan: for (let v = 0, slot = 0; v < vertexCount; v++) {
    let used = 0;
    let emptySeen = false;
    let previousValue = Infinity;
    let previousBone = -1;
    for (let s = 0; s < influences; s++, slot++) {
      const b = bones[slot];
      const w = values[slot];
      if (w - w !== 0 || typeof w !== 'number') {
        bad = slot;
        break scan;
      }
      if (b === NO_BONE) {
        if (w !== 0) {
          bad = slot;
          break scan;
        }
        emptySeen = true;
        continue;
      }
      if (!(b >= 0 && b < boneCount && Math.floor(b) === b) || stamp[b] === v + 1) {
        bad = slot;
        break scan;
      }
      stamp[b] = v + 1;
      if (emptySeen || w === 0 || w > previousValue || (w === previousValue && b < previousBone)) canonical = false;
      previousValue = w;
      previousBone = b;
      used++;
    }
    if (used > most) most = used;
  }
  if (bad >= 0) {
    const v = Math.floor(bad / influences);
    const s = bad - v * influences;
    const b = bones[bad];
    const w = values[bad];
    if (!Number.isFinite(w)) fail(`vertex ${v}, slot ${s}: the weight ${String(w)} is not a finite number`);
    if (b === NO_BONE) fail(`vertex ${v}, slot ${s}: a weight of ${w} in a slot with no bone (${NO_BONE})`);
    if (!Number.isInteger(b) || b < 0 || b >= boneCount)
      fail(`vertex ${v}, slot ${s}: bone ${String(b)} is not a bone of the scene (0 … ${boneCount - 1}, or ${NO_BONE} for none)`);
    const earlier = Array.prototype.indexOf.call(bones, b, bad - s) - (bad - s);
    fail(`vertex ${v}: bone ${b} is in slots ${earlier} and ${s}; a vertex names each bone once`);
  }
  const kept = Math.max(1, most);
  if (handedOver && canonical && kept === influences && bones instanceof Int32Array && values instanceof Float64Array)
    return { influences, bones, values };

  // Laid out afresh: each vertex's non-zero weights sorted into its slots as they are read.
  const outBones = new Int32Array(vertexCount * kept).fill(NO_BONE);
  const outValues = new Float64Array(vertexCount * kept);
  for (let v = 0, slot = 0; v < vertexCount; v++) {
    const first = v * kept;
    let used = 0;
    for (let s = 0; s < influences; s++, slot++) {
      const b = bones[slot];
      const w = values[slot];
      if (b === NO_BONE || w === 0) continue;
      insertSlot(outBones, outValues, first, used++, b, w);
    }
  }
  return { influences: kept, bones: outBones, values: outValues };
}

/**
 * The weights of `weights` as rows (WeightRows), fresh arrays: a copy of the rows the scene holds when it holds
 * them (weight-storage.ts), else read from the dense matrix (weightRowsFromDense).
 */
export function weightRowsOf(weights: DenseMatrix): WeightRows {
  const held = heldRowsOf(weights);
  if (!held) return weightRowsFromDense(weights);
  return {
    vertexCount: weights.rows,
    boneCount: weights.cols,
    influences: held.influences,
    bones: held.bones.slice(),
    values: held.values.slice(),
  };
}

/** Whether `value` is an array of numbers a row may be read from (a typed array other than a BigInt one, or an Array). */
function isNumberArray(value: unknown): value is ArrayLike<number> {
  if (Array.isArray(value)) return true;
  return (
    ArrayBuffer.isView(value) && !(value instanceof DataView) && !(value instanceof BigInt64Array) && !(value instanceof BigUint64Array)
  );
}

function lengthOf(value: unknown): string {
  return isNumberArray(value) ? String(value.length) : `a ${value === null ? 'null' : typeof value}`;
}
