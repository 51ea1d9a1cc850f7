/**
 * The skeleton as the bone list shows it, without a DOM: the bones in tree order with their depth, and which bones a
 * name search shows (the matches and, so that the tree still reads as one, their ancestors).
 */

/** The bones in tree order (roots by index, each followed by its subtree, children by index) with their depth. */
export function treeOrder(parents: ArrayLike<number>): { bone: number; depth: number }[] {
  const children: number[][] = Array.from({ length: parents.length }, () => []);
  const roots: number[] = [];
  for (let b = 0; b < parents.length; b++) (parents[b] >= 0 ? children[parents[b]] : roots).push(b);
  const out: { bone: number; depth: number }[] = [];
  const stack = roots.reverse().map((bone) => ({ bone, depth: 0 }));
  while (stack.length > 0) {
    const next = stack.pop()!;
    out.push(next);
    for (let i = children[next.bone].length - 1; i >= 0; i--) stack.push({ bone: children[next.bone][i], depth: next.depth + 1 });
  }
  return out;
}

/**
 * The bones a search shows: those whose name holds the query (any case) and their ancestors; null for no query.
 * @returns for each bone, 2 = a match, 1 = an ancestor of one, 0 = hidden; or null when every bone shows
 */
export function searchMatches(names: readonly string[], parents: ArrayLike<number>, query: string): Uint8Array | null {
  const q = query.trim().toLowerCase();
  if (q === '') return null;
  const shown = new Uint8Array(names.length);
  names.forEach((name, b) => {
    if (!name.toLowerCase().includes(q)) return;
    shown[b] = 2;
    for (let up = parents[b]; up >= 0 && shown[up] === 0; up = parents[up]) shown[up] = 1;
  });
  return shown;
}
