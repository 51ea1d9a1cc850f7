/**
 * The view, bone, tool and playback commands: what the viewport shows (wireframe, skeleton, weight views, iso-lines,
 * influences, the preview as exported), the help, the selected bone and bone scales, cancelling or confirming what
 * the active tool does, and the timeline (play, step, clips, baking a clip).
 */
import { bakeClipEdit, bakeableClip } from '../document/clip-bake.ts';
import type { HandlersFor } from '../commands/command-handlers.ts';
import { toggled } from '../commands/command-handlers.ts';
import { BakeDialog } from '../panels/bake-dialog.ts';
import { nextViewMode, type ViewMode } from '../view/view-modes.ts';
import type { SceneStore } from '../../workers/scene/scene-store.ts';
import type { AppChrome } from '../panels/app-chrome.ts';
import { countOf } from '../project/plain-number.ts';
import type { Notice } from '../panels/notice.ts';
import type { Timeline } from '../panels/timeline.ts';
import type { SceneView } from '../view/scene-view.ts';
import type { ToolManager } from '../tools/tool-manager.ts';
import { boneScaleEdit } from '../../workers/scene/scene-edits.ts';
import { showClipFields } from '../../workers/scene/clip-edits.ts';
import { helpBoneLine } from '../commands/keybindings.ts';

/** What the view commands use of the app. */
export interface ViewCommandsHost {
  readonly views: Pick<SceneView, 'wireframe' | 'overlay' | 'viewMode' | 'lastWeightView' | 'isoLines'>;
  readonly store: Pick<SceneStore, 'doc' | 'edit' | 'show'>;
  readonly chrome: Pick<AppChrome, 'toggleHelp' | 'helpOpen'>;
  readonly notice: Pick<Notice, 'show' | 'listOpen' | 'setListOpen'>;
  readonly tools: Pick<ToolManager, 'active'>;
  readonly timeline: Pick<Timeline, 'toggle' | 'playing' | 'step' | 'play' | 'pause' | 'seek'>;
  readonly asExported: boolean;
  /** the last weight transfer: View → Next view shows its outcome once there is one */
  readonly lastTransfer: { readonly record: object | null };
  frameAll(): void;
  setWireframe(on: boolean): void;
  setSkeletonVisible(on: boolean): void;
  setView(mode: ViewMode): void;
  setIsoLines(on: boolean): void;
  setAsExported(on: boolean): void;
  setError(message: string | null): void;
  setInfluences(count: number): void;
  selectBone(bone: number): void;
  renderNow(): void;
  readonly boneSelection: { readonly bone: number };
}

export type ViewCommandId =
  | 'view.frameAll'
  | 'view.wireframe'
  | 'view.skeleton'
  | 'view.nextWeightView'
  | 'view.look'
  | 'view.isoLines'
  | 'view.asExported'
  | 'view.dismiss'
  | 'view.warnings'
  | 'view.messages'
  | 'help.keys'
  | 'view.influences'
  | 'view.mode'
  | 'bone.select'
  | 'bone.scale'
  | 'tool.cancel'
  | 'tool.confirm'
  | 'playback.toggle'
  | 'playback.playing'
  | 'playback.seek'
  | 'playback.previousFrame'
  | 'playback.nextFrame'
  | 'playback.clip'
  | 'playback.bakeClip';

export function viewCommands(app: ViewCommandsHost): HandlersFor<ViewCommandId> {
  const { tools, timeline } = app;
  return {
    'view.frameAll': { run: () => app.frameAll() },
    'view.wireframe': { run: () => toggled(!app.views.wireframe, (on) => app.setWireframe(on)), checked: () => app.views.wireframe },
    'view.skeleton': {
      run: () => toggled(!app.views.overlay.visible, (on) => app.setSkeletonVisible(on)),
      checked: () => app.views.overlay.visible,
    },
    'view.nextWeightView': {
      run: () => app.setView(nextViewMode(app.views.viewMode, app.store.doc.look !== undefined, app.lastTransfer.record !== null)),
    },
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
    'view.warnings': {
      run: () => {
        const { name, warnings } = app.store.doc;
        app.notice.show(`${name}: ${countOf(warnings.length, 'warning')}`, warnings);
      },
      canRun: () => app.store.doc.warnings.length > 0,
      refusal: 'the scene has no warnings',
    },
    'view.messages': {
      run: () => toggled(!app.notice.listOpen, (on) => app.notice.setListOpen(on)),
      checked: () => app.notice.listOpen,
    },
    'help.keys': {
      run: () => toggled(!app.chrome.helpOpen, (on) => app.chrome.toggleHelp(on, helpBoneLine(app.store.doc, app.boneSelection.bone))),
      checked: () => app.chrome.helpOpen,
    },
    'view.influences': { run: (count) => app.setInfluences(count) },
    'view.mode': { run: (mode) => app.setView(mode) },
    'bone.select': { run: (bone) => app.selectBone(bone) },
    // One undo step per bone while it is edited; the same edit as `rigwright edit --bone-scale`.
    'bone.scale': {
      run: ({ bone, scale }) => {
        const { label, fields } = boneScaleEdit(app.store.doc, bone, scale);
        app.store.edit(label, fields, `scale bone ${bone}`);
        app.renderNow();
      },
    },
    'tool.cancel': { run: () => tools.active.cancel() },
    'tool.confirm': { run: () => tools.active.current.onConfirm?.() },
    'playback.toggle': { run: () => timeline.toggle(), checked: () => timeline.playing },
    'playback.playing': {
      run: (on) => {
        if (on) timeline.play();
        else timeline.pause();
        return timeline.playing;
      },
      checked: () => timeline.playing,
    },
    'playback.seek': { run: (time) => timeline.seek(time) },
    'playback.previousFrame': { run: () => timeline.step(-1) },
    'playback.nextFrame': { run: () => timeline.step(1) },
    'playback.clip': {
      run: (index) => {
        const count = app.store.doc.clips?.length ?? 0;
        if (index >= count) throw new Error(`playback.clip: argument must be a clip from 0 to ${count - 1}, got ${index}`);
        // Choosing what to view is not an edit: no undo step, and the scene stays saved.
        const fields = showClipFields(app.store.doc, index);
        if (fields.poses === app.store.doc.poses) return;
        app.store.show(fields);
        app.renderNow();
      },
    },
    'playback.bakeClip': {
      run: (rate) => (rate === undefined ? openBake(app) : bakeClip(app, rate)),
      canRun: () => bakeableClip(app.store.doc) !== null,
      refusal: 'no clip with keyframes is shown',
    },
  };
}

let bakeDialog: BakeDialog | null = null;

/** Opens the Bake clip dialog for the current clip (made on first use). */
function openBake(app: Pick<ViewCommandsHost, 'store' | 'renderNow'>): void {
  const clip = bakeableClip(app.store.doc);
  if (!clip) return;
  bakeDialog ??= new BakeDialog((rate) => bakeClip(app, rate));
  bakeDialog.open({ clipName: clip.name, start: clip.start, end: clip.end, keyCount: clip.keyCount, framesAt: clip.framesAt });
}

/** Bakes the current clip at `framesPerSecond` frames per second: one undoable edit. */
function bakeClip(app: Pick<ViewCommandsHost, 'store' | 'renderNow'>, framesPerSecond: number): void {
  const { label, fields } = bakeClipEdit(app.store.doc, framesPerSecond);
  app.store.edit(label, fields);
  app.renderNow();
}
