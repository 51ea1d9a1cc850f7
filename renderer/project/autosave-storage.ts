/**
 * Autosave storage of the web page: versions in the origin's IndexedDB (which survives a crash, a killed tab or a
 * closed window), and whether the page that wrote them still runs from the Web Locks API (a lock is held for as
 * long as its page lives, and the browser releases it however the page ends). The desktop app stores its versions
 * in its data folder instead, through the bridge (app/autosave-folder.ts).
 *
 * The storage logic is written over two small seams — a few-store key-value database and a set of held locks — so
 * Node tests run it on in-memory stand-ins, and the page on IndexedDB and navigator.locks.
 *
 * What the database holds is read as untrusted (another version of the app, a browser extension or a damaged profile
 * may have written it): an info or a mark that is not what this version writes is skipped, with a notice once per
 * record, and bytes that are not a byte array are refused when read.
 */
import { autosaveIdProblem, autosaveInfoProblem, type AutosaveInfo, type AutosaveListing } from '../../app/ipc-contract.ts';
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

/** Where the records are, as notices name it. */
const PLACE = 'IndexedDB rigwright-autosave';

/** A value read from the database, in a few words for a notice (never its contents). */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (ArrayBuffer.isView(value)) return value.constructor.name;
  return typeof value === 'object' ? (value.constructor?.name ?? 'an object') : typeof value;
}

/** Why a stored mark is not a SessionMark, or null. */
function markProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return `mark must be an object, not ${kindOf(value)}`;
  const mark = value as Record<string, unknown>;
  return autosaveIdProblem(mark.session, 'mark.session');
}

export class WebAutosaveStorage implements AutosaveStorage {
  /** records already said to be skipped (each is said once) */
  private readonly reported = new Set<string>();

  /**
   * @param skipped  told once per record that is skipped, with a one-line message naming the store and the reason
   */
  constructor(
    private readonly db: KeyValueDatabase,
    private readonly locks: SessionLocks,
    private readonly now: () => number = () => Date.now(),
    private readonly skipped: (message: string) => void = () => undefined,
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
    const [infos, marks, held] = await Promise.all([this.db.getAll<unknown>('infos'), this.db.getAll<unknown>('marks'), this.locks.held()]);
    const versions = infos.filter((info, index): info is AutosaveInfo => this.valid('infos', index, info, autosaveInfoProblem(info)));
    const marked = marks
      .filter((mark, index): mark is SessionMark => this.valid('marks', index, mark, markProblem(mark)))
      .map((m) => ({ session: m.session, alive: held.has(lockName(m.session)) }));
    return { versions, marked };
  }

  /** @throws when the stored bytes are not a byte array (the version is damaged) */
  async read(id: string): Promise<Uint8Array | null> {
    const bytes = await this.db.get<unknown>('bytes', id);
    if (bytes === undefined) return null;
    if (!(bytes instanceof Uint8Array)) throw new Error(`${PLACE}, bytes of ${id}: not a byte array but ${kindOf(bytes)}`);
    return bytes;
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

  /** False for a record with a problem, said once per record (its id when it has one, else its place in the store). */
  private valid(store: AutosaveStoreName, index: number, record: unknown, problem: string | null): boolean {
    if (problem === null) return true;
    const id = (record as { id?: unknown; session?: unknown } | null)?.[store === 'infos' ? 'id' : 'session'];
    const which = typeof id === 'string' && autosaveIdProblem(id) === null ? id : `record ${index + 1}`;
    const key = `${store} ${which} ${problem}`;
    if (!this.reported.has(key)) {
      this.reported.add(key);
      this.skipped(`${PLACE}, ${store} ${which}: skipped, ${problem}`);
    }
    return false;
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
      let request: IDBOpenDBRequest;
      try {
        request = indexedDB.open(DATABASE_NAME, 1);
      } catch (error) {
        // No IndexedDB here (a private window of some browsers, storage turned off): refused before any request.
        reject(new Error(`${PLACE} cannot be opened: ${error instanceof Error ? error.message : String(error)}`));
        return;
      }
      request.onupgradeneeded = () => {
        for (const store of STORES) if (!request.result.objectStoreNames.contains(store)) request.result.createObjectStore(store);
      };
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(new Error(`${PLACE} cannot be opened: ${request.error?.message ?? 'the browser refused it'}`));
      request.onblocked = () => reject(new Error(`${PLACE} cannot be opened: another tab holds an older version of it`));
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
