/**
 * The one rule for where a file that an asset names may be: inside the asset's own folder. A glTF's buffer and image
 * URIs, an OBJ's `mtllib` libraries and an MTL's `map_Kd` images come from a file that may have been downloaded, so
 * a name that leaves the folder would let the file read (and an in-place export write) files of its choosing
 * elsewhere. Readers and writers turn a name into a path with these functions only; the Node side adds the check
 * that symbolic links cannot do what `..` may not (app/asset-resources.ts).
 *
 * A name is accepted when it is a relative path to a file: folders separated by `/` (a `\` is read as `/`, as
 * browsers read it, so it cannot hide a `..`), `.` and empty segments dropped, a `..` allowed while it stays inside
 * (`textures/../skin.png` is `skin.png`). Refused: an absolute path (`/etc/hostname`, `\\server\share`, `C:\…`,
 * `C:skin.png`), any URI scheme (`file:`, `http:`, …; a glTF's `data:` URIs are decoded by the reader and never
 * come here), a `..` that leaves the folder, control characters (NUL included), a name of no file (empty, or
 * ending in `/`, `.` or `..`), and names Windows reads otherwise: with `< > : " | ? *` (a `:` is a drive or a data
 * stream), a device (`CON`, `NUL.png`, `COM1`, …) or a trailing dot or space.
 *
 * glTF URIs are percent-decoded exactly once before the rule is applied (`%2e%2e/x.png` is `../x.png`, refused;
 * `%252e` is the file name `%2e`); a URI with a malformed escape (`100%.bin`) is taken as written. OBJ and MTL names
 * are plain file names and are not decoded.
 */
import { FormatError } from './format-error.ts';

/** Longest part of a refused name a message quotes. */
const MAX_QUOTED = 120;
/** Characters Windows allows in no file or folder name (a `:` names a drive or an NTFS data stream). */
const WINDOWS_FORBIDDEN_CHARACTER = /[<>:"|?*]/;
/** Windows device names, with any extension: such a name is a device, not a file (reading `CON` waits on the console). */
export const WINDOWS_DEVICE_NAME = /^(con|prn|aux|nul|conin\$|conout\$|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;

/**
 * The file a glTF buffer or image URI names, as a path inside the asset's folder.
 * @param uri   the URI as the file writes it (not a `data:` URI)
 * @param file  the glTF file, for the message
 * @returns the path relative to the asset's folder: percent-decoded once, segments joined by `/`, no `.` or `..`
 * @throws FormatError naming the file and the URI when the URI is refused (see the module comment)
 */
export function resourcePath(uri: string, file: string): string {
  let decoded = uri;
  try {
    decoded = decodeURIComponent(uri);
  } catch {
    // A malformed escape (a `%` not followed by two hex digits) is a literal `%` to every loader: taken as written.
  }
  const checked = insideFolder([], decoded);
  if (typeof checked !== 'string') throw new FormatError(file, '', `resource URI ${quoted(uri)} ${checked.reason}`);
  return checked;
}

/**
 * The file an OBJ's `mtllib` or an MTL's `map_Kd` names, as a path inside the OBJ's folder.
 * @param name   the name as the file writes it (not decoded)
 * @param from   the folder it is relative to, itself a path inside the OBJ's folder ('' for the folder itself)
 * @returns the path relative to the OBJ's folder, or the reason it is refused (see the module comment)
 */
export function referencedPath(name: string, from: string): string | { reason: string } {
  const base = from === '' ? [] : from.split('/');
  return insideFolder(base, name);
}

/** `path` (relative to the folder whose segments `base` holds) as a normalized path inside the root, or why not. */
function insideFolder(base: readonly string[], path: string): string | { reason: string } {
  if (/\p{Cc}/u.test(path)) return { reason: 'has a control character' };
  const slashed = path.replace(/\\/g, '/');
  if (slashed.startsWith('/')) return { reason: 'is an absolute path' };
  if (/^[A-Za-z]:/.test(slashed)) return { reason: 'is an absolute path (a drive letter)' };
  const scheme = /^([A-Za-z][A-Za-z0-9+-]*):/.exec(slashed);
  if (scheme) return { reason: `is a ${scheme[1].toLowerCase()}: URI, not a file in the asset's folder` };
  const segments = [...base];
  const parts = slashed.split('/');
  for (const part of parts) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (segments.length === 0) return { reason: "leads out of the asset's folder" };
      segments.pop();
    } else {
      const forbidden = WINDOWS_FORBIDDEN_CHARACTER.exec(part);
      if (forbidden) return { reason: `has "${forbidden[0]}" in a name, which Windows allows in no file name` };
      if (WINDOWS_DEVICE_NAME.test(part)) return { reason: `names the device ${part.split('.')[0].toUpperCase()}, not a file` };
      if (/[. ]$/.test(part)) return { reason: 'has a name ending in a dot or a space, which Windows drops' };
      segments.push(part);
    }
  }
  const last = parts[parts.length - 1];
  if (segments.length === 0 || last === '' || last === '.' || last === '..') return { reason: 'names a folder, not a file' };
  return segments.join('/');
}

/** The name in double quotes for a one-line message: at most MAX_QUOTED characters, unprintable ones escaped. */
export function quoted(name: string): string {
  const shown = name.length > MAX_QUOTED ? `${name.slice(0, MAX_QUOTED)}…` : name;
  return JSON.stringify(shown).replace(/[\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
