/**
 * Recent project files that can no longer be read: the web page's handles (a File System Access handle whose file
 * was deleted) and the desktop's paths each give an error naming the file and the reason, not the browser's or
 * Node's message; the web page's list can drop such a file (its handle let go), the desktop's leaves it out itself.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WebProjectFiles } from '../../renderer/io/web-project-files.ts';
import { ProjectFilesMain } from '../../app/project-files-main.ts';

/** localStorage as the page has it, for the web recent list (Node has none). */
function withLocalStorage(): () => void {
  const values = new Map<string, string>();
  const storage = {
    getItem: (key: string) => values.get(key) ?? null,
    setItem: (key: string, value: string) => void values.set(key, value),
  };
  Object.defineProperty(globalThis, 'localStorage', { value: storage, configurable: true });
  return () => void Reflect.deleteProperty(globalThis, 'localStorage');
}

/** A handle whose file is there until `gone` is set, then fails as Chromium's does (NotFoundError, no file name). */
function fileHandle(name: string) {
  const state = { gone: false, bytes: new Uint8Array([7, 8, 9]) };
  const handle = {
    kind: 'file' as const,
    name,
    getFile: () =>
      state.gone
        ? Promise.reject(
            new DOMException('A requested file or directory could not be found at the time an operation was processed.', 'NotFoundError'),
          )
        : Promise.resolve(new File([state.bytes], name)),
    createWritable: () =>
      Promise.resolve({
        write: (data: Uint8Array) => {
          state.bytes = data.slice();
          return Promise.resolve();
        },
        close: () => Promise.resolve(),
      }),
  };
  return { handle, state };
}

test('web: a recent file deleted since it was saved is named with the reason; forget takes it out of the list', async () => {
  const restore = withLocalStorage();
  try {
    const { handle, state } = fileHandle('arm.rig.glb');
    const files = new WebProjectFiles(
      { openFiles: () => Promise.resolve([]), saveFile: () => Promise.resolve(false) },
      { showSaveFilePicker: () => Promise.resolve(handle), showOpenFilePicker: () => Promise.resolve([handle]) },
    );
    const saved = await files.save({ suggestedName: 'arm.rig.glb', bytes: new Uint8Array([1, 2]) });
    assert.ok(saved, 'the picker chose a file');
    assert.deepEqual(await files.recent(), [saved]);
    assert.deepEqual([...(await files.open(saved.token))!.bytes], [1, 2]);

    state.gone = true;
    await assert.rejects(
      files.open(saved.token),
      (error: Error) =>
        error.message === 'arm.rig.glb could not be opened: it is no longer there (moved, renamed or deleted since it was last opened)',
    );
    assert.deepEqual(await files.recent(), [saved], 'the list keeps it until the user removes it');
    await files.forget(saved.token);
    assert.deepEqual(await files.recent(), []);
  } finally {
    restore();
  }
});

test('desktop: a recent file deleted after the list was read is named with the reason, without its folder', async () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'rigwright-recent-'));
  try {
    const main = new ProjectFilesMain(path.join(folder, 'recent-projects.json'));
    const target = path.join(folder, 'leg.rig.glb');
    const saved = await main.save('save', { suggestedName: 'leg.rig.glb', bytes: new Uint8Array([1]) }, () => Promise.resolve(target));
    assert.ok(saved, 'the dialog chose a file');
    rmSync(target);
    await assert.rejects(
      main.open('open', saved.token, () => Promise.resolve(null)),
      (error: Error) =>
        error.message === 'leg.rig.glb could not be opened: it is no longer there (moved, renamed or deleted since it was last opened)',
    );
    assert.deepEqual(await main.recent(), [], 'a file that is gone is not offered');
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
