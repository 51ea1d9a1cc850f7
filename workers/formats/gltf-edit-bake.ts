/**
 * Baked deformation (gltf-vertex-animation.ts) written into the file an in-place export edits. A fresh export's
 * rest pose is its bind pose, so a bake's morph targets there are plain position deltas. In the file being edited,
 * the joints' rest nodes need not be the bind pose: while a baked clip plays (it keys morph weights only), every
 * joint stands at its rest node, and glTF skins the morphed vertex with the blend of those joint matrices
 * (glTF 2.0 §3.7.3):  x = S_v · (p_v + δ_v),  S_v = Σ_k w_vk · G_jk · IBM_jk.
 * So the target that gives the baked position P_v back is  δ_v = S_v⁻¹ · P_v − p_v, and the normal target is the
 * baked normal taken back the same way, δn_v = normalize(S_v⁻¹ n_v) − n_rest (the linear part; rigid blends keep
 * normals unit within rounding). A vertex whose blend is singular cannot be reached: it is reported.
 *
 * Targets go on every skinned part's primitive whose mesh has no targets of its own (the examples' targets, when
 * added just before, are not its own: the bake's come after them, and the weights the examples key are padded with
 * zeros for the new targets). Each baked clip is a new animation keying weight 1 on its frame's target.
 */
import type { Accessor, Document, Node as GltfNode, Primitive, Skin } from '@gltf-transform/core';
import { invertAffine } from './gltf-numbers.ts';
import type { GltfVertexAnimation } from './gltf-vertex-animation.ts';
import type { MeshPart, TriangleMesh } from './types.ts';
import { vertexNormals } from '../mesh/vertex-normals.ts';

/** What the bake needs of the edit in progress. */
export interface BakeInPlace {
  doc: Document;
  /** the scene's vertices and triangles (the bake's positions are of these) */
  mesh: TriangleMesh;
  parts: readonly MeshPart[];
  partPrimitives: readonly ({ node: GltfNode; primitive: Primitive } | null)[];
  /** #J × 16 column-major G_j · IBM_j of a skin's joints, at their rest nodes, as the file will have them */
  jointMatrices: (skin: Skin) => Float64Array;
  /** mesh nodes that took the examples' targets just before, and how many */
  exampleNodes: ReadonlySet<GltfNode>;
  exampleTargetCount: number;
  /** seconds per frame of a bake without times */
  framesPerSecond: number;
  warnings: string[];
  fail: (where: string, reason: string) => never;
}

/** Adds the bakes' morph targets and animations (see the module comment). */
export function addBakedMorphs(input: BakeInPlace, bakes: readonly GltfVertexAnimation[]): void {
  if (bakes.length === 0) return;
  const { doc, mesh, parts, partPrimitives, exampleNodes, warnings, fail } = input;
  for (const bake of bakes)
    if (!(bake.frameCount >= 1 && Number.isInteger(bake.frameCount)))
      fail(`clip "${bake.name}"`, `frame count must be a whole number ≥ 1, not ${bake.frameCount}`);
  const chosen: { part: MeshPart; node: GltfNode; primitive: Primitive; inverse: Float64Array; restNormals: Float64Array | null }[] = [];
  const nodes = new Set<GltfNode>();
  let skipped = 0;
  let singular = 0;
  parts.forEach((part, i) => {
    const found = partPrimitives[i];
    if (!part.skinned || !found) return;
    const { node, primitive } = found;
    const skin = node.getSkin();
    if (!skin) return;
    if (!exampleNodes.has(node) && hasMorphTargets(node)) {
      skipped++;
      return;
    }
    const blend = blendInverses(primitive, input.jointMatrices(skin), part.vertexCount);
    singular += blend.singular;
    const normal = primitive.getAttribute('NORMAL');
    const restNormals = normal ? readVec3(normal) : null;
    chosen.push({ part, node, primitive, inverse: blend.inverse, restNormals });
    nodes.add(node);
  });
  if (skipped > 0) warnings.push(`${skipped} meshes have morph targets of their own; the baked clips are not added to them`);
  if (chosen.length === 0) {
    warnings.push('no skinned mesh can take the baked clips as morph targets; they are not written');
    return;
  }
  if (singular > 0)
    warnings.push(`${singular} vertices have a singular blend of joint matrices at rest; their baked positions cannot be reached`);

  const E = input.exampleTargetCount;
  const F = bakes.reduce((sum, bake) => sum + bake.frameCount, 0);
  const posed = new Float64Array(mesh.positions.length);
  const posedNormals = new Float64Array(mesh.positions.length);
  const element: number[] = [];
  for (const bake of bakes)
    for (let f = 0; f < bake.frameCount; f++) {
      bake.positionsAt(f, posed);
      vertexNormals(posed, mesh.triangles, posedNormals);
      for (const { part, primitive, inverse, restNormals } of chosen) {
        const position = primitive.getAttribute('POSITION')!;
        const delta = new Float32Array(3 * part.vertexCount);
        const normalDelta = restNormals ? new Float32Array(3 * part.vertexCount) : null;
        for (let v = 0; v < part.vertexCount; v++) {
          const o = 3 * (part.vertexStart + v);
          const m = inverse.subarray(16 * v, 16 * v + 16);
          const [x, y, z] = [posed[o], posed[o + 1], posed[o + 2]];
          if (!Number.isFinite(x + y + z)) fail(`clip "${bake.name}" frame ${f}`, `vertex ${part.vertexStart + v} has no finite position`);
          const p = position.getElement(v, element);
          for (let r = 0; r < 3; r++) delta[3 * v + r] = m[r] * x + m[4 + r] * y + m[8 + r] * z + m[12 + r] - p[r];
          if (!normalDelta || !restNormals) continue;
          const [nx, ny, nz] = [posedNormals[o], posedNormals[o + 1], posedNormals[o + 2]];
          const n = [0, 1, 2].map((r) => m[r] * nx + m[4 + r] * ny + m[8 + r] * nz);
          const length = Math.hypot(n[0], n[1], n[2]) || 1;
          for (let r = 0; r < 3; r++) normalDelta[3 * v + r] = n[r] / length - restNormals[3 * v + r];
        }
        const buffer = position.getBuffer();
        const target = doc.createPrimitiveTarget(`${bake.name} ${f}`);
        target.setAttribute('POSITION', doc.createAccessor().setType('VEC3').setArray(delta).setBuffer(buffer));
        if (normalDelta) target.setAttribute('NORMAL', doc.createAccessor().setType('VEC3').setArray(normalDelta).setBuffer(buffer));
        primitive.addTarget(target);
      }
    }

  // The other primitives of those meshes share the mesh's weights: they get empty targets up to the same count.
  for (const node of nodes) {
    const meshOf = node.getMesh()!;
    for (const primitive of meshOf.listPrimitives()) {
      const position = primitive.getAttribute('POSITION')!;
      while (primitive.listTargets().length < E + F) {
        const zero = doc
          .createAccessor()
          .setType('VEC3')
          .setArray(new Float32Array(3 * position.getCount()))
          .setBuffer(position.getBuffer());
        primitive.addTarget(doc.createPrimitiveTarget(`rest ${primitive.listTargets().length}`).setAttribute('POSITION', zero));
      }
    }
    const defaults = [...meshOf.getWeights()].slice(0, E);
    while (defaults.length < E) defaults.push(0);
    meshOf.setWeights([...defaults, ...new Array<number>(F).fill(0)]);
    const names = (meshOf.getExtras() as { targetNames?: unknown }).targetNames;
    const exampleNames: unknown[] = Array.isArray(names) ? (names as unknown[]).slice(0, E) : [];
    meshOf.setExtras({
      ...meshOf.getExtras(),
      targetNames: [...exampleNames, ...bakes.flatMap((bake) => Array.from({ length: bake.frameCount }, (_, f) => `${bake.name} ${f}`))],
    });
  }
  // Weights the examples key: padded with zeros for the bake's targets.
  for (const animation of doc.getRoot().listAnimations())
    for (const channel of animation.listChannels()) {
      const node = channel.getTargetNode();
      const sampler = channel.getSampler();
      if (channel.getTargetPath() !== 'weights' || !node || !nodes.has(node) || !sampler) continue;
      const output = sampler.getOutput()!;
      const rows = E > 0 ? output.getCount() / E : 0;
      const padded = new Float32Array(rows * (E + F));
      for (let k = 0; k < rows; k++) for (let t = 0; t < E; t++) padded[k * (E + F) + t] = output.getScalar(k * E + t);
      sampler.setOutput(doc.createAccessor().setType('SCALAR').setArray(padded).setBuffer(output.getBuffer()));
    }

  // One animation per bake: weight 1 on frame f's target at frame f's time.
  const buffer = chosen[0].primitive.getAttribute('POSITION')!.getBuffer();
  let first = E;
  for (const bake of bakes) {
    const times = Float32Array.from({ length: bake.frameCount }, (_, f) => (bake.times ? bake.times[f] : f / input.framesPerSecond));
    const values = new Float32Array(bake.frameCount * (E + F));
    for (let f = 0; f < bake.frameCount; f++) values[f * (E + F) + first + f] = 1;
    const animation = doc.createAnimation(bake.name);
    const timesAccessor: Accessor = doc.createAccessor().setType('SCALAR').setArray(times).setBuffer(buffer);
    for (const node of nodes) {
      const output = doc.createAccessor().setType('SCALAR').setArray(values.slice()).setBuffer(buffer);
      const sampler = doc.createAnimationSampler().setInput(timesAccessor).setOutput(output).setInterpolation('LINEAR');
      animation
        .addSampler(sampler)
        .addChannel(doc.createAnimationChannel().setTargetNode(node).setTargetPath('weights').setSampler(sampler));
    }
    first += bake.frameCount;
  }
}

/** Whether a mesh node's mesh has morph targets (its own: new targets go only where there are none). */
export function hasMorphTargets(node: GltfNode): boolean {
  return node
    .getMesh()!
    .listPrimitives()
    .some((primitive) => primitive.listTargets().length > 0);
}

/** S_v⁻¹ per vertex (#V × 16), S_v the blend of the joint matrices by the primitive's JOINTS_n / WEIGHTS_n. */
function blendInverses(primitive: Primitive, joints: Float64Array, count: number): { inverse: Float64Array; singular: number } {
  const inverse = new Float64Array(16 * count);
  const blend = new Float64Array(16);
  const js: number[] = [];
  const ws: number[] = [];
  let singular = 0;
  for (let v = 0; v < count; v++) {
    blend.fill(0);
    for (let set = 0; primitive.getAttribute(`JOINTS_${set}`); set++) {
      primitive.getAttribute(`JOINTS_${set}`)!.getElement(v, js);
      primitive.getAttribute(`WEIGHTS_${set}`)!.getElement(v, ws);
      for (let k = 0; k < 4; k++) if (ws[k] !== 0) for (let e = 0; e < 16; e++) blend[e] += ws[k] * joints[16 * js[k] + e];
    }
    if (!invertAffine(blend, 0, inverse, 16 * v)) {
      singular++;
      inverse.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1], 16 * v);
    }
  }
  return { inverse, singular };
}

function readVec3(accessor: Accessor): Float64Array {
  const out = new Float64Array(3 * accessor.getCount());
  const element: number[] = [];
  for (let i = 0; i < accessor.getCount(); i++) out.set(accessor.getElement(i, element), 3 * i);
  return out;
}
