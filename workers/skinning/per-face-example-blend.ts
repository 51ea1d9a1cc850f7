/**
 * The per-face blend of example transformations in per-face context deformation (Weber et al. 2007, Eq. 9–10; the
 * examples themselves are per-face-context.ts's): what a frame computes for each face from the examples' stored
 * offsets, here beside the per-face frame so that its two threads (per-face-two-core.ts) can each blend their own
 * faces.
 */
import { logExpCos, logExpSinc } from '../math/half-angle-series.ts';
import type { FaceKernel } from './face-kernel.ts';

/** How the example transformations are blended: Eq. 9 (T linearly) or Eq. 10 (Q in log-quaternion space, S linearly). */
export type PerFaceBlend = 'eq9' | 'eq10';

/** What a frame reads of the examples (PerFaceExamples of per-face-context.ts, which documents the layouts). */
export interface PerFaceExampleOffsets {
  exampleCount: number;
  /** #F × J × 6: T_{j,f} p_{f,i} − p_{f,i} for corners 0 and 1 */
  productOffsets: Float32Array;
  /** #F × J × 9: log q_{j,f}, then S_{j,f} − I's six entries */
  polarOffsets: Float32Array;
}

/**
 * The examples with a non-zero weight this frame, listed first in workspace.active, their weights in
 * workspace.activeWeights.
 * @returns how many
 * @throws RangeError when the weights are not J finite numbers
 */
export function perFaceActiveExamples(
  examples: Pick<PerFaceExampleOffsets, 'exampleCount'>,
  exampleWeights: ArrayLike<number>,
  workspace: { active: Int32Array; activeWeights: Float64Array },
): number {
  const J = examples.exampleCount;
  if (exampleWeights.length !== J) throw new RangeError(`per-face context: ${exampleWeights.length} example weights for ${J} examples`);
  const { active, activeWeights } = workspace;
  let count = 0;
  for (let j = 0; j < J; j++) {
    const a = exampleWeights[j];
    if (!Number.isFinite(a)) throw new RangeError(`per-face context: example weight ${j} is ${a}`);
    if (a === 0) continue;
    active[count] = j;
    activeWeights[count++] = a;
  }
  return count;
}

/**
 * Each face's rest gradient products under the blended example factor B_f (perFaceContextProducts of
 * per-face-context.ts) for faces faceFrom … faceTo − 1: faces are independent, so two threads may each take a range.
 * @param faceProducts  #F × 9 the rest products (setup.faceProducts, or a copy in shared memory)
 * @param examples      the examples' stored offsets (PerFaceExamples of per-face-context.ts)
 * @param count         how many examples have a non-zero weight a_j (perFaceActiveExamples)
 * @param active        their indices, first `count` entries, and their weights
 * @param blend         'eq9' or 'eq10'
 * @param outProducts   #F × 9 B_f p_{f,i}, faces faceFrom … faceTo − 1 written
 * @param kernel        the face kernel (face-kernel.ts), or null: where every array here is a view of its memory, its
 *                      contextProducts blends the faces, the same values bit for bit, and leaves to the loop here
 *                      only a face whose blended log is past the series' range
 */
export function perFaceContextProductRange(
  faceProducts: Float64Array,
  examples: PerFaceExampleOffsets,
  count: number,
  active: { active: Int32Array; activeWeights: Float64Array },
  blend: PerFaceBlend,
  outProducts: Float64Array,
  faceFrom: number,
  faceTo: number,
  kernel: FaceKernel | null = null,
): void {
  const offsets = blend === 'eq10' ? examples.polarOffsets : examples.productOffsets;
  const arrays = [faceProducts, offsets, active.active, active.activeWeights, outProducts];
  // Views of the kernel's memory: of the buffer it was made with, or of a shared memory's buffer since it grew.
  const onMemory = (array: ArrayBufferView): boolean => array.buffer === kernel?.buffer || array.buffer === kernel?.memory.buffer;
  if (kernel === null || !arrays.every(onMemory)) {
    contextProductLoop(faceProducts, examples, count, active, blend, outProducts, faceFrom, faceTo);
    return;
  }
  const [p, o, list, weights, out] = arrays.map((array) => array.byteOffset);
  for (let f = faceFrom; f < faceTo; f++) {
    f = kernel.contextProducts(f, faceTo, blend === 'eq10' ? 1 : 0, examples.exampleCount, count, list, weights, o, p, out);
    if (f < faceTo) contextProductLoop(faceProducts, examples, count, active, blend, outProducts, f, f + 1);
  }
}

/** perFaceContextProductRange's loop in JavaScript. */
function contextProductLoop(
  faceProducts: Float64Array,
  examples: PerFaceExampleOffsets,
  count: number,
  active: { active: Int32Array; activeWeights: Float64Array },
  blend: PerFaceBlend,
  outProducts: Float64Array,
  faceFrom: number,
  faceTo: number,
): void {
  const J = examples.exampleCount;
  const { active: list, activeWeights } = active;
  const p = faceProducts;
  const { productOffsets, polarOffsets } = examples;
  if (blend === 'eq9') {
    // B_f p = p + Σ_j a_j (T_{j,f} p − p): linear in the stored offsets; corner 2 is minus the other two.
    for (let f = faceFrom; f < faceTo; f++) {
      const o = 9 * f;
      let b0 = p[o],
        b1 = p[o + 1],
        b2 = p[o + 2],
        b3 = p[o + 3],
        b4 = p[o + 4],
        b5 = p[o + 5];
      for (let k = 0; k < count; k++) {
        const a = activeWeights[k];
        const t = 6 * (f * J + list[k]);
        b0 += a * productOffsets[t];
        b1 += a * productOffsets[t + 1];
        b2 += a * productOffsets[t + 2];
        b3 += a * productOffsets[t + 3];
        b4 += a * productOffsets[t + 4];
        b5 += a * productOffsets[t + 5];
      }
      outProducts[o] = b0;
      outProducts[o + 1] = b1;
      outProducts[o + 2] = b2;
      outProducts[o + 3] = b3;
      outProducts[o + 4] = b4;
      outProducts[o + 5] = b5;
      outProducts[o + 6] = -b0 - b3;
      outProducts[o + 7] = -b1 - b4;
      outProducts[o + 8] = -b2 - b5;
    }
    return;
  }
  for (let f = faceFrom; f < faceTo; f++) {
    let lx = 0,
      ly = 0,
      lz = 0,
      s00 = 1,
      s01 = 0,
      s02 = 0,
      s11 = 1,
      s12 = 0,
      s22 = 1;
    for (let k = 0, base = f * J; k < count; k++) {
      const a = activeWeights[k];
      const e = 9 * (base + list[k]);
      lx += a * polarOffsets[e];
      ly += a * polarOffsets[e + 1];
      lz += a * polarOffsets[e + 2];
      s00 += a * polarOffsets[e + 3];
      s01 += a * polarOffsets[e + 4];
      s02 += a * polarOffsets[e + 5];
      s11 += a * polarOffsets[e + 6];
      s12 += a * polarOffsets[e + 7];
      s22 += a * polarOffsets[e + 8];
    }
    // exp: q = (sin|l| l/|l|, cos|l|), then its matrix times the blended S.
    const x2 = lx * lx + ly * ly + lz * lz;
    const sinc = logExpSinc(x2);
    const qw = logExpCos(x2);
    const qx = lx * sinc,
      qy = ly * sinc,
      qz = lz * sinc;
    const r00 = 1 - 2 * (qy * qy + qz * qz),
      r01 = 2 * (qx * qy - qz * qw),
      r02 = 2 * (qx * qz + qy * qw);
    const r10 = 2 * (qx * qy + qz * qw),
      r11 = 1 - 2 * (qx * qx + qz * qz),
      r12 = 2 * (qy * qz - qx * qw);
    const r20 = 2 * (qx * qz - qy * qw),
      r21 = 2 * (qy * qz + qx * qw),
      r22 = 1 - 2 * (qx * qx + qy * qy);
    // B = Q_blend S_blend, then B p_i for corners 0 and 1; corner 2 is minus their sum.
    const b00 = r00 * s00 + r01 * s01 + r02 * s02,
      b01 = r00 * s01 + r01 * s11 + r02 * s12,
      b02 = r00 * s02 + r01 * s12 + r02 * s22;
    const b10 = r10 * s00 + r11 * s01 + r12 * s02,
      b11 = r10 * s01 + r11 * s11 + r12 * s12,
      b12 = r10 * s02 + r11 * s12 + r12 * s22;
    const b20 = r20 * s00 + r21 * s01 + r22 * s02,
      b21 = r20 * s01 + r21 * s11 + r22 * s12,
      b22 = r20 * s02 + r21 * s12 + r22 * s22;
    const o = 9 * f;
    const p0 = p[o],
      p1 = p[o + 1],
      p2 = p[o + 2],
      p3 = p[o + 3],
      p4 = p[o + 4],
      p5 = p[o + 5];
    const c0 = b00 * p0 + b01 * p1 + b02 * p2,
      c1 = b10 * p0 + b11 * p1 + b12 * p2,
      c2 = b20 * p0 + b21 * p1 + b22 * p2;
    const c3 = b00 * p3 + b01 * p4 + b02 * p5,
      c4 = b10 * p3 + b11 * p4 + b12 * p5,
      c5 = b20 * p3 + b21 * p4 + b22 * p5;
    outProducts[o] = c0;
    outProducts[o + 1] = c1;
    outProducts[o + 2] = c2;
    outProducts[o + 3] = c3;
    outProducts[o + 4] = c4;
    outProducts[o + 5] = c5;
    outProducts[o + 6] = -c0 - c3;
    outProducts[o + 7] = -c1 - c4;
    outProducts[o + 8] = -c2 - c5;
  }
}
