/**
 * The example commands (context-aware deformation): the examples panel, adding, removing, hiding and renaming
 * examples, the pose of examples without a pose file, the pose-space kernel, the example heat map, the unposed
 * examples shown beside the rest mesh, and cancelling the unposing.
 */
import type { ArgumentOf } from '../commands/command-catalog.ts';
import type { HandlersFor } from '../commands/command-handlers.ts';
import { toggled } from '../commands/command-handlers.ts';

/** What the example commands use of the app. */
export interface ExamplesCommandsHost {
  readonly examples: {
    add(): Promise<void>;
    remove(name: string): void;
    toggle(name: string): void;
    rename(name: string, newName: string): void;
    setPoseChoice(choice: ArgumentOf<'examples.pose'>): void;
  };
  readonly posespace: {
    readonly progress: { readonly running: boolean };
    setKernel(kernel: ArgumentOf<'examples.kernel'>): void;
    cancel(): void;
  };
  readonly deformation: {
    readonly exampleMap: ArgumentOf<'examples.map'>;
    setExampleMap(mode: ArgumentOf<'examples.map'>): void;
    /** per-face context's unposing in the deform worker: the fraction done, or null when none runs */
    readonly perFaceUnposing: number | null;
    cancelPerFaceUnposing(): void;
  };
  readonly examplesPanel: { readonly open: boolean; setOpen(open: boolean): void };
  readonly unposedDisplay: { readonly shown: boolean; toggle(): void; next(): void };
  renderNow(): void;
}

export type ExamplesCommandId =
  | 'examples.panel'
  | 'examples.add'
  | 'examples.remove'
  | 'examples.toggle'
  | 'examples.rename'
  | 'examples.pose'
  | 'examples.kernel'
  | 'examples.map'
  | 'examples.mapOff'
  | 'examples.showUnposed'
  | 'examples.nextUnposed'
  | 'examples.cancelUnpose';

export function examplesCommands(app: ExamplesCommandsHost): HandlersFor<ExamplesCommandId> {
  const { examples, posespace, unposedDisplay } = app;
  return {
    'examples.panel': {
      run: () => toggled(!app.examplesPanel.open, (on) => app.examplesPanel.setOpen(on)),
      checked: () => app.examplesPanel.open,
    },
    'examples.add': { run: () => examples.add() },
    'examples.remove': { run: (name) => examples.remove(name) },
    'examples.toggle': { run: (name) => examples.toggle(name) },
    'examples.rename': { run: ({ name, newName }) => examples.rename(name, newName) },
    'examples.pose': { run: (choice) => examples.setPoseChoice(choice) },
    'examples.kernel': { run: (kernel) => posespace.setKernel(kernel) },
    'examples.map': {
      run: (mode) => {
        app.deformation.setExampleMap(mode);
        app.renderNow();
      },
    },
    'examples.mapOff': {
      run: () => {
        app.deformation.setExampleMap('off');
        app.renderNow();
      },
      canRun: () => app.deformation.exampleMap !== 'off',
      refusal: 'no example heat map is on',
    },
    'examples.showUnposed': {
      run: () => {
        unposedDisplay.toggle();
        return unposedDisplay.shown;
      },
      checked: () => unposedDisplay.shown,
    },
    'examples.nextUnposed': { run: () => unposedDisplay.next() },
    // Both unposings (per vertex in the pose-space worker, per face in the deform worker) stop, so no bar stays.
    'examples.cancelUnpose': {
      run: () => {
        posespace.cancel();
        app.deformation.cancelPerFaceUnposing();
      },
      canRun: () => posespace.progress.running || app.deformation.perFaceUnposing !== null,
      refusal: 'no examples are being unposed',
    },
  };
}
