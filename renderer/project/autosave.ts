/**
 * Autosave: after a change, once the user has been idle for a while (default 30 s, a setting), the scene is
 * serialized as a project file and stored as a new version in the autosave storage (the desktop app's data folder,
 * or the web page's IndexedDB); a bounded number of versions is kept per session, oldest dropped. A session whose
 * unsaved work is stored is "marked"; saving the project or discarding the changes clears the mark, so only work
 * that was never saved or discarded — a crash, a killed process, a page closed without saving — is offered for
 * recovery at the next start (recovery.ts).
 *
 * Never in the way of painting: the timer only counts while nothing happens (any change or input restarts the
 * idle wait, and a gesture in progress postpones it), nothing is written when nothing changed since the last
 * version, and the serializer it is given runs off the page's thread (the io worker).
 *
 * No DOM: the clock, the storage and the serializer are given, so Node tests drive it with a fake clock and an
 * in-memory storage.
 */
import type { AutosaveBridge, AutosaveInfo, AutosaveListing } from '../../app/ipc-contract.ts';

export interface AutosaveOptions {
  /** seconds of idleness after a change before a version is written; 0 turns autosave off */
  delaySeconds?: number;
  /** versions kept per session, newest first */
  versions?: number;
}

export const AUTOSAVE_DEFAULTS: Required<AutosaveOptions> = { delaySeconds: 30, versions: 5 };
/** Bounds of the settings the user may choose. */
export const AUTOSAVE_DELAY_RANGE = { min: 0, max: 3600 } as const;
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
}

export const SYSTEM_CLOCK: Clock = {
  now: () => Date.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Runs a task once the user has been idle for `delayMs` after a change. Input only records the time (cheap enough
 * for every pointer move); the one timer, when it fires early, waits out the rest. Runs never overlap: a change
 * during a run arms the timer again once the run has ended.
 */
export class IdleScheduler {
  private pending = false;
  private running = false;
  private lastActivity = 0;
  private timer: unknown = null;

  /**
   * @param task   what to run when idle; may be asynchronous
   * @param ready  false postpones the run by another full delay (a gesture in progress)
   */
  constructor(
    private delayMs: number,
    private readonly task: () => void | Promise<void>,
    private readonly clock: Clock = SYSTEM_CLOCK,
    private readonly ready: () => boolean = () => true,
  ) {}

  /** Something changed: run once the user has been idle for the delay. */
  changed(): void {
    this.pending = true;
    this.activity();
    this.arm(this.delayMs);
  }

  /** The user did something (a key, a pointer move): the idle wait restarts. */
  activity(): void {
    this.lastActivity = this.clock.now();
  }

  /** A change waits to be run. */
  get isPending(): boolean {
    return this.pending;
  }

  /** @param ms  the new delay; 0 or less stops running (changes still count and run once a delay is set again) */
  setDelay(ms: number): void {
    this.delayMs = ms;
    this.disarm();
    if (this.pending) this.arm(ms);
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

  private arm(ms: number): void {
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
    const idle = this.clock.now() - this.lastActivity;
    if (idle < this.delayMs) return this.arm(this.delayMs - idle);
    if (!this.ready()) {
      this.activity();
      return this.arm(this.delayMs);
    }
    void this.run();
  }

  private async run(): Promise<void> {
    this.pending = false;
    this.running = true;
    try {
      await this.task();
    } finally {
      this.running = false;
      if (this.pending) this.arm(Math.max(0, this.delayMs - (this.clock.now() - this.lastActivity)));
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

/** What a version holds, as recovery shows it. */
export interface AutosaveSummary {
  /** the project's file name, or 'untitled' */
  name: string;
  vertexCount: number;
  boneCount: number;
  /** edits since the project was opened or saved */
  editCount: number;
}

export interface AutosaveHost {
  /** the scene as project-file bytes, serialized off the page's thread */
  serialize(): Promise<Uint8Array>;
  summary(): AutosaveSummary;
  /** whether the scene has changes that are not saved in a project file */
  unsaved(): boolean;
  /** false while a gesture is in progress (a stroke, a lasso): the write waits */
  idle(): boolean;
  /** a write failed (disk full, storage refused): said once per failure kind */
  failed(message: string): void;
}

/** Writes versions of the scene while it has unsaved changes; see the module comment. */
export class Autosave {
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

  constructor(
    readonly session: string,
    private readonly storage: AutosaveStorage,
    private readonly host: AutosaveHost,
    options: AutosaveOptions = {},
    private readonly clock: Clock = SYSTEM_CLOCK,
  ) {
    this.settings = autosaveSettings(options);
    this.scheduler = new IdleScheduler(
      this.settings.delaySeconds * 1000,
      () => this.write(),
      clock,
      () => host.idle(),
    );
  }

  get options(): Readonly<Required<AutosaveOptions>> {
    return this.settings;
  }

  setOptions(options: AutosaveOptions): void {
    this.settings = autosaveSettings({ ...this.settings, ...options });
    this.scheduler.setDelay(this.settings.delaySeconds * 1000);
  }

  /** The scene changed (an edit, an undo, a new scene, a stroke's rows). */
  changed(): void {
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

  dispose(): void {
    this.scheduler.dispose();
  }

  private async write(): Promise<void> {
    if (!this.host.unsaved() || this.revision === this.writtenRevision) return;
    const revision = this.revision;
    try {
      const bytes = await this.host.serialize();
      const savedAt = this.clock.now();
      const sequence = ++this.sequence;
      const info: AutosaveInfo = {
        id: `${this.session}-${sequence}`,
        session: this.session,
        sequence,
        savedAt,
        ...this.host.summary(),
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
}
