/**
 * OBJ materials: the .mtl reader (workers/formats/mtl.ts), `usemtl` faces becoming parts with materials
 * (workers/formats/obj.ts), the batch's libraries and images becoming the look (workers/formats/obj-materials.ts),
 * and the draw vertices split at UV seams (renderer/view/seam-split.ts). Expected values are written out by hand
 * from the small files below.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readMtl, writeMtl } from '../../workers/formats/mtl.ts';
import { libraryNames, readObj, writeObj } from '../../workers/formats/obj.ts';
import { FormatError } from '../../workers/formats/format-error.ts';
import { imageMimeType, isMaterialFile, objLook } from '../../workers/formats/obj-materials.ts';
import { drawnTriangles, seamSplit } from '../../renderer/view/seam-split.ts';
import { partDrawGroups } from '../../renderer/view/surface-look.ts';
import type { MeshPart, ObjCorners } from '../../workers/formats/types.ts';
import { loadIntoDocument } from '../../renderer/document/load-files.ts';
import { LoadError, demoDocument } from '../../workers/scene/scene-document.ts';
import { writeDmatAscii } from '../../workers/formats/dmat.ts';
import { WebIO } from '@gltf-transform/core';
import { exportGltf } from '../../workers/formats/gltf-export.ts';
import { buildSkeleton } from '../../workers/rig/skeleton.ts';
import { readProjectFile, writeProjectFile } from '../../workers/formats/project-file.ts';
import { assertValidGltf } from './gltf-skinning-reference.ts';
import { projectContents } from './project-scene.ts';
import { inProcessIo as io } from './in-process-io.ts';

const LIBRARY = [
  '# Blender MTL File',
  'newmtl Skin',
  'Ns 250.000000',
  'Ka 1.000000 1.000000 1.000000',
  'Kd 0.800000 0.500000 0.400000',
  'Ks 0.500000 0.500000 0.500000',
  'Ke 0 0 0',
  'Ni 1.450000',
  'd 0.75',
  'illum 2',
  'map_Bump -bm 0.5 skin_normal.png',
  '',
  'newmtl Cloth Blue',
  '\tKd 0.25\r',
  'Tr 0.1',
  'map_Kd -s 2 2 1 -o 0.5 0 -clamp on -blendu off textures\\cloth blue.png',
  'newmtl Eye',
  'map_Kd eye.jpg',
  'Pr 0.5',
  'foo 1 2',
].join('\n');

test('MTL: newmtl, Kd (one value is grey), d and Tr, map_Kd with its options skipped; other statements ignored', () => {
  const { materials, warnings } = readMtl(LIBRARY, 'body.mtl');
  assert.deepEqual(materials, [
    {
      name: 'Skin',
      line: 2,
      diffuse: [0.8, 0.5, 0.4],
      alpha: 0.75,
      diffuseMap: null,
      specularExponent: 250,
      ambient: [1, 1, 1],
      emissive: [0, 0, 0],
      illum: 2,
      normalMap: { file: 'skin_normal.png', scale: 0.5 },
    },
    { name: 'Cloth Blue', line: 13, diffuse: [0.25, 0.25, 0.25], alpha: 0.9, diffuseMap: 'textures\\cloth blue.png' },
    { name: 'Eye', line: 17, diffuse: null, alpha: 1, diffuseMap: 'eye.jpg', roughness: 0.5 },
  ]);
  assert.deepEqual(warnings, [
    'line 16: map_Kd options -s, -o, -clamp are not shown: the image lies unscaled, unmoved and repeated',
    "line 20: unknown statement 'foo' ignored",
  ]);
});

test('MTL: colours outside 0 … 1 are clamped, a name defined twice keeps the first, statements before newmtl are ignored', () => {
  const text = ['Kd 1 0 0', 'newmtl a', 'Kd 1.5 -0.5 0.5', 'd 2', 'newmtl a', 'Kd 0 0 1', ''].join('\n');
  const { materials, warnings } = readMtl(text, 'odd.mtl');
  assert.deepEqual(materials, [{ name: 'a', line: 2, diffuse: [1, 0, 0.5], alpha: 1, diffuseMap: null }]);
  assert.deepEqual(warnings, [
    "line 1: 'Kd' comes before any 'newmtl'; it is ignored",
    'line 3: Kd red 1.5 is outside 0 … 1; 1 is used',
    'line 3: Kd green -0.5 is outside 0 … 1; 0 is used',
    'line 4: dissolve (d) 2 is outside 0 … 1; 1 is used',
    "line 5: material 'a' is defined again (first on line 2); the first is used",
  ]);
  assert.deepEqual(readMtl('# only a comment\n', 'empty.mtl'), {
    materials: [],
    warnings: ["no materials: the file has no 'newmtl' lines"],
  });
  // Statements in another case, as some exporters write them.
  assert.deepEqual(readMtl('NEWMTL Hat\nKD 0.5 0.25 1\nTR 0.5\nmap_kd hat.png\nMAP_BUMP n.png\n', 'case.mtl'), {
    materials: [
      { name: 'Hat', line: 1, diffuse: [0.5, 0.25, 1], alpha: 0.5, diffuseMap: 'hat.png', normalMap: { file: 'n.png', scale: 1 } },
    ],
    warnings: [],
  });
  // d and Tr on one material (some exporters write Tr as an opacity): d is the alpha, in either order.
  const both = readMtl('newmtl a\nd 1\nTr 1\nnewmtl b\nTr 0.25\nd 0.75\nnewmtl c\nTr 1\nd 1\n', 'both.mtl');
  assert.deepEqual(
    both.materials.map((m) => m.alpha),
    [1, 0.75, 1],
  );
  assert.deepEqual(both.warnings, [
    "line 3: material 'a' has d and Tr that disagree (alpha 1 from d on line 2, 0 from Tr); d is used",
    "line 9: material 'c' has d and Tr that disagree (alpha 1 from d, 0 from Tr on line 8); d is used",
  ]);
});

test('MTL: malformed lines are FormatErrors naming the file, the line and the reason', () => {
  const cases: [string, string][] = [
    ['newmtl\n', "bad.mtl: line 1: 'newmtl' has no material name"],
    ['newmtl a\nKd\n', "bad.mtl: line 2: 'Kd' has no colour, needs r g b"],
    ['newmtl a\nKd 0.1 0.2\n', "bad.mtl: line 2: 'Kd' has 2 values, needs r g b (or one value for grey)"],
    ['newmtl a\nKd 0.1 0.2 0.3 0.4\n', "bad.mtl: line 2: 'Kd' has more than 3 values ('0.4')"],
    ['newmtl a\nKd 0.1 red 0.3\n', "bad.mtl: line 2: Kd green 'red' is not a number"],
    ['newmtl a\nKd nan 0 0\n', 'bad.mtl: line 2: Kd red is NaN (not a number)'],
    ['newmtl a\nd inf\n', 'bad.mtl: line 2: dissolve (d) is infinite'],
    ['newmtl a\nTr\n', "bad.mtl: line 2: 'Tr' has no value, needs one number"],
    ['newmtl a\nmap_Kd\n', "bad.mtl: line 2: 'map_Kd' has no image file name"],
    [
      'newmtl a\nmap_Kd -s 2 2 1',
      "bad.mtl: line 2: 'map_Kd' has no image file name (the file ends in the middle of this line; it looks truncated)",
    ],
    ['newmtl a\nmap_Kd -mm 0 x.png\n', "bad.mtl: line 2: map_Kd option '-mm' needs 2 values"],
  ];
  for (const [text, message] of cases) {
    assert.throws(
      () => readMtl(text, 'bad.mtl'),
      (error: unknown) => error instanceof FormatError && error.message === message,
      JSON.stringify(text),
    );
  }
});

test('OBJ usemtl: an object whose materials use disjoint vertex blocks becomes a part per material; the state carries over objects', () => {
  const text = [
    'mtllib body.mtl extra.mtl',
    'o Body',
    'v 0 0 0',
    'v 1 0 0',
    'v 1 1 0',
    'v 0 1 0',
    'v 2 0 0',
    'v 3 0 0',
    'v 3 1 0',
    'usemtl Skin',
    'f 1 2 3 4',
    'usemtl Cloth Blue',
    'f 5 6 7',
    'usemtl Skin',
    'f 1 3 4',
    'o Eye',
    'v 5 0 0',
    'v 6 0 0',
    'v 6 1 0',
    'f 8 9 10',
    '',
  ].join('\n');
  const { mesh, parts, materials, materialLibraries, report } = readObj(text, 'body.obj');
  assert.deepEqual(materials, ['Skin', 'Cloth Blue']);
  assert.deepEqual(materialLibraries, ['body.mtl', 'extra.mtl']);
  // Triangles grouped by part: Skin's three (the quad's two, then 1 3 4), Cloth's one, Eye's one (Skin carried over).
  assert.deepEqual(Array.from(mesh.triangles), [0, 1, 2, 0, 2, 3, 0, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.deepEqual(parts, [
    { name: 'Body (Skin)', vertexStart: 0, vertexCount: 4, triangleStart: 0, triangleCount: 3, material: 0, source: null, skinned: true },
    {
      name: 'Body (Cloth Blue)',
      vertexStart: 4,
      vertexCount: 3,
      triangleStart: 3,
      triangleCount: 1,
      material: 1,
      source: null,
      skinned: true,
    },
    { name: 'Eye', vertexStart: 7, vertexCount: 3, triangleStart: 4, triangleCount: 1, material: 0, source: null, skinned: true },
  ]);
  assert.deepEqual(report.warnings, []);
});

/** A quad whose four triangles use no material, red, blue, red (sharing vertices): one part with three runs. */
const RUNS_OBJ = [
  'v 0 0 0',
  'v 1 0 0',
  'v 1 1 0',
  'v 0 1 0',
  'f 1 2 3',
  'usemtl red',
  'f 1 3 4',
  'usemtl blue',
  'f 1 2 4',
  'usemtl red',
  'f 2 3 4',
  '',
].join('\n');

test('OBJ usemtl: materials sharing vertices stay one part, its triangles ordered into a run per material', () => {
  const { mesh, parts, materials, report } = readObj(RUNS_OBJ, 'quad.obj');
  assert.deepEqual(materials, ['red', 'blue']);
  // Runs in the order each material first comes: none (f1), red (f2, f4), blue (f3); the part's material is red's (2).
  assert.deepEqual(Array.from(mesh.triangles), [0, 1, 2, 0, 2, 3, 1, 2, 3, 0, 1, 3]);
  assert.deepEqual(parts, [
    {
      name: 'quad',
      vertexStart: 0,
      vertexCount: 4,
      triangleStart: 0,
      triangleCount: 4,
      material: 0,
      source: null,
      skinned: true,
      materialRanges: [
        { triangleCount: 1, material: -1 },
        { triangleCount: 2, material: 0 },
        { triangleCount: 1, material: 1 },
      ],
    },
  ]);
  assert.deepEqual(report.warnings, []);
  // The draw groups follow the runs.
  assert.deepEqual(partDrawGroups(parts ?? undefined, 4, 2), [
    { start: 0, count: 3, materialIndex: 0 },
    { start: 3, count: 6, materialIndex: 1 },
    { start: 9, count: 3, materialIndex: 2 },
  ]);
  // One material on the whole file: one part with it; no usemtl: no parts.
  assert.equal(readObj('usemtl m\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n', 'one.obj').parts?.[0].material, 0);
  assert.equal(readObj('v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n', 'one.obj').parts, null);
  // Most triangles without a material, one with: the one still gets its run (and the part the default material).
  const mostlyBare = readObj('v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3\nf 1 3 4\nf 1 2 4\nusemtl red\nf 2 3 4\n', 'bare.obj');
  assert.deepEqual(mostlyBare.parts?.[0].materialRanges, [
    { triangleCount: 3, material: -1 },
    { triangleCount: 1, material: 0 },
  ]);
  assert.equal(mostlyBare.parts?.[0].material, -1);
  assert.deepEqual(libraryNames('my scene.mtl'), ['my scene.mtl']);
  assert.deepEqual(libraryNames('a.mtl  b.MTL'), ['a.mtl', 'b.MTL']);
});

const encode = (text: string) => new TextEncoder().encode(text);
const PNG_BYTES = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13);
const JPEG_BYTES = Uint8Array.of(0xff, 0xd8, 0xff, 0xe0, 0, 16);

test('OBJ look: usemtl names found in the libraries opened, map_Kd images by base name; what is missing is a notice', () => {
  const obj = readObj(
    ['mtllib body.mtl missing.mtl', 'o Body', 'v 0 0 0', 'v 1 0 0', 'v 0 1 0', 'v 2 0 0', 'v 3 0 0', 'v 2 1 0'].join('\n') +
      '\nusemtl Skin\nf 1 2 3\nusemtl Ghost\nf 4 5 6\n',
    'body.obj',
  );
  const images = [
    { name: 'CLOTH BLUE.PNG', bytes: PNG_BYTES },
    { name: 'eye.jpg', bytes: JPEG_BYTES },
  ];
  const { look, parts, warnings } = objLook(
    [{ name: 'body.obj', materials: obj.materials, materialLibraries: obj.materialLibraries, parts: obj.parts }],
    [{ name: 'body.mtl', bytes: encode(LIBRARY) }, ...images],
  );
  assert.ok(look, 'the materials give a look');
  assert.equal(look.uvs, null);
  assert.deepEqual(look.materials, [
    // Ns 250 without Pr: roughness 1 − √(250 / 1000) = 0.5; illum 2 has no reflection: metallic 0; Ke 0 0 0: no emission
    {
      name: 'Skin',
      baseColor: [0.8, 0.5, 0.4, 0.75],
      baseColorTexture: null,
      doubleSided: false,
      metallic: 0,
      roughness: 0.5,
      alphaMode: 'BLEND',
    },
  ]);
  assert.deepEqual(
    parts?.[0]?.map((p) => [p.name, p.material]),
    [
      ['Body (Skin)', 0],
      ['Body (Ghost)', -1],
    ],
  );
  assert.deepEqual(warnings, [
    "body.obj: material library 'missing.mtl' was not among the files opened; open it with the OBJ to see its materials",
    'body.mtl: line 16: map_Kd options -s, -o, -clamp are not shown: the image lies unscaled, unmoved and repeated',
    "body.mtl: line 20: unknown statement 'foo' ignored",
    "body.mtl: material 'Skin': its normal map image 'skin_normal.png' was not among the files opened (PNG or JPEG); the material is drawn without it",
    "body.obj: material 'Ghost' is in none of the material files opened (body.mtl); it is drawn with the default material",
    'CLOTH BLUE.PNG: no material opened with it names this image',
    'eye.jpg: no material opened with it names this image',
  ]);

  // Textured materials: the image (matched ignoring folders and case) is the colour; Kd is not multiplied in.
  const textured = objLook(
    [{ name: 'b.obj', materials: ['Cloth Blue', 'Eye'], materialLibraries: ['body.mtl'], parts: null }],
    [{ name: 'body.mtl', bytes: encode(LIBRARY) }, ...images],
  );
  assert.deepEqual(textured.look?.materials, [
    {
      name: 'Cloth Blue',
      baseColor: [1, 1, 1, 0.9],
      baseColorTexture: { bytes: PNG_BYTES, mimeType: 'image/png' },
      doubleSided: false,
      metallic: 0,
      roughness: 1,
      alphaMode: 'BLEND',
    },
    {
      name: 'Eye',
      baseColor: [1, 1, 1, 1],
      baseColorTexture: { bytes: JPEG_BYTES, mimeType: 'image/jpeg' },
      doubleSided: false,
      metallic: 0,
      roughness: 0.5,
    },
  ]);
  // A library that cannot be read, and an image that is neither PNG nor JPEG: notices, the colour stays.
  const broken = objLook(
    [
      { name: 'a.obj', materials: ['x'], materialLibraries: ['a.mtl'], parts: null },
      { name: 'b.obj', materials: ['Eye'], materialLibraries: ['b.mtl'], parts: null },
    ],
    [
      { name: 'a.mtl', bytes: encode('newmtl x\nKd 1 2\n') },
      { name: 'b.mtl', bytes: encode('newmtl Eye\nKd 0.5 0.5 0.5\nmap_Kd eye.jpg\n') },
      { name: 'eye.jpg', bytes: encode('GIF89a') },
    ],
  );
  assert.deepEqual(broken.look?.materials, [
    { name: 'Eye', baseColor: [0.5, 0.5, 0.5, 1], baseColorTexture: null, doubleSided: false, metallic: 0, roughness: 1 },
  ]);
  assert.deepEqual(broken.warnings, [
    "a.mtl: line 2: 'Kd' has 2 values, needs r g b (or one value for grey); its materials are drawn with the default material",
    "a.obj: material 'x' is in none of the material files opened (a.mtl, b.mtl); it is drawn with the default material",
    "eye.jpg: not a PNG or JPEG image; material 'Eye' shows its colour only",
  ]);
  // An OBJ without materials has no look.
  assert.equal(objLook([{ name: 'c.obj', materials: [], materialLibraries: [], parts: null }], []).look, null);
  // Two OBJ files using one library material share one look material.
  const part = (name: string): MeshPart => ({
    name,
    vertexStart: 0,
    vertexCount: 3,
    triangleStart: 0,
    triangleCount: 1,
    material: 0,
    source: null,
    skinned: true,
  });
  const shared = objLook(
    [
      { name: 'left.obj', materials: ['felt'], materialLibraries: ['hats.mtl'], parts: [part('left')] },
      { name: 'right.obj', materials: ['felt'], materialLibraries: ['hats.mtl'], parts: [part('right')] },
    ],
    [{ name: 'hats.mtl', bytes: encode('newmtl felt\nKd 0.4 0.5 0.6\n') }],
  );
  assert.equal(shared.look?.materials.length, 1);
  assert.deepEqual(
    shared.parts.map((parts) => parts?.[0].material),
    [0, 0],
  );
  // Files with folders (the command line's): two images of one base name in different folders are two images.
  const folders = objLook(
    [{ name: 'd.obj', materials: ['a', 'b'], materialLibraries: ['d.mtl'], parts: null }],
    [
      { name: 'd.mtl', bytes: encode('newmtl a\nmap_Kd left/skin.png\nnewmtl b\nmap_Kd right\\skin.png\n') },
      { name: 'left/skin.png', bytes: PNG_BYTES },
      { name: 'right\\skin.png', bytes: JPEG_BYTES },
    ],
  );
  assert.deepEqual(
    folders.look?.materials.map((m) => m.baseColorTexture?.mimeType),
    ['image/png', 'image/jpeg'],
  );
  assert.ok(
    isMaterialFile('a.MTL') && isMaterialFile('x/b.jpeg') && !isMaterialFile('c.obj'),
    '.MTL and .jpeg are material files, .obj is not',
  );
  assert.equal(imageMimeType(Uint8Array.of(1, 2, 3)), null);
});

test('seam split: a v with two vt is drawn twice, the copy numbered after the rig vertices, uv v flipped (1 − v)', () => {
  // Two triangles sharing the edge 1–2; on the second, vertex 1 has another vt (a seam), vertex 2 the same.
  const triangles = Uint32Array.of(0, 1, 2, 1, 3, 2);
  const corners: ObjCorners = {
    texcoords: Float64Array.of(0, 0, 0.5, 0, 0.5, 1, 0.75, 0.25, 1, 0.5),
    normals: new Float64Array(0),
    cornerTexcoords: Int32Array.of(0, 1, 2, 3, 4, 2),
    cornerNormals: Int32Array.of(-1, -1, -1, -1, -1, -1),
  };
  const split = seamSplit(triangles, 5, corners);
  assert.ok(split, 'a vertex with two texture coordinates needs a seam split');
  assert.deepEqual(Array.from(split.copyOf), [1]);
  assert.deepEqual(Array.from(split.triangles), [0, 1, 2, 5, 3, 2]);
  // Vertex 4 is unused: (0, 0). Copy 5 of vertex 1 has vt 3 = (0.75, 0.25) → (0.75, 0.75).
  assert.deepEqual(Array.from(split.uvs), [0, 1, 0.5, 1, 0.5, 0, 1, 0.5, 0, 0, 0.75, 0.75]);
  // Hidden triangles (degenerate stand-ins) stay as given; the mesh's own ones are drawn split.
  assert.deepEqual(Array.from(drawnTriangles(Uint32Array.of(0, 0, 0, 1, 3, 2), triangles, split)), [0, 0, 0, 5, 3, 2]);
  assert.equal(drawnTriangles(triangles, triangles, split), split.triangles);
  // No vt anywhere: nothing to split.
  assert.equal(seamSplit(triangles, 5, { ...corners, cornerTexcoords: new Int32Array(6).fill(-1) }), null);
});

test('loading: OBJ files with their .mtl and images get a look; materials of joined files are numbered in file order', async () => {
  const body = 'mtllib body.mtl\no Body\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nusemtl Eye\nf 1/1 2/2 3/3\n';
  const hat = 'mtllib hat.mtl\nv 0 0 1\nv 1 0 1\nv 0 1 1\nusemtl felt\nf 1 2 3\n';
  const files = [
    { name: 'body.obj', bytes: encode(body) },
    { name: 'hat.obj', bytes: encode(hat) },
    { name: 'body.mtl', bytes: encode('newmtl Eye\nKd 0.1 0.2 0.3\nmap_Kd eye.jpg\n') },
    { name: 'hat.mtl', bytes: encode('newmtl felt\nKd 0.4 0.5 0.6\nd 0.5\n') },
    { name: 'eye.jpg', bytes: JPEG_BYTES },
  ];
  const doc = await loadIntoDocument(demoDocument(), files, io);
  assert.deepEqual(doc.warnings, []);
  assert.deepEqual(
    doc.parts?.map((p) => [p.name, p.material]),
    [
      ['body.obj', 0],
      ['hat.obj', 1],
    ],
  );
  assert.deepEqual(doc.look, {
    uvs: null,
    materials: [
      {
        name: 'Eye',
        baseColor: [1, 1, 1, 1],
        baseColorTexture: { bytes: JPEG_BYTES, mimeType: 'image/jpeg' },
        doubleSided: false,
        metallic: 0,
        roughness: 1,
      },
      {
        name: 'felt',
        baseColor: [0.4, 0.5, 0.6, 0.5],
        baseColorTexture: null,
        doubleSided: false,
        metallic: 0,
        roughness: 1,
        alphaMode: 'BLEND',
      },
    ],
  });
  // A weights file opened into the scene keeps its look.
  const weights = writeDmatAscii({
    rows: 6,
    cols: doc.skeleton.parents.length,
    data: new Float64Array(6 * doc.skeleton.parents.length).fill(0),
  });
  const weighted = await loadIntoDocument(doc, [{ name: 'w.dmat', bytes: encode(weights) }], io);
  assert.equal(weighted.look, doc.look);

  // Without the library: a notice, no look; a library alone is refused, naming it.
  const bare = await loadIntoDocument(demoDocument(), [files[0]], io);
  assert.equal(bare.look, undefined);
  assert.deepEqual(bare.warnings, [
    "body.obj: material library 'body.mtl' was not among the files opened; open it with the OBJ to see its materials",
    "body.obj: material 'Eye' is in none of the material files opened; it is drawn with the default material",
  ]);
  await assert.rejects(
    loadIntoDocument(demoDocument(), [files[2], files[4]], io),
    (error: unknown) =>
      error instanceof LoadError &&
      error.message === 'body.mtl, eye.jpg: material files and images go with the OBJ that uses them; open them together',
  );
});

const RUNS_LOOK = {
  uvs: null,
  materials: [
    { name: 'red', baseColor: [1, 0, 0, 1] as [number, number, number, number], baseColorTexture: null, doubleSided: true },
    { name: 'blue', baseColor: [0, 0, 1, 1] as [number, number, number, number], baseColorTexture: null, doubleSided: true },
  ],
};

test('material runs: the glTF export writes a primitive per run on the one mesh, sharing its vertices; the project file keeps them', async () => {
  const { mesh, parts } = readObj(RUNS_OBJ, 'quad.obj');
  const skeleton = buildSkeleton({ joints: Float64Array.of(0, 0, 0, 0, 1, 0), bones: Uint32Array.of(0, 1) }, 'quad.tgf');
  const weights = { rows: 4, cols: 1, data: new Float64Array(4).fill(1) };
  const { bytes, warnings } = await exportGltf({ mesh, skeleton, weights, parts: parts!, look: RUNS_LOOK, name: 'quad' }, 'quad.glb');
  assert.deepEqual(warnings, []);
  await assertValidGltf(bytes, 'quad.glb');
  const root = (await new WebIO().readBinary(bytes)).getRoot();
  assert.equal(root.listMeshes().length, 1);
  const primitives = root.listMeshes()[0].listPrimitives();
  // Runs: none (triangle 0), red (triangles 1, 2 of the reordered list), blue (3); the file's own triangles, in order.
  assert.deepEqual(
    primitives.map((p) => [p.getMaterial()?.getName() ?? null, Array.from(p.getIndices()!.getArray() as ArrayLike<number>)]),
    [
      [null, [0, 1, 2]],
      ['red', [0, 2, 3, 1, 2, 3]],
      ['blue', [0, 1, 3]],
    ],
  );
  for (const p of primitives) assert.equal(p.getAttribute('POSITION'), primitives[0].getAttribute('POSITION'), 'one vertex list');

  const contents = projectContents({
    name: 'quad.obj',
    mesh,
    skeletonFile: 'quad.tgf',
    skeleton,
    boneNames: ['bone'],
    weights,
    weightsSource: 'quad',
    parts: parts!,
    look: RUNS_LOOK,
  });
  const saved = await writeProjectFile(contents, 'quad.rig.glb');
  assert.deepEqual(readProjectFile(saved, 'quad.rig.glb').scene.parts, parts);
  // Runs that do not cover the mesh's triangles are refused, naming the place.
  const broken = await writeProjectFile(
    { ...contents, scene: { ...contents.scene, parts: [{ ...parts![0], materialRanges: [{ triangleCount: 3, material: 0 }] }] } },
    'quad.rig.glb',
  );
  assert.throws(
    () => readProjectFile(broken, 'bad.rig.glb'),
    (error: unknown) =>
      error instanceof FormatError &&
      /^bad\.rig\.glb: .*parts\[0\]\.materialRanges: the runs cover 3 of the mesh's 4 triangles$/.test(error.message),
  );
});

test('writeMtl and writeObj with materials read back as written: names, colours, alpha, images, metallic, roughness, usemtl per object', () => {
  const library = [
    { name: 'Skin tone', diffuse: [0.8, 0.55, 0.4] as const, alpha: 1, diffuseMap: null },
    { name: 'Glass', diffuse: [1, 1, 1] as const, alpha: 0.25, diffuseMap: 'glass texture.png', metallic: 0.1, roughness: 0.3 },
  ];
  assert.deepEqual(readMtl(writeMtl(library), 'out.mtl'), {
    materials: library.map((m, k) => ({ ...m, diffuse: [...m.diffuse], line: [1, 4][k] })),
    warnings: [],
  });
  const mesh = {
    positions: Float64Array.of(0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1),
    triangles: Uint32Array.of(0, 1, 2, 3, 4, 5),
  };
  const parts = ['body', 'visor'].map((name, k) => ({
    name,
    vertexStart: 3 * k,
    vertexCount: 3,
    triangleStart: k,
    triangleCount: 1,
    material: 1 - k,
    source: null,
    skinned: true,
  }));
  const read = readObj(writeObj(mesh, { parts, materials: { library: 'out.mtl', names: library.map((m) => m.name) } }), 'out.obj');
  assert.deepEqual(read.materialLibraries, ['out.mtl']);
  // usemtl names in order of first use: Glass (the body's), then Skin tone.
  assert.deepEqual(read.materials, ['Glass', 'Skin tone']);
  assert.deepEqual(
    read.parts?.map((p) => [p.name, read.materials[p.material]]),
    [
      ['body', 'Glass'],
      ['visor', 'Skin tone'],
    ],
  );
});
