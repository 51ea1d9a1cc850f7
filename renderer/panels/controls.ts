/**
 * The small DOM pieces every panel is made of: elements, buttons, and command buttons, which show a command's
 * label, tooltip (with its keys, from the keybinding table), enabled state and pressed state, and execute it on
 * click. Panels offer actions only through command buttons, so a button, its menu item and its key stay one action.
 */
import type { CommandId } from '../commands/command-catalog.ts';
import type { CommandRegistry } from '../commands/command-registry.ts';
import { displayKeys, tooltipOf } from '../commands/keybindings.ts';
import './controls.css';

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

/**
 * Brings every command button under `root` up to date: enabled, pressed, the title of those that show it, and the
 * tooltip with the command's keys now (the user's keys may have changed).
 */
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
    } else {
      const tooltip = tooltipOf(id);
      if (node.title !== tooltip) node.title = tooltip;
    }
  }
}

export function section(parent: HTMLElement, title: string): HTMLElement {
  const node = element('section', 'bind-section');
  node.append(element('h3', undefined, title));
  parent.append(node);
  return node;
}

/** A labelled row holding one input (a slider with its value field beside it). */
export function labelled(parent: HTMLElement, label: string, input: HTMLElement, className = 'slider-row'): HTMLLabelElement {
  const row = element('label', className);
  row.append(label, input);
  if (input instanceof HTMLInputElement && isSlider(input)) {
    row.append(input.valueField.root);
    input.valueField.input.setAttribute('aria-label', `${label.trim()} value`);
  }
  parent.append(row);
  return row;
}

/**
 * The editable number beside a slider: typing a value and pressing Enter (or leaving the field) sets it once, as one
 * move of the slider does; a value between the slider's steps goes to the nearest step and one outside its range is
 * clamped to it, and a note beside the field says so;
 * something that is not a number is refused with a note and the field shows the value again.
 */
export interface ValueField {
  /** the field and its note, to place beside the slider */
  readonly root: HTMLElement;
  readonly input: HTMLInputElement;
  /** the note shown after a clamped or refused entry ('' when none) */
  readonly note: HTMLElement;
  /** shows `value`, unless the user is typing in the field */
  show(value: number): void;
}

/** Digits enough for `step` (0.005 → 3), so the field shows what the slider holds without float noise. */
function decimalsOf(step: number): number {
  const text = String(step);
  const exponent = /e-(\d+)$/.exec(text);
  if (exponent) return Number(exponent[1]);
  return text.includes('.') ? text.length - text.indexOf('.') - 1 : 0;
}

/**
 * The value a slider over [min, max] in steps of `step` holds for `x`: the nearest step, min + round((x − min) / step)
 * · step, then clamped to [min, max], rounded to the step's digits so no float noise is left (0.1 + 0.2 is 0.3).
 */
export function snapToStep(x: number, min: number, max: number, step: number): number {
  const snapped = step > 0 ? min + Math.round((x - min) / step) * step : x;
  const clamped = Math.min(Math.max(snapped, min), max);
  return Number(clamped.toFixed(Math.max(decimalsOf(step), decimalsOf(min))));
}

/**
 * A number field for values in [min, max] that calls `set` once per entry with the value snapped to the nearest
 * step and clamped (snapToStep), so the field, the slider and the setting hold the same number.
 * @param step  the slider's step: the field's arrow keys step by it, and it sets the digits shown
 * The bounds are the field's `min` and `max` attributes when an entry is made, so an owner whose range changes (a
 * clip's length) sets those.
 */
export function valueField(min: number, max: number, step: number, set: (x: number) => void): ValueField {
  const root = element('span', 'value-field');
  const input = element('input', 'slider-value');
  input.type = 'number';
  input.min = String(min);
  input.max = String(max);
  input.step = String(step);
  const note = element('span', 'value-note');
  note.setAttribute('role', 'status');
  note.hidden = true;
  root.append(input, note);
  const decimals = decimalsOf(step);
  const format = (x: number) => String(Number(x.toFixed(Math.max(decimals, 2))));
  let shown = min;
  const say = (text: string) => {
    note.textContent = text;
    note.hidden = text === '';
  };
  const enter = () => {
    const typed = input.value.trim() === '' ? NaN : Number(input.value);
    if (!Number.isFinite(typed)) {
      say(`not a number: kept ${format(shown)}`);
      input.value = format(shown);
      return;
    }
    const lo = Number(input.min),
      hi = Number(input.max);
    const value = snapToStep(typed, lo, hi, step);
    // The typed number as typed: the field's digits would round it to what it is being told apart from.
    if (typed < lo || typed > hi) say(`${typed} is outside ${format(lo)} to ${format(hi)}: set to ${format(value)}`);
    else if (value !== typed) say(`${typed} is between steps of ${format(step)}: set to ${format(value)}`);
    else say('');
    shown = value;
    input.value = format(value);
    set(value);
  };
  input.addEventListener('change', enter);
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      input.blur();
    } else if (event.key === 'Escape') {
      input.value = format(shown);
      say('');
      input.blur();
    }
  });
  return {
    root,
    input,
    note,
    show: (value) => {
      shown = value;
      if (document.activeElement !== input) input.value = format(value);
    },
  };
}

export type Slider = HTMLInputElement & { sync(): void; readonly valueField: ValueField };

function isSlider(input: HTMLInputElement): input is Slider {
  return 'valueField' in input;
}

/**
 * A range input that calls `set` as it moves and shows `get()` when synced, with its value in an editable number
 * field beside it (valueField; `labelled` places it in the row): typing a value moves the slider and the setting.
 */
export function slider(min: number, max: number, step: number, get: () => number, set: (x: number) => void): Slider {
  const range = element('input');
  range.type = 'range';
  range.min = String(min);
  range.max = String(max);
  range.step = String(step);
  const field = valueField(min, max, step, (x) => {
    range.value = String(x);
    set(x);
  });
  range.addEventListener('input', () => {
    field.note.hidden = true;
    field.show(Number(range.value));
    set(Number(range.value));
  });
  const input = Object.assign(range, {
    valueField: field,
    sync: () => {
      const value = get();
      range.value = String(value);
      field.show(value);
    },
  });
  input.sync();
  return input;
}

/**
 * A press outside an open menu closes it and does nothing more, as desktop menus swallow the dismissing click: in
 * weight paint mode a click on the mesh to close a menu must not paint. The press is caught before anything under it
 * sees it (capture on the window), and its release and click go the same way. Used by the menu bar and the
 * right-click menus.
 */
export class DismissingPress {
  /** a press outside closed the menu: its release and click are swallowed too */
  private swallowing = false;

  /**
   * @param inside     the menu's own elements: a press there is the menu's
   * @param isOpen     whether the menu is open now
   * @param close      closes it
   * @param rightGoesOn  a right press closes the menu and goes on (so that it may open a right-click menu again)
   */
  constructor(
    private readonly inside: HTMLElement,
    private readonly isOpen: () => boolean,
    private readonly close: () => void,
    private readonly rightGoesOn = false,
  ) {
    window.addEventListener('pointerdown', (event) => this.press(event), { capture: true });
    for (const type of ['pointerup', 'mouseup', 'click'] as const)
      window.addEventListener(type, (event) => this.swallowRestOfPress(event), { capture: true });
  }

  private press(event: PointerEvent): void {
    this.swallowing = false;
    if (!this.isOpen() || (event.target instanceof Node && this.inside.contains(event.target))) return;
    this.close();
    if (this.rightGoesOn && event.button === 2) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    this.swallowing = true;
  }

  /** The release and the click of a press that closed the menu reach nothing either. */
  private swallowRestOfPress(event: Event): void {
    if (!this.swallowing) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    // The click follows the release in the same task; a press dragged off its target has none, so the swallowing
    // ends with that task and a later click (Enter on a button) goes through.
    if (event.type === 'pointerup') setTimeout(() => (this.swallowing = false));
    if (event.type === 'click') this.swallowing = false;
  }
}
