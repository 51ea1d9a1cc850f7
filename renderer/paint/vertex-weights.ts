/**
 * Per-vertex weight editing without DOM: the table of the bones that weigh on the selected vertices (the selection is
 * the lasso's, shared with the Bind panel: a click, a lasso or a bone's weight range makes it), a copied row of
 * weights, and the commands of the Vertex weights panel — open it (`weights.vertexPanel`), copy the active vertex's
 * row (`weights.copyRow`), paste a row onto the selection (`weights.pasteRow`, one undo step, workers/scene/
 * scene-edits.ts pasteWeightRowEdit). A value typed in a row of the table runs `weights.set` on the selection.
 */
import { toggled, type HandlersFor } from '../commands/command-handlers.ts';
import type { VertexList } from '../commands/command-schema.ts';
import type { DenseMatrix } from '../../workers/formats/types.ts';
import { boneNamesOf } from '../../workers/scene/bone-fields.ts';
import { boneCountOf, vertexCountOf, type SceneDocument } from '../../workers/scene/scene-document.ts';
import { rowsOf } from '../../workers/scene/bone-data.ts';
import { pasteWeightRowEdit, SceneEditError } from '../../workers/scene/scene-edits.ts';
import type { SceneStore } from '../../workers/scene/scene-store.ts';

/** Weights of one bone over the selection that differ by more than this are shown as mixed (float32 rounding is less). */
export const MIXED_TOLERANCE = 1e-6;

/** One bone's row of the table. */
export interface VertexWeightRow {
  readonly bone: number;
  readonly name: string;
  /** the mean of the bone's weight over the selected vertices */
  readonly value: number;
  readonly min: number;
  readonly max: number;
  /** whether the selected vertices' weights of the bone differ (max − min > MIXED_TOLERANCE) */
  readonly mixed: boolean;
  /** whether painting and weight commands keep the bone's weights (the document's paintLocks) */
  readonly locked: boolean;
}

/** What the Vertex weights panel shows. */
export interface VertexWeightTable {
  /** how many vertices are selected */
  readonly count: number;
  /** the vertex Copy takes the row of, or -1 with none selected */
  readonly active: number;
  /** the bones that weigh on at least one selected vertex, the largest mean first (ties: in bone order) */
  readonly rows: readonly VertexWeightRow[];
}

/**
 * The vertex whose row Copy takes: `preferred` (the last one clicked) while it is selected, else the first selected.
 * @param selection  #V 1 = selected
 * @returns the vertex, or -1 with none selected
 */
export function activeVertexOf(selection: Uint8Array, preferred: number): number {
  if (preferred >= 0 && preferred < selection.length && selection[preferred]) return preferred;
  return selection.indexOf(1);
}

/**
 * The table of the selected vertices' weights.
 * @param weights    #V × #B row-major
 * @param selection  #V 1 = selected
 * @param names      #B bone names
 * @param locked     #B 1 = locked, or null for none
 * @param preferred  the vertex clicked last (activeVertexOf)
 */
export function vertexWeightTable(
  weights: DenseMatrix,
  selection: Uint8Array,
  names: readonly string[],
  locked: Uint8Array | null,
  preferred = -1,
): VertexWeightTable {
  const B = weights.cols;
  const sum = new Float64Array(B);
  const min = new Float64Array(B).fill(Infinity);
  const max = new Float64Array(B).fill(-Infinity);
  const { data } = weights;
  let count = 0;
  for (let v = 0; v < selection.length && v < weights.rows; v++) {
    if (!selection[v]) continue;
    count++;
    for (let b = 0, o = v * B; b < B; b++) {
      const w = data[o + b];
      sum[b] += w;
      if (w < min[b]) min[b] = w;
      if (w > max[b]) max[b] = w;
    }
  }
  const rows: VertexWeightRow[] = [];
  for (let b = 0; b < B && count > 0; b++) {
    if (!(max[b] > 0)) continue;
    rows.push({
      bone: b,
      name: names[b],
      value: sum[b] / count,
      min: min[b],
      max: max[b],
      mixed: max[b] - min[b] > MIXED_TOLERANCE,
      locked: locked?.[b] === 1,
    });
  }
  rows.sort((p, q) => q.value - p.value || p.bone - q.bone);
  return { count, active: activeVertexOf(selection, preferred), rows };
}

/** The selected vertices, in order, as weights.set and weights.pasteRow take them. */
export function selectedVertices(selection: Uint8Array): Uint32Array {
  let count = 0;
  for (let v = 0; v < selection.length; v++) count += selection[v] ? 1 : 0;
  const list = new Uint32Array(count);
  for (let v = 0, i = 0; v < selection.length; v++) if (selection[v]) list[i++] = v;
  return list;
}

/** The copied row of weights, kept for Paste until a new scene or a skeleton with another bone count. */
export class CopiedWeights {
  /** #B weights of the vertex copied, or null */
  row: Float64Array | null = null;
  /** the vertex it was copied from */
  vertex = -1;

  /** Copies a vertex's row. */
  copy(doc: SceneDocument, vertex: number): Float64Array {
    this.row = rowsOf(doc.weights, vertex, 1);
    this.vertex = vertex;
    return this.row;
  }

  /** The copied row while it fits the scene's skeleton, else null. */
  rowFor(doc: SceneDocument): Float64Array | null {
    return this.row && this.row.length === boneCountOf(doc) ? this.row : null;
  }

  clear(): void {
    this.row = null;
    this.vertex = -1;
  }
}

export type VertexWeightsCommandId = 'weights.vertexPanel' | 'weights.copyRow' | 'weights.pasteRow';

/** What the commands use of the app. */
export interface VertexWeightsCommandsHost {
  readonly store: SceneStore;
  /** the lasso's selection (#V 1 = selected) and the vertex clicked last */
  readonly binding: { readonly selection: Uint8Array; readonly selectedCount: number; readonly clickedVertex: number };
  readonly copiedWeights: CopiedWeights;
  readonly vertexWeightsPanel: { readonly open: boolean; setOpen(open: boolean): void };
  /** the scene's max influences: the most bones a pasted row keeps (0 = no limit) */
  readonly maxInfluences: { readonly value: number };
}

/** The vertices a paste changes: those listed, else the selection; #V flags. */
function pasteMask(doc: SceneDocument, vertices: VertexList | undefined, selection: Uint8Array): Uint8Array {
  const count = vertexCountOf(doc);
  if (vertices === undefined) {
    if (selection.length !== count || !selection.includes(1))
      throw new Error('weights.pasteRow: no vertices selected (click a vertex, draw a lasso, or select by weight) and none given');
    return selection.slice();
  }
  const mask = new Uint8Array(count);
  for (let i = 0; i < vertices.length; i++) {
    const v = vertices[i];
    if (!(Number.isInteger(v) && v >= 0 && v < count))
      throw new Error(`weights.pasteRow: vertices[${i}] must be a vertex from 0 to ${count - 1}, got ${String(v)}`);
    mask[v] = 1;
  }
  return mask;
}

export function vertexWeightsCommands(app: VertexWeightsCommandsHost): HandlersFor<VertexWeightsCommandId> {
  const { store, copiedWeights } = app;
  return {
    'weights.vertexPanel': {
      run: () => toggled(!app.vertexWeightsPanel.open, (on) => app.vertexWeightsPanel.setOpen(on)),
      checked: () => app.vertexWeightsPanel.open,
    },
    'weights.copyRow': {
      run: (vertex) => {
        const doc = store.doc;
        const count = vertexCountOf(doc);
        if (vertex !== undefined && vertex >= count)
          throw new Error(`weights.copyRow: argument must be a vertex from 0 to ${count - 1}, got ${vertex}`);
        const chosen = vertex ?? activeVertexOf(app.binding.selection, app.binding.clickedVertex);
        if (chosen < 0) throw new Error('weights.copyRow: no vertex selected (click a vertex of the mesh) and none given');
        return [...copiedWeights.copy(doc, chosen)];
      },
    },
    'weights.pasteRow': {
      run: (argument) => {
        const doc = store.doc;
        const row = argument?.row ?? copiedWeights.rowFor(doc);
        if (!row) throw new Error('weights.pasteRow: no row copied (Copy a vertex’s weights first) and none given');
        const vertexMask = pasteMask(doc, argument?.vertices, app.binding.selection);
        let edit;
        try {
          edit = pasteWeightRowEdit(doc, row, { vertexMask, maxInfluences: app.maxInfluences.value });
        } catch (error) {
          if (error instanceof SceneEditError) throw new Error(`weights.pasteRow: ${error.message}`, { cause: error });
          throw error;
        }
        if (!edit) return 0;
        store.edit(edit.label, edit.fields);
        return edit.vertices ?? 0;
      },
    },
  };
}

/** The bone names and locks the table shows for a document. */
export function tableOf(doc: SceneDocument, selection: Uint8Array, preferred: number): VertexWeightTable {
  return vertexWeightTable(doc.weights, selection, boneNamesOf(doc), doc.paintLocks ?? null, preferred);
}
