/**
 * The weights step: JOINTS_0/WEIGHTS_0 (and _1 for more than four influences) of every skinned part whose weight rows
 * differ from the document's as the importer reads them; parts whose rows are the document's keep their accessors,
 * unless the document stores them invalidly (storedWeightsValid), which the importer read normalised (Draco-compressed
 * ones are kept as stored then, with a notice). A part the document had without a skin and that is now `skinned`
 * joins the first skin (bindPart). One set of notices for both exports: dropped influences, vertices without weight,
 * a second joint set.
 */
import type { Accessor, Node as GltfNode, Primitive, Skin } from '@gltf-transform/core';
import { droppedWeight, quantizeSkinWeights } from '../gltf-skin-weights.ts';
import type { DenseMatrix, MeshPart } from '../types.ts';
import { influencesFromWeights } from '../../skinning/influences.ts';
import { bindPart } from './bind-part.ts';
import { targetVertexCount, type ExportScene, type ExportState, type PartTarget } from './export-state.ts';
import type { SkinWeightsOptions } from './skin-weights-options.ts';

/**
 * Writes the weights of every skinned part that changed (see the module comment), with the notices.
 * @param opts how the written weights are stored
 * @returns the nodes that joined a skin here (bindPart), each once
 */
export function writeSkinWeights(
  state: ExportState,
  scene: ExportScene,
  skinJoints: Map<Skin, GltfNode[]>,
  opts: Required<SkinWeightsOptions>,
): GltfNode[] {
  const { parts, partTargets, before, warnings, fail } = state;
  const { weights } = scene;
  let dropped = 0;
  let largestDropped = 0;
  let unweighted = 0;
  let twoSets = false;
  const beforeParts = new Map(before.parts.map((part) => [sourceKey(part), part]));
  const invalidKept: string[] = [];
  const invalidCompressed: string[] = [];
  const bound: GltfNode[] = [];
  parts.forEach((part, i) => {
    const target = partTargets[i];
    if (!part.skinned || !target) return;
    const { node } = target;
    const primitive = target.primitives[0];
    const was = beforeParts.get(sourceKey(part));
    const newlyBound = !node.getSkin();
    if (
      !newlyBound &&
      was &&
      was.vertexCount === part.vertexCount &&
      sameRows(weights, part.vertexStart, before.weights, was.vertexStart, part.vertexCount)
    ) {
      // The weights as the importer read them, but stored invalidly (the importer normalised them): written again;
      // but compressed ones stay, as compressed (keep-draco.ts), with a notice when they are off by more than the
      // compression's quantization.
      const compressed = state.carry?.draco.some((source) => source.primitive === primitive) ?? false;
      if (compressed) {
        if (!storedWeightsValid(primitive, DRACO_WEIGHT_SUM_TOLERANCE)) invalidCompressed.push(part.name);
        return;
      }
      if (storedWeightsValid(primitive, WEIGHT_SUM_TOLERANCE)) return;
      invalidKept.push(part.name);
    }
    const count = primitive.getAttribute('POSITION')!.getCount();
    if (count !== targetVertexCount(part, target))
      fail(`part "${part.name}"`, `${targetVertexCount(part, target)} vertices, its primitive in ${state.sourceName} has ${count}`);
    const skin = node.getSkin() ?? state.firstSkin!;
    const joints = skinJoints.get(skin)!;
    const jointOf = new Map(joints.map((joint, k) => [joint, k]));
    const rows = partRows(weights, part, target);
    const influences = influencesFromWeights(rows, opts.influences);
    for (let k = 0; k < influences.bones.length; k++) influences.bones[k] = jointOf.get(state.jointNodes[influences.bones[k]]!) ?? 0;
    const slotCount = influences.stride <= 4 ? 4 : 8;
    twoSets ||= slotCount === 8;
    const stored = quantizeSkinWeights(influences, slotCount, opts.weightComponent, joints.length);
    const loss = droppedWeight(rows, opts.influences);
    dropped += loss.vertices;
    largestDropped = Math.max(largestDropped, loss.largest);
    unweighted += stored.unweightedVertices;
    const buffer = primitive.getAttribute('POSITION')!.getBuffer() ?? state.doc.getRoot().listBuffers()[0];
    const accessor = (array: Float32Array | Uint8Array | Uint16Array): Accessor =>
      state.doc.createAccessor().setType('VEC4').setArray(array).setBuffer(buffer);
    const sets = Array.from({ length: slotCount / 4 }, (_, set) => ({
      joints: accessor(gatherSet(stored.joints, slotCount, set)),
      weights: accessor(gatherSet(stored.weights, slotCount, set)).setNormalized(opts.weightComponent !== 'float'),
    }));
    for (const each of target.primitives) setWeightAttributes(each, sets);
    if (newlyBound) {
      bindPart(state.doc, node, primitive, skin, state.skinToWorld.get(skin)!);
      bound.push(node);
    }
  });
  if (invalidKept.length > 0)
    warnings.push(
      `the weights of ${invalidKept.length} mesh${invalidKept.length === 1 ? '' : 'es'} (${invalidKept.join(', ')}) in ${state.sourceName} are not valid glTF (negative, not summing to 1, or a joint twice); they are written again as read, normalised`,
    );
  if (invalidCompressed.length > 0)
    warnings.push(
      `the weights of ${invalidCompressed.length} Draco-compressed mesh${invalidCompressed.length === 1 ? '' : 'es'} (${invalidCompressed.join(', ')}) in ${state.sourceName} are not valid glTF (negative, not summing to 1, or a joint twice); they are kept as stored, compressed (the import read them normalised)`,
    );
  if (dropped > 0)
    warnings.push(
      `${dropped} vertices have more than ${opts.influences} influences; the weakest are dropped and the rest renormalized (largest weight dropped: ${largestDropped.toPrecision(3)})`,
    );
  if (unweighted > 0)
    warnings.push(
      `${unweighted} vertices of skinned meshes have no weight; glTF needs weights that sum to 1, so they are bound fully to their skin's first joint`,
    );
  if (twoSets)
    warnings.push(
      'eight influences are stored in JOINTS_0/WEIGHTS_0 and JOINTS_1/WEIGHTS_1; many viewers read only the first set and then skin with a part of the weight',
    );
  return bound;
}

/** Replaces a primitive's joint sets by `sets` (JOINTS_n/WEIGHTS_n, n = 0, 1). */
function setWeightAttributes(primitive: Primitive, sets: readonly { joints: Accessor; weights: Accessor }[]): void {
  for (let set = 0; set < 2; set++) primitive.setAttribute(`JOINTS_${set}`, null).setAttribute(`WEIGHTS_${set}`, null);
  sets.forEach(({ joints, weights }, set) => primitive.setAttribute(`JOINTS_${set}`, joints).setAttribute(`WEIGHTS_${set}`, weights));
}

/** The weight rows of a part's glTF vertices, #N × #B. */
function partRows(weights: DenseMatrix, part: MeshPart, target: PartTarget): DenseMatrix {
  const B = weights.cols;
  if (!target.map)
    return {
      rows: part.vertexCount,
      cols: B,
      data: weights.data.subarray(part.vertexStart * B, (part.vertexStart + part.vertexCount) * B),
    };
  const data = new Float64Array(target.map.length * B);
  target.map.forEach((v, i) => data.set(weights.data.subarray(v * B, (v + 1) * B), i * B));
  return { rows: target.map.length, cols: B, data };
}

function sourceKey(part: MeshPart): string {
  return part.source ? `${part.source.node}/${part.source.primitive}` : '';
}

function sameRows(weights: DenseMatrix, start: number, original: DenseMatrix, originalStart: number, count: number): boolean {
  const B = weights.cols;
  if (original.cols !== B) return false;
  const a = weights.data;
  const b = original.data;
  for (let i = 0; i < count * B; i++) if (a[start * B + i] !== b[originalStart * B + i]) return false;
  return true;
}

/**
 * Tolerance on the sum of a vertex's stored weights: the Khronos validator reports a sum off 1 by 9.5e-7 (float32
 * 1 + 2⁻²⁰) as not normalised and takes one off by 3e-7.
 */
const WEIGHT_SUM_TOLERANCE = 5e-7;

/**
 * Tolerance on the sum of a Draco-compressed vertex's decoded weights: Draco quantizes each weight to a grid, at 8
 * bits (the coarsest common setting) a step of 1/255 over [0, 1], so each of four weights is off by up to 1/510 and
 * the sum by up to 4/510 ≈ 0.0078.
 */
const DRACO_WEIGHT_SUM_TOLERANCE = 0.01;

/**
 * Whether a skinned primitive's JOINTS_n/WEIGHTS_n are valid glTF as stored (glTF 2.0 §3.7.3.3, as the Khronos
 * validator checks them): every weight finite and ≥ 0, each vertex's weights summing to 1 (WEIGHT_SUM_TOLERANCE), and
 * no joint twice among a vertex's weighted slots. Joint indices past the skin are refused by the importer already.
 * @param tolerance how far a vertex's sum may be from 1
 */
function storedWeightsValid(primitive: Primitive, tolerance: number): boolean {
  const sets: [Accessor, Accessor][] = [];
  for (let set = 0; ; set++) {
    const joints = primitive.getAttribute(`JOINTS_${set}`);
    const weights = primitive.getAttribute(`WEIGHTS_${set}`);
    if (!joints || !weights) break;
    sets.push([joints, weights]);
  }
  if (sets.length === 0) return false;
  const count = sets[0][1].getCount();
  const joint: number[] = [];
  const weight: number[] = [];
  const used = new Set<number>();
  for (let v = 0; v < count; v++) {
    let sum = 0;
    used.clear();
    for (const [joints, weights] of sets) {
      joints.getElement(v, joint);
      weights.getElement(v, weight);
      for (let k = 0; k < 4; k++) {
        const w = weight[k];
        if (!(Number.isFinite(w) && w >= 0)) return false;
        if (w === 0) continue;
        if (used.has(joint[k])) return false;
        used.add(joint[k]);
        sum += w;
      }
    }
    if (!(Math.abs(sum - 1) <= tolerance)) return false;
  }
  return true;
}

/** One set of four (JOINTS_n or WEIGHTS_n) from all slots of every vertex, in order. */
function gatherSet<T extends Float32Array | Uint8Array | Uint16Array>(all: T, slotCount: number, set: number): T {
  const count = all.length / slotCount;
  const out = new (all.constructor as { new (n: number): T })(count * 4);
  for (let i = 0; i < count; i++) for (let k = 0; k < 4; k++) out[4 * i + k] = all[i * slotCount + 4 * set + k];
  return out;
}
