/**
 * What the right-click menus offer, without DOM: the commands only they made needed (isolate a bone's weights, sample
 * the weights at a vertex, select the vertices a bone weighs), and the items of each menu — on a joint, on the mesh,
 * on nothing, on a row of the bone list, the meshes panel or the clip picker — as catalog commands with their
 * arguments, so a menu item, its menu-bar entry and its key stay one action.
 */
import type { HandlersFor } from '../commands/command-handlers.ts';
import { displayKeys } from '../commands/keybindings.ts';
import type { ContextMenuEntries } from '../panels/context-menu.ts';
import type { ViewMode } from '../view/view-modes.ts';
import type { DenseMatrix } from '../../workers/formats/types.ts';
import { limbRoot, mirrorBones } from '../../workers/rig/mirror-bones.ts';
import { weightAt } from '../../workers/scene/bone-data.ts';
import { boneNamesOf } from '../../workers/scene/bone-fields.ts';
import { boneCountOf, vertexCountOf, type SceneDocument } from '../../workers/scene/scene-document.ts';

/** Weight a vertex needs of the bone for "Select vertices by weight" when none is given: where the bone leads. */
export const SELECT_BY_WEIGHT_MIN = 0.5;
/** Weights shown by "Sample weights" are those at least this large (smaller ones are rounding left by limits). */
const SAMPLE_SHOWN_MIN = 5e-4;

/** What the context commands use of the app. */
export interface ContextCommandsHost {
  readonly store: { readonly doc: SceneDocument };
  readonly boneSelection: { readonly bone: number };
  readonly binding: { selectVertices(inside: Uint8Array, combine: 'replace'): void; readonly selectedCount: number };
  readonly notice: { show(title: string, items: readonly string[]): void; hide(): void };
  selectBone(bone: number): void;
  setView(mode: ViewMode): void;
  setBindPanel(open: boolean): void;
  /** whether the Vertex weights panel is open (it then shows the selection) */
  vertexWeightsPanelOpen?(): boolean;
  /** the vertex under the pointer while it is over the viewport (the mesh's surface there), or -1 */
  vertexUnderPointer(): number;
  /** the next left click in the viewport picks a vertex instead of acting (Escape or any other press gives up: `cancelled`) */
  pickVertex(picked: (vertex: number) => void, cancelled: () => void): void;
}

export type ContextCommandId = 'bone.isolateWeights' | 'paint.sampleWeights' | 'bind.selectByWeight';

/**
 * The bones that weigh on a vertex, largest first, with their names: what "Sample weights" lists.
 * @param weights  #V × #B row-major
 * @returns one entry per bone whose weight is at least `min`
 */
export function weightsAtVertex(
  weights: DenseMatrix,
  names: readonly string[],
  vertex: number,
  min = SAMPLE_SHOWN_MIN,
): { bone: number; name: string; weight: number }[] {
  const row: { bone: number; name: string; weight: number }[] = [];
  for (let b = 0; b < weights.cols; b++) {
    const weight = weightAt(weights, vertex, b);
    if (weight >= min) row.push({ bone: b, name: names[b], weight });
  }
  return row.sort((p, q) => q.weight - p.weight || p.bone - q.bone);
}

/**
 * The vertices a bone weighs from `min` to `max` (both included) on.
 * @param weights  #V × #B row-major
 * @returns #V 1 = weighted
 */
export function verticesWeighted(weights: DenseMatrix, bone: number, min: number, max = 1): Uint8Array {
  const chosen = new Uint8Array(weights.rows);
  for (let v = 0; v < weights.rows; v++) {
    const w = weightAt(weights, v, bone);
    chosen[v] = w >= min && w <= max ? 1 : 0;
  }
  return chosen;
}

export function contextCommands(app: ContextCommandsHost): HandlersFor<ContextCommandId> {
  /** The bone given, else the selected one; without either, an error naming the command. */
  const boneFor = (command: ContextCommandId, bone: number | undefined): number => {
    const chosen = bone ?? app.boneSelection.bone;
    if (chosen < 0) throw new Error(`${command}: no bone given and none is selected (click a joint, or a row of the bone list)`);
    return chosen;
  };
  return {
    'bone.isolateWeights': {
      run: (bone) => {
        app.selectBone(boneFor('bone.isolateWeights', bone));
        app.setView('heatmap');
      },
    },
    'paint.sampleWeights': {
      run: (vertex) => {
        const doc = app.store.doc;
        if (vertex !== undefined && vertex >= vertexCountOf(doc))
          throw new Error(`paint.sampleWeights: argument must be a vertex from 0 to ${vertexCountOf(doc) - 1}, got ${vertex}`);
        const sample = (v: number) => {
          if (v < 0) return app.notice.show('Sample weights: the click missed the mesh', []);
          const row = weightsAtVertex(app.store.doc.weights, boneNamesOf(app.store.doc), v);
          app.notice.show(
            `Vertex ${v}: ${row.length === 1 ? '1 bone' : `${row.length} bones`}`,
            row.map(({ name, weight }) => `${name}: ${weight.toFixed(3)}`),
          );
        };
        const v = vertex ?? app.vertexUnderPointer();
        if (v >= 0) return sample(v);
        // From a menu the pointer is away from the mesh: the next click on it says where (an eyedropper).
        app.notice.show('Sample weights: click a point of the mesh (Esc cancels)', []);
        app.pickVertex(sample, () => app.notice.hide());
      },
    },
    'bind.selectByWeight': {
      run: (options) => {
        const bone = boneFor('bind.selectByWeight', options?.bone);
        const min = options?.min ?? SELECT_BY_WEIGHT_MIN;
        const max = options?.max ?? 1;
        if (min > max) throw new Error(`bind.selectByWeight: min ${min} is above max ${max}: no weight lies between them`);
        // The bone becomes the selected one too, so that Assign and the weight map then act on the bone chosen.
        if (bone !== app.boneSelection.bone) app.selectBone(bone);
        app.binding.selectVertices(verticesWeighted(app.store.doc.weights, bone, min, max), 'replace');
        // The selection is the Bind panel's (Assign and Free act on it there), unless the Vertex weights panel shows it.
        if (!app.vertexWeightsPanelOpen?.()) app.setBindPanel(true);
        return app.binding.selectedCount;
      },
    },
  };
}

/** What a bone's menu needs to know about the bone. */
export interface BoneMenuState {
  readonly doc: SceneDocument;
  /** whether painting keeps the bone's weights */
  readonly locked: boolean;
}

/**
 * The menu on a joint's bone (in the viewport) or on a row of the bone list: select it, lock or unlock its weights,
 * isolate them, and the bone edits that take a bone.
 */
export function boneMenu(bone: number, { doc, locked }: BoneMenuState): { title: string; entries: ContextMenuEntries } {
  const name = boneNamesOf(doc)[bone];
  return {
    title: `Bone ${name}`,
    entries: [
      { label: 'Select bone', command: 'bone.select', argument: bone },
      { label: locked ? 'Unlock its weights' : 'Lock its weights', command: 'paint.lock', argument: bone },
      { label: 'Isolate its weights (weight map)', command: 'bone.isolateWeights', argument: bone },
      { label: `Select vertices it weighs ≥ ${SELECT_BY_WEIGHT_MIN}`, command: 'bind.selectByWeight', argument: { bone } },
      null,
      { label: 'Rename…', command: 'bone.rename', argument: { bone }, ask: { field: 'name', label: 'Bone name', value: name } },
      { label: 'Reset its pose to rest', command: 'pose.reset', argument: bone },
      { label: 'Split the bone', command: 'bone.split', argument: { bone } },
      { label: 'Mirror the limb', command: 'bone.mirror', argument: { bone }, ...mirrorUnavailable(doc, bone) },
      { label: 'Delete the bone', command: 'bone.delete', argument: bone },
    ],
  };
}

/** Why the limb of a bone cannot be mirrored across x (the command's own reason: it lies on the plane, or its copy is there already), as a menu item's `unavailable`; {} when it can. */
function mirrorUnavailable(doc: SceneDocument, bone: number): { unavailable?: string } {
  try {
    mirrorBones(doc, [limbRoot(doc, bone, 0)], { axis: 0 });
    return {};
  } catch (error) {
    return { unavailable: `Mirror the limb: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/**
 * The menu on the mesh at a vertex: the weights there, and the vertices the selected bone (or, with none selected,
 * the vertex's strongest bone, if any weighs more there than Sample weights shows) weighs.
 */
export function meshMenu(vertex: number, doc: SceneDocument, selectedBone: number): { title: string; entries: ContextMenuEntries } {
  const names = boneNamesOf(doc);
  const [first] = boneCountOf(doc) > 0 ? weightsAtVertex(doc.weights, names, vertex) : [];
  const strongest = first && first.weight > SAMPLE_SHOWN_MIN ? first.bone : -1;
  const bone = selectedBone >= 0 ? selectedBone : strongest;
  const entries: (ContextMenuEntries[number] & object)[] = [
    { label: 'Sample weights here', command: 'paint.sampleWeights', argument: vertex },
  ];
  if (bone >= 0) {
    entries.push({
      label: `Select vertices ${names[bone]} weighs ≥ ${SELECT_BY_WEIGHT_MIN}`,
      command: 'bind.selectByWeight',
      argument: { bone },
    });
    if (bone !== selectedBone) entries.push({ label: `Select ${names[bone]} (strongest here)`, command: 'bone.select', argument: bone });
  }
  return { title: `Vertex ${vertex}`, entries: [...entries, null, ...viewEntries()] };
}

/** The menu on the viewport away from the mesh and the joints: what the view shows. */
export function viewMenu(): { title: string; entries: ContextMenuEntries } {
  return { title: 'View', entries: viewEntries() };
}

function viewEntries(): ContextMenuEntries {
  return [
    { label: 'Frame all', command: 'view.frameAll', keys: displayKeys('view.frameAll').split(' or ')[0] },
    { label: 'Wireframe', command: 'view.wireframe', keys: displayKeys('view.wireframe') },
    { label: 'Show skeleton', command: 'view.skeleton', keys: displayKeys('view.skeleton') },
  ];
}

/**
 * The menu on a row of the meshes panel (index -1: the row for all meshes).
 * @param hidden  whether the mesh is hidden now (the item reads Show it, else Hide it)
 */
export function meshRowMenu(index: number, name: string, hidden = false): { title: string; entries: ContextMenuEntries } {
  if (index < 0) return { title: 'All meshes', entries: [{ label: 'Make all active', command: 'meshes.active', argument: -1 }] };
  return {
    title: `Mesh ${name}`,
    entries: [
      { label: 'Make it the active mesh', command: 'meshes.active', argument: index },
      { label: hidden ? 'Show it' : 'Hide it', command: 'meshes.toggle', argument: index },
    ],
  };
}

/**
 * The menu on the clip picker: the clip edits that act on the clip shown.
 * @param clip  the clip's index (-1: none shown, no Rename)
 */
export function clipMenu(name: string, clip = -1): { title: string; entries: ContextMenuEntries } {
  const rename: ContextMenuEntries =
    clip >= 0
      ? [{ label: 'Rename…', command: 'clip.rename', argument: { clip }, ask: { field: 'name', label: 'Clip name', value: name } }]
      : [];
  return {
    title: `Clip ${name}`,
    entries: [
      ...rename,
      { label: 'Key the selected bone', command: 'key.insert', keys: displayKeys('key.insert') },
      { label: 'Key all bones', command: 'key.insertAll', keys: displayKeys('key.insertAll') },
      { label: 'Delete keys at this frame', command: 'key.delete', keys: displayKeys('key.delete') },
      null,
      { label: 'Bake clip…', command: 'playback.bakeClip' },
      { label: 'Save clip as DMAT…', command: 'file.saveClip' },
      { label: 'New clip', command: 'clip.new' },
    ],
  };
}
