/**
 * The menus, made from the command catalog and the keybinding table: one entry per command that names a menu, in
 * catalog order, with its current title, enabled state, check mark and key. The renderer sends this model to the
 * desktop shell (app/ipc-contract.ts MenuModel), which builds the native menu from it, and the web page draws its
 * menu bar from the same model (panels/menu-bar.ts). The command palette's search is here too: it lists every command.
 */
import type { MenuEntryModel, MenuModel } from '../../app/ipc-contract.ts';
import { COMMANDS, MENU_GROUPS, MENUS, type CommandId, type MenuName } from './command-catalog.ts';
import { keyMatchScore } from './keybindings.ts';

// The menu names live in the catalog (each command names its menu there); they are offered here too.
export { MENUS, type MenuName };

export interface MenuCommandState {
  id: CommandId;
  menu: MenuName;
  title: string;
  enabled: boolean;
  checked?: boolean;
  /** Electron accelerator of the command's first key binding, e.g. 'CmdOrCtrl+Z' */
  accelerator?: string;
}

/** Where a command's group comes in its menu (MENU_GROUPS order); a command with no group comes after them all. */
function groupRank(menu: MenuName, id: CommandId): number {
  const groups: readonly string[] = MENU_GROUPS[menu];
  const group = COMMANDS[id].group;
  const at = group === undefined ? -1 : groups.indexOf(group);
  return at < 0 ? groups.length : at;
}

/**
 * Groups the commands' states into menus, in menu-bar order; empty menus are left out. Within a menu the commands
 * come group by group (the catalog's MENU_GROUPS), in the order given within a group, with a separator between two
 * groups that have items.
 */
export function buildMenuModel(commands: readonly MenuCommandState[]): MenuModel {
  return MENUS.flatMap((menu) => {
    const ranked = commands
      .map((c, order) => ({ c, order, rank: groupRank(menu, c.id) }))
      .filter(({ c }) => c.menu === menu)
      .sort((a, b) => a.rank - b.rank || a.order - b.order);
    const items: MenuEntryModel[] = [];
    ranked.forEach(({ c, rank }, i) => {
      if (i > 0 && rank !== ranked[i - 1].rank) items.push({ separator: true });
      items.push({
        command: c.id,
        label: c.title,
        enabled: c.enabled,
        ...(c.checked !== undefined ? { checked: c.checked } : {}),
        ...(c.accelerator ? { accelerator: c.accelerator } : {}),
      });
    });
    return items.length > 0 ? [{ label: menu, items }] : [];
  });
}

/** A command as the command palette lists it. */
export interface PaletteEntry {
  id: CommandId;
  /** the command's title now ('Undo Paint stroke') */
  title: string;
  /** the menu it is in, or null */
  menu: MenuName | null;
  /** its keys as the help shows them ('Ctrl/⌘ Shift Z'), '' when it has none */
  keys: string;
  /** whether choosing it runs it now */
  enabled: boolean;
  /** why it does not run from the palette now (its refusal, or where it takes its argument), null when it does */
  note: string | null;
}

/** How well `query` (lower case, one word) fits `text` (lower case): higher is better, 0 for no fit. */
function wordScore(word: string, text: string): number {
  const at = text.indexOf(word);
  if (at >= 0) {
    // A match at the start of a word beats one inside a word; an earlier one beats a later one.
    const wordStart = at === 0 || /[\s.·:/(→-]/.test(text[at - 1]);
    return (wordStart ? 3 : 2) - Math.min(at, 99) / 100;
  }
  // Fuzzy: the word's letters in order ('bkcl' finds 'Bake clip…'), each further apart scoring less.
  let from = 0;
  let gaps = 0;
  for (const letter of word) {
    const found = text.indexOf(letter, from);
    if (found < 0) return 0;
    gaps += found - from;
    from = found + 1;
  }
  return 1 / (1 + gaps / word.length);
}

/**
 * The palette's answer to a search: the entries every word of `query` fits, best first (case ignored). A word fits
 * an entry when it is in its title (or its catalog label), its menu or its id, or when its letters appear in that
 * order in the title (VS Code's fuzzy match); the search also finds a command by its keys, however they are written
 * ('shift z', 'ctrl+shift+z' and 'Ctrl+Shift+Z' all find Ctrl/⌘ Shift Z); a word in the title counts more than one in the menu or the id, a word starting a word of
 * the title more than one inside it, and a command in a menu a little more than one set in a panel. Ties keep the
 * entries' order; an empty query gives every entry.
 */
export function searchCommands(entries: readonly PaletteEntry[], query: string): PaletteEntry[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return [...entries];
  const scored: { entry: PaletteEntry; score: number; order: number }[] = [];
  entries.forEach((entry, order) => {
    const title = entry.title.toLowerCase();
    // A title that says the state ('Key Spine', 'Undo Paint stroke') is found by the catalog's label too.
    const label = COMMANDS[entry.id].label.toLowerCase();
    const where = `${entry.menu ?? ''} ${entry.id}`.toLowerCase();
    let score = 0;
    for (const word of words) {
      const inTitle = Math.max(wordScore(word, title), label === title ? 0 : wordScore(word, label));
      const inWhere = where.includes(word) ? 1.5 : 0;
      const best = Math.max(inTitle, inWhere);
      if (best === 0) {
        score = 0;
        break;
      }
      score += best;
    }
    score = Math.max(score, keyMatchScore(query, entry.keys));
    if (score === 0) return;
    // A command of a menu is one people run by name; one outside the menus is mostly set in a panel.
    if (entry.menu) score += 0.25;
    scored.push({ entry, score, order });
  });
  return scored.sort((a, b) => b.score - a.score || a.order - b.order).map((s) => s.entry);
}
