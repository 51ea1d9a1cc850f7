/**
 * The `rigwright` program (app/cli/rigwright.mjs) with its standard output read through a pipe that the reader closes
 * after the first line, as `rigwright info FILE | head -1` does: the command ends quietly with exit code 0, whatever
 * it was printing (info's report, a script's own lines through `rigwright run`), where the write's EPIPE used to end it
 * with an unhandled error. Each command prints far more than a pipe holds (Linux: 64 KiB), so that it is still
 * writing when the reader goes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot } from './shared-data.ts';

const work = mkdtempSync(path.join(tmpdir(), 'rigwright-closed-output-'));
/** More than twice a pipe's 64 KiB, so that the program writes after the reader has closed its end. */
const OUTPUT_BYTES = 256 * 1024;

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  firstLine: string;
  stderr: string;
}

/** Runs `rigwright args…` in `work`, reads its stdout up to the first line break, then closes the pipe. */
function firstLineThenClose(args: string[]): Promise<Ended> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(repoRoot, 'app/cli/rigwright.mjs'), ...args], {
      cwd: work,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let read = '';
    let firstLine: string | null = null;
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      if (firstLine !== null) return;
      read += chunk;
      const end = read.indexOf('\n');
      if (end < 0) return;
      firstLine = read.slice(0, end);
      child.stdout.destroy();
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, firstLine: firstLine ?? '', stderr }));
  });
}

test('rigwright info with its output piped into a reader that closes after one line ends quietly with exit code 0', async () => {
  writeFileSync(path.join(work, 't.obj'), 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n');
  // Each file's report is a few lines (about 100 bytes): enough copies of the file to print OUTPUT_BYTES.
  const files = Array.from({ length: OUTPUT_BYTES / 64 }, () => 't.obj');
  const ended = await firstLineThenClose(['info', ...files]);
  assert.equal(ended.firstLine, 't.obj: mesh', `the reader got the first line of the report (stderr: ${ended.stderr})`);
  assert.equal(ended.stderr, '', 'nothing on stderr');
  assert.deepEqual([ended.code, ended.signal], [0, null], 'exit code 0');
});

test('rigwright run of a script printing line after line into a pipe closed after one line ends quietly with exit code 0', async () => {
  const lines = OUTPUT_BYTES / 8;
  writeFileSync(path.join(work, 'lines.ts'), `for (let i = 0; i < ${lines}; i++) print('line', i);\n`);
  const ended = await firstLineThenClose(['run', 'lines.ts']);
  assert.equal(ended.firstLine, 'line 0', `the reader got the script's first line (stderr: ${ended.stderr})`);
  assert.equal(ended.stderr, '', 'nothing on stderr');
  assert.deepEqual([ended.code, ended.signal], [0, null], 'exit code 0');
});
