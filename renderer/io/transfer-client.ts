/**
 * The renderer's handle on the weight transfer worker (workers/transfer.worker.ts), and on the file-reading worker for
 * the weighted files transferred from. One transfer at a time; `cancel`
 * terminates the worker (the only way to stop a synchronous computation without SharedArrayBuffer), rejecting the
 * pending call with an AbortError, and the next call starts a fresh worker. Inputs are copied once into new buffers
 * that are then transferred (the document keeps its own arrays); results come back transferred.
 */
import { transfer, type Remote } from 'comlink';
import type { TransferApi } from '../../workers/transfer.worker.ts';
import type { TransferRequest, TransferRunner } from '../meshes/transfer-commands.ts';
import type { WeightTransferResult } from '../../workers/weights/weight-transfer.ts';
import type { AssetFile, WeightedAsset } from '../../workers/formats/weighted-asset.ts';
import { getIoClient } from './io-client.ts';
import { callWithProgress, SupervisedWorker } from './worker-supervisor.ts';

export class TransferClient implements TransferRunner {
  private readonly worker = new SupervisedWorker<TransferApi>(
    'weight transfer worker',
    () => new Worker(new URL('../../workers/transfer.worker.ts', import.meta.url), { type: 'module', name: 'rigwright-transfer' }),
  );
  /** the call in flight, if any */
  private current: object | null = null;

  get running(): boolean {
    return this.current !== null;
  }

  /**
   * Robust weight transfer in the worker.
   * @param onProgress  stage name and overall fraction in [0, 1]; not called once the returned promise has settled
   * @throws DOMException AbortError after `cancel`; the transfer's own errors otherwise
   */
  transfer(request: TransferRequest, onProgress: (stage: string, fraction: number) => void = () => {}): Promise<WeightTransferResult> {
    if (this.current) return Promise.reject(new Error('a weight transfer is already running'));
    const source = {
      positions: request.source.positions.slice(),
      triangles: request.source.triangles.slice(),
      weights: request.source.weights.slice(),
    };
    const target = { positions: request.target.positions.slice(), triangles: request.target.triangles.slice() };
    const locks = request.locks && { locked: request.locks.locked.slice(), weights: request.locks.weights.slice() };
    const token = {};
    this.current = token;
    const settle = () => {
      if (this.current === token) this.current = null;
    };
    const run = (remote: Remote<TransferApi>, progress: (stage: string, fraction: number) => void) =>
      remote.weightTransfer(
        transfer(source, [source.positions.buffer, source.triangles.buffer, source.weights.buffer]),
        transfer(target, [target.positions.buffer, target.triangles.buffer]),
        request.boneCount,
        request.options,
        locks && transfer(locks, [locks.locked.buffer, locks.weights.buffer]),
        progress,
      );
    return callWithProgress(onProgress, (progress) => this.worker.call('Transferring weights', (remote) => run(remote, progress))).then(
      (value) => {
        settle();
        return value;
      },
      (error: unknown) => {
        settle();
        throw error;
      },
    );
  }

  /** A weighted mesh to transfer from, read in the file-reading worker (its bytes transferred, not copied). */
  readWeightedAsset(files: AssetFile[]): Promise<WeightedAsset> {
    const copies = files.map((f) => ({ name: f.name, bytes: f.bytes.slice() }));
    return getIoClient().readWeightedAsset(
      transfer(
        copies,
        copies.map((f) => f.bytes.buffer),
      ),
    );
  }

  /** Stops the running transfer at once (its promise rejects with AbortError); no-op when idle. */
  cancel(): void {
    if (!this.current) return;
    this.current = null;
    this.worker.stop(new DOMException('weight transfer cancelled', 'AbortError'));
  }
}
