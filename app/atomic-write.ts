/**
 * Atomic file writes for the Node side (Electron main and the `rigwright` CLI): a kill, a crash or a full disk at
 * any moment leaves each target either its complete old contents or its complete new contents, never a mix.
 *
 * How: each file is written to a temporary file in the target's own folder (so the rename stays on one file
 * system), opened with O_EXCL under a unique name, written fully and fsync'd; only then is it renamed over its
 * target (rename(2) replaces a file atomically on POSIX and NTFS), and the folder is fsync'd so the rename itself
 * survives a power loss. For a set of files (a .gltf and its .bin, import's several outputs) every temporary file
 * is written and flushed before the first rename, so a failure while writing — disk full, quota, permission, a
 * kill — leaves every old file whole. On any failure the temporary files are removed and the error is thrown as an
 * AtomicWriteError naming the target it happened on.
 *
 * What rename cannot give: a set is replaced file by file, so a kill in the few microseconds between two renames
 * can leave some targets new and some old (each still complete). A target that is a symbolic link is written
 * through the link (the file it points to is replaced, the link stays); an existing target keeps its mode.
 *
 * With `createFolders`, the targets' missing folders are made first, one level at a time, and removed again when the
 * write fails (makeFoldersSync says why a folder cannot be made, in words).
 *
 * The file-system calls are injectable (AtomicWriteOptions.fs) so tests can make a write fail with ENOSPC halfway.
 */
import * as fs from 'node:fs';
import * as fsPromises from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';

/** One file of a set: its target path and its whole new contents (a string is written as UTF-8). */
export interface AtomicFile {
  path: string;
  contents: string | Uint8Array;
}

/** The node:fs calls the synchronous writer makes; node:fs itself fits. */
export type AtomicSyncFs = Pick<
  typeof fs,
  | 'openSync'
  | 'writeSync'
  | 'fsyncSync'
  | 'closeSync'
  | 'renameSync'
  | 'unlinkSync'
  | 'statSync'
  | 'fchmodSync'
  | 'realpathSync'
  | 'mkdirSync'
  | 'rmdirSync'
>;

/** The node:fs/promises calls the asynchronous writer makes; node:fs/promises itself fits. */
export type AtomicAsyncFs = Pick<typeof fsPromises, 'open' | 'rename' | 'unlink' | 'stat' | 'realpath' | 'mkdir' | 'rmdir'>;

export interface AtomicWriteOptions<F> {
  /** the file-system calls to make (tests inject failures); default node:fs or node:fs/promises */
  fs?: F;
  /**
   * create the targets' missing folders first (a .gltf's `textures/`), one level at a time; the folders made are
   * removed again when the write fails. Default false: a missing folder fails the write.
   */
  createFolders?: boolean;
}

/** A write that failed; the targets are untouched (see the module comment for the rename window of a set). */
export class AtomicWriteError extends Error {
  override readonly name = 'AtomicWriteError';
  /**
   * @param file    the target whose write failed
   * @param code    the system error code (ENOSPC, EACCES, …) when there is one
   * @param reason  what went wrong, in words
   */
  constructor(
    readonly file: string,
    readonly code: string | undefined,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`cannot write ${file}: ${reason}`, options);
  }
}

/** A node:fs error in words, without the errno jargon for the common cases. */
export function describeFileSystemError(error: unknown): string {
  const code = errorCode(error);
  switch (code) {
    case 'ENOENT':
      return 'no such file or folder';
    case 'EISDIR':
      return 'it is a folder';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ENOSPC':
      return 'the disk is full';
    case 'EDQUOT':
      return 'the disk quota is exhausted';
    case 'EFBIG':
      return 'the file is larger than this system allows (file size limit)';
    case 'EROFS':
      return 'the file system is read-only';
    case 'ENOTDIR':
      return 'a part of the path is a file, not a folder';
    case 'EEXIST':
      return 'a file of that name is already there';
    default:
      return error instanceof Error ? error.message : String(error);
  }
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function failure(file: string, error: unknown): AtomicWriteError {
  if (error instanceof AtomicWriteError) return error;
  return new AtomicWriteError(file, errorCode(error), describeFileSystemError(error), { cause: error });
}

function bytesOf(contents: string | Uint8Array): Uint8Array {
  return typeof contents === 'string' ? Buffer.from(contents, 'utf8') : contents;
}

/** A fresh name in the target's folder, hidden, that no other writer picks: `.NAME.PID-RANDOM.tmp`. */
function temporaryPath(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`);
}

/** The same path twice in one set would make the last write win silently: refuse it. */
function checkDistinct(files: readonly AtomicFile[]): void {
  const seen = new Set<string>();
  for (const file of files) {
    const key = path.resolve(file.path);
    if (seen.has(key)) throw new AtomicWriteError(file.path, undefined, 'the same file is twice in one write');
    seen.add(key);
  }
}

/** Folders whose entries changed: fsync'd so the renames are durable. Some systems cannot (Windows): ignored. */
const UNSYNCABLE_FOLDER = new Set(['EISDIR', 'EINVAL', 'EPERM', 'EACCES', 'ENOTSUP', 'EBADF']);

/** The failure for `at`, on the way to folder `top`, being a file: where the folder itself should be, or above it. */
function notAFolder(top: string, at: string): AtomicWriteError {
  return folderFailure(top, at, Object.assign(new Error('not a folder'), { code: at === top ? 'EEXIST' : 'ENOTDIR' }));
}

/**
 * Makes a folder and its missing parents, one level at a time below the nearest one that exists. (A recursive mkdir
 * is not used: where the system refuses a folder, as in /proc, it retries for ever.)
 * @returns the folders made, outermost first; none when the folder is there
 * @throws AtomicWriteError naming the folder asked for, with the reason in words: a file in the way, a folder the
 *         system does not allow, no permission, …
 */
export function makeFoldersSync(folder: string, io: Pick<AtomicSyncFs, 'statSync' | 'mkdirSync' | 'rmdirSync'> = fs): string[] {
  const top = path.resolve(folder);
  const missing: string[] = [];
  for (let at = top; ; at = path.dirname(at)) {
    let info: fs.Stats | undefined;
    try {
      info = io.statSync(at, { throwIfNoEntry: false });
    } catch (error) {
      if (errorCode(error) !== 'ENOTDIR') throw folderFailure(top, at, error);
    }
    if (info?.isDirectory()) break;
    if (info) throw notAFolder(top, at);
    missing.unshift(at);
    if (path.dirname(at) === at) break;
  }
  const made: string[] = [];
  for (const at of missing) {
    try {
      io.mkdirSync(at);
    } catch (error) {
      removeFoldersQuietlySync(io, made);
      throw folderFailure(top, at, error);
    }
    made.push(at);
  }
  return made;
}

/** Asynchronous makeFoldersSync (Electron main). */
export async function makeFolders(folder: string, io: Pick<AtomicAsyncFs, 'stat' | 'mkdir' | 'rmdir'> = fsPromises): Promise<string[]> {
  const top = path.resolve(folder);
  const missing: string[] = [];
  for (let at = top; ; at = path.dirname(at)) {
    const info = await io.stat(at).catch((error: unknown) => {
      const code = errorCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      throw folderFailure(top, at, error);
    });
    if (info?.isDirectory()) break;
    if (info) throw notAFolder(top, at);
    missing.unshift(at);
    if (path.dirname(at) === at) break;
  }
  const made: string[] = [];
  for (const at of missing) {
    try {
      await io.mkdir(at);
    } catch (error) {
      for (const folder of made.reverse()) await io.rmdir(folder).catch(() => undefined);
      throw folderFailure(top, at, error);
    }
    made.push(at);
  }
  return made;
}

/**
 * Why folder `at` (on the way to `top`) could not be made. mkdir says ENOENT where the system allows no folder
 * although the parent exists (/proc): said as that.
 */
function folderFailure(top: string, at: string, error: unknown): AtomicWriteError {
  const code = errorCode(error);
  const reason =
    code === 'ENOENT'
      ? 'the system does not allow a folder there'
      : code === 'ENOTDIR' && at !== top
        ? `${at} is a file, not a folder`
        : describeFileSystemError(error);
  return new AtomicWriteError(top, code, reason, { cause: error });
}

function removeFoldersQuietlySync(io: Pick<AtomicSyncFs, 'rmdirSync'>, made: readonly string[]): void {
  for (const folder of [...made].reverse()) {
    try {
      io.rmdirSync(folder);
    } catch {
      // something else was put there meanwhile: it stays
    }
  }
}

/** Writes one file atomically; see writeFilesAtomicSync. */
export function writeFileAtomicSync(file: string, contents: string | Uint8Array, options: AtomicWriteOptions<AtomicSyncFs> = {}): void {
  writeFilesAtomicSync([{ path: file, contents }], options);
}

/**
 * Writes a set of files atomically, synchronously (the CLI): every temporary file written and fsync'd, then each
 * renamed over its target, then the folders fsync'd.
 * @throws AtomicWriteError naming the target that failed; no target has changed when the failure is in writing
 */
export function writeFilesAtomicSync(files: readonly AtomicFile[], options: AtomicWriteOptions<AtomicSyncFs> = {}): void {
  const io = options.fs ?? fs;
  checkDistinct(files);
  const staged: { target: string; temporary: string }[] = [];
  const made: string[] = [];
  let current = files[0]?.path ?? '';
  try {
    if (options.createFolders) for (const file of files) made.push(...makeFoldersSync(path.dirname(file.path), io));
    for (const file of files) {
      current = file.path;
      const target = resolveTargetSync(io, file.path);
      const mode = existingModeSync(io, target);
      const temporary = temporaryPath(target);
      const descriptor = io.openSync(temporary, 'wx', 0o666);
      staged.push({ target, temporary });
      try {
        if (mode !== undefined) io.fchmodSync(descriptor, mode);
        const bytes = bytesOf(file.contents);
        for (let offset = 0; offset < bytes.byteLength;) {
          offset += io.writeSync(descriptor, bytes, offset, bytes.byteLength - offset);
        }
        io.fsyncSync(descriptor);
      } finally {
        io.closeSync(descriptor);
      }
    }
  } catch (error) {
    for (const { temporary } of staged) removeQuietlySync(io, temporary);
    removeFoldersQuietlySync(io, made);
    throw failure(current, error);
  }
  let renamed = 0;
  try {
    for (const { target, temporary } of staged) {
      current = target;
      io.renameSync(temporary, target);
      renamed++;
    }
  } catch (error) {
    for (const { temporary } of staged.slice(renamed)) removeQuietlySync(io, temporary);
    throw failure(current, error);
  }
  for (const folder of new Set(staged.map((s) => path.dirname(s.target)))) syncFolderSync(io, folder);
}

function resolveTargetSync(io: AtomicSyncFs, file: string): string {
  try {
    return io.realpathSync(file);
  } catch {
    return file; // a new file: written where asked
  }
}

/**
 * The mode of the file the target replaces, undefined when there is none. A folder in its place is refused now,
 * before anything is written, rather than when its rename fails after others of the set were renamed.
 */
function existingModeSync(io: AtomicSyncFs, target: string): number | undefined {
  const info = io.statSync(target, { throwIfNoEntry: false });
  if (info === undefined) return undefined;
  if (info.isDirectory()) throw isAFolder(target);
  return info.mode & 0o7777;
}

function isAFolder(target: string): Error {
  return Object.assign(new Error(`EISDIR: illegal operation on a directory, rename '${target}'`), { code: 'EISDIR' });
}

function removeQuietlySync(io: AtomicSyncFs, temporary: string): void {
  try {
    io.unlinkSync(temporary);
  } catch {
    // already gone, or the folder vanished: nothing left to clean
  }
}

function syncFolderSync(io: AtomicSyncFs, folder: string): void {
  let descriptor: number | undefined;
  try {
    descriptor = io.openSync(folder, 'r');
    io.fsyncSync(descriptor);
  } catch (error) {
    if (!UNSYNCABLE_FOLDER.has(errorCode(error) ?? '')) throw failure(folder, error);
  } finally {
    if (descriptor !== undefined) io.closeSync(descriptor);
  }
}

/** Writes one file atomically; see writeFilesAtomic. */
export async function writeFileAtomic(
  file: string,
  contents: string | Uint8Array,
  options: AtomicWriteOptions<AtomicAsyncFs> = {},
): Promise<void> {
  await writeFilesAtomic([{ path: file, contents }], options);
}

/**
 * Writes a set of files atomically without blocking the event loop (Electron main): the same steps and guarantees
 * as writeFilesAtomicSync.
 * @throws AtomicWriteError naming the target that failed; no target has changed when the failure is in writing
 */
export async function writeFilesAtomic(files: readonly AtomicFile[], options: AtomicWriteOptions<AtomicAsyncFs> = {}): Promise<void> {
  const io = options.fs ?? fsPromises;
  checkDistinct(files);
  const staged: { target: string; temporary: string }[] = [];
  const made: string[] = [];
  let current = files[0]?.path ?? '';
  try {
    if (options.createFolders) for (const file of files) made.push(...(await makeFolders(path.dirname(file.path), io)));
    for (const file of files) {
      current = file.path;
      const target = await io.realpath(file.path).catch(() => file.path);
      const existing = await io.stat(target).catch(() => undefined);
      if (existing?.isDirectory()) throw isAFolder(target);
      const mode = existing === undefined ? undefined : existing.mode & 0o7777;
      const temporary = temporaryPath(target);
      const handle = await io.open(temporary, 'wx', 0o666);
      staged.push({ target, temporary });
      try {
        if (mode !== undefined) await handle.chmod(mode);
        const bytes = bytesOf(file.contents);
        for (let offset = 0; offset < bytes.byteLength;) {
          offset += (await handle.write(bytes, offset, bytes.byteLength - offset)).bytesWritten;
        }
        await handle.sync();
      } finally {
        await handle.close();
      }
    }
  } catch (error) {
    for (const { temporary } of staged) await io.unlink(temporary).catch(() => undefined);
    for (const folder of made.reverse()) await io.rmdir(folder).catch(() => undefined);
    throw failure(current, error);
  }
  let renamed = 0;
  try {
    for (const { target, temporary } of staged) {
      current = target;
      await io.rename(temporary, target);
      renamed++;
    }
  } catch (error) {
    for (const { temporary } of staged.slice(renamed)) await io.unlink(temporary).catch(() => undefined);
    throw failure(current, error);
  }
  for (const folder of new Set(staged.map((s) => path.dirname(s.target)))) {
    let handle: fsPromises.FileHandle | undefined;
    try {
      handle = await io.open(folder, 'r');
      await handle.sync();
    } catch (error) {
      if (!UNSYNCABLE_FOLDER.has(errorCode(error) ?? '')) throw failure(folder, error);
    } finally {
      await handle?.close();
    }
  }
}
