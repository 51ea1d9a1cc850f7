/**
 * Geodesic distances through the solid voxels from the bones (the volumetric binding's second and third stages,
 * volumetric-weights.ts; Dionne and de Lasa 2013, Sec. 4): each bone's starting voxels, and Dijkstra's algorithm over
 * the 26-neighbourhood keeping each voxel's K nearest bones.
 */
import type { TgfSkeleton } from '../formats/types.ts';
import type { Grid, Solid } from './voxel-solid.ts';

/** Distance from point p to segment ab, mesh units. */
function segmentDistance(px: number, py: number, pz: number, joints: Float64Array, a: number, b: number): number {
  const ax = joints[3 * a];
  const ay = joints[3 * a + 1];
  const az = joints[3 * a + 2];
  const dx = joints[3 * b] - ax;
  const dy = joints[3 * b + 1] - ay;
  const dz = joints[3 * b + 2] - az;
  const length2 = dx * dx + dy * dy + dz * dz;
  let t = length2 > 0 ? ((px - ax) * dx + (py - ay) * dy + (pz - az) * dz) / length2 : 0;
  t = t < 0 ? 0 : t > 1 ? 1 : t;
  return Math.hypot(px - ax - t * dx, py - ay - t * dy, pz - az - t * dz);
}

/**
 * Bone b's starting voxels: the solid voxels its segment passes through (sampled every quarter voxel), at the
 * distance from their centre to the segment; when there are none, the solid voxels within a voxel of the nearest
 * one, at their distance from the segment (so a bone far outside the mesh, such as a root on the ground, weighs little).
 */
export function boneSeeds(
  skeleton: TgfSkeleton,
  b: number,
  grid: Grid,
  solid: Solid,
): { voxels: Int32Array; distances: Float64Array; outside: boolean; insideFraction: number } {
  const { nx, ny, nz, h, ox, oy, oz } = grid;
  const { joints } = skeleton;
  const a = skeleton.bones[2 * b];
  const e = skeleton.bones[2 * b + 1];
  const length = Math.hypot(joints[3 * e] - joints[3 * a], joints[3 * e + 1] - joints[3 * a + 1], joints[3 * e + 2] - joints[3 * a + 2]);
  const steps = Math.max(1, Math.ceil((4 * length) / h));
  const found = new Set<number>();
  let inside = 0;
  for (let s = 0; s <= steps; s++) {
    const t = s / steps;
    const i = Math.floor((joints[3 * a] + t * (joints[3 * e] - joints[3 * a]) - ox) / h);
    const j = Math.floor((joints[3 * a + 1] + t * (joints[3 * e + 1] - joints[3 * a + 1]) - oy) / h);
    const l = Math.floor((joints[3 * a + 2] + t * (joints[3 * e + 2] - joints[3 * a + 2]) - oz) / h);
    if (i < 0 || j < 0 || l < 0 || i >= nx || j >= ny || l >= nz) continue;
    const s2 = solid.index[i + nx * (j + ny * l)];
    if (s2 >= 0) {
      found.add(s2);
      inside++;
    }
  }
  const insideFraction = inside / (steps + 1);
  const centre = (s: number, axis: number): number => {
    const c = solid.cell[s];
    const coordinate = axis === 0 ? c % nx : axis === 1 ? Math.floor(c / nx) % ny : Math.floor(c / (nx * ny));
    return (axis === 0 ? ox : axis === 1 ? oy : oz) + (coordinate + 0.5) * h;
  };
  if (found.size > 0) {
    const voxels = Int32Array.from(found);
    const distances = Float64Array.from(voxels, (s) => segmentDistance(centre(s, 0), centre(s, 1), centre(s, 2), joints, a, e));
    return { voxels, distances, outside: false, insideFraction };
  }
  const all = new Float64Array(solid.count);
  let nearest = Infinity;
  for (let s = 0; s < solid.count; s++) {
    all[s] = segmentDistance(centre(s, 0), centre(s, 1), centre(s, 2), joints, a, e);
    if (all[s] < nearest) nearest = all[s];
  }
  const voxels: number[] = [];
  for (let s = 0; s < solid.count; s++) if (all[s] <= nearest + h) voxels.push(s);
  return { voxels: Int32Array.from(voxels), distances: Float64Array.from(voxels, (s) => all[s]), outside: true, insideFraction };
}

/** How many voxels a search settles between two polls for cancel. */
const POLL_EVERY = 1 << 16;

/** Dijkstra's algorithm over the solid voxels with an indexed binary heap, reused from bone to bone. */
export class GeodesicSearch {
  private readonly distance: Float64Array;
  private readonly heap: Int32Array;
  private readonly place: Int32Array;
  private readonly done: Uint8Array;
  private size = 0;

  constructor(count: number) {
    this.distance = new Float64Array(count);
    this.heap = new Int32Array(count);
    this.place = new Int32Array(count).fill(-1);
    this.done = new Uint8Array(count);
  }

  /**
   * Distances from the seeds to every solid voxel the search reaches; each reached voxel's K nearest bones are
   * updated with bone b (see volumetricWeights, step 3, for the pruning).
   * @param nearestBone     #S × K bone of each voxel's nearest bones, −1 for empty places (sorted by distance)
   * @param nearestDistance #S × K their distances, mesh units (Infinity for empty places)
   * @param checkCancelled  throws to stop; called every POLL_EVERY voxels the search settles (a bone's search at 512
   *                        voxels settles millions)
   */
  run(
    seeds: Int32Array,
    seedDistances: Float64Array,
    b: number,
    grid: Grid,
    solid: Solid,
    nearestBone: Int16Array,
    nearestDistance: Float32Array,
    k: number,
    checkCancelled: () => void = () => {},
  ): void {
    const { distance, place, done } = this;
    distance.fill(Infinity);
    done.fill(0);
    this.size = 0;
    for (let i = 0; i < seeds.length; i++) this.update(seeds[i], seedDistances[i]);
    const { nx, ny, h } = grid;
    const offsets = neighbourOffsets(nx, ny);
    const steps = neighbourSteps(h);
    const { cell, index } = solid;
    let settled = 0;
    while (this.size > 0) {
      if ((++settled & (POLL_EVERY - 1)) === 0) checkCancelled();
      const v = this.pop();
      done[v] = 1;
      place[v] = -1;
      const d = distance[v];
      const row = v * k;
      if (d >= nearestDistance[row + k - 1]) continue;
      insertNearest(nearestBone, nearestDistance, row, k, b, d);
      const c = cell[v];
      for (let o = 0; o < 26; o++) {
        const u = index[c + offsets[o]];
        if (u < 0 || done[u]) continue;
        const du = d + steps[o];
        if (du < distance[u]) this.update(u, du);
      }
    }
  }

  /** Lowers voxel v's tentative distance to d (inserting it into the heap when absent). */
  private update(v: number, d: number): void {
    const { distance, heap, place } = this;
    if (!(d < distance[v])) return;
    distance[v] = d;
    let i = place[v];
    if (i < 0) {
      i = this.size++;
      heap[i] = v;
      place[v] = i;
    }
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent];
      if (distance[p] <= d) break;
      heap[i] = p;
      place[p] = i;
      i = parent;
    }
    heap[i] = v;
    place[v] = i;
  }

  private pop(): number {
    const { distance, heap, place } = this;
    const top = heap[0];
    const last = heap[--this.size];
    if (this.size > 0) {
      const d = distance[last];
      let i = 0;
      for (;;) {
        let child = 2 * i + 1;
        if (child >= this.size) break;
        if (child + 1 < this.size && distance[heap[child + 1]] < distance[heap[child]]) child++;
        if (distance[heap[child]] >= d) break;
        heap[i] = heap[child];
        place[heap[i]] = i;
        i = child;
      }
      heap[i] = last;
      place[last] = i;
    }
    return top;
  }
}

/** Linear offsets of the 26 neighbours. */
function neighbourOffsets(nx: number, ny: number): Int32Array {
  const out = new Int32Array(26);
  let o = 0;
  for (let dl = -1; dl <= 1; dl++)
    for (let dj = -1; dj <= 1; dj++) for (let di = -1; di <= 1; di++) if (di || dj || dl) out[o++] = di + nx * (dj + ny * dl);
  return out;
}

/** Step lengths to the 26 neighbours (h, h√2, h√3), in neighbourOffsets' order. */
function neighbourSteps(h: number): Float64Array {
  const out = new Float64Array(26);
  let o = 0;
  for (let dl = -1; dl <= 1; dl++)
    for (let dj = -1; dj <= 1; dj++)
      for (let di = -1; di <= 1; di++) if (di || dj || dl) out[o++] = h * Math.sqrt(di * di + dj * dj + dl * dl);
  return out;
}

/** Inserts (b, d) into the sorted row of K nearest bones at `row`, dropping the farthest. */
function insertNearest(nearestBone: Int16Array, nearestDistance: Float32Array, row: number, k: number, b: number, d: number): void {
  let i = k - 1;
  while (i > 0 && nearestDistance[row + i - 1] > d) {
    nearestDistance[row + i] = nearestDistance[row + i - 1];
    nearestBone[row + i] = nearestBone[row + i - 1];
    i--;
  }
  nearestDistance[row + i] = d;
  nearestBone[row + i] = b;
}
