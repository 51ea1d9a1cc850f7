/**
 * The bone list (O): the skeleton as an indented tree of bone names. A search box filters by name, keeping each
 * match's ancestors visible (dimmed) so the tree still reads as one; a click selects the bone; a double-click or F2
 * renames it in place (Enter or leaving the field commits, Escape cancels); dragging a row onto another re-parents the
 * bone under it, onto the list's empty area below the rows makes it a root (Escape during the drag cancels it);
 * Delete deletes it. The header's buttons split, mirror and delete the selected bone and save the skeleton, each
 * disabled with the reason as its tooltip when it cannot run. Every change goes through a command (bone.select,
 * bone.rename, bone.reparent, bone.delete, bone.split, bone.mirror, file.saveSkeleton), so each is one undo step and
 * the list follows the store: it is rebuilt when the skeleton or the names change (an edit, an undo), keeping its
 * scroll position and its search.
 */
import './bone-list.css';
import type { CommandId } from '../commands/command-catalog.ts';
import type { CommandRegistry } from '../commands/command-registry.ts';
import { tooltipOf } from '../commands/keybindings.ts';
import { formatLength } from '../project/length-units.ts';
import type { SceneDocument } from '../../workers/scene/scene-document.ts';
import { searchMatches, treeOrder } from '../skeleton/bone-tree.ts';
import { commandButton, element, floatingPanel, refreshCommandButtons } from './controls.ts';
import { dockPanel } from './panel-dock.ts';

export interface BoneListHost {
  readonly commands: CommandRegistry;
  document(): SceneDocument;
  /** #B names, by bone index, as every panel shows them (the file's names, or `bone <index>`) */
  boneNames(): readonly string[];
  /** the selected bone, or -1 */
  selectedBone(): number;
}

/** Pixels the pointer moves with the button down before a press on a row becomes a drag. */
const DRAG_THRESHOLD = 4;
/** The keys a focused row handles itself (the window's shortcuts leave them alone there). */
const ROW_KEYS = 'F2 Delete Enter';
/** Indentation per level of the tree, in pixels. */
const INDENT = 14;
/** The header's buttons: the command, its short label, and whether it works on the selected bone. */
const ACTIONS: readonly { id: CommandId; label: string; onSelected: boolean }[] = [
  { id: 'bone.split', label: 'Split', onSelected: true },
  { id: 'bone.mirror', label: 'Mirror', onSelected: true },
  { id: 'bone.delete', label: 'Delete', onSelected: true },
  { id: 'file.saveSkeleton', label: 'Save…', onSelected: false },
];
/** Why a button on the selected bone cannot run while no bone is selected. */
const NO_BONE_SELECTED = 'no bone selected: click a bone in the list or its joint in the view';

export class BoneList {
  readonly root: HTMLElement;
  private readonly toolbarGroup: HTMLElement;
  private readonly search: HTMLInputElement;
  private readonly tree: HTMLElement;
  private readonly list: HTMLElement;
  private readonly emptyNote: HTMLElement;
  private readonly actions: HTMLElement;
  /** the skeleton, the document's names (absent: the defaults) and the search the rows were built for */
  private built: { skeleton: unknown; names: unknown; query: string; unit: string } | null = null;
  /** the row being renamed, while its field is open */
  private editing: { bone: number; input: HTMLInputElement } | null = null;
  /** the selected bone the rows last showed */
  private shownSelection = -1;
  /** a press on a row: the bone, where it started, and whether it has become a drag */
  private press: { bone: number; x: number; y: number; dragging: boolean; pointer: number } | null = null;

  /**
   * @param toolbar    the page toolbar: the Bones button joins its view group
   * @param container  the viewport element the panel floats over
   */
  constructor(
    toolbar: HTMLElement,
    container: HTMLElement,
    private readonly host: BoneListHost,
  ) {
    const { commands } = host;
    const group = toolbar.querySelector<HTMLElement>('.rig-group') ?? toolbar;
    this.toolbarGroup = group;
    this.root = floatingPanel('bone-list', 'bind-panel bone-list-panel', 'Bones', commands, 'panel.bones');
    this.actions = element('div', 'bone-actions');
    for (const { id, label } of ACTIONS) commandButton(this.actions, commands, id, { label, className: 'tool-button bone-action' });
    const header = this.root.querySelector('header')!;
    header.insertBefore(this.actions, header.lastElementChild);
    this.search = element('input', 'bone-search');
    this.search.type = 'search';
    this.search.placeholder = 'Search bones';
    this.search.setAttribute('aria-label', 'Search bones by name');
    this.search.addEventListener('input', () => this.refresh());
    this.tree = element('div', 'bone-tree');
    this.tree.title = 'Drop a bone here to make it a root';
    this.list = element('ul', 'bone-rows');
    this.list.setAttribute('role', 'tree');
    this.emptyNote = element('p', 'dim bone-empty');
    this.tree.append(this.list, this.emptyNote);
    this.root.append(this.search, this.tree);
    this.list.addEventListener('pointerdown', (event) => this.pointerDown(event));
    this.list.addEventListener('pointermove', (event) => this.pointerMove(event));
    this.list.addEventListener('pointerup', (event) => this.pointerUp(event));
    this.list.addEventListener('pointercancel', () => this.endDrag());
    this.list.addEventListener('dblclick', (event) => {
      const bone = this.boneAt(event.target);
      if (bone !== null) this.startRename(bone);
    });
    this.list.addEventListener('keydown', (event) => this.rowKey(event));
    dockPanel(container, this.root, 'bones');
  }

  get open(): boolean {
    return !this.root.hidden;
  }

  setOpen(open: boolean): void {
    this.root.hidden = !open;
    if (!open) this.cancelRename();
    this.refresh();
  }

  /** Redraws from the state: the rows when the skeleton, the names or the search changed, the selection always. */
  refresh(): void {
    refreshCommandButtons(this.toolbarGroup, this.host.commands);
    if (this.root.hidden) return;
    refreshCommandButtons(this.root, this.host.commands);
    this.refreshActions();
    const doc = this.host.document();
    const names = this.host.boneNames();
    const query = this.search.value;
    const built = this.built;
    // The rows' tooltips give each bone's length in the user's units (formatLength of one scene unit tells them apart).
    const unit = formatLength(1);
    if (!built || built.skeleton !== doc.skeleton || built.names !== doc.boneNames || built.query !== query || built.unit !== unit) {
      // A rename in progress stays open while the list is the same; an edit of the skeleton closes it.
      if (this.editing && built?.skeleton !== doc.skeleton) this.cancelRename();
      if (!this.editing) this.rebuild(doc, names, query);
    }
    const selected = this.host.selectedBone();
    for (const row of this.list.querySelectorAll<HTMLElement>('.bone-row')) {
      const isSelected = Number(row.dataset.bone) === selected;
      row.classList.toggle('selected', isSelected);
      row.setAttribute('aria-selected', String(isSelected));
      // A bone picked elsewhere (a joint clicked in the view) comes into sight; the list scrolls no further.
      if (isSelected && selected !== this.shownSelection) row.scrollIntoView({ block: 'nearest' });
    }
    this.shownSelection = selected;
  }

  /** The header's buttons: disabled, with the reason as tooltip, when their command cannot run now. */
  private refreshActions(): void {
    const { commands } = this.host;
    const selected = this.host.selectedBone();
    for (const { id, onSelected } of ACTIONS) {
      const button = this.actions.querySelector<HTMLButtonElement>(`button[data-command="${id}"]`)!;
      const refusal = commands.refusal(id) ?? (onSelected && selected < 0 ? NO_BONE_SELECTED : null);
      button.disabled = refusal !== null;
      button.title = refusal === null ? tooltipOf(id) : `${tooltipOf(id)}. Cannot run now: ${refusal}`;
    }
  }

  private rebuild(doc: SceneDocument, names: readonly string[], query: string): void {
    this.built = { skeleton: doc.skeleton, names: doc.boneNames, query, unit: formatLength(1) };
    const { joints, bones } = doc.skeleton;
    const scroll = this.tree.scrollTop;
    const { parents } = doc.skeleton;
    const shown = searchMatches(names, parents, query);
    const rows = treeOrder(parents)
      .filter(({ bone }) => !shown || shown[bone] > 0)
      .map(({ bone, depth }) => {
        const row = element('li', 'bone-row');
        row.dataset.bone = String(bone);
        row.tabIndex = 0;
        // The row's own keys: not the window's shortcuts (Delete there deletes the selected bone or clears handles).
        row.dataset.ownKeys = ROW_KEYS;
        row.setAttribute('role', 'treeitem');
        row.style.paddingLeft = `${4 + depth * INDENT}px`;
        if (shown && shown[bone] === 1) row.classList.add('ancestor');
        const name = element('span', 'bone-name', names[bone]);
        const [a, b] = [3 * bones[2 * bone], 3 * bones[2 * bone + 1]];
        const length = Math.hypot(joints[b] - joints[a], joints[b + 1] - joints[a + 1], joints[b + 2] - joints[a + 2]);
        row.title = `bone ${bone}, ${formatLength(length)} long: click selects, double-click or F2 renames, drag onto a bone re-parents, Delete deletes`;
        row.append(name, element('span', 'dim bone-index', String(bone)));
        return row;
      });
    this.list.replaceChildren(...rows);
    this.emptyNote.textContent =
      parents.length === 0
        ? 'No bones yet: build them with the skeleton tool (J).'
        : rows.length === 0
          ? `No bone matches “${query.trim()}”.`
          : '';
    this.tree.scrollTop = scroll;
  }

  private boneAt(target: EventTarget | null): number | null {
    const row = target instanceof Element ? target.closest<HTMLElement>('.bone-row') : null;
    return row && this.list.contains(row) ? Number(row.dataset.bone) : null;
  }

  private pointerDown(event: PointerEvent): void {
    if (event.button !== 0 || this.editing) return;
    const bone = this.boneAt(event.target);
    if (bone === null) return;
    this.press = { bone, x: event.clientX, y: event.clientY, dragging: false, pointer: event.pointerId };
  }

  private pointerMove(event: PointerEvent): void {
    const press = this.press;
    if (!press || event.pointerId !== press.pointer) return;
    if (!press.dragging && Math.hypot(event.clientX - press.x, event.clientY - press.y) < DRAG_THRESHOLD) return;
    if (!press.dragging) {
      // Captured only once it is a drag: a plain click (and a double-click) stays on its row.
      press.dragging = true;
      this.list.setPointerCapture(press.pointer);
      this.root.classList.add('dragging');
      // Escape cancels the drag: the dragged row has the key, not the window's shortcuts (rowKey takes it).
      const row = this.rowOf(press.bone);
      if (row) {
        row.dataset.ownKeys = `${ROW_KEYS} Escape`;
        row.focus();
      }
    }
    const over = this.dropTarget(event);
    for (const row of this.list.querySelectorAll<HTMLElement>('.bone-row'))
      row.classList.toggle('drop-target', over !== null && over !== 'root' && Number(row.dataset.bone) === over);
    this.tree.classList.toggle('drop-root', over === 'root');
  }

  private pointerUp(event: PointerEvent): void {
    const press = this.press;
    if (!press || event.pointerId !== press.pointer) return;
    const target = press.dragging ? this.dropTarget(event) : null;
    this.endDrag();
    const { commands } = this.host;
    if (!press.dragging) {
      void commands.invoke('bone.select', press.bone);
      this.list.querySelector<HTMLElement>(`.bone-row[data-bone="${press.bone}"]`)?.focus();
      return;
    }
    if (target === null || target === press.bone) return;
    void commands.invoke('bone.reparent', { bone: press.bone, parent: target === 'root' ? null : target });
  }

  /** Where a drag would drop: a bone's row, the tree's empty area (make it a root), or nowhere. */
  private dropTarget(event: PointerEvent): number | 'root' | null {
    const under = document.elementFromPoint(event.clientX, event.clientY);
    const bone = this.boneAt(under);
    if (bone !== null) return bone;
    return under instanceof Element && this.tree.contains(under) ? 'root' : null;
  }

  private endDrag(): void {
    if (this.press && this.list.hasPointerCapture(this.press.pointer)) this.list.releasePointerCapture(this.press.pointer);
    const row = this.press ? this.rowOf(this.press.bone) : null;
    if (row) row.dataset.ownKeys = ROW_KEYS;
    this.press = null;
    this.root.classList.remove('dragging');
    this.tree.classList.remove('drop-root');
    for (const row of this.list.querySelectorAll('.drop-target')) row.classList.remove('drop-target');
  }

  private rowOf(bone: number): HTMLElement | null {
    return this.list.querySelector<HTMLElement>(`.bone-row[data-bone="${bone}"]`);
  }

  private rowKey(event: KeyboardEvent): void {
    if (event.key === 'Escape' && this.press?.dragging) {
      // The release that follows finds no press and re-parents nothing.
      this.endDrag();
      event.preventDefault();
      event.stopPropagation();
      return;
    }
    if (this.editing) return;
    const bone = this.boneAt(event.target);
    if (bone === null) return;
    if (event.key === 'F2') this.startRename(bone);
    else if (event.key === 'Delete') void this.host.commands.invoke('bone.delete', bone);
    else if (event.key === 'Enter') void this.host.commands.invoke('bone.select', bone);
    else return;
    event.preventDefault();
  }

  /** Opens the name of `bone`'s row for editing. */
  private startRename(bone: number): void {
    this.cancelRename();
    const row = this.list.querySelector<HTMLElement>(`.bone-row[data-bone="${bone}"]`);
    const name = row?.querySelector<HTMLElement>('.bone-name');
    if (!row || !name) return;
    const input = element('input', 'bone-rename');
    input.value = this.host.boneNames()[bone];
    input.setAttribute('aria-label', `New name of ${input.value}`);
    input.addEventListener('keydown', (event) => {
      event.stopPropagation();
      if (event.key === 'Enter') this.commitRename();
      else if (event.key === 'Escape') this.cancelRename();
      else return;
      event.preventDefault();
    });
    input.addEventListener('blur', () => this.commitRename());
    input.addEventListener('pointerdown', (event) => event.stopPropagation());
    input.addEventListener('dblclick', (event) => event.stopPropagation());
    name.replaceWith(input);
    this.editing = { bone, input };
    input.focus();
    input.select();
  }

  /** Renames the bone to what the field says (nothing when unchanged), and closes the field. */
  private commitRename(): void {
    const editing = this.editing;
    if (!editing) return;
    this.editing = null;
    const name = editing.input.value;
    this.built = null;
    if (name !== this.host.boneNames()[editing.bone]) void this.host.commands.invoke('bone.rename', { bone: editing.bone, name });
    this.refresh();
    this.list.querySelector<HTMLElement>(`.bone-row[data-bone="${editing.bone}"]`)?.focus();
  }

  private cancelRename(): void {
    if (!this.editing) return;
    const { bone } = this.editing;
    this.editing = null;
    this.built = null;
    this.refresh();
    this.list.querySelector<HTMLElement>(`.bone-row[data-bone="${bone}"]`)?.focus();
  }
}
