/**
 * The `rigwright` tool when things go wrong around the input: a full disk (a real file-size limit, `ulimit -f`, in
 * the shell that runs the tool: the system refuses the write with EFBIG as a full disk refuses with ENOSPC) leaves
 * the previous outputs byte for byte — a .glb, a .gltf with its .bin, an import's several files — and says which
 * file could not be written; an error that is neither bad input nor a bad command line is one line naming the
 * command and the reason, exit 3, without a stack trace unless RIGWRIGHT_DEBUG=1, and no message is longer than
 * the limit however long the token that caused it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EXIT_INTERNAL_ERROR, MAX_MESSAGE_CHARACTERS, runCli } from '../../app/cli/main.ts';
import type { CliCommand } from '../../app/cli/cli-support.ts';
import { FormatError } from '../../workers/formats/format-error.ts';
import { armRigOptions, repoRoot } from './shared-data.ts';

const work = mkdtempSync(path.join(tmpdir(), 'rigwright-cli-safety-'));
const arm = armRigOptions();

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The tool, run by bash with a file-size limit of `limitKiB` KiB when given. */
function rigwright(limitKiB: number | undefined, ...args: string[]): Run {
  const limit = limitKiB === undefined ? '' : `ulimit -f ${limitKiB} && `;
  const result = spawnSync('bash', ['-c', `${limit}exec "$0" app/cli/rigwright.mjs "$@"`, process.execPath, ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function snapshot(folder: string): Map<string, Buffer> {
  return new Map(readdirSync(folder).map((name) => [name, readFileSync(path.join(folder, name))]));
}

test('a full disk during export leaves the previous .glb, and the previous .gltf + .bin pair, byte for byte', () => {
  for (const name of ['arm.glb', 'arm.gltf']) {
    const folder = path.join(work, `export-${name}`);
    mkdirSync(folder);
    const target = path.join(folder, name);
    // The old output has float weights (and is larger than the limit below); the new one unsigned-short weights.
    const first = rigwright(undefined, 'export', ...arm, '--weight-type', 'float', '--out', target);
    assert.equal(first.status, 0, first.stderr);
    const before = snapshot(folder);
    const written = [...before.values()].reduce((n, b) => n + b.byteLength, 0);
    assert.ok(written > 300 * 1024, `${name}: ${written} bytes, more than the limit below`);

    const full = rigwright(256, 'export', ...arm, '--weight-type', 'unsigned-short', '--out', target);
    assert.equal(full.status, 1, full.stderr);
    const bigFile = name === 'arm.glb' ? target : path.join(folder, 'arm.bin');
    assert.equal(
      full.stderr,
      `rigwright: ${bigFile}: cannot write the file: the file is larger than this system allows (file size limit)\n`,
    );
    assert.deepEqual(snapshot(folder), before, `${name}: the old files changed or a temporary file stayed`);

    const again = rigwright(undefined, 'export', ...arm, '--weight-type', 'unsigned-short', '--out', target);
    assert.equal(again.status, 0, again.stderr);
    assert.deepEqual([...snapshot(folder).keys()].sort(), [...before.keys()].sort());
    assert.notDeepEqual(readFileSync(bigFile), before.get(path.basename(bigFile)));
  }
});

test('a full disk during import leaves every file of the previous import as it was (all or none are replaced)', () => {
  const glb = path.join(work, 'arm-for-import.glb');
  assert.equal(rigwright(undefined, 'export', ...arm, '--out', glb).status, 0);
  const outDir = path.join(work, 'imported');
  const first = rigwright(undefined, 'import', glb, '--out-dir', outDir);
  assert.equal(first.status, 0, first.stderr);
  // Make the previous import different from what the next one writes, in every file.
  for (const name of readdirSync(outDir)) writeFileSync(path.join(outDir, name), `previous ${name}\n`);
  const before = snapshot(outDir);
  assert.deepEqual([...before.keys()].sort(), ['arm-weights.dmat', 'arm.names', 'arm.obj', 'arm.tgf']);

  // 700 KiB stops arm.obj (~790 KB), the first file of the set.
  const full = rigwright(700, 'import', glb, '--out-dir', outDir);
  assert.equal(full.status, 1, full.stderr);
  assert.match(full.stderr, /^rigwright: .*arm\.obj: cannot write the file: the file is larger than this system allows/);
  assert.equal(full.stdout, '', 'nothing is reported as written');
  assert.deepEqual(snapshot(outDir), before);

  // A later file of the set that cannot be replaced (a folder stands where the weights go): the files before it stay old.
  const blocked = path.join(work, 'imported-blocked');
  mkdirSync(path.join(blocked, 'arm-weights.dmat'), { recursive: true });
  writeFileSync(path.join(blocked, 'arm.obj'), 'previous obj');
  writeFileSync(path.join(blocked, 'arm.tgf'), 'previous tgf');
  const refused = rigwright(undefined, 'import', glb, '--out-dir', blocked);
  assert.equal(refused.status, 1, refused.stderr);
  assert.match(refused.stderr, /^rigwright: .*arm-weights\.dmat: cannot write the file: it is a folder\n$/);
  assert.equal(readFileSync(path.join(blocked, 'arm.obj'), 'utf8'), 'previous obj');
  assert.equal(readFileSync(path.join(blocked, 'arm.tgf'), 'utf8'), 'previous tgf');
  assert.deepEqual(readdirSync(blocked).sort(), ['arm-weights.dmat', 'arm.obj', 'arm.tgf']);
});

/** A command that fails the way `fail` says, for the error policy of runCli. */
function failingCommand(fail: () => never): CliCommand {
  return { name: 'boom', summary: 'fails', usage: 'Usage: rigwright boom\n', options: {}, allowPositionals: false, run: fail };
}

async function runFailing(fail: () => never, debug = false) {
  let stdout = '';
  let stderr = '';
  const status = await runCli(
    ['boom'],
    { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stderr += t) } },
    { debug, commands: [failingCommand(fail)] },
  );
  return { status, stdout, stderr };
}

test('an unexpected error is one line naming the command and the reason, exit 3, no stack unless asked', async () => {
  const huge = '0'.repeat(3_000_000);
  const typeError = await runFailing(() => {
    throw new TypeError(`Cannot read properties of undefined (reading '${huge}')`);
  });
  assert.equal(typeError.status, EXIT_INTERNAL_ERROR);
  assert.equal(typeError.stdout, '');
  assert.equal(typeError.stderr.split('\n').length, 2, 'one line');
  assert.ok(
    typeError.stderr.startsWith("rigwright boom: failed: TypeError: Cannot read properties of undefined (reading '000"),
    'the internal error is reported as one line starting with the command and the TypeError',
  );
  assert.ok(typeError.stderr.length < MAX_MESSAGE_CHARACTERS + 100, `${typeError.stderr.length} characters`);
  assert.match(typeError.stderr, /… \(\d+ more characters\)\n$/);
  assert.doesNotMatch(typeError.stderr, /^\s+at /m);

  const deep = (n: number): number => (n === 0 ? 0 : 1 + deep(n - 1));
  const overflow = await runFailing(() => {
    throw new Error(String(deep(1e7)));
  });
  assert.equal(overflow.status, EXIT_INTERNAL_ERROR);
  assert.equal(overflow.stderr, 'rigwright boom: failed: the input nests too deeply (stack overflow)\n');

  const debug = await runFailing(() => {
    throw new Error('broken');
  }, true);
  assert.match(debug.stderr, /^rigwright boom: failed: broken\nError: broken\n\s+at /);
});

test('a FormatError quoting a huge token is cut to the limit, on one line, exit 1', async () => {
  const result = await runFailing(() => {
    throw new FormatError('zeros.off', 'line 1', `expected "OFF", found "${'0'.repeat(300_000_000 / 100)}"`);
  });
  assert.equal(result.status, 1);
  assert.equal(result.stderr.split('\n').length, 2);
  assert.ok(
    result.stderr.startsWith('rigwright: zeros.off: line 1: expected "OFF", found "000'),
    'the message names zeros.off, line 1 and what was expected',
  );
  assert.ok(result.stderr.length < MAX_MESSAGE_CHARACTERS + 100, 'the message is cut to about MAX_MESSAGE_CHARACTERS');
});

test('a file larger than Rigwright reads is refused from its size, before it is read', async () => {
  // A sparse file of 3 GiB on the file system, past the 256 MiB limit for text. Read whole first, it would fail in
  // the reader itself (Node refuses files over 2 GiB) with another message; refused from its size, the message
  // names the file, its size and the limit.
  const huge = path.join(work, 'huge.off');
  writeFileSync(huge, '');
  truncateSync(huge, 3 * 1024 * 1024 * 1024);
  const lines: string[] = [];
  const streams = { stdout: { write: (t: string) => lines.push(t) }, stderr: { write: (t: string) => lines.push(t) } };
  const status = await runCli(['info', huge], streams);
  assert.equal(status, 1);
  assert.match(lines.join(''), /huge\.off: the file has 3221225472 bytes \(3072 MiB\), more than the 256 MiB Rigwright reads/);
});
