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

/** Commands the application menu sends to the renderer (Electron) — the web build triggers the same from its toolbar. */
export const MENU_COMMANDS = [
  'open-files',
  'export-gltf',
  'frame-all',
  'toggle-wireframe',
  'toggle-skeleton',
  'play-pause',
] as const;
export type MenuCommand = (typeof MENU_COMMANDS)[number];

/** What the preload exposes as `window.rigwright` (Electron), and what the web bridge implements. */
export interface RigwrightBridge {
  readonly platform: 'electron' | 'web';
  /** Resolves with the chosen files, or an empty array when the user cancels. */
  openFiles(request?: OpenFilesRequest): Promise<OpenedFile[]>;
  /** Resolves true when written, false when the user cancelled. */
  saveFile(request: SaveFileRequest): Promise<boolean>;
  /** Subscribes to application-menu commands; returns the unsubscribe function. */
  onMenuCommand(listener: (command: MenuCommand) => void): () => void;
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
