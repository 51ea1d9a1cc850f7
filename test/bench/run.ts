/**
 * `npm run bench`: runs every test/bench/*.bench.ts in its own process, one after another (so one benchmark's
 * heap does not disturb the next), and prints their tables. Pass names to run only some: `npm run bench -- lbs`.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from './bench-util.ts';

const only = process.argv.slice(2);
const benchDir = path.join(repoRoot, 'test/bench');
const files = readdirSync(benchDir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();

console.log(`# Rigwright benchmarks — ${new Date().toISOString().slice(0, 10)}`);
console.log(
  `machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`,
);
let failed = 0;
for (const file of files) {
  const result = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', path.join(benchDir, file)], {
    stdio: 'inherit',
    cwd: repoRoot,
  });
  if (result.status !== 0) {
    failed++;
    console.log(`\n${file} FAILED (exit ${result.status})`);
  }
}
process.exit(failed ? 1 : 0);
