/**
 * Electron main process: one sandboxed window showing the built renderer from `rigwright://app/`, the
 * application menu (built from the model the page sends), and the IPC handlers (open files, save a file, set
 * the menus). The page is untrusted — it parses user files — so it runs with sandbox, context isolation and a
 * strict Content-Security-Policy, cannot navigate, open windows or get permissions, and every IPC argument it
 * sends is validated (ipc-validate.ts).
 * Bundled by app/build.mjs to dist/app/main.cjs next to dist/app/preload.cjs; the page is dist/renderer.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type {
  BrowserWindow as Window,
  ElectronMain,
  ElectronEvent,
  IpcMainInvokeEvent,
  MenuItemOptions,
  WebContents,
} from './electron-api.ts';
import {
  IPC_CHANNELS,
  MAX_FILE_BYTES,
  isMenuSeparator,
  type MenuEntryModel,
  type MenuModel,
  type OpenedFile,
  type ProjectFileRef,
} from './ipc-contract.ts';
import { saveRequestedAsset, saveRequestedFile } from './save-file.ts';
import {
  APP_ENTRY_URL,
  APP_SCHEME,
  CONTENT_SECURITY_POLICY,
  CROSS_ORIGIN_ISOLATION_HEADERS,
  contentTypeOf,
  resolveAppAsset,
} from './app-scheme.ts';
import { ProjectFilesMain } from './project-files-main.ts';
import { ScriptFilesMain } from './script-files-main.ts';
import { AutosaveFolder } from './autosave-folder.ts';
import { AutosaveUploads } from './autosave-upload.ts';
import { answerPage } from './page-error.ts';
import {
  IpcArgumentError,
  extensionOf,
  isTrustedSenderUrl,
  validateAutosaveId,
  validateAutosaveRemove,
  validateBoolean,
  validateMenuModel,
  validateOpenFilesRequest,
} from './ipc-validate.ts';

const { app, BrowserWindow, protocol, session, dialog, ipcMain, Menu } = require('electron') as ElectronMain;

const RENDERER_ROOT = path.join(__dirname, '../renderer');
const PRELOAD = path.join(__dirname, 'preload.cjs');
const isMac = process.platform === 'darwin';

// Must happen before `ready`: a standard, secure scheme gets its own origin, so module workers, fetch and
// `'self'` in the CSP work as they would on https.
protocol.registerSchemesAsPrivileged([
  { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true } },
]);
app.enableSandbox();

// The isolation pair (opener and embedder policies) makes the page crossOriginIsolated, so it can share memory
// with its workers; see CROSS_ORIGIN_ISOLATION_HEADERS.
const SECURITY_HEADERS = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  ...CROSS_ORIGIN_ISOLATION_HEADERS,
};

async function serveAppAsset(request: Request): Promise<Response> {
  if (request.method !== 'GET' && request.method !== 'HEAD') return new Response('method not allowed', { status: 405 });
  const file = resolveAppAsset(request.url, RENDERER_ROOT);
  if (file === null) return new Response('forbidden', { status: 403 });
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = Uint8Array.from(await readFile(file));
  } catch {
    return new Response('not found', { status: 404 });
  }
  return new Response(bytes, { headers: { ...SECURITY_HEADERS, 'content-type': contentTypeOf(file) } });
}

/** Requests the page may make at all; everything else (http, https, ws, file, …) is cancelled. */
function isAllowedRequest(url: string): boolean {
  return /^(rigwright|blob|data|devtools):/i.test(url);
}

function lockDownSession(): void {
  const defaultSession = session.defaultSession;
  defaultSession.webRequest.onBeforeRequest((details, callback) => callback({ cancel: !isAllowedRequest(details.url) }));
  // The protocol handler already sends the policy and the isolation pair; this also covers responses Chromium
  // synthesizes itself.
  const enforced: Record<string, string> = { 'Content-Security-Policy': CONTENT_SECURITY_POLICY, ...CROSS_ORIGIN_ISOLATION_HEADERS };
  const enforcedNames = new Set(Object.keys(enforced).map((name) => name.toLowerCase()));
  defaultSession.webRequest.onHeadersReceived((details, callback) => {
    const responseHeaders = { ...details.responseHeaders };
    if (!details.url.startsWith('devtools:')) {
      for (const name of Object.keys(responseHeaders)) {
        if (enforcedNames.has(name.toLowerCase())) delete responseHeaders[name];
      }
      for (const [name, value] of Object.entries(enforced)) responseHeaders[name] = [value];
    }
    callback({ responseHeaders });
  });
  defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  defaultSession.setPermissionCheckHandler(() => false);
}

function lockDownContents(contents: WebContents): void {
  const refuseForeign = (event: ElectronEvent, url: string) => {
    if (!isTrustedSenderUrl(url)) event.preventDefault();
  };
  contents.on('will-navigate', refuseForeign);
  contents.on('will-redirect', refuseForeign);
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
}

function createWindow(): Window {
  const window = new BrowserWindow({
    width: 1400,
    height: 900,
    minWidth: 800,
    minHeight: 500,
    show: false,
    title: 'Rigwright',
    backgroundColor: '#1d1f23',
    webPreferences: {
      preload: PRELOAD,
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false,
    },
  });
  window.once('ready-to-show', () => window.show());
  guardClose(window);
  window.loadURL(APP_ENTRY_URL).catch((error: unknown) => {
    console.error(
      `Rigwright: cannot load ${APP_ENTRY_URL} from ${RENDERER_ROOT} (${error instanceof Error ? error.message : String(error)}); ` +
        'build the page first with `npm run build`.',
    );
  });
  return window;
}

function sendMenuCommand(command: string): void {
  const target = BrowserWindow.getFocusedWindow() ?? BrowserWindow.getAllWindows()[0];
  if (target && !target.isDestroyed()) target.webContents.send(IPC_CHANNELS.menuCommand, command);
}

/**
 * Every key belongs to the page, which knows when a text field has focus and which when-clause holds; the menu
 * only shows the key. macOS cannot show an accelerator without registering it, and a registered one would fire
 * as well as the page's handler (toggling twice), so there the menu names no key.
 */
function pageKey(accelerator: string): Pick<MenuItemOptions, 'accelerator' | 'registerAccelerator'> {
  return isMac ? {} : { accelerator, registerAccelerator: false };
}

/** Electron reads '&' as a mnemonic marker and '&&' as a literal '&'; the model's labels are plain text. */
function escapeMnemonics(label: string): string {
  return label.replaceAll('&', '&&');
}

/**
 * The native items that work whatever the page says, by menu title: quitting or closing, the text-field
 * clipboard (text fields keep cut/copy/paste and their keys) and full screen. They go after the model's items.
 */
function roleItems(): Record<'File' | 'Edit' | 'View', MenuItemOptions[]> {
  return {
    File: [{ role: isMac ? 'close' : 'quit' }],
    Edit: [{ role: 'cut' }, { role: 'copy' }, { role: 'paste' }, { role: 'selectAll' }],
    View: [{ role: 'togglefullscreen' }, ...(app.isPackaged ? [] : [{ role: 'toggleDevTools' as const }])],
  };
}
const ROLE_MENUS = ['File', 'Edit', 'View'] as const;

// Command ids of the latest model: a click on an item of a menu that has since been replaced sends nothing.
let menuCommands = new Set<string>();
// The latest model as JSON: the page may send the same model often, and an unchanged one rebuilds nothing.
let shownMenu = '';

function nativeItem(item: MenuEntryModel): MenuItemOptions {
  if (isMenuSeparator(item)) return { type: 'separator' };
  const checkbox = item.checked === undefined ? {} : { type: 'checkbox' as const, checked: item.checked };
  return {
    label: escapeMnemonics(item.label),
    enabled: item.enabled,
    ...checkbox,
    ...(item.accelerator === undefined ? {} : pageKey(item.accelerator)),
    click: (menuItem) => {
      // Electron flips a checkbox as it is clicked; its mark stays the model's until the page sends a new model.
      if (item.checked !== undefined) menuItem.checked = item.checked;
      if (menuCommands.has(item.command)) sendMenuCommand(item.command);
    },
  };
}

/**
 * The application menu: the model's menus in its order, each item sending its command id, with the role items
 * merged in — File, Edit and View each end with a separator and their roles after the model's items; one the
 * model lacks holds its roles alone, placed first (File) or after the one before it (Edit after File, View
 * after Edit). On macOS the app menu comes first.
 */
function buildMenu(model: MenuModel): MenuItemOptions[] {
  const roles = roleItems();
  const menus: { label: string; submenu: MenuItemOptions[] }[] = model.map((menu) => {
    const items = menu.items.map(nativeItem);
    const merged = (ROLE_MENUS as readonly string[]).includes(menu.label)
      ? [...items, { type: 'separator' as const }, ...roles[menu.label as (typeof ROLE_MENUS)[number]]]
      : items;
    return { label: menu.label, submenu: merged };
  });
  ROLE_MENUS.forEach((label, index) => {
    if (menus.some((menu) => menu.label === label)) return;
    const at = index === 0 ? 0 : menus.findIndex((menu) => menu.label === ROLE_MENUS[index - 1]) + 1;
    menus.splice(at, 0, { label, submenu: roles[label] });
  });
  return [
    ...(isMac ? [{ role: 'appMenu' as const }] : []),
    ...menus.map((menu) => ({ label: `&${escapeMnemonics(menu.label)}`, submenu: menu.submenu })),
  ];
}

function showMenu(model: MenuModel): void {
  const serialized = JSON.stringify(model);
  if (serialized === shownMenu) return;
  shownMenu = serialized;
  menuCommands = new Set(model.flatMap((menu) => menu.items.flatMap((item) => (isMenuSeparator(item) ? [] : [item.command]))));
  Menu.setApplicationMenu(Menu.buildFromTemplate(buildMenu(model)));
}

function setMenu(_window: Window | null, argument: unknown): void {
  showMenu(validateMenuModel(IPC_CHANNELS.setMenu, argument));
}

/**
 * Registers an invoke handler that accepts messages only from our own page and with at most one argument,
 * and passes the window that sent it (dialogs are modal to it). What it throws reaches the page with base names
 * only, in our words (page-error.ts).
 */
function handle(channel: string, handler: (window: Window | null, argument: unknown) => unknown): void {
  ipcMain.handle(channel, (event: IpcMainInvokeEvent, ...args: unknown[]) =>
    answerPage(() => {
      if (!isTrustedSenderUrl(event.senderFrame?.url)) throw new IpcArgumentError(channel, 'sender is not the Rigwright page');
      if (args.length > 1) throw new IpcArgumentError(channel, 'expects at most one argument');
      return handler(BrowserWindow.fromWebContents(event.sender), args[0]);
    }),
  );
}

// A second dialog while one is open (e.g. Open… chosen from the menu and by the page's Ctrl+O) gets nothing.
let dialogOpen = false;

async function withDialog<T>(ifBusy: T, run: () => Promise<T>): Promise<T> {
  if (dialogOpen) return ifBusy;
  dialogOpen = true;
  try {
    return await run();
  } finally {
    dialogOpen = false;
  }
}

function parentWindow(window: Window | null): Window {
  const parent = window ?? BrowserWindow.getFocusedWindow() ?? BrowserWindow.getAllWindows()[0];
  if (!parent) throw new Error('no window to show the dialog on');
  return parent;
}

async function openFiles(window: Window | null, argument: unknown): Promise<OpenedFile[]> {
  const request = validateOpenFilesRequest(IPC_CHANNELS.openFiles, argument);
  return withDialog<OpenedFile[]>([], async () => {
    const result = await dialog.showOpenDialog(parentWindow(window), {
      title: request.title,
      filters: [{ name: 'Rig files', extensions: request.extensions }],
      properties: ['openFile', 'multiSelections'],
    });
    if (result.canceled) return [];
    // File → Open and Import (the rig formats, no extensions named): their folder is where a script's files are.
    if (window && !hasExtensions(argument)) scriptFiles().sceneFilesOpened(window, result.filePaths);
    const files: OpenedFile[] = [];
    for (const filePath of result.filePaths) {
      const name = path.basename(filePath);
      const info = await stat(filePath);
      if (!info.isFile()) throw new Error(`${name} is not a file`);
      if (info.size > MAX_FILE_BYTES) throw new Error(`${name} is larger than ${MAX_FILE_BYTES} bytes`);
      const data = await readFile(filePath);
      files.push({ name, bytes: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) });
    }
    return files;
  });
}

async function saveFile(window: Window | null, argument: unknown): Promise<boolean> {
  return withDialog(false, () =>
    saveRequestedFile(argument, async (request) => {
      const extension = extensionOf(request.suggestedName);
      const result = await dialog.showSaveDialog(parentWindow(window), {
        title: 'Save',
        defaultPath: path.join(app.getPath('documents'), request.suggestedName),
        filters: [{ name: `${extension.toUpperCase()} file`, extensions: [extension] }],
      });
      return result.canceled || !result.filePath ? null : result.filePath;
    }),
  );
}

/**
 * A .gltf and its resources, or a TGF skeleton and its names file: one Save dialog for the main file, the resources
 * written relative to it (save-file.ts).
 */
async function saveAsset(window: Window | null, argument: unknown): Promise<boolean> {
  return withDialog(false, () =>
    saveRequestedAsset(argument, async (request) => {
      const skeleton = /\.tgf$/i.test(request.suggestedName);
      const count = request.resources.length;
      const result = await dialog.showSaveDialog(parentWindow(window), {
        title: skeleton
          ? `Save ${request.suggestedName} and its bone names`
          : `Save ${request.suggestedName} and its ${count} file${count === 1 ? '' : 's'}`,
        defaultPath: path.join(app.getPath('documents'), request.suggestedName),
        filters: [skeleton ? { name: 'TGF skeleton', extensions: ['tgf'] } : { name: 'glTF file', extensions: ['gltf'] }],
      });
      return result.canceled || !result.filePath ? null : result.filePath;
    }),
  );
}

// Project files: the page names them by token; paths and the recent list stay here (userData/recent-projects.json).
let projectFiles: ProjectFilesMain | null = null;
function projects(): ProjectFilesMain {
  projectFiles ??= new ProjectFilesMain(path.join(app.getPath('userData'), 'recent-projects.json'));
  return projectFiles;
}
const PROJECT_FILTERS = [{ name: 'Rigwright project', extensions: ['glb'] }];

function openProject(window: Window | null, argument: unknown): Promise<(OpenedFile & { token: string }) | null> {
  return withDialog(null, () =>
    projects().open(IPC_CHANNELS.openProject, argument, async () => {
      const result = await dialog.showOpenDialog(parentWindow(window), {
        title: 'Open project',
        filters: PROJECT_FILTERS,
        properties: ['openFile'],
      });
      return result.canceled ? null : (result.filePaths[0] ?? null);
    }),
  );
}

function saveProject(window: Window | null, argument: unknown): Promise<ProjectFileRef | null> {
  return withDialog(null, () =>
    projects().save(IPC_CHANNELS.saveProject, argument, async (suggestedName) => {
      const folder = (await projects().lastFolder()) ?? app.getPath('documents');
      const result = await dialog.showSaveDialog(parentWindow(window), {
        title: 'Save project',
        defaultPath: path.join(folder, suggestedName),
        filters: PROJECT_FILTERS,
      });
      return result.canceled || !result.filePath ? null : result.filePath;
    }),
  );
}

/** Whether an open request names its own extensions (a script, a transfer's file) rather than the rig formats. */
function hasExtensions(argument: unknown): boolean {
  const extensions = (argument as { extensions?: unknown } | undefined)?.extensions;
  return Array.isArray(extensions) && extensions.length > 0;
}

// A script's files by path (rig.files in the desktop app): inside the working folder at once, outside it once the
// page says the user allowed it (script-files-main.ts).
let scriptFilesMain: ScriptFilesMain | null = null;
function scriptFiles(): ScriptFilesMain {
  scriptFilesMain ??= new ScriptFilesMain({
    projectPath: (channel, token) => projects().pathOf(channel, token),
    defaultFolder: () => app.getPath('documents'),
  });
  return scriptFilesMain;
}

// Unsaved work. The page says whether its scene has unsaved changes; while it has, closing the window (or quitting,
// which closes every window) waits for the page's answer to its Save / Discard / Cancel question. A page whose
// process has gone cannot answer: its window closes (its autosave is what recovery offers at the next start).
const unsavedWindows = new WeakSet<Window>();
const closeAllowed = new WeakSet<Window>();
let quitting = false;
let autosaveFolder: AutosaveFolder | null = null;
/** autosave sessions begun by each window's page, ended when the page's process goes */
const pageSessions = new WeakMap<Window, Set<string>>();
/** each window's autosaved version whose chunks have come and whose info has not yet */
const autosaveUploads = new AutosaveUploads<Window>();

function autosave(): AutosaveFolder {
  autosaveFolder ??= new AutosaveFolder(path.join(app.getPath('userData'), 'autosave'));
  return autosaveFolder;
}

function guardClose(window: Window): void {
  window.on('close', (event) => {
    if (closeAllowed.has(window) || !unsavedWindows.has(window)) return;
    event.preventDefault();
    window.webContents.send(IPC_CHANNELS.closeRequested);
  });
  window.webContents.on('render-process-gone', () => {
    unsavedWindows.delete(window);
    autosaveUploads.drop(window);
    for (const session of pageSessions.get(window) ?? []) autosave().end(session);
  });
}

function setUnsaved(window: Window | null, argument: unknown): void {
  const unsaved = validateBoolean(IPC_CHANNELS.setUnsaved, argument);
  if (!window) return;
  if (unsaved) unsavedWindows.add(window);
  else unsavedWindows.delete(window);
}

function answerClose(window: Window | null, argument: unknown): void {
  const close = validateBoolean(IPC_CHANNELS.answerClose, argument);
  if (!window || window.isDestroyed()) return;
  if (!close) {
    quitting = false;
    return;
  }
  closeAllowed.add(window);
  if (quitting) app.quit();
  else window.close();
}

function beginAutosave(window: Window | null, argument: unknown): Promise<void> {
  const session = validateAutosaveId(IPC_CHANNELS.autosaveBegin, argument, 'session');
  if (window) pageSessions.set(window, (pageSessions.get(window) ?? new Set()).add(session));
  return autosave().begin(session);
}

/** The owner of a page's pending autosave: the window that sent it (a sender without one cannot autosave). */
function uploadOwner(channel: string, window: Window | null): Window {
  if (!window) throw new IpcArgumentError(channel, 'the sender has no window');
  return window;
}

/** One chunk of a version's bytes (AutosaveUploads checks it and its order). */
function receiveAutosaveChunk(window: Window | null, argument: unknown): void {
  autosaveUploads.receive(IPC_CHANNELS.autosaveChunk, uploadOwner(IPC_CHANNELS.autosaveChunk, window), argument);
}

/** A version's info, after its chunks: the version is written atomically from the chunks, which are then freed. */
function writeAutosave(window: Window | null, argument: unknown): Promise<void> {
  const { info, bytes } = autosaveUploads.take(IPC_CHANNELS.autosaveWrite, uploadOwner(IPC_CHANNELS.autosaveWrite, window), argument);
  return autosave().write(info, bytes);
}

app.on('before-quit', () => {
  quitting = true;
});
app.on('web-contents-created', (_event, contents) => lockDownContents(contents));
app.on('window-all-closed', () => {
  if (!isMac) app.quit();
});
app.on('activate', () => {
  if (BrowserWindow.getAllWindows().length === 0) createWindow();
});

app
  .whenReady()
  .then(() => {
    protocol.handle(APP_SCHEME, serveAppAsset);
    lockDownSession();
    handle(IPC_CHANNELS.openFiles, openFiles);
    handle(IPC_CHANNELS.saveFile, saveFile);
    handle(IPC_CHANNELS.saveAsset, saveAsset);
    handle(IPC_CHANNELS.setMenu, setMenu);
    handle(IPC_CHANNELS.openProject, openProject);
    handle(IPC_CHANNELS.saveProject, saveProject);
    handle(IPC_CHANNELS.recentProjects, () => projects().recent());
    handle(IPC_CHANNELS.scriptReadFile, (window, argument) => scriptFiles().read(IPC_CHANNELS.scriptReadFile, window, argument));
    handle(IPC_CHANNELS.scriptWriteFile, (window, argument) => scriptFiles().write(IPC_CHANNELS.scriptWriteFile, window, argument));
    handle(IPC_CHANNELS.setUnsaved, setUnsaved);
    handle(IPC_CHANNELS.answerClose, answerClose);
    handle(IPC_CHANNELS.autosaveBegin, beginAutosave);
    handle(IPC_CHANNELS.autosaveChunk, receiveAutosaveChunk);
    handle(IPC_CHANNELS.autosaveWrite, writeAutosave);
    handle(IPC_CHANNELS.autosaveList, () => autosave().list());
    handle(IPC_CHANNELS.autosaveRead, (_window, id) => autosave().read(validateAutosaveId(IPC_CHANNELS.autosaveRead, id)));
    handle(IPC_CHANNELS.autosaveRemove, (_window, ids) => autosave().remove(validateAutosaveRemove(IPC_CHANNELS.autosaveRemove, ids)));
    handle(IPC_CHANNELS.autosaveUnmark, (_window, id) => autosave().unmark(validateAutosaveId(IPC_CHANNELS.autosaveUnmark, id, 'session')));
    // Until the page describes its menus, only the role items.
    showMenu([]);
    createWindow();
  })
  .catch((error: unknown) => {
    console.error('Rigwright failed to start:', error);
    app.quit();
  });
