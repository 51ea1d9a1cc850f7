/**
 * The project the scene belongs to: its file (name, and where Save writes without asking), and whether the scene
 * has changes since it was saved or opened — the undo history's position compared with the saved one, so undoing
 * back to the saved step makes the scene clean again. DOM-free: the shell shows `title()` as the page title
 * (Electron's window title follows it), and autosave and the close guard read `dirty`.
 *
 * Any new scene (store.open: a mesh opened, a demo, a project) starts clean and forgets the file; opening a
 * project then names it with `markOpened`. An edit merged into the saved step (a slider still being dragged)
 * makes the scene dirty until the next save. Settings (method, view, brush) are not edits and do not.
 */
import type { SceneStore } from '../../workers/scene/scene-store.ts';
import type { HistoryEntry, UndoHistory } from '../../workers/scene/undo-history.ts';

/** Where Save writes without asking: a token the desktop shell maps to a path, or a web File System Access handle. */
export type ProjectTarget = { kind: 'token'; token: string } | { kind: 'handle'; handle: unknown };

/** The saved position can no longer be reached by undo or redo. */
const UNREACHABLE = Symbol('unreachable');

export class ProjectSession {
  private name: string | null = null;
  private where: ProjectTarget | null = null;
  /** the undo history's newest entry now (null: the start of the history) */
  private position: HistoryEntry | null;
  private saved: HistoryEntry | null | typeof UNREACHABLE;
  private readonly listeners = new Set<() => void>();

  constructor(store: SceneStore, history: UndoHistory) {
    this.position = history.newest ?? null;
    this.saved = this.position;
    history.subscribe((event) => {
      if (event.kind === 'dropped') return;
      const wasDirty = this.dirty;
      if (event.kind === 'cleared') {
        this.name = null;
        this.where = null;
        this.position = null;
        this.saved = null;
        this.emit();
        return;
      }
      this.position = history.newest ?? null;
      if (this.dirty !== wasDirty) this.emit();
    });
    store.subscribe((change) => {
      if (change.kind !== 'document' || !change.merged) return;
      const wasDirty = this.dirty;
      if (this.saved === this.position) this.saved = UNREACHABLE;
      if (this.dirty !== wasDirty) this.emit();
    });
  }

  /** the project file's name, or null when the scene was never saved as a project */
  get fileName(): string | null {
    return this.name;
  }

  get target(): ProjectTarget | null {
    return this.where;
  }

  /** the scene has changes since it was saved or opened */
  get dirty(): boolean {
    return this.saved !== this.position;
  }

  /** The scene as it is now was written to `fileName`. */
  markSaved(fileName: string, target: ProjectTarget | null): void {
    this.name = fileName;
    this.where = target;
    this.saved = this.position;
    this.emit();
  }

  /** The scene just opened (store.open) came from `fileName`. */
  markOpened(fileName: string, target: ProjectTarget | null): void {
    this.markSaved(fileName, target);
  }

  /**
   * The scene just opened (store.open) is recovered work (an autosave): named `fileName`, or untitled, with no file
   * Save can write without asking, and unsaved until it is saved.
   */
  markRecovered(fileName: string | null): void {
    this.name = fileName;
    this.where = null;
    this.saved = UNREACHABLE;
    this.emit();
  }

  /** The page title: '• hand.rig.glb — Rigwright', the marker only with unsaved changes; the scene's name until saved. */
  title(sceneName: string): string {
    return `${this.dirty ? '• ' : ''}${this.name ?? sceneName} — Rigwright`;
  }

  /** Called when the file name or `dirty` changes. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(): void {
    for (const listener of this.listeners) listener();
  }
}
