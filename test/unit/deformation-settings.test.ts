/**
 * The viewport's deformation settings (renderer/deform/deformation-settings.ts): the M key's cycle, the split view,
 * the heat map and the examples' map (which takes the heat map's place), antipodality and the blend weights, and
 * the notifications each setter sends.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DeformationSettings, type DeformationSetting } from '../../renderer/deform/deformation-settings.ts';

function recorded(settings: DeformationSettings): DeformationSetting[] {
  const heard: DeformationSetting[] = [];
  settings.subscribe((setting) => heard.push(setting));
  return heard;
}

test('a new scene shows linear blend, per-vertex antipodality, one view, no map and an all-LBS blend', () => {
  const settings = new DeformationSettings(5);
  assert.equal(settings.method, 'lbs');
  assert.equal(settings.antipodality, 'per-vertex');
  assert.equal(settings.splitMethod, null);
  assert.equal(settings.heatMap, false);
  assert.equal(settings.exampleMap, 'off');
  assert.equal(settings.vertexMap, 'none');
  assert.deepEqual(Array.from(settings.blendWeights), [0, 0, 0, 0, 0]);
  assert.deepEqual(settings.methodsShown, ['lbs']);
  assert.equal(settings.usesPerFace, false);
});

test('the M key cycles linear blend → dual quaternion → per-face → linear blend; a method outside the cycle goes to its start', () => {
  const settings = new DeformationSettings(1);
  const heard = recorded(settings);
  const seen: string[] = [];
  for (let i = 0; i < 4; i++) {
    settings.cycleMethod();
    seen.push(settings.method);
  }
  assert.deepEqual(seen, ['dqs', 'perface', 'lbs', 'dqs']);
  assert.deepEqual(heard, ['method', 'method', 'method', 'method']);
  for (const outside of ['blend', 'context-dqs', 'context-perface-eq10'] as const) {
    settings.setMethod(outside);
    settings.cycleMethod();
    assert.equal(settings.method, 'lbs', `M from ${outside}`);
  }
});

test('the split view adds its method to the ones shown, per-face on either side counts, and closing it leaves one', () => {
  const settings = new DeformationSettings(1);
  const heard = recorded(settings);
  settings.setSplit('dqs');
  assert.deepEqual(settings.methodsShown, ['lbs', 'dqs']);
  assert.equal(settings.usesPerFace, false);
  settings.setSplit('context-perface-eq9');
  assert.equal(settings.usesPerFace, true, 'a per-face context method in the right half is solved per face');
  settings.setMethod('perface');
  settings.setSplit(null);
  assert.equal(settings.splitMethod, null);
  assert.deepEqual(settings.methodsShown, ['perface']);
  assert.equal(settings.usesPerFace, true, 'per-face on the left');
  assert.deepEqual(heard, ['split', 'split', 'method', 'split']);
});

test('the examples map takes the place of the heat map while on, and the heat map comes back when it is off', () => {
  const settings = new DeformationSettings(1);
  const heard = recorded(settings);
  settings.setHeatMap(true);
  assert.equal(settings.vertexMap, 'distortion');
  settings.setExampleMap('displacement');
  assert.equal(settings.vertexMap, 'example');
  assert.equal(settings.heatMap, true, 'the heat map setting itself stays on');
  settings.setExampleMap('error');
  assert.equal(settings.vertexMap, 'example');
  settings.setExampleMap('off');
  assert.equal(settings.vertexMap, 'distortion');
  settings.setHeatMap(false);
  assert.equal(settings.vertexMap, 'none');
  settings.setExampleMap('error');
  assert.equal(settings.vertexMap, 'example', 'the examples map needs no heat map');
  assert.deepEqual(heard, ['heatMap', 'exampleMap', 'exampleMap', 'exampleMap', 'heatMap', 'exampleMap']);
});

test('antipodality and a repeated choice notify too (the views are fed again)', () => {
  const settings = new DeformationSettings(1);
  const heard = recorded(settings);
  settings.setAntipodality('per-bone');
  assert.equal(settings.antipodality, 'per-bone');
  settings.setAntipodality('per-bone');
  settings.setMethod('lbs');
  assert.deepEqual(heard, ['antipodality', 'antipodality', 'method']);
});

test('blend weights are copied in, a longer array is refused, and a new mesh starts over at LBS without a notification', () => {
  const settings = new DeformationSettings(3);
  const heard = recorded(settings);
  const array = settings.blendWeights;
  const blend = Float32Array.from([0.25, 1, 0.5]);
  settings.setBlendWeights(blend);
  blend[0] = 0.75;
  assert.deepEqual(Array.from(settings.blendWeights), [0.25, 1, 0.5], 'the settings keep their own copy');
  assert.equal(settings.blendWeights, array, 'in the same array the views were given');
  settings.setBlendWeights([0]);
  assert.deepEqual(Array.from(settings.blendWeights), [0, 1, 0.5], 'a shorter array sets the first vertices');
  assert.throws(() => settings.setBlendWeights([0, 0, 0, 0]), RangeError);
  assert.deepEqual(heard, ['blendWeights', 'blendWeights']);
  settings.startMesh(2);
  assert.notEqual(settings.blendWeights, array);
  assert.deepEqual(Array.from(settings.blendWeights), [0, 0]);
  assert.deepEqual(heard, ['blendWeights', 'blendWeights'], 'startMesh tells no listener');
});

test('an unsubscribed listener hears nothing more', () => {
  const settings = new DeformationSettings(1);
  const heard: DeformationSetting[] = [];
  const stop = settings.subscribe((s) => heard.push(s));
  settings.setHeatMap(true);
  stop();
  settings.setHeatMap(false);
  assert.deepEqual(heard, ['heatMap']);
});
