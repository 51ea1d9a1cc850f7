/**
 * Rest matrices of a Document's nodes and skins as the export steps need them, in double precision, column-major
 * 4 × 4 (glTF 2.0 §3.5.3): a node's local and world matrix, a skin's inverse bind matrices, a matrix split back into
 * translation, rotation and scale, and the nodes' place in the scene.
 */
import type { Node as GltfNode, Scene, Skin } from '@gltf-transform/core';
import { composeTrs, invertAffine, multiply } from '../gltf-numbers.ts';
import { matrixToQuat } from '../../math/quaternion.ts';

/** Relative: a joint's head or rest matrix that moved less than this (× the mesh diagonal) is unchanged. */
export const MOVED = 1e-9;

/** A node's local matrix from its translation, rotation and scale. */
export function localMatrix(node: GltfNode): Float64Array {
  const m = new Float64Array(16);
  composeTrs(
    Float64Array.from(node.getTranslation()),
    0,
    Float64Array.from(node.getRotation()),
    0,
    Float64Array.from(node.getScale()),
    0,
    m,
    0,
  );
  return m;
}

/** A node's world matrix in its rest pose, in double precision. */
export function worldMatrix(node: GltfNode): Float64Array {
  const m = localMatrix(node);
  for (let parent = node.getParentNode(); parent; parent = parent.getParentNode()) multiply(localMatrix(parent), 0, m, 0, m, 0);
  return m;
}

/** Whether two matrices agree within MOVED (the translation column within MOVED × `diagonal`). */
export function sameMatrix(a: Float64Array, b: Float64Array, diagonal: number): boolean {
  for (let i = 0; i < 16; i++) {
    const scale = i >= 12 && i < 15 ? diagonal : 1;
    if (Math.abs(a[i] - b[i]) > MOVED * scale) return false;
  }
  return true;
}

/** A skin's #J × 16 inverse bind matrices (identity where the skin has none). */
export function readInverseBind(skin: Skin): Float64Array {
  const joints = skin.listJoints();
  const out = new Float64Array(16 * joints.length);
  const accessor = skin.getInverseBindMatrices();
  const element: number[] = [];
  for (let k = 0; k < joints.length; k++) {
    if (accessor) out.set(accessor.getElement(k, element), 16 * k);
    else out[16 * k] = out[16 * k + 5] = out[16 * k + 10] = out[16 * k + 15] = 1;
  }
  return out;
}

/** Translation, rotation and scale of an affine matrix without shear (the node's own convention, glTF 2.0 §3.5.3). */
export function decompose(m: Float64Array): {
  t: [number, number, number];
  r: [number, number, number, number];
  s: [number, number, number];
} {
  const sx = Math.hypot(m[0], m[1], m[2]);
  const sy = Math.hypot(m[4], m[5], m[6]);
  let sz = Math.hypot(m[8], m[9], m[10]);
  const det = m[0] * (m[5] * m[10] - m[6] * m[9]) - m[4] * (m[1] * m[10] - m[2] * m[9]) + m[8] * (m[1] * m[6] - m[2] * m[5]);
  if (det < 0) sz = -sz;
  const rotation = Float64Array.of(m[0] / sx, m[4] / sy, m[8] / sz, m[1] / sx, m[5] / sy, m[9] / sz, m[2] / sx, m[6] / sy, m[10] / sz);
  const q = new Float64Array(4);
  matrixToQuat(rotation, 0, q, 0);
  return { t: [m[12], m[13], m[14]], r: [q[0], q[1], q[2], q[3]], s: [sx, sy, sz] };
}

/** Gives `node` the local transform (float32-rounded TRS) that puts it at `world` below its present parent. */
export function setLocalFromWorld(node: GltfNode, world: Float64Array): void {
  const parent = node.getParentNode();
  const local = new Float64Array(16);
  if (parent) {
    const inverse = new Float64Array(16);
    invertAffine(worldMatrix(parent), 0, inverse, 0);
    multiply(inverse, 0, world, 0, local, 0);
  } else {
    local.set(world);
  }
  const { t, r, s } = decompose(local);
  const stored = <T extends number[]>(values: T): T => values.map(Math.fround) as T;
  node.setTranslation(stored(t)).setRotation(stored(r)).setScale(stored(s));
}

/** Whether `node` hangs (at any depth) below `scene`. */
export function isInScene(scene: Scene, node: GltfNode): boolean {
  let top = node;
  while (top.getParentNode()) top = top.getParentNode()!;
  return scene.listChildren().includes(top);
}

/** Takes `node` off its parent node and off every scene's root. */
export function detach(node: GltfNode, scenes: readonly Scene[]): void {
  node.getParentNode()?.removeChild(node);
  for (const scene of scenes) scene.removeChild(node);
}

/** The length of the bounding box diagonal of #V × 3 positions (1 for an empty or flat-to-a-point set). */
export function diagonalOf(positions: Float64Array): number {
  const lo = [Infinity, Infinity, Infinity];
  const hi = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < positions.length; i++) {
    lo[i % 3] = Math.min(lo[i % 3], positions[i]);
    hi[i % 3] = Math.max(hi[i % 3], positions[i]);
  }
  return Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]) || 1;
}
