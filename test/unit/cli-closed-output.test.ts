/**
 * The `rigwright` program (app/cli/rigwright.mjs) with its standard output (or its standard error) read through a pipe
 * that the reader closes after the first line, as `rigwright info FILE | head -1` does: the command goes on to its end
 * with what it still writes to that stream discarded, and exits with its own code — 0 quietly when it succeeded, 1 when
 * an input was bad, and a script's files are still written — where the write's EPIPE used to end it with an unhandled
 * error. Each command prints far more than a pipe holds (Linux: 64 KiB), so that it is still writing when the reader
 * goes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot } from './shared-data.ts';

const work = mkdtempSync(path.join(tmpdir(), 'rigwright-closed-output-'));
/** More than twice a pipe's 64 KiB, so that the program writes after the reader has closed its end. */
const OUTPUT_BYTES = 256 * 1024;
/**
 * Lines a script prints: fewer than a run prints at most (10,000: more are left out with a notice on stderr), each
 * long enough that they hold OUTPUT_BYTES.
 */
const SCRIPT_LINES = 5000;
const PADDING = 'x'.repeat(OUTPUT_BYTES / SCRIPT_LINES);

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  firstLine: string;
  /** everything on the stream left open */
  other: string;
}

/**
 * Runs `rigwright args…` in `work`, reads the stream `closed` (stdout by default) up to the first line break, then
 * closes that pipe; the other stream is read to its end.
 */
function firstLineThenClose(args: string[], closed: 'stdout' | 'stderr' = 'stdout'): Promise<Ended> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(repoRoot, 'app/cli/rigwright.mjs'), ...args], {
      cwd: work,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const [closing, open] = closed === 'stdout' ? [child.stdout, child.stderr] : [child.stderr, child.stdout];
    let read = '';
    let firstLine: string | null = null;
    let other = '';
    closing.setEncoding('utf8');
    closing.on('data', (chunk: string) => {
      if (firstLine !== null) return;
      read += chunk;
      const end = read.indexOf('\n');
      if (end < 0) return;
      firstLine = read.slice(0, end);
      closing.destroy();
    });
    open.setEncoding('utf8');
    open.on('data', (chunk: string) => (other += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, firstLine: firstLine ?? '', other }));
  });
}

test('rigwright info with its output piped into a reader that closes after one line ends quietly with exit code 0', async () => {
  writeFileSync(path.join(work, 't.obj'), 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n');
  // Each file's report is a few lines (about 100 bytes): enough copies of the file to print OUTPUT_BYTES.
  const files = Array.from({ length: OUTPUT_BYTES / 64 }, () => 't.obj');
  const ended = await firstLineThenClose(['info', ...files]);
  assert.equal(ended.firstLine, 't.obj: mesh', `the reader got the first line of the report (stderr: ${ended.other})`);
  assert.equal(ended.other, '', 'nothing on stderr');
  assert.deepEqual([ended.code, ended.signal], [0, null], 'exit code 0');
});

test('rigwright run of a script printing line after line into a pipe closed after one line ends quietly with exit code 0', async () => {
  writeFileSync(path.join(work, 'lines.ts'), `for (let i = 0; i < ${SCRIPT_LINES}; i++) print('line', i, '${PADDING}');\n`);
  const ended = await firstLineThenClose(['run', 'lines.ts']);
  assert.equal(ended.firstLine, `line 0 ${PADDING}`, `the reader got the script's first line (stderr: ${ended.other})`);
  assert.equal(ended.other, '', 'nothing on stderr');
  assert.deepEqual([ended.code, ended.signal], [0, null], 'exit code 0');
});

test('rigwright info of many files and a bad one, its output piped into a reader that closes after one line, still reads the bad one and exits 1', async () => {
  writeFileSync(path.join(work, 't.obj'), 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n');
  writeFileSync(path.join(work, 'bad.obj'), 'v 0 0 0\nf 1 2 9\n');
  const files = [...Array.from({ length: OUTPUT_BYTES / 64 }, () => 't.obj'), 'bad.obj'];
  const ended = await firstLineThenClose(['info', ...files]);
  assert.equal(ended.firstLine, 't.obj: mesh', `the reader got the first line of the report (stderr: ${ended.other})`);
  assert.match(ended.other, /^rigwright: bad\.obj: line 2: /, 'the bad file is named on stderr, with its line');
  assert.deepEqual([ended.code, ended.signal], [1, null], 'exit code 1: a bad input');
});

test('rigwright run: a script printing far more than the pipe holds still saves its project after the reader has gone', async () => {
  const out = path.join(work, 'printed-then-saved.rig.glb');
  writeFileSync(
    path.join(work, 'print-save.ts'),
    `for (let i = 0; i < ${SCRIPT_LINES}; i++) print('line', i, '${PADDING}');\nawait rig.files.saveProject('printed-then-saved.rig.glb');\n`,
  );
  const ended = await firstLineThenClose(['run', 'print-save.ts']);
  assert.equal(ended.firstLine, `line 0 ${PADDING}`, `the reader got the script's first line (stderr: ${ended.other})`);
  assert.equal(ended.other, '', 'nothing on stderr');
  assert.deepEqual([ended.code, ended.signal], [0, null], 'exit code 0');
  assert.ok(existsSync(out), 'the script wrote its project after its output had no reader');
});

test('rigwright run with its standard error piped into a reader that closes after one line (2>&1 >/dev/null | head -1) runs to its end and exits with its own code', async () => {
  writeFileSync(
    path.join(work, 'warnings.ts'),
    `for (let i = 0; i < ${SCRIPT_LINES}; i++) console.warn('warning', i, '${PADDING}');\nprint('done');\n`,
  );
  const ended = await firstLineThenClose(['run', 'warnings.ts'], 'stderr');
  assert.equal(ended.firstLine, `warning 0 ${PADDING}`, `the reader got the script's first warning (stdout: ${ended.other})`);
  assert.equal(ended.other, 'done\n', "the script's last line reached stdout: it ran to its end");
  assert.deepEqual([ended.code, ended.signal], [0, null], 'exit code 0');
});
