/**
 * Project files in the web page. Where the browser has the File System Access API (showOpenFilePicker,
 * showSaveFilePicker) a project is opened and saved through a file handle, kept so that Save writes the same
 * file again without asking (the browser writes to a temporary file and swaps it in when the stream closes) and
 * stored in IndexedDB so that Recent files reopen it after a reload. Elsewhere a project is opened with the file
 * input and saved as a download; Save then asks again each time. The recent list (names and tokens) lives in
 * localStorage.
 */
import {
  MAX_RECENT_PROJECTS,
  type OpenedFile,
  type OpenFilesRequest,
  type ProjectBridge,
  type ProjectFileRef,
  type SaveFileRequest,
  type SaveProjectRequest,
} from '../../app/ipc-contract.ts';

/** The File System Access API as used here (not yet in TypeScript's DOM library). */
interface FileHandle {
  readonly kind: 'file';
  readonly name: string;
  getFile(): Promise<File>;
  createWritable(): Promise<{ write(data: Uint8Array<ArrayBuffer>): Promise<void>; close(): Promise<void> }>;
  queryPermission?(options: { mode: 'read' | 'readwrite' }): Promise<PermissionState>;
  requestPermission?(options: { mode: 'read' | 'readwrite' }): Promise<PermissionState>;
}
interface PickerOptions {
  types?: { description: string; accept: Record<string, string[]> }[];
  suggestedName?: string;
  excludeAcceptAllOption?: boolean;
}
interface FileSystemAccess {
  showOpenFilePicker?(options?: PickerOptions): Promise<FileHandle[]>;
  showSaveFilePicker?(options?: PickerOptions): Promise<FileHandle>;
}

const PICKER_TYPES = [{ description: 'Rigwright project', accept: { 'model/gltf-binary': ['.glb'] } }];
const RECENT_KEY = 'rigwright.recentProjects';
const DATABASE = 'rigwright-project-handles';
const STORE = 'handles';

/** What the web bridge lends for the fallback: its file input and its download. */
export interface WebFileFallback {
  openFiles(request?: OpenFilesRequest): Promise<OpenedFile[]>;
  saveFile(request: SaveFileRequest): Promise<boolean>;
}

function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}

function newToken(): string {
  return crypto.randomUUID();
}

export class WebProjectFiles implements ProjectBridge {
  private readonly handles = new Map<string, FileHandle>();
  private readonly access: FileSystemAccess;

  constructor(
    private readonly fallback: WebFileFallback,
    access: FileSystemAccess = window as unknown as FileSystemAccess,
  ) {
    this.access = access;
  }

  /** the browser lets the page write a chosen file again (Save without a dialog) */
  get hasFileAccess(): boolean {
    return typeof this.access.showSaveFilePicker === 'function' && typeof this.access.showOpenFilePicker === 'function';
  }

  async open(token?: string): Promise<(OpenedFile & { token: string }) | null> {
    if (token) {
      const handle = await this.handleOf(token);
      if (handle && (await this.permitted(handle, 'read'))) return this.read(handle, token);
    }
    if (this.hasFileAccess) {
      let handles: FileHandle[];
      try {
        handles = await this.access.showOpenFilePicker!({ types: PICKER_TYPES });
      } catch (error) {
        if (isAbort(error)) return null;
        throw error;
      }
      const handle = handles[0];
      if (!handle) return null;
      const known = await this.tokenOf(handle);
      const opened = await this.read(handle, known ?? newToken());
      await this.remember(opened, handle);
      return opened;
    }
    const [file] = await this.fallback.openFiles({ title: 'Open project', extensions: ['glb'] });
    if (!file) return null;
    const opened = { ...file, token: '' };
    await this.remember(opened, null);
    return opened;
  }

  async save(request: SaveProjectRequest): Promise<ProjectFileRef | null> {
    const bytes = request.bytes as Uint8Array<ArrayBuffer>;
    if (request.token) {
      const handle = await this.handleOf(request.token);
      if (handle && (await this.permitted(handle, 'readwrite'))) {
        await this.write(handle, bytes);
        const ref = { name: handle.name, token: request.token };
        await this.remember(ref, handle);
        return ref;
      }
    }
    if (this.hasFileAccess) {
      let handle: FileHandle;
      try {
        handle = await this.access.showSaveFilePicker!({ suggestedName: request.suggestedName, types: PICKER_TYPES });
      } catch (error) {
        if (isAbort(error)) return null;
        throw error;
      }
      await this.write(handle, bytes);
      const ref = { name: handle.name, token: (await this.tokenOf(handle)) ?? newToken() };
      await this.remember(ref, handle);
      return ref;
    }
    if (!(await this.fallback.saveFile({ suggestedName: request.suggestedName, bytes }))) return null;
    const ref = { name: request.suggestedName, token: '' };
    await this.remember(ref, null);
    return ref;
  }

  recent(): Promise<ProjectFileRef[]> {
    return Promise.resolve(readRecent());
  }

  /** Takes a file out of the recent list and lets go of its handle (the file itself is not touched). */
  async forget(token: string): Promise<void> {
    writeRecent(readRecent().filter((r) => r.token !== token));
    this.handles.delete(token);
    await deleteHandle(token);
  }

  /**
   * The file behind a handle, whole.
   * @throws Error naming the file and why it cannot be read (gone, or not allowed), instead of the browser's
   *   DOMException, which names neither
   */
  private async read(handle: FileHandle, token: string): Promise<OpenedFile & { token: string }> {
    let file: File;
    try {
      file = await handle.getFile();
    } catch (error) {
      throw new Error(`${handle.name} could not be opened: ${unreadableReason(error)}`, { cause: error });
    }
    return { name: file.name, bytes: new Uint8Array(await file.arrayBuffer()), token };
  }

  private async write(handle: FileHandle, bytes: Uint8Array<ArrayBuffer>): Promise<void> {
    const stream = await handle.createWritable();
    await stream.write(bytes);
    await stream.close();
  }

  private async permitted(handle: FileHandle, mode: 'read' | 'readwrite'): Promise<boolean> {
    if (!handle.queryPermission) return true;
    if ((await handle.queryPermission({ mode })) === 'granted') return true;
    return (await handle.requestPermission?.({ mode })) === 'granted';
  }

  /** The recent list gets the file first; its handle (when there is one) is kept under its token. */
  private async remember(ref: ProjectFileRef, handle: FileHandle | null): Promise<void> {
    const list = readRecent().filter((r) => (ref.token ? r.token !== ref.token : r.name !== ref.name || r.token !== ''));
    list.unshift({ name: ref.name, token: ref.token });
    writeRecent(list.slice(0, MAX_RECENT_PROJECTS));
    if (handle && ref.token) {
      this.handles.set(ref.token, handle);
      await storeHandle(ref.token, handle);
    }
  }

  private async handleOf(token: string): Promise<FileHandle | null> {
    return this.handles.get(token) ?? (await loadHandle(token));
  }

  /** The token of a handle already known (the same file chosen again keeps its recent entry). */
  private async tokenOf(handle: FileHandle): Promise<string | null> {
    for (const ref of readRecent()) {
      const known = ref.token ? await this.handleOf(ref.token) : null;
      if (
        known &&
        'isSameEntry' in known &&
        (await (known as unknown as { isSameEntry(o: unknown): Promise<boolean> }).isSameEntry(handle))
      )
        return ref.token;
    }
    return null;
  }
}

/** Why the browser could not read a file, in words (the DOMException's own message names no file). */
function unreadableReason(error: unknown): string {
  const name = error instanceof DOMException ? error.name : '';
  if (name === 'NotFoundError') return 'it is no longer there (moved, renamed or deleted since it was last opened)';
  if (name === 'NotAllowedError' || name === 'SecurityError') return 'the browser did not allow reading it';
  if (name === 'NotReadableError') return 'it could not be read (in use by another program, or a disk error)';
  return error instanceof Error ? error.message : String(error);
}

function writeRecent(list: readonly ProjectFileRef[]): void {
  try {
    localStorage.setItem(RECENT_KEY, JSON.stringify(list));
  } catch {
    // storage full or disabled: the list is not remembered, the file is still saved
  }
}

function readRecent(): ProjectFileRef[] {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(RECENT_KEY) ?? '[]');
    if (!Array.isArray(parsed)) return [];
    return parsed
      .filter((r: unknown): r is ProjectFileRef => {
        const ref = r as Partial<ProjectFileRef> | null;
        return typeof ref === 'object' && ref !== null && typeof ref.name === 'string' && typeof ref.token === 'string';
      })
      .slice(0, MAX_RECENT_PROJECTS);
  } catch {
    return [];
  }
}

function database(): Promise<IDBDatabase | null> {
  if (typeof indexedDB === 'undefined') return Promise.resolve(null);
  return new Promise((resolve) => {
    const request = indexedDB.open(DATABASE, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => resolve(null);
  });
}

async function storeHandle(token: string, handle: FileHandle): Promise<void> {
  const db = await database();
  if (!db) return;
  await new Promise<void>((resolve) => {
    try {
      const transaction = db.transaction(STORE, 'readwrite');
      transaction.objectStore(STORE).put(handle, token);
      transaction.oncomplete = transaction.onerror = transaction.onabort = () => resolve();
    } catch {
      resolve();
    }
  });
  db.close();
}

async function deleteHandle(token: string): Promise<void> {
  const db = await database();
  if (!db) return;
  await new Promise<void>((resolve) => {
    try {
      const transaction = db.transaction(STORE, 'readwrite');
      transaction.objectStore(STORE).delete(token);
      transaction.oncomplete = transaction.onerror = transaction.onabort = () => resolve();
    } catch {
      resolve();
    }
  });
  db.close();
}

async function loadHandle(token: string): Promise<FileHandle | null> {
  const db = await database();
  if (!db) return null;
  const handle = await new Promise<FileHandle | null>((resolve) => {
    try {
      const request = db.transaction(STORE, 'readonly').objectStore(STORE).get(token);
      request.onsuccess = () => resolve((request.result as FileHandle | undefined) ?? null);
      request.onerror = () => resolve(null);
    } catch {
      resolve(null);
    }
  });
  db.close();
  return handle;
}
