/**
 * The renderer's handle on the pose-space worker (workers/posespace.worker.ts). One unposing at a time; `cancel`
 * terminates the worker, rejects the pending call with an AbortError, and the next call starts a fresh worker.
 * Inputs are copied into new buffers that are transferred (the document keeps its own arrays); results come back
 * transferred.
 */
import { proxy, transfer, wrap, type Remote } from 'comlink';
import type { PosespaceApi, UnposeJob } from '../../workers/posespace.worker.ts';
import type { UnposeResult } from '../../workers/posespace/unpose.ts';

/** What the pose-space controller needs from a worker (tests give it an in-process one). */
export interface Unposer {
  unpose(job: UnposeJob, onProgress: (done: number, total: number) => void): Promise<UnposeResult>;
  /** Stops the running unposing at once (its promise rejects with AbortError); no-op when idle. */
  cancel(): void;
}

export class PosespaceClient implements Unposer {
  private worker: Worker | null = null;
  private remote: Remote<PosespaceApi> | null = null;
  private abortPending: ((error: DOMException) => void) | null = null;

  unpose(job: UnposeJob, onProgress: (done: number, total: number) => void): Promise<UnposeResult> {
    if (this.abortPending) return Promise.reject(new Error('an unposing is already running'));
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
    const remote = this.ensure();
    return new Promise<UnposeResult>((resolve, reject) => {
      const abort = (error: DOMException) => reject(error);
      this.abortPending = abort;
      remote.unpose(transfer(copy, buffers), proxy(onProgress)).then(
        (result) => {
          if (this.abortPending !== abort) return;
          this.abortPending = null;
          resolve(result);
        },
        (error: unknown) => {
          if (this.abortPending !== abort) return;
          this.abortPending = null;
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }

  cancel(): void {
    const abort = this.abortPending;
    if (!abort) return;
    this.abortPending = null;
    this.worker?.terminate();
    this.worker = null;
    this.remote = null;
    abort(new DOMException('unposing cancelled', 'AbortError'));
  }

  private ensure(): Remote<PosespaceApi> {
    if (!this.remote) {
      this.worker = new Worker(new URL('../../workers/posespace.worker.ts', import.meta.url), {
        type: 'module',
        name: 'rigwright-posespace',
      });
      this.remote = wrap<PosespaceApi>(this.worker);
    }
    return this.remote;
  }
}
