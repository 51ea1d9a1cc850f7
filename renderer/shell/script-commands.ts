/**
 * The script commands: the Scripting panel, running and stopping its script, opening and saving script files, and
 * the built-in examples. The runs are the script controller's (scripting/script-controller.ts); what is in the
 * editor, its file and its name are the panel's.
 */
import type { HandlersFor } from '../commands/command-handlers.ts';
import { toggled } from '../commands/command-handlers.ts';
import type { ScriptPanel } from '../panels/script-panel.ts';

/** What the script commands use of the app. */
export interface ScriptCommandsHost {
  readonly scriptPanel: Pick<ScriptPanel, 'open' | 'setOpen' | 'run' | 'openFile' | 'save' | 'saveAs' | 'openExample'>;
  readonly scripts: { stop(): void };
}

export type ScriptCommandId =
  'script.panel' | 'script.run' | 'script.stop' | 'script.open' | 'script.save' | 'script.saveAs' | 'script.example';

export function scriptCommands({ scriptPanel, scripts }: ScriptCommandsHost): HandlersFor<ScriptCommandId> {
  return {
    'script.panel': { run: () => toggled(!scriptPanel.open, (on) => scriptPanel.setOpen(on)), checked: () => scriptPanel.open },
    'script.run': { run: () => scriptPanel.run() },
    'script.stop': { run: () => scripts.stop() },
    'script.open': { run: () => scriptPanel.openFile() },
    'script.save': { run: async () => void (await scriptPanel.save()) },
    'script.saveAs': { run: async () => void (await scriptPanel.saveAs()) },
    'script.example': { run: (name) => scriptPanel.openExample(name) },
  };
}
