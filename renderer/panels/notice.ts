/**
 * Notices: a small message in a corner of the viewport listing non-fatal observations (a file's warnings, an
 * export's caveats), and the list of every message of the session, which the artist can open again (View →
 * Messages, or the status line's count). An informational notice goes by itself after a while (sooner when it is
 * short; never while the pointer is over it); a notice of an error or with buttons to act on stays until it is
 * dismissed. A new scene takes the previous scene's notice away; the list keeps it. Errors that stop an action keep
 * using the error banner.
 */
import './notice.css';
import { element } from './controls.ts';
import { dockPanel } from './panel-dock.ts';

/** A button in the notice: what the user may do about it (the notice closes once it is pressed). */
export interface NoticeAction {
  label: string;
  run(): void;
}

export interface NoticeOptions {
  /** something failed: the notice stays until dismissed */
  error?: boolean;
}

/** One message as the list keeps it. */
export interface NoticeRecord {
  title: string;
  items: readonly string[];
  error: boolean;
  /** the scene it was shown in */
  scene: string;
  /** when, as the page's clock says (ms since the epoch) */
  time: number;
}

/** How long an informational notice stays: a base, and a little more per listed item, up to a cap (ms). */
export const NOTICE_TIMEOUT = { baseMs: 8000, perItemMs: 1500, maxMs: 20000 } as const;

/** The most messages the list keeps (the oldest go first). */
const MAX_RECORDS = 200;

/** How long an informational notice with `itemCount` items stays, in ms. */
export function noticeTimeoutMs(itemCount: number): number {
  return Math.min(NOTICE_TIMEOUT.maxMs, NOTICE_TIMEOUT.baseMs + NOTICE_TIMEOUT.perItemMs * itemCount);
}

export class Notice {
  readonly element: HTMLElement;
  /** every message shown this session, oldest first */
  readonly records: NoticeRecord[] = [];
  private readonly title: HTMLElement;
  private readonly list: HTMLUListElement;
  private readonly actions: HTMLElement;
  private readonly listPanel: HTMLElement;
  private readonly listBody: HTMLElement;
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** the shown notice's time-out (ms), or null when it stays until dismissed */
  private timeout: number | null = null;
  private readonly listeners = new Set<() => void>();

  /**
   * @param container  the viewport element the notice and the list float over
   * @param sceneName  the scene shown now, recorded with each message
   */
  constructor(
    container: HTMLElement,
    private readonly sceneName: () => string = () => '',
  ) {
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
    // Being read: it waits.
    this.element.addEventListener('pointerenter', () => this.stopTimer());
    this.element.addEventListener('pointerleave', () => this.startTimer());

    this.listPanel = document.createElement('aside');
    this.listPanel.className = 'bind-panel messages-panel';
    this.listPanel.id = 'messages-panel';
    this.listPanel.setAttribute('aria-label', 'Messages');
    this.listPanel.hidden = true;
    const header = document.createElement('header');
    header.className = 'bind-header';
    const heading = document.createElement('h2');
    heading.textContent = 'Messages';
    const close = document.createElement('button');
    close.type = 'button';
    close.className = 'icon-button';
    close.textContent = '×';
    close.title = 'Close the messages';
    close.addEventListener('click', () => this.setListOpen(false));
    header.append(heading, close);
    this.listBody = document.createElement('ol');
    this.listBody.className = 'messages-list';
    this.listPanel.append(header, this.listBody);
    dockPanel(container, this.element, 'notice');
    dockPanel(container, this.listPanel, 'messages');
  }

  /**
   * Shows a notice (in place of the one shown) and adds it to the list.
   * @param items    one sentence each, all of them (the notice scrolls): none is left to a console the user cannot open
   * @param actions  buttons under the list, in order; a notice with buttons stays until dismissed
   */
  show(title: string, items: readonly string[], actions: readonly NoticeAction[] = [], options: NoticeOptions = {}): void {
    const error = options.error ?? false;
    this.records.push({ title, items: [...items], error, scene: this.sceneName(), time: Date.now() });
    if (this.records.length > MAX_RECORDS) this.records.splice(0, this.records.length - MAX_RECORDS);
    this.title.textContent = title;
    this.list.replaceChildren(...items.map((text) => element('li', undefined, text)));
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
    this.element.classList.toggle('notice-error', error);
    this.element.setAttribute('role', error ? 'alert' : 'status');
    this.element.hidden = false;
    this.timeout = error || actions.length > 0 ? null : noticeTimeoutMs(items.length);
    this.startTimer();
    if (!this.listPanel.hidden) this.renderList();
    this.emit();
  }

  hide(): void {
    this.stopTimer();
    this.element.hidden = true;
  }

  /** A new scene: the notice shown goes (the list keeps it). */
  sceneOpened(): void {
    this.hide();
  }

  get shown(): boolean {
    return !this.element.hidden;
  }

  get listOpen(): boolean {
    return !this.listPanel.hidden;
  }

  /** Opens or closes the list of messages, newest first. */
  setListOpen(open: boolean): void {
    this.listPanel.hidden = !open;
    if (open) this.renderList();
    this.emit();
  }

  /** Called when a message is added or the list opens or closes. @returns a function that stops listening */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private renderList(): void {
    if (this.records.length === 0) {
      this.listBody.replaceChildren(element('li', 'dim', 'No messages yet.'));
      return;
    }
    this.listBody.replaceChildren(
      ...[...this.records].reverse().map((record) => {
        const row = element('li', record.error ? 'message-row message-error' : 'message-row');
        const time = new Date(record.time).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
        row.append(
          element('p', 'message-title', record.title),
          element('p', 'dim message-when', record.scene ? `${time} · ${record.scene}` : time),
        );
        if (record.items.length > 0) {
          const items = document.createElement('ul');
          items.append(...record.items.map((text) => element('li', undefined, text)));
          row.append(items);
        }
        return row;
      }),
    );
  }

  private startTimer(): void {
    this.stopTimer();
    if (this.timeout === null || this.element.hidden) return;
    this.timer = setTimeout(() => this.hide(), this.timeout);
  }

  private stopTimer(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private emit(): void {
    for (const listener of this.listeners) listener();
  }
}
