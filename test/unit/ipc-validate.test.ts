/**
 * The checks main applies to every IPC argument from the page (app/ipc-validate.ts): what a well-formed request
 * turns into, and that each kind of malformed or hostile request is refused with a message naming the channel.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_OPEN_TITLE,
  IpcArgumentError,
  MAX_AUTOSAVE_CHUNKS,
  MAX_TITLE_LENGTH,
  extensionOf,
  isTrustedSenderUrl,
  validateAutosaveChunk,
  validateBaseName,
  validateMenuModel,
  validateOpenFilesRequest,
  validateSaveAssetRequest,
  validateSaveFileRequest,
} from '../../app/ipc-validate.ts';
import {
  AUTOSAVE_CHUNK_BYTES,
  MAX_ASSET_RESOURCES,
  MAX_FILE_BYTES,
  MAX_FILE_NAME_LENGTH,
  MAX_MENU_ITEMS,
  MAX_MENU_LABEL_LENGTH,
  MAX_MENUS,
  RIG_FILE_EXTENSIONS,
  type MenuItemModel,
  type MenuModel,
} from '../../app/ipc-contract.ts';

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
  for (const name of [
    'posed.obj',
    'arm weights.dmat',
    'hand-pose_quat.dmat',
    'ünïcödé.tgf',
    '.hidden.obj',
    'x'.repeat(MAX_FILE_NAME_LENGTH),
  ]) {
    assert.equal(validateBaseName(CHANNEL, name), name);
  }
  refuses(() => validateBaseName(CHANNEL, undefined), /must be a string/);
  refuses(() => validateBaseName(CHANNEL, ''), /empty/);
  refuses(() => validateBaseName(CHANNEL, 'x'.repeat(MAX_FILE_NAME_LENGTH + 1)), /longer than 255/);
  for (const name of [
    '../posed.obj',
    'dir/posed.obj',
    '/etc/passwd',
    'C:\\x.obj',
    'C:x.obj',
    'a\0b.obj',
    'a\nb.obj',
    'what?.obj',
    'a|b.obj',
  ]) {
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

test('saveAsset: a .gltf with resources at URIs inside its folder, each with its path', () => {
  const gltf = new Uint8Array([123, 125]);
  const bin = new Uint8Array(8);
  const image = new Uint8Array(3);
  const valid = validateSaveAssetRequest(CHANNEL, {
    suggestedName: 'fox.gltf',
    bytes: gltf,
    resources: [
      { uri: 'fox.bin', bytes: bin },
      { uri: 'textures/fur%20dark.PNG', bytes: image },
      { uri: './textures/../eyes.jpg', bytes: image },
    ],
  });
  assert.equal(valid.suggestedName, 'fox.gltf');
  assert.equal(valid.bytes, gltf);
  assert.deepEqual(valid.resources, [
    { uri: 'fox.bin', path: 'fox.bin', bytes: bin },
    { uri: 'textures/fur%20dark.PNG', path: 'textures/fur dark.PNG', bytes: image },
    { uri: './textures/../eyes.jpg', path: 'eyes.jpg', bytes: image },
  ]);
  const many = Array.from({ length: MAX_ASSET_RESOURCES }, (_, i) => ({ uri: `t/${i}.png`, bytes: image }));
  assert.equal(
    validateSaveAssetRequest(CHANNEL, { suggestedName: 'a.gltf', bytes: gltf, resources: many }).resources.length,
    MAX_ASSET_RESOURCES,
  );
});

test('saveAsset: URIs out of the folder, absolute, with a scheme, NUL or of other file types are refused, naming the resource', () => {
  const bytes = new Uint8Array(4);
  const asset = (uri: unknown) => ({
    suggestedName: 'fox.gltf',
    bytes,
    resources: [
      { uri: 'fox.bin', bytes },
      { uri, bytes },
    ],
  });
  refuses(
    () => validateSaveAssetRequest(CHANNEL, asset('../x.png')),
    /^resources\[1\]\.uri: resource URI "\.\.\/x\.png" leads out of the asset's folder$/,
  );
  refuses(() => validateSaveAssetRequest(CHANNEL, asset('%2e%2e/x.png')), /^resources\[1\]\.uri: .* leads out of the asset's folder$/);
  refuses(() => validateSaveAssetRequest(CHANNEL, asset('textures/../../x.png')), /leads out of the asset's folder/);
  refuses(() => validateSaveAssetRequest(CHANNEL, asset('..\\x.png')), /leads out of the asset's folder/);
  refuses(() => validateSaveAssetRequest(CHANNEL, asset('/home/artist/.ssh/id_rsa.png')), /is an absolute path/);
  refuses(() => validateSaveAssetRequest(CHANNEL, asset('\\\\server\\share\\x.png')), /is an absolute path/);
  refuses(() => validateSaveAssetRequest(CHANNEL, asset('C:\\Windows\\x.png')), /drive letter/);
  refuses(() => validateSaveAssetRequest(CHANNEL, asset('file:///etc/x.png')), /is a file: URI/);
  refuses(() => validateSaveAssetRequest(CHANNEL, asset('x.png\u0000.bin')), /control character/);
  refuses(() => validateSaveAssetRequest(CHANNEL, asset('textures/')), /names a folder/);
  refuses(() => validateSaveAssetRequest(CHANNEL, asset('run.sh')), /^resources\[1\]\.uri must end in one of \.bin, \.png/);
  refuses(() => validateSaveAssetRequest(CHANNEL, asset('.bashrc')), /must end in one of/);
  refuses(() => validateSaveAssetRequest(CHANNEL, asset('textures/x.gltf')), /must end in one of/);
  refuses(() => validateSaveAssetRequest(CHANNEL, asset('FOX.BIN')), /^resources\[1\]\.uri names a file an earlier resource names$/);
  refuses(() => validateSaveAssetRequest(CHANNEL, asset('./fox.bin')), /names a file an earlier resource names/);
  refuses(() => validateSaveAssetRequest(CHANNEL, asset(42)), /^resources\[1\]\.uri must be a string$/);
  refuses(() => validateSaveAssetRequest(CHANNEL, asset(`${'a/'.repeat(600)}x.png`)), /longer than 1024/);
});

test('saveAsset: wrong shapes, names, types and sizes are refused', () => {
  const bytes = new Uint8Array(4);
  const resources = [{ uri: 'a.bin', bytes }];
  refuses(() => validateSaveAssetRequest(CHANNEL, null), /object/);
  refuses(() => validateSaveAssetRequest(CHANNEL, { suggestedName: 'a.glb', bytes, resources }), /\.gltf/);
  refuses(() => validateSaveAssetRequest(CHANNEL, { suggestedName: '../a.gltf', bytes, resources }), /base name/);
  refuses(() => validateSaveAssetRequest(CHANNEL, { suggestedName: 'a.gltf', bytes: 'x', resources }), /Uint8Array/);
  refuses(() => validateSaveAssetRequest(CHANNEL, { suggestedName: 'a.gltf', bytes }), /resources must be an array/);
  refuses(
    () => validateSaveAssetRequest(CHANNEL, { suggestedName: 'a.gltf', bytes, resources, folder: '/tmp' }),
    /unexpected field "folder"/,
  );
  refuses(
    () => validateSaveAssetRequest(CHANNEL, { suggestedName: 'a.gltf', bytes, resources: ['a.bin'] }),
    /resources\[0\]: must be an object/,
  );
  refuses(
    () => validateSaveAssetRequest(CHANNEL, { suggestedName: 'a.gltf', bytes, resources: [{ uri: 'a.bin', bytes, path: '/x' }] }),
    /resources\[0\]: unexpected field "path"/,
  );
  refuses(
    () => validateSaveAssetRequest(CHANNEL, { suggestedName: 'a.gltf', bytes, resources: [{ uri: 'a.bin', bytes: [1] }] }),
    /resources\[0\]\.bytes must be a Uint8Array/,
  );
  const tooMany = Array.from({ length: MAX_ASSET_RESOURCES + 1 }, (_, i) => ({ uri: `${i}.png`, bytes }));
  refuses(() => validateSaveAssetRequest(CHANNEL, { suggestedName: 'a.gltf', bytes, resources: tooMany }), /at most 256 resources/);
  // Together over the limit, each under it; views that claim their size are not allocated.
  const half = { byteLength: MAX_FILE_BYTES / 2 + 1 };
  Object.setPrototypeOf(half, Uint8Array.prototype);
  refuses(
    () =>
      validateSaveAssetRequest(CHANNEL, {
        suggestedName: 'a.gltf',
        bytes,
        resources: [
          { uri: 'a.bin', bytes: half },
          { uri: 'b.bin', bytes: half },
        ],
      }),
    /the asset is larger than/,
  );
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

/** The menus as the renderer's command catalog makes them. */
const PAGE_MENUS: MenuModel = [
  { label: 'File', items: [{ command: 'file.open', label: 'Open…', enabled: true, accelerator: 'CmdOrCtrl+O' }] },
  {
    label: 'Edit',
    items: [
      { command: 'edit.undo', label: 'Undo Paint stroke', enabled: true, accelerator: 'CmdOrCtrl+Z' },
      { command: 'edit.redo', label: 'Redo', enabled: false, accelerator: 'CmdOrCtrl+Shift+Z' },
      { separator: true },
      { command: 'app.preferences', label: 'Preferences…', enabled: true, accelerator: 'CmdOrCtrl+,' },
    ],
  },
  { label: 'View', items: [{ command: 'view.wireframe', label: 'Wireframe', enabled: true, checked: false, accelerator: 'W' }] },
];

/** PAGE_MENUS with the second Edit item ("menu 2 item 2") changed, for a one-field refusal. */
function withRedo(change: Record<string, unknown>): unknown {
  const model = structuredClone(PAGE_MENUS) as unknown as { items: Record<string, unknown>[] }[];
  Object.assign(model[1].items[1], change);
  return model;
}

const item = (n: number): MenuItemModel => ({
  command: `view.item${'abcdefghijklmnopqrstuvwxyz'[n % 26]}`,
  label: `Item ${n}`,
  enabled: true,
});

test("menu model: the renderer's model passes as a fresh copy with only the contract's fields", () => {
  const valid = validateMenuModel(CHANNEL, PAGE_MENUS);
  assert.deepEqual(valid, PAGE_MENUS);
  assert.notEqual(valid, PAGE_MENUS);
  assert.notEqual(valid[1].items[0], PAGE_MENUS[1].items[0]);
  assert.deepEqual(validateMenuModel(CHANNEL, []), []);
  // Optional fields sent as undefined are left out, so equal models serialize alike.
  const explicit = validateMenuModel(CHANNEL, [
    { label: 'Edit', items: [{ command: 'edit.undo', label: 'Undo', enabled: true, checked: undefined, accelerator: undefined }] },
  ]);
  assert.equal(JSON.stringify(explicit), '[{"label":"Edit","items":[{"command":"edit.undo","label":"Undo","enabled":true}]}]');
});

test('menu model: the bounds on menus, items and labels are inclusive', () => {
  const most = Array.from({ length: MAX_MENUS }, (_, m) => ({
    label: `Menu ${m}`,
    items: Array.from({ length: MAX_MENU_ITEMS }, (_, i) => item(i)),
  }));
  assert.equal(validateMenuModel(CHANNEL, most).length, MAX_MENUS);
  refuses(() => validateMenuModel(CHANNEL, [...most, { label: 'One more', items: [item(0)] }]), /^menu model has more than 16 menus$/);
  const crowded = structuredClone(most);
  crowded[4].items.push(item(0));
  refuses(() => validateMenuModel(CHANNEL, crowded), /^menu 5: has more than 64 items$/);

  const longest = 'x'.repeat(MAX_MENU_LABEL_LENGTH);
  assert.equal((validateMenuModel(CHANNEL, withRedo({ label: longest }))[1].items[1] as MenuItemModel).label, longest);
  refuses(() => validateMenuModel(CHANNEL, withRedo({ label: `${longest}x` })), /^menu 2 item 2: label is longer than 120 characters$/);
  refuses(() => validateMenuModel(CHANNEL, [{ label: `${longest}x`, items: [item(0)] }]), /^menu 1: label is longer than 120 characters$/);
});

test('menu model: wrong shapes, labels and fields are refused, naming the menu and item', () => {
  for (const value of [undefined, null, 'File', {}, { 0: PAGE_MENUS[0], length: 1 }]) {
    refuses(() => validateMenuModel(CHANNEL, value), /^menu model must be an array$/);
  }
  refuses(() => validateMenuModel(CHANNEL, [PAGE_MENUS[0], null]), /^menu 2: must be an object$/);
  refuses(() => validateMenuModel(CHANNEL, [['File']]), /^menu 1: must be an object$/);
  refuses(() => validateMenuModel(CHANNEL, [{ label: 'File', items: [item(0)], role: 'quit' }]), /^menu 1: unexpected field "role"$/);
  refuses(() => validateMenuModel(CHANNEL, [{ label: 'File' }]), /^menu 1: items must be an array$/);
  refuses(() => validateMenuModel(CHANNEL, [{ label: 'File', items: [] }]), /^menu 1: has no items$/);
  refuses(() => validateMenuModel(CHANNEL, [{ items: [item(0)] }]), /^menu 1: label must be a string$/);
  refuses(() => validateMenuModel(CHANNEL, [{ label: '', items: [item(0)] }]), /^menu 1: label is empty$/);
  refuses(
    () => validateMenuModel(CHANNEL, [PAGE_MENUS[0], PAGE_MENUS[1], { label: 'File', items: [item(0)] }]),
    /^menu 3: label "File" repeats menu 1$/,
  );
  for (const label of ['Undo\nRedo', 'Undo\u0000', 'Undo\u007f', 'Undo\u0085', 'Undo\u2028', '\tUndo']) {
    refuses(() => validateMenuModel(CHANNEL, withRedo({ label })), /^menu 2 item 2: label has control characters$/);
    refuses(() => validateMenuModel(CHANNEL, [{ label, items: [item(0)] }]), /^menu 1: label has control characters$/);
  }
  refuses(() => validateMenuModel(CHANNEL, [{ label: 'File', items: [item(0), 'file.open'] }]), /^menu 1 item 2: must be an object$/);
  refuses(() => validateMenuModel(CHANNEL, withRedo({ role: 'quit' })), /^menu 2 item 2: unexpected field "role"$/);
  refuses(() => validateMenuModel(CHANNEL, withRedo({ click: 'x' })), /^menu 2 item 2: unexpected field "click"$/);
  refuses(
    () =>
      validateMenuModel(
        CHANNEL,
        JSON.parse('[{"label":"File","items":[{"__proto__":{},"command":"file.open","label":"Open","enabled":true}]}]'),
      ),
    /^menu 1 item 1: unexpected field "__proto__"$/,
  );
  refuses(() => validateMenuModel(CHANNEL, withRedo({ label: 7 })), /^menu 2 item 2: label must be a string$/);
  refuses(() => validateMenuModel(CHANNEL, withRedo({ label: '' })), /^menu 2 item 2: label is empty$/);
  refuses(() => validateMenuModel(CHANNEL, withRedo({ enabled: undefined })), /^menu 2 item 2: enabled must be a boolean$/);
  refuses(() => validateMenuModel(CHANNEL, withRedo({ enabled: 'false' })), /^menu 2 item 2: enabled must be a boolean$/);
  refuses(() => validateMenuModel(CHANNEL, withRedo({ checked: 1 })), /^menu 2 item 2: checked must be a boolean$/);
});

test('menu model: a separator lies between two items, as { separator: true } only', () => {
  const valid = validateMenuModel(CHANNEL, PAGE_MENUS);
  assert.deepEqual(valid[1].items[2], { separator: true }, 'kept in its place');
  const rows = (...items: unknown[]) => [{ label: 'Edit', items }];
  const line = { separator: true };
  assert.equal(validateMenuModel(CHANNEL, rows(item(0), line, item(1), line, item(2)))[0].items.length, 5, 'two separators');
  refuses(() => validateMenuModel(CHANNEL, rows(line, item(0))), /^menu 1 item 1: a separator cannot start or end a menu$/);
  refuses(() => validateMenuModel(CHANNEL, rows(item(0), line)), /^menu 1 item 2: a separator cannot start or end a menu$/);
  refuses(() => validateMenuModel(CHANNEL, rows(line)), /^menu 1 item 1: a separator cannot start or end a menu$/);
  refuses(() => validateMenuModel(CHANNEL, rows(item(0), line, line, item(1))), /^menu 1 item 3: a separator follows another$/);
  refuses(() => validateMenuModel(CHANNEL, rows(item(0), { separator: false }, item(1))), /^menu 1 item 2: separator must be true$/);
  refuses(() => validateMenuModel(CHANNEL, rows(item(0), { separator: 'yes' }, item(1))), /^menu 1 item 2: separator must be true$/);
  refuses(
    () => validateMenuModel(CHANNEL, rows(item(0), { separator: true, label: 'x' }, item(1))),
    /^menu 1 item 2: unexpected field "label"$/,
  );
  refuses(
    () => validateMenuModel(CHANNEL, rows(item(0), { separator: true, command: 'file.open' }, item(1))),
    /^menu 1 item 2: unexpected field "command"$/,
  );
});

test('menu model: command ids must be dotted lower camel case', () => {
  for (const command of ['edit.undo', 'view.frameAll', 'playback.previousFrame', 'a.b.c']) {
    assert.equal((validateMenuModel(CHANNEL, withRedo({ command }))[1].items[1] as MenuItemModel).command, command);
  }
  refuses(() => validateMenuModel(CHANNEL, withRedo({ command: 42 })), /^menu 2 item 2: command must be a string$/);
  refuses(() => validateMenuModel(CHANNEL, withRedo({ command: undefined })), /^menu 2 item 2: command must be a string$/);
  for (const command of [
    '',
    'edit',
    'format-disk',
    '../x',
    'Edit.undo',
    'edit.',
    'edit..undo',
    'edit.undo ',
    'edit.undo\n',
    'edit.un-do',
    'edit.undo2',
  ]) {
    refuses(
      () => validateMenuModel(CHANNEL, withRedo({ command })),
      /^menu 2 item 2: command ".*" is not a command id such as "edit.undo"$/s,
    );
  }
  refuses(
    () => validateMenuModel(CHANNEL, withRedo({ command: `edit.${'a'.repeat(200)}` })),
    /^menu 2 item 2: command "edit\.a{35}" is not a command id/,
  );
});

test('menu model: accelerators are modifiers and one key, strictly', () => {
  for (const accelerator of [
    'A',
    'Z',
    '0',
    '9',
    'F1',
    'F12',
    'F24',
    'Space',
    'Left',
    'Right',
    'Up',
    'Down',
    'Esc',
    'Enter',
    'Delete',
    'Backspace',
    '/',
    '?',
    'Shift+/',
    'CmdOrCtrl+,',
    'CmdOrCtrl+O',
    'CmdOrCtrl+Shift+Z',
    'Alt+1',
    'Ctrl+Shift+Alt+CmdOrCtrl+Up',
  ]) {
    assert.equal((validateMenuModel(CHANNEL, withRedo({ accelerator }))[1].items[1] as MenuItemModel).accelerator, accelerator);
  }
  refuses(() => validateMenuModel(CHANNEL, withRedo({ accelerator: 90 })), /^menu 2 item 2: accelerator must be a string$/);
  for (const accelerator of [
    '',
    'a',
    'CmdOrCtrl+o',
    'Cmd+O',
    'Command+O',
    'Super+A',
    'Meta+A',
    'F0',
    'F25',
    'F1F',
    'Ctrl+',
    '+',
    'Ctrl+Shift',
    'Ctrl+A+B',
    'A+Ctrl',
    'ctrl+A',
    'Ctrl A',
    ' Space',
    'Space\n',
    'Tab',
    'PageUp',
    'MediaPlayPause',
    'Ctrl+Ctrl+Ctrl+Ctrl+Ctrl+A',
    'x'.repeat(10_000),
  ]) {
    refuses(
      () => validateMenuModel(CHANNEL, withRedo({ accelerator })),
      /^menu 2 item 2: accelerator ".*" is not modifiers \(CmdOrCtrl, Ctrl, Shift, Alt\) and one key$/s,
    );
  }
  for (const accelerator of ['Shift+Shift+A', 'CmdOrCtrl+Alt+CmdOrCtrl+Z']) {
    refuses(() => validateMenuModel(CHANNEL, withRedo({ accelerator })), /^menu 2 item 2: accelerator ".*" repeats a modifier$/);
  }
});

test('an autosave chunk is an id, an index and at most 1 MiB of bytes, nothing else', () => {
  // 512 MiB in chunks of 1 MiB: indices 0 to 511.
  assert.equal(AUTOSAVE_CHUNK_BYTES, 1_048_576);
  assert.equal(MAX_AUTOSAVE_CHUNKS, 512);
  const bytes = new Uint8Array(AUTOSAVE_CHUNK_BYTES);
  assert.deepEqual(validateAutosaveChunk(CHANNEL, { id: 'a1-7', index: 0, bytes }), { id: 'a1-7', index: 0, bytes });
  assert.equal(validateAutosaveChunk(CHANNEL, { id: 'a1-7', index: 511, bytes: new Uint8Array(0) }).index, 511);
  refuses(
    () => validateAutosaveChunk(CHANNEL, { id: 'a1-7', index: 0, bytes: new Uint8Array(AUTOSAVE_CHUNK_BYTES + 1) }),
    /^chunk 0 of a1-7 holds 1048577 bytes, more than 1048576$/,
  );
  refuses(() => validateAutosaveChunk(CHANNEL, { id: 'a1-7', index: 512, bytes }), /^index must be a whole number from 0 to 511$/);
  for (const index of [-1, 1.5, '0', Number.NaN, undefined]) {
    refuses(() => validateAutosaveChunk(CHANNEL, { id: 'a1-7', index, bytes }), /^index must be a whole number/);
  }
  refuses(() => validateAutosaveChunk(CHANNEL, { id: '../a1-7', index: 0, bytes }), /^id "\.\.\/a1-7" is not letters, digits and dashes/);
  refuses(() => validateAutosaveChunk(CHANNEL, { id: 7, index: 0, bytes }), /^id must be a string$/);
  refuses(() => validateAutosaveChunk(CHANNEL, { id: 'a1-7', index: 0, bytes: [1, 2] }), /^bytes must be a Uint8Array$/);
  refuses(() => validateAutosaveChunk(CHANNEL, { id: 'a1-7', index: 0, bytes: bytes.buffer }), /^bytes must be a Uint8Array$/);
  refuses(() => validateAutosaveChunk(CHANNEL, { id: 'a1-7', index: 0, bytes, info: {} }), /^unexpected field "info"$/);
  refuses(() => validateAutosaveChunk(CHANNEL, [bytes]), /^chunk must be an object$/);
  refuses(() => validateAutosaveChunk(CHANNEL, null), /^chunk must be an object$/);
});

test('saveAsset: a .tgf skeleton with exactly its names file beside it; any other resource is refused', () => {
  const bytes = new Uint8Array(4);
  const names = new Uint8Array(2);
  const valid = validateSaveAssetRequest(CHANNEL, { suggestedName: 'arm.tgf', bytes, resources: [{ uri: 'arm.names', bytes: names }] });
  assert.deepEqual(valid.resources, [{ uri: 'arm.names', path: 'arm.names', bytes: names }]);
  const spaced = validateSaveAssetRequest(CHANNEL, { suggestedName: 'my rig.tgf', bytes, resources: [{ uri: 'my%20rig.names', bytes }] });
  assert.equal(spaced.resources[0].path, 'my rig.names');
  refuses(
    () => validateSaveAssetRequest(CHANNEL, { suggestedName: 'arm.tgf', bytes, resources: [{ uri: 'leg.names', bytes }] }),
    /^resources\[0\]\.uri must be the skeleton's names file arm\.names$/,
  );
  refuses(
    () => validateSaveAssetRequest(CHANNEL, { suggestedName: 'arm.tgf', bytes, resources: [{ uri: 'arm.bin', bytes }] }),
    /must be the skeleton's names file arm\.names/,
  );
  refuses(
    () => validateSaveAssetRequest(CHANNEL, { suggestedName: 'arm.tgf', bytes, resources: [{ uri: 'sub/arm.names', bytes }] }),
    /must be the skeleton's names file/,
  );
  refuses(
    () => validateSaveAssetRequest(CHANNEL, { suggestedName: 'arm.tgf', bytes, resources: [] }),
    /one resource, its names file arm\.names/,
  );
  refuses(
    () =>
      validateSaveAssetRequest(CHANNEL, {
        suggestedName: 'arm.tgf',
        bytes,
        resources: [
          { uri: 'arm.names', bytes },
          { uri: 'arm.names', bytes },
        ],
      }),
    /one resource/,
  );
  refuses(
    () => validateSaveAssetRequest(CHANNEL, { suggestedName: 'fox.gltf', bytes, resources: [{ uri: 'fox.names', bytes }] }),
    /must end in one of \.bin/,
  );
  refuses(
    () => validateSaveAssetRequest(CHANNEL, { suggestedName: 'arm.obj', bytes, resources: [] }),
    /a \.gltf file, or a \.tgf skeleton/,
  );
});
