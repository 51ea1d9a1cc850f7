/**
 * A generated asset with meshes that have no skin, for the tests of the one rule for them (static without a joint
 * above, rigid below one), and glTF's own posing of every mesh node (no three.js, no importer): node matrices from the
 * clip's keys (gltf-skinning-reference.ts applyAnimation), Σ w (G · IBM) v for skinned vertices, G_node v for the others.
 */
import { Document, NodeIO, type Node as GltfNode } from '@gltf-transform/core';
import { applyAnimation } from './gltf-skinning-reference.ts';

/** The key times of the asset's clip "wave", in seconds. */
export const KEY_TIMES = [0, 0.5, 1];

const turn = (axis: [number, number, number], degrees: number): [number, number, number, number] => {
  const half = (degrees * Math.PI) / 360;
  return [axis[0] * Math.sin(half), axis[1] * Math.sin(half), axis[2] * Math.sin(half), Math.cos(half)];
};

/** hips → arm; the body skinned on both, the crate at the root (static), the sword below the arm (rigid); clip "wave". */
export async function propsAsset(): Promise<Uint8Array> {
  const doc = new Document();
  const buffer = doc.createBuffer();
  const accessor = (type: 'SCALAR' | 'VEC3' | 'VEC4' | 'MAT4', array: Float32Array | Uint8Array | Uint16Array) =>
    doc.createAccessor().setType(type).setArray(array).setBuffer(buffer);
  const scene = doc.createScene('props');
  const mesh = (name: string, positions: number[], triangles: number[], skin?: { joints: number[]; weights: number[] }) => {
    const n = positions.length / 3;
    const primitive = doc
      .createPrimitive()
      .setAttribute('POSITION', accessor('VEC3', Float32Array.from(positions)))
      .setAttribute(
        'NORMAL',
        accessor(
          'VEC3',
          Float32Array.from({ length: 3 * n }, (_, i) => (i % 3 === 2 ? 1 : 0)),
        ),
      )
      .setIndices(accessor('SCALAR', Uint16Array.from(triangles)));
    if (skin) {
      primitive.setAttribute('JOINTS_0', accessor('VEC4', Uint8Array.from(skin.joints)));
      primitive.setAttribute('WEIGHTS_0', accessor('VEC4', Float32Array.from(skin.weights)));
    }
    return doc.createMesh(name).addPrimitive(primitive);
  };
  const body = doc.createNode('body').setMesh(
    mesh('body', [0, 0.8, 0, 2, 0.8, 0, 2, 1.2, 0, 0, 1.2, 0, 1, 0.8, 0, 1, 1.2, 0], [0, 4, 5, 0, 5, 3, 4, 1, 2, 4, 2, 5], {
      joints: [0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0],
      weights: [1, 0, 0, 0, 0.7, 0.3, 0, 0, 0.7, 0.3, 0, 0, 1, 0, 0, 0, 0.5, 0.5, 0, 0, 0.5, 0.5, 0, 0],
    }),
  );
  const crate = doc
    .createNode('crate')
    .setTranslation([3, 0, 0.5])
    .setMesh(mesh('crate', [0, 0, 0, 0.5, 0, 0, 0, 0.5, 0, 0.5, 0.5, 0], [0, 1, 2, 1, 3, 2]));
  const sword = doc
    .createNode('sword')
    .setTranslation([0.5, 0.2, 0])
    .setRotation(turn([0, 0, 1], 30))
    .setMesh(mesh('sword', [0, 0, 0, 1, 0, 0, 0, 0.1, 0], [0, 1, 2]));
  const hips = doc.createNode('hips').setTranslation([0, 1, 0]);
  const arm = doc.createNode('arm').setTranslation([1, 0, 0]);
  hips.addChild(arm);
  arm.addChild(sword);
  const skin = doc
    .createSkin('body skin')
    .addJoint(hips)
    .addJoint(arm)
    .setInverseBindMatrices(
      accessor(
        'MAT4',
        Float32Array.from([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -1, -1, 0, 1]),
      ),
    );
  body.setSkin(skin);
  scene.addChild(body).addChild(crate).addChild(hips);
  const times = accessor('SCALAR', Float32Array.from(KEY_TIMES));
  const animation = doc.createAnimation('wave');
  const channel = (node: GltfNode, targetPath: 'rotation' | 'translation', values: number[]) => {
    const sampler = doc
      .createAnimationSampler()
      .setInput(times)
      .setOutput(accessor(targetPath === 'rotation' ? 'VEC4' : 'VEC3', Float32Array.from(values)))
      .setInterpolation('LINEAR');
    animation
      .addSampler(sampler)
      .addChannel(doc.createAnimationChannel().setTargetNode(node).setTargetPath(targetPath).setSampler(sampler));
  };
  channel(hips, 'rotation', [...turn([0, 0, 1], 0), ...turn([0, 0, 1], 20), ...turn([0, 0, 1], -35)]);
  channel(hips, 'translation', [0, 1, 0, 0.2, 1.1, 0, 0, 0.9, 0.3]);
  channel(arm, 'rotation', [...turn([0, 1, 0], 0), ...turn([0, 1, 0], 40), ...turn([0.6, 0, 0.8], 70)]);
  return new NodeIO().writeBinary(doc);
}

/** glTF's posing of every mesh node at `time` of the first clip, by node name: skinned Σ w (G · IBM) v, else G v. */
export function gltfPosedByMesh(doc: Document, time: number): Map<string, number[]> {
  const restore = applyAnimation(doc, 0, time);
  const byMesh = new Map<string, number[]>();
  const transform = (m: ArrayLike<number>, p: number[]): number[] =>
    [0, 1, 2].map((r) => m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r]);
  for (const node of doc.getRoot().listNodes()) {
    const mesh = node.getMesh();
    if (!mesh) continue;
    const out: number[] = [];
    const skin = node.getSkin();
    const jointMatrices = skin?.listJoints().map((joint, j) => {
      const world = joint.getWorldMatrix();
      const ibm = skin.getInverseBindMatrices()!.getElement(j, []);
      return Array.from({ length: 16 }, (_, e) =>
        [0, 1, 2, 3].reduce((sum, k) => sum + world[4 * k + (e % 4)] * ibm[4 * Math.floor(e / 4) + k], 0),
      );
    });
    for (const primitive of mesh.listPrimitives()) {
      const position = primitive.getAttribute('POSITION')!;
      for (let v = 0; v < position.getCount(); v++) {
        const p = position.getElement(v, []);
        if (!jointMatrices) {
          out.push(...transform(node.getWorldMatrix(), p));
          continue;
        }
        const m = new Array<number>(16).fill(0);
        const joints = primitive.getAttribute('JOINTS_0')!.getElement(v, []);
        const weights = primitive.getAttribute('WEIGHTS_0')!.getElement(v, []);
        for (let k = 0; k < 4; k++) for (let e = 0; e < 16; e++) m[e] += weights[k] * jointMatrices[joints[k]][e];
        out.push(...transform(m, p));
      }
    }
    byMesh.set(node.getName(), out);
  }
  restore();
  return byMesh;
}
