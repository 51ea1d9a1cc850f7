/**
 * The preferences page (Edit → Preferences…, Ctrl/⌘ ,): what is saved for this user rather than with the project —
 * theme, length units, autosave, what a new scene starts with, the preferences features register — and the keys of
 * every command, editable as in Blender's keymap: click a key (or +) and press the new one; a key another command
 * holds where both apply is named, and refused or swapped; reset one command or all. DOM only: the store, its rules
 * (project/preferences.ts, commands/user-keymap.ts) and the autosave settings are given.
 */
import { COMMANDS, type CommandId } from '../commands/command-catalog.ts';
import { chordOf, displayChord } from '../commands/keybindings.ts';
import { assignKey, keymapProblems, keysOf, resetKeys, takesKeys, type KeyOverrides } from '../commands/user-keymap.ts';
import {
  LENGTH_UNITS,
  METRES_PER_UNIT_RANGE,
  type BrushDefaults,
  type LengthUnit,
  type Preference,
  type PreferenceEntry,
  type PreferenceStore,
} from '../project/preferences.ts';
import { BRUSH_FALLOFFS, BRUSH_MODES, BRUSH_RADIUS_RANGE } from '../paint/brush-options.ts';
import { AUTOSAVE_DELAY_RANGE, AUTOSAVE_MAX_WAIT_RANGE, AUTOSAVE_VERSIONS_RANGE } from '../project/autosave.ts';
import { childElement, element } from './controls.ts';
import './export-dialog.css';
import './preferences-panel.css';

/** The autosave settings as the page edits them (project/autosave.ts AutosaveOptions, filled in). */
export interface AutosaveFields {
  delaySeconds: number;
  maxWaitSeconds: number;
  versions: number;
}

export interface PreferencesPanelHost {
  readonly preferences: PreferenceStore;
  /** the user's keys (commands/user-keymap.ts KEYS_PREFERENCE, registered in `preferences`) */
  readonly keys: Preference<KeyOverrides>;
  /** the autosave settings now */
  autosave(): AutosaveFields;
  /** applies and saves autosave settings (the file.autosave command) */
  setAutosave(settings: Partial<AutosaveFields>): void;
}

const UNIT_LABELS: Readonly<Record<LengthUnit, string>> = {
  scene: 'Scene units',
  m: 'Metres (m)',
  cm: 'Centimetres (cm)',
  mm: 'Millimetres (mm)',
};
/** Entries the page draws with controls of their own (the keys have their table). */
const OWN_CONTROLS = new Set(['theme', 'lengthUnits', 'maxInfluences', 'brush', 'keys']);

/** A key being recorded: for which command, replacing which of its keys (null: adding one). */
interface Recording {
  command: CommandId;
  replacing: string | null;
}

export class PreferencesPanel {
  readonly dialog: HTMLDialogElement;
  private readonly general: HTMLElement;
  private readonly keysBody: HTMLTableSectionElement;
  private readonly search: HTMLInputElement;
  private readonly keyMessage: HTMLElement;
  private recording: Recording | null = null;
  /** a refused key waiting for Swap or Cancel */
  private pending: (Recording & { chord: string }) | null = null;
  /** the key table is being drawn again: the recording button it removes losing the focus stops nothing */
  private redrawingKeys = false;

  constructor(private readonly host: PreferencesPanelHost) {
    this.dialog = element('dialog', 'work-dialog preferences-dialog');
    this.dialog.id = 'preferences';
    this.dialog.setAttribute('aria-label', 'Preferences');
    const header = element('div', 'export-header preferences-header');
    const close = element('button', 'preferences-close', '×');
    close.type = 'button';
    close.title = 'Close (Esc)';
    close.setAttribute('aria-label', 'Close preferences');
    close.addEventListener('click', () => this.close());
    header.append(
      element('h2', '', 'Preferences'),
      element('p', 'export-subtitle', 'Saved for you on this computer, whatever project is open.'),
      close,
    );
    const body = element('div', 'preferences-body');
    this.general = childElement('div', 'preferences-general', body);
    const keys = childElement('section', 'preferences-keys', body);
    const keysHead = childElement('div', 'preferences-keys-head', keys);
    keysHead.append(element('h3', '', 'Keys'));
    this.search = childElement('input', 'preferences-search', keysHead);
    this.search.type = 'search';
    this.search.placeholder = 'Search commands or keys';
    this.search.setAttribute('aria-label', 'Search commands or keys');
    this.search.addEventListener('input', () => this.renderKeys());
    const resetAll = childElement('button', 'preferences-reset-all', keysHead, 'Reset all keys');
    resetAll.type = 'button';
    resetAll.addEventListener('click', () => {
      this.stopRecording();
      this.host.keys.set({});
    });
    this.keyMessage = childElement('p', 'preferences-key-message', keys);
    this.keyMessage.setAttribute('role', 'status');
    const table = childElement('table', 'preferences-key-table', keys);
    const head = childElement('thead', '', table);
    const headRow = childElement('tr', '', head);
    for (const title of ['Command', 'Keys', '']) childElement('th', '', headRow, title);
    this.keysBody = childElement('tbody', '', table);
    this.dialog.append(header, body);
    this.dialog.addEventListener('keydown', (event) => this.recordKey(event), { capture: true });
    // A press anywhere but on the key being recorded ends the recording, and goes on to what it pressed.
    this.dialog.addEventListener(
      'pointerdown',
      (event) => {
        if (this.recording && !(event.target instanceof Element && event.target.closest('.preferences-key.recording')))
          this.stopRecording();
      },
      { capture: true },
    );
    this.dialog.addEventListener('cancel', (event) => {
      if (!this.recording && !this.pending) return this.releaseFocus();
      event.preventDefault();
      this.stopRecording();
    });
    this.dialog.addEventListener('close', () => this.stopRecording());
    document.body.append(this.dialog);
    const { core } = host.preferences;
    for (const preference of [...Object.values(core), host.keys]) preference.subscribe(() => this.render());
    host.preferences.onRegistered(() => this.render());
  }

  get open(): boolean {
    return this.dialog.open;
  }

  show(): void {
    this.render();
    if (!this.dialog.open) this.dialog.showModal();
  }

  close(): void {
    this.releaseFocus();
    this.dialog.close();
  }

  /**
   * Lets go of the focus before the dialog closes: the browser moves it out of a closed dialog only at a later task,
   * and a key pressed meanwhile would go to the search field, not to the app's shortcuts.
   */
  private releaseFocus(): void {
    const focused = document.activeElement;
    if (focused instanceof HTMLElement && this.dialog.contains(focused)) focused.blur();
  }

  private render(): void {
    if (!this.dialog.isConnected) return;
    this.renderGeneral();
    this.renderKeys();
  }

  // --- general preferences -----------------------------------------------------------------------------------------

  private renderGeneral(): void {
    const { core } = this.host.preferences;
    const sections = new Map<string, HTMLElement>();
    const sectionOf = (name: string) => {
      let node = sections.get(name);
      if (!node) {
        node = element('section', 'preferences-section');
        node.append(element('h3', '', name));
        sections.set(name, node);
      }
      return node;
    };
    sectionOf('Appearance').append(this.choiceField(core.theme.entry, core.theme.get(), (v) => core.theme.set(v)));

    const units = core.lengthUnits.get();
    const unitSelect = select(
      LENGTH_UNITS.map((u) => [u, UNIT_LABELS[u]] as const),
      units.unit,
      (unit) => core.lengthUnits.set({ ...units, unit }),
    );
    const scale = numberInput(units.metresPerUnit, METRES_PER_UNIT_RANGE.min, METRES_PER_UNIT_RANGE.max, 'any', (metresPerUnit) =>
      core.lengthUnits.set({ ...units, metresPerUnit }),
    );
    scale.disabled = units.unit === 'scene';
    sectionOf('Units').append(
      field('Lengths', unitSelect, core.lengthUnits.entry.description),
      field('Metres per scene unit', scale, 'The scene’s scale: 1 when it is modelled in metres, 0.01 in centimetres'),
    );

    const autosave = this.host.autosave();
    const autosaveField = (label: string, key: keyof AutosaveFields, range: { min: number; max: number }) =>
      field(
        label,
        numberInput(autosave[key], range.min, range.max, '1', (value) => this.host.setAutosave({ [key]: value })),
      );
    sectionOf('Autosave').append(
      autosaveField('Idle seconds (0: off)', 'delaySeconds', AUTOSAVE_DELAY_RANGE),
      autosaveField('At the latest, seconds after a change', 'maxWaitSeconds', AUTOSAVE_MAX_WAIT_RANGE),
      autosaveField('Versions kept', 'versions', AUTOSAVE_VERSIONS_RANGE),
    );

    const brush = core.brush.get();
    const setBrush = (change: Partial<BrushDefaults>) => core.brush.set({ ...brush, ...change });
    sectionOf('New scene').append(
      this.choiceField(core.maxInfluences.entry, core.maxInfluences.get(), (v) => core.maxInfluences.set(v)),
      field(
        'Brush mode',
        select(
          BRUSH_MODES.map((m) => [m, capitalized(m)] as const),
          brush.mode,
          (mode) => setBrush({ mode }),
        ),
      ),
      field(
        'Brush radius (px)',
        numberInput(brush.radius, BRUSH_RADIUS_RANGE.min, BRUSH_RADIUS_RANGE.max, '1', (radius) => setBrush({ radius })),
      ),
      field(
        'Brush strength',
        numberInput(brush.strength, 0, 1, '0.01', (strength) => setBrush({ strength })),
      ),
      field(
        'Brush falloff',
        select(
          BRUSH_FALLOFFS.map((f) => [f, capitalized(f)] as const),
          brush.falloff,
          (falloff) => setBrush({ falloff }),
        ),
      ),
    );

    for (const entry of this.host.preferences.entries()) {
      if (OWN_CONTROLS.has(entry.key) || !entry.control) continue;
      const preference = this.host.preferences.preference(entry.key)!;
      sectionOf(entry.section).append(this.entryField(entry, preference.get(), (value) => preference.set(value)));
    }
    this.general.replaceChildren(...sections.values());
  }

  private choiceField<T>(entry: PreferenceEntry<T>, value: T, set: (value: T) => void): HTMLElement {
    return this.entryField(entry, value, set as (value: unknown) => void);
  }

  /** A field for an entry with a control: a list of its choices, or a number within its range. */
  private entryField(entry: PreferenceEntry<unknown>, value: unknown, set: (value: unknown) => void): HTMLElement {
    const control = entry.control!;
    const input =
      'choices' in control
        ? select(control.choices, value, set)
        : numberInput(Number(value), control.min, control.max, String(control.step), set);
    return field(entry.label, input, entry.description);
  }

  // --- keys ----------------------------------------------------------------------------------------------------------

  private renderKeys(): void {
    const overrides = this.host.keys.get();
    const query = this.search.value.trim().toLowerCase();
    const rows: HTMLTableRowElement[] = [];
    for (const command of Object.keys(COMMANDS) as CommandId[]) {
      if (!takesKeys(command)) continue;
      const label = COMMANDS[command].label;
      const keys = keysOf(command, overrides);
      const shown = keys.map(displayChord);
      if (query && ![label, command, ...shown].some((text) => text.toLowerCase().includes(query))) continue;
      const row = element('tr');
      row.dataset.command = command;
      if (overrides[command]) row.classList.add('preferences-key-changed');
      const name = childElement('td', 'preferences-key-command', row);
      name.append(element('span', '', label), element('span', 'preferences-key-id', command));
      const cell = childElement('td', 'preferences-key-chords', row);
      keys.forEach((key, i) => cell.append(this.keyButton(command, key, shown[i])));
      const add = this.keyButton(command, null, '+');
      add.classList.add('preferences-key-add');
      cell.append(add);
      const actions = childElement('td', 'preferences-key-actions', row);
      if (overrides[command]) {
        const reset = childElement('button', 'preferences-key-reset', actions, 'Reset');
        reset.type = 'button';
        reset.title = `Back to ${COMMANDS[command].label}’s keys in the table`;
        reset.addEventListener('click', () => {
          this.stopRecording();
          const next = resetKeys(this.host.keys.get(), command);
          // The table's key may run another command of the user's now (a key the user took from it).
          const problems = keymapProblems(next);
          if (problems.length > 0) this.keyMessage.textContent = `Reset cannot be done: ${problems[0]}`;
          else this.host.keys.set(next);
        });
      }
      rows.push(row);
    }
    this.redrawingKeys = true;
    try {
      this.keysBody.replaceChildren(...rows);
    } finally {
      this.redrawingKeys = false;
    }
    this.showPending();
  }

  private keyButton(command: CommandId, key: string | null, text: string): HTMLButtonElement {
    const recording = this.recording?.command === command && this.recording.replacing === key;
    const button = element('button', 'preferences-key', recording ? 'Press a key…' : text);
    button.type = 'button';
    button.dataset.key = key ?? '';
    button.dataset.text = text;
    if (recording) {
      button.classList.add('recording');
      // The focus leaving the key being recorded (Tab, a click elsewhere) ends the recording.
      button.addEventListener('focusout', () => {
        if (!this.redrawingKeys && this.recording?.command === command && this.recording.replacing === key) this.stopRecording();
      });
    }
    const label = COMMANDS[command].label;
    button.title = key === null ? `Add a key to “${label}”` : `Click, then press the new key for “${label}” (Esc cancels)`;
    button.setAttribute('aria-label', key === null ? `Add a key to ${label}` : `Key ${text} of ${label}`);
    button.addEventListener('click', () => {
      this.pending = null;
      this.recording = { command, replacing: key };
      this.keyMessage.textContent = `Press the new key for “${label}” (Esc cancels)`;
      this.renderKeys();
      this.keysBody.querySelector<HTMLButtonElement>('.preferences-key.recording')?.focus();
    });
    return button;
  }

  /**
   * While recording, a key press is the new key (Esc cancels); nothing else on the page sees it. Tab is never recorded:
   * it ends the recording and moves the focus on, so the keyboard can always leave the table.
   */
  private recordKey(event: KeyboardEvent): void {
    const recording = this.recording;
    if (!recording) return;
    if (event.key === 'Tab') {
      this.stopRecording();
      return;
    }
    event.preventDefault();
    event.stopPropagation();
    const chord = chordOf(event);
    if (!chord) return;
    if (chord === 'Escape') {
      this.stopRecording();
      return;
    }
    this.recording = null;
    this.tryAssign({ ...recording, chord }, false);
  }

  private tryAssign(attempt: Recording & { chord: string }, swap: boolean): void {
    const keys = this.host.keys;
    const outcome = assignKey(keys.get(), attempt.command, attempt.chord, attempt.replacing, swap);
    if ('conflicts' in outcome) {
      this.pending = attempt;
      this.keyMessage.textContent = outcome.message;
      this.keyMessage.dataset.swappable = String(!swap);
      this.renderKeys();
      return;
    }
    this.pending = null;
    const swapped = outcome.swapped.map((id) => `“${COMMANDS[id].label}”`).join(' and ');
    this.keyMessage.textContent = `${displayChord(attempt.chord)} runs “${COMMANDS[attempt.command].label}”${swapped ? `; ${swapped} swapped` : ''}`;
    keys.set(outcome.overrides);
  }

  /** A refused key: the message with Swap (when swapping can work) and Cancel. */
  private showPending(): void {
    this.keyMessage.querySelector('.preferences-key-choices')?.remove();
    const pending = this.pending;
    if (!pending) return;
    const choices = childElement('span', 'preferences-key-choices', this.keyMessage);
    if (this.keyMessage.dataset.swappable === 'true') {
      const swap = childElement('button', 'preferences-key-swap', choices, 'Swap');
      swap.type = 'button';
      swap.addEventListener('click', () => this.tryAssign(pending, true));
    }
    const cancel = childElement('button', 'preferences-key-cancel', choices, 'Cancel');
    cancel.type = 'button';
    cancel.addEventListener('click', () => this.stopRecording());
  }

  /**
   * Ends a recording or a refused key's choice. The button being recorded gets its key back in place, without drawing
   * the table again, so the press that ended the recording still reaches what it pressed.
   */
  private stopRecording(): void {
    if (!this.recording && !this.pending) return;
    this.recording = null;
    this.pending = null;
    this.keyMessage.textContent = '';
    delete this.keyMessage.dataset.swappable;
    for (const button of this.keysBody.querySelectorAll<HTMLButtonElement>('.preferences-key.recording')) {
      button.classList.remove('recording');
      button.textContent = button.dataset.text ?? '';
    }
  }
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function field(label: string, input: HTMLElement, description?: string): HTMLElement {
  const row = element('label', 'export-field preferences-field');
  input.setAttribute('aria-label', label);
  row.append(element('span', 'export-field-label', label), input);
  if (description) row.title = description;
  return row;
}

function select<T>(choices: readonly (readonly [T, string])[], value: T, set: (value: T) => void): HTMLSelectElement {
  const node = element('select');
  choices.forEach(([choice, label], i) => {
    const option = new Option(label, String(i));
    option.selected = choice === value;
    node.add(option);
  });
  node.addEventListener('change', () => set(choices[Number(node.value)][0]));
  return node;
}

/** A number field that applies a value within [min, max] on change and shows the value kept otherwise. */
function numberInput(value: number, min: number, max: number, step: string, set: (value: number) => void): HTMLInputElement {
  const input = element('input');
  input.type = 'number';
  input.min = String(min);
  input.max = String(max);
  input.step = step;
  input.value = String(value);
  input.addEventListener('change', () => {
    const next = Number(input.value);
    if (input.value.trim() !== '' && Number.isFinite(next) && next >= min && next <= max) set(next);
    else input.value = String(value);
  });
  return input;
}
