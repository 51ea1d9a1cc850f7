/**
 * Several meshes on one skeleton (renderer/document/mesh-parts.ts, renderer/meshes/): meshes joined into one vertex list with a part each, the
 * vertices a tool may touch (active mesh, hidden meshes), the triangles drawn, the meshes controller's view state,
 * a brush dab kept to the active mesh, and binding one mesh: its rows equal a harmonic solve on that mesh built on
 * its own, the other mesh's rows stay bit for bit, one undo step puts everything back.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withDerived, type SceneDocument } from '../../workers/scene/scene-document.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { bindInProcess, headlessBindingController, headlessPaintController } from './headless-hosts.ts';
import { MeshesController } from '../../renderer/meshes/meshes-controller.ts';
import {
  joinCorners,
  joinMeshes,
  keepMasked,
  partMesh,
  partsOf,
  sameMeshes,
  toolVertexMask,
  uniqueNames,
  visibleTriangles,
  withPartWeights,
  withSkinned,
} from '../../renderer/document/mesh-parts.ts';
import type { PaintController } from '../../renderer/paint/paint-controller.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { boneDistanceWeights } from '../../workers/weights/bone-distance-weights.ts';
import { harmonicWeights } from '../../workers/weights/harmonic-weights.ts';
import { gatherDab } from '../../workers/paint/paint-dab.ts';
import { createVertexGrid } from '../../workers/paint/vertex-grid.ts';
import type { TriangleMesh } from '../../workers/formats/types.ts';
import { loadIntoDocument } from '../../renderer/document/load-files.ts';
import { inProcessIo as io, textFile } from './in-process-io.ts';

/** A closed-ring tube along x from x0 to x1: `rings` rings of `segments` vertices, radius r. */
function tube(x0: number, x1: number, rings: number, segments: number, r: number): TriangleMesh {
  const positions = new Float64Array(3 * rings * segments);
  for (let i = 0; i < rings; i++) {
    for (let j = 0; j < segments; j++) {
      const a = (2 * Math.PI * j) / segments;
      positions.set([x0 + ((x1 - x0) * i) / (rings - 1), r * Math.cos(a), r * Math.sin(a)], 3 * (i * segments + j));
    }
  }
  const triangles: number[] = [];
  for (let i = 0; i + 1 < rings; i++) {
    for (let j = 0; j < segments; j++) {
      const a = i * segments + j;
      const b = i * segments + ((j + 1) % segments);
      triangles.push(a, b, a + segments, b, b + segments, a + segments);
    }
  }
  return { positions, triangles: Uint32Array.from(triangles) };
}

const left = tube(-1, -0.02, 9, 12, 0.25);
const right = tube(0.02, 1, 11, 10, 0.2);
/** Two bones: 0 along the left tube, 1 along the right one. */
const skeleton = buildSkeleton({ joints: Float64Array.of(-1, 0, 0, 0, 0, 0, 1, 0, 0), bones: Uint32Array.of(0, 1, 1, 2) }, 'two.tgf');

/** Each tube's end rings: the one at its smaller x on bone 0, the other on bone 1 (harmonic in between). */
function ringHandles(positions: Float64Array): Int32Array {
  const handles = new Int32Array(positions.length / 3).fill(-1);
  for (let v = 0; v < handles.length; v++) {
    const x = positions[3 * v];
    if (x === -1 || x === 0.02) handles[v] = 0;
    if (x === -0.02 || x === 1) handles[v] = 1;
  }
  return handles;
}

function twoTubeScene(): SceneDocument {
  const { mesh, parts } = joinMeshes([
    { name: 'left.obj', mesh: left },
    { name: 'right.obj', mesh: right },
  ]);
  return withDerived({
    name: 'left.obj + right.obj',
    meshFiles: ['left.obj', 'right.obj'],
    mesh,
    parts,
    skeletonFile: 'two.tgf',
    skeleton,
    weights: boneDistanceWeights(mesh.positions, skeleton),
    weightsSource: 'bone distance (provisional)',
    poses: null,
    posesFile: null,
    handles: ringHandles(mesh.positions),
    handlesFile: 'rings',
    warnings: [],
  });
}

test('joined meshes: vertices and triangles one after the other, a part per mesh, names made unique', () => {
  const { mesh, parts } = joinMeshes([
    { name: 'a.obj', mesh: left },
    { name: 'a.obj', mesh: right },
  ]);
  const vl = left.positions.length / 3;
  assert.deepEqual(
    parts.map((p) => [p.name, p.vertexStart, p.vertexCount, p.triangleStart, p.triangleCount]),
    [
      ['a.obj', 0, vl, 0, left.triangles.length / 3],
      ['a.obj 2', vl, right.positions.length / 3, left.triangles.length / 3, right.triangles.length / 3],
    ],
  );
  assert.deepEqual(mesh.positions.subarray(0, 3 * vl), left.positions);
  assert.deepEqual(mesh.positions.subarray(3 * vl), right.positions);
  assert.deepEqual(
    mesh.triangles.subarray(left.triangles.length),
    right.triangles.map((v) => v + vl),
  );
  assert.deepEqual(uniqueNames(['x', 'x', 'x 2', 'y']), ['x', 'x 2', 'x 2 2', 'y']);
  // A mesh with parts of its own (an OBJ with two objects) keeps them, named after the file and the object.
  const own = joinMeshes([
    { name: 'b.obj', mesh },
    { name: 'c.off', mesh: left },
  ]);
  assert.deepEqual(
    joinMeshes([{ name: 'b.obj', mesh, parts }]).parts.map((p) => p.name),
    ['b.obj: a.obj', 'b.obj: a.obj 2'],
  );
  assert.deepEqual(
    own.parts.map((p) => p.vertexStart),
    [0, mesh.positions.length / 3],
  );
  // A scene without parts is one mesh, all of it.
  assert.deepEqual(
    partsOf({ name: 'n', mesh: left }).map((p) => [p.vertexCount, p.triangleCount]),
    [[vl, left.triangles.length / 3]],
  );
});

test('tool vertex masks and the triangles drawn follow the active and the hidden meshes', () => {
  const doc = twoTubeScene();
  const parts = partsOf(doc);
  const V = doc.mesh.positions.length / 3;
  const [a, b] = parts;
  assert.equal(toolVertexMask(V, parts, -1, [false, false]), null, 'all active, none hidden: every vertex');
  const onlyB = toolVertexMask(V, parts, 1, [false, false])!;
  for (let v = 0; v < V; v++) assert.equal(onlyB[v], v >= b.vertexStart ? 1 : 0);
  const allButA = toolVertexMask(V, parts, -1, [true, false])!;
  assert.deepEqual(allButA, onlyB, 'a hidden mesh cannot be touched');
  assert.equal(toolVertexMask(V, parts, 1, [false, true])!.indexOf(1), -1, 'the active mesh hidden: nothing');

  assert.equal(visibleTriangles(doc.mesh.triangles, parts, [false, false]), doc.mesh.triangles);
  const shown = visibleTriangles(doc.mesh.triangles, parts, [true, false]);
  assert.equal(shown.length, doc.mesh.triangles.length);
  assert.ok(
    shown.subarray(0, 3 * a.triangleCount).every((v) => v === 0),
    "the hidden part's triangles are all vertex 0",
  );
  assert.deepEqual(shown.subarray(3 * b.triangleStart), doc.mesh.triangles.subarray(3 * b.triangleStart));

  const indices = Uint32Array.of(3, b.vertexStart, 5, b.vertexStart + 4);
  const distances = Float64Array.of(0.1, 0.2, 0.3, 0.4);
  assert.equal(keepMasked(onlyB, indices, distances, 4), 2);
  assert.deepEqual([...indices.subarray(0, 2)], [b.vertexStart, b.vertexStart + 4]);
  assert.deepEqual([...distances.subarray(0, 2)], [0.2, 0.4]);
});

test('meshes controller: active mesh, hide, show all, isolate; view state only; a new scene starts over', () => {
  const history = new UndoHistory();
  const store = new SceneStore(twoTubeScene(), history);
  const meshes = new MeshesController(store);
  let changes = 0;
  meshes.onChange(() => changes++);
  assert.equal(meshes.list.length, 2);
  assert.equal(meshes.active, -1);
  meshes.setActive(meshes.indexOf('right.obj'));
  assert.equal(meshes.activePart?.name, 'right.obj');
  assert.equal(meshes.vertexMask()![0], 0);
  meshes.isolate();
  assert.deepEqual(meshes.hidden, [true, false]);
  assert.ok(meshes.isolated, 'isolating sets the isolated flag');
  assert.equal(meshes.visibleTriangles()[0], 0);
  meshes.isolate();
  assert.deepEqual(meshes.hidden, [false, false], 'isolating the only mesh shown shows all');
  meshes.hideActive();
  assert.deepEqual(meshes.hidden, [false, true]);
  assert.equal(meshes.active, -1, 'a hidden mesh is no longer active');
  meshes.setActive(1);
  assert.deepEqual(meshes.hidden, [false, false], 'a mesh made active is shown');
  meshes.setHidden(0, true);
  meshes.showAll();
  assert.deepEqual(meshes.hidden, [false, false]);
  assert.equal(history.undoCount, 0, 'hiding and choosing are no undo steps');
  assert.ok(changes >= 7, 'each visibility and choice change was reported (at least 7)');
  assert.throws(() => meshes.indexOf('eyes.obj'), /no mesh eyes\.obj in the scene/);
  // An edit that keeps the meshes keeps the choice; another scene starts with all active and shown.
  meshes.setActive(0);
  meshes.setHidden(1, true);
  store.edit('Weights', { weightsSource: 'edited' });
  assert.equal(meshes.active, 0);
  store.open(
    withDerived({ ...twoTubeScene(), parts: undefined, mesh: left, weights: boneDistanceWeights(left.positions, skeleton), handles: null }),
    'test',
  );
  assert.equal(meshes.active, -1);
  assert.deepEqual(meshes.hidden, [false]);
  assert.equal(meshes.vertexMask(), null);
});

test('a subscriber that reacts to a new scene before the meshes controller reads the new scene’s meshes', () => {
  const store = new SceneStore(twoTubeScene(), new UndoHistory());
  const seen: { triangles: Uint32Array; parts: number; hidden: readonly boolean[] }[] = [];
  // Subscribed first: it runs before the controller's own handler.
  store.subscribe(() => seen.push({ triangles: meshes.visibleTriangles(), parts: meshes.list.length, hidden: meshes.hidden }));
  const meshes = new MeshesController(store);
  meshes.setHidden(1, true);
  const one = withDerived({
    ...twoTubeScene(),
    parts: undefined,
    mesh: left,
    weights: boneDistanceWeights(left.positions, skeleton),
    handles: null,
  });
  store.open(one, 'test');
  assert.equal(seen.at(-1)!.triangles, one.mesh.triangles, 'the new mesh’s triangles, all shown');
  assert.equal(seen.at(-1)!.parts, 1);
  assert.deepEqual(seen.at(-1)!.hidden, [false]);
});

test('a brush dab with one mesh active paints it alone; with all active it crosses the boundary', () => {
  const run = (active: number) => {
    const store = new SceneStore(twoTubeScene(), new UndoHistory());
    const meshes = new MeshesController(store);
    meshes.setActive(active);
    const paint = paintControllerOn(store, 1);
    const before = store.doc.weights.data.slice();
    const session = paint.ensureSession();
    session.context.grid = createVertexGrid(store.doc.mesh.positions);
    paint.beginStroke();
    // A dab centred on the gap between the tubes, wide enough to reach both.
    const dab = { centre: [0, 0.2, 0], radius: 0.3, strength: 1, falloff: 'constant' as const, mode: 'set' as const, value: 1 };
    gatherDab(session.context, dab);
    const mask = meshes.vertexMask();
    if (mask) session.context.count = keepMasked(mask, session.context.indices, session.context.distances, session.context.count);
    paint.dab(1, dab);
    paint.endStroke();
    const after = store.doc.weights.data;
    const [a, b] = meshes.list;
    const changedIn = (part: typeof a) => {
      let n = 0;
      for (let v = part.vertexStart; v < part.vertexStart + part.vertexCount; v++)
        if ([0, 1].some((k) => !Object.is(after[2 * v + k], before[2 * v + k]))) n++;
      return n;
    };
    return { changedA: changedIn(a), changedB: changedIn(b) };
  };
  const all = run(-1);
  assert.ok(all.changedA > 0 && all.changedB > 0, `one dab across the boundary paints both (${all.changedA}, ${all.changedB})`);
  const onlyB = run(1);
  assert.equal(onlyB.changedA, 0, 'the other mesh is left as it was');
  assert.equal(onlyB.changedB, all.changedB);
});

test('whole-mesh commands act on the active mesh: smoothing one tube equals its rows of smoothing both, the other stays bit for bit', async () => {
  const smooth = async (active: number) => {
    const store = new SceneStore(twoTubeScene(), new UndoHistory());
    const meshes = new MeshesController(store);
    meshes.setActive(active);
    const paint = paintControllerOn(store, 1, () => meshes.vertexMask());
    const before = store.doc.weights.data.slice();
    await paint.run('smooth');
    return { before, after: store.doc.weights.data.slice(), parts: meshes.list, undo: () => store.history.undo(), store };
  };
  const all = await smooth(-1);
  const right = await smooth(1);
  const [a, b] = right.parts;
  const rows = (data: Float64Array, part: typeof a) =>
    Array.from(data.subarray(2 * part.vertexStart, 2 * (part.vertexStart + part.vertexCount)));
  assert.notDeepEqual(rows(all.after, a), rows(all.before, a), 'smoothing both changes the left tube');
  assert.notDeepEqual(rows(all.after, b), rows(all.before, b), 'and the right one');
  assert.deepEqual(rows(right.after, a), rows(right.before, a), 'with the right tube active the left keeps its weights');
  assert.deepEqual(rows(right.after, b), rows(all.after, b), 'the right tube smooths as it does with both');
  right.undo();
  assert.deepEqual(Array.from(right.store.doc.weights.data), Array.from(right.before), 'undo is exact');
});

function bindingSetup(doc: SceneDocument, notify?: (title: string) => void) {
  const history = new UndoHistory();
  const store = new SceneStore(doc, history);
  const errors: string[] = [];
  let running = false;
  const binding = headlessBindingController(
    store,
    {
      get running() {
        return running;
      },
      cancel: () => undefined,
      bindMesh: (...args) => {
        running = true;
        return bindInProcess(...args).finally(() => (running = false));
      },
    },
    { showError: (message) => void errors.push(message), ...(notify ? { notify } : {}) },
  );
  // These tests are about the harmonic solve from handles; the tubes are open, which the default method binds volumetrically.
  binding.options.method = 'surface';
  return { history, store, binding, errors };
}

test('binding one mesh: its rows are the solve on that mesh alone, the other mesh keeps its weights bit for bit, one undo step', async () => {
  const { history, store, binding } = bindingSetup(twoTubeScene());
  const before = store.doc;
  const [a, b] = partsOf(before);
  await binding.startBind({}, b);
  const doc = store.doc;
  assert.deepEqual(history.undoLabels(), ['Compute weights of right.obj']);
  const nb = 2;
  // The other mesh: bit for bit.
  assert.deepEqual(doc.weights.data.subarray(0, a.vertexCount * nb), before.weights.data.subarray(0, a.vertexCount * nb));
  // This mesh: a direct solve on the right tube built on its own, with its own handles.
  const direct = harmonicWeights(right.positions, right.triangles, ringHandles(right.positions), nb, {});
  const rows = doc.weights.data.subarray(b.vertexStart * nb);
  assert.equal(rows.length, direct.weights.length);
  let worst = 0;
  for (let i = 0; i < rows.length; i++) worst = Math.max(worst, Math.abs(rows[i] - direct.weights[i]));
  assert.ok(worst < 1e-12, `rows equal the direct solve (max |Δ| ${worst})`);
  assert.ok(
    rows.some((w) => w > 0.01 && w < 0.99),
    'harmonic, not rigid',
  );
  history.undo();
  assert.equal(store.doc.weights, before.weights, 'undo gives back the weights before');
  // The whole scene at once differs from binding each mesh alone only where the tubes meet: they are not connected.
  await binding.startBind({});
  const whole = store.doc.weights.data;
  let across = 0;
  for (let i = 0; i < rows.length; i++) across = Math.max(across, Math.abs(whole[b.vertexStart * nb + i] - direct.weights[i]));
  assert.ok(across < 1e-9, `disconnected meshes solve independently (max |Δ| ${across})`);
});

test('binding a mesh without handles says so, naming it; automatic handles for one mesh leave the others', async () => {
  const doc = twoTubeScene();
  const [a, b] = partsOf(doc);
  const handles = doc.handles!.slice();
  handles.fill(-1, b.vertexStart);
  const { history, store, binding, errors } = bindingSetup({ ...doc, handles });
  await binding.startBind({}, b);
  assert.equal(history.undoCount, 0);
  assert.match(errors[0], /right\.obj has no handle vertices/);
  await binding.startBind({ source: 'distance' }, b);
  assert.deepEqual(store.doc.handles!.subarray(0, a.vertexCount), handles.subarray(0, a.vertexCount), 'the other mesh keeps its handles');
  assert.ok(
    store.doc.handles!.subarray(b.vertexStart).some((h) => h >= 0),
    'the bound mesh gets handle vertices',
  );
  assert.deepEqual(store.doc.weights.data.subarray(0, 2 * a.vertexCount), doc.weights.data.subarray(0, 2 * a.vertexCount));
});

test('automatic handles for one mesh after another still name the drawn handles they replace there, and only those', async () => {
  const doc = twoTubeScene();
  const [a, b] = partsOf(doc);
  const notices: string[] = [];
  const { store, binding } = bindingSetup(doc, (title) => void notices.push(title));
  const drawnIn = (part: typeof a) =>
    Array.from(doc.handles!.subarray(part.vertexStart, part.vertexStart + part.vertexCount)).filter((h) => h >= 0).length;
  binding.options.source = 'distance';
  assert.equal(binding.handleVerticesReplaced(a), drawnIn(a), 'the Bind panel counts the drawn handles of the mesh computed');
  await binding.startBind({}, a);
  assert.equal(notices.length, 1, 'the first mesh’s drawn handles are named');
  // The rule wrote the first mesh's handles; the second's are still the ones drawn.
  assert.equal(binding.handleVerticesReplaced(a), 0, 'nothing drawn left on the first mesh');
  assert.equal(binding.handleVerticesReplaced(b), drawnIn(b), 'the second mesh’s drawn handles, counted alone');
  assert.equal(binding.handleVerticesReplaced(null), drawnIn(b), 'the whole scene: only those');
  await binding.startBind({}, b);
  assert.equal(notices.length, 2, 'the second mesh’s drawn handles are named too, not replaced silently');
  assert.match(notices[1], /^Automatic handles replaced the handles of \d+ bones?$/);
  // Again on the first mesh: the rule gives what it gave, nothing drawn is lost.
  await binding.startBind({}, a);
  assert.equal(notices.length, 2, 'a rule over its own handles says nothing');
  assert.equal(store.history.undoCount, 3);
});

test('handles loaded from a file named like a rule are the artist’s: the source becomes them, and a rule replacing them says so', async () => {
  const doc = twoTubeScene();
  const notices: string[] = [];
  const { store, binding } = bindingSetup({ ...doc, handles: null, handlesFile: null }, (title) => void notices.push(title));
  binding.options.source = 'cylinder';
  store.edit('Load handles', { handles: doc.handles!.slice(), handlesFile: 'automatic-cylinders.dmat' });
  assert.equal(binding.options.source, 'current', 'loading handles while a rule is the source switches to them');
  store.history.undo();
  store.history.redo();
  binding.options.source = 'distance';
  store.history.undo();
  store.history.redo();
  assert.equal(binding.options.source, 'distance', 'undo and redo of the load switch nothing');
  assert.equal(binding.handleVerticesReplaced(null), Array.from(doc.handles!).filter((h) => h >= 0).length);
  await binding.startBind({});
  assert.equal(notices.length, 1, 'the loaded handles a rule replaced are named, whatever the file is called');
});

test('part sub-mesh and weights merge: a triangle leaving its part is an error naming it; merged rows replace only that part', () => {
  const doc = twoTubeScene();
  const [a, b] = partsOf(doc);
  const sub = partMesh(doc.mesh, doc.handles!, b);
  assert.deepEqual(sub.triangles, right.triangles);
  assert.deepEqual(sub.positions, right.positions);
  const broken = { ...doc.mesh, triangles: doc.mesh.triangles.slice() };
  broken.triangles[3 * b.triangleStart] = 0;
  assert.throws(() => partMesh(broken, doc.handles!, b), /right\.obj: triangle \d+ uses vertex 0, outside the mesh/);
  const merged = withPartWeights(doc.weights, b, new Float64Array(2 * b.vertexCount).fill(0.5));
  assert.deepEqual(merged.data.subarray(0, 2 * a.vertexCount), doc.weights.data.subarray(0, 2 * a.vertexCount));
  assert.ok(
    merged.data.subarray(2 * b.vertexStart).every((w) => w === 0.5),
    "the part's weights are the new ones (0.5)",
  );
  assert.throws(() => withPartWeights(doc.weights, b, new Float64Array(2)), /right\.obj: 1 weight rows for \d+ vertices/);
});

/** An OBJ with two objects, each a triangle with texture coordinates on every corner and a normal on the first. */
const twoObjects = [
  'o body',
  'v 0 0 0',
  'v 1 0 0',
  'v 0 1 0',
  'vt 0 0',
  'vt 1 0',
  'vt 0 1',
  'vn 0 0 1',
  'f 1/1/1 2/2 3/3',
  'o eyes',
  'v 0 0 1',
  'v 1 0 1',
  'v 0 1 1',
  'vt 0.5 0.5',
  'f 4/4 5/4 6/4',
].join('\n');

test('OBJ objects load as meshes; with another file they are named after both, and their vt/vn corners follow the joined triangles', async () => {
  const alone = await loadIntoDocument(twoTubeScene(), [textFile('two.obj', twoObjects)], io);
  assert.deepEqual(
    alone.parts?.map((p) => [p.name, p.vertexStart, p.vertexCount]),
    [
      ['body', 0, 3],
      ['eyes', 3, 3],
    ],
  );
  assert.deepEqual([...alone.objCorners!.cornerTexcoords], [0, 1, 2, 3, 3, 3]);

  const plain = 'v 5 0 0\nv 6 0 0\nv 5 1 0\nvt 0.25 0.75\nvn 1 0 0\nf 1/1/1 2/1/1 3/1/1\n';
  const joined = await loadIntoDocument(
    twoTubeScene(),
    [textFile('one.obj', 'v 9 9 9\nv 8 9 9\nv 9 8 9\nf 1 2 3\n'), textFile('two.obj', twoObjects), textFile('three.obj', plain)],
    io,
  );
  assert.deepEqual(
    joined.parts?.map((p) => [p.name, p.vertexStart, p.vertexCount, p.triangleStart]),
    [
      ['one.obj', 0, 3, 0],
      ['two.obj: body', 3, 3, 1],
      ['two.obj: eyes', 6, 3, 2],
      ['three.obj', 9, 3, 3],
    ],
  );
  const corners = joined.objCorners!;
  // one.obj has none (-1), two.obj's four vt come first, three.obj's one vt is the fifth; its vn the second.
  assert.deepEqual([...corners.cornerTexcoords], [-1, -1, -1, 0, 1, 2, 3, 3, 3, 4, 4, 4]);
  assert.deepEqual([...corners.cornerNormals], [-1, -1, -1, 0, -1, -1, -1, -1, -1, 1, 1, 1]);
  assert.deepEqual([...corners.texcoords.subarray(8)], [0.25, 0.75]);
  assert.deepEqual([...corners.normals], [0, 0, 1, 1, 0, 0]);
  assert.deepEqual(joinCorners([{ corners: null, triangleCount: 4 }]), undefined);
});

test('a mirrored dab keeps to the meshes the brush acts on', () => {
  const doc = twoTubeScene();
  const [a, b] = partsOf(doc);
  const V = doc.mesh.positions.length / 3;
  // Each left vertex's partner: a right vertex (any one-to-one choice will do for the rule under test).
  const partner = new Int32Array(V).fill(-1);
  for (let v = 0; v < a.vertexCount; v++) partner[v] = b.vertexStart + (v % b.vertexCount);
  const mirrored = (mask: Uint8Array | null) => {
    const store = new SceneStore(doc, new UndoHistory());
    const paint = paintControllerOn(store, 0);
    const context = paint.ensureSession().context;
    context.grid = createVertexGrid(doc.mesh.positions);
    context.symmetry = { axis: 0, bonePairs: Int32Array.of(1, 0), partner };
    context.vertexMask = mask;
    const dab = { centre: [-0.5, 0.2, 0], radius: 0.3, strength: 1, falloff: 'constant' as const, mode: 'set' as const, value: 1 };
    paint.beginStroke();
    gatherDab(context, dab);
    if (mask) context.count = keepMasked(mask, context.indices, context.distances, context.count);
    paint.dab(0, dab);
    const counts = { painted: context.count, mirrored: context.mirroredCount };
    paint.endStroke();
    return counts;
  };
  const free = mirrored(null);
  assert.ok(free.painted > 0 && free.mirrored > 0, 'without a mask the partners on the right tube are painted');
  const leftOnly = mirrored(toolVertexMask(V, partsOf(doc), 0, [false, false]));
  assert.equal(leftOnly.painted, free.painted);
  assert.equal(leftOnly.mirrored, 0, 'with the left tube active they are not');
});

test('binding a mesh the file had without a skin makes it skinned; the meshes controller keeps its choice; undo puts it back', async () => {
  const doc = twoTubeScene();
  const unskinned = { ...doc, parts: doc.parts!.map((p) => ({ ...p, skinned: false })) };
  const { history, store, binding } = bindingSetup(unskinned);
  const meshes = new MeshesController(store);
  meshes.setActive(1);
  meshes.setHidden(0, true);
  await binding.startBind({}, meshes.activePart);
  assert.deepEqual(
    store.doc.parts!.map((p) => p.skinned),
    [false, true],
  );
  assert.equal(meshes.active, 1);
  assert.deepEqual(meshes.hidden, [true, false]);
  await binding.startBind({});
  assert.deepEqual(
    store.doc.parts!.map((p) => p.skinned),
    [true, true],
  );
  history.undo();
  history.undo();
  assert.equal(store.doc.parts, unskinned.parts);
  assert.deepEqual(sameMeshes(store.doc.parts, doc.parts!), true);
  assert.equal(withSkinned(doc.parts!, null), doc.parts, 'nothing to change: the same list');
});

/**
 * A paint controller on `store` painting `bone` (commands on the vertices `vertexMask` flags), with views and a mirror
 * matcher that do nothing (not under test).
 */
function paintControllerOn(store: SceneStore, bone: number, vertexMask: () => Uint8Array | null = () => null): PaintController {
  return headlessPaintController(store, { selectedBone: () => bone, vertexMask, schedule: (callback) => callback(), stride: 2 });
}
