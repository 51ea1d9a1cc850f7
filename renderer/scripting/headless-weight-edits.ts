/**
 * The paint panel's whole-mesh weight commands without the page (headless-commands.ts), as the scene edits the paint
 * session makes.
 */
import type { CommandHandlers } from '../commands/command-registry.ts';
import { PRUNE_THRESHOLD } from '../paint/paint-commands.ts';
import { mirrorVertexMap, type MirrorVertexMap } from '../../workers/paint/mirror-vertex-map.ts';
import { vertexOneRing, type VertexOneRing } from '../../workers/paint/vertex-one-ring.ts';
import { vertexCountOf, type SceneDocument } from '../../workers/scene/scene-document.ts';
import {
  limitTotalEdit,
  mirrorToleranceOf,
  mirrorWeightsEdit,
  normalizeWeightsEdit,
  paintLockEdit,
  pruneWeightsEdit,
  smoothBoneEdit,
  type SceneEdit,
  type WeightEditOptions,
} from '../../workers/scene/scene-edits.ts';
import type { SceneStore } from '../../workers/scene/scene-store.ts';

type WeightEditId =
  'paint.normalize' | 'paint.limit' | 'paint.prune' | 'paint.smooth' | 'paint.mirrorToPositive' | 'paint.mirrorToNegative' | 'paint.lock';

/**
 * The paint panel's whole-mesh commands as scene edits (scene-edits.ts: the paint session's weights, bit for bit),
 * under the paint controller's labels; one undo step each, none when nothing changes. They act on every vertex (no
 * mesh is active headless), keep the locked bones and re-apply the scene's max influences on the rows they change.
 * The mirror matches and one-rings, which depend on the mesh alone, are kept while the mesh stays.
 */
export function weightEditCommands(
  store: SceneStore,
  selectedBone: () => number,
  maxInfluences: () => number,
): { [K in WeightEditId]: CommandHandlers[K] } {
  let cache: { mesh: SceneDocument['mesh']; mirror: (MirrorVertexMap | undefined)[]; oneRing?: VertexOneRing } | null = null;
  const meshCache = () => {
    const { mesh } = store.doc;
    if (cache?.mesh !== mesh) cache = { mesh, mirror: [] };
    return cache;
  };
  const options = (): WeightEditOptions => ({ maxInfluences: maxInfluences() });
  const apply = (edit: SceneEdit | null, label?: string): void => {
    if (edit) store.edit(label ?? edit.label, edit.fields);
  };
  const mirror = (axis: 0 | 1 | 2 = 0, side: -1 | 1): void => {
    const doc = store.doc;
    const known = meshCache();
    const map = (known.mirror[axis] ??= mirrorVertexMap(doc.mesh.positions, doc.mesh.triangles, axis, mirrorToleranceOf(doc)));
    apply(mirrorWeightsEdit(doc, axis, side, options(), map));
  };
  return {
    'paint.normalize': { run: () => apply(normalizeWeightsEdit(store.doc, options())) },
    'paint.limit': { run: () => apply(limitTotalEdit(store.doc, options())) },
    'paint.prune': { run: (threshold = PRUNE_THRESHOLD) => apply(pruneWeightsEdit(store.doc, threshold, options())) },
    // The paint controller names the step by the bone's number.
    'paint.smooth': {
      run: () => {
        const bone = selectedBone();
        const known = meshCache();
        known.oneRing ??= vertexOneRing(vertexCountOf(store.doc), store.doc.mesh.triangles, store.doc.mesh.positions);
        apply(smoothBoneEdit(store.doc, bone, options(), known.oneRing), `Smooth bone ${bone}`);
      },
    },
    // Headless there is no symmetry in use: without an axis, x.
    'paint.mirrorToPositive': { run: (axis) => mirror(axis, 1) },
    'paint.mirrorToNegative': { run: (axis) => mirror(axis, -1) },
    'paint.lock': {
      run: (bone) => {
        const locked = store.doc.paintLocks?.[bone] !== 1;
        apply(paintLockEdit(store.doc, bone, locked));
        return locked;
      },
    },
  };
}
