/**
 * Bad input found by fuzzing the readers (test/fuzz): each case is one concrete input that once crashed, hung,
 * allocated from an unchecked count or printed an internal message, and the exact error it now gets, naming the
 * file, the place and the reason.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readDmat } from '../../workers/formats/dmat.ts';
import { FormatError } from '../../workers/formats/format-error.ts';
import { readObj } from '../../workers/formats/obj.ts';
import { readOff } from '../../workers/formats/off.ts';
import { checkFileSize, fileSizeLimit, MAX_BINARY_FILE_BYTES, MAX_TEXT_FILE_BYTES, readRigFile } from '../../workers/formats/read-file.ts';
import { excerpt } from '../../workers/formats/text-scanner.ts';

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

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
