/**
 * Skinning weights as rows (WeightRows of script-api.ts: per vertex, `influences` slots of bone and value, largest
 * first) and back to the document's dense #V × #B matrix. The rows are what a script reads and writes, so that the
 * scene may store its weights sparsely one day without breaking scripts; the dense matrix is what the scene stores
 * now. Both directions are one pass over their input (plus one pass to count the slots), with no allocation per
 * vertex: a million vertices cross in a few tens of milliseconds.
 */
import type { DenseMatrix } from '../formats/types.ts';
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
      // Insertion into the row's sorted slots: a vertex has few weights, and moving only past strictly smaller
      // ones keeps equal weights in bone order.
      let j = slots + used;
      while (j > slots && values[j - 1] < w) {
        values[j] = values[j - 1];
        bones[j] = bones[j - 1];
        j--;
      }
      values[j] = w;
      bones[j] = b;
      used++;
    }
    if (used > influences) influences = used;
  }
  if (width > influences) ({ bones, values } = relaid(bones, values, vertexCount, width, influences, vertexCount));
  return { vertexCount, boneCount, influences, bones, values };
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
 * for bit; a bone no slot of a vertex names gets 0.
 * @param rows         the rows; `bones` and `values` each `vertexCount · influences` long, `influences` ≥ 0
 * @param vertexCount  #V the rows must have (the scene's)
 * @param boneCount    #B the rows must have (the scene's)
 * @param caller       what the messages start with, e.g. `scene.setWeights`
 * @returns #V × #B row-major weights, a fresh array
 * @throws Error, naming the caller and the reason, for counts that do not fit, and naming the vertex and slot for a
 *         bone that is not an integer from NO_BONE to #B − 1, a value that is not finite, a value in a slot with no
 *         bone, or a bone that a vertex names twice (refused rather than summed: rows as `weightRowsFromDense` gives
 *         them name each bone once, so a repeat is a script's mistake, and a sum would not keep values as given)
 */
export function denseFromWeightRows(rows: WeightRows, vertexCount: number, boneCount: number, caller: string): Float64Array {
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

  const dense = new Float64Array(vertexCount * boneCount);
  // stamp[b] = v + 1 once vertex v has named bone b, and slotOf[b] which slot did: repeats found in one pass.
  const stamp = new Int32Array(boneCount);
  const slotOf = new Int32Array(boneCount);
  for (let v = 0, slot = 0, row = 0; v < vertexCount; v++, row += boneCount) {
    for (let s = 0; s < influences; s++, slot++) {
      const b = bones[slot];
      const w = values[slot];
      if (!Number.isFinite(w)) fail(`vertex ${v}, slot ${s}: the weight ${String(w)} is not a finite number`);
      if (b === NO_BONE) {
        if (w !== 0) fail(`vertex ${v}, slot ${s}: a weight of ${w} in a slot with no bone (${NO_BONE})`);
        continue;
      }
      if (!Number.isInteger(b) || b < 0 || b >= boneCount)
        fail(`vertex ${v}, slot ${s}: bone ${String(b)} is not a bone of the scene (0 … ${boneCount - 1}, or ${NO_BONE} for none)`);
      if (stamp[b] === v + 1) fail(`vertex ${v}: bone ${b} is in slots ${slotOf[b]} and ${s}; a vertex names each bone once`);
      stamp[b] = v + 1;
      slotOf[b] = s;
      dense[row + b] = w;
    }
  }
  return dense;
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
