/**
 * Script runs in the Node sandbox (a worker with a node:vm context) through the ScriptHost: output, calls and typed
 * arrays both ways; the time limit and Stop end a script that never yields while the host's own event loop keeps
 * running; what scripts may not reach fails with a message that says why; errors name the script's line and column;
 * a run is one undo step, and a run that fails, stops or times out leaves a real SceneStore bit for bit as before.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nodeSandboxWith, startNodeSandbox } from '../../app/cli/script/node-sandbox.ts';
import { ScriptHost, type ScriptOutput, type ScriptRunOptions, type ScriptRunResult } from '../../workers/script/script-host.ts';
import { IMPORT_REFUSED, compileScript, ScriptCompileError, sourceColumn } from '../../workers/script/script-compile.ts';
import { LOCKED_GLOBALS } from '../../workers/script/script-runtime.ts';
import { SCRIPT_API_VERSION, type ScriptCalls, type WeightRows } from '../../workers/script/script-api.ts';
import { UndoHistory } from '../../workers/scene/undo-history.ts';
import { SceneStore } from '../../workers/scene/scene-store.ts';
import { boneCountOf, demoDocument, vertexCountOf } from '../../workers/scene/scene-document.ts';

/** What the fake calls saw. */
interface CallLog {
  executed: { id: string; argument: unknown }[];
  received: unknown[];
}

/**
 * ScriptCalls on a real SceneStore, just enough for these tests: reads give fresh arrays, writes are store edits
 * (copies of what came), `execute` runs two made-up commands, one of which edits the scene and one that waits.
 */
function storeCalls(store: SceneStore, log: CallLog): ScriptCalls {
  const notHere = (name: string) => () => {
    throw new Error(`${name} is not answered by this test`);
  };
  return {
    execute: async (id, argument) => {
      log.executed.push({ id, argument });
      if (id === 'test.scaleRow') {
        const { vertex, factor } = argument as { vertex: number; factor: number };
        const { rows, cols, data } = store.doc.weights;
        const next = data.slice();
        for (let b = 0; b < cols; b++) next[vertex * cols + b] *= factor;
        store.edit('Scale row', { weights: { rows, cols, data: next } });
        return { scaled: vertex };
      }
      if (id === 'test.slow') {
        await new Promise((resolve) => setTimeout(resolve, (argument as { ms: number }).ms));
        store.edit('Slow edit', { handles: new Int32Array(vertexCountOf(store.doc)).fill(0), handlesFile: 'slow' });
        return 'slow done';
      }
      if (id === 'test.kept') return { weights: store.doc.weights.data };
      if (id === 'test.unsendable') return { callback: () => 1 };
      throw new Error(`${id}: no such command in this test`);
    },
    'scene.summary': () => ({
      name: store.doc.name,
      vertexCount: vertexCountOf(store.doc),
      triangleCount: store.doc.mesh.triangles.length / 3,
      boneCount: boneCountOf(store.doc),
      meshes: [],
      clips: [],
      weightsSource: store.doc.weightsSource,
      handleCount: 0,
    }),
    'scene.bones': notHere('scene.bones'),
    'scene.bone': (name) => {
      throw new Error(`scene.bone: the skeleton has no bone named ${JSON.stringify(name)}`);
    },
    'scene.weights': (): WeightRows => {
      const { rows, cols, data } = store.doc.weights;
      return {
        vertexCount: rows,
        boneCount: cols,
        influences: cols,
        bones: new Int32Array(rows * cols).map((_, i) => i % cols),
        values: data.slice(),
      };
    },
    'scene.denseWeights': () => store.doc.weights.data.slice(),
    'scene.setWeights': (weights) => {
      log.received.push(weights);
      const { rows, cols } = store.doc.weights;
      store.edit('Set weights', { weights: { rows, cols, data: (weights as Float64Array).slice() } });
    },
    'scene.handles': notHere('scene.handles'),
    'scene.setHandles': (handles) => {
      log.received.push(handles);
      store.edit('Set handles', { handles: handles.slice(), handlesFile: 'script' });
    },
    'scene.restPositions': () => store.doc.mesh.positions.slice(),
    'scene.skin': notHere('scene.skin'),
    'scene.triangles': notHere('scene.triangles'),
    'scene.joints': notHere('scene.joints'),
    'scene.pose': notHere('scene.pose'),
    'scene.examples': notHere('scene.examples'),
    'scene.examplePositions': notHere('scene.examplePositions'),
    'files.open': notHere('files.open'),
    'files.saveProject': notHere('files.saveProject'),
    'files.exportGltf': notHere('files.exportGltf'),
  };
}

function setup(commandIds: readonly string[] = ['test.scaleRow', 'test.slow', 'test.kept', 'test.unsendable']) {
  const history = new UndoHistory();
  const store = new SceneStore(demoDocument(), history);
  const log: CallLog = { executed: [], received: [] };
  const output: ScriptOutput[] = [];
  const host = new ScriptHost({
    calls: storeCalls(store, log),
    history,
    startSandbox: startNodeSandbox,
    commandIds,
    onOutput: (line) => output.push(line),
  });
  const run = (source: string, options: Partial<ScriptRunOptions> = {}) => host.run({ file: 'scripts/test-script.ts', source, ...options });
  return { history, store, log, output, host, run };
}

/** Asserts two arrays hold the same values element by element (Object.is: -0 and NaN count). */
function assertSameBits(actual: ArrayLike<number>, expected: ArrayLike<number>, what: string): void {
  assert.equal(actual.length, expected.length, `${what}: length`);
  for (let i = 0; i < expected.length; i++)
    if (!Object.is(actual[i], expected[i])) assert.fail(`${what}[${i}]: ${actual[i]} is not ${expected[i]}`);
}

/** Waits (polling every 10 ms, at most 10 s: the machine may be busy) until `ready` holds. */
async function until(ready: () => boolean, what: string): Promise<void> {
  const deadline = performance.now() + 10_000;
  while (!ready()) {
    if (performance.now() > deadline) assert.fail(`waited 10 s in vain: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function assertFailed(result: ScriptRunResult, message: RegExp, line?: number, column?: number): void {
  assert.equal(result.status, 'failed', `the run fails: ${JSON.stringify(result)}`);
  assert.match(result.error?.message ?? '', message);
  assert.equal(result.error?.file, 'scripts/test-script.ts', 'the error names the script file');
  if (line !== undefined) assert.equal(result.error?.line, line, `line of ${JSON.stringify(result.error)}`);
  if (column !== undefined) assert.equal(result.error?.column, column, `column of ${JSON.stringify(result.error)}`);
  assert.equal(result.changed, false, 'a failed run makes no undo step');
}

test('a script prints, runs commands and scene calls, and gets typed arrays back; the run is one undo step', async () => {
  const { history, store, log, output, run } = setup();
  const before = store.doc.weights.data.slice();
  const cols = store.doc.weights.cols;
  const result = await run(
    `const summary = await rig.scene.summary();
print('vertices', summary.vertexCount, { bones: summary.boneCount });
console.warn('careful');
const dense: Float64Array = await rig.scene.denseWeights();
print(dense instanceof Float64Array, dense.length === summary.vertexCount * summary.boneCount);
const rows = await rig.scene.weights();
print(rows.bones instanceof Int32Array, rows.values[0] === dense[0]);
const answer = await rig.test.scaleRow({ vertex: 2, factor: 0.5 });
print(JSON.stringify(answer), await rig.execute('test.scaleRow', { vertex: 3, factor: 2 }) !== undefined);
const after = await rig.scene.denseWeights();
after[0] = 0.25;
await rig.scene.setWeights(after);
print('after setWeights', after.length, args.join(','), rig.apiVersion);
rig.progress(0.5, 'half way');
`,
    { args: ['a', 'b'] },
  );
  assert.equal(result.status, 'done', JSON.stringify(result));
  assert.equal(result.changed, true);
  assert.deepEqual(
    output.filter((line) => line.kind !== 'progress').map((line) => [line.kind, line.text]),
    [
      ['log', `vertices ${vertexCountOf(store.doc)} { bones: ${boneCountOf(store.doc)} }`],
      ['error', 'careful'],
      ['log', 'true true'],
      ['log', 'true true'],
      ['log', '{"scaled":2} true'],
      ['log', `after setWeights 0 a,b ${SCRIPT_API_VERSION}`],
    ],
    'print and console lines, in order; the array given to setWeights is handed over (empty in the script afterwards)',
  );
  assert.deepEqual(output.at(-1), { kind: 'progress', text: 'half way', fraction: 0.5 });
  assert.deepEqual(
    log.executed.map((call) => call.id),
    ['test.scaleRow', 'test.scaleRow'],
    'the namespace method and rig.execute both run the command',
  );
  assert.ok(log.received[0] instanceof Float64Array, 'setWeights got a Float64Array on the host side');
  assert.deepEqual(history.undoLabels(), ['Script: test-script.ts'], 'three edits, one step named after the file');
  const expected = before.slice();
  for (let b = 0; b < cols; b++) expected[2 * cols + b] *= 0.5;
  for (let b = 0; b < cols; b++) expected[3 * cols + b] *= 2;
  expected[0] = 0.25;
  assertSameBits(store.doc.weights.data, expected, 'weights after the run');
  history.undo();
  assertSameBits(store.doc.weights.data, before, 'weights after one undo');
});

test('a script that throws after editing is rolled back bit for bit and names its line and column', async () => {
  const { history, store, run } = setup();
  const before = store.doc;
  const weights = before.weights.data.slice();
  const result = await run(`await rig.test.scaleRow({ vertex: 1, factor: 3 });
await rig.scene.setHandles(new Int32Array(${vertexCountOf(before)}).fill(1));
  throw new Error('stop here');
`);
  assertFailed(result, /^stop here$/, 3, 9);
  assert.equal(store.doc.weights, before.weights, 'the weights field is the one before the run');
  assert.equal(store.doc.handles, before.handles, 'the handles field is the one before the run');
  assertSameBits(store.doc.weights.data, weights, 'weights after a failed run');
  assert.equal(history.canUndo, false, 'a failed run leaves no step');
  assert.equal(history.canRedo, false);
});

test('a failed call rejects in the script with the host’s reason, at the line that made it', async () => {
  const { run } = setup();
  assertFailed(await run(`const x = 1;\nawait rig.scene.bone('Nope');\n`), /no bone named "Nope"/, 2, 17);
  assertFailed(await run(`await rig.execute('file.save', {});`), /file\.save is not a command scripts can run/, 1);
  const caught = await run(`try { await rig.scene.bone('x') } catch (e) { print('caught', e instanceof Error, e.message) }`);
  assert.equal(caught.status, 'done', 'a script may catch a failed call');
});

test('while (true) {} ends at the time limit and at stop() within a second; the host’s event loop keeps running', async () => {
  for (const how of ['time limit', 'stop'] as const) {
    const { history, store, run, host } = setup();
    const weights = store.doc.weights.data.slice();
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 20);
    const started = performance.now();
    const running = run(`await rig.test.scaleRow({ vertex: 0, factor: 9 });\nwhile (true) {}\n`, {
      timeLimitMs: how === 'time limit' ? 600 : 0,
    });
    let stoppedAt = 0;
    if (how === 'stop') {
      await new Promise((resolve) => setTimeout(resolve, 600));
      assert.equal(host.running, true, 'the script still runs before stop()');
      stoppedAt = performance.now();
      host.stop();
    }
    const result = await running;
    const ended = performance.now();
    clearInterval(ticker);
    assert.equal(result.status, how === 'stop' ? 'stopped' : 'timed-out', JSON.stringify(result));
    assert.ok(ended - (how === 'stop' ? stoppedAt : started + 600) < 1000, `${how}: ended ${(ended - started).toFixed(0)} ms after start`);
    assert.ok(ticks >= 5, `${how}: the host's timer fired ${ticks} times while the script spun (a blocked loop: none)`);
    assert.equal(host.running, false);
    assertSameBits(store.doc.weights.data, weights, `${how}: weights`);
    assert.equal(history.canUndo, false, `${how}: no step`);
  }
});

test('lines printed just before a loop that never yields reach the console before Stop ends the worker', async () => {
  const { run, host, output } = setup();
  const running = run(`print('before the loop');\nconsole.warn('still before');\nwhile (true) {}\n`, { timeLimitMs: 0 });
  // The worker never yields after the prints: the lines must have been sent as they were printed.
  await until(() => output.length >= 2, 'the two lines printed before the loop');
  host.stop();
  assert.equal((await running).status, 'stopped');
  assert.deepEqual(
    output.map((line) => [line.kind, line.text]),
    [
      ['log', 'before the loop'],
      ['error', 'still before'],
    ],
  );
});

test('a stop while a command runs lets it finish, then rolls it back', async () => {
  const { history, store, run, host, log } = setup();
  const before = store.doc;
  const running = run(`await rig.test.slow({ ms: 400 });\nprint('not reached');\n`);
  await until(() => log.executed.length === 1, 'the command has started');
  host.stop();
  const result = await running;
  assert.equal(result.status, 'stopped');
  assert.equal(store.doc.handles, before.handles, 'the command’s edit, made after the stop, is rolled back');
  assert.equal(history.canUndo, false);
});

test('what scripts may not reach fails with a message that says why', async () => {
  const { run } = setup();
  const cases: [string, RegExp][] = [
    [`await fetch('http://127.0.0.1');`, /^fetch is not available to scripts: they run without the network$/],
    [`new XMLHttpRequest();`, /^XMLHttpRequest is not available to scripts: they run without the network$/],
    [`process.exit(3);`, /^process is not available to scripts: they run without Node/],
    [`document.title = 'x';`, /^document is not available to scripts: they run without the page$/],
    [`print(window);`, /^window is not available to scripts: they run without the page$/],
    [`importScripts('x.js');`, /^importScripts is not available to scripts: everything they use is on `rig`$/],
    [`const f = require;`, /^require is not available to scripts/],
    [`globalThis.postMessage('x');`, /^postMessage is not available to scripts: they talk to the app only through `rig`$/],
    [`new Function('return 1')();`, /^EvalError: Code generation from strings disallowed/],
    [`eval('1');`, /^EvalError: Code generation from strings disallowed/],
  ];
  for (const [source, message] of cases) assertFailed(await run(source), message, 1);
  assert.equal(Object.keys(LOCKED_GLOBALS).length >= 12, true, 'the lockdown list is the one the runtime applies');
});

test('imports are refused before anything runs, naming the line and column', async () => {
  const { run, log } = setup();
  assertFailed(await run(`print(1);\nconst fs = require('node:fs');`), new RegExp(`^${IMPORT_REFUSED.replace(/[`.]/g, '\\$&')}$`), 2, 12);
  assertFailed(await run(`print(1);\n  const m = await import('node:fs');`), /cannot import modules/, 2, 19);
  assertFailed(await run(`import fs from 'node:fs';`), /cannot import modules/, 1, 1);
  assertFailed(await run(`const a = 1;\nexport { a };`), /cannot import modules/, 2, 1);
  assert.equal(log.executed.length, 0);
  // Words in strings, comments and member names are not imports.
  const fine = await run(
    `// import x from 'y'\nconst s = 'require(1) import(2)';\nconst o = { require: (x: number) => x };\nprint(o.require(4), \`import \${s.length}\`);`,
  );
  assert.equal(fine.status, 'done', JSON.stringify(fine));
});

test('syntax errors name their line and column, from sucrase and from the engine', async () => {
  const { run } = setup();
  assertFailed(await run(`const a = 1;\nconst b = ;\n`), /^syntax error: Unexpected token$/, 2, 11);
  assertFailed(await run(`let a = 1;\nlet a = 2;\n`), /SyntaxError: Identifier 'a' has already been declared/, 2, 5);
  assert.throws(
    () => compileScript('const x: number = ;', 'a/b.ts'),
    (error: unknown) => error instanceof ScriptCompileError && error.message === 'a/b.ts:1:19: syntax error: Unexpected token',
  );
});

test('an empty script is done and changes nothing; a second run while one runs is refused', async () => {
  const { history, run, host } = setup();
  const empty = await run('');
  assert.equal(empty.status, 'done', JSON.stringify(empty));
  assert.equal(empty.changed, false);
  assert.equal(history.canUndo, false);
  const first = run(`while (true) {}`, { timeLimitMs: 0 });
  const second = await host.run({ file: 'other.ts', source: 'print(1)' });
  assert.equal(second.status, 'failed');
  assert.match(second.error?.message ?? '', /other\.ts was not run: the script scripts\/test-script\.ts is running \(stop it first\)/);
  host.stop();
  assert.equal((await first).status, 'stopped');
});

test('an uncaught rejection the script does not await ends the run as failed', async () => {
  const { run } = setup();
  const result = await run(`Promise.reject(new TypeError('lost'));\nawait rig.test.slow({ ms: 200 });\n`);
  assertFailed(result, /^TypeError: lost$/, 1);
});

test('the script’s realm leads nowhere: rig and the values calls give back hold no function of the host realm', async () => {
  const { run, output } = setup();
  const result = await run(`
const dense = await rig.scene.denseWeights();
const rows = await rig.scene.weights();
const summary = await rig.scene.summary();
const probes = [rig, rig.scene.summary, dense, dense.buffer, summary, summary.meshes, rows, rows.bones, rows.values.buffer, print, console.log, setTimeout, performance.now, setTimeout(() => 0, 0)];
if (!(rows.values instanceof Float64Array) || !(summary.meshes instanceof Array) || !(rows.bones.buffer instanceof ArrayBuffer)) throw new Error('not of this realm');
print(rows.values.slice(0, 2) instanceof Float64Array, rows.bones.subarray(1).length === rows.bones.length - 1);
// Every object leads, through its constructor's constructor, to this realm's Function (and code from strings is
// refused here), never to the Function of the worker that hosts the context.
for (const probe of probes) if ((probe as any).constructor.constructor !== Function) throw new Error('escaped');
try {
  (rig as any).constructor.constructor('return 1')();
  throw new Error('escaped');
} catch (error) {
  if ((error as Error).message === 'escaped') throw error;
}
print('contained');
`);
  assert.equal(result.status, 'done', JSON.stringify(result));
  assert.deepEqual(
    output.map((line) => line.text),
    ['true true', 'contained'],
  );
});

test('timers and performance.now work in the Node sandbox as in a worker; a throw in a timer fails the run at its line', async () => {
  const { run, output } = setup();
  const timed = await run(`const t0 = performance.now();
const order: string[] = [];
await new Promise((resolve) => setTimeout((a: string) => { order.push(a); resolve(0); }, 30, 'timeout'));
let ticks = 0;
await new Promise((resolve) => { const id = setInterval(() => { if (++ticks === 3) { clearInterval(id); resolve(0); } }, 5); });
const cancelled = setTimeout(() => order.push('cancelled'), 1);
clearTimeout(cancelled);
queueMicrotask(() => order.push('microtask'));
await new Promise((resolve) => setTimeout(resolve, 20));
print(order.join(','), ticks, performance.now() - t0 >= 30);
`);
  assert.equal(timed.status, 'done', JSON.stringify(timed));
  assert.deepEqual(
    output.map((line) => line.text),
    ['timeout,microtask 3 true'],
  );
  assertFailed(
    await run(`setTimeout(() => {\n  throw new RangeError('late');\n}, 5);\nawait new Promise((r) => setTimeout(r, 200));`),
    /^RangeError: late$/,
    2,
    9,
  );
});

test('a script that replaces built-ins of its realm before a call still gets nothing of the host realm', async () => {
  const { run } = setup();
  const result = await run(`
const caught: unknown[] = [];
// What a replaced built-in sees, taken at once (the value's constructor as it is while the built-in runs).
const keep = (value: unknown) => void caught.push(value, (value as any)?.constructor);
const tagOf = Object.prototype.toString;
Object.prototype.toString = function (this: unknown) { keep(this); return tagOf.call(this); };
Object.defineProperty(Object.prototype, Symbol.toStringTag, { get() { keep(this); return undefined; }, configurable: true });
Object.defineProperty(Object.getPrototypeOf(Float64Array.prototype), 'buffer', { get() { keep(this); return undefined; } });
const add = Set.prototype.add;
Set.prototype.add = function (this: Set<unknown>, value: unknown) { keep(value); return add.call(this, value); };
Object.keys = (value: object) => { keep(value); return []; };
const dense = await rig.scene.denseWeights();
const rows = await rig.scene.weights();
for (const value of [...caught, dense, rows, rows.values])
  if (value != null && (value as any).constructor.constructor !== Function) throw new Error('escaped');
print(caught.length, rows.values.length === dense.length);
`);
  assert.equal(result.status, 'done', JSON.stringify(result));
});

test('a command’s result is copied to the script, never moved: arrays the scene keeps stay whole', async () => {
  const { store, run, output } = setup();
  const kept = store.doc.weights.data;
  const length = kept.length;
  const result = await run(
    `const { weights } = await rig.test.kept();\nweights[0] = 42;\nprint(weights.length, weights[1] === ${kept[1]});`,
  );
  assert.equal(result.status, 'done', JSON.stringify(result));
  assert.deepEqual(
    output.map((line) => line.text),
    [`${length} true`],
  );
  assert.equal(store.doc.weights.data, kept);
  assert.equal(kept.length, length, 'the document’s array is not detached');
  assert.notEqual(kept[0], 42, 'the script changed its copy only');
  const unsendable = await run(`await rig.test.unsendable();`);
  assertFailed(unsendable, /^test\.unsendable: its result cannot be sent to the script \(.*could not be cloned/, 1, 16);
});

test('a script that replaces Promise.prototype.then still ends, its lines printed', async () => {
  const { run, output } = setup();
  const result = await run(`print('before');\nPromise.prototype.then = function () { return this; } as any;\nprint('after');\n`);
  assert.equal(result.status, 'done', JSON.stringify(result));
  assert.deepEqual(
    output.map((line) => line.text),
    ['before', 'after'],
  );
});

test('a script sees ECMAScript’s globals and the runtime’s, nothing else: the same set headless as in a worker', async () => {
  const { run, output } = setup();
  const result = await run(`print(Object.getOwnPropertyNames(globalThis).filter((name) => {
  try {
    return (globalThis as any)[name] !== undefined || name === 'undefined';
  } catch {
    return false;
  }
}).sort().join(' '));`);
  assert.equal(result.status, 'done', JSON.stringify(result));
  const names = output[0].text.split(' ');
  for (const name of ['rig', 'print', 'console', 'args', 'setTimeout', 'performance', 'Float64Array', 'JSON', 'Math'])
    assert.ok(names.includes(name), `${name} is there`);
  for (const name of ['fetch', 'process', 'require', 'document', 'structuredClone', 'self'])
    assert.ok(!names.includes(name), `${name} is not (or throws)`);
});

test('errors after type syntax on the same line name the script’s own column, not the compiled line’s', async () => {
  const { run } = setup();
  const typed = 'const a: Record<string, number> = {} as Record<string, number>; ';
  // Each failing place is found in the script's text by hand: the column is where that text starts, 1-based.
  const cases: [string, string, RegExp][] = [
    [`${typed}throw new Error('typed');`, 'new Error', /^typed$/],
    [`${typed}const t: string[] = []; await rig.scene.bone('Nope' as string);`, "bone('Nope'", /no bone named "Nope"/],
    [`${typed}const q = (a as any).b.c;`, '.c;', /^TypeError: Cannot read properties of undefined \(reading 'c'\)$/],
  ];
  for (const [source, place, message] of cases) {
    const at = source.indexOf(place);
    assert.ok(at > typed.length, `the place ${place} is after the types`);
    // V8 names `new Error` at `new`, a call at its name, a property read at the name read (after the dot).
    const expected = place === '.c;' ? at + 2 : at + 1;
    assertFailed(await run(`print(1);\n${source}\n`), message, 2, expected);
  }
});

test('sourceColumn follows the character through types taken out, names and commas inside types included', () => {
  const source = 'function f(a: Map<string, number>, b: number): void { g<T>(b) }';
  const compiled = compileScript(source, 'x.ts');
  const code = compiled.code.split('\n')[compiled.lineOffset];
  assert.equal(code, 'function f(a, b) { g(b) }', 'sucrase takes the types out of the line');
  // Each character of the compiled line lands where the script has it: after `Map<string, number>`'s comma, on the
  // parameter `b` (not the b of `number`), on the call's `(` (not the one of `Map<`).
  const expected: [string, number][] = [
    [',', source.indexOf(', b')],
    ['b', source.indexOf('b:')],
    ['g', source.indexOf('g<')],
    ['(b)', source.indexOf('(b)')],
    ['}', source.lastIndexOf('}')],
  ];
  for (const [text, at] of expected) assert.equal(sourceColumn(source, compiled, 1, code.indexOf(text) + 1), at + 1, text);
  assert.equal(sourceColumn('const x = 1;', compileScript('const x = 1;', 'y.ts'), 1, 7), 7, 'a line without types keeps its columns');
});

test('a script that allocates without end fails at its heap limit with a clear message; the host goes on and the scene is as before', async () => {
  const history = new UndoHistory();
  const store = new SceneStore(demoDocument(), history);
  const before = store.doc.weights.data.slice();
  const host = new ScriptHost({
    calls: storeCalls(store, { executed: [], received: [] }),
    history,
    startSandbox: nodeSandboxWith({ maxOldGenerationSizeMb: 32 }),
    commandIds: ['test.scaleRow'],
  });
  const source = `await rig.test.scaleRow({ vertex: 0, factor: 2 });
const kept: number[][] = [];
while (true) kept.push(new Array(100_000).fill(kept.length));
`;
  const result = await host.run({ file: 'scripts/hog.ts', source, timeLimitMs: 60_000 });
  assert.equal(result.status, 'failed', JSON.stringify(result));
  assert.equal(
    result.error?.message,
    'the script ran out of memory: its heap reached the limit of 32 MB, and the script was ended',
    'the message says what happened',
  );
  assert.equal(result.error?.file, 'scripts/hog.ts');
  assertSameBits(store.doc.weights.data, before, 'weights after the run that ran out of memory');
  assert.equal(history.canUndo, false, 'the failed run leaves no step');
  const next = await host.run({ file: 'scripts/after.ts', source: 'print(1)' });
  assert.equal(next.status, 'done', 'the host runs the next script');
});
