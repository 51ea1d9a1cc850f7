/**
 * Binding on the welded topology: vertices at one position (a mesh split at seams or flat-shaded) get identical
 * weights, so posing never pulls them apart, while the mesh itself keeps its split vertices.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { harmonicWeights } from '../../workers/weights/harmonic-weights.ts';
import { bindingReport } from '../../workers/weights/binding-report.ts';
import { automaticHandles } from '../../workers/weights/automatic-handles.ts';
import { weldVertices, type WeldedVertices } from '../../workers/mesh/weld-vertices.ts';
import { boundingBox } from '../../workers/mesh/bounds.ts';
import { importGltf } from '../../workers/formats/gltf-import.ts';
import { poseForwardKinematics } from '../../workers/rig/forward-kinematics.ts';
import { influencesFromWeights, INFLUENCE_DEFAULTS } from '../../workers/skinning/influences.ts';
import { linearBlendSkinning } from '../../workers/skinning/linear-blend-skinning.ts';
import { withDerived, type SceneDocument } from '../../workers/scene/scene-document.ts';
import { boneWeightEdit, smoothBoneEdit } from '../../workers/scene/scene-edits.ts';
import { vertexOneRing } from '../../workers/paint/vertex-one-ring.ts';
import { mirrorVertexMap } from '../../workers/paint/mirror-vertex-map.ts';
import { mirrorWeights } from '../../workers/paint/mirror-weights.ts';
import { createPaintContext, paintDab, type DabSymmetry } from '../../workers/paint/paint-dab.ts';
import { createVertexGrid } from '../../workers/paint/vertex-grid.ts';
import { defaultPaintSettings, type PaintWeights } from '../../workers/paint/paint-weights.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import type { MeshPart } from '../../workers/formats/types.ts';
import { dataFile } from './shared-data.ts';
import { splitCube } from './split-cube.ts';
import { bindInProcess, headlessBindingController } from './headless-hosts.ts';

/** Members of a welded vertex whose rows of `weights` differ from their group's first member's, bit for bit. */
function rowsDifferingInGroups(weights: Float64Array, boneCount: number, weld: WeldedVertices): number {
  let differing = 0;
  for (let v = 0; v < weld.index.length; v++) {
    const first = weld.representative[weld.index[v]];
    for (let b = 0; b < boneCount; b++) {
      if (!Object.is(weights[v * boneCount + b], weights[first * boneCount + b])) {
        differing++;
        break;
      }
    }
  }
  return differing;
}

test('a cube split into six faces binds with identical weights on every coincident group, harmonic across the seams', () => {
  const cube = splitCube(4);
  const n = cube.positions.length / 3;
  const weld = weldVertices(cube.positions, cube.triangles);
  assert.equal(weld.count, 6 * 4 * 4 + 2, 'the 4 × 4 cube has 98 distinct vertices');
  // Handles drawn on two faces' own vertices only: face x = 0 holds bone 0, face x = 1 bone 1.
  const handles = new Int32Array(n).fill(-1);
  for (let v = 0; v < n; v++) if (cube.face[v] < 2) handles[v] = cube.face[v];
  const result = harmonicWeights(cube.positions, cube.triangles, handles, 2);
  assert.equal(result.unhandledComponents.length, 0, 'welded, the side faces are joined to the handle faces');
  assert.equal(result.weldedVertexCount, weld.count);
  assert.equal(rowsDifferingInGroups(result.weights, 2, weld), 0, 'coincident vertices have bit-identical weights');
  // The cotangent Laplacian reproduces linear functions on planar one-rings and along the cube's straight edges
  // (moving a crease vertex along its crease leaves the one-ring's area unchanged), so with x = 0 and x = 1 held,
  // bone 1's harmonic weight is x itself.
  for (let v = 0; v < n; v++) {
    const x = cube.positions[3 * v];
    assert.ok(Math.abs(result.weights[2 * v + 1] - x) < 1e-10, `vertex ${v}: bone 1's weight ${result.weights[2 * v + 1]}, x = ${x}`);
    assert.ok(Math.abs(result.weights[2 * v] + result.weights[2 * v + 1] - 1) < 1e-12, `vertex ${v}: partition of unity`);
  }
  // On the file's own topology the four side faces have no handle and stay at zero: what welding fixes.
  const unwelded = harmonicWeights(cube.positions, cube.triangles, handles, 2, { weld: false });
  assert.equal(unwelded.unhandledComponents.length, 4);
  assert.ok(rowsDifferingInGroups(unwelded.weights, 2, weld) > 0, 'unwelded, coincident vertices differ');
});

test('a near-coincident seam welds by the tolerance option and then binds like an exact one', () => {
  const cube = splitCube(4);
  const n = cube.positions.length / 3;
  // Faces y = 1 and z = 1 pushed out by 1e-6: their seams with the other faces are no longer exact.
  const moved = cube.positions.slice();
  for (let v = 0; v < n; v++) {
    if (cube.face[v] === 3) moved[3 * v + 1] += 1e-6;
    if (cube.face[v] === 5) moved[3 * v + 2] += 1e-6;
  }
  const handles = new Int32Array(n).fill(-1);
  for (let v = 0; v < n; v++) if (cube.face[v] < 2) handles[v] = cube.face[v];
  const exact = harmonicWeights(moved, cube.triangles, handles, 2);
  assert.equal(exact.unhandledComponents.length, 2, 'tolerance 0: the two moved faces are apart');
  const welded = harmonicWeights(moved, cube.triangles, handles, 2, { weldTolerance: 1e-5 });
  assert.equal(welded.unhandledComponents.length, 0);
  assert.equal(welded.weldedVertexCount, 98);
  const weld = weldVertices(moved, cube.triangles, { tolerance: 1e-5 });
  assert.equal(rowsDifferingInGroups(welded.weights, 2, weld), 0, 'near-coincident vertices have bit-identical weights');
  const reference = harmonicWeights(cube.positions, cube.triangles, handles, 2);
  for (let i = 0; i < reference.weights.length; i++)
    assert.ok(Math.abs(welded.weights[i] - reference.weights[i]) < 1e-5, `weight ${i}: within the perturbation of the exact cube's`);
});

for (const [name, splitBelow, tornBefore] of [
  ['Fox', 0.5, 100],
  ['CesiumMan', 0.8, 100],
  ['RiggedFigure', 0.5, 20],
] as const) {
  test(`${name} rebound from its own skeleton with automatic handles and default options: 0 coincident pairs pulled apart at its clip’s keys`, async () => {
    const file = dataFile('gltf', name, `${name}.glb`);
    const rig = await importGltf(readFileSync(file), `${name}.glb`);
    const { positions, triangles } = rig.mesh;
    const n = positions.length / 3;
    const boneCount = rig.skeleton.parents.length;
    const diagonal = boundingBox(positions).diagonal;
    // What `rigwright weights --auto-handles` runs, with its defaults.
    const handles = automaticHandles(positions, rig.skeleton, { rule: 'distance' });
    const result = harmonicWeights(positions, triangles, handles, boneCount);
    const weld = weldVertices(positions, triangles);
    assert.ok(weld.count < splitBelow * n, `${name} is split at seams (${n} vertices, ${weld.count} positions)`);
    assert.equal(result.unhandledComponents.length, 0, `welded, ${name} is one piece with handles`);

    /** Members posed farther than 1e-9 of the diagonal from their group's first vertex, over the clip's keys. */
    const tears = (weights: Float64Array): number => {
      const poses = rig.clips[0].poses;
      const frames = poses.kind === 'matrices' ? poses.frameCount : 1;
      const influences = influencesFromWeights({ rows: n, cols: boneCount, data: weights }, INFLUENCE_DEFAULTS.maxInfluences);
      const transforms = new Float64Array(12 * boneCount);
      const posed = new Float64Array(3 * n);
      const torn = new Uint8Array(n);
      for (let f = 0; f < frames; f++) {
        poseForwardKinematics(rig.skeleton, poses, f, new Float64Array(9 * boneCount), new Float64Array(3 * boneCount), transforms);
        linearBlendSkinning(positions, influences, transforms, posed);
        for (let v = 0; v < n; v++) {
          const u = weld.representative[weld.index[v]];
          const gap = Math.hypot(posed[3 * v] - posed[3 * u], posed[3 * v + 1] - posed[3 * u + 1], posed[3 * v + 2] - posed[3 * u + 2]);
          if (gap > 1e-9 * diagonal) torn[v] = 1;
        }
      }
      return torn.reduce((sum, t) => sum + t, 0);
    };
    assert.equal(tears(result.weights), 0, 'no coincident vertex leaves its group at any key');
    assert.ok(
      tears(harmonicWeights(positions, triangles, handles, boneCount, { weld: false }).weights) > tornBefore,
      `on the file’s index topology ${name} tears (the measure sees it)`,
    );
  });
}

test('Compute weights in the app welds by the binding option, saved with the project; a part binds welded on its own', async () => {
  const cube = splitCube(4);
  const n = cube.positions.length / 3;
  // Face z = 1 lifted by 1e-6 off its seams; a chain of two bones up the cube's middle.
  const positions = cube.positions.map((x, i) => (i % 3 === 2 && cube.face[Math.floor(i / 3)] === 5 ? x + 1e-6 : x));
  const skeleton = buildSkeleton(
    { joints: Float64Array.from([0.5, 0.5, 0.1, 0.5, 0.5, 0.5, 0.5, 0.5, 0.9]), bones: Uint32Array.from([0, 1, 1, 2]) },
    'cube.tgf',
  );
  const faceTriangles = 2 * 4 * 4;
  const part = (name: string, face: number, faces: number): MeshPart => ({
    name,
    vertexStart: 25 * face,
    vertexCount: 25 * faces,
    triangleStart: faceTriangles * face,
    triangleCount: faceTriangles * faces,
    material: -1,
    source: null,
    skinned: true,
  });
  const parts = [part('sides', 0, 4), part('caps', 4, 2)];
  const doc = withDerived({
    name: 'cube',
    meshFiles: ['cube.off'],
    mesh: { positions, triangles: cube.triangles },
    skeletonFile: 'cube.tgf',
    skeleton,
    weights: { rows: n, cols: 2, data: new Float64Array(2 * n) },
    weightsSource: 'none',
    poses: null,
    posesFile: null,
    handles: null,
    handlesFile: null,
    warnings: [],
    parts,
  });
  const store = new SceneStore(doc, new UndoHistory());
  const requests: unknown[] = [];
  const controller = headlessBindingController(store, {
    running: false,
    cancel: () => undefined,
    bindMesh: (positions, triangles, skeleton, request, progress) => {
      requests.push({ method: request.method, rule: request.rule, weldTolerance: request.weldTolerance, ...request.harmonic });
      return bindInProcess(positions, triangles, skeleton, request, progress);
    },
  });
  assert.equal(controller.options.weldTolerance, 0, 'exact coincidence by default');
  controller.settingsSection.restore({ ...controller.settingsSection.save(), weldTolerance: 1e-5 });
  assert.equal(controller.options.weldTolerance, 1e-5, 'a project brings its tolerance back');
  assert.equal(controller.settingsSection.save().weldTolerance, 1e-5, 'and saves it');
  await controller.startBind({ source: 'distance' });
  assert.equal(controller.lastError, null);
  assert.deepEqual(requests.at(-1), {
    method: 'auto',
    rule: { rule: 'distance' },
    weldTolerance: 1e-5,
    laplacian: 'cotan',
    unhandledComponents: 'report',
  });
  assert.equal(controller.lastResult?.method, 'surface', 'auto chose the surface solve: one closed shell');
  assert.equal(controller.lastResult.weld.count, 98, 'the weld the bind ran on, by the tolerance');
  assert.deepEqual(store.history.undoLabels(), ['Compute weights']);
  const weld = weldVertices(positions, cube.triangles, { tolerance: 1e-5 });
  assert.equal(weld.count, 98);
  assert.equal(rowsDifferingInGroups(store.doc.weights.data, 2, weld), 0, 'near-coincident vertices bound alike');
  assert.equal(store.doc.mesh.positions, positions, 'the mesh keeps its split vertices');
  assert.equal(controller.reportLines().length, 0, 'nothing unhandled: the lifted face is welded to its neighbours');

  // One part alone (the four sides, split from each other at the cube's edges) is welded within itself.
  const before = store.doc.weights.data.slice();
  await controller.startBind({ source: 'distance', weldTolerance: 0, method: 'surface' }, parts[0]);
  assert.equal(controller.lastError, null);
  const sides = weldVertices(positions.subarray(0, 3 * 100), cube.triangles.subarray(0, 3 * 4 * faceTriangles));
  const rows = store.doc.weights.data.subarray(0, 2 * 100);
  assert.equal(rowsDifferingInGroups(rows, 2, sides), 0, 'the sides’ seams bind alike');
  assert.deepEqual(store.doc.weights.data.subarray(200), before.subarray(200), 'the caps keep their rows bit for bit');
});

/** A scene of a mesh with a two-bone chain up z and the given weights. */
function sceneOf(positions: Float64Array, triangles: Uint32Array, weights: Float64Array): SceneDocument {
  const skeleton = buildSkeleton(
    { joints: Float64Array.from([0.5, 0.5, 0, 0.5, 0.5, 0.5, 0.5, 0.5, 1]), bones: Uint32Array.from([0, 1, 1, 2]) },
    'chain',
  );
  return withDerived({
    name: 'cube',
    meshFiles: ['cube.off'],
    mesh: { positions, triangles },
    skeletonFile: 'chain.tgf',
    skeleton,
    weights: { rows: positions.length / 3, cols: 2, data: weights },
    weightsSource: 'test',
    poses: null,
    posesFile: null,
    handles: null,
    handlesFile: null,
    warnings: [],
  });
}

test('painting Smooth on a split cube keeps coincident vertices equal and smooths across the seams as on the joined cube', () => {
  const cube = splitCube(4);
  const n = cube.positions.length / 3;
  // Bone 1's weight a function of position (so equal on coincident vertices), far from smooth.
  const weightAt = (x: number, y: number, z: number) => Math.min(1, Math.max(0, z * z + 0.3 * Math.sin(7 * x + 3 * y)));
  const weights = new Float64Array(2 * n);
  for (let v = 0; v < n; v++) {
    const w = weightAt(cube.positions[3 * v], cube.positions[3 * v + 1], cube.positions[3 * v + 2]);
    weights[2 * v] = 1 - w;
    weights[2 * v + 1] = w;
  }
  const split = sceneOf(cube.positions, cube.triangles, weights);
  const smoothed = smoothBoneEdit(split, 1)!.fields.weights!.data;
  const weld = weldVertices(cube.positions, cube.triangles);
  assert.equal(rowsDifferingInGroups(smoothed, 2, weld), 0, 'coincident vertices smooth alike');

  // The same cube built with shared vertices (one per position, by a map of coordinates), smoothed on its own.
  const joinedIndex = new Map<string, number>();
  const at = new Int32Array(n);
  const joinedPositions: number[] = [];
  for (let v = 0; v < n; v++) {
    const key = cube.positions.slice(3 * v, 3 * v + 3).join(',');
    if (!joinedIndex.has(key)) {
      joinedIndex.set(key, joinedIndex.size);
      joinedPositions.push(...cube.positions.slice(3 * v, 3 * v + 3));
    }
    at[v] = joinedIndex.get(key)!;
  }
  const joinedWeights = new Float64Array(2 * joinedIndex.size);
  for (let v = 0; v < n; v++) joinedWeights.set(weights.subarray(2 * v, 2 * v + 2), 2 * at[v]);
  const joined = sceneOf(
    Float64Array.from(joinedPositions),
    cube.triangles.map((v) => at[v]),
    joinedWeights,
  );
  const expected = smoothBoneEdit(joined, 1)!.fields.weights!.data;
  for (let v = 0; v < n; v++)
    assert.ok(
      Math.abs(smoothed[2 * v + 1] - expected[2 * at[v] + 1]) < 1e-12,
      `vertex ${v}: ${smoothed[2 * v + 1]} vs ${expected[2 * at[v] + 1]}`,
    );

  // On the index one-rings each face smooths alone and the seams part.
  const apart = smoothBoneEdit(split, 1, {}, vertexOneRing(n, cube.triangles))!.fields.weights!.data;
  assert.ok(rowsDifferingInGroups(apart, 2, weld) > 0, 'unwelded, the seams part');
});

test('a mirrored dab on a split cube paints every vertex at its partners’ positions, so the mirrored seams stay closed', () => {
  const cube = splitCube(4);
  const n = cube.positions.length / 3;
  // Centred on x = 0, the plane of symmetry; bone 0 on +x, bone 1 (its pair) on −x.
  const positions = cube.positions.map((x, i) => (i % 3 === 0 ? x - 0.5 : x));
  const weld = weldVertices(positions, cube.triangles);
  const map = mirrorVertexMap(positions, cube.triangles, 0, 1e-6);
  const run = (welded: DabSymmetry['welded']) => {
    const weights: PaintWeights = { vertexCount: n, boneCount: 3, data: new Float32Array(3 * n) };
    for (let v = 0; v < n; v++) weights.data[3 * v + 2] = 1;
    const symmetry: DabSymmetry = { axis: 0, bonePairs: Int32Array.of(1, 0, 2), partner: map.partner, ...(welded ? { welded } : {}) };
    const oneRing = vertexOneRing(n, cube.triangles, positions);
    const context = createPaintContext(weights, createVertexGrid(positions), oneRing, defaultPaintSettings(3), null, symmetry);
    // On the +x face's edge with the y = 0 face: a seam, with a mirrored twin on −x.
    paintDab(context, 0, { centre: [0.5, 0, 0.5], radius: 0.4, strength: 0.5, falloff: 'smooth', mode: 'add', value: 0 });
    assert.ok(context.count > 10 && context.mirroredCount > 0, 'the dab and its mirror paint');
    return weights.data;
  };
  const painted = run(weld);
  let mirroredSide = 0;
  for (let v = 0; v < n; v++) {
    const first = weld.representative[weld.index[v]];
    for (let b = 0; b < 3; b++)
      assert.equal(painted[3 * v + b], painted[3 * first + b], `vertex ${v}, bone ${b}: as its coincident first vertex`);
    if (painted[3 * v + 1] > 0) mirroredSide++;
  }
  assert.ok(mirroredSide > 10, 'bone 1 was painted on the mirrored side');
  // Partners alone: a mirrored seam vertex is painted on one face and not on the other.
  const partnersOnly = run(undefined);
  let differing = 0;
  for (let v = 0; v < n; v++) if (partnersOnly[3 * v + 1] !== partnersOnly[3 * weld.representative[weld.index[v]] + 1]) differing++;
  assert.ok(differing > 0, 'without the coincident vertices the mirrored seam opens');

  // The whole-mesh mirror (+x onto −x): coincident vertices reflect to one point and take the same weights.
  const whole: PaintWeights = { vertexCount: n, boneCount: 3, data: Float32Array.from(painted) };
  const written = mirrorWeights(whole, positions, cube.triangles, map, Int32Array.of(1, 0, 2), 0, -1, defaultPaintSettings(3));
  assert.ok(written.length > 20, 'the −x side is written');
  for (let v = 0; v < n; v++) {
    const first = weld.representative[weld.index[v]];
    for (let b = 0; b < 3; b++) assert.equal(whole.data[3 * v + b], whole.data[3 * first + b], `mirrored vertex ${v}, bone ${b}`);
  }
});

test('a click on a split cube selects (and Ctrl+click unselects) the vertex with every vertex welded with it, so a weight typed on the selection keeps the seams closed', () => {
  const cube = splitCube(2);
  const n = cube.positions.length / 3;
  const weights = new Float64Array(2 * n);
  for (let v = 0; v < n; v++) weights[2 * v] = 1;
  const bound = (positions: Float64Array) => {
    const store = new SceneStore(sceneOf(positions, cube.triangles, weights), new UndoHistory());
    const controller = headlessBindingController(store, {
      running: false,
      cancel: () => undefined,
      bindMesh: () => Promise.reject(new Error('unused')),
    });
    return { store, controller };
  };
  const { store, controller } = bound(cube.positions);
  const at = (x: number, y: number, z: number): number[] => {
    const found: number[] = [];
    for (let v = 0; v < n; v++)
      if (cube.positions[3 * v] === x && cube.positions[3 * v + 1] === y && cube.positions[3 * v + 2] === z) found.push(v);
    return found;
  };
  const selectedOf = (selection: Uint8Array): number[] => [...selection.keys()].filter((v) => selection[v] === 1);
  const selected = (): number[] => selectedOf(controller.selection);
  // A corner is on three faces, an edge's middle on two, a face's centre on one.
  const corner = at(1, 1, 1);
  const edge = at(0.5, 0, 0);
  const centre = at(0.5, 0.5, 1);
  assert.deepEqual([corner.length, edge.length, centre.length], [3, 2, 1], 'the split cube’s copies by hand');
  controller.clickVertex(corner[1], 'replace');
  assert.deepEqual(selected(), corner, 'a corner selects its three copies');
  assert.equal(controller.selectedCount, 3);
  assert.equal(controller.clickedVertex, corner[1], 'the clicked copy is the active vertex');
  controller.clickVertex(edge[0], 'add');
  assert.deepEqual(
    selected(),
    [...corner, ...edge].sort((a, b) => a - b),
    'Shift adds the edge’s two copies',
  );
  controller.clickVertex(corner[2], 'toggle');
  assert.deepEqual(selected(), edge, 'Ctrl on a selected copy unselects all three');
  controller.clickVertex(centre[0], 'replace');
  assert.deepEqual(selected(), centre, 'a face’s centre has no copy');

  // A weight typed on the selection (weights.set's edit, on the selection) changes every copy alike.
  controller.clickVertex(corner[0], 'replace');
  const edit = boneWeightEdit(store.doc, 1, { kind: 'set', value: 0.25 }, { vertexMask: controller.selection })!;
  store.edit(edit.label, edit.fields);
  const after = store.doc.weights.data;
  for (const v of corner) assert.deepEqual([after[2 * v], after[2 * v + 1]], [0.75, 0.25], `copy ${v} of the corner`);
  assert.equal(rowsDifferingInGroups(after, 2, weldVertices(cube.positions, cube.triangles)), 0, 'no seam parts');

  // A seam split by less than the binding's weld tolerance is one vertex for the selection as for the solve.
  const apart = cube.positions.slice();
  for (let v = 0; v < n; v++) if (cube.face[v] === 1) apart[3 * v] += 0.0003;
  const moved = bound(apart).controller;
  // corner[0] is the x = 1 face's (the faces are numbered x = 0, x = 1, y = 0, …).
  moved.clickVertex(corner[1], 'replace');
  assert.deepEqual(selectedOf(moved.selection), [corner[1], corner[2]], 'welded exactly, the moved face’s copy is apart');
  moved.settingsSection.restore({ ...moved.settingsSection.save(), weldTolerance: 0.001 });
  moved.clickVertex(corner[1], 'replace');
  assert.deepEqual(selectedOf(moved.selection), corner, 'within the weld tolerance, the three copies again');
});

test('a welded vertex joining handles of different bones is reported, with the vertex to look at', () => {
  const cube = splitCube(2);
  const n = cube.positions.length / 3;
  // Face x = 0 holds bone 0 and face x = 1 bone 1; the y = 0 face's copy of corner (0, 0, 0) is made bone 1's.
  const handles = new Int32Array(n).fill(-1);
  for (let v = 0; v < n; v++) if (cube.face[v] < 2) handles[v] = cube.face[v];
  const corner: number[] = [];
  for (let v = 0; v < n; v++)
    if (cube.positions[3 * v] === 0 && cube.positions[3 * v + 1] === 0 && cube.positions[3 * v + 2] === 0) corner.push(v);
  assert.deepEqual(
    corner.map((v) => cube.face[v]),
    [0, 2, 4],
    'the corner’s copies lie on the x = 0, y = 0 and z = 0 faces',
  );
  const agreeing = harmonicWeights(cube.positions, cube.triangles, handles, 2);
  assert.equal(agreeing.handleConflicts, undefined, 'handles of one bone per welded vertex: nothing to report');
  handles[corner[1]] = 1;
  const result = harmonicWeights(cube.positions, cube.triangles, handles, 2);
  assert.deepEqual(result.handleConflicts, { count: 1, firstVertex: corner[0] });
  assert.deepEqual(
    [result.weights[2 * corner[1]], result.weights[2 * corner[1] + 1]],
    [1, 0],
    'the corner is held by its first copy’s bone',
  );
  assert.deepEqual(bindingReport([], [], false, ['root', 'tip'], result.handleConflicts), [
    `1 welded vertex joins handles of different bones (from vertex ${corner[0]}): each held by its first copy's bone`,
  ]);
});
