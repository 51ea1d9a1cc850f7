/**
 * In-place export carries what glTF-Transform's reader leaves out (workers/formats/gltf-carry.ts): the
 * KHR_animation_pointer channels the importer does not pose with (material colours here) go back on their
 * samplers with their keys; unknown extensions on accessors go back to the same data, unless the export replaced
 * it. Expectations are the source file's own JSON and bytes, read here with a plain accessor reader.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import test from 'node:test';
import { importGltf } from '../../workers/formats/gltf-import.ts';
import { exportGltfInPlace } from '../../workers/formats/gltf-edit.ts';
import { assertValidGltf } from './gltf-skinning-reference.ts';
import { bakePoseSequence } from '../../workers/rig/pose-sequence.ts';
import { accessorFloats, glbBin, glbJson } from './glb-json.ts';
import { dataFile } from './shared-data.ts';
import { editOf } from './gltf-edit-input.ts';

interface ChannelJson {
  sampler: number;
  target: { node?: number; path: string; extensions?: { KHR_animation_pointer?: { pointer: string } } };
}
interface AnimationJson {
  name?: string;
  channels: ChannelJson[];
  samplers: { input: number; output: number; interpolation?: string; extras?: unknown }[];
}
interface AccessorJson {
  bufferView?: number;
  byteOffset?: number;
  componentType: number;
  count: number;
  type: string;
  min?: number[];
  max?: number[];
  extensions?: Record<string, unknown>;
  extras?: unknown;
}
/** The parts of a glTF JSON these tests read and write. */
interface Json {
  buffers: { byteLength: number; uri?: string }[];
  bufferViews: { buffer: number; byteOffset?: number; byteLength: number; byteStride?: number; extensions?: Record<string, unknown> }[];
  accessors: AccessorJson[];
  animations: AnimationJson[];
  materials?: unknown[];
  meshes: { primitives: { attributes: Record<string, number>; material?: number }[] }[];
  extensionsUsed?: string[];
  extensionsRequired?: string[];
}

const PROBE = 'EXT_rigwright_probe';
const COLOUR = '/materials/0/pbrMetallicRoughness/baseColorFactor';
const KEY_TIMES = [0, 2, 5.5];
const COLOURS = [1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 0.5];

function pointerChannel(sampler: number, pointer: string): ChannelJson {
  return { sampler, target: { path: 'pointer', extensions: { KHR_animation_pointer: { pointer } } } };
}

/**
 * SimpleSkin with a material whose colour two animations key through KHR_animation_pointer: "Bend" (the file's
 * clip, which also turns the joint) and "Glow" (the colour alone); the probe extension on the POSITION and
 * WEIGHTS_0 accessors and on a buffer view. `edit` changes the JSON further.
 */
function pointerAsset(edit: (json: Json) => void = () => {}): Uint8Array {
  const json = JSON.parse(readFileSync(dataFile('gltf', 'SimpleSkin', 'glTF-Embedded', 'SimpleSkin.gltf'), 'utf8')) as Json;
  const keys = new Float32Array([...KEY_TIMES, ...COLOURS]);
  json.buffers.push({
    byteLength: keys.byteLength,
    uri: `data:application/octet-stream;base64,${Buffer.from(keys.buffer).toString('base64')}`,
  });
  const buffer = json.buffers.length - 1;
  json.bufferViews.push({ buffer, byteLength: 12 }, { buffer, byteOffset: 12, byteLength: 48 });
  const view = json.bufferViews.length - 2;
  json.accessors.push(
    { bufferView: view, componentType: 5126, count: 3, type: 'SCALAR', min: [0], max: [5.5] },
    { bufferView: view + 1, componentType: 5126, count: 3, type: 'VEC4' },
  );
  const input = json.accessors.length - 2;
  json.materials = [{ name: 'skin', pbrMetallicRoughness: { baseColorFactor: [1, 1, 1, 1] } }];
  json.meshes[0].primitives[0].material = 0;
  const bend = json.animations[0];
  bend.name = 'Bend';
  bend.samplers.push({ input, output: input + 1, interpolation: 'LINEAR' });
  bend.channels.push(pointerChannel(1, COLOUR));
  json.animations.push({
    name: 'Glow',
    samplers: [{ input, output: input + 1, interpolation: 'STEP' }],
    channels: [pointerChannel(0, COLOUR)],
  });
  json.accessors[1].extensions = { [PROBE]: { quantized: false } };
  json.accessors[3].extensions = { [PROBE]: { normalized: 'sum' } };
  json.bufferViews[4].extensions = { [PROBE]: { layout: 'interleaved' } };
  json.extensionsUsed = ['KHR_animation_pointer', PROBE];
  json.extensionsRequired = ['KHR_animation_pointer'];
  edit(json);
  return new TextEncoder().encode(JSON.stringify(json));
}

interface Glb {
  json: Json;
  bin: Uint8Array;
}

function readGlb(glb: Uint8Array): Glb {
  return { json: glbJson<Json>(glb), bin: glbBin(glb) };
}

/** A float accessor's values, read from the GLB's binary chunk. */
const floats = (glb: Glb, accessor: number): number[] => accessorFloats(glb.json, [glb.bin], accessor);

function pointerChannels(animation: AnimationJson): ChannelJson[] {
  return animation.channels.filter((channel) => channel.target.path === 'pointer');
}

test('in-place export with no edits puts the material-colour pointer channels back on their samplers, keys and all (0/0)', async () => {
  const rig = await importGltf(pointerAsset(), 'pointer.gltf');
  assert.deepEqual(
    rig.clips.map((clip) => clip.name),
    ['Bend', 'Glow'],
  );
  const result = await exportGltfInPlace(editOf(rig), 'pointer-out.glb');
  await assertValidGltf(result.bytes, 'the export with pointer channels');
  const out = readGlb(result.bytes);
  assert.ok(out.json.extensionsUsed?.includes('KHR_animation_pointer'), 'the export lists KHR_animation_pointer in extensionsUsed');
  assert.ok(out.json.extensionsRequired?.includes('KHR_animation_pointer'), 'still required, as the file had it');
  const [bend, glow] = out.json.animations;
  assert.equal(bend.name, 'Bend');
  assert.equal(glow.name, 'Glow');
  for (const [animation, interpolation] of [
    [bend, 'LINEAR'],
    [glow, 'STEP'],
  ] as const) {
    const channels = pointerChannels(animation);
    assert.equal(channels.length, 1, `${animation.name}: one pointer channel`);
    assert.equal(channels[0].target.extensions?.KHR_animation_pointer?.pointer, COLOUR);
    assert.equal(channels[0].target.node, undefined);
    const sampler = animation.samplers[channels[0].sampler];
    assert.equal(sampler.interpolation, interpolation);
    assert.deepEqual(floats(out, sampler.input), KEY_TIMES);
    assert.deepEqual(floats(out, sampler.output), Array.from(new Float32Array(COLOURS)));
    assert.equal(sampler.extras, undefined, 'no tag is left behind');
  }
  // The joint channel is still there beside the pointer channel.
  assert.deepEqual(
    bend.channels.filter((c) => c.target.path !== 'pointer').map((c) => c.target.path),
    ['rotation'],
  );

  // Read again, the file poses and notices as the original does.
  const again = await importGltf(result.bytes, 'pointer-out.glb');
  assert.deepEqual(
    again.clips.map((clip) => clip.poses),
    rig.clips.map((clip) => clip.poses),
  );
  const notices = (warnings: string[]) => warnings.filter((w) => w.includes('KHR_animation_pointer'));
  assert.deepEqual(notices(again.warnings), notices(rig.warnings));
  assert.equal(notices(rig.warnings).length, 2);
});

test('unknown extensions on accessors follow their data; a replaced accessor and a buffer view lose theirs, with notices', async () => {
  const source = pointerAsset();
  const sourceJson = JSON.parse(new TextDecoder().decode(source)) as Json;
  const rig = await importGltf(source, 'probe.gltf');
  const unchanged = await exportGltfInPlace(editOf(rig), 'probe-out.glb');
  await assertValidGltf(unchanged.bytes, 'the export with probe extensions');
  let out = readGlb(unchanged.bytes);
  const attributes = out.json.meshes[0].primitives[0].attributes;
  assert.deepEqual(out.json.accessors[attributes.POSITION].extensions, { [PROBE]: { quantized: false } });
  assert.deepEqual(out.json.accessors[attributes.WEIGHTS_0].extensions, { [PROBE]: { normalized: 'sum' } });
  // The entries sit on the same data: the positions written are the source's.
  assert.deepEqual(floats(out, attributes.POSITION).slice(0, 6), [-0.5, 0, 0, 0.5, 0, 0]);
  assert.equal(out.json.accessors.filter((a) => a.extensions).length, 2, 'no other accessor gains the entry');
  assert.ok(
    out.json.accessors.every((a) => a.extras === undefined),
    'no tag is left behind',
  );
  assert.ok(
    out.json.bufferViews.every((v) => v.extensions === undefined),
    'no buffer view keeps an extension',
  );
  assert.ok(
    unchanged.warnings.some((w) => w.includes(PROBE) && w.includes('bufferViews') && w.includes('lays them out afresh')),
    unchanged.warnings.join(' | '),
  );
  assert.ok(!unchanged.warnings.some((w) => /accessor \d+ .*left out/.test(w)), 'no accessor is reported as left out');

  // New weights replace WEIGHTS_0: its entry described the old data, so it is left out, by name.
  const weights = { ...rig.weights, data: rig.weights.data.slice() };
  weights.data.fill(0);
  for (let v = 0; v < weights.rows; v++) weights.data[v * weights.cols + (v < 4 ? 0 : 1)] = 1;
  const edited = await exportGltfInPlace({ ...editOf(rig), weights }, 'probe-edited.glb');
  await assertValidGltf(edited.bytes, 'the export with new weights');
  out = readGlb(edited.bytes);
  const edAttributes = out.json.meshes[0].primitives[0].attributes;
  assert.equal(out.json.accessors[edAttributes.WEIGHTS_0].extensions, undefined);
  assert.deepEqual(out.json.accessors[edAttributes.POSITION].extensions, sourceJson.accessors[1].extensions);
  assert.ok(
    edited.warnings.some((w) => w === `extensions on accessor 3 are left out: the export replaced its data`),
    edited.warnings.join(' | '),
  );
});

test('a removed clip takes its pointer channels with a notice; a pointer whose target is gone is left out, naming it', async () => {
  const rig = await importGltf(pointerAsset(), 'pointer.gltf');
  const result = await exportGltfInPlace({ ...editOf(rig), clips: rig.clips.filter((clip) => clip.name !== 'Glow') }, 'out.glb');
  await assertValidGltf(result.bytes, 'the export without Glow');
  const out = readGlb(result.bytes);
  assert.deepEqual(
    out.json.animations.map((a) => a.name),
    ['Bend'],
  );
  assert.equal(pointerChannels(out.json.animations[0]).length, 1);
  assert.ok(
    result.warnings.some((w) => w.startsWith('animation "Glow" is not written as it was') && w.includes(COLOUR)),
    result.warnings.join(' | '),
  );

  // A pointer into a camera the file does not have: the animation keyed only by it has nothing left and goes.
  const dangling = pointerAsset((json) => {
    json.animations[1].channels = [pointerChannel(0, '/cameras/0/perspective/yfov')];
  });
  const rig2 = await importGltf(dangling, 'dangling.gltf');
  const result2 = await exportGltfInPlace(editOf(rig2), 'dangling-out.glb');
  await assertValidGltf(result2.bytes, 'the export without the dangling pointer');
  const out2 = readGlb(result2.bytes);
  assert.deepEqual(
    out2.json.animations.map((a) => a.name),
    ['Bend'],
  );
  assert.ok(
    result2.warnings.some((w) => w.includes('/cameras/0/perspective/yfov') && w.includes('not in the written file')),
    "a warning says the camera's yfov pointer is not in the written file",
  );
  assert.ok(
    result2.warnings.some((w) => w.includes('1 animation that was left with no channel is removed')),
    'a warning says the animation left with no channel is removed',
  );
});

test('cameras, lights, unskinned nodes and extras pass through in-place export, with and without edits', async () => {
  const extras = (where: string) => ({ note: `kept on ${where}`, list: [1, 2, 3] });
  const source = pointerAsset((json) => {
    const asset = json as unknown as Record<string, Record<string, unknown>[] | Record<string, unknown>>;
    (asset.scenes as Record<string, unknown>[])[0].extras = extras('the scene');
    const nodes = asset.nodes as Record<string, unknown>[];
    nodes[1].extras = extras('the armature');
    nodes.push(
      { name: 'camera', camera: 0, translation: [0, 1, 4], extras: extras('the camera node') },
      { name: 'lamp', rotation: [-Math.SQRT1_2, 0, 0, Math.SQRT1_2], extensions: { KHR_lights_punctual: { light: 0 } } },
    );
    (asset.scenes as { nodes: number[] }[])[0].nodes.push(nodes.length - 2, nodes.length - 1);
    asset.cameras = [{ type: 'perspective', name: 'shot', perspective: { yfov: 0.8, znear: 0.1, zfar: 100, aspectRatio: 1.5 } }];
    asset.extensions = {
      KHR_lights_punctual: {
        lights: [{ type: 'spot', name: 'key', color: [1, 0.9, 0.8], intensity: 12, spot: { innerConeAngle: 0.2, outerConeAngle: 0.6 } }],
      },
    };
    json.extensionsUsed = [...(json.extensionsUsed ?? []), 'KHR_lights_punctual'];
    (json.materials as Record<string, unknown>[])[0].extras = extras('the material');
    (asset.meshes as Record<string, unknown>[])[0].extras = extras('the mesh');
    (asset.skins as Record<string, unknown>[])[0].extras = extras('the skin');
    (json.animations[1] as unknown as Record<string, unknown>).extras = extras('Glow');
  });
  const sourceJson = JSON.parse(new TextDecoder().decode(source)) as Record<string, unknown[]> & Json;
  const rig = await importGltf(source, 'scene.gltf');
  const weights = { ...rig.weights, data: rig.weights.data.slice() };
  weights.data.fill(0);
  for (let v = 0; v < weights.rows; v++) weights.data[v * weights.cols + (v % 2)] = 1;
  for (const [label, edit] of [
    ['no edits', editOf(rig)],
    ['new weights', { ...editOf(rig), weights }],
  ] as const) {
    const result = await exportGltfInPlace(edit, 'scene-out.glb');
    await assertValidGltf(result.bytes, `the scene with a camera and a light, ${label}`);
    const out = readGlb(result.bytes).json as unknown as Record<string, unknown[]> & Json;
    const nodesOut = out.nodes as Record<string, unknown>[];
    const nodesIn = sourceJson.nodes as Record<string, unknown>[];
    assert.deepEqual(out.cameras, sourceJson.cameras, label);
    assert.deepEqual((out as Record<string, unknown>).extensions, (sourceJson as Record<string, unknown>).extensions, label);
    for (const n of [1, 3, 4]) {
      const { children: _a, ...was } = nodesIn[n];
      const { children: _b, ...now } = nodesOut[n];
      assert.deepEqual(now, was, `${label}: node ${n}`);
    }
    assert.deepEqual((out.scenes[0] as Record<string, unknown>).extras, extras('the scene'));
    assert.deepEqual((out.materials![0] as Record<string, unknown>).extras, extras('the material'));
    assert.deepEqual((out.meshes[0] as Record<string, unknown>).extras, extras('the mesh'));
    assert.deepEqual((out.skins[0] as Record<string, unknown>).extras, extras('the skin'));
    assert.deepEqual((out.animations[1] as unknown as Record<string, unknown>).extras, extras('Glow'));
  }
});

test('a clip baked from an animation takes that animation’s pointer channels into the animation written for it', async () => {
  const rig = await importGltf(pointerAsset(), 'pointer.gltf');
  const bend = rig.clips[0];
  const baked = { name: 'Bend', poses: bakePoseSequence(bend.poses, 10) };
  for (const from of [0, undefined]) {
    const clips = [{ ...baked, ...(from !== undefined ? { from } : {}) }, rig.clips[1]];
    const result = await exportGltfInPlace({ ...editOf(rig), clips }, 'baked.glb');
    await assertValidGltf(result.bytes, `the baked clip, from ${String(from)}`);
    const out = readGlb(result.bytes);
    // Glow is kept (first); the baked Bend is a new animation after it.
    assert.deepEqual(
      out.json.animations.map((a) => a.name),
      ['Glow', 'Bend'],
    );
    const written = out.json.animations[1];
    assert.ok(written.channels.filter((c) => c.target.path === 'rotation').length > 0, 'the written animation keeps its rotation channels');
    const gone = result.warnings.some((w) => w.startsWith('animation "Bend" is not written as it was') && w.includes(COLOUR));
    if (from === undefined) {
      assert.equal(pointerChannels(written).length, 0);
      assert.ok(gone, result.warnings.join(' | '));
      continue;
    }
    assert.ok(!gone, result.warnings.join(' | '));
    const [channel] = pointerChannels(written);
    assert.equal(channel.target.extensions?.KHR_animation_pointer?.pointer, COLOUR);
    const sampler = written.samplers[channel.sampler];
    assert.equal(sampler.interpolation, 'LINEAR');
    assert.deepEqual(floats(out, sampler.input), KEY_TIMES);
    assert.deepEqual(floats(out, sampler.output), Array.from(new Float32Array(COLOURS)));
    assert.equal(sampler.extras, undefined);
  }
});

test('a channel’s unknown extension stays on its channel when a pointer channel before it is left out and put back', async () => {
  const bytes = pointerAsset((json) => {
    const bend = json.animations[0];
    // The pointer channel first, then the joint's, each with an entry of its own.
    const [rotation, pointer] = bend.channels;
    (rotation as unknown as Record<string, unknown>).extensions = { [PROBE]: { channel: 'rotation' } };
    (pointer as unknown as Record<string, unknown>).extensions = { [PROBE]: { channel: 'colour' } };
    bend.channels = [pointer, rotation];
  });
  const rig = await importGltf(bytes, 'order.gltf');
  const result = await exportGltfInPlace(editOf(rig), 'order-out.glb');
  await assertValidGltf(result.bytes, 'the export with channel entries');
  const out = readGlb(result.bytes);
  const channels = out.json.animations[0].channels as (ChannelJson & { extensions?: Record<string, unknown> })[];
  const rotation = channels.find((c) => c.target.path === 'rotation')!;
  const colour = channels.find((c) => c.target.path === 'pointer')!;
  assert.deepEqual(rotation.extensions, { [PROBE]: { channel: 'rotation' } });
  assert.deepEqual(colour.extensions, { [PROBE]: { channel: 'colour' } });
  assert.equal(channels.length, 2);
});

test('two clips baked from one animation each get its pointer channels', async () => {
  const rig = await importGltf(pointerAsset(), 'pointer.gltf');
  const bend = rig.clips[0];
  const clips = [
    { name: 'Bend', poses: bakePoseSequence(bend.poses, 10), from: 0 },
    { name: 'Bend slow', poses: bakePoseSequence(bend.poses, 4), from: 0 },
    rig.clips[1],
  ];
  const result = await exportGltfInPlace({ ...editOf(rig), clips }, 'two-bakes.glb');
  await assertValidGltf(result.bytes, 'two clips baked from one animation');
  const out = readGlb(result.bytes);
  for (const name of ['Bend', 'Bend slow']) {
    const animation = out.json.animations.find((a) => a.name === name)!;
    const [channel] = pointerChannels(animation);
    assert.equal(channel?.target.extensions?.KHR_animation_pointer?.pointer, COLOUR, name);
    assert.deepEqual(floats(out, animation.samplers[channel.sampler].input), KEY_TIMES, name);
  }
  assert.ok(!result.warnings.some((w) => w.includes('go with it')), result.warnings.join(' | '));
});
