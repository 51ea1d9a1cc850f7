/**
 * The messages between a script's sandbox (script-runtime.ts, in a worker) and its host (script-host.ts): the host
 * starts the run, the sandbox asks for calls (`rig.scene.weights()`, `rig.execute(…)`) and the host answers each by
 * its id; output, progress and the run's end go one way. Typed arrays in a call's arguments or result travel as
 * transferables (their buffers moved, not copied), so 1M vertices of weights are one message, never one per vertex.
 */

/** What the sandbox needs to build `rig` before the script runs. */
export interface SandboxInit {
  /** the command ids a script may run: `rig.execute(id, …)`, and one namespace per prefix (`rig.bind.compute`) */
  readonly commandIds: readonly string[];
  /** the script's `args` */
  readonly args: readonly string[];
  /** `rig.apiVersion` */
  readonly apiVersion: string;
}

/** A line a script printed: print and console.log/info/debug are 'log', console.warn/error are 'error'. */
export interface OutputLine {
  readonly level: 'log' | 'error';
  readonly text: string;
}

/** Host → sandbox. */
export type HostMessage =
  /** first: build `rig`, lock the worker down and run the script */
  | { readonly kind: 'start'; readonly init: SandboxInit }
  /** the answer of call `id`: its value, or the message of the error it failed with */
  | { readonly kind: 'reply'; readonly id: number; readonly value?: unknown; readonly error?: string };

/** Sandbox → host. */
export type SandboxMessage =
  /** a call of the API: `method` is `execute` or a ScriptCalls name (`scene.weights`); answered by a reply */
  | { readonly kind: 'call'; readonly id: number; readonly method: string; readonly args: readonly unknown[] }
  /** lines the script printed, in order */
  | { readonly kind: 'output'; readonly lines: readonly OutputLine[] }
  /** `rig.progress(fraction, message)` */
  | { readonly kind: 'progress'; readonly fraction: number; readonly message: string }
  /** the script's promise resolved */
  | { readonly kind: 'done' }
  /** the script threw or rejected: the message, and its line and column in the script when a frame of it says */
  | { readonly kind: 'failed'; readonly message: string; readonly line?: number; readonly column?: number };

/**
 * The buffers of the typed arrays in a value (itself, its array items and its own property values, one level
 * deep: a call's arguments list and a WeightRows are found), each once, for postMessage's transfer list. A typed
 * array that views part of a bigger buffer, or a SharedArrayBuffer, is copied instead (moving the buffer would take
 * more than the array).
 */
export function transferablesOf(value: unknown): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  const add = (item: unknown) => {
    if (!ArrayBuffer.isView(item)) return;
    const { buffer } = item;
    if (buffer instanceof ArrayBuffer && item.byteOffset === 0 && item.byteLength === buffer.byteLength) buffers.add(buffer);
  };
  const visit = (item: unknown, depth: number) => {
    add(item);
    if (depth === 0 || item === null || typeof item !== 'object' || ArrayBuffer.isView(item)) return;
    for (const child of Array.isArray(item) ? item : Object.values(item)) visit(child, depth - 1);
  };
  visit(value, 2);
  return [...buffers];
}
