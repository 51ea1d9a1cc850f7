/**
 * app/atomic-write.ts: a write replaces its targets whole or not at all. Failures are made real where the system
 * allows it (a file-size limit with `ulimit -f` in a child process gives EFBIG, as a full disk gives ENOSPC) and
 * injected otherwise (a write call that fails with ENOSPC after some bytes), and the old files are compared byte for
 * byte afterwards, with no temporary file left behind.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as fsPromises from 'node:fs/promises';
import { mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  AtomicWriteError,
  writeFileAtomic,
  writeFileAtomicSync,
  writeFilesAtomic,
  writeFilesAtomicSync,
  type AtomicAsyncFs,
  type AtomicSyncFs,
} from '../../app/atomic-write.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function freshFolder(): string {
  return mkdtempSync(path.join(tmpdir(), 'rigwright-atomic-'));
}

function enospc(): Error {
  return Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
}

/** node:fs whose writeSync fails with ENOSPC once `budget` bytes have gone to files named like `victim`. */
function fullDiskSync(victim: string, budget: number): AtomicSyncFs {
  let written = 0;
  const names = new Map<number, string>();
  return {
    ...fs,
    openSync: ((file: string, flags: string, mode?: number) => {
      const descriptor = fs.openSync(file, flags, mode);
      names.set(descriptor, file);
      return descriptor;
    }) as typeof fs.openSync,
    writeSync: ((descriptor: number, buffer: Uint8Array, offset: number, length: number) => {
      if (!(names.get(descriptor) ?? '').includes(victim)) return fs.writeSync(descriptor, buffer, offset, length);
      const allowed = Math.min(length, budget - written);
      if (allowed <= 0) throw enospc();
      written += allowed;
      return fs.writeSync(descriptor, buffer, offset, allowed);
    }) as typeof fs.writeSync,
  };
}

test('a new file is written whole, an existing one replaced keeping its mode, and no temporary file stays', () => {
  const folder = freshFolder();
  const target = path.join(folder, 'weights.dmat');
  writeFileAtomicSync(target, '2 1\n0.25\n0.75\n');
  assert.equal(readFileSync(target, 'utf8'), '2 1\n0.25\n0.75\n');
  fs.chmodSync(target, 0o640);
  const bytes = Uint8Array.from({ length: 300_000 }, (_, i) => (i * 7) & 255);
  writeFileAtomicSync(target, bytes);
  assert.deepEqual(new Uint8Array(readFileSync(target)), bytes);
  assert.equal(statSync(target).mode & 0o777, 0o640);
  assert.deepEqual(readdirSync(folder), ['weights.dmat']);
});

test('a target that is a symbolic link is written through it: the link stays, the file it names changes', () => {
  const folder = freshFolder();
  const real = path.join(folder, 'real.obj');
  const link = path.join(folder, 'link.obj');
  writeFileSync(real, 'old');
  symlinkSync(real, link);
  writeFileAtomicSync(link, 'new');
  assert.ok(fs.lstatSync(link).isSymbolicLink(), 'the link is still a symbolic link after the write through it');
  assert.equal(readFileSync(real, 'utf8'), 'new');
});

test('a full disk while writing the second file of a set leaves both old files whole and names the file', () => {
  const folder = freshFolder();
  const gltf = path.join(folder, 'rig.gltf');
  const bin = path.join(folder, 'rig.bin');
  writeFileSync(gltf, '{"old":true}');
  writeFileSync(bin, 'old buffer');
  const io = fullDiskSync('rig.bin', 1000);
  assert.throws(
    () =>
      writeFilesAtomicSync(
        [
          { path: gltf, contents: '{"new":true}' },
          { path: bin, contents: new Uint8Array(5000).fill(1) },
        ],
        { fs: io },
      ),
    (error: unknown) => {
      assert.ok(error instanceof AtomicWriteError, 'the failure is an AtomicWriteError');
      assert.equal(error.code, 'ENOSPC');
      assert.equal(error.file, bin);
      assert.equal(error.message, `cannot write ${bin}: the disk is full`);
      return true;
    },
  );
  assert.equal(readFileSync(gltf, 'utf8'), '{"old":true}');
  assert.equal(readFileSync(bin, 'utf8'), 'old buffer');
  assert.deepEqual(readdirSync(folder).sort(), ['rig.bin', 'rig.gltf']);
});

test('the asynchronous writer: a set replaces every file; a full disk halfway leaves every old file whole', async () => {
  const folder = freshFolder();
  const a = path.join(folder, 'a.obj');
  const b = path.join(folder, 'b.tgf');
  writeFileSync(a, 'old a');
  writeFileSync(b, 'old b');
  await writeFilesAtomic([
    { path: a, contents: 'new a' },
    { path: b, contents: 'new b' },
  ]);
  assert.equal(readFileSync(a, 'utf8'), 'new a');
  assert.equal(readFileSync(b, 'utf8'), 'new b');

  let writes = 0;
  const io: AtomicAsyncFs = {
    ...fsPromises,
    open: (async (file: string, flags: string, mode?: number) => {
      const handle = await fsPromises.open(file, flags, mode);
      if (!file.includes('b.tgf')) return handle;
      return Object.assign(Object.create(handle) as fsPromises.FileHandle, {
        write: async (buffer: Uint8Array, offset: number, length: number) => {
          if (++writes > 1) throw enospc();
          return handle.write(buffer, offset, Math.min(length, 10));
        },
        chmod: (m: number) => handle.chmod(m),
        sync: () => handle.sync(),
        close: () => handle.close(),
      });
    }) as typeof fsPromises.open,
  };
  await assert.rejects(
    writeFilesAtomic(
      [
        { path: a, contents: 'newer a' },
        { path: b, contents: 'x'.repeat(100) },
      ],
      { fs: io },
    ),
    (error: unknown) => error instanceof AtomicWriteError && error.code === 'ENOSPC' && error.file === b,
  );
  assert.equal(readFileSync(a, 'utf8'), 'new a');
  assert.equal(readFileSync(b, 'utf8'), 'new b');
  assert.deepEqual(readdirSync(folder).sort(), ['a.obj', 'b.tgf']);
});

test('one path twice in a set is refused before anything is written', async () => {
  const folder = freshFolder();
  const target = path.join(folder, 'x.obj');
  assert.throws(
    () =>
      writeFilesAtomicSync([
        { path: target, contents: 'a' },
        { path: path.join(folder, '.', 'x.obj'), contents: 'b' },
      ]),
    /the same file is twice/,
  );
  await assert.rejects(writeFileAtomic(path.join(folder, 'missing-folder', 'x.obj'), 'a'), /cannot write .*: no such file or folder/);
  assert.deepEqual(readdirSync(folder), []);
});

test('a real file-size limit (ulimit -f, EFBIG as on a full disk) leaves the larger old file whole', () => {
  const folder = freshFolder();
  const target = path.join(folder, 'big.glb');
  const old = Uint8Array.from({ length: 2_400_000 }, (_, i) => (i * 13) & 255);
  writeFileSync(target, old);
  const script = `import { writeFileAtomicSync } from ${JSON.stringify(path.join(repoRoot, 'app/atomic-write.ts'))};
try { writeFileAtomicSync(${JSON.stringify(target)}, new Uint8Array(2_500_000).fill(7)); console.log('written'); }
catch (error) { console.log(error.message); process.exitCode = 1; }`;
  const run = spawnSync('bash', ['-c', 'ulimit -f 1024 && exec "$0" --import tsx --input-type=module -e "$1"', process.execPath, script], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
  assert.equal(run.status, 1, run.stderr);
  assert.equal(run.stdout.trim(), `cannot write ${target}: the file is larger than this system allows (file size limit)`);
  assert.deepEqual(new Uint8Array(readFileSync(target)), old);
  assert.deepEqual(readdirSync(folder), ['big.glb']);
});

test('createFolders makes the missing folders of a set; a write that fails removes the folders it made and every temporary file', async () => {
  const folder = freshFolder();
  const gltf = path.join(folder, 'out', 'asset.gltf');
  const image = path.join(folder, 'out', 'textures', 'skin.png');
  writeFilesAtomicSync(
    [
      { path: image, contents: 'png' },
      { path: gltf, contents: '{}' },
    ],
    { createFolders: true },
  );
  assert.equal(readFileSync(image, 'utf8'), 'png');
  assert.equal(readFileSync(gltf, 'utf8'), '{}');

  // A full disk on the last file: the folders this write made are gone again, the existing ones stay as they were.
  const deep = path.join(folder, 'out', 'new', 'deeper', 'x.bin');
  assert.throws(
    () =>
      writeFilesAtomicSync(
        [
          { path: deep, contents: 'x' },
          { path: path.join(folder, 'out', 'other', 'big.bin'), contents: new Uint8Array(5000) },
        ],
        { fs: fullDiskSync('big.bin', 1000), createFolders: true },
      ),
    (error: unknown) => error instanceof AtomicWriteError && error.code === 'ENOSPC',
    'the full disk is reported',
  );
  assert.deepEqual(readdirSync(path.join(folder, 'out')).sort(), ['asset.gltf', 'textures'], 'new/, new/deeper/ and other/ were removed');
  await writeFilesAtomic([{ path: deep, contents: 'x' }], { createFolders: true });
  assert.equal(readFileSync(deep, 'utf8'), 'x');

  // Without it a missing folder still fails; a file where a folder must go is said in words.
  assert.throws(
    () => writeFileAtomicSync(path.join(folder, 'missing', 'x.obj'), 'a'),
    /no such file or folder/,
    'no folder is made unasked',
  );
  assert.throws(
    () => writeFilesAtomicSync([{ path: path.join(gltf, 'x.png'), contents: 'a' }], { createFolders: true }),
    (error: unknown) => error instanceof AtomicWriteError && error.message === `cannot write ${gltf}: a file of that name is already there`,
    'a file in the way of a folder',
  );
  assert.deepEqual(readdirSync(folder), ['out']);
});
