/**
 * The "Bake clip" dialog: the rate at which the current clip is sampled into frames, with how many frames that
 * makes. It only gathers the rate; the caller bakes (one undoable edit) and reports a failure here.
 */
import './export-dialog.css';
import './bake-dialog.css';
import { childElement as el } from './controls.ts';

/** The clip the dialog bakes. */
export interface BakeContext {
  clipName: string;
  /** first and last key time, seconds */
  start: number;
  end: number;
  /** keys the clip has now */
  keyCount: number;
  /** frames a bake at this rate (frames per second) makes */
  framesAt: (framesPerSecond: number) => number;
}

export class BakeDialog {
  private readonly dialog: HTMLDialogElement;
  private readonly subtitle: HTMLElement;
  private readonly rateInput: HTMLInputElement;
  private readonly summary: HTMLElement;
  private readonly message: HTMLElement;
  private context: BakeContext | null = null;

  /** @param run  bakes the clip at the rate (frames per second); throws with a message when it cannot */
  constructor(private readonly run: (framesPerSecond: number) => void) {
    this.dialog = el('dialog', 'export-dialog bake-dialog');
    this.dialog.id = 'bake-dialog';
    this.dialog.setAttribute('aria-labelledby', 'bake-dialog-title');
    const form = el('form', 'export-form', this.dialog);
    form.method = 'dialog';
    const header = el('header', 'export-header', form);
    el('h2', '', header, 'Bake clip').id = 'bake-dialog-title';
    this.subtitle = el('p', 'export-subtitle', header);
    const body = el('div', 'export-body', form);
    const row = el('div', 'export-field', body);
    el('div', 'export-field-label', row, 'Rate');
    const fieldBody = el('div', 'export-field-body', row);
    this.rateInput = el('input', 'bake-rate', fieldBody);
    this.rateInput.type = 'number';
    this.rateInput.min = '1';
    this.rateInput.max = '1000';
    this.rateInput.step = 'any';
    this.rateInput.value = '30';
    this.rateInput.setAttribute('aria-label', 'Frames per second');
    el('span', 'export-extension', fieldBody, 'frames per second');
    this.summary = el('p', 'export-note', body);
    this.message = el('p', 'export-message', form);
    this.message.setAttribute('role', 'status');
    const footer = el('footer', 'export-footer', form);
    const cancel = el('button', 'tool-button', footer, 'Cancel');
    cancel.type = 'button';
    cancel.addEventListener('click', () => this.close());
    const bake = el('button', 'tool-button export-primary', footer, 'Bake');
    bake.type = 'submit';
    this.rateInput.addEventListener('input', () => this.refresh());
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.submit();
    });
    this.dialog.addEventListener('cancel', () => this.releaseFocus());
    this.dialog.addEventListener('close', () => this.releaseFocus());
    document.body.append(this.dialog);
  }

  get isOpen(): boolean {
    return this.dialog.open;
  }

  open(context: BakeContext): void {
    this.context = context;
    this.subtitle.textContent = `Samples “${context.clipName}” at a fixed rate: its ${context.keyCount} keys become evenly spaced frames, as the clip plays now. One step in the undo history.`;
    this.message.textContent = '';
    this.refresh();
    if (!this.dialog.open) this.dialog.showModal();
    this.rateInput.focus();
    this.rateInput.select();
  }

  close(): void {
    this.releaseFocus();
    if (this.dialog.open) this.dialog.close();
  }

  private rate(): number {
    return Number(this.rateInput.value);
  }

  private refresh(): void {
    const context = this.context;
    if (!context) return;
    const rate = this.rate();
    this.summary.textContent =
      rate > 0 && Number.isFinite(rate)
        ? `${context.framesAt(rate)} frames from ${context.start.toFixed(3)} s to ${context.end.toFixed(3)} s.`
        : 'Give a rate above 0.';
  }

  private submit(): void {
    const rate = this.rate();
    if (!(rate > 0 && Number.isFinite(rate))) {
      this.showError('Give a rate above 0 frames per second.');
      return;
    }
    try {
      this.run(rate);
      this.close();
    } catch (error) {
      this.showError(error instanceof Error ? error.message : String(error));
    }
  }

  private showError(text: string): void {
    this.message.textContent = text;
    this.message.className = 'export-message export-error';
  }

  private releaseFocus(): void {
    if (document.activeElement instanceof HTMLElement && this.dialog.contains(document.activeElement)) document.activeElement.blur();
  }
}
