/**
 * The one keybinding table: key + when-clause → command id (VS Code's model). The keyboard listener (tools/
 * tool-manager.ts), the help overlay, the toolbar tooltips, the desktop menus' accelerators and the README's key
 * table are all made from it.
 *
 * Keys are written as chords: modifiers, then the key, joined by '+': 'Mod+Shift+Z', 'Space', 'ArrowLeft', 'F',
 * '?'. 'Mod' is Ctrl, or ⌘ on macOS (either is accepted). A letter is written upper case and matches either
 * case; Shift is part of a letter's chord ('Mod+Shift+Z'), while a symbol is the character typed ('?', not
 * 'Shift+/'), whatever modifier the keyboard layout needs for it.
 */
import { COMMANDS, type CommandId } from './command-catalog.ts';
import { whenHolds, type WhenContext } from './when-clause.ts';
import { boneNamesOf } from '../../workers/scene/bone-fields.ts';
import { boneCountOf, type SceneDocument } from '../../workers/scene/scene-document.ts';

export interface Keybinding {
  key: string;
  command: CommandId;
  /** when-clause (when-clause.ts); absent = always */
  when?: string;
}

export const KEYBINDINGS: readonly Keybinding[] = [
  { key: 'Space', command: 'playback.toggle' },
  { key: 'ArrowLeft', command: 'playback.previousFrame' },
  { key: 'ArrowRight', command: 'playback.nextFrame' },
  { key: 'Alt+I', command: 'key.insert' },
  { key: 'Alt+Shift+I', command: 'key.insertAll' },
  { key: 'Alt+Delete', command: 'key.delete' },
  { key: 'F', command: 'view.frameAll', when: 'tool != brush' },
  { key: 'W', command: 'view.wireframe' },
  { key: 'K', command: 'view.skeleton' },
  { key: 'M', command: 'skin.nextMethod' },
  { key: 'D', command: 'skin.heatMap' },
  { key: 'Mod+O', command: 'file.openProject' },
  { key: 'Mod+S', command: 'file.save' },
  { key: 'Mod+Shift+S', command: 'file.saveAs' },
  { key: 'Mod+I', command: 'file.open' },
  { key: 'Mod+E', command: 'file.export' },
  { key: 'E', command: 'view.asExported' },
  { key: '?', command: 'help.keys' },
  { key: 'Mod+Shift+P', command: 'view.commandPalette' },
  { key: 'Escape', command: 'script.stop', when: 'scriptRunning' },
  { key: 'Escape', command: 'tool.cancel', when: '!scriptRunning && toolBusy' },
  { key: 'Escape', command: 'skeleton.endChain', when: '!scriptRunning && !toolBusy && toolState == chaining' },
  { key: 'Escape', command: 'view.dismiss', when: '!scriptRunning && !toolBusy && toolState != chaining' },
  { key: 'Enter', command: 'tool.confirm', when: 'toolState == resizing' },
  { key: 'Mod+Z', command: 'edit.undo' },
  { key: 'Mod+Shift+Z', command: 'edit.redo' },
  { key: 'Mod+Y', command: 'edit.redo' },
  { key: 'Mod+,', command: 'app.preferences' },
  { key: 'B', command: 'bind.panel' },
  { key: 'V', command: 'view.nextWeightView' },
  { key: 'T', command: 'view.look' },
  { key: 'I', command: 'view.isoLines' },
  { key: 'J', command: 'tool.skeleton' },
  { key: 'Delete', command: 'bone.delete', when: 'tool == skeleton && !bindPanel' },
  { key: 'Backspace', command: 'bone.delete', when: 'tool == skeleton && !bindPanel' },
  { key: 'S', command: 'bone.split', when: 'tool == skeleton' },
  { key: 'Shift+M', command: 'bone.mirror', when: 'tool == skeleton' },
  { key: 'L', command: 'tool.lasso', when: 'bindPanel' },
  { key: 'X', command: 'bind.xray', when: 'bindPanel' },
  { key: 'A', command: 'bind.assign', when: 'bindPanel' },
  { key: 'Delete', command: 'bind.clear', when: 'bindPanel' },
  { key: 'Backspace', command: 'bind.clear', when: 'bindPanel' },
  { key: 'P', command: 'tool.brush' },
  { key: 'F', command: 'paint.resizeBrush', when: 'tool == brush' },
  { key: 'Shift+K', command: 'paint.flood', when: 'tool == brush' },
  { key: 'G', command: 'examples.panel' },
  { key: 'O', command: 'panel.bones' },
  { key: 'Shift+W', command: 'weights.vertexPanel' },
  { key: 'H', command: 'meshes.hide' },
  { key: 'Alt+H', command: 'meshes.showAll' },
  { key: '/', command: 'meshes.isolate' },
  { key: 'R', command: 'tool.pose' },
  { key: 'Alt+R', command: 'pose.reset' },
  { key: 'Alt+Shift+R', command: 'pose.resetAll' },
  { key: 'Shift+R', command: 'pose.rest' },
  { key: 'Mod+Shift+C', command: 'pose.copy' },
  { key: 'Mod+Shift+V', command: 'pose.pasteMirrored' },
  { key: 'Shift+O', command: 'pose.space', when: 'tool == pose' },
  { key: 'Shift+I', command: 'pose.ikMode' },
  { key: 'Shift+T', command: 'template.panel' },
  { key: 'Mod+Shift+E', command: 'script.panel' },
  { key: 'Mod+Enter', command: 'script.run', when: 'scriptEditorFocus' },
];

let activeTable: readonly Keybinding[] = KEYBINDINGS;

/**
 * The table in use: KEYBINDINGS with the user's keys in place of a command's (commands/user-keymap.ts). The lookups
 * below read it by default, so the key listener, the help, tooltips, menus and the palette show the user's keys.
 */
export function activeKeybindings(): readonly Keybinding[] {
  return activeTable;
}

/** Puts a table in use (the shell, from the preferences' keys). */
export function useKeybindings(table: readonly Keybinding[]): void {
  activeTable = table;
}

/** What a key event says, in the fields chordOf reads (KeyboardEvent has them all). */
export interface KeyPress {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
}

const NAMED_KEYS: Record<string, string> = {
  ' ': 'Space',
  Spacebar: 'Space',
  Esc: 'Escape',
  Del: 'Delete',
  Left: 'ArrowLeft',
  Right: 'ArrowRight',
};

/** The chord a key press is written as in the table ('Mod+Shift+Z'), or null for a lone modifier key. */
export function chordOf(press: KeyPress): string | null {
  if (['Control', 'Meta', 'Shift', 'Alt', 'AltGraph', 'OS'].includes(press.key)) return null;
  let key = NAMED_KEYS[press.key] ?? press.key;
  const letter = /^[a-z]$/i.test(key);
  if (key.length === 1) key = key.toUpperCase();
  const parts: string[] = [];
  if (press.ctrlKey || press.metaKey) parts.push('Mod');
  if (press.altKey) parts.push('Alt');
  // A symbol is the character typed: '?' is Shift+/ on one layout and a plain key on another.
  if (press.shiftKey && (letter || key.length > 1)) parts.push('Shift');
  parts.push(key);
  return parts.join('+');
}

/** The binding a chord triggers in a context: the first one in the table whose when-clause holds, or null. */
export function resolveKey(chord: string, context: WhenContext, table: readonly Keybinding[] = activeKeybindings()): Keybinding | null {
  for (const binding of table) {
    if (binding.key === chord && whenHolds(binding.when, context)) return binding;
  }
  return null;
}

/** The bindings of a command, in table order. */
export function bindingsOf(command: CommandId, table: readonly Keybinding[] = activeKeybindings()): Keybinding[] {
  return table.filter((b) => b.command === command);
}

const KEY_NAMES: Record<string, string> = {
  Mod: 'Ctrl/⌘',
  ArrowLeft: '←',
  ArrowRight: '→',
  Escape: 'Esc',
  Delete: 'Delete',
  Backspace: 'Backspace',
};

/** How a chord is shown to people: 'Mod+Shift+Z' → 'Ctrl/⌘ Shift Z'. */
export function displayChord(chord: string): string {
  return chord
    .split('+')
    .map((part) => KEY_NAMES[part] ?? part)
    .join(' ');
}

/** A command's keys as shown in tooltips and help: 'Ctrl/⌘ Shift Z or Ctrl/⌘ Y'; '' when it has none. */
export function displayKeys(command: CommandId, table: readonly Keybinding[] = activeKeybindings()): string {
  return bindingsOf(command, table)
    .map((b) => displayChord(b.key))
    .join(' or ');
}

/** Tooltip text of a command: its description (or label) and its keys, e.g. 'Frame all (F)'. */
export function tooltipOf(command: CommandId, table: readonly Keybinding[] = activeKeybindings()): string {
  const info = COMMANDS[command];
  const keys = displayKeys(command, table);
  return keys ? `${info.description ?? info.label} (${keys})` : (info.description ?? info.label);
}

/** Electron accelerator of a command's first binding ('Mod+Shift+Z' → 'CmdOrCtrl+Shift+Z'), or undefined. */
export function acceleratorOf(command: CommandId, table: readonly Keybinding[] = activeKeybindings()): string | undefined {
  const [first] = bindingsOf(command, table);
  if (!first) return undefined;
  const names: Record<string, string> = { Mod: 'CmdOrCtrl', ArrowLeft: 'Left', ArrowRight: 'Right', Escape: 'Esc', '?': 'Shift+/' };
  return first.key
    .split('+')
    .map((part) => names[part] ?? part)
    .join('+');
}

const WHEN_WORDS: Record<string, string> = {
  bindPanel: 'Bind panel open',
  toolBusy: 'during a drag',
  '!toolBusy': 'otherwise',
  'tool == brush': 'paint mode',
  'tool != brush': 'outside paint mode',
  'tool == pose': 'pose tool',
  'toolState == resizing': 'resizing the brush',
  'tool == skeleton': 'skeleton tool',
  'toolState == chaining': 'building a chain',
  'toolState != chaining': 'no chain open',
  '!bindPanel': 'Bind panel closed',
  scriptEditorFocus: 'in the script editor',
  scriptRunning: 'while a script runs',
  '!scriptRunning': 'otherwise',
};

/**
 * A when-clause in words: 'tool == brush' → 'paint mode'; terms without words are shown as written, and words two
 * terms share once ('!scriptRunning && !toolBusy' → 'otherwise').
 */
export function describeWhen(clause: string): string {
  return [...new Set(clause.split('&&').map((term) => WHEN_WORDS[term.trim()] ?? term.trim()))].join(', ');
}

/**
 * The key table as people read it (the help overlay and the README): one row per binding, in table order, with
 * the command's label and, for a binding that holds only sometimes, when.
 */
export function helpRows(table: readonly Keybinding[] = activeKeybindings()): HelpRow[] {
  return table.map((b) => ({
    keys: displayChord(b.key),
    action: b.when ? `${COMMANDS[b.command].label} (${describeWhen(b.when)})` : COMMANDS[b.command].label,
    command: b.command,
  }));
}

/** A row of the key table as people read it: the keys, the action (label and when), and the command it runs. */
export interface HelpRow {
  keys: string;
  action: string;
  command?: CommandId;
}

/** The names people type for a key, as one token each ('Ctrl', 'cmd', '⌘' and the help's 'Ctrl/⌘' are one key). */
const KEY_TOKENS: Record<string, string> = {
  'ctrl/⌘': 'mod',
  ctrl: 'mod',
  control: 'mod',
  cmd: 'mod',
  command: 'mod',
  '⌘': 'mod',
  mod: 'mod',
  option: 'alt',
  '⌥': 'alt',
  escape: 'esc',
  left: '←',
  arrowleft: '←',
  right: '→',
  arrowright: '→',
  del: 'delete',
};

/** A chord or a search as key tokens: lower case, split at spaces and '+', names as KEY_TOKENS writes them. */
function keyTokens(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[\s+]+/)
    .filter(Boolean)
    .map((token) => KEY_TOKENS[token] ?? token);
}

/**
 * How well a search fits a command's keys as shown ('Ctrl/⌘ Shift Z or Ctrl/⌘ Y'), 0 for no fit: every key of the
 * search must be in one chord, however it is written ('shift z', 'ctrl+shift+z', 'Ctrl+Shift+Z', 'mod+shift+z' and
 * 'cmd shift z' are the same keys); the whole chord fits better than part of it ('shift z'). Scaled per key as the
 * palette's title search is per word, so a key typed whole beats the same letters found in titles. The palette and
 * the help's search both match keys with it.
 * @param search  the search as typed
 * @param keys    the keys as displayKeys writes them, chords joined by ' or ' ('' when none)
 */
export function keyMatchScore(search: string, keys: string): number {
  const query = keyTokens(search);
  if (query.length === 0) return 0;
  let best = 0;
  for (const chord of keys.split(' or ')) {
    const tokens = new Set(keyTokens(chord));
    if (tokens.size === 0 || !query.every((token) => tokens.has(token))) continue;
    best = Math.max(best, (query.length === tokens.size ? 3.5 : 2.5) * query.length);
  }
  return best;
}

/**
 * Whether a help row answers a search: every word of `query` (case ignored) is in its keys, its action, or its
 * command's description or id, and a word of one character is one of its keys ('p' finds P, not every row with a p
 * in it), or the query is the row's keys written any way keyMatchScore reads ('ctrl+z', 'Ctrl+Shift+Z', 'mod+z'); an
 * empty query matches every row. 'paint' finds 'Weight paint mode' (P) and what holds only in paint mode; 'ctrl z'
 * finds Undo.
 */
export function helpRowMatches(row: HelpRow, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const keys = row.keys.toLowerCase().split(/[\s/+]+/);
  const info = row.command ? COMMANDS[row.command] : undefined;
  const text = [row.keys, row.action, info?.description ?? '', row.command ?? ''].join(' ').toLowerCase();
  return (
    words.every((word) => ([...word].length === 1 ? keys.includes(word) || row.keys === word : text.includes(word))) ||
    keyMatchScore(query, row.keys) > 0
  );
}

/**
 * The help's line about the bone the commands act on: the selected bone by name with the keys of its commands, or how
 * to select one, or how to build a skeleton on a bare mesh.
 */
export function helpBoneLine(doc: SceneDocument, bone: number): string {
  if (boneCountOf(doc) === 0)
    return `No skeleton yet: ${displayKeys('tool.skeleton')} builds one on the mesh, ${displayKeys('template.panel')} fits a template.`;
  if (bone < 0 || bone >= boneCountOf(doc))
    return `No bone selected: click a joint, or a row of the bone list (${displayKeys('panel.bones')}).`;
  const keys = (
    [
      ['tool.pose', 'poses it'],
      ['bone.split', 'splits it'],
      ['bone.mirror', 'mirrors its limb'],
      ['key.insert', 'keys it'],
    ] as const
  )
    .map(([command, what]) => `${displayKeys(command)} ${what}`)
    .join(', ');
  return `Selected bone: ${boneNamesOf(doc)[bone]} (${keys}).`;
}
