/**
 * The web page's menu bar: the desktop's menus (File, Edit, View, Rig, Paint, Playback, Help), drawn from the same
 * model the desktop shell builds its native menu from (commands/menus.ts), so both show the same titles, enabled
 * states, check marks and keys. It behaves as a desktop menu bar does: a click opens a menu, moving across the bar
 * while one is open opens the others, arrows, Home, End, Enter and Escape work, choosing an item runs its command and
 * closes the menu, a press outside only closes it, and F10 goes to the bar, which is one Tab stop. It owns no state but
 * the menu open; what an item does is its command's.
 */
import './menu-bar.css';
import { isMenuSeparator, type MenuItemModel, type MenuModel } from '../../app/ipc-contract.ts';
import { COMMANDS } from '../commands/command-catalog.ts';
import { isCommandId } from '../commands/command-registry.ts';
import { bindingsOf, displayChord } from '../commands/keybindings.ts';
import { childElement, DismissingPress, element } from './controls.ts';

/** The keys the menu bar handles itself while it has focus (the app's shortcuts leave them: tool-manager.ts). */
const OWN_KEYS = 'ArrowUp ArrowDown ArrowLeft ArrowRight Home End Enter Escape';

/** How the menu shows a command's key: its first binding, as the help and the tooltips write it ('Ctrl/⌘ Shift S'). */
function keyLabel(item: MenuItemModel): string {
  if (!item.accelerator || !isCommandId(item.command)) return '';
  const [first] = bindingsOf(item.command);
  return first ? displayChord(first.key) : '';
}

export class MenuBar {
  readonly root: HTMLElement;
  private model: MenuModel = [];
  private titles: HTMLButtonElement[] = [];
  private readonly popup: HTMLElement;
  /** the menu open (an index into the model), or -1 */
  private openIndex = -1;
  /** the title Tab reaches (a roving tabindex: the bar is one Tab stop, the arrows move along it) */
  private tabStop = 0;

  /**
   * @param parent  where the bar goes, as its first child (the page's #app, above the toolbar)
   * @param run     runs a command by id, as a click in the desktop menu does (App's runMenuCommand)
   */
  constructor(
    parent: HTMLElement,
    private readonly run: (command: string) => void,
  ) {
    this.root = element('nav', 'menu-bar');
    this.root.id = 'menu-bar';
    this.root.setAttribute('role', 'menubar');
    this.root.setAttribute('aria-label', 'Menu bar');
    this.popup = element('div', 'menu-popup');
    this.popup.setAttribute('role', 'menu');
    this.popup.hidden = true;
    this.root.append(this.popup);
    parent.prepend(this.root);
    this.root.addEventListener('keydown', (event) => this.key(event));
    // A press anywhere else closes the menu and does nothing more.
    new DismissingPress(
      this.root,
      () => this.openIndex >= 0,
      () => this.close(false),
    );
    window.addEventListener('blur', () => this.close(false));
    // F10 goes to the menu bar and back, as on Windows and Linux desktops.
    window.addEventListener('keydown', (event) => this.f10(event), { capture: true });
  }

  /** The menu open now, by its title, or null. */
  get openMenu(): string | null {
    return this.openIndex >= 0 ? (this.model[this.openIndex]?.label ?? null) : null;
  }

  /** Shows the menus now: the bar's titles, and the open menu's items with their states (its highlight kept). */
  show(model: MenuModel): void {
    const labels = model.map((menu) => menu.label);
    const sameTitles = labels.join('\n') === this.model.map((menu) => menu.label).join('\n');
    const open = this.openMenu;
    this.model = model;
    if (!sameTitles) this.drawTitles();
    if (open === null) return;
    const index = labels.indexOf(open);
    if (index < 0) this.close(false);
    else this.drawItems(index);
  }

  /** Opens the menu at `index` (focus on its first enabled item when `focusItem`, else on its title). */
  open(index: number, focusItem = false): void {
    if (index < 0 || index >= this.model.length) return;
    this.openIndex = index;
    this.titles.forEach((title, i) => title.setAttribute('aria-expanded', String(i === index)));
    this.drawItems(index);
    this.popup.hidden = false;
    const title = this.titles[index];
    this.popup.style.left = `${title.offsetLeft}px`;
    if (focusItem) this.focusItem(0, 1);
    else title.focus();
  }

  /** Closes the open menu; `keepFocus`: the focus goes back to its title (Escape), else it leaves the bar. */
  close(keepFocus: boolean): void {
    if (this.openIndex < 0) return;
    const title = this.titles[this.openIndex];
    this.openIndex = -1;
    this.popup.hidden = true;
    this.popup.replaceChildren();
    for (const node of this.titles) node.setAttribute('aria-expanded', 'false');
    if (keepFocus) title?.focus();
    else if (document.activeElement instanceof HTMLElement && this.root.contains(document.activeElement)) document.activeElement.blur();
  }

  /** F10 (no modifier): the focus goes to the bar's title last used; F10 again, or with a menu open, leaves the bar. */
  private f10(event: KeyboardEvent): void {
    if (event.key !== 'F10' || event.shiftKey || event.ctrlKey || event.altKey || event.metaKey) return;
    // A modal dialog keeps the keyboard to itself.
    if (document.querySelector('dialog[open]')) return;
    event.preventDefault();
    event.stopPropagation();
    if (this.openIndex >= 0) this.close(false);
    else if (document.activeElement instanceof HTMLElement && this.root.contains(document.activeElement)) document.activeElement.blur();
    else this.titles[this.tabStop]?.focus();
  }

  private drawTitles(): void {
    if (this.tabStop >= this.model.length) this.tabStop = 0;
    this.titles = this.model.map((menu, index) => {
      const title = element('button', 'menu-title', menu.label);
      title.type = 'button';
      title.setAttribute('role', 'menuitem');
      title.setAttribute('aria-haspopup', 'menu');
      title.setAttribute('aria-expanded', 'false');
      title.dataset.ownKeys = OWN_KEYS;
      title.tabIndex = index === this.tabStop ? 0 : -1;
      title.addEventListener('focus', () => this.moveTabStop(index));
      title.addEventListener('click', () => (this.openIndex === index ? this.close(false) : this.open(index)));
      // Moving across the bar while a menu is open opens the menu under the pointer.
      title.addEventListener('pointerenter', () => {
        if (this.openIndex >= 0 && this.openIndex !== index) this.open(index);
      });
      return title;
    });
    this.root.replaceChildren(...this.titles, this.popup);
  }

  private moveTabStop(index: number): void {
    this.tabStop = index;
    this.titles.forEach((title, i) => (title.tabIndex = i === index ? 0 : -1));
  }

  private drawItems(index: number): void {
    const focused = document.activeElement instanceof HTMLElement ? document.activeElement.dataset.command : undefined;
    const menu = this.model[index];
    this.popup.setAttribute('aria-label', menu.label);
    const items = menu.items.map((item) => {
      if (isMenuSeparator(item)) {
        const line = element('hr', 'menu-separator');
        line.setAttribute('role', 'separator');
        return line;
      }
      const node = element('button', 'menu-item');
      node.type = 'button';
      node.setAttribute('role', item.checked === undefined ? 'menuitem' : 'menuitemcheckbox');
      if (item.checked !== undefined) node.setAttribute('aria-checked', String(item.checked));
      node.disabled = !item.enabled;
      node.dataset.command = item.command;
      node.dataset.ownKeys = OWN_KEYS;
      // The arrows move between items; Tab does not stop on each.
      node.tabIndex = -1;
      // The longer text the toolbar's tooltips show, where the catalog has one.
      const description = isCommandId(item.command) ? COMMANDS[item.command].description : undefined;
      if (description) node.title = description;
      childElement('span', 'menu-check', node, item.checked ? '✓' : '');
      childElement('span', 'menu-label', node, item.label);
      const keys = keyLabel(item);
      const key = childElement('kbd', 'menu-key', node, keys);
      if (keys) node.setAttribute('aria-keyshortcuts', keys);
      else key.hidden = true;
      node.addEventListener('click', () => this.choose(item));
      // The pointer and the keyboard share one highlight: the item under the pointer takes the focus.
      node.addEventListener('pointermove', () => {
        if (!node.disabled && document.activeElement !== node) node.focus();
      });
      return node;
    });
    this.popup.replaceChildren(...items);
    if (focused)
      items
        .filter((item): item is HTMLButtonElement => item instanceof HTMLButtonElement)
        .find((item) => item.dataset.command === focused && !item.disabled)
        ?.focus();
  }

  private choose(item: MenuItemModel): void {
    if (!item.enabled) return;
    this.close(false);
    this.run(item.command);
  }

  private items(): HTMLButtonElement[] {
    return [...this.popup.querySelectorAll<HTMLButtonElement>('button.menu-item:not(:disabled)')];
  }

  /** Focuses the enabled item `step` away from the focused one (from the start when none is), wrapping around. */
  private focusItem(from: number, step: 1 | -1): void {
    const items = this.items();
    if (items.length === 0) return;
    const at = items.indexOf(document.activeElement as HTMLButtonElement);
    const next = at < 0 ? (step > 0 ? from : items.length - 1) : (at + step + items.length) % items.length;
    items[next].focus();
  }

  private key(event: KeyboardEvent): void {
    const onTitle = event.target instanceof HTMLElement && event.target.classList.contains('menu-title');
    const index = onTitle ? this.titles.indexOf(event.target as HTMLButtonElement) : this.openIndex;
    const count = this.model.length;
    let handled = true;
    switch (event.key) {
      case 'ArrowDown':
        if (this.openIndex !== index) this.open(index, true);
        else this.focusItem(0, 1);
        break;
      case 'ArrowUp':
        if (this.openIndex !== index) this.open(index, false);
        this.focusItem(0, -1);
        break;
      case 'ArrowLeft':
      case 'ArrowRight': {
        const next = (index + (event.key === 'ArrowRight' ? 1 : -1) + count) % count;
        if (this.openIndex >= 0) this.open(next, true);
        else this.titles[next].focus();
        break;
      }
      case 'Home':
      case 'End':
        if (this.openIndex < 0) handled = false;
        else this.items()[event.key === 'Home' ? 0 : this.items().length - 1]?.focus();
        break;
      case 'Enter':
        // On a title it opens its menu; on an item the button's own click runs it.
        if (onTitle) this.open(index, true);
        else handled = false;
        break;
      case 'Escape':
        if (this.openIndex >= 0) this.close(true);
        else (event.target as HTMLElement).blur();
        break;
      default:
        handled = false;
    }
    if (handled) event.preventDefault();
  }
}
