/**
 * Helpers for the feature modules that register commands (paint/paint-commands.ts, bind/bind-commands.ts, …): the
 * type of a module's handlers, and the handler body of a toggle.
 */
import type { CommandId } from './command-catalog.ts';
import type { HandlerOf } from './command-registry.ts';

/** The handlers of exactly the commands K, each typed by its catalog entry. */
export type HandlersFor<K extends CommandId> = { [P in K]: HandlerOf<P> };

/** A toggle's handler body: sets the thing to `on` and gives back `on` (a script learns the new state). */
export function toggled(on: boolean, set: (on: boolean) => void): boolean {
  set(on);
  return on;
}
