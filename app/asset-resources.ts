/**
 * The files an asset names, on disk (the `rigwright` CLI and Electron main): workers/formats/resource-path.ts decides
 * which names are paths inside the asset's folder; this adds what only the file system knows, that a symbolic link
 * inside the folder (a downloaded archive may hold one) does not lead out of it. Reading follows a resource's links
 * and refuses it when the real file is outside the real folder; writing refuses a target whose nearest existing
 * part (the file, or the folder it goes into) is really outside the output folder, before anything is written.
 */
import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { AtomicFile } from './atomic-write.ts';
import { FormatError } from '../workers/formats/format-error.ts';
import type { GltfResource } from '../workers/formats/gltf-resource-uris.ts';
import { quoted, resourcePath } from '../workers/formats/resource-path.ts';

/** Whether `inner` is `folder` or a path below it (both absolute and real). */
export function isInsideFolder(inner: string, folder: string): boolean {
  const relative = path.relative(folder, inner);
  return relative === '' || (!relative.startsWith(`..${path.sep}`) && relative !== '..' && !path.isAbsolute(relative));
}

/** The real path of `file`, or null when it does not exist (or cannot be resolved). */
function realPathOrNull(file: string): string | null {
  try {
    return realpathSync(file);
  } catch {
    return null;
  }
}

/**
 * Where to read a resource of an asset from.
 * @param folder    the asset's folder
 * @param resource  from gltfResources (its path already inside the folder by name)
 * @param file      the asset, for the message
 * @returns the resource's real path when it exists (inside the real folder), else its path in the folder, so that
 *          reading it reports it missing
 * @throws FormatError naming the file and the URI when a symbolic link leads the resource out of the folder, or when
 *         it is not a plain file (a folder, a named pipe, a device)
 */
export function resourceFile(folder: string, resource: GltfResource, file: string): string {
  const target = path.join(folder, ...resource.path.split('/'));
  const real = realPathOrNull(target);
  if (real === null) return target;
  const realFolder = realPathOrNull(folder) ?? path.resolve(folder);
  if (!isInsideFolder(real, realFolder))
    throw new FormatError(file, '', `resource URI ${quoted(resource.uri)} leads out of the asset's folder through a symbolic link`);
  // A named pipe or a device would keep a reader waiting for ever: only plain files are read.
  if (!statSync(real).isFile())
    throw new FormatError(file, '', `resource URI ${quoted(resource.uri)} names a folder, pipe or device, not a file`);
  return real;
}

/**
 * The files to write for an asset's resources, each inside the output folder (resourcePath), and none where a
 * symbolic link would take the write out of it; checked all before anything is written.
 * @param folder     the output folder (it must exist)
 * @param resources  the resources by URI as the written asset names them
 * @param file       the written asset, for the messages
 * @returns one AtomicFile per resource, in the order given; their subfolders may not exist yet
 * @throws FormatError naming the file and the URI that would leave the folder, or saying the folder is missing (or a
 *         file)
 */
export function resourceTargets(folder: string, resources: Record<string, Uint8Array>, file: string): AtomicFile[] {
  const realFolder = realPathOrNull(folder);
  if (realFolder === null) throw new FormatError(file, '', 'cannot write the file: its folder does not exist');
  if (!statSync(realFolder).isDirectory())
    throw new FormatError(file, '', 'cannot write the file: a part of the path is a file, not a folder');
  return Object.entries(resources).map(([uri, contents]) => {
    const target = path.join(folder, ...resourcePath(uri, file).split('/'));
    const top = path.resolve(folder);
    let existing = path.resolve(target);
    let real = realPathOrNull(existing);
    while (real === null && existing !== top) {
      existing = path.dirname(existing);
      real = realPathOrNull(existing);
    }
    if (real === null || !isInsideFolder(real, realFolder))
      throw new FormatError(file, '', `resource URI ${quoted(uri)} leads out of the output folder through a symbolic link`);
    return { path: target, contents };
  });
}
