/**
 * The last check before the write step: every number the export made must be one a glTF file can hold. A file's
 * extreme but finite values (a node translated by 1e300, translation keys of 3e38) read fine, since the reader works
 * in doubles; composed by an edit or a fresh export's joint frames they can pass 3.4e38, which a float32 accessor
 * stores as ±Infinity, or overflow a node's transform, which JSON writes as null. Such an export is refused, naming
 * what overflowed, instead of writing a file that no reader accepts.
 */
import type { Accessor, Document, Node as GltfNode } from '@gltf-transform/core';
import type { ExportState } from './export-state.ts';

/** glTF's FLOAT component type. */
const FLOAT = 5126;

/**
 * Checks the accessors the export made (the source's stay as they were read), the transform of every node that is
 * not a source node left as read, and every node's morph weights.
 * @throws through state.fail, naming the accessor's use or the node (joint, mesh node or other), when a value is not finite
 */
export function checkStorable(state: ExportState): void {
  const root = state.doc.getRoot();
  const source = new Set<Accessor>(state.carry?.accessors ?? []);
  for (const accessor of root.listAccessors()) {
    if (source.has(accessor) || accessor.getComponentType() !== FLOAT) continue;
    // Read as numbers whatever the float type (glTF-Transform's TypedArray names Float16Array, unknown here).
    const values = accessor.getArray() as Float32Array | null;
    if (!values || values.every(Number.isFinite)) continue;
    state.fail(
      useOf(state.doc, accessor),
      'a value is not finite as a 32-bit float (beyond ±3.4e38), which glTF stores: the scene is too large for glTF; move the far joint nearer',
    );
  }
  // A source node left as read is written as the source wrote it (keep-node-transforms.ts).
  const baselines = new Map((state.carry?.nodes ?? []).map((baseline) => [baseline.node, baseline]));
  const same = (a: readonly number[], b: readonly number[] | undefined): boolean => !!b && a.every((x, i) => x === b[i]);
  const joints = new Set(root.listSkins().flatMap((skin) => skin.listJoints()));
  for (const [index, node] of root.listNodes().entries()) {
    const baseline = baselines.get(node);
    const kept =
      same(node.getTranslation(), baseline?.translation) &&
      same(node.getRotation(), baseline?.rotation) &&
      same(node.getScale(), baseline?.scale);
    const parts: [string, ArrayLike<number>][] = [
      ['translation', node.getTranslation()],
      ['rotation', node.getRotation()],
      ['scale', node.getScale()],
      ['morph weights', node.getWeights()],
    ];
    const kind = joints.has(node) ? 'joint' : node.getMesh() ? 'mesh node' : 'node';
    for (const [what, values] of kept ? parts.slice(3) : parts)
      if (!Array.from(values).every(Number.isFinite))
        state.fail(
          nodeName(node, index),
          `its ${what} is not finite (beyond ±1.8e308, which JSON cannot write): the ${kind} is placed too far for glTF; move the far ${kind} nearer`,
        );
  }
}

/**
 * Checks that the document has a skinned mesh, which Rigwright's own reader needs of a rig (gltf-import.ts refuses a
 * file without one). A fresh export writes a mesh none of whose vertices has a weight unskinned, and only a part held
 * unskinned (MeshPart.skinned false) whose vertices all follow one bone as a child of its joint, so a scene without any
 * weight, or whose only weighted parts are such props while the skinned meshes have no weights, would be written as
 * meshes and joints without a skinned mesh, which that reader refuses.
 * @throws through state.fail, naming the weights, when no mesh node has a skin
 */
export function checkSkinnedMesh(state: ExportState, weights: { data: ArrayLike<number> }): void {
  if (
    state.doc
      .getRoot()
      .listNodes()
      .some((node) => node.getMesh() && node.getSkin())
  )
    return;
  let weighted = false;
  for (let i = 0; i < weights.data.length && !weighted; i++) weighted = weights.data[i] !== 0;
  state.fail(
    'weights',
    weighted
      ? 'the skinned meshes have no weights (only meshes held unskinned follow a bone), so the file would have no skinned mesh; bind the mesh first'
      : 'no vertex has a weight, so no mesh is skinned and the file would be no rig; bind the mesh first',
  );
}

/** Where an accessor is used, in a user's words: a skin's inverse bind matrices, a clip's keys, a mesh's data. */
function useOf(doc: Document, accessor: Accessor): string {
  const root = doc.getRoot();
  for (const [k, skin] of root.listSkins().entries())
    if (skin.getInverseBindMatrices() === accessor) return `${named('skin', skin.getName(), k)} inverse bind matrices`;
  for (const [k, animation] of root.listAnimations().entries())
    for (const sampler of animation.listSamplers())
      if (sampler.getInput() === accessor || sampler.getOutput() === accessor) return named('clip', animation.getName(), k);
  for (const [k, mesh] of root.listMeshes().entries())
    for (const primitive of mesh.listPrimitives())
      if (primitive.listAttributes().includes(accessor) || primitive.listTargets().some((t) => t.listAttributes().includes(accessor)))
        return named('mesh', mesh.getName(), k);
  return `accessor ${root.listAccessors().indexOf(accessor)}`;
}

/** `skin "body"`, or `skin 2` for one without a name. */
const named = (what: string, name: string, index: number): string => (name ? `${what} ${JSON.stringify(name)}` : `${what} ${index}`);

const nodeName = (node: GltfNode, index: number): string => named('node', node.getName(), index);
