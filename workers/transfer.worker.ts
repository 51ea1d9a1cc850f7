/**
 * The weight transfer worker: robust weight transfer (workers/weights/weight-transfer.ts) off the main thread, so
 * the viewport keeps drawing while a garment is matched and inpainted. A thin comlink wrapper; as in the binding
 * worker, progress travels back through a proxied callback and cancelling terminates the worker
 * (renderer/io/transfer-client.ts). Every typed array returned is transferred, not copied.
 */
import { expose, transfer } from 'comlink';
import {
  weightTransfer,
  type TransferLocks,
  type TransferMesh,
  type WeightTransferOptions,
  type WeightTransferResult,
} from './weights/weight-transfer.ts';

export const transferApi = {
  /** See weightTransfer; `progress` is a comlink proxy receiving the stage and the overall fraction in [0, 1]. */
  weightTransfer(
    source: TransferMesh & { weights: Float64Array },
    target: TransferMesh,
    boneCount: number,
    options: WeightTransferOptions,
    locks?: TransferLocks,
    progress?: (stage: string, fraction: number) => void,
  ): WeightTransferResult {
    const result = weightTransfer(source, target, boneCount, options, locks, (stage, fraction) => void progress?.(stage, fraction));
    return transfer(result, [result.weights.buffer, result.status.buffer, result.smoothed.buffer]);
  },
};

export type TransferApi = typeof transferApi;

expose(transferApi);
