/**
 * The sandbox side of a script run: what a script sees — `rig` (ScriptGlobals of script-api.ts, `rig.execute` and
 * one namespace per command-id prefix: `rig.bind.compute(arg)` runs `bind.compute`), `print`, `console` and `args` —
 * built over the messages of script-protocol.ts, and the lockdown that takes everything else away (network, storage,
 * other workers, messages to the page, the DOM, Node) before the script's first line runs.
 *
 * This file runs where the script runs, not as a module of the app: the browser sandbox puts its text (types
 * stripped) in the script's worker ahead of the script, and the Node sandbox evaluates it inside the script's
 * `node:vm` context, so that everything the script can reach — `rig` and its functions, the values calls give back —
 * belongs to the script's own realm and leads nowhere else. Hence its rules: no imports but types, nothing from the
 * module scope but what is declared here, every built-in taken from the realm it runs in.
 *
 * Each call is a message `{ id, method, args }` answered by `{ id, value }` or `{ id, error }`; typed arrays travel as
 * transferables both ways (an array a script passes to a call is handed over: it is empty in the script afterwards).
 * An error or a rejection the script does not catch ends the run as failed, with the line and column of the
 * script's own frame that threw (or that made the failing call).
 */
import type { HostMessage, OutputLine, SandboxInit, SandboxMessage } from './script-protocol.ts';

/** How the runtime reaches its host (captured before the lockdown; the script never sees it). */
export interface RuntimeChannel {
  post(message: SandboxMessage, transfer: ArrayBuffer[]): void;
  /** hands over the host's messages, in order */
  listen(handler: (message: HostMessage) => void): void;
  /**
   * where the scope has no timers of its own (a vm context): the host's clock, from which the runtime makes the
   * timers and `performance.now()` a worker has, so a script waits and times itself the same everywhere
   */
  clock?: RuntimeClock;
}

/** A clock of the host realm, used only through numbers and the runtime's own callbacks. */
export interface RuntimeClock {
  /** milliseconds since an arbitrary start */
  now(): number;
  /** calls `run` after `ms` milliseconds; @returns what cancels it */
  schedule(ms: number, run: () => void): () => void;
}

/** Where the runtime runs. */
export interface RuntimeOptions {
  /** what stack frames of the script's own code name as their place: its file name (vm) or the worker's URL */
  readonly scriptLocation: string;
  /** lines at that place before the script's line 1 */
  readonly lineOffset: number;
  /**
   * the host's messages arrive as objects of another realm (Node's vm: the worker's, not the script's context):
   * give what they hold this realm's prototypes so that no object the script gets leads back to the host realm
   */
  readonly adoptMessages: boolean;
}

/** What the place that installed the runtime uses to start the script and to report what the runtime cannot see. */
export interface ScriptRuntime {
  /** runs the script's function once `start` has come (locks the scope down first) */
  run(script: () => Promise<unknown>): void;
  /** ends the run as failed (an error the script left uncaught where the runtime could not catch it) */
  fail(reason: unknown): void;
}

/** Globals taken away from scripts, each with why (the error says "<name> is not available to scripts: <why>"). */
export const LOCKED_GLOBALS: Readonly<Record<string, string>> = {
  fetch: 'they run without the network',
  XMLHttpRequest: 'they run without the network',
  WebSocket: 'they run without the network',
  WebSocketStream: 'they run without the network',
  WebTransport: 'they run without the network',
  EventSource: 'they run without the network',
  importScripts: 'everything they use is on `rig`',
  require: 'everything they use is on `rig`',
  indexedDB: 'they keep no storage of their own (files go through `rig.files`)',
  caches: 'they keep no storage of their own (files go through `rig.files`)',
  webkitRequestFileSystem: 'they keep no storage of their own (files go through `rig.files`)',
  webkitRequestFileSystemSync: 'they keep no storage of their own (files go through `rig.files`)',
  webkitResolveLocalFileSystemURL: 'they keep no storage of their own (files go through `rig.files`)',
  webkitResolveLocalFileSystemSyncURL: 'they keep no storage of their own (files go through `rig.files`)',
  BroadcastChannel: 'they talk to the app only through `rig`',
  Worker: 'they talk to the app only through `rig`',
  SharedWorker: 'they talk to the app only through `rig`',
  postMessage: 'they talk to the app only through `rig`',
  onmessage: 'they talk to the app only through `rig`',
  close: 'a script ends by returning from its last line',
  document: 'they run without the page',
  window: 'they run without the page',
  // the worker's navigator holds the origin's storage (navigator.storage) and locks shared with the page
  navigator: 'they run without the page',
  Notification: 'they run without the page',
  RTCPeerConnection: 'they run without the network',
  process: 'they run without Node (the scene and files are on `rig`)',
  Buffer: 'they run without Node (the scene and files are on `rig`)',
  module: 'everything they use is on `rig`',
};

/** The ScriptCalls a script reaches as `rig.scene.*` and `rig.files.*` (script-api.ts). */
const SCENE_CALLS = [
  'summary',
  'bones',
  'bone',
  'weights',
  'denseWeights',
  'setWeights',
  'handles',
  'setHandles',
  'restPositions',
  'skin',
  'triangles',
  'joints',
  'pose',
  'examples',
  'examplePositions',
] as const;
const FILE_CALLS = ['open', 'saveProject', 'exportGltf'] as const;

/** The most lines a run prints (then one line says the rest was left out), and the most lines one message holds. */
export const OUTPUT_LIMIT = 10_000;
const OUTPUT_BATCH = 500;
/** The longest a printed line or a progress report waits to be sent while the script does not yield, ms. */
const FLUSH_MS = 50;
/**
 * The first messages of lines a synchronous stretch sends at once, one per print: a print just before a loop that
 * never yields reaches the console before Stop ends the worker. Past them the stretch's lines go in batches.
 */
export const OUTPUT_EAGER_MESSAGES = 16;

/** How deep print and console show nested arrays and objects, and how many items of each. */
const PRINT_DEPTH = 3;
const PRINT_ITEMS = 100;

type Scope = Record<string, unknown>;

/**
 * Installs the runtime on `scope` (the worker's global, or the vm context's): the host's messages are heard from
 * now on; `rig`, `print`, `console` and `args` are defined, and LOCKED_GLOBALS taken away, when the host's `start`
 * has come and the script is given (ScriptRuntime.run).
 */
export function installScriptRuntime(scope: object, channel: RuntimeChannel, options: RuntimeOptions): ScriptRuntime {
  const global = scope as Scope;
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void; failure: Error }>();
  let nextId = 1;
  let init: SandboxInit | null = null;
  let script: (() => Promise<unknown>) | null = null;
  let ended = false;

  const send = (message: SandboxMessage, transfer: ArrayBuffer[] = []) => {
    let failure: string | null = null;
    try {
      channel.post(message, transfer);
    } catch (error) {
      failure = messageOf(error);
    }
    // The host realm's error is not handed on (it leads back to that realm): a new one of this realm says the same.
    if (failure !== null) throw new Error(failure);
  };

  // Printed lines go at once while a synchronous stretch has sent few (OUTPUT_EAGER_MESSAGES), then in batches (one
  // message per OUTPUT_BATCH lines, every FLUSH_MS, or at the end of the stretch), at most OUTPUT_LIMIT of them a run: a script printing in a loop must not flood the page with messages.
  const lines: OutputLine[] = [];
  let printed = 0;
  let flushQueued = false;
  // Progress likewise: only the latest report of a stretch is sent, after its lines.
  let progress: SandboxMessage | null = null;
  let flushedAt = dateNow();
  /** messages sent at once in this synchronous stretch (OUTPUT_EAGER_MESSAGES) */
  let eagerSent = 0;
  const flush = () => {
    flushedAt = dateNow();
    if (lines.length > 0) send({ kind: 'output', lines: lines.splice(0) });
    if (progress) send(progress);
    progress = null;
  };
  const endStretch = () => {
    flushQueued = false;
    eagerSent = 0;
    flush();
  };
  /** @param eager  a printed line, which goes at once while the stretch has sent few (progress waits for the stretch) */
  const queueFlush = (eager: boolean) => {
    if (!flushQueued) {
      flushQueued = true;
      void apply(promiseThen, settled, [endStretch]);
    }
    // The stretch's first lines go at once; a script busy for long without yielding still shows its lines and
    // progress every FLUSH_MS.
    const now = eager && eagerSent < OUTPUT_EAGER_MESSAGES;
    if (now || dateNow() - flushedAt >= FLUSH_MS) {
      if (now) eagerSent++;
      flush();
    }
  };
  const write = (level: OutputLine['level'], text: string) => {
    if (ended || printed > OUTPUT_LIMIT) return;
    printed++;
    lines.push(
      printed > OUTPUT_LIMIT
        ? { level: 'error', text: `(more output left out: a run prints at most ${OUTPUT_LIMIT} lines)` }
        : { level, text },
    );
    if (lines.length >= OUTPUT_BATCH) flush();
    else queueFlush(true);
  };
  const report = (fraction: number, message: string) => {
    if (ended) return;
    progress = { kind: 'progress', fraction, message };
    queueFlush(false);
  };
  /** Sends a message after the lines printed before it. */
  const post = (message: SandboxMessage, transfer: ArrayBuffer[] = []) => {
    flush();
    send(message, transfer);
  };

  const end = (message: SandboxMessage) => {
    if (ended) return;
    ended = true;
    post(message);
  };

  const fail = (reason: unknown) => {
    const place = placeOf(reason, options);
    end({ kind: 'failed', message: describeError(reason), ...place });
  };

  const call = (method: string, args: unknown[]): Promise<unknown> => {
    const id = nextId++;
    // Made now, while the script's frame that calls is on the stack: a failed call names the script's line.
    const failure = new Error(method);
    void failure.stack;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject, failure });
      try {
        post({ kind: 'call', id, method, args }, transferablesIn(args));
      } catch (error) {
        pending.delete(id);
        const name = method === 'execute' ? String(args[0]) : method;
        reject(withMessage(failure, `${name}: an argument cannot be sent to the app (${messageOf(error)})`));
      }
    });
  };

  let started = false;
  const start = () => {
    if (!init || !script || started) return;
    started = true;
    const run = script;
    defineGlobals(global, init, call, write, report);
    if (channel.clock && typeof global.setTimeout !== 'function') defineTimers(global, channel.clock);
    lockDown(global);
    let result: Promise<unknown>;
    try {
      result = run.call(undefined);
    } catch (error) {
      fail(error);
      return;
    }
    // The then taken before the script ran: one the script put on Promise.prototype never sees how its run ends.
    void apply(promiseThen, result, [() => end({ kind: 'done' }), (error: unknown) => fail(error)]);
  };

  channel.listen((raw) => {
    const message = (options.adoptMessages ? adopt(raw) : raw) as HostMessage;
    if (message.kind === 'start') {
      init = message.init;
      start();
      return;
    }
    const waiting = pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id);
    if (message.error !== undefined) waiting.reject(withMessage(waiting.failure, message.error));
    else waiting.resolve(message.value);
  });

  return {
    run(given) {
      script = given;
      start();
    },
    fail,
  };
}

/** Defines rig, print, console and args on the scope: calls go as messages, lines and progress to be sent in batches. */
function defineGlobals(
  global: Scope,
  init: SandboxInit,
  call: (method: string, args: unknown[]) => Promise<unknown>,
  write: (level: OutputLine['level'], text: string) => void,
  report: (fraction: number, message: string) => void,
): void {
  const method =
    (name: string) =>
    (...args: unknown[]) =>
      call(name, args);
  const scene: Record<string, unknown> = {};
  for (const name of SCENE_CALLS) scene[name] = method(`scene.${name}`);
  const files: Record<string, unknown> = {};
  for (const name of FILE_CALLS) files[name] = method(`files.${name}`);
  const rig: Record<string, unknown> = {
    apiVersion: init.apiVersion,
    scene: Object.freeze(scene),
    files: Object.freeze(files),
    progress(fraction: unknown, message?: unknown) {
      const text = message === undefined ? '' : typeof message === 'string' ? message : formatValue(message, PRINT_DEPTH, []);
      report(Number(fraction), text);
    },
    execute: (id: unknown, argument?: unknown) => call('execute', [id, argument]),
  };
  const namespaces = new Map<string, Record<string, unknown>>();
  for (const id of init.commandIds) {
    const dot = id.indexOf('.');
    if (dot <= 0) continue;
    const prefix = id.slice(0, dot);
    // A prefix that is a name of ScriptGlobals would hide it (the declaration file refuses such a catalog).
    if (prefix in rig && !namespaces.has(prefix)) continue;
    let namespace = namespaces.get(prefix);
    if (!namespace) {
      namespace = {};
      namespaces.set(prefix, namespace);
      rig[prefix] = namespace;
    }
    namespace[id.slice(dot + 1)] = (argument?: unknown) => call('execute', [id, argument]);
  }
  for (const namespace of namespaces.values()) Object.freeze(namespace);
  const printer =
    (level: OutputLine['level']) =>
    (...values: unknown[]) =>
      write(level, values.map((value) => formatValue(value, PRINT_DEPTH, [])).join(' '));
  const console = Object.freeze({
    log: printer('log'),
    info: printer('log'),
    debug: printer('log'),
    warn: printer('error'),
    error: printer('error'),
  });
  const values: Record<string, unknown> = {
    rig: Object.freeze(rig),
    print: printer('log'),
    console,
    args: Object.freeze([...init.args]),
  };
  for (const [name, value] of Object.entries(values))
    Object.defineProperty(global, name, { value, writable: false, enumerable: true, configurable: false });
}

/**
 * Defines setTimeout, setInterval, their clear functions, queueMicrotask and performance.now on a scope that has
 * none, over the host's clock: the script gets numbers for its timers, never the host's timer objects.
 */
function defineTimers(global: Scope, clock: RuntimeClock): void {
  const cancels = new Map<number, () => void>();
  let nextTimer = 1;
  const start = (repeat: boolean, callback: unknown, delay: unknown, args: unknown[]): number => {
    if (typeof callback !== 'function') throw new TypeError(`${repeat ? 'setInterval' : 'setTimeout'}: the callback is not a function`);
    const id = nextTimer++;
    const ms = Math.max(0, Number(delay) || 0);
    const arm = () => {
      cancels.set(
        id,
        clock.schedule(ms, () => {
          if (repeat) arm();
          else cancels.delete(id);
          (callback as (...values: unknown[]) => void)(...args);
        }),
      );
    };
    arm();
    return id;
  };
  const clear = (id: unknown) => {
    const cancel = cancels.get(Number(id));
    cancels.delete(Number(id));
    cancel?.();
  };
  const timers: Record<string, unknown> = {
    setTimeout: (callback: unknown, delay?: unknown, ...args: unknown[]) => start(false, callback, delay, args),
    setInterval: (callback: unknown, delay?: unknown, ...args: unknown[]) => start(true, callback, delay, args),
    clearTimeout: clear,
    clearInterval: clear,
    queueMicrotask: (callback: unknown) => {
      if (typeof callback !== 'function') throw new TypeError('queueMicrotask: the callback is not a function');
      void Promise.resolve().then(() => (callback as () => void)());
    },
    performance: Object.freeze({ now: () => clock.now() }),
  };
  for (const [name, value] of Object.entries(timers))
    Object.defineProperty(global, name, { value, writable: true, enumerable: false, configurable: true });
}

/**
 * The globals a script keeps besides LOCKED_GLOBALS: ECMAScript's own (what a fresh node:vm context holds) and what
 * the runtime defines. Everything else a browser worker has (structuredClone, TextEncoder, URL, crypto, self,
 * location …) goes, so a script sees the same globals in the app and headless, and no API added to workers later
 * reaches scripts unasked.
 */
const SCRIPT_GLOBALS: ReadonlySet<string> = new Set(
  [
    // ECMAScript
    'Object Function Array Number parseFloat parseInt Infinity NaN undefined Boolean String Symbol Date Promise RegExp',
    'Error AggregateError EvalError RangeError ReferenceError SyntaxError TypeError URIError globalThis JSON Math Intl',
    'ArrayBuffer Uint8Array Int8Array Uint16Array Int16Array Uint32Array Int32Array Float32Array Float64Array',
    'Uint8ClampedArray BigUint64Array BigInt64Array DataView Map BigInt Set WeakMap WeakSet Proxy Reflect',
    'FinalizationRegistry WeakRef decodeURI decodeURIComponent encodeURI encodeURIComponent escape unescape eval',
    'isFinite isNaN SharedArrayBuffer Atomics WebAssembly',
    // the runtime's (the timers and performance: a worker's own, or defineTimers')
    'rig print console args setTimeout setInterval clearTimeout clearInterval queueMicrotask performance',
  ]
    .join(' ')
    .split(' '),
);

/**
 * Takes everything but SCRIPT_GLOBALS away: deleted wherever it lives on the global's prototype chain (a worker's
 * fetch and importScripts live on WorkerGlobalScope.prototype, postMessage on DedicatedWorkerGlobalScope.prototype,
 * addEventListener on EventTarget.prototype). LOCKED_GLOBALS are then defined on the global itself as getters that
 * throw the reason, so `fetch(…)` says why it cannot.
 */
function lockDown(global: Scope): void {
  for (let holder: object | null = global; holder && holder !== Object.prototype; holder = Object.getPrototypeOf(holder) as object | null)
    for (const name of Object.getOwnPropertyNames(holder))
      if (!SCRIPT_GLOBALS.has(name) && Object.getOwnPropertyDescriptor(holder, name)?.configurable) delete (holder as Scope)[name];
  for (const [name, reason] of Object.entries(LOCKED_GLOBALS)) {
    const refuse = () => {
      throw new Error(`${name} is not available to scripts: ${reason}`);
    };
    if (Object.getOwnPropertyDescriptor(global, name)?.configurable === false) continue;
    Object.defineProperty(global, name, { get: refuse, set: refuse, enumerable: false, configurable: false });
  }
}

/** An Error of this realm with `failure`'s stack (the script's frames when the call was made) and a new message. */
function withMessage(failure: Error, message: string): Error {
  const error = new Error(message);
  const frames = (failure.stack ?? '').split('\n').slice(1).join('\n');
  Object.defineProperty(error, 'stack', { value: `Error: ${message}\n${frames}`, writable: true, configurable: true });
  return error;
}

/** What a thrown value says: an Error's message (its name first unless a plain Error), anything else as printed. */
function describeError(reason: unknown): string {
  if (reason instanceof Error || (reason && typeof reason === 'object' && 'message' in reason && 'name' in reason)) {
    const { name, message } = reason;
    return name === 'Error' ? String(message) : `${String(name)}: ${String(message)}`;
  }
  return `uncaught ${formatValue(reason, PRINT_DEPTH, [])}`;
}

function messageOf(error: unknown): string {
  return error && typeof error === 'object' && 'message' in error ? String(error.message) : String(error);
}

/**
 * The line and column of the script's own frame nearest the top of an error's stack: the first frame at
 * `scriptLocation` whose line is past the runtime's own lines (the browser's worker holds both), as the script's
 * 1-based line and column; nothing when no frame is the script's.
 */
function placeOf(reason: unknown, options: RuntimeOptions): { line?: number; column?: number } {
  const stack = reason && typeof reason === 'object' && 'stack' in reason ? String(reason.stack) : '';
  const marker = `${options.scriptLocation}:`;
  for (const frame of stack.split('\n')) {
    let at = frame.indexOf(marker);
    while (at >= 0) {
      const match = /^(\d+):(\d+)/.exec(frame.slice(at + marker.length));
      if (match) {
        const line = Number(match[1]) - options.lineOffset;
        if (line >= 1) return { line, column: Number(match[2]) };
      }
      at = frame.indexOf(marker, at + 1);
    }
  }
  return {};
}

/** The buffers of the whole-buffer typed arrays among a call's arguments and their own values (one level down). */
function transferablesIn(args: readonly unknown[]): ArrayBuffer[] {
  const buffers: ArrayBuffer[] = [];
  const add = (value: unknown) => {
    if (!ArrayBuffer.isView(value)) return;
    const buffer = value.buffer;
    if (Object.prototype.toString.call(buffer) !== '[object ArrayBuffer]') return;
    if (value.byteOffset !== 0 || value.byteLength !== buffer.byteLength || buffers.includes(buffer as ArrayBuffer)) return;
    buffers.push(buffer as ArrayBuffer);
  };
  for (const arg of args) {
    add(arg);
    if (arg && typeof arg === 'object' && !ArrayBuffer.isView(arg) && !Array.isArray(arg))
      for (const value of Object.values(arg)) add(value);
  }
  return buffers;
}

const TYPED_ARRAYS: Record<string, { readonly prototype: object }> = {
  Float64Array,
  Float32Array,
  Int32Array,
  Uint32Array,
  Int16Array,
  Uint16Array,
  Int8Array,
  Uint8Array,
  Uint8ClampedArray,
};

/**
 * The built-ins adopt uses, taken when the runtime is evaluated (before the script runs): a script may replace
 * Object.prototype.toString or Array.prototype's iterator in its realm, and adopt must not hand an object of the host
 * realm to a function of the script's while it works.
 */
const objectToString = Object.getOwnPropertyDescriptor(Object.prototype, 'toString')?.value as (this: unknown) => string;
const { apply } = Reflect;
const dateNow = Date.now;
const promiseThen = Object.getOwnPropertyDescriptor(Promise.prototype, 'then')?.value as Promise<unknown>['then'];
/** A promise already settled: its then runs a callback at the end of the current synchronous stretch. */
const settled = Promise.resolve();
const tagOf = (value: object): string => apply(objectToString, value, []);
const isView = ArrayBuffer.isView.bind(ArrayBuffer);
const { isArray } = Array;
const { keys: ownKeys, setPrototypeOf, hasOwn } = Object;
/** Nesting deeper than any answer of the API: a deeper value is refused rather than followed. */
const ADOPT_DEPTH = 16;

/**
 * A message's value made of this realm's objects: each plain object, array, typed array and buffer it holds gets this
 * realm's prototype (Object, Array, Float64Array, ArrayBuffer …), so no property, constructor or method of it leads to
 * the realm it was read in; nothing is copied (1M vertices of weights cost no more than a few objects). A value of
 * any other kind is refused: a host's answer holds only these and primitives. Each object's kind and links are read
 * while its prototype is still its own realm's, so no getter of the script's can run on it first.
 */
function adopt(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth > ADOPT_DEPTH) throw new Error(`the host sent a value nested deeper than ${ADOPT_DEPTH} levels`);
  const kind = tagOf(value).slice(8, -1);
  if (isView(value)) {
    if (!hasOwn(TYPED_ARRAYS, kind)) throw new Error(`the host sent a ${kind}, which scripts do not receive`);
    const buffer = value.buffer;
    setPrototypeOf(value, TYPED_ARRAYS[kind].prototype);
    adopt(buffer, depth + 1);
  } else if (kind === 'ArrayBuffer') setPrototypeOf(value, ArrayBuffer.prototype);
  else if (isArray(value)) {
    setPrototypeOf(value, Array.prototype);
    for (let i = 0; i < value.length; i++) adopt(value[i], depth + 1);
  } else if (kind === 'Object') {
    const names = ownKeys(value);
    setPrototypeOf(value, Object.prototype);
    for (let i = 0; i < names.length; i++) adopt((value as Record<string, unknown>)[names[i]], depth + 1);
  } else throw new Error(`the host sent a ${kind}, which scripts do not receive`);
  return value;
}

/** A value as print shows it: strings as they are at the top, other values much as a browser console does. */
function formatValue(value: unknown, depth: number, seen: object[], nested = false): string {
  if (typeof value === 'string') return nested ? JSON.stringify(value) : value;
  if (typeof value === 'function') return `[Function ${value.name || '(anonymous)'}]`;
  if (typeof value === 'symbol' || typeof value === 'bigint') return typeof value === 'bigint' ? `${value}n` : value.toString();
  if (value === null || typeof value !== 'object') return String(value);
  if (value instanceof Error) return value.stack ?? `${value.name}: ${value.message}`;
  if (seen.includes(value)) return '[Circular]';
  const kind = Object.prototype.toString.call(value).slice(8, -1);
  if (ArrayBuffer.isView(value) && kind in TYPED_ARRAYS) {
    const array = value as unknown as ArrayLike<number>;
    const shown = Array.from({ length: Math.min(array.length, PRINT_ITEMS) }, (_, i) => String(array[i]));
    if (array.length > PRINT_ITEMS) shown.push(`… ${array.length - PRINT_ITEMS} more`);
    return `${kind}(${array.length}) [${shown.join(', ')}]`;
  }
  if (depth === 0) return Array.isArray(value) ? '[Array]' : '[Object]';
  const inner = [...seen, value];
  if (Array.isArray(value)) {
    const shown = value.slice(0, PRINT_ITEMS).map((item: unknown) => formatValue(item, depth - 1, inner, true));
    if (value.length > PRINT_ITEMS) shown.push(`… ${value.length - PRINT_ITEMS} more`);
    return `[${shown.join(', ')}]`;
  }
  const entries = Object.entries(value);
  const shown = entries.slice(0, PRINT_ITEMS).map(([key, item]) => `${key}: ${formatValue(item, depth - 1, inner, true)}`);
  if (entries.length > PRINT_ITEMS) shown.push(`… ${entries.length - PRINT_ITEMS} more`);
  return shown.length ? `{ ${shown.join(', ')} }` : '{}';
}

/** The global property the browser sandbox's worker hands the script's function to the runtime by (once). */
export const SCRIPT_SLOT = '__rigwrightScript';

/** What the runtime uses of a dedicated worker's global. */
interface WorkerScope {
  postMessage(message: unknown, transfer: Transferable[]): void;
  addEventListener(
    type: string,
    listener: (event: { data?: unknown; error?: unknown; message?: unknown; reason?: unknown; preventDefault(): void }) => void,
  ): void;
  readonly location: { readonly href: string };
}

/**
 * Starts the runtime in a dedicated worker (the browser sandbox): the worker's own postMessage and message events
 * are captured for the channel before the lockdown takes them away; uncaught errors and rejections end the run; the
 * script's function, assigned to SCRIPT_SLOT by the worker's next statement, is taken once and run.
 * @param lineOffset  lines of the worker's code before the script's line 1
 */
export function startWorkerRuntime(scope: object, lineOffset: number): void {
  const worker = scope as WorkerScope;
  const postMessage = worker.postMessage.bind(worker);
  const addEventListener = worker.addEventListener.bind(worker);
  const runtime = installScriptRuntime(
    scope,
    {
      post: (message, transfer) => postMessage(message, transfer),
      listen: (handler) => addEventListener('message', (event) => handler(event.data as HostMessage)),
    },
    { scriptLocation: worker.location.href, lineOffset, adoptMessages: false },
  );
  addEventListener('error', (event) => {
    event.preventDefault();
    runtime.fail(event.error ?? event.message);
  });
  addEventListener('unhandledrejection', (event) => {
    event.preventDefault();
    runtime.fail(event.reason);
  });
  Object.defineProperty(scope, SCRIPT_SLOT, {
    configurable: true,
    set(script: () => Promise<unknown>) {
      delete (scope as Scope)[SCRIPT_SLOT];
      runtime.run(script);
    },
  });
}
