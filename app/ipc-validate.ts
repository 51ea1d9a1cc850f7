/**
 * Checks on everything the main process receives from the page over IPC. The page is treated as untrusted
 * (it renders user files and could be compromised), so each argument is checked for type, length, allowed
 * values and size before main touches a dialog or the file system. Pure functions; main.ts calls them.
 */
import {
  MAX_FILE_BYTES,
  MAX_FILE_NAME_LENGTH,
  OPENABLE_EXTENSIONS,
  RIG_FILE_EXTENSIONS,
  SAVEABLE_EXTENSIONS,
  type SaveFileRequest,
} from './ipc-contract.ts';
import { APP_HOST, APP_SCHEME } from './app-scheme.ts';

/** An IPC argument that does not match its channel's contract. The message names the channel and the reason. */
export class IpcArgumentError extends Error {
  override readonly name = 'IpcArgumentError';
  constructor(
    readonly channel: string,
    readonly reason: string,
  ) {
    super(`${channel}: ${reason}`);
  }
}

/** An `OpenFilesRequest` with its defaults filled in. */
export interface ValidOpenFilesRequest {
  title: string;
  /** lowercase, no dot, each one of OPENABLE_EXTENSIONS, no repeats, at least one */
  extensions: string[];
}

export const MAX_TITLE_LENGTH = 200;
export const DEFAULT_OPEN_TITLE = 'Open mesh, skeleton, weights or poses';

// Control characters and the characters Windows forbids in names; a name with them cannot be saved portably.
const FORBIDDEN_NAME_CHARACTERS = /[\u0000-\u001f\u007f<>:"/\\|?*]/;
const WINDOWS_RESERVED_NAME = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function refuseUnknownKeys(channel: string, value: Record<string, unknown>, known: readonly string[]): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) throw new IpcArgumentError(channel, `unexpected field "${key.slice(0, 40)}"`);
  }
}

/** The extension of a file name, lowercase without the dot ('' when there is none). */
export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot + 1).toLowerCase();
}

/**
 * Checks that `value` is a plain file name a dialog can offer and any file system can store: a non-empty
 * string of at most MAX_FILE_NAME_LENGTH characters, with no directory part, no control or reserved
 * characters, not `.`/`..`, not a Windows device name, not ending in a dot or space.
 * @returns the name unchanged
 * @throws IpcArgumentError naming `channel` and what is wrong
 */
export function validateBaseName(channel: string, value: unknown): string {
  if (typeof value !== 'string') throw new IpcArgumentError(channel, 'file name must be a string');
  if (value.length === 0) throw new IpcArgumentError(channel, 'file name is empty');
  if (value.length > MAX_FILE_NAME_LENGTH) {
    throw new IpcArgumentError(channel, `file name is longer than ${MAX_FILE_NAME_LENGTH} characters`);
  }
  if (FORBIDDEN_NAME_CHARACTERS.test(value)) {
    throw new IpcArgumentError(channel, 'file name must be a base name without directories or reserved characters');
  }
  if (value === '.' || value === '..' || /[. ]$/.test(value) || WINDOWS_RESERVED_NAME.test(value)) {
    throw new IpcArgumentError(channel, `"${value}" is not a usable file name`);
  }
  return value;
}

/**
 * Validates the argument of `openFiles`.
 * @param value  what the page sent: undefined, or { title?: string, extensions?: string[] }
 * @returns      title (default DEFAULT_OPEN_TITLE) and extensions (default RIG_FILE_EXTENSIONS)
 * @throws IpcArgumentError for another shape, a title over MAX_TITLE_LENGTH or with control characters,
 *         more extensions than OPENABLE_EXTENSIONS has, or an extension not in OPENABLE_EXTENSIONS
 */
export function validateOpenFilesRequest(channel: string, value: unknown): ValidOpenFilesRequest {
  if (value === undefined) return { title: DEFAULT_OPEN_TITLE, extensions: [...RIG_FILE_EXTENSIONS] };
  if (!isPlainObject(value)) throw new IpcArgumentError(channel, 'request must be an object');
  refuseUnknownKeys(channel, value, ['title', 'extensions']);
  let title = DEFAULT_OPEN_TITLE;
  if (value.title !== undefined) {
    if (typeof value.title !== 'string') throw new IpcArgumentError(channel, 'title must be a string');
    if (value.title.length > MAX_TITLE_LENGTH) {
      throw new IpcArgumentError(channel, `title is longer than ${MAX_TITLE_LENGTH} characters`);
    }
    if (/[\u0000-\u001f\u007f]/.test(value.title)) throw new IpcArgumentError(channel, 'title has control characters');
    if (value.title.length > 0) title = value.title;
  }
  const extensions: string[] = [];
  if (value.extensions !== undefined) {
    if (!Array.isArray(value.extensions)) throw new IpcArgumentError(channel, 'extensions must be an array');
    if (value.extensions.length > OPENABLE_EXTENSIONS.length) {
      throw new IpcArgumentError(channel, `at most ${OPENABLE_EXTENSIONS.length} extensions`);
    }
    for (const extension of value.extensions) {
      if (typeof extension !== 'string') throw new IpcArgumentError(channel, 'each extension must be a string');
      const lower = extension.toLowerCase();
      if (!(OPENABLE_EXTENSIONS as readonly string[]).includes(lower)) {
        throw new IpcArgumentError(
          channel,
          `extension "${extension.slice(0, 20)}" is not one of ${OPENABLE_EXTENSIONS.join(', ')} (no dot)`,
        );
      }
      if (!extensions.includes(lower)) extensions.push(lower);
    }
  }
  return { title, extensions: extensions.length > 0 ? extensions : [...RIG_FILE_EXTENSIONS] };
}

/**
 * Validates the argument of `saveFile`.
 * @param value  what the page sent: { suggestedName: base name ending in one of SAVEABLE_EXTENSIONS,
 *               bytes: Uint8Array of at most MAX_FILE_BYTES }
 * @returns      the same fields
 * @throws IpcArgumentError naming the field at fault
 */
export function validateSaveFileRequest(channel: string, value: unknown): SaveFileRequest {
  if (!isPlainObject(value)) throw new IpcArgumentError(channel, 'request must be an object');
  refuseUnknownKeys(channel, value, ['suggestedName', 'bytes']);
  const suggestedName = validateBaseName(channel, value.suggestedName);
  if (!(SAVEABLE_EXTENSIONS as readonly string[]).includes(extensionOf(suggestedName))) {
    throw new IpcArgumentError(channel, `file name must end in one of .${SAVEABLE_EXTENSIONS.join(', .')}`);
  }
  const bytes = value.bytes;
  if (!(bytes instanceof Uint8Array)) throw new IpcArgumentError(channel, 'bytes must be a Uint8Array');
  if (bytes.byteLength > MAX_FILE_BYTES) {
    throw new IpcArgumentError(channel, `file is larger than ${MAX_FILE_BYTES} bytes`);
  }
  return { suggestedName, bytes };
}

/**
 * True when an IPC message comes from a frame showing our own page (`rigwright://app/…`), not from a page
 * that somehow got navigated elsewhere or from an embedded frame of another origin.
 * @param url  the sender frame's URL, or null/undefined when the frame is gone
 */
export function isTrustedSenderUrl(url: unknown): boolean {
  if (typeof url !== 'string') return false;
  try {
    const parsed = new URL(url);
    return parsed.protocol === `${APP_SCHEME}:` && parsed.host === APP_HOST && parsed.username === '' && parsed.password === '';
  } catch {
    return false;
  }
}
