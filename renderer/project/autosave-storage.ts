/**
 * Autosave storage of the web page: versions in the origin's IndexedDB (which survives a crash, a killed tab or a
 * closed window), and whether the page that wrote them still runs from the Web Locks API (a lock is held for as
 * long as its page lives, and the browser releases it however the page ends). The desktop app stores its versions
 * in its data folder instead, through the bridge (app/autosave-folder.ts).
 *
 * The storage logic is written over two small seams — a few-store key-value database and a set of held locks — so
 * Node tests run it on in-memory stand-ins, and the page on IndexedDB and navigator.locks.
 *
 * A version's bytes are stored in chunks of AUTOSAVE_CHUNK_BYTES (keys `<id>/000000`, `<id>/000001`…), with its info
 * and its session's mark, in one transaction: each chunk is cloned into IndexedDB in a task of its own (a clone runs
 * on the page's thread: 80 MiB in one put held it for about 90 ms in Chromium, a 1 MiB chunk a few). Reading joins
 * them and checks their total against the info's byteLength, so a chunk gone or cut short reads as a damaged version.
 * Versions stored before (all the bytes in one record keyed by the id) still read.
 *
 * What the database holds is read as untrusted (another version of the app, a browser extension or a damaged profile
 * may have written it): an info or a mark that is not what this version writes is skipped, with a notice once per
 * record, and bytes that are not a byte array are refused when read.
 */
import { autosaveIdProblem, autosaveInfoProblem, type AutosaveInfo, type AutosaveListing } from '../../app/ipc-contract.ts';
import type { AutosaveStorage } from './autosave.ts';

export type AutosaveStoreName = 'infos' | 'bytes' | 'marks';

/** A deletion: the record of `key`, or every record whose key starts with `prefix`. */
export type KeyValueDelete = { store: AutosaveStoreName; key: string } | { store: AutosaveStoreName; prefix: string };

/** A key-value database of a few named stores (string keys); each call is one transaction (all of it happens, or none). */
export interface KeyValueDatabase {
  getAll<T>(store: AutosaveStoreName): Promise<T[]>;
  get<T>(store: AutosaveStoreName, key: string): Promise<T | undefined>;
  /** the values whose keys start with `prefix`, in key order */
  getPrefixed<T>(store: AutosaveStoreName, prefix: string): Promise<T[]>;
  /**
   * Puts, one after another, and deletes, all in one transaction. A Uint8Array that views part of a buffer is stored
   * as its own bytes.
   */
  update(puts: { store: AutosaveStoreName; key: string; value: unknown }[], deletes: KeyValueDelete[]): Promise<void>;
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

/** The most bytes of a version one record holds (and one clone into IndexedDB copies at once). */
export const AUTOSAVE_CHUNK_BYTES = 1024 * 1024;
/** Where a version's chunks are keyed: `<id>/` then the chunk's number (ids are letters, digits and dashes). */
const chunkPrefix = (id: string) => `${id}/`;
const chunkKey = (id: string, index: number) => `${chunkPrefix(id)}${String(index).padStart(6, '0')}`;

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
    const chunks: { store: AutosaveStoreName; key: string; value: unknown }[] = [];
    for (let at = 0, index = 0; at < bytes.byteLength || index === 0; at += AUTOSAVE_CHUNK_BYTES, index++) {
      chunks.push({ store: 'bytes', key: chunkKey(info.id, index), value: bytes.subarray(at, at + AUTOSAVE_CHUNK_BYTES) });
    }
    return this.db.update(
      [...chunks, { store: 'infos', key: info.id, value: info }, { store: 'marks', key: info.session, value: mark }],
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

  /**
   * @returns the version's bytes (its chunks joined, or the one record of a version stored before chunks), or null
   *          when none are stored
   * @throws when a chunk is not a byte array, or the chunks do not add up to the info's byteLength (the version is
   *         damaged: a chunk gone or cut short)
   */
  async read(id: string): Promise<Uint8Array | null> {
    const whole = await this.db.get<unknown>('bytes', id);
    if (whole !== undefined) {
      if (!(whole instanceof Uint8Array)) throw new Error(`${PLACE}, bytes of ${id}: not a byte array but ${kindOf(whole)}`);
      return whole;
    }
    const chunks = await this.db.getPrefixed<unknown>('bytes', chunkPrefix(id));
    if (chunks.length === 0) return null;
    let length = 0;
    for (const [index, chunk] of chunks.entries()) {
      if (!(chunk instanceof Uint8Array))
        throw new Error(`${PLACE}, bytes of ${id}, chunk ${index + 1}: not a byte array but ${kindOf(chunk)}`);
      length += chunk.byteLength;
    }
    const info = await this.db.get<unknown>('infos', id);
    const problem = autosaveInfoProblem(info);
    if (problem !== null) throw new Error(`${PLACE}, bytes of ${id}: their info cannot be read (${problem})`);
    const expected = (info as AutosaveInfo).byteLength;
    if (length !== expected) {
      throw new Error(
        `${PLACE}, bytes of ${id}: ${length} bytes in ${chunks.length} chunks where ${expected} were written (a chunk is missing or cut short)`,
      );
    }
    const bytes = new Uint8Array(length);
    let at = 0;
    for (const chunk of chunks as Uint8Array[]) {
      bytes.set(chunk, at);
      at += chunk.byteLength;
    }
    return bytes;
  }

  remove(ids: string[]): Promise<void> {
    return this.db.update(
      [],
      ids.flatMap((key) => [
        { store: 'infos' as const, key },
        { store: 'bytes' as const, key },
        { store: 'bytes' as const, prefix: chunkPrefix(key) },
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

/** The keys that start with `prefix` (every key of this database is a string of at most a few hundred characters). */
function prefixRange(prefix: string): IDBKeyRange {
  return IDBKeyRange.bound(prefix, `${prefix}\uffff`);
}

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

  async getPrefixed<T>(store: AutosaveStoreName, prefix: string): Promise<T[]> {
    const db = await this.open();
    return settled(db.transaction(store, 'readonly').objectStore(store).getAll(prefixRange(prefix))) as Promise<T[]>;
  }

  /**
   * Each put is made from the previous one's success (the transaction stays active meanwhile), so the page's thread
   * clones one value per task instead of all at once.
   */
  async update(puts: { store: AutosaveStoreName; key: string; value: unknown }[], deletes: KeyValueDelete[]): Promise<void> {
    if (puts.length === 0 && deletes.length === 0) return;
    const db = await this.open();
    const stores = [...new Set([...puts, ...deletes].map((entry) => entry.store))];
    const transaction = db.transaction(stores, 'readwrite', { durability: 'strict' });
    for (const entry of deletes) transaction.objectStore(entry.store).delete('key' in entry ? entry.key : prefixRange(entry.prefix));
    const put = (index: number) => {
      if (index === puts.length) return;
      const { store, key, value } = puts[index];
      // A view is cloned with its whole buffer: its own bytes are copied out first.
      const own = value instanceof Uint8Array && value.byteLength !== value.buffer.byteLength ? value.slice() : value;
      transaction.objectStore(store).put(own, key).onsuccess = () => put(index + 1);
    };
    put(0);
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
