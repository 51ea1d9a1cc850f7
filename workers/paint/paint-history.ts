import type { PaintWeights } from './paint-weights.ts';

/** One completed stroke: the rows it changed, before and after, so undo and redo are copies (bit for bit). */
interface StrokeRecord {
  /** vertex indices, each once */
  vertices: Uint32Array;
  /** #vertices × #B rows before the stroke */
  before: Float32Array;
  /** #vertices × #B rows after the stroke */
  after: Float32Array;
  bytes: number;
}

/**
 * Undo/redo of weight painting. A stroke (or a whole-mesh command) is one undo step and records only the rows it
 * touches: call recordRows before changing rows; the first record of a row within a stroke saves its previous
 * values. Completed strokes are kept while their total size stays within `maxBytes`; older ones are dropped
 * (the newest is always kept, however large).
 */
export interface PaintHistory {
  weights: PaintWeights;
  maxBytes: number;
  undoStack: StrokeRecord[];
  redoStack: StrokeRecord[];
  /** bytes held by both stacks */
  bytes: number;
  /** #V: the stroke number that last recorded each row */
  recordedIn: Uint32Array;
  strokeNumber: number;
  open: boolean;
  openVertices: Uint32Array;
  openRows: Float32Array;
  openCount: number;
}

/**
 * @param weights  the weights every stroke of this history edits
 * @param maxBytes memory bound of the stored strokes (default 256 MiB)
 */
export function createPaintHistory(weights: PaintWeights, maxBytes = 256 * 2 ** 20): PaintHistory {
  return {
    weights,
    maxBytes,
    undoStack: [],
    redoStack: [],
    bytes: 0,
    recordedIn: new Uint32Array(weights.vertexCount),
    strokeNumber: 0,
    open: false,
    openVertices: new Uint32Array(1024),
    openRows: new Float32Array(1024 * weights.boneCount),
    openCount: 0,
  };
}

/** Starts a stroke. A new stroke discards the redo stack. */
export function beginStroke(history: PaintHistory): void {
  if (history.open) throw new Error('beginStroke: a stroke is already open');
  history.open = true;
  history.openCount = 0;
  history.strokeNumber++;
  if (history.strokeNumber === 0xffffffff) {
    history.recordedIn.fill(0);
    history.strokeNumber = 1;
  }
  for (const s of history.redoStack) history.bytes -= s.bytes;
  history.redoStack.length = 0;
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
  const { openVertices, openRows, weights: { data } } = history;
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

/** Completes the open stroke as one undo step (a stroke that recorded nothing adds no step). */
export function endStroke(history: PaintHistory): void {
  if (!history.open) throw new Error('endStroke: no open stroke');
  history.open = false;
  const count = history.openCount;
  if (count === 0) return;
  const nb = history.weights.boneCount;
  const vertices = history.openVertices.slice(0, count);
  const before = history.openRows.slice(0, count * nb);
  const after = new Float32Array(count * nb);
  copyRows(history.weights.data, vertices, nb, after, false);
  const record: StrokeRecord = { vertices, before, after, bytes: vertices.byteLength + before.byteLength + after.byteLength };
  history.undoStack.push(record);
  history.bytes += record.bytes;
  while (history.bytes > history.maxBytes && history.undoStack.length > 1) {
    history.bytes -= history.undoStack.shift()!.bytes;
  }
}

/**
 * Abandons the open stroke: puts back, bit for bit, every row it recorded and adds no undo step (the steps before
 * it are untouched, whatever the memory bound).
 * @returns the restored vertices
 */
export function cancelStroke(history: PaintHistory): Uint32Array {
  if (!history.open) throw new Error('cancelStroke: no open stroke');
  history.open = false;
  const vertices = history.openVertices.subarray(0, history.openCount);
  copyRows(history.weights.data, vertices, history.weights.boneCount, history.openRows, true);
  history.openCount = 0;
  return vertices;
}

/** Restores the weights before the last stroke, bit for bit. @returns false when there is nothing to undo */
export function undo(history: PaintHistory): boolean {
  if (history.open) throw new Error('undo: a stroke is open');
  const record = history.undoStack.pop();
  if (!record) return false;
  copyRows(history.weights.data, record.vertices, history.weights.boneCount, record.before, true);
  history.redoStack.push(record);
  return true;
}

/** Re-applies the last undone stroke, bit for bit. @returns false when there is nothing to redo */
export function redo(history: PaintHistory): boolean {
  if (history.open) throw new Error('redo: a stroke is open');
  const record = history.redoStack.pop();
  if (!record) return false;
  copyRows(history.weights.data, record.vertices, history.weights.boneCount, record.after, true);
  history.undoStack.push(record);
  return true;
}

function copyRows(data: Float32Array, vertices: Uint32Array, nb: number, rows: Float32Array, intoWeights: boolean): void {
  for (let i = 0; i < vertices.length; i++) {
    const o = vertices[i] * nb;
    const r = i * nb;
    if (intoWeights) for (let b = 0; b < nb; b++) data[o + b] = rows[r + b];
    else for (let b = 0; b < nb; b++) rows[r + b] = data[o + b];
  }
}
