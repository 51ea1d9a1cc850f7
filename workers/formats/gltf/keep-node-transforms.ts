/**
 * Node transforms written as the steps computed with them. glTF-Transform reads a node's `matrix` as translation,
 * rotation and scale and writes those back, and leaves out values within 1e-5 of their defaults (a scale of
 * 1.0000001), so a node the export did not move would still change in the file, and inverse bind matrices computed
 * from a node's exact transform would not match the one written. A source node whose transform the export left as
 * read gets the source's own `matrix`, `translation`, `rotation` and `scale` back in the written JSON, number for
 * number; every other node gets its exact translation, rotation and scale.
 */
import type { Node as GltfNode } from '@gltf-transform/core';

type Json = Record<string, unknown>;

/** A source node and its transform as the steps start from it. */
export interface NodeBaseline {
  node: GltfNode;
  translation: readonly number[];
  rotation: readonly number[];
  scale: readonly number[];
}

const TRANSFORM_KEYS = ['matrix', 'translation', 'rotation', 'scale'] as const;

/** Each source node's transform right before the steps (in source order). */
export function nodeBaselines(nodes: readonly GltfNode[]): NodeBaseline[] {
  return nodes.map((node) => ({ node, translation: node.getTranslation(), rotation: node.getRotation(), scale: node.getScale() }));
}

/**
 * Writes every node's transform as the steps computed with it: a source node the export left where it was read gets
 * the source's own fields back; any other node its translation, rotation and scale exactly (only exact defaults
 * left out), never a matrix.
 * @param json        the written JSON, changed in place
 * @param sourceJson  the source's JSON, or null for a new document
 * @param baselines   nodeBaselines of the source's nodes (none for a new document)
 * @param written     the Document's nodes in the order the writer wrote them
 */
export function restoreNodeTransforms(
  json: Json,
  sourceJson: Json | null,
  baselines: readonly NodeBaseline[],
  written: readonly GltfNode[],
): void {
  const out = json.nodes as Json[] | undefined;
  if (!out) return;
  const source = (sourceJson?.nodes ?? []) as Json[];
  const same = (a: readonly number[], b: readonly number[]): boolean => a.every((x, i) => x === b[i]);
  const baselineOf = new Map(baselines.map((baseline, i) => [baseline.node, { baseline, i }]));
  written.forEach((node, at) => {
    if (!out[at]) return;
    for (const key of TRANSFORM_KEYS) delete out[at][key];
    const found = baselineOf.get(node);
    const { baseline } = found ?? {};
    const [t, r, s] = [node.getTranslation(), node.getRotation(), node.getScale()];
    if (found && baseline && source[found.i] && same(t, baseline.translation) && same(r, baseline.rotation) && same(s, baseline.scale)) {
      for (const key of TRANSFORM_KEYS) if (source[found.i][key] !== undefined) out[at][key] = source[found.i][key];
      return;
    }
    if (!same(t, [0, 0, 0])) out[at].translation = [...t];
    if (!same(r, [0, 0, 0, 1])) out[at].rotation = [...r];
    if (!same(s, [1, 1, 1])) out[at].scale = [...s];
  });
}
