/**
 * The Vertex weights panel (View → Vertex weights panel): the weights of the selected vertices as a table — a row per
 * bone that weighs on them, with its name, its value (the mean over the selection, marked mixed where the vertices
 * differ) and a lock — in which a value typed and committed (Enter, or leaving the field) runs weights.set on the
 * selection; Copy and Paste carry the active vertex's row onto the selection; a bone's weight range selects vertices.
 * The selection is the lasso's (a click with the lasso tool picks a vertex: Shift adds, Ctrl toggles). Every change
 * goes through a command (weights.set, paint.lock, weights.copyRow, weights.pasteRow, bind.selectByWeight), so each
 * is one undo step and the table follows the store and the selection when it is redrawn.
 */
import './vertex-weights-panel.css';
import type { CommandRegistry } from '../commands/command-registry.ts';
import { displayKeys } from '../commands/keybindings.ts';
import type { VertexWeightTable } from '../paint/vertex-weights.ts';
import { countOf, plainNumber } from '../project/plain-number.ts';
import { commandButton, element, floatingPanel, refreshCommandButtons, section, toolButton } from './controls.ts';
import { dockPanel } from './panel-dock.ts';

export interface VertexWeightsPanelHost {
  readonly commands: CommandRegistry;
  /** the table of the selection's weights now */
  table(): VertexWeightTable;
  /** the selected vertices, in order */
  selectedVertices(): Uint32Array;
  /** the vertex whose row was copied, or -1 (none, or one of another skeleton) */
  copiedVertex(): number;
  /** #B bone names */
  boneNames(): readonly string[];
  /** the selected bone, or -1 */
  selectedBone(): number;
}

/** A value typed into a row: a number from 0 to 1, or the reason it is not. */
export function parseWeight(text: string): number | string {
  const trimmed = text.trim();
  const value = trimmed === '' ? NaN : Number(trimmed);
  if (!Number.isFinite(value)) return `“${trimmed}” is not a number: type a weight from 0 to 1`;
  if (value < 0 || value > 1) return `${trimmed} is outside 0 … 1: a weight is from 0 to 1`;
  return value;
}

export class VertexWeightsPanel {
  readonly root: HTMLElement;
  private readonly summary: HTMLElement;
  private readonly body: HTMLTableSectionElement;
  private readonly table: HTMLTableElement;
  private readonly message: HTMLElement;
  /** a bone that does not weigh on the selection yet, and the weight to give it there */
  private readonly addRow: HTMLElement;
  private readonly addBone: HTMLSelectElement;
  private readonly addValue: HTMLInputElement;
  /** the bones the add row's list was built for, joined with the names */
  private addListed = '';
  private readonly copiedNote: HTMLElement;
  private readonly rangeBone: HTMLSelectElement;
  private readonly rangeMin: HTMLInputElement;
  private readonly rangeMax: HTMLInputElement;
  /** the bones the rows were built for, joined ('' for none) */
  private builtBones = '';
  /** the names the range's bone list was built from, joined (null: build it) */
  private listedNames: string | null = null;

  /** @param container  the viewport element the panel floats over */
  constructor(
    container: HTMLElement,
    private readonly host: VertexWeightsPanelHost,
  ) {
    const { commands } = host;
    this.root = floatingPanel('vertex-weights-panel', 'bind-panel vertex-weights-panel', 'Vertex weights', commands, 'weights.vertexPanel');
    this.summary = element('p', 'vertex-weights-summary dim');
    this.table = element('table', 'vertex-weights-table');
    this.table.setAttribute('aria-label', 'Weights of the selected vertices');
    const head = element('thead');
    const headRow = element('tr');
    headRow.append(element('th', undefined, 'Bone'), element('th', undefined, 'Weight'), element('th', undefined, 'Lock'));
    head.append(headRow);
    this.body = element('tbody');
    this.table.append(head, this.body);
    this.message = element('p', 'vertex-weights-message');
    this.message.setAttribute('role', 'alert');
    this.message.hidden = true;
    const clipboard = element('div', 'row vertex-weights-clipboard');
    toolButton(
      clipboard,
      'Select…',
      'Take the lasso (it opens the Bind panel, whose X-ray it shares): click a vertex, Shift adds, Ctrl toggles; or draw around some',
      () => this.takeLasso(),
      'vertex-weights-lasso',
    );
    commandButton(clipboard, commands, 'weights.copyRow', { label: 'Copy' });
    commandButton(clipboard, commands, 'weights.pasteRow', { label: 'Paste' });
    this.copiedNote = element('span', 'dim vertex-weights-copied');
    clipboard.append(this.copiedNote);
    this.addRow = element('div', 'row vertex-weights-add');
    this.addBone = element('select', 'vertex-weights-add-bone');
    this.addBone.setAttribute('aria-label', 'Bone to add');
    this.addBone.title = 'A bone that does not weigh on the selected vertices yet';
    this.addValue = element('input', 'vertex-weights-add-value');
    this.addValue.type = 'text';
    this.addValue.inputMode = 'decimal';
    this.addValue.placeholder = '0 … 1';
    this.addValue.setAttribute('aria-label', 'Added bone weight');
    this.addValue.title = 'Type the added bone’s weight and press Enter: the other unlocked bones are rescaled to fill the rest';
    this.addValue.addEventListener('keydown', (event) => this.valueKey(event));
    this.addValue.addEventListener('change', () => this.addCommitted());
    this.addRow.append(element('span', 'dim', 'Add'), this.addBone, this.addValue);
    this.root.append(this.summary, this.table, this.addRow, this.message, clipboard);

    const range = section(this.root, 'Select by weight');
    const rangeRow = element('div', 'row vertex-weights-range');
    this.rangeBone = element('select', 'vertex-weights-range-bone');
    this.rangeBone.setAttribute('aria-label', 'Bone whose weights select');
    this.rangeMin = rangeField('From', '0.5');
    this.rangeMax = rangeField('To', '1');
    const select = element('button', undefined, 'Select');
    select.type = 'button';
    select.title = 'Select the vertices the bone weighs from … to … on (bind.selectByWeight)';
    select.addEventListener('click', () => this.selectRange());
    rangeRow.append(this.rangeBone, element('span', 'dim', 'from'), this.rangeMin, element('span', 'dim', 'to'), this.rangeMax, select);
    range.append(rangeRow);
    this.body.addEventListener('change', (event) => this.committed(event.target));
    this.body.addEventListener('keydown', (event) => this.valueKey(event));
    this.body.addEventListener('click', (event) => this.buttonClicked(event.target));
    dockPanel(container, this.root, 'vertexWeights');
  }

  get open(): boolean {
    return !this.root.hidden;
  }

  setOpen(open: boolean): void {
    this.root.hidden = !open;
    if (open) this.listedNames = null;
    this.refresh();
  }

  /** Redraws from the state: the rows when the bones weighing on the selection changed, the values always. */
  refresh(): void {
    if (this.root.hidden) return;
    const { commands } = this.host;
    refreshCommandButtons(this.root, commands);
    const table = this.host.table();
    this.summary.textContent =
      table.count === 0
        ? `No vertex selected: with the lasso (Select…, or ${displayKeys('bind.panel')} then ${displayKeys('tool.lasso')}) click a vertex (Shift adds, Ctrl toggles) or draw around some.`
        : `${countOf(table.count, 'vertex', 'vertices')} selected${table.active >= 0 ? ` · active: vertex ${table.active}` : ''}`;
    const bones = table.rows.map((row) => row.bone).join(' ');
    if (bones !== this.builtBones || this.body.rows.length !== table.rows.length) this.rebuild(table);
    for (const row of table.rows) {
      const tr = this.body.querySelector<HTMLTableRowElement>(`tr[data-bone="${row.bone}"]`)!;
      const input = tr.querySelector<HTMLInputElement>('input')!;
      const shown = plainNumber(row.value);
      // A field being typed in keeps what the artist typed.
      if (document.activeElement !== input && input.value !== shown) input.value = shown;
      input.dataset.shown = shown;
      input.disabled = row.locked || !commands.isEnabled('weights.set');
      tr.classList.toggle('mixed', row.mixed);
      tr.classList.toggle('selected', row.bone === this.host.selectedBone());
      tr.classList.toggle('locked', row.locked);
      input.title = row.mixed
        ? `Mixed: from ${plainNumber(row.min)} to ${plainNumber(row.max)} over the selection (the mean shown); a value typed sets every vertex`
        : row.locked
          ? `${row.name} is locked: unlock it to type a value`
          : `Type ${row.name}'s weight (0 … 1) and press Enter: the other unlocked bones are rescaled to fill the rest`;
      tr.querySelector('.mixed-mark')!.textContent = row.mixed ? 'mixed' : '';
      const lock = tr.querySelector<HTMLButtonElement>('button.vertex-weight-lock')!;
      lock.setAttribute('aria-pressed', String(row.locked));
      lock.textContent = row.locked ? 'Locked' : 'Lock';
      lock.disabled = !commands.isEnabled('paint.lock');
    }
    this.table.hidden = table.rows.length === 0;
    this.refreshAddRow(table);
    const copied = this.host.copiedVertex();
    this.copiedNote.textContent = copied >= 0 ? `copied: vertex ${copied}` : '';
    this.refreshRange();
  }

  private rebuild(table: VertexWeightTable): void {
    this.builtBones = table.rows.map((row) => row.bone).join(' ');
    this.body.replaceChildren(
      ...table.rows.map((row) => {
        const tr = element('tr', 'vertex-weight-row');
        tr.dataset.bone = String(row.bone);
        const input = element('input', 'vertex-weight-value');
        input.type = 'text';
        input.inputMode = 'decimal';
        input.setAttribute('aria-label', `${row.name} weight`);
        const value = element('td');
        value.append(input, element('span', 'mixed-mark dim'));
        const lock = element('button', 'vertex-weight-lock', 'Lock');
        lock.type = 'button';
        lock.title = `Lock or unlock ${row.name}: painting and weight edits keep a locked bone (paint.lock)`;
        lock.setAttribute('aria-label', `Lock ${row.name}`);
        const lockCell = element('td');
        lockCell.append(lock);
        const name = element('button', 'vertex-weight-bone', row.name);
        name.type = 'button';
        name.title = `Select ${row.name}: the weight map shows its weights (bone.select)`;
        const nameCell = element('td');
        nameCell.append(name);
        tr.append(nameCell, value, lockCell);
        return tr;
      }),
    );
  }

  /** The range's bone list (rebuilt with the names) and its choice following the selected bone. */
  private refreshRange(): void {
    const names = this.host.boneNames();
    if (names.join('\n') !== this.listedNames) {
      this.listedNames = names.join('\n');
      this.rangeBone.replaceChildren(
        ...names.map((name, bone) => Object.assign(element('option', undefined, name), { value: String(bone) })),
      );
    }
    const selected = this.host.selectedBone();
    if (selected >= 0 && document.activeElement !== this.rangeBone) this.rangeBone.value = String(selected);
  }

  /** The lasso selects for this panel too; it is the Bind panel's tool, so the Bind panel opens with it. */
  private takeLasso(): void {
    const { commands } = this.host;
    if (!commands.isEnabled('tool.lasso')) commands.invoke('bind.panel');
    if (!commands.isChecked('tool.lasso')) commands.invoke('tool.lasso');
  }

  /** The add row lists the bones not in the table; it is there while vertices are selected and such a bone exists. */
  private refreshAddRow(table: VertexWeightTable): void {
    const names = this.host.boneNames();
    const inTable = new Set(table.rows.map((row) => row.bone));
    const missing = names.map((name, bone) => ({ name, bone })).filter(({ bone }) => !inTable.has(bone));
    const listed = missing.map(({ name, bone }) => `${bone}:${name}`).join('\n');
    if (listed !== this.addListed) {
      const chosen = this.addBone.value;
      this.addListed = listed;
      this.addBone.replaceChildren(
        ...missing.map(({ name, bone }) => Object.assign(element('option', undefined, name), { value: String(bone) })),
      );
      if (missing.some(({ bone }) => String(bone) === chosen)) this.addBone.value = chosen;
    }
    this.addRow.hidden = table.count === 0 || missing.length === 0;
    this.addValue.disabled = !this.host.commands.isEnabled('weights.set');
  }

  /** The add row's value committed: weights.set of the chosen bone on the selection. */
  private addCommitted(): void {
    if (this.addValue.value.trim() === '') return;
    const value = parseWeight(this.addValue.value);
    this.addValue.value = '';
    if (typeof value === 'string') return this.say(value);
    if (this.addBone.value === '') return this.say('Every bone already weighs on the selection');
    this.say(null);
    this.host.commands.invoke('weights.set', { bone: Number(this.addBone.value), value, vertices: this.host.selectedVertices() });
  }

  private selectRange(): void {
    const min = parseWeight(this.rangeMin.value);
    const max = parseWeight(this.rangeMax.value);
    if (typeof min === 'string' || typeof max === 'string') return this.say(typeof min === 'string' ? min : (max as string));
    if (this.rangeBone.value === '') return this.say('The skeleton has no bones to select by');
    this.say(null);
    this.host.commands.invoke('bind.selectByWeight', { bone: Number(this.rangeBone.value), min, max });
  }

  /** A value field committed (Enter or leaving it): weights.set on the selection, unless the value shown is unchanged. */
  private committed(target: EventTarget | null): void {
    if (!(target instanceof HTMLInputElement) || !target.classList.contains('vertex-weight-value')) return;
    const bone = Number(target.closest<HTMLElement>('tr')!.dataset.bone);
    if (target.value.trim() === target.dataset.shown) return;
    const value = parseWeight(target.value);
    if (typeof value === 'string') {
      target.value = target.dataset.shown ?? '';
      return this.say(value);
    }
    this.say(null);
    this.host.commands.invoke('weights.set', { bone, value, vertices: this.host.selectedVertices() });
  }

  /** Enter commits the field (it gives the focus back, so the app's keys, Ctrl+Z among them, work again); Escape gives up. */
  private valueKey(event: KeyboardEvent): void {
    const target = event.target;
    if (!(target instanceof HTMLInputElement)) return;
    if (event.key === 'Enter') {
      event.preventDefault();
      target.blur();
    } else if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      target.value = target.dataset.shown ?? '';
      target.blur();
    }
  }

  /** A row's lock (paint.lock) or its bone's name (bone.select). */
  private buttonClicked(target: EventTarget | null): void {
    if (!(target instanceof HTMLButtonElement)) return;
    const bone = Number(target.closest<HTMLElement>('tr')!.dataset.bone);
    if (target.classList.contains('vertex-weight-lock')) this.host.commands.invoke('paint.lock', bone);
    else if (target.classList.contains('vertex-weight-bone')) this.host.commands.invoke('bone.select', bone);
    else return;
    target.blur();
  }

  /** Shows why a value was not taken (null: hides the message). */
  private say(message: string | null): void {
    this.message.hidden = message === null;
    this.message.textContent = message ?? '';
  }
}

function rangeField(label: string, value: string): HTMLInputElement {
  const input = element('input', 'vertex-weights-range-value');
  input.type = 'text';
  input.inputMode = 'decimal';
  input.value = value;
  input.setAttribute('aria-label', `${label} weight`);
  return input;
}
