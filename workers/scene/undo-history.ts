/**
 * The one undo history of the scene (VS Code's platform/undoRedo model): every edit of the scene — a paint stroke
 * or command, a handle edit, a weight computation, a bone scale — is one labelled entry with undo() and redo().
 * Memory is bounded: entries say how many bytes they hold, and the oldest are dropped past `maxBytes` (the newest
 * is always kept, however large), with a notice. Loading a new scene starts a new history.
 *
 * Several edits can be one step: `group(label, fn)` folds every entry pushed while fn runs (store edits, paint
 * strokes and commands) into one entry, so a script's "normalize, smooth, prune" is undone with one Undo. A run that
 * awaits (a script) uses `openGroup(label)` instead, closed when it ends or aborted (rolled back) when it fails.
 */

export interface HistoryEntry {
  /** what the step did, as the Edit menu shows it after "Undo " / "Redo ": 'Paint stroke', 'Assign handles' */
  readonly label: string;
  /** bytes the entry keeps alive (its saved rows or arrays) */
  readonly bytes: number;
  undo(): void;
  redo(): void;
}

export interface UndoHistoryOptions {
  /** memory bound of all entries, bytes */
  maxBytes?: number;
}

export const UNDO_HISTORY_DEFAULTS: Required<UndoHistoryOptions> = { maxBytes: 512 * 2 ** 20 };

export type HistoryEvent =
  | { kind: 'pushed' | 'undone' | 'redone'; entry: HistoryEntry }
  | { kind: 'dropped'; count: number; bytes: number }
  | { kind: 'cleared'; reason: string; count: number };

export class UndoHistory {
  readonly maxBytes: number;
  private readonly undoStack: HistoryEntry[] = [];
  private readonly redoStack: HistoryEntry[] = [];
  private heldBytes = 0;
  private start: string | null = null;
  /** the entries pushed inside each open group, outermost first */
  private readonly open: HistoryEntry[][] = [];
  private readonly listeners = new Set<(event: HistoryEvent) => void>();

  constructor(options: UndoHistoryOptions = {}) {
    this.maxBytes = { ...UNDO_HISTORY_DEFAULTS, ...options }.maxBytes;
  }

  get canUndo(): boolean {
    return this.undoStack.length > 0;
  }

  get canRedo(): boolean {
    return this.redoStack.length > 0;
  }

  get undoLabel(): string | null {
    return this.undoStack.at(-1)?.label ?? null;
  }

  get redoLabel(): string | null {
    return this.redoStack.at(-1)?.label ?? null;
  }

  /**
   * The entry Undo would undo now; inside a group, the newest entry pushed in the innermost group (undefined when it
   * has none yet). The store merges an edit into the newest entry only, so an edit inside a group never merges into
   * a step outside it, and a group's own entry, being new, is never merged into.
   */
  get newest(): HistoryEntry | undefined {
    const group = this.open.at(-1);
    return group ? group.at(-1) : this.undoStack.at(-1);
  }

  /** whether a group is open (its entries are pushed as one when it closes) */
  get grouping(): boolean {
    return this.open.length > 0;
  }

  /** what the history starts from: the reason of the last clear ('Opened', 'opened hand.off'), or null */
  get origin(): string | null {
    return this.start;
  }

  get undoCount(): number {
    return this.undoStack.length;
  }

  get redoCount(): number {
    return this.redoStack.length;
  }

  /** bytes held by both stacks */
  get bytes(): number {
    return this.heldBytes;
  }

  /** The labels of the undo stack, oldest first (the history list and tests). */
  undoLabels(): string[] {
    return this.undoStack.map((e) => e.label);
  }

  /** Records an edit that has already been applied; the redo stack is discarded. Inside a group, the group keeps it. */
  push(entry: HistoryEntry): void {
    const group = this.open.at(-1);
    if (group) {
      group.push(entry);
      return;
    }
    for (const undone of this.redoStack) this.heldBytes -= undone.bytes;
    this.redoStack.length = 0;
    this.undoStack.push(entry);
    this.heldBytes += entry.bytes;
    this.emit({ kind: 'pushed', entry });
    let count = 0;
    let bytes = 0;
    while (this.heldBytes > this.maxBytes && this.undoStack.length > 1) {
      const oldest = this.undoStack.shift()!;
      this.heldBytes -= oldest.bytes;
      bytes += oldest.bytes;
      count++;
    }
    if (count > 0) this.emit({ kind: 'dropped', count, bytes });
  }

  /**
   * Runs `fn` and makes every entry pushed meanwhile one entry labelled `label`: its undo undoes them newest first,
   * its redo redoes them in order, its bytes are theirs. A group inside a group folds into the outer one; a group in
   * which nothing was pushed pushes nothing. If fn throws, what it pushed is undone (newest first) and the error
   * rethrown, so the scene is as before.
   *
   * fn must be synchronous: only what is pushed before it returns can be grouped, so a promise returned is refused
   * (its synchronous part rolled back). Paint commands other than mirroring push before their first await.
   * @returns what fn returns
   * @throws Error when fn returns a promise; whatever fn throws
   */
  group<T>(label: string, fn: () => T): T {
    const entries: HistoryEntry[] = [];
    this.open.push(entries);
    let result: T;
    try {
      result = fn();
      if (result instanceof Promise) {
        // The promise may push later, outside the group: nothing of it is kept.
        result.catch(() => undefined);
        throw new Error(`history.group(${JSON.stringify(label)}): the function must be synchronous, it returned a promise`);
      }
    } catch (error) {
      this.close(entries, label);
      for (let i = entries.length - 1; i >= 0; i--) entries[i].undo();
      throw error;
    }
    this.close(entries, label);
    this.fold(label, entries);
    return result;
  }

  /**
   * Opens a group that stays open across awaits (a script run): every entry pushed until it is closed or aborted —
   * store edits, paint strokes, commands, and `group`s run meanwhile, which fold into it — is kept by it. `close()`
   * makes them one entry labelled `label` (nothing pushed: nothing, and it returns false); `abort()` undoes them
   * newest first and drops them, so the scene is as before the group opened. Undo and redo are refused while it is
   * open. Groups close in the order they opened: a group opened inside it must end first.
   * @returns the group's two ends; each may be called once (a second call, or the other after one, throws)
   */
  openGroup(label: string): { close(): boolean; abort(): void } {
    const entries: HistoryEntry[] = [];
    this.open.push(entries);
    let ended = false;
    const end = (how: string) => {
      if (ended) throw new Error(`history.openGroup(${JSON.stringify(label)}): ${how} after the group ended`);
      this.close(entries, label);
      ended = true;
    };
    return {
      close: () => {
        end('close');
        return this.fold(label, entries);
      },
      abort: () => {
        end('abort');
        for (let i = entries.length - 1; i >= 0; i--) entries[i].undo();
      },
    };
  }

  /**
   * Pushes the entries of a group that has just closed as one entry (into the enclosing group when there is one).
   * @returns whether anything was pushed
   */
  private fold(label: string, entries: HistoryEntry[]): boolean {
    if (entries.length === 0) return false;
    if (this.open.length > 0) {
      // Nested: the outer group takes them as they are (its own entry is the one step).
      this.open[this.open.length - 1].push(...entries);
      return true;
    }
    this.push({
      label,
      bytes: entries.reduce((sum, entry) => sum + entry.bytes, 0),
      undo: () => {
        for (let i = entries.length - 1; i >= 0; i--) entries[i].undo();
      },
      redo: () => {
        for (const entry of entries) entry.redo();
      },
    });
    return true;
  }

  /** Closes the innermost group, which must be `entries` (groups close in the order they opened). */
  private close(entries: HistoryEntry[], label: string): void {
    if (this.open.at(-1) !== entries)
      throw new Error(`history: the group ${JSON.stringify(label)} was closed while a group opened after it was still open`);
    this.open.pop();
  }

  /** Undoes the newest entry. @returns false when there is nothing to undo @throws Error inside a group */
  undo(): boolean {
    if (this.open.length > 0) throw new Error('history: cannot undo while a group of edits is open');
    const entry = this.undoStack.pop();
    if (!entry) return false;
    entry.undo();
    this.redoStack.push(entry);
    this.emit({ kind: 'undone', entry });
    return true;
  }

  /** Redoes the newest undone entry. @returns false when there is nothing to redo @throws Error inside a group */
  redo(): boolean {
    if (this.open.length > 0) throw new Error('history: cannot redo while a group of edits is open');
    const entry = this.redoStack.pop();
    if (!entry) return false;
    entry.redo();
    this.undoStack.push(entry);
    this.emit({ kind: 'redone', entry });
    return true;
  }

  /** Starts over (a new scene): every entry is dropped. @param reason  said in the notice */
  clear(reason: string): void {
    const count = this.undoStack.length + this.redoStack.length;
    this.undoStack.length = 0;
    this.redoStack.length = 0;
    this.heldBytes = 0;
    // A new scene inside a group: what the group had pushed belongs to the scene that is gone.
    for (const group of this.open) group.length = 0;
    this.start = reason;
    this.emit({ kind: 'cleared', reason, count });
  }

  subscribe(listener: (event: HistoryEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(event: HistoryEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}

/** Bytes of the typed arrays among `values` (each array counted once), for HistoryEntry.bytes. */
export function bytesOf(...values: unknown[]): number {
  const seen = new Set<ArrayBufferLike>();
  let bytes = 0;
  for (const value of values) {
    if (ArrayBuffer.isView(value) && !seen.has(value.buffer)) {
      seen.add(value.buffer);
      bytes += value.byteLength;
    }
  }
  return bytes;
}
