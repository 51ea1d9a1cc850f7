/**
 * The Node sandbox of a script run (`rigwright run`, the unit tests): a worker_threads Worker (node-sandbox-worker.mjs)
 * that runs the compiled script in a fresh node:vm context with the script runtime (workers/script/script-runtime.ts)
 * and nothing of Node. The host ends it with terminate(), which stops even a script that never yields.
 */
import { readFileSync } from 'node:fs';
import { totalmem } from 'node:os';
import { Worker } from 'node:worker_threads';
import { scriptRuntimeCode } from '../../../workers/script/script-compile.ts';
import type { SandboxPort, SandboxStarter } from '../../../workers/script/script-host.ts';
import type { HostMessage, SandboxMessage } from '../../../workers/script/script-protocol.ts';

let runtimeCode: string | null = null;

/** The runtime's JavaScript, compiled once per process from its TypeScript. */
function runtime(): string {
  runtimeCode ??= scriptRuntimeCode(readFileSync(new URL('../../../workers/script/script-runtime.ts', import.meta.url), 'utf8'));
  return runtimeCode;
}

export interface NodeSandboxOptions {
  /** the most megabytes the script's heap (V8's old generation) may grow to; default SCRIPT_HEAP_LIMIT_MB */
  maxOldGenerationSizeMb?: number;
}

/**
 * A script's heap limit: a quarter of the machine's memory, at most 4 GB. Without one a worker's heap may grow as far
 * as the process's, and a script allocating without end takes the whole process (and the scene it edits, and the
 * machine's other work) down with it; with it V8 ends only the worker, and the run fails. A quarter leaves the scene,
 * its solves and the rest of the machine room; 4 GB is far more than a script's arrays for a million vertices need
 * (1M × 4 influences of float64 is 32 MB).
 */
export const SCRIPT_HEAP_LIMIT_MB = Math.min(4096, Math.floor(totalmem() / 4 / 2 ** 20));

/** Starts a script's Node sandbox (a SandboxStarter for ScriptHost), its heap limited to SCRIPT_HEAP_LIMIT_MB. */
export const startNodeSandbox: SandboxStarter = (script) => nodeSandbox(script, {});

/** A SandboxStarter whose sandboxes have these options (a smaller heap, for a test). */
export function nodeSandboxWith(options: NodeSandboxOptions): SandboxStarter {
  return (script) => nodeSandbox(script, options);
}

function nodeSandbox(script: Parameters<SandboxStarter>[0], options: NodeSandboxOptions): ReturnType<SandboxStarter> {
  const heapLimitMb = options.maxOldGenerationSizeMb ?? SCRIPT_HEAP_LIMIT_MB;
  const worker = new Worker(new URL('./node-sandbox-worker.mjs', import.meta.url), {
    workerData: { runtimeCode: runtime(), code: script.code, file: script.file, lineOffset: script.lineOffset },
    resourceLimits: { maxOldGenerationSizeMb: heapLimitMb },
    // The worker is plain JavaScript: none of this process's loader flags (tsx, --test) are needed there.
    execArgv: [],
    env: {},
    stdout: true,
    stderr: true,
  });
  const errorListeners: Parameters<SandboxPort['onError']>[0][] = [];
  let terminated = false;
  worker.on('error', (error: Error & { code?: string }) => {
    const message =
      error.code === 'ERR_WORKER_OUT_OF_MEMORY'
        ? `the script ran out of memory: its heap reached the limit of ${heapLimitMb} MB, and the script was ended`
        : `the script's worker failed: ${error.message}`;
    for (const listener of errorListeners) listener({ message });
  });
  worker.on('exit', (code) => {
    if (!terminated)
      for (const listener of errorListeners) listener({ message: `the script's worker ended unexpectedly (exit code ${code})` });
  });
  return {
    postMessage: (message: HostMessage, transfer: ArrayBuffer[] = []) => worker.postMessage(message, transfer),
    onMessage: (listener) => worker.on('message', (message: SandboxMessage) => listener(message)),
    onError: (listener) => errorListeners.push(listener),
    terminate: () => {
      terminated = true;
      void worker.terminate();
    },
  };
}
