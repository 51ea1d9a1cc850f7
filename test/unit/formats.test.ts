/**
 * File readers and writers (workers/formats) on the shared real data and on hand-written inputs. Expected counts
 * are taken from the files themselves with plain line/regex counting, and parsed numbers are compared with the
 * engine's own `Number` parse of the same tokens.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readDmat, writeDmatAscii, writeDmatBinary } from '../../workers/formats/dmat.ts';
import { FormatError } from '../../workers/formats/format-error.ts';
import { readObj, writeObj } from '../../workers/formats/obj.ts';
import { readOff } from '../../workers/formats/off.ts';
import { poseSequenceFromDmat, poseSequenceToDmat } from '../../workers/formats/pose-file.ts';
import { readRigFile } from '../../workers/formats/read-file.ts';
import { readTgf, writeTgf } from '../../workers/formats/tgf.ts';
import type { DenseMatrix } from '../../workers/formats/types.ts';
import { handlesFromDmat, weightsFromDmat } from '../../workers/formats/weights-file.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dataDir = process.env.RIGWRIGHT_DATA ?? path.resolve(repoRoot, '../shared/data');

function dataPath(relative: string): string {
  const full = path.join(dataDir, relative);
  if (!existsSync(full)) {
    throw new Error(`test data missing: ${full} — the shared data folder is expected at ${dataDir} (set RIGWRIGHT_DATA)`);
  }
  return full;
}
const dataText = (relative: string) => readFileSync(dataPath(relative), 'utf8');
const dataBytes = (relative: string) => new Uint8Array(readFileSync(dataPath(relative)));
const utf8 = (text: string) => new TextEncoder().encode(text);

/** Asserts that `fn` throws a FormatError for `file` whose message names the place and matches the reason. */
function assertFormatError(fn: () => unknown, file: string, where: string, reason: RegExp): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof FormatError, `expected a FormatError, got ${String(error)}`);
    assert.equal(error.file, file);
    assert.equal(error.where, where, error.message);
    assert.match(error.message, new RegExp(`^${file.replace(/\./g, '\\.')}: `));
    if (where) assert.ok(error.message.includes(where), error.message);
    assert.match(error.reason, reason);
    return true;
  });
}

/** True when both arrays hold identical bit patterns (distinguishes -0 from 0). */
function bitEqual(a: Float64Array, b: Float64Array): boolean {
  if (a.length !== b.length) return false;
  const x = new BigUint64Array(a.buffer, a.byteOffset, a.length);
  const y = new BigUint64Array(b.buffer, b.byteOffset, b.length);
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

/** Reference OBJ parse by splitting lines: positions from `v` lines, triangle fans from `f` lines. */
function naiveObj(text: string): { positions: number[]; triangles: number[] } {
  const positions: number[] = [];
  const triangles: number[] = [];
  for (const line of text.split('\n')) {
    const parts = line.trim().split(/\s+/);
    if (parts[0] === 'v') positions.push(Number(parts[1]), Number(parts[2]), Number(parts[3]));
    if (parts[0] === 'f') {
      const ids = parts.slice(1).map((p) => Number(p.split('/')[0]) - 1);
      for (let k = 2; k < ids.length; k++) triangles.push(ids[0], ids[k - 1], ids[k]);
    }
  }
  return { positions, triangles };
}

function det3(m: Float64Array, o: number): number {
  return (
    m[o] * (m[o + 4] * m[o + 8] - m[o + 5] * m[o + 7]) -
    m[o + 1] * (m[o + 3] * m[o + 8] - m[o + 5] * m[o + 6]) +
    m[o + 2] * (m[o + 3] * m[o + 7] - m[o + 4] * m[o + 6])
  );
}

/** Largest |R·Rᵀ − I| entry of the row-major 3×3 block at m[o..o+9). */
function orthonormalityError(m: Float64Array, o: number): number {
  let worst = 0;
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      let dot = 0;
      for (let k = 0; k < 3; k++) dot += m[o + 3 * i + k] * m[o + 3 * j + k];
      worst = Math.max(worst, Math.abs(dot - (i === j ? 1 : 0)));
    }
  }
  return worst;
}

test('shared data folder is present', () => {
  assert.ok(existsSync(dataDir), `shared data folder missing: ${dataDir} (set RIGWRIGHT_DATA)`);
});

// ---------------------------------------------------------------- meshes on real data

test('hand.off: 4780 vertices, 9556 triangles, values and faces as in the file', () => {
  const text = dataText('hand/hand.off');
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const [vertexCount, faceCount] = lines[1].split(/\s+/).map(Number);
  assert.deepEqual([vertexCount, faceCount], [4780, 9556]);
  const { mesh, report } = readOff(text, 'hand.off');
  assert.equal(mesh.positions.length, 3 * 4780);
  assert.equal(mesh.triangles.length, 3 * 9556);
  assert.deepEqual(Array.from(mesh.positions.subarray(0, 3)), lines[2].split(/\s+/).map(Number));
  assert.deepEqual(Array.from(mesh.triangles.subarray(0, 3)), lines[2 + vertexCount].split(/\s+/).slice(1).map(Number));
  const last = lines[lines.length - 1].split(/\s+/).slice(1).map(Number);
  assert.deepEqual(Array.from(mesh.triangles.subarray(mesh.triangles.length - 3)), last);
  assert.equal(report.polygonsTriangulated, 0);
  assert.deepEqual(report.warnings, []);
});

for (const [file, vertices, triangles] of [
  ['context-aware/reference.obj', 18453, 36902],
  ['libigl/arm.obj', 8311, 16618],
  ['libigl/armadillo.obj', 43243, 86482],
] as const) {
  test(`${path.basename(file)}: ${vertices} vertices, ${triangles} triangles, numbers equal Number() of each token`, () => {
    const text = dataText(file);
    assert.equal(text.match(/^v /gm)?.length, vertices);
    assert.equal(text.match(/^f /gm)?.length, triangles);
    const { mesh, report } = readObj(text, path.basename(file));
    const naive = naiveObj(text);
    assert.ok(bitEqual(mesh.positions, Float64Array.from(naive.positions)), 'positions differ from Number() of the tokens');
    assert.deepEqual(Array.from(mesh.triangles), naive.triangles);
    assert.deepEqual(report, { polygonsTriangulated: 0, texcoords: 0, normals: 0, warnings: [] });
  });
}

// ---------------------------------------------------------------- OBJ features

test('OBJ: v/vt/vn, v//vn, v/vt corners, records that carry no geometry', () => {
  const text = [
    '# a comment',
    'mtllib box.mtl',
    'o box',
    'g side',
    's off',
    'usemtl red',
    'v 0 0 0',
    'v 1 0 0 1.0',
    'v 1 1 0 0.5 0.5 0.5',
    '  v\t0 1 0',
    'vt 0 0',
    'vt 1 0',
    'vn 0 0 1',
    'f 1/1/1 2/2/1 3/1/1',
    'f 1//1 3//1 4//1',
    'f 4/1 3/2 2/1',
    'l 1 2',
    '',
  ].join('\r\n');
  const { mesh, report } = readObj(text, 'box.obj');
  assert.deepEqual(Array.from(mesh.positions), [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0]);
  assert.deepEqual(Array.from(mesh.triangles), [0, 1, 2, 0, 2, 3, 3, 2, 1]);
  assert.deepEqual(report, { polygonsTriangulated: 0, texcoords: 2, normals: 1, warnings: [] });
});

test('OBJ: negative indices count back from the latest vertex', () => {
  const text = 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1\nv 5 5 5\nf -4 -1 -2\n';
  const { mesh } = readObj(text, 'rel.obj');
  assert.deepEqual(Array.from(mesh.triangles), [0, 1, 2, 0, 3, 2]);
});

test('OBJ: quads and pentagons are fan-triangulated from the first corner', () => {
  const vertices = Array.from({ length: 9 }, (_, i) => `v ${i} ${i * i} 0`).join('\n');
  const { mesh, report } = readObj(`${vertices}\nf 1 2 3 4\nf 5/1 6/2 7/3 8/4 9/5\nf 3 2 1`, 'poly.obj');
  assert.deepEqual(Array.from(mesh.triangles), [0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7, 4, 7, 8, 2, 1, 0]);
  assert.equal(report.polygonsTriangulated, 2);
});

test('OBJ: numbers in every notation match Number()', () => {
  const tokens = [
    '-0',
    '+1',
    '.5',
    '-.25',
    '5.',
    '1e3',
    '1E-3',
    '-2.5e+2',
    '0.000001',
    '123456789012345678',
    '0.1000000000000000055511151231257827',
    '1e-320',
    '4.9e-324',
    '1.7976931348623157e308',
    '2.2250738585072014e-308',
    '9007199254740993',
    '0.30000000000000004',
    '00012.500',
  ];
  const lines = [];
  for (let i = 0; i < tokens.length; i += 3) lines.push(`v ${tokens[i]} ${tokens[i + 1]} ${tokens[i + 2]}`);
  const { mesh } = readObj(lines.join('\n'), 'numbers.obj');
  assert.ok(bitEqual(mesh.positions, Float64Array.from(tokens.map(Number))), 'every number token reads back bit for bit');
});

test('OBJ: random decimal strings parse to the same doubles as Number()', () => {
  let seed = 12345;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const tokens: string[] = [];
  for (let i = 0; i < 3000; i++) {
    const value = (random() - 0.5) * 10 ** Math.floor(random() * 60 - 30);
    const digits = 1 + Math.floor(random() * 17);
    tokens.push(i % 3 === 0 ? value.toPrecision(digits) : i % 3 === 1 ? value.toExponential(digits - 1) : String(value));
  }
  const lines = [];
  for (let i = 0; i < tokens.length; i += 3) lines.push(`v ${tokens[i]} ${tokens[i + 1]} ${tokens[i + 2]}`);
  const { mesh } = readObj(lines.join('\n'), 'random.obj');
  assert.ok(bitEqual(mesh.positions, Float64Array.from(tokens.map(Number))), 'every random number token reads back bit for bit');
});

test('OBJ: write → read keeps positions bit-exact and triangles', () => {
  const positions = Float64Array.from([0.1, -0, 1 / 3, 1e-300, -5e-324, 1.7976931348623157e308, Math.PI, -Math.E, 42]);
  const triangles = Uint32Array.from([0, 1, 2, 2, 1, 0]);
  const { mesh } = readObj(writeObj({ positions, triangles }), 'roundtrip.obj');
  assert.ok(bitEqual(mesh.positions, positions), 'written positions read back bit for bit');
  assert.deepEqual(mesh.triangles, triangles);
});

// ---------------------------------------------------------------- TGF

test('hand.tgf: 21 joints, 20 bones, garbage columns ignored', () => {
  const text = dataText('hand/hand.tgf');
  const skeleton = readTgf(text, 'hand.tgf');
  assert.equal(skeleton.joints.length, 21 * 3);
  assert.equal(skeleton.bones.length, 20 * 2);
  const firstNumbers = text.trim().split(/\s+/).slice(1, 4).map(Number);
  assert.deepEqual(Array.from(skeleton.joints.subarray(0, 3)), firstNumbers);
  // Node 2's columns 5–7 hold 2.8e+199, 3.7e-27, 6.0e+175: none may leak into the joints.
  for (const value of skeleton.joints) assert.ok(Math.abs(value) < 2, `joint coordinate ${value}`);
  const edgeLines = text
    .split('#')[1]
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/).map(Number));
  assert.deepEqual(
    Array.from(skeleton.bones),
    edgeLines.flatMap(([a, b]) => [a - 1, b - 1]),
  );
  assert.deepEqual(Array.from(skeleton.bones.subarray(20, 22)), [0, 1], 'bone 10 (the root) is nodes 1 → 2');
});

test('skeleton.tgf (context-aware): 29 joints, 28 bones, three roots at node 1', () => {
  const skeleton = readTgf(dataText('context-aware/skeleton.tgf'), 'skeleton.tgf');
  assert.equal(skeleton.joints.length, 29 * 3);
  assert.equal(skeleton.bones.length, 28 * 2);
  assert.deepEqual(Array.from(skeleton.bones.subarray(0, 6)), [0, 1, 0, 2, 0, 3]);
});

test('TGF: tab-separated nodes, edge flags ignored, write → read round trip', () => {
  const skeleton = readTgf('1\t0\t0\t0\n2\t0\t1.5\t0\n3 0 2 -0\n#\n1 2 1 0 0\n2 3\n#\n', 'tabs.tgf');
  assert.deepEqual(Array.from(skeleton.joints), [0, 0, 0, 0, 1.5, 0, 0, 2, -0]);
  assert.deepEqual(Array.from(skeleton.bones), [0, 1, 1, 2]);
  const again = readTgf(writeTgf(skeleton), 'tabs.tgf');
  assert.ok(bitEqual(again.joints, skeleton.joints), 'joints read back bit for bit after writing');
  assert.deepEqual(again.bones, skeleton.bones);
});

// ---------------------------------------------------------------- DMAT

test('hand-pose_matrot.dmat (ASCII) is read column-major: 2040 × 3 of rotations, frame 0 identity', () => {
  const bytes = dataBytes('hand/hand-pose_matrot.dmat');
  const m = readDmat(bytes, 'hand-pose_matrot.dmat');
  assert.deepEqual([m.rows, m.cols], [2040, 3]);
  for (let bone = 0; bone < 20; bone++) {
    assert.deepEqual(Array.from(m.data.subarray(bone * 9, bone * 9 + 9)), [1, 0, 0, 0, 1, 0, 0, 0, 1]);
  }
  for (let block = 0; block < 680; block++) {
    assert.ok(Math.abs(det3(m.data, block * 9) - 1) < 1e-6, `block ${block} det`);
    assert.ok(orthonormalityError(m.data, block * 9) < 1e-6, `block ${block} orthonormal`);
  }
  // The same values taken row-major are not rotations: the layout matters.
  const values = Float64Array.from(new TextDecoder().decode(bytes).trim().split(/\s+/).slice(2).map(Number));
  let nonRotations = 0;
  for (let block = 0; block < 680; block++) if (orthonormalityError(values, block * 9) > 1e-3) nonRotations++;
  assert.ok(nonRotations > 100, `only ${nonRotations} non-rotations when read row-major`);
});

test('elephant-weights.dmat (binary): 6034 × 24, every row sums to 1', () => {
  const m = readDmat(dataBytes('libigl/elephant-weights.dmat'), 'elephant-weights.dmat');
  assert.deepEqual([m.rows, m.cols], [6034, 24]);
  for (let r = 0; r < m.rows; r++) {
    let sum = 0;
    for (let c = 0; c < m.cols; c++) sum += m.data[r * m.cols + c];
    assert.ok(Math.abs(sum - 1) < 1e-6, `row ${r} sums to ${sum}`);
  }
});

test('elephant-anim.dmat (binary): 288 × 457, frame 0 column is the identity transform of 24 bones', () => {
  const m = readDmat(dataBytes('libigl/elephant-anim.dmat'), 'elephant-anim.dmat');
  assert.deepEqual([m.rows, m.cols], [288, 457]);
  // Column 0 reshaped column-major to 96 × 3: rows 4e..4e+2 are Rᵀ, row 4e+3 is tᵀ.
  for (let i = 0; i < 96; i++) {
    for (let j = 0; j < 3; j++) {
      const expected = i % 4 === j ? 1 : 0;
      assert.equal(m.data[(j * 96 + i) * m.cols], expected, `T(${i}, ${j})`);
    }
  }
});

test('armadillo-weights.dmat (binary) equals its ASCII rewrite, and both writers round-trip bit-exactly', () => {
  const m = readDmat(dataBytes('libigl/armadillo-weights.dmat'), 'armadillo-weights.dmat');
  assert.deepEqual([m.rows, m.cols], [43243, 5]);
  const ascii = readDmat(utf8(writeDmatAscii(m)), 'a.dmat');
  assert.deepEqual([ascii.rows, ascii.cols], [m.rows, m.cols]);
  assert.ok(bitEqual(ascii.data, m.data), 'the ASCII DMAT reads back bit for bit');
  const binary = readDmat(writeDmatBinary(m), 'b.dmat');
  assert.ok(bitEqual(binary.data, m.data), 'the binary DMAT reads back bit for bit');
  assert.deepEqual(writeDmatBinary(m), dataBytes('libigl/armadillo-weights.dmat'), 'binary writer reproduces libigl bytes');
});

test('DMAT: write → read is bit-exact for awkward doubles (ASCII and binary)', () => {
  const special = [
    0,
    -0,
    0.1,
    1 / 3,
    -2 / 3,
    1e-300,
    5e-324,
    -5e-324,
    2.2250738585072014e-308,
    1.7976931348623157e308,
    123456789.12345679,
    2 ** 53 + 2,
    -1e21,
    1e-7,
  ];
  const bits = new BigUint64Array(40);
  let state = 0x9e3779b97f4a7c15n;
  for (let i = 0; i < bits.length; i++) {
    state = (state * 6364136223846793005n + 1442695040888963407n) & 0xffffffffffffffffn;
    // Keep the exponent below all ones so every pattern is finite.
    bits[i] = (state & ~(0x7ffn << 52n)) | (((state >> 20n) % 0x7fen) << 52n);
  }
  const data = Float64Array.from([...special, ...new Float64Array(bits.buffer)]);
  const m: DenseMatrix = { rows: data.length / 3, cols: 3, data };
  const ascii = readDmat(utf8(writeDmatAscii(m)), 'round.dmat');
  assert.deepEqual([ascii.rows, ascii.cols], [m.rows, 3]);
  assert.ok(bitEqual(ascii.data, data), 'ASCII round trip');
  const binary = readDmat(writeDmatBinary(m), 'round.dmat');
  assert.deepEqual([binary.rows, binary.cols], [m.rows, 3]);
  assert.ok(bitEqual(binary.data, data), 'binary round trip');
});

test('DMAT: ASCII values may share lines; header is columns then rows', () => {
  const m = readDmat(utf8('2 3\n1 2 3\n4 5 6\n'), 'small.dmat');
  assert.deepEqual([m.rows, m.cols], [3, 2]);
  assert.deepEqual(Array.from(m.data), [1, 4, 2, 5, 3, 6]);
  assert.deepEqual(writeDmatAscii(m), '2 3\n1\n2\n3\n4\n5\n6\n');
});

// ---------------------------------------------------------------- pose files

test('hand matrot pose file: 34 frames of 20 bones, rotations as stored; back to the same matrix', () => {
  const m = readDmat(dataBytes('hand/hand-pose_matrot.dmat'), 'hand-pose_matrot.dmat');
  const seq = poseSequenceFromDmat(m, 20, 'hand-pose_matrot.dmat');
  assert.equal(seq.kind, 'matrices');
  if (seq.kind !== 'matrices') return;
  assert.equal(seq.boneCount, 20);
  assert.equal(seq.frameCount, 34);
  assert.ok(bitEqual(seq.rotations, m.data), "the pose sequence's rotations are the DMAT's values bit for bit");
  const back = poseSequenceToDmat(seq);
  assert.deepEqual([back.rows, back.cols], [2040, 3]);
  assert.ok(bitEqual(back.data, m.data), 'the DMAT written from the pose sequence has the same values bit for bit');
});

test('hand quaternion pose file: 20 unit quaternions x y z w, bones 3, 4, 10 identity', () => {
  const m = readDmat(dataBytes('hand/hand-pose_quat.dmat'), 'hand-pose_quat.dmat');
  const seq = poseSequenceFromDmat(m, 20, 'hand-pose_quat.dmat');
  assert.equal(seq.kind, 'quaternions');
  if (seq.kind !== 'quaternions') return;
  assert.equal(seq.final.length, 80);
  for (let b = 0; b < 20; b++) {
    assert.ok(Math.abs(Math.hypot(...seq.final.subarray(4 * b, 4 * b + 4)) - 1) < 1e-12, `bone ${b}`);
    for (let k = 0; k < 4; k++)
      assert.ok(
        Math.abs(seq.final[4 * b + k] - m.data[4 * b + k]) < 1e-9,
        `bone ${b}: final quaternion component ${k} is the DMAT's (within 1e-9)`,
      );
  }
  for (const b of [3, 4, 10]) assert.deepEqual(Array.from(seq.final.subarray(4 * b, 4 * b + 4)), [0, 0, 0, 1]);
  const back = poseSequenceToDmat(seq);
  assert.deepEqual([back.rows, back.cols], [80, 1]);
});

test('pose file for another skeleton names both sizes', () => {
  const matrot = readDmat(dataBytes('hand/hand-pose_matrot.dmat'), 'hand-pose_matrot.dmat');
  assertFormatError(
    () => poseSequenceFromDmat(matrot, 28, 'hand-pose_matrot.dmat'),
    'hand-pose_matrot.dmat',
    '',
    /another skeleton.*2040 × 3.*680 rotation matrices.*28 bones.*84·L × 3.*112 × 1/,
  );
  const quat = readDmat(dataBytes('hand/hand-pose_quat.dmat'), 'hand-pose_quat.dmat');
  assertFormatError(
    () => poseSequenceFromDmat(quat, 28, 'hand-pose_quat.dmat'),
    'hand-pose_quat.dmat',
    '',
    /another skeleton.*80 × 1.*quaternions for 20 bones.*28 bones/,
  );
  assertFormatError(
    () => poseSequenceFromDmat({ rows: 5, cols: 2, data: new Float64Array(10) }, 2, 'odd.dmat'),
    'odd.dmat',
    '',
    /5 × 2.*fits no skeleton/,
  );
});

test('pose file: non-rotation block names frame and bone; zero quaternion names the bone', () => {
  const rotations = new Float64Array(2 * 2 * 9);
  for (let block = 0; block < 4; block++) rotations.set([1, 0, 0, 0, 1, 0, 0, 0, 1], block * 9);
  rotations.set([1, 0, 0, 0, 1, 0, 0, 0, -1], 3 * 9);
  assertFormatError(
    () => poseSequenceFromDmat({ rows: 12, cols: 3, data: rotations }, 2, 'flip.dmat'),
    'flip.dmat',
    'frame 1 bone 1',
    /not a rotation.*det -1.*reflection/,
  );
  rotations.set([2, 0, 0, 0, 1, 0, 0, 0, 1], 3 * 9);
  assertFormatError(
    () => poseSequenceFromDmat({ rows: 12, cols: 3, data: rotations }, 2, 'scaled.dmat'),
    'scaled.dmat',
    'frame 1 bone 1',
    /not a rotation.*identity by 3/,
  );
  const quats = Float64Array.from([0, 0, 0, 2, 0, 0, 0, 0]);
  assertFormatError(
    () => poseSequenceFromDmat({ rows: 8, cols: 1, data: quats }, 2, 'zero.dmat'),
    'zero.dmat',
    'bone 1',
    /quaternion.*length 0/,
  );
  const normalized = poseSequenceFromDmat({ rows: 4, cols: 1, data: Float64Array.from([0, 0, 0, 2]) }, 1, 'scaled-quat.dmat');
  assert.deepEqual(normalized, { kind: 'quaternions', boneCount: 1, final: Float64Array.from([0, 0, 0, 1]) });
});

// ---------------------------------------------------------------- weights and handles

test('arm-weights.dmat fits arm.obj and arm.tgf', () => {
  const vertexCount = readObj(dataText('libigl/arm.obj'), 'arm.obj').mesh.positions.length / 3;
  const boneCount = readTgf(dataText('libigl/arm.tgf'), 'arm.tgf').bones.length / 2;
  assert.deepEqual([vertexCount, boneCount], [8311, 4]);
  const m = readDmat(dataBytes('libigl/arm-weights.dmat'), 'arm-weights.dmat');
  const { weights, warnings } = weightsFromDmat(m, vertexCount, boneCount, 'arm-weights.dmat');
  assert.equal(weights, m);
  assert.deepEqual(warnings, []);
  assertFormatError(() => weightsFromDmat(m, 4780, 20, 'arm-weights.dmat'), 'arm-weights.dmat', '', /8311 × 4.*4780 × 20.*neither/);
  assertFormatError(
    () => weightsFromDmat(m, 8311, 5, 'arm-weights.dmat'),
    'arm-weights.dmat',
    '',
    /8311 × 4.*8311 × 5.*rows match the mesh's vertices.*4 columns do not match the skeleton's 5 bones/,
  );
  assertFormatError(
    () => weightsFromDmat(m, 9000, 4, 'arm-weights.dmat'),
    'arm-weights.dmat',
    '',
    /columns match.*8311 rows do not match the mesh's 9000 vertices/,
  );
});

test('weights: negative entries and rows off 1 are warnings, NaN is an error', () => {
  const data = Float64Array.from([0.5, 0.5, 1.2, -0.2, 0.3, 0.3, 1, 0]);
  const { warnings } = weightsFromDmat({ rows: 4, cols: 2, data }, 4, 2, 'w.dmat');
  assert.equal(warnings.length, 2);
  assert.match(warnings[0], /1 negative weight; the smallest is -0.2 at row 2 column 2/);
  assert.match(warnings[1], /1 row does not sum to 1; the furthest is row 3 with sum 0.6/);
  data[5] = NaN;
  assertFormatError(() => weightsFromDmat({ rows: 4, cols: 2, data }, 4, 2, 'w.dmat'), 'w.dmat', 'row 3 column 2', /NaN/);
});

test('hand-handles.dmat: -1 or a bone 0..19 per vertex; other values are errors', () => {
  const m = readDmat(dataBytes('hand/hand-handles.dmat'), 'hand-handles.dmat');
  const handles = handlesFromDmat(m, 4780, 20, 'hand-handles.dmat');
  assert.equal(handles.length, 4780);
  assert.equal(handles.filter((h) => h === -1).length, 2028);
  assert.ok(
    handles.every((h) => h >= -1 && h < 20),
    'every handle label is -1 or a bone below 20',
  );
  assertFormatError(
    () => handlesFromDmat(m, 4780, 19, 'hand-handles.dmat'),
    'hand-handles.dmat',
    `row ${handles.indexOf(19) + 1}`,
    /handle 19 is neither -1.*0 to 18/,
  );
  assertFormatError(
    () => handlesFromDmat({ rows: 2, cols: 1, data: Float64Array.from([0, 0.5]) }, 2, 2, 'h.dmat'),
    'h.dmat',
    'row 2',
    /handle 0.5/,
  );
  assertFormatError(() => handlesFromDmat(m, 18453, 28, 'hand-handles.dmat'), 'hand-handles.dmat', '', /4780 × 1.*18453 × 1/);
});

// ---------------------------------------------------------------- dispatch

test('readRigFile dispatches on the extension, in any case, and drops a byte-order mark', () => {
  const mesh = readRigFile('dir/Hand.OFF', dataBytes('hand/hand.off'));
  assert.equal(mesh.kind, 'mesh');
  const obj = readRigFile('c:\\models\\tri.obj', utf8('\ufeffv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n'));
  assert.ok(
    obj.kind === 'mesh' && obj.mesh.triangles.length === 3,
    'a BOM-prefixed OBJ with a backslash path reads as a mesh of one triangle',
  );
  assert.equal(readRigFile('arm.tgf', dataBytes('libigl/arm.tgf')).kind, 'skeleton');
  const matrix = readRigFile('elephant-anim.dmat', dataBytes('libigl/elephant-anim.dmat'));
  assert.ok(matrix.kind === 'matrix' && matrix.matrix.cols === 457, 'elephant-anim.dmat reads as a matrix of 457 columns');
  assertFormatError(
    () => readRigFile('hand.mesh', new Uint8Array(0)),
    'hand.mesh',
    '',
    /unsupported file type: '\.mesh'.*\.obj, \.off, \.tgf, \.names, \.dmat/,
  );
  assertFormatError(() => readRigFile('README', new Uint8Array(0)), 'README', '', /unsupported file type: a file without extension/);
  const names = readRigFile('hand.names', utf8('\ufeffwrist\nthumb\n'));
  assert.deepEqual(
    names,
    { kind: 'names', name: 'hand.names', text: 'wrist\nthumb\n' },
    'a names file is kept as text, its byte-order mark dropped',
  );
});

// ---------------------------------------------------------------- bad input

test('truncated OBJ: a face or vertex cut mid-line names the last line and says truncated', () => {
  const text = dataText('libigl/armadillo.obj');
  assert.ok(text.endsWith('\n'), 'armadillo.obj ends with a line break (precondition for cutting it mid-line)');
  const cutFace = `${text}f 12 13`;
  assertFormatError(
    () => readObj(cutFace, 'armadillo.obj'),
    'armadillo.obj',
    `line ${text.split('\n').length}`,
    /face has 2 corners, needs at least 3.*truncated/,
  );
  const cutVertex = text.slice(0, text.indexOf('\n', text.length / 2)) + '\nv 0.1 0.2';
  const cutLine = cutVertex.split('\n').length;
  assertFormatError(
    () => readObj(cutVertex, 'armadillo.obj'),
    'armadillo.obj',
    `line ${cutLine}`,
    /vertex has 2 coordinates, needs 3.*truncated/,
  );
  assertFormatError(
    () => readObj('v 0 0 0\nv 1 0 0\nf 1 2\nv 0 1 0\n', 'short.obj'),
    'short.obj',
    'line 3',
    /^face has 2 corners, needs at least 3$/,
  );
});

test('OBJ: bad indices, bad numbers, no vertices', () => {
  const tri = 'v 0 0 0\nv 1 0 0\nv 0 1 0\n';
  assertFormatError(() => readObj(`${tri}f 1 2 4\n`, 'a.obj'), 'a.obj', 'line 4', /vertex index 4 is out of range: only 3 vertices/);
  assertFormatError(() => readObj(`${tri}f 0 1 2\n`, 'a.obj'), 'a.obj', 'line 4', /vertex index 0 is invalid/);
  assertFormatError(() => readObj(`${tri}f -4 1 2\n`, 'a.obj'), 'a.obj', 'line 4', /relative vertex index -4/);
  assertFormatError(() => readObj(`${tri}f 1 2 3.5\n`, 'a.obj'), 'a.obj', 'line 4', /vertex index '3.5' is not a whole number/);
  assertFormatError(() => readObj(`${tri}f 1/x 2 3\n`, 'a.obj'), 'a.obj', 'line 4', /texture or normal index 'x'/);
  assertFormatError(() => readObj('v 0 0 0\nv 1 nan 0\n', 'nan.obj'), 'nan.obj', 'line 2', /vertex y coordinate is NaN/);
  assertFormatError(() => readObj('v 0 0 1e999\n', 'inf.obj'), 'inf.obj', 'line 1', /vertex z coordinate is infinite/);
  assertFormatError(() => readObj('v 0 0,5 0\n', 'comma.obj'), 'comma.obj', 'line 1', /vertex y coordinate '0,5' is not a number/);
  assertFormatError(() => readObj('# nothing\no empty\n', 'empty.obj'), 'empty.obj', '', /no vertices/);
});

test('OFF: header, counts and indices are checked', () => {
  assertFormatError(() => readOff('PLY\n', 'x.off'), 'x.off', 'line 1', /expected the header 'OFF', found 'PLY'/);
  assertFormatError(() => readOff('OFF\n3 1 0\n0 0 0\n1 0 0\n', 'x.off'), 'x.off', 'line 5', /ends after 2 of the 3 vertices/);
  assertFormatError(
    () => readOff('OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 3\n', 'x.off'),
    'x.off',
    'line 6',
    /face 0 names vertex 3.*0 to 2/,
  );
  assertFormatError(() => readOff('OFF\n3 1 0\n0 0 0\n1 0 0\n0 1\n3 0 1 2\n', 'x.off'), 'x.off', 'line 5', /vertex 2 has 2 coordinates/);
  assertFormatError(
    () => readOff('OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1', 'x.off'),
    'x.off',
    'line 6',
    /announces 3 corners but lists 2.*truncated/,
  );
  const { mesh, report } = readOff(
    'COFF # coloured\n# counts\n4 1 0\n0 0 0 255 0 0\n1 0 0 255 0 0\n1 1 0 0 0 0\n0 1 0 0 0 0\n4 0 1 2 3 9 9 9\n\n',
    'quad.off',
  );
  assert.deepEqual(Array.from(mesh.triangles), [0, 1, 2, 0, 2, 3]);
  assert.equal(report.polygonsTriangulated, 1);
});

test('TGF: missing node, order, self edge, NaN, no bones', () => {
  const nodes = '1 0 0 0\n2 0 1 0\n3 0 2 0\n';
  assertFormatError(
    () => readTgf(`${nodes}#\n1 2\n2 4\n`, 'bad.tgf'),
    'bad.tgf',
    'line 6',
    /bone 1 names node 4, but the file defines nodes 1 to 3/,
  );
  assertFormatError(() => readTgf('1 0 0 0\n3 0 1 0\n#\n1 2\n', 'bad.tgf'), 'bad.tgf', 'line 2', /found node 3 where node 2 was expected/);
  assertFormatError(() => readTgf(`${nodes}#\n2 2\n`, 'bad.tgf'), 'bad.tgf', 'line 5', /bone 0 joins node 2 to itself/);
  assertFormatError(() => readTgf('1 0 0 0\n2 0 NaN 0\n#\n1 2\n', 'nan.tgf'), 'nan.tgf', 'line 2', /node 2 y coordinate is NaN/);
  assertFormatError(() => readTgf('1 0 0 0\n2 0 1\n#\n1 2\n', 'short.tgf'), 'short.tgf', 'line 2', /node 2 has no z coordinate/);
  assertFormatError(() => readTgf(`${nodes}#\n`, 'nobones.tgf'), 'nobones.tgf', '', /no bones/);
  assertFormatError(() => readTgf(nodes, 'nohash.tgf'), 'nohash.tgf', '', /no bones.*no '#' line/);
});

test('DMAT: bad header, too few or too many values, non-numeric token, NaN, truncated binary', () => {
  assertFormatError(() => readDmat(utf8('3\n1\n2\n3\n'), 'h.dmat'), 'h.dmat', 'line 1', /header must be two whole numbers/);
  assertFormatError(
    () => readDmat(utf8('2 3\n1\n2\n3\n4\n5\n'), 'few.dmat'),
    'few.dmat',
    'line 6',
    /ends after 5 of the 6 values.*row 3 column 2 is missing/,
  );
  assertFormatError(() => readDmat(utf8('1 2\n1\n2\n3\n'), 'many.dmat'), 'many.dmat', 'line 4', /more values than the 2 announced.*'3'/);
  assertFormatError(() => readDmat(utf8('1 2\n1\nabc\n'), 'text.dmat'), 'text.dmat', 'line 3', /value 'abc' is not a number/);
  assertFormatError(() => readDmat(utf8('2 2\n1\n2\n3\nnan\n'), 'nan.dmat'), 'nan.dmat', 'line 5, row 2 column 2', /value is NaN/);
  assertFormatError(
    () => readDmat(utf8('1000000 1000000\n1\n'), 'huge.dmat'),
    'huge.dmat',
    'line 1',
    /announces 1000000 columns × 1000000 rows/,
  );
  const binary = writeDmatBinary({ rows: 3, cols: 2, data: Float64Array.from([1, 2, 3, 4, 5, 6]) });
  assertFormatError(
    () => readDmat(binary.subarray(0, binary.length - 5), 'cut.dmat'),
    'cut.dmat',
    'binary data',
    /ends after 5 of the 6 values.*truncated/,
  );
  const withNaN = writeDmatBinary({ rows: 3, cols: 2, data: Float64Array.from([1, 2, 3, NaN, 5, 6]) });
  assertFormatError(() => readDmat(withNaN, 'nan.dmat'), 'nan.dmat', 'row 2 column 2', /NaN/);
  assertFormatError(() => readDmat(utf8('0 0\n2 x\n'), 'bin.dmat'), 'bin.dmat', 'line 2', /header must be two whole numbers/);
});
