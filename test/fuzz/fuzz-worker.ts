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
}

parentPort!.on('message', (job: FuzzJob) => {
  const start = performance.now();
  void runOne(job.format, job.name, job.bytes, job.resources, job.role).then((outcome) => {
    parentPort!.postMessage({ id: job.id, outcome, ms: performance.now() - start });
  });
});
