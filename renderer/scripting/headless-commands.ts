/**
 * The app's commands without the page: a CommandRegistry (the app's own class, so every argument is checked by the
 * same schemas and refused for the same reasons) on a SceneStore, for `rigwright run` and for tests. Each command
 * that makes sense without a viewport does what the app's handler does, with the same argument meaning and the same
 * undo label, and most of them through the app's own handler modules:
 *
 *  - binding (bind.options, bind.compute, bind.computeRigid, bind.maxInfluences, bind.limitInfluences): the app's
 *    bind commands on the app's BindingController and MaxInfluences, their worker calls (automatic handles, harmonic
 *    weights) made in-process with the same workers/ functions and the same inputs, so the weights are the app's,
 *    bit for bit;
 *  - bone edits (bone.rename, bone.insert, bone.delete, bone.reparent, bone.reorder, bone.moveJoint, bone.split,
 *    bone.mirror): the app's skeleton commands, the selected bone (bone.select) following its bone;
 *  - weight edits (paint.normalize, paint.limit, paint.prune, paint.smooth, paint.mirrorToPositive,
 *    paint.mirrorToNegative, paint.lock): workers/scene/scene-edits.ts, which gives the paint panel's weights bit for
 *    bit, under the paint panel's labels;
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
 * Every other catalog command is refused with the reason it needs the app (AppOnlyCommand). Context keys come from
 * the store (hasSkeleton, boneSelected, binding); nothing is ever busy with a gesture (toolBusy is never set).
 * No DOM: the command-line tool imports this module.
 */
import { COMMANDS, type ArgumentList, type CommandId } from '../commands/command-catalog.ts';
import { CommandRefused, CommandRegistry, type CommandHandlers, type Outcome } from '../commands/command-registry.ts';
import type { WhenContext } from '../commands/when-clause.ts';
import { bindCommands } from '../bind/bind-commands.ts';
import { BindingController, type BindOptions } from '../bind/binding-controller.ts';
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
import { PRUNE_THRESHOLD } from '../paint/paint-commands.ts';
import type { MirrorVertexMap } from '../../workers/paint/mirror-vertex-map.ts';
import { mirrorVertexMap } from '../../workers/paint/mirror-vertex-map.ts';
import type { PaintSettings } from '../../workers/paint/paint-weights.ts';
import { vertexOneRing, type VertexOneRing } from '../../workers/paint/vertex-one-ring.ts';
import { boneCountOf, vertexCountOf, type SceneDocument } from '../../workers/scene/scene-document.ts';
import {
  boneScaleEdit,
  limitTotalEdit,
  mirrorToleranceOf,
  mirrorWeightsEdit,
  normalizeWeightsEdit,
  paintLockEdit,
  pruneWeightsEdit,
  smoothBoneEdit,
  type SceneEdit,
  type WeightEditOptions,
} from '../../workers/scene/scene-edits.ts';
import { showClipFields } from '../../workers/scene/clip-edits.ts';
import type { SceneStore } from '../../workers/scene/scene-store.ts';
import { automaticHandles } from '../../workers/weights/automatic-handles.ts';
import { harmonicWeights } from '../../workers/weights/harmonic-weights.ts';
import { volumetricWeights } from '../../workers/weights/volumetric-weights.ts';
import { MAX_INFLUENCES_DEFAULT } from '../../workers/weights/limit-influences.ts';

/** The commands a headless registry runs; every other catalog command is refused (it needs the app). */
export const HEADLESS_COMMANDS = [
  'bind.options',
  'bind.compute',
  'bind.computeRigid',
  'bind.maxInfluences',
  'bind.limitInfluences',
  'paint.normalize',
  'paint.limit',
  'paint.prune',
  'paint.smooth',
  'paint.mirrorToPositive',
  'paint.mirrorToNegative',
  'paint.lock',
  'bone.select',
  'bone.scale',
  'bone.rename',
  'bone.insert',
  'bone.delete',
  'bone.reparent',
  'bone.reorder',
  'bone.moveJoint',
  'bone.split',
  'bone.mirror',
  'skin.method',
  'playback.clip',
  'edit.undo',
  'edit.redo',
  'weights.set',
  'weights.add',
  'weights.scale',
  'weights.transfer',
  'weights.transferFromMesh',
  'clip.new',
  'clip.rename',
  'clip.trim',
  'clip.length',
  'pose.rotate',
  'pose.reset',
  'pose.resetAll',
  'pose.rest',
  'pose.copy',
  'pose.pasteMirrored',
  'pose.ik',
  'key.insert',
  'key.insertAll',
  'key.delete',
  'key.move',
  'playback.seek',
  'playback.previousFrame',
  'playback.nextFrame',
] as const satisfies readonly CommandId[];

export type HeadlessCommandId = (typeof HEADLESS_COMMANDS)[number];

/** The skinning methods headless deformation has (`rig.scene.skin`'s default). */
export type HeadlessSkinMethod = 'lbs' | 'dqs';

/** What a headless run starts from besides the document (a project's saved settings). */
export interface HeadlessOptions {
  /** the scene's max influences, 1 … 8 (a project's paint.maxInfluences); default MAX_INFLUENCES_DEFAULT */
  maxInfluences?: number;
  /** how Compute weights runs (a project's binding settings); fields left out: the app's defaults (BIND_DEFAULTS) */
  binding?: BindOptions;
  /** the selected bone, -1 for none (a project's view.selectedBone); default none */
  selectedBone?: number;
  /** the method `rig.scene.skin` uses by default; default 'lbs' */
  skinMethod?: HeadlessSkinMethod;
  /** called as a long command runs (Compute weights' stages), each time its stage or fraction changes */
  onProgress?(progress: HeadlessProgress): void;
  /** called once a command that reports what it did is done (Compute weights: its bind report) */
  onReport?(report: HeadlessReport): void;
}

/** How far a long command has got, as the app's progress bar says it. */
export interface HeadlessProgress {
  readonly command: CommandId;
  /** the stage as the progress bar words it, with the time so far: `Solving: bone 3 of 20 · 1.2 s` */
  readonly text: string;
  /** 0 … 1 */
  readonly fraction: number;
}

/** What a command did, as the app's Bind panel reports it, one sentence a line. */
export interface HeadlessReport {
  readonly command: CommandId;
  /** what was done: the vertices welded into fewer for the solve */
  readonly lines: readonly string[];
  /** what the artist may want to fix: bones without handle vertices, parts of the mesh without handles */
  readonly warnings: readonly string[];
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

/** A command that needs the app (its viewport, a panel, a dialog): refused headless, saying why. */
export class AppOnlyCommand extends CommandRefused {
  constructor(command: CommandId, why: string) {
    super(command, `it runs only in the app: ${why}`);
    this.message = `${command} runs only in the app: ${why}`;
  }
}

/** Why a command that is not headless needs the app, by id or by the id's prefix (the first match wins). */
const APP_ONLY_REASONS: readonly (readonly [RegExp, string])[] = [
  [/^file\./, 'it opens a dialog or a file of the app; a script opens, saves and exports with rig.files'],
  [
    /^weights\.transferFromFile$/,
    'it asks for the file in a dialog; a script carries weights between meshes of its scene with weights.transferFromMesh',
  ],
  [
    /^weights\.(vertexPanel|copyRow|pasteRow)$/,
    'it works on the vertices selected in the viewport and the row the Vertex weights panel copied; a script sets a bone’s weight on vertices with weights.set',
  ],
  [
    /^bind\.(xray|assign|clear|selectByWeight)$/,
    'it works on the vertices selected in the viewport; a script sets handles with rig.scene.setHandles',
  ],
  [
    /^bind\.(loadHandles|saveHandles|compareHandles|saveWeights)$/,
    'it opens a file dialog; a script reads handles and weights with rig.scene',
  ],
  [/^bind\.cancel$/, 'headless, Compute weights runs to its end before the next command'],
  [/^bind\.computePart$/, 'it binds the mesh made active in the Meshes panel'],
  [/\.panel$|^panel\./, 'it opens or closes a panel'],
  [/^(tool|skeleton)\.|^paint\.resizeBrush$/, 'it needs the viewport and the pointer'],
  [/^paint\./, 'it uses the brush, which paints in the viewport'],
  [/^(view|help|app)\./, 'it changes what the window shows'],
  [/^skin\./, 'it changes how the viewport deforms the mesh; headless, skin.method chooses lbs or dqs for rig.scene.skin'],
  [
    /^pose\.(space|ikMode|pole|poleFromView)$/,
    'it sets how the pose tool’s gizmo and IK drags work in the viewport; a script poses bones with pose.rotate and pose.ik',
  ],
  [
    /^playback\.(toggle|playing)$/,
    'headless nothing plays; a script goes to a frame with playback.seek and reads its pose with rig.scene.pose',
  ],
  [/^playback\./, 'it works on the timeline'],
  [/^examples\./, 'it works on the Examples panel'],
  [/^meshes\./, 'it works on the Meshes panel'],
  [/^template\./, 'it places markers in the viewport'],
  [/^script\./, 'it drives the Scripting panel, and a script does not run scripts'],
];

/** Why `id`, not a headless command, needs the app. */
export function appOnlyReason(id: CommandId): string {
  return APP_ONLY_REASONS.find(([pattern]) => pattern.test(id))?.[1] ?? 'it needs the app’s window';
}

const HEADLESS = new Set<CommandId>(HEADLESS_COMMANDS);

/** The registry that refuses every command of the app alone before it looks at the argument or the context. */
class HeadlessCommandRegistry extends CommandRegistry {
  override refusal(id: CommandId, context?: WhenContext): string | null {
    return HEADLESS.has(id) ? super.refusal(id, context) : `it runs only in the app: ${appOnlyReason(id)}`;
  }

  override execute<K extends CommandId>(id: K, ...argument: ArgumentList<K>): Outcome<K> {
    if (!HEADLESS.has(id)) throw new AppOnlyCommand(id, appOnlyReason(id));
    return super.execute(id, ...argument);
  }
}

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
    if (HEADLESS.has(id)) continue;
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

/**
 * The app's binding controller on `store`, its worker calls made here: automatic handles, harmonic and volumetric
 * weights by the binding worker's own functions (workers/binding.worker.ts), on the inputs the controller gives the
 * worker.
 */
function headlessBinding(store: SceneStore, maxInfluences: MaxInfluences): BindingController {
  const binding: BindingController = new BindingController({
    store,
    client: {
      // The computation runs in the controller's call: running while the controller shows its progress (so that the
      // progress it is given is taken, as the app's worker's is).
      get running() {
        return binding.progress.running;
      },
      automaticHandles: (positions, skeleton, rule) => Promise.resolve(automaticHandles(positions, skeleton, rule)),
      harmonicWeights: (request, progress) =>
        Promise.resolve(
          harmonicWeights(request.positions, request.triangles, request.handles, request.boneCount, request.options, progress),
        ),
      volumetricWeights: (positions, triangles, skeleton, options, progress) =>
        Promise.resolve(volumetricWeights(positions, triangles, skeleton, options, progress)),
      cancel: () => undefined,
    },
    io: {
      readRigFile: () => Promise.reject(new Error('headless: handle files are read by the script')),
      handlesFromDmat: () => Promise.reject(new Error('headless: handle files are read by the script')),
    },
    bridge: {
      openFiles: () => Promise.resolve([]),
      saveFile: () => Promise.resolve(false),
    },
    posedPositions: () => store.doc.mesh.positions,
    viewProjection: () => ({ elements: [], width: 1, height: 1 }),
    selectedBone: () => -1,
    load: () => Promise.resolve(),
    // The controller reports a failed computation here and in lastError; failedBind turns it into the command's error.
    showError: () => undefined,
    computed: () => undefined,
    vertexMask: () => null,
    shownTriangles: () => store.doc.mesh.triangles,
    limitWeights: (weights) => maxInfluences.limit(weights),
    maxInfluences: () => maxInfluences.value,
  });
  return binding;
}

/**
 * Compute weights' progress and report for a headless caller: each change of the binding's progress goes to
 * `onProgress` while it runs, and once a command binding the scene is done, `onReport` gets its bind report.
 * @returns a wrapper for the bind commands' runs, naming the command the progress and the report belong to
 */
function bindProgressAndReport(
  binding: BindingController,
  store: SceneStore,
  { onProgress, onReport }: Pick<HeadlessOptions, 'onProgress' | 'onReport'>,
): (command: CommandId, run: () => Promise<void>) => Promise<void> {
  let running: CommandId | null = null;
  let last = '';
  binding.onChange(() => {
    const { running: busy, stage, fraction } = binding.progress;
    if (!busy || running === null || `${stage} ${fraction}` === last) return;
    last = `${stage} ${fraction}`;
    onProgress?.({ command: running, text: binding.progressText(), fraction });
  });
  return async (command, run) => {
    const before = binding.lastResult;
    running = command;
    last = '';
    try {
      await run();
    } finally {
      running = null;
    }
    const done = binding.lastResult;
    if (!done || done === before) return;
    const solved = vertexCountOf(store.doc);
    const welded = done.result.weldedVertexCount;
    onReport?.({
      command,
      lines: welded < solved ? [`${solved} vertices solved as ${welded} (coincident ones welded)`] : [],
      warnings: binding.reportLines(),
    });
  };
}

/**
 * The app's Compute weights never rejects (it shows its error); a script's command does: it rejects with the
 * controller's message, the scene left as it was.
 */
async function failedBind(binding: BindingController, run: Promise<void> | void): Promise<void> {
  await run;
  if (binding.lastError !== null) throw new Error(`Compute weights failed: ${binding.lastError}`);
}

type WeightEditId =
  'paint.normalize' | 'paint.limit' | 'paint.prune' | 'paint.smooth' | 'paint.mirrorToPositive' | 'paint.mirrorToNegative' | 'paint.lock';

/**
 * The paint panel's whole-mesh commands as scene edits (scene-edits.ts: the paint session's weights, bit for bit),
 * under the paint controller's labels; one undo step each, none when nothing changes. They act on every vertex (no
 * mesh is active headless), keep the locked bones and re-apply the scene's max influences on the rows they change.
 * The mirror matches and one-rings, which depend on the mesh alone, are kept while the mesh stays.
 */
function weightEditCommands(
  store: SceneStore,
  selectedBone: () => number,
  maxInfluences: () => number,
): { [K in WeightEditId]: CommandHandlers[K] } {
  let cache: { mesh: SceneDocument['mesh']; mirror: (MirrorVertexMap | undefined)[]; oneRing?: VertexOneRing } | null = null;
  const meshCache = () => {
    const { mesh } = store.doc;
    if (cache?.mesh !== mesh) cache = { mesh, mirror: [] };
    return cache;
  };
  const options = (): WeightEditOptions => ({ maxInfluences: maxInfluences() });
  const apply = (edit: SceneEdit | null, label?: string): void => {
    if (edit) store.edit(label ?? edit.label, edit.fields);
  };
  const mirror = (axis: 0 | 1 | 2 = 0, side: -1 | 1): void => {
    const doc = store.doc;
    const known = meshCache();
    const map = (known.mirror[axis] ??= mirrorVertexMap(doc.mesh.positions, doc.mesh.triangles, axis, mirrorToleranceOf(doc)));
    apply(mirrorWeightsEdit(doc, axis, side, options(), map));
  };
  return {
    'paint.normalize': { run: () => apply(normalizeWeightsEdit(store.doc, options())) },
    'paint.limit': { run: () => apply(limitTotalEdit(store.doc, options())) },
    'paint.prune': { run: (threshold = PRUNE_THRESHOLD) => apply(pruneWeightsEdit(store.doc, threshold, options())) },
    // The paint controller names the step by the bone's number.
    'paint.smooth': {
      run: () => {
        const bone = selectedBone();
        const known = meshCache();
        known.oneRing ??= vertexOneRing(vertexCountOf(store.doc), store.doc.mesh.triangles, store.doc.mesh.positions);
        apply(smoothBoneEdit(store.doc, bone, options(), known.oneRing), `Smooth bone ${bone}`);
      },
    },
    // Headless there is no symmetry in use: without an axis, x.
    'paint.mirrorToPositive': { run: (axis) => mirror(axis, 1) },
    'paint.mirrorToNegative': { run: (axis) => mirror(axis, -1) },
    'paint.lock': {
      run: (bone) => {
        const locked = store.doc.paintLocks?.[bone] !== 1;
        apply(paintLockEdit(store.doc, bone, locked));
        return locked;
      },
    },
  };
}
