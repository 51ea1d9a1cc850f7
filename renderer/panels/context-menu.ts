/**
 * The right-click menu: a short list of commands for what is under the pointer (a joint, the mesh, a row of a list),
 * opened at the pointer and kept inside the window. Each item runs a catalog command through the registry, with its
 * argument (the bone, the vertex, the mesh the menu was opened on); an item whose command cannot run now is disabled.
 * Escape, a press outside (which does nothing else), the wheel, a resize or any key that is not the menu's own close
 * it (the shell also closes it when the scene changes); the arrow keys move between its items. DOM only.
 */
import type { CommandId } from '../commands/command-catalog.ts';
import type { CommandRegistry } from '../commands/command-registry.ts';
import { DismissingPress, element } from './controls.ts';
import './context-menu.css';

/** One entry of a context menu: a command with its argument, shown under a label that names what it acts on. */
export interface ContextMenuItem {
  label: string;
  command: CommandId;
  argument?: unknown;
  /** the item's keys, when they do the same thing on the same target ('' or absent: none shown) */
  keys?: string;
  /** why the item cannot act on this target (it is shown disabled with the reason as its tooltip); absent: it can */
  unavailable?: string;
  /**
   * A text the item asks for first (a new name): choosing it turns the menu into a field holding `value`; Enter runs
   * the command with the argument and `field` set to the text, Escape closes the menu.
   */
  ask?: { field: string; label: string; value: string };
}

/** Items, with null between groups. */
export type ContextMenuEntries = readonly (ContextMenuItem | null)[];

/** The keys an open menu handles itself (the window's shortcuts leave them alone while an item has the focus). */
const MENU_KEYS = 'Escape ArrowUp ArrowDown Home End Enter';
/** Keys an open menu takes as its own: its MENU_KEYS, Space (presses the focused item) and the modifiers alone. */
const KEPT_OPEN_BY = new Set([...MENU_KEYS.split(' '), ' ', 'Shift', 'Control', 'Alt', 'Meta']);
/** Gap kept between the menu and the window's edge, CSS px. */
const EDGE_PX = 4;

export class ContextMenu {
  private readonly root = element('div', 'context-menu');
  private readonly closers: (() => void)[] = [];

  constructor(private readonly commands: CommandRegistry) {
    this.root.setAttribute('role', 'menu');
    this.root.hidden = true;
    this.root.addEventListener('keydown', (event) => this.key(event));
    this.root.addEventListener('contextmenu', (event) => event.preventDefault());
    document.body.append(this.root);
    // A press outside closes the menu and does nothing more; a right press goes on, to open the menu again.
    new DismissingPress(
      this.root,
      () => this.open,
      () => this.close(),
      true,
    );
  }

  get open(): boolean {
    return !this.root.hidden;
  }

  /** The menu's element (for tests and styling). */
  get element(): HTMLElement {
    return this.root;
  }

  /**
   * Opens the menu with its top-left corner at a page point (moved in so that all of it is inside the window), the
   * first enabled item focused.
   * @param title    what the menu acts on ('Bone index.02.L', 'Vertex 1 234'), shown at its top
   * @param entries  its items, null between groups
   */
  show(pageX: number, pageY: number, title: string, entries: ContextMenuEntries): void {
    this.close();
    const heading = element('div', 'context-menu-title', title);
    heading.setAttribute('role', 'presentation');
    const nodes: HTMLElement[] = [heading];
    for (const entry of entries) {
      if (entry === null) {
        const rule = element('div', 'context-menu-separator');
        rule.setAttribute('role', 'separator');
        nodes.push(rule);
        continue;
      }
      nodes.push(this.item(entry));
    }
    this.root.replaceChildren(...nodes);
    this.root.hidden = false;
    this.root.style.left = '0px';
    this.root.style.top = '0px';
    this.root.style.maxHeight = `${window.innerHeight - 2 * EDGE_PX}px`;
    const { width, height } = this.root.getBoundingClientRect();
    this.root.style.left = `${Math.max(EDGE_PX, Math.min(pageX, window.innerWidth - width - EDGE_PX))}px`;
    this.root.style.top = `${Math.max(EDGE_PX, Math.min(pageY, window.innerHeight - height - EDGE_PX))}px`;
    this.items()
      .find((item) => !item.disabled)
      ?.focus();
    this.listen(window, 'wheel', (event) => {
      if (!this.root.contains(event.target as Node)) this.close();
    });
    this.listen(window, 'resize', () => this.close());
    // Any other key (Tab, a shortcut) closes it, then does what it does: the menu's items would be stale after it.
    this.listen(window, 'keydown', (event) => {
      if (event.target instanceof HTMLInputElement && this.root.contains(event.target)) return; // typing a name
      if (!KEPT_OPEN_BY.has(event.key)) this.close();
    });
    // The window losing the focus (another application) closes it; an item's own blur, seen here too, does not.
    this.listen(window, 'blur', (event) => event.target === window && this.close());
  }

  /** Closes the menu (nothing runs). */
  close(): void {
    for (const stop of this.closers.splice(0)) stop();
    if (this.root.hidden) return;
    this.root.hidden = true;
    if (this.root.contains(document.activeElement)) (document.activeElement as HTMLElement).blur();
    this.root.replaceChildren();
  }

  private item(entry: ContextMenuItem): HTMLButtonElement {
    const node = element('button', 'context-menu-item');
    node.type = 'button';
    node.setAttribute('role', 'menuitem');
    node.dataset.command = entry.command;
    node.dataset.ownKeys = MENU_KEYS;
    node.append(element('span', 'context-menu-label', entry.label));
    const keys = entry.keys ?? '';
    if (keys) node.append(element('kbd', 'context-menu-keys', keys));
    node.disabled = entry.unavailable !== undefined || !this.commands.isEnabled(entry.command);
    node.title = entry.unavailable ?? this.commands.titleOf(entry.command);
    node.addEventListener('click', () => {
      if (entry.ask) return this.askFor(entry, entry.ask);
      this.close();
      this.commands.invoke(entry.command, entry.argument);
    });
    return node;
  }

  /** The menu as a field for the text an item asks for (see ContextMenuItem.ask), focused with its text selected. */
  private askFor(entry: ContextMenuItem, ask: NonNullable<ContextMenuItem['ask']>): void {
    const input = element('input', 'context-menu-input');
    input.type = 'text';
    input.value = ask.value;
    input.setAttribute('aria-label', ask.label);
    input.addEventListener('keydown', (event) => {
      if (event.key !== 'Enter' && event.key !== 'Escape') return;
      event.preventDefault();
      event.stopPropagation();
      this.close();
      if (event.key === 'Enter') this.commands.invoke(entry.command, { ...(entry.argument as object), [ask.field]: input.value });
    });
    const heading = element('div', 'context-menu-title', `${entry.label.replace(/…$/, '')}: Enter to apply, Esc to cancel`);
    heading.setAttribute('role', 'presentation');
    this.root.replaceChildren(heading, input);
    input.focus();
    input.select();
  }

  private items(): HTMLButtonElement[] {
    return [...this.root.querySelectorAll<HTMLButtonElement>('.context-menu-item')];
  }

  private key(event: KeyboardEvent): void {
    if (event.target instanceof HTMLInputElement) return; // the field's own keys (askFor)
    const enabled = this.items().filter((item) => !item.disabled);
    const at = enabled.indexOf(document.activeElement as HTMLButtonElement);
    const step: Record<string, number> = { ArrowDown: 1, ArrowUp: -1 };
    if (event.key === 'Escape') this.close();
    else if (event.key in step && enabled.length > 0) enabled[(at + step[event.key] + enabled.length) % enabled.length].focus();
    else if (event.key === 'Home') enabled[0]?.focus();
    else if (event.key === 'End') enabled.at(-1)?.focus();
    else return;
    event.preventDefault();
    event.stopPropagation();
  }

  private listen<K extends keyof WindowEventMap>(target: Window, type: K, listener: (event: WindowEventMap[K]) => void): void {
    target.addEventListener(type, listener, { capture: true });
    this.closers.push(() => target.removeEventListener(type, listener, { capture: true }));
  }
}
