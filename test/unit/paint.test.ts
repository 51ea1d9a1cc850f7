import { test } from 'node:test';
import assert from 'node:assert/strict';
import { brushFalloff, type BrushFalloff } from '../../workers/paint/brush-falloff.ts';
import { createVertexGrid, moveGridVertices, queryVertexGrid } from '../../workers/paint/vertex-grid.ts';
import { vertexOneRing } from '../../workers/paint/vertex-one-ring.ts';
import { applyDab, type Dab, type DabMode } from '../../workers/paint/apply-dab.ts';
import { enforceWeightInvariants } from '../../workers/paint/enforce-weight-invariants.ts';
import type { PaintSettings, PaintWeights } from '../../workers/paint/paint-weights.ts';
import { createPaintContext, paintDab } from '../../workers/paint/paint-dab.ts';
import { smoothBoneWeights } from '../../workers/paint/smooth-bone-weights.ts';
import { normalizeAllWeights } from '../../workers/paint/normalize-all-weights.ts';
import { limitTotalInfluences } from '../../workers/paint/limit-total-influences.ts';
import { pruneSmallWeights } from '../../workers/paint/prune-small-weights.ts';
import { closestPointOnTriangle } from '../../workers/paint/closest-point-on-triangle.ts';
import { mirrorVertexMap } from '../../workers/paint/mirror-vertex-map.ts';
import { mirrorWeights } from '../../workers/paint/mirror-weights.ts';
import { mirrorBonePairs } from '../../workers/paint/mirror-bone-pairs.ts';
import { mirroredName } from '../../workers/rig/side-names.ts';
import { beginStroke, cancelStroke, createPaintHistory, endStroke, recordRows } from '../../workers/paint/paint-history.ts';
import { harmonicWeights } from '../../workers/weights/harmonic-weights.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { readTgf } from '../../workers/formats/tgf.ts';
import { seededRandom } from './seeded-random.ts';
import { readFileSync } from 'node:fs';
import { PaintSession } from '../../renderer/paint/paint-session.ts';
import { gatherDab } from '../../workers/paint/paint-dab.ts';
import { dataFile } from './shared-data.ts';

/** An open tube along `axis`: `rings` rings of `segments` vertices, ring r at coordinate along(r). */
function tube(segments: number, rings: number, along: (r: number) => number, radius = 1, axis: 0 | 2 = 2) {
  const positions = new Float64Array(segments * rings * 3);
  for (let r = 0; r < rings; r++) {
    for (let s = 0; s < segments; s++) {
      const a = (2 * Math.PI * s) / segments;
      const p = [radius * Math.cos(a), radius * Math.sin(a), along(r)];
      if (axis === 0) p.unshift(p.pop()!);
      positions.set(p, 3 * (r * segments + s));
    }
  }
  const triangles: number[] = [];
  for (let r = 0; r + 1 < rings; r++) {
    for (let s = 0; s < segments; s++) {
      const a = r * segments + s,
        b = r * segments + ((s + 1) % segments);
      triangles.push(a, b, b + segments, a, b + segments, a + segments);
    }
  }
  return { positions, triangles: Uint32Array.from(triangles) };
}

function settings(boneCount: number, lockedBones: number[] = [], maxInfluences = 4): PaintSettings {
  const locked = new Uint8Array(boneCount);
  for (const b of lockedBones) locked[b] = 1;
  return { locked, maxInfluences };
}

function weightsOf(rows: number[][]): PaintWeights {
  return { vertexCount: rows.length, boneCount: rows[0].length, data: Float32Array.from(rows.flat()) };
}

/** Inputs pass through float32, so hand-derived values hold to float32 round-off. */
function assertWeights(actual: Float32Array, expected: number[]): void {
  assert.equal(actual.length, expected.length);
  expected.forEach((x, i) => assert.ok(Math.abs(actual[i] - x) < 1e-7, `entry ${i}: ${actual[i]}, expected ${x}`));
}

const dab = (over: Partial<Dab>): Dab => ({
  centre: [0, 0, 0],
  radius: 1,
  strength: 1,
  falloff: 'constant',
  mode: 'add',
  value: 0,
  ...over,
});

test('falloff profiles: end values, midpoint, monotone, continuous', () => {
  const expected: Record<BrushFalloff, [number, number, number]> = { smooth: [1, 0.5, 0], linear: [1, 0.5, 0], constant: [1, 1, 1] };
  for (const [falloff, [at0, atHalf, at1]] of Object.entries(expected) as [BrushFalloff, number[]][]) {
    assert.equal(brushFalloff(falloff, 0), at0);
    assert.equal(brushFalloff(falloff, 0.5), atHalf);
    assert.equal(brushFalloff(falloff, 1), at1);
    assert.equal(brushFalloff(falloff, 1.0001), 0, `${falloff} is zero outside the brush`);
    assert.equal(brushFalloff(falloff, NaN), 0);
    let previous = brushFalloff(falloff, 0);
    const h = 1e-4;
    for (let i = 1; i <= 10000; i++) {
      const f = brushFalloff(falloff, i * h);
      assert.ok(f <= previous, `${falloff} increases at ${i * h}`);
      if (falloff !== 'constant') assert.ok(previous - f <= 1.5 * 1.5 * h + 1e-12, `${falloff} jumps at ${i * h}`);
      previous = f;
    }
  }
  // The smooth profile has zero slope at both ends (blends in without a crease): f(h) ≈ 1 − 3h², f(1 − h) ≈ 3h².
  assert.ok(Math.abs(brushFalloff('smooth', 1e-3) - (1 - 3e-6)) < 1e-8, 'the smooth falloff near 0 is 1 − 3h² (within 1e-8)');
  assert.ok(Math.abs(brushFalloff('smooth', 1 - 1e-3) - 3e-6) < 1e-8, 'the smooth falloff near 1 is 3h² (within 1e-8)');
});

test('grid query returns exactly the vertices within the radius (brute force)', () => {
  const rand = seededRandom(1);
  const n = 5000;
  const positions = new Float64Array(3 * n);
  for (let i = 0; i < 3 * n; i++) positions[i] = rand() * (i % 3 === 1 ? 4 : 1);
  const grid = createVertexGrid(positions);
  const indices = new Uint32Array(n);
  const distances = new Float64Array(n);
  for (let q = 0; q < 50; q++) {
    const c = [rand() * 1.2 - 0.1, rand() * 4.4 - 0.2, rand() * 1.2 - 0.1];
    const radius = rand() * 0.4;
    const count = queryVertexGrid(grid, c[0], c[1], c[2], radius, indices, distances);
    const expected: number[] = [];
    for (let v = 0; v < n; v++)
      if (Math.hypot(positions[3 * v] - c[0], positions[3 * v + 1] - c[1], positions[3 * v + 2] - c[2]) <= radius) expected.push(v);
    assert.deepEqual(
      [...indices.subarray(0, count)].sort((a, b) => a - b),
      expected,
    );
    for (let i = 0; i < count; i++) {
      const v = indices[i];
      assert.ok(
        Math.abs(distances[i] - Math.hypot(positions[3 * v] - c[0], positions[3 * v + 1] - c[1], positions[3 * v + 2] - c[2])) < 1e-12,
        `vertex ${v}: the reported distance is its distance to the centre (within 1e-12)`,
      );
    }
    // A too small output reports the full count without writing past its end.
    if (count > 2) assert.equal(queryVertexGrid(grid, c[0], c[1], c[2], radius, new Uint32Array(2), new Float64Array(2)), count);
  }
});

test('grid queries stay exact after moving vertices out of their cells, and a move past the slack limit is refused', () => {
  const rand = seededRandom(7);
  const n = 4000;
  const positions = new Float64Array(3 * n);
  for (let i = 0; i < 3 * n; i++) positions[i] = rand() * 2;
  const grid = createVertexGrid(positions);
  // A third of the vertices move by up to half a cell along each axis, so many leave their cells.
  const moved: number[] = [];
  for (let v = 0; v < n; v += 3) {
    moved.push(v);
    for (let a = 0; a < 3; a++) positions[3 * v + a] += (rand() - 0.5) * grid.cellSize;
  }
  assert.equal(moveGridVertices(grid, positions, Uint32Array.from(moved), moved.length), true);
  assert.ok(grid.slack > 0.2 * grid.cellSize && grid.slack <= 0.5 * grid.cellSize, `slack ${grid.slack}`);
  const indices = new Uint32Array(n);
  const distances = new Float64Array(n);
  for (let q = 0; q < 60; q++) {
    const c = [rand() * 2.2 - 0.1, rand() * 2.2 - 0.1, rand() * 2.2 - 0.1];
    const radius = rand() * 0.3;
    const count = queryVertexGrid(grid, c[0], c[1], c[2], radius, indices, distances);
    const expected: number[] = [];
    for (let v = 0; v < n; v++)
      if (Math.hypot(positions[3 * v] - c[0], positions[3 * v + 1] - c[1], positions[3 * v + 2] - c[2]) <= radius) expected.push(v);
    assert.deepEqual(
      [...indices.subarray(0, count)].sort((a, b) => a - b),
      expected,
    );
  }
  // Moving one vertex three cells away exceeds the default limit (one cell): refused, nothing changes.
  const before = { slack: grid.slack, sorted: grid.sortedPositions.slice() };
  positions[0] += 3 * grid.cellSize;
  assert.equal(moveGridVertices(grid, positions, [0], 1), false);
  assert.equal(grid.slack, before.slack);
  assert.deepEqual(grid.sortedPositions, before.sorted);
  positions[3] = NaN;
  assert.throws(() => moveGridVertices(grid, positions, [1], 1), /vertex 1 has a non-finite coordinate/);
});

test('dab modes and the invariants on hand-derived rows', () => {
  const one = Uint32Array.of(0);
  const at0 = Float64Array.of(0);
  // Locked bone 0 holds 0.2; bone 3 is painted to 0.3, bones 1 and 2 share the rest 0.5 in their ratio 1:1.
  let w = weightsOf([[0.2, 0.4, 0.4, 0]]);
  applyDab(w, 3, dab({ strength: 0.3 }), one, at0, 1, settings(4, [0]));
  assertWeights(w.data, [0.2, 0.25, 0.25, 0.3]);
  // Influence limit 2: bone 0 painted to 0.2 keeps its value and the largest other bone takes the rest.
  w = weightsOf([[0.1, 0.2, 0.3, 0.4]]);
  applyDab(w, 0, dab({ strength: 0.1 }), one, at0, 1, settings(4, [], 2));
  assertWeights(w.data, [0.2, 0, 0, 0.8]);
  // Subtracting from a vertex bound to the painted bone alone: the weight has nowhere to go and stays 1.
  w = weightsOf([[1, 0, 0]]);
  applyDab(w, 0, dab({ mode: 'subtract', strength: 0.5 }), one, at0, 1, settings(3));
  assert.deepEqual([...w.data], [1, 0, 0]);
  // Set 0.6 at strength 0.5 with linear falloff at distance 0.5: 0.2 + 0.25·(0.6 − 0.2) = 0.3; the other bone 0.7.
  w = weightsOf([[0.2, 0.8]]);
  const sampled = applyDab(
    w,
    0,
    dab({ mode: 'set', value: 0.6, strength: 0.5, falloff: 'linear' }),
    one,
    Float64Array.of(0.5),
    1,
    settings(2),
  );
  assert.equal(sampled, Math.fround(0.2));
  assertWeights(w.data, [0.3, 0.7]);
  // Sample changes nothing; painting a locked bone changes nothing.
  const before = Float32Array.from(w.data);
  applyDab(w, 0, dab({ mode: 'sample' }), one, at0, 1, settings(2));
  applyDab(w, 1, dab({ strength: 1 }), one, at0, 1, settings(2, [1]));
  assert.deepEqual(w.data, before);
  // Whole-mesh commands: normalize, limit, prune.
  w = weightsOf([
    [0.2, 0.2, 0.4, 0.2],
    [0.3, 0.01, 0.3, 0.01],
  ]);
  assert.equal(normalizeAllWeights(w, settings(4, [0])), 0);
  const normalized = [0.2, 0.2, 0.4, 0.2, 0.3, (0.7 * 0.01) / 0.32, (0.7 * 0.3) / 0.32, (0.7 * 0.01) / 0.32];
  normalized.forEach((x, i) => assert.ok(Math.abs(w.data[i] - x) < 1e-7, `entry ${i}: ${w.data[i]} vs ${x}`));
  w = weightsOf([[0.1, 0.2, 0.3, 0.4]]);
  limitTotalInfluences(w, settings(4, [], 2));
  assertWeights(w.data, [0, 0, 0.3 / 0.7, 0.4 / 0.7]);
  w = weightsOf([
    [0.05, 0.15, 0.8],
    [0.5, 0.5, 0],
  ]);
  assert.equal(pruneSmallWeights(w, 0.1, settings(3)), 1);
  assertWeights(w.data, [0, 0.15 / 0.95, 0.8 / 0.95, 0.5, 0.5, 0]);
  // Locked weights over 1 cannot be repaired and are reported.
  w = weightsOf([[0.7, 0.6, 0.1]]);
  assert.equal(enforceWeightInvariants(w, [0], 1, -1, settings(3, [0, 1])), 1);
  assertWeights(w.data, [0.7, 0.6, 0]);
});

test('random dabs keep every row normalized, locked columns bit for bit, at most K influences', () => {
  const rand = seededRandom(7);
  const mesh = tube(24, 40, (r) => r * 0.25);
  const n = mesh.positions.length / 3;
  const nb = 12;
  const K = 4;
  const lockedBones = [2, 7];
  const paint = settings(nb, lockedBones, K);
  const w: PaintWeights = { vertexCount: n, boneCount: nb, data: new Float32Array(n * nb) };
  for (let v = 0; v < n; v++) {
    // Locked part in [0, 0.6), then K − 2 random unlocked bones share the rest.
    w.data[v * nb + 2] = rand() < 0.5 ? rand() * 0.3 : 0;
    w.data[v * nb + 7] = rand() < 0.5 ? rand() * 0.3 : 0;
    for (let k = 0; k < K - 2; k++) {
      let b: number;
      do b = Math.floor(rand() * nb);
      while (lockedBones.includes(b));
      w.data[v * nb + b] += rand();
    }
  }
  normalizeAllWeights(w, paint);
  const lockedBefore = lockedBones.map((b) => Array.from({ length: n }, (_, v) => w.data[v * nb + b]));
  const context = createPaintContext(w, createVertexGrid(mesh.positions), vertexOneRing(n, mesh.triangles), paint, null, null, 16);
  const modes: DabMode[] = ['add', 'subtract', 'set', 'smooth', 'sample'];
  const falloffs: BrushFalloff[] = ['smooth', 'linear', 'constant'];
  for (let i = 0; i < 300; i++) {
    const v = Math.floor(rand() * n);
    paintDab(context, Math.floor(rand() * nb), {
      centre: mesh.positions.subarray(3 * v, 3 * v + 3),
      radius: 0.2 + rand() * 1.5,
      strength: rand(),
      falloff: falloffs[i % 3],
      mode: modes[Math.floor(rand() * modes.length)],
      value: rand(),
    });
  }
  for (let v = 0; v < n; v++) {
    let sum = 0;
    let nonZero = 0;
    for (let b = 0; b < nb; b++) {
      const x = w.data[v * nb + b];
      assert.ok(x >= 0 && x <= 1, `vertex ${v} bone ${b} weight ${x}`);
      sum += x;
      if (x !== 0) nonZero++;
    }
    assert.ok(Math.abs(sum - 1) < 1e-6, `vertex ${v} sums to ${sum}`);
    assert.ok(nonZero <= K, `vertex ${v} has ${nonZero} influences`);
    lockedBones.forEach((b, i) => assert.ok(Object.is(w.data[v * nb + b], lockedBefore[i][v]), `locked bone ${b} changed at vertex ${v}`));
  }
});

test('smoothing converges toward the harmonic weights of the same handles', () => {
  const rings = 24,
    segments = 12;
  const mesh = tube(segments, rings, (r) => r * 0.3);
  const n = mesh.positions.length / 3;
  const handles = new Int32Array(n).fill(-1);
  for (let s = 0; s < segments; s++) {
    handles[s] = 0;
    handles[(rings - 1) * segments + s] = 1;
  }
  const harmonic = harmonicWeights(mesh.positions, mesh.triangles, handles, 2, { laplacian: 'uniform' }).weights;
  const rand = seededRandom(3);
  const w: PaintWeights = { vertexCount: n, boneCount: 2, data: new Float32Array(2 * n) };
  const free = new Uint8Array(n);
  for (let v = 0; v < n; v++) {
    const w0 = handles[v] === 0 ? 1 : handles[v] === 1 ? 0 : 0.1 + 0.8 * rand();
    w.data[2 * v] = w0;
    w.data[2 * v + 1] = 1 - w0;
    free[v] = handles[v] < 0 ? 1 : 0;
  }
  const oneRing = vertexOneRing(n, mesh.triangles);
  const error = () => {
    let e = 0;
    for (let v = 0; v < n; v++) e = Math.max(e, Math.abs(w.data[2 * v] - harmonic[2 * v]));
    return e;
  };
  const errors = [error()];
  for (const iterations of [10, 100, 1000, 4000]) {
    smoothBoneWeights(w, 0, oneRing, iterations, 1, free, settings(2));
    errors.push(error());
  }
  for (let i = 1; i < errors.length; i++)
    assert.ok(errors[i] < errors[i - 1], `error ${errors[i]} after more iterations is not below ${errors[i - 1]}`);
  assert.ok(errors.at(-1)! < 1e-3, `final error ${errors.at(-1)}`);
  for (let v = 0; v < n; v++)
    assert.ok(Math.abs(w.data[2 * v] + w.data[2 * v + 1] - 1) < 1e-6, `vertex ${v}: its two weights sum to 1 (within 1e-6)`);
});

test('closest point on a triangle agrees with dense sampling', () => {
  const rand = seededRandom(11);
  const out = new Float64Array(3);
  for (let trial = 0; trial < 200; trial++) {
    const x = new Float64Array(9);
    for (let i = 0; i < 9; i++) x[i] = rand() * 2 - 1;
    if (trial % 20 === 0) x.set(x.subarray(0, 3), 6); // degenerate: two corners coincide
    const p = [rand() * 4 - 2, rand() * 4 - 2, rand() * 4 - 2];
    const d2 = closestPointOnTriangle(p, 0, x, 0, 1, 2, out, 0);
    assert.ok(
      Math.abs(out[0] + out[1] + out[2] - 1) < 1e-12 && out.every((b) => b >= -1e-12),
      'the barycentric coordinates sum to 1 and are not negative',
    );
    const q = [0, 1, 2].map((k) => out[0] * x[k] + out[1] * x[3 + k] + out[2] * x[6 + k]);
    assert.ok(
      Math.abs(Math.hypot(q[0] - p[0], q[1] - p[1], q[2] - p[2]) ** 2 - d2) < 1e-9,
      'the squared distance is that to the point at the barycentric coordinates',
    );
    let sampled = Infinity;
    const steps = 60;
    for (let i = 0; i <= steps; i++) {
      for (let j = 0; i + j <= steps; j++) {
        const u = i / steps,
          v = j / steps,
          w = 1 - u - v;
        const s = [0, 1, 2].map((k) => u * x[k] + v * x[3 + k] + w * x[6 + k]);
        sampled = Math.min(sampled, Math.hypot(s[0] - p[0], s[1] - p[1], s[2] - p[2]));
      }
    }
    assert.ok(Math.sqrt(d2) <= sampled + 1e-12, 'closest point is not closer than every sample');
    assert.ok(sampled - Math.sqrt(d2) < 0.05, `closest point ${Math.sqrt(d2)} far below the sampled ${sampled}`);
  }
});

test('mirror matching on an asymmetric tube finds the partners and flags the bump', () => {
  const segments = 32,
    rings = 21;
  const mesh = tube(segments, rings, (r) => (r - 10) * 0.1, 1, 0);
  const n = mesh.positions.length / 3;
  const rand = seededRandom(5);
  const jitter = 0.004;
  for (let v = 0; v < n; v++) {
    if (mesh.positions[3 * v] <= 0) continue;
    for (let k = 0; k < 3; k++) mesh.positions[3 * v + k] += (rand() * 2 - 1) * jitter;
  }
  // A bump on the +x side: ring 16–17, segments 4–6 pushed outwards by 0.3.
  const bump = new Set<number>();
  for (let r = 16; r <= 17; r++) {
    for (let s = 4; s <= 6; s++) {
      const v = r * segments + s;
      bump.add(v);
      const a = (2 * Math.PI * s) / segments;
      mesh.positions[3 * v + 1] += 0.3 * Math.cos(a);
      mesh.positions[3 * v + 2] += 0.3 * Math.sin(a);
    }
  }
  const map = mirrorVertexMap(mesh.positions, mesh.triangles, 0, 0.03);
  const flagged = new Set(map.unmatched);
  const mirrorOf = (v: number) => (rings - 1 - Math.floor(v / segments)) * segments + (v % segments);
  for (const v of bump) {
    assert.ok(flagged.has(v), `bump vertex ${v} is matched`);
    assert.ok(flagged.has(mirrorOf(v)), `mirror ${mirrorOf(v)} of bump vertex ${v} is matched`);
  }
  const nearBump = (v: number) => {
    const r = Math.floor(v / segments),
      s = v % segments;
    const rr = Math.min(r, rings - 1 - r);
    return rr >= 2 && rr <= 5 && s >= 2 && s <= 8;
  };
  for (let v = 0; v < n; v++) {
    if (nearBump(v)) continue;
    assert.ok(!flagged.has(v), `vertex ${v} away from the bump is flagged (distance ${map.distance[v]})`);
    assert.equal(map.partner[v], mirrorOf(v), `vertex ${v}`);
    assert.ok(map.distance[v] < 3 * jitter, `vertex ${v}: its partner is within 3 × the jitter`);
  }

  // Mirroring weights: bone 0 on the +x half, bone 1 on the −x half, paired with each other; a centre bone 2.
  const w: PaintWeights = { vertexCount: n, boneCount: 3, data: new Float32Array(3 * n) };
  for (let v = 0; v < n; v++) {
    const x = mesh.positions[3 * v];
    const t = Math.min(Math.max(x + 0.5, 0), 1);
    w.data.set(x > 0 ? [t * 0.5, 0, 1 - t * 0.5] : [0, 0.3, 0.7], 3 * v);
  }
  const written = mirrorWeights(w, mesh.positions, mesh.triangles, map, Int32Array.of(1, 0, 2), 0, -1, settings(3));
  assert.ok(written.length > 0, 'mirroring writes some vertices');
  for (const v of written) {
    assert.ok(mesh.positions[3 * v] < 0, `vertex ${v}: mirroring writes only the −x side`);
    // Triangles straddling the plane also read −x vertices, whose bone 1 lands on bone 0: look away from it.
    if (mesh.positions[3 * v] > -0.15) continue;
    const m = mirrorOf(v);
    // The partner's bone 0 weight arrives on bone 1 (interpolated near the partner, so within the jitter's effect).
    assert.ok(Math.abs(w.data[3 * v + 1] - w.data[3 * m]) < 0.02, `vertex ${v}: ${w.data[3 * v + 1]} vs ${w.data[3 * m]}`);
    assert.equal(w.data[3 * v], 0);
    assert.ok(
      Math.abs(w.data[3 * v] + w.data[3 * v + 1] + w.data[3 * v + 2] - 1) < 1e-6,
      `vertex ${v}: the mirrored weights sum to 1 (within 1e-6)`,
    );
  }
});

test('symmetry painting repeats each dab on the mirror partners and the paired bone, keeping mirrored weights mirrored', () => {
  const segments = 24,
    rings = 21;
  const mesh = tube(segments, rings, (r) => (r - 10) * 0.1, 1, 0);
  const n = mesh.positions.length / 3;
  const mirrorOf = (v: number) => (rings - 1 - Math.floor(v / segments)) * segments + (v % segments);
  const map = mirrorVertexMap(mesh.positions, mesh.triangles, 0, 0.01);
  for (let v = 0; v < n; v++) assert.equal(map.partner[v], mirrorOf(v));
  // Bone 0 rules +x, bone 1 (its pair) −x, bone 2 sits on the plane; the start is mirror-symmetric.
  const w: PaintWeights = { vertexCount: n, boneCount: 3, data: new Float32Array(3 * n) };
  for (let v = 0; v < n; v++) {
    const x = mesh.positions[3 * v];
    const a = Math.min(Math.abs(x), 1) * 0.8;
    w.data.set(x > 0 ? [a, 0, 1 - a] : [0, a, 1 - a], 3 * v);
  }
  const history = createPaintHistory(w);
  const before = Float32Array.from(w.data);
  const context = createPaintContext(w, createVertexGrid(mesh.positions), vertexOneRing(n, mesh.triangles), settings(3), history, {
    axis: 0,
    bonePairs: Int32Array.of(1, 0, 2),
    partner: map.partner,
  });
  beginStroke(history);
  const painted = new Set<number>();
  for (let d = 0; d < 5; d++) {
    const bone = d === 3 ? 1 : 0;
    const x = bone === 0 ? 0.3 + 0.1 * d : -0.5;
    // Dabs stay off the plane: one crossing it paints a vertex and its partner in opposite orders, which the
    // renormalization does not commute with.
    paintDab(context, bone, {
      centre: [x, Math.cos(0.3 * d), Math.sin(0.3 * d)],
      radius: 0.25,
      strength: 0.3,
      falloff: 'smooth',
      mode: d === 4 ? 'subtract' : 'add',
      value: 0,
    });
    assert.ok(context.count > 0 && context.mirroredCount === context.count, 'every gathered vertex has one partner');
    for (let i = 0; i < context.count; i++) painted.add(context.indices[i]);
  }
  const recorded = new Set(endStroke(history));
  assert.ok(painted.size > 20, 'the stroke paints more than 20 vertices');
  let changedMirrored = 0;
  for (let v = 0; v < n; v++) {
    const m = mirrorOf(v);
    if (w.data[3 * m + 1] !== before[3 * m + 1]) changedMirrored++;
    assert.ok(
      Math.abs(w.data[3 * v] - w.data[3 * m + 1]) < 1e-6,
      `vertex ${v}: bone 0 ${w.data[3 * v]}, mirror's bone 1 ${w.data[3 * m + 1]}`,
    );
    assert.ok(Math.abs(w.data[3 * v + 2] - w.data[3 * m + 2]) < 1e-6, `vertex ${v}: bone 2`);
    assert.ok(
      Math.abs(w.data[3 * v] + w.data[3 * v + 1] + w.data[3 * v + 2] - 1) < 1e-6,
      `vertex ${v}: its weights sum to 1 (within 1e-6)`,
    );
  }
  assert.ok(changedMirrored >= painted.size * 0.5, 'the mirrored side changed');
  // The stroke's record holds both sides, each vertex once: putting its rows back takes back both.
  for (const v of painted) assert.ok(recorded.has(v) && recorded.has(mirrorOf(v)), `vertex ${v} and its partner were recorded`);
  assert.equal(recorded.size, new Set([...recorded]).size);
  const mirroredStroke = Float32Array.from(w.data);
  beginStroke(history);
  paintDab(context, 0, { centre: [0.4, 1, 0], radius: 0.25, strength: 0.3, falloff: 'smooth', mode: 'add', value: 0 });
  assert.ok(context.mirroredCount > 0, 'the dab is mirrored onto some vertices');
  assert.notDeepEqual(w.data, mirroredStroke);
  cancelStroke(history);
  assert.deepEqual(w.data, mirroredStroke);
  assert.notDeepEqual(mirroredStroke, before);
});

test('a paint session hands each changed vertex once to the views and the surface; an edit ends with the document rows before and after', () => {
  const mesh = tube(16, 11, (r) => (r - 5) * 0.2);
  const n = mesh.positions.length / 3;
  const skeleton = buildSkeleton(readTgf('1 0 0 -1\n2 0 0 0\n3 0 0 1\n#\n1 2\n2 3\n#\n', 'two.tgf'), 'two.tgf');
  const dense = { rows: n, cols: 2, data: new Float64Array(2 * n) };
  for (let v = 0; v < n; v++) dense.data.set([0.7, 0.3], 2 * v);
  const session = new PaintSession(dense, mesh.positions, mesh.triangles, skeleton, null, 3);
  const start = dense.data.slice();
  session.context.grid = createVertexGrid(mesh.positions);
  session.beginStroke();
  const gathered = new Set<number>();
  for (const z of [-0.2, 0, 0.2]) {
    const d = dab({ centre: [1, 0, z], radius: 0.6, strength: 0.2, falloff: 'smooth' });
    gatherDab(session.context, d);
    for (let i = 0; i < session.context.count; i++) gathered.add(session.context.indices[i]);
    session.dab(1, d);
  }
  assert.ok(gathered.size > 10 && gathered.size < n / 2, `${gathered.size} gathered`);
  // The views get each changed vertex once; the document waits for the stroke's end.
  const dirty = session.takeDirty();
  assert.deepEqual(new Set(dirty.vertices.subarray(0, dirty.count)), gathered);
  assert.equal(dirty.count, gathered.size);
  assert.equal(session.hasDirty, false);
  assert.deepEqual(dense.data, start);
  const edit = session.endStroke()!;
  assert.deepEqual(new Set(edit.vertices), gathered);
  // The stroke's rows hold the paint buffer's values; the rest are untouched.
  for (let i = 0; i < 2 * n; i++) assert.equal(dense.data[i], gathered.has(Math.floor(i / 2)) ? session.weights.data[i] : start[i]);
  assert.ok(
    dense.data.some((w, i) => w !== start[i]),
    'the stroke reached the document',
  );
  // Rows the stroke never touched keep the document's own float64 values (0.7 is not a float32).
  const untouched = [...Array(n).keys()].find((v) => !gathered.has(v))!;
  assert.equal(dense.data[2 * untouched], 0.7);
  // "Before" is the document's own rows, so putting them back is exact; "after" puts the stroke back.
  for (let i = 0; i < edit.vertices.length; i++) assert.deepEqual([...edit.before.subarray(2 * i, 2 * i + 2)], [0.7, 0.3]);
  // The surface's list is its own, and empties when taken.
  const moved = session.takeMoved();
  assert.deepEqual(new Set(moved.vertices.subarray(0, moved.count)), gathered);
  assert.equal(session.takeMoved().count, 0);
  const painted = dense.data.slice();
  session.setRows(edit.vertices, edit.before);
  assert.deepEqual(dense.data, start);
  assert.equal(session.takeDirty().count, gathered.size);
  session.setRows(edit.vertices, edit.after);
  assert.deepEqual(dense.data, painted);
  // A whole-mesh command lists only the rows it changed: pruning below 0.5 leaves each row with the larger bone.
  const small = (x: number) => x > 0 && x < 0.5;
  const prune = session.prune(0.5)!;
  const expected = [...Array(n).keys()].filter((v) => small(painted[2 * v]) || small(painted[2 * v + 1]));
  assert.ok(expected.length > 0, 'some vertices have small weights to prune (precondition)');
  assert.deepEqual([...prune.vertices], expected);
  for (const v of expected)
    assert.deepEqual([dense.data[2 * v], dense.data[2 * v + 1]], painted[2 * v] > painted[2 * v + 1] ? [1, 0] : [0, 1]);
  assert.equal(session.prune(0.5), null, 'a second prune changes nothing');
});

test('bone pairs by name and by mirrored joint positions', () => {
  const cases: [string, string | null][] = [
    ['arm.L', 'arm.R'],
    ['hand_l', 'hand_r'],
    ['hand_R', 'hand_L'],
    ['l_foot', 'r_foot'],
    ['LeftLeg', 'RightLeg'],
    ['mixamorig:RightHand', 'mixamorig:LeftHand'],
    ['Leg Left', 'Leg Right'],
    ['thighL', 'thighR'],
    ['LArm', 'RArm'],
    ['spine', null],
    ['Lower', null],
    ['Root', null],
    ['pelvis', null],
  ];
  for (const [name, mirrored] of cases) assert.equal(mirroredName(name), mirrored, name);

  // spine, left arm, right arm, left forearm, right forearm (slightly off), an extra bone with no mirror image.
  const joints = Float64Array.of(0, 0, 0, 0, 1, 0, 0.5, 1, 0, -0.5, 1, 0, 1, 1, 0.1, -1.01, 1, 0.1, 2, 3, 4);
  const bones = Uint32Array.of(0, 1, 1, 2, 1, 3, 2, 4, 3, 5, 4, 6);
  const skeleton = buildSkeleton({ joints, bones }, 'test.tgf');
  assert.deepEqual([...mirrorBonePairs(null, skeleton, 0, 0.05)], [0, 2, 1, 4, 3, -1]);
  // Names win over positions; a side name without its partner falls back to positions.
  const names = ['spine', 'arm.R', 'arm.L', 'forearm.L', 'forearm_r', 'ear.L'];
  assert.deepEqual([...mirrorBonePairs(names, skeleton, 0, 0.05)], [0, 2, 1, 4, 3, -1]);
  // Mirrored across z instead, nothing but the spine (on the plane z = 0) maps onto a bone.
  assert.deepEqual([...mirrorBonePairs(null, skeleton, 2, 0.05)], [0, 1, 2, -1, -1, -1]);

  // The context-aware body, a hand-placed humanoid rig, with the default tolerance: its spine joints sit up to
  // 0.006 off the plane and its arms pair within 0.015. Every bone pairs; x-centred bones with themselves, the
  // others with a bone on the other side whose joints mirror theirs.
  const body = buildSkeleton(readTgf(readFileSync(dataFile('context-aware', 'skeleton.tgf'), 'utf8'), 'skeleton.tgf'), 'skeleton.tgf');
  const pairs = mirrorBonePairs(null, body, 0);
  for (let b = 0; b < pairs.length; b++) {
    const [s, e] = [body.bones[2 * b], body.bones[2 * b + 1]];
    const centred = Math.abs(body.joints[3 * s]) < 0.01 && Math.abs(body.joints[3 * e]) < 0.01;
    assert.equal(pairs[pairs[b]], b, `bone ${b} ↔ ${pairs[b]} is mutual`);
    if (centred) assert.equal(pairs[b], b, `centre bone ${b}`);
    else
      assert.ok(
        pairs[b] !== b && Math.sign(body.joints[3 * body.bones[2 * pairs[b] + 1]]) === -Math.sign(body.joints[3 * e]),
        `bone ${b} pairs across the plane`,
      );
  }
});

test('a stroke record lists each changed row once; cancelling puts every row back bit for bit', () => {
  const mesh = tube(16, 20, (r) => r * 0.3);
  const n = mesh.positions.length / 3;
  const nb = 5;
  const rand = seededRandom(9);
  const w: PaintWeights = { vertexCount: n, boneCount: nb, data: new Float32Array(n * nb) };
  for (let i = 0; i < w.data.length; i++) w.data[i] = rand();
  normalizeAllWeights(w, settings(nb));
  const history = createPaintHistory(w);
  const context = createPaintContext(w, createVertexGrid(mesh.positions), vertexOneRing(n, mesh.triangles), settings(nb, [3]), history, {
    axis: 0,
    bonePairs: Int32Array.of(1, 0, 2, 3, 4),
    partner: mirrorVertexMap(mesh.positions, mesh.triangles, 0, 0.01).partner,
  });
  const bits = (a: Float32Array) => new Uint32Array(a.buffer.slice(0));
  for (let stroke = 0; stroke < 3; stroke++) {
    const before = Float32Array.from(w.data);
    beginStroke(history);
    for (let d = 0; d < 6; d++) {
      paintDab(context, stroke, {
        centre: [0.5, 0, (0.3 * (stroke * 6 + d)) / 3],
        radius: 0.8,
        strength: 0.4,
        falloff: 'smooth',
        mode: stroke === 2 ? 'smooth' : 'add',
        value: 0,
      });
    }
    const changed = [...Array(n).keys()].filter((v) => before.subarray(v * nb, v * nb + nb).some((x, b) => x !== w.data[v * nb + b]));
    if (stroke < 2) {
      const recorded = endStroke(history);
      assert.equal(new Set(recorded).size, recorded.length, 'each row once');
      for (const v of changed) assert.ok(recorded.includes(v), `changed vertex ${v} is recorded`);
    } else {
      // Cancelled: every row, changed by any dab of the stroke, mirrored or not, is back bit for bit.
      assert.ok(changed.length > 10, 'the cancelled stroke changed more than 10 vertices');
      assert.ok(cancelStroke(history).length >= changed.length, 'cancelling restores at least every changed vertex');
      assert.deepEqual(bits(w.data), bits(before));
    }
  }
  // A stroke that changes nothing records nothing.
  beginStroke(history);
  assert.equal(endStroke(history).length, 0);
  assert.throws(() => endStroke(history), /no open stroke/);
  assert.throws(() => recordRows(history, [0], 1), /no open stroke/);
});

test('a stroke ends with the rows it changed: rows it recorded but kept (a locked bone), or put back, are left out', () => {
  const w: PaintWeights = { vertexCount: 4, boneCount: 2, data: Float32Array.of(1, 0, 0.5, 0.5, 0.25, 0.75, 0, 1) };
  const history = createPaintHistory(w);
  beginStroke(history);
  recordRows(history, [0, 1, 2, 3], 4);
  w.data[2] = 0.75; // row 1 changed
  w.data[3] = 0.25;
  w.data[5] = 0.5; // row 2 changed, then put back to its bits
  w.data[5] = 0.75;
  w.data[6] = -0; // row 3: -0 where 0 was is a different bit pattern, a change
  assert.deepEqual(Array.from(endStroke(history)), [1, 3], 'rows 1 and 3 changed; rows 0 and 2 are as saved');
  beginStroke(history);
  recordRows(history, null, 0);
  assert.equal(endStroke(history).length, 0, 'every row recorded, none changed: nothing to keep');
});
