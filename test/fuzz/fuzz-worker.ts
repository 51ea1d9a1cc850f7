/** Worker thread of the fuzz harness: reads the inputs it is sent, one at a time, and posts how each ended. */
import { parentPort } from 'node:worker_threads';
import type { DmatRole, FuzzFormat } from './corpus.ts';
import { runOne } from './outcome.ts';

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
}

/** Line ends other than `\n` that text inputs are rewritten to. */
export type LineEnds = '\r' | '\r\n';

parentPort!.on('message', (job: FuzzJob) => {
  const start = performance.now();
  if (job.stallMs) while (performance.now() - start < job.stallMs);
  void runOne(job.format, job.name, job.bytes, job.resources, job.role, job.lineEnds).then((outcome) => {
    parentPort!.postMessage({ id: job.id, outcome, ms: performance.now() - start });
  });
});
parentPort!.postMessage({ ready: true });
