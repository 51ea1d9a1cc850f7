/**
 * Editing handle labels (#V: the bone a vertex is a handle of, or -1). Every edit returns a new array, so the
 * previous labels stay available for undo, and keeps handles disjoint by construction: a vertex has one label.
 */
import type { DenseMatrix } from '../formats/types.ts';

/**
 * Makes the selected vertices handles of `bone`; a vertex that was another bone's handle moves to `bone`.
 * @param handles    #V labels
 * @param selection  #V, nonzero = selected
 * @returns new #V labels
 */
export function assignHandles(handles: Int32Array, selection: Uint8Array, bone: number): Int32Array {
  const out = handles.slice();
  for (let v = 0; v < out.length; v++) if (selection[v]) out[v] = bone;
  return out;
}

/** Frees the selected vertices (label -1). @returns new #V labels */
export function clearHandles(handles: Int32Array, selection: Uint8Array): Int32Array {
  const out = handles.slice();
  for (let v = 0; v < out.length; v++) if (selection[v]) out[v] = -1;
  return out;
}

/** Handle vertices per bone. @returns #B counts */
export function handleCounts(handles: Int32Array, boneCount: number): number[] {
  const counts = new Array<number>(boneCount).fill(0);
  for (const h of handles) if (h >= 0 && h < boneCount) counts[h]++;
  return counts;
}

export interface HandleOverlap {
  bone: number;
  ours: number;
  reference: number;
  intersection: number;
  union: number;
  /** |ours ∩ ref| / |ours ∪ ref|; 1 when both are empty */
  jaccard: number;
}

/** Per-bone agreement of two labelings of the same mesh (Jaccard index of each bone's handle set). */
export function handleOverlap(ours: Int32Array, reference: Int32Array, boneCount: number): HandleOverlap[] {
  if (ours.length !== reference.length) throw new RangeError(`handleOverlap: ${ours.length} labels against ${reference.length}`);
  const rows: HandleOverlap[] = [];
  for (let b = 0; b < boneCount; b++) rows.push({ bone: b, ours: 0, reference: 0, intersection: 0, union: 0, jaccard: 1 });
  for (let v = 0; v < ours.length; v++) {
    const a = ours[v],
      r = reference[v];
    if (a >= 0 && a < boneCount) rows[a].ours++;
    if (r >= 0 && r < boneCount) rows[r].reference++;
    if (a >= 0 && a === r && a < boneCount) rows[a].intersection++;
  }
  for (const row of rows) {
    row.union = row.ours + row.reference - row.intersection;
    row.jaccard = row.union === 0 ? 1 : row.intersection / row.union;
  }
  return rows;
}

/** The labels as a #V × 1 matrix for writeDmatAscii (the layout of the shared handle files). */
export function handlesToMatrix(handles: Int32Array): DenseMatrix {
  return { rows: handles.length, cols: 1, data: Float64Array.from(handles) };
}
