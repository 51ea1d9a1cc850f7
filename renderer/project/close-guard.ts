/**
 * The question before unsaved work goes: closing the window, quitting the app, or opening another scene over
 * unsaved changes asks Save, Discard or Cancel — and asks nothing when there is nothing unsaved.
 *
 * - Desktop: main holds the window's close (and the app's quit) while the page says it has unsaved changes, and
 *   asks the page (bridge.onCloseRequest); the page answers after the dialog (bridge.answerClose).
 * - Web page: `beforeunload` makes the browser show its own prompt (a page cannot show its own dialog there).
 * - In the app: `mayDiscard()` before replacing a scene with unsaved changes.
 *
 * DOM-free: the dialog, the save and the "discarded" step are given by the shell.
 */

export type CloseChoice = 'save' | 'discard' | 'cancel';

export interface CloseGuardHost {
  /** the scene has changes not saved in a project file */
  unsaved(): boolean;
  /** shows the Save / Discard / Cancel dialog */
  ask(): Promise<CloseChoice>;
  /** Save (Save As when the project has no file yet): resolves whether the file was written */
  save(): Promise<boolean>;
  /** the user discarded the changes: recovery must not offer them */
  discarded(): Promise<void>;
}

export class CloseGuard {
  private asking: Promise<boolean> | null = null;

  constructor(private readonly host: CloseGuardHost) {}

  /** Whether replacing the scene now would ask first (it has unsaved changes). */
  get unsaved(): boolean {
    return this.host.unsaved();
  }

  /** The dialog, whatever the state (the caller decides when to ask). */
  ask(): Promise<CloseChoice> {
    return this.host.ask();
  }

  /**
   * May the scene go? True at once without unsaved changes; otherwise asks: Save writes the project (true once
   * written, false when the save was cancelled or failed), Discard forgets the changes (true), Cancel keeps them
   * (false). A second call while the dialog is open gets the first one's answer.
   */
  mayDiscard(): Promise<boolean> {
    if (!this.host.unsaved()) return Promise.resolve(true);
    this.asking ??= this.decide().finally(() => (this.asking = null));
    return this.asking;
  }

  /** For `beforeunload`: with unsaved changes the browser asks before the page goes. */
  beforeUnload(event: { preventDefault(): void; returnValue: unknown }): void {
    if (!this.host.unsaved()) return;
    event.preventDefault();
    // Older browsers show the prompt only when returnValue is set.
    event.returnValue = '';
  }

  private async decide(): Promise<boolean> {
    const choice = await this.host.ask();
    if (choice === 'cancel') return false;
    if (choice === 'save') return this.host.save();
    await this.host.discarded();
    return true;
  }
}
