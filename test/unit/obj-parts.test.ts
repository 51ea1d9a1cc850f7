/**
 * OBJ objects and groups as parts of one vertex list, and `vt`/`vn` per triangle corner (workers/formats/obj.ts).
 * Expected values are written out by hand from the small files below.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readObj } from '../../workers/formats/obj.ts';
import { readRigFile } from '../../workers/formats/read-file.ts';
import { FormatError } from '../../workers/formats/format-error.ts';

/** Two quads (Blender style: `o`, then its v, vt, vn and faces), the second with 1-based indices continuing. */
const TWO_OBJECTS = [
  'mtllib scene.mtl',
  'o Body',
  'v 0 0 0',
  'v 1 0 0',
  'v 1 1 0',
  'v 0 1 0',
  'vt 0 0',
  'vt 1 0',
  'vt 1 1',
  'vt 0 1',
  'vn 0 0 1',
  's off',
  'usemtl skin',
  'f 1/1/1 2/2/1 3/3/1 4/4/1',
  'o Eye',
  'v 2 0 0',
  'v 3 0 0',
  'v 3 1 0',
  'v 2 1 0',
  'vt 0.5 0.5 0',
  'vn 0 0 -1',
  'f -4/-1/-1 -1/1/-1 -2/2/2 -3/3/1',
  '',
].join('\n');

test('OBJ: objects with their own vertex blocks become parts; vt/vn per corner follow the fan triangulation', () => {
  const { mesh, parts, corners, report } = readObj(TWO_OBJECTS, 'scene.obj');
  assert.deepEqual(Array.from(mesh.triangles), [0, 1, 2, 0, 2, 3, 4, 7, 6, 4, 6, 5]);
  assert.deepEqual(parts, [
    // `usemtl skin` holds on into the next object, as OBJ's state does.
    { name: 'Body', vertexStart: 0, vertexCount: 4, triangleStart: 0, triangleCount: 2, material: 0, source: null, skinned: true },
    { name: 'Eye', vertexStart: 4, vertexCount: 4, triangleStart: 2, triangleCount: 2, material: 0, source: null, skinned: true },
  ]);
  assert.ok(corners, 'the OBJ reads with its corners');
  assert.deepEqual(Array.from(corners.texcoords), [0, 0, 1, 0, 1, 1, 0, 1, 0.5, 0.5]);
  assert.deepEqual(Array.from(corners.normals), [0, 0, 1, 0, 0, -1]);
  // Eye face: corners (v, vt, vn) = (5, 5, 2) (8, 1, 2) (7, 2, 2) (6, 3, 1), 1-based; fan (0 1 2) (0 2 3).
  assert.deepEqual(Array.from(corners.cornerTexcoords), [0, 1, 2, 0, 2, 3, 4, 0, 1, 4, 1, 2]);
  assert.deepEqual(Array.from(corners.cornerNormals), [0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0]);
  assert.deepEqual(report, { polygonsTriangulated: 2, texcoords: 5, normals: 2, warnings: [] });
  // readRigFile hands them on.
  const file = readRigFile('scene.obj', new TextEncoder().encode(TWO_OBJECTS));
  assert.ok(file.kind === 'mesh', 'readRigFile reads the OBJ as a mesh');
  assert.deepEqual(file.parts, parts);
  assert.deepEqual(file.corners, corners);
});

test('OBJ: one object, or none, is one mesh (no parts); a file without vt/vn corners has no corners', () => {
  const one = readObj('o Cube\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1 2 3\n', 'one.obj');
  assert.equal(one.parts, null);
  assert.equal(one.corners, null);
  const none = readObj('v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1//1 2 3\n', 'none.obj');
  assert.equal(none.parts, null);
  assert.equal(none.corners, null);
  assert.match(none.report.warnings.join('\n'), /line 4: normal index 1 names no 'vn' record \(0 defined before this face\)/);
});

test('OBJ: groups are parts when the file has no objects (Maya style, `g default` before the vertices); loose vertices join a part', () => {
  const text = [
    'g default',
    'v 0 0 0',
    'v 1 0 0',
    'v 0 1 0',
    'v 9 9 9', // used by no face: joins the first part
    'v 2 0 0',
    'v 3 0 0',
    'v 2 1 0',
    'g left arm',
    'f 1 2 3',
    'g  right\tarm ',
    'f 5 6 7',
    '',
  ].join('\n');
  const { parts, mesh } = readObj(text, 'maya.obj');
  assert.deepEqual(
    parts?.map((p) => [p.name, p.vertexStart, p.vertexCount, p.triangleStart, p.triangleCount]),
    [
      ['left arm', 0, 4, 0, 1],
      ['right arm', 4, 3, 1, 1],
    ],
  );
  assert.deepEqual(Array.from(mesh.triangles), [0, 1, 2, 4, 5, 6]);
});

test('OBJ: with objects, groups inside them do not split parts; faces before any object are named after the file', () => {
  const text = [
    'v 0 0 0',
    'v 1 0 0',
    'v 0 1 0',
    'f 1 2 3',
    'o Hat',
    'v 0 0 1',
    'v 1 0 1',
    'v 0 1 1',
    'v 1 1 1',
    'g felt',
    'f 4 5 6',
    'g ribbon',
    'f 5 7 6',
    '',
  ].join('\n');
  const { parts } = readObj(text, 'dir/doll.obj');
  assert.deepEqual(
    parts?.map((p) => [p.name, p.vertexStart, p.vertexCount, p.triangleStart, p.triangleCount]),
    [
      ['doll', 0, 3, 0, 1],
      ['Hat', 3, 4, 1, 2],
    ],
  );
});

test('OBJ: objects whose faces interleave are sorted stably by part; objects sharing vertices merge into one part with a warning', () => {
  const vertices = Array.from({ length: 9 }, (_, i) => `v ${i} ${i % 2} 0`);
  const interleaved = [...vertices, 'o A', 'f 1 2 3', 'o B', 'f 4 5 6', 'o A', 'f 3 2 1', 'o C', 'f 7 8 9', 'o B', 'f 6 5 4'].join('\n');
  const sorted = readObj(interleaved, 'mixed.obj');
  assert.deepEqual(Array.from(sorted.mesh.triangles), [0, 1, 2, 2, 1, 0, 3, 4, 5, 5, 4, 3, 6, 7, 8]);
  assert.deepEqual(
    sorted.parts?.map((p) => [p.name, p.vertexStart, p.vertexCount, p.triangleStart, p.triangleCount]),
    [
      ['A', 0, 3, 0, 2],
      ['B', 3, 3, 2, 2],
      ['C', 6, 3, 4, 1],
    ],
  );
  assert.deepEqual(sorted.report.warnings, []);

  // B uses vertex 3, which A's block (1 … 4) spans: A and B are one part; C stays apart.
  const shared = [...vertices, 'o A', 'f 1 2 4', 'o B', 'f 3 5 6', 'o C', 'f 7 8 9'].join('\n');
  const merged = readObj(shared, 'shared.obj');
  assert.deepEqual(
    merged.parts?.map((p) => [p.name, p.vertexStart, p.vertexCount, p.triangleStart, p.triangleCount]),
    [
      ['A + B', 0, 6, 0, 2],
      ['C', 6, 3, 2, 1],
    ],
  );
  assert.deepEqual(merged.report.warnings, ["objects 'A', 'B' share vertices (or their vertices interleave), so they load as one mesh"]);
  // Every object sharing: one mesh.
  const all = readObj([...vertices, 'o A', 'f 1 2 9', 'o B', 'f 3 4 5'].join('\n'), 'all.obj');
  assert.equal(all.parts, null);
});

test('OBJ: corners keep their vt/vn through the part sort', () => {
  const text = ['v 0 0 0', 'v 1 0 0', 'v 0 1 0', 'v 5 0 0', 'v 6 0 0', 'v 5 1 0', 'vt 0.25 0.75', 'vt 0.5 0.5', 'vn 1 0 0'];
  text.push('o B', 'f 4/1 5/2 6/1', 'o A', 'f 1//1 2//1 3/2/1');
  const { mesh, corners } = readObj(text.join('\n'), 'sorted.obj');
  assert.deepEqual(Array.from(mesh.triangles), [0, 1, 2, 3, 4, 5]);
  assert.deepEqual(Array.from(corners!.cornerTexcoords), [-1, -1, 1, 0, 1, 0]);
  assert.deepEqual(Array.from(corners!.cornerNormals), [0, 0, 0, -1, -1, -1]);
});

test('OBJ: vt and vn records are checked: numbers, finite, enough coordinates; missing references are warned, counted past five', () => {
  const fails = (text: string, where: string, reason: RegExp): void =>
    assert.throws(
      () => readObj(text, 'bad.obj'),
      (error: unknown) => error instanceof FormatError && error.message.includes(where) && reason.test(error.message),
    );
  fails('v 0 0 0\nvt x 0\n', 'line 2', /texture u coordinate 'x' is not a number/);
  fails('v 0 0 0\nvt 0 nan\n', 'line 2', /texture v coordinate is NaN/);
  fails('v 0 0 0\nvt \n', 'line 2', /texture coordinate has no values/);
  fails('v 0 0 0\nvn 0 1\n', 'line 2', /normal has 2 coordinates, needs 3/);
  fails('v 0 0 0\nvn 0 1 inf\n', 'line 2', /normal z coordinate is infinite/);
  fails('v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/a 2 3\n', 'line 4', /texture or normal index 'a'/);
  const faces = Array.from({ length: 8 }, () => 'f 1/7 2 3').join('\n');
  const { report, corners } = readObj(`v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 1 1\nf 1/1 2/-1 3/1\n${faces}\n`, 'missing.obj');
  assert.equal(report.warnings.length, 6);
  assert.match(report.warnings[0], /^line 6: texture index 7 names no 'vt' record \(1 defined before this face\); the corner has none$/);
  assert.equal(report.warnings[5], "3 more corners name a missing 'vt' or 'vn'");
  assert.deepEqual(Array.from(corners!.cornerTexcoords.subarray(0, 6)), [0, 0, 0, -1, -1, -1]);
});

test('OBJ writing: the meshes, texture coordinates and normals of a glTF asset (CesiumMan) read back as its parts and corners, bit for bit', async () => {
  const { readFileSync } = await import('node:fs');
  const path = await import('node:path');
  const { importGltf } = await import('../../workers/formats/gltf-import.ts');
  const { writeObj } = await import('../../workers/formats/obj.ts');
  const data = process.env.RIGWRIGHT_DATA ?? path.resolve(import.meta.dirname, '../../../shared/data');
  const rig = await importGltf(readFileSync(path.join(data, 'gltf', 'CesiumMan', 'CesiumMan.glb')), 'CesiumMan.glb');
  assert.ok(rig.look.uvs, 'CesiumMan has texture coordinates');
  // Two meshes of one vertex list: the asset and a copy of it after it.
  const V = rig.mesh.positions.length / 3;
  const F = rig.mesh.triangles.length / 3;
  const twice = <T extends Float64Array | Float32Array>(a: T, make: (n: number) => T): T => {
    const out = make(2 * a.length);
    out.set(a);
    out.set(a, a.length);
    return out;
  };
  const mesh = {
    positions: twice(rig.mesh.positions, (n) => new Float64Array(n)),
    triangles: Uint32Array.from([...rig.mesh.triangles, ...Array.from(rig.mesh.triangles, (v) => v + V)]),
  };
  const uvs = twice(rig.look.uvs, (n) => new Float32Array(n));
  const normals = twice(rig.normals, (n) => new Float64Array(n));
  const parts = [
    { ...rig.parts[0], name: 'Cesium_Man', vertexStart: 0, vertexCount: V, triangleStart: 0, triangleCount: F },
    { ...rig.parts[0], name: 'Cesium Man copy', vertexStart: V, vertexCount: V, triangleStart: F, triangleCount: F },
  ];
  const text = writeObj(mesh, { parts, uvs, normals });
  const read = readObj(text, 'CesiumMan.obj');
  assert.deepEqual(Array.from(read.mesh.positions), Array.from(mesh.positions));
  assert.deepEqual(Array.from(read.mesh.triangles), Array.from(mesh.triangles));
  if (parts.length > 1)
    assert.deepEqual(
      read.parts!.map((p) => [p.name, p.vertexStart, p.vertexCount, p.triangleCount]),
      parts.map((p) => [p.name, p.vertexStart, p.vertexCount, p.triangleCount]),
    );
  const corners = read.corners!;
  for (let c = 0; c < 6 * F; c++) {
    const v = mesh.triangles[c];
    const t = corners.cornerTexcoords[c];
    const n = corners.cornerNormals[c];
    // OBJ's v runs up, glTF's down: glTF's v back is 1 − (the file's), in float32 as stored.
    assert.equal(Math.fround(corners.texcoords[2 * t]), uvs[2 * v]);
    assert.equal(Math.fround(1 - corners.texcoords[2 * t + 1]), uvs[2 * v + 1]);
    for (let k = 0; k < 3; k++) assert.equal(corners.normals[3 * n + k], normals[3 * v + k]);
  }
});
