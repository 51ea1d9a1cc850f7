/**
 * Which of the app's commands run without the page (HEADLESS_COMMANDS: `rigwright run`, the tests) and why each other
 * one needs the app (appOnlyReason): a headless registry (HeadlessCommandRegistry) refuses those with AppOnlyCommand
 * before it looks at their argument or the context.
 */
import type { ArgumentList, CommandId } from '../commands/command-catalog.ts';
import { CommandRefused, CommandRegistry, type Outcome } from '../commands/command-registry.ts';
import type { WhenContext } from '../commands/when-clause.ts';

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

/** Whether a headless registry runs `id` (HEADLESS_COMMANDS); every other command needs the app. */
export function isHeadlessCommand(id: CommandId): boolean {
  return HEADLESS.has(id);
}

/** The registry that refuses every command of the app alone before it looks at the argument or the context. */
export class HeadlessCommandRegistry extends CommandRegistry {
  override refusal(id: CommandId, context?: WhenContext): string | null {
    return HEADLESS.has(id) ? super.refusal(id, context) : `it runs only in the app: ${appOnlyReason(id)}`;
  }

  override execute<K extends CommandId>(id: K, ...argument: ArgumentList<K>): Outcome<K> {
    if (!HEADLESS.has(id)) throw new AppOnlyCommand(id, appOnlyReason(id));
    return super.execute(id, ...argument);
  }
}
