/** Building generated glTF assets in the tests with glTF-Transform: accessors on one buffer, animation channels. */
import type { Accessor, Animation, Document, Node as GltfNode } from '@gltf-transform/core';
import { normalize, type Vec } from './gltf-appendix-c.ts';

/** The unit quaternion (x, y, z, w) of a turn by `angle` radians about `axis`. */
export const axisAngle = (axis: Vec, angle: number): Vec => [...normalize(axis).map((x) => x * Math.sin(angle / 2)), Math.cos(angle / 2)];

/**
 * A new buffer of `doc` and two writers on it: `acc`, an accessor of an array, and `channel`, a sampler of the key
 * times and values (CUBICSPLINE: in-tangent, value, out-tangent per key) animating a node's rotation or translation.
 */
export function gltfBuilder(doc: Document): {
  acc: (type: 'SCALAR' | 'VEC3' | 'VEC4' | 'MAT4', array: Float32Array | Uint16Array) => Accessor;
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
  const acc = (type: 'SCALAR' | 'VEC3' | 'VEC4' | 'MAT4', array: Float32Array | Uint16Array): Accessor =>
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
