/**
 * The examples step: per-vertex context LBS (GltfPoseSpace) as morph targets. glTF applies morph targets before
 * skinning (glTF 2.0 §3.7.2 and §3.7.3), so targets holding the examples' rest-space displacements δ_j, with the
 * weights a_j(P(t)) animated in every new clip, are exactly context LBS at every keyframe, in any player. Targets are
 * planned by planExampleTargets (weights kept in [0, 1]) and go on every skinned part whose mesh has no targets of its
 * own: POSITION scale · δ_j and, where the part has normals, NORMAL scale times the change of the area-weighted vertex
 * normals from the rest mesh to the corrected rest shape v0 + δ_j, both moved into the part's skin's bind space
 * (linear part of C_s⁻¹). The meshes' default weights are those of the rest pose.
 */
import type { Accessor, Animation, Node as GltfNode } from '@gltf-transform/core';
import type { GltfClip, GltfPoseSpace } from '../gltf-export.ts';
import { invertAffine } from '../gltf-numbers.ts';
import { vertexNormals } from '../../mesh/vertex-normals.ts';
import { identityPose } from '../../rig/pose-sequence.ts';
import { sceneVertex, targetVertexCount, type ExportScene, type ExportState } from './export-state.ts';
import {
  addWeightsChannels,
  clipKeyPoses,
  examplePoseWeights,
  exampleTargetWeights,
  hasMorphTargets,
  padTargets,
  planExampleTargets,
} from './morph-channels.ts';

/** What the example targets give the later steps. */
export interface ExampleMorphs {
  /** keys the example weights of a new clip at its key times `input` */
  key: (animation: Animation, input: Accessor, clip: GltfClip) => void;
  /** the mesh nodes that took the targets */
  nodes: ReadonlySet<GltfNode>;
  targetCount: number;
}

/**
 * Adds the examples' morph targets (see the module comment).
 * @returns how to key them, or null when no mesh took them
 * @throws through state.fail, naming the example, when a displacement or pose-space weight is not finite
 */
export function addExampleMorphs(state: ExportState, scene: ExportScene, poseSpace: GltfPoseSpace): ExampleMorphs | null {
  const { doc, parts, partTargets, warnings, fail } = state;
  const J = poseSpace.names.length;
  if (J === 0) return null;
  const restWeights = examplePoseWeights(poseSpace, [identityPose(poseSpace.interpolator.boneCount)], fail);
  const clipWeights = new Map(
    scene.clips
      .filter((clip) => clip.source === undefined)
      .map((clip) => [clip, examplePoseWeights(poseSpace, clipKeyPoses(clip.poses), fail)]),
  );
  const targets = planExampleTargets(poseSpace.names, [restWeights, ...clipWeights.values()]);
  const normalChange = exampleNormalChange(state, scene, poseSpace);
  const n = poseSpace.displacements.length / J;
  const meshNodes = new Set<GltfNode>();
  let skipped = 0;
  parts.forEach((part, i) => {
    const target = partTargets[i];
    if (!part.skinned || !target) return;
    const { node, primitives } = target;
    if (hasMorphTargets(node)) {
      skipped++;
      return;
    }
    const toBind = new Float64Array(16);
    invertAffine(state.skinToWorld.get(node.getSkin() ?? state.firstSkin!)!, 0, toBind, 0);
    const buffer = primitives[0].getAttribute('POSITION')!.getBuffer();
    const count = targetVertexCount(part, target);
    const intoBind = (values: Float64Array, offset: number, scale: number): Float32Array => {
      const out = new Float32Array(3 * count);
      for (let v = 0; v < count; v++) {
        const o = offset + 3 * sceneVertex(part, target, v);
        const [x, y, z] = [scale * values[o], scale * values[o + 1], scale * values[o + 2]];
        for (let r = 0; r < 3; r++) out[3 * v + r] = toBind[r] * x + toBind[4 + r] * y + toBind[8 + r] * z;
      }
      return out;
    };
    const vec3 = (array: Float32Array): Accessor => doc.createAccessor().setType('VEC3').setArray(array).setBuffer(buffer);
    const withNormals = primitives.some((primitive) => primitive.getAttribute('NORMAL'));
    for (const planned of targets) {
      const position = vec3(intoBind(poseSpace.displacements, planned.example * n, planned.scale));
      const normal = withNormals ? vec3(intoBind(normalChange[planned.example], 0, planned.scale)) : null;
      for (const primitive of primitives) {
        const morph = doc.createPrimitiveTarget(planned.name).setAttribute('POSITION', position);
        if (normal && primitive.getAttribute('NORMAL')) morph.setAttribute('NORMAL', normal);
        primitive.addTarget(morph);
      }
    }
    meshNodes.add(node);
  });
  if (skipped > 0) warnings.push(`${skipped} meshes have morph targets of their own; the examples are not added to them`);
  if (meshNodes.size === 0) {
    if (skipped === 0) warnings.push('no mesh is skinned, so the examples (morph targets of skinned meshes) are left out');
    return null;
  }
  const defaults = new Float32Array(targets.length);
  exampleTargetWeights(targets, restWeights, defaults, 0);
  for (const node of meshNodes) {
    const mesh = node.getMesh()!;
    // The primitives of a mesh share its weights: one that took no targets gets empty ones.
    padTargets(doc, mesh, targets.length, (t) => targets[t].name);
    mesh.setWeights([...defaults]).setExtras({ ...mesh.getExtras(), targetNames: targets.map((target) => target.name) });
  }
  if (scene.clips.some((clip) => clip.source !== undefined))
    warnings.push(
      'clips kept from the file do not animate the example morph targets; under them the examples keep their rest-pose weights',
    );
  const key = (animation: Animation, input: Accessor, clip: GltfClip): void => {
    const keyWeights = clipWeights.get(clip)!;
    const keys = keyWeights.length / J;
    const values = new Float32Array(keys * targets.length);
    for (let k = 0; k < keys; k++) exampleTargetWeights(targets, keyWeights.subarray(k * J, (k + 1) * J), values, k * targets.length);
    addWeightsChannels(doc, animation, meshNodes, input, values);
    if (clip.poses.kind === 'quaternions')
      warnings.push(
        `clip "${clip.name}": the example weights are keyed at its two keyframes only; between them players interpolate them linearly, not as the weights of the interpolated pose`,
      );
  };
  return { key, nodes: meshNodes, targetCount: targets.length };
}

/**
 * Per example, the change of the area-weighted vertex normals (#V × 3, world) from the scene's rest mesh to the
 * corrected rest shape v0 + δ_j.
 * @throws through state.fail when a displacement is not finite
 */
function exampleNormalChange(state: ExportState, scene: ExportScene, poseSpace: GltfPoseSpace): Float64Array[] {
  const { positions: rest, triangles } = scene.mesh;
  const n = rest.length;
  const restNormals = vertexNormals(rest, triangles);
  const corrected = new Float64Array(n);
  return poseSpace.names.map((name, j) => {
    for (let i = 0; i < n; i++) {
      const d = poseSpace.displacements[j * n + i];
      if (!Number.isFinite(d)) state.fail(`example "${name}"`, `vertex ${Math.floor(i / 3)} has no finite displacement`);
      corrected[i] = rest[i] + d;
    }
    const normals = vertexNormals(corrected, triangles);
    for (let i = 0; i < n; i++) normals[i] -= restNormals[i];
    return normals;
  });
}
