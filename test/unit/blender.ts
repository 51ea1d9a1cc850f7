/**
 * Blender as a second opinion in the unit tests: whether it runs here, and headless runs of the inspection scripts
 * (test/blender/*.py), which print one `RIGWRIGHT_JSON {...}` line.
 */
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';

/** True when `blender` does not run here; then one `SKIP blender:` line says which check did not run. */
export function blenderMissing(check: string): boolean {
  const version = spawnSync('blender', ['--version'], { encoding: 'utf8', timeout: 60_000 });
  const missing = version.error !== undefined || version.status !== 0;
  if (missing) console.log(`SKIP blender: no \`blender\` on the PATH; ${check} did not run`);
  return missing;
}

/** Blender headless with factory settings, a Python error giving exit code 1, running `script` with `args` after `--`. */
export function runBlender(script: string, args: readonly string[] = [], maxBuffer = 64 * 1024 * 1024): SpawnSyncReturns<string> {
  return spawnSync('blender', ['-b', '--factory-startup', '--python-exit-code', '1', '--python', script, '--', ...args], {
    encoding: 'utf8',
    timeout: 300_000,
    maxBuffer,
  });
}

/** runBlender, asserting it succeeded, and the script's `RIGWRIGHT_JSON` report. */
export function blenderReport<T>(script: string, args: readonly string[], maxBuffer?: number): T {
  const run = runBlender(script, args, maxBuffer);
  const line = run.stdout.split('\n').find((l) => l.startsWith('RIGWRIGHT_JSON '));
  assert.ok(run.status === 0 && line, `blender failed (exit ${run.status}):\n${run.stdout.slice(-2000)}\n${run.stderr.slice(-2000)}`);
  return JSON.parse(line.slice('RIGWRIGHT_JSON '.length)) as T;
}
