/**
 * The page's sandbox of a script run: a dedicated Worker made from a Blob that holds the script runtime
 * (workers/script/script-runtime.ts, its types stripped) followed by the compiled script. The worker has no DOM; the
 * runtime takes the network, storage, other workers and messages to the page away before the script runs; and a
 * blob worker keeps the page's Content-Security-Policy (`worker-src blob:` lets it start; `script-src 'self'` forbids
 * eval, `connect-src 'self'` foreign connections). The host ends it with terminate(), which stops even a script that
 * never yields, while the page goes on drawing.
 *
 * The worker's code (sandboxWorkerCode): the runtime, then the script, whose line N is a known line of the blob, so
 * stack frames map back exactly.
 */
import runtimeSource from '../../workers/script/script-runtime.ts?raw';
import { sandboxWorkerCode, scriptRuntimeCode } from '../../workers/script/script-compile.ts';
import { SCRIPT_SLOT } from '../../workers/script/script-runtime.ts';
import type { SandboxFailure, SandboxStarter } from '../../workers/script/script-host.ts';
import type { HostMessage, SandboxMessage } from '../../workers/script/script-protocol.ts';

let runtimeCode: string | null = null;

/** The runtime's JavaScript, compiled once per page from its TypeScript. */
function runtime(): string {
  runtimeCode ??= scriptRuntimeCode(runtimeSource);
  return runtimeCode;
}

/** Starts a script's sandbox in the page (a SandboxStarter for ScriptHost). */
export const startBrowserSandbox: SandboxStarter = (script) => {
  const { text, scriptLineOffset } = sandboxWorkerCode(runtime(), script, SCRIPT_SLOT);
  const url = URL.createObjectURL(new Blob([text], { type: 'text/javascript' }));
  const worker = new Worker(url, { name: `script ${script.file}` });
  const errorListeners: ((failure: SandboxFailure) => void)[] = [];
  const fail = (failure: SandboxFailure) => {
    for (const listener of errorListeners) listener(failure);
  };
  worker.addEventListener('error', (event: ErrorEvent) => {
    // What the runtime cannot catch: its code or the script's did not compile (an error only the engine finds).
    event.preventDefault();
    const line = event.lineno - scriptLineOffset;
    const message = (event.message || "the script's worker failed").replace(/^Uncaught /, '');
    fail(line >= 1 ? { message, line, ...(event.colno > 0 ? { column: event.colno } : {}) } : { message });
  });
  worker.addEventListener('messageerror', () => fail({ message: "a message from the script's worker could not be read" }));
  return {
    postMessage: (message: HostMessage, transfer: ArrayBuffer[] = []) => worker.postMessage(message, transfer),
    onMessage: (listener) => worker.addEventListener('message', (event: MessageEvent<SandboxMessage>) => listener(event.data)),
    onError: (listener) => errorListeners.push(listener),
    terminate: () => {
      worker.terminate();
      URL.revokeObjectURL(url);
    },
  };
};
