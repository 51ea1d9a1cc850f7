/**
 * Per-face skinning's frame as it ran before the factor was packed for the per-frame solve. It differs from today's
 * frame in two places only: each blended face's exp takes Math.sin and Math.cos (today's frame sums their series),
 * and the solve runs on the factor's column-major supernode blocks, two columns at a time (today's streams through
 * choleskyPanels). Kept as the reference the packed frame is compared with; it reads the same setup and the factor
 * the setup's panels were packed from (perFaceSkinningSetupAndFactor).
 */
import { matrixToQuat } from '../../workers/math/quaternion.ts';
import type { CholeskyFactor } from '../../workers/sparse/cholesky-numeric.ts';
import type { PerFaceSkinningSetup } from '../../workers/skinning/per-face-skinning.ts';

/**
 * One per-face skinning frame (perFaceSkinning without bone scales), the earlier way.
 * @param setup         perFaceSkinningSetupAndFactor(…).setup
 * @param factor        perFaceSkinningSetupAndFactor(…).factor, the free block's factor
 * @param transforms    #B × 12 rigid rest → posed bone transforms
 * @param outPositions  #V × 3 posed positions
 */
export function referencePerFaceSkinning(
  setup: PerFaceSkinningSetup,
  factor: CholeskyFactor,
  transforms: Float64Array,
  outPositions: Float64Array,
): void {
  const { vertexCount, freeIndex, freeCount, boneCount, pairBones } = setup;
  const { inversePerm } = factor.symbolic;
  const solutionRow = new Int32Array(vertexCount);
  for (let v = 0; v < vertexCount; v++) solutionRow[v] = 3 * (freeIndex[v] >= 0 ? inversePerm[freeIndex[v]] : freeCount);
  const workspace = {
    quaternions: new Float64Array(4 * boneCount),
    logPositive: new Float64Array(3 * boneCount),
    logNegative: new Float64Array(3 * boneCount),
    pairLogs: new Float64Array(pairBones.length * 1.5),
    pairScales: new Float64Array(pairBones.length * 1.5),
  };
  const solution = new Float64Array(3 * (freeCount + 1));
  boneLogarithms(setup, transforms, null, workspace);
  accumulateFaceGradients(setup, solutionRow, workspace.quaternions, workspace.pairLogs, null, setup.faceProducts, solution);
  fixedVerticesToRightHandSide(setup, transforms, setup.restPositions, solution, outPositions);
  choleskySolveThree(factor, solution);
  for (let v = 0; v < vertexCount; v++) {
    if (freeIndex[v] < 0) continue;
    const r = solutionRow[v];
    outPositions[3 * v] = solution[r];
    outPositions[3 * v + 1] = solution[r + 1];
    outPositions[3 * v + 2] = solution[r + 2];
  }
}

interface ReferenceWorkspace {
  quaternions: Float64Array;
  logPositive: Float64Array;
  logNegative: Float64Array;
  pairLogs: Float64Array;
  pairScales: Float64Array;
}

const linear = new Float64Array(9);

/**
 * Each bone's rotation as a quaternion with w ≥ 0, its logarithms log(+q) and log(−q), and for every (reference,
 * bone) pair the log whose quaternion has a non-negative dot product with the reference's — and, with bone
 * scales, the pair's bone's scale minus one (the first phase's blend term).
 */
function boneLogarithms(
  setup: PerFaceSkinningSetup,
  transforms: Float64Array,
  boneScales: Float64Array | null,
  workspace: ReferenceWorkspace,
): void {
  const { quaternions: Q, logPositive, logNegative, pairLogs, pairScales } = workspace;
  for (let b = 0; b < setup.boneCount; b++) {
    const o = 12 * b;
    // The rotation Q_b = (Q_b · diag(s_b)) · diag(1/s_b): column c of the linear part divided by s_c.
    const ix = boneScales ? 1 / boneScales[3 * b] : 1;
    const iy = boneScales ? 1 / boneScales[3 * b + 1] : 1;
    const iz = boneScales ? 1 / boneScales[3 * b + 2] : 1;
    for (let r = 0; r < 3; r++) {
      linear[3 * r] = transforms[o + 4 * r] * ix;
      linear[3 * r + 1] = transforms[o + 4 * r + 1] * iy;
      linear[3 * r + 2] = transforms[o + 4 * r + 2] * iz;
    }
    matrixToQuat(linear, 0, Q, 4 * b);
    if (Q[4 * b + 3] < 0) for (let k = 0; k < 4; k++) Q[4 * b + k] = -Q[4 * b + k];
    const x = Q[4 * b],
      y = Q[4 * b + 1],
      z = Q[4 * b + 2],
      w = Q[4 * b + 3];
    const s = Math.sqrt(x * x + y * y + z * z);
    // log(±q) = ±axis · atan2(s, ±w): half-angles φ and π − φ.
    const half = Math.atan2(s, w);
    const plus = s > 0 ? half / s : 1;
    const minus = s > 0 ? -(Math.PI - half) / s : 0;
    logPositive[3 * b] = x * plus;
    logPositive[3 * b + 1] = y * plus;
    logPositive[3 * b + 2] = z * plus;
    logNegative[3 * b] = x * minus;
    logNegative[3 * b + 1] = y * minus;
    logNegative[3 * b + 2] = z * minus;
  }
  const { pairBones } = setup;
  for (let p = 0; p < pairBones.length / 2; p++) {
    const r = 4 * pairBones[2 * p];
    const b = pairBones[2 * p + 1];
    const q = 4 * b;
    const log = Q[r] * Q[q] + Q[r + 1] * Q[q + 1] + Q[r + 2] * Q[q + 2] + Q[r + 3] * Q[q + 3] < 0 ? logNegative : logPositive;
    pairLogs[3 * p] = log[3 * b];
    pairLogs[3 * p + 1] = log[3 * b + 1];
    pairLogs[3 * p + 2] = log[3 * b + 2];
    if (boneScales) {
      pairScales[3 * p] = boneScales[3 * b] - 1;
      pairScales[3 * p + 1] = boneScales[3 * b + 1] - 1;
      pairScales[3 * p + 2] = boneScales[3 * b + 2] - 1;
    }
  }
}

/**
 * Blends each face's rotation (Eq. 5), and with pairScales its scale, and adds its target gradients Gᵀ A g̃ to the
 * pivot-ordered right-hand sides (fixed corners land in the spare last row).
 */
function accumulateFaceGradients(
  setup: PerFaceSkinningSetup,
  solutionRow: Int32Array,
  Q: Float64Array,
  pairLogs: Float64Array,
  pairScales: Float64Array | null,
  faceProducts: Float64Array,
  rhs: Float64Array,
): void {
  const { faceCount, faceSlotStart, faceWeights, slotPairs, pairBones, triangles } = setup;
  let slot = 0;
  for (let f = 0; f < faceCount; f++) {
    const end = faceSlotStart[f + 1];
    let qx: number, qy: number, qz: number, qw: number;
    if (end - slot === 1 && faceWeights[slot] === 1) {
      // A face on one bone takes its rotation as it is (exp log q = q); only blends pay for the trigonometry.
      const ref = 4 * pairBones[2 * slotPairs[slot]];
      qx = Q[ref];
      qy = Q[ref + 1];
      qz = Q[ref + 2];
      qw = Q[ref + 3];
      slot = end;
    } else {
      let lx = 0,
        ly = 0,
        lz = 0;
      if (end - slot >= 4) {
        // Most faces blend four bones: one pass without the loop's exit test.
        const w0 = faceWeights[slot],
          w1 = faceWeights[slot + 1],
          w2 = faceWeights[slot + 2],
          w3 = faceWeights[slot + 3];
        const l0 = 3 * slotPairs[slot],
          l1 = 3 * slotPairs[slot + 1],
          l2 = 3 * slotPairs[slot + 2],
          l3 = 3 * slotPairs[slot + 3];
        lx = w0 * pairLogs[l0] + w1 * pairLogs[l1] + w2 * pairLogs[l2] + w3 * pairLogs[l3];
        ly = w0 * pairLogs[l0 + 1] + w1 * pairLogs[l1 + 1] + w2 * pairLogs[l2 + 1] + w3 * pairLogs[l3 + 1];
        lz = w0 * pairLogs[l0 + 2] + w1 * pairLogs[l1 + 2] + w2 * pairLogs[l2 + 2] + w3 * pairLogs[l3 + 2];
        slot += 4;
      }
      for (; slot < end; slot++) {
        const w = faceWeights[slot];
        const l = 3 * slotPairs[slot];
        lx += w * pairLogs[l];
        ly += w * pairLogs[l + 1];
        lz += w * pairLogs[l + 2];
      }
      // exp: q_f = (sin|l| l/|l|, cos|l|).
      const angle = Math.sqrt(lx * lx + ly * ly + lz * lz);
      const sinc = angle > 1e-12 ? Math.sin(angle) / angle : 1;
      qx = lx * sinc;
      qy = ly * sinc;
      qz = lz * sinc;
      qw = Math.cos(angle);
    }
    const r00 = 1 - 2 * (qy * qy + qz * qz),
      r01 = 2 * (qx * qy - qz * qw),
      r02 = 2 * (qx * qz + qy * qw);
    const r10 = 2 * (qx * qy + qz * qw),
      r11 = 1 - 2 * (qx * qx + qz * qz),
      r12 = 2 * (qy * qz - qx * qw);
    const r20 = 2 * (qx * qz - qy * qw),
      r21 = 2 * (qy * qz + qx * qw),
      r22 = 1 - 2 * (qx * qx + qy * qy);
    let sx = 1,
      sy = 1,
      sz = 1;
    if (pairScales) {
      for (let k = faceSlotStart[f]; k < end; k++) {
        const w = faceWeights[k];
        const l = 3 * slotPairs[k];
        sx += w * pairScales[l];
        sy += w * pairScales[l + 1];
        sz += w * pairScales[l + 2];
      }
    }
    // Coordinate c's target gradient is Σ_d (R S̄)_cd ∇x̄_d, so corner i receives Σ_d R_cd s̄_d (A ∇φ_i · ∇x̄_d).
    const o = 9 * f;
    for (let i = 0; i < 3; i++) {
      const p0 = sx * faceProducts[o + 3 * i],
        p1 = sy * faceProducts[o + 3 * i + 1],
        p2 = sz * faceProducts[o + 3 * i + 2];
      const r = solutionRow[triangles[3 * f + i]];
      rhs[r] += r00 * p0 + r01 * p1 + r02 * p2;
      rhs[r + 1] += r10 * p0 + r11 * p1 + r12 * p2;
      rhs[r + 2] += r20 * p0 + r21 * p1 + r22 * p2;
    }
  }
}

/** Fixed vertices follow their bone (written to the output); their columns move to the right-hand side. */
function fixedVerticesToRightHandSide(
  setup: PerFaceSkinningSetup,
  transforms: Float64Array,
  P: Float64Array,
  rhs: Float64Array,
  outPositions: Float64Array,
): void {
  const { fixedVertices, fixedBones, freeFixed } = setup;
  const { colPointers, rowIndices, values } = freeFixed;
  for (let j = 0; j < fixedVertices.length; j++) {
    const v = fixedVertices[j];
    const o = 12 * fixedBones[v];
    const x = P[3 * v],
      y = P[3 * v + 1],
      z = P[3 * v + 2];
    const px = transforms[o] * x + transforms[o + 1] * y + transforms[o + 2] * z + transforms[o + 3];
    const py = transforms[o + 4] * x + transforms[o + 5] * y + transforms[o + 6] * z + transforms[o + 7];
    const pz = transforms[o + 8] * x + transforms[o + 9] * y + transforms[o + 10] * z + transforms[o + 11];
    outPositions[3 * v] = px;
    outPositions[3 * v + 1] = py;
    outPositions[3 * v + 2] = pz;
    for (let p = colPointers[j]; p < colPointers[j + 1]; p++) {
      const r = 3 * rowIndices[p];
      const a = values[p];
      rhs[r] -= a * px;
      rhs[r + 1] -= a * py;
      rhs[r + 2] -= a * pz;
    }
  }
}

/**
 * Solves L Lᵀ x = y in place for exactly three dense right-hand sides interleaved row by row in pivot order
 * (x[3r + c] is column c of pivot row r) — the x, y, z of a mesh solved against one factor every frame. The same
 * arithmetic as choleskySolvePermuted(factor, x, 3), unrolled over the three columns and two factor columns at a
 * time, without its zero-column bookkeeping, which dense right-hand sides never use. Extra trailing rows of x
 * are left alone.
 *
 * @param factor choleskyNumeric(A, …)
 * @param x      at least #n × 3 values, pivot order; overwritten by the solution
 */
function choleskySolveThree(factor: CholeskyFactor, x: Float64Array): void {
  const { n, supernodeCount, supernodeStart, rowPointers, rows, valuePointers } = factor.symbolic;
  if (x.length < 3 * n) throw new RangeError(`choleskySolveThree: expected ${n}×3 values, got ${x.length}`);
  const v = factor.values;
  // Forward: y = L⁻¹ b, one supernode at a time — its dense triangle, then its rows below, two columns per pass.
  for (let s = 0; s < supernodeCount; s++) {
    const first = supernodeStart[s];
    const columns = supernodeStart[s + 1] - first;
    const rowStart = rowPointers[s];
    const ld = rowPointers[s + 1] - rowStart;
    const base = valuePointers[s];
    for (let j = 0; j < columns; j++) {
      const cj = base + j * ld;
      const xj = 3 * (first + j);
      const inverse = 1 / v[cj + j];
      const a = (x[xj] *= inverse);
      const b = (x[xj + 1] *= inverse);
      const c = (x[xj + 2] *= inverse);
      for (let i = j + 1; i < columns; i++) {
        const l = v[cj + i];
        const xi = 3 * (first + i);
        x[xi] -= l * a;
        x[xi + 1] -= l * b;
        x[xi + 2] -= l * c;
      }
    }
    let j = 0;
    for (; j + 1 < columns; j += 2) {
      const c0 = base + j * ld;
      const c1 = c0 + ld;
      const x0 = 3 * (first + j);
      const a0 = x[x0],
        b0 = x[x0 + 1],
        d0 = x[x0 + 2];
      const a1 = x[x0 + 3],
        b1 = x[x0 + 4],
        d1 = x[x0 + 5];
      for (let i = columns; i < ld; i++) {
        const l0 = v[c0 + i];
        const l1 = v[c1 + i];
        const xi = 3 * rows[rowStart + i];
        x[xi] -= l0 * a0 + l1 * a1;
        x[xi + 1] -= l0 * b0 + l1 * b1;
        x[xi + 2] -= l0 * d0 + l1 * d1;
      }
    }
    if (j < columns) {
      const c0 = base + j * ld;
      const x0 = 3 * (first + j);
      const a0 = x[x0],
        b0 = x[x0 + 1],
        d0 = x[x0 + 2];
      for (let i = columns; i < ld; i++) {
        const l0 = v[c0 + i];
        const xi = 3 * rows[rowStart + i];
        x[xi] -= l0 * a0;
        x[xi + 1] -= l0 * b0;
        x[xi + 2] -= l0 * d0;
      }
    }
  }
  // Backward: x = L⁻ᵀ y, supernodes in reverse, columns from the last, two at a time sharing each row read.
  for (let s = supernodeCount - 1; s >= 0; s--) {
    const first = supernodeStart[s];
    const columns = supernodeStart[s + 1] - first;
    const rowStart = rowPointers[s];
    const ld = rowPointers[s + 1] - rowStart;
    const base = valuePointers[s];
    let j = columns - 1;
    for (; j >= 1; j -= 2) {
      const c1 = base + j * ld;
      const c0 = c1 - ld;
      let a0 = 0,
        b0 = 0,
        d0 = 0,
        a1 = 0,
        b1 = 0,
        d1 = 0;
      for (let i = columns; i < ld; i++) {
        const yi = 3 * rows[rowStart + i];
        const u = x[yi],
          w = x[yi + 1],
          z = x[yi + 2];
        const l0 = v[c0 + i];
        const l1 = v[c1 + i];
        a0 += l0 * u;
        b0 += l0 * w;
        d0 += l0 * z;
        a1 += l1 * u;
        b1 += l1 * w;
        d1 += l1 * z;
      }
      for (let i = j + 1; i < columns; i++) {
        const yi = 3 * (first + i);
        const u = x[yi],
          w = x[yi + 1],
          z = x[yi + 2];
        const l0 = v[c0 + i];
        const l1 = v[c1 + i];
        a0 += l0 * u;
        b0 += l0 * w;
        d0 += l0 * z;
        a1 += l1 * u;
        b1 += l1 * w;
        d1 += l1 * z;
      }
      // Column j is final first; column j − 1 then takes its entry in row j.
      const xj = 3 * (first + j);
      const inverse1 = 1 / v[c1 + j];
      const u = (x[xj] = (x[xj] - a1) * inverse1);
      const w = (x[xj + 1] = (x[xj + 1] - b1) * inverse1);
      const z = (x[xj + 2] = (x[xj + 2] - d1) * inverse1);
      const l = v[c0 + j];
      const xk = xj - 3;
      const inverse0 = 1 / v[c0 + j - 1];
      x[xk] = (x[xk] - a0 - l * u) * inverse0;
      x[xk + 1] = (x[xk + 1] - b0 - l * w) * inverse0;
      x[xk + 2] = (x[xk + 2] - d0 - l * z) * inverse0;
    }
    if (j === 0) {
      let a = 0,
        b = 0,
        d = 0;
      for (let i = 1; i < ld; i++) {
        const l = v[base + i];
        const yi = 3 * rows[rowStart + i];
        a += l * x[yi];
        b += l * x[yi + 1];
        d += l * x[yi + 2];
      }
      const xj = 3 * first;
      const inverse = 1 / v[base];
      x[xj] = (x[xj] - a) * inverse;
      x[xj + 1] = (x[xj + 1] - b) * inverse;
      x[xj + 2] = (x[xj + 2] - d) * inverse;
    }
  }
}
