/**
 * Checks on everything the main process receives from the page over IPC. The page is treated as untrusted
 * (it renders user files and could be compromised), so each argument is checked for type, length, allowed
 * values and size before main touches a dialog or the file system. Pure functions; main.ts calls them.
 */
import {
  ASSET_RESOURCE_EXTENSIONS,
  AUTOSAVE_CHUNK_BYTES,
  COMMAND_ID_PATTERN,
  LABEL_CONTROL_CHARACTERS,
  MAX_ASSET_RESOURCES,
  MAX_FILE_BYTES,
  MAX_AUTOSAVE_REMOVE,
  MAX_FILE_NAME_LENGTH,
  MAX_MENU_ITEMS,
  MAX_MENU_LABEL_LENGTH,
  MAX_MENUS,
  MAX_RESOURCE_URI_LENGTH,
  MAX_SCRIPT_PATH_LENGTH,
  OPENABLE_EXTENSIONS,
  PROJECT_TOKEN_PATTERN,
  RIG_FILE_EXTENSIONS,
  SAVEABLE_EXTENSIONS,
  autosaveIdProblem,
  autosaveInfoProblem,
  type AutosaveChunk,
  type AutosaveInfo,
  type MenuEntryModel,
  type MenuItemModel,
  type MenuModel,
  type MenuModelEntry,
  type SaveFileRequest,
  type SaveProjectRequest,
  type ScriptFileRequest,
} from './ipc-contract.ts';
import { APP_HOST, APP_SCHEME } from './app-scheme.ts';
import { boneNamesFileFor } from '../workers/formats/bone-names.ts';
import { FormatError } from '../workers/formats/format-error.ts';
import { WINDOWS_DEVICE_NAME, resourcePath } from '../workers/formats/resource-path.ts';

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
// eslint-disable-next-line no-control-regex -- control characters are what this pattern exists to refuse
const FORBIDDEN_NAME_CHARACTERS = /[\u0000-\u001f\u007f<>:"/\\|?*]/;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** @param place  where in the argument `value` is ("menu 2 item 5"), put before the reason; none for the argument itself */
function refuseUnknownKeys(channel: string, value: Record<string, unknown>, known: readonly string[], place?: string): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) {
      throw new IpcArgumentError(channel, `${place ? `${place}: ` : ''}unexpected field "${key.slice(0, 40)}"`);
    }
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
  if (value === '.' || value === '..' || /[. ]$/.test(value) || WINDOWS_DEVICE_NAME.test(value)) {
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
    // eslint-disable-next-line no-control-regex -- control characters are what this pattern exists to refuse
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

/** A SaveAssetRequest checked, each resource with the file it is relative to the .gltf's folder. */
export interface ValidSaveAssetRequest {
  suggestedName: string;
  bytes: Uint8Array;
  /** `path`: resourcePath of the URI, `/`-separated, inside the folder; no two alike (ignoring case) */
  resources: { uri: string; path: string; bytes: Uint8Array }[];
}

/**
 * Validates the argument of `saveAsset`: the same rule for the URIs as the readers and the CLI apply, so a page that
 * was made to send `../…` or an absolute path cannot write outside the folder the user chooses.
 * @param value  what the page sent: { suggestedName: a base name ending in .gltf, bytes: Uint8Array, resources: an
 *               array of at most MAX_ASSET_RESOURCES { uri, bytes } }, no other fields; each uri a string of at most
 *               MAX_RESOURCE_URI_LENGTH naming a file inside the folder (resourcePath) whose name ends in one of
 *               ASSET_RESOURCE_EXTENSIONS, no two naming the same file (ignoring case, as Windows and macOS do);
 *               all the bytes together at most MAX_FILE_BYTES. Or a .tgf skeleton whose one resource is its names
 *               file beside it (boneNamesFileFor)
 * @returns the same fields, each resource with its path
 * @throws IpcArgumentError naming the field at fault (`resources[2].uri: …`)
 */
export function validateSaveAssetRequest(channel: string, value: unknown): ValidSaveAssetRequest {
  if (!isPlainObject(value)) throw new IpcArgumentError(channel, 'request must be an object');
  refuseUnknownKeys(channel, value, ['suggestedName', 'bytes', 'resources']);
  const suggestedName = validateBaseName(channel, value.suggestedName);
  const skeleton = extensionOf(suggestedName) === 'tgf';
  if (extensionOf(suggestedName) !== 'gltf' && !skeleton)
    throw new IpcArgumentError(channel, 'an asset with resources is a .gltf file, or a .tgf skeleton with its .names file');
  const { bytes, resources } = value;
  if (!(bytes instanceof Uint8Array)) throw new IpcArgumentError(channel, 'bytes must be a Uint8Array');
  if (!Array.isArray(resources)) throw new IpcArgumentError(channel, 'resources must be an array');
  if (resources.length > MAX_ASSET_RESOURCES) throw new IpcArgumentError(channel, `at most ${MAX_ASSET_RESOURCES} resources`);
  const namesFile = boneNamesFileFor(suggestedName);
  if (skeleton && resources.length !== 1)
    throw new IpcArgumentError(channel, `a .tgf skeleton has one resource, its names file ${namesFile}`);
  let total = bytes.byteLength;
  const seen = new Set<string>();
  const valid = resources.map((resource: unknown, i) => {
    const place = `resources[${i}]`;
    if (!isPlainObject(resource)) throw new IpcArgumentError(channel, `${place}: must be an object`);
    refuseUnknownKeys(channel, resource, ['uri', 'bytes'], place);
    const { uri } = resource;
    if (typeof uri !== 'string') throw new IpcArgumentError(channel, `${place}.uri must be a string`);
    if (uri.length > MAX_RESOURCE_URI_LENGTH)
      throw new IpcArgumentError(channel, `${place}.uri is longer than ${MAX_RESOURCE_URI_LENGTH} characters`);
    let path: string;
    try {
      path = resourcePath(uri, suggestedName);
    } catch (error) {
      if (error instanceof FormatError) throw new IpcArgumentError(channel, `${place}.uri: ${error.reason}`);
      throw error;
    }
    if (skeleton && path !== namesFile) throw new IpcArgumentError(channel, `${place}.uri must be the skeleton's names file ${namesFile}`);
    if (!skeleton && !(ASSET_RESOURCE_EXTENSIONS as readonly string[]).includes(extensionOf(path.slice(path.lastIndexOf('/') + 1))))
      throw new IpcArgumentError(channel, `${place}.uri must end in one of .${ASSET_RESOURCE_EXTENSIONS.join(', .')}`);
    const key = path.toLowerCase();
    if (seen.has(key)) throw new IpcArgumentError(channel, `${place}.uri names a file an earlier resource names`);
    seen.add(key);
    const data = resource.bytes;
    if (!(data instanceof Uint8Array)) throw new IpcArgumentError(channel, `${place}.bytes must be a Uint8Array`);
    total += data.byteLength;
    if (total > MAX_FILE_BYTES) throw new IpcArgumentError(channel, `the asset is larger than ${MAX_FILE_BYTES} bytes`);
    return { uri, path, bytes: data };
  });
  return { suggestedName, bytes, resources: valid };
}

/** Far longer than any id in the command catalog; keeps what an error message quotes short. */
const MAX_COMMAND_ID_LENGTH = 100;

/**
 * The Electron accelerators a menu model may show: modifiers from CmdOrCtrl, Ctrl, Shift and Alt, then one key —
 * an uppercase letter, a digit, F1–F24, Space, an arrow, Esc, Enter, Delete, Backspace, '/', '?' or ','. Each modifier
 * at most once (checked apart from the pattern).
 */
const ACCELERATOR_PATTERN =
  /^(?:(?:CmdOrCtrl|Ctrl|Shift|Alt)\+){0,4}(?:[A-Z0-9]|F(?:[1-9]|1[0-9]|2[0-4])|Space|Left|Right|Up|Down|Esc|Enter|Delete|Backspace|\/|\?|,)$/;
/** Longer than any accelerator the pattern admits ('CmdOrCtrl+Ctrl+Shift+Alt+Backspace' is 34). */
const MAX_ACCELERATOR_LENGTH = 40;

function validateLabel(channel: string, place: string, value: unknown): string {
  if (typeof value !== 'string') throw new IpcArgumentError(channel, `${place}: label must be a string`);
  if (value.length === 0) throw new IpcArgumentError(channel, `${place}: label is empty`);
  if (value.length > MAX_MENU_LABEL_LENGTH) {
    throw new IpcArgumentError(channel, `${place}: label is longer than ${MAX_MENU_LABEL_LENGTH} characters`);
  }
  if (LABEL_CONTROL_CHARACTERS.test(value)) throw new IpcArgumentError(channel, `${place}: label has control characters`);
  return value;
}

function validateAccelerator(channel: string, place: string, value: unknown): string {
  if (typeof value !== 'string') throw new IpcArgumentError(channel, `${place}: accelerator must be a string`);
  const shown = JSON.stringify(value.slice(0, MAX_ACCELERATOR_LENGTH));
  if (value.length > MAX_ACCELERATOR_LENGTH || !ACCELERATOR_PATTERN.test(value)) {
    throw new IpcArgumentError(channel, `${place}: accelerator ${shown} is not modifiers (CmdOrCtrl, Ctrl, Shift, Alt) and one key`);
  }
  const modifiers = value.split('+').slice(0, -1);
  if (new Set(modifiers).size !== modifiers.length) {
    throw new IpcArgumentError(channel, `${place}: accelerator ${shown} repeats a modifier`);
  }
  return value;
}

function validateMenuItem(channel: string, place: string, value: unknown): MenuItemModel {
  if (!isPlainObject(value)) throw new IpcArgumentError(channel, `${place}: must be an object`);
  refuseUnknownKeys(channel, value, ['command', 'label', 'enabled', 'checked', 'accelerator'], place);
  const { command } = value;
  if (typeof command !== 'string') throw new IpcArgumentError(channel, `${place}: command must be a string`);
  if (command.length > MAX_COMMAND_ID_LENGTH || !COMMAND_ID_PATTERN.test(command)) {
    throw new IpcArgumentError(
      channel,
      `${place}: command ${JSON.stringify(command.slice(0, 40))} is not a command id such as "edit.undo"`,
    );
  }
  const label = validateLabel(channel, place, value.label);
  if (typeof value.enabled !== 'boolean') throw new IpcArgumentError(channel, `${place}: enabled must be a boolean`);
  const item: MenuItemModel = { command, label, enabled: value.enabled };
  if (value.checked !== undefined) {
    if (typeof value.checked !== 'boolean') throw new IpcArgumentError(channel, `${place}: checked must be a boolean`);
    item.checked = value.checked;
  }
  if (value.accelerator !== undefined) item.accelerator = validateAccelerator(channel, place, value.accelerator);
  return item;
}

/** A separator row: exactly { separator: true }. */
function validateSeparator(channel: string, place: string, value: Record<string, unknown>): MenuEntryModel {
  refuseUnknownKeys(channel, value, ['separator'], place);
  if (value.separator !== true) throw new IpcArgumentError(channel, `${place}: separator must be true`);
  return { separator: true };
}

/**
 * Validates the argument of `setMenu`: the desktop menus as the renderer describes them.
 * @param value  what the page sent: an array of at most MAX_MENUS { label, items } with distinct, non-empty
 *               labels of at most MAX_MENU_LABEL_LENGTH characters and no control characters; each `items` an
 *               array of 1 to MAX_MENU_ITEMS { command, label, enabled, checked?, accelerator? }: command matching
 *               COMMAND_ID_PATTERN, label as above, enabled and checked booleans, accelerator an Electron
 *               accelerator of the modifiers CmdOrCtrl, Ctrl, Shift, Alt and one key (ACCELERATOR_PATTERN);
 *               or a separator { separator: true } between two commands (not first, not last, not next to
 *               another). No other fields.
 * @returns      a fresh copy holding only those fields, in that order (optional ones only when present), so
 *               equal models serialize alike
 * @throws IpcArgumentError naming the place, counting from 1: "menu 2 item 5: label is longer than 120 characters"
 */
export function validateMenuModel(channel: string, value: unknown): MenuModel {
  if (!Array.isArray(value)) throw new IpcArgumentError(channel, 'menu model must be an array');
  if (value.length > MAX_MENUS) throw new IpcArgumentError(channel, `menu model has more than ${MAX_MENUS} menus`);
  const menus: MenuModelEntry[] = [];
  for (let m = 0; m < value.length; m++) {
    const place = `menu ${m + 1}`;
    const menu: unknown = value[m];
    if (!isPlainObject(menu)) throw new IpcArgumentError(channel, `${place}: must be an object`);
    refuseUnknownKeys(channel, menu, ['label', 'items'], place);
    const label = validateLabel(channel, place, menu.label);
    const repeated = menus.findIndex((earlier) => earlier.label === label);
    if (repeated >= 0) throw new IpcArgumentError(channel, `${place}: label ${JSON.stringify(label)} repeats menu ${repeated + 1}`);
    const { items } = menu;
    if (!Array.isArray(items)) throw new IpcArgumentError(channel, `${place}: items must be an array`);
    if (items.length === 0) throw new IpcArgumentError(channel, `${place}: has no items`);
    if (items.length > MAX_MENU_ITEMS) throw new IpcArgumentError(channel, `${place}: has more than ${MAX_MENU_ITEMS} items`);
    const validItems: MenuEntryModel[] = [];
    for (let i = 0; i < items.length; i++) {
      const itemPlace = `${place} item ${i + 1}`;
      const item: unknown = items[i];
      if (!(isPlainObject(item) && 'separator' in item)) {
        validItems.push(validateMenuItem(channel, itemPlace, item));
        continue;
      }
      validItems.push(validateSeparator(channel, itemPlace, item));
      if (i === 0 || i === items.length - 1) throw new IpcArgumentError(channel, `${itemPlace}: a separator cannot start or end a menu`);
      if (isPlainObject(items[i - 1]) && 'separator' in items[i - 1]) {
        throw new IpcArgumentError(channel, `${itemPlace}: a separator follows another`);
      }
    }
    menus.push({ label, items: validItems });
  }
  return menus;
}

/**
 * Validates an autosave session or version id (AUTOSAVE_ID_PATTERN): it becomes part of a file name in the
 * autosave folder, so nothing but letters, digits and dashes.
 * @param what  'session' or 'id', said in the message
 */
export function validateAutosaveId(channel: string, value: unknown, what = 'id'): string {
  const problem = autosaveIdProblem(value, what);
  if (problem !== null) throw new IpcArgumentError(channel, problem);
  return value as string;
}

/**
 * Validates an autosave version's info (autosaveInfoProblem in ipc-contract.ts says what it must be).
 * @returns a fresh copy with only its fields
 */
export function validateAutosaveInfo(channel: string, value: unknown): AutosaveInfo {
  const problem = autosaveInfoProblem(value);
  if (problem !== null) throw new IpcArgumentError(channel, problem);
  return { ...(value as AutosaveInfo) };
}

/** Most chunks one autosaved version may be sent in: MAX_FILE_BYTES in chunks of AUTOSAVE_CHUNK_BYTES. */
export const MAX_AUTOSAVE_CHUNKS = Math.ceil(MAX_FILE_BYTES / AUTOSAVE_CHUNK_BYTES);

/**
 * Validates the argument of autosaveChunk: { id (AUTOSAVE_ID_PATTERN), index: a whole number below
 * MAX_AUTOSAVE_CHUNKS, bytes: a Uint8Array of at most AUTOSAVE_CHUNK_BYTES }, no other fields. Whether the chunk
 * comes in order is main's to check (autosave-upload.ts).
 */
export function validateAutosaveChunk(channel: string, value: unknown): AutosaveChunk {
  if (!isPlainObject(value)) throw new IpcArgumentError(channel, 'chunk must be an object');
  refuseUnknownKeys(channel, value, ['id', 'index', 'bytes']);
  const id = validateAutosaveId(channel, value.id);
  const { index, bytes } = value;
  if (typeof index !== 'number' || !Number.isSafeInteger(index) || index < 0 || index >= MAX_AUTOSAVE_CHUNKS) {
    throw new IpcArgumentError(channel, `index must be a whole number from 0 to ${MAX_AUTOSAVE_CHUNKS - 1}`);
  }
  if (!(bytes instanceof Uint8Array)) throw new IpcArgumentError(channel, 'bytes must be a Uint8Array');
  if (bytes.byteLength > AUTOSAVE_CHUNK_BYTES) {
    throw new IpcArgumentError(channel, `chunk ${index} of ${id} holds ${bytes.byteLength} bytes, more than ${AUTOSAVE_CHUNK_BYTES}`);
  }
  return { id, index, bytes };
}

/** Validates the argument of autosaveRemove: an array of at most MAX_AUTOSAVE_REMOVE version ids. */
export function validateAutosaveRemove(channel: string, value: unknown): string[] {
  if (!Array.isArray(value)) throw new IpcArgumentError(channel, 'ids must be an array');
  if (value.length > MAX_AUTOSAVE_REMOVE) throw new IpcArgumentError(channel, `at most ${MAX_AUTOSAVE_REMOVE} ids at once`);
  return value.map((id, index) => validateAutosaveId(channel, id, `ids[${index}]`));
}

/** A boolean argument (setUnsaved, answerClose). */
export function validateBoolean(channel: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw new IpcArgumentError(channel, 'argument must be true or false');
  return value;
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

function validateProjectToken(channel: string, value: unknown): string {
  if (typeof value !== 'string' || value.length > 80 || !PROJECT_TOKEN_PATTERN.test(value)) {
    throw new IpcArgumentError(channel, 'token must be letters, digits and dashes (at most 80)');
  }
  return value;
}

/**
 * Validates the argument of `openProject`: nothing (a dialog asks) or a token of a recent file.
 * @returns the token, or undefined
 * @throws IpcArgumentError for anything else
 */
export function validateOpenProjectRequest(channel: string, value: unknown): string | undefined {
  return value === undefined ? undefined : validateProjectToken(channel, value);
}

/**
 * Validates the argument of `saveProject`.
 * @param value  { token?: a project token, suggestedName: a base name ending in .glb, bytes: Uint8Array of at
 *               most MAX_FILE_BYTES }, no other fields
 * @throws IpcArgumentError naming the field at fault
 */
export function validateSaveProjectRequest(channel: string, value: unknown): SaveProjectRequest {
  if (!isPlainObject(value)) throw new IpcArgumentError(channel, 'request must be an object');
  refuseUnknownKeys(channel, value, ['token', 'suggestedName', 'bytes']);
  const suggestedName = validateBaseName(channel, value.suggestedName);
  if (extensionOf(suggestedName) !== 'glb') throw new IpcArgumentError(channel, 'a project file name must end in .glb');
  const bytes = value.bytes;
  if (!(bytes instanceof Uint8Array)) throw new IpcArgumentError(channel, 'bytes must be a Uint8Array');
  if (bytes.byteLength > MAX_FILE_BYTES) throw new IpcArgumentError(channel, `file is larger than ${MAX_FILE_BYTES} bytes`);
  if (value.token === undefined) return { suggestedName, bytes };
  return { token: validateProjectToken(channel, value.token), suggestedName, bytes };
}

/** A script's file request with the fields main reads first (the write's bytes are checked as a save's). */
export interface ValidScriptFileRequest extends ScriptFileRequest {
  outside: boolean;
  /** a write's own fields (bytes, resources), as received: main checks them as saveFile or saveAsset does */
  rest: Record<string, unknown>;
}

/**
 * Validates the path, project and outside fields of `scriptReadFile` and `scriptWriteFile`.
 * @param value  { path: a non-empty string of at most MAX_SCRIPT_PATH_LENGTH without control characters, project?: a
 *               project token, outside?: boolean } and, for a write, bytes and resources (checked by the caller)
 * @param write  whether bytes and resources may come too (scriptWriteFile)
 * @throws IpcArgumentError naming the field at fault
 */
export function validateScriptFileRequest(channel: string, value: unknown, write: boolean): ValidScriptFileRequest {
  if (!isPlainObject(value)) throw new IpcArgumentError(channel, 'request must be an object');
  refuseUnknownKeys(channel, value, ['path', 'project', 'outside', ...(write ? ['bytes', 'resources'] : [])]);
  const { path, project, outside, ...rest } = value;
  if (typeof path !== 'string' || path.length === 0) throw new IpcArgumentError(channel, 'path must be a non-empty string');
  if (path.length > MAX_SCRIPT_PATH_LENGTH) throw new IpcArgumentError(channel, `path is longer than ${MAX_SCRIPT_PATH_LENGTH} characters`);
  // eslint-disable-next-line no-control-regex -- control characters are what this pattern exists to refuse
  if (/[\u0000-\u001f\u007f]/.test(path)) throw new IpcArgumentError(channel, 'path has control characters');
  if (outside !== undefined && typeof outside !== 'boolean') throw new IpcArgumentError(channel, 'outside must be a boolean');
  return {
    path,
    ...(project === undefined ? {} : { project: validateProjectToken(channel, project) }),
    outside: outside === true,
    rest,
  };
}
