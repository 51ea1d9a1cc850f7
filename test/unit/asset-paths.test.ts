/**
 * A downloaded asset cannot touch files outside its folder: the one rule for resource URIs (resource-path.ts) by
 * hand-made cases, and `rigwright info`, `import` and `export --base` on a .gltf whose image URI is `../x.png`,
 * `/etc/hostname`, `%2e%2e/x.png` or a symbolic link out of its folder, each run listing the whole work tree before
 * and after. Written resources stay inside the output folder (subfolders made, a linked subfolder refused), the
 * output folder of `import` fails fast and in words, and the web page's save of a .gltf with its resources writes
 * the same set.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { NodeIO } from '@gltf-transform/core';
import { FormatError } from '../../workers/formats/format-error.ts';
import { gltfResources } from '../../workers/formats/gltf-resource-uris.ts';
import { importGltf } from '../../workers/formats/gltf-import.ts';
import { referencedPath, resourcePath } from '../../workers/formats/resource-path.ts';
import { saveAssetOnTheWeb, type WebFolderHandle } from '../../renderer/io/web-asset-save.ts';
import { saveRequestedAsset } from '../../app/save-file.ts';
import { TEXTURE, texturedAsset } from './gltf-build.ts';
import { png } from './png-file.ts';
import { repoRoot } from './shared-data.ts';

const work = mkdtempSync(path.join(tmpdir(), 'rigwright-asset-paths-'));

function rigwright(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ['app/cli/rigwright.mjs', ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Every entry below `folder`: a file with its bytes (base64), a folder, or a link with its target. */
function tree(folder: string): Record<string, string> {
  const entries: Record<string, string> = {};
  const walk = (at: string, prefix: string): void => {
    for (const name of readdirSync(at).sort()) {
      const full = path.join(at, name);
      const shown = `${prefix}${name}`;
      const info = lstatSync(full);
      if (info.isSymbolicLink()) entries[shown] = `link to ${readlinkSync(full)}`;
      else if (info.isDirectory()) {
        entries[`${shown}/`] = 'folder';
        walk(full, `${shown}/`);
      } else entries[shown] = readFileSync(full).toString('base64');
    }
  };
  walk(folder, '');
  return entries;
}

/** A weights DMAT (3 vertices × 1 bone, every weight 1: the asset's one joint), written in `folder`. */
function weightsFile(folder: string): string {
  const file = path.join(folder, 'weights.dmat');
  writeFileSync(file, '1 3\n1\n1\n1\n');
  return file;
}

/** Writes the asset into `folder` (`asset.gltf`, `asset.bin`, `textures/skin.png`) with its image named by `imageUri`. */
async function writeAsset(folder: string, imageUri = 'textures/skin.png'): Promise<string> {
  const { json, bin } = await texturedAsset();
  json.images[0].uri = imageUri;
  mkdirSync(path.join(folder, 'textures'), { recursive: true });
  writeFileSync(path.join(folder, 'asset.gltf'), JSON.stringify(json));
  writeFileSync(path.join(folder, 'asset.bin'), bin);
  writeFileSync(path.join(folder, 'textures', 'skin.png'), TEXTURE);
  return path.join(folder, 'asset.gltf');
}

test('resourcePath: a URI names a file inside the folder, percent-decoded once; anything else is refused naming the URI', () => {
  const accepted: [string, string][] = [
    ['skin.png', 'skin.png'],
    ['textures/skin.png', 'textures/skin.png'],
    ['./textures//skin.png', 'textures/skin.png'],
    ['textures/../skin.png', 'skin.png'],
    ['textures\\skin.png', 'textures/skin.png'],
    ['my%20textures/skin%2Dred.png', 'my textures/skin-red.png'],
    // Decoded once only: %25 is '%', so %252e%252e is a folder named `%2e%2e`, not `..`.
    ['%252e%252e/x.png', '%2e%2e/x.png'],
    // A malformed escape is a literal '%'.
    ['100%.bin', '100%.bin'],
    ['textures/con-art.png', 'textures/con-art.png'],
  ];
  for (const [uri, expected] of accepted) assert.equal(resourcePath(uri, 'asset.gltf'), expected, uri);

  const refused: [string, string][] = [
    ['../x.png', "leads out of the asset's folder"],
    ['%2e%2e/x.png', "leads out of the asset's folder"],
    ['..%2Fx.png', "leads out of the asset's folder"],
    ['textures/../../x.png', "leads out of the asset's folder"],
    ['..\\x.png', "leads out of the asset's folder"],
    ['textures\\..\\..\\x.png', "leads out of the asset's folder"],
    ['/etc/hostname', 'is an absolute path'],
    ['%2Fetc%2Fhostname', 'is an absolute path'],
    ['\\\\server\\share\\x.png', 'is an absolute path'],
    ['//server/share/x.png', 'is an absolute path'],
    ['C:\\Users\\x.png', 'is an absolute path (a drive letter)'],
    ['c:x.png', 'is an absolute path (a drive letter)'],
    // Names Windows reads as something else: a data stream, devices, a trailing dot or space dropped.
    ['textures/a:b.png', 'has ":" in a name, which Windows allows in no file name'],
    ['x.png:stream', 'has ":" in a name, which Windows allows in no file name'],
    ['textures/skin?.png', 'has "?" in a name, which Windows allows in no file name'],
    ['CON.png', 'names the device CON, not a file'],
    ['textures/nul.bin', 'names the device NUL, not a file'],
    ['com1', 'names the device COM1, not a file'],
    ['sub./x.png', 'has a name ending in a dot or a space, which Windows drops'],
    ['x.png ', 'has a name ending in a dot or a space, which Windows drops'],
    ['C%3A/x.png', 'is an absolute path (a drive letter)'],
    ['file:///etc/hostname', "is a file: URI, not a file in the asset's folder"],
    ['HTTP://example.com/x.png', "is a http: URI, not a file in the asset's folder"],
    ['x.png%00.bin', 'has a control character'],
    ['x.png\u0000', 'has a control character'],
    ['', 'names a folder, not a file'],
    ['textures/', 'names a folder, not a file'],
    ['%2e', 'names a folder, not a file'],
    ['textures/..', 'names a folder, not a file'],
  ];
  for (const [uri, reason] of refused) {
    assert.throws(
      () => resourcePath(uri, 'asset.gltf'),
      (error: unknown) =>
        error instanceof FormatError &&
        error.message === `asset.gltf: resource URI ${JSON.stringify(uri)} ${reason}` &&
        !error.message.includes('\n'),
      `${JSON.stringify(uri)} is refused: ${reason}`,
    );
  }
});

test("referencedPath: an MTL's map_Kd is relative to its library's folder and may not leave the OBJ's folder; no decoding", () => {
  assert.equal(referencedPath('../textures/skin.png', 'materials'), 'textures/skin.png');
  assert.equal(referencedPath('skin%20red.png', ''), 'skin%20red.png');
  assert.deepEqual(referencedPath('../../skin.png', 'materials'), { reason: "leads out of the asset's folder" });
  assert.deepEqual(referencedPath('C:\\Users\\artist\\skin.png', ''), { reason: 'is an absolute path (a drive letter)' });
});

test('gltfResources: the URIs as written with their paths, once each; a .gltf naming a file outside is refused', async () => {
  const { json } = await texturedAsset();
  const bytes = new TextEncoder().encode(JSON.stringify(json));
  assert.deepEqual(gltfResources(bytes, 'asset.gltf'), [
    { uri: 'asset.bin', path: 'asset.bin' },
    { uri: 'textures/skin.png', path: 'textures/skin.png' },
  ]);
  json.images[0].uri = '%2e%2e/x.png';
  assert.throws(
    () => gltfResources(new TextEncoder().encode(JSON.stringify(json)), 'asset.gltf'),
    /^FormatError: asset\.gltf: resource URI "%2e%2e\/x\.png" leads out of the asset's folder$/,
  );
});

const ESCAPES: { name: string; uri: string; message: string }[] = [
  { name: 'dot-dot', uri: '../x.png', message: `resource URI "../x.png" leads out of the asset's folder` },
  { name: 'absolute', uri: '/etc/hostname', message: 'resource URI "/etc/hostname" is an absolute path' },
  { name: 'encoded', uri: '%2e%2e/x.png', message: `resource URI "%2e%2e/x.png" leads out of the asset's folder` },
  {
    name: 'symlink',
    uri: 'textures/link.png',
    message: `resource URI "textures/link.png" leads out of the asset's folder through a symbolic link`,
  },
];

for (const escape of ESCAPES) {
  test(`a .gltf whose image URI is ${escape.uri} (${escape.name}) is refused by info, import and export --base; nothing is written`, async () => {
    const root = path.join(work, `escape-${escape.name}`);
    const folder = path.join(root, 'asset');
    const file = await writeAsset(folder, escape.uri);
    writeFileSync(path.join(root, 'x.png'), 'a file beside the asset folder');
    mkdirSync(path.join(root, 'outside'));
    writeFileSync(path.join(root, 'outside', 'secret.png'), 'a file elsewhere');
    symlinkSync(path.join('..', '..', 'outside', 'secret.png'), path.join(folder, 'textures', 'link.png'));
    mkdirSync(path.join(root, 'exported'));
    const before = tree(root);

    const info = rigwright('info', file);
    assert.equal(info.status, 1, `info: ${info.stderr}`);
    assert.equal(info.stderr, `rigwright: ${file}: ${escape.message}\n`, 'info names the file and the URI');

    const imported = rigwright('import', file, '--out-dir', path.join(root, 'imported'));
    assert.equal(imported.status, 1, `import: ${imported.stderr}`);
    assert.equal(imported.stderr, `rigwright: ${file}: ${escape.message}\n`, 'import names the file and the URI');

    const exported = rigwright('export', '--base', file, '--out', path.join(root, 'exported', 'edited.gltf'));
    assert.equal(exported.status, 1, `export --base: ${exported.stderr}`);
    assert.equal(exported.stderr, `rigwright: ${file}: ${escape.message}\n`, 'export --base names the file and the URI');

    assert.deepEqual(tree(root), before, 'no file or folder was written, changed or made anywhere');
  });
}

test('a resource that is a named pipe is refused naming its URI, at once (reading it would wait for ever)', async () => {
  const root = path.join(work, 'pipe');
  const file = await writeAsset(path.join(root, 'asset'), 'textures/pipe.png');
  const made = spawnSync('mkfifo', [path.join(root, 'asset', 'textures', 'pipe.png')]);
  assert.equal(made.status, 0, `mkfifo: ${String(made.stderr)}`);
  for (const args of [
    ['info', file],
    ['import', file, '--out-dir', path.join(root, 'imported')],
  ]) {
    const result = rigwright(...args);
    assert.equal(result.status, 1, `${args[0]}: ${result.stderr}`);
    assert.equal(
      result.stderr,
      `rigwright: ${file}: resource URI "textures/pipe.png" names a folder, pipe or device, not a file\n`,
      `${args[0]} names the URI`,
    );
  }
});

test('export --base of a .gltf with its image in textures/ into a new folder: the subfolder is made, the image byte for byte', async () => {
  const root = path.join(work, 'textures-round-trip');
  const file = await writeAsset(path.join(root, 'asset'));
  const out = path.join(root, 'fresh');
  mkdirSync(out);
  const result = rigwright('export', '--base', file, '--out', path.join(out, 'edited.gltf'));
  assert.equal(result.status, 0, result.stderr);
  // The buffer is named after the output, the image keeps its URI.
  assert.deepEqual(
    Object.keys(tree(out)),
    ['edited.bin', 'edited.gltf', 'textures/', 'textures/skin.png'],
    'the .gltf, its .bin and textures/',
  );
  assert.deepEqual(readFileSync(path.join(out, 'textures', 'skin.png')), Buffer.from(TEXTURE), 'the image as the base had it');
  const written = readFileSync(path.join(out, 'edited.gltf'));
  assert.deepEqual(gltfResources(written, 'edited.gltf'), [
    { uri: 'edited.bin', path: 'edited.bin' },
    { uri: 'textures/skin.png', path: 'textures/skin.png' },
  ]);
  const again = await importGltf(written, 'edited.gltf', {
    'edited.bin': readFileSync(path.join(out, 'edited.bin')),
    'textures/skin.png': readFileSync(path.join(out, 'textures', 'skin.png')),
  });
  assert.deepEqual(Buffer.from(again.look.materials[0].baseColorTexture?.bytes ?? []), TEXTURE, 'the re-read asset draws the same image');

  // Beside the base, under another name: the base's own files stay as they were (its .bin is not the export's).
  const before = tree(path.join(root, 'asset'));
  const beside = rigwright('export', '--base', file, '--weights', weightsFile(root), '--out', path.join(root, 'asset', 'edited.gltf'));
  assert.equal(beside.status, 0, beside.stderr);
  const after = tree(path.join(root, 'asset'));
  for (const [name, bytes] of Object.entries(before)) assert.equal(after[name], bytes, `${name} is unchanged by an export beside it`);
  assert.deepEqual(
    Object.keys(after).filter((name) => !(name in before)),
    ['edited.bin', 'edited.gltf'],
    'the export beside the base adds its .gltf and its own .bin',
  );

  // In place over itself: the same files again.
  const inPlace = rigwright('export', '--base', file, '--out', file);
  assert.equal(inPlace.status, 0, inPlace.stderr);
  assert.deepEqual(readFileSync(path.join(root, 'asset', 'textures', 'skin.png')), Buffer.from(TEXTURE));
});

test("a .gltf's buffer is named after it, percent-encoded: a '#' or '%' in the output's name stays in its .bin's name", async () => {
  const root = path.join(work, 'odd-names');
  mkdirSync(root, { recursive: true });
  writeFileSync(path.join(root, 'm.obj'), 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n');
  writeFileSync(path.join(root, 's.tgf'), '1 0 0 0\n2 0 1 0\n#\n1 2\n');
  const weights = weightsFile(root);
  for (const [name, uri] of [
    ['x#1', 'x%231.bin'],
    ['a%2fb', 'a%252fb.bin'],
    ['50% off', '50%25%20off.bin'],
  ]) {
    const out = path.join(root, `${name}.gltf`);
    const fresh = rigwright(
      'export',
      '--mesh',
      path.join(root, 'm.obj'),
      '--skeleton',
      path.join(root, 's.tgf'),
      '--weights',
      weights,
      '--out',
      out,
    );
    assert.equal(fresh.status, 0, `${name}: ${fresh.stderr}`);
    const written = readFileSync(out);
    assert.deepEqual(gltfResources(written, `${name}.gltf`), [{ uri, path: `${name}.bin` }], `${name}.gltf names ${name}.bin`);
    assert.ok(existsSync(path.join(root, `${name}.bin`)), `${name}.bin is written beside it`);
    const rig = await importGltf(written, `${name}.gltf`, { [uri]: readFileSync(path.join(root, `${name}.bin`)) });
    assert.equal(rig.mesh.positions.length, 9, `${name}.gltf reads back with its .bin`);
    // The same for an in-place export of it.
    const edited = path.join(root, `${name} (edited).gltf`);
    const inPlace = rigwright('export', '--base', out, '--out', edited);
    assert.equal(inPlace.status, 0, `${name} in place: ${inPlace.stderr}`);
    assert.deepEqual(
      gltfResources(readFileSync(edited), 'edited.gltf').map((r) => r.path),
      [`${name} (edited).bin`],
      `the in-place export of ${name}.gltf names its own .bin`,
    );
  }
  assert.deepEqual(
    readdirSync(root).filter((entry) => lstatSync(path.join(root, entry)).isDirectory()),
    [],
    'no folder is made from a name with an encoded slash',
  );
});

test('export --base refuses to write a resource through a linked subfolder of the output folder, before writing anything', async () => {
  const root = path.join(work, 'linked-output');
  const file = await writeAsset(path.join(root, 'asset'));
  const out = path.join(root, 'out');
  mkdirSync(out);
  mkdirSync(path.join(root, 'elsewhere'));
  symlinkSync(path.join('..', 'elsewhere'), path.join(out, 'textures'));
  const before = tree(root);
  const target = path.join(out, 'edited.gltf');
  const result = rigwright('export', '--base', file, '--out', target);
  assert.equal(result.status, 1, result.stderr);
  assert.equal(
    result.stderr,
    `rigwright: ${target}: resource URI "textures/skin.png" leads out of the output folder through a symbolic link\n`,
  );
  assert.deepEqual(tree(root), before, 'nothing was written, in the output folder or where its link leads');
});

test('import --out-dir fails at once, in words, where no folder can be: under /proc, in place of a file, below a file', async () => {
  const root = path.join(work, 'out-dir');
  const file = await writeAsset(path.join(root, 'asset'));
  const plain = path.join(root, 'plain.txt');
  writeFileSync(plain, 'a file');
  const cases: [string, string][] = [
    [plain, 'a file of that name is already there'],
    [path.join(plain, 'sub'), `${plain} is a file, not a folder`],
  ];
  if (existsSync('/proc/self')) cases.push(['/proc/rigwright-import', 'the system does not allow a folder there']);
  else console.log('SKIP /proc: this system has no /proc');
  for (const [outDir, reason] of cases) {
    const started = performance.now();
    const result = rigwright('import', file, '--out-dir', outDir);
    assert.equal(result.status, 1, `${outDir}: ${result.stderr}`);
    assert.equal(result.stderr, `rigwright: ${outDir}: cannot create the folder: ${reason}\n`);
    assert.ok(performance.now() - started < 30_000, `${outDir}: answered in ${performance.now() - started} ms`);
  }
  // Writing below a file: said in words, not as ENOTDIR.
  const below = rigwright('export', '--base', file, '--out', path.join(plain, 'edited.glb'));
  assert.equal(below.status, 1, below.stderr);
  assert.equal(
    below.stderr,
    `rigwright: ${path.join(plain, 'edited.glb')}: cannot write the file: a part of the path is a file, not a folder\n`,
  );
  assert.deepEqual(readdirSync(root).sort(), ['asset', 'plain.txt'], 'no folder was left behind');
});

/** A File System Access folder in memory: files by path, folders made on the way. */
function memoryFolder(files: Map<string, Uint8Array>, at = ''): WebFolderHandle {
  return {
    getDirectoryHandle: (name) => Promise.resolve(memoryFolder(files, `${at}${name}/`)),
    getFileHandle: (name) =>
      Promise.resolve({
        createWritable: () => {
          const parts: Uint8Array[] = [];
          return Promise.resolve({
            write: (data: Uint8Array) => Promise.resolve(void parts.push(data.slice())),
            close: () => Promise.resolve(void files.set(`${at}${name}`, Buffer.concat(parts))),
          });
        },
      }),
  };
}

test('the web page saves a .gltf with its resources as one set: a folder where it can, else downloads it renames consistently', async () => {
  const { json, bin } = await texturedAsset();
  const gltf = new TextEncoder().encode(JSON.stringify(json));
  const request = {
    suggestedName: 'asset.gltf',
    bytes: gltf,
    resources: [
      { uri: 'asset.bin', bytes: bin },
      { uri: 'textures/skin.png', bytes: TEXTURE },
    ],
  };
  // With a folder picker: one question, the files at their paths.
  const written = new Map<string, Uint8Array>();
  let asked = 0;
  const access = {
    showDirectoryPicker: () => {
      asked++;
      return Promise.resolve(memoryFolder(written));
    },
  };
  const downloads: [string, Uint8Array][] = [];
  const download = (name: string, bytes: Uint8Array) => Promise.resolve(downloads.push([name, bytes]) > 0);
  assert.equal(await saveAssetOnTheWeb(request, access, download), true);
  assert.equal(asked, 1, 'one folder picker for the asset');
  assert.deepEqual([...written.keys()], ['asset.bin', 'textures/skin.png', 'asset.gltf'], 'resources first, the .gltf last');
  assert.deepEqual(written.get('textures/skin.png'), Buffer.from(TEXTURE));
  assert.deepEqual(written.get('asset.gltf'), Buffer.from(gltf), 'the .gltf as exported');
  assert.equal(downloads.length, 0, 'nothing was downloaded');

  // Cancelling the picker saves nothing.
  const cancel = { showDirectoryPicker: () => Promise.reject(new DOMException('cancelled', 'AbortError')) };
  assert.equal(await saveAssetOnTheWeb(request, cancel, download), false);
  assert.equal(downloads.length, 0, 'nothing was downloaded');

  // Without one: downloads, the subfolder flattened into the name and the .gltf naming the flattened file.
  assert.equal(
    await saveAssetOnTheWeb({ ...request, resources: [...request.resources, { uri: 'textures_skin.png', bytes: bin }] }, {}, download),
    true,
  );
  assert.deepEqual(
    downloads.map(([name]) => name),
    ['asset.bin', 'textures_skin-2.png', 'textures_skin.png', 'asset.gltf'],
  );
  const saved = downloads[3][1];
  const resources = Object.fromEntries(downloads.slice(0, 3).map(([name, bytes]) => [name, bytes]));
  const images = (JSON.parse(new TextDecoder().decode(saved)) as { images: { uri: string }[] }).images;
  assert.deepEqual(
    images.map((image) => image.uri),
    ['textures_skin-2.png'],
    'the .gltf names the downloaded image',
  );
  const reread = await importGltf(saved, 'asset.gltf', resources);
  assert.deepEqual(Buffer.from(reread.look.materials[0].baseColorTexture?.bytes ?? []), TEXTURE, 'the downloads load together');

  // Flat assets download as they are; a URI out of the folder is refused before anything is saved.
  downloads.length = 0;
  assert.equal(await saveAssetOnTheWeb({ ...request, resources: [request.resources[0]] }, access, download), true);
  assert.deepEqual(
    downloads.map(([name, bytes]) => [name, bytes]),
    [
      ['asset.bin', bin],
      ['asset.gltf', gltf],
    ],
  );
  downloads.length = 0;
  await assert.rejects(
    saveAssetOnTheWeb({ ...request, resources: [{ uri: '../x.png', bytes: TEXTURE }] }, access, download),
    /asset\.gltf: resource URI "\.\.\/x\.png" leads out of the asset's folder/,
  );
  assert.equal(downloads.length, 0, 'nothing was downloaded');
  // Two URIs for one file (by case, or by an escape) are refused before anything is saved.
  for (const twin of ['TEXTURES/Skin.png', 'textures/skin%2Epng']) {
    await assert.rejects(
      saveAssetOnTheWeb({ ...request, resources: [...request.resources, { uri: twin, bytes: TEXTURE }] }, access, download),
      (error: unknown) =>
        error instanceof FormatError && error.message === `asset.gltf: resource URI ${JSON.stringify(twin)} names a file another one names`,
      twin,
    );
  }
  assert.equal(downloads.length, 0, 'nothing was downloaded for the twins');
});

test("export --mesh: an OBJ's mtllib and map_Kd are read inside its folder only; outside ones are not read (the image by base name next to the library)", async () => {
  const root = path.join(work, 'obj');
  const dir = path.join(root, 'model');
  mkdirSync(path.join(dir, 'materials'), { recursive: true });
  mkdirSync(path.join(dir, 'textures'));
  const inside = png(1, 1, Uint8Array.of(0, 255, 0, 255));
  const outside = png(1, 1, Uint8Array.of(255, 0, 0, 255));
  writeFileSync(path.join(dir, 'textures', 'skin.png'), inside);
  writeFileSync(path.join(dir, 'materials', 'skin.png'), inside);
  writeFileSync(path.join(root, 'skin.png'), outside);
  writeFileSync(path.join(root, 'secret.mtl'), 'newmtl felt\nKd 1 0 0\n');
  // `skin` names its image up and over into textures/ (inside), `eye` an image outside the folder, and the second
  // library is outside: not read.
  writeFileSync(path.join(dir, 'materials', 'a.mtl'), 'newmtl skin\nmap_Kd ../textures/skin.png\nnewmtl eye\nmap_Kd ../../skin.png\n');
  writeFileSync(
    path.join(dir, 'a.obj'),
    [
      'mtllib materials/a.mtl ../secret.mtl',
      'v 0 0 0\nv 1 0 0\nv 0 1 0',
      'vt 0 0\nvt 1 0\nvt 0 1',
      'usemtl skin',
      'f 1/1 2/2 3/3',
      'usemtl eye',
      'f 1/1 3/3 2/2',
      '',
    ].join('\n'),
  );
  writeFileSync(path.join(dir, 's.tgf'), '1 0 0 0\n2 0 1 0\n#\n1 2\n');
  writeFileSync(path.join(dir, 'w.dmat'), '1 3\n1\n1\n1\n');
  const out = path.join(dir, 'a.glb');
  const obj = path.join(dir, 'a.obj');
  const run = rigwright(
    'export',
    '--mesh',
    obj,
    '--skeleton',
    path.join(dir, 's.tgf'),
    '--weights',
    path.join(dir, 'w.dmat'),
    '--out',
    out,
  );
  assert.equal(run.status, 0, run.stderr);
  assert.match(
    run.stderr,
    new RegExp(`rigwright: warning: ${obj}: mtllib "\\.\\./secret\\.mtl" leads out of the asset's folder; it is not read\n`),
  );
  const doc = await new NodeIO().readBinary(new Uint8Array(readFileSync(out)));
  const images = doc
    .getRoot()
    .listTextures()
    .map((texture) => Buffer.from(texture.getImage() ?? []));
  assert.ok(images.length > 0, 'the materials have images');
  for (const image of images) assert.deepEqual(image, inside, 'every image is the one inside the folder, none from outside it');
  assert.ok(
    !doc
      .getRoot()
      .listMaterials()
      .some((material) => material.getName() === 'felt'),
    'the library outside was not read',
  );
});

test('the desktop save of a .gltf with resources refuses a chosen folder whose subfolder links out of it, before writing anything', async () => {
  const root = path.join(work, 'desktop-save');
  const chosen = path.join(root, 'chosen');
  mkdirSync(path.join(root, 'elsewhere'), { recursive: true });
  mkdirSync(chosen);
  symlinkSync(path.join('..', 'elsewhere'), path.join(chosen, 'textures'));
  const before = tree(root);
  const request = {
    suggestedName: 'asset.gltf',
    bytes: new TextEncoder().encode('{}'),
    resources: [
      { uri: 'asset.bin', bytes: new Uint8Array(4) },
      { uri: 'textures/skin.png', bytes: TEXTURE },
    ],
  };
  await assert.rejects(
    saveRequestedAsset(request, () => Promise.resolve(path.join(chosen, 'asset.gltf'))),
    (error: unknown) =>
      error instanceof FormatError &&
      error.message === 'asset.gltf: resource URI "textures/skin.png" leads out of the output folder through a symbolic link',
    'refused naming the URI and the base name only',
  );
  assert.deepEqual(tree(root), before, 'nothing was written');

  // A URI out of the folder is refused before the dialog is shown.
  let asked = 0;
  await assert.rejects(
    saveRequestedAsset({ ...request, resources: [{ uri: '../skin.png', bytes: TEXTURE }] }, () => Promise.resolve(String(++asked))),
    /resources\[0\]\.uri: resource URI "\.\.\/skin\.png" leads out of the asset's folder/,
  );
  assert.equal(asked, 0, 'no dialog for a refused request');

  // Into a plain folder: every file, the subfolder made.
  rmSync(path.join(chosen, 'textures'));
  assert.equal(await saveRequestedAsset(request, () => Promise.resolve(path.join(chosen, 'asset.gltf'))), true);
  assert.deepEqual(Object.keys(tree(chosen)), ['asset.bin', 'asset.gltf', 'textures/', 'textures/skin.png']);
  assert.deepEqual(readFileSync(path.join(chosen, 'textures', 'skin.png')), TEXTURE);

  // Saved under another name beside it: the buffer goes by the new name and the .gltf refers to it; the first asset's
  // files stay as they were.
  const { json, bin } = await texturedAsset();
  const saved = {
    ...request,
    bytes: new TextEncoder().encode(JSON.stringify(json)),
    resources: [{ uri: 'asset.bin', bytes: bin }, request.resources[1]],
  };
  const first = tree(chosen);
  assert.equal(await saveRequestedAsset(saved, () => Promise.resolve(path.join(chosen, 'hero edited.gltf'))), true);
  const after = tree(chosen);
  for (const [name, bytes] of Object.entries(first))
    if (name !== 'textures/skin.png') assert.equal(after[name], bytes, `${name} unchanged`);
  const written = readFileSync(path.join(chosen, 'hero edited.gltf'));
  assert.deepEqual(
    gltfResources(written, 'hero edited.gltf').map((r) => r.uri),
    ['hero%20edited.bin', 'textures/skin.png'],
    'the .gltf names the .bin saved with it',
  );
  assert.deepEqual(readFileSync(path.join(chosen, 'hero edited.bin')), Buffer.from(bin), 'the buffer under the chosen name');
});

test('the desktop save of a TGF skeleton writes its names file beside it under the name chosen for the TGF', async () => {
  const chosen = path.join(work, 'skeleton-save');
  mkdirSync(chosen);
  const tgf = new TextEncoder().encode('1 0 0 0\n2 0 1 0\n#\n1 2\n#\n');
  const names = new TextEncoder().encode('upper arm.L\n');
  const request = { suggestedName: 'body.tgf', bytes: tgf, resources: [{ uri: 'body.names', bytes: names }] };
  assert.equal(await saveRequestedAsset(request, () => Promise.resolve(path.join(chosen, 'arm.tgf'))), true);
  assert.deepEqual(Object.keys(tree(chosen)), ['arm.names', 'arm.tgf']);
  assert.deepEqual(new Uint8Array(readFileSync(path.join(chosen, 'arm.tgf'))), tgf);
  assert.deepEqual(new Uint8Array(readFileSync(path.join(chosen, 'arm.names'))), names);
});
