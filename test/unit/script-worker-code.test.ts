/**
 * The browser sandbox's worker code (sandboxWorkerCode: the runtime's stripped TypeScript, then the script) run
 * through the ScriptHost in a stand-in for a dedicated worker's global — a node:vm context whose prototype holds
 * fetch, importScripts and postMessage as WorkerGlobalScope.prototype does, its stack frames named by a blob URL:
 * the code holds no import; the lockdown deletes what lives on the prototype; the script's line N is found at its
 * known line of the blob, so errors name the script's own line and column; printing in a loop comes in batches and
 * stops at the limit. (Chromium itself runs it in the e2e specs.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import { sandboxWorkerCode, scriptRuntimeCode, type CompiledScript } from '../../workers/script/script-compile.ts';
import { OUTPUT_EAGER_MESSAGES, OUTPUT_LIMIT, SCRIPT_SLOT } from '../../workers/script/script-runtime.ts';
import { ScriptHost, type SandboxPort, type ScriptOutput } from '../../workers/script/script-host.ts';
import type { HostMessage, SandboxMessage } from '../../workers/script/script-protocol.ts';
import type { ScriptCalls } from '../../workers/script/script-api.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';

const runtimeCode = scriptRuntimeCode(readFileSync(new URL('../../workers/script/script-runtime.ts', import.meta.url), 'utf8'));
const BLOB_URL = 'blob:http://127.0.0.1:4361/0b5e3a4c-script';

/** The messages a run's sandbox sent, in order. */
const sent: SandboxMessage[] = [];

/**
 * A SandboxStarter that runs the browser sandbox's code in a vm context dressed as a dedicated worker: messages go
 * both ways a macrotask later, as a worker's do. (terminate cannot stop code running in this thread: no spinning
 * scripts here.)
 */
function startWorkerStandIn(script: CompiledScript): SandboxPort {
  const context = vm.createContext({});
  const toRuntime: ((event: { data: unknown }) => void)[] = [];
  const toHost: ((message: SandboxMessage) => void)[] = [];
  let ended = false;
  const workerScope = {
    fetch: () => 'the network',
    importScripts: () => 'a script',
    postMessage: (message: SandboxMessage) =>
      setImmediate(() => {
        sent.push(message);
        if (!ended) for (const listener of toHost) listener(message);
      }),
    addEventListener: (type: string, listener: (event: { data: unknown }) => void) => {
      if (type === 'message') toRuntime.push(listener);
    },
  };
  vm.runInContext(
    `Object.setPrototypeOf(scopePrototype, Object.getPrototypeOf(globalThis));
     Object.setPrototypeOf(globalThis, scopePrototype);
     globalThis.self = globalThis;
     globalThis.location = { href: ${JSON.stringify(BLOB_URL)} };`,
    Object.assign(context, { scopePrototype: workerScope }),
  );
  delete (context as Record<string, unknown>).scopePrototype;
  const { text } = sandboxWorkerCode(runtimeCode, script, SCRIPT_SLOT);
  assert.doesNotMatch(text, /\brequire\(|^\s*import\b/m, 'the worker code loads nothing');
  vm.runInContext(text, context, { filename: BLOB_URL });
  return {
    postMessage: (message: HostMessage) => setImmediate(() => toRuntime.forEach((listener) => listener({ data: message }))),
    onMessage: (listener) => toHost.push(listener),
    onError: () => undefined,
    terminate: () => {
      ended = true;
    },
  };
}

function host(output: ScriptOutput[]): ScriptHost {
  const calls = {
    execute: async (id: string, argument: unknown) => ({ id, argument }),
    'scene.denseWeights': () => new Float64Array([0.25, 0.75, 1, 0]),
    'scene.bone': (name: string) => {
      throw new Error(`scene.bone: no bone named ${name}`);
    },
  } as unknown as ScriptCalls;
  return new ScriptHost({
    calls,
    history: new UndoHistory(),
    startSandbox: startWorkerStandIn,
    commandIds: ['paint.prune'],
    onOutput: (line) => output.push(line),
  });
}

test('the worker code runs the script with rig, takes what lives on the prototype away, and maps lines exactly', async () => {
  const output: ScriptOutput[] = [];
  const scripts = host(output);
  const done = await scripts.run({
    file: 'prune.ts',
    source: `const w: Float64Array = await rig.scene.denseWeights();
print(w.length, w[1], await rig.paint.prune(0.1));
const scope = Object.getPrototypeOf(globalThis);
print('fetch' in scope, 'importScripts' in scope, typeof addEventListener, typeof self, typeof location);`,
  });
  assert.equal(done.status, 'done', JSON.stringify(done));
  assert.deepEqual(
    output.map((line) => line.text),
    ['4 0.75 { id: "paint.prune", argument: 0.1 }', 'false false undefined undefined undefined'],
  );
  for (const [source, message, line, column] of [
    [`print(1);\n\n   throw new Error('third line');`, /^third line$/, 3, 10],
    [`const x = 1;\n  await rig.scene.bone('Nope');`, /no bone named Nope/, 2, 19],
    [`const reply = fetch('https://example.com');`, /^fetch is not available to scripts: they run without the network$/, 1, 15],
    [`globalThis.importScripts('x.js');`, /^importScripts is not available to scripts/, 1, 12],
    [`postMessage({ kind: 'done' });`, /^postMessage is not available to scripts/, 1, 1],
  ] as const) {
    const failed = await scripts.run({ file: 'x.ts', source });
    assert.equal(failed.status, 'failed', source);
    assert.match(failed.error?.message ?? '', message);
    assert.deepEqual([failed.error?.line, failed.error?.column], [line, column], `place of ${JSON.stringify(failed.error)}`);
  }
});

test('printing in a loop comes in batches, in order before the end, and stops at the limit with a line saying so', async () => {
  const output: ScriptOutput[] = [];
  sent.length = 0;
  const result = await host(output).run({ file: 'loud.ts', source: `for (let i = 0; i < ${OUTPUT_LIMIT + 50}; i++) print(i);` });
  assert.equal(result.status, 'done');
  assert.equal(output.length, OUTPUT_LIMIT + 1, 'the limit, then one line about the rest');
  assert.equal(output[OUTPUT_LIMIT - 1].text, String(OUTPUT_LIMIT - 1));
  assert.match(output[OUTPUT_LIMIT].text, /more output left out: a run prints at most 10000 lines/);
  const batches = sent.filter((message) => message.kind === 'output');
  // The stretch's first lines go one per message, the rest in batches of 500.
  const most = OUTPUT_EAGER_MESSAGES + Math.ceil((OUTPUT_LIMIT + 1 - OUTPUT_EAGER_MESSAGES) / 500);
  assert.ok(batches.length <= most, `${batches.length} messages for ${OUTPUT_LIMIT + 1} lines`);
  assert.equal(sent.at(-1)?.kind, 'done', 'the end comes after every line');
});

test('progress reported in a loop is sent at the end of the stretch, the latest report only', async () => {
  const output: ScriptOutput[] = [];
  sent.length = 0;
  const started = performance.now();
  const result = await host(output).run({
    file: 'busy.ts',
    source: `for (let i = 1; i <= 100000; i++) rig.progress(i / 100000, 'step ' + i);\nawait rig.scene.denseWeights();\nrig.progress(0.25);`,
  });
  const elapsed = performance.now() - started;
  assert.equal(result.status, 'done');
  assert.deepEqual(
    output.slice(-2).map((line) => [line.fraction, line.text]),
    [
      [1, 'step 100000'],
      [0.25, ''],
    ],
  );
  const messages = sent.filter((message) => message.kind === 'progress').length;
  assert.ok(messages <= 2 + elapsed / 50, `${messages} messages for 100001 reports in ${elapsed.toFixed(0)} ms`);
});

test('a script busy without yielding still sends its progress every 50 ms or so', async () => {
  const output: ScriptOutput[] = [];
  const result = await host(output).run({
    file: 'busy.ts',
    source: `const start = Date.now();\nlet reports = 0;\nwhile (Date.now() - start < 400) rig.progress((Date.now() - start) / 400, String(++reports));`,
  });
  assert.equal(result.status, 'done');
  const progress = output.filter((line) => line.kind === 'progress');
  assert.ok(progress.length >= 3 && progress.length <= 10, `${progress.length} reports sent over 400 ms`);
  const counts = progress.map((line) => Number(line.text));
  assert.ok(
    counts.every((count, i) => i === 0 || count > counts[i - 1]),
    'in order, each the latest of its time',
  );
});
