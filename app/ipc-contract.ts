/**
 * The typed contract between the Electron main process, the preload and the renderer: one entry per IPC
 * channel. The renderer imports only types from here (no node:* and no electron), the preload implements
 * `RigwrightBridge` over `ipcRenderer.invoke`, main validates every argument it receives against these shapes.
 * The web build implements the same `RigwrightBridge` with a file picker and downloads.
 */

export const IPC_CHANNELS = {
  openFiles: 'rigwright:open-files',
  saveFile: 'rigwright:save-file',
  menuCommand: 'rigwright:menu-command',
  setMenu: 'rigwright:set-menu',
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

export interface MenuModelEntry {
  /** menu-bar title, e.g. 'Edit' */
  label: string;
  items: MenuItemModel[];
}

export type MenuModel = MenuModelEntry[];

/** A command id as the menus send it: dotted lower camel case, e.g. 'file.open', 'edit.undo'. */
export const COMMAND_ID_PATTERN = /^[a-z]+(\.[a-zA-Z]+)+$/;
/** Bounds on a menu model main accepts (a page cannot make main build an enormous menu). */
export const MAX_MENUS = 16;
export const MAX_MENU_ITEMS = 64;
export const MAX_MENU_LABEL_LENGTH = 120;

/** What the preload exposes as `window.rigwright` (Electron), and what the web bridge implements. */
export interface RigwrightBridge {
  readonly platform: 'electron' | 'web';
  /** Resolves with the chosen files, or an empty array when the user cancels. */
  openFiles(request?: OpenFilesRequest): Promise<OpenedFile[]>;
  /** Resolves true when written, false when the user cancelled. */
  saveFile(request: SaveFileRequest): Promise<boolean>;
  /** Subscribes to application-menu commands (command ids); returns the unsubscribe function. */
  onMenuCommand(listener: (command: string) => void): () => void;
  /** Replaces the desktop menus (the web page has none and ignores it). */
  setMenu(model: MenuModel): void;
}

/**
 * Extensions (lowercase, no dot) the open dialog may offer. Main refuses any other in an `OpenFilesRequest`,
 * so a compromised page cannot turn the dialog into a way of reading arbitrary files.
 */
export const OPENABLE_EXTENSIONS = ['obj', 'off', 'tgf', 'dmat', 'gltf', 'glb', 'bin'] as const;
/**
 * What the open dialog offers when a request names no extensions: the formats the app reads (a .gltf's buffers
 * are .bin files opened with it). The one list for the desktop dialog and the web file input.
 */
export const RIG_FILE_EXTENSIONS = ['obj', 'off', 'tgf', 'dmat', 'glb', 'gltf', 'bin'] as const;
/** Extensions a `SaveFileRequest.suggestedName` may end in; the saved file keeps the chosen name's extension. */
export const SAVEABLE_EXTENSIONS = ['obj', 'off', 'tgf', 'dmat', 'gltf', 'glb', 'bin', 'json', 'png'] as const;
/** Largest file, in bytes, the bridge reads or writes: keeps a stray request from exhausting memory. */
export const MAX_FILE_BYTES = 512 * 1024 * 1024;
/** Longest base name accepted, in UTF-16 code units (the common file-system limit is 255 bytes). */
export const MAX_FILE_NAME_LENGTH = 255;
