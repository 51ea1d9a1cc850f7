/**
 * The command palette (VS Code's, Ctrl/⌘ Shift P): a search box over every command of the catalog, by its name, its
 * menu or its id, each row with its menu, its keys and whether it runs now. Arrows move, Enter runs the chosen
 * command, Escape or a click outside closes. A command that takes an argument is listed greyed with where it is set.
 */
import './command-palette.css';
import { COMMANDS } from '../commands/command-catalog.ts';
import { bindingsOf, chordOf } from '../commands/keybindings.ts';
import { searchCommands, type PaletteEntry } from '../commands/menus.ts';
import { childElement as el } from './controls.ts';

/** Whether a key press goes to a field that takes typing (where the app's other shortcuts do not reach). */
function inTextField(target: EventTarget | null): boolean {
  return (
    target instanceof HTMLInputElement ||
    target instanceof HTMLTextAreaElement ||
    target instanceof HTMLSelectElement ||
    (target instanceof HTMLElement && target.isContentEditable)
  );
}

export class CommandPalette {
  private readonly dialog: HTMLDialogElement;
  private readonly input: HTMLInputElement;
  private readonly list: HTMLElement;
  private readonly count: HTMLElement;
  private entries: PaletteEntry[] = [];
  private shown: PaletteEntry[] = [];
  private active = 0;
  /** what had the focus when the palette opened: it gets it back */
  private focusBefore: Element | null = null;

  /**
   * @param source  every command as the palette lists it now, asked at each opening (shell/menu-model.ts paletteEntries)
   * @param run     runs a command by id, as a menu click does
   */
  constructor(
    private readonly source: () => PaletteEntry[],
    private readonly run: (command: string) => void,
  ) {
    this.dialog = el('dialog', 'command-palette');
    this.dialog.id = 'command-palette';
    this.dialog.setAttribute('aria-label', 'Command palette');
    this.input = el('input', 'command-palette-input', this.dialog);
    this.input.type = 'text';
    this.input.placeholder = 'Type a command, a menu or a key…';
    this.input.setAttribute('role', 'combobox');
    this.input.setAttribute('aria-label', 'Search commands');
    this.input.setAttribute('aria-controls', 'command-palette-list');
    this.input.setAttribute('aria-expanded', 'true');
    this.input.autocomplete = 'off';
    this.input.spellcheck = false;
    this.count = el('div', 'command-palette-count', this.dialog);
    this.list = el('ul', 'command-palette-list', this.dialog);
    this.list.id = 'command-palette-list';
    this.list.setAttribute('role', 'listbox');
    this.list.setAttribute('aria-label', 'Commands');
    this.input.addEventListener('input', () => this.filter());
    this.input.addEventListener('keydown', (event) => this.key(event));
    // A press on the backdrop (outside the box) closes it. The backdrop and the box's own padding are both the dialog
    // element to the event: the box's rectangle tells them apart.
    this.dialog.addEventListener('pointerdown', (event) => {
      if (event.target !== this.dialog) return;
      const box = this.dialog.getBoundingClientRect();
      const inside = event.clientX >= box.left && event.clientX <= box.right && event.clientY >= box.top && event.clientY <= box.bottom;
      if (!inside) this.close();
    });
    // Its keys open it from a text field too, as VS Code's do (the app's other shortcuts leave text fields to typing).
    window.addEventListener('keydown', (event) => this.keyInTextField(event), { capture: true });
    // However it closes (Enter, Escape, a click outside), the focus goes back where it was, and never stays on the
    // hidden search field, which would take the app's keys for typing.
    this.dialog.addEventListener('close', () => this.restoreFocus());
    document.body.append(this.dialog);
  }

  get isOpen(): boolean {
    return this.dialog.open;
  }

  /** Opens with an empty search over every command, their states as they are now. */
  open(): void {
    this.entries = this.source();
    this.input.value = '';
    this.filter();
    if (!this.dialog.open) {
      this.focusBefore = document.activeElement;
      this.dialog.showModal();
    }
    this.input.focus();
  }

  close(): void {
    if (this.dialog.open) this.dialog.close();
    this.restoreFocus();
  }

  /** Ctrl/⌘ Shift P (the palette command's keys now) pressed in a text field: runs the palette's command. */
  private keyInTextField(event: KeyboardEvent): void {
    if (event.defaultPrevented || event.isComposing || !inTextField(event.target)) return;
    // Another modal dialog keeps its keys (the preferences page takes a key press to bind it).
    const dialog = document.querySelector('dialog[open]');
    if (dialog && dialog !== this.dialog) return;
    const chord = chordOf(event);
    if (!chord || !bindingsOf('view.commandPalette').some((binding) => binding.key === chord)) return;
    event.preventDefault();
    event.stopPropagation();
    this.run('view.commandPalette');
  }

  private restoreFocus(): void {
    // The close event comes a task after the close: by then the palette may be open again, its field focused.
    if (this.dialog.open || !this.dialog.contains(document.activeElement)) return;
    if (this.focusBefore instanceof HTMLElement && this.focusBefore.isConnected && this.focusBefore !== document.body)
      this.focusBefore.focus();
    else (document.activeElement as HTMLElement | null)?.blur();
  }

  private filter(): void {
    this.shown = searchCommands(this.entries, this.input.value);
    // The best match is chosen, greyed or not (its row says why it cannot run): the order is the search's.
    this.active = 0;
    this.draw();
  }

  private draw(): void {
    const rows = this.shown.map((entry, i) => {
      const row = el('li', 'command-palette-row');
      row.id = `command-palette-row-${i}`;
      row.setAttribute('role', 'option');
      row.setAttribute('aria-selected', String(i === this.active));
      row.setAttribute('aria-disabled', String(!entry.enabled));
      row.dataset.command = entry.id;
      const description = COMMANDS[entry.id].description;
      if (description) row.title = description;
      const text = el('div', 'command-palette-text', row);
      el('span', 'command-palette-title', text, entry.menu ? `${entry.menu}: ${entry.title}` : entry.title);
      if (entry.note) el('span', 'command-palette-note', text, entry.note);
      if (entry.keys) el('kbd', 'command-palette-keys', row, entry.keys);
      row.addEventListener('pointermove', () => this.select(i));
      row.addEventListener('click', () => this.choose(i));
      return row;
    });
    this.list.replaceChildren(...rows);
    const n = this.shown.length;
    this.count.textContent = n === 0 ? 'No command matches' : `${n} command${n === 1 ? '' : 's'}`;
    this.input.setAttribute('aria-activedescendant', rows.length > 0 ? `command-palette-row-${this.active}` : '');
  }

  private select(index: number): void {
    if (index === this.active) return;
    this.list.children[this.active]?.setAttribute('aria-selected', 'false');
    this.active = index;
    const row = this.list.children[index];
    row?.setAttribute('aria-selected', 'true');
    row?.scrollIntoView({ block: 'nearest' });
    this.input.setAttribute('aria-activedescendant', `command-palette-row-${index}`);
  }

  /** Runs the entry at `index` when it can run (the palette closes first, so the command sees the page as it is). */
  private choose(index: number): void {
    const entry = this.shown[index];
    if (!entry?.enabled) return;
    this.close();
    this.run(entry.id);
  }

  private key(event: KeyboardEvent): void {
    const rows = this.shown.length;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      if (rows > 0) this.select((this.active + (event.key === 'ArrowDown' ? 1 : rows - 1)) % rows);
    } else if (event.key === 'PageDown' || event.key === 'PageUp') {
      if (rows > 0) this.select(Math.min(rows - 1, Math.max(0, this.active + (event.key === 'PageDown' ? 10 : -10))));
    } else if (event.key === 'Enter') {
      this.choose(this.active);
    } else return;
    event.preventDefault();
  }
}
