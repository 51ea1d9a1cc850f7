/**
 * The scene store: the one place the current SceneDocument lives, and the one way it changes. Documents are
 * values; an edit makes a new document with some fields replaced and records it in the undo history as one
 * labelled step, so undo and redo put the exact previous field values (the same arrays) back. A new scene (a
 * mesh or skeleton opened, a demo) starts a new history. Views and panels subscribe and compare the fields they
 * show; nobody reads a stale document or has to flush anything first.
 *
 * Weight painting edits rows of `weights.data` in place (a copy per stroke would cost 8·#V·#B bytes); it records
 * its own history entries and announces the rows with `weightRowsEdited`, which makes the dense matrix the only form
 * of those weights from then on (weight-storage.ts: rows held beside it would be stale).
 */
import { bytesOf, type UndoHistory } from './undo-history.ts';
import type { DenseMatrix } from '../formats/types.ts';
import { assertConsistent, type SceneDocument } from './scene-document.ts';
import { forgetHeldRows, weightArrays } from './weight-storage.ts';

export type SceneChange =
  /**
   * a different document: a new scene, an edit, or an edit undone or redone; `fields`: the fields whose values are
   * not the previous document's (every field of a new scene), so a view can react to the ones it draws; `merged`:
   * an edit merged into the newest undo step (no new step)
   */
  | { kind: 'document'; previous: SceneDocument; newScene: boolean; fields: ReadonlySet<keyof SceneDocument>; merged?: boolean }
  /** rows of doc.weights changed in place (null: any row may have) */
  | { kind: 'weight-rows'; vertices: ArrayLike<number> | null; count: number };

/** What an edit may replace: any field but the mesh (a new mesh is a new scene) and what is derived from it. */
export type SceneFields = Partial<Omit<SceneDocument, 'mesh' | 'restNormals' | 'diagonal'>>;
type Fields = SceneFields;

export class SceneStore {
  private current: SceneDocument;
  /** the last edit pushed with a merge key, while it is the newest undo step */
  private mergeable: { key: string; entry: object; after: Fields } | null = null;
  private readonly listeners = new Set<(change: SceneChange) => void>();

  constructor(
    initial: SceneDocument,
    readonly history: UndoHistory,
  ) {
    this.current = initial;
  }

  get doc(): SceneDocument {
    return this.current;
  }

  /**
   * Opens a new scene: the document is replaced and the undo history starts over.
   * @param reason  said in the history's notice, e.g. 'opened hand.off'
   */
  open(doc: SceneDocument, reason: string): void {
    const previous = this.current;
    this.current = doc;
    this.history.clear(reason);
    const fields = new Set([...Object.keys(previous), ...Object.keys(doc)] as (keyof SceneDocument)[]);
    this.emit({ kind: 'document', previous, newScene: true, fields });
  }

  /**
   * Replaces some fields of the document as one undoable step. The mesh never changes this way (a new mesh is a new
   * scene); the skeleton does, with every bone-indexed field in the same edit (workers/rig/bone-edits.ts).
   * @throws LoadError when the edited document breaks an invariant (assertConsistent); the document is then unchanged
   * @param label     what the step did, e.g. 'Assign handles'
   * @param mergeKey  edits with the same key in a row are one step (a value typed digit by digit, a slider dragged):
   *                  the step keeps the first edit's "before" and takes the latest "after"
   */
  edit(label: string, fields: Fields, mergeKey?: string): void {
    // A whole document may come back as the fields (files loaded into the scene): its mesh must be the scene's.
    if ('mesh' in fields && (fields as { mesh?: unknown }).mesh !== this.current.mesh)
      throw new Error('SceneStore.edit: a new mesh is a new scene (open it)');
    assertConsistent({ ...this.current, ...fields });
    const merging = this.mergeable;
    if (mergeKey && merging?.key === mergeKey && this.history.newest === merging.entry) {
      Object.assign(merging.after, fields);
      this.set({ ...this.current, ...fields }, true);
      return;
    }
    const before: Fields = {};
    for (const key of Object.keys(fields) as (keyof Fields)[]) (before as Record<string, unknown>)[key] = this.current[key];
    const after = { ...fields };
    this.set({ ...this.current, ...after });
    const entry = {
      label,
      bytes: bytesOf(...Object.values(before).flatMap(arraysIn), ...Object.values(after).flatMap(arraysIn)),
      undo: () => this.set({ ...this.current, ...before }),
      redo: () => this.set({ ...this.current, ...after }),
    };
    this.history.push(entry);
    this.mergeable = mergeKey ? { key: mergeKey, entry, after } : null;
  }

  /**
   * Replaces fields that say what is shown rather than what the scene is (which of its clips plays: `poses` and
   * `posesFile`), with no undo step: choosing what to view neither takes an undo step nor makes the scene unsaved.
   * Views hear of it as of any change.
   * @throws LoadError when the document would break an invariant (assertConsistent); the document is then unchanged
   */
  show(fields: Pick<SceneFields, 'poses' | 'posesFile'>): void {
    assertConsistent({ ...this.current, ...fields });
    this.set({ ...this.current, ...fields });
  }

  /** Announces rows of doc.weights changed in place (painting, or its undo). @param vertices  null: any row */
  weightRowsEdited(vertices: ArrayLike<number> | null, count: number): void {
    forgetHeldRows(this.current.weights);
    this.emit({ kind: 'weight-rows', vertices, count });
  }

  subscribe(listener: (change: SceneChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private set(doc: SceneDocument, merged = false): void {
    const previous = this.current;
    this.current = doc;
    this.emit({ kind: 'document', previous, newScene: false, fields: changedFields(previous, doc), ...(merged ? { merged } : {}) });
  }

  private emit(change: SceneChange): void {
    for (const listener of this.listeners) listener(change);
  }
}

/**
 * The typed arrays a field value holds (a weights matrix: its dense data and the rows it holds, weightArrays; a list
 * of examples, each one's arrays).
 */
function arraysIn(value: unknown): unknown[] {
  if (ArrayBuffer.isView(value)) return [value];
  if (Array.isArray(value))
    return value.flatMap((item: unknown) =>
      item && typeof item === 'object' ? Object.values(item).filter((v) => ArrayBuffer.isView(v)) : [],
    );
  if (value && typeof value === 'object' && 'data' in value) return weightArrays(value as DenseMatrix);
  return [];
}

/** The fields whose values differ between two documents (by identity: documents are values). */
function changedFields(previous: SceneDocument, next: SceneDocument): Set<keyof SceneDocument> {
  const keys = new Set([...Object.keys(previous), ...Object.keys(next)] as (keyof SceneDocument)[]);
  return new Set([...keys].filter((key) => previous[key] !== next[key]));
}
