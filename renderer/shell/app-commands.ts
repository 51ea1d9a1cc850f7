/**
 * What every command does: the handlers the shell registers for the command catalog. Each is a line or two that
 * calls the controller, tool manager or view that owns the action; the registry adds labels, keys and
 * enabled-when from the catalog.
 */
import { bakeFrameCount } from '../../workers/formats/gltf-skinning-bake.ts';
import { GLTF_EXPORT_DEFAULTS } from '../../workers/formats/gltf-export.ts';
import { vertexAnimationCost } from '../../workers/formats/gltf-vertex-animation.ts';
import type { CommandId } from '../commands/command-catalog.ts';
import type { CommandHandler } from '../commands/command-registry.ts';
import { METHOD_LABELS } from '../deform/skin-methods.ts';
import { vertexCountOf } from '../document/scene-document.ts';
import { clipNameOf, exportSceneAsGltf } from '../io/gltf-export-action.ts';
import { getIoClient } from '../io/io-client.ts';
import type { ExportChoice } from '../panels/export-dialog.ts';
import type { BrushTool } from '../tools/brush/brush-tool.ts';
import { VIEW_MODES } from '../view/view-modes.ts';
import type { App } from './app.ts';

export function appCommands(app: App): Record<CommandId, CommandHandler> {
  const { history, tools, binding, paint, deformation, timeline } = app;
  const undoTitle = (verb: string, label: string | null) => (label ? `${verb} ${label}` : verb);
  return {
    'file.open': { run: () => app.files.openFiles() },
    'file.export': { run: () => openExport(app) },
    'file.twistDemo': { run: () => app.loadTwistDemo() },
    'edit.undo': { run: () => void history.undo(), canRun: () => history.canUndo, title: () => undoTitle('Undo', history.undoLabel) },
    'edit.redo': { run: () => void history.redo(), canRun: () => history.canRedo, title: () => undoTitle('Redo', history.redoLabel) },
    'view.frameAll': { run: () => app.frameAll() },
    'view.wireframe': { run: () => app.setWireframe(!app.views.wireframe), checked: () => app.views.wireframe },
    'view.skeleton': { run: () => app.setSkeletonVisible(!app.views.overlay.visible), checked: () => app.views.overlay.visible },
    'view.nextWeightView': { run: () => app.setView(VIEW_MODES[(VIEW_MODES.indexOf(app.views.viewMode) + 1) % VIEW_MODES.length]) },
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
    'playback.toggle': { run: () => timeline.toggle(), checked: () => timeline.playing },
    'playback.previousFrame': { run: () => timeline.step(-1) },
    'playback.nextFrame': { run: () => timeline.step(1) },
  };
}

/** Opens the export dialog with the scene's facts (size, clip, whether the skinning on screen can be baked). */
function openExport(app: App): void {
  if (app.exportDialog.isOpen) return;
  const method = app.deformation.method;
  const bakeable = method === 'lbs' || method === 'dqs';
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
      : `${METHOD_LABELS[method]} skinning does not bake yet; switch to linear blend or dual quaternion (M) to bake.`,
  });
}

/** Writes the scene as the dialog chose, through the io worker and the bridge's save. */
export async function exportGltf(app: App, choice: ExportChoice): Promise<void> {
  const method = app.deformation.method;
  const warnings = await exportSceneAsGltf(
    app.store.doc,
    choice,
    { method: method === 'dqs' ? 'dqs' : 'lbs', influences: app.influenceSetting, antipodality: app.deformation.antipodality },
    getIoClient(),
    app.bridge,
  );
  for (const warning of warnings) console.warn(`${choice.fileName}: ${warning}`);
  if (warnings.length > 0)
    app.notice.show(`Exported ${choice.fileName} with ${warnings.length} note${warnings.length > 1 ? 's' : ''}`, warnings);
  else app.notice.hide();
}
