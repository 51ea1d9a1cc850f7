/**
 * The fuzz harness's own checks, against hand-made cases: a message's layout (one printable line, short, naming the
 * file and a place), rotation blocks and quaternions, URIs that leave an asset's folder, line ends rewritten and the
 * comparison of a text read with `\r` ends against the same text with `\n` ends; and that the inputs cover those
 * classes (text inputs with other line ends, glTF URIs out of the folder and data: URIs).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSeeds } from '../fuzz/corpus.ts';
import { makeInput } from '../fuzz/harness.ts';
import { withLineEnds } from '../fuzz/mutators.ts';
import {
  classifyError,
  compareLineEnds,
  leavesFolder,
  MAX_MESSAGE_LENGTH,
  messageLayoutProblem,
  quaternionProblem,
  rotationBlockProblem,
  type Outcome,
} from '../fuzz/outcome.ts';

test('fuzz outcome: a message is one printable line of at most 400 characters naming the file and a place after it', () => {
  const name = 'hand.off';
  const layouts: [string, string][] = [
    ['hand.off: line 12: face has 2 vertex indices, needs at least 3', ''],
    ["hand.off: the file is empty (expected the header 'OFF')", ''],
    ['hand.bin: the file has 600 MB, more than Rigwright reads', 'does not name the file'],
    ["hand.off: line 1: found '1 2\r3'", 'more than one line'],
    ["hand.off: line 1: found '1 2\n3'", 'more than one line'],
    ['hand.off: line 1: found \u2028', 'more than one line'],
    ["hand.off: line 1: token '\u001b[2J' is not a number", 'non-printable character U+001B at 25'],
    ["hand.off: line 1: token '\u202eFFO' is not a number", 'non-printable character U+202E at 25'],
    ["hand.off: line 1: token '\u0000'", 'non-printable character U+0000 at 25'],
    [`hand.off: line 1: ${'9'.repeat(MAX_MESSAGE_LENGTH - 18)}`, ''],
    [`hand.off: line 1: ${'9'.repeat(MAX_MESSAGE_LENGTH - 17)}`, '401 characters, more than 400'],
    ['line 12: face has 2 vertex indices', 'does not name the file'],
    ['hand.off', 'names no place after the file name'],
    ['hand.off: ', 'names no place after the file name'],
    ['hand.off face has 2 vertex indices', 'names no place after the file name'],
  ];
  for (const [message, problem] of layouts) assert.equal(messageLayoutProblem(message, name), problem, JSON.stringify(message));
  assert.equal(MAX_MESSAGE_LENGTH, 400);
  // Not a FormatError: another exception, whatever its message.
  const plain: Outcome = classifyError(new TypeError('hand.off: line 1: x'), name);
  assert.equal(plain.kind, 'other exception', plain.detail);
});

test('fuzz outcome: rotation blocks are orthonormal with det +1, quaternions unit, within the tolerance', () => {
  const c = Math.cos(0.5);
  const s = Math.sin(0.5);
  // Row-major 3 × 3 blocks.
  const aboutZ = [c, -s, 0, s, c, 0, 0, 0, 1];
  assert.equal(rotationBlockProblem([1, 0, 0, 0, 1, 0, 0, 0, 1], 0, 1e-6), '', 'identity');
  assert.equal(rotationBlockProblem([9, 9, ...aboutZ], 2, 1e-6), '', 'a rotation about z, at an offset');
  // A reflection is orthonormal but has det −1.
  assert.equal(rotationBlockProblem([1, 0, 0, 0, 1, 0, 0, 0, -1], 0, 1e-3), 'det -1');
  // A scaled rotation: column 0 has length² 1.0201.
  assert.match(
    rotationBlockProblem(
      aboutZ.map((x) => 1.01 * x),
      0,
      1e-3,
    ),
    /^columns 0 and 0: \(RᵀR\)\[0\]\[0\] = 1\.020/,
  );
  // Off by 1e-4 in one entry: within 1e-3, not within 1e-6.
  const near = [1, 1e-4, 0, 0, 1, 0, 0, 0, 1];
  assert.equal(rotationBlockProblem(near, 0, 1e-3), '');
  assert.match(rotationBlockProblem(near, 0, 1e-6), /^columns 0 and 1/);
  assert.match(rotationBlockProblem([NaN, 0, 0, 0, 1, 0, 0, 0, 1], 0, 1e-3), /NaN/);
  assert.equal(quaternionProblem([0, 0, 0, 1], 0, 1e-6), '');
  assert.equal(quaternionProblem([0.5, -0.5, 0.5, 0.5], 0, 1e-6), '');
  assert.equal(quaternionProblem([0, 0, 0, 0], 0, 1e-3), 'length 0');
  assert.equal(quaternionProblem([0.6, 0, 0, 1], 0, 1e-3), `length ${Math.hypot(0.6, 1)}`);
});

test('fuzz outcome: resource URIs that leave the folder, percent-decoded once', () => {
  const outside = [
    '../x.bin',
    'textures/../../x.bin',
    '/etc/hostname',
    '%2e%2e/x.bin',
    '..%2Fx.bin',
    'C:\\x',
    'C:/Windows/win.ini',
    '..\\x.bin',
    '\\\\server\\share\\x.bin',
    'file:///etc/passwd',
    'a/./../../x.bin',
  ];
  const inside = ['x.bin', 'textures/body.png', 'textures/../x.bin', './x.bin', '%252e%252e/x.bin', 'a%20b.bin', '100%.bin', 'data:,..'];
  for (const uri of outside) assert.equal(leavesFolder(uri), true, `${uri} leaves the folder`);
  for (const uri of inside) assert.equal(leavesFolder(uri), false, `${uri} stays inside`);
});

test('fuzz outcome: line ends rewritten, and a text read with other line ends compared with its "\\n" read', () => {
  const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);
  const mixed = new TextEncoder().encode('v 1 2 3\r\nv 4 5 6\rf 1 2\n\n');
  assert.equal(text(withLineEnds(mixed, '\n')), 'v 1 2 3\nv 4 5 6\nf 1 2\n\n');
  assert.equal(text(withLineEnds(mixed, '\r')), 'v 1 2 3\rv 4 5 6\rf 1 2\r\r');
  assert.equal(text(withLineEnds(mixed, '\r\n')), 'v 1 2 3\r\nv 4 5 6\r\nf 1 2\r\n\r\n');

  const result = (positions: number[]): { outcome: Outcome; value: unknown } => ({
    outcome: { kind: 'result', detail: '' },
    value: { kind: 'mesh', mesh: { positions: Float64Array.from(positions) } },
  });
  const refused = (detail: string): { outcome: Outcome } => ({ outcome: { kind: 'clear error', detail } });
  assert.equal(compareLineEnds(result([1, 2, 3, 4, 5, 6]), result([1, 2, 3, 4, 5, 6]), '\r').kind, 'result');
  // One vertex from a file of two: a silent misreading.
  const oneVertex = compareLineEnds(result([1, 2, 3]), result([1, 2, 3, 4, 5, 6]), '\r');
  assert.deepEqual(oneVertex, {
    kind: 'line endings',
    detail: 'with "\\r" line ends the result differs from "\\n": result.mesh.positions: 3 numbers against 6',
  });
  assert.equal(compareLineEnds(result([1, 2, 3]), refused('a.obj: line 2: x'), '\r\n').kind, 'line endings');
  assert.equal(
    compareLineEnds(refused('a.off: line 1: ends after 0 vertices'), refused('a.off: line 460: not a number'), '\r').kind,
    'line endings',
  );
  // The same lines named, other counts of characters: alike.
  const alike = compareLineEnds(refused('a.dmat: line 1: only 4265 characters'), refused('a.dmat: line 1: only 3125 characters'), '\r\n');
  assert.deepEqual(alike, { kind: 'clear error', detail: 'a.dmat: line 1: only 4265 characters' });
  // A failure of either read is reported as it is.
  const crashed: Outcome = { kind: 'other exception', detail: 'TypeError' };
  assert.deepEqual(compareLineEnds({ outcome: crashed }, result([1]), '\r'), crashed);
  assert.equal(compareLineEnds(result([1]), { outcome: crashed }, '\r').kind, 'other exception');
});

test('fuzz outcome: the inputs include text with "\\r" and "\\r\\n" line ends and glTF URIs out of the folder and data: URIs', async () => {
  await loadSeeds();
  const ends = new Set<string>();
  for (let i = 0; i < 60; i++) {
    const { input } = makeInput(15, 'obj', i);
    if (!input.lineEnds) continue;
    ends.add(input.lineEnds);
    const bytes = Array.from(input.bytes);
    if (input.lineEnds === '\r') assert.ok(!bytes.includes(0x0a), `obj input ${i}: no "\\n" left`);
    else
      assert.ok(
        bytes.every((b, k) => b !== 0x0a || bytes[k - 1] === 0x0d),
        `obj input ${i}: every "\\n" after a "\\r"`,
      );
  }
  assert.deepEqual([...ends].sort(), ['\r', '\r\n'], 'both line ends occur');
  // The URIs glTF inputs are given, by class.
  const classes = new Set<string>();
  const classOf = (uri: string): string => {
    if (uri.startsWith('data:')) return /;base64,[\w+/]*=+[\w+/]/.test(uri) ? 'data: with = inside' : 'data: other';
    if (uri.startsWith('file:')) return 'file:';
    if (/^[A-Z]:/.test(uri)) return 'drive';
    if (/^[\\/]/.test(uri)) return 'absolute';
    if (/%2e/i.test(uri)) return 'percent-encoded dots';
    return uri.includes('..') ? 'parent steps' : 'other';
  };
  for (const format of ['gltf', 'glb'] as const)
    for (let i = 0; i < 300; i++)
      for (const m of makeInput(15, format, i).input.mutations) {
        const uri = /\/uri → (.*)$/.exec(m)?.[1];
        if (uri) classes.add(classOf(uri));
      }
  for (const c of ['parent steps', 'absolute', 'percent-encoded dots', 'drive', 'file:', 'data: with = inside', 'data: other'])
    assert.ok(classes.has(c), `a glTF input with a URI of the class ${c} (${[...classes].join(', ')})`);
});
