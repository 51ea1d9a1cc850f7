/**
 * The in-place export's start (gltf-edit.ts): the file the scene was imported from, read again into a Document, and
 * the file as the importer reads it, which is what "unchanged" means for the later steps.
 */
import { Logger, type Document, type Node as GltfNode, type Skin } from '@gltf-transform/core';
import { accessorValues, accessorsWithUnknownExtensions, sourceJson } from '../gltf-carry.ts';
import { importGltf, readCheckedGltf } from '../gltf-import.ts';
import { multiply } from '../gltf-numbers.ts';
import type { GltfSource, MeshPart } from '../types.ts';
import { exportFail, type ExportScene, type ExportState, type Fail, type PartTarget } from './export-state.ts';
import { dracoSources } from './keep-draco.ts';
import { nodeBaselines } from './keep-node-transforms.ts';
import { diagonalOf, readInverseBind, worldMatrix } from './node-matrices.ts';

/**
 * Reads `source` into the pipeline's state for `scene`.
 * @throws FormatError when the scene does not fit its source (bone count, parts, joint nodes) or the source has no
 *   skinned mesh
 */
export async function sourceState(
  source: GltfSource,
  scene: ExportScene,
  parts: readonly MeshPart[] | undefined,
  file: string,
): Promise<ExportState> {
  const fail = exportFail(file);
  const boneCount = scene.skeleton.parents.length;
  const vertexCount = scene.mesh.positions.length / 3;
  if (source.jointNodes.length !== boneCount)
    fail('', `the skeleton has ${boneCount} bones, its source ${source.file} names joints for ${source.jointNodes.length}`);
  const warnings: string[] = [];
  const original = await importGltf(source.bytes, source.file, source.resources);
  const doc = await readCheckedGltf(source.bytes, source.file, source.resources, []);
  doc.setLogger(new Logger(Logger.Verbosity.SILENT));
  const root = doc.getRoot();
  const nodes = root.listNodes();
  const animationsBefore = root.listAnimations();
  const json = sourceJson(source);
  const accessors = root.listAccessors();
  const accessorArrays = new Map<number, ArrayLike<number>>();
  for (const a of accessorsWithUnknownExtensions(json)) if (accessors[a]) accessorArrays.set(a, accessorValues(accessors[a]));
  const used = parts ?? original.parts;
  const partsEnd = used.reduce((end, part) => Math.max(end, part.vertexStart + part.vertexCount), 0);
  if (partsEnd > vertexCount) fail('parts', `the parts cover ${partsEnd} vertices, the mesh has ${vertexCount}`);
  const jointNodes: (GltfNode | null)[] = Array.from(source.jointNodes, (n, b) => {
    if (n < 0) return null;
    if (n >= nodes.length) fail(`bone ${b}`, `its joint node ${n} is not in ${source.file}`);
    return nodes[n];
  });
  const skins = root.listSkins();
  const firstSkin = original.gltfSource.jointNodes.length > 0 ? firstUsedSkin(doc) : null;
  if (!firstSkin) return fail('', `${source.file} has no skinned mesh`);

  // Each bone's bone in the file as read (by joint node; −1: new). A joint of the file that no bone names any more
  // is a removed bone: its node stays where it is, as a plain node, and it leaves every skin.
  const originalBoneOfNode = new Map<number, number>();
  original.gltfSource.jointNodes.forEach((n, ob) => originalBoneOfNode.set(n, ob));
  const stillJoints = new Set(source.jointNodes);
  const removedNodes = new Set(
    Array.from(original.gltfSource.jointNodes, (n) => (stillJoints.has(n) ? null : nodes[n])).filter((n) => n !== null),
  );
  if (removedNodes.size > 0)
    warnings.push(
      `${removedNodes.size === 1 ? '1 joint is no longer a bone' : `${removedNodes.size} joints are no longer bones`} (${[...removedNodes].map((n) => n.getName() || '(unnamed)').join(', ')}); their nodes stay as plain nodes and leave the skins`,
    );
  const restBefore = new Map<GltfNode, Float64Array>();
  for (const node of jointNodes) if (node) restBefore.set(node, worldMatrix(node));
  return {
    doc,
    file,
    sourceName: source.file,
    fail,
    warnings,
    nodes,
    jointNodes,
    before: {
      skeleton: original.skeleton,
      weights: original.weights,
      parts: original.parts,
      boneNames: original.boneNames,
      jointNodes: original.gltfSource.jointNodes,
    },
    originalBone: Int32Array.from(source.jointNodes, (n) => (n >= 0 ? (originalBoneOfNode.get(n) ?? -1) : -1)),
    removedNodes,
    newBones: [],
    skins,
    skinToWorld: skinsToWorld(skins),
    built: { skins: new Set(), bones: [] },
    firstSkin,
    restBefore,
    parts: used,
    partTargets: used.map((part) => partTargetOf(part, nodes, fail)),
    diagonal: scene.mesh.positions.length > 0 ? diagonalOf(scene.mesh.positions) : 1,
    animationsBefore,
    samplersRead: animationsBefore.map((animation) => animation.listSamplers()),
    carry: { json, source, accessors, accessorArrays, draco: dracoSources(json, doc, accessors), nodes: nodeBaselines(nodes) },
    unusedBefore: new Set(root.listAccessors().filter((accessor) => accessor.listParents().length <= 1)),
  };
}

/** C_s = G_r · IBM_s,r per skin with joints (r its first joint): its bind space into the world. */
export function skinsToWorld(skins: readonly Skin[]): Map<Skin, Float64Array> {
  const out = new Map<Skin, Float64Array>();
  for (const skin of skins) {
    const joints = skin.listJoints();
    if (joints.length === 0) continue;
    const c = new Float64Array(16);
    multiply(worldMatrix(joints[0]), 0, readInverseBind(skin), 0, c, 0);
    out.set(skin, c);
  }
  return out;
}

/** The node and primitive a part came from. */
function partTargetOf(part: MeshPart, nodes: GltfNode[], fail: Fail): PartTarget | null {
  if (!part.source) return null;
  const node = nodes[part.source.node];
  const primitive = node?.getMesh()?.listPrimitives()[part.source.primitive];
  if (!node || !primitive)
    return fail(`part "${part.name}"`, `node ${part.source.node} primitive ${part.source.primitive} is not in the source`);
  return { node, primitives: [primitive], map: null };
}

/** The first skin a mesh node of the default scene uses, depth first. */
function firstUsedSkin(doc: Document): Skin | null {
  const root = doc.getRoot();
  const scene = root.getDefaultScene() ?? root.listScenes()[0];
  const stack = scene ? [...scene.listChildren()].reverse() : [];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.getMesh() && node.getSkin()) return node.getSkin();
    stack.push(...[...node.listChildren()].reverse());
  }
  return null;
}
