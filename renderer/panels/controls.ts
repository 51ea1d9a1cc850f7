/**
 * The small DOM pieces every panel is made of: elements, buttons, and command buttons, which show a command's
 * label, tooltip (with its keys, from the keybinding table), enabled state and pressed state, and execute it on
 * click. Panels offer actions only through command buttons, so a button, its menu item and its key stay one action.
 */
import type { CommandId } from '../commands/command-catalog.ts';
import type { CommandRegistry } from '../commands/command-registry.ts';
import { displayKeys, tooltipOf } from '../commands/keybindings.ts';

export function element<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** An element, appended to `parent` when one is given. */
export function childElement<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className: string,
  parent?: HTMLElement,
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = element(tag, className, text);
  parent?.append(node);
  return node;
}

/**
 * A panel floating over the viewport, hidden at first: its title in a header whose × runs `closeCommand` (the
 * command that toggles it, so the button, its key and its menu item stay one action).
 */
export function floatingPanel(
  id: string,
  className: string,
  title: string,
  commands: CommandRegistry,
  closeCommand: CommandId,
): HTMLElement {
  const root = element('aside', className);
  root.id = id;
  root.hidden = true;
  root.setAttribute('aria-label', title);
  const header = element('header', 'bind-header');
  header.append(element('h2', undefined, title));
  commandButton(header, commands, closeCommand, { label: '×', className: 'icon-button' });
  root.append(header);
  return root;
}

/** A toolbar or panel button, appended to `parent` when one is given. */
export function toolButton(
  parent: HTMLElement | null,
  label: string,
  title: string,
  onClick: () => void,
  className = 'tool-button',
): HTMLButtonElement {
  const node = element('button', className, label);
  node.type = 'button';
  node.title = title;
  node.addEventListener('click', () => {
    onClick();
    // Focus stays on the canvas side so Space is not swallowed as a button press.
    node.blur();
  });
  parent?.append(node);
  return node;
}

/**
 * A button that executes a command; refreshCommandButtons keeps its title, enabled and pressed state current.
 * @param label  the button's own text when it is shorter than the command's label ('×' for closing a panel)
 */
export function commandButton(
  parent: HTMLElement | null,
  commands: CommandRegistry,
  id: CommandId,
  options: { label?: string; className?: string; showTitle?: boolean } = {},
): HTMLButtonElement {
  const node = toolButton(parent, options.label ?? commands.titleOf(id), tooltipOf(id), () => void commands.invoke(id), options.className);
  node.dataset.command = id;
  if (options.showTitle) node.dataset.showTitle = '1';
  return node;
}

/** Brings every command button under `root` up to date: enabled, pressed, and the title of those that show it. */
export function refreshCommandButtons(root: ParentNode, commands: CommandRegistry): void {
  for (const node of root.querySelectorAll<HTMLButtonElement>('button[data-command]')) {
    const id = node.dataset.command as CommandId;
    node.disabled = !commands.isEnabled(id);
    const checked = commands.isChecked(id);
    if (checked !== undefined) node.setAttribute('aria-pressed', String(checked));
    if (node.dataset.showTitle) {
      const title = commands.titleOf(id);
      node.textContent = title;
      const keys = displayKeys(id);
      node.title = keys ? `${title} (${keys})` : title;
    }
  }
}

export function section(parent: HTMLElement, title: string): HTMLElement {
  const node = element('section', 'bind-section');
  node.append(element('h3', undefined, title));
  parent.append(node);
  return node;
}

/** A labelled row holding one input. */
export function labelled(parent: HTMLElement, label: string, input: HTMLElement, className = 'slider-row'): HTMLLabelElement {
  const row = element('label', className);
  row.append(label, input);
  parent.append(row);
  return row;
}

/** A range input that calls `set` as it moves and shows `get()` when synced. */
export function slider(
  min: number,
  max: number,
  step: number,
  get: () => number,
  set: (x: number) => void,
): HTMLInputElement & { sync(): void } {
  const input = element('input') as HTMLInputElement & { sync(): void };
  input.type = 'range';
  input.min = String(min);
  input.max = String(max);
  input.step = String(step);
  input.addEventListener('input', () => set(Number(input.value)));
  input.sync = () => (input.value = String(get()));
  input.sync();
  return input;
}
