/**
 * Nothing is lost on close or crash: the wiring of autosave (project/autosave.ts), crash recovery
 * (project/recovery.ts) and the close guard (project/close-guard.ts) to the app, its storage and its panels.
 *
 * - Autosave: every scene change counts; after the user has been idle for the set delay, or at the latest the set
 *   maximum wait after the first change not yet stored, the scene (with its settings) is copied a slice per task,
 *   its copy moved to the io worker and encoded there as a project file, and stored — the desktop app's data folder
 *   through the bridge, or the page's IndexedDB in chunks.
 *   The delay, the maximum wait and the versions kept are a setting (File › Autosave settings…), kept in the page's
 *   local storage. A storage that cannot be used turns autosave off for the page, with a notice saying why.
 * - Recovery: at start, work left by a session that ended without saving or discarding it is offered: every kept
 *   version, newest first; one that cannot be read as a project is marked damaged and the newest readable offered.
 * - Close guard: beforeunload on the web, the window's close and the app's quit on the desktop, and
 *   `guard.mayDiscard()` before an in-app action replaces a scene with unsaved changes.
 */
import { transfer } from 'comlink';
import type { AutosaveInfo, RigwrightBridge } from '../../app/ipc-contract.ts';
import type { SceneStore } from '../../workers/scene/scene-store.ts';
import type { UndoHistory } from '../../workers/scene/undo-history.ts';
import { readProjectFile, type ProjectContents } from '../../workers/formats/project-file.ts';
import { boneCountOf, errorMessage, fileErrorMessage, vertexCountOf } from '../../workers/scene/scene-document.ts';
import { getIoClient } from '../io/io-client.ts';
import { AutosaveSettingsDialog, RecoveryPrompt, SaveChangesDialog } from '../panels/unsaved-work-panels.ts';
import { Autosave, autosaveSettings, type AutosaveOptions, type AutosaveStorage } from '../project/autosave.ts';
import { IndexedDbDatabase, WebAutosaveStorage, WebSessionLocks } from '../project/autosave-storage.ts';
import { CloseGuard } from '../project/close-guard.ts';
import { contentsText, findRecoverable, firstReadable, readVersion, savedAtText, type Recoverable } from '../project/recovery.ts';
import type { ProjectSession, ProjectTarget } from '../project/project-session.ts';

/** What autosave, recovery and the close guard need of the app. */
export interface UnsavedWorkHost {
  readonly store: SceneStore;
  readonly history: UndoHistory;
  readonly bridge: RigwrightBridge;
  readonly viewport: { readonly renderer: { readonly domElement: HTMLElement } };
  readonly notice: { show(title: string, lines: readonly string[]): void };
  /** painting in progress reaches the scene's weights */
  readonly paint: { flush(): void };
  readonly tools: { context(): { toolBusy?: boolean } };
  readonly commands: { invoke(id: 'file.autosave', settings: AutosaveOptions): unknown };
  /** the project file: what it holds, how it is named, opened and saved */
  readonly project: {
    readonly session: ProjectSession;
    contents(): Omit<ProjectContents, 'formatVersion'>;
    suggestedName(): string;
    save(): Promise<boolean>;
    openBytes(name: string, bytes: Uint8Array, target: ProjectTarget | null, reason?: string): Promise<void>;
  };
}

type ProjectContentsToWrite = Omit<ProjectContents, 'formatVersion'>;

/** Local-storage key of the autosave settings. */
export const AUTOSAVE_SETTINGS_KEY = 'rigwright.autosave';
/** The undo history's first step after a recovery. */
export const RECOVERED_REASON = 'Recovered';
/** Input that shows the user is busy: the idle wait starts over. */
const ACTIVITY_EVENTS = ['pointerdown', 'pointermove', 'keydown', 'wheel'] as const;

/** Whether an autosave can be opened: its bytes read as a project file (throws, naming the file, when not). */
function checkProject(bytes: Uint8Array, version: AutosaveInfo): void {
  try {
    readProjectFile(bytes, version.name);
  } catch (error) {
    throw new Error(fileErrorMessage(error, version.name), { cause: error });
  }
}

function storedSettings(): AutosaveOptions {
  try {
    return autosaveSettings(JSON.parse(localStorage.getItem(AUTOSAVE_SETTINGS_KEY) ?? '{}') as AutosaveOptions);
  } catch {
    return autosaveSettings();
  }
}

export class UnsavedWork {
  /** this page's autosave session */
  readonly session = crypto.randomUUID();
  readonly storage: AutosaveStorage;
  readonly autosave: Autosave<ProjectContentsToWrite>;
  readonly guard: CloseGuard;
  readonly prompt: RecoveryPrompt;
  /** what the recovery prompt offers, while it does */
  recoverable: Recoverable | null = null;
  /** the offered version Recover opens unless another is picked (the newest readable), or null when none is */
  selected: AutosaveInfo | null = null;
  /** resolves once the start-up look for work to recover is done */
  readonly started: Promise<void>;
  /**
   * the longest the page's thread was held at once by the latest autosave's own steps (a slice of the scene's copy,
   * or its hand-over to the worker), ms
   */
  pauseMs = 0;
  /** edits since the project was opened or saved (undo takes one back) */
  private edits = 0;
  private wasUnsaved = false;
  /** the latest clearing of this session's autosave mark */
  private settling: Promise<void> = Promise.resolve();
  private readonly saveDialog = new SaveChangesDialog();
  private readonly settingsDialog: AutosaveSettingsDialog;
  /** records of the web storage skipped as malformed, as the notice lists them */
  private readonly skippedRecords: string[] = [];

  constructor(private readonly app: UnsavedWorkHost) {
    const { bridge, project } = app;
    this.storage =
      bridge.autosave ??
      new WebAutosaveStorage(new IndexedDbDatabase(), new WebSessionLocks(navigator.locks), undefined, (message) => this.skipped(message));
    this.autosave = new Autosave(
      this.session,
      this.storage,
      {
        contents: () => {
          app.paint.flush();
          return project.contents();
        },
        encode: (snapshot) => {
          const start = performance.now();
          // The copy's buffers move to the worker: only the small objects around them are cloned.
          const bytes = getIoClient().encodeProject(transfer(snapshot.contents, snapshot.buffers), project.suggestedName());
          this.pauseMs = Math.max(performance.now() - start, this.autosave.snapshotStats?.longestSliceMs ?? 0);
          return bytes;
        },
        summary: () => {
          const doc = app.store.doc;
          return {
            name: project.session.fileName ?? 'untitled',
            vertexCount: vertexCountOf(doc),
            boneCount: boneCountOf(doc),
            editCount: this.edits,
          };
        },
        unsaved: () => project.session.dirty,
        idle: () => !app.tools.context().toolBusy,
        failed: (message) => {
          console.error(message);
          app.notice.show(message, ['Your work is not lost while this window stays open; save the project to keep it.']);
        },
      },
      storedSettings(),
    );
    this.guard = new CloseGuard({
      unsaved: () => project.session.dirty,
      ask: () => this.saveDialog.ask(project.session.fileName ?? app.store.doc.name),
      save: () => project.save(),
      discarded: () => this.autosave.settled(),
    });
    this.prompt = new RecoveryPrompt(app.viewport.renderer.domElement.parentElement!);
    // The dialog changes the settings as a script would: through the command.
    this.settingsDialog = new AutosaveSettingsDialog((settings) => void app.commands.invoke('file.autosave', settings));

    app.store.subscribe(() => this.autosave.changed());
    app.history.subscribe((event) => {
      if (event.kind === 'pushed' || event.kind === 'redone') this.edits++;
      else if (event.kind === 'undone') this.edits = Math.max(0, this.edits - 1);
      else if (event.kind === 'cleared') this.edits = 0;
    });
    project.session.onChange(() => this.unsavedChanged());
    for (const type of ACTIVITY_EVENTS) window.addEventListener(type, () => this.autosave.activity(), { capture: true, passive: true });
    if (bridge.platform === 'web') window.addEventListener('beforeunload', (event) => this.guard.beforeUnload(event));
    bridge.onCloseRequest?.(() => {
      // After Save, the autosave mark is cleared before the window goes (a quit may end the process right after).
      void this.guard.mayDiscard().then(
        async (close) => {
          await this.settling;
          bridge.answerClose?.(close);
        },
        () => bridge.answerClose?.(false),
      );
    });
    this.started = this.start().catch((error: unknown) => this.turnOff(error));
  }

  get settings(): Readonly<Required<AutosaveOptions>> {
    return this.autosave.options;
  }

  /** Applies and keeps the autosave settings (values out of range come back into range). */
  setSettings(options: AutosaveOptions): void {
    this.autosave.setOptions(options);
    try {
      localStorage.setItem(AUTOSAVE_SETTINGS_KEY, JSON.stringify(this.autosave.options));
    } catch {
      // storage refused (private mode): the setting holds for this page only
    }
  }

  openSettings(): void {
    this.settingsDialog.open(this.autosave.options);
  }

  /**
   * Opens an offered autosave (by default the selected one) as the scene, with unsaved changes; this session then
   * holds the work. One that cannot be opened is marked damaged and the next readable one selected.
   * @throws saying which version could not be opened, why, and which is selected now
   */
  async recover(id = this.selected?.id): Promise<void> {
    const found = this.recoverable;
    const version = found?.versions.find((v) => v.id === id);
    if (!found || !version) return;
    const { project } = this.app;
    const bytes = await readVersion(this.storage, found, version, checkProject);
    try {
      if (!bytes) throw new Error(found.damaged.get(version.id));
      await project.openBytes(version.name, bytes, null, RECOVERED_REASON);
    } catch (error) {
      if (bytes) found.damaged.set(version.id, fileErrorMessage(error, version.name));
      const next =
        (await firstReadable(this.storage, found, checkProject, version)) ?? (await firstReadable(this.storage, found, checkProject));
      this.selected = next?.version ?? null;
      const now = Date.now();
      const then = next
        ? `The one autosaved at ${savedAtText(next.version.savedAt, now)} is selected.`
        : 'No other kept autosave can be opened.';
      const message = `The autosave of ${savedAtText(version.savedAt, now)} cannot be opened: ${found.damaged.get(version.id)}. ${then}`;
      this.showOffer(message);
      throw new Error(message, { cause: error });
    }
    project.session.markRecovered(version.name === 'untitled' ? null : version.name);
    this.edits = version.editCount;
    this.autosave.changed();
    // Only once this session has the work stored do the ended sessions' marks go.
    await this.autosave.flush();
    for (const session of found.sessions) await this.storage.unmark(session);
    this.recoverable = null;
    this.selected = null;
    this.prompt.hide();
  }

  /** Starts without the offered work; its versions stay until later autosaves replace them. */
  async discardRecovery(): Promise<void> {
    const found = this.recoverable;
    if (!found) return;
    for (const session of found.sessions) await this.storage.unmark(session);
    this.recoverable = null;
    this.selected = null;
    this.prompt.hide();
  }

  private async start(): Promise<void> {
    await this.storage.begin(this.session);
    const found = await findRecoverable(this.storage, this.session);
    if (!found) return;
    this.recoverable = found;
    this.selected = (await firstReadable(this.storage, found, checkProject))?.version ?? null;
    const newest = found.versions[0];
    const damaged = found.damaged.get(newest.id);
    const now = Date.now();
    const then = this.selected
      ? `The newest that can, autosaved at ${savedAtText(this.selected.savedAt, now)}, is selected.`
      : 'None of the kept autosaves can be opened.';
    this.showOffer(
      damaged === undefined ? '' : `The newest autosave, of ${savedAtText(newest.savedAt, now)}, cannot be opened: ${damaged}. ${then}`,
    );
  }

  /** The recovery prompt with the kept versions as known now (damaged ones marked) and the selected one. */
  private showOffer(message: string): void {
    const found = this.recoverable;
    if (!found) return;
    const now = Date.now();
    const choices = found.versions.map((v) => ({
      id: v.id,
      what: contentsText(v),
      when: `Autosaved at ${savedAtText(v.savedAt, now)}`,
      damaged: found.damaged.get(v.id) ?? null,
    }));
    this.prompt.show(choices, this.selected?.id ?? null, message, {
      recover: (id) => this.recover(id),
      discard: () => this.discardRecovery(),
    });
  }

  /** The autosave storage cannot be used (IndexedDB refused, the data folder unreadable): autosave is off, and said so. */
  private turnOff(error: unknown): void {
    const reason = errorMessage(error);
    console.warn('Rigwright: autosave is off:', reason);
    this.autosave.turnOff(reason);
    this.app.notice.show('Autosave is off', [
      reason,
      'Nothing of your work is kept if this page closes or crashes: save the project to keep it.',
    ]);
  }

  /** A malformed record of the web storage was skipped: listed in a notice (each record once). */
  private skipped(message: string): void {
    console.warn(`Rigwright: ${message}`);
    this.skippedRecords.push(message);
    this.app.notice.show('Autosave records skipped (not written by this version of Rigwright, or damaged)', this.skippedRecords);
  }

  private unsavedChanged(): void {
    const unsaved = this.app.project.session.dirty;
    if (unsaved === this.wasUnsaved) return;
    this.wasUnsaved = unsaved;
    this.app.bridge.setUnsaved?.(unsaved);
    if (!unsaved) {
      // Saved, undone back to the saved step, or a new scene: nothing of this session is left to recover.
      this.edits = 0;
      this.settling = this.autosave.settled().catch((error: unknown) => console.error('Rigwright: autosave mark not cleared:', error));
    }
  }
}
