/**
 * The file and edit commands: projects (open, save, recent), imports, the glTF export and its weight settings,
 * autosave settings, the twist demo, and undo / redo of the one history.
 */
import { BAKEABLE_SKIN_METHODS, bakeFrameCount, type BakeableSkinMethod } from '../../workers/formats/gltf-skinning-bake.ts';
import { GLTF_EXPORT_DEFAULTS } from '../../workers/formats/gltf-export.ts';
import { vertexAnimationCost } from '../../workers/formats/gltf-vertex-animation.ts';
import { vertexCountOf } from '../../workers/scene/scene-document.ts';
import type { SceneStore } from '../../workers/scene/scene-store.ts';
import type { UndoHistory } from '../../workers/scene/undo-history.ts';
import type { RigwrightBridge } from '../../app/ipc-contract.ts';
import type { ArgumentOf } from '../commands/command-catalog.ts';
import type { MaxInfluences } from '../bind/max-influences.ts';
import type { HandlerOf } from '../commands/command-registry.ts';
import type { HandlersFor } from '../commands/command-handlers.ts';
import { METHOD_LABELS, type SkinMethod } from '../deform/skin-methods.ts';
import { clipNameOf, exportSceneAsGltf, sceneClips } from '../io/gltf-export-action.ts';
import { getIoClient } from '../io/io-client.ts';
import type { ExportChoice, ExportDialog } from '../panels/export-dialog.ts';
import type { Notice } from '../panels/notice.ts';
import type { PoseSpaceController } from '../posespace/pose-space-controller.ts';
import type { ViewportDeformation } from '../view/deformation-views.ts';
import type { FileLoading } from './file-loading.ts';
import type { ProjectFiles } from './project-files.ts';
import type { UnsavedWork } from './unsaved-work.ts';

/** What the file commands use of the app. */
export interface FileCommandsHost extends ExportHost {
  readonly project: Pick<ProjectFiles, 'open' | 'save' | 'saveAs' | 'openRecent' | 'recent' | 'busy'>;
  readonly files: Pick<FileLoading, 'openFiles'>;
  readonly work: Pick<UnsavedWork, 'openSettings' | 'setSettings' | 'guard'>;
  readonly history: Pick<UndoHistory, 'undo' | 'redo' | 'canUndo' | 'canRedo' | 'undoLabel' | 'redoLabel'>;
  /** opens the twist test once unsaved work may go (the save-changes question) */
  loadTwistDemo(): Promise<void> | void;
  /** the export dialog asks for new weight settings through the command, as a script does */
  readonly commands: { invoke(id: 'file.exportSettings', argument: ArgumentOf<'file.exportSettings'>): unknown };
}

/** What the export dialog and the export use of the app. */
export interface ExportHost {
  readonly exportDialog: Pick<ExportDialog, 'isOpen' | 'open' | 'applySettings'>;
  readonly deformation: Pick<ViewportDeformation, 'method' | 'antipodality'>;
  readonly store: Pick<SceneStore, 'doc'>;
  readonly influenceSetting: number;
  /** the scene's max influences: the export keeps it, and its dialog says what that does to the weights */
  readonly maxInfluences: Pick<MaxInfluences, 'exportNote' | 'exportJointSets'>;
  readonly posespace: Pick<PoseSpaceController, 'kernel'>;
  readonly bridge: RigwrightBridge;
  readonly notice: Pick<Notice, 'show' | 'hide'>;
}

export type FileCommandId =
  | 'file.openProject'
  | 'file.save'
  | 'file.saveAs'
  | 'file.recentFirst'
  | 'file.recentSecond'
  | 'file.recentThird'
  | 'file.recentFourth'
  | 'file.recentFifth'
  | 'file.open'
  | 'file.export'
  | 'file.autosaveSettings'
  | 'file.autosave'
  | 'file.exportSettings'
  | 'file.twistDemo'
  | 'edit.undo'
  | 'edit.redo';

const PROJECT_BUSY = 'a project is being opened or saved';

export function fileCommands(app: FileCommandsHost): HandlersFor<FileCommandId> {
  const { history } = app;
  const undoTitle = (verb: string, label: string | null) => (label ? `${verb} ${label}` : verb);
  return {
    'file.openProject': { run: () => app.project.open(), canRun: () => !app.project.busy, refusal: PROJECT_BUSY },
    'file.save': { run: () => void app.project.save(), canRun: () => !app.project.busy, refusal: PROJECT_BUSY },
    'file.saveAs': { run: () => void app.project.saveAs(), canRun: () => !app.project.busy, refusal: PROJECT_BUSY },
    'file.recentFirst': recentFile(app, 0),
    'file.recentSecond': recentFile(app, 1),
    'file.recentThird': recentFile(app, 2),
    'file.recentFourth': recentFile(app, 3),
    'file.recentFifth': recentFile(app, 4),
    'file.open': { run: () => app.files.openFiles() },
    'file.export': { run: () => openExport(app) },
    'file.exportSettings': { run: (settings) => app.exportDialog.applySettings(settings) },
    'file.autosaveSettings': { run: () => app.work.openSettings() },
    'file.autosave': { run: (options) => app.work.setSettings(options) },
    'file.twistDemo': { run: () => app.loadTwistDemo() },
    'edit.undo': {
      run: () => void history.undo(),
      canRun: () => history.canUndo,
      refusal: 'nothing to undo',
      title: () => undoTitle('Undo', history.undoLabel),
    },
    'edit.redo': {
      run: () => void history.redo(),
      canRun: () => history.canRedo,
      refusal: 'nothing to redo',
      title: () => undoTitle('Redo', history.redoLabel),
    },
  };
}

/** Recent project file `index` (0 = the newest): its name in the File menu, present only when there is one. */
function recentFile(app: Pick<FileCommandsHost, 'project'>, index: number): HandlerOf<'file.recentFirst'> {
  return {
    run: () => app.project.openRecent(index),
    canRun: () => !app.project.busy && index < app.project.recent.length,
    refusal: () => (app.project.busy ? PROJECT_BUSY : `there is no recent project ${index + 1}`),
    title: () => `${index + 1}. ${shortName(app.project.recent[index]?.name ?? '')}`,
  };
}

/** A file name short enough for a menu label (at most 100 characters). */
function shortName(name: string): string {
  return name.length > 100 ? `${name.slice(0, 99)}…` : name;
}

/** Opens the export dialog with the scene's facts (size, clip, whether the skinning on screen can be baked). */
function openExport(app: FileCommandsHost): void {
  if (app.exportDialog.isOpen) return;
  const method = app.deformation.method;
  const bakeable = bakeableMethod(method) !== null;
  const doc = app.store.doc;
  const bakeFrames = doc.poses ? bakeFrameCount(doc.poses, GLTF_EXPORT_DEFAULTS.framesPerSecond) : 0;
  app.exportDialog.open(
    {
      baseName: doc.name.replace(/\.[^.]+$/, '') || 'rig',
      vertexCount: vertexCountOf(doc),
      clipName: clipNameOf(doc),
      clipCount: sceneClips(doc, clipNameOf(doc)).length,
      bakeFrames,
      bakeCost: vertexAnimationCost(vertexCountOf(doc), [bakeFrames]),
      methodLabel: METHOD_LABELS[method],
      bakeProblem: bakeable
        ? null
        : `${METHOD_LABELS[method]} skinning does not bake yet; switch to linear blend, dual quaternion, per-face (M) or context per-face to bake.`,
      influenceNote: app.maxInfluences.exportNote(),
      jointSets: app.maxInfluences.exportJointSets(),
    },
    (settings) => void app.commands.invoke('file.exportSettings', settings),
  );
}

/** The viewport's method as a bake (gltf-skinning-bake.ts), or null when it does not bake. */
function bakeableMethod(method: SkinMethod): BakeableSkinMethod | null {
  return (BAKEABLE_SKIN_METHODS as readonly string[]).includes(method) ? (method as BakeableSkinMethod) : null;
}

/** Writes the scene as the dialog chose, through the io worker and the bridge's save. */
export async function exportGltf(app: ExportHost, choice: ExportChoice): Promise<void> {
  const method = app.deformation.method;
  const warnings = await exportSceneAsGltf(
    app.store.doc,
    choice,
    {
      method: bakeableMethod(method) ?? 'lbs',
      influences: app.influenceSetting,
      antipodality: app.deformation.antipodality,
      kernel: app.posespace.kernel,
    },
    getIoClient(),
    app.bridge,
  );
  for (const warning of warnings) console.warn(`${choice.fileName}: ${warning}`);
  if (warnings.length > 0)
    app.notice.show(`Exported ${choice.fileName} with ${warnings.length} note${warnings.length > 1 ? 's' : ''}`, warnings);
  else app.notice.hide();
}
