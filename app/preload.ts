/**
 * The sandboxed preload: implements RigwrightBridge over IPC and exposes it to the page as `window.rigwright`.
 * A sandboxed preload gets only a reduced `require` (electron and a few built-ins), so app/build.mjs bundles
 * this file and the IPC contract into one CommonJS file, dist/app/preload.cjs.
 */
import type { ElectronPreload, IpcRendererEvent } from './electron-api.ts';
import {
  IPC_CHANNELS,
  MENU_COMMANDS,
  type MenuCommand,
  type OpenedFile,
  type OpenFilesRequest,
  type RigwrightBridge,
  type SaveFileRequest,
} from './ipc-contract.ts';

const { contextBridge, ipcRenderer } = require('electron') as ElectronPreload;

function isMenuCommand(value: unknown): value is MenuCommand {
  return typeof value === 'string' && (MENU_COMMANDS as readonly string[]).includes(value);
}

const bridge: RigwrightBridge = {
  platform: 'electron',
  openFiles(request?: OpenFilesRequest): Promise<OpenedFile[]> {
    const sent = request === undefined ? ipcRenderer.invoke(IPC_CHANNELS.openFiles) : ipcRenderer.invoke(IPC_CHANNELS.openFiles, request);
    return sent as Promise<OpenedFile[]>;
  },
  saveFile(request: SaveFileRequest): Promise<boolean> {
    return ipcRenderer.invoke(IPC_CHANNELS.saveFile, request) as Promise<boolean>;
  },
  onMenuCommand(listener: (command: MenuCommand) => void): () => void {
    // The page never sees the IPC event object (it would expose ipcRenderer to the page).
    const forward = (_event: IpcRendererEvent, command: unknown) => {
      if (isMenuCommand(command)) listener(command);
    };
    ipcRenderer.on(IPC_CHANNELS.menuCommand, forward);
    return () => {
      ipcRenderer.removeListener(IPC_CHANNELS.menuCommand, forward);
    };
  },
};

contextBridge.exposeInMainWorld('rigwright', bridge);
