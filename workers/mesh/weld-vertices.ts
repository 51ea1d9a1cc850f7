/**
 * Welding: the vertices of a mesh that sit at the same place, as one vertex. Exporters split a vertex wherever its
 * UV, normal or material changes (at seams, creases, and on flat-shaded meshes at every corner), so a mesh's index
 * topology can fall apart into hundreds of pieces that are one surface. Binding and painting run on the welded
 * topology; the file's split vertices, UVs and normals stay as they are.
 */

import { kernelExactRoots, WELD_HASH } from './mesh-kernel.ts';

const [HASH_X, HASH_Y, HASH_Z] = WELD_HASH;

export interface WeldVerticesOptions {
  /**
   * Largest distance, in mesh units, between two vertices welded into one: 0 welds only vertices at exactly the same
   * position (bit for bit, −0 and +0 alike). Groups are the transitive closure (single linkage): in a chain a–b–c
   * with |ab| and |bc| within the tolerance, a and c are welded even when |ac| is not.
   */
  tolerance?: number;
}

export const WELD_VERTICES_DEFAULTS: Required<WeldVerticesOptions> = { tolerance: 0 };

/** A mesh's vertices welded into groups. */
export interface WeldedVertices {
  /** #W welded vertices */
  count: number;
  /** #V welded vertex of each vertex */
  index: Int32Array;
  /** #W the group's first (lowest-index) vertex; welded vertices are numbered in this order, so it increases */
  representative: Int32Array;
  /** #W + 1: welded vertex w's members are members[memberStart[w] .. memberStart[w + 1]) */
  memberStart: Int32Array;
  /** #V the vertices of each welded vertex, ascending within each */
  members: Int32Array;
  /** #W × 3 welded positions: the position of the group's first vertex (a real vertex, not a mean) */
  positions: Float64Array;
  /**
   * #F' × 3 the triangles on welded vertices, in their order; a triangle two of whose corners were welded together
   * (degenerate) is dropped
   */
  triangles: Uint32Array;
}

/**
 * Groups the vertices at the same position (exactly, or within `tolerance`) into welded vertices, in O(#V) expected
 * time: vertices are hashed by their position (tolerance 0) or by their cell in a grid of cells `tolerance` wide,
 * and compared only with the vertices of the same or the 26 neighbouring cells. Groups are unions (union-find), so
 * the result does not depend on the vertex order beyond the numbering.
 *
 * @param positions #V × 3 positions, mesh units
 * @param triangles #F × 3 vertex indices
 * @param options   see WeldVerticesOptions
 * @returns the welded vertices and triangles
 * @throws RangeError naming the face or the option when a face names a missing vertex or the tolerance is not a
 *         finite number ≥ 0
 */
export function weldVertices(positions: Float64Array, triangles: Uint32Array, options: WeldVerticesOptions = {}): WeldedVertices {
  return weldedFromRoots(positions, triangles, weldRoots(positions, options));
}

/** Union-find roots of a mesh's vertices under welding (a group's root is its lowest vertex) and the group count. */
export interface WeldRoots {
  /** #V each vertex's parent; a vertex that is its own parent is a group's root */
  root: Int32Array;
  /** #W groups: the welded vertex count */
  count: number;
}

/**
 * The first half of weldVertices: which vertices weld, without the welded mesh. A caller that only needs the welded
 * mesh when something welds (count < #V) builds it with weldedFromRoots.
 * @param kernel  false: the JavaScript loop even where the WebAssembly one (mesh-kernel.ts, the same roots) could run
 * @throws RangeError naming the option when the tolerance is not a finite number ≥ 0
 */
export function weldRoots(positions: Float64Array, options: WeldVerticesOptions = {}, kernel = true): WeldRoots {
  const tolerance = options.tolerance ?? WELD_VERTICES_DEFAULTS.tolerance;
  if (!(tolerance >= 0 && Number.isFinite(tolerance)))
    throw new RangeError(`weldVertices: the tolerance must be a finite distance ≥ 0, not ${tolerance}`);
  const n = Math.floor(positions.length / 3);
  if (tolerance > 0) return nearRoots(positions, n, tolerance);
  return (kernel ? kernelExactRoots(positions, n) : null) ?? exactRoots(positions, n);
}

/**
 * The second half of weldVertices: the welded vertices and triangles from weldRoots' groups.
 * @throws RangeError naming the face when a face names a missing vertex
 */
export function weldedFromRoots(positions: Float64Array, triangles: Uint32Array, { root, count }: WeldRoots): WeldedVertices {
  const n = root.length;
  // One loop per function: V8 optimizes each on its own loop's feedback (see harmonicWeights).
  const { index, representative } = count === n ? identityGroups(n) : numberGroups(root, count);
  const welded = count === n ? positions.slice(0, 3 * n) : firstPositions(positions, representative);
  const { memberStart, members } = count === n ? { memberStart: identity(n + 1), members: index.slice() } : memberLists(index, count);
  return { count, index, representative, memberStart, members, positions: welded, triangles: weldTriangles(triangles, index, n) };
}

/** 0, 1, …, n − 1. */
function identity(n: number): Int32Array {
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = i;
  return out;
}

/** numberGroups where nothing welds: every vertex its own group, in order. */
function identityGroups(n: number): { index: Int32Array; representative: Int32Array } {
  const index = identity(n);
  return { index, representative: index.slice() };
}

/**
 * Welded vertex numbers in the order of each group's first vertex.
 * @param root  #V union-find parents (a group's root is its lowest vertex)
 * @param count the number of groups
 */
function numberGroups(root: Int32Array, count: number): { index: Int32Array; representative: Int32Array } {
  const n = root.length;
  const index = new Int32Array(n);
  const representative = new Int32Array(count);
  let w = 0;
  for (let v = 0; v < n; v++) {
    const r = find(root, v);
    // The root of a group is its lowest vertex (unions keep the smaller root), reached before any other member.
    if (r === v) {
      index[v] = w;
      representative[w++] = v;
    } else {
      index[v] = index[r];
    }
  }
  return { index, representative };
}

/** #W × 3 the position of each welded vertex's first member. */
function firstPositions(positions: Float64Array, representative: Int32Array): Float64Array {
  const out = new Float64Array(3 * representative.length);
  for (let w = 0; w < representative.length; w++) {
    const v = representative[w];
    out[3 * w] = positions[3 * v];
    out[3 * w + 1] = positions[3 * v + 1];
    out[3 * w + 2] = positions[3 * v + 2];
  }
  return out;
}

/** Each welded vertex's members, ascending, as offsets (#W + 1) into one #V list. */
function memberLists(index: Int32Array, count: number): { memberStart: Int32Array; members: Int32Array } {
  const n = index.length;
  const memberStart = new Int32Array(count + 1);
  for (let v = 0; v < n; v++) memberStart[index[v] + 1]++;
  for (let w = 0; w < count; w++) memberStart[w + 1] += memberStart[w];
  const members = new Int32Array(n);
  const fill = memberStart.slice(0, count);
  for (let v = 0; v < n; v++) members[fill[index[v]]++] = v;
  return { memberStart, members };
}

/**
 * Rows of a per-welded-vertex array spread to every vertex of each group: out row v = row index[v] of `values`.
 * @param values #W × width values per welded vertex
 * @param weld   the welding
 * @param width  values per row
 * @param out    #V × width, written
 * @returns out
 */
export function spreadWeldedRows<T extends Float64Array | Int32Array>(values: T, weld: WeldedVertices, width: number, out: T): T {
  const { index } = weld;
  for (let v = 0; v < index.length; v++) {
    const from = index[v] * width;
    const to = v * width;
    for (let k = 0; k < width; k++) out[to + k] = values[from + k];
  }
  return out;
}

/**
 * Handle labels per welded vertex: the label of the group's first member that is a handle (-1 when none is), so a
 * handle drawn on one side of a seam holds the whole welded vertex.
 * @param handles #V bone of each handle vertex, -1 for free vertices
 * @returns #W labels
 */
export function weldedHandles(handles: Int32Array, weld: WeldedVertices): Int32Array {
  const out = new Int32Array(weld.count).fill(-1);
  const { index } = weld;
  for (let v = 0; v < index.length; v++) if (out[index[v]] < 0) out[index[v]] = handles[v];
  return out;
}

/**
 * The welded vertices whose members are handles of different bones (weldedHandles keeps the first member's bone):
 * how many, and the lowest vertex of the first of them, to point the user at it.
 * @param handles #V bone of each handle vertex, -1 for free vertices
 * @returns count 0 and firstVertex -1 when no welded vertex joins different bones
 */
export function weldedHandleConflicts(handles: Int32Array, weld: WeldedVertices): { count: number; firstVertex: number } {
  const held = weldedHandles(handles, weld);
  const conflicting = new Uint8Array(weld.count);
  const { index } = weld;
  let count = 0;
  let firstVertex = -1;
  for (let v = 0; v < index.length; v++) {
    const w = index[v];
    if (handles[v] < 0 || handles[v] === held[w] || conflicting[w]) continue;
    conflicting[w] = 1;
    count++;
    const first = weld.representative[w];
    if (firstVertex < 0 || first < firstVertex) firstVertex = first;
  }
  return { count, firstVertex };
}

/** Union-find root with path halving. */
function find(root: Int32Array, v: number): number {
  while (root[v] !== v) v = root[v] = root[root[v]];
  return v;
}

/** Joins the groups of a and b; the smaller root stays the root, so every group's root is its lowest vertex. */
function union(root: Int32Array, a: number, b: number): void {
  const ra = find(root, a);
  const rb = find(root, b);
  if (ra < rb) root[rb] = ra;
  else if (rb < ra) root[ra] = rb;
}

/** Open hash table of vertices: bucket heads (a power of two at least 2·#V) and a next link per vertex. */
function hashTable(n: number): { head: Int32Array; next: Int32Array; mask: number } {
  let size = 1;
  while (size < 2 * n) size *= 2;
  return { head: new Int32Array(size).fill(-1), next: new Int32Array(n).fill(-1), mask: size - 1 };
}

function mix(x: number, y: number, z: number): number {
  return (Math.imul(x, HASH_X) ^ Math.imul(y, HASH_Y) ^ Math.imul(z, HASH_Z)) >>> 0;
}

/** Roots for welding vertices at exactly equal positions, hashed by the bits of their coordinates. */
function exactRoots(positions: Float64Array, n: number): WeldRoots {
  const root = new Int32Array(n);
  let count = n;
  const { head, next, mask } = hashTable(n);
  // The coordinates' 32-bit halves, read in place (a Float64Array's offset is a multiple of 8).
  const words = new Int32Array(positions.buffer, positions.byteOffset, 6 * n);
  for (let v = 0; v < n; v++) {
    root[v] = v;
    const x = positions[3 * v];
    const y = positions[3 * v + 1];
    const z = positions[3 * v + 2];
    // −0 and +0 are equal positions with different bits: both hash as 0.
    const hx = x === 0 ? 0 : words[6 * v] ^ words[6 * v + 1];
    const hy = y === 0 ? 0 : words[6 * v + 2] ^ words[6 * v + 3];
    const hz = z === 0 ? 0 : words[6 * v + 4] ^ words[6 * v + 5];
    const bucket = mix(hx, hy, hz) & mask;
    let u = head[bucket];
    while (u >= 0 && !(positions[3 * u] === x && positions[3 * u + 1] === y && positions[3 * u + 2] === z)) u = next[u];
    if (u >= 0) {
      root[v] = u; // u is the first vertex at this position, so its own root
      count--;
      continue;
    }
    next[v] = head[bucket];
    head[bucket] = v;
  }
  return { root, count };
}

/** Roots for welding vertices within `tolerance`: a hash grid of cells `tolerance` wide, 27 cells searched per vertex. */
function nearRoots(positions: Float64Array, n: number, tolerance: number): WeldRoots {
  const root = new Int32Array(n);
  const { head, next, mask } = hashTable(n);
  const inverse = 1 / tolerance;
  const t2 = tolerance * tolerance;
  for (let v = 0; v < n; v++) {
    root[v] = v;
    const x = positions[3 * v];
    const y = positions[3 * v + 1];
    const z = positions[3 * v + 2];
    const cx = Math.floor(x * inverse);
    const cy = Math.floor(y * inverse);
    const cz = Math.floor(z * inverse);
    for (let dx = -1; dx <= 1; dx++) {
      for (let dy = -1; dy <= 1; dy++) {
        for (let dz = -1; dz <= 1; dz++) {
          const bucket = mix(cx + dx, cy + dy, cz + dz) & mask;
          for (let u = head[bucket]; u >= 0; u = next[u]) {
            // Other cells share the bucket: the distance alone decides (a vertex of a far cell is never within it).
            const ex = positions[3 * u] - x;
            const ey = positions[3 * u + 1] - y;
            const ez = positions[3 * u + 2] - z;
            if (ex * ex + ey * ey + ez * ez <= t2) union(root, u, v);
          }
        }
      }
    }
    const bucket = mix(cx, cy, cz) & mask;
    next[v] = head[bucket];
    head[bucket] = v;
  }
  let count = 0;
  for (let v = 0; v < n; v++) if (find(root, v) === v) count++;
  return { root, count };
}

/** Triangles on welded indices, those with two corners in one welded vertex left out. */
function weldTriangles(triangles: Uint32Array, index: Int32Array, n: number): Uint32Array {
  const faceCount = Math.floor(triangles.length / 3);
  const out = new Uint32Array(3 * faceCount);
  let kept = 0;
  for (let f = 0; f < faceCount; f++) {
    const a = triangles[3 * f];
    const b = triangles[3 * f + 1];
    const c = triangles[3 * f + 2];
    if (a >= n || b >= n || c >= n) throw new RangeError(`weldVertices: face ${f} names a vertex outside [0, ${n})`);
    const wa = index[a];
    const wb = index[b];
    const wc = index[c];
    if (wa === wb || wb === wc || wa === wc) continue;
    out[3 * kept] = wa;
    out[3 * kept + 1] = wb;
    out[3 * kept + 2] = wc;
    kept++;
  }
  return kept === faceCount ? out : out.slice(0, 3 * kept);
}
