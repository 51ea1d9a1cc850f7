/**
 * The part of Electron's API that main.ts and preload.ts use, typed here after Electron's documentation.
 * Electron is an optional dependency: where its package cannot install (no binary download), the project must
 * still type-check and the CLI must still run, so the app's Electron modules do not import the package's
 * types; they `require('electron')` (kept external by the bundler) and view it through these interfaces.
 */

export interface ElectronEvent {
  preventDefault(): void;
}

export interface WebFrameMain {
  readonly url: string;
}

export interface IpcMainInvokeEvent extends ElectronEvent {
  readonly sender: WebContents;
  /** null when the frame has navigated away or been destroyed before main handled the message */
  readonly senderFrame: WebFrameMain | null;
}

export interface WebContents {
  send(channel: string, ...args: unknown[]): void;
  on(event: 'will-navigate' | 'will-redirect', listener: (event: ElectronEvent, url: string) => void): this;
  on(event: 'will-attach-webview', listener: (event: ElectronEvent) => void): this;
  /** the page's process ended (crashed, killed, out of memory) */
  on(event: 'render-process-gone', listener: (event: ElectronEvent, details: { reason: string }) => void): this;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void;
}

export interface WebPreferences {
  preload: string;
  sandbox: boolean;
  contextIsolation: boolean;
  nodeIntegration: boolean;
  nodeIntegrationInWorker: boolean;
  webSecurity: boolean;
  allowRunningInsecureContent: boolean;
  webviewTag: boolean;
  spellcheck: boolean;
}

export interface BrowserWindowOptions {
  width: number;
  height: number;
  minWidth: number;
  minHeight: number;
  show: boolean;
  title: string;
  backgroundColor: string;
  webPreferences: WebPreferences;
}

export interface BrowserWindow {
  readonly webContents: WebContents;
  loadURL(url: string): Promise<void>;
  once(event: 'ready-to-show', listener: () => void): this;
  show(): void;
  isDestroyed(): boolean;
  /** 'close': the window is about to close (preventDefault keeps it open, and cancels a quit in progress) */
  on(event: 'close', listener: (event: ElectronEvent) => void): this;
  close(): void;
}

export interface BrowserWindowConstructor {
  new (options: BrowserWindowOptions): BrowserWindow;
  getAllWindows(): BrowserWindow[];
  getFocusedWindow(): BrowserWindow | null;
  fromWebContents(contents: WebContents): BrowserWindow | null;
}

export interface CustomScheme {
  scheme: string;
  privileges: {
    standard?: boolean;
    secure?: boolean;
    supportFetchAPI?: boolean;
    corsEnabled?: boolean;
    codeCache?: boolean;
    stream?: boolean;
  };
}

export interface Protocol {
  registerSchemesAsPrivileged(schemes: CustomScheme[]): void;
  handle(scheme: string, handler: (request: Request) => Response | Promise<Response>): void;
}

export interface HeadersReceivedDetails {
  url: string;
  responseHeaders?: Record<string, string[]>;
}

export interface WebRequest {
  onBeforeRequest(listener: (details: { url: string }, callback: (response: { cancel: boolean }) => void) => void): void;
  onHeadersReceived(
    listener: (details: HeadersReceivedDetails, callback: (response: { responseHeaders: Record<string, string[]> }) => void) => void,
  ): void;
}

export interface Session {
  readonly webRequest: WebRequest;
  setPermissionRequestHandler(handler: (webContents: WebContents, permission: string, callback: (granted: boolean) => void) => void): void;
  setPermissionCheckHandler(handler: (webContents: WebContents | null, permission: string) => boolean): void;
}

export interface FileFilter {
  name: string;
  extensions: string[];
}

export interface Dialog {
  showOpenDialog(
    window: BrowserWindow,
    options: { title: string; filters: FileFilter[]; properties: Array<'openFile' | 'multiSelections'> },
  ): Promise<{ canceled: boolean; filePaths: string[] }>;
  showSaveDialog(
    window: BrowserWindow,
    options: { title: string; defaultPath: string; filters: FileFilter[] },
  ): Promise<{ canceled: boolean; filePath?: string }>;
}

export interface IpcMain {
  handle(channel: string, listener: (event: IpcMainInvokeEvent, ...args: unknown[]) => unknown): void;
}

/** The item a menu click passes to its handler; Electron has already flipped a checkbox's `checked`. */
export interface MenuItem {
  checked: boolean;
}

export interface MenuItemOptions {
  label?: string;
  role?: 'appMenu' | 'quit' | 'cut' | 'copy' | 'paste' | 'selectAll' | 'toggleDevTools' | 'togglefullscreen' | 'minimize' | 'close';
  type?: 'separator' | 'checkbox';
  /** false: shown greyed out, clicks do nothing */
  enabled?: boolean;
  /** the mark of a 'checkbox' item */
  checked?: boolean;
  accelerator?: string;
  /** false: show the accelerator in the menu but leave the key to the page (Linux and Windows) */
  registerAccelerator?: boolean;
  submenu?: MenuItemOptions[];
  click?: (menuItem: MenuItem) => void;
}

export interface MenuStatic {
  buildFromTemplate(template: MenuItemOptions[]): unknown;
  setApplicationMenu(menu: unknown): void;
}

export interface App {
  readonly isPackaged: boolean;
  getPath(name: 'documents' | 'userData'): string;
  enableSandbox(): void;
  whenReady(): Promise<void>;
  quit(): void;
  on(event: 'window-all-closed' | 'activate' | 'before-quit', listener: () => void): this;
  on(event: 'web-contents-created', listener: (event: ElectronEvent, contents: WebContents) => void): this;
}

/** `require('electron')` in the main process. */
export interface ElectronMain {
  app: App;
  BrowserWindow: BrowserWindowConstructor;
  protocol: Protocol;
  session: { readonly defaultSession: Session };
  dialog: Dialog;
  ipcMain: IpcMain;
  Menu: MenuStatic;
}

export interface IpcRendererEvent {
  readonly senderId: number;
}

/** `require('electron')` in a sandboxed preload. */
export interface ElectronPreload {
  contextBridge: { exposeInMainWorld(key: string, api: unknown): void };
  ipcRenderer: {
    invoke(channel: string, ...args: unknown[]): Promise<unknown>;
    on(channel: string, listener: (event: IpcRendererEvent, ...args: unknown[]) => void): unknown;
    removeListener(channel: string, listener: (event: IpcRendererEvent, ...args: unknown[]) => void): unknown;
  };
}
