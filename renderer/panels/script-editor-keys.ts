/**
 * Which keys the focused script editor hands to the app's key table, and at which turn. The app's own key listener
 * leaves a focused text area alone, so the Scripting panel passes the editor's keys on itself:
 *  - the editor's own bindings (a `scriptEditorFocus` term: Ctrl/⌘ Enter runs) before monaco sees the key, which
 *    would otherwise take it (Ctrl Enter inserts a line);
 *  - a running script's bindings (a `scriptRunning` term: Esc stops it) after monaco has had the key, so that Esc
 *    closing one of monaco's pop-ups (the completion list, the find box, parameter hints, a rename) closes it and the
 *    run goes on: monaco stops a key it handles. Only Escape and chords with Ctrl, ⌘ or Alt are handed over: a
 *    binding of a plain key (a user's `X` for Stop) would otherwise take that key from the text typed.
 */
import type { KeyPress, Keybinding } from '../commands/keybindings.ts';
import { parseWhen } from '../commands/when-clause.ts';

/** When the editor hands a key to the key table: before monaco sees it, after monaco has left it, or never. */
export type EditorKeyTurn = 'beforeEditor' | 'afterEditor' | null;

/**
 * The turn at which the focused script editor hands a key press to the key table.
 * @param press    the key pressed, with its modifiers
 * @param binding  the binding the press resolves to with the editor focused (resolveKey), or null
 */
export function editorKeyTurn(press: KeyPress, binding: Keybinding | null): EditorKeyTurn {
  if (!binding?.when) return null;
  const truthy = new Set(
    parseWhen(binding.when)
      .filter((term) => term.op === 'truthy')
      .map((term) => term.key),
  );
  if (truthy.has('scriptEditorFocus')) return 'beforeEditor';
  const noText = press.key === 'Escape' || press.ctrlKey || press.metaKey || press.altKey;
  if (truthy.has('scriptRunning') && noText) return 'afterEditor';
  return null;
}
