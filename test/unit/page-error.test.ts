/**
 * app/page-error.ts: what main's IPC handlers throw reaches the page in our words, on one line, with base names
 * only — a write that fails on a full disk, Node's own file-system errors (which quote whole paths), and any other
 * message with paths in it — while a refused request keeps its words and class.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fsPromises from 'node:fs/promises';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AtomicWriteError, writeFileAtomic } from '../../app/atomic-write.ts';
import { IpcArgumentError } from '../../app/ipc-validate.ts';
import { answerPage, pageError, pageErrorMessage, withoutFolders } from '../../app/page-error.ts';
import { fullDiskPromises } from './full-disk.ts';

/** The error a promise rejects with. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  return assert.fail('expected the call to fail');
}

/** node:fs/promises whose writes to files opened for writing fail with ENOSPC, as on a full disk. */
const fullDisk = fullDiskPromises((_file, flags) => flags === 'wx');

test('a save that fails on a full disk reads `cannot save <base name>: the disk is full`', async () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'rigwright-page-error-'));
  const target = path.join(folder, 'scene.rig.glb');
  writeFileSync(target, 'old');
  const error = await rejection(writeFileAtomic(target, new Uint8Array(1024), { fs: fullDisk }));
  assert.ok(error instanceof AtomicWriteError, `an AtomicWriteError, not ${String(error)}`);
  assert.ok(error.message.includes(folder), 'the writer itself names the whole path (for the CLI)');
  assert.equal(pageErrorMessage(error), 'cannot save scene.rig.glb: the disk is full');
  assert.equal(readFileSync(target, 'utf8'), 'old', 'the old file stays');
  assert.deepEqual(readdirSync(folder), ['scene.rig.glb'], 'no temporary file stays');
});

test("Node's file-system errors name the file's base name and the reason in words, the verb from the failed call", async () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'rigwright-page-error-'));
  const missing = await rejection(fsPromises.stat(path.join(folder, 'gone.rig.glb')));
  assert.match(String(missing), /ENOENT: no such file or directory, stat '.*gone\.rig\.glb'/, 'Node quotes the whole path');
  assert.equal(pageErrorMessage(missing), 'cannot read gone.rig.glb: no such file or folder');
  const unlinked = await rejection(fsPromises.unlink(path.join(folder, 'gone.json')));
  assert.equal(pageErrorMessage(unlinked), 'cannot remove gone.json: no such file or folder');
  // A code without words of ours: Node's text with each path cut, the known ones whole although they hold spaces.
  const crossDevice = Object.assign(
    new Error("EXDEV: cross-device link not permitted, rename '/home/ann/My Files/.arm.tmp' -> '/mnt/usb/arm.rig.glb'"),
    { code: 'EXDEV', syscall: 'rename', path: '/home/ann/My Files/.arm.tmp', dest: '/mnt/usb/arm.rig.glb' },
  );
  assert.equal(
    pageErrorMessage(crossDevice),
    "cannot save .arm.tmp: EXDEV: cross-device link not permitted, rename '.arm.tmp' -> 'arm.rig.glb'",
  );
});

test('any other message loses its folders and its line breaks; relative paths and fractions stay', () => {
  assert.equal(
    pageErrorMessage(new Error('cannot load /srv/home/ann/rigs/arm.glb:\nC:\\Users\\ann\\Desktop\\arm.bin is locked')),
    'cannot load arm.glb: arm.bin is locked',
  );
  assert.equal(withoutFolders('"/home/ann/My Files/x.glb" is gone'), '"x.glb" is gone', 'a quoted path keeps its spaces');
  assert.equal(withoutFolders('\\\\server\\share\\rigs\\x.glb is gone'), 'x.glb is gone', 'a UNC path');
  const kept = 'a URI ../x.png, 1/2 of the bones and/or a mesh';
  assert.equal(withoutFolders(kept), kept);
  assert.equal(pageErrorMessage('a plain string /tmp/x'), 'a plain string x');
});

test('a refused request crosses as it is; answerPage keeps throwing at once or rejecting as the handler did', async () => {
  const refused = new IpcArgumentError('rigwright:save-file', 'suggestedName must be a base name');
  assert.equal(pageError(refused), refused);
  const failure = Object.assign(new Error("ENOENT: no such file or directory, open '/home/ann/arm.glb'"), {
    code: 'ENOENT',
    syscall: 'open',
    path: '/home/ann/arm.glb',
  });
  assert.throws(
    () =>
      answerPage(() => {
        throw failure;
      }),
    (error: unknown) =>
      error instanceof Error && error.message === 'cannot read arm.glb: no such file or folder' && error.cause === failure,
  );
  const rejected = await rejection(answerPage(() => Promise.reject(failure)));
  assert.ok(rejected instanceof Error && rejected.message === 'cannot read arm.glb: no such file or folder', String(rejected));
  assert.equal(await answerPage(() => Promise.resolve(7)), 7);
  assert.equal(
    answerPage(() => 'value'),
    'value',
  );
});
