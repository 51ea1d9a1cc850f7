/**
 * Autosaved versions on their way from a page to main. The desktop bridge sends a version's bytes in chunks of at
 * most AUTOSAVE_CHUNK_BYTES (autosaveChunk, one invoke each, in order), then its info (autosaveWrite), so the page's
 * thread never structured-clones more than one chunk at once. Main keeps the chunks of at most one version per
 * window until its info comes.
 *
 * The page is untrusted: every chunk is validated (validateAutosaveChunk), must come in order and keep the version
 * within MAX_FILE_BYTES; a refused chunk drops the window's pending version, and so does a new version's first
 * chunk. The info must name the pending version and agree with the bytes received, or nothing is written. Whatever
 * the outcome, the pending chunks are freed as the info is taken.
 */
import { MAX_FILE_BYTES, type AutosaveInfo } from './ipc-contract.ts';
import { IpcArgumentError, validateAutosaveChunk, validateAutosaveInfo } from './ipc-validate.ts';

interface PendingVersion {
  id: string;
  chunks: Uint8Array[];
  byteLength: number;
}

/**
 * The versions pending, one per owner (a window); an owner that goes away takes its pending version with it.
 */
export class AutosaveUploads<Owner extends object> {
  private readonly pending = new WeakMap<Owner, PendingVersion>();

  /**
   * Takes one chunk from `owner`'s page. Index 0 begins a version (dropping any pending one); each next chunk must
   * be of that version and have the next index.
   * @throws IpcArgumentError naming the channel and the fault; `owner`'s pending version is dropped
   */
  receive(channel: string, owner: Owner, value: unknown): void {
    try {
      const { id, index, bytes } = validateAutosaveChunk(channel, value);
      // A view of a larger buffer would keep the whole buffer alive: keep its bytes only.
      const kept = bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.byteLength ? bytes : bytes.slice();
      if (index === 0) {
        this.pending.set(owner, { id, chunks: [kept], byteLength: kept.byteLength });
        return;
      }
      const version = this.pending.get(owner);
      if (version === undefined) throw new IpcArgumentError(channel, `chunk ${index} of ${id}: no version is pending (chunk 0 begins one)`);
      if (version.id !== id) throw new IpcArgumentError(channel, `chunk ${index} of ${id}: the version pending is ${version.id}`);
      if (index !== version.chunks.length) {
        throw new IpcArgumentError(channel, `chunk ${index} of ${id} is out of order: chunk ${version.chunks.length} is next`);
      }
      if (version.byteLength + kept.byteLength > MAX_FILE_BYTES) {
        throw new IpcArgumentError(channel, `the chunks of ${id} hold more than ${MAX_FILE_BYTES} bytes`);
      }
      version.chunks.push(kept);
      version.byteLength += kept.byteLength;
    } catch (error) {
      this.pending.delete(owner);
      throw error;
    }
  }

  /**
   * The info of `owner`'s pending version (autosaveWrite's argument, validated here) and the version's bytes; the
   * pending chunks are freed whether or not they match.
   * @throws IpcArgumentError when the info is malformed, no version is pending, or the pending one is another or of
   *         another length
   */
  take(channel: string, owner: Owner, value: unknown): { info: AutosaveInfo; bytes: Uint8Array } {
    const version = this.pending.get(owner);
    this.pending.delete(owner);
    const info = validateAutosaveInfo(channel, value);
    if (version === undefined) throw new IpcArgumentError(channel, `no chunks of ${info.id} are pending`);
    if (version.id !== info.id) throw new IpcArgumentError(channel, `the chunks pending are of ${version.id}, not ${info.id}`);
    if (version.byteLength !== info.byteLength) {
      throw new IpcArgumentError(
        channel,
        `the chunks of ${info.id} hold ${version.byteLength} bytes, info.byteLength says ${info.byteLength}`,
      );
    }
    if (version.chunks.length === 1) return { info, bytes: version.chunks[0] };
    const bytes = new Uint8Array(version.byteLength);
    let at = 0;
    for (const chunk of version.chunks) {
      bytes.set(chunk, at);
      at += chunk.byteLength;
    }
    return { info, bytes };
  }

  /** Drops `owner`'s pending version, if any (its page has gone). */
  drop(owner: Owner): void {
    this.pending.delete(owner);
  }
}
