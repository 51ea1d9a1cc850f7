/**
 * New morph targets written into the file an in-place export edits (gltf-edit.ts): the examples' shapes
 * (addExampleMorphs) and baked deformation (addBakedMorphs).
 *
 * Baked deformation (gltf-vertex-animation.ts). A fresh export's rest pose is its bind pose, so a bake's morph
 * targets there are plain position deltas. In the file being edited,
 * the joints' rest nodes need not be the bind pose: while a baked clip plays (it keys morph weights only), every
 * joint stands at its rest node, and glTF skins the morphed vertex with the blend of those joint matrices
 * (glTF 2.0 §3.7.3):  x = S_v · (p_v + δ_v),  S_v = Σ_k w_vk · G_jk · IBM_jk.
 * So the target that gives the baked position P_v back is  δ_v = S_v⁻¹ · P_v − p_v. For normals the file's own
 * (smoothed or creased as the artist made them) are turned as the surface around the vertex turned: R_v is the
 * rotation that best takes the vertex's edges and computed normal on the scene's rest mesh to the frame's
 * (orthogonal Procrustes: the polar factor of Σ f eᵀ), and the target is δn_v = normalize(S_v⁻¹ R_v C n_file,v) −
 * n_file,v with C the skin's bind-to-world map (linear parts): a player skins normals with S_v's linear part, so it
 * shows R_v C n_file,v, the file's normal turned by the bake. A vertex whose blend is
 * singular cannot be reached: it is reported.
 *
 * Targets go on every skinned part's primitive whose mesh has no targets of its own (the examples' targets, when
 * added just before, are not its own: the bake's come after them, and the weights the examples key are padded with
 * zeros for the new targets). Each baked clip is a new animation keying weight 1 on its frame's target.
 */
import type { Accessor, Animation, Document, Mesh as GltfMesh, Node as GltfNode, Primitive, Skin } from '@gltf-transform/core';
import {
  clipKeyPoses,
  examplePoseWeights,
  exampleTargetWeights,
  planExampleTargets,
  type ExampleTarget,
  type GltfClip,
  type GltfPoseSpace,
} from './gltf-export.ts';
import { identity, invertAffine } from './gltf-numbers.ts';
import type { GltfVertexAnimation } from './gltf-vertex-animation.ts';
import type { MeshPart, TriangleMesh } from './types.ts';
import { vertexNormals } from '../mesh/vertex-normals.ts';
import { polarDecomposition } from '../math/polar-decomposition.ts';
import { identityPose } from '../rig/pose-sequence.ts';

/** What the bake needs of the edit in progress. */
export interface BakeInPlace {
  doc: Document;
  /** the scene's vertices and triangles (the bake's positions are of these) */
  mesh: TriangleMesh;
  parts: readonly MeshPart[];
  partPrimitives: readonly ({ node: GltfNode; primitive: Primitive } | null)[];
  /** #J × 16 column-major G_j · IBM_j of a skin's joints, at their rest nodes, as the file will have them */
  jointMatrices: (skin: Skin) => Float64Array;
  /** 16 column-major C_s: a skin's bind space into the world the scene's rest mesh is in */
  bindToWorld: (skin: Skin) => Float64Array;
  /** mesh nodes that took the examples' targets just before, and how many */
  exampleNodes: ReadonlySet<GltfNode>;
  exampleTargetCount: number;
  /** the rate of a bake without times (frame f at f / framesPerSecond seconds) */
  framesPerSecond: number;
  warnings: string[];
  fail: (where: string, reason: string) => never;
}

/**
 * Example shapes as new morph targets, planned as exportGltf plans them (GltfPoseSpace, planExampleTargets): on every
 * skinned part's primitive that has no targets yet, one POSITION target per planned target holding the part's
 * displacements moved into its skin's bind space (δ_bind = C_s⁻¹ δ, linear part); the meshes' default weights are
 * those of the rest pose. Clips kept from the file are left as they are, so under them the targets keep their
 * rest-pose weights; the returned `key` keys the target weights of a new clip at its keys.
 * @returns that function, the mesh nodes that took the targets and how many, or null when no primitive took them
 */
export function addExampleMorphs(
  doc: Document,
  poseSpace: GltfPoseSpace,
  clips: readonly GltfClip[],
  parts: readonly MeshPart[],
  partPrimitives: ({ node: GltfNode; primitive: Primitive } | null)[],
  skinToWorld: Map<Skin, Float64Array>,
  firstSkin: Skin,
  warnings: string[],
  fail: (where: string, reason: string) => never,
): { key: (animation: Animation, clip: GltfClip) => void; nodes: ReadonlySet<GltfNode>; targetCount: number } | null {
  const J = poseSpace.names.length;
  if (J === 0) return null;
  const restWeights = examplePoseWeights(poseSpace, [identityPose(poseSpace.interpolator.boneCount)], fail);
  const clipWeights = new Map(
    clips.filter((clip) => clip.source === undefined).map((clip) => [clip, examplePoseWeights(poseSpace, clipKeyPoses(clip.poses), fail)]),
  );
  const targets: ExampleTarget[] = planExampleTargets(poseSpace.names, [restWeights, ...clipWeights.values()]);
  const n = poseSpace.displacements.length / J;
  const meshNodes = new Set<GltfNode>();
  let skipped = 0;
  parts.forEach((part, i) => {
    const found = partPrimitives[i];
    if (!part.skinned || !found) return;
    const { node, primitive } = found;
    if (hasMorphTargets(node)) {
      skipped++;
      return;
    }
    const toBind = new Float64Array(16);
    invertAffine(skinToWorld.get(node.getSkin() ?? firstSkin)!, 0, toBind, 0);
    const buffer = primitive.getAttribute('POSITION')!.getBuffer();
    for (const target of targets) {
      const delta = new Float32Array(3 * part.vertexCount);
      for (let v = 0; v < part.vertexCount; v++) {
        const o = target.example * n + 3 * (part.vertexStart + v);
        const x = target.scale * poseSpace.displacements[o];
        const y = target.scale * poseSpace.displacements[o + 1];
        const z = target.scale * poseSpace.displacements[o + 2];
        for (let r = 0; r < 3; r++) delta[3 * v + r] = toBind[r] * x + toBind[4 + r] * y + toBind[8 + r] * z;
      }
      const accessor = doc.createAccessor().setType('VEC3').setArray(delta).setBuffer(buffer);
      primitive.addTarget(doc.createPrimitiveTarget(target.name).setAttribute('POSITION', accessor));
    }
    meshNodes.add(node);
  });
  if (skipped > 0) warnings.push(`${skipped} meshes have morph targets of their own; the examples are not added to them`);
  if (meshNodes.size === 0) return null;
  const defaults = new Float32Array(targets.length);
  exampleTargetWeights(targets, restWeights, defaults, 0);
  for (const node of meshNodes) {
    const mesh = node.getMesh()!;
    // The primitives of a mesh share its weights: one that took no targets gets empty ones.
    padTargets(doc, mesh, targets.length, (t) => targets[t].name);
    mesh.setWeights([...defaults]).setExtras({ ...mesh.getExtras(), targetNames: targets.map((target) => target.name) });
  }
  if (clips.some((clip) => clip.source !== undefined))
    warnings.push(
      'clips kept from the file do not animate the example morph targets; under them the examples keep their rest-pose weights',
    );
  const key = (animation: Animation, clip: GltfClip): void => {
    const keyWeights = clipWeights.get(clip)!;
    const keys = keyWeights.length / J;
    const values = new Float32Array(keys * targets.length);
    for (let k = 0; k < keys; k++) exampleTargetWeights(targets, keyWeights.subarray(k * J, (k + 1) * J), values, k * targets.length);
    addWeightsChannels(doc, animation, meshNodes, animation.listSamplers()[0].getInput()!, values);
  };
  return { key, nodes: meshNodes, targetCount: targets.length };
}

/** Adds the bakes' morph targets and animations (see the module comment). */
export function addBakedMorphs(input: BakeInPlace, bakes: readonly GltfVertexAnimation[]): void {
  if (bakes.length === 0) return;
  const { doc, mesh, parts, partPrimitives, exampleNodes, warnings, fail } = input;
  for (const bake of bakes)
    if (!(bake.frameCount >= 1 && Number.isInteger(bake.frameCount)))
      fail(`clip "${bake.name}"`, `frame count must be a whole number ≥ 1, not ${bake.frameCount}`);
  const chosen: {
    part: MeshPart;
    node: GltfNode;
    primitive: Primitive;
    inverse: Float64Array;
    fileNormals: Float64Array | null;
    toWorld: Float64Array;
  }[] = [];
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
    const fileNormals = normal ? readVec3(normal) : null;
    chosen.push({ part, node, primitive, inverse: blend.inverse, fileNormals, toWorld: input.bindToWorld(skin) });
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
  const element: number[] = [];
  const posed = new Float64Array(mesh.positions.length);
  const posedNormals = new Float64Array(mesh.positions.length);
  // The surface's turn at each vertex is fitted between the scene's rest mesh and the frame (world space).
  const restNormals = vertexNormals(mesh.positions, mesh.triangles);
  const neighbours = vertexNeighbours(mesh.triangles, mesh.positions.length / 3);
  const rotation = new Float64Array(9);
  for (const bake of bakes)
    for (let f = 0; f < bake.frameCount; f++) {
      bake.positionsAt(f, posed);
      vertexNormals(posed, mesh.triangles, posedNormals);
      for (const { part, primitive, inverse, fileNormals, toWorld } of chosen) {
        const position = primitive.getAttribute('POSITION')!;
        const delta = new Float32Array(3 * part.vertexCount);
        const normalDelta = fileNormals ? new Float32Array(3 * part.vertexCount) : null;
        for (let v = 0; v < part.vertexCount; v++) {
          const o = 3 * (part.vertexStart + v);
          const m = inverse.subarray(16 * v, 16 * v + 16);
          const [x, y, z] = [posed[o], posed[o + 1], posed[o + 2]];
          if (!Number.isFinite(x + y + z)) fail(`clip "${bake.name}" frame ${f}`, `vertex ${part.vertexStart + v} has no finite position`);
          const p = position.getElement(v, element);
          for (let r = 0; r < 3; r++) delta[3 * v + r] = m[r] * x + m[4 + r] * y + m[8 + r] * z + m[12 + r] - p[r];
          if (!normalDelta || !fileNormals) continue;
          // The file's normal in the world (bind pose), turned as the surface around the vertex turned, taken back
          // through the rest-node skin's linear part, so that a player's skinned normal is the turned one.
          const n = fileNormals.subarray(3 * v, 3 * v + 3);
          const world = [0, 1, 2].map((r) => toWorld[r] * n[0] + toWorld[4 + r] * n[1] + toWorld[8 + r] * n[2]);
          const turn = localTurn(part.vertexStart + v, neighbours, mesh.positions, restNormals, posed, posedNormals, rotation);
          const t = [0, 1, 2].map((r) => turn[3 * r] * world[0] + turn[3 * r + 1] * world[1] + turn[3 * r + 2] * world[2]);
          const back = [0, 1, 2].map((r) => m[r] * t[0] + m[4 + r] * t[1] + m[8 + r] * t[2]);
          const length = Math.hypot(back[0], back[1], back[2]) || 1;
          for (let r = 0; r < 3; r++) normalDelta[3 * v + r] = back[r] / length - n[r];
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
    padTargets(doc, meshOf, E + F, (t) => `rest ${t}`);
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
    addWeightsChannels(doc, animation, nodes, timesAccessor, values);
    first += bake.frameCount;
  }
}

/**
 * Pads every primitive of `mesh` with zero POSITION targets up to `count` (a mesh's primitives share its weights, so
 * each needs as many targets); `name` names the target at an index.
 */
export function padTargets(doc: Document, mesh: GltfMesh, count: number, name: (index: number) => string): void {
  for (const primitive of mesh.listPrimitives()) {
    const position = primitive.getAttribute('POSITION')!;
    while (primitive.listTargets().length < count) {
      const zero = doc
        .createAccessor()
        .setType('VEC3')
        .setArray(new Float32Array(3 * position.getCount()))
        .setBuffer(position.getBuffer());
      primitive.addTarget(doc.createPrimitiveTarget(name(primitive.listTargets().length)).setAttribute('POSITION', zero));
    }
  }
}

/** A LINEAR `weights` channel on each node, keying `values` (#keys × #targets) at the times `input`. */
export function addWeightsChannels(
  doc: Document,
  animation: Animation,
  nodes: Iterable<GltfNode>,
  input: Accessor,
  values: Float32Array,
): void {
  for (const node of nodes) {
    const output = doc.createAccessor().setType('SCALAR').setArray(values.slice()).setBuffer(input.getBuffer());
    const sampler = doc.createAnimationSampler().setInput(input).setOutput(output).setInterpolation('LINEAR');
    animation.addSampler(sampler).addChannel(doc.createAnimationChannel().setTargetNode(node).setTargetPath('weights').setSampler(sampler));
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
      inverse.set(identity(), 16 * v);
    }
  }
  return { inverse, singular };
}

/** Each vertex's neighbours along the triangles' edges. */
function vertexNeighbours(triangles: Uint32Array, vertexCount: number): number[][] {
  const out: number[][] = Array.from({ length: vertexCount }, () => []);
  for (let t = 0; t < triangles.length; t += 3)
    for (let k = 0; k < 3; k++) {
      const a = triangles[t + k];
      const b = triangles[t + ((k + 1) % 3)];
      if (!out[a].includes(b)) out[a].push(b);
      if (!out[b].includes(a)) out[b].push(a);
    }
  return out;
}

/**
 * The rotation (3×3 row-major, in `out`) that best takes the vertex's rest surround to the frame's: the orthogonal
 * Procrustes fit (polar factor of Σ f eᵀ) of its edges e → f and of its computed normal, scaled to the edges' size
 * so that a flat surround still fixes the turn about the normal.
 */
function localTurn(
  v: number,
  neighbours: readonly number[][],
  rest: Float64Array,
  restNormals: Float64Array,
  posed: Float64Array,
  posedNormals: Float64Array,
  out: Float64Array,
): Float64Array {
  const h = new Float64Array(9);
  const add = (e: ArrayLike<number>, f: ArrayLike<number>, weight: number): void => {
    for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) h[3 * r + c] += weight * f[r] * e[c];
  };
  let size = 0;
  for (const j of neighbours[v]) {
    const e = [0, 1, 2].map((r) => rest[3 * j + r] - rest[3 * v + r]);
    const f = [0, 1, 2].map((r) => posed[3 * j + r] - posed[3 * v + r]);
    size += e[0] * e[0] + e[1] * e[1] + e[2] * e[2];
    add(e, f, 1);
  }
  const unit = (a: Float64Array, i: number): number[] => {
    const length = Math.hypot(a[i], a[i + 1], a[i + 2]) || 1;
    return [a[i] / length, a[i + 1] / length, a[i + 2] / length];
  };
  add(unit(restNormals, 3 * v), unit(posedNormals, 3 * v), neighbours[v].length > 0 ? size / neighbours[v].length : 1);
  polarDecomposition(h, 0, out, 0, new Float64Array(9), 0);
  return out;
}

function readVec3(accessor: Accessor): Float64Array {
  const out = new Float64Array(3 * accessor.getCount());
  const element: number[] = [];
  for (let i = 0; i < accessor.getCount(); i++) out.set(accessor.getElement(i, element), 3 * i);
  return out;
}
