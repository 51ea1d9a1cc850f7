/**
 * Autosave: after a change, once the user has been idle for a while (default 30 s, a setting), the scene is
 * serialized as a project file and stored as a new version in the autosave storage (the desktop app's data folder,
 * or the web page's IndexedDB); a bounded number of versions is kept per session, oldest dropped. Input postpones
 * the write, but never past a maximum wait after the first change not yet written (default 60 s, a setting): an
 * artist who paints without pause still has a version at most that old. A session whose unsaved work is stored is
 * "marked"; saving the project or discarding the changes clears the mark, so only work that was never saved or
 * discarded — a crash, a killed process, a page closed without saving — is offered for recovery at the next start
 * (recovery.ts).
 *
 * Never in the way of painting: nothing is written in the middle of a gesture (a stroke, a lasso: the write waits
 * for its end, and then runs at once if the maximum wait has passed), nothing is written when nothing changed since
 * the last version, and no task of the page's thread does much of it. The scene is copied a slice at a time
 * (SlicedCopy, SNAPSHOT_SLICE_BYTES per task), starting over when the scene changes meanwhile, so the copy is the
 * scene at one moment; the encoder it is given runs off the page's thread (the io worker), and the web storage
 * hands the bytes to IndexedDB in chunks (autosave-storage.ts).
 *
 * No DOM: the clock, the storage and the encoder are given, so Node tests drive it with a fake clock and an
 * in-memory storage.
 */
import type { AutosaveBridge, AutosaveInfo, AutosaveListing } from '../../app/ipc-contract.ts';
import { SlicedCopy } from './sliced-copy.ts';

export interface AutosaveOptions {
  /** seconds of idleness after a change before a version is written; 0 turns autosave off */
  delaySeconds?: number;
  /** seconds after the first change not yet written by which a version is written, however busy the user is */
  maxWaitSeconds?: number;
  /** versions kept per session, newest first */
  versions?: number;
}

export const AUTOSAVE_DEFAULTS: Required<AutosaveOptions> = { delaySeconds: 30, maxWaitSeconds: 60, versions: 5 };
/** Bounds of the settings the user may choose. */
export const AUTOSAVE_DELAY_RANGE = { min: 0, max: 3600 } as const;
export const AUTOSAVE_MAX_WAIT_RANGE = { min: 1, max: 3600 } as const;
export const AUTOSAVE_VERSIONS_RANGE = { min: 1, max: 50 } as const;

/** The settings with defaults filled in and out-of-range or non-numeric values brought back into range. */
export function autosaveSettings(options: AutosaveOptions = {}): Required<AutosaveOptions> {
  const clampTo = (value: unknown, range: { min: number; max: number }, fallback: number, integer: boolean) => {
    if (typeof value !== 'number' || !Number.isFinite(value)) return fallback;
    const clamped = Math.min(range.max, Math.max(range.min, value));
    return integer ? Math.round(clamped) : clamped;
  };
  return {
    delaySeconds: clampTo(options.delaySeconds, AUTOSAVE_DELAY_RANGE, AUTOSAVE_DEFAULTS.delaySeconds, false),
    maxWaitSeconds: clampTo(options.maxWaitSeconds, AUTOSAVE_MAX_WAIT_RANGE, AUTOSAVE_DEFAULTS.maxWaitSeconds, false),
    versions: clampTo(options.versions, AUTOSAVE_VERSIONS_RANGE, AUTOSAVE_DEFAULTS.versions, true),
  };
}

/**
 * Where autosave versions live: the desktop app's data folder (through the bridge) or the page's IndexedDB; both
 * keep the bridge's contract (app/ipc-contract.ts).
 */
export type AutosaveStorage = AutosaveBridge;

/** Timers, injectable so tests run on a fake clock. */
export interface Clock {
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  /** resolves in a later task of this thread: what waits (a frame, input) runs first */
  nextTask(): Promise<void>;
}

/** A task posted through a MessageChannel: not clamped like a nested setTimeout 0, and queued behind a frame. */
function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}

export const SYSTEM_CLOCK: Clock = {
  now: () => Date.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  nextTask,
};

/** How often a run that is due looks again whether the gesture that holds it back has ended. */
export const GESTURE_POLL_MS = 100;

/**
 * Runs a task once the user has been idle for `delayMs` after a change, or `maxWaitMs` after the first change not
 * yet run, whichever comes first. Input only records the time (cheap enough for every pointer move); the one timer,
 * when it fires early, waits out the rest. A run that is due while a gesture is in progress waits for its end,
 * looking again every GESTURE_POLL_MS. Runs never overlap: a change during a run arms the timer again once the run
 * has ended, and its maximum wait counts from that change.
 */
export class IdleScheduler {
  private pending = false;
  private running = false;
  private lastActivity = 0;
  /** when the first change not yet run came */
  private firstChange = 0;
  private timer: unknown = null;

  /**
   * @param task       what to run when idle; may be asynchronous
   * @param ready      false holds a due run back (a gesture in progress)
   * @param maxWaitMs  the longest a change waits, however busy the user is (Infinity: no limit)
   */
  constructor(
    private delayMs: number,
    private readonly task: () => void | Promise<void>,
    private readonly clock: Clock = SYSTEM_CLOCK,
    private readonly ready: () => boolean = () => true,
    private maxWaitMs = Infinity,
  ) {}

  /** Something changed: run once the user has been idle for the delay, or when the maximum wait is up. */
  changed(): void {
    if (!this.pending) this.firstChange = this.clock.now();
    this.pending = true;
    this.activity();
    this.arm();
  }

  /** The user did something (a key, a pointer move): the idle wait restarts; the maximum wait does not. */
  activity(): void {
    this.lastActivity = this.clock.now();
  }

  /** A change waits to be run. */
  get isPending(): boolean {
    return this.pending;
  }

  /** A run is in progress. */
  get isRunning(): boolean {
    return this.running;
  }

  /**
   * @param ms         the new idle delay; 0 or less stops running (changes still count and run once a delay is set again)
   * @param maxWaitMs  the new maximum wait
   */
  setDelay(ms: number, maxWaitMs = this.maxWaitMs): void {
    this.delayMs = ms;
    this.maxWaitMs = maxWaitMs;
    this.disarm();
    if (this.pending) this.arm();
  }

  /** Runs now if a change waits (e.g. before recovery unmarks the old session); resolves when the run has ended. */
  async flush(): Promise<void> {
    this.disarm();
    if (this.pending && !this.running) await this.run();
  }

  dispose(): void {
    this.disarm();
    this.pending = false;
  }

  /** When the waiting change is due: idle for the delay, or the maximum wait up. */
  private dueAt(): number {
    return Math.min(this.lastActivity + this.delayMs, this.firstChange + this.maxWaitMs);
  }

  private arm(ms = Math.max(0, this.dueAt() - this.clock.now())): void {
    if (this.timer !== null || this.running || this.delayMs <= 0) return;
    this.timer = this.clock.setTimeout(() => this.fire(), ms);
  }

  private disarm(): void {
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  private fire(): void {
    this.timer = null;
    if (!this.pending) return;
    const wait = this.dueAt() - this.clock.now();
    if (wait > 0) return this.arm(wait);
    if (!this.ready()) return this.arm(GESTURE_POLL_MS);
    void this.run();
  }

  private async run(): Promise<void> {
    this.pending = false;
    this.running = true;
    try {
      await this.task();
    } finally {
      this.running = false;
      if (this.pending) this.arm();
    }
  }
}

/**
 * The versions a write leaves behind: the session's own beyond the newest `keep`, and every version of a session
 * that is no longer marked (saved, discarded, or recovered into a later session). Versions of other marked
 * sessions — a crash not yet answered, another window of the app — stay.
 * @returns ids to remove, oldest first within each session
 */
export function versionsToDrop(listing: AutosaveListing, session: string, keep: number): string[] {
  const marked = new Set(listing.marked.map((m) => m.session));
  const bySession = new Map<string, AutosaveInfo[]>();
  for (const version of listing.versions) {
    const list = bySession.get(version.session) ?? [];
    list.push(version);
    bySession.set(version.session, list);
  }
  const dropped: string[] = [];
  for (const [owner, versions] of bySession) {
    const newestFirst = versions.slice().sort((a, b) => b.savedAt - a.savedAt || b.sequence - a.sequence);
    const kept = owner === session || marked.has(owner) ? Math.max(1, keep) : 0;
    dropped.push(
      ...newestFirst
        .slice(kept)
        .reverse()
        .map((v) => v.id),
    );
  }
  return dropped;
}

/** Bytes of the scene copied in one task of the page's thread. */
export const SNAPSHOT_SLICE_BYTES = 2 * 1024 * 1024;
/** Copies started over because the scene changed meanwhile, after which the next is taken whole in one task. */
export const SNAPSHOT_RESTARTS = 2;

/** What a version holds, as recovery shows it. */
export interface AutosaveSummary {
  /** the project's file name, or 'untitled' */
  name: string;
  vertexCount: number;
  boneCount: number;
  /** edits since the project was opened or saved */
  editCount: number;
}

/** What an autosave hands its encoder: the scene at one moment, in buffers of its own. */
export interface AutosaveSnapshot<C> {
  /** a copy of `contents()` */
  contents: C;
  /** the copy's buffers (nothing else refers to them: they can be moved to a worker) */
  buffers: ArrayBuffer[];
}

/** What the latest autosave did on the page's thread. */
export interface AutosaveSnapshotStats {
  /** bytes of the scene copied */
  bytes: number;
  /** tasks the copy took */
  slices: number;
  /** copies started over because the scene changed meanwhile */
  restarts: number;
  /** the longest task of the copy, ms */
  longestSliceMs: number;
}

export interface AutosaveHost<C = unknown> {
  /**
   * The scene now, as a version holds it: cheap to take (it may share the scene's own arrays, which some edits write
   * into in place: the autosave copies them before anything else runs, or starts over — every such write is a
   * change, `Autosave.changed`).
   */
  contents(): C;
  /** the copied contents as project-file bytes, encoded off the page's thread (the buffers may be moved there) */
  encode(snapshot: AutosaveSnapshot<C>): Promise<Uint8Array>;
  summary(): AutosaveSummary;
  /** whether the scene has changes that are not saved in a project file */
  unsaved(): boolean;
  /** false while a gesture is in progress (a stroke, a lasso): the write waits */
  idle(): boolean;
  /** a write failed (disk full, storage refused): said once per failure kind */
  failed(message: string): void;
}

/** Writes versions of the scene while it has unsaved changes; see the module comment. */
export class Autosave<C = unknown> {
  private settings: Required<AutosaveOptions>;
  private readonly scheduler: IdleScheduler;
  /** changes seen, and the count at the latest version written */
  private revision = 0;
  private writtenRevision = 0;
  private sequence = 0;
  private lastError: string | null = null;
  /** the latest version written by this session, or null */
  latest: AutosaveInfo | null = null;
  /** versions written by this session (tests and the status line) */
  written = 0;
  /** how the latest version's copy of the scene went, or null before the first */
  snapshotStats: AutosaveSnapshotStats | null = null;
  /** why autosave is off for this page (its storage cannot be used), or null */
  offReason: string | null = null;

  constructor(
    readonly session: string,
    private readonly storage: AutosaveStorage,
    private readonly host: AutosaveHost<C>,
    options: AutosaveOptions = {},
    private readonly clock: Clock = SYSTEM_CLOCK,
  ) {
    this.settings = autosaveSettings(options);
    this.scheduler = new IdleScheduler(
      this.settings.delaySeconds * 1000,
      () => this.write(),
      clock,
      () => host.idle(),
      this.settings.maxWaitSeconds * 1000,
    );
  }

  get options(): Readonly<Required<AutosaveOptions>> {
    return this.settings;
  }

  /** A version is being written now. */
  get writing(): boolean {
    return this.scheduler.isRunning;
  }

  setOptions(options: AutosaveOptions): void {
    this.settings = autosaveSettings({ ...this.settings, ...options });
    this.scheduler.setDelay(this.settings.delaySeconds * 1000, this.settings.maxWaitSeconds * 1000);
  }

  /** The scene changed (an edit, an undo, a new scene, a stroke's rows). */
  changed(): void {
    if (this.offReason !== null) return;
    this.revision++;
    this.scheduler.changed();
  }

  /** The user did something that is not a change (pointer, keys, wheel). */
  activity(): void {
    this.scheduler.activity();
  }

  /** Writes now what waits to be written; resolves when done. */
  flush(): Promise<void> {
    return this.scheduler.flush();
  }

  /**
   * The scene's changes are now saved in a project file, or were discarded: no recovery offers them. Versions
   * stay until later writes drop them.
   */
  async settled(): Promise<void> {
    this.writtenRevision = this.revision;
    await this.storage.unmark(this.session);
  }

  /** Nothing more is written by this page: its storage cannot be used (`reason` says why). */
  turnOff(reason: string): void {
    this.offReason = reason;
    this.scheduler.dispose();
  }

  dispose(): void {
    this.scheduler.dispose();
  }

  private async write(): Promise<void> {
    if (!this.host.unsaved() || this.revision === this.writtenRevision) return;
    try {
      const { snapshot, summary, revision } = await this.snapshot();
      const bytes = await this.host.encode(snapshot);
      const savedAt = this.clock.now();
      const sequence = ++this.sequence;
      const info: AutosaveInfo = {
        id: `${this.session}-${sequence}`,
        session: this.session,
        sequence,
        savedAt,
        ...summary,
        byteLength: bytes.byteLength,
      };
      // Saved or discarded while serializing: this version is of work nobody needs back.
      if (!this.host.unsaved()) return;
      await this.storage.write(info, bytes);
      this.writtenRevision = revision;
      this.latest = info;
      this.written++;
      this.lastError = null;
      const drop = versionsToDrop(await this.storage.list(), this.session, this.settings.versions);
      if (drop.length > 0) await this.storage.remove(drop);
    } catch (error) {
      const message = `Autosave failed: ${error instanceof Error ? error.message : String(error)}`;
      if (message !== this.lastError) this.host.failed(message);
      this.lastError = message;
    }
  }

  /**
   * The scene at one moment, copied SNAPSHOT_SLICE_BYTES per task of the page's thread. A change between two tasks
   * (an edit, an undo, a stroke's rows written into the weights) starts the copy over, since part of it is of the
   * scene before; after SNAPSHOT_RESTARTS restarts the next copy is taken whole in one task. The summary and
   * the change count are taken with the scene, so an edit made while the version is written is not counted in it.
   */
  private async snapshot(): Promise<{ snapshot: AutosaveSnapshot<C>; summary: AutosaveSummary; revision: number }> {
    let slices = 0;
    let longestSliceMs = 0;
    for (let restarts = 0; ; restarts++) {
      const revision = this.revision;
      let start = performance.now();
      const summary = this.host.summary();
      const copy = new SlicedCopy(this.host.contents());
      const slice = restarts < SNAPSHOT_RESTARTS ? SNAPSHOT_SLICE_BYTES : Infinity;
      for (;;) {
        const done = copy.step(slice);
        slices++;
        longestSliceMs = Math.max(longestSliceMs, performance.now() - start);
        if (done) {
          this.snapshotStats = { bytes: copy.totalBytes, slices, restarts, longestSliceMs };
          return { snapshot: { contents: copy.value, buffers: copy.buffers }, summary, revision };
        }
        await this.clock.nextTask();
        if (this.revision !== revision) break;
        start = performance.now();
      }
    }
  }
}
