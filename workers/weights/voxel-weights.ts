/**
 * Weights from the voxels' geodesic distances to their nearest bones, smoothed through the solid, and carried to the
 * vertices (the volumetric binding's fourth and fifth stages, volumetric-weights.ts).
 */
import type { Grid, Solid } from './voxel-solid.ts';

/** Distances below this many default voxels count as this many (a voxel on the bone has finite weight). */
const NEAREST = 0.5;

/**
 * #S × K weights from the K nearest bones' distances, d^−falloff, each row normalized; a voxel no bone reached has a
 * row of zeros.
 * @param unit the distance unit, mesh units (a voxel of the default grid)
 */
export function weightsFromDistances(
  nearestDistance: Float32Array,
  nearestBone: Int16Array,
  k: number,
  falloff: number,
  unit: number,
): Float32Array {
  const out = new Float32Array(nearestDistance.length);
  for (let row = 0; row < out.length; row += k) {
    let sum = 0;
    // Relative to the nearest bone's (d_0 / d)^falloff, which cannot underflow.
    const nearest = Math.max(NEAREST, nearestDistance[row] / unit);
    for (let i = 0; i < k; i++) {
      if (nearestBone[row + i] < 0) break;
      const d = Math.max(NEAREST, nearestDistance[row + i] / unit);
      const w = (nearest / d) ** falloff;
      out[row + i] = w;
      sum += w;
    }
    if (sum > 0) for (let i = 0; i < k; i++) out[row + i] /= sum;
  }
  return out;
}

/**
 * `passes` Jacobi passes: each solid voxel's weights become the mean of its own and its solid face neighbours' (those
 * that carry weights), keeping the K largest, normalized. `nearestBone` is rewritten to the kept bones (sorted by
 * weight, largest first; equal weights by bone index).
 * Memory: a second buffer of weights and bones (6K bytes per solid voxel) and the table of each voxel's own and six face
 * neighbours' numbers (28 bytes per solid voxel).
 * @param weights     #S × K the voxels' weights (of the bones in nearestBone); used as one of the two buffers the passes
 *                    alternate between, so overwritten after two passes or more (the result may be this array)
 * @param nearestBone #S × K their bones, −1 for empty places; rewritten
 * @param beforePass  called with the pass's number before each pass (to poll for cancel, which throws, and report progress)
 * @returns #S × K the smoothed weights: `weights` itself after an even number of passes, the second buffer after an odd
 */
export function smoothWeights(
  weights: Float32Array,
  nearestBone: Int16Array,
  k: number,
  boneCount: number,
  grid: Grid,
  solid: Solid,
  passes: number,
  beforePass: (pass: number) => void,
): Float32Array {
  const { nx, ny } = grid;
  const faces = [1, -1, nx, -nx, nx * ny, -nx * ny];
  // Each solid voxel and its solid face neighbours (−1 where there is none), found once for every pass.
  const around = new Int32Array(7 * solid.count);
  for (let v = 0; v < solid.count; v++) {
    around[7 * v] = v;
    for (let o = 0; o < 6; o++) around[7 * v + 1 + o] = solid.index[solid.cell[v] + faces[o]];
  }
  let inWeights: Float32Array = weights;
  let inBones: Int16Array = nearestBone;
  let outWeights: Float32Array = new Float32Array(weights.length);
  let outBones: Int16Array = new Int16Array(nearestBone.length);
  const accumulated = new Float64Array(boneCount);
  // seen[b] === v: bone b is in `touched` for voxel v, the one being averaged.
  const seen = new Int32Array(boneCount).fill(-1);
  const touched = new Int32Array(7 * k);
  const topBones = new Int32Array(k);
  const topWeights = new Float64Array(k);
  for (let pass = 0; pass < passes; pass++) {
    beforePass(pass);
    for (let v = 0; v < solid.count; v++) {
      let count = 0;
      for (let q = 7 * v; q < 7 * v + 7; q++) {
        const u = around[q];
        if (u < 0) continue;
        for (let i = u * k; i < u * k + k; i++) {
          const b = inBones[i];
          if (b < 0) break;
          if (seen[b] !== v) {
            seen[b] = v;
            accumulated[b] = 0;
            touched[count++] = b;
          }
          accumulated[b] += inWeights[i];
        }
      }
      // The K largest, by insertion (K is small).
      let kept = 0;
      for (let t = 0; t < count; t++) {
        const b = touched[t];
        const w = accumulated[b];
        seen[b] = -1;
        let i = kept < k ? kept++ : k;
        while (i > 0 && (topWeights[i - 1] < w || (topWeights[i - 1] === w && topBones[i - 1] > b))) {
          if (i < k) {
            topWeights[i] = topWeights[i - 1];
            topBones[i] = topBones[i - 1];
          }
          i--;
        }
        if (i < k) {
          topWeights[i] = w;
          topBones[i] = b;
        }
      }
      let sum = 0;
      for (let i = 0; i < kept; i++) sum += topWeights[i];
      const row = v * k;
      for (let i = 0; i < k; i++) {
        const has = i < kept && sum > 0;
        outBones[row + i] = has ? topBones[i] : -1;
        outWeights[row + i] = has ? topWeights[i] / sum : 0;
      }
    }
    [inWeights, outWeights] = [outWeights, inWeights];
    [inBones, outBones] = [outBones, inBones];
  }
  if (inBones !== nearestBone) nearestBone.set(inBones);
  return inWeights;
}

/**
 * The voxels' weights carried to a coarser grid (the restriction of a two-grid scheme): a coarse voxel is solid where
 * the centre of some solid voxel of the fine grid lies in it, and its row is the sum of those voxels' rows, the K
 * largest kept, normalized. The smoothing then runs on the coarse grid, where a pass blends over the same mesh
 * distance as on the default grid.
 * @param weights     #S × K the fine voxels' weights (of the bones in nearestBone)
 * @param nearestBone #S × K their bones, −1 for empty places
 * @param coarse      the coarse grid (the default resolution's over the same mesh); a fine voxel whose centre falls in
 *                    its outermost layer or outside it is left out, so that the coarse solid never touches its border
 * @returns the coarse solid and its #S' × K bones (−1 for empty places) and weights
 */
export function restrictWeights(
  weights: Float32Array,
  nearestBone: Int16Array,
  k: number,
  boneCount: number,
  grid: Grid,
  solid: Solid,
  coarse: Grid,
): { solid: Solid; nearestBone: Int16Array; weights: Float32Array } {
  const { nx, ny, h } = grid;
  const along = (cell: number, origin: number, coarseOrigin: number, cells: number) => {
    const i = Math.floor((origin + (cell + 0.5) * h - coarseOrigin) / coarse.h);
    return i >= 1 && i < cells - 1 ? i : -1;
  };
  const coarseCell = new Int32Array(solid.count).fill(-1);
  const index = new Int32Array(coarse.nx * coarse.ny * coarse.nz).fill(-1);
  for (let s = 0; s < solid.count; s++) {
    const c = solid.cell[s];
    const i = along(c % nx, grid.ox, coarse.ox, coarse.nx);
    const j = along(Math.floor(c / nx) % ny, grid.oy, coarse.oy, coarse.ny);
    const l = along(Math.floor(c / (nx * ny)), grid.oz, coarse.oz, coarse.nz);
    if (i < 0 || j < 0 || l < 0) continue;
    coarseCell[s] = i + coarse.nx * (j + coarse.ny * l);
    index[coarseCell[s]] = 0;
  }
  let count = 0;
  for (let c = 0; c < index.length; c++) if (index[c] >= 0) index[c] = count++;
  const cell = new Int32Array(count);
  for (let c = 0; c < index.length; c++) if (index[c] >= 0) cell[index[c]] = c;
  // The fine voxels of each coarse one, by a counting sort on the coarse voxel.
  const start = new Int32Array(count + 1);
  for (let s = 0; s < solid.count; s++) if (coarseCell[s] >= 0) start[index[coarseCell[s]] + 1]++;
  for (let c = 0; c < count; c++) start[c + 1] += start[c];
  const members = new Int32Array(start[count]);
  const next = start.slice(0, count);
  for (let s = 0; s < solid.count; s++) if (coarseCell[s] >= 0) members[next[index[coarseCell[s]]]++] = s;
  const outBones = new Int16Array(count * k).fill(-1);
  const outWeights = new Float32Array(count * k);
  const accumulated = new Float64Array(boneCount);
  const touched: number[] = [];
  for (let c = 0; c < count; c++) {
    for (let m = start[c]; m < start[c + 1]; m++)
      for (let i = members[m] * k; i < members[m] * k + k; i++) {
        const b = nearestBone[i];
        if (b < 0) break;
        if (accumulated[b] === 0 && weights[i] > 0) touched.push(b);
        accumulated[b] += weights[i];
      }
    keepLargest(accumulated, touched, k, outBones, outWeights, c * k);
  }
  return { solid: { count, cell, index }, nearestBone: outBones, weights: outWeights };
}

/**
 * Writes the K largest of the accumulated weights (of bones `touched`) into the rows at `row`, normalized, largest
 * first, and clears the accumulator.
 */
function keepLargest(
  accumulated: Float64Array,
  touched: number[],
  k: number,
  outBones: Int16Array | Int32Array,
  outWeights: Float32Array | Float64Array,
  row: number,
): void {
  touched.sort((a, b) => accumulated[b] - accumulated[a] || a - b);
  const kept = Math.min(k, touched.length);
  let sum = 0;
  for (let i = 0; i < kept; i++) sum += accumulated[touched[i]];
  if (sum > 0)
    for (let i = 0; i < kept; i++) {
      outBones[row + i] = touched[i];
      outWeights[row + i] = accumulated[touched[i]] / sum;
    }
  for (const b of touched) accumulated[b] = 0;
  touched.length = 0;
}

/**
 * Each vertex's row: trilinear interpolation over the eight voxel centres around it that carry weights, or the
 * nearest voxel that does; the K largest kept, normalized.
 * @param weights #V × #B out
 * @returns #V 1 where the vertex took the nearest voxel's weights, else 0
 */
export function vertexWeights(
  positions: Float64Array,
  grid: Grid,
  solid: Solid,
  nearestBone: Int16Array,
  voxelWeights: Float32Array,
  k: number,
  boneCount: number,
  weights: Float64Array,
): Uint8Array {
  const { nx, ny, nz, h, ox, oy, oz } = grid;
  const n = positions.length / 3;
  const accumulated = new Float64Array(boneCount);
  const touched: number[] = [];
  const rowBones = new Int32Array(k);
  const rowWeights = new Float64Array(k);
  const carries = (cell: number): number => {
    const s = solid.index[cell];
    return s >= 0 && nearestBone[s * k] >= 0 ? s : -1;
  };
  const fromNearest = new Uint8Array(n);
  for (let v = 0; v < n; v++) {
    const gx = (positions[3 * v] - ox) / h - 0.5;
    const gy = (positions[3 * v + 1] - oy) / h - 0.5;
    const gz = (positions[3 * v + 2] - oz) / h - 0.5;
    const i0 = Math.floor(gx);
    const j0 = Math.floor(gy);
    const l0 = Math.floor(gz);
    let total = 0;
    for (let corner = 0; corner < 8; corner++) {
      const di = corner & 1;
      const dj = (corner >> 1) & 1;
      const dl = corner >> 2;
      const i = i0 + di;
      const j = j0 + dj;
      const l = l0 + dl;
      if (i < 0 || j < 0 || l < 0 || i >= nx || j >= ny || l >= nz) continue;
      const s = carries(i + nx * (j + ny * l));
      if (s < 0) continue;
      const c = (di ? gx - i0 : 1 - gx + i0) * (dj ? gy - j0 : 1 - gy + j0) * (dl ? gz - l0 : 1 - gz + l0);
      if (!(c > 0)) continue;
      total += c;
      for (let q = 0; q < k; q++) {
        const b = nearestBone[s * k + q];
        if (b < 0) break;
        if (accumulated[b] === 0) touched.push(b);
        accumulated[b] += c * voxelWeights[s * k + q];
      }
    }
    if (total === 0) {
      const s = nearestCarrying(positions, v, grid, carries);
      if (s < 0) continue;
      fromNearest[v] = 1;
      for (let q = 0; q < k; q++) {
        const b = nearestBone[s * k + q];
        if (b < 0) break;
        touched.push(b);
        accumulated[b] = voxelWeights[s * k + q];
      }
    }
    rowBones.fill(-1);
    keepLargest(accumulated, touched, k, rowBones, rowWeights, 0);
    for (let q = 0; q < k && rowBones[q] >= 0; q++) weights[v * boneCount + rowBones[q]] = rowWeights[q];
  }
  return fromNearest;
}

/**
 * The solid voxel carrying weights whose centre is nearest vertex v, searched in growing cubic shells about its
 * voxel until no nearer one can be found; −1 when none carries weights.
 */
function nearestCarrying(positions: Float64Array, v: number, grid: Grid, carries: (cell: number) => number): number {
  const { nx, ny, nz, h, ox, oy, oz } = grid;
  const px = positions[3 * v];
  const py = positions[3 * v + 1];
  const pz = positions[3 * v + 2];
  const ci = Math.min(nx - 1, Math.max(0, Math.floor((px - ox) / h)));
  const cj = Math.min(ny - 1, Math.max(0, Math.floor((py - oy) / h)));
  const cl = Math.min(nz - 1, Math.max(0, Math.floor((pz - oz) / h)));
  let best = -1;
  let bestDistance = Infinity;
  const largest = Math.max(nx, ny, nz);
  for (let r = 0; r < largest; r++) {
    // Every voxel of shell r is at least (r − 1) h from the point (which lies in the centre voxel).
    if ((r - 1) * h > bestDistance) break;
    for (let l = cl - r; l <= cl + r; l++) {
      if (l < 0 || l >= nz) continue;
      for (let j = cj - r; j <= cj + r; j++) {
        if (j < 0 || j >= ny) continue;
        const onFace = l === cl - r || l === cl + r || j === cj - r || j === cj + r;
        for (let i = ci - r; i <= ci + r; i += onFace ? 1 : 2 * r || 1) {
          if (i < 0 || i >= nx) continue;
          const s = carries(i + nx * (j + ny * l));
          if (s < 0) continue;
          const d = Math.hypot(ox + (i + 0.5) * h - px, oy + (j + 0.5) * h - py, oz + (l + 0.5) * h - pz);
          if (d < bestDistance) {
            bestDistance = d;
            best = s;
          }
        }
      }
    }
  }
  return best;
}
