/**
 * Connector bones left out of a fresh export's joints. TGF gives a bone's parent only by a shared joint, so a bone
 * that starts away from its parent's end is written with a connector bone from the parent's end to its start
 * (`rigwright import`, tgfWithConnectors): appended after every bone of the file, without weight, at rest in every
 * pose file. glTF places joints by their nodes and says parents by the hierarchy, so it needs no connector: such a
 * bone is left out and its children hang on its parent. Nothing moves: the connector has no vertex and never turns,
 * so its children's rotations relative to it are relative to its parent, and the joint nodes stand at the bones'
 * heads either way.
 */
import type { GltfClip } from '../gltf-export.ts';
import type { DenseMatrix } from '../types.ts';
import type { PoseSequence } from '../../rig/pose-sequence.ts';
import type { Skeleton } from '../../rig/skeleton.ts';

/** The rig a fresh export writes, in the parts connectors touch. */
export interface ConnectedRig {
  skeleton: Skeleton;
  /** #V × #B */
  weights: DenseMatrix;
  clips: readonly GltfClip[];
  boneNames?: readonly string[];
}

/**
 * The connector bones of a rig: bones with a parent and children that all come before them in bone order, no weight
 * on any vertex, the identity rotation and no translation in every pose of every clip, and marked as connectors.
 * The mark is the bone's name (a names file): `connector to NAME` as `rigwright import` writes it, or
 * `NAME (connector)` / `NAME (connector K)` as the app's Save skeleton writes it. Without names nothing is a
 * connector: in a TGF every bone starts at its parent's end joint and its children start at its end, so a
 * connector's shape is every chain bone's, and an unweighted hips or control bone must not be taken for one.
 */
export function connectorBones(rig: ConnectedRig): number[] {
  if (!rig.boneNames) return [];
  const { boneNames } = rig;
  const { parents } = rig.skeleton;
  const B = parents.length;
  const { rows, data } = rig.weights;
  const out: number[] = [];
  for (let b = 0; b < B; b++) {
    const p = parents[b];
    if (p < 0) continue;
    const children = [...parents.keys()].filter((c) => parents[c] === b);
    if (children.length === 0 || children.some((c) => c > b)) continue;
    if (!isConnectorName(boneNames[b])) continue;
    let weighted = false;
    for (let v = 0; v < rows && !weighted; v++) weighted = data[v * B + b] !== 0;
    if (!weighted && rig.clips.every((clip) => atRest(clip.poses, b))) out.push(b);
  }
  return out;
}

/** Whether a bone name marks a connector bone: `connector to NAME`, or `NAME (connector)` / `NAME (connector K)`. */
export function isConnectorName(name: string): boolean {
  return name.startsWith('connector to ') || / \(connector( \d+)?\)$/.test(name);
}

/**
 * The rig without its connector bones (connectorBones): their children on their parents, their weight columns, pose
 * entries and names left out.
 * @returns the rig, and the bones left out (indices into the given rig)
 */
export function withoutConnectorBones<T extends ConnectedRig>(rig: T): { rig: T; removed: number[] } {
  const removed = connectorBones(rig);
  if (removed.length === 0) return { rig, removed };
  const { skeleton } = rig;
  const B = skeleton.parents.length;
  const gone = new Set(removed);
  const kept = [...skeleton.parents.keys()].filter((b) => !gone.has(b));
  const index = new Int32Array(B).fill(-1);
  kept.forEach((b, k) => (index[b] = k));
  const parentOf = (b: number): number => {
    let p = skeleton.parents[b];
    while (p >= 0 && gone.has(p)) p = skeleton.parents[p];
    return p < 0 ? -1 : index[p];
  };
  const parents = Int32Array.from(kept, parentOf);
  const bones = new Uint32Array(2 * kept.length);
  kept.forEach((b, k) => bones.set(skeleton.bones.subarray(2 * b, 2 * b + 2), 2 * k));
  const order = Uint32Array.from(
    [...skeleton.order].filter((b) => !gone.has(b)),
    (b) => index[b],
  );
  const { rows } = rig.weights;
  const weights = new Float64Array(rows * kept.length);
  for (let v = 0; v < rows; v++) kept.forEach((b, k) => (weights[v * kept.length + k] = rig.weights.data[v * B + b]));
  const clips = rig.clips.map((clip) => ({
    ...clip,
    poses: keptBones(clip.poses, kept),
    ...(clip.scales ? { scales: keptScales(clip.scales, B, kept) } : {}),
  }));
  return {
    rig: {
      ...rig,
      skeleton: { joints: skeleton.joints, bones, parents, order },
      weights: { rows, cols: kept.length, data: weights },
      clips,
      ...(rig.boneNames ? { boneNames: kept.map((b) => rig.boneNames![b]) } : {}),
    },
    removed,
  };
}

/** Whether bone b has the identity rotation and no translation in every pose of `poses`. */
function atRest(poses: PoseSequence, b: number): boolean {
  const B = poses.boneCount;
  if (poses.kind === 'quaternions') {
    const q = poses.final.subarray(4 * b, 4 * b + 4);
    return q[0] === 0 && q[1] === 0 && q[2] === 0 && Math.abs(q[3]) === 1;
  }
  for (let f = 0; f < poses.frameCount; f++) {
    const r = poses.rotations.subarray(9 * (f * B + b), 9 * (f * B + b) + 9);
    for (let i = 0; i < 9; i++) if (r[i] !== (i % 4 === 0 ? 1 : 0)) return false;
    const t = poses.translations?.subarray(3 * (f * B + b), 3 * (f * B + b) + 3);
    if (t && (t[0] !== 0 || t[1] !== 0 || t[2] !== 0)) return false;
  }
  return true;
}

/** A pose sequence of the bones `kept` only (curves, which name bones of the old rig, are left out). */
function keptBones(poses: PoseSequence, kept: readonly number[]): PoseSequence {
  const B = poses.boneCount;
  if (poses.kind === 'quaternions') {
    const final = new Float64Array(4 * kept.length);
    kept.forEach((b, k) => final.set(poses.final.subarray(4 * b, 4 * b + 4), 4 * k));
    return { kind: 'quaternions', boneCount: kept.length, final };
  }
  const F = poses.frameCount;
  const rotations = new Float64Array(9 * kept.length * F);
  const translations = poses.translations ? new Float64Array(3 * kept.length * F) : undefined;
  for (let f = 0; f < F; f++)
    kept.forEach((b, k) => {
      rotations.set(poses.rotations.subarray(9 * (f * B + b), 9 * (f * B + b) + 9), 9 * (f * kept.length + k));
      if (translations) translations.set(poses.translations!.subarray(3 * (f * B + b), 3 * (f * B + b) + 3), 3 * (f * kept.length + k));
    });
  return {
    kind: 'matrices',
    boneCount: kept.length,
    frameCount: F,
    rotations,
    ...(translations ? { translations } : {}),
    ...(poses.times ? { times: poses.times } : {}),
  };
}

/** L·B joint scales (frame-major) of the bones `kept` only. */
function keptScales(scales: Float64Array, boneCount: number, kept: readonly number[]): Float64Array {
  const F = scales.length / boneCount;
  const out = new Float64Array(F * kept.length);
  for (let f = 0; f < F; f++) kept.forEach((b, k) => (out[f * kept.length + k] = scales[f * boneCount + b]));
  return out;
}
