/**
 * The user's preferences: defaults when nothing is stored, values saved and read back by a second store (a reload),
 * a stored value that cannot be used falling back to its default with a warning naming it, a feature's own entry.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  PREFERENCE_DEFAULTS,
  PREFERENCES_STORAGE_KEY,
  PREFERENCES_VERSION,
  PreferenceStore,
  numberPreference,
  type Preference,
  type PreferenceStorage,
} from '../../renderer/project/preferences.ts';
import { KEYS_PREFERENCE, type KeyOverrides } from '../../renderer/commands/user-keymap.ts';
import { formatLength, showLengthsIn } from '../../renderer/project/length-units.ts';

/** localStorage's contract over a Map. */
function memoryStorage(initial: Record<string, string> = {}): PreferenceStorage & { map: Map<string, string> } {
  const map = new Map(Object.entries(initial));
  return { map, getItem: (key) => map.get(key) ?? null, setItem: (key, value) => void map.set(key, value) };
}

/** The user's keys, registered in `store` as the shell does (once per store). */
const registeredKeys = new WeakMap<PreferenceStore, Preference<KeyOverrides>>();
function userKeys(store: PreferenceStore): Preference<KeyOverrides> {
  let keys = registeredKeys.get(store);
  if (!keys) registeredKeys.set(store, (keys = store.register(KEYS_PREFERENCE)));
  return keys;
}

const stored = (values: unknown, version = PREFERENCES_VERSION) => ({ [PREFERENCES_STORAGE_KEY]: JSON.stringify({ version, values }) });

test('with nothing stored every preference is its default, and nothing is written until one is set', () => {
  const storage = memoryStorage();
  const store = new PreferenceStore(storage);
  assert.equal(store.core.theme.get(), 'dark');
  assert.deepEqual(store.core.lengthUnits.get(), { unit: 'scene', metresPerUnit: 1 });
  assert.equal(store.core.maxInfluences.get(), 4);
  assert.deepEqual(store.core.brush.get(), { mode: 'add', radius: 40, strength: 0.3, falloff: 'smooth' });
  assert.deepEqual(userKeys(store).get(), {});
  assert.deepEqual(store.warnings, []);
  assert.equal(storage.map.size, 0, 'reading writes nothing');
});

test('a value set is saved, told to subscribers, and read back by the next store (a reload)', () => {
  const storage = memoryStorage();
  const store = new PreferenceStore(storage);
  const seen: string[] = [];
  const unsubscribe = store.core.theme.subscribe((theme) => seen.push(theme));
  store.core.theme.set('light');
  store.core.brush.set({ mode: 'smooth', radius: 64, strength: 0.5, falloff: 'linear' });
  userKeys(store).set({ 'view.frameAll': ['Q'] });
  unsubscribe();
  store.core.theme.set('dark');
  store.core.theme.set('light');
  assert.deepEqual(seen, ['light'], 'subscribed until unsubscribed');
  const saved = JSON.parse(storage.map.get(PREFERENCES_STORAGE_KEY)!) as { version: number; values: Record<string, unknown> };
  assert.equal(saved.version, 1);
  assert.equal(saved.values.theme, 'light');
  const reloaded = new PreferenceStore(storage);
  assert.equal(reloaded.core.theme.get(), 'light');
  assert.deepEqual(reloaded.core.brush.get(), { mode: 'smooth', radius: 64, strength: 0.5, falloff: 'linear' });
  assert.deepEqual(userKeys(reloaded).get(), { 'view.frameAll': ['Q'] });
  assert.deepEqual(reloaded.warnings, []);
});

test('a value the entry does not take is refused with an error naming the preference, and nothing changes', () => {
  const storage = memoryStorage();
  const store = new PreferenceStore(storage);
  assert.throws(() => store.core.theme.set('purple' as 'dark'), /preference theme: "purple" is not one of "dark", "light"/);
  assert.throws(
    () => store.core.brush.set({ ...PREFERENCE_DEFAULTS.brush, radius: 1000 }),
    /preference brush: radius 1000 is not a number in 2 … 400/,
  );
  assert.equal(store.core.theme.get(), 'dark');
  assert.equal(storage.map.size, 0);
});

test('storage that is not JSON, not { version, values }, or unreadable gives every default with one warning', () => {
  for (const [text, reason] of [
    ['{not json', /not JSON/],
    ['[1, 2]', /not \{ version, values \}/],
    ['{"values": {"theme": "light"}}', /not \{ version, values \}/],
  ] as const) {
    const store = new PreferenceStore(memoryStorage({ [PREFERENCES_STORAGE_KEY]: text }));
    assert.equal(store.core.theme.get(), 'dark', text);
    assert.equal(store.warnings.length, 1, text);
    assert.match(store.warnings[0], reason);
  }
  const throwing: PreferenceStorage = {
    getItem: () => {
      throw new Error('access denied');
    },
    setItem: () => {
      throw new Error('quota exceeded');
    },
  };
  const warned: string[] = [];
  const store = new PreferenceStore(throwing, (message) => warned.push(message));
  assert.deepEqual(warned, ['Preferences could not be read (access denied); the defaults are used']);
  store.core.theme.set('light');
  assert.equal(store.core.theme.get(), 'light', 'the value holds for this page');
  assert.match(warned[1], /could not be saved \(quota exceeded\); they hold for this page only/);
});

test('each bad stored value falls back to its own default with a warning naming it; the good ones are kept', () => {
  const store = new PreferenceStore(
    memoryStorage(
      stored({
        theme: 'purple',
        lengthUnits: { unit: 'cm', metresPerUnit: 0.01 },
        maxInfluences: 5,
        brush: { mode: 'add', radius: -3, strength: 0.3, falloff: 'smooth' },
        keys: { 'no.suchCommand': ['Q'] },
      }),
    ),
  );
  assert.equal(store.core.theme.get(), 'dark');
  assert.deepEqual(store.core.lengthUnits.get(), { unit: 'cm', metresPerUnit: 0.01 });
  assert.equal(store.core.maxInfluences.get(), 5);
  assert.deepEqual(store.core.brush.get(), PREFERENCE_DEFAULTS.brush);
  assert.deepEqual(userKeys(store).get(), {});
  assert.deepEqual(store.warnings, [
    'Preference “Theme” could not be read ("purple" is not one of "dark", "light"); the default is used',
    'Preference “Brush” could not be read (radius -3 is not a number in 2 … 400); the default is used',
    'Preference “Keys”: "no.suchCommand" is not a command; its keys are dropped',
  ]);
});

test('stored keys are checked command by command: a bad entry drops only itself, with a warning naming it', () => {
  // An upgrade renamed a command: its keys go, the others stay.
  const storage = memoryStorage(
    stored({
      keys: {
        'view.frameAll': ['Q'],
        'view.oldName': ['Mod+Alt+O'],
        'view.wireframe': 'K',
        'paint.brushRadius': ['Mod+Alt+R'],
        'edit.redo': ['Mod+Shift+Z', 'Mod+Alt+R'],
      },
    }),
  );
  const store = new PreferenceStore(storage);
  assert.deepEqual(userKeys(store).get(), { 'view.frameAll': ['Q'], 'edit.redo': ['Mod+Shift+Z', 'Mod+Alt+R'] });
  assert.equal(store.warnings.length, 3);
  assert.match(store.warnings[0], /^Preference “Keys”: "view\.oldName" is not a command; its keys are dropped$/);
  assert.match(store.warnings[1], /the keys of view\.wireframe, "K", are not a list of keys/);
  assert.match(store.warnings[2], /“Brush radius” \(paint\.brushRadius\) needs an argument, which a key cannot give/);
  assert.match(storage.map.get(PREFERENCES_STORAGE_KEY)!, /view\.oldName/, 'reading writes nothing');
  store.core.theme.set('light');
  const resaved = new PreferenceStore(storage);
  assert.deepEqual(userKeys(resaved).get(), { 'view.frameAll': ['Q'], 'edit.redo': ['Mod+Shift+Z', 'Mod+Alt+R'] });
  assert.deepEqual(resaved.warnings, [], 'the next save wrote only what is used');
});

test('a stored user key that clashes with a key of the table wins, and the table’s key leaves its command', () => {
  // W is Wireframe's key in the table; the user gave it to Frame all.
  const store = new PreferenceStore(memoryStorage(stored({ keys: { 'view.frameAll': ['W'] } })));
  assert.deepEqual(userKeys(store).get(), { 'view.frameAll': ['W'], 'view.wireframe': [] });
  assert.deepEqual(store.warnings, ['Preference “Keys”: W runs “Frame all” as you set it; “Wireframe” no longer has it']);
  const good = new PreferenceStore(memoryStorage(stored({ keys: { 'edit.redo': ['Mod+Shift+Z', 'Mod+Alt+R'], 'view.wireframe': [] } })));
  assert.deepEqual(userKeys(good).get(), { 'edit.redo': ['Mod+Shift+Z', 'Mod+Alt+R'], 'view.wireframe': [] });
  assert.deepEqual(good.warnings, []);
  assert.throws(() => userKeys(good).set({ 'view.frameAll': ['W'] }), /preference keys: W runs “Frame all” as you set it/);
});

test('a newer version is read entry by entry, with a warning', () => {
  const store = new PreferenceStore(memoryStorage(stored({ theme: 'light' }, PREFERENCES_VERSION + 1)));
  assert.equal(store.core.theme.get(), 'light');
  assert.match(store.warnings[0], /saved by a newer version \(2; this one reads 1\)/);
});

test("a feature registers its own preference: its stored value is used, it is listed after the core ones, and saving keeps others'", () => {
  const storage = memoryStorage(stored({ 'gizmo.size': 6, 'feature.notYetRegistered': 'kept' }));
  const store = new PreferenceStore(storage);
  const listed: string[] = [];
  store.onRegistered((entry) => listed.push(entry.key));
  const entry = numberPreference({
    key: 'gizmo.size',
    label: 'Gizmo size',
    section: 'New scene',
    default: 4,
    min: 0,
    max: 16,
    step: 1,
  });
  const gizmo = store.register(entry);
  assert.equal(gizmo.get(), 6);
  assert.deepEqual(listed, ['gizmo.size']);
  assert.deepEqual(
    store.entries().map((e) => e.key),
    ['theme', 'lengthUnits', 'maxInfluences', 'brush', 'gizmo.size'],
  );
  assert.throws(() => store.register(entry), /preference gizmo\.size is registered twice/);
  assert.throws(() => gizmo.set(2.5), /preference gizmo\.size: 2\.5 is not a whole number/);
  gizmo.set(8);
  const saved = JSON.parse(storage.map.get(PREFERENCES_STORAGE_KEY)!) as { values: Record<string, unknown> };
  assert.equal(saved.values['gizmo.size'], 8);
  assert.equal(saved.values['feature.notYetRegistered'], 'kept', 'a value no feature registered yet is kept');
  const bad = new PreferenceStore(memoryStorage(stored({ 'gizmo.size': 99 })));
  assert.equal(bad.register(entry).get(), 4);
  assert.match(bad.warnings[0], /“Gizmo size” could not be read \(99 is outside 0 … 16\)/);
});

test('lengths are shown in scene units, or in m, cm or mm through the scene’s scale', () => {
  assert.equal(formatLength(0.123456), '0.123');
  assert.equal(formatLength(0.123456, { unit: 'cm', metresPerUnit: 1 }), '12.3 cm');
  assert.equal(formatLength(0.123456, { unit: 'mm', metresPerUnit: 1 }), '123 mm');
  // A scene modelled in centimetres: 12.3456 units are 12.3 cm, 0.123 m.
  assert.equal(formatLength(12.3456, { unit: 'm', metresPerUnit: 0.01 }), '0.123 m');
  assert.equal(formatLength(12.3456, { unit: 'cm', metresPerUnit: 0.01 }), '12.3 cm');
  // Plain decimals, never an exponent: 1e-7 scene units is too small to see, 12345.6 units is 12300 (3 digits).
  assert.equal(formatLength(1e-7), '< 0.001');
  assert.equal(formatLength(0.00042, { unit: 'mm', metresPerUnit: 1 }), '0.42 mm');
  assert.equal(formatLength(1e-7, { unit: 'm', metresPerUnit: 1 }), '< 0.001 m');
  assert.equal(formatLength(12345.6), '12300');
  assert.equal(formatLength(2.5e-5, { unit: 'mm', metresPerUnit: 100 }), '2.5 mm');
  assert.doesNotMatch(formatLength(3e-9, { unit: 'cm', metresPerUnit: 1e6 }), /e/, 'no exponent');
  try {
    showLengthsIn({ unit: 'mm', metresPerUnit: 0.01 });
    assert.equal(formatLength(2), '20 mm');
  } finally {
    showLengthsIn(PREFERENCE_DEFAULTS.lengthUnits);
  }
});
