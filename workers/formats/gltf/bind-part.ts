/**
 * Where skinned mesh nodes go in the node tree: a part that joins a skin (bindPart), and then, if it is below another
 * node, to the scene's root (skinnedNodesToRoot); skinned nodes the source had stay where they are. glTF ignores a
 * skinned mesh node's own and its parents' transforms (glTF 2.0 §3.7.3).
 */
import type { Document, Node as GltfNode, Primitive, Skin } from '@gltf-transform/core';
import { invertAffine, multiply, transformPoint } from '../gltf-numbers.ts';
import { isInScene, worldMatrix } from './node-matrices.ts';

/**
 * A formerly unskinned part joins `skin`: glTF ignores a skinned node's transform, so its positions and normals
 * move from the node's space into the skin's bind space, v' = C⁻¹ · G_node · v; a mesh other nodes share is copied
 * for this node first, so that they keep theirs.
 */
export function bindPart(doc: Document, node: GltfNode, primitive: Primitive, skin: Skin, skinToWorld: Float64Array): void {
  const mesh = node.getMesh()!;
  let target = primitive;
  const users = mesh.listParents().filter((parent) => parent.propertyType === 'Node');
  if (users.length > 1) {
    const index = mesh.listPrimitives().indexOf(primitive);
    const copy = doc.createMesh(mesh.getName());
    for (const p of mesh.listPrimitives()) copy.addPrimitive(p.clone());
    node.setMesh(copy);
    target = copy.listPrimitives()[index];
    for (const semantic of ['JOINTS_0', 'WEIGHTS_0', 'JOINTS_1', 'WEIGHTS_1']) primitive.setAttribute(semantic, null);
  }
  const toBind = new Float64Array(16);
  invertAffine(skinToWorld, 0, toBind, 0);
  multiply(toBind, 0, worldMatrix(node), 0, toBind, 0);
  const normalMatrix = new Float64Array(16);
  invertAffine(toBind, 0, normalMatrix, 0);
  const position = target.getAttribute('POSITION')!;
  const element: number[] = [];
  const positions = new Float32Array(3 * position.getCount());
  for (let i = 0; i < position.getCount(); i++) positions.set(transformPoint(toBind, position.getElement(i, element)), 3 * i);
  target.setAttribute('POSITION', doc.createAccessor().setType('VEC3').setArray(positions).setBuffer(position.getBuffer()));
  const normal = target.getAttribute('NORMAL');
  if (normal) {
    const normals = new Float32Array(3 * normal.getCount());
    for (let i = 0; i < normal.getCount(); i++) {
      const [x, y, z] = normal.getElement(i, element);
      // Normals transform by the inverse transpose: n' = (M⁻¹)ᵀ n.
      const n = [
        normalMatrix[0] * x + normalMatrix[1] * y + normalMatrix[2] * z,
        normalMatrix[4] * x + normalMatrix[5] * y + normalMatrix[6] * z,
        normalMatrix[8] * x + normalMatrix[9] * y + normalMatrix[10] * z,
      ];
      const length = Math.hypot(n[0], n[1], n[2]) || 1;
      normals.set([n[0] / length, n[1] / length, n[2] / length], 3 * i);
    }
    target.setAttribute('NORMAL', doc.createAccessor().setType('VEC3').setArray(normals).setBuffer(normal.getBuffer()));
  }
  node.setSkin(skin);
  // Its own transform no longer applies; one left in place would only mislead (and the validator warns), unless
  // children still depend on it.
  if (node.listChildren().length === 0) node.setTranslation([0, 0, 0]).setRotation([0, 0, 0, 1]).setScale([1, 1, 1]);
}

/**
 * Each of `nodes` (the nodes the export has just bound, bindPart) that has no children and is below another node
 * moves to the root of the scenes it is in, which moves nothing (the validator warns about it otherwise). A node
 * with children stays: moving it would move them. Skinned nodes the source had are not given here: their place in
 * the hierarchy is the source's.
 */
export function skinnedNodesToRoot(doc: Document, nodes: readonly GltfNode[], warnings: string[]): void {
  const root = doc.getRoot();
  const moved: string[] = [];
  for (const node of nodes) {
    const parent = node.getParentNode();
    if (!node.getMesh() || !node.getSkin() || !parent || node.listChildren().length > 0) continue;
    const scenes = root.listScenes().filter((scene) => isInScene(scene, node));
    parent.removeChild(node);
    for (const scene of scenes) scene.addChild(node);
    moved.push(node.getName() || `node ${root.listNodes().indexOf(node)}`);
  }
  if (moved.length > 0)
    warnings.push(
      `${moved.length === 1 ? 'the skinned mesh node' : `${moved.length} skinned mesh nodes`} ${moved.map((name) => `"${name}"`).join(', ')} ${moved.length === 1 ? 'moves' : 'move'} from below another node to the scene's root, where glTF wants skinned meshes (nothing moves on screen: a skinned mesh ignores the transforms above it)`,
    );
}
