/**
 * Lists in notices kept to a readable length: what an export changed, named up to a few and the rest counted
 * (keep-draco.ts, keep-meshopt.ts).
 */

/** How many things a notice names; the rest are counted. */
export const NAMED = 6;

/** 'a, b, c and 4 more': the first NAMED of `names`, the rest counted. */
export function namedList(names: readonly string[]): string {
  return names.slice(0, NAMED).join(', ') + (names.length > NAMED ? ` and ${names.length - NAMED} more` : '');
}

/**
 * Things grouped by reason, at most NAMED of them named in all and the rest counted:
 * 'mesh 0 primitive 1, mesh 1 primitive 0 and 3 more: their weights changed; 2 more for other reasons'.
 * @param list  each thing's label and reason, in the order they are to be named
 * @param said  the reason's words for one thing or for several (`count` > 1)
 */
export function byReason<R>(list: readonly { label: string; reason: R }[], said: (reason: R, count: number) => string): string {
  const groups = new Map<R, string[]>();
  for (const one of list) groups.set(one.reason, [...(groups.get(one.reason) ?? []), one.label]);
  let left = NAMED;
  let unnamed = 0;
  const parts: string[] = [];
  for (const [reason, labels] of groups) {
    if (left === 0) {
      unnamed += labels.length;
      continue;
    }
    const shown = labels.slice(0, left);
    left -= shown.length;
    const more = labels.length - shown.length;
    parts.push(`${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''}: ${said(reason, labels.length)}`);
  }
  if (unnamed > 0) parts.push(`${unnamed} more for other reasons`);
  return parts.join('; ');
}
