/**
 * The glTF controls around the viewport: the Export button (Ctrl/⌘ E), the "As exported" preview switch (E), and
 * the clip picker in the timeline bar, shown when the scene has several animation clips.
 */
import { toolButton } from './app-chrome.ts';

export interface GltfControlActions {
  openExport(): void;
  toggleAsExported(): void;
  /** index into the scene's clips */
  selectClip(index: number): void;
}


export class GltfControls {
  private readonly asExportedButton: HTMLButtonElement;
  private readonly clipPicker: HTMLLabelElement;
  private readonly clipSelect: HTMLSelectElement;

  /**
   * @param toolbar      the page toolbar; the buttons join its first group (next to Open…)
   * @param timelineBar  the timeline container; the clip picker goes at its end
   */
  constructor(toolbar: HTMLElement, timelineBar: HTMLElement, private readonly actions: GltfControlActions) {
    const group = toolbar.querySelector('.tool-group') ?? toolbar;
    const exportButton = toolButton(null, 'Export…', 'Export glTF (Ctrl/⌘ E)', () => actions.openExport());
    this.asExportedButton = toolButton(null, 'As exported', 'Preview what a linear-blend engine draws from the export: its strongest influences, quantized (E)', () => actions.toggleAsExported());
    this.asExportedButton.setAttribute('aria-pressed', 'false');
    group.append(exportButton, this.asExportedButton);

    this.clipPicker = document.createElement('label');
    this.clipPicker.className = 'clip-picker';
    this.clipPicker.append('Clip ');
    this.clipSelect = document.createElement('select');
    this.clipSelect.setAttribute('aria-label', 'Animation clip');
    this.clipSelect.addEventListener('change', () => {
      actions.selectClip(Number(this.clipSelect.value));
      this.clipSelect.blur();
    });
    this.clipPicker.append(this.clipSelect);
    this.clipPicker.hidden = true;
    timelineBar.append(this.clipPicker);
    this.installKeyboard();
  }

  /** @param title  what the preview shows, e.g. '4 × unsigned byte, LBS' */
  setAsExported(on: boolean, title: string): void {
    this.asExportedButton.setAttribute('aria-pressed', String(on));
    this.asExportedButton.title = `As exported: ${title} (E)`;
  }

  /** @param names  the scene's clip names; the picker hides for fewer than two */
  setClips(names: readonly string[], selected: number): void {
    this.clipPicker.hidden = names.length < 2;
    this.clipSelect.replaceChildren(...names.map((name, i) => new Option(name || `clip ${i + 1}`, String(i))));
    if (names.length > 0) this.clipSelect.value = String(Math.max(0, selected));
  }

  private installKeyboard(): void {
    window.addEventListener('keydown', (event) => {
      const target = event.target as HTMLElement | null;
      const typing = target instanceof HTMLInputElement || target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement;
      if (event.key.toLowerCase() !== 'e' || event.altKey || event.shiftKey) return;
      if (event.ctrlKey || event.metaKey) {
        event.preventDefault();
        this.actions.openExport();
      } else if (!typing) {
        event.preventDefault();
        this.actions.toggleAsExported();
      }
    });
  }
}
