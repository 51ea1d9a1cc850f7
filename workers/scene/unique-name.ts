/**
 * A name no other item has: `base` itself when it is free, else `base` with the first free three-digit suffix,
 * `base.001`, `base.002`, … (Blender's way), for a split bone's second half and a new clip.
 * @param taken  the names in use
 * @param base   the name wanted
 */
export function uniqueName(taken: ReadonlySet<string>, base: string): string {
  if (!taken.has(base)) return base;
  for (let n = 1; ; n++) {
    const name = `${base}.${String(n).padStart(3, '0')}`;
    if (!taken.has(name)) return name;
  }
}
