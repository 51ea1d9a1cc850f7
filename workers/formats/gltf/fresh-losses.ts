/**
 * What a fresh export cannot carry of the glTF a scene was read from: the scene holds a mesh, its joints, weights,
 * clips of the joints, one set of texture coordinates and the materials, so a fresh export of it leaves out the
 * file's vertex colours, texture coordinate sets past the one the materials read, its own tangents (computed again
 * where a material has a normal map), cameras, lights and the animation of nodes that are no joints (morph weights
 * included). Each is named in a notice; an in-place export (gltf-edit.ts) keeps them all.
 */
import type { Document } from '@gltf-transform/core';

/** A list of at most four names, then how many more. */
function listed(names: readonly string[]): string {
  return `${names.slice(0, 4).join(', ')}${names.length > 4 ? ` and ${names.length - 4} more` : ''}`;
}

/**
 * The notices of a fresh export of a scene read from `doc`, one sentence per kind of thing left out.
 * @param doc   the source document
 * @param file  the source file's name, for the notices
 * @returns the notices; empty when the fresh export carries everything of these kinds
 */
export function freshExportLosses(doc: Document, file: string): string[] {
  const root = doc.getRoot();
  const colours: string[] = [];
  const uvSets: string[] = [];
  const tangents: string[] = [];
  for (const mesh of root.listMeshes()) {
    const name = mesh.getName() || `mesh ${root.listMeshes().indexOf(mesh)}`;
    const semantics = new Set(mesh.listPrimitives().flatMap((primitive) => primitive.listSemantics()));
    if ([...semantics].some((s) => s.startsWith('COLOR_'))) colours.push(name);
    if ([...semantics].some((s) => /^TEXCOORD_[1-9]/.test(s))) uvSets.push(name);
    if (semantics.has('TANGENT')) tangents.push(name);
  }
  const jointNodes = new Set(root.listSkins().flatMap((skin) => skin.listJoints()));
  const moved = new Set<string>();
  for (const animation of root.listAnimations())
    for (const channel of animation.listChannels()) {
      const node = channel.getTargetNode();
      if (node && (!jointNodes.has(node) || channel.getTargetPath() === 'weights'))
        moved.add(`${node.getName() || `node ${root.listNodes().indexOf(node)}`} (${channel.getTargetPath()})`);
    }
  const cameras = root.listNodes().filter((node) => node.getCamera() !== null).length;
  const lights = root.listExtensionsUsed().some((extension) => extension.extensionName === 'KHR_lights_punctual')
    ? root.listNodes().filter((node) => node.getExtension('KHR_lights_punctual')).length
    : 0;
  const out: string[] = [];
  const of = `${file}'s`;
  if (colours.length > 0)
    out.push(`the vertex colours (COLOR_n) of ${of} meshes ${listed(colours)} are not written: the scene holds no vertex colours`);
  if (uvSets.length > 0)
    out.push(
      `the second and later texture coordinate sets (TEXCOORD_1 …) of ${of} meshes ${listed(uvSets)} are not written: the scene holds one set`,
    );
  if (tangents.length > 0)
    out.push(`the tangents of ${of} meshes ${listed(tangents)} are not kept: they are computed again where a material has a normal map`);
  if (cameras > 0)
    out.push(
      `${cameras} camera${cameras === 1 ? '' : 's'} of ${file} ${cameras === 1 ? 'is' : 'are'} not written: the scene holds no cameras`,
    );
  if (lights > 0)
    out.push(
      `${lights} light${lights === 1 ? '' : 's'} of ${file} (KHR_lights_punctual) ${lights === 1 ? 'is' : 'are'} not written: the scene holds no lights`,
    );
  if (moved.size > 0)
    out.push(
      `the animation of ${moved.size} node${moved.size === 1 ? '' : 's'} of ${file} that ${moved.size === 1 ? 'is' : 'are'} no joint (${listed([...moved])}) is not written: clips pose joints only`,
    );
  return out;
}
