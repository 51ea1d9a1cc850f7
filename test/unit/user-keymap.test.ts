/**
 * The user's keys over the keybinding table: a key replaced where the command's key was, with its when-clause; a
 * conflict (the same chord where both when-clauses can hold) named and refused, or swapped on request; reset.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { COMMANDS, type CommandId } from '../../renderer/commands/command-catalog.ts';
import { KEYBINDINGS, displayKeys, helpRows, resolveKey, tooltipOf, useKeybindings } from '../../renderer/commands/keybindings.ts';
import {
  assignKey,
  keyConflicts,
  keymapProblems,
  readKeyOverrides,
  resetKeys,
  takesKeys,
  userKeybindings,
  whensOverlap,
  type KeyOverrides,
} from '../../renderer/commands/user-keymap.ts';

test('a user key replaces the command’s key in place and keeps its when-clause', () => {
  const table = userKeybindings({ 'view.frameAll': ['Q'] });
  assert.equal(table.length, KEYBINDINGS.length);
  const index = KEYBINDINGS.findIndex((b) => b.command === 'view.frameAll');
  assert.deepEqual(table[index], { key: 'Q', command: 'view.frameAll', when: 'tool != brush' });
  assert.equal(resolveKey('Q', { tool: 'select' }, table)?.command, 'view.frameAll');
  assert.equal(resolveKey('Q', { tool: 'brush' }, table), null, 'Q frames only where F did');
  assert.equal(resolveKey('F', { tool: 'select' }, table), null, 'F no longer frames');
  assert.equal(resolveKey('F', { tool: 'brush' }, table)?.command, 'paint.resizeBrush', 'the other F is untouched');
  assert.deepEqual(userKeybindings({}), [...KEYBINDINGS]);
});

test('a command without a key in the table gets one that always applies; [] takes a command’s keys away', () => {
  const table = userKeybindings({ 'bind.saveWeights': ['Mod+Shift+W'], 'edit.redo': [] });
  assert.deepEqual(table.at(-1), { key: 'Mod+Shift+W', command: 'bind.saveWeights' });
  assert.equal(resolveKey('Mod+Shift+W', { tool: 'brush', bindPanel: true }, table)?.command, 'bind.saveWeights');
  assert.equal(resolveKey('Mod+Y', {}, table), null);
  assert.equal(table.length, KEYBINDINGS.length - 2 + 1);
});

test('when-clauses overlap unless a context key rules one out', () => {
  assert.equal(whensOverlap(undefined, 'tool == brush'), true);
  assert.equal(whensOverlap('tool != brush', 'tool == skeleton'), true);
  assert.equal(whensOverlap('tool == brush', 'tool == skeleton'), false);
  assert.equal(whensOverlap('bindPanel', 'tool == skeleton && !bindPanel'), false);
  assert.equal(whensOverlap('toolBusy', '!toolBusy && toolState == chaining'), false);
  assert.equal(whensOverlap('tool != brush', 'tool == brush'), false);
});

test('a key another command holds where both apply is refused, naming that command; where they cannot both apply it is taken', () => {
  const refused = assignKey({}, 'view.frameAll', 'W', 'F', false);
  assert.ok('conflicts' in refused, 'W is Wireframe everywhere');
  assert.equal(refused.message, 'W already runs “Wireframe”');
  const split = assignKey({}, 'view.frameAll', 'S', 'F', false);
  assert.ok(
    'conflicts' in split && split.message === 'S already runs “Split the bone”',
    'S splits in the skeleton tool, where F frames too',
  );
  const taken = assignKey({}, 'paint.resizeBrush', 'S', 'F', false);
  assert.ok('overrides' in taken, 'S splits only in the skeleton tool, the brush resizes only in paint mode');
  assert.deepEqual(taken.overrides, { 'paint.resizeBrush': ['S'] });
  const lasso = keyConflicts('tool.lasso', 'Delete', {});
  assert.deepEqual(
    lasso.map((b) => b.command),
    ['bind.clear'],
    'Delete deletes a bone only with the Bind panel closed, where the lasso is off',
  );
});

test('swapping gives the other command the replaced key, or takes the added chord from it', () => {
  const swapped = assignKey({}, 'view.wireframe', 'K', 'W', true);
  assert.ok('overrides' in swapped, 'swapped');
  assert.deepEqual(swapped.overrides, { 'view.wireframe': ['K'], 'view.skeleton': ['W'] });
  assert.deepEqual(swapped.swapped, ['view.skeleton']);
  const added = assignKey({}, 'tool.lasso', 'Delete', null, true);
  assert.ok('overrides' in added, 'added');
  assert.deepEqual(added.overrides, { 'tool.lasso': ['L', 'Delete'], 'bind.clear': ['Backspace'] });
  // F would go to Wireframe, which applies everywhere, and meet the brush's F.
  const clash = assignKey({}, 'view.frameAll', 'W', 'F', true);
  assert.ok(
    'conflicts' in clash && /Swapping cannot be done: F runs both “Wireframe” and “Resize the brush”/.test(clash.message),
    'refused',
  );
});

test('giving back the table’s key or resetting drops the override', () => {
  let keys: KeyOverrides = { 'view.frameAll': ['Q'], 'view.wireframe': ['Alt+W'] };
  const back = assignKey(keys, 'view.frameAll', 'F', 'Q', false);
  assert.ok('overrides' in back, 'F is free again');
  assert.deepEqual(back.overrides, { 'view.wireframe': ['Alt+W'] });
  keys = resetKeys(keys, 'view.wireframe');
  assert.deepEqual(keys, { 'view.frameAll': ['Q'] });
});

test('stored keys that clash are problems; the table in use shows the user’s keys in help, tooltips and lookups', () => {
  assert.deepEqual(keymapProblems({ 'view.frameAll': ['W'] }), ['W runs both “Frame all” and “Wireframe”']);
  assert.deepEqual(keymapProblems({ 'view.frameAll': ['Q'] }), []);
  try {
    useKeybindings(userKeybindings({ 'view.frameAll': ['Q'] }));
    assert.equal(tooltipOf('view.frameAll'), 'Frame all (Q)');
    assert.equal(displayKeys('view.frameAll'), 'Q');
    assert.equal(resolveKey('Q', { tool: 'select' })?.command, 'view.frameAll');
    assert.ok(
      helpRows().some((row) => row.keys === 'Q' && row.action.startsWith('Frame all')),
      'the help lists Q for Frame all',
    );
  } finally {
    useKeybindings(KEYBINDINGS);
  }
  assert.equal(tooltipOf('view.frameAll'), 'Frame all (F)');
});

test('a command that needs an argument takes no key: assigning one is refused, naming it', () => {
  // Hand-picked from the catalog: the brush radius and a bone's new name must be given; undo and the wireframe take none,
  // and Select by weight's argument is optional.
  assert.equal(takesKeys('paint.brushRadius'), false);
  assert.equal(takesKeys('bone.rename'), false);
  assert.equal(takesKeys('edit.undo'), true);
  assert.equal(takesKeys('view.wireframe'), true);
  assert.equal(COMMANDS['bind.selectByWeight'].argument?.kind, 'optional');
  assert.equal(takesKeys('bind.selectByWeight'), true, 'an optional argument is left out by a key');
  const refused = assignKey({}, 'paint.brushRadius', 'Mod+Alt+R', null, false);
  assert.ok('conflicts' in refused, 'refused');
  assert.equal(refused.message, '“Brush radius” (paint.brushRadius) needs an argument, which a key cannot give: it takes no key');
  assert.ok('conflicts' in assignKey({}, 'bone.rename', 'Mod+Alt+R', null, true), 'refused even when swapping');
  for (const binding of KEYBINDINGS)
    assert.ok(takesKeys(binding.command), `the table's ${binding.key} runs ${binding.command}, which needs no argument`);
  const keyless = (Object.keys(COMMANDS) as CommandId[]).filter((id) => !takesKeys(id));
  assert.ok(keyless.length > 0 && keyless.length < Object.keys(COMMANDS).length, `${keyless.length} commands take no key`);
});

test('reading stored keys: a newer table’s default that clashes with a user key goes; of two user keys that clash the first stays', () => {
  // A newer version gives Q to Save weights; the user had given Q to Frame all.
  const newer = [...KEYBINDINGS, { key: 'Q', command: 'bind.saveWeights' as const }];
  const notes: string[] = [];
  const read = readKeyOverrides({ 'view.frameAll': ['Q'] }, (note) => notes.push(note), newer);
  assert.deepEqual(read, { 'view.frameAll': ['Q'], 'bind.saveWeights': [] });
  assert.deepEqual(notes, ['Q runs “Frame all” as you set it; “Save weights…” no longer has it']);
  const table = userKeybindings(read, newer);
  assert.equal(resolveKey('Q', { tool: 'select' }, table)?.command, 'view.frameAll');
  // Two user keys on one chord where both apply: the first command keeps it, the second loses only that key.
  const clashing: string[] = [];
  const both = readKeyOverrides({ 'view.wireframe': ['Mod+Alt+K'], 'view.skeleton': ['Mod+Alt+K', 'Mod+Alt+J'] }, (note) =>
    clashing.push(note),
  );
  assert.deepEqual(both, { 'view.wireframe': ['Mod+Alt+K'], 'view.skeleton': ['Mod+Alt+J'] });
  assert.deepEqual(clashing, ['Mod+Alt+K of “Show skeleton” is dropped: it also runs “Wireframe”']);
  assert.deepEqual(keymapProblems(both), []);
});
