/**
 * Crash recovery: at start, the work of a page that ended without saving or discarding it — a crash, a killed
 * process, a window closed without saving — is found in the autosave storage and offered: every kept version,
 * newest first, saying when each was saved and what it holds. A session counts as ended when its mark is there but
 * its page is not alive (autosave.ts, autosave-storage.ts). A version that cannot be read as a project (damaged bytes,
 * bytes gone) is marked damaged with the reason, and the newest readable one is offered instead; the artist may pick
 * any version that is not damaged. DOM-free; the shell shows the offer (panels/unsaved-work-panels.ts) and opens the
 * version.
 */
import type { AutosaveInfo } from '../../app/ipc-contract.ts';
import type { AutosaveStorage } from './autosave.ts';

export interface Recoverable {
  /** the kept versions of the ended sessions, newest first */
  versions: AutosaveInfo[];
  /** the ended sessions with versions: unmarked once the user has recovered or discarded */
  sessions: string[];
  /** version id → why it cannot be opened, for the versions found damaged so far */
  damaged: Map<string, string>;
}

const newestFirst = (a: AutosaveInfo, b: AutosaveInfo) => b.savedAt - a.savedAt || b.sequence - a.sequence;

/**
 * The versions left by sessions that ended with unsaved work, newest first, or null when there are none. Marks of
 * ended sessions that left no version (a crash before the first autosave) are cleared on the way: there is nothing to
 * offer.
 * @param current  this page's session (never offered)
 */
export async function findRecoverable(storage: AutosaveStorage, current: string): Promise<Recoverable | null> {
  const listing = await storage.list();
  const ended = new Set(listing.marked.filter((m) => !m.alive && m.session !== current).map((m) => m.session));
  const versions = listing.versions.filter((v) => ended.has(v.session)).sort(newestFirst);
  const withVersions = new Set(versions.map((v) => v.session));
  for (const session of ended) if (!withVersions.has(session)) await storage.unmark(session);
  if (versions.length === 0) return null;
  return { versions, sessions: [...withVersions], damaged: new Map() };
}

/**
 * The bytes of one offered version, checked: `check` throws when they are not a project it can open. A version whose
 * bytes cannot be read, are gone or fail the check is marked damaged in `found`, with the reason.
 * @returns the bytes, or null when the version is damaged
 */
export async function readVersion(
  storage: AutosaveStorage,
  found: Recoverable,
  version: AutosaveInfo,
  check: (bytes: Uint8Array, version: AutosaveInfo) => void | Promise<void>,
): Promise<Uint8Array | null> {
  if (found.damaged.has(version.id)) return null;
  try {
    const bytes = await storage.read(version.id);
    if (!bytes) throw new Error('its bytes are gone (another window may have removed them)');
    await check(bytes, version);
    return bytes;
  } catch (error) {
    found.damaged.set(version.id, error instanceof Error ? error.message : String(error));
    return null;
  }
}

/**
 * The newest offered version that can be read as a project, older than `after` when given (a version just found
 * damaged), and its bytes; those found damaged on the way are marked in `found`.
 * @returns null when no version from there on can be read
 */
export async function firstReadable(
  storage: AutosaveStorage,
  found: Recoverable,
  check: (bytes: Uint8Array, version: AutosaveInfo) => void | Promise<void>,
  after?: AutosaveInfo,
): Promise<{ version: AutosaveInfo; bytes: Uint8Array } | null> {
  const start = after ? found.versions.indexOf(after) + 1 : 0;
  for (const version of found.versions.slice(start)) {
    const bytes = await readVersion(storage, found, version, check);
    if (bytes) return { version, bytes };
  }
  return null;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

function plural(count: number, unit: string): string {
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}

/** How long ago, in words: 'just now', '3 minutes ago', '2 hours ago', '4 days ago'. */
export function timeAgo(then: number, now: number): string {
  const elapsed = Math.max(0, now - then);
  if (elapsed < MINUTE) return 'just now';
  if (elapsed < HOUR) return `${plural(Math.floor(elapsed / MINUTE), 'minute')} ago`;
  if (elapsed < DAY) return `${plural(Math.floor(elapsed / HOUR), 'hour')} ago`;
  return `${plural(Math.floor(elapsed / DAY), 'day')} ago`;
}

const twoDigits = (n: number) => String(n).padStart(2, '0');

/**
 * When a version was saved, in local time and relative to now: '14:03 (3 minutes ago)' today,
 * '2026-11-23 18:40 (13 hours ago)' on another day.
 */
export function savedAtText(savedAt: number, now: number): string {
  const at = new Date(savedAt);
  const today = new Date(now);
  const time = `${twoDigits(at.getHours())}:${twoDigits(at.getMinutes())}`;
  const sameDay = at.getFullYear() === today.getFullYear() && at.getMonth() === today.getMonth() && at.getDate() === today.getDate();
  const day = sameDay ? '' : `${at.getFullYear()}-${twoDigits(at.getMonth() + 1)}-${twoDigits(at.getDate())} `;
  return `${day}${time} (${timeAgo(savedAt, now)})`;
}

/** What a version holds: 'hand.rig.glb: 3,485 vertices, 20 bones, 7 edits'. */
export function contentsText(info: AutosaveInfo): string {
  const count = (n: number, unit: string) => `${n.toLocaleString('en-US')} ${unit}${n === 1 ? '' : 's'}`;
  return `${info.name}: ${count(info.vertexCount, 'vertex').replace('vertexs', 'vertices')}, ${count(info.boneCount, 'bone')}, ${count(info.editCount, 'edit')}`;
}
