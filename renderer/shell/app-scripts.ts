/**
 * Scripts in the app: the ScriptController (scripting/script-controller.ts) wired to the app's parts — the scene
 * store, the command registry, the viewport's skinning method, the browser's worker sandbox, the time limit as a user
 * preference — and the app's files for scripts (scripting/app-script-files.ts) answered by the app's own loading,
 * project and export code, with questions asked in the app's notice. The status line and the chrome follow a run.
 */
import type { CommandId } from '../commands/command-catalog.ts';
import { SCRIPT_COMMAND_IDS, scriptDeniedReason } from '../commands/script-access.ts';
import { isCommandId, type CommandRegistry } from '../commands/command-registry.ts';
import { ScriptController, SCRIPT_TIME_LIMIT_PREFERENCE } from '../scripting/script-controller.ts';
import { AppScriptFiles, OUTSIDE, type ScriptExport, type ScriptFilesByPath } from '../scripting/app-script-files.ts';
import { startBrowserSandbox } from '../scripting/browser-sandbox.ts';
import { GLTF_EXPORT_DEFAULTS } from '../../workers/formats/gltf-export.ts';
import { baseName } from '../../workers/formats/file-name.ts';
import type { OpenedFile, RigwrightBridge, ScriptFilesBridge, ScriptWriteAnswer } from '../../app/ipc-contract.ts';
import type { ProjectTarget } from '../project/project-session.ts';
import type { BindOptions } from '../bind/binding-controller.ts';
import type { DeformationController } from '../deform/deformation-controller.ts';
import type { SceneStore } from '../../workers/scene/scene-store.ts';
import type { Notice } from '../panels/notice.ts';
import type { ExportDialog } from '../panels/export-dialog.ts';
import type { PreferenceStore } from '../project/preferences.ts';
import { exportGltf, type ExportHost } from './file-commands.ts';

/** What scripts need of the app. */
export interface AppScriptsHost extends ExportHost {
  readonly exportDialog: Pick<ExportDialog, 'isOpen' | 'open' | 'applySettings' | 'settings'>;
  readonly store: SceneStore;
  readonly commands: CommandRegistry;
  readonly bridge: RigwrightBridge;
  readonly notice: Notice;
  /** the error banner's message, or null */
  readonly error: string | null;
  readonly files: { load(files: OpenedFile[]): Promise<void> };
  readonly project: { encode(fileName: string): Promise<Uint8Array>; readonly session: { readonly target: ProjectTarget | null } };
  readonly preferences: { readonly store: PreferenceStore };
  /** Compute weights and automatic handles: cancelled when a run waiting for them ends early; options put back */
  readonly binding: { cancelBind(): void; readonly options: Required<BindOptions> };
  /** the skinning method the viewport shows: put back when a run that changed it is rolled back */
  readonly deformation: Pick<DeformationController, 'antipodality' | 'method' | 'setMethod'>;
  /** the weight transfers' worker: cancelled when a run waiting for a transfer ends early */
  readonly transferClient: { cancel(): void };
  setError(message: string | null): void;
  refreshChrome(): void;
}

/** The app's script controller; the chrome is redrawn as a run starts, reports progress and ends. */
export function appScripts(app: AppScriptsHost): ScriptController {
  const questions = new NoticeQuestions(app.notice);
  const files = new AppScriptFiles({
    platform: app.bridge.platform,
    get doc() {
      return app.store.doc;
    },
    ask: (title, lines, choices) => questions.ask(title, lines, choices),
    dismissQuestion: () => questions.dismiss(),
    openFiles: (request) => app.bridge.openFiles(request),
    loadFiles: async (opened) => {
      // As File → Import: the banner's last error goes, and a load that fails puts its own there.
      app.setError(null);
      await app.files.load(opened);
      return app.error;
    },
    saveProject: async (name) => {
      const bytes = await app.project.encode(name);
      // The web page downloads it (a File System Access dialog needs the user's own click, which a script is not).
      if (app.bridge.platform === 'web' || !app.bridge.projects)
        return (await app.bridge.saveFile({ suggestedName: name, bytes })) ? name : null;
      return (await app.bridge.projects.save({ suggestedName: name, bytes }))?.name ?? null;
    },
    exportGltf: async (request) => {
      await exportGltf({ ...exportHostOf(app), store: { doc: request.doc } }, exportChoice(request));
      return true;
    },
    exportSettings: () => ({ ...app.exportDialog.settings }),
    ...(app.bridge.scriptFiles ? { byPath: filesByPath(app, app.bridge.scriptFiles) } : {}),
  });
  const scripts = new ScriptController({
    store: app.store,
    execute: (id, argument) => {
      if (!isCommandId(id)) throw new Error(`rig.execute: there is no command ${JSON.stringify(id)}`);
      return (app.commands.execute as (id: CommandId, argument: unknown) => unknown)(id, argument);
    },
    commandIds: SCRIPT_COMMAND_IDS,
    deniedReason: scriptDeniedReason,
    files,
    skinMethod: () => (app.deformation.method.includes('dqs') ? 'dqs' : 'lbs'),
    startSandbox: startBrowserSandbox,
    timeLimit: app.preferences.store.register(SCRIPT_TIME_LIMIT_PREFERENCE),
    // Stop and the time limit cancel what the run waits for, as Bind → Cancel and a transfer's cancel do.
    cancelCommand: (id) => {
      if (id.startsWith('bind.')) app.binding.cancelBind();
      else if (id.startsWith('weights.transferFrom')) app.transferClient.cancel();
    },
    // bind.options and skin.method change these in place (no undo step): a rolled-back run puts them back.
    keepSettings: () => {
      const binding = { ...app.binding.options };
      const method = app.deformation.method;
      return () => {
        Object.assign(app.binding.options, binding);
        if (app.deformation.method !== method) app.deformation.setMethod(method);
      };
    },
  });
  scripts.onRunningChange(() => app.refreshChrome());
  scripts.onOutput((output) => {
    if (output.kind === 'progress') app.refreshChrome();
  });
  return scripts;
}

/**
 * The desktop app's files by the script's path (the shell's scriptFiles channels), in the folder of the project the
 * scene is saved as, else of the scene's files.
 */
function filesByPath(app: AppScriptsHost, shell: ScriptFilesBridge): ScriptFilesByPath {
  const project = (): { project?: string } => {
    const target = app.project.session.target;
    return target?.kind === 'token' ? { project: target.token } : {};
  };
  const written = (answer: ScriptWriteAnswer): string | typeof OUTSIDE => ('outside' in answer ? OUTSIDE : answer.written);
  return {
    read: async (path, outside) => {
      const answer = await shell.read({ path, outside, ...project() });
      return 'outside' in answer ? OUTSIDE : answer.files;
    },
    saveProject: async (path, outside) => {
      const bytes = await app.project.encode(baseName(path));
      return written(await shell.write({ path, outside, bytes, ...project() }));
    },
    exportGltf: async (path, request, outside) => {
      // File → Export's code, its Save dialog replaced by the write to the path.
      let answer: ScriptWriteAnswer | null = null;
      const bridge: RigwrightBridge = {
        ...app.bridge,
        saveFile: async ({ bytes }) => 'written' in (answer = await shell.write({ path, outside, bytes, ...project() })),
        saveAsset: async ({ bytes, resources }) =>
          'written' in (answer = await shell.write({ path, outside, bytes, resources, ...project() })),
      };
      await exportGltf({ ...exportHostOf(app), bridge, store: { doc: request.doc } }, exportChoice(request));
      if (answer === null) throw new Error(`files.exportGltf: ${request.fileName} was not written`);
      return written(answer);
    },
  };
}

/** The export host's fields, read when the export runs. */
function exportHostOf(app: AppScriptsHost): ExportHost {
  return {
    exportDialog: app.exportDialog,
    deformation: app.deformation,
    store: app.store,
    influenceSetting: app.influenceSetting,
    maxInfluences: app.maxInfluences,
    posespace: app.posespace,
    bridge: app.bridge,
    notice: app.notice,
  };
}

/** File → Export's choice for a script's export: the animation included, nothing baked, no compression. */
function exportChoice(request: ScriptExport): Parameters<typeof exportGltf>[1] {
  return {
    fileName: request.fileName,
    format: request.format,
    influences: request.influences,
    weightComponent: request.weightComponent,
    compression: GLTF_EXPORT_DEFAULTS.compression,
    includeClip: true,
    bake: false,
  };
}

/**
 * Questions in the app's notice: its buttons answer; the notice dismissed, or another shown in its place, leaves the
 * question unanswered (-1). Escape with the focus on the notice's buttons dismisses the question alone (data-own-keys:
 * the window's key table, which would stop the script, leaves it), and the run goes on.
 */
class NoticeQuestions {
  private pending: ((answer: number) => void) | null = null;

  constructor(private readonly notice: Notice) {}

  ask(title: string, lines: readonly string[], choices: readonly string[]): Promise<number> {
    this.dismiss();
    return new Promise((resolve) => {
      let stopListening = (): void => {};
      const observer = new MutationObserver(() => {
        if (this.notice.element.hidden) settle(-1);
      });
      const escape = (event: KeyboardEvent): void => {
        if (event.key === 'Escape' && !event.isComposing) this.dismiss();
      };
      const settle = (answer: number): void => {
        if (this.pending !== settle) return;
        this.pending = null;
        stopListening();
        observer.disconnect();
        this.notice.element.removeEventListener('keydown', escape);
        for (const button of this.notice.element.querySelectorAll('button')) delete button.dataset.ownKeys;
        resolve(answer);
      };
      this.pending = settle;
      this.notice.show(
        title,
        lines,
        choices.map((label, i) => ({ label, run: () => settle(i) })),
      );
      const asked = this.notice.records.at(-1);
      stopListening = this.notice.onChange(() => {
        if (this.notice.records.at(-1) !== asked) settle(-1);
      });
      observer.observe(this.notice.element, { attributes: true, attributeFilter: ['hidden'] });
      for (const button of this.notice.element.querySelectorAll('button')) button.dataset.ownKeys = 'Escape';
      this.notice.element.addEventListener('keydown', escape);
    });
  }

  /** The question asked now, if any, goes unanswered (its notice is hidden). */
  dismiss(): void {
    const pending = this.pending;
    if (!pending) return;
    pending(-1);
    this.notice.hide();
  }
}
