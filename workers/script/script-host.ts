/**
 * The host side of a script run, the same in the app and the CLI: compiles the script (script-compile.ts), starts
 * its sandbox (a worker the caller provides: the browser's or Node's), answers the sandbox's calls with ScriptCalls
 * (script-api.ts) on the scene, forwards what the script prints, and makes the whole run one undo step
 * `Script: <file's base name>` (an open history group). A run that fails, is stopped or reaches its time limit ends
 * its worker at once — the host's own thread never waits on the script — asks a call still running to cancel
 * (`cancelCall`: a long command, a question), lets it finish and rolls everything back, so the scene is bit for bit
 * as before the run.
 */
import { baseName } from '../formats/file-name.ts';
import type { UndoHistory } from '../scene/undo-history.ts';
import type { ScriptCallName, ScriptCalls } from './script-api.ts';
import { SCRIPT_API_VERSION } from './script-api.ts';
import { compileScript, ScriptCompileError, sourceColumn, type CompiledScript, type ScriptError } from './script-compile.ts';
import { transferablesOf, type HostMessage, type SandboxMessage } from './script-protocol.ts';

export type { CompiledScript, ScriptError } from './script-compile.ts';

/** A line of a run's console: what the script printed (`log`, or `error` for console.warn/error), or its progress. */
export interface ScriptOutput {
  kind: 'log' | 'error' | 'progress';
  text: string;
  /** 1-based line in the script, when the line is about a place in it */
  line?: number;
  column?: number;
  /** progress: 0 … 1, as the script reported it */
  fraction?: number;
}

/** How a run ended. */
export type ScriptStatus = 'done' | 'failed' | 'stopped' | 'timed-out';

export interface ScriptRunResult {
  status: ScriptStatus;
  /** why a failed run failed (a syntax error, an import, what the script threw) */
  error?: ScriptError;
  /** from run() to the result, rollback included, in milliseconds */
  durationMs: number;
  /** an undo step was made */
  changed: boolean;
  /**
   * the run opened a scene (`rig.files.open`), which cleared the undo history and the run's step with it: the scene it
   * opened stays, even when the run failed or was stopped afterwards (only its edits after the open are rolled back)
   */
  openedScene?: true;
}

export interface ScriptRunOptions {
  /** the script's file name: errors name it and the undo step is `Script: <its base name>` */
  file: string;
  /** the script's TypeScript */
  source: string;
  /** the script's `args` */
  args?: readonly string[];
  /** ms, default SCRIPT_TIME_LIMIT_DEFAULT_MS; 0 = none */
  timeLimitMs?: number;
}

/** The time limit of a run that names none, in milliseconds. */
export const SCRIPT_TIME_LIMIT_DEFAULT_MS = 30_000;

/** Where the sandbox failed outside what the script itself reports (its code did not load, the worker crashed). */
export interface SandboxFailure {
  message: string;
  /** 1-based line and column in the script, when the failure is at a place of it (a syntax error the engine found) */
  line?: number;
  column?: number;
}

/** A running sandbox as the host sees it: a worker that runs script-runtime.ts and then the compiled script. */
export interface SandboxPort {
  /** sends a message to the runtime; `transfer`: buffers moved with it */
  postMessage(message: HostMessage, transfer?: ArrayBuffer[]): void;
  /** the runtime's messages, in order */
  onMessage(listener: (message: SandboxMessage) => void): void;
  onError(listener: (failure: SandboxFailure) => void): void;
  /** ends the worker at once, whatever it is doing (a `while (true) {}` included) */
  terminate(): void;
}

/** Starts a sandbox for a compiled script; the host sends it `start` (script-protocol.ts) first. */
export type SandboxStarter = (script: CompiledScript) => SandboxPort;

export interface ScriptHostDeps {
  /** what the sandbox's calls are answered with */
  calls: ScriptCalls;
  /** the scene's history: a run is one group in it */
  history: UndoHistory;
  startSandbox: SandboxStarter;
  /** the commands a script may run (`rig.execute`, `rig.<prefix>.<name>`); others are refused */
  commandIds: readonly string[];
  /**
   * Why a script may not run a command of the app that is not among `commandIds` (the renderer's and the CLI's
   * SCRIPT_DENIED_COMMANDS), or undefined when there is no such command or no reason is known; a refused
   * `rig.execute` says it.
   */
  deniedReason?(id: string): string | undefined;
  onOutput?: (output: ScriptOutput) => void;
  /**
   * Cancels a call still running when a run ends early (Stop, the time limit, a failure): a long command (Compute
   * weights, a transfer) or a question to the user then ends soon, and the rollback follows. Without it the host waits
   * for such a call to finish by itself. A call cancelled this way may reject or resolve; its answer is dropped.
   */
  cancelCall?(call: ScriptCallInFlight): void;
  /**
   * Keeps, as a run starts, what its commands change outside the undo history (the clip shown, the binding options,
   * the skinning method); the function it returns puts those back when the run is rolled back (it failed, was stopped
   * or timed out), after its undo group is, so the scene and its settings are as before the run.
   */
  keep?(): () => void;
}

/** A call of the sandbox that the host is answering: `execute` with [command id, argument], or a data call. */
export interface ScriptCallInFlight {
  method: string;
  args: readonly unknown[];
}

/** The ScriptCalls a sandbox may ask for besides `execute`. */
const DATA_CALLS: ReadonlySet<string> = new Set<Exclude<ScriptCallName, 'execute'>>([
  'scene.summary',
  'scene.bones',
  'scene.bone',
  'scene.weights',
  'scene.denseWeights',
  'scene.setWeights',
  'scene.handles',
  'scene.setHandles',
  'scene.restPositions',
  'scene.skin',
  'scene.triangles',
  'scene.joints',
  'scene.pose',
  'scene.examples',
  'scene.examplePositions',
  'files.open',
  'files.saveProject',
  'files.exportGltf',
]);

/** The run in progress. */
interface ActiveRun {
  readonly file: string;
  stop(): void;
  /** a `files.open` call of the run has opened a scene */
  openedScene: boolean;
}

export class ScriptHost {
  private active: ActiveRun | null = null;
  private readonly commands: ReadonlySet<string>;

  constructor(private readonly deps: ScriptHostDeps) {
    this.commands = new Set(deps.commandIds);
  }

  /** whether a run has started and not yet given its result (its rollback included) */
  get running(): boolean {
    return this.active !== null;
  }

  /**
   * Compiles and runs a script; the whole run is one undo step `Script: <file's base name>` (none when it changed
   * nothing); a run that fails, is stopped or times out leaves the scene as before, bit for bit. A second run while
   * one runs is refused (failed, nothing run). Never rejects.
   */
  async run(options: ScriptRunOptions): Promise<ScriptRunResult> {
    const startedAt = performance.now();
    const { file } = options;
    const result = (status: ScriptStatus, changed: boolean, error?: ScriptError, openedScene = false): ScriptRunResult => ({
      status,
      ...(error ? { error } : {}),
      durationMs: performance.now() - startedAt,
      changed,
      ...(openedScene ? { openedScene: true as const } : {}),
    });
    if (this.active)
      return result('failed', false, { message: `${file} was not run: the script ${this.active.file} is running (stop it first)`, file });
    let compiled: CompiledScript;
    try {
      compiled = compileScript(options.source, file);
    } catch (error) {
      return result('failed', false, error instanceof ScriptCompileError ? error.scriptError : { message: messageOf(error), file });
    }
    const active: ActiveRun = { file, stop: () => undefined, openedScene: false };
    this.active = active;
    try {
      const ended = await this.runCompiled(compiled, options, active);
      return result(ended.status, ended.changed, ended.error, active.openedScene);
    } catch (error) {
      return result('failed', false, { message: `the script host failed: ${messageOf(error)}`, file }, active.openedScene);
    } finally {
      this.active = null;
    }
  }

  /** Stops the running script: its worker ends at once, and the run's changes are rolled back. */
  stop(): void {
    this.active?.stop();
  }

  private runCompiled(
    compiled: CompiledScript,
    options: ScriptRunOptions,
    active: ActiveRun,
  ): Promise<{ status: ScriptStatus; changed: boolean; error?: ScriptError }> {
    const { file } = options;
    const group = this.deps.history.openGroup(`Script: ${baseName(file)}`);
    const putBack = this.deps.keep?.();
    let sandbox: SandboxPort;
    try {
      sandbox = this.deps.startSandbox(compiled);
    } catch (error) {
      group.abort();
      return Promise.resolve({
        status: 'failed',
        changed: false,
        error: { message: `the script's worker did not start: ${messageOf(error)}`, file },
      });
    }
    const inFlight = new Map<Promise<void>, ScriptCallInFlight>();
    let ending: ScriptStatus | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;

    // The sandboxes name places in the compiled code: the same line, a column left of the script's by the types taken out.
    const placeIn = ({ line, column }: { line?: number; column?: number }): { line?: number; column?: number } => ({
      ...(line !== undefined ? { line } : {}),
      ...(column !== undefined ? { column: line !== undefined ? sourceColumn(options.source, compiled, line, column) : column } : {}),
    });

    return new Promise((resolve) => {
      const finish = (status: ScriptStatus, error?: ScriptError) => {
        if (ending) return;
        ending = status;
        clearTimeout(timer);
        sandbox.terminate();
        // A run ending early asks its calls still running (a solve, a question) to end now, not when they would.
        if (status !== 'done') for (const call of inFlight.values()) this.cancel(call);
        void (async () => {
          // A call already running (a command awaiting a solve) finishes first; its edits are then part of the group.
          while (inFlight.size > 0) await Promise.allSettled([...inFlight.keys()]);
          try {
            if (status === 'done') {
              resolve({ status, changed: group.close() });
              return;
            }
            group.abort();
            putBack?.();
            resolve({ status, changed: false, ...(error ? { error } : {}) });
          } catch (failure) {
            resolve({ status: 'failed', changed: false, error: { message: `the run's undo step failed: ${messageOf(failure)}`, file } });
          }
        })();
      };
      active.stop = () => finish('stopped');

      sandbox.onMessage((message) => {
        if (ending) return;
        switch (message.kind) {
          case 'call': {
            const answered = this.answer(sandbox, message, active, () => ending !== null);
            inFlight.set(answered, { method: message.method, args: message.args });
            void answered.finally(() => inFlight.delete(answered));
            break;
          }
          case 'output':
            for (const line of message.lines) this.deps.onOutput?.({ kind: line.level, text: line.text });
            break;
          case 'progress':
            this.deps.onOutput?.({ kind: 'progress', text: message.message, fraction: message.fraction });
            break;
          case 'done':
            finish('done');
            break;
          case 'failed':
            finish('failed', { message: message.message, file, ...placeIn(message) });
            break;
        }
      });
      sandbox.onError((failure) => {
        finish('failed', { message: failure.message, file, ...placeIn(failure) });
      });
      const limit = options.timeLimitMs ?? SCRIPT_TIME_LIMIT_DEFAULT_MS;
      if (limit > 0) timer = setTimeout(() => finish('timed-out'), limit);
      sandbox.postMessage({
        kind: 'start',
        init: { commandIds: [...this.commands], args: [...(options.args ?? [])], apiVersion: SCRIPT_API_VERSION },
      });
    });
  }

  private cancel(call: ScriptCallInFlight): void {
    try {
      this.deps.cancelCall?.(call);
    } catch {
      // A cancel that fails leaves the call to finish by itself; the run still ends once it has.
    }
  }

  /** Answers one call of the sandbox (unless the run has ended meanwhile: its worker is gone). */
  private async answer(
    sandbox: SandboxPort,
    message: Extract<SandboxMessage, { kind: 'call' }>,
    active: ActiveRun,
    ended: () => boolean,
  ): Promise<void> {
    const { id, method, args } = message;
    let reply: HostMessage;
    try {
      reply = { kind: 'reply', id, value: await this.invoke(method, args) };
      if (method === 'files.open') active.openedScene = true;
    } catch (error) {
      reply = { kind: 'reply', id, error: messageOf(error) };
    }
    if (ended()) return;
    // The scene's calls give fresh arrays (script-scene-calls.ts), which move to the sandbox; a command's result may
    // hold arrays its owner keeps (the document's own), which are copied.
    const transfer = method !== 'execute' && reply.value !== undefined ? transferablesOf(reply.value) : [];
    try {
      sandbox.postMessage(reply, transfer);
    } catch (error) {
      try {
        const name = method === 'execute' ? String(args[0]) : method;
        sandbox.postMessage({ kind: 'reply', id, error: `${name}: its result cannot be sent to the script (${messageOf(error)})` });
      } catch {
        // The worker is gone: the run ends by its error event.
      }
    }
  }

  private async invoke(method: string, args: readonly unknown[]): Promise<unknown> {
    const { calls } = this.deps;
    if (method === 'execute') {
      const [id, argument] = args;
      if (typeof id !== 'string') throw new Error(`rig.execute: the command id is a string, not ${typeof id}`);
      if (!this.commands.has(id)) {
        const why = this.deps.deniedReason?.(id);
        throw new Error(`rig.execute: ${id} is not a command scripts can run${why ? `: ${why}` : ''}`);
      }
      return await calls.execute(id, argument);
    }
    if (!DATA_CALLS.has(method)) throw new Error(`${method} is not a call of the script API`);
    return await (calls as unknown as Record<string, (...values: unknown[]) => unknown>)[method](...args);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
