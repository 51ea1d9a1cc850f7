/**
 * What each command is: its label, the desktop menu it appears in, its tooltip text and when it is enabled.
 * Pure data, so the keybinding table, the help overlay, the desktop menus and the README's key table are all made
 * from one list, in Node tests as in the app; its argument and result schemas check what a script or key passes and
 * give the script API's declarations. What a command does lives in its feature's command module (paint/paint-commands.ts,
 * skeleton/skeleton-commands.ts, …), gathered by shell/app-commands.ts.
 */
import { arg, type Schema, type TypeOf } from './command-schema.ts';
import { METHOD_LABELS, type SkinMethod } from '../deform/skin-methods.ts';
import type { HandleSource } from '../bind/handle-sources.ts';
import type { TemplateKind } from '../skeleton/template-kinds.ts';
import { VIEW_MODES } from '../view/view-modes.ts';
import { BRUSH_FALLOFFS, BRUSH_MODES, BRUSH_RADIUS_RANGE } from '../paint/brush-options.ts';
import { AUTOSAVE_DELAY_RANGE, AUTOSAVE_MAX_WAIT_RANGE, AUTOSAVE_VERSIONS_RANGE } from '../project/autosave.ts';
import { RBF_KERNELS } from '../../workers/posespace/pose-space-weights.ts';
import { MAX_INFLUENCE_CHOICES } from '../../workers/weights/limit-influences.ts';
import { BINDING_METHODS } from '../../workers/weights/binding-method.ts';
import { VOLUMETRIC_FALLOFF_RANGE, VOXEL_RESOLUTION_RANGE } from '../../workers/weights/volumetric-weights.ts';
import type { GltfWeightComponent } from '../../workers/formats/gltf-skin-weights.ts';

/**
 * The menus, in menu-bar order (menus.ts builds them; each command names the one it appears in): the desktop's native
 * menu and the web page's menu bar show the same. How the mesh is skinned and coloured is in View; binding, the
 * template, posing and the example shapes are in Rig.
 */
export const MENUS = ['File', 'Edit', 'View', 'Rig', 'Paint', 'Playback', 'Help'] as const;
export type MenuName = (typeof MENUS)[number];

/**
 * Each menu's groups, in the order the menu shows them, a separator between two: every command with a menu names one
 * of its menu's groups (`group`), and within a group the commands keep catalog order.
 */
export const MENU_GROUPS = {
  File: ['project', 'exchange', 'recent', 'samples', 'settings'],
  Edit: ['history', 'skeleton', 'preferences'],
  View: ['camera', 'display', 'skinning', 'meshes', 'panels', 'palette'],
  Rig: ['selection', 'handles', 'weights', 'pose', 'examples', 'template'],
  Paint: ['mode', 'weights', 'mirror', 'bone'],
  Playback: ['transport', 'keys', 'clips'],
  Help: ['help'],
} as const satisfies Record<MenuName, readonly string[]>;
/** A group of a menu's items (MENU_GROUPS). */
export type MenuGroup = (typeof MENU_GROUPS)[MenuName][number];

export interface CommandInfo {
  /** what the action is, as menus and the help overlay show it */
  label: string;
  menu?: MenuName;
  /** the group of its menu it is shown in (MENU_GROUPS); every command with a menu has one */
  group?: MenuGroup;
  /**
   * Why the command is in no menu, for one that has none: where the mouse reaches it instead (a panel's control, a
   * drag) or why a menu cannot (it acts during a drag). A test fails on a command with neither.
   */
  noMenu?: string;
  /** longer text for tooltips; the label when absent */
  description?: string;
  /** when-clause over the context keys (when-clause.ts); absent = always enabled */
  enabledWhen?: string;
  /** menus leave the command out while it cannot run (the recent files not there) */
  hideWhenDisabled?: boolean;
  /** what the command takes (checked before it runs); absent = nothing */
  argument?: Schema;
  /** what the command gives back to a script; absent = nothing */
  result?: Schema;
}

/** A gesture in progress (a lasso being drawn, a stroke being painted) blocks everything that edits or reads the scene. */
const IDLE = '!toolBusy';
/** Weights, binding, painting and export need bones: a mesh opened alone has none until the skeleton tool builds them. */
const BONES = 'hasSkeleton';

/** The skinning methods the viewport offers (deform/skin-methods.ts). */
const SKIN_METHODS = Object.keys(METHOD_LABELS) as SkinMethod[];
/** Influences per vertex a script may preview: 1 … 8, 0 = all. */
export const INFLUENCE_COUNTS = [1, 2, 3, 4, 5, 6, 7, 8, 0] as const;
/** Where Compute weights takes its handles from (bind/handle-sources.ts HANDLE_SOURCES). */
export const HANDLE_SOURCE_CHOICES = ['current', 'distance', 'cylinder'] as const satisfies readonly HandleSource[];
/** The templates the Template panel fits (skeleton/template-kinds.ts TEMPLATE_KINDS). */
export const TEMPLATE_KIND_CHOICES = ['humanoid', 'quadruped'] as const satisfies readonly TemplateKind[];
/** The Laplacians harmonic weights can be solved with. */
export const LAPLACIANS = ['cotan', 'uniform'] as const;
/** How a glTF export stores its weights (the export dialog's choices). */
export const WEIGHT_COMPONENTS = ['float', 'unsigned-short', 'unsigned-byte'] as const satisfies readonly GltfWeightComponent[];
/** A toggle gives back whether its thing is on now. */
const ON = arg.boolean;
/** The built-in example scripts (renderer/scripting/examples/<name>.ts), which the Scripting panel's Examples list opens. */
export const SCRIPT_EXAMPLES = ['bind-cylinder-uniform', 'prune-and-limit', 'mirror-and-rename', 'export-clips'] as const;
const SCRIPT_EXAMPLE_LIST = SCRIPT_EXAMPLES.join(', ');

/** The vertices a weights.* command changes: all, or those of a mesh (by index or name), or of a list, or both. */
const WEIGHTS_SCOPE = { mesh: arg.optional(arg.mesh()), vertices: arg.optional(arg.vertices) };
/** What every weights.* command keeps, as a brush stroke does. */
const WEIGHTS_ROWS =
  '(all, or those of mesh, of vertices, or of both); each changed row’s other unlocked bones are rescaled so it keeps its total (where none of them weighs, the bone keeps the whole row: its weight has nowhere to go), locked bones never change (a locked bone is refused), the max influences hold; one undo step';

/** How Compute weights runs: what bind.options sets, and what one bind.compute may take for that run alone. */
const BIND_OPTIONS = arg.object({
  source: arg.optional(arg.oneOf(HANDLE_SOURCE_CHOICES)),
  radiusFraction: arg.optional(arg.number(0.001, 1)),
  laplacian: arg.optional(arg.oneOf(LAPLACIANS)),
  bindUnhandled: arg.optional(arg.boolean),
  weldTolerance: arg.optional(arg.number(0, Number.MAX_SAFE_INTEGER)),
  method: arg.optional(arg.oneOf(BINDING_METHODS)),
  voxelResolution: arg.optional(arg.integer(VOXEL_RESOLUTION_RANGE[0], VOXEL_RESOLUTION_RANGE[1])),
  falloff: arg.optional(arg.number(VOLUMETRIC_FALLOFF_RANGE[0], VOLUMETRIC_FALLOFF_RANGE[1])),
});

const CATALOG = {
  'file.openProject': {
    label: 'Open project…',
    menu: 'File',
    group: 'project',
    description: 'Open a Rigwright project (.rig.glb)',
    enabledWhen: IDLE,
  },
  'file.save': {
    label: 'Save',
    menu: 'File',
    group: 'project',
    description: 'Save the project to its file (asks where the first time)',
    enabledWhen: IDLE,
  },
  'file.saveAs': { label: 'Save as…', menu: 'File', group: 'project', description: 'Save the project to a new file', enabledWhen: IDLE },
  'file.open': {
    label: 'Import…',
    menu: 'File',
    group: 'exchange',
    description: 'Open a mesh, skeleton, weights, poses, handles, a glTF or a project',
    enabledWhen: IDLE,
  },
  'file.recentFirst': { label: 'Recent project 1', menu: 'File', group: 'recent', enabledWhen: IDLE, hideWhenDisabled: true },
  'file.recentSecond': { label: 'Recent project 2', menu: 'File', group: 'recent', enabledWhen: IDLE, hideWhenDisabled: true },
  'file.recentThird': { label: 'Recent project 3', menu: 'File', group: 'recent', enabledWhen: IDLE, hideWhenDisabled: true },
  'file.recentFourth': { label: 'Recent project 4', menu: 'File', group: 'recent', enabledWhen: IDLE, hideWhenDisabled: true },
  'file.recentFifth': { label: 'Recent project 5', menu: 'File', group: 'recent', enabledWhen: IDLE, hideWhenDisabled: true },
  'file.export': {
    label: 'Export glTF…',
    menu: 'File',
    group: 'exchange',
    description: 'Export the rig as glTF',
    enabledWhen: `${IDLE} && ${BONES}`,
  },
  'file.saveSkeleton': {
    label: 'Save skeleton…',
    menu: 'File',
    group: 'exchange',
    description: 'Save the skeleton as a TGF with its bone names file beside it (body.tgf, body.names)',
    enabledWhen: `${BONES} && ${IDLE}`,
  },
  'file.autosaveSettings': {
    label: 'Autosave settings…',
    menu: 'File',
    group: 'settings',
    description: 'How long after the last change autosave waits for you to be idle, and how many versions it keeps',
  },
  'file.autosave': {
    label: 'Autosave timing and versions',
    noMenu: 'File → Autosave settings… sets it in a dialog',
    description:
      'Seconds of idleness before a version is written (0: off), the longest wait while busy, and versions kept (argument: { delaySeconds?, maxWaitSeconds?, versions? }; fields left out stay)',
    argument: arg.object({
      delaySeconds: arg.optional(arg.number(AUTOSAVE_DELAY_RANGE.min, AUTOSAVE_DELAY_RANGE.max)),
      maxWaitSeconds: arg.optional(arg.number(AUTOSAVE_MAX_WAIT_RANGE.min, AUTOSAVE_MAX_WAIT_RANGE.max)),
      versions: arg.optional(arg.integer(AUTOSAVE_VERSIONS_RANGE.min, AUTOSAVE_VERSIONS_RANGE.max)),
    }),
  },
  'file.exportSettings': {
    label: 'Export weight settings',
    noMenu: 'the Weight storage list of the Export glTF… dialog',
    description:
      'Weight storage of the glTF export, which the “as exported” preview shows; its influences are the scene’s max influences (bind.maxInfluences) (argument: { weightComponent? }; left out: stays)',
    argument: arg.object({ weightComponent: arg.optional(arg.oneOf(WEIGHT_COMPONENTS)) }),
  },
  'file.twistDemo': {
    label: 'Open the twist test',
    menu: 'File',
    group: 'samples',
    description: 'A tube whose second bone twists 0° → 180° (then 179° → 181°): LBS collapses, DQS keeps its volume',
    enabledWhen: IDLE,
  },
  'file.demo': {
    label: 'Start from the demo',
    menu: 'File',
    group: 'samples',
    description:
      "The demo creature's mesh, skeleton and clip as a new scene, unbound (no handles, provisional weights by bone distance), ready to bind",
    enabledWhen: IDLE,
  },
  // A script's run is one undo step, still open while it runs: undo and redo wait for its end (or Stop).
  'edit.undo': { label: 'Undo', menu: 'Edit', group: 'history', enabledWhen: `!scriptRunning && ${IDLE}` },
  'edit.redo': { label: 'Redo', menu: 'Edit', group: 'history', enabledWhen: `!scriptRunning && ${IDLE}` },
  'app.preferences': {
    label: 'Preferences…',
    menu: 'Edit',
    group: 'preferences',
    description: 'Theme, units, autosave, what a new scene starts with, and the keys of every command; saved for you, not with the project',
  },
  'view.frameAll': { label: 'Frame all', menu: 'View', group: 'camera' },
  'view.wireframe': { label: 'Wireframe', menu: 'View', group: 'display', result: ON },
  'view.skeleton': { label: 'Show skeleton', menu: 'View', group: 'display', result: ON },
  'view.look': {
    label: 'Look',
    menu: 'View',
    group: 'display',
    description: 'The asset’s own materials and textures, or back to the weight view shown before',
  },
  'view.nextWeightView': {
    label: 'Next view: look, shaded, weight map, dominant bone, handles (and transfer match after a transfer)',
    menu: 'View',
    group: 'display',
  },
  'view.isoLines': { label: 'Iso-lines on the weight map', menu: 'View', group: 'display', result: ON },
  'view.asExported': {
    label: 'Preview as exported',
    menu: 'View',
    group: 'display',
    description: 'What a linear-blend engine draws from the export: its strongest influences, quantized',
    result: ON,
  },
  'view.dismiss': {
    label: 'Close help and messages',
    enabledWhen: IDLE,
    noMenu: 'Esc; with the mouse, a click closes the help and the × closes a message',
  },
  'view.warnings': {
    label: 'Scene warnings',
    menu: 'View',
    group: 'panels',
    description: 'What reading the scene’s files noticed (a clamped value, a skipped field), listed in a notice',
  },
  'view.messages': {
    label: 'Messages',
    menu: 'View',
    group: 'panels',
    description: 'Every message shown this session, newest first, with its scene and time (notices go by themselves; this list keeps them)',
    result: ON,
  },
  'view.commandPalette': {
    label: 'Command palette…',
    menu: 'View',
    group: 'palette',
    description: 'Find any command by its name or menu, see its keys, and run it',
  },
  'help.keys': { label: 'Keyboard shortcuts', menu: 'Help', group: 'help', result: ON },
  'help.tour': { label: 'Tour of the toolbar', menu: 'Help', group: 'help', description: 'A few steps over the toolbar’s main controls' },
  'skin.nextMethod': { label: 'Next skinning method: linear blend, dual quaternion, per-face', menu: 'View', group: 'skinning' },
  'skin.heatMap': {
    label: 'Area change heat map',
    menu: 'View',
    group: 'skinning',
    description:
      'Colours each vertex by how much the surface around it shrinks (blue) or grows (red) against the rest pose: the distortion heat map, log2 of the one-ring area ratio',
    result: ON,
  },
  'bind.panel': { label: 'Bind panel', menu: 'Rig', group: 'selection', description: 'Handles and harmonic weights', result: ON },
  'tool.lasso': {
    label: 'Lasso',
    menu: 'Rig',
    group: 'selection',
    description:
      'Draw a lasso to select vertices (Shift adds, Ctrl/⌘ removes, Esc cancels), or click a vertex (Shift adds it, Ctrl/⌘ toggles it)',
    enabledWhen: 'bindPanel',
  },
  'bind.xray': { label: 'X-ray: select hidden vertices too', menu: 'Rig', group: 'selection', enabledWhen: 'bindPanel', result: ON },
  'bind.assign': {
    label: 'Assign the selection to the bone',
    menu: 'Rig',
    group: 'selection',
    description: 'Make the selected vertices handles of the selected bone',
    enabledWhen: `bindPanel && ${IDLE}`,
  },
  'bind.clear': {
    label: 'Free the selected vertices',
    menu: 'Rig',
    group: 'selection',
    description: 'The selected vertices are no longer handles',
    enabledWhen: `bindPanel && ${IDLE}`,
  },
  'bind.loadHandles': {
    label: 'Load handles…',
    menu: 'Rig',
    group: 'handles',
    description: 'Open a handle file (#V × 1 DMAT)',
    enabledWhen: IDLE,
  },
  'bind.saveHandles': { label: 'Save handles…', menu: 'Rig', group: 'handles', description: 'Save the handles as DMAT (#V × 1)' },
  'bind.compareHandles': {
    label: 'Compare handles…',
    menu: 'Rig',
    group: 'handles',
    description: 'Overlap with a reference handle file, per bone',
  },
  'bind.compute': {
    label: 'Compute weights',
    menu: 'Rig',
    group: 'weights',
    description:
      'Weights by the binding method: harmonic weights from the handles over the surface, or volumetric weights from the bones through the solid the mesh encloses (every shell gets weights); auto picks volumetric for a mesh of several shells or with a boundary, or one whose automatic handles take over half its vertices (argument, optional: binding options for this run alone, as bind.options takes them)',
    enabledWhen: `!binding && ${IDLE} && ${BONES}`,
    argument: arg.optional(BIND_OPTIONS),
  },
  'bind.cancel': {
    label: 'Cancel the computation',
    menu: 'Rig',
    group: 'weights',
    description: 'Stop the computation; the current weights stay',
    enabledWhen: 'binding',
  },
  'bind.saveWeights': {
    label: 'Save weights…',
    menu: 'Rig',
    group: 'weights',
    description: 'Save the weights as DMAT (#V × #B)',
    enabledWhen: BONES,
  },
  'tool.brush': {
    label: 'Weight paint mode',
    menu: 'Paint',
    group: 'mode',
    description: 'Drag paints the selected bone on the posed mesh; click a joint to pick its bone',
    enabledWhen: BONES,
  },
  'paint.resizeBrush': {
    label: 'Resize the brush',
    menu: 'Paint',
    group: 'mode',
    description: 'Move, click or Enter confirms, Esc cancels',
    enabledWhen: 'tool == brush && toolState == idle',
  },
  'paint.normalize': {
    label: 'Normalize',
    menu: 'Paint',
    group: 'weights',
    description: 'Every vertex sums to 1 (locked bones kept)',
    enabledWhen: `${IDLE} && ${BONES}`,
  },
  'paint.limit': {
    label: 'Limit total',
    menu: 'Paint',
    group: 'weights',
    description: 'At most the max influences per vertex',
    enabledWhen: `${IDLE} && ${BONES}`,
  },
  'paint.prune': {
    label: 'Prune < 0.01',
    menu: 'Paint',
    group: 'weights',
    description: 'Drop weights below a threshold (argument: 0 … 1; 0.01 when left out)',
    enabledWhen: IDLE,
    argument: arg.optional(arg.number(0, 1)),
  },
  'paint.smooth': {
    label: 'Smooth bone',
    menu: 'Paint',
    group: 'weights',
    description: "Smooth the selected bone's weights",
    enabledWhen: `boneSelected && ${IDLE}`,
  },
  'paint.flood': {
    label: 'Flood fill',
    menu: 'Paint',
    group: 'weights',
    description:
      "The brush's mode on the selected bone over the selected vertices at once (the whole active mesh when none is selected): Set fills them with the set value, Add and Subtract change them by the strength, Smooth and Blur move each vertex by the strength toward the mean of its neighbours (one local step: the bone spreads no further than the next vertices), Relax does so keeping the bone's total over them",
    enabledWhen: `boneSelected && ${IDLE} && ${BONES}`,
  },
  'paint.mirrorToPositive': {
    label: 'Mirror − → +',
    menu: 'Paint',
    group: 'mirror',
    description:
      'Copy the − side onto the + side, bones swapped with their mirrored pairs (argument: the axis 0, 1 or 2; the symmetry axis, or x, when left out)',
    enabledWhen: IDLE,
    argument: arg.optional(arg.oneOf([0, 1, 2])),
  },
  'paint.mirrorToNegative': {
    label: 'Mirror + → −',
    menu: 'Paint',
    group: 'mirror',
    description:
      'Copy the + side onto the − side, bones swapped with their mirrored pairs (argument: the axis 0, 1 or 2; the symmetry axis, or x, when left out)',
    enabledWhen: IDLE,
    argument: arg.optional(arg.oneOf([0, 1, 2])),
  },
  'weights.set': {
    label: 'Set a bone’s weights',
    noMenu: 'scripts; the brush’s Set mode and Flood fill do it by hand',
    description: `The bone’s weight becomes value on the vertices ${WEIGHTS_ROWS} (argument: { bone, value, mesh?, vertices? }; result: how many vertices changed)`,
    enabledWhen: `${IDLE} && ${BONES}`,
    argument: arg.object({ bone: arg.bone(), value: arg.number(0, 1), ...WEIGHTS_SCOPE }),
    result: arg.integer(0),
  },
  'weights.add': {
    label: 'Add to a bone’s weights',
    noMenu: 'scripts; the brush’s Add and Subtract modes do it by hand',
    description: `The bone’s weight grows by value (less by a negative one, down to 0) on the vertices ${WEIGHTS_ROWS} (argument: { bone, value, mesh?, vertices? }; result: how many vertices changed)`,
    enabledWhen: `${IDLE} && ${BONES}`,
    argument: arg.object({ bone: arg.bone(), value: arg.number(-1, 1), ...WEIGHTS_SCOPE }),
    result: arg.integer(0),
  },
  'weights.scale': {
    label: 'Scale a bone’s weights',
    noMenu: 'scripts; the brushes change weights by hand',
    description: `The bone’s weight is multiplied by factor on the vertices it weighs on ${WEIGHTS_ROWS} (argument: { bone, factor, mesh?, vertices? }; result: how many vertices changed)`,
    enabledWhen: `${IDLE} && ${BONES}`,
    argument: arg.object({ bone: arg.bone(), factor: arg.number(0, 1000), ...WEIGHTS_SCOPE }),
    result: arg.integer(0),
  },
  'weights.transfer': {
    label: 'Transfer weights to another bone',
    noMenu: 'scripts; the brushes move weight between bones by hand',
    description: `Bone from’s weight moves to bone to on the vertices ${WEIGHTS_ROWS} (argument: { from, to, mesh?, vertices? }; result: how many vertices changed)`,
    enabledWhen: `${IDLE} && ${BONES}`,
    argument: arg.object({ from: arg.bone(), to: arg.bone(), ...WEIGHTS_SCOPE }),
    result: arg.integer(0),
  },
  'weights.vertexPanel': {
    label: 'Vertex weights panel',
    menu: 'View',
    group: 'panels',
    description:
      'The weights of the selected vertices (a click on the mesh with the lasso tool, Shift adds, Ctrl toggles; a lasso; or by a bone’s weight range): type a bone’s value, lock bones, copy a vertex’s row and paste it onto the selection',
    result: ON,
  },
  'weights.copyRow': {
    label: 'Copy a vertex’s weights',
    noMenu: 'the Copy button of the Vertex weights panel (View → Vertex weights panel)',
    description:
      'Keep the vertex’s row of weights for Paste (argument, optional: the vertex; the one clicked last, or the first selected, when left out; result: the row, one weight per bone)',
    enabledWhen: `${IDLE} && ${BONES}`,
    argument: arg.optional(arg.integer(0)),
    result: arg.perBone(arg.number(0, 1)),
  },
  'weights.pasteRow': {
    label: 'Paste the copied weights',
    noMenu: 'the Paste button of the Vertex weights panel (View → Vertex weights panel)',
    description:
      'Every selected vertex takes the copied row: locked bones keep their weights, the others are scaled to fill the rest, the max influences hold; one undo step (argument, optional: { row?, vertices? }; the copied row and the selection when left out; result: how many vertices changed)',
    enabledWhen: `${IDLE} && ${BONES}`,
    argument: arg.optional(arg.object({ row: arg.optional(arg.perBone(arg.number(0, 1))), vertices: arg.optional(arg.vertices) })),
    result: arg.integer(0),
  },
  'tool.skeleton': {
    label: 'Skeleton tool',
    menu: 'Edit',
    group: 'skeleton',
    description:
      'Click on the mesh to place joints inside it and chain bones, click a joint to branch, drag a joint to move it (Shift: to the middle), Alt-drag onto another to re-parent; Esc ends the chain',
  },
  'skeleton.endChain': {
    label: 'End the chain',
    menu: 'Edit',
    group: 'skeleton',
    description: 'The next click on the mesh starts a new chain; the bones made stay',
    enabledWhen: 'toolState == chaining',
  },
  'tool.cancel': {
    label: 'Cancel what the tool is doing',
    noMenu: 'Esc while a drag (a lasso, a stroke, a joint) holds the mouse, when no menu can be opened',
    description: 'Escape restores what the gesture changed',
    enabledWhen: 'toolBusy',
  },
  'tool.confirm': {
    label: 'Confirm the brush size',
    enabledWhen: 'toolState == resizing',
    noMenu: 'the click that ends resizing the brush confirms it (Enter too)',
  },
  'skin.method': {
    label: 'Skinning method',
    noMenu: 'the Skin list of the toolbar; View → Next skinning method steps through them',
    description: 'Linear blend, dual quaternion, per-face or weight blended (argument: the method)',
    argument: arg.oneOf(SKIN_METHODS),
  },
  'skin.antipodality': {
    label: 'Dual quaternion flip guard',
    noMenu: 'the Flip guard list of the toolbar',
    description: 'Keeps joints from flipping, per vertex or per bone along the skeleton: dual quaternion antipodality (argument: the mode)',
    argument: arg.oneOf(['per-vertex', 'per-bone']),
  },
  'skin.split': {
    label: 'Split view',
    noMenu: 'the Compare with list of the toolbar (split view)',
    description: 'A second method on the right, same camera and pose (argument: the method, or null)',
    argument: arg.nullable(arg.oneOf(SKIN_METHODS)),
  },
  'skin.blend': {
    label: 'Dual quaternion amount (weight blended)',
    noMenu: 'the Dual quaternion amount slider of the toolbar (weight-blended skinning)',
    description: 'LBS ↔ DQS blend on every vertex (argument: 0 … 1)',
    argument: arg.number(0, 1),
  },
  'skin.blendMap': {
    label: 'Dual quaternion amount per vertex',
    noMenu: 'takes one value per vertex, which only a script can give',
    description:
      'How much each vertex of the Weight blended method follows dual quaternion skinning rather than linear blend: the per-vertex LBS ↔ DQS blend weight (argument: one value 0 … 1 per vertex)',
    argument: arg.perVertex(arg.number(0, 1)),
  },
  'view.influences': {
    label: 'Preview influences per vertex',
    noMenu:
      'a preview for scripts until the max influences changes; the Max influences list of the Bind panel sets what the view, painting and the export keep',
    description:
      'Largest weights kept per vertex on screen, renormalized, until the scene’s max influences (bind.maxInfluences) changes (argument: 1 … 8, 0 = all)',
    argument: arg.oneOf(INFLUENCE_COUNTS),
  },
  'view.mode': {
    label: 'View',
    noMenu: 'the view list of the Bind panel; View → Next view steps through them',
    description:
      'Look, shaded, weight map, dominant bone, handles, or transfer match: each vertex of the last weight transfer matched, inpainted or with no match (argument: the view)',
    argument: arg.oneOf(VIEW_MODES),
  },
  'bone.select': {
    label: 'Select a bone',
    noMenu: 'a click on a joint, or on a row of the bone list',
    description: 'Argument: the bone, or -1 for none',
    enabledWhen: IDLE,
    argument: arg.bone(true),
  },
  'bone.scale': {
    label: 'Scale the bone',
    noMenu: 'the fields of the bone-scale panel shown for the selected bone',
    description: 'About its start joint (argument: { bone, scale: [x, y, z] })',
    enabledWhen: IDLE,
    argument: arg.object({ bone: arg.bone(), scale: arg.numbers(3, arg.number(0.05, 10)) }),
  },
  'bone.rename': {
    label: 'Rename a bone',
    noMenu: 'double-click (or F2) on a row of the bone list',
    description: 'Argument: { bone, name } (a name no other bone has)',
    enabledWhen: IDLE,
    argument: arg.object({ bone: arg.bone(), name: arg.string(true) }),
  },
  'bone.insert': {
    label: 'Insert a bone',
    noMenu: 'a click on the mesh with the skeleton tool (Edit → Skeleton tool)',
    description:
      'A new bone from the end of `parent` to `tip` (a new root from `head` to `tip` when parent is null), weighing nothing yet (argument: { parent, tip: [x, y, z], head?: [x, y, z] }; result: the new bone)',
    enabledWhen: IDLE,
    argument: arg.object({
      parent: arg.nullable(arg.bone()),
      tip: arg.numbers(3, arg.number(-1e9, 1e9)),
      head: arg.optional(arg.numbers(3, arg.number(-1e9, 1e9))),
    }),
    result: arg.integer(0),
  },
  'bone.delete': {
    label: 'Delete a bone',
    menu: 'Edit',
    group: 'skeleton',
    description:
      'Its children re-attach to its parent and its weight goes to the parent; every row still sums to 1 (argument, optional: the bone; the selected one when left out)',
    enabledWhen: IDLE,
    argument: arg.optional(arg.bone()),
  },
  'bone.reparent': {
    label: 'Re-parent a bone',
    noMenu: 'drag a row of the bone list onto another, or Alt-drag a joint onto another with the skeleton tool',
    description: 'The bone and its subtree hang from another bone, or become a root (argument: { bone, parent: a bone or null })',
    enabledWhen: IDLE,
    argument: arg.object({ bone: arg.bone(), parent: arg.nullable(arg.bone()) }),
  },
  'bone.reorder': {
    label: 'Number the bones anew',
    noMenu: 'takes the whole new order, which only a script can give',
    description: 'New bone i is old bone order[i]; every bone-indexed field follows (argument: the order, one bone per bone)',
    enabledWhen: IDLE,
    argument: arg.perBone(arg.bone()),
  },
  'bone.moveJoint': {
    label: 'Move a rest joint',
    noMenu: 'drag a joint with the skeleton tool (Edit → Skeleton tool)',
    description: 'Argument: { joint, position: [x, y, z] }',
    enabledWhen: IDLE,
    argument: arg.object({ joint: arg.integer(0), position: arg.numbers(3, arg.number(-1e9, 1e9)) }),
  },
  'bone.split': {
    label: 'Split the bone',
    menu: 'Edit',
    group: 'skeleton',
    description:
      'In two at a new joint; the second half takes the children and weighs nothing until a rebind (argument, optional: { bone?, at? }: the selected bone, at its middle, when left out)',
    enabledWhen: IDLE,
    argument: arg.optional(arg.object({ bone: arg.optional(arg.bone()), at: arg.optional(arg.number(0.001, 0.999)) })),
  },
  'bone.mirror': {
    label: 'Mirror the limb',
    menu: 'Edit',
    group: 'skeleton',
    description:
      'Copy the limb of the bone across the symmetry plane, with side names (.L/.R, _l/_r, Left/Right, L_/R_) (argument, optional: { bone?, axis? }: the selected bone, across x, when left out)',
    enabledWhen: IDLE,
    argument: arg.optional(arg.object({ bone: arg.optional(arg.bone()), axis: arg.optional(arg.oneOf([0, 1, 2])) })),
  },
  'tool.pose': {
    label: 'Pose tool',
    menu: 'Rig',
    group: 'pose',
    description: 'Click a joint to pick its bone, turn it with the rotation gizmo, or drag its end joint by IK; Esc cancels a drag',
  },
  'pose.space': {
    label: 'Gizmo in local or global axes',
    menu: 'Rig',
    group: 'pose',
    description:
      'The gizmo and the numbers turn the bone about its own axes (local) or the world’s (global) (argument, optional: the space; without one, the other)',
    argument: arg.optional(arg.oneOf(['local', 'global'])),
    result: arg.oneOf(['local', 'global']),
  },
  'pose.rotate': {
    label: 'Rotate a bone',
    noMenu: 'the rotation gizmo and the angle fields of the pose tool (Rig → Pose tool)',
    description:
      'Pose a bone by hand at a rotation relative to its parent: 9 numbers row-major, or a quaternion x, y, z, w (argument: { bone, rotation? , quaternion? })',
    enabledWhen: IDLE,
    argument: arg.object({
      bone: arg.bone(),
      rotation: arg.optional(arg.numbers(9, arg.number(-1.000001, 1.000001))),
      quaternion: arg.optional(arg.numbers(4, arg.number(-1e9, 1e9))),
    }),
  },
  'pose.reset': {
    label: 'Reset the bone to rest',
    menu: 'Rig',
    group: 'pose',
    description: 'The bone, posed by hand, turns back to its rest rotation (argument, optional: the bone; the selected one when left out)',
    enabledWhen: IDLE,
    argument: arg.optional(arg.bone()),
  },
  'pose.resetAll': {
    label: 'Reset the whole pose',
    menu: 'Rig',
    group: 'pose',
    description: 'Every bone posed by hand lets go: the rest pose, or the clip shown',
    enabledWhen: IDLE,
  },
  'pose.rest': {
    label: 'Show the rest pose',
    menu: 'Rig',
    group: 'pose',
    description: 'The rest pose on screen; the pose is kept',
    result: ON,
  },
  'pose.copy': { label: 'Copy the pose', menu: 'Rig', group: 'pose', description: 'Copy the pose shown, every bone' },
  'pose.pasteMirrored': {
    label: 'Paste the pose mirrored',
    menu: 'Rig',
    group: 'pose',
    description:
      'Every bone takes the copied rotation of its mirror partner (by side names, else by position), reflected across the symmetry plane (argument, optional: the axis 0, 1 or 2; x when left out)',
    enabledWhen: IDLE,
    argument: arg.optional(arg.oneOf([0, 1, 2])),
  },
  'pose.ik': {
    label: 'Reach a point by IK',
    noMenu: "drag a bone's end joint with the pose tool in IK mode (Rig → IK mode)",
    description:
      'Two-bone IK: the bone and its parent turn so that the bone’s end joint reaches the target, the bend in the plane through the pole, or the plane it bends in now (argument: { bone, target: [x, y, z], pole?: [x, y, z] }; result: whether the target was within reach)',
    enabledWhen: IDLE,
    argument: arg.object({
      bone: arg.bone(),
      target: arg.numbers(3, arg.number(-1e9, 1e9)),
      pole: arg.optional(arg.numbers(3, arg.number(-1e9, 1e9))),
    }),
    result: ON,
  },
  'pose.pole': {
    label: 'IK pole',
    noMenu: 'Rig → IK pole toward the view sets it; the Pose panel’s Clear pole clears it',
    description:
      'A world point the limb’s bend plane goes through when the pose tool’s IK drags; null or none clears it, keeping the plane the limb bends in now (argument: [x, y, z], null, or none)',
    argument: arg.optional(arg.nullable(arg.numbers(3, arg.number(-1e9, 1e9)))),
  },
  'pose.poleFromView': {
    label: 'IK pole toward the view',
    menu: 'Rig',
    group: 'pose',
    description:
      'The IK pole in front of the selected bone’s start joint (the knee or elbow), toward the camera: IK drags bend that joint toward the view',
  },
  'pose.ikMode': {
    label: 'IK mode',
    menu: 'Rig',
    group: 'pose',
    description: 'In the pose tool, drag the selected bone’s end joint: it and its parent bend to reach it (two-bone IK)',
    result: ON,
  },
  'playback.clip': {
    label: 'Animation clip',
    noMenu: "the clip menu at the timeline's end",
    description: 'Show one of the scene’s clips, keyed ones included; what is shown is not an edit (argument: its index)',
    enabledWhen: IDLE,
    argument: arg.integer(0),
  },
  'paint.brushMode': {
    label: 'Brush mode',
    noMenu: 'the mode buttons of the Paint panel (Paint → Weight paint mode)',
    description: 'Add, subtract, set, smooth, blur, relax, gradient or sample (argument: the mode)',
    argument: arg.oneOf(BRUSH_MODES),
  },
  'paint.brushRadius': {
    label: 'Brush radius',
    noMenu: 'the radius slider of the Paint panel, or Paint → Resize the brush',
    description: 'The brush’s radius on screen, in CSS pixels (argument: 2 … 400)',
    argument: arg.number(BRUSH_RADIUS_RANGE.min, BRUSH_RADIUS_RANGE.max),
  },
  'paint.brushStrength': {
    label: 'Brush strength',
    noMenu: 'the strength slider of the Paint panel',
    description: 'How much one dab adds or takes (argument: 0 … 1)',
    argument: arg.number(0, 1),
  },
  'paint.brushValue': {
    label: 'Brush set value',
    noMenu: 'the value slider of the Paint panel',
    description: 'The weight the set brush paints (argument: 0 … 1)',
    argument: arg.number(0, 1),
  },
  'paint.brushSpacing': {
    label: 'Brush spacing',
    noMenu: 'the spacing slider of the Paint panel',
    description: 'Distance between dabs as a fraction of the radius (argument: 0.05 … 1)',
    argument: arg.number(0.05, 1),
  },
  'paint.brushFalloff': {
    label: 'Brush falloff',
    noMenu: 'the falloff list of the Paint panel',
    description: 'Smooth, linear or constant (argument: the falloff)',
    argument: arg.oneOf(BRUSH_FALLOFFS),
  },
  'paint.throughMesh': {
    label: 'Paint through the mesh',
    noMenu: 'the through-the-mesh check box of the Paint panel',
    description: 'The brush reaches vertices hidden behind the surface too (argument: true or false)',
    argument: arg.boolean,
  },
  'paint.symmetry': {
    label: 'Symmetry',
    noMenu: 'the symmetry list of the Paint panel',
    description: 'Paint mirrored across x, y or z = 0 (argument: 0, 1, 2 or null)',
    argument: arg.nullable(arg.oneOf([0, 1, 2])),
  },
  'paint.cancelMatching': { label: 'Stop mirror matching', menu: 'Paint', group: 'mirror', description: 'The symmetry in use stays' },
  'paint.lock': {
    label: 'Lock or unlock a bone',
    noMenu: "the lock button of a bone's row in the Paint panel",
    description: 'Painting and commands keep a locked bone (argument: the bone); gives back whether it is locked now',
    enabledWhen: IDLE,
    argument: arg.bone(),
    result: ON,
  },
  'bind.computeRigid': {
    label: 'Bind parts without handles rigidly and recompute',
    menu: 'Rig',
    group: 'weights',
    description: 'Parts without handles follow their nearest bone',
    enabledWhen: `!binding && ${IDLE} && ${BONES}`,
  },
  'bind.maxInfluences': {
    label: 'Max influences',
    noMenu: 'the Max influences list of the Bind panel (Rig → Bind panel)',
    description:
      'The most bones per vertex: computed weights, paint strokes, the view and the glTF export keep it; lowering it limits the weights in the same undo step, raising it limits nothing (argument: 1 … 8)',
    argument: arg.oneOf(MAX_INFLUENCE_CHOICES),
    // An undo step of its own: it waits for a gesture, and for a running script, as the other edits do.
    enabledWhen: IDLE,
  },
  'bind.limitInfluences': {
    label: 'Limit weights to max influences',
    menu: 'Rig',
    group: 'weights',
    description:
      'Vertices with more bones than the max influences (weights from a file, or kept when it was raised) keep their largest, renormalised around the locked bones; one undo step (the Bind panel’s Limit now)',
    enabledWhen: `${IDLE} && ${BONES}`,
  },
  'bind.options': {
    label: 'Binding options',
    noMenu: 'the controls of the Bind panel (Rig → Bind panel)',
    description:
      'How Compute weights runs: handle source, cylinder radius (a fraction of the bounding diagonal), Laplacian, parts without handles bound rigidly, the distance in mesh units within which vertices are welded into one (0: exactly coincident ones), the method (auto: volumetric for a mesh of several shells or with a boundary, or one whose automatic handles take over half its vertices, surface harmonic for another closed connected one; surface; volumetric), the volumetric grid’s voxels along the longest side (64–512) and its falloff (weights ∝ distance^−falloff, 1–16) (argument: { source?, radiusFraction?, laplacian?, bindUnhandled?, weldTolerance?, method?, voxelResolution?, falloff? }; fields left out stay)',
    argument: BIND_OPTIONS,
  },
  'examples.panel': {
    label: 'Examples panel',
    menu: 'Rig',
    group: 'examples',
    description: 'Example shapes sculpted in known poses: context-aware deformation (unposing, pose-space weights)',
    result: ON,
  },
  'examples.add': {
    label: 'Add examples…',
    menu: 'Rig',
    group: 'examples',
    description: 'Open example meshes, each with its pose (eg0.obj with eg0.dmat); without one, the chosen pose',
    enabledWhen: IDLE,
  },
  'examples.remove': {
    label: 'Remove an example',
    noMenu: "the remove button of the example's row in the Examples panel",
    description: 'Argument: the example’s name',
    enabledWhen: IDLE,
    argument: arg.string(true),
  },
  'examples.toggle': {
    label: 'Hide or show an example',
    noMenu: "the check box of the example's row in the Examples panel",
    description: 'A hidden example takes no part (argument: its name)',
    enabledWhen: IDLE,
    argument: arg.string(true),
  },
  'examples.rename': {
    label: 'Rename an example',
    noMenu: "the name field of the example's row in the Examples panel",
    description: 'Argument: { name, newName }',
    enabledWhen: IDLE,
    argument: arg.object({ name: arg.string(true), newName: arg.string() }),
  },
  'examples.pose': {
    label: 'Pose of examples without a pose file',
    noMenu: 'the pose list of the Examples panel',
    description: 'The pose shown in the viewport, or a frame of the loaded sequence (argument: "viewport" or the frame)',
    argument: arg.union(arg.oneOf(['viewport']), arg.integer(0)),
  },
  'examples.kernel': {
    label: 'Falloff between poses (pose-space kernel)',
    noMenu: 'the Falloff between poses list of the Examples panel',
    description: 'Radial basis function of the pose-space weights (argument: the kernel)',
    argument: arg.oneOf(RBF_KERNELS),
  },
  'examples.map': {
    label: 'Example heat map',
    noMenu: 'the heat map list of the Examples panel',
    description:
      'Colour the mesh by the displacement the examples apply now, or, at an example’s own pose, by the distance to it (argument: off, displacement or error)',
    argument: arg.oneOf(['off', 'displacement', 'error']),
  },
  'examples.mapOff': {
    label: 'Switch off the example heat map',
    menu: 'View',
    group: 'skinning',
    description: 'The mesh shows its own colours again (the status line names the map while it is on)',
  },
  'examples.showUnposed': {
    label: 'Show the unposed examples',
    menu: 'Rig',
    group: 'examples',
    description: 'The rest mesh with the examples unposed beside it, three at a time',
    result: ON,
  },
  'examples.nextUnposed': { label: 'Next three unposed examples', menu: 'Rig', group: 'examples', enabledWhen: 'unposedShown' },
  'examples.cancelUnpose': {
    label: 'Cancel unposing',
    menu: 'Rig',
    group: 'examples',
    description: 'Stop unposing the examples; context skinning waits for it',
  },
  'panel.bones': {
    label: 'Bone list',
    menu: 'View',
    group: 'panels',
    description: 'The bones as a tree: search, select, rename (double-click or F2), drag to re-parent, Delete',
    result: ON,
  },
  'meshes.panel': {
    label: 'Meshes panel',
    menu: 'View',
    group: 'panels',
    description: 'The scene’s meshes: which one the brush, the lasso and binding act on; hide, show, isolate',
    result: ON,
  },
  'meshes.active': {
    label: 'Active mesh',
    noMenu: 'the active button of a row of the Meshes panel',
    description: 'The mesh the brush, the lasso and “Bind this mesh” act on (argument: its index or name; -1 = all)',
    enabledWhen: IDLE,
    argument: arg.mesh(true),
  },
  'meshes.toggle': {
    label: 'Hide or show a mesh',
    noMenu: 'the visibility check box of a row of the Meshes panel',
    description: 'Argument: its index or name; gives back whether it is shown now',
    enabledWhen: IDLE,
    argument: arg.mesh(),
    result: ON,
  },
  'meshes.hide': { label: 'Hide the active mesh', menu: 'View', group: 'meshes', enabledWhen: `meshActive && ${IDLE}` },
  'meshes.showAll': { label: 'Show all meshes', menu: 'View', group: 'meshes', enabledWhen: `meshHidden && ${IDLE}` },
  'meshes.isolate': {
    label: 'Isolate the active mesh',
    menu: 'View',
    group: 'meshes',
    description: 'Show only the active mesh; again: show all',
    enabledWhen: `meshActive && ${IDLE}`,
  },
  'script.panel': {
    label: 'Scripting panel',
    menu: 'View',
    group: 'panels',
    description: 'A TypeScript editor for scripts that drive the app through its commands: run, stop, open, save, examples',
    result: ON,
  },
  'script.run': {
    label: 'Run the script',
    noMenu: 'the Run button of the Scripting panel (View → Scripting panel)',
    description: 'Run the script in the Scripting panel’s editor; whatever it changes is one undo step',
    enabledWhen: `!scriptRunning && ${IDLE}`,
  },
  'script.stop': {
    label: 'Stop the script',
    noMenu: 'the Stop button of the Scripting panel, shown while a script runs',
    description: 'Stop the running script; the scene is left as it was before the run',
    enabledWhen: 'scriptRunning',
  },
  'script.open': {
    label: 'Open a script…',
    noMenu: 'the Open… button of the Scripting panel (View → Scripting panel)',
    description: 'Open a script file (.ts or .js) in the Scripting panel’s editor (asks first when its text has unsaved changes)',
  },
  'script.save': {
    label: 'Save the script',
    noMenu: 'the Save button of the Scripting panel (View → Scripting panel)',
    description: 'Save the editor’s script under its name (the desktop app asks where; the web page downloads it)',
  },
  'script.saveAs': {
    label: 'Save the script as…',
    noMenu: 'the Save as… button of the Scripting panel (View → Scripting panel)',
    description: 'Save the editor’s script under a new name, asked in the panel',
  },
  'script.example': {
    label: 'Open an example script',
    noMenu: 'the Examples list of the Scripting panel (View → Scripting panel)',
    description: `Open a built-in example in the Scripting panel’s editor, to run or adapt (argument: its name, one of ${SCRIPT_EXAMPLE_LIST})`,
    argument: arg.oneOf(SCRIPT_EXAMPLES),
  },
  'bind.computePart': {
    label: 'Bind the active mesh',
    menu: 'Rig',
    group: 'weights',
    description:
      'Weights of the active mesh alone by the binding method, as Compute weights chooses it for that mesh: harmonic weights from its handles, or volumetric weights from the bones through the solid it encloses; the other meshes keep their weights',
    enabledWhen: `meshActive && !binding && ${IDLE} && ${BONES}`,
  },
  'weights.transferFromMesh': {
    label: 'Transfer weights from another mesh',
    noMenu: 'the Transfer weights row of the Meshes panel (View → Meshes panel), which names both meshes',
    description:
      'Carry the weights of one mesh of the scene onto another: vertices whose closest point on the source is within maxDistance (a fraction of the target’s diagonal, 0.05 when left out) and whose normals differ by at most maxAngle degrees (30) take its weights, the others are inpainted from them, then smoothed (smooth: false leaves them); the target’s locked bones keep theirs; one undo step (argument: { from, to, maxDistance?, maxAngle?, smooth? }; result: the vertices matched, inpainted, and in parts with no match)',
    enabledWhen: `${IDLE} && ${BONES}`,
    argument: arg.object({
      from: arg.mesh(),
      to: arg.mesh(),
      maxDistance: arg.optional(arg.number(0.0001, 1)),
      maxAngle: arg.optional(arg.number(0, 180)),
      smooth: arg.optional(arg.boolean),
    }),
    result: arg.object({ matched: arg.integer(0), inpainted: arg.integer(0), nearest: arg.integer(0) }),
  },
  'weights.transferFromFile': {
    label: 'Transfer weights from a file…',
    menu: 'Rig',
    group: 'weights',
    description:
      'Carry the weights of a weighted file (a project, a rigged glTF, or a mesh with its weights .dmat and optionally its skeleton .tgf and .names), chosen in the file dialog, onto a mesh of the scene (to; the active one when left out), as weights.transferFromMesh does; the file’s bones are matched to the scene’s by name where both have names, else by count; one undo step (argument: { to?, maxDistance?, maxAngle?, smooth? }; result: the file, how its bones were matched, the vertices matched, inpainted, and in parts with no match; null when no file was chosen)',
    enabledWhen: `${IDLE} && ${BONES}`,
    argument: arg.optional(
      arg.object({
        to: arg.optional(arg.mesh()),
        maxDistance: arg.optional(arg.number(0.0001, 1)),
        maxAngle: arg.optional(arg.number(0, 180)),
        smooth: arg.optional(arg.boolean),
      }),
    ),
    result: arg.nullable(
      arg.object({
        file: arg.string(),
        bonesMatchedBy: arg.oneOf(['name', 'count'] as const),
        matched: arg.integer(0),
        inpainted: arg.integer(0),
        nearest: arg.integer(0),
      }),
    ),
  },
  'bind.selectReported': {
    label: 'Select the vertices of a line of the binding report',
    noMenu: 'the Select buttons of the Bind panel’s Last binding section, one per line',
    description:
      'Select the vertices a line of the Last binding report speaks of (the shells bound by one method, the welded vertices, the last transfer’s matched, inpainted or unmatched ones), as the lasso would (argument: the line, from 0; result: how many are selected)',
    enabledWhen: IDLE,
    argument: arg.integer(0),
    result: arg.integer(0),
  },
  'template.panel': {
    label: 'Template panel',
    menu: 'Rig',
    group: 'template',
    description: 'A named skeleton (humanoid or quadruped) fitted inside the mesh from a few markers dragged onto it in a front view',
    result: ON,
  },
  'template.options': {
    label: 'Template options',
    noMenu: 'the kind buttons and the fingers check box of the Template panel',
    description: 'Which template the markers fit, with finger chains or not (argument: { kind?, fingers? }; fields left out stay)',
    argument: arg.object({ kind: arg.optional(arg.oneOf(TEMPLATE_KIND_CHOICES)), fingers: arg.optional(arg.boolean) }),
  },
  'template.frontView': {
    label: 'Front view',
    menu: 'View',
    group: 'camera',
    description: 'Look along −z at the whole mesh (where the template markers are placed)',
  },
  'template.marker': {
    label: 'Place a template marker',
    noMenu: 'drag a marker of the Template panel onto the mesh',
    description: 'Put a marker on a surface point of the mesh (argument: { marker: its id, point: [x, y, z] })',
    argument: arg.object({ marker: arg.string(true), point: arg.numbers(3, arg.number(-1e9, 1e9)) }),
  },
  'template.resetMarkers': {
    label: 'Markers to their defaults',
    menu: 'Rig',
    group: 'template',
    description: 'Every template marker back where it starts on this mesh',
  },
  'template.fit': {
    label: 'Fit the template',
    menu: 'Rig',
    group: 'template',
    description: 'Replace the skeleton by the template fitted inside the mesh at the markers (provisional weights until bound)',
    enabledWhen: `!binding && ${IDLE}`,
  },
  'template.fitAndBind': {
    label: 'Fit and bind',
    menu: 'Rig',
    group: 'template',
    description: 'Fit the template, then compute harmonic weights from automatic handles (two undo steps: the fit, the weights)',
    enabledWhen: `!binding && ${IDLE}`,
  },
  'playback.toggle': { label: 'Play / pause', menu: 'Playback', group: 'transport' },
  'playback.playing': {
    label: 'Play or pause',
    noMenu: 'the play button of the timeline, or Playback → Play / pause',
    description: 'Argument: true plays, false pauses (result: whether it plays; a sequence of one pose never plays)',
    argument: arg.boolean,
    result: ON,
  },
  'playback.seek': {
    label: 'Go to a time',
    noMenu: "drag the timeline's slider",
    description: 'Argument: the time in the sequence’s frames (its SLERP parameter for a final pose), clamped to the sequence',
    argument: arg.number(0, Number.MAX_SAFE_INTEGER),
  },
  'playback.previousFrame': { label: 'Previous frame', menu: 'Playback', group: 'transport' },
  'playback.nextFrame': { label: 'Next frame', menu: 'Playback', group: 'transport' },
  'playback.bakeClip': {
    label: 'Bake clip…',
    menu: 'Playback',
    group: 'clips',
    description:
      'Sample the clip at a rate you choose; its keys become evenly spaced frames (argument: frames per second; without one, a dialog asks)',
    enabledWhen: IDLE,
    argument: arg.optional(arg.number(0.01, 10000)),
  },
  'key.insert': {
    label: 'Key the selected bone',
    menu: 'Playback',
    group: 'keys',
    description:
      'Key the pose on screen at the current frame into the clip shown (a new clip "Action" when it has no keys) (argument, optional: "selected" or "all"; without one, the selected bone, or all bones when none is; result: the frame keyed)',
    enabledWhen: IDLE,
    argument: arg.optional(arg.oneOf(['selected', 'all'])),
    result: arg.integer(0),
  },
  'key.insertAll': {
    label: 'Key all bones',
    menu: 'Playback',
    group: 'keys',
    description: 'Key every bone’s pose on screen at the current frame (result: the frame keyed)',
    enabledWhen: IDLE,
    result: arg.integer(0),
  },
  'key.delete': {
    label: 'Delete keys',
    menu: 'Playback',
    group: 'keys',
    description:
      'Delete the keys at the current frame (argument, optional: { frame?, bones?: "selected" or "all" }; without bones, the selected bone’s, or every bone’s when none is selected)',
    enabledWhen: IDLE,
    argument: arg.optional(arg.object({ frame: arg.optional(arg.integer(0)), bones: arg.optional(arg.oneOf(['selected', 'all'])) })),
  },
  'key.move': {
    label: 'Move keys',
    noMenu: 'drag a key mark on the timeline',
    description:
      'Move the keys at one frame to another (argument: { from, to, bones?: "selected" or "all" }; without bones, the selected bone’s, or every bone’s when none is selected)',
    enabledWhen: IDLE,
    argument: arg.object({ from: arg.integer(0), to: arg.integer(0), bones: arg.optional(arg.oneOf(['selected', 'all'])) }),
  },
  'clip.new': {
    label: 'New clip',
    menu: 'Playback',
    group: 'clips',
    description: 'A new clip at rest, without keys, shown (argument, optional: { name?, frames? }; result: its index)',
    enabledWhen: IDLE,
    argument: arg.optional(arg.object({ name: arg.optional(arg.string(true)), frames: arg.optional(arg.integer(1, 108000)) })),
    result: arg.integer(0),
  },
  'clip.rename': {
    label: 'Rename a clip',
    noMenu: "the Rename row of the clip menu at the timeline's end",
    description: 'Argument: { clip: its index, name } (a name no other clip has)',
    enabledWhen: IDLE,
    argument: arg.object({ clip: arg.integer(0), name: arg.string(true) }),
  },
  'clip.trim': {
    label: 'Trim the clip',
    noMenu: "the Frames row (Trim) of the clip menu at the timeline's end",
    description: 'Keep frames first … last of the keyed clip shown; it then starts at first (argument: { first, last })',
    enabledWhen: IDLE,
    argument: arg.object({ first: arg.integer(0), last: arg.integer(0) }),
  },
  'clip.length': {
    label: 'Clip length',
    noMenu: "the Length row of the clip menu at the timeline's end",
    description: 'Make the keyed clip shown this many frames long; new frames hold the last keys (argument: the frames)',
    enabledWhen: IDLE,
    argument: arg.integer(1, 108000),
  },
  'file.saveClip': {
    label: 'Save clip as DMAT…',
    menu: 'File',
    group: 'exchange',
    description: 'Save the clip shown as a 3·B·L × 3 pose DMAT (relative rotations, frame-major)',
    enabledWhen: IDLE,
  },
  'bone.isolateWeights': {
    label: 'Isolate the bone’s weights',
    menu: 'Paint',
    group: 'bone',
    description:
      'Select the bone and show its weights alone as the weight map (argument, optional: the bone; the selected one when left out)',
    enabledWhen: `${IDLE} && ${BONES}`,
    argument: arg.optional(arg.bone()),
  },
  'paint.sampleWeights': {
    label: 'Sample weights at a vertex',
    menu: 'Paint',
    group: 'bone',
    description:
      'List the bones that weigh on the vertex under the pointer, with their weights; chosen from a menu, the next click on the mesh says where, Esc cancels (argument, optional: the vertex)',
    enabledWhen: BONES,
    argument: arg.optional(arg.integer(0)),
  },
  'bind.selectByWeight': {
    label: 'Select vertices by weight',
    menu: 'Paint',
    group: 'bone',
    description:
      'Select the vertices the bone weighs from min (0.5 when left out) to max (1) on, for Assign or Free in the Bind panel and the Vertex weights panel (argument, optional: { bone?, min?, max? }; the selected bone when left out; result: how many are selected)',
    enabledWhen: `${IDLE} && ${BONES}`,
    argument: arg.optional(
      arg.object({ bone: arg.optional(arg.bone()), min: arg.optional(arg.number(0, 1)), max: arg.optional(arg.number(0, 1)) }),
    ),
    result: arg.integer(0),
  },
} as const satisfies Record<string, CommandInfo>;

type Catalog = typeof CATALOG;
export type CommandId = keyof Catalog;
export const COMMANDS: Readonly<Record<CommandId, CommandInfo>> = CATALOG;

/**
 * Whether a command needs an argument that no menu click, palette choice or key gives (its schema is neither none
 * nor optional): such a command runs from a script, or from the panel control that sets its value.
 */
export function needsArgument(id: CommandId): boolean {
  const argument = COMMANDS[id].argument;
  return argument !== undefined && argument.kind !== 'optional';
}

/** The argument a command takes (undefined: none). */
export type ArgumentOf<K extends CommandId> = Catalog[K] extends { argument: infer S } ? TypeOf<S> : undefined;
/** What a command gives back (void: nothing). */
export type ResultOf<K extends CommandId> = Catalog[K] extends { result: infer S } ? TypeOf<S> : void;
/** The arguments after the id of `execute(id, …)`: none, an optional one, or a required one. */
export type ArgumentList<K extends CommandId> = undefined extends ArgumentOf<K> ? [argument?: ArgumentOf<K>] : [argument: ArgumentOf<K>];
