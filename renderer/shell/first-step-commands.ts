/**
 * The first-step commands and wiring: Start from the demo (a fresh copy of the built-in demo as a new scene), the
 * toolbar tour (Help), and the start hint, which goes once the scene is edited or another one is opened.
 */
import type { HandlersFor } from '../commands/command-handlers.ts';
import type { CommandRegistry } from '../commands/command-registry.ts';
import { StartHint, ToolbarTour, type FirstStepStorage } from '../panels/first-step.ts';
import { demoDocument } from '../../workers/scene/scene-document.ts';
import type { SceneStore } from '../../workers/scene/scene-store.ts';
import type { FileCommandsHost } from './file-commands.ts';

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
 * the toolbar is laid out. The hint goes at the first change of the document: an edit, or a scene opened.
 * @param container the viewport's element
 */
export function installFirstStep(container: HTMLElement, commands: CommandRegistry, store: SceneStore): FirstStep {
  const storage = pageStorage();
  const tour = new ToolbarTour(storage);
  const hint = new StartHint(container, commands, storage, () => {
    hint.hide();
    tour.start();
  });
  const unsubscribe = store.subscribe((change) => {
    if (change.kind !== 'document') return;
    hint.hide();
    unsubscribe();
  });
  if (!tour.seen) requestAnimationFrame(() => tour.start());
  return { hint, tour };
}

/** What the first-step commands use of the app. */
export interface FirstStepCommandsHost extends Pick<FileCommandsHost, 'work'> {
  readonly store: SceneStore;
  readonly firstStep: FirstStep;
  renderNow(): void;
}

export function firstStepCommands(app: FirstStepCommandsHost): HandlersFor<'file.demo' | 'help.tour'> {
  const openDemo = () => {
    app.store.open(demoDocument(), 'started from the demo');
    app.renderNow();
  };
  return {
    'file.demo': {
      // Nothing unsaved: the demo opens at once; otherwise once the question is answered.
      run: () => {
        if (!app.work.guard.unsaved) return openDemo();
        return app.work.guard.mayDiscard().then((discard) => {
          if (discard) openDemo();
        });
      },
    },
    'help.tour': {
      run: () => {
        app.firstStep.hint.hide();
        app.firstStep.tour.start();
      },
    },
  };
}
