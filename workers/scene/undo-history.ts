/**
 * The one undo history of the scene (VS Code's platform/undoRedo model): every edit of the scene — a paint stroke
 * or command, a handle edit, a weight computation, a bone scale — is one labelled entry with undo() and redo().
 * Memory is bounded: entries say how many bytes they hold, and the oldest are dropped past `maxBytes` (the newest
 * is always kept, however large), with a notice. Loading a new scene starts a new history.
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

  /** the entry Undo would undo now */
  get newest(): HistoryEntry | undefined {
    return this.undoStack.at(-1);
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

  /** Records an edit that has already been applied; the redo stack is discarded. */
  push(entry: HistoryEntry): void {
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

  /** Undoes the newest entry. @returns false when there is nothing to undo */
  undo(): boolean {
    const entry = this.undoStack.pop();
    if (!entry) return false;
    entry.undo();
    this.redoStack.push(entry);
    this.emit({ kind: 'undone', entry });
    return true;
  }

  /** Redoes the newest undone entry. @returns false when there is nothing to redo */
  redo(): boolean {
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
