/**
 * The menu bar and the command palette, as the catalog makes them: every command is in a menu or says why not (and a
 * reason that points at a menu item names one that is there); the menus are the desktop's seven, each small enough for
 * the desktop's native menu; the palette lists every command with its key, greys what takes an argument or cannot run
 * now with the reason, and its search finds commands by words of their title, their menu or their id, and by letters
 * in order.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isMenuSeparator, MAX_MENU_ITEMS, type MenuEntryModel } from '../../app/ipc-contract.ts';
import { validateMenuModel } from '../../app/ipc-validate.ts';
import { COMMANDS, MENU_GROUPS, type CommandId } from '../../renderer/commands/command-catalog.ts';
import { CommandRegistry, type CommandHandlers } from '../../renderer/commands/command-registry.ts';
import { displayKeys, resolveKey } from '../../renderer/commands/keybindings.ts';
import { MENUS, searchCommands, type PaletteEntry } from '../../renderer/commands/menus.ts';
import { menuModel, paletteEntries } from '../../renderer/shell/menu-model.ts';

const IDS = Object.keys(COMMANDS) as CommandId[];

/** A registry with a do-nothing handler for every command, in the context given. */
function registryWith(context: Record<string, string | boolean>, extra: CommandHandlers = {}): CommandRegistry {
  const registry = new CommandRegistry(() => context);
  for (const id of IDS) registry.register(id, (extra[id] ?? { run: () => undefined }) as never);
  return registry;
}

test('menu bar: every command is in a menu, or the catalog says why it is not', () => {
  const missing = IDS.filter((id) => !COMMANDS[id].menu && !COMMANDS[id].noMenu?.trim());
  assert.deepEqual(missing, [], `commands with no menu entry and no noMenu reason: ${missing.join(', ')}`);
  const both = IDS.filter((id) => COMMANDS[id].menu && COMMANDS[id].noMenu);
  assert.deepEqual(both, [], `commands in a menu that also say why they are in none: ${both.join(', ')}`);
  // Commands that only a key or no control reached in the web build are in its menus.
  for (const [id, menu] of [
    ['playback.bakeClip', 'Playback'],
    ['file.autosaveSettings', 'File'],
    ['file.saveAs', 'File'],
    ['tool.brush', 'Paint'],
    ['view.commandPalette', 'View'],
  ] as const)
    assert.equal(COMMANDS[id].menu, menu, `${id} is in the ${menu} menu`);
});

test('menu bar: a reason pointing at a menu item ("Rig → Pose tool") names an item of that menu', () => {
  const arrows = /\b([A-Z][a-z]+) → ([^,;()]+?)(?=$|[,;()]| sets| steps)/g;
  let checked = 0;
  for (const id of IDS) {
    for (const [, menu, label] of (COMMANDS[id].noMenu ?? '').matchAll(arrows)) {
      assert.ok((MENUS as readonly string[]).includes(menu), `${id}: "${menu}" in its noMenu reason is a menu`);
      // A long label is named by its part before the colon ('Next view' for 'Next view: look, shaded, …').
      const item = IDS.find((other) => COMMANDS[other].menu === menu && COMMANDS[other].label.split(':')[0] === label.trim());
      assert.ok(item, `${id}: its noMenu reason names "${menu} → ${label.trim()}", which is an item of that menu`);
      checked++;
    }
  }
  assert.ok(checked >= 8, `the reasons name ${checked} menu items`);
});

test('menu bar: the menus are File, Edit, View, Rig, Paint, Playback, Help, each within what the desktop menu takes', () => {
  assert.deepEqual([...MENUS], ['File', 'Edit', 'View', 'Rig', 'Paint', 'Playback', 'Help']);
  const model = menuModel(registryWith({ toolBusy: false, hasSkeleton: true }));
  assert.deepEqual(
    model.map((menu) => menu.label),
    [...MENUS],
  );
  for (const menu of model) assert.ok(menu.items.length <= MAX_MENU_ITEMS, `${menu.label}: ${menu.items.length} items`);
  // Every command with a menu is in it once (the recent files only while there are some: hideWhenDisabled), group by
  // group in the catalog's group order, catalog order within a group, a separator ('—') between two groups.
  const row = (item: MenuEntryModel): string => (isMenuSeparator(item) ? '—' : item.command);
  const shown = model.map((menu) => `${menu.label}: ${menu.items.map(row).join(' ')}`);
  const expected = MENUS.map((menu) => {
    const groups = MENU_GROUPS[menu].map((group) => IDS.filter((id) => COMMANDS[id].menu === menu && COMMANDS[id].group === group));
    return `${menu}: ${groups
      .filter((ids) => ids.length > 0)
      .map((ids) => ids.join(' '))
      .join(' — ')}`;
  });
  assert.deepEqual(shown, expected);
  // The desktop shell takes the model as it is: separators in their places, every key an accelerator it accepts.
  assert.deepEqual(validateMenuModel('setMenu', model), model);
  // Undo and Redo lead Edit, alone in their group; the File menu starts with opening and saving.
  assert.deepEqual(model[1].items.slice(0, 3).map(row), ['edit.undo', 'edit.redo', '—']);
  assert.deepEqual(
    model[0].items.slice(0, 5).map((item) => (isMenuSeparator(item) ? '—' : item.label)),
    ['Open project…', 'Save', 'Save as…', '—', 'Import…'],
  );
  // Groups break up the long menus: no run of more than 9 items without a separator.
  for (const menu of model) {
    const runs = menu.items.map(row).join(' ').split(' — ');
    const longest = Math.max(...runs.map((run) => run.split(' ').length));
    assert.ok(longest <= 9, `${menu.label}: a run of ${longest} items without a separator`);
  }
});

test('menu bar: every command with a menu names a group of that menu', () => {
  const misplaced = IDS.filter((id) => {
    const { menu, group } = COMMANDS[id];
    return menu !== undefined && !(MENU_GROUPS[menu] as readonly string[]).includes(group ?? '');
  });
  assert.deepEqual(misplaced, [], `commands whose group is not one of their menu's MENU_GROUPS: ${misplaced.join(', ')}`);
  const strays = IDS.filter((id) => COMMANDS[id].group !== undefined && COMMANDS[id].menu === undefined);
  assert.deepEqual(strays, [], `commands with a group and no menu: ${strays.join(', ')}`);
  // Each group of the catalog has a command in it.
  for (const menu of MENUS)
    for (const group of MENU_GROUPS[menu])
      assert.ok(
        IDS.some((id) => COMMANDS[id].menu === menu && COMMANDS[id].group === group),
        `${menu}'s group ${group} has a command`,
      );
});

test('command palette: Ctrl/⌘ Shift P opens it, whatever the tool', () => {
  for (const tool of ['select', 'brush', 'pose', 'skeleton', 'lasso'])
    assert.equal(resolveKey('Mod+Shift+P', { tool, toolBusy: false })?.command, 'view.commandPalette', tool);
});

test('command palette: lists every command with its menu and key; greys what takes an argument or cannot run now, saying why', () => {
  const registry = registryWith(
    { toolBusy: false, hasSkeleton: true, bindPanel: false },
    { 'edit.undo': { run: () => undefined, canRun: () => false, refusal: 'nothing to undo', title: () => 'Undo' } },
  );
  const entries = paletteEntries(registry);
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  // The recent files are left out while there are none (their handler's canRun is absent here: they show).
  assert.equal(entries.length, IDS.length);
  assert.deepEqual(byId.get('file.saveAs'), {
    id: 'file.saveAs',
    title: 'Save as…',
    menu: 'File',
    keys: 'Ctrl/⌘ Shift S',
    enabled: true,
    note: null,
  });
  assert.deepEqual(byId.get('edit.undo'), {
    id: 'edit.undo',
    title: 'Undo',
    menu: 'Edit',
    keys: 'Ctrl/⌘ Z',
    enabled: false,
    note: 'nothing to undo',
  });
  // A when-clause refusal: the lasso needs the Bind panel open.
  assert.equal(byId.get('tool.lasso')?.enabled, false);
  assert.equal(byId.get('tool.lasso')?.note, 'the bind panel is closed');
  // Takes an argument: listed, not run, with where the mouse sets it.
  assert.deepEqual(byId.get('paint.brushRadius'), {
    id: 'paint.brushRadius',
    title: 'Brush radius',
    menu: null,
    keys: '',
    enabled: false,
    note: COMMANDS['paint.brushRadius'].noMenu,
  });
  // An optional argument runs without one (Prune < 0.01).
  assert.equal(byId.get('paint.prune')?.enabled, true);
  assert.equal(byId.get('view.commandPalette')?.keys, 'Ctrl/⌘ Shift P');
});

/** Palette entries made from the catalog's labels and menus, all enabled. */
const CATALOG_ENTRIES: PaletteEntry[] = IDS.map((id) => ({
  id,
  title: COMMANDS[id].label,
  menu: COMMANDS[id].menu ?? null,
  keys: '',
  enabled: true,
  note: null,
}));

const search = (query: string): CommandId[] => searchCommands(CATALOG_ENTRIES, query).map((entry) => entry.id);

test('command palette: search finds by words of the title, the menu or the id, and by letters in order', () => {
  assert.equal(search('').length, IDS.length, 'an empty search lists every command');
  assert.deepEqual(search(''), IDS, 'in catalog order');
  assert.equal(search('bake')[0], 'playback.bakeClip');
  assert.equal(search('BAKE CLIP')[0], 'playback.bakeClip', 'case is ignored');
  assert.equal(search('autosave')[0], 'file.autosaveSettings', "'Autosave settings…' starts with the word");
  assert.equal(search('save as')[0], 'file.saveAs');
  // Every word must fit: 'weight paint' finds the brush's mode, not every weight command.
  assert.equal(search('paint weight')[0], 'tool.brush');
  for (const id of search('paint weight'))
    assert.ok(/paint/i.test(`${COMMANDS[id].label} ${COMMANDS[id].menu} ${id}`), `${id} fits 'paint'`);
  // Letters in order ('bkcl' is B-a-K-e C-L-ip), as VS Code's palette finds them.
  assert.ok(search('bkcl').includes('playback.bakeClip'), 'letters in order find Bake clip…');
  assert.equal(search('bkcl').includes('file.save'), false, "'Save' lacks the letters");
  // A word of the title beats the same word in the menu only: 'rig' puts nothing named rig first, every Rig item fits.
  const rig = search('rig');
  for (const id of IDS.filter((id) => COMMANDS[id].menu === 'Rig')) assert.ok(rig.includes(id), `${id} is in the Rig menu`);
  assert.equal(search('rigidly')[0], 'bind.computeRigid', 'a word inside the title');
  assert.deepEqual(search('zzqx'), [], 'nothing fits');
  // A word starting a word of the title beats one inside a word: 'pose' ranks 'Pose tool' over 'Unposing'.
  const pose = search('pose');
  assert.ok(pose.indexOf('tool.pose') < pose.indexOf('examples.cancelUnpose'), "'Pose tool' before 'Cancel unposing'");
  // A command of a menu ranks before one a panel sets: 'paint' puts Weight paint mode before Paint through the mesh.
  const paint = search('paint');
  assert.ok(paint.indexOf('tool.brush') < paint.indexOf('paint.throughMesh'), 'Weight paint mode first');
});

test('command palette: a title that says the state is found by the catalog label too', () => {
  const entries = CATALOG_ENTRIES.map((entry) => (entry.id === 'edit.undo' ? { ...entry, title: 'Undo Paint stroke' } : entry));
  assert.equal(searchCommands(entries, 'paint stroke')[0].id, 'edit.undo', 'by its title now');
  const keyed = CATALOG_ENTRIES.map((entry) => (entry.id === 'key.insert' ? { ...entry, title: 'Key Spine' } : entry));
  assert.equal(searchCommands(keyed, 'key the selected bone')[0].id, 'key.insert', 'by its label');
  assert.equal(searchCommands(keyed, 'spine')[0].id, 'key.insert', 'by the state in its title');
});

test('command palette: search finds a command by its keys, however they are written', () => {
  // The entries with their keys as the palette shows them ('Ctrl/⌘ Shift Z or Ctrl/⌘ Y').
  const keyed = CATALOG_ENTRIES.map((entry) => ({ ...entry, keys: displayKeys(entry.id) }));
  const byKeys = (query: string): CommandId[] => searchCommands(keyed, query).map((entry) => entry.id);
  assert.equal(displayKeys('edit.redo'), 'Ctrl/⌘ Shift Z or Ctrl/⌘ Y', 'the table gives Redo these keys');
  for (const query of ['shift z', 'ctrl+shift+z', 'Ctrl+Shift+Z', 'CTRL SHIFT Z', 'cmd+shift+z', '⌘ Shift Z', 'ctrl y'])
    assert.equal(byKeys(query)[0], 'edit.redo', `'${query}' finds Redo first`);
  // The whole chord beats a part of it: Ctrl+Z is Undo's, though Redo's Ctrl+Shift+Z has both keys.
  assert.equal(byKeys('ctrl+z')[0], 'edit.undo', "'ctrl+z' finds Undo first");
  assert.ok(byKeys('ctrl+z').includes('edit.redo'), "'ctrl+z' is part of Redo's chord: listed after");
  assert.equal(byKeys('ctrl+shift+p')[0], 'view.commandPalette', 'the palette finds itself by its key');
  assert.equal(byKeys('w')[0], 'view.wireframe', 'a one-letter key: the command it runs first');
  // A key no command has finds nothing by keys; the words of a title still work with keys listed.
  assert.deepEqual(byKeys('ctrl+shift+alt+q'), [], 'no command has Ctrl Shift Alt Q');
  assert.equal(byKeys('bake')[0], 'playback.bakeClip');
  // Without keys in the entries, a chord finds nothing: the match comes from the keys.
  assert.equal(search('ctrl+shift+z').includes('edit.redo'), false, 'no keys listed, no key match');
});
