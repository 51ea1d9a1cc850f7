/**
 * The weight commands a script edits one bone's weights with — weights.set, weights.add, weights.scale and
 * weights.transfer — beside the whole-mesh paint.* commands. Each is one `store.edit` (one undo step) of a scene
 * edit of workers/scene/scene-edits.ts, which runs the brushes' own row repair (enforceWeightInvariants): the other
 * unlocked bones of each changed row are rescaled so it keeps its total, locked bones never change, the scene's max
 * influences hold. No DOM: the app's shell and the command-line tool's headless registry register these same
 * handlers, so both give the same floats.
 */
import type { HandlersFor } from '../commands/command-handlers.ts';
import type { VertexList } from '../commands/command-schema.ts';
import { partsOf } from '../document/mesh-parts.ts';
import { vertexCountOf, type SceneDocument } from '../../workers/scene/scene-document.ts';
import {
  boneWeightEdit,
  SceneEditError,
  transferWeightsEdit,
  type SceneEdit,
  type WeightEditOptions,
} from '../../workers/scene/scene-edits.ts';
import type { SceneStore } from '../../workers/scene/scene-store.ts';

export type WeightCommandId = 'weights.set' | 'weights.add' | 'weights.scale' | 'weights.transfer';

/** What the weight commands respect besides the document (whose paintLocks are the locks). */
export interface WeightCommandSettings {
  /** the scene's max influences (bind.maxInfluences), read at each run: the most bones a changed row keeps; 0 = no limit */
  maxInfluences(): number;
}

/** The vertices a command changes: those of a mesh, of a list, of both, or (neither given) every vertex. */
interface Scope {
  mesh?: number | string;
  vertices?: VertexList;
}

/**
 * #V flags of the vertices in scope, or null for every vertex.
 * @throws Error naming the command and the field, for a mesh the scene does not have or a vertex out of range
 */
export function scopeMask(command: WeightCommandId, doc: SceneDocument, { mesh, vertices }: Scope): Uint8Array | null {
  if (mesh === undefined && vertices === undefined) return null;
  const count = vertexCountOf(doc);
  const mask = new Uint8Array(count);
  if (mesh !== undefined) {
    const parts = partsOf(doc);
    const index = typeof mesh === 'number' ? mesh : parts.findIndex((part) => part.name === mesh);
    const part = Number.isInteger(index) ? parts[index] : undefined;
    if (!part)
      throw new Error(
        `${command}: mesh ${JSON.stringify(mesh)} is not a mesh of the scene (${parts.map((p) => JSON.stringify(p.name)).join(', ')})`,
      );
    mask.fill(1, part.vertexStart, part.vertexStart + part.vertexCount);
  }
  if (vertices === undefined) return mask;
  const listed = new Uint8Array(count);
  for (let i = 0; i < vertices.length; i++) {
    const v = vertices[i];
    if (!(Number.isInteger(v) && v >= 0 && v < count))
      throw new Error(`${command}: vertices[${i}] must be a vertex from 0 to ${count - 1}, got ${String(v)}`);
    listed[v] = 1;
  }
  if (mesh === undefined) return listed;
  for (let v = 0; v < count; v++) mask[v] &= listed[v];
  return mask;
}

/**
 * The handlers of the weight commands on a scene store.
 * @returns handlers whose result is how many vertices' rows changed (0: nothing changed, no undo step)
 */
export function weightCommands(store: SceneStore, settings: WeightCommandSettings): HandlersFor<WeightCommandId> {
  /** Applies the edit made for the document now as one undo step; a SceneEditError is said as the command's. */
  const apply = (
    command: WeightCommandId,
    scope: Scope,
    edit: (doc: SceneDocument, options: WeightEditOptions) => SceneEdit | null,
  ): number => {
    const doc = store.doc;
    const options: WeightEditOptions = { vertexMask: scopeMask(command, doc, scope), maxInfluences: settings.maxInfluences() };
    let made: SceneEdit | null;
    try {
      made = edit(doc, options);
    } catch (error) {
      if (error instanceof SceneEditError) throw new Error(`${command}: ${error.message}`, { cause: error });
      throw error;
    }
    if (!made) return 0;
    store.edit(made.label, made.fields);
    return made.vertices ?? 0;
  };
  return {
    'weights.set': {
      run: ({ bone, value, ...scope }) =>
        apply('weights.set', scope, (doc, options) => boneWeightEdit(doc, bone, { kind: 'set', value }, options)),
    },
    'weights.add': {
      run: ({ bone, value, ...scope }) =>
        apply('weights.add', scope, (doc, options) => boneWeightEdit(doc, bone, { kind: 'add', value }, options)),
    },
    'weights.scale': {
      run: ({ bone, factor, ...scope }) =>
        apply('weights.scale', scope, (doc, options) => boneWeightEdit(doc, bone, { kind: 'scale', value: factor }, options)),
    },
    'weights.transfer': {
      run: ({ from, to, ...scope }) => apply('weights.transfer', scope, (doc, options) => transferWeightsEdit(doc, from, to, options)),
    },
  };
}
