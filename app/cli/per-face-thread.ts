/**
 * Per-face skinning's two-core frame in Node: perFaceTwoCore with its helper on a worker_threads Worker
 * (per-face-thread-worker.mjs). The worker is unreferenced, so it never keeps the process alive, and it ends when
 * the two-core frame is disposed.
 */
import { Worker } from 'node:worker_threads';
import { perFaceTwoCore, type PerFaceHelperShared, type PerFaceTwoCore } from '../../workers/skinning/per-face-two-core.ts';
import type { PerFaceSkinningSetup } from '../../workers/skinning/per-face-skinning.ts';

/**
 * Sets up the two-core frame for a setup and waits until its helper thread runs.
 * @param setup  perFaceSkinningSetup(…)
 * @returns the two-core frame (dispose it when done), or null when the setup is too small or too unbalanced to gain
 *          (then no thread is started): use perFaceSkinning then
 */
export async function perFaceTwoCoreThread(setup: PerFaceSkinningSetup): Promise<PerFaceTwoCore | null> {
  let worker: Worker | null = null;
  const twoCore = perFaceTwoCore(setup, (shared: PerFaceHelperShared) => {
    const thread = new Worker(new URL('./per-face-thread-worker.mjs', import.meta.url), {
      workerData: shared,
      // The worker registers its own TypeScript loader; none of this process's flags (--test, --import) apply there.
      execArgv: [],
    });
    thread.unref();
    worker = thread;
    return { stop: () => void thread.terminate() };
  });
  if (twoCore === null) return null;
  const thread = worker as unknown as Worker;
  try {
    await new Promise<void>((resolve, reject) => {
      thread.once('message', () => resolve());
      thread.once('error', (error) => reject(new Error(`per-face skinning's helper thread failed to start: ${error.message}`)));
      thread.once('exit', (code) => reject(new Error(`per-face skinning's helper thread ended on start (exit code ${code})`)));
    });
  } catch (error) {
    twoCore.dispose();
    throw error;
  }
  thread.removeAllListeners();
  // A later failure reaches the frame through the shared control words (it throws there), not as an event.
  thread.on('error', () => {});
  return twoCore;
}
