/**
 * Project files in the app: Open, Save (to the same file), Save As, Recent files, and the page title with the
 * file name and an unsaved-changes marker. A project holds the scene with its example shapes
 * (workers/formats/project-file.ts) and the settings the app shows it with (skinning method — per-face Eq. 9 or
 * Eq. 10 among them —, view, brush, locks, the per-vertex blend map, export settings, the pose-space kernel). Opening one is a new scene whose undo history starts at "Opened"; a file that fails to read
 * changes nothing.
 */
import type { OpenedFile, ProjectFileRef, RigwrightBridge } from '../../app/ipc-contract.ts';
import { PROJECT_FILE_SUFFIX, readProjectFile, writeProjectFile, type ProjectContents } from '../../workers/formats/project-file.ts';
import { errorMessage } from '../../workers/scene/scene-document.ts';
import { documentFromProject, projectSceneOf } from '../../workers/scene/project-document.ts';
import type { SceneStore } from '../../workers/scene/scene-store.ts';
import type { UndoHistory } from '../../workers/scene/undo-history.ts';
import { ProjectSession, type ProjectTarget } from '../project/project-session.ts';
import type { SettingsStore } from '../project/settings-store.ts';
import type { NoticeAction } from '../panels/notice.ts';
import { countOf } from '../project/plain-number.ts';

/** The history's first step after a project is opened. */
export const OPENED_REASON = 'Opened';

/** What project files need of the app. */
export interface ProjectFilesHost {
  readonly store: SceneStore;
  readonly history: UndoHistory;
  /** the session's settings: a project saves their snapshot and gives its own back */
  readonly settings: SettingsStore;
  readonly bridge: Pick<RigwrightBridge, 'projects' | 'openFiles' | 'saveFile'>;
  readonly notice: { show(title: string, lines: readonly string[], actions?: readonly NoticeAction[]): void };
  /** the question before unsaved work goes */
  readonly work: { readonly guard: { mayDiscard(): Promise<boolean> } };
  /** painting in progress reaches the scene's weights */
  readonly paint: { flush(): void };
  /** the weights were painted since they were computed or loaded (the status line's ", painted") */
  readonly weightsPainted: boolean;
  /** an opened project's weights were painted */
  markWeightsPainted(): void;
  setError(message: string | null): void;
  refreshChrome(): void;
  renderNow(): void;
}

export class ProjectFiles {
  readonly session: ProjectSession;
  /** recent project files, newest first (as the bridge last said) */
  recent: ProjectFileRef[] = [];
  /** a save or open in progress */
  busy = false;

  constructor(private readonly app: ProjectFilesHost) {
    this.session = new ProjectSession(app.store, app.history);
    this.session.onChange(() => {
      this.showTitle();
      app.refreshChrome();
    });
    void this.refreshRecent();
  }

  /** The scene and the settings it is shown with, now (the arrays are the scene's own: do not change them). */
  contents(): Omit<ProjectContents, 'formatVersion'> {
    return { scene: projectSceneOf(this.app.store.doc, this.app.weightsPainted), settings: this.app.settings.snapshot() };
  }

  /** The project file of the scene now. */
  encode(fileName = this.suggestedName()): Promise<Uint8Array> {
    this.app.paint.flush();
    return writeProjectFile(this.contents(), fileName);
  }

  /** `<scene>.rig.glb`, or the project's own name. */
  suggestedName(): string {
    if (this.session.fileName) return this.session.fileName;
    const base = this.app.store.doc.name.replace(/\.[^.]*$/, '').replace(/[\\/:*?"<>|\p{Cc}]/gu, '_') || 'rig';
    return `${base}${PROJECT_FILE_SUFFIX}`;
  }

  /**
   * Opens project bytes as a new scene (history "Opened", or `reason`) with its settings.
   * @param target  where Save writes it again (null: Save asks)
   * @throws FormatError or LoadError naming the file, the place and the reason; the scene is then unchanged
   */
  async openBytes(name: string, bytes: Uint8Array, target: ProjectTarget | null, reason = OPENED_REASON): Promise<void> {
    const contents = readProjectFile(bytes, name);
    // The locks are the document's (undoable, renumbered with the bones); the file keeps them with the settings.
    const doc = documentFromProject(contents.scene, contents.settings);
    const { app } = this;
    app.setError(null);
    app.store.open(doc, reason);
    if (contents.scene.weightsPainted) app.markWeightsPainted();
    app.settings.restore(contents.settings);
    this.session.markOpened(name, target);
    app.renderNow();
    // What reading corrected (rotations renormalised, weight rows made to sum to 1) comes before the earlier warnings.
    const { notices } = contents;
    if (notices.length > 0 || doc.warnings.length > 0) {
      const corrected = notices.length > 0 ? countOf(notices.length, 'correction') : '';
      const earlier = doc.warnings.length > 0 ? countOf(doc.warnings.length, 'earlier warning') : '';
      app.notice.show(`Opened ${name} with ${[corrected, earlier].filter(Boolean).join(' and ')}`, [...notices, ...doc.warnings]);
    }
    await Promise.resolve();
  }

  /** Open project… : a dialog, then the file as a new scene. */
  async open(token?: string): Promise<void> {
    if (!(await this.app.work.guard.mayDiscard())) return;
    const projects = this.app.bridge.projects;
    await this.guard(async () => {
      if (projects) {
        const file = await projects.open(token);
        if (file) await this.openBytes(file.name, file.bytes, file.token ? { kind: 'token', token: file.token } : null);
      } else {
        const [file] = await this.app.bridge.openFiles({ title: 'Open project', extensions: ['glb'] });
        if (file) await this.openBytes(file.name, file.bytes, null);
      }
    });
    await this.refreshRecent();
  }

  /**
   * Recent file `index` (0 = the newest). One that cannot be read (moved, renamed, deleted, not allowed) changes
   * nothing and is named in a notice with the reason and, where the list can keep it (the web page), an offer to
   * remove it from the list.
   */
  async openRecent(index: number): Promise<void> {
    const ref = this.recent[index];
    if (!ref) return;
    const projects = this.app.bridge.projects;
    if (!ref.token || !projects) return this.open();
    if (!(await this.app.work.guard.mayDiscard())) return;
    await this.guard(async () => {
      let file: Awaited<ReturnType<typeof projects.open>>;
      try {
        file = await projects.open(ref.token);
      } catch (error) {
        this.unreadableRecent(ref, error);
        return;
      }
      if (file) await this.openBytes(file.name, file.bytes, file.token ? { kind: 'token', token: file.token } : null);
    });
    await this.refreshRecent();
  }

  /** Removes a file from the recent list (the file itself is not touched). */
  async forgetRecent(ref: ProjectFileRef): Promise<void> {
    await this.app.bridge.projects?.forget?.(ref.token);
    await this.refreshRecent();
  }

  /** The notice for a recent file that could not be read: its name, the bridge's reason, and Remove where it can. */
  private unreadableRecent(ref: ProjectFileRef, error: unknown): void {
    const remove = { label: 'Remove from recent files', run: () => void this.forgetRecent(ref) };
    this.app.notice.show(
      `The recent project ${ref.name} could not be opened`,
      [errorMessage(error)],
      this.app.bridge.projects?.forget ? [remove] : [],
    );
  }

  /** A dropped or imported project file (no way to write it again: Save asks). */
  async openDropped(file: OpenedFile): Promise<void> {
    if (!(await this.app.work.guard.mayDiscard())) return;
    return this.guard(() => this.openBytes(file.name, file.bytes, null));
  }

  /** Save: to the project's file when it has one, else Save As. @returns whether the file was written */
  save(): Promise<boolean> {
    const target = this.session.target;
    return this.write(target?.kind === 'token' ? target.token : undefined);
  }

  /** Save As: always asks where. */
  saveAs(): Promise<boolean> {
    return this.write(undefined);
  }

  private async write(token: string | undefined): Promise<boolean> {
    let written = false;
    await this.guard(async () => {
      const suggestedName = this.suggestedName();
      const history = this.app.history.newest;
      const bytes = await this.encode(suggestedName);
      const projects = this.app.bridge.projects;
      let saved: ProjectFileRef | null;
      if (projects) saved = await projects.save({ suggestedName, bytes, ...(token ? { token } : {}) });
      else saved = (await this.app.bridge.saveFile({ suggestedName, bytes })) ? { name: suggestedName, token: '' } : null;
      if (!saved) return;
      // An edit made while the file was written is not in it: the scene stays dirty.
      if (this.app.history.newest === history)
        this.session.markSaved(saved.name, saved.token ? { kind: 'token', token: saved.token } : null);
      written = true;
    });
    await this.refreshRecent();
    return written;
  }

  private async guard(run: () => Promise<void>): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    this.app.refreshChrome();
    try {
      await run();
    } catch (error) {
      this.app.setError(errorMessage(error));
    } finally {
      this.busy = false;
      this.app.refreshChrome();
    }
  }

  async refreshRecent(): Promise<void> {
    try {
      this.recent = (await this.app.bridge.projects?.recent()) ?? [];
    } catch {
      this.recent = [];
    }
    this.app.refreshChrome();
  }

  showTitle(): void {
    if (typeof document !== 'undefined') document.title = this.session.title(this.app.store.doc.name);
  }
}
