/**
 * The glTF controls around the viewport: the Export button and the "As exported" preview switch (both commands).
 * The clip picker is the clip menu's (clip-menu.ts).
 */
import type { CommandRegistry } from '../commands/command-registry.ts';
import { commandButton } from './controls.ts';

export class GltfControls {
  private readonly asExportedButton: HTMLButtonElement;

  /** @param toolbar  the page toolbar; the buttons join its first group (next to Open…) */
  constructor(toolbar: HTMLElement, commands: CommandRegistry) {
    const group = toolbar.querySelector('.tool-group') ?? toolbar;
    commandButton(group as HTMLElement, commands, 'file.export', { label: 'Export…' });
    this.asExportedButton = commandButton(group as HTMLElement, commands, 'view.asExported', { label: 'As exported' });
  }

  /** @param title  what the preview shows, e.g. '4 × unsigned byte, LBS' */
  setAsExportedTitle(title: string): void {
    this.asExportedButton.title = `As exported: ${title} (E)`;
  }
}
