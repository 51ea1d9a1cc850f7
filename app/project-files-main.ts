/**
 * The main process's project files apart from Electron: the recent list (paths kept in the app's data folder,
 * userData/recent-projects.json), the tokens that stand for those paths in the page (the page never sees a path),
 * and Open, Save and Save As with the file read whole (size checked first) or written atomically. The dialogs are
 * passed in, so the same code runs in a plain Node test.
 */
import { readFile, stat } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { writeFileAtomic } from './atomic-write.ts';
import { MAX_FILE_BYTES, MAX_RECENT_PROJECTS, type OpenedFile, type ProjectFileRef } from './ipc-contract.ts';
import { IpcArgumentError, validateOpenProjectRequest, validateSaveProjectRequest } from './ipc-validate.ts';

/** Why a file could not be read, in words (Node's message names the path, not what happened to the file). */
function unreadableReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return 'it is no longer there (moved, renamed or deleted since it was last opened)';
  if (code === 'EACCES' || code === 'EPERM') return 'the app is not allowed to read it';
  return error instanceof Error ? error.message : String(error);
}

export class ProjectFilesMain {
  /** token → absolute path, for this run */
  private readonly paths = new Map<string, string>();
  private recentPaths: string[] | null = null;

  /** @param recentFile  where the recent list is kept (userData/recent-projects.json) */
  constructor(private readonly recentFile: string) {}

  /**
   * Open project: the recent file the token names, or the one a dialog chooses.
   * @param choosePath  the Open dialog; null when cancelled
   */
  async open(
    channel: string,
    argument: unknown,
    choosePath: () => Promise<string | null>,
  ): Promise<(OpenedFile & { token: string }) | null> {
    const token = validateOpenProjectRequest(channel, argument);
    const file = token === undefined ? await choosePath() : this.pathOf(channel, token);
    if (file === null) return null;
    const name = path.basename(file);
    const info = await stat(file).catch((error: unknown) => {
      throw new Error(`${name} could not be opened: ${unreadableReason(error)}`, { cause: error });
    });
    if (!info.isFile()) throw new Error(`${name} is not a file`);
    if (info.size > MAX_FILE_BYTES) throw new Error(`${name} is larger than ${MAX_FILE_BYTES} bytes`);
    const data = await readFile(file);
    const ref = await this.remember(file);
    return { name, bytes: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), token: ref.token };
  }

  /**
   * Save: to the file the token names without asking, else where the Save dialog says; written atomically (the old
   * file stays whole until the new one is complete).
   * @param choosePath  the Save dialog, offered the suggested name; null when cancelled
   */
  async save(
    channel: string,
    argument: unknown,
    choosePath: (suggestedName: string) => Promise<string | null>,
  ): Promise<ProjectFileRef | null> {
    const request = validateSaveProjectRequest(channel, argument);
    const file = request.token === undefined ? await choosePath(request.suggestedName) : this.pathOf(channel, request.token);
    if (file === null) return null;
    await writeFileAtomic(file, request.bytes);
    return this.remember(file);
  }

  /** The recent project files that still exist, newest first. */
  async recent(): Promise<ProjectFileRef[]> {
    const refs: ProjectFileRef[] = [];
    for (const file of await this.loadRecent()) {
      const exists = await stat(file).then(
        (info) => info.isFile(),
        () => false,
      );
      if (exists) refs.push({ name: path.basename(file), token: this.tokenOf(file) });
    }
    return refs;
  }

  /** The folder of the newest recent file (where a Save dialog starts), or null. */
  async lastFolder(): Promise<string | null> {
    const [newest] = await this.loadRecent();
    return newest ? path.dirname(newest) : null;
  }

  /**
   * The path a token stands for (a project file this app opened or saved in this run).
   * @throws IpcArgumentError naming the channel when the token names none
   */
  pathOf(channel: string, token: string): string {
    const file = this.paths.get(token);
    if (file === undefined) throw new IpcArgumentError(channel, 'token names no project file this app opened or saved');
    return file;
  }

  private tokenOf(file: string): string {
    for (const [token, known] of this.paths) if (known === file) return token;
    const token = randomUUID();
    this.paths.set(token, file);
    return token;
  }

  private async remember(file: string): Promise<ProjectFileRef> {
    const list = [file, ...(await this.loadRecent()).filter((f) => f !== file)].slice(0, MAX_RECENT_PROJECTS);
    this.recentPaths = list;
    try {
      await writeFileAtomic(this.recentFile, JSON.stringify(list, null, 1));
    } catch (error) {
      // The project is saved; only the list is not remembered.
      console.error('Rigwright: the recent files were not remembered:', error instanceof Error ? error.message : String(error));
    }
    return { name: path.basename(file), token: this.tokenOf(file) };
  }

  private async loadRecent(): Promise<string[]> {
    if (this.recentPaths) return this.recentPaths;
    try {
      const parsed: unknown = JSON.parse(await readFile(this.recentFile, 'utf8'));
      this.recentPaths = Array.isArray(parsed)
        ? parsed.filter((f): f is string => typeof f === 'string' && path.isAbsolute(f)).slice(0, MAX_RECENT_PROJECTS)
        : [];
    } catch {
      this.recentPaths = [];
    }
    return this.recentPaths;
  }
}
