/**
 * Which glTF an OBJ that `rigwright import` wrote was read from, so that a later fresh `rigwright export` from the
 * written files can name what it leaves out of that file (gltf/fresh-losses.ts). `import` puts one comment line first
 * in the OBJ, `# imported from "PATH"`, PATH the glTF's path relative to the OBJ's folder as a JSON string (absolute
 * when there is none, as for a file on another drive); OBJ readers skip comments, so the mesh reads as before.
 * `export` reads that line back: when the file is still there it is the rig's source (GltfRig.source) and its losses
 * are notices; when it is not, one warning says they could not be checked. Paths in the warnings are shown printable.
 */
import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import type { GltfRig } from '../../workers/formats/gltf-export.ts';
import { FormatError, MAX_FILE_NAME_SHOWN, printableLine } from '../../workers/formats/format-error.ts';
import { readBytes } from './cli-support.ts';

const PREFIX = '# imported from ';

/** How many bytes of an OBJ's start are searched for the line: it is the first line `import` writes. */
const HEAD_BYTES = 4096;

/**
 * The OBJ comment line that records `sourceFile` for an OBJ written to `objFile`.
 * @param objFile    the OBJ's path
 * @param sourceFile the glTF's path
 * @returns the line, without its line break
 */
export function importedFromLine(objFile: string, sourceFile: string): string {
  const relative = path
    .relative(path.dirname(path.resolve(objFile)), path.resolve(sourceFile))
    .split(path.sep)
    .join('/');
  return `${PREFIX}${JSON.stringify(relative)}`;
}

/**
 * The glTF path an OBJ's leading comment lines record (importedFromLine), resolved against the OBJ's folder (an
 * absolute record stays as it is); null when the OBJ records none (not written by `import`, or edited since), or it
 * cannot be read.
 * @param meshFile the OBJ's path
 */
export function importedFromOf(meshFile: string): string | null {
  if (!/\.obj$/i.test(meshFile)) return null;
  let head: string;
  try {
    const fd = openSync(meshFile, 'r');
    try {
      const bytes = new Uint8Array(HEAD_BYTES);
      head = new TextDecoder().decode(bytes.subarray(0, readSync(fd, bytes, 0, HEAD_BYTES, 0)));
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
  for (const line of head.replace(/^\uFEFF/, '').split(/\r?\n/)) {
    if (!line.startsWith('#')) break;
    if (!line.startsWith(PREFIX)) continue;
    try {
      const relative: unknown = JSON.parse(line.slice(PREFIX.length));
      if (typeof relative === 'string' && relative !== '') return path.resolve(path.dirname(meshFile), relative);
    } catch {
      // Not a line import wrote: as if there were none.
    }
    return null;
  }
  return null;
}

/**
 * The source of a fresh export from `meshFile` (importedFromOf), read; undefined when the OBJ records none, or (with a
 * warning) when the file it records is no longer there or cannot be read.
 * @param meshFile the export's --mesh
 * @param warn     takes a warning
 */
export function importedSource(meshFile: string, warn: (warning: string) => void): GltfRig['source'] {
  const file = importedFromOf(meshFile);
  if (file === null) return undefined;
  // Both paths come from the user and the OBJ: shown on one line of printable characters.
  const [mesh, shown] = [printableLine(meshFile, MAX_FILE_NAME_SHOWN), printableLine(file, MAX_FILE_NAME_SHOWN)];
  const unchecked =
    'what a fresh export leaves out of it (vertex colours, more texture coordinate sets, tangents, cameras, lights, animation of nodes that are not joints) could not be checked';
  if (!existsSync(file)) {
    warn(`${mesh}: it was imported from ${shown}, which is no longer there: ${unchecked}`);
    return undefined;
  }
  try {
    return { file, bytes: readBytes(file), resources: {} };
  } catch (error) {
    if (!(error instanceof FormatError)) throw error;
    warn(`${mesh}: it was imported from ${shown}, which cannot be read (${error.message}): ${unchecked}`);
    return undefined;
  }
}
