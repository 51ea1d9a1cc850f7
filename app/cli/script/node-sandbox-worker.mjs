// The Node sandbox's worker (started by node-sandbox.ts): runs a script in a fresh node:vm context that holds the
// JavaScript built-ins and what script-runtime.ts defines (rig, print, console, args) — no require, process, fetch
// or import(), no code generation from strings. The runtime's code and the script's come compiled in workerData, so
// this file needs no TypeScript loader. It is plain JavaScript for that reason.
import { parentPort, workerData } from 'node:worker_threads';
import process from 'node:process';
import vm from 'node:vm';

const { runtimeCode, code, file, lineOffset } = workerData;
const port = parentPort;
const context = vm.createContext({}, { name: file, codeGeneration: { strings: false, wasm: false } });
const runtimeModule = new vm.Script(runtimeCode, { filename: 'rigwright:script-runtime' }).runInContext(context);
const scope = vm.runInContext('globalThis', context);
const runtime = runtimeModule.installScriptRuntime(
  scope,
  {
    post: (message, transfer) => port.postMessage(message, transfer),
    listen: (handler) => port.on('message', handler),
    // The context has no timers: the runtime makes them over this clock, which gives it numbers and calls back.
    clock: {
      now: () => performance.now(),
      schedule: (ms, run) => {
        const timer = setTimeout(run, ms);
        return () => clearTimeout(timer);
      },
    },
  },
  // The script's line N is line N of its vm.Script (lineOffset below), named by its file name.
  { scriptLocation: file, lineOffset: 0, adoptMessages: true },
);
process.on('unhandledRejection', (reason) => runtime.fail(reason));
process.on('uncaughtException', (error) => runtime.fail(error));

let script;
try {
  script = new vm.Script(code, { filename: file, lineOffset: -lineOffset }).runInContext(context);
} catch (error) {
  // A syntax error only the engine finds (a name declared twice): its stack starts "<file>:<line>", then the line
  // and a caret under the place.
  const [place = '', , caret = ''] = String(error?.stack ?? '').split('\n');
  const line = place.startsWith(`${file}:`) ? Number(place.slice(file.length + 1)) : NaN;
  const column = caret.indexOf('^') + 1;
  port.postMessage({
    kind: 'failed',
    message: `${error?.name ?? 'Error'}: ${error?.message ?? String(error)}`,
    ...(Number.isInteger(line) && line >= 1 ? { line, ...(column > 0 ? { column } : {}) } : {}),
  });
}
if (script) runtime.run(script);
