/**
 * Where the scene's handles came from, vertex by vertex: written by a rule (automatic handles, by a Compute) or the
 * artist's (drawn, loaded, edited, from a project), so that a Compute with automatic handles can say which of the
 * artist's handles it replaces. No DOM; the binding controller keeps one.
 */
import type { MeshPart } from '../../workers/formats/types.ts';

/** What automatic handles took the place of: bones whose handles changed, and the handle vertices they had. */
export interface ReplacedHandles {
  bones: number;
  vertices: number;
}

/**
 * The bones whose handles `next` changes among those with handles in `previous`, and how many handle vertices they
 * had: what the artist loses when automatic handles replace drawn (or loaded) ones.
 * @param previous  #V labels before (bone, or -1)
 * @param next      #V labels after
 */
export function replacedHandles(previous: Int32Array, next: Int32Array, boneCount: number): ReplacedHandles {
  const had = new Int32Array(boneCount);
  const changed = new Uint8Array(boneCount);
  for (let v = 0; v < previous.length; v++) {
    const before = previous[v];
    const after = next[v];
    if (before >= 0 && before < boneCount) had[before]++;
    if (before === after) continue;
    if (before >= 0 && before < boneCount) changed[before] = 1;
    if (after >= 0 && after < boneCount) changed[after] = 1;
  }
  let bones = 0;
  let vertices = 0;
  for (let b = 0; b < boneCount; b++) {
    if (had[b] === 0 || !changed[b]) continue;
    bones++;
    vertices += had[b];
  }
  return { bones, vertices };
}

/**
 * The handle arrays the scene has had and which of their vertices a rule wrote. Handle arrays are never written in
 * place (an edit, a load or a Compute makes a new one), so undo and redo bring the marks back with the arrays; an
 * array not marked (drawn, loaded, from a project) is the artist's.
 */
export class HandleProvenance {
  /** #V per array a Compute made: 1 where a rule wrote the vertex's label (a part's Compute marks that part's only) */
  private readonly ruleWritten = new WeakMap<Int32Array, Uint8Array>();
  /** every handles array seen: one not seen before that comes with a new handles file name is a load */
  private readonly known = new WeakSet<Int32Array>();

  /** Whether `handles` is an array not seen before; it is remembered from now on. */
  isNew(handles: Int32Array): boolean {
    if (this.known.has(handles)) return false;
    this.known.add(handles);
    return true;
  }

  /**
   * The artist's handles in `handles`: the labels a rule wrote (and nothing changed since) freed (-1).
   * @returns #V labels (bone, or -1); `handles` itself when a rule wrote none of them
   */
  drawn(handles: Int32Array): Int32Array {
    const fromRule = this.ruleWritten.get(handles);
    if (!fromRule) return handles;
    return handles.map((bone, v) => (fromRule[v] ? -1 : bone));
  }

  /**
   * Marks `handles`, a Compute's, as a rule's where `part` (null: every vertex) lies, and as `previous` (the array it
   * replaces) was elsewhere.
   */
  markRuleWritten(handles: Int32Array, previous: Int32Array, part: MeshPart | null): void {
    const marks = part ? Uint8Array.from(this.ruleWritten.get(previous) ?? new Uint8Array(handles.length)) : new Uint8Array(handles.length);
    marks.fill(1, part?.vertexStart ?? 0, part ? part.vertexStart + part.vertexCount : handles.length);
    this.ruleWritten.set(handles, marks);
    this.known.add(handles);
  }
}
