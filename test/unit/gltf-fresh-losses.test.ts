/**
 * A fresh export of a scene read from a glTF names what that file holds and the fresh export cannot write: vertex
 * colours, a second texture coordinate set, the file's tangents, cameras, lights and the animation of nodes that are
 * not joints. The source here is made with glTF-Transform so that each kind is there once, on named things.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Document, WebIO } from '@gltf-transform/core';
import { KHRLightsPunctual } from '@gltf-transform/extensions';
import { exportGltf } from '../../workers/formats/gltf-export.ts';
import { importGltf } from '../../workers/formats/gltf-import.ts';

/** A two-joint strip with COLOR_0, TEXCOORD_0/1 and TANGENT, a camera, a light and an animated prop node. */
async function richSource(): Promise<Uint8Array> {
  const doc = new Document();
  const buffer = doc.createBuffer();
  const accessor = (type: 'SCALAR' | 'VEC2' | 'VEC3' | 'VEC4' | 'MAT4', array: Float32Array | Uint16Array) =>
    doc.createAccessor().setType(type).setArray(array).setBuffer(buffer);
  const primitive = doc
    .createPrimitive()
    .setAttribute('POSITION', accessor('VEC3', new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0])))
    .setAttribute('NORMAL', accessor('VEC3', new Float32Array([0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1])))
    .setAttribute('TANGENT', accessor('VEC4', new Float32Array([1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1])))
    .setAttribute('TEXCOORD_0', accessor('VEC2', new Float32Array([0, 0, 1, 0, 0, 1, 1, 1])))
    .setAttribute('TEXCOORD_1', accessor('VEC2', new Float32Array([0, 0, 0.5, 0, 0, 0.5, 0.5, 0.5])))
    .setAttribute('COLOR_0', accessor('VEC4', new Float32Array([1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1, 1, 1, 1, 1])))
    .setAttribute('JOINTS_0', accessor('VEC4', new Uint16Array([0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0])))
    .setAttribute('WEIGHTS_0', accessor('VEC4', new Float32Array([1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0])))
    .setIndices(accessor('SCALAR', new Uint16Array([0, 1, 3, 0, 3, 2])));
  const mesh = doc.createMesh('strip').addPrimitive(primitive);
  const hip = doc.createNode('hip');
  const knee = doc.createNode('knee').setTranslation([0, 1, 0]);
  hip.addChild(knee);
  const ibm = new Float32Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1]);
  const skin = doc.createSkin('legs').addJoint(hip).addJoint(knee).setInverseBindMatrices(accessor('MAT4', ibm));
  const body = doc.createNode('body').setMesh(mesh).setSkin(skin);
  const camera = doc.createNode('shot').setCamera(doc.createCamera('lens').setType('perspective').setYFov(0.8).setZNear(0.1));
  const lights = doc.createExtension(KHRLightsPunctual);
  const lamp = doc.createNode('lamp').setExtension('KHR_lights_punctual', lights.createLight('key').setType('point'));
  const prop = doc.createNode('prop').setTranslation([2, 0, 0]);
  doc.createScene('scene').addChild(hip).addChild(body).addChild(camera).addChild(lamp).addChild(prop);
  const times = accessor('SCALAR', new Float32Array([0, 1]));
  const sampler = (values: Float32Array, type: 'VEC3' | 'VEC4') =>
    doc.createAnimationSampler().setInput(times).setOutput(accessor(type, values)).setInterpolation('LINEAR');
  const turn = sampler(new Float32Array([0, 0, 0, 1, 0, 0, Math.SQRT1_2, Math.SQRT1_2]), 'VEC4');
  const slide = sampler(new Float32Array([2, 0, 0, 3, 0, 0]), 'VEC3');
  doc
    .createAnimation('Wave')
    .addSampler(turn)
    .addSampler(slide)
    .addChannel(doc.createAnimationChannel().setTargetNode(knee).setTargetPath('rotation').setSampler(turn))
    .addChannel(doc.createAnimationChannel().setTargetNode(prop).setTargetPath('translation').setSampler(slide));
  return new WebIO().registerExtensions([KHRLightsPunctual]).writeBinary(doc);
}

test('a fresh export of a scene read from a glTF names its vertex colours, second UV set, tangents, camera, light and the animated prop', async () => {
  const bytes = await richSource();
  const rig = await importGltf(bytes, 'rich.glb');
  const scene = { mesh: rig.mesh, skeleton: rig.skeleton, weights: rig.weights, boneNames: rig.boneNames, clips: rig.clips };
  const plain = await exportGltf(scene, 'fresh.glb');
  assert.ok(
    !plain.warnings.some((w) => /rich\.glb/.test(w)),
    `without its source the export names none of it: ${plain.warnings.join(' | ')}`,
  );
  const { warnings } = await exportGltf({ ...scene, source: { file: 'rich.glb', bytes, resources: {} } }, 'fresh.glb');
  const find = (pattern: RegExp): string | undefined => warnings.find((w) => pattern.test(w));
  assert.match(find(/vertex colours/) ?? '', /rich\.glb's meshes strip/);
  assert.match(find(/TEXCOORD_1/) ?? '', /strip/);
  assert.match(find(/tangents/) ?? '', /strip/);
  assert.match(find(/camera/) ?? '', /^1 camera of rich\.glb is not written/);
  assert.match(find(/KHR_lights_punctual/) ?? '', /^1 light of rich\.glb/);
  // The knee is a joint: its rotation is the clip; the prop's translation is what is left out.
  const animated = find(/is not a joint/) ?? '';
  assert.match(animated, /prop \(translation\)/);
  assert.doesNotMatch(animated, /knee/);
  // The export itself holds none of them.
  const written = await new WebIO().registerExtensions([KHRLightsPunctual]).readBinary(plain.bytes);
  const semantics = written
    .getRoot()
    .listMeshes()
    .flatMap((m) => m.listPrimitives().flatMap((p) => p.listSemantics()));
  assert.ok(!semantics.includes('COLOR_0') && !semantics.includes('TEXCOORD_1'), `fresh export semantics: ${semantics.join(', ')}`);
  assert.equal(written.getRoot().listCameras().length, 0, 'no camera written');
});

test('a fresh export of a plain skinned glTF adds no such notice', async () => {
  const doc = new Document();
  const buffer = doc.createBuffer();
  const accessor = (type: 'SCALAR' | 'VEC3' | 'VEC4' | 'MAT4', array: Float32Array | Uint16Array) =>
    doc.createAccessor().setType(type).setArray(array).setBuffer(buffer);
  const primitive = doc
    .createPrimitive()
    .setAttribute('POSITION', accessor('VEC3', new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0])))
    .setAttribute('JOINTS_0', accessor('VEC4', new Uint16Array(12)))
    .setAttribute('WEIGHTS_0', accessor('VEC4', new Float32Array([1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0])));
  const joint = doc.createNode('joint');
  const skin = doc
    .createSkin()
    .addJoint(joint)
    .setInverseBindMatrices(accessor('MAT4', new Float32Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])));
  doc
    .createScene()
    .addChild(joint)
    .addChild(doc.createNode('tri').setMesh(doc.createMesh('tri').addPrimitive(primitive)).setSkin(skin));
  const bytes = await new WebIO().writeBinary(doc);
  const rig = await importGltf(bytes, 'plain.glb');
  const { warnings } = await exportGltf(
    { mesh: rig.mesh, skeleton: rig.skeleton, weights: rig.weights, source: { file: 'plain.glb', bytes, resources: {} } },
    'fresh.glb',
  );
  assert.deepEqual(
    warnings.filter((w) => /plain\.glb/.test(w)),
    [],
    'nothing of plain.glb is left out',
  );
});

test('a source that no longer parses (its JSON cut short) does not stop a fresh export: one line says its losses could not be checked', async () => {
  const bytes = await richSource();
  const rig = await importGltf(bytes, 'rich.glb');
  const scene = { mesh: rig.mesh, skeleton: rig.skeleton, weights: rig.weights, boneNames: rig.boneNames, clips: rig.clips };
  // A .gltf whose text ends inside its first object; its name holds a line break, which the notice must not.
  const cut = new TextEncoder().encode('{"asset": {"version": "2.0"}, "meshes": [{"name": "strip"');
  const { bytes: written, warnings } = await exportGltf(
    { ...scene, source: { file: 'cut\nshort.gltf', bytes: cut, resources: {} } },
    'fresh.glb',
  );
  const unchecked = warnings.filter((w) => /could not be checked/.test(w));
  assert.equal(unchecked.length, 1, `one such notice: ${warnings.join(' | ')}`);
  assert.match(unchecked[0], /^what the export leaves out of cut short\.gltf could not be checked: cut short\.gltf: /);
  assert.doesNotMatch(unchecked[0], /\n/, 'on one line');
  assert.ok(!warnings.some((w) => /vertex colours|camera|light/.test(w)), `no loss is named: ${warnings.join(' | ')}`);
  // The file is written all the same, the whole scene in it.
  const back = await importGltf(written, 'fresh.glb');
  assert.equal(back.mesh.positions.length, rig.mesh.positions.length, 'every vertex written');
  assert.equal(back.skeleton.parents.length, rig.skeleton.parents.length, 'every bone written');
});
