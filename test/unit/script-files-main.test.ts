/**
 * The desktop app's files for scripts, main's side (app/script-files-main.ts), on real folders: a path inside the
 * working folder (the project's, else the scene files') is read or written without asking, one outside it answers
 * `{ outside: true }` and touches nothing until the request says the user allowed it; links are followed; requests
 * are checked as the Save channels check theirs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ScriptFilesMain } from '../../app/script-files-main.ts';
import { IpcArgumentError } from '../../app/ipc-validate.ts';
import { IPC_CHANNELS } from '../../app/ipc-contract.ts';

const READ = IPC_CHANNELS.scriptReadFile;
const WRITE = IPC_CHANNELS.scriptWriteFile;

/** A project folder with hand.rig.glb (token 'project-1'), a scene-files folder, an elsewhere folder and Documents. */
function setup() {
  const root = mkdtempSync(path.join(tmpdir(), 'rigwright-script-files-'));
  const folders = Object.fromEntries(
    ['project', 'scene', 'elsewhere', 'documents'].map((name) => {
      const folder = path.join(root, name);
      mkdirSync(folder);
      return [name, folder];
    }),
  ) as Record<'project' | 'scene' | 'elsewhere' | 'documents', string>;
  writeFileSync(path.join(folders.project, 'hand.rig.glb'), 'project');
  const files = new ScriptFilesMain({
    projectPath: (channel, token) => {
      if (token !== 'project-1') throw new IpcArgumentError(channel, 'token names no project file this app opened or saved');
      return path.join(folders.project, 'hand.rig.glb');
    },
    defaultFolder: () => folders.documents,
  });
  return { root, folders, files, window: {} };
}

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (file: string) => readFileSync(file, 'utf8');

test("a write inside the project's folder is made at once, relative or absolute, replacing a file there whole", async () => {
  const { folders, files, window } = setup();
  assert.deepEqual(await files.write(WRITE, window, { path: 'posed.obj', project: 'project-1', bytes: bytes('v 1 2 3\n') }), {
    written: 'posed.obj',
  });
  assert.equal(text(path.join(folders.project, 'posed.obj')), 'v 1 2 3\n');
  const absolute = path.join(folders.project, 'posed.obj');
  assert.deepEqual(await files.write(WRITE, window, { path: absolute, project: 'project-1', bytes: bytes('v 4 5 6\n') }), {
    written: 'posed.obj',
  });
  assert.equal(text(absolute), 'v 4 5 6\n', 'the old file replaced by the new one');
});

test('a write outside the folder answers `outside` and writes nothing; allowed, it writes there', async () => {
  const { folders, files, window } = setup();
  const target = path.join(folders.elsewhere, 'clip.glb');
  assert.deepEqual(await files.write(WRITE, window, { path: target, project: 'project-1', bytes: bytes('glb') }), { outside: true });
  assert.ok(!existsSync(target), 'nothing written before the user allowed it');
  assert.deepEqual(await files.write(WRITE, window, { path: '../elsewhere/clip.glb', project: 'project-1', bytes: bytes('glb') }), {
    outside: true,
  });
  assert.ok(!existsSync(target), 'a relative path out of the folder is outside too');
  assert.deepEqual(await files.write(WRITE, window, { path: target, project: 'project-1', outside: true, bytes: bytes('glb') }), {
    written: 'clip.glb',
  });
  assert.equal(text(target), 'glb');
});

test('a symbolic link inside the folder that leads out of it counts as outside, for reads and writes', async () => {
  const { folders, files, window } = setup();
  symlinkSync(folders.elsewhere, path.join(folders.project, 'link'));
  writeFileSync(path.join(folders.elsewhere, 'arm.tgf'), '1 0 0 0\n');
  assert.deepEqual(await files.write(WRITE, window, { path: 'link/out.obj', project: 'project-1', bytes: bytes('x') }), { outside: true });
  assert.ok(!existsSync(path.join(folders.elsewhere, 'out.obj')), 'nothing written through the link');
  assert.deepEqual(await files.read(READ, window, { path: 'link/arm.tgf', project: 'project-1' }), { outside: true });
});

test("with no project, the scene files' folder is the working folder; with neither, every path is outside", async () => {
  const { folders, files, window } = setup();
  writeFileSync(path.join(folders.scene, 'hand.off'), 'OFF\n0 0 0\n');
  assert.deepEqual(await files.read(READ, window, { path: 'hand.off' }), { outside: true }, 'no folder yet: Documents, outside');
  files.sceneFilesOpened(window, [path.join(folders.scene, 'hand.off'), path.join(folders.scene, 'hand.tgf')]);
  const answer = await files.read(READ, window, { path: 'hand.off' });
  assert.ok('files' in answer, 'read inside the scene files’ folder');
  assert.deepEqual(
    answer.files.map((f) => [f.name, new TextDecoder().decode(f.bytes)]),
    [['hand.off', 'OFF\n0 0 0\n']],
  );
  assert.deepEqual(await files.read(READ, {}, { path: 'hand.off' }), { outside: true }, 'another window has its own folder');
  assert.deepEqual(await files.write(WRITE, window, { path: 'weights.dmat', bytes: bytes('1 1\n1\n') }), { written: 'weights.dmat' });
  assert.equal(text(path.join(folders.scene, 'weights.dmat')), '1 1\n1\n');
  // The project, when there is one, is the working folder instead.
  await assert.rejects(
    files.read(READ, window, { path: 'hand.off', project: 'project-1' }),
    /hand\.off could not be opened: there is no such file/,
  );
  assert.deepEqual(await files.read(READ, window, { path: path.join(folders.scene, 'hand.off'), project: 'project-1' }), { outside: true });
});

test('a read outside the folder, allowed, reads the file; a missing file, a folder or another extension is refused by name', async () => {
  const { folders, files, window } = setup();
  writeFileSync(path.join(folders.elsewhere, 'hand.dmat'), '1 1\n0.5\n');
  const allowed = await files.read(READ, window, { path: path.join(folders.elsewhere, 'hand.dmat'), project: 'project-1', outside: true });
  assert.ok('files' in allowed && new TextDecoder().decode(allowed.files[0].bytes) === '1 1\n0.5\n', 'the outside file read once allowed');
  await assert.rejects(
    files.read(READ, window, { path: 'gone.off', project: 'project-1' }),
    /^Error: gone\.off could not be opened: there is no such file$/,
  );
  mkdirSync(path.join(folders.project, 'dir.obj'));
  await assert.rejects(files.read(READ, window, { path: 'dir.obj', project: 'project-1' }), /dir\.obj is not a file/);
  await assert.rejects(
    files.read(READ, window, { path: 'notes.txt', project: 'project-1' }),
    (error: unknown) => error instanceof IpcArgumentError && /notes\.txt: a script opens files ending in \.obj/.test(error.message),
  );
});

test('a .gltf is written with its resources beside it; a resource leaving the folder writes nothing', async () => {
  const { root, folders, files, window } = setup();
  const gltf = bytes(JSON.stringify({ asset: { version: '2.0' }, buffers: [{ uri: 'out.bin', byteLength: 4 }] }));
  const answer = await files.write(WRITE, window, {
    path: 'out.gltf',
    project: 'project-1',
    bytes: gltf,
    resources: [{ uri: 'out.bin', bytes: new Uint8Array([1, 2, 3, 4]) }],
  });
  assert.deepEqual(answer, { written: 'out.gltf' });
  assert.deepEqual([...readFileSync(path.join(folders.project, 'out.bin'))], [1, 2, 3, 4]);
  assert.ok(existsSync(path.join(folders.project, 'out.gltf')), 'the .gltf beside its buffer');
  await assert.rejects(
    files.write(WRITE, window, {
      path: 'x.gltf',
      project: 'project-1',
      bytes: gltf,
      resources: [{ uri: '../x.bin', bytes: new Uint8Array(4) }],
    }),
    (error: unknown) => error instanceof IpcArgumentError && error.channel === WRITE && /resources\[0\]\.uri/.test(error.reason),
  );
  assert.ok(!existsSync(path.join(root, 'x.bin')), 'nothing written');
});

test('bad requests are refused naming the channel and the field, before anything is written or asked', async () => {
  const { files, window } = setup();
  const refused = async (promise: Promise<unknown>, reason: RegExp) =>
    await assert.rejects(promise, (error: unknown) => error instanceof IpcArgumentError && reason.test(error.message));
  await refused(files.read(READ, window, 'hand.off'), /^rigwright:script-read-file: request must be an object$/);
  await refused(files.read(READ, window, { path: '' }), /path must be a non-empty string/);
  await refused(files.read(READ, window, { path: 'a\u0000.off' }), /path has control characters/);
  await refused(files.read(READ, window, { path: 'a.off', bytes: new Uint8Array(1) }), /unexpected/);
  await refused(files.read(READ, window, { path: 'a.off', outside: 'yes' }), /outside must be a boolean/);
  await refused(files.read(READ, window, { path: 'a.off', project: 'project-9' }), /token names no project file/);
  await refused(files.read(READ, window, { path: 'x'.repeat(5000) + '.off' }), /path is longer than 4096/);
  await refused(
    files.write(WRITE, window, { path: 'a.exe', project: 'project-1', bytes: new Uint8Array(1) }),
    /^rigwright:script-write-file: file name must end in one of/,
  );
  await refused(files.write(WRITE, window, { path: 'a.obj', project: 'project-1', bytes: 'v 1 2 3' }), /bytes must be a Uint8Array/);
  // Refused as such even where the answer would be `outside`: the page does not ask the user about a bad request.
  await refused(files.write(WRITE, window, { path: '/elsewhere/a.obj', project: 'project-1', bytes: 'v' }), /bytes must be a Uint8Array/);
});

test('a .gltf is read with the buffers and images it names; one a link takes out of its folder is refused by URI', async () => {
  const { folders, files, window } = setup();
  const gltf = JSON.stringify({
    asset: { version: '2.0' },
    buffers: [{ uri: 'fox.bin', byteLength: 2 }],
    images: [{ uri: 'textures/fur.png' }, { uri: 'data:image/png;base64,AAAA' }],
  });
  writeFileSync(path.join(folders.project, 'fox.gltf'), gltf);
  writeFileSync(path.join(folders.project, 'fox.bin'), new Uint8Array([7, 9]));
  mkdirSync(path.join(folders.project, 'textures'));
  writeFileSync(path.join(folders.project, 'textures', 'fur.png'), 'png');
  const answer = await files.read(READ, window, { path: 'fox.gltf', project: 'project-1' });
  assert.ok('files' in answer, 'read inside the folder');
  assert.deepEqual(
    answer.files.map((f) => [f.name, [...f.bytes].length]),
    [
      ['fox.gltf', gltf.length],
      ['fox.bin', 2],
      ['fur.png', 3],
    ],
  );
  assert.deepEqual([...answer.files[1].bytes], [7, 9]);

  writeFileSync(path.join(folders.elsewhere, 'secret.bin'), 'secret');
  symlinkSync(path.join(folders.elsewhere, 'secret.bin'), path.join(folders.project, 'linked.bin'));
  writeFileSync(path.join(folders.project, 'linked.gltf'), JSON.stringify({ asset: { version: '2.0' }, buffers: [{ uri: 'linked.bin' }] }));
  await assert.rejects(
    files.read(READ, window, { path: 'linked.gltf', project: 'project-1' }),
    /linked\.bin.*leads out of the asset's folder/,
  );
});
