/**
 * The first-step commands and wiring: Start from the demo (the demo's mesh and skeleton unbound, as a new scene), the
 * toolbar tour (Help), and the start hint, which goes once the scene is edited or another one is opened.
 */
import type { HandlersFor } from '../commands/command-handlers.ts';
import type { CommandRegistry } from '../commands/command-registry.ts';
import { StartHint, ToolbarTour, type FirstStepStorage } from '../panels/first-step.ts';
import type { SceneStore } from '../../workers/scene/scene-store.ts';

/** The start hint and the tour of one page. */
export interface FirstStep {
  readonly hint: StartHint;
  readonly tour: ToolbarTour;
}

/** The browser's localStorage, or null where the page may not use it. */
function pageStorage(): FirstStepStorage {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/**
 * Puts the start hint over the viewport (unless the artist turned it off) and, the first time, starts the tour once
 * the toolbar is laid out. The hint goes at the first change of the document: an edit, or a scene opened; while the
 * tour runs it is hidden, and it comes back after the tour if it was shown and the scene is still the start-up one.
 * @param container the viewport's element
 */
export function installFirstStep(container: HTMLElement, commands: CommandRegistry, store: SceneStore): FirstStep {
  const storage = pageStorage();
  let started = false;
  let hintBeforeTour = false;
  const tour = new ToolbarTour(storage, (running) => {
    if (running) {
      hintBeforeTour = hint.visible;
      hint.hide();
    } else if (hintBeforeTour && !started) hint.show();
  });
  const hint = new StartHint(container, commands, storage, () => tour.start());
  const unsubscribe = store.subscribe((change) => {
    if (change.kind !== 'document') return;
    started = true;
    hint.hide();
    unsubscribe();
  });
  if (!tour.seen) requestAnimationFrame(() => tour.start());
  return { hint, tour };
}

/** What the first-step commands use of the app. */
export interface FirstStepCommandsHost {
  readonly firstStep: FirstStep;
  /** opens the demo unbound as a new scene, once unsaved work may go (App.loadDemo) */
  loadDemo(): Promise<void> | void;
}

export function firstStepCommands(app: FirstStepCommandsHost): HandlersFor<'file.demo' | 'help.tour'> {
  return {
    'file.demo': { run: () => app.loadDemo() },
    // The tour hides the start hint while it runs.
    'help.tour': { run: () => void app.firstStep.tour.start() },
  };
}
