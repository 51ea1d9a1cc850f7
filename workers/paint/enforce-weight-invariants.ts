import type { PaintSettings, PaintWeights } from './paint-weights.ts';
import { LOCKED_SUM_TOLERANCE, unlockedKept } from '../weights/limit-influences.ts';

let keepStamp = new Int32Array(0);
let stampCounter = 0;
let topValue = new Float64Array(0);
let topBone = new Int32Array(0);
let otherBones = new Int32Array(0);

function ensureScratch(boneCount: number): void {
  if (keepStamp.length >= boneCount) return;
  keepStamp = new Int32Array(boneCount);
  stampCounter = 0;
  topValue = new Float64Array(boneCount);
  topBone = new Int32Array(boneCount);
  otherBones = new Int32Array(boneCount);
}

/**
 * Restores the weight invariants on one row (vertex), in this order:
 * 1. negative and NaN unlocked weights become 0; locked weights are never written;
 * 2. the painted bone (when given and unlocked) is clamped to the room left by the locked bones, 1 − Σ locked,
 *    and keeps that value: the artist's stroke wins over the other bones;
 * 3. influence limit: while the row has more than K non-zero weights, the smallest unlocked ones other than the
 *    painted bone become 0 (locked weights and the painted bone are kept); with no painted bone, a row whose locked
 *    weights already use the K places keeps its largest unlocked weight beyond K while 1 − Σ locked > 0, the row rule
 *    limitInfluences shares (unlockedKept): partition of unity wins over the limit;
 * 4. normalization: the other unlocked bones are scaled proportionally to fill 1 − Σ locked − painted. When they are
 *    all zero, the painted bone receives the whole remainder 1 − Σ locked (so subtracting from a vertex bound to one
 *    bone alone changes nothing: its weight has nowhere else to go).
 * A row cannot be repaired, and is counted, when Σ locked > 1, or when the remainder is positive but no unlocked
 * weight is non-zero and there is no painted bone to receive it.
 *
 * @param weights     #V × #B weights, modified in place on the given rows only
 * @param rows        vertex indices to repair (the first `count`)
 * @param count       number of entries of `rows` to use
 * @param paintedBone the bone being painted, or -1 (whole-mesh normalization)
 * @param settings    locked bones (#B flags) and the influence limit K (0 = none)
 * @returns the number of rows that could not be repaired (see above)
 */
export function enforceWeightInvariants(
  weights: PaintWeights,
  rows: ArrayLike<number>,
  count: number,
  paintedBone: number,
  settings: PaintSettings,
): number {
  const { boneCount: nb, data } = weights;
  // The weights' bits, one Int32 per weight: a view of the same memory, made per call so that nothing here keeps a
  // weights buffer alive once its mesh is gone (134 MB at 1.2M vertices and 28 bones).
  const bits = new Int32Array(data.buffer, data.byteOffset, data.length);
  const { locked } = settings;
  ensureScratch(nb);
  const others = otherBones;
  const painted = paintedBone >= 0 && paintedBone < nb && !locked[paintedBone] ? paintedBone : -1;
  const limit = settings.maxInfluences > 0 ? settings.maxInfluences : nb;
  let failed = 0;
  for (let r = 0; r < count; r++) {
    const o = rows[r] * nb;
    // One pass over the row: locked sums, negatives and NaN zeroed, and the other unlocked non-zero bones listed
    // (ascending) with their sum; the later steps visit only those.
    let lockedSum = 0;
    let lockedNonZero = 0;
    let otherCount = 0;
    let othersSum = 0;
    for (let b = 0; b < nb; b++) {
      // A +0 weight (most of a row's) adds to no sum and needs no store: passed over on its bits, one compare.
      if (bits[o + b] === 0) continue;
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
    let paintedValue = 0;
    if (painted >= 0) {
      paintedValue = Math.min(data[o + painted], remainder);
    }
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

/** Zeroes all but the `keep` largest of the listed bones (ascending, non-zero); ties keep the lower bone. */
function dropSmallest(data: Float32Array, o: number, bones: Int32Array, count: number, keep: number): void {
  let kept = 0;
  if (keep > 0) {
    for (let i = 0; i < count; i++) {
      const b = bones[i];
      const w = data[o + b];
      if (kept === keep && w <= topValue[keep - 1]) continue;
      let k = kept < keep ? kept++ : keep - 1;
      while (k > 0 && topValue[k - 1] < w) {
        topValue[k] = topValue[k - 1];
        topBone[k] = topBone[k - 1];
        k--;
      }
      topValue[k] = w;
      topBone[k] = b;
    }
  }
  if (stampCounter >= 0x3fffffff) {
    keepStamp.fill(0);
    stampCounter = 0;
  }
  const stamp = ++stampCounter;
  for (let k = 0; k < kept; k++) keepStamp[topBone[k]] = stamp;
  for (let i = 0; i < count; i++) if (keepStamp[bones[i]] !== stamp) data[o + bones[i]] = 0;
}
