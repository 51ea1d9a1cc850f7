/**
 * The settings store: each feature's section saves what it holds and takes a project's values back, through the real
 * paint, binding and deformation settings; a name this version does not know keeps the current setting; a section
 * registered twice, or one no feature owns, is an error that names it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SettingsStore, type SettingsSection } from '../../renderer/project/settings-store.ts';
import { DeformationSettings } from '../../renderer/deform/deformation-settings.ts';
import { exportSettingsSection } from '../../renderer/shell/view-settings.ts';
import { defaultProjectSettings, type ProjectSettings } from '../../workers/formats/project-file.ts';

function recorder<K extends keyof ProjectSettings>(value: ProjectSettings[K], log: string[], key: K): SettingsSection<K> {
  let held = value;
  return {
    save: () => held,
    restore: (saved) => {
      held = saved;
      log.push(key);
    },
  };
}

test('a snapshot holds every section; restore gives each its values, the view last', () => {
  const defaults = defaultProjectSettings(4, 2);
  const log: string[] = [];
  const store = new SettingsStore();
  const skin = new DeformationSettings(4);
  const exported = { influences: 4, weightComponent: 'float' as const as 'float' | 'unsigned-byte' | 'unsigned-short' };
  store.register('view', recorder(defaults.view, log, 'view'));
  store.register('skin', skin.section);
  store.register('export', exportSettingsSection(exported));
  store.register('paint', recorder(defaults.paint, log, 'paint'));
  store.register('posespace', recorder(defaults.posespace, log, 'posespace'));
  store.register('binding', recorder(defaults.binding, log, 'binding'));

  skin.setMethod('dqs');
  skin.setSplit('lbs');
  skin.setBlendWeights([0, 0.5, 1, 0]);
  const saved = store.snapshot();
  assert.deepEqual(saved.skin, {
    method: 'dqs',
    antipodality: 'per-vertex',
    split: 'lbs',
    heatMap: false,
    blend: new Float32Array([0, 0.5, 1, 0]),
  });
  assert.deepEqual(saved.export, { format: 'glb', influences: 4, weightComponent: 'float' });

  const other = new DeformationSettings(4);
  const otherExport = { ...exported };
  const next = new SettingsStore();
  next.register('skin', other.section);
  next.register('export', exportSettingsSection(otherExport));
  for (const key of ['view', 'paint', 'posespace', 'binding'] as const) next.register(key, recorder(defaults[key] as never, log, key));
  next.restore({ ...saved, export: { format: 'glb', influences: 8, weightComponent: 'unsigned-short' } });
  assert.equal(other.method, 'dqs');
  assert.equal(other.splitMethod, 'lbs');
  assert.deepEqual([...other.blendWeights], [0, 0.5, 1, 0]);
  // The export's influences are the scene's max influences (the paint section's), not restored from the export's.
  assert.deepEqual(otherExport, { influences: 4, weightComponent: 'unsigned-short' });
  assert.equal(log.at(-1), 'view', 'the view is restored last (it may depend on the method and the export)');

  // A project from a later version: names this one does not know keep the current settings.
  next.restore({ ...saved, skin: { ...saved.skin, method: 'future-method', antipodality: 'sideways', split: 'nope' } });
  assert.equal(other.method, 'dqs', 'an unknown method keeps the current one');
  assert.equal(other.antipodality, 'per-vertex');
  assert.equal(other.splitMethod, null, 'an unknown split method shows one view');
});

test('a section registered twice, or missing, is an error naming it', () => {
  const store = new SettingsStore();
  const defaults = defaultProjectSettings(1, 1);
  store.register('view', recorder(defaults.view, [], 'view'));
  assert.throws(() => store.register('view', recorder(defaults.view, [], 'view')), /settings section view is registered twice/);
  assert.throws(() => store.snapshot(), /settings section skin has no owner/);
});
