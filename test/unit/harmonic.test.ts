import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { cotangentLaplacian, COTANGENT_BOUND } from '../../workers/mesh/cotangent-laplacian.ts';
import { uniformLaplacian } from '../../workers/mesh/uniform-laplacian.ts';
import { connectedComponents } from '../../workers/mesh/connected-components.ts';
import type { CscMatrix } from '../../workers/sparse/csc-matrix.ts';
import { cotangentFreeBlock, harmonicWeights, HARMONIC_WEIGHTS_DEFAULTS } from '../../workers/weights/harmonic-weights.ts';
import { kernelCotangentFreeBlock, LAPLACIAN_MODULE_BASE64, laplacianModuleBytes } from '../../workers/mesh/laplacian-kernel.ts';
import { boneCylinderHandles, jointDistanceHandles } from '../../workers/weights/automatic-handles.ts';
import { readOff } from '../../workers/formats/off.ts';
import { readObj } from '../../workers/formats/obj.ts';
import { readDmat } from '../../workers/formats/dmat.ts';
import { handlesFromDmat } from '../../workers/formats/weights-file.ts';
import { dataFile } from './shared-data.ts';
import { seededRandom } from './seeded-random.ts';
import { finishRows, FINISH_MODULE_BASE64, finishModuleBytes } from '../../workers/weights/finish-rows.ts';
import { choleskySolveRows } from '../../workers/sparse/cholesky-solve.ts';
import { choleskyNumeric } from '../../workers/sparse/cholesky-numeric.ts';
import { choleskySymbolic } from '../../workers/sparse/cholesky-symbolic.ts';
import { amdOrdering } from '../../workers/sparse/amd-ordering.ts';

function dense(m: CscMatrix): Float64Array {
  const out = new Float64Array(m.rows * m.cols);
  for (let j = 0; j < m.cols; j++)
    for (let p = m.colPointers[j]; p < m.colPointers[j + 1]; p++) out[m.rowIndices[p] * m.cols + j] += m.values[p];
  return out;
}

/**
 * A closed tube along +z: `rings` rings of `segments` vertices, radius(z) from `radiusAt`; quads split along one
 * diagonal below the middle and the other above it, so the triangulation is mirror symmetric about the middle.
 */
function tube(segments: number, rings: number, length: number, radiusAt: (z: number) => number = () => 0.5) {
  const positions = new Float64Array(segments * rings * 3);
  for (let r = 0; r < rings; r++) {
    const z = (length * r) / (rings - 1);
    for (let s = 0; s < segments; s++) {
      const a = (2 * Math.PI * s) / segments;
      const v = r * segments + s;
      positions.set([radiusAt(z) * Math.cos(a), radiusAt(z) * Math.sin(a), z], 3 * v);
    }
  }
  const triangles: number[] = [];
  for (let r = 0; r + 1 < rings; r++) {
    for (let s = 0; s < segments; s++) {
      const a = r * segments + s;
      const b = r * segments + ((s + 1) % segments);
      const c = a + segments;
      const d = b + segments;
      if (2 * r < rings - 1) triangles.push(a, b, d, a, d, c);
      else triangles.push(a, b, c, b, d, c);
    }
  }
  return { positions, triangles: Uint32Array.from(triangles) };
}

/** The course hand (20 bones) and its handle file. */
function handWithHandles() {
  const mesh = readOff(readFileSync(dataFile('hand/hand.off'), 'utf8'), 'hand.off').mesh;
  const dmat = readDmat(new Uint8Array(readFileSync(dataFile('hand/hand-handles.dmat'))), 'hand-handles.dmat');
  return { mesh, handles: handlesFromDmat(dmat, mesh.positions.length / 3, 20, 'hand-handles.dmat') };
}

/** The context-aware body (28 bones) and its handle file. */
function bodyWithHandles() {
  const mesh = readObj(readFileSync(dataFile('context-aware/reference.obj'), 'utf8'), 'reference.obj').mesh;
  const dmat = readDmat(new Uint8Array(readFileSync(dataFile('context-aware/handles.dmat'))), 'handles.dmat');
  return { mesh, handles: handlesFromDmat(dmat, mesh.positions.length / 3, 28, 'handles.dmat') };
}

function checkPartitionOfUnity(weights: Float64Array, vertexCount: number, boneCount: number, rows?: (v: number) => boolean): number {
  let worst = 0;
  for (let v = 0; v < vertexCount; v++) {
    if (rows && !rows(v)) continue;
    let sum = 0;
    for (let b = 0; b < boneCount; b++) {
      const w = weights[v * boneCount + b];
      assert.ok(w >= 0 && w <= 1, `vertex ${v} bone ${b}: weight ${w} outside [0, 1]`);
      sum += w;
    }
    worst = Math.max(worst, Math.abs(sum - 1));
  }
  return worst;
}

test('cotangent Laplacian: hand-derived values on an equilateral triangle and a unit right triangle', () => {
  const equilateral = cotangentLaplacian(new Float64Array([0, 0, 0, 1, 0, 0, 0.5, Math.sqrt(3) / 2, 0]), Uint32Array.from([0, 1, 2]));
  const k = dense(equilateral);
  const w = 0.5 / Math.sqrt(3); // ½ cot 60°
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) assert.ok(Math.abs(k[i * 3 + j] - (i === j ? 2 * w : -w)) < 1e-15, `(${i}, ${j})`);
  }
  // Right angle at vertex 0: the hypotenuse 1–2 gets ½ cot 90° = 0, the legs ½ cot 45° = ½.
  const right = dense(cotangentLaplacian(new Float64Array([0, 0, 0, 1, 0, 0, 0, 1, 0]), Uint32Array.from([0, 1, 2])));
  assert.ok(Math.abs(right[1 * 3 + 2]) < 1e-15, "the hypotenuse's weight is ½ cot 90° = 0");
  assert.ok(Math.abs(right[0 * 3 + 1] + 0.5) < 1e-15, 'the leg 0–1 has weight −½ cot 45° = −½');
  assert.ok(Math.abs(right[0 * 3 + 2] + 0.5) < 1e-15, 'the leg 0–2 has weight −½ cot 45° = −½');
});

test('cotangent Laplacian is symmetric with zero row sums, and finite on degenerate and obtuse triangles', () => {
  const { positions, triangles } = tube(12, 9, 3, (z) => 0.4 + 0.2 * Math.sin(z));
  // Append: a zero-area triangle (collinear), a triangle with two coincident corners, a needle, an obtuse one.
  const extra = [0, 0, 5, 1, 0, 5, 2, 0, 5, 0, 0, 6, 0, 0, 6, 1, 1, 6, 0, 0, 7, 1, 0, 7, 0.5, 1e-9, 7, 0, 0, 8, 1, 0, 8, 0.5, 0.01, 8];
  const base = positions.length / 3;
  const all = new Float64Array([...positions, ...extra]);
  const tris = Uint32Array.from([...triangles, ...[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11].map((i) => base + i)]);
  const k = cotangentLaplacian(all, tris);
  const n = all.length / 3;
  const d = dense(k);
  for (let i = 0; i < n; i++) {
    let sum = 0;
    let scale = 0;
    for (let j = 0; j < n; j++) {
      const v = d[i * n + j];
      assert.ok(Number.isFinite(v), `entry (${i}, ${j}) is ${v}`);
      assert.equal(v, d[j * n + i], `asymmetric at (${i}, ${j})`);
      sum += v;
      scale = Math.max(scale, Math.abs(v));
    }
    assert.ok(Math.abs(sum) <= 1e-12 * Math.max(scale, 1), `row ${i} sums to ${sum}`);
    assert.ok(scale <= COTANGENT_BOUND, `row ${i} has an entry of ${scale}`);
  }
  // The zero-area and coincident faces contribute nothing; the obtuse one gets a negative weight.
  assert.equal(d[base * n + base + 1], 0);
  assert.equal(d[(base + 3) * n + base + 4], 0);
  assert.ok(d[(base + 9) * n + base + 10] > 0, 'the edge opposite the obtuse angle has a negative cotangent weight');
});

test("the Laplacian kernel's module kept as base64 is the one its builder writes", () => {
  const built = Buffer.from(laplacianModuleBytes()).toString('base64');
  assert.equal(LAPLACIAN_MODULE_BASE64, built, "write the builder's output into LAPLACIAN_MODULE_BASE64 (laplacian-kernel.ts)");
});

/** The free numbering of harmonicWeights: every vertex that is not a handle, in vertex order. */
function freeNumbering(handles: Int32Array): { isFree: Uint8Array; freeIndex: Int32Array; freeCount: number } {
  const isFree = Uint8Array.from(handles, (h) => (h < 0 ? 1 : 0));
  const freeIndex = new Int32Array(handles.length).fill(-1);
  let freeCount = 0;
  for (let v = 0; v < handles.length; v++) if (isFree[v] === 1) freeIndex[v] = freeCount++;
  return { isFree, freeIndex, freeCount };
}

test("the cotangent free block in WebAssembly is the JavaScript's bit for bit, and a face outside the mesh is the JavaScript's error", () => {
  const { mesh: hand, handles: handHandles } = handWithHandles();
  const { mesh: body, handles: bodyHandles } = bodyWithHandles();
  // A tube with a zero-area face, two coincident corners, a needle (cotangents past the bound) and an obtuse face,
  // every fifth vertex a handle.
  const { positions, triangles } = tube(12, 9, 3, (z) => 0.4 + 0.2 * Math.sin(z));
  const extra = [0, 0, 5, 1, 0, 5, 2, 0, 5, 0, 0, 6, 0, 0, 6, 1, 1, 6, 0, 0, 7, 1, 0, 7, 0.5, 1e-9, 7, 0, 0, 8, 1, 0, 8, 0.5, 0.01, 8];
  const base = positions.length / 3;
  const odd = {
    positions: new Float64Array([...positions, ...extra]),
    triangles: Uint32Array.from([...triangles, ...[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11].map((i) => base + i)]),
  };
  const oddHandles = Int32Array.from({ length: base + 12 }, (_, v) => (v % 5 === 0 ? v % 3 : -1));
  // Bit for bit: −0 and +0 apart.
  const same = (a: ArrayLike<number>, b: ArrayLike<number>): boolean =>
    a.length === b.length && Array.from(a).every((x, i) => Object.is(x, b[i]));
  // The body has more faces and vertices than one call of a pass takes: its passes run in ranges.
  for (const [name, mesh, handles] of [
    ['hand', hand, handHandles],
    ['body', body, bodyHandles],
    ['tube with degenerate faces', odd, oddHandles],
  ] as const) {
    const { isFree, freeIndex, freeCount } = freeNumbering(handles);
    const fromKernel = kernelCotangentFreeBlock(mesh.positions, mesh.triangles, isFree, freeIndex, freeCount, handles);
    assert.ok(fromKernel !== null, `${name}: the kernel ran`);
    const fromLoops = cotangentFreeBlock(mesh.positions, mesh.triangles, isFree, freeIndex, freeCount, handles, false);
    assert.ok(fromKernel.kff.rowIndices.length > freeCount && fromKernel.couplingFree.length > 0, `${name}: a block with couplings`);
    for (const key of ['colPointers', 'rowIndices', 'values'] as const)
      assert.ok(same(fromKernel.kff[key], fromLoops.kff[key]), `${name}: the block's ${key}`);
    for (const key of ['couplingFree', 'couplingBone', 'couplingValue'] as const)
      assert.ok(same(fromKernel[key], fromLoops[key]), `${name}: ${key}`);
  }
  const { isFree, freeIndex, freeCount } = freeNumbering(oddHandles);
  const outside = odd.triangles.slice();
  outside[7] = base + 12;
  assert.equal(
    kernelCotangentFreeBlock(odd.positions, outside, isFree, freeIndex, freeCount, oddHandles),
    null,
    'no block from the kernel',
  );
  assert.throws(
    () => cotangentFreeBlock(odd.positions, outside, isFree, freeIndex, freeCount, oddHandles),
    /face 2 names vertex 120, the mesh has 120/,
  );
});

test('a cotangent Laplacian assembled for some columns has exactly those columns of the full one, the others empty', () => {
  const { positions, triangles } = tube(10, 7, 2, (z) => 0.5 + 0.3 * z * z);
  const n = positions.length / 3;
  const full = cotangentLaplacian(positions, triangles);
  // A band of rings in the middle, and a scattered set that keeps most faces.
  for (const pick of [(v: number) => v >= 20 && v < 40, (v: number) => v % 3 !== 0]) {
    const columns = Uint8Array.from({ length: n }, (_, v) => (pick(v) ? 1 : 0));
    const part = cotangentLaplacian(positions, triangles, columns);
    for (let v = 0; v < n; v++) {
      const got = [...part.rowIndices.subarray(part.colPointers[v], part.colPointers[v + 1])];
      const values = [...part.values.subarray(part.colPointers[v], part.colPointers[v + 1])];
      if (!columns[v]) {
        assert.equal(got.length, 0, `column ${v} is not empty`);
        continue;
      }
      assert.deepEqual(got, [...full.rowIndices.subarray(full.colPointers[v], full.colPointers[v + 1])], `rows of column ${v}`);
      assert.deepEqual(values, [...full.values.subarray(full.colPointers[v], full.colPointers[v + 1])], `values of column ${v}`);
    }
  }
  assert.throws(() => cotangentLaplacian(positions, Uint32Array.from([0, 1, n]), new Uint8Array(n)), RangeError);
});

test('uniform Laplacian and connected components', () => {
  // Two triangles sharing edge 1–2, a separate triangle, an isolated vertex 7.
  const triangles = Uint32Array.from([0, 1, 2, 1, 3, 2, 4, 5, 6]);
  const k = dense(uniformLaplacian(8, triangles));
  assert.deepEqual(
    [0, 1, 2, 3].map((i) => k[i * 8 + i]),
    [2, 3, 3, 2],
  );
  assert.equal(k[0 * 8 + 3], 0);
  assert.equal(k[1 * 8 + 2], -1);
  assert.equal(k[7 * 8 + 7], 0);
  const components = connectedComponents(8, triangles);
  assert.equal(components.count, 3);
  assert.deepEqual([...components.labels], [0, 0, 0, 0, 1, 1, 1, 2]);
  // Two interleaved strips whose faces arrive in an order that builds long union-find chains.
  const strip: number[] = [];
  for (let i = 34; i >= 0; i -= 2) strip.push(i + 4, i + 2, i, i + 5, i + 3, i + 1);
  const interleaved = connectedComponents(41, Uint32Array.from(strip));
  assert.equal(interleaved.count, 3);
  for (let v = 0; v < 40; v++) assert.equal(interleaved.labels[v], v % 2, `vertex ${v}`);
  assert.equal(interleaved.labels[40], 2);
});

test('tube with a handle ring at each end: weights are linear in height', () => {
  const segments = 16;
  const rings = 21;
  const { positions, triangles } = tube(segments, rings, 4);
  const n = segments * rings;
  const handles = new Int32Array(n).fill(-1);
  for (let s = 0; s < segments; s++) {
    handles[s] = 0;
    handles[(rings - 1) * segments + s] = 1;
  }
  for (const ordering of ['amd', 'nested-dissection'] as const) {
    const result = harmonicWeights(positions, triangles, handles, 2, { ordering });
    assert.equal(result.laplacianUsed, 'cotan');
    for (let v = 0; v < n; v++) {
      const t = positions[3 * v + 2] / 4;
      assert.ok(Math.abs(result.weights[2 * v + 1] - t) < 1e-10, `${ordering}, vertex ${v}: ${result.weights[2 * v + 1]} vs height ${t}`);
      assert.ok(Math.abs(result.weights[2 * v] - (1 - t)) < 1e-10, `${ordering}, vertex ${v}: bone 0's weight is 1 − height`);
    }
  }
  assert.deepEqual(HARMONIC_WEIGHTS_DEFAULTS, {
    laplacian: 'cotan',
    unhandledComponents: 'report',
    ordering: 'amd',
    weld: true,
    weldTolerance: 0,
  });
});

test('a mirror-symmetric mesh with mirrored handles gets mirrored weights', () => {
  const segments = 10;
  const rings = 15;
  const length = 6;
  const { positions, triangles } = tube(segments, rings, length, (z) => 0.3 + 0.1 * (z - length / 2) ** 2);
  const n = segments * rings;
  const mirror = (v: number) => (rings - 1 - Math.floor(v / segments)) * segments + (v % segments);
  // Precondition: the triangulation maps onto itself under z → length − z.
  const key = (a: number, b: number, c: number) => [a, b, c].sort((x, y) => x - y).join(',');
  const faces = new Set<string>();
  for (let f = 0; f < triangles.length; f += 3) faces.add(key(triangles[f], triangles[f + 1], triangles[f + 2]));
  for (let f = 0; f < triangles.length; f += 3)
    assert.ok(
      faces.has(key(mirror(triangles[f]), mirror(triangles[f + 1]), mirror(triangles[f + 2]))),
      'the mirror image of every face is a face',
    );
  // Bone 0 at the bottom ring, bone 1 at the top ring, bone 2 on the middle ring (its own mirror image).
  const handles = new Int32Array(n).fill(-1);
  for (let s = 0; s < segments; s++) {
    handles[s] = 0;
    handles[(rings - 1) * segments + s] = 1;
    handles[((rings - 1) / 2) * segments + s] = 2;
  }
  const { weights } = harmonicWeights(positions, triangles, handles, 3);
  const mirroredBone = [1, 0, 2];
  for (let v = 0; v < n; v++) {
    for (let b = 0; b < 3; b++) {
      const a = weights[v * 3 + b];
      const m = weights[mirror(v) * 3 + mirroredBone[b]];
      assert.ok(Math.abs(a - m) < 1e-9, `vertex ${v} bone ${b}: ${a} vs mirrored ${m}`);
    }
  }
  assert.ok(weights[3 * (2 * segments) + 0] > 0.2 && weights[3 * (2 * segments) + 0] < 1, 'weights blend between the rings');
});

test('hand (20 bones) and body (28 bones) from the shared data: partition of unity and weights in [0, 1]', () => {
  const { mesh: hand, handles: handHandles } = handWithHandles();
  const handResult = harmonicWeights(hand.positions, hand.triangles, handHandles, 20);
  assert.ok(
    checkPartitionOfUnity(handResult.weights, hand.positions.length / 3, 20) <= 1e-9,
    "the hand's weights are a partition of unity (within 1e-9)",
  );
  assert.deepEqual(handResult.bonesWithoutHandles, []);
  assert.deepEqual(handResult.unhandledComponents, []);

  const { mesh: body, handles: bodyHandles } = bodyWithHandles();
  const n = body.positions.length / 3;
  const stages: string[] = [];
  const bodyResult = harmonicWeights(body.positions, body.triangles, bodyHandles, 28, {}, (stage) => stages.push(stage));
  assert.ok(checkPartitionOfUnity(bodyResult.weights, n, 28) <= 1e-9, "the body's weights are a partition of unity (within 1e-9)");
  assert.deepEqual(bodyResult.bonesWithoutHandles, [1, 2, 12, 13]);
  for (const b of [1, 2, 12, 13]) for (let v = 0; v < n; v++) assert.equal(bodyResult.weights[v * 28 + b], 0);
  assert.deepEqual(bodyResult.unhandledComponents, []);
  assert.deepEqual([...new Set(stages)], ['laplacian', 'ordering', 'factorization', 'solve', 'done']);
  // The stages are timed as disjoint parts of the whole run.
  const { totalMs, ...stageMs } = bodyResult.timings;
  const stagesMs = Object.values(stageMs).reduce((sum, t) => sum + t, 0);
  assert.ok(stagesMs <= totalMs + 1e-9, `the stages take ${stagesMs} ms together, within the total of ${totalMs} ms`);
});

/**
 * A planar `size` × `size` grid of unit squares with its inner vertices moved by up to ±`jitter` in x and y, each
 * square split along a random diagonal: obtuse triangles at random, whose negative cotangent weights let a
 * harmonic solution dip below zero.
 */
function jitteredGrid(size: number, jitter: number, seed: number) {
  const random = seededRandom(seed);
  const positions = new Float64Array(size * size * 3);
  for (let j = 0; j < size; j++) {
    for (let i = 0; i < size; i++) {
      const inner = i > 0 && j > 0 && i < size - 1 && j < size - 1;
      const dx = inner ? (2 * random() - 1) * jitter : 0;
      const dy = inner ? (2 * random() - 1) * jitter : 0;
      positions.set([i + dx, j + dy, 0], 3 * (j * size + i));
    }
  }
  const triangles: number[] = [];
  for (let j = 0; j + 1 < size; j++) {
    for (let i = 0; i + 1 < size; i++) {
      const a = j * size + i;
      const b = a + 1;
      const c = a + size;
      const d = c + 1;
      if (random() < 0.5) triangles.push(a, b, d, a, d, c);
      else triangles.push(a, b, c, b, d, c);
    }
  }
  return { positions, triangles: Uint32Array.from(triangles) };
}

/**
 * The harmonic weights before any clamping, by a second method: the cotangent stiffness assembled densely from
 * each corner's ½ cot (dot of its edges over twice the area), and the Dirichlet problem K_ff W_f = −K_fh E solved
 * by Gaussian elimination with partial pivoting.
 *
 * @returns #V × #B row-major, handle rows their indicator rows
 */
function denseHarmonicWeights(positions: Float64Array, triangles: Uint32Array, handles: Int32Array, boneCount: number): Float64Array {
  const n = handles.length;
  const k = new Float64Array(n * n);
  const at = (v: number) => [positions[3 * v], positions[3 * v + 1], positions[3 * v + 2]];
  for (let f = 0; f < triangles.length; f += 3) {
    for (let corner = 0; corner < 3; corner++) {
      const o = triangles[f + corner];
      const i = triangles[f + ((corner + 1) % 3)];
      const j = triangles[f + ((corner + 2) % 3)];
      const [p, q, r] = [at(o), at(i), at(j)];
      const e1 = q.map((x, c) => x - p[c]);
      const e2 = r.map((x, c) => x - p[c]);
      const cross = [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]];
      const halfCot = (0.5 * (e1[0] * e2[0] + e1[1] * e2[1] + e1[2] * e2[2])) / Math.hypot(...cross);
      k[i * n + j] -= halfCot;
      k[j * n + i] -= halfCot;
      k[i * n + i] += halfCot;
      k[j * n + j] += halfCot;
    }
  }
  const free = handles.reduce<number[]>((list, h, v) => (h < 0 ? [...list, v] : list), []);
  const m = free.length;
  const a = free.map((v) => free.map((u) => k[v * n + u]));
  const b = free.map((v) => {
    const row = new Array<number>(boneCount).fill(0);
    for (let u = 0; u < n; u++) if (handles[u] >= 0) row[handles[u]] -= k[v * n + u];
    return row;
  });
  for (let c = 0; c < m; c++) {
    let pivot = c;
    for (let r = c + 1; r < m; r++) if (Math.abs(a[r][c]) > Math.abs(a[pivot][c])) pivot = r;
    [a[c], a[pivot]] = [a[pivot], a[c]];
    [b[c], b[pivot]] = [b[pivot], b[c]];
    for (let r = c + 1; r < m; r++) {
      const factor = a[r][c] / a[c][c];
      for (let col = c; col < m; col++) a[r][col] -= factor * a[c][col];
      for (let bone = 0; bone < boneCount; bone++) b[r][bone] -= factor * b[c][bone];
    }
  }
  for (let r = m - 1; r >= 0; r--) {
    for (let bone = 0; bone < boneCount; bone++) {
      let sum = b[r][bone];
      for (let col = r + 1; col < m; col++) sum -= a[r][col] * b[col][bone];
      b[r][bone] = sum / a[r][r];
    }
  }
  const weights = new Float64Array(n * boneCount);
  for (let v = 0; v < n; v++) if (handles[v] >= 0) weights[v * boneCount + handles[v]] = 1;
  free.forEach((v, r) => weights.set(b[r], v * boneCount));
  return weights;
}

test('where the cotangent solution dips below zero, the weights are clamped to [0, 1] and rescaled to sum to 1', () => {
  // Bone 0 on the left column, bone 1 on the right one, bone 2 on the centre vertex. At vertex 65, beside the centre,
  // the obtuse triangles of this grid take bone 1's exact weight to −0.0495 and bone 2's to 1.0122.
  const size = 10;
  const { positions, triangles } = jitteredGrid(size, 0.4, 32);
  const n = size * size;
  for (let f = 0; f < triangles.length; f += 3) {
    const [a, b, c] = [triangles[f], triangles[f + 1], triangles[f + 2]];
    const cross =
      (positions[3 * b] - positions[3 * a]) * (positions[3 * c + 1] - positions[3 * a + 1]) -
      (positions[3 * b + 1] - positions[3 * a + 1]) * (positions[3 * c] - positions[3 * a]);
    assert.ok(cross > 0, `face ${f / 3} keeps its orientation (doubled area ${cross}): the grid is a valid planar mesh`);
  }
  const handles = new Int32Array(n).fill(-1);
  for (let j = 0; j < size; j++) {
    handles[j * size] = 0;
    handles[j * size + size - 1] = 1;
  }
  handles[(size / 2) * size + size / 2] = 2;

  const exact = denseHarmonicWeights(positions, triangles, handles, 3);
  assert.ok(Math.min(...exact) < -0.04, `the exact solution goes below zero (its least weight is ${Math.min(...exact)})`);
  for (let v = 0; v < n; v++) {
    const sum = exact[3 * v] + exact[3 * v + 1] + exact[3 * v + 2];
    assert.ok(Math.abs(sum - 1) < 1e-9, `vertex ${v}: the exact solution is a partition of unity (row sum ${sum})`);
  }

  const result = harmonicWeights(positions, triangles, handles, 3);
  assert.equal(result.laplacianUsed, 'cotan', 'the jittered grid is well-shaped enough for the cotangent Laplacian');
  assert.ok(checkPartitionOfUnity(result.weights, n, 3) <= 1e-12, 'every row of the result is in [0, 1] and sums to 1');
  for (let v = 0; v < n; v++) {
    const kept = [0, 1, 2].map((b) => Math.min(Math.max(exact[3 * v + b], 0), 1));
    const sum = kept[0] + kept[1] + kept[2];
    for (let b = 0; b < 3; b++) {
      const got = result.weights[3 * v + b];
      if (exact[3 * v + b] < 0) {
        assert.equal(got, 0, `vertex ${v} bone ${b}: the exact weight ${exact[3 * v + b]} is clamped to 0`);
      } else {
        assert.ok(Math.abs(got - kept[b] / sum) < 1e-9, `vertex ${v} bone ${b}: ${got}, expected ${kept[b] / sum} (clamped row rescaled)`);
      }
    }
  }
});

test("finishing the rows in WebAssembly, beside the solution in the kernels' memory, gives the JavaScript loop's weights bit for bit", () => {
  // The identity's factor solves to the right-hand sides themselves, so the rows the loop reads are the ones made here,
  // left in the kernels' scratch memory as harmonicWeights's solve leaves its solution.
  const freeCount = 300;
  const width = 5;
  const boneCount = 7; // bones 2 and 5 have no handles: column −1
  const column = Int32Array.from([3, 0, -1, 4, 1, -1, 2]);
  const identity = {
    rows: freeCount,
    cols: freeCount,
    colPointers: Int32Array.from({ length: freeCount + 1 }, (_, j) => j),
    rowIndices: Int32Array.from({ length: freeCount }, (_, j) => j),
    values: new Float64Array(freeCount).fill(1),
  };
  const factor = choleskyNumeric(identity, choleskySymbolic(identity, amdOrdering(identity)));
  const random = seededRandom(77);
  const values: number[][] = [];
  for (let r = 0; r < freeCount; r++) {
    const kind = r % 6;
    values.push(
      Array.from({ length: width }, (_, c) => {
        if (kind === 0) return random() * 1.4 - 0.2; // some below 0, some above 1
        if (kind === 1) return -random(); // clamps to all zeros: the largest keeps its bone
        if (kind === 2) return c === 0 ? 1 : 0; // sums to exactly 1
        if (kind === 3) return c === 1 ? NaN : random();
        if (kind === 4) return c === 2 ? -0 : 0; // zeros of both signs
        return random() / width;
      }),
    );
  }
  const solved = choleskySolveRows(factor, width, (x) => {
    values.forEach((row, r) => x.set(row, r * width));
    return { low: new Int32Array(freeCount), high: new Int32Array(freeCount).fill(width) };
  });
  assert.ok(solved !== null, 'the solve kernel runs here');
  // 450 vertices: free ones (in shuffled pivot order), handles of every bone, and some neither (an unhandled piece).
  const n = 450;
  const freeIndex = new Int32Array(n).fill(-1);
  const handles = new Int32Array(n).fill(-1);
  let f = 0;
  for (let v = 0; v < n; v++) {
    if (v % 3 !== 2 && f < freeCount) freeIndex[v] = f++;
    else if (v % 6 === 2) handles[v] = v % boneCount;
  }
  assert.equal(f, freeCount, 'every free row has its vertex');
  const pivotOf = Int32Array.from({ length: freeCount }, (_, g) => (g * 7) % freeCount);
  const expected = new Float64Array(n * boneCount);
  const got = new Float64Array(n * boneCount);
  assert.equal(
    finishRows(expected, boneCount, freeIndex, handles, column, solved, width, pivotOf, false),
    false,
    'the JavaScript loop ran',
  );
  assert.equal(finishRows(got, boneCount, freeIndex, handles, column, solved, width, pivotOf), true, 'the WebAssembly loop ran');
  assert.deepEqual(got, expected, 'the same weights bit for bit');
  // The cases the rows were made for are there.
  const row = (v: number) => Array.from(expected.subarray(v * boneCount, (v + 1) * boneCount));
  for (const [kind, what] of [
    [1, 'clamped to zeros'],
    [3, 'with a NaN (its sum is not > 0)'],
  ] as const) {
    const v = freeIndex.findIndex((g) => g >= 0 && pivotOf[g] % 6 === kind);
    assert.equal(row(v).filter((w) => w === 1).length, 1, `vertex ${v}, a row ${what}, keeps one bone at 1`);
    assert.equal(row(v).filter((w) => w === 0).length, boneCount - 1, `vertex ${v}, a row ${what}: the other bones at 0`);
  }
  const handle = handles.findIndex((h) => h >= 0);
  assert.deepEqual(
    row(handle),
    Array.from({ length: boneCount }, (_, b) => (b === handles[handle] ? 1 : 0)),
    'a handle row is 1 on its bone',
  );
});

test("the finishing loop's module kept as base64 is the one its builder writes", () => {
  const built = Buffer.from(finishModuleBytes()).toString('base64');
  assert.equal(FINISH_MODULE_BASE64, built, "write the builder's output into FINISH_MODULE_BASE64 (finish-rows.ts)");
});

test('a disconnected component without handles is reported (and optionally bound rigidly), never NaN', () => {
  const a = tube(8, 6, 2);
  // A second small tube far along +z: nearer to bone 1's handles (top ring) than to bone 0's (bottom ring).
  const b = tube(6, 3, 0.5);
  const offset = a.positions.length / 3;
  const positions = new Float64Array([...a.positions, ...b.positions.map((x, i) => (i % 3 === 2 ? x + 5 : x))]);
  const triangles = Uint32Array.from([...a.triangles, ...[...b.triangles].map((v) => v + offset)]);
  const n = positions.length / 3;
  const handles = new Int32Array(n).fill(-1);
  for (let s = 0; s < 8; s++) {
    handles[s] = 0;
    handles[5 * 8 + s] = 1;
  }
  const reported = harmonicWeights(positions, triangles, handles, 3);
  assert.deepEqual(reported.unhandledComponents, [{ vertexCount: 18, nearestBone: 1, firstVertex: offset }]);
  assert.deepEqual(reported.bonesWithoutHandles, [2]);
  for (const w of reported.weights) assert.ok(Number.isFinite(w), 'every weight is finite');
  for (let v = offset; v < n; v++) for (let k = 0; k < 3; k++) assert.equal(reported.weights[v * 3 + k], 0);
  assert.ok(
    checkPartitionOfUnity(reported.weights, n, 3, (v) => v < offset) <= 1e-9,
    "the handled component's weights are a partition of unity (within 1e-9)",
  );

  const bound = harmonicWeights(positions, triangles, handles, 3, { unhandledComponents: 'bind-rigidly' });
  for (let v = offset; v < n; v++) assert.deepEqual([...bound.weights.subarray(v * 3, v * 3 + 3)], [0, 1, 0]);
  assert.ok(
    checkPartitionOfUnity(bound.weights, n, 3) <= 1e-9,
    'all weights are a partition of unity once the unhandled component is bound rigidly (within 1e-9)',
  );
});

test('a free vertex held only by a zero-area face falls back to the uniform Laplacian instead of failing', () => {
  const { positions, triangles } = tube(8, 6, 2);
  const n = positions.length / 3;
  // Vertex n is the midpoint of edge 8–16 (same segment, rings 1 and 2): its only face has zero area.
  const mid = [0, 1, 2].map((c) => (positions[3 * 8 + c] + positions[3 * 16 + c]) / 2);
  const all = new Float64Array([...positions, ...mid]);
  const tris = Uint32Array.from([...triangles, 8, n, 16]);
  const handles = new Int32Array(n + 1).fill(-1);
  for (let s = 0; s < 8; s++) {
    handles[s] = 0;
    handles[5 * 8 + s] = 1;
  }
  const result = harmonicWeights(all, tris, handles, 2);
  assert.equal(result.laplacianUsed, 'uniform');
  assert.ok(
    checkPartitionOfUnity(result.weights, n + 1, 2) <= 1e-9,
    "the uniform Laplacian's weights are a partition of unity (within 1e-9)",
  );
  const uniform = harmonicWeights(all, tris, handles, 2, { laplacian: 'uniform' });
  assert.deepEqual(uniform.weights, result.weights);
});

test('cancellation stops the computation with an AbortError', () => {
  const { positions, triangles } = tube(8, 6, 2);
  const handles = new Int32Array(48).fill(-1);
  handles[0] = 0;
  assert.throws(
    () => harmonicWeights(positions, triangles, handles, 1, {}, undefined, () => true),
    (e: unknown) => e instanceof DOMException && e.name === 'AbortError',
  );
  assert.throws(() => harmonicWeights(positions, triangles, handles.subarray(0, 10), 1), RangeError);
  handles[3] = 4;
  assert.throws(() => harmonicWeights(positions, triangles, handles, 1), /bone 4/);
});

test('automatic handles: course rule around bone midpoints and cylinders, both disjoint', () => {
  const length = 8;
  const { positions } = tube(16, 33, length);
  const n = positions.length / 3;
  // Four bones along the axis.
  const skeleton = {
    joints: Float64Array.from([0, 0, 0, 0, 0, 2, 0, 0, 4, 0, 0, 6, 0, 0, 8]),
    bones: Uint32Array.from([0, 1, 1, 2, 2, 3, 3, 4]),
  };
  const byDistance = jointDistanceHandles(positions, skeleton);
  // Midpoints at z = 1, 3, 5, 7 on the axis; the closest vertices lie on the ring there at distance 0.5, so each
  // bone claims the vertices within 0.75 of its midpoint: |z − mid| ≤ √(0.75² − 0.5²).
  const reach = Math.sqrt(0.75 ** 2 - 0.25);
  for (let v = 0; v < n; v++) {
    const z = positions[3 * v + 2];
    const bone = Math.min(3, Math.floor(z / 2));
    const expected = Math.abs(z - (2 * bone + 1)) <= reach + 1e-12 ? bone : -1;
    assert.equal(byDistance[v], expected, `vertex ${v} at z = ${z}`);
  }
  const byCylinder = boneCylinderHandles(positions, skeleton, 0.6);
  for (let v = 0; v < n; v++) {
    const z = positions[3 * v + 2];
    const onJoint = Math.abs(z / 2 - Math.round(z / 2)) < 1e-9;
    assert.equal(byCylinder[v], onJoint ? -1 : Math.floor(z / 2), `vertex ${v} at z = ${z}`);
  }
  assert.ok(
    boneCylinderHandles(positions, skeleton, 0.4).every((h) => h === -1),
    'a radius inside the tube claims nothing',
  );
});
