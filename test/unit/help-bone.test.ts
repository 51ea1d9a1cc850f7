/**
 * The keyboard help names the bone the commands act on: the selected bone by its name with its commands' keys, how to
 * select one, or, on a bare mesh, how to build a skeleton; and its search field finds rows by key, name or description.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { helpBoneLine, helpRowMatches, helpRows, keyMatchScore } from '../../renderer/commands/keybindings.ts';
import { searchCommands, type PaletteEntry } from '../../renderer/commands/menus.ts';
import { renameBone } from '../../workers/rig/bone-edits.ts';
import { bareDocument } from '../../workers/scene/scene-document.ts';
import { handDocument } from './full-documents.ts';

test('the help names the selected bone with its keys, says how to select one, and how to start on a bare mesh', () => {
  const hand = handDocument();
  const named = { ...hand, ...renameBone(hand, 3, 'index.02.L').fields };
  assert.equal(helpBoneLine(named, 3), 'Selected bone: index.02.L (R poses it, S splits it, Shift M mirrors its limb, Alt I keys it).');
  assert.match(helpBoneLine(hand, 3), /^Selected bone: bone 3 \(/, 'a bone without a name is bone N');
  assert.equal(helpBoneLine(hand, -1), 'No bone selected: click a joint, or a row of the bone list (O).');
  const bare = bareDocument({ name: 'body.obj', mesh: hand.mesh });
  assert.equal(helpBoneLine(bare, -1), 'No skeleton yet: J builds one on the mesh, Shift T fits a template.');
});

test('the help search matches a row by key, command name, when or description; a single letter only by key', () => {
  const undo = { keys: 'Ctrl/⌘ Z', action: 'Undo', command: 'edit.undo' } as const;
  const brush = { keys: 'P', action: 'Weight paint mode', command: 'tool.brush' } as const;
  const frame = { keys: 'F', action: 'Frame all (outside paint mode)', command: 'view.frameAll' } as const;
  const pan = { keys: 'Right drag', action: 'pan' };
  assert.equal(helpRowMatches(undo, ''), true, 'an empty search keeps every row');
  assert.equal(helpRowMatches(undo, '  '), true, 'a blank search keeps every row');
  assert.equal(helpRowMatches(brush, 'PAINT'), true, 'by the command name, case ignored');
  assert.equal(helpRowMatches(frame, 'paint'), true, 'by the words of its when-clause');
  assert.equal(helpRowMatches(brush, 'selected bone'), true, "by the command's description (Drag paints the selected bone …)");
  assert.equal(helpRowMatches(brush, 'tool.brush'), true, 'by the command id');
  assert.equal(helpRowMatches(undo, 'paint'), false, 'Undo is not about painting');
  assert.equal(helpRowMatches(undo, 'ctrl z'), true, 'by its chord, word by word');
  assert.equal(helpRowMatches(undo, 'z'), true, 'a single letter is a key');
  assert.equal(helpRowMatches(brush, 'a'), false, "a single letter is a key, not any 'a' in the text");
  assert.equal(helpRowMatches(brush, 'p'), true, 'P is the key of paint mode');
  assert.equal(helpRowMatches(pan, 'right'), true, 'a mouse row by its gesture');
  assert.equal(helpRowMatches(pan, 'right zoom'), false, 'every word must match');
  assert.equal(helpRowMatches({ keys: '/', action: 'Isolate the active mesh', command: 'meshes.isolate' }, '/'), true, 'the / key');
});

test("the help search finds keys written with '+', any case, Ctrl, Cmd or mod, as the palette does", () => {
  const undo = { keys: 'Ctrl/⌘ Z', action: 'Undo', command: 'edit.undo' } as const;
  const redo = { keys: 'Ctrl/⌘ Shift Z', action: 'Redo', command: 'edit.redo' } as const;
  const save = { keys: 'Ctrl/⌘ S', action: 'Save project', command: 'file.save' } as const;
  for (const query of ['ctrl+z', 'Ctrl+Z', 'mod+z', 'cmd+z', 'Control + Z', '⌘ z'])
    assert.equal(helpRowMatches(undo, query), true, `Undo found by '${query}'`);
  assert.equal(helpRowMatches(redo, 'Ctrl+Shift+Z'), true, 'Redo found by Ctrl+Shift+Z');
  assert.equal(helpRowMatches(redo, 'mod+shift+z'), true, 'Redo found by mod+shift+z');
  assert.equal(helpRowMatches(undo, 'Ctrl+Shift+Z'), false, 'Undo has no Shift');
  assert.equal(helpRowMatches(save, 'ctrl+z'), false, 'Save is Ctrl S, not Z');
  assert.equal(helpRowMatches(undo, 'alt+z'), false, 'Undo has no Alt');
  // Whole chord beats part of it; no fit is 0.
  assert.equal(keyMatchScore('ctrl+shift+z', 'Ctrl/⌘ Shift Z or Ctrl/⌘ Y'), 3.5 * 3, 'the whole first chord');
  assert.equal(keyMatchScore('ctrl+y', 'Ctrl/⌘ Shift Z or Ctrl/⌘ Y'), 3.5 * 2, 'the whole second chord');
  assert.equal(keyMatchScore('shift z', 'Ctrl/⌘ Shift Z'), 2.5 * 2, 'part of a chord');
  assert.equal(keyMatchScore('ctrl+y', 'Ctrl/⌘ Shift Z'), 0, 'no chord has Y');
  assert.equal(keyMatchScore('ctrl+z', ''), 0, 'a command without keys');
  assert.equal(keyMatchScore('  ', 'Ctrl/⌘ Z'), 0, 'a blank search is no key');

  // The help and the palette agree: over the whole key table, a search written with '+' finds a row in the help
  // exactly when the palette finds that row's command by its keys.
  const rows = helpRows();
  const entries: PaletteEntry[] = rows.map((row) => ({
    id: row.command!,
    title: row.action,
    menu: null,
    keys: row.keys,
    enabled: true,
    note: null,
  }));
  for (const query of ['ctrl+z', 'Ctrl+Shift+Z', 'mod+z', 'shift+m', 'alt+i']) {
    const help = rows.filter((row) => helpRowMatches(row, query)).map((row) => row.keys);
    const palette = new Set(searchCommands(entries, query).map((entry) => entry.keys));
    assert.ok(help.length > 0, `the help finds a row for '${query}'`);
    for (const keys of help) assert.ok(palette.has(keys), `the palette finds ${keys} for '${query}' as the help does`);
  }
});
