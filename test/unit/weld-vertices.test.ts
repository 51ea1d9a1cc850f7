import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spreadWeldedRows, weldedHandles, weldRoots, weldVertices } from '../../workers/mesh/weld-vertices.ts';
import { kernelConnectedComponents, MESH_MODULE_BASE64, meshModuleBytes } from '../../workers/mesh/mesh-kernel.ts';
import { connectedComponents } from '../../workers/mesh/connected-components.ts';
import { seededRandom } from './seeded-random.ts';
import { splitCube } from './split-cube.ts';

/** Groups by the O(V²) definition: the transitive closure of "within the tolerance" (exact equality at 0). */
function bruteForceGroups(positions: Float64Array, tolerance: number): Int32Array {
  const n = positions.length / 3;
  const group = Int32Array.from({ length: n }, (_, i) => i);
  const near = (a: number, b: number) =>
    Math.hypot(
      positions[3 * a] - positions[3 * b],
      positions[3 * a + 1] - positions[3 * b + 1],
      positions[3 * a + 2] - positions[3 * b + 2],
    ) <= tolerance;
  let changed = true;
  while (changed) {
    changed = false;
    for (let a = 0; a < n; a++)
      for (let b = 0; b < n; b++) {
        if (group[a] !== group[b] && near(a, b)) {
          const low = Math.min(group[a], group[b]);
          group[a] = group[b] = low;
          changed = true;
        }
      }
  }
  return group;
}

test('weldVertices: a cube split into its six faces welds 24 vertices into its 8 corners, 12 triangles, one piece', () => {
  const cube = splitCube();
  assert.equal(connectedComponents(24, cube.triangles).count, 6, 'the split cube is six pieces by index');
  const weld = weldVertices(cube.positions, cube.triangles);
  assert.equal(weld.count, 8);
  assert.equal(weld.triangles.length, 36, 'no triangle of the cube is degenerate');
  assert.equal(connectedComponents(weld.count, weld.triangles).count, 1, 'welded, the cube is one piece');
  // Each corner of the unit cube is shared by exactly three faces.
  const members = new Int32Array(weld.count);
  for (const w of weld.index) members[w]++;
  assert.deepEqual([...members], new Array(8).fill(3));
  for (let v = 0; v < 24; v++) {
    const w = weld.index[v];
    assert.deepEqual([...weld.positions.subarray(3 * w, 3 * w + 3)], [...cube.positions.subarray(3 * v, 3 * v + 3)], `vertex ${v}`);
    assert.ok(weld.representative[w] <= v, `the representative of vertex ${v}'s group is its first vertex`);
  }
  // The member lists name each group's vertices, ascending.
  for (let w = 0; w < weld.count; w++) {
    const members = [...weld.members.subarray(weld.memberStart[w], weld.memberStart[w + 1])];
    assert.deepEqual(
      members,
      [...weld.index.keys()].filter((v) => weld.index[v] === w),
      `welded vertex ${w}'s members`,
    );
  }
  // Welded vertices are numbered by their first member, which is a member.
  for (let w = 0; w < weld.count; w++) {
    assert.equal(weld.index[weld.representative[w]], w, `welded vertex ${w}'s representative is its own`);
    if (w > 0) assert.ok(weld.representative[w] > weld.representative[w - 1], 'representatives increase');
  }
});

test('weldVertices: a tolerance joins a gap within it and leaves one beyond it; the welded position is the first vertex', () => {
  // Two triangles along the x axis, the second one's shared edge moved 1e-4 off the first's.
  const gap = 1e-4;
  const positions = Float64Array.from([0, 0, 0, 1, 0, 0, 0, 1, 0, 1 + gap, 0, 0, 1, 1, 0, gap, 1, 0]);
  const triangles = Uint32Array.from([0, 1, 2, 3, 4, 5]);
  const exact = weldVertices(positions, triangles);
  assert.equal(exact.count, 6, 'tolerance 0 welds nothing that is only near');
  const joined = weldVertices(positions, triangles, { tolerance: 1e-3 });
  assert.equal(joined.count, 4);
  assert.deepEqual([...joined.index], [0, 1, 2, 1, 3, 2]);
  assert.deepEqual([...joined.positions.subarray(3, 6)], [1, 0, 0], 'vertex 3 welds into vertex 1, which keeps its position');
  assert.deepEqual([...joined.triangles], [0, 1, 2, 1, 3, 2]);
  const apart = weldVertices(positions, triangles, { tolerance: 0.5 * gap });
  assert.equal(apart.count, 6, 'a tolerance below the gap joins nothing');
});

test('weldVertices: chains within the tolerance weld transitively; a triangle whose corners weld together is dropped', () => {
  // 0 – 0.6 – 1.2 on x: neighbours within 1, the ends 1.2 apart; one triangle has two corners 0.6 apart.
  const positions = Float64Array.from([0, 0, 0, 0.6, 0, 0, 1.2, 0, 0, 0, 5, 0, 0, 9, 0]);
  const triangles = Uint32Array.from([0, 1, 3, 2, 3, 4, 0, 3, 4]);
  const weld = weldVertices(positions, triangles, { tolerance: 1 });
  assert.deepEqual([...weld.index], [0, 0, 0, 1, 2], 'single linkage: the chain is one group');
  assert.deepEqual([...weld.triangles], [0, 1, 2, 0, 1, 2], 'the first triangle degenerates and is dropped');
});

test('weldVertices: −0 and +0 are the same position; a face naming a missing vertex and a bad tolerance are refused', () => {
  const weld = weldVertices(Float64Array.from([0, -0, 1, -0, 0, 1]), new Uint32Array(0));
  assert.equal(weld.count, 1);
  assert.throws(
    () => weldVertices(Float64Array.from([0, 0, 0]), Uint32Array.from([0, 0, 1])),
    /weldVertices: face 0 names a vertex outside \[0, 1\)/,
  );
  assert.throws(() => weldVertices(new Float64Array(3), new Uint32Array(0), { tolerance: -1 }), /weldVertices: the tolerance must be/);
  assert.throws(() => weldVertices(new Float64Array(3), new Uint32Array(0), { tolerance: NaN }), /weldVertices: the tolerance must be/);
});

test('weldVertices: on random clustered points the groups are the brute-force transitive closure, exact and with tolerances', () => {
  const random = seededRandom(7);
  const n = 400;
  const positions = new Float64Array(3 * n);
  for (let v = 0; v < n; v++) {
    // A third of the points repeat an earlier one exactly; the rest scatter on a coarse lattice with small jitter.
    if (v > 0 && random() < 0.33) {
      const u = Math.floor(random() * v);
      positions.copyWithin(3 * v, 3 * u, 3 * u + 3);
      continue;
    }
    for (let k = 0; k < 3; k++) positions[3 * v + k] = Math.floor(random() * 5) * 0.1 + (random() - 0.5) * 0.02;
  }
  for (const tolerance of [0, 0.005, 0.02, 0.05]) {
    const weld = weldVertices(positions, new Uint32Array(0), { tolerance });
    const expected = bruteForceGroups(positions, tolerance);
    for (let v = 0; v < n; v++)
      assert.equal(
        weld.representative[weld.index[v]],
        expected[v],
        `tolerance ${tolerance}: vertex ${v}'s group starts at its lowest member`,
      );
  }
});

test('the welding hash and the components in WebAssembly give the JavaScript loops’ roots and labels, faces outside the mesh left to the JavaScript', () => {
  const random = seededRandom(31);
  const n = 30_000; // several of the kernels' ranges
  const positions = new Float64Array(3 * n);
  for (let v = 0; v < n; v++) {
    if (v > 0 && random() < 0.3) {
      const u = Math.floor(random() * v);
      positions.copyWithin(3 * v, 3 * u, 3 * u + 3);
      continue;
    }
    for (let k = 0; k < 3; k++) positions[3 * v + k] = Math.floor(random() * 40) * 0.25;
  }
  // Signed zeros weld together; NaN positions weld with nothing, not even each other.
  positions.set([0, -0, 0.25], 30);
  positions.set([-0, 0, 0.25], 60);
  positions.set([NaN, 0, 0], 90);
  positions.set([NaN, 0, 0], 120);
  const fromLoop = weldRoots(positions, {}, false);
  const fromKernel = weldRoots(positions, {}, true);
  assert.deepEqual(fromKernel, fromLoop, 'the same roots and group count');
  assert.ok(fromLoop.count < n * 0.8 && fromLoop.count > n * 0.3, `many vertices weld (${fromLoop.count} groups of ${n})`);
  assert.equal(fromKernel.root[20], 10, 'vertex 20 (0, −0, 0.25) welds to vertex 10 (−0, 0, 0.25)');
  assert.deepEqual([fromKernel.root[30], fromKernel.root[40]], [30, 40], 'NaN positions stay their own roots');

  // Components: random faces among a third of the vertices, the others isolated or in faces of their own.
  const faces = 20_000;
  const triangles = new Uint32Array(3 * faces);
  for (let i = 0; i < triangles.length; i++) triangles[i] = Math.floor(random() * (i % 5 === 0 ? n : n / 3));
  const loop = connectedComponents(n, triangles, false);
  const kernel = connectedComponents(n, triangles, true);
  assert.equal(kernel.count, loop.count, 'the same component count');
  assert.deepEqual(kernel.labels, loop.labels, 'the same labels');
  assert.ok(loop.count > 1000 && loop.count < n, `many components, some large (${loop.count})`);
  assert.equal(kernelConnectedComponents(n, Uint32Array.from([0, 1, n])), null, 'a face outside the mesh is left to the JavaScript');
  assert.throws(() => connectedComponents(n, Uint32Array.from([0, 1, 2, 0, 1, n])), /connectedComponents: face 1 names a vertex outside/);
});

test("the mesh kernel's module kept as base64 is the one its builder writes", () => {
  const built = Buffer.from(meshModuleBytes()).toString('base64');
  assert.equal(MESH_MODULE_BASE64, built, "write the builder's output into MESH_MODULE_BASE64 (mesh-kernel.ts)");
});

test('spreadWeldedRows and weldedHandles: a welded row reaches every member; a group takes its first handle member’s bone', () => {
  const cube = splitCube();
  const weld = weldVertices(cube.positions, cube.triangles);
  const rows = Float64Array.from({ length: 2 * weld.count }, (_, i) => i);
  const spread = spreadWeldedRows(rows, weld, 2, new Float64Array(2 * 24));
  for (let v = 0; v < 24; v++) assert.deepEqual([...spread.subarray(2 * v, 2 * v + 2)], [2 * weld.index[v], 2 * weld.index[v] + 1]);
  const handles = new Int32Array(24).fill(-1);
  // The three members of corner (0, 0, 0): a handle of bone 1 on the last, of bone 0 on the middle one.
  const origin = [...weld.index.keys()].filter((v) => weld.index[v] === weld.index[0]);
  handles[origin[2]] = 1;
  handles[origin[1]] = 0;
  const labels = weldedHandles(handles, weld);
  assert.equal(labels[weld.index[0]], 0, 'the lower member that is a handle decides');
  assert.equal(labels.filter((h) => h >= 0).length, 1, 'the other corners stay free');
});
