/**
 * A new artist's first step: the start hint over the viewport while the start-up demo is shown (Import…, open a
 * sample, start from the demo, take the tour; "Show at startup" can turn it off), and a short tour of the toolbar and
 * the menu bar shown once (Next / Skip or Escape, remembered in the browser's storage), which Help → Tour of the
 * toolbar shows again.
 * DOM only: the buttons run commands, the shell decides when the hint goes.
 */
import './first-step.css';
import { COMMANDS, type CommandId } from '../commands/command-catalog.ts';
import type { CommandRegistry } from '../commands/command-registry.ts';
import { element } from './controls.ts';
import { START_HINT_KEY, TOUR_SEEN_KEY } from './first-step-keys.ts';

/** The part of the browser's Storage the first step uses (localStorage, or null where it cannot be used). */
export type FirstStepStorage = Pick<Storage, 'getItem' | 'setItem'> | null;

/**
 * One step of the tour: the control it points at and what it says. The control is the toolbar's button of `command`,
 * or with `inMenu` the menu bar's title of the menu that holds `command` (the catalog's `menu`).
 */
export interface TourStep {
  command: CommandId;
  inMenu?: boolean;
  title: string;
  text: string;
}

/** The tour, in toolbar order, then the menu bar's; a step whose control is not on the page is left out. */
export const TOUR_STEPS: readonly TourStep[] = [
  {
    command: 'file.open',
    title: 'Import',
    text: 'Open a mesh with its skeleton (OBJ or OFF with TGF), weights or poses (DMAT), or a glTF. Dropping files on the viewport does the same.',
  },
  {
    command: 'tool.skeleton',
    title: 'Build a skeleton',
    text: 'Click on the mesh to place joints, one bone after another; Escape ends a chain.',
  },
  {
    command: 'tool.pose',
    title: 'Pose',
    text: 'Select a bone and turn it with the rings, or drag an end joint to bend the limb (IK).',
  },
  {
    command: 'edit.undo',
    title: 'Undo and redo',
    text: 'Every edit — a stroke, a weight computation, a key — is one step, named on the button.',
  },
  {
    command: 'bind.compute',
    inMenu: true,
    title: 'Rig: compute weights',
    text: 'The Rig menu binds the mesh: pick handle vertices for each bone (or let a rule place them), then Compute weights.',
  },
  {
    command: 'tool.brush',
    inMenu: true,
    title: 'Paint',
    text: 'The Paint menu: weight paint mode (P) with add, smooth, blur, relax, gradient and flood fill, mirror and normalize.',
  },
  {
    command: 'help.keys',
    title: 'Keys and mouse',
    text: 'All shortcuts and mouse controls. Weight painting is P; Help → Tour of the toolbar shows this tour again.',
  },
];

function read(storage: FirstStepStorage, key: string): string | null {
  try {
    return storage?.getItem(key) ?? null;
  } catch {
    return null;
  }
}

function write(storage: FirstStepStorage, key: string, value: string): void {
  try {
    storage?.setItem(key, value);
  } catch {
    // Storage refused (private mode, quota): the choice lasts for this page only.
  }
}

/** The start hint: a card in the middle of the viewport; the rest of the viewport stays usable around it. */
export class StartHint {
  readonly root: HTMLElement;

  constructor(
    container: HTMLElement,
    commands: CommandRegistry,
    private readonly storage: FirstStepStorage,
    startTour: () => void,
  ) {
    this.root = element('section', 'start-hint');
    this.root.setAttribute('role', 'dialog');
    this.root.setAttribute('aria-label', 'Start');
    const close = element('button', 'start-hint-close', '×');
    close.type = 'button';
    close.title = 'Close (the demo stays)';
    close.setAttribute('aria-label', 'Close');
    close.addEventListener('click', () => this.hide());
    const title = element('h2', undefined, 'Start rigging');
    const text = element(
      'p',
      undefined,
      'What you see is the built-in demo creature, weighted and animated. Import your own mesh and skeleton, open a sample, or start from the demo’s mesh and skeleton, unbound, and rig it yourself.',
    );
    const actions = element('div', 'start-hint-actions');
    const action = (label: string, command: CommandId, tooltip: string) => {
      const button = element('button', 'tool-button', label);
      button.type = 'button';
      button.title = tooltip;
      button.dataset.command = command;
      button.addEventListener('click', () => void commands.invoke(command));
      actions.append(button);
    };
    action('Import…', 'file.open', 'Open a mesh, skeleton, weights or a glTF');
    action('Open a sample', 'file.twistDemo', 'The twist test: a tube whose second bone twists past 180°, where linear blending collapses');
    action('Start from the demo', 'file.demo', 'The demo’s mesh, skeleton and clip with no handles and provisional weights, ready to bind');
    const tour = element('button', 'start-hint-tour', 'Take the tour of the toolbar');
    tour.type = 'button';
    tour.addEventListener('click', startTour);
    const atStartup = element('label', 'start-hint-startup');
    const box = element('input');
    box.type = 'checkbox';
    box.checked = read(storage, START_HINT_KEY) !== 'off';
    box.addEventListener('change', () => write(this.storage, START_HINT_KEY, box.checked ? 'on' : 'off'));
    atStartup.append(box, ' Show at startup');
    const footer = element('div', 'start-hint-footer');
    footer.append(tour, atStartup);
    this.root.append(close, title, text, actions, footer);
    this.root.hidden = read(storage, START_HINT_KEY) === 'off';
    container.append(this.root);
  }

  get visible(): boolean {
    return !this.root.hidden;
  }

  hide(): void {
    this.root.hidden = true;
  }

  show(): void {
    this.root.hidden = false;
  }
}

/** The control a tour step points at on the page now, or null when it is not there (or not laid out). */
export function tourTarget(step: TourStep): HTMLElement | null {
  let target: HTMLElement | null;
  if (step.inMenu) {
    const menu = COMMANDS[step.command].menu;
    target = [...document.querySelectorAll<HTMLElement>('#menu-bar .menu-title')].find((title) => title.textContent === menu) ?? null;
  } else target = document.querySelector<HTMLElement>(`#toolbar button[data-command="${step.command}"]`);
  return target && target.getClientRects().length > 0 ? target : null;
}

/**
 * The toolbar tour: a ring around one control at a time and a card beside it with Next (Done on the last step) and
 * Skip tour (or Escape). Finishing or skipping remembers that the tour was seen. It follows the controls when the
 * window or the toolbar changes size, finding each step's control again.
 */
export class ToolbarTour {
  private readonly ring: HTMLElement;
  private readonly card: HTMLElement;
  private readonly counter: HTMLElement;
  private readonly title: HTMLElement;
  private readonly text: HTMLElement;
  private readonly next: HTMLButtonElement;
  private steps: { step: TourStep; target: HTMLElement }[] = [];
  private index = -1;
  private readonly place = () => this.show();
  private readonly onKey = (event: KeyboardEvent) => {
    if (event.key !== 'Escape') return;
    event.preventDefault();
    event.stopPropagation();
    this.end();
  };
  private readonly resized = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(this.place);

  /** @param running called with true when the tour starts, false when it ends */
  constructor(
    private readonly storage: FirstStepStorage,
    private readonly onRunning: (running: boolean) => void = () => undefined,
  ) {
    this.ring = element('div', 'tour-ring');
    this.card = element('section', 'tour-card');
    this.card.setAttribute('role', 'dialog');
    this.card.setAttribute('aria-label', 'Tour of the toolbar');
    this.counter = element('span', 'tour-counter');
    this.title = element('h3');
    this.text = element('p');
    const buttons = element('div', 'tour-buttons');
    const skip = element('button', 'tool-button tour-skip', 'Skip tour');
    skip.type = 'button';
    skip.addEventListener('click', () => this.end());
    this.next = element('button', 'tool-button tour-next', 'Next');
    this.next.type = 'button';
    this.next.addEventListener('click', () => this.advance());
    buttons.append(skip, this.next);
    this.card.append(this.counter, this.title, this.text, buttons);
    this.ring.hidden = this.card.hidden = true;
    document.body.append(this.ring, this.card);
  }

  /** Whether the tour was finished or skipped before (it then starts only when asked). */
  get seen(): boolean {
    return read(this.storage, TOUR_SEEN_KEY) === '1';
  }

  get running(): boolean {
    return this.index >= 0;
  }

  /** Starts the tour at its first step, over the controls on the page now. @returns whether any step could be shown */
  start(): boolean {
    this.steps = [];
    for (const step of TOUR_STEPS) {
      const target = tourTarget(step);
      if (target) this.steps.push({ step, target });
    }
    if (this.steps.length === 0) return false;
    const wasRunning = this.running;
    this.index = 0;
    window.addEventListener('resize', this.place);
    window.addEventListener('keydown', this.onKey, true);
    const toolbar = document.getElementById('toolbar');
    if (toolbar) this.resized?.observe(toolbar);
    if (!wasRunning) this.onRunning(true);
    this.show();
    this.next.focus();
    return true;
  }

  private advance(): void {
    if (this.index + 1 >= this.steps.length) this.end();
    else {
      this.index++;
      this.show();
    }
  }

  /** Ends the tour (Done or Skip) and remembers that it was seen. */
  end(): void {
    const wasRunning = this.running;
    this.index = -1;
    this.ring.hidden = this.card.hidden = true;
    window.removeEventListener('resize', this.place);
    window.removeEventListener('keydown', this.onKey, true);
    this.resized?.disconnect();
    write(this.storage, TOUR_SEEN_KEY, '1');
    if (wasRunning) this.onRunning(false);
  }

  private show(): void {
    if (this.index < 0) return;
    const shown = this.steps[this.index];
    // The layout may have changed (a toolbar laid out anew): the control is looked for again, kept if it is gone.
    shown.target = tourTarget(shown.step) ?? shown.target;
    const { step, target } = shown;
    this.counter.textContent = `${this.index + 1} of ${this.steps.length}`;
    this.title.textContent = step.title;
    this.text.textContent = step.text;
    this.next.textContent = this.index + 1 === this.steps.length ? 'Done' : 'Next';
    this.card.dataset.command = step.command;
    if (step.inMenu) this.card.dataset.menu = COMMANDS[step.command].menu;
    else delete this.card.dataset.menu;
    const box = target.getBoundingClientRect();
    Object.assign(this.ring.style, {
      left: `${box.left - 4}px`,
      top: `${box.top - 4}px`,
      width: `${box.width + 8}px`,
      height: `${box.height + 8}px`,
    });
    this.ring.hidden = this.card.hidden = false;
    // Below the control, kept inside the window.
    const width = this.card.offsetWidth;
    this.card.style.left = `${Math.max(8, Math.min(box.left, window.innerWidth - width - 8))}px`;
    this.card.style.top = `${box.bottom + 10}px`;
  }
}
