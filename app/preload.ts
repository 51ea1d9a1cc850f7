/**
 * The sandboxed preload: implements RigwrightBridge over IPC and exposes it to the page as `window.rigwright`.
 * A sandboxed preload gets only a reduced `require` (electron and a few built-ins), so app/build.mjs bundles
 * this file and the IPC contract into one CommonJS file, dist/app/preload.cjs.
 */
import type { ElectronPreload, IpcRendererEvent } from './electron-api.ts';
import {
  AUTOSAVE_CHUNK_BYTES,
  COMMAND_ID_PATTERN,
  type AutosaveInfo,
  type AutosaveListing,
  IPC_CHANNELS,
  type MenuModel,
  type OpenedFile,
  type OpenFilesRequest,
  type ProjectFileRef,
  type RigwrightBridge,
  type SaveAssetRequest,
  type SaveFileRequest,
  type SaveProjectRequest,
  type ScriptFileRequest,
  type ScriptReadAnswer,
  type ScriptWriteAnswer,
  type ScriptWriteRequest,
} from './ipc-contract.ts';

const electron = require('electron') as ElectronPreload;
const { contextBridge } = electron;

/**
 * Electron rejects the invoke of a handler that threw with `Error invoking remote method '<channel>': <Name>:
 * <message>`; the page gets main's message alone (main has already made it free of folders: app/page-error.ts).
 */
function invokeErrorMessage(channel: string, error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const prefix = `Error invoking remote method '${channel}': `;
  return (text.startsWith(prefix) ? text.slice(prefix.length) : text).replace(/^[A-Za-z]*Error: /, '');
}

/** Electron's ipcRenderer, with an invoke that main refused rejecting with main's message alone. */
const ipcRenderer: ElectronPreload['ipcRenderer'] = {
  invoke: (channel, ...args) =>
    electron.ipcRenderer.invoke(channel, ...args).catch((error: unknown) => {
      throw new Error(invokeErrorMessage(channel, error));
    }),
  on: (channel, listener) => electron.ipcRenderer.on(channel, listener),
  removeListener: (channel, listener) => electron.ipcRenderer.removeListener(channel, listener),
};

function isCommandId(value: unknown): value is string {
  return typeof value === 'string' && COMMAND_ID_PATTERN.test(value);
}

/**
 * Sends a version to main as chunks of at most AUTOSAVE_CHUNK_BYTES, one invoke after another, then its info, on
 * which main writes the version atomically: the page's thread structured-clones one chunk at a time, never the whole
 * project. Each chunk is a copy (slice): a view (subarray) would be cloned with its whole buffer.
 */
async function writeAutosave(info: AutosaveInfo, bytes: Uint8Array): Promise<void> {
  const count = Math.max(1, Math.ceil(bytes.byteLength / AUTOSAVE_CHUNK_BYTES));
  for (let index = 0; index < count; index++) {
    const start = index * AUTOSAVE_CHUNK_BYTES;
    const chunk = bytes.slice(start, start + AUTOSAVE_CHUNK_BYTES);
    await ipcRenderer.invoke(IPC_CHANNELS.autosaveChunk, { id: info.id, index, bytes: chunk });
  }
  await ipcRenderer.invoke(IPC_CHANNELS.autosaveWrite, info);
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
  saveAsset(request: SaveAssetRequest): Promise<boolean> {
    return ipcRenderer.invoke(IPC_CHANNELS.saveAsset, request) as Promise<boolean>;
  },
  projects: {
    open(token?: string): Promise<(OpenedFile & { token: string }) | null> {
      const sent = token === undefined ? ipcRenderer.invoke(IPC_CHANNELS.openProject) : ipcRenderer.invoke(IPC_CHANNELS.openProject, token);
      return sent as Promise<(OpenedFile & { token: string }) | null>;
    },
    save(request: SaveProjectRequest): Promise<ProjectFileRef | null> {
      return ipcRenderer.invoke(IPC_CHANNELS.saveProject, request) as Promise<ProjectFileRef | null>;
    },
    recent(): Promise<ProjectFileRef[]> {
      return ipcRenderer.invoke(IPC_CHANNELS.recentProjects) as Promise<ProjectFileRef[]>;
    },
  },
  scriptFiles: {
    read: (request: ScriptFileRequest) => ipcRenderer.invoke(IPC_CHANNELS.scriptReadFile, request) as Promise<ScriptReadAnswer>,
    write: (request: ScriptWriteRequest) => ipcRenderer.invoke(IPC_CHANNELS.scriptWriteFile, request) as Promise<ScriptWriteAnswer>,
  },
  autosave: {
    begin: (session: string) => ipcRenderer.invoke(IPC_CHANNELS.autosaveBegin, session) as Promise<void>,
    write: writeAutosave,
    list: () => ipcRenderer.invoke(IPC_CHANNELS.autosaveList) as Promise<AutosaveListing>,
    read: (id: string) => ipcRenderer.invoke(IPC_CHANNELS.autosaveRead, id) as Promise<Uint8Array | null>,
    remove: (ids: string[]) => ipcRenderer.invoke(IPC_CHANNELS.autosaveRemove, ids) as Promise<void>,
    unmark: (session: string) => ipcRenderer.invoke(IPC_CHANNELS.autosaveUnmark, session) as Promise<void>,
  },
  setUnsaved(unsaved: boolean): void {
    void ipcRenderer.invoke(IPC_CHANNELS.setUnsaved, unsaved).catch((error: unknown) => {
      console.error('Rigwright: the unsaved state did not reach the window:', error instanceof Error ? error.message : String(error));
    });
  },
  onCloseRequest(listener: () => void): () => void {
    const forward = () => listener();
    ipcRenderer.on(IPC_CHANNELS.closeRequested, forward);
    return () => {
      ipcRenderer.removeListener(IPC_CHANNELS.closeRequested, forward);
    };
  },
  answerClose(close: boolean): void {
    void ipcRenderer.invoke(IPC_CHANNELS.answerClose, close).catch((error: unknown) => {
      console.error('Rigwright: the answer to closing did not reach the window:', error instanceof Error ? error.message : String(error));
    });
  },
  onMenuCommand(listener: (command: string) => void): () => void {
    // The page never sees the IPC event object (it would expose ipcRenderer to the page).
    const forward = (_event: IpcRendererEvent, command: unknown) => {
      if (isCommandId(command)) listener(command);
    };
    ipcRenderer.on(IPC_CHANNELS.menuCommand, forward);
    return () => {
      ipcRenderer.removeListener(IPC_CHANNELS.menuCommand, forward);
    };
  },
  setMenu(model: MenuModel): void {
    // Fire and forget: the page goes on whether or not main accepted the model, and a refusal (a bug in the
    // page's model) is logged here rather than reaching the page as an unhandled rejection.
    void ipcRenderer.invoke(IPC_CHANNELS.setMenu, model).catch((error: unknown) => {
      console.error('Rigwright: the desktop menu was not updated:', error instanceof Error ? error.message : String(error));
    });
  },
};

contextBridge.exposeInMainWorld('rigwright', bridge);
