/**
 * The Meshes panel: the scene's meshes, which one the brush, the lasso and "Bind this mesh" act on (or all), and
 * which are shown (hide, show all, isolate). It shows the meshes controller's state and acts through commands; it
 * owns nothing. It opens by itself when a scene with several meshes arrives.
 */
import './meshes-panel.css';
import type { CommandRegistry } from '../commands/command-registry.ts';
import type { MeshesController } from '../meshes/meshes-controller.ts';
import { commandButton, element, floatingPanel, refreshCommandButtons, section } from './controls.ts';
import { dockPanel } from './panel-dock.ts';

/** The Transfer row's choice that asks for a weighted file (weights.transferFromFile). */
const FROM_FILE = 'file';

export interface MeshesPanelHost {
  readonly commands: CommandRegistry;
  readonly meshes: MeshesController;
}

export class MeshesPanel {
  readonly root: HTMLElement;
  private readonly toolbarGroup: HTMLElement;
  private readonly list: HTMLElement;
  /** the mesh the Transfer row takes weights from onto the active mesh */
  private readonly transferSource: HTMLSelectElement;
  private readonly transferButton: HTMLButtonElement;
  /** the parts the rows were built for (rebuilt when they change) */
  private listed: unknown = null;

  /**
   * @param toolbar    the page toolbar: the Meshes button joins its view group
   * @param container  the viewport element the panel floats over
   */
  constructor(
    toolbar: HTMLElement,
    container: HTMLElement,
    private readonly host: MeshesPanelHost,
  ) {
    const { commands } = host;
    const group = toolbar.querySelector<HTMLElement>('.deform-group') ?? toolbar;
    this.toolbarGroup = group;
    this.root = floatingPanel('meshes-panel', 'bind-panel meshes-panel', 'Meshes', commands, 'meshes.panel');
    const meshes = section(this.root, 'Tools act on');
    this.list = element('ul', 'mesh-list');
    const row = element('div', 'row');
    commandButton(row, commands, 'meshes.hide', { label: 'Hide' });
    commandButton(row, commands, 'meshes.showAll', { label: 'Show all' });
    commandButton(row, commands, 'meshes.isolate', { label: 'Isolate' });
    commandButton(row, commands, 'bind.computePart', { label: 'Bind this mesh' });
    meshes.append(this.list, row);
    const transfer = section(this.root, 'Transfer weights');
    const transferRow = element('div', 'row');
    this.transferSource = element('select', 'transfer-source');
    this.transferSource.title = 'The mesh whose weights the active mesh takes, or a weighted file chosen in the file dialog';
    this.transferSource.setAttribute('aria-label', 'Transfer weights from');
    this.transferButton = element('button', undefined, 'Onto the active mesh');
    this.transferButton.type = 'button';
    this.transferButton.title =
      'The active mesh takes the weights of the chosen mesh where they are close and face the same way; the rest is inpainted (one undo step)';
    this.transferButton.addEventListener('click', () => {
      const active = host.meshes.active;
      const to = active >= 0 ? active : 0;
      if (this.transferSource.value === FROM_FILE) commands.invoke('weights.transferFromFile', { to });
      else commands.invoke('weights.transferFromMesh', { from: Number(this.transferSource.value), to });
    });
    this.transferSource.addEventListener('change', () => this.refresh());
    transferRow.append(element('span', 'dim', 'From'), this.transferSource, this.transferButton);
    transfer.append(transferRow);
    dockPanel(container, this.root, 'meshes');
  }

  get open(): boolean {
    return !this.root.hidden;
  }

  setOpen(open: boolean): void {
    this.root.hidden = !open;
    this.refresh();
  }

  refresh(): void {
    const { commands, meshes } = this.host;
    refreshCommandButtons(this.toolbarGroup, commands);
    if (this.root.hidden) return;
    if (this.listed !== meshes.list) this.rebuildList();
    for (const node of this.list.querySelectorAll<HTMLElement>('.mesh-row')) {
      const index = Number(node.dataset.index);
      const hidden = index >= 0 && meshes.hidden[index];
      node.classList.toggle('hidden-mesh', hidden);
      node.classList.toggle('active-mesh', index === meshes.active);
      node.querySelector<HTMLInputElement>('.mesh-active')!.checked = index === meshes.active;
      const shown = node.querySelector<HTMLInputElement>('.mesh-visible');
      if (shown) shown.checked = !hidden;
    }
    refreshCommandButtons(this.root, commands);
    // With one mesh it is the active one; with several, one must be chosen.
    const active = meshes.list.length === 1 ? 0 : meshes.active;
    this.transferButton.disabled =
      this.transferSource.value === FROM_FILE
        ? active < 0 || !commands.isEnabled('weights.transferFromFile')
        : active < 0 || Number(this.transferSource.value) === active || !commands.isEnabled('weights.transferFromMesh');
  }

  private rebuildList(): void {
    const { commands, meshes } = this.host;
    this.listed = meshes.list;
    const row = (index: number, name: string, size: string): HTMLElement => {
      const node = element('li', 'mesh-row');
      node.dataset.index = String(index);
      const active = element('input', 'mesh-active');
      active.type = 'radio';
      active.name = 'active-mesh';
      active.title = index < 0 ? 'The brush, the lasso and binding act on every mesh' : `The brush, the lasso and binding act on ${name}`;
      active.addEventListener('change', () => void commands.invoke('meshes.active', index));
      node.append(active);
      if (index >= 0) {
        const visible = element('input', 'mesh-visible');
        visible.type = 'checkbox';
        visible.title = 'Shown (a hidden mesh is not drawn, painted or lassoed)';
        visible.addEventListener('change', () => void commands.invoke('meshes.toggle', index));
        node.append(visible);
      }
      node.append(element('span', 'mesh-name', name), element('span', 'dim mesh-size', size));
      if (index >= 0) {
        const isolate = element('button', 'icon-button mesh-isolate', '◎');
        isolate.type = 'button';
        isolate.title = `Work on ${name} alone: make it active and show only it (again: show all)`;
        isolate.addEventListener('click', () => {
          // The mesh isolated is the one the tools act on.
          commands.invoke('meshes.active', index);
          commands.invoke('meshes.isolate');
        });
        node.append(isolate);
      }
      return node;
    };
    const parts = meshes.list;
    this.list.replaceChildren(
      row(-1, 'All', `${parts.length} mesh${parts.length === 1 ? '' : 'es'}`),
      ...parts.map((part, i) => row(i, part.name, `${part.vertexCount} v`)),
    );
    const chosen = this.transferSource.value;
    const fromFile = element('option', undefined, 'a file…');
    fromFile.value = FROM_FILE;
    this.transferSource.replaceChildren(
      ...parts.map((part, i) => {
        const option = element('option', undefined, part.name);
        option.value = String(i);
        return option;
      }),
      fromFile,
    );
    // A scene of one mesh can take weights from a file alone.
    if (parts.length === 1) this.transferSource.value = FROM_FILE;
    else if (chosen === FROM_FILE || (chosen !== '' && Number(chosen) < parts.length)) this.transferSource.value = chosen;
  }
}
