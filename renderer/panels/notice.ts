/**
 * A small dismissable notice in a corner of the viewport listing non-fatal observations (a file's warnings, an
 * export's caveats). Errors keep using the error banner; this is for what the user may want to know but need not act on.
 */
/** A button in the notice: what the user may do about it (the notice closes once it is pressed). */
export interface NoticeAction {
  label: string;
  run(): void;
}

export class Notice {
  readonly element: HTMLElement;
  private readonly title: HTMLElement;
  private readonly list: HTMLUListElement;
  private readonly actions: HTMLElement;

  constructor(container: HTMLElement) {
    this.element = document.createElement('div');
    this.element.className = 'notice';
    this.element.setAttribute('role', 'status');
    this.element.hidden = true;
    this.title = document.createElement('p');
    this.title.className = 'notice-title';
    this.list = document.createElement('ul');
    this.actions = document.createElement('div');
    this.actions.className = 'notice-actions';
    const dismiss = document.createElement('button');
    dismiss.type = 'button';
    dismiss.className = 'notice-dismiss';
    dismiss.setAttribute('aria-label', 'Dismiss');
    dismiss.textContent = '×';
    dismiss.addEventListener('click', () => this.hide());
    this.element.append(this.title, this.list, this.actions, dismiss);
    container.append(this.element);
  }

  /**
   * @param items  one sentence each, all of them (the notice scrolls): none is left to a console the user cannot open
   * @param actions  buttons under the list, in order
   */
  show(title: string, items: readonly string[], actions: readonly NoticeAction[] = []): void {
    this.title.textContent = title;
    const shown = items.map((text) => {
      const li = document.createElement('li');
      li.textContent = text;
      return li;
    });
    this.list.replaceChildren(...shown);
    this.actions.replaceChildren(
      ...actions.map((action) => {
        const button = document.createElement('button');
        button.type = 'button';
        button.textContent = action.label;
        button.addEventListener('click', () => {
          this.hide();
          action.run();
        });
        return button;
      }),
    );
    this.actions.hidden = actions.length === 0;
    this.element.hidden = false;
  }

  hide(): void {
    this.element.hidden = true;
  }
}
