/**
 * Bad files into the scene (renderer/document/load-files.ts, gltf-document.ts): every failure the user sees names the
 * file. A reader's FormatError passes as it is; an error that is not one (a fault in a reader: a TypeError, a
 * RangeError from an allocation) gets the file's name; a worker that died under the read says so; and no message is
 * longer than the limit, however long the token a reader quotes. The worker's API is faked per case.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { OpenedFile } from '../../app/ipc-contract.ts';
import type { IoClient } from '../../renderer/io/io-client.ts';
import { WorkerCrashError } from '../../renderer/io/worker-supervisor.ts';
import { loadIntoDocument } from '../../renderer/document/load-files.ts';
import { MAX_FILE_ERROR_CHARACTERS, demoDocument, fileErrorMessage } from '../../workers/scene/scene-document.ts';
import { FormatError } from '../../workers/formats/format-error.ts';
import { readRigFile } from '../../workers/formats/read-file.ts';

const file = (name: string, text = ''): OpenedFile => ({ name, bytes: new TextEncoder().encode(text) });

/** The io worker, with readRigFile failing as `failures` says for the named files (a real read otherwise). */
function ioFailing(failures: Record<string, unknown>): IoClient {
  return {
    readRigFile: async (name: string, bytes: Uint8Array) => {
      if (name in failures) throw failures[name];
      return readRigFile(name, bytes);
    },
    importGltf: async (name: string) => {
      throw failures[name];
    },
  } as unknown as IoClient;
}

test('every failing file of a batch is named once, whatever the reader threw', async () => {
  const io = ioFailing({
    'a.off': new FormatError('a.off', 'line 3', 'face names vertex 9, but vertices are numbered 0 to 2'),
    'b.tgf': new TypeError("Cannot read properties of undefined (reading 'length')"),
    'c.dmat': new WorkerCrashError('file-reading worker', 'Reading c.dmat', 'RangeError: Array buffer allocation failed'),
  });
  await assert.rejects(loadIntoDocument(demoDocument(), [file('a.off'), file('b.tgf'), file('c.dmat')], io), (error: unknown) => {
    assert.ok(error instanceof Error, 'the rejection is an Error');
    assert.equal(error.name, 'LoadError');
    assert.deepEqual(error.message.split('\n'), [
      'a.off: line 3: face names vertex 9, but vertices are numbered 0 to 2',
      "b.tgf: could not be read (TypeError: Cannot read properties of undefined (reading 'length'))",
      'Reading c.dmat failed: the file-reading worker stopped (RangeError: Array buffer allocation failed); it is restarted for the next task',
    ]);
    return true;
  });
});

test("a glTF importer's fault is named with the file; a comlink-copied FormatError (plain Error named so) passes as it is", async () => {
  const io = ioFailing({ 'rig.glb': new RangeError('Invalid typed array length: 4294967296') });
  await assert.rejects(
    loadIntoDocument(demoDocument(), [file('rig.glb')], io),
    /^LoadError: rig\.glb: could not be read \(RangeError: Invalid typed array length: 4294967296\)$/,
  );
  const copied = Object.assign(new Error('rig.glb: accessor 3: count 1e9 is past the end of its buffer'), { name: 'FormatError' });
  assert.equal(fileErrorMessage(copied, 'rig.glb'), 'rig.glb: accessor 3: count 1e9 is past the end of its buffer');
  assert.equal(fileErrorMessage('a string', 'x.obj'), 'x.obj: could not be read (a string)');
});

test('a message quoting a huge token is cut to the limit, saying how much was left out', () => {
  const token = '0'.repeat(5_000_000);
  const message = fileErrorMessage(new FormatError('zeros.off', 'line 1', `expected "OFF", found "${token}"`), 'zeros.off');
  assert.ok(message.startsWith('zeros.off: line 1: expected "OFF", found "000'), 'the cut message keeps the file, the line and the reason');
  assert.ok(message.length < MAX_FILE_ERROR_CHARACTERS + 40, `${message.length} characters`);
  assert.match(message, /… \(\d+ more characters\)$/);
});
