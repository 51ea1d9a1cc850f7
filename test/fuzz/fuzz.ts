/**
 * `npm run fuzz -- [--count N] [--format F[,F…]] [--seed S] [--timeout MS] [--jobs J] [--only I[,I…]] [--save DIR]`
 *
 * Mutates the real files of every format Rigwright reads and reads each mutant under a time limit; prints per
 * format how many inputs were tried and how each ended, then every failure with the command that reproduces it.
 * The write formats `glb-write` and `gltf-write` read GLB and glTF mutants the same way and write each scene the
 * reader returns three ways (in place unchanged, in place edited, fresh), reading every file back (write-outcome.ts).
 * `--save DIR` writes each failing input's bytes there. Exit code 1 when any input failed.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { FUZZ_FORMATS, type FuzzFormat } from './corpus.ts';
import { formatFailure, formatReport, makeInput, runFuzz } from './harness.ts';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '1000' },
    format: { type: 'string' },
    seed: { type: 'string', default: '1' },
    timeout: { type: 'string', default: '10000' },
    jobs: { type: 'string', default: '1' },
    only: { type: 'string' },
    save: { type: 'string' },
  },
});

const formats = values.format ? (values.format.split(',') as FuzzFormat[]) : FUZZ_FORMATS;
for (const f of formats) {
  if (!FUZZ_FORMATS.includes(f)) {
    process.stderr.write(`fuzz: unknown format '${f}' (known: ${FUZZ_FORMATS.join(', ')})\n`);
    process.exit(2);
  }
}
const count = Number(values.count);
const seed = Number(values.seed);
const only = values.only?.split(',').map(Number);
let last = 0;
const report = await runFuzz({
  count,
  formats,
  seed,
  timeoutMs: Number(values.timeout),
  jobs: Number(values.jobs),
  only,
  onProgress: (format, done) => {
    const now = Date.now();
    if (now - last > 30000) {
      last = now;
      process.stderr.write(`fuzz: ${format} ${done}/${only?.length ?? count}\n`);
    }
  },
});
process.stdout.write(`${formatReport(report)}\n`);
for (const failure of report.failures) process.stdout.write(`\n${formatFailure(failure)}\n`);
if (only) {
  for (const format of formats) {
    for (const index of only) {
      const { input } = makeInput(seed, format, index);
      process.stdout.write(`\n${format} input ${index}: ${input.name}, ${input.bytes.length} bytes, ${input.mutations.join('; ')}\n`);
    }
  }
}
if (values.save) {
  mkdirSync(values.save, { recursive: true });
  for (const f of report.failures) {
    const { input } = makeInput(seed, f.format, f.index);
    const base = path.join(values.save, `${f.format}-${seed}-${f.index}-${input.name}`);
    writeFileSync(base, input.bytes);
    for (const [uri, data] of Object.entries(input.resources ?? {})) writeFileSync(`${base}.${path.basename(uri)}`, data);
  }
}
process.exitCode = report.failures.length > 0 ? 1 : 0;
