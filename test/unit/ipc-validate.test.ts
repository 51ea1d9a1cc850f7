/**
 * The checks main applies to every IPC argument from the page (app/ipc-validate.ts): what a well-formed request
 * turns into, and that each kind of malformed or hostile request is refused with a message naming the channel.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_OPEN_TITLE,
  IpcArgumentError,
  MAX_TITLE_LENGTH,
  extensionOf,
  isTrustedSenderUrl,
  validateBaseName,
  validateOpenFilesRequest,
  validateSaveFileRequest,
} from '../../app/ipc-validate.ts';
import { MAX_FILE_BYTES, MAX_FILE_NAME_LENGTH, RIG_FILE_EXTENSIONS } from '../../app/ipc-contract.ts';

const CHANNEL = 'rigwright:test';

function refuses(run: () => unknown, reason: RegExp): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof IpcArgumentError, `expected IpcArgumentError, got ${String(error)}`);
    assert.equal(error.channel, CHANNEL);
    assert.ok(error.message.startsWith(`${CHANNEL}: `), error.message);
    assert.match(error.reason, reason);
    return true;
  });
}

test('openFiles: no request means the rig formats and the default title', () => {
  assert.deepEqual(validateOpenFilesRequest(CHANNEL, undefined), { title: DEFAULT_OPEN_TITLE, extensions: [...RIG_FILE_EXTENSIONS] });
  assert.deepEqual(validateOpenFilesRequest(CHANNEL, {}), { title: DEFAULT_OPEN_TITLE, extensions: [...RIG_FILE_EXTENSIONS] });
  assert.deepEqual(validateOpenFilesRequest(CHANNEL, { title: '', extensions: [] }), {
    title: DEFAULT_OPEN_TITLE,
    extensions: [...RIG_FILE_EXTENSIONS],
  });
});

test('openFiles: extensions are lowercased and de-duplicated; the title is kept', () => {
  assert.deepEqual(validateOpenFilesRequest(CHANNEL, { title: 'Open a mesh', extensions: ['OBJ', 'off', 'obj'] }), {
    title: 'Open a mesh',
    extensions: ['obj', 'off'],
  });
  const longest = 'x'.repeat(MAX_TITLE_LENGTH);
  assert.equal(validateOpenFilesRequest(CHANNEL, { title: longest }).title, longest);
});

test('openFiles: malformed requests are refused', () => {
  refuses(() => validateOpenFilesRequest(CHANNEL, null), /object/);
  refuses(() => validateOpenFilesRequest(CHANNEL, 'obj'), /object/);
  refuses(() => validateOpenFilesRequest(CHANNEL, ['obj']), /object/);
  refuses(() => validateOpenFilesRequest(CHANNEL, new Date()), /object/);
  refuses(() => validateOpenFilesRequest(CHANNEL, { title: 3 }), /title must be a string/);
  refuses(() => validateOpenFilesRequest(CHANNEL, { title: 'x'.repeat(MAX_TITLE_LENGTH + 1) }), /longer than 200/);
  refuses(() => validateOpenFilesRequest(CHANNEL, { title: 'a\nb' }), /control characters/);
  refuses(() => validateOpenFilesRequest(CHANNEL, { extensions: 'obj' }), /must be an array/);
  refuses(() => validateOpenFilesRequest(CHANNEL, { extensions: [1] }), /must be a string/);
  refuses(() => validateOpenFilesRequest(CHANNEL, { extensions: ['.obj'] }), /not one of/);
  refuses(() => validateOpenFilesRequest(CHANNEL, { extensions: ['exe'] }), /"exe" is not one of/);
  refuses(() => validateOpenFilesRequest(CHANNEL, { extensions: ['*'] }), /not one of/);
  refuses(() => validateOpenFilesRequest(CHANNEL, { extensions: Array(100).fill('obj') }), /at most/);
  refuses(() => validateOpenFilesRequest(CHANNEL, { title: 'x', path: '/etc' }), /unexpected field "path"/);
});

test('base names: plain names pass, anything naming a directory or a reserved name does not', () => {
  for (const name of ['posed.obj', 'arm weights.dmat', 'hand-pose_quat.dmat', 'ünïcödé.tgf', '.hidden.obj', 'x'.repeat(MAX_FILE_NAME_LENGTH)]) {
    assert.equal(validateBaseName(CHANNEL, name), name);
  }
  refuses(() => validateBaseName(CHANNEL, undefined), /must be a string/);
  refuses(() => validateBaseName(CHANNEL, ''), /empty/);
  refuses(() => validateBaseName(CHANNEL, 'x'.repeat(MAX_FILE_NAME_LENGTH + 1)), /longer than 255/);
  for (const name of ['../posed.obj', 'dir/posed.obj', '/etc/passwd', 'C:\\x.obj', 'C:x.obj', 'a\0b.obj', 'a\nb.obj', 'what?.obj', 'a|b.obj']) {
    refuses(() => validateBaseName(CHANNEL, name), /base name/);
  }
  for (const name of ['.', '..', 'posed.', 'posed ', 'CON', 'nul.obj', 'com1.dmat']) {
    refuses(() => validateBaseName(CHANNEL, name), /not a usable file name/);
  }
});

test('extensionOf: lowercase, without the dot, empty when there is none', () => {
  assert.equal(extensionOf('a.OBJ'), 'obj');
  assert.equal(extensionOf('a.b.dmat'), 'dmat');
  assert.equal(extensionOf('.hidden'), '');
  assert.equal(extensionOf('plain'), '');
});

test('saveFile: a base name with a saveable extension and a Uint8Array within the limit', () => {
  const bytes = new Uint8Array([1, 2, 3]);
  const valid = validateSaveFileRequest(CHANNEL, { suggestedName: 'posed.obj', bytes });
  assert.equal(valid.suggestedName, 'posed.obj');
  assert.equal(valid.bytes, bytes);
  assert.equal(validateSaveFileRequest(CHANNEL, { suggestedName: 'rig.GLB', bytes: new Uint8Array(0) }).suggestedName, 'rig.GLB');
});

test('saveFile: wrong shapes, names, types and sizes are refused', () => {
  const bytes = new Uint8Array(4);
  refuses(() => validateSaveFileRequest(CHANNEL, undefined), /object/);
  refuses(() => validateSaveFileRequest(CHANNEL, { bytes }), /must be a string/);
  refuses(() => validateSaveFileRequest(CHANNEL, { suggestedName: '../../.bashrc.obj', bytes }), /base name/);
  refuses(() => validateSaveFileRequest(CHANNEL, { suggestedName: 'run.sh', bytes }), /must end in one of/);
  refuses(() => validateSaveFileRequest(CHANNEL, { suggestedName: 'noextension', bytes }), /must end in one of/);
  refuses(() => validateSaveFileRequest(CHANNEL, { suggestedName: 'a.obj' }), /Uint8Array/);
  refuses(() => validateSaveFileRequest(CHANNEL, { suggestedName: 'a.obj', bytes: 'text' }), /Uint8Array/);
  refuses(() => validateSaveFileRequest(CHANNEL, { suggestedName: 'a.obj', bytes: [1, 2] }), /Uint8Array/);
  refuses(() => validateSaveFileRequest(CHANNEL, { suggestedName: 'a.obj', bytes: new Float32Array(2) }), /Uint8Array/);
  refuses(() => validateSaveFileRequest(CHANNEL, { suggestedName: 'a.obj', bytes: bytes.buffer }), /Uint8Array/);
  refuses(() => validateSaveFileRequest(CHANNEL, { suggestedName: 'a.obj', bytes, mode: 0o777 }), /unexpected field "mode"/);
  // A view that claims more than the limit is refused without allocating it.
  const huge = { byteLength: MAX_FILE_BYTES + 1 };
  Object.setPrototypeOf(huge, Uint8Array.prototype);
  refuses(() => validateSaveFileRequest(CHANNEL, { suggestedName: 'a.obj', bytes: huge }), /larger than/);
});

test('sender URLs: only our own page counts', () => {
  assert.equal(isTrustedSenderUrl('rigwright://app/index.html'), true);
  assert.equal(isTrustedSenderUrl('rigwright://app/'), true);
  assert.equal(isTrustedSenderUrl('rigwright://app/index.html?x=1#y'), true);
  for (const url of [
    undefined,
    null,
    '',
    'not a url',
    'https://app/index.html',
    'file:///work/main/dist/renderer/index.html',
    'http://127.0.0.1:5173/',
    'rigwright://evil/index.html',
    'rigwright://app.evil.com/index.html',
    'rigwright://user@app/index.html',
    'rigwright://app:1234/index.html',
    'about:blank',
    'devtools://devtools/bundled/inspector.html',
  ]) {
    assert.equal(isTrustedSenderUrl(url), false, String(url));
  }
});
