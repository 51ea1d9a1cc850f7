/**
 * The glTF controls around the viewport: the Export button, the "As exported" preview switch (both commands), and
 * the clip picker in the timeline bar, shown when the scene has several animation clips.
 */
import type { CommandRegistry } from '../commands/command-registry.ts';
import { commandButton } from './controls.ts';

export class GltfControls {
  private readonly asExportedButton: HTMLButtonElement;
  private readonly clipPicker: HTMLLabelElement;
  private readonly clipSelect: HTMLSelectElement;

  /**
   * @param toolbar      the page toolbar; the buttons join its first group (next to Open…)
   * @param timelineBar  the timeline container; the clip picker goes at its end
   * @param selectClip   shows clip `index` of the scene's clips
   */
  constructor(toolbar: HTMLElement, timelineBar: HTMLElement, commands: CommandRegistry, selectClip: (index: number) => void) {
    const group = toolbar.querySelector('.tool-group') ?? toolbar;
    commandButton(group as HTMLElement, commands, 'file.export', { label: 'Export…' });
    this.asExportedButton = commandButton(group as HTMLElement, commands, 'view.asExported', { label: 'As exported' });

    this.clipPicker = document.createElement('label');
    this.clipPicker.className = 'clip-picker';
    this.clipPicker.append('Clip ');
    this.clipSelect = document.createElement('select');
    this.clipSelect.setAttribute('aria-label', 'Animation clip');
    this.clipSelect.addEventListener('change', () => {
      selectClip(Number(this.clipSelect.value));
      this.clipSelect.blur();
    });
    this.clipPicker.append(this.clipSelect);
    this.clipPicker.hidden = true;
    timelineBar.append(this.clipPicker);
  }

  /** @param title  what the preview shows, e.g. '4 × unsigned byte, LBS' */
  setAsExportedTitle(title: string): void {
    this.asExportedButton.title = `As exported: ${title} (E)`;
  }

  /** @param names  the scene's clip names; the picker hides for fewer than two */
  setClips(names: readonly string[], selected: number): void {
    this.clipPicker.hidden = names.length < 2;
    this.clipSelect.replaceChildren(...names.map((name, i) => new Option(name || `clip ${i + 1}`, String(i))));
    if (names.length > 0) this.clipSelect.value = String(Math.max(0, selected));
  }
}
