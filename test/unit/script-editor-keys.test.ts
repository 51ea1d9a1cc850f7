/**
 * Which keys the focused script editor hands to the key table, and at which turn (script-editor-keys.ts): its own
 * bindings before monaco (Ctrl/⌘ Enter runs), a running script's after monaco (Esc stops it once monaco has closed a
 * pop-up with it), and of those only Escape and chords with Ctrl, ⌘ or Alt: a plain key bound to Stop is typed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chordOf, KEYBINDINGS, resolveKey, type KeyPress, type Keybinding } from '../../renderer/commands/keybindings.ts';
import { editorKeyTurn } from '../../renderer/panels/script-editor-keys.ts';

/** A key press with the modifiers named. */
function press(key: string, modifiers: Partial<Omit<KeyPress, 'key'>> = {}): KeyPress {
  return { key, ctrlKey: false, metaKey: false, shiftKey: false, altKey: false, ...modifiers };
}

/** The turn of a press in the editor, resolved as the panel resolves it (the editor focused), in `table`. */
function turnOf(key: KeyPress, running: boolean, table: readonly Keybinding[] = KEYBINDINGS) {
  const binding = resolveKey(chordOf(key)!, { scriptEditorFocus: true, scriptRunning: running }, table);
  return { command: binding?.command ?? null, turn: editorKeyTurn(key, binding) };
}

test('the app’s table: Ctrl Enter runs before monaco sees it; Esc stops a running script after monaco; Esc with no run is the editor’s', () => {
  assert.deepEqual(turnOf(press('Enter', { ctrlKey: true }), false), { command: 'script.run', turn: 'beforeEditor' });
  assert.deepEqual(turnOf(press('Enter', { metaKey: true }), false), { command: 'script.run', turn: 'beforeEditor' });
  assert.deepEqual(turnOf(press('Escape'), true), { command: 'script.stop', turn: 'afterEditor' });
  // No script running: Escape resolves to the app's dismiss, which is no key of the editor's (it closes monaco's pop-ups).
  assert.deepEqual(turnOf(press('Escape'), false), { command: 'view.dismiss', turn: null });
  // A key bound with no script or editor term (B opens the Bind panel) is typed, run or no run.
  assert.deepEqual(turnOf(press('b'), true), { command: 'bind.panel', turn: null });
  // Ctrl Z is the editor's undo, not the app's, run or no run.
  assert.deepEqual(turnOf(press('z', { ctrlKey: true }), true), { command: 'edit.undo', turn: null });
});

test('a user’s key for Stop: a plain or shifted key is typed; Escape and chords with Ctrl, ⌘ or Alt stop the run after monaco', () => {
  const table: Keybinding[] = [
    { key: 'X', command: 'script.stop', when: 'scriptRunning' },
    { key: 'Shift+Q', command: 'script.stop', when: 'scriptRunning' },
    { key: '.', command: 'script.stop', when: 'scriptRunning' },
    { key: 'Mod+.', command: 'script.stop', when: 'scriptRunning' },
    { key: 'Alt+S', command: 'script.stop', when: 'scriptRunning' },
    ...KEYBINDINGS,
  ];
  assert.deepEqual(turnOf(press('x'), true, table), { command: 'script.stop', turn: null }, 'x is typed');
  assert.deepEqual(turnOf(press('Q', { shiftKey: true }), true, table), { command: 'script.stop', turn: null }, 'Q is typed');
  assert.deepEqual(turnOf(press('.'), true, table), { command: 'script.stop', turn: null }, '. is typed');
  assert.deepEqual(turnOf(press('.', { ctrlKey: true }), true, table), { command: 'script.stop', turn: 'afterEditor' });
  assert.deepEqual(turnOf(press('.', { metaKey: true }), true, table), { command: 'script.stop', turn: 'afterEditor' });
  assert.deepEqual(turnOf(press('s', { altKey: true }), true, table), { command: 'script.stop', turn: 'afterEditor' });
  assert.deepEqual(turnOf(press('Escape'), true, table), { command: 'script.stop', turn: 'afterEditor' });
  // With no script running, those keys resolve to nothing of the script's: typed.
  assert.equal(turnOf(press('x'), false, table).turn, null);
});

test('a binding that holds only with no script running (!scriptRunning) is never the editor’s to hand over', () => {
  const binding: Keybinding = { key: 'Escape', command: 'tool.cancel', when: '!scriptRunning && toolBusy' };
  assert.equal(editorKeyTurn(press('Escape'), binding), null);
  assert.equal(editorKeyTurn(press('Escape'), { key: 'Escape', command: 'view.dismiss' }), null, 'no when-clause');
  assert.equal(editorKeyTurn(press('Escape'), null), null, 'no binding');
});
