/**
 * The typed contract between the Electron main process, the preload and the renderer: one entry per IPC
 * channel. The renderer imports only types from here (no node:* and no electron), the preload implements
 * `RigwrightBridge` over `ipcRenderer.invoke`, main validates every argument it receives against these shapes.
 * The web build implements the same `RigwrightBridge` with a file picker and downloads.
 */

export const IPC_CHANNELS = {
  openFiles: 'rigwright:open-files',
  saveFile: 'rigwright:save-file',
  saveAsset: 'rigwright:save-asset',
  menuCommand: 'rigwright:menu-command',
  setMenu: 'rigwright:set-menu',
  openProject: 'rigwright:open-project',
  saveProject: 'rigwright:save-project',
  recentProjects: 'rigwright:recent-projects',
  autosaveBegin: 'rigwright:autosave-begin',
  autosaveChunk: 'rigwright:autosave-chunk',
  autosaveWrite: 'rigwright:autosave-write',
  autosaveList: 'rigwright:autosave-list',
  autosaveRead: 'rigwright:autosave-read',
  autosaveRemove: 'rigwright:autosave-remove',
  autosaveUnmark: 'rigwright:autosave-unmark',
  setUnsaved: 'rigwright:set-unsaved',
  closeRequested: 'rigwright:close-requested',
  answerClose: 'rigwright:answer-close',
  scriptReadFile: 'rigwright:script-read-file',
  scriptWriteFile: 'rigwright:script-write-file',
} as const;

/** A file the user chose, read whole. `name` is the base name only: the renderer never sees paths. */
export interface OpenedFile {
  name: string;
  bytes: Uint8Array;
}

export interface OpenFilesRequest {
  /** dialog title */
  title?: string;
  /** extensions without the dot, e.g. ['obj', 'off']; empty or missing means the rig formats */
  extensions?: string[];
}

export interface SaveFileRequest {
  /** base name offered in the dialog, e.g. `posed.obj` */
  suggestedName: string;
  bytes: Uint8Array;
}

/**
 * A glTF asset saved as one: the .gltf and the files it names (buffers, images), written relative to wherever the
 * user saves the .gltf, subfolders made, all or none. Each resource's `uri` is the URI the .gltf names it by, which
 * must lead to a file inside that folder (workers/formats/resource-path.ts); main checks every one.
 */
export interface SaveAssetRequest {
  /**
   * base name offered in the dialog: a .gltf (with its buffers and images), or a .tgf skeleton (with its bone names
   * file, `<name>.names`, the one resource, saved under the name chosen for the TGF)
   */
  suggestedName: string;
  bytes: Uint8Array;
  /**
   * at most MAX_ASSET_RESOURCES, each URI ending in one of ASSET_RESOURCE_EXTENSIONS (a .tgf's: exactly its .names
   * file beside it); all the bytes together, the main file's included, at most MAX_FILE_BYTES
   */
  resources: { uri: string; bytes: Uint8Array }[];
}

/** Extensions a resource of a SaveAssetRequest may end in: glTF buffers and the image types a .gltf names. */
export const ASSET_RESOURCE_EXTENSIONS = ['bin', 'png', 'jpg', 'jpeg', 'webp', 'ktx2'] as const;
/** Most resources one SaveAssetRequest may carry. */
export const MAX_ASSET_RESOURCES = 256;
/** Longest resource URI a SaveAssetRequest may carry. */
export const MAX_RESOURCE_URI_LENGTH = 1024;

/**
 * The desktop menus as the renderer describes them (made from its command catalog and keybinding table): main
 * builds the native menu from this model, and a click sends the item's command id back on `menuCommand`.
 */
export interface MenuItemModel {
  /** command id, e.g. 'edit.undo' */
  command: string;
  /** shown text, with the current state: 'Undo Paint stroke' */
  label: string;
  enabled: boolean;
  /** present for toggles */
  checked?: boolean;
  /** shown only: the page handles its keys itself, so the menu never registers them */
  accelerator?: string;
}

/** A line between two groups of a menu's items (Electron's `type: 'separator'`); never first, last or doubled. */
export interface MenuSeparatorModel {
  separator: true;
}

/** One row of a menu: a command, or a separator. */
export type MenuEntryModel = MenuItemModel | MenuSeparatorModel;

/** Whether a menu row is a separator. */
export function isMenuSeparator(item: MenuEntryModel): item is MenuSeparatorModel {
  return 'separator' in item;
}

export interface MenuModelEntry {
  /** menu-bar title, e.g. 'Edit' */
  label: string;
  /** its rows: commands, with separators between groups */
  items: MenuEntryModel[];
}

export type MenuModel = MenuModelEntry[];

/** A command id as the menus send it: dotted lower camel case, e.g. 'file.open', 'edit.undo'. */
export const COMMAND_ID_PATTERN = /^[a-z]+(\.[a-zA-Z]+)+$/;
/** Bounds on a menu model main accepts (a page cannot make main build an enormous menu). */
export const MAX_MENUS = 16;
/** rows of one menu, separators included */
export const MAX_MENU_ITEMS = 64;
export const MAX_MENU_LABEL_LENGTH = 120;

/** One autosaved version of a scene, as stored next to its bytes. */
export interface AutosaveInfo {
  /** `<session>-<sequence>` (AUTOSAVE_ID_PATTERN) */
  id: string;
  /** the page session that wrote it (AUTOSAVE_ID_PATTERN) */
  session: string;
  /** 1, 2, … within the session */
  sequence: number;
  /** milliseconds since 1970 */
  savedAt: number;
  /** the project's file name, or 'untitled' */
  name: string;
  vertexCount: number;
  boneCount: number;
  /** edits since the project was opened or saved */
  editCount: number;
  byteLength: number;
}

/** What autosave storage holds: the versions, and the sessions with unsaved work stored (alive: the page still runs). */
export interface AutosaveListing {
  versions: AutosaveInfo[];
  marked: { session: string; alive: boolean }[];
}

/** Session and version ids: letters, digits and dashes (a UUID, or a UUID and a sequence number). */
export const AUTOSAVE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9-]{0,79}$/;
/** Longest name an AutosaveInfo may carry. */
export const MAX_AUTOSAVE_NAME_LENGTH = 255;
/**
 * Largest chunk of a version's bytes one autosaveChunk carries. The desktop bridge sends a version as chunks of this
 * size, one invoke each, then autosaveWrite with its info: the page's thread structured-clones at most this much at
 * once, however large the project.
 */
export const AUTOSAVE_CHUNK_BYTES = 1024 * 1024;

/**
 * One chunk of a version's bytes on its way to main: `index` 0 begins the version (main drops any version of the
 * same window still pending), each next chunk has the next index. At most AUTOSAVE_CHUNK_BYTES bytes.
 */
export interface AutosaveChunk {
  /** the version's id (AutosaveInfo.id) */
  id: string;
  index: number;
  bytes: Uint8Array;
}

/** Most ids one autosaveRemove may name. */
export const MAX_AUTOSAVE_REMOVE = 256;

// C0 and C1 control characters, DEL and the line and paragraph separators: none belongs in a one-line label.
// eslint-disable-next-line no-control-regex -- control characters are what this pattern exists to refuse
export const LABEL_CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/**
 * Why `value` is not an autosave session or version id (a string of AUTOSAVE_ID_PATTERN), or null when it is one.
 * @param what  its name in the reason ('id', 'session', 'info.id')
 */
export function autosaveIdProblem(value: unknown, what = 'id'): string | null {
  if (typeof value !== 'string') return `${what} must be a string`;
  if (!AUTOSAVE_ID_PATTERN.test(value))
    return `${what} ${JSON.stringify(value.slice(0, 40))} is not letters, digits and dashes (at most 80)`;
  return null;
}

/**
 * Why `value` is not an AutosaveInfo, or null when it is one: a plain object with exactly { id, session, sequence,
 * savedAt, name, vertexCount, boneCount, editCount, byteLength }, id being `<session>-<sequence>`, name a one-line
 * string of at most MAX_AUTOSAVE_NAME_LENGTH, the counts whole numbers ≥ 0, savedAt a time in milliseconds,
 * byteLength at most MAX_FILE_BYTES. Main checks what the page sends with it (ipc-validate.ts); the web page's
 * autosave storage checks what it reads back from IndexedDB.
 */
export function autosaveInfoProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'info must be an object';
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return 'info must be an object';
  const info = value as Record<string, unknown>;
  const fields = ['id', 'session', 'sequence', 'savedAt', 'name', 'vertexCount', 'boneCount', 'editCount', 'byteLength'];
  const unknown = Object.keys(info).find((key) => !fields.includes(key));
  if (unknown !== undefined) return `info: unexpected field "${unknown.slice(0, 40)}"`;
  const count = (field: string) => {
    const n = info[field];
    return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? null : `info.${field} must be a whole number ≥ 0`;
  };
  const problem = autosaveIdProblem(info.id, 'info.id') ?? autosaveIdProblem(info.session, 'info.session') ?? count('sequence');
  if (problem !== null) return problem;
  if (info.id !== `${info.session as string}-${info.sequence as number}`) return 'info.id must be the session and the sequence number';
  const { name } = info;
  if (typeof name !== 'string' || name.length === 0) return 'info.name must be a non-empty string';
  if (name.length > MAX_AUTOSAVE_NAME_LENGTH) return `info.name is longer than ${MAX_AUTOSAVE_NAME_LENGTH} characters`;
  if (LABEL_CONTROL_CHARACTERS.test(name)) return 'info.name has control characters';
  const counts = count('savedAt') ?? count('byteLength') ?? count('vertexCount') ?? count('boneCount') ?? count('editCount');
  if (counts !== null) return counts;
  if ((info.byteLength as number) > MAX_FILE_BYTES) return `info.byteLength is larger than ${MAX_FILE_BYTES}`;
  return null;
}

/**
 * Autosave storage: the desktop app's, in its data folder (userData/autosave), each call validated by main; the web
 * page keeps the same contract in IndexedDB (renderer/project/autosave-storage.ts).
 */
export interface AutosaveBridge {
  /** Declares this session alive for as long as the page lives (a later start does not take it for a crash). */
  begin(session: string): Promise<void>;
  /** Stores a version and marks its session as having unsaved work. */
  write(info: AutosaveInfo, bytes: Uint8Array): Promise<void>;
  /** Every stored version, and every marked session with whether its page is alive now. */
  list(): Promise<AutosaveListing>;
  /** The bytes of a version, or null when it is gone. */
  read(id: string): Promise<Uint8Array | null>;
  remove(ids: string[]): Promise<void>;
  /** The session's work was saved or discarded: it is no longer offered for recovery. */
  unmark(session: string): Promise<void>;
}

/**
 * A project file the app knows: its base name and an opaque token standing for where it is (the desktop shell
 * maps tokens to paths, the web page to File System Access handles), so Save writes it again without a dialog
 * and Recent files reopen it. The page never sees a path.
 */
export interface ProjectFileRef {
  name: string;
  token: string;
}

export interface SaveProjectRequest {
  /** a file the app knows (PROJECT_TOKEN_PATTERN): written again without a dialog; none: a Save dialog asks */
  token?: string;
  /** base name offered in the dialog, ending in .glb */
  suggestedName: string;
  bytes: Uint8Array;
}

/** Project files: open, save to the same file, recent files. */
export interface ProjectBridge {
  /** A dialog (no token) or a recent file (its token); resolves null when the user cancels. */
  open(token?: string): Promise<(OpenedFile & { token: string }) | null>;
  /** Writes the project (atomically on the desktop); resolves null when the user cancels the dialog. */
  save(request: SaveProjectRequest): Promise<ProjectFileRef | null>;
  /** Recent project files, newest first, at most MAX_RECENT_PROJECTS. */
  recent(): Promise<ProjectFileRef[]>;
  /**
   * Takes a file out of the recent list (the file is not touched). Only where the list can keep a file that is
   * gone (the web page's handles); the desktop's list leaves out files that no longer exist.
   */
  forget?(token: string): Promise<void>;
}

/** Project tokens: letters, digits and dashes. */
export const PROJECT_TOKEN_PATTERN = /^[A-Za-z0-9][A-Za-z0-9-]{0,79}$/;
export const MAX_RECENT_PROJECTS = 8;

/**
 * A file a script names by its path (the desktop app's `rig.files`). The working folder is the folder of the project
 * the scene is saved as (`project`), else the folder the scene's files were opened from (the window's last File →
 * Open of the rig formats); a relative path starts there (or, with neither, in the Documents folder). Main reads or
 * writes a path inside the working folder (symbolic links followed) at once; one outside it only when `outside` says
 * the user allowed it, else it answers `{ outside: true }` and touches nothing. The page never learns the folder.
 */
export interface ScriptFileRequest {
  /** the path as the script gave it: absolute, or relative to the working folder; at most MAX_SCRIPT_PATH_LENGTH */
  path: string;
  /** the token of the project the scene is saved as (PROJECT_TOKEN_PATTERN): its folder is the working folder */
  project?: string;
  /** the user allowed this run's files outside the working folder */
  outside?: boolean;
}

/** A script's write by path: a file ending in one of SAVEABLE_EXTENSIONS, or a .gltf with its resources. */
export interface ScriptWriteRequest extends ScriptFileRequest {
  bytes: Uint8Array;
  /** a .gltf's buffers and images, written beside it (as SaveAssetRequest's) */
  resources?: { uri: string; bytes: Uint8Array }[];
}

/**
 * Main's answer to a script's read: the file (base name and bytes) first, then, for a .gltf, the buffers and images it
 * names, read from its folder (as `rigwright run` reads them); or that the path is outside the working folder.
 */
export type ScriptReadAnswer = { files: OpenedFile[] } | { outside: true };
/** Main's answer to a script's write: the base name written, or that the path is outside the working folder. */
export type ScriptWriteAnswer = { written: string } | { outside: true };

/** Longest path a script's file request may carry. */
export const MAX_SCRIPT_PATH_LENGTH = 4096;

/** Desktop only: a script's files by path (no dialog), read whole or written atomically. */
export interface ScriptFilesBridge {
  read(request: ScriptFileRequest): Promise<ScriptReadAnswer>;
  write(request: ScriptWriteRequest): Promise<ScriptWriteAnswer>;
}

/** What the preload exposes as `window.rigwright` (Electron), and what the web bridge implements. */
export interface RigwrightBridge {
  readonly platform: 'electron' | 'web';
  /** Resolves with the chosen files, or an empty array when the user cancels. */
  openFiles(request?: OpenFilesRequest): Promise<OpenedFile[]>;
  /** Resolves true when written, false when the user cancelled. */
  saveFile(request: SaveFileRequest): Promise<boolean>;
  /**
   * A .gltf with its resources, saved as one: one question where (the desktop's Save dialog; on the web a folder,
   * or downloads), every file written. Resolves true when written, false when the user cancelled.
   */
  saveAsset(request: SaveAssetRequest): Promise<boolean>;
  /** Subscribes to application-menu commands (command ids); returns the unsubscribe function. */
  onMenuCommand(listener: (command: string) => void): () => void;
  /** Replaces the desktop menus (the web page has none and ignores it). */
  setMenu(model: MenuModel): void;
  /** Project files (open, save to the same file, recent files); a bridge without it saves by download. */
  readonly projects?: ProjectBridge;
  /** Desktop only: autosave versions in the app's data folder (the web page keeps them in IndexedDB). */
  readonly autosave?: AutosaveBridge;
  /**
   * Desktop only: whether the scene has unsaved changes. While it has, closing the window or quitting asks the
   * page first (onCloseRequest) instead of closing.
   */
  setUnsaved?(unsaved: boolean): void;
  /** Desktop only: the window is closing or the app quitting with unsaved changes; answer with answerClose. */
  onCloseRequest?(listener: () => void): () => void;
  /** Desktop only: true closes the window (and goes on quitting if that was asked); false keeps it open. */
  answerClose?(close: boolean): void;
  /** Desktop only: a script's files by path; the web page has none (a script's files go through the picker and downloads). */
  readonly scriptFiles?: ScriptFilesBridge;
}

/**
 * What the open dialog offers when a request names no extensions: the formats the app reads (a TGF's .names file of
 * bone names is opened with it, a .gltf's buffers are .bin files opened with it, an OBJ's material libraries and
 * their PNG/JPEG images are opened with the OBJ). The one list for the desktop dialog and the web file input.
 */
export const RIG_FILE_EXTENSIONS = ['obj', 'off', 'tgf', 'names', 'dmat', 'glb', 'gltf', 'bin', 'mtl', 'png', 'jpg', 'jpeg'] as const;
/** Script files, which the Scripting panel opens and saves (TypeScript, or plain JavaScript). */
export const SCRIPT_FILE_EXTENSIONS = ['ts', 'js'] as const;
/**
 * Extensions (lowercase, no dot) the open dialog may offer: the formats the app reads and scripts, no others. Main
 * refuses any other in an `OpenFilesRequest`, so a compromised page cannot turn the dialog into a way of reading
 * arbitrary files.
 */
export const OPENABLE_EXTENSIONS = [...RIG_FILE_EXTENSIONS, ...SCRIPT_FILE_EXTENSIONS] as const;
/** The files the app writes through a SaveFileRequest: meshes, skeletons, weights, glTF, settings, images. */
const ASSET_SAVE_EXTENSIONS = ['obj', 'off', 'tgf', 'names', 'dmat', 'gltf', 'glb', 'bin', 'json', 'png'] as const;
/** Extensions a `SaveFileRequest.suggestedName` may end in; the saved file keeps the chosen name's extension. */
export const SAVEABLE_EXTENSIONS = [...ASSET_SAVE_EXTENSIONS, ...SCRIPT_FILE_EXTENSIONS] as const;
/** Largest file, in bytes, the bridge reads or writes: keeps a stray request from exhausting memory. */
export const MAX_FILE_BYTES = 512 * 1024 * 1024;
/** Longest base name accepted, in UTF-16 code units (the common file-system limit is 255 bytes). */
export const MAX_FILE_NAME_LENGTH = 255;
