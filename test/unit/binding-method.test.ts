/**
 * Choosing the binding method by the welded mesh's shells, and the volumetric method through the app's Compute
 * weights and `rigwright weights`. Expectations come from the meshes built here (their shells and open edges are
 * known by construction) and from identities every binding keeps (partition of unity, one undo step).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  chooseBindingMethod,
  handleFraction,
  meshShells,
  resolveBindingMethod,
  RIGID_HANDLE_FRACTION,
  shellReport,
} from '../../workers/weights/binding-method.ts';
import { importGltf } from '../../workers/formats/gltf-import.ts';
import { seededRandom } from './seeded-random.ts';
import { readObj } from '../../workers/formats/obj.ts';
import { readOff } from '../../workers/formats/off.ts';
import { readTgf } from '../../workers/formats/tgf.ts';
import { volumetricWeights } from '../../workers/weights/volumetric-weights.ts';
import { automaticHandles } from '../../workers/weights/automatic-handles.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { withDerived } from '../../workers/scene/scene-document.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';
import { bindInProcess, headlessBindingController } from './headless-hosts.ts';
import { bindingSummaryOf } from '../../renderer/bind/binding-summary.ts';
import { bindMesh, bindMeshReply } from '../../workers/weights/bind-mesh.ts';
import { weldVertices } from '../../workers/mesh/weld-vertices.ts';
import { harmonicWeights } from '../../workers/weights/harmonic-weights.ts';
import { dataFile, repoRoot } from './shared-data.ts';
import { outwardSplitCube } from './split-cube.ts';
import { uvSphere } from './uv-sphere.ts';

/** Two meshes as one: b's vertices after a's. */
function joined(a: { positions: Float64Array; triangles: Uint32Array }, b: { positions: Float64Array; triangles: Uint32Array }) {
  const n = a.positions.length / 3;
  const positions = new Float64Array(a.positions.length + b.positions.length);
  positions.set(a.positions);
  positions.set(b.positions, a.positions.length);
  const triangles = new Uint32Array(a.triangles.length + b.triangles.length);
  triangles.set(a.triangles);
  triangles.set(
    b.triangles.map((v) => v + n),
    a.triangles.length,
  );
  return { positions, triangles };
}

/** The split cube without its z = 1 face (face 5): an open box. */
function openBox(divisions: number) {
  const cube = outwardSplitCube(divisions);
  const kept = (divisions + 1) ** 2 * 5;
  return { positions: cube.positions.slice(0, 3 * kept), triangles: cube.triangles.slice(0, 2 * divisions * divisions * 5 * 3) };
}

test('meshShells counts the welded mesh’s shells and open edges; auto binds a closed connected mesh by the surface, anything else volumetric', () => {
  const cube = outwardSplitCube(4);
  const closed = meshShells(cube.positions, cube.triangles);
  assert.deepEqual(
    closed,
    [{ vertexCount: 150, firstVertex: 0, boundaryEdges: 0, nonManifoldEdges: 0 }],
    'six faces welded: one closed shell',
  );
  assert.equal(resolveBindingMethod('auto', closed), 'surface');
  assert.equal(resolveBindingMethod('volumetric', closed), 'volumetric');
  const box = openBox(4);
  const open = meshShells(box.positions, box.triangles);
  assert.deepEqual(
    open,
    [{ vertexCount: 125, firstVertex: 0, boundaryEdges: 16, nonManifoldEdges: 0 }],
    'the missing face’s rim: 4 × 4 edges',
  );
  assert.equal(resolveBindingMethod('auto', open), 'volumetric');
  assert.equal(resolveBindingMethod('surface', open), 'surface');
  // A fin: three triangles on one edge (0–1), and a fourth sharing the third's side 0–4: edge 0–1 is non-manifold,
  // 0–4 is interior, the other seven sides are boundary edges.
  const fin = meshShells(
    Float64Array.of(0, 0, 0, 1, 0, 0, 0.5, 1, 0, 0.5, -1, 0, 0.5, 0, 1, 0.5, 0, 2),
    Uint32Array.of(0, 1, 2, 1, 0, 3, 0, 1, 4, 0, 4, 5),
  );
  assert.deepEqual(fin, [{ vertexCount: 6, firstVertex: 0, boundaryEdges: 7, nonManifoldEdges: 1 }], 'one fin edge, seven rim edges');
  const eye = uvSphere(8, 4, 0.1, [2, 0, 0]);
  const two = meshShells(...(Object.values(joined(cube, eye)) as [Float64Array, Uint32Array]));
  assert.equal(two.length, 2);
  assert.deepEqual(two[1], { vertexCount: eye.positions.length / 3, firstVertex: 150, boundaryEdges: 0, nonManifoldEdges: 0 });
  assert.equal(resolveBindingMethod('auto', two), 'volumetric', 'two closed shells');
  assert.deepEqual(shellReport(open, 'volumetric', 10), [
    'one shell (125 vertices from vertex 10, open (16 boundary edges)): bound volumetric (geodesic voxels)',
  ]);
  assert.deepEqual(shellReport(two, 'volumetric'), [
    '2 shells, all bound volumetric (geodesic voxels):',
    'shell of 150 vertices from vertex 0, closed',
    `shell of ${eye.positions.length / 3} vertices from vertex 150, closed`,
  ]);
});

test('bindMesh: one weld for the choice, the handles and the solve gives what the separate steps give, and carries it', () => {
  const cube = outwardSplitCube(4);
  const skeleton = buildSkeleton(
    { joints: Float64Array.of(0.5, 0.5, 0.1, 0.5, 0.5, 0.5, 0.5, 0.5, 0.9), bones: Uint32Array.of(0, 1, 1, 2) },
    'cube.tgf',
  );
  const n = cube.positions.length / 3;
  const request = {
    method: 'auto' as const,
    handles: new Int32Array(n).fill(-1),
    rule: { rule: 'distance' } as const,
    boneCount: 2,
    weldTolerance: 0,
    harmonic: {},
    volumetric: { resolution: 64 },
  };
  const solvedBones: number[] = [];
  const surface = bindMesh(cube.positions, cube.triangles, skeleton, request, (_stage, _fraction, bones) => {
    if (bones !== undefined) solvedBones.push(bones);
  });
  const handles = automaticHandles(cube.positions, skeleton, { rule: 'distance' });
  assert.equal(surface.method, chooseBindingMethod('auto', meshShells(cube.positions, cube.triangles), handleFraction(handles)).method);
  assert.deepEqual(surface.handles, handles, 'the rule’s handles, placed on the bind’s weld');
  assert.deepEqual(surface.weld.index, weldVertices(cube.positions, cube.triangles).index, 'the weld carried back');
  assert.deepEqual(surface.shells, meshShells(cube.positions, cube.triangles));
  assert.deepEqual(
    surface.surface?.weights,
    harmonicWeights(cube.positions, cube.triangles, handles, 2).weights,
    'the surface solve’s weights',
  );
  assert.ok(solvedBones.length > 0 && solvedBones.every((b) => b === 2), 'the solve’s progress says both bones have handles');
  const volumetric = bindMesh(cube.positions, cube.triangles, skeleton, { ...request, method: 'volumetric' });
  assert.equal(volumetric.surface, null);
  assert.deepEqual(
    volumetric.volumetric?.weights,
    volumetricWeights(cube.positions, cube.triangles, skeleton, { resolution: 64 }).weights,
    'the volumetric binding’s weights',
  );
  assert.deepEqual(volumetric.handles, request.handles, 'no rule runs for a volumetric bind');
  const unhandled = bindMesh(cube.positions, cube.triangles, skeleton, { ...request, method: 'surface', rule: null });
  assert.equal(unhandled.surface, null, 'no handle vertex: nothing solved, for the caller to say so');
  assert.equal(unhandled.method, 'surface');
  // The bind's own times hold its steps and the solve's.
  for (const bound of [surface, volumetric]) {
    const { weldMs, shellsMs, handlesMs, totalMs } = bound.timings;
    const solveMs = (bound.surface ?? bound.volumetric)!.timings.totalMs;
    assert.ok(
      [weldMs, shellsMs, handlesMs].every((ms) => ms >= 0) && totalMs >= weldMs + shellsMs + handlesMs + solveMs,
      `${bound.method}: the bind's total ${totalMs} ms holds the weld ${weldMs}, shells ${shellsMs}, handles ${handlesMs} and solve ${solveMs}`,
    );
  }
  // What the worker returns: the weld's groups, which the selection and the report use, not its positions and triangles.
  const reply = bindMeshReply(surface);
  assert.deepEqual(Object.keys(reply.weld).sort(), ['count', 'index', 'memberStart', 'members', 'representative']);
  assert.equal(reply.weld.members, surface.weld.members, 'the groups as the bind made them');
  assert.equal(reply.surface, surface.surface, 'the solve’s result as it was');
});

test('Compute weights in the app: auto binds an open box with a floating part volumetrically as one undo step, the report naming the method; surface when asked', async () => {
  const mesh = joined(openBox(4), uvSphere(8, 4, 0.1, [0.5, 0.5, 1.4]));
  const n = mesh.positions.length / 3;
  const skeleton = buildSkeleton(
    { joints: Float64Array.of(0.5, 0.5, 0.1, 0.5, 0.5, 0.5, 0.5, 0.5, 0.9), bones: Uint32Array.of(0, 1, 1, 2) },
    'box.tgf',
  );
  const doc = withDerived({
    name: 'box',
    meshFiles: ['box.off'],
    mesh,
    skeletonFile: 'box.tgf',
    skeleton,
    weights: { rows: n, cols: 2, data: new Float64Array(2 * n) },
    weightsSource: 'none',
    poses: null,
    posesFile: null,
    handles: null,
    handlesFile: null,
    warnings: [],
  });
  const store = new SceneStore(doc, new UndoHistory());
  const calls: string[] = [];
  const controller = headlessBindingController(store, {
    running: false,
    cancel: () => undefined,
    bindMesh: async (positions, triangles, s, request, progress) => {
      const bound = await bindInProcess(positions, triangles, s, request, progress);
      calls.push(bound.volumetric ? `volumetric ${request.volumetric.resolution} ${request.volumetric.falloff}` : 'harmonic');
      return bound;
    },
  });
  assert.equal(controller.options.method, 'auto', 'auto is the default');
  // A coarse grid keeps the test quick: the box is solid through and through.
  controller.settingsSection.restore({ ...controller.settingsSection.save(), voxelResolution: 64 });
  await controller.startBind();
  assert.equal(controller.lastError, null, 'no handles are needed');
  assert.deepEqual(calls, ['volumetric 64 12']);
  assert.deepEqual(store.history.undoLabels(), ['Compute weights']);
  const weights = store.doc.weights.data;
  for (let v = 0; v < n; v++) {
    const sum = weights[2 * v] + weights[2 * v + 1];
    assert.ok(Math.abs(sum - 1) <= 1e-12 && weights[2 * v] >= 0 && weights[2 * v + 1] >= 0, `vertex ${v}: a partition of unity`);
  }
  const direct = volumetricWeights(mesh.positions, mesh.triangles, skeleton, { resolution: 64 });
  assert.deepEqual(weights, direct.weights, 'the weights are the volumetric binding’s (two bones: within max influences)');
  // The Bind panel's report: the shells from the bind's own weld, why auto chose the method, what it made up.
  const report = bindingSummaryOf({ store, binding: controller, lastTransfer: { record: null } });
  const volumetricLines = report().map((line) => line.text);
  assert.match(volumetricLines[0], /^Volumetric weights: 2 shells, \d+ vertices$/);
  assert.equal(volumetricLines[1], 'Auto chose volumetric: 2 shells after welding');
  assert.ok(
    volumetricLines.some((line) => /took their weights from the nearest voxels bones reach/.test(line)),
    'the floating part is named',
  );
  const last = controller.lastResult;
  assert.ok(last?.method === 'volumetric', 'the last bind says the volumetric binding ran');
  assert.equal(last.result.solidVoxels, direct.solidVoxels, 'with its own result: the solid voxels, the grid, the times');
  assert.equal(last.weld.count, direct.weldedVertexCount, 'the weld the method was chosen on is the one the binding weighed');
  assert.match(store.doc.weightsSource, /^volumetric \(\d+×\d+×\d+ voxels, falloff 12, /);
  // The options are saved with the project and come back.
  controller.settingsSection.restore({ ...controller.settingsSection.save(), method: 'surface', voxelResolution: 96, falloff: 3 });
  assert.deepEqual([controller.options.method, controller.options.voxelResolution, controller.options.falloff], ['surface', 96, 3]);
  await controller.startBind({ source: 'distance' });
  assert.equal(controller.lastError, null);
  assert.deepEqual(calls, ['volumetric 64 12', 'harmonic']);
  assert.match(report()[0].text, /^Surface harmonic weights: 2 shells, \d+ vertices$/);
  assert.equal(controller.lastResult?.method, 'surface');
  store.history.undo();
  assert.deepEqual(store.doc.weights.data, direct.weights, 'one undo brings the volumetric weights back');
});

test('rigwright weights --method volumetric binds without handles; auto on an open mesh says so on stderr; bad values exit 2', () => {
  const work = mkdtempSync(path.join(tmpdir(), 'rigwright-binding-method-'));
  const box = openBox(2);
  const n = box.positions.length / 3;
  const off =
    `OFF\n${n} ${box.triangles.length / 3} 0\n` +
    Array.from({ length: n }, (_, v) => box.positions.slice(3 * v, 3 * v + 3).join(' ')).join('\n') +
    '\n' +
    Array.from({ length: box.triangles.length / 3 }, (_, f) => `3 ${box.triangles.slice(3 * f, 3 * f + 3).join(' ')}`).join('\n') +
    '\n';
  writeFileSync(path.join(work, 'box.off'), off);
  writeFileSync(path.join(work, 'box.tgf'), '1 0.5 0.5 0.1\n2 0.5 0.5 0.5\n3 0.5 0.5 0.9\n#\n1 2\n2 3\n');
  const run = (...args: string[]) => {
    const result = spawnSync(
      process.execPath,
      ['app/cli/rigwright.mjs', 'weights', '--mesh', path.join(work, 'box.off'), '--skeleton', path.join(work, 'box.tgf'), ...args],
      { cwd: repoRoot, encoding: 'utf8', timeout: 120_000 },
    );
    if (result.error) throw result.error;
    return result;
  };
  const out = path.join(work, 'w.dmat');
  const volumetric = run('--method', 'volumetric', '--voxel-resolution', '64', '--falloff', '4', '--out', out);
  assert.equal(volumetric.status, 0, volumetric.stderr);
  assert.match(
    volumetric.stdout,
    new RegExp(`wrote .*w\\.dmat: ${n} vertices × 2 bones, volumetric \\(\\d+×\\d+×\\d+ voxels, \\d+ solid, falloff 4\\)`),
  );
  assert.match(volumetric.stderr, /one shell \(45 vertices from vertex 0, open \(8 boundary edges\)\): bound volumetric/);
  const tokens = readFileSync(out, 'utf8').trim().split(/\s+/).map(Number);
  assert.deepEqual(tokens.slice(0, 2), [2, n]);
  const expected = volumetricWeights(
    box.positions,
    box.triangles,
    { joints: Float64Array.of(0.5, 0.5, 0.1, 0.5, 0.5, 0.5, 0.5, 0.5, 0.9), bones: Uint32Array.of(0, 1, 1, 2) },
    { resolution: 64, falloff: 4 },
  );
  for (let v = 0; v < n; v++)
    for (let b = 0; b < 2; b++)
      assert.ok(Math.abs(tokens[2 + b * n + v] - expected.weights[2 * v + b]) <= 1e-9, `row ${v}, bone ${b} as volumetricWeights gives it`);
  const auto = run('--auto-handles', '--voxel-resolution', '64', '--out', out);
  assert.equal(auto.status, 0, auto.stderr);
  assert.match(auto.stdout, /volumetric/, 'auto: the open box binds volumetric');
  // The command binds as the app's Compute weights does: one bindMesh call with the app's options.
  const bound = bindMesh(
    box.positions,
    box.triangles,
    { joints: Float64Array.of(0.5, 0.5, 0.1, 0.5, 0.5, 0.5, 0.5, 0.5, 0.9), bones: Uint32Array.of(0, 1, 1, 2) },
    {
      method: 'auto',
      handles: new Int32Array(n).fill(-1),
      rule: { rule: 'distance' },
      boneCount: 2,
      weldTolerance: 0,
      harmonic: {},
      volumetric: { resolution: 64 },
    },
  );
  const autoTokens = readFileSync(out, 'utf8').trim().split(/\s+/).map(Number);
  for (let v = 0; v < n; v++)
    for (let b = 0; b < 2; b++)
      assert.ok(
        Math.abs(autoTokens[2 + b * n + v] - bound.volumetric!.weights[2 * v + b]) <= 1e-9,
        `auto: row ${v}, bone ${b} as bindMesh gives it`,
      );
  writeFileSync(path.join(work, 'none.dmat'), `1 ${n}\n${Array(n).fill(-1).join('\n')}\n`);
  const none = run('--handles', path.join(work, 'none.dmat'), '--method', 'surface', '--out', out);
  assert.equal(none.status, 1, none.stderr);
  assert.match(none.stderr, /none\.dmat: no handle vertex \(.*none\.dmat\): nothing to solve the surface weights from/);
  const surface = run('--auto-handles', '--method', 'surface', '--out', out);
  assert.equal(surface.status, 0, surface.stderr);
  assert.match(surface.stdout, /cotan Laplacian/);
  for (const [args, message] of [
    [['--method', 'heat'], /--method must be auto, surface, volumetric, not "heat"/],
    [['--method', 'volumetric', '--voxel-resolution', '32'], /--voxel-resolution must be a whole number from 64 to 512, not "32"/],
    [['--method', 'volumetric', '--falloff', '0'], /--falloff must be a number from 1 to 16, not "0"/],
    [['--method', 'auto'], /give exactly one of --handles FILE and --auto-handles \(--method volumetric needs neither\)/],
  ] as const) {
    const bad = run(...args, '--out', out);
    assert.equal(bad.status, 2, `${args.join(' ')}: ${bad.stderr}`);
    assert.match(bad.stderr, message);
  }
});

/**
 * A closed tube along x from 0 to 1: `rings` rings of `segments` vertices at x = k / (rings − 1), radius `radius`,
 * closed by a centre vertex at each end (the last two vertices).
 */
function cappedTube(radius: number, rings: number, segments: number) {
  const positions: number[] = [];
  const triangles: number[] = [];
  for (let k = 0; k < rings; k++)
    for (let s = 0; s < segments; s++) {
      const a = (2 * Math.PI * s) / segments;
      positions.push(k / (rings - 1), radius * Math.cos(a), radius * Math.sin(a));
    }
  for (let k = 0; k + 1 < rings; k++)
    for (let s = 0; s < segments; s++) {
      const a = k * segments + s;
      const b = k * segments + ((s + 1) % segments);
      triangles.push(a, a + segments, b, b, a + segments, b + segments);
    }
  const start = rings * segments;
  const end = start + 1;
  positions.push(0, 0, 0, 1, 0, 0);
  const last = (rings - 1) * segments;
  for (let s = 0; s < segments; s++) {
    triangles.push(start, s, (s + 1) % segments);
    triangles.push(end, last + ((s + 1) % segments), last + s);
  }
  return { positions: Float64Array.from(positions), triangles: Uint32Array.from(triangles) };
}

/** Four bones of length 0.25 along the tube's axis. */
const tubeSkeleton = {
  joints: Float64Array.of(0, 0, 0, 0.25, 0, 0, 0.5, 0, 0, 0.75, 0, 0, 1, 0, 0),
  bones: Uint32Array.of(0, 1, 1, 2, 2, 3, 3, 4),
};

test('auto binds volumetrically where the automatic handles would take most of the vertices, by the rule the options name', () => {
  // 81 rings of 16 (x = k / 80) and 2 cap centres: 1298 vertices, one closed shell.
  const thin = cappedTube(0.02, 81, 16);
  const fat = cappedTube(0.12, 81, 16);
  for (const tube of [thin, fat])
    assert.deepEqual(meshShells(tube.positions, tube.triangles), [
      { vertexCount: 1298, firstVertex: 0, boundaryEdges: 0, nonManifoldEdges: 0 },
    ]);
  const diagonal = (r: number) => Math.hypot(1, 2 * r, 2 * r);
  const share = (tube: typeof thin, rule: Parameters<typeof automaticHandles>[2]) =>
    handleFraction(automaticHandles(tube.positions, tubeSkeleton, rule));
  // Distance rule: each bone's sphere around its midpoint has radius 1.5 r, so it reaches the rings within
  // r √(1.5² − 1) = 1.118 r along the axis. Thin (r = 0.02): ±0.022, the midpoint's ring and one each side
  // (1/80 = 0.0125 away): 4 bones × 3 rings × 16 = 192 of 1298. Fat (r = 0.12; the cap centres 0.125 from the end
  // bones' midpoints are not closer): ±0.134, more than half a bone (0.125), so every ring and both cap centres.
  const thinDistance = share(thin, { rule: 'distance' });
  const fatDistance = share(fat, { rule: 'distance' });
  assert.equal(thinDistance, 192 / 1298);
  assert.equal(fatDistance, 1);
  // Cylinder rule, radius 0.04 × the diagonal: thin (radius 0.040 > 0.02) claims every ring strictly inside a bone,
  // 81 − 5 joint rings = 76 rings × 16; fat (0.042 < 0.12) claims none.
  const thinCylinder = share(thin, { rule: 'cylinder', radius: 0.04 * diagonal(0.02) });
  const fatCylinder = share(fat, { rule: 'cylinder', radius: 0.04 * diagonal(0.12) });
  assert.equal(thinCylinder, (76 * 16) / 1298);
  assert.equal(fatCylinder, 0);
  const shells = meshShells(thin.positions, thin.triangles);
  assert.deepEqual(chooseBindingMethod('auto', shells, thinDistance), {
    method: 'surface',
    reason: 'auto chose surface: one closed shell, automatic handles on 15% of the vertices',
  });
  assert.deepEqual(chooseBindingMethod('auto', shells, fatDistance), {
    method: 'volumetric',
    reason:
      'auto chose volumetric: the automatic handles take 100% of the vertices (over 50%), a surface solve would bind most of the mesh rigidly',
  });
  assert.equal(resolveBindingMethod('auto', shells, thinCylinder), 'volumetric', 'thin tube, cylinders: 94% handles');
  assert.equal(resolveBindingMethod('auto', shells, fatCylinder), 'surface', 'fat tube, cylinders: no handles');
  assert.equal(resolveBindingMethod('auto', shells, RIGID_HANDLE_FRACTION), 'surface', 'exactly half is not most');
  assert.equal(resolveBindingMethod('auto', shells), 'surface', 'handles the artist gave never switch the method');
  assert.equal(resolveBindingMethod('surface', shells, 1), 'surface', 'a method asked for is run');

  // The command line decides the same way and says why.
  const work = mkdtempSync(path.join(tmpdir(), 'rigwright-binding-method-'));
  const writeOff = (file: string, tube: typeof thin) => {
    const n = tube.positions.length / 3;
    writeFileSync(
      path.join(work, file),
      `OFF\n${n} ${tube.triangles.length / 3} 0\n` +
        Array.from({ length: n }, (_, v) => tube.positions.slice(3 * v, 3 * v + 3).join(' ')).join('\n') +
        '\n' +
        Array.from({ length: tube.triangles.length / 3 }, (_, f) => `3 ${tube.triangles.slice(3 * f, 3 * f + 3).join(' ')}`).join('\n') +
        '\n',
    );
  };
  writeOff('thin.off', thin);
  writeOff('fat.off', fat);
  writeFileSync(path.join(work, 'tube.tgf'), '1 0 0 0\n2 0.25 0 0\n3 0.5 0 0\n4 0.75 0 0\n5 1 0 0\n#\n1 2\n2 3\n3 4\n4 5\n');
  const run = (mesh: string, ...args: string[]) => {
    const result = spawnSync(
      process.execPath,
      [
        'app/cli/rigwright.mjs',
        'weights',
        '--mesh',
        path.join(work, mesh),
        '--skeleton',
        path.join(work, 'tube.tgf'),
        '--auto-handles',
        ...args,
        '--out',
        path.join(work, 'w.dmat'),
      ],
      { cwd: repoRoot, encoding: 'utf8', timeout: 120_000 },
    );
    if (result.error) throw result.error;
    assert.equal(result.status, 0, result.stderr);
    return result;
  };
  const thinRun = run('thin.off');
  assert.equal(thinRun.stderr, '', 'surface as the defaults expect: nothing to report');
  assert.match(thinRun.stdout, /cotan Laplacian, 192 handle vertices from automatic handles \(distance rule\)/);
  const fatRun = run('fat.off', '--voxel-resolution', '64');
  assert.match(fatRun.stderr, /auto chose volumetric: the automatic handles take 100% of the vertices \(over 50%\)/);
  assert.match(fatRun.stdout, /1298 vertices × 4 bones, volumetric/);
  const thinCylinders = run('thin.off', '--rule', 'cylinder', '--voxel-resolution', '64');
  assert.match(thinCylinders.stderr, /auto chose volumetric: the automatic handles take 94% of the vertices/);
});

test('the shipped Fox and RiggedFigure bind volumetrically by default; CesiumMan and the course hand and body stay surface', async () => {
  const shareOf = (positions: Float64Array, triangles: Uint32Array, skeleton: { joints: Float64Array; bones: Uint32Array }) => {
    const handles = automaticHandles(positions, skeleton, { rule: 'distance' });
    return chooseBindingMethod('auto', meshShells(positions, triangles), handleFraction(handles));
  };
  const hand = readOff(readFileSync(dataFile('hand', 'hand.off'), 'utf8'), 'hand.off').mesh;
  const handChoice = shareOf(hand.positions, hand.triangles, readTgf(readFileSync(dataFile('hand', 'hand.tgf'), 'utf8'), 'hand.tgf'));
  assert.equal(handChoice.method, 'surface', handChoice.reason);
  const body = readObj(readFileSync(dataFile('context-aware', 'reference.obj'), 'utf8'), 'reference.obj').mesh;
  const bodySkeleton = readTgf(readFileSync(dataFile('context-aware', 'skeleton.tgf'), 'utf8'), 'skeleton.tgf');
  const bodyChoice = shareOf(body.positions, body.triangles, bodySkeleton);
  assert.equal(bodyChoice.method, 'surface', bodyChoice.reason);
  for (const [parts, expected] of [
    [['Fox', 'Fox.glb'], 'volumetric'],
    [['RiggedFigure', 'RiggedFigure.glb'], 'volumetric'],
    [['CesiumMan', 'CesiumMan.glb'], 'surface'],
  ] as const) {
    const file = dataFile('gltf', ...parts);
    const rig = await importGltf(readFileSync(file), parts[1], {});
    const choice = shareOf(rig.mesh.positions, rig.mesh.triangles, rig.skeleton);
    assert.equal(choice.method, expected, `${parts[0]}: ${choice.reason}`);
  }
});

test('meshShells counts the edges around a hub of 100,000 triangles: the rim open, a fin on one spoke', () => {
  // A closed fan about vertex 0 (the lowest, so every spoke sits in its bucket: 200,000 sides), its triangles in a
  // shuffled order, and one more triangle on the spoke 0–1 to a point above: each spoke is used by two triangles but
  // 0–1 by three, each rim edge by one, and the fin's two other edges by one.
  const fan = 100_000;
  const positions = new Float64Array(3 * (fan + 2));
  for (let i = 0; i < fan; i++) {
    positions[3 * (i + 1)] = Math.cos((2 * Math.PI * i) / fan);
    positions[3 * (i + 1) + 1] = Math.sin((2 * Math.PI * i) / fan);
  }
  positions[3 * (fan + 1) + 2] = 1;
  const order = Array.from({ length: fan }, (_, i) => i);
  const random = seededRandom(24);
  for (let i = fan - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  const triangles = new Uint32Array(3 * (fan + 1));
  order.forEach((i, f) => triangles.set([0, i + 1, ((i + 1) % fan) + 1], 3 * f));
  triangles.set([0, fan + 1, 1], 3 * fan);
  const shells = meshShells(positions, triangles);
  assert.equal(shells.length, 1, 'one shell');
  assert.equal(shells[0].boundaryEdges, fan + 2, 'the rim and the fin’s two outer edges are open');
  assert.equal(shells[0].nonManifoldEdges, 1, 'the spoke 0–1 carries three triangles');
});
