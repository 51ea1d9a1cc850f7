/**
 * Nothing is lost on close or crash: the wiring of autosave (project/autosave.ts), crash recovery
 * (project/recovery.ts) and the close guard (project/close-guard.ts) to the app, its storage and its panels.
 *
 * - Autosave: every scene change counts; after the user has been idle for the set delay the scene (with its
 *   settings) is serialized as a project file in the io worker and stored — the desktop app's data folder
 *   through the bridge, or the page's IndexedDB. The delay and the versions kept are a setting (File ›
 *   Autosave settings…), kept in the page's local storage.
 * - Recovery: at start, work left by a session that ended without saving or discarding it is offered.
 * - Close guard: beforeunload on the web, the window's close and the app's quit on the desktop, and
 *   `guard.mayDiscard()` before an in-app action replaces a scene with unsaved changes.
 */
import { boneCountOf, vertexCountOf } from '../document/scene-document.ts';
import { getIoClient } from '../io/io-client.ts';
import { AutosaveSettingsDialog, RecoveryPrompt, SaveChangesDialog } from '../panels/unsaved-work-panels.ts';
import { Autosave, autosaveSettings, type AutosaveOptions, type AutosaveStorage } from '../project/autosave.ts';
import { IndexedDbDatabase, WebAutosaveStorage, WebSessionLocks } from '../project/autosave-storage.ts';
import { CloseGuard } from '../project/close-guard.ts';
import { contentsText, findRecoverable, savedAtText, type Recoverable } from '../project/recovery.ts';
import type { App } from './app.ts';

/** Local-storage key of the autosave settings. */
export const AUTOSAVE_SETTINGS_KEY = 'rigwright.autosave';
/** The undo history's first step after a recovery. */
export const RECOVERED_REASON = 'Recovered';
/** Input that shows the user is busy: the idle wait starts over. */
const ACTIVITY_EVENTS = ['pointerdown', 'pointermove', 'keydown', 'wheel'] as const;

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
  readonly autosave: Autosave;
  readonly guard: CloseGuard;
  readonly prompt: RecoveryPrompt;
  /** what the recovery prompt offers, while it does */
  recoverable: Recoverable | null = null;
  /** resolves once the start-up look for work to recover is done */
  readonly started: Promise<void>;
  /** milliseconds the page's thread spent on the latest autosave (the scene copied to the worker) */
  pauseMs = 0;
  /** edits since the project was opened or saved (undo takes one back) */
  private edits = 0;
  private wasUnsaved = false;
  /** the latest clearing of this session's autosave mark */
  private settling: Promise<void> = Promise.resolve();
  private readonly saveDialog = new SaveChangesDialog();
  private readonly settingsDialog: AutosaveSettingsDialog;

  constructor(private readonly app: App) {
    const { bridge, project } = app;
    this.storage = bridge.autosave ?? new WebAutosaveStorage(new IndexedDbDatabase(), new WebSessionLocks(navigator.locks));
    this.autosave = new Autosave(
      this.session,
      this.storage,
      {
        serialize: () => {
          const start = performance.now();
          app.paint.flush();
          // The contents are cloned into the worker as the call is made: later edits do not reach this version.
          const bytes = getIoClient().encodeProject(project.contents(), project.suggestedName());
          this.pauseMs = performance.now() - start;
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
    this.settingsDialog = new AutosaveSettingsDialog((settings) => this.setSettings(settings));

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
    this.started = this.start().catch((error: unknown) => {
      console.error('Rigwright: cannot look for autosaved work:', error);
    });
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

  /** Opens the offered autosave as the scene, with unsaved changes; this session then holds the work. */
  async recover(): Promise<void> {
    const found = this.recoverable;
    if (!found) return;
    const { version } = found;
    const bytes = await this.storage.read(version.id);
    if (!bytes) throw new Error(`The autosave of ${version.name} is gone (another window may have replaced it)`);
    const { project } = this.app;
    await project.openBytes(version.name, bytes, null, RECOVERED_REASON);
    project.session.markRecovered(version.name === 'untitled' ? null : version.name);
    this.edits = version.editCount;
    this.autosave.changed();
    // Only once this session has the work stored do the ended sessions' marks go.
    await this.autosave.flush();
    for (const session of found.sessions) await this.storage.unmark(session);
    this.recoverable = null;
    this.prompt.hide();
  }

  /** Starts without the offered work; its versions stay until later autosaves replace them. */
  async discardRecovery(): Promise<void> {
    const found = this.recoverable;
    if (!found) return;
    for (const session of found.sessions) await this.storage.unmark(session);
    this.recoverable = null;
    this.prompt.hide();
  }

  private async start(): Promise<void> {
    await this.storage.begin(this.session);
    const found = await findRecoverable(this.storage, this.session);
    if (!found) return;
    this.recoverable = found;
    this.prompt.show(contentsText(found.version), `Autosaved at ${savedAtText(found.version.savedAt, Date.now())}`, {
      recover: () => this.recover(),
      discard: () => this.discardRecovery(),
    });
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
