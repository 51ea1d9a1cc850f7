/**
 * The fill-reducing ordering, symbolic analysis and supernodal factorization behind harmonic weights, held against
 * a second algorithm written here: a simplicial up-looking Cholesky (row k of L from the elimination tree reach of
 * row k of A, Davis 2006 "Direct Methods for Sparse Linear Systems" §4.2), column by column triangular solves, and
 * the harmonic weights' clamping and normalisation as their documentation states it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { cscFromTriplets, type CscMatrix } from '../../workers/sparse/csc-matrix.ts';
import { amdOfGraph, amdOrdering } from '../../workers/sparse/amd-ordering.ts';
import { symmetricAdjacency, type AdjacencyGraph } from '../../workers/sparse/symmetric-adjacency.ts';
import { AMD_MODULE_BASE64, amdKernel, amdKernelAvailable, amdKernelOfMatrix, amdModuleBytes } from '../../workers/sparse/amd-kernel.ts';
import { choleskySymbolic, type CholeskySymbolic } from '../../workers/sparse/cholesky-symbolic.ts';
import { kernelSymbolic, SYMBOLIC_MODULE_BASE64, symbolicModuleBytes } from '../../workers/sparse/symbolic-kernel.ts';
import { nestedDissectionOrdering } from '../../workers/sparse/nested-dissection-ordering.ts';
import { choleskyNumeric } from '../../workers/sparse/cholesky-numeric.ts';
import { factoredByKernel } from '../../workers/sparse/factor-kernel.ts';
import { cotangentLaplacian } from '../../workers/mesh/cotangent-laplacian.ts';
import { harmonicWeights } from '../../workers/weights/harmonic-weights.ts';
import { readOff } from '../../workers/formats/off.ts';
import { readObj } from '../../workers/formats/obj.ts';
import { readDmat } from '../../workers/formats/dmat.ts';
import { handlesFromDmat } from '../../workers/formats/weights-file.ts';
import { dataFile } from './shared-data.ts';

interface Mesh {
  positions: Float64Array;
  triangles: Uint32Array;
  handles: Int32Array;
  bones: number;
}

function hand(): Mesh {
  const mesh = readOff(readFileSync(dataFile('hand/hand.off'), 'utf8'), 'hand.off').mesh;
  const dmat = readDmat(new Uint8Array(readFileSync(dataFile('hand/hand-handles.dmat'))), 'hand-handles.dmat');
  return { ...mesh, handles: handlesFromDmat(dmat, mesh.positions.length / 3, 20, 'hand-handles.dmat'), bones: 20 };
}

function body(): Mesh {
  const mesh = readObj(readFileSync(dataFile('context-aware/reference.obj'), 'utf8'), 'reference.obj').mesh;
  const dmat = readDmat(new Uint8Array(readFileSync(dataFile('context-aware/handles.dmat'))), 'handles.dmat');
  return { ...mesh, handles: handlesFromDmat(dmat, mesh.positions.length / 3, 28, 'handles.dmat'), bones: 28 };
}

/**
 * K restricted to the free (non-handle) vertices, lower triangle, and the right-hand sides −K_fh·E, one dense
 * column per bone (#free × #B, column-major). Every vertex of these meshes is in a component with a handle.
 */
function freeSystem(mesh: Mesh): { kff: CscMatrix; rhs: Float64Array; free: Int32Array } {
  const n = mesh.handles.length;
  const freeIndex = new Int32Array(n).fill(-1);
  const free: number[] = [];
  for (let v = 0; v < n; v++) if (mesh.handles[v] < 0) freeIndex[v] = free.push(v) - 1;
  const isFree = Uint8Array.from(freeIndex, (f) => (f >= 0 ? 1 : 0));
  const k = cotangentLaplacian(mesh.positions, mesh.triangles, isFree);
  const colPointers = new Int32Array(free.length + 1);
  const rows: number[] = [];
  const values: number[] = [];
  const rhs = new Float64Array(free.length * mesh.bones);
  for (let f = 0; f < free.length; f++) {
    const v = free[f];
    for (let p = k.colPointers[v]; p < k.colPointers[v + 1]; p++) {
      const r = k.rowIndices[p];
      if (freeIndex[r] >= f) {
        rows.push(freeIndex[r]);
        values.push(k.values[p]);
      } else if (mesh.handles[r] >= 0) {
        rhs[mesh.handles[r] * free.length + f] -= k.values[p];
      }
    }
    colPointers[f + 1] = rows.length;
  }
  const m = free.length;
  return {
    kff: { rows: m, cols: m, colPointers, rowIndices: Int32Array.from(rows), values: Float64Array.from(values) },
    rhs,
    free: Int32Array.from(free),
  };
}

/** Full symmetric B = P A Pᵀ (both triangles) as column lists, from A's lower triangle. */
function permutedFull(a: CscMatrix, perm: Int32Array): { rows: number[][]; values: number[][] } {
  const n = a.cols;
  const inverse = new Int32Array(n);
  for (let k = 0; k < n; k++) inverse[perm[k]] = k;
  const rows: number[][] = Array.from({ length: n }, () => []);
  const values: number[][] = Array.from({ length: n }, () => []);
  for (let j = 0; j < n; j++) {
    for (let p = a.colPointers[j]; p < a.colPointers[j + 1]; p++) {
      const i = a.rowIndices[p];
      if (i < j) continue;
      rows[inverse[j]].push(inverse[i]);
      values[inverse[j]].push(a.values[p]);
      if (i !== j) {
        rows[inverse[i]].push(inverse[j]);
        values[inverse[i]].push(a.values[p]);
      }
    }
  }
  return { rows, values };
}

/**
 * Simplicial up-looking Cholesky of P A Pᵀ: for each k, the pattern of row k of L is the set of elimination tree
 * paths from the entries of column k above the diagonal up to k; a sparse triangular solve along it gives the row.
 *
 * @returns L by columns: rows (ascending after the diagonal first) and values
 */
function upLookingCholesky(a: CscMatrix, perm: Int32Array): { rows: number[][]; values: number[][] } {
  const n = a.cols;
  const b = permutedFull(a, perm);
  const parent = new Int32Array(n).fill(-1);
  const ancestor = new Int32Array(n).fill(-1);
  for (let k = 0; k < n; k++) {
    for (const i0 of b.rows[k]) {
      for (let i = i0; i !== -1 && i < k;) {
        const next = ancestor[i];
        ancestor[i] = k;
        if (next === -1) parent[i] = k;
        i = next;
      }
    }
  }
  const lRows: number[][] = Array.from({ length: n }, () => []);
  const lValues: number[][] = Array.from({ length: n }, () => []);
  const x = new Float64Array(n);
  const mark = new Int32Array(n).fill(-1);
  for (let k = 0; k < n; k++) {
    const reach: number[] = [];
    let d = 0;
    mark[k] = k;
    for (let q = 0; q < b.rows[k].length; q++) {
      const i0 = b.rows[k][q];
      if (i0 > k) continue;
      if (i0 === k) {
        d += b.values[k][q];
        continue;
      }
      x[i0] += b.values[k][q];
      const path: number[] = [];
      for (let i = i0; mark[i] !== k; i = parent[i]) {
        path.push(i);
        mark[i] = k;
      }
      // Paths are pushed so that the reversed list is in topological order (descendants first).
      for (let t = path.length - 1; t >= 0; t--) reach.push(path[t]);
    }
    const order = reach.reverse();
    for (const i of order) {
      const lki = x[i] / lValues[i][0];
      x[i] = 0;
      for (let p = 1; p < lRows[i].length; p++) x[lRows[i][p]] -= lValues[i][p] * lki;
      d -= lki * lki;
      lRows[i].push(k);
      lValues[i].push(lki);
    }
    assert.ok(d > 0, `reference Cholesky: pivot ${k} is ${d}`);
    lRows[k].push(k);
    lValues[k].push(Math.sqrt(d));
  }
  return { rows: lRows, values: lValues };
}

/** Solves L Lᵀ x = b for one column in pivot order, in place. */
function referenceSolve(l: { rows: number[][]; values: number[][] }, x: Float64Array): void {
  const n = x.length;
  for (let j = 0; j < n; j++) {
    x[j] /= l.values[j][0];
    for (let p = 1; p < l.rows[j].length; p++) x[l.rows[j][p]] -= l.values[j][p] * x[j];
  }
  for (let j = n - 1; j >= 0; j--) {
    for (let p = 1; p < l.rows[j].length; p++) x[j] -= l.values[j][p] * x[l.rows[j][p]];
    x[j] /= l.values[j][0];
  }
}

test("the ordering kernel's module kept as base64 is the one its builder writes", () => {
  const built = Buffer.from(amdModuleBytes()).toString('base64');
  assert.equal(AMD_MODULE_BASE64, built, "write the builder's output into AMD_MODULE_BASE64 (amd-kernel.ts)");
});

test('AMD gives the same ordering and fill when its marks are cleared before every step as when they run to the Int32 limit', () => {
  const { kff } = freeSystem(body());
  const graph = symmetricAdjacency(kff);
  const ordering = amdOfGraph(graph);
  // A limit of 2 clears the marks before every step, so no mark left by one step can be read by the next: a step
  // that raised the counter by too little would show as a different ordering here.
  const cleared = amdOfGraph(graph, 2);
  assert.equal(cleared.length, kff.cols);
  let differing = 0;
  for (let k = 0; k < ordering.length; k++) if (ordering[k] !== cleared[k]) differing++;
  assert.equal(differing, 0, 'the orderings agree pivot for pivot');
  // The fill, counted by the reference Cholesky: the analysis's count for the default ordering, and well under
  // a third of the natural ordering's (a minimum degree ordering of a surface mesh's Laplacian).
  const count = (perm: Int32Array) => upLookingCholesky(kff, perm).rows.reduce((sum, column) => sum + column.length, 0);
  const fill = count(cleared);
  assert.equal(fill, choleskySymbolic(kff, ordering).factorNonzeros, "the cleared ordering's fill is the default's");
  const natural = count(Int32Array.from({ length: kff.cols }, (_, k) => k));
  assert.ok(3 * fill < natural, `AMD's fill ${fill} is under a third of the natural ordering's ${natural}`);
});

/** A random symmetric graph without self loops: each vertex linked to about `degree` others. */
function randomGraph(n: number, degree: number, seed: number): AdjacencyGraph {
  let state = seed;
  const random = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
  const lists: Set<number>[] = Array.from({ length: n }, () => new Set());
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < degree / 2; k++) {
      const j = Math.floor(random() * n);
      if (j === i) continue;
      lists[i].add(j);
      lists[j].add(i);
    }
  }
  const offsets = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) offsets[i + 1] = offsets[i] + lists[i].size;
  return { vertexCount: n, offsets, neighbours: Int32Array.from(lists.flatMap((l) => [...l])) };
}

test("AMD's WebAssembly elimination orders as the JavaScript one does, pivot for pivot", () => {
  assert.ok(amdKernelAvailable(), 'WebAssembly runs here');
  const cases: [string, AdjacencyGraph, number][] = [
    ['hand', symmetricAdjacency(freeSystem(hand()).kff), 0x7fffffff],
    ['body', symmetricAdjacency(freeSystem(body()).kff), 0x7fffffff],
    // Marks cleared before every step: the clearing pass and the counter's restart.
    ['body, marks cleared every step', symmetricAdjacency(freeSystem(body()).kff), 2],
    ['random graph of 200', randomGraph(200, 6, 11), 0x7fffffff],
    // Fill far beyond the lists' first room: the memory grows while the elimination runs.
    ['random graph of 5,000', randomGraph(5000, 8, 5000), 0x7fffffff],
  ];
  for (const [name, graph, markLimit] of cases) {
    const n = graph.vertexCount;
    const eliminated = amdKernel(graph.offsets, graph.neighbours, Math.min(markLimit, 0x7fffffff - 3 * n - 1));
    assert.ok(eliminated !== null, `${name}: the kernel ran`);
    if (name.includes('5,000')) assert.ok(eliminated.grown, `${name}: the lists' memory grew`);
    const fromKernel = amdOfGraph(graph, markLimit);
    const fromLoop = amdOfGraph(graph, markLimit, false);
    let differing = 0;
    for (let k = 0; k < n; k++) if (fromKernel[k] !== fromLoop[k]) differing++;
    assert.equal(differing, 0, `${name}: the orderings agree pivot for pivot`);
  }
});

test("AMD's WebAssembly graph from a matrix's columns orders as the JavaScript graph and loop do, pivot for pivot", () => {
  const handKff = freeSystem(hand()).kff;
  const cases: [string, CscMatrix][] = [
    ['hand, lower triangle', handKff],
    ['body, lower triangle', freeSystem(body()).kff],
    ['random graph of 2,000, both triangles', graphMatrix(randomGraph(2000, 8, 2000), false)],
    [
      'random graph of 2,000, lower triangle, a diagonal entry missing in every third column',
      graphMatrix(randomGraph(2000, 8, 7), true, 3),
    ],
    ['random graph of 5,000, both triangles', graphMatrix(randomGraph(5000, 8, 5000), false)],
    ['one column', graphMatrix({ vertexCount: 1, offsets: Int32Array.from([0, 0]), neighbours: new Int32Array(0) }, true)],
  ];
  for (const [name, a] of cases) {
    const fromKernel = amdKernelOfMatrix(a, 0x7fffffff - 3 * a.cols - 1);
    assert.ok(fromKernel !== null, `${name}: the kernel ran`);
    const fromLoop = amdOfGraph(symmetricAdjacency(a), 0x7fffffff, false);
    let differing = 0;
    for (let k = 0; k < a.cols; k++) if (fromKernel[k] !== fromLoop[k]) differing++;
    assert.equal(differing, 0, `${name}: the orderings agree pivot for pivot`);
    assert.deepEqual(amdOrdering(a), fromKernel, `${name}: amdOrdering takes the kernel's ordering`);
  }
  const outside: CscMatrix = { ...handKff, rowIndices: handKff.rowIndices.slice() };
  outside.rowIndices[outside.rowIndices.length - 1] = handKff.cols;
  assert.equal(
    amdKernelOfMatrix(outside, 0x7fffffff - 3 * handKff.cols - 1),
    null,
    'a row outside the matrix: no ordering from the kernel',
  );
});

test("the analysis kernel's module kept as base64 is the one its builder writes", () => {
  const built = Buffer.from(symbolicModuleBytes()).toString('base64');
  assert.equal(SYMBOLIC_MODULE_BASE64, built, "write the builder's output into SYMBOLIC_MODULE_BASE64 (symbolic-kernel.ts)");
});

/**
 * A graph's pattern as a CSC matrix (values 1): both triangles or the lower one, with the diagonal entry left out
 * of every `skipDiagonal`-th column (0: none left out).
 */
function graphMatrix(graph: AdjacencyGraph, lowerOnly: boolean, skipDiagonal = 0): CscMatrix {
  const n = graph.vertexCount;
  const colPointers = new Int32Array(n + 1);
  const rows: number[] = [];
  for (let j = 0; j < n; j++) {
    const column = [...graph.neighbours.subarray(graph.offsets[j], graph.offsets[j + 1])].filter((i) => !lowerOnly || i > j);
    if (skipDiagonal === 0 || j % skipDiagonal !== 0) column.push(j);
    rows.push(...column.sort((a, b) => a - b));
    colPointers[j + 1] = rows.length;
  }
  return { rows: n, cols: n, colPointers, rowIndices: Int32Array.from(rows), values: new Float64Array(rows.length).fill(1) };
}

test("the analysis's WebAssembly passes give the JavaScript passes' analysis, field for field", () => {
  const { kff: handKff } = freeSystem(hand());
  const { kff: bodyKff } = freeSystem(body());
  // Two components of 300 and 200 vertices side by side (a forest with two roots).
  const left = randomGraph(300, 6, 3);
  const right = randomGraph(200, 4, 8);
  const forest: AdjacencyGraph = {
    vertexCount: 500,
    offsets: Int32Array.from([...left.offsets, ...right.offsets.subarray(1).map((o) => o + left.neighbours.length)]),
    neighbours: Int32Array.from([...left.neighbours, ...right.neighbours.map((v) => v + 300)]),
  };
  const single: AdjacencyGraph = { vertexCount: 1, offsets: Int32Array.from([0, 0]), neighbours: new Int32Array(0) };
  const cases: [string, CscMatrix, Int32Array][] = [
    ['hand, AMD', handKff, amdOrdering(handKff)],
    ['body, AMD', bodyKff, amdOrdering(bodyKff)],
    ['body, nested dissection', bodyKff, nestedDissectionOrdering(bodyKff)],
    ['random graph of 2,000, both triangles', graphMatrix(randomGraph(2000, 8, 2000), false), new Int32Array(0)],
    [
      'random graph of 2,000, lower triangle, a diagonal entry missing in every third column',
      graphMatrix(randomGraph(2000, 8, 7), true, 3),
      new Int32Array(0),
    ],
    // Dense enough that supernodes merge over many columns.
    ['random graph of 300, degree 40', graphMatrix(randomGraph(300, 40, 40), true), new Int32Array(0)],
    ['two components', graphMatrix(forest, false), new Int32Array(0)],
    // More columns than one call of a pass takes: the passes run in three ranges.
    ['random graph of 20,000', graphMatrix(randomGraph(20000, 6, 20), true), new Int32Array(0)],
    ['one column', graphMatrix(single, true), Int32Array.from([0])],
  ];
  for (const [name, a, given] of cases) {
    const perm = given.length === a.cols ? given : amdOrdering(a);
    const fromKernel = kernelSymbolic(a, perm);
    assert.ok(fromKernel !== null, `${name}: the kernel ran`);
    const fromLoop = choleskySymbolic(a, perm, false);
    for (const key of Object.keys(fromLoop) as (keyof CholeskySymbolic)[]) {
      assert.deepEqual(fromKernel[key], fromLoop[key], `${name}: ${key}`);
    }
  }
  // A pattern the passes refuse: the kernel hands it to the JavaScript passes, whose error names the place.
  const unsorted: CscMatrix = { ...handKff, rowIndices: handKff.rowIndices.slice() };
  const column = handKff.colPointers.findIndex((start, j) => j < handKff.cols && handKff.colPointers[j + 1] - start >= 3);
  const second = unsorted.colPointers[column] + 1;
  [unsorted.rowIndices[second], unsorted.rowIndices[second + 1]] = [unsorted.rowIndices[second + 1], unsorted.rowIndices[second]];
  assert.equal(kernelSymbolic(unsorted, amdOrdering(handKff)), null, 'unsorted rows: no analysis from the kernel');
  assert.throws(() => choleskySymbolic(unsorted, amdOrdering(handKff)), new RegExp(`column ${column} lists row .* rows must ascend`));
  // The same in the last of three ranges of columns.
  const large = graphMatrix(randomGraph(20000, 6, 20), true);
  const late = large.colPointers.findIndex((start, j) => j >= 19000 && large.colPointers[j + 1] - start >= 3);
  const lateRows = large.rowIndices.slice();
  [lateRows[large.colPointers[late] + 1], lateRows[large.colPointers[late] + 2]] = [
    lateRows[large.colPointers[late] + 2],
    lateRows[large.colPointers[late] + 1],
  ];
  const lateUnsorted: CscMatrix = { ...large, rowIndices: lateRows };
  const lateOrdering = amdOrdering(large);
  assert.equal(kernelSymbolic(lateUnsorted, lateOrdering), null, 'unsorted rows in a late column: no analysis from the kernel');
  assert.throws(() => choleskySymbolic(lateUnsorted, lateOrdering), new RegExp(`column ${late} lists row .* rows must ascend`));
  const repeated = amdOrdering(handKff);
  repeated[5] = repeated[4];
  assert.equal(kernelSymbolic(handKff, repeated), null, 'a repeated pivot: no analysis from the kernel');
  assert.throws(() => choleskySymbolic(handKff, repeated), /ordering is not a permutation \(entry 5 = /);
});

/**
 * The supernodal factor of kff under `symbolic` against the up-looking reference: every column's count, every
 * reference entry at its row in the supernode block, every other stored row an explicit zero.
 *
 * @returns the largest difference and the largest reference entry
 */
function differenceFromReference(
  name: string,
  kff: CscMatrix,
  symbolic: CholeskySymbolic,
  values: Float64Array,
): { worst: number; largest: number } {
  const reference = upLookingCholesky(kff, symbolic.perm);
  let referenceNonzeros = 0;
  let worst = 0;
  let largest = 0;
  const { supernodeCount, supernodeStart, rowPointers, rows, valuePointers } = symbolic;
  const local = new Int32Array(kff.cols).fill(-1);
  for (let s = 0; s < supernodeCount; s++) {
    const ld = rowPointers[s + 1] - rowPointers[s];
    for (let r = 0; r < ld; r++) local[rows[rowPointers[s] + r]] = r;
    for (let j = supernodeStart[s]; j < supernodeStart[s + 1]; j++) {
      const base = valuePointers[s] + (j - supernodeStart[s]) * ld;
      const expected = new Map<number, number>();
      for (let p = 0; p < reference.rows[j].length; p++) expected.set(reference.rows[j][p], reference.values[j][p]);
      referenceNonzeros += expected.size;
      assert.equal(symbolic.columnCounts[j], expected.size, `${name}: column ${j} has the reference's count`);
      for (const [row, value] of expected) {
        assert.ok(row >= supernodeStart[s] && local[row] >= 0, `${name}: row ${row} of column ${j} is in its supernode`);
        worst = Math.max(worst, Math.abs(values[base + local[row]] - value));
        largest = Math.max(largest, Math.abs(value));
      }
      // Rows the supernode stores beyond column j's own are explicit zeros.
      for (let r = j - supernodeStart[s]; r < ld; r++) {
        if (!expected.has(rows[rowPointers[s] + r])) worst = Math.max(worst, Math.abs(values[base + r]));
      }
    }
    for (let r = 0; r < ld; r++) local[rows[rowPointers[s] + r]] = -1;
  }
  assert.equal(symbolic.factorNonzeros, referenceNonzeros, `${name}: the factor's non-zeros are the reference's`);
  return { worst, largest };
}

/**
 * The factor by the WebAssembly loop (checked to be the one that ran) and by the JavaScript loop, each held against
 * the up-looking reference to 1e-12 of the largest entry.
 */
function bothLoopsMatchReference(name: string, a: CscMatrix, symbolic: CholeskySymbolic): void {
  for (const kernel of [true, false]) {
    const values = choleskyNumeric(a, symbolic, undefined, kernel).values;
    const loop = kernel ? 'WebAssembly loop' : 'JavaScript loop';
    assert.equal(factoredByKernel(values), kernel, `${name}: the ${loop} factored it`);
    const { worst, largest } = differenceFromReference(name, a, symbolic, values);
    assert.ok(worst <= 1e-12 * largest, `${name}, ${loop}: largest difference ${worst} against entries up to ${largest}`);
  }
}

test('the supernodal factor of the hand and body Laplacians equals a simplicial up-looking Cholesky to 1e-12', () => {
  for (const [name, mesh] of [
    ['hand', hand()],
    ['body', body()],
  ] as const) {
    const { kff } = freeSystem(mesh);
    bothLoopsMatchReference(name, kff, choleskySymbolic(kff, amdOrdering(kff)));
  }
});

/**
 * Dense diagonal blocks A (p columns), F (f), W (w) and C (r) in that order, with F–W, W–C, A–W and A–C coupled
 * (random negative couplings, a dominant diagonal): in their natural order A is one supernode, F another (its
 * columns stop short of C), and W with C a third, which A updates in all its w + r columns. With d > 0 a dense
 * block D of d columns follows, whose first column alone is coupled to A: A's update of W with C then also reaches
 * a row below that supernode's columns (D's first), and A goes on to update D, a fourth supernode when d ≥ 2.
 */
function fourBlocks(p: number, f: number, w: number, r: number, seed: number, d = 0): CscMatrix {
  let state = seed;
  const random = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
  const n = p + f + w + r + d;
  const firstOfD = p + f + w + r;
  const block = (k: number) => (k < p ? 'A' : k < p + f ? 'F' : k < p + f + w ? 'W' : k < firstOfD ? 'C' : 'D');
  const couplings = new Set(['AA', 'FF', 'WW', 'CC', 'DD', 'FW', 'WC', 'AW', 'AC']);
  const dense = new Float64Array(n * n);
  for (let j = 0; j < n; j++) {
    for (let i = j + 1; i < n; i++) {
      if (!couplings.has(block(j) + block(i)) && !(block(j) === 'A' && i === firstOfD)) continue;
      const value = -0.1 - random();
      dense[j * n + i] = value;
      dense[i * n + j] = value;
    }
  }
  const tripletRows: number[] = [];
  const tripletCols: number[] = [];
  const values: number[] = [];
  for (let j = 0; j < n; j++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += Math.abs(dense[j * n + i]);
    dense[j * n + j] = sum + 0.5 + random();
    for (let i = j; i < n; i++) {
      if (i !== j && dense[j * n + i] === 0) continue;
      tripletRows.push(i);
      tripletCols.push(j);
      values.push(dense[j * n + i]);
    }
  }
  return cscFromTriplets(n, n, tripletRows, tripletCols, values);
}

test('the supernodal factor equals the up-looking Cholesky to 1e-12 for descendants of 1–9 columns updating 2–10', () => {
  // Descendants of one to nine columns reach every kernel: the single-column update, one pass of one to four columns,
  // several passes with a partial pass of one to three columns or none; update widths two to ten reach four columns
  // at a time, a pair after them, and a last odd column. Blocks of one to ten columns do the same for the dense
  // factorization of a supernode's own columns.
  for (let p = 1; p <= 9; p++) {
    for (let w = 1; w <= 8; w++) {
      const f = 5 + ((p + w) % 5);
      const r = 1 + (p % 2);
      const name = `A ${p}, F ${f}, W ${w}, C ${r}`;
      const a = fourBlocks(p, f, w, r, 1000 * p + w);
      const symbolic = choleskySymbolic(
        a,
        Int32Array.from({ length: a.cols }, (_, k) => k),
      );
      assert.deepEqual(Array.from(symbolic.supernodeStart), [0, p, p + f, a.cols], `${name}: A, F and W with C are the supernodes`);
      bothLoopsMatchReference(name, a, symbolic);
    }
  }
});

test('the supernodal factor equals the up-looking Cholesky to 1e-12 where a descendant of 1–9 columns also updates rows below its target', () => {
  // A updates W with C in all its columns and in one row below them (D's first column), then D: the update kernels'
  // rows below the target and the descendant's move on to a later target.
  for (let p = 1; p <= 9; p++) {
    for (let w = 1; w <= 6; w++) {
      const f = 5 + ((p + w) % 5);
      const r = 1 + (p % 2);
      const d = 2 + (w % 3);
      const name = `A ${p}, F ${f}, W ${w}, C ${r}, D ${d}`;
      const a = fourBlocks(p, f, w, r, 7000 * p + w, d);
      const symbolic = choleskySymbolic(
        a,
        Int32Array.from({ length: a.cols }, (_, k) => k),
      );
      const firstOfD = p + f + w + r;
      assert.deepEqual(
        Array.from(symbolic.supernodeStart),
        [0, p, p + f, firstOfD, a.cols],
        `${name}: A, F, W with C, and D are the supernodes`,
      );
      const { rowPointers, rows } = symbolic;
      assert.deepEqual(
        Array.from(rows.subarray(rowPointers[0] + p, rowPointers[1])),
        [...Array.from({ length: w + r }, (_, k) => p + f + k), firstOfD],
        `${name}: A's rows below are W, C and D's first column`,
      );
      bothLoopsMatchReference(name, a, symbolic);
    }
  }
});

test("harmonic weights on the hand and body equal a simplicial solve's, clamped and normalised, to 1e-12", () => {
  for (const [name, mesh] of [
    ['hand', hand()],
    ['body', body()],
  ] as const) {
    const result = harmonicWeights(mesh.positions, mesh.triangles, mesh.handles, mesh.bones, { weld: false });
    assert.equal(result.laplacianUsed, 'cotan', `${name}: the cotangent Laplacian is positive definite on the free vertices`);
    const { kff, rhs, free } = freeSystem(mesh);
    const perm = amdOrdering(kff);
    const l = upLookingCholesky(kff, perm);
    const m = free.length;
    const solved = new Float64Array(m * mesh.bones);
    const x = new Float64Array(m);
    for (let b = 0; b < mesh.bones; b++) {
      for (let k = 0; k < m; k++) x[k] = rhs[b * m + perm[k]];
      referenceSolve(l, x);
      for (let k = 0; k < m; k++) solved[perm[k] * mesh.bones + b] = x[k];
    }
    let worst = 0;
    const row = new Float64Array(mesh.bones);
    for (let f = 0; f < m; f++) {
      let sum = 0;
      for (let b = 0; b < mesh.bones; b++) {
        row[b] = Math.min(1, Math.max(0, solved[f * mesh.bones + b]));
        sum += row[b];
      }
      const v = free[f];
      for (let b = 0; b < mesh.bones; b++) worst = Math.max(worst, Math.abs(result.weights[v * mesh.bones + b] - row[b] / sum));
    }
    for (let v = 0; v < mesh.handles.length; v++) {
      const h = mesh.handles[v];
      if (h >= 0) assert.equal(result.weights[v * mesh.bones + h], 1, `${name}: handle vertex ${v} has weight 1 on its bone`);
    }
    assert.ok(worst <= 1e-12, `${name}: largest difference from the reference weights ${worst}`);
  }
});
