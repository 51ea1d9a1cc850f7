/**
 * A small dismissable notice in a corner of the viewport listing non-fatal observations (a file's warnings, an
 * export's caveats). Errors keep using the error banner; this is for what the user may want to know but need not act on.
 */
const SHOWN_ITEMS = 12;

export class Notice {
  readonly element: HTMLElement;
  private readonly title: HTMLElement;
  private readonly list: HTMLUListElement;

  constructor(container: HTMLElement) {
    this.element = document.createElement('div');
    this.element.className = 'notice';
    this.element.setAttribute('role', 'status');
    this.element.hidden = true;
    this.title = document.createElement('p');
    this.title.className = 'notice-title';
    this.list = document.createElement('ul');
    const dismiss = document.createElement('button');
    dismiss.type = 'button';
    dismiss.className = 'notice-dismiss';
    dismiss.setAttribute('aria-label', 'Dismiss');
    dismiss.textContent = '×';
    dismiss.addEventListener('click', () => this.hide());
    this.element.append(this.title, this.list, dismiss);
    container.append(this.element);
  }

  /** @param items  one sentence each; beyond SHOWN_ITEMS, a count stands for the rest */
  show(title: string, items: readonly string[]): void {
    this.title.textContent = title;
    const shown = items.slice(0, SHOWN_ITEMS).map((text) => {
      const li = document.createElement('li');
      li.textContent = text;
      return li;
    });
    if (items.length > SHOWN_ITEMS) {
      const more = document.createElement('li');
      more.textContent = `… and ${items.length - SHOWN_ITEMS} more (see the console)`;
      shown.push(more);
    }
    this.list.replaceChildren(...shown);
    this.element.hidden = false;
  }

  hide(): void {
    this.element.hidden = true;
  }
}
