/**
 * Errors as the page receives them. The page is untrusted and must never learn where the user's files are, yet main's
 * IPC handlers fail with Node's and our own messages, which quote full paths (`AtomicWriteError: cannot write
 * /home/…/scene.rig.glb: the disk is full`, `ENOENT: no such file or directory, stat '/home/…'`). Every error a
 * handler throws crosses as pageError makes it: one line in our words with base names only —
 *
 *   a failed write       `cannot save scene.rig.glb: the disk is full`
 *   a file-system error  `cannot read scene.rig.glb: no such file or folder` (the verb from the call that failed)
 *   anything else        its message, each absolute path in it cut to its base name
 *
 * A refused request (IpcArgumentError: the channel and what is wrong with what the page sent) crosses as it is.
 *
 * Main's own log keeps the original error (the `cause`), which never crosses: Electron sends only the text.
 */
import path from 'node:path';
import { AtomicWriteError, describeFileSystemError } from './atomic-write.ts';
import { IpcArgumentError } from './ipc-validate.ts';

/** What the failed system call was doing, in the words of the message (Node's `syscall` of a file-system error). */
const VERB_OF_CALL: Record<string, string> = {
  mkdir: 'create',
  unlink: 'remove',
  rmdir: 'remove',
  rm: 'remove',
  rename: 'save',
  write: 'save',
  copyfile: 'save',
  fsync: 'save',
  chmod: 'save',
  fchmod: 'save',
};

/**
 * An absolute path as a message quotes it: inside quotes (spaces allowed), or bare up to a space, quote, comma,
 * semicolon or colon. POSIX `/…`, Windows `C:\…` or `C:/…`, UNC `\\server\…`; a relative path (`../x`) is not one.
 */
const QUOTED_PATH = /(['"`])((?:[A-Za-z]:)?[\\/][^'"`\r\n]*)\1/g;
const BARE_PATH = /(?<![\w.~-])(?:[A-Za-z]:)?[\\/](?=[^\s'"`,;:])[^\s'"`,;:]*/g;

/** The last part of a POSIX or Windows path (both separators count, whatever system main runs on). */
export function baseName(file: string): string {
  return path.win32.basename(file);
}

/** The paths a Node error names (`path`, `dest`), its cause's too: cut from its message exactly, spaces and all. */
function pathsOf(error: unknown): string[] {
  const paths: string[] = [];
  for (let e = error, depth = 0; typeof e === 'object' && e !== null && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const { path: file, dest } = e as { path?: unknown; dest?: unknown };
    if (typeof file === 'string' && file !== '') paths.push(file);
    if (typeof dest === 'string' && dest !== '') paths.push(dest);
  }
  return paths.sort((a, b) => b.length - a.length);
}

/**
 * `text` with every absolute path cut to its base name and on one line.
 * @param known  paths the error is known to name, replaced first (they may hold spaces a bare path cannot)
 */
export function withoutFolders(text: string, known: readonly string[] = []): string {
  let out = text;
  for (const file of known) if (path.isAbsolute(file) || path.win32.isAbsolute(file)) out = out.split(file).join(baseName(file));
  out = out.replace(QUOTED_PATH, (_match, quote: string, file: string) => `${quote}${baseName(file)}${quote}`);
  out = out.replace(BARE_PATH, (file) => baseName(file));
  return out.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}

/** The message the page gets for an error a handler threw; see the module comment. */
export function pageErrorMessage(error: unknown): string {
  const known = pathsOf(error);
  if (error instanceof AtomicWriteError) return `cannot save ${baseName(error.file)}: ${withoutFolders(error.reason, known)}`;
  const { code, path: file, syscall } = (typeof error === 'object' && error !== null ? error : {}) as Record<string, unknown>;
  if (typeof code === 'string' && typeof file === 'string' && file !== '') {
    const verb = (typeof syscall === 'string' && VERB_OF_CALL[syscall]) || 'read';
    return `cannot ${verb} ${baseName(file)}: ${withoutFolders(describeFileSystemError(error), known)}`;
  }
  return withoutFolders(error instanceof Error ? error.message : String(error), known);
}

/** The error to throw to the page instead of `error`: pageErrorMessage's text, the original kept as its cause for main's log. */
export function pageError(error: unknown): Error {
  // A refused request names the channel and what the page itself sent: it crosses as it is.
  if (error instanceof IpcArgumentError) return error;
  return new Error(pageErrorMessage(error), { cause: error });
}

/**
 * Runs an IPC handler so that whatever it throws, or its promise rejects with, reaches the page as pageError makes it.
 * A handler that throws at once still throws at once; a value or promise it returns is returned.
 */
export function answerPage<T>(run: () => T): T {
  let result: T;
  try {
    result = run();
  } catch (error) {
    throw pageError(error);
  }
  if (result instanceof Promise)
    return result.catch((error: unknown) => {
      throw pageError(error);
    }) as T;
  return result;
}
