/**
 * Bad input found by fuzzing the readers (test/fuzz): each case is one concrete input that once crashed, hung,
 * allocated from an unchecked count or printed an internal message, and the exact error it now gets, naming the
 * file, the place and the reason.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { importGltf } from '../../workers/formats/gltf-import.ts';
import { MAX_UNBACKED_ELEMENTS } from '../../workers/formats/gltf/sanitize-input.ts';
import { dataFile } from './shared-data.ts';
import { readDmat } from '../../workers/formats/dmat.ts';
import { FormatError } from '../../workers/formats/format-error.ts';
import { readObj } from '../../workers/formats/obj.ts';
import { readOff } from '../../workers/formats/off.ts';
import { checkFileSize, fileSizeLimit, MAX_BINARY_FILE_BYTES, MAX_TEXT_FILE_BYTES, readRigFile } from '../../workers/formats/read-file.ts';
import { excerpt } from '../../workers/formats/text-scanner.ts';

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call -- the tests edit glTF JSON freely */

/** Asserts that the promise rejects with a FormatError whose whole message is `message`. */
async function assertRejects(promise: Promise<unknown>, message: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof FormatError, `expected a FormatError, got ${String(error)}`);
    assert.equal(error.message, message);
    return true;
  });
}

/** Khronos SimpleSkin (glTF-Embedded) with its JSON changed by `edit`. */
function simpleSkin(edit: (json: Record<string, any>) => void): Uint8Array {
  const json = JSON.parse(readFileSync(dataFile('gltf', 'SimpleSkin', 'glTF-Embedded', 'SimpleSkin.gltf'), 'utf8')) as Record<string, any>;
  edit(json);
  return utf8(JSON.stringify(json));
}

/** Khronos SimpleSkin with external buffers: the .gltf and fresh copies of its four .bin files. */
function simpleSkinExternal(): { bytes: Uint8Array; resources: Record<string, Uint8Array> } {
  const dir = ['gltf', 'SimpleSkin', 'glTF'];
  const resources: Record<string, Uint8Array> = {};
  for (const bin of ['skinGeometry.bin', 'skinningData.bin', 'inverseBindMatrices.bin', 'skinAnimation.bin'])
    resources[bin] = new Uint8Array(readFileSync(dataFile(...dir, bin)));
  return { bytes: new Uint8Array(readFileSync(dataFile(...dir, 'SimpleSkin.gltf'))), resources };
}
const floats = (bytes: Uint8Array): DataView => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** Asserts that `fn` throws a FormatError whose whole message is `message`. */
function assertMessage(fn: () => unknown, message: string): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof FormatError, `expected a FormatError, got ${String(error)}`);
    assert.equal(error.message, message);
    return true;
  });
}

test('OFF: a face announcing 4294967296 corners is refused before anything is allocated for it', () => {
  // Once: RangeError "Invalid typed array length" from growing the triangle array to the announced size.
  const text = 'OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n4294967296 0 1 2\n';
  assertMessage(
    () => readOff(text, 'x.off'),
    'x.off: line 6: face 0 announces 4294967296 corners, more than the 7 characters left in the file can hold',
  );
});

test('OFF: header counts are checked against the text; arrays are sized by what the text can hold', () => {
  assertMessage(
    () => readOff('OFF\n4294967296 1 0\n0 0 0\n', 'x.off'),
    'x.off: line 2: the header announces 4294967296 vertices and 1 faces, more than a file of 25 characters can hold',
  );
  // 1000 vertices fit the count check of a 1010-character file, but not its lines: the file reports itself
  // truncated (and only 169 vertex slots, one per 6 characters, are ever allocated).
  const text = `OFF\n1000 0 0\n${'0 0 0\n'.repeat(167)}`.padEnd(1010, ' ');
  assertMessage(
    () => readOff(text, 't.off'),
    't.off: line 170: the file ends after 167 of the 1000 vertices announced by its header; it looks truncated',
  );
  const ok = readOff('OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2', 'z.off');
  assert.deepEqual(Array.from(ok.mesh.triangles), [0, 1, 2]);
  assert.deepEqual(Array.from(ok.mesh.positions), [0, 0, 0, 1, 0, 0, 0, 1, 0]);
});

test('messages quote at most 40 characters of a token: a file of a million zeros is not printed back', () => {
  const zeros = '0'.repeat(1_000_000);
  const shown = `${'0'.repeat(40)}… (1000000 characters)`;
  assertMessage(() => readOff(zeros, 'zeros.off'), `zeros.off: line 1: expected the header 'OFF', found '${shown}'`);
  assertMessage(
    () => readObj(`v 1 2 ${'x'.repeat(1_000_000)}\n`, 'long.obj'),
    `long.obj: line 1: vertex z coordinate '${'x'.repeat(40)}… (1000000 characters)' is not a number`,
  );
  assertMessage(
    () => readDmat(utf8(`1 1\n${'9'.repeat(50)}x\n`), 'long.dmat'),
    `long.dmat: line 2: value '${'9'.repeat(40)}… (51 characters)' is not a number`,
  );
  assertMessage(
    () => readDmat(utf8(`1 1\n1 ${'7'.repeat(100)}\n`), 'extra.dmat'),
    `extra.dmat: line 2: more values than the 1 announced by the header (1 columns × 1 rows), starting with '${'7'.repeat(40)}… (100 characters)'`,
  );
  // An unknown OBJ record is a warning; its keyword is cut the same way.
  const { report } = readObj(`${'q'.repeat(500)} 1\nv 0 0 0\n`, 'warn.obj');
  assert.deepEqual(report.warnings, [
    `line 1: unknown record '${'q'.repeat(40)}… (500 characters)' ignored`,
    "no faces: the file has no 'f' lines",
  ]);
});

test('OBJ: at most 20 unknown record kinds are named in warnings (a damaged file does not flood the report)', () => {
  const text = `${Array.from({ length: 1000 }, (_, i) => `junk${i} 1`).join('\n')}\nv 0 0 0\n`;
  const { report } = readObj(text, 'junk.obj');
  assert.deepEqual(report.warnings, [
    ...Array.from({ length: 20 }, (_, i) => `line ${i + 1}: unknown record 'junk${i}' ignored`),
    "no faces: the file has no 'f' lines",
  ]);
});

test('excerpt: short tokens as they are, control characters made visible, long ones cut with their length', () => {
  assert.equal(excerpt('1.5e3'), '1.5e3');
  assert.equal(excerpt('a\u0000b\tc'), 'a\\u0000b\\u0009c');
  assert.equal(excerpt('z'.repeat(41)), `${'z'.repeat(40)}… (41 characters)`);
  assert.equal(excerpt('z'.repeat(40)), 'z'.repeat(40));
});

test('file size limits: 256 MiB for text files, 1 GiB for .glb and .bin, refused before reading by size alone', () => {
  assert.equal(MAX_TEXT_FILE_BYTES, 256 * 1024 * 1024);
  assert.equal(MAX_BINARY_FILE_BYTES, 1024 * 1024 * 1024);
  assert.equal(fileSizeLimit('scan.OBJ'), MAX_TEXT_FILE_BYTES);
  assert.equal(fileSizeLimit('walk.gltf'), MAX_TEXT_FILE_BYTES);
  assert.equal(fileSizeLimit('walk.GLB'), MAX_BINARY_FILE_BYTES);
  assert.equal(fileSizeLimit('walk.bin'), MAX_BINARY_FILE_BYTES);
  checkFileSize('scan.obj', MAX_TEXT_FILE_BYTES);
  checkFileSize('walk.glb', MAX_BINARY_FILE_BYTES);
  assertMessage(
    () => checkFileSize('scan.obj', MAX_TEXT_FILE_BYTES + 1),
    'scan.obj: the file has 268435457 bytes (256 MiB), more than the 256 MiB Rigwright reads',
  );
  assertMessage(
    () => checkFileSize('scan.obj', 300 * 1024 * 1024),
    'scan.obj: the file has 314572800 bytes (300 MiB), more than the 256 MiB Rigwright reads',
  );
  assertMessage(
    () => checkFileSize('walk.glb', 2 * 1024 * 1024 * 1024),
    'walk.glb: the file has 2147483648 bytes (2048 MiB), more than the 1024 MiB Rigwright reads',
  );
  // readRigFile applies the limit to the bytes it is given (a view that claims more than the limit is refused
  // without being decoded).
  const huge = { length: MAX_TEXT_FILE_BYTES + 1 } as unknown as Uint8Array;
  assertMessage(
    () => readRigFile('scan.obj', huge),
    'scan.obj: the file has 268435457 bytes (256 MiB), more than the 256 MiB Rigwright reads',
  );
});

// ---- glTF: SimpleSkin has nodes 0 (mesh, skin), 1 (joint, child 2), 2 (joint); accessors 0 indices, 1 POSITION,
// 2 JOINTS_0, 3 WEIGHTS_0, 4 inverse bind matrices, 5 key times (12), 6 rotations (12 VEC4).

test('glTF: a cyclic node hierarchy is refused before glTF-Transform recurses through it', async () => {
  // Once: "Maximum call stack size exceeded" inside glTF-Transform's graph.
  await assertRejects(
    importGltf(
      simpleSkin((g) => (g.nodes[2].children = [1])),
      'SimpleSkin.gltf',
    ),
    'SimpleSkin.gltf: /nodes/1/children: glTF import: the node hierarchy has a cycle through node 1',
  );
  await assertRejects(
    importGltf(
      simpleSkin((g) => (g.nodes[2].children = [2])),
      'SimpleSkin.gltf',
    ),
    'SimpleSkin.gltf: /nodes/2/children/0: glTF import: node 2 names itself as its child',
  );
  await assertRejects(
    importGltf(
      simpleSkin((g) => (g.nodes[0].children = [2])),
      'SimpleSkin.gltf',
    ),
    'SimpleSkin.gltf: /nodes/1/children/0: glTF import: node 2 is already a child of node 0 (a node has one parent)',
  );
});

test('glTF: joints naming missing nodes, repeated joints and out-of-range references are named by JSON pointer', async () => {
  await assertRejects(
    importGltf(
      simpleSkin((g) => (g.skins[0].joints = [1, 7])),
      'SimpleSkin.gltf',
    ),
    'SimpleSkin.gltf: /skins/0/joints/1: glTF import: 7 is not a valid node index (the file has 3 nodes)',
  );
  await assertRejects(
    importGltf(
      simpleSkin((g) => (g.skins[0].joints = [1, 1])),
      'SimpleSkin.gltf',
    ),
    'SimpleSkin.gltf: /skins/0/joints/1: glTF import: node 1 is listed twice as a joint',
  );
  // Once: "Cannot read properties of undefined (reading 'byteStride')".
  await assertRejects(
    importGltf(
      simpleSkin((g) => (g.accessors[0].bufferView = 9)),
      'SimpleSkin.gltf',
    ),
    'SimpleSkin.gltf: /accessors/0/bufferView: glTF import: 9 is not a valid buffer view index (the file has 5 buffer views)',
  );
  // A camera without its perspective block once failed inside glTF-Transform; cameras are not part of a rig.
  const rig = await importGltf(
    simpleSkin((g) => {
      g.cameras = [{ type: 'perspective' }];
      g.nodes[1].camera = 0;
    }),
    'SimpleSkin.gltf',
  );
  assert.equal(rig.skeleton.parents.length, 2);
});

test('glTF: counts are checked against the bytes present (no typed array sized by an unchecked count)', async () => {
  await assertRejects(
    importGltf(
      simpleSkin((g) => (g.accessors[0].count = 1e9)),
      'SimpleSkin.gltf',
    ),
    'SimpleSkin.gltf: /accessors/0: glTF import: 1000000000 elements need 2000000000 bytes, past the end of buffer view 0 (48 bytes)',
  );
  await assertRejects(
    importGltf(
      simpleSkin((g) => (g.bufferViews[1].byteLength = 4000)),
      'SimpleSkin.gltf',
    ),
    'SimpleSkin.gltf: /bufferViews/1: glTF import: bytes 48 to 4048 are past the end of buffer 0 (168 bytes)',
  );
  await assertRejects(
    importGltf(
      simpleSkin((g) => (g.buffers[0].byteLength = 1e9)),
      'SimpleSkin.gltf',
    ),
    'SimpleSkin.gltf: /buffers/0: glTF import: the buffer declares 1000000000 bytes but its data has 168; it looks truncated',
  );
  await assertRejects(
    importGltf(
      simpleSkin((g) => (g.accessors[3].count = 8)),
      'SimpleSkin.gltf',
    ),
    "SimpleSkin.gltf: /meshes/0/primitives/0/attributes/WEIGHTS_0: glTF import: 8 elements for the primitive's 10 positions",
  );
});

test('glTF: sparse accessors claiming 1e8 entries are refused at once (they once hung for over 20 s)', async () => {
  const started = performance.now();
  await assertRejects(
    importGltf(
      simpleSkin(
        (g) => (g.accessors[1].sparse = { count: 1e8, indices: { bufferView: 0, componentType: 5123 }, values: { bufferView: 1 } }),
      ),
      'SimpleSkin.gltf',
    ),
    'SimpleSkin.gltf: /accessors/1/sparse/count: glTF import: 100000000 sparse entries for an accessor of 10 elements',
  );
  await assertRejects(
    importGltf(
      simpleSkin((g) => {
        g.accessors[1].count = 1e8;
        delete g.accessors[1].bufferView;
        g.accessors[1].sparse = { count: 3, indices: { bufferView: 0, componentType: 5123 }, values: { bufferView: 1 } };
      }),
      'SimpleSkin.gltf',
    ),
    `SimpleSkin.gltf: /accessors/1/count: glTF import: 100000000 elements without buffer data; Rigwright reads at most ${MAX_UNBACKED_ELEMENTS} such elements`,
  );
  // Sparse indices past the accessor are read and checked: buffer view 0 holds the triangle indices 0 1 3 0 …, so
  // two entries from byte 2 name elements 1 and 3 of an accessor of 2.
  await assertRejects(
    importGltf(
      simpleSkin(
        (g) =>
          (g.accessors[4].sparse = { count: 2, indices: { bufferView: 0, byteOffset: 2, componentType: 5123 }, values: { bufferView: 3 } }),
      ),
      'SimpleSkin.gltf',
    ),
    "SimpleSkin.gltf: /accessors/4/sparse/indices: glTF import: entry 1 names element 3, past the accessor's 2 elements",
  );
  assert.ok(performance.now() - started < 20000, 'the sparse cases are refused within 20 s');
});

test('glTF: a node translation with 4 numbers is refused (it once overwrote the next node’s x)', async () => {
  await assertRejects(
    importGltf(
      simpleSkin((g) => (g.nodes[2].translation = [0, 1, 0, 5])),
      'SimpleSkin.gltf',
    ),
    'SimpleSkin.gltf: /nodes/2/translation: glTF import: must be 3 finite numbers, found [0,1,0,5]',
  );
  await assertRejects(
    importGltf(
      simpleSkin((g) => (g.nodes[2].rotation = [0, 0, 0, 0])),
      'SimpleSkin.gltf',
    ),
    'SimpleSkin.gltf: /nodes/2/rotation: glTF import: a zero quaternion is not a rotation',
  );
});

test('glTF: JOINTS_0 marked normalized is refused (its weights once vanished without a word)', async () => {
  await assertRejects(
    importGltf(
      simpleSkin((g) => (g.accessors[2].normalized = true)),
      'SimpleSkin.gltf',
    ),
    'SimpleSkin.gltf: /accessors/2: glTF import: JOINTS_0 is marked normalized; joint indices must be whole numbers',
  );
  await assertRejects(
    importGltf(
      simpleSkin((g) => (g.accessors[2].componentType = 5126)),
      'SimpleSkin.gltf',
    ),
    'SimpleSkin.gltf: /accessors/2: glTF import: JOINTS_0 must be VEC4 of unsigned bytes or shorts (glTF 2.0 §3.7.3.3)',
  );
});

test('glTF: a last key time of 1e5 s or 1e6 s is one more key, not millions of frames', async () => {
  // Once refused (resampling at 30 fps took 29 s and 4.2 GB for 1e5 s); clips now keep their keys. Key times are
  // floats at bytes 0–47 of skinAnimation.bin.
  for (const last of [1e5, 1e6]) {
    const { bytes, resources } = simpleSkinExternal();
    const keys = floats(resources['skinAnimation.bin']);
    const expected = Array.from({ length: 12 }, (_, k) => keys.getFloat32(4 * k, true));
    expected[11] = Math.fround(last);
    keys.setFloat32(44, last, true);
    const started = performance.now();
    const poses = (await importGltf(bytes, 'SimpleSkin.gltf', resources)).clips[0].poses;
    assert.ok(performance.now() - started < 5000, 'the import takes under 5 s');
    assert.equal(poses.kind, 'matrices');
    if (poses.kind !== 'matrices') return;
    assert.equal(poses.frameCount, 12);
    assert.deepEqual(Array.from(poses.times ?? []), expected);
  }
  const { bytes, resources } = simpleSkinExternal();
  floats(resources['skinAnimation.bin']).setFloat32(20, 0.1, true);
  await assertRejects(
    importGltf(bytes, 'SimpleSkin.gltf', resources),
    'SimpleSkin.gltf: /accessors/5: glTF import: key time 5 (0.10000000149011612 s) comes before key time 4 (2 s)',
  );
});

test('glTF: NaN and zero rotations in a clip are refused (clips with NaN rotations were once accepted)', async () => {
  // Rotations are VEC4 floats from byte 48 of skinAnimation.bin.
  const nan = simpleSkinExternal();
  floats(nan.resources['skinAnimation.bin']).setFloat32(48 + 16 * 3, NaN, true);
  await assertRejects(
    importGltf(nan.bytes, 'SimpleSkin.gltf', nan.resources),
    'SimpleSkin.gltf: /accessors/6 (animation "animation 0") element 3: glTF import: value NaN is not a finite number',
  );
  const zero = simpleSkinExternal();
  zero.resources['skinAnimation.bin'].fill(0, 48 + 16 * 3, 48 + 16 * 4);
  await assertRejects(
    importGltf(zero.bytes, 'SimpleSkin.gltf', zero.resources),
    'SimpleSkin.gltf: /accessors/6 element 3: glTF import: the rotation (0, 0, 0, 0) is not a usable quaternion (length 0)',
  );
});

test('glTF: a singular inverse bind matrix names the file, the joint and the reason', async () => {
  const { bytes, resources } = simpleSkinExternal();
  resources['inverseBindMatrices.bin'].fill(0, 64, 128);
  await assertRejects(
    importGltf(bytes, 'SimpleSkin.gltf', resources),
    'SimpleSkin.gltf: /skins/0/joints/1: glTF import: the inverse bind matrix of joint 1 ("joint_1") is singular',
  );
});

test('GLB: chunk lengths past the end of the file are refused with the chunk named', async () => {
  const glb = new Uint8Array(readFileSync(dataFile('gltf', 'RiggedSimple', 'RiggedSimple.glb')));
  const view = new DataView(glb.buffer);
  const binAt = 20 + view.getUint32(12, true);
  const binLength = view.getUint32(binAt, true);
  const longer = glb.slice();
  new DataView(longer.buffer).setUint32(binAt, binLength + 4096, true);
  await assertRejects(
    importGltf(longer, 'RiggedSimple.glb'),
    `RiggedSimple.glb: GLB chunk 1: glTF import: the BIN chunk at byte ${binAt} claims ${binLength + 4096} bytes, only ${glb.length - binAt - 8} follow`,
  );
  const json = glb.slice();
  new DataView(json.buffer).setUint32(12, 1e9, true);
  await assertRejects(
    importGltf(json, 'RiggedSimple.glb'),
    `RiggedSimple.glb: GLB chunk 0: glTF import: the JSON chunk at byte 12 claims 1000000000 bytes, only ${glb.length - 20} follow`,
  );
  await assertRejects(
    importGltf(glb.slice(0, 1000), 'RiggedSimple.glb'),
    `RiggedSimple.glb: GLB header: glTF import: the header gives a length of ${glb.length} bytes (byte 8), the file has 1000; it looks truncated`,
  );
});

test('glTF: a chain of 12,000 nodes imports without overflowing the stack; more than 20,000 nodes are refused', async () => {
  // The skin's joint 1 hangs at the end of the chain, so every link is composed in every frame.
  const chain = (links: number): Uint8Array =>
    simpleSkin((g) => {
      const first = g.nodes.length;
      for (let i = 0; i < links; i++) g.nodes.push({ children: [i + 1 < links ? first + i + 1 : 1] });
      g.scenes[0].nodes = [0, first];
    });
  const rig = await importGltf(chain(12000), 'chain.gltf');
  assert.deepEqual(Array.from(rig.skeleton.parents), [-1, 0]);
  assert.equal(rig.clips[0].poses.boneCount, 2);
  await assertRejects(
    importGltf(chain(20000), 'chain.gltf'),
    'chain.gltf: /nodes: glTF import: 20003 entries; Rigwright reads at most 20000',
  );
});
