/**
 * The page around the viewport: toolbar, status line, error banner, keyboard help, drag-and-drop target and
 * keyboard shortcuts. It owns no scene state; it reports what the user asked for through `UiActions` and shows
 * what it is told.
 */
import type { MenuCommand } from '../../app/ipc-contract.ts';

export interface UiActions {
  /** the commands the desktop menu can also send */
  command(command: MenuCommand): void;
  /** 0 = all influences */
  setInfluences(count: number): void;
  step(direction: -1 | 1): void;
  /** M: next skinning method */
  cycleMethod(): void;
  /** D: distortion heat map on / off */
  toggleHeatMap(): void;
  dropFiles(files: File[]): void;
  dismissError(): void;
}

export const INFLUENCE_CHOICES = [1, 2, 3, 4, 5, 6, 7, 8, 0] as const;

const SHORTCUTS: [string, string][] = [
  ['Space', 'play / pause'],
  ['← / →', 'previous / next frame'],
  ['F', 'frame all'],
  ['W', 'wireframe'],
  ['K', 'show / hide skeleton'],
  ['M', 'skinning: linear blend → dual quaternion → per-face'],
  ['D', 'distortion heat map'],
  ['Ctrl/⌘ O', 'open files'],
  ['Ctrl/⌘ E', 'export glTF'],
  ['E', 'preview as exported (glTF influences, quantized)'],
  ['?', 'this help'],
  ['Esc', 'close help or error'],
  ['Left drag', 'orbit'],
  ['Right drag', 'pan'],
  ['Wheel', 'zoom'],
  ['Click a joint', 'select its bone'],
  ['B', 'Bind panel: handles and harmonic weights'],
  ['V / I', 'cycle view (shaded, weight map, dominant bone, handles) / iso-lines'],
  ['L / X', 'lasso (Shift adds, Ctrl/⌘ removes, Esc cancels) / x-ray'],
  ['A / Delete', 'assign the selection to the bone / free it'],
  ['P', 'weight paint mode (drag paints the selected bone; click a joint picks its bone)'],
  ['F (paint mode)', 'resize the brush: move, click or Enter confirms, Esc cancels'],
  ['Ctrl/⌘ Z / Ctrl/⌘ Shift Z, Ctrl Y', 'undo / redo a paint stroke or command'],
];

function required<T extends HTMLElement>(id: string, type: new () => T): T {
  const node = document.getElementById(id);
  if (!(node instanceof type)) throw new Error(`the page has no #${id}`);
  return node;
}

/** A toolbar or panel button, appended to `parent` when one is given. */
export function toolButton(
  parent: HTMLElement | null,
  label: string,
  title: string,
  onClick: () => void,
  className = 'tool-button',
): HTMLButtonElement {
  const node = document.createElement('button');
  node.type = 'button';
  node.className = className;
  node.textContent = label;
  node.title = title;
  node.addEventListener('click', () => {
    onClick();
    // Focus stays on the canvas side so Space is not swallowed as a button press.
    node.blur();
  });
  parent?.append(node);
  return node;
}

/** Groups thousands with thin spaces: 12 345. */
export function formatCount(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, '\u2009');
}

export class Ui {
  /**
   * Whether Ctrl/Cmd+O is handled here. The desktop menu registers that accelerator itself; handling it in the
   * page too would open two dialogs.
   */
  handlesOpenShortcut = true;
  private readonly wireframeButton: HTMLButtonElement;
  private readonly skeletonButton: HTMLButtonElement;
  private readonly influenceSelect: HTMLSelectElement;
  private readonly sceneName: HTMLSpanElement;
  private readonly status: HTMLElement;
  private readonly errorBanner: HTMLElement;
  private readonly errorText: HTMLElement;
  private readonly help: HTMLElement;
  private readonly dropOverlay: HTMLElement;

  constructor(private readonly actions: UiActions) {
    const toolbar = required('toolbar', HTMLElement);
    const brand = document.createElement('span');
    brand.className = 'brand';
    brand.textContent = 'Rigwright';
    toolbar.append(brand);

    const files = document.createElement('div');
    files.className = 'tool-group';
    toolButton(files, 'Open…', 'Open mesh, skeleton, weights or poses (Ctrl/⌘ O)', () => actions.command('open-files'));
    const view = document.createElement('div');
    view.className = 'tool-group';
    toolButton(view, 'Frame all', 'Frame all (F)', () => actions.command('frame-all'));
    this.wireframeButton = toolButton(view, 'Wireframe', 'Wireframe (W)', () => actions.command('toggle-wireframe'));
    this.skeletonButton = toolButton(view, 'Skeleton', 'Show skeleton (K)', () => actions.command('toggle-skeleton'));

    const skinning = document.createElement('label');
    skinning.className = 'tool-group influence-picker';
    skinning.title = 'Largest weights kept per vertex, renormalized';
    skinning.append('Influences ');
    this.influenceSelect = document.createElement('select');
    for (const k of INFLUENCE_CHOICES) this.influenceSelect.add(new Option(k === 0 ? 'all' : String(k), String(k)));
    this.influenceSelect.addEventListener('change', () => {
      actions.setInfluences(Number(this.influenceSelect.value));
      this.influenceSelect.blur();
    });
    skinning.append(this.influenceSelect);

    this.sceneName = document.createElement('span');
    this.sceneName.className = 'scene-name';
    const helpGroup = document.createElement('div');
    helpGroup.className = 'tool-group';
    toolButton(helpGroup, '?', 'Keyboard shortcuts (?)', () => this.toggleHelp());
    toolbar.append(files, view, skinning, this.sceneName, helpGroup);

    this.status = required('status', HTMLElement);
    this.errorBanner = required('error-banner', HTMLElement);
    this.errorText = this.errorBanner.querySelector('.error-message') as HTMLElement;
    (this.errorBanner.querySelector('.error-dismiss') as HTMLElement).addEventListener('click', () => actions.dismissError());
    this.help = required('help-overlay', HTMLElement);
    this.buildHelp();
    this.dropOverlay = required('drop-overlay', HTMLElement);
    this.installDropTarget();
    this.installKeyboard();
  }

  setToggles(wireframe: boolean, skeleton: boolean): void {
    this.wireframeButton.setAttribute('aria-pressed', String(wireframe));
    this.skeletonButton.setAttribute('aria-pressed', String(skeleton));
  }

  setInfluences(count: number): void {
    this.influenceSelect.value = String(count);
  }

  setSceneName(name: string): void {
    this.sceneName.textContent = name;
    document.title = `${name} — Rigwright`;
  }

  /** @param parts  status fields, shown separated */
  setStatus(parts: string[]): void {
    this.status.replaceChildren(
      ...parts.map((text) => {
        const span = document.createElement('span');
        span.className = 'status-field';
        span.textContent = text;
        return span;
      }),
    );
  }

  showError(message: string): void {
    this.errorText.textContent = message;
    this.errorBanner.hidden = false;
  }

  hideError(): void {
    this.errorBanner.hidden = true;
    this.errorText.textContent = '';
  }

  toggleHelp(show = this.help.hidden): void {
    this.help.hidden = !show;
  }

  private buildHelp(): void {
    const title = document.createElement('h2');
    title.textContent = 'Keyboard and mouse';
    const table = document.createElement('dl');
    for (const [keys, action] of SHORTCUTS) {
      const dt = document.createElement('dt');
      const kbd = document.createElement('kbd');
      kbd.textContent = keys;
      dt.append(kbd);
      const dd = document.createElement('dd');
      dd.textContent = action;
      table.append(dt, dd);
    }
    const hint = document.createElement('p');
    hint.textContent = 'Drop .obj/.off meshes, .tgf skeletons, .dmat weights, poses or handles, or a .glb / .gltf (with its .bin) anywhere — several at once.';
    this.help.append(title, table, hint);
    this.help.addEventListener('click', () => this.toggleHelp(false));
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

  private installKeyboard(): void {
    window.addEventListener('keydown', (event) => {
      const target = event.target as HTMLElement | null;
      const typing = target instanceof HTMLInputElement || target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement;
      if (event.key === 'Escape') {
        this.toggleHelp(false);
        this.actions.dismissError();
        return;
      }
      if (this.handlesOpenShortcut && (event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === 'o') {
        event.preventDefault();
        this.actions.command('open-files');
        return;
      }
      if (typing || event.ctrlKey || event.metaKey || event.altKey) return;
      switch (event.key) {
        case ' ':
          this.actions.command('play-pause');
          break;
        case 'ArrowLeft':
          this.actions.step(-1);
          break;
        case 'ArrowRight':
          this.actions.step(1);
          break;
        case 'f':
        case 'F':
          this.actions.command('frame-all');
          break;
        case 'w':
        case 'W':
          this.actions.command('toggle-wireframe');
          break;
        case 'k':
        case 'K':
          this.actions.command('toggle-skeleton');
          break;
        case 'm':
        case 'M':
          this.actions.cycleMethod();
          break;
        case 'd':
        case 'D':
          this.actions.toggleHeatMap();
          break;
        case '?':
          this.toggleHelp();
          break;
        default:
          return;
      }
      event.preventDefault();
    });
  }
}
