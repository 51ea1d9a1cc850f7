/**
 * The names file of a TGF skeleton (workers/formats/bone-names.ts) and the TGF writer: the names file's
 * path beside its TGF, reading with its line endings and errors, and write → read round trips, on hand-written
 * inputs and the shared hand skeleton.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { boneNameProblem, boneNamesFileFor, formatBoneNames, parseBoneNames } from '../../workers/formats/bone-names.ts';
import { FormatError } from '../../workers/formats/format-error.ts';
import { readTgf, writeTgf } from '../../workers/formats/tgf.ts';
import { dataFile } from './shared-data.ts';

/** Asserts that `fn` throws a FormatError for `file` at `where` whose reason matches. */
function assertFormatError(fn: () => unknown, file: string, where: string, reason: RegExp): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof FormatError, `expected a FormatError, got ${String(error)}`);
    assert.equal(error.file, file);
    assert.equal(error.where, where, error.message);
    assert.ok(error.message.startsWith(`${file}: ${where}: `), error.message);
    assert.match(error.reason, reason);
    return true;
  });
}

test('names file beside its TGF: the extension replaced, folders and either separator kept', () => {
  assert.equal(boneNamesFileFor('a/body.tgf'), 'a/body.names');
  assert.equal(boneNamesFileFor('body.tgf'), 'body.names');
  assert.equal(boneNamesFileFor('C:\\rigs\\hand.TGF'), 'C:\\rigs\\hand.names');
  assert.equal(boneNamesFileFor('x.tgf/arm.tgf'), 'x.tgf/arm.names', 'a folder named like a TGF is kept');
  assert.equal(boneNamesFileFor('a/skeleton'), 'a/skeleton.names', 'a name without .tgf gets .names appended');
  assert.equal(boneNamesFileFor('a/.tgf'), 'a/.tgf.names', 'a name that is only the extension keeps it');
});

test('names file: one name per line, any line ending, a byte-order mark and trailing blank lines dropped', () => {
  assert.deepEqual(parseBoneNames('root\nspine\nhead\n', 'a.names', 3), ['root', 'spine', 'head']);
  assert.deepEqual(parseBoneNames('root\r\nspine\rhead', 'a.names', 3), ['root', 'spine', 'head']);
  assert.deepEqual(parseBoneNames('\ufeffhips\nupper arm.L\n\n  \n', 'a.names', 2), ['hips', 'upper arm.L']);
  assert.deepEqual(
    parseBoneNames(' padded \nÉpaule_l\n', 'a.names', 2),
    [' padded ', 'Épaule_l'],
    'a name is the whole line, spaces and all',
  );
});

test('names file errors name the file, the line and the reason', () => {
  assertFormatError(() => parseBoneNames('a\nb\n', 'hand.names', 3), 'hand.names', 'line 3', /names 2 bones, but the skeleton has 3/);
  assertFormatError(() => parseBoneNames('a\nb\nc\nd\n', 'hand.names', 3), 'hand.names', 'line 4', /names 4 bones, but the skeleton has 3/);
  assertFormatError(() => parseBoneNames('a\n\nc\n', 'hand.names', 3), 'hand.names', 'line 2', /bone 1: a bone name cannot be empty/);
  assertFormatError(() => parseBoneNames('a\n \t\nc\n', 'hand.names', 3), 'hand.names', 'line 2', /bone 1: a bone name cannot be empty/);
  assertFormatError(() => parseBoneNames('a\n\ufeffb\n', 'hand.names', 2), 'hand.names', 'line 2', /bone 1: .*byte-order mark/);
  assertFormatError(() => parseBoneNames('a\nb\na\n', 'hand.names', 3), 'hand.names', 'line 3', /'a' is already bone 0's \(line 1\)/);
  assertFormatError(() => parseBoneNames('', 'empty.names', 2), 'empty.names', 'line 1', /names 0 bones, but the skeleton has 2/);
});

test('names file: write → read gives the same names; names a file cannot hold are refused', () => {
  const names = ['root', 'spine 1', ' spaced ', 'Épaule_l', '手首.R', 'bone 5'];
  const text = formatBoneNames(names);
  assert.equal(text, 'root\nspine 1\n spaced \nÉpaule_l\n手首.R\nbone 5\n');
  assert.deepEqual(parseBoneNames(text, 'x.names', names.length), names);
  assert.throws(() => formatBoneNames(['a', '']), /bone 1's name '': a bone name cannot be empty/);
  assert.throws(() => formatBoneNames(['a', 'b\nc']), /bone 1's name 'b\\u000ac': a bone name cannot hold a line break/);
  assert.throws(() => formatBoneNames(['a', 'b', 'a']), /bones 0 and 2 are both named 'a'/);
  assert.throws(() => formatBoneNames(['\ufeffa']), /byte-order mark/);
});

test('one rule for bone names: not empty or blank, no line break, no leading byte-order mark; spaces and any script kept', () => {
  for (const name of ['root', ' padded ', 'upper arm.L', '手首.R', 'a\tb', 'x\ufeff'])
    assert.equal(boneNameProblem(name), null, `${JSON.stringify(name)} is a bone name`);
  const refused: [string, RegExp][] = [
    ['', /cannot be empty or blank/],
    [' \t ', /cannot be empty or blank/],
    ['a\nb', /cannot hold a line break/],
    ['a\rb', /cannot hold a line break/],
    ['\ufeffa', /cannot start with a byte-order mark/],
  ];
  for (const [name, reason] of refused) assert.match(boneNameProblem(name) ?? 'accepted', reason, JSON.stringify(name));
});

test('writeTgf: 1-based node and edge lines that read back bit for bit (negative zero and 17 digits included)', () => {
  const joints = Float64Array.from([0, 0, 0, 0.1, -0, 1 / 3, 1e-300, -2.5e17, Math.PI]);
  const bones = Uint32Array.from([0, 1, 1, 2]);
  const text = writeTgf({ joints, bones });
  const lines = text.split('\n');
  assert.deepEqual(lines.slice(3), ['#', '1 2', '2 3', '#', '']);
  assert.ok(lines[0].startsWith('1 ') && lines[2].startsWith('3 '), `nodes numbered from 1: ${lines.slice(0, 3).join(' | ')}`);
  const again = readTgf(text, 'x.tgf');
  assert.deepEqual(
    Array.from(again.joints, (v) => (Object.is(v, -0) ? '-0' : String(v))),
    Array.from(joints, (v) => (Object.is(v, -0) ? '-0' : String(v))),
  );
  assert.deepEqual(Array.from(again.bones), Array.from(bones));
});

test('writeTgf on the shared hand skeleton reads back to the same joints and bones', () => {
  const hand = readTgf(readFileSync(dataFile('hand', 'hand.tgf'), 'utf8'), 'hand.tgf');
  const again = readTgf(writeTgf(hand), 'hand.tgf');
  assert.deepEqual(Array.from(again.joints), Array.from(hand.joints));
  assert.deepEqual(Array.from(again.bones), Array.from(hand.bones));
});
