/**
 * The clip menu at the end of the timeline bar: buttons that key the pose on screen (the selected bone, all bones) and
 * delete keys at the current frame, a picker of the scene's clips (keyed ones included), a menu of clip edits — new
 * clip, rename, trim to a first and last frame, length, save as DMAT — and Bake clip…. Every action runs a command; a
 * key button that cannot run now is disabled and its tooltip says why. The menu shows the clip state the shell gives it
 * and hands the shown clip's key marks to the timeline.
 */
import type { CommandId, ArgumentOf } from '../commands/command-catalog.ts';
import type { CommandRegistry } from '../commands/command-registry.ts';
import { displayKeys } from '../commands/keybindings.ts';
import { childElement, commandButton, refreshCommandButtons, toolButton } from './controls.ts';
import type { KeyMarks, Timeline } from './timeline.ts';

/** The key commands offered as buttons beside the clip picker: command, button text, class. */
const KEY_BUTTONS = [
  ['key.insert', 'Key', 'clip-key'],
  ['key.insertAll', 'Key all', 'clip-key-all'],
  ['key.delete', 'Delete key', 'clip-key-delete'],
] as const;

/** The clips as the menu shows them. */
export interface ClipMenuState {
  /** the scene's clip names, in order */
  readonly names: readonly string[];
  /** the shown clip's index in `names`, or -1 (the rest pose, or poses that are not one of the clips) */
  readonly shown: number;
  /** what is shown when it is not one of the clips (a pose file's name), or null */
  readonly other: string | null;
  /** the shown keyed clip's length in frames, or null when the shown clip has no keys */
  readonly frames: number | null;
  /** the shown keyed clip's key marks, or null */
  readonly marks: KeyMarks | null;
}

export interface ClipMenuHost {
  readonly commands: CommandRegistry;
  readonly timeline: Pick<Timeline, 'setKeyMarks'>;
  state(): ClipMenuState;
}

export class ClipMenu {
  private readonly root: HTMLDivElement;
  private readonly select: HTMLSelectElement;
  private readonly popover: HTMLDivElement;
  private readonly menuButton: HTMLButtonElement;
  private readonly nameInput: HTMLInputElement;
  private readonly renameButton: HTMLButtonElement;
  private readonly firstInput: HTMLInputElement;
  private readonly lastInput: HTMLInputElement;
  private readonly lengthInput: HTMLInputElement;
  private readonly keyedOnly: HTMLElement[] = [];
  private readonly keyButtons: HTMLButtonElement[] = [];
  /** the option list drawn now, to rebuild it only when it changes */
  private shownOptions = '';

  /** @param timelineBar  the timeline container; the menu goes at its end */
  constructor(
    timelineBar: HTMLElement,
    private readonly host: ClipMenuHost,
  ) {
    this.root = childElement('div', 'clip-menu', timelineBar);
    for (const [id, label, className] of KEY_BUTTONS)
      this.keyButtons.push(commandButton(this.root, host.commands, id, { label, className: `tool-button ${className}` }));
    const picker = childElement('label', 'clip-picker', this.root, 'Clip ');
    this.select = childElement('select', 'clip-select', picker);
    this.select.setAttribute('aria-label', 'Animation clip');
    this.select.addEventListener('change', () => {
      const index = Number(this.select.value);
      if (index >= 0) this.run('playback.clip', index);
      this.select.blur();
    });
    this.menuButton = toolButton(
      this.root,
      'Clip ▾',
      'Clip: new, rename, trim, length, save',
      () => this.toggle(),
      'tool-button clip-menu-button',
    );
    this.menuButton.setAttribute('aria-haspopup', 'true');
    this.menuButton.setAttribute('aria-expanded', 'false');
    commandButton(this.root, host.commands, 'playback.bakeClip', { label: 'Bake clip…', className: 'tool-button clip-bake' });

    this.popover = childElement('div', 'clip-menu-popover', this.root);
    this.popover.hidden = true;
    this.popover.setAttribute('role', 'dialog');
    this.popover.setAttribute('aria-label', 'Clip');
    const newRow = childElement('div', 'clip-menu-row', this.popover);
    commandButton(newRow, host.commands, 'clip.new', { label: 'New clip' });
    commandButton(newRow, host.commands, 'file.saveClip', { label: 'Save as DMAT…' });

    const nameRow = childElement('div', 'clip-menu-row', this.popover);
    this.nameInput = this.input(nameRow, 'clip-name', 'Clip name', 'text');
    this.renameButton = toolButton(nameRow, 'Rename', 'Rename the clip shown', () => {
      const clip = this.host.state().shown;
      if (clip >= 0) this.run('clip.rename', { clip, name: this.nameInput.value });
    });
    this.renameButton.classList.add('clip-rename');

    const trimRow = childElement('div', 'clip-menu-row', this.popover);
    trimRow.append('Frames ');
    this.firstInput = this.input(trimRow, 'clip-first', 'First frame kept', 'number');
    trimRow.append('–');
    this.lastInput = this.input(trimRow, 'clip-last', 'Last frame kept', 'number');
    const trim = toolButton(trimRow, 'Trim', 'Keep these frames of the clip shown', () =>
      this.run('clip.trim', { first: Number(this.firstInput.value), last: Number(this.lastInput.value) }),
    );
    trim.classList.add('clip-trim');

    const lengthRow = childElement('div', 'clip-menu-row', this.popover);
    lengthRow.append('Length ');
    this.lengthInput = this.input(lengthRow, 'clip-length', 'Length in frames', 'number');
    const length = toolButton(lengthRow, 'Set', 'Make the clip shown this many frames long', () =>
      this.run('clip.length', Number(this.lengthInput.value)),
    );
    length.classList.add('clip-set-length');
    this.keyedOnly.push(this.firstInput, this.lastInput, trim, this.lengthInput, length);

    // A click elsewhere, or Escape (whatever else it does), closes it. With the focus on the menu's button or one of
    // its buttons, that Escape is the menu's alone (data-own-keys while it is open: setOpen): it does not stop a
    // running script or cancel a tool.
    document.addEventListener('pointerdown', (event) => {
      if (this.open && !this.root.contains(event.target as Node)) this.setOpen(false);
    });
    window.addEventListener(
      'keydown',
      (event) => {
        if (event.key === 'Escape' && this.open) this.setOpen(false);
      },
      { capture: true },
    );
  }

  get open(): boolean {
    return !this.popover.hidden;
  }

  /** Shows the scene's clips and the shown one's state; hands its key marks to the timeline. */
  refresh(): void {
    const state = this.host.state();
    const options = JSON.stringify([state.names, state.other]);
    if (options !== this.shownOptions) {
      this.shownOptions = options;
      const items = state.names.map((name, i) => new Option(name || `clip ${i + 1}`, String(i)));
      if (state.other !== null) items.push(new Option(state.other, '-1'));
      if (items.length === 0) items.push(new Option('rest pose', '-1'));
      this.select.replaceChildren(...items);
    }
    this.select.value = String(state.shown);
    this.select.disabled = state.names.length === 0;
    const keyed = state.frames !== null;
    for (const node of this.keyedOnly) (node as HTMLInputElement | HTMLButtonElement).disabled = !keyed;
    // Any clip of the list can be renamed; trim and length need keys.
    this.nameInput.disabled = state.shown < 0;
    this.renameButton.disabled = state.shown < 0;
    if (!this.open) this.fill(state);
    refreshCommandButtons(this.root, this.host.commands);
    for (const button of this.keyButtons) button.title = this.keyTooltip(button.dataset.command as CommandId);
    this.host.timeline.setKeyMarks(state.marks);
  }

  /** What a key button does now ('Key forearm.L (Alt+I)'), or why it cannot ('Delete keys: the clip shown …'). */
  private keyTooltip(id: CommandId): string {
    const { commands } = this.host;
    const title = commands.titleOf(id);
    const refusal = commands.refusal(id);
    if (refusal !== null) return `${title}: ${refusal}`;
    const keys = displayKeys(id);
    return keys ? `${title} (${keys})` : title;
  }

  /** Opens or closes the menu; opening fills its fields with the shown clip's name and frames. */
  setOpen(open: boolean): void {
    if (open) this.fill(this.host.state());
    this.popover.hidden = !open;
    this.menuButton.setAttribute('aria-expanded', String(open));
    for (const button of [this.menuButton, ...this.popover.querySelectorAll('button')]) {
      if (open) button.dataset.ownKeys = 'Escape';
      else delete button.dataset.ownKeys;
    }
  }

  private toggle(): void {
    this.setOpen(!this.open);
  }

  private fill(state: ClipMenuState): void {
    this.nameInput.value = state.shown >= 0 ? state.names[state.shown] : '';
    const frames = state.frames ?? 1;
    this.firstInput.value = '0';
    this.lastInput.value = String(frames - 1);
    this.lengthInput.value = String(frames);
    for (const input of [this.firstInput, this.lastInput]) input.max = String(frames - 1);
  }

  private input(parent: HTMLElement, className: string, label: string, type: 'text' | 'number'): HTMLInputElement {
    const input = childElement('input', className, parent);
    input.type = type;
    input.setAttribute('aria-label', label);
    if (type === 'number') {
      input.min = '0';
      input.step = '1';
    }
    return input;
  }

  private run<K extends CommandId>(id: K, argument: ArgumentOf<K>): void {
    void (this.host.commands.invoke as (id: K, argument: ArgumentOf<K>) => unknown)(id, argument);
  }
}
