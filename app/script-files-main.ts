/**
 * The main process's side of a script's files in the desktop app (`rig.files` by path), apart from Electron: a path
 * inside the working folder — the folder of the project the scene is saved as, else the folder the scene's files were
 * opened from — is read or written at once; a path outside it only when the page says the user allowed it for the
 * run (the page asks in its notice on the answer `{ outside: true }`). Symbolic links are followed before deciding,
 * so a link inside the folder that leads out of it counts as outside. Reads are whole files (size checked first),
 * writes atomic (a .gltf with its resources as one set), checked as the Save channels check theirs.
 */
import { readFile, stat } from 'node:fs/promises';
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { isInsideFolder, resourceFile } from './asset-resources.ts';
import { gltfResources } from '../workers/formats/gltf-resource-uris.ts';
import { MAX_FILE_BYTES, OPENABLE_EXTENSIONS, type OpenedFile, type ScriptReadAnswer, type ScriptWriteAnswer } from './ipc-contract.ts';
import { IpcArgumentError, extensionOf, validateScriptFileRequest, type ValidScriptFileRequest } from './ipc-validate.ts';
import { saveRequestedAsset, saveRequestedFile } from './save-file.ts';

/** What the script files need of main. */
export interface ScriptFilesMainDeps {
  /** the path of a project token (ProjectFilesMain.pathOf); throws for a token this app never gave */
  projectPath(channel: string, token: string): string;
  /** where a relative path starts when there is no working folder (the Documents folder) */
  defaultFolder(): string;
}

export class ScriptFilesMain {
  /** each window's folder of the scene's files: where its last File → Open of the rig formats came from */
  private readonly sceneFolders = new WeakMap<object, string>();

  constructor(private readonly deps: ScriptFilesMainDeps) {}

  /**
   * The window opened the scene's files (File → Open or Import of the rig formats): their folder is its working
   * folder while it has no project.
   * @param files  the absolute paths opened; none: nothing changes
   */
  sceneFilesOpened(owner: object, files: readonly string[]): void {
    if (files.length > 0) this.sceneFolders.set(owner, path.dirname(path.resolve(files[0])));
  }

  /**
   * `scriptReadFile`: the file at the path, read whole (a .gltf with the buffers and images it names, from its folder,
   * no link leading out of it), or `{ outside: true }` (nothing read).
   * @param owner  the window that asked (its scene's folder), or null
   * @throws IpcArgumentError for a bad request or an extension the app does not read; Error naming the file (base
   *         name) when it is missing, not a file or too large
   */
  async read(channel: string, owner: object | null, argument: unknown): Promise<ScriptReadAnswer> {
    const request = validateScriptFileRequest(channel, argument, false);
    const name = path.basename(request.path);
    if (!(OPENABLE_EXTENSIONS as readonly string[]).includes(extensionOf(name)))
      throw new IpcArgumentError(channel, `${name}: a script opens files ending in .${OPENABLE_EXTENSIONS.join(', .')}`);
    const { target, inside } = this.place(channel, owner, request);
    if (!inside && !request.outside) return { outside: true };
    const file = await readWhole(target, name);
    const files = [file];
    if (extensionOf(name) === 'gltf')
      for (const resource of gltfResources(file.bytes, name)) {
        const resourceName = path.basename(resource.path);
        if (!files.some((f) => f.name === resourceName))
          files.push(await readWhole(resourceFile(path.dirname(target), resource, name), resourceName));
      }
    return { files };
  }

  /**
   * `scriptWriteFile`: writes the bytes (and a .gltf's resources beside it) atomically at the path, or answers
   * `{ outside: true }` and writes nothing.
   * @throws IpcArgumentError for a bad request (the name and bytes checked as saveFile's, resources as saveAsset's);
   *         AtomicWriteError when the file cannot be written (an old file there stays whole)
   */
  async write(channel: string, owner: object | null, argument: unknown): Promise<ScriptWriteAnswer> {
    const request = validateScriptFileRequest(channel, argument, true);
    const name = path.basename(request.path);
    const { target, inside } = this.place(channel, owner, request);
    const asset = { suggestedName: name, ...request.rest };
    const checked = (error: unknown): never => {
      // The checks of the Save channels name their channel; the page asked on this one.
      if (error instanceof IpcArgumentError) throw new IpcArgumentError(channel, error.reason);
      throw error;
    };
    if (!inside && !request.outside) {
      // Nothing is written, but a request the write would refuse is refused now rather than after the question.
      await (request.rest.resources === undefined ? saveRequestedFile : saveRequestedAsset)(asset, async () => null).catch(checked);
      return { outside: true };
    }
    const written =
      request.rest.resources === undefined
        ? await saveRequestedFile(asset, async () => target).catch(checked)
        : await saveRequestedAsset(asset, async () => target).catch(checked);
    if (!written) throw new Error(`${name} was not written`);
    return { written: name };
  }

  /** The absolute path a request names, and whether it is inside the working folder once links are followed. */
  private place(channel: string, owner: object | null, request: ValidScriptFileRequest): { target: string; inside: boolean } {
    const folder =
      request.project !== undefined
        ? path.dirname(this.deps.projectPath(channel, request.project))
        : ((owner && this.sceneFolders.get(owner)) ?? null);
    const target = path.resolve(folder ?? this.deps.defaultFolder(), request.path);
    if (path.basename(target) === '' || target === path.parse(target).root) throw new IpcArgumentError(channel, 'path must name a file');
    return { target, inside: folder !== null && isInsideFolder(realTarget(target), realPath(folder)) };
  }
}

/** A file read whole, its size checked first. @throws Error naming it (base name) when it is missing, not a file or too large */
async function readWhole(file: string, name: string): Promise<OpenedFile> {
  const info = await stat(file).catch((error: unknown) => {
    throw new Error(`${name} could not be opened: ${missingReason(error)}`, { cause: error });
  });
  if (!info.isFile()) throw new Error(`${name} is not a file`);
  if (info.size > MAX_FILE_BYTES) throw new Error(`${name} is larger than ${MAX_FILE_BYTES} bytes`);
  const data = await readFile(file);
  return { name, bytes: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
}

/** The target with the links of its nearest existing folder (or itself, when it exists) followed. */
function realTarget(target: string): string {
  if (existsSync(target)) return realPath(target);
  let existing = path.dirname(target);
  while (!existsSync(existing) && path.dirname(existing) !== existing) existing = path.dirname(existing);
  return path.join(realPath(existing), path.relative(existing, target));
}

/** The path with its symbolic links followed, or as it is when it cannot be resolved. */
function realPath(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

/** Why a file could not be read, in words. */
function missingReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return 'there is no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'the app is not allowed to read it';
  return error instanceof Error ? error.message : String(error);
}
