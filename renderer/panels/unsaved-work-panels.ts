/**
 * The panels about unsaved work: the recovery prompt shown at start after a crash (the kept autosaves, newest first,
 * when and what each holds, the damaged ones marked; Recover or Discard), the Save / Discard / Cancel dialog before
 * unsaved changes go, and the autosave settings (idle delay, maximum wait, versions kept). DOM only; the shell gives
 * them their texts and actions.
 */
import { element } from './controls.ts';
import './export-dialog.css';
import './unsaved-work-panels.css';

export type SaveChoice = 'save' | 'discard' | 'cancel';

function button(parent: HTMLElement, text: string, primary = false): HTMLButtonElement {
  const node = element('button', primary ? 'tool-button export-primary' : 'tool-button', text);
  node.type = 'button';
  parent.append(node);
  return node;
}

/** One kept autosave as the recovery prompt lists it. */
export interface RecoveryChoice {
  id: string;
  /** e.g. 'hand.rig.glb: 3,485 vertices, 20 bones, 7 edits' */
  what: string;
  /** e.g. 'Autosaved at 14:03 (3 minutes ago)' */
  when: string;
  /** why it cannot be opened, or null */
  damaged: string | null;
}

/**
 * A card at the top of the viewport: "Recover unsaved work?", the kept autosaves (a list when there are several,
 * newest first; damaged ones marked and not selectable), when and what the selected one holds, Recover / Discard.
 * Not modal.
 */
export class RecoveryPrompt {
  readonly element: HTMLElement;
  private readonly versions: HTMLSelectElement;
  private readonly when: HTMLElement;
  private readonly what: HTMLElement;
  private readonly message: HTMLElement;
  private readonly recoverButton: HTMLButtonElement;
  private readonly discardButton: HTMLButtonElement;
  private choices: RecoveryChoice[] = [];
  private actions: { recover: (id: string) => Promise<void>; discard: () => Promise<void> } | null = null;

  constructor(container: HTMLElement) {
    this.element = element('section', 'recovery-prompt');
    this.element.id = 'recovery-prompt';
    this.element.setAttribute('role', 'alertdialog');
    this.element.setAttribute('aria-labelledby', 'recovery-title');
    this.element.hidden = true;
    const title = element('h2', 'recovery-title', 'Recover unsaved work?');
    title.id = 'recovery-title';
    const intro = element(
      'p',
      'recovery-intro',
      'Rigwright did not close normally last time. An autosave of the work that was not saved is kept:',
    );
    this.versions = element('select', 'recovery-versions');
    this.versions.id = 'recovery-versions';
    this.versions.setAttribute('aria-label', 'Kept autosaves, newest first');
    this.versions.addEventListener('change', () => this.showSelected());
    this.what = element('p', 'recovery-what');
    this.when = element('p', 'recovery-when');
    this.message = element('p', 'recovery-message');
    const footer = element('div', 'recovery-footer');
    this.discardButton = button(footer, 'Discard');
    this.discardButton.title = 'Start without it; the autosave stays on disk until later autosaves replace it';
    this.recoverButton = button(footer, 'Recover', true);
    this.recoverButton.title = 'Open the selected autosave as the scene, with unsaved changes';
    this.recoverButton.addEventListener('click', () => void this.run('recover'));
    this.discardButton.addEventListener('click', () => void this.run('discard'));
    this.element.append(title, intro, this.versions, this.what, this.when, this.message, footer);
    container.append(this.element);
  }

  get isOpen(): boolean {
    return !this.element.hidden;
  }

  /** the id of the version Recover opens, or null when none can be opened */
  get selected(): string | null {
    const choice = this.choices.find((c) => c.id === this.versions.value);
    return choice && choice.damaged === null ? choice.id : null;
  }

  /**
   * @param choices   the kept autosaves, newest first
   * @param selected  the one selected at first (null: none can be opened)
   * @param message   what went wrong so far ('' for nothing)
   */
  show(
    choices: RecoveryChoice[],
    selected: string | null,
    message: string,
    actions: { recover: (id: string) => Promise<void>; discard: () => Promise<void> },
  ): void {
    this.choices = choices;
    this.versions.replaceChildren(
      ...choices.map((choice) => {
        const option = element('option', '', `${choice.when} — ${choice.what}${choice.damaged === null ? '' : ' (damaged)'}`);
        option.value = choice.id;
        option.disabled = choice.damaged !== null;
        if (choice.damaged !== null) option.title = choice.damaged;
        return option;
      }),
    );
    this.versions.value = selected ?? choices[0]?.id ?? '';
    this.versions.hidden = choices.length < 2;
    this.message.textContent = message;
    this.actions = actions;
    this.setBusy(false);
    this.showSelected();
    this.element.hidden = false;
    (this.selected === null ? this.discardButton : this.recoverButton).focus({ preventScroll: true });
  }

  hide(): void {
    this.element.hidden = true;
    this.actions = null;
    if (this.element.contains(document.activeElement)) (document.activeElement as HTMLElement).blur();
  }

  private showSelected(): void {
    const choice = this.choices.find((c) => c.id === this.versions.value);
    this.what.textContent = choice?.what ?? '';
    this.when.textContent = choice ? `${choice.when}${choice.damaged === null ? '' : ` — cannot be opened: ${choice.damaged}`}` : '';
    this.recoverButton.disabled = this.selected === null;
  }

  private async run(action: 'recover' | 'discard'): Promise<void> {
    const actions = this.actions;
    const selected = this.selected;
    if (!actions || (action === 'recover' && selected === null)) return;
    this.setBusy(true);
    try {
      await (action === 'recover' ? actions.recover(selected!) : actions.discard());
      this.hide();
    } catch (error) {
      this.message.textContent = error instanceof Error ? error.message : String(error);
      this.setBusy(false);
    }
  }

  private setBusy(busy: boolean): void {
    this.recoverButton.disabled = busy || this.selected === null;
    this.discardButton.disabled = busy;
  }
}

/**
 * The modal question before unsaved changes go: Save, Discard or Cancel. Save has the focus, so Enter keeps the work;
 * Escape cancels.
 */
export class SaveChangesDialog {
  readonly dialog: HTMLDialogElement;
  private readonly question: HTMLElement;
  private readonly saveButton: HTMLButtonElement;
  private resolve: ((choice: SaveChoice) => void) | null = null;

  constructor() {
    this.dialog = element('dialog', 'work-dialog save-changes-dialog');
    this.dialog.id = 'save-changes-dialog';
    const header = element('div', 'export-header');
    this.question = element('h2', '', 'Save changes?');
    header.append(this.question, element('p', 'export-subtitle', 'Your changes are lost if you do not save them.'));
    const footer = element('div', 'export-footer');
    const discard = button(footer, 'Discard');
    const cancel = button(footer, 'Cancel');
    this.saveButton = button(footer, 'Save', true);
    // Opened, the dialog focuses Save (not its first button, Discard): Enter must never throw work away.
    this.saveButton.autofocus = true;
    discard.classList.add('save-changes-discard');
    discard.addEventListener('click', () => this.answer('discard'));
    cancel.addEventListener('click', () => this.answer('cancel'));
    this.saveButton.addEventListener('click', () => this.answer('save'));
    this.dialog.addEventListener('cancel', (event) => {
      event.preventDefault();
      this.answer('cancel');
    });
    // Closed any other way while asking (the browser may close it on Escape without a cancelable 'cancel'): Cancel.
    // The event comes a task after the close, so a dialog opened again meanwhile is a new question and stays.
    this.dialog.addEventListener('close', () => {
      if (this.resolve && !this.dialog.open) this.answer('cancel');
    });
    this.dialog.append(header, footer);
    document.body.append(this.dialog);
  }

  get isOpen(): boolean {
    return this.dialog.open;
  }

  /** @param name  the project's file name, or the scene's name */
  ask(name: string): Promise<SaveChoice> {
    this.resolve?.('cancel');
    this.question.textContent = `Save changes to ${name}?`;
    if (!this.dialog.open) this.dialog.showModal();
    this.saveButton.focus({ preventScroll: true });
    return new Promise((resolve) => (this.resolve = resolve));
  }

  private answer(choice: SaveChoice): void {
    const resolve = this.resolve;
    this.resolve = null;
    if (this.dialog.open) this.dialog.close();
    (document.activeElement as HTMLElement | null)?.blur?.();
    resolve?.(choice);
  }
}

/**
 * Autosave settings: seconds of idleness before a version is written (0 = off), seconds after a change by which one is
 * written however busy the user is, and versions kept.
 */
export class AutosaveSettingsDialog {
  readonly dialog: HTMLDialogElement;
  private readonly delay: HTMLInputElement;
  private readonly maxWait: HTMLInputElement;
  private readonly versions: HTMLInputElement;

  constructor(apply: (settings: { delaySeconds: number; maxWaitSeconds: number; versions: number }) => void) {
    this.dialog = element('dialog', 'work-dialog autosave-settings-dialog');
    this.dialog.id = 'autosave-settings';
    const form = element('form', 'export-form');
    form.method = 'dialog';
    const header = element('div', 'export-header');
    header.append(
      element('h2', '', 'Autosave'),
      element('p', 'export-subtitle', 'Unsaved work is kept in the app’s data folder (the browser’s storage on the web).'),
    );
    const body = element('div', 'export-body');
    const field = (label: string, input: HTMLInputElement) => {
      const row = element('label', 'export-field');
      const body = element('span', 'export-field-body');
      body.append(input);
      row.append(element('span', 'export-field-label', label), body);
      return row;
    };
    /** A whole-number field from `min` to `max`. */
    const wholeNumber = (name: string, min: number, max: number): HTMLInputElement => {
      const input = element('input');
      input.type = 'number';
      input.min = String(min);
      input.max = String(max);
      input.step = '1';
      input.name = name;
      return input;
    };
    this.delay = wholeNumber('autosave-delay', 0, 3600);
    this.maxWait = wholeNumber('autosave-max-wait', 1, 3600);
    this.versions = wholeNumber('autosave-versions', 1, 50);
    body.append(
      field('Idle seconds (0: off)', this.delay),
      field('At the latest, seconds after a change', this.maxWait),
      field('Versions kept', this.versions),
    );
    const footer = element('div', 'export-footer');
    const cancel = button(footer, 'Cancel');
    cancel.addEventListener('click', () => this.dialog.close());
    const ok = button(footer, 'Apply', true);
    ok.type = 'submit';
    form.addEventListener('submit', () =>
      apply({ delaySeconds: Number(this.delay.value), maxWaitSeconds: Number(this.maxWait.value), versions: Number(this.versions.value) }),
    );
    form.append(header, body, footer);
    this.dialog.append(form);
    document.body.append(this.dialog);
  }

  open(settings: { delaySeconds: number; maxWaitSeconds: number; versions: number }): void {
    this.delay.value = String(settings.delaySeconds);
    this.maxWait.value = String(settings.maxWaitSeconds);
    this.versions.value = String(settings.versions);
    if (!this.dialog.open) this.dialog.showModal();
  }
}
