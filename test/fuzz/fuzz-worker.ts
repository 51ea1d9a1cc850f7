/**
 * Worker thread of the fuzz harness: reads the inputs it is sent, one at a time (and writes the scene read from a
 * write format's input), and posts how each ended.
 */
import { parentPort } from 'node:worker_threads';
import { seedFormat, type DmatRole, type FuzzFormat } from './corpus.ts';
import { runOne } from './outcome.ts';
import { runObjWriteOne } from './obj-write-outcome.ts';
import { runWriteOne, type WritePlan } from './write-outcome.ts';

export interface FuzzJob {
  id: number;
  format: FuzzFormat;
  name: string;
  bytes: Uint8Array;
  resources?: Record<string, Uint8Array>;
  role?: DmatRole;
  /** the line ends the input was rewritten to, if any (the read is then compared with the `\n` one) */
  lineEnds?: LineEnds;
  /** a test of the time limit: the worker is busy this long before it reads the input, as a reader stuck in a loop */
  stallMs?: number;
  /** for a write format: how the scene read from the input is written */
  write?: WritePlan;
}

/** Line ends other than `\n` that text inputs are rewritten to. */
export type LineEnds = '\r' | '\r\n';

parentPort!.on('message', (job: FuzzJob) => {
  const start = performance.now();
  if (job.stallMs) while (performance.now() - start < job.stallMs);
  const ended = !job.write
    ? runOne(job.format, job.name, job.bytes, job.resources, job.role, job.lineEnds)
    : seedFormat(job.format) === 'obj'
      ? runObjWriteOne(job.format, job.name, job.bytes, job.write)
      : runWriteOne(job.format, job.name, job.bytes, job.resources, job.write);
  void ended.then((outcome) => {
    const exports = 'exports' in outcome ? outcome.exports : undefined;
    parentPort!.postMessage({
      id: job.id,
      outcome: { kind: outcome.kind, detail: outcome.detail },
      ms: performance.now() - start,
      exports,
    });
  });
});
parentPort!.postMessage({ ready: true });
