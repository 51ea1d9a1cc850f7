/**
 * Autosave storage of the web page: versions in the origin's IndexedDB (which survives a crash, a killed tab or a
 * closed window), and whether the page that wrote them still runs from the Web Locks API (a lock is held for as
 * long as its page lives, and the browser releases it however the page ends). The desktop app stores its versions
 * in its data folder instead, through the bridge (app/autosave-folder.ts).
 *
 * The storage logic is written over two small seams — a few-store key-value database and a set of held locks — so
 * Node tests run it on in-memory stand-ins, and the page on IndexedDB and navigator.locks.
 */
import type { AutosaveInfo, AutosaveListing } from '../../app/ipc-contract.ts';
import type { AutosaveStorage } from './autosave.ts';

export type AutosaveStoreName = 'infos' | 'bytes' | 'marks';

/** A key-value database of a few named stores; each call is one transaction (all of it happens, or none). */
export interface KeyValueDatabase {
  getAll<T>(store: AutosaveStoreName): Promise<T[]>;
  get<T>(store: AutosaveStoreName, key: string): Promise<T | undefined>;
  /** puts and deletes, all in one transaction */
  update(
    puts: { store: AutosaveStoreName; key: string; value: unknown }[],
    deletes: { store: AutosaveStoreName; key: string }[],
  ): Promise<void>;
}

/** Named locks held for a page's lifetime. */
export interface SessionLocks {
  /** holds the lock until the page goes */
  hold(name: string): Promise<void>;
  /** names of the locks held now, by any page of this origin */
  held(): Promise<Set<string>>;
}

interface SessionMark {
  session: string;
  markedAt: number;
}

const lockName = (session: string) => `rigwright-autosave-session:${session}`;

export class WebAutosaveStorage implements AutosaveStorage {
  constructor(
    private readonly db: KeyValueDatabase,
    private readonly locks: SessionLocks,
    private readonly now: () => number = () => Date.now(),
  ) {}

  begin(session: string): Promise<void> {
    return this.locks.hold(lockName(session));
  }

  write(info: AutosaveInfo, bytes: Uint8Array): Promise<void> {
    const mark: SessionMark = { session: info.session, markedAt: this.now() };
    return this.db.update(
      [
        { store: 'bytes', key: info.id, value: bytes },
        { store: 'infos', key: info.id, value: info },
        { store: 'marks', key: info.session, value: mark },
      ],
      [],
    );
  }

  async list(): Promise<AutosaveListing> {
    const [versions, marks, held] = await Promise.all([
      this.db.getAll<AutosaveInfo>('infos'),
      this.db.getAll<SessionMark>('marks'),
      this.locks.held(),
    ]);
    return { versions, marked: marks.map((m) => ({ session: m.session, alive: held.has(lockName(m.session)) })) };
  }

  async read(id: string): Promise<Uint8Array | null> {
    return (await this.db.get<Uint8Array>('bytes', id)) ?? null;
  }

  remove(ids: string[]): Promise<void> {
    return this.db.update(
      [],
      ids.flatMap((key) => [
        { store: 'infos' as const, key },
        { store: 'bytes' as const, key },
      ]),
    );
  }

  unmark(session: string): Promise<void> {
    return this.db.update([], [{ store: 'marks', key: session }]);
  }
}

const DATABASE_NAME = 'rigwright-autosave';
const STORES: readonly AutosaveStoreName[] = ['infos', 'bytes', 'marks'];

function settled<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('IndexedDB request failed'));
  });
}

/** The origin's IndexedDB database `rigwright-autosave`, opened on first use. */
export class IndexedDbDatabase implements KeyValueDatabase {
  private opened: Promise<IDBDatabase> | null = null;

  private open(): Promise<IDBDatabase> {
    this.opened ??= new Promise((resolve, reject) => {
      const request = indexedDB.open(DATABASE_NAME, 1);
      request.onupgradeneeded = () => {
        for (const store of STORES) if (!request.result.objectStoreNames.contains(store)) request.result.createObjectStore(store);
      };
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error ?? new Error('cannot open IndexedDB'));
      request.onblocked = () => reject(new Error('IndexedDB is blocked by another tab holding an older version'));
    });
    return this.opened;
  }

  async getAll<T>(store: AutosaveStoreName): Promise<T[]> {
    const db = await this.open();
    return settled(db.transaction(store, 'readonly').objectStore(store).getAll()) as Promise<T[]>;
  }

  async get<T>(store: AutosaveStoreName, key: string): Promise<T | undefined> {
    const db = await this.open();
    return settled(db.transaction(store, 'readonly').objectStore(store).get(key)) as Promise<T | undefined>;
  }

  async update(
    puts: { store: AutosaveStoreName; key: string; value: unknown }[],
    deletes: { store: AutosaveStoreName; key: string }[],
  ): Promise<void> {
    if (puts.length === 0 && deletes.length === 0) return;
    const db = await this.open();
    const stores = [...new Set([...puts, ...deletes].map((entry) => entry.store))];
    const transaction = db.transaction(stores, 'readwrite', { durability: 'strict' });
    for (const { store, key, value } of puts) transaction.objectStore(store).put(value, key);
    for (const { store, key } of deletes) transaction.objectStore(store).delete(key);
    await new Promise<void>((resolve, reject) => {
      transaction.oncomplete = () => resolve();
      transaction.onerror = () => reject(transaction.error ?? new Error('IndexedDB transaction failed'));
      transaction.onabort = () => reject(transaction.error ?? new Error('IndexedDB transaction aborted (storage full?)'));
    });
  }
}

/** Web Locks: a lock requested with a callback that never settles is held until the page goes. */
export class WebSessionLocks implements SessionLocks {
  constructor(private readonly locks: LockManager) {}

  hold(name: string): Promise<void> {
    return new Promise((resolve) => {
      void this.locks.request(name, () => {
        resolve();
        return new Promise<never>(() => undefined);
      });
    });
  }

  async held(): Promise<Set<string>> {
    const snapshot = await this.locks.query();
    return new Set((snapshot.held ?? []).map((lock) => lock.name ?? ''));
  }
}
