/**
 * What every command does: the handlers the shell registers for the command catalog. Each is a line or two that
 * calls the controller, tool manager or view that owns the action; the registry adds labels, keys and
 * enabled-when from the catalog.
 */
import { BAKEABLE_SKIN_METHODS, bakeFrameCount, type BakeableSkinMethod } from '../../workers/formats/gltf-skinning-bake.ts';
import { GLTF_EXPORT_DEFAULTS } from '../../workers/formats/gltf-export.ts';
import { vertexAnimationCost } from '../../workers/formats/gltf-vertex-animation.ts';
import type { CommandId } from '../commands/command-catalog.ts';
import type { HandlerOf } from '../commands/command-registry.ts';
import { METHOD_LABELS, type SkinMethod } from '../deform/skin-methods.ts';
import { vertexCountOf } from '../../workers/scene/scene-document.ts';
import { bakeClipEdit, bakeableClip } from '../document/clip-bake.ts';
import { BakeDialog } from '../panels/bake-dialog.ts';
import { clipNameOf, exportSceneAsGltf } from '../io/gltf-export-action.ts';
import { getIoClient } from '../io/io-client.ts';
import type { ExportChoice } from '../panels/export-dialog.ts';
import type { BrushTool } from '../tools/brush/brush-tool.ts';
import { nextViewMode } from '../view/view-modes.ts';
import type { App } from './app.ts';

const PROJECT_BUSY = 'a project is being opened or saved';
const NO_SELECTION = 'no vertices are selected';

export function appCommands(app: App): { [K in CommandId]: HandlerOf<K> } {
  const { history, tools, binding, paint, deformation, timeline } = app;
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
    'file.autosaveSettings': { run: () => app.work.openSettings() },
    'file.twistDemo': {
      run: async () => {
        if (await app.work.guard.mayDiscard()) app.loadTwistDemo();
      },
    },
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
    'view.frameAll': { run: () => app.frameAll() },
    'view.wireframe': { run: () => toggled(!app.views.wireframe, (on) => app.setWireframe(on)), checked: () => app.views.wireframe },
    'view.skeleton': {
      run: () => toggled(!app.views.overlay.visible, (on) => app.setSkeletonVisible(on)),
      checked: () => app.views.overlay.visible,
    },
    'view.nextWeightView': { run: () => app.setView(nextViewMode(app.views.viewMode, app.store.doc.look !== undefined)) },
    'view.look': {
      run: () => app.setView(app.views.viewMode === 'look' ? app.views.lastWeightView : 'look'),
      canRun: () => app.store.doc.look !== undefined,
      refusal: 'the scene has no look of its own',
      checked: () => app.views.viewMode === 'look',
    },
    'view.isoLines': { run: () => toggled(!app.views.isoLines, (on) => app.setIsoLines(on)), checked: () => app.views.isoLines },
    'view.asExported': { run: () => toggled(!app.asExported, (on) => app.setAsExported(on)), checked: () => app.asExported },
    'view.dismiss': {
      run: () => {
        app.chrome.toggleHelp(false);
        app.setError(null);
      },
    },
    'help.keys': { run: () => toggled(!app.chrome.helpOpen, (on) => app.chrome.toggleHelp(on)), checked: () => app.chrome.helpOpen },
    'skin.nextMethod': { run: () => deformation.cycleMethod() },
    'skin.heatMap': { run: () => toggled(!deformation.heatMap, (on) => deformation.setHeatMap(on)), checked: () => deformation.heatMap },
    'bind.panel': { run: () => toggled(!app.bindPanel.open, (on) => app.setBindPanel(on)), checked: () => app.bindPanel.open },
    'tool.lasso': { run: () => tools.toggle('lasso'), checked: () => tools.active.id === 'lasso' },
    'bind.xray': { run: () => toggled(!binding.xray, (on) => binding.setXray(on)), checked: () => binding.xray },
    'bind.assign': { run: () => binding.assignSelection(), canRun: () => binding.selectedCount > 0, refusal: NO_SELECTION },
    'bind.clear': { run: () => binding.clearSelection(), canRun: () => binding.selectedCount > 0, refusal: NO_SELECTION },
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
    'skin.method': { run: (method) => deformation.setMethod(method) },
    'skin.antipodality': { run: (mode) => deformation.setAntipodality(mode) },
    'skin.split': { run: (method) => deformation.setSplit(method) },
    'skin.blend': { run: (value) => app.setBlendWeights(value) },
    'view.influences': { run: (count) => app.setInfluences(count) },
    'view.mode': { run: (mode) => app.setView(mode) },
    'bone.select': { run: (bone) => app.selectBone(bone) },
    'bone.scale': { run: ({ bone, scale }) => app.setBoneScale(bone, scale) },
    'playback.clip': {
      run: (index) => {
        const count = app.store.doc.clips?.length ?? 0;
        if (index >= count) throw new Error(`playback.clip: argument must be a clip from 0 to ${count - 1}, got ${index}`);
        app.selectClip(index);
      },
    },
    'paint.brushMode': {
      run: (mode) => {
        paint.brush.mode = mode;
        paint.changed();
      },
    },
    'paint.symmetry': { run: (axis) => paint.setSymmetry(axis) },
    'paint.cancelMatching': {
      run: () => {
        paint.cancelMatching();
        return paint.setSymmetry(paint.session?.symmetry?.axis ?? null);
      },
      canRun: () => paint.matchJob !== null,
      refusal: 'no mirror match is being computed',
    },
    'paint.lock': {
      run: (bone) => {
        paint.setLocked(bone, !paint.settings.locked[bone]);
        return !!paint.settings.locked[bone];
      },
    },
    'bind.computeRigid': {
      run: () => {
        binding.options.bindUnhandled = true;
        return binding.startBind();
      },
    },
    'meshes.panel': { run: () => toggled(!app.meshesPanel.open, (on) => app.meshesPanel.setOpen(on)), checked: () => app.meshesPanel.open },
    'meshes.active': { run: (part) => app.meshes.setActive(part === -1 ? -1 : app.meshes.indexOf(part)) },
    'meshes.toggle': {
      run: (part) => {
        const index = app.meshes.indexOf(part);
        app.meshes.setHidden(index, !app.meshes.hidden[index]);
        return !app.meshes.hidden[index];
      },
    },
    'meshes.hide': { run: () => app.meshes.hideActive() },
    'meshes.showAll': { run: () => app.meshes.showAll() },
    'meshes.isolate': { run: () => app.meshes.isolate(), checked: () => app.meshes.isolated },
    'bind.computePart': {
      run: () => binding.startBind({}, app.meshes.activePart),
      canRun: () => app.meshes.activePart !== null,
      refusal: 'the active mesh has no part of its own',
    },
    'examples.panel': {
      run: () => toggled(!app.examplesPanel.open, (on) => app.examplesPanel.setOpen(on)),
      checked: () => app.examplesPanel.open,
    },
    'examples.add': { run: () => app.examples.add() },
    'examples.remove': { run: (name) => app.examples.remove(name) },
    'examples.toggle': { run: (name) => app.examples.toggle(name) },
    'examples.rename': { run: ({ name, newName }) => app.examples.rename(name, newName) },
    'examples.pose': { run: (choice) => app.examples.setPoseChoice(choice) },
    'examples.kernel': { run: (kernel) => app.posespace.setKernel(kernel) },
    'examples.map': {
      run: (mode) => {
        deformation.setExampleMap(mode);
        app.renderNow();
      },
    },
    'examples.showUnposed': {
      run: () => {
        app.unposedDisplay.toggle();
        return app.unposedDisplay.shown;
      },
      checked: () => app.unposedDisplay.shown,
    },
    'examples.nextUnposed': { run: () => app.unposedDisplay.next() },
    'examples.cancelUnpose': {
      run: () => app.posespace.cancel(),
      canRun: () => app.posespace.progress.running,
      refusal: 'no examples are being unposed',
    },
    'playback.toggle': { run: () => timeline.toggle(), checked: () => timeline.playing },
    'playback.previousFrame': { run: () => timeline.step(-1) },
    'playback.nextFrame': { run: () => timeline.step(1) },
    'playback.bakeClip': {
      run: (rate) => (rate === undefined ? openBake(app) : bakeClip(app, rate)),
      canRun: () => bakeableClip(app.store.doc) !== null,
      refusal: 'no clip with keyframes is shown',
    },
  };
}

/** Recent project file `index` (0 = the newest): its name in the File menu, present only when there is one. */
function recentFile(app: App, index: number): HandlerOf<'file.recentFirst'> {
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

/** A toggle's handler body: sets the thing to `on` and gives back `on` (a script learns the new state). */
function toggled(on: boolean, set: (on: boolean) => void): boolean {
  set(on);
  return on;
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
