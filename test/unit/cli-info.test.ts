/**
 * `rigwright info` on glTF files and on the translations DMAT that `rigwright import` writes, run as users run it.
 * Expected values are read here straight from the files: the glTF JSON and its binary chunk (accessor counts, key
 * times as float32), the DMAT headers and the TGF's bone lines.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Document, NodeIO } from '@gltf-transform/core';
import { KHRDracoMeshCompression } from '@gltf-transform/extensions';
import draco3d from 'draco3dgltf';
import { keySpacing } from '../../workers/formats/gltf-summary.ts';
import { repoRoot, dataFile } from './shared-data.ts';
import { accessorFloats } from './glb-json.ts';

const work = mkdtempSync(path.join(tmpdir(), 'rigwright-cli-info-'));

function rigwright(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ['app/cli/rigwright.mjs', ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 120_000 });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

interface Json {
  nodes: { name?: string; children?: number[] }[];
  meshes: { name?: string; primitives: { attributes: Record<string, number>; indices?: number; mode?: number }[] }[];
  skins: { name?: string; joints: number[] }[];
  animations?: { name?: string; samplers: { input: number }[] }[];
  materials?: { name?: string }[];
  accessors: { bufferView?: number; byteOffset?: number; count: number; componentType: number; type: string }[];
  bufferViews: { buffer: number; byteOffset?: number; byteStride?: number }[];
  buffers: { uri?: string }[];
}

/** A GLB's JSON and binary chunk, or a .gltf's JSON and its buffers, read by hand (glTF 2.0 §4.4). */
function readAsset(file: string): { json: Json; buffers: Uint8Array[] } {
  const bytes = readFileSync(file);
  if (bytes.readUInt32LE(0) !== 0x46546c67) {
    const json = JSON.parse(bytes.toString('utf8')) as Json;
    return { json, buffers: json.buffers.map((b) => readFileSync(path.join(path.dirname(file), b.uri!))) };
  }
  const jsonLength = bytes.readUInt32LE(12);
  const json = JSON.parse(bytes.subarray(20, 20 + jsonLength).toString('utf8')) as Json;
  const bin = 20 + jsonLength;
  return { json, buffers: [bytes.subarray(bin + 8, bin + 8 + bytes.readUInt32LE(bin))] };
}

/** A float32 SCALAR accessor's values (key times). */
function floats(asset: { json: Json; buffers: Uint8Array[] }, accessor: number): number[] {
  assert.equal(asset.json.accessors[accessor].type, 'SCALAR');
  return accessorFloats(asset.json, asset.buffers, accessor);
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

for (const parts of [
  ['CesiumMan', 'CesiumMan.glb'],
  ['Fox', 'Fox.glb'],
  ['SimpleSkin', 'glTF', 'SimpleSkin.gltf'],
]) {
  test(`info ${parts[parts.length - 1]}: meshes, skins with joint names and parents, clips with key counts, materials, as in the file`, () => {
    const file = dataFile('gltf', ...parts);
    const asset = readAsset(file);
    const { json } = asset;
    const run = rigwright('info', file);
    assert.equal(run.status, 0, run.stderr);
    const out = run.stdout;
    assert.match(out, new RegExp(`${escape(file)}: glTF\n  glTF 2\\.0[^\n]*: 1 scene, ${json.nodes.length} nodes\n  extensions: none\n`));

    json.meshes.forEach((mesh, m) => {
      let vertices = 0;
      let triangles = 0;
      for (const p of mesh.primitives) {
        assert.ok(p.mode === undefined || p.mode === 4, 'every primitive of the sample is a triangle list (mode 4 or absent)');
        vertices += json.accessors[p.attributes.POSITION].count;
        triangles += (p.indices === undefined ? json.accessors[p.attributes.POSITION].count : json.accessors[p.indices].count) / 3;
      }
      const name = mesh.name ? `mesh "${mesh.name}"` : `mesh ${m}`;
      assert.match(
        out,
        new RegExp(`\n  ${escape(name)}: ${vertices} vertices, ${triangles} triangles in ${mesh.primitives.length} primitive`),
      );
    });

    const parentNode = new Map<number, number>();
    json.nodes.forEach((node, n) => node.children?.forEach((child) => parentNode.set(child, n)));
    for (const skin of json.skins) {
      const lines = skin.joints.map((node, j) => {
        let parent = -1;
        for (let up = parentNode.get(node); up !== undefined && parent < 0; up = parentNode.get(up)) parent = skin.joints.indexOf(up);
        const name = json.nodes[node].name;
        return `    joint ${j}${name ? ` "${name}"` : ''}${parent < 0 ? ', root' : ` ← joint ${parent}`}\n`;
      });
      assert.ok(out.includes(`: ${skin.joints.length} joints\n${lines.join('')}`), `joint list of ${skin.name ?? 'the skin'}:\n${out}`);
    }

    (json.animations ?? []).forEach((animation, a) => {
      const times = new Set<number>();
      for (const sampler of animation.samplers) for (const t of floats(asset, sampler.input)) times.add(t);
      const name = animation.name || `animation ${a}`;
      assert.match(out, new RegExp(`\n  clip "${escape(name)}": ${times.size} keys, `), `${name} has ${times.size} key times`);
    });
    for (const [m, material] of (json.materials ?? []).entries()) {
      assert.match(out, new RegExp(`\n  ${escape(material.name ? `material "${material.name}"` : `material ${m}`)}: base colour`));
    }
    assert.match(out, /\n {2}rigwright import reads \d+ vertices/);
  });
}

test('info gives key rates: CesiumMan and the Fox walk are 24 fps (1/24 s steps), the Fox run has a 0.2 s gap', () => {
  const run = rigwright('info', dataFile('gltf', 'CesiumMan', 'CesiumMan.glb'), dataFile('gltf', 'Fox', 'Fox.glb'));
  assert.equal(run.status, 0, run.stderr);
  // CesiumMan: 48 keys from 1/24 s to 2 s (PROVENANCE.md: 48 keys, 2.0 s), 57 channels of 19 joints × T, R, S.
  assert.match(
    run.stdout,
    /clip "animation 0": 48 keys, 24 fps, 0\.04167–2 s; 57 channels \(19 translation, 19 rotation, 19 scale\); LINEAR/,
  );
  assert.match(run.stdout, /clip "Walk": 18 keys, 24 fps, 0–0\.7083 s; 21 channels/);
  assert.match(run.stdout, /clip "Run": 25 keys, irregular, /);
  const fox = readAsset(dataFile('gltf', 'Fox', 'Fox.glb'));
  const run2 = fox.json.animations!.find((a) => a.name === 'Run')!;
  const times = [...new Set(run2.samplers.flatMap((s) => floats(fox, s.input)))].sort((a, b) => a - b);
  const steps = times.slice(1).map((t, i) => t - times[i]);
  assert.ok(Math.max(...steps) > 0.19 && Math.min(...steps) < 0.042, 'the run really has one long step among 1/24 s steps');
});

test('keySpacing: regular rates, a grid with gaps, irregular times, a still pose', () => {
  const at = (fps: number, frames: number[]): Float32Array => Float32Array.from(frames, (f) => f / fps);
  const jump = keySpacing(at(37.5, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 120]));
  assert.ok(
    jump.kind === 'grid' && Math.abs(jump.fps - 37.5) < 1e-3,
    `a jump of 100 frames leaves a gap in the grid: ${JSON.stringify(jump)}`,
  );
  const steady = keySpacing(
    at(
      37.5,
      Array.from({ length: 76 }, (_, f) => f),
    ),
  );
  assert.ok(steady.kind === 'regular' && Math.abs(steady.fps - 37.5) < 1e-3, JSON.stringify(steady));
  const grid = keySpacing(at(30, [0, 1, 2, 5, 6, 9]));
  assert.ok(grid.kind === 'grid' && Math.abs(grid.fps - 30) < 1e-3, JSON.stringify(grid));
  assert.deepEqual(keySpacing([0, 0.1, 0.25, 0.7]), { kind: 'irregular' });
  assert.deepEqual(keySpacing([1.5]), { kind: 'still' });
});

test('info on generated clips says 37.5 fps, a grid with gaps, irregular and a still pose; Draco and extensions are named', async () => {
  const doc = new Document();
  const buffer = doc.createBuffer();
  const position = doc
    .createAccessor()
    .setType('VEC3')
    .setArray(new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]))
    .setBuffer(buffer);
  const root = doc.createNode('root');
  const tip = doc.createNode('tip').setTranslation([0, 1, 0]);
  root.addChild(tip);
  const skin = doc.createSkin('rig').addJoint(root).addJoint(tip);
  const prim = doc
    .createPrimitive()
    .setAttribute('POSITION', position)
    .setAttribute('JOINTS_0', doc.createAccessor().setType('VEC4').setArray(new Uint16Array(12)).setBuffer(buffer))
    .setAttribute(
      'WEIGHTS_0',
      doc
        .createAccessor()
        .setType('VEC4')
        .setArray(new Float32Array([1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]))
        .setBuffer(buffer),
    );
  const body = doc.createNode('body').setMesh(doc.createMesh('tri').addPrimitive(prim)).setSkin(skin);
  doc.createScene().addChild(root).addChild(body);
  const clip = (name: string, times: number[]): void => {
    const sampler = doc
      .createAnimationSampler()
      .setInput(doc.createAccessor().setType('SCALAR').setArray(Float32Array.from(times)).setBuffer(buffer))
      .setOutput(
        doc
          .createAccessor()
          .setType('VEC4')
          .setArray(Float32Array.from(times.flatMap(() => [0, 0, 0, 1])))
          .setBuffer(buffer),
      );
    doc
      .createAnimation(name)
      .addSampler(sampler)
      .addChannel(doc.createAnimationChannel().setSampler(sampler).setTargetNode(tip).setTargetPath('rotation'));
  };
  clip(
    'steady',
    Array.from({ length: 76 }, (_, f) => f / 37.5),
  );
  clip(
    'gaps',
    [0, 1, 2, 5, 6, 9].map((f) => f / 30),
  );
  clip('uneven', [0, 0.1, 0.25, 0.7]);
  clip('held', [0.5]);
  const plain = path.join(work, 'clips.glb');
  writeFileSync(plain, await new NodeIO().writeBinary(doc));
  const run = rigwright('info', plain);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /clip "steady": 76 keys, 37\.5 fps, 0–2 s;/);
  assert.match(run.stdout, /clip "gaps": 6 keys, on a 30 fps grid with gaps, 0–0\.3 s;/);
  assert.match(run.stdout, /clip "uneven": 4 keys, irregular, 0–0\.7 s;/);
  assert.match(run.stdout, /clip "held": 1 key, a still pose, 0\.5–0\.5 s;/);
  assert.match(run.stdout, /mesh "tri": 3 vertices, 1 triangle in 1 primitive; POSITION JOINTS_0 WEIGHTS_0; skinned by skin "rig"/);
  assert.match(run.stdout, /skin "rig": 2 joints, no inverse bind matrices\n {4}joint 0 "root", root\n {4}joint 1 "tip" ← joint 0\n/);

  const io = new NodeIO()
    .registerExtensions([KHRDracoMeshCompression])
    .registerDependencies({ 'draco3d.encoder': await draco3d.createEncoderModule() });
  const cesium = await io.read(dataFile('gltf', 'CesiumMan', 'CesiumMan.glb'));
  cesium.createExtension(KHRDracoMeshCompression).setRequired(true);
  const draco = path.join(work, 'cesium-draco.glb');
  writeFileSync(draco, await io.writeBinary(cesium));
  const needs = path.join(work, 'needs-codec.gltf');
  const json = JSON.parse(readFileSync(dataFile('gltf', 'SimpleSkin', 'glTF-Embedded', 'SimpleSkin.gltf'), 'utf8')) as Record<
    string,
    unknown
  >;
  writeFileSync(needs, JSON.stringify({ ...json, extensionsUsed: ['EXT_mesh_ultra_codec'], extensionsRequired: ['EXT_mesh_ultra_codec'] }));
  const both = rigwright('info', draco, needs);
  assert.equal(both.status, 1);
  // Edgebreaker encoding splits vertices along its cuts: the count is the compressed file's accessor count.
  const dracoJson = readAsset(draco).json;
  const dracoPrimitive = dracoJson.meshes[0].primitives[0];
  assert.match(
    both.stdout,
    new RegExp(
      `cesium-draco\\.glb: glTF\n[^\n]*\n  extensions used: KHR_draco_mesh_compression; required: KHR_draco_mesh_compression\n  mesh "Cesium_Man": ${dracoJson.accessors[dracoPrimitive.attributes.POSITION].count} vertices, ${dracoJson.accessors[dracoPrimitive.indices!].count / 3} triangles`,
    ),
  );
  assert.match(both.stderr, /needs-codec\.gltf: extensionsRequired: [^\n]*EXT_mesh_ultra_codec/);
  assert.match(both.stdout, /bad files: 1 of 2/);

  // Pointer channels the rig does not pose with are still counted, as the file has them: a material's colour, and a
  // node rotation of a node the file does not have (the importer leaves it out of the clip too).
  const pointer = path.join(work, 'pointer.gltf');
  const animations = json.animations as { channels: { sampler: number; target: unknown }[] }[];
  for (const target of ['/materials/0/pbrMetallicRoughness/baseColorFactor', `/nodes/${(json.nodes as unknown[]).length}/rotation`])
    animations[0].channels.push({ sampler: 0, target: { path: 'pointer', extensions: { KHR_animation_pointer: { pointer: target } } } });
  writeFileSync(pointer, JSON.stringify({ ...json, materials: [{ name: 'skin' }], extensionsUsed: ['KHR_animation_pointer'] }));
  const pointerRun = rigwright('info', pointer);
  assert.equal(pointerRun.status, 0, pointerRun.stderr);
  assert.match(pointerRun.stdout, /clip "animation 0": 12 keys, [^\n]*; 3 channels \(1 rotation, 2 pointer\); LINEAR/);
});

test('info recognises the translations DMAT that import writes and checks it against the skeleton and its pose file', () => {
  const out = path.join(work, 'fox');
  const imported = rigwright('import', dataFile('gltf', 'Fox', 'Fox.glb'), '--out-dir', out);
  assert.equal(imported.status, 0, imported.stderr);
  const file = (name: string): string => path.join(out, name);
  // B from the TGF's bone lines (after '#'), rows from the DMAT headers ("cols rows").
  const tgf = readFileSync(file('fox.tgf'), 'utf8').trim().split('\n');
  const edgeLines = tgf.slice(tgf.indexOf('#') + 1);
  const bones = edgeLines.includes('#') ? edgeLines.indexOf('#') : edgeLines.length;
  const header = (name: string): [number, number] =>
    readFileSync(file(name), 'utf8').split('\n')[0].split(' ').map(Number) as [number, number];
  const [, walkPoseRows] = header('fox-pose-Walk.dmat');
  const [cols, walkRows] = header('fox-translations-Walk.dmat');
  assert.equal(cols, 3);
  const frames = walkPoseRows / (3 * bones);
  assert.ok(
    Number.isInteger(frames) && walkRows === bones * frames,
    `${walkPoseRows} pose rows, ${walkRows} translation rows, ${bones} bones`,
  );

  const good = rigwright('info', file('fox.tgf'), file('fox-pose-Walk.dmat'), file('fox-translations-Walk.dmat'));
  assert.equal(good.status, 0, good.stderr);
  assert.match(
    good.stdout,
    new RegExp(
      `fox-translations-Walk\\.dmat: matrix ${walkRows} × 3\n  could be start-joint translations[^\n]*\n  fits [^\n]*fox\\.tgf and [^\n]*fox-pose-Walk\\.dmat as start-joint translations: ${frames} frames of ${bones} bones\n`,
    ),
  );
  const alone = rigwright('info', file('fox-translations-Walk.dmat'));
  assert.equal(alone.status, 0);
  assert.match(alone.stdout, new RegExp(`could be start-joint translations for ${walkRows} bone-frames`));

  const [, runPoseRows] = header('fox-pose-Run.dmat');
  const mismatch = rigwright('info', file('fox.tgf'), file('fox-pose-Run.dmat'), file('fox-translations-Walk.dmat'));
  assert.equal(mismatch.status, 1);
  assert.match(
    mismatch.stderr,
    new RegExp(
      `fox-translations-Walk\\.dmat: translations for ${bones} bones × ${runPoseRows / (3 * bones)} frames are [^\n]*not ${walkRows} × 3`,
    ),
  );
});

test('info reports every file on its own: a glTF with a bad data: URI, names with escape sequences, an OBJ with \\r line ends', () => {
  // Once: atob's InvalidCharacterError ended the run with exit 3, without the file's name and without the other files;
  // names from a file reached the terminal with their escape sequences; the OBJ read as one vertex.
  const simpleSkin = JSON.parse(readFileSync(dataFile('gltf', 'SimpleSkin', 'glTF-Embedded', 'SimpleSkin.gltf'), 'utf8')) as {
    buffers: { uri: string }[];
    nodes: { name?: string }[];
    meshes: { name?: string }[];
  };
  const bad = structuredClone(simpleSkin);
  bad.buffers[1].uri = 'data:application/gltf-buffer;base64,AAAAAA=';
  writeFileSync(path.join(work, 'bad-uri.gltf'), JSON.stringify(bad));
  const named = structuredClone(simpleSkin);
  named.nodes[1].name = 'root\u001b]0;owned\u0007\u001b[2J';
  named.meshes[0].name = 'body\nbad file: none\u202e';
  writeFileSync(path.join(work, 'escapes.gltf'), JSON.stringify(named));
  writeFileSync(path.join(work, 'mac.obj'), 'v 0 0 0\rv 2 0 0\rv 0 1 0\rf 1 2 3\r');

  const run = rigwright('info', ...['bad-uri.gltf', 'escapes.gltf', 'mac.obj'].map((f) => path.join(work, f)));
  assert.equal(run.status, 1, run.stderr);
  const badMessage = `${path.join(work, 'bad-uri.gltf')}: /buffers/1/uri: glTF import: the data: URI 'data:application/gltf-buffer;base64,AAAA… (43 characters)' is not valid: its 6 base64 digits and 1 '=' do not make whole groups of four`;
  assert.equal(run.stderr, `rigwright: ${badMessage}\n`);
  assert.ok(run.stdout.includes(`bad-uri.gltf: unreadable\n  error: ${badMessage}\n`), run.stdout);
  assert.ok(run.stdout.includes('  joint 0 "root\\u001b]0;owned\\u0007\\u001b[2J", root\n'), run.stdout);
  assert.ok(run.stdout.includes('  mesh "body bad file: none\\u202e": 10 vertices'), run.stdout);
  assert.ok(
    run.stdout.includes('mac.obj: mesh\n  3 vertices, 1 triangles\n  bounds (0, 0, 0) to (2, 1, 0), diagonal 2.23607\n'),
    run.stdout,
  );
  assert.ok(run.stdout.endsWith('bad files: 1 of 3\n'), run.stdout);
  for (const text of [run.stdout, run.stderr]) assert.doesNotMatch(text.replace(/\n/g, ''), /[\p{C}\p{Zl}\p{Zp}]/u);
});
