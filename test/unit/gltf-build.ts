/**
 * Building generated glTF assets in the tests with glTF-Transform: accessors on one buffer, animation channels, and a
 * textured asset whose image sits in a subfolder.
 */
import { Document, NodeIO, type Accessor, type Animation, type Node as GltfNode } from '@gltf-transform/core';
import { normalize, type Vec } from './gltf-appendix-c.ts';
import { png } from './png-file.ts';

/** The unit quaternion (x, y, z, w) of a turn by `angle` radians about `axis`. */
export const axisAngle = (axis: Vec, angle: number): Vec => [...normalize(axis).map((x) => x * Math.sin(angle / 2)), Math.cos(angle / 2)];

/**
 * A new buffer of `doc` and two writers on it: `acc`, an accessor of an array, and `channel`, a sampler of the key
 * times and values (CUBICSPLINE: in-tangent, value, out-tangent per key) animating a node's rotation or translation.
 */
export function gltfBuilder(doc: Document): {
  acc: (type: 'SCALAR' | 'VEC2' | 'VEC3' | 'VEC4' | 'MAT4', array: Float32Array | Uint16Array | Uint8Array) => Accessor;
  channel: (
    animation: Animation,
    target: GltfNode,
    path: 'rotation' | 'translation',
    interpolation: 'STEP' | 'LINEAR' | 'CUBICSPLINE',
    times: number[],
    values: Vec[],
  ) => void;
} {
  const buffer = doc.createBuffer();
  const acc = (type: 'SCALAR' | 'VEC2' | 'VEC3' | 'VEC4' | 'MAT4', array: Float32Array | Uint16Array | Uint8Array): Accessor =>
    doc.createAccessor().setType(type).setArray(array).setBuffer(buffer);
  return {
    acc,
    channel: (animation, target, path, interpolation, times, values) => {
      const sampler = doc
        .createAnimationSampler()
        .setInput(acc('SCALAR', Float32Array.from(times)))
        .setOutput(acc(path === 'rotation' ? 'VEC4' : 'VEC3', Float32Array.from(values.flat())))
        .setInterpolation(interpolation);
      animation.addSampler(sampler).addChannel(doc.createAnimationChannel().setSampler(sampler).setTargetNode(target).setTargetPath(path));
    },
  };
}

/** A 2 × 2 PNG of known pixels: the texture texturedAsset names. */
export const TEXTURE = png(2, 2, Uint8Array.from([255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255]));

/**
 * A skinned triangle on one joint with a textured material, as a .gltf (JSON) and its `asset.bin`; the image's URI is
 * `textures/skin.png` and its bytes TEXTURE.
 */
export async function texturedAsset(): Promise<{ json: { images: { uri: string }[] }; bin: Uint8Array }> {
  const doc = new Document();
  const { acc } = gltfBuilder(doc);
  const joint = doc.createNode('root');
  const skin = doc
    .createSkin('skin')
    .addJoint(joint)
    .setInverseBindMatrices(acc('MAT4', Float32Array.from([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])));
  const texture = doc.createTexture('skin').setImage(TEXTURE).setMimeType('image/png').setURI('textures/skin.png');
  const primitive = doc
    .createPrimitive()
    .setAttribute('POSITION', acc('VEC3', Float32Array.from([0, 0, 0, 1, 0, 0, 0, 1, 0])))
    .setAttribute('TEXCOORD_0', acc('VEC2', Float32Array.from([0, 0, 1, 0, 0, 1])))
    .setAttribute('JOINTS_0', acc('VEC4', new Uint16Array(12)))
    .setAttribute('WEIGHTS_0', acc('VEC4', Float32Array.from([1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0])))
    .setIndices(acc('SCALAR', Uint16Array.from([0, 1, 2])))
    .setMaterial(doc.createMaterial('skin').setBaseColorTexture(texture));
  doc
    .createScene()
    .addChild(joint)
    .addChild(doc.createNode('body').setMesh(doc.createMesh('triangle').addPrimitive(primitive)).setSkin(skin));
  const { json, resources } = await new NodeIO().writeJSON(doc, { basename: 'asset' });
  const names = Object.keys(resources).sort().join(', ');
  if (names !== 'asset.bin, textures/skin.png') throw new Error(`the generated asset names ${names}, not its .bin and its image`);
  return { json: json as unknown as { images: { uri: string }[] }, bin: resources['asset.bin'] };
}

/** What twoJointSkinnedAsset skins, each array as glTF stores it. */
export interface TwoJointMesh {
  /** #V × 3 */
  positions: number[];
  /** JOINTS_0, #V × 4 (unsigned bytes): 0 the root, 1 the tip */
  joints: number[];
  /** WEIGHTS_0, #V × 4, stored as given (rows that are not valid glTF stay so) */
  weights: number[];
  /** #F × 3 vertex indices; absent: the primitive is not indexed */
  triangles?: number[];
}

/**
 * A mesh skinned to two joints: `root` at the origin and its child `tip` one unit up (+y), the skin "skin" binding
 * them at rest (inverse bind matrices: the identity and a translation by −y). One node `name` holds the mesh `name`
 * (normals +z); the scene `name` has that node and the root. The document is given back with its joints and `acc`
 * (gltfBuilder's, on the same buffer) so that a test can add to it (a clip) before writing it.
 */
export function twoJointSkinnedAsset(
  name: string,
  mesh: TwoJointMesh,
): { doc: Document; root: GltfNode; tip: GltfNode } & ReturnType<typeof gltfBuilder> {
  const doc = new Document();
  const builder = gltfBuilder(doc);
  const { acc } = builder;
  const root = doc.createNode('root');
  const tip = doc.createNode('tip').setTranslation([0, 1, 0]);
  root.addChild(tip);
  const skin = doc
    .createSkin('skin')
    .addJoint(root)
    .addJoint(tip)
    .setInverseBindMatrices(
      acc('MAT4', Float32Array.from([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1])),
    );
  const vertexCount = mesh.positions.length / 3;
  const primitive = doc
    .createPrimitive()
    .setAttribute('POSITION', acc('VEC3', Float32Array.from(mesh.positions)))
    .setAttribute(
      'NORMAL',
      acc(
        'VEC3',
        Float32Array.from({ length: 3 * vertexCount }, (_, i) => (i % 3 === 2 ? 1 : 0)),
      ),
    )
    .setAttribute('JOINTS_0', acc('VEC4', Uint8Array.from(mesh.joints)))
    .setAttribute('WEIGHTS_0', acc('VEC4', Float32Array.from(mesh.weights)));
  if (mesh.triangles) primitive.setIndices(acc('SCALAR', Uint16Array.from(mesh.triangles)));
  const node = doc.createNode(name).setMesh(doc.createMesh(name).addPrimitive(primitive)).setSkin(skin);
  doc.createScene(name).addChild(node).addChild(root);
  return { doc, root, tip, ...builder };
}
