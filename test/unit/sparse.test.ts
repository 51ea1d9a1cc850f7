import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { cscFromTriplets, cscTranspose, cscMultiplyVector, type CscMatrix } from '../../workers/sparse/csc-matrix.ts';
import { nestedDissectionOrdering } from '../../workers/sparse/nested-dissection-ordering.ts';
import { amdOrdering } from '../../workers/sparse/amd-ordering.ts';
import { symmetricAdjacency, type AdjacencyGraph } from '../../workers/sparse/symmetric-adjacency.ts';
import { choleskySymbolic } from '../../workers/sparse/cholesky-symbolic.ts';
import { choleskyNumeric } from '../../workers/sparse/cholesky-numeric.ts';
import { FACTOR_MODULE_BASE64, factoredByKernel, factorModuleBytes, releaseFactorMemory } from '../../workers/sparse/factor-kernel.ts';
import { kernelMemoriesOf, PAGE, SCRATCH_BYTES } from '../../workers/sparse/wasm-module.ts';
import { SOLVE_MODULE_BASE64, solveKernelAvailable, solveModuleBytes } from '../../workers/sparse/solve-kernel.ts';
import { choleskySolve, choleskySolvePermuted, choleskySolveRows } from '../../workers/sparse/cholesky-solve.ts';
import { choleskyPanelForward, choleskyPanels, choleskyPanelSolveThree } from '../../workers/sparse/cholesky-panels.ts';
import { NotPositiveDefiniteError } from '../../workers/sparse/not-positive-definite-error.ts';
import { cotangentLaplacian } from '../../workers/mesh/cotangent-laplacian.ts';
import { readOff } from '../../workers/formats/off.ts';
import { seededRandom } from './seeded-random.ts';
import { dataFile } from './shared-data.ts';

/** Random symmetric positive definite matrix: random symmetric off-diagonals, diagonal dominance + shift. */
function randomSpd(n: number, density: number, seed: number): { csc: CscMatrix; dense: Float64Array } {
  const rand = seededRandom(seed);
  const dense = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < i; j++) {
      if (rand() < density) {
        const v = rand() * 2 - 1;
        dense[i * n + j] = v;
        dense[j * n + i] = v;
      }
    }
  }
  for (let i = 0; i < n; i++) {
    let sum = 0;
    for (let j = 0; j < n; j++) sum += Math.abs(dense[i * n + j]);
    dense[i * n + i] = sum + 0.1 + rand();
  }
  const ti: number[] = [];
  const tj: number[] = [];
  const tv: number[] = [];
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      if (dense[i * n + j] === 0) continue;
      ti.push(i);
      tj.push(j);
      tv.push(dense[i * n + j]);
    }
  }
  return { csc: cscFromTriplets(n, n, ti, tj, tv), dense };
}

/** Dense Gaussian elimination with partial pivoting: the independent reference for the sparse solves. */
function denseSolve(a: Float64Array, n: number, b: Float64Array, k: number): Float64Array {
  const m = a.slice();
  const x = b.slice();
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r * n + c]) > Math.abs(m[p * n + c])) p = r;
    if (p !== c) {
      for (let j = 0; j < n; j++) [m[c * n + j], m[p * n + j]] = [m[p * n + j], m[c * n + j]];
      for (let j = 0; j < k; j++) [x[c * k + j], x[p * k + j]] = [x[p * k + j], x[c * k + j]];
    }
    for (let r = c + 1; r < n; r++) {
      const f = m[r * n + c] / m[c * n + c];
      if (f === 0) continue;
      for (let j = c; j < n; j++) m[r * n + j] -= f * m[c * n + j];
      for (let j = 0; j < k; j++) x[r * k + j] -= f * x[c * k + j];
    }
  }
  for (let c = n - 1; c >= 0; c--) {
    for (let j = 0; j < k; j++) {
      let s = x[c * k + j];
      for (let q = c + 1; q < n; q++) s -= m[c * n + q] * x[q * k + j];
      x[c * k + j] = s / m[c * n + c];
    }
  }
  return x;
}

/** 2-D grid graph Laplacian + identity (5-point stencil), w × h unknowns. */
function gridMatrix(w: number, h: number): CscMatrix {
  const ti: number[] = [];
  const tj: number[] = [];
  const tv: number[] = [];
  const id = (x: number, y: number) => y * w + x;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = id(x, y);
      ti.push(i);
      tj.push(i);
      tv.push(1);
      for (const [dx, dy] of [
        [1, 0],
        [0, 1],
      ]) {
        if (x + dx >= w || y + dy >= h) continue;
        const j = id(x + dx, y + dy);
        ti.push(i, j, i, j);
        tj.push(j, i, i, j);
        tv.push(-1, -1, 1, 1);
      }
    }
  }
  return cscFromTriplets(w * h, w * h, ti, tj, tv);
}

const identity = (n: number) => Int32Array.from({ length: n }, (_, i) => i);

test('cscFromTriplets sums duplicates and sorts rows within columns', () => {
  const m = cscFromTriplets(3, 3, [2, 0, 2, 1, 0], [0, 0, 0, 2, 0], [1, 2, 3, 4, 5]);
  assert.deepEqual([...m.colPointers], [0, 2, 2, 3]);
  assert.deepEqual([...m.rowIndices], [0, 2, 1]);
  assert.deepEqual([...m.values], [7, 4, 4]);
  const t = cscTranspose(m);
  assert.deepEqual([...t.colPointers], [0, 1, 2, 3]);
  assert.deepEqual([...t.rowIndices], [0, 2, 0]);
  assert.deepEqual([...t.values], [7, 4, 4]);
  assert.deepEqual([...cscMultiplyVector(m, [1, 10, 100])], [7, 400, 4]);
  assert.throws(() => cscFromTriplets(2, 2, [2], [0], [1]), RangeError);
});

test('sparse Cholesky solve agrees with dense Gaussian elimination on random SPD matrices', () => {
  const cases = [
    [1, 1],
    [5, 0.6],
    [30, 0.1],
    [80, 0.05],
    [200, 0.02],
    [300, 0.2],
  ];
  let seed = 1;
  for (const [n, density] of cases) {
    for (const ordering of ['natural', 'nested dissection', 'amd']) {
      const { csc, dense } = randomSpd(n, density, seed++);
      const perm = ordering === 'natural' ? identity(n) : ordering === 'amd' ? amdOrdering(csc) : nestedDissectionOrdering(csc);
      const factor = choleskyNumeric(csc, choleskySymbolic(csc, perm));
      const k = 3;
      const rand = seededRandom(seed++);
      const b = Float64Array.from({ length: n * k }, () => rand() * 2 - 1);
      const x = choleskySolve(factor, b, k);
      const expected = denseSolve(dense, n, b, k);
      let err = 0;
      let scale = 0;
      for (let i = 0; i < n * k; i++) {
        err = Math.max(err, Math.abs(x[i] - expected[i]));
        scale = Math.max(scale, Math.abs(expected[i]));
      }
      assert.ok(err <= 1e-10 * scale, `n=${n} density=${density} ${ordering}: max error ${err} (scale ${scale})`);
    }
  }
});

test('the three-column solve on the packed factor agrees with dense elimination and leaves a trailing spare row alone', () => {
  let seed = 500;
  for (const [n, density] of [
    [1, 1],
    [7, 0.5],
    [60, 0.08],
    [250, 0.03],
    [300, 0.2],
  ]) {
    for (const order of [amdOrdering, nestedDissectionOrdering]) {
      const { csc, dense } = randomSpd(n, density, seed++);
      const factor = choleskyNumeric(csc, choleskySymbolic(csc, order(csc)));
      const { perm } = factor.symbolic;
      const rand = seededRandom(seed++);
      const b = Float64Array.from({ length: n * 3 }, () => rand() * 2 - 1);
      // Pivot order, plus one spare row that must survive.
      const x = new Float64Array(3 * (n + 1)).fill(42);
      for (let r = 0; r < n; r++) for (let c = 0; c < 3; c++) x[3 * r + c] = b[3 * perm[r] + c];
      choleskyPanelSolveThree(choleskyPanels(factor), x);
      const expected = denseSolve(dense, n, b, 3);
      let err = 0;
      let scale = 0;
      for (let r = 0; r < n; r++) {
        for (let c = 0; c < 3; c++) {
          err = Math.max(err, Math.abs(x[3 * r + c] - expected[3 * perm[r] + c]));
          scale = Math.max(scale, Math.abs(expected[3 * perm[r] + c]));
        }
      }
      assert.ok(err <= 1e-10 * scale, `n=${n} density=${density} ${order.name}: max error ${err} (scale ${scale})`);
      assert.deepEqual([...x.subarray(3 * n)], [42, 42, 42], 'the spare row is untouched');
    }
  }
  const { csc } = randomSpd(10, 0.3, 9);
  assert.throws(
    () => choleskyPanelSolveThree(choleskyPanels(choleskyNumeric(csc, choleskySymbolic(csc, amdOrdering(csc)))), new Float64Array(29)),
    RangeError,
  );
});

/** Random SPD matrices (seeds from `seed` on) and grids whose factors have supernodes of 1 to 40 columns. */
function kernelTestMatrices(seed: number): [string, CscMatrix][] {
  return [
    ...[
      [2, 1],
      [9, 0.6],
      [80, 0.1],
      [300, 0.2],
    ].map(([n, density], m): [string, CscMatrix] => [`random n=${n} density=${density}`, randomSpd(n, density, seed + m).csc]),
    ['grid 7×5', gridMatrix(7, 5)],
    ['grid 40×40', gridMatrix(40, 40)],
  ];
}

test('the WebAssembly kernels give the JavaScript loops’ solve bit for bit, on factors with supernodes of 1 to 40 columns', () => {
  let seed = 704;
  let kernelSupernodes = 0;
  let widest = 0;
  for (const [name, csc] of kernelTestMatrices(700)) {
    const n = csc.cols;
    for (const order of [amdOrdering, nestedDissectionOrdering]) {
      const factor = choleskyNumeric(csc, choleskySymbolic(csc, order(csc)));
      const withKernels = choleskyPanels(factor);
      const plain = choleskyPanels(factor, false);
      assert.notEqual(withKernels.kernels, null, 'Node has WebAssembly SIMD: the kernels are compiled');
      assert.equal(plain.kernels, null, 'asked for none');
      assert.ok(withKernels.values.buffer === withKernels.kernels!.memory.buffer, 'the values live in the kernels’ memory');
      const { supernodeStart, belowStart } = withKernels;
      for (let s = 0; s < withKernels.supernodeCount; s++) {
        const columns = supernodeStart[s + 1] - supernodeStart[s];
        widest = Math.max(widest, columns);
        if (columns > 1 && belowStart[s + 1] > belowStart[s]) kernelSupernodes++;
      }
      const rand = seededRandom(seed++);
      // A right-hand side from outside the kernels' memory (copied in and out) and one inside it.
      const b = Float64Array.from({ length: 3 * n + 3 }, () => rand() * 2 - 1);
      const expected = b.slice();
      choleskyPanelSolveThree(plain, expected);
      const outside = b.slice();
      choleskyPanelSolveThree(withKernels, outside);
      assert.deepEqual(outside, expected, `${name} ${order.name}: the same values bit for bit, the spare row kept`);
      const inside = withKernels.solution!;
      assert.equal(inside.length, 3 * n + 3, 'the panels’ own rows: #n + 1 rows of three');
      inside.set(b);
      choleskyPanelSolveThree(withKernels, inside);
      assert.deepEqual(inside, expected, `${name} ${order.name}: solved in the kernels' memory, the spare row kept`);
    }
  }
  assert.ok(kernelSupernodes > 50, `the kernels ran on ${kernelSupernodes} supernodes of several columns with rows below`);
  assert.ok(widest >= 40, `the widest supernode has ${widest} columns: panels of four and the columns after them`);
  const { csc } = randomSpd(60, 0.2, 9);
  const panels = choleskyPanels(choleskyNumeric(csc, choleskySymbolic(csc, amdOrdering(csc))));
  const all = new Int32Array([0, panels.supernodeCount]);
  const { supernodeStart, belowStart, belowRows, valueStart, inverseDiagonal, values, scratch } = panels;
  assert.throws(
    () =>
      choleskyPanelForward(
        all,
        supernodeStart,
        belowStart,
        belowRows,
        valueStart,
        inverseDiagonal,
        values,
        new Float64Array(180),
        scratch,
        panels.kernels,
      ),
    /every array must be a view of their memory/,
  );
});

test('packing a factor in place, where the WebAssembly factorization made it, gives the panels a copy gives, bit for bit', () => {
  let seed = 804;
  let packed = 0;
  for (const [name, csc] of kernelTestMatrices(800)) {
    const n = csc.cols;
    for (const order of [amdOrdering, nestedDissectionOrdering]) {
      const symbolic = choleskySymbolic(csc, order(csc));
      // Two factors of the same matrix, each in a memory of its own (a scratch size of 0).
      const kept = choleskyNumeric(csc, symbolic, undefined, 0);
      const consumed = choleskyNumeric(csc, symbolic, undefined, 0);
      assert.deepEqual(consumed.values, kept.values, `${name}: the same factor twice`);
      const factorBuffer = consumed.values.buffer;
      const copy = choleskyPanels(kept, true, 1 << 20);
      const inPlace = choleskyPanels(consumed, true, 1 << 20, true);
      assert.equal(consumed.values.length, 0, `${name}: the consumed factor's values are left empty`);
      assert.equal(kept.values.length, symbolic.storedValues, `${name}: a copy leaves the factor alone`);
      // The room asked for makes the factor's memory grow, which detaches the views taken before.
      assert.equal(factorBuffer.byteLength, 0, `${name} ${order.name}: the panels grew the factor's own memory`);
      assert.ok(inPlace.values.buffer === inPlace.kernels!.memory.buffer && inPlace.values.byteOffset === 0, 'values from its start');
      for (const key of ['values', 'inverseDiagonal', 'belowRows', 'supernodeStart', 'belowStart', 'valueStart'] as const) {
        assert.deepEqual(inPlace[key], copy[key], `${name} ${order.name}: ${key}`);
      }
      const rand = seededRandom(seed++);
      const b = Float64Array.from({ length: 3 * n + 3 }, () => rand() * 2 - 1);
      const expected = b.slice();
      choleskyPanelSolveThree(copy, expected);
      inPlace.solution!.set(b);
      choleskyPanelSolveThree(inPlace, inPlace.solution!);
      assert.deepEqual(inPlace.solution, expected, `${name} ${order.name}: the same solution`);
      assert.ok(inPlace.room !== null && inPlace.room.float64(1 << 16).length === 1 << 16, 'the room asked for is there');
      packed += inPlace.values.length;
    }
  }
  assert.ok(packed > 100_000, `${packed} values packed in place`);
  // A factor copied out of the scratch memory has no memory of its own to pack in: it is copied, and still consumed.
  const { csc } = randomSpd(60, 0.2, 9);
  const small = choleskyNumeric(csc, choleskySymbolic(csc, amdOrdering(csc)));
  const expected = choleskyPanels(choleskyNumeric(csc, small.symbolic), true);
  const panels = choleskyPanels(small, true, 0, true);
  assert.equal(small.values.length, 0, 'consumed');
  assert.deepEqual(panels.values, expected.values, 'the same panels from a copy');
});

test('a call too large for the scratch memory runs in the memory the last such call left, and what that memory held does not reach its result', () => {
  const memories = kernelMemoriesOf(FACTOR_MODULE_BASE64)();
  assert.ok(memories !== null, 'Node compiles the factorization kernel');
  const first = memories.take(SCRATCH_BYTES + 1);
  assert.ok(first !== null && !first.scratch && first.dirty === 0, 'a new memory of its own, all zero');
  // Garbage in every byte, then handed back: the next large call of any module takes it, grown when short.
  new Uint8Array(first.memory.buffer).fill(0xff);
  memories.done(first.memory);
  const size = first.memory.buffer.byteLength;
  const second = kernelMemoriesOf(SOLVE_MODULE_BASE64)()!.take(size + PAGE);
  assert.ok(second !== null && second.memory === first.memory, 'the spare memory, taken by another module');
  assert.equal(second.dirty, size, 'its bytes up to its old size may hold what the last call left');
  assert.ok(second.memory.buffer.byteLength >= size + PAGE, 'grown to the size asked for');
  assert.equal(memories.take(SCRATCH_BYTES + 1)!.dirty, 0, 'taken once: the next call gets a new memory');
  // A factorization in a spare memory full of garbage gives the factor a new memory gives.
  const csc = gridMatrix(60, 60);
  const symbolic = choleskySymbolic(csc, amdOrdering(csc));
  const expected = choleskyNumeric(csc, symbolic, undefined, 0);
  const dirty = memories.take(SCRATCH_BYTES + 1)!;
  new Uint8Array(dirty.memory.buffer).fill(0xff);
  memories.done(dirty.memory);
  const factor = choleskyNumeric(csc, symbolic, undefined, 0);
  assert.ok(releaseFactorMemory(factor.values) === dirty.memory, 'the factor was made in the spare memory');
  assert.deepEqual(factor.values, expected.values, 'the same factor bit for bit');
});

test('the many-column solve in WebAssembly gives the JavaScript loops’ solution bit for bit, rows anywhere or in its own memory, ranges given or found', () => {
  assert.ok(solveKernelAvailable(), 'Node has WebAssembly SIMD: the solve kernel is compiled');
  let seed = 904;
  for (const [name, csc] of kernelTestMatrices(900)) {
    const n = csc.cols;
    for (const order of [amdOrdering, nestedDissectionOrdering]) {
      const factor = choleskyNumeric(csc, choleskySymbolic(csc, order(csc)));
      for (const k of [1, 2, 5, 8]) {
        const rand = seededRandom(seed++);
        // Rows of k + 2 values at shuffled offsets (the two spare values of each row left alone); each row non-zero
        // only in a random column range, some rows all zero, so that supernodes' ranges differ.
        const stride = k + 2;
        const rowOf = Int32Array.from({ length: n }, (_, r) => r);
        for (let r = n - 1; r > 0; r--) {
          const t = Math.floor(rand() * (r + 1));
          [rowOf[r], rowOf[t]] = [rowOf[t], rowOf[r]];
        }
        const offsets = Int32Array.from(rowOf, (r) => r * stride + 1);
        const low = new Int32Array(n);
        const high = new Int32Array(n);
        const b = new Float64Array(n * stride).map(() => rand());
        for (let r = 0; r < n; r++) {
          low[r] = Math.floor(rand() * k);
          high[r] = rand() < 0.2 ? low[r] : low[r] + 1 + Math.floor(rand() * (k - low[r]));
          for (let c = 0; c < k; c++) if (c < low[r] || c >= high[r]) b[offsets[r] + c] = 0;
        }
        for (const ranges of [undefined, { low, high }]) {
          const expected = b.slice();
          choleskySolvePermuted(factor, expected, k, offsets, ranges, false);
          const solved = b.slice();
          choleskySolvePermuted(factor, solved, k, offsets, ranges);
          assert.deepEqual(solved, expected, `${name} ${order.name}, ${k} columns, ranges ${ranges ? 'given' : 'found'}: the same bits`);
        }
        // The right-hand sides placed straight into the kernel's rows (pivot row r at r·k), read back from them.
        const expected = b.slice();
        choleskySolvePermuted(factor, expected, k, offsets, { low, high }, false);
        let zeroOnEntry = true;
        const rows = choleskySolveRows(factor, k, (x) => {
          zeroOnEntry = x.length === n * k && x.every((value) => value === 0);
          for (let r = 0; r < n; r++) for (let c = low[r]; c < high[r]; c++) x[r * k + c] = b[offsets[r] + c];
          return { low, high };
        });
        assert.ok(rows !== null, `${name}: the kernel takes a solve this size`);
        assert.ok(zeroOnEntry, `${name} ${order.name}, ${k} columns: the rows handed out are ${n} × ${k} zeros`);
        for (let r = 0; r < n; r++) {
          const got: number[] = Array.from(rows.subarray(r * k, r * k + k));
          const want = Array.from(expected.subarray(offsets[r], offsets[r] + k));
          assert.deepEqual(got, want, `${name} ${order.name}, ${k} columns, pivot row ${r} solved in the kernel's rows: the same bits`);
        }
      }
    }
  }
});

test("the solve kernel's module kept as base64 is the one its builder writes", () => {
  const built = Buffer.from(solveModuleBytes()).toString('base64');
  assert.equal(SOLVE_MODULE_BASE64, built, "write the builder's output into SOLVE_MODULE_BASE64 (solve-kernel.ts)");
});

test('the packed factor holds each entry of L below the diagonal once, and its diagonal as reciprocals', () => {
  const { csc } = randomSpd(300, 0.2, 610);
  const factor = choleskyNumeric(csc, choleskySymbolic(csc, amdOrdering(csc)));
  const { supernodeCount, supernodeStart, rowPointers, valuePointers } = factor.symbolic;
  const panels = choleskyPanels(factor);
  // The factor's entries below the diagonal, counted from its dense supernode blocks (skipping their upper zeros).
  const below: number[] = [];
  let wide = 0;
  for (let s = 0; s < supernodeCount; s++) {
    const columns = supernodeStart[s + 1] - supernodeStart[s];
    const ld = rowPointers[s + 1] - rowPointers[s];
    if (columns > 1) wide++;
    for (let j = 0; j < columns; j++) for (let i = j + 1; i < ld; i++) below.push(factor.values[valuePointers[s] + j * ld + i]);
  }
  assert.ok(wide > 0, 'the matrix has supernodes of several columns, whose triangles the packing lays out');
  assert.equal(panels.values.length, below.length, 'one stored value per entry below the diagonal');
  const sorted = (values: ArrayLike<number>) => Float64Array.from(values).sort();
  assert.deepEqual(sorted(panels.values), sorted(below), 'the same values, in the packing order');
  for (let s = 0; s < supernodeCount; s++) {
    const ld = rowPointers[s + 1] - rowPointers[s];
    for (let j = 0; j < supernodeStart[s + 1] - supernodeStart[s]; j++) {
      const diagonal = factor.values[valuePointers[s] + j * ld + j];
      assert.equal(panels.inverseDiagonal[supernodeStart[s] + j], 1 / diagonal, `pivot ${supernodeStart[s] + j}`);
    }
  }
});

test('a solve inside a larger array, rows in any order, matches the packed solve and leaves the other entries alone', () => {
  const n = 120;
  const { csc } = randomSpd(n, 0.05, 77);
  const factor = choleskyNumeric(csc, choleskySymbolic(csc, amdOrdering(csc)));
  const rand = seededRandom(78);
  for (const k of [1, 2, 5]) {
    const stride = k + 3;
    // Pivot row r lives at row place[r] of a (n + 7) × stride array.
    const place = Int32Array.from({ length: n }, (_, r) => r);
    for (let r = n - 1; r > 0; r--) {
      const q = Math.floor(rand() * (r + 1));
      [place[r], place[q]] = [place[q], place[r]];
    }
    const offsets = Int32Array.from(place, (row) => (row + 7) * stride);
    const packed = Float64Array.from({ length: n * k }, () => (rand() < 0.3 ? rand() * 2 - 1 : 0));
    const wide = Float64Array.from({ length: (n + 7) * stride }, (_, i) => 1000 + i);
    for (let r = 0; r < n; r++) for (let c = 0; c < k; c++) wide[offsets[r] + c] = packed[r * k + c];
    const untouched = wide.slice();
    choleskySolvePermuted(factor, packed, k);
    choleskySolvePermuted(factor, wide, k, offsets);
    const solved = new Uint8Array(wide.length);
    for (let r = 0; r < n; r++) {
      for (let c = 0; c < k; c++) {
        assert.equal(wide[offsets[r] + c], packed[r * k + c], `k=${k} row ${r} column ${c}`);
        solved[offsets[r] + c] = 1;
      }
    }
    for (let i = 0; i < wide.length; i++) if (!solved[i]) assert.equal(wide[i], untouched[i], `k=${k} entry ${i} changed`);
  }
  assert.throws(
    () =>
      choleskySolvePermuted(
        factor,
        new Float64Array(n * 2),
        2,
        Int32Array.from({ length: n }, (_, r) => 2 * r + 1),
      ),
    RangeError,
  );
});

test('a solve told where its right-hand sides are non-zero matches the solve that reads them', () => {
  const n = 120;
  const { csc } = randomSpd(n, 0.05, 79);
  const factor = choleskyNumeric(csc, choleskySymbolic(csc, amdOrdering(csc)));
  const rand = seededRandom(80);
  const k = 6;
  // Right-hand sides with local support: a few rows, each non-zero in one or two neighbouring columns.
  const b = new Float64Array(n * k);
  const low = new Int32Array(n).fill(k);
  const high = new Int32Array(n);
  for (let q = 0; q < 10; q++) {
    const r = Math.floor(rand() * n);
    const c = Math.floor(rand() * (k - 1));
    b[r * k + c] = rand() * 2 - 1;
    b[r * k + c + 1] = rand() * 2 - 1;
    low[r] = Math.min(low[r], c);
    high[r] = Math.max(high[r], c + 2);
  }
  const scanned = b.slice();
  choleskySolvePermuted(factor, scanned, k);
  const told = b.slice();
  choleskySolvePermuted(factor, told, k, undefined, { low, high });
  assert.deepEqual(told, scanned);
  assert.throws(() => choleskySolvePermuted(factor, b.slice(), k, undefined, { low: low.subarray(1), high }), RangeError);
});

test('column counts and factor non-zeros match a dense symbolic elimination', () => {
  for (const [n, density, seed] of [
    [40, 0.08, 11],
    [120, 0.03, 12],
    [64, 0.2, 13],
  ]) {
    const { csc, dense } = randomSpd(n, density, seed);
    const symbolic = choleskySymbolic(csc, nestedDissectionOrdering(csc));
    const p = symbolic.perm;
    // Boolean elimination of P A Pᵀ: column j of L is the pattern of row j's lower part after eliminating 0..j-1.
    const s = new Uint8Array(n * n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) s[i * n + j] = dense[p[i] * n + p[j]] !== 0 ? 1 : 0;
    for (let k = 0; k < n; k++) {
      let count = 0;
      for (let i = k; i < n; i++) if (s[i * n + k]) count++;
      assert.equal(symbolic.columnCounts[k], count, `n=${n}: column ${k}`);
      for (let i = k + 1; i < n; i++) {
        if (!s[i * n + k]) continue;
        for (let j = k + 1; j < n; j++) if (s[j * n + k]) s[i * n + j] = 1;
      }
    }
  }
});

test('the analysis of a matrix storing both triangles equals that of its lower triangle, and unsorted columns are refused', () => {
  const { csc: both, dense } = randomSpd(90, 0.06, 21);
  const n = 90;
  const ti: number[] = [];
  const tj: number[] = [];
  const tv: number[] = [];
  for (let j = 0; j < n; j++) {
    for (let i = j; i < n; i++) {
      if (dense[i * n + j] === 0) continue;
      ti.push(i);
      tj.push(j);
      tv.push(dense[i * n + j]);
    }
  }
  const lower = cscFromTriplets(n, n, ti, tj, tv);
  assert.ok(both.rowIndices.length > lower.rowIndices.length + n, 'the full matrix stores entries above the diagonal');
  const perm = amdOrdering(lower);
  const fromBoth = choleskySymbolic(both, perm);
  const fromLower = choleskySymbolic(lower, perm);
  for (const field of [
    'perm',
    'inversePerm',
    'parent',
    'columnCounts',
    'supernodeStart',
    'rowPointers',
    'rows',
    'valuePointers',
  ] as const) {
    assert.deepEqual(fromBoth[field], fromLower[field], `${field} from both triangles`);
  }
  // Each entry lands where the same entry of the lower triangle lands; those above the diagonal nowhere.
  for (let j = 0; j < n; j++) {
    for (let p = both.colPointers[j]; p < both.colPointers[j + 1]; p++) {
      const i = both.rowIndices[p];
      if (i < j) {
        assert.equal(fromBoth.assemblyMap[p], -1, `entry (${i}, ${j}) above the diagonal`);
        continue;
      }
      let q = lower.colPointers[j];
      while (lower.rowIndices[q] !== i) q++;
      assert.equal(fromBoth.assemblyMap[p], fromLower.assemblyMap[q], `entry (${i}, ${j})`);
    }
  }
  // The factor of either solves the system.
  const b = Float64Array.from({ length: n }, (_, i) => Math.cos(i));
  const x = choleskySolve(choleskyNumeric(both, fromBoth), b, 1);
  const expected = denseSolve(dense, n, b, 1);
  for (let i = 0; i < n; i++) assert.ok(Math.abs(x[i] - expected[i]) < 1e-10, `row ${i} of the solve`);
  const unsorted: CscMatrix = { ...lower, rowIndices: lower.rowIndices.slice() };
  const column = lower.colPointers.findIndex((start, j) => j < n && lower.colPointers[j + 1] - start >= 3);
  const [second, third] = [unsorted.colPointers[column] + 1, unsorted.colPointers[column] + 2];
  [unsorted.rowIndices[second], unsorted.rowIndices[third]] = [unsorted.rowIndices[third], unsorted.rowIndices[second]];
  assert.throws(() => choleskySymbolic(unsorted, perm), new RegExp(`column ${column} lists row .* rows must ascend`));
});

test('refactoring new values with the same pattern reuses the analysis', () => {
  // Each loop: the WebAssembly one in its scratch memory (copied out), in a memory of its own, the JavaScript one.
  for (const kernel of [true, 0, false]) refactorReusesAnalysis(kernel);
});

function refactorReusesAnalysis(kernel: boolean | number): void {
  const { csc, dense } = randomSpd(150, 0.04, 99);
  const symbolic = choleskySymbolic(csc, nestedDissectionOrdering(csc));
  const first = choleskyNumeric(csc, symbolic, undefined, kernel);
  assert.equal(factoredByKernel(first.values), kernel !== false, `kernel ${kernel}: the loop asked for factored it`);
  const storage = first.values;
  // Scale the off-diagonal part and shift the diagonal: new values, same pattern.
  const scaled: CscMatrix = { ...csc, values: csc.values.slice() };
  const denseScaled = dense.slice();
  const n = 150;
  for (let j = 0; j < n; j++) {
    for (let q = csc.colPointers[j]; q < csc.colPointers[j + 1]; q++) {
      const i = csc.rowIndices[q];
      scaled.values[q] = i === j ? csc.values[q] + 2 : csc.values[q] * 0.5;
      denseScaled[i * n + j] = scaled.values[q];
    }
  }
  const second = choleskyNumeric(scaled, symbolic, first, kernel);
  assert.equal(second, first);
  assert.equal(second.values, storage, `kernel ${kernel}: the factor storage is reused`);
  assert.equal(second.symbolic, symbolic);
  const b = Float64Array.from({ length: n }, (_, i) => Math.sin(i));
  const x = choleskySolve(second, b, 1);
  const expected = denseSolve(denseScaled, n, b, 1);
  for (let i = 0; i < n; i++) assert.ok(Math.abs(x[i] - expected[i]) < 1e-10, `kernel ${kernel}: row ${i}`);
  assert.throws(() => choleskyNumeric(gridMatrix(3, 3), symbolic, undefined, kernel), RangeError);
}

test("the factorization kernel's module kept as base64 is the one its builder writes", () => {
  const built = Buffer.from(factorModuleBytes()).toString('base64');
  assert.equal(FACTOR_MODULE_BASE64, built, "write the builder's output into FACTOR_MODULE_BASE64 (factor-kernel.ts)");
});

test('AMD and nested dissection are valid permutations and reduce fill against the natural order on a grid', () => {
  const a = gridMatrix(60, 60);
  const natural = choleskySymbolic(a, identity(3600)).factorNonzeros;
  // Natural order on a 60-wide grid fills the whole band: about 60 per column.
  assert.ok(natural > 3600 * 55, `natural fill ${natural}`);
  for (const [name, order] of [
    ['amd', amdOrdering],
    ['nested dissection', nestedDissectionOrdering],
  ] as const) {
    const perm = order(a);
    assert.equal(perm.length, 3600);
    const seen = new Uint8Array(3600);
    for (const i of perm) {
      assert.ok(i >= 0 && i < 3600 && !seen[i], `${name}: entry ${i} repeated or out of range`);
      seen[i] = 1;
    }
    const fill = choleskySymbolic(a, perm).factorNonzeros;
    assert.ok(fill < natural * 0.6, `${name} fill ${fill} vs natural ${natural}`);
  }
  // A graph with isolated vertices and several components still gets a full permutation.
  const scattered = cscFromTriplets(6, 6, [0, 1, 2, 3, 4, 5, 4, 5], [0, 1, 2, 3, 4, 5, 5, 4], [1, 1, 1, 1, 2, 2, -1, -1]);
  assert.deepEqual([...amdOrdering(scattered)].sort(), [0, 1, 2, 3, 4, 5]);
});

test("the adjacency graph of a mesh Laplacian's lower or upper triangle is the full matrix's graph", () => {
  const { positions, triangles } = readOff(readFileSync(dataFile('hand/hand.off'), 'utf8'), 'hand.off').mesh;
  const n = positions.length / 3;
  const full = cotangentLaplacian(positions, triangles, new Uint8Array(n).fill(1));
  // The lower triangle (diagonal included), as the harmonic weights assemble it, and its transpose.
  const colPointers = new Int32Array(n + 1);
  const rowIndices: number[] = [];
  const values: number[] = [];
  for (let j = 0; j < n; j++) {
    for (let p = full.colPointers[j]; p < full.colPointers[j + 1]; p++) {
      if (full.rowIndices[p] < j) continue;
      rowIndices.push(full.rowIndices[p]);
      values.push(full.values[p]);
    }
    colPointers[j + 1] = rowIndices.length;
  }
  const lower: CscMatrix = { rows: n, cols: n, colPointers, rowIndices: Int32Array.from(rowIndices), values: Float64Array.from(values) };
  const expected = symmetricAdjacency(full);
  // Independent count: each vertex's neighbours are the other vertices of its triangles.
  const neighbours = Array.from({ length: n }, () => new Set<number>());
  for (let t = 0; t < triangles.length; t += 3) {
    for (let c = 0; c < 3; c++) neighbours[triangles[t + c]].add(triangles[t + ((c + 1) % 3)]).add(triangles[t + ((c + 2) % 3)]);
  }
  const sorted = (g: AdjacencyGraph, v: number) => [...g.neighbours.subarray(g.offsets[v], g.offsets[v + 1])].sort((x, y) => x - y);
  for (let v = 0; v < n; v++) {
    assert.deepEqual(
      sorted(expected, v),
      [...neighbours[v]].sort((x, y) => x - y),
      `vertex ${v}: the full graph's neighbours are its triangles'`,
    );
  }
  for (const [name, one] of [
    ['lower', lower],
    ['upper', cscTranspose(lower)],
  ] as const) {
    const graph = symmetricAdjacency(one);
    assert.equal(graph.vertexCount, n, `${name}: vertex count`);
    assert.deepEqual([...graph.offsets], [...expected.offsets], `${name}: every vertex has the full graph's degree`);
    for (let v = 0; v < n; v++) assert.deepEqual(sorted(graph, v), sorted(expected, v), `${name}: vertex ${v}'s neighbours`);
  }
});

test('AMD keeps its fill on a large grid', () => {
  // 62,500 vertices (the marks' reset mid-run is tested in sparse-factorization.test.ts).
  const a = gridMatrix(250, 250);
  const perm = amdOrdering(a);
  const seen = new Uint8Array(perm.length);
  for (const i of perm) {
    assert.ok(i >= 0 && i < perm.length && !seen[i], `entry ${i} repeated or out of range`);
    seen[i] = 1;
  }
  const fill = choleskySymbolic(a, perm).factorNonzeros;
  const dissected = choleskySymbolic(a, nestedDissectionOrdering(a)).factorNonzeros;
  // On a regular grid nested dissection is near optimal; AMD lands within 10% of it.
  assert.ok(fill < dissected * 1.1, `amd fill ${fill} vs nested dissection ${dissected}`);
});

test('a matrix that is not positive definite raises NotPositiveDefiniteError, not NaN', () => {
  // Symmetric indefinite: eigenvalues 3 and -1.
  const indefinite = cscFromTriplets(2, 2, [0, 1, 0, 1], [0, 0, 1, 1], [1, 2, 2, 1]);
  for (const kernel of [true, false]) {
    assert.throws(
      () => choleskyNumeric(indefinite, choleskySymbolic(indefinite, identity(2)), undefined, kernel),
      NotPositiveDefiniteError,
    );
  }
  // Singular: a grid Laplacian without any Dirichlet row (constant null space).
  const w = 10;
  const ti: number[] = [];
  const tj: number[] = [];
  const tv: number[] = [];
  for (let i = 0; i + 1 < w; i++) {
    ti.push(i, i + 1, i, i + 1);
    tj.push(i + 1, i, i, i + 1);
    tv.push(-1, -1, 1, 1);
  }
  const singular = cscFromTriplets(w, w, ti, tj, tv);
  const singularSymbolic = choleskySymbolic(singular, nestedDissectionOrdering(singular));
  // Both loops (WebAssembly and JavaScript) stop at the same pivot and report the same row and value.
  const failures = [true, false].map((kernel) => {
    try {
      choleskyNumeric(singular, singularSymbolic, undefined, kernel);
    } catch (e) {
      return e;
    }
    return null;
  });
  for (const e of failures) {
    assert.ok(e instanceof NotPositiveDefiniteError && /not positive definite/.test(e.message), `raised ${String(e)}`);
  }
  const [fromKernel, fromLoop] = failures as NotPositiveDefiniteError[];
  assert.equal(fromKernel.index, fromLoop.index, 'the same row');
  assert.equal(fromKernel.pivot, fromLoop.pivot, 'the same pivot');
  assert.throws(() => choleskySymbolic(singular, Int32Array.from([0, 0, 1, 2, 3, 4, 5, 6, 7, 8])), /not a permutation/);
});
