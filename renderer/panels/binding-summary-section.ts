/**
 * The Bind panel's "Last binding" section: the lines of the binding report (bind/binding-summary.ts) — which shells
 * the last Compute bound by which method, the welded vertices, the last transfer's matched and inpainted ones —, each
 * with a Select button that selects its vertices (bind.selectReported). It draws what it is given and acts through
 * the command.
 */
import type { CommandRegistry } from '../commands/command-registry.ts';
import './binding-summary-section.css';
import { element, section } from './controls.ts';

/** A line as the section shows it. */
export interface SummaryRow {
  text: string;
  /** how many vertices its Select selects (0: the button is off) */
  count: number;
}

export class BindingSummarySection {
  readonly root: HTMLElement;
  private readonly list: HTMLElement;
  /** the rows drawn, so a redraw that changes nothing touches no element */
  private drawn = '';

  constructor(
    parent: HTMLElement,
    private readonly commands: CommandRegistry,
  ) {
    this.root = section(parent, 'Last binding');
    this.root.classList.add('binding-summary');
    this.list = element('ul', 'binding-summary-list');
    this.root.append(this.list);
  }

  show(rows: readonly SummaryRow[]): void {
    const key = JSON.stringify(rows);
    if (key === this.drawn) return;
    this.drawn = key;
    this.root.hidden = rows.length === 0;
    this.list.replaceChildren(
      ...rows.map((row, index) => {
        const item = element('li', 'binding-summary-row');
        const select = element('button', 'binding-summary-select', 'Select');
        select.type = 'button';
        select.disabled = row.count === 0;
        select.title = `Select these ${row.count} vertices (the lasso's selection: Assign, Free, the Vertex weights panel act on it)`;
        select.addEventListener('click', () => void this.commands.invoke('bind.selectReported', index));
        item.append(element('span', 'binding-summary-text', row.text), select);
        return item;
      }),
    );
  }
}
