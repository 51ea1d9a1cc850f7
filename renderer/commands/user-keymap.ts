/**
 * The user's keys over the keybinding table (Blender's keymap, VS Code's keybindings.json): per command, the chords
 * that replace the table's keys of that command (preferences' KeyOverrides). A user key keeps the when-clause of the
 * command's keys in the table (F frames all only outside paint mode, whatever key it is); a command without keys in
 * the table gets one that always applies, and its enabled-when still decides whether it runs.
 *
 * Two bindings conflict when they share a chord and their when-clauses can hold at once: the key would run either
 * command. Assigning a key that conflicts is refused with the commands it conflicts with named, or, when asked,
 * swapped: the other command takes the key it replaces (or loses the chord when it was added).
 *
 * A command that needs an argument (the brush radius, a bone's new name) takes no key: a key gives no argument, so it
 * would only be refused when pressed. The key table leaves such commands out and assigning one a key is refused.
 */
import { COMMANDS, needsArgument, type CommandId } from './command-catalog.ts';
import { KEYBINDINGS, type Keybinding } from './keybindings.ts';
import { whenHolds, whenKeys, type WhenContext } from './when-clause.ts';
import type { PreferenceEntry } from '../project/preferences.ts';

/** Per command, the chords that replace its keys in the table ([] = none). */
export type KeyOverrides = Readonly<Partial<Record<CommandId, readonly string[]>>>;

/** The when-clause a command's keys hold under: that of its first key in the table, or none. */
export function keyWhenOf(command: CommandId, table: readonly Keybinding[] = KEYBINDINGS): string | undefined {
  return table.find((b) => b.command === command)?.when;
}

/** Whether a key can run the command: it needs no argument (catalog needsArgument). */
export function takesKeys(command: CommandId): boolean {
  return !needsArgument(command);
}

/** Why a command takes no key, naming it. */
export function keylessReason(command: CommandId): string {
  return `“${COMMANDS[command].label}” (${command}) needs an argument, which a key cannot give: it takes no key`;
}

/** A command's keys: the user's when it has some, else the table's. */
export function keysOf(command: CommandId, overrides: KeyOverrides, table: readonly Keybinding[] = KEYBINDINGS): readonly string[] {
  return overrides[command] ?? table.filter((b) => b.command === command).map((b) => b.key);
}

/**
 * The table in use: the table with each overridden command's keys replaced by the user's, where its first key was (a
 * chord is resolved by the first binding that holds), and commands the table has no key for appended.
 */
export function userKeybindings(overrides: KeyOverrides, table: readonly Keybinding[] = KEYBINDINGS): Keybinding[] {
  const out: Keybinding[] = [];
  const placed = new Set<CommandId>();
  const userBindings = (command: CommandId, when: string | undefined): Keybinding[] =>
    (overrides[command] ?? []).map((key) => (when ? { key, command, when } : { key, command }));
  for (const binding of table) {
    if (!overrides[binding.command]) out.push(binding);
    else if (!placed.has(binding.command)) {
      placed.add(binding.command);
      out.push(...userBindings(binding.command, binding.when));
    }
  }
  for (const command of Object.keys(overrides) as CommandId[])
    if (!placed.has(command) && !table.some((b) => b.command === command)) out.push(...userBindings(command, undefined));
  return out;
}

/** Whether two when-clauses can hold at once: some context over the keys they read satisfies both. */
export function whensOverlap(a: string | undefined, b: string | undefined): boolean {
  const keys = new Map<string, Set<string>>();
  for (const clause of [a, b]) for (const [key, values] of whenKeys(clause)) keys.set(key, new Set([...(keys.get(key) ?? []), ...values]));
  let contexts: Record<string, string | boolean>[] = [{}];
  for (const [key, values] of keys) {
    const choices: (string | boolean)[] = values.size > 0 ? [...values, '\u0000other', false] : [true, false];
    contexts = contexts.flatMap((context) => choices.map((value) => ({ ...context, [key]: value })));
  }
  return contexts.some((context: WhenContext) => whenHolds(a, context) && whenHolds(b, context));
}

/** The bindings of other commands in the table in use that `chord` would also run wherever `command`'s keys hold. */
export function keyConflicts(
  command: CommandId,
  chord: string,
  overrides: KeyOverrides,
  table: readonly Keybinding[] = KEYBINDINGS,
): Keybinding[] {
  const when = keyWhenOf(command, table);
  return userKeybindings(overrides, table).filter((b) => b.command !== command && b.key === chord && whensOverlap(b.when, when));
}

/** What assigning a key gives: the new overrides, or the conflicts that refused it. */
export type KeyAssignment = { overrides: KeyOverrides; swapped: CommandId[] } | { conflicts: Keybinding[]; message: string };

/**
 * Gives `command` the key `chord`, replacing its key `replacing` (null: adding a key).
 * @param swap  on a conflict, the other commands take `replacing` instead of `chord` (or lose `chord` when adding);
 *   without it a conflict refuses, naming the commands
 */
export function assignKey(
  overrides: KeyOverrides,
  command: CommandId,
  chord: string,
  replacing: string | null,
  swap: boolean,
  table: readonly Keybinding[] = KEYBINDINGS,
): KeyAssignment {
  if (!takesKeys(command)) return { conflicts: [], message: keylessReason(command) };
  const conflicts = keyConflicts(command, chord, overrides, table);
  if (conflicts.length > 0 && !swap) {
    const names = [...new Set(conflicts.map((b) => `“${COMMANDS[b.command].label}”`))].join(' and ');
    return { conflicts, message: `${chord} already runs ${names}` };
  }
  const next: Partial<Record<CommandId, readonly string[]>> = { ...overrides };
  const mine = keysOf(command, overrides, table);
  next[command] = replacing === null ? [...mine.filter((k) => k !== chord), chord] : mine.map((k) => (k === replacing ? chord : k));
  const swapped = [...new Set(conflicts.map((b) => b.command))];
  for (const other of swapped) {
    const theirs = keysOf(other, next, table);
    next[other] = replacing === null ? theirs.filter((k) => k !== chord) : theirs.map((k) => (k === chord ? replacing : k));
  }
  const result = withoutDefaults(next, table);
  // A swapped key may clash where it lands (a key without a when-clause meeting one that has one).
  const problems = keymapProblems(result, table);
  if (problems.length > 0) return { conflicts, message: `Swapping cannot be done: ${problems[0]}` };
  return { overrides: result, swapped };
}

/** The command's keys back to the table's. */
export function resetKeys(overrides: KeyOverrides, command: CommandId): KeyOverrides {
  const next = { ...overrides };
  delete next[command];
  return next;
}

/** Drops the overrides that say what the table says already. */
function withoutDefaults(overrides: Partial<Record<CommandId, readonly string[]>>, table: readonly Keybinding[]): KeyOverrides {
  const out: Partial<Record<CommandId, readonly string[]>> = {};
  for (const [command, keys] of Object.entries(overrides) as [CommandId, readonly string[]][]) {
    const defaults = table.filter((b) => b.command === command).map((b) => b.key);
    if (keys.length !== defaults.length || keys.some((k, i) => k !== defaults[i])) out[command] = keys;
  }
  return out;
}

/**
 * The overrides' problems against the table: a chord that runs two commands where both hold (readKeyOverrides settles
 * stored ones key by key).
 */
export function keymapProblems(overrides: KeyOverrides, table: readonly Keybinding[] = KEYBINDINGS): string[] {
  const problems: string[] = [];
  for (const [command, keys] of Object.entries(overrides) as [CommandId, readonly string[]][])
    for (const key of keys) {
      const conflicts = keyConflicts(command, key, overrides, table);
      if (conflicts.length > 0)
        problems.push(`${key} runs both “${COMMANDS[command].label}” and “${COMMANDS[conflicts[0].command].label}”`);
    }
  return problems;
}

/** A chord as the keybinding table writes it: modifiers in order, then one key ('Mod+Alt+Shift+Z', 'F2', '?'). */
const CHORD = /^(Mod\+)?(Alt\+)?(Shift\+)?([^+]+|\+)$/;

const quoted = (value: unknown): string => (typeof value === 'string' ? `"${value}"` : (JSON.stringify(value) ?? String(value)));

/**
 * The user's keys as stored, each override checked alone, so that one bad entry (a command renamed by an upgrade, a
 * clash) costs only itself: an unknown command, one that takes no key, or keys that are not a list of chords drop that
 * command's override; a user key that clashes with an earlier user key is dropped; a user key that clashes with a key
 * of the table (a newer version's default) wins, and the table's key goes from its command.
 * @param stored  what was stored: per command id, a list of chords
 * @param drop  told what each dropped or changed part was, and why
 * @returns the overrides that are used (the overrides of commands whose default key went included)
 */
export function readKeyOverrides(
  stored: Readonly<Record<string, unknown>>,
  drop: (note: string) => void,
  table: readonly Keybinding[] = KEYBINDINGS,
): KeyOverrides {
  const current: Partial<Record<CommandId, readonly string[]>> = {};
  for (const [command, chords] of Object.entries(stored)) {
    if (!Object.hasOwn(COMMANDS, command)) drop(`${quoted(command)} is not a command; its keys are dropped`);
    else if (!takesKeys(command as CommandId)) drop(keylessReason(command as CommandId));
    else if (!Array.isArray(chords) || !chords.every((chord) => typeof chord === 'string' && CHORD.test(chord)))
      drop(`the keys of ${command}, ${quoted(chords)}, are not a list of keys such as "Mod+Shift+Z"; they are dropped`);
    else current[command as CommandId] = chords as string[];
  }
  const users = Object.keys(current) as CommandId[];
  const settled = new Set<CommandId>();
  for (const command of users) {
    for (const key of current[command] ?? []) {
      for (const clash of keyConflicts(command, key, current, table)) {
        const other = clash.command;
        if (!users.includes(other)) {
          current[other] = keysOf(other, current, table).filter((k) => k !== key);
          drop(`${key} runs “${COMMANDS[command].label}” as you set it; “${COMMANDS[other].label}” no longer has it`);
        } else if (settled.has(other) && current[command]?.includes(key)) {
          current[command] = current[command].filter((k) => k !== key);
          drop(`${key} of “${COMMANDS[command].label}” is dropped: it also runs “${COMMANDS[other].label}”`);
        }
      }
    }
    settled.add(command);
  }
  return current;
}

/**
 * The user's keys as a preference (project/preferences.ts, registered by the shell): per command, the chords that
 * replace its keys in the table, read back override by override (readKeyOverrides).
 */
export const KEYS_PREFERENCE: PreferenceEntry<KeyOverrides> = {
  key: 'keys',
  label: 'Keys',
  section: 'Keys',
  default: {},
  read: (stored, drop = () => {}) =>
    typeof stored === 'object' && stored !== null && !Array.isArray(stored)
      ? readKeyOverrides(stored as Record<string, unknown>, drop)
      : { problem: `${quoted(stored)} is not a table of commands' keys` },
};
