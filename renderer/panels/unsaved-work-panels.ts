/**
 * The panels about unsaved work: the recovery prompt shown at start after a crash (when and what was autosaved,
 * Recover or Discard), the Save / Discard / Cancel dialog before unsaved changes go, and the autosave settings
 * (idle delay, versions kept). DOM only; the shell gives them their texts and actions.
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

/** A card at the top of the viewport: "Recover unsaved work?", when, what, Recover / Discard. Not modal. */
export class RecoveryPrompt {
  readonly element: HTMLElement;
  private readonly when: HTMLElement;
  private readonly what: HTMLElement;
  private readonly message: HTMLElement;
  private readonly recoverButton: HTMLButtonElement;
  private readonly discardButton: HTMLButtonElement;
  private actions: { recover: () => Promise<void>; discard: () => Promise<void> } | null = null;

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
    this.what = element('p', 'recovery-what');
    this.when = element('p', 'recovery-when');
    this.message = element('p', 'recovery-message');
    const footer = element('div', 'recovery-footer');
    this.discardButton = button(footer, 'Discard');
    this.discardButton.title = 'Start without it; the autosave stays on disk until later autosaves replace it';
    this.recoverButton = button(footer, 'Recover', true);
    this.recoverButton.title = 'Open the autosave as the scene, with unsaved changes';
    this.recoverButton.addEventListener('click', () => void this.run('recover'));
    this.discardButton.addEventListener('click', () => void this.run('discard'));
    this.element.append(title, intro, this.what, this.when, this.message, footer);
    container.append(this.element);
  }

  get isOpen(): boolean {
    return !this.element.hidden;
  }

  /**
   * @param what  e.g. 'hand.rig.glb: 3,485 vertices, 20 bones, 7 edits'
   * @param when  e.g. 'Autosaved at 14:03 (3 minutes ago)'
   */
  show(what: string, when: string, actions: { recover: () => Promise<void>; discard: () => Promise<void> }): void {
    this.what.textContent = what;
    this.when.textContent = when;
    this.message.textContent = '';
    this.actions = actions;
    this.setBusy(false);
    this.element.hidden = false;
    this.recoverButton.focus({ preventScroll: true });
  }

  hide(): void {
    this.element.hidden = true;
    this.actions = null;
    if (this.element.contains(document.activeElement)) (document.activeElement as HTMLElement).blur();
  }

  private async run(action: 'recover' | 'discard'): Promise<void> {
    const actions = this.actions;
    if (!actions) return;
    this.setBusy(true);
    try {
      await actions[action]();
      this.hide();
    } catch (error) {
      this.message.textContent = error instanceof Error ? error.message : String(error);
      this.setBusy(false);
    }
  }

  private setBusy(busy: boolean): void {
    this.recoverButton.disabled = busy;
    this.discardButton.disabled = busy;
  }
}

/** The modal question before unsaved changes go: Save, Discard or Cancel (Escape cancels). */
export class SaveChangesDialog {
  readonly dialog: HTMLDialogElement;
  private readonly question: HTMLElement;
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
    const save = button(footer, 'Save', true);
    discard.classList.add('save-changes-discard');
    discard.addEventListener('click', () => this.answer('discard'));
    cancel.addEventListener('click', () => this.answer('cancel'));
    save.addEventListener('click', () => this.answer('save'));
    this.dialog.addEventListener('cancel', (event) => {
      event.preventDefault();
      this.answer('cancel');
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

/** Autosave settings: seconds of idleness before a version is written (0 = off) and versions kept. */
export class AutosaveSettingsDialog {
  readonly dialog: HTMLDialogElement;
  private readonly delay: HTMLInputElement;
  private readonly versions: HTMLInputElement;

  constructor(apply: (settings: { delaySeconds: number; versions: number }) => void) {
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
    this.delay = element('input');
    this.delay.type = 'number';
    this.delay.min = '0';
    this.delay.max = '3600';
    this.delay.step = '1';
    this.delay.name = 'autosave-delay';
    this.versions = element('input');
    this.versions.type = 'number';
    this.versions.min = '1';
    this.versions.max = '50';
    this.versions.step = '1';
    this.versions.name = 'autosave-versions';
    body.append(field('Idle seconds (0: off)', this.delay), field('Versions kept', this.versions));
    const footer = element('div', 'export-footer');
    const cancel = button(footer, 'Cancel');
    cancel.addEventListener('click', () => this.dialog.close());
    const ok = button(footer, 'Apply', true);
    ok.type = 'submit';
    form.addEventListener('submit', () => apply({ delaySeconds: Number(this.delay.value), versions: Number(this.versions.value) }));
    form.append(header, body, footer);
    this.dialog.append(form);
    document.body.append(this.dialog);
  }

  open(settings: { delaySeconds: number; versions: number }): void {
    this.delay.value = String(settings.delaySeconds);
    this.versions.value = String(settings.versions);
    if (!this.dialog.open) this.dialog.showModal();
  }
}
