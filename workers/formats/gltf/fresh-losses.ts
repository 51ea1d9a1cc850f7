/**
 * What a fresh export cannot carry of the glTF a scene was read from: the scene holds a mesh, its joints, weights,
 * clips of the joints, one set of texture coordinates and the materials, so a fresh export of it leaves out the
 * file's vertex colours, texture coordinate sets past the one the materials read, its own tangents (computed again
 * where a material has a normal map), cameras, lights and the animation of nodes that are not joints (morph weights
 * included). Each is named in a notice: by a fresh export whose rig names its source (GltfRig.source), and by
 * `rigwright import`, whose OBJ/TGF/DMAT files hold none of them either; an in-place export (gltf-edit.ts) keeps them
 * all.
 */
import { MAX_FILE_NAME_SHOWN, printableLine } from '../format-error.ts';

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** A list of at most four names, then how many more. */
function listed(names: readonly string[]): string {
  return `${names.slice(0, 4).join(', ')}${names.length > 4 ? ` and ${names.length - 4} more` : ''}`;
}

/** A mesh's or node's name as a notice shows it (one line), or `KIND i` when it has none. */
function nameOf(item: unknown, kind: string, i: number): string {
  const name = isRecord(item) && typeof item.name === 'string' ? printableLine(item.name, 80) : '';
  return name || `${kind} ${i}`;
}

/**
 * The notices of a fresh export of a scene read from a glTF, one sentence per kind of thing left out. Read from the
 * file's JSON alone (no buffer is decoded), so that `rigwright import` can say them as cheaply as an export: what is
 * not there or not of its type counts as absent.
 * @param json  the source's glTF JSON (gltfJson)
 * @param file  the source file's name, for the notices (shown printable, on one line)
 * @returns the notices; empty when the fresh export carries everything of these kinds
 */
export function freshExportLosses(json: unknown, file: string): string[] {
  const gltf = isRecord(json) ? json : {};
  const colours: string[] = [];
  const uvSets: string[] = [];
  const tangents: string[] = [];
  list(gltf.meshes).forEach((mesh, m) => {
    const semantics = new Set(
      list(isRecord(mesh) ? mesh.primitives : []).flatMap((primitive) =>
        isRecord(primitive) && isRecord(primitive.attributes) ? Object.keys(primitive.attributes) : [],
      ),
    );
    const name = nameOf(mesh, 'mesh', m);
    if ([...semantics].some((s) => s.startsWith('COLOR_'))) colours.push(name);
    if ([...semantics].some((s) => /^TEXCOORD_[1-9]/.test(s))) uvSets.push(name);
    if (semantics.has('TANGENT')) tangents.push(name);
  });
  const nodes = list(gltf.nodes);
  const jointNodes = new Set(list(gltf.skins).flatMap((skin) => (isRecord(skin) ? list(skin.joints) : [])));
  const moved = new Set<string>();
  for (const animation of list(gltf.animations))
    for (const channel of list(isRecord(animation) ? animation.channels : [])) {
      const target = isRecord(channel) && isRecord(channel.target) ? channel.target : null;
      const node = target?.node;
      if (typeof node !== 'number' || !Number.isInteger(node) || node < 0 || node >= nodes.length) continue;
      const path = typeof target!.path === 'string' ? printableLine(target!.path, 40) : '?';
      if (!jointNodes.has(node) || path === 'weights') moved.add(`${nameOf(nodes[node], 'node', node)} (${path})`);
    }
  const cameras = nodes.filter((node) => isRecord(node) && node.camera !== undefined).length;
  const lights = list(gltf.extensionsUsed).includes('KHR_lights_punctual')
    ? nodes.filter((node) => isRecord(node) && isRecord(node.extensions) && node.extensions.KHR_lights_punctual !== undefined).length
    : 0;
  const out: string[] = [];
  const shown = printableLine(file, MAX_FILE_NAME_SHOWN);
  const of = `${shown}'s`;
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
      `${cameras} camera${cameras === 1 ? '' : 's'} of ${shown} ${cameras === 1 ? 'is' : 'are'} not written: the scene holds no cameras`,
    );
  if (lights > 0)
    out.push(
      `${lights} light${lights === 1 ? '' : 's'} of ${shown} (KHR_lights_punctual) ${lights === 1 ? 'is' : 'are'} not written: the scene holds no lights`,
    );
  if (moved.size > 0)
    out.push(
      `the animation of ${moved.size} node${moved.size === 1 ? '' : 's'} of ${shown} that ${moved.size === 1 ? 'is not a joint' : 'are not joints'} (${listed([...moved])}) is not written: clips pose joints only`,
    );
  return out;
}
