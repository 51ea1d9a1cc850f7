/**
 * A short fuzz run as part of the unit tests: 300 mutated inputs per format made from the shared data (fixed seed,
 * so the same inputs every run), each read in a worker thread under a time limit. Every input must end in a result
 * whose data is finite and in range, or in a clear error (a FormatError naming the file, place and reason, short,
 * without engine-internal wording); the table of how the inputs ended is printed. `npm run fuzz` runs longer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FUZZ_FORMATS, loadSeeds } from '../fuzz/corpus.ts';
import { formatFailure, formatReport, runFuzz } from '../fuzz/harness.ts';

const INPUTS_PER_FORMAT = 300;

test(`fuzz: ${INPUTS_PER_FORMAT} mutated inputs per format end in a sound result or a clear error`, async () => {
  const seeds = loadSeeds();
  const formats = FUZZ_FORMATS.filter((format) => seeds.some((s) => s.format === format));
  // Every format Rigwright reads has real files to start from (the project file once its fixture exists).
  for (const format of ['obj', 'off', 'tgf', 'dmat-ascii', 'dmat-binary', 'glb', 'gltf'] as const)
    assert.ok(formats.includes(format), format);
  const report = await runFuzz({ count: INPUTS_PER_FORMAT, formats, seed: 15, timeoutMs: 20000 });
  process.stdout.write(`${formatReport(report)}\n`);
  for (const [format, tally] of report.counts) {
    const total = [...tally.values()].reduce((a, b) => a + b, 0);
    assert.equal(total, INPUTS_PER_FORMAT, `${format}: every input ended somehow`);
    // Both kinds of ending occur: the mutations leave some files readable and break others.
    assert.ok((tally.get('result') ?? 0) > 0, `${format}: no input was read as a result`);
    assert.ok((tally.get('clear error') ?? 0) > 0, `${format}: no input was refused`);
  }
  assert.deepEqual(report.failures.map(formatFailure), [], 'inputs that ended otherwise than in a result or a clear error');
});
