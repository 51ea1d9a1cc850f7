/**
 * The Node sandbox of a script run (`rigwright run`, the unit tests): a worker_threads Worker (node-sandbox-worker.mjs)
 * that runs the compiled script in a fresh node:vm context with the script runtime (workers/script/script-runtime.ts)
 * and nothing of Node. The host ends it with terminate(), which stops even a script that never yields.
 */
import { readFileSync } from 'node:fs';
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

/** Starts a script's Node sandbox (a SandboxStarter for ScriptHost). */
export const startNodeSandbox: SandboxStarter = (script) => {
  const worker = new Worker(new URL('./node-sandbox-worker.mjs', import.meta.url), {
    workerData: { runtimeCode: runtime(), code: script.code, file: script.file, lineOffset: script.lineOffset },
    // The worker is plain JavaScript: none of this process's loader flags (tsx, --test) are needed there.
    execArgv: [],
    env: {},
    stdout: true,
    stderr: true,
  });
  const errorListeners: Parameters<SandboxPort['onError']>[0][] = [];
  let terminated = false;
  worker.on('error', (error) => {
    for (const listener of errorListeners) listener({ message: `the script's worker failed: ${error.message}` });
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
};
