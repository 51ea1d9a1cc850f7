/**
 * What every command does: the handlers the shell registers for the command catalog. Each is a line or two that
 * calls the controller, tool manager or view that owns the action; the registry adds labels, keys and
 * enabled-when from the catalog.
 */
import { BAKEABLE_SKIN_METHODS, bakeFrameCount, type BakeableSkinMethod } from '../../workers/formats/gltf-skinning-bake.ts';
import { GLTF_EXPORT_DEFAULTS } from '../../workers/formats/gltf-export.ts';
import { vertexAnimationCost } from '../../workers/formats/gltf-vertex-animation.ts';
import type { CommandId } from '../commands/command-catalog.ts';
import type { CommandHandler } from '../commands/command-registry.ts';
import { RBF_KERNELS } from '../../workers/posespace/pose-space-weights.ts';
import { METHOD_LABELS, type SkinMethod } from '../deform/skin-methods.ts';
import { INFLUENCE_CHOICES } from '../panels/app-chrome.ts';
import { vertexCountOf } from '../../workers/scene/scene-document.ts';
import { bakeClipEdit, bakeableClip } from '../document/clip-bake.ts';
import { BakeDialog } from '../panels/bake-dialog.ts';
import { clipNameOf, exportSceneAsGltf } from '../io/gltf-export-action.ts';
import { getIoClient } from '../io/io-client.ts';
import type { ExportChoice } from '../panels/export-dialog.ts';
import type { BrushTool } from '../tools/brush/brush-tool.ts';
import { VIEW_MODES, nextViewMode } from '../view/view-modes.ts';
import type { App } from './app.ts';

export function appCommands(app: App): Record<CommandId, CommandHandler> {
  const { history, tools, binding, paint, deformation, timeline } = app;
  const undoTitle = (verb: string, label: string | null) => (label ? `${verb} ${label}` : verb);
  return {
    'file.openProject': { run: () => app.project.open(), canRun: () => !app.project.busy },
    'file.save': { run: () => void app.project.save(), canRun: () => !app.project.busy },
    'file.saveAs': { run: () => void app.project.saveAs(), canRun: () => !app.project.busy },
    'file.recentFirst': recentFile(app, 0),
    'file.recentSecond': recentFile(app, 1),
    'file.recentThird': recentFile(app, 2),
    'file.recentFourth': recentFile(app, 3),
    'file.recentFifth': recentFile(app, 4),
    'file.open': { run: () => app.files.openFiles() },
    'file.export': { run: () => openExport(app) },
    'file.autosaveSettings': { run: () => app.work.openSettings() },
    'file.twistDemo': {
      run: async () => {
        if (await app.work.guard.mayDiscard()) app.loadTwistDemo();
      },
    },
    'edit.undo': { run: () => void history.undo(), canRun: () => history.canUndo, title: () => undoTitle('Undo', history.undoLabel) },
    'edit.redo': { run: () => void history.redo(), canRun: () => history.canRedo, title: () => undoTitle('Redo', history.redoLabel) },
    'view.frameAll': { run: () => app.frameAll() },
    'view.wireframe': { run: () => app.setWireframe(!app.views.wireframe), checked: () => app.views.wireframe },
    'view.skeleton': { run: () => app.setSkeletonVisible(!app.views.overlay.visible), checked: () => app.views.overlay.visible },
    'view.nextWeightView': { run: () => app.setView(nextViewMode(app.views.viewMode, app.store.doc.look !== undefined)) },
    'view.look': {
      run: () => app.setView(app.views.viewMode === 'look' ? app.views.lastWeightView : 'look'),
      canRun: () => app.store.doc.look !== undefined,
      checked: () => app.views.viewMode === 'look',
    },
    'view.isoLines': { run: () => app.setIsoLines(!app.views.isoLines), checked: () => app.views.isoLines },
    'view.asExported': { run: () => app.setAsExported(!app.asExported), checked: () => app.asExported },
    'view.dismiss': {
      run: () => {
        app.chrome.toggleHelp(false);
        app.setError(null);
      },
    },
    'help.keys': { run: () => app.chrome.toggleHelp(), checked: () => app.chrome.helpOpen },
    'skin.nextMethod': { run: () => deformation.cycleMethod() },
    'skin.heatMap': { run: () => deformation.setHeatMap(!deformation.heatMap), checked: () => deformation.heatMap },
    'bind.panel': { run: () => app.setBindPanel(!app.bindPanel.open), checked: () => app.bindPanel.open },
    'tool.lasso': { run: () => tools.toggle('lasso'), checked: () => tools.active.id === 'lasso' },
    'bind.xray': { run: () => binding.setXray(!binding.xray), checked: () => binding.xray },
    'bind.assign': { run: () => binding.assignSelection(), canRun: () => binding.selectedCount > 0 },
    'bind.clear': { run: () => binding.clearSelection(), canRun: () => binding.selectedCount > 0 },
    'bind.loadHandles': { run: () => binding.openHandles() },
    'bind.saveHandles': { run: () => binding.saveHandles() },
    'bind.compareHandles': { run: () => binding.compareHandles() },
    'bind.compute': { run: () => binding.startBind() },
    'bind.cancel': { run: () => binding.cancelBind() },
    'bind.saveWeights': { run: () => binding.saveWeights() },
    'tool.brush': { run: () => tools.toggle('brush'), checked: () => tools.active.id === 'brush' },
    'paint.resizeBrush': { run: () => tools.tool<BrushTool>('brush').transition('resizing') },
    'paint.normalize': { run: () => paint.run('normalize') },
    'paint.limit': { run: () => paint.run('limit') },
    'paint.prune': { run: () => paint.run('prune', 0.01) },
    'paint.smooth': { run: () => paint.run('smooth') },
    'paint.mirrorToPositive': { run: () => paint.run('mirror+') },
    'paint.mirrorToNegative': { run: () => paint.run('mirror-') },
    'tool.cancel': { run: () => tools.active.cancel() },
    'tool.confirm': { run: () => tools.active.current.onConfirm?.() },
    'skin.method': { run: (m) => deformation.setMethod(oneOf('skin.method', m, Object.keys(METHOD_LABELS) as SkinMethod[])) },
    'skin.antipodality': { run: (a) => deformation.setAntipodality(oneOf('skin.antipodality', a, ['per-vertex', 'per-bone'] as const)) },
    'skin.split': {
      run: (m) => deformation.setSplit(m === null ? null : oneOf('skin.split', m, Object.keys(METHOD_LABELS) as SkinMethod[])),
    },
    'skin.blend': { run: (value) => app.setBlendWeights(numberIn('skin.blend', value, 0, 1)) },
    'view.influences': { run: (count) => app.setInfluences(oneOf('view.influences', count, INFLUENCE_CHOICES)) },
    'view.mode': { run: (mode) => app.setView(oneOf('view.mode', mode, VIEW_MODES)) },
    'bone.select': { run: (bone) => app.selectBone(boneIndex(app, 'bone.select', bone, true)) },
    'bone.scale': {
      run: (argument) => {
        const { bone, scale } = (argument ?? {}) as { bone?: unknown; scale?: unknown };
        if (!Array.isArray(scale) || scale.length !== 3) throw new Error('bone.scale: scale must be [x, y, z]');
        app.setBoneScale(
          boneIndex(app, 'bone.scale', bone, false),
          scale.map((x) => numberIn('bone.scale', x, 0.05, 10)),
        );
      },
    },
    'playback.clip': { run: (index) => app.selectClip(numberIn('playback.clip', index, 0, (app.store.doc.clips?.length ?? 1) - 1)) },
    'paint.brushMode': {
      run: (mode) => {
        paint.brush.mode = oneOf('paint.brushMode', mode, ['add', 'subtract', 'set', 'smooth', 'sample'] as const);
        paint.changed();
      },
    },
    'paint.symmetry': { run: (axis) => paint.setSymmetry(axis === null ? null : oneOf('paint.symmetry', axis, [0, 1, 2] as const)) },
    'paint.cancelMatching': {
      run: () => {
        paint.cancelMatching();
        return paint.setSymmetry(paint.session?.symmetry?.axis ?? null);
      },
      canRun: () => paint.matchJob !== null,
    },
    'paint.lock': {
      run: (bone) => {
        const b = boneIndex(app, 'paint.lock', bone, false);
        paint.setLocked(b, !paint.settings.locked[b]);
      },
    },
    'bind.computeRigid': {
      run: () => {
        binding.options.bindUnhandled = true;
        return binding.startBind();
      },
    },
    'meshes.panel': { run: () => app.meshesPanel.setOpen(!app.meshesPanel.open), checked: () => app.meshesPanel.open },
    'meshes.active': { run: (part) => app.meshes.setActive(part === -1 ? -1 : meshIndex(app, 'meshes.active', part)) },
    'meshes.toggle': {
      run: (part) => {
        const index = meshIndex(app, 'meshes.toggle', part);
        app.meshes.setHidden(index, !app.meshes.hidden[index]);
      },
    },
    'meshes.hide': { run: () => app.meshes.hideActive() },
    'meshes.showAll': { run: () => app.meshes.showAll() },
    'meshes.isolate': { run: () => app.meshes.isolate(), checked: () => app.meshes.isolated },
    'bind.computePart': { run: () => binding.startBind({}, app.meshes.activePart), canRun: () => app.meshes.activePart !== null },
    'examples.panel': { run: () => app.examplesPanel.setOpen(!app.examplesPanel.open), checked: () => app.examplesPanel.open },
    'examples.add': { run: () => app.examples.add() },
    'examples.remove': { run: (name) => app.examples.remove(text('examples.remove', name)) },
    'examples.toggle': { run: (name) => app.examples.toggle(text('examples.toggle', name)) },
    'examples.rename': {
      run: (argument) => {
        const { name, newName } = (argument ?? {}) as { name?: unknown; newName?: unknown };
        app.examples.rename(text('examples.rename', name), text('examples.rename', newName));
      },
    },
    'examples.pose': {
      run: (choice) => app.examples.setPoseChoice(choice === 'viewport' ? 'viewport' : numberIn('examples.pose', choice, 0, Infinity)),
    },
    'examples.kernel': { run: (kernel) => app.posespace.setKernel(oneOf('examples.kernel', kernel, RBF_KERNELS)) },
    'examples.map': {
      run: (mode) => {
        deformation.setExampleMap(oneOf('examples.map', mode, ['off', 'displacement', 'error'] as const));
        app.renderNow();
      },
    },
    'examples.showUnposed': { run: () => app.unposedDisplay.toggle(), checked: () => app.unposedDisplay.shown },
    'examples.nextUnposed': { run: () => app.unposedDisplay.next() },
    'examples.cancelUnpose': { run: () => app.posespace.cancel(), canRun: () => app.posespace.progress.running },
    'playback.toggle': { run: () => timeline.toggle(), checked: () => timeline.playing },
    'playback.previousFrame': { run: () => timeline.step(-1) },
    'playback.nextFrame': { run: () => timeline.step(1) },
    'playback.bakeClip': {
      run: (rate) => (rate === undefined ? openBake(app) : bakeClip(app, numberIn('playback.bakeClip', rate, 0.01, 10000))),
      canRun: () => bakeableClip(app.store.doc) !== null,
    },
  };
}

/** Recent project file `index` (0 = the newest): its name in the File menu, present only when there is one. */
function recentFile(app: App, index: number): CommandHandler {
  return {
    run: () => app.project.openRecent(index),
    canRun: () => !app.project.busy && index < app.project.recent.length,
    title: () => `${index + 1}. ${shortName(app.project.recent[index]?.name ?? '')}`,
  };
}

/** A file name short enough for a menu label (at most 100 characters). */
function shortName(name: string): string {
  return name.length > 100 ? `${name.slice(0, 99)}…` : name;
}

/** The argument if it is one of `choices`, else an error naming the command and the choices. */
function oneOf<T extends string | number>(command: string, value: unknown, choices: readonly T[]): T {
  if (!choices.includes(value as T)) throw new Error(`${command}: expected one of ${choices.join(', ')}, got ${JSON.stringify(value)}`);
  return value as T;
}

/** A mesh of the scene by index or name. @throws Error naming the command and what is not a mesh */
function meshIndex(app: App, command: string, value: unknown): number {
  if (typeof value !== 'number' && typeof value !== 'string')
    throw new Error(`${command}: expected a mesh index or name, got ${JSON.stringify(value)}`);
  try {
    return app.meshes.indexOf(value);
  } catch (error) {
    throw new Error(`${command}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

function text(command: string, value: unknown): string {
  if (typeof value !== 'string') throw new Error(`${command}: expected a name, got ${JSON.stringify(value)}`);
  return value;
}

function numberIn(command: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !(value >= min && value <= max))
    throw new Error(`${command}: expected a number from ${min} to ${max}, got ${JSON.stringify(value)}`);
  return value;
}

function boneIndex(app: App, command: string, value: unknown, noneAllowed: boolean): number {
  const count = app.store.doc.skeleton.parents.length;
  if (!Number.isInteger(value) || (value as number) < (noneAllowed ? -1 : 0) || (value as number) >= count) {
    throw new Error(`${command}: expected a bone from ${noneAllowed ? -1 : 0} to ${count - 1}, got ${JSON.stringify(value)}`);
  }
  return value as number;
}

let bakeDialog: BakeDialog | null = null;

/** Opens the Bake clip dialog for the current clip (made on first use). */
function openBake(app: App): void {
  const clip = bakeableClip(app.store.doc);
  if (!clip) return;
  bakeDialog ??= new BakeDialog((rate) => bakeClip(app, rate));
  bakeDialog.open({ clipName: clip.name, start: clip.start, end: clip.end, keyCount: clip.keyCount, framesAt: clip.framesAt });
}

/** Bakes the current clip at `framesPerSecond` frames per second: one undoable edit. */
function bakeClip(app: App, framesPerSecond: number): void {
  const { label, fields } = bakeClipEdit(app.store.doc, framesPerSecond);
  app.store.edit(label, fields);
  app.renderNow();
}

/** Opens the export dialog with the scene's facts (size, clip, whether the skinning on screen can be baked). */
function openExport(app: App): void {
  if (app.exportDialog.isOpen) return;
  const method = app.deformation.method;
  const bakeable = bakeableMethod(method) !== null;
  const doc = app.store.doc;
  const bakeFrames = doc.poses ? bakeFrameCount(doc.poses, GLTF_EXPORT_DEFAULTS.framesPerSecond) : 0;
  app.exportDialog.open({
    baseName: doc.name.replace(/\.[^.]+$/, '') || 'rig',
    vertexCount: vertexCountOf(doc),
    clipName: clipNameOf(doc),
    bakeFrames,
    bakeCost: vertexAnimationCost(vertexCountOf(doc), [bakeFrames]),
    methodLabel: METHOD_LABELS[method],
    bakeProblem: bakeable
      ? null
      : `${METHOD_LABELS[method]} skinning does not bake yet; switch to linear blend, dual quaternion, per-face (M) or context per-face to bake.`,
  });
}

/** The viewport's method as a bake (gltf-skinning-bake.ts), or null when it does not bake. */
function bakeableMethod(method: SkinMethod): BakeableSkinMethod | null {
  return (BAKEABLE_SKIN_METHODS as readonly string[]).includes(method) ? (method as BakeableSkinMethod) : null;
}

/** Writes the scene as the dialog chose, through the io worker and the bridge's save. */
export async function exportGltf(app: App, choice: ExportChoice): Promise<void> {
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
