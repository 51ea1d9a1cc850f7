/**
 * What a file's text can do to the readers and to the messages that quote it: line endings of any system, tokens of
 * a megabyte (time linear in the text), bytes that a terminal would act on, `data:` URIs that are not base64, and
 * glTF JSON that is not JSON. Expected values are written out by hand or come from a second method (Node's Buffer
 * base64 decoder, JSON.parse's verdict, the bytes of the file read with a DataView).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { clampMessage, MAX_MESSAGE_CHARACTERS } from '../../app/cli/main.ts';
import { fileNamePart } from '../../app/cli/commands/import.ts';
import { decodeDataUri } from '../../workers/formats/data-uri.ts';
import { readDmat } from '../../workers/formats/dmat.ts';
import { FormatError, MAX_MESSAGE_SHOWN, printableLine } from '../../workers/formats/format-error.ts';
import { importGltf } from '../../workers/formats/gltf-import.ts';
import { gltfJson } from '../../workers/formats/gltf-resource-uris.ts';
import { jsonSyntaxError } from '../../workers/formats/json-text.ts';
import { readMtl } from '../../workers/formats/mtl.ts';
import { readObj } from '../../workers/formats/obj.ts';
import { objLook } from '../../workers/formats/obj-materials.ts';
import { readOff } from '../../workers/formats/off.ts';
import { readTgf } from '../../workers/formats/tgf.ts';
import { excerpt } from '../../workers/formats/text-scanner.ts';
import { dataFile } from './shared-data.ts';

/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-explicit-any -- the tests edit glTF JSON freely */

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

/** The error `fn` throws (a FormatError), or a failed assertion. */
function formatErrorOf(fn: () => unknown): FormatError {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof FormatError, `expected a FormatError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected a FormatError, nothing was thrown');
}

/** The error the promise rejects with (a FormatError), or a failed assertion. */
async function rejection(promise: Promise<unknown>): Promise<FormatError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof FormatError, `expected a FormatError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected a FormatError, the promise resolved');
}

/** A character a terminal or a page would not show as itself (controls, format characters, lone surrogates, …). */
const NOT_PRINTABLE = /[\p{C}\p{Zl}\p{Zp}]/u;

/** Khronos SimpleSkin (glTF-Embedded: its four buffers are base64 data: URIs) with its JSON changed by `edit`. */
function simpleSkin(edit: (json: Record<string, any>) => void): Uint8Array {
  const json = JSON.parse(readFileSync(dataFile('gltf', 'SimpleSkin', 'glTF-Embedded', 'SimpleSkin.gltf'), 'utf8')) as Record<string, any>;
  edit(json);
  return utf8(JSON.stringify(json));
}

// ---- Line endings: `\n` (Unix), `\r\n` (Windows) and a lone `\r` (classic Mac OS) read alike.

/** The text with its `\n` line ends written as `ending`. */
const withEndings = (text: string, ending: string): string => text.replace(/\n/g, ending);
const ENDINGS = ['\n', '\r\n', '\r'];

test('line endings: OBJ, OFF, TGF, DMAT and MTL read the same with \\n, \\r\\n and \\r', () => {
  // A quad (two triangles) of two objects' worth of records, comments, vt/vn, a library name with a space.
  const obj = [
    '# a quad',
    'mtllib my scene.mtl',
    'o Quad',
    'v 0 0 0',
    'v 1 0 0',
    'v 1 1 0',
    'v 0 1 0.5',
    'vt 0 0',
    'vn 0 0 1',
    'usemtl Skin',
    'f 1/1/1 2/1/1 3/1/1 4/1/1',
    '',
  ].join('\n');
  for (const ending of ENDINGS) {
    const read = readObj(withEndings(obj, ending), 'quad.obj');
    assert.deepEqual(Array.from(read.mesh.positions), [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0.5], JSON.stringify(ending));
    assert.deepEqual(Array.from(read.mesh.triangles), [0, 1, 2, 0, 2, 3], JSON.stringify(ending));
    assert.deepEqual(read.materialLibraries, ['my scene.mtl'], JSON.stringify(ending));
    assert.deepEqual(read.materials, ['Skin'], JSON.stringify(ending));
    assert.equal(read.parts?.[0].name, 'Quad', JSON.stringify(ending));
    assert.deepEqual(read.report, { polygonsTriangulated: 1, texcoords: 1, normals: 1, warnings: [] }, JSON.stringify(ending));
  }

  const off = 'OFF\n# counts\n4 2 0\n0 0 0\n1 0 0 # x\n1 1 0\n0 1 0\n3 0 1 2\n3 0 2 3\n';
  for (const ending of ENDINGS) {
    const read = readOff(withEndings(off, ending), 'quad.off');
    assert.deepEqual(Array.from(read.mesh.positions), [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0], JSON.stringify(ending));
    assert.deepEqual(Array.from(read.mesh.triangles), [0, 1, 2, 0, 2, 3], JSON.stringify(ending));
  }

  const tgf = '1 0 0 0\n2 0 1 0\n3 0 2 0\n#\n1 2\n2 3\n#\n';
  for (const ending of ENDINGS) {
    const read = readTgf(withEndings(tgf, ending), 'chain.tgf');
    assert.deepEqual(Array.from(read.joints), [0, 0, 0, 0, 1, 0, 0, 2, 0], JSON.stringify(ending));
    assert.deepEqual(Array.from(read.bones), [0, 1, 1, 2], JSON.stringify(ending));
  }

  // 3 columns × 2 rows, column-major in the file: row-major 1 2 3 / 4 5 6 in memory.
  const dmat = '3 2\n1\n4\n2\n5\n3\n6\n';
  for (const ending of ENDINGS) {
    const read = readDmat(utf8(withEndings(dmat, ending)), 'm.dmat');
    assert.deepEqual({ rows: read.rows, cols: read.cols, data: Array.from(read.data) }, { rows: 2, cols: 3, data: [1, 2, 3, 4, 5, 6] });
  }
  // Binary DMAT: its two header lines may end either way too; the data (1.5, -2) follows as float64.
  const values = new Uint8Array(new Float64Array([1.5, -2]).buffer);
  for (const ending of ENDINGS) {
    const header = utf8(`0 0${ending}1 2${ending}`);
    const bytes = new Uint8Array(header.length + values.length);
    bytes.set(header);
    bytes.set(values, header.length);
    const read = readDmat(bytes, 'b.dmat');
    assert.deepEqual({ rows: read.rows, cols: read.cols, data: Array.from(read.data) }, { rows: 2, cols: 1, data: [1.5, -2] });
  }
  // A `\r` header end followed by data whose first byte is 0x0A: the data's size says it is data, not `\r\n`.
  const lf = new Float64Array(1);
  new DataView(lf.buffer).setUint8(0, 0x0a);
  const ambiguous = new Uint8Array([...utf8('0 0\r1 1\r'), ...new Uint8Array(lf.buffer)]);
  assert.deepEqual(Array.from(readDmat(ambiguous, 'lf.dmat').data), [lf[0]]);

  const mtl = 'newmtl Skin Tone\nKd 0.5 0.25 1\nd 0.5\nmap_Kd -s 2 2 1 skin tone.png\n\nnewmtl Hat\nKd 1\n';
  for (const ending of ENDINGS) {
    const read = readMtl(withEndings(mtl, ending), 'body.mtl');
    assert.deepEqual(
      read.materials,
      [
        { name: 'Skin Tone', line: 1, diffuse: [0.5, 0.25, 1], alpha: 0.5, diffuseMap: 'skin tone.png' },
        { name: 'Hat', line: 6, diffuse: [1, 1, 1], alpha: 1, diffuseMap: null },
      ],
      JSON.stringify(ending),
    );
    assert.deepEqual(
      read.warnings,
      ['line 4: map_Kd option -s is not shown: the image lies unscaled, unmoved and repeated'],
      JSON.stringify(ending),
    );
  }
});

test('line endings: errors name the same line with \\n, \\r\\n and \\r, and a file cut inside a line says so', () => {
  // Once: an OBJ with lone \r line ends read as one line: one vertex, no error.
  for (const ending of ENDINGS) {
    const shown = JSON.stringify(ending);
    assert.equal(
      formatErrorOf(() => readObj(withEndings('v 0 0 0\nv 1 0 0\n\nf 1 2 3\n', ending), 'cr.obj')).message,
      'cr.obj: line 4: vertex index 3 is out of range: only 2 vertices are defined before this face',
      shown,
    );
    assert.equal(
      formatErrorOf(() => readOff(withEndings('OFF\n3 1 0\n0 0 0\n1 0\n0 1 0\n3 0 1 2\n', ending), 'cr.off')).message,
      'cr.off: line 4: vertex 1 has 2 coordinates, needs 3 (x y z)',
      shown,
    );
    assert.equal(
      formatErrorOf(() => readTgf(withEndings('1 0 0 0\n2 0 1 0\n#\n1 3\n', ending), 'cr.tgf')).message,
      'cr.tgf: line 4: bone 0 names node 3, but the file defines nodes 1 to 2',
      shown,
    );
    assert.equal(
      formatErrorOf(() => readDmat(utf8(withEndings('1 3\n1\n\n2\nx\n', ending)), 'cr.dmat')).message,
      "cr.dmat: line 5: value 'x' is not a number",
      shown,
    );
    assert.equal(
      formatErrorOf(() => readMtl(withEndings('newmtl a\n# c\nKd 1 2\n', ending), 'cr.mtl')).message,
      "cr.mtl: line 3: 'Kd' has 2 values, needs r g b (or one value for grey)",
      shown,
    );
    // A header announcing 10 values for a file of 8 characters ('2 5', '1', '2', each line break counted once,
    // whichever it is): refused alike.
    assert.equal(
      formatErrorOf(() => readDmat(utf8(withEndings('2 5\n1\n2\n', ending)), 'few.dmat')).message,
      'few.dmat: line 1: header announces 2 columns × 5 rows = 10 values, but the file is only 8 characters long (a line break counted as one)',
      shown,
    );
    // The same for OFF: 3 + 9 = 12 lines announced in a file of 10 characters ('OFF', '3 9 0', each line break once).
    assert.equal(
      formatErrorOf(() => readOff(withEndings('OFF\n3 9 0\n', ending), 'few.off')).message,
      'few.off: line 2: the header announces 3 vertices and 9 faces, more than a file of 10 characters can hold',
      shown,
    );
    // The last line ends with a line break: complete, not truncated.
    assert.equal(
      formatErrorOf(() => readObj(withEndings('v 0 0 0\nv 1 2\n', ending), 'short.obj')).message,
      'short.obj: line 2: vertex has 2 coordinates, needs 3 (x y z)',
      shown,
    );
  }
  assert.equal(
    formatErrorOf(() => readObj('v 0 0 0\rv 1 2', 'cut.obj')).message,
    'cut.obj: line 2: vertex has 2 coordinates, needs 3 (x y z) (the file ends in the middle of this line; it looks truncated)',
  );
  // \r\n is one line end, \n\r two.
  assert.equal(
    formatErrorOf(() => readObj('v 0 0 0\n\rv x 0 0\n', 'two.obj')).message,
    "two.obj: line 3: vertex x coordinate 'x' is not a number",
  );
});

// ---- Time linear in the text: a token of a megabyte is read or refused in well under a second.

/**
 * Most milliseconds a megabyte token may take: a linear reader took 111 ms on a slow 2-core machine with the suite
 * running two files at a time; quadratic patterns take seconds for 40,000 characters.
 */
const BUDGET_MS = 400;

/**
 * Runs the reader `make` builds for a 40,000-character and for a 1,000,000-character token and asserts that it takes
 * under BUDGET_MS (the best of three runs, so that a pause of the machine does not count). A pattern quadratic in the
 * token fails at the first size (seconds each run), before the second would take hours.
 */
function assertLinear(label: string, make: (token: number) => () => unknown): void {
  for (const size of [40_000, 1_000_000]) {
    const run = make(size);
    let best = Infinity;
    for (let attempt = 0; attempt < 3 && best >= BUDGET_MS; attempt++) {
      const start = performance.now();
      try {
        run();
      } catch (error) {
        if (!(error instanceof FormatError)) throw error;
        assert.ok(!error.message.includes('\n') && error.message.length < 1000, `${label}: the message is one short line`);
      }
      best = Math.min(best, performance.now() - start);
    }
    assert.ok(best < BUDGET_MS, `${label}: a token of ${size} characters took ${best.toFixed(1)} ms (at most ${BUDGET_MS})`);
  }
}

test('time: a token of a megabyte in any text format is read or refused in under 400 ms', () => {
  const digits = (n: number): string => '7'.repeat(n);
  // MTL: a map_Kd option's value. Once 35 s for 60,000 digits (the number pattern split the digits every way).
  assertLinear('MTL map_Kd -s', (n) => () => readMtl(`newmtl a\nmap_Kd -s ${digits(n)}x tex.png\n`, 'a.mtl'));
  assertLinear('MTL map_Kd -o fraction', (n) => () => readMtl(`newmtl a\nmap_Kd -o 1.${digits(n)}x tex.png\n`, 'a.mtl'));
  assertLinear('MTL Kd', (n) => () => readMtl(`newmtl a\nKd ${digits(n)}e\n`, 'a.mtl'));
  assertLinear('MTL name', (n) => () => readMtl(`newmtl ${' '.repeat(n)}a${' '.repeat(n)}\n`, 'a.mtl'));
  assertLinear('OBJ coordinate', (n) => () => readObj(`v 1 2 ${digits(n)}x\n`, 'a.obj'));
  assertLinear('OBJ non-finite literal', (n) => () => readObj(`v 1 2 nan(${'('.repeat(n)}\n`, 'a.obj'));
  assertLinear('OBJ object name', (n) => () => readObj(`o ${'a \t'.repeat(n / 3)}\nv 0 0 0\n`, 'a.obj'));
  assertLinear('OBJ mtllib', (n) => () => readObj(`mtllib ${'a'.repeat(n)}.mtl\nv 0 0 0\n`, 'a.obj'));
  assertLinear('OFF header', (n) => () => readOff(`${digits(n)}OFF\n`, 'a.off'));
  assertLinear('OFF coordinate', (n) => () => readOff(`OFF\n1 0 0\n0 0 ${digits(n)}.5x\n`, 'a.off'));
  assertLinear('TGF coordinate', (n) => () => readTgf(`1 0 0 -${digits(n)}e+\n#\n`, 'a.tgf'));
  assertLinear('DMAT header', (n) => () => readDmat(utf8(`${' '.repeat(n)}1${' '.repeat(n)}1${' '.repeat(n)}x\n1\n`), 'a.dmat'));
  assertLinear('DMAT value', (n) => () => readDmat(utf8(`1 1\n${digits(n)}.${digits(n)}x\n`), 'a.dmat'));
  assertLinear('glTF data: URI', (n) => () => gltfJson(utf8(`{"buffers":[{"uri":"data:;base64,${'A'.repeat(n)}=A"}]}`), 'a.gltf'));
  assertLinear('glTF JSON after a long string', (n) => () => gltfJson(utf8(`{"asset":{"generator":"${'g'.repeat(n)}"},}`), 'a.gltf'));
  assertLinear('data: URI decoder', (n) => () => decodeDataUri(`data:;base64,${'QUJD'.repeat(n / 4)}%3D=A`));
  // The command line's message and file-name cleanup run on text from files too.
  assertLinear('CLI message', (n) => () => clampMessage(`a${' '.repeat(n)}b`));
  assertLinear('CLI file name part', (n) => () => fileNamePart(`a${'_'.repeat(n)}b`, 'model'));
});

test('time: 100,000 names (libraries, objects, materials) are read in linear time, not compared each with each', () => {
  // Once: each mtllib name was looked for among the names before it, an object's name among all objects', and a
  // usemtl name among a library's materials one by one: seconds for 40,000 names, half a minute for 100,000.
  const count = 100_000;
  const budget = 1500;
  const timed = (label: string, run: () => unknown): unknown => {
    const start = performance.now();
    const result = run();
    const elapsed = performance.now() - start;
    assert.ok(elapsed < budget, `${label}: ${elapsed.toFixed(0)} ms for ${count} names (at most ${budget})`);
    return result;
  };
  const names = Array.from({ length: count }, (_, i) => `m${i}`);
  const libraries = timed('mtllib names', () => readObj(`mtllib ${names.map((n) => `${n}.mtl`).join(' ')}\nv 0 0 0\n`, 'a.obj'));
  assert.equal((libraries as ReturnType<typeof readObj>).materialLibraries.length, count);
  const objects = names.map((n) => `o ${n}\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1`).join('\n');
  const parts = timed('objects', () => readObj(objects, 'parts.obj')) as ReturnType<typeof readObj>;
  assert.deepEqual(
    [parts.parts?.length, parts.parts?.[count - 1].name, parts.parts?.[count - 1].vertexStart],
    [count, `m${count - 1}`, 3 * (count - 1)],
  );
  const used = readObj(names.map((n) => `usemtl ${n}\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1`).join('\n'), 'used.obj');
  const library = utf8(names.map((n, i) => `newmtl ${n}\nKd ${(i % 100) / 100} 0 0`).join('\n'));
  const look = timed('materials', () =>
    objLook(
      [{ name: 'used.obj', materials: used.materials, materialLibraries: [], parts: used.parts }],
      [{ name: 'a.mtl', bytes: library }],
    ),
  ) as ReturnType<typeof objLook>;
  assert.deepEqual(look.look?.materials[count - 1].baseColor, [((count - 1) % 100) / 100, 0, 0, 1]);
});

test('time: a glTF data: URI of megabytes with a bad character at its end is refused at once, naming it', async () => {
  const long = 'QUJD'.repeat(250_000);
  const start = performance.now();
  const error = await rejection(
    importGltf(
      simpleSkin((g) => (g.buffers[0].uri = `data:application/octet-stream;base64,${long}A=A`)),
      'long.gltf',
    ),
  );
  const elapsed = performance.now() - start;
  assert.equal(
    error.message,
    `long.gltf: /buffers/0/uri: glTF import: the data: URI 'data:application/octet-stream;base64,QUJ… (1000040 characters)' is not valid: the '=' at character 1000039 is inside the base64 data ('=' may only pad its end)`,
  );
  assert.ok(elapsed < 1000, `${elapsed.toFixed(0)} ms`);
});

// ---- Messages: one line of printable characters, in our words.

test('messages: FormatError shows what it quotes on one printable line, cut to its limits', () => {
  const error = new FormatError('evil\u001b]0;title\u0007.obj', 'line\n3', `bad token '\u001b[2J\r\nrm -rf\u202e' ${'z'.repeat(1000)}`);
  // The file shows as 28 characters and the place as 6: with the separators the reason has 400 − 38 − 44 (room for
  // the note of what was cut) = 318 characters. 35 are shown before the z's (the escape and the override as \uXXXX,
  // the line break as one space): 283 z's, and 1000 − 283 = 717 are left out.
  assert.equal(
    error.message,
    `evil\\u001b]0;title\\u0007.obj: line 3: bad token '\\u001b[2J rm -rf\\u202e' ${'z'.repeat(283)}… (717 more characters)`,
  );
  assert.ok(error.message.length <= MAX_MESSAGE_SHOWN, `the message is ${error.message.length} characters, at most ${MAX_MESSAGE_SHOWN}`);
  const longest = new FormatError('f'.repeat(10_000), 'p'.repeat(10_000), 'r'.repeat(10_000)).message;
  assert.ok(
    longest.length <= MAX_MESSAGE_SHOWN,
    `file, place and reason all cut: ${longest.length} characters, at most ${MAX_MESSAGE_SHOWN}`,
  );
  assert.match(longest, /^f{120}… \(9880 more characters\): p{80}… \(9920 more characters\): r+… \(\d+ more characters\)$/);
  // Escapes of astral characters (10 characters each) may pass the cut by a few: the whole message still fits.
  const astral = new FormatError('a.obj', 'line 1', '\u{f0000}'.repeat(10_000)).message;
  assert.ok(astral.length <= MAX_MESSAGE_SHOWN, `astral escapes cut: ${astral.length} characters, at most ${MAX_MESSAGE_SHOWN}`);
  assert.doesNotMatch(error.message, NOT_PRINTABLE);
  assert.equal(error.file, 'evil\\u001b]0;title\\u0007.obj');
  assert.equal(error.where, 'line 3');

  assert.equal(printableLine('a\tb  \n  c', 100), 'a b c');
  assert.equal(printableLine('x\u0085y\u2028z', 100), 'x y z');
  assert.equal(printableLine('\u200b\ufeff\u{e0001}\ud800!', 100), '\\u200b\\ufeff\\u{e0001}\\ud800!');
  assert.equal(printableLine('😀 é 中', 100), '😀 é 中');
  assert.equal(printableLine('abcdef', 4), 'abcd… (2 more characters)');
  assert.equal(printableLine('abcd', 4), 'abcd');
  // excerpt (a token in a message) also escapes format characters such as the right-to-left override.
  assert.equal(excerpt('a\u202eb\u0085c'), 'a\\u202eb\\u0085c');
  // The CLI prints messages through the same rule.
  assert.equal(clampMessage('one\n  two\u001b[31m'), 'one two\\u001b[31m');
  assert.equal(clampMessage('x'.repeat(MAX_MESSAGE_CHARACTERS + 5)), `${'x'.repeat(MAX_MESSAGE_CHARACTERS)}… (5 more characters)`);
});

test('messages: glTF text that is not JSON is described in our words with its line and column', () => {
  const cases: [string, string][] = [
    ['{\n  "asset": {"version": "2.0"},\n  "nodes": [1, 2,]\n}', "a.gltf: line 3, column 18: not valid JSON: ']' where a value should be"],
    ['{\r\n"a": 1\r\n"b": 2}', "a.gltf: line 3, column 1: not valid JSON: ',' or '}' expected in an object, found '\"'"],
    [
      '{"a": "line\nbreak"}',
      'a.gltf: line 1, column 12: not valid JSON: a control character (U+000A) inside a string; write it as an escape such as \\n',
    ],
    ['{"a": "\\x"}', "a.gltf: line 1, column 8: not valid JSON: '\\' followed by 'x' is not a JSON escape"],
    ['{"a": 01}', "a.gltf: line 1, column 8: not valid JSON: ',' or '}' expected in an object, found '1'"],
    ['{"a": -}', "a.gltf: line 1, column 8: not valid JSON: a '-' must be followed by digits"],
    ['{"a": [1, 2', 'a.gltf: line 1, column 12: not valid JSON: the text ends inside an array'],
    ['{"a" 1}', "a.gltf: line 1, column 6: not valid JSON: ':' expected after the key, found '1'"],
    [
      '{"a": "\u001b[2J"}',
      'a.gltf: line 1, column 8: not valid JSON: a control character (U+001B) inside a string; write it as an escape such as \\n',
    ],
    ['{} {}', "a.gltf: line 1, column 4: not valid JSON: '{' after the end of the JSON value"],
    ['  \n ', 'a.gltf: neither GLB nor glTF JSON: the file is empty'],
    ['\u0089PNG\r\n\u001a\n', "a.gltf: neither GLB nor glTF JSON: it starts with neither 'glTF' nor '{'"],
  ];
  for (const [text, message] of cases) assert.equal(formatErrorOf(() => gltfJson(utf8(text), 'a.gltf')).message, message, text);
});

test('messages: the checking pass agrees with JSON.parse on every prefix of a real glTF, and no message quotes the engine', () => {
  const text = readFileSync(dataFile('gltf', 'SimpleSkin', 'glTF', 'SimpleSkin.gltf'), 'utf8');
  let refused = 0;
  for (let end = 0; end <= text.length; end++) {
    const prefix = text.slice(0, end);
    let parses = true;
    try {
      JSON.parse(prefix);
    } catch {
      parses = false;
    }
    assert.equal(jsonSyntaxError(prefix) === null, parses, `prefix of ${end} characters`);
    if (parses) continue;
    refused++;
    const message = formatErrorOf(() => gltfJson(utf8(prefix), 'cut.gltf')).message;
    assert.match(message, /^cut\.gltf: (line \d+, column \d+: not valid JSON: |neither GLB nor glTF JSON: )/, message);
    assert.doesNotMatch(message, /Unexpected|position|SyntaxError|is not valid JSON/, message);
    assert.doesNotMatch(message, NOT_PRINTABLE, message);
  }
  assert.equal(refused, text.length, 'every prefix but the whole text is refused');
});

// ---- data: URIs (RFC 2397).

test('data: URIs decode as Node’s base64 decoder does, percent-escapes and whitespace included', () => {
  for (let length = 0; length <= 12; length++) {
    const bytes = Uint8Array.from({ length }, (_, i) => (i * 89 + length * 7) % 256);
    const base64 = Buffer.from(bytes).toString('base64');
    for (const data of [base64, base64.replace(/=+$/, ''), base64.replace(/=/g, '%3D'), base64.replace(/(.{4})/g, '$1\n')]) {
      const result = decodeDataUri(`data:application/octet-stream;base64,${data}`);
      assert.ok(result.ok, `${data}: ${result.ok ? '' : result.problem}`);
      assert.deepEqual(Array.from(result.uri.bytes), Array.from(bytes), data);
      assert.equal(result.uri.mediaType, 'application/octet-stream');
    }
  }
  const plain = decodeDataUri('DATA:text/plain;charset=utf-8,caf%C3%A9 %e2%82%ac');
  assert.ok(plain.ok, 'plain text');
  assert.equal(Buffer.from(plain.uri.bytes).toString('utf8'), 'café €');
  const untyped = decodeDataUri('data:;base64,QUJD');
  assert.ok(untyped.ok, 'no media type');
  assert.deepEqual([untyped.uri.mediaType, Buffer.from(untyped.uri.bytes).toString('latin1')], ['', 'ABC']);

  const problems: [string, string][] = [
    ['data:;base64,AA=', "its 2 base64 digits and 1 '=' do not make whole groups of four"],
    ['data:;base64,AA==AA==', "the '=' at character 16 is inside the base64 data ('=' may only pad its end)"],
    ['data:;base64,AA===', "the '=' at character 18 is a third one: base64 pads with at most two"],
    ['data:;base64,AAAAA', 'its 5 base64 digits end with a lone one, which makes no byte'],
    ['data:;base64,A', 'its one base64 digit makes no byte'],
    ['data:;base64,AA-_', "'-' at character 16 is not a base64 digit (A–Z, a–z, 0–9, +, /)"],
    ['data:;base64,AAé', 'a non-ASCII character at character 16 is not a base64 digit (A–Z, a–z, 0–9, +, /)'],
    ['data:;base64,%4', "the '%' at character 14 is not followed by two hexadecimal digits (percent-encoding: %XX)"],
    ['data:;base64,QU%3DJ', "the '=' at character 16 is inside the base64 data ('=' may only pad its end)"],
    ['data:application/octet-stream;base64', "it has no ',' before its data (data:[<media type>][;base64],<data>)"],
    ['data:octet;base64,AAAA', "its media type 'octet' is not of the form type/subtype"],
    ['file:x.bin', "it does not start with 'data:'"],
  ];
  for (const [uri, problem] of problems) assert.deepEqual(decodeDataUri(uri), { ok: false, problem }, uri);
});

test('glTF: a data: URI that is not base64 names the file, the buffer and the URI; a percent-encoded one reads as the plain one', async () => {
  // Once: atob threw InvalidCharacterError for an '=' that does not pad a group of four, without the file's name.
  const cut = await rejection(
    importGltf(
      simpleSkin((g) => (g.buffers[1].uri = 'data:application/gltf-buffer;base64,AA=')),
      'SimpleSkin.gltf',
    ),
  );
  assert.equal(
    cut.message,
    "SimpleSkin.gltf: /buffers/1/uri: glTF import: the data: URI 'data:application/gltf-buffer;base64,AA=' is not valid: its 2 base64 digits and 1 '=' do not make whole groups of four",
  );
  const error = await rejection(
    importGltf(
      simpleSkin((g) => (g.buffers[1].uri = 'data:application/gltf-buffer;base64,AAAA=AAA')),
      'SimpleSkin.gltf',
    ),
  );
  assert.equal(
    error.message,
    "SimpleSkin.gltf: /buffers/1/uri: glTF import: the data: URI 'data:application/gltf-buffer;base64,AAAA… (44 characters)' is not valid: the '=' at character 41 is inside the base64 data ('=' may only pad its end)",
  );
  const image = await rejection(
    importGltf(
      simpleSkin((g) => (g.images = [{ uri: 'data:image/png;base64,iVBORw0KGgo=\u001b[2J' }])),
      'SimpleSkin.gltf',
    ),
  );
  assert.equal(
    image.message,
    "SimpleSkin.gltf: /images/0/uri: glTF import: the data: URI 'data:image/png;base64,iVBORw0KGgo=\\u001b[2J' is not valid: U+001B at character 35 is not a base64 digit (A–Z, a–z, 0–9, +, /)",
  );
  const plain = await importGltf(
    simpleSkin(() => undefined),
    'SimpleSkin.gltf',
  );
  const escaped = await importGltf(
    simpleSkin((g) => {
      for (const buffer of g.buffers) {
        const [header, data] = (buffer.uri as string).split(',');
        buffer.uri = `${header},${data.replace(/=/g, '%3D').replace(/\//g, '%2F')}`;
      }
    }),
    'SimpleSkin.gltf',
  );
  assert.deepEqual(Array.from(escaped.mesh.positions), Array.from(plain.mesh.positions));
  assert.deepEqual(Array.from(escaped.weights.data), Array.from(plain.weights.data));
});

// ---- glTF: component types, the GLB JSON chunk, and a file too large to be JSON.

test('glTF: POSITION and inverse bind matrices hold the component types glTF allows (bytes and shorts only with KHR_mesh_quantization)', async () => {
  // SimpleSkin: accessor 1 is POSITION (float VEC3), accessor 4 the inverse bind matrices (float MAT4).
  const position = await rejection(
    importGltf(
      simpleSkin((g) => (g.accessors[1].componentType = 5122)),
      'q.gltf',
    ),
  );
  assert.equal(
    position.message,
    'q.gltf: /meshes/0/primitives/0/attributes/POSITION: glTF import: POSITION holds shorts (accessor 1), which only KHR_mesh_quantization allows, and the file does not use it',
  );
  const unsignedInt = await rejection(
    importGltf(
      simpleSkin((g) => (g.accessors[1].componentType = 5125)),
      'q.gltf',
    ),
  );
  assert.equal(
    unsignedInt.message,
    'q.gltf: /meshes/0/primitives/0/attributes/POSITION: glTF import: POSITION holds unsigned ints (accessor 1); glTF allows floats',
  );
  const ibm = await rejection(
    importGltf(
      simpleSkin((g) => (g.accessors[4].componentType = 5125)),
      'q.gltf',
    ),
  );
  assert.equal(
    ibm.message,
    'q.gltf: /skins/0/inverseBindMatrices: glTF import: the inverse bind matrices hold unsigned ints (accessor 4); glTF allows floats only',
  );
  const normalizedFloat = await rejection(
    importGltf(
      simpleSkin((g) => (g.accessors[1].normalized = true)),
      'q.gltf',
    ),
  );
  assert.equal(
    normalizedFloat.message,
    'q.gltf: /meshes/0/primitives/0/attributes/POSITION: glTF import: POSITION holds normalized floats (accessor 1); glTF allows floats',
  );

  // With the extension, shorts are positions: the first vertex is the first three int16 of its buffer view's bytes
  // (buffer 0 from byte 48), placed by the mesh node's transform (the identity in SimpleSkin).
  const quantized = (componentType: number) =>
    simpleSkin((g) => {
      g.extensionsUsed = ['KHR_mesh_quantization'];
      g.extensionsRequired = ['KHR_mesh_quantization'];
      g.accessors[1].componentType = componentType;
      delete g.accessors[1].min;
      delete g.accessors[1].max;
    });
  const rig = await importGltf(quantized(5122), 'q.gltf');
  const json = JSON.parse(new TextDecoder().decode(quantized(5122))) as Record<string, any>;
  const buffer = Buffer.from((json.buffers[0].uri as string).split(',')[1], 'base64');
  const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  assert.deepEqual(Array.from(rig.mesh.positions.subarray(0, 3)), [
    view.getInt16(48, true),
    view.getInt16(50, true),
    view.getInt16(52, true),
  ]);
  const stillRefused = await rejection(importGltf(quantized(5125), 'q.gltf'));
  assert.equal(
    stillRefused.message,
    'q.gltf: /meshes/0/primitives/0/attributes/POSITION: glTF import: POSITION holds unsigned ints (accessor 1); glTF allows floats, bytes, normalized bytes, unsigned bytes, normalized unsigned bytes, shorts, normalized shorts, unsigned shorts, normalized unsigned shorts',
  );
});

test('GLB: a JSON chunk whose length runs into the BIN chunk is named as such, not "neither GLB nor glTF JSON"', async () => {
  const glb = new Uint8Array(readFileSync(dataFile('gltf', 'RiggedSimple', 'RiggedSimple.glb')));
  const view = new DataView(glb.buffer);
  const jsonLength = view.getUint32(12, true);
  // The JSON text ends at its last '}'; the chunk pads it with spaces.
  let jsonEnd = jsonLength;
  while (glb[20 + jsonEnd - 1] === 0x20) jsonEnd--;
  assert.equal(glb[20 + jsonEnd - 1], 0x7d, 'the JSON ends with }');
  const longer = glb.slice();
  new DataView(longer.buffer).setUint32(12, jsonLength + 8, true);
  const error = await rejection(importGltf(longer, 'RiggedSimple.glb'));
  assert.equal(
    error.message,
    `RiggedSimple.glb: GLB chunk 0: the JSON chunk's length (${jsonLength + 8} bytes) runs past the end of its JSON at byte ${jsonEnd} into the BIN chunk`,
  );
  // A JSON chunk with a syntax error is placed in the chunk, by line and column.
  const broken = glb.slice();
  broken[20 + jsonEnd - 1] = 0x5d; // the last '}' made ']'
  assert.equal(
    (await rejection(importGltf(broken, 'RiggedSimple.glb'))).message,
    `RiggedSimple.glb: GLB chunk 0, line 1, column ${jsonEnd}: not valid JSON: ',' or '}' expected in an object, found ']'`,
  );
});

test('glTF: a file of 600 MiB that is not GLB is refused from its size, naming it, before it is decoded as text', async () => {
  // Once: "Cannot create a string longer than 0x1fffffe8 characters", without the file's name. A view of 64 bytes
  // that reports 600 MiB stands for the file: nothing that size is allocated.
  class Huge extends Uint8Array {
    override get length(): number {
      return 600 * 1024 * 1024;
    }
  }
  const bytes = new Huge(64).fill(0x20);
  const message = `big.glb: neither GLB nor glTF JSON: it does not start with 'glTF', and a glTF JSON text of ${600 * 1024 * 1024} bytes (600 MiB) is more than the 256 MiB Rigwright reads`;
  assert.equal(formatErrorOf(() => gltfJson(bytes, 'big.glb')).message, message);
  assert.equal((await rejection(importGltf(bytes, 'big.glb'))).message, message);
});
