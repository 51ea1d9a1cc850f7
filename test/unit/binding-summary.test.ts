/**
 * The binding report's data (renderer/bind/binding-summary.ts) on a small scene of three shells made here: a
 * tetrahedron split into four separate faces (12 vertices at 4 places), an open quad with no handles, and a closed
 * tetrahedron. The surface solve's own report (harmonicWeights) says which part had no handles; the lines' vertices
 * are checked against the shells as built.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bindingSummary, bindingSummaryCommands, type LastCompute } from '../../renderer/bind/binding-summary.ts';
import { joinMeshes } from '../../renderer/document/mesh-parts.ts';
import { harmonicWeights } from '../../workers/weights/harmonic-weights.ts';
import type { TransferRecord } from '../../renderer/meshes/last-transfer.ts';
import { weldVertices } from '../../workers/mesh/weld-vertices.ts';
import { weldedShells } from '../../workers/weights/binding-method.ts';
import { volumetricWeights } from '../../workers/weights/volumetric-weights.ts';

const CORNERS = [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1];
const FACES = [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3];

/** The three shells: vertices 0–11 the split tetrahedron, 12–15 the quad (x = 5), 16–19 the tetrahedron (x = 10). */
function threeShells(): { positions: Float64Array; triangles: Uint32Array } {
  const positions: number[] = [];
  const triangles: number[] = [];
  for (let f = 0; f < 4; f++)
    for (let k = 0; k < 3; k++) {
      const c = FACES[3 * f + k];
      positions.push(CORNERS[3 * c], CORNERS[3 * c + 1], CORNERS[3 * c + 2]);
      triangles.push(3 * f + k);
    }
  positions.push(5, 0, 0, 6, 0, 0, 6, 1, 0, 5, 1, 0);
  triangles.push(12, 13, 14, 12, 14, 15);
  for (let c = 0; c < 4; c++) positions.push(CORNERS[3 * c] + 10, CORNERS[3 * c + 1], CORNERS[3 * c + 2]);
  for (const c of FACES) triangles.push(16 + c);
  return { positions: Float64Array.from(positions), triangles: Uint32Array.from(triangles) };
}

/** The bind's weld of the mesh and its shells, as the controller keeps them; no auto reason, no volumetric result. */
function boundOn(mesh: { positions: Float64Array; triangles: Uint32Array }) {
  const weld = weldVertices(mesh.positions, mesh.triangles);
  return { weld, shellOf: weldedShells(weld).labels, reason: '', volumetric: null };
}

/** The vertices a line selects, as a list. */
const listed = (vertices: Uint8Array): number[] => [...vertices].flatMap((s, v) => (s ? [v] : []));
const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i);

/** Handles: bone 0 at corner 0 and bone 1 at corner 2 of the split tetrahedron and the closed one; none on the quad. */
function surfaceSolve(mesh: { positions: Float64Array; triangles: Uint32Array }) {
  const handles = new Int32Array(20).fill(-1);
  handles[0] = 0;
  handles[1] = 1;
  handles[16] = 0;
  handles[18] = 1;
  return harmonicWeights(mesh.positions, mesh.triangles, handles, 2, { unhandledComponents: 'bind-rigidly' });
}

test('surface bind of three shells: two bound harmonically, the quad without handles bound rigidly, 12 split vertices welded into 4', () => {
  const mesh = threeShells();
  const solve = surfaceSolve(mesh);
  assert.equal(solve.unhandledComponents.length, 1, 'the quad alone has no handles');
  const bone = solve.unhandledComponents[0].nearestBone;
  const last: LastCompute = {
    part: null,
    method: 'surface',
    unhandledComponents: solve.unhandledComponents,
    boundRigidly: true,
    weldTolerance: 0,
    ...boundOn(mesh),
  };
  const lines = bindingSummary(mesh, last, null, ['root', 'arm']);
  assert.deepEqual(
    lines.map((l) => [l.kind, l.text]),
    [
      ['surface', 'Surface harmonic weights: 2 shells, 16 vertices'],
      ['rigid', `Bound rigidly to ${['root', 'arm'][bone]} (no handles): 1 shell, 4 vertices`],
      ['welded', 'Welded: 12 vertices at the same place bound as 4'],
    ],
  );
  assert.deepEqual(listed(lines[0].vertices), [...range(0, 12), ...range(16, 20)], 'the two tetrahedra');
  assert.deepEqual(listed(lines[1].vertices), range(12, 16), 'the quad');
  assert.deepEqual(listed(lines[2].vertices), range(0, 12), 'the split faces’ corners');
  assert.deepEqual(
    lines.map((l) => l.count),
    [16, 4, 12],
  );

  // Left at weight 0 when not bound rigidly; volumetric binds every shell.
  const unbound = bindingSummary(mesh, { ...last, boundRigidly: false }, null, ['root', 'arm']);
  assert.equal(unbound[1].text, 'Left unbound (no handles, weight 0): 1 shell, 4 vertices');
  const volumetric = bindingSummary(mesh, { ...last, method: 'volumetric', unhandledComponents: [] }, null, ['root', 'arm']);
  assert.deepEqual(
    volumetric.map((l) => l.text),
    ['Volumetric weights: 3 shells, 20 vertices', 'Welded: 12 vertices at the same place bound as 4'],
  );
});

test('a volumetric bind’s lines say why auto chose it and what the binding made up: the quad no bone reaches took its weights from the nearest voxels bones reach', () => {
  const mesh = threeShells();
  // A bone inside each tetrahedron; none reaches the quad's solid.
  const skeleton = {
    joints: Float64Array.of(0.2, 0.2, 0.2, 0.3, 0.3, 0.3, 10.2, 0.2, 0.2, 10.3, 0.3, 0.3),
    bones: Uint32Array.of(0, 1, 2, 3),
  };
  const result = volumetricWeights(mesh.positions, mesh.triangles, skeleton, { resolution: 64 });
  assert.equal(result.verticesFromNearestVoxel, 4, 'the quad’s four vertices');
  const last: LastCompute = {
    part: null,
    method: 'volumetric',
    unhandledComponents: [],
    boundRigidly: false,
    weldTolerance: 0,
    ...boundOn(mesh),
    reason: 'auto chose volumetric: 3 shells after welding',
    volumetric: result,
  };
  const lines = bindingSummary(mesh, last, null, ['left', 'right']);
  assert.deepEqual(
    lines.map((l) => [l.kind, l.text, l.count]),
    [
      ['volumetric', 'Volumetric weights: 3 shells, 20 vertices', 20],
      ['note', 'Auto chose volumetric: 3 shells after welding', 0],
      ['note', '4 vertices in shells no bone reaches took their weights from the nearest voxels bones reach', 0],
      ['welded', 'Welded: 12 vertices at the same place bound as 4', 12],
    ],
  );
});

test('a bind of one mesh of the scene speaks of its vertices alone, at their place in the scene; the last transfer’s lines follow', () => {
  const shells = threeShells();
  const { mesh, parts } = joinMeshes([
    { name: 'card.obj', mesh: { positions: Float64Array.of(0, 5, 0, 1, 5, 0, 0, 6, 0), triangles: Uint32Array.of(0, 1, 2) } },
    { name: 'body.obj', mesh: shells },
  ]);
  const part = parts[1];
  assert.equal(part.vertexStart, 3);
  const solve = surfaceSolve(shells);
  const last: LastCompute = {
    part,
    method: 'surface',
    // The controller gives the scene's numbering.
    unhandledComponents: solve.unhandledComponents.map((c) => ({ ...c, firstVertex: c.firstVertex + 3 })),
    boundRigidly: false,
    weldTolerance: 0,
    ...boundOn(shells),
  };
  const status = new Int8Array(23).fill(-1);
  status.set([0, 1, 2], 0);
  const transfer: TransferRecord = { source: 'body.obj', target: 'card.obj', status, counts: { matched: 1, inpainted: 1, nearest: 1 } };
  const lines = bindingSummary(mesh, last, transfer, ['root', 'arm']);
  assert.deepEqual(
    lines.map((l) => l.text),
    [
      'Surface harmonic weights: 2 shells of body.obj, 16 vertices',
      'Left unbound (no handles, weight 0): 1 shell of body.obj, 4 vertices',
      'Welded: 12 vertices of body.obj at the same place bound as 4',
      'Transfer from body.obj to card.obj: 1 vertex matched',
      'Transfer from body.obj to card.obj: 1 vertex inpainted',
      'Transfer from body.obj to card.obj: 1 vertex with no match (their closest points’ weights)',
    ],
  );
  assert.deepEqual(listed(lines[0].vertices), [...range(3, 15), ...range(19, 23)]);
  assert.deepEqual(listed(lines[1].vertices), range(15, 19));
  assert.deepEqual(listed(lines[3].vertices), [0]);
  assert.deepEqual(listed(lines[4].vertices), [1]);
  assert.deepEqual(listed(lines[5].vertices), [2]);

  // Select: the line's vertices replace the selection; a line that is not there is refused, naming how many there are.
  const selected: Uint8Array[] = [];
  const handlers = bindingSummaryCommands({
    binding: { selectVertices: (inside) => selected.push(inside) },
    bindingSummary: () => lines,
  });
  assert.equal(handlers['bind.selectReported'].run(1), 4, 'four vertices selected');
  assert.deepEqual(listed(selected[0]), range(15, 19));
  assert.throws(() => handlers['bind.selectReported'].run(6), /the binding report has 6 lines; there is no line 6/);
});
