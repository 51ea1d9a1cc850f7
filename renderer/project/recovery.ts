/**
 * Crash recovery: at start, the work of a page that ended without saving or discarding it — a crash, a killed
 * process, a window closed without saving — is found in the autosave storage and offered: when it was saved and
 * what it holds. A session counts as ended when its mark is there but its page is not alive (autosave.ts,
 * autosave-storage.ts). DOM-free; the shell shows the offer (panels/recovery-prompt.ts) and opens the version.
 */
import type { AutosaveInfo } from '../../app/ipc-contract.ts';
import type { AutosaveStorage } from './autosave.ts';

export interface Recoverable {
  /** the newest version of the ended sessions */
  version: AutosaveInfo;
  /** the ended sessions with versions: unmarked once the user has recovered or discarded */
  sessions: string[];
}

/**
 * The newest version left by a session that ended with unsaved work, or null. Marks of ended sessions that left no
 * version (a crash before the first autosave) are cleared on the way: there is nothing to offer.
 * @param current  this page's session (never offered)
 */
export async function findRecoverable(storage: AutosaveStorage, current: string): Promise<Recoverable | null> {
  const listing = await storage.list();
  const ended = new Set(listing.marked.filter((m) => !m.alive && m.session !== current).map((m) => m.session));
  const versions = listing.versions.filter((v) => ended.has(v.session)).sort((a, b) => b.savedAt - a.savedAt || b.sequence - a.sequence);
  const withVersions = new Set(versions.map((v) => v.session));
  for (const session of ended) if (!withVersions.has(session)) await storage.unmark(session);
  if (versions.length === 0) return null;
  return { version: versions[0], sessions: [...withVersions] };
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
