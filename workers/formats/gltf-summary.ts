/**
 * What a glTF document holds, for `rigwright info`: meshes with their vertex and triangle counts, skins with their
 * joints, animation clips with their key counts and the spacing of their key times, materials, and the extensions
 * the file uses and requires.
 */
import type { Document, Node as GltfNode, Primitive } from '@gltf-transform/core';
import { nodeCountOf, otherPointerOf } from './gltf-extensions.ts';

/** How a clip's key times are spaced. */
export type KeySpacing =
  /** no keys, or one key time: a still pose */
  | { kind: 'still' }
  /** every step equal: `fps` keys per second */
  | { kind: 'regular'; fps: number }
  /** every key on the grid of the smallest step, with some grid points missing */
  | { kind: 'grid'; fps: number }
  | { kind: 'irregular' };

/** Relative tolerance on steps between key times: float32 key times at a few seconds carry ~1e-7 s of round-off. */
const SPACING_TOLERANCE = 1e-3;

/**
 * The spacing of sorted, distinct key times: regular when every step is the mean step (t_last − t_first) / (n − 1)
 * to within SPACING_TOLERANCE of it; on a grid when every time is t_first plus a whole multiple of the smallest step
 * (to the same tolerance); irregular otherwise.
 * @param times  key times in seconds, ascending, without repeats
 */
export function keySpacing(times: ArrayLike<number>): KeySpacing {
  const n = times.length;
  if (n < 2) return { kind: 'still' };
  const mean = (times[n - 1] - times[0]) / (n - 1);
  if (!(mean > 0)) return { kind: 'irregular' };
  let smallest = Infinity;
  let regular = true;
  for (let i = 1; i < n; i++) {
    const step = times[i] - times[i - 1];
    smallest = Math.min(smallest, step);
    if (Math.abs(step - mean) > SPACING_TOLERANCE * mean) regular = false;
  }
  if (regular) return { kind: 'regular', fps: 1 / mean };
  if (!(smallest > 0)) return { kind: 'irregular' };
  for (let i = 1; i < n; i++) {
    const multiple = (times[i] - times[0]) / smallest;
    if (Math.abs(multiple - Math.round(multiple)) > SPACING_TOLERANCE * Math.max(1, Math.round(multiple))) return { kind: 'irregular' };
  }
  return { kind: 'grid', fps: 1 / smallest };
}

/** Names are as in the file, '' where it gives none. */
export interface GltfMeshSummary {
  name: string;
  primitives: number;
  /** Σ POSITION counts of its primitives (after decoding compressed geometry) */
  vertices: number;
  /** triangles of its triangle, strip and fan primitives */
  triangles: number;
  /** primitives of points or lines */
  otherPrimitives: number;
  /** attribute semantics of its primitives, in order of first appearance */
  attributes: string[];
  morphTargets: number;
  /** the skins that the nodes using this mesh bind it with, as `skin "name"` or `skin k` (empty: not skinned) */
  skins: string[];
}

export interface GltfSkinSummary {
  name: string;
  /** joints in skin order: node name and the index of the nearest ancestor that is a joint of this skin (-1: root) */
  joints: { name: string; parent: number }[];
  inverseBindMatrices: boolean;
}

export interface GltfClipSummary {
  name: string;
  channels: number;
  /** channel count per target path (rotation, translation, scale, weights, …) */
  paths: Record<string, number>;
  interpolations: string[];
  /** distinct key times over all its samplers */
  keys: number;
  /** fewest and most keys of one sampler */
  samplerKeys: [number, number];
  /** first and last key time, seconds */
  start: number;
  end: number;
  spacing: KeySpacing;
}

export interface GltfMaterialSummary {
  name: string;
  baseColorFactor: number[];
  /** the base colour texture's image type (e.g. image/png), '' without one */
  baseColorTexture: string;
  /** extensions set on the material */
  extensions: string[];
}

export interface GltfSummary {
  scenes: number;
  nodes: number;
  meshes: GltfMeshSummary[];
  skins: GltfSkinSummary[];
  clips: GltfClipSummary[];
  materials: GltfMaterialSummary[];
  textures: number;
}

/**
 * The summary of a document read with readGltfDocument (workers/formats/gltf-extensions.ts).
 * @param json  the file's JSON as written: the KHR_animation_pointer channels the reader leaves out (any pointer
 *              but a node's rotation, translation or scale) are counted from it, as path "pointer"
 */
export function summarizeGltf(doc: Document, json: unknown): GltfSummary {
  const root = doc.getRoot();
  const nodes = root.listNodes();
  const skinsOfMesh = new Map<unknown, Set<string>>();
  root.listSkins().forEach((skin, s) => {
    for (const node of nodes) {
      if (node.getSkin() !== skin || !node.getMesh()) continue;
      const set = skinsOfMesh.get(node.getMesh()) ?? new Set<string>();
      set.add(skin.getName() ? `skin "${skin.getName()}"` : `skin ${s}`);
      skinsOfMesh.set(node.getMesh(), set);
    }
  });
  const meshes = root.listMeshes().map((mesh): GltfMeshSummary => {
    const attributes: string[] = [];
    let vertices = 0;
    let triangles = 0;
    let otherPrimitives = 0;
    let morphTargets = 0;
    for (const primitive of mesh.listPrimitives()) {
      for (const semantic of primitive.listSemantics()) if (!attributes.includes(semantic)) attributes.push(semantic);
      const count = primitive.getAttribute('POSITION')?.getCount() ?? 0;
      vertices += count;
      const t = triangleCount(primitive, count);
      if (t === null) otherPrimitives++;
      else triangles += t;
      morphTargets = Math.max(morphTargets, primitive.listTargets().length);
    }
    return {
      name: mesh.getName(),
      primitives: mesh.listPrimitives().length,
      vertices,
      triangles,
      otherPrimitives,
      attributes,
      morphTargets,
      skins: [...(skinsOfMesh.get(mesh) ?? [])],
    };
  });
  const skins = root.listSkins().map((skin): GltfSkinSummary => {
    const joints = skin.listJoints();
    const indexOf = new Map<GltfNode, number>(joints.map((joint, j) => [joint, j]));
    return {
      name: skin.getName(),
      joints: joints.map((joint) => {
        let parent = -1;
        for (let up = joint.getParentNode(); up && parent < 0; up = up.getParentNode()) parent = indexOf.get(up) ?? -1;
        return { name: joint.getName(), parent };
      }),
      inverseBindMatrices: skin.getInverseBindMatrices() !== null,
    };
  });
  const fileAnimations =
    typeof json === 'object' && json !== null && Array.isArray((json as { animations?: unknown }).animations)
      ? (json as { animations: unknown[] }).animations
      : [];
  const clips = root.listAnimations().map((animation, a): GltfClipSummary => {
    const paths: Record<string, number> = {};
    for (const channel of animation.listChannels()) {
      const path = channel.getTargetPath() ?? 'unknown';
      paths[path] = (paths[path] ?? 0) + 1;
    }
    const pointers = pointerChannelCount(fileAnimations[a], nodeCountOf(json));
    if (pointers > 0) paths.pointer = pointers;
    const interpolations = new Set<string>();
    const times = new Set<number>();
    let fewest = Infinity;
    let most = 0;
    for (const sampler of animation.listSamplers()) {
      interpolations.add(sampler.getInterpolation());
      const input = sampler.getInput();
      const count = input?.getCount() ?? 0;
      fewest = Math.min(fewest, count);
      most = Math.max(most, count);
      for (let i = 0; i < count; i++) times.add(input!.getScalar(i));
    }
    const sorted = Float64Array.from(times).sort();
    return {
      name: animation.getName(),
      channels: animation.listChannels().length + pointers,
      paths,
      interpolations: [...interpolations],
      keys: sorted.length,
      samplerKeys: [Number.isFinite(fewest) ? fewest : 0, most],
      start: sorted.length > 0 ? sorted[0] : 0,
      end: sorted.length > 0 ? sorted[sorted.length - 1] : 0,
      spacing: keySpacing(sorted),
    };
  });
  const materials = root.listMaterials().map((material): GltfMaterialSummary => ({
    name: material.getName(),
    baseColorFactor: material.getBaseColorFactor(),
    baseColorTexture: material.getBaseColorTexture()?.getMimeType() ?? '',
    extensions: material.listExtensions().map((extension) => extension.extensionName),
  }));
  return { scenes: root.listScenes().length, nodes: nodes.length, meshes, skins, clips, materials, textures: root.listTextures().length };
}

/** The KHR_animation_pointer channels of a file's animation other than node TRS. */
function pointerChannelCount(animation: unknown, nodeCount: number): number {
  const channels = (animation as { channels?: unknown } | undefined)?.channels;
  return Array.isArray(channels) ? channels.filter((channel) => otherPointerOf(channel, nodeCount) !== null).length : 0;
}

/** Triangles of a primitive with `count` vertices, or null for points and lines. */
function triangleCount(primitive: Primitive, count: number): number | null {
  const n = primitive.getIndices()?.getCount() ?? count;
  switch (primitive.getMode()) {
    case 4:
      return Math.floor(n / 3);
    case 5:
    case 6:
      return Math.max(0, n - 2);
    default:
      return null;
  }
}
