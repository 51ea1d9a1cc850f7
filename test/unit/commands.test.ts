/**
 * Commands and keys: every catalog command has a label; every binding names a catalog command; no key means two
 * commands in any reachable context; chords are read from key events as the table writes them; the help rows and
 * the README's key table are exactly the table; menus group the commands in menu-bar order.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMMANDS, type CommandId } from '../../renderer/commands/command-catalog.ts';
import { CommandRegistry, isCommandId } from '../../renderer/commands/command-registry.ts';
import {
  KEYBINDINGS,
  acceleratorOf,
  bindingsOf,
  chordOf,
  displayChord,
  helpRows,
  resolveKey,
  tooltipOf,
} from '../../renderer/commands/keybindings.ts';
import { MENUS, buildMenuModel } from '../../renderer/commands/menus.ts';
import { parseWhen, whenHolds, whenKeys, type WhenContext } from '../../renderer/commands/when-clause.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Commands whose action has two keys by platform habit (Redo: Ctrl+Y on Windows; Clear and Delete: Mac keyboards'
 * Delete is Backspace).
 */
const ALTERNATIVE_KEYS: Partial<Record<CommandId, string[]>> = {
  'edit.redo': ['Mod+Shift+Z', 'Mod+Y'],
  'bind.clear': ['Delete', 'Backspace'],
  'bone.delete': ['Delete', 'Backspace'],
};

/** Every combination of the values the table's when-clauses and the catalog's enabled-when read. */
function contexts(): WhenContext[] {
  const keys = new Map<string, Set<string>>();
  const clauses = [...KEYBINDINGS.map((b) => b.when), ...Object.values(COMMANDS).map((c) => c.enabledWhen)];
  for (const clause of clauses) for (const [key, values] of whenKeys(clause)) keys.set(key, new Set([...(keys.get(key) ?? []), ...values]));
  let all: Record<string, string | boolean>[] = [{}];
  for (const [key, values] of keys) {
    const choices: (string | boolean)[] = values.size > 0 ? [...values, 'other'] : [true, false];
    all = all.flatMap((context) => choices.map((value) => ({ ...context, [key]: value })));
  }
  return all;
}

test('every command has a label, and every binding names a command', () => {
  for (const [id, info] of Object.entries(COMMANDS)) {
    assert.ok(info.label.trim().length > 0, `${id} has a label`);
    assert.match(id, /^[a-z]+(\.[a-zA-Z]+)+$/);
  }
  for (const binding of KEYBINDINGS) assert.ok(isCommandId(binding.command), `${binding.key} → ${binding.command} is a command`);
});

test('each command has one key or none (two only where platforms differ), and no key means two commands at once', () => {
  for (const id of Object.keys(COMMANDS) as CommandId[]) {
    const keys = bindingsOf(id).map((b) => b.key);
    assert.deepEqual(keys, ALTERNATIVE_KEYS[id] ?? keys.slice(0, 1), `${id}: ${keys.join(', ')}`);
  }
  const all = contexts();
  assert.ok(all.length >= 64, `${all.length} contexts`);
  const chords = [...new Set(KEYBINDINGS.map((b) => b.key))];
  for (const context of all) {
    for (const chord of chords) {
      const holding = KEYBINDINGS.filter((b) => b.key === chord && whenHolds(b.when, context));
      assert.ok(holding.length <= 1, `${chord} in ${JSON.stringify(context)}: ${holding.map((b) => b.command).join(', ')}`);
    }
  }
});

test('a shared key resolves by context: F frames or resizes the brush, Escape cancels a drag or closes messages', () => {
  assert.equal(resolveKey('F', { tool: 'select' })?.command, 'view.frameAll');
  assert.equal(resolveKey('F', { tool: 'brush' })?.command, 'paint.resizeBrush');
  assert.equal(resolveKey('Escape', { toolBusy: true })?.command, 'tool.cancel');
  assert.equal(resolveKey('Escape', { toolBusy: false })?.command, 'view.dismiss');
  // A running script holds the scene (toolBusy): Escape stops it, whatever the tool.
  assert.equal(resolveKey('Escape', { scriptRunning: true, toolBusy: true })?.command, 'script.stop');
  assert.equal(resolveKey('Escape', { scriptRunning: true, toolState: 'chaining' })?.command, 'script.stop');
  assert.equal(resolveKey('L', { bindPanel: false }), null);
  assert.equal(resolveKey('L', { bindPanel: true })?.command, 'tool.lasso');
  assert.equal(resolveKey('Q', {}), null);
});

test('key events are read as the table writes chords', () => {
  const press = (key: string, mods: Partial<{ ctrlKey: boolean; metaKey: boolean; shiftKey: boolean; altKey: boolean }> = {}) =>
    chordOf({ key, ctrlKey: false, metaKey: false, shiftKey: false, altKey: false, ...mods });
  assert.equal(press('z', { ctrlKey: true }), 'Mod+Z');
  assert.equal(press('z', { metaKey: true }), 'Mod+Z');
  assert.equal(press('Z', { ctrlKey: true, shiftKey: true }), 'Mod+Shift+Z');
  assert.equal(press('f'), 'F');
  assert.equal(press('F', { shiftKey: true }), 'Shift+F');
  assert.equal(press('?', { shiftKey: true }), '?');
  assert.equal(press(' '), 'Space');
  assert.equal(press('ArrowLeft'), 'ArrowLeft');
  assert.equal(press('Escape', { shiftKey: true }), 'Shift+Escape');
  assert.equal(press('Shift', { shiftKey: true }), null);
  assert.equal(press('a', { altKey: true }), 'Alt+A');
  assert.equal(displayChord('Mod+Shift+Z'), 'Ctrl/⌘ Shift Z');
  assert.equal(acceleratorOf('edit.redo'), 'CmdOrCtrl+Shift+Z');
  assert.equal(acceleratorOf('help.keys'), 'Shift+/');
  assert.equal(acceleratorOf('view.frameAll'), 'F');
  assert.equal(acceleratorOf('bind.saveWeights'), undefined);
  assert.equal(tooltipOf('view.frameAll'), 'Frame all (F)');
  assert.equal(tooltipOf('edit.redo'), 'Redo (Ctrl/⌘ Shift Z or Ctrl/⌘ Y)');
});

test('when-clauses: terms, negation and comparisons; a malformed clause names itself', () => {
  assert.equal(whenHolds(undefined, {}), true);
  assert.equal(whenHolds('a', { a: true }), true);
  assert.equal(whenHolds('a', {}), false);
  assert.equal(whenHolds('!a', { a: 0 }), true);
  assert.equal(whenHolds('tool == brush && !toolBusy', { tool: 'brush', toolBusy: false }), true);
  assert.equal(whenHolds('tool == brush && !toolBusy', { tool: 'brush', toolBusy: true }), false);
  assert.equal(whenHolds('tool != brush', { tool: 'lasso' }), true);
  assert.equal(whenHolds('n == 3', { n: 3 }), true);
  assert.throws(() => parseWhen('tool === brush'), /when-clause "tool === brush"/);
  assert.throws(() => parseWhen('a || b'), /when-clause "a \|\| b"/);
});

test('the help rows and the README key table are exactly the keybinding table', () => {
  const rows = helpRows();
  assert.equal(rows.length, KEYBINDINGS.length);
  rows.forEach((row, i) => {
    assert.equal(row.keys, displayChord(KEYBINDINGS[i].key));
    assert.ok(row.action.startsWith(COMMANDS[KEYBINDINGS[i].command].label), "each help row's action starts with its command's label");
  });
  const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
  const start = readme.indexOf('| key | action |');
  assert.ok(start >= 0, 'README has a key table');
  const table = readme
    .slice(start)
    .split('\n')
    .slice(2)
    .filter((line, i, lines) => line.startsWith('|') && lines.slice(0, i).every((l) => l.startsWith('|')));
  const expected = rows.map((r) => `| ${r.keys} | ${r.action} |`);
  assert.deepEqual(table, expected, `README.md's key table should read:\n${expected.join('\n')}`);
});

test('the registry runs only enabled commands, knows missing handlers, and refuses unknown or doubled ones', () => {
  const context: Record<string, boolean> = { toolBusy: false };
  const registry = new CommandRegistry(() => context);
  const ran: string[] = [];
  let undoable = false;
  registry.register('edit.undo', { run: () => void ran.push('undo'), canRun: () => undoable, title: () => 'Undo Paint stroke' });
  registry.register('view.frameAll', { run: () => void ran.push('frame') });
  assert.throws(() => registry.register('edit.undo', { run: () => undefined }), /registered twice/);
  assert.throws(() => registry.register('no.such' as CommandId, { run: () => undefined }), /not in the command catalog/);
  assert.throws(() => registry.invoke('edit.redo'), /no handler/);
  assert.equal(registry.invoke('edit.undo').ran, false, 'nothing to undo');
  undoable = true;
  context.toolBusy = true;
  assert.equal(registry.invoke('edit.undo').ran, false, 'disabled during a drag (enabledWhen)');
  context.toolBusy = false;
  assert.equal(registry.invoke('edit.undo').ran, true);
  assert.equal(registry.invoke('view.frameAll').ran, true);
  assert.deepEqual(ran, ['undo', 'frame']);
  assert.equal(registry.titleOf('edit.undo'), 'Undo Paint stroke');
  assert.equal(registry.titleOf('view.frameAll'), 'Frame all');
  assert.ok(registry.missingHandlers().includes('edit.redo'), 'redo has no handler, so it is listed as missing');
  assert.ok(!registry.missingHandlers().includes('edit.undo'), 'undo has a handler, so it is not listed as missing');
});

test('a command that throws or rejects is reported, not thrown at the key or button that ran it', async () => {
  const reported: string[] = [];
  const registry = new CommandRegistry(
    () => ({ toolBusy: false }),
    (id, error) => void reported.push(`${id}: ${(error as Error).message}`),
  );
  registry.register('skin.method', {
    run: (method) => {
      if (method !== 'lbs') throw new Error(`expected one of lbs, got ${JSON.stringify(method)}`);
    },
  });
  registry.register('paint.symmetry', { run: () => Promise.reject(new Error('mirror matching failed')) });
  assert.deepEqual(registry.invoke('skin.method', 'lbs'), { ran: true });
  assert.equal(registry.invoke('skin.method', 'dqs').ran, true);
  await registry.invoke('paint.symmetry', 0).result;
  assert.deepEqual(reported, ['skin.method: expected one of lbs, got "dqs"', 'paint.symmetry: mirror matching failed']);
});

test('menus group the commands in menu-bar order, keeping catalog order inside a menu', () => {
  const model = buildMenuModel([
    { id: 'view.wireframe', menu: 'View', title: 'Wireframe', enabled: true, checked: false, accelerator: 'W' },
    { id: 'edit.undo', menu: 'Edit', title: 'Undo Paint stroke', enabled: true, accelerator: 'CmdOrCtrl+Z' },
    { id: 'file.open', menu: 'File', title: 'Open…', enabled: true, accelerator: 'CmdOrCtrl+O' },
    { id: 'edit.redo', menu: 'Edit', title: 'Redo', enabled: false },
  ]);
  assert.deepEqual(
    model.map((m) => m.label),
    ['File', 'Edit', 'View'],
  );
  assert.deepEqual(model[1].items, [
    { command: 'edit.undo', label: 'Undo Paint stroke', enabled: true, accelerator: 'CmdOrCtrl+Z' },
    { command: 'edit.redo', label: 'Redo', enabled: false },
  ]);
  assert.deepEqual(model[2].items[0], { command: 'view.wireframe', label: 'Wireframe', enabled: true, checked: false, accelerator: 'W' });
  for (const info of Object.values(COMMANDS))
    if (info.menu) assert.ok((MENUS as readonly string[]).includes(info.menu), "every command's menu is one of MENUS");
});
