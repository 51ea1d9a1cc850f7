/**
 * Per-face skinning on two threads in Node: a worker_threads Worker (per-face-thread-worker.mjs) that makes a
 * setup's ordering while this thread assembles (perFaceSetupOrderedApart) and then serves as the helper of the
 * two-core frame (perFaceTwoCore). The worker is unreferenced, so it never keeps the process alive, and it ends when
 * the two-core frame is disposed, or when the setup turns out too small to split.
 */
import { Worker } from 'node:worker_threads';
import {
  perFaceSetupOrderedApart,
  perFaceTwoCore,
  perFaceWorthTwoThreads,
  type PerFaceHelperAnswer,
  type PerFaceHelperMessage,
  type PerFaceTwoCore,
} from '../../workers/skinning/per-face-two-core.ts';
import {
  perFaceSkinningSetupAndFactor,
  type PerFaceSetupStage,
  type PerFaceSkinningSetup,
} from '../../workers/skinning/per-face-skinning.ts';
import type { CholeskyFactor } from '../../workers/sparse/cholesky-numeric.ts';
import type { Influences } from '../../workers/skinning/influences.ts';

/** The helper thread, started and not yet given a frame. */
interface PerFaceThread {
  /** Sends an ordering request; resolves with the ordering, or null when the thread failed or could not order. */
  order(request: Extract<PerFaceHelperMessage, { kind: 'order' }>): Promise<Int32Array | null>;
  /** Makes the setup's two-core frame on this thread; null (the thread stopped) when the setup does not split. */
  twoCore(setup: PerFaceSkinningSetup): Promise<PerFaceTwoCore | null>;
  stop(): void;
}

/** The helper thread; its worker starts on the first request or frame. */
function perFaceThread(): PerFaceThread {
  let worker: Worker | null = null;
  let failure: Error | null = null;
  // Until the frame runs, a failure (a module that does not load, a thread that ends) is kept for the next answer.
  const onError = (error: Error) => (failure = new Error(`per-face skinning's helper thread failed: ${error.message}`));
  const onExit = (code: number) => (failure ??= new Error(`per-face skinning's helper thread ended (exit code ${code})`));
  const started = (): Worker => {
    if (worker) return worker;
    worker = new Worker(new URL('./per-face-thread-worker.mjs', import.meta.url), {
      // The worker registers its own TypeScript loader; none of this process's flags (--test, --import) apply there.
      execArgv: [],
    });
    worker.unref();
    worker.on('error', onError);
    worker.on('exit', onExit);
    return worker;
  };
  /** The thread's next answer, or the failure that ends it. */
  const answer = (thread: Worker) =>
    new Promise<PerFaceHelperAnswer>((resolve, reject) => {
      if (failure) return reject(failure);
      const settle = (result: PerFaceHelperAnswer | Error) => {
        thread.off('message', onMessage);
        thread.off('error', onFail);
        thread.off('exit', onFail);
        if (result instanceof Error) reject(result);
        else resolve(result);
      };
      const onMessage = (message: PerFaceHelperAnswer) => settle(message);
      const onFail = () => settle(failure ?? new Error("per-face skinning's helper thread ended"));
      thread.on('message', onMessage);
      thread.on('error', onFail);
      thread.on('exit', onFail);
    });
  const stop = () => void worker?.terminate();
  return {
    async order(request) {
      const thread = started();
      thread.postMessage(request);
      try {
        const reply = await answer(thread);
        return reply.kind === 'ordering' ? reply.ordering : null;
      } catch {
        return null;
      }
    },
    async twoCore(setup) {
      const frame = perFaceTwoCore(setup, (shared) => {
        started().postMessage({ kind: 'frame', shared } satisfies PerFaceHelperMessage);
        return { stop };
      });
      if (frame === null) {
        stop();
        return null;
      }
      const thread = started();
      try {
        const reply = await answer(thread);
        if (reply.kind !== 'running') throw new Error(`per-face skinning's helper thread answered ${reply.kind} to its frame`);
      } catch (error) {
        frame.dispose();
        throw error;
      }
      thread.off('error', onError);
      thread.off('exit', onExit);
      // A later failure reaches the frame through the shared control words (it throws there), not as an event.
      thread.on('error', () => {});
      return frame;
    },
    stop,
  };
}

/**
 * Sets up the two-core frame for a setup and waits until its helper thread runs.
 * @param setup  perFaceSkinningSetup(…)
 * @returns the two-core frame (dispose it when done), or null when the setup is too small or too unbalanced to gain
 *          (the thread started for it is stopped): use perFaceSkinning then
 */
export async function perFaceTwoCoreThread(setup: PerFaceSkinningSetup): Promise<PerFaceTwoCore | null> {
  return perFaceThread().twoCore(setup);
}

/**
 * perFaceSkinningSetupAndFactor on two threads when the mesh is large enough to gain (perFaceWorthTwoThreads): the
 * helper thread makes the ordering while this one assembles, then runs the two-core frame's other half. A smaller
 * mesh is set up on this thread alone, without a frame on two.
 * @param stageDone  as perFaceSkinningSetupAndFactor's (the ordering stage is the wait for the helper's ordering)
 * @returns the setup and its factor, and the two-core frame (dispose it) or null
 */
export async function perFaceSetupTwoThreads(
  restPositions: Float64Array,
  triangles: Uint32Array,
  influences: Influences,
  boneCount: number,
  fixedBones: Int32Array,
  stageDone: ((stage: PerFaceSetupStage) => void) | null = null,
): Promise<{ setup: PerFaceSkinningSetup; factor: CholeskyFactor; twoCore: PerFaceTwoCore | null }> {
  if (!perFaceWorthTwoThreads(fixedBones)) {
    return { ...perFaceSkinningSetupAndFactor(restPositions, triangles, influences, boneCount, fixedBones, stageDone), twoCore: null };
  }
  const thread = perFaceThread();
  let made: { setup: PerFaceSkinningSetup; factor: CholeskyFactor };
  try {
    made = await perFaceSetupOrderedApart(
      restPositions,
      triangles,
      influences,
      boneCount,
      fixedBones,
      (request) => thread.order(request),
      stageDone,
    );
  } catch (error) {
    thread.stop();
    throw error;
  }
  return { ...made, twoCore: await thread.twoCore(made.setup) };
}
