/**
 * When-clauses, as in VS Code's keybindings: a condition over the app's context keys that decides whether a key
 * binding (or a command) applies now. The grammar is deliberately small:
 *
 *   clause := term ( '&&' term )*
 *   term   := '!' key | key | key '==' value | key '!=' value
 *
 * `key` alone holds when the context value is truthy; `value` is compared with the context value as a string.
 */

/** The context keys the when-clauses read (see shell/app-context.ts for what each means). */
export type ContextValue = string | number | boolean | null;
export type WhenContext = Readonly<Record<string, ContextValue>>;

interface Term {
  key: string;
  /** 'truthy' | 'falsy' | '==' | '!=' */
  op: 'truthy' | 'falsy' | '==' | '!=';
  value: string;
}

const KEY = /^[A-Za-z][\w.]*$/;
const parsed = new Map<string, Term[]>();

/**
 * Parses a when-clause (cached).
 * @throws Error naming the clause and the term that does not parse
 */
export function parseWhen(clause: string): readonly Term[] {
  const known = parsed.get(clause);
  if (known) return known;
  const terms = clause.split('&&').map((raw): Term => {
    const text = raw.trim();
    const comparison = /^([^=!\s]+)\s*(==|!=)\s*(\S+)$/.exec(text);
    if (comparison) {
      if (!KEY.test(comparison[1])) throw new Error(`when-clause "${clause}": "${comparison[1]}" is not a context key`);
      return { key: comparison[1], op: comparison[2] as '==' | '!=', value: comparison[3] };
    }
    const negated = text.startsWith('!');
    const key = negated ? text.slice(1).trim() : text;
    if (!KEY.test(key)) throw new Error(`when-clause "${clause}": "${text}" is neither a context key nor a comparison`);
    return { key, op: negated ? 'falsy' : 'truthy', value: '' };
  });
  parsed.set(clause, terms);
  return terms;
}

/** Whether `clause` holds in `context`; an absent or empty clause always holds. */
export function whenHolds(clause: string | undefined, context: WhenContext): boolean {
  if (!clause) return true;
  for (const term of parseWhen(clause)) {
    const value = context[term.key];
    const holds =
      term.op === 'truthy'
        ? !!value
        : term.op === 'falsy'
          ? !value
          : term.op === '=='
            ? String(value) === term.value
            : String(value) !== term.value;
    if (!holds) return false;
  }
  return true;
}

/** Every context key a clause reads, with the values it compares against (for exhaustive checks in tests). */
export function whenKeys(clause: string | undefined): Map<string, Set<string>> {
  const keys = new Map<string, Set<string>>();
  if (!clause) return keys;
  for (const term of parseWhen(clause)) {
    const values = keys.get(term.key) ?? new Set<string>();
    if (term.op === '==' || term.op === '!=') values.add(term.value);
    keys.set(term.key, values);
  }
  return keys;
}

/** Why the user's edits wait while a script runs (toolBusy is set then too: the script holds the scene). */
export const SCRIPT_RUNNING = 'a script is running — Stop it first';

/**
 * Why each context key stops a command, in words: `whenTrue` when the clause needs the key off and it is on,
 * `whenFalse` when it needs it on and it is off. A script that runs a command at the wrong moment is told this.
 */
const KEY_REASONS: Readonly<Record<string, { whenTrue: (context: WhenContext) => string; whenFalse: string }>> = {
  toolBusy: {
    whenTrue: (context) =>
      context.scriptRunning ? SCRIPT_RUNNING : context.tool === 'brush' ? 'a paint stroke is in progress' : 'a gesture is in progress',
    whenFalse: 'no gesture is in progress',
  },
  binding: { whenTrue: () => 'weights are being computed', whenFalse: 'no weights are being computed' },
  boneSelected: { whenTrue: () => 'a bone is selected', whenFalse: 'no bone selected' },
  bindPanel: { whenTrue: () => 'the bind panel is open', whenFalse: 'the bind panel is closed' },
  unposedShown: { whenTrue: () => 'the unposed examples are shown', whenFalse: 'the unposed examples are not shown' },
  meshActive: { whenTrue: () => 'a mesh is active', whenFalse: 'no mesh is active (all meshes are)' },
  meshHidden: { whenTrue: () => 'a mesh is hidden', whenFalse: 'no mesh is hidden' },
  helpOpen: { whenTrue: () => 'the help is open', whenFalse: 'the help is not open' },
  hasSkeleton: { whenTrue: () => 'the scene has a skeleton', whenFalse: 'no skeleton yet: build one with the skeleton tool (J)' },
  scriptRunning: { whenTrue: () => SCRIPT_RUNNING, whenFalse: 'no script is running' },
};

/** What a context key is called in a comparison's reason ('the tool is lasso, not brush'). */
const KEY_NOUNS: Readonly<Record<string, string>> = { tool: 'the tool', toolState: 'the tool’s state' };

/**
 * Why `clause` does not hold in `context`: the reason of its first term that fails, in words; null when it holds.
 * Keys without a reason of their own are named with their value.
 */
export function whyNot(clause: string | undefined, context: WhenContext): string | null {
  if (!clause) return null;
  for (const term of parseWhen(clause)) {
    const value = context[term.key];
    const reasons = KEY_REASONS[term.key];
    const noun = KEY_NOUNS[term.key] ?? term.key;
    if (term.op === 'truthy' && !value) return reasons?.whenFalse ?? `${term.key} is off`;
    if (term.op === 'falsy' && value) return reasons?.whenTrue(context) ?? `${term.key} is on`;
    if (term.op === '==' && String(value) !== term.value) return `${noun} is ${String(value)}, not ${term.value}`;
    if (term.op === '!=' && String(value) === term.value) return `${noun} is ${term.value}`;
  }
  return null;
}
