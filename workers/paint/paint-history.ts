import type { PaintWeights } from './paint-weights.ts';

/**
 * What a stroke changes, while it is painted: the rows it touches, each saved once before its first change, so
 * Escape can put every one back bit for bit, and the stroke's end can say which rows it changed. A stroke (or a
 * whole-mesh command) becomes one undo step in the app's undo history, which keeps the rows' values before and
 * after; this record only lives while the stroke is open.
 * Call recordRows before changing rows.
 */
export interface PaintHistory {
  weights: PaintWeights;
  /** #V: the stroke number that last recorded each row */
  recordedIn: Uint32Array;
  strokeNumber: number;
  open: boolean;
  openVertices: Uint32Array;
  openRows: Float32Array;
  openCount: number;
}

/** @param weights  the weights every stroke of this history edits */
export function createPaintHistory(weights: PaintWeights): PaintHistory {
  return {
    weights,
    recordedIn: new Uint32Array(weights.vertexCount),
    strokeNumber: 0,
    open: false,
    openVertices: new Uint32Array(1024),
    openRows: new Float32Array(1024 * weights.boneCount),
    openCount: 0,
  };
}

/** Starts a stroke. */
export function beginStroke(history: PaintHistory): void {
  if (history.open) throw new Error('beginStroke: a stroke is already open');
  history.open = true;
  history.openCount = 0;
  history.strokeNumber++;
  if (history.strokeNumber === 0xffffffff) {
    history.recordedIn.fill(0);
    history.strokeNumber = 1;
  }
}

/**
 * Saves the current rows of the given vertices, unless this stroke saved them already. Call before changing them.
 * @param history the history, with an open stroke
 * @param rows    vertex indices (first `count`); null = every vertex
 * @param count   number of entries of `rows` (ignored for null)
 */
export function recordRows(history: PaintHistory, rows: ArrayLike<number> | null, count: number): void {
  if (!history.open) throw new Error('recordRows: no open stroke (call beginStroke)');
  const { weights, recordedIn, strokeNumber } = history;
  const nb = weights.boneCount;
  const n = rows === null ? weights.vertexCount : count;
  if (history.openCount + n > history.openVertices.length) {
    const capacity = Math.max(history.openCount + n, 2 * history.openVertices.length);
    const vertices = new Uint32Array(capacity);
    vertices.set(history.openVertices.subarray(0, history.openCount));
    const saved = new Float32Array(capacity * nb);
    saved.set(history.openRows.subarray(0, history.openCount * nb));
    history.openVertices = vertices;
    history.openRows = saved;
  }
  const {
    openVertices,
    openRows,
    weights: { data },
  } = history;
  let c = history.openCount;
  for (let i = 0; i < n; i++) {
    const v = rows === null ? i : rows[i];
    if (recordedIn[v] === strokeNumber) continue;
    recordedIn[v] = strokeNumber;
    openVertices[c] = v;
    for (let b = 0, o = v * nb, d = c * nb; b < nb; b++) openRows[d + b] = data[o + b];
    c++;
  }
  history.openCount = c;
}

/**
 * Completes the open stroke.
 * @returns the vertices whose rows it changed, each once (a recorded row that is back to its saved bits, or was never
 *   changed, as under a locked bone, is left out: empty when the stroke changed nothing)
 */
export function endStroke(history: PaintHistory): Uint32Array {
  if (!history.open) throw new Error('endStroke: no open stroke');
  history.open = false;
  const { openVertices, openRows, openCount } = history;
  const { data, boneCount: nb } = history.weights;
  const changed = new Uint32Array(openCount);
  let c = 0;
  for (let i = 0; i < openCount; i++) {
    const v = openVertices[i];
    for (let b = 0, o = v * nb, r = i * nb; b < nb; b++) {
      if (!Object.is(data[o + b], openRows[r + b])) {
        changed[c++] = v;
        break;
      }
    }
  }
  return changed.slice(0, c);
}

/**
 * Abandons the open stroke: puts back, bit for bit, every row it recorded.
 * @returns the restored vertices
 */
export function cancelStroke(history: PaintHistory): Uint32Array {
  if (!history.open) throw new Error('cancelStroke: no open stroke');
  history.open = false;
  const vertices = history.openVertices.subarray(0, history.openCount);
  const { data, boneCount: nb } = history.weights;
  for (let i = 0; i < vertices.length; i++) {
    for (let b = 0, o = vertices[i] * nb, r = i * nb; b < nb; b++) data[o + b] = history.openRows[r + b];
  }
  history.openCount = 0;
  return vertices;
}
