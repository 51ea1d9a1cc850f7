/**
 * The skins step: which joints each skin has and their inverse bind matrices. A skin keeps its joints, less the
 * removed ones, and gains every bone a vertex of a part on it has weight on. Inverse bind matrices: with the skeleton
 * as in the document, the document's (a skin that gains joints gets theirs computed); once a joint's rest world
 * matrix changed, every joint's, IBM_s,j = G_j⁻¹ · C_s, where C_s = G_r · IBM_s,r (r the skin's first joint, before
 * any change) maps the skin's bind space into the world, so that all are the rest joints' inverses. A skin the
 * document's start built (ExportState.built: a fresh export's) has its joints only: every joint gets
 * IBM_s,j = G_j⁻¹ · C_s, with C_s the identity (its bind space is the world).
 */
import type { Accessor, Node as GltfNode, Primitive, Skin } from '@gltf-transform/core';
import { invertAffine, multiply } from '../gltf-numbers.ts';
import type { ExportScene, ExportState } from './export-state.ts';
import { readInverseBind, sameMatrix, worldMatrix } from './node-matrices.ts';

/**
 * Updates every skin's joints and inverse bind matrices (see the module comment).
 * @returns each skin's joints as written (a part's JOINTS index into these)
 */
export function updateSkins(state: ExportState, scene: ExportScene): Map<Skin, GltfNode[]> {
  const { doc, skins, jointNodes, removedNodes, parts, partTargets, firstSkin, fail } = state;
  const root = doc.getRoot();
  const boneCount = scene.skeleton.parents.length;
  const { weights } = scene;
  const skinJoints = new Map<Skin, GltfNode[]>();
  for (const skin of skins)
    skinJoints.set(
      skin,
      skin.listJoints().filter((node) => !removedNodes.has(node)),
    );
  parts.forEach((part, i) => {
    const target = partTargets[i];
    if (!part.skinned || !target) return;
    const skin = target.node.getSkin() ?? firstSkin;
    if (!skin) return;
    const joints = skinJoints.get(skin)!;
    const present = new Set(joints);
    for (let v = part.vertexStart; v < part.vertexStart + part.vertexCount; v++) {
      for (let b = 0; b < boneCount; b++) {
        if (weights.data[v * boneCount + b] !== 0 && !present.has(jointNodes[b]!)) {
          present.add(jointNodes[b]!);
          joints.push(jointNodes[b]!);
        }
      }
    }
  });

  const skeletonChanged =
    state.newBones.length > 0 || [...state.restBefore].some(([node, was]) => !sameMatrix(was, worldMatrix(node), state.diagonal));
  const partPrimitives = new Set(partTargets.flatMap((target) => target?.primitives ?? []));
  for (const skin of skins) {
    const joints = skinJoints.get(skin)!;
    const c = state.skinToWorld.get(skin);
    if (!c) continue;
    const before = skin.listJoints();
    const old = readInverseBind(skin);
    const ibm = new Float64Array(16 * joints.length);
    // A skin the document's start built has no inverse bind matrices yet: every joint's is computed.
    const built = state.built.skins.has(skin);
    let changed = built || joints.length !== before.length || joints.some((node, k) => k < before.length && before[k] !== node);
    joints.forEach((node, k) => {
      const at = before.indexOf(node);
      if (at >= 0 && !skeletonChanged && !built) {
        ibm.set(old.subarray(16 * at, 16 * at + 16), 16 * k);
        return;
      }
      changed = true;
      const inverse = new Float64Array(16);
      if (!invertAffine(worldMatrix(node), 0, inverse, 0)) fail(`joint "${node.getName()}"`, 'its rest world matrix is singular');
      multiply(inverse, 0, c, 0, ibm, 16 * k);
    });
    if (!changed) continue;
    if (before.some((node) => removedNodes.has(node))) {
      // The parts' JOINTS are written again by the weights step; a skinned primitive the scene does not hold (lines,
      // points, a node outside the default scene) has its slots renumbered here, a removed joint's going to its
      // nearest joint ancestor, as the scene moves a removed bone's weight to its parent.
      const slot = before.map((node) => {
        let up: GltfNode | null = node;
        while (up && !joints.includes(up)) up = up.getParentNode();
        return up ? joints.indexOf(up) : 0;
      });
      for (const node of state.nodes) {
        if (node.getSkin() !== skin) continue;
        for (const primitive of node.getMesh()?.listPrimitives() ?? []) if (!partPrimitives.has(primitive)) renumberJoints(primitive, slot);
      }
    }
    for (const node of before) if (removedNodes.has(node)) skin.removeJoint(node);
    for (const node of joints) if (!before.includes(node)) skin.addJoint(node);
    const accessor = doc
      .createAccessor()
      .setType('MAT4')
      .setArray(Float32Array.from(ibm))
      .setBuffer(root.listBuffers()[0] ?? doc.createBuffer());
    skin.setInverseBindMatrices(accessor);
  }
  return skinJoints;
}

/**
 * A primitive's JOINTS_n renumbered by `slot` (old skin slot → new), with the weights of slots that come to name one
 * joint added together (glTF wants each joint once per vertex); new accessors, so others sharing them keep theirs.
 */
function renumberJoints(primitive: Primitive, slot: readonly number[]): void {
  const sets: { joints: Accessor; weights: Accessor }[] = [];
  for (let set = 0; primitive.getAttribute(`JOINTS_${set}`) && primitive.getAttribute(`WEIGHTS_${set}`); set++)
    sets.push({ joints: primitive.getAttribute(`JOINTS_${set}`)!.clone(), weights: primitive.getAttribute(`WEIGHTS_${set}`)!.clone() });
  if (sets.length === 0) return;
  const js: number[] = [];
  const ws: number[] = [];
  for (let v = 0; v < sets[0].joints.getCount(); v++) {
    const merged = new Map<number, number>();
    for (const { joints, weights } of sets) {
      joints.getElement(v, js);
      weights.getElement(v, ws);
      for (let k = 0; k < 4; k++) if (ws[k] !== 0) merged.set(slot[js[k]] ?? 0, (merged.get(slot[js[k]] ?? 0) ?? 0) + ws[k]);
    }
    const entries = [...merged];
    sets.forEach(({ joints, weights }, set) => {
      const part = entries.slice(4 * set, 4 * set + 4);
      while (part.length < 4) part.push([0, 0]);
      joints.setElement(
        v,
        part.map(([joint]) => joint),
      );
      weights.setElement(
        v,
        part.map(([, weight]) => weight),
      );
    });
  }
  sets.forEach(({ joints, weights }, set) => primitive.setAttribute(`JOINTS_${set}`, joints).setAttribute(`WEIGHTS_${set}`, weights));
}

/**
 * Each bone's bind frame B_b = C_s · IBM_s,b⁻¹ (its world matrix in the bind pose) from the first skin that has it:
 * the file skins a vertex v by G_b(pose) · IBM_b, our rig poses x = C v by A_b, so G_b(pose) = A_b · B_b.
 */
export function bindFramesOf(jointNodes: (GltfNode | null)[], skins: Skin[], skinToWorld: Map<Skin, Float64Array>): Float64Array[] {
  const frames: Float64Array[] = [];
  jointNodes.forEach((node, b) => {
    for (const skin of skins) {
      const k = skin.listJoints().indexOf(node!);
      const c = skinToWorld.get(skin);
      if (k < 0 || !c) continue;
      const ibm = readInverseBind(skin).subarray(16 * k, 16 * k + 16);
      const inverse = new Float64Array(16);
      if (!invertAffine(ibm, 0, inverse, 0)) continue;
      const frame = new Float64Array(16);
      multiply(c, 0, inverse, 0, frame, 0);
      frames[b] = frame;
      return;
    }
    frames[b] = worldMatrix(node!);
  });
  return frames;
}
