/**
 * The Electron main process and preload as bundled by esbuild (the same options as app/build.mjs), run in Node
 * against a recording stand-in for the `electron` module, so their wiring is checked where no Electron binary
 * exists: the window's security flags, the app scheme's file serving (with traversal attempts), the CSP and
 * request filters, denied permissions, navigation and window-open blocking, the IPC handlers with their sender
 * and argument checks and real file reads and writes, the application menu built from the page's menu model, and
 * the preload's bridge.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { BrowserWindowOptions, MenuItemOptions } from '../../app/electron-api.ts';
import { fullDiskPromises } from './full-disk.ts';
import {
  IPC_CHANNELS,
  type AutosaveInfo,
  type AutosaveListing,
  type MenuItemModel,
  type MenuModel,
  type OpenedFile,
  type ProjectFileRef,
  type RigwrightBridge,
} from '../../app/ipc-contract.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const work = mkdtempSync(path.join(tmpdir(), 'rigwright-main-'));
const rendererRoot = path.join(work, 'renderer');
mkdirSync(path.join(rendererRoot, 'assets'), { recursive: true });
writeFileSync(path.join(rendererRoot, 'index.html'), '<!doctype html><title>Rigwright</title>');
writeFileSync(path.join(rendererRoot, 'assets', 'io.worker.js'), 'self.onmessage = () => {};');
writeFileSync(path.join(work, 'secret.txt'), 'outside the renderer folder');

/** A callback the bundled code registered: the tests call it with hand-made (sometimes malformed) arguments. */
type Listener = (...args: unknown[]) => unknown;

/** Everything main.ts and preload.ts did to the stand-in. */
const recorded = {
  sandboxEnabled: false,
  schemes: [] as unknown[],
  protocolHandlers: new Map<string, (request: Request) => Promise<Response>>(),
  appListeners: new Map<string, Listener>(),
  windows: [] as FakeWindow[],
  beforeRequest: undefined as Listener | undefined,
  headersReceived: undefined as Listener | undefined,
  permissionRequest: undefined as Listener | undefined,
  permissionCheck: undefined as Listener | undefined,
  ipcHandlers: new Map<string, Listener>(),
  menu: undefined as MenuItemOptions[] | undefined,
  nextOpen: { canceled: true, filePaths: [] as string[] },
  nextSave: { canceled: true, filePath: '' },
  exposed: new Map<string, unknown>(),
  invoked: [] as unknown[][],
  /** when set, the preload's `ipcRenderer.invoke` rejects with it (as when main refuses the message) */
  invokeFailure: undefined as Error | undefined,
  /** when set, the preload's `ipcRenderer.invoke` reaches main's handler and answers as Electron does (pageInvoke) */
  invokeMain: false,
  /** when set, every write main makes to a temporary file fails with ENOSPC, as on a full disk */
  diskFull: false,
  rendererListeners: new Map<string, Set<Listener>>(),
  quits: 0,
};

class FakeContents {
  readonly sent: unknown[][] = [];
  readonly listeners = new Map<string, Listener>();
  openHandler: Listener | undefined;
  send(...args: unknown[]) {
    this.sent.push(args);
  }
  on(event: string, listener: Listener) {
    this.listeners.set(event, listener);
    return this;
  }
  setWindowOpenHandler(handler: Listener) {
    this.openHandler = handler;
  }
}

class FakeWindow {
  readonly webContents = new FakeContents();
  readonly windowListeners = new Map<string, Listener>();
  url = '';
  closeCalls = 0;
  constructor(readonly options: BrowserWindowOptions) {
    recorded.windows.push(this);
    recorded.appListeners.get('web-contents-created')?.({}, this.webContents);
  }
  loadURL(url: string) {
    this.url = url;
    return Promise.resolve();
  }
  once() {
    return this;
  }
  show() {}
  isDestroyed() {
    return false;
  }
  on(event: string, listener: Listener) {
    this.windowListeners.set(event, listener);
    return this;
  }
  close() {
    this.closeCalls++;
  }
  /** Emits 'close' as Electron does before closing; returns whether a listener kept the window open. */
  emitClose(): boolean {
    let prevented = false;
    this.windowListeners.get('close')?.({ preventDefault: () => (prevented = true) });
    return prevented;
  }
  static getAllWindows() {
    return recorded.windows;
  }
  static getFocusedWindow() {
    return recorded.windows[0] ?? null;
  }
  static fromWebContents(contents: FakeContents) {
    return recorded.windows.find((w) => w.webContents === contents) ?? null;
  }
}

const fakeElectron = {
  app: {
    isPackaged: false,
    getPath: () => work,
    enableSandbox: () => {
      recorded.sandboxEnabled = true;
    },
    whenReady: () => Promise.resolve(),
    quit: () => {
      recorded.quits++;
    },
    on(event: string, listener: Listener) {
      recorded.appListeners.set(event, listener);
      return this;
    },
  },
  BrowserWindow: FakeWindow,
  protocol: {
    registerSchemesAsPrivileged: (schemes: unknown[]) => recorded.schemes.push(...schemes),
    handle: (scheme: string, handler: (request: Request) => Promise<Response>) => recorded.protocolHandlers.set(scheme, handler),
  },
  session: {
    defaultSession: {
      webRequest: {
        onBeforeRequest: (listener: Listener) => (recorded.beforeRequest = listener),
        onHeadersReceived: (listener: Listener) => (recorded.headersReceived = listener),
      },
      setPermissionRequestHandler: (handler: Listener) => (recorded.permissionRequest = handler),
      setPermissionCheckHandler: (handler: Listener) => (recorded.permissionCheck = handler),
    },
  },
  dialog: {
    showOpenDialog: async () => recorded.nextOpen,
    showSaveDialog: async () => recorded.nextSave,
  },
  ipcMain: { handle: (channel: string, listener: Listener) => recorded.ipcHandlers.set(channel, listener) },
  Menu: {
    buildFromTemplate: (template: MenuItemOptions[]) => template,
    setApplicationMenu: (menu: MenuItemOptions[]) => (recorded.menu = menu),
  },
  contextBridge: { exposeInMainWorld: (key: string, api: unknown) => recorded.exposed.set(key, api) },
  ipcRenderer: {
    invoke: async (...args: unknown[]) => {
      recorded.invoked.push(args);
      if (recorded.invokeFailure) throw recorded.invokeFailure;
      if (recorded.invokeMain) return pageInvoke(args[0] as string, args.slice(1));
      return args[0] === IPC_CHANNELS.saveFile ? true : [];
    },
    on(channel: string, listener: Listener) {
      if (!recorded.rendererListeners.has(channel)) recorded.rendererListeners.set(channel, new Set());
      recorded.rendererListeners.get(channel)!.add(listener);
    },
    removeListener(channel: string, listener: Listener) {
      recorded.rendererListeners.get(channel)?.delete(listener);
    },
  },
};

/**
 * What the page gets from `ipcRenderer.invoke` when main's handler runs: its value, or — when it throws — a rejection
 * made as Electron makes it (main sends the error's `toString()`, the renderer prefixes the remote method).
 */
function pageInvoke(channel: string, args: unknown[]): Promise<unknown> {
  return Promise.resolve()
    .then(() => recorded.ipcHandlers.get(channel)!(trustedEvent(), ...args))
    .catch((error: unknown) => {
      throw new Error(`Error invoking remote method '${channel}': ${String(error)}`);
    });
}

/** node:fs/promises for the bundled main: a full-disk stand-in whose writes to temporary files fail while `diskFull` is set. */
const fsPromisesForMain = fullDiskPromises((file) => recorded.diskFull && file.endsWith('.tmp'));

/** Bundles an app/ entry like app/build.mjs does and loads it with `electron` replaced by the stand-in. */
async function loadBundled(entry: string, outfile: string): Promise<void> {
  await build({
    entryPoints: [path.join(repoRoot, entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['electron'],
    logLevel: 'silent',
  });
  const moduleInternals = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
  const originalLoad = moduleInternals._load;
  moduleInternals._load = function (request: string, ...rest: unknown[]) {
    if (request === 'electron') return fakeElectron;
    return request === 'node:fs/promises' ? fsPromisesForMain : originalLoad.call(this, request, ...rest);
  };
  try {
    createRequire(import.meta.url)(outfile);
  } finally {
    moduleInternals._load = originalLoad;
  }
  await new Promise((resolve) => setImmediate(resolve));
}

const trustedEvent = () => ({
  senderFrame: { url: 'rigwright://app/index.html' },
  sender: recorded.windows[0].webContents,
  preventDefault() {},
});

test('main starts one sandboxed, isolated window on the app scheme', async () => {
  await loadBundled('app/main.ts', path.join(work, 'app', 'main.cjs'));
  assert.equal(recorded.sandboxEnabled, true);
  assert.deepEqual(recorded.schemes, [
    { scheme: 'rigwright', privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true } },
  ]);
  assert.equal(recorded.windows.length, 1);
  const { webPreferences } = recorded.windows[0].options;
  assert.equal(webPreferences.sandbox, true);
  assert.equal(webPreferences.contextIsolation, true);
  assert.equal(webPreferences.nodeIntegration, false);
  assert.equal(webPreferences.webSecurity, true);
  assert.equal(webPreferences.preload, path.join(work, 'app', 'preload.cjs'));
  assert.equal(recorded.windows[0].url, 'rigwright://app/index.html');
});

test('the app scheme serves the renderer folder with the CSP and the isolation headers, and nothing outside it', async () => {
  const serve = recorded.protocolHandlers.get('rigwright')!;
  const get = (url: string, method = 'GET') => serve(new Request(url, { method }));

  const index = await get('rigwright://app/index.html');
  assert.equal(index.status, 200);
  assert.equal(await index.text(), readFileSync(path.join(rendererRoot, 'index.html'), 'utf8'));
  assert.match(index.headers.get('content-type')!, /^text\/html/);
  assert.match(
    index.headers.get('content-security-policy')!,
    /script-src 'self' 'wasm-unsafe-eval';.*worker-src 'self' blob:;.*object-src 'none'/,
  );
  const worker = await get('rigwright://app/assets/io.worker.js');
  assert.match(worker.headers.get('content-type')!, /^text\/javascript/);
  // The page and its workers' scripts alike carry the isolation pair: a worker whose script lacks the embedder
  // policy is refused by an isolated page.
  for (const response of [index, worker]) {
    assert.equal(response.headers.get('cross-origin-opener-policy'), 'same-origin');
    assert.equal(response.headers.get('cross-origin-embedder-policy'), 'require-corp');
  }

  for (const url of [
    'rigwright://app/../secret.txt',
    'rigwright://app/%2e%2e/secret.txt',
    'rigwright://app/..%2fsecret.txt',
    'rigwright://app/assets/..%5c..%5csecret.txt',
  ]) {
    const response = await get(url);
    assert.ok(response.status === 403 || response.status === 404, `${url}: ${response.status}`);
    assert.doesNotMatch(await response.text(), /outside the renderer/);
  }
  assert.equal((await get('rigwright://other/index.html')).status, 403);
  assert.equal((await get('rigwright://app/missing.js')).status, 404);
  assert.equal((await get('rigwright://app/index.html', 'POST')).status, 405);
});

test('the session cancels remote requests, adds the CSP and the isolation headers to responses and denies permissions', () => {
  const cancels = (url: string) => {
    let result: { cancel: boolean } | undefined;
    recorded.beforeRequest!({ url }, (response: { cancel: boolean }) => (result = response));
    return result!.cancel;
  };
  assert.equal(cancels('rigwright://app/index.html'), false);
  assert.equal(cancels('blob:rigwright://app/1234'), false);
  assert.equal(cancels('https://example.com/x.js'), true);
  assert.equal(cancels('http://127.0.0.1:5173/'), true);
  assert.equal(cancels('file:///etc/passwd'), true);
  assert.equal(cancels('wss://example.com/'), true);

  let headers: Record<string, string[]> | undefined;
  recorded.headersReceived!(
    {
      url: 'rigwright://app/index.html',
      responseHeaders: {
        'content-security-policy': ['script-src *'],
        'cross-origin-embedder-policy': ['unsafe-none'],
        'Cross-Origin-Opener-Policy': ['unsafe-none'],
        'content-type': ['text/html'],
      },
    },
    (response: { responseHeaders: Record<string, string[]> }) => (headers = response.responseHeaders),
  );
  assert.equal(headers!['content-security-policy'], undefined);
  assert.match(headers!['Content-Security-Policy'][0], /^default-src 'self'; script-src 'self' 'wasm-unsafe-eval';/);
  assert.deepEqual(headers!['content-type'], ['text/html']);
  // The isolation pair replaces whatever a response had, under one name each, whatever the case it came in.
  const isolation = Object.entries(headers!)
    .filter(([name]) => /^cross-origin-(opener|embedder)-policy$/i.test(name))
    .map(([name, value]) => [name.toLowerCase(), value]);
  assert.deepEqual(Object.fromEntries(isolation), {
    'cross-origin-opener-policy': ['same-origin'],
    'cross-origin-embedder-policy': ['require-corp'],
  });
  assert.equal(isolation.length, 2, 'one header of each name');

  let granted: boolean | undefined;
  recorded.permissionRequest!({}, 'media', (answer: boolean) => (granted = answer));
  assert.equal(granted, false);
  assert.equal(recorded.permissionCheck!({}, 'clipboard-read', 'rigwright://app'), false);
});

test('navigation away from the app, webviews and new windows are refused', () => {
  const contents = recorded.windows[0].webContents;
  const prevented = (event: string, url: string) => {
    let stopped = false;
    contents.listeners.get(event)!({ preventDefault: () => (stopped = true) }, url);
    return stopped;
  };
  assert.equal(prevented('will-navigate', 'https://example.com/'), true);
  assert.equal(prevented('will-navigate', 'file:///etc/passwd'), true);
  assert.equal(prevented('will-redirect', 'https://example.com/'), true);
  assert.equal(prevented('will-navigate', 'rigwright://app/index.html'), false);
  assert.equal(prevented('will-attach-webview', ''), true);
  assert.deepEqual(contents.openHandler!({ url: 'https://example.com/' }), { action: 'deny' });
});

test('openFiles reads the chosen files as base name and bytes, after checking sender and request', async () => {
  const openFiles = recorded.ipcHandlers.get(IPC_CHANNELS.openFiles)!;
  const chosen = path.join(work, 'chosen.tgf');
  writeFileSync(chosen, '1 0 0 0\n2 0 1 0\n#\n1 2\n');
  recorded.nextOpen = { canceled: false, filePaths: [chosen] };
  const files = (await openFiles(trustedEvent())) as OpenedFile[];
  assert.equal(files.length, 1);
  assert.equal(files[0].name, 'chosen.tgf');
  assert.ok(files[0].bytes instanceof Uint8Array, "the opened file's bytes are a Uint8Array");
  assert.equal(Buffer.from(files[0].bytes).toString('utf8'), readFileSync(chosen, 'utf8'));
  assert.deepEqual(await openFiles(trustedEvent(), { title: 'Open a skeleton', extensions: ['tgf'] }), files);

  recorded.nextOpen = { canceled: true, filePaths: [] };
  assert.deepEqual(await openFiles(trustedEvent()), []);

  const foreign = { ...trustedEvent(), senderFrame: { url: 'https://example.com/' } };
  assert.throws(() => openFiles(foreign), /sender is not the Rigwright page/);
  assert.throws(() => openFiles({ ...trustedEvent(), senderFrame: null }), /sender is not the Rigwright page/);
  await assert.rejects(async () => openFiles(trustedEvent(), { extensions: ['exe'] }), /"exe" is not one of/);
  assert.throws(() => openFiles(trustedEvent(), {}, {}), /at most one argument/);
});

test('saveFile writes the bytes where the user chose, and refuses bad names', async () => {
  const saveFile = recorded.ipcHandlers.get(IPC_CHANNELS.saveFile)!;
  const target = path.join(work, 'saved.obj');
  recorded.nextSave = { canceled: false, filePath: target };
  const bytes = new TextEncoder().encode('v 0 0 0\n');
  assert.equal(await saveFile(trustedEvent(), { suggestedName: 'posed.obj', bytes }), true);
  assert.equal(readFileSync(target, 'utf8'), 'v 0 0 0\n');
  recorded.nextSave = { canceled: true, filePath: '' };
  assert.equal(await saveFile(trustedEvent(), { suggestedName: 'posed.obj', bytes }), false);
  await assert.rejects(async () => saveFile(trustedEvent(), { suggestedName: '../posed.obj', bytes }), /base name/);
  await assert.rejects(async () => saveFile(trustedEvent(), { suggestedName: 'posed.obj', bytes: 'v 0 0 0' }), /Uint8Array/);
});

test('saveFile replaces an existing file atomically; a save that cannot be written leaves the old file and says why', async () => {
  const saveFile = recorded.ipcHandlers.get(IPC_CHANNELS.saveFile)!;
  const folder = mkdtempSync(path.join(work, 'atomic-'));
  const target = path.join(folder, 'rig.dmat');
  writeFileSync(target, 'old contents');
  recorded.nextSave = { canceled: false, filePath: target };
  assert.equal(await saveFile(trustedEvent(), { suggestedName: 'rig.dmat', bytes: new TextEncoder().encode('1 1\n0.5\n') }), true);
  assert.equal(readFileSync(target, 'utf8'), '1 1\n0.5\n');
  assert.deepEqual(readdirSync(folder), ['rig.dmat'], 'no temporary file stays');

  const blocked = path.join(folder, 'blocked.glb');
  mkdirSync(blocked);
  recorded.nextSave = { canceled: false, filePath: blocked };
  await assert.rejects(
    async () => saveFile(trustedEvent(), { suggestedName: 'rig.glb', bytes: new Uint8Array(64) }),
    (error: unknown) => error instanceof Error && error.message === 'cannot save blocked.glb: it is a folder',
  );
  recorded.nextSave = { canceled: false, filePath: path.join(folder, 'missing', 'rig.glb') };
  await assert.rejects(
    async () => saveFile(trustedEvent(), { suggestedName: 'rig.glb', bytes: new Uint8Array(64) }),
    /no such file or folder/,
  );
  assert.deepEqual(readdirSync(folder).sort(), ['blocked.glb', 'rig.dmat']);
  assert.deepEqual(readdirSync(blocked), []);
});

test('saveAsset asks once where the .gltf goes and writes its resources beside it, subfolders made; a URI out of the folder writes nothing', async () => {
  const saveAsset = recorded.ipcHandlers.get(IPC_CHANNELS.saveAsset)!;
  const folder = mkdtempSync(path.join(work, 'asset-'));
  const target = path.join(folder, 'fox.gltf');
  recorded.nextSave = { canceled: false, filePath: target };
  const gltf = new TextEncoder().encode('{"asset":{"version":"2.0"}}');
  const bin = new Uint8Array([1, 2, 3]);
  const image = new Uint8Array([137, 80, 78, 71]);
  const resources = [
    { uri: 'fox.bin', bytes: bin },
    { uri: 'textures/fur.png', bytes: image },
  ];
  assert.equal(await saveAsset(trustedEvent(), { suggestedName: 'fox.gltf', bytes: gltf, resources }), true);
  assert.deepEqual(readdirSync(folder).sort(), ['fox.bin', 'fox.gltf', 'textures']);
  assert.deepEqual(new Uint8Array(readFileSync(path.join(folder, 'textures', 'fur.png'))), image);
  assert.deepEqual(new Uint8Array(readFileSync(path.join(folder, 'fox.bin'))), bin);

  const hostile = mkdtempSync(path.join(work, 'asset-hostile-'));
  recorded.nextSave = { canceled: false, filePath: path.join(hostile, 'inner', 'fox.gltf') };
  mkdirSync(path.join(hostile, 'inner'));
  for (const uri of ['../fox.bin', '/tmp/fox.bin', '%2e%2e/fox.bin', 'textures/../../fox.bin']) {
    await assert.rejects(
      async () => saveAsset(trustedEvent(), { suggestedName: 'fox.gltf', bytes: gltf, resources: [{ uri, bytes: bin }] }),
      (error: unknown) =>
        error instanceof Error && error.message.includes('resources[0].uri') && error.message.includes(JSON.stringify(uri)),
      uri,
    );
  }
  assert.deepEqual(readdirSync(hostile), ['inner'], 'nothing was written');
  assert.deepEqual(readdirSync(path.join(hostile, 'inner')), []);
  recorded.nextSave = { canceled: true, filePath: '' };
  assert.equal(await saveAsset(trustedEvent(), { suggestedName: 'fox.gltf', bytes: gltf, resources }), false);
});

test('project files: the dialog chooses once, a token saves the same file again without one, recent files reopen by token', async () => {
  const openProject = recorded.ipcHandlers.get(IPC_CHANNELS.openProject)!;
  const saveProject = recorded.ipcHandlers.get(IPC_CHANNELS.saveProject)!;
  const recentProjects = recorded.ipcHandlers.get(IPC_CHANNELS.recentProjects)!;
  const target = path.join(work, 'arm.rig.glb');
  recorded.nextSave = { canceled: false, filePath: target };
  const saved = (await saveProject(trustedEvent(), { suggestedName: 'arm.rig.glb', bytes: new Uint8Array([1, 2]) })) as ProjectFileRef;
  assert.equal(saved.name, 'arm.rig.glb');
  assert.deepEqual([...readFileSync(target)], [1, 2]);
  recorded.nextSave = { canceled: false, filePath: path.join(work, 'elsewhere.glb') };
  assert.deepEqual(
    await saveProject(trustedEvent(), { token: saved.token, suggestedName: 'arm.rig.glb', bytes: new Uint8Array([3]) }),
    saved,
  );
  assert.deepEqual([...readFileSync(target)], [3], 'the same file, no dialog');
  recorded.nextSave = { canceled: true, filePath: '' };
  assert.equal(await saveProject(trustedEvent(), { suggestedName: 'arm.rig.glb', bytes: new Uint8Array(1) }), null);
  assert.deepEqual(await recentProjects(trustedEvent()), [saved]);
  const opened = (await openProject(trustedEvent(), saved.token)) as OpenedFile & { token: string };
  assert.deepEqual([opened.name, [...opened.bytes], opened.token], ['arm.rig.glb', [3], saved.token]);
  recorded.nextOpen = { canceled: true, filePaths: [] };
  assert.equal(await openProject(trustedEvent()), null);
  await assert.rejects(async () => openProject(trustedEvent(), 'unknown-token'), /token names no project file/);
  await assert.rejects(async () => saveProject(trustedEvent(), { suggestedName: 'a.exe', bytes: new Uint8Array(1) }), /must end in \.glb/);
  const foreign = { ...trustedEvent(), senderFrame: { url: 'https://example.com/' } };
  assert.throws(() => saveProject(foreign, { suggestedName: 'a.glb', bytes: new Uint8Array(1) }), /sender is not the Rigwright page/);
});

const isMac = process.platform === 'darwin';
/** An accelerator as main shows it: off macOS shown but left to the page, on macOS not at all. */
const shownKey = (accelerator: string) => (isMac ? {} : { accelerator, registerAccelerator: false });
const appMenu = isMac ? [{ role: 'appMenu' }] : [];
const separator = { type: 'separator' };
const fileRoles = [{ role: isMac ? 'close' : 'quit' }];
const editRoles = [{ role: 'cut' }, { role: 'copy' }, { role: 'paste' }, { role: 'selectAll' }];
const viewRoles = [{ role: 'togglefullscreen' }, { role: 'toggleDevTools' }];

/** The menus as the renderer's command catalog makes them. */
const PAGE_MENUS: MenuModel = [
  { label: 'File', items: [{ command: 'file.open', label: 'Open…', enabled: true, accelerator: 'CmdOrCtrl+O' }] },
  {
    label: 'Edit',
    items: [
      { command: 'edit.undo', label: 'Undo Paint stroke', enabled: true, accelerator: 'CmdOrCtrl+Z' },
      { command: 'edit.redo', label: 'Redo', enabled: false, accelerator: 'CmdOrCtrl+Shift+Z' },
      { separator: true },
      { command: 'app.preferences', label: 'Preferences…', enabled: true, accelerator: 'CmdOrCtrl+,' },
    ],
  },
  { label: 'View', items: [{ command: 'view.wireframe', label: 'Wireframe', enabled: true, checked: false, accelerator: 'W' }] },
];

/** The native menu template without its click functions (JSON leaves them out). */
const withoutClicks = (menu: unknown): unknown => JSON.parse(JSON.stringify(menu));
const menuItem = (top: string, label: string) => recorded.menu!.find((m) => m.label === top)!.submenu!.find((item) => item.label === label);
/** Clicks a native item as Electron does: with the item, whose checkbox mark Electron has already flipped. */
const click = (item: MenuItemOptions | undefined, clicked = { checked: false }) => item!.click!(clicked);
const setMenu = (...args: unknown[]) => recorded.ipcHandlers.get(IPC_CHANNELS.setMenu)!(...args);

test('before the page describes its menus, the menu has only the role items', () => {
  assert.deepEqual(recorded.menu, [
    ...appMenu,
    { label: '&File', submenu: fileRoles },
    { label: '&Edit', submenu: editRoles },
    { label: '&View', submenu: viewRoles },
  ]);
});

test("setMenu builds the menu from the page's model, with the role items merged in", () => {
  assert.equal(setMenu(trustedEvent(), PAGE_MENUS), undefined);
  assert.deepEqual(withoutClicks(recorded.menu), [
    ...appMenu,
    { label: '&File', submenu: [{ label: 'Open…', enabled: true, ...shownKey('CmdOrCtrl+O') }, separator, ...fileRoles] },
    {
      label: '&Edit',
      submenu: [
        { label: 'Undo Paint stroke', enabled: true, ...shownKey('CmdOrCtrl+Z') },
        { label: 'Redo', enabled: false, ...shownKey('CmdOrCtrl+Shift+Z') },
        separator,
        { label: 'Preferences…', enabled: true, ...shownKey('CmdOrCtrl+,') },
        separator,
        ...editRoles,
      ],
    },
    {
      label: '&View',
      submenu: [{ label: 'Wireframe', enabled: true, type: 'checkbox', checked: false, ...shownKey('W') }, separator, ...viewRoles],
    },
  ]);

  const contents = recorded.windows[0].webContents;
  for (const [top, label, command] of [
    ['&File', 'Open…', 'file.open'],
    ['&Edit', 'Undo Paint stroke', 'edit.undo'],
    ['&Edit', 'Redo', 'edit.redo'],
    ['&Edit', 'Preferences…', 'app.preferences'],
  ]) {
    contents.sent.length = 0;
    click(menuItem(top, label));
    assert.deepEqual(contents.sent, [[IPC_CHANNELS.menuCommand, command]], label);
  }
  // The page decides whether the toggle happens; until it sends a new model the mark stays the model's.
  contents.sent.length = 0;
  const flipped = { checked: true };
  click(menuItem('&View', 'Wireframe'), flipped);
  assert.deepEqual(contents.sent, [[IPC_CHANNELS.menuCommand, 'view.wireframe']]);
  assert.equal(flipped.checked, false);
});

test('menus the model lacks keep their roles in their usual place; labels keep a literal &', () => {
  setMenu(trustedEvent(), [
    { label: 'Edit', items: [{ command: 'edit.undo', label: 'Undo Move & rotate', enabled: true }] },
    { label: 'Skin & Bones', items: [{ command: 'skin.heatMap', label: 'Heat map', enabled: true, checked: true }] },
  ]);
  assert.deepEqual(withoutClicks(recorded.menu), [
    ...appMenu,
    { label: '&File', submenu: fileRoles },
    { label: '&Edit', submenu: [{ label: 'Undo Move && rotate', enabled: true }, separator, ...editRoles] },
    { label: '&View', submenu: viewRoles },
    { label: '&Skin && Bones', submenu: [{ label: 'Heat map', enabled: true, type: 'checkbox', checked: true }] },
  ]);
});

test('a click on an item of a replaced menu sends nothing unless the latest model has its command', () => {
  setMenu(trustedEvent(), PAGE_MENUS);
  const staleRedo = menuItem('&Edit', 'Redo');
  const staleOpen = menuItem('&File', 'Open…');
  setMenu(trustedEvent(), [PAGE_MENUS[0]]);
  assert.equal(menuItem('&Edit', 'Redo'), undefined);
  const contents = recorded.windows[0].webContents;
  contents.sent.length = 0;
  click(staleRedo);
  assert.deepEqual(contents.sent, []);
  click(staleOpen);
  assert.deepEqual(contents.sent, [[IPC_CHANNELS.menuCommand, 'file.open']]);
});

test('the same model again does not rebuild the native menu; a changed one does', () => {
  setMenu(trustedEvent(), PAGE_MENUS);
  const built = recorded.menu;
  setMenu(trustedEvent(), structuredClone(PAGE_MENUS));
  assert.equal(recorded.menu, built);
  const changed = structuredClone(PAGE_MENUS);
  (changed[1].items[0] as MenuItemModel).label = 'Undo Move joint';
  setMenu(trustedEvent(), changed);
  assert.notEqual(recorded.menu, built);
  assert.notEqual(menuItem('&Edit', 'Undo Move joint'), undefined, 'the changed label is shown');
});

test('setMenu refuses a foreign sender, a malformed model and extra arguments, and keeps the menu', () => {
  setMenu(trustedEvent(), PAGE_MENUS);
  const built = recorded.menu;
  const refused = (run: () => unknown, message: RegExp) =>
    assert.throws(run, (error: unknown) => {
      assert.ok(error instanceof Error, `expected an IpcArgumentError, got ${String(error)}`);
      assert.equal(error.name, 'IpcArgumentError');
      assert.match(error.message, message);
      return true;
    });
  const foreign = { ...trustedEvent(), senderFrame: { url: 'https://example.com/' } };
  refused(() => setMenu(foreign, PAGE_MENUS), /^rigwright:set-menu: sender is not the Rigwright page$/);
  refused(() => setMenu({ ...trustedEvent(), senderFrame: null }, PAGE_MENUS), /^rigwright:set-menu: sender is not the Rigwright page$/);
  const tooLong = structuredClone(PAGE_MENUS);
  (tooLong[1].items[1] as MenuItemModel).label = 'x'.repeat(121);
  refused(() => setMenu(trustedEvent(), tooLong), /^rigwright:set-menu: menu 2 item 2: label is longer than 120 characters$/);
  const badCommand = structuredClone(PAGE_MENUS);
  (badCommand[0].items[0] as MenuItemModel).command = '../x';
  refused(() => setMenu(trustedEvent(), badCommand), /^rigwright:set-menu: menu 1 item 1: command "\.\.\/x" is not a command id/);
  refused(() => setMenu(trustedEvent()), /^rigwright:set-menu: menu model must be an array$/);
  refused(() => setMenu(trustedEvent(), PAGE_MENUS, PAGE_MENUS), /^rigwright:set-menu: expects at most one argument$/);
  assert.equal(recorded.menu, built);
});

test('the preload exposes the bridge as window.rigwright over the IPC channels', async () => {
  await loadBundled('app/preload.ts', path.join(work, 'app', 'preload.cjs'));
  const bridge = recorded.exposed.get('rigwright') as RigwrightBridge;
  assert.deepEqual([...recorded.exposed.keys()], ['rigwright']);
  assert.equal(bridge.platform, 'electron');
  assert.deepEqual(await bridge.openFiles(), []);
  assert.deepEqual(await bridge.openFiles({ extensions: ['obj'] }), []);
  const bytes = new Uint8Array([1]);
  assert.equal(await bridge.saveFile({ suggestedName: 'a.obj', bytes }), true);
  assert.equal(bridge.setMenu(PAGE_MENUS), undefined);
  assert.deepEqual(recorded.invoked, [
    [IPC_CHANNELS.openFiles],
    [IPC_CHANNELS.openFiles, { extensions: ['obj'] }],
    [IPC_CHANNELS.saveFile, { suggestedName: 'a.obj', bytes }],
    [IPC_CHANNELS.setMenu, PAGE_MENUS],
  ]);

  const received: string[] = [];
  const unsubscribe = bridge.onMenuCommand((command) => received.push(command));
  const deliver = (command: unknown) => {
    for (const listener of recorded.rendererListeners.get(IPC_CHANNELS.menuCommand) ?? []) listener({ senderId: 0 }, command);
  };
  deliver('view.frameAll');
  deliver('format-disk');
  deliver(42);
  deliver('../x');
  deliver({ command: 'view.frameAll' });
  unsubscribe();
  deliver('playback.toggle');
  assert.deepEqual(received, ['view.frameAll']);
});

test("the preload's setMenu logs main's refusal instead of rejecting in the page", async () => {
  const bridge = recorded.exposed.get('rigwright') as RigwrightBridge;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  const logged: unknown[][] = [];
  const consoleError = console.error;
  console.error = (...args: unknown[]) => logged.push(args);
  recorded.invokeFailure = new Error('rigwright:set-menu: menu 1: label is empty');
  try {
    assert.equal(bridge.setMenu([{ label: '', items: [] }]), undefined);
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    recorded.invokeFailure = undefined;
    console.error = consoleError;
    process.off('unhandledRejection', onUnhandled);
  }
  assert.deepEqual(unhandled, []);
  assert.equal(logged.length, 1);
  assert.match(logged[0].map(String).join(' '), /menu was not updated.*menu 1: label is empty/);
});

test('closing or quitting with unsaved changes waits for the page: its answer closes, keeps the window or goes on quitting', async () => {
  const window = recorded.windows[0];
  const call = (channel: string, argument?: unknown) => recorded.ipcHandlers.get(channel)!(trustedEvent(), argument);
  const requests = () => window.webContents.sent.filter(([channel]) => channel === IPC_CHANNELS.closeRequested).length;
  assert.equal(window.emitClose(), false, 'nothing unsaved: the window closes without a question');
  assert.equal(requests(), 0);

  call(IPC_CHANNELS.setUnsaved, true);
  assert.equal(window.emitClose(), true, 'unsaved: the close waits');
  assert.equal(requests(), 1, 'the page is asked');
  call(IPC_CHANNELS.answerClose, false);
  assert.equal(window.closeCalls, 0, 'Cancel: the window stays');
  assert.equal(recorded.quits, 0);

  // A page whose process has gone cannot answer: its window closes.
  window.webContents.listeners.get('render-process-gone')!({}, { reason: 'crashed' });
  assert.equal(window.emitClose(), false);
  call(IPC_CHANNELS.setUnsaved, true);
  call(IPC_CHANNELS.setUnsaved, false);
  assert.equal(window.emitClose(), false, 'saved again: no question');

  // Quitting closes every window: with unsaved changes the quit waits for the answer, then goes on.
  call(IPC_CHANNELS.setUnsaved, true);
  recorded.appListeners.get('before-quit')!();
  assert.equal(window.emitClose(), true);
  assert.equal(requests(), 2);
  call(IPC_CHANNELS.answerClose, true);
  assert.equal(recorded.quits, 1, 'Save or Discard during a quit: the quit goes on');
  assert.equal(window.closeCalls, 0);
  assert.equal(window.emitClose(), false, 'the answered window closes');

  assert.throws(() => call(IPC_CHANNELS.setUnsaved, 'yes'), /rigwright:set-unsaved: argument must be true or false/);
  assert.throws(() => call(IPC_CHANNELS.answerClose, 1), /argument must be true or false/);
});

test("autosave goes to the data folder's autosave/ through IPC, checked, and a page gone leaves its work for recovery", async () => {
  const call = (channel: string, argument?: unknown) => recorded.ipcHandlers.get(channel)!(trustedEvent(), argument) as Promise<unknown>;
  const session = '0b9f7d2e-5c1a-4e8b-9d3f-2a6c4e8b1d7f';
  const info: AutosaveInfo = {
    id: `${session}-1`,
    session,
    sequence: 1,
    savedAt: 1_700_000_000_000,
    name: 'hand.rig.glb',
    vertexCount: 3485,
    boneCount: 20,
    editCount: 7,
    byteLength: 3,
  };
  await call(IPC_CHANNELS.autosaveBegin, session);
  await call(IPC_CHANNELS.autosaveChunk, { id: info.id, index: 0, bytes: Uint8Array.of(7, 8) });
  await call(IPC_CHANNELS.autosaveChunk, { id: info.id, index: 1, bytes: Uint8Array.of(9) });
  await call(IPC_CHANNELS.autosaveWrite, info);
  assert.deepEqual(readFileSync(path.join(work, 'autosave', `${session}-1.rig.glb`)), Buffer.from([7, 8, 9]));
  assert.deepEqual(await call(IPC_CHANNELS.autosaveList), { versions: [info], marked: [{ session, alive: true }] });
  assert.deepEqual(await call(IPC_CHANNELS.autosaveRead, info.id), Uint8Array.of(7, 8, 9));

  // The page's process goes: its marked work is no longer alive, so the next start offers it.
  recorded.windows[0].webContents.listeners.get('render-process-gone')!({}, { reason: 'oom' });
  assert.deepEqual(((await call(IPC_CHANNELS.autosaveList)) as AutosaveListing).marked, [{ session, alive: false }]);

  await assert.rejects(async () => call(IPC_CHANNELS.autosaveRead, '../../secret'), /letters, digits and dashes/);
  await call(IPC_CHANNELS.autosaveChunk, { id: info.id, index: 0, bytes: Uint8Array.of(1) });
  await assert.rejects(async () => call(IPC_CHANNELS.autosaveWrite, info), /1 bytes, info.byteLength says 3/);
  await assert.rejects(async () => call(IPC_CHANNELS.autosaveRemove, 'x-1'), /ids must be an array/);
  await call(IPC_CHANNELS.autosaveUnmark, session);
  await call(IPC_CHANNELS.autosaveRemove, [info.id]);
  assert.deepEqual(await call(IPC_CHANNELS.autosaveList), { versions: [], marked: [] });
});

test("the preload's autosave and close calls go over their channels", async () => {
  const bridge = recorded.exposed.get('rigwright') as RigwrightBridge;
  recorded.invoked.length = 0;
  const bytes = Uint8Array.of(1, 2);
  const info = {
    id: 'a-1',
    session: 'a',
    sequence: 1,
    savedAt: 0,
    name: 'untitled',
    vertexCount: 0,
    boneCount: 0,
    editCount: 0,
    byteLength: 2,
  };
  await bridge.autosave!.begin('a');
  await bridge.autosave!.write(info, bytes);
  await bridge.autosave!.unmark('a');
  bridge.setUnsaved!(true);
  bridge.answerClose!(false);
  assert.deepEqual(recorded.invoked, [
    [IPC_CHANNELS.autosaveBegin, 'a'],
    [IPC_CHANNELS.autosaveChunk, { id: 'a-1', index: 0, bytes }],
    [IPC_CHANNELS.autosaveWrite, info],
    [IPC_CHANNELS.autosaveUnmark, 'a'],
    [IPC_CHANNELS.setUnsaved, true],
    [IPC_CHANNELS.answerClose, false],
  ]);
  let asked = 0;
  const unsubscribe = bridge.onCloseRequest!(() => asked++);
  for (const listener of recorded.rendererListeners.get(IPC_CHANNELS.closeRequested) ?? []) listener({ senderId: 0 });
  unsubscribe();
  for (const listener of recorded.rendererListeners.get(IPC_CHANNELS.closeRequested) ?? []) listener({ senderId: 0 });
  assert.equal(asked, 1);
});

/** An autosave info for a version of `byteLength` bytes, session `session`, sequence `sequence`. */
function autosaveInfo(session: string, sequence: number, byteLength: number): AutosaveInfo {
  return {
    id: `${session}-${sequence}`,
    session,
    sequence,
    savedAt: 1_700_000_000_000 + sequence,
    name: 'body.rig.glb',
    vertexCount: 295_218,
    boneCount: 28,
    editCount: sequence,
    byteLength,
  };
}

/**
 * About how many bytes the page's structured clone of `value` copies: a typed array is cloned with its whole buffer
 * (the renderer's serializer writes the ArrayBuffer, then the view's offset and length), a string as UTF-16.
 */
function clonedBytes(value: unknown): number {
  if (ArrayBuffer.isView(value)) return value.buffer.byteLength;
  if (typeof value === 'string') return 2 * value.length;
  if (typeof value === 'object' && value !== null) return Object.values(value).reduce((sum: number, item) => sum + clonedBytes(item), 0);
  return 8;
}

/** The autosave folder's files, sorted ([] when it does not exist). */
function autosaveFiles(): string[] {
  try {
    return readdirSync(path.join(work, 'autosave')).sort();
  } catch {
    return [];
  }
}

test('the preload sends a version to main in chunks of at most 1 MiB, one invoke after another, and it reads back bit for bit', async () => {
  const bridge = recorded.exposed.get('rigwright') as RigwrightBridge;
  const MiB = 1024 * 1024;
  // 2.5 MiB and 3 bytes of a pattern no chunk boundary lines up with (a prime stride over 0–250).
  const bytes = new Uint8Array(2 * MiB + MiB / 2 + 3);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919) % 251;
  const info = autosaveInfo('c4a1f0e2-7b3d-4e5f-9a8b-1c2d3e4f5a6b', 3, bytes.byteLength);
  // Invokes one at a time: each one ends before the next begins.
  let inFlight = 0;
  let mostInFlight = 0;
  const originalInvoke = fakeElectron.ipcRenderer.invoke;
  fakeElectron.ipcRenderer.invoke = async (...args: unknown[]) => {
    mostInFlight = Math.max(mostInFlight, ++inFlight);
    try {
      return await originalInvoke(...args);
    } finally {
      inFlight--;
    }
  };
  recorded.invoked.length = 0;
  recorded.invokeMain = true;
  try {
    await bridge.autosave!.begin(info.session);
    await bridge.autosave!.write(info, bytes);
  } finally {
    recorded.invokeMain = false;
    fakeElectron.ipcRenderer.invoke = originalInvoke;
  }
  assert.equal(mostInFlight, 1, 'one invoke at a time');
  const chunks = recorded.invoked.filter(([channel]) => channel === IPC_CHANNELS.autosaveChunk);
  assert.deepEqual(
    chunks.map(([, chunk]) => [(chunk as { index: number }).index, (chunk as { bytes: Uint8Array }).bytes.byteLength]),
    [
      [0, MiB],
      [1, MiB],
      [2, MiB / 2 + 3],
    ],
  );
  assert.deepEqual(recorded.invoked.at(-1), [IPC_CHANNELS.autosaveWrite, info], 'the info comes last, without the bytes');
  for (const [channel, ...args] of recorded.invoked) {
    const cloned = clonedBytes(args);
    assert.ok(cloned <= MiB + 256, `${String(channel)}: ${cloned} bytes cloned, more than 1 MiB`);
  }
  const stored = readFileSync(path.join(work, 'autosave', `${info.id}.rig.glb`));
  assert.equal(stored.byteLength, bytes.byteLength);
  assert.ok(Buffer.compare(stored, bytes) === 0, 'the version on disk is the bytes the page gave, bit for bit');
  const read = (await recorded.ipcHandlers.get(IPC_CHANNELS.autosaveRead)!(trustedEvent(), info.id)) as Uint8Array;
  assert.ok(Buffer.compare(read, bytes) === 0, 'main reads the version back as the page gave it');
  await rm(info);
});

/** Removes a version written by a test and its session's mark, straight through main's handlers. */
async function rm(info: AutosaveInfo): Promise<void> {
  await recorded.ipcHandlers.get(IPC_CHANNELS.autosaveRemove)!(trustedEvent(), [info.id]);
  await recorded.ipcHandlers.get(IPC_CHANNELS.autosaveUnmark)!(trustedEvent(), info.session);
}

test('main refuses autosave chunks out of order, oversized or of another version, and a write that does not match them; nothing is written', async () => {
  const call = (channel: string, argument?: unknown) =>
    Promise.resolve().then(() => recorded.ipcHandlers.get(channel)!(trustedEvent(), argument));
  const chunk = (id: string, index: number, bytes: Uint8Array) => call(IPC_CHANNELS.autosaveChunk, { id, index, bytes });
  const write = (info: AutosaveInfo) => call(IPC_CHANNELS.autosaveWrite, info);
  const session = '5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9';
  const before = autosaveFiles();

  // Out of order: chunk 2 after chunk 0 is refused, and the version is dropped.
  const skipped = autosaveInfo(session, 1, 3);
  await chunk(skipped.id, 0, Uint8Array.of(1));
  await assert.rejects(
    chunk(skipped.id, 2, Uint8Array.of(2)),
    /^IpcArgumentError: rigwright:autosave-chunk: chunk 2 of .*-1 is out of order: chunk 1 is next$/,
  );
  await assert.rejects(chunk(skipped.id, 1, Uint8Array.of(2)), /chunk 1 of .*-1: no version is pending/);
  await assert.rejects(write(skipped), /^IpcArgumentError: rigwright:autosave-write: no chunks of .*-1 are pending$/);

  // A chunk without chunk 0 before it.
  await assert.rejects(chunk(skipped.id, 1, Uint8Array.of(2)), /no version is pending \(chunk 0 begins one\)/);

  // Oversized: one byte more than 1 MiB; the version begun before it is dropped too.
  const large = autosaveInfo(session, 2, 1024 * 1024 + 1);
  await chunk(large.id, 0, new Uint8Array(1));
  await assert.rejects(chunk(large.id, 1, new Uint8Array(1024 * 1024 + 1)), /chunk 1 of .*-2 holds 1048577 bytes, more than 1048576/);
  await assert.rejects(chunk(large.id, 0, new Uint8Array(1024 * 1024 + 1)), /holds 1048577 bytes/);
  await assert.rejects(write(autosaveInfo(session, 2, 1)), /no chunks of .*-2 are pending/);

  // Mismatched length: the chunks hold 3 bytes, the info says 4; the chunks are freed, so the right info comes too late.
  const short = autosaveInfo(session, 3, 3);
  await chunk(short.id, 0, Uint8Array.of(1, 2));
  await chunk(short.id, 1, Uint8Array.of(3));
  await assert.rejects(write({ ...short, byteLength: 4 }), /the chunks of .*-3 hold 3 bytes, info.byteLength says 4/);
  await assert.rejects(write(short), /no chunks of .*-3 are pending/);

  // No chunks at all, and chunks of another version.
  await assert.rejects(write(autosaveInfo(session, 4, 0)), /no chunks of .*-4 are pending/);
  await chunk(`${session}-5`, 0, Uint8Array.of(5));
  await assert.rejects(chunk(`${session}-6`, 1, Uint8Array.of(6)), /chunk 1 of .*-6: the version pending is .*-5/);
  await chunk(`${session}-5`, 0, Uint8Array.of(5));
  await assert.rejects(write(autosaveInfo(session, 6, 1)), /the chunks pending are of .*-5, not .*-6/);

  // A new version drops the one pending: its info finds the new one's chunks, not its own.
  await chunk(`${session}-7`, 0, Uint8Array.of(7));
  await chunk(`${session}-8`, 0, Uint8Array.of(8));
  await assert.rejects(write(autosaveInfo(session, 7, 1)), /the chunks pending are of .*-8, not .*-7/);

  // A malformed info frees the chunks as well.
  await chunk(`${session}-9`, 0, Uint8Array.of(9));
  await assert.rejects(write({ ...autosaveInfo(session, 9, 1), sequence: 10 }), /info.id must be the session and the sequence number/);
  await assert.rejects(write(autosaveInfo(session, 9, 1)), /no chunks of .*-9 are pending/);

  assert.deepEqual(autosaveFiles(), before, 'nothing was written');

  // After all that, a well-formed version is written.
  const whole = autosaveInfo(session, 11, 2);
  await chunk(whole.id, 0, Uint8Array.of(11, 12));
  await write(whole);
  assert.deepEqual(readFileSync(path.join(work, 'autosave', `${whole.id}.rig.glb`)), Buffer.from([11, 12]));
  await rm(whole);
  assert.deepEqual(autosaveFiles(), before);
});

test("a version pending when the page's process goes is dropped: its info then writes nothing", async () => {
  const call = (channel: string, argument?: unknown) =>
    Promise.resolve().then(() => recorded.ipcHandlers.get(channel)!(trustedEvent(), argument));
  const info = autosaveInfo('9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d', 1, 2);
  const before = autosaveFiles();
  await call(IPC_CHANNELS.autosaveChunk, { id: info.id, index: 0, bytes: Uint8Array.of(1) });
  recorded.windows[0].webContents.listeners.get('render-process-gone')!({}, { reason: 'crashed' });
  await assert.rejects(call(IPC_CHANNELS.autosaveChunk, { id: info.id, index: 1, bytes: Uint8Array.of(2) }), /no version is pending/);
  await assert.rejects(call(IPC_CHANNELS.autosaveWrite, info), /no chunks of .*-1 are pending/);
  assert.deepEqual(autosaveFiles(), before, 'nothing was written');
});

/** The message of the error a bridge call rejects with in the page. */
async function pageMessage(call: Promise<unknown>): Promise<string> {
  let message = '';
  await assert.rejects(call, (error: unknown) => {
    assert.ok(error instanceof Error, `the page gets an Error, not ${String(error)}`);
    message = error.message;
    return true;
  });
  return message;
}

test('a failed save or open reaches the page in our words with the base name only: no folder, no error class, no remote-method prefix', async () => {
  const bridge = recorded.exposed.get('rigwright') as RigwrightBridge;
  const folder = mkdtempSync(path.join(work, 'full-disk-'));
  const target = path.join(folder, 'scene.rig.glb');
  const blocked = path.join(folder, 'blocked.glb');
  mkdirSync(blocked);
  const seen: string[] = [];
  recorded.invokeMain = true;
  try {
    recorded.nextSave = { canceled: false, filePath: target };
    const saved = await bridge.projects!.save({ suggestedName: 'scene.rig.glb', bytes: new TextEncoder().encode('first') });
    assert.equal(saved?.name, 'scene.rig.glb');

    // Save again to the same file on a full disk: the old file stays, the page is told why without the folder.
    recorded.diskFull = true;
    const full = await pageMessage(
      bridge.projects!.save({ token: saved.token, suggestedName: 'scene.rig.glb', bytes: new Uint8Array(64) }),
    );
    recorded.diskFull = false;
    assert.equal(full, 'cannot save scene.rig.glb: the disk is full');
    assert.equal(readFileSync(target, 'utf8'), 'first', 'the old file stays whole');
    assert.deepEqual(readdirSync(folder).sort(), ['blocked.glb', 'scene.rig.glb'], 'no temporary file stays');
    seen.push(full);

    // An export saved where a folder is in the way.
    recorded.nextSave = { canceled: false, filePath: blocked };
    const folderInTheWay = await pageMessage(bridge.saveFile({ suggestedName: 'blocked.glb', bytes: new Uint8Array(8) }));
    assert.equal(folderInTheWay, 'cannot save blocked.glb: it is a folder');
    seen.push(folderInTheWay);

    // A recent project removed since: Node's ENOENT message quotes the whole path; the page gets the base name and why.
    rmSync(target);
    const gone = await pageMessage(bridge.projects!.open(saved.token));
    assert.equal(gone, 'scene.rig.glb could not be opened: it is no longer there (moved, renamed or deleted since it was last opened)');
    seen.push(gone);

    // A refused request keeps main's words, without Electron's prefix or the error's class.
    const refused = await pageMessage(bridge.saveFile({ suggestedName: '../posed.obj', bytes: new Uint8Array(1) }));
    assert.match(refused, /^rigwright:save-file: .*base name/);
    seen.push(refused);
  } finally {
    recorded.invokeMain = false;
    recorded.diskFull = false;
  }
  for (const message of seen.slice(0, 3)) {
    assert.doesNotMatch(message, /[\\/]/, `${message}: no path separator`);
    assert.ok(!message.includes(folder) && !message.includes(tmpdir()), `${message}: no folder of the disk`);
    assert.doesNotMatch(message, /Error invoking|Error:/, `${message}: no remote-method prefix or error class`);
  }
});

test("a script's files by path: the folder of the last File → Open is where they are read and written without a dialog; outside it, only once allowed", async () => {
  const bridge = recorded.exposed.get('rigwright') as RigwrightBridge;
  const scene = mkdtempSync(path.join(work, 'scene-'));
  const other = mkdtempSync(path.join(work, 'other-'));
  writeFileSync(path.join(scene, 'hand.off'), 'OFF\n');
  writeFileSync(path.join(other, 'arm.tgf'), '1 0 0 0\n');
  const openFiles = recorded.ipcHandlers.get(IPC_CHANNELS.openFiles)!;
  recorded.nextOpen = { canceled: false, filePaths: [path.join(scene, 'hand.off')] };
  await openFiles(trustedEvent());
  // A file opened for something else (a transfer's file, a script) does not move the scene's folder.
  recorded.nextOpen = { canceled: false, filePaths: [path.join(other, 'arm.tgf')] };
  await openFiles(trustedEvent(), { extensions: ['tgf'] });
  recorded.invokeMain = true;
  try {
    const read = await bridge.scriptFiles!.read({ path: 'hand.off' });
    assert.ok('files' in read && read.files.length === 1 && read.files[0].name === 'hand.off', 'read beside the scene’s files, no dialog');
    assert.equal(Buffer.from(read.files[0].bytes).toString('utf8'), 'OFF\n');
    assert.deepEqual(await bridge.scriptFiles!.write({ path: 'posed.obj', bytes: new Uint8Array([118]) }), { written: 'posed.obj' });
    assert.equal(readFileSync(path.join(scene, 'posed.obj'), 'utf8'), 'v');
    const outside = path.join(other, 'posed.obj');
    assert.deepEqual(await bridge.scriptFiles!.write({ path: outside, bytes: new Uint8Array([118]) }), { outside: true });
    assert.ok(!readdirSync(other).includes('posed.obj'), 'nothing written outside before it is allowed');
    assert.deepEqual(await bridge.scriptFiles!.write({ path: outside, outside: true, bytes: new Uint8Array([118]) }), {
      written: 'posed.obj',
    });
    await assert.rejects(bridge.scriptFiles!.read({ path: 'gone.off' }), /^Error: gone\.off could not be opened: there is no such file$/);
  } finally {
    recorded.invokeMain = false;
  }
  const foreign = { ...trustedEvent(), senderFrame: { url: 'https://example.com/' } };
  assert.throws(
    () => recorded.ipcHandlers.get(IPC_CHANNELS.scriptWriteFile)!(foreign, { path: 'x.obj' }),
    /sender is not the Rigwright page/,
  );
});
