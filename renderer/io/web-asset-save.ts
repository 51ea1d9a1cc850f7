/**
 * Saving a .gltf with its resources from the web page, as one save (RigwrightBridge.saveAsset). The resource URIs are
 * checked by the rule every reader and the desktop app apply (workers/formats/resource-path.ts), so a URI that leads
 * out of the folder is refused here too.
 *
 * - Every file in the .gltf's own folder (`model.bin`, `skin.png`): each is downloaded, as any single file is; the
 *   browser puts them side by side in its downloads folder, where the .gltf finds them.
 * - Resources in subfolders (`textures/skin.png`), where the browser has the File System Access API
 *   (showDirectoryPicker): one folder picker, then every file written into the chosen folder at its path, subfolders
 *   made, the .gltf last. The page gets folder and file handles only, never a path.
 * - Resources in subfolders, without it: a download cannot make folders, so each such file is downloaded under its
 *   path with every `/` replaced by `_` (`textures/skin.png` → `textures_skin.png`; `-2`, `-3`, … before the
 *   extension when that name is taken), and the downloaded .gltf names them so (its URIs rewritten to those names,
 *   nothing else changed): the downloads load together from one folder.
 */
import type { SaveAssetRequest } from '../../app/ipc-contract.ts';
import { withResourceUris } from '../../workers/formats/gltf-resource-uris.ts';
import { FormatError } from '../../workers/formats/format-error.ts';
import { quoted, resourcePath } from '../../workers/formats/resource-path.ts';

/** The File System Access API's folder handle, as used here (not yet in TypeScript's DOM library). */
export interface WebFolderHandle {
  getDirectoryHandle(name: string, options: { create: boolean }): Promise<WebFolderHandle>;
  getFileHandle(
    name: string,
    options: { create: boolean },
  ): Promise<{ createWritable(): Promise<{ write(data: Uint8Array<ArrayBuffer>): Promise<void>; close(): Promise<void> }> }>;
}

/** The window's folder picker, where the browser has one. */
export interface WebFolderAccess {
  showDirectoryPicker?(options?: { id?: string; mode?: 'read' | 'readwrite' }): Promise<WebFolderHandle>;
}

/** Downloads one file under `name`; resolves whether it was handed to the browser. */
export type WebDownload = (name: string, bytes: Uint8Array) => Promise<boolean>;

/**
 * Saves the .gltf and its resources (see the module comment for how).
 * @returns true when written or downloaded, false when the user cancelled the folder picker
 * @throws FormatError naming the .gltf and the URI for a resource outside its folder, or for two naming one file (nothing
 *         saved then)
 */
export async function saveAssetOnTheWeb(request: SaveAssetRequest, access: WebFolderAccess, download: WebDownload): Promise<boolean> {
  const resources = request.resources.map((resource) => ({ ...resource, path: resourcePath(resource.uri, request.suggestedName) }));
  // Two URIs for one file (`a.png` and `A.png` on a file system that ignores case, or `a%2Epng`) would write it twice.
  const seen = new Set([request.suggestedName.toLowerCase()]);
  for (const resource of resources) {
    if (seen.has(resource.path.toLowerCase()))
      throw new FormatError(request.suggestedName, '', `resource URI ${quoted(resource.uri)} names a file another one names`);
    seen.add(resource.path.toLowerCase());
  }
  if (!resources.some((resource) => resource.path.includes('/'))) {
    for (const resource of resources) if (!(await download(resource.path, resource.bytes))) return false;
    return download(request.suggestedName, request.bytes);
  }
  if (typeof access.showDirectoryPicker === 'function') {
    let folder: WebFolderHandle;
    try {
      folder = await access.showDirectoryPicker({ id: 'rigwright-export', mode: 'readwrite' });
    } catch (error) {
      if (error instanceof DOMException && error.name === 'AbortError') return false;
      throw error;
    }
    for (const resource of resources) await writeInto(folder, resource.path, resource.bytes);
    await writeInto(folder, request.suggestedName, request.bytes);
    return true;
  }
  const taken = new Set([request.suggestedName.toLowerCase(), ...resources.map((r) => r.path.toLowerCase())]);
  const renamed = new Map<string, string>();
  for (const resource of resources) {
    let name = resource.path;
    if (name.includes('/')) {
      name = freeName(name.replaceAll('/', '_'), taken);
      taken.add(name.toLowerCase());
      renamed.set(resource.uri, encodeURIComponent(name));
    }
    if (!(await download(name, resource.bytes))) return false;
  }
  return download(request.suggestedName, withResourceUris(request.bytes, renamed, request.suggestedName));
}

/** `name`, or with `-2`, `-3`, … before its extension, whichever is not in `taken` (lower case). */
function freeName(name: string, taken: ReadonlySet<string>): string {
  const dot = name.lastIndexOf('.');
  const [stem, extension] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  let candidate = name;
  for (let n = 2; taken.has(candidate.toLowerCase()); n++) candidate = `${stem}-${n}${extension}`;
  return candidate;
}

/** Writes `bytes` at `path` (`/`-separated, inside) below `folder`, making its subfolders. */
async function writeInto(folder: WebFolderHandle, path: string, bytes: Uint8Array): Promise<void> {
  const parts = path.split('/');
  let at = folder;
  for (const part of parts.slice(0, -1)) at = await at.getDirectoryHandle(part, { create: true });
  const stream = await (await at.getFileHandle(parts[parts.length - 1], { create: true })).createWritable();
  await stream.write(bytes as Uint8Array<ArrayBuffer>);
  await stream.close();
}
