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
