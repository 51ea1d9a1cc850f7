/**
 * Recovery and the close guard (renderer/project/recovery.ts, close-guard.ts): which autosaves are offered at start
 * (every version of the sessions that ended with their work marked, newest first; never this page's own, never a live
 * page's, never saved or discarded work; marks without versions cleared), which one is selected (the newest that can be
 * read as a project; the damaged ones marked with the reason, in order), how "when" and "what" read, and what the
 * Save / Discard / Cancel question does (asks nothing without unsaved changes, one dialog for concurrent asks,
 * Save's outcome decides, Discard clears the mark, beforeunload only with unsaved changes).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AutosaveInfo, AutosaveListing } from '../../app/ipc-contract.ts';
import type { AutosaveStorage } from '../../renderer/project/autosave.ts';
import { contentsText, findRecoverable, firstReadable, savedAtText, timeAgo } from '../../renderer/project/recovery.ts';
import { CloseGuard, type CloseChoice } from '../../renderer/project/close-guard.ts';

const info = (session: string, sequence: number, savedAt: number, extra: Partial<AutosaveInfo> = {}): AutosaveInfo => ({
  id: `${session}-${sequence}`,
  session,
  sequence,
  savedAt,
  name: 'untitled',
  vertexCount: 10,
  boneCount: 2,
  editCount: 1,
  byteLength: 1,
  ...extra,
});

/** A storage that only lists and records unmarks. */
function listingStorage(listing: AutosaveListing): AutosaveStorage & { unmarked: string[] } {
  const unmarked: string[] = [];
  return {
    unmarked,
    begin: async () => undefined,
    write: async () => undefined,
    list: async () => ({ versions: listing.versions, marked: listing.marked.filter((m) => !unmarked.includes(m.session)) }),
    read: async () => null,
    remove: async () => undefined,
    unmark: async (session) => void unmarked.push(session),
  };
}

test('recovery offers every version of the sessions that ended with unsaved work, newest first', async () => {
  const storage = listingStorage({
    versions: [
      info('crashed', 1, 100),
      info('crashed', 2, 300),
      info('killed', 7, 200),
      info('live-tab', 1, 900),
      info('me', 1, 950),
      info('saved', 4, 999),
    ],
    marked: [
      { session: 'crashed', alive: false },
      { session: 'killed', alive: false },
      { session: 'live-tab', alive: true },
      { session: 'me', alive: false },
      { session: 'no-versions', alive: false },
    ],
  });
  const found = await findRecoverable(storage, 'me');
  assert.deepEqual(
    found?.versions,
    [info('crashed', 2, 300), info('killed', 7, 200), info('crashed', 1, 100)],
    "the ended sessions' versions, newest first",
  );
  assert.deepEqual(found?.sessions.sort(), ['crashed', 'killed'], 'the sessions unmarked once answered');
  assert.deepEqual(storage.unmarked, ['no-versions'], 'a mark without versions is cleared: nothing to offer');
  // Nothing ended: nothing offered.
  assert.equal(await findRecoverable(listingStorage({ versions: [info('a', 1, 1)], marked: [{ session: 'a', alive: true }] }), 'me'), null);
  assert.equal(await findRecoverable(listingStorage({ versions: [info('a', 1, 1)], marked: [] }), 'me'), null, 'saved or discarded');
});

/** Bytes a check takes for a project: they start with 'P'. */
const PROJECT = Uint8Array.of(0x50, 1, 2, 3);
function projectCheck(bytes: Uint8Array, version: AutosaveInfo): void {
  if (bytes[0] !== 0x50) throw new Error(`${version.name}: not a project file (starts with byte ${bytes[0]})`);
}

test('recovery: a damaged newest version is marked with the reason and the next readable one is selected, in order', async () => {
  const versions = [
    info('ended', 1, 100),
    info('ended', 2, 200, { name: 'a.rig.glb' }),
    info('ended', 3, 300),
    info('ended', 4, 300),
    info('other', 1, 250),
    info('ended', 5, 400),
  ];
  const stored = new Map<string, Uint8Array>([
    ['ended-1', PROJECT],
    ['ended-2', Uint8Array.of(0, 0, 0)],
    ['ended-3', PROJECT],
    ['other-1', PROJECT],
    ['ended-5', Uint8Array.of(0x67, 0x6c)],
  ]);
  const reads: string[] = [];
  const storage: AutosaveStorage = {
    ...listingStorage({
      versions,
      marked: [
        { session: 'ended', alive: false },
        { session: 'other', alive: false },
      ],
    }),
    read: async (id) => {
      reads.push(id);
      if (id === 'ended-3') throw new Error('IndexedDB rigwright-autosave, bytes of ended-3: not a byte array but Array');
      return stored.get(id) ?? null;
    },
  };
  const found = (await findRecoverable(storage, 'me'))!;
  // 400 (5), then the two of 300 by sequence (4 before 3), 250 (other-1), 200 (2), 100 (1).
  assert.deepEqual(
    found.versions.map((v) => v.id),
    ['ended-5', 'ended-4', 'ended-3', 'other-1', 'ended-2', 'ended-1'],
    'newest first, the sequence deciding between equal times',
  );
  const first = await firstReadable(storage, found, projectCheck);
  assert.equal(first?.version.id, 'other-1', 'the newest readable version');
  assert.deepEqual(first?.bytes, PROJECT, 'its bytes');
  assert.deepEqual(reads, ['ended-5', 'ended-4', 'ended-3', 'other-1'], 'read newest first, stopping at the first readable');
  assert.deepEqual(
    [...found.damaged],
    [
      ['ended-5', 'untitled: not a project file (starts with byte 103)'],
      ['ended-4', 'its bytes are gone (another window may have removed them)'],
      ['ended-3', 'IndexedDB rigwright-autosave, bytes of ended-3: not a byte array but Array'],
    ],
    'the damaged ones, each with its reason',
  );

  // other-1 fails to open after all: the next readable after it, skipping the damaged ended-2, is ended-1.
  found.damaged.set('other-1', 'opened but refused');
  const next = await firstReadable(storage, found, projectCheck, first?.version);
  assert.equal(next?.version.id, 'ended-1', 'the next readable one');
  assert.equal(found.damaged.get('ended-2'), 'a.rig.glb: not a project file (starts with byte 0)', 'ended-2 found damaged on the way');
  // Versions known to be damaged are not read again; none left: null.
  reads.length = 0;
  found.damaged.set('ended-1', 'opened but refused');
  assert.equal(await firstReadable(storage, found, projectCheck), null, 'nothing readable');
  assert.deepEqual(reads, [], 'damaged versions are not read again');
});

test('when and what, in words', () => {
  const now = new Date(2026, 10, 24, 14, 6, 30).getTime();
  assert.equal(timeAgo(now - 59_000, now), 'just now');
  assert.equal(timeAgo(now - 60_000, now), '1 minute ago');
  assert.equal(timeAgo(now - 3 * 60_000 - 5000, now), '3 minutes ago');
  assert.equal(timeAgo(now - 2 * 3600_000, now), '2 hours ago');
  assert.equal(timeAgo(now - 49 * 3600_000, now), '2 days ago');
  assert.equal(timeAgo(now + 5000, now), 'just now', 'a clock set back is not "in the future"');
  assert.equal(savedAtText(new Date(2026, 10, 24, 14, 3, 10).getTime(), now), '14:03 (3 minutes ago)');
  assert.equal(savedAtText(new Date(2026, 10, 23, 9, 5, 0).getTime(), now), '2026-11-23 09:05 (1 day ago)');
  assert.equal(
    contentsText(info('s', 1, 0, { name: 'hand.rig.glb', vertexCount: 3485, boneCount: 20, editCount: 7 })),
    'hand.rig.glb: 3,485 vertices, 20 bones, 7 edits',
  );
  assert.equal(contentsText(info('s', 1, 0, { vertexCount: 1, boneCount: 1, editCount: 1 })), 'untitled: 1 vertex, 1 bone, 1 edit');
});

function guardWith(state: { unsaved: boolean; answer: CloseChoice; saves: boolean }) {
  const log: string[] = [];
  let release: (() => void) | null = null;
  const guard = new CloseGuard({
    unsaved: () => state.unsaved,
    ask: () => {
      log.push('ask');
      return new Promise((resolve) => (release = () => resolve(state.answer)));
    },
    save: async () => {
      log.push('save');
      return state.saves;
    },
    discarded: async () => void log.push('discarded'),
  });
  return { guard, log, answer: () => release!() };
}

test('close guard: no question without unsaved changes; Save, Discard and Cancel decide; one dialog at a time', async () => {
  const state = { unsaved: false, answer: 'cancel' as CloseChoice, saves: true };
  const { guard, log, answer } = guardWith(state);
  assert.equal(await guard.mayDiscard(), true);
  assert.deepEqual(log, [], 'clean: nothing asked');

  state.unsaved = true;
  const first = guard.mayDiscard();
  const second = guard.mayDiscard();
  answer();
  assert.deepEqual([await first, await second], [false, false], 'Cancel keeps the work, for both callers');
  assert.deepEqual(log, ['ask'], 'one dialog');

  state.answer = 'save';
  let decision = guard.mayDiscard();
  answer();
  assert.equal(await decision, true, 'saved: may go');
  state.saves = false;
  decision = guard.mayDiscard();
  answer();
  assert.equal(await decision, false, 'the save dialog cancelled or failed: stays');

  state.answer = 'discard';
  decision = guard.mayDiscard();
  answer();
  assert.equal(await decision, true);
  assert.deepEqual(log, ['ask', 'ask', 'save', 'ask', 'save', 'ask', 'discarded']);
});

test('close guard: beforeunload asks the browser only with unsaved changes', () => {
  const state = { unsaved: false, answer: 'cancel' as CloseChoice, saves: true };
  const { guard } = guardWith(state);
  const event = () => {
    const e = { prevented: false, returnValue: undefined as unknown, preventDefault: () => (e.prevented = true) };
    return e;
  };
  const clean = event();
  guard.beforeUnload(clean);
  assert.deepEqual([clean.prevented, clean.returnValue], [false, undefined]);
  state.unsaved = true;
  const dirty = event();
  guard.beforeUnload(dirty);
  assert.deepEqual([dirty.prevented, dirty.returnValue], [true, '']);
});
