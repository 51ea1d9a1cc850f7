/**
 * The command registry: every user action — toolbar button, menu item, key, test hook and later script call —
 * is a named command with a label, an enabled-when condition, an argument schema and a handler (VS Code's model).
 * Buttons, menus and keys never call the app directly; they run a command by id, so each action has one
 * implementation, one label and one enabled state wherever it is offered. What a command is (label, menu,
 * enabled-when, argument and result) is data in command-catalog.ts; each feature registers what its commands do
 * (its *-commands.ts module).
 *
 * Two ways to run a command:
 *  - `execute(id, argument)`, for scripts, tests and other commands: the argument is checked against the schema,
 *    a command that cannot run now throws an Error saying why, and the handler's result (or its error) comes back;
 *  - `invoke(id, argument)`, for keys, menu clicks and buttons: a disabled command is skipped silently and an error
 *    is reported to the user (reportError), never thrown at the key or button.
 */
import { COMMANDS, type ArgumentList, type CommandId, type CommandInfo, type ResultOf, type ArgumentOf } from './command-catalog.ts';
import { checkArgument, type ArgumentScene } from './command-schema.ts';
import { whenHolds, whyNot, type WhenContext } from './when-clause.ts';

export interface CommandHandler<A = never, R = unknown> {
  run(argument: A): R | Promise<R>;
  /** a further condition the context keys cannot express (e.g. "there is something to undo") */
  canRun?(): boolean;
  /** why the command cannot run while canRun() is false, in words ('nothing to undo') */
  refusal?: string | (() => string);
  /** the label with the current state, e.g. 'Undo Paint stroke'; the catalog's label when absent */
  title?(): string;
  /** for toggles: whether the thing is on (menu check marks, pressed buttons) */
  checked?(): boolean;
}

/** The handler of command K: it takes K's argument and gives back K's result. */
export type HandlerOf<K extends CommandId> = CommandHandler<ArgumentOf<K>, ResultOf<K>>;

/** Handlers of some commands, each typed by its catalog entry (what a feature's *-commands.ts module returns). */
export type CommandHandlers = { [K in CommandId]?: HandlerOf<K> };

export type Command = CommandInfo & CommandHandler<unknown> & { id: CommandId };

/** What `execute` gives back: the handler's result, or its promise for an asynchronous command. */
export type Outcome<K extends CommandId> = ResultOf<K> | Promise<ResultOf<K>>;

/** A command refused to run now (its enabled-when clause or its handler's canRun); `reason` says why. */
export class CommandRefused extends Error {
  constructor(
    readonly command: CommandId,
    readonly reason: string,
  ) {
    super(`${command} cannot run now: ${reason}`);
    this.name = 'CommandRefused';
  }
}

type AnyHandler = CommandHandler<unknown>;

export class CommandRegistry {
  private readonly handlers = new Map<CommandId, AnyHandler>();
  private readonly listeners = new Set<(id: CommandId) => void>();

  /**
   * @param context      the app's context keys now
   * @param reportError  told when a command run by `invoke` throws or its promise rejects (the app shows it)
   * @param scene        what argument checks ask of the scene (bone count, mesh names); without it bone and mesh
   *                     arguments are checked for their form only
   */
  constructor(
    private readonly context: () => WhenContext,
    private readonly reportError: (id: CommandId, error: unknown) => void = (id, error) => console.error(id, error),
    private readonly scene?: ArgumentScene,
  ) {}

  /** @throws Error when the id is not in the catalog or already has a handler */
  register<K extends CommandId>(id: K, handler: HandlerOf<K>): void {
    if (!(id in COMMANDS)) throw new Error(`command ${id} is not in the command catalog`);
    if (this.handlers.has(id)) throw new Error(`command ${id} is registered twice`);
    this.handlers.set(id, handler);
  }

  registerAll(handlers: CommandHandlers): void {
    for (const [id, handler] of Object.entries(handlers) as [CommandId, HandlerOf<CommandId>][]) this.register(id, handler);
  }

  /** Catalog commands nobody registered a handler for (the shell registers all of them). */
  missingHandlers(): CommandId[] {
    return (Object.keys(COMMANDS) as CommandId[]).filter((id) => !this.handlers.has(id));
  }

  get(id: CommandId): Command {
    return { id, ...COMMANDS[id], ...this.handlerOf(id) };
  }

  /** Why the command cannot run now, in words, or null when it can (and false-y canRun without a reason: 'not now'). */
  refusal(id: CommandId, context: WhenContext = this.context()): string | null {
    const handler = this.handlers.get(id);
    if (!handler) return 'it has no handler';
    const clause = whyNot(COMMANDS[id].enabledWhen, context);
    if (clause !== null) return clause;
    if (handler.canRun && !handler.canRun()) {
      const reason = typeof handler.refusal === 'function' ? handler.refusal() : handler.refusal;
      return reason ?? 'not now';
    }
    return null;
  }

  isEnabled(id: CommandId, context: WhenContext = this.context()): boolean {
    const handler = this.handlers.get(id);
    if (!handler) return false;
    return whenHolds(COMMANDS[id].enabledWhen, context) && (handler.canRun?.() ?? true);
  }

  titleOf(id: CommandId): string {
    return this.handlers.get(id)?.title?.() ?? COMMANDS[id].label;
  }

  isChecked(id: CommandId): boolean | undefined {
    return this.handlers.get(id)?.checked?.();
  }

  /**
   * Runs a command for a script, a test or another command.
   * @returns the handler's result, or the promise of an asynchronous command's
   * @throws Error naming the command and the argument (and field) when the argument does not fit the schema;
   *         CommandRefused saying why when the command cannot run now; whatever the handler throws
   */
  execute<K extends CommandId>(id: K, ...[argument]: ArgumentList<K>): Outcome<K> {
    const handler = this.handlerOf(id);
    checkArgument(COMMANDS[id].argument ?? { kind: 'none' }, argument, id, this.scene);
    const refusal = this.refusal(id);
    if (refusal !== null) throw new CommandRefused(id, refusal);
    try {
      return handler.run(argument) as Outcome<K>;
    } finally {
      for (const listener of this.listeners) listener(id);
    }
  }

  /**
   * Runs a command for a key, a menu click or a button: only if it is enabled now, and a command that throws (a
   * bad argument included) or whose promise rejects is reported (reportError) rather than thrown at the caller.
   * @returns whether it ran, and the promise of an asynchronous command (settled, never rejecting)
   * @throws Error for a command without a handler (a programming error, not the user's)
   */
  invoke(id: CommandId, argument?: unknown): { ran: boolean; result?: Promise<void> } {
    this.handlerOf(id);
    if (!this.isEnabled(id)) return { ran: false };
    let result: unknown;
    try {
      result = (this.execute as (id: CommandId, argument?: unknown) => unknown)(id, argument);
    } catch (error) {
      this.reportError(id, error);
      return { ran: true };
    }
    return result instanceof Promise
      ? {
          ran: true,
          result: result.then(
            () => undefined,
            (error: unknown) => this.reportError(id, error),
          ),
        }
      : { ran: true };
  }

  /** Called after every command that ran (menus and buttons refresh their enabled state and titles). */
  onExecuted(listener: (id: CommandId) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private handlerOf(id: CommandId): AnyHandler {
    const handler = this.handlers.get(id);
    if (!handler) throw new Error(`command ${id} has no handler`);
    return handler;
  }
}

export function isCommandId(value: unknown): value is CommandId {
  return typeof value === 'string' && Object.hasOwn(COMMANDS, value);
}
