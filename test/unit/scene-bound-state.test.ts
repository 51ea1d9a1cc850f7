/**
 * renderer/shell/scene-bound-state.ts in Node, with a stand-in app: a new scene switches off the examples' heat map,
 * the distortion map and the unposed examples' row and stops the unposing; the status line lists each overlay on with
 * the command that switches it off, and nothing when none is.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { overlayFields, resetSceneBoundState, type SceneBoundHost } from '../../renderer/shell/scene-bound-state.ts';
import type { ExampleMapMode } from '../../renderer/deform/deformation-settings.ts';

function standIn(exampleMap: ExampleMapMode, heatMap: boolean, unposedShown: boolean, asExported = false) {
  const calls: string[] = [];
  const deformation = {
    exampleMap,
    heatMap,
    setExampleMap(mode: ExampleMapMode) {
      calls.push(`exampleMap ${mode}`);
      deformation.exampleMap = mode;
    },
    setHeatMap(on: boolean) {
      calls.push(`heatMap ${on}`);
      deformation.heatMap = on;
    },
  };
  const unposedDisplay = {
    shown: unposedShown,
    hide() {
      calls.push('unposed hidden');
      unposedDisplay.shown = false;
    },
  };
  const app: SceneBoundHost = {
    deformation,
    unposedDisplay,
    posespace: { sceneOpened: () => void calls.push('unposing stopped') },
    asExported,
    exportDialog: { settings: { influences: 4, weightComponent: 'unsigned-byte' } },
  };
  return { app, calls };
}

test('the status line names each overlay on, each with the command that switches it off', () => {
  assert.deepEqual(overlayFields(standIn('off', false, false).app), [], 'none on, no field');
  assert.deepEqual(overlayFields(standIn('error', true, true).app), [
    { text: 'overlay: example error map ×', command: 'examples.mapOff' },
    { text: 'overlay: unposed examples ×', command: 'examples.showUnposed' },
  ]);
  assert.deepEqual(
    overlayFields(standIn('displacement', false, false).app),
    [{ text: 'overlay: example displacement map ×', command: 'examples.mapOff' }],
    'the displacement map by its name',
  );
  assert.deepEqual(
    overlayFields(standIn('off', true, false).app),
    [{ text: 'overlay: area change heat map ×', command: 'skin.heatMap' }],
    'the distortion map shows when no example map takes its place',
  );
});

test('a new scene switches every overlay off and stops the unposing; what is off is left alone', () => {
  const on = standIn('error', true, true);
  resetSceneBoundState(on.app);
  assert.deepEqual(on.calls, ['exampleMap off', 'heatMap false', 'unposed hidden', 'unposing stopped']);
  assert.deepEqual(overlayFields(on.app), [], 'nothing left for the status line');

  const off = standIn('off', false, false);
  resetSceneBoundState(off.app);
  assert.deepEqual(off.calls, ['unposing stopped'], 'no setting is set again when it is already off');
});

test('the preview as exported is an overlay named with what it previews, switched off by its command; a new scene leaves it', () => {
  const exported = standIn('off', false, false, true);
  assert.deepEqual(
    overlayFields(exported.app),
    [{ text: 'overlay: as exported, 4 × unsigned byte, LBS ×', command: 'view.asExported' }],
    'four influences stored as unsigned bytes, drawn by linear blend',
  );
  assert.deepEqual(
    overlayFields(standIn('displacement', false, true, true).app).map((f) => (typeof f === 'string' ? f : f.command)),
    ['examples.mapOff', 'examples.showUnposed', 'view.asExported'],
    'with the example map and the unposed row, each its own field',
  );
  resetSceneBoundState(exported.app);
  assert.deepEqual(exported.calls, ['unposing stopped'], 'the preview belongs to the export settings, not the scene');
});
