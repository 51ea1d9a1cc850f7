/**
 * File names as readers and loaders see them: a dropped file's name, a name given on the command line, or a file a
 * file refers to (an OBJ's mtllib, an MTL's map_Kd, a glTF's URI), written with `/` or `\` (Windows exporters)
 * folder separators.
 */

/** The name without its folders: `tex\skin.png` → `skin.png`. */
export function baseName(path: string): string {
  return path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
}

/** The base name's extension in lower case, without the dot; '' for none (or a name that starts with its only dot). */
export function fileExtension(path: string): string {
  const base = baseName(path);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
}
