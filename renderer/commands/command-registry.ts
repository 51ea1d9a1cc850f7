/**
 * The command registry: every user action — toolbar button, menu item, key, test hook and later script call —
 * is a named command with a label, an enabled-when condition and a handler (VS Code's model). Buttons, menus and
 * keys never call the app directly; they execute a command by id, so each action has one implementation, one
 * label and one enabled state wherever it is offered. What a command is (label, menu, enabled-when) is data in
 * command-catalog.ts; the shell registers what it does.
 */
import { COMMANDS, type CommandId, type CommandInfo } from './command-catalog.ts';
import { whenHolds, type WhenContext } from './when-clause.ts';

export interface CommandHandler {
  run(argument?: unknown): void | Promise<void>;
  /** a further condition the context keys cannot express (e.g. "there is something to undo") */
  canRun?(): boolean;
  /** the label with the current state, e.g. 'Undo Paint stroke'; the catalog's label when absent */
  title?(): string;
  /** for toggles: whether the thing is on (menu check marks, pressed buttons) */
  checked?(): boolean;
}

export type Command = CommandInfo & CommandHandler & { id: CommandId };

export class CommandRegistry {
  private readonly handlers = new Map<CommandId, CommandHandler>();
  private readonly listeners = new Set<(id: CommandId) => void>();

  /**
   * @param context      the app's context keys now
   * @param reportError  told when a command throws or its promise rejects (the app shows it to the user)
   */
  constructor(
    private readonly context: () => WhenContext,
    private readonly reportError: (id: CommandId, error: unknown) => void = (id, error) => console.error(id, error),
  ) {}

  /** @throws Error when the id is not in the catalog or already has a handler */
  register(id: CommandId, handler: CommandHandler): void {
    if (!(id in COMMANDS)) throw new Error(`command ${id} is not in the command catalog`);
    if (this.handlers.has(id)) throw new Error(`command ${id} is registered twice`);
    this.handlers.set(id, handler);
  }

  registerAll(handlers: Partial<Record<CommandId, CommandHandler>>): void {
    for (const [id, handler] of Object.entries(handlers) as [CommandId, CommandHandler][]) this.register(id, handler);
  }

  /** Catalog commands nobody registered a handler for (the shell registers all of them). */
  missingHandlers(): CommandId[] {
    return (Object.keys(COMMANDS) as CommandId[]).filter((id) => !this.handlers.has(id));
  }

  get(id: CommandId): Command {
    const handler = this.handlers.get(id);
    if (!handler) throw new Error(`command ${id} has no handler`);
    return { id, ...COMMANDS[id], ...handler };
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
   * Runs a command if it is enabled now. A command that throws, or whose promise rejects, is reported (reportError)
   * rather than thrown to the button or key that ran it.
   * @returns whether it ran, and the promise of an asynchronous command (settled, never rejecting)
   * @throws Error for a command without a handler (a programming error, not the user's)
   */
  execute(id: CommandId, argument?: unknown): { ran: boolean; result?: Promise<void> } {
    const handler = this.handlers.get(id);
    if (!handler) throw new Error(`command ${id} has no handler`);
    if (!this.isEnabled(id)) return { ran: false };
    let result: void | Promise<void>;
    try {
      result = handler.run(argument);
    } catch (error) {
      this.reportError(id, error);
      return { ran: true };
    } finally {
      for (const listener of this.listeners) listener(id);
    }
    return result instanceof Promise ? { ran: true, result: result.catch((error: unknown) => this.reportError(id, error)) } : { ran: true };
  }

  /** Called after every command that ran (menus and buttons refresh their enabled state and titles). */
  onExecuted(listener: (id: CommandId) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

export function isCommandId(value: unknown): value is CommandId {
  return typeof value === 'string' && Object.hasOwn(COMMANDS, value);
}
