/**
 * The renderer's handle on the pose-space worker (workers/posespace.worker.ts), supervised (worker-supervisor.ts):
 * a worker that dies is reported and replaced, its call rejected. One unposing at a time; `cancel` terminates the
 * worker, rejects the pending call with an AbortError, and the next call starts a fresh worker.
 * Inputs are copied into new buffers that are transferred (the document keeps its own arrays); results come back
 * transferred.
 */
import { transfer } from 'comlink';
import type { PosespaceApi, UnposeJob } from '../../workers/posespace.worker.ts';
import type { UnposeResult } from '../../workers/posespace/unpose.ts';
import { callWithProgress, SupervisedWorker } from './worker-supervisor.ts';

/** What the pose-space controller needs from a worker (tests give it an in-process one). */
export interface Unposer {
  /** @param onProgress  never called once the returned promise has settled, whatever order the worker's messages arrive in */
  unpose(job: UnposeJob, onProgress: (done: number, total: number) => void): Promise<UnposeResult>;
  /** Stops the running unposing at once (its promise rejects with AbortError); no-op when idle. */
  cancel(): void;
}

export class PosespaceClient implements Unposer {
  private readonly worker = new SupervisedWorker<PosespaceApi>(
    'pose-space worker',
    () => new Worker(new URL('../../workers/posespace.worker.ts', import.meta.url), { type: 'module', name: 'rigwright-posespace' }),
  );
  /** the running unposing's token; null when idle */
  private running: object | null = null;

  unpose(job: UnposeJob, onProgress: (done: number, total: number) => void): Promise<UnposeResult> {
    if (this.running !== null) return Promise.reject(new Error('an unposing is already running'));
    const copy: UnposeJob = {
      ...job,
      restPositions: job.restPositions.slice(),
      examplePositions: job.examplePositions.slice(),
      influences: { ...job.influences, bones: job.influences.bones.slice(), weights: job.influences.weights.slice() },
      pose: job.pose.slice(),
    };
    const buffers = [copy.restPositions, copy.examplePositions, copy.influences.bones, copy.influences.weights, copy.pose].map(
      (a) => a.buffer as ArrayBuffer,
    );
    const token = {};
    this.running = token;
    const done = () => {
      if (this.running === token) this.running = null;
    };
    const call = callWithProgress(onProgress, (progress) =>
      this.worker.call('unposing an example', (remote) => remote.unpose(transfer(copy, buffers), progress)),
    );
    call.then(done, done);
    return call;
  }

  cancel(): void {
    if (this.running === null) return;
    this.running = null;
    this.worker.stop(new DOMException('unposing cancelled', 'AbortError'));
  }
}
