/**
 * The main process's Save handler apart from Electron: validate the page's request, ask where to write (the app asks
 * with a Save dialog), write atomically. Kept free of `electron` so the same code runs in a plain Node process, where
 * a test kills it at random moments and checks the target is always the whole old file or the whole new one.
 */
import path from 'node:path';
import { resourceTargets } from './asset-resources.ts';
import { writeFileAtomic, writeFilesAtomic } from './atomic-write.ts';
import { IPC_CHANNELS, type SaveFileRequest } from './ipc-contract.ts';
import { validateSaveAssetRequest, validateSaveFileRequest, type ValidSaveAssetRequest } from './ipc-validate.ts';
import { bufferUris, withResourceUris } from '../workers/formats/gltf-resource-uris.ts';
import { boneNamesFileFor } from '../workers/formats/bone-names.ts';

/**
 * @param argument     the page's request, as received (validated here)
 * @param chooseTarget where to write the validated request; null when the user cancels
 * @returns whether the file was written
 * @throws IpcArgumentError for a bad request, AtomicWriteError when the file cannot be written (the old one stays)
 */
export async function saveRequestedFile(
  argument: unknown,
  chooseTarget: (request: SaveFileRequest) => Promise<string | null>,
): Promise<boolean> {
  const request = validateSaveFileRequest(IPC_CHANNELS.saveFile, argument);
  const target = await chooseTarget(request);
  if (target === null) return false;
  await writeFileAtomic(target, request.bytes);
  return true;
}

/**
 * The main process's handler for saving a .gltf with its resources: one question where the .gltf goes, its resources
 * written relative to it (subfolders made), all the files as one atomic set. Every URI is checked twice: by name
 * (validateSaveAssetRequest: inside the folder) and on disk (resourceTargets: no symbolic link in the chosen folder
 * leads the write out of it), before anything is written. Its buffers are renamed after the name chosen
 * (buffersNamedAfter); a TGF skeleton's names file is written beside it under the name chosen for it (`arm.tgf` →
 * `arm.names`).
 * @param argument     the page's request, as received (validated here)
 * @param chooseTarget where to write the .gltf; null when the user cancels
 * @returns whether the files were written
 * @throws IpcArgumentError for a bad request, FormatError (naming the .gltf by its base name and the URI) for a
 *         resource a link would take out of the folder, AtomicWriteError when a file cannot be written (none changed)
 */
export async function saveRequestedAsset(
  argument: unknown,
  chooseTarget: (request: ValidSaveAssetRequest) => Promise<string | null>,
): Promise<boolean> {
  const request = validateSaveAssetRequest(IPC_CHANNELS.saveAsset, argument);
  const target = await chooseTarget(request);
  if (target === null) return false;
  const chosen = path.basename(target);
  const { bytes, resources } = /\.tgf$/i.test(request.suggestedName)
    ? { bytes: request.bytes, resources: { [boneNamesFileFor(chosen)]: request.resources[0].bytes } }
    : buffersNamedAfter(request, chosen);
  const files = resourceTargets(path.dirname(target), resources, path.basename(target));
  files.push({ path: target, contents: bytes });
  await writeFilesAtomic(files, { createFolders: true });
  return true;
}

/**
 * The asset with its buffers named after the name the user chose: the page names them after the name it suggested
 * (bufferUris), and kept so they would land on the files of another asset, e.g. the .bin of the source the export
 * was made from, beside which the user saved it under a new name. Images keep their URIs.
 */
function buffersNamedAfter(
  request: ValidSaveAssetRequest,
  chosenName: string,
): { bytes: Uint8Array; resources: Record<string, Uint8Array> } {
  const stem = (name: string) => name.replace(/\.gltf$/i, '');
  const binaries = request.resources.filter((resource) => resource.path.toLowerCase().endsWith('.bin')).length;
  const suggested = bufferUris(stem(request.suggestedName), binaries);
  const chosen = bufferUris(stem(chosenName), binaries);
  const renamed = new Map(suggested.map((uri, k): [string, string] => [uri, chosen[k]]).filter(([from, to]) => from !== to));
  const resources = Object.fromEntries(request.resources.map((resource) => [renamed.get(resource.uri) ?? resource.uri, resource.bytes]));
  if (renamed.size === 0 || !request.resources.some((resource) => renamed.has(resource.uri))) return { bytes: request.bytes, resources };
  return { bytes: withResourceUris(request.bytes, renamed, chosenName), resources };
}
