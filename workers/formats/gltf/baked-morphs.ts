/**
 * The bakes step: baked deformation (gltf-vertex-animation.ts) as morph targets, one new animation per bake.
 *
 * A document's joints' rest nodes need not be the bind pose (a fresh export's are): while a baked clip plays (it
 * keys morph weights only), every
 * joint stands at its rest node, and glTF skins the morphed vertex with the blend of those joint matrices
 * (glTF 2.0 §3.7.3):  x = S_v · (p_v + δ_v),  S_v = Σ_k w_vk · G_jk · IBM_jk.
 * So the target that gives the baked position P_v back is  δ_v = S_v⁻¹ · P_v − p_v. For normals the file's own
 * (smoothed or creased as the artist made them) are turned as the surface around the vertex turned: R_v is the
 * rotation that best takes the vertex's edges and computed normal on the scene's rest mesh to the frame's
 * (orthogonal Procrustes: the polar factor of Σ f eᵀ), and the target is δn_v = normalize(S_v⁻¹ R_v C n_file,v) −
 * n_file,v with C the skin's bind-to-world map (linear parts): a player skins normals with S_v's linear part, so it
 * shows R_v C n_file,v, the file's normal turned by the bake. A stored normal that is the scene's computed rest
 * normal (a fresh export's) becomes the frame's computed normal N_v instead: δn_v = normalize(S_v⁻¹ N_v) − n_file,v.
 * A vertex whose blend is singular cannot be reached: it is reported.
 *
 * Targets go on every skinned part's primitive whose mesh has no targets of its own (the examples' targets, when
 * added just before, are not its own: the bake's come after them, and the weights the examples key are padded with
 * zeros for the new targets). Each baked clip is a new animation keying weight 1 on its frame's target.
 */
import type { Accessor, Node as GltfNode, Primitive, Skin } from '@gltf-transform/core';
import { identity, invertAffine, multiply } from '../gltf-numbers.ts';
import { vertexAnimationCost } from '../gltf-vertex-animation.ts';
import type { MeshPart } from '../types.ts';
import { vertexNormals } from '../../mesh/vertex-normals.ts';
import { polarDecomposition } from '../../math/polar-decomposition.ts';
import type { ClipsOptions } from './clips-options.ts';
import type { ExampleMorphs } from './example-morphs.ts';
import { sceneVertex, targetVertexCount, type ExportScene, type ExportState, type PartTarget } from './export-state.ts';
import { addWeightsChannels, hasMorphTargets, padTargets } from './morph-channels.ts';
import { readInverseBind, worldMatrix } from './node-matrices.ts';

/** #J × 16 column-major G_j · IBM_j of a skin's joints, at their rest nodes, as the file will have them. */
function jointMatrices(skin: Skin): Float64Array {
  const ibm = readInverseBind(skin);
  const out = new Float64Array(ibm.length);
  skin.listJoints().forEach((joint, k) => multiply(worldMatrix(joint), 0, ibm, 16 * k, out, 16 * k));
  return out;
}

/**
 * Adds the bakes' morph targets and animations (see the module comment).
 * @param clips the clips' options: a bake without key times is keyed at their rate, as a pose file's clip is
 */
export function addBakedMorphs(
  state: ExportState,
  scene: ExportScene,
  examples: ExampleMorphs | null,
  clips: Required<ClipsOptions>,
): void {
  const bakes = scene.vertexAnimations ?? [];
  if (bakes.length === 0) return;
  const { doc, warnings, fail } = state;
  const { mesh } = scene;
  for (const bake of bakes)
    if (!(bake.frameCount >= 1 && Number.isInteger(bake.frameCount)))
      fail(`clip "${bake.name}"`, `frame count must be a whole number ≥ 1, not ${bake.frameCount}`);
  const found = bakeParts(state, examples);
  if (!found) return;
  const { chosen, nodes } = found;
  const cost = vertexAnimationCost(
    mesh.positions.length / 3,
    bakes.map((bake) => bake.frameCount),
  );
  warnings.push(
    `baked vertex animation adds ${cost.totalBytes} bytes (${cost.targetBytes} in morph targets, ${cost.animationBytes} in keyframes)`,
  );
  const E = examples?.targetCount ?? 0;
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
      for (const { part, target: written, primitive, inverse, fileNormals, toWorld } of chosen) {
        const position = primitive.getAttribute('POSITION')!;
        const count = targetVertexCount(part, written);
        const delta = new Float32Array(3 * count);
        const normalDelta = fileNormals ? new Float32Array(3 * count) : null;
        for (let v = 0; v < count; v++) {
          const sv = sceneVertex(part, written, v);
          const o = 3 * sv;
          const m = inverse.subarray(16 * v, 16 * v + 16);
          const [x, y, z] = [posed[o], posed[o + 1], posed[o + 2]];
          if (!Number.isFinite(x + y + z)) fail(`clip "${bake.name}" frame ${f}`, `vertex ${sv} has no finite position`);
          const p = position.getElement(v, element);
          for (let r = 0; r < 3; r++) delta[3 * v + r] = m[r] * x + m[4 + r] * y + m[8 + r] * z + m[12 + r] - p[r];
          if (!normalDelta || !fileNormals) continue;
          // The file's normal in the world (bind pose), turned as the surface around the vertex turned, taken back
          // through the rest-node skin's linear part, so that a player's skinned normal is the turned one.
          const n = fileNormals.subarray(3 * v, 3 * v + 3);
          const world = [0, 1, 2].map((r) => toWorld[r] * n[0] + toWorld[4 + r] * n[1] + toWorld[8 + r] * n[2]);
          // A stored normal that is the scene's computed one (a fresh export's) becomes the frame's computed normal.
          const t = isComputedNormal(world, restNormals, sv)
            ? [posedNormals[3 * sv], posedNormals[3 * sv + 1], posedNormals[3 * sv + 2]]
            : turned(localTurn(sv, neighbours, mesh.positions, restNormals, posed, posedNormals, rotation), world);
          const back = [0, 1, 2].map((r) => m[r] * t[0] + m[4 + r] * t[1] + m[8 + r] * t[2]);
          const length = Math.hypot(back[0], back[1], back[2]) || 1;
          for (let r = 0; r < 3; r++) normalDelta[3 * v + r] = back[r] / length - n[r];
        }
        const buffer = position.getBuffer();
        const positions = doc.createAccessor().setType('VEC3').setArray(delta).setBuffer(buffer);
        const normals = normalDelta && doc.createAccessor().setType('VEC3').setArray(normalDelta).setBuffer(buffer);
        for (const each of written.primitives) {
          const morph = doc.createPrimitiveTarget(`${bake.name} ${f}`).setAttribute('POSITION', positions);
          if (normals && each.getAttribute('NORMAL')) morph.setAttribute('NORMAL', normals);
          each.addTarget(morph);
        }
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
    const times = Float32Array.from({ length: bake.frameCount }, (_, f) => (bake.times ? bake.times[f] : f / clips.framesPerSecond));
    const values = new Float32Array(bake.frameCount * (E + F));
    for (let f = 0; f < bake.frameCount; f++) values[f * (E + F) + first + f] = 1;
    const animation = doc.createAnimation(bake.name);
    const timesAccessor: Accessor = doc.createAccessor().setType('SCALAR').setArray(times).setBuffer(buffer);
    addWeightsChannels(doc, animation, nodes, timesAccessor, values);
    first += bake.frameCount;
  }
}

/** A part a bake writes targets into, with what the targets are computed from. */
interface BakePart {
  part: MeshPart;
  target: PartTarget;
  primitive: Primitive;
  /** #N × 16 S_v⁻¹ per glTF vertex */
  inverse: Float64Array;
  fileNormals: Float64Array | null;
  toWorld: Float64Array;
}

/** The skinned parts the bakes go on: those without targets of their own (the examples' are not their own). */
function bakeParts(state: ExportState, examples: ExampleMorphs | null): { chosen: BakePart[]; nodes: Set<GltfNode> } | null {
  const { parts, partTargets, warnings } = state;
  const exampleNodes = examples?.nodes ?? new Set<GltfNode>();
  const chosen: BakePart[] = [];
  const nodes = new Set<GltfNode>();
  let skipped = 0;
  let singular = 0;
  parts.forEach((part, i) => {
    const target = partTargets[i];
    if (!part.skinned || !target) return;
    const { node } = target;
    const primitive = target.primitives[0];
    const skin = node.getSkin();
    if (!skin) return;
    if (!exampleNodes.has(node) && hasMorphTargets(node)) {
      skipped++;
      return;
    }
    const blend = blendInverses(primitive, jointMatrices(skin), targetVertexCount(part, target));
    singular += blend.singular;
    const normal = primitive.getAttribute('NORMAL');
    const fileNormals = normal ? readVec3(normal) : null;
    chosen.push({ part, target, primitive, inverse: blend.inverse, fileNormals, toWorld: state.skinToWorld.get(skin) ?? identity() });
    nodes.add(node);
  });
  if (skipped > 0) warnings.push(`${skipped} meshes have morph targets of their own; the baked clips are not added to them`);
  if (chosen.length === 0) {
    warnings.push('no skinned mesh can take the baked clips as morph targets; they are not written');
    return null;
  }
  if (singular > 0)
    warnings.push(`${singular} vertices have a singular blend of joint matrices at rest; their baked positions cannot be reached`);

  return { chosen, nodes };
}

/** Relative: a stored normal this near the scene's computed rest normal is that normal (float32 keeps 6e-8). */
const COMPUTED_NORMAL = 1e-6;

/** Whether the world-space normal `n` is vertex v's computed rest normal, both made unit. */
function isComputedNormal(n: readonly number[], restNormals: Float64Array, v: number): boolean {
  const a = Math.hypot(n[0], n[1], n[2]);
  const b = Math.hypot(restNormals[3 * v], restNormals[3 * v + 1], restNormals[3 * v + 2]);
  if (!(a > 0 && b > 0)) return false;
  return [0, 1, 2].every((c) => Math.abs(n[c] / a - restNormals[3 * v + c] / b) <= COMPUTED_NORMAL);
}

/** `turn` (3×3 row-major) applied to `n`. */
function turned(turn: Float64Array, n: readonly number[]): number[] {
  return [0, 1, 2].map((r) => turn[3 * r] * n[0] + turn[3 * r + 1] * n[1] + turn[3 * r + 2] * n[2]);
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
