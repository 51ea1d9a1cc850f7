/**
 * A glTF batch (one .glb, or one .gltf with the .bin buffers and images it names) read into a candidate scene: every
 * mesh node as a part of one vertex list (skinned or not), one bone per joint of every skin with its name, the
 * weights, texture coordinates and materials, every animation clip as a pose sequence (the first one shown), and
 * the file itself, which export edits in place. The file replaces the scene whole, so nothing of the current scene carries over; the
 * candidate is validated like any other before the caller swaps it in.
 */
import type { OpenedFile } from '../../app/ipc-contract.ts';
import { baseName, fileExtension } from '../../workers/formats/file-name.ts';
import { isDataUri } from '../../workers/formats/data-uri.ts';
import { gltfJson } from '../../workers/formats/gltf-resource-uris.ts';
import { resourcePath } from '../../workers/formats/resource-path.ts';
import { boundingBox } from '../../workers/mesh/bounds.ts';
import type { IoClient } from '../io/io-client.ts';
import { LoadError, assertConsistent, fileErrorMessage, type SceneDocument } from '../../workers/scene/scene-document.ts';

const GLTF_EXTENSIONS = ['glb', 'gltf'];
/** Files a .gltf may name as resources: buffers and the common image types. */
const RESOURCE_EXTENSIONS = ['bin', 'png', 'jpg', 'jpeg', 'webp', 'ktx2'];

/** Whether a batch is (or tries to be) a glTF asset: it holds a .glb/.gltf, or a .bin buffer that only a .gltf can use. */
export function isGltfBatch(files: readonly OpenedFile[]): boolean {
  return files.some((f) => GLTF_EXTENSIONS.includes(fileExtension(f.name)) || fileExtension(f.name) === 'bin');
}

/**
 * Reads a glTF batch in the io worker and builds the scene it describes.
 * @param files  one .glb or .gltf, plus the resources a .gltf names (matched by base name, since dropped files carry no folders)
 * @param io     the file-reading worker
 * @returns a validated document with `boneNames` and `clips`; the file's warnings are in `warnings`, each naming the file
 * @throws LoadError or FormatError naming the file, the place and the reason
 */
export async function gltfIntoDocument(files: readonly OpenedFile[], io: IoClient): Promise<SceneDocument> {
  const assets = files.filter((f) => GLTF_EXTENSIONS.includes(fileExtension(f.name)));
  if (assets.length === 0) {
    const names = files.map((f) => f.name).join(', ');
    throw new LoadError(`${names}: glTF buffers need the .gltf file that names them; open them together`);
  }
  if (assets.length > 1)
    throw new LoadError(`${assets.map((f) => f.name).join(', ')}: ${assets.length} glTF files at once; open one at a time`);
  const asset = assets[0];
  const others = files.filter((f) => f !== asset);
  const strangers = others.filter((f) => !RESOURCE_EXTENSIONS.includes(fileExtension(f.name)));
  if (strangers.length > 0) {
    throw new LoadError(
      `${strangers.map((f) => f.name).join(', ')}: a glTF file replaces the whole scene; open ${asset.name} on its own (with its .bin and images)`,
    );
  }

  const warnings: string[] = [];
  const resources: Record<string, Uint8Array> = {};
  if (fileExtension(asset.name) === 'gltf') {
    const json = gltfJson(asset.bytes, asset.name) as { buffers?: { uri?: unknown }[]; images?: { uri?: unknown }[] };
    const byName = new Map(others.map((f) => [f.name, f.bytes]));
    const attach = (entries: { uri?: unknown }[] | undefined, kind: 'buffer' | 'image'): void => {
      (entries ?? []).forEach((entry, i) => {
        const uri = entry?.uri;
        if (typeof uri !== 'string' || isDataUri(uri)) return;
        // The same rule as where files are read from disk: a URI that leaves the asset's folder is refused, naming it.
        resourcePath(uri, asset.name);
        let decoded = uri;
        try {
          decoded = decodeURIComponent(uri);
        } catch {
          // A malformed escape is matched as written.
        }
        const bytes = byName.get(baseName(decoded));
        if (bytes) resources[decoded] = bytes;
        else if (kind === 'buffer')
          throw new LoadError(`${asset.name}: buffer ${i} is in "${decoded}", which was not opened; open it together with ${asset.name}`);
        else warnings.push(`${asset.name}: image ${i} ("${decoded}") was not opened and is left out`);
      });
    };
    attach(json.buffers, 'buffer');
    attach(json.images, 'image');
  }

  let rig;
  try {
    rig = await io.importGltf(asset.name, asset.bytes, resources);
  } catch (error) {
    throw new LoadError(fileErrorMessage(error, asset.name));
  }
  const first = rig.clips[0] ?? null;
  const doc: SceneDocument = {
    name: asset.name,
    meshFiles: [asset.name],
    mesh: rig.mesh,
    restNormals: rig.normals,
    diagonal: boundingBox(rig.mesh.positions).diagonal,
    skeletonFile: asset.name,
    skeleton: rig.skeleton,
    weights: rig.weights,
    weightsSource: asset.name,
    poses: first ? first.poses : null,
    posesFile: first ? first.name : null,
    handles: null,
    handlesFile: null,
    warnings: [...warnings, ...rig.warnings.map((w) => `${asset.name}: ${w}`)],
    boneNames: rig.boneNames,
    clips: rig.clips,
    parts: rig.parts,
    look: rig.look,
    gltfSource: rig.gltfSource,
  };
  assertConsistent(doc);
  return doc;
}
