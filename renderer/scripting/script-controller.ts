/**
 * The app's script runner: what the scripting panel, the status line and the test hook use to run a script on the
 * scene shown. It wraps a ScriptHost (workers/script/script-host.ts: compile, a sandbox worker, the run's one undo
 * step) whose calls are answered on the app's own scene store (sceneScriptCalls), with the app's commands (awaited,
 * argument-checked, refused with the reason as for the user), the app's files (app-script-files.ts) and the
 * viewport's skinning method.
 *
 * While a script runs the controller is busy: `statusText` says so with the progress the script reports
 * (`rig.progress`), the page stays responsive (the script runs in its worker; only its calls come to the page), and a
 * second run is refused. The user's edits wait for the run (contextKeys: the commands that edit or read the scene are
 * refused to the user, the script's own calls run), so nothing the user does is folded into the run's undo step or
 * rolled back with it. A run ends at the time limit (`timeLimitSeconds`, a user preference, default 30 s; 0 for
 * none) or at Stop, the scene then as it was before the run; a long command the script waits for (Compute weights, a
 * transfer) is cancelled then, so the run ends promptly. A new scene opened by the user while a script runs stops
 * the script: the run is stopped as the new scene replaces the old one (the history starting over), before anything
 * of the run can reach the new scene; a new scene the script itself opens (`rig.files.open`) does not stop it.
 *
 * No DOM: the sandbox starter and the files are given by the shell.
 */
import { numberPreference, type PreferenceEntry } from '../project/preferences.ts';
import { ScriptHost, type SandboxStarter, type ScriptOutput, type ScriptRunResult } from '../../workers/script/script-host.ts';
import { sceneScriptCalls } from '../../workers/script/script-scene-calls.ts';
import { baseName } from '../../workers/formats/file-name.ts';
import type { ScriptCalls } from '../../workers/script/script-api.ts';
import type { SceneStore } from '../../workers/scene/scene-store.ts';

/** The script time limit a user starts with, in seconds. */
export const SCRIPT_TIME_LIMIT_DEFAULT_SECONDS = 30;
/** The longest time limit the preference takes, in seconds (an hour). */
export const SCRIPT_TIME_LIMIT_MAX_SECONDS = 3600;

/** The time limit as a user preference (the preferences page lists it under Scripts). */
export const SCRIPT_TIME_LIMIT_PREFERENCE: PreferenceEntry<number> = numberPreference({
  key: 'script.timeLimit',
  label: 'Script time limit (seconds)',
  section: 'Scripts',
  description: 'A script still running after this many seconds is stopped and the scene left as before it ran; 0 for no limit',
  default: SCRIPT_TIME_LIMIT_DEFAULT_SECONDS,
  min: 0,
  max: SCRIPT_TIME_LIMIT_MAX_SECONDS,
  step: 1,
});

/** The app's files for scripts, with what they keep for one run (app-script-files.ts). */
export interface ScriptRunFiles extends Pick<ScriptCalls, 'files.open' | 'files.saveProject' | 'files.exportGltf'> {
  /** a run starts: the answers of the previous run (may it write?) are forgotten */
  beginRun(file: string): void;
  endRun(): void;
  /**
   * The run is ending (Stop, the time limit, a new scene): a question it asked is left unanswered, so the call
   * waiting for it fails and the run can end.
   */
  cancel(): void;
  /** a scene the script asked for is being opened now */
  readonly opening: boolean;
}

/** A setting's value now and its setter (a Preference of project/preferences.ts, or a plain holder). */
export interface NumberSetting {
  get(): number;
  set(value: number): void;
}

/** What the controller is built from. */
export interface ScriptControllerDeps {
  /** the app's scene store (its history takes the run's one undo step) */
  store: SceneStore;
  /** runs a catalog command as the user would: the app's registry.execute (a result or its promise) */
  execute(id: string, argument: unknown): unknown;
  /** the command ids a script may run (`rig.execute`, `rig.<group>.<name>`) */
  commandIds: readonly string[];
  /** why a script may not run a command that is not among `commandIds` (SCRIPT_DENIED_COMMANDS), said when it tries */
  deniedReason?(id: string): string | undefined;
  files: ScriptRunFiles;
  /** the skinning method the viewport shows, the default of `rig.scene.skin` */
  skinMethod?(): 'lbs' | 'dqs';
  /** starts the sandbox a script runs in (the browser's worker sandbox in the app) */
  startSandbox: SandboxStarter;
  /** the time limit in seconds (a user preference); absent: kept on the controller, default 30 */
  timeLimit?: NumberSetting;
  /**
   * Cancels a command a run that is ending early (Stop, the time limit, a new scene) still waits for: Compute weights
   * (Bind → Cancel), a weight transfer (its worker's cancel). Absent, or a command with nothing to cancel: the run
   * ends when the command does.
   */
  cancelCommand?(id: string): void;
  /**
   * Keeps the app's settings a script's commands may change (binding options, the skinning method) as a run starts;
   * the function it returns puts them back when the run is rolled back. The clip shown, a field of the scene that
   * changes without an undo step, the controller keeps itself.
   */
  keepSettings?(): () => void;
}

/** The commands scripts may not run: the script commands (a script running scripts). */
const NOT_FOR_SCRIPTS = /^script\./;

export class ScriptController {
  private readonly host: ScriptHost;
  private readonly outputListeners = new Set<(output: ScriptOutput) => void>();
  private readonly runningListeners = new Set<(running: boolean) => void>();
  private readonly timeLimit: NumberSetting;
  /** the file running now, or null */
  private file: string | null = null;
  /** the latest progress the running script reported */
  private reported: { fraction: number; message: string } | null = null;
  /** how many of the script's own command calls are running synchronously now (a command may run another) */
  private ownCalls = 0;

  constructor(private readonly deps: ScriptControllerDeps) {
    let seconds = SCRIPT_TIME_LIMIT_DEFAULT_SECONDS;
    this.timeLimit = deps.timeLimit ?? { get: () => seconds, set: (value) => (seconds = value) };
    const calls = sceneScriptCalls({
      store: deps.store,
      execute: async (id, argument) => await this.ownCall(() => deps.execute(id, argument)),
      files: deps.files,
      skinMethod: () => deps.skinMethod?.() ?? 'lbs',
      // What the ScriptHost passes on came transferred from the sandbox: the scene may keep it.
      argumentsHandedOver: true,
    });
    this.host = new ScriptHost({
      calls,
      history: deps.store.history,
      startSandbox: deps.startSandbox,
      commandIds: deps.commandIds.filter((id) => !NOT_FOR_SCRIPTS.test(id)),
      deniedReason: (id) => deps.deniedReason?.(id),
      onOutput: (output) => this.hostOutput(output),
      keep: () => {
        const { store } = deps;
        const before = store.doc;
        const putBackSettings = deps.keepSettings?.();
        return () => {
          const now = store.doc;
          // The clip shown changes without an undo step (playback.clip); a scene the run opened is kept as it is.
          if (
            now.mesh === before.mesh &&
            now.skeleton === before.skeleton &&
            (now.poses !== before.poses || now.posesFile !== before.posesFile)
          )
            store.show({ poses: before.poses, posesFile: before.posesFile });
          putBackSettings?.();
        };
      },
      cancelCall: ({ method, args }) => {
        // A question to the user goes unanswered; a command still computing is cancelled as the user would.
        if (method.startsWith('files.')) deps.files.cancel();
        else if (method === 'execute' && typeof args[0] === 'string') deps.cancelCommand?.(args[0]);
      },
    });
    // A new scene the user opens stops the run: what the run did belonged to the scene that went.
    deps.store.history.subscribe((event) => {
      if (event.kind === 'cleared' && this.running && !deps.files.opening) this.stop();
    });
  }

  /** whether a script is running */
  get running(): boolean {
    return this.file !== null;
  }

  /**
   * Whether the running script holds the scene against the user: a run is going on and what runs now is not the
   * script's own command call. While it holds, the user's edits wait as they do during a gesture (contextKeys).
   */
  get holdsScene(): boolean {
    return this.file !== null && this.ownCalls === 0;
  }

  /**
   * The context keys a run sets for the app's when-clauses: `scriptRunning`, and `toolBusy` while the script holds
   * the scene, so every command that waits for a gesture to end (`!toolBusy`: those that edit or read the scene) is
   * refused to the user — greyed, its key doing nothing, its reason 'a script is running — Stop it first' — while
   * the script's own calls (made synchronously inside its `execute`) still run.
   * @param gesture  whether a tool's gesture is in progress (the tool manager's own `toolBusy`)
   */
  contextKeys(gesture: boolean): { scriptRunning: boolean; toolBusy: boolean } {
    return { scriptRunning: this.running, toolBusy: gesture || this.holdsScene };
  }

  /** the file of the script running now, or null */
  get runningFile(): string | null {
    return this.file;
  }

  /** the latest progress the running script reported (`rig.progress`): 0 … 1 and its message, or null */
  get progress(): { readonly fraction: number; readonly message: string } | null {
    return this.reported;
  }

  /** What the status line says while a script runs ('Running script… weights.ts 40% · pruning'), or null. */
  get statusText(): string | null {
    if (this.file === null) return null;
    const progress = this.reported;
    const percent = progress ? ` ${Math.round(progress.fraction * 100)}%` : '';
    const message = progress?.message ? ` · ${progress.message}` : '';
    return `Running script… ${this.file}${percent}${message}`;
  }

  /** The time limit of the next run, in seconds (0: none); a user preference in the app. */
  get timeLimitSeconds(): number {
    return this.timeLimit.get();
  }

  /** @throws Error naming the setting when `seconds` is not a number in 0 … SCRIPT_TIME_LIMIT_MAX_SECONDS */
  set timeLimitSeconds(seconds: number) {
    if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0 || seconds > SCRIPT_TIME_LIMIT_MAX_SECONDS)
      throw new Error(`script time limit: ${String(seconds)} is not a number of seconds in 0 … ${SCRIPT_TIME_LIMIT_MAX_SECONDS}`);
    this.timeLimit.set(seconds);
  }

  /**
   * Runs a script on the scene: one undo step `Script: <file's base name>` when it changed anything; a run that
   * fails, is stopped or times out leaves the scene as it was. A second run while one runs is refused (failed,
   * nothing changed). Never rejects.
   * @param source  the script's TypeScript
   * @param file    its file name, as errors and the undo step name it
   */
  async run(source: string, file: string): Promise<ScriptRunResult> {
    if (this.file !== null) {
      const message = `${file} was not run: the script ${this.file} is running (stop it first)`;
      this.emit({ kind: 'error', text: message });
      return { status: 'failed', error: { message, file }, durationMs: 0, changed: false };
    }
    this.file = file;
    this.reported = null;
    this.deps.files.beginRun(file);
    for (const listener of this.runningListeners) listener(true);
    // The limit the run has: the preference may change while it runs, and the last line names the limit that applied.
    const limitSeconds = this.timeLimitSeconds;
    let result: ScriptRunResult;
    try {
      result = await this.host.run({ file, source, timeLimitMs: limitSeconds * 1000 });
    } finally {
      this.deps.files.endRun();
      this.file = null;
      this.reported = null;
    }
    if (result.error) this.emit({ kind: 'error', text: errorLine(result.error), ...placeOf(result.error) });
    this.emit({ kind: result.status === 'done' ? 'log' : 'error', text: endLine(result, file, limitSeconds) });
    for (const listener of this.runningListeners) listener(false);
    return result;
  }

  /**
   * Stops the running script: its worker ends at once, a command it waits for is cancelled (cancelCommand) and a
   * question it asked goes unanswered; the scene is left as it was before the run.
   */
  stop(): void {
    if (this.file === null) return;
    this.host.stop();
  }

  /** Every line a run prints or fails with, and a last line saying how the run ended. @returns the unsubscribe */
  onOutput(listener: (output: ScriptOutput) => void): () => void {
    this.outputListeners.add(listener);
    return () => this.outputListeners.delete(listener);
  }

  /** Told when a run starts (true) and when it has ended (false, after its last line). @returns the unsubscribe */
  onRunningChange(listener: (running: boolean) => void): () => void {
    this.runningListeners.add(listener);
    return () => this.runningListeners.delete(listener);
  }

  /** Runs one of the script's command calls: the scene is the script's while it runs synchronously. */
  private ownCall<T>(call: () => T): T {
    this.ownCalls++;
    try {
      return call();
    } finally {
      this.ownCalls--;
    }
  }

  private hostOutput(output: ScriptOutput): void {
    if (output.kind === 'progress') this.reported = { fraction: clamp01(output.fraction ?? 0), message: output.text };
    this.emit(output);
  }

  private emit(output: ScriptOutput): void {
    for (const listener of this.outputListeners) listener(output);
  }
}

function clamp01(x: number): number {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}

/** `file:line:column: message`, as far as the error says where. */
function errorLine(error: NonNullable<ScriptRunResult['error']>): string {
  const place = error.line !== undefined ? `:${error.line}${error.column !== undefined ? `:${error.column}` : ''}` : '';
  return `${error.file}${place}: ${error.message}`;
}

function placeOf(error: NonNullable<ScriptRunResult['error']>): Pick<ScriptOutput, 'line' | 'column'> {
  return { ...(error.line !== undefined ? { line: error.line } : {}), ...(error.column !== undefined ? { column: error.column } : {}) };
}

/** The last line of a run: how it ended, how long it took, and what it did to the scene. */
function endLine(result: ScriptRunResult, file: string, limitSeconds: number): string {
  const seconds = `${(result.durationMs / 1000).toFixed(2)} s`;
  // A scene the run opened cleared the history, the run's step with it: a failed run can go back only to that scene.
  const unchanged = result.openedScene
    ? 'the scene it opened is kept (opening it cleared the undo history), its edits after the open undone'
    : 'the scene is as it was before the run';
  const step = `one undo step, “Script: ${baseName(file)}”`;
  switch (result.status) {
    case 'done':
      if (result.openedScene)
        return `${file} done in ${seconds}: it opened a scene, which cleared the undo history; ${result.changed ? `its changes after that are ${step}` : 'it changed nothing after that'}`;
      return result.changed ? `${file} done in ${seconds}: its changes are ${step}` : `${file} done in ${seconds}; it changed nothing`;
    case 'failed':
      return `${file} failed after ${seconds}; ${unchanged}`;
    case 'stopped':
      return `${file} stopped after ${seconds}; ${unchanged}`;
    case 'timed-out':
      return `${file} reached the time limit (${limitSeconds} s) and was stopped; ${unchanged}`;
  }
}
