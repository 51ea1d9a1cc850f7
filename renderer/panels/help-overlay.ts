/**
 * The keyboard and mouse help: the keybinding table and the mouse gestures as rows of keys and actions, under a
 * search field that filters them by key, command name or description. It fits in the viewport at any window size
 * and its rows scroll (wheel, or the arrow and page keys from the search field); Escape in the field closes it.
 * DOM only: the rows come from the keybinding table, closing is the command the shell gives it.
 */
import { helpRowMatches, helpRows, type HelpRow } from '../commands/keybindings.ts';
import { element } from './controls.ts';
import { dockPanel } from './panel-dock.ts';
import './help-overlay.css';

/** What the mouse does in the viewport (keys are in the keybinding table). */
export const POINTER_HELP: readonly HelpRow[] = [
  { keys: 'Left drag', action: 'orbit (the lasso draws, the brush paints)' },
  { keys: 'Right drag', action: 'pan' },
  { keys: 'Right click', action: 'the commands for what is under the pointer: a joint, the mesh, a row of a list' },
  { keys: 'Wheel', action: 'zoom' },
  { keys: 'Click a joint', action: 'select its bone' },
];

/** Pixels one arrow key scrolls the rows by. */
const ARROW_SCROLL_PX = 40;

interface ShownRow {
  row: HelpRow;
  term: HTMLElement;
  detail: HTMLElement;
}

export class HelpOverlay {
  private readonly search = element('input', 'help-search');
  private readonly bone = element('p', 'help-bone');
  private readonly body = element('div', 'help-body');
  private readonly empty = element('p', 'help-empty', 'No key or command matches.');
  private readonly rows: ShownRow[] = [];
  /** the key rows, made from the keybinding table in use when the help last opened */
  private keys: HTMLElement;

  /**
   * @param root   the overlay's element (hidden while closed)
   * @param close  closes the help the way its command does (so the toolbar button's pressed state follows)
   */
  constructor(
    private readonly root: HTMLElement,
    private readonly close: () => void,
  ) {
    // The page places it over the viewport; it docks there with the panels.
    if (root.parentElement) dockPanel(root.parentElement, root, 'help');
    root.setAttribute('role', 'dialog');
    root.setAttribute('aria-label', 'Keyboard and mouse');
    const header = element('header', 'help-header');
    const closeButton = element('button', 'icon-button help-close', '×');
    closeButton.type = 'button';
    closeButton.title = 'Close (Esc)';
    closeButton.addEventListener('click', () => this.close());
    header.append(element('h2', undefined, 'Keyboard and mouse'), closeButton);
    this.search.type = 'text';
    this.search.placeholder = 'Search keys and commands';
    this.search.setAttribute('aria-label', 'Search keys and commands');
    this.search.addEventListener('input', () => this.filter());
    this.search.addEventListener('keydown', (event) => this.searchKey(event));
    this.keys = this.list('help-keys', helpRows());
    const pointer = this.list('help-pointer', POINTER_HELP);
    this.empty.hidden = true;
    const hint = element(
      'p',
      'help-hint',
      'Drop .obj/.off meshes, .tgf skeletons (with their .names), .dmat weights, poses or handles, or a .glb / .gltf (with its .bin) anywhere — several at once.',
    );
    this.body.tabIndex = 0;
    this.body.append(this.keys, pointer, this.empty, hint);
    root.append(header, this.search, this.bone, this.body);
  }

  get open(): boolean {
    return !this.root.hidden;
  }

  /**
   * Opens the help with the search field focused, or closes it (the search is kept for the next time).
   * @param boneLine  the line about the selected bone (helpBoneLine), shown under the search field
   */
  show(open: boolean, boneLine = ''): void {
    this.root.hidden = !open;
    if (open) {
      this.refreshKeys();
      this.bone.textContent = boneLine;
      this.bone.hidden = boneLine === '';
      this.search.focus();
      this.search.select();
    } else if (this.root.contains(document.activeElement)) {
      // Keys go back to the app's shortcuts.
      (document.activeElement as HTMLElement).blur();
    }
  }

  /** The key rows again from the table in use: the user's keys (Preferences) may have changed since. */
  private refreshKeys(): void {
    const old = this.keys;
    const kept = this.rows.filter((shown) => !old.contains(shown.term));
    this.rows.splice(0, this.rows.length, ...kept);
    this.keys = this.list('help-keys', helpRows());
    old.replaceWith(this.keys);
    this.filter();
  }

  private list(className: string, rows: readonly HelpRow[]): HTMLElement {
    const list = element('dl', className);
    for (const row of rows) {
      const term = element('dt');
      term.append(element('kbd', undefined, row.keys));
      const detail = element('dd', undefined, row.action);
      list.append(term, detail);
      this.rows.push({ row, term, detail });
    }
    return list;
  }

  private filter(): void {
    const query = this.search.value;
    let shown = 0;
    for (const { row, term, detail } of this.rows) {
      const match = helpRowMatches(row, query);
      term.hidden = !match;
      detail.hidden = !match;
      if (match) shown++;
    }
    this.empty.hidden = shown > 0;
    this.body.scrollTop = 0;
  }

  /** Escape closes; the arrow and page keys scroll the rows while the field keeps the focus. */
  private searchKey(event: KeyboardEvent): void {
    const page = Math.max(ARROW_SCROLL_PX, this.body.clientHeight - ARROW_SCROLL_PX);
    const scroll: Record<string, number> = {
      ArrowDown: ARROW_SCROLL_PX,
      ArrowUp: -ARROW_SCROLL_PX,
      PageDown: page,
      PageUp: -page,
    };
    if (event.key === 'Escape') {
      event.preventDefault();
      this.close();
    } else if (event.key in scroll) {
      event.preventDefault();
      this.body.scrollBy({ top: scroll[event.key] });
    } else if ((event.key === 'End' || event.key === 'Home') && event.ctrlKey) {
      event.preventDefault();
      this.body.scrollTop = event.key === 'End' ? this.body.scrollHeight : 0;
    }
  }
}
