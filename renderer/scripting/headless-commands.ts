/**
 * The app's commands without the page: a CommandRegistry (the app's own class, so every argument is checked by the
 * same schemas and refused for the same reasons) on a SceneStore, for `rigwright run` and for tests. Each command
 * that makes sense without a viewport does what the app's handler does, with the same argument meaning and the same
 * undo label, and most of them through the app's own handler modules:
 *
 *  - binding (bind.options, bind.compute, bind.computeRigid, bind.maxInfluences, bind.limitInfluences): the app's
 *    bind commands on the app's BindingController and MaxInfluences, their worker calls (automatic handles, harmonic
 *    weights) made in-process with the same workers/ functions and the same inputs, so the weights are the app's,
 *    bit for bit (headless-binding.ts);
 *  - bone edits (bone.rename, bone.insert, bone.delete, bone.reparent, bone.reorder, bone.moveJoint, bone.split,
 *    bone.mirror): the app's skeleton commands, the selected bone (bone.select) following its bone;
 *  - weight edits (paint.normalize, paint.limit, paint.prune, paint.smooth, paint.mirrorToPositive,
 *    paint.mirrorToNegative, paint.lock): workers/scene/scene-edits.ts, which gives the paint panel's weights bit for
 *    bit, under the paint panel's labels (headless-weight-edits.ts);
 *  - the scripts' weight commands (weights.set, weights.add, weights.scale, weights.transfer): the app's handlers;
 *  - weights.transferFromMesh: the app's handler, its transfer computed in-process (inProcessTransfer), its notice
 *    dropped (the result gives its counts);
 *  - posing (pose.rotate, pose.reset, pose.resetAll, pose.rest, pose.copy, pose.pasteMirrored, pose.ik): the app's
 *    pose commands, the shown pose evaluated by the app's PosePlayback at the timeline's time;
 *  - keys and clips (key.insert, key.insertAll, key.delete, key.move, clip.new, clip.rename, clip.trim, clip.length):
 *    the app's key and clip commands, on a HeadlessTimeline that playback.seek, playback.previousFrame and
 *    playback.nextFrame move as the app's timeline moves (headless nothing plays);
 *  - bone.scale, playback.clip, edit.undo, edit.redo as the app's, and skin.method as a setting that `rig.scene.skin`
 *    reads by default (linear blend or dual quaternion: the other methods need the viewport's deformation).
 *
 * Every other catalog command is refused with the reason it needs the app (AppOnlyCommand, app-only-commands.ts). Context keys come from
 * the store (hasSkeleton, boneSelected, binding); nothing is ever busy with a gesture (toolBusy is never set).
 * No DOM: the command-line tool imports this module.
 */
import { COMMANDS, type CommandId } from '../commands/command-catalog.ts';
import type { CommandHandlers, CommandRegistry } from '../commands/command-registry.ts';
import type { WhenContext } from '../commands/when-clause.ts';
import { bindCommands } from '../bind/bind-commands.ts';
import type { BindOptions } from '../bind/binding-controller.ts';
import { MaxInfluences } from '../bind/max-influences.ts';
import { keyCommands } from '../skeleton/key-commands.ts';
import { poseCommands } from '../skeleton/pose-commands.ts';
import { PosePlayback } from '../skeleton/pose-playback.ts';
import { HeadlessTimeline } from './headless-timeline.ts';
import { skeletonCommands } from '../skeleton/skeleton-commands.ts';
import { weightCommands } from './weight-commands.ts';
import { inProcessTransfer, transferCommands } from '../meshes/transfer-commands.ts';
import { partsOf } from '../document/mesh-parts.ts';
import { BoneSelection } from '../skeleton/bone-selection.ts';
import type { PaintSettings } from '../../workers/paint/paint-weights.ts';
import { boneCountOf, vertexCountOf, type SceneDocument } from '../../workers/scene/scene-document.ts';
import { boneScaleEdit } from '../../workers/scene/scene-edits.ts';
import { showClipFields } from '../../workers/scene/clip-edits.ts';
import type { SceneStore } from '../../workers/scene/scene-store.ts';
import { MAX_INFLUENCES_DEFAULT } from '../../workers/weights/limit-influences.ts';
import { AppOnlyCommand, appOnlyReason, HeadlessCommandRegistry, isHeadlessCommand } from './app-only-commands.ts';
import { bindProgressAndReport, failedBind, headlessBinding, type BindListeners } from './headless-binding.ts';
import { weightEditCommands } from './headless-weight-edits.ts';

/** The skinning methods headless deformation has (`rig.scene.skin`'s default). */
export type HeadlessSkinMethod = 'lbs' | 'dqs';

/** What a headless run starts from besides the document (a project's saved settings). */
export interface HeadlessOptions extends BindListeners {
  /** the scene's max influences, 1 … 8 (a project's paint.maxInfluences); default MAX_INFLUENCES_DEFAULT */
  maxInfluences?: number;
  /** how Compute weights runs (a project's binding settings); fields left out: the app's defaults (BIND_DEFAULTS) */
  binding?: BindOptions;
  /** the selected bone, -1 for none (a project's view.selectedBone); default none */
  selectedBone?: number;
  /** the method `rig.scene.skin` uses by default; default 'lbs' */
  skinMethod?: HeadlessSkinMethod;
}

/** The settings the headless commands change, read back by the caller (to save a project, to skin). */
export interface HeadlessState {
  /** the scene's max influences (bind.maxInfluences) */
  readonly maxInfluences: number;
  /** how Compute weights runs (bind.options) */
  readonly binding: Readonly<Required<BindOptions>>;
  /** the selected bone, -1 for none (bone.select; follows its bone through bone edits) */
  readonly selectedBone: number;
  /** skin.method */
  readonly skinMethod: HeadlessSkinMethod;
  /** the timeline's time (playback.seek): the frame keys are set at, in the shown sequence's unit */
  readonly time: number;
  /** Puts back settings a project saved (a project opened by the script); fields left out stay. */
  restore(settings: HeadlessOptions): void;
}

/** The registry `headlessRegistry` gives: the app's CommandRegistry, with the settings its commands changed. */
export type HeadlessRegistry = CommandRegistry & { readonly state: HeadlessState };

/**
 * A CommandRegistry that runs the headless commands on `store` as the app does (see the file's comment) and refuses
 * every other catalog command with AppOnlyCommand.
 * @param store    the scene; every edit is a step of its history (a script run groups them into one)
 * @param options  the settings a project saved (max influences, binding options, selected bone)
 * @returns the registry, with `state`: the settings as its commands left them
 */
export function headlessRegistry(store: SceneStore, options: HeadlessOptions = {}): HeadlessRegistry {
  const paintSettings: PaintSettings = {
    get locked() {
      return store.doc.paintLocks ?? new Uint8Array(boneCountOf(store.doc));
    },
    maxInfluences: options.maxInfluences ?? MAX_INFLUENCES_DEFAULT,
  };
  const boneSelection = new BoneSelection(store);
  let skinMethod: HeadlessSkinMethod = 'lbs';
  // A new scene (rig.files.open) starts with the default limit, as the app's paint settings do.
  store.subscribe((change) => {
    if (change.kind === 'document' && change.newScene) paintSettings.maxInfluences = MAX_INFLUENCES_DEFAULT;
  });

  const maxInfluences = new MaxInfluences({ store, paintSettings: () => paintSettings, changed: () => undefined });
  const binding = headlessBinding(store, maxInfluences);
  const bindReport = bindProgressAndReport(binding, store, options);
  const registry = new HeadlessCommandRegistry(
    (): WhenContext => ({
      hasSkeleton: boneCountOf(store.doc) > 0,
      boneSelected: boneSelection.bone >= 0,
      binding: binding.progress.running,
    }),
    undefined,
    { boneCount: () => boneCountOf(store.doc), vertexCount: () => vertexCountOf(store.doc) },
  );

  const bind = bindCommands({
    binding,
    maxInfluences,
    bindPanel: { open: false },
    setBindPanel: () => undefined,
    tools: { active: { id: 'select' }, toggle: () => undefined },
    meshes: { activePart: null },
  });
  const skeleton = skeletonCommands({
    store,
    boneSelection,
    skeletonTool: { active: false, toggle: () => undefined, endChain: () => undefined },
  });
  // The app's pose playback: the shown sequence's evaluator, and the timeline started over by each new sequence.
  const timeline = new HeadlessTimeline();
  const playback = new PosePlayback(store, timeline, () => undefined);
  const shown = () => {
    playback.evaluator.evaluate(timeline.time);
    return playback.evaluator;
  };
  const pose = poseCommands({
    store,
    boneSelection,
    poseView: playback.view,
    shown,
    poseViewChanged: () => undefined,
    // The pose tool's settings stay the tool's defaults: pose.ik takes its pole as an argument.
    poseTool: {
      active: false,
      toggle: () => undefined,
      space: 'local',
      setSpace: () => undefined,
      ik: false,
      setIk: () => undefined,
      pole: null,
      setPole: () => undefined,
      viewDirection: () => [0, 0, -1],
    },
  });
  const clips = keyCommands({
    store,
    boneSelection,
    timeline,
    bridge: { saveFile: () => Promise.resolve(false) },
    renderNow: () => undefined,
  });
  // Only the transfer commands listed in HEADLESS_COMMANDS: the others stay refused.
  const transfer = transferCommands({
    store,
    transferClient: inProcessTransfer,
    meshes: {
      get list() {
        return partsOf(store.doc);
      },
      indexOf: (part) => meshIndexOf(store.doc, part),
      active: -1,
    },
    maxInfluences: {
      get value() {
        return paintSettings.maxInfluences;
      },
    },
    notice: { show: () => undefined },
    binding: { selectVertices: () => undefined, options: binding.options },
    setBindPanel: () => undefined,
  });
  const paintEdits = weightEditCommands(
    store,
    () => boneSelection.bone,
    () => paintSettings.maxInfluences,
  );
  const handlers: CommandHandlers = {
    'bind.options': bind['bind.options'],
    'bind.compute': {
      ...bind['bind.compute'],
      run: (overrides) => bindReport('bind.compute', () => failedBind(binding, bind['bind.compute'].run(overrides))),
    },
    'bind.computeRigid': {
      ...bind['bind.computeRigid'],
      run: () => bindReport('bind.computeRigid', () => failedBind(binding, bind['bind.computeRigid'].run(undefined))),
    },
    'bind.maxInfluences': bind['bind.maxInfluences'],
    'bind.limitInfluences': bind['bind.limitInfluences'],
    ...paintEdits,
    // The app's own handlers of the scripts' weight commands.
    ...weightCommands(store, { maxInfluences: () => paintSettings.maxInfluences }),
    'weights.transferFromMesh': transfer['weights.transferFromMesh'],
    'bone.select': { run: (bone) => boneSelection.select(bone) },
    // The same edit as the app's bone-scale fields: one undo step per bone while it is edited.
    'bone.scale': {
      run: ({ bone, scale }) => {
        const { label, fields } = boneScaleEdit(store.doc, bone, scale);
        store.edit(label, fields, `scale bone ${bone}`);
      },
    },
    'bone.rename': skeleton['bone.rename'],
    'bone.insert': skeleton['bone.insert'],
    'bone.delete': skeleton['bone.delete'],
    'bone.reparent': skeleton['bone.reparent'],
    'bone.reorder': skeleton['bone.reorder'],
    'bone.moveJoint': skeleton['bone.moveJoint'],
    'bone.split': skeleton['bone.split'],
    'bone.mirror': skeleton['bone.mirror'],
    'clip.new': clips['clip.new'],
    'clip.rename': clips['clip.rename'],
    'clip.trim': clips['clip.trim'],
    'clip.length': clips['clip.length'],
    'pose.rotate': pose['pose.rotate'],
    'pose.reset': pose['pose.reset'],
    'pose.resetAll': pose['pose.resetAll'],
    'pose.rest': pose['pose.rest'],
    'pose.copy': pose['pose.copy'],
    'pose.pasteMirrored': pose['pose.pasteMirrored'],
    'pose.ik': pose['pose.ik'],
    'key.insert': clips['key.insert'],
    'key.insertAll': clips['key.insertAll'],
    'key.delete': clips['key.delete'],
    'key.move': clips['key.move'],
    // The app's timeline commands (view-commands.ts) on the headless timeline.
    'playback.seek': { run: (time) => timeline.seek(time) },
    'playback.previousFrame': { run: () => timeline.step(-1) },
    'playback.nextFrame': { run: () => timeline.step(1) },
    'skin.method': {
      run: (method) => {
        if (method !== 'lbs' && method !== 'dqs')
          throw new AppOnlyCommand('skin.method', `"${method}" skinning needs the viewport; headless, lbs or dqs`);
        skinMethod = method;
      },
    },
    'playback.clip': {
      run: (index) => {
        const count = store.doc.clips?.length ?? 0;
        if (index >= count) throw new Error(`playback.clip: argument must be a clip from 0 to ${count - 1}, got ${index}`);
        // Choosing what to view is not an edit: no undo step.
        const fields = showClipFields(store.doc, index);
        if (fields.poses !== store.doc.poses) store.show(fields);
      },
    },
    'edit.undo': { run: () => void store.history.undo(), canRun: () => store.history.canUndo, refusal: 'nothing to undo' },
    'edit.redo': { run: () => void store.history.redo(), canRun: () => store.history.canRedo, refusal: 'nothing to redo' },
  };
  registry.registerAll(handlers);
  for (const id of Object.keys(COMMANDS) as CommandId[]) {
    if (isHeadlessCommand(id)) continue;
    const why = appOnlyReason(id);
    registry.register(id, {
      run: () => {
        throw new AppOnlyCommand(id, why);
      },
      canRun: () => false,
      refusal: `it runs only in the app: ${why}`,
    });
  }
  const state: HeadlessState = {
    get maxInfluences() {
      return paintSettings.maxInfluences;
    },
    get binding() {
      return binding.options;
    },
    get selectedBone() {
      return boneSelection.bone;
    },
    get skinMethod() {
      return skinMethod;
    },
    get time() {
      return timeline.time;
    },
    restore(settings) {
      if (settings.maxInfluences !== undefined) maxInfluences.startWith(settings.maxInfluences);
      // The app's bind.options handler: fields left out stay.
      if (settings.binding) void bind['bind.options'].run(settings.binding);
      // A saved selection the skeleton does not have reads as none, as in the app.
      if (settings.selectedBone !== undefined) boneSelection.restore(settings.selectedBone);
      if (settings.skinMethod !== undefined) skinMethod = settings.skinMethod;
    },
  };
  state.restore(options);
  return Object.assign(registry, { state });
}

/** The index of mesh `part` (an index or a name) of the scene, as the Meshes panel's controller finds it. */
function meshIndexOf(doc: SceneDocument, part: number | string): number {
  const parts = partsOf(doc);
  const index = typeof part === 'number' ? part : parts.findIndex((p) => p.name === part);
  if (!Number.isInteger(index) || index < 0 || index >= parts.length) throw new Error(`no mesh ${String(part)} in the scene`);
  return index;
}
