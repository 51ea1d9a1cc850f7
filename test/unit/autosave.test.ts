/**
 * Autosave (renderer/project/autosave.ts and its storages): the idle scheduler on a fake clock (a change runs the
 * task only after the user has been idle for the whole delay, input postpones it, runs never overlap, a gesture in
 * progress waits), the version bound (the session's newest N kept, unmarked sessions' versions dropped, other marked
 * sessions' kept), the autosave coordinator (nothing written without unsaved changes or without a change since the
 * last version; the info says what and when), the web storage on in-memory stand-ins for IndexedDB and Web Locks,
 * and the desktop folder storage in a temporary folder (atomic files, liveness by process, bad files skipped).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  AUTOSAVE_DEFAULTS,
  Autosave,
  IdleScheduler,
  SNAPSHOT_RESTARTS,
  SNAPSHOT_SLICE_BYTES,
  autosaveSettings,
  versionsToDrop,
  type AutosaveHost,
  type AutosaveStorage,
  type Clock,
} from '../../renderer/project/autosave.ts';
import {
  AUTOSAVE_CHUNK_BYTES,
  WebAutosaveStorage,
  type AutosaveStoreName,
  type KeyValueDatabase,
  type KeyValueDelete,
  type SessionLocks,
} from '../../renderer/project/autosave-storage.ts';
import { findRecoverable, firstReadable } from '../../renderer/project/recovery.ts';
import { AutosaveFolder } from '../../app/autosave-folder.ts';
import type { AutosaveInfo, AutosaveListing } from '../../app/ipc-contract.ts';
import {
  IpcArgumentError,
  validateAutosaveId,
  validateAutosaveInfo,
  validateAutosaveRemove,
  validateBoolean,
} from '../../app/ipc-validate.ts';
import { SlicedCopy } from '../../renderer/project/sliced-copy.ts';

/** A clock whose time moves only when the test says; timers fire in time order. */
class FakeClock implements Clock {
  time = 1_000_000;
  private timers: { at: number; run: () => void; id: number }[] = [];
  private nextId = 1;

  now(): number {
    return this.time;
  }

  setTimeout(run: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.timers.push({ at: this.time + ms, run, id });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((t) => t.id !== handle);
  }

  /** Tasks that wait for the next task of the thread: `runTask` runs the first (none run by themselves). */
  readonly tasks: (() => void)[] = [];

  nextTask(): Promise<void> {
    return new Promise((resolve) => this.tasks.push(resolve));
  }

  /** Runs the first waiting task and lets its promises settle. @returns whether one waited */
  async runTask(): Promise<boolean> {
    const task = this.tasks.shift();
    if (!task) return false;
    task();
    await new Promise((resolve) => setImmediate(resolve));
    return true;
  }

  get pendingTimers(): number {
    return this.timers.length;
  }

  /** Moves time forward by `ms`, firing due timers in order (and letting their promises settle). */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at);
      const next = this.timers[0];
      if (!next || next.at > end) break;
      this.timers.shift();
      this.time = next.at;
      next.run();
      for (let i = 0; i < 10; i++) await Promise.resolve();
    }
    this.time = end;
  }
}

test('settings: defaults 30 s idle, 60 s at most and 5 versions; out-of-range and non-numbers come back into range', () => {
  assert.deepEqual(autosaveSettings(), { delaySeconds: 30, maxWaitSeconds: 60, versions: 5 });
  assert.deepEqual(AUTOSAVE_DEFAULTS, { delaySeconds: 30, maxWaitSeconds: 60, versions: 5 });
  assert.deepEqual(autosaveSettings({ delaySeconds: -4, maxWaitSeconds: 0, versions: 500 }), {
    delaySeconds: 0,
    maxWaitSeconds: 1,
    versions: 50,
  });
  assert.deepEqual(autosaveSettings({ delaySeconds: NaN, maxWaitSeconds: 7200, versions: 2.6 }), {
    delaySeconds: 30,
    maxWaitSeconds: 3600,
    versions: 3,
  });
  assert.deepEqual(autosaveSettings({ delaySeconds: '7' as unknown as number, maxWaitSeconds: Infinity }), {
    delaySeconds: 30,
    maxWaitSeconds: 60,
    versions: 5,
  });
});

test('idle scheduler: a change runs the task once the user has been idle for the whole delay', async () => {
  const clock = new FakeClock();
  let runs = 0;
  const scheduler = new IdleScheduler(30_000, () => void runs++, clock);
  scheduler.changed();
  await clock.advance(29_999);
  assert.equal(runs, 0, 'not before the delay');
  await clock.advance(1);
  assert.equal(runs, 1, 'at the delay');
  await clock.advance(120_000);
  assert.equal(runs, 1, 'once per change');
  assert.equal(clock.pendingTimers, 0, 'no timer left when nothing waits');

  // Input 20 s after a change restarts the wait: the run comes 30 s after the input, not after the change.
  scheduler.changed();
  await clock.advance(20_000);
  scheduler.activity();
  await clock.advance(29_999);
  assert.equal(runs, 1);
  await clock.advance(1);
  assert.equal(runs, 2);

  // Several changes in a row are one run, 30 s after the last.
  for (let i = 0; i < 5; i++) {
    scheduler.changed();
    await clock.advance(10_000);
  }
  assert.equal(runs, 2);
  await clock.advance(20_000);
  assert.equal(runs, 3);
});

test('idle scheduler: a gesture in progress postpones the run; runs never overlap; delay 0 is off', async () => {
  const clock = new FakeClock();
  let busy = true;
  let active = 0;
  let most = 0;
  let runs = 0;
  let finish: (() => void) | null = null;
  const scheduler = new IdleScheduler(
    1000,
    () =>
      new Promise<void>((resolve) => {
        runs++;
        active++;
        most = Math.max(most, active);
        finish = () => {
          active--;
          resolve();
        };
      }),
    clock,
    () => !busy,
  );
  scheduler.changed();
  await clock.advance(5000);
  assert.equal(runs, 0, 'busy: waits');
  busy = false;
  await clock.advance(1000);
  assert.equal(runs, 1);
  // A change while the run is going on: no second run until the first ends, then after a full idle delay.
  scheduler.changed();
  await clock.advance(5000);
  assert.equal(runs, 1);
  finish!();
  await clock.advance(0);
  for (let i = 0; i < 5; i++) await Promise.resolve();
  await clock.advance(1000);
  assert.equal(runs, 2);
  finish!();
  assert.equal(most, 1);

  scheduler.setDelay(0);
  scheduler.changed();
  await clock.advance(100_000);
  assert.equal(runs, 2, 'off');
  assert.equal(scheduler.isPending, true, 'the change still waits');
  scheduler.setDelay(500);
  await clock.advance(500);
  assert.equal(runs, 3, 'turned on again: the waiting change runs');
  finish!();
});

const info = (session: string, sequence: number, savedAt: number): AutosaveInfo => ({
  id: `${session}-${sequence}`,
  session,
  sequence,
  savedAt,
  name: 'untitled',
  vertexCount: 3,
  boneCount: 1,
  editCount: sequence,
  byteLength: 4,
});

test('version bound: the newest N of this session stay; unmarked sessions go; other marked sessions stay', () => {
  const listing: AutosaveListing = {
    versions: [
      ...[1, 2, 3, 4, 5, 6, 7].map((s) => info('me', s, 1000 + s)),
      info('crashed', 1, 10),
      info('crashed', 2, 20),
      info('saved', 1, 5),
      info('saved', 2, 6),
      info('other-tab', 9, 50),
    ],
    marked: [
      { session: 'me', alive: true },
      { session: 'crashed', alive: false },
      { session: 'other-tab', alive: true },
    ],
  };
  assert.deepEqual(versionsToDrop(listing, 'me', 5), ['me-1', 'me-2', 'saved-1', 'saved-2']);
  assert.deepEqual(versionsToDrop(listing, 'me', 1), ['me-1', 'me-2', 'me-3', 'me-4', 'me-5', 'me-6', 'crashed-1', 'saved-1', 'saved-2']);
  // This session unmarked (saved) keeps its newest N all the same: its next write marks it again.
  assert.deepEqual(versionsToDrop({ ...listing, marked: [] }, 'me', 7), ['crashed-1', 'crashed-2', 'saved-1', 'saved-2', 'other-tab-9']);
  // Same time: the sequence decides.
  assert.deepEqual(versionsToDrop({ versions: [info('me', 2, 1), info('me', 1, 1)], marked: [] }, 'me', 1), ['me-1']);
});

/** An in-memory stand-in for IndexedDB: stores of key → value, each update applied whole. */
class MemoryDatabase implements KeyValueDatabase {
  readonly stores = new Map<AutosaveStoreName, Map<string, unknown>>([
    ['infos', new Map()],
    ['bytes', new Map()],
    ['marks', new Map()],
  ]);
  failNext = false;

  async getAll<T>(store: AutosaveStoreName): Promise<T[]> {
    return [...this.stores.get(store)!.values()] as T[];
  }

  async get<T>(store: AutosaveStoreName, key: string): Promise<T | undefined> {
    return this.stores.get(store)!.get(key) as T | undefined;
  }

  async getPrefixed<T>(store: AutosaveStoreName, prefix: string): Promise<T[]> {
    const keys = [...this.stores.get(store)!.keys()].filter((key) => key.startsWith(prefix)).sort();
    return keys.map((key) => this.stores.get(store)!.get(key)) as T[];
  }

  /** the byte length of each value put, in order, as IndexedDB would clone it (a view with its whole buffer) */
  readonly clonedBytes: number[] = [];

  async update(puts: { store: AutosaveStoreName; key: string; value: unknown }[], deletes: KeyValueDelete[]) {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('QuotaExceededError');
    }
    for (const entry of deletes) {
      const records = this.stores.get(entry.store)!;
      if ('key' in entry) records.delete(entry.key);
      else for (const key of [...records.keys()]) if (key.startsWith(entry.prefix)) records.delete(key);
    }
    for (const { store, key, value } of puts) {
      // As IndexedDbDatabase stores a view: its own bytes.
      const own = value instanceof Uint8Array ? value.slice() : value;
      this.clonedBytes.push(own instanceof Uint8Array ? own.byteLength : 0);
      this.stores.get(store)!.set(key, structuredClone(own));
    }
  }
}

class MemoryLocks implements SessionLocks {
  readonly names = new Set<string>();
  async hold(name: string) {
    this.names.add(name);
  }
  async held() {
    return new Set(this.names);
  }
}

function fakeHost(state: { unsaved: boolean; busy?: boolean; edits: number }, failures: string[]): AutosaveHost {
  let serial = 0;
  return {
    contents: () => ({}),
    encode: async () => Uint8Array.of(1, 2, 3, ++serial),
    summary: () => ({ name: 'hand.rig.glb', vertexCount: 3, boneCount: 2, editCount: state.edits }),
    unsaved: () => state.unsaved,
    idle: () => !state.busy,
    failed: (message) => failures.push(message),
  };
}

test('autosave: writes after idle only with unsaved changes and a change since the last version; keeps N', async () => {
  const clock = new FakeClock();
  const db = new MemoryDatabase();
  const storage = new WebAutosaveStorage(db, new MemoryLocks(), () => clock.now());
  const state = { unsaved: false, edits: 0 };
  const failures: string[] = [];
  const autosave = new Autosave('s1', storage, fakeHost(state, failures), { delaySeconds: 30, versions: 3 }, clock);
  await storage.begin('s1');

  autosave.changed();
  await clock.advance(60_000);
  assert.equal(autosave.written, 0, 'nothing unsaved: nothing written (a scene just opened)');

  state.unsaved = true;
  state.edits = 1;
  autosave.changed();
  await clock.advance(30_000);
  assert.equal(autosave.written, 1);
  const first = autosave.latest!;
  assert.deepEqual(first, {
    id: 's1-1',
    session: 's1',
    sequence: 1,
    savedAt: 1_000_000 + 90_000,
    name: 'hand.rig.glb',
    vertexCount: 3,
    boneCount: 2,
    editCount: 1,
    byteLength: 4,
  });
  assert.deepEqual(await storage.read('s1-1'), Uint8Array.of(1, 2, 3, 1));
  assert.deepEqual((await storage.list()).marked, [{ session: 's1', alive: true }]);

  await autosave.flush();
  await clock.advance(120_000);
  assert.equal(autosave.written, 1, 'no change since: no new version');

  for (let i = 2; i <= 6; i++) {
    state.edits = i;
    autosave.changed();
    await clock.advance(30_000);
  }
  assert.equal(autosave.written, 6);
  const listed = await storage.list();
  assert.deepEqual(listed.versions.map((v) => v.id).sort(), ['s1-4', 's1-5', 's1-6'], 'the 3 newest');
  assert.equal(db.stores.get('bytes')!.size, 3, 'bytes dropped with their info');

  // Saved: the mark goes, the versions stay until later writes replace them.
  state.unsaved = false;
  await autosave.settled();
  assert.deepEqual((await storage.list()).marked, []);
  assert.equal((await storage.list()).versions.length, 3);

  // A failing write is said once, and the next change tries again.
  state.unsaved = true;
  db.failNext = true;
  autosave.changed();
  await clock.advance(30_000);
  assert.equal(failures.length, 1);
  assert.match(failures[0], /^Autosave failed: QuotaExceededError/);
  autosave.changed();
  await clock.advance(30_000);
  assert.equal(autosave.written, 7);

  // A longer delay set by the user applies to the next change (the maximum wait set longer too: it would come first).
  autosave.setOptions({ delaySeconds: 120, maxWaitSeconds: 300 });
  autosave.changed();
  await clock.advance(119_000);
  assert.equal(autosave.written, 7);
  await clock.advance(1000);
  assert.equal(autosave.written, 8);
  autosave.dispose();
});

/**
 * An autosave with the default settings (idle 30 s, at most 60 s) on the web storage's in-memory stand-ins;
 * `written` holds the times of its writes, in ms from the start.
 */
function busyArtist() {
  const clock = new FakeClock();
  const start = clock.now();
  const storage = new WebAutosaveStorage(new MemoryDatabase(), new MemoryLocks(), () => clock.now());
  const state = { unsaved: true, busy: false, edits: 0 };
  const written: number[] = [];
  const host: AutosaveHost = {
    ...fakeHost(state, []),
    encode: async () => {
      written.push(clock.now() - start);
      return Uint8Array.of(written.length);
    },
  };
  const autosave = new Autosave('artist', storage, host, {}, clock);
  return { clock, state, autosave, written, elapsed: () => clock.now() - start };
}

test('autosave under continuous work: input every 100 ms for 5 minutes writes within 60 s of the first change, and every 60 s after', async () => {
  const { clock, state, autosave, written } = busyArtist();
  // A pointer move every 100 ms for 5 minutes, an edit (a dab, a stroke's rows) every 500 ms for the first 4.5.
  for (let t = 0; t < 300_000; t += 100) {
    autosave.activity();
    if (t % 500 === 0 && t < 270_000) {
      state.edits++;
      autosave.changed();
    }
    await clock.advance(100);
  }
  // The first change (0 s) is due at 60 s; that write (the timer fires before the edit of the same millisecond) takes
  // the changes up to 59.5 s, the next change (60 s) is due 60 s later, and so on: 60, 120, 180, 240 s, and at 300 s
  // the changes from 240 to 269.5 s. The idle delay (30 s) never passes while the pointer moves.
  assert.deepEqual(written, [60_000, 120_000, 180_000, 240_000, 300_000], 'one version per maximum wait');
  assert.equal(autosave.written, 5, 'versions stored');

  // The pointer keeps moving for 2 more minutes without an edit: nothing changed, nothing written.
  for (let t = 0; t < 120_000; t += 100) {
    autosave.activity();
    await clock.advance(100);
  }
  assert.equal(autosave.written, 5, 'nothing more without a change');
  autosave.dispose();
});

test('autosave under continuous work: a stroke in progress when the maximum wait is up defers the write to its end', async () => {
  const { clock, state, autosave, written, elapsed } = busyArtist();
  state.edits = 1;
  autosave.changed();
  // The pointer moves every 50 ms for 90 s (the idle delay never passes); a stroke from 50 s to 75.05 s holds the
  // maximum wait's end (60 s).
  while (elapsed() < 90_000) {
    state.busy = elapsed() >= 50_000 && elapsed() < 75_050;
    autosave.activity();
    await clock.advance(50);
    if (state.busy) assert.deepEqual(written, [], `nothing written in the middle of the stroke (${elapsed()} ms)`);
  }
  // The stroke's end is seen at the next look (every 100 ms from 60 s on: 75.1 s) and the version written then.
  assert.deepEqual(written, [75_100], 'written as soon as the stroke ended');

  // A change at 90 s, 20 s without input, a 15 s stroke: idle would be due 30 s after the stroke (155 s), the
  // maximum wait 60 s after the change (150 s) comes first and finds no stroke in progress.
  state.edits = 2;
  autosave.changed();
  await clock.advance(20_000);
  state.busy = true;
  while (elapsed() < 125_000) {
    autosave.activity();
    await clock.advance(100);
  }
  state.busy = false;
  await clock.advance(40_000);
  assert.deepEqual(written, [75_100, 150_000], 'at the maximum wait after the change');
  autosave.dispose();
});

test('web storage: a session whose lock is gone is not alive; unmark and remove leave the rest', async () => {
  const db = new MemoryDatabase();
  const locks = new MemoryLocks();
  const storage = new WebAutosaveStorage(db, locks, () => 42);
  await storage.begin('live');
  await storage.write(info('live', 1, 1), Uint8Array.of(9, 9, 9, 9));
  await storage.write(info('dead', 1, 2), Uint8Array.of(7, 7, 7, 7));
  const listing = await storage.list();
  assert.deepEqual(
    listing.marked.sort((a, b) => a.session.localeCompare(b.session)),
    [
      { session: 'dead', alive: false },
      { session: 'live', alive: true },
    ],
  );
  await storage.unmark('dead');
  assert.deepEqual((await storage.list()).marked, [{ session: 'live', alive: true }]);
  await storage.remove(['dead-1']);
  assert.equal(await storage.read('dead-1'), null);
  assert.deepEqual(await storage.read('live-1'), Uint8Array.of(9, 9, 9, 9));
});

test('web storage: records that are not what this version writes are skipped, each said once; bytes must be bytes', async () => {
  const db = new MemoryDatabase();
  const skipped: string[] = [];
  const storage = new WebAutosaveStorage(
    db,
    new MemoryLocks(),
    () => 42,
    (message) => skipped.push(message),
  );
  await storage.write(info('good', 1, 1), Uint8Array.of(1, 2, 3, 4));
  const infos = db.stores.get('infos')!;
  infos.set('k1', { ...info('noname', 1, 1), name: undefined });
  infos.set('k2', 'a string');
  infos.set('k3', { ...info('extra', 2, 1), script: 'alert(1)' });
  infos.set('k4', { ...info('twolines', 1, 1), name: 'a\nb' });
  infos.set('k5', { ...info('count', 1, 1), vertexCount: -3 });
  infos.set('k6', { ...info('mismatch', 1, 1), id: 'other-1' });
  const marks = db.stores.get('marks')!;
  marks.set('m1', { session: 5, markedAt: 1 });
  marks.set('m2', null);
  db.stores.get('bytes')!.set('good-2', [1, 2, 3, 4]);

  const listing = await storage.list();
  assert.deepEqual(listing.versions, [info('good', 1, 1)], 'only the record that checks');
  assert.deepEqual(listing.marked, [{ session: 'good', alive: false }], 'only the mark that checks');
  assert.deepEqual(
    skipped,
    [
      'IndexedDB rigwright-autosave, infos noname-1: skipped, info.name must be a non-empty string',
      'IndexedDB rigwright-autosave, infos record 3: skipped, info must be an object',
      'IndexedDB rigwright-autosave, infos extra-2: skipped, info: unexpected field "script"',
      'IndexedDB rigwright-autosave, infos twolines-1: skipped, info.name has control characters',
      'IndexedDB rigwright-autosave, infos count-1: skipped, info.vertexCount must be a whole number ≥ 0',
      'IndexedDB rigwright-autosave, infos other-1: skipped, info.id must be the session and the sequence number',
      'IndexedDB rigwright-autosave, marks record 2: skipped, mark.session must be a string',
      'IndexedDB rigwright-autosave, marks record 3: skipped, mark must be an object, not null',
    ],
    'each skipped record named with the reason, in store order',
  );
  await storage.list();
  assert.equal(skipped.length, 8, 'a record is said once, not at every listing');
  await assert.rejects(storage.read('good-2'), /^Error: IndexedDB rigwright-autosave, bytes of good-2: not a byte array but an array$/);
  assert.deepEqual(await storage.read('good-1'), Uint8Array.of(1, 2, 3, 4), 'stored bytes read back');
  assert.equal(await storage.read('none-1'), null, 'absent bytes: null');
});

/** The bytes of a typed array's own elements. */
const bytesOf = (array: ArrayBufferView) => new Uint8Array(array.buffer, array.byteOffset, array.byteLength);

test('sliced copy: equal bits in buffers of its own, shared objects and arrays shared in the copy, at most a slice per step', () => {
  // Weights of 2.5 slices; bit patterns a value comparison would miss (NaN payloads, -0); a view into a larger buffer.
  const weights = new Float64Array((5 * SNAPSHOT_SLICE_BYTES) / 16);
  for (let i = 0; i < weights.length; i++) weights[i] = Math.sin(i) * 1e3;
  weights[1] = -0;
  new DataView(weights.buffer).setBigUint64(16, 0x7ff8_0000_0000_1234n, true); // element 2: a quiet NaN with a payload
  const whole = new Float32Array(100).map((_, i) => i + 0.5);
  const view = whole.subarray(10, 40);
  const poses = { kind: 'matrices', rotations: new Float64Array([1, 0, 0, 0, 1, 0, 0, 0, 1]) };
  const source = {
    scene: { weights: { rows: 4, cols: 2, data: weights }, poses, clips: [{ name: 'walk', poses }], handles: new Int32Array([-1, 3, 7]) },
    settings: {
      blend: view,
      again: view,
      locked: new Uint8Array(0),
      ids: new BigInt64Array([1n, -2n]),
      names: ['a', 'b'],
      when: new Date(5),
      none: null,
    },
  };
  const copy = new SlicedCopy(source);
  const out = copy.value;
  assert.equal(copy.totalBytes, weights.byteLength + 72 + 12 + 120 + 16, 'each distinct typed array counted once, a view by its own bytes');
  assert.equal(copy.done, false, 'nothing copied before the first step');

  const steps: number[] = [];
  while (!copy.done) {
    const before = copy.copiedBytes;
    copy.step(SNAPSHOT_SLICE_BYTES);
    steps.push(copy.copiedBytes - before);
  }
  assert.deepEqual(steps, [SNAPSHOT_SLICE_BYTES, SNAPSHOT_SLICE_BYTES, SNAPSHOT_SLICE_BYTES / 2 + 72 + 12 + 120 + 16], 'a slice per step');

  assert.deepEqual(bytesOf(out.scene.weights.data), bytesOf(weights), 'weights bit for bit (-0 and the NaN payload)');
  assert.equal(new DataView(out.scene.weights.data.buffer).getBigUint64(16, true), 0x7ff8_0000_0000_1234n, 'the NaN payload kept');
  assert.deepEqual(bytesOf(out.settings.blend), bytesOf(view), 'the view: its own elements');
  assert.equal(out.settings.blend.byteLength, out.settings.blend.buffer.byteLength, 'the view copied into a buffer of its size');
  assert.ok(out.settings.blend instanceof Float32Array && out.scene.handles instanceof Int32Array, 'element types kept');
  assert.deepEqual([...out.scene.handles], [-1, 3, 7], 'handles');
  assert.equal(out.scene.clips[0].poses, out.scene.poses, 'the shown poses are the clip’s poses in the copy too');
  assert.equal(out.settings.again, out.settings.blend, 'an array referenced twice is copied once');
  assert.notEqual(out.scene.weights.data, weights, 'a copy, not the source');
  assert.deepEqual(out.settings.names, ['a', 'b'], 'plain arrays');
  assert.ok(out.settings.when instanceof Date && out.settings.when.getTime() === 5, 'a Date cloned');
  assert.equal(out.settings.none, null, 'null');
  assert.equal(out.settings.locked.length, 0, 'an empty array');
  assert.deepEqual([...out.settings.ids], [1n, -2n], 'bigint elements');
  const sources = new Set<ArrayBufferLike>([weights.buffer, whole.buffer, poses.rotations.buffer, source.scene.handles.buffer]);
  assert.equal(copy.buffers.length, 6, 'a buffer per distinct typed array, the empty one too');
  assert.equal(new Set(copy.buffers).size, 6, 'no buffer shared');
  assert.ok(
    copy.buffers.every((b) => !sources.has(b)),
    'no buffer of the source among them',
  );
  weights[0] = 42;
  assert.notEqual(out.scene.weights.data[0], 42, 'later writes into the source do not reach the copy');
});

/** An autosave of a scene whose weights (3 slices of the copy) a test can write into in place, as a stroke's end does. */
function slicedScene() {
  const clock = new FakeClock();
  const db = new MemoryDatabase();
  const storage = new WebAutosaveStorage(db, new MemoryLocks(), () => clock.now());
  const state = { unsaved: true, edits: 1 };
  const weights = new Float64Array((3 * SNAPSHOT_SLICE_BYTES) / 8).fill(1);
  const scene = { weights: { data: weights } };
  const host: AutosaveHost<typeof scene> = {
    contents: () => scene,
    encode: async ({ contents, buffers }) => {
      assert.ok(buffers.length === 1 && buffers[0] === contents.weights.data.buffer, 'the copy’s buffer goes to the encoder');
      return bytesOf(contents.weights.data).slice();
    },
    summary: () => ({ name: 'hand.rig.glb', vertexCount: 3, boneCount: 2, editCount: state.edits }),
    unsaved: () => state.unsaved,
    idle: () => true,
    failed: (message) => assert.fail(message),
  };
  const autosave = new Autosave('s', storage, host, { delaySeconds: 1 }, clock);
  /** A stroke's end: its rows written into the weights in place, then the change told. */
  const edit = (value: number) => {
    weights.fill(value, 1000, 400_000);
    state.edits++;
    autosave.changed();
  };
  /** The weights of the version stored as `id`. */
  const storedWeights = async (id: string) => new Float64Array((await storage.read(id))!.slice().buffer);
  return { clock, autosave, weights, edit, storedWeights };
}

test('autosave: the scene is copied a slice per task; an edit between two starts the copy over, so a version is the scene at one moment', async () => {
  const { clock, autosave, weights, edit, storedWeights } = slicedScene();
  edit(1);
  await clock.advance(1000);
  assert.equal(clock.tasks.length, 1, 'a slice copied, the rest waits for the next task');
  assert.equal(autosave.written, 0);
  await clock.runTask();
  assert.equal(clock.tasks.length, 1, 'a second slice, then the next task again');

  // A stroke ends between two slices: its rows go into the weights in place.
  edit(2);
  let tasks = 0;
  while (await clock.runTask()) tasks++;
  assert.equal(autosave.written, 1);
  const version = autosave.latest!;
  const stored = await storedWeights(version.id);
  assert.deepEqual(stored, weights, 'the version holds the scene after the edit, whole (no slice from before it)');
  assert.equal(version.editCount, 3, 'the summary taken with the copy that was kept');
  const stats = autosave.snapshotStats!;
  assert.deepEqual(
    [stats.bytes, stats.slices, stats.restarts],
    [weights.byteLength, 5, 1],
    'two slices, then three of the copy started over',
  );
  assert.equal(tasks, 3, 'the copy started over: three more tasks');

  // The edit is in that version: nothing is left to write.
  await clock.advance(60_000);
  assert.equal(autosave.written, 1, 'no second version of the same scene');
  assert.equal(clock.tasks.length, 0);
  autosave.dispose();
});

test('autosave: a scene edited at every task is copied whole in one task after two restarts, as it is then', async () => {
  const { clock, autosave, weights, edit, storedWeights } = slicedScene();
  edit(1);
  await clock.advance(1000);
  let value = 1;
  while (clock.tasks.length > 0) {
    edit(++value);
    await clock.runTask();
  }
  assert.equal(value, 1 + SNAPSHOT_RESTARTS, 'an edit at each of the first tasks of each copy until the last restart');
  assert.equal(autosave.written, 1);
  assert.equal(autosave.snapshotStats!.restarts, SNAPSHOT_RESTARTS);
  assert.equal(autosave.snapshotStats!.slices, SNAPSHOT_RESTARTS + 1, 'a slice per copy started over, then the whole copy in one');
  assert.deepEqual(await storedWeights(autosave.latest!.id), weights, 'the scene as the last edit left it');
  assert.equal(autosave.latest!.editCount, 2 + SNAPSHOT_RESTARTS);
  autosave.dispose();
});

test('web storage: a version is stored in chunks of at most 1 MiB in one update and read back whole; removing it removes them', async () => {
  const db = new MemoryDatabase();
  const storage = new WebAutosaveStorage(db, new MemoryLocks(), () => 42);
  const bytes = new Uint8Array(2.5 * AUTOSAVE_CHUNK_BYTES + 3).map((_, i) => (i * 7919) % 251);
  await storage.write({ ...info('big', 1, 1), byteLength: bytes.byteLength }, bytes);
  assert.deepEqual(
    db.clonedBytes,
    [AUTOSAVE_CHUNK_BYTES, AUTOSAVE_CHUNK_BYTES, AUTOSAVE_CHUNK_BYTES / 2 + 3, 0, 0],
    'three chunks, then the info and the mark: no clone of more than a chunk',
  );
  assert.deepEqual([...db.stores.get('bytes')!.keys()], ['big-1/000000', 'big-1/000001', 'big-1/000002']);
  assert.deepEqual(await storage.read('big-1'), bytes, 'read back whole');
  await storage.write(info('small', 1, 2), Uint8Array.of(1, 2, 3, 4));
  await storage.remove(['big-1']);
  assert.deepEqual([...db.stores.get('bytes')!.keys()], ['small-1/000000'], 'the chunks of the removed version gone, the other kept');
  assert.deepEqual(await storage.read('small-1'), Uint8Array.of(1, 2, 3, 4));
  assert.equal(await storage.read('big-1'), null, 'removed: no bytes');
});

test('web storage: a chunk missing or cut short is a damaged version, which recovery passes for the one before; old one-record versions read', async () => {
  const db = new MemoryDatabase();
  const locks = new MemoryLocks();
  const storage = new WebAutosaveStorage(db, locks, () => 42);
  const bytes = (fill: number) => new Uint8Array(2 * AUTOSAVE_CHUNK_BYTES + 10).fill(fill);
  const write = (sequence: number, fill: number) =>
    storage.write({ ...info('gone', sequence, sequence), byteLength: bytes(fill).length }, bytes(fill));
  await write(1, 0x50);
  await write(2, 0x51);
  await write(3, 0x52);
  const chunks = db.stores.get('bytes')!;
  chunks.delete('gone-3/000001');
  await assert.rejects(
    storage.read('gone-3'),
    new Error(
      `IndexedDB rigwright-autosave, bytes of gone-3: ${AUTOSAVE_CHUNK_BYTES + 10} bytes in 2 chunks where ${2 * AUTOSAVE_CHUNK_BYTES + 10} were written (a chunk is missing or cut short)`,
    ),
  );
  chunks.set('gone-2/000002', new Uint8Array(5));
  await assert.rejects(storage.read('gone-2'), /bytes of gone-2: 2097157 bytes in 3 chunks where 2097162 were written/);
  chunks.set('gone-1/000001', [1, 2]);
  await assert.rejects(
    storage.read('gone-1'),
    /^Error: IndexedDB rigwright-autosave, bytes of gone-1, chunk 2: not a byte array but an array$/,
  );

  // A version stored before chunks: all its bytes in one record under its id.
  const old = Uint8Array.of(0x50, 9, 8, 7);
  chunks.set('gone-0', old);
  db.stores.get('infos')!.set('gone-0', info('gone', 0, 0));
  assert.deepEqual(await storage.read('gone-0'), old, 'an old version reads as it was stored');

  // Recovery lists them newest first, marks the damaged ones with the reason and selects the old one.
  const found = (await findRecoverable(storage, 'me'))!;
  assert.deepEqual(
    found.versions.map((v) => v.id),
    ['gone-3', 'gone-2', 'gone-1', 'gone-0'],
  );
  const readable = await firstReadable(storage, found, (b) => assert.equal(b[0], 0x50, 'a project'));
  assert.equal(readable?.version.id, 'gone-0', 'the newest readable: the old one');
  assert.deepEqual([...found.damaged.keys()], ['gone-3', 'gone-2', 'gone-1']);
  assert.match(found.damaged.get('gone-3')!, /a chunk is missing or cut short/);

  await storage.remove(['gone-0']);
  assert.equal(chunks.has('gone-0'), false, 'an old version removed');
});

test('desktop folder: versions as atomic files, liveness by page and process, bad files skipped', async () => {
  const folder = path.join(await mkdtemp(path.join(tmpdir(), 'rigwright-autosave-')), 'autosave');
  try {
    const running = new Set<number>();
    const storage = new AutosaveFolder(
      folder,
      (pid) => running.has(pid),
      () => 7,
    );
    assert.deepEqual(await storage.list(), { versions: [], marked: [] }, 'no folder yet: nothing');
    await storage.begin('mine');
    await storage.write(info('mine', 1, 100), Uint8Array.of(1, 2, 3, 4));
    await storage.write(info('mine', 2, 200), Uint8Array.of(5, 6, 7, 8));
    assert.deepEqual((await readdir(folder)).sort(), [
      'mine-1.json',
      'mine-1.rig.glb',
      'mine-2.json',
      'mine-2.rig.glb',
      'session-mine.json',
    ]);
    assert.deepEqual(await storage.read('mine-2'), Uint8Array.of(5, 6, 7, 8));
    assert.equal(await storage.read('mine-3'), null);

    // A mark of another process: alive while that process runs; a mark of this process nobody here began is dead.
    await writeFile(path.join(folder, 'session-other.json'), JSON.stringify({ session: 'other', pid: 999_999, markedAt: 1 }));
    await writeFile(path.join(folder, 'session-reloaded.json'), JSON.stringify({ session: 'reloaded', pid: process.pid, markedAt: 1 }));
    running.add(999_999);
    const alive = async () => Object.fromEntries((await storage.list()).marked.map((m) => [m.session, m.alive]));
    assert.deepEqual(await alive(), { mine: true, other: true, reloaded: false });
    running.clear();
    assert.deepEqual(await alive(), { mine: true, other: false, reloaded: false });

    // A fresh start (a new process' storage over the same folder) sees the old page's work as abandoned.
    const restarted = new AutosaveFolder(folder, () => false);
    const marks = (await restarted.list()).marked.filter((m) => m.session === 'mine');
    assert.deepEqual(marks, [{ session: 'mine', alive: false }]);

    // Untrusted files: an info that does not validate, one that names another id, one without its bytes.
    await writeFile(path.join(folder, 'junk-1.json'), '{ not json');
    await writeFile(path.join(folder, 'x-1.json'), JSON.stringify(info('y', 1, 1)));
    await writeFile(path.join(folder, 'lone-1.json'), JSON.stringify(info('lone', 1, 1)));
    await writeFile(path.join(folder, 'bad-1.json'), JSON.stringify({ ...info('bad', 1, 1), name: 'a\nb' }));
    assert.deepEqual((await storage.list()).versions.map((v) => v.id).sort(), ['mine-1', 'mine-2']);

    await storage.remove(['mine-1', 'never-1']);
    await storage.unmark('mine');
    const after = await storage.list();
    assert.deepEqual(
      after.versions.map((v) => v.id),
      ['mine-2'],
    );
    assert.equal(
      after.marked.some((m) => m.session === 'mine'),
      false,
    );
    await assert.rejects(storage.read('../etc/passwd'), /letters, digits and dashes/);
    await assert.rejects(storage.write({ ...info('mine', 3, 1), id: 'mine-4' }, Uint8Array.of(1)), /session and the sequence/);
  } finally {
    await rm(path.dirname(folder), { recursive: true, force: true });
  }
});

test('autosave over the desktop folder: a restart finds the crashed session and its newest version', async () => {
  const folder = path.join(await mkdtemp(path.join(tmpdir(), 'rigwright-autosave-')), 'autosave');
  try {
    const clock = new FakeClock();
    const storage: AutosaveStorage = new AutosaveFolder(
      folder,
      () => false,
      () => clock.now(),
    );
    const state = { unsaved: true, edits: 4 };
    const autosave = new Autosave('first', storage, fakeHost(state, []), { delaySeconds: 1, versions: 2 }, clock);
    await storage.begin('first');
    const settle = async (count: number) => {
      // The folder writes are real I/O: wait for each to finish before the next change.
      for (let i = 0; i < 200 && autosave.written < count; i++) await new Promise((r) => setTimeout(r, 10));
      for (let i = 0; i < 10; i++) await new Promise((r) => setTimeout(r, 10));
    };
    for (let i = 1; i <= 3; i++) {
      autosave.changed();
      await clock.advance(1000);
      await settle(i);
    }
    const next = new AutosaveFolder(folder, () => false);
    const listing = await next.list();
    assert.deepEqual(listing.marked, [{ session: 'first', alive: false }]);
    assert.deepEqual(listing.versions.map((v) => v.id).sort(), ['first-2', 'first-3']);
    assert.deepEqual(await next.read('first-3'), Uint8Array.of(1, 2, 3, 3));
  } finally {
    await rm(path.dirname(folder), { recursive: true, force: true });
  }
});

test('main checks what the page sends about autosave: ids and info fields', () => {
  const channel = 'rigwright:autosave-write';
  const good = info('3f2a9c1e-1b2c-4d5e-8f90-a1b2c3d4e5f6', 12, 1_700_000_000_000);
  assert.deepEqual(validateAutosaveInfo(channel, good), good);
  const refused = (value: unknown, reason: RegExp) =>
    assert.throws(
      () => validateAutosaveInfo(channel, value),
      (error: unknown) => error instanceof IpcArgumentError && error.channel === channel && reason.test(error.reason),
    );
  refused({ ...good, id: '../x-12', session: '../x' }, /letters, digits and dashes/);
  refused({ ...good, sequence: 13 }, /session and the sequence/);
  refused({ ...good, vertexCount: -1 }, /vertexCount must be a whole number/);
  refused({ ...good, name: '' }, /non-empty/);
  refused({ ...good, extra: 1 }, /unexpected field "extra"/);
  refused([good], /must be an object/);
  assert.deepEqual(validateAutosaveRemove(channel, ['a-1', 'b-2']), ['a-1', 'b-2']);
  assert.throws(() => validateAutosaveRemove(channel, ['a/1']), /letters, digits and dashes/);
  assert.throws(() => validateAutosaveRemove(channel, new Array(257).fill('a-1')), /at most 256/);
  assert.equal(validateAutosaveId(channel, 'x'.repeat(80)), 'x'.repeat(80));
  assert.throws(() => validateAutosaveId(channel, 'x'.repeat(81)), /at most 80/);
  assert.equal(validateBoolean(channel, false), false);
  assert.throws(() => validateBoolean(channel, 'yes'), /true or false/);
});
