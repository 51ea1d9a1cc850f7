/**
 * The page's sandbox of a script run: a dedicated Worker made from a Blob that holds the script runtime
 * (workers/script/script-runtime.ts, its types stripped) followed by the compiled script. The worker has no DOM; the
 * runtime takes the network, storage, other workers and messages to the page away before the script runs; and a
 * blob worker keeps the page's Content-Security-Policy (`worker-src blob:` lets it start; `script-src 'self'` forbids
 * eval, `connect-src 'self'` foreign connections). The host ends it with terminate(), which stops even a script that
 * never yields, while the page goes on drawing.
 *
 * The worker's code, line by line: the runtime (ending with the call that starts it), then
 * `self.<slot> = (async function () {`, then the script's own lines, so the script's line N is a known line of the
 * blob and stack frames map back exactly.
 */
import runtimeSource from '../../workers/script/script-runtime.ts?raw';
import { scriptRuntimeCode } from '../../workers/script/script-compile.ts';
import { SCRIPT_SLOT } from '../../workers/script/script-runtime.ts';
import type { SandboxFailure, SandboxStarter } from '../../workers/script/script-host.ts';
import type { HostMessage, SandboxMessage } from '../../workers/script/script-protocol.ts';

let runtimeCode: string | null = null;

/** The runtime's JavaScript, compiled once per page from its TypeScript. */
function runtime(): string {
  runtimeCode ??= scriptRuntimeCode(runtimeSource);
  return runtimeCode;
}

/** How many line breaks a text has. */
function lineBreaks(text: string): number {
  let count = 0;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) count++;
  return count;
}

/**
 * The worker's code for a compiled script, and the number of its lines before the script's line 1.
 * @param code        CompiledScript.code (its first line the function's head)
 * @param lineOffset  CompiledScript.lineOffset
 */
export function sandboxWorkerCode(code: string, lineOffset: number): { text: string; scriptLineOffset: number } {
  const start = (offset: number) => `${runtime()}.startWorkerRuntime(self, ${offset});\n`;
  // The offset's digits do not change the number of lines, so it can be counted with any number in its place.
  const scriptLineOffset = lineBreaks(start(0)) + lineOffset;
  return { text: `${start(scriptLineOffset)}self.${SCRIPT_SLOT} = ${code};\n`, scriptLineOffset };
}

/** Starts a script's sandbox in the page (a SandboxStarter for ScriptHost). */
export const startBrowserSandbox: SandboxStarter = (script) => {
  const { text, scriptLineOffset } = sandboxWorkerCode(script.code, script.lineOffset);
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
