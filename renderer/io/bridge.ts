/**
 * The renderer's only way out of the page: `window.rigwright` from the Electron preload when present, otherwise
 * the same interface built from web platform pieces (a file input, Blob downloads, toolbar-driven commands).
 */
import {
  RIG_FILE_EXTENSIONS,
  type MenuModel,
  type OpenedFile,
  type OpenFilesRequest,
  type RigwrightBridge,
  type SaveAssetRequest,
  type SaveFileRequest,
} from '../../app/ipc-contract.ts';
import { saveAssetOnTheWeb, type WebFolderAccess } from './web-asset-save.ts';
import { WebProjectFiles } from './web-project-files.ts';

declare global {
  interface Window {
    rigwright?: RigwrightBridge;
  }
}

/** Reads browser File objects whole, keeping base names only (as the Electron bridge does). */
export async function readBrowserFiles(files: Iterable<File>): Promise<OpenedFile[]> {
  return Promise.all([...files].map(async (file) => ({ name: file.name, bytes: new Uint8Array(await file.arrayBuffer()) })));
}

/**
 * The web implementation of the bridge.
 * - openFiles: opens the hidden `<input type="file" id="file-input">`; resolves with [] on cancel.
 * - saveFile: downloads a Blob (the browser decides where it goes, so it always reports true).
 * - saveAsset: a .gltf with its resources: downloads, or one folder picker when resources sit in subfolders
 *   (web-asset-save.ts).
 * - onMenuCommand: the page's toolbar and keyboard call `dispatchMenuCommand`, standing in for the desktop menu.
 * - setMenu: the page has no desktop menu; the latest model is kept as `lastMenu`, so tests can read what the
 *   desktop menu would show.
 * Files that arrive through the input without a pending `openFiles` (an automated test setting the input's files)
 * go to `onUnrequestedFiles` listeners.
 */
export class WebBridge implements RigwrightBridge {
  readonly platform = 'web' as const;
  private readonly menuListeners = new Set<(command: string) => void>();
  private readonly unrequestedListeners = new Set<(files: OpenedFile[]) => void>();
  private pendingOpen: ((files: OpenedFile[]) => void) | null = null;
  private latestMenu: MenuModel | null = null;
  /** project files: File System Access handles where the browser has them, file input and download otherwise */
  readonly projects = new WebProjectFiles(this);

  constructor(private readonly fileInput: HTMLInputElement) {
    fileInput.addEventListener('change', () => {
      const chosen = fileInput.files ? [...fileInput.files] : [];
      // Clearing lets the same file be chosen twice in a row and still fire `change`.
      fileInput.value = '';
      void readBrowserFiles(chosen).then((files) => this.deliver(files));
    });
    fileInput.addEventListener('cancel', () => this.deliver([]));
  }

  openFiles(request?: OpenFilesRequest): Promise<OpenedFile[]> {
    const extensions = request?.extensions?.length ? request.extensions : RIG_FILE_EXTENSIONS;
    this.fileInput.accept = extensions.map((e) => `.${e}`).join(',');
    this.pendingOpen?.([]);
    return new Promise((resolve) => {
      this.pendingOpen = resolve;
      this.fileInput.click();
    });
  }

  saveFile(request: SaveFileRequest): Promise<boolean> {
    const url = URL.createObjectURL(new Blob([request.bytes as Uint8Array<ArrayBuffer>]));
    const link = document.createElement('a');
    link.href = url;
    link.download = request.suggestedName;
    link.click();
    // The download has started by the time the click returns; the URL can go after the current task.
    setTimeout(() => URL.revokeObjectURL(url), 0);
    return Promise.resolve(true);
  }

  saveAsset(request: SaveAssetRequest): Promise<boolean> {
    return saveAssetOnTheWeb(request, window as unknown as WebFolderAccess, (name, bytes) => this.saveFile({ suggestedName: name, bytes }));
  }

  onMenuCommand(listener: (command: string) => void): () => void {
    this.menuListeners.add(listener);
    return () => this.menuListeners.delete(listener);
  }

  /** Sends a command id to the `onMenuCommand` listeners, as a click in the desktop menu would. */
  dispatchMenuCommand(command: string): void {
    for (const listener of this.menuListeners) listener(command);
  }

  setMenu(model: MenuModel): void {
    // A copy, as IPC would take: later changes to the page's objects do not show in the menu.
    this.latestMenu = structuredClone(model);
  }

  /** The model of the latest `setMenu`, or null before the first. */
  get lastMenu(): MenuModel | null {
    return this.latestMenu;
  }

  onUnrequestedFiles(listener: (files: OpenedFile[]) => void): () => void {
    this.unrequestedListeners.add(listener);
    return () => this.unrequestedListeners.delete(listener);
  }

  private deliver(files: OpenedFile[]): void {
    const pending = this.pendingOpen;
    this.pendingOpen = null;
    if (pending) pending(files);
    else if (files.length > 0) for (const listener of this.unrequestedListeners) listener(files);
  }
}

let bridge: RigwrightBridge | null = null;

/** The Electron preload's bridge when running in the desktop app, else a WebBridge over `#file-input`. */
export function getBridge(): RigwrightBridge {
  if (bridge) return bridge;
  if (window.rigwright) {
    bridge = window.rigwright;
  } else {
    const input = document.getElementById('file-input');
    if (!(input instanceof HTMLInputElement)) throw new Error('the page has no <input id="file-input">');
    bridge = new WebBridge(input);
  }
  return bridge;
}
