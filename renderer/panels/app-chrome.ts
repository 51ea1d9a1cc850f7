/**
 * The page around the viewport: toolbar, status line, error banner, keyboard help and drag-and-drop target. It
 * owns no scene state and listens to no keys: its buttons execute commands, the help overlay is made from the
 * keybinding table, and it shows what it is told.
 */
import type { CommandRegistry } from '../commands/command-registry.ts';
import type { CommandId } from '../commands/command-catalog.ts';
import { commandButton, element, refreshCommandButtons } from './controls.ts';
import { HelpOverlay } from './help-overlay.ts';

export interface ChromeActions {
  dropFiles(files: File[]): void;
  dismissError(): void;
}

function required<T extends HTMLElement>(id: string, type: new () => T): T {
  const node = document.getElementById(id);
  if (!(node instanceof type)) throw new Error(`the page has no #${id}`);
  return node;
}

/** A status line field: its text, or its text and the command a click on it runs. */
export type StatusField = string | { text: string; command: CommandId };

export class AppChrome {
  private readonly toolbar: HTMLElement;
  private readonly sceneName: HTMLSpanElement;
  private readonly status: HTMLElement;
  private readonly errorBanner: HTMLElement;
  private readonly errorText: HTMLElement;
  private readonly help: HelpOverlay;
  private readonly dropOverlay: HTMLElement;

  constructor(
    private readonly commands: CommandRegistry,
    private readonly actions: ChromeActions,
  ) {
    this.toolbar = required('toolbar', HTMLElement);
    this.toolbar.append(element('span', 'brand', 'Rigwright'));
    // One row at 1280 px: the toolbar keeps the tools used most and those no menu has (the skinning method, its
    // blend and the view list); Open, Save, the recent projects, Export and the panels and view switches are in the
    // menu bar.
    const files = element('div', 'tool-group');
    commandButton(files, commands, 'file.open');
    const edit = element('div', 'tool-group edit-group');
    commandButton(edit, commands, 'edit.undo', { showTitle: true });
    commandButton(edit, commands, 'edit.redo', { showTitle: true });
    // The rig tools; the bone list and the template add their buttons here.
    const build = element('div', 'tool-group rig-group');
    commandButton(build, commands, 'tool.skeleton', { label: 'Build skeleton' });
    commandButton(build, commands, 'tool.pose', { label: 'Pose' });
    // The scene's name takes the room left and gives it up first (clipped, the whole name in its tooltip).
    this.sceneName = element('span', 'scene-name');
    const helpGroup = element('div', 'tool-group');
    commandButton(helpGroup, commands, 'help.keys', { label: '?' });
    this.toolbar.append(files, edit, build, this.sceneName, helpGroup);

    this.status = required('status', HTMLElement);
    this.errorBanner = required('error-banner', HTMLElement);
    this.errorText = this.errorBanner.querySelector('.error-message') as HTMLElement;
    (this.errorBanner.querySelector('.error-dismiss') as HTMLElement).addEventListener('click', () => actions.dismissError());
    this.help = new HelpOverlay(required('help-overlay', HTMLElement), () => void commands.invoke('help.keys'));
    this.dropOverlay = required('drop-overlay', HTMLElement);
    this.installDropTarget();
  }

  /** Every command button on the page shows its command's current title, enabled and pressed state. */
  refreshCommands(): void {
    refreshCommandButtons(document.body, this.commands);
  }

  setSceneName(name: string): void {
    this.sceneName.textContent = name;
    this.sceneName.title = name;
  }

  /**
   * The status line: its fields, then the tool's hint, on one line whatever their length.
   * @param parts  the fields, shown separated on one line (clipped, the whole text in its tooltip); a field with a
   *               command is a button that runs it
   * @param hint   what the active tool's click does now, at the end of the same one line (clipped, the whole text in
   *               its tooltip), so that a tool showing or changing it never adds a line and resizes the viewport
   */
  setStatus(parts: readonly StatusField[], hint: string | null = null): void {
    const fields = parts.map((part) => {
      if (typeof part === 'string') return element('span', 'status-field', part);
      const link = element('button', 'status-field status-link', part.text);
      link.type = 'button';
      link.title = this.commands.titleOf(part.command);
      link.addEventListener('click', () => void this.commands.invoke(part.command));
      return link;
    });
    // The fields keep to one line (clipped, the whole text in the tooltip): a longer field never adds a line and
    // moves the viewport under the pointer.
    const line = element('div', 'status-fields');
    line.append(...fields);
    line.title = fields.map((field) => field.textContent).join(' | ');
    const hinted = hint ? [element('span', 'status-hint', hint)] : [];
    if (hint) hinted[0].title = hint;
    this.status.replaceChildren(line, ...hinted);
  }

  showError(message: string): void {
    this.errorText.textContent = message;
    this.errorBanner.hidden = false;
  }

  hideError(): void {
    this.errorBanner.hidden = true;
    this.errorText.textContent = '';
  }

  get errorShown(): boolean {
    return !this.errorBanner.hidden;
  }

  get helpOpen(): boolean {
    return this.help.open;
  }

  /** @param bone  the help's line about the selected bone (helpBoneLine), shown under the title */
  toggleHelp(show = !this.help.open, bone = ''): void {
    this.help.show(show, bone);
  }

  private installDropTarget(): void {
    let depth = 0;
    const hasFiles = (event: DragEvent) => event.dataTransfer?.types.includes('Files') ?? false;
    window.addEventListener('dragenter', (event) => {
      if (!hasFiles(event)) return;
      depth++;
      this.dropOverlay.hidden = false;
    });
    window.addEventListener('dragleave', () => {
      depth = Math.max(0, depth - 1);
      if (depth === 0) this.dropOverlay.hidden = true;
    });
    window.addEventListener('dragover', (event) => {
      if (!hasFiles(event)) return;
      event.preventDefault();
      if (event.dataTransfer) event.dataTransfer.dropEffect = 'copy';
    });
    window.addEventListener('drop', (event) => {
      event.preventDefault();
      depth = 0;
      this.dropOverlay.hidden = true;
      const files = event.dataTransfer ? [...event.dataTransfer.files] : [];
      if (files.length > 0) this.actions.dropFiles(files);
    });
  }
}
