/**
 * The desktop app's autosave storage: a folder in its data folder (userData/autosave). Each version is two files,
 * `<id>.rig.glb` (the project file, which the app can also open by hand) and `<id>.json` (what it holds, for the
 * recovery prompt); a session with unsaved work stored has a mark, `session-<session>.json`. The three are written
 * as one atomic set (app/atomic-write.ts), the mark last, so a kill at any moment leaves a version whole or absent.
 *
 * A marked session is alive while its page runs: pages of this process say so (begin), and a mark written by
 * another process still running (a second instance) is alive too. Anything else marked is work of a page that
 * ended without saving or discarding it: recovery offers it.
 *
 * Files in the folder are read as untrusted: an info that does not validate, or a version whose bytes are
 * missing, is skipped.
 */
import { mkdir, readFile, readdir, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { writeFilesAtomic } from './atomic-write.ts';
import { MAX_FILE_BYTES, type AutosaveBridge, type AutosaveInfo, type AutosaveListing } from './ipc-contract.ts';
import { validateAutosaveId, validateAutosaveInfo } from './ipc-validate.ts';

const VERSION_SUFFIX = '.rig.glb';
const INFO_SUFFIX = '.json';
const MARK_PREFIX = 'session-';
const PLACE = 'autosave folder';

interface SessionMark {
  session: string;
  pid: number;
  markedAt: number;
}

/** True when a process with this id runs (EPERM: it runs as another user). */
export function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}

export class AutosaveFolder implements AutosaveBridge {
  private readonly begun = new Set<string>();

  /**
   * @param folder      created on the first write
   * @param processRunning  whether a process id runs now (tests replace it)
   */
  constructor(
    readonly folder: string,
    private readonly processRunning: (pid: number) => boolean = processRuns,
    private readonly now: () => number = () => Date.now(),
  ) {}

  async begin(session: string): Promise<void> {
    this.begun.add(validateAutosaveId(PLACE, session, 'session'));
  }

  /** The page of this session has gone (its process crashed): its marked work is now for recovery. */
  end(session: string): void {
    this.begun.delete(session);
  }

  async write(info: AutosaveInfo, bytes: Uint8Array): Promise<void> {
    const valid = validateAutosaveInfo(PLACE, info);
    await mkdir(this.folder, { recursive: true });
    const mark: SessionMark = { session: valid.session, pid: process.pid, markedAt: this.now() };
    await writeFilesAtomic([
      { path: this.file(valid.id + VERSION_SUFFIX), contents: bytes },
      { path: this.file(valid.id + INFO_SUFFIX), contents: JSON.stringify(valid) },
      { path: this.markFile(valid.session), contents: JSON.stringify(mark) },
    ]);
  }

  async list(): Promise<AutosaveListing> {
    const names = await this.names();
    const present = new Set(names);
    const versions: AutosaveInfo[] = [];
    const marked: AutosaveListing['marked'] = [];
    for (const name of names) {
      if (name.startsWith(MARK_PREFIX) && name.endsWith(INFO_SUFFIX)) {
        const mark = await this.readMark(name);
        if (mark) marked.push({ session: mark.session, alive: this.alive(mark) });
      } else if (name.endsWith(INFO_SUFFIX)) {
        const info = await this.readInfo(name);
        if (info && present.has(info.id + VERSION_SUFFIX)) versions.push(info);
      }
    }
    return { versions, marked };
  }

  async read(id: string): Promise<Uint8Array | null> {
    const file = this.file(validateAutosaveId(PLACE, id) + VERSION_SUFFIX);
    try {
      const info = await stat(file);
      if (!info.isFile() || info.size > MAX_FILE_BYTES) return null;
      const data = await readFile(file);
      return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    } catch (error) {
      if ((error as { code?: string }).code === 'ENOENT') return null;
      throw error;
    }
  }

  async remove(ids: string[]): Promise<void> {
    for (const id of ids) {
      validateAutosaveId(PLACE, id);
      // The info first: a version without it is not listed, whatever happens next.
      await this.unlinkQuietly(this.file(id + INFO_SUFFIX));
      await this.unlinkQuietly(this.file(id + VERSION_SUFFIX));
    }
  }

  async unmark(session: string): Promise<void> {
    await this.unlinkQuietly(this.markFile(validateAutosaveId(PLACE, session, 'session')));
  }

  private alive(mark: SessionMark): boolean {
    if (this.begun.has(mark.session)) return true;
    // A mark of this process that no page here began is of a page that has gone (reloaded or crashed).
    return mark.pid !== process.pid && this.processRunning(mark.pid);
  }

  private file(name: string): string {
    return path.join(this.folder, name);
  }

  private markFile(session: string): string {
    return this.file(`${MARK_PREFIX}${session}${INFO_SUFFIX}`);
  }

  private async names(): Promise<string[]> {
    try {
      return await readdir(this.folder);
    } catch (error) {
      if ((error as { code?: string }).code === 'ENOENT') return [];
      throw error;
    }
  }

  private async readJson(name: string): Promise<unknown> {
    try {
      return JSON.parse(await readFile(this.file(name), 'utf8'));
    } catch {
      return undefined;
    }
  }

  private async readInfo(name: string): Promise<AutosaveInfo | null> {
    try {
      const info = validateAutosaveInfo(PLACE, await this.readJson(name));
      return name === info.id + INFO_SUFFIX ? info : null;
    } catch {
      return null;
    }
  }

  private async readMark(name: string): Promise<SessionMark | null> {
    const value = (await this.readJson(name)) as Partial<SessionMark> | undefined;
    if (!value || typeof value !== 'object') return null;
    try {
      const session = validateAutosaveId(PLACE, value.session, 'session');
      if (name !== `${MARK_PREFIX}${session}${INFO_SUFFIX}` || !Number.isSafeInteger(value.pid)) return null;
      return { session, pid: value.pid!, markedAt: Number(value.markedAt) };
    } catch {
      return null;
    }
  }

  private async unlinkQuietly(file: string): Promise<void> {
    await unlink(file).catch((error: { code?: string }) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }
}
